//! A client written for Servo MCP (the seed in `../shared/reference`) finds
//! every tool it knows, with the fields it sends, and gets the answers it
//! reads: tool names, argument names, `servo_session_status {}` opening a tab,
//! `servo_reload`, fonts with IDs, and the grouped capability report.

use serde_json::{Value, json};

use crate::harness::{Fleet, act, call, first};

/// Servo MCP's tools: name, the fields of one action, and which of them it
/// requires. `sessionID`, `width` and `height` are common to all of them.
const SEED_TOOLS: &[(&str, &[&str], &[&str])] = &[
    ("servo_navigate", &["url", "html", "maxDurationMs"], &[]),
    ("servo_inspect", &[], &[]),
    ("servo_evaluate", &["script", "maxDurationMs"], &["script"]),
    (
        "servo_click",
        &["x", "y", "button", "maxDurationMs"],
        &["x", "y"],
    ),
    ("servo_type_text", &["text", "maxDurationMs"], &["text"]),
    ("servo_press_key", &["key", "maxDurationMs"], &["key"]),
    (
        "servo_scroll",
        &["deltaX", "deltaY", "x", "y", "maxDurationMs"],
        &["deltaX", "deltaY"],
    ),
    (
        "servo_history",
        &["direction", "maxDurationMs"],
        &["direction"],
    ),
    ("servo_reload", &["maxDurationMs"], &[]),
    ("servo_wait", &["maxDurationMs"], &[]),
    ("servo_screenshot", &["fullPage", "maxDurationMs"], &[]),
    ("servo_register_font", &["fontBase64"], &["fontBase64"]),
    ("servo_get_capabilities", &[], &[]),
    ("servo_session_status", &[], &[]),
    ("servo_recording_start", &["fps", "maxDurationSeconds"], &[]),
    ("servo_recording_stop", &["recordingId"], &["recordingId"]),
    ("servo_recording_status", &["recordingId"], &["recordingId"]),
    (
        "servo_recording_download",
        &["recordingId"],
        &["recordingId"],
    ),
];

/// Tools that act on a page a tab already shows: they need a session, so
/// they take no viewport and require `sessionID` where Servo MCP would open
/// a blank tab first. The recording tools are here too: a recording is of
/// a tab that exists (status and download name the recording alone).
const ON_A_PAGE: &[&str] = &[
    "servo_click",
    "servo_type_text",
    "servo_press_key",
    "servo_scroll",
    "servo_history",
    "servo_reload",
    "servo_wait",
    "servo_recording_start",
    "servo_recording_stop",
    "servo_recording_status",
    "servo_recording_download",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_servo_mcp_tool_is_listed_with_the_fields_servo_mcp_sends() {
    let fleet = Fleet::start(1).await;
    let client = fleet.client("acme").await;
    let tools = client.list_all_tools().await.unwrap();
    for (name, fields, required) in SEED_TOOLS {
        let tool = tools
            .iter()
            .find(|t| t.name == *name)
            .unwrap_or_else(|| panic!("{name} is not listed"));
        let item = &tool.input_schema["properties"]["actions"]["items"];
        let props = item["properties"].as_object().unwrap();
        let mut expected: Vec<&str> = fields.to_vec();
        expected.push("sessionID");
        if !ON_A_PAGE.contains(name) {
            expected.extend(["width", "height"]);
        }
        for f in expected {
            assert!(props.contains_key(f), "{name} lacks the field {f}");
        }
        // Nothing Servo MCP leaves optional is required here, except the
        // session of a tool that acts on a page.
        let ours: Vec<&str> = item["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        for r in &ours {
            assert!(
                required.contains(r) || (*r == "sessionID" && ON_A_PAGE.contains(name)),
                "{name} requires {r}, which Servo MCP does not"
            );
        }
        for r in *required {
            // Where we accept two names for one field (dx or deltaX), neither
            // alone can be required.
            assert!(
                ours.contains(r) || matches!(*r, "x" | "y" | "deltaX" | "deltaY" | "direction"),
                "{name} does not require {r}"
            );
        }
    }
    // The HTTP tools: no session, Servo MCP's fields.
    let http_fields = [
        "url",
        "headers",
        "body",
        "followRedirects",
        "maxResponseBytes",
        "maxDurationMs",
    ];
    for verb in [
        "request", "get", "post", "put", "patch", "delete", "head", "options",
    ] {
        let name = format!("servo_http_{verb}");
        let tool = tools
            .iter()
            .find(|t| t.name == name)
            .unwrap_or_else(|| panic!("{name} is not listed"));
        let item = &tool.input_schema["properties"]["actions"]["items"];
        for f in http_fields {
            assert!(item["properties"].get(f).is_some(), "{name} lacks {f}");
        }
        assert_eq!(
            item["properties"].get("method").is_some(),
            verb == "request",
            "{name}"
        );
        assert_eq!(item["required"], json!(["url"]), "{name}");
    }
    // Web search takes its arguments at the top level.
    let search = tools
        .iter()
        .find(|t| t.name == "servo_web_search")
        .expect("servo_web_search is not listed");
    for f in ["query", "limit", "provider"] {
        assert!(
            search.input_schema["properties"].get(f).is_some(),
            "search lacks {f}"
        );
    }
    assert_eq!(search.input_schema["required"], json!(["query"]));
    // The old name still answers, but is not listed twice.
    assert!(!tools.iter().any(|t| t.name == "servo_type"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn servo_mcp_calls_get_servo_mcp_answers() {
    let fleet = Fleet::start(1).await;
    let client = fleet.client("acme").await;

    // A status with no session opens a blank tab and reports it.
    let (out, _) = call(&client, "servo_session_status", json!({"actions": [{}]})).await;
    let r = first(&out);
    assert_eq!(r["ok"], true, "{out:#}");
    assert_eq!(r["response"]["status"], "active", "{out:#}");
    assert_eq!(r["response"]["runtimeAvailable"], true, "{out:#}");
    let blank = r["sessionID"].as_str().unwrap().to_owned();
    assert!(uuid::Uuid::parse_str(&blank).is_ok(), "{out:#}");
    let r = act(&client, "servo_inspect", &blank, json!({})).await;
    assert_eq!(r["ok"], true, "the tab status opened is usable: {r:#}");

    // servo_reload runs the page again; history takes `direction`.
    let page = "<title>t</title><div style='height:5000px'>tall</div><script>\
        sessionStorage.n = (+sessionStorage.n || 0) + 1; document.title = 'load ' + sessionStorage.n;</script>";
    let (out, _) = call(
        &client,
        "servo_navigate",
        json!({"actions": [{"html": page}]}),
    )
    .await;
    let id = first(&out)["sessionID"].as_str().unwrap().to_owned();
    assert_eq!(first(&out)["response"]["page"]["title"], "load 1");
    let r = act(&client, "servo_reload", &id, json!({})).await;
    assert_eq!(r["response"]["action"], "reload", "{r:#}");
    assert_eq!(r["response"]["page"]["title"], "load 2", "{r:#}");

    // Scroll by Servo MCP's deltaY; both names at once is an error.
    let r = act(
        &client,
        "servo_scroll",
        &id,
        json!({"deltaX": 0, "deltaY": 300}),
    )
    .await;
    assert_eq!(r["response"]["action"], "scroll", "{r:#}");
    let y = act(&client, "servo_evaluate", &id, json!({"script": "scrollY"})).await;
    assert_eq!(y["response"]["value"], 300, "{y:#}");
    let r = act(&client, "servo_scroll", &id, json!({"dy": 1, "deltaY": 1})).await;
    assert!(
        r["error"]
            .as_str()
            .unwrap_or_default()
            .contains("dy and deltaY"),
        "{r:#}"
    );

    // A click names the button; only the primary one is pressed.
    let r = act(
        &client,
        "servo_click",
        &id,
        json!({"x": 5, "y": 5, "button": 0}),
    )
    .await;
    assert_eq!(r["ok"], true, "{r:#}");
    assert_eq!(r["response"]["action"], "click", "{r:#}");
    let r = act(
        &client,
        "servo_click",
        &id,
        json!({"x": 5, "y": 5, "button": 2}),
    )
    .await;
    assert!(
        r["error"]
            .as_str()
            .unwrap_or_default()
            .contains("button is 2"),
        "{r:#}"
    );

    // History by direction.
    let (out, _) = call(
        &client,
        "servo_navigate",
        json!({"actions": [{"sessionID": id, "html": "<title>second</title>"}]}),
    )
    .await;
    assert_eq!(first(&out)["ok"], true, "{out:#}");
    let r = act(&client, "servo_history", &id, json!({"direction": "back"})).await;
    assert_eq!(r["ok"], true, "{r:#}");
    assert!(
        r["response"]["page"]["title"]
            .as_str()
            .unwrap()
            .starts_with("load "),
        "{r:#}"
    );

    // The name this fleet used before answers too.
    let (out, _) = call(
        &client,
        "servo_navigate",
        json!({"actions": [{"sessionID": id, "html": "<input id=f autofocus>"}]}),
    )
    .await;
    assert_eq!(first(&out)["ok"], true, "{out:#}");
    let r = act(
        &client,
        "servo_type",
        &id,
        json!({"selector": "#f", "text": "hi"}),
    )
    .await;
    assert_eq!(r["response"]["action"], "type", "{r:#}");
    let v = act(&client, "servo_evaluate", &id, json!({"script": "f.value"})).await;
    assert_eq!(v["response"]["value"], "hi", "{v:#}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn capabilities_are_grouped_as_servo_mcp_groups_them() {
    let fleet = Fleet::start(1).await;
    let client = fleet.client("acme").await;
    let (out, _) = call(&client, "servo_get_capabilities", json!({"actions": [{}]})).await;
    let c = &first(&out)["response"];
    let list = c["capabilities"].as_array().unwrap();
    let of = |support: &str| -> Vec<&Value> {
        list.iter().filter(|e| e["support"] == support).collect()
    };
    let unsupported = of("unsupported");
    assert!(!unsupported.is_empty(), "{c:#}");
    assert_eq!(
        c["unsupported"].as_array().unwrap().len(),
        unsupported.len()
    );
    for e in unsupported {
        let name = e["name"].as_str().unwrap();
        assert_eq!(c["unsupportedReasons"][name], e["reason"], "{name}");
        assert!(!e["reason"].as_str().unwrap().is_empty(), "{name}");
    }
    for e in of("partial") {
        assert_eq!(c["partial"][e["name"].as_str().unwrap()], e["reason"]);
    }
    assert_eq!(
        c["supported"].as_array().unwrap().len(),
        of("supported").len()
    );
    assert_eq!(
        c["unverified"].as_array().unwrap().len(),
        of("unverified").len()
    );
}
