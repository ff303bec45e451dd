//! The tonic `fleet.v1.Worker` service over [`Sessions`].

use fleet_proto::REFUSED_MARKER;
use fleet_proto::v1::{
    HttpRunRequest, RunRequest, RunResponse, WorkerInfoRequest, WorkerInfoResponse, run_response,
    worker_server::Worker,
};
use tonic::{Request, Response, Status};
use tracing::Instrument as _;

use crate::failure::RunError;
use crate::net::Fetcher;
use crate::sessions::Sessions;

/// The gRPC face of a worker.
#[derive(Clone)]
pub struct WorkerService {
    sessions: Sessions,
    fetcher: Fetcher,
}

impl WorkerService {
    /// Serves `sessions`, and HTTP tool requests through `fetcher`.
    pub fn new(sessions: Sessions, fetcher: Fetcher) -> Self {
        Self { sessions, fetcher }
    }
}

/// Make the caller's span (its trace context in the request's metadata)
/// the parent of `span`: the gateway's `worker.call` span.
fn adopt_parent<T>(span: &tracing::Span, request: &Request<T>) {
    fleet_telemetry::trace::set_parent(span, |name| {
        request
            .metadata()
            .get(name)?
            .to_str()
            .ok()
            .map(str::to_owned)
    });
}

impl WorkerService {
    /// A run's answer, naming this worker.
    fn answer(&self, outcome: run_response::Outcome) -> Response<RunResponse> {
        Response::new(RunResponse {
            outcome: Some(outcome),
            worker_id: self.sessions.worker_id().to_owned(),
        })
    }
}

/// Refuses a call that did not run, with the marker that lets the gateway
/// send it to another worker.
fn refused(reason: String) -> Status {
    let mut status = Status::unavailable(reason);
    status.metadata_mut().insert(
        REFUSED_MARKER,
        tonic::metadata::MetadataValue::from_static("1"),
    );
    status
}

#[tonic::async_trait]
impl Worker for WorkerService {
    async fn run(&self, request: Request<RunRequest>) -> Result<Response<RunResponse>, Status> {
        // The gateway's `worker.call` span is this one's parent.
        let span = tracing::info_span!("worker.run");
        adopt_parent(&span, &request);
        let req = request.into_inner();
        if uuid::Uuid::parse_str(&req.session_id).is_err() {
            return Err(Status::invalid_argument("session_id must be a UUID"));
        }
        let started = std::time::Instant::now();
        let result = self.sessions.run(req).instrument(span).await;
        let label = match &result {
            Ok(_) => "ok",
            Err(RunError::Refused(_)) => "refused",
            Err(RunError::Failed(_)) => "failed",
        };
        fleet_telemetry::counter!("fleet_worker_runs_total", "outcome" => label).increment(1);
        fleet_telemetry::histogram!("fleet_worker_run_seconds")
            .record(started.elapsed().as_secs_f64());
        let outcome = match result {
            Ok(output) => run_response::Outcome::Output(output),
            Err(RunError::Failed(failure)) => run_response::Outcome::Error(failure.into_proto()),
            // Nothing ran: the gateway may send the call to another worker.
            Err(RunError::Refused(reason)) => return Err(refused(reason)),
        };
        Ok(self.answer(outcome))
    }

    async fn http(
        &self,
        request: Request<HttpRunRequest>,
    ) -> Result<Response<RunResponse>, Status> {
        let span = tracing::info_span!("worker.http");
        adopt_parent(&span, &request);
        if self.sessions.draining() {
            return Err(refused("this worker is draining".into()));
        }
        let req = request.into_inner();
        let started = std::time::Instant::now();
        let result = crate::http_tool::run(&self.fetcher, req)
            .instrument(span)
            .await;
        fleet_telemetry::counter!("fleet_worker_http_requests_total", "outcome" => if result.is_ok() { "ok" } else { "failed" })
            .increment(1);
        fleet_telemetry::histogram!("fleet_worker_http_seconds")
            .record(started.elapsed().as_secs_f64());
        let outcome = match result {
            Ok(output) => run_response::Outcome::Output(output),
            Err(failure) => run_response::Outcome::Error(failure.into_proto()),
        };
        Ok(self.answer(outcome))
    }

    async fn info(
        &self,
        _: Request<WorkerInfoRequest>,
    ) -> Result<Response<WorkerInfoResponse>, Status> {
        Ok(Response::new(WorkerInfoResponse {
            worker_id: self.sessions.worker_id().to_owned(),
            capacity: self.sessions.capacity(),
            live_sessions: self.sessions.live(),
        }))
    }
}
