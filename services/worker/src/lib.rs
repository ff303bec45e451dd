//! fleet-worker runs browser sessions. It owns the wasmtime host of the engine
//! component ([`host`]), the network policy of every page request ([`net`]), the
//! live sessions with their fencing and checkpoints ([`sessions`]), and the gRPC and
//! HTTP faces of a worker pod: `fleet.v1.Worker`, gRPC health, `/healthz`, `/readyz`,
//! a separate metrics port ([`metrics_port`]) and its pod's deletion cost ([`deletion_cost`]).

pub mod actions;
pub mod admission;
pub mod backlog;
pub mod checkpoint;
pub mod config;
pub mod console_log;
pub mod convert;
pub mod cookies;
pub mod deletion_cost;
pub mod downloads;
pub mod events;
pub mod failure;
pub mod host;
pub mod http_tool;
pub mod metrics_port;
pub mod net;
pub mod network_log;
pub mod recording;
pub mod service;
pub mod sessions;
pub mod web_storage;

use axum::serve::ListenerExt as _;
use std::future::IntoFuture as _;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use axum::routing::get;
use fleet_proto::v1::worker_server::WorkerServer;
use fleet_store::{Routing, SessionStore, WorkerInfo};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

pub use config::WorkerConfig;
use host::{EngineHost, HostConfig};
use net::{Fetcher, NetPolicy};
use sessions::Sessions;

/// The stores a worker uses.
#[derive(Clone)]
pub struct Backends {
    /// Sessions and snapshots.
    pub store: Arc<dyn SessionStore>,
    /// Routes and the registry.
    pub routing: Arc<dyn Routing>,
    /// How long an unused session lives, ms.
    pub session_ttl_ms: i64,
    /// Recordings' and downloads' rows and bytes; `None` when no object
    /// store is set.
    pub media: Option<recording::Media>,
    /// Where sessions' events are published (`Browser.Watch`).
    pub events: Arc<dyn fleet_store::Events>,
}

/// A worker ready to serve: the engine is compiled and loaded.
#[derive(Clone)]
pub struct Worker {
    sessions: Sessions,
    /// The client pages fetch through; HTTP tools use it too.
    fetcher: Fetcher,
    backends: Backends,
    config: WorkerConfig,
}

impl Worker {
    /// Builds the engine host (compiling the component on first use on this
    /// machine) and the session table.
    pub fn new(
        config: WorkerConfig,
        policy: NetPolicy,
        backends: Backends,
        listen: std::net::SocketAddr,
    ) -> anyhow::Result<Self> {
        let fetcher = Fetcher::new(policy, config.max_response_bytes)?;
        let host = EngineHost::new(
            HostConfig {
                capacity: config.capacity,
                memory_cap: usize::try_from(config.session_memory_mb).unwrap_or(512) << 20,
                cache_dir: config.cache_dir(),
                perf_map: config.perf_map,
                keep_downloads: backends.media.is_some(),
            },
            fetcher.clone(),
        )
        .context("starting the engine host")?;
        let worker_id = config.worker_id.clone().unwrap_or_else(|| {
            let host = std::env::var("HOSTNAME").unwrap_or_else(|_| "worker".into());
            format!("{host}-{}", &uuid::Uuid::new_v4().simple().to_string()[..8])
        });
        let mut config = config;
        let dial = config
            .advertise_ip
            .map_or(listen, |ip| std::net::SocketAddr::new(ip, listen.port()));
        config
            .advertise
            .get_or_insert_with(|| format!("http://{dial}"));
        config.worker_id = Some(worker_id.clone());
        let sessions = Sessions::new(
            worker_id,
            config.capacity,
            host,
            &backends,
            config.checkpoint_backlog_mb.saturating_mul(1 << 20),
            admission::Admission::new(config.engine_lanes()),
        );
        Ok(Self {
            sessions,
            fetcher,
            backends,
            config,
        })
    }

    /// This worker's registry entry.
    pub fn info(&self) -> WorkerInfo {
        WorkerInfo {
            id: self.sessions.worker_id().to_owned(),
            address: self.config.advertise.clone().unwrap_or_default(),
            capacity: self.sessions.capacity(),
            live_sessions: self.sessions.live(),
        }
    }

    /// The worker's HTTP + gRPC router: `/healthz`, `/readyz`, `fleet.v1.Worker`,
    /// `grpc.health.v1.Health` and gRPC reflection, all on one port (HTTP/1 and h2c).
    pub async fn router(&self) -> anyhow::Result<axum::Router> {
        let (health, health_svc) = tonic_health::server::health_reporter();
        health
            .set_serving::<WorkerServer<service::WorkerService>>()
            .await;
        let grpc = fleet_proto::with_reflection(
            tonic::service::Routes::new(WorkerServer::new(service::WorkerService::new(
                self.sessions.clone(),
                self.fetcher.clone(),
            )))
            .add_service(health_svc),
        )
        .context("building gRPC reflection")?
        .into_axum_router();
        let backends = self.backends.clone();
        let sessions = self.sessions.clone();
        Ok(axum::Router::new()
            .route("/healthz", get(|| async { "ok" }))
            .route(
                "/readyz",
                get(move || {
                    let b = backends.clone();
                    let draining = sessions.draining();
                    async move {
                        if draining {
                            return (http::StatusCode::SERVICE_UNAVAILABLE, "draining");
                        }
                        // A store outage leaves the worker ready: its live
                        // sessions keep serving (degraded mode).
                        let report = match (b.store.ping().await, b.routing.ping().await) {
                            (Ok(()), Ok(())) => "ready",
                            (Err(_), Ok(())) => "ready (degraded: the database is unreachable)",
                            (Ok(()), Err(_)) => "ready (degraded: Redis is unreachable)",
                            (Err(_), Err(_)) => {
                                "ready (degraded: the database and Redis are unreachable)"
                            }
                        };
                        (http::StatusCode::OK, report)
                    }
                }),
            )
            .merge(fleet_telemetry::router())
            .merge(grpc))
    }
}

/// How long answers that finished with the drain get to reach their callers
/// before the process exits.
const EXIT_GRACE: Duration = Duration::from_secs(1);

/// Serves a worker on `listener` until `shutdown`: heartbeats into the registry and
/// evicts idle sessions while it runs; on shutdown it drains — reports not-ready,
/// leaves the registry, lets calls in flight finish, releases every session's
/// route — within `drain_secs`, then stops serving.
pub async fn run(
    listener: TcpListener,
    worker: Worker,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    // Compile the engine's JavaScript preludes now, so the first session
    // need not; in the background, so joining the registry (which gateways'
    // readiness waits for) does not wait for it. A session that comes first
    // waits for the same compile.
    {
        let sessions = worker.sessions.clone();
        tokio::spawn(async move {
            if let Err(e) = sessions.warm().await {
                tracing::warn!(error = %e, "the engine's JavaScript preludes did not compile");
            }
        });
    }
    let router = worker.router().await?;
    let stopped = CancellationToken::new();
    let beat = {
        let worker = worker.clone();
        let stopped = stopped.clone();
        let every = Duration::from_secs(worker.config.heartbeat_secs.max(1));
        let idle = Duration::from_secs(worker.config.idle_ttl_secs.max(1));
        tokio::spawn(async move {
            let mut last_sweep = tokio::time::Instant::now();
            loop {
                let info = worker.info();
                fleet_telemetry::gauge!("fleet_worker_live_sessions")
                    .set(f64::from(info.live_sessions));
                match worker.backends.routing.heartbeat(&info, every * 3).await {
                    Ok(()) => {}
                    // The guard logged the outage once; every beat need not.
                    Err(e) if e.is_outage() => tracing::debug!(error = %e, "heartbeat failed"),
                    Err(e) => tracing::warn!(error = %e, "heartbeat failed"),
                }
                if last_sweep.elapsed() >= idle / 4 {
                    last_sweep = tokio::time::Instant::now();
                    worker.sessions.evict_idle(idle).await;
                }
                tokio::select! {
                    () = stopped.cancelled() => break,
                    () = tokio::time::sleep(every.min(idle / 4)) => {}
                    () = worker.sessions.load_changed() => {}
                }
            }
        })
    };
    let flusher = {
        let sessions = worker.sessions.clone();
        let stopped = stopped.clone();
        tokio::spawn(async move {
            // Checkpoints queued during a database outage are written as soon
            // as it answers again, at the pace the outage guard probes it.
            loop {
                tokio::select! {
                    () = stopped.cancelled() => break,
                    () = tokio::time::sleep(fleet_store::PROBE_INTERVAL) => {}
                }
                if sessions.unwritten() > 0 {
                    sessions.flush_backlog().await;
                }
            }
        })
    };
    let sweeper = worker.backends.media.clone().map(|media| {
        tokio::spawn(recording::sweeper::run(
            media,
            worker.sessions.worker_id().to_owned(),
            events::Publisher::new(worker.backends.events.clone()),
            stopped.clone(),
        ))
    });
    tracing::info!(addr = %listener.local_addr()?, worker = %worker.sessions.worker_id(), "worker listening");
    let drain = {
        let worker = worker.clone();
        let stopped = stopped.clone();
        tokio::spawn(async move {
            shutdown.cancelled().await;
            tracing::info!("draining");
            stopped.cancel();
            if let Err(e) = worker
                .backends
                .routing
                .deregister(worker.sessions.worker_id())
                .await
            {
                tracing::warn!(error = %e, "could not deregister");
            }
            let bound = Duration::from_secs(worker.config.drain_secs);
            if tokio::time::timeout(bound, worker.sessions.drain())
                .await
                .is_err()
            {
                tracing::warn!(
                    secs = bound.as_secs(),
                    "drain bound reached; exiting with calls in flight"
                );
            }
        })
    };
    let drained = CancellationToken::new();
    let server = axum::serve(listener.tap_io(no_delay), router)
        .with_graceful_shutdown(drained.clone().cancelled_owned())
        .into_future();
    // The drain's bound is the process's: a call still running when it is
    // reached would otherwise hold the graceful shutdown open until the call's
    // own deadline, past the pod's grace period.
    let bounded = async {
        let _ = drain.await;
        drained.cancel();
        tokio::time::sleep(EXIT_GRACE).await;
    };
    tokio::select! {
        served = server => served.context("serving the worker")?,
        () = bounded => tracing::warn!("exiting with connections still open after the drain"),
    }
    beat.abort();
    flusher.abort();
    if let Some(s) = sweeper {
        s.abort();
    }
    Ok(())
}

/// Turns Nagle's algorithm off on an accepted connection. A gRPC or MCP answer
/// leaves as several small writes (headers, data, trailers); with Nagle on, the
/// later ones wait for the peer's delayed ACK, which costs ≈40 ms per call on a
/// kept-alive connection.
fn no_delay(tcp: &mut tokio::net::TcpStream) {
    if let Err(e) = tcp.set_nodelay(true) {
        tracing::warn!(error = %e, "could not set TCP_NODELAY");
    }
}
