//! Native functions for the web platform beyond the tree (`web.js`, `input.js`
//! and the prelude's focus, style and history code): HTTP through the host
//! import, `document.cookie`, navigation and history, dialogs, focus,
//! computed style, node cloning, text encodings and randomness.

use blitz_dom::node::{NodeData, SpecialElementData};
use rquickjs::function::Opt;
use rquickjs::{ArrayBuffer, Ctx, Exception, Function, Object, Result, TypedArray};
use style::properties::{
    PropertyDeclaration, PropertyDeclarationId, PropertyId, SourcePropertyDeclaration,
};
use style::shared_lock::ToCssWithGuard as _;
use style::stylesheets::{CssRuleType, UrlExtraData};
use url::Url;

use super::natives::{from_id, live, with_doc, with_tab};
use crate::bindings::fleet::engine::network;
use crate::navigation::{Pending, Request};
use crate::{cssparse, inspect, net};

/// Largest `history.state` once serialized: states stay in the tab's memory
/// for every history entry.
const MAX_HISTORY_STATE_BYTES: usize = 1024 * 1024;

/// The bytes of a `Uint8Array`, copied.
fn bytes(array: &TypedArray<'_, u8>) -> Vec<u8> {
    #[allow(unsafe_code)]
    // SAFETY: the guest is single-threaded and nothing runs JavaScript while
    // the slice is alive (it is copied at once), so the buffer can be neither
    // detached nor resized under it.
    let slice = unsafe { array.as_bytes() };
    slice.map(<[u8]>::to_vec).unwrap_or_default()
}

/// Whether `name: value` is a declaration Stylo accepts (all of `value`).
fn declaration_parses(name: &str, value: &str) -> bool {
    let Ok(url) = Url::parse(crate::tab::INLINE_URL) else {
        return false;
    };
    let url_data = UrlExtraData(style::servo_arc::Arc::new(url));
    let context = cssparse::author_context(&url_data, CssRuleType::Style);
    let Ok(property) = PropertyId::parse(name, &context) else {
        return false;
    };
    let mut parser = cssparser::Parser::new(value);
    let mut declarations = SourcePropertyDeclaration::default();
    PropertyDeclaration::parse_into(&mut declarations, property, &context, &mut parser).is_ok()
        && parser.expect_exhausted().is_ok()
}

/// Whether a URL is one cookies belong to.
fn cookie_url(url: &str) -> Option<String> {
    let parsed = Url::parse(url).ok()?;
    matches!(parsed.scheme(), "http" | "https").then(|| parsed.to_string())
}

/// Add the web natives to `native`.
pub(super) fn install<'js>(ctx: &Ctx<'js>, native: &Object<'js>) -> Result<()> {
    macro_rules! def {
        ($name:literal, $f:expr) => {
            native.set($name, Function::new(ctx.clone(), $f)?)?;
        };
    }

    // --- HTTP ---
    // One request through the host (synchronously: the prelude turns it into
    // a task). Throws a TypeError with the host's reason on network failure.
    // With `follow` false a redirect comes back as it is, for the prelude to
    // check and follow (`fetch`, XHR); by default the host follows it.
    def!("httpFetch", |ctx: Ctx<'js>,
                       method: String,
                       url: String,
                       headers: Vec<Vec<String>>,
                       body: Option<TypedArray<'js, u8>>,
                       credentials: bool,
                       follow: Opt<bool>|
     -> Result<Object<'js>> {
        let headers = headers
            .into_iter()
            .filter_map(|pair| {
                let mut pair = pair.into_iter();
                Some((pair.next()?, pair.next()?))
            })
            .collect();
        let body = body.as_ref().map(bytes);
        let hops = if follow.0.unwrap_or(true) {
            net::Hops::Host
        } else {
            net::Hops::Guest
        };
        let response = net::fetch_with(&method, &url, headers, body, credentials, hops)
            .map_err(|reason| Exception::throw_type(&ctx, &reason))?;
        let out = Object::new(ctx.clone())?;
        out.set("status", response.status)?;
        out.set("url", response.url)?;
        let headers: Vec<Vec<String>> = response
            .headers
            .into_iter()
            .map(|(k, v)| vec![k.to_ascii_lowercase(), v])
            .collect();
        out.set("headers", headers)?;
        out.set("body", ArrayBuffer::new(ctx.clone(), response.body)?)?;
        Ok(out)
    });

    // --- cookies ---
    def!("documentCookies", |ctx: Ctx<'js>| -> Result<String> {
        let url = with_tab(&ctx, |tab| Ok(tab.url.clone()))?;
        Ok(cookie_url(&url)
            .map(|url| network::document_cookies(&url))
            .unwrap_or_default())
    });
    def!("setDocumentCookie", |ctx: Ctx<'js>,
                               cookie: String|
     -> Result<()> {
        let url = with_tab(&ctx, |tab| Ok(tab.url.clone()))?;
        if let Some(url) = cookie_url(&url) {
            network::set_document_cookie(&url, &cookie);
        }
        Ok(())
    });

    // --- navigation and history ---
    def!("navigate", |ctx: Ctx<'js>,
                      url: String,
                      method: String,
                      body: Option<String>,
                      content_type: Option<String>,
                      replace: bool|
     -> Result<()> {
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
            }));
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

    // --- focus ---
    def!("focus", |ctx: Ctx<'js>, id: f64| -> Result<bool> {
        with_doc(&ctx, |doc| {
            Ok(live(doc, id).is_some_and(|id| doc.set_focus_to(id)))
        })
    });
    def!("blur", |ctx: Ctx<'js>| -> Result<()> {
        with_doc(&ctx, |doc| {
            doc.clear_focus();
            Ok(())
        })
    });

    // --- form controls (live state, see forms.rs) ---
    def!("controlValue", |ctx: Ctx<'js>,
                          id: f64|
     -> Result<Option<String>> {
        with_doc(&ctx, |doc| {
            Ok(live(doc, id).and_then(|id| crate::forms::live_value(doc, id)))
        })
    });
    def!("setControlValue", |ctx: Ctx<'js>,
                             id: f64,
                             value: String|
     -> Result<bool> {
        with_doc(&ctx, |doc| {
            Ok(live(doc, id).is_some_and(|id| crate::forms::set_live_value(doc, id, &value)))
        })
    });
    def!("controlChecked", |ctx: Ctx<'js>,
                            id: f64|
     -> Result<Option<bool>> {
        with_doc(&ctx, |doc| {
            Ok(live(doc, id).and_then(|id| crate::forms::live_checked(doc, id)))
        })
    });
    def!("setControlChecked", |ctx: Ctx<'js>,
                               id: f64,
                               checked: bool|
     -> Result<bool> {
        with_doc(&ctx, |doc| {
            Ok(live(doc, id).is_some_and(|id| crate::forms::set_live_checked(doc, id, checked)))
        })
    });
    def!("doctype", |ctx: Ctx<'js>| -> Result<Option<String>> {
        with_tab(&ctx, |tab| Ok(tab.doctype.clone()))
    });

    // --- style ---
    // The rules of the stylesheet an element (`<style>`, `<link>`) gives the
    // document, each serialized by Stylo; null when it gives none (yet).
    def!("sheetRules", |ctx: Ctx<'js>,
                        id: f64|
     -> Result<Option<Vec<String>>> {
        with_doc(&ctx, |doc| {
            let Some(node) = live(doc, id).and_then(|id| doc.get_node(id)) else {
                return Ok(None);
            };
            let Some(SpecialElementData::Stylesheet(sheet)) =
                node.element_data().map(|el| &el.special_data)
            else {
                return Ok(None);
            };
            let guard = doc.guard().read();
            let contents = sheet.0.contents.read_with(&guard);
            let rules = contents.rules.read_with(&guard);
            Ok(Some(
                rules
                    .0
                    .iter()
                    .map(|rule| rule.to_css_string(&guard).to_string())
                    .collect(),
            ))
        })
    });
    // Whether an element (`<style>`, `<link>`) gives the document a stylesheet.
    def!("hasSheet", |ctx: Ctx<'js>, id: f64| -> Result<bool> {
        with_doc(&ctx, |doc| {
            Ok(live(doc, id)
                .and_then(|id| doc.get_node(id))
                .and_then(|n| n.element_data())
                .is_some_and(|el| matches!(el.special_data, SpecialElementData::Stylesheet(_))))
        })
    });
    // `CSS.supports(property, value)`: whether Stylo parses the declaration.
    def!("cssSupports", |name: String, value: String| -> bool {
        declaration_parses(name.trim(), &value)
    });
    // `getComputedStyle(el).getPropertyValue(name)`: the computed value of a
    // longhand as Stylo serializes it; `None` for unknown or shorthand names.
    def!("computedStyle", |ctx: Ctx<'js>,
                           id: f64,
                           name: String|
     -> Result<Option<String>> {
        with_tab(&ctx, |tab| {
            tab.resolve_style();
            let doc = tab.document();
            let Some(node) = live(doc, id).and_then(|id| doc.get_node(id)) else {
                return Ok(None);
            };
            let Ok(property) = PropertyId::parse_enabled_for_all_content(name.trim()) else {
                return Ok(None);
            };
            let Some(longhand) = property.longhand_id() else {
                return Ok(None);
            };
            let id = PropertyDeclarationId::Longhand(longhand);
            if let Some(styles) = node.primary_styles() {
                return Ok(Some(styles.computed_value_to_string(id)));
            }
            // Inside a `display: none` subtree the style traversal stores no
            // style; the computed values exist all the same, resolved on demand.
            Ok(doc
                .resolve_undisplayed_style(node.id)
                .map(|styles| styles.computed_value_to_string(id)))
        })
    });
    // The laid-out box of an element: [width, height (border box), padding
    // left/top/right/bottom, border l/t/r/b, margin l/t/r/b], or nothing when
    // the element (or an ancestor) is `display: none`.
    def!("boxMetrics", |ctx: Ctx<'js>,
                        id: f64|
     -> Result<Option<Vec<f64>>> {
        with_tab(&ctx, |tab| {
            tab.resolve();
            let doc = tab.document();
            let Some(id) = live(doc, id) else {
                return Ok(None);
            };
            let mut current = Some(id);
            while let Some(n) = current.and_then(|c| doc.get_node(c)) {
                if n.primary_styles()
                    .is_some_and(|s| s.clone_display().is_none())
                {
                    return Ok(None);
                }
                current = n.parent;
            }
            let Some(node) = doc.get_node(id) else {
                return Ok(None);
            };
            if node.primary_styles().is_none() {
                return Ok(None);
            }
            let l = node.final_layout();
            let v = |x: f32| f64::from(x);
            Ok(Some(vec![
                v(l.size.width),
                v(l.size.height),
                v(l.padding.left),
                v(l.padding.top),
                v(l.padding.right),
                v(l.padding.bottom),
                v(l.border.left),
                v(l.border.top),
                v(l.border.right),
                v(l.border.bottom),
                v(l.margin.left),
                v(l.margin.top),
                v(l.margin.right),
                v(l.margin.bottom),
            ]))
        })
    });
    def!("elementFromPoint", |ctx: Ctx<'js>,
                              x: f64,
                              y: f64|
     -> Result<Option<f64>> {
        with_tab(&ctx, |tab| {
            tab.resolve();
            Ok(tab
                .document()
                .element_from_point(x as f32, y as f32)
                .map(from_id))
        })
    });

    // --- nodes ---
    def!("cloneNode", |ctx: Ctx<'js>,
                       id: f64,
                       deep: bool|
     -> Result<Option<f64>> {
        with_doc(&ctx, |doc| {
            let Some(id) = live(doc, id) else {
                return Ok(None);
            };
            let Some(node) = doc.get_node(id) else {
                return Ok(None);
            };
            if deep {
                return Ok(Some(from_id(doc.deep_clone_node(id))));
            }
            let clone = match &node.data {
                NodeData::Element(el) => {
                    let (name, attrs) = (el.name.clone(), el.attrs().to_vec());
                    crate::mutation::mutate(doc).create_element(name, attrs)
                }
                NodeData::Text(text) => {
                    let text = text.content.clone();
                    crate::mutation::mutate(doc).create_text_node(&text)
                }
                _ => return Ok(None),
            };
            Ok(Some(from_id(clone)))
        })
    });
    def!("baseUrl", |ctx: Ctx<'js>| -> Result<String> {
        with_tab(&ctx, |tab| {
            let url = tab.url.clone();
            Ok(inspect::base_url_at(tab.document(), Some(&url)).to_string())
        })
    });

    // --- scripts inserted by scripts ---
    // Global code, as a `<script>` runs it (its `let`/`const` are globals);
    // an exception propagates to the caller.
    def!("evalScript", |ctx: Ctx<'js>,
                        source: String,
                        name: String|
     -> Result<()> {
        let mut options = rquickjs::context::EvalOptions::default();
        options.strict = false;
        options.backtrace_barrier = true;
        options.filename = Some(name);
        ctx.eval_with_options::<rquickjs::Value, _>(source, options)?;
        Ok(())
    });
    // A module script inserted by a script: fetched from `src` (absolute)
    // or its inline `text`, evaluated; the promise settles when it has run.
    def!("evalModule", |ctx: Ctx<'js>,
                        src: Option<String>,
                        text: String|
     -> Result<rquickjs::Promise<'js>> {
        let module = super::modules::declare_script(&ctx, src.as_deref(), &text)?;
        let (_, promise) = module.eval()?;
        Ok(promise)
    });

    // --- encodings and randomness ---
    def!("encodeUtf8", |ctx: Ctx<'js>,
                        text: String|
     -> Result<ArrayBuffer<'js>> {
        ArrayBuffer::new(ctx, text.into_bytes())
    });
    def!("decodeText", |ctx: Ctx<'js>,
                        data: TypedArray<'js, u8>,
                        label: String,
                        fatal: bool|
     -> Result<String> {
        let encoding =
            encoding_rs::Encoding::for_label(label.trim().as_bytes()).ok_or_else(|| {
                Exception::throw_range(&ctx, &format!("the encoding '{label}' is not supported"))
            })?;
        let data = bytes(&data);
        if fatal {
            encoding
                .decode_without_bom_handling_and_without_replacement(&data)
                .map(|text| text.into_owned())
                .ok_or_else(|| Exception::throw_type(&ctx, "the encoded data was not valid"))
        } else {
            Ok(encoding.decode_with_bom_removal(&data).0.into_owned())
        }
    });
    def!("randomBytes", |ctx: Ctx<'js>,
                         n: u32|
     -> Result<ArrayBuffer<'js>> {
        let mut buf = vec![0u8; n.min(65_536) as usize];
        getrandom::fill(&mut buf)
            .map_err(|e| Exception::throw_internal(&ctx, &format!("no randomness: {e}")))?;
        ArrayBuffer::new(ctx, buf)
    });
    Ok(())
}
