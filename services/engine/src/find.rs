//! Finding an element without acting on it (export `find`): the element a
//! target names, as input resolves it, described by its accessibility
//! reference, a CSS selector that matches it alone, its tag, the text it
//! shows and its box.

use blitz_dom::{BaseDocument, NodeId};

use crate::bindings::exports::fleet::engine::page::{Found, Target};
use crate::inspect::attr;
use crate::{a11y, input, state};

/// Find the element `target` names.
pub(crate) fn find(target: &Target) -> Result<Found, String> {
    let hit = input::locate(target, false)?;
    state::with_laid_out_document(|doc| {
        let node = doc
            .get_node(hit.id)
            .ok_or_else(|| "the element is no longer in the document".to_owned())?;
        let tag = node
            .element_data()
            .map(|e| e.name.local.to_string())
            .unwrap_or_default();
        let rect = doc.get_client_bounding_rect(hit.id);
        Ok(Found {
            reference: a11y::reference(hit.id),
            selector: selector(doc, hit.id),
            tag,
            text: input::shown_text(doc, hit.id),
            x: rect.as_ref().map_or(0.0, |r| r.x),
            y: rect.as_ref().map_or(0.0, |r| r.y),
            width: rect.as_ref().map_or(0.0, |r| r.width),
            height: rect.as_ref().map_or(0.0, |r| r.height),
        })
    })
}

/// A selector that matches `id` alone: `#id` at the nearest element whose id
/// is unique (checked against the document), then `tag:nth-of-type(n)` steps
/// down to the element.
fn selector(doc: &BaseDocument, id: NodeId) -> String {
    let mut steps = Vec::new();
    let mut current = Some(id);
    while let Some(cid) = current {
        let Some(node) = doc.get_node(cid) else { break };
        let Some(el) = node.element_data() else { break };
        let tag = el.name.local.to_string();
        if let Some(own) = attr(node, "id").filter(|v| is_plain_ident(v)) {
            let candidate = format!("#{own}");
            if doc.query_selector(&candidate).ok().flatten() == Some(cid) {
                steps.push(candidate);
                break;
            }
        }
        let parent = node.parent;
        let nth = parent
            .and_then(|p| doc.get_node(p))
            .map(|p| {
                p.children
                    .iter()
                    .take_while(|c| **c != cid)
                    .filter(|c| {
                        doc.get_node(**c)
                            .and_then(|n| n.element_data())
                            .is_some_and(|e| *e.name.local == *tag)
                    })
                    .count()
                    + 1
            })
            .unwrap_or(1);
        steps.push(
            if parent
                .and_then(|p| doc.get_node(p))
                .and_then(|p| p.element_data())
                .is_none()
            {
                tag
            } else {
                format!("{tag}:nth-of-type({nth})")
            },
        );
        current = parent;
    }
    steps.reverse();
    steps.join(" > ")
}

/// Whether an id can stand in `#id` as written (no escaping needed).
fn is_plain_ident(v: &str) -> bool {
    let mut chars = v.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}
