//! Natives for the document itself: its root, head, body and title, the URL and
//! viewport, lookups by id, and making nodes (elements in any namespace, text,
//! template contents), and keeping alive the nodes scripts hold.

use blitz_dom::{LocalName, Namespace, Prefix, QualName, local_name, ns};
use rquickjs::{Ctx, Exception, Function, Object, Result};

use super::{RETAINED, doc_url, from_id, set_text_content, to_id, valid_name, with_doc, with_tab};
use crate::inspect;

/// Add the document natives to `native`.
pub(super) fn install<'js>(ctx: &Ctx<'js>, native: &Object<'js>) -> Result<()> {
    macro_rules! def {
        ($name:literal, $f:expr) => {
            native.set($name, Function::new(ctx.clone(), $f)?)?;
        };
    }
    def!("documentNode", |ctx: Ctx<'js>| -> Result<f64> {
        with_doc(&ctx, |doc| Ok(from_id(doc.root_node().id)))
    });
    def!("documentElement", |ctx: Ctx<'js>| -> Result<Option<f64>> {
        with_doc(&ctx, |doc| {
            Ok(doc.try_root_element().map(|n| from_id(n.id)))
        })
    });
    def!("body", |ctx: Ctx<'js>| -> Result<Option<f64>> {
        with_doc(&ctx, |doc| Ok(doc.find_body_node().map(|n| from_id(n.id))))
    });
    def!("head", |ctx: Ctx<'js>| -> Result<Option<f64>> {
        with_doc(&ctx, |doc| Ok(doc.find_head_node().map(|n| from_id(n.id))))
    });
    def!("url", |ctx: Ctx<'js>| -> Result<String> { doc_url(&ctx) });
    def!("viewport", |ctx: Ctx<'js>| -> Result<Vec<u32>> {
        with_tab(&ctx, |tab| Ok(vec![tab.width, tab.height]))
    });
    def!("title", |ctx: Ctx<'js>| -> Result<String> {
        with_doc(&ctx, |doc| Ok(inspect::title(doc)))
    });
    def!("setTitle", |ctx: Ctx<'js>, title: String| -> Result<()> {
        with_doc(&ctx, |doc| {
            if let Some(id) = doc.find_title_node().map(|n| n.id) {
                set_text_content(doc, id, &title);
                return Ok(());
            }
            // No <title> yet: create one in <head>, as the spec's setter does.
            let Some(head) = doc.find_head_node().map(|n| n.id) else {
                return Ok(());
            };
            let mut mutator = crate::mutation::mutate(doc);
            let name = QualName::new(None, ns!(html), local_name!("title"));
            let element = mutator.create_element(name, Vec::new());
            let text = mutator.create_text_node(&title);
            mutator.append_children(element, &[text]);
            mutator.append_children(head, &[element]);
            Ok(())
        })
    });
    def!("getElementById", |ctx: Ctx<'js>,
                            id: String|
     -> Result<Option<f64>> {
        with_doc(&ctx, |doc| Ok(doc.get_element_by_id(&id).map(from_id)))
    });
    def!("createElement", |ctx: Ctx<'js>,
                           tag: String|
     -> Result<f64> {
        if !valid_name(&tag) {
            return Err(Exception::throw_dom(
                &ctx,
                "InvalidCharacterError",
                "The tag name provided is not a valid name",
            ));
        }
        with_doc(&ctx, |doc| {
            let name = QualName::new(None, ns!(html), LocalName::from(tag.to_ascii_lowercase()));
            Ok(from_id(
                crate::mutation::mutate(doc).create_element(name, Vec::new()),
            ))
        })
    });
    // An element in namespace `ns` (none when empty), its qualified name's
    // case kept: XML parsed by scripts, SVG built with createElementNS.
    def!("createElementNS", |ctx: Ctx<'js>,
                             ns: String,
                             qualified: String|
     -> Result<f64> {
        if !valid_name(&qualified) {
            return Err(Exception::throw_dom(
                &ctx,
                "InvalidCharacterError",
                "The qualified name provided is not a valid name",
            ));
        }
        let (prefix, local) = match qualified.split_once(':') {
            Some((prefix, local)) if !prefix.is_empty() && !local.is_empty() => {
                (Some(Prefix::from(prefix)), local)
            }
            _ => (None, qualified.as_str()),
        };
        let name = QualName::new(prefix, Namespace::from(ns), LocalName::from(local));
        with_doc(&ctx, |doc| {
            Ok(from_id(
                crate::mutation::mutate(doc).create_element(name, Vec::new()),
            ))
        })
    });
    // The detached fragment node that holds a `<template>`'s contents (the
    // parser puts them there), made on first use.
    // The prelude wrapped these nodes: they must outlive a replacement of
    // their parent's children (see `RETAINED`).
    def!("retain", |ids: Vec<f64>| {
        RETAINED.with(|retained| retained.borrow_mut().extend(ids.into_iter().map(to_id)));
    });
    def!("templateContents", |ctx: Ctx<'js>,
                              id: f64|
     -> Result<Option<f64>> {
        with_doc(&ctx, |doc| {
            let id = to_id(id);
            let is_template = doc
                .get_node(id)
                .and_then(|n| n.element_data())
                .is_some_and(|el| el.name.local == local_name!("template"));
            Ok(is_template.then(|| from_id(crate::mutation::mutate(doc).template_contents(id))))
        })
    });
    def!("createTextNode", |ctx: Ctx<'js>,
                            text: String|
     -> Result<f64> {
        with_doc(&ctx, |doc| {
            Ok(from_id(
                crate::mutation::mutate(doc).create_text_node(&text),
            ))
        })
    });
    Ok(())
}
