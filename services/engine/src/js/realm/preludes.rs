//! The preludes: the JavaScript that builds the Web API in a realm, their
//! order, the ones a page's first use evaluates, and their bytecode,
//! compiled once per process (into the pre-initialized engine every tab
//! starts from) and read by every realm.

use std::cell::RefCell;
use std::collections::HashMap;

use rquickjs::{
    CatchResultExt, CaughtError, Context, Ctx, Exception, Function, Module, Object, Runtime,
    WriteOptions,
};

use super::super::{describe, natives};
use super::{MAX_STACK, MEMORY_LIMIT};
use crate::bindings::fleet::engine::preludes;

/// A prelude: its name (what `preludes.bytecode` is asked for) and source.
type Prelude = (&'static str, &'static str);

/// Every prelude: those a realm runs, in order, then those it runs when a
/// page first uses what they define ([`ON_FIRST_USE`]).
const PRELUDES: [Prelude; 11] = [
    BOOTSTRAP,
    INDEXEDDB_STUB,
    WEB,
    CSSOM,
    CANVAS,
    INPUT,
    INTL,
    REGEXP,
    WEBIDL,
    INDEXEDDB,
    INTL_BUILD,
];

/// The preludes a realm's scripts evaluate when a page first uses what they
/// define (`native.prelude(name)` returns the function one evaluates to):
/// most pages use neither, and a realm that skips them is made in less time
/// and memory.
const ON_FIRST_USE: [Prelude; 2] = [INDEXEDDB, INTL_BUILD];

/// The prelude that builds the Web API surface on the native functions: one
/// function expression, kept as one file per topic in `dom/` and joined here
/// in order (the topics share the function's locals, as one closure).
const BOOTSTRAP: Prelude = (
    "dom",
    concat!(
        include_str!("../dom/head.js"),
        include_str!("../dom/console.js"),
        include_str!("../dom/events.js"),
        include_str!("../dom/nodes.js"),
        include_str!("../dom/collections.js"),
        include_str!("../dom/elements.js"),
        include_str!("../dom/controls.js"),
        include_str!("../dom/more-elements.js"),
        include_str!("../dom/document.js"),
        include_str!("../dom/custom-elements.js"),
        include_str!("../dom/traversal.js"),
        include_str!("../dom/location.js"),
        include_str!("../dom/tasks.js"),
        include_str!("../dom/random.js"),
        include_str!("../dom/window.js"),
        include_str!("../dom/hooks.js"),
    ),
);

/// IndexedDB's globals until a page first uses one (then `INDEXEDDB`).
const INDEXEDDB_STUB: Prelude = ("indexeddb/stub.js", include_str!("../indexeddb/stub.js"));

/// IndexedDB, built on the prelude's events and task queue.
const INDEXEDDB: Prelude = (
    "indexeddb",
    concat!(
        include_str!("../indexeddb/head.js"),
        include_str!("../indexeddb/keys.js"),
        include_str!("../indexeddb/values.js"),
        include_str!("../indexeddb/key-paths.js"),
        include_str!("../indexeddb/databases.js"),
        include_str!("../indexeddb/transactions.js"),
        include_str!("../indexeddb/interfaces.js"),
        include_str!("../indexeddb/cursors.js"),
        include_str!("../indexeddb/open.js"),
    ),
);

/// Network (fetch, XHR), encodings, crypto, forms data, history, dialogs,
/// dedicated workers.
const WEB: Prelude = (
    "web",
    concat!(
        include_str!("../web/head.js"),
        include_str!("../web/encoding.js"),
        include_str!("../web/forms.js"),
        include_str!("../web/bodies.js"),
        include_str!("../web/fetch.js"),
        include_str!("../web/xhr.js"),
        include_str!("../web/xml.js"),
        include_str!("../web/worker.js"),
        include_str!("../web/messaging.js"),
    ),
);

/// A 2D canvas context that keeps its state and draws nothing.
const CANVAS: Prelude = ("canvas.js", include_str!("../canvas.js"));

/// User input: trusted events and the default actions they trigger.
const INPUT: Prelude = ("input.js", include_str!("../input.js"));

/// The document's style sheets as scripts read them (read-only CSSOM).
const CSSOM: Prelude = ("cssom.js", include_str!("../cssom.js"));

/// RegExp's legacy statics (`RegExp.$1`, `lastMatch`, ...), which QuickJS lacks.
const REGEXP: Prelude = ("regexp.js", include_str!("../regexp.js"));

/// Intl (QuickJS has none) and the toLocaleString methods built on it.
const INTL: Prelude = ("intl.js", include_str!("../intl.js"));

/// Intl's objects, made the first time a page uses Intl.
const INTL_BUILD: Prelude = ("intl/build.js", include_str!("../intl/build.js"));

/// Last: gives every interface the other preludes built the shape WebIDL
/// gives it, so that libraries' feature detection sees native built-ins.
const WEBIDL: Prelude = ("webidl.js", include_str!("../webidl.js"));

thread_local! {
    /// Bytecode of each prelude, by name: read once per instance, the
    /// first time a realm needs it (buffers never freed, see [`load`]).
    static PRELUDE_CODE: RefCell<HashMap<&'static str, &'static [u8]>> = RefCell::new(HashMap::new());
}

/// Install the natives and run the preludes in the realm of `ctx`; returns
/// the engine's hooks.
pub(in crate::js) fn build<'js>(ctx: &Ctx<'js>) -> Result<Object<'js>, String> {
    let native = natives::install(ctx).map_err(|e| e.to_string())?;
    native
        .set(
            "prelude",
            Function::new(ctx.clone(), on_first_use).map_err(|e| e.to_string())?,
        )
        .map_err(|e| e.to_string())?;
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
    prelude(INDEXEDDB_STUB)?
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
        .call::<_, ()>((native.clone(), internals.clone()))
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

/// The native `prelude(name)`: the function the prelude `name` of
/// [`ON_FIRST_USE`] evaluates to, for the script that found it needed.
fn on_first_use<'js>(ctx: Ctx<'js>, name: String) -> rquickjs::Result<Function<'js>> {
    let prelude = ON_FIRST_USE
        .into_iter()
        .find(|(known, _)| *known == name)
        .ok_or_else(|| Exception::throw_type(&ctx, &format!("no prelude is named {name}")))?;
    load(&ctx, prelude).map_err(|e| Exception::throw_internal(&ctx, &e))
}

/// The function a prelude evaluates to.
///
/// Each prelude is compiled once per process, as a module whose default
/// export is that function, and kept as bytecode without source text or line
/// tables: the host asks an instance that loads no page to compile them all
/// (`compile-preludes`) and hands the bytecode to the instance it
/// pre-initializes (`initialize`, [`compile_all`]), whose memory every tab
/// starts from; a tab of an engine that was not pre-initialized asks the
/// host (`preludes.bytecode`), and compiles a prelude itself if the host has
/// none.
/// Every realm (every navigation makes one) reads the bytecode instead of
/// parsing the ≈330 KB of prelude source again, the first realm too: a
/// function without source prints as `[native code]`, which is what feature
/// detection must see of every built-in (see `webidl.js`).
fn load<'js>(ctx: &Ctx<'js>, (name, source): Prelude) -> Result<Function<'js>, String> {
    let failed = |e: CaughtError<'_>| format!("the DOM prelude ({name}) failed: {}", describe(&e));
    let bytecode = match PRELUDE_CODE.with(|code| code.borrow().get(name).copied()) {
        Some(bytecode) => bytecode,
        None => keep(
            name,
            match preludes::bytecode(name) {
                Some(bytecode) => bytecode,
                None => compile(ctx, name, source)?,
            },
        ),
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
    // A prelude has no top-level await, so its evaluation is settled now.
    // Nothing here runs the job queue: a prelude evaluated on first use is
    // evaluated inside a page's script, whose jobs wait for it to end.
    done.result::<()>()
        .ok_or_else(|| format!("the prelude {name} did not finish"))?
        .catch(ctx)
        .map_err(failed)?;
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

/// Keep `bytecode` as this instance's bytecode of the prelude `name`, for
/// as long as the instance lives.
fn keep(name: &'static str, bytecode: Vec<u8>) -> &'static [u8] {
    let bytecode: &'static [u8] = Box::leak(bytecode.into_boxed_slice());
    PRELUDE_CODE.with(|code| code.borrow_mut().insert(name, bytecode));
    bytecode
}

/// Take every prelude's bytecode this instance does not have yet into its
/// own cache: from the host, or compiled in a realm that runs nothing. Part
/// of `initialize`, so the bytecode is in the snapshot every tab starts from
/// and no tab asks the host for it or compiles it.
pub(crate) fn compile_all() -> Result<(), String> {
    let mut missing = Vec::new();
    for (name, source) in PRELUDES {
        if PRELUDE_CODE.with(|code| code.borrow().contains_key(name)) {
            continue;
        }
        match preludes::bytecode(name) {
            Some(bytecode) => {
                keep(name, bytecode);
            }
            None => missing.push((name, source)),
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    let compiled = in_compile_realm(|ctx| {
        missing
            .iter()
            .map(|&(name, source)| Ok((name, compile(&ctx, name, source)?)))
            .collect::<Result<Vec<_>, String>>()
    })?;
    for (name, bytecode) in compiled {
        keep(name, bytecode);
    }
    Ok(())
}

/// Runs `f` in a realm that only compiles: a runtime of its own, with a page
/// realm's limits, and a context with every intrinsic (`Context::base` has no
/// `eval`, which compiling needs).
pub(in crate::js) fn in_compile_realm<R>(
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
