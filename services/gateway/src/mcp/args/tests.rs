//! Argument parsing: falsy sessions, exclusive fields, unknown fields, and
//! every tool's action against read-only mode and the gRPC action kinds.

use super::*;
use serde_json::json;

fn args(v: Value) -> JsonObject {
    v.as_object().cloned().unwrap()
}

#[test]
fn falsy_session_ids_mean_a_new_session() {
    for falsy in [json!(null), json!(false), json!(0), json!("")] {
        let a = parse_call(
            ToolKind::Inspect,
            Some(&args(json!({"actions": [{"sessionID": falsy}]}))),
        )
        .unwrap();
        assert_eq!(a[0].session_id, "");
    }
    let e = parse_call(
        ToolKind::Inspect,
        Some(&args(json!({"actions": [{"sessionID": true}]}))),
    )
    .unwrap_err();
    assert!(e.to_string().contains("actions[0].sessionID"), "{e}");
}

#[test]
fn navigate_needs_exactly_one_of_url_and_html() {
    let both = args(json!({"actions": [{"url": "https://e.com/", "html": "<p>"}]}));
    assert!(
        parse_call(ToolKind::Navigate, Some(&both))
            .unwrap_err()
            .to_string()
            .contains("got both")
    );
    let neither = args(json!({"actions": [{}]}));
    assert!(
        parse_call(ToolKind::Navigate, Some(&neither))
            .unwrap_err()
            .to_string()
            .contains("got neither")
    );
}

#[test]
fn unknown_fields_are_named() {
    let a = args(json!({"actions": [{"url": "https://e.com/", "colour": 1}]}));
    let e = parse_call(ToolKind::Navigate, Some(&a))
        .unwrap_err()
        .to_string();
    assert!(e.contains("\"colour\""), "{e}");
    let a = args(json!({"actions": [{"html": "<p>"}]}));
    let e = parse_call(ToolKind::Inspect, Some(&a))
        .unwrap_err()
        .to_string();
    assert!(e.contains("\"html\""), "{e}");
}

#[test]
fn a_partial_viewport_fills_the_other_side_with_the_default() {
    let a = parse_call(
        ToolKind::Navigate,
        Some(&args(json!({"actions": [{"html": "x", "width": 800}]}))),
    )
    .unwrap();
    assert_eq!(
        a[0].viewport,
        Some(pb::Viewport {
            width: 800,
            height: 720
        })
    );
}

/// One minimal action of every tool, parsed: the tool and its action kind.
fn every_tools_action() -> Vec<(&'static super::super::tools::Spec, Kind)> {
    use super::super::tools::TOOLS;
    TOOLS
        .iter()
        .map(|spec| {
            let (_, required) = spec.kind.fields();
            let mut action = serde_json::Map::new();
            for field in required {
                let v = match field {
                    "sessionID" => json!("6a1f0c3e-5b7d-4e2a-9c1b-2d3e4f5a6b7c"),
                    "url" => json!("https://example.com/"),
                    "accept" => json!(true),
                    "fontBase64" => json!("AAAA"),
                    "key" => json!("Enter"),
                    "recordingId" => json!("0b6c2a5e-3f1d-4c8b-9a7e-5d4c3b2a1f0e"),
                    _ => json!("x"),
                };
                action.insert(field.to_owned(), v);
            }
            match spec.kind {
                ToolKind::Navigate => {
                    action.insert("url".into(), json!("https://example.com/"));
                }
                ToolKind::History => {
                    action.insert("step".into(), json!("back"));
                }
                // The general tool reaches outside with any unsafe method.
                ToolKind::HttpRequest => {
                    action.insert("method".into(), json!("POST"));
                }
                ToolKind::StorageSet => {
                    action.insert("items".into(), json!({"k": "v"}));
                }
                ToolKind::FrameEvaluate => {
                    action.insert("frameId".into(), json!("1"));
                    action.insert("script".into(), json!("1"));
                }
                ToolKind::FrameHtml => {
                    action.insert("frameId".into(), json!(2));
                }
                ToolKind::StorageStateImport => {
                    action.insert("storageState".into(), json!({"cookies": []}));
                }
                ToolKind::CookiesSet => {
                    action.insert(
                        "cookies".into(),
                        json!([{"name": "a", "value": "1", "url": "https://example.com/"}]),
                    );
                }
                _ => {}
            }
            let parsed = parse_call(spec.kind, Some(&args(json!({"actions": [action]}))))
                .unwrap_or_else(|e| panic!("{}: {e}", spec.name));
            let kind = parsed[0].action.clone().unwrap().kind.unwrap();
            (spec, kind)
        })
        .collect()
}

#[test]
fn read_only_leaves_out_exactly_the_tools_whose_actions_reach_outside() {
    for (spec, kind) in every_tools_action() {
        assert_eq!(
            crate::read_only::reaches_outside(&kind),
            spec.outside,
            "{}",
            spec.name
        );
    }
}

/// The name of an action kind. The match is exhaustive, so a kind added to
/// the proto must be named here, and then [`KINDS`] must list it.
fn kind_name(k: &Kind) -> &'static str {
    match k {
        Kind::Navigate(_) => "navigate",
        Kind::Inspect(_) => "inspect",
        Kind::Evaluate(_) => "evaluate",
        Kind::Screenshot(_) => "screenshot",
        Kind::Status(_) => "status",
        Kind::Close(_) => "close",
        Kind::RegisterFont(_) => "register_font",
        Kind::Click(_) => "click",
        Kind::Type(_) => "type",
        Kind::PressKey(_) => "press_key",
        Kind::Scroll(_) => "scroll",
        Kind::SelectOption(_) => "select_option",
        Kind::History(_) => "history",
        Kind::Accessibility(_) => "accessibility",
        Kind::Capabilities(_) => "capabilities",
        Kind::DialogPolicy(_) => "dialog_policy",
        Kind::Wait(_) => "wait",
        Kind::Http(_) => "http",
        Kind::WebSearch(_) => "web_search",
        Kind::Cookies(_) => "cookies",
        Kind::Storage(_) => "storage",
        Kind::NetworkLog(_) => "network_log",
        Kind::ConsoleMessages(_) => "console_messages",
        Kind::Hover(_) => "hover",
        Kind::Find(_) => "find",
        Kind::Frames(_) => "frames",
        Kind::Recording(_) => "recording",
        Kind::Downloads(_) => "downloads",
        Kind::LiveView(_) => "live_view",
        Kind::CdpEndpoint(_) => "cdp_endpoint",
    }
}

/// Every action kind of `fleet.v1.Browser`.
const KINDS: [&str; 30] = [
    "navigate",
    "inspect",
    "evaluate",
    "screenshot",
    "status",
    "close",
    "register_font",
    "click",
    "type",
    "press_key",
    "scroll",
    "select_option",
    "history",
    "accessibility",
    "capabilities",
    "dialog_policy",
    "wait",
    "http",
    "web_search",
    "cookies",
    "storage",
    "network_log",
    "console_messages",
    "hover",
    "find",
    "frames",
    "recording",
    "downloads",
    "live_view",
    "cdp_endpoint",
];

#[test]
fn every_grpc_action_kind_has_an_mcp_tool() {
    let mut reached: Vec<&str> = every_tools_action()
        .iter()
        .map(|(_, k)| kind_name(k))
        .collect();
    // Web search is the one tool outside the actions envelope.
    reached.push(kind_name(
        &parse_search(Some(&args(json!({"query": "x"}))))
            .unwrap()
            .action
            .unwrap()
            .kind
            .unwrap(),
    ));
    for kind in KINDS {
        assert!(reached.contains(&kind), "no MCP tool makes a {kind} action");
    }
}
