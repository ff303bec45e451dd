//! The tonic `fleet.v1.Worker` service over [`Sessions`].

use fleet_proto::REFUSED_MARKER;
use fleet_proto::v1::{
    RunRequest, RunResponse, WorkerInfoRequest, WorkerInfoResponse, run_response,
    worker_server::Worker,
};
use tonic::{Request, Response, Status};
use tracing::Instrument as _;

use crate::failure::RunError;
use crate::sessions::Sessions;

/// The gRPC face of a worker.
#[derive(Clone)]
pub struct WorkerService {
    sessions: Sessions,
}

impl WorkerService {
    /// Serves `sessions`.
    pub fn new(sessions: Sessions) -> Self {
        Self { sessions }
    }
}

#[tonic::async_trait]
impl Worker for WorkerService {
    async fn run(&self, request: Request<RunRequest>) -> Result<Response<RunResponse>, Status> {
        // The gateway's `worker.call` span is this one's parent.
        let span = tracing::info_span!("worker.run");
        fleet_telemetry::trace::set_parent(&span, |name| {
            request
                .metadata()
                .get(name)?
                .to_str()
                .ok()
                .map(str::to_owned)
        });
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
            Err(RunError::Refused(reason)) => {
                // Nothing ran: the marker tells the gateway it may send the call
                // to another worker.
                let mut status = Status::unavailable(reason);
                status.metadata_mut().insert(
                    REFUSED_MARKER,
                    tonic::metadata::MetadataValue::from_static("1"),
                );
                return Err(status);
            }
        };
        Ok(Response::new(RunResponse {
            outcome: Some(outcome),
            worker_id: self.sessions.worker_id().to_owned(),
        }))
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
