//! What the gateway remembers so calls on live sessions keep working while
//! Postgres or Redis is away: keys it verified, session rows and routes it
//! read, the worker list. Every read goes to the store first and refreshes the
//! memory; the memory answers only when the store is unreachable
//! ([`StoreError::is_outage`]), and only for entries younger than the grace
//! period. Keys are the exception: a key verified within the key TTL is
//! trusted without asking the database at all, which is why a revoked key can
//! keep working for up to that TTL (the README says so).

use std::collections::HashMap;
use std::future::Future;
use std::hash::Hash;
use std::sync::Mutex;
use std::time::Duration;

use fleet_store::{Route, SessionRow, StoreError, Tenant, WorkerInfo};
use tokio::time::Instant;

/// How long one read of the worker registry answers every call of this
/// gateway. Workers write their entries every 2 s (`--heartbeat-secs`), so a
/// read is that stale already; reusing it this long saves each call the
/// registry's Redis round trips. A worker that left since is refused on
/// connect (or refuses, draining) and the call moves on to another; a session
/// whose owner is missing from a reused read reads the registry again.
pub const REGISTRY_REUSE: Duration = Duration::from_secs(1);

/// Most entries one memory holds; beyond it the oldest are dropped first (a
/// gateway sees at most this many distinct sessions within a grace period).
pub const MAX_REMEMBERED: usize = 100_000;

/// One bounded memory of values by key, each stamped with when it was last
/// confirmed by its store.
pub(crate) struct Memory<K, V> {
    kind: &'static str,
    entries: Mutex<HashMap<K, (V, Instant)>>,
}

impl<K: Eq + Hash + Clone, V: Clone> Memory<K, V> {
    pub(crate) fn new(kind: &'static str) -> Self {
        Self {
            kind,
            entries: Mutex::new(HashMap::new()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<K, (V, Instant)>> {
        // Holds plain values: a panic elsewhere cannot leave it half-written.
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The value if it was confirmed less than `age` ago.
    pub(crate) fn younger_than(&self, key: &K, age: Duration) -> Option<V> {
        let entries = self.lock();
        let (v, at) = entries.get(key)?;
        (at.elapsed() < age).then(|| v.clone())
    }

    pub(crate) fn put(&self, key: K, value: V) {
        let mut entries = self.lock();
        if entries.len() >= MAX_REMEMBERED && !entries.contains_key(&key) {
            // Drop the oldest tenth in one pass rather than one per insert.
            let mut by_age: Vec<(Instant, K)> = entries
                .iter()
                .map(|(k, (_, at))| (*at, k.clone()))
                .collect();
            by_age.sort_unstable_by_key(|(at, _)| *at);
            for (_, k) in by_age.into_iter().take(MAX_REMEMBERED / 10) {
                entries.remove(&k);
            }
        }
        entries.insert(key, (value, Instant::now()));
    }

    /// Changes a remembered value in place, keeping when it was confirmed.
    fn update<R>(&self, key: &K, change: impl FnOnce(Option<&mut V>) -> R) -> R {
        change(self.lock().get_mut(key).map(|(v, _)| v))
    }

    fn remove(&self, key: &K) {
        self.lock().remove(key);
    }

    /// Reads through `fetch`; on an outage answers from memory within `grace`.
    pub(crate) async fn read_through(
        &self,
        key: K,
        grace: Duration,
        fetch: impl Future<Output = Result<Option<V>, StoreError>>,
    ) -> Result<Option<V>, StoreError> {
        match fetch.await {
            Ok(Some(v)) => {
                self.put(key, v.clone());
                Ok(Some(v))
            }
            Ok(None) => {
                self.remove(&key);
                Ok(None)
            }
            Err(e) if e.is_outage() => match self.younger_than(&key, grace) {
                Some(v) => {
                    fleet_telemetry::counter!("fleet_gateway_remembered_total", "kind" => self.kind)
                        .increment(1);
                    Ok(Some(v))
                }
                None => Err(e),
            },
            Err(e) => Err(e),
        }
    }
}

/// How long what was seen stays usable.
#[derive(Debug, Clone, Copy)]
pub struct Grace {
    /// A verified key is trusted without asking the database for this long.
    pub key_ttl: Duration,
    /// While a store is unreachable, what was confirmed within this long
    /// still answers (keys included).
    pub outage: Duration,
}

impl Default for Grace {
    fn default() -> Self {
        Self {
            key_ttl: Duration::from_secs(60),
            outage: Duration::from_secs(15 * 60),
        }
    }
}

/// The gateway's memory of its stores.
pub struct Recent {
    grace: Grace,
    /// Tenants by key hash (the key itself is never kept).
    keys: Memory<String, Tenant>,
    sessions: Memory<String, SessionRow>,
    routes: Memory<String, Route>,
    workers: Memory<(), Vec<WorkerInfo>>,
    /// Per worker: the count the last registry read reported, and the
    /// sessions this gateway placed on it since.
    tally: Mutex<HashMap<String, Tally>>,
    /// Held while the registry is read for calls that found no fresh read.
    reading: tokio::sync::Mutex<()>,
    /// Each worker by ID, from the registry reads it appeared in.
    worker_by_id: Memory<String, WorkerInfo>,
}

/// One worker's sessions as this gateway last read them, and placed since.
#[derive(Debug, Clone, Copy)]
struct Tally {
    reported: u32,
    /// Placed since that read, plus what earlier reads had not counted yet.
    placed: u32,
    last_placed: Option<Instant>,
}

/// How long after this gateway last placed a session on a worker the
/// placements its reads do not show yet are still added: a heartbeat (2 s)
/// and a create's first page.
const UNREPORTED_FOR: Duration = Duration::from_secs(4);

impl Recent {
    /// An empty memory with the given grace periods.
    pub fn new(grace: Grace) -> Self {
        Self {
            grace,
            keys: Memory::new("key"),
            sessions: Memory::new("session"),
            routes: Memory::new("route"),
            workers: Memory::new("workers"),
            tally: Mutex::default(),
            reading: tokio::sync::Mutex::new(()),
            worker_by_id: Memory::new("worker"),
        }
    }

    /// The tenant of a key: from memory when verified within the key TTL,
    /// otherwise from `lookup` (the database).
    pub async fn tenant_for_key(
        &self,
        key: &str,
        lookup: impl Future<Output = Result<Option<Tenant>, StoreError>>,
    ) -> Result<Option<Tenant>, StoreError> {
        let hash = fleet_store::hash_key(key);
        if let Some(t) = self.keys.younger_than(&hash, self.grace.key_ttl) {
            fleet_telemetry::counter!("fleet_gateway_key_cache_hits_total").increment(1);
            return Ok(Some(t));
        }
        self.keys
            .read_through(hash, self.grace.outage, lookup)
            .await
    }

    /// The tenant named `name` (an OIDC token's claim): from memory within the
    /// key TTL, otherwise through `lookup`.
    pub async fn tenant_named(
        &self,
        name: &str,
        lookup: impl Future<Output = Result<Tenant, StoreError>>,
    ) -> Result<Tenant, StoreError> {
        // Names live beside key hashes; the marker keeps the two apart.
        let key = format!("tenant-name:{name}");
        if let Some(t) = self.keys.younger_than(&key, self.grace.key_ttl) {
            return Ok(t);
        }
        let found = self
            .keys
            .read_through(key, self.grace.outage, async { lookup.await.map(Some) })
            .await?;
        found.ok_or(StoreError::NotFound)
    }

    /// A session row, through `fetch`.
    pub async fn session(
        &self,
        id: &str,
        fetch: impl Future<Output = Result<Option<SessionRow>, StoreError>>,
    ) -> Result<Option<SessionRow>, StoreError> {
        self.sessions
            .read_through(id.to_owned(), self.grace.outage, fetch)
            .await
    }

    /// Remembers a row the gateway just wrote.
    pub fn saw_session(&self, row: SessionRow) {
        self.sessions.put(row.id.clone(), row);
    }

    /// A session's route, through `fetch`.
    pub async fn route(
        &self,
        id: &str,
        fetch: impl Future<Output = Result<Option<Route>, StoreError>>,
    ) -> Result<Option<Route>, StoreError> {
        self.routes
            .read_through(id.to_owned(), self.grace.outage, fetch)
            .await
    }

    /// Remembers a route the gateway just claimed.
    pub fn claimed(&self, id: &str, route: Route) {
        self.routes.put(id.to_owned(), route);
    }

    /// Forgets a closed session.
    pub fn closed(&self, id: &str) {
        self.sessions.remove(&id.to_owned());
        self.routes.remove(&id.to_owned());
    }

    /// The live workers: the registry as read within [`REGISTRY_REUSE`],
    /// otherwise through `fetch`. An empty registry is always read again, so
    /// the first worker to register is seen at once.
    pub async fn workers(
        &self,
        fetch: impl Future<Output = Result<Vec<WorkerInfo>, StoreError>>,
    ) -> Result<Vec<WorkerInfo>, StoreError> {
        let reused = || {
            self.workers
                .younger_than(&(), REGISTRY_REUSE)
                .filter(|found| !found.is_empty())
        };
        if let Some(found) = reused() {
            return Ok(found);
        }
        // One read at a time: the calls of a burst that all found the read
        // too old wait for the first one's instead of each asking Redis.
        let _reading = self.reading.lock().await;
        if let Some(found) = reused() {
            return Ok(found);
        }
        self.read_workers(fetch).await
    }

    /// The live workers through `fetch`, whatever was read before: for a
    /// call whose session's owner is missing from a reused registry, which
    /// may only have registered since.
    pub async fn read_workers(
        &self,
        fetch: impl Future<Output = Result<Vec<WorkerInfo>, StoreError>>,
    ) -> Result<Vec<WorkerInfo>, StoreError> {
        let found = self
            .workers
            .read_through((), self.grace.outage, async {
                fetch.await.map(|mut found| {
                    self.count_unreported(&mut found);
                    Some(found)
                })
            })
            .await?
            .unwrap_or_default();
        for w in &found {
            self.worker_by_id.put(w.id.clone(), w.clone());
        }
        Ok(found)
    }

    /// A worker counts a session once its create ran, and says so in its
    /// next heartbeat: a fresh read can be behind what this gateway placed.
    /// Until [`UNREPORTED_FOR`] after this gateway last placed a session on
    /// a worker, its count is therefore at least the previous read's plus the
    /// placements since, and what a read does not show yet is carried to the
    /// next (a session closed meanwhile is counted that long at most).
    fn count_unreported(&self, found: &mut [WorkerInfo]) {
        let mut tally = self.tally.lock().unwrap_or_else(|p| p.into_inner());
        let mut next = HashMap::with_capacity(found.len());
        for w in found.iter_mut() {
            let reported = w.live_sessions;
            let mut carried = Tally {
                reported,
                placed: 0,
                last_placed: None,
            };
            if let Some(t) = tally.get(&w.id)
                && t.last_placed
                    .is_some_and(|at| at.elapsed() < UNREPORTED_FOR)
            {
                w.live_sessions = reported.max(t.reported.saturating_add(t.placed));
                carried.placed = w.live_sessions - reported;
                carried.last_placed = t.last_placed;
            }
            next.insert(w.id.clone(), carried);
        }
        *tally = next;
    }

    /// Places a session with `pick` on a call's registry snapshot, first
    /// brought up to the counts remembered now, and counts the pick in the
    /// remembered registry, all under its lock. The calls of one burst each
    /// read the registry before the others placed; without this they would
    /// all take the worker that was least loaded at the read.
    pub fn place(
        &self,
        snapshot: &mut [WorkerInfo],
        pick: impl FnOnce(&mut [WorkerInfo]) -> Option<WorkerInfo>,
    ) -> Option<WorkerInfo> {
        self.workers.update(&(), |remembered| {
            if let Some(now) = remembered.as_deref() {
                for w in snapshot.iter_mut() {
                    if let Some(r) = now.iter().find(|r| r.id == w.id) {
                        w.live_sessions = w.live_sessions.max(r.live_sessions);
                    }
                }
            }
            let taken = pick(snapshot)?;
            if let Some(r) = remembered.and_then(|ws| ws.iter_mut().find(|r| r.id == taken.id)) {
                r.live_sessions = r.live_sessions.saturating_add(1);
            }
            let mut tally = self.tally.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(t) = tally.get_mut(&taken.id) {
                t.placed = t.placed.saturating_add(1);
                t.last_placed = Some(Instant::now());
            }
            Some(taken)
        })
    }

    /// A worker the registry listed within the outage grace. Right after Redis
    /// comes back its registry is empty until each worker's next heartbeat; a
    /// session's owner from before is still worth one try (a worker that is
    /// really gone refuses the connection, and the call moves on).
    pub fn worker_seen(&self, id: &str) -> Option<WorkerInfo> {
        self.worker_by_id
            .younger_than(&id.to_owned(), self.grace.outage)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tenant() -> Tenant {
        Tenant {
            id: "t1".into(),
            name: "acme".into(),
        }
    }

    fn outage<T>() -> Result<T, StoreError> {
        Err(StoreError::Unavailable("postgres"))
    }

    #[tokio::test(start_paused = true)]
    async fn a_verified_key_is_trusted_for_its_ttl_then_asked_again() {
        let recent = Recent::new(Grace {
            key_ttl: Duration::from_secs(60),
            outage: Duration::from_secs(600),
        });
        let found = recent
            .tenant_for_key("sfk_a", async { Ok(Some(tenant())) })
            .await;
        assert_eq!(found.unwrap(), Some(tenant()));
        // Within the TTL the database is not asked (it would say "revoked").
        tokio::time::advance(Duration::from_secs(59)).await;
        let cached = recent.tenant_for_key("sfk_a", async { Ok(None) }).await;
        assert_eq!(cached.unwrap(), Some(tenant()));
        // Past it, a revocation is seen.
        tokio::time::advance(Duration::from_secs(2)).await;
        assert_eq!(
            recent
                .tenant_for_key("sfk_a", async { Ok(None) })
                .await
                .unwrap(),
            None
        );
        assert!(
            recent
                .tenant_for_key("sfk_a", async { outage() })
                .await
                .is_err(),
            "a key the database just refused is not served from memory"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn during_an_outage_a_key_seen_within_the_grace_still_works_and_an_unknown_one_does_not()
    {
        let recent = Recent::new(Grace::default());
        recent
            .tenant_for_key("sfk_a", async { Ok(Some(tenant())) })
            .await
            .unwrap();
        tokio::time::advance(Duration::from_secs(120)).await;
        assert_eq!(
            recent
                .tenant_for_key("sfk_a", async { outage() })
                .await
                .unwrap(),
            Some(tenant())
        );
        assert!(
            recent
                .tenant_for_key("sfk_b", async { outage() })
                .await
                .is_err()
        );
        tokio::time::advance(Duration::from_secs(15 * 60)).await;
        assert!(
            recent
                .tenant_for_key("sfk_a", async { outage() })
                .await
                .is_err(),
            "past the grace period nothing is served from memory"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn routes_answer_from_memory_only_during_an_outage() {
        let recent = Recent::new(Grace::default());
        let r = Route {
            worker: "w1".into(),
            epoch: 4,
        };
        recent.claimed("s1", r.clone());
        assert_eq!(
            recent.route("s1", async { outage() }).await.unwrap(),
            Some(r.clone())
        );
        // The store's answer wins whenever there is one.
        let moved = Route {
            worker: "w2".into(),
            epoch: 5,
        };
        let m = moved.clone();
        assert_eq!(
            recent.route("s1", async { Ok(Some(m)) }).await.unwrap(),
            Some(moved.clone())
        );
        assert_eq!(
            recent.route("s1", async { outage() }).await.unwrap(),
            Some(moved)
        );
        recent.closed("s1");
        assert!(recent.route("s1", async { outage() }).await.is_err());
        // A logical error is never papered over.
        let stale = recent
            .route("s2", async { Err(StoreError::Corrupt("bad".into())) })
            .await;
        assert!(matches!(stale, Err(StoreError::Corrupt(_))));
    }

    #[tokio::test(start_paused = true)]
    async fn a_registry_read_serves_calls_for_a_second_and_an_empty_one_is_read_again() {
        let recent = Recent::new(Grace::default());
        let worker = |id: &str| WorkerInfo {
            id: id.into(),
            address: String::new(),
            capacity: 4,
            live_sessions: 0,
        };
        let empty = recent.workers(async { Ok(Vec::new()) }).await.unwrap();
        assert!(empty.is_empty());
        let first = recent
            .workers(async { Ok(vec![worker("w1")]) })
            .await
            .unwrap();
        assert_eq!(first.len(), 1, "an empty registry is not reused");
        tokio::time::advance(REGISTRY_REUSE - Duration::from_millis(1)).await;
        let reused = recent
            .workers(async { Ok(vec![worker("w1"), worker("w2")]) })
            .await
            .unwrap();
        assert_eq!(reused.len(), 1, "within the reuse the store is not asked");
        let fresh = recent
            .read_workers(async { Ok(vec![worker("w1"), worker("w2")]) })
            .await
            .unwrap();
        assert_eq!(fresh.len(), 2, "a forced read asks the store");
        tokio::time::advance(REGISTRY_REUSE).await;
        let later = recent
            .workers(async { Ok(vec![worker("w2")]) })
            .await
            .unwrap();
        assert_eq!(later[0].id, "w2", "past the reuse the store answers");
    }

    fn worker(id: &str, live: u32) -> WorkerInfo {
        WorkerInfo {
            id: id.into(),
            address: String::new(),
            capacity: 1_000,
            live_sessions: live,
        }
    }

    /// Places one session on the least loaded of `snapshot`, as a call does.
    fn place_one(recent: &Recent, snapshot: &mut [WorkerInfo]) -> String {
        recent
            .place(snapshot, |ws| {
                let w = ws.iter_mut().min_by_key(|w| w.live_sessions)?;
                w.live_sessions += 1;
                Some(w.clone())
            })
            .unwrap()
            .id
    }

    fn counts(ws: &[WorkerInfo]) -> Vec<(&str, u32)> {
        ws.iter()
            .map(|w| (w.id.as_str(), w.live_sessions))
            .collect()
    }

    #[tokio::test(start_paused = true)]
    async fn a_reused_registry_read_counts_the_sessions_this_gateway_placed() {
        let recent = Recent::new(Grace::default());
        recent
            .workers(async { Ok(vec![worker("w1", 0), worker("w2", 2)]) })
            .await
            .unwrap();
        let mut snapshot = recent.workers(async { Ok(Vec::new()) }).await.unwrap();
        assert_eq!(place_one(&recent, &mut snapshot), "w1");
        assert_eq!(place_one(&recent, &mut snapshot), "w1");
        let reused = recent.workers(async { Ok(Vec::new()) }).await.unwrap();
        assert_eq!(counts(&reused), [("w1", 2), ("w2", 2)]);
        tokio::time::advance(REGISTRY_REUSE - Duration::from_millis(1)).await;
        assert!(
            recent
                .workers(async { Ok(Vec::new()) })
                .await
                .is_ok_and(|w| w.len() == 2),
            "counting a placement does not make the read younger"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn the_calls_of_a_burst_spread_over_the_workers_though_each_read_before_the_others_placed()
     {
        let recent = Recent::new(Grace::default());
        let read = || async { Ok(vec![worker("w1", 0), worker("w2", 0)]) };
        recent.workers(read()).await.unwrap();
        // Every call of the burst took its snapshot before any of them placed.
        let mut snapshots = Vec::new();
        for _ in 0..100 {
            snapshots.push(recent.workers(read()).await.unwrap());
        }
        let mut on_w1 = 0;
        for snapshot in &mut snapshots {
            if place_one(&recent, snapshot) == "w1" {
                on_w1 += 1;
            }
        }
        assert_eq!(on_w1, 50, "the burst went {on_w1} / {} ", 100 - on_w1);
    }

    #[tokio::test(start_paused = true)]
    async fn a_fresh_read_behind_this_gateways_placements_keeps_them_until_the_workers_had_time_to_count_them()
     {
        let recent = Recent::new(Grace::default());
        recent
            .read_workers(async { Ok(vec![worker("w1", 3), worker("w2", 3)]) })
            .await
            .unwrap();
        let mut snapshot = recent.workers(async { Ok(Vec::new()) }).await.unwrap();
        for _ in 0..4 {
            place_one(&recent, &mut snapshot);
        }
        // The workers' heartbeats have not counted those sessions yet.
        let behind = recent
            .read_workers(async { Ok(vec![worker("w1", 3), worker("w2", 4)]) })
            .await
            .unwrap();
        assert_eq!(counts(&behind), [("w1", 5), ("w2", 5)]);
        // A second read still behind, within the window: still counted.
        tokio::time::advance(UNREPORTED_FOR - Duration::from_millis(1)).await;
        let still = recent
            .read_workers(async { Ok(vec![worker("w1", 3), worker("w2", 4)]) })
            .await
            .unwrap();
        assert_eq!(counts(&still), [("w1", 5), ("w2", 5)]);
        // w1 counted them now; w2 did too, but one of its sessions closed,
        // which shows only once the window is over.
        let caught_up = recent
            .read_workers(async { Ok(vec![worker("w1", 5), worker("w2", 4)]) })
            .await
            .unwrap();
        assert_eq!(counts(&caught_up), [("w1", 5), ("w2", 5)]);
        // Past the window a worker's own count wins, even a lower one.
        tokio::time::advance(UNREPORTED_FOR).await;
        let own = recent
            .read_workers(async { Ok(vec![worker("w1", 2), worker("w2", 4)]) })
            .await
            .unwrap();
        assert_eq!(counts(&own), [("w1", 2), ("w2", 4)]);
    }

    #[test]
    fn a_full_memory_drops_its_oldest_entries_first() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .unwrap();
        rt.block_on(async {
            let m: Memory<usize, usize> = Memory::new("test");
            for i in 0..MAX_REMEMBERED {
                m.put(i, i);
                if i == 0 {
                    tokio::time::advance(Duration::from_millis(1)).await;
                }
            }
            tokio::time::advance(Duration::from_millis(1)).await;
            m.put(MAX_REMEMBERED, 0);
            let entries = m.lock();
            assert!(!entries.contains_key(&0), "the oldest entry went");
            assert!(entries.contains_key(&MAX_REMEMBERED));
            assert!(entries.len() <= MAX_REMEMBERED);
        });
    }
}
