//! The one path every call takes, whatever the surface (MCP or gRPC): validate the
//! whole call, resolve each action's session (new → least-loaded worker; existing →
//! its route, or a fresh claim when the route is gone), run the actions of
//! different sessions concurrently on their workers, and collect the answers.
//!
//! This file holds the [`Dispatcher`] and the call as a whole; one action's
//! session is resolved in [`sessions`], its worker chosen in [`placement`], the
//! run forwarded (and retried once when it provably did not run) in
//! [`forward`], and what the gateway answers by itself built in [`answers`].

mod answers;
mod forward;
mod http;
mod live;
mod long_wait;
mod placement;
mod sessions;
mod watch;

pub(crate) use answers::store_fail;
pub(crate) use live::Caller;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use fleet_policy::{NetPolicy, check_resolved};
use fleet_proto::v1::{
    self as pb, ActionResponse, BrowserAction, ExecuteResponse, Metadata, action::Kind,
    action_response::Outcome,
};
use fleet_store::{Routing, SessionStore, Tenant, WorkerInfo};
use tonic::transport::Channel;
use tracing::Instrument as _;

use crate::error::GatewayError;
use crate::limits::Limits;
use crate::recent::{Grace, Recent};
use crate::validate::{DEFAULT_LIST, MAX_LIST};

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
    /// Refuse actions with effects outside the tab (`--read-only`).
    read_only: bool,
    /// Where web search asks.
    search: Arc<crate::search::SearchConfig>,
    /// Recordings' status, links and downloads; `None` without an object store.
    recordings: Option<Arc<crate::recordings::Recordings>>,
    /// Downloaded files' lists, reads and links; `None` without an object store.
    downloads: Option<Arc<crate::downloads::Downloads>>,
    /// Sessions' events, for `Browser.Watch` and live views.
    events: Arc<dyn fleet_store::Events>,
    /// Live views' links; `None` leaves `servo_live_view` unavailable.
    live: Option<Arc<crate::live::LiveLinks>>,
    /// Open live-view and DevTools sockets.
    sockets: crate::sockets::Sockets,
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
            read_only: false,
            search: Arc::new(crate::search::SearchConfig::default()),
            recordings: None,
            downloads: None,
            events: Arc::new(fleet_store::MemoryEvents::default()),
            live: None,
            sockets: crate::sockets::Sockets::default(),
        }
    }

    /// Answers `servo_live_view` with links from `links`, served by
    /// [`crate::live::router`].
    pub fn with_live(mut self, links: crate::live::LiveLinks) -> Self {
        self.live = Some(Arc::new(links));
        self
    }

    /// Open live-view and DevTools sockets.
    pub fn sockets(&self) -> &crate::sockets::Sockets {
        &self.sockets
    }

    /// Live views' links, when the gateway serves live views.
    pub fn live(&self) -> Option<&Arc<crate::live::LiveLinks>> {
        self.live.as_ref()
    }

    /// Streams sessions' events from `events` (the workers publish there).
    pub fn with_events(mut self, events: Arc<dyn fleet_store::Events>) -> Self {
        self.events = events;
        self
    }

    /// Answers recordings' status and downloads from `recordings`, and
    /// downloaded files' lists and reads from the same store.
    pub fn with_recordings(mut self, recordings: crate::recordings::Recordings) -> Self {
        self.downloads = Some(Arc::new(recordings.downloads()));
        self.recordings = Some(Arc::new(recordings));
        self
    }

    /// Downloaded files, when the gateway has an object store.
    pub fn downloads(&self) -> Option<&Arc<crate::downloads::Downloads>> {
        self.downloads.as_ref()
    }

    /// Recordings, when the gateway has an object store.
    pub fn recordings(&self) -> Option<&Arc<crate::recordings::Recordings>> {
        self.recordings.as_ref()
    }

    /// Asks the given search providers.
    pub fn with_search(mut self, search: crate::search::SearchConfig) -> Self {
        self.search = Arc::new(search);
        self
    }

    /// Where web search asks.
    pub(crate) fn search_config(&self) -> &crate::search::SearchConfig {
        &self.search
    }

    /// Refuses actions with effects outside the tab ([`crate::read_only`]).
    pub fn with_read_only(mut self, read_only: bool) -> Self {
        self.read_only = read_only;
        self
    }

    /// Whether the gateway runs read-only.
    pub fn read_only(&self) -> bool {
        self.read_only
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
    /// The report names how many workers the gateway places sessions on
    /// (its registry read, which may be up to [`crate::recent::REGISTRY_REUSE`]
    /// old), so a rollout can see a new worker taken into account.
    pub async fn readiness(&self) -> (bool, String) {
        let workers = match self.recent.workers(self.routing.workers()).await {
            Ok(workers) if !workers.is_empty() => workers.len(),
            Ok(_) => return (false, "not ready: no worker is registered".into()),
            Err(_) => {
                return (
                    false,
                    "not ready: Redis is unreachable and no worker was seen lately".into(),
                );
            }
        };
        let plural = if workers == 1 { "" } else { "s" };
        let degraded = match (self.store.ping().await, self.routing.ping().await) {
            (Ok(()), Ok(())) => "",
            (Err(_), Ok(())) => " (degraded: the database is unreachable)",
            (Ok(()), Err(_)) => " (degraded: Redis is unreachable)",
            (Err(_), Err(_)) => " (degraded: the database and Redis are unreachable)",
        };
        (true, format!("ready: {workers} worker{plural}{degraded}"))
    }

    /// Validates and runs a call for `tenant`.
    pub async fn execute(
        &self,
        tenant: &Tenant,
        actions: Vec<BrowserAction>,
    ) -> Result<ExecuteResponse, GatewayError> {
        self.execute_with(tenant, actions, crate::validate::MAX_SCRIPT_BYTES)
            .await
    }

    /// [`Dispatcher::execute`] for a DevTools client, whose libraries
    /// inject scripts of up to [`crate::validate::MAX_DEVTOOLS_SCRIPT_BYTES`].
    /// Each command holds one of the tenant's calls in flight while it runs.
    /// It does not take from the request rate: a client sends several small
    /// commands where an agent sends one call (Puppeteer's `$$eval` sends
    /// three per element it finds), so a rate sized for calls would refuse
    /// ordinary scripts.
    pub(crate) async fn execute_devtools(
        &self,
        tenant: &Tenant,
        actions: Vec<BrowserAction>,
    ) -> Result<ExecuteResponse, GatewayError> {
        let place = match &self.limits {
            Some(limits) => limits.hold(tenant, limits.of(tenant).await).await?,
            None => None,
        };
        let answer = self
            .execute_with(tenant, actions, crate::validate::MAX_DEVTOOLS_SCRIPT_BYTES)
            .await;
        // Gives the place back while the answer goes out.
        drop(place);
        answer
    }

    async fn execute_with(
        &self,
        tenant: &Tenant,
        actions: Vec<BrowserAction>,
        max_script: usize,
    ) -> Result<ExecuteResponse, GatewayError> {
        let started = std::time::Instant::now();
        crate::validate::validate_with(&actions, max_script)?;
        if self.read_only {
            crate::read_only::check(&actions)?;
        }
        if let Some(limits) = &self.limits {
            let new = actions
                .iter()
                .filter(|a| a.session_id.is_empty() && !is_sessionless(a))
                .count();
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
            let url = match a.action.as_ref().and_then(|a| a.kind.as_ref()) {
                Some(Kind::Navigate(pb::Navigate {
                    target: Some(pb::navigate::Target::Url(u)),
                })) => Some(u),
                Some(Kind::Http(h)) => Some(&h.url),
                _ => None,
            };
            if let Some(u) = url {
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
        let resolved = if is_sessionless(&a) {
            // No session: the answer carries no session ID.
            let action = a.action.unwrap_or_default();
            let out = match action.kind {
                Some(Kind::WebSearch(search)) => {
                    self.web_search(tenant, workers, search)
                        .instrument(span)
                        .await
                }
                Some(Kind::Recording(pb::Recording { op: Some(op) })) => {
                    self.recording(tenant, op).instrument(span).await
                }
                Some(Kind::Downloads(pb::Downloads { op: Some(op) })) => {
                    self.downloaded_files(tenant, &a.session_id, op)
                        .instrument(span)
                        .await
                }
                _ => self.http(tenant, workers, action).instrument(span).await,
            };
            out.map(|out| (String::new(), out))
                .map_err(|e| (String::new(), e))
        } else {
            self.resolve_and_run(tenant, workers, a)
                .instrument(span)
                .await
        };
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
            sessions: rows.into_iter().map(answers::summary).collect(),
        })
    }

    /// A recording's status or download link, from the store.
    async fn recording(
        &self,
        tenant: &Tenant,
        op: pb::recording::Op,
    ) -> Result<pb::ActionOutput, pb::ActionError> {
        let Some(recordings) = &self.recordings else {
            return Err(answers::fail(
                pb::ErrorCode::InvalidArgument,
                "recordings are not available: this fleet has no object store (--object-store)",
            ));
        };
        Ok(pb::ActionOutput {
            kind: Some(pb::action_output::Kind::Recording(
                recordings.answer(tenant, op).await?,
            )),
        })
    }

    /// A session's downloads or a read of one, from the store.
    async fn downloaded_files(
        &self,
        tenant: &Tenant,
        session_id: &str,
        op: pb::downloads::Op,
    ) -> Result<pb::ActionOutput, pb::ActionError> {
        let Some(downloads) = &self.downloads else {
            return Err(answers::fail(
                pb::ErrorCode::InvalidArgument,
                "downloads are not available: this fleet has no object store (--object-store)",
            ));
        };
        Ok(pb::ActionOutput {
            kind: Some(pb::action_output::Kind::Downloads(
                downloads.answer(tenant, session_id, op).await?,
            )),
        })
    }

    /// Deletes expired sessions; run periodically by every gateway (idempotent).
    pub async fn sweep_expired(&self) -> Result<u64, GatewayError> {
        Ok(self.store.delete_expired().await?)
    }
}

/// Whether an action belongs to no session (HTTP requests, web searches, a
/// recording's status and download, downloaded files: a recording and a
/// file outlive their session, and listing them wakes no session).
fn is_sessionless(a: &BrowserAction) -> bool {
    matches!(
        a.action.as_ref().and_then(|a| a.kind.as_ref()),
        Some(
            Kind::Http(_)
                | Kind::WebSearch(_)
                | Kind::Recording(pb::Recording {
                    op: Some(pb::recording::Op::Status(_) | pb::recording::Op::Download(_))
                })
                | Kind::Downloads(_)
        )
    )
}
