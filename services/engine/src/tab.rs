//! The operations on a tab: load a document, run its scripts, follow the
//! navigations they start, traverse the history, wait for a condition, and
//! summarize, describe or paint what the tab shows. The state they work on is
//! in `state.rs`.

use std::rc::Rc;

use blitz_dom::BaseDocument;
use blitz_traits::net::http::StatusCode;

use crate::bindings::exports::fleet::engine::page::{
    Source, Summary, Traversal, WaitError, WaitFor,
};
use crate::bindings::fleet::engine::network::{Destination, SavedDownload};
use crate::document::viewport;
use crate::navigation::{Commit, Pending, Request};
use crate::state::{
    ABOUT_BLANK, INLINE_URL, MAX_TEXT_CHARS, scroll_root_to, with_document, with_tab,
};
use crate::{a11y, charset, inspect, js, net, readable, render};

/// Navigations one call follows (a page that keeps redirecting itself with
/// scripts stops here, as browsers stop redirect loops).
const MAX_NAVIGATIONS: usize = 10;

/// What a navigation's fetch produced.
enum Loaded {
    /// A document to show.
    Page(Fetched),
    /// A response the host saved as a download: the tab stays as it was.
    Saved(SavedDownload),
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
fn fetch_document(request: &Request) -> Loaded {
    let url = request.url.trim();
    if url == ABOUT_BLANK {
        return Loaded::Page(Fetched {
            url: url.to_owned(),
            html: String::new(),
            xml: false,
            error: None,
        });
    }
    match url::Url::parse(url) {
        Ok(parsed) if matches!(parsed.scheme(), "http" | "https") => {}
        Ok(parsed) => {
            return Loaded::Page(load_failed(
                url,
                &format!("unsupported URL scheme \"{}\"", parsed.scheme()),
            ));
        }
        Err(e) => return Loaded::Page(load_failed(url, &format!("invalid URL: {e}"))),
    }
    let headers = request
        .content_type
        .iter()
        .map(|ct| ("content-type".to_owned(), ct.clone()))
        .collect();
    let destination = match &request.download {
        Some(name) => Destination::Download(name.clone()),
        None => Destination::Document,
    };
    let response = match net::navigation(
        &request.method,
        url,
        headers,
        request.body.clone(),
        destination,
    ) {
        Ok(response) => response,
        Err(reason) => return Loaded::Page(load_failed(url, &reason)),
    };
    if let Some(saved) = response.download {
        return Loaded::Saved(saved);
    }
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
    Loaded::Page(Fetched {
        url: final_url,
        html,
        xml,
        error,
    })
}

/// Tells the page's console what became of a download (the agent reads it
/// there, and lists the files with `servo_downloads`).
pub(crate) fn report_download(saved: &SavedDownload) {
    match &saved.error {
        None => js::console(
            "info",
            &format!(
                "download saved: {} ({} bytes); servo_downloads lists it",
                saved.filename, saved.size
            ),
        ),
        Some(why) => js::console(
            "warn",
            &format!("download of {} not kept: {why}", saved.filename),
        ),
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

/// Replace the document and run its scripts (unless the response is a
/// download: the tab then stays as it was, as browsers' tabs do).
fn navigate(open: Open, commit: Commit) {
    let (fetched, inline_html) = match open {
        Open::Url(request) => match fetch_document(&request) {
            Loaded::Page(fetched) => (fetched, None),
            Loaded::Saved(saved) => {
                report_download(&saved);
                return;
            }
        },
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
    // A fresh JavaScript realm per document, as in a browser navigation.
    js::reset();
    with_tab(|tab| {
        tab.replace_document(&fetched.html, &fetched.url, fetched.xml);
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
