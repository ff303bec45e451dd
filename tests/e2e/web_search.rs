//! `servo_web_search` through the fleet, with the four providers served from
//! loopback pages written here in the shapes the real engines answer with
//! (the public engines are unreachable from tests): results merged in provider
//! order and de-duplicated, cut at the limit; a provider that times out or
//! answers garbage reported, not fatal; all failing is an error.

use std::collections::HashMap;
use std::time::Duration;

use axum::extract::Query;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};

use crate::harness::{Fleet, call};

type Params = Query<HashMap<String, String>>;

/// The query a request carries (`q`, or Yandex's `text`).
fn query(p: &HashMap<String, String>) -> String {
    p.get("q")
        .or_else(|| p.get("text"))
        .cloned()
        .unwrap_or_default()
}

async fn google(Query(p): Params) -> Response {
    let q = query(&p);
    if q == "down" {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    }
    if q == "slow" {
        tokio::time::sleep(Duration::from_secs(5)).await;
    }
    assert_eq!(p.get("hl").map(String::as_str), Some("en"));
    Html(format!(
        r#"<html><body><div id="search">
        <div class="g"><a href="/url?q=https://docs.example/{q}&amp;sa=U&amp;ved=x"><h3>Docs about {q}</h3></a></div>
        <div class="g"><a href="https://shared.example/page#frag"><h3>Shared page</h3></a></div>
        <a href="https://maps.google.com/"><h3>Maps</h3></a>
        </div></body></html>"#
    ))
    .into_response()
}

async fn bing(Query(p): Params) -> Response {
    if query(&p) == "down" || p.get("format").map(String::as_str) != Some("rss") {
        return StatusCode::BAD_REQUEST.into_response();
    }
    (
        [("content-type", "application/rss+xml; charset=utf-8")],
        r#"<?xml version="1.0" encoding="utf-8" ?><rss version="2.0"><channel><title>Bing</title>
        <item><title>Shared page (Bing)</title><link>https://shared.example/page/</link><description>Seen twice</description></item>
        <item><title>Bing only</title><link>https://bing-only.example/</link><description>From &lt;b&gt;Bing&lt;/b&gt;</description></item>
        </channel></rss>"#,
    )
        .into_response()
}

async fn duckduckgo(Query(p): Params) -> Response {
    if query(&p) == "down" {
        return StatusCode::SERVICE_UNAVAILABLE.into_response();
    }
    Html(
        r#"<div class="results"><div class="result results_links web-result">
        <h2 class="result__title"><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fduck.example%2Fa&amp;rut=1">Duck result</a></h2>
        <a class="result__snippet" href="//duckduckgo.com/l/?uddg=x">A <b>snippet</b> here</a></div></div>"#,
    )
    .into_response()
}

/// Yandex answers garbage: a page with nothing a result reader can use.
async fn yandex(Query(p): Params) -> Response {
    if query(&p) == "down" {
        return StatusCode::FORBIDDEN.into_response();
    }
    ([("content-type", "text/html")], "\u{1}\u{2}<<garbage>> <a").into_response()
}

async fn search(client: &crate::harness::Client, args: Value) -> (Value, bool) {
    let (out, raw) = call(client, "servo_web_search", args).await;
    (out, raw.is_error == Some(true))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn web_search_merges_providers_and_reports_the_ones_that_fail() {
    let app = axum::Router::new()
        .route("/google/search", get(google))
        .route("/bing/search", get(bing))
        .route("/ddg/html/", get(duckduckgo))
        .route("/yandex/search/", get(yandex));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let urls = [
        ("FLEET_SEARCH_GOOGLE_URL", format!("{base}/google/search")),
        ("FLEET_SEARCH_BING_URL", format!("{base}/bing/search")),
        ("FLEET_SEARCH_DUCKDUCKGO_URL", format!("{base}/ddg/html/")),
        ("FLEET_SEARCH_YANDEX_URL", format!("{base}/yandex/search/")),
        ("FLEET_SEARCH_TIMEOUT_MS", "1500".into()),
    ];
    let env: Vec<(&str, &str)> = urls.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let fleet = Fleet::start_env(1, &env).await;
    let client = fleet.client("acme").await;

    // auto: every provider, in order, each URL once; Yandex's garbage is reported.
    let (out, failed) = search(&client, json!({"query": "  rust  "})).await;
    assert!(!failed, "{out:#}");
    assert_eq!(out["query"], "rust");
    assert_eq!(out["provider"], "auto");
    let urls: Vec<&str> = out["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["url"].as_str().unwrap())
        .collect();
    assert_eq!(
        urls,
        [
            "https://docs.example/rust",
            "https://shared.example/page#frag",
            "https://bing-only.example/",
            "https://duck.example/a",
        ],
        "{out:#}"
    );
    assert_eq!(out["results"][0]["title"], "Docs about rust");
    assert_eq!(out["results"][0]["provider"], "google");
    assert_eq!(out["results"][2]["snippet"], "From Bing");
    assert_eq!(out["results"][3]["snippet"], "A snippet here");
    assert_eq!(out["providers"], json!(["google", "bing", "duckduckgo"]));
    assert_eq!(out["failedProviders"][0]["provider"], "yandex", "{out:#}");
    assert!(
        out["failedProviders"][0]["error"]
            .as_str()
            .unwrap()
            .contains("no results"),
        "{out:#}"
    );

    // The limit cuts the merged list; one provider alone is asked alone.
    let (out, _) = search(&client, json!({"query": "rust", "limit": 2})).await;
    assert_eq!(out["results"].as_array().unwrap().len(), 2, "{out:#}");
    let (out, _) = search(&client, json!({"query": "rust", "provider": "bing"})).await;
    assert_eq!(out["providers"], json!(["bing"]), "{out:#}");
    assert_eq!(out["failedProviders"], json!([]));
    assert_eq!(out["results"].as_array().unwrap().len(), 2);

    // A provider past its timeout is reported; the others answer.
    let started = std::time::Instant::now();
    let (out, failed) = search(&client, json!({"query": "slow", "provider": "all"})).await;
    assert!(!failed, "{out:#}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "waited on the slow provider"
    );
    let google_failure = out["failedProviders"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["provider"] == "google")
        .unwrap_or_else(|| panic!("google not reported: {out:#}"));
    assert!(
        google_failure["error"]
            .as_str()
            .unwrap()
            .contains("timed out"),
        "{out:#}"
    );
    assert_eq!(out["providers"], json!(["bing", "duckduckgo"]));

    // Every provider failing is an error naming each.
    let (out, failed) = search(&client, json!({"query": "down"})).await;
    assert!(failed, "{out:#}");
    assert_eq!(out["code"], "UPSTREAM_FAILED", "{out:#}");
    for p in [
        "google: answered HTTP 500",
        "bing: answered HTTP 400",
        "duckduckgo",
        "yandex",
    ] {
        assert!(out["error"].as_str().unwrap().contains(p), "{p}: {out:#}");
    }

    // Bad input is refused before any provider is asked.
    for (args, needle) in [
        (json!({"query": "   "}), "query must be 1 to 512"),
        (json!({"query": "x".repeat(513)}), "got 513"),
        (json!({"query": "x", "limit": 11}), "limit must be 1 to 10"),
        (
            json!({"query": "x", "limit": 0}),
            "limit must be an integer from 1 to 10",
        ),
        (
            json!({"query": "x", "provider": "altavista"}),
            "provider must be one of",
        ),
        (
            json!({"query": "x", "engine": "bing"}),
            "unknown argument \"engine\"",
        ),
        (json!({}), "query is required"),
    ] {
        let (out, failed) = search(&client, args.clone()).await;
        assert!(failed, "{args}: {out:#}");
        assert!(
            out["error"].as_str().unwrap_or_default().contains(needle),
            "{args}: {needle:?} not in {out:#}"
        );
    }
}
