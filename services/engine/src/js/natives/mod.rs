//! Native functions behind the DOM prelude, backed by the Blitz document (and,
//! for storage and IndexedDB, by the tab's per-origin state in Rust).
//!
//! Nodes cross into JavaScript as numbers (`NodeId::as_u64`; slot index plus a
//! version, so an id of a removed node never aliases a new one). Every function
//! re-checks that the ids it is given are live before touching the tree:
//! Blitz's tree indexing panics on stale ids, and a script must never be able
//! to panic the instance.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use blitz_dom::node::NodeData;
use blitz_dom::{BaseDocument, NodeId};
use rquickjs::{Ctx, Exception, Object, Result, TypedArray};

mod attributes;
mod console;
mod document;
mod encoding;
mod forms;
mod frames;
mod history;
mod http;
mod indexeddb;
mod nodes;
mod realms;
mod scripts;
mod scrolling;
mod selectors;
mod storage;
mod style;
mod tree;
mod urls;
mod webidl;

use url::Url;

use crate::frames::{Path, with_doc_at};
use crate::state::{self, Tab};

thread_local! {
    /// Nodes scripts hold (the prelude reports each node it wraps). Replacing
    /// an element's children (`textContent`, `innerHTML`) frees what it
    /// removes, except these: they are detached and stay alive, as in a
    /// browser, where a removed node lives while a script refers to it
    /// (libraries such as jQuery move nodes out and back in).
    pub(super) static RETAINED: RefCell<HashSet<NodeId>> = RefCell::new(HashSet::new());
}

thread_local! {
    /// The frame each frame realm belongs to, by its QuickJS context. A
    /// native runs in the context of the prelude function that called it,
    /// which is the realm whose document it must act on; a context not
    /// listed is the tab's own realm.
    static REALM_FRAMES: RefCell<HashMap<usize, Path>> = RefCell::new(HashMap::new());
}

/// Forget the nodes scripts held and the frame realms (a new document and realm).
pub(super) fn forget_retained() {
    RETAINED.with(|r| r.borrow_mut().clear());
    REALM_FRAMES.with(|r| r.borrow_mut().clear());
}

/// Mark the realm of `ctx` as the realm of the frame at `path`.
pub(super) fn register_frame_realm(ctx: &Ctx<'_>, path: Path) {
    let key = ctx.as_raw().as_ptr() as usize;
    REALM_FRAMES.with(|r| r.borrow_mut().insert(key, path));
}

/// The frame the realm of `ctx` belongs to (empty: the tab's document).
pub(super) fn realm_path(ctx: &Ctx<'_>) -> Path {
    let key = ctx.as_raw().as_ptr() as usize;
    REALM_FRAMES.with(|r| r.borrow().get(&key).cloned().unwrap_or_default())
}

/// Detach the nodes under `id` that scripts hold (the topmost of them, with
/// their subtrees), so that dropping the rest of `id`'s children frees only
/// what no script can reach.
pub(super) fn detach_retained(doc: &mut BaseDocument, id: NodeId) {
    let held: Vec<NodeId> = RETAINED.with(|retained| {
        let retained = retained.borrow();
        if retained.is_empty() {
            return Vec::new();
        }
        let mut held = Vec::new();
        let mut stack: Vec<NodeId> = doc
            .get_node(id)
            .map(|n| n.children.iter().rev().copied().collect())
            .unwrap_or_default();
        while let Some(node) = stack.pop() {
            if retained.contains(&node) {
                held.push(node);
                continue;
            }
            if let Some(n) = doc.get_node(node) {
                stack.extend(n.children.iter().rev().copied());
            }
        }
        held
    });
    if held.is_empty() {
        return;
    }
    let mut mutator = crate::mutation::mutate(doc);
    for node in held {
        mutator.remove_node(node);
    }
}

pub(super) fn to_id(raw: f64) -> NodeId {
    if (0.0..9_007_199_254_740_992.0).contains(&raw) {
        NodeId::from_u64(raw as u64)
    } else {
        // The default id is null and resolves to no node.
        NodeId::default()
    }
}

/// A node id as JavaScript sees it.
pub(crate) fn from_id(id: NodeId) -> f64 {
    id.as_u64() as f64
}

/// The bytes of a `Uint8Array`, copied.
pub(super) fn bytes(array: &TypedArray<'_, u8>) -> Vec<u8> {
    #[allow(unsafe_code)]
    // SAFETY: the guest is single-threaded and nothing runs JavaScript while
    // the slice is alive (it is copied at once), so the buffer can be neither
    // detached nor resized under it.
    let slice = unsafe { array.as_bytes() };
    slice.map(<[u8]>::to_vec).unwrap_or_default()
}

/// Run `f` on the tab, or throw if the tab is busy (which would be a bug: no
/// export holds the tab while JavaScript runs).
pub(super) fn with_tab<'js, R>(ctx: &Ctx<'js>, f: impl FnOnce(&mut Tab) -> Result<R>) -> Result<R> {
    state::try_with_tab(f)
        .unwrap_or_else(|| Err(Exception::throw_internal(ctx, "the document is busy")))
}

/// Run `f` on the document of the calling realm: the tab's, or a frame's.
pub(super) fn with_doc<'js, R>(
    ctx: &Ctx<'js>,
    f: impl FnOnce(&mut BaseDocument) -> Result<R>,
) -> Result<R> {
    let path = realm_path(ctx);
    with_tab(ctx, |tab| on_path(ctx, tab.document(), &path, f))
}

/// [`with_doc`] after bringing the tab's style (`layout`: and layout) up to
/// date; a frame's document is styled with the page's full pass.
pub(super) fn with_resolved_doc<'js, R>(
    ctx: &Ctx<'js>,
    layout: bool,
    f: impl FnOnce(&mut BaseDocument) -> Result<R>,
) -> Result<R> {
    let path = realm_path(ctx);
    with_tab(ctx, |tab| {
        if layout || !path.is_empty() {
            tab.resolve();
        } else {
            tab.resolve_style();
        }
        on_path(ctx, tab.document(), &path, f)
    })
}

fn on_path<'js, R>(
    ctx: &Ctx<'js>,
    doc: &mut BaseDocument,
    path: &[NodeId],
    f: impl FnOnce(&mut BaseDocument) -> Result<R>,
) -> Result<R> {
    with_doc_at(doc, path, f).unwrap_or_else(|| {
        Err(Exception::throw_dom(
            ctx,
            "InvalidStateError",
            "The frame's document is gone (the frame was removed or loaded another)",
        ))
    })
}

/// The URL of the calling realm's document (the tab's after `pushState`).
pub(super) fn doc_url(ctx: &Ctx<'_>) -> Result<String> {
    if realm_path(ctx).is_empty() {
        with_tab(ctx, |tab| Ok(tab.url.clone()))
    } else {
        with_doc(ctx, |doc| Ok(doc.url().to_string()))
    }
}

/// The id if it names a live node.
pub(super) fn live(doc: &BaseDocument, raw: f64) -> Option<NodeId> {
    let id = to_id(raw);
    doc.get_node(id).map(|_| id)
}

/// The id if it names a live element: the lookup most natives that act on an
/// element start with (a stale id or a text node makes them do nothing).
pub(super) fn live_element(doc: &BaseDocument, raw: f64) -> Option<NodeId> {
    live(doc, raw).filter(|id| is_element(doc, *id))
}

pub(super) fn not_found<'js>(ctx: &Ctx<'js>) -> rquickjs::Error {
    Exception::throw_dom(ctx, "NotFoundError", "The node is not in the document")
}

pub(super) fn is_element(doc: &BaseDocument, id: NodeId) -> bool {
    doc.get_node(id).is_some_and(|n| n.is_element())
}

/// Whether `name` is usable as an element or attribute name.
pub(super) fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && !name
            .chars()
            .any(|c| c.is_whitespace() || matches!(c, '<' | '>' | '/' | '=' | '"' | '\'' | '\0'))
}

/// The origin whose storage `api` (for the error message) sees; opaque
/// origins have none.
pub(super) fn origin_for<'js>(ctx: &Ctx<'js>, api: &str) -> Result<String> {
    let url = doc_url(ctx)?;
    let origin = Url::parse(&url).map(|u| u.origin());
    match origin {
        Ok(origin) if origin.is_tuple() => Ok(origin.ascii_serialization()),
        _ => Err(Exception::throw_dom(
            ctx,
            "SecurityError",
            &format!("{api} is not available for this document's origin"),
        )),
    }
}

/// Replace the children of `id` with one text node (`textContent = ...`).
pub(super) fn set_text_content(doc: &mut BaseDocument, id: NodeId, text: &str) {
    let is_text = matches!(doc.get_node(id).map(|n| &n.data), Some(NodeData::Text(_)));
    let mut mutator = crate::mutation::mutate(doc);
    if is_text {
        mutator.set_node_text(id, text);
        return;
    }
    drop(mutator);
    detach_retained(doc, id);
    let mut mutator = crate::mutation::mutate(doc);
    mutator.remove_and_drop_all_children(id);
    if !text.is_empty() {
        let text_node = mutator.create_text_node(text);
        mutator.append_children(id, &[text_node]);
    }
}

/// Build the object of native functions the prelude receives.
pub(super) fn install<'js>(ctx: &Ctx<'js>) -> Result<Object<'js>> {
    let native = Object::new(ctx.clone())?;
    tree::install(ctx, &native)?;
    frames::install(ctx, &native)?;
    document::install(ctx, &native)?;
    nodes::install(ctx, &native)?;
    attributes::install(ctx, &native)?;
    scrolling::install(ctx, &native)?;
    selectors::install(ctx, &native)?;
    urls::install(ctx, &native)?;
    console::install(ctx, &native)?;
    storage::install(ctx, &native)?;
    indexeddb::install(ctx, &native)?;
    http::install(ctx, &native)?;
    history::install(ctx, &native)?;
    forms::install(ctx, &native)?;
    style::install(ctx, &native)?;
    scripts::install(ctx, &native)?;
    encoding::install(ctx, &native)?;
    realms::install(ctx, &native)?;
    webidl::install(ctx, &native)?;
    Ok(native)
}
