//! The realm of the current document: a QuickJS runtime with the engine's
//! limits, the natives, and the preludes evaluated in order; and the
//! preludes' bytecode, compiled once per process and read by every realm.
//! Why QuickJS: docs/decisions/0001-quickjs.md.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;

use rquickjs::{
    CatchResultExt, CaughtError, Context, Ctx, Function, Module, Object, Persistent, Runtime,
    WriteOptions,
};

use super::{deadline_passed, describe, modules, natives};
use crate::bindings::fleet::engine::preludes;

/// A prelude: its name (what `preludes.bytecode` is asked for) and source.
type Prelude = (&'static str, &'static str);

/// Every prelude, in the order a realm runs them.
const PRELUDES: [Prelude; 9] = [
    BOOTSTRAP, INDEXEDDB, WEB, CSSOM, CANVAS, INPUT, INTL, REGEXP, WEBIDL,
];

/// The prelude that builds the Web API surface on the native functions: one
/// function expression, kept as one file per topic in `dom/` and joined here
/// in order (the topics share the function's locals, as one closure).
const BOOTSTRAP: Prelude = (
    "dom",
    concat!(
        include_str!("dom/head.js"),
        include_str!("dom/console.js"),
        include_str!("dom/events.js"),
        include_str!("dom/nodes.js"),
        include_str!("dom/elements.js"),
        include_str!("dom/controls.js"),
        include_str!("dom/more-elements.js"),
        include_str!("dom/document.js"),
        include_str!("dom/custom-elements.js"),
        include_str!("dom/traversal.js"),
        include_str!("dom/location.js"),
        include_str!("dom/tasks.js"),
        include_str!("dom/window.js"),
        include_str!("dom/hooks.js"),
    ),
);

/// IndexedDB, built on the prelude's events and task queue.
const INDEXEDDB: Prelude = (
    "indexeddb",
    concat!(
        include_str!("indexeddb/head.js"),
        include_str!("indexeddb/keys.js"),
        include_str!("indexeddb/values.js"),
        include_str!("indexeddb/key-paths.js"),
        include_str!("indexeddb/databases.js"),
        include_str!("indexeddb/transactions.js"),
        include_str!("indexeddb/interfaces.js"),
        include_str!("indexeddb/cursors.js"),
        include_str!("indexeddb/open.js"),
    ),
);

/// Network (fetch, XHR), encodings, crypto, forms data, history, dialogs,
/// dedicated workers.
const WEB: Prelude = (
    "web",
    concat!(
        include_str!("web/head.js"),
        include_str!("web/encoding.js"),
        include_str!("web/forms.js"),
        include_str!("web/bodies.js"),
        include_str!("web/fetch.js"),
        include_str!("web/xhr.js"),
        include_str!("web/xml.js"),
        include_str!("web/worker.js"),
        include_str!("web/messaging.js"),
    ),
);

/// A 2D canvas context that keeps its state and draws nothing.
const CANVAS: Prelude = ("canvas.js", include_str!("canvas.js"));

/// User input: trusted events and the default actions they trigger.
const INPUT: Prelude = ("input.js", include_str!("input.js"));

/// The document's style sheets as scripts read them (read-only CSSOM).
const CSSOM: Prelude = ("cssom.js", include_str!("cssom.js"));

/// RegExp's legacy statics (`RegExp.$1`, `lastMatch`, ...), which QuickJS lacks.
const REGEXP: Prelude = ("regexp.js", include_str!("regexp.js"));

/// Intl (QuickJS has none) and the toLocaleString methods built on it.
const INTL: Prelude = ("intl.js", include_str!("intl.js"));

/// Last: gives every interface the other preludes built the shape WebIDL
/// gives it, so that libraries' feature detection sees native built-ins.
const WEBIDL: Prelude = ("webidl.js", include_str!("webidl.js"));

/// Heap limit of one realm.
const MEMORY_LIMIT: usize = 256 * 1024 * 1024;

/// Heap size at which a realm's first garbage collection runs. QuickJS starts
/// at 256 KiB and grows the threshold by half after each collection, so a new
/// realm, whose prelude alone allocates a few MiB, would stop several times to
/// mark objects that are all alive.
const GC_THRESHOLD: usize = 4 * 1024 * 1024;

/// QuickJS's stack limit, measured on the guest's shadow stack (linear memory).
/// QuickJS compiles this check out on WASI; `tools/wasi-sdk/bin/clang` turns it
/// back on, so runaway recursion is a catchable `RangeError` instead of a trap
/// that kills the instance. 1 MiB is ≈3,800 plain JS frames (≈1,000 through
/// builtins such as `Array.prototype.map`), which costs at most ≈2–3 MiB of the
/// host's native wasm stack: the host must allow ≥ 8 MiB (`max_wasm_stack`).
const MAX_STACK: usize = 1024 * 1024;

/// The realm of the current document. Field order is drop order: the saved
/// hooks and the context must go before the runtime that owns their memory.
struct JsEnv {
    hooks: Persistent<Object<'static>>,
    context: Context,
    runtime: Runtime,
}

thread_local! {
    static ENV: RefCell<Option<JsEnv>> = const { RefCell::new(None) };
    /// The realm of the document a navigation replaced, until [`prepare`]
    /// frees it between calls. At most one: a navigation that finds one
    /// here (the host did not call `prepare`) frees it then.
    static RETIRED: RefCell<Option<JsEnv>> = const { RefCell::new(None) };
    /// A realm [`prepare`] made before any document needed it; the next
    /// document that runs a script takes it.
    static SPARE: RefCell<Option<JsEnv>> = const { RefCell::new(None) };
    /// Documents of this tab that had a realm.
    static REALMS: Cell<u32> = const { Cell::new(0) };
    /// Bytecode of each prelude, by name: read once per instance (nine
    /// buffers, never freed, see [`load`]).
    static PRELUDE_CODE: RefCell<HashMap<&'static str, &'static [u8]>> = RefCell::new(HashMap::new());
}

/// Retire the realm of the current document (a new document gets a new
/// one). Freeing a realm is a full collection of its heap, which no caller
/// should wait for: it waits for [`prepare`].
pub(super) fn drop_realm() {
    let env = ENV.with(|env| env.borrow_mut().take());
    let older = RETIRED.with(|retired| retired.replace(env));
    drop(older);
}

/// Export `prepare`: free the retired realm, then make the realm the next
/// document will take, if none is made yet and the tab has gone from one page
/// that ran scripts to another and shows one now: a tab that navigates is
/// likely to again, and one that stays on its first page never pays the
/// spare's memory (≈2 MiB). [`build`] reads no document, so a realm made now
/// serves whatever document comes next.
pub(crate) fn prepare() -> Result<(), String> {
    let retired = RETIRED.with(|retired| retired.borrow_mut().take());
    drop(retired);
    let navigates = REALMS.with(Cell::get) >= 2 && ENV.with(|env| env.borrow().is_some());
    if !navigates || SPARE.with(|spare| spare.borrow().is_some()) {
        return Ok(());
    }
    let env = new_env()?;
    SPARE.with(|spare| *spare.borrow_mut() = Some(env));
    Ok(())
}

/// The realm of the current document, if one was made.
pub(super) fn existing() -> Option<(Context, Persistent<Object<'static>>)> {
    ENV.with(|env| {
        env.borrow()
            .as_ref()
            .map(|env| (env.context.clone(), env.hooks.clone()))
    })
}

/// The page's runtime, if its realm was made (frame realms join it).
pub(super) fn runtime() -> Option<Runtime> {
    ENV.with(|env| env.borrow().as_ref().map(|env| env.runtime.clone()))
}

/// The realm of the current document, created on first use (or taken from
/// [`prepare`]'s spare), begun for the document.
pub(super) fn realm() -> Result<(Context, Persistent<Object<'static>>), String> {
    if let Some(found) = existing() {
        return Ok(found);
    }
    let spare = SPARE.with(|spare| spare.borrow_mut().take());
    let env = match spare.map(|env| (begun(&env), env)) {
        Some((Ok(true), env)) => env,
        // The spare does not fit this document (or failed to begin): freed,
        // and a realm made for the document instead.
        Some(_) | None => {
            let env = new_env()?;
            if !begun(&env)? {
                return Err("a new realm did not wrap its tab's document".to_owned());
            }
            env
        }
    };
    let found = (env.context.clone(), env.hooks.clone());
    ENV.with(|current| *current.borrow_mut() = Some(env));
    REALMS.with(|made| made.set(made.get().saturating_add(1)));
    Ok(found)
}

/// Begin the document's life in the realm of `env` (see [`begin`]).
fn begun(env: &JsEnv) -> Result<bool, String> {
    env.context.with(|ctx| {
        let hooks = env.hooks.clone().restore(&ctx).map_err(|e| e.to_string())?;
        begin(&ctx, &hooks)
    })
}

/// The `begin` hook of a realm made by [`build`]: before its document's
/// first script, the realm starts its clock and reads what it keeps of the
/// document's initial state. [`build`] itself reads no document, so a realm
/// can be made before its document exists. False when the realm's `document`
/// is not its tab's (or frame's) document.
pub(super) fn begin<'js>(ctx: &Ctx<'js>, hooks: &Object<'js>) -> Result<bool, String> {
    let begin: Function = hooks.get("begin").map_err(|e| e.to_string())?;
    begin
        .call::<_, bool>(())
        .catch(ctx)
        .map_err(|e| format!("the realm did not begin: {}", describe(&e)))
}

/// A new realm: a runtime with the engine's limits, the natives and every
/// prelude.
fn new_env() -> Result<JsEnv, String> {
    let runtime =
        Runtime::new().map_err(|e| format!("the JavaScript runtime could not start: {e}"))?;
    runtime.set_memory_limit(MEMORY_LIMIT);
    runtime.set_gc_threshold(GC_THRESHOLD);
    runtime.set_max_stack_size(MAX_STACK);
    runtime.set_interrupt_handler(Some(Box::new(deadline_passed)));
    runtime.set_loader(modules::PageResolver, modules::PageLoader);
    let context = Context::full(&runtime)
        .map_err(|e| format!("the JavaScript realm could not be created: {e}"))?;
    let hooks = context.with(|ctx| -> Result<_, String> {
        let hooks = build(&ctx)?;
        Ok(Persistent::save(&ctx, hooks))
    })?;
    Ok(JsEnv {
        hooks,
        context,
        runtime,
    })
}

/// Install the natives and run the preludes in the realm of `ctx`; returns
/// the engine's hooks.
pub(super) fn build<'js>(ctx: &Ctx<'js>) -> Result<Object<'js>, String> {
    let native = natives::install(ctx).map_err(|e| e.to_string())?;
    let prelude = |prelude: Prelude| load(ctx, prelude);
    let hooks: Object = prelude(BOOTSTRAP)?
        .call((native.clone(),))
        .catch(ctx)
        .map_err(|e| format!("the DOM prelude failed: {}", describe(&e)))?;
    // The prelude's internals (events, the task queue) for the parts
    // built on it; page scripts never see them.
    let internals: Object = hooks
        .get("internals")
        .map_err(|e| format!("the DOM prelude has no internals: {e}"))?;
    prelude(INDEXEDDB)?
        .call::<_, ()>((native.clone(), internals.clone()))
        .catch(ctx)
        .map_err(|e| format!("the IndexedDB prelude failed: {}", describe(&e)))?;
    prelude(WEB)?
        .call::<_, ()>((native.clone(), internals.clone()))
        .catch(ctx)
        .map_err(|e| format!("the web prelude failed: {}", describe(&e)))?;
    prelude(CSSOM)?
        .call::<_, ()>((native.clone(), internals.clone()))
        .catch(ctx)
        .map_err(|e| format!("the CSSOM prelude failed: {}", describe(&e)))?;
    prelude(CANVAS)?
        .call::<_, ()>((internals.clone(),))
        .catch(ctx)
        .map_err(|e| format!("the canvas prelude failed: {}", describe(&e)))?;
    // The input prelude adds its hooks (`userClick`, ...) to the engine's.
    prelude(INPUT)?
        .call::<_, ()>((native.clone(), internals.clone(), hooks.clone()))
        .catch(ctx)
        .map_err(|e| format!("the input prelude failed: {}", describe(&e)))?;
    prelude(INTL)?
        .call::<_, ()>((internals.clone(),))
        .catch(ctx)
        .map_err(|e| format!("the Intl prelude failed: {}", describe(&e)))?;
    prelude(REGEXP)?
        .call::<_, ()>(())
        .catch(ctx)
        .map_err(|e| format!("the RegExp prelude failed: {}", describe(&e)))?;
    prelude(WEBIDL)?
        .call::<_, ()>((native, internals))
        .catch(ctx)
        .map_err(|e| format!("the WebIDL prelude failed: {}", describe(&e)))?;
    Ok(hooks)
}

/// The function a prelude evaluates to.
///
/// Each prelude is compiled once per process, as a module whose default
/// export is that function, and kept as bytecode without source text or line
/// tables: the host asks an instance that loads no page to compile them all
/// (`compile-preludes`) and hands the bytecode to every tab
/// (`preludes.bytecode`); a tab whose host has none compiles them itself.
/// Every realm (every navigation makes one) reads the bytecode instead of
/// parsing the ≈330 KB of prelude source again, the first realm too: a
/// function without source prints as `[native code]`, which is what feature
/// detection must see of every built-in (see `webidl.js`).
fn load<'js>(ctx: &Ctx<'js>, (name, source): Prelude) -> Result<Function<'js>, String> {
    let failed = |e: CaughtError<'_>| format!("the DOM prelude ({name}) failed: {}", describe(&e));
    let bytecode = match PRELUDE_CODE.with(|code| code.borrow().get(name).copied()) {
        Some(bytecode) => bytecode,
        None => {
            let bytecode = match preludes::bytecode(name) {
                Some(bytecode) => bytecode,
                None => compile(ctx, name, source)?,
            };
            let bytecode: &'static [u8] = Box::leak(bytecode.into_boxed_slice());
            PRELUDE_CODE.with(|code| code.borrow_mut().insert(name, bytecode));
            bytecode
        }
    };
    #[allow(unsafe_code)]
    // SAFETY: `Module::load` trusts its bytes to be valid QuickJS bytecode and,
    // as it reads them as ROM data, to outlive the module. These bytes were
    // written by `Module::write` (in `compile`) from our own prelude source, by
    // this component's QuickJS: in this instance, or in the instance of the
    // same component that the host asked to compile the preludes before any
    // page ran, and that the host hands over unchanged. They are leaked, so
    // they live as long as any runtime.
    let module = unsafe { Module::load(ctx.clone(), bytecode) }
        .catch(ctx)
        .map_err(failed)?;
    let (module, done) = module.eval().catch(ctx).map_err(failed)?;
    done.finish::<()>().catch(ctx).map_err(failed)?;
    module.get("default").catch(ctx).map_err(failed)
}

/// Compile one prelude to bytecode, without source text or line tables. It
/// is declared under a name of its own and never evaluated: only its
/// bytecode is used.
fn compile(ctx: &Ctx<'_>, name: &str, source: &str) -> Result<Vec<u8>, String> {
    let failed =
        |e: CaughtError<'_>| format!("the prelude {name} does not compile: {}", describe(&e));
    let compiled = Module::declare(
        ctx.clone(),
        format!("fleet:compile:{name}"),
        format!("export default {source}"),
    )
    .catch(ctx)
    .map_err(failed)?;
    compiled
        .write(WriteOptions {
            strip_source: true,
            strip_debug: true,
            ..WriteOptions::default()
        })
        .catch(ctx)
        .map_err(failed)
}

/// Export `compile-preludes`: every prelude's bytecode, compiled in a realm of
/// its own that runs nothing.
pub(crate) fn compile_preludes() -> Result<Vec<(String, Vec<u8>)>, String> {
    in_compile_realm(|ctx| {
        PRELUDES
            .iter()
            .map(|&(name, source)| Ok((name.to_owned(), compile(&ctx, name, source)?)))
            .collect()
    })
}

/// Runs `f` in a realm that only compiles: a runtime of its own, with a page
/// realm's limits, and a context with every intrinsic (`Context::base` has no
/// `eval`, which compiling needs).
pub(super) fn in_compile_realm<R>(
    f: impl FnOnce(Ctx<'_>) -> Result<R, String>,
) -> Result<R, String> {
    let runtime =
        Runtime::new().map_err(|e| format!("the JavaScript runtime could not start: {e}"))?;
    runtime.set_memory_limit(MEMORY_LIMIT);
    runtime.set_max_stack_size(MAX_STACK);
    let context = Context::full(&runtime)
        .map_err(|e| format!("the JavaScript realm could not be created: {e}"))?;
    context.with(f)
}
