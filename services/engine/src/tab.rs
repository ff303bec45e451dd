//! The tab: the current document, its URL and source, and the viewport.
//!
//! A component instance is one tab and the host calls one export at a time, so
//! the state is a thread-local `RefCell`. JavaScript bindings reach the document
//! through [`try_with_tab`] while a script runs; no code holds the borrow while
//! calling into JavaScript, so those borrows never collide.
//!
//! The viewport's scroll position lives in the Blitz document (it is what
//! `blitz-paint` offsets the painted viewport by), so a new document starts at
//! the top, as after a navigation.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use blitz_dom::{
    BaseDocument, DocumentConfig, NodeId, Point, ScrollBehavior, StyleThreading,
    UserAgentStylesheet,
};
use blitz_html::{HtmlDocument, HtmlProvider};
use blitz_traits::net::http::StatusCode;
use blitz_traits::shell::{ColorScheme, Viewport};

use crate::bindings::exports::fleet::engine::page::{
    Dialog, DialogPolicy, Settle, Source, Summary, Traversal, WaitError, WaitFor,
};
use crate::navigation::{Commit, History, Pending, Request};
use crate::net::GuestNetProvider;
use crate::{a11y, charset, fonts, forms, inspect, js, media, net, readable, render};

/// The URL given to inline HTML documents (`source::html`).
pub(crate) const INLINE_URL: &str = "https://inline.servo-fleet.invalid/";
/// The URL of the empty document a fresh tab starts with.
const ABOUT_BLANK: &str = "about:blank";
/// Viewport of a fresh tab.
const DEFAULT_VIEWPORT: (u32, u32) = (1280, 720);
/// Largest viewport side: `vello_cpu` addresses pixels with `u16`, and a
/// 4096×4096 RGBA frame is already 64 MiB of guest memory.
const MAX_VIEWPORT_SIDE: u32 = 4096;
/// Cap on the visible text returned by `inspect` (characters).
pub(crate) const MAX_TEXT_CHARS: usize = 20_000;
/// Deepest element nesting kept, as in Blink's HTML parser: deeper content is
/// flattened into the element at this depth. Style, layout and paint recurse
/// once per level at ≈7 KiB of the host's native wasm stack each, so 512 levels
/// need ≈3.5 MiB (the host must allow ≥ 8 MiB, see `js::MAX_STACK`); without a
/// cap a page of a few thousand nested `<div>`s would crash the tab.
const MAX_DOM_DEPTH: usize = 512;
/// Navigations one call follows (a page that keeps redirecting itself with
/// scripts stops here, as browsers stop redirect loops).
const MAX_NAVIGATIONS: usize = 10;
/// Dialogs recorded between two summaries; a page opening dialogs in a loop
/// keeps running (each is answered by the policy) but only these are reported.
const MAX_DIALOGS: usize = 50;
/// A style/layout pass can start new fetches (e.g. CSS background images) whose
/// results only apply on the next pass; this bounds the repeat passes.
const MAX_RESOLVE_PASSES: usize = 4;

/// The state of the tab.
pub(crate) struct Tab {
    /// Viewport width in CSS pixels.
    pub width: u32,
    /// Viewport height in CSS pixels.
    pub height: u32,
    /// The current document (created lazily as `about:blank`).
    doc: Option<BaseDocument>,
    /// The provider that loads the current document's subresources.
    net: Arc<GuestNetProvider>,
    /// The document URL (after redirects).
    pub url: String,
    /// The source of an inline (`source::html`) document, kept for snapshots.
    pub inline_html: Option<Rc<str>>,
    /// Why the last load failed, if it did.
    pub load_error: Option<String>,
    /// The name in the document's `<!DOCTYPE>`, if it has one (Blitz's parser
    /// does not keep the doctype node).
    pub doctype: Option<String>,
    /// The session history.
    pub history: History,
    /// A navigation the page asked for, carried out when the task is over.
    pub pending: Option<Pending>,
    /// How `alert`/`confirm`/`prompt` are answered.
    pub dialog_policy: DialogPolicy,
    /// Dialogs opened since the last summary.
    pub dialogs: Vec<Dialog>,
    /// How the event loop ended after the last action.
    pub settle: Settle,
    /// Whether the viewport changed since the last layout. Blitz applies a new
    /// viewport to the style device only in a full `resolve`, so styles that
    /// depend on it (media queries, `vw`) need one before they can be read.
    device_changed: bool,
    /// What `media::apply` saw last.
    media_seen: media::Seen,
}

impl Tab {
    fn new() -> Self {
        Tab {
            width: DEFAULT_VIEWPORT.0,
            height: DEFAULT_VIEWPORT.1,
            doc: None,
            net: Arc::new(GuestNetProvider::default()),
            url: ABOUT_BLANK.to_owned(),
            inline_html: None,
            load_error: None,
            doctype: None,
            history: History::default(),
            pending: None,
            // Dismissing is the safe answer: `confirm("Delete?")` gets false.
            dialog_policy: DialogPolicy {
                accept: false,
                prompt_text: None,
            },
            dialogs: Vec::new(),
            settle: Settle::Settled,
            device_changed: false,
            media_seen: None,
        }
    }

    /// Answer a dialog by the policy and record it. Returns whether it was
    /// accepted and, for an accepted prompt, the text answered.
    pub fn dialog(&mut self, kind: &str, message: &str, default: &str) -> (bool, Option<String>) {
        let accepted = kind == "alert" || self.dialog_policy.accept;
        let answer = (kind == "prompt" && accepted).then(|| {
            self.dialog_policy
                .prompt_text
                .clone()
                .unwrap_or_else(|| default.to_owned())
        });
        if self.dialogs.len() < MAX_DIALOGS {
            self.dialogs.push(Dialog {
                kind: kind.to_owned(),
                message: message.chars().take(MAX_TEXT_CHARS).collect(),
                accepted,
                answer: answer.clone(),
            });
        }
        (accepted, answer)
    }

    /// The current document; a tab that never loaded anything shows `about:blank`.
    pub fn document(&mut self) -> &mut BaseDocument {
        let (width, height) = (self.width, self.height);
        let net = self.net.clone();
        self.doc
            .get_or_insert_with(|| build_document("", ABOUT_BLANK, width, height, net, false))
    }

    /// Bring style and layout up to date (and apply loaded resources).
    pub fn resolve(&mut self) {
        self.device_changed = false;
        let net = self.net.clone();
        let mut seen = self.media_seen.take();
        let doc = self.document();
        forms::sync_option_states(doc);
        for _ in 0..MAX_RESOLVE_PASSES {
            let before = net.completed();
            doc.handle_messages();
            media::apply(doc, &mut seen);
            doc.resolve(0.0);
            if net.completed() == before {
                break;
            }
        }
        // Content that shrank, or a viewport that grew, leaves less to scroll:
        // browsers pull the scroll position back into range, and so do we.
        let scroll = doc.viewport_scroll();
        if scroll != Point::ZERO {
            scroll_root_to(doc, scroll.x, scroll.y);
        }
        self.media_seen = seen;
    }

    /// Bring computed styles up to date without laying out: enough to read the
    /// page's text, links and fields, which depend on `display` and
    /// `visibility` but not on geometry. Layout waits until something needs it
    /// (a paint, a box, a hit test, a scroll position), as in a browser: on the
    /// bench's table and article pages it was most of the time of a load.
    pub fn resolve_style(&mut self) {
        if self.device_changed {
            return self.resolve();
        }
        let net = self.net.clone();
        let mut seen = self.media_seen.take();
        let doc = self.document();
        for _ in 0..MAX_RESOLVE_PASSES {
            let before = net.completed();
            doc.handle_messages();
            media::apply(doc, &mut seen);
            // What `resolve` checks first: Blitz styles from the root element,
            // and not while render-blocking stylesheets are still loading.
            if doc.try_root_element().is_none() || doc.has_pending_critical_resources() {
                break;
            }
            doc.resolve_stylist(0.0);
            if net.completed() == before {
                break;
            }
        }
        self.media_seen = seen;
    }

    /// The viewport's scroll position in CSS pixels, within the current layout.
    pub fn viewport_scroll(&mut self) -> (f64, f64) {
        self.resolve();
        let scroll = self.document().viewport_scroll();
        (scroll.x, scroll.y)
    }

    /// Scroll the viewport to `(x, y)`, clamped to what the current layout can
    /// scroll. Returns whether the position changed.
    pub fn scroll_viewport_to(&mut self, x: f64, y: f64) -> bool {
        self.resolve();
        let doc = self.document();
        let before = doc.viewport_scroll();
        scroll_root_to(doc, x, y);
        doc.viewport_scroll() != before
    }

    /// The size of what the viewport scrolls over in CSS pixels: the root
    /// element's box or its overflow, whichever is larger, and never less than
    /// the viewport (what `document.documentElement.scrollWidth/Height` read).
    pub fn document_scroll_size(&mut self) -> (f64, f64) {
        self.resolve();
        let (width, height) = (f64::from(self.width), f64::from(self.height));
        let doc = self.document();
        let Some(root) = doc.try_root_element() else {
            return (width, height);
        };
        let layout = root.final_layout();
        let content_width = layout.size.width.max(layout.scrollable_overflow_rect.right);
        let content_height = layout
            .size
            .height
            .max(layout.scrollable_overflow_rect.bottom);
        (
            f64::from(content_width).max(width),
            f64::from(content_height).max(height),
        )
    }
}

/// Scroll the viewport of `doc` (already laid out) to `(x, y)`. Blitz treats a
/// scroll of the root element as a scroll of the viewport and clamps it to
/// `[0, content size - viewport size]`; non-finite coordinates count as 0.
fn scroll_root_to(doc: &mut BaseDocument, x: f64, y: f64) {
    let finite = |v: f64| if v.is_finite() { v } else { 0.0 };
    match doc.try_root_element().map(|root| root.id) {
        Some(root) => doc.scroll_to(root, finite(x), finite(y), ScrollBehavior::Instant),
        // Nothing to scroll over.
        None => doc.set_viewport_scroll(Point::ZERO),
    }
}

thread_local! {
    static TAB: RefCell<Tab> = RefCell::new(Tab::new());
    /// The engine's own user-agent rules (`css/forms.css`), parsed once.
    static FORMS_SHEET: UserAgentStylesheet =
        UserAgentStylesheet::parse(include_str!("css/forms.css"));
}

/// Run `f` on the tab. Only called from export entry points, where no other
/// borrow can be live (JavaScript runs outside of these closures).
fn with_tab<R>(f: impl FnOnce(&mut Tab) -> R) -> R {
    TAB.with(|tab| f(&mut tab.borrow_mut()))
}

/// Run `f` on the tab unless it is already borrowed (JavaScript bindings use
/// this so that a bug can only fail the script, never panic the instance).
pub(crate) fn try_with_tab<R>(f: impl FnOnce(&mut Tab) -> R) -> Option<R> {
    TAB.with(|tab| tab.try_borrow_mut().ok().map(|mut tab| f(&mut tab)))
}

fn viewport(width: u32, height: u32) -> Viewport {
    Viewport::new(width, height, 1.0, ColorScheme::Light)
}

/// Parse `html` into a document at `url` whose subresources load through `net`.
fn build_document(
    html: &str,
    url: &str,
    width: u32,
    height: u32,
    net: Arc<GuestNetProvider>,
    xml: bool,
) -> BaseDocument {
    let config = DocumentConfig {
        viewport: Some(viewport(width, height)),
        base_url: Some(url.to_owned()),
        net_provider: Some(net),
        html_parser_provider: Some(Arc::new(HtmlProvider)),
        font_ctx: Some(fonts::font_context()),
        ua_stylesheets: vec![
            UserAgentStylesheet::default_sheet(),
            FORMS_SHEET.with(Clone::clone),
        ],
        // No threads in the guest: Stylo must not touch its rayon pool.
        style_threading: StyleThreading::Sequential,
        ..DocumentConfig::default()
    };
    let mut doc = if xml {
        HtmlDocument::from_xml(html, config).into_inner()
    } else {
        HtmlDocument::from_html(html, config).into_inner()
    };
    let root = doc.root_node().id;
    limit_depth(&mut doc, root);
    // Subresources requested while parsing have already completed (the import
    // is synchronous); apply them now so nothing stays render-blocking.
    doc.handle_messages();
    doc
}

/// Flatten the subtree at `start` so that no node is deeper than
/// [`MAX_DOM_DEPTH`]: the descendants of a node at that depth become its
/// children, in document order.
pub(crate) fn limit_depth(doc: &mut BaseDocument, start: NodeId) {
    let mut depth = 0;
    let mut current = doc.get_node(start).and_then(|n| n.parent);
    while let Some(id) = current {
        depth += 1;
        current = doc.get_node(id).and_then(|n| n.parent);
    }
    let mut anchors = Vec::new();
    let mut stack = vec![(start, depth)];
    while let Some((id, depth)) = stack.pop() {
        let Some(node) = doc.get_node(id) else {
            continue;
        };
        if depth >= MAX_DOM_DEPTH {
            let has_grandchildren = node
                .children
                .iter()
                .any(|c| doc.get_node(*c).is_some_and(|c| !c.children.is_empty()));
            if has_grandchildren {
                anchors.push(id);
            }
            continue;
        }
        stack.extend(node.children.iter().map(|c| (*c, depth + 1)));
    }
    for anchor in anchors {
        let mut descendants = Vec::new();
        let mut stack: Vec<NodeId> = doc
            .get_node(anchor)
            .map(|n| n.children.iter().rev().copied().collect())
            .unwrap_or_default();
        while let Some(id) = stack.pop() {
            descendants.push(id);
            if let Some(node) = doc.get_node(id) {
                stack.extend(node.children.iter().rev().copied());
            }
        }
        let mut mutator = crate::mutation::mutate(doc);
        // Detach bottom-up, so each removal sees a node without children.
        for id in descendants.iter().rev() {
            mutator.remove_node(*id);
        }
        mutator.append_children(anchor, &descendants);
    }
}

/// Nodes detached by [`hide_following`]: per parent, its children that came
/// after the script, in order (deepest parent first).
pub(crate) struct Hidden(Vec<(NodeId, Vec<NodeId>)>);

/// Detach everything after `script` in document order (the next siblings of
/// the script and of each of its ancestors), so that the script sees the
/// document as the parser had built it when it reached the script.
pub(crate) fn hide_following(doc: &mut BaseDocument, script: NodeId) -> Hidden {
    let mut hidden = Vec::new();
    let mut current = script;
    while let Some(parent) = doc.get_node(current).and_then(|n| n.parent) {
        let following: Vec<NodeId> = doc
            .get_node(parent)
            .map(|p| {
                p.children
                    .iter()
                    .skip_while(|c| **c != current)
                    .skip(1)
                    .copied()
                    .collect()
            })
            .unwrap_or_default();
        if !following.is_empty() {
            let mut mutator = crate::mutation::mutate(doc);
            for id in &following {
                mutator.remove_node(*id);
            }
            drop(mutator);
            hidden.push((parent, following));
        }
        current = parent;
    }
    Hidden(hidden)
}

/// Put back what [`hide_following`] detached: each parent gets its nodes at
/// its end, where the parser would have appended them after the script ran.
pub(crate) fn reveal(doc: &mut BaseDocument, hidden: Hidden) {
    for (parent, children) in hidden.0 {
        if doc.get_node(parent).is_none() {
            continue;
        }
        let children: Vec<NodeId> = children
            .into_iter()
            .filter(|c| doc.get_node(*c).is_some_and(|n| n.parent.is_none()))
            .collect();
        crate::mutation::mutate(doc).append_children(parent, &children);
    }
}

/// Set the viewport used for layout and screenshots (clamped to 1..=4096).
pub(crate) fn set_viewport(width: u32, height: u32) {
    let width = width.clamp(1, MAX_VIEWPORT_SIDE);
    let height = height.clamp(1, MAX_VIEWPORT_SIDE);
    with_tab(|tab| {
        tab.width = width;
        tab.height = height;
        if let Some(doc) = tab.doc.as_mut() {
            doc.set_viewport(viewport(width, height));
            tab.device_changed = true;
        }
    });
}

/// The tab's viewport.
pub(crate) fn viewport_size() -> (u32, u32) {
    with_tab(|tab| (tab.width, tab.height))
}

/// Run `f` on the current document (from export entry points only).
pub(crate) fn with_document<R>(f: impl FnOnce(&mut BaseDocument) -> R) -> R {
    with_tab(|tab| f(tab.document()))
}

/// Run `f` on the current document with style and layout up to date.
pub(crate) fn with_laid_out_document<R>(f: impl FnOnce(&mut BaseDocument) -> R) -> R {
    with_tab(|tab| {
        tab.resolve();
        f(tab.document())
    })
}

/// Run `f` on the current document if the tab has built one.
pub(crate) fn with_existing_document<R>(f: impl FnOnce(&mut BaseDocument) -> R) -> Option<R> {
    with_tab(|tab| tab.doc.as_mut().map(f))
}

/// The viewport's scroll position as last laid out (from export entry points
/// only). Unlike [`Tab::viewport_scroll`] this does not lay out again: a
/// snapshot records what the tab showed, and restore clamps it anyway.
pub(crate) fn viewport_scroll() -> (f64, f64) {
    with_tab(|tab| {
        let scroll = tab.document().viewport_scroll();
        (scroll.x, scroll.y)
    })
}

/// Scroll the viewport, clamped to the current layout (from export entry
/// points only).
pub(crate) fn scroll_viewport_to(x: f64, y: f64) {
    with_tab(|tab| tab.scroll_viewport_to(x, y));
}

/// The document URL and, for inline documents, their source.
pub(crate) fn location() -> (String, Option<Rc<str>>) {
    with_tab(|tab| (tab.url.clone(), tab.inline_html.clone()))
}

/// What a load produced before parsing.
struct Fetched {
    url: String,
    html: String,
    xml: bool,
    error: Option<String>,
}

fn load_failed(url: &str, reason: &str) -> Fetched {
    Fetched {
        url: url.to_owned(),
        html: String::new(),
        xml: false,
        error: Some(format!("The page could not be loaded: {reason}")),
    }
}

/// Fetch a document for a navigation.
fn fetch_document(request: &Request) -> Fetched {
    let url = request.url.trim();
    if url == ABOUT_BLANK {
        return Fetched {
            url: url.to_owned(),
            html: String::new(),
            xml: false,
            error: None,
        };
    }
    match url::Url::parse(url) {
        Ok(parsed) if matches!(parsed.scheme(), "http" | "https") => {}
        Ok(parsed) => {
            return load_failed(
                url,
                &format!("unsupported URL scheme \"{}\"", parsed.scheme()),
            );
        }
        Err(e) => return load_failed(url, &format!("invalid URL: {e}")),
    }
    let headers = request
        .content_type
        .iter()
        .map(|ct| ("content-type".to_owned(), ct.clone()))
        .collect();
    let response = match net::fetch(&request.method, url, headers, request.body.clone()) {
        Ok(response) => response,
        Err(reason) => return load_failed(url, &reason),
    };
    let final_url = if response.url.is_empty() {
        url.to_owned()
    } else {
        response.url.clone()
    };
    let mime = response
        .content_type()
        .and_then(|ct| ct.split(';').next())
        .map(|m| m.trim().to_ascii_lowercase())
        .unwrap_or_default();
    let text = charset::decode_html(&response.body, response.content_type());
    // Plain text is shown the way browsers show it: preformatted.
    let (html, xml) = match mime.as_str() {
        "text/plain"
        | "application/json"
        | "text/css"
        | "text/javascript"
        | "application/javascript" => (format!("<pre>{}</pre>", escape_html(&text)), false),
        "application/xhtml+xml" => (text, true),
        _ => (text, false),
    };
    let error = (response.status >= 400).then(|| {
        let reason = StatusCode::from_u16(response.status)
            .ok()
            .and_then(|s| s.canonical_reason())
            .map(|r| format!(" {r}"))
            .unwrap_or_default();
        format!(
            "The page could not be loaded: HTTP {}{reason}",
            response.status
        )
    });
    Fetched {
        url: final_url,
        html,
        xml,
        error,
    }
}

fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            _ => out.push(c),
        }
    }
    out
}

/// What to open.
enum Open {
    /// A document fetched from the network.
    Url(Request),
    /// An inline document.
    Html(Rc<str>),
}

/// Load a document (export `load`), replacing the current one, run its
/// scripts, follow the navigations they start and summarize the result.
pub(crate) fn load(src: Source) -> Summary {
    let open = match src {
        Source::Url(url) => Open::Url(Request::get(url)),
        Source::Html(html) => Open::Html(Rc::from(html)),
    };
    navigate(open, Commit::Push);
    follow();
    inspect()
}

/// Replace the document and run its scripts.
fn navigate(open: Open, commit: Commit) {
    // A fresh JavaScript realm per document, as in a browser navigation.
    js::reset();
    let (fetched, inline_html) = match open {
        Open::Url(request) => (fetch_document(&request), None),
        Open::Html(html) => (
            Fetched {
                url: INLINE_URL.to_owned(),
                html: html.to_string(),
                xml: false,
                error: None,
            },
            Some(html),
        ),
    };
    with_tab(|tab| {
        // Drop the old document before building the new one: peak memory stays
        // at one document.
        tab.doc = None;
        tab.pending = None;
        tab.net = Arc::new(GuestNetProvider::default());
        let doc = build_document(
            &fetched.html,
            &fetched.url,
            tab.width,
            tab.height,
            tab.net.clone(),
            fetched.xml,
        );
        tab.doc = Some(doc);
        crate::mutation::changed();
        tab.history
            .commit_document(&fetched.url, inline_html.clone(), commit);
        tab.doctype = doctype_of(&fetched.html);
        tab.url = fetched.url;
        tab.inline_html = inline_html;
        tab.load_error = fetched.error;
    });
    let settle = js::run_page_scripts();
    with_tab(|tab| tab.settle = settle);
}

/// The name of the `<!DOCTYPE>` a document starts with (after white space
/// and comments), lower-cased, as HTML's parser reads it.
fn doctype_of(html: &str) -> Option<String> {
    let mut rest = html.trim_start_matches('\u{feff}').trim_start();
    while let Some(after) = rest.strip_prefix("<!--") {
        rest = after.split_once("-->").map(|(_, r)| r)?.trim_start();
    }
    let head = rest.get(..9)?;
    if !head.eq_ignore_ascii_case("<!doctype") {
        return None;
    }
    let name: String = rest[9..]
        .trim_start()
        .chars()
        .take_while(|c| !c.is_whitespace() && *c != '>')
        .collect();
    Some(name.to_ascii_lowercase())
}

/// Carry out the navigations the page asked for, one after the other (a
/// loaded page may ask for the next), at most [`MAX_NAVIGATIONS`].
pub(crate) fn follow() {
    for _ in 0..MAX_NAVIGATIONS {
        let Some(pending) = with_tab(|tab| tab.pending.take()) else {
            return;
        };
        match pending {
            Pending::Load(request) => {
                let commit = if request.replace {
                    Commit::Replace
                } else {
                    Commit::Push
                };
                navigate(Open::Url(request), commit);
            }
            Pending::Traverse(delta) => traverse_by(delta),
            Pending::Reload => reload(),
        }
    }
    if with_tab(|tab| tab.pending.take()).is_some() {
        js::console(
            "warn",
            &format!("navigation stopped: more than {MAX_NAVIGATIONS} in one action"),
        );
    }
}

/// Move `delta` entries through the history: within the document (a
/// `popstate`, maybe a `hashchange`) or by loading the entry's document.
fn traverse_by(delta: i32) {
    let Some((index, entry, current)) = with_tab(|tab| {
        let current = tab.history.current().cloned()?;
        tab.history
            .target(delta)
            .map(|(index, entry)| (index, entry, current))
    }) else {
        return;
    };
    if entry.doc == current.doc {
        with_tab(|tab| {
            tab.history.set_index(index);
            tab.url = entry.url.clone();
        });
        let settle = js::traversed(&current.url, &entry.url, entry.state.as_deref());
        with_tab(|tab| tab.settle = settle);
        return;
    }
    let open = match entry.html {
        Some(html) => Open::Html(html),
        None => Open::Url(Request::get(entry.url)),
    };
    navigate(open, Commit::At(index));
}

/// Load the current entry again.
fn reload() {
    let Some(entry) = with_tab(|tab| tab.history.current().cloned()) else {
        return;
    };
    let open = match entry.html {
        Some(html) => Open::Html(html),
        None => Open::Url(Request::get(entry.url)),
    };
    navigate(open, Commit::Replace);
}

/// Export `traverse`: back, forward or reload, then summarize.
pub(crate) fn traverse(step: Traversal) -> Summary {
    let pending = match step {
        Traversal::Back => Pending::Traverse(-1),
        Traversal::Forward => Pending::Traverse(1),
        Traversal::Reload => Pending::Reload,
    };
    with_tab(|tab| tab.pending = Some(pending));
    follow();
    inspect()
}

/// Export `wait`: run the event loop until the condition holds or its page
/// time is up; a wait without a condition lets the time pass.
pub(crate) fn wait(until: WaitFor) -> Result<Summary, WaitError> {
    let WaitFor {
        selector,
        text,
        page_ms,
    } = until;
    if let Some(selector) = &selector
        && with_document(|doc| doc.query_selector(selector)).is_err()
    {
        return Err(WaitError::InvalidSelector(format!(
            "the selector \"{selector}\" is not valid CSS"
        )));
    }
    let needle = text.as_deref().map(inspect::collapse_whitespace);
    let has_condition = selector.is_some() || needle.is_some();
    let holds = || {
        with_tab(|tab| {
            tab.resolve_style();
            let doc = tab.document();
            let found = selector.as_deref().is_none_or(|s| rendered_match(doc, s));
            let shows = needle.as_deref().is_none_or(|t| {
                let root = doc.root_node().id;
                inspect::collapse_whitespace(&inspect::inner_text(doc, root, usize::MAX))
                    .contains(t)
            });
            found && shows
        })
    };
    let (met, settle) = js::wait_until(f64::from(page_ms), has_condition, holds);
    with_tab(|tab| tab.settle = settle);
    follow();
    if met {
        return Ok(inspect());
    }
    let what = match (&selector, &text) {
        (Some(s), Some(t)) => format!("an element matching \"{s}\" and the text \"{t}\""),
        (Some(s), None) => format!("an element matching \"{s}\""),
        (None, Some(t)) => format!("the text \"{t}\""),
        (None, None) => "the page".to_owned(),
    };
    Err(WaitError::Unmet(format!(
        "{what} did not appear within {page_ms} ms of page time"
    )))
}

/// Whether an element matching `selector` is rendered: it and its ancestors
/// displayed, and itself visible (styles must be current).
fn rendered_match(doc: &BaseDocument, selector: &str) -> bool {
    let Ok(matches) = doc.query_selector_all(selector) else {
        return false;
    };
    matches.into_iter().any(|id| {
        let visible = doc
            .get_node(id)
            .and_then(|n| n.primary_styles())
            .is_some_and(|s| {
                s.clone_visibility() == style::computed_values::visibility::T::Visible
            });
        let mut current = Some(id);
        while let Some(node) = current.and_then(|c| doc.get_node(c)) {
            if let Some(el) = node.element_data()
                && inspect::is_hidden(node, &el.name.local)
            {
                return false;
            }
            current = node.parent;
        }
        visible
    })
}

/// Export `set-dialog-policy`.
pub(crate) fn set_dialog_policy(policy: DialogPolicy) {
    with_tab(|tab| tab.dialog_policy = policy);
}

/// The dialog policy (for snapshots).
pub(crate) fn dialog_policy() -> DialogPolicy {
    with_tab(|tab| tab.dialog_policy.clone())
}

/// Summarize the current document. Dialogs and console messages are reported
/// once: the next summary lists only what came after.
pub(crate) fn inspect() -> Summary {
    let console = js::take_console();
    with_tab(|tab| {
        tab.resolve_style();
        let url = tab.url.clone();
        let load_error = tab.load_error.clone();
        let dialogs = std::mem::take(&mut tab.dialogs);
        let settle = tab.settle;
        let doc = tab.document();
        let root = doc.root_node().id;
        let links = inspect::links(doc, &url);
        let readable = readable::extract(doc, MAX_TEXT_CHARS);
        let frames = inspect::frames(doc);
        Summary {
            url,
            title: inspect::title(doc),
            text: inspect::inner_text(doc, root, MAX_TEXT_CHARS),
            links,
            load_error,
            fields: a11y::fields(doc),
            settle,
            dialogs,
            console,
            readable,
            frames,
        }
    })
}

/// The accessibility tree (export `accessibility`).
pub(crate) fn accessibility(
    max_nodes: u32,
) -> crate::bindings::exports::fleet::engine::page::AccessibilityTree {
    with_tab(|tab| {
        tab.resolve();
        a11y::tree(tab.document(), max_nodes)
    })
}

/// Tallest full-page screenshot, pixels.
const MAX_FULL_PAGE_HEIGHT: u32 = 16_384;
/// Most pixels of a full-page screenshot (the frame alone is 4 bytes each).
const MAX_FULL_PAGE_PIXELS: u32 = 32 * 1024 * 1024;

/// Lay out and paint the viewport, or with `full_page` the whole document
/// (capped): the viewport is stretched to the document for the paint, then
/// put back with the scroll position.
pub(crate) fn screenshot(full_page: bool) -> Result<Vec<u8>, String> {
    with_tab(|tab| {
        tab.resolve();
        let (width, height) = (tab.width, tab.height);
        if !full_page {
            return render::screenshot(tab.document(), width, height);
        }
        let (_, content_height) = tab.document_scroll_size();
        let cap = MAX_FULL_PAGE_HEIGHT.min(MAX_FULL_PAGE_PIXELS / width.max(1));
        let full = (content_height.ceil() as u32).clamp(height, cap.max(height));
        let scroll = tab.document().viewport_scroll();
        tab.document().set_viewport(viewport(width, full));
        scroll_root_to(tab.document(), 0.0, 0.0);
        tab.resolve();
        let png = render::screenshot(tab.document(), width, full);
        tab.document().set_viewport(viewport(width, height));
        tab.resolve();
        scroll_root_to(tab.document(), scroll.x, scroll.y);
        png
    })
}
