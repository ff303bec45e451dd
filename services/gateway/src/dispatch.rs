//! The one path every call takes, whatever the surface (MCP or gRPC): validate the
//! whole call, resolve each action's session (new → least-loaded worker; existing →
//! its route, or a fresh claim when the route is gone), run the actions of
//! different sessions concurrently on their workers, and collect the answers.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use fleet_policy::{NetPolicy, check_form, check_resolved};
use fleet_proto::v1::{
    self as pb, ActionError, ActionOutput, ActionResponse, BrowserAction, ErrorCode,
    ExecuteResponse, Metadata, action::Kind, action_output, action_response::Outcome, run_response,
    worker_client::WorkerClient,
};
use fleet_proto::{MAX_FONT_BYTES, REFUSED_MARKER};
use fleet_store::{Routing, SessionRow, SessionStore, Tenant, WorkerInfo, now_millis};
use tonic::transport::Channel;
use tracing::Instrument as _;

use crate::error::GatewayError;
use crate::limits::Limits;
use crate::recent::{Grace, Recent};

/// Most actions in one call.
pub const MAX_ACTIONS: usize = 20;
/// Largest inline HTML document, bytes of UTF-8 (1 MiB).
pub const MAX_HTML_BYTES: usize = 1024 * 1024;
/// Largest script, bytes of UTF-8 (64 KiB).
pub const MAX_SCRIPT_BYTES: usize = 64 * 1024;
/// Longest URL, characters.
pub const MAX_URL_CHARS: usize = 2048;
/// Longest selector, text or value naming an element or option, characters.
pub const MAX_TARGET_CHARS: usize = 1024;
/// Longest text one type action types, characters.
pub const MAX_TYPE_CHARS: usize = 10_000;
/// Longest key name of a key press, with modifiers (`Control+Shift+ArrowDown`).
pub const MAX_KEY_CHARS: usize = 64;
/// Largest viewport coordinate of a point target, CSS pixels.
pub const MAX_POINT: f64 = 10_000.0;
/// Largest scroll distance of one scroll action, CSS pixels.
pub const MAX_SCROLL: f64 = 1_000_000.0;
/// Most accessibility tree nodes one action may ask for.
pub const MAX_A11Y_NODES: u32 = 5_000;
/// Most page time one wait may take, ms (the worker applies the same cap).
pub const MAX_WAIT_MS: u32 = 60_000;
/// Longest answer a dialog policy gives to prompts, characters.
pub const MAX_PROMPT_CHARS: usize = 10_000;
/// Viewport width bounds.
pub const WIDTH: std::ops::RangeInclusive<u32> = 320..=1920;
/// Viewport height bounds.
pub const HEIGHT: std::ops::RangeInclusive<u32> = 240..=1600;
/// Per-action time budget bounds, ms (0 = the default, 10 s).
pub const DURATION_MS: std::ops::RangeInclusive<u32> = 100..=15_000;
/// Most sessions one list returns.
pub const MAX_LIST: u32 = 500;
/// Sessions a list returns when no limit is given.
pub const DEFAULT_LIST: u32 = 100;
/// Viewport of a new session unless the action chooses one.
pub const DEFAULT_VIEWPORT: pb::Viewport = pb::Viewport {
    width: 1280,
    height: 720,
};

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

/// Checks one call against every rule before anything runs, so a bad call
/// creates and stores nothing.
pub fn validate(actions: &[BrowserAction]) -> Result<(), GatewayError> {
    let invalid = |m: String| Err(GatewayError::Invalid(m));
    if actions.is_empty() || actions.len() > MAX_ACTIONS {
        return invalid(format!(
            "actions must hold 1 to {MAX_ACTIONS} entries; got {}",
            actions.len()
        ));
    }
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, a) in actions.iter().enumerate() {
        if !a.session_id.is_empty() {
            let Ok(id) = uuid::Uuid::parse_str(&a.session_id) else {
                return invalid(format!(
                    "actions[{i}].sessionID must be a session UUID, or empty/null to create a session; got {:?}",
                    a.session_id.chars().take(64).collect::<String>()
                ));
            };
            if let Some(j) = seen.insert(id.to_string(), i) {
                return invalid(format!(
                    "actions[{i}].sessionID repeats actions[{j}].sessionID: each sessionID may appear only once in a call"
                ));
            }
            if a.viewport.is_some() {
                return invalid(format!(
                    "actions[{i}].width/height set the viewport of a new session and cannot be used with an existing sessionID"
                ));
            }
        }
        if let Some(v) = a.viewport {
            if !WIDTH.contains(&v.width) {
                return invalid(format!(
                    "actions[{i}].width must be {} to {}; got {}",
                    WIDTH.start(),
                    WIDTH.end(),
                    v.width
                ));
            }
            if !HEIGHT.contains(&v.height) {
                return invalid(format!(
                    "actions[{i}].height must be {} to {}; got {}",
                    HEIGHT.start(),
                    HEIGHT.end(),
                    v.height
                ));
            }
        }
        let Some(action) = &a.action else {
            return invalid(format!("actions[{i}] has no action"));
        };
        if action.max_duration_ms != 0 && !DURATION_MS.contains(&action.max_duration_ms) {
            return invalid(format!(
                "actions[{i}].maxDurationMs must be {} to {}; got {}",
                DURATION_MS.start(),
                DURATION_MS.end(),
                action.max_duration_ms
            ));
        }
        match &action.kind {
            None => return invalid(format!("actions[{i}] has no action")),
            Some(Kind::Navigate(nav)) => match &nav.target {
                None => {
                    return invalid(format!(
                        "actions[{i}] needs exactly one of url or html; got neither"
                    ));
                }
                Some(pb::navigate::Target::Url(u)) => validate_url(i, u)?,
                Some(pb::navigate::Target::Html(h)) => {
                    if h.len() > MAX_HTML_BYTES {
                        return invalid(format!(
                            "actions[{i}].html is {} bytes; the limit is {MAX_HTML_BYTES} bytes (1 MiB)",
                            h.len()
                        ));
                    }
                }
            },
            Some(Kind::Evaluate(ev)) => {
                if ev.script.trim().is_empty() {
                    return invalid(format!("actions[{i}].script must not be empty"));
                }
                if ev.script.len() > MAX_SCRIPT_BYTES {
                    return invalid(format!(
                        "actions[{i}].script is {} bytes; the limit is {MAX_SCRIPT_BYTES} bytes (64 KiB)",
                        ev.script.len()
                    ));
                }
            }
            Some(Kind::Status(_) | Kind::Close(_)) => {
                if a.session_id.is_empty() {
                    return invalid(format!(
                        "actions[{i}].sessionID is required: it names the session to report on or close"
                    ));
                }
            }
            Some(Kind::RegisterFont(font)) => {
                if font.data.is_empty() || font.data.len() > MAX_FONT_BYTES {
                    return invalid(format!(
                        "actions[{i}].data is {} bytes; a font must be 1 to {MAX_FONT_BYTES} bytes (2 MiB)",
                        font.data.len()
                    ));
                }
            }
            Some(Kind::Inspect(_) | Kind::Screenshot(_) | Kind::Capabilities(_)) => {}
            Some(kind) => validate_page_action(i, &a.session_id, kind)?,
        }
    }
    Ok(())
}

/// Input, history, accessibility and dialog actions: they act on an open page.
fn validate_page_action(i: usize, session_id: &str, kind: &Kind) -> Result<(), GatewayError> {
    let invalid = |m: String| Err(GatewayError::Invalid(m));
    if session_id.is_empty() {
        return invalid(format!(
            "actions[{i}].sessionID is required: this action acts on the page of an open session"
        ));
    }
    let chars = |field: &str, value: &str, max: usize| -> Result<(), GatewayError> {
        let n = value.chars().count();
        if n > max {
            return Err(GatewayError::Invalid(format!(
                "actions[{i}].{field} is {n} characters; the limit is {max}"
            )));
        }
        Ok(())
    };
    match kind {
        Kind::Click(c) => validate_target(i, c.target.as_ref())?,
        Kind::Type(t) => {
            if let Some(target) = &t.target {
                validate_target(i, Some(target))?;
            }
            chars("text", &t.text, MAX_TYPE_CHARS)?;
        }
        Kind::PressKey(k) => {
            if k.key.trim().is_empty() {
                return invalid(format!("actions[{i}].key must not be empty"));
            }
            chars("key", &k.key, MAX_KEY_CHARS)?;
        }
        Kind::Scroll(sc) => {
            if let Some(target) = &sc.target {
                validate_target(i, Some(target))?;
            }
            for (field, d) in [("dx", sc.dx), ("dy", sc.dy)] {
                if !d.is_finite() || d.abs() > MAX_SCROLL {
                    return invalid(format!(
                        "actions[{i}].{field} must be a number from -{MAX_SCROLL} to {MAX_SCROLL}; got {d}"
                    ));
                }
            }
        }
        Kind::SelectOption(sel) => {
            validate_target(i, sel.target.as_ref())?;
            chars("value", &sel.value, MAX_TARGET_CHARS)?;
        }
        Kind::History(h)
            if !matches!(
                pb::history::Step::try_from(h.step),
                Ok(pb::history::Step::Back
                    | pb::history::Step::Forward
                    | pb::history::Step::Reload)
            ) =>
        {
            return invalid(format!("actions[{i}].step must be back, forward or reload"));
        }
        Kind::Accessibility(a) if a.max_nodes > MAX_A11Y_NODES => {
            return invalid(format!(
                "actions[{i}].maxNodes must be 1 to {MAX_A11Y_NODES}; got {}",
                a.max_nodes
            ));
        }
        Kind::DialogPolicy(d) => {
            if let Some(text) = &d.prompt_text {
                chars("promptText", text, MAX_PROMPT_CHARS)?;
            }
        }
        Kind::Wait(w) => {
            for (field, value) in [("selector", &w.selector), ("text", &w.text)] {
                if let Some(value) = value {
                    if value.trim().is_empty() {
                        return invalid(format!("actions[{i}].{field} must not be empty"));
                    }
                    chars(field, value, MAX_TARGET_CHARS)?;
                }
            }
            if w.time_ms > MAX_WAIT_MS {
                return invalid(format!(
                    "actions[{i}].timeMs must be 1 to {MAX_WAIT_MS}; got {}",
                    w.time_ms
                ));
            }
            if w.selector.is_none() && w.text.is_none() && w.time_ms == 0 {
                return invalid(format!(
                    "actions[{i}] needs something to wait for: a selector, a text or a timeMs"
                ));
            }
        }
        _ => {}
    }
    Ok(())
}

/// A target names exactly one element or point, within the limits.
fn validate_target(i: usize, target: Option<&pb::Target>) -> Result<(), GatewayError> {
    let invalid = |m: String| Err(GatewayError::Invalid(m));
    let Some(kind) = target.and_then(|t| t.kind.as_ref()) else {
        return invalid(format!(
            "actions[{i}] needs a target: exactly one of selector, visible text, ref or a point (x and y)"
        ));
    };
    let text = |field: &str, value: &str| -> Result<(), GatewayError> {
        if value.trim().is_empty() {
            return Err(GatewayError::Invalid(format!(
                "actions[{i}].{field} must not be empty"
            )));
        }
        let n = value.chars().count();
        if n > MAX_TARGET_CHARS {
            return Err(GatewayError::Invalid(format!(
                "actions[{i}].{field} is {n} characters; the limit is {MAX_TARGET_CHARS}"
            )));
        }
        Ok(())
    };
    match kind {
        pb::target::Kind::Selector(s) => text("selector", s),
        pb::target::Kind::Text(s) => text("text", s),
        pb::target::Kind::Ref(r) => {
            let well_formed = r.strip_prefix('e').is_some_and(|n| {
                !n.is_empty() && n.len() <= 20 && n.bytes().all(|b| b.is_ascii_digit())
            });
            if well_formed {
                Ok(())
            } else {
                invalid(format!(
                    "actions[{i}].ref must be an element reference such as \"e12\" from an accessibility tree; got {r:?}"
                ))
            }
        }
        pb::target::Kind::Point(p) => {
            for (field, v) in [("x", p.x), ("y", p.y)] {
                if !v.is_finite() || !(0.0..=MAX_POINT).contains(&v) {
                    return invalid(format!(
                        "actions[{i}].{field} must be a number from 0 to {MAX_POINT}; got {v}"
                    ));
                }
            }
            Ok(())
        }
    }
}

fn validate_url(i: usize, raw: &str) -> Result<(), GatewayError> {
    if raw.chars().count() > MAX_URL_CHARS {
        return Err(GatewayError::Invalid(format!(
            "actions[{i}].url is {} characters; the limit is {MAX_URL_CHARS}",
            raw.chars().count()
        )));
    }
    let url = url::Url::parse(raw).map_err(|e| {
        GatewayError::Invalid(format!(
            "actions[{i}].url is not an absolute URL ({e}): {raw:?}"
        ))
    })?;
    check_form(&url).map_err(|e| GatewayError::Invalid(format!("actions[{i}].url: {e}")))
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

    /// The readiness report: `ready`, or which store is unreachable while the
    /// gateway serves in degraded mode.
    pub async fn readiness(&self) -> &'static str {
        match (self.store.ping().await, self.routing.ping().await) {
            (Ok(()), Ok(())) => "ready",
            (Err(_), Ok(())) => "ready (degraded: the database is unreachable)",
            (Ok(()), Err(_)) => "ready (degraded: Redis is unreachable)",
            (Err(_), Err(_)) => "ready (degraded: the database and Redis are unreachable)",
        }
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
        if row.status == "failed" {
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
                    status: r.status,
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
        let resp = match client.run(request).instrument(span).await {
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
            status: row.status.clone(),
            updated_at: rfc3339(row.updated_at),
            expires_at: rfc3339(row.expires_at),
            runtime_available,
            resumable: row.status == "active",
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

    fn nav(session: &str, url: &str) -> BrowserAction {
        BrowserAction {
            session_id: session.into(),
            viewport: None,
            action: Some(pb::Action {
                kind: Some(Kind::Navigate(pb::Navigate {
                    target: Some(pb::navigate::Target::Url(url.into())),
                })),
                max_duration_ms: 0,
            }),
        }
    }

    fn err(actions: &[BrowserAction]) -> String {
        validate(actions).unwrap_err().to_string()
    }

    #[test]
    fn twenty_actions_pass_and_twenty_one_are_refused() {
        let ok: Vec<_> = (0..20).map(|_| nav("", "https://example.com/")).collect();
        validate(&ok).unwrap();
        let too_many: Vec<_> = (0..21).map(|_| nav("", "https://example.com/")).collect();
        assert!(err(&too_many).contains("1 to 20"), "{}", err(&too_many));
        assert!(err(&[]).contains("got 0"));
    }

    #[test]
    fn malformed_and_duplicate_session_ids_are_refused_naming_the_field() {
        assert!(err(&[nav("not-a-uuid", "https://e.com/")]).contains("actions[0].sessionID"));
        let id = uuid::Uuid::new_v4().to_string();
        let e = err(&[
            nav(&id, "https://e.com/"),
            nav(&id.to_uppercase(), "https://e.com/"),
        ]);
        assert!(e.contains("only once"), "{e}");
    }

    #[test]
    fn html_and_script_limits_hold_at_their_edges() {
        let html = |n: usize| BrowserAction {
            session_id: String::new(),
            viewport: None,
            action: Some(pb::Action {
                kind: Some(Kind::Navigate(pb::Navigate {
                    target: Some(pb::navigate::Target::Html("a".repeat(n))),
                })),
                max_duration_ms: 0,
            }),
        };
        validate(&[html(MAX_HTML_BYTES)]).unwrap();
        assert!(err(&[html(MAX_HTML_BYTES + 1)]).contains("1 MiB"));
        let script = |n: usize| BrowserAction {
            session_id: String::new(),
            viewport: None,
            action: Some(pb::Action {
                kind: Some(Kind::Evaluate(pb::Evaluate {
                    script: "1".repeat(n),
                })),
                max_duration_ms: 0,
            }),
        };
        validate(&[script(MAX_SCRIPT_BYTES)]).unwrap();
        assert!(err(&[script(MAX_SCRIPT_BYTES + 1)]).contains("64 KiB"));
    }

    #[test]
    fn urls_must_be_http_without_credentials() {
        assert!(err(&[nav("", "file:///etc/passwd")]).contains("actions[0].url"));
        assert!(err(&[nav("", "https://u:p@example.com/")]).contains("credentials"));
        assert!(err(&[nav("", "/relative")]).contains("absolute"));
        let long = format!("https://example.com/{}", "a".repeat(MAX_URL_CHARS));
        assert!(err(&[nav("", &long)]).contains("2048"));
    }

    #[test]
    fn viewport_bounds_and_existing_sessions_are_checked() {
        let mut a = nav("", "https://e.com/");
        a.viewport = Some(pb::Viewport {
            width: 319,
            height: 720,
        });
        assert!(err(std::slice::from_ref(&a)).contains("width must be 320 to 1920"));
        a.viewport = Some(pb::Viewport {
            width: 1920,
            height: 1600,
        });
        validate(std::slice::from_ref(&a)).unwrap();
        a.session_id = uuid::Uuid::new_v4().to_string();
        assert!(err(&[a]).contains("existing sessionID"));
    }

    #[test]
    fn wait_limits_hold_at_their_edges_and_a_wait_needs_something_to_wait_for() {
        let wait = |selector: Option<&str>, text: Option<String>, time_ms| BrowserAction {
            session_id: uuid::Uuid::new_v4().to_string(),
            viewport: None,
            action: Some(pb::Action {
                kind: Some(Kind::Wait(pb::Wait {
                    selector: selector.map(str::to_owned),
                    text,
                    time_ms,
                })),
                max_duration_ms: 0,
            }),
        };
        validate(&[wait(None, None, MAX_WAIT_MS)]).unwrap();
        assert!(
            err(&[wait(None, None, MAX_WAIT_MS + 1)])
                .contains("timeMs must be 1 to 60000; got 60001")
        );
        assert!(err(&[wait(None, None, 0)]).contains("a selector, a text or a timeMs"));
        validate(&[wait(Some("#late"), None, 0)]).unwrap();
        validate(&[wait(None, Some("x".repeat(MAX_TARGET_CHARS)), 0)]).unwrap();
        assert!(
            err(&[wait(None, Some("x".repeat(MAX_TARGET_CHARS + 1)), 0)])
                .contains("actions[0].text is 1025 characters; the limit is 1024")
        );
        assert!(
            err(&[wait(Some("  "), None, 0)]).contains("actions[0].selector must not be empty")
        );
        let mut new_tab = wait(Some("#late"), None, 0);
        new_tab.session_id.clear();
        assert!(err(&[new_tab]).contains("sessionID is required"));
    }

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
