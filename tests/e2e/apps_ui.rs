//! The MCP Apps views: listed and read as `ui://` resources, linked from the
//! tools' `_meta`, and rendered by headless Chromium inside a small host page
//! that feeds each view a tool result the fleet really produced (the browser
//! view) or one in `servo_web_search`'s shape (the search view), as an MCP
//! Apps host does.

use std::time::Duration;

use axum::response::Html;
use axum::routing::get;
use rmcp::model::{ReadResourceRequestParams, ResourceContents};
use serde_json::{Value, json};

use crate::harness::{Fleet, call, first};

/// A host page: the view in an iframe, fed `result` as a
/// `ui/notifications/tool-result` once it loaded; what the view then shows
/// is copied into `<pre id="seen">` for the test to read.
fn host_page(view: &str, result: &Value) -> String {
    let srcdoc = view.replace('&', "&amp;").replace('"', "&quot;");
    format!(
        r#"<!doctype html><iframe id="v" srcdoc="{srcdoc}"></iframe><pre id="seen"></pre>
<script>
const frame = document.getElementById('v');
frame.addEventListener('load', () => {{
  frame.contentWindow.postMessage({{jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: {result}}}, '*');
  setTimeout(() => {{
    const d = frame.contentDocument;
    document.getElementById('seen').textContent = JSON.stringify({{
      text: d.body.innerText,
      images: [...d.images].map((i) => i.src.slice(0, 22)),
      links: [...d.links].map((a) => a.href),
    }});
  }}, 300);
}});
</script>"#
    )
}

/// Renders `page` in headless Chromium; what the view showed.
async fn render(page: String) -> Value {
    let app = axum::Router::new().route("/", get(move || async move { Html(page) }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let out = tokio::time::timeout(
        Duration::from_secs(60),
        tokio::process::Command::new("chromium")
            .args([
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--virtual-time-budget=5000",
                "--dump-dom",
                &url,
            ])
            .output(),
    )
    .await
    .unwrap()
    .expect("chromium must be installed (`make test` installs it)");
    let dom = String::from_utf8_lossy(&out.stdout);
    let seen = dom
        .split(r#"<pre id="seen">"#)
        .nth(1)
        .and_then(|s| s.split("</pre>").next())
        .unwrap_or_else(|| panic!("the host page showed nothing: {dom}"));
    let seen = seen
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
    serde_json::from_str(&seen).unwrap_or_else(|e| panic!("{e}: {seen}"))
}

/// The text of a `ui://` resource.
async fn view(client: &crate::harness::Client, uri: &str) -> String {
    let read = client
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
        .unwrap();
    match &read.contents[0] {
        ResourceContents::TextResourceContents {
            mime_type, text, ..
        } => {
            assert_eq!(mime_type.as_deref(), Some("text/html;profile=mcp-app"));
            text.clone()
        }
        other => panic!("{uri} is not text: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_views_are_resources_linked_from_the_tools_and_show_tool_results() {
    let fleet = Fleet::start(1).await;
    let client = fleet.client("acme").await;

    let resources = client.list_all_resources().await.unwrap();
    let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(uris, ["ui://servo/browser.html", "ui://servo/search.html"]);
    let tools = client.list_all_tools().await.unwrap();
    let meta = |name: &str| {
        let t = tools.iter().find(|t| t.name == name).unwrap();
        serde_json::to_value(t.meta.as_ref().unwrap()).unwrap()
    };
    assert_eq!(
        meta("servo_navigate")["ui"]["resourceUri"],
        "ui://servo/browser.html"
    );
    assert_eq!(
        meta("servo_screenshot")["openai/outputTemplate"],
        "ui://servo/browser.html"
    );
    assert_eq!(
        meta("servo_web_search")["ui"]["resourceUri"],
        "ui://servo/search.html"
    );

    // The browser view shows a real screenshot call's page and image.
    let (out, _) = call(
        &client,
        "servo_navigate",
        json!({"actions": [{"html": "<title>Widget test</title><h1>Shown in the view</h1>"}]}),
    )
    .await;
    let id = first(&out)["sessionID"].as_str().unwrap().to_owned();
    let (_, shot) = call(
        &client,
        "servo_screenshot",
        json!({"actions": [{"sessionID": id}]}),
    )
    .await;
    let browser = view(&client, "ui://servo/browser.html").await;
    let seen = render(host_page(&browser, &serde_json::to_value(&shot).unwrap())).await;
    let text = seen["text"].as_str().unwrap();
    assert!(text.contains("Widget test"), "{seen:#}");
    assert!(text.contains("Shown in the view"), "{seen:#}");
    assert!(text.contains(&id), "the session is named: {seen:#}");
    assert_eq!(
        seen["images"],
        json!(["data:image/png;base64,"]),
        "{seen:#}"
    );

    // The search view lists results as links, and the providers that failed.
    let result = json!({
        "structuredContent": {
            "query": "rust", "provider": "auto",
            "results": [
                {"title": "The Rust language", "url": "https://rust.example/", "snippet": "Fast <b>and</b> safe", "provider": "bing"},
                {"title": "Crates", "url": "https://crates.example/", "snippet": "", "provider": "google"}
            ],
            "providers": ["google", "bing"],
            "failedProviders": [{"provider": "yandex", "error": "timed out"}]
        },
        "content": []
    });
    let search = view(&client, "ui://servo/search.html").await;
    let seen = render(host_page(&search, &result)).await;
    let text = seen["text"].as_str().unwrap();
    for s in [
        "2 results for \"rust\"",
        "The Rust language",
        "Fast <b>and</b> safe",
        "yandex: timed out",
    ] {
        assert!(text.contains(s), "{s:?} not shown: {seen:#}");
    }
    assert_eq!(
        seen["links"],
        json!(["https://rust.example/", "https://crates.example/"]),
        "{seen:#}"
    );
}
