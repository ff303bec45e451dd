//! JavaScript: one QuickJS runtime and realm per document.
//!
//! The realm is created on first use (a page without scripts never pays for
//! it) and dropped on every `load`, like a browser navigation. DOM bindings are
//! a small layer of native functions over the Blitz document ([`natives`]) and a
//! JavaScript prelude (`bootstrap.js`) that builds `window`, `document`,
//! elements, events, timers, `location`, `console` and `localStorage` on them;
//! `indexeddb.js` adds IndexedDB on top of the prelude, `web.js` the network
//! and platform objects, `cssom.js` the style sheets read-only, `canvas.js` a 2D context without pixels, `input.js` what a user's input does, `intl.js`
//! Intl and `regexp.js` RegExp's legacy statics. The preludes are
//! compiled once per instance and kept as bytecode for later realms.
//!
//! Time is bounded with QuickJS's interrupt handler: a script that runs past
//! its budget gets an uncatchable exception, so `while (true) {}` costs the tab
//! seconds, not its life (the budgets are below the host's call deadlines, which
//! would poison the whole instance). Timers run on the page's clock, drained after the
//! page's scripts and while `evaluate` awaits a promise: the pump does not wait
//! for a timer, it skips the page's clock (Date, `performance.now()`) ahead to it.
//!
//! Other tasks (IndexedDB requests and transaction events) are due at once and
//! run through the same hook as timers, one per call, so promise jobs run
//! between them as in a browser. They also run after every `evaluate`, so
//! that what a script wrote is committed before the host checkpoints the tab.
//! After each task the `endTask` hook ends it (IndexedDB transactions created
//! or reactivated in it become inactive and may commit).

mod modules;
mod natives;
mod web;

pub(crate) use natives::from_id;

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::time::{Duration, Instant};

use blitz_dom::{BaseDocument, NodeId};
use rquickjs::context::EvalOptions;
use rquickjs::{
    CatchResultExt, CaughtError, Coerced, Context, Ctx, FromJs, Function, Module, Object,
    Persistent, Runtime, Value, WriteOptions,
};

use crate::bindings::exports::fleet::engine::page::{self as wit, EvalError, Settle};
use crate::{charset, inspect, net, tab};

/// The prelude that builds the Web API surface on the native functions.
const BOOTSTRAP: &str = include_str!("bootstrap.js");
/// IndexedDB, built on the prelude's events and task queue.
const INDEXEDDB: &str = include_str!("indexeddb.js");
/// Network (fetch, XHR), encodings, crypto, forms data, history, dialogs.
const WEB: &str = include_str!("web.js");
/// A 2D canvas context that keeps its state and draws nothing.
const CANVAS: &str = include_str!("canvas.js");
/// User input: trusted events and the default actions they trigger.
const INPUT: &str = include_str!("input.js");
/// The document's style sheets as scripts read them (read-only CSSOM).
const CSSOM: &str = include_str!("cssom.js");
/// RegExp's legacy statics (`RegExp.$1`, `lastMatch`, ...), which QuickJS lacks.
const REGEXP: &str = include_str!("regexp.js");
/// Intl (QuickJS has none) and the toLocaleString methods built on it.
const INTL: &str = include_str!("intl.js");
/// Last: gives every interface the other preludes built the shape WebIDL
/// gives it, so that libraries' feature detection sees native built-ins.
const WEBIDL: &str = include_str!("webidl.js");
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
/// Time one page script (or one timer callback) may run.
const SCRIPT_BUDGET: Duration = Duration::from_secs(4);
/// Time all of a page's scripts, load events and timers may take together.
const LOAD_BUDGET: Duration = Duration::from_secs(8);
/// Time one `evaluate` may take, including awaiting its promise.
const EVAL_BUDGET: Duration = Duration::from_secs(8);
/// Page milliseconds of timers run after load or an input action, counted
/// from the end of the action, the quiet period: `setTimeout(f, 500)` runs,
/// a 10 s poll does not.
const LOAD_TIMER_HORIZON_MS: f64 = 1_000.0;
/// Time an input action's event handlers, default actions and the tasks
/// they start may take together.
const INPUT_BUDGET: Duration = Duration::from_secs(8);
/// Console entries one summary reports, at most (the newest).
const MAX_REPORTED_CONSOLE: usize = 100;
/// Page milliseconds `evaluate` may skip ahead to settle a promise.
const EVAL_TIMER_HORIZON_MS: f64 = 30_000.0;
/// Timer callbacks run after load, at most (a `setInterval(f, 0)` ends here).
const MAX_LOAD_TIMERS: usize = 200;
/// Other tasks (IndexedDB requests and events) run after load or after an
/// `evaluate`, at most; a page filling a database issues one per record, so
/// this is far above the timer cap. The time budgets bound them too.
const MAX_TASKS: usize = 100_000;
/// Microtasks drained in one go, at most.
const MAX_JOBS: usize = 100_000;
/// Console entries kept per document, and characters per entry.
const MAX_CONSOLE_ENTRIES: usize = 1_000;
const MAX_CONSOLE_ENTRY_CHARS: usize = 4_096;

/// A message written with `console.*` or an uncaught script error.
pub(crate) struct ConsoleEntry {
    /// `log`, `info`, `warn`, `error` or `debug`.
    pub level: String,
    /// The formatted message.
    pub text: String,
}

/// The realm of the current document. Field order is drop order: the saved
/// hooks and the context must go before the runtime that owns their memory.
struct JsEnv {
    hooks: Persistent<Object<'static>>,
    context: Context,
    _runtime: Runtime,
}

thread_local! {
    static ENV: RefCell<Option<JsEnv>> = const { RefCell::new(None) };
    /// When the running script must stop (read by the interrupt handler).
    static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
    static CONSOLE: RefCell<Vec<ConsoleEntry>> = const { RefCell::new(Vec::new()) };
    /// How many console entries a summary has reported.
    static REPORTED: Cell<usize> = const { Cell::new(0) };
    /// Bytecode of each prelude, by name: written once per instance (four
    /// buffers, never freed, see [`prelude`]).
    static PRELUDE_CODE: RefCell<HashMap<&'static str, &'static [u8]>> = RefCell::new(HashMap::new());
}

/// Drop the realm and the console entries already reported (on `load`);
/// what the old document logged but no summary reported yet stays.
pub(crate) fn reset() {
    let env = ENV.with(|env| env.borrow_mut().take());
    drop(env);
    modules::reset();
    natives::forget_retained();
    let reported = REPORTED.with(|r| r.replace(0));
    CONSOLE.with(|console| {
        let mut console = console.borrow_mut();
        let reported = reported.min(console.len());
        console.drain(..reported);
    });
}

/// The console entries written since the last call, the newest
/// [`MAX_REPORTED_CONSOLE`] of them.
pub(crate) fn take_console() -> Vec<wit::ConsoleEntry> {
    CONSOLE.with(|console| {
        let console = console.borrow();
        let from = REPORTED
            .with(|r| r.replace(console.len()))
            .min(console.len());
        let fresh = &console[from..];
        fresh[fresh.len().saturating_sub(MAX_REPORTED_CONSOLE)..]
            .iter()
            .map(|e| wit::ConsoleEntry {
                level: e.level.clone(),
                text: e.text.clone(),
            })
            .collect()
    })
}

/// Record a console message (bounded, oldest dropped first).
pub(crate) fn console(level: &str, text: &str) {
    CONSOLE.with(|console| {
        let mut console = console.borrow_mut();
        if console.len() >= MAX_CONSOLE_ENTRIES {
            console.remove(0);
            REPORTED.with(|r| r.set(r.get().saturating_sub(1)));
        }
        console.push(ConsoleEntry {
            level: level.to_owned(),
            text: text.chars().take(MAX_CONSOLE_ENTRY_CHARS).collect(),
        });
    });
}

/// Read the console of the current document with `f`.
pub(crate) fn with_console<R>(f: impl FnOnce(&[ConsoleEntry]) -> R) -> R {
    CONSOLE.with(|console| f(&console.borrow()))
}

/// Run `f` with the interrupt deadline set `budget` from now (or kept, if an
/// outer caller already set an earlier one).
fn with_deadline<R>(budget: Duration, f: impl FnOnce() -> R) -> R {
    let outer = DEADLINE.with(Cell::get);
    let mine = Instant::now() + budget;
    let deadline = outer.map_or(mine, |outer| outer.min(mine));
    DEADLINE.with(|d| d.set(Some(deadline)));
    let result = f();
    DEADLINE.with(|d| d.set(outer));
    result
}

fn deadline_passed() -> bool {
    DEADLINE.with(|d| d.get().is_some_and(|deadline| Instant::now() >= deadline))
}

/// The realm of the current document, created on first use.
fn realm() -> Result<(Context, Persistent<Object<'static>>), String> {
    if let Some(found) = ENV.with(|env| {
        env.borrow()
            .as_ref()
            .map(|env| (env.context.clone(), env.hooks.clone()))
    }) {
        return Ok(found);
    }
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
        let native = natives::install(&ctx).map_err(|e| e.to_string())?;
        let prelude = |source: &str, name: &'static str| prelude(&ctx, source, name);
        let hooks: Object = prelude(BOOTSTRAP, "bootstrap.js")?
            .call((native.clone(),))
            .catch(&ctx)
            .map_err(|e| format!("the DOM prelude failed: {}", describe(&e)))?;
        // The prelude's internals (events, the task queue) for the parts
        // built on it; page scripts never see them.
        let internals: Object = hooks
            .get("internals")
            .map_err(|e| format!("the DOM prelude has no internals: {e}"))?;
        prelude(INDEXEDDB, "indexeddb.js")?
            .call::<_, ()>((native.clone(), internals.clone()))
            .catch(&ctx)
            .map_err(|e| format!("the IndexedDB prelude failed: {}", describe(&e)))?;
        prelude(WEB, "web.js")?
            .call::<_, ()>((native.clone(), internals.clone()))
            .catch(&ctx)
            .map_err(|e| format!("the web prelude failed: {}", describe(&e)))?;
        prelude(CSSOM, "cssom.js")?
            .call::<_, ()>((native.clone(), internals.clone()))
            .catch(&ctx)
            .map_err(|e| format!("the CSSOM prelude failed: {}", describe(&e)))?;
        prelude(CANVAS, "canvas.js")?
            .call::<_, ()>((internals.clone(),))
            .catch(&ctx)
            .map_err(|e| format!("the canvas prelude failed: {}", describe(&e)))?;
        // The input prelude adds its hooks (`userClick`, ...) to the engine's.
        prelude(INPUT, "input.js")?
            .call::<_, ()>((native, internals.clone(), hooks.clone()))
            .catch(&ctx)
            .map_err(|e| format!("the input prelude failed: {}", describe(&e)))?;
        prelude(INTL, "intl.js")?
            .call::<_, ()>((internals.clone(),))
            .catch(&ctx)
            .map_err(|e| format!("the Intl prelude failed: {}", describe(&e)))?;
        prelude(REGEXP, "regexp.js")?
            .call::<_, ()>(())
            .catch(&ctx)
            .map_err(|e| format!("the RegExp prelude failed: {}", describe(&e)))?;
        prelude(WEBIDL, "webidl.js")?
            .call::<_, ()>((internals,))
            .catch(&ctx)
            .map_err(|e| format!("the WebIDL prelude failed: {}", describe(&e)))?;
        Ok(Persistent::save(&ctx, hooks))
    })?;
    ENV.with(|env| {
        *env.borrow_mut() = Some(JsEnv {
            hooks: hooks.clone(),
            context: context.clone(),
            _runtime: runtime,
        });
    });
    Ok((context, hooks))
}

/// The function a prelude evaluates to.
///
/// Each prelude is compiled once per instance, as a module whose default
/// export is that function, and kept as bytecode without source text or line
/// tables; every realm (every navigation makes one) reads the bytecode
/// instead of parsing the ≈250 KB of prelude source again. The first realm
/// reads it back too, rather than running the module it compiled: a function
/// without source prints as `[native code]`, which is what feature detection
/// must see of every built-in (see `webidl.js`), on the first page as on later ones.
fn prelude<'js>(ctx: &Ctx<'js>, source: &str, name: &'static str) -> Result<Function<'js>, String> {
    let failed = |e: CaughtError<'_>| format!("the DOM prelude ({name}) failed: {}", describe(&e));
    let bytecode = match PRELUDE_CODE.with(|code| code.borrow().get(name).copied()) {
        Some(bytecode) => bytecode,
        None => {
            // Declared under a name of its own and never evaluated: only its
            // bytecode is used.
            let compiled = Module::declare(
                ctx.clone(),
                format!("fleet:compile:{name}"),
                format!("export default {source}"),
            )
            .catch(ctx)
            .map_err(failed)?;
            let bytecode = compiled
                .write(WriteOptions {
                    strip_source: true,
                    strip_debug: true,
                    ..WriteOptions::default()
                })
                .catch(ctx)
                .map_err(failed)?;
            let bytecode: &'static [u8] = Box::leak(bytecode.into_boxed_slice());
            PRELUDE_CODE.with(|code| code.borrow_mut().insert(name, bytecode));
            bytecode
        }
    };
    #[allow(unsafe_code)]
    // SAFETY: `Module::load` trusts its bytes to be valid QuickJS bytecode and,
    // as it reads them as ROM data, to outlive the module. These bytes were
    // written by `Module::write` in this instance, by this QuickJS, from our
    // own prelude source, and are leaked, so they live as long as any runtime.
    let module = unsafe { Module::load(ctx.clone(), bytecode) }
        .catch(ctx)
        .map_err(failed)?;
    let (module, done) = module.eval().catch(ctx).map_err(failed)?;
    done.finish::<()>().catch(ctx).map_err(failed)?;
    module.get("default").catch(ctx).map_err(failed)
}

/// Human-readable text of a caught exception.
fn describe(error: &CaughtError<'_>) -> String {
    if deadline_passed() {
        return "the script ran past its time budget and was stopped".to_owned();
    }
    match error {
        CaughtError::Exception(exception) => {
            let name: Option<String> = exception.get("name").ok();
            let message = exception.message().unwrap_or_default();
            match name {
                Some(name) if !name.is_empty() => format!("{name}: {message}"),
                _ => message,
            }
        }
        CaughtError::Value(value) => Coerced::<String>::from_js(value.ctx(), value.clone())
            .map(|s| s.0)
            .unwrap_or_else(|_| "a value that cannot be converted to a string".to_owned()),
        CaughtError::Error(error) => error.to_string(),
    }
}

/// Evaluate a classic script (sloppy mode, global scope), as `<script>` does.
fn eval_classic<'js>(ctx: &Ctx<'js>, source: &str, name: &str) -> Result<Value<'js>, String> {
    let mut options = EvalOptions::default();
    options.strict = false;
    options.backtrace_barrier = true;
    options.filename = Some(name.to_owned());
    ctx.eval_with_options::<Value, _>(source, options)
        .catch(ctx)
        .map_err(|e| describe(&e))
}

/// Run a classic script as the document does; an uncaught exception goes to
/// the prelude's `scriptError` hook (an `error` event on the window and the
/// console), and never stops the page.
fn run_script<'js>(ctx: &Ctx<'js>, hooks: &Object<'js>, source: &str, name: &str) {
    let mut options = EvalOptions::default();
    options.strict = false;
    options.backtrace_barrier = true;
    options.filename = Some(name.to_owned());
    let result = with_deadline(SCRIPT_BUDGET, || {
        ctx.eval_with_options::<Value, _>(source, options)
            .catch(ctx)
    });
    match result {
        Ok(_) => {}
        Err(CaughtError::Exception(exception)) if !deadline_passed() => {
            let reported = call_hook(ctx, hooks, "scriptError", (exception.into_value(), name));
            if reported.is_none() {
                console("error", &format!("Uncaught exception ({name})"));
            }
        }
        Err(e) => console("error", &format!("Uncaught {} ({name})", describe(&e))),
    }
}

/// Run queued promise jobs until none are left (bounded).
fn drain_jobs(ctx: &Ctx<'_>) {
    for _ in 0..MAX_JOBS {
        if deadline_passed() || !ctx.execute_pending_job() {
            break;
        }
    }
}

/// End the current task: call the prelude's `endTask` hook (IndexedDB
/// transactions go inactive and, with nothing left to do, commit).
fn end_task(ctx: &Ctx<'_>, hooks: &Object<'_>) {
    let Ok(end) = hooks.get::<_, Function>("endTask") else {
        return;
    };
    let ended = with_deadline(SCRIPT_BUDGET, || {
        end.call::<_, ()>(()).catch(ctx).map_err(|e| describe(&e))
    });
    if let Err(message) = ended {
        console("error", &format!("Uncaught {message}"));
    }
}

/// What [`run_next_task`] ran.
#[derive(PartialEq, Eq)]
enum Ran {
    /// Nothing was due.
    Nothing,
    /// A timer callback.
    Timer,
    /// Another task (IndexedDB).
    Task,
}

/// The page time (ms since the realm's time origin, as `performance.now()`
/// reads it) up to which a pump that may skip `horizon_ms` ahead from now
/// runs timers; a negative horizon runs no timer.
fn timer_limit(hooks: &Object<'_>, horizon_ms: f64) -> f64 {
    if horizon_ms < 0.0 {
        return -1.0;
    }
    let now = hooks
        .get::<_, Function>("clock")
        .and_then(|clock| clock.call::<_, f64>(()))
        .unwrap_or(0.0);
    now + horizon_ms
}

/// Run the next due task: another task if one is queued, else the next timer
/// due no later than page time `limit` (see [`timer_limit`]; a negative limit
/// runs no timer). Its promise jobs run and the task is ended before this
/// returns; the caller must have ended whatever ran before.
fn run_next_task(ctx: &Ctx<'_>, hooks: &Object<'_>, limit: f64) -> Ran {
    let Ok(run) = hooks.get::<_, Function>("runNextTimer") else {
        return Ran::Nothing;
    };
    let ran = with_deadline(SCRIPT_BUDGET, || {
        run.call::<_, i32>((limit,))
            .catch(ctx)
            .map_err(|e| describe(&e))
    });
    match ran {
        Ok(ran) => {
            drain_jobs(ctx);
            end_task(ctx, hooks);
            match ran {
                1 => Ran::Timer,
                2 => Ran::Task,
                _ => Ran::Nothing,
            }
        }
        Err(message) => {
            console("error", &format!("Uncaught {message}"));
            Ran::Nothing
        }
    }
}

/// Run due tasks (and timers due within `horizon_ms` of page time from now)
/// until none is left, at most `max_timers` timer callbacks and
/// [`MAX_TASKS`] other tasks, or the deadline. Says how the loop ended.
fn run_tasks(ctx: &Ctx<'_>, hooks: &Object<'_>, horizon_ms: f64, max_timers: usize) -> Settle {
    // Whatever ran before (a script, its promise jobs) is over.
    end_task(ctx, hooks);
    // The horizon counts from now, not from the realm's start: timers a
    // click starts long after the load still run within its quiet period.
    let limit = timer_limit(hooks, horizon_ms);
    let (mut timers, mut tasks) = (0, 0);
    loop {
        if deadline_passed() {
            return Settle::Budget;
        }
        match run_next_task(ctx, hooks, limit) {
            Ran::Nothing => break,
            Ran::Timer => {
                timers += 1;
                if timers >= max_timers {
                    return Settle::Budget;
                }
            }
            Ran::Task => {
                tasks += 1;
                if tasks >= MAX_TASKS {
                    return Settle::Budget;
                }
            }
        }
    }
    pending_settle(hooks)
}

/// Pump the event loop after an action: tasks and timers within the quiet
/// period, then what IndexedDB still has queued.
fn pump(ctx: &Ctx<'_>, hooks: &Object<'_>) -> Settle {
    let settle = run_tasks(ctx, hooks, LOAD_TIMER_HORIZON_MS, MAX_LOAD_TIMERS);
    // Past the timer cap, still finish what IndexedDB has queued.
    let rest = run_tasks(ctx, hooks, -1.0, usize::MAX);
    match (settle, rest) {
        (Settle::Budget, _) | (_, Settle::Budget) => Settle::Budget,
        (settle, _) => settle,
    }
}

/// A `<script>` to run: its source text or the URL to fetch it from.
enum ScriptSource {
    Inline(String),
    External(String),
}

/// What a `<script>` holds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A classic script.
    Classic,
    /// A module script (`type="module"`).
    Module,
    /// An import map (`type="importmap"`), read in document order.
    ImportMap,
}

/// When a script runs, by its attributes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Timing {
    /// In document order, as the parser meets it.
    Blocking,
    /// External with `async`: after the blocking scripts, before `defer`
    /// ones (all fetches complete at once here, so "as soon as loaded" is
    /// right after parsing).
    Async,
    /// External with `defer`: in order, just before `DOMContentLoaded`.
    Deferred,
}

/// One script of the document.
struct Script {
    node: NodeId,
    kind: Kind,
    source: ScriptSource,
    name: String,
    timing: Timing,
}

/// Whether a `type` attribute names classic JavaScript.
fn is_classic_script(script_type: Option<&str>) -> bool {
    let Some(t) = script_type.map(|t| t.trim().to_ascii_lowercase()) else {
        return true;
    };
    t.is_empty()
        || matches!(
            t.as_str(),
            "text/javascript"
                | "application/javascript"
                | "application/ecmascript"
                | "text/ecmascript"
                | "application/x-javascript"
                | "text/jscript"
                | "text/livescript"
        )
}

/// The document's scripts in document order: classic scripts (but not those
/// marked `nomodule`, which browsers with modules skip), module scripts and
/// import maps. Scripts of other types are data, not run.
fn collect_scripts(doc: &BaseDocument) -> Vec<Script> {
    let base = inspect::base_url(doc);
    let mut scripts = Vec::new();
    let mut stack = vec![doc.root_node().id];
    while let Some(id) = stack.pop() {
        let Some(node) = doc.get_node(id) else {
            continue;
        };
        if let Some(el) = node.element_data() {
            let tag: &str = &el.name.local;
            if tag == "template" {
                continue;
            }
            if tag == "script" {
                let script_type =
                    inspect::attr(node, "type").map(|t| t.trim().to_ascii_lowercase());
                let kind = match script_type.as_deref() {
                    Some("module") => Some(Kind::Module),
                    Some("importmap") => Some(Kind::ImportMap),
                    t if is_classic_script(t) && inspect::attr(node, "nomodule").is_none() => {
                        Some(Kind::Classic)
                    }
                    _ => None,
                };
                if let Some(kind) = kind {
                    let index = scripts.len() + 1;
                    let src = inspect::attr(node, "src").filter(|_| kind != Kind::ImportMap);
                    let is_async = inspect::attr(node, "async").is_some();
                    let timing = match (kind, src.is_some()) {
                        // Module scripts are deferred unless async, inline or not.
                        (Kind::Module, _) if is_async => Timing::Async,
                        (Kind::Module, _) => Timing::Deferred,
                        (_, true) if is_async => Timing::Async,
                        (_, true) if inspect::attr(node, "defer").is_some() => Timing::Deferred,
                        _ => Timing::Blocking,
                    };
                    let script = match src {
                        Some(src) => {
                            let url = base
                                .join(src.trim())
                                .map(String::from)
                                .unwrap_or_else(|_| src.to_owned());
                            Script {
                                node: id,
                                kind,
                                source: ScriptSource::External(url.clone()),
                                name: url,
                                timing,
                            }
                        }
                        None => Script {
                            node: id,
                            kind,
                            source: ScriptSource::Inline(node.text_content()),
                            name: match kind {
                                Kind::Module => format!("inline-module-{index}"),
                                _ => format!("inline-script-{index}"),
                            },
                            timing,
                        },
                    };
                    scripts.push(script);
                }
                continue;
            }
        }
        stack.extend(node.children.iter().rev().copied());
    }
    scripts
}

/// Run a module script: declare it (fetching it and, when it is run, what
/// it imports) and evaluate it. Its evaluation may outlive this call (a
/// top-level `await`); the prelude reports whatever it rejects with.
fn run_module<'js>(ctx: &Ctx<'js>, hooks: &Object<'js>, script: &Script) {
    let (src, text) = match &script.source {
        ScriptSource::External(url) => (Some(url.as_str()), ""),
        ScriptSource::Inline(text) => (None, text.as_str()),
    };
    let evaluated = with_deadline(SCRIPT_BUDGET, || {
        modules::declare_script(ctx, src, text)
            .and_then(|module| module.eval())
            .map(|(_, promise)| promise)
            .catch(ctx)
    });
    match evaluated {
        Ok(promise) => {
            call_hook(ctx, hooks, "watchModule", (promise, script.name.as_str()));
        }
        // A module (or an import of it) that could not be fetched already
        // said why on the console, as browsers do; other errors are the
        // script's own.
        Err(CaughtError::Exception(exception)) if !deadline_passed() => {
            let is_load_error = exception
                .message()
                .is_some_and(|m| m.starts_with(modules::LOAD_FAILURE));
            if !is_load_error {
                call_hook(
                    ctx,
                    hooks,
                    "scriptError",
                    (exception.into_value(), script.name.as_str()),
                );
            }
        }
        Err(e) => console(
            "error",
            &format!("Uncaught {} ({})", describe(&e), script.name),
        ),
    }
}

/// The text of a script, fetched if external; failures go to the console.
fn script_text(source: ScriptSource) -> Option<String> {
    match source {
        ScriptSource::Inline(text) => Some(text),
        ScriptSource::External(url) => match net::get(&url) {
            Ok(response) if response.status < 400 => Some(charset::decode_text(
                &response.body,
                response.content_type(),
            )),
            Ok(response) => {
                console(
                    "error",
                    &format!("Failed to load script {url}: HTTP {}", response.status),
                );
                None
            }
            Err(reason) => {
                console("error", &format!("Failed to load script {url}: {reason}"));
                None
            }
        },
    }
}

/// Call hook `name` with `args`, reporting a throw to the console.
fn call_hook<'js, A: rquickjs::function::IntoArgs<'js>>(
    ctx: &Ctx<'js>,
    hooks: &Object<'js>,
    name: &str,
    args: A,
) -> Option<Value<'js>> {
    let hook = hooks.get::<_, Function>(name).ok()?;
    let called = with_deadline(SCRIPT_BUDGET, || {
        hook.call::<_, Value>(args)
            .catch(ctx)
            .map_err(|e| describe(&e))
    });
    match called {
        Ok(value) => Some(value),
        Err(message) => {
            console("error", &format!("Uncaught {message}"));
            None
        }
    }
}

/// Run the page's classic scripts (blocking ones in document order, then
/// `async`, then `defer`), fire `DOMContentLoaded` and `load`, then pump the
/// event loop. Script errors go to the console; nothing here fails the load.
pub(crate) fn run_page_scripts() -> Settle {
    let scripts = tab::try_with_tab(|tab| collect_scripts(tab.document())).unwrap_or_default();
    if scripts.is_empty() {
        return Settle::Settled;
    }
    let (context, hooks) = match realm() {
        Ok(realm) => realm,
        Err(message) => {
            console("error", &message);
            return Settle::Settled;
        }
    };
    let mut ordered: Vec<Script> = Vec::with_capacity(scripts.len());
    let mut rest = scripts;
    for timing in [Timing::Blocking, Timing::Async, Timing::Deferred] {
        let (now, later): (Vec<Script>, Vec<Script>) =
            rest.into_iter().partition(|s| s.timing == timing);
        ordered.extend(now);
        rest = later;
    }
    with_deadline(LOAD_BUDGET, || {
        context.with(|ctx| {
            let Ok(hooks) = hooks.clone().restore(&ctx) else {
                return Settle::Settled;
            };
            call_hook(&ctx, &hooks, "startLoad", ());
            let mut parsed = false;
            for script in ordered {
                if !parsed && script.timing != Timing::Blocking {
                    // The parser is done: `interactive`, then async and deferred scripts.
                    call_hook(&ctx, &hooks, "parsed", ());
                    parsed = true;
                }
                match script.kind {
                    Kind::Module => {
                        run_module(&ctx, &hooks, &script);
                        drain_jobs(&ctx);
                        end_task(&ctx, &hooks);
                        continue;
                    }
                    Kind::ImportMap => {
                        if let ScriptSource::Inline(text) = &script.source {
                            modules::set_import_map(text);
                        }
                        continue;
                    }
                    Kind::Classic => {}
                }
                let Some(text) = script_text(script.source) else {
                    continue;
                };
                // A blocking script sees the document as parsed so far: what
                // follows it is detached while it runs, then put back.
                let hidden = (script.timing == Timing::Blocking)
                    .then(|| {
                        tab::try_with_tab(|tab| tab::hide_following(tab.document(), script.node))
                    })
                    .flatten();
                call_hook(
                    &ctx,
                    &hooks,
                    "setCurrentScript",
                    (Some(from_id(script.node)),),
                );
                run_script(&ctx, &hooks, &text, &script.name);
                if script.timing == Timing::Blocking {
                    call_hook(&ctx, &hooks, "flushWrites", ());
                }
                call_hook(&ctx, &hooks, "setCurrentScript", (None::<f64>,));
                if let Some(hidden) = hidden {
                    tab::try_with_tab(|tab| tab::reveal(tab.document(), hidden));
                    call_hook(&ctx, &hooks, "upgradePending", ());
                }
                drain_jobs(&ctx);
                end_task(&ctx, &hooks);
            }
            if !parsed {
                call_hook(&ctx, &hooks, "parsed", ());
            }
            call_hook(&ctx, &hooks, "fireLoad", ());
            drain_jobs(&ctx);
            pump(&ctx, &hooks)
        })
    })
}

/// Run an input hook of the prelude (`userClick`, `userType`, ...) and pump
/// the event loop. The hook returns `null`, or a message saying why the
/// action is not possible, which becomes the error.
pub(crate) fn input_hook<A>(name: &str, args: A) -> Result<(), String>
where
    A: for<'js> rquickjs::function::IntoArgs<'js>,
{
    let (context, hooks) = realm()?;
    let outcome = with_deadline(INPUT_BUDGET, || {
        context.with(|ctx| -> Result<Settle, String> {
            let hooks = hooks.restore(&ctx).map_err(|e| e.to_string())?;
            let hook = hooks
                .get::<_, Function>(name)
                .map_err(|e| format!("the input hook {name} is missing: {e}"))?;
            let refused = with_deadline(SCRIPT_BUDGET, || {
                hook.call::<_, Option<String>>(args)
                    .catch(&ctx)
                    .map_err(|e| describe(&e))
            });
            let refused = match refused {
                Ok(refused) => refused,
                Err(message) => {
                    console("error", &format!("Uncaught {message}"));
                    None
                }
            };
            drain_jobs(&ctx);
            let settle = pump(&ctx, &hooks);
            match refused {
                Some(reason) => Err(reason),
                None => Ok(settle),
            }
        })
    });
    let settle = outcome?;
    tab::try_with_tab(|tab| tab.settle = settle);
    Ok(())
}

/// A traversal within the document moved from `from` to `to`: fire
/// `popstate` (and `hashchange` when only the fragment changed) and pump.
pub(crate) fn traversed(from: &str, to: &str, state: Option<&str>) -> Settle {
    let Ok((context, hooks)) = realm() else {
        return Settle::Settled;
    };
    with_deadline(INPUT_BUDGET, || {
        context.with(|ctx| {
            let Ok(hooks) = hooks.restore(&ctx) else {
                return Settle::Settled;
            };
            call_hook(&ctx, &hooks, "traversed", (from, to, state));
            drain_jobs(&ctx);
            pump(&ctx, &hooks)
        })
    })
}

/// Run tasks and timers due within `page_ms` of page time until `holds()`
/// (checked before the first task and after each), or with no condition
/// until the time is up, which then moves the page's clock to its end.
/// Returns whether the wait was satisfied, and how the loop ended.
pub(crate) fn wait_until(
    page_ms: f64,
    has_condition: bool,
    mut holds: impl FnMut() -> bool,
) -> (bool, Settle) {
    if has_condition && holds() {
        return (true, Settle::Settled);
    }
    // A document without scripts has nothing to run: only its clock moves.
    let existing = ENV.with(|env| {
        env.borrow()
            .as_ref()
            .map(|env| (env.context.clone(), env.hooks.clone()))
    });
    let Some((context, hooks)) = existing else {
        return (!has_condition, Settle::Settled);
    };
    with_deadline(EVAL_BUDGET, || {
        context.with(|ctx| {
            let Ok(hooks) = hooks.restore(&ctx) else {
                return (!has_condition && holds(), Settle::Settled);
            };
            end_task(&ctx, &hooks);
            let limit = timer_limit(&hooks, page_ms);
            loop {
                if deadline_passed() {
                    return (false, Settle::Budget);
                }
                if run_next_task(&ctx, &hooks, limit) == Ran::Nothing {
                    break;
                }
                if has_condition && holds() {
                    return (true, pending_settle(&hooks));
                }
            }
            if has_condition {
                return (false, pending_settle(&hooks));
            }
            // The wait took its whole time, whatever ran in it.
            call_hook(&ctx, &hooks, "advanceClock", (limit,));
            (true, pending_settle(&hooks))
        })
    })
}

/// `Quiet` when timers are still pending, else `Settled`.
fn pending_settle(hooks: &Object<'_>) -> Settle {
    let pending = hooks
        .get::<_, Function>("pendingTimers")
        .and_then(|f| f.call::<_, u32>(()))
        .unwrap_or(0);
    if pending > 0 {
        Settle::Quiet
    } else {
        Settle::Settled
    }
}

/// `evaluate`: run `script` as global code, await a returned promise, and
/// return the completion value as JSON.
pub(crate) fn evaluate(script: &str) -> Result<String, EvalError> {
    let (context, hooks) = realm().map_err(EvalError::Exception)?;
    with_deadline(EVAL_BUDGET, || {
        context.with(|ctx| {
            let hooks = hooks
                .restore(&ctx)
                .map_err(|e| EvalError::Exception(e.to_string()))?;
            let result = eval_classic(&ctx, script, "evaluate")
                .map_err(EvalError::Exception)
                .and_then(|value| settle(&ctx, &hooks, value))
                .and_then(|value| to_json(&ctx, value))
                // Whatever the script was doing, the budget is why it stopped.
                .map_err(|e| match e {
                    EvalError::Exception(m) if deadline_passed() => EvalError::Timeout(m),
                    other => other,
                });
            // Finish what the script started in IndexedDB (not its timers), so
            // its writes are committed when the host checkpoints after the call.
            run_tasks(&ctx, &hooks, -1.0, usize::MAX);
            result
        })
    })
}

/// If `value` is a promise, run jobs and timers until it settles.
fn settle<'js>(
    ctx: &Ctx<'js>,
    hooks: &Object<'js>,
    value: Value<'js>,
) -> Result<Value<'js>, EvalError> {
    let Some(promise) = value.as_promise().cloned() else {
        drain_jobs(ctx);
        return Ok(value);
    };
    // Whether code ran since the last task ended (the script itself at first).
    let mut task_open = true;
    let limit = timer_limit(hooks, EVAL_TIMER_HORIZON_MS);
    loop {
        if let Some(result) = promise.result::<Value>() {
            return result
                .catch(ctx)
                .map_err(|e| EvalError::Exception(describe(&e)));
        }
        if deadline_passed() {
            return Err(EvalError::Exception(
                "the script ran past its time budget and was stopped".to_owned(),
            ));
        }
        if ctx.execute_pending_job() {
            task_open = true;
            continue;
        }
        if task_open {
            end_task(ctx, hooks);
            task_open = false;
        }
        if run_next_task(ctx, hooks, limit) == Ran::Nothing {
            return Err(EvalError::Exception(
                "the returned promise never settled (nothing left to run)".to_owned(),
            ));
        }
    }
}

/// `JSON.stringify` of the value; `undefined` is `null`.
fn to_json<'js>(ctx: &Ctx<'js>, value: Value<'js>) -> Result<String, EvalError> {
    if value.is_undefined() {
        return Ok("null".to_owned());
    }
    let type_name = value.type_name();
    match ctx.json_stringify(value).catch(ctx) {
        Ok(Some(json)) => json
            .to_string()
            .map_err(|e| EvalError::Unserializable(e.to_string())),
        Ok(None) => Err(EvalError::Unserializable(format!(
            "a value of type {type_name} has no JSON representation"
        ))),
        Err(e) => Err(EvalError::Unserializable(describe(&e))),
    }
}
