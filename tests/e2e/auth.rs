//! Every call is authenticated, and a tenant sees only its own sessions.

use serde_json::json;

use crate::harness::{Fleet, call, first, mcp};

async fn post_mcp(base: &str, auth: Option<&str>) -> reqwest::StatusCode {
    let mut req = reqwest::Client::new()
        .post(format!("{base}/mcp"))
        .header("accept", "application/json, text/event-stream")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
    if let Some(a) = auth {
        req = req.header("authorization", a);
    }
    req.send().await.unwrap().status()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn calls_without_a_valid_key_get_401_and_other_tenants_sessions_are_not_found() {
    let fleet = Fleet::start(1).await;
    assert_eq!(post_mcp(&fleet.gateway, None).await, 401);
    assert_eq!(
        post_mcp(&fleet.gateway, Some("Bearer sfk_not_a_real_key")).await,
        401
    );
    assert_eq!(
        post_mcp(&fleet.gateway, Some("Basic dXNlcjpwdw==")).await,
        401
    );

    let key_a = fleet.key("tenant-a").await;
    let key_b = fleet.key("tenant-b").await;
    let a = mcp(&fleet.gateway, Some(&key_a)).await;
    let b = mcp(&fleet.gateway, Some(&key_b)).await;
    let (out, _) = call(
        &a,
        "servo_navigate",
        json!({"actions": [{"html": "<title>A's tab</title>"}]}),
    )
    .await;
    let id = first(&out)["sessionID"].as_str().unwrap().to_owned();

    let sessions_before = fleet.db.query_count("SELECT COUNT(*) FROM sessions").await;
    for tool in [
        "servo_inspect",
        "servo_evaluate",
        "servo_screenshot",
        "servo_session_status",
    ] {
        let mut action = json!({"sessionID": id});
        if tool == "servo_evaluate" {
            action["script"] = json!("document.title");
        }
        let (out, raw) = call(&b, tool, json!({"actions": [action]})).await;
        let r = first(&out);
        assert_eq!(r["ok"], false, "{tool}: {out:#}");
        assert_eq!(r["code"], "SESSION_NOT_FOUND", "{tool}");
        assert_eq!(r["status"], 404, "{tool}");
        assert_eq!(raw.is_error, Some(true));
    }
    // An unknown ID is the same answer, and neither creates anything.
    let (out, _) = call(
        &b,
        "servo_inspect",
        json!({"actions": [{"sessionID": uuid::Uuid::new_v4().to_string()}]}),
    )
    .await;
    assert_eq!(first(&out)["code"], "SESSION_NOT_FOUND");
    assert_eq!(
        fleet.db.query_count("SELECT COUNT(*) FROM sessions").await,
        sessions_before
    );

    let (out, _) = call(&a, "servo_inspect", json!({"actions": [{"sessionID": id}]})).await;
    assert_eq!(
        first(&out)["response"]["page"]["title"],
        "A's tab",
        "the owner still reaches it: {out:#}"
    );
}
