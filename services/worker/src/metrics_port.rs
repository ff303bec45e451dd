//! The worker's metrics port: `/metrics` on an address apart from the gRPC port,
//! so a network policy can let Prometheus scrape a worker without letting it reach
//! `fleet.v1.Worker` (which only gateways may call).

use anyhow::Context as _;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// Serves `/metrics` on `listener` until `shutdown`.
pub async fn serve(listener: TcpListener, shutdown: CancellationToken) -> anyhow::Result<()> {
    tracing::info!(addr = %listener.local_addr()?, "worker metrics listening");
    axum::serve(listener, fleet_telemetry::router::<()>())
        .with_graceful_shutdown(shutdown.cancelled_owned())
        .await
        .context("serving the worker's metrics port")
}
