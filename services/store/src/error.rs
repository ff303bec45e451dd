//! The store's one error type; callers map it to their own.

/// What can go wrong in a store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A snapshot write came from an epoch older than the one already stored: the
    /// writer lost its claim on the session.
    #[error("stale epoch {given}: the session is owned at epoch {current}")]
    StaleEpoch {
        /// The writer's epoch.
        given: u64,
        /// The epoch already stored.
        current: u64,
    },
    /// The row does not exist.
    #[error("not found")]
    NotFound,
    /// The store URL is not one this build understands.
    #[error(
        "unsupported store URL {0:?}: use postgres://, sqlite:// (stores) or redis://, memory: (routing)"
    )]
    UnsupportedUrl(String),
    /// SQL failed.
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
    /// A migration failed.
    #[error("migration: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// Redis failed.
    #[error("redis: {0}")]
    Redis(#[from] redis::RedisError),
    /// Stored bytes could not be decoded.
    #[error("corrupt record: {0}")]
    Corrupt(String),
}
