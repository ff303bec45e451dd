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

use std::fmt::Write as _;

use blitz_dom::node::{Node, NodeData};
use blitz_dom::{BaseDocument, NodeId};
use style::computed_values::visibility::T as Visibility;

use crate::bindings::exports::fleet::engine::page::{AccessibilityTree, Field};
use crate::inspect::{attr, collapse_whitespace, is_inclusive_ancestor};

/// Fields listed in a summary, at most.
const MAX_FIELDS: usize = 200;
/// Longest accessible name kept, characters.
const MAX_NAME_CHARS: usize = 200;
/// Longest field value returned, characters.
const MAX_VALUE_CHARS: usize = 2_000;
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

fn tag(node: &Node) -> &str {
    node.element_data().map(|el| &*el.name.local).unwrap_or("")
}

/// Whether an element is not rendered or hidden from assistive technology.
pub(crate) fn is_hidden(node: &Node) -> bool {
    if NEVER.contains(&tag(node))
        || attr(node, "hidden").is_some()
        || attr(node, "aria-hidden") == Some("true")
    {
        return true;
    }
    if tag(node) == "input" && attr(node, "type").is_some_and(|t| t.eq_ignore_ascii_case("hidden"))
    {
        return true;
    }
    node.primary_styles().is_some_and(|styles| {
        styles.clone_display().is_none()
            || styles.get_inherited_box().clone_visibility() != Visibility::Visible
    })
}

fn input_type(node: &Node) -> String {
    attr(node, "type")
        .map(|t| t.trim().to_ascii_lowercase())
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| "text".to_owned())
}

/// The element's role: `role` first, then the implicit role of its tag.
fn role(doc: &BaseDocument, node: &Node) -> Option<String> {
    if let Some(explicit) = attr(node, "role").and_then(|r| r.split_whitespace().next()) {
        return Some(explicit.to_ascii_lowercase());
    }
    let role = match tag(node) {
        "a" | "area" if attr(node, "href").is_some() => "link",
        "button" => "button",
        "input" => match input_type(node).as_str() {
            "checkbox" => "checkbox",
            "radio" => "radio",
            "button" | "submit" | "reset" | "image" => "button",
            "range" => "slider",
            "number" => "spinbutton",
            "search" => "searchbox",
            "file" => "button",
            _ => "textbox",
        },
        "textarea" => "textbox",
        "select" => {
            let size = attr(node, "size").and_then(|s| s.trim().parse::<u32>().ok());
            if attr(node, "multiple").is_some() || size.is_some_and(|s| s > 1) {
                "listbox"
            } else {
                "combobox"
            }
        }
        "option" => "option",
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => "heading",
        "img" => {
            if attr(node, "alt") == Some("") {
                return None;
            }
            "img"
        }
        "nav" => "navigation",
        "main" => "main",
        "header" if !inside_sectioning(doc, node) => "banner",
        "footer" if !inside_sectioning(doc, node) => "contentinfo",
        "aside" => "complementary",
        "form" => "form",
        "ul" | "ol" | "menu" => "list",
        "li" => "listitem",
        "table" => "table",
        "tr" => "row",
        "td" => "cell",
        "th" => "columnheader",
        "dialog" => "dialog",
        "article" => "article",
        "section" if attr(node, "aria-label").is_some() => "region",
        "p" => "paragraph",
        "summary" => "button",
        "details" => "group",
        "fieldset" => "group",
        "progress" => "progressbar",
        "blockquote" => "blockquote",
        "hr" => "separator",
        "label" => "label",
        _ => return None,
    };
    Some(role.to_owned())
}

fn inside_sectioning(doc: &BaseDocument, node: &Node) -> bool {
    let mut current = node.parent;
    while let Some(id) = current {
        let Some(n) = doc.get_node(id) else {
            return false;
        };
        if matches!(tag(n), "article" | "aside" | "main" | "nav" | "section") {
            return true;
        }
        current = n.parent;
    }
    false
}

/// Roles whose name comes from their content.
fn named_from_content(role: &str) -> bool {
    matches!(
        role,
        "link"
            | "button"
            | "heading"
            | "option"
            | "cell"
            | "columnheader"
            | "tab"
            | "menuitem"
            | "checkbox"
            | "radio"
            | "label"
            | "listitem"
    )
}

fn clip(text: String, max: usize) -> String {
    if text.chars().count() <= max {
        return text;
    }
    let mut out: String = text.chars().take(max).collect();
    out.push('…');
    out
}

/// Visible text of a subtree (hidden descendants left out), whitespace collapsed.
fn visible_text(doc: &BaseDocument, id: NodeId) -> String {
    let mut out = String::new();
    let mut stack = vec![id];
    while let Some(id) = stack.pop() {
        let Some(node) = doc.get_node(id) else {
            continue;
        };
        match &node.data {
            NodeData::Text(text) => {
                out.push_str(&text.content);
                out.push(' ');
            }
            NodeData::Element(_) if is_hidden(node) => {}
            NodeData::Element(_) if tag(node) == "img" => {
                if let Some(alt) = attr(node, "alt") {
                    out.push_str(alt);
                    out.push(' ');
                }
            }
            _ => stack.extend(node.children.iter().rev().copied()),
        }
        if out.len() > MAX_NAME_CHARS * 8 {
            break;
        }
    }
    collapse_whitespace(&out)
}

/// The `<label>`s of a form control: `label[for=id]` and an enclosing label.
fn label_text(doc: &BaseDocument, node: &Node) -> Option<String> {
    let mut texts = Vec::new();
    if let Some(id) = attr(node, "id").filter(|id| !id.is_empty())
        && let Ok(labels) = doc.query_selector_all("label[for]")
    {
        for label in labels {
            if let Some(label_node) = doc.get_node(label)
                && attr(label_node, "for") == Some(id)
            {
                texts.push(visible_text(doc, label));
            }
        }
    }
    let mut current = node.parent;
    while let Some(pid) = current {
        let Some(parent) = doc.get_node(pid) else {
            break;
        };
        if tag(parent) == "label" {
            texts.push(visible_text(doc, pid));
            break;
        }
        current = parent.parent;
    }
    let text = collapse_whitespace(&texts.join(" "));
    (!text.is_empty()).then_some(text)
}

/// The accessible name of an element with role `role`.
fn name(doc: &BaseDocument, node: &Node, role: &str) -> String {
    if let Some(ids) = attr(node, "aria-labelledby") {
        let text: Vec<String> = ids
            .split_whitespace()
            .filter_map(|id| doc.get_element_by_id(id))
            .map(|id| visible_text(doc, id))
            .collect();
        let text = collapse_whitespace(&text.join(" "));
        if !text.is_empty() {
            return clip(text, MAX_NAME_CHARS);
        }
    }
    if let Some(label) = attr(node, "aria-label").map(collapse_whitespace)
        && !label.is_empty()
    {
        return clip(label, MAX_NAME_CHARS);
    }
    let t = tag(node);
    if matches!(t, "input" | "textarea" | "select")
        && let Some(label) = label_text(doc, node)
    {
        return clip(label, MAX_NAME_CHARS);
    }
    if t == "input" && matches!(input_type(node).as_str(), "submit" | "button" | "reset") {
        let value = attr(node, "value").map(collapse_whitespace);
        let fallback = match input_type(node).as_str() {
            "submit" => "Submit",
            "reset" => "Reset",
            _ => "",
        };
        return clip(
            value
                .filter(|v| !v.is_empty())
                .unwrap_or_else(|| fallback.to_owned()),
            MAX_NAME_CHARS,
        );
    }
    if (matches!(t, "img" | "area") || (t == "input" && input_type(node) == "image"))
        && let Some(alt) = attr(node, "alt")
            .map(collapse_whitespace)
            .filter(|a| !a.is_empty())
    {
        return clip(alt, MAX_NAME_CHARS);
    }
    if matches!(t, "table" | "fieldset" | "figure") {
        let caption = match t {
            "table" => "caption",
            "fieldset" => "legend",
            _ => "figcaption",
        };
        if let Some(child) = node
            .children
            .iter()
            .copied()
            .find(|c| doc.get_node(*c).is_some_and(|c| tag(c) == caption))
        {
            return clip(visible_text(doc, child), MAX_NAME_CHARS);
        }
    }
    if named_from_content(role) {
        let text = visible_text(doc, node.id);
        if !text.is_empty() {
            return clip(text, MAX_NAME_CHARS);
        }
    }
    for fallback in ["title", "placeholder"] {
        if let Some(v) = attr(node, fallback)
            .map(collapse_whitespace)
            .filter(|v| !v.is_empty())
        {
            return clip(v, MAX_NAME_CHARS);
        }
    }
    String::new()
}

/// A form control's current value (the live value is its attribute; see
/// `forms.rs`). Passwords are never read back.
fn value(doc: &BaseDocument, node: &Node) -> String {
    match tag(node) {
        "input" if input_type(node) == "password" => String::new(),
        "input" | "textarea" => crate::forms::live_value(doc, node.id)
            .unwrap_or_else(|| attr(node, "value").unwrap_or_default().to_owned()),
        "select" => selected_options(doc, node)
            .first()
            .map(|o| option_label(doc, *o))
            .unwrap_or_default(),
        _ => String::new(),
    }
}

fn selected_options(doc: &BaseDocument, select: &Node) -> Vec<NodeId> {
    let mut options = Vec::new();
    let mut stack: Vec<NodeId> = select.children.iter().rev().copied().collect();
    while let Some(id) = stack.pop() {
        let Some(node) = doc.get_node(id) else {
            continue;
        };
        if tag(node) == "option" {
            options.push(id);
        } else {
            stack.extend(node.children.iter().rev().copied());
        }
    }
    let selected: Vec<NodeId> = options
        .iter()
        .copied()
        .filter(|o| doc.get_node(*o).and_then(|o| attr(o, "selected")).is_some())
        .collect();
    if selected.is_empty() {
        options.into_iter().take(1).collect()
    } else {
        selected
    }
}

fn option_label(doc: &BaseDocument, option: NodeId) -> String {
    doc.get_node(option)
        .map(|o| {
            attr(o, "label")
                .map(collapse_whitespace)
                .unwrap_or_else(|| collapse_whitespace(&o.text_content()))
        })
        .unwrap_or_default()
}

/// States worth telling an agent, in brackets.
fn states(doc: &BaseDocument, node: &Node, role: &str) -> Vec<String> {
    let mut states = Vec::new();
    let aria = |name: &str| attr(node, name).map(|v| v.trim().to_ascii_lowercase());
    if role == "heading" {
        let level = aria("aria-level")
            .and_then(|l| l.parse::<u32>().ok())
            .or_else(|| tag(node).strip_prefix('h').and_then(|l| l.parse().ok()));
        if let Some(level) = level {
            states.push(format!("level={level}"));
        }
    }
    if matches!(role, "checkbox" | "radio" | "switch" | "menuitemcheckbox") {
        let checked = match aria("aria-checked").as_deref() {
            Some("true") => true,
            Some("mixed") => {
                states.push("checked=mixed".into());
                false
            }
            Some(_) => false,
            None => {
                crate::forms::live_checked(doc, node.id).unwrap_or(attr(node, "checked").is_some())
            }
        };
        if checked {
            states.push("checked".into());
        }
    }
    if attr(node, "disabled").is_some() || aria("aria-disabled").as_deref() == Some("true") {
        states.push("disabled".into());
    }
    if attr(node, "required").is_some() || aria("aria-required").as_deref() == Some("true") {
        states.push("required".into());
    }
    if let Some(expanded) = aria("aria-expanded") {
        states.push(
            if expanded == "true" {
                "expanded"
            } else {
                "collapsed"
            }
            .into(),
        );
    } else if tag(node) == "details" {
        states.push(
            if attr(node, "open").is_some() {
                "expanded"
            } else {
                "collapsed"
            }
            .into(),
        );
    }
    if role == "option" && attr(node, "selected").is_some()
        || aria("aria-selected").as_deref() == Some("true")
    {
        states.push("selected".into());
    }
    if aria("aria-pressed").as_deref() == Some("true") {
        states.push("pressed".into());
    }
    if doc.get_focussed_node_id() == Some(node.id) && tag(node) != "html" {
        states.push("focused".into());
    }
    states
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
            let name = name(doc, node, &role);
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
                    label: name(doc, node, &role),
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
