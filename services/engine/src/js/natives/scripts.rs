//! Natives for scripts inserted by scripts: classic scripts run as global
//! code, module scripts declared and run through the page's module loader.

use rquickjs::{Ctx, Function, Object, Result};

/// Add the scripts natives to `native`.
pub(super) fn install<'js>(ctx: &Ctx<'js>, native: &Object<'js>) -> Result<()> {
    macro_rules! def {
        ($name:literal, $f:expr) => {
            native.set($name, Function::new(ctx.clone(), $f)?)?;
        };
    }
    // Global code, as a `<script>` runs it (its `let`/`const` are globals);
    // an exception propagates to the caller.
    def!("evalScript", |ctx: Ctx<'js>,
                        source: String,
                        name: String|
     -> Result<()> {
        let mut options = rquickjs::context::EvalOptions::default();
        options.strict = false;
        options.backtrace_barrier = true;
        options.filename = Some(name);
        ctx.eval_with_options::<rquickjs::Value, _>(source, options)?;
        Ok(())
    });
    // A module script inserted by a script: fetched from `src` (absolute)
    // or its inline `text`, evaluated; the promise settles when it has run.
    def!("evalModule", |ctx: Ctx<'js>,
                        src: Option<String>,
                        text: String|
     -> Result<rquickjs::Promise<'js>> {
        let module = crate::js::modules::declare_script(&ctx, src.as_deref(), &text)?;
        let (_, promise) = module.eval()?;
        Ok(promise)
    });
    Ok(())
}
