//! `snapshot` / `restore`: the tab's durable state as JSON bytes.
//!
//! The format is versioned so a worker can refuse snapshots from a future
//! engine instead of misreading them:
//! `{version: 1, url, viewport: {width, height}, html: string|null,
//!   localStorage: {origin: [[key, value], ...]}}`.
//! The document itself is not serialized: restore loads the URL (or the inline
//! HTML) again, which also re-runs its scripts against the restored storage.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::bindings::exports::fleet::engine::page::{Source, Summary};
use crate::{storage, tab};

/// The only format version this engine writes and reads.
const VERSION: u32 = 1;

#[derive(Serialize, Deserialize)]
struct ViewportState {
    width: u32,
    height: u32,
}

#[derive(Serialize, Deserialize)]
struct SnapshotV1 {
    version: u32,
    url: String,
    viewport: ViewportState,
    /// The source of an inline document; `None` for documents loaded by URL.
    html: Option<String>,
    #[serde(rename = "localStorage")]
    local_storage: BTreeMap<String, Vec<(String, String)>>,
}

/// Serialize the tab's durable state.
pub(crate) fn snapshot() -> Vec<u8> {
    let (url, html) = tab::location();
    let (width, height) = tab::viewport_size();
    let state = SnapshotV1 {
        version: VERSION,
        url,
        viewport: ViewportState { width, height },
        html,
        local_storage: storage::export(),
    };
    // Serializing strings and maps of strings cannot fail; an empty snapshot
    // would be refused by `restore` rather than misread.
    serde_json::to_vec(&state).unwrap_or_default()
}

/// Rebuild the tab from `snapshot` bytes: viewport, storage, then the document.
pub(crate) fn restore(bytes: &[u8]) -> Result<Summary, String> {
    // Read the version first so a newer format gets a precise error.
    #[derive(Deserialize)]
    struct Versioned {
        version: u32,
    }
    let versioned: Versioned =
        serde_json::from_slice(bytes).map_err(|e| format!("snapshot could not be decoded: {e}"))?;
    if versioned.version != VERSION {
        return Err(format!(
            "snapshot could not be decoded: unsupported version {} (this engine reads version {VERSION})",
            versioned.version
        ));
    }
    let state: SnapshotV1 =
        serde_json::from_slice(bytes).map_err(|e| format!("snapshot could not be decoded: {e}"))?;
    tab::set_viewport(state.viewport.width, state.viewport.height);
    storage::import(state.local_storage);
    let source = match state.html {
        Some(html) => Source::Html(html),
        None => Source::Url(state.url),
    };
    Ok(tab::load(source))
}
