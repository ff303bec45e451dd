//! Building a document: HTML or XML parsed with the engine's configuration
//! (fonts, user-agent sheets, no style threads), its depth capped, and the
//! parser's view while a script runs (what follows the script hidden, then
//! put back).

use std::cell::RefCell;
use std::sync::Arc;

use blitz_dom::{BaseDocument, DocumentConfig, NodeId, StyleThreading, UserAgentStylesheet};
use blitz_html::{HtmlDocument, HtmlProvider};
use blitz_traits::shell::{ColorScheme, Viewport};

use crate::fonts;
use crate::net::GuestNetProvider;

/// Deepest element nesting kept, as in Blink's HTML parser: deeper content is
/// flattened into the element at this depth. Style, layout and paint recurse
/// once per level at ≈7 KiB of the host's native wasm stack each, so 512 levels
/// need ≈3.5 MiB (the host must allow ≥ 8 MiB, see `MAX_STACK` in `js/realm.rs`); without a
/// cap a page of a few thousand nested `<div>`s would crash the tab.
const MAX_DOM_DEPTH: usize = 512;

thread_local! {
    /// The engine's own user-agent rules (`css/forms.css`), parsed once.
    static FORMS_SHEET: UserAgentStylesheet =
        UserAgentStylesheet::parse(include_str!("css/forms.css"));
    /// MathML's user-agent rules (`css/mathml.css`), parsed once.
    static MATHML_SHEET: UserAgentStylesheet =
        UserAgentStylesheet::parse(include_str!("css/mathml.css"));
    /// An empty document styled once by [`warm`]. Stylo keeps the user-agent
    /// sheets' cascade data (their rules sorted into selector maps) in a
    /// process-wide cache, but drops an entry no document's stylist holds at
    /// the next rebuild: this document holds it, so it is in the snapshot
    /// every tab starts from and a tab's first document finds it there.
    static STYLED: RefCell<Option<BaseDocument>> = const { RefCell::new(None) };
}

/// Parse the user-agent style sheets, sort their rules for matching and build
/// the font context now rather than on the instance's first document (each is
/// made once per instance): `initialize` calls this so they are in the
/// snapshot every tab starts from. Sorting the rules was a sixth of a new
/// tab's first load, and its memory was private to every tab.
pub(crate) fn warm() {
    drop(fonts::font_context());
    let (width, height) = crate::state::DEFAULT_VIEWPORT;
    let mut doc = build_document(
        "<!DOCTYPE html><html><head></head><body></body></html>",
        crate::state::ABOUT_BLANK,
        width,
        height,
        Arc::default(),
        false,
    );
    doc.resolve_stylist(0.0);
    STYLED.with(|styled| *styled.borrow_mut() = Some(doc));
}

/// The viewport a document lays out for: `width`×`height` CSS pixels at
/// scale 1, light color scheme.
pub(crate) fn viewport(width: u32, height: u32) -> Viewport {
    Viewport::new(width, height, 1.0, ColorScheme::Light)
}

/// Parse `html` into a document at `url` whose subresources load through `net`.
pub(crate) fn build_document(
    html: &str,
    url: &str,
    width: u32,
    height: u32,
    net: Arc<GuestNetProvider>,
    xml: bool,
) -> BaseDocument {
    let config = DocumentConfig {
        viewport: Some(viewport(width, height)),
        base_url: Some(url.to_owned()),
        net_provider: Some(net),
        html_parser_provider: Some(Arc::new(HtmlProvider)),
        font_ctx: Some(fonts::font_context()),
        ua_stylesheets: vec![
            UserAgentStylesheet::default_sheet(),
            FORMS_SHEET.with(Clone::clone),
            MATHML_SHEET.with(Clone::clone),
        ],
        // No threads in the guest: Stylo must not touch its rayon pool.
        style_threading: StyleThreading::Sequential,
        ..DocumentConfig::default()
    };
    let mut doc = if xml {
        HtmlDocument::from_xml(html, config).into_inner()
    } else {
        HtmlDocument::from_html(html, config).into_inner()
    };
    let root = doc.root_node().id;
    limit_depth(&mut doc, root);
    // Subresources requested while parsing have already completed (the import
    // is synchronous); apply them now so nothing stays render-blocking.
    doc.handle_messages();
    // A new tree: what was derived from an earlier one (live collections, the
    // base URL) must not be taken for this one's.
    crate::mutation::changed();
    doc
}

/// Flatten the subtree at `start` so that no node is deeper than
/// [`MAX_DOM_DEPTH`]: the descendants of a node at that depth become its
/// children, in document order.
pub(crate) fn limit_depth(doc: &mut BaseDocument, start: NodeId) {
    let mut depth = 0;
    let mut current = doc.get_node(start).and_then(|n| n.parent);
    while let Some(id) = current {
        depth += 1;
        current = doc.get_node(id).and_then(|n| n.parent);
    }
    let mut anchors = Vec::new();
    let mut stack = vec![(start, depth)];
    while let Some((id, depth)) = stack.pop() {
        let Some(node) = doc.get_node(id) else {
            continue;
        };
        if depth >= MAX_DOM_DEPTH {
            let has_grandchildren = node
                .children
                .iter()
                .any(|c| doc.get_node(*c).is_some_and(|c| !c.children.is_empty()));
            if has_grandchildren {
                anchors.push(id);
            }
            continue;
        }
        stack.extend(node.children.iter().map(|c| (*c, depth + 1)));
    }
    for anchor in anchors {
        let mut descendants = Vec::new();
        let mut stack: Vec<NodeId> = doc
            .get_node(anchor)
            .map(|n| n.children.iter().rev().copied().collect())
            .unwrap_or_default();
        while let Some(id) = stack.pop() {
            descendants.push(id);
            if let Some(node) = doc.get_node(id) {
                stack.extend(node.children.iter().rev().copied());
            }
        }
        let mut mutator = crate::mutation::mutate(doc);
        // Detach bottom-up, so each removal sees a node without children.
        for id in descendants.iter().rev() {
            mutator.remove_node(*id);
        }
        mutator.append_children(anchor, &descendants);
    }
}

/// Nodes detached by [`hide_following`]: per parent, its children that came
/// after the script, in order (deepest parent first).
pub(crate) struct Hidden(Vec<(NodeId, Vec<NodeId>)>);

/// Detach everything after `script` in document order (the next siblings of
/// the script and of each of its ancestors), so that the script sees the
/// document as the parser had built it when it reached the script.
pub(crate) fn hide_following(doc: &mut BaseDocument, script: NodeId) -> Hidden {
    let mut hidden = Vec::new();
    let mut current = script;
    while let Some(parent) = doc.get_node(current).and_then(|n| n.parent) {
        let following: Vec<NodeId> = doc
            .get_node(parent)
            .map(|p| {
                p.children
                    .iter()
                    .skip_while(|c| **c != current)
                    .skip(1)
                    .copied()
                    .collect()
            })
            .unwrap_or_default();
        if !following.is_empty() {
            let mut mutator = crate::mutation::mutate(doc);
            for id in &following {
                mutator.remove_node(*id);
            }
            drop(mutator);
            hidden.push((parent, following));
        }
        current = parent;
    }
    Hidden(hidden)
}

/// Put back what [`hide_following`] detached: each parent gets its nodes at
/// its end, where the parser would have appended them after the script ran.
pub(crate) fn reveal(doc: &mut BaseDocument, hidden: Hidden) {
    for (parent, children) in hidden.0 {
        if doc.get_node(parent).is_none() {
            continue;
        }
        let children: Vec<NodeId> = children
            .into_iter()
            .filter(|c| doc.get_node(*c).is_some_and(|n| n.parent.is_none()))
            .collect();
        crate::mutation::mutate(doc).append_children(parent, &children);
    }
}

#[cfg(test)]
mod tests {
    use style::values::computed::Display;

    use super::*;

    /// The computed `display` of the element `selector` finds in `doc`.
    fn display(doc: &BaseDocument, selector: &str) -> Display {
        let id = doc
            .query_selector(selector)
            .ok()
            .flatten()
            .unwrap_or_else(|| panic!("no {selector}"));
        doc.get_node(id)
            .and_then(|n| n.primary_styles())
            .unwrap_or_else(|| panic!("{selector} has no style"))
            .clone_display()
    }

    #[test]
    fn a_document_styled_after_warm_keeps_every_user_agent_sheets_rules() {
        warm();
        // A quirks-mode page (no doctype) as well as a standards one like
        // the warm document, at the viewport the warm document had.
        let (width, height) = crate::state::DEFAULT_VIEWPORT;
        for doctype in ["<!DOCTYPE html>", ""] {
            let mut doc = build_document(
                &format!(
                    "{doctype}<title>t</title><p>text</p><dialog>closed</dialog><select><option>a</select><math><semantics><mi>x</mi><annotation>x</annotation></semantics></math>"
                ),
                crate::state::INLINE_URL,
                width,
                height,
                Arc::default(),
                false,
            );
            doc.resolve(0.0);
            // Blitz's sheet.
            assert_eq!(display(&doc, "head"), Display::None, "{doctype:?}");
            assert_eq!(display(&doc, "dialog"), Display::None, "{doctype:?}");
            assert_eq!(display(&doc, "p"), Display::Block, "{doctype:?}");
            // forms.css.
            assert_eq!(display(&doc, "select"), Display::InlineBlock, "{doctype:?}");
            // mathml.css.
            assert_eq!(display(&doc, "annotation"), Display::None, "{doctype:?}");
        }
    }
}
