//! Live sessions on this worker. Each session is a slot behind an async mutex, so
//! calls to one session run in arrival order while different sessions run at once.
//! A call checks the routing epoch (fencing), creates or restores the tab, runs the
//! action under its deadline, checkpoints the tab to the store, then answers.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use fleet_proto::v1::{
    self as pb, ActionError, ActionOutput, ErrorCode, action::Kind, action_output,
};
use fleet_proto::{MAX_FONT_BYTES, MAX_FONTS_PER_SESSION};
use fleet_store::{Routing, SessionStore, StoreError};

use crate::checkpoint::{self, Checkpoint};
use crate::host::{
    DialogPolicy, EngineHost, EvalError, Link, Scroll, SelectOption, Settle, Source, Summary,
    Support, Tab, TabError, Target, Traversal, TypeText, UserInput, Viewport, WaitError, WaitFor,
};

/// Default and largest per-action time budgets (DESIGN §7).
pub const DEFAULT_BUDGET_MS: u32 = 10_000;
/// The largest budget an action may ask for.
pub const MAX_BUDGET_MS: u32 = 15_000;
/// Time allowed for a checkpoint or a restore step.
const HOUSEKEEPING: Duration = Duration::from_secs(10);

struct Slot {
    tab: Option<Tab>,
    epoch: u64,
    last_used: Instant,
    /// Set when the slot left the map (evicted, drained): a caller that was
    /// waiting on its lock must fetch the session's current slot instead.
    gone: bool,
}

/// Everything a session needs from the worker.
#[derive(Clone)]
pub struct Sessions {
    inner: Arc<Inner>,
}

struct Inner {
    worker_id: String,
    capacity: u32,
    host: EngineHost,
    store: Arc<dyn SessionStore>,
    routing: Arc<dyn Routing>,
    slots: Mutex<HashMap<String, Arc<tokio::sync::Mutex<Slot>>>>,
    session_ttl_ms: i64,
    draining: AtomicBool,
    /// Wakes the heartbeat when the number of live sessions changes, so the
    /// registry's load figures (which the gateway balances on) stay current.
    load_changed: tokio::sync::Notify,
}

/// Why a call did not run.
#[derive(Debug)]
pub enum RunError {
    /// Refused before anything ran (not the owner, draining, at capacity): the
    /// gateway may safely send it to another worker.
    Refused(String),
    /// Ran, or may have run, and failed: the agent sees this.
    Failed(Failure),
}

impl From<Failure> for RunError {
    fn from(f: Failure) -> Self {
        Self::Failed(f)
    }
}

impl From<TabError> for RunError {
    fn from(e: TabError) -> Self {
        Self::Failed(e.into())
    }
}

/// A failed call, with the code the agent sees.
#[derive(Debug)]
pub struct Failure {
    code: ErrorCode,
    message: String,
}

impl Failure {
    fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }

    /// As the protocol's error message.
    pub fn into_proto(self) -> ActionError {
        ActionError {
            message: self.message,
            code: self.code as i32,
        }
    }
}

impl From<TabError> for Failure {
    fn from(e: TabError) -> Self {
        let code = match e {
            TabError::Timeout(_) => ErrorCode::Timeout,
            TabError::Trap(_) => ErrorCode::EngineFailed,
        };
        Failure::new(code, e.to_string())
    }
}

fn store_failure(e: StoreError) -> Failure {
    match e {
        StoreError::StaleEpoch { .. } => Failure::new(
            ErrorCode::Unavailable,
            "the session moved to another worker; retry the call",
        ),
        other => {
            tracing::error!(error = %other, "store failed");
            Failure::new(ErrorCode::Internal, "the session store is unavailable")
        }
    }
}

fn links(links: Vec<Link>) -> Vec<pb::Link> {
    links
        .into_iter()
        .map(|l| pb::Link {
            text: l.text,
            href: l.href,
        })
        .collect()
}

fn page(s: Summary) -> pb::Page {
    pb::Page {
        url: s.url,
        title: s.title,
        text: s.text,
        links: links(s.links),
        load_error: s.load_error,
        fields: s
            .fields
            .into_iter()
            .map(|f| pb::Field {
                r#ref: f.ref_,
                kind: f.kind,
                name: f.name,
                label: f.label,
                value: f.value,
                checked: f.checked,
            })
            .collect(),
        settle: match s.settle {
            Settle::Settled => "settled",
            Settle::Quiet => "quiet",
            Settle::Budget => "budget",
        }
        .to_owned(),
        dialogs: s
            .dialogs
            .into_iter()
            .map(|d| pb::Dialog {
                kind: d.kind,
                message: d.message,
                accepted: d.accepted,
                answer: d.answer,
            })
            .collect(),
        console: s
            .console
            .into_iter()
            .map(|c| pb::ConsoleEntry {
                level: c.level,
                text: c.text,
            })
            .collect(),
        frames: s
            .frames
            .into_iter()
            .map(|f| pb::Frame {
                url: f.url,
                title: f.title,
                text: f.text,
                links: links(f.links),
            })
            .collect(),
        readable: Some(pb::Readable {
            title: s.readable.title,
            byline: s.readable.byline,
            published: s.readable.published,
            site_name: s.readable.site_name,
            excerpt: s.readable.excerpt,
            content: s.readable.content,
        }),
    }
}

/// The engine's form of an input target.
fn target(t: Option<pb::Target>) -> Result<Target, Failure> {
    match t.and_then(|t| t.kind) {
        Some(pb::target::Kind::Selector(s)) => Ok(Target::Selector(s)),
        Some(pb::target::Kind::Text(s)) => Ok(Target::Text(s)),
        Some(pb::target::Kind::Ref(s)) => Ok(Target::Ref(s)),
        Some(pb::target::Kind::Point(p)) => Ok(Target::Point((p.x, p.y))),
        None => Err(Failure::new(
            ErrorCode::InvalidArgument,
            "the action needs a target: selector, text, ref or point",
        )),
    }
}

/// Width and height from a PNG's IHDR chunk.
fn png_size(png: &[u8]) -> (u32, u32) {
    let be = |r: std::ops::Range<usize>| {
        png.get(r)
            .and_then(|b| <[u8; 4]>::try_from(b).ok())
            .map_or(0, u32::from_be_bytes)
    };
    (be(16..20), be(20..24))
}

impl Sessions {
    /// Sessions backed by `host`, checkpointed to `store`, fenced by `routing`.
    pub fn new(
        worker_id: String,
        capacity: u32,
        host: EngineHost,
        store: Arc<dyn SessionStore>,
        routing: Arc<dyn Routing>,
        session_ttl_ms: i64,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                worker_id,
                capacity,
                host,
                store,
                routing,
                slots: Mutex::new(HashMap::new()),
                session_ttl_ms,
                draining: AtomicBool::new(false),
                load_changed: tokio::sync::Notify::new(),
            }),
        }
    }

    /// This worker's ID.
    pub fn worker_id(&self) -> &str {
        &self.inner.worker_id
    }

    /// How many sessions are live.
    pub fn live(&self) -> u32 {
        u32::try_from(self.lock_slots().len()).unwrap_or(u32::MAX)
    }

    /// The configured capacity.
    pub fn capacity(&self) -> u32 {
        self.inner.capacity
    }

    fn lock_slots(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<String, Arc<tokio::sync::Mutex<Slot>>>> {
        // The map holds plain handles; a panic elsewhere cannot leave it half-written.
        self.inner.slots.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn slot(&self, session_id: &str) -> Result<Arc<tokio::sync::Mutex<Slot>>, RunError> {
        let mut slots = self.lock_slots();
        if let Some(slot) = slots.get(session_id) {
            return Ok(slot.clone());
        }
        if self.draining() {
            return Err(RunError::Refused("this worker is draining".into()));
        }
        if u32::try_from(slots.len()).unwrap_or(u32::MAX) >= self.inner.capacity {
            return Err(RunError::Refused("this worker is at capacity".into()));
        }
        let slot = Arc::new(tokio::sync::Mutex::new(Slot {
            tab: None,
            epoch: 0,
            last_used: Instant::now(),
            gone: false,
        }));
        slots.insert(session_id.to_owned(), slot.clone());
        self.inner.load_changed.notify_one();
        Ok(slot)
    }

    fn drop_slot(&self, session_id: &str) {
        self.lock_slots().remove(session_id);
        self.inner.load_changed.notify_one();
    }

    /// Resolves when the number of live sessions has changed.
    pub async fn load_changed(&self) {
        self.inner.load_changed.notified().await;
    }

    /// Runs one action of one session.
    pub async fn run(&self, mut req: pb::RunRequest) -> Result<ActionOutput, RunError> {
        let action = req
            .action
            .take()
            .ok_or_else(|| Failure::new(ErrorCode::InvalidArgument, "action is required"))?;
        let kind = action
            .kind
            .ok_or_else(|| Failure::new(ErrorCode::InvalidArgument, "action.kind is required"))?;
        let budget_ms = match action.max_duration_ms {
            0 => DEFAULT_BUDGET_MS,
            n => n.clamp(100, MAX_BUDGET_MS),
        };
        let budget = Duration::from_millis(u64::from(budget_ms));

        // Fencing: only the owner named by the current route may run the session.
        let route = self
            .inner
            .routing
            .route(&req.session_id)
            .await
            .map_err(store_failure)?;
        match route {
            Some(r) if r.worker == self.inner.worker_id && r.epoch == req.epoch => {}
            _ => {
                return Err(RunError::Refused(
                    "this worker does not own the session at that epoch".into(),
                ));
            }
        }

        let mut slot = loop {
            let slot = self.slot(&req.session_id)?.lock_owned().await;
            if !slot.gone {
                break slot;
            }
        };
        if slot.epoch != req.epoch {
            // A newer claim (or a first one): whatever was in memory is from an older
            // ownership and may be behind the store.
            slot.tab = None;
            slot.epoch = req.epoch;
        }
        if slot.tab.as_ref().is_none_or(Tab::poisoned) {
            slot.tab = None;
            if self.draining() {
                return Err(RunError::Refused("this worker is draining".into()));
            }
            let tab = self.open_tab(&req).await?;
            slot.tab = Some(tab);
        }
        let Some(tab) = slot.tab.as_mut() else {
            return Err(Failure::new(ErrorCode::Internal, "the session has no tab").into());
        };

        let result = execute(tab, kind, budget).await;
        // Checkpoint whatever the outcome, unless the instance is gone: a failed
        // action may still have changed state the agent will expect to find.
        let seen = result.as_ref().ok().and_then(page_of);
        if !tab.poisoned()
            && let Err(f) = self.checkpoint(&req.session_id, req.epoch, tab, seen).await
        {
            if f.code == ErrorCode::Unavailable {
                slot.gone = true;
                slot.tab = None;
                drop(slot);
                self.drop_slot(&req.session_id);
            }
            return Err(f.into());
        }
        slot.last_used = Instant::now();
        result.map_err(RunError::Failed)
    }

    async fn open_tab(&self, req: &pb::RunRequest) -> Result<Tab, Failure> {
        // A new session's row was written by the gateway a moment ago and the
        // request carries its viewport: reading the row back would only cost a
        // round trip on the way to the first page.
        let viewport = if req.create {
            req.viewport.map_or(
                Viewport {
                    width: 1280,
                    height: 720,
                },
                |v| Viewport {
                    width: v.width,
                    height: v.height,
                },
            )
        } else {
            let row = self
                .inner
                .store
                .session(&req.session_id)
                .await
                .map_err(store_failure)?
                .ok_or_else(|| Failure::new(ErrorCode::SessionNotFound, "session not found"))?;
            Viewport {
                width: row.width,
                height: row.height,
            }
        };
        let mut tab = self.inner.host.new_tab(viewport).await.map_err(|e| {
            tracing::error!(error = %e, "could not instantiate the engine");
            Failure::new(
                ErrorCode::EngineFailed,
                "could not start the session's engine",
            )
        })?;
        if req.create {
            return Ok(tab);
        }
        let stored = self
            .inner
            .store
            .load_checkpoint(&req.session_id)
            .await
            .map_err(store_failure)?;
        if let Some(stored) = stored {
            let started = Instant::now();
            match self.apply(&mut tab, stored.parts).await? {
                Ok(()) => {
                    fleet_telemetry::counter!("fleet_worker_restores_total").increment(1);
                    fleet_telemetry::histogram!("fleet_worker_restore_seconds")
                        .record(started.elapsed().as_secs_f64());
                    tracing::debug!(session = %req.session_id, "restored");
                }
                Err(reason) => {
                    // A checkpoint that cannot be applied will not apply next time
                    // either: the session is failed, with the reason, for the agent.
                    let reason = format!("the session could not be restored: {reason}");
                    if let Err(e) = self.inner.store.mark_failed(&req.session_id, &reason).await {
                        tracing::warn!(error = %e, "could not mark the session failed");
                    }
                    return Err(Failure::new(ErrorCode::EngineFailed, reason));
                }
            }
        }
        Ok(tab)
    }

    /// Applies a stored checkpoint to a fresh tab: cookies first (the engine's
    /// restore reloads the page, which must already send them), then fonts (the
    /// page lays out with them), then the engine's own parts. The inner error is
    /// why the checkpoint cannot be applied.
    async fn apply(
        &self,
        tab: &mut Tab,
        parts: Vec<(String, Vec<u8>)>,
    ) -> Result<Result<(), String>, Failure> {
        let checkpoint = match Checkpoint::from_parts(parts) {
            Ok(c) => c,
            Err(reason) => return Ok(Err(reason)),
        };
        if let Err(reason) = tab.set_cookie_state(&checkpoint.cookies) {
            return Ok(Err(reason));
        }
        for (i, font) in checkpoint.fonts.into_iter().enumerate() {
            if let Err(reason) = tab.register_font(font, HOUSEKEEPING).await? {
                return Ok(Err(format!(
                    "registered font {} was refused: {reason}",
                    i + 1
                )));
            }
        }
        Ok(tab
            .restore(&checkpoint.engine, HOUSEKEEPING)
            .await?
            .map(|_| ()))
    }

    /// Saves the tab. `seen` is the page the action just returned, if any, so the
    /// page is not read a second time for its URL and title.
    async fn checkpoint(
        &self,
        session_id: &str,
        epoch: u64,
        tab: &mut Tab,
        seen: Option<(String, String)>,
    ) -> Result<(), Failure> {
        let started = Instant::now();
        let engine = tab.snapshot(HOUSEKEEPING).await?;
        let cookies = tab
            .cookie_state()
            .map_err(|m| Failure::new(ErrorCode::Internal, m))?;
        let (url, title) = match seen {
            Some(page) => page,
            None => {
                let summary = tab.inspect(HOUSEKEEPING).await?;
                (summary.url, summary.title)
            }
        };
        let parts = checkpoint::parts(&engine, &cookies, tab.fonts());
        let cost = self
            .inner
            .store
            .save_checkpoint(
                session_id,
                epoch,
                &parts,
                &url,
                &title,
                self.inner.session_ttl_ms,
            )
            .await
            .map_err(store_failure)?;
        fleet_telemetry::counter!("fleet_worker_checkpoints_total").increment(1);
        fleet_telemetry::histogram!("fleet_worker_checkpoint_seconds")
            .record(started.elapsed().as_secs_f64());
        fleet_telemetry::counter!("fleet_worker_checkpoint_parts_written_total")
            .increment(u64::from(cost.parts_written));
        fleet_telemetry::counter!("fleet_worker_checkpoint_parts_unchanged_total")
            .increment(u64::from(cost.parts_unchanged));
        fleet_telemetry::counter!("fleet_worker_checkpoint_bytes_total")
            .increment(cost.bytes_written);
        Ok(())
    }

    /// Whether the worker is draining.
    pub fn draining(&self) -> bool {
        self.inner.draining.load(Ordering::SeqCst)
    }

    /// Takes a slot out of service: its last checkpoint is in the store, so the
    /// session's next call restores it wherever the gateway routes it.
    async fn retire(&self, id: &str, slot: &mut Slot) {
        slot.gone = true;
        slot.tab = None;
        {
            let mut slots = self.lock_slots();
            slots.remove(id);
            self.inner.load_changed.notify_one();
        }
        if let Err(e) = self
            .inner
            .routing
            .release(id, &self.inner.worker_id, slot.epoch)
            .await
        {
            tracing::warn!(session = %id, error = %e, "could not release the route");
        }
    }

    fn all_slots(&self) -> Vec<(String, Arc<tokio::sync::Mutex<Slot>>)> {
        self.lock_slots()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    /// Evicts sessions unused for `idle`; a session busy now is left alone.
    /// Returns how many were evicted.
    pub async fn evict_idle(&self, idle: Duration) -> usize {
        let mut evicted = 0;
        for (id, slot) in self.all_slots() {
            let Ok(mut slot) = slot.try_lock() else {
                continue;
            };
            if !slot.gone && slot.last_used.elapsed() >= idle {
                self.retire(&id, &mut slot).await;
                evicted += 1;
                fleet_telemetry::counter!("fleet_worker_evictions_total").increment(1);
                tracing::debug!(session = %id, "evicted idle session");
            }
        }
        evicted
    }

    /// Drains the worker: refuses new sessions from now on, lets calls in flight
    /// finish (each slot's lock waits for its call), then retires every session.
    pub async fn drain(&self) {
        self.inner.draining.store(true, Ordering::SeqCst);
        for (id, slot) in self.all_slots() {
            let mut slot = slot.lock().await;
            if !slot.gone {
                self.retire(&id, &mut slot).await;
            }
        }
    }
}

/// The URL and title of the page an action's output carries.
fn page_of(output: &ActionOutput) -> Option<(String, String)> {
    let page = match output.kind.as_ref()? {
        action_output::Kind::Page(p) => p,
        action_output::Kind::Evaluate(e) => e.page.as_ref()?,
        action_output::Kind::Screenshot(s) => s.page.as_ref()?,
        action_output::Kind::Accessibility(a) => a.page.as_ref()?,
        action_output::Kind::Status(_)
        | action_output::Kind::Closed(_)
        | action_output::Kind::Font(_)
        | action_output::Kind::Capabilities(_) => return None,
    };
    Some((page.url.clone(), page.title.clone()))
}

/// Accessibility tree nodes listed when the action names no cap.
const DEFAULT_A11Y_NODES: u32 = 500;
/// Page time a wait for a selector or text allows when the action sets none, ms.
const DEFAULT_WAIT_MS: u32 = 10_000;
/// Most page time one wait may take, ms.
const MAX_WAIT_MS: u32 = 60_000;
/// Most accessibility tree nodes one action may ask for.
const MAX_A11Y_NODES: u32 = 5_000;

/// An input action; a target that matched nothing is the caller's mistake.
async fn input(
    tab: &mut Tab,
    action: &UserInput,
    budget: Duration,
) -> Result<action_output::Kind, Failure> {
    match tab.input(action, budget).await? {
        Ok(summary) => Ok(action_output::Kind::Page(page(summary))),
        Err(reason) => Err(Failure::new(ErrorCode::InvalidArgument, reason)),
    }
}

async fn execute(tab: &mut Tab, kind: Kind, budget: Duration) -> Result<ActionOutput, Failure> {
    let output = match kind {
        Kind::Navigate(nav) => {
            let src = match nav.target {
                Some(pb::navigate::Target::Url(u)) => Source::Url(u),
                Some(pb::navigate::Target::Html(h)) => Source::Html(h),
                None => {
                    return Err(Failure::new(
                        ErrorCode::InvalidArgument,
                        "navigate needs url or html",
                    ));
                }
            };
            action_output::Kind::Page(page(tab.load(src, budget).await?))
        }
        Kind::Inspect(_) => action_output::Kind::Page(page(tab.inspect(budget).await?)),
        Kind::Evaluate(ev) => match tab.evaluate(&ev.script, budget).await? {
            Ok(value_json) => action_output::Kind::Evaluate(pb::EvaluateResult {
                value_json,
                page: Some(page(tab.inspect(budget).await?)),
            }),
            Err(EvalError::Exception(m)) => {
                return Err(Failure::new(
                    ErrorCode::ScriptError,
                    format!("the script threw: {m}"),
                ));
            }
            Err(EvalError::Unserializable(m)) => {
                return Err(Failure::new(
                    ErrorCode::ScriptError,
                    format!("the script's value cannot be returned as JSON: {m}"),
                ));
            }
        },
        Kind::Screenshot(shot) => match tab.screenshot(shot.full_page, budget).await? {
            Ok(png) => {
                let (width, height) = png_size(&png);
                action_output::Kind::Screenshot(pb::ScreenshotResult {
                    png,
                    width,
                    height,
                    page: Some(page(tab.inspect(budget).await?)),
                })
            }
            Err(reason) => {
                return Err(Failure::new(
                    ErrorCode::EngineFailed,
                    format!("the screenshot failed: {reason}"),
                ));
            }
        },
        Kind::RegisterFont(font) => {
            if tab.fonts().len() >= MAX_FONTS_PER_SESSION {
                return Err(Failure::new(
                    ErrorCode::InvalidArgument,
                    format!(
                        "the session already has {MAX_FONTS_PER_SESSION} registered fonts, the most one session may have"
                    ),
                ));
            }
            if font.data.is_empty() || font.data.len() > MAX_FONT_BYTES {
                return Err(Failure::new(
                    ErrorCode::InvalidArgument,
                    format!(
                        "the font is {} bytes; it must be 1 to {MAX_FONT_BYTES} bytes",
                        font.data.len()
                    ),
                ));
            }
            match tab.register_font(font.data, budget).await? {
                Ok(families) => action_output::Kind::Font(pb::FontRegistered {
                    families,
                    font_count: u32::try_from(tab.fonts().len()).unwrap_or(u32::MAX),
                }),
                Err(reason) => {
                    return Err(Failure::new(
                        ErrorCode::InvalidArgument,
                        format!("the font was refused: {reason}"),
                    ));
                }
            }
        }
        Kind::Click(click) => {
            let action = UserInput::Click(target(click.target)?);
            input(tab, &action, budget).await?
        }
        Kind::Type(typing) => {
            let action = UserInput::TypeText(TypeText {
                target: typing.target.map(|t| target(Some(t))).transpose()?,
                text: typing.text,
                clear: typing.clear,
            });
            input(tab, &action, budget).await?
        }
        Kind::PressKey(press) => input(tab, &UserInput::Press(press.key), budget).await?,
        Kind::Scroll(scroll) => {
            let action = UserInput::Scroll(Scroll {
                target: scroll.target.map(|t| target(Some(t))).transpose()?,
                dx: scroll.dx,
                dy: scroll.dy,
            });
            input(tab, &action, budget).await?
        }
        Kind::SelectOption(select) => {
            let action = UserInput::Select(SelectOption {
                target: target(select.target)?,
                value: select.value,
            });
            input(tab, &action, budget).await?
        }
        Kind::History(history) => {
            let step = match pb::history::Step::try_from(history.step) {
                Ok(pb::history::Step::Back) => Traversal::Back,
                Ok(pb::history::Step::Forward) => Traversal::Forward,
                Ok(pb::history::Step::Reload) => Traversal::Reload,
                _ => {
                    return Err(Failure::new(
                        ErrorCode::InvalidArgument,
                        "history needs a step: back, forward or reload",
                    ));
                }
            };
            action_output::Kind::Page(page(tab.traverse(step, budget).await?))
        }
        Kind::Accessibility(a11y) => {
            let max_nodes = if a11y.max_nodes == 0 {
                DEFAULT_A11Y_NODES
            } else {
                a11y.max_nodes.min(MAX_A11Y_NODES)
            };
            let tree = tab.accessibility(max_nodes, budget).await?;
            action_output::Kind::Accessibility(pb::AccessibilityResult {
                tree: tree.text,
                nodes: tree.nodes,
                truncated: tree.truncated,
                page: Some(page(tab.inspect(budget).await?)),
            })
        }
        Kind::Capabilities(_) => {
            let report = tab.capabilities(budget).await?;
            action_output::Kind::Capabilities(pb::CapabilitiesResult {
                capabilities: report
                    .into_iter()
                    .map(|c| pb::Capability {
                        name: c.name,
                        support: match c.support {
                            Support::Supported => "supported",
                            Support::Partial => "partial",
                            Support::Unsupported => "unsupported",
                            Support::Unverified => "unverified",
                        }
                        .to_owned(),
                        reason: c.reason,
                    })
                    .collect(),
            })
        }
        Kind::Wait(wait) => {
            let has_condition = wait.selector.is_some() || wait.text.is_some();
            let page_ms = match wait.time_ms {
                0 if has_condition => DEFAULT_WAIT_MS,
                0 => {
                    return Err(Failure::new(
                        ErrorCode::InvalidArgument,
                        "wait needs a selector, a text or a timeMs",
                    ));
                }
                ms => ms.min(MAX_WAIT_MS),
            };
            let until = WaitFor {
                selector: wait.selector,
                text: wait.text,
                page_ms,
            };
            match tab.wait(&until, budget).await? {
                Ok(summary) => action_output::Kind::Page(page(summary)),
                Err(WaitError::InvalidSelector(reason)) => {
                    return Err(Failure::new(ErrorCode::InvalidArgument, reason));
                }
                Err(WaitError::Unmet(reason)) => {
                    return Err(Failure::new(ErrorCode::Timeout, reason));
                }
            }
        }
        Kind::DialogPolicy(policy) => {
            let policy = DialogPolicy {
                accept: policy.accept,
                prompt_text: policy.prompt_text,
            };
            tab.set_dialog_policy(&policy, budget).await?;
            action_output::Kind::Page(page(tab.inspect(budget).await?))
        }
        Kind::Status(_) | Kind::Close(_) => {
            return Err(Failure::new(
                ErrorCode::InvalidArgument,
                "session status and close are answered by the gateway, not a worker",
            ));
        }
    };
    Ok(ActionOutput { kind: Some(output) })
}
