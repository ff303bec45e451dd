//! The gateway works with the official MCP TypeScript SDK, not only rmcp: a Node
//! process connects over Streamable HTTP with a bearer key, lists the tools, opens a
//! tab and evaluates in it.

use serde_json::Value;

use crate::harness::Fleet;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_typescript_sdk_client_lists_tools_and_drives_a_session() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/ts");
    assert!(
        dir.join("node_modules/@modelcontextprotocol/sdk").exists(),
        "the TypeScript SDK is not installed in {}: run `make test` (it runs npm ci there)",
        dir.display()
    );
    let fleet = Fleet::start(1).await;
    let key = fleet.key("ts").await;
    let out = tokio::process::Command::new("node")
        .arg(dir.join("call.mjs"))
        .arg(format!("{}/mcp", fleet.gateway))
        .arg(&key)
        .output()
        .await
        .expect("node must be installed (`make deps` installs it)");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the TypeScript client failed: {stderr}"
    );
    let seen: Value = serde_json::from_slice(&out.stdout).unwrap();
    let tools: Vec<&str> = seen["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for t in [
        "servo_navigate",
        "servo_inspect",
        "servo_evaluate",
        "servo_screenshot",
        "servo_session_status",
    ] {
        assert!(tools.contains(&t), "{t} missing from {tools:?}");
    }
    assert_eq!(
        seen["opened"]["responses"][0]["response"]["page"]["title"],
        "from typescript"
    );
    assert_eq!(
        seen["evaluated"]["responses"][0]["response"]["value"],
        "from typescript".len()
    );
}
