//! Bad input gets a specific error naming the field and the limit, and creates
//! or stores nothing.

use serde_json::{Value, json};

use crate::harness::{Fleet, call, mcp};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn each_kind_of_bad_input_is_refused_with_a_specific_message_and_stores_nothing() {
    let fleet = Fleet::start(1).await;
    let key = fleet.key("acme").await;
    let client = mcp(&fleet.gateway, Some(&key)).await;

    let many: Vec<Value> = (0..21).map(|_| json!({"html": "<p>x</p>"})).collect();
    let id = uuid::Uuid::new_v4().to_string();
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "servo_inspect",
            json!({"actions": [{"sessionID": "not-a-uuid"}]}),
            "actions[0].sessionID must be a session UUID",
        ),
        (
            "servo_navigate",
            json!({"actions": many}),
            "1 to 20 entries; got 21",
        ),
        (
            "servo_navigate",
            json!({"actions": []}),
            "1 to 20 entries; got 0",
        ),
        (
            "servo_navigate",
            json!({"actions": [{"url": "https://example.com/", "html": "<p>"}]}),
            "exactly one of url or html; got both",
        ),
        (
            "servo_navigate",
            json!({"actions": [{}]}),
            "exactly one of url or html; got neither",
        ),
        (
            "servo_navigate",
            json!({"actions": [{"html": "a".repeat(1024 * 1024 + 1)}]}),
            "actions[0].html is 1048577 bytes; the limit is 1048576 bytes (1 MiB)",
        ),
        (
            "servo_evaluate",
            json!({"actions": [{"script": "1".repeat(64 * 1024 + 1)}]}),
            "actions[0].script is 65537 bytes; the limit is 65536 bytes (64 KiB)",
        ),
        (
            "servo_navigate",
            json!({"actions": [{"url": "file:///etc/passwd"}]}),
            "only http and https URLs are allowed",
        ),
        (
            "servo_navigate",
            json!({"actions": [{"url": "https://user:pw@example.com/"}]}),
            "credentials",
        ),
        (
            "servo_navigate",
            json!({"actions": [{"url": "http://169.254.169.254/latest/meta-data/"}]}),
            "refused by the network policy",
        ),
        (
            "servo_navigate",
            json!({"actions": [{"url": "http://10.0.0.1/"}]}),
            "refused by the network policy",
        ),
        (
            "servo_navigate",
            json!({"actions": [{"url": "http://[::1]/"}]}),
            "refused by the network policy",
        ),
        (
            "servo_navigate",
            json!({"actions": [{"html": "<p>", "width": 5000}]}),
            "actions[0].width must be 320 to 1920; got 5000",
        ),
        (
            "servo_inspect",
            json!({"actions": [{"sessionID": id}, {"sessionID": id}]}),
            "may appear only once",
        ),
        (
            "servo_inspect",
            json!({"actions": [{"sessionID": id, "width": 800}]}),
            "cannot be used with an existing sessionID",
        ),
        (
            "servo_navigate",
            json!({"actions": [{"html": "<p>", "maxDurationMs": 15001}]}),
            "maxDurationMs must be 100 to 15000; got 15001",
        ),
        (
            "servo_navigate",
            json!({"actions": [{"html": "<p>", "color": "red"}]}),
            "unknown field \"color\"",
        ),
        (
            "servo_type_text",
            json!({"actions": [{"sessionID": id, "text": "x".repeat(10_001)}]}),
            "actions[0].text is 10001 characters; the limit is 10000",
        ),
        (
            "servo_press_key",
            json!({"actions": [{"sessionID": id, "key": "k".repeat(65)}]}),
            "actions[0].key is 65 characters; the limit is 64",
        ),
        (
            "servo_click",
            json!({"actions": [{"sessionID": id}]}),
            "actions[0] needs a target: exactly one of selector, visible text, ref or a point (x and y)",
        ),
        (
            "servo_click",
            json!({"actions": [{"sessionID": id, "x": 10_000.5, "y": 1}]}),
            "actions[0].x must be a number from 0 to 10000; got 10000.5",
        ),
        (
            "servo_click",
            json!({"actions": [{"sessionID": id, "ref": "12"}]}),
            "actions[0].ref must be an element reference",
        ),
        (
            "servo_click",
            json!({"actions": [{"selector": "a"}]}),
            "actions[0].sessionID is required",
        ),
        (
            "servo_click",
            json!({"actions": [{"sessionID": id, "selector": "x".repeat(1025)}]}),
            "actions[0].selector is 1025 characters; the limit is 1024",
        ),
        (
            "servo_scroll",
            json!({"actions": [{"sessionID": id, "dy": 1_000_001}]}),
            "actions[0].dy must be a number from -1000000 to 1000000; got 1000001",
        ),
        (
            "servo_accessibility_tree",
            json!({"actions": [{"sessionID": id, "maxNodes": 5001}]}),
            "actions[0].maxNodes must be 1 to 5000; got 5001",
        ),
        (
            "servo_select_option",
            json!({"actions": [{"sessionID": id, "selector": "select", "value": "v".repeat(1025)}]}),
            "actions[0].value is 1025 characters; the limit is 1024",
        ),
        (
            "servo_history",
            json!({"actions": [{"sessionID": id, "step": "sideways"}]}),
            "actions[0].step must be back, forward or reload; got \"sideways\"",
        ),
        (
            "servo_dialog_policy",
            json!({"actions": [{"sessionID": id}]}),
            "actions[0].accept is required",
        ),
        (
            "servo_dialog_policy",
            json!({"actions": [{"sessionID": id, "accept": true, "promptText": "p".repeat(10_001)}]}),
            "actions[0].promptText is 10001 characters; the limit is 10000",
        ),
        (
            "servo_live_view",
            json!({"actions": [{"sessionID": id, "mode": "drive"}]}),
            "actions[0].mode must be view or control; got \"drive\"",
        ),
        (
            "servo_live_view",
            json!({"actions": [{}]}),
            "actions[0].sessionID is required",
        ),
        (
            "servo_cdp_endpoint",
            json!({"actions": [{}]}),
            "actions[0].sessionID is required: it names the session to drive",
        ),
    ];
    for (tool, args, expected) in cases {
        let (out, raw) = call(&client, tool, args).await;
        assert_eq!(raw.is_error, Some(true), "{tool} {expected}: {out}");
        let msg = out["error"].as_str().unwrap_or_default();
        assert!(
            msg.contains(expected),
            "{tool}: expected {expected:?} in {msg:?}"
        );
        assert_eq!(out["code"], "INVALID_ARGUMENT");
    }
    assert_eq!(
        fleet.db.query_count("SELECT COUNT(*) FROM sessions").await,
        0,
        "bad input created sessions"
    );
    let mut conn = fleet.redis.clone();
    let routes: Vec<String> = redis::cmd("KEYS")
        .arg("route:*")
        .query_async(&mut conn)
        .await
        .unwrap();
    assert!(routes.is_empty(), "bad input claimed routes: {routes:?}");

    // Protocol-level errors: an unknown tool, and malformed JSON-RPC.
    let err = client
        .call_tool(
            rmcp::model::CallToolRequestParams::new("servo_teleport")
                .with_arguments(serde_json::Map::new()),
        )
        .await
        .unwrap_err();
    assert!(err.to_string().contains("servo_teleport"), "{err}");
    let resp = reqwest::Client::new()
        .post(format!("{}/mcp", fleet.gateway))
        .header("authorization", format!("Bearer {key}"))
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body("{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": ")
        .send()
        .await
        .unwrap();
    let status = resp.status();
    let body = resp.text().await.unwrap();
    assert!(
        status.is_client_error() || body.contains("-32700"),
        "malformed JSON-RPC got {status}: {body}"
    );
}
