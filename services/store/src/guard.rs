//! Outage guards: every call to Postgres or Redis passes through a [`Breaker`]
//! that bounds it in time and, once the backend is found unreachable, answers
//! [`StoreError::Unavailable`] at once for [`PROBE_INTERVAL`] instead of letting
//! each call wait out a connect or pool timeout. Callers then fall back to what
//! they remember (the gateway's recent keys and routes, the worker's unwritten
//! checkpoints) or answer `UNAVAILABLE` fast; the README's "Outages" says
//! what users see. A full connection pool is congestion, not an outage: see
//! [`Breaker::call`].

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

use async_trait::async_trait;

use crate::{
    Admission, Call, CheckpointWrite, Limiter, NewKey, Part, Route, Routing, SessionRow,
    SessionStore, StoreError, StoredCheckpoint, Tenant, TenantLimits, WorkerInfo,
};

/// How long a breaker answers `Unavailable` without trying after it found the
/// backend unreachable; also the retry hint clients get (`Retry-After`).
pub const PROBE_INTERVAL: Duration = Duration::from_secs(1);
/// Longest one SQL operation may take before it counts as an outage (a
/// checkpoint of a few MiB takes milliseconds on a healthy database).
pub const SQL_TIMEOUT: Duration = Duration::from_secs(3);
/// Longest wait for a pooled SQL connection: under load a healthy pool hands
/// one out in milliseconds, and past this the database counts as unreachable.
pub const SQL_ACQUIRE_TIMEOUT: Duration = Duration::from_secs(2);
/// Longest one Redis operation may take before it counts as an outage.
pub const REDIS_TIMEOUT: Duration = Duration::from_secs(2);

/// Checks a backend answers (its `ping`).
pub type Probe =
    Arc<dyn Fn() -> futures::future::BoxFuture<'static, Result<(), StoreError>> + Send + Sync>;

/// The circuit of one backend. Closed, every call goes through, bounded by a
/// timeout. An outage-class failure opens it: calls then fail at once, and a
/// background probe pings the backend every [`PROBE_INTERVAL`] until it
/// answers, which closes the circuit. No caller ever waits on the probe.
pub struct Breaker {
    backend: &'static str,
    timeout: Duration,
    probe: Probe,
    /// When the backend was found unreachable; `None` while it answers.
    down_since: Mutex<Option<Instant>>,
    /// Calls the backend answered (with a result or a logical error), ever:
    /// whether any moved while a call waited for a pooled connection tells a
    /// busy pool from an unreachable backend.
    answered: AtomicU64,
}

impl Breaker {
    /// A closed breaker for `backend` (`"postgres"`, `"redis"`), bounding each
    /// call to `timeout`; `probe` tells when the backend is back.
    pub fn new(backend: &'static str, timeout: Duration, probe: Probe) -> Arc<Self> {
        fleet_telemetry::gauge!("fleet_store_outage", "backend" => backend).set(0.0);
        Arc::new(Self {
            backend,
            timeout,
            probe,
            down_since: Mutex::new(None),
            answered: AtomicU64::new(0),
        })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, Option<Instant>> {
        // Holds a plain timestamp: a panic elsewhere cannot leave it half-written.
        self.down_since.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether the backend is known to be unreachable.
    pub fn is_down(&self) -> bool {
        self.state().is_some()
    }

    /// Runs `op` unless the circuit is open; an outage-class failure or a
    /// timeout opens it. A wait for a pooled connection that timed out while
    /// other calls were answered is congestion, not an outage: that call fails
    /// with `Unavailable` (it never reached the backend) and the circuit stays
    /// closed, so one busy moment does not send every caller into degraded
    /// mode.
    pub async fn call<T>(
        self: &Arc<Self>,
        op: impl Future<Output = Result<T, StoreError>>,
    ) -> Result<T, StoreError> {
        if self.is_down() {
            return Err(StoreError::Unavailable(self.backend));
        }
        let answered_before = self.answered.load(Ordering::Relaxed);
        match tokio::time::timeout(self.timeout, op).await {
            Err(_) => {
                self.trip(&format!("no answer within {:?}", self.timeout));
                Err(StoreError::Unavailable(self.backend))
            }
            Ok(Err(e))
                if e.is_pool_wait() && self.answered.load(Ordering::Relaxed) != answered_before =>
            {
                tracing::warn!(
                    backend = self.backend,
                    "store busy: a call found no free pooled connection in time while others were answered"
                );
                fleet_telemetry::counter!("fleet_store_busy_total", "backend" => self.backend)
                    .increment(1);
                Err(StoreError::Unavailable(self.backend))
            }
            Ok(Err(e)) if e.is_outage() => {
                self.trip(&e.to_string());
                Err(StoreError::Unavailable(self.backend))
            }
            Ok(answer) => {
                self.answered.fetch_add(1, Ordering::Relaxed);
                answer
            }
        }
    }

    fn trip(self: &Arc<Self>, why: &str) {
        {
            let mut state = self.state();
            if state.is_some() {
                return;
            }
            *state = Some(Instant::now());
        }
        tracing::warn!(
            backend = self.backend,
            error = why,
            "store unreachable: degraded mode"
        );
        fleet_telemetry::gauge!("fleet_store_outage", "backend" => self.backend).set(1.0);
        fleet_telemetry::counter!("fleet_store_outages_total", "backend" => self.backend)
            .increment(1);
        let breaker = self.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(PROBE_INTERVAL).await;
                let answered = tokio::time::timeout(breaker.timeout, (breaker.probe)()).await;
                if matches!(answered, Ok(Ok(()))) {
                    breaker.heal();
                    return;
                }
            }
        });
    }

    fn heal(&self) {
        if let Some(since) = self.state().take() {
            tracing::warn!(
                backend = self.backend,
                secs = since.elapsed().as_secs_f64(),
                "store reachable again"
            );
            fleet_telemetry::gauge!("fleet_store_outage", "backend" => self.backend).set(0.0);
        }
    }
}

/// A [`SessionStore`] behind a breaker.
pub struct GuardedStore {
    inner: Arc<dyn SessionStore>,
    breaker: Arc<Breaker>,
}

impl GuardedStore {
    /// Guards `inner` (named `backend` in logs and metrics).
    pub fn new(inner: Arc<dyn SessionStore>, backend: &'static str) -> Self {
        let pinged = inner.clone();
        let probe: Probe = Arc::new(move || {
            let inner = pinged.clone();
            Box::pin(async move { inner.ping().await })
        });
        Self {
            inner,
            breaker: Breaker::new(backend, SQL_TIMEOUT, probe),
        }
    }

    /// The breaker, for other contracts over the same database.
    pub fn breaker(&self) -> Arc<Breaker> {
        self.breaker.clone()
    }
}

#[async_trait]
impl SessionStore for GuardedStore {
    async fn create_key(&self, tenant: &str) -> Result<NewKey, StoreError> {
        self.breaker.call(self.inner.create_key(tenant)).await
    }
    async fn tenant_for_key(&self, key: &str) -> Result<Option<Tenant>, StoreError> {
        self.breaker.call(self.inner.tenant_for_key(key)).await
    }
    async fn key_count(&self) -> Result<u64, StoreError> {
        self.breaker.call(self.inner.key_count()).await
    }
    async fn ensure_tenant(&self, name: &str) -> Result<Tenant, StoreError> {
        self.breaker.call(self.inner.ensure_tenant(name)).await
    }
    async fn create_session(
        &self,
        id: &str,
        tenant_id: &str,
        width: u32,
        height: u32,
        ttl_ms: i64,
    ) -> Result<SessionRow, StoreError> {
        self.breaker
            .call(
                self.inner
                    .create_session(id, tenant_id, width, height, ttl_ms),
            )
            .await
    }
    async fn session(&self, id: &str) -> Result<Option<SessionRow>, StoreError> {
        self.breaker.call(self.inner.session(id)).await
    }
    async fn save_checkpoint(
        &self,
        id: &str,
        epoch: u64,
        parts: &[Part<'_>],
        url: &str,
        title: &str,
        ttl_ms: i64,
    ) -> Result<CheckpointWrite, StoreError> {
        self.breaker
            .call(
                self.inner
                    .save_checkpoint(id, epoch, parts, url, title, ttl_ms),
            )
            .await
    }
    async fn load_checkpoint(&self, id: &str) -> Result<Option<StoredCheckpoint>, StoreError> {
        self.breaker.call(self.inner.load_checkpoint(id)).await
    }
    async fn take_over(
        &self,
        id: &str,
        epoch: u64,
    ) -> Result<Option<StoredCheckpoint>, StoreError> {
        self.breaker.call(self.inner.take_over(id, epoch)).await
    }
    async fn list_sessions(
        &self,
        tenant_id: &str,
        limit: u32,
    ) -> Result<Vec<SessionRow>, StoreError> {
        self.breaker
            .call(self.inner.list_sessions(tenant_id, limit))
            .await
    }
    async fn delete_session(&self, id: &str, tenant_id: &str) -> Result<bool, StoreError> {
        self.breaker
            .call(self.inner.delete_session(id, tenant_id))
            .await
    }
    async fn delete_expired(&self) -> Result<u64, StoreError> {
        self.breaker.call(self.inner.delete_expired()).await
    }
    async fn mark_failed(&self, id: &str, reason: &str) -> Result<(), StoreError> {
        self.breaker.call(self.inner.mark_failed(id, reason)).await
    }
    async fn ping(&self) -> Result<(), StoreError> {
        self.breaker.call(self.inner.ping()).await
    }
    async fn tenant_limits(&self, tenant_id: &str) -> Result<TenantLimits, StoreError> {
        self.breaker.call(self.inner.tenant_limits(tenant_id)).await
    }
    async fn open_sessions(&self, tenant_id: &str) -> Result<u64, StoreError> {
        self.breaker.call(self.inner.open_sessions(tenant_id)).await
    }
    fn created(&self, id: &str) {
        self.inner.created(id);
    }
    fn degraded(&self) -> bool {
        self.breaker.is_down()
    }
}

/// A [`Routing`] behind a breaker.
pub struct GuardedRouting {
    inner: Arc<dyn Routing>,
    breaker: Arc<Breaker>,
}

impl GuardedRouting {
    /// Guards `inner` (named `backend` in logs and metrics).
    pub fn new(inner: Arc<dyn Routing>, backend: &'static str) -> Self {
        let pinged = inner.clone();
        let probe: Probe = Arc::new(move || {
            let inner = pinged.clone();
            Box::pin(async move { inner.ping().await })
        });
        Self {
            inner,
            breaker: Breaker::new(backend, REDIS_TIMEOUT, probe),
        }
    }
}

#[async_trait]
impl Routing for GuardedRouting {
    async fn heartbeat(&self, info: &WorkerInfo, ttl: Duration) -> Result<(), StoreError> {
        self.breaker.call(self.inner.heartbeat(info, ttl)).await
    }
    async fn deregister(&self, worker_id: &str) -> Result<(), StoreError> {
        self.breaker.call(self.inner.deregister(worker_id)).await
    }
    async fn workers(&self) -> Result<Vec<WorkerInfo>, StoreError> {
        self.breaker.call(self.inner.workers()).await
    }
    async fn route(&self, session_id: &str) -> Result<Option<Route>, StoreError> {
        self.breaker.call(self.inner.route(session_id)).await
    }
    async fn claim(&self, session_id: &str, worker: &str, floor: u64) -> Result<Route, StoreError> {
        self.breaker
            .call(self.inner.claim(session_id, worker, floor))
            .await
    }
    async fn release(
        &self,
        session_id: &str,
        worker: &str,
        epoch: u64,
    ) -> Result<bool, StoreError> {
        self.breaker
            .call(self.inner.release(session_id, worker, epoch))
            .await
    }
    async fn forget(&self, session_id: &str) -> Result<(), StoreError> {
        self.breaker.call(self.inner.forget(session_id)).await
    }
    async fn ping(&self) -> Result<(), StoreError> {
        self.breaker.call(self.inner.ping()).await
    }
    async fn note_pending(&self, session_id: &str, hold: Duration) -> Result<(), StoreError> {
        self.breaker
            .call(self.inner.note_pending(session_id, hold))
            .await
    }
    async fn pending(&self) -> Result<u32, StoreError> {
        self.breaker.call(self.inner.pending()).await
    }
    async fn take_control(
        &self,
        session_id: &str,
        holder: &str,
        lease: Duration,
    ) -> Result<bool, StoreError> {
        self.breaker
            .call(self.inner.take_control(session_id, holder, lease))
            .await
    }
    async fn release_control(&self, session_id: &str, holder: &str) -> Result<(), StoreError> {
        self.breaker
            .call(self.inner.release_control(session_id, holder))
            .await
    }
    async fn controller(&self, session_id: &str) -> Result<Option<String>, StoreError> {
        self.breaker.call(self.inner.controller(session_id)).await
    }
    async fn route_and_controller(
        &self,
        session_id: &str,
    ) -> Result<(Option<Route>, Option<String>), StoreError> {
        self.breaker
            .call(self.inner.route_and_controller(session_id))
            .await
    }
    fn degraded(&self) -> bool {
        self.breaker.is_down()
    }
}

/// A [`Limiter`] behind a breaker.
pub struct GuardedLimiter {
    inner: Arc<dyn Limiter>,
    breaker: Arc<Breaker>,
}

impl GuardedLimiter {
    /// Guards `inner`; `routing` (the same Redis) answers the probe.
    pub fn new(inner: Arc<dyn Limiter>, routing: Arc<dyn Routing>, backend: &'static str) -> Self {
        let probe: Probe = Arc::new(move || {
            let routing = routing.clone();
            Box::pin(async move { routing.ping().await })
        });
        Self {
            inner,
            breaker: Breaker::new(backend, REDIS_TIMEOUT, probe),
        }
    }
}

#[async_trait]
impl Limiter for GuardedLimiter {
    async fn take(
        &self,
        tenant: &str,
        rate: u32,
        burst: u32,
    ) -> Result<Option<Duration>, StoreError> {
        self.breaker
            .call(self.inner.take(tenant, rate, burst))
            .await
    }
    async fn enter(
        &self,
        tenant: &str,
        call: &str,
        max: u32,
        lapse: Duration,
    ) -> Result<bool, StoreError> {
        self.breaker
            .call(self.inner.enter(tenant, call, max, lapse))
            .await
    }
    async fn leave(&self, tenant: &str, call: &str) -> Result<(), StoreError> {
        self.breaker.call(self.inner.leave(tenant, call)).await
    }
    async fn admit(&self, tenant: &str, call: &Call<'_>) -> Result<Admission, StoreError> {
        self.breaker.call(self.inner.admit(tenant, call)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

    fn breaker(up: Arc<AtomicBool>, timeout: Duration) -> Arc<Breaker> {
        let probe: Probe = Arc::new(move || {
            let up = up.clone();
            Box::pin(async move {
                if up.load(Ordering::SeqCst) {
                    Ok(())
                } else {
                    Err(StoreError::Unavailable("upstream"))
                }
            })
        });
        Breaker::new("test", timeout, probe)
    }

    #[tokio::test(start_paused = true)]
    async fn an_outage_opens_the_circuit_calls_fail_at_once_and_the_probe_closes_it() {
        let up = Arc::new(AtomicBool::new(false));
        let b = breaker(up.clone(), Duration::from_secs(2));
        let calls = AtomicU32::new(0);
        let refused = || async {
            calls.fetch_add(1, Ordering::SeqCst);
            Err::<(), _>(StoreError::Unavailable("upstream"))
        };
        assert!(matches!(
            b.call(refused()).await,
            Err(StoreError::Unavailable("test"))
        ));
        assert!(b.is_down());
        // While open, calls fail without reaching the backend, however long it lasts.
        tokio::time::sleep(PROBE_INTERVAL * 5).await;
        assert!(b.call(refused()).await.is_err());
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        assert!(b.is_down(), "the probe found it still down");
        // The backend comes back: within a probe interval the circuit closes.
        up.store(true, Ordering::SeqCst);
        tokio::time::sleep(PROBE_INTERVAL * 2).await;
        assert!(!b.is_down());
        assert_eq!(b.call(async { Ok(7) }).await.unwrap(), 7);
    }

    #[tokio::test(start_paused = true)]
    async fn a_hung_backend_counts_as_an_outage_after_the_timeout() {
        let b = breaker(Arc::new(AtomicBool::new(false)), Duration::from_millis(300));
        let hung = std::future::pending::<Result<(), StoreError>>();
        assert!(matches!(
            b.call(hung).await,
            Err(StoreError::Unavailable("test"))
        ));
        assert!(b.is_down());
    }

    #[tokio::test]
    async fn a_logical_error_passes_through_and_keeps_the_circuit_closed() {
        let b = breaker(Arc::new(AtomicBool::new(true)), Duration::from_secs(2));
        let stale = b
            .call(async {
                Err::<(), _>(StoreError::StaleEpoch {
                    given: 1,
                    current: 2,
                })
            })
            .await;
        assert!(matches!(stale, Err(StoreError::StaleEpoch { .. })));
        assert!(!b.is_down());
    }

    /// What a call that waited out the pool's acquire timeout returns.
    async fn pool_wait() -> Result<(), StoreError> {
        tokio::time::sleep(SQL_ACQUIRE_TIMEOUT).await;
        Err(StoreError::Database(sqlx::Error::PoolTimedOut))
    }

    #[tokio::test(start_paused = true)]
    async fn a_pool_wait_while_other_calls_are_answered_is_busy_and_keeps_the_circuit_closed() {
        let b = breaker(Arc::new(AtomicBool::new(true)), SQL_TIMEOUT);
        let answered = async {
            tokio::time::sleep(Duration::from_millis(50)).await;
            Ok(())
        };
        let (waited, other) = tokio::join!(b.call(pool_wait()), b.call(answered));
        assert!(matches!(waited, Err(StoreError::Unavailable("test"))));
        assert!(other.is_ok());
        assert!(!b.is_down(), "a busy pool was taken for an outage");
        assert_eq!(b.call(async { Ok(3) }).await.unwrap(), 3);
    }

    #[tokio::test(start_paused = true)]
    async fn a_pool_wait_while_no_call_is_answered_opens_the_circuit() {
        let b = breaker(Arc::new(AtomicBool::new(false)), SQL_TIMEOUT);
        // One call answered before the wait began says nothing about the wait.
        b.call(async { Ok(()) }).await.unwrap();
        let (first, second) = tokio::join!(b.call(pool_wait()), b.call(pool_wait()));
        assert!(matches!(first, Err(StoreError::Unavailable("test"))));
        assert!(matches!(second, Err(StoreError::Unavailable("test"))));
        assert!(b.is_down(), "a backend no call reached stayed trusted");
    }
}
