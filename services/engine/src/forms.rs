//! Form field state: the live value and checkedness of controls, and their
//! record in `snapshot` / `restore`.
//!
//! As in browsers, a text control's live value is not its `value` attribute
//! (that is the default, which `reset()` returns to): Blitz keeps it in the
//! control's text editor, which is also what it paints, and keeps a
//! checkbox's or radio's checkedness beside its `checked` attribute. Option
//! selectedness lives in the `selected` attributes. Reloading the document on
//! restore would reset all of it to the markup, so the snapshot records the
//! live state and restore writes it back.

use blitz_dom::node::{SpecialElementData, TextInputData};
use blitz_dom::{BaseDocument, LocalName, Node, NodeId, QualName, ns};
use serde::{Deserialize, Serialize};
use stylo_dom::ElementState;

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

fn value_name() -> QualName {
    QualName::new(None, ns!(), LocalName::from("value"))
}

/// What live state a control has, by its tag and type (the same split Blitz
/// makes when it builds the control's layout).
enum Control {
    /// A text editor: `textarea`, or `input` of a text-like type.
    Text { multiline: bool },
    /// A checkbox or radio.
    Check,
}

fn control_kind(node: &Node) -> Option<Control> {
    match tag(node)? {
        "textarea" => Some(Control::Text { multiline: true }),
        "input" => {
            let kind = inspect::attr(node, "type").map(|t| t.trim().to_ascii_lowercase());
            match kind.as_deref() {
                None
                | Some("" | "text" | "password" | "email" | "number" | "search" | "tel" | "url") => {
                    Some(Control::Text { multiline: false })
                }
                Some("checkbox" | "radio") => Some(Control::Check),
                Some(_) => None,
            }
        }
        _ => None,
    }
}

/// Give a control its live state now if Blitz has not yet (it does so when it
/// first lays the control out, and never for a detached one): initialized
/// from the markup, as Blitz would.
fn ensure_control(doc: &mut BaseDocument, id: NodeId) {
    let Some(node) = doc.get_node(id) else {
        return;
    };
    let Some(kind) = control_kind(node) else {
        return;
    };
    let initial = match kind {
        Control::Text { multiline: true } => node.text_content(),
        _ => inspect::attr(node, "value").unwrap_or_default().to_owned(),
    };
    let checked = inspect::attr(node, "checked").is_some();
    let Some(el) = doc.get_node_mut(id).and_then(|n| n.element_data_mut()) else {
        return;
    };
    if !matches!(el.special_data, SpecialElementData::None) {
        return;
    }
    match kind {
        Control::Text { multiline } => {
            let mut data = TextInputData::new(multiline);
            data.editor.set_text(&initial);
            el.special_data = SpecialElementData::TextInput(data);
        }
        Control::Check => {
            el.special_data = SpecialElementData::CheckboxInput(checked);
            el.set_checkbox_input_checked(checked);
        }
    }
}

/// The live value of a text control (a `textarea`, or an `input` of a
/// text-like type); `None` for other elements.
pub(crate) fn live_value(doc: &BaseDocument, id: NodeId) -> Option<String> {
    let node = doc.get_node(id)?;
    let el = node.element_data()?;
    match el.text_input_data() {
        Some(data) => Some(data.editor.text().to_string()),
        // Not laid out yet: the live value is still the initial one.
        None => match control_kind(node)? {
            Control::Text { multiline: true } => Some(node.text_content()),
            Control::Text { multiline: false } => {
                Some(inspect::attr(node, "value").unwrap_or_default().to_owned())
            }
            Control::Check => None,
        },
    }
}

/// Set the live value of a text control, leaving its `value` attribute (the
/// default value) as it was. Returns false for other elements.
pub(crate) fn set_live_value(doc: &mut BaseDocument, id: NodeId, value: &str) -> bool {
    ensure_control(doc, id);
    let Some(el) = doc.get_node(id).and_then(|n| n.element_data()) else {
        return false;
    };
    if el.text_input_data().is_none() {
        return false;
    }
    let default = inspect::attr_of(el, "value").map(str::to_owned);
    // Blitz updates a control's editor when its value attribute is set; the
    // attribute is then put back, so only the editor keeps the new value.
    crate::mutation::mutate(doc).set_attribute(id, value_name(), value);
    if let Some(el) = doc.get_node_mut(id).and_then(|n| n.element_data_mut()) {
        match default {
            Some(default) => el.attrs.set(value_name(), &default),
            None => {
                el.attrs.remove(&value_name());
            }
        }
    }
    true
}

/// The live checkedness of a checkbox or radio; `None` for other elements.
pub(crate) fn live_checked(doc: &BaseDocument, id: NodeId) -> Option<bool> {
    let node = doc.get_node(id)?;
    match node.element_data()?.checkbox_input_checked() {
        Some(checked) => Some(checked),
        // Not laid out yet: still the initial state.
        None => matches!(control_kind(node)?, Control::Check)
            .then(|| inspect::attr(node, "checked").is_some()),
    }
}

/// Set the live checkedness of a checkbox or radio (not its attribute).
pub(crate) fn set_live_checked(doc: &mut BaseDocument, id: NodeId, checked: bool) -> bool {
    ensure_control(doc, id);
    let Some(el) = doc.get_node_mut(id).and_then(|n| n.element_data_mut()) else {
        return false;
    };
    if el.checkbox_input_checked().is_none() {
        return false;
    }
    el.set_checkbox_input_checked(checked);
    true
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
            value: live_value(doc, id)
                .or_else(|| inspect::attr(node, "value").map(str::to_owned))
                .map(|v| v.chars().take(MAX_VALUE_CHARS).collect()),
            checked: live_checked(doc, id).unwrap_or(inspect::attr(node, "checked").is_some()),
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
    let mut mutator = crate::mutation::mutate(doc);
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
        match &state.value {
            Some(value) if live_value(doc, id).is_some() => {
                if live_value(doc, id).as_deref() != Some(value.as_str()) {
                    changed |= set_live_value(doc, id, value);
                }
            }
            value => changed |= sync_attr(doc, id, "value", value.as_deref()),
        }
        if state.tag == "input" {
            match live_checked(doc, id) {
                Some(checked) if checked != state.checked => {
                    changed |= set_live_checked(doc, id, state.checked);
                }
                Some(_) => {}
                None => changed |= sync_flag(doc, id, "checked", state.checked),
            }
        }
        if state.tag == "select" {
            for (i, option) in options(doc, id).into_iter().enumerate() {
                changed |= sync_flag(doc, option, "selected", state.selected_index == Some(i));
            }
        }
    }
    changed
}

/// Mark each `<select>`'s selected options with the `:checked` state, which
/// the engine's stylesheet (`select.css`) paints: a closed select shows its
/// selected option, a list box highlights them. Selectedness is the options'
/// `selected` attributes (what scripts and the input actions set); a
/// single-choice select with none selected shows its first option, as
/// browsers do. Call before a layout.
pub(crate) fn sync_option_states(doc: &mut BaseDocument) {
    let selects: Vec<NodeId> = fields(doc)
        .into_iter()
        .filter(|id| doc.get_node(*id).and_then(tag) == Some("select"))
        .collect();
    for select in selects {
        let multiple = doc
            .get_node(select)
            .is_some_and(|n| inspect::attr(n, "multiple").is_some());
        let options = options(doc, select);
        let selected: Vec<bool> = options
            .iter()
            .map(|o| {
                doc.get_node(*o)
                    .is_some_and(|o| inspect::attr(o, "selected").is_some())
            })
            .collect();
        let fallback = !multiple && !selected.contains(&true);
        for (i, option) in options.into_iter().enumerate() {
            let want = selected[i] || (fallback && i == 0);
            let has = doc
                .get_node(option)
                .and_then(|n| n.element_data())
                .is_some_and(|el| el.element_state.contains(ElementState::CHECKED));
            if want != has {
                doc.snapshot_node_and(option, ElementState::CHECKED, |node| {
                    if let Some(el) = node.element_data_mut() {
                        el.element_state.set(ElementState::CHECKED, want);
                    }
                    node.mark_ancestors_dirty();
                });
            }
        }
    }
}
