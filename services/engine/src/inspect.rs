//! What an agent reads of a page: title, visible text, links.
//!
//! Text follows `innerText` closely enough for reading a page: it walks the
//! styled DOM, skips what is not rendered (`display:none`, `visibility:hidden`,
//! `hidden`, `<head>`, `<script>`, `<style>`, `<template>`), turns block
//! boundaries and `<br>` into newlines, collapses whitespace unless CSS preserves
//! it, and trims. Call it after `resolve`, so computed styles exist; unstyled
//! elements fall back to tag-based rules.

use blitz_dom::node::{ElementData, Node, NodeData};
use blitz_dom::{BaseDocument, NodeId};
use url::Url;

use crate::bindings::exports::fleet::engine::page::{Frame, Link};

mod text;
mod transform;

pub(crate) use text::{inner_text, inner_text_skipping};

/// Elements whose content is never rendered as text.
const SKIPPED: &[&str] = &[
    "head", "script", "style", "template", "noscript", "title", "textarea", "datalist", "iframe",
    "object", "embed", "canvas",
];

/// Block-level elements, for elements that have no computed style.
pub(crate) const BLOCK_TAGS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "body",
    "dd",
    "details",
    "dialog",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hgroup",
    "hr",
    "html",
    "li",
    "main",
    "menu",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "summary",
    "table",
    "tr",
    "ul",
    "caption",
];

/// Most links an inspect returns (a link farm should not flood the agent).
const MAX_LINKS: usize = 2_000;
/// Most frames a summary lists, and characters of text per frame.
const MAX_FRAMES: usize = 20;
const MAX_FRAME_TEXT_CHARS: usize = 5_000;

/// The local name of an element (`div`, `a`, ...), if `node` is one.
fn element(node: &Node) -> Option<(&ElementData, &str)> {
    match &node.data {
        NodeData::Element(el) => Some((el, &*el.name.local)),
        _ => None,
    }
}

/// The value of attribute `name` (no namespace) of an element.
pub(crate) fn attr<'a>(node: &'a Node, name: &str) -> Option<&'a str> {
    node.attrs()?
        .iter()
        .find(|a| &*a.name.local == name)
        .map(|a| a.value.as_str())
}

/// The value of attribute `name` (no namespace) of an element's data.
pub(crate) fn attr_of<'a>(el: &'a ElementData, name: &str) -> Option<&'a str> {
    el.attrs()
        .iter()
        .find(|a| &*a.name.local == name)
        .map(|a| a.value.as_str())
}

/// Whether an element has the `hidden` attribute. Every walk of a summary
/// asks this of every element, so it compares interned names rather than
/// reading each attribute's name as a string.
pub(crate) fn has_hidden_attr(node: &Node) -> bool {
    let hidden = blitz_dom::local_name!("hidden");
    node.attrs()
        .is_some_and(|attrs| attrs.iter().any(|a| a.name.local == hidden))
}

/// Whether an element is hidden by markup or by its computed `display`.
pub(crate) fn is_hidden(node: &Node, tag: &str) -> bool {
    if SKIPPED.contains(&tag) || has_hidden_attr(node) {
        return true;
    }
    node.primary_styles()
        .is_some_and(|styles| styles.clone_display().is_none())
}

/// Calls `f` on every element under `id` (pre-order, iterative).
pub(crate) fn walk_elements(doc: &BaseDocument, id: NodeId, f: &mut impl FnMut(&Node)) {
    let mut stack = vec![id];
    while let Some(id) = stack.pop() {
        let Some(node) = doc.get_node(id) else {
            continue;
        };
        if node.is_element() {
            f(node);
        }
        stack.extend(node.children.iter().rev().copied());
    }
}

/// Whether `ancestor` is `node` or one of its ancestors.
pub(crate) fn is_inclusive_ancestor(doc: &BaseDocument, ancestor: NodeId, node: NodeId) -> bool {
    let mut current = Some(node);
    while let Some(id) = current {
        if id == ancestor {
            return true;
        }
        current = doc.get_node(id).and_then(|n| n.parent);
    }
    false
}

/// Collapse runs of white space to one space and trim (for titles, link texts).
pub(crate) fn collapse_whitespace(text: &str) -> String {
    text.split_ascii_whitespace().collect::<Vec<_>>().join(" ")
}

/// `document.title`.
pub(crate) fn title(doc: &BaseDocument) -> String {
    doc.find_title_node()
        .map(|node| collapse_whitespace(&node.text_content()))
        .unwrap_or_default()
}

/// The URL relative links resolve against: the first `<base href>`, else the
/// document URL (as loaded).
pub(crate) fn base_url(doc: &BaseDocument) -> Url {
    base_url_at(doc, None)
}

/// [`base_url`] for a document whose URL is now `current` (`pushState` and
/// fragment navigations change it after load).
///
/// Finding `<base>` walks the whole tree when there is none (most pages), and
/// scripts ask for the base on every `href` they read, so the answer is kept
/// until the tree changes (the mutation count), for the same document and URL.
pub(crate) fn base_url_at(doc: &BaseDocument, current: Option<&str>) -> Url {
    let doc_url: Url = current
        .and_then(|u| Url::parse(u).ok())
        .unwrap_or_else(|| doc.url().clone());
    let key = (
        std::ptr::from_ref(doc) as usize,
        crate::mutation::version(),
        doc_url.clone(),
    );
    BASE.with(|cache| {
        let mut cache = cache.borrow_mut();
        if let Some((cached_key, base)) = cache.as_ref()
            && *cached_key == key
        {
            return base.clone();
        }
        let base = doc
            .find_element_by_tag_name(&blitz_dom::local_name!("base"))
            .and_then(|base| attr(base, "href"))
            .and_then(|href| doc_url.join(href.trim()).ok())
            .unwrap_or(doc_url);
        *cache = Some((key, base.clone()));
        base
    })
}

/// The document (its address), mutation count and URL of the last
/// [`base_url_at`] answer, and the answer.
type BaseKey = (usize, u64, Url);

thread_local! {
    static BASE: std::cell::RefCell<Option<(BaseKey, Url)>> = const { std::cell::RefCell::new(None) };
}

/// Hyperlinks (`a[href]`, `area[href]`) outside hidden subtrees, in document order.
pub(crate) fn links(doc: &BaseDocument, current: &str) -> Vec<Link> {
    let base = base_url_at(doc, Some(current));
    let mut links = Vec::new();
    walk_links(doc, doc.root_node().id, &base, &mut links);
    links
}

fn walk_links(doc: &BaseDocument, id: NodeId, base: &Url, links: &mut Vec<Link>) {
    if links.len() >= MAX_LINKS {
        return;
    }
    let Some(node) = doc.get_node(id) else {
        return;
    };
    if let Some((_, tag)) = element(node) {
        if is_hidden(node, tag) {
            return;
        }
        if (tag == "a" || tag == "area")
            && let Some(href) = attr(node, "href")
        {
            let href = href.trim();
            let resolved = base
                .join(href)
                .map(String::from)
                .unwrap_or_else(|_| href.to_owned());
            links.push(Link {
                text: link_text(doc, node),
                href: resolved,
            });
        }
    }
    for child in node.children.iter() {
        walk_links(doc, *child, base, links);
    }
}

/// A link's text; image-only links fall back to `aria-label`, `title` or the
/// first image's `alt`, which is what a reader of the page would see or hear.
fn link_text(doc: &BaseDocument, node: &Node) -> String {
    let text = collapse_whitespace(&node.text_content());
    if !text.is_empty() {
        return text;
    }
    for name in ["aria-label", "title"] {
        if let Some(label) = attr(node, name) {
            let label = collapse_whitespace(label);
            if !label.is_empty() {
                return label;
            }
        }
    }
    first_img_alt(doc, node).unwrap_or_default()
}

fn first_img_alt(doc: &BaseDocument, node: &Node) -> Option<String> {
    for child in node.children.iter() {
        let child = doc.get_node(*child)?;
        if let Some((_, "img")) = element(child)
            && let Some(alt) = attr(child, "alt")
        {
            return Some(collapse_whitespace(alt));
        }
        if let Some(alt) = first_img_alt(doc, child) {
            return Some(alt);
        }
    }
    None
}

/// The documents Blitz loaded for the `<iframe>`s of `doc` (and, after each,
/// for its own frames), in document order, at most [`MAX_FRAMES`].
pub(crate) fn frames(doc: &BaseDocument) -> Vec<Frame> {
    let mut out = Vec::new();
    collect_frames(doc, &mut out);
    out
}

fn collect_frames(doc: &BaseDocument, out: &mut Vec<Frame>) {
    let mut stack = vec![doc.root_node().id];
    while let Some(id) = stack.pop() {
        if out.len() >= MAX_FRAMES {
            return;
        }
        let Some(node) = doc.get_node(id) else {
            continue;
        };
        if let Some((el, tag)) = element(node) {
            // An iframe is "skipped" for text (its own content is not the
            // page's), so only its style and `hidden` say it is not shown.
            let not_shown = if tag == "iframe" {
                has_hidden_attr(node)
                    || node
                        .primary_styles()
                        .is_some_and(|s| s.clone_display().is_none())
            } else {
                is_hidden(node, tag)
            };
            if not_shown {
                continue;
            }
            if let Some(sub) = el.sub_doc_data() {
                let sub = sub.inner();
                let url = sub.url().to_string();
                let root = sub.root_node().id;
                out.push(Frame {
                    links: links(&sub, &url),
                    title: title(&sub),
                    text: inner_text(&sub, root, MAX_FRAME_TEXT_CHARS),
                    url,
                });
                collect_frames(&sub, out);
                continue;
            }
        }
        stack.extend(node.children.iter().rev().copied());
    }
}
