//! The gateway's configuration: one clap struct; every flag also reads `FLEET_*`.

/// Seconds a session no worker had room for counts as pending demand.
pub const DEFAULT_PENDING_WINDOW_SECS: u64 = 30;

/// Settings of a gateway, shared by `servo-fleet gateway` and `servo-fleet serve`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct GatewayConfig {
    /// `Host` header values the MCP endpoint accepts (DNS-rebinding protection),
    /// comma-separated, e.g. `fleet.example.com,fleet.example.com:443`. Empty: any
    /// host when keys are required, loopback names only when the server runs open.
    #[arg(
        long = "allowed-hosts",
        env = "FLEET_ALLOWED_HOSTS",
        value_delimiter = ','
    )]
    pub allowed_hosts: Vec<String>,

    /// Overall time limit of one request to the gateway, seconds (covers up to 20
    /// actions running concurrently, each within its own budget).
    #[arg(
        long = "request-timeout-secs",
        env = "FLEET_REQUEST_TIMEOUT_SECS",
        default_value_t = 60
    )]
    pub request_timeout_secs: u64,

    /// Seconds between sweeps that delete expired sessions with everything
    /// stored for them (every gateway sweeps; the deletes are idempotent).
    #[arg(
        long = "expiry-sweep-secs",
        env = "FLEET_EXPIRY_SWEEP_SECS",
        default_value_t = 300
    )]
    pub expiry_sweep_secs: u64,

    /// Seconds a session that no worker had room for counts as pending in
    /// `/scaling` (the demand an autoscaler such as KEDA adds workers for).
    #[arg(
        long = "pending-window-secs",
        env = "FLEET_PENDING_WINDOW_SECS",
        default_value_t = DEFAULT_PENDING_WINDOW_SECS
    )]
    pub pending_window_secs: u64,
}
