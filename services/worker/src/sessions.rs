//! Live sessions on this worker. Each session is a slot behind an async mutex, so
//! calls to one session run in arrival order while different sessions run at once.
//! A call checks the routing epoch (fencing), creates or restores the tab, runs the
//! action under its deadline, checkpoints the tab to the store, then answers.
//! While the store is unreachable the checkpoint waits in the [`Backlog`] and
//! the call still answers; while Redis is unreachable a session live here at
//! the call's epoch is still fenced by that epoch (no claim can happen then).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use fleet_proto::v1::{self as pb, ActionOutput, ErrorCode};
use fleet_store::{Routing, SessionStore, StoreError};
use tracing::Instrument as _;

use crate::actions::{execute, page_of, with_capabilities};
use crate::admission::Admission;
use crate::backlog::{Backlog, Unwritten};
use crate::checkpoint;
use crate::downloads;
use crate::failure::{NotSaved, store_failure};
// Kept under this module's path too, where callers first found them.
pub use crate::failure::{Failure, RunError};
use crate::host::{EngineHost, Tab};
use crate::recording::{self, Capture, Media};

mod restore;

// The per-action budgets live in fleet-proto, which the gateway reads too;
// kept under this module's path, where callers first found them.
pub use fleet_proto::{DEFAULT_BUDGET_MS, MAX_BUDGET_MS, MIN_BUDGET_MS};
/// Time allowed for a checkpoint or a restore step.
const HOUSEKEEPING: Duration = Duration::from_secs(10);

struct Slot {
    tab: Option<Tab>,
    /// The session's recording this worker captures, if one runs.
    recording: Option<Capture>,
    /// The document the session showed after its last action (events).
    last_url: String,
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
    /// Checkpoints written to memory while the store was unreachable.
    backlog: Backlog,
    /// Wakes the heartbeat when the number of live sessions changes, so the
    /// registry's load figures (which the gateway balances on) stay current.
    load_changed: tokio::sync::Notify,
    /// Recordings' rows and bytes; `None` without an object store.
    media: Option<Media>,
    events: crate::events::Publisher,
    /// Turns at the engine, taken in arrival order.
    admission: Admission,
}

impl Sessions {
    /// Prepares the engine host's shared state (the preludes' bytecode) and
    /// starts making the tab the first session takes.
    pub async fn warm(&self) -> anyhow::Result<()> {
        self.inner.host.warm().await?;
        self.inner.host.make_ready();
        Ok(())
    }

    /// Sessions backed by `host`, checkpointed to the backends' store, fenced
    /// by their routing, recorded to their media.
    pub fn new(
        worker_id: String,
        capacity: u32,
        host: EngineHost,
        backends: &crate::Backends,
        backlog_bytes: usize,
        admission: Admission,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                worker_id,
                capacity,
                host,
                store: backends.store.clone(),
                routing: backends.routing.clone(),
                slots: Mutex::new(HashMap::new()),
                session_ttl_ms: backends.session_ttl_ms,
                draining: AtomicBool::new(false),
                backlog: Backlog::new(backlog_bytes),
                load_changed: tokio::sync::Notify::new(),
                media: backends.media.clone(),
                events: crate::events::Publisher::new(backends.events.clone()),
                admission,
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
            recording: None,
            last_url: String::new(),
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
            n => n.clamp(MIN_BUDGET_MS, MAX_BUDGET_MS),
        };
        let budget = Duration::from_millis(u64::from(budget_ms));

        // Fencing: only the owner named by the current route may run the session.
        let fenced_by_memory = match self.inner.routing.route(&req.session_id).await {
            Ok(Some(r)) if r.worker == self.inner.worker_id && r.epoch == req.epoch => false,
            Ok(_) => {
                return Err(RunError::Refused(
                    "this worker does not own the session at that epoch".into(),
                ));
            }
            // Redis is away, so nobody can claim the session now: if it is live
            // here at this epoch (checked under its lock below), it is ours.
            Err(e) if e.is_outage() && self.lock_slots().contains_key(&req.session_id) => true,
            Err(e) => return Err(store_failure(e).into()),
        };

        let mut slot = loop {
            let slot = self.slot(&req.session_id)?.lock_owned().await;
            if !slot.gone {
                break slot;
            }
        };
        if fenced_by_memory {
            if slot.epoch != req.epoch || slot.tab.is_none() {
                return Err(Failure::new(
                    ErrorCode::Unavailable,
                    "the routing store is unavailable; try again shortly",
                )
                .into());
            }
            fleet_telemetry::counter!("fleet_worker_fenced_by_memory_total").increment(1);
        }
        if slot.epoch != req.epoch {
            // A newer claim (or a first one): whatever was in memory is from an older
            // ownership and may be behind the store.
            slot.tab = None;
            slot.recording = None;
            slot.epoch = req.epoch;
        }
        if slot.tab.as_ref().is_none_or(Tab::poisoned) {
            slot.tab = None;
            if self.draining() {
                return Err(RunError::Refused("this worker is draining".into()));
            }
            let tab = self
                .open_tab(&req)
                .instrument(tracing::info_span!("restore", create = req.create))
                .await?;
            slot.tab = Some(tab);
            if !req.create {
                slot.recording = recording::resume(
                    self.inner.media.as_ref(),
                    &self.inner.worker_id,
                    &req.session_id,
                )
                .await;
            }
        }
        let s = &mut *slot;
        let Some(tab) = s.tab.as_mut() else {
            return Err(Failure::new(ErrorCode::Internal, "the session has no tab").into());
        };
        // The action waits for its turn at the engine (a restore already
        // has one); its budget starts once it runs.
        if !tab.holds_lane() {
            tab.hold_lane(self.inner.admission.enter(budget).await?);
        }

        let started = std::time::Instant::now();
        let captures = recording::may_change_page(&kind);
        let media = self.inner.media.as_ref();
        let result = match kind {
            pb::action::Kind::Recording(r) => {
                let who = (self.inner.worker_id.as_str(), &self.inner.events);
                recording::run(media, who, &req, r, tab, &mut s.recording).await
            }
            kind => {
                let out = execute(tab, kind, budget)
                    .instrument(tracing::info_span!("engine.action"))
                    .await;
                let entries = [recording::capability(media), downloads::capability(media)];
                with_capabilities(out, entries)
            }
        };
        // Storing downloads and the checkpoint wait on the network, not the CPU.
        tab.leave_lane();
        let saved = downloads::store_pending(media, &req, tab).await;
        let events = &self.inner.events;
        events.after_action(&req.session_id, &mut s.last_url, &result, &saved, captures);
        fleet_telemetry::histogram!("fleet_worker_engine_seconds")
            .record(started.elapsed().as_secs_f64());
        // Checkpoint whatever the outcome, unless the instance is gone: a failed
        // action may still have changed state the agent will expect to find.
        let seen = result.as_ref().ok().and_then(page_of);
        if !tab.poisoned() {
            let saved = self
                .checkpoint(&req.session_id, req.epoch, tab, seen)
                .instrument(tracing::info_span!("checkpoint"))
                .await;
            match saved {
                Ok(()) => {}
                Err(NotSaved::Moved(f)) => {
                    slot.gone = true;
                    slot.tab = None;
                    drop(slot);
                    self.drop_slot(&req.session_id);
                    return Err(f.into());
                }
                Err(NotSaved::Failed(f)) => return Err(f.into()),
            }
        }
        slot.last_used = Instant::now();
        let frame = self
            .inner
            .media
            .clone()
            .filter(|_| captures && slot.recording.is_some());
        // What no caller waits for runs after the answer leaves: the task
        // holds the session's lock, so the session's next call (and its
        // eviction or drain) waits for it, but this call's caller does not.
        let span = tracing::info_span!("after_answer");
        let admission = self.inner.admission.clone();
        let host = self.inner.host.clone();
        tokio::spawn(after_answer(frame, admission, host, slot).instrument(span));
        result.map_err(RunError::Failed)
    }

    /// Saves the tab. `seen` is the page the action just returned, if any, so the
    /// page is not read a second time for its URL and title.
    async fn checkpoint(
        &self,
        session_id: &str,
        epoch: u64,
        tab: &mut Tab,
        seen: Option<(String, String)>,
    ) -> Result<(), NotSaved> {
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
        let saved = self
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
            .await;
        let cost = match saved {
            Ok(cost) => {
                // The caller holds the session's lock, so nothing queued for it
                // can be newer than what was just written.
                self.inner.backlog.superseded(session_id);
                cost
            }
            Err(e) if e.is_outage() => {
                let unwritten = Unwritten::new(epoch, &parts, &url, &title);
                return match self.inner.backlog.put(session_id, unwritten) {
                    Ok(()) => {
                        fleet_telemetry::counter!("fleet_worker_checkpoints_deferred_total")
                            .increment(1);
                        Ok(())
                    }
                    Err(_) => {
                        tracing::warn!(session = %session_id, "checkpoint backlog full");
                        Err(NotSaved::Failed(Failure::new(
                            ErrorCode::Unavailable,
                            "the session store is unavailable and this worker holds as many unwritten checkpoints as it may; the action ran but its state is not saved, try again shortly",
                        )))
                    }
                };
            }
            Err(e @ StoreError::StaleEpoch { .. }) => {
                return Err(NotSaved::Moved(store_failure(e)));
            }
            Err(e) => return Err(NotSaved::Failed(store_failure(e))),
        };
        fleet_telemetry::counter!("fleet_worker_checkpoints_total").increment(1);
        if cost.unsent {
            fleet_telemetry::counter!("fleet_worker_checkpoints_unsent_total").increment(1);
        }
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
        if let Some(mut capture) = slot.recording.take() {
            // Its frames are written before the session can be picked up
            // elsewhere, so the next segment follows the last frame.
            capture.settle().await;
        }
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
            // A session whose checkpoint is unwritten lives only here: keep it.
            if !slot.gone && slot.last_used.elapsed() >= idle && !self.inner.backlog.contains(&id) {
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
                if let Err(e) = self.write_unwritten(&id).await {
                    tracing::error!(session = %id, error = %e, "exiting with the session's newest checkpoint unwritten: its last calls are lost");
                }
                self.retire(&id, &mut slot).await;
            }
        }
    }

    /// How many checkpoints wait for the store.
    pub fn unwritten(&self) -> usize {
        self.inner.backlog.len()
    }

    /// Writes the session's unwritten checkpoint, if any; the caller holds the
    /// session's lock (or the session has left the map).
    async fn write_unwritten(&self, id: &str) -> Result<(), StoreError> {
        let Some(u) = self.inner.backlog.get(id) else {
            return Ok(());
        };
        let written = self
            .inner
            .store
            .save_checkpoint(
                id,
                u.epoch,
                &u.parts(),
                &u.url,
                &u.title,
                self.inner.session_ttl_ms,
            )
            .await;
        match written {
            Ok(_) => {
                fleet_telemetry::counter!("fleet_worker_checkpoints_flushed_total").increment(1);
                self.inner.backlog.written(id, &u);
                Ok(())
            }
            Err(StoreError::StaleEpoch { given, current }) => {
                // A newer owner restored and wrote the session meanwhile; this
                // copy is behind it by definition.
                tracing::warn!(session = %id, given, current, "dropping an unwritten checkpoint a newer owner superseded");
                self.inner.backlog.written(id, &u);
                Ok(())
            }
            Err(StoreError::NotFound) => {
                // The session was closed (its rows deleted) while this copy
                // waited: there is nothing left to keep it for.
                tracing::info!(session = %id, "dropping the unwritten checkpoint of a session that was closed");
                self.inner.backlog.written(id, &u);
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    /// Writes every unwritten checkpoint whose session is not busy (a busy
    /// session's call writes its own); stops at the first outage. Returns how
    /// many still wait.
    pub async fn flush_backlog(&self) -> usize {
        for id in self.inner.backlog.sessions() {
            let slot = self.lock_slots().get(&id).cloned();
            let guard = match slot {
                Some(slot) => match slot.try_lock_owned() {
                    Ok(guard) => Some(guard),
                    Err(_) => continue,
                },
                None => None,
            };
            match self.write_unwritten(&id).await {
                Ok(()) => {}
                Err(e) if e.is_outage() => break,
                Err(e) => {
                    tracing::error!(session = %id, error = %e, "an unwritten checkpoint cannot be written; dropping it");
                    if let Some(u) = self.inner.backlog.get(&id) {
                        self.inner.backlog.written(&id, &u);
                    }
                }
            }
            drop(guard);
        }
        self.inner.backlog.len()
    }
}

/// After a call's answer: the recording's frame of the page it left and
/// the engine's deferred work (`prepare`), holding the session's lock; then,
/// with the lock released, the compiles of the scripts the worker's tabs
/// missed in the code cache. The engine work runs on a lane only if one is
/// idle, so it never delays an action (a tab not prepared does that work on
/// its next navigation; a script not compiled is compiled by its tabs).
async fn after_answer(
    frame: Option<Media>,
    admission: Admission,
    host: EngineHost,
    mut slot: tokio::sync::OwnedMutexGuard<Slot>,
) {
    let s = &mut *slot;
    if let Some(media) = frame {
        recording::capture_after(&media, s.tab.as_mut(), &mut s.recording).await;
    }
    let Some(tab) = s.tab.as_mut().filter(|tab| !tab.poisoned()) else {
        return;
    };
    let Some(_lane) = admission.try_enter() else {
        return;
    };
    if let Err(e) = tab.prepare().await {
        // The tab is poisoned: its next call restores it from the checkpoint.
        tracing::warn!(error = %e, "the engine failed between calls");
    }
    // The scripts this call's pages missed in the code cache are no work of
    // the session's: its next call need not wait for them.
    drop(slot);
    if host.scripts_waiting() {
        let compiled = host.compile_scripts().await;
        tracing::debug!(compiled, "compiled page scripts for the code cache");
    }
}
