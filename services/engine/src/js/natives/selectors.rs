//! Natives for selectors: `querySelector(All)`, `matches` and `closest`,
//! answered on the Blitz document.

use rquickjs::{Ctx, Exception, Function, Object, Result};

use super::{from_id, live, live_element, with_doc};

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
            doc.query_selector_in(scope, &selector)
                .map(|found| found.map(from_id))
                .map_err(|_| syntax_error(&ctx, &selector))
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
            doc.query_selector_all_in(scope, &selector)
                .map(|found| found.into_iter().map(from_id).collect())
                .map_err(|_| syntax_error(&ctx, &selector))
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
            doc.matches_selector(id, &selector)
                .map_err(|_| syntax_error(&ctx, &selector))
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
            doc.closest(id, &selector)
                .map(|found| found.map(from_id))
                .map_err(|_| syntax_error(&ctx, &selector))
        })
    });
    Ok(())
}
