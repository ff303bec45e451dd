//! Forwarding a run to a worker over gRPC: one lazily connected channel per
//! worker address, the caller's trace carried along, and one retry on another
//! worker when — and only when — the first provably did not run the call.

use std::sync::Mutex;

use fleet_proto::REFUSED_MARKER;
use fleet_proto::v1::{
    self as pb, ActionError, ActionOutput, ErrorCode, run_response, worker_client::WorkerClient,
};
use fleet_store::WorkerInfo;
use tonic::transport::Channel;
use tracing::Instrument as _;

use super::Dispatcher;
use super::answers::{fail, store_fail};
use super::placement::exclude;

impl Dispatcher {
    /// Sends a run to `worker`. When the worker provably did not run it — it
    /// refused (not the owner, draining, full) or could not be connected to — the
    /// session is claimed on another worker and the run sent there, once. A call
    /// that may have executed is never retried.
    pub(super) async fn send(
        &self,
        workers: &Mutex<Vec<WorkerInfo>>,
        worker: WorkerInfo,
        floor: u64,
        req: pb::RunRequest,
    ) -> Result<ActionOutput, ActionError> {
        match self.call_worker(&worker, req.clone()).await {
            Ok(answer) => return answer,
            Err(NotRun) => {
                tracing::info!(worker = %worker.id, session = %req.session_id, "worker did not take the call; retrying elsewhere");
                exclude(workers, &worker.id);
            }
        }
        let Some(other) = self.place(workers, Some(&worker.id)).await else {
            self.note_unplaced(&req.session_id).await;
            return Err(fail(
                ErrorCode::Unavailable,
                "no worker could take the session; try again shortly",
            ));
        };
        let route = self
            .routing
            .claim(&req.session_id, &other.id, floor)
            .await
            .map_err(store_fail)?;
        self.recent.claimed(&req.session_id, route.clone());
        let retry = pb::RunRequest {
            epoch: route.epoch,
            ..req
        };
        match self.call_worker(&other, retry).await {
            Ok(answer) => answer,
            Err(NotRun) => Err(fail(
                ErrorCode::Unavailable,
                "no worker could take the session; try again shortly",
            )),
        }
    }

    pub(super) fn channel(&self, worker: &WorkerInfo) -> Result<Channel, ActionError> {
        let mut channels = self.channels.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(c) = channels.get(&worker.address) {
            return Ok(c.clone());
        }
        let channel = Channel::from_shared(worker.address.clone())
            .map_err(|_| {
                fail(
                    ErrorCode::Unavailable,
                    "a worker announced an invalid address",
                )
            })?
            .connect_timeout(std::time::Duration::from_secs(3))
            .connect_lazy();
        channels.insert(worker.address.clone(), channel.clone());
        Ok(channel)
    }

    async fn call_worker(
        &self,
        worker: &WorkerInfo,
        req: pb::RunRequest,
    ) -> Result<Result<ActionOutput, ActionError>, NotRun> {
        let channel = match self.channel(worker) {
            Ok(c) => c,
            Err(_) => return Err(NotRun),
        };
        let mut client = WorkerClient::new(channel)
            .max_decoding_message_size(64 << 20)
            .max_encoding_message_size(64 << 20);
        let span = tracing::info_span!("worker.call", worker = %worker.id);
        let request = traced(req, &span);
        // The gRPC hop's share of a call is this minus the worker's own
        // `fleet_worker_run_seconds`.
        let sent = std::time::Instant::now();
        let answer = client.run(request).instrument(span).await;
        fleet_telemetry::histogram!("fleet_gateway_worker_call_seconds")
            .record(sent.elapsed().as_secs_f64());
        let resp = match answer {
            Ok(r) => r,
            Err(s) if never_ran(&s) => return Err(NotRun),
            Err(s) => {
                tracing::warn!(worker = %worker.id, status = %s, "worker call failed");
                return Ok(Err(fail(
                    ErrorCode::Unavailable,
                    "the session's worker failed during the call; its last checkpoint is kept, try again",
                )));
            }
        };
        Ok(match resp.into_inner().outcome {
            Some(run_response::Outcome::Output(o)) => Ok(o),
            Some(run_response::Outcome::Error(e)) => Err(e),
            None => Err(fail(ErrorCode::Internal, "the worker sent an empty answer")),
        })
    }
}

/// A worker request carrying `span`'s trace context, so the worker's spans
/// join the caller's trace.
pub(super) fn traced<T>(req: T, span: &tracing::Span) -> tonic::Request<T> {
    let mut request = tonic::Request::new(req);
    for (name, value) in fleet_telemetry::trace::traceparent(span) {
        if let (Ok(name), Ok(value)) = (
            tonic::metadata::MetadataKey::from_bytes(name.as_bytes()),
            value.parse(),
        ) {
            request.metadata_mut().insert(name, value);
        }
    }
    request
}

/// A worker provably did not run a call.
pub(super) struct NotRun;

/// Whether a failed worker call certainly did not execute: the worker refused it
/// with the marker, or the connection was never made.
pub(super) fn never_ran(status: &tonic::Status) -> bool {
    if status.metadata().get(REFUSED_MARKER).is_some() {
        return true;
    }
    let mut source: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(status);
    while let Some(e) = source {
        if let Some(io) = e.downcast_ref::<std::io::Error>()
            && matches!(
                io.kind(),
                std::io::ErrorKind::ConnectionRefused | std::io::ErrorKind::NotConnected
            )
        {
            return true;
        }
        source = e.source();
    }
    false
}
