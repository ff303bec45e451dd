//! `snapshot` / `restore`: the tab's durable state as JSON bytes.
//!
//! The format is versioned so a worker can refuse snapshots from a future
//! engine instead of misreading them:
//! `{version: 1, url, viewport: {width, height}, html: string|null,
//!   localStorage: {origin: [[key, value], ...]},
//!   sessionStorage?: {origin: [[key, value], ...]},
//!   forms?: [{index, tag, value?, checked?, selectedIndex?}, ...]}`.
//! Fields marked `?` were added later without a version bump: they default to
//! empty, so older version-1 snapshots still restore.
//! The document itself is not serialized: restore loads the URL (or the inline
//! HTML) again, which also re-runs its scripts against the restored storage,
//! and then writes the recorded form field state back (see [`crate::forms`]).
//! Scroll position is not carried: the engine has no scroll state
//! (`window.scrollX`/`scrollY` are constant 0 and `scrollTo` is a no-op).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::bindings::exports::fleet::engine::page::{Source, Summary};
use crate::storage::Area;
use crate::{forms, storage, tab};

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
    #[serde(rename = "sessionStorage", default)]
    session_storage: BTreeMap<String, Vec<(String, String)>>,
    /// Form field state, applied after the document's scripts ran.
    #[serde(default)]
    forms: Vec<forms::FieldState>,
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
        local_storage: storage::export(Area::Local),
        session_storage: storage::export(Area::Session),
        forms: tab::with_document(|doc| forms::capture(doc)),
    };
    // Serializing strings and maps of strings cannot fail; an empty snapshot
    // would be refused by `restore` rather than misread.
    serde_json::to_vec(&state).unwrap_or_default()
}

/// Rebuild the tab from `snapshot` bytes: viewport, storage, the document (its
/// scripts run), then form field state.
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
    storage::import(Area::Local, state.local_storage);
    storage::import(Area::Session, state.session_storage);
    let source = match state.html {
        Some(html) => Source::Html(html),
        None => Source::Url(state.url),
    };
    let summary = tab::load(source);
    // Form values go in after the scripts ran, as a browser restoring a page
    // fills fields after load; the summary is redone only if they changed it.
    if tab::with_document(|doc| forms::apply(doc, &state.forms)) {
        return Ok(tab::inspect());
    }
    Ok(summary)
}
