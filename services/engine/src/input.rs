//! Input actions (export `input`): find the target element, hand the action
//! to the DOM prelude (which fires the events and runs the default actions,
//! see `js/input.js`), pump the event loop and follow any navigation.
//!
//! Targets resolve here, against a fresh layout: a viewport point by hit
//! testing, a CSS selector, visible text, or an accessibility reference. An
//! element target is scrolled into view first and clicked at the centre of
//! its box, as a user would.

use blitz_dom::{BaseDocument, NodeId, ScrollBehavior, ScrollLogicalPosition};

use crate::a11y;
use crate::bindings::exports::fleet::engine::page::{Summary, Target, UserInput};
use crate::inspect::{attr, collapse_whitespace};
use crate::js::from_id;
use crate::{js, state, tab};

/// Elements looked at when matching by text, at most.
const MAX_TEXT_CANDIDATES: usize = 20_000;

/// A resolved target: the element and the viewport point to act at.
pub(crate) struct Hit {
    pub(crate) id: NodeId,
    x: f64,
    y: f64,
}

/// Perform `action`; the error says which target matched nothing or why the
/// action is impossible.
pub(crate) fn perform(action: UserInput) -> Result<Summary, String> {
    let outcome = match action {
        UserInput::Click(target) => {
            let hit = resolve(&target)?;
            js::input_hook("userClick", (from_id(hit.id), hit.x, hit.y))
        }
        UserInput::TypeText(typing) => {
            if let Some(target) = &typing.target {
                let hit = resolve(target)?;
                js::input_hook("userFocus", (from_id(hit.id),))?;
            }
            js::input_hook("userType", (typing.text, typing.clear))
        }
        UserInput::Press(key) => js::input_hook("userPress", (key,)),
        UserInput::Scroll(scroll) => {
            // A wheel over an element scrolls it where it is: moving the page to
            // bring it into view first would scroll what the agent did not ask for.
            let id = match &scroll.target {
                Some(target) => Some(from_id(locate(target, false)?.id)),
                None => None,
            };
            js::input_hook("userScroll", (id, scroll.dx, scroll.dy))
        }
        UserInput::Hover(target) => {
            let hit = resolve(&target)?;
            js::input_hook("userHover", (from_id(hit.id), hit.x, hit.y))
        }
        UserInput::Select(select) => {
            let hit = resolve(&select.target)?;
            js::input_hook("userSelect", (from_id(hit.id), select.value))
        }
    };
    outcome?;
    tab::follow();
    Ok(tab::inspect())
}

/// Find the element `target` names, scroll it into view and pick the point.
fn resolve(target: &Target) -> Result<Hit, String> {
    locate(target, true)
}

/// Find the element `target` names and the centre of its box, scrolling it
/// into view first if `into_view`.
pub(crate) fn locate(target: &Target, into_view: bool) -> Result<Hit, String> {
    let found = state::with_laid_out_document(|doc| -> Result<Option<Hit>, String> {
        let id = match target {
            Target::Point((x, y)) => {
                let (x, y) = (*x, *y);
                if !x.is_finite() || !y.is_finite() {
                    return Err(format!("the point ({x}, {y}) is not a number"));
                }
                let id = doc.element_from_point(x as f32, y as f32).ok_or_else(|| {
                    format!("the point ({x}, {y}) is outside the viewport")
                })?;
                return Ok(Some(Hit { id, x, y }));
            }
            Target::Selector(selector) => doc
                .query_selector(selector)
                .map_err(|_| format!("the selector {selector:?} is not valid CSS"))?
                .ok_or_else(|| format!("no element matches the selector {selector:?}"))?,
            Target::Text(text) => by_text(doc, text)
                .ok_or_else(|| format!("no visible element has the text {text:?}"))?,
            Target::Ref(reference) => a11y::resolve_reference(doc, reference).ok_or_else(|| {
                format!(
                    "no element has the reference {reference:?} (references end when the page navigates; read the accessibility tree again)"
                )
            })?,
        };
        let Some(node) = doc.get_node(id) else {
            return Ok(None);
        };
        if a11y::is_hidden(node) {
            return Err(format!("{} is not visible", describe(target)));
        }
        if attr(node, "disabled").is_some()
            && matches!(
                node.element_data().map(|e| &*e.name.local),
                Some("button" | "input" | "select" | "textarea" | "option")
            )
        {
            return Err(format!("{} is disabled", describe(target)));
        }
        // Into view, then the centre of its box.
        if into_view {
            doc.scroll_into_view(
                id,
                ScrollBehavior::Instant,
                ScrollLogicalPosition::Center,
                ScrollLogicalPosition::Center,
            );
        }
        let rect = doc.get_client_bounding_rect(id);
        let (x, y) = rect
            .map(|r| (r.x + r.width / 2.0, r.y + r.height / 2.0))
            .unwrap_or((0.0, 0.0));
        Ok(Some(Hit { id, x, y }))
    })?;
    found.ok_or_else(|| format!("{} is no longer in the document", describe(target)))
}

fn describe(target: &Target) -> String {
    match target {
        Target::Point((x, y)) => format!("the element at ({x}, {y})"),
        Target::Selector(s) => format!("the element matching {s:?}"),
        Target::Text(t) => format!("the element with text {t:?}"),
        Target::Ref(r) => format!("the element {r}"),
    }
}

/// Whether an element is something a user clicks on purpose.
fn is_interactive(doc: &BaseDocument, id: NodeId) -> bool {
    let Some(node) = doc.get_node(id) else {
        return false;
    };
    let tag = node.element_data().map(|e| &*e.name.local).unwrap_or("");
    matches!(tag, "a" | "button" | "label" | "summary" | "option")
        || (tag == "input"
            && attr(node, "type").is_some_and(|t| {
                matches!(
                    t.to_ascii_lowercase().as_str(),
                    "submit" | "button" | "reset" | "checkbox" | "radio"
                )
            }))
        || attr(node, "onclick").is_some()
        || attr(node, "role").is_some_and(|r| matches!(r, "button" | "link" | "tab" | "menuitem"))
}

/// The text a user sees on an element: its visible text, or for buttons made
/// of `<input>` their value.
pub(crate) fn shown_text(doc: &BaseDocument, id: NodeId) -> String {
    let Some(node) = doc.get_node(id) else {
        return String::new();
    };
    if node
        .element_data()
        .is_some_and(|e| &*e.name.local == "input")
    {
        return collapse_whitespace(attr(node, "value").unwrap_or_default());
    }
    collapse_whitespace(&crate::inspect::inner_text(doc, id, 2_000))
}

/// The element whose text matches `text`: interactive elements first (exact,
/// then containing), then the innermost visible element (exact, then
/// containing). Case and surrounding white space do not matter.
fn by_text(doc: &BaseDocument, text: &str) -> Option<NodeId> {
    let want = collapse_whitespace(text).to_lowercase();
    if want.is_empty() {
        return None;
    }
    let mut elements = Vec::new();
    let mut stack = vec![doc.root_node().id];
    while let Some(id) = stack.pop() {
        if elements.len() >= MAX_TEXT_CANDIDATES {
            break;
        }
        let Some(node) = doc.get_node(id) else {
            continue;
        };
        if node.is_element() {
            if a11y::is_hidden(node) {
                continue;
            }
            elements.push(id);
        }
        stack.extend(node.children.iter().rev().copied());
    }
    let interactive: Vec<NodeId> = elements
        .iter()
        .copied()
        .filter(|id| is_interactive(doc, *id))
        .collect();
    let texts: Vec<(NodeId, String)> = interactive
        .iter()
        .map(|id| (*id, shown_text(doc, *id).to_lowercase()))
        .collect();
    if let Some((id, _)) = texts.iter().find(|(_, t)| *t == want) {
        return Some(*id);
    }
    if let Some((id, _)) = texts.iter().find(|(_, t)| t.contains(&want)) {
        return Some(*id);
    }
    // Innermost: the last element in document order whose own text matches
    // has no matching descendant after it.
    let own = |id: NodeId| -> String {
        doc.get_node(id)
            .map(|n| {
                let parts: Vec<String> = n
                    .children
                    .iter()
                    .filter_map(|c| doc.get_node(*c))
                    .filter_map(|c| c.text_data().map(|t| t.content.to_string()))
                    .collect();
                collapse_whitespace(&parts.join(" ")).to_lowercase()
            })
            .unwrap_or_default()
    };
    let owned: Vec<(NodeId, String)> = elements.iter().map(|id| (*id, own(*id))).collect();
    if let Some((id, _)) = owned.iter().find(|(_, t)| *t == want) {
        return Some(*id);
    }
    owned
        .iter()
        .find(|(_, t)| t.contains(&want))
        .map(|(id, _)| *id)
}
