//! A second realm in the page's runtime, for a dedicated worker (`Worker` in
//! `web/worker.js`): a QuickJS context of its own, with its own global object
//! and built-ins, sharing the page's heap limit, stack limit and interrupt
//! deadline. The prelude sets the worker's global scope up from the page's
//! realm; the worker's code runs through the new realm's own `eval`.

use std::ptr::NonNull;

use rquickjs::{Ctx, Exception, Function, Object, Result, qjs};

/// Add the realm native to `native`.
pub(super) fn install<'js>(ctx: &Ctx<'js>, native: &Object<'js>) -> Result<()> {
    // The global object of a new realm with every standard built-in.
    native.set(
        "newRealm",
        Function::new(ctx.clone(), |ctx: Ctx<'js>| -> Result<Object<'js>> {
            new_realm(&ctx)
        })?,
    )?;
    Ok(())
}

#[allow(unsafe_code)]
fn new_realm<'js>(ctx: &Ctx<'js>) -> Result<Object<'js>> {
    // SAFETY: `ctx` is live and its runtime is locked by the caller (a native
    // function only runs inside `Context::with`), which is what
    // `JS_NewContext` needs. It returns a context holding one reference, or
    // null when out of memory. `Ctx::from_raw` takes a second reference for
    // as long as the `Ctx` lives, under the same lock and the same runtime;
    // the first is given back at once, so the new realm lives as long as
    // something reaches it: its global object holds its built-in functions,
    // and each function holds its realm (QuickJS's garbage collector traces
    // realms, so the cycle is collected with the page's runtime).
    unsafe {
        let runtime = qjs::JS_GetRuntime(ctx.as_raw().as_ptr());
        let Some(raw) = NonNull::new(qjs::JS_NewContext(runtime)) else {
            return Err(Exception::throw_internal(
                ctx,
                "the worker's realm could not be created (out of memory)",
            ));
        };
        let realm = Ctx::from_raw(raw);
        qjs::JS_FreeContext(raw.as_ptr());
        Ok(realm.globals())
    }
}
