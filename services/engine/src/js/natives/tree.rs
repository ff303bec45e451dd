//! Natives for walking the tree: what one step from a node reaches, in one
//! call. Scripts walk the DOM a node at a time (jQuery's selector engine and
//! sort, `nextSibling` loops, `contains` checks); each step used to cost
//! several native calls and a copy of a whole child list.

use blitz_dom::node::NodeData;
use blitz_dom::{BaseDocument, NodeId, ns};
use rquickjs::{Ctx, Function, Object, Result, Value};

use super::{from_id, to_id, with_doc};
use crate::{anonymous, mutation};

/// `Node.compareDocumentPosition` bits.
const DISCONNECTED: u32 = 1;
const PRECEDING: u32 = 2;
const FOLLOWING: u32 = 4;
const CONTAINS: u32 = 8;
const CONTAINED_BY: u32 = 16;
const IMPLEMENTATION_SPECIFIC: u32 = 32;

/// Add the tree-walking natives to `native`.
pub(super) fn install<'js>(ctx: &Ctx<'js>, native: &Object<'js>) -> Result<()> {
    macro_rules! def {
        ($name:literal, $f:expr) => {
            native.set($name, Function::new(ctx.clone(), $f)?)?;
        };
    }
    // What the prelude needs to make a node's wrapper, in one call: the node
    // type for non-elements; for an element its local name, after "svg ",
    // "math " or "xml " outside the HTML namespace (names have no spaces).
    def!("wrapInfo", |ctx: Ctx<'js>, id: f64| -> Result<Value<'js>> {
        let info = with_doc(&ctx, |doc| {
            Ok(match doc.get_node(to_id(id)).map(|n| &n.data) {
                Some(NodeData::Element(el) | NodeData::AnonymousBlock(el)) => {
                    let local: &str = &el.name.local;
                    Err(if el.name.ns == ns!(html) {
                        local.to_owned()
                    } else if el.name.ns == ns!(svg) {
                        format!("svg {local}")
                    } else if el.name.ns == ns!(mathml) {
                        format!("math {local}")
                    } else {
                        format!("xml {local}")
                    })
                }
                Some(NodeData::Text(_)) => Ok(3),
                Some(NodeData::Comment { .. }) => Ok(8),
                Some(NodeData::Document(_)) => Ok(9),
                None => Ok(0),
            })
        })?;
        match info {
            Ok(kind) => Ok(Value::new_int(ctx, kind)),
            Err(name) => rquickjs::String::from_str(ctx, &name).map(|s| s.into_value()),
        }
    });
    def!("nextSibling", |ctx: Ctx<'js>,
                         id: f64|
     -> Result<Option<f64>> {
        with_doc(&ctx, |doc| Ok(sibling(doc, to_id(id), 1).map(from_id)))
    });
    def!("previousSibling", |ctx: Ctx<'js>,
                             id: f64|
     -> Result<Option<f64>> {
        with_doc(&ctx, |doc| Ok(sibling(doc, to_id(id), -1).map(from_id)))
    });
    def!("firstChild", |ctx: Ctx<'js>,
                        id: f64|
     -> Result<Option<f64>> {
        with_doc(&ctx, |doc| {
            Ok(doc
                .get_node(to_id(id))
                .and_then(|n| anonymous::dom_children(n).first().copied())
                .map(from_id))
        })
    });
    def!("lastChild", |ctx: Ctx<'js>,
                       id: f64|
     -> Result<Option<f64>> {
        with_doc(&ctx, |doc| {
            Ok(doc
                .get_node(to_id(id))
                .and_then(|n| anonymous::dom_children(n).last().copied())
                .map(from_id))
        })
    });
    def!("contains", |ctx: Ctx<'js>,
                      ancestor: f64,
                      node: f64|
     -> Result<bool> {
        with_doc(&ctx, |doc| {
            Ok(doc.get_node(to_id(ancestor)).is_some()
                && crate::inspect::is_inclusive_ancestor(doc, to_id(ancestor), to_id(node)))
        })
    });
    def!("compareDocumentPosition", |ctx: Ctx<'js>,
                                     reference: f64,
                                     other: f64|
     -> Result<u32> {
        with_doc(&ctx, |doc| {
            Ok(position(doc, to_id(reference), to_id(other)))
        })
    });
    def!("domVersion", || -> f64 { mutation::version() as f64 });
    Ok(())
}

/// The sibling `step` (±1) places from `id`.
fn sibling(doc: &BaseDocument, id: NodeId, step: isize) -> Option<NodeId> {
    let parent = doc.get_node(id)?.parent?;
    let siblings = anonymous::dom_children(doc.get_node(parent)?);
    let at = siblings.iter().position(|c| *c == id)?;
    siblings.get(at.checked_add_signed(step)?).copied()
}

/// `id` and its ancestors, the root first.
fn path(doc: &BaseDocument, id: NodeId) -> Vec<NodeId> {
    let mut path = Vec::new();
    let mut current = doc.get_node(id).map(|_| id);
    while let Some(node) = current {
        path.push(node);
        current = doc.get_node(node).and_then(|n| n.parent);
    }
    path.reverse();
    path
}

/// Where `other` is relative to `reference`, as `compareDocumentPosition`
/// reports it. Nodes of different trees are ordered by id, consistently.
fn position(doc: &BaseDocument, reference: NodeId, other: NodeId) -> u32 {
    if reference == other {
        return 0;
    }
    let (a, b) = (path(doc, reference), path(doc, other));
    if a.is_empty() || b.is_empty() || a[0] != b[0] {
        let order = if other.as_u64() > reference.as_u64() {
            FOLLOWING
        } else {
            PRECEDING
        };
        return DISCONNECTED | IMPLEMENTATION_SPECIFIC | order;
    }
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    if common == a.len() {
        return CONTAINED_BY | FOLLOWING;
    }
    if common == b.len() {
        return CONTAINS | PRECEDING;
    }
    let children = doc
        .get_node(a[common - 1])
        .map(|n| n.children.as_slice())
        .unwrap_or_default();
    let index = |n: NodeId| children.iter().position(|c| *c == n);
    if index(a[common]) < index(b[common]) {
        FOLLOWING
    } else {
        PRECEDING
    }
}
