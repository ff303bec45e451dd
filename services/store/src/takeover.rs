//! The SQL half of epoch fencing. Redis hands a session to a new owner under a
//! higher epoch, but a call already running on the old owner passed its route
//! check before that; only the SQL store can stop it from saving afterwards. So
//! a new owner takes the session over here, raising the stored epoch in the same
//! transaction that reads the checkpoint: an old owner's save that commits
//! before it is read back, and one that comes later is refused as stale. Either
//! way no call acknowledged by the old owner is silently overwritten.

use sqlx::{AnyConnection, Row};

use crate::sql::{Backend, StoredCheckpoint, to_i64, to_u64};
use crate::{SqlStore, StoreError};

impl SqlStore {
    /// Takes the session over for an owner at `epoch` and returns its latest
    /// checkpoint. The checkpoint's epoch is the one stored before the
    /// takeover (the newest owner that saved or took it over), so a caller can
    /// tell whether a copy of its own is newer.
    pub(crate) async fn take_over_checkpoint(
        &self,
        id: &str,
        epoch: u64,
    ) -> Result<Option<StoredCheckpoint>, StoreError> {
        let mut tx = self.pool.begin().await?;
        // Postgres: lock the row until commit, so a save by an older owner
        // waits and then sees the raised epoch. SQLite has one writer anyway.
        let select = match self.backend {
            Backend::Postgres => "SELECT epoch FROM sessions WHERE id = $1 FOR UPDATE",
            Backend::Sqlite => "SELECT epoch FROM sessions WHERE id = $1",
        };
        let Some(row) = sqlx::query(select)
            .bind(id)
            .fetch_optional(&mut *tx)
            .await?
        else {
            return Err(StoreError::NotFound);
        };
        let stored = to_u64(row.try_get("epoch")?);
        if stored > epoch {
            return Err(StoreError::StaleEpoch {
                given: epoch,
                current: stored,
            });
        }
        sqlx::query("UPDATE sessions SET epoch = $2 WHERE id = $1")
            .bind(id)
            .bind(to_i64(epoch))
            .execute(&mut *tx)
            .await?;
        let parts = read_parts(&mut tx, id).await?;
        tx.commit().await?;
        Ok(parts.map(|parts| StoredCheckpoint {
            epoch: stored,
            parts,
        }))
    }
}

/// The session's checkpoint parts, sorted by name, reassembled from their
/// chunks; `None` if none was written. Read inside the caller's transaction, so
/// a concurrent save is never seen half written.
pub(crate) async fn read_parts(
    conn: &mut AnyConnection,
    id: &str,
) -> Result<Option<Vec<(String, Vec<u8>)>>, StoreError> {
    let parts = sqlx::query("SELECT part FROM session_parts WHERE session_id = $1")
        .bind(id)
        .fetch_all(&mut *conn)
        .await?;
    if parts.is_empty() {
        return Ok(None);
    }
    let chunks = sqlx::query(
        "SELECT part, data FROM session_part_chunks WHERE session_id = $1 ORDER BY chunk",
    )
    .bind(id)
    .fetch_all(&mut *conn)
    .await?;
    let mut out = std::collections::BTreeMap::<String, Vec<u8>>::new();
    for row in &parts {
        out.insert(row.try_get("part")?, Vec::new());
    }
    for row in &chunks {
        let part: String = row.try_get("part")?;
        let data: Vec<u8> = row.try_get("data")?;
        if let Some(bytes) = out.get_mut(&part) {
            bytes.extend_from_slice(&data);
        }
    }
    Ok(Some(out.into_iter().collect()))
}
