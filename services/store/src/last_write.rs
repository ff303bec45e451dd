//! A checkpoint in one statement on Postgres, for a session whose stored parts
//! this store wrote last. A worker checkpoints its sessions after every call,
//! and the general write is a transaction of six or seven round trips (begin,
//! the fence, reading the stored hashes, the parts, commit). When the stored
//! epoch still equals the one this store last wrote at, nothing else can have
//! written since: a newer owner raises the epoch (its claim, its takeover or
//! its first save), and an older one is refused once this epoch is stored. So
//! the parts are what this store remembers, and the fence, the changed parts,
//! their chunks and what was dropped go in one statement whose every change
//! hangs on the fence (`epoch = $2`). When the fence does not hold, nothing is
//! written and the caller takes the general path, which re-reads the hashes
//! and tells a stale epoch from a missing session.
//!
//! A session's first save takes the same one statement when the worker says
//! it created the session: its row was inserted at epoch 0, which no owner
//! holds, so while the stored epoch is 0 nothing is stored but the row, and
//! the fence is `epoch = 0` (the statement then stores the owner's epoch).
//!
//! What is remembered is taken out before each save and put back only after a
//! write is known to have committed, so a failed or uncertain write makes the
//! next one take the general path.
//!
//! The same memory lets a save that repeats the last committed one exactly (same
//! epoch, parts, URL and title) within [`RESEND_AFTER`] of it go unsent: a call
//! that only read the page (a screenshot, an inspect) has nothing to save, and the
//! row's time of use and expiry may lag by that much (decision 0008).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use sqlx::{AssertSqlSafe, Row};

use crate::sql::{CHUNK_BYTES, SqlStore, to_i64};
use crate::{CheckpointWrite, Part, StoreError, now_millis};

/// Sessions whose last write one store remembers at most; past it the memory
/// is emptied (each of those sessions' next checkpoint reads the hashes).
const MAX_REMEMBERED: usize = 50_000;
/// Chunk rows the one statement carries at most (4 MiB); a larger change
/// (a font being registered) takes the general path.
const MAX_CHUNKS: usize = 16;
/// How long after a committed write the same checkpoint again is not sent.
/// Long enough for an agent's run of reads; short beside a session's TTL (days),
/// and the `updated_at` that lists sessions most recently used first.
pub(crate) const RESEND_AFTER: Duration = Duration::from_secs(10);

/// What this store last committed for one session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Written {
    epoch: u64,
    /// Each part's hash and number of chunks.
    parts: HashMap<String, (String, usize)>,
    /// The page the session row was given.
    url: String,
    title: String,
    /// When the write committed.
    at: Instant,
}

impl Written {
    /// Whether a save of `parts`, `url` and `title` at `epoch` would write exactly
    /// what was committed, less than [`RESEND_AFTER`] before `now`. Such a save
    /// changes nothing stored but the row's times, so it need not be sent: the
    /// epoch is this store's own, so no other owner can have written since
    /// (module docs), and a read racing a takeover answers as it would have a
    /// moment before the takeover.
    pub(crate) fn repeated_by(
        &self,
        epoch: u64,
        parts: &[Part<'_>],
        url: &str,
        title: &str,
        now: Instant,
    ) -> bool {
        self.epoch == epoch
            && self.url == url
            && self.title == title
            && self.parts.len() == parts.len()
            && parts.iter().all(|p| {
                self.parts
                    .get(&p.name)
                    .is_some_and(|(hash, _)| *hash == p.hash)
            })
            && now.saturating_duration_since(self.at) < RESEND_AFTER
    }

    /// What a save that was not sent cost: nothing written.
    pub(crate) fn unsent(&self) -> CheckpointWrite {
        CheckpointWrite {
            parts_unchanged: u32::try_from(self.parts.len()).unwrap_or(u32::MAX),
            unsent: true,
            ..CheckpointWrite::default()
        }
    }
}

/// The last committed write of each session this store checkpointed.
#[derive(Default)]
pub(crate) struct LastWrites(Mutex<HashMap<String, Written>>);

impl LastWrites {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, Written>> {
        // Holds plain values: a panic elsewhere cannot leave it half-written.
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Takes out what is remembered of `id`'s last write.
    pub(crate) fn take(&self, id: &str) -> Option<Written> {
        self.lock().remove(id)
    }

    /// Remembers a write of `parts`, `url` and `title` at `epoch` that committed
    /// just now.
    pub(crate) fn record(&self, id: &str, epoch: u64, parts: &[Part<'_>], url: &str, title: &str) {
        self.put(
            id,
            Written {
                epoch,
                parts: parts
                    .iter()
                    .map(|p| (p.name.clone(), (p.hash.clone(), chunks(p.data.len()))))
                    .collect(),
                url: url.to_owned(),
                title: title.to_owned(),
                at: Instant::now(),
            },
        );
    }

    /// Remembers `id` as a session created a moment ago: its row at epoch 0,
    /// which no owner holds (every claim's epoch is at least 1, and every
    /// save and takeover stores its owner's), so while the stored epoch is 0
    /// nothing has been saved and no part is stored.
    pub(crate) fn created(&self, id: &str) {
        self.put(
            id,
            Written {
                epoch: 0,
                parts: HashMap::new(),
                url: String::new(),
                title: String::new(),
                at: Instant::now(),
            },
        );
    }

    /// Puts back what [`Self::take`] took out, as it was.
    pub(crate) fn put(&self, id: &str, written: Written) {
        let mut map = self.lock();
        if map.len() >= MAX_REMEMBERED && !map.contains_key(id) {
            map.clear();
        }
        map.insert(id.to_owned(), written);
    }
}

fn chunks(len: usize) -> usize {
    len.div_ceil(CHUNK_BYTES)
}

/// One bound value of the statement, in parameter order.
enum Arg<'a> {
    Text(&'a str),
    Int(i64),
    Bytes(&'a [u8]),
}

/// The statement's text and its values.
#[derive(Default)]
struct Statement<'a> {
    sql: String,
    args: Vec<Arg<'a>>,
}

impl<'a> Statement<'a> {
    /// Appends `arg` and its `$n` placeholder, cast to `cast`.
    fn param(&mut self, arg: Arg<'a>, cast: &str) {
        self.args.push(arg);
        let _ = write!(self.sql, "${}::{cast}", self.args.len());
    }
}

impl SqlStore {
    /// Writes `parts` at `epoch` in one statement if the session's stored
    /// epoch is still `known.epoch` (`epoch` itself, or 0 for a session this
    /// store was told is new). `None` when the fence did not hold (nothing
    /// was written) or the change is too large for one statement.
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn save_over_last_write(
        &self,
        id: &str,
        epoch: u64,
        known: &Written,
        parts: &[Part<'_>],
        url: &str,
        title: &str,
        ttl_ms: i64,
    ) -> Result<Option<CheckpointWrite>, StoreError> {
        // Epoch 0 is a new session's unsaved row (`LastWrites::created`). A
        // write remembered at an older epoch is not tried: the session was
        // claimed again since, and a takeover has most likely moved the
        // stored epoch, so the statement would only be refused.
        if known.epoch != epoch && known.epoch != 0 {
            return Ok(None);
        }
        let mut cost = CheckpointWrite {
            one_statement: true,
            ..CheckpointWrite::default()
        };
        let mut changed = Vec::new();
        // Parts whose new bytes need fewer chunks than the stored ones.
        let mut shrunk = Vec::new();
        for part in parts {
            match known.parts.get(&part.name) {
                Some((hash, _)) if *hash == part.hash => cost.parts_unchanged += 1,
                stored => {
                    let now = chunks(part.data.len());
                    if let Some((_, before)) = stored
                        && *before > now
                    {
                        shrunk.push((part.name.as_str(), now));
                    }
                    changed.push(part);
                    cost.parts_written += 1;
                    cost.bytes_written += u64::try_from(part.data.len()).unwrap_or(u64::MAX);
                }
            }
        }
        let dropped: Vec<&str> = known
            .parts
            .keys()
            .filter(|name| !parts.iter().any(|p| p.name == **name))
            .map(String::as_str)
            .collect();
        let chunk_rows: usize = changed.iter().map(|p| chunks(p.data.len())).sum();
        if chunk_rows > MAX_CHUNKS {
            return Ok(None);
        }

        let now = now_millis();
        let mut s = Statement::default();
        s.sql
            .push_str("WITH fence AS (UPDATE sessions SET epoch = ");
        s.param(Arg::Int(to_i64(epoch)), "bigint");
        s.sql.push_str(", url = ");
        s.param(Arg::Text(url), "text");
        s.sql.push_str(", title = ");
        s.param(Arg::Text(title), "text");
        s.sql.push_str(", updated_at = ");
        s.param(Arg::Int(now), "bigint");
        s.sql.push_str(", expires_at = ");
        s.param(Arg::Int(now.saturating_add(ttl_ms)), "bigint");
        s.sql.push_str(" WHERE id = ");
        s.param(Arg::Text(id), "text");
        s.sql.push_str(" AND epoch = ");
        s.param(Arg::Int(to_i64(known.epoch)), "bigint");
        s.sql.push_str(" RETURNING id)");
        if !dropped.is_empty() {
            // Their chunks go with them (ON DELETE CASCADE).
            s.sql.push_str(
                ", dropped AS (DELETE FROM session_parts p USING fence \
                 WHERE p.session_id = fence.id AND p.part IN (",
            );
            for (i, name) in dropped.iter().enumerate() {
                if i > 0 {
                    s.sql.push_str(", ");
                }
                s.param(Arg::Text(name), "text");
            }
            s.sql.push_str("))");
        }
        if !shrunk.is_empty() {
            s.sql.push_str(
                ", surplus AS (DELETE FROM session_part_chunks c USING fence \
                 WHERE c.session_id = fence.id AND (",
            );
            for (i, (name, keep)) in shrunk.iter().enumerate() {
                if i > 0 {
                    s.sql.push_str(" OR ");
                }
                s.sql.push_str("(c.part = ");
                s.param(Arg::Text(name), "text");
                s.sql.push_str(" AND c.chunk >= ");
                s.param(Arg::Int(i64::try_from(*keep).unwrap_or(i64::MAX)), "bigint");
                s.sql.push(')');
            }
            s.sql.push_str("))");
        }
        if !changed.is_empty() {
            s.sql.push_str(
                ", parts AS (INSERT INTO session_parts (session_id, part, hash, size, epoch) \
                 SELECT fence.id, v.part, v.hash, v.size, v.epoch FROM fence, (VALUES ",
            );
            for (i, part) in changed.iter().enumerate() {
                s.sql.push_str(if i > 0 { ", (" } else { "(" });
                s.param(Arg::Text(&part.name), "text");
                s.sql.push_str(", ");
                s.param(Arg::Text(&part.hash), "text");
                s.sql.push_str(", ");
                let size = i64::try_from(part.data.len()).unwrap_or(i64::MAX);
                s.param(Arg::Int(size), "bigint");
                s.sql.push_str(", ");
                s.param(Arg::Int(to_i64(epoch)), "bigint");
                s.sql.push(')');
            }
            s.sql.push_str(
                ") AS v (part, hash, size, epoch) ON CONFLICT (session_id, part) DO UPDATE \
                 SET hash = excluded.hash, size = excluded.size, epoch = excluded.epoch)",
            );
        }
        if chunk_rows > 0 {
            s.sql.push_str(
                ", chunks AS (INSERT INTO session_part_chunks (session_id, part, chunk, data) \
                 SELECT fence.id, v.part, v.chunk, v.data FROM fence, (VALUES ",
            );
            let rows = changed.iter().flat_map(|part| {
                part.data
                    .chunks(CHUNK_BYTES)
                    .enumerate()
                    .map(move |(i, data)| (part.name.as_str(), i, data))
            });
            for (row, (name, index, data)) in rows.enumerate() {
                s.sql.push_str(if row > 0 { ", (" } else { "(" });
                s.param(Arg::Text(name), "text");
                s.sql.push_str(", ");
                s.param(Arg::Int(i64::try_from(index).unwrap_or(i64::MAX)), "bigint");
                s.sql.push_str(", ");
                s.param(Arg::Bytes(data), "bytea");
                s.sql.push(')');
            }
            s.sql.push_str(
                ") AS v (part, chunk, data) ON CONFLICT (session_id, part, chunk) DO UPDATE \
                 SET data = excluded.data)",
            );
        }
        s.sql.push_str(" SELECT COUNT(*) AS fenced FROM fence");

        // The text is this function's constants and parameter numbers only.
        let mut query = sqlx::query(AssertSqlSafe(s.sql));
        for arg in s.args {
            query = match arg {
                Arg::Text(t) => query.bind(t),
                Arg::Int(i) => query.bind(i),
                Arg::Bytes(b) => query.bind(b.to_vec()),
            };
        }
        let fenced: i64 = query.fetch_one(&self.pool).await?.try_get("fenced")?;
        Ok((fenced == 1).then_some(cost))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn remembered(parts: &[Part<'_>]) -> Written {
        let memory = LastWrites::default();
        memory.record("s", 3, parts, "https://a.example/", "A");
        memory.take("s").expect("just recorded")
    }

    #[test]
    fn only_the_same_parts_page_and_epoch_within_seconds_repeat_a_write() {
        let parts = [Part::new("page", b"p"), Part::new("cookies", b"c")];
        let last = remembered(&parts);
        let now = Instant::now();
        let (url, title) = ("https://a.example/", "A");
        assert!(last.repeated_by(3, &parts, url, title, now));
        let reordered = [Part::new("cookies", b"c"), Part::new("page", b"p")];
        assert!(last.repeated_by(3, &reordered, url, title, now));

        assert!(
            !last.repeated_by(4, &parts, url, title, now),
            "another epoch"
        );
        assert!(!last.repeated_by(3, &parts, "https://b.example/", title, now));
        assert!(!last.repeated_by(3, &parts, url, "B", now));
        let changed = [Part::new("page", b"q"), Part::new("cookies", b"c")];
        assert!(!last.repeated_by(3, &changed, url, title, now));
        let dropped = [Part::new("page", b"p")];
        assert!(!last.repeated_by(3, &dropped, url, title, now));
        let added = [
            Part::new("page", b"p"),
            Part::new("cookies", b"c"),
            Part::new("html", b"h"),
        ];
        assert!(!last.repeated_by(3, &added, url, title, now));
        let later = now + RESEND_AFTER;
        assert!(!last.repeated_by(3, &parts, url, title, later), "too old");

        let cost = last.unsent();
        assert!(cost.unsent);
        assert_eq!((cost.parts_written, cost.parts_unchanged), (0, 2));
    }
}
