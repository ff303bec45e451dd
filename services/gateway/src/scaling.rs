//! `GET /scaling`: the fleet's session demand against its capacity, for an
//! autoscaler. KEDA's metrics-api scaler reads `sessions` — the live sessions of
//! every registered worker plus the sessions no worker had room for within the
//! pending window — and divides it by its target sessions per worker, which the
//! chart renders from the workers' capacity. It sits outside auth, like
//! `/metrics`: it reports counts only.

use axum::Json;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use fleet_store::WorkerInfo;
use serde::Serialize;

use crate::dispatch::Dispatcher;
use crate::error::{GatewayError, http_status};

/// What `/scaling` answers, from the worker registry and the pending set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Scaling {
    /// Live plus pending sessions: the demand to scale on.
    pub sessions: u64,
    /// Sessions held by registered workers now.
    pub live_sessions: u64,
    /// Sessions no worker had room for within the pending window.
    pub pending_sessions: u64,
    /// Registered workers.
    pub workers: u64,
    /// Sessions all registered workers can hold.
    pub capacity: u64,
    /// The smallest registered worker's capacity (0 without workers).
    pub capacity_per_worker: u64,
}

/// The report for a registry snapshot and a pending count.
pub fn report(workers: &[WorkerInfo], pending: u32) -> Scaling {
    let live: u64 = workers.iter().map(|w| u64::from(w.live_sessions)).sum();
    Scaling {
        sessions: live + u64::from(pending),
        live_sessions: live,
        pending_sessions: u64::from(pending),
        workers: workers.len() as u64,
        capacity: workers.iter().map(|w| u64::from(w.capacity)).sum(),
        capacity_per_worker: workers
            .iter()
            .map(|w| u64::from(w.capacity))
            .min()
            .unwrap_or(0),
    }
}

/// Reads the registry and the pending set.
pub async fn scaling(dispatcher: &Dispatcher) -> Result<Scaling, GatewayError> {
    let routing = dispatcher.routing();
    let workers = routing.workers().await?;
    let pending = routing.pending().await?;
    Ok(report(&workers, pending))
}

/// The `/scaling` route.
pub fn router(dispatcher: Dispatcher) -> axum::Router {
    axum::Router::new().route(
        "/scaling",
        get(move || {
            let d = dispatcher.clone();
            async move { respond(scaling(&d).await) }
        }),
    )
}

fn respond(result: Result<Scaling, GatewayError>) -> Response {
    match result {
        Ok(s) => Json(s).into_response(),
        Err(e) => {
            if let GatewayError::Store(inner) = &e {
                tracing::error!(error = %inner, "scaling report: store failed");
            }
            let status = http::StatusCode::from_u16(http_status(e.code()))
                .unwrap_or(http::StatusCode::INTERNAL_SERVER_ERROR);
            (status, Json(serde_json::json!({ "error": e.to_string() }))).into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn worker(id: &str, live: u32, capacity: u32) -> WorkerInfo {
        WorkerInfo {
            id: id.into(),
            address: String::new(),
            capacity,
            live_sessions: live,
        }
    }

    #[test]
    fn demand_is_live_plus_pending_and_capacity_is_the_smallest_workers() {
        let r = report(&[worker("a", 10, 64), worker("b", 3, 32)], 4);
        assert_eq!(
            r,
            Scaling {
                sessions: 17,
                live_sessions: 13,
                pending_sessions: 4,
                workers: 2,
                capacity: 96,
                capacity_per_worker: 32,
            }
        );
    }

    #[test]
    fn without_workers_pending_sessions_are_the_whole_demand() {
        let r = report(&[], 3);
        assert_eq!((r.sessions, r.workers, r.capacity_per_worker), (3, 0, 0));
    }

    #[test]
    fn the_report_uses_the_names_the_chart_reads() {
        let json = serde_json::to_value(report(&[worker("a", 1, 8)], 2)).unwrap();
        assert_eq!(json["sessions"], 3, "{json}");
        assert_eq!(json["capacityPerWorker"], 8, "{json}");
        assert_eq!(json["pendingSessions"], 2, "{json}");
    }
}
