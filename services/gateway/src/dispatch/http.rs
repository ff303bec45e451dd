//! An HTTP tool's request: it belongs to no session, so it goes to the least
//! loaded worker (the gateway itself has no way out to the internet: the
//! workers' network policy and resolver are the fleet's one egress), and to
//! another one once if the first provably did not take it.

use std::sync::Mutex;

use fleet_proto::v1::{
    self as pb, ActionError, ActionOutput, ErrorCode, run_response, worker_client::WorkerClient,
};
use fleet_store::{Tenant, WorkerInfo};
use tracing::Instrument as _;

use super::Dispatcher;
use super::answers::fail;
use super::forward::{NotRun, never_ran, traced};
use super::placement::{exclude, least_loaded};

impl Dispatcher {
    /// Sends `action`, an HTTP request, through a worker.
    pub(crate) async fn http(
        &self,
        tenant: &Tenant,
        workers: &Mutex<Vec<WorkerInfo>>,
        action: pb::Action,
    ) -> Result<ActionOutput, ActionError> {
        let req = pb::HttpRunRequest {
            tenant_id: tenant.id.clone(),
            max_duration_ms: action.max_duration_ms,
            request: match action.kind {
                Some(pb::action::Kind::Http(h)) => Some(h),
                _ => None,
            },
        };
        for _ in 0..2 {
            let Some(worker) = least_loaded(workers) else {
                break;
            };
            match self.http_on(&worker, req.clone()).await {
                Ok(answer) => return answer,
                Err(NotRun) => exclude(workers, &worker.id),
            }
        }
        Err(fail(
            ErrorCode::Unavailable,
            "no worker could send the request; try again shortly",
        ))
    }

    async fn http_on(
        &self,
        worker: &WorkerInfo,
        req: pb::HttpRunRequest,
    ) -> Result<Result<ActionOutput, ActionError>, NotRun> {
        let channel = self.channel(worker).map_err(|_| NotRun)?;
        // Bodies are at most 2 MiB; the gRPC default of 4 MiB holds them.
        let mut client = WorkerClient::new(channel);
        let span = tracing::info_span!("worker.http", worker = %worker.id);
        let request = traced(req, &span);
        let resp = match client.http(request).instrument(span).await {
            Ok(r) => r,
            Err(s) if never_ran(&s) => return Err(NotRun),
            Err(s) => {
                tracing::warn!(worker = %worker.id, status = %s, "worker HTTP call failed");
                return Ok(Err(fail(
                    ErrorCode::Unavailable,
                    "the worker failed while sending the request; it may have reached the server, so check before trying again",
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
