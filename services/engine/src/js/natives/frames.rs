//! Natives for the documents of `<iframe>`s. Blitz loads a frame's document
//! (from `src` or `srcdoc`) into a document of its own; scripts reach it as
//! `contentDocument` and `frames[i].document`, which the prelude builds as an
//! inert copy from the serialization this hands over (frames are static:
//! their scripts do not run).

use rquickjs::{Ctx, Function, Object, Result};

use super::{to_id, with_doc};
use crate::serialize;

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
    Ok(())
}
