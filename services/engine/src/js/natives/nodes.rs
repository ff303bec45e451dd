//! Natives for nodes: their type, names and connection, children and parent,
//! text and markup (`textContent`, `innerText`, `innerHTML`, `outerHTML`), and
//! the tree edits scripts make (insert, remove).

use blitz_dom::node::NodeData;
use blitz_dom::{NodeId, ns};
use rquickjs::{Ctx, Exception, Function, Object, Result};

use super::{
    detach_retained, doc_url, from_id, is_element, live, live_element, not_found, set_text_content,
    to_id, with_doc, with_resolved_doc,
};
use crate::state::MAX_TEXT_CHARS;
use crate::{anonymous, document, inspect, serialize};

/// `innerText` of one element is read in full by scripts, up to this cap.
const MAX_INNER_TEXT_CHARS: usize = 50 * MAX_TEXT_CHARS;

/// Add the nodes natives to `native`.
pub(super) fn install<'js>(ctx: &Ctx<'js>, native: &Object<'js>) -> Result<()> {
    macro_rules! def {
        ($name:literal, $f:expr) => {
            native.set($name, Function::new(ctx.clone(), $f)?)?;
        };
    }
    def!("nodeType", |ctx: Ctx<'js>, id: f64| -> Result<u32> {
        with_doc(&ctx, |doc| {
            Ok(match doc.get_node(to_id(id)).map(|n| &n.data) {
                Some(NodeData::Element(_) | NodeData::AnonymousBlock(_)) => 1,
                Some(NodeData::Text(_)) => 3,
                Some(NodeData::Comment { .. }) => 8,
                Some(NodeData::Document(_)) => 9,
                None => 0,
            })
        })
    });
    def!("namespaceUri", |ctx: Ctx<'js>,
                          id: f64|
     -> Result<Option<String>> {
        with_doc(&ctx, |doc| {
            Ok(doc
                .get_node(to_id(id))
                .and_then(|n| n.element_data())
                .map(|el| el.name.ns.to_string())
                .filter(|ns| !ns.is_empty()))
        })
    });
    def!("nodeName", |ctx: Ctx<'js>, id: f64| -> Result<String> {
        with_doc(&ctx, |doc| {
            Ok(match doc.get_node(to_id(id)).map(|n| &n.data) {
                Some(NodeData::Element(el) | NodeData::AnonymousBlock(el)) => {
                    let local: &str = &el.name.local;
                    if el.name.ns == ns!(html) {
                        local.to_ascii_uppercase()
                    } else {
                        local.to_owned()
                    }
                }
                Some(NodeData::Text(_)) => "#text".to_owned(),
                Some(NodeData::Comment { .. }) => "#comment".to_owned(),
                Some(NodeData::Document(_)) => "#document".to_owned(),
                None => String::new(),
            })
        })
    });
    def!("isConnected", |ctx: Ctx<'js>, id: f64| -> Result<bool> {
        with_doc(&ctx, |doc| {
            Ok(doc
                .get_node(to_id(id))
                .is_some_and(|n| n.flags.is_in_document()))
        })
    });
    def!("parent", |ctx: Ctx<'js>, id: f64| -> Result<Option<f64>> {
        with_doc(&ctx, |doc| {
            Ok(doc.get_node(to_id(id)).and_then(|n| n.parent).map(from_id))
        })
    });
    def!("childNodes", |ctx: Ctx<'js>, id: f64| -> Result<Vec<f64>> {
        with_doc(&ctx, |doc| {
            Ok(doc
                .get_node(to_id(id))
                .map(|n| {
                    anonymous::dom_children(n)
                        .iter()
                        .copied()
                        .map(from_id)
                        .collect()
                })
                .unwrap_or_default())
        })
    });
    def!("childSignature", |ctx: Ctx<'js>, id: f64| -> Result<f64> {
        with_doc(&ctx, |doc| {
            Ok(doc
                .get_node(to_id(id))
                .map_or(0.0, |n| child_signature(anonymous::dom_children(n))))
        })
    });
    def!("children", |ctx: Ctx<'js>, id: f64| -> Result<Vec<f64>> {
        with_doc(&ctx, |doc| {
            let Some(node) = doc.get_node(to_id(id)) else {
                return Ok(Vec::new());
            };
            Ok(anonymous::dom_children(node)
                .iter()
                .copied()
                .filter(|c| is_element(doc, *c))
                .map(from_id)
                .collect())
        })
    });
    def!("textContent", |ctx: Ctx<'js>,
                         id: f64|
     -> Result<Option<String>> {
        with_doc(&ctx, |doc| {
            Ok(doc.get_node(to_id(id)).and_then(|n| match &n.data {
                NodeData::Document(_) => None,
                NodeData::Comment { contents } => Some(contents.clone()),
                _ => Some(anonymous::text_content(doc, n.id)),
            }))
        })
    });
    def!("setTextContent", |ctx: Ctx<'js>,
                            id: f64,
                            text: String|
     -> Result<()> {
        with_doc(&ctx, |doc| {
            let Some(id) = live(doc, id) else {
                return Ok(());
            };
            if !matches!(
                doc.get_node(id).map(|n| &n.data),
                Some(NodeData::Document(_))
            ) {
                set_text_content(doc, id, &text);
            }
            Ok(())
        })
    });
    def!("innerText", |ctx: Ctx<'js>, id: f64| -> Result<String> {
        // innerText depends on computed style (not on layout), so style
        // must be current.
        with_resolved_doc(&ctx, false, |doc| {
            Ok(match live(doc, id) {
                Some(id) => inspect::inner_text(doc, id, MAX_INNER_TEXT_CHARS),
                None => String::new(),
            })
        })
    });
    def!("innerHTML", |ctx: Ctx<'js>, id: f64| -> Result<String> {
        with_doc(&ctx, |doc| Ok(serialize::inner_html(doc, to_id(id))))
    });
    def!("outerHTML", |ctx: Ctx<'js>, id: f64| -> Result<String> {
        with_doc(&ctx, |doc| Ok(serialize::outer_html(doc, to_id(id))))
    });
    def!("setInnerHTML", |ctx: Ctx<'js>,
                          id: f64,
                          html: String|
     -> Result<()> {
        with_doc(&ctx, |doc| {
            if let Some(id) = live_element(doc, id) {
                detach_retained(doc, id);
                crate::mutation::mutate(doc).set_inner_html(id, &html);
                document::limit_depth(doc, id);
            }
            Ok(())
        })
    });
    def!("insertBefore", |ctx: Ctx<'js>,
                          parent: f64,
                          child: f64,
                          before: Option<f64>|
     -> Result<()> {
        with_doc(&ctx, |doc| {
            let (Some(parent), Some(child)) = (live(doc, parent), live(doc, child)) else {
                return Err(not_found(&ctx));
            };
            // Only documents and elements (fragments are elements here) take
            // children: the prelude counts on a text node's having none.
            if matches!(
                doc.get_node(parent).map(|n| &n.data),
                Some(NodeData::Text(_) | NodeData::Comment { .. })
            ) {
                return Err(Exception::throw_dom(
                    &ctx,
                    "HierarchyRequestError",
                    "A text or comment node cannot have children",
                ));
            }
            if inspect::is_inclusive_ancestor(doc, child, parent)
                || matches!(
                    doc.get_node(child).map(|n| &n.data),
                    Some(NodeData::Document(_))
                )
            {
                return Err(Exception::throw_dom(
                    &ctx,
                    "HierarchyRequestError",
                    "The new child element contains the parent",
                ));
            }
            let before = match before {
                None => None,
                Some(raw) => match live(doc, raw) {
                    Some(b) if doc.get_node(b).and_then(|n| n.parent) == Some(parent) => Some(b),
                    _ => return Err(not_found(&ctx)),
                },
            };
            if before == Some(child) {
                return Ok(());
            }
            let mut mutator = crate::mutation::mutate(doc);
            if mutator.parent_id(child).is_some() {
                mutator.remove_node(child);
            }
            match before {
                Some(before) => mutator.insert_nodes_before(before, &[child]),
                None => mutator.append_children(parent, &[child]),
            }
            drop(mutator);
            anonymous::drop_stale(doc, child);
            Ok(())
        })
    });
    def!("removeChild", |ctx: Ctx<'js>,
                         parent: f64,
                         child: f64|
     -> Result<()> {
        with_doc(&ctx, |doc| {
            let (Some(parent), Some(child)) = (live(doc, parent), live(doc, child)) else {
                return Err(not_found(&ctx));
            };
            if doc.get_node(child).and_then(|n| n.parent) != Some(parent) {
                return Err(not_found(&ctx));
            }
            // Detach but keep the node: scripts often re-insert what they remove.
            crate::mutation::mutate(doc).remove_node(child);
            Ok(())
        })
    });

    // Cloning, and the base URL links resolve against.
    def!("cloneNode", |ctx: Ctx<'js>,
                       id: f64,
                       deep: bool|
     -> Result<Option<f64>> {
        with_doc(&ctx, |doc| {
            let Some(id) = live(doc, id) else {
                return Ok(None);
            };
            let Some(node) = doc.get_node(id) else {
                return Ok(None);
            };
            if deep {
                return Ok(Some(from_id(doc.deep_clone_node(id))));
            }
            let clone = match &node.data {
                NodeData::Element(el) => {
                    let (name, attrs) = (el.name.clone(), el.attrs().to_vec());
                    crate::mutation::mutate(doc).create_element(name, attrs)
                }
                NodeData::Text(text) => {
                    let text = text.content.clone();
                    crate::mutation::mutate(doc).create_text_node(&text)
                }
                _ => return Ok(None),
            };
            Ok(Some(from_id(clone)))
        })
    });
    def!("baseUrl", |ctx: Ctx<'js>| -> Result<String> {
        let url = doc_url(&ctx)?;
        with_doc(&ctx, |doc| {
            Ok(inspect::base_url_at(doc, Some(&url)).to_string())
        })
    });
    Ok(())
}

/// A 52-bit digest of a node's child list (the ids, in order), exact in a
/// JavaScript number. A live `childNodes` or `children` list asks for it after
/// the tree changed anywhere and rebuilds itself only when its own node's
/// children changed: a script walking the tree while it edits one corner of it
/// would otherwise rebuild every ancestor's list after every edit.
fn child_signature(children: &[NodeId]) -> f64 {
    let mut h: u64 = 0x9e37_79b9_7f4a_7c15 ^ children.len() as u64;
    for id in children {
        h = (h ^ id.as_u64()).wrapping_mul(0x0000_0100_0000_01b3);
        h ^= h >> 29;
    }
    // murmur3's fmix64, so that every id bit reaches the bits kept.
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^= h >> 33;
    (h >> 12) as f64
}
