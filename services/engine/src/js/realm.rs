//! The realm of the current document: a QuickJS runtime with the engine's
//! limits, the natives, and the preludes evaluated in order; the reusable
//! realm a tab keeps for its documents, put back as it was made for each
//! (its heap: `heap.rs`), made before any page in the pre-initialized engine
//! (`make_ahead`) or once a tab navigates. The preludes a realm runs, and
//! their bytecode, are `realm/preludes.rs`.
//! Why QuickJS: docs/decisions/0001-quickjs.md.

use std::cell::{Cell, RefCell};

use rquickjs::{CatchResultExt, Context, Ctx, Function, Object, Persistent, Runtime};

use super::{deadline_passed, describe, heap, modules};

mod preludes;

pub(super) use preludes::{build, in_compile_realm};
pub(crate) use preludes::{compile_all, compile_preludes};

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

/// A realm's runtime, context and hooks. Field order is drop order: the
/// saved hooks and the context must go before the runtime that owns their
/// memory.
struct JsEnv {
    hooks: Persistent<Object<'static>>,
    context: Context,
    runtime: Runtime,
}

/// The realm of a document: one of its own, or the tab's reusable one.
enum Realm {
    Own(JsEnv),
    /// The tab's [`REUSABLE`] realm, which is spent when this goes.
    Reused(Lease),
}

/// A document's use of the reusable realm: when the realm is retired (or
/// not taken after all), it is spent, its heap full of that document's
/// objects until [`heap::put_back`].
struct Lease;

impl Drop for Lease {
    fn drop(&mut self) {
        REUSABLE.with(|reusable| {
            if let Ok(mut reusable) = reusable.try_borrow_mut()
                && let Some(reusable) = reusable.as_mut()
            {
                reusable.state = Use::Spent;
            }
        });
    }
}

/// The realm a tab that navigates keeps for all its later documents: made
/// once, in a heap of its own ([`heap`]) that is saved as soon as the
/// preludes ran and put back in place for each next document. It is as new
/// to that document as a realm made for it (every object, the job queue and
/// the heap's accounting are the saved ones) and costs a copy of ≈2 MiB
/// instead of the preludes' evaluation and a walk of the last heap.
struct Reusable {
    /// Never dropped: the saved heap holds these handles' references.
    env: JsEnv,
    state: Use,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Use {
    /// As saved; no document has it.
    Fresh,
    /// A document's realm.
    Taken,
    /// Its document is gone; to be put back.
    Spent,
}

thread_local! {
    static ENV: RefCell<Option<Realm>> = const { RefCell::new(None) };
    /// The realm of the document a navigation replaced, until [`prepare`]
    /// frees it between calls. At most one: a navigation that finds one
    /// here (the host did not call `prepare`) frees it then.
    static RETIRED: RefCell<Option<Realm>> = const { RefCell::new(None) };
    /// The reusable realm, once made (by [`make_ahead`] in the pre-initialized
    /// engine, by [`prepare`], or by the navigation of a tab never prepared).
    static REUSABLE: RefCell<Option<Reusable>> = const { RefCell::new(None) };
    /// Documents of this tab that had a realm.
    static REALMS: Cell<u32> = const { Cell::new(0) };
}

impl Realm {
    /// The realm's context and hooks, for one js function's use.
    fn handles(&self) -> Option<(Context, Persistent<Object<'static>>)> {
        self.with_env(|env| (env.context.clone(), env.hooks.clone()))
    }

    fn with_env<R>(&self, f: impl FnOnce(&JsEnv) -> R) -> Option<R> {
        match self {
            Realm::Own(env) => Some(f(env)),
            Realm::Reused(_) => {
                REUSABLE.with(|reusable| reusable.borrow().as_ref().map(|r| f(&r.env)))
            }
        }
    }
}

/// Retire the realm of the current document (a new document gets a new
/// one). Freeing a realm is a full collection of its heap, which no caller
/// should wait for: it waits for [`prepare`].
///
/// Navigations (which call this) happen between the js functions that take
/// a realm's handles, never inside one (`tab.rs`), and every handle a js
/// function takes ([`existing`], [`realm`], [`runtime`]) is gone when it
/// returns; frame realms go before this (`js::reset`). So nothing refers to
/// a retired realm but the slot it is kept in, which is what lets the
/// reusable realm be put back once it is retired.
pub(super) fn drop_realm() {
    let env = ENV.with(|env| env.borrow_mut().take());
    let older = RETIRED.with(|retired| retired.replace(env));
    drop(older);
}

/// Export `prepare`: free the retired realm and put the reusable realm back
/// if a document used it; or, once the tab has gone from one page that ran
/// scripts to another and shows one now, make the reusable realm (in an
/// engine that was not pre-initialized, whose tabs do not have it from the
/// start): a tab that navigates is likely to again, and one that stays on
/// its first page never pays the realm and its save (≈4 MiB). [`build`]
/// reads no document, so the realm serves whatever document comes next.
pub(crate) fn prepare() -> Result<(), String> {
    let retired = RETIRED.with(|retired| retired.borrow_mut().take());
    drop(retired);
    match REUSABLE.with(|reusable| reusable.borrow().as_ref().map(|r| r.state)) {
        Some(Use::Spent) => {
            put_back();
            Ok(())
        }
        Some(Use::Fresh | Use::Taken) => Ok(()),
        None => {
            let navigates = REALMS.with(Cell::get) >= 2 && ENV.with(|env| env.borrow().is_some());
            if navigates { make_reusable() } else { Ok(()) }
        }
    }
}

/// Make the reusable realm before the tab has a document: part of
/// `initialize`, so every tab of the pre-initialized engine starts with it
/// made and saved, in memory the tabs share until one writes to it, and its
/// first document takes it instead of making a realm. [`build`] reads no
/// document, so nothing of a page is in it; each document that takes it
/// starts its clock and its `Math.random` batch (`begin`).
pub(crate) fn make_ahead() -> Result<(), String> {
    if REUSABLE.with(|reusable| reusable.borrow().is_some()) {
        return Ok(());
    }
    make_reusable()
}

/// Make the reusable realm in its own heap and save the heap.
fn make_reusable() -> Result<(), String> {
    let runtime = Runtime::new_with_alloc(heap::ReusableHeap)
        .map_err(|e| format!("the JavaScript runtime could not start: {e}"))?;
    match new_env(runtime) {
        Ok(env) => {
            // What the preludes left behind is not saved.
            env.runtime.run_gc();
            heap::save();
            REUSABLE.with(|reusable| {
                *reusable.borrow_mut() = Some(Reusable {
                    env,
                    state: Use::Fresh,
                });
            });
            Ok(())
        }
        Err(e) => {
            // The runtime is gone with `new_env`'s error: its memory is not.
            heap::discard();
            Err(e)
        }
    }
}

/// Put the spent reusable realm back as it was made (see [`drop_realm`] for
/// why nothing refers to what it held).
fn put_back() {
    REUSABLE.with(|reusable| {
        if let Some(reusable) = reusable.borrow_mut().as_mut()
            && reusable.state == Use::Spent
            && heap::put_back()
        {
            reusable.state = Use::Fresh;
        }
    });
}

/// The reusable realm for a new document, put back first if a document used
/// it; none if there is none or the current document has it.
fn take_reusable() -> Option<Realm> {
    // A retired reusable realm is spent once its lease goes.
    let retired = RETIRED.with(|retired| {
        let mut retired = retired.borrow_mut();
        matches!(*retired, Some(Realm::Reused(_)))
            .then(|| retired.take())
            .flatten()
    });
    drop(retired);
    put_back();
    REUSABLE.with(|reusable| {
        let mut reusable = reusable.borrow_mut();
        let reusable = reusable.as_mut().filter(|r| r.state == Use::Fresh)?;
        reusable.state = Use::Taken;
        Some(())
    })?;
    Some(Realm::Reused(Lease))
}

/// The realm of the current document, if one was made.
pub(super) fn existing() -> Option<(Context, Persistent<Object<'static>>)> {
    ENV.with(|env| env.borrow().as_ref().and_then(Realm::handles))
}

/// The page's runtime, if its realm was made (frame realms join it).
pub(super) fn runtime() -> Option<Runtime> {
    ENV.with(|env| {
        env.borrow()
            .as_ref()
            .and_then(|realm| realm.with_env(|env| env.runtime.clone()))
    })
}

/// The realm of the current document, created on first use (or the tab's
/// reusable realm), begun for the document.
pub(super) fn realm() -> Result<(Context, Persistent<Object<'static>>), String> {
    if let Some(found) = existing() {
        return Ok(found);
    }
    let realm = match reused_for_document() {
        Some(realm) => realm,
        None => {
            let env = new_env(
                Runtime::new()
                    .map_err(|e| format!("the JavaScript runtime could not start: {e}"))?,
            )?;
            if !begun(&env)? {
                return Err("a new realm did not wrap its tab's document".to_owned());
            }
            Realm::Own(env)
        }
    };
    let found = realm
        .handles()
        .ok_or_else(|| "the reusable realm is gone".to_owned())?;
    ENV.with(|current| *current.borrow_mut() = Some(realm));
    REALMS.with(|made| made.set(made.get().saturating_add(1)));
    Ok(found)
}

/// The reusable realm, begun for a new document. A tab that navigates and
/// was never prepared (its worker's lanes were all busy after each answer)
/// makes it now, once. None when the tab does not navigate yet, or the
/// realm could not be made or does not fit the document (it is then spent,
/// and put back for the next one).
fn reused_for_document() -> Option<Realm> {
    let navigates = REALMS.with(Cell::get) >= 2;
    if navigates && REUSABLE.with(|reusable| reusable.borrow().is_none()) {
        make_reusable().ok()?;
    }
    take_reusable().filter(|realm| {
        realm
            .with_env(begun)
            .is_some_and(|begun| matches!(begun, Ok(true)))
    })
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

/// A new realm in `runtime`: the engine's limits, the natives and every
/// prelude.
fn new_env(runtime: Runtime) -> Result<JsEnv, String> {
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
#[cfg(test)]
mod tests;
