//! The one path every call takes, whatever the surface (MCP or gRPC): validate the
//! whole call, resolve each action's session (new → least-loaded worker; existing →
//! its route, or a fresh claim when the route is gone), run the actions of
//! different sessions concurrently on their workers, and collect the answers.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use fleet_policy::{NetPolicy, check_resolved};
use fleet_proto::REFUSED_MARKER;
use fleet_proto::v1::{
    self as pb, ActionError, ActionOutput, ActionResponse, BrowserAction, ErrorCode,
    ExecuteResponse, Metadata, action::Kind, action_output, action_response::Outcome, run_response,
    worker_client::WorkerClient,
};
use fleet_store::{
    Routing, SessionRow, SessionStatus, SessionStore, Tenant, WorkerInfo, now_millis,
};
use tonic::transport::Channel;
use tracing::Instrument as _;

use crate::error::GatewayError;
use crate::limits::Limits;
use crate::recent::{Grace, Recent};
use crate::validate::{DEFAULT_LIST, DEFAULT_VIEWPORT, MAX_LIST, validate};

/// Routes calls to workers.
#[derive(Clone)]
pub struct Dispatcher {
    store: Arc<dyn SessionStore>,
    routing: Arc<dyn Routing>,
    policy: NetPolicy,
    session_ttl_ms: i64,
    pending_window: std::time::Duration,
    channels: Arc<Mutex<HashMap<String, Channel>>>,
    /// Keys, rows, routes and workers seen lately: what answers while a store
    /// is unreachable.
    recent: Arc<Recent>,
    /// Tenant limits, when enforced.
    limits: Option<Arc<Limits>>,
}

fn fail(code: ErrorCode, message: impl Into<String>) -> ActionError {
    ActionError {
        message: message.into(),
        code: code as i32,
    }
}

fn pick_worker(workers: &[WorkerInfo]) -> Option<&WorkerInfo> {
    workers
        .iter()
        .filter(|w| w.live_sessions < w.capacity)
        .min_by(|a, b| {
            // Least loaded by fraction of capacity; ties go to the larger worker.
            let la = f64::from(a.live_sessions) / f64::from(a.capacity.max(1));
            let lb = f64::from(b.live_sessions) / f64::from(b.capacity.max(1));
            la.total_cmp(&lb).then(b.capacity.cmp(&a.capacity))
        })
}

/// Picks a worker for a new or restored session and counts the session against it.
fn take_worker(workers: &Mutex<Vec<WorkerInfo>>) -> Option<WorkerInfo> {
    let mut ws = workers.lock().unwrap_or_else(|p| p.into_inner());
    let id = pick_worker(&ws)?.id.clone();
    let w = ws.iter_mut().find(|w| w.id == id)?;
    w.live_sessions += 1;
    Some(w.clone())
}

impl Dispatcher {
    /// A dispatcher over the given stores.
    pub fn new(
        store: Arc<dyn SessionStore>,
        routing: Arc<dyn Routing>,
        policy: NetPolicy,
        session_ttl_ms: i64,
    ) -> Self {
        Self {
            store,
            routing,
            policy,
            session_ttl_ms,
            pending_window: std::time::Duration::from_secs(
                crate::config::DEFAULT_PENDING_WINDOW_SECS,
            ),
            channels: Arc::default(),
            recent: Arc::new(Recent::new(Grace::default())),
            limits: None,
        }
    }

    /// Enforces tenant limits: `defaults` where a tenant has none stored,
    /// counted in `counters`; an in-flight count never ended lapses after `lapse`.
    pub fn with_limits(
        mut self,
        defaults: fleet_store::TenantLimits,
        counters: Arc<dyn fleet_store::Limiter>,
        lapse: std::time::Duration,
    ) -> Self {
        self.limits = Some(Arc::new(Limits::new(
            defaults,
            self.store.clone(),
            counters,
            lapse,
        )));
        self
    }

    /// The tenant limits in force, if any (the HTTP layer enforces the rate
    /// and the calls in flight).
    pub fn limits(&self) -> Option<&Arc<Limits>> {
        self.limits.as_ref()
    }

    /// How long what the gateway saw stays usable (see [`Recent`]).
    pub fn with_grace(mut self, grace: Grace) -> Self {
        self.recent = Arc::new(Recent::new(grace));
        self
    }

    /// The gateway's memory of its stores (auth shares it).
    pub fn recent(&self) -> &Arc<Recent> {
        &self.recent
    }

    /// How long a session no worker had room for counts as pending.
    pub fn with_pending_window(mut self, window: std::time::Duration) -> Self {
        self.pending_window = window;
        self
    }

    /// The routing store (for the scaling report).
    pub fn routing(&self) -> &Arc<dyn Routing> {
        &self.routing
    }

    /// Records a session no worker had room for as demand the fleet could not
    /// meet; a failure to record it never fails the call.
    async fn note_unplaced(&self, session_id: &str) {
        if let Err(e) = self
            .routing
            .note_pending(session_id, self.pending_window)
            .await
        {
            tracing::warn!(error = %e, "could not record a pending session");
        }
    }

    /// The SQL store (for auth).
    pub fn store(&self) -> &Arc<dyn SessionStore> {
        &self.store
    }

    /// Whether the gateway can take calls, and why not. It is ready once a
    /// worker is registered (or, with Redis away, one was lately): before
    /// that a new session has nowhere to go. A store outage alone leaves it
    /// ready: it keeps serving live sessions from what it remembers (degraded
    /// mode), and taking every replica out of the Service would turn a
    /// partial outage into a total one.
    pub async fn readiness(&self) -> (bool, &'static str) {
        match self.recent.workers(self.routing.workers()).await {
            Ok(workers) if !workers.is_empty() => {}
            Ok(_) => return (false, "not ready: no worker is registered"),
            Err(_) => {
                return (
                    false,
                    "not ready: Redis is unreachable and no worker was seen lately",
                );
            }
        }
        let report = match (self.store.ping().await, self.routing.ping().await) {
            (Ok(()), Ok(())) => "ready",
            (Err(_), Ok(())) => "ready (degraded: the database is unreachable)",
            (Ok(()), Err(_)) => "ready (degraded: Redis is unreachable)",
            (Err(_), Err(_)) => "ready (degraded: the database and Redis are unreachable)",
        };
        (true, report)
    }

    /// Validates and runs a call for `tenant`.
    pub async fn execute(
        &self,
        tenant: &Tenant,
        actions: Vec<BrowserAction>,
    ) -> Result<ExecuteResponse, GatewayError> {
        let started = std::time::Instant::now();
        validate(&actions)?;
        if let Some(limits) = &self.limits {
            let new = actions.iter().filter(|a| a.session_id.is_empty()).count();
            limits.admit_sessions(tenant, new).await?;
        }
        self.check_addresses(&actions).await?;
        // One registry snapshot per call; picks update it so the new sessions of one
        // call spread over the workers instead of all landing on the first pick.
        let workers = Mutex::new(self.recent.workers(self.routing.workers()).await?);
        let runs = actions
            .into_iter()
            .enumerate()
            .map(|(i, a)| self.run_one(tenant, &workers, i, a));
        let responses = futures::future::join_all(runs).await;
        let ok = u32::try_from(
            responses
                .iter()
                .filter(|r| matches!(r.outcome, Some(Outcome::Output(_))))
                .count(),
        )
        .unwrap_or(u32::MAX);
        for r in &responses {
            let outcome = match &r.outcome {
                Some(Outcome::Error(e)) => crate::error::code_name(e.code()),
                _ => "ok",
            };
            fleet_telemetry::counter!("fleet_gateway_actions_total", "outcome" => outcome)
                .increment(1);
        }
        fleet_telemetry::histogram!("fleet_gateway_call_seconds")
            .record(started.elapsed().as_secs_f64());
        let n = u32::try_from(responses.len()).unwrap_or(u32::MAX);
        Ok(ExecuteResponse {
            responses,
            metadata: Some(Metadata {
                response_count: n,
                successful_count: ok,
                failed_count: n - ok,
            }),
        })
    }

    /// Resolves every navigation target under the operator's policy before
    /// anything is created.
    async fn check_addresses(&self, actions: &[BrowserAction]) -> Result<(), GatewayError> {
        for (i, a) in actions.iter().enumerate() {
            if let Some(pb::Action {
                kind:
                    Some(Kind::Navigate(pb::Navigate {
                        target: Some(pb::navigate::Target::Url(u)),
                    })),
                ..
            }) = &a.action
            {
                let url = url::Url::parse(u)
                    .map_err(|e| GatewayError::Invalid(format!("actions[{i}].url: {e}")))?;
                check_resolved(&self.policy, &url)
                    .await
                    .map_err(|e| GatewayError::Invalid(format!("actions[{i}].url: {e}")))?;
            }
        }
        Ok(())
    }

    async fn run_one(
        &self,
        tenant: &Tenant,
        workers: &Mutex<Vec<WorkerInfo>>,
        index: usize,
        a: BrowserAction,
    ) -> ActionResponse {
        let span = tracing::info_span!("action", index);
        let resolved = self
            .resolve_and_run(tenant, workers, a)
            .instrument(span)
            .await;
        let (session_id, outcome) = match resolved {
            Ok((id, out)) => (id, Outcome::Output(out)),
            Err((id, err)) => (id, Outcome::Error(err)),
        };
        ActionResponse {
            action_index: u32::try_from(index).unwrap_or(u32::MAX),
            session_id,
            outcome: Some(outcome),
        }
    }

    async fn resolve_and_run(
        &self,
        tenant: &Tenant,
        workers: &Mutex<Vec<WorkerInfo>>,
        a: BrowserAction,
    ) -> Result<(String, ActionOutput), (String, ActionError)> {
        let action = a.action.unwrap_or_default();
        if a.session_id.is_empty() {
            let id = uuid::Uuid::new_v4().to_string();
            let out = self
                .create_and_run(tenant, workers, &id, a.viewport, action)
                .await;
            return out.map(|o| (id.clone(), o)).map_err(|e| (id, e));
        }
        // validate() proved the ID parses.
        let id = uuid::Uuid::parse_str(&a.session_id)
            .map(|u| u.to_string())
            .unwrap_or(a.session_id);
        let out = self.existing_run(tenant, workers, &id, action).await;
        out.map(|o| (id.clone(), o)).map_err(|e| (id, e))
    }

    async fn create_and_run(
        &self,
        tenant: &Tenant,
        workers: &Mutex<Vec<WorkerInfo>>,
        id: &str,
        viewport: Option<pb::Viewport>,
        action: pb::Action,
    ) -> Result<ActionOutput, ActionError> {
        let Some(worker) = take_worker(workers) else {
            self.note_unplaced(id).await;
            return Err(fail(
                ErrorCode::Unavailable,
                "no worker has room for a new session; try again shortly",
            ));
        };
        let worker = &worker;
        let viewport = viewport.unwrap_or(DEFAULT_VIEWPORT);
        // Route first: with Redis away nothing is written at all; with the
        // database away the fresh route is taken back.
        let route = async {
            let route = self
                .routing
                .claim(id, &worker.id, 0)
                .await
                .map_err(store_fail)?;
            let created = self
                .store
                .create_session(
                    id,
                    &tenant.id,
                    viewport.width,
                    viewport.height,
                    self.session_ttl_ms,
                )
                .await;
            match created {
                Ok(row) => self.recent.saw_session(row),
                Err(e) => {
                    if let Err(forget) = self.routing.forget(id).await {
                        tracing::warn!(error = %forget, session = %id, "could not take back the route of a session that was not created");
                    }
                    return Err(store_fail(e));
                }
            }
            Ok(route)
        }
        .instrument(tracing::info_span!("routing"))
        .await?;
        self.recent.claimed(id, route.clone());
        let req = pb::RunRequest {
            session_id: id.to_owned(),
            tenant_id: tenant.id.clone(),
            epoch: route.epoch,
            create: true,
            viewport: Some(viewport),
            action: Some(action),
        };
        self.send(workers, worker.clone(), 0, req).await
    }

    async fn existing_run(
        &self,
        tenant: &Tenant,
        workers: &Mutex<Vec<WorkerInfo>>,
        id: &str,
        action: pb::Action,
    ) -> Result<ActionOutput, ActionError> {
        let (row, route) = async {
            let row = self.recent.session(id, self.store.session(id)).await;
            let route = self.recent.route(id, self.routing.route(id)).await;
            Ok::<_, ActionError>((row.map_err(store_fail)?, route.map_err(store_fail)?))
        }
        .instrument(tracing::info_span!("routing"))
        .await?;
        let row = match row {
            // Another tenant's session, or an expired one not swept yet, is
            // indistinguishable from a missing one.
            Some(row) if row.tenant_id == tenant.id && !row.expired(now_millis()) => row,
            _ => {
                return Err(fail(
                    ErrorCode::SessionNotFound,
                    format!("session {id} was not found"),
                ));
            }
        };
        let registered = route.as_ref().and_then(|r| {
            let ws = workers.lock().unwrap_or_else(|p| p.into_inner());
            ws.iter().find(|w| w.id == r.worker).cloned()
        });
        match action.kind {
            Some(Kind::Status(_)) => return Ok(status(&row, registered.is_some())),
            Some(Kind::Close(_)) => return self.close(tenant, id).await,
            _ => {}
        }
        if row.status == SessionStatus::Failed {
            return Err(fail(
                ErrorCode::EngineFailed,
                format!("session {id} failed and cannot be used: {}", row.failure),
            ));
        }
        let live = registered.or_else(|| {
            route
                .as_ref()
                .and_then(|r| self.recent.worker_seen(&r.worker))
        });
        let (worker, epoch) = match (live, route) {
            (Some(w), Some(r)) => (w, r.epoch),
            _ => {
                // No owner, or the owner is gone: restore on the least-loaded worker.
                let Some(w) = take_worker(workers) else {
                    self.note_unplaced(id).await;
                    return Err(fail(
                        ErrorCode::Unavailable,
                        "no worker has room to restore the session; try again shortly",
                    ));
                };
                let r = self
                    .routing
                    .claim(id, &w.id, row.epoch)
                    .await
                    .map_err(store_fail)?;
                self.recent.claimed(id, r.clone());
                (w, r.epoch)
            }
        };
        let req = pb::RunRequest {
            session_id: id.to_owned(),
            tenant_id: tenant.id.clone(),
            epoch,
            create: false,
            viewport: None,
            action: Some(action),
        };
        self.send(workers, worker, row.epoch, req).await
    }

    /// Deletes a session with everything stored for it. Its route goes too, so a
    /// worker still holding it is refused by fencing and drops it when idle.
    async fn close(&self, tenant: &Tenant, id: &str) -> Result<ActionOutput, ActionError> {
        if !self
            .store
            .delete_session(id, &tenant.id)
            .await
            .map_err(store_fail)?
        {
            return Err(fail(
                ErrorCode::SessionNotFound,
                format!("session {id} was not found"),
            ));
        }
        self.recent.closed(id);
        self.routing.forget(id).await.map_err(store_fail)?;
        Ok(ActionOutput {
            kind: Some(action_output::Kind::Closed(pb::Closed { closed: true })),
        })
    }

    /// The tenant's unexpired sessions, most recently used first.
    pub async fn list(
        &self,
        tenant: &Tenant,
        limit: u32,
    ) -> Result<pb::ListSessionsResponse, GatewayError> {
        if limit > MAX_LIST {
            return Err(GatewayError::Invalid(format!(
                "limit must be 1 to {MAX_LIST}; got {limit}"
            )));
        }
        let limit = if limit == 0 { DEFAULT_LIST } else { limit };
        let rows = self.store.list_sessions(&tenant.id, limit).await?;
        Ok(pb::ListSessionsResponse {
            sessions: rows
                .into_iter()
                .map(|r| pb::SessionSummary {
                    session_id: r.id,
                    url: r.url,
                    title: r.title,
                    status: r.status.to_string(),
                    updated_at: rfc3339(r.updated_at),
                    expires_at: rfc3339(r.expires_at),
                })
                .collect(),
        })
    }

    /// Deletes expired sessions; run periodically by every gateway (idempotent).
    pub async fn sweep_expired(&self) -> Result<u64, GatewayError> {
        Ok(self.store.delete_expired().await?)
    }

    /// Sends a run to `worker`. When the worker provably did not run it — it
    /// refused (not the owner, draining, full) or could not be connected to — the
    /// session is claimed on another worker and the run sent there, once. A call
    /// that may have executed is never retried.
    async fn send(
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
        let Some(other) = take_worker(workers) else {
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

    fn channel(&self, worker: &WorkerInfo) -> Result<Channel, ActionError> {
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
        let mut request = tonic::Request::new(req);
        for (name, value) in fleet_telemetry::trace::traceparent(&span) {
            if let (Ok(name), Ok(value)) = (
                tonic::metadata::MetadataKey::from_bytes(name.as_bytes()),
                value.parse(),
            ) {
                request.metadata_mut().insert(name, value);
            }
        }
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

/// A worker provably did not run a call.
struct NotRun;

/// Whether a failed worker call certainly did not execute: the worker refused it
/// with the marker, or the connection was never made.
fn never_ran(status: &tonic::Status) -> bool {
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

/// Keeps a worker that failed this call from being picked again in it.
fn exclude(workers: &Mutex<Vec<WorkerInfo>>, id: &str) {
    let mut ws = workers.lock().unwrap_or_else(|p| p.into_inner());
    ws.retain(|w| w.id != id);
}

/// A store failure seen by one action: `UNAVAILABLE`, so the agent retries;
/// what failed is logged, never shown.
fn store_fail(e: fleet_store::StoreError) -> ActionError {
    if e.is_outage() {
        // The outage guard logged the outage once; each call need not.
        tracing::debug!(error = %e, "store unavailable");
    } else {
        tracing::error!(error = %e, "store failed");
    }
    fail(
        ErrorCode::Unavailable,
        "the session store is unavailable; try again shortly",
    )
}

fn rfc3339(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.to_rfc3339())
        .unwrap_or_default()
}

fn status(row: &SessionRow, runtime_available: bool) -> ActionOutput {
    ActionOutput {
        kind: Some(action_output::Kind::Status(pb::SessionStatusResult {
            status: row.status.to_string(),
            updated_at: rfc3339(row.updated_at),
            expires_at: rfc3339(row.expires_at),
            runtime_available,
            resumable: row.status == SessionStatus::Active,
            failure: (!row.failure.is_empty()).then(|| row.failure.clone()),
            // A restore reloads the page and reapplies stored state; these live
            // only in a running engine.
            not_restored: vec![
                "jsHeap".into(),
                "history".into(),
                "elementScrollOffsets".into(),
            ],
        })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn the_least_loaded_worker_with_room_is_picked() {
        let w = |id: &str, live, cap| WorkerInfo {
            id: id.into(),
            address: String::new(),
            capacity: cap,
            live_sessions: live,
        };
        let ws = [w("full", 4, 4), w("busy", 3, 4), w("idle", 1, 4)];
        assert_eq!(pick_worker(&ws).unwrap().id, "idle");
        assert!(pick_worker(&[w("full", 4, 4)]).is_none());
    }
}
