//! `servo-fleet stdio` with the official MCP Python SDK's stdio client, as a
//! desktop MCP client runs it: the client starts the process, lists the tools,
//! opens a tab, evaluates in it and lists its sessions; stdout carries only
//! the protocol (logs go to stderr).

use serde_json::Value;

use crate::harness::BIN;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_python_sdk_drives_the_one_process_fleet_over_stdio() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/python");
    let python = dir.join("venv/bin/python");
    assert!(
        python.exists(),
        "the MCP Python SDK is not installed in {}: run `make test` (it makes the venv)",
        dir.display()
    );
    let data = std::env::temp_dir().join(format!("fleet-stdio-{}", uuid::Uuid::new_v4()));
    let out = tokio::process::Command::new(&python)
        .arg(dir.join("stdio_client.py"))
        .arg(BIN)
        .arg(&data)
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the Python client failed: {stderr}");
    let seen: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is not one JSON object ({e}): {stderr}"));
    assert_eq!(seen["server"], "servo-fleet");
    let tools: Vec<&str> = seen["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for t in [
        "servo_navigate",
        "servo_evaluate",
        "servo_http_get",
        "servo_web_search",
    ] {
        assert!(tools.contains(&t), "{t} missing from {tools:?}");
    }
    let opened = &seen["opened"]["responses"][0];
    assert_eq!(
        opened["response"]["page"]["title"], "from python",
        "{seen:#}"
    );
    assert_eq!(seen["evaluated"]["responses"][0]["response"]["value"], 11);
    // The session is the local user's, kept in the data directory.
    assert_eq!(
        seen["listed"]["sessions"][0]["sessionID"],
        opened["sessionID"]
    );
    assert!(data.join("fleet.db").exists());
    std::fs::remove_dir_all(&data).unwrap();
}
