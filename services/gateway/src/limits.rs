//! Tenant limits. Per request, after auth: the request rate (a bucket every
//! gateway shares through Redis) and the calls in flight. Per call that
//! creates sessions: the tenant's open sessions ([`Limits::admit_sessions`],
//! from the dispatcher, before anything is created). A tenant's limits are
//! what `servo-fleet tenants set` stored, unset values from the gateway's
//! `--tenant-*` flags; 0 means no limit. While Redis is unreachable each
//! gateway counts on its own (in memory), so a tenant may get up to one
//! budget per gateway for that time.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use fleet_store::{Admission, Call, Limiter, MemoryLimiter, SessionStore, Tenant, TenantLimits};
use http::header;

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
    /// An in-flight entry whose gateway died lapses after this.
    lapse: Duration,
}

/// A call counted in flight; leaving happens when it is dropped, so a call
/// whose client went away still frees its place.
pub(crate) struct InFlight {
    limits: Arc<Limits>,
    tenant: String,
    call: String,
    local: bool,
}

impl InFlight {
    /// Ends the call now, before its response goes out: a client that sends
    /// its next call as soon as it reads this one's answer (an MCP client's
    /// `initialized` after `initialize`) must find the place free.
    pub(crate) async fn leave(mut self) {
        let (limits, tenant, call, local) = self.take();
        end(limits, tenant, call, local).await;
    }

    fn take(&mut self) -> (Arc<Limits>, String, String, bool) {
        (
            self.limits.clone(),
            std::mem::take(&mut self.tenant),
            std::mem::take(&mut self.call),
            self.local,
        )
    }
}

/// A call whose future was dropped (its client went away) ends here.
impl Drop for InFlight {
    fn drop(&mut self) {
        if self.call.is_empty() {
            return;
        }
        let (limits, tenant, call, local) = self.take();
        tokio::spawn(end(limits, tenant, call, local));
    }
}

async fn end(limits: Arc<Limits>, tenant: String, call: String, local: bool) {
    let left = if local {
        limits.local.leave(&tenant, &call).await
    } else {
        limits.counters.leave(&tenant, &call).await
    };
    if let Err(e) = left {
        // The entry lapses on its own.
        tracing::debug!(error = %e, "could not end a call in flight");
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
        let (admission, local) = match self.counters.admit(&tenant.id, &call).await {
            Ok(admission) => (admission, false),
            Err(_) => (
                self.local
                    .admit(&tenant.id, &call)
                    .await
                    .unwrap_or(Admission::Admitted),
                true,
            ),
        };
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
    if let Some(guard) = guard {
        guard.leave().await;
    }
    response
}
