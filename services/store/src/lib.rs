//! fleet-store owns everything servo-fleet keeps outside worker memory: tenants,
//! API keys, sessions and their snapshots in SQL (Postgres in a cluster, a SQLite
//! file in one-process mode), and the session → worker routing map with the worker
//! registry (Redis in a cluster, in-process in one-process mode).
//!
//! Callers see two traits, [`SessionStore`] and [`Routing`]; which backend stands
//! behind them is chosen once, from a URL, by [`open_store`] and [`open_routing`].

mod config;
mod downloads;
mod error;
mod events;
mod guard;
mod key_admin;
mod keys;
mod last_write;
mod limiter;
mod memory;
mod part_writes;
mod recording_sql;
mod recordings;
mod redis_limiter;
mod redis_routing;
mod routing;
mod session_status;
mod session_store;
mod sql;
mod takeover;
mod tenant_limits;

pub use config::StoreConfig;
pub use downloads::{DownloadRow, DownloadStore, GuardedDownloads};
pub use error::StoreError;
pub use events::{EventStream, Events, MemoryEvents};
pub use guard::{
    Breaker, GuardedLimiter, GuardedRouting, GuardedStore, PROBE_INTERVAL, Probe, REDIS_TIMEOUT,
};
pub use key_admin::{KeyInfo, KeyStatus};
pub use keys::{KEY_MARKER, KEY_PREFIX_CHARS, generate_key, hash_key, key_prefix};
pub use limiter::{Admission, Call, Limiter, MemoryLimiter};
pub use memory::MemoryRouting;
pub use recordings::{Encoded, GuardedRecordings, NewRecording, RecordingRow, RecordingStore};
pub use redis_routing::RedisRouting;
pub use routing::{Route, Routing, WorkerInfo};
pub use session_status::SessionStatus;
pub use session_store::{
    CheckpointWrite, NewKey, Part, SessionRow, SessionStore, StoredCheckpoint, Tenant,
    content_hash, now_millis,
};
pub use sql::SqlStore;
pub use tenant_limits::TenantLimits;

use std::sync::Arc;

/// Opens the SQL store named by `url` (`postgres://…` or `sqlite://…`), applies
/// its migrations, and guards it against outages ([`GuardedStore`]).
pub async fn open_store(url: &str) -> Result<Arc<dyn SessionStore>, StoreError> {
    Ok(open_sql(url).await?.sessions)
}

/// The two contracts one SQL database serves, behind one outage breaker.
#[derive(Clone)]
pub struct SqlStores {
    /// Tenants, keys, sessions and checkpoints.
    pub sessions: Arc<dyn SessionStore>,
    /// Screen recordings' rows.
    pub recordings: Arc<dyn RecordingStore>,
    /// Downloaded files' rows.
    pub downloads: Arc<dyn DownloadStore>,
}

/// Opens the SQL store named by `url` as [`open_store`] does, with the
/// recordings' and downloads' contracts over the same pool and breaker.
pub async fn open_sql(url: &str) -> Result<SqlStores, StoreError> {
    let store = Arc::new(SqlStore::connect(url).await?);
    store.migrate().await?;
    let backend = if url.starts_with("sqlite:") {
        "sqlite"
    } else {
        "postgres"
    };
    let sessions = GuardedStore::new(store.clone(), backend);
    let recordings = GuardedRecordings::new(store.clone(), sessions.breaker());
    let downloads = GuardedDownloads::new(store, sessions.breaker());
    Ok(SqlStores {
        sessions: Arc::new(sessions),
        recordings: Arc::new(recordings),
        downloads: Arc::new(downloads),
    })
}

/// Opens the routing backend: `redis://…` for a fleet (guarded against outages,
/// its keys under `key_prefix`), `memory:` for one process.
pub async fn open_routing(url: &str, key_prefix: &str) -> Result<Arc<dyn Routing>, StoreError> {
    if url == "memory:" || url.is_empty() {
        Ok(Arc::new(MemoryRouting::default()))
    } else {
        let redis = RedisRouting::connect(url, key_prefix).await?;
        Ok(Arc::new(GuardedRouting::new(Arc::new(redis), "redis")))
    }
}

/// Opens the session event bus: Redis pub/sub for a fleet (channels under
/// `key_prefix`), in-process for one process (the caller shares that one).
pub async fn open_events(url: &str, key_prefix: &str) -> Result<Arc<dyn Events>, StoreError> {
    if url == "memory:" || url.is_empty() {
        Ok(Arc::new(MemoryEvents::default()))
    } else {
        Ok(Arc::new(RedisRouting::connect(url, key_prefix).await?))
    }
}

/// Opens the counters of tenant limits: in Redis for a fleet (guarded against
/// outages, under `key_prefix`), in memory for one process.
pub async fn open_limiter(url: &str, key_prefix: &str) -> Result<Arc<dyn Limiter>, StoreError> {
    if url == "memory:" || url.is_empty() {
        Ok(Arc::new(MemoryLimiter::default()))
    } else {
        let redis = Arc::new(RedisRouting::connect(url, key_prefix).await?);
        Ok(Arc::new(GuardedLimiter::new(redis.clone(), redis, "redis")))
    }
}
