//! The worker's configuration: one clap struct; every flag also reads `FLEET_*`.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;

/// Settings of a worker, shared by `servo-fleet worker` and `servo-fleet serve`.
#[derive(Debug, Clone, clap::Args)]
pub struct WorkerConfig {
    /// Stable ID of this worker in the registry (default: hostname and a random suffix).
    #[arg(long = "worker-id", env = "FLEET_WORKER_ID")]
    pub worker_id: Option<String>,

    /// Address gateways dial to reach this worker (default: http:// plus the listen
    /// address, or --advertise-ip with the listen port).
    #[arg(long, env = "FLEET_ADVERTISE")]
    pub advertise: Option<String>,

    /// IP address gateways dial, with the listen port, when --advertise is not
    /// given (in Kubernetes: the pod IP from the downward API; IPv6 works too).
    #[arg(long = "advertise-ip", env = "FLEET_ADVERTISE_IP")]
    pub advertise_ip: Option<IpAddr>,

    /// Also serve `/metrics` on this address, apart from the gRPC port, so a
    /// network policy can let Prometheus scrape without reaching gRPC.
    #[arg(long = "metrics-listen", env = "FLEET_METRICS_LISTEN")]
    pub metrics_listen: Option<SocketAddr>,

    /// Most sessions held in memory at once; new sessions beyond it are refused.
    #[arg(long, env = "FLEET_CAPACITY", default_value_t = 64)]
    pub capacity: u32,

    /// Actions that run engine code at once; the rest wait their turn in
    /// arrival order, each for at most its budget (0: one per CPU this process
    /// may use, which follows a container's CPU limit).
    #[arg(
        long = "engine-lanes",
        env = "FLEET_ENGINE_LANES",
        default_value_t = 0,
        value_parser = clap::value_parser!(u32).range(0..=256)
    )]
    pub engine_lanes: u32,

    /// Memory cap of one session's engine, MiB.
    #[arg(
        long = "session-memory-mb",
        env = "FLEET_SESSION_MEMORY_MB",
        default_value_t = 512
    )]
    pub session_memory_mb: u32,

    /// Largest response body a page may fetch, bytes; larger responses fail.
    #[arg(long = "max-response-bytes", env = "FLEET_MAX_RESPONSE_BYTES", default_value_t = 8 * 1024 * 1024)]
    pub max_response_bytes: usize,

    /// Seconds a session may stay unused in memory before it is checkpointed,
    /// evicted and its route released (its next call restores it anywhere).
    #[arg(
        long = "idle-ttl-secs",
        env = "FLEET_IDLE_TTL_SECS",
        default_value_t = 60
    )]
    pub idle_ttl_secs: u64,

    /// On SIGTERM, seconds to let calls in flight finish and release every
    /// session before exiting anyway.
    #[arg(long = "drain-secs", env = "FLEET_DRAIN_SECS", default_value_t = 25)]
    pub drain_secs: u64,

    /// MiB of checkpoints the worker holds while Postgres is unreachable (one
    /// per session, the newest); past it, calls on sessions with nothing queued
    /// yet fail with `UNAVAILABLE`. A crash during an outage loses at most this.
    #[arg(
        long = "checkpoint-backlog-mb",
        env = "FLEET_CHECKPOINT_BACKLOG_MB",
        default_value_t = 256
    )]
    pub checkpoint_backlog_mb: usize,

    /// Directory for the compiled engine (pre-initialized and compiled once per
    /// machine and version).
    #[arg(long = "engine-cache-dir", env = "FLEET_ENGINE_CACHE_DIR")]
    pub engine_cache_dir: Option<PathBuf>,

    /// Seconds between registry heartbeats; the entry lives three times as long.
    #[arg(
        long = "heartbeat-secs",
        env = "FLEET_HEARTBEAT_SECS",
        default_value_t = 2
    )]
    pub heartbeat_secs: u64,

    /// Write a perf map (`/tmp/perf-<pid>.map`) naming the engine's compiled
    /// functions, so `perf record -p <pid>` profiles show where guest time goes.
    #[arg(long = "perf-map", env = "FLEET_PERF_MAP")]
    pub perf_map: bool,

    /// Name of this worker's Kubernetes pod. With --pod-namespace, the worker keeps
    /// the pod's `controller.kubernetes.io/pod-deletion-cost` annotation equal to
    /// its live sessions, so scale-down removes the emptiest workers first.
    #[arg(long = "pod-name", env = "FLEET_POD_NAME", requires = "pod_namespace")]
    pub pod_name: Option<String>,

    /// Namespace of this worker's Kubernetes pod.
    #[arg(
        long = "pod-namespace",
        env = "FLEET_POD_NAMESPACE",
        requires = "pod_name"
    )]
    pub pod_namespace: Option<String>,

    /// Least seconds between two updates of the pod-deletion-cost annotation; a
    /// failed update waits twice as long each time, up to five minutes.
    #[arg(
        long = "deletion-cost-secs",
        env = "FLEET_DELETION_COST_SECS",
        default_value_t = 10,
        value_parser = clap::value_parser!(u64).range(1..=3600)
    )]
    pub deletion_cost_secs: u64,
}

impl WorkerConfig {
    /// How many actions run engine code at once (see `--engine-lanes`).
    pub fn engine_lanes(&self) -> usize {
        match self.engine_lanes {
            0 => std::thread::available_parallelism().map_or(1, usize::from),
            n => n as usize,
        }
    }

    /// The engine cache directory, defaulting to the user's cache directory.
    pub fn cache_dir(&self) -> PathBuf {
        self.engine_cache_dir
            .clone()
            .unwrap_or_else(default_cache_dir)
    }
}

/// Where compiled engine components are cached when no directory is configured.
pub fn default_cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(dir).join("servo-fleet");
    }
    if let Some(home) = std::env::var_os("HOME") {
        return PathBuf::from(home).join(".cache/servo-fleet");
    }
    std::env::temp_dir().join("servo-fleet-cache")
}
