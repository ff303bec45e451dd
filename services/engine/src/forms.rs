//! Form field state for `snapshot` / `restore`.
//!
//! The JavaScript bindings reflect `value`, `checked` and `selected` onto the
//! element's attributes (`el.value = 'x'` is `setAttribute('value', 'x')`), so
//! the live state of a field *is* its attributes in the Blitz DOM. Reloading
//! the document on restore would reset them to the markup, so the snapshot
//! records them and restore writes them back the same way the bindings do.

use blitz_dom::{BaseDocument, LocalName, Node, NodeId, QualName, ns};
use serde::{Deserialize, Serialize};

use crate::inspect;

/// At most this many fields are recorded, to bound the snapshot.
const MAX_FIELDS: usize = 200;
/// Longest value recorded (characters); longer values are truncated.
const MAX_VALUE_CHARS: usize = 2048;
/// The elements whose state is recorded.
const FIELD_TAGS: [&str; 3] = ["input", "textarea", "select"];

/// The state of one form field.
#[derive(Serialize, Deserialize, PartialEq, Debug)]
pub(crate) struct FieldState {
    /// Position among all `input`/`textarea`/`select` elements in document
    /// order (skipped password and file inputs count too, so positions stay
    /// the same whichever fields are recorded).
    index: usize,
    /// The element's local name, checked on restore so that a changed page
    /// does not receive values meant for another kind of field.
    tag: String,
    /// The `value` attribute (what `el.value` reads); `None` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    value: Option<String>,
    /// Whether the `checked` attribute is present (what `el.checked` reads).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    checked: bool,
    /// For `select`: the position of the first `option` carrying `selected`
    /// among the select's options in document order.
    #[serde(
        default,
        rename = "selectedIndex",
        skip_serializing_if = "Option::is_none"
    )]
    selected_index: Option<usize>,
}

/// The local name of an element node.
fn tag(node: &Node) -> Option<&str> {
    node.element_data().map(|el| &*el.name.local)
}

/// The descendants of `root` (excluding it) in document order.
fn descendants(doc: &BaseDocument, root: NodeId) -> Vec<NodeId> {
    let mut out = Vec::new();
    let mut stack: Vec<NodeId> = doc
        .get_node(root)
        .map(|n| n.children.iter().rev().copied().collect())
        .unwrap_or_default();
    while let Some(id) = stack.pop() {
        out.push(id);
        if let Some(node) = doc.get_node(id) {
            stack.extend(node.children.iter().rev().copied());
        }
    }
    out
}

/// Every form field of the document in document order.
fn fields(doc: &BaseDocument) -> Vec<NodeId> {
    descendants(doc, doc.root_node().id)
        .into_iter()
        .filter(|id| {
            doc.get_node(*id)
                .and_then(tag)
                .is_some_and(|t| FIELD_TAGS.contains(&t))
        })
        .collect()
}

/// The `option` elements of a `select`, in document order.
fn options(doc: &BaseDocument, select: NodeId) -> Vec<NodeId> {
    descendants(doc, select)
        .into_iter()
        .filter(|id| doc.get_node(*id).and_then(tag) == Some("option"))
        .collect()
}

/// Whether a field must never be recorded (secrets, and files we cannot restore).
fn is_excluded(node: &Node) -> bool {
    tag(node) == Some("input")
        && inspect::attr(node, "type")
            .is_some_and(|t| t.eq_ignore_ascii_case("password") || t.eq_ignore_ascii_case("file"))
}

/// Record the state of up to [`MAX_FIELDS`] fields.
pub(crate) fn capture(doc: &BaseDocument) -> Vec<FieldState> {
    let mut out = Vec::new();
    for (index, id) in fields(doc).into_iter().enumerate() {
        if out.len() >= MAX_FIELDS {
            break;
        }
        let Some(node) = doc.get_node(id) else {
            continue;
        };
        let Some(tag) = tag(node) else {
            continue;
        };
        if is_excluded(node) {
            continue;
        }
        let selected_index = (tag == "select").then(|| {
            options(doc, id).iter().position(|o| {
                doc.get_node(*o)
                    .is_some_and(|o| inspect::attr(o, "selected").is_some())
            })
        });
        out.push(FieldState {
            index,
            tag: tag.to_owned(),
            value: inspect::attr(node, "value").map(|v| v.chars().take(MAX_VALUE_CHARS).collect()),
            checked: inspect::attr(node, "checked").is_some(),
            selected_index: selected_index.flatten(),
        });
    }
    out
}

fn attr_name(name: &str) -> QualName {
    QualName::new(None, ns!(), LocalName::from(name))
}

/// Set or remove attribute `name` of `id` when it differs from `want`.
/// Returns whether the document changed.
fn sync_attr(doc: &mut BaseDocument, id: NodeId, name: &str, want: Option<&str>) -> bool {
    let current = doc
        .get_node(id)
        .and_then(|n| inspect::attr(n, name))
        .map(str::to_owned);
    if current.as_deref() == want {
        return false;
    }
    let mut mutator = doc.mutate();
    match want {
        Some(value) => mutator.set_attribute(id, attr_name(name), value),
        None => mutator.clear_attribute(id, attr_name(name)),
    }
    true
}

/// Add or remove boolean attribute `name` of `id`; only its presence matters,
/// so an existing `checked="checked"` is left as it is.
fn sync_flag(doc: &mut BaseDocument, id: NodeId, name: &str, want: bool) -> bool {
    let present = doc
        .get_node(id)
        .is_some_and(|n| inspect::attr(n, name).is_some());
    if present == want {
        return false;
    }
    sync_attr(doc, id, name, want.then_some(""))
}

/// Write recorded field states back into the (reloaded) document. Fields
/// whose position no longer holds an element of the same kind are skipped.
/// Returns whether anything changed.
pub(crate) fn apply(doc: &mut BaseDocument, states: &[FieldState]) -> bool {
    let fields = fields(doc);
    let mut changed = false;
    for state in states {
        let Some(&id) = fields.get(state.index) else {
            continue;
        };
        let matches = doc
            .get_node(id)
            .is_some_and(|n| tag(n) == Some(state.tag.as_str()) && !is_excluded(n));
        if !matches {
            continue;
        }
        changed |= sync_attr(doc, id, "value", state.value.as_deref());
        if state.tag == "input" {
            changed |= sync_flag(doc, id, "checked", state.checked);
        }
        if state.tag == "select" {
            for (i, option) in options(doc, id).into_iter().enumerate() {
                changed |= sync_flag(doc, option, "selected", state.selected_index == Some(i));
            }
        }
    }
    changed
}
