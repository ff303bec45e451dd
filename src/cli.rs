//! The command line: one clap struct per subcommand (each flag also reads
//! `FLEET_*`), and the wiring of stores, worker and gateway for each.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context as _, bail};
use fleet_gateway::live::LiveLinks;
use fleet_gateway::{Auth, Dispatcher, Gateway, GatewayConfig};
use fleet_media::{Media, MediaConfig, Signer};
use fleet_policy::PolicyConfig;
use fleet_store::{
    Events, Routing, SessionStore, SqlStores, StoreConfig, open_events, open_limiter, open_routing,
    open_sql, open_store,
};
use fleet_telemetry::outln;
use fleet_worker::deletion_cost::DeletionCost;
use fleet_worker::{Backends, Worker, WorkerConfig};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// servo-fleet: a headless browser fleet for AI agents (MCP and gRPC).
#[derive(Debug, clap::Parser)]
#[command(name = "servo-fleet", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Run the whole fleet in one process: gateway and worker, SQLite, in-process routing.
    Serve(Box<ServeArgs>),
    /// Run the whole fleet in one process for one local user, speaking MCP on
    /// stdin and stdout (for desktop MCP clients); logs go to stderr.
    Stdio(Box<LocalArgs>),
    /// Run a gateway (MCP at /mcp and gRPC fleet.v1.Browser) against Postgres and Redis.
    Gateway(Box<GatewayArgs>),
    /// Run a worker (gRPC fleet.v1.Worker) against Postgres and Redis.
    Worker(Box<WorkerArgs>),
    /// Apply the database migrations and exit.
    Migrate(MigrateArgs),
    /// Manage API keys: create, list, revoke, rotate.
    #[command(subcommand)]
    Keys(crate::keys::KeysCommand),
    /// Manage tenants' limits: set, show.
    #[command(subcommand)]
    Tenants(crate::tenants::TenantsCommand),
    /// Measure the fleet side by side with headless Chromium (or run the load test).
    Bench(fleet_bench::BenchConfig),
    /// Write the fidelity corpus's golden files from headless Chromium (scripts/goldens.sh).
    Goldens(fleet_bench::fidelity::GoldensConfig),
    /// Check a running fleet end to end over MCP with an API key: open a session,
    /// read its page back, close it (the chart's `helm test`).
    Smoke(crate::smoke::SmokeArgs),
    /// Call one tool of a running fleet and print its JSON result (or a table);
    /// screenshots are written to files.
    Call(Box<crate::client::CallArgs>),
    /// List or close your sessions on a running fleet.
    #[command(subcommand)]
    Sessions(crate::client::SessionsCommand),
}

#[derive(Debug, clap::Args)]
struct ServeArgs {
    /// Address of the MCP endpoint (/mcp), health checks and gRPC API.
    #[arg(long, env = "FLEET_LISTEN", default_value = "127.0.0.1:8788")]
    listen: SocketAddr,
    /// Require API keys even on a loopback address.
    #[arg(long = "require-keys", env = "FLEET_REQUIRE_KEYS")]
    require_keys: bool,
    #[command(flatten)]
    local: LocalArgs,
}

/// The one-process fleet's settings, shared by `serve` and `stdio`.
#[derive(Debug, clap::Args)]
struct LocalArgs {
    /// Directory for the SQLite database when --database-url is not given.
    #[arg(
        long = "data-dir",
        env = "FLEET_DATA_DIR",
        default_value = "servo-fleet-data"
    )]
    data_dir: PathBuf,
    #[command(flatten)]
    store: StoreConfig,
    #[command(flatten)]
    policy: PolicyConfig,
    #[command(flatten)]
    gateway: GatewayConfig,
    #[command(flatten)]
    worker: WorkerConfig,
    #[command(flatten)]
    media: MediaConfig,
    #[command(flatten)]
    trace: fleet_telemetry::trace::TraceConfig,
}

#[derive(Debug, clap::Args)]
struct GatewayArgs {
    /// Address of the MCP endpoint (/mcp), health checks and gRPC API.
    #[arg(long, env = "FLEET_LISTEN", default_value = "0.0.0.0:8788")]
    listen: SocketAddr,
    #[command(flatten)]
    store: StoreConfig,
    #[command(flatten)]
    policy: PolicyConfig,
    #[command(flatten)]
    gateway: GatewayConfig,
    #[command(flatten)]
    media: MediaConfig,
    #[command(flatten)]
    trace: fleet_telemetry::trace::TraceConfig,
}

#[derive(Debug, clap::Args)]
struct WorkerArgs {
    /// Address of the worker's gRPC service and health checks.
    #[arg(long, env = "FLEET_LISTEN", default_value = "0.0.0.0:7070")]
    listen: SocketAddr,
    #[command(flatten)]
    store: StoreConfig,
    #[command(flatten)]
    policy: PolicyConfig,
    #[command(flatten)]
    worker: WorkerConfig,
    #[command(flatten)]
    media: MediaConfig,
    #[command(flatten)]
    trace: fleet_telemetry::trace::TraceConfig,
}

#[derive(Debug, clap::Args)]
struct MigrateArgs {
    #[command(flatten)]
    store: StoreConfig,
}

impl Cli {
    /// Engine lanes this process runs (`worker`, `serve`, `stdio`); 0 for the
    /// commands that run no engine.
    pub fn engine_lanes(&self) -> usize {
        match &self.command {
            Command::Worker(a) => a.worker.engine_lanes(),
            Command::Serve(a) => a.local.worker.engine_lanes(),
            Command::Stdio(a) => a.worker.engine_lanes(),
            _ => 0,
        }
    }
}

/// Logs go to stderr (stdout is for machine-readable output); `RUST_LOG`
/// filters. Services also export traces when their OTLP settings say so; the
/// guard flushes them when `main` ends.
pub fn init_tracing(cli: &Cli) -> anyhow::Result<fleet_telemetry::trace::Tracing> {
    let (config, service) = match &cli.command {
        Command::Gateway(a) => (Some(&a.trace), "servo-fleet-gateway"),
        Command::Worker(a) => (Some(&a.trace), "servo-fleet-worker"),
        Command::Serve(a) => (Some(&a.local.trace), "servo-fleet"),
        Command::Stdio(a) => (Some(&a.trace), "servo-fleet"),
        _ => (None, "servo-fleet"),
    };
    fleet_telemetry::trace::init(config, service)
}

fn database_url(store: &StoreConfig) -> anyhow::Result<&str> {
    store
        .database_url
        .as_deref()
        .context("--database-url (or FLEET_DATABASE_URL) is required, e.g. postgres://user@host/db")
}

fn redis_url(store: &StoreConfig) -> anyhow::Result<&str> {
    store
        .redis_url
        .as_deref()
        .context("--redis-url (or FLEET_REDIS_URL) is required, e.g. redis://127.0.0.1:6379")
}

/// A fleet member's session event bus: Redis pub/sub.
async fn open_fleet_events(config: &StoreConfig) -> anyhow::Result<Arc<dyn Events>> {
    open_events(redis_url(config)?, &config.redis_key_prefix)
        .await
        .context("connecting to Redis")
}

/// The stores of a fleet member: Postgres and Redis, both required.
async fn open_fleet_stores(config: &StoreConfig) -> anyhow::Result<(SqlStores, Arc<dyn Routing>)> {
    let store = open_sql(database_url(config)?)
        .await
        .context("opening the SQL store")?;
    let routing = open_routing(redis_url(config)?, &config.redis_key_prefix)
        .await
        .context("connecting to Redis")?;
    Ok((store, routing))
}

/// The recordings' and downloads' object store, if one is configured (or
/// `default_store`).
fn media(
    config: &MediaConfig,
    sql: &SqlStores,
    default_store: Option<String>,
) -> anyhow::Result<Option<Media>> {
    Media::from_config(config, sql, default_store).context("opening the recordings' object store")
}

/// The key the gateway signs its links with (downloads, recordings, live
/// views) and the URL they start with.
fn gateway_links(config: &MediaConfig, listen: SocketAddr) -> (Signer, String) {
    let public_url = config.public_url.clone().unwrap_or_else(|| {
        let host = if listen.ip().is_unspecified() {
            SocketAddr::new(std::net::Ipv4Addr::LOCALHOST.into(), listen.port())
        } else {
            listen
        };
        format!("http://{host}")
    });
    (Signer::from_config(config), public_url)
}

/// The gateway's face of recordings: status, links and the download route.
fn gateway_recordings(
    media: Option<Media>,
    (signer, public_url): &(Signer, String),
) -> Option<fleet_gateway::recordings::Recordings> {
    Some(fleet_gateway::recordings::Recordings::new(
        media?,
        signer.clone(),
        public_url,
    ))
}

/// The OIDC verifier the gateway flags configure, if any.
fn oidc(config: &GatewayConfig) -> anyhow::Result<Option<fleet_gateway::oidc::Oidc>> {
    config
        .oidc()?
        .map(fleet_gateway::oidc::Oidc::new)
        .transpose()
}

/// Cancels on Ctrl-C or SIGTERM.
fn shutdown_token() -> CancellationToken {
    let token = CancellationToken::new();
    let t = token.clone();
    tokio::spawn(async move {
        let ctrl_c = tokio::signal::ctrl_c();
        #[cfg(unix)]
        {
            let mut term =
                match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                    Ok(s) => s,
                    Err(e) => {
                        tracing::error!(error = %e, "cannot listen for SIGTERM");
                        let _ = ctrl_c.await;
                        t.cancel();
                        return;
                    }
                };
            tokio::select! {
                _ = ctrl_c => {}
                _ = term.recv() => {}
            }
        }
        #[cfg(not(unix))]
        let _ = ctrl_c.await;
        t.cancel();
    });
    token
}

async fn bind(addr: SocketAddr) -> anyhow::Result<TcpListener> {
    TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on {addr}"))
}

/// Runs one subcommand to completion.
pub async fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Serve(args) => serve(*args).await,
        Command::Stdio(args) => stdio(*args).await,
        Command::Gateway(args) => {
            let (sql, routing) = open_fleet_stores(&args.store).await?;
            let links = gateway_links(&args.media, args.listen);
            let recordings = gateway_recordings(media(&args.media, &sql, None)?, &links);
            let store = sql.sessions;
            let counters = open_limiter(redis_url(&args.store)?, &args.store.redis_key_prefix)
                .await
                .context("connecting to Redis")?;
            let dispatcher = Dispatcher::new(
                store,
                routing,
                args.policy.policy(),
                args.store.session_ttl_ms(),
            )
            .with_pending_window(Duration::from_secs(args.gateway.pending_window_secs))
            .with_read_only(args.gateway.read_only)
            .with_search(args.gateway.search())
            .with_grace(args.gateway.grace())
            .with_limits(
                args.gateway.tenant_defaults(),
                counters,
                args.gateway.in_flight_lapse(),
            );
            let dispatcher = match recordings {
                Some(r) => dispatcher.with_recordings(r),
                None => dispatcher,
            }
            .with_events(open_fleet_events(&args.store).await?)
            .with_live(LiveLinks::new(links.0, &links.1));
            let gateway = Gateway {
                auth: Auth::keys(&dispatcher, oidc(&args.gateway)?),
                dispatcher,
                config: args.gateway,
            };
            fleet_gateway::run(bind(args.listen).await?, gateway, shutdown_token()).await
        }
        Command::Worker(args) => worker(*args).await,
        Command::Migrate(args) => {
            open_store(database_url(&args.store)?)
                .await
                .context("applying migrations")?;
            outln!("migrations applied")?;
            Ok(())
        }
        Command::Bench(config) => {
            let binary = std::env::current_exe().context("finding the servo-fleet binary")?;
            fleet_bench::run(config, binary).await
        }
        Command::Goldens(config) => fleet_bench::fidelity::goldens::run(config).await,
        Command::Smoke(args) => crate::smoke::run(&args).await,
        Command::Call(args) => crate::client::call(&args).await,
        Command::Sessions(command) => crate::client::sessions(&command).await,
        Command::Keys(command) => crate::keys::run(command).await,
        Command::Tenants(command) => crate::tenants::run(command).await,
    }
}

/// A worker, with its metrics port and its pod's deletion cost when configured;
/// both end when the worker has drained.
async fn worker(args: WorkerArgs) -> anyhow::Result<()> {
    let (sql, routing) = open_fleet_stores(&args.store).await?;
    let media = media(&args.media, &sql, None)?;
    let store = sql.sessions;
    let listener = bind(args.listen).await?;
    let metrics = match args.worker.metrics_listen {
        Some(addr) => Some(bind(addr).await?),
        None => None,
    };
    let deletion_cost = DeletionCost::from_config(&args.worker).await?;
    let backends = Backends {
        store,
        routing,
        session_ttl_ms: args.store.session_ttl_ms(),
        media,
        events: open_fleet_events(&args.store).await?,
    };
    let worker = Worker::new(
        args.worker,
        args.policy.policy(),
        backends,
        listener.local_addr()?,
    )?;
    let done = CancellationToken::new();
    if let Some(l) = metrics {
        let done = done.clone();
        tokio::spawn(async move {
            if let Err(e) = fleet_worker::metrics_port::serve(l, done).await {
                tracing::error!(error = %e, "the metrics port stopped");
            }
        });
    }
    if let Some(updater) = deletion_cost {
        let w = worker.clone();
        tokio::spawn(updater.run(move || w.info().live_sessions, done.clone()));
    }
    let served = fleet_worker::run(listener, worker, shutdown_token()).await;
    done.cancel();
    served
}

/// The one-process fleet's parts: its store, and a worker and a dispatcher
/// over in-process routing (or Redis, when given), the worker on a loopback
/// port of its own.
struct Local {
    store: Arc<dyn SessionStore>,
    worker: Worker,
    worker_listener: TcpListener,
    dispatcher: Dispatcher,
    /// Live views' links, for a fleet that serves HTTP.
    live: LiveLinks,
}

async fn local_fleet(
    data_dir: &std::path::Path,
    store_config: &StoreConfig,
    policy: &PolicyConfig,
    gateway: &GatewayConfig,
    worker: WorkerConfig,
    media_config: &MediaConfig,
    listen: SocketAddr,
) -> anyhow::Result<(Local, String)> {
    let url = match &store_config.database_url {
        Some(u) => u.clone(),
        None => {
            std::fs::create_dir_all(data_dir)
                .with_context(|| format!("creating {}", data_dir.display()))?;
            format!("sqlite://{}", data_dir.join("fleet.db").display())
        }
    };
    let sql = open_sql(&url).await.context("opening the SQL store")?;
    // One process, one host: a folder beside the database unless told otherwise.
    let objects = format!("file://{}", data_dir.join("objects").display());
    let media = media(media_config, &sql, Some(objects))?;
    let links = gateway_links(media_config, listen);
    let recordings = gateway_recordings(media.clone(), &links);
    let store = sql.sessions;
    let routing = open_routing(
        store_config.redis_url.as_deref().unwrap_or("memory:"),
        &store_config.redis_key_prefix,
    )
    .await?;
    let counters = open_limiter(
        store_config.redis_url.as_deref().unwrap_or("memory:"),
        &store_config.redis_key_prefix,
    )
    .await?;
    // One bus for the process's worker and gateway.
    let events = open_events(
        store_config.redis_url.as_deref().unwrap_or("memory:"),
        &store_config.redis_key_prefix,
    )
    .await?;
    let worker_listener = bind(SocketAddr::from(([127, 0, 0, 1], 0))).await?;
    let backends = Backends {
        store: store.clone(),
        routing: routing.clone(),
        session_ttl_ms: store_config.session_ttl_ms(),
        media,
        events: events.clone(),
    };
    let policy = policy.policy();
    let worker = Worker::new(
        worker,
        policy.clone(),
        backends,
        worker_listener.local_addr()?,
    )?;
    let dispatcher = Dispatcher::new(
        store.clone(),
        routing,
        policy,
        store_config.session_ttl_ms(),
    )
    .with_pending_window(Duration::from_secs(gateway.pending_window_secs))
    .with_read_only(gateway.read_only)
    .with_search(gateway.search())
    .with_grace(gateway.grace())
    .with_limits(
        gateway.tenant_defaults(),
        counters,
        gateway.in_flight_lapse(),
    );
    let dispatcher = match recordings {
        Some(r) => dispatcher.with_recordings(r),
        None => dispatcher,
    }
    .with_events(events);
    Ok((
        Local {
            store,
            worker,
            worker_listener,
            dispatcher,
            live: LiveLinks::new(links.0, &links.1),
        },
        url,
    ))
}

async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let settings = args.local;
    let (local, url) = local_fleet(
        &settings.data_dir,
        &settings.store,
        &settings.policy,
        &settings.gateway,
        settings.worker,
        &settings.media,
        args.listen,
    )
    .await?;
    let store = local.store;
    let loopback = args.listen.ip().is_loopback();
    let open = loopback && !args.require_keys;
    if !open && store.key_count().await? == 0 {
        bail!(
            "refusing to listen on {} without API keys: anyone who can reach it could drive the browser. \
             Create a key first (`servo-fleet keys create --tenant NAME --database-url {url}`) or listen on 127.0.0.1",
            args.listen
        );
    }
    let gateway_listener = bind(args.listen).await?;
    let local_tenant = match open {
        true => Some(store.ensure_tenant("local").await?),
        false => None,
    };
    let dispatcher = local.dispatcher.with_live(local.live);
    let auth = match local_tenant {
        Some(tenant) => Auth::Open(tenant),
        None => Auth::keys(&dispatcher, oidc(&settings.gateway)?),
    };
    let gateway = Gateway {
        dispatcher,
        auth: auth.clone(),
        config: settings.gateway,
    };
    let shutdown = shutdown_token();
    if matches!(auth, Auth::Open(_)) {
        tracing::info!("serving open on loopback: no API key needed");
    }
    let w = tokio::spawn(fleet_worker::run(
        local.worker_listener,
        local.worker,
        shutdown.clone(),
    ));
    let g = fleet_gateway::run(gateway_listener, gateway, shutdown.clone()).await;
    shutdown.cancel();
    let w = w.await.context("the worker task failed")?;
    g.and(w)
}

/// The one-process fleet for one local user over stdio: every call runs for
/// the `local` tenant; there is no network listener but the worker's loopback
/// port.
async fn stdio(args: LocalArgs) -> anyhow::Result<()> {
    // No HTTP listener: download links point where `serve` would listen
    // (or --public-url), for a `serve` of the same data directory.
    let (local, _) = local_fleet(
        &args.data_dir,
        &args.store,
        &args.policy,
        &args.gateway,
        args.worker,
        &args.media,
        SocketAddr::from(([127, 0, 0, 1], 8788)),
    )
    .await?;
    let tenant = local.store.ensure_tenant("local").await?;
    let shutdown = shutdown_token();
    let w = tokio::spawn(fleet_worker::run(
        local.worker_listener,
        local.worker,
        shutdown.clone(),
    ));
    // The worker registers as it starts; a first call before that would find
    // no worker, so the client's session starts once one is there.
    let ready = async {
        while !local.dispatcher.readiness().await.0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(30), ready)
        .await
        .context("the worker did not register within 30 s")?;
    let s = fleet_gateway::run_stdio(
        local.dispatcher,
        tenant,
        args.gateway.expiry_sweep_secs,
        shutdown.clone(),
    )
    .await;
    shutdown.cancel();
    let w = w.await.context("the worker task failed")?;
    s.and(w)
}
