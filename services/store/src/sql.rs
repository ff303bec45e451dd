//! The SQL store: tenants, API keys, sessions and their checkpoints in named,
//! hashed, chunked parts, behind the contract in `session_store.rs`. One set of
//! queries serves Postgres and SQLite through sqlx's `Any` driver; the schemas differ
//! only in the blob type (`migrations/` and `migrations/sqlite/`).

use std::sync::Arc;
use std::time::Instant;

use async_trait::async_trait;
use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::{AnyConnection, AnyPool, Connection as _, Row};

use crate::last_write::LastWrites;
use crate::part_writes;
use crate::{
    CheckpointWrite, NewKey, Part, SessionRow, SessionStatus, SessionStore, StoreError,
    StoredCheckpoint, Tenant, TenantLimits, now_millis,
};

/// Part bytes are stored in rows of at most this size, so one huge part never
/// needs one huge value in the database.
pub(crate) const CHUNK_BYTES: usize = 256 * 1024;

/// A pooled connection idle at least this long is pinged before it is used.
const PING_IF_IDLE: std::time::Duration = std::time::Duration::from_secs(1);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Backend {
    Postgres,
    Sqlite,
}

/// [`SessionStore`] over Postgres or SQLite.
#[derive(Clone)]
pub struct SqlStore {
    pub(crate) pool: AnyPool,
    pub(crate) backend: Backend,
    /// What this store last wrote for each session: the next checkpoint at the
    /// same epoch goes in one statement (Postgres), or not at all when it
    /// repeats the last one within seconds.
    last_writes: Arc<LastWrites>,
}

fn to_u32(v: i64) -> u32 {
    u32::try_from(v).unwrap_or(0)
}

pub(crate) fn to_u64(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

pub(crate) fn to_i64(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

impl SqlStore {
    /// Connects to `postgres://…` or `sqlite://…` (the SQLite file is created).
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        install_default_drivers();
        let (backend, url) = if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            (Backend::Postgres, url.to_owned())
        } else if url.starts_with("sqlite:") {
            let url = if url.contains('?') {
                url.to_owned()
            } else {
                format!("{url}?mode=rwc")
            };
            (Backend::Sqlite, url)
        } else {
            return Err(StoreError::UnsupportedUrl(url.to_owned()));
        };
        // SQLite allows one writer; a single connection avoids SQLITE_BUSY between
        // our own connections.
        let max = if backend == Backend::Sqlite { 1 } else { 16 };
        let pool = AnyPoolOptions::new()
            .max_connections(max)
            // Bounds how long an outage goes unnoticed: the pool retries a
            // refused connection until this passes (then the outage guard
            // answers every call at once).
            .acquire_timeout(crate::guard::SQL_ACQUIRE_TIMEOUT)
            // sqlx pings every connection it hands out, one more round trip
            // per query or transaction; a connection in steady use has just
            // proven itself, so only one idle for a while is pinged (a
            // database restarted since is found here, not by the caller).
            .test_before_acquire(false)
            .before_acquire(|conn, meta| {
                Box::pin(async move {
                    if meta.idle_for >= PING_IF_IDLE {
                        conn.ping().await?;
                    }
                    Ok(true)
                })
            })
            .connect(&url)
            .await?;
        Ok(Self {
            pool,
            backend,
            last_writes: Arc::default(),
        })
    }

    /// Applies pending migrations (forward only).
    pub async fn migrate(&self) -> Result<(), StoreError> {
        match self.backend {
            Backend::Postgres => sqlx::migrate!("../../migrations").run(&self.pool).await?,
            Backend::Sqlite => {
                sqlx::migrate!("../../migrations/sqlite")
                    .run(&self.pool)
                    .await?
            }
        }
        Ok(())
    }

    fn row_to_session(row: &sqlx::any::AnyRow) -> Result<SessionRow, StoreError> {
        Ok(SessionRow {
            id: row.try_get("id")?,
            tenant_id: row.try_get("tenant_id")?,
            status: row.try_get::<String, _>("status")?.parse()?,
            width: to_u32(row.try_get("width")?),
            height: to_u32(row.try_get("height")?),
            epoch: to_u64(row.try_get("epoch")?),
            url: row.try_get("url")?,
            title: row.try_get("title")?,
            created_at: row.try_get("created_at")?,
            updated_at: row.try_get("updated_at")?,
            expires_at: row.try_get("expires_at")?,
            failure: row.try_get("failure")?,
        })
    }
}

#[async_trait]
impl SessionStore for SqlStore {
    async fn create_key(&self, tenant: &str) -> Result<NewKey, StoreError> {
        self.create_named_key(tenant, "", None).await
    }

    async fn tenant_for_key(&self, key: &str) -> Result<Option<Tenant>, StoreError> {
        self.tenant_for_live_key(key).await
    }

    async fn key_count(&self) -> Result<u64, StoreError> {
        let n: i64 = sqlx::query("SELECT COUNT(*) AS n FROM api_keys WHERE revoked_at IS NULL")
            .fetch_one(&self.pool)
            .await?
            .try_get("n")?;
        Ok(to_u64(n))
    }

    async fn ensure_tenant(&self, name: &str) -> Result<Tenant, StoreError> {
        sqlx::query("INSERT INTO tenants (id, name, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING")
            .bind(uuid::Uuid::new_v4().to_string())
            .bind(name)
            .bind(now_millis())
            .execute(&self.pool)
            .await?;
        let row = sqlx::query("SELECT id, name FROM tenants WHERE name = $1")
            .bind(name)
            .fetch_one(&self.pool)
            .await?;
        Ok(Tenant {
            id: row.try_get("id")?,
            name: row.try_get("name")?,
        })
    }

    async fn create_session(
        &self,
        id: &str,
        tenant_id: &str,
        width: u32,
        height: u32,
        ttl_ms: i64,
    ) -> Result<SessionRow, StoreError> {
        let now = now_millis();
        sqlx::query(
            "INSERT INTO sessions (id, tenant_id, status, width, height, epoch, url, title, created_at, updated_at, expires_at) \
             VALUES ($1, $2, $7, $3, $4, 0, '', '', $5, $5, $6)",
        )
        .bind(id)
        .bind(tenant_id)
        .bind(i64::from(width))
        .bind(i64::from(height))
        .bind(now)
        .bind(now.saturating_add(ttl_ms))
        .bind(SessionStatus::Active.as_str())
        .execute(&self.pool)
        .await?;
        // The row is exactly what was inserted: reading it back would cost
        // every create another round trip.
        Ok(SessionRow {
            id: id.to_owned(),
            tenant_id: tenant_id.to_owned(),
            status: SessionStatus::Active,
            width,
            height,
            epoch: 0,
            url: String::new(),
            title: String::new(),
            created_at: now,
            updated_at: now,
            expires_at: now.saturating_add(ttl_ms),
            failure: String::new(),
        })
    }

    async fn session(&self, id: &str) -> Result<Option<SessionRow>, StoreError> {
        let row = sqlx::query(
            "SELECT id, tenant_id, status, width, height, epoch, url, title, created_at, updated_at, expires_at, failure \
             FROM sessions WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(Self::row_to_session).transpose()
    }

    async fn save_checkpoint(
        &self,
        id: &str,
        epoch: u64,
        parts: &[Part<'_>],
        url: &str,
        title: &str,
        ttl_ms: i64,
    ) -> Result<CheckpointWrite, StoreError> {
        // Taken out now: a write that fails or may not have committed leaves
        // the next one to re-read what is stored.
        if let Some(last) = self.last_writes.take(id) {
            if last.repeated_by(epoch, parts, url, title, Instant::now()) {
                let cost = last.unsent();
                self.last_writes.put(id, last);
                return Ok(cost);
            }
            if self.backend == Backend::Postgres
                && let Some(cost) = self
                    .save_over_last_write(id, epoch, &last, parts, url, title, ttl_ms)
                    .await?
            {
                self.last_writes.record(id, epoch, parts, url, title);
                return Ok(cost);
            }
        }
        let now = now_millis();
        let mut tx = self.pool.begin().await?;
        // The conditional update is the fence: it takes the row lock in Postgres, so
        // concurrent writers serialize, and refuses an epoch older than the stored one.
        let updated = sqlx::query(
            "UPDATE sessions SET epoch = $2, url = $3, title = $4, updated_at = $5, expires_at = $6 \
             WHERE id = $1 AND epoch <= $2",
        )
        .bind(id)
        .bind(to_i64(epoch))
        .bind(url)
        .bind(title)
        .bind(now)
        .bind(now.saturating_add(ttl_ms))
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if updated == 0 {
            let current = sqlx::query("SELECT epoch FROM sessions WHERE id = $1")
                .bind(id)
                .fetch_optional(&mut *tx)
                .await?;
            return Err(match current {
                Some(row) => StoreError::StaleEpoch {
                    given: epoch,
                    current: to_u64(row.try_get("epoch")?),
                },
                None => StoreError::NotFound,
            });
        }
        let cost = part_writes::write_changed(&mut tx, id, epoch, parts).await?;
        tx.commit().await?;
        self.last_writes.record(id, epoch, parts, url, title);
        Ok(cost)
    }

    async fn load_checkpoint(&self, id: &str) -> Result<Option<StoredCheckpoint>, StoreError> {
        // One transaction: a concurrent save must not be seen half written.
        let mut tx = self.pool.begin().await?;
        let Some(parts) = read_parts(&mut tx, id).await? else {
            return Ok(None);
        };
        let epoch = sqlx::query("SELECT epoch FROM sessions WHERE id = $1")
            .bind(id)
            .fetch_one(&mut *tx)
            .await?
            .try_get("epoch")?;
        tx.commit().await?;
        Ok(Some(StoredCheckpoint {
            epoch: to_u64(epoch),
            parts,
        }))
    }

    async fn take_over(
        &self,
        id: &str,
        epoch: u64,
    ) -> Result<Option<StoredCheckpoint>, StoreError> {
        self.take_over_checkpoint(id, epoch).await
    }

    async fn list_sessions(
        &self,
        tenant_id: &str,
        limit: u32,
    ) -> Result<Vec<SessionRow>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, tenant_id, status, width, height, epoch, url, title, created_at, updated_at, expires_at, failure \
             FROM sessions WHERE tenant_id = $1 AND expires_at > $2 ORDER BY updated_at DESC LIMIT $3",
        )
        .bind(tenant_id)
        .bind(now_millis())
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(Self::row_to_session).collect()
    }

    async fn delete_session(&self, id: &str, tenant_id: &str) -> Result<bool, StoreError> {
        // Snapshots go with the row (ON DELETE CASCADE).
        let n = sqlx::query("DELETE FROM sessions WHERE id = $1 AND tenant_id = $2")
            .bind(id)
            .bind(tenant_id)
            .execute(&self.pool)
            .await?
            .rows_affected();
        Ok(n > 0)
    }

    async fn delete_expired(&self) -> Result<u64, StoreError> {
        Ok(sqlx::query("DELETE FROM sessions WHERE expires_at <= $1")
            .bind(now_millis())
            .execute(&self.pool)
            .await?
            .rows_affected())
    }

    async fn mark_failed(&self, id: &str, reason: &str) -> Result<(), StoreError> {
        sqlx::query("UPDATE sessions SET status = $3, failure = $2 WHERE id = $1")
            .bind(id)
            .bind(reason)
            .bind(SessionStatus::Failed.as_str())
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    async fn tenant_limits(&self, tenant_id: &str) -> Result<TenantLimits, StoreError> {
        self.limits_of(tenant_id).await
    }

    async fn open_sessions(&self, tenant_id: &str) -> Result<u64, StoreError> {
        self.open_session_count(tenant_id).await
    }

    fn created(&self, id: &str) {
        self.last_writes.created(id);
    }

    async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) async fn sqlite() -> SqlStore {
        let dir = std::env::temp_dir().join(format!("fleet-store-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let store = SqlStore::connect(&format!("sqlite://{}", dir.join("t.db").display()))
            .await
            .unwrap();
        store.migrate().await.unwrap();
        store
    }

    #[tokio::test]
    async fn a_key_finds_its_tenant_and_a_wrong_key_finds_none() {
        let s = sqlite().await;
        let k = s.create_key("acme").await.unwrap();
        assert_eq!(
            s.tenant_for_key(&k.key).await.unwrap(),
            Some(k.tenant.clone())
        );
        assert_eq!(s.tenant_for_key("sfk_nope").await.unwrap(), None);
        assert_eq!(s.key_count().await.unwrap(), 1);
        // A second key for the same tenant name lands on the same tenant.
        assert_eq!(s.create_key("acme").await.unwrap().tenant, k.tenant);
    }

    #[tokio::test]
    async fn listing_shows_only_the_tenants_unexpired_sessions_and_expiry_deletes_them() {
        let s = sqlite().await;
        let a = s.ensure_tenant("a").await.unwrap();
        let b = s.ensure_tenant("b").await.unwrap();
        let created = s
            .create_session("a1", &a.id, 1024, 600, 60_000)
            .await
            .unwrap();
        assert_eq!(
            s.session("a1").await.unwrap(),
            Some(created),
            "create answered a row other than the one it stored"
        );
        s.create_session("a2", &a.id, 800, 600, -1).await.unwrap();
        s.create_session("b1", &b.id, 800, 600, 60_000)
            .await
            .unwrap();
        s.save_checkpoint("a2", 1, &refs(&parts(&[("p", b"x")])), "u", "t", -1)
            .await
            .unwrap();
        let listed: Vec<String> = s
            .list_sessions(&a.id, 10)
            .await
            .unwrap()
            .into_iter()
            .map(|r| r.id)
            .collect();
        assert_eq!(listed, ["a1"]);
        assert_eq!(s.delete_expired().await.unwrap(), 1);
        assert_eq!(s.session("a2").await.unwrap(), None);
        assert_eq!(
            s.load_checkpoint("a2").await.unwrap(),
            None,
            "the checkpoint went with the session"
        );
        assert!(
            !s.delete_session("b1", &a.id).await.unwrap(),
            "a tenant deleted another's session"
        );
        assert!(s.delete_session("b1", &b.id).await.unwrap());
        assert_eq!(s.session("b1").await.unwrap(), None);
    }

    fn parts(list: &[(&str, &[u8])]) -> Vec<(String, Vec<u8>)> {
        list.iter()
            .map(|(name, data)| ((*name).to_owned(), data.to_vec()))
            .collect()
    }

    pub(crate) fn refs(parts: &[(String, Vec<u8>)]) -> Vec<Part<'_>> {
        parts
            .iter()
            .map(|(name, data)| Part::new(name.clone(), data))
            .collect()
    }

    #[tokio::test]
    async fn only_changed_parts_are_rewritten_and_dropped_parts_are_deleted() {
        let s = sqlite().await;
        let t = s.ensure_tenant("acme").await.unwrap();
        s.create_session("s1", &t.id, 800, 600, 1000).await.unwrap();
        let font = vec![9u8; CHUNK_BYTES + 1];
        let first = parts(&[("font", &font), ("page", b"a"), ("storage", b"s")]);
        let cost = s
            .save_checkpoint("s1", 1, &refs(&first), "u", "t", 1000)
            .await
            .unwrap();
        assert_eq!((cost.parts_written, cost.parts_unchanged), (3, 0));
        assert_eq!(cost.bytes_written, u64::try_from(font.len()).unwrap() + 2);

        let second = parts(&[("font", &font), ("page", b"b")]);
        let cost = s
            .save_checkpoint("s1", 2, &refs(&second), "u", "t2", 1000)
            .await
            .unwrap();
        assert_eq!(
            cost,
            CheckpointWrite {
                parts_written: 1,
                parts_unchanged: 1,
                bytes_written: 1,
                unsent: false,
                one_statement: false,
            },
            "the font was written again"
        );
        let stored = s.load_checkpoint("s1").await.unwrap().unwrap();
        assert_eq!(stored.epoch, 2);
        assert_eq!(stored.parts, second, "the dropped part is still stored");
        assert_eq!(s.session("s1").await.unwrap().unwrap().title, "t2");
    }

    #[tokio::test]
    async fn a_checkpoint_from_a_stale_epoch_is_refused_and_the_stored_one_kept() {
        let s = sqlite().await;
        let t = s.ensure_tenant("acme").await.unwrap();
        s.create_session("s1", &t.id, 800, 600, 1000).await.unwrap();
        let big = vec![7u8; CHUNK_BYTES * 2 + 10];
        let kept = parts(&[("page", &big)]);
        s.save_checkpoint("s1", 2, &refs(&kept), "https://a.example/", "A", 1000)
            .await
            .unwrap();
        let err = s
            .save_checkpoint(
                "s1",
                1,
                &refs(&parts(&[("page", b"old")])),
                "https://b.example/",
                "B",
                1000,
            )
            .await;
        assert!(
            matches!(
                err,
                Err(StoreError::StaleEpoch {
                    given: 1,
                    current: 2
                })
            ),
            "{err:?}"
        );
        let stored = s.load_checkpoint("s1").await.unwrap().unwrap();
        assert_eq!((stored.epoch, stored.parts), (2, kept));
        let row = s.session("s1").await.unwrap().unwrap();
        assert_eq!(
            (row.url.as_str(), row.title.as_str(), row.epoch),
            ("https://a.example/", "A", 2)
        );
    }

    #[tokio::test]
    async fn a_part_of_many_chunks_round_trips_byte_for_byte() {
        let s = sqlite().await;
        let t = s.ensure_tenant("acme").await.unwrap();
        s.create_session("s1", &t.id, 800, 600, 1000).await.unwrap();
        let big: Vec<u8> = (0..CHUNK_BYTES * 9 + 7).map(|i| (i % 251) as u8).collect();
        let written = parts(&[("font", &big), ("page", b"p")]);
        s.save_checkpoint("s1", 1, &refs(&written), "u", "t", 1000)
            .await
            .unwrap();
        assert_eq!(
            s.load_checkpoint("s1").await.unwrap().unwrap().parts,
            written
        );
    }
}
