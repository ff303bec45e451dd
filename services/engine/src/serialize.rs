//! HTML serialization of nodes (`innerHTML`, `outerHTML`), by the HTML
//! standard's fragment serialization algorithm: comments kept, void elements
//! without end tags, text escaped except inside raw text elements, attribute
//! values quoted and escaped, `<template>` serialized with its contents.

use blitz_dom::node::{Node, NodeData};
use blitz_dom::{BaseDocument, NodeId, ns};

/// Elements that have no end tag (and no children to write).
const VOID: &[&str] = &[
    "area", "base", "basefont", "bgsound", "br", "col", "embed", "frame", "hr", "img", "input",
    "keygen", "link", "meta", "param", "source", "track", "wbr",
];
/// Elements whose text is written as it is.
const RAW_TEXT: &[&str] = &[
    "style",
    "script",
    "xmp",
    "iframe",
    "noembed",
    "noframes",
    "plaintext",
    "noscript",
];
/// How deep the writer follows the tree (the document's own depth is capped
/// lower, see `document::limit_depth`; this guards detached trees).
const MAX_DEPTH: usize = 1024;

/// The serialization of the children of `id` (`innerHTML`).
pub(crate) fn inner_html(doc: &BaseDocument, id: NodeId) -> String {
    let mut out = String::new();
    if let Some(node) = doc.get_node(id) {
        write_children(doc, node, &mut out, 0);
    }
    out
}

/// The serialization of `id` itself (`outerHTML`).
pub(crate) fn outer_html(doc: &BaseDocument, id: NodeId) -> String {
    let mut out = String::new();
    if let Some(node) = doc.get_node(id) {
        write_node(doc, node, &mut out, 0);
    }
    out
}

/// A `<template>`'s contents stand in for its children.
fn write_children(doc: &BaseDocument, node: &Node, out: &mut String, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let source = node
        .element_data()
        .and_then(|el| el.template_contents)
        .and_then(|contents| doc.get_node(contents))
        .unwrap_or(node);
    for child in &source.children {
        if let Some(child) = doc.get_node(*child) {
            write_node(doc, child, out, depth + 1);
        }
    }
}

fn write_node(doc: &BaseDocument, node: &Node, out: &mut String, depth: usize) {
    match &node.data {
        // Layout's anonymous boxes are not part of the document.
        NodeData::AnonymousBlock(_) => {}
        NodeData::Element(el) => {
            let name: &str = &el.name.local;
            out.push('<');
            out.push_str(name);
            for attr in el.attrs() {
                out.push(' ');
                match &attr.name.prefix {
                    Some(prefix) => {
                        out.push_str(prefix);
                        out.push(':');
                    }
                    None if attr.name.ns == ns!(xml) => out.push_str("xml:"),
                    None => {}
                }
                out.push_str(&attr.name.local);
                out.push_str("=\"");
                escape(&attr.value, true, out);
                out.push('"');
            }
            out.push('>');
            if el.name.ns == ns!(html) && VOID.contains(&name) {
                return;
            }
            write_children(doc, node, out, depth);
            out.push_str("</");
            out.push_str(name);
            out.push('>');
        }
        NodeData::Text(text) => {
            let raw = node
                .parent
                .and_then(|p| doc.get_node(p))
                .and_then(|p| p.element_data())
                .is_some_and(|p| p.name.ns == ns!(html) && RAW_TEXT.contains(&&*p.name.local));
            if raw {
                out.push_str(&text.content);
            } else {
                escape(&text.content, false, out);
            }
        }
        NodeData::Comment { contents } => {
            out.push_str("<!--");
            out.push_str(contents);
            out.push_str("-->");
        }
        NodeData::Document(_) => write_children(doc, node, out, depth),
    }
}

/// Escape text (`&`, no-break space, `<`, `>`) or an attribute value (`&`,
/// no-break space, `"`), as the standard's serialization does.
fn escape(text: &str, attribute: bool, out: &mut String) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '\u{a0}' => out.push_str("&nbsp;"),
            '"' if attribute => out.push_str("&quot;"),
            '<' if !attribute => out.push_str("&lt;"),
            '>' if !attribute => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
}
