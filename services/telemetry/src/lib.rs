//! fleet-telemetry owns the process's metrics — one Prometheus recorder,
//! installed on first use, and the `/metrics` route every service mounts
//! (services record with the `metrics` macros; in one-process mode gateway and
//! worker share it) — its logs and traces ([`trace`]), and what a command
//! prints for its user on stdout ([`console`]).

pub mod console;
pub mod trace;

use std::sync::OnceLock;

use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};

pub use metrics::{counter, gauge, histogram};

/// Buckets for latencies in seconds, from a fast inspect to a full budget.
const SECONDS: &[f64] = &[
    0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 15.0,
];

static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();

fn handle() -> Option<&'static PrometheusHandle> {
    HANDLE
        .get_or_init(|| {
            let installed = PrometheusBuilder::new()
                .set_buckets(SECONDS)
                .and_then(PrometheusBuilder::install_recorder);
            match installed {
                Ok(h) => Some(h),
                Err(e) => {
                    tracing::warn!(error = %e, "metrics recorder not installed; /metrics will be empty");
                    None
                }
            }
        })
        .as_ref()
}

/// Installs the recorder if it is not yet; call before recording anything.
pub fn init() {
    let _ = handle();
}

/// `GET /metrics` in the Prometheus text format.
pub fn router<S: Clone + Send + Sync + 'static>() -> axum::Router<S> {
    init();
    axum::Router::new().route("/metrics", get(render))
}

async fn render() -> axum::response::Response {
    match handle() {
        Some(h) => {
            // Histograms drain their buckets on upkeep; scrapes are a fine cadence.
            h.run_upkeep();
            (
                [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
                h.render(),
            )
                .into_response()
        }
        None => (StatusCode::SERVICE_UNAVAILABLE, "metrics are unavailable").into_response(),
    }
}
