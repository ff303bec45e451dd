//! The tab's state: the current document, its URL and source, the viewport,
//! the session history and what the last action left (dialogs, settle).
//!
//! A component instance is one tab and the host calls one export at a time, so
//! the state is a thread-local `RefCell`. JavaScript bindings reach the document
//! through [`try_with_tab`] while a script runs; no code holds the borrow while
//! calling into JavaScript, so those borrows never collide. The operations on a
//! tab (load, navigate, wait, inspect, screenshot) are in `tab.rs`; they call
//! into JavaScript, which only ever reaches back here, never into them.
//!
//! The viewport's scroll position lives in the Blitz document (it is what
//! `blitz-paint` offsets the painted viewport by), so a new document starts at
//! the top, as after a navigation.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use blitz_dom::{BaseDocument, Point, ScrollBehavior};

use crate::bindings::exports::fleet::engine::page::{Dialog, DialogPolicy, Settle};
use crate::document::{build_document, viewport};
use crate::navigation::{History, Pending};
use crate::net::GuestNetProvider;
use crate::{forms, media};

/// The URL given to inline HTML documents (`source::html`).
pub(crate) const INLINE_URL: &str = "https://inline.servo-fleet.invalid/";
/// The URL of the empty document a fresh tab starts with.
pub(crate) const ABOUT_BLANK: &str = "about:blank";
/// Viewport of a fresh tab.
pub(crate) const DEFAULT_VIEWPORT: (u32, u32) = (1280, 720);
/// Largest viewport side: `vello_cpu` addresses pixels with `u16`, and a
/// 4096×4096 RGBA frame is already 64 MiB of guest memory.
const MAX_VIEWPORT_SIDE: u32 = 4096;
/// Cap on the visible text returned by `inspect` (characters).
pub(crate) const MAX_TEXT_CHARS: usize = 20_000;
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

    /// Replace the document with one parsed from `html` at `url`, with a
    /// network provider of its own. The old document is dropped first, so
    /// peak memory stays at one document; a navigation it asked for is void.
    pub fn replace_document(&mut self, html: &str, url: &str, xml: bool) {
        self.doc = None;
        self.pending = None;
        self.net = Arc::new(GuestNetProvider::default());
        let doc = build_document(html, url, self.width, self.height, self.net.clone(), xml);
        self.doc = Some(doc);
        // The new document is built for the current viewport: a change made
        // to the last one's is no reason to lay this one out. (A tab whose
        // realm was made before its first page had an `about:blank` document
        // when its viewport was set, and laid out that page in full: ≈10 MiB
        // more per tab on the bench's memory page.)
        self.device_changed = false;
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
pub(crate) fn scroll_root_to(doc: &mut BaseDocument, x: f64, y: f64) {
    let finite = |v: f64| if v.is_finite() { v } else { 0.0 };
    match doc.try_root_element().map(|root| root.id) {
        Some(root) => doc.scroll_to(root, finite(x), finite(y), ScrollBehavior::Instant),
        // Nothing to scroll over.
        None => doc.set_viewport_scroll(Point::ZERO),
    }
}

thread_local! {
    static TAB: RefCell<Tab> = RefCell::new(Tab::new());
}

/// Run `f` on the tab. Only called from export entry points, where no other
/// borrow can be live (JavaScript runs outside of these closures).
pub(crate) fn with_tab<R>(f: impl FnOnce(&mut Tab) -> R) -> R {
    TAB.with(|tab| f(&mut tab.borrow_mut()))
}

/// Run `f` on the tab unless it is already borrowed (JavaScript bindings use
/// this so that a bug can only fail the script, never panic the instance).
pub(crate) fn try_with_tab<R>(f: impl FnOnce(&mut Tab) -> R) -> Option<R> {
    TAB.with(|tab| tab.try_borrow_mut().ok().map(|mut tab| f(&mut tab)))
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

/// Export `set-dialog-policy`.
pub(crate) fn set_dialog_policy(policy: DialogPolicy) {
    with_tab(|tab| tab.dialog_policy = policy);
}

/// The dialog policy (for snapshots).
pub(crate) fn dialog_policy() -> DialogPolicy {
    with_tab(|tab| tab.dialog_policy.clone())
}
