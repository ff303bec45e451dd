//! Natives for attributes and style: reading and writing attributes, setting
//! an inline style property, and the box layout gave an element.

use blitz_dom::node::Attribute;
use blitz_dom::{LocalName, QualName, ns};
use rquickjs::{Ctx, Exception, Function, Object, Result};

use super::{live, live_element, to_id, valid_name, with_doc, with_resolved_doc};
use crate::inspect;

/// Add the attributes natives to `native`.
pub(super) fn install<'js>(ctx: &Ctx<'js>, native: &Object<'js>) -> Result<()> {
    macro_rules! def {
        ($name:literal, $f:expr) => {
            native.set($name, Function::new(ctx.clone(), $f)?)?;
        };
    }
    def!("getAttribute", |ctx: Ctx<'js>,
                          id: f64,
                          name: String|
     -> Result<Option<String>> {
        with_doc(&ctx, |doc| {
            let name = name.to_ascii_lowercase();
            Ok(doc
                .get_node(to_id(id))
                .and_then(|n| inspect::attr(n, &name))
                .map(str::to_owned))
        })
    });
    def!("attributeNames", |ctx: Ctx<'js>,
                            id: f64|
     -> Result<Vec<String>> {
        with_doc(&ctx, |doc| {
            Ok(doc
                .get_node(to_id(id))
                .and_then(|n| n.attrs())
                .map(|attrs: &[Attribute]| attrs.iter().map(|a| a.name.local.to_string()).collect())
                .unwrap_or_default())
        })
    });
    def!("setAttribute", |ctx: Ctx<'js>,
                          id: f64,
                          name: String,
                          value: String|
     -> Result<()> {
        if !valid_name(&name) {
            return Err(Exception::throw_dom(
                &ctx,
                "InvalidCharacterError",
                "The attribute name provided is not a valid name",
            ));
        }
        with_doc(&ctx, |doc| {
            if let Some(id) = live_element(doc, id) {
                let name = QualName::new(None, ns!(), LocalName::from(name.to_ascii_lowercase()));
                crate::mutation::mutate(doc).set_attribute(id, name, &value);
            }
            Ok(())
        })
    });
    def!("removeAttribute", |ctx: Ctx<'js>,
                             id: f64,
                             name: String|
     -> Result<()> {
        with_doc(&ctx, |doc| {
            if let Some(id) = live_element(doc, id) {
                let name = QualName::new(None, ns!(), LocalName::from(name.to_ascii_lowercase()));
                crate::mutation::mutate(doc).clear_attribute(id, name);
            }
            Ok(())
        })
    });
    def!("setStyleProperty", |ctx: Ctx<'js>,
                              id: f64,
                              name: String,
                              value: String|
     -> Result<()> {
        with_doc(&ctx, |doc| {
            if let Some(id) = live_element(doc, id) {
                let mut mutator = crate::mutation::mutate(doc);
                if value.is_empty() {
                    mutator.remove_style_property(id, &name);
                } else {
                    mutator.set_style_property(id, &name, &value);
                }
            }
            Ok(())
        })
    });
    def!("boundingRect", |ctx: Ctx<'js>,
                          id: f64|
     -> Result<Vec<f64>> {
        with_resolved_doc(&ctx, true, |doc| {
            Ok(live(doc, id)
                .and_then(|id| doc.get_client_bounding_rect(id))
                .map(|r| vec![r.x, r.y, r.width, r.height])
                .unwrap_or_else(|| vec![0.0; 4]))
        })
    });
    Ok(())
}
