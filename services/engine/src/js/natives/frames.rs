//! Natives for the documents of `<iframe>`s. Blitz loads a frame's document
//! (from `src` or `srcdoc`) into a document of its own. Scripts reach a
//! same-origin frame's window as the global object of the frame's realm
//! (`js/frames.rs`, made on first use); for a frame of another origin the
//! prelude builds an inert copy from the serialization `frameSource` hands
//! over.

use rquickjs::{Ctx, Function, Object, Result};

use super::{realm_path, to_id, with_doc};
use crate::{frames, serialize};

/// Add the frame natives to `native`.
pub(super) fn install<'js>(ctx: &Ctx<'js>, native: &Object<'js>) -> Result<()> {
    // `[url, html]` of the document an iframe element shows, or null while
    // it shows none.
    native.set(
        "frameSource",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>, id: f64| -> Result<Option<Vec<String>>> {
                with_doc(&ctx, |doc| {
                    let Some(sub) = doc
                        .get_node(to_id(id))
                        .and_then(|n| n.element_data())
                        .and_then(|el| el.sub_doc_data())
                    else {
                        return Ok(None);
                    };
                    let sub = sub.inner();
                    let html = sub
                        .try_root_element()
                        .map(|root| serialize::outer_html(&sub, root.id))
                        .unwrap_or_default();
                    Ok(Some(vec![sub.url().to_string(), html]))
                })
            },
        )?,
    )?;
    // Whether an iframe element shows a document.
    native.set(
        "frameLoaded",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, id: f64| -> Result<bool> {
            with_doc(&ctx, |doc| {
                Ok(doc
                    .get_node(to_id(id))
                    .is_some_and(|n| n.subdoc().is_some()))
            })
        })?,
    )?;
    // The window of a same-origin frame: its realm's global object (the
    // realm is made now if the frame has none yet), or null.
    native.set(
        "frameWindow",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>, id: f64| -> Result<Option<Object<'js>>> {
                let element = to_id(id);
                let same_origin = with_doc(&ctx, |doc| {
                    let parent = doc.url().clone();
                    Ok(doc
                        .get_node(element)
                        .and_then(|n| n.subdoc())
                        .is_some_and(|sub| frames::same_origin(&parent, sub.inner().url())))
                })?;
                if !same_origin {
                    return Ok(None);
                }
                let mut path = realm_path(&ctx);
                path.push(element);
                match crate::js::frames::frame_realm(&ctx, &path) {
                    Ok(realm) => Ok(Some(realm.global.restore(&ctx)?)),
                    Err(message) => {
                        crate::js::console("warn", &message);
                        Ok(None)
                    }
                }
            },
        )?,
    )?;
    Ok(())
}
