//! `snapshot` / `restore`: the tab's durable state as named parts.
//!
//! The host stores each part separately and rewrites only the parts whose
//! bytes changed, so the parts are cut along what changes together and every
//! part is deterministic (sorted maps, no timestamps):
//! - `page`: JSON `{version: 2, url, viewport: {width, height}, scroll: {x, y},
//!   forms: [{index, tag, value?, checked?, selectedIndex?}, ...],
//!   dialogs?: {accept, promptText?}}`;
//! - `html`: the source of an inline document, as UTF-8 bytes; absent for
//!   documents loaded by URL;
//! - `local-storage`, `session-storage`: JSON `{origin: [[key, value], ...]}`;
//! - `indexeddb`: JSON, see [`indexeddb::export`].
//!
//! Every part but `html` is always written, even when empty, so the host can
//! tell "emptied" from "absent".
//!
//! The document itself is not serialized: restore loads the URL (or the inline
//! HTML) again, which re-runs its scripts against the restored storage and
//! IndexedDB, then writes the recorded form field state (see [`crate::forms`])
//! and the scroll position back.
//!
//! Restore also reads the version-1 format of earlier engines, one JSON
//! document handed over as a single part named `legacy-v1`:
//! `{version: 1, url, viewport: {width, height}, html: string|null,
//!   localStorage: {origin: [[key, value], ...]},
//!   sessionStorage?: {...}, forms?: [...]}` (fields marked `?` default to empty).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::bindings::exports::fleet::engine::page::{DialogPolicy, Source, StatePart, Summary};
use crate::storage::Area;
use crate::{forms, indexeddb, state, storage, tab};

/// The `page` part format version this engine writes and reads.
const PAGE_VERSION: u32 = 2;
/// The version of the single-document format read from `legacy-v1`.
const LEGACY_VERSION: u32 = 1;

/// Part names.
const PAGE: &str = "page";
const HTML: &str = "html";
const LOCAL_STORAGE: &str = "local-storage";
const SESSION_STORAGE: &str = "session-storage";
const INDEXEDDB: &str = "indexeddb";
const LEGACY_V1: &str = "legacy-v1";

/// Key/value pairs per origin, as `storage::export` gives them.
type StorageData = BTreeMap<String, Vec<(String, String)>>;

#[derive(Serialize, Deserialize)]
struct ViewportState {
    width: u32,
    height: u32,
}

#[derive(Serialize, Deserialize, Default)]
struct ScrollState {
    x: f64,
    y: f64,
}

/// The `page` part.
#[derive(Serialize, Deserialize)]
struct PageState {
    version: u32,
    url: String,
    viewport: ViewportState,
    scroll: ScrollState,
    /// Form field state, applied after the document's scripts ran.
    forms: Vec<forms::FieldState>,
    /// How dialogs are answered; absent in snapshots of older engines (the
    /// default policy then applies).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    dialogs: Option<DialogState>,
}

/// The dialog policy in the `page` part.
#[derive(Serialize, Deserialize, Clone)]
struct DialogState {
    accept: bool,
    #[serde(
        default,
        rename = "promptText",
        skip_serializing_if = "Option::is_none"
    )]
    prompt_text: Option<String>,
}

/// The single-document format of version-1 engines.
#[derive(Deserialize)]
struct SnapshotV1 {
    url: String,
    viewport: ViewportState,
    /// The source of an inline document; `None` for documents loaded by URL.
    html: Option<String>,
    #[serde(rename = "localStorage")]
    local_storage: StorageData,
    #[serde(rename = "sessionStorage", default)]
    session_storage: StorageData,
    #[serde(default)]
    forms: Vec<forms::FieldState>,
}

fn part(name: &str, data: Vec<u8>) -> StatePart {
    StatePart {
        name: name.to_owned(),
        data,
    }
}

/// Serialize the tab's durable state.
pub(crate) fn snapshot() -> Vec<StatePart> {
    let (url, html) = state::location();
    let (width, height) = state::viewport_size();
    let finite = |v: f64| if v.is_finite() { v } else { 0.0 };
    let (x, y) = state::viewport_scroll();
    let (x, y) = (finite(x), finite(y));
    let page = PageState {
        version: PAGE_VERSION,
        url,
        viewport: ViewportState { width, height },
        scroll: ScrollState { x, y },
        forms: state::with_document(|doc| forms::capture(doc)),
        dialogs: {
            let policy = state::dialog_policy();
            Some(DialogState {
                accept: policy.accept,
                prompt_text: policy.prompt_text,
            })
        },
    };
    let mut parts = vec![part(PAGE, json(&page))];
    if let Some(html) = html {
        parts.push(part(HTML, html.as_bytes().to_vec()));
    }
    parts.push(part(LOCAL_STORAGE, json(&storage::export(Area::Local))));
    parts.push(part(SESSION_STORAGE, json(&storage::export(Area::Session))));
    parts.push(part(INDEXEDDB, indexeddb::export()));
    parts
}

/// `value` as JSON bytes. Serializing strings, finite numbers and maps of
/// strings cannot fail; an empty part would be refused by `restore` rather
/// than misread.
fn json<T: Serialize>(value: &T) -> Vec<u8> {
    serde_json::to_vec(value).unwrap_or_default()
}

/// Everything `restore` needs, decoded before anything in the tab changes, so
/// a bad part leaves the tab as it was.
struct Decoded {
    url: String,
    viewport: ViewportState,
    scroll: ScrollState,
    forms: Vec<forms::FieldState>,
    dialogs: Option<DialogState>,
    html: Option<String>,
    local_storage: StorageData,
    session_storage: StorageData,
    /// The `indexeddb` part, checked by `indexeddb::import`; `None` when absent.
    indexeddb: Option<Vec<u8>>,
}

fn undecodable(name: &str, reason: impl std::fmt::Display) -> String {
    format!("snapshot part \"{name}\" could not be decoded: {reason}")
}

/// Parse JSON bytes, checking a `version` field first so that a newer format
/// gets a precise error instead of a field-by-field complaint.
fn versioned<'a, T: Deserialize<'a>>(name: &str, bytes: &'a [u8], want: u32) -> Result<T, String> {
    #[derive(Deserialize)]
    struct Versioned {
        version: u32,
    }
    let found: Versioned = serde_json::from_slice(bytes).map_err(|e| undecodable(name, e))?;
    if found.version != want {
        return Err(undecodable(
            name,
            format!(
                "unsupported version {} (this engine reads version {want})",
                found.version
            ),
        ));
    }
    serde_json::from_slice(bytes).map_err(|e| undecodable(name, e))
}

fn decode_legacy(bytes: &[u8]) -> Result<Decoded, String> {
    let state: SnapshotV1 = versioned(LEGACY_V1, bytes, LEGACY_VERSION)?;
    Ok(Decoded {
        url: state.url,
        viewport: state.viewport,
        scroll: ScrollState::default(),
        forms: state.forms,
        dialogs: None,
        html: state.html,
        local_storage: state.local_storage,
        session_storage: state.session_storage,
        indexeddb: None,
    })
}

fn decode(parts: Vec<StatePart>) -> Result<Decoded, String> {
    let mut by_name: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    for StatePart { name, data } in parts {
        if ![
            PAGE,
            HTML,
            LOCAL_STORAGE,
            SESSION_STORAGE,
            INDEXEDDB,
            LEGACY_V1,
        ]
        .contains(&name.as_str())
        {
            return Err(format!(
                "snapshot part \"{name}\" is unknown to this engine"
            ));
        }
        if by_name.insert(name.clone(), data).is_some() {
            return Err(format!("snapshot part \"{name}\" appears more than once"));
        }
    }
    if let Some(legacy) = by_name.remove(LEGACY_V1) {
        if let Some(other) = by_name.keys().next() {
            return Err(format!(
                "snapshot part \"{LEGACY_V1}\" must be the only part, but \"{other}\" is present too"
            ));
        }
        return decode_legacy(&legacy);
    }
    let page = by_name
        .remove(PAGE)
        .ok_or_else(|| format!("snapshot has no \"{PAGE}\" part"))?;
    let page: PageState = versioned(PAGE, &page, PAGE_VERSION)?;
    let html = by_name
        .remove(HTML)
        .map(|bytes| String::from_utf8(bytes).map_err(|e| undecodable(HTML, e)))
        .transpose()?;
    let storage_part = |name: &str, bytes: Option<Vec<u8>>| -> Result<StorageData, String> {
        match bytes {
            Some(bytes) => serde_json::from_slice(&bytes).map_err(|e| undecodable(name, e)),
            None => Ok(StorageData::new()),
        }
    };
    let local_storage = storage_part(LOCAL_STORAGE, by_name.remove(LOCAL_STORAGE))?;
    let session_storage = storage_part(SESSION_STORAGE, by_name.remove(SESSION_STORAGE))?;
    Ok(Decoded {
        url: page.url,
        viewport: page.viewport,
        scroll: page.scroll,
        forms: page.forms,
        dialogs: page.dialogs,
        html,
        local_storage,
        session_storage,
        indexeddb: by_name.remove(INDEXEDDB),
    })
}

/// Rebuild the tab from `snapshot` parts: viewport, storage, IndexedDB, the
/// document (its scripts run), then form field state and scroll position.
pub(crate) fn restore(parts: Vec<StatePart>) -> Result<Summary, String> {
    let state = decode(parts)?;
    // IndexedDB is decoded and validated in one step, so it goes first: if it
    // is refused, nothing else has changed yet.
    match &state.indexeddb {
        Some(bytes) => indexeddb::import(bytes).map_err(|e| undecodable(INDEXEDDB, e))?,
        None => indexeddb::clear(),
    }
    state::set_viewport(state.viewport.width, state.viewport.height);
    if let Some(policy) = state.dialogs.clone() {
        state::set_dialog_policy(DialogPolicy {
            accept: policy.accept,
            prompt_text: policy.prompt_text,
        });
    }
    storage::import(Area::Local, state.local_storage);
    storage::import(Area::Session, state.session_storage);
    let source = match state.html {
        Some(html) => Source::Html(html),
        None => Source::Url(state.url),
    };
    let summary = tab::load(source);
    // Form values go in after the scripts ran, as a browser restoring a page
    // fills fields after load, and the scroll position after them, clamped to
    // the restored layout. The summary is redone only if the fields changed it.
    let changed = state::with_document(|doc| forms::apply(doc, &state.forms));
    if state.scroll.x != 0.0 || state.scroll.y != 0.0 {
        state::scroll_viewport_to(state.scroll.x, state.scroll.y);
    }
    if changed {
        return Ok(tab::inspect());
    }
    Ok(summary)
}
