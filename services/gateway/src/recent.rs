//! What the gateway remembers so calls on live sessions keep working while
//! Postgres or Redis is away: keys it verified, session rows and routes it
//! read, the worker list. Every read goes to the store first and refreshes the
//! memory; the memory answers only when the store is unreachable
//! ([`StoreError::is_outage`]), and only for entries younger than the grace
//! period. Keys are the exception: a key verified within the key TTL is
//! trusted without asking the database at all, which is why a revoked key can
//! keep working for up to that TTL (the README says so). So are session rows
//! on the path of a call to a live session, within their reuse period
//! ([`Recent::live_row`] says why that cannot run what the store refuses).

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
    /// A session row read or written this recently answers a later call on
    /// the same live session without being read again ([`Recent::live_row`]).
    pub session_reuse: Duration,
    /// While a store is unreachable, what was confirmed within this long
    /// still answers (keys included).
    pub outage: Duration,
}

impl Default for Grace {
    fn default() -> Self {
        Self {
            key_ttl: Duration::from_secs(60),
            session_reuse: Duration::from_secs(30),
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

    /// The row of session `id` as read or written within the reuse period,
    /// when it may stand in for reading it again: still the tenant's, not
    /// failed, and not expired by its own (possibly older) expiry.
    ///
    /// What a row can change into meanwhile is why this is safe. The tenant
    /// never changes. The expiry only moves later (each checkpoint extends
    /// it), so a remembered row that has not expired belongs to a stored one
    /// that has not either, and the sweep deletes only expired rows. A closed
    /// session loses its route as well, and a caller must read the row again
    /// whenever the route is missing. A failed session is one whose restore
    /// failed, which a worker reports again if asked to run it. The epoch it
    /// carries can be older than the stored one, which only matters as the
    /// floor of a claim without a route, again after a fresh read.
    pub fn live_row(&self, id: &str, tenant: &str, now_ms: i64) -> Option<SessionRow> {
        let row = self
            .sessions
            .younger_than(&id.to_owned(), self.grace.session_reuse)?;
        let usable = row.tenant_id == tenant
            && !row.expired(now_ms)
            && row.status != fleet_store::SessionStatus::Failed;
        usable.then_some(row)
    }

    /// Stops reusing a session's row, so the next call reads it.
    pub fn forget_row(&self, id: &str) {
        self.sessions.remove(&id.to_owned());
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
    /// remembered registry, all under its lock. A call that restores a
    /// session reads the session's row and route between its snapshot and
    /// its pick, so in a burst of restores (a worker gone with its sessions)
    /// every snapshot is older than the others' placements; without this
    /// they would all take the worker that was least loaded at the read.
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
mod tests;
