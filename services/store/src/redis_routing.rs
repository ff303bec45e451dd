//! Redis routing for a fleet. `route:{session}` is a hash `{worker, epoch}` changed
//! only by Lua scripts, so a claim's read-increment-write is atomic; the registry is
//! `worker:{id}` (JSON, expiring) plus a `workers` sorted set scored by expiry;
//! pending demand is the `pending` sorted set of session IDs scored by expiry;
//! a person's control of a session is `control:{session}`, its holder, expiring
//! with the lease.
//! Every key starts with the configured prefix (empty by default), so one Redis
//! can serve several fleets.

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

/// Sets the holder unless another one holds the key; renews the lease either way.
const TAKE_CONTROL: &str = r"
local cur = redis.call('GET', KEYS[1])
if cur and cur ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
";

/// Deletes the key only if `holder` still holds it.
const RELEASE_CONTROL: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0
";

/// Routing in Redis.
#[derive(Clone)]
pub struct RedisRouting {
    pub(crate) conn: ConnectionManager,
    /// For the connections a subscription needs (`events.rs`).
    pub(crate) client: redis::Client,
    claim: redis::Script,
    release: redis::Script,
    take_control: redis::Script,
    release_control: redis::Script,
    pub(crate) admit: redis::Script,
    pub(crate) prefix: String,
}

/// The sorted set of pending session IDs, scored by when they stop counting.
const PENDING: &str = "pending";
/// The sorted set of worker IDs, scored by when their registration expires.
const WORKERS: &str = "workers";
/// Longest key prefix: a prefix names a fleet, not data.
pub const MAX_KEY_PREFIX_CHARS: usize = 64;

impl RedisRouting {
    fn route_key(&self, session_id: &str) -> String {
        format!("{}route:{session_id}", self.prefix)
    }

    fn control_key(&self, session_id: &str) -> String {
        format!("{}control:{session_id}", self.prefix)
    }

    fn worker_key(&self, worker_id: &str) -> String {
        format!("{}worker:{worker_id}", self.prefix)
    }

    pub(crate) fn key(&self, name: &str) -> String {
        format!("{}{name}", self.prefix)
    }

    /// Connects, failing fast when Redis does not answer. Every key is put
    /// under `prefix` (at most [`MAX_KEY_PREFIX_CHARS`] printable ASCII
    /// characters, no spaces).
    pub async fn connect(url: &str, prefix: &str) -> Result<Self, StoreError> {
        if prefix.len() > MAX_KEY_PREFIX_CHARS || !prefix.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(StoreError::InvalidConfig(format!(
                "the Redis key prefix must be at most {MAX_KEY_PREFIX_CHARS} printable ASCII characters without spaces; got {prefix:?}"
            )));
        }
        let client = redis::Client::open(url)?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(Duration::from_secs(3)))
            .set_response_timeout(Some(Duration::from_secs(3)))
            .set_number_of_retries(2);
        let conn = client.get_connection_manager_with_config(config).await?;
        Ok(Self {
            conn,
            client,
            claim: redis::Script::new(CLAIM),
            release: redis::Script::new(RELEASE),
            take_control: redis::Script::new(TAKE_CONTROL),
            release_control: redis::Script::new(RELEASE_CONTROL),
            admit: redis::Script::new(crate::redis_limiter::ADMIT),
            prefix: prefix.to_owned(),
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
            .set_ex(self.worker_key(&info.id), json, ttl.as_secs().max(1))
            .ignore()
            .zadd(self.key(WORKERS), &info.id, expires)
            .ignore()
            .query_async::<()>(&mut conn)
            .await?;
        Ok(())
    }

    async fn deregister(&self, worker_id: &str) -> Result<(), StoreError> {
        let mut conn = self.conn.clone();
        redis::pipe()
            .atomic()
            .del(self.worker_key(worker_id))
            .ignore()
            .zrem(self.key(WORKERS), worker_id)
            .ignore()
            .query_async::<()>(&mut conn)
            .await?;
        Ok(())
    }

    async fn workers(&self) -> Result<Vec<WorkerInfo>, StoreError> {
        let mut conn = self.conn.clone();
        let now = now_millis();
        let _: () = conn.zrembyscore(self.key(WORKERS), "-inf", now).await?;
        let ids: Vec<String> = conn.zrangebyscore(self.key(WORKERS), now, "+inf").await?;
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let keys: Vec<String> = ids.iter().map(|id| self.worker_key(id)).collect();
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
        let fields: (Option<String>, Option<u64>) = redis::cmd("HMGET")
            .arg(self.route_key(session_id))
            .arg("worker")
            .arg("epoch")
            .query_async(&mut conn)
            .await?;
        Ok(route_of(fields))
    }

    async fn claim(&self, session_id: &str, worker: &str, floor: u64) -> Result<Route, StoreError> {
        let mut conn = self.conn.clone();
        let epoch: u64 = self
            .claim
            .key(self.route_key(session_id))
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
            .key(self.route_key(session_id))
            .arg(worker)
            .arg(epoch)
            .invoke_async(&mut conn)
            .await?;
        Ok(released == 1)
    }

    async fn forget(&self, session_id: &str) -> Result<(), StoreError> {
        let mut conn = self.conn.clone();
        let keys = [self.route_key(session_id), self.control_key(session_id)];
        let _: () = conn.del(&keys).await?;
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
        let _: () = conn.zadd(self.key(PENDING), session_id, until).await?;
        Ok(())
    }

    async fn pending(&self) -> Result<u32, StoreError> {
        let mut conn = self.conn.clone();
        let (_, n): (i64, u32) = redis::pipe()
            .atomic()
            .zrembyscore(self.key(PENDING), "-inf", now_millis())
            .zcard(self.key(PENDING))
            .query_async(&mut conn)
            .await?;
        Ok(n)
    }

    async fn take_control(
        &self,
        session_id: &str,
        holder: &str,
        lease: Duration,
    ) -> Result<bool, StoreError> {
        let mut conn = self.conn.clone();
        let taken: i64 = self
            .take_control
            .key(self.control_key(session_id))
            .arg(holder)
            .arg(u64::try_from(lease.as_millis()).unwrap_or(u64::MAX).max(1))
            .invoke_async(&mut conn)
            .await?;
        Ok(taken == 1)
    }

    async fn release_control(&self, session_id: &str, holder: &str) -> Result<(), StoreError> {
        let mut conn = self.conn.clone();
        let _: i64 = self
            .release_control
            .key(self.control_key(session_id))
            .arg(holder)
            .invoke_async(&mut conn)
            .await?;
        Ok(())
    }

    async fn controller(&self, session_id: &str) -> Result<Option<String>, StoreError> {
        let mut conn = self.conn.clone();
        Ok(conn.get(self.control_key(session_id)).await?)
    }

    async fn route_and_controller(
        &self,
        session_id: &str,
    ) -> Result<(Option<Route>, Option<String>), StoreError> {
        let mut conn = self.conn.clone();
        // One pipeline: both commands go out in one write, both answers come
        // back in one read.
        let (fields, controller): ((Option<String>, Option<u64>), Option<String>) = redis::pipe()
            .cmd("HMGET")
            .arg(self.route_key(session_id))
            .arg("worker")
            .arg("epoch")
            .cmd("GET")
            .arg(self.control_key(session_id))
            .query_async(&mut conn)
            .await?;
        Ok((route_of(fields), controller))
    }
}

/// The route a route hash's `worker` and `epoch` fields name, if whole.
fn route_of(fields: (Option<String>, Option<u64>)) -> Option<Route> {
    match fields {
        (Some(worker), Some(epoch)) if !worker.is_empty() => Some(Route { worker, epoch }),
        _ => None,
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
        let r = RedisRouting::connect(&format!("{url}/15"), "")
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

    #[tokio::test]
    async fn a_route_and_its_controller_read_together_are_what_each_read_alone_finds() {
        let r = redis().await;
        let session = uuid::Uuid::new_v4().to_string();
        assert_eq!(
            r.route_and_controller(&session).await.unwrap(),
            (None, None)
        );
        let route = r.claim(&session, "w1", 4).await.unwrap();
        assert_eq!(
            r.route_and_controller(&session).await.unwrap(),
            (Some(route.clone()), None)
        );
        assert!(
            r.take_control(&session, "alice", Duration::from_secs(30))
                .await
                .unwrap()
        );
        let both = r.route_and_controller(&session).await.unwrap();
        assert_eq!(both, (Some(route), Some("alice".to_owned())));
        assert_eq!(
            both,
            (
                r.route(&session).await.unwrap(),
                r.controller(&session).await.unwrap()
            )
        );
        r.forget(&session).await.unwrap();
        assert_eq!(
            r.route_and_controller(&session).await.unwrap(),
            (None, None)
        );
    }

    #[tokio::test]
    async fn one_person_holds_control_until_they_release_it_or_their_lease_lapses() {
        let r = redis().await;
        let session = uuid::Uuid::new_v4().to_string();
        let lease = Duration::from_secs(30);
        assert!(r.take_control(&session, "alice", lease).await.unwrap());
        assert!(
            !r.take_control(&session, "bob", lease).await.unwrap(),
            "a second person cannot take control while the first holds it"
        );
        assert!(r.take_control(&session, "alice", lease).await.unwrap());
        r.release_control(&session, "bob").await.unwrap();
        assert_eq!(
            r.controller(&session).await.unwrap().as_deref(),
            Some("alice")
        );
        r.release_control(&session, "alice").await.unwrap();
        assert_eq!(r.controller(&session).await.unwrap(), None);
        // A lease nobody renews lapses, and another person may take over.
        assert!(
            r.take_control(&session, "alice", Duration::from_millis(1))
                .await
                .unwrap()
        );
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        while !r.take_control(&session, "bob", lease).await.unwrap() {
            assert!(
                tokio::time::Instant::now() < deadline,
                "the lease never lapsed"
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert_eq!(
            r.controller(&session).await.unwrap().as_deref(),
            Some("bob")
        );
        r.forget(&session).await.unwrap();
        assert_eq!(
            r.controller(&session).await.unwrap(),
            None,
            "closing ends control"
        );
    }

    #[tokio::test]
    async fn fleets_with_different_key_prefixes_share_one_redis_without_seeing_each_other() {
        let url = std::env::var("FLEET_TEST_REDIS_URL")
            .unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
        let run = uuid::Uuid::new_v4().simple().to_string();
        let a = RedisRouting::connect(&format!("{url}/15"), &format!("a-{run}:"))
            .await
            .unwrap();
        let b = RedisRouting::connect(&format!("{url}/15"), &format!("b-{run}:"))
            .await
            .unwrap();
        let info = |id: &str| WorkerInfo {
            id: id.into(),
            address: "http://127.0.0.1:1".into(),
            capacity: 4,
            live_sessions: 0,
        };
        a.heartbeat(&info("wa"), Duration::from_secs(30))
            .await
            .unwrap();
        b.heartbeat(&info("wb"), Duration::from_secs(30))
            .await
            .unwrap();
        let session = uuid::Uuid::new_v4().to_string();
        a.claim(&session, "wa", 0).await.unwrap();
        assert_eq!(a.workers().await.unwrap(), vec![info("wa")]);
        assert_eq!(b.workers().await.unwrap(), vec![info("wb")]);
        assert_eq!(b.route(&session).await.unwrap(), None);
        assert_eq!(a.route(&session).await.unwrap().unwrap().worker, "wa");
        let mut conn = a.conn.clone();
        let stored: bool = conn
            .exists(format!("a-{run}:route:{session}"))
            .await
            .unwrap();
        assert!(stored, "the route lives under fleet a's prefix");
        for (r, w) in [(&a, "wa"), (&b, "wb")] {
            r.deregister(w).await.unwrap();
        }
        a.forget(&session).await.unwrap();
        assert!(
            RedisRouting::connect(&format!("{url}/15"), "has space")
                .await
                .is_err()
        );
    }
}
