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
    /// The write would break a rule the store keeps (one recording in
    /// progress per session); the message says which.
    #[error("{0}")]
    Conflict(&'static str),
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
    /// A store setting is not valid; the message names it.
    #[error("{0}")]
    InvalidConfig(String),
    /// Stored bytes could not be decoded.
    #[error("corrupt record: {0}")]
    Corrupt(String),
    /// The backend cannot be reached now (an outage, or its circuit is open
    /// after one): the call did not reach it, so a retry later may succeed.
    #[error("{0} is unavailable")]
    Unavailable(&'static str),
}

impl StoreError {
    /// Whether this error means the backend could not be reached, as opposed to
    /// a logical failure (a stale epoch, a constraint, a corrupt record) that a
    /// retry would only repeat.
    pub fn is_outage(&self) -> bool {
        match self {
            Self::Unavailable(_) => true,
            Self::Database(e) => matches!(
                e,
                sqlx::Error::Io(_)
                    | sqlx::Error::Tls(_)
                    | sqlx::Error::Protocol(_)
                    | sqlx::Error::PoolTimedOut
                    | sqlx::Error::PoolClosed
                    | sqlx::Error::WorkerCrashed
            ),
            Self::Redis(e) => {
                e.is_io_error()
                    || e.is_connection_refusal()
                    || e.is_connection_dropped()
                    || e.is_timeout()
                    || e.is_unrecoverable_error()
            }
            _ => false,
        }
    }

    /// Whether the call waited out the pool's acquire timeout without getting
    /// a connection: the database refusing new connections and every pooled
    /// connection being busy look the same here, and only the breaker, which
    /// sees other calls, can tell them apart.
    pub fn is_pool_wait(&self) -> bool {
        matches!(self, Self::Database(sqlx::Error::PoolTimedOut))
    }
}
