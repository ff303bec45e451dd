//! Roles and states after the HTML-AAM mappings, and which elements are
//! hidden from the tree.

use blitz_dom::BaseDocument;
use blitz_dom::node::Node;
use style::computed_values::visibility::T as Visibility;

use super::NEVER;
use crate::inspect::{attr, has_hidden_attr};

pub(super) fn tag(node: &Node) -> &str {
    node.element_data().map(|el| &*el.name.local).unwrap_or("")
}

/// Whether an element is not rendered or hidden from assistive technology.
pub(crate) fn is_hidden(node: &Node) -> bool {
    if NEVER.contains(&tag(node))
        || has_hidden_attr(node)
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

pub(super) fn input_type(node: &Node) -> String {
    attr(node, "type")
        .map(|t| t.trim().to_ascii_lowercase())
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| "text".to_owned())
}

/// The element's role: `role` first, then the implicit role of its tag.
pub(super) fn role(doc: &BaseDocument, node: &Node) -> Option<String> {
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

/// States worth telling an agent, in brackets.
pub(super) fn states(doc: &BaseDocument, node: &Node, role: &str) -> Vec<String> {
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
