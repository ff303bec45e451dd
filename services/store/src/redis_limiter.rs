//! [`Limiter`] in Redis, beside the routing keys (same prefix): the rate bucket
//! is `limit:rate:{tenant}` (its theoretical arrival time, µs), the calls in
//! flight are `limit:inflight:{tenant}`, a sorted set of call IDs scored by when
//! they lapse. Both are changed only by Lua scripts that read Redis's own
//! clock, so gateways with skewed clocks still share one budget.

use std::time::Duration;

use async_trait::async_trait;

use crate::{Limiter, RedisRouting, StoreError};

/// GCRA (see `limiter.rs`), µs; numbers are written with `%.0f` because Lua
/// would print large doubles in exponent form.
pub(crate) const TAKE: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = math.floor(1000000 / tonumber(ARGV[1]))
local tolerance = interval * tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local nxt = tat + interval
if nxt - now > tolerance then return nxt - now - tolerance end
redis.call('SET', KEYS[1], string.format('%.0f', nxt), 'PX', math.ceil((nxt - now) / 1000) + 1000)
return 0
";

/// Drops lapsed calls, then admits this one if fewer than the limit are in.
pub(crate) const ENTER: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], string.format('%.0f', now + tonumber(ARGV[2])), ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
";

#[async_trait]
impl Limiter for RedisRouting {
    async fn take(
        &self,
        tenant: &str,
        rate: u32,
        burst: u32,
    ) -> Result<Option<Duration>, StoreError> {
        let mut conn = self.conn.clone();
        let wait_us: u64 = self
            .take
            .key(self.key(&format!("limit:rate:{tenant}")))
            .arg(rate.max(1))
            .arg(burst.max(1))
            .invoke_async(&mut conn)
            .await?;
        Ok((wait_us > 0).then(|| Duration::from_micros(wait_us)))
    }

    async fn enter(
        &self,
        tenant: &str,
        call: &str,
        max: u32,
        lapse: Duration,
    ) -> Result<bool, StoreError> {
        let mut conn = self.conn.clone();
        let entered: i64 = self
            .enter
            .key(self.key(&format!("limit:inflight:{tenant}")))
            .arg(max)
            .arg(u64::try_from(lapse.as_millis()).unwrap_or(u64::MAX).max(1))
            .arg(call)
            .invoke_async(&mut conn)
            .await?;
        Ok(entered == 1)
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
}
