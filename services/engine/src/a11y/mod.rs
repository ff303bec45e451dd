//! What an agent acts on: the accessibility tree with element references, and
//! the list of form fields.
//!
//! A reference is `e` followed by the element's Blitz node id. Ids are stable
//! for as long as the document lives (a node keeps its id when it moves), and
//! an id of a removed node is never reused for another node (see `natives`),
//! so a reference either names the element it named before or nothing.
//!
//! Roles, names and states follow the HTML-AAM mappings and ARIA's accessible
//! name computation, simplified: `aria-labelledby`, `aria-label`, `<label>`,
//! `alt`, `title`, placeholder, then content for roles named from content.
//! Generic containers (`div`, `span`, ...) are not listed; their children are.

mod names;
mod roles;

pub(crate) use roles::is_hidden;

use std::fmt::Write as _;

use blitz_dom::node::{Node, NodeData};
use blitz_dom::{BaseDocument, NodeId};

use crate::bindings::exports::fleet::engine::page::{AccessibilityTree, Field};
use crate::inspect::{attr, collapse_whitespace, is_inclusive_ancestor};
use names::{Labels, MAX_NAME_CHARS, MAX_VALUE_CHARS, clip, name, named_from_content, value};
use roles::{input_type, role, states, tag};

/// Fields listed in a summary, at most.
const MAX_FIELDS: usize = 200;

/// Elements never exposed.
const NEVER: &[&str] = &[
    "head", "script", "style", "template", "noscript", "title", "meta", "link", "base",
];

/// The reference of a node.
pub(crate) fn reference(id: NodeId) -> String {
    format!("e{}", id.as_u64())
}

/// The element a reference names, if it is still in the document.
pub(crate) fn resolve_reference(doc: &BaseDocument, reference: &str) -> Option<NodeId> {
    let raw: u64 = reference.trim().strip_prefix('e')?.parse().ok()?;
    let id = NodeId::from_u64(raw);
    let node = doc.get_node(id)?;
    (node.is_element() && is_inclusive_ancestor(doc, doc.root_node().id, id)).then_some(id)
}

/// Quote a string for a tree line.
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push(' '),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

struct TreeWriter {
    labels: Labels,
    out: String,
    nodes: u32,
    max: u32,
    skipped: u32,
}

impl TreeWriter {
    fn line(&mut self, depth: usize, line: &str) -> bool {
        if self.nodes >= self.max {
            self.skipped += 1;
            return false;
        }
        self.nodes += 1;
        for _ in 0..depth {
            self.out.push_str("  ");
        }
        self.out.push_str("- ");
        self.out.push_str(line);
        self.out.push('\n');
        true
    }
}

fn walk(doc: &BaseDocument, id: NodeId, depth: usize, w: &mut TreeWriter) {
    let Some(node) = doc.get_node(id) else {
        return;
    };
    match &node.data {
        NodeData::Text(text) => {
            let text = collapse_whitespace(&text.content);
            if !text.is_empty() {
                w.line(
                    depth,
                    &format!("text {}", quoted(&clip(text, MAX_NAME_CHARS))),
                );
            }
        }
        NodeData::Element(_) => {
            if is_hidden(node) {
                return;
            }
            let Some(role) = role(doc, node).filter(|r| r != "presentation" && r != "none") else {
                for child in &node.children {
                    walk(doc, *child, depth, w);
                }
                return;
            };
            let name = name(doc, &w.labels, node, &role);
            let mut line = role.clone();
            if !name.is_empty() {
                line.push(' ');
                line.push_str(&quoted(&name));
            }
            for state in states(doc, node, &role) {
                let _ = write!(line, " [{state}]");
            }
            let _ = write!(line, " [ref={}]", reference(id));
            let t = tag(node);
            if matches!(t, "input" | "textarea" | "select") {
                let value = value(doc, node);
                if !value.is_empty() && role != "checkbox" && role != "radio" {
                    let _ = write!(line, ": {}", quoted(&clip(value, MAX_NAME_CHARS)));
                }
            }
            if t == "a"
                && let Some(href) = attr(node, "href")
            {
                let _ = write!(line, " /url: {}", href.trim());
            }
            if !w.line(depth, &line) {
                return;
            }
            // Content that names the node is not repeated beneath it, and form
            // controls' internals are not children an agent can act on.
            let leaf = (named_from_content(&role) && !has_interactive_descendant(doc, node))
                || matches!(t, "input" | "textarea" | "img");
            if !leaf {
                for child in &node.children {
                    walk(doc, *child, depth + 1, w);
                }
            }
        }
        _ => {
            for child in &node.children {
                walk(doc, *child, depth, w);
            }
        }
    }
}

fn has_interactive_descendant(doc: &BaseDocument, node: &Node) -> bool {
    let mut stack: Vec<NodeId> = node.children.to_vec();
    while let Some(id) = stack.pop() {
        let Some(n) = doc.get_node(id) else {
            continue;
        };
        if matches!(tag(n), "a" | "button" | "input" | "select" | "textarea") {
            return true;
        }
        stack.extend(n.children.iter().copied());
    }
    false
}

/// The accessibility tree of the document, cut at `max_nodes` lines.
pub(crate) fn tree(doc: &BaseDocument, max_nodes: u32) -> AccessibilityTree {
    let mut w = TreeWriter {
        labels: Labels::default(),
        out: String::new(),
        nodes: 0,
        max: max_nodes.max(1),
        skipped: 0,
    };
    let root = doc.root_node().id;
    walk(doc, root, 0, &mut w);
    let truncated = w.skipped > 0;
    if truncated {
        let _ = writeln!(
            w.out,
            "- … truncated: {} more nodes (raise maxNodes or act on what is listed)",
            w.skipped
        );
    }
    AccessibilityTree {
        text: w.out,
        nodes: w.nodes,
        truncated,
    }
}

/// The document's form fields in document order (hidden ones left out).
pub(crate) fn fields(doc: &BaseDocument) -> Vec<Field> {
    let mut out = Vec::new();
    let labels = Labels::default();
    let mut stack = vec![doc.root_node().id];
    while let Some(id) = stack.pop() {
        if out.len() >= MAX_FIELDS {
            break;
        }
        let Some(node) = doc.get_node(id) else {
            continue;
        };
        if node.is_element() && is_hidden(node) {
            continue;
        }
        let t = tag(node);
        if matches!(t, "input" | "textarea" | "select") {
            let kind = if t == "input" {
                input_type(node)
            } else {
                t.to_owned()
            };
            if !matches!(kind.as_str(), "submit" | "button" | "reset" | "image") {
                let role = role(doc, node).unwrap_or_default();
                out.push(Field {
                    ref_: reference(id),
                    name: attr(node, "name").unwrap_or_default().to_owned(),
                    label: name(doc, &labels, node, &role),
                    value: clip(value(doc, node), MAX_VALUE_CHARS),
                    checked: crate::forms::live_checked(doc, id)
                        .unwrap_or(attr(node, "checked").is_some()),
                    kind,
                });
            }
            continue;
        }
        stack.extend(node.children.iter().rev().copied());
    }
    out
}
