//! The code cache: page scripts' bytecode, kept by the worker for the tabs of
//! one tenant, so a library such as jQuery is compiled once per worker and
//! tenant rather than by every document that runs it.
//!
//! A tab asks for a script by its name and source (`code-cache.script`).
//! On a miss it compiles the script itself, as before, and the script waits
//! here until the worker has an idle moment: then a fresh instance that runs
//! no page compiles it (`page.compile-script`), so no page has a hand in the
//! bytecode another tab runs. An entry is found by a SHA-256 of the tenant,
//! the name and the source: what one tenant's pages ran tells another
//! tenant's nothing, not even by a load's speed, and a page cannot make its
//! source collide with another script's.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use sha2::{Digest as _, Sha256};

/// Scripts shorter than this compile in less time than a lookup saves.
pub const MIN_SCRIPT_BYTES: usize = 1024;
/// Scripts longer than this are compiled by the tab that runs them, every
/// time: bigger bundles are rare, and the cache would hold few of them.
pub const MAX_SCRIPT_BYTES: usize = 4 << 20;
/// Bytecode a worker keeps in all (it holds the source text as well);
/// the least recently used scripts go first.
pub const CACHE_BYTES: usize = 64 << 20;
/// Scripts waiting to be compiled, and their source text in all: a burst of
/// new scripts past these is compiled by its tabs only.
const MAX_PENDING: usize = 32;
const MAX_PENDING_BYTES: usize = 16 << 20;
/// Time one script's compile may take in its fresh instance.
pub const COMPILE_BUDGET: Duration = Duration::from_secs(5);

/// What a script is kept under.
pub type Key = [u8; 32];

/// The cache of one worker.
#[derive(Default)]
pub struct CodeCache {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    entries: HashMap<Key, Entry>,
    /// Bytecode bytes held by `entries`.
    bytes: usize,
    /// Counts lookups, to find the least recently used entry.
    clock: u64,
    pending: VecDeque<Pending>,
    pending_bytes: usize,
    hits: u64,
    misses: u64,
}

/// What the cache holds and how it served tabs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CodeCacheStats {
    /// Scripts kept (those that do not compile included).
    pub scripts: usize,
    /// Their bytecode, bytes.
    pub bytes: usize,
    /// Lookups of scripts worth keeping that found bytecode.
    pub hits: u64,
    /// Lookups of scripts worth keeping that found none.
    pub misses: u64,
}

struct Entry {
    /// `None`: the script does not compile; its tabs report the error.
    bytecode: Option<Arc<[u8]>>,
    used: u64,
}

/// A script waiting for its compile.
pub struct Pending {
    /// What its bytecode is kept under.
    pub key: Key,
    /// Its URL (or its page's, inline).
    pub name: String,
    /// Its text.
    pub source: String,
}

/// The key of the script `source` named `name` for `tenant`. Each field is
/// prefixed with its length, so no two different triples hash alike.
pub fn key(tenant: &str, name: &str, source: &str) -> Key {
    let mut hash = Sha256::new();
    for field in [tenant, name, source] {
        hash.update((field.len() as u64).to_le_bytes());
        hash.update(field.as_bytes());
    }
    hash.finalize().into()
}

impl CodeCache {
    fn inner(&self) -> std::sync::MutexGuard<'_, Inner> {
        // Every change below leaves the maps consistent before it can panic.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The bytecode kept for the script, or `None`; a script worth keeping
    /// that is not kept yet waits for [`CodeCache::next_pending`].
    pub fn lookup(&self, tenant: &str, name: &str, source: &str) -> Option<Vec<u8>> {
        if !(MIN_SCRIPT_BYTES..=MAX_SCRIPT_BYTES).contains(&source.len()) {
            return None;
        }
        let key = key(tenant, name, source);
        let mut inner = self.inner();
        inner.clock += 1;
        let now = inner.clock;
        if let Some(entry) = inner.entries.get_mut(&key) {
            entry.used = now;
            let bytecode = entry.bytecode.as_deref().map(<[u8]>::to_vec);
            let hit = bytecode.is_some();
            if hit {
                inner.hits += 1;
            } else {
                inner.misses += 1;
            }
            counted(hit);
            return bytecode;
        }
        inner.misses += 1;
        counted(false);
        let waiting = inner.pending.iter().any(|p| p.key == key);
        if !waiting
            && inner.pending.len() < MAX_PENDING
            && inner.pending_bytes + source.len() <= MAX_PENDING_BYTES
        {
            inner.pending_bytes += source.len();
            inner.pending.push_back(Pending {
                key,
                name: name.to_owned(),
                source: source.to_owned(),
            });
        }
        None
    }

    /// Whether a script waits for its compile.
    pub fn has_pending(&self) -> bool {
        !self.inner().pending.is_empty()
    }

    /// The script that has waited longest for its compile.
    pub fn next_pending(&self) -> Option<Pending> {
        let mut inner = self.inner();
        let next = inner.pending.pop_front()?;
        inner.pending_bytes -= next.source.len();
        Some(next)
    }

    /// Keeps what compiling the script under `key` gave (`None`: it does not
    /// compile), making room by dropping the least recently used scripts.
    pub fn keep(&self, key: Key, bytecode: Option<Vec<u8>>) {
        let size = bytecode.as_ref().map_or(0, Vec::len);
        if size > CACHE_BYTES {
            return;
        }
        let mut inner = self.inner();
        inner.clock += 1;
        let entry = Entry {
            bytecode: bytecode.map(Arc::from),
            used: inner.clock,
        };
        if let Some(old) = inner.entries.insert(key, entry) {
            inner.bytes -= old.bytecode.map_or(0, |b| b.len());
        }
        inner.bytes += size;
        while inner.bytes > CACHE_BYTES {
            let Some(oldest) = inner
                .entries
                .iter()
                .min_by_key(|(_, e)| e.used)
                .map(|(k, _)| *k)
            else {
                break;
            };
            if let Some(gone) = inner.entries.remove(&oldest) {
                inner.bytes -= gone.bytecode.map_or(0, |b| b.len());
            }
        }
    }

    /// What the cache holds and how it served tabs.
    pub fn stats(&self) -> CodeCacheStats {
        let inner = self.inner();
        CodeCacheStats {
            scripts: inner.entries.len(),
            bytes: inner.bytes,
            hits: inner.hits,
            misses: inner.misses,
        }
    }
}

fn counted(hit: bool) {
    let result = if hit { "hit" } else { "miss" };
    fleet_telemetry::counter!("fleet_worker_code_cache_lookups_total", "result" => result)
        .increment(1);
}

impl super::bindings::fleet::engine::code_cache::Host for super::TabState {
    async fn script(&mut self, name: String, source: String) -> Option<Vec<u8>> {
        self.code.lookup(&self.tenant, &name, &source)
    }
}

impl super::Tab {
    /// Makes the tab read the code cache's part of `tenant`, the session's.
    pub fn set_tenant(&mut self, tenant: &str) {
        tenant.clone_into(&mut self.store.data_mut().tenant);
    }
}

impl super::EngineHost {
    /// What the code cache holds and how it served tabs.
    pub fn code_cache(&self) -> CodeCacheStats {
        self.code.stats()
    }

    /// Whether page scripts wait for [`EngineHost::compile_scripts`].
    pub fn scripts_waiting(&self) -> bool {
        self.code.has_pending()
    }

    /// Compiles the scripts tabs missed in the code cache, each in a fresh
    /// instance that runs no page, and keeps their bytecode. Says how many
    /// were compiled.
    pub async fn compile_scripts(&self) -> usize {
        let mut compiled = 0;
        while let Some(script) = self.code.next_pending() {
            let bytecode = match self.compile_script(&script).await {
                Ok(Ok(bytecode)) => Some(bytecode),
                // The page's tab reported the syntax error already.
                Ok(Err(e)) => {
                    tracing::debug!(error = %e, script = %script.name, "a page script does not compile");
                    None
                }
                Err(e) => {
                    // Not the script's fault (no free instance, say): a
                    // later miss asks again.
                    tracing::warn!(error = %e, "could not compile a page script for the code cache");
                    continue;
                }
            };
            self.code.keep(script.key, bytecode);
            compiled += 1;
        }
        compiled
    }

    async fn compile_script(&self, script: &Pending) -> anyhow::Result<Result<Vec<u8>, String>> {
        let (mut store, instance) = self.instantiate(super::Preludes::default()).await?;
        store.data_mut().deadline = std::time::Instant::now() + COMPILE_BUDGET;
        instance
            .fleet_engine_page()
            .call_compile_script(&mut store, &script.name, &script.source)
            .await
            .map_err(anyhow::Error::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script(n: usize) -> String {
        format!("var x = {n};{}", " ".repeat(MIN_SCRIPT_BYTES))
    }

    #[test]
    fn a_miss_waits_once_for_its_compile_and_then_hits_for_its_tenant_only() {
        let cache = CodeCache::default();
        let source = script(1);
        assert_eq!(cache.lookup("a", "https://x/1.js", &source), None);
        assert_eq!(cache.lookup("a", "https://x/1.js", &source), None);
        let pending = cache.next_pending().unwrap();
        assert!(cache.next_pending().is_none(), "one compile per script");
        cache.keep(pending.key, Some(vec![1, 2, 3]));
        assert_eq!(
            cache.lookup("a", "https://x/1.js", &source),
            Some(vec![1, 2, 3])
        );
        assert_eq!(cache.lookup("b", "https://x/1.js", &source), None);
        assert_eq!(cache.lookup("a", "https://y/1.js", &source), None);
    }

    #[test]
    fn small_scripts_are_never_kept() {
        let cache = CodeCache::default();
        assert_eq!(cache.lookup("a", "n", "var x = 1;"), None);
        assert!(!cache.has_pending());
    }

    #[test]
    fn a_script_that_does_not_compile_is_not_compiled_again() {
        let cache = CodeCache::default();
        let source = script(2);
        cache.lookup("a", "n", &source);
        let pending = cache.next_pending().unwrap();
        cache.keep(pending.key, None);
        assert_eq!(cache.lookup("a", "n", &source), None);
        assert!(!cache.has_pending());
    }

    #[test]
    fn the_least_recently_used_script_makes_room() {
        let cache = CodeCache::default();
        let third = CACHE_BYTES / 3 + 1;
        let (one, two, three) = (key("a", "1", ""), key("a", "2", ""), key("a", "3", ""));
        cache.keep(one, Some(vec![0; third]));
        cache.keep(two, Some(vec![0; third]));
        cache.keep(three, Some(vec![0; third]));
        let inner = cache.inner();
        assert!(!inner.entries.contains_key(&one));
        assert!(inner.entries.contains_key(&two) && inner.entries.contains_key(&three));
        assert_eq!(inner.bytes, 2 * third);
    }
}
