//! fleet-store owns everything servo-fleet keeps outside worker memory: tenants,
//! API keys, sessions and their snapshots in SQL (Postgres in a cluster, a SQLite
//! file in one-process mode), and the session → worker routing map with the worker
//! registry (Redis in a cluster, in-process in one-process mode).
//!
//! Callers see two traits, [`SessionStore`] and [`Routing`]; which backend stands
//! behind them is chosen once, from a URL, by [`open_store`] and [`open_routing`].

mod config;
mod error;
mod keys;
mod memory;
mod redis_routing;
mod routing;
mod sql;

pub use config::StoreConfig;
pub use error::StoreError;
pub use keys::{generate_key, hash_key};
pub use memory::MemoryRouting;
pub use redis_routing::RedisRouting;
pub use routing::{Route, Routing, WorkerInfo};
pub use sql::{
    CheckpointWrite, NewKey, Part, SessionRow, SessionStore, SqlStore, StoredCheckpoint, Tenant,
    content_hash, now_millis,
};

use std::sync::Arc;

/// Opens the SQL store named by `url` (`postgres://…` or `sqlite://…`) and applies
/// its migrations.
pub async fn open_store(url: &str) -> Result<Arc<dyn SessionStore>, StoreError> {
    let store = SqlStore::connect(url).await?;
    store.migrate().await?;
    Ok(Arc::new(store))
}

/// Opens the routing backend: `redis://…` for a fleet, `memory:` for one process.
pub async fn open_routing(url: &str) -> Result<Arc<dyn Routing>, StoreError> {
    if url == "memory:" || url.is_empty() {
        Ok(Arc::new(MemoryRouting::default()))
    } else {
        Ok(Arc::new(RedisRouting::connect(url).await?))
    }
}
