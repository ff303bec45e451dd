//! Native functions behind the DOM prelude, backed by the Blitz document (and,
//! for storage and IndexedDB, by the tab's per-origin state in Rust).
//!
//! Nodes cross into JavaScript as numbers (`NodeId::as_u64`; slot index plus a
//! version, so an id of a removed node never aliases a new one). Every function
//! re-checks that the ids it is given are live before touching the tree:
//! Blitz's tree indexing panics on stale ids, and a script must never be able
//! to panic the instance.

use std::cell::RefCell;
use std::collections::HashSet;

use blitz_dom::node::{Attribute, NodeData};
use blitz_dom::{
    BaseDocument, LocalName, Namespace, NodeId, Prefix, QualName, ScrollBehavior,
    ScrollLogicalPosition, local_name, ns,
};
use rquickjs::{Ctx, Exception, Function, Object, Result};

mod frames;
mod tree;
use url::Url;

use crate::tab::{MAX_TEXT_CHARS, Tab};
use crate::{anonymous, indexeddb, inspect, serialize, storage, tab};

/// `innerText` of one element is read in full by scripts, up to this cap.
const MAX_INNER_TEXT_CHARS: usize = 50 * MAX_TEXT_CHARS;

thread_local! {
    /// Nodes scripts hold (the prelude reports each node it wraps). Replacing
    /// an element's children (`textContent`, `innerHTML`) frees what it
    /// removes, except these: they are detached and stay alive, as in a
    /// browser, where a removed node lives while a script refers to it
    /// (libraries such as jQuery move nodes out and back in).
    static RETAINED: RefCell<HashSet<NodeId>> = RefCell::new(HashSet::new());
}

/// Forget the nodes scripts held (a new document and realm).
pub(super) fn forget_retained() {
    RETAINED.with(|r| r.borrow_mut().clear());
}

/// Detach the nodes under `id` that scripts hold (the topmost of them, with
/// their subtrees), so that dropping the rest of `id`'s children frees only
/// what no script can reach.
fn detach_retained(doc: &mut BaseDocument, id: NodeId) {
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

/// Run `f` on the tab, or throw if the tab is busy (which would be a bug: no
/// export holds the tab while JavaScript runs).
pub(super) fn with_tab<'js, R>(ctx: &Ctx<'js>, f: impl FnOnce(&mut Tab) -> Result<R>) -> Result<R> {
    tab::try_with_tab(f)
        .unwrap_or_else(|| Err(Exception::throw_internal(ctx, "the document is busy")))
}

/// Run `f` on the document.
pub(super) fn with_doc<'js, R>(
    ctx: &Ctx<'js>,
    f: impl FnOnce(&mut BaseDocument) -> Result<R>,
) -> Result<R> {
    with_tab(ctx, |tab| f(tab.document()))
}

/// The id if it names a live node.
pub(super) fn live(doc: &BaseDocument, raw: f64) -> Option<NodeId> {
    let id = to_id(raw);
    doc.get_node(id).map(|_| id)
}

fn not_found<'js>(ctx: &Ctx<'js>) -> rquickjs::Error {
    Exception::throw_dom(ctx, "NotFoundError", "The node is not in the document")
}

fn is_element(doc: &BaseDocument, id: NodeId) -> bool {
    doc.get_node(id).is_some_and(|n| n.is_element())
}

/// Whether `name` is usable as an element or attribute name.
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && !name
            .chars()
            .any(|c| c.is_whitespace() || matches!(c, '<' | '>' | '/' | '=' | '"' | '\'' | '\0'))
}

fn syntax_error<'js>(ctx: &Ctx<'js>, selector: &str) -> rquickjs::Error {
    Exception::throw_dom(
        ctx,
        "SyntaxError",
        &format!("'{selector}' is not a valid selector"),
    )
}

/// The storage area a storage native addresses (`session` comes from JS).
fn area(session: bool) -> storage::Area {
    if session {
        storage::Area::Session
    } else {
        storage::Area::Local
    }
}

/// The origin whose storage `api` (for the error message) sees; opaque
/// origins have none.
fn origin_for<'js>(ctx: &Ctx<'js>, api: &str) -> Result<String> {
    let url = with_tab(ctx, |tab| Ok(tab.url.clone()))?;
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

/// The origin whose `localStorage`/`sessionStorage` the page sees.
fn storage_origin<'js>(ctx: &Ctx<'js>, area: storage::Area) -> Result<String> {
    origin_for(ctx, area.name())
}

/// The origin whose IndexedDB databases the page sees.
fn idb_origin<'js>(ctx: &Ctx<'js>) -> Result<String> {
    origin_for(ctx, "IndexedDB")
}

/// A scroll coordinate from JavaScript; CSSOM treats non-finite values as 0
/// (`Tab::scroll_viewport_to` does the same for the viewport).
fn coordinate(v: f64) -> f64 {
    if v.is_finite() { v } else { 0.0 }
}

/// `block`/`inline` of `scrollIntoView` options.
fn logical_position(name: &str, default: ScrollLogicalPosition) -> ScrollLogicalPosition {
    match name {
        "start" => ScrollLogicalPosition::Start,
        "center" => ScrollLogicalPosition::Center,
        "end" => ScrollLogicalPosition::End,
        "nearest" => ScrollLogicalPosition::Nearest,
        _ => default,
    }
}

/// Replace the children of `id` with one text node (`textContent = ...`).
fn set_text_content(doc: &mut BaseDocument, id: NodeId, text: &str) {
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
    macro_rules! def {
        ($name:literal, $f:expr) => {
            native.set($name, Function::new(ctx.clone(), $f)?)?;
        };
    }

    // --- document ---
    def!("documentNode", |ctx: Ctx<'js>| -> Result<f64> {
        with_doc(&ctx, |doc| Ok(from_id(doc.root_node().id)))
    });
    def!("documentElement", |ctx: Ctx<'js>| -> Result<Option<f64>> {
        with_doc(&ctx, |doc| {
            Ok(doc.try_root_element().map(|n| from_id(n.id)))
        })
    });
    def!("body", |ctx: Ctx<'js>| -> Result<Option<f64>> {
        with_doc(&ctx, |doc| Ok(doc.find_body_node().map(|n| from_id(n.id))))
    });
    def!("head", |ctx: Ctx<'js>| -> Result<Option<f64>> {
        with_doc(&ctx, |doc| Ok(doc.find_head_node().map(|n| from_id(n.id))))
    });
    def!("url", |ctx: Ctx<'js>| -> Result<String> {
        with_tab(&ctx, |tab| Ok(tab.url.clone()))
    });
    def!("viewport", |ctx: Ctx<'js>| -> Result<Vec<u32>> {
        with_tab(&ctx, |tab| Ok(vec![tab.width, tab.height]))
    });
    def!("title", |ctx: Ctx<'js>| -> Result<String> {
        with_doc(&ctx, |doc| Ok(inspect::title(doc)))
    });
    def!("setTitle", |ctx: Ctx<'js>, title: String| -> Result<()> {
        with_doc(&ctx, |doc| {
            if let Some(id) = doc.find_title_node().map(|n| n.id) {
                set_text_content(doc, id, &title);
                return Ok(());
            }
            // No <title> yet: create one in <head>, as the spec's setter does.
            let Some(head) = doc.find_head_node().map(|n| n.id) else {
                return Ok(());
            };
            let mut mutator = crate::mutation::mutate(doc);
            let name = QualName::new(None, ns!(html), local_name!("title"));
            let element = mutator.create_element(name, Vec::new());
            let text = mutator.create_text_node(&title);
            mutator.append_children(element, &[text]);
            mutator.append_children(head, &[element]);
            Ok(())
        })
    });
    def!("getElementById", |ctx: Ctx<'js>,
                            id: String|
     -> Result<Option<f64>> {
        with_doc(&ctx, |doc| Ok(doc.get_element_by_id(&id).map(from_id)))
    });
    def!("createElement", |ctx: Ctx<'js>,
                           tag: String|
     -> Result<f64> {
        if !valid_name(&tag) {
            return Err(Exception::throw_dom(
                &ctx,
                "InvalidCharacterError",
                "The tag name provided is not a valid name",
            ));
        }
        with_doc(&ctx, |doc| {
            let name = QualName::new(None, ns!(html), LocalName::from(tag.to_ascii_lowercase()));
            Ok(from_id(
                crate::mutation::mutate(doc).create_element(name, Vec::new()),
            ))
        })
    });
    // An element in namespace `ns` (none when empty), its qualified name's
    // case kept: XML parsed by scripts, SVG built with createElementNS.
    def!("createElementNS", |ctx: Ctx<'js>,
                             ns: String,
                             qualified: String|
     -> Result<f64> {
        if !valid_name(&qualified) {
            return Err(Exception::throw_dom(
                &ctx,
                "InvalidCharacterError",
                "The qualified name provided is not a valid name",
            ));
        }
        let (prefix, local) = match qualified.split_once(':') {
            Some((prefix, local)) if !prefix.is_empty() && !local.is_empty() => {
                (Some(Prefix::from(prefix)), local)
            }
            _ => (None, qualified.as_str()),
        };
        let name = QualName::new(prefix, Namespace::from(ns), LocalName::from(local));
        with_doc(&ctx, |doc| {
            Ok(from_id(
                crate::mutation::mutate(doc).create_element(name, Vec::new()),
            ))
        })
    });
    // The detached fragment node that holds a `<template>`'s contents (the
    // parser puts them there), made on first use.
    // The prelude wrapped these nodes: they must outlive a replacement of
    // their parent's children (see `RETAINED`).
    def!("retain", |ids: Vec<f64>| {
        RETAINED.with(|retained| retained.borrow_mut().extend(ids.into_iter().map(to_id)));
    });
    def!("templateContents", |ctx: Ctx<'js>,
                              id: f64|
     -> Result<Option<f64>> {
        with_doc(&ctx, |doc| {
            let id = to_id(id);
            let is_template = doc
                .get_node(id)
                .and_then(|n| n.element_data())
                .is_some_and(|el| el.name.local == local_name!("template"));
            Ok(is_template.then(|| from_id(crate::mutation::mutate(doc).template_contents(id))))
        })
    });
    def!("createTextNode", |ctx: Ctx<'js>,
                            text: String|
     -> Result<f64> {
        with_doc(&ctx, |doc| {
            Ok(from_id(
                crate::mutation::mutate(doc).create_text_node(&text),
            ))
        })
    });

    // --- nodes ---
    def!("nodeType", |ctx: Ctx<'js>, id: f64| -> Result<u32> {
        with_doc(&ctx, |doc| {
            Ok(match doc.get_node(to_id(id)).map(|n| &n.data) {
                Some(NodeData::Element(_) | NodeData::AnonymousBlock(_)) => 1,
                Some(NodeData::Text(_)) => 3,
                Some(NodeData::Comment { .. }) => 8,
                Some(NodeData::Document(_)) => 9,
                None => 0,
            })
        })
    });
    def!("namespaceUri", |ctx: Ctx<'js>,
                          id: f64|
     -> Result<Option<String>> {
        with_doc(&ctx, |doc| {
            Ok(doc
                .get_node(to_id(id))
                .and_then(|n| n.element_data())
                .map(|el| el.name.ns.to_string())
                .filter(|ns| !ns.is_empty()))
        })
    });
    def!("nodeName", |ctx: Ctx<'js>, id: f64| -> Result<String> {
        with_doc(&ctx, |doc| {
            Ok(match doc.get_node(to_id(id)).map(|n| &n.data) {
                Some(NodeData::Element(el) | NodeData::AnonymousBlock(el)) => {
                    let local: &str = &el.name.local;
                    if el.name.ns == ns!(html) {
                        local.to_ascii_uppercase()
                    } else {
                        local.to_owned()
                    }
                }
                Some(NodeData::Text(_)) => "#text".to_owned(),
                Some(NodeData::Comment { .. }) => "#comment".to_owned(),
                Some(NodeData::Document(_)) => "#document".to_owned(),
                None => String::new(),
            })
        })
    });
    def!("isConnected", |ctx: Ctx<'js>, id: f64| -> Result<bool> {
        with_doc(&ctx, |doc| {
            Ok(doc
                .get_node(to_id(id))
                .is_some_and(|n| n.flags.is_in_document()))
        })
    });
    def!("parent", |ctx: Ctx<'js>, id: f64| -> Result<Option<f64>> {
        with_doc(&ctx, |doc| {
            Ok(doc.get_node(to_id(id)).and_then(|n| n.parent).map(from_id))
        })
    });
    def!("childNodes", |ctx: Ctx<'js>, id: f64| -> Result<Vec<f64>> {
        with_doc(&ctx, |doc| {
            Ok(doc
                .get_node(to_id(id))
                .map(|n| {
                    anonymous::dom_children(n)
                        .iter()
                        .copied()
                        .map(from_id)
                        .collect()
                })
                .unwrap_or_default())
        })
    });
    def!("children", |ctx: Ctx<'js>, id: f64| -> Result<Vec<f64>> {
        with_doc(&ctx, |doc| {
            let Some(node) = doc.get_node(to_id(id)) else {
                return Ok(Vec::new());
            };
            Ok(anonymous::dom_children(node)
                .iter()
                .copied()
                .filter(|c| is_element(doc, *c))
                .map(from_id)
                .collect())
        })
    });
    def!("textContent", |ctx: Ctx<'js>,
                         id: f64|
     -> Result<Option<String>> {
        with_doc(&ctx, |doc| {
            Ok(doc.get_node(to_id(id)).and_then(|n| match &n.data {
                NodeData::Document(_) => None,
                NodeData::Comment { contents } => Some(contents.clone()),
                _ => Some(anonymous::text_content(doc, n.id)),
            }))
        })
    });
    def!("setTextContent", |ctx: Ctx<'js>,
                            id: f64,
                            text: String|
     -> Result<()> {
        with_doc(&ctx, |doc| {
            let Some(id) = live(doc, id) else {
                return Ok(());
            };
            if !matches!(
                doc.get_node(id).map(|n| &n.data),
                Some(NodeData::Document(_))
            ) {
                set_text_content(doc, id, &text);
            }
            Ok(())
        })
    });
    def!("innerText", |ctx: Ctx<'js>, id: f64| -> Result<String> {
        with_tab(&ctx, |tab| {
            // innerText depends on computed style (not on layout), so style
            // must be current.
            tab.resolve_style();
            let doc = tab.document();
            Ok(match live(doc, id) {
                Some(id) => inspect::inner_text(doc, id, MAX_INNER_TEXT_CHARS),
                None => String::new(),
            })
        })
    });
    def!("innerHTML", |ctx: Ctx<'js>, id: f64| -> Result<String> {
        with_doc(&ctx, |doc| Ok(serialize::inner_html(doc, to_id(id))))
    });
    def!("outerHTML", |ctx: Ctx<'js>, id: f64| -> Result<String> {
        with_doc(&ctx, |doc| Ok(serialize::outer_html(doc, to_id(id))))
    });
    def!("setInnerHTML", |ctx: Ctx<'js>,
                          id: f64,
                          html: String|
     -> Result<()> {
        with_doc(&ctx, |doc| {
            if let Some(id) = live(doc, id).filter(|id| is_element(doc, *id)) {
                detach_retained(doc, id);
                crate::mutation::mutate(doc).set_inner_html(id, &html);
                tab::limit_depth(doc, id);
            }
            Ok(())
        })
    });
    def!("insertBefore", |ctx: Ctx<'js>,
                          parent: f64,
                          child: f64,
                          before: Option<f64>|
     -> Result<()> {
        with_doc(&ctx, |doc| {
            let (Some(parent), Some(child)) = (live(doc, parent), live(doc, child)) else {
                return Err(not_found(&ctx));
            };
            if inspect::is_inclusive_ancestor(doc, child, parent)
                || matches!(
                    doc.get_node(child).map(|n| &n.data),
                    Some(NodeData::Document(_))
                )
            {
                return Err(Exception::throw_dom(
                    &ctx,
                    "HierarchyRequestError",
                    "The new child element contains the parent",
                ));
            }
            let before = match before {
                None => None,
                Some(raw) => match live(doc, raw) {
                    Some(b) if doc.get_node(b).and_then(|n| n.parent) == Some(parent) => Some(b),
                    _ => return Err(not_found(&ctx)),
                },
            };
            if before == Some(child) {
                return Ok(());
            }
            let mut mutator = crate::mutation::mutate(doc);
            if mutator.parent_id(child).is_some() {
                mutator.remove_node(child);
            }
            match before {
                Some(before) => mutator.insert_nodes_before(before, &[child]),
                None => mutator.append_children(parent, &[child]),
            }
            drop(mutator);
            anonymous::drop_stale(doc, child);
            Ok(())
        })
    });
    def!("removeChild", |ctx: Ctx<'js>,
                         parent: f64,
                         child: f64|
     -> Result<()> {
        with_doc(&ctx, |doc| {
            let (Some(parent), Some(child)) = (live(doc, parent), live(doc, child)) else {
                return Err(not_found(&ctx));
            };
            if doc.get_node(child).and_then(|n| n.parent) != Some(parent) {
                return Err(not_found(&ctx));
            }
            // Detach but keep the node: scripts often re-insert what they remove.
            crate::mutation::mutate(doc).remove_node(child);
            Ok(())
        })
    });

    // --- attributes and style ---
    def!("getAttribute", |ctx: Ctx<'js>,
                          id: f64,
                          name: String|
     -> Result<Option<String>> {
        with_doc(&ctx, |doc| {
            let name = name.to_ascii_lowercase();
            Ok(doc
                .get_node(to_id(id))
                .and_then(|n| inspect::attr(n, &name))
                .map(str::to_owned))
        })
    });
    def!("attributeNames", |ctx: Ctx<'js>,
                            id: f64|
     -> Result<Vec<String>> {
        with_doc(&ctx, |doc| {
            Ok(doc
                .get_node(to_id(id))
                .and_then(|n| n.attrs())
                .map(|attrs: &[Attribute]| attrs.iter().map(|a| a.name.local.to_string()).collect())
                .unwrap_or_default())
        })
    });
    def!("setAttribute", |ctx: Ctx<'js>,
                          id: f64,
                          name: String,
                          value: String|
     -> Result<()> {
        if !valid_name(&name) {
            return Err(Exception::throw_dom(
                &ctx,
                "InvalidCharacterError",
                "The attribute name provided is not a valid name",
            ));
        }
        with_doc(&ctx, |doc| {
            if let Some(id) = live(doc, id).filter(|id| is_element(doc, *id)) {
                let name = QualName::new(None, ns!(), LocalName::from(name.to_ascii_lowercase()));
                crate::mutation::mutate(doc).set_attribute(id, name, &value);
            }
            Ok(())
        })
    });
    def!("removeAttribute", |ctx: Ctx<'js>,
                             id: f64,
                             name: String|
     -> Result<()> {
        with_doc(&ctx, |doc| {
            if let Some(id) = live(doc, id).filter(|id| is_element(doc, *id)) {
                let name = QualName::new(None, ns!(), LocalName::from(name.to_ascii_lowercase()));
                crate::mutation::mutate(doc).clear_attribute(id, name);
            }
            Ok(())
        })
    });
    def!("setStyleProperty", |ctx: Ctx<'js>,
                              id: f64,
                              name: String,
                              value: String|
     -> Result<()> {
        with_doc(&ctx, |doc| {
            if let Some(id) = live(doc, id).filter(|id| is_element(doc, *id)) {
                let mut mutator = crate::mutation::mutate(doc);
                if value.is_empty() {
                    mutator.remove_style_property(id, &name);
                } else {
                    mutator.set_style_property(id, &name, &value);
                }
            }
            Ok(())
        })
    });
    def!("boundingRect", |ctx: Ctx<'js>,
                          id: f64|
     -> Result<Vec<f64>> {
        with_tab(&ctx, |tab| {
            tab.resolve();
            let doc = tab.document();
            Ok(live(doc, id)
                .and_then(|id| doc.get_client_bounding_rect(id))
                .map(|r| vec![r.x, r.y, r.width, r.height])
                .unwrap_or_else(|| vec![0.0; 4]))
        })
    });

    // --- scrolling ---
    // The viewport's scroll position lives in the Blitz document (see
    // `tab.rs`); these read and move it against a fresh layout.
    def!("scrollPosition", |ctx: Ctx<'js>| -> Result<Vec<f64>> {
        with_tab(&ctx, |tab| {
            let (x, y) = tab.viewport_scroll();
            Ok(vec![x, y])
        })
    });
    def!("scrollViewportTo", |ctx: Ctx<'js>,
                              x: f64,
                              y: f64|
     -> Result<bool> {
        with_tab(&ctx, |tab| Ok(tab.scroll_viewport_to(x, y)))
    });
    def!("documentScrollSize", |ctx: Ctx<'js>| -> Result<Vec<f64>> {
        with_tab(&ctx, |tab| {
            let (width, height) = tab.document_scroll_size();
            Ok(vec![width, height])
        })
    });
    // Elements other than the root scroll their own box when their overflow
    // lets them (Blitz clamps to the scrollable range).
    def!("elementScroll", |ctx: Ctx<'js>,
                           id: f64|
     -> Result<Vec<f64>> {
        with_tab(&ctx, |tab| {
            tab.resolve();
            let doc = tab.document();
            // Layout data exists only on elements (reading it elsewhere panics).
            Ok(doc
                .get_node(to_id(id))
                .filter(|n| n.is_element())
                .map(|n| vec![n.scroll_offset().x, n.scroll_offset().y])
                .unwrap_or_else(|| vec![0.0, 0.0]))
        })
    });
    def!("elementScrollTo", |ctx: Ctx<'js>,
                             id: f64,
                             x: f64,
                             y: f64|
     -> Result<bool> {
        with_tab(&ctx, |tab| {
            tab.resolve();
            let doc = tab.document();
            let Some(id) = live(doc, id).filter(|id| is_element(doc, *id)) else {
                return Ok(false);
            };
            let before = doc.get_node(id).map(|n| *n.scroll_offset());
            doc.scroll_to(id, coordinate(x), coordinate(y), ScrollBehavior::Instant);
            Ok(doc.get_node(id).map(|n| *n.scroll_offset()) != before)
        })
    });
    def!("elementScrollSize", |ctx: Ctx<'js>,
                               id: f64|
     -> Result<Vec<f64>> {
        with_tab(&ctx, |tab| {
            tab.resolve();
            let doc = tab.document();
            Ok(doc
                .get_node(to_id(id))
                .filter(|n| n.is_element())
                .map(|n| {
                    let layout = n.final_layout();
                    vec![
                        f64::from(layout.size.width.max(layout.scrollable_overflow_rect.right)),
                        f64::from(
                            layout
                                .size
                                .height
                                .max(layout.scrollable_overflow_rect.bottom),
                        ),
                    ]
                })
                .unwrap_or_else(|| vec![0.0, 0.0]))
        })
    });
    def!("scrollIntoView", |ctx: Ctx<'js>,
                            id: f64,
                            block: String,
                            inline: String|
     -> Result<bool> {
        with_tab(&ctx, |tab| {
            tab.resolve();
            let doc = tab.document();
            let Some(id) = live(doc, id).filter(|id| is_element(doc, *id)) else {
                return Ok(false);
            };
            let before = doc.viewport_scroll();
            doc.scroll_into_view(
                id,
                ScrollBehavior::Instant,
                logical_position(&block, ScrollLogicalPosition::Start),
                logical_position(&inline, ScrollLogicalPosition::Nearest),
            );
            Ok(doc.viewport_scroll() != before)
        })
    });

    // --- selectors ---
    def!("querySelector", |ctx: Ctx<'js>,
                           scope: f64,
                           selector: String|
     -> Result<Option<f64>> {
        with_doc(&ctx, |doc| {
            let Some(scope) = live(doc, scope) else {
                return Ok(None);
            };
            doc.query_selector_in(scope, &selector)
                .map(|found| found.map(from_id))
                .map_err(|_| syntax_error(&ctx, &selector))
        })
    });
    def!("querySelectorAll", |ctx: Ctx<'js>,
                              scope: f64,
                              selector: String|
     -> Result<Vec<f64>> {
        with_doc(&ctx, |doc| {
            let Some(scope) = live(doc, scope) else {
                return Ok(Vec::new());
            };
            doc.query_selector_all_in(scope, &selector)
                .map(|found| found.into_iter().map(from_id).collect())
                .map_err(|_| syntax_error(&ctx, &selector))
        })
    });
    def!("matches", |ctx: Ctx<'js>,
                     id: f64,
                     selector: String|
     -> Result<bool> {
        with_doc(&ctx, |doc| {
            let Some(id) = live(doc, id).filter(|id| is_element(doc, *id)) else {
                return Ok(false);
            };
            doc.matches_selector(id, &selector)
                .map_err(|_| syntax_error(&ctx, &selector))
        })
    });
    def!("closest", |ctx: Ctx<'js>,
                     id: f64,
                     selector: String|
     -> Result<Option<f64>> {
        with_doc(&ctx, |doc| {
            let Some(id) = live(doc, id).filter(|id| is_element(doc, *id)) else {
                return Ok(None);
            };
            doc.closest(id, &selector)
                .map(|found| found.map(from_id))
                .map_err(|_| syntax_error(&ctx, &selector))
        })
    });

    // --- URLs ---
    def!("resolveUrl", |ctx: Ctx<'js>,
                        href: String|
     -> Result<Option<String>> {
        with_tab(&ctx, |tab| {
            let url = tab.url.clone();
            Ok(inspect::base_url_at(tab.document(), Some(&url))
                .join(href.trim())
                .ok()
                .map(String::from))
        })
    });
    def!("parseUrl", |href: String,
                      base: Option<String>|
     -> Option<Vec<String>> {
        let parsed = match base {
            Some(base) => Url::parse(&base).ok()?.join(&href).ok()?,
            None => Url::parse(&href).ok()?,
        };
        let port = parsed.port().map(|p| p.to_string()).unwrap_or_default();
        let host = match parsed.port() {
            Some(p) => format!("{}:{p}", parsed.host_str().unwrap_or_default()),
            None => parsed.host_str().unwrap_or_default().to_owned(),
        };
        // Empty query and fragment read as '' (URL standard), not "?"/"#".
        let search = parsed
            .query()
            .filter(|q| !q.is_empty())
            .map(|q| format!("?{q}"))
            .unwrap_or_default();
        let hash = parsed
            .fragment()
            .filter(|f| !f.is_empty())
            .map(|f| format!("#{f}"))
            .unwrap_or_default();
        Some(vec![
            parsed.to_string(),
            format!("{}:", parsed.scheme()),
            parsed.username().to_owned(),
            parsed.password().unwrap_or_default().to_owned(),
            host,
            parsed.host_str().unwrap_or_default().to_owned(),
            port,
            parsed.path().to_owned(),
            search,
            hash,
            parsed.origin().ascii_serialization(),
        ])
    });

    // --- console ---
    def!("console", |level: String, text: String| {
        super::console(&level, &text);
    });
    def!("consoleMessages", || -> Vec<Vec<String>> {
        super::with_console(|entries| {
            entries
                .iter()
                .map(|e| vec![e.level.clone(), e.text.clone()])
                .collect()
        })
    });

    // --- localStorage / sessionStorage ---
    // The first argument picks the area: `true` for sessionStorage.
    def!("storageGet", |ctx: Ctx<'js>,
                        session: bool,
                        key: String|
     -> Result<Option<String>> {
        let area = area(session);
        Ok(storage::get(area, &storage_origin(&ctx, area)?, &key))
    });
    def!("storageSet", |ctx: Ctx<'js>,
                        session: bool,
                        key: String,
                        value: String|
     -> Result<()> {
        let area = area(session);
        let origin = storage_origin(&ctx, area)?;
        storage::set(area, &origin, &key, &value).map_err(|storage::StorageError::QuotaExceeded| {
            Exception::throw_dom(
                &ctx,
                "QuotaExceededError",
                &format!(
                    "The quota of {} for this origin has been exceeded",
                    area.name()
                ),
            )
        })
    });
    def!("storageRemove", |ctx: Ctx<'js>,
                           session: bool,
                           key: String|
     -> Result<()> {
        let area = area(session);
        storage::remove(area, &storage_origin(&ctx, area)?, &key);
        Ok(())
    });
    def!("storageClear", |ctx: Ctx<'js>,
                          session: bool|
     -> Result<()> {
        let area = area(session);
        storage::clear(area, &storage_origin(&ctx, area)?);
        Ok(())
    });
    def!("storageKey", |ctx: Ctx<'js>,
                        session: bool,
                        index: f64|
     -> Result<Option<String>> {
        let area = area(session);
        let origin = storage_origin(&ctx, area)?;
        if !(index >= 0.0 && index < u32::MAX as f64) {
            return Ok(None);
        }
        Ok(storage::key(area, &origin, index as usize))
    });
    def!("storageLength", |ctx: Ctx<'js>,
                           session: bool|
     -> Result<usize> {
        let area = area(session);
        Ok(storage::len(area, &storage_origin(&ctx, area)?))
    });
    def!("storageKeys", |ctx: Ctx<'js>,
                         session: bool|
     -> Result<Vec<String>> {
        let area = area(session);
        Ok(storage::keys(area, &storage_origin(&ctx, area)?))
    });

    // --- IndexedDB (committed state; the API is js/indexeddb.js) ---
    def!("idbOrigin", |ctx: Ctx<'js>| -> Result<String> {
        idb_origin(&ctx)
    });
    def!("idbLoad", |ctx: Ctx<'js>,
                     name: String|
     -> Result<Option<String>> {
        Ok(indexeddb::load(&idb_origin(&ctx)?, &name))
    });
    def!(
        "idbDatabases",
        |ctx: Ctx<'js>| -> Result<Vec<Vec<String>>> {
            // Versions go as strings: rquickjs has no u64 conversion and JS reads
            // them back with Number().
            Ok(indexeddb::databases(&idb_origin(&ctx)?)
                .into_iter()
                .map(|(name, version)| vec![name, version.to_string()])
                .collect())
        }
    );
    def!("idbDelete", |ctx: Ctx<'js>,
                       name: String|
     -> Result<Option<f64>> {
        Ok(indexeddb::delete(&idb_origin(&ctx)?, &name).map(|v| v as f64))
    });
    def!("idbCommit", |ctx: Ctx<'js>,
                       name: String,
                       ops: String|
     -> Result<()> {
        let origin = idb_origin(&ctx)?;
        indexeddb::commit(&origin, &name, &ops).map_err(|e| match e {
            indexeddb::CommitError::QuotaExceeded => Exception::throw_dom(
                &ctx,
                "QuotaExceededError",
                "The IndexedDB quota for this origin has been exceeded",
            ),
            indexeddb::CommitError::Invalid(reason) => Exception::throw_dom(
                &ctx,
                "UnknownError",
                &format!("The transaction could not be committed: {reason}"),
            ),
        })
    });

    super::web::install(ctx, &native)?;
    Ok(native)
}
