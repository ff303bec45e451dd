//! IndexedDB's committed databases: per origin, per database name, kept for
//! the tab's life and carried by `snapshot`/`restore` as the `indexeddb` part.
//!
//! The API itself is JavaScript (`js/indexeddb/`): it keeps a working copy
//! of each open database in the page's realm, runs requests and transactions
//! there, and on commit sends this module the transaction's changes as a list
//! of operations. The realm is dropped on every load, so what a page sees when
//! it opens a database again is what was committed here.
//!
//! Records are kept as the JavaScript side encodes them: the key as an
//! order-preserving ASCII string (comparing two encodings bytewise compares the
//! keys in IndexedDB order; see [`valid_key`]), the value as tagged JSON text
//! that stays opaque here. That keeps records sorted by key without this side
//! knowing the key rules, and makes the snapshot deterministic.

use std::cell::RefCell;
use std::collections::BTreeMap;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

/// Per-origin quota over the bytes of all record keys and values, like the
/// lower end of what browsers grant a site.
const QUOTA_PER_ORIGIN: usize = 50 * 1024 * 1024;
/// The only `indexeddb` part format version this engine writes and reads.
const PART_VERSION: u32 = 1;
/// Deepest array nesting accepted in an encoded key (the JavaScript side
/// cannot build deeper keys without exhausting its own stack first).
const MAX_KEY_DEPTH: usize = 1_000;

/// A key path: one dotted path, or a list of them (the key is then an array).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(untagged)]
pub(crate) enum KeyPath {
    /// `"a.b"`; the empty string is the value itself.
    Single(String),
    /// `["a", "b.c"]`.
    Multi(Vec<String>),
}

/// One index of an object store. Its entries are derived from the records,
/// so only the definition is kept.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Index {
    key_path: KeyPath,
    unique: bool,
    multi_entry: bool,
}

/// Record values by encoded key, sorted, so in IndexedDB key order.
type Records = BTreeMap<String, Box<RawValue>>;

/// One object store.
#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Store {
    key_path: Option<KeyPath>,
    auto_increment: bool,
    /// The key generator's current number (the next generated key).
    key_generator: u64,
    indexes: BTreeMap<String, Index>,
    /// Written as `[[encoded key, value], ...]` in key order.
    #[serde(serialize_with = "records_out", deserialize_with = "records_in")]
    records: Records,
}

/// One database: its version and object stores.
#[derive(Serialize, Deserialize, Debug, Default)]
pub(crate) struct Database {
    version: u64,
    stores: BTreeMap<String, Store>,
    /// Bytes of keys and values, counted against the origin's quota.
    #[serde(skip)]
    size: usize,
}

fn records_out<S: Serializer>(records: &Records, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(records.iter())
}

fn records_in<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Records, D::Error> {
    let pairs = Vec::<(String, Box<RawValue>)>::deserialize(deserializer)?;
    let mut records = Records::new();
    for (key, value) in pairs {
        if !valid_key(&key) {
            return Err(D::Error::custom(format!("invalid record key {key:?}")));
        }
        if records.insert(key.clone(), value).is_some() {
            return Err(D::Error::custom(format!("duplicate record key {key:?}")));
        }
    }
    Ok(records)
}

fn record_size(key: &str, value: &RawValue) -> usize {
    key.len() + value.get().len()
}

impl Database {
    fn compute_size(&mut self) {
        self.size = self
            .stores
            .values()
            .flat_map(|store| store.records.iter())
            .map(|(key, value)| record_size(key, value))
            .sum();
    }
}

/// origin (ASCII serialization) → database name → database.
type Origins = BTreeMap<String, BTreeMap<String, Database>>;

thread_local! {
    static ORIGINS: RefCell<Origins> = const { RefCell::new(BTreeMap::new()) };
    /// The `indexeddb` part as last serialized; `None` once anything changed.
    /// The host checkpoints after every call, and most calls change nothing
    /// here, so a large database is not serialized again each time.
    static PART_CACHE: RefCell<Option<Vec<u8>>> = const { RefCell::new(None) };
}

fn invalidate_part() {
    PART_CACHE.with(|cache| cache.borrow_mut().take());
}

/// Whether `key` is one well-formed encoded key and nothing else. The grammar
/// (each form sorts after the ones before it, matching IndexedDB's
/// number < date < string < binary < array):
/// number `1` + 16 hex digits, date `2` + 16 hex digits (both an
/// order-preserving transform of the IEEE-754 bits), string `3` + 4 hex
/// digits per UTF-16 code unit + `.`, binary `4` + 2 hex digits per byte + `.`,
/// array `5` + its encoded elements + `.`. Hex digits are lowercase.
pub(crate) fn valid_key(key: &str) -> bool {
    parse_key(key.as_bytes(), 0, 0) == Some(key.len())
}

/// The end of the encoded key starting at `at`, if one starts there.
fn parse_key(bytes: &[u8], at: usize, depth: usize) -> Option<usize> {
    let hex = |b: &u8| matches!(b, b'0'..=b'9' | b'a'..=b'f');
    // Runs of `unit`-digit hex groups up to a `.`.
    let terminated = |start: usize, unit: usize| -> Option<usize> {
        let mut i = start;
        loop {
            match bytes.get(i) {
                Some(b'.') => return Some(i + 1),
                Some(_) => {
                    let group = bytes.get(i..i + unit)?;
                    if !group.iter().all(hex) {
                        return None;
                    }
                    i += unit;
                }
                None => return None,
            }
        }
    };
    match bytes.get(at)? {
        b'1' | b'2' => {
            let digits = bytes.get(at + 1..at + 17)?;
            digits.iter().all(hex).then_some(at + 17)
        }
        b'3' => terminated(at + 1, 4),
        b'4' => terminated(at + 1, 2),
        b'5' => {
            if depth >= MAX_KEY_DEPTH {
                return None;
            }
            let mut i = at + 1;
            loop {
                if bytes.get(i)? == &b'.' {
                    return Some(i + 1);
                }
                i = parse_key(bytes, i, depth + 1)?;
            }
        }
        _ => None,
    }
}

/// Why a commit was refused.
pub(crate) enum CommitError {
    /// The origin's quota would be exceeded; nothing was written.
    QuotaExceeded,
    /// The operations were malformed (a bug in the JavaScript side); nothing
    /// was written.
    Invalid(String),
}

/// How to take back one applied operation.
enum Undo {
    Version(u64),
    StoreCreated(String),
    StoreDeleted(String, Store),
    StoreRenamed(String, String),
    IndexRenamed(String, String, String),
    IndexCreated(String, String),
    IndexDeleted(String, String, Index),
    Record(String, String, Option<Box<RawValue>>),
    Cleared(String, Records),
    KeyGenerator(String, u64),
}

fn store_mut<'a>(db: &'a mut Database, name: &str) -> Result<&'a mut Store, CommitError> {
    db.stores
        .get_mut(name)
        .ok_or_else(|| CommitError::Invalid(format!("no object store {name:?}")))
}

fn arg<'a, T: Deserialize<'a>>(op: &[&'a RawValue], i: usize) -> Result<T, CommitError> {
    let raw = op
        .get(i)
        .ok_or_else(|| CommitError::Invalid(format!("operation argument {i} is missing")))?;
    serde_json::from_str(raw.get())
        .map_err(|e| CommitError::Invalid(format!("operation argument {i}: {e}")))
}

/// Apply one operation (`[name, args...]`, see `js/indexeddb/`), recording
/// how to undo it.
fn apply(db: &mut Database, op: &[&RawValue], undo: &mut Vec<Undo>) -> Result<(), CommitError> {
    let name: String = arg(op, 0)?;
    match name.as_str() {
        "version" => {
            undo.push(Undo::Version(db.version));
            db.version = arg(op, 1)?;
        }
        "createStore" => {
            let store: String = arg(op, 1)?;
            if db.stores.contains_key(&store) {
                return Err(CommitError::Invalid(format!(
                    "object store {store:?} exists"
                )));
            }
            db.stores.insert(
                store.clone(),
                Store {
                    key_path: arg(op, 2)?,
                    auto_increment: arg(op, 3)?,
                    key_generator: 1,
                    indexes: BTreeMap::new(),
                    records: Records::new(),
                },
            );
            undo.push(Undo::StoreCreated(store));
        }
        "deleteStore" => {
            let name: String = arg(op, 1)?;
            let store = db
                .stores
                .remove(&name)
                .ok_or_else(|| CommitError::Invalid(format!("no object store {name:?}")))?;
            let removed = store.records.iter().map(|(k, v)| record_size(k, v)).sum();
            db.size = db.size.saturating_sub(removed);
            undo.push(Undo::StoreDeleted(name, store));
        }
        "renameStore" => {
            let (from, to): (String, String) = (arg(op, 1)?, arg(op, 2)?);
            if db.stores.contains_key(&to) {
                return Err(CommitError::Invalid(format!("object store {to:?} exists")));
            }
            let store = db
                .stores
                .remove(&from)
                .ok_or_else(|| CommitError::Invalid(format!("no object store {from:?}")))?;
            db.stores.insert(to.clone(), store);
            undo.push(Undo::StoreRenamed(from, to));
        }
        "renameIndex" => {
            let (store, from, to): (String, String, String) =
                (arg(op, 1)?, arg(op, 2)?, arg(op, 3)?);
            let target = store_mut(db, &store)?;
            if target.indexes.contains_key(&to) {
                return Err(CommitError::Invalid(format!("index {to:?} exists")));
            }
            let definition = target
                .indexes
                .remove(&from)
                .ok_or_else(|| CommitError::Invalid(format!("no index {from:?}")))?;
            target.indexes.insert(to.clone(), definition);
            undo.push(Undo::IndexRenamed(store, from, to));
        }
        "createIndex" => {
            let (store, index): (String, String) = (arg(op, 1)?, arg(op, 2)?);
            let definition = Index {
                key_path: arg(op, 3)?,
                unique: arg(op, 4)?,
                multi_entry: arg(op, 5)?,
            };
            let target = store_mut(db, &store)?;
            if target.indexes.contains_key(&index) {
                return Err(CommitError::Invalid(format!("index {index:?} exists")));
            }
            target.indexes.insert(index.clone(), definition);
            undo.push(Undo::IndexCreated(store, index));
        }
        "deleteIndex" => {
            let (store, index): (String, String) = (arg(op, 1)?, arg(op, 2)?);
            let definition = store_mut(db, &store)?
                .indexes
                .remove(&index)
                .ok_or_else(|| CommitError::Invalid(format!("no index {index:?}")))?;
            undo.push(Undo::IndexDeleted(store, index, definition));
        }
        "put" => {
            let (store, key): (String, String) = (arg(op, 1)?, arg(op, 2)?);
            if !valid_key(&key) {
                return Err(CommitError::Invalid(format!("invalid key {key:?}")));
            }
            let value = op
                .get(3)
                .map(|raw| (*raw).to_owned())
                .ok_or_else(|| CommitError::Invalid("put without a value".to_owned()))?;
            let added = record_size(&key, &value);
            let old = store_mut(db, &store)?.records.insert(key.clone(), value);
            let removed = old.as_ref().map_or(0, |v| record_size(&key, v));
            db.size = (db.size + added).saturating_sub(removed);
            undo.push(Undo::Record(store, key, old));
        }
        "delete" => {
            let (store, key): (String, String) = (arg(op, 1)?, arg(op, 2)?);
            let old = store_mut(db, &store)?.records.remove(&key);
            if let Some(value) = &old {
                db.size = db.size.saturating_sub(record_size(&key, value));
                undo.push(Undo::Record(store, key, old));
            }
        }
        "clear" => {
            let store: String = arg(op, 1)?;
            let records = std::mem::take(&mut store_mut(db, &store)?.records);
            let removed = records.iter().map(|(k, v)| record_size(k, v)).sum();
            db.size = db.size.saturating_sub(removed);
            undo.push(Undo::Cleared(store, records));
        }
        "keyGenerator" => {
            let store: String = arg(op, 1)?;
            let current = arg(op, 2)?;
            let target = store_mut(db, &store)?;
            undo.push(Undo::KeyGenerator(store, target.key_generator));
            target.key_generator = current;
        }
        other => {
            return Err(CommitError::Invalid(format!("unknown operation {other:?}")));
        }
    }
    Ok(())
}

/// Take back applied operations, newest first.
fn revert(db: &mut Database, undo: Vec<Undo>) {
    for step in undo.into_iter().rev() {
        match step {
            Undo::Version(version) => db.version = version,
            Undo::StoreCreated(name) => {
                db.stores.remove(&name);
            }
            Undo::StoreDeleted(name, store) => {
                db.stores.insert(name, store);
            }
            Undo::StoreRenamed(from, to) => {
                if let Some(store) = db.stores.remove(&to) {
                    db.stores.insert(from, store);
                }
            }
            Undo::IndexRenamed(store, from, to) => {
                if let Some(store) = db.stores.get_mut(&store)
                    && let Some(definition) = store.indexes.remove(&to)
                {
                    store.indexes.insert(from, definition);
                }
            }
            Undo::IndexCreated(store, index) => {
                if let Some(store) = db.stores.get_mut(&store) {
                    store.indexes.remove(&index);
                }
            }
            Undo::IndexDeleted(store, index, definition) => {
                if let Some(store) = db.stores.get_mut(&store) {
                    store.indexes.insert(index, definition);
                }
            }
            Undo::Record(store, key, old) => {
                if let Some(store) = db.stores.get_mut(&store) {
                    match old {
                        Some(value) => store.records.insert(key, value),
                        None => store.records.remove(&key),
                    };
                }
            }
            Undo::Cleared(store, records) => {
                if let Some(store) = db.stores.get_mut(&store) {
                    store.records = records;
                }
            }
            Undo::KeyGenerator(store, current) => {
                if let Some(store) = db.stores.get_mut(&store) {
                    store.key_generator = current;
                }
            }
        }
    }
    // Record sizes are cheaper to recount than to track through every undo.
    db.compute_size();
}

/// Apply a committed transaction's operations (a JSON array of
/// `[name, args...]`) to database `name` of `origin`, creating the database if
/// needed. All or nothing: on error nothing changes.
pub(crate) fn commit(origin: &str, name: &str, ops: &str) -> Result<(), CommitError> {
    let ops: Vec<Vec<&RawValue>> = serde_json::from_str(ops)
        .map_err(|e| CommitError::Invalid(format!("operations could not be decoded: {e}")))?;
    ORIGINS.with(|origins| {
        let mut origins = origins.borrow_mut();
        let databases = origins.entry(origin.to_owned()).or_default();
        let others: usize = databases
            .iter()
            .filter(|(db_name, _)| db_name.as_str() != name)
            .map(|(_, db)| db.size)
            .sum();
        let created = !databases.contains_key(name);
        let db = databases.entry(name.to_owned()).or_default();
        let size_before = db.size;
        let mut undo = Vec::new();
        let mut result = ops.iter().try_for_each(|op| apply(db, op, &mut undo));
        // Only growth is refused: an origin over its quota (a smaller quota
        // than when the data was written) can still delete.
        if result.is_ok() && db.size > size_before && others + db.size > QUOTA_PER_ORIGIN {
            result = Err(CommitError::QuotaExceeded);
        }
        if result.is_err() {
            revert(db, undo);
            if created {
                databases.remove(name);
            }
            if databases.is_empty() {
                origins.remove(origin);
            }
        } else {
            invalidate_part();
        }
        result
    })
}

/// A database as JSON text (`{version, stores}`, the same shape as in the
/// snapshot part), for the JavaScript side to open it.
pub(crate) fn load(origin: &str, name: &str) -> Option<String> {
    ORIGINS.with(|origins| {
        let origins = origins.borrow();
        let db = origins.get(origin)?.get(name)?;
        serde_json::to_string(db).ok()
    })
}

/// `indexedDB.databases()`: the names and versions of the origin's databases.
pub(crate) fn databases(origin: &str) -> Vec<(String, u64)> {
    ORIGINS.with(|origins| {
        origins
            .borrow()
            .get(origin)
            .map(|dbs| {
                dbs.iter()
                    .map(|(name, db)| (name.clone(), db.version))
                    .collect()
            })
            .unwrap_or_default()
    })
}

/// `indexedDB.deleteDatabase`: returns the deleted database's version.
pub(crate) fn delete(origin: &str, name: &str) -> Option<u64> {
    ORIGINS.with(|origins| {
        let mut origins = origins.borrow_mut();
        let databases = origins.get_mut(origin)?;
        let db = databases.remove(name)?;
        if databases.is_empty() {
            origins.remove(origin);
        }
        invalidate_part();
        Some(db.version)
    })
}

/// The `indexeddb` snapshot part.
#[derive(Serialize, Deserialize)]
struct Part {
    version: u32,
    origins: Origins,
}

/// Everything, as the `indexeddb` snapshot part:
/// `{version: 1, origins: {origin: {database: {version, stores: {store:
/// {keyPath, autoIncrement, keyGenerator, indexes: {index: {keyPath, unique,
/// multiEntry}}, records: [[encoded key, tagged value], ...]}}}}}}`.
/// Maps are sorted, so equal contents give equal bytes.
pub(crate) fn export() -> Vec<u8> {
    if let Some(bytes) = PART_CACHE.with(|cache| cache.borrow().clone()) {
        return bytes;
    }
    let bytes = ORIGINS.with(|origins| {
        #[derive(Serialize)]
        struct PartRef<'a> {
            version: u32,
            origins: &'a Origins,
        }
        // Strings, integers and JSON text that was valid when it came in
        // always serialize; an empty part would be refused by `import`.
        serde_json::to_vec(&PartRef {
            version: PART_VERSION,
            origins: &origins.borrow(),
        })
        .unwrap_or_default()
    });
    PART_CACHE.with(|cache| *cache.borrow_mut() = Some(bytes.clone()));
    bytes
}

/// Replace everything with the contents of an `indexeddb` part.
pub(crate) fn import(bytes: &[u8]) -> Result<(), String> {
    #[derive(Deserialize)]
    struct Versioned {
        version: u32,
    }
    let versioned: Versioned = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    if versioned.version != PART_VERSION {
        return Err(format!(
            "unsupported version {} (this engine reads version {PART_VERSION})",
            versioned.version
        ));
    }
    let mut part: Part = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    part.origins.retain(|_, dbs| !dbs.is_empty());
    for dbs in part.origins.values_mut() {
        for db in dbs.values_mut() {
            db.compute_size();
        }
    }
    ORIGINS.with(|origins| *origins.borrow_mut() = part.origins);
    invalidate_part();
    Ok(())
}

/// Forget every database (restoring a snapshot without an `indexeddb` part).
pub(crate) fn clear() {
    ORIGINS.with(|origins| origins.borrow_mut().clear());
    invalidate_part();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_grammar() {
        assert!(valid_key("13ff0000000000000"));
        assert!(valid_key("3."));
        assert!(valid_key("300610062."));
        assert!(valid_key("4ff00."));
        assert!(valid_key("5."));
        assert!(valid_key("513ff00000000000003.."));
        assert!(!valid_key("513ff00000000000003."));
        assert!(!valid_key(""));
        assert!(!valid_key("1"));
        assert!(!valid_key("3006."));
        assert!(!valid_key("3"));
        assert!(!valid_key("5"));
        assert!(!valid_key("3.3."));
        assert!(!valid_key("1FF00000000000000"));
    }
}
