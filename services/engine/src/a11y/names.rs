//! Accessible names and values, after ARIA's accessible name computation,
//! simplified: `aria-labelledby`, `aria-label`, `<label>`, `alt`, `title`,
//! placeholder, then content for roles named from content.

use std::cell::OnceCell;
use std::collections::HashMap;

use blitz_dom::node::{Node, NodeData};
use blitz_dom::{BaseDocument, NodeId};

use super::roles::{input_type, is_hidden, tag};
use crate::inspect::{attr, collapse_whitespace, walk_elements};

/// Longest accessible name kept, characters.
pub(super) const MAX_NAME_CHARS: usize = 200;

/// Longest field value returned, characters.
pub(super) const MAX_VALUE_CHARS: usize = 2_000;

/// Roles whose name comes from their content.
pub(super) fn named_from_content(role: &str) -> bool {
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

pub(super) fn clip(text: String, max: usize) -> String {
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

/// A document's `label[for]` elements by the id they name, in document
/// order. Found in one walk of the tree, on the first form control with an
/// id that is named: a query per control made reading a page with many
/// fields quadratic in its size, and Stylo's `query_selector_all` walk cost
/// several times this one.
#[derive(Default)]
pub(super) struct Labels {
    by_for: OnceCell<HashMap<String, Vec<NodeId>>>,
}

impl Labels {
    fn naming(&self, doc: &BaseDocument, id: &str) -> &[NodeId] {
        let by_for = self.by_for.get_or_init(|| {
            let mut by_for: HashMap<String, Vec<NodeId>> = HashMap::new();
            walk_elements(doc, doc.root_node().id, &mut |node| {
                if tag(node) == "label"
                    && let Some(target) = attr(node, "for")
                {
                    by_for.entry(target.to_owned()).or_default().push(node.id);
                }
            });
            by_for
        });
        by_for.get(id).map_or(&[], Vec::as_slice)
    }
}

/// The `<label>`s of a form control: `label[for=id]` and an enclosing label.
fn label_text(doc: &BaseDocument, labels: &Labels, node: &Node) -> Option<String> {
    let mut texts = Vec::new();
    if let Some(id) = attr(node, "id").filter(|id| !id.is_empty()) {
        for label in labels.naming(doc, id) {
            texts.push(visible_text(doc, *label));
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

/// The accessible name of an element with role `role` (`labels`: the
/// document's, kept for the whole walk).
pub(super) fn name(doc: &BaseDocument, labels: &Labels, node: &Node, role: &str) -> String {
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
        && let Some(label) = label_text(doc, labels, node)
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
pub(super) fn value(doc: &BaseDocument, node: &Node) -> String {
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
