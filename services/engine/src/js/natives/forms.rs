//! Natives for focus and form controls: which element has focus, and the
//! live state of controls (value, checkedness, selection; see `forms.rs`).

use rquickjs::{Ctx, Function, Object, Result};

use super::{live, with_doc, with_tab};

/// Add the forms natives to `native`.
pub(super) fn install<'js>(ctx: &Ctx<'js>, native: &Object<'js>) -> Result<()> {
    macro_rules! def {
        ($name:literal, $f:expr) => {
            native.set($name, Function::new(ctx.clone(), $f)?)?;
        };
    }
    // --- focus ---
    def!("focus", |ctx: Ctx<'js>, id: f64| -> Result<bool> {
        with_doc(&ctx, |doc| {
            Ok(live(doc, id).is_some_and(|id| doc.set_focus_to(id)))
        })
    });
    def!("blur", |ctx: Ctx<'js>| -> Result<()> {
        with_doc(&ctx, |doc| {
            doc.clear_focus();
            Ok(())
        })
    });

    // --- form controls (live state, see `src/forms.rs`) ---
    def!("controlValue", |ctx: Ctx<'js>,
                          id: f64|
     -> Result<Option<String>> {
        with_doc(&ctx, |doc| {
            Ok(live(doc, id).and_then(|id| crate::forms::live_value(doc, id)))
        })
    });
    def!("setControlValue", |ctx: Ctx<'js>,
                             id: f64,
                             value: String|
     -> Result<bool> {
        with_doc(&ctx, |doc| {
            Ok(live(doc, id).is_some_and(|id| crate::forms::set_live_value(doc, id, &value)))
        })
    });
    def!("controlChecked", |ctx: Ctx<'js>,
                            id: f64|
     -> Result<Option<bool>> {
        with_doc(&ctx, |doc| {
            Ok(live(doc, id).and_then(|id| crate::forms::live_checked(doc, id)))
        })
    });
    def!("setControlChecked", |ctx: Ctx<'js>,
                               id: f64,
                               checked: bool|
     -> Result<bool> {
        with_doc(&ctx, |doc| {
            Ok(live(doc, id).is_some_and(|id| crate::forms::set_live_checked(doc, id, checked)))
        })
    });
    def!("doctype", |ctx: Ctx<'js>| -> Result<Option<String>> {
        with_tab(&ctx, |tab| Ok(tab.doctype.clone()))
    });
    Ok(())
}
