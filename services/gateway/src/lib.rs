//! fleet-gateway is the fleet's stateless front door. It owns authentication
//! ([`auth`]), the MCP tools ([`mcp`]) and the gRPC Browser API ([`grpc`]) — two
//! faces of one [`dispatch::Dispatcher`] that validates calls and routes each
//! action to the worker that owns its session — the autoscaling report
//! ([`scaling`]) and the HTTP stack they share.

pub mod auth;
mod cdp;
pub mod config;
pub mod dispatch;
pub mod downloads;
pub mod error;
pub mod grpc;
pub mod limits;
pub mod live;
mod markup;
pub mod mcp;
pub mod oidc;
pub mod read_only;
pub mod recent;
pub mod recordings;
pub mod scaling;
pub mod search;
mod served_file;
pub mod sockets;
pub mod validate;

use axum::serve::ListenerExt as _;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use axum::Router;
use axum::routing::get;
use fleet_proto::v1::browser_server::BrowserServer;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

pub use auth::Auth;
pub use config::GatewayConfig;
pub use dispatch::Dispatcher;
pub use error::GatewayError;

/// How long a shutdown waits for open sockets to say goodbye.
const SOCKETS_GRACE: Duration = Duration::from_secs(5);

/// Largest request body: 20 actions of 1 MiB of HTML each, with room for JSON.
const MAX_BODY_BYTES: usize = 24 * 1024 * 1024;

/// A gateway: the dispatcher, how it authenticates, and its settings.
#[derive(Clone)]
pub struct Gateway {
    /// Routes calls to workers.
    pub dispatcher: Dispatcher,
    /// How callers are authenticated.
    pub auth: Auth,
    /// Settings.
    pub config: GatewayConfig,
}

impl Gateway {
    /// The whole HTTP surface. Health endpoints (`/healthz`, `/readyz`,
    /// `grpc.health.v1`) and gRPC reflection stay outside auth; `/mcp` and the
    /// gRPC Browser service sit behind the layers built in [`Gateway::layers`].
    pub async fn router(&self) -> anyhow::Result<Router> {
        let mcp_config = {
            let c = StreamableHttpServerConfig::default()
                // Stateless: any gateway replica can answer any request.
                .with_legacy_session_mode(false)
                .with_json_response(true)
                .with_sse_keep_alive(None)
                .with_max_request_body_bytes(MAX_BODY_BYTES);
            // The MCP transport spec: a request from a browser page (it carries
            // `Origin`) is refused with 403 unless its origin is allowed; agents
            // and SDKs send no Origin and pass.
            let c = if self.config.allowed_origins.is_empty() {
                c.enforce_origin_validation()
            } else {
                c.with_allowed_origins(self.config.allowed_origins.clone())
            };
            match (&self.auth, self.config.allowed_hosts.is_empty()) {
                (_, false) => c.with_allowed_hosts(self.config.allowed_hosts.clone()),
                // Behind keys, the Host header guards nothing the key does not.
                (Auth::Keys(..), true) => c.disable_allowed_hosts(),
                // Open on loopback: keep rmcp's loopback-only Host check against DNS rebinding.
                (Auth::Open(_), true) => c,
            }
        };
        let server = mcp::McpServer::new(self.dispatcher.clone());
        let mcp = StreamableHttpService::new(
            move || Ok(server.clone()),
            Arc::new(NeverSessionManager::default()),
            mcp_config,
        );
        // One route for the Browser service's methods: the open gRPC services
        // below bring tonic's fallback, and a router may have only one.
        let browser = BrowserServer::new(grpc::BrowserService::new(self.dispatcher.clone()));
        let protected = Router::new()
            .nest_service("/mcp", mcp)
            .route_service("/fleet.v1.Browser/{*method}", browser);
        // Health and reflection answer without a key: probes and grpcurl-style
        // tools use them, and they reveal nothing a key protects.
        let (health, health_svc) = tonic_health::server::health_reporter();
        health
            .set_serving::<BrowserServer<grpc::BrowserService>>()
            .await;
        let open_grpc = fleet_proto::with_reflection(tonic::service::Routes::new(health_svc))
            .context("building gRPC reflection")?
            .into_axum_router();
        let dispatcher = self.dispatcher.clone();
        Ok(Router::new()
            .route("/healthz", get(|| async { "ok" }))
            .route(
                "/readyz",
                get(move || {
                    let d = dispatcher.clone();
                    async move {
                        match d.readiness().await {
                            (true, report) => (http::StatusCode::OK, report),
                            (false, why) => (http::StatusCode::SERVICE_UNAVAILABLE, why),
                        }
                    }
                }),
            )
            .merge(fleet_telemetry::router())
            .merge(scaling::router(self.dispatcher.clone()))
            .merge(match self.dispatcher.recordings() {
                Some(r) => r.as_ref().clone().router(self.auth.clone()),
                None => Router::new(),
            })
            .merge(match self.dispatcher.downloads() {
                Some(d) => d.as_ref().clone().router(self.auth.clone()),
                None => Router::new(),
            })
            // Live pages carry their own signed link instead of a key.
            .merge(match self.dispatcher.live() {
                Some(links) => live::router(self.dispatcher.clone(), links.clone())
                    .merge(cdp::router(self.dispatcher.clone(), links.clone())),
                None => Router::new(),
            })
            .merge(open_grpc)
            .merge(self.layers(protected)))
    }

    /// Every cross-cutting layer of the protected routes, in one place. Outermost
    /// first, as a request meets them:
    fn layers(&self, routes: Router) -> Router {
        use tower::ServiceBuilder;
        routes.layer(
            ServiceBuilder::new()
                // 1. A span per request, so logs of one call hang together; a
                //    W3C `traceparent` header makes it part of the caller's trace.
                .layer(
                    tower_http::trace::TraceLayer::new_for_http()
                        .make_span_with(|req: &http::Request<axum::body::Body>| request_span(req)),
                )
                // 2. Refuse oversized bodies before reading them.
                .layer(tower_http::limit::RequestBodyLimitLayer::new(
                    MAX_BODY_BYTES,
                ))
                .map_request(
                    |r: http::Request<tower_http::body::Limited<axum::body::Body>>| {
                        r.map(axum::body::Body::new)
                    },
                )
                // 3. Bound the whole request (each action also has its own budget).
                .layer(tower_http::timeout::TimeoutLayer::with_status_code(
                    http::StatusCode::GATEWAY_TIMEOUT,
                    Duration::from_secs(self.config.request_timeout_secs.max(1)),
                ))
                // 4. Authenticate and attach the tenant.
                .layer(axum::middleware::from_fn_with_state(
                    self.auth.clone(),
                    auth::authenticate,
                ))
                // 5. The tenant's request rate and calls in flight (its open
                //    sessions are checked where sessions are created).
                .layer(axum::middleware::from_fn_with_state(
                    self.dispatcher.limits().cloned(),
                    limits::enforce,
                )),
        )
    }
}

/// The span of one protected request, a child of the caller's span when the
/// request carries `traceparent`.
fn request_span<B>(req: &http::Request<B>) -> tracing::Span {
    let span = tracing::info_span!("request", method = %req.method(), path = %req.uri().path());
    fleet_telemetry::trace::set_parent(&span, |name| {
        req.headers().get(name)?.to_str().ok().map(str::to_owned)
    });
    span
}

/// Serves `gateway` on `listener` until `shutdown`, sweeping expired sessions
/// meanwhile.
pub async fn run(
    listener: TcpListener,
    gateway: Gateway,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    tracing::info!(addr = %listener.local_addr()?, "gateway listening");
    let sweeper = sweep_expired(
        gateway.dispatcher.clone(),
        Duration::from_secs(gateway.config.expiry_sweep_secs.max(1)),
        shutdown.clone(),
    );
    let router = gateway.router().await?;
    let sockets = gateway.dispatcher.sockets().clone();
    // Upgraded sockets are no longer the server's to drain: they close
    // themselves as soon as shutdown begins.
    let closing = sockets.closing().clone();
    // Served as one finished service that each connection clones (an `Arc`):
    // a bare `Router` is finished again for every connection, which rebuilt
    // its route table each time an agent's client opened one.
    let app = router.with_state(()).into_make_service();
    let served = axum::serve(listener.tap_io(no_delay), app)
        .with_graceful_shutdown(async move {
            shutdown.cancelled().await;
            closing.cancel();
        })
        .await
        .context("serving the gateway");
    sockets.close(SOCKETS_GRACE).await;
    sweeper.abort();
    served
}

/// Deletes expired sessions every `every` until `stop` (every gateway
/// sweeps; the deletes are idempotent).
fn sweep_expired(
    dispatcher: Dispatcher,
    every: Duration,
    stop: CancellationToken,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            match dispatcher.sweep_expired().await {
                Ok(0) => {}
                Ok(n) => tracing::info!(sessions = n, "deleted expired sessions"),
                // The outage guard already said the store is away.
                Err(GatewayError::Store(e)) if e.is_outage() => {
                    tracing::debug!(error = %e, "expiry sweep skipped")
                }
                Err(GatewayError::Store(e)) => {
                    tracing::warn!(error = %e, "expiry sweep failed")
                }
                Err(e) => tracing::warn!(error = %e, "expiry sweep failed"),
            }
            tokio::select! {
                () = stop.cancelled() => break,
                () = tokio::time::sleep(every) => {}
            }
        }
    })
}

/// Serves MCP over stdin and stdout for `tenant` until the client closes
/// stdin or `shutdown` (a local, single-user fleet: `servo-fleet stdio`).
pub async fn run_stdio(
    dispatcher: Dispatcher,
    tenant: fleet_store::Tenant,
    sweep_every_secs: u64,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    use rmcp::ServiceExt as _;
    let sweeper = sweep_expired(
        dispatcher.clone(),
        Duration::from_secs(sweep_every_secs.max(1)),
        shutdown.clone(),
    );
    let server = mcp::McpServer::for_tenant(dispatcher, tenant);
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .context("starting MCP on stdio")?;
    let cancel = running.cancellation_token();
    tokio::select! {
        done = running.waiting() => {
            done.context("serving MCP on stdio")?;
        }
        () = shutdown.cancelled() => cancel.cancel(),
    }
    sweeper.abort();
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
