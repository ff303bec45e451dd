//! Page scripts as bytecode: the `page.compile-script` export, which the
//! host calls on a fresh instance to fill its code cache, and the reading of
//! a cached script's bytecode in place of compiling its source.
//!
//! QuickJS compiles a whole script before it runs any of it, and compiling
//! is most of what a library such as jQuery costs a new document (a realm
//! reads the preludes' ≈300 KB of bytecode in about a fortieth of the time
//! it takes to compile their source). The bytecode keeps the source text and
//! line tables, so a cached script's functions print their source and its
//! errors name their lines as an uncached one's do.

use std::mem::MaybeUninit;

use rquickjs::context::EvalOptions;
use rquickjs::{Coerced, Ctx, FromJs as _, Value, qjs};

use super::realm::in_compile_realm;
use crate::bindings::fleet::engine::code_cache;

/// Export `compile-script`: `source` compiled as a classic script named
/// `name`, in a realm of its own that runs nothing, written as bytecode.
pub(crate) fn compile_script(name: &str, source: &str) -> Result<Vec<u8>, String> {
    in_compile_realm(|ctx| {
        let file = std::ffi::CString::new(name).map_err(|_| "the script's name holds NUL")?;
        // QuickJS reads up to a NUL it requires after the source.
        let mut text = Vec::with_capacity(source.len() + 1);
        text.extend_from_slice(source.as_bytes());
        text.push(0);
        #[allow(unsafe_code)]
        // SAFETY: `text` is NUL-terminated and outlives the call, `file` is a
        // C string, and the context is alive for the whole closure. The
        // compiled function is owned here: it is written, then freed once.
        unsafe {
            let raw = ctx.as_raw().as_ptr();
            let compiled = qjs::JS_Eval(
                raw,
                text.as_ptr().cast(),
                source.len() as _,
                file.as_ptr(),
                // As `run_script` evaluates a page's script: sloppy, global,
                // its stack traces starting at the script.
                (qjs::JS_EVAL_TYPE_GLOBAL
                    | qjs::JS_EVAL_FLAG_COMPILE_ONLY
                    | qjs::JS_EVAL_FLAG_BACKTRACE_BARRIER) as i32,
            );
            if qjs::JS_IsException(compiled) {
                let thrown = ctx.catch();
                let message = Coerced::<String>::from_js(&ctx, thrown)
                    .map_or_else(|_| "a syntax error".to_owned(), |s| s.0);
                return Err(message);
            }
            let mut len = MaybeUninit::uninit();
            let buf = qjs::JS_WriteObject(
                raw,
                len.as_mut_ptr(),
                compiled,
                qjs::JS_WRITE_OBJ_BYTECODE as i32,
            );
            qjs::JS_FreeValue(raw, compiled);
            if buf.is_null() {
                return Err("the script's bytecode could not be written".to_owned());
            }
            let len = len.assume_init();
            let bytecode = std::slice::from_raw_parts(buf, len as _).to_vec();
            qjs::js_free(raw, buf.cast());
            Ok(bytecode)
        }
    })
}

/// Evaluate a classic script as `ctx.eval_with_options(source, options)`
/// does, from the bytecode the host keeps for it when it has some.
pub(super) fn eval<'js>(
    ctx: &Ctx<'js>,
    source: &str,
    options: EvalOptions,
) -> rquickjs::Result<Value<'js>> {
    let name = options.filename.clone().unwrap_or_default();
    match code_cache::script(&name, source) {
        Some(bytecode) => eval_bytecode(ctx, &bytecode),
        None => ctx.eval_with_options::<Value, _>(source, options),
    }
}

/// Run bytecode `compile_script` made, as global code of `ctx`'s realm.
fn eval_bytecode<'js>(ctx: &Ctx<'js>, bytecode: &[u8]) -> rquickjs::Result<Value<'js>> {
    #[allow(unsafe_code)]
    // SAFETY: `JS_ReadObject` trusts its bytes to be valid QuickJS bytecode.
    // These were written by `compile_script`, by this component's QuickJS in
    // a fresh instance that ran no page (the host calls `compile-script` on
    // one and hands the bytes over unchanged); without `ROM_DATA` QuickJS
    // copies what it keeps, so the bytes need not outlive the call.
    // `JS_EvalFunction` takes ownership of the function it runs, and the
    // value it returns is owned, as `Value::from_raw` requires.
    unsafe {
        let raw = ctx.as_raw().as_ptr();
        let function = qjs::JS_ReadObject(
            raw,
            bytecode.as_ptr(),
            bytecode.len() as _,
            qjs::JS_READ_OBJ_BYTECODE as i32,
        );
        if qjs::JS_IsException(function) {
            return Err(rquickjs::Error::Exception);
        }
        let result = qjs::JS_EvalFunction(raw, function);
        if qjs::JS_IsException(result) {
            return Err(rquickjs::Error::Exception);
        }
        Ok(Value::from_raw(ctx.clone(), result))
    }
}
