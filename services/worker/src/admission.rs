//! Admission to the engine: how many actions run engine code at once on this
//! worker, and in what order the rest wait.
//!
//! Without it every call runs at once and the engine yields to tokio on each
//! epoch tick, so under load the CPU is shared among all of them: each action
//! takes as long as all the work in flight, and the slowest run out of their
//! budgets. With a few lanes taken in arrival order, an action runs in about
//! its own time once admitted and waits about as long as the work ahead of it;
//! its budget starts when it is admitted.
//!
//! A page waiting on the network is not using the CPU, so while one of its
//! requests is out its action steps aside and the next action runs. When the
//! response comes it takes a lane back ahead of actions not yet started, so a
//! page's load is not queued again behind every later arrival.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use fleet_proto::v1::ErrorCode;
use tokio::sync::oneshot;
use tokio::time::Instant;

use crate::failure::Failure;

/// The lanes of one worker's engine.
#[derive(Clone)]
pub struct Admission {
    queues: Arc<Mutex<Queues>>,
}

/// Free lanes and who waits for one. A lane given back goes straight to the
/// first waiter, so `free` is non-zero only while nobody waits.
struct Queues {
    free: usize,
    /// Actions whose page's request has come back: served first.
    returning: VecDeque<oneshot::Sender<()>>,
    /// Actions not yet started, in arrival order.
    arriving: VecDeque<oneshot::Sender<()>>,
}

impl Admission {
    /// `lanes` actions may run engine code at once (at least one).
    pub fn new(lanes: usize) -> Self {
        Self {
            queues: Arc::new(Mutex::new(Queues {
                free: lanes.max(1),
                returning: VecDeque::new(),
                arriving: VecDeque::new(),
            })),
        }
    }

    fn queues(&self) -> MutexGuard<'_, Queues> {
        // Every critical section leaves the queues consistent, so a panic
        // elsewhere while one was held poisons nothing that matters.
        self.queues.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Waits for a lane, behind every action that arrived earlier, for at most
    /// `wait`. An action that gets none has not started, so it changed nothing.
    pub async fn enter(&self, wait: Duration) -> Result<Lane, Failure> {
        let started = Instant::now();
        let entered = self.take(false, Some(wait)).await;
        let waited = started.elapsed();
        fleet_telemetry::histogram!("fleet_worker_engine_wait_seconds")
            .record(waited.as_secs_f64());
        if entered {
            return Ok(Lane {
                admission: self.clone(),
                held: true,
            });
        }
        fleet_telemetry::counter!("fleet_worker_engine_wait_timeouts_total").increment(1);
        Err(Failure::new(
            ErrorCode::Unavailable,
            format!(
                "this worker's engine is busy: the action waited {} ms for its turn and did not start; try again",
                waited.as_millis()
            ),
        ))
    }

    /// A lane if one is free now, for work no caller waits for: it never
    /// queues, so it never delays an action.
    pub fn try_enter(&self) -> Option<Lane> {
        let mut q = self.queues();
        if q.free == 0 {
            return None;
        }
        q.free -= 1;
        Some(Lane {
            admission: self.clone(),
            held: true,
        })
    }

    /// Takes a lane, or queues for one (`returning` ahead of arrivals) for at
    /// most `wait` (forever without it). False when the wait ran out.
    async fn take(&self, returning: bool, wait: Option<Duration>) -> bool {
        let rx = {
            let mut q = self.queues();
            if q.free > 0 {
                q.free -= 1;
                return true;
            }
            let (tx, rx) = oneshot::channel();
            if returning {
                q.returning.push_back(tx);
            } else {
                q.arriving.push_back(tx);
            }
            rx
        };
        Ticket {
            rx: Some(rx),
            admission: self.clone(),
        }
        .wait(wait)
        .await
    }

    /// Hands a lane to the first waiter still waiting, or frees it.
    fn give_back(&self) {
        let mut q = self.queues();
        while let Some(next) = q.returning.pop_front().or_else(|| q.arriving.pop_front()) {
            if next.send(()).is_ok() {
                return;
            }
        }
        q.free += 1;
    }
}

/// A place in a queue. Dropped before its lane arrived (the wait ran out, or
/// the call was cancelled), it gives back a lane handed to it in the meantime.
struct Ticket {
    rx: Option<oneshot::Receiver<()>>,
    admission: Admission,
}

impl Ticket {
    async fn wait(mut self, limit: Option<Duration>) -> bool {
        let Some(rx) = self.rx.as_mut() else {
            return false;
        };
        // The senders live in the queues until they send, so a receive fails
        // only if the admission itself is gone.
        let got = match limit {
            None => rx.await.is_ok(),
            Some(limit) => matches!(tokio::time::timeout(limit, rx).await, Ok(Ok(()))),
        };
        if got {
            self.rx = None;
        }
        got
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        if let Some(mut rx) = self.rx.take() {
            rx.close();
            if rx.try_recv().is_ok() {
                self.admission.give_back();
            }
        }
    }
}

/// One action's lane, given back when dropped.
pub struct Lane {
    admission: Admission,
    held: bool,
}

impl Lane {
    /// Lets another action run while this one waits on the network.
    pub fn step_aside(&mut self) {
        if self.held {
            self.held = false;
            self.admission.give_back();
        }
    }

    /// Takes a lane again after [`Lane::step_aside`], ahead of actions that
    /// have not started. Every holder runs within its budget, so this wait is
    /// bounded without a limit of its own.
    pub async fn step_back(&mut self) {
        if !self.held {
            self.held = self.admission.take(true, None).await;
        }
    }
}

impl Drop for Lane {
    fn drop(&mut self) {
        if self.held {
            self.admission.give_back();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn free(admission: &Admission) -> usize {
        admission.queues().free
    }

    #[tokio::test(start_paused = true)]
    async fn actions_take_lanes_in_arrival_order() {
        let admission = Admission::new(1);
        let first = admission.enter(Duration::from_secs(1)).await.unwrap();
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut waiting = Vec::new();
        for n in 0..3 {
            let (admission, order) = (admission.clone(), order.clone());
            waiting.push(tokio::spawn(async move {
                let lane = admission.enter(Duration::from_secs(60)).await.unwrap();
                order.lock().unwrap().push(n);
                tokio::time::sleep(Duration::from_millis(10)).await;
                drop(lane);
            }));
            // Each waiter queues before the next one arrives.
            tokio::task::yield_now().await;
        }
        drop(first);
        for w in waiting {
            w.await.unwrap();
        }
        assert_eq!(*order.lock().unwrap(), vec![0, 1, 2]);
        assert_eq!(free(&admission), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn an_action_that_waits_past_its_limit_is_refused_and_names_the_wait() {
        let admission = Admission::new(2);
        let _a = admission.enter(Duration::from_secs(1)).await.unwrap();
        let _b = admission.enter(Duration::from_secs(1)).await.unwrap();
        let started = tokio::time::Instant::now();
        let Err(refused) = admission.enter(Duration::from_millis(250)).await else {
            panic!("a third action entered two lanes");
        };
        assert_eq!(started.elapsed(), Duration::from_millis(250));
        let proto = refused.into_proto();
        assert_eq!(proto.code, ErrorCode::Unavailable as i32);
        assert!(proto.message.contains("waited 250 ms"), "{}", proto.message);
    }

    #[tokio::test(start_paused = true)]
    async fn an_action_back_from_the_network_goes_ahead_of_new_arrivals() {
        let admission = Admission::new(1);
        let mut loading = admission.enter(Duration::from_secs(1)).await.unwrap();
        loading.step_aside();
        // Another action runs while the page waits on its response.
        let other = admission.enter(Duration::from_secs(1)).await.unwrap();
        let later = {
            let admission = admission.clone();
            tokio::spawn(async move { admission.enter(Duration::from_secs(60)).await.is_ok() })
        };
        tokio::task::yield_now().await;
        let back = tokio::spawn(async move {
            loading.step_back().await;
            loading
        });
        tokio::task::yield_now().await;
        drop(other);
        let loading = back.await.unwrap();
        assert!(
            !later.is_finished(),
            "a new arrival went ahead of the returning page"
        );
        drop(loading);
        assert!(later.await.unwrap());
        assert_eq!(free(&admission), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn a_cancelled_wait_loses_no_lane() {
        let admission = Admission::new(1);
        let first = admission.enter(Duration::from_secs(1)).await.unwrap();
        let cancelled = {
            let admission = admission.clone();
            tokio::spawn(async move { admission.enter(Duration::from_secs(60)).await.is_ok() })
        };
        tokio::task::yield_now().await;
        // The lane is handed to the queued action, which is cancelled before
        // it runs: the lane must come back.
        drop(first);
        cancelled.abort();
        let _ = cancelled.await;
        assert_eq!(free(&admission), 1);
        let timed_out = admission.enter(Duration::from_millis(1)).await;
        assert!(timed_out.is_ok());
    }
}
