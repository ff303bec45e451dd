//! MCP Apps views (`ui://` resources, `text/html;profile=mcp-app`) as in Servo
//! MCP: the browser view (load a URL, see the page and its screenshot, close
//! the session) and the search view (ranked results with snippets). Tools link
//! to their view in `_meta`; a host renders the view and feeds it tool
//! results over postMessage JSON-RPC.

use std::sync::LazyLock;

use rmcp::model::{MetaObject, ReadResourceResult, Resource, ResourceContents};
use serde_json::json;

/// The browser view's URI.
pub(super) const BROWSER_UI: &str = "ui://servo/browser.html";
/// The search view's URI.
pub(super) const SEARCH_UI: &str = "ui://servo/search.html";
/// The media type MCP Apps hosts render.
const MIME: &str = "text/html;profile=mcp-app";

/// A view's page with the shared script put in its place.
fn page(html: &str) -> String {
    html.replace("/*COMMON*/", include_str!("apps/common.js"))
}

static BROWSER: LazyLock<String> = LazyLock::new(|| page(include_str!("apps/browser.html")));
static SEARCH: LazyLock<String> = LazyLock::new(|| page(include_str!("apps/search.html")));

/// How a host should frame the views: bordered, and reaching nothing (the
/// views talk to the host only).
fn ui_meta() -> MetaObject {
    let mut m = MetaObject::default();
    m.0.insert(
        "ui".into(),
        json!({"prefersBorder": true, "csp": {"connectDomains": [], "resourceDomains": []}}),
    );
    m
}

/// The views, as `resources/list` lists them.
pub(super) fn resources() -> Vec<Resource> {
    let view = |uri: &str, name: &str, title: &str, description: &str, size: usize| {
        let mut r = Resource::new(uri, name)
            .with_title(title)
            .with_description(description);
        r.mime_type = Some(MIME.into());
        r.size = Some(size as u64);
        r.meta = Some(ui_meta());
        r
    };
    vec![
        view(
            BROWSER_UI,
            "servo-browser-ui",
            "Servo browser controls",
            "Load a page in a session, read it and see its screenshot; close the session.",
            BROWSER.len(),
        ),
        view(
            SEARCH_UI,
            "servo-web-search-ui",
            "Servo web search",
            "Search the web and read the ranked results.",
            SEARCH.len(),
        ),
    ]
}

/// A view's page, for `resources/read`.
pub(super) fn read(uri: &str) -> Option<ReadResourceResult> {
    let text = match uri {
        BROWSER_UI => BROWSER.as_str(),
        SEARCH_UI => SEARCH.as_str(),
        _ => return None,
    };
    let contents = ResourceContents::TextResourceContents {
        uri: uri.into(),
        mime_type: Some(MIME.into()),
        text: text.into(),
        meta: Some(ui_meta()),
    };
    Some(ReadResourceResult::new(vec![contents]))
}

/// A tool's `_meta` linking it to `view` (the MCP Apps key and the one
/// OpenAI's Apps SDK reads).
pub(super) fn tool_meta(view: &str) -> MetaObject {
    let mut m = MetaObject::default();
    m.0.insert("ui".into(), json!({"resourceUri": view}));
    m.0.insert("openai/outputTemplate".into(), json!(view));
    m
}
