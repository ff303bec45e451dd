//! Natives for scrolling: the viewport's scroll position and an element's own
//! (the viewport's lives in the Blitz document, see `state.rs`), read and
//! moved against a fresh layout, and `scrollIntoView`.

use blitz_dom::{ScrollBehavior, ScrollLogicalPosition};
use rquickjs::{Ctx, Function, Object, Result};

use super::{live_element, to_id, with_resolved_doc, with_tab};

/// A scroll coordinate from JavaScript; CSSOM treats non-finite values as 0
/// (`Tab::scroll_viewport_to` does the same for the viewport).
fn coordinate(v: f64) -> f64 {
    if v.is_finite() { v } else { 0.0 }
}

/// `block`/`inline` of `scrollIntoView` options.
fn logical_position(name: &str, default: ScrollLogicalPosition) -> ScrollLogicalPosition {
    match name {
        "start" => ScrollLogicalPosition::Start,
        "center" => ScrollLogicalPosition::Center,
        "end" => ScrollLogicalPosition::End,
        "nearest" => ScrollLogicalPosition::Nearest,
        _ => default,
    }
}

/// Add the scrolling natives to `native`.
pub(super) fn install<'js>(ctx: &Ctx<'js>, native: &Object<'js>) -> Result<()> {
    macro_rules! def {
        ($name:literal, $f:expr) => {
            native.set($name, Function::new(ctx.clone(), $f)?)?;
        };
    }
    // The viewport's scroll position lives in the Blitz document (see
    // `state.rs`); these read and move it against a fresh layout.
    def!("scrollPosition", |ctx: Ctx<'js>| -> Result<Vec<f64>> {
        with_tab(&ctx, |tab| {
            let (x, y) = tab.viewport_scroll();
            Ok(vec![x, y])
        })
    });
    def!("scrollViewportTo", |ctx: Ctx<'js>,
                              x: f64,
                              y: f64|
     -> Result<bool> {
        with_tab(&ctx, |tab| Ok(tab.scroll_viewport_to(x, y)))
    });
    def!("documentScrollSize", |ctx: Ctx<'js>| -> Result<Vec<f64>> {
        with_tab(&ctx, |tab| {
            let (width, height) = tab.document_scroll_size();
            Ok(vec![width, height])
        })
    });
    // Elements other than the root scroll their own box when their overflow
    // lets them (Blitz clamps to the scrollable range).
    def!("elementScroll", |ctx: Ctx<'js>,
                           id: f64|
     -> Result<Vec<f64>> {
        with_resolved_doc(&ctx, true, |doc| {
            // Layout data exists only on elements (reading it elsewhere panics).
            Ok(doc
                .get_node(to_id(id))
                .filter(|n| n.is_element())
                .map(|n| vec![n.scroll_offset().x, n.scroll_offset().y])
                .unwrap_or_else(|| vec![0.0, 0.0]))
        })
    });
    def!("elementScrollTo", |ctx: Ctx<'js>,
                             id: f64,
                             x: f64,
                             y: f64|
     -> Result<bool> {
        with_resolved_doc(&ctx, true, |doc| {
            let Some(id) = live_element(doc, id) else {
                return Ok(false);
            };
            let before = doc.get_node(id).map(|n| *n.scroll_offset());
            doc.scroll_to(id, coordinate(x), coordinate(y), ScrollBehavior::Instant);
            Ok(doc.get_node(id).map(|n| *n.scroll_offset()) != before)
        })
    });
    def!("elementScrollSize", |ctx: Ctx<'js>,
                               id: f64|
     -> Result<Vec<f64>> {
        with_resolved_doc(&ctx, true, |doc| {
            Ok(doc
                .get_node(to_id(id))
                .filter(|n| n.is_element())
                .map(|n| {
                    let layout = n.final_layout();
                    vec![
                        f64::from(layout.size.width.max(layout.scrollable_overflow_rect.right)),
                        f64::from(
                            layout
                                .size
                                .height
                                .max(layout.scrollable_overflow_rect.bottom),
                        ),
                    ]
                })
                .unwrap_or_else(|| vec![0.0, 0.0]))
        })
    });
    def!("scrollIntoView", |ctx: Ctx<'js>,
                            id: f64,
                            block: String,
                            inline: String|
     -> Result<bool> {
        with_resolved_doc(&ctx, true, |doc| {
            let Some(id) = live_element(doc, id) else {
                return Ok(false);
            };
            let before = doc.viewport_scroll();
            doc.scroll_into_view(
                id,
                ScrollBehavior::Instant,
                logical_position(&block, ScrollLogicalPosition::Start),
                logical_position(&inline, ScrollLogicalPosition::Nearest),
            );
            Ok(doc.viewport_scroll() != before)
        })
    });
    Ok(())
}
