//! JavaScript: one QuickJS runtime and realm per document.
//!
//! The realm is created on first use (a page without scripts never pays for
//! it) and dropped on every `load`, like a browser navigation; a tab that
//! navigates between scripted pages runs its later documents in one realm
//! that is put back as it was made for each (`realm.rs`, `heap.rs`). DOM bindings are
//! a small layer of native functions over the Blitz document ([`natives`], one
//! file per topic) and a JavaScript prelude (`dom/`, one file per topic) that builds `window`, `document`,
//! elements, events, timers, `location`, `console` and `localStorage` on them;
//! `indexeddb/` adds IndexedDB on top of the prelude, `web/` the network
//! and platform objects, `cssom.js` the style sheets read-only, `canvas.js` a 2D context without pixels, `input.js` what a user's input does, `intl.js`
//! Intl and `regexp.js` RegExp's legacy statics. IndexedDB and Intl's
//! objects are evaluated when a page first uses them (most pages never do).
//! The preludes are compiled once per process (see `realm/preludes.rs`) and
//! kept as bytecode; so are the page scripts the host keeps in its code
//! cache (`code_cache.rs`).
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

mod code_cache;
mod console;
mod event_loop;
mod frames;
mod heap;
mod modules;
mod natives;
mod realm;
mod scripts;

pub(crate) use code_cache::compile_script;
pub(crate) use console::{console, take_console, with_console};
pub(crate) use frames::evaluate as frame_evaluate;
pub(crate) use natives::from_id;
pub(crate) use realm::{compile_all, compile_preludes, make_ahead, prepare};
pub(crate) use scripts::run_page_scripts;

use std::cell::Cell;
use std::time::{Duration, Instant};

use rquickjs::context::EvalOptions;
use rquickjs::{CatchResultExt, CaughtError, Coerced, Ctx, FromJs, Function, Object, Value};

use crate::bindings::exports::fleet::engine::page::{EvalError, Settle};
use crate::state;
use event_loop::{Ran, drain_jobs, end_task, pump, run_next_task, run_tasks, timer_limit};
use realm::realm;

/// Time one page script (or one timer callback) may run. Browsers stop
/// none (Firefox asks the user after 10 s); QuickJS interprets several times
/// slower than a JIT, and rustdoc's search over the standard library's index
/// (one task) takes it 4.1–4.4 s, so 4 s stopped a real page that Chromium
/// finishes in 0.7 s. It stays under the load budget and the default call
/// deadline (10 s), so a runaway script costs the tab seconds, not its life.
const SCRIPT_BUDGET: Duration = Duration::from_secs(6);

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

/// Page milliseconds `evaluate` may skip ahead to settle a promise.
const EVAL_TIMER_HORIZON_MS: f64 = 30_000.0;

/// Timer callbacks run after load, at most (a `setInterval(f, 0)` ends here).
const MAX_LOAD_TIMERS: usize = 200;

thread_local! {
    /// When the running script must stop (read by the interrupt handler).
    static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
    /// Runs cut short by their deadline so far: an action during which this
    /// moved settles as `budget`, wherever the script was stopped (a page's
    /// script during its load, a timer, an event handler).
    static CUT_SHORT: Cell<u64> = const { Cell::new(0) };
}

/// What a script stopped at its deadline reports.
const STOPPED: &str = "the script ran past its time budget and was stopped";

/// Drop the realm and the console entries already reported (on `load`);
/// what the old document logged but no summary reported yet stays.
pub(crate) fn reset() {
    frames::drop_all();
    realm::drop_realm();
    modules::reset();
    natives::forget_retained();
    console::forget_reported();
}

/// Run `f` with the interrupt deadline set `budget` from now (or kept, if an
/// outer caller already set an earlier one).
fn with_deadline<R>(budget: Duration, f: impl FnOnce() -> R) -> R {
    let outer = DEADLINE.with(Cell::get);
    let mine = Instant::now() + budget;
    let deadline = outer.map_or(mine, |outer| outer.min(mine));
    DEADLINE.with(|d| d.set(Some(deadline)));
    let result = f();
    if Instant::now() >= deadline {
        CUT_SHORT.with(|c| c.set(c.get() + 1));
    }
    DEADLINE.with(|d| d.set(outer));
    result
}

/// Runs `f`, and says whether a run inside it was cut short by its deadline:
/// how the event loop ended does not show a script stopped before it (a
/// load's script), or a stopped task that ended the loop early.
fn counting_cuts<R>(f: impl FnOnce() -> R) -> (R, bool) {
    let before = CUT_SHORT.with(Cell::get);
    let out = f();
    (out, CUT_SHORT.with(Cell::get) > before)
}

/// An action's settle: `Budget` when a script in it was cut short.
fn unless_cut(settle: Settle, cut: bool) -> Settle {
    if cut { Settle::Budget } else { settle }
}

fn deadline_passed() -> bool {
    DEADLINE.with(|d| d.get().is_some_and(|deadline| Instant::now() >= deadline))
}

/// Human-readable text of a caught exception.
fn describe(error: &CaughtError<'_>) -> String {
    if deadline_passed() {
        return STOPPED.to_owned();
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
    // Whether the deadline stopped it is known only inside: the outer
    // deadline is back once `with_deadline` returns.
    let result = with_deadline(SCRIPT_BUDGET, || {
        code_cache::eval(ctx, source, options)
            .catch(ctx)
            .map_err(|e| (deadline_passed(), e))
    });
    match result {
        Ok(_) => {}
        Err((false, CaughtError::Exception(exception))) => {
            let reported = call_hook(ctx, hooks, "scriptError", (exception.into_value(), name));
            if reported.is_none() {
                console("error", &format!("Uncaught exception ({name})"));
            }
        }
        Err((true, _)) => console("error", &format!("Uncaught {STOPPED} ({name})")),
        Err((false, e)) => console("error", &format!("Uncaught {} ({name})", describe(&e))),
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

/// Run an input hook of the prelude (`userClick`, `userType`, ...) and pump
/// the event loop. The hook returns `null`, or a message saying why the
/// action is not possible, which becomes the error.
pub(crate) fn input_hook<A>(name: &str, args: A) -> Result<(), String>
where
    A: for<'js> rquickjs::function::IntoArgs<'js>,
{
    let (context, hooks) = realm()?;
    let (outcome, cut) = counting_cuts(|| {
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
        with_deadline(INPUT_BUDGET, frames::pump_all);
        outcome
    });
    let settle = unless_cut(outcome?, cut);
    state::try_with_tab(|tab| tab.settle = settle);
    Ok(())
}

/// A traversal within the document moved from `from` to `to`: fire
/// `popstate` (and `hashchange` when only the fragment changed) and pump.
pub(crate) fn traversed(from: &str, to: &str, state: Option<&str>) -> Settle {
    let Ok((context, hooks)) = realm() else {
        return Settle::Settled;
    };
    let (settle, cut) = counting_cuts(|| {
        with_deadline(INPUT_BUDGET, || {
            let settle = context.with(|ctx| {
                let Ok(hooks) = hooks.restore(&ctx) else {
                    return Settle::Settled;
                };
                call_hook(&ctx, &hooks, "traversed", (from, to, state));
                drain_jobs(&ctx);
                pump(&ctx, &hooks)
            });
            frames::pump_all();
            settle
        })
    });
    unless_cut(settle, cut)
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
    let Some((context, hooks)) = realm::existing() else {
        return (!has_condition, Settle::Settled);
    };
    let ((waited, settle), cut) = counting_cuts(|| {
        with_deadline(EVAL_BUDGET, || {
            let waited = context.with(|ctx| {
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
            });
            if !has_condition {
                frames::wait_all(page_ms);
            }
            waited
        })
    });
    (waited, unless_cut(settle, cut))
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
    evaluate_in(&context, &hooks, script)
}

/// [`evaluate`] in a given realm (the page's, or a frame's).
fn evaluate_in(
    context: &rquickjs::Context,
    hooks: &rquickjs::Persistent<Object<'static>>,
    script: &str,
) -> Result<String, EvalError> {
    let hooks = hooks.clone();
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
