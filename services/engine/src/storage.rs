//! `localStorage` and `sessionStorage`: string key/value pairs per origin,
//! kept for the tab's life.
//!
//! Both outlive page loads (a reload or navigation within an origin sees the
//! same data; a component instance is one tab, so the tab's session is the
//! instance's life) and are part of the tab's durable state, so
//! `snapshot`/`restore` carry them (see [`crate::snapshot`]).

use std::cell::RefCell;
use std::collections::BTreeMap;

/// Per-origin quota in UTF-16-ish units (we count chars), like browsers' 5 MB.
const QUOTA_PER_ORIGIN: usize = 5 * 1024 * 1024;

/// Why a write was refused.
pub(crate) enum StorageError {
    /// The origin's quota would be exceeded.
    QuotaExceeded,
}

/// Which storage area a call addresses.
#[derive(Clone, Copy)]
pub(crate) enum Area {
    /// `localStorage`.
    Local,
    /// `sessionStorage`.
    Session,
}

impl Area {
    /// The Web API name, for error messages.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Area::Local => "localStorage",
            Area::Session => "sessionStorage",
        }
    }
}

/// origin (ASCII serialization) → key → value. BTreeMap keeps `key(i)` stable.
type Origins = BTreeMap<String, BTreeMap<String, String>>;

thread_local! {
    static LOCAL: RefCell<Origins> = const { RefCell::new(BTreeMap::new()) };
    static SESSION: RefCell<Origins> = const { RefCell::new(BTreeMap::new()) };
}

/// Run `f` on the origins of `area`.
fn with_area<R>(area: Area, f: impl FnOnce(&RefCell<Origins>) -> R) -> R {
    match area {
        Area::Local => LOCAL.with(f),
        Area::Session => SESSION.with(f),
    }
}

fn size(map: &BTreeMap<String, String>) -> usize {
    map.iter()
        .map(|(k, v)| k.chars().count() + v.chars().count())
        .sum()
}

/// `getItem`.
pub(crate) fn get(area: Area, origin: &str, key: &str) -> Option<String> {
    with_area(area, |s| s.borrow().get(origin)?.get(key).cloned())
}

/// `setItem`.
pub(crate) fn set(area: Area, origin: &str, key: &str, value: &str) -> Result<(), StorageError> {
    with_area(area, |s| {
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
pub(crate) fn remove(area: Area, origin: &str, key: &str) {
    with_area(area, |s| {
        if let Some(map) = s.borrow_mut().get_mut(origin) {
            map.remove(key);
        }
    });
}

/// `clear`.
pub(crate) fn clear(area: Area, origin: &str) {
    with_area(area, |s| s.borrow_mut().remove(origin));
}

/// `key(index)`.
pub(crate) fn key(area: Area, origin: &str, index: usize) -> Option<String> {
    with_area(area, |s| s.borrow().get(origin)?.keys().nth(index).cloned())
}

/// `length`.
pub(crate) fn len(area: Area, origin: &str) -> usize {
    with_area(area, |s| s.borrow().get(origin).map_or(0, BTreeMap::len))
}

/// All keys of an origin, in `key(i)` order.
pub(crate) fn keys(area: Area, origin: &str) -> Vec<String> {
    with_area(area, |s| {
        s.borrow()
            .get(origin)
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default()
    })
}

/// Everything, as `{origin: [[key, value], ...]}` for a snapshot.
pub(crate) fn export(area: Area) -> BTreeMap<String, Vec<(String, String)>> {
    with_area(area, |s| {
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
pub(crate) fn import(area: Area, data: BTreeMap<String, Vec<(String, String)>>) {
    with_area(area, |s| {
        *s.borrow_mut() = data
            .into_iter()
            .map(|(origin, pairs)| (origin, pairs.into_iter().collect()))
            .collect();
    });
}
