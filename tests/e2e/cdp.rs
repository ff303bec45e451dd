//! The DevTools endpoint end to end. Puppeteer (puppeteer-core's `connect`)
//! and Playwright (playwright-core's `connectOverCDP`) attach to a fleet
//! session, navigate, evaluate, query, type, click, screenshot and follow a
//! link; an agent then reads what they did from the session. The protocol
//! itself, from a raw client, is in [`protocol`].

mod protocol;

use std::time::Duration;

use serde_json::{Value, json};

use crate::harness::{Client, Fleet, act, call, first};

/// A form, a list and a link, at fixed places.
const FORM: &str = "<!doctype html><title>Form</title><style>body{margin:0}\
    #go{position:absolute;left:20px;top:150px;width:160px;height:40px}\
    #name{position:absolute;left:20px;top:220px;width:200px;height:30px}\
    #next{position:absolute;left:20px;top:300px}</style>\
    <ul><li>one</li><li>two</li></ul>\
    <button id=go onclick=\"document.getElementById('out').textContent='hi '+document.getElementById('name').value\">go</button>\
    <input id=name><p id=out>idle</p><a id=next href=/second>next</a>";

/// A loopback server with [`FORM`] and the page its link opens.
async fn pages() -> String {
    use axum::response::Html;
    use axum::routing::get;
    let app = axum::Router::new()
        .route("/form", get(|| async { Html(FORM) }))
        .route(
            "/second",
            get(|| async { Html("<title>Second</title><h1>second page</h1>") }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}")
}

/// A new blank session.
async fn new_session(client: &Client) -> String {
    let (out, _) = call(
        client,
        "servo_navigate",
        json!({"actions": [{"html": "<title>blank</title>"}]}),
    )
    .await;
    first(&out)["sessionID"].as_str().unwrap().to_owned()
}

/// The session's DevTools endpoint.
async fn endpoint(client: &Client, session: &str) -> String {
    let r = act(client, "servo_cdp_endpoint", session, json!({})).await;
    assert_eq!(r["ok"], true, "{r:#}");
    assert!(r["response"]["expiresAt"].is_string(), "{r:#}");
    r["response"]["webSocketDebuggerUrl"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn puppeteer_connects_to_a_session_and_drives_it() {
    let fleet = Fleet::start(1).await;
    let client = fleet.client("acme").await;
    let base = pages().await;
    let session = new_session(&client).await;
    let url = endpoint(&client, &session).await;
    assert!(
        url.starts_with(&format!(
            "{}/cdp/{session}?token=",
            fleet.gateway.replacen("http://", "ws://", 1)
        )),
        "{url}"
    );

    let seen = drive("cdp_puppeteer.mjs", &url, &base).await;

    assert_eq!(seen["pages"], 1, "the session is the one page");
    assert_eq!(seen["url"], format!("{base}/form"));
    assert_eq!(seen["title"], "Form");
    assert_eq!(seen["evaluated"], 43, "arguments and the page's DOM");
    assert_eq!(seen["items"], json!(["one", "two"]), "handles of $$");
    assert_eq!(seen["out"], "hi fleet", "typed, then clicked");
    assert_eq!(seen["value"], "fleet");
    assert_eq!(
        (&seen["box"]["x"], &seen["box"]["y"]),
        (&json!(20), &json!(150))
    );
    assert!(
        seen["thrown"].as_str().unwrap().contains("boom in page"),
        "{seen:#}"
    );
    assert_eq!(seen["html"], true);
    assert_eq!(
        (
            seen["png"]["width"].as_u64(),
            seen["png"]["height"].as_u64()
        ),
        (Some(1280), Some(720)),
        "the session's viewport"
    );
    assert_eq!(
        seen["afterClick"],
        json!({"url": format!("{base}/second"), "title": "Second"}),
        "the link's navigation reached Puppeteer as events"
    );
    assert_eq!(seen["afterClickText"], "second page");
    assert!(
        seen["console"]
            .as_array()
            .unwrap()
            .contains(&json!("log:hello from the page")),
        "{seen:#}"
    );

    // What Puppeteer did is the session's: an agent sees it.
    let r = act(
        &client,
        "servo_evaluate",
        &session,
        json!({"script": "[location.href, document.title]"}),
    )
    .await;
    assert_eq!(
        r["response"]["value"],
        json!([format!("{base}/second"), "Second"]),
        "{r:#}"
    );
}

/// Runs client script `script` of tests/clients/browser against endpoint
/// `url` and fixtures at `base`; what it saw.
async fn drive(script: &str, url: &str, base: &str) -> Value {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/browser");
    assert!(
        dir.join("node_modules/playwright-core").exists(),
        "the browser clients are not installed in {}: run `make test` (it runs npm ci there)",
        dir.display()
    );
    let out = tokio::time::timeout(
        Duration::from_secs(120),
        tokio::process::Command::new("node")
            .arg(dir.join(script))
            .arg(url)
            .arg(base)
            .kill_on_drop(true)
            .output(),
    )
    .await
    .expect("the client script ends in time")
    .expect("node must be installed");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let seen: Value = serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("{e}: {stdout}\n{stderr}"));
    assert!(seen.get("error").is_none(), "{seen:#}\n{stderr}");
    eprintln!("{script}: step times, ms: {}", seen["ms"]);
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn playwright_connects_over_cdp_and_drives_a_session() {
    let fleet = Fleet::start(1).await;
    let client = fleet.client("acme").await;
    let base = pages().await;
    let session = new_session(&client).await;
    let url = endpoint(&client, &session).await;
    let seen = drive("cdp_playwright.mjs", &url, &base).await;
    assert_eq!(
        (seen["contexts"].as_u64(), seen["pages"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(seen["url"], format!("{base}/form"));
    assert_eq!(seen["title"], "Form");
    assert_eq!(seen["evaluated"], 43);
    assert_eq!(seen["items"], json!(["one", "two"]));
    assert_eq!(seen["out"], "hi playwright", "filled, typed, then clicked");
    assert_eq!(seen["value"], "playwright");
    assert_eq!(
        (
            seen["png"]["width"].as_u64(),
            seen["png"]["height"].as_u64()
        ),
        (Some(1280), Some(720))
    );
    assert_eq!(
        seen["afterClick"],
        json!({"url": format!("{base}/second"), "title": "Second"})
    );
    assert_eq!(seen["afterClickText"], "second page");
    let r = act(
        &client,
        "servo_evaluate",
        &session,
        json!({"script": "location.href"}),
    )
    .await;
    assert_eq!(r["response"]["value"], format!("{base}/second"), "{r:#}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn another_tenants_session_has_no_endpoint() {
    let fleet = Fleet::start(1).await;
    let acme = fleet.client("acme").await;
    let other = fleet.client("other").await;
    let session = new_session(&acme).await;
    let r = act(&other, "servo_cdp_endpoint", &session, json!({})).await;
    assert_eq!(r["code"], "SESSION_NOT_FOUND", "{r:#}");
}
