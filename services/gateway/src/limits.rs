//! Tenant limits. Per request, after auth: the request rate (a bucket every
//! gateway shares through Redis) and the calls in flight. Per call that
//! creates sessions: the tenant's open sessions ([`Limits::admit_sessions`],
//! from the dispatcher, before anything is created). A tenant's limits are
//! what `servo-fleet tenants set` stored, unset values from the gateway's
//! `--tenant-*` flags; 0 means no limit. While Redis is unreachable each
//! gateway counts on its own (in memory), so a tenant may get up to one
//! budget per gateway for that time.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use fleet_store::{Admission, Call, Limiter, MemoryLimiter, SessionStore, Tenant, TenantLimits};
use http::header;
use tokio::sync::Notify;

use crate::error::GatewayError;
use crate::recent::Memory;

/// How long a gateway keeps a tenant's stored limits before reading them
/// again: a `tenants set` takes effect within this.
pub const LIMITS_TTL: Duration = Duration::from_secs(10);

/// The limits every gateway enforces, with the counters behind them.
pub struct Limits {
    defaults: TenantLimits,
    store: Arc<dyn SessionStore>,
    counters: Arc<dyn Limiter>,
    /// Counts while `counters` (Redis) is unreachable.
    local: MemoryLimiter,
    stored: Memory<String, TenantLimits>,
    leaving: Leaving,
    /// An in-flight entry whose gateway died lapses after this.
    lapse: Duration,
}

/// A call counted in flight. Its place is given back when it is dropped, off
/// the answer's path: the answer goes out while the place is given back, and a
/// call whose client went away frees its place the same way.
pub(crate) struct InFlight {
    limits: Arc<Limits>,
    tenant: String,
    call: String,
    local: bool,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let (limits, tenant, call) = (
            self.limits.clone(),
            std::mem::take(&mut self.tenant),
            std::mem::take(&mut self.call),
        );
        let local = self.local;
        // Counted before the answer goes out, so the caller's next call, if
        // it finds the tenant full, knows to wait for this place.
        limits.leaving.start(&tenant);
        tokio::spawn(async move {
            let left = if local {
                limits.local.leave(&tenant, &call).await
            } else {
                limits.counters.leave(&tenant, &call).await
            };
            if let Err(e) = left {
                // The entry lapses on its own.
                tracing::debug!(error = %e, "could not end a call in flight");
            }
            limits.leaving.finish(&tenant);
        });
    }
}

/// The places this gateway is giving back, per tenant. A client that sends
/// its next call as soon as it reads an answer (an MCP client's `initialized`
/// after `initialize`) may arrive before that answer's place is given back:
/// a call refused as full while places are being given back waits for the
/// next one to be back, then asks once more.
#[derive(Default)]
struct Leaving {
    tenants: Mutex<HashMap<String, Giving>>,
    done: Notify,
}

/// One tenant's places being given back.
#[derive(Default, Clone, Copy)]
struct Giving {
    pending: usize,
    /// Given back since `pending` was last 0.
    given: u64,
}

impl Leaving {
    fn start(&self, tenant: &str) {
        let mut tenants = self.tenants.lock().unwrap_or_else(|p| p.into_inner());
        tenants.entry(tenant.to_owned()).or_default().pending += 1;
    }

    fn finish(&self, tenant: &str) {
        let mut tenants = self.tenants.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(g) = tenants.get_mut(tenant) {
            g.pending = g.pending.saturating_sub(1);
            g.given += 1;
            if g.pending == 0 {
                tenants.remove(tenant);
            }
        }
        drop(tenants);
        self.done.notify_waiters();
    }

    fn of(&self, tenant: &str) -> Option<Giving> {
        let tenants = self.tenants.lock().unwrap_or_else(|p| p.into_inner());
        tenants.get(tenant).copied()
    }

    /// Waits, at most `within`, until one more of `tenant`'s places is back:
    /// false at once when none is being given back.
    async fn one_back(&self, tenant: &str, within: Duration) -> bool {
        let Some(Giving { given: before, .. }) = self.of(tenant) else {
            return false;
        };
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let done = self.done.notified();
            tokio::pin!(done);
            // Registered before looking, so a finish in between still wakes it.
            done.as_mut().enable();
            match self.of(tenant) {
                Some(g) if g.given == before => {}
                _ => return true,
            }
            if tokio::time::timeout_at(deadline, done).await.is_err() {
                return false;
            }
        }
    }
}

impl Limits {
    /// Limits with `defaults` for unset values, counted in `counters`; calls
    /// never ended lapse after `lapse`.
    pub fn new(
        defaults: TenantLimits,
        store: Arc<dyn SessionStore>,
        counters: Arc<dyn Limiter>,
        lapse: Duration,
    ) -> Self {
        Self {
            defaults,
            store,
            counters,
            local: MemoryLimiter::default(),
            stored: Memory::new("limits"),
            leaving: Leaving::default(),
            lapse,
        }
    }

    /// The tenant's limits in force, every value set.
    pub async fn of(&self, tenant: &Tenant) -> TenantLimits {
        if let Some(l) = self.stored.younger_than(&tenant.id, LIMITS_TTL) {
            return l.or(self.defaults);
        }
        let stored = self
            .stored
            .read_through(tenant.id.clone(), Duration::MAX, async {
                self.store.tenant_limits(&tenant.id).await.map(Some)
            })
            .await;
        match stored {
            Ok(l) => l.unwrap_or_default().or(self.defaults),
            Err(e) => {
                // Never seen and unreadable: the defaults still bound it.
                tracing::warn!(error = %e, "tenant limits unreadable; using the defaults");
                self.defaults
            }
        }
    }

    /// Refuses a call that would create `new` sessions past the tenant's open
    /// sessions limit; nothing has been created when it does.
    pub async fn admit_sessions(&self, tenant: &Tenant, new: usize) -> Result<(), GatewayError> {
        let max = self.of(tenant).await.max_sessions.unwrap_or(0);
        if max == 0 || new == 0 {
            return Ok(());
        }
        // Unreadable count: creation needs the database too, and fails there.
        let Ok(open) = self.store.open_sessions(&tenant.id).await else {
            return Ok(());
        };
        let new = u64::try_from(new).unwrap_or(u64::MAX);
        if open.saturating_add(new) > u64::from(max) {
            limited(tenant, "sessions");
            return Err(GatewayError::Limited {
                message: format!(
                    "the tenant has {open} open sessions and its limit is {max}; this call would open {new} more: close sessions (servo_session_close) or let them expire"
                ),
                retry_after: fleet_store::PROBE_INTERVAL,
            });
        }
        Ok(())
    }
}

/// The refusal of a call past the tenant's calls in flight.
fn in_flight_refused(tenant: &Tenant, l: TenantLimits) -> GatewayError {
    limited(tenant, "in_flight");
    GatewayError::Limited {
        message: format!(
            "the tenant already has {} calls in flight, its limit; retry when one ends",
            l.max_in_flight.unwrap_or(0)
        ),
        retry_after: fleet_store::PROBE_INTERVAL,
    }
}

fn limited(tenant: &Tenant, limit: &'static str) {
    fleet_telemetry::counter!("fleet_gateway_limited_total", "tenant" => tenant.name.clone(), "limit" => limit)
        .increment(1);
}

impl Limits {
    /// Admits one call of `tenant` under its rate, then its calls in flight
    /// (one round trip to Redis for both): the place it holds (to leave when
    /// it ends), or why it is refused.
    pub(crate) async fn admit(
        self: &Arc<Self>,
        tenant: &Tenant,
    ) -> Result<Option<InFlight>, GatewayError> {
        let l = self.of(tenant).await;
        self.let_in(tenant, l, l.requests_per_second.unwrap_or(0))
            .await
    }

    /// Counts one call of `tenant` in flight, without taking from its rate:
    /// the place it holds, or why it is refused.
    pub(crate) async fn hold(
        self: &Arc<Self>,
        tenant: &Tenant,
        l: TenantLimits,
    ) -> Result<Option<InFlight>, GatewayError> {
        self.let_in(tenant, l, 0).await
    }

    /// Asks Redis, or this gateway's own counters while Redis is unreachable:
    /// the answer, and whether it came from the gateway's own.
    async fn count(&self, tenant: &str, call: &Call<'_>) -> (Admission, bool) {
        match self.counters.admit(tenant, call).await {
            Ok(admission) => (admission, false),
            Err(_) => (
                self.local
                    .admit(tenant, call)
                    .await
                    .unwrap_or(Admission::Admitted),
                true,
            ),
        }
    }

    /// Takes one request from a rate of `rate` per second (0: none), then
    /// counts the call in flight under `l`. While Redis is unreachable the
    /// gateway counts on its own.
    async fn let_in(
        self: &Arc<Self>,
        tenant: &Tenant,
        l: TenantLimits,
        rate: u32,
    ) -> Result<Option<InFlight>, GatewayError> {
        let max = l.max_in_flight.unwrap_or(0);
        if rate == 0 && max == 0 {
            return Ok(None);
        }
        let id = uuid::Uuid::new_v4().to_string();
        let call = Call {
            id: &id,
            rate,
            burst: l.burst.unwrap_or(rate).max(1),
            max,
            lapse: self.lapse,
        };
        let (mut admission, mut local) = self.count(&tenant.id, &call).await;
        if admission == Admission::Full
            && self
                .leaving
                .one_back(&tenant.id, fleet_store::REDIS_TIMEOUT)
                .await
        {
            // The rate was taken on the first ask; this one only counts.
            let again = Call { rate: 0, ..call };
            (admission, local) = self.count(&tenant.id, &again).await;
        }
        match admission {
            Admission::Wait(wait) => {
                limited(tenant, "requests_per_second");
                Err(GatewayError::Limited {
                    message: format!(
                        "the tenant is over its {rate} requests per second (burst {}); retry after the hint",
                        l.burst.unwrap_or(0)
                    ),
                    retry_after: wait,
                })
            }
            Admission::Full => Err(in_flight_refused(tenant, l)),
            Admission::Admitted => Ok((max > 0).then(|| InFlight {
                limits: self.clone(),
                tenant: tenant.id.clone(),
                call: id,
                local,
            })),
        }
    }
}

/// The limits middleware: rate, then calls in flight; runs inside auth.
pub async fn enforce(
    State(limits): State<Option<Arc<Limits>>>,
    req: Request,
    next: Next,
) -> Response {
    let (Some(limits), Some(tenant)) = (limits, req.extensions().get::<Tenant>().cloned()) else {
        return next.run(req).await;
    };
    let grpc = req
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/grpc"));
    let guard = match limits.admit(&tenant).await {
        Ok(guard) => guard,
        Err(e) => return e.to_http(grpc),
    };
    let response = next.run(req).await;
    // Gives the place back while the answer goes out.
    drop(guard);
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use fleet_store::{SqlStore, StoreError};

    /// In-process counters whose give-back answers `delay` late, as Redis
    /// does across the network.
    struct LateLeave {
        counters: MemoryLimiter,
        delay: Duration,
    }

    #[async_trait::async_trait]
    impl Limiter for LateLeave {
        async fn take(
            &self,
            t: &str,
            rate: u32,
            burst: u32,
        ) -> Result<Option<Duration>, StoreError> {
            self.counters.take(t, rate, burst).await
        }

        async fn enter(
            &self,
            t: &str,
            call: &str,
            max: u32,
            lapse: Duration,
        ) -> Result<bool, StoreError> {
            self.counters.enter(t, call, max, lapse).await
        }

        async fn leave(&self, t: &str, call: &str) -> Result<(), StoreError> {
            tokio::time::sleep(self.delay).await;
            self.counters.leave(t, call).await
        }
    }

    /// Limits over [`LateLeave`], with time paused from then on (the store
    /// connects in real time: its pool would time out in paused time).
    async fn limits(delay: Duration) -> Arc<Limits> {
        let store = SqlStore::connect("sqlite::memory:").await.unwrap();
        tokio::time::pause();
        let counters = LateLeave {
            counters: MemoryLimiter::default(),
            delay,
        };
        Arc::new(Limits::new(
            TenantLimits::default(),
            Arc::new(store),
            Arc::new(counters),
            Duration::from_secs(60),
        ))
    }

    fn tenant() -> Tenant {
        Tenant {
            id: "t1".into(),
            name: "acme".into(),
        }
    }

    const ONE_AT_A_TIME: TenantLimits = TenantLimits {
        requests_per_second: None,
        burst: None,
        max_sessions: None,
        max_in_flight: Some(1),
    };

    #[tokio::test]
    async fn a_call_sent_as_soon_as_the_last_answer_arrives_waits_for_its_place_instead_of_being_refused()
     {
        let limits = limits(Duration::from_millis(40)).await;
        let first = limits.hold(&tenant(), ONE_AT_A_TIME).await.unwrap();
        assert!(first.is_some(), "a limit of one counts the call");
        let answered = tokio::time::Instant::now();
        drop(first);
        let next = limits.hold(&tenant(), ONE_AT_A_TIME).await;
        assert!(
            matches!(next, Ok(Some(_))),
            "the next call is let in once the place is back"
        );
        assert!(
            answered.elapsed() >= Duration::from_millis(40),
            "it waited for the place to be given back: {:?}",
            answered.elapsed()
        );
    }

    #[tokio::test]
    async fn a_call_past_the_limit_is_still_refused_while_the_first_runs() {
        let limits = limits(Duration::from_millis(40)).await;
        let first = limits.hold(&tenant(), ONE_AT_A_TIME).await.unwrap();
        let asked = tokio::time::Instant::now();
        let second = limits.hold(&tenant(), ONE_AT_A_TIME).await;
        let Err(GatewayError::Limited { message, .. }) = second else {
            panic!("a second call in flight is refused");
        };
        assert!(message.contains("1 calls in flight"), "{message}");
        assert_eq!(
            asked.elapsed(),
            Duration::ZERO,
            "nothing was being given back"
        );
        drop(first);
    }

    #[tokio::test]
    async fn a_place_that_is_never_given_back_is_waited_for_no_longer_than_redis_is() {
        let limits = limits(Duration::from_secs(3600)).await;
        drop(limits.hold(&tenant(), ONE_AT_A_TIME).await.unwrap());
        let asked = tokio::time::Instant::now();
        let next = limits.hold(&tenant(), ONE_AT_A_TIME).await;
        assert!(matches!(next, Err(GatewayError::Limited { .. })));
        // The timer wheel rounds up to its next millisecond.
        let waited = asked.elapsed();
        assert!(
            waited >= fleet_store::REDIS_TIMEOUT
                && waited <= fleet_store::REDIS_TIMEOUT + Duration::from_millis(1),
            "{waited:?}"
        );
    }
}
