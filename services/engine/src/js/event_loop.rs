//! The event loop: promise jobs, other tasks (IndexedDB) and timers, run on
//! the page's virtual clock up to a horizon, within the time budgets.

use std::time::Instant;

use rquickjs::{CatchResultExt, Ctx, Function, Object};

use super::console::console;
use super::{
    LOAD_TIMER_HORIZON_MS, MAX_LOAD_TIMERS, SCRIPT_BUDGET, deadline_passed, describe,
    pending_settle, with_deadline,
};
use crate::bindings::exports::fleet::engine::page::Settle;

/// Other tasks (IndexedDB requests and events) run after load or after an
/// `evaluate`, at most; a page filling a database issues one per record, so
/// this is far above the timer cap. The time budgets bound them too.
const MAX_TASKS: usize = 100_000;

/// Microtasks drained in one go, at most.
const MAX_JOBS: usize = 100_000;

/// Run queued promise jobs until none are left (bounded).
pub(super) fn drain_jobs(ctx: &Ctx<'_>) {
    for _ in 0..MAX_JOBS {
        if deadline_passed() || !ctx.execute_pending_job() {
            break;
        }
    }
}

/// End the current task: call the prelude's `endTask` hook (IndexedDB
/// transactions go inactive and, with nothing left to do, commit).
pub(super) fn end_task(ctx: &Ctx<'_>, hooks: &Object<'_>) {
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
pub(super) enum Ran {
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
pub(super) fn timer_limit(hooks: &Object<'_>, horizon_ms: f64) -> f64 {
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
pub(super) fn run_next_task(ctx: &Ctx<'_>, hooks: &Object<'_>, limit: f64) -> Ran {
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
/// [`MAX_TASKS`] other tasks, or the deadline. Says how the loop ended:
/// `Budget` only when the deadline stopped it.
pub(super) fn run_tasks(
    ctx: &Ctx<'_>,
    hooks: &Object<'_>,
    horizon_ms: f64,
    max_timers: usize,
) -> Settle {
    // Whatever ran before (a script, its promise jobs) is over.
    end_task(ctx, hooks);
    // The horizon counts from now, not from the realm's start: timers a
    // click starts long after the load still run within its quiet period.
    // Page time is real time plus what the pump skipped, and only the skips
    // count against the horizon: the quiet period is the page's own waits,
    // not the time QuickJS takes to run what fills them (several times a
    // JIT's), or a chain of timers with work in each (MathJax typesetting
    // in chunks) would get through less of itself than in a browser.
    let limit = timer_limit(hooks, horizon_ms);
    let started = Instant::now();
    let (mut timers, mut tasks) = (0, 0);
    loop {
        if deadline_passed() {
            return Settle::Budget;
        }
        let limit = if limit < 0.0 {
            limit
        } else {
            limit + started.elapsed().as_secs_f64() * 1_000.0
        };
        match run_next_task(ctx, hooks, limit) {
            Ran::Nothing => break,
            // Past a cap the page is looping on timers or tasks (a retry
            // with `setTimeout(f, 0)`, a `setInterval(f, 0)`): what was due
            // ran, no script was stopped, and the loop goes on in the
            // browser too, so the page is quiet, not out of budget.
            Ran::Timer => {
                timers += 1;
                if timers >= max_timers {
                    return Settle::Quiet;
                }
            }
            Ran::Task => {
                tasks += 1;
                if tasks >= MAX_TASKS {
                    return Settle::Quiet;
                }
            }
        }
    }
    pending_settle(hooks)
}

/// Pump the event loop after an action: tasks and timers within the quiet
/// period, then what IndexedDB still has queued.
pub(super) fn pump(ctx: &Ctx<'_>, hooks: &Object<'_>) -> Settle {
    let settle = run_tasks(ctx, hooks, LOAD_TIMER_HORIZON_MS, MAX_LOAD_TIMERS);
    // Past the timer cap, still finish what IndexedDB has queued.
    let rest = run_tasks(ctx, hooks, -1.0, usize::MAX);
    match (settle, rest) {
        (Settle::Budget, _) | (_, Settle::Budget) => Settle::Budget,
        (settle, _) => settle,
    }
}
