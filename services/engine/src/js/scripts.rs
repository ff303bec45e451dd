//! The page's scripts: which `<script>`s run and when (blocking, `async`,
//! `defer`, modules), then its same-origin frames' scripts (in their realms,
//! `frames.rs`), then `DOMContentLoaded`, `load` and the event loop.

use blitz_dom::{BaseDocument, NodeId};
use rquickjs::{CatchResultExt, CaughtError, Context, Ctx, Object};

use super::console::console;
use super::event_loop::{drain_jobs, end_task, pump};
use super::natives::from_id;
use super::realm::realm;
use super::{
    LOAD_BUDGET, SCRIPT_BUDGET, STOPPED, call_hook, counting_cuts, deadline_passed, describe,
    modules, run_script, unless_cut, with_deadline,
};
use crate::bindings::exports::fleet::engine::page::Settle;
use crate::frames::{self, Path};
use crate::state::Tab;
use crate::{charset, document, inspect, net, state};

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
            .map_err(|e| (deadline_passed(), e))
    });
    match evaluated {
        Ok(promise) => {
            call_hook(ctx, hooks, "watchModule", (promise, script.name.as_str()));
        }
        // A module (or an import of it) that could not be fetched already
        // said why on the console, as browsers do; other errors are the
        // script's own.
        Err((false, CaughtError::Exception(exception))) => {
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
        Err((true, _)) => console("error", &format!("Uncaught {STOPPED} ({})", script.name)),
        Err((false, e)) => console(
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

/// The scripts of a document in the order they run: blocking ones in
/// document order, then `async`, then `defer`.
fn in_run_order(scripts: Vec<Script>) -> Vec<Script> {
    let mut ordered: Vec<Script> = Vec::with_capacity(scripts.len());
    let mut rest = scripts;
    for timing in [Timing::Blocking, Timing::Async, Timing::Deferred] {
        let (now, later): (Vec<Script>, Vec<Script>) =
            rest.into_iter().partition(|s| s.timing == timing);
        ordered.extend(now);
        rest = later;
    }
    ordered
}

/// The same-origin frames with scripts, each after the frames it is in (a
/// frame's realm needs its parent's), at most [`MAX_SCRIPTED_FRAMES`].
fn scripted_frames() -> Vec<Path> {
    let mut found = Vec::new();
    let mut pending: Vec<Path> = vec![Vec::new()];
    while let Some(parent) = pending.pop() {
        let children = frames::with_frame_doc(&parent, |doc| {
            let url = doc.url().clone();
            frames::frame_elements(doc)
                .into_iter()
                .filter_map(|element| {
                    let sub = doc.get_node(element)?.subdoc()?;
                    let sub = sub.inner();
                    frames::same_origin(&url, sub.url())
                        .then(|| (element, !collect_scripts(&sub).is_empty()))
                })
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
        for (element, scripted) in children.into_iter().rev() {
            let mut path = parent.clone();
            path.push(element);
            if scripted && found.len() < MAX_SCRIPTED_FRAMES {
                found.push(path.clone());
            }
            pending.push(path);
        }
    }
    // Depth first, in document order: a parent before what it holds.
    found.sort_by_key(|path| frame_order(path));
    found
}

/// [`scripted_frames`] as the page's scripts left them: a frame element that
/// followed a blocking script was out of the tree while it ran, and Blitz
/// loads its document again when it comes back, which the document takes in
/// with its pending messages (only looked at when the page has frames).
fn frames_after_page_scripts() -> Vec<Path> {
    let has_frames =
        frames::with_frame_doc(&[], |doc| !frames::frame_elements(doc).is_empty()).unwrap_or(false);
    if !has_frames {
        return Vec::new();
    }
    state::try_with_tab(Tab::resolve_style);
    scripted_frames()
}

/// Most frames whose scripts run at load.
const MAX_SCRIPTED_FRAMES: usize = 8;

/// A key that sorts paths depth first in document order (node ids grow in
/// parse order within one document).
fn frame_order(path: &[NodeId]) -> Vec<u64> {
    path.iter().map(|id| id.as_u64()).collect()
}

/// Run a document's scripts in `ctx` (its realm) as the parser meets them,
/// up to the end of parsing (`interactive`); `path` is the frame the
/// document is in (empty: the page's).
fn run_scripts<'js>(ctx: &Ctx<'js>, hooks: &Object<'js>, scripts: Vec<Script>, path: &[NodeId]) {
    call_hook(ctx, hooks, "startLoad", ());
    let mut parsed = false;
    for script in in_run_order(scripts) {
        if !parsed && script.timing != Timing::Blocking {
            // The parser is done: `interactive`, then async and deferred scripts.
            call_hook(ctx, hooks, "parsed", ());
            parsed = true;
        }
        match script.kind {
            Kind::Module if !path.is_empty() => {
                console(
                    "warn",
                    &format!(
                        "the module script {} of a frame was not run: frames run classic scripts",
                        script.name
                    ),
                );
                continue;
            }
            Kind::Module => {
                run_module(ctx, hooks, &script);
                drain_jobs(ctx);
                end_task(ctx, hooks);
                continue;
            }
            Kind::ImportMap => {
                if let (ScriptSource::Inline(text), true) = (&script.source, path.is_empty()) {
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
            .then(|| frames::with_frame_doc(path, |doc| document::hide_following(doc, script.node)))
            .flatten();
        call_hook(
            ctx,
            hooks,
            "setCurrentScript",
            (Some(from_id(script.node)),),
        );
        run_script(ctx, hooks, &text, &script.name);
        if script.timing == Timing::Blocking {
            call_hook(ctx, hooks, "flushWrites", ());
        }
        call_hook(ctx, hooks, "setCurrentScript", (None::<f64>,));
        if let Some(hidden) = hidden {
            frames::with_frame_doc(path, |doc| document::reveal(doc, hidden));
            call_hook(ctx, hooks, "upgradePending", ());
        }
        drain_jobs(ctx);
        end_task(ctx, hooks);
    }
    if !parsed {
        call_hook(ctx, hooks, "parsed", ());
    }
}

/// Load the frame at `path` in its realm: its scripts, its `DOMContentLoaded`
/// and `load`, and its event loop until it is quiet.
fn load_frame(page: &Context, path: &[NodeId]) {
    let realm = page.with(|ctx| super::frames::frame_realm(&ctx, path));
    let realm = match realm {
        Ok(realm) => realm,
        Err(message) => {
            console("error", &message);
            return;
        }
    };
    let scripts = frames::with_frame_doc(path, |doc| collect_scripts(doc)).unwrap_or_default();
    realm.context.with(|ctx| {
        let Ok(hooks) = realm.hooks.clone().restore(&ctx) else {
            return;
        };
        run_scripts(&ctx, &hooks, scripts, path);
        call_hook(&ctx, &hooks, "fireLoad", ());
        drain_jobs(&ctx);
        pump(&ctx, &hooks);
    });
}

/// Run the page's scripts (blocking ones in document order, then `async`,
/// then `defer`), then those of its same-origin frames, fire
/// `DOMContentLoaded` and `load` (the frames' `load` before the page's), then
/// pump the event loop. Script errors go to the console; nothing here fails
/// the load.
pub(crate) fn run_page_scripts() -> Settle {
    let scripts = state::try_with_tab(|tab| collect_scripts(tab.document())).unwrap_or_default();
    // Without page scripts the frames stay as parsed, so one look serves.
    let unscripted_page_frames = if scripts.is_empty() {
        let frames = scripted_frames();
        if frames.is_empty() {
            return Settle::Settled;
        }
        Some(frames)
    } else {
        None
    };
    let (context, hooks) = match realm() {
        Ok(realm) => realm,
        Err(message) => {
            console("error", &message);
            return Settle::Settled;
        }
    };
    let (settle, cut) = counting_cuts(|| {
        with_deadline(LOAD_BUDGET, || {
            context.with(|ctx| {
                if let Ok(hooks) = hooks.clone().restore(&ctx) {
                    run_scripts(&ctx, &hooks, scripts, &[]);
                }
            });
            let frames = unscripted_page_frames.unwrap_or_else(frames_after_page_scripts);
            for path in &frames {
                load_frame(&context, path);
            }
            context.with(|ctx| {
                let Ok(hooks) = hooks.clone().restore(&ctx) else {
                    return Settle::Settled;
                };
                call_hook(&ctx, &hooks, "fireLoad", ());
                drain_jobs(&ctx);
                pump(&ctx, &hooks)
            })
        })
    });
    unless_cut(settle, cut)
}
