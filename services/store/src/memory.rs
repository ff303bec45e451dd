//! In-process routing for one-process mode: the same contract as Redis, held in a
//! mutex, with expiry computed on read.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use async_trait::async_trait;

use crate::{Route, Routing, StoreError, WorkerInfo};

/// Routing held in this process.
#[derive(Default)]
pub struct MemoryRouting {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    routes: HashMap<String, Route>,
    workers: HashMap<String, (WorkerInfo, Instant)>,
    pending: HashMap<String, Instant>,
    /// Session → (holder, lease end).
    control: HashMap<String, (String, Instant)>,
}

impl MemoryRouting {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A poisoned lock only means another thread panicked mid-update of plain
        // maps; the maps stay usable.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[async_trait]
impl Routing for MemoryRouting {
    async fn heartbeat(&self, info: &WorkerInfo, ttl: Duration) -> Result<(), StoreError> {
        self.lock()
            .workers
            .insert(info.id.clone(), (info.clone(), Instant::now() + ttl));
        Ok(())
    }

    async fn deregister(&self, worker_id: &str) -> Result<(), StoreError> {
        self.lock().workers.remove(worker_id);
        Ok(())
    }

    async fn workers(&self) -> Result<Vec<WorkerInfo>, StoreError> {
        let now = Instant::now();
        let mut inner = self.lock();
        inner.workers.retain(|_, (_, until)| *until > now);
        Ok(inner.workers.values().map(|(w, _)| w.clone()).collect())
    }

    async fn route(&self, session_id: &str) -> Result<Option<Route>, StoreError> {
        Ok(self
            .lock()
            .routes
            .get(session_id)
            .filter(|r| !r.worker.is_empty())
            .cloned())
    }

    async fn claim(&self, session_id: &str, worker: &str, floor: u64) -> Result<Route, StoreError> {
        let mut inner = self.lock();
        let current = inner.routes.get(session_id).map_or(0, |r| r.epoch);
        let route = Route {
            worker: worker.to_owned(),
            epoch: current.max(floor) + 1,
        };
        inner.routes.insert(session_id.to_owned(), route.clone());
        Ok(route)
    }

    async fn release(
        &self,
        session_id: &str,
        worker: &str,
        epoch: u64,
    ) -> Result<bool, StoreError> {
        let mut inner = self.lock();
        match inner.routes.get_mut(session_id) {
            Some(r) if r.worker == worker && r.epoch == epoch => {
                r.worker.clear();
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    async fn forget(&self, session_id: &str) -> Result<(), StoreError> {
        let mut inner = self.lock();
        inner.routes.remove(session_id);
        inner.control.remove(session_id);
        Ok(())
    }

    async fn ping(&self) -> Result<(), StoreError> {
        Ok(())
    }

    async fn note_pending(&self, session_id: &str, hold: Duration) -> Result<(), StoreError> {
        self.lock()
            .pending
            .insert(session_id.to_owned(), Instant::now() + hold);
        Ok(())
    }

    async fn pending(&self) -> Result<u32, StoreError> {
        let now = Instant::now();
        let mut inner = self.lock();
        inner.pending.retain(|_, until| *until > now);
        Ok(u32::try_from(inner.pending.len()).unwrap_or(u32::MAX))
    }

    async fn take_control(
        &self,
        session_id: &str,
        holder: &str,
        lease: Duration,
    ) -> Result<bool, StoreError> {
        let now = Instant::now();
        let mut inner = self.lock();
        let held = inner.control.get(session_id);
        if held.is_some_and(|(h, until)| h != holder && *until > now) {
            return Ok(false);
        }
        inner
            .control
            .insert(session_id.to_owned(), (holder.to_owned(), now + lease));
        Ok(true)
    }

    async fn release_control(&self, session_id: &str, holder: &str) -> Result<(), StoreError> {
        let mut inner = self.lock();
        if inner
            .control
            .get(session_id)
            .is_some_and(|(h, _)| h == holder)
        {
            inner.control.remove(session_id);
        }
        Ok(())
    }

    async fn controller(&self, session_id: &str) -> Result<Option<String>, StoreError> {
        let now = Instant::now();
        Ok(self
            .lock()
            .control
            .get(session_id)
            .filter(|(_, until)| *until > now)
            .map(|(h, _)| h.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn claims_increase_the_epoch_past_the_floor_and_release_keeps_it() {
        let r = MemoryRouting::default();
        let a = r.claim("s", "w1", 0).await.unwrap();
        assert_eq!(a.epoch, 1);
        let b = r.claim("s", "w2", 5).await.unwrap();
        assert_eq!((b.worker.as_str(), b.epoch), ("w2", 6));
        assert!(
            !r.release("s", "w1", 1).await.unwrap(),
            "stale owner released"
        );
        assert!(r.release("s", "w2", 6).await.unwrap());
        assert_eq!(r.route("s").await.unwrap(), None);
        assert_eq!(r.claim("s", "w1", 0).await.unwrap().epoch, 7);
    }

    #[tokio::test]
    async fn a_pending_session_counts_once_and_stops_counting_after_its_hold() {
        let r = MemoryRouting::default();
        r.note_pending("a", Duration::from_secs(60)).await.unwrap();
        r.note_pending("a", Duration::from_secs(60)).await.unwrap();
        r.note_pending("b", Duration::ZERO).await.unwrap();
        assert_eq!(r.pending().await.unwrap(), 1);
    }
}
