//! `servo_network_log`: the requests a session's pages made, with status,
//! media type, size and timing, and the ones the policy refused.

use axum::response::{Html, Redirect};
use axum::routing::get;
use serde_json::{Value, json};

use crate::harness::{Fleet, act, open};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_network_log_lists_what_the_pages_requested() {
    let app = axum::Router::new()
        .route(
            "/",
            get(|| async {
                Html(
                    "<!doctype html><title>net</title><link rel=stylesheet href=/s.css>\
                     <script src=/app.js></script><p>hello</p>",
                )
            }),
        )
        .route(
            "/s.css",
            get(|| async { ([("content-type", "text/css")], "p{color:red}") }),
        )
        .route(
            "/app.js",
            get(|| async {
                (
                    [("content-type", "text/javascript")],
                    "fetch('/hop').then(r => r.json()).then(d => document.title = d.n);\
                     fetch('http://10.0.0.1/secret').catch(() => {});",
                )
            }),
        )
        .route("/hop", get(|| async { Redirect::temporary("/data.json") }))
        .route(
            "/data.json",
            get(|| async {
                (
                    [("content-type", "application/json; charset=utf-8")],
                    "{\"n\": \"42\"}",
                )
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let fleet = Fleet::start(1).await;
    let client = fleet.client("acme").await;
    let (id, nav) = open(&client, &format!("{base}/")).await;
    assert_eq!(nav["response"]["page"]["title"], "42", "{nav:#}");

    let r = act(&client, "servo_network_log", &id, json!({})).await;
    let entries = r["response"]["entries"].as_array().unwrap().clone();
    let find = |suffix: &str| -> Value {
        entries
            .iter()
            .find(|e| e["url"].as_str().unwrap().ends_with(suffix))
            .cloned()
            .unwrap_or_else(|| panic!("{suffix} not logged: {r:#}"))
    };
    let doc = find(&format!("{base}/"));
    assert_eq!(
        (doc["method"].as_str(), doc["status"].as_u64()),
        (Some("GET"), Some(200))
    );
    assert_eq!(
        doc["mimeType"],
        "text/html; charset=utf-8".split(';').next().unwrap()
    );
    assert_eq!(find("/s.css")["mimeType"], "text/css");
    assert_eq!(find("/app.js")["mimeType"], "text/javascript");
    let data = find("/data.json");
    assert_eq!(data["status"], 200, "{data:#}");
    assert_eq!(data["mimeType"], "application/json");
    assert_eq!(data["size"], 11);
    assert!(data["startedMs"].as_i64().unwrap() > 1_700_000_000_000);
    // The fetch of /hop followed its redirect in the page: the 307 is an entry.
    assert_eq!(find("/hop")["status"], 307, "{r:#}");
    let refused = find("10.0.0.1/secret");
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .contains("network policy"),
        "{refused:#}"
    );
    assert_eq!(refused["status"], 0);
    assert_eq!(r["response"]["total"], entries.len() as u64);

    // The newest ones only, with a limit.
    let r = act(&client, "servo_network_log", &id, json!({"limit": 2})).await;
    assert_eq!(
        r["response"]["entries"].as_array().unwrap().len(),
        2,
        "{r:#}"
    );
    let r = act(&client, "servo_network_log", &id, json!({"limit": 501})).await;
    assert!(
        r["error"].as_str().unwrap_or_default().contains("1 to 500"),
        "{r:#}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn console_messages_gather_what_every_action_wrote() {
    let fleet = Fleet::start(1).await;
    let client = fleet.client("acme").await;
    let (out, _) = crate::harness::call(
        &client,
        "servo_navigate",
        json!({"actions": [{"html": "<script>console.log('loaded'); console.warn('careful');</script>"}]}),
    )
    .await;
    let id = out["responses"][0]["sessionID"]
        .as_str()
        .unwrap()
        .to_owned();
    act(
        &client,
        "servo_evaluate",
        &id,
        json!({"script": "console.error('from eval'); 1"}),
    )
    .await;
    act(
        &client,
        "servo_evaluate",
        &id,
        json!({"script": "setTimeout(() => console.info('later'), 0); 2"}),
    )
    .await;
    // A wait runs the page's timers; what they write is gathered too.
    act(&client, "servo_wait", &id, json!({"timeMs": 50})).await;
    let r = act(&client, "servo_console_messages", &id, json!({})).await;
    let seen: Vec<String> = r["response"]["messages"]
        .as_array()
        .unwrap_or_else(|| panic!("{r:#}"))
        .iter()
        .map(|m| {
            format!(
                "{}:{}",
                m["level"].as_str().unwrap(),
                m["text"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        &seen[..3],
        ["log:loaded", "warn:careful", "error:from eval"],
        "{r:#}"
    );
    assert!(seen.get(3).is_some_and(|m| m == "info:later"), "{seen:?}");
    assert_eq!(r["response"]["total"], 4);
    let r = act(&client, "servo_console_messages", &id, json!({"limit": 1})).await;
    assert_eq!(
        r["response"]["messages"].as_array().unwrap().len(),
        1,
        "{r:#}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn waiting_for_network_idle_lets_timed_requests_finish() {
    let app = axum::Router::new().route("/later.json", get(|| async { "{\"ok\": true}" }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let fleet = Fleet::start(1).await;
    let client = fleet.client("acme").await;
    let page = format!(
        "<title>idle</title><script>setTimeout(() => fetch('{base}/later.json').then(() => document.title = 'fetched'), 1500)</script>"
    );
    let (out, _) = crate::harness::call(
        &client,
        "servo_navigate",
        json!({"actions": [{"html": page}]}),
    )
    .await;
    let id = out["responses"][0]["sessionID"]
        .as_str()
        .unwrap()
        .to_owned();
    // The timer is past the quiet period: the load state holds, the request
    // has not been made.
    let r = act(&client, "servo_wait", &id, json!({"until": "load"})).await;
    assert_eq!(r["response"]["page"]["title"], "idle", "{r:#}");
    // Three network-idle waits carry the page clock past the timer.
    for _ in 0..3 {
        act(&client, "servo_wait", &id, json!({"until": "networkidle"})).await;
    }
    let r = act(&client, "servo_network_log", &id, json!({})).await;
    assert!(
        r["response"]["entries"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["url"].as_str().unwrap().ends_with("/later.json") && e["status"] == 200),
        "{r:#}"
    );
    let r = act(&client, "servo_wait", &id, json!({"until": "idle"})).await;
    assert!(
        r["error"]
            .as_str()
            .unwrap_or_default()
            .contains("until must be"),
        "{r:#}"
    );
}
