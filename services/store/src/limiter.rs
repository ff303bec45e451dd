//! The counters behind tenant limits: a request-rate bucket and the calls in
//! flight, per tenant. In a fleet they live in Redis ([`crate::RedisLimiter`]),
//! so every gateway counts against the same budget; in one process, or while
//! Redis is unreachable, in memory ([`MemoryLimiter`]), per gateway.
//!
//! The rate is a GCRA bucket: `burst` requests may go at once, then one every
//! `1/rate` seconds; request `burst + 1` in the same instant is refused with
//! the time until it would be allowed.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;
use tokio::time::Instant;

use crate::StoreError;

/// Per-tenant rate and in-flight counters.
#[async_trait]
pub trait Limiter: Send + Sync {
    /// Takes one request from the tenant's bucket (`rate` per second, `burst`
    /// at once). `None` when allowed; otherwise how long until it would be.
    async fn take(
        &self,
        tenant: &str,
        rate: u32,
        burst: u32,
    ) -> Result<Option<Duration>, StoreError>;
    /// Counts call `call` in flight unless `max` already are; an entry never
    /// left lapses after `lapse` (a gateway that died mid-call).
    async fn enter(
        &self,
        tenant: &str,
        call: &str,
        max: u32,
        lapse: Duration,
    ) -> Result<bool, StoreError>;
    /// Ends call `call`.
    async fn leave(&self, tenant: &str, call: &str) -> Result<(), StoreError>;

    /// One call's admission as one step: [`Limiter::take`] from the rate, then,
    /// if it was allowed, [`Limiter::enter`] in flight. `rate` 0 skips the
    /// rate, `max` 0 the count in flight. Backends that count remotely do it
    /// in one round trip.
    async fn admit(&self, tenant: &str, call: &Call<'_>) -> Result<Admission, StoreError> {
        if call.rate > 0
            && let Some(wait) = self.take(tenant, call.rate, call.burst).await?
        {
            return Ok(Admission::Wait(wait));
        }
        if call.max > 0 && !self.enter(tenant, call.id, call.max, call.lapse).await? {
            return Ok(Admission::Full);
        }
        Ok(Admission::Admitted)
    }
}

/// A call asking [`Limiter::admit`] to let it in.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    /// The call's ID, which [`Limiter::leave`] names.
    pub id: &'a str,
    /// Requests per second, sustained; 0: no rate.
    pub rate: u32,
    /// Requests at once above the rate.
    pub burst: u32,
    /// Calls in flight at most; 0: not counted.
    pub max: u32,
    /// When an entry never left lapses.
    pub lapse: Duration,
}

/// What [`Limiter::admit`] decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// Let in, and counted in flight if the call asked to be.
    Admitted,
    /// Over the rate: how long until a request would be allowed. Nothing
    /// was counted.
    Wait(Duration),
    /// Within the rate (which it took from), but already `max` calls in flight.
    Full,
}

/// The GCRA step shared by both backends, in microseconds: given the bucket's
/// theoretical arrival time `tat` and `now`, the new `tat` if allowed, or the
/// wait if not.
pub(crate) fn gcra(tat: u64, now: u64, rate: u32, burst: u32) -> Result<u64, u64> {
    let interval = 1_000_000 / u64::from(rate.max(1));
    let tolerance = interval * u64::from(burst.max(1));
    let next = tat.max(now) + interval;
    if next - now > tolerance {
        Err(next - now - tolerance)
    } else {
        Ok(next)
    }
}

/// In-process counters.
#[derive(Default)]
pub struct MemoryLimiter {
    /// Theoretical arrival time per tenant, µs since `epoch`.
    buckets: Mutex<HashMap<String, u64>>,
    in_flight: Mutex<HashMap<String, HashSet<String>>>,
    epoch: std::sync::OnceLock<Instant>,
}

impl MemoryLimiter {
    fn now_us(&self) -> u64 {
        let epoch = *self.epoch.get_or_init(Instant::now);
        u64::try_from(epoch.elapsed().as_micros()).unwrap_or(u64::MAX)
    }
}

#[async_trait]
impl Limiter for MemoryLimiter {
    async fn take(
        &self,
        tenant: &str,
        rate: u32,
        burst: u32,
    ) -> Result<Option<Duration>, StoreError> {
        let now = self.now_us();
        let mut buckets = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        let tat = buckets.get(tenant).copied().unwrap_or(now);
        Ok(match gcra(tat, now, rate, burst) {
            Ok(next) => {
                buckets.insert(tenant.to_owned(), next);
                None
            }
            Err(wait) => Some(Duration::from_micros(wait)),
        })
    }

    async fn enter(
        &self,
        tenant: &str,
        call: &str,
        max: u32,
        _lapse: Duration,
    ) -> Result<bool, StoreError> {
        // In one process a call's guard always leaves; nothing lapses.
        let mut calls = self.in_flight.lock().unwrap_or_else(|p| p.into_inner());
        let set = calls.entry(tenant.to_owned()).or_default();
        if set.len() >= usize::try_from(max).unwrap_or(usize::MAX) {
            return Ok(false);
        }
        set.insert(call.to_owned());
        Ok(true)
    }

    async fn leave(&self, tenant: &str, call: &str) -> Result<(), StoreError> {
        let mut calls = self.in_flight.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(set) = calls.get_mut(tenant) {
            set.remove(call);
            if set.is_empty() {
                calls.remove(tenant);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_burst_passes_the_next_request_waits_one_interval_and_the_bucket_refills() {
        let m = MemoryLimiter::default();
        for _ in 0..10 {
            assert_eq!(m.take("t", 5, 10).await.unwrap(), None);
        }
        let wait = m.take("t", 5, 10).await.unwrap().unwrap();
        assert!(
            wait <= Duration::from_millis(200) && wait > Duration::from_millis(150),
            "{wait:?}"
        );
        assert_eq!(
            m.take("other", 5, 10).await.unwrap(),
            None,
            "tenants are apart"
        );
        tokio::time::advance(Duration::from_millis(200)).await;
        assert_eq!(m.take("t", 5, 10).await.unwrap(), None);
        assert!(m.take("t", 5, 10).await.unwrap().is_some());
        tokio::time::advance(Duration::from_secs(2)).await;
        for _ in 0..10 {
            assert_eq!(m.take("t", 5, 10).await.unwrap(), None);
        }
    }

    #[tokio::test]
    async fn calls_in_flight_are_bounded_and_a_left_call_frees_its_place() {
        let m = MemoryLimiter::default();
        let lapse = Duration::from_secs(60);
        assert!(m.enter("t", "a", 2, lapse).await.unwrap());
        assert!(m.enter("t", "b", 2, lapse).await.unwrap());
        assert!(!m.enter("t", "c", 2, lapse).await.unwrap());
        m.leave("t", "a").await.unwrap();
        assert!(m.enter("t", "c", 2, lapse).await.unwrap());
    }
}
