//! Nodes Blitz adds to the tree for painting, which the DOM must not show.
//!
//! Blitz paints a button-like `<input>` (`type=button|submit|reset`) by giving
//! it its `value` as a text child, and adds one each time the element is
//! inserted into the document, so a script that moves such an input (jQuery UI
//! does) piles up copies. In a browser an `<input>` has no children: scripts'
//! views of the tree (`childNodes`, `textContent`, `innerText`) leave these out,
//! and an inserted input keeps only its newest one.

use blitz_dom::node::{Node, NodeData};
use blitz_dom::{BaseDocument, NodeId, local_name};

/// Whether `node`'s children are Blitz's alone (an `<input>`).
pub(crate) fn holds_anonymous(node: &Node) -> bool {
    node.element_data()
        .is_some_and(|el| el.name.local == local_name!("input"))
}

/// The children scripts see.
pub(crate) fn dom_children(node: &Node) -> &[NodeId] {
    if holds_anonymous(node) {
        &[]
    } else {
        &node.children
    }
}

/// `textContent` of `id`: its text descendants, without anonymous ones.
pub(crate) fn text_content(doc: &BaseDocument, id: NodeId) -> String {
    let mut out = String::new();
    let mut stack = vec![id];
    while let Some(current) = stack.pop() {
        let Some(node) = doc.get_node(current) else {
            continue;
        };
        match &node.data {
            NodeData::Text(text) => out.push_str(&text.content),
            NodeData::Element(_) | NodeData::AnonymousBlock(_) | NodeData::Document(_) => {
                stack.extend(dom_children(node).iter().rev().copied());
            }
            _ => {}
        }
    }
    out
}

/// After `root` was inserted: each input under it keeps only its newest
/// anonymous child.
pub(crate) fn drop_stale(doc: &mut BaseDocument, root: NodeId) {
    let mut stale = Vec::new();
    let mut stack = vec![root];
    while let Some(current) = stack.pop() {
        let Some(node) = doc.get_node(current) else {
            continue;
        };
        if holds_anonymous(node) {
            if let Some((_, older)) = node.children.split_last() {
                stale.extend_from_slice(older);
            }
            continue;
        }
        stack.extend(node.children.iter().copied());
    }
    if stale.is_empty() {
        return;
    }
    let mut mutator = crate::mutation::mutate(doc);
    for id in stale {
        mutator.remove_and_drop_node(id);
    }
}
