//! Which worker takes a new or restored session: the least loaded by fraction
//! of capacity, from one registry snapshot per call that each pick updates
//! (and the gateway's remembered registry too, for the calls a reused read
//! serves); and what is recorded when no worker has room.

use std::sync::Mutex;

use fleet_store::WorkerInfo;

use super::Dispatcher;

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
fn take_worker(ws: &mut [WorkerInfo]) -> Option<WorkerInfo> {
    let id = pick_worker(ws)?.id.clone();
    let w = ws.iter_mut().find(|w| w.id == id)?;
    w.live_sessions += 1;
    Some(w.clone())
}

/// The least loaded worker, for work that belongs to no session (it is not
/// counted against the worker: it holds no tab).
pub(super) fn least_loaded(workers: &Mutex<Vec<WorkerInfo>>) -> Option<WorkerInfo> {
    let ws = workers.lock().unwrap_or_else(|p| p.into_inner());
    pick_worker(&ws).or_else(|| ws.first()).cloned()
}

/// Keeps a worker that failed this call from being picked again in it.
pub(super) fn exclude(workers: &Mutex<Vec<WorkerInfo>>, id: &str) {
    let mut ws = workers.lock().unwrap_or_else(|p| p.into_inner());
    ws.retain(|w| w.id != id);
}

impl Dispatcher {
    /// Picks a worker for a new or restored session like [`take_worker`], by
    /// the counts the gateway remembers now, which include the sessions it
    /// placed since the call's snapshot was read
    /// ([`crate::recent::Recent::place`]).
    /// The call's registry snapshot may be a reused read (see
    /// [`crate::recent::REGISTRY_REUSE`]), so the registry is read again when
    /// it has no worker with room, and always after worker `failed` did not
    /// take the call (it, and others listed with it, may have gone).
    pub(super) async fn place(
        &self,
        workers: &Mutex<Vec<WorkerInfo>>,
        failed: Option<&str>,
    ) -> Option<WorkerInfo> {
        if failed.is_none()
            && let Some(w) = self.take(workers)
        {
            return Some(w);
        }
        if let Ok(mut fresh) = self.recent.read_workers(self.routing.workers()).await {
            fresh.retain(|w| Some(w.id.as_str()) != failed);
            *workers.lock().unwrap_or_else(|p| p.into_inner()) = fresh;
        }
        self.take(workers)
    }

    fn take(&self, workers: &Mutex<Vec<WorkerInfo>>) -> Option<WorkerInfo> {
        let mut ws = workers.lock().unwrap_or_else(|p| p.into_inner());
        self.recent.place(&mut ws, take_worker)
    }

    /// Records a session no worker had room for as demand the fleet could not
    /// meet; a failure to record it never fails the call.
    pub(super) async fn note_unplaced(&self, session_id: &str) {
        if let Err(e) = self
            .routing
            .note_pending(session_id, self.pending_window)
            .await
        {
            tracing::warn!(error = %e, "could not record a pending session");
        }
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
