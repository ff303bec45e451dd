//! A client written for the Go browser MCP server (the seed in
//! `../shared/reference`, 33 tools over CDP) finds a tool here for each of
//! its tools, taking what its arguments become; a read-only gateway keeps
//! the counterpart of each of the seed's read-only tools.

use crate::harness::Fleet;

/// The seed's tools: its name, ours, and the fields of one of our actions
/// its arguments become (`port` is a session here; `path` arguments are the
/// answer itself).
const GO_TOOLS: [(&str, &str, &[&str]); 33] = [
    ("browser_launch", "servo_navigate", &["url"]),
    ("browser_connect", "servo_session_status", &[]),
    ("browser_disconnect", "servo_session_close", &[]),
    ("tab_navigate", "servo_navigate", &["url"]),
    ("tab_list", "servo_session_list", &[]),
    ("tab_new", "servo_navigate", &["url", "html"]),
    ("tab_close", "servo_session_close", &[]),
    ("tab_activate", "servo_session_status", &[]),
    ("nav_back", "servo_history", &["direction"]),
    ("nav_forward", "servo_history", &["direction"]),
    ("page_wait_load", "servo_wait", &["until", "maxDurationMs"]),
    ("page_wait_idle", "servo_wait", &["until", "maxDurationMs"]),
    ("page_get_html", "servo_get_html", &["maxChars"]),
    ("page_eval_js", "servo_evaluate", &["script"]),
    ("page_screenshot", "servo_screenshot", &["fullPage"]),
    ("dom_click", "servo_click", &["selector"]),
    ("dom_click_human", "servo_click", &["selector"]),
    ("dom_click_text", "servo_click", &["visibleText"]),
    ("dom_type", "servo_type_text", &["text"]),
    ("dom_find_by_text", "servo_find", &["visibleText"]),
    ("dom_wait_element", "servo_wait", &["selector", "timeMs"]),
    ("press_key", "servo_press_key", &["key"]),
    ("scroll", "servo_scroll", &["deltaX", "deltaY"]),
    (
        "handle_dialog",
        "servo_dialog_policy",
        &["accept", "promptText"],
    ),
    ("cookie_get", "servo_cookies_get", &["urls"]),
    ("cookie_set", "servo_cookies_set", &["cookies"]),
    ("cookie_delete", "servo_cookies_delete", &["name", "domain"]),
    ("cookie_clear", "servo_cookies_clear", &[]),
    ("frame_list", "servo_frame_list", &[]),
    ("frame_eval", "servo_frame_evaluate", &["frameId", "script"]),
    (
        "frame_get_html",
        "servo_frame_get_html",
        &["frameId", "maxChars"],
    ),
    ("storage_save", "servo_storage_state_export", &[]),
    (
        "storage_load",
        "servo_storage_state_import",
        &["storageState"],
    ),
];

/// The seed's tools its `--read-only` keeps.
const GO_READ_ONLY: [&str; 14] = [
    "browser_connect",
    "browser_disconnect",
    "tab_list",
    "tab_activate",
    "page_wait_load",
    "page_wait_idle",
    "page_get_html",
    "page_screenshot",
    "dom_find_by_text",
    "dom_wait_element",
    "cookie_get",
    "frame_list",
    "frame_get_html",
    "storage_save",
];

/// The field names one action of `tool` takes.
fn action_fields(tool: &rmcp::model::Tool) -> Vec<String> {
    tool.input_schema["properties"]["actions"]["items"]["properties"]
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_go_browser_mcp_tool_has_a_tool_here_taking_its_arguments() {
    let fleet = Fleet::start(1).await;
    let client = fleet.client("acme").await;
    let tools = client.list_all_tools().await.unwrap();
    for (seed, ours, fields) in GO_TOOLS {
        let tool = tools
            .iter()
            .find(|t| t.name == ours)
            .unwrap_or_else(|| panic!("{seed}: {ours} is not listed"));
        let have = action_fields(tool);
        for f in fields {
            assert!(
                have.iter().any(|h| h == f),
                "{seed}: {ours} lacks the field {f} (has {have:?})"
            );
        }
    }
    drop(client);
    drop(fleet);

    let fleet = Fleet::start_env(1, &[("FLEET_READ_ONLY", "true")]).await;
    let client = fleet.client("acme").await;
    let tools = client.list_all_tools().await.unwrap();
    for seed in GO_READ_ONLY {
        let (_, ours, _) = GO_TOOLS.iter().find(|(s, _, _)| *s == seed).unwrap();
        assert!(
            tools.iter().any(|t| t.name == *ours),
            "{seed} is read-only in the seed, but a read-only gateway leaves out {ours}"
        );
    }
}
