//! Tenant limits at their edges: N allowed, N+1 refused with nothing created,
//! and allowed again once the window passes; over MCP (HTTP 429 with
//! `Retry-After`, or a `RESOURCE_EXHAUSTED` tool result) and gRPC
//! (`RESOURCE_EXHAUSTED` with `grpc-retry-pushback-ms`).

use std::time::Duration;

use fleet_proto::v1::{self as pb, browser_client::BrowserClient};
use serde_json::{Value, json};
use tonic::metadata::MetadataValue;

use crate::harness::{Fleet, call, mcp, run_cli, wait_for};

pub(crate) async fn set_limits(fleet: &Fleet, tenant: &str, limits: &[&str]) {
    let mut args = vec!["tenants", "set", tenant];
    args.extend_from_slice(limits);
    args.extend(["--database-url", &fleet.db.url]);
    let (ok, out, err) = run_cli(&args).await;
    assert!(ok, "tenants set failed: {err}");
    let (ok, shown, _) =
        run_cli(&["tenants", "show", tenant, "--database-url", &fleet.db.url]).await;
    assert!(ok && shown == out, "show agrees with set: {shown} vs {out}");
}

/// POSTs `tools/list` to /mcp; the status, `Retry-After` and JSON body.
async fn list_tools(gateway: &str, key: &str) -> (u16, Option<u64>, Value) {
    let resp = reqwest::Client::new()
        .post(format!("{gateway}/mcp"))
        .header("accept", "application/json, text/event-stream")
        .header("authorization", format!("Bearer {key}"))
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    let retry = resp
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok()?.parse().ok());
    let body = resp.json().await.unwrap_or(Value::Null);
    (status, retry, body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_tenants_request_rate_allows_its_burst_refuses_the_next_with_429_and_recovers() {
    let fleet = Fleet::start(1).await;
    let key = fleet.key("rate").await;
    set_limits(
        &fleet,
        "rate",
        &["--requests-per-second", "1", "--burst", "3"],
    )
    .await;
    // Requests until the first refusal: the burst of 3, plus at most one per
    // second that passed meanwhile (a slow machine may refill a token).
    let started = tokio::time::Instant::now();
    let mut passed = 0;
    let (status, retry, body) = loop {
        let seen = list_tools(&fleet.gateway, &key).await;
        if seen.0 != 200 {
            break seen;
        }
        passed += 1;
        assert!(passed < 20, "the rate never refused");
    };
    let refilled = usize::try_from(started.elapsed().as_secs()).unwrap();
    assert!((3..=3 + refilled).contains(&passed), "{passed} passed");
    assert_eq!(status, 429, "{body}");
    assert_eq!(retry, Some(1));
    assert_eq!(body["code"], "RESOURCE_EXHAUSTED");
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("requests per second"),
        "{body}"
    );
    let metrics = crate::harness::metrics(&fleet.gateway).await;
    assert!(
        metrics
            .lines()
            .any(|l| l.starts_with("fleet_gateway_limited_total")
                && l.contains("tenant=\"rate\"")
                && l.contains("requests_per_second")),
        "{metrics}"
    );
    // Refused requests take nothing: a token comes back within a second.
    wait_for(
        "the rate to allow a request again",
        Duration::from_secs(5),
        || async { (list_tools(&fleet.gateway, &key).await.0 == 200).then_some(()) },
    )
    .await;

    // gRPC: RESOURCE_EXHAUSTED with a pushback hint.
    let grpc_key = fleet.key("rate-grpc").await;
    set_limits(
        &fleet,
        "rate-grpc",
        &["--requests-per-second", "1", "--burst", "1"],
    )
    .await;
    let channel = tonic::transport::Channel::from_shared(fleet.gateway.clone())
        .unwrap()
        .connect()
        .await
        .unwrap();
    let bearer: MetadataValue<_> = format!("Bearer {grpc_key}").parse().unwrap();
    let mut client = BrowserClient::with_interceptor(channel, move |mut req: tonic::Request<()>| {
        req.metadata_mut().insert("authorization", bearer.clone());
        Ok(req)
    });
    client
        .list_sessions(pb::ListSessionsRequest { limit: 0 })
        .await
        .unwrap();
    let refused = loop {
        // A slow machine may refill the one token between two calls.
        if let Err(e) = client
            .list_sessions(pb::ListSessionsRequest { limit: 0 })
            .await
        {
            break e;
        }
    };
    assert_eq!(refused.code(), tonic::Code::ResourceExhausted, "{refused}");
    let pushback: u64 = refused
        .metadata()
        .get("grpc-retry-pushback-ms")
        .and_then(|v| v.to_str().ok()?.parse().ok())
        .expect("a pushback hint");
    assert!(pushback > 0 && pushback <= 1000, "{pushback}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_tenants_open_sessions_are_capped_and_a_refused_call_creates_nothing() {
    let fleet = Fleet::start(1).await;
    let key = fleet.key("capped").await;
    set_limits(&fleet, "capped", &["--max-sessions", "2"]).await;
    let client = mcp(&fleet.gateway, Some(&key)).await;
    let tab = |t: &str| json!({"html": format!("<title>{t}</title>")});
    let (out, _) = call(
        &client,
        "servo_navigate",
        json!({"actions": [tab("a"), tab("b")]}),
    )
    .await;
    assert_eq!(out["metadata"]["successfulCount"], 2, "{out:#}");
    let count = "SELECT COUNT(*) FROM sessions";
    assert_eq!(fleet.db.query_count(count).await, 2);

    let (out, raw) = call(&client, "servo_navigate", json!({"actions": [tab("c")]})).await;
    assert_eq!(raw.is_error, Some(true));
    assert_eq!(out["code"], "RESOURCE_EXHAUSTED", "{out:#}");
    assert!(
        out["error"].as_str().unwrap().contains("limit is 2"),
        "{out:#}"
    );
    assert_eq!(fleet.db.query_count(count).await, 2, "nothing was created");

    // Closing one makes room for exactly one.
    let a = out_session(&client, "a").await;
    let (closed, _) = call(
        &client,
        "servo_session_close",
        json!({"actions": [{"sessionID": a}]}),
    )
    .await;
    assert_eq!(closed["metadata"]["successfulCount"], 1, "{closed:#}");
    let (out, _) = call(
        &client,
        "servo_navigate",
        json!({"actions": [tab("c"), tab("d")]}),
    )
    .await;
    assert_eq!(
        out["code"], "RESOURCE_EXHAUSTED",
        "two would pass the limit: {out:#}"
    );
    let (out, _) = call(&client, "servo_navigate", json!({"actions": [tab("c")]})).await;
    assert_eq!(out["metadata"]["successfulCount"], 1, "{out:#}");
}

/// The ID of the tenant's session titled `title`.
async fn out_session(client: &crate::harness::Client, title: &str) -> String {
    let (out, _) = call(client, "servo_session_list", json!({})).await;
    out["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["title"] == title)
        .and_then(|s| s["sessionID"].as_str())
        .unwrap_or_else(|| panic!("no session titled {title}: {out:#}"))
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_tenants_calls_in_flight_are_capped_and_a_finished_call_frees_its_place() {
    let fleet = Fleet::start(1).await;
    let key = fleet.key("busy").await;
    set_limits(&fleet, "busy", &["--max-in-flight", "1"]).await;
    let client = mcp(&fleet.gateway, Some(&key)).await;
    let (out, _) = call(
        &client,
        "servo_navigate",
        json!({"actions": [{"html": "<title>busy</title>"}]}),
    )
    .await;
    let id = out["responses"][0]["sessionID"]
        .as_str()
        .unwrap()
        .to_owned();
    let slow = tokio::spawn(async move {
        call(
            &client,
            "servo_evaluate",
            json!({"actions": [{"sessionID": id, "script": "let t = Date.now(); while (Date.now() - t < 6000) {} 'done'"}]}),
        )
        .await
        .0
    });
    // Polling before the slow call is in could take its place and have it
    // refused instead: wait until the gateway has counted it.
    wait_for(
        "the slow call to be in flight",
        Duration::from_secs(20),
        || async {
            let mut conn = fleet.redis.clone();
            let keys: Vec<String> = redis::cmd("KEYS")
                .arg("limit:inflight:*")
                .query_async(&mut conn)
                .await
                .unwrap();
            let mut n = 0u64;
            for k in keys {
                let card: u64 = redis::cmd("ZCARD")
                    .arg(k)
                    .query_async(&mut conn)
                    .await
                    .unwrap();
                n += card;
            }
            (n >= 1).then_some(())
        },
    )
    .await;
    let (_, retry, body) = wait_for(
        "a second call to be refused",
        Duration::from_secs(20),
        || async {
            let seen = list_tools(&fleet.gateway, &key).await;
            (seen.0 == 429).then_some(seen)
        },
    )
    .await;
    assert!(
        body["error"].as_str().unwrap().contains("in flight"),
        "{body}"
    );
    assert_eq!(retry, Some(1));
    let done = slow.await.unwrap();
    assert_eq!(
        done["responses"][0]["response"]["value"], "done",
        "{done:#}"
    );
    wait_for(
        "the finished call to free its place",
        Duration::from_secs(5),
        || async { (list_tools(&fleet.gateway, &key).await.0 == 200).then_some(()) },
    )
    .await;
}
