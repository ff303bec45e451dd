//! [`Limiter`] in Redis, beside the routing keys (same prefix): the rate bucket
//! is `limit:rate:{tenant}` (its theoretical arrival time, µs), the calls in
//! flight are `limit:inflight:{tenant}`, a sorted set of call IDs scored by when
//! they lapse. Both are changed only by Lua scripts that read Redis's own
//! clock, so gateways with skewed clocks still share one budget.

use std::time::Duration;

use async_trait::async_trait;

use crate::{Admission, Call, Limiter, RedisRouting, StoreError};

/// One call's admission: the rate (GCRA, see `limiter.rs`, in µs), then, if
/// it allowed the call, the calls in flight (lapsed ones dropped first).
/// `ARGV`: rate (0: none), burst, most in flight (0: none), lapse in ms, call
/// ID. Answers `{0, 0}` admitted, `{1, wait µs}` over the rate, `{2, 0}` full.
/// Numbers are written with `%.0f` because Lua would print large doubles in
/// exponent form.
pub(crate) const ADMIT: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local rate = tonumber(ARGV[1])
if rate > 0 then
  local interval = math.floor(1000000 / rate)
  local tolerance = interval * tonumber(ARGV[2])
  local tat = tonumber(redis.call('GET', KEYS[1]) or now)
  if tat < now then tat = now end
  local nxt = tat + interval
  if nxt - now > tolerance then return {1, nxt - now - tolerance} end
  redis.call('SET', KEYS[1], string.format('%.0f', nxt), 'PX', math.ceil((nxt - now) / 1000) + 1000)
end
local max = tonumber(ARGV[3])
if max > 0 then
  local ms = math.floor(now / 1000)
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ms)
  if redis.call('ZCARD', KEYS[2]) >= max then return {2, 0} end
  redis.call('ZADD', KEYS[2], string.format('%.0f', ms + tonumber(ARGV[4])), ARGV[5])
  redis.call('PEXPIRE', KEYS[2], ARGV[4])
end
return {0, 0}
";

#[async_trait]
impl Limiter for RedisRouting {
    async fn take(
        &self,
        tenant: &str,
        rate: u32,
        burst: u32,
    ) -> Result<Option<Duration>, StoreError> {
        let call = Call {
            id: "",
            rate: rate.max(1),
            burst,
            max: 0,
            lapse: Duration::ZERO,
        };
        Ok(match self.admit(tenant, &call).await? {
            Admission::Wait(wait) => Some(wait),
            Admission::Admitted | Admission::Full => None,
        })
    }

    async fn enter(
        &self,
        tenant: &str,
        call: &str,
        max: u32,
        lapse: Duration,
    ) -> Result<bool, StoreError> {
        let call = Call {
            id: call,
            rate: 0,
            burst: 0,
            max: max.max(1),
            lapse,
        };
        Ok(self.admit(tenant, &call).await? == Admission::Admitted)
    }

    async fn leave(&self, tenant: &str, call: &str) -> Result<(), StoreError> {
        let mut conn = self.conn.clone();
        let _: i64 = redis::cmd("ZREM")
            .arg(self.key(&format!("limit:inflight:{tenant}")))
            .arg(call)
            .query_async(&mut conn)
            .await?;
        Ok(())
    }

    async fn admit(&self, tenant: &str, call: &Call<'_>) -> Result<Admission, StoreError> {
        let mut conn = self.conn.clone();
        let (code, wait_us): (u8, u64) = self
            .admit
            .key(self.key(&format!("limit:rate:{tenant}")))
            .key(self.key(&format!("limit:inflight:{tenant}")))
            .arg(call.rate)
            .arg(call.burst.max(1))
            .arg(call.max)
            .arg(
                u64::try_from(call.lapse.as_millis())
                    .unwrap_or(u64::MAX)
                    .max(1),
            )
            .arg(call.id)
            .invoke_async(&mut conn)
            .await?;
        Ok(match code {
            0 => Admission::Admitted,
            1 => Admission::Wait(Duration::from_micros(wait_us)),
            _ => Admission::Full,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fresh_prefix() -> String {
        format!("limits-{}:", uuid::Uuid::new_v4().simple())
    }

    /// A gateway's view of Redis (database 15, the store crate's) under `prefix`.
    async fn redis(prefix: &str) -> RedisRouting {
        let url = std::env::var("FLEET_TEST_REDIS_URL")
            .unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
        RedisRouting::connect(&format!("{url}/15"), prefix)
            .await
            .unwrap_or_else(|e| panic!("Redis at {url} is required (`make services`): {e}"))
    }

    #[tokio::test]
    async fn two_gateways_share_one_burst_and_the_request_past_it_is_told_how_long_to_wait() {
        let prefix = fresh_prefix();
        let (a, b) = (redis(&prefix).await, redis(&prefix).await);
        let mut allowed = 0;
        for i in 0..10 {
            let g = if i % 2 == 0 { &a } else { &b };
            if g.take("acme", 1, 10).await.unwrap().is_none() {
                allowed += 1;
            }
        }
        assert_eq!(allowed, 10, "the burst of 10 passes");
        let wait = a
            .take("acme", 1, 10)
            .await
            .unwrap()
            .expect("the 11th waits");
        assert!(
            wait > Duration::from_millis(900) && wait <= Duration::from_secs(1),
            "{wait:?}"
        );
        assert_eq!(b.take("other", 1, 10).await.unwrap(), None);
    }

    #[tokio::test]
    async fn calls_in_flight_are_shared_bounded_and_lapse_if_never_left() {
        let g = redis(&fresh_prefix()).await;
        let long = Duration::from_secs(60);
        assert!(g.enter("acme", "c1", 2, long).await.unwrap());
        assert!(
            g.enter("acme", "c2", 2, Duration::from_millis(50))
                .await
                .unwrap()
        );
        assert!(!g.enter("acme", "c3", 2, long).await.unwrap());
        g.leave("acme", "c1").await.unwrap();
        assert!(g.enter("acme", "c3", 2, long).await.unwrap());
        // c2 lapses without leaving (its gateway died).
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        while !g.enter("acme", "c4", 2, long).await.unwrap() {
            assert!(tokio::time::Instant::now() < deadline, "c2 never lapsed");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    #[tokio::test]
    async fn one_admission_takes_the_rate_and_counts_the_call_and_a_refusal_counts_nothing() {
        let g = redis(&fresh_prefix()).await;
        let long = Duration::from_secs(60);
        let call = |id, rate, max| Call {
            id,
            rate,
            burst: rate,
            max,
            lapse: long,
        };
        assert_eq!(
            g.admit("acme", &call("c1", 1, 5)).await.unwrap(),
            Admission::Admitted
        );
        // Over the rate: refused with the wait, and not counted in flight.
        assert!(matches!(
            g.admit("acme", &call("c2", 1, 5)).await.unwrap(),
            Admission::Wait(wait) if wait > Duration::from_millis(900)
        ));
        assert!(g.enter("acme", "c3", 2, long).await.unwrap());
        assert!(
            !g.enter("acme", "c4", 2, long).await.unwrap(),
            "c1 and c3 are in flight; c2 never was"
        );
        // Within a rate but with the calls in flight at their most: full.
        assert_eq!(
            g.admit("other", &call("d1", 1000, 1)).await.unwrap(),
            Admission::Admitted
        );
        assert_eq!(
            g.admit("other", &call("d2", 1000, 1)).await.unwrap(),
            Admission::Full
        );
        g.leave("other", "d1").await.unwrap();
        assert_eq!(
            g.admit("other", &call("d2", 1000, 1)).await.unwrap(),
            Admission::Admitted
        );
    }
}
