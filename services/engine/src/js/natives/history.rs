//! Natives for navigation and history: the navigations a page asks for
//! (carried out when the task is over, see `navigation.rs`), `history` entries
//! and their states, and the dialogs (`alert`, `confirm`, `prompt`) answered
//! by the tab's policy.

use rquickjs::{Ctx, Exception, Function, Object, Result};
use url::Url;

use super::{doc_url, realm_path, with_tab};
use crate::js::console;
use crate::navigation::{Pending, Request};

/// Largest `history.state` once serialized: states stay in the tab's memory
/// for every history entry.
const MAX_HISTORY_STATE_BYTES: usize = 1024 * 1024;

/// Add the history natives to `native`.
pub(super) fn install<'js>(ctx: &Ctx<'js>, native: &Object<'js>) -> Result<()> {
    macro_rules! def {
        ($name:literal, $f:expr) => {
            native.set($name, Function::new(ctx.clone(), $f)?)?;
        };
    }
    // --- navigation and history ---
    def!("navigate", |ctx: Ctx<'js>,
                      url: String,
                      method: String,
                      body: Option<String>,
                      content_type: Option<String>,
                      replace: bool|
     -> Result<()> {
        if in_frame(&ctx, "navigation") {
            return Ok(());
        }
        with_tab(&ctx, |tab| {
            let base = Url::parse(&tab.url).ok();
            let resolved = match &base {
                Some(base) => base.join(url.trim()),
                None => Url::parse(url.trim()),
            }
            .map_err(|e| {
                Exception::throw_syntax(&ctx, &format!("'{url}' is not a valid URL: {e}"))
            })?;
            tab.pending = Some(Pending::Load(Request {
                url: resolved.to_string(),
                method: if method.eq_ignore_ascii_case("post") {
                    "POST".to_owned()
                } else {
                    "GET".to_owned()
                },
                body: body.map(String::into_bytes),
                content_type,
                replace,
                download: None,
            }));
            Ok(())
        })
    });
    // An `<a download>` link: the response is saved for the session, never
    // shown, and the page stays (`input.js` checks the link's origin).
    def!("download", |ctx: Ctx<'js>,
                      url: String,
                      name: String|
     -> Result<()> {
        if in_frame(&ctx, "download") {
            return Ok(());
        }
        with_tab(&ctx, |tab| {
            let mut request = Request::get(url);
            request.download = Some(name);
            tab.pending = Some(Pending::Load(request));
            Ok(())
        })
    });
    def!("historyPush", |ctx: Ctx<'js>,
                         state: Option<String>,
                         url: Option<String>,
                         replace: bool|
     -> Result<String> {
        if state
            .as_ref()
            .is_some_and(|s| s.len() > MAX_HISTORY_STATE_BYTES)
        {
            return Err(Exception::throw_dom(
                &ctx,
                "DataCloneError",
                &format!(
                    "the history state is larger than {} MiB once serialized",
                    MAX_HISTORY_STATE_BYTES / (1024 * 1024)
                ),
            ));
        }
        if in_frame(&ctx, "history entry") {
            return doc_url(&ctx);
        }
        with_tab(&ctx, |tab| {
            let current = Url::parse(&tab.url).ok();
            let next = match (&url, &current) {
                (None, _) => tab.url.clone(),
                (Some(url), Some(current)) => {
                    let next = current.join(url.trim()).map_err(|e| {
                        Exception::throw_dom(
                            &ctx,
                            "SecurityError",
                            &format!("'{url}' is not a valid URL: {e}"),
                        )
                    })?;
                    if next.origin() != current.origin() {
                        return Err(Exception::throw_dom(
                            &ctx,
                            "SecurityError",
                            &format!(
                                "a history entry with URL '{next}' cannot be created in a document with origin '{}'",
                                current.origin().ascii_serialization()
                            ),
                        ));
                    }
                    next.to_string()
                }
                (Some(_), None) => tab.url.clone(),
            };
            tab.history.same_document(&next, state, replace);
            tab.url = next.clone();
            Ok(next)
        })
    });
    def!("historyState", |ctx: Ctx<'js>| -> Result<Option<String>> {
        with_tab(&ctx, |tab| {
            Ok(tab.history.current().and_then(|e| e.state.clone()))
        })
    });
    def!("historyLength", |ctx: Ctx<'js>| -> Result<u32> {
        with_tab(&ctx, |tab| {
            Ok(u32::try_from(tab.history.len()).unwrap_or(u32::MAX))
        })
    });
    // A traversal `delta` entries away, run as a task: within this document
    // it happens here and returns [from, to, state]; to another document it
    // becomes the pending navigation and returns nothing.
    def!("historyTraverse", |ctx: Ctx<'js>,
                             delta: i32|
     -> Result<
        Option<Vec<Option<String>>>,
    > {
        if in_frame(&ctx, "history traversal") {
            return Ok(None);
        }
        with_tab(&ctx, |tab| {
            let Some(current) = tab.history.current().cloned() else {
                return Ok(None);
            };
            let Some((index, entry)) = tab.history.target(delta) else {
                return Ok(None);
            };
            if entry.doc != current.doc {
                tab.pending = Some(Pending::Traverse(delta));
                return Ok(None);
            }
            tab.history.set_index(index);
            tab.url = entry.url.clone();
            Ok(Some(vec![Some(current.url), Some(entry.url), entry.state]))
        })
    });
    def!("historyGo", |ctx: Ctx<'js>, delta: i32| -> Result<()> {
        if in_frame(&ctx, "history traversal") {
            return Ok(());
        }
        with_tab(&ctx, |tab| {
            tab.pending = Some(if delta == 0 {
                Pending::Reload
            } else {
                Pending::Traverse(delta)
            });
            Ok(())
        })
    });

    // --- dialogs ---
    def!("dialog", |ctx: Ctx<'js>,
                    kind: String,
                    message: String,
                    default: String|
     -> Result<Object<'js>> {
        let (accepted, answer) = with_tab(&ctx, |tab| Ok(tab.dialog(&kind, &message, &default)))?;
        let out = Object::new(ctx.clone())?;
        out.set("accepted", accepted)?;
        out.set("answer", answer)?;
        Ok(out)
    });
    Ok(())
}

/// Whether the calling realm is a frame's: frames keep the document they
/// loaded (their navigations and history entries would act on the tab's),
/// which the console says.
fn in_frame(ctx: &Ctx<'_>, what: &str) -> bool {
    if realm_path(ctx).is_empty() {
        return false;
    }
    console(
        "warn",
        &format!("a frame's {what} was ignored: frames keep the document they loaded"),
    );
    true
}
