//! Where the stores live, as flags shared by every subcommand that opens them.

/// Store locations and session lifetime.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct StoreConfig {
    /// SQL store: `postgres://user@host/db` for a fleet, `sqlite://path` for one
    /// process. `serve` defaults to a SQLite file in --data-dir.
    #[arg(long = "database-url", env = "FLEET_DATABASE_URL")]
    pub database_url: Option<String>,

    /// Routing store: `redis://host:6379` for a fleet. `serve` routes in-process.
    #[arg(long = "redis-url", env = "FLEET_REDIS_URL")]
    pub redis_url: Option<String>,

    /// Prefix of every Redis key this fleet writes, so one Redis can serve
    /// several fleets (e.g. `prod:`, `staging:`); empty by default.
    #[arg(
        long = "redis-key-prefix",
        env = "FLEET_REDIS_KEY_PREFIX",
        default_value = ""
    )]
    pub redis_key_prefix: String,

    /// Days an unused session is kept before it expires.
    #[arg(
        long = "session-ttl-days",
        env = "FLEET_SESSION_TTL_DAYS",
        default_value_t = 30
    )]
    pub session_ttl_days: u32,
}

impl StoreConfig {
    /// The session lifetime in milliseconds.
    pub fn session_ttl_ms(&self) -> i64 {
        i64::from(self.session_ttl_days) * 24 * 60 * 60 * 1000
    }
}
