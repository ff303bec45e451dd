//! `localStorage`: string key/value pairs per origin, kept for the tab's life.
//!
//! It outlives page loads (a reload or navigation within an origin sees the
//! same data) and is part of the tab's durable state, so `snapshot`/`restore`
//! carry it (see [`crate::snapshot`]).

use std::cell::RefCell;
use std::collections::BTreeMap;

/// Per-origin quota in UTF-16-ish units (we count chars), like browsers' 5 MB.
const QUOTA_PER_ORIGIN: usize = 5 * 1024 * 1024;

/// Why a write was refused.
pub(crate) enum StorageError {
    /// The origin's quota would be exceeded.
    QuotaExceeded,
}

thread_local! {
    /// origin (ASCII serialization) → key → value. BTreeMap keeps `key(i)` stable.
    static STORAGE: RefCell<BTreeMap<String, BTreeMap<String, String>>> =
        const { RefCell::new(BTreeMap::new()) };
}

fn size(map: &BTreeMap<String, String>) -> usize {
    map.iter()
        .map(|(k, v)| k.chars().count() + v.chars().count())
        .sum()
}

/// `getItem`.
pub(crate) fn get(origin: &str, key: &str) -> Option<String> {
    STORAGE.with(|s| s.borrow().get(origin)?.get(key).cloned())
}

/// `setItem`.
pub(crate) fn set(origin: &str, key: &str, value: &str) -> Result<(), StorageError> {
    STORAGE.with(|s| {
        let mut s = s.borrow_mut();
        let map = s.entry(origin.to_owned()).or_default();
        let old = map
            .get(key)
            .map_or(0, |v| key.chars().count() + v.chars().count());
        let new = key.chars().count() + value.chars().count();
        if size(map) - old + new > QUOTA_PER_ORIGIN {
            return Err(StorageError::QuotaExceeded);
        }
        map.insert(key.to_owned(), value.to_owned());
        Ok(())
    })
}

/// `removeItem`.
pub(crate) fn remove(origin: &str, key: &str) {
    STORAGE.with(|s| {
        if let Some(map) = s.borrow_mut().get_mut(origin) {
            map.remove(key);
        }
    });
}

/// `clear`.
pub(crate) fn clear(origin: &str) {
    STORAGE.with(|s| s.borrow_mut().remove(origin));
}

/// `key(index)`.
pub(crate) fn key(origin: &str, index: usize) -> Option<String> {
    STORAGE.with(|s| s.borrow().get(origin)?.keys().nth(index).cloned())
}

/// `length`.
pub(crate) fn len(origin: &str) -> usize {
    STORAGE.with(|s| s.borrow().get(origin).map_or(0, BTreeMap::len))
}

/// All keys of an origin, in `key(i)` order.
pub(crate) fn keys(origin: &str) -> Vec<String> {
    STORAGE.with(|s| {
        s.borrow()
            .get(origin)
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default()
    })
}

/// Everything, as `{origin: [[key, value], ...]}` for a snapshot.
pub(crate) fn export() -> BTreeMap<String, Vec<(String, String)>> {
    STORAGE.with(|s| {
        s.borrow()
            .iter()
            .filter(|(_, map)| !map.is_empty())
            .map(|(origin, map)| {
                let pairs = map.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
                (origin.clone(), pairs)
            })
            .collect()
    })
}

/// Replace everything with the contents of a snapshot.
pub(crate) fn import(data: BTreeMap<String, Vec<(String, String)>>) {
    STORAGE.with(|s| {
        *s.borrow_mut() = data
            .into_iter()
            .map(|(origin, pairs)| (origin, pairs.into_iter().collect()))
            .collect();
    });
}
