//! Frame realms: a realm for each frame whose scripts run (same-origin frames
//! with scripts, at load), whose window the page's scripts reach, or that an
//! agent evaluates in. Each is a QuickJS context of the page's runtime (one
//! heap limit, stack limit and deadline for the page and its frames) with the
//! natives and preludes of a page's realm; the natives act on the frame's
//! document because they look up the realm they run in
//! (`natives::realm_path`). The frame's `parent`, `top` and `frameElement`
//! lead into its parent's realm, and the parent's `contentWindow` is this
//! realm's global object, as between same-origin documents in a browser.
//!
//! A realm is made for one document of the frame: a frame that loads another
//! gets a new realm when next reached. Realms live until the page's document
//! goes (a context may only be freed outside the runtime's lock, which a
//! realm made while a script runs is inside of).

use std::cell::RefCell;
use std::ptr::NonNull;

use blitz_dom::NodeId;
use rquickjs::{CatchResultExt, Context, Ctx, Function, Object, Persistent, Runtime, Value, qjs};

use super::event_loop::{drain_jobs, pump, run_tasks, timer_limit};
use super::{EVAL_BUDGET, MAX_LOAD_TIMERS, call_hook, describe, natives, realm, with_deadline};
use crate::bindings::exports::fleet::engine::page::EvalError;
use crate::frames::{self as tree, Path};
use crate::state;

/// Most frame realms one document may have: each costs what a page's realm
/// costs (its preludes, a few MiB of the page's heap).
const MAX_FRAME_REALMS: usize = 16;

/// A frame's realm, for the document it was made for.
struct FrameRealm {
    path: Path,
    /// The address of that document.
    doc: usize,
    handle: Handle,
}

/// What callers use of a frame realm.
#[derive(Clone)]
pub(super) struct Handle {
    pub(super) context: Context,
    pub(super) hooks: Persistent<Object<'static>>,
    pub(super) global: Persistent<Object<'static>>,
}

thread_local! {
    static FRAMES: RefCell<Vec<FrameRealm>> = const { RefCell::new(Vec::new()) };
    /// Contexts whose preludes failed, freed with the rest.
    static FAILED: RefCell<Vec<Context>> = const { RefCell::new(Vec::new()) };
}

/// Free every frame realm (the page's document goes; before its runtime).
pub(super) fn drop_all() {
    let realms = FRAMES.with(|f| std::mem::take(&mut *f.borrow_mut()));
    let failed = FAILED.with(|f| std::mem::take(&mut *f.borrow_mut()));
    drop(realms);
    drop(failed);
}

/// The realm of the frame at `path`, made (with its parent frames' realms)
/// if it has none for its current document. `ctx` is a realm of the page's
/// runtime, whose lock the caller holds.
pub(super) fn frame_realm(ctx: &Ctx<'_>, path: &[NodeId]) -> Result<Handle, String> {
    let Some((&element, parent)) = path.split_last() else {
        return Err("the page's own realm is not a frame's".to_owned());
    };
    let doc = doc_key(path).ok_or_else(|| "the frame has no document".to_owned())?;
    let found = FRAMES.with(|f| {
        f.borrow()
            .iter()
            .find(|r| r.path == path && r.doc == doc)
            .map(|r| r.handle.clone())
    });
    if let Some(found) = found {
        return Ok(found);
    }
    if FRAMES.with(|f| f.borrow().len()) >= MAX_FRAME_REALMS {
        return Err(format!(
            "the page already has {MAX_FRAME_REALMS} frame realms, the most one page may have"
        ));
    }
    let parent_hooks = if parent.is_empty() {
        realm::existing()
            .ok_or_else(|| "the page has no realm".to_owned())?
            .1
    } else {
        frame_realm(ctx, parent)?.hooks
    };
    let runtime = realm::runtime().ok_or_else(|| "the page has no runtime".to_owned())?;
    let (context, frame_ctx) = new_context(ctx, runtime)?;
    natives::register_frame_realm(&frame_ctx, path.to_vec());
    let built = build(&frame_ctx, parent_hooks, element);
    drop(frame_ctx);
    match built {
        Ok((hooks, global)) => {
            let handle = Handle {
                context,
                hooks,
                global,
            };
            FRAMES.with(|f| {
                f.borrow_mut().push(FrameRealm {
                    path: path.to_vec(),
                    doc,
                    handle: handle.clone(),
                });
            });
            Ok(handle)
        }
        Err(message) => {
            FAILED.with(|f| f.borrow_mut().push(context));
            Err(format!("the frame's realm could not be made: {message}"))
        }
    }
}

/// The address of the document the frame at `path` shows now, which tells
/// a realm's document from a later one.
fn doc_key(path: &[NodeId]) -> Option<usize> {
    tree::with_frame_doc(path, |d| std::ptr::from_ref(d) as usize)
}

type Saved = (Persistent<Object<'static>>, Persistent<Object<'static>>);

/// Run the preludes in the new realm and tie it to its parent.
fn build<'js>(
    ctx: &Ctx<'js>,
    parent_hooks: Persistent<Object<'static>>,
    element: NodeId,
) -> Result<Saved, String> {
    let failed = |e: rquickjs::Error| e.to_string();
    let hooks = realm::build(ctx)?;
    if !realm::begin(ctx, &hooks)? {
        return Err("the frame's realm did not wrap the frame's document".to_owned());
    }
    let parent_hooks = parent_hooks.restore(ctx).map_err(failed)?;
    let parent_window: Object = parent_hooks.get("global").map_err(failed)?;
    let internals: Object = parent_hooks.get("internals").map_err(failed)?;
    let wrap: Function = internals.get("wrap").map_err(failed)?;
    let frame_element: Value = wrap
        .call((natives::from_id(element),))
        .catch(ctx)
        .map_err(|e| describe(&e))?;
    let set_frame: Function = hooks.get("setFrame").map_err(failed)?;
    set_frame
        .call::<_, ()>((parent_window, frame_element))
        .catch(ctx)
        .map_err(|e| describe(&e))?;
    Ok((
        Persistent::save(ctx, hooks),
        Persistent::save(ctx, ctx.globals()),
    ))
}

#[allow(unsafe_code)]
fn new_context<'js>(ctx: &Ctx<'js>, runtime: Runtime) -> Result<(Context, Ctx<'js>), String> {
    // SAFETY: `ctx` is live and its runtime is locked by the caller (a `Ctx`
    // only exists inside `Context::with`), which `JS_NewContext` needs; it
    // returns a context holding one reference, or null when out of memory.
    // That reference goes to the `Context`, which frees it when dropped
    // (`drop_all`, outside any lock); `runtime` is the runtime the context
    // was made in, as `Context::from_raw` requires. `Ctx::from_raw` takes a
    // second reference under the same lock, given back when the `Ctx` drops.
    unsafe {
        let rt = qjs::JS_GetRuntime(ctx.as_raw().as_ptr());
        let raw = NonNull::new(qjs::JS_NewContext(rt))
            .ok_or_else(|| "out of memory for a frame's realm".to_owned())?;
        let context = Context::from_raw(raw, runtime);
        let frame_ctx: Ctx<'js> = Ctx::from_raw(raw);
        Ok((context, frame_ctx))
    }
}

/// Run the frame realms' promise jobs, tasks and timers up to their quiet
/// period, after an action on the page: a frame's timers keep running as the
/// page's do.
pub(super) fn pump_all() {
    for_each_live(|ctx, hooks| {
        drain_jobs(ctx);
        pump(ctx, hooks);
    });
}

/// Let `page_ms` of page time pass in every frame realm, as a wait on the
/// page does: their timers due within it run, and their clocks move on.
pub(super) fn wait_all(page_ms: f64) {
    for_each_live(|ctx, hooks| {
        drain_jobs(ctx);
        let limit = timer_limit(hooks, page_ms);
        run_tasks(ctx, hooks, page_ms, MAX_LOAD_TIMERS);
        call_hook(ctx, hooks, "advanceClock", (limit,));
    });
}

/// Run `f` in each frame realm whose frame still shows the document the
/// realm was made for (one that has gone or loaded another is left alone).
fn for_each_live(f: impl for<'js> Fn(&Ctx<'js>, &Object<'js>)) {
    let live: Vec<Handle> = FRAMES.with(|frames| {
        frames
            .borrow()
            .iter()
            .filter(|r| doc_key(&r.path) == Some(r.doc))
            .map(|r| r.handle.clone())
            .collect()
    });
    for realm in live {
        realm.context.with(|ctx| {
            if let Ok(hooks) = realm.hooks.restore(&ctx) {
                f(&ctx, &hooks);
            }
        });
    }
}

/// Export `frame-evaluate`: `evaluate` in the realm of the frame `id` names.
pub(crate) fn evaluate(id: &str, script: &str) -> Result<String, EvalError> {
    let path = state::with_document(|doc| {
        let path = tree::path_of(doc, id)?;
        match tree::read_doc_at(doc, &path, |_| ()) {
            Some(()) => Ok(path),
            None => Err(format!("frame {id} has no document (it loaded none)")),
        }
    })
    .map_err(EvalError::NoFrame)?;
    let (main, _) = realm::realm().map_err(EvalError::Exception)?;
    let handle = with_deadline(EVAL_BUDGET, || main.with(|ctx| frame_realm(&ctx, &path)))
        .map_err(EvalError::Exception)?;
    super::evaluate_in(&handle.context, &handle.hooks, script)
}
