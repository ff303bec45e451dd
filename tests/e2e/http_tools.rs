//! The `servo_http_*` tools through the whole fleet: MCP → gateway → a worker's
//! fetcher → loopback servers, with Servo MCP's arguments, limits and result
//! shapes; the network policy at every redirect hop; credentials dropped when
//! a redirect leaves the origin; and bad requests refused before they leave.

use axum::extract::{Path, Request};
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::{Html, IntoResponse, Redirect};
use axum::routing::{any, get};
use serde_json::{Value, json};

use crate::harness::{Fleet, call, first};

/// Serves `app` on loopback; returns its base URL.
async fn serve(app: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}")
}

/// Echoes the request as JSON: method, the headers that matter here, body.
async fn echo(method: Method, headers: HeaderMap, body: String) -> impl IntoResponse {
    let h = |n: &str| {
        headers
            .get(n)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    axum::Json(json!({
        "method": method.as_str(),
        "authorization": h("authorization"),
        "cookie": h("cookie"),
        "custom": h("x-custom"),
        "contentType": h("content-type"),
        "body": body,
    }))
}

/// The fixture site: pages, an echo, binary and long bodies, redirects.
/// `other` is the base URL of a second origin.
fn site(other: String) -> axum::Router {
    axum::Router::new()
        .route(
            "/page",
            get(|| async {
                Html(
                    "<!doctype html><html><head><title>Fixture &amp; Co</title>\
                     <script>document.title = 'changed'</script></head>\
                     <body><h1>Prices</h1><p>Tea costs 3&nbsp;EUR.</p><script>var hidden = 1;</script></body></html>",
                )
            }),
        )
        .route("/echo", any(echo))
        .route(
            "/bin",
            get(|| async { ([("content-type", "application/octet-stream")], vec![0u8, 159, 146, 150]) }),
        )
        .route("/long", get(|| async { "x".repeat(3 * 1024 * 1024) }))
        .route(
            "/hop/{n}",
            get(|Path(n): Path<u32>| async move {
                if n == 0 {
                    Redirect::to("/echo").into_response()
                } else {
                    Redirect::to(&format!("/hop/{}", n - 1)).into_response()
                }
            }),
        )
        .route(
            "/see-other",
            any(|| async { Redirect::to("/echo") }),
        )
        .route(
            "/to-other",
            get(move || {
                let other = other.clone();
                async move { Redirect::to(&format!("{other}/echo")) }
            }),
        )
        .route("/to-private", get(|| async { Redirect::to("http://10.1.2.3/admin") }))
        .route(
            "/to-metadata",
            get(|| async { Redirect::to("http://169.254.169.254/latest/meta-data/") }),
        )
        .route(
            "/status/{code}",
            get(|Path(code): Path<u16>| async move {
                (StatusCode::from_u16(code).unwrap(), "status body")
            }),
        )
        .route("/purge", any(|req: Request| async move { req.method().to_string() }))
}

/// Calls an HTTP tool with one action; the response entry.
async fn http(client: &crate::harness::Client, tool: &str, action: Value) -> Value {
    let (out, _) = call(client, tool, json!({"actions": [action]})).await;
    if out.get("responses").is_some() {
        first(&out).clone()
    } else {
        out
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn http_tools_send_requests_and_return_servo_mcp_shaped_answers() {
    let fleet = Fleet::start(1).await;
    let client = fleet.client("acme").await;
    let base = serve(site(String::new())).await;

    // HTML: status, headers, the raw body, and a readable result without
    // the head's script or the page's scripts.
    let r = http(
        &client,
        "servo_http_get",
        json!({"url": format!("{base}/page")}),
    )
    .await;
    assert_eq!(r["ok"], true, "{r:#}");
    assert!(
        r.get("sessionID").is_none(),
        "an HTTP answer names no session: {r:#}"
    );
    let resp = &r["response"];
    assert_eq!(
        resp["request"],
        json!({"method": "GET", "url": format!("{base}/page")})
    );
    assert_eq!(resp["response"]["status"], 200);
    assert_eq!(resp["response"]["statusText"], "OK");
    assert_eq!(resp["response"]["ok"], true);
    assert_eq!(resp["response"]["redirected"], false);
    assert_eq!(resp["response"]["truncated"], false);
    assert!(
        resp["response"]["contentType"]
            .as_str()
            .unwrap()
            .starts_with("text/html")
    );
    assert!(resp["body"].as_str().unwrap().contains("<h1>Prices</h1>"));
    assert_eq!(resp["bodyBase64"], Value::Null);
    let result = &resp["results"][0];
    assert_eq!(result["title"], "Fixture & Co", "{r:#}");
    assert_eq!(result["content"], "Prices\nTea costs 3 EUR.", "{r:#}");
    assert_eq!(result["url"], format!("{base}/page"));

    // POST with headers and a body; the caller's Cookie header is sent.
    let r = http(
        &client,
        "servo_http_post",
        json!({
            "url": format!("{base}/echo"),
            "headers": {"content-type": "application/json", "cookie": "a=1", "x-custom": "yes"},
            "body": "{\"q\": 1}"
        }),
    )
    .await;
    let echoed: Value = serde_json::from_str(r["response"]["body"].as_str().unwrap()).unwrap();
    assert_eq!(echoed["method"], "POST");
    assert_eq!(echoed["cookie"], "a=1");
    assert_eq!(echoed["custom"], "yes");
    assert_eq!(echoed["body"], "{\"q\": 1}");
    assert_eq!(
        r["response"]["results"][0]["content"],
        r["response"]["body"]
    );

    // Any method token through servo_http_request, extension methods too.
    let r = http(
        &client,
        "servo_http_request",
        json!({"url": format!("{base}/purge"), "method": "PURGE"}),
    )
    .await;
    assert_eq!(r["response"]["body"], "PURGE", "{r:#}");

    // Binary comes back as base64 with no readable result.
    let r = http(
        &client,
        "servo_http_get",
        json!({"url": format!("{base}/bin")}),
    )
    .await;
    assert_eq!(r["response"]["body"], Value::Null);
    assert_eq!(r["response"]["bodyBase64"], "AJ+Slg==");
    assert_eq!(r["response"]["results"], json!([]));

    // A long body is cut at maxResponseBytes, and at 512 KiB by default.
    let r = http(
        &client,
        "servo_http_get",
        json!({"url": format!("{base}/long"), "maxResponseBytes": 1000}),
    )
    .await;
    assert_eq!(r["response"]["response"]["bodyBytes"], 1000);
    assert_eq!(r["response"]["response"]["truncated"], true);
    let r = http(
        &client,
        "servo_http_get",
        json!({"url": format!("{base}/long")}),
    )
    .await;
    assert_eq!(r["response"]["response"]["bodyBytes"], 512 * 1024);

    // HEAD has no body; an error status is an answer, not a failure.
    let r = http(
        &client,
        "servo_http_head",
        json!({"url": format!("{base}/page")}),
    )
    .await;
    assert_eq!(r["response"]["response"]["bodyBytes"], 0, "{r:#}");
    let r = http(
        &client,
        "servo_http_get",
        json!({"url": format!("{base}/status/404")}),
    )
    .await;
    assert_eq!(r["ok"], true);
    assert_eq!(r["response"]["response"]["status"], 404);
    assert_eq!(r["response"]["response"]["ok"], false);
    assert_eq!(r["response"]["response"]["statusText"], "Not Found");

    // Five redirects are followed, a sixth is an upstream failure.
    let r = http(
        &client,
        "servo_http_get",
        json!({"url": format!("{base}/hop/4")}),
    )
    .await;
    assert_eq!(r["response"]["response"]["redirected"], true, "{r:#}");
    assert_eq!(r["response"]["response"]["url"], format!("{base}/echo"));
    let r = http(
        &client,
        "servo_http_get",
        json!({"url": format!("{base}/hop/5")}),
    )
    .await;
    assert_eq!(r["code"], "UPSTREAM_FAILED", "{r:#}");
    assert!(
        r["error"].as_str().unwrap().contains("5 redirects"),
        "{r:#}"
    );

    // followRedirects false returns the 3xx itself.
    let r = http(
        &client,
        "servo_http_get",
        json!({"url": format!("{base}/hop/0"), "followRedirects": false}),
    )
    .await;
    assert_eq!(r["response"]["response"]["status"], 303, "{r:#}");
    assert_eq!(r["response"]["response"]["headers"]["location"], "/echo");

    // 303 after a POST is a GET without the body.
    let r = http(
        &client,
        "servo_http_post",
        json!({"url": format!("{base}/see-other"), "body": "gone", "headers": {"content-type": "text/plain"}}),
    )
    .await;
    let echoed: Value = serde_json::from_str(r["response"]["body"].as_str().unwrap()).unwrap();
    assert_eq!(echoed["method"], "GET", "{r:#}");
    assert_eq!(echoed["body"], "");
    assert_eq!(echoed["contentType"], Value::Null);

    // Several requests in one call run side by side, each with its answer.
    let actions: Vec<Value> = (0..3)
        .map(|i| json!({"url": format!("{base}/status/{}", 200 + i)}))
        .collect();
    let (out, _) = call(&client, "servo_http_get", json!({"actions": actions})).await;
    assert_eq!(out["metadata"]["successfulCount"], 3, "{out:#}");
    for i in 0..3 {
        assert_eq!(
            out["responses"][i]["response"]["response"]["status"],
            200 + i
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn credentials_follow_a_redirect_within_the_origin_and_not_to_another() {
    let fleet = Fleet::start(1).await;
    let client = fleet.client("acme").await;
    // Another port is another origin.
    let other = serve(site(String::new())).await;
    let base = serve(site(other.clone())).await;
    let headers = json!({"authorization": "Bearer t0ken", "cookie": "sid=1", "x-custom": "kept"});

    let r = http(
        &client,
        "servo_http_get",
        json!({"url": format!("{base}/hop/1"), "headers": headers}),
    )
    .await;
    let same: Value = serde_json::from_str(r["response"]["body"].as_str().unwrap()).unwrap();
    assert_eq!(same["authorization"], "Bearer t0ken", "{r:#}");
    assert_eq!(same["cookie"], "sid=1");

    let r = http(
        &client,
        "servo_http_get",
        json!({"url": format!("{base}/to-other"), "headers": headers}),
    )
    .await;
    assert_eq!(
        r["response"]["response"]["url"],
        format!("{other}/echo"),
        "{r:#}"
    );
    let cross: Value = serde_json::from_str(r["response"]["body"].as_str().unwrap()).unwrap();
    assert_eq!(cross["authorization"], Value::Null, "{r:#}");
    assert_eq!(cross["cookie"], Value::Null, "{r:#}");
    assert_eq!(cross["custom"], "kept");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_redirect_hop_is_checked_against_the_network_policy() {
    let fleet = Fleet::start(1).await;
    let client = fleet.client("acme").await;
    let base = serve(site(String::new())).await;
    for path in ["/to-private", "/to-metadata"] {
        let r = http(
            &client,
            "servo_http_get",
            json!({"url": format!("{base}{path}")}),
        )
        .await;
        assert_eq!(r["code"], "NETWORK_REFUSED", "{path}: {r:#}");
        assert!(
            r["error"].as_str().unwrap().contains("network policy"),
            "{r:#}"
        );
    }
    // A private address asked for directly is refused before anything is sent.
    let (out, raw) = call(
        &client,
        "servo_http_get",
        json!({"actions": [{"url": "http://10.1.2.3/"}]}),
    )
    .await;
    assert_eq!(raw.is_error, Some(true));
    assert!(
        out["error"].as_str().unwrap().contains("10.1.2.3"),
        "{out:#}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn bad_http_requests_are_refused_naming_the_field_and_the_limit() {
    let fleet = Fleet::start(1).await;
    let client = fleet.client("acme").await;
    let url = "http://127.0.0.1:9/x";
    let many: serde_json::Map<String, Value> =
        (0..65).map(|i| (format!("x-h{i}"), json!("v"))).collect();
    let cases = [
        (
            "servo_http_request",
            json!({"url": url, "method": "CONNECT"}),
            "CONNECT",
        ),
        (
            "servo_http_request",
            json!({"url": url, "method": "trace"}),
            "TRACE",
        ),
        (
            "servo_http_request",
            json!({"url": url, "method": "GET IT"}),
            "method",
        ),
        (
            "servo_http_get",
            json!({"url": url, "body": "x"}),
            "not allowed with GET",
        ),
        (
            "servo_http_head",
            json!({"url": url, "body": "x"}),
            "not allowed with HEAD",
        ),
        (
            "servo_http_post",
            json!({"url": url, "body": "x".repeat(1024 * 1024 + 1)}),
            "1048576",
        ),
        ("servo_http_get", json!({"url": url, "headers": many}), "64"),
        (
            "servo_http_get",
            json!({"url": url, "headers": {"x": "a".repeat(8193)}}),
            "8192",
        ),
        (
            "servo_http_get",
            json!({"url": url, "headers": {"bad name": "v"}}),
            "bad name",
        ),
        (
            "servo_http_get",
            json!({"url": url, "headers": {"x": "a\r\nb: c"}}),
            "line break",
        ),
        (
            "servo_http_get",
            json!({"url": url, "maxResponseBytes": 0}),
            "maxResponseBytes",
        ),
        (
            "servo_http_get",
            json!({"url": url, "maxResponseBytes": 2 * 1024 * 1024 + 1}),
            "2097152",
        ),
        (
            "servo_http_get",
            json!({"url": "ftp://example.com/"}),
            "url",
        ),
        (
            "servo_http_get",
            json!({"url": "http://u:p@example.com/"}),
            "url",
        ),
        (
            "servo_http_get",
            json!({"url": url, "sessionID": null}),
            "sessionID",
        ),
        (
            "servo_http_get",
            json!({"url": url, "method": "POST"}),
            "method",
        ),
        ("servo_http_get", json!({}), "url is required"),
    ];
    for (tool, action, needle) in cases {
        let (out, raw) = call(&client, tool, json!({"actions": [action]})).await;
        assert_eq!(raw.is_error, Some(true), "{tool} {action}: {out:#}");
        let text = out["error"].as_str().unwrap_or_default().to_owned();
        assert!(text.contains(needle), "{tool}: {needle:?} not in {text:?}");
        assert!(text.contains("actions[0]"), "{tool}: {text:?}");
    }
    // At the limits exactly, the request is sent (and fails only upstream).
    let r = http(
        &client,
        "servo_http_post",
        json!({"url": url, "body": "x".repeat(1024 * 1024), "maxResponseBytes": 2 * 1024 * 1024}),
    )
    .await;
    assert_eq!(r["code"], "UPSTREAM_FAILED", "{r:#}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn http_tools_are_listed_without_sessions_and_with_honest_hints() {
    let fleet = Fleet::start(1).await;
    let client = fleet.client("acme").await;
    let tools = client.list_all_tools().await.unwrap();
    let seed_fields = [
        "url",
        "headers",
        "body",
        "followRedirects",
        "maxResponseBytes",
        "maxDurationMs",
    ];
    for (name, read_only, destructive) in [
        ("servo_http_request", false, true),
        ("servo_http_get", true, false),
        ("servo_http_post", false, true),
        ("servo_http_put", false, true),
        ("servo_http_patch", false, true),
        ("servo_http_delete", false, true),
        ("servo_http_head", true, false),
        ("servo_http_options", true, false),
    ] {
        let t = tools
            .iter()
            .find(|t| t.name == name)
            .unwrap_or_else(|| panic!("{name}"));
        let item = &t.input_schema["properties"]["actions"]["items"];
        let props = item["properties"].as_object().unwrap();
        for f in seed_fields {
            assert!(props.contains_key(f), "{name} lacks {f}");
        }
        assert_eq!(
            props.contains_key("method"),
            name == "servo_http_request",
            "{name}"
        );
        assert!(!props.contains_key("sessionID"), "{name}");
        assert_eq!(item["required"], json!(["url"]), "{name}");
        let a = t.annotations.as_ref().unwrap();
        assert_eq!(a.read_only_hint, Some(read_only), "{name}");
        assert_eq!(a.destructive_hint, Some(destructive), "{name}");
        assert_eq!(a.open_world_hint, Some(true), "{name}");
    }
}
