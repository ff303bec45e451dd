//! Natives for selectors: `querySelector(All)`, `matches` and `closest`,
//! answered on the Blitz document, and the session's parsed selectors.

use std::cell::RefCell;
use std::collections::HashMap;

use blitz_dom::BaseDocument;
use rquickjs::{Ctx, Exception, Function, Object, Result};
use selectors::SelectorList;
use style::selector_parser::SelectorImpl;

use super::{from_id, live, live_element, with_doc};

/// How many parsed selector lists a session keeps; past it the cache starts
/// again empty. Pages ask the same few selectors again and again (Sphinx's
/// search highlight asks `matches("button, select, textarea")` of every
/// element; Sizzle, jQuery's engine, its own queries), and Stylo's parse of
/// one cost more than its match.
const PARSED_SELECTORS: usize = 64;
/// Longer selectors are parsed on every call, not kept.
const KEPT_SELECTOR_CHARS: usize = 1024;

thread_local! {
    /// Parsed selector lists by their text. A parse depends on the text alone
    /// (no namespaces; the document's URL only gates browser-internal
    /// pseudo-classes), so the lists serve every document of the session.
    static PARSED: RefCell<HashMap<String, SelectorList<SelectorImpl>>> =
        RefCell::new(HashMap::new());
}

/// `selector` parsed, from the cache if it was parsed before; a SyntaxError
/// if it is not a valid selector list (not kept: a page rarely asks one twice).
fn parsed<'js>(
    ctx: &Ctx<'js>,
    doc: &BaseDocument,
    selector: &str,
) -> Result<SelectorList<SelectorImpl>> {
    if let Some(list) = PARSED.with(|kept| kept.borrow().get(selector).cloned()) {
        return Ok(list);
    }
    let list = doc
        .try_parse_selector_list(selector)
        .map_err(|_| syntax_error(ctx, selector))?;
    if selector.len() <= KEPT_SELECTOR_CHARS {
        PARSED.with(|kept| {
            let mut kept = kept.borrow_mut();
            if kept.len() >= PARSED_SELECTORS {
                kept.clear();
            }
            kept.insert(selector.to_owned(), list.clone());
        });
    }
    Ok(list)
}

fn syntax_error<'js>(ctx: &Ctx<'js>, selector: &str) -> rquickjs::Error {
    Exception::throw_dom(
        ctx,
        "SyntaxError",
        &format!("'{selector}' is not a valid selector"),
    )
}

/// Add the selectors natives to `native`.
pub(super) fn install<'js>(ctx: &Ctx<'js>, native: &Object<'js>) -> Result<()> {
    macro_rules! def {
        ($name:literal, $f:expr) => {
            native.set($name, Function::new(ctx.clone(), $f)?)?;
        };
    }
    def!("querySelector", |ctx: Ctx<'js>,
                           scope: f64,
                           selector: String|
     -> Result<Option<f64>> {
        with_doc(&ctx, |doc| {
            let Some(scope) = live(doc, scope) else {
                return Ok(None);
            };
            let list = parsed(&ctx, doc, &selector)?;
            Ok(doc.query_selector_in_raw(scope, &list).map(from_id))
        })
    });
    def!("querySelectorAll", |ctx: Ctx<'js>,
                              scope: f64,
                              selector: String|
     -> Result<Vec<f64>> {
        with_doc(&ctx, |doc| {
            let Some(scope) = live(doc, scope) else {
                return Ok(Vec::new());
            };
            let list = parsed(&ctx, doc, &selector)?;
            Ok(doc
                .query_selector_all_in_raw(scope, &list)
                .into_iter()
                .map(from_id)
                .collect())
        })
    });
    def!("matches", |ctx: Ctx<'js>,
                     id: f64,
                     selector: String|
     -> Result<bool> {
        with_doc(&ctx, |doc| {
            let Some(id) = live_element(doc, id) else {
                return Ok(false);
            };
            let list = parsed(&ctx, doc, &selector)?;
            Ok(doc
                .get_node(id)
                .is_some_and(|node| node.matches_selector_raw(&list)))
        })
    });
    def!("closest", |ctx: Ctx<'js>,
                     id: f64,
                     selector: String|
     -> Result<Option<f64>> {
        with_doc(&ctx, |doc| {
            let Some(id) = live_element(doc, id) else {
                return Ok(None);
            };
            let list = parsed(&ctx, doc, &selector)?;
            Ok(doc
                .get_node(id)
                .and_then(|node| node.closest_raw(&list))
                .map(from_id))
        })
    });
    Ok(())
}
