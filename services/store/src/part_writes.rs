//! A checkpoint's general write, inside the fenced transaction: which parts
//! changed (against the stored hashes), and writing them in a fixed number of
//! statements, so a
//! checkpoint costs the same few round trips to the database whether one part
//! changed or seven: the old chunks of every replaced or dropped part go in one
//! DELETE, the part rows in one multi-row upsert, their chunks in multi-row
//! INSERTs of a bounded size. A checkpoint runs after every call, and each round
//! trip holds a pooled connection and the session's row lock.
//!
//! The statements are plain SQL with numbered parameters, which both backends
//! of the `Any` driver accept (it binds no arrays). Their text is built from
//! this file's constants and parameter numbers only, never from a value,
//! which is what makes them safe to pass as dynamic SQL.

use std::fmt::Write as _;

use std::collections::HashMap;

use sqlx::{AnyConnection, AssertSqlSafe, Row};

use crate::sql::{CHUNK_BYTES, to_i64};
use crate::{CheckpointWrite, Part, StoreError};

/// Chunk rows one INSERT carries at most: 16 × 256 KiB keeps a statement
/// within a few MiB however large a font is.
const CHUNKS_PER_STATEMENT: usize = 16;
/// Part rows one statement names at most, well inside both backends' limits
/// on bound parameters.
const PARTS_PER_STATEMENT: usize = 100;

/// Writes the parts of `parts` whose hashes differ from the stored ones and
/// deletes the stored parts `parts` no longer has, inside the caller's
/// transaction, which holds the session's row lock (the fence), so the stored
/// hashes cannot move meanwhile.
pub(crate) async fn write_changed(
    conn: &mut AnyConnection,
    id: &str,
    epoch: u64,
    parts: &[Part<'_>],
) -> Result<CheckpointWrite, StoreError> {
    let mut stored: HashMap<String, String> =
        sqlx::query("SELECT part, hash FROM session_parts WHERE session_id = $1")
            .bind(id)
            .fetch_all(&mut *conn)
            .await?
            .iter()
            .map(|row| Ok((row.try_get("part")?, row.try_get("hash")?)))
            .collect::<Result<_, StoreError>>()?;
    let mut cost = CheckpointWrite::default();
    let mut changed: Vec<&Part<'_>> = Vec::new();
    // Old chunks to delete: of parts replaced, and of parts dropped.
    let mut replaced: Vec<&str> = Vec::new();
    for part in parts {
        match stored.remove(&part.name) {
            Some(previous) if previous == part.hash => {
                cost.parts_unchanged += 1;
                continue;
            }
            Some(_) => replaced.push(&part.name),
            None => {}
        }
        changed.push(part);
        cost.parts_written += 1;
        cost.bytes_written += u64::try_from(part.data.len()).unwrap_or(u64::MAX);
    }
    // What is left was stored before and is not part of this checkpoint.
    let dropped: Vec<&str> = stored.keys().map(String::as_str).collect();
    replaced.extend(&dropped);
    delete_named(conn, "session_part_chunks", id, &replaced).await?;
    // After their chunks: SQLite does not cascade without its foreign-key pragma.
    delete_named(conn, "session_parts", id, &dropped).await?;
    write_parts(conn, id, epoch, &changed).await?;
    Ok(cost)
}

/// Deletes the named parts' rows of session `id` from `table`.
async fn delete_named(
    conn: &mut AnyConnection,
    table: &str,
    id: &str,
    names: &[&str],
) -> Result<(), StoreError> {
    for batch in names.chunks(PARTS_PER_STATEMENT) {
        let sql = format!(
            "DELETE FROM {table} WHERE session_id = $1 AND part IN ({})",
            placeholders(batch.len(), 1, 2)
        );
        let mut query = sqlx::query(AssertSqlSafe(sql)).bind(id);
        for name in batch {
            query = query.bind(*name);
        }
        query.execute(&mut *conn).await?;
    }
    Ok(())
}

/// Inserts or replaces the rows of `parts` (name, hash, size, epoch) and
/// inserts their chunks; the parts' old chunks must already be deleted.
async fn write_parts(
    conn: &mut AnyConnection,
    id: &str,
    epoch: u64,
    parts: &[&Part<'_>],
) -> Result<(), StoreError> {
    for batch in parts.chunks(PARTS_PER_STATEMENT) {
        let sql = format!(
            "INSERT INTO session_parts (session_id, part, hash, size, epoch) VALUES {} \
             ON CONFLICT (session_id, part) DO UPDATE SET hash = excluded.hash, size = excluded.size, epoch = excluded.epoch",
            placeholders(batch.len(), 5, 1)
        );
        let mut query = sqlx::query(AssertSqlSafe(sql));
        for part in batch {
            query = query
                .bind(id)
                .bind(part.name.as_str())
                .bind(part.hash.as_str())
                .bind(i64::try_from(part.data.len()).unwrap_or(i64::MAX))
                .bind(to_i64(epoch));
        }
        query.execute(&mut *conn).await?;
    }
    let chunks: Vec<(&str, i64, &[u8])> = parts
        .iter()
        .flat_map(|part| {
            part.data.chunks(CHUNK_BYTES).enumerate().map(|(i, chunk)| {
                (
                    part.name.as_str(),
                    i64::try_from(i).unwrap_or(i64::MAX),
                    chunk,
                )
            })
        })
        .collect();
    for batch in chunks.chunks(CHUNKS_PER_STATEMENT) {
        let sql = format!(
            "INSERT INTO session_part_chunks (session_id, part, chunk, data) VALUES {}",
            placeholders(batch.len(), 4, 1)
        );
        let mut query = sqlx::query(AssertSqlSafe(sql));
        for (name, index, data) in batch {
            query = query.bind(id).bind(*name).bind(*index).bind(data.to_vec());
        }
        query.execute(&mut *conn).await?;
    }
    Ok(())
}

/// `rows` parenthesized groups of `columns` numbered parameters starting at
/// `$first`; with one column, a bare list for `IN (…)`.
fn placeholders(rows: usize, columns: usize, first: usize) -> String {
    let mut out = String::new();
    for row in 0..rows {
        if row > 0 {
            out.push_str(", ");
        }
        if columns > 1 {
            out.push('(');
        }
        for column in 0..columns {
            if column > 0 {
                out.push_str(", ");
            }
            let _ = write!(out, "${}", first + row * columns + column);
        }
        if columns > 1 {
            out.push(')');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{CHUNKS_PER_STATEMENT, PARTS_PER_STATEMENT, placeholders};
    use crate::sql::CHUNK_BYTES;
    use crate::sql::tests::{refs, sqlite};
    use crate::{CheckpointWrite, SessionStore as _};

    #[tokio::test]
    async fn a_checkpoint_larger_than_one_statement_round_trips_and_replaces_in_batches() {
        let s = sqlite().await;
        let t = s.ensure_tenant("acme").await.unwrap();
        s.create_session("s1", &t.id, 800, 600, 1000).await.unwrap();
        let many = PARTS_PER_STATEMENT + 30;
        let big: Vec<u8> = (0..CHUNK_BYTES * (2 * CHUNKS_PER_STATEMENT) + 3)
            .map(|i| (i % 253) as u8)
            .collect();
        let mut first: Vec<(String, Vec<u8>)> = (0..many)
            .map(|i| (format!("p{i:03}"), format!("first {i}").into_bytes()))
            .collect();
        first.push(("zbig".into(), big.clone()));
        s.save_checkpoint("s1", 1, &refs(&first), "u", "t", 1000)
            .await
            .unwrap();
        let stored = s.load_checkpoint("s1").await.unwrap().unwrap();
        assert_eq!(stored.parts, first, "a batch was lost or mixed");

        // Every other part changes, the last ten are dropped, the big one stays.
        let mut second: Vec<(String, Vec<u8>)> = first[..many - 10]
            .iter()
            .enumerate()
            .map(|(i, (name, data))| {
                let data = if i % 2 == 0 {
                    format!("second {i}").into_bytes()
                } else {
                    data.clone()
                };
                (name.clone(), data)
            })
            .collect();
        second.push(("zbig".into(), big));
        let cost = s
            .save_checkpoint("s1", 2, &refs(&second), "u", "t", 1000)
            .await
            .unwrap();
        let rewritten = (many - 10).div_ceil(2);
        assert_eq!(
            (cost.parts_written, cost.parts_unchanged),
            (
                u32::try_from(rewritten).unwrap(),
                u32::try_from(second.len() - rewritten).unwrap()
            )
        );
        assert_ne!(cost, CheckpointWrite::default());
        let stored = s.load_checkpoint("s1").await.unwrap().unwrap();
        assert_eq!(stored.epoch, 2);
        assert_eq!(stored.parts, second, "old chunks or dropped parts survived");
    }

    #[test]
    fn placeholders_number_rows_and_columns_in_order() {
        assert_eq!(placeholders(3, 1, 2), "$2, $3, $4");
        assert_eq!(placeholders(2, 3, 1), "($1, $2, $3), ($4, $5, $6)");
        assert_eq!(placeholders(1, 2, 1), "($1, $2)");
    }
}
