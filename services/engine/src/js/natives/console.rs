//! Natives for the console: what a page logs goes to the tab's console,
//! which the summary of the next action reports.

use rquickjs::{Ctx, Function, Object, Result};

/// Add the console natives to `native`.
pub(super) fn install<'js>(ctx: &Ctx<'js>, native: &Object<'js>) -> Result<()> {
    macro_rules! def {
        ($name:literal, $f:expr) => {
            native.set($name, Function::new(ctx.clone(), $f)?)?;
        };
    }
    def!("console", |level: String, text: String| {
        crate::js::console(&level, &text);
    });
    def!("consoleMessages", || -> Vec<Vec<String>> {
        crate::js::with_console(|entries| {
            entries
                .iter()
                .map(|e| vec![e.level.clone(), e.text.clone()])
                .collect()
        })
    });
    Ok(())
}
