//! Redis routing for a fleet. `route:{session}` is a hash `{worker, epoch}` changed
//! only by Lua scripts, so a claim's read-increment-write is atomic; the registry is
//! `worker:{id}` (JSON, expiring) plus a `workers` sorted set scored by expiry;
//! pending demand is the `pending` sorted set of session IDs scored by expiry.

use std::time::Duration;

use async_trait::async_trait;
use redis::AsyncCommands;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};

use crate::{Route, Routing, StoreError, WorkerInfo, now_millis};

const CLAIM: &str = r"
local cur = tonumber(redis.call('HGET', KEYS[1], 'epoch') or '0')
local floor = tonumber(ARGV[2])
if floor > cur then cur = floor end
local epoch = cur + 1
redis.call('HSET', KEYS[1], 'worker', ARGV[1], 'epoch', epoch)
return epoch
";

const RELEASE: &str = r"
if redis.call('HGET', KEYS[1], 'worker') == ARGV[1]
   and redis.call('HGET', KEYS[1], 'epoch') == ARGV[2] then
  redis.call('HSET', KEYS[1], 'worker', '')
  return 1
end
return 0
";

/// Routing in Redis.
#[derive(Clone)]
pub struct RedisRouting {
    conn: ConnectionManager,
    claim: redis::Script,
    release: redis::Script,
}

/// The sorted set of pending session IDs, scored by when they stop counting.
const PENDING: &str = "pending";

fn route_key(session_id: &str) -> String {
    format!("route:{session_id}")
}

fn worker_key(worker_id: &str) -> String {
    format!("worker:{worker_id}")
}

impl RedisRouting {
    /// Connects, failing fast when Redis does not answer.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let client = redis::Client::open(url)?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(Duration::from_secs(3)))
            .set_response_timeout(Some(Duration::from_secs(3)))
            .set_number_of_retries(2);
        let conn = client.get_connection_manager_with_config(config).await?;
        Ok(Self {
            conn,
            claim: redis::Script::new(CLAIM),
            release: redis::Script::new(RELEASE),
        })
    }
}

#[async_trait]
impl Routing for RedisRouting {
    async fn heartbeat(&self, info: &WorkerInfo, ttl: Duration) -> Result<(), StoreError> {
        let json = serde_json::to_string(info).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let expires = now_millis() + i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX / 2);
        let mut conn = self.conn.clone();
        redis::pipe()
            .atomic()
            .set_ex(worker_key(&info.id), json, ttl.as_secs().max(1))
            .ignore()
            .zadd("workers", &info.id, expires)
            .ignore()
            .query_async::<()>(&mut conn)
            .await?;
        Ok(())
    }

    async fn deregister(&self, worker_id: &str) -> Result<(), StoreError> {
        let mut conn = self.conn.clone();
        redis::pipe()
            .atomic()
            .del(worker_key(worker_id))
            .ignore()
            .zrem("workers", worker_id)
            .ignore()
            .query_async::<()>(&mut conn)
            .await?;
        Ok(())
    }

    async fn workers(&self) -> Result<Vec<WorkerInfo>, StoreError> {
        let mut conn = self.conn.clone();
        let now = now_millis();
        let _: () = conn.zrembyscore("workers", "-inf", now).await?;
        let ids: Vec<String> = conn.zrangebyscore("workers", now, "+inf").await?;
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let keys: Vec<String> = ids.iter().map(|id| worker_key(id)).collect();
        let values: Vec<Option<String>> =
            redis::cmd("MGET").arg(&keys).query_async(&mut conn).await?;
        Ok(values
            .into_iter()
            .flatten()
            .filter_map(|v| serde_json::from_str(&v).ok())
            .collect())
    }

    async fn route(&self, session_id: &str) -> Result<Option<Route>, StoreError> {
        let mut conn = self.conn.clone();
        let (worker, epoch): (Option<String>, Option<u64>) = redis::cmd("HMGET")
            .arg(route_key(session_id))
            .arg("worker")
            .arg("epoch")
            .query_async(&mut conn)
            .await?;
        Ok(match (worker, epoch) {
            (Some(worker), Some(epoch)) if !worker.is_empty() => Some(Route { worker, epoch }),
            _ => None,
        })
    }

    async fn claim(&self, session_id: &str, worker: &str, floor: u64) -> Result<Route, StoreError> {
        let mut conn = self.conn.clone();
        let epoch: u64 = self
            .claim
            .key(route_key(session_id))
            .arg(worker)
            .arg(floor)
            .invoke_async(&mut conn)
            .await?;
        Ok(Route {
            worker: worker.to_owned(),
            epoch,
        })
    }

    async fn release(
        &self,
        session_id: &str,
        worker: &str,
        epoch: u64,
    ) -> Result<bool, StoreError> {
        let mut conn = self.conn.clone();
        let released: i64 = self
            .release
            .key(route_key(session_id))
            .arg(worker)
            .arg(epoch)
            .invoke_async(&mut conn)
            .await?;
        Ok(released == 1)
    }

    async fn forget(&self, session_id: &str) -> Result<(), StoreError> {
        let mut conn = self.conn.clone();
        let _: () = conn.del(route_key(session_id)).await?;
        Ok(())
    }

    async fn ping(&self) -> Result<(), StoreError> {
        let mut conn = self.conn.clone();
        let _: String = redis::cmd("PING").query_async(&mut conn).await?;
        Ok(())
    }

    async fn note_pending(&self, session_id: &str, hold: Duration) -> Result<(), StoreError> {
        let until = now_millis() + i64::try_from(hold.as_millis()).unwrap_or(i64::MAX / 2);
        let mut conn = self.conn.clone();
        let _: () = conn.zadd(PENDING, session_id, until).await?;
        Ok(())
    }

    async fn pending(&self) -> Result<u32, StoreError> {
        let mut conn = self.conn.clone();
        let (_, n): (i64, u32) = redis::pipe()
            .atomic()
            .zrembyscore(PENDING, "-inf", now_millis())
            .zcard(PENDING)
            .query_async(&mut conn)
            .await?;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A real Redis (`make services` starts one); logical database 15 is kept
    /// for this test and flushed.
    async fn redis() -> RedisRouting {
        let url = std::env::var("FLEET_TEST_REDIS_URL")
            .unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
        let r = RedisRouting::connect(&format!("{url}/15"))
            .await
            .unwrap_or_else(|e| panic!("Redis at {url} is required (`make services`): {e}"));
        r.ping().await.unwrap();
        r
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn workers_racing_to_claim_one_session_end_with_exactly_one_owner() {
        let r = redis().await;
        let session = format!("race-{}", uuid::Uuid::new_v4());
        let claims = (0..16).map(|i| {
            let r = r.clone();
            let session = session.clone();
            tokio::spawn(async move { r.claim(&session, &format!("w{i}"), 3).await.unwrap() })
        });
        let mut routes = Vec::new();
        for c in claims {
            routes.push(c.await.unwrap());
        }
        let mut epochs: Vec<u64> = routes.iter().map(|r| r.epoch).collect();
        epochs.sort_unstable();
        assert_eq!(
            epochs,
            (4..20).collect::<Vec<_>>(),
            "every claim got its own epoch"
        );
        let current = r.route(&session).await.unwrap().unwrap();
        let owners: Vec<_> = routes.iter().filter(|c| **c == current).collect();
        assert_eq!(
            owners.len(),
            1,
            "exactly one claimer still owns the session"
        );
        assert_eq!(current.epoch, 19, "the last claim wins");
        // A stale owner cannot release the winner's route.
        let loser = routes.iter().find(|c| **c != current).unwrap();
        assert!(
            !r.release(&session, &loser.worker, loser.epoch)
                .await
                .unwrap()
        );
        assert!(
            r.release(&session, &current.worker, current.epoch)
                .await
                .unwrap()
        );
        r.forget(&session).await.unwrap();
        assert_eq!(r.route(&session).await.unwrap(), None);
    }

    #[tokio::test]
    async fn pending_sessions_count_once_each_until_their_hold_passes() {
        let r = redis().await;
        let mut conn = r.conn.clone();
        let _: () = conn.del(PENDING).await.unwrap();
        let (a, b) = (
            uuid::Uuid::new_v4().to_string(),
            uuid::Uuid::new_v4().to_string(),
        );
        r.note_pending(&a, Duration::from_secs(60)).await.unwrap();
        r.note_pending(&a, Duration::from_secs(60)).await.unwrap();
        r.note_pending(&b, Duration::from_millis(1)).await.unwrap();
        // b's hold passes at once; a's lasts a minute and counts once.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        while r.pending().await.unwrap() != 1 {
            assert!(
                tokio::time::Instant::now() < deadline,
                "b never stopped counting"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let left: Vec<String> = conn.zrange(PENDING, 0, -1).await.unwrap();
        assert_eq!(left, vec![a]);
        let _: () = conn.del(PENDING).await.unwrap();
    }
}
