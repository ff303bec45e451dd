//! One-process mode: `servo-fleet serve` runs the fleet on SQLite with no
//! Postgres or Redis, open on loopback and refusing an open public address.

use std::time::Duration;

use serde_json::json;

use crate::harness::{call, first, free_port, http_ok, mcp, run_cli, spawn, wait_for};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn serve_runs_the_whole_fleet_in_one_process_without_a_key_on_loopback() {
    let dir = std::env::temp_dir().join(format!("fleet-serve-{}", uuid::Uuid::new_v4()));
    let listen = format!("127.0.0.1:{}", free_port());
    let _p = spawn(
        "serve",
        &[
            "serve",
            "--listen",
            &listen,
            "--data-dir",
            dir.to_str().unwrap(),
        ],
        &[],
    );
    let base = format!("http://{listen}");
    let health = format!("{base}/readyz");
    wait_for("serve to be ready", Duration::from_secs(600), || async {
        http_ok(&health).await.then_some(())
    })
    .await;
    // Ready means its worker has registered: the first call succeeds.
    let client = mcp(&base, None).await;
    let (out, _) = call(
        &client,
        "servo_navigate",
        json!({"actions": [{"html": "<title>solo</title><p>one process</p>"}]}),
    )
    .await;
    assert_eq!(first(&out)["ok"], true, "{out:#}");
    let id = first(&out)["sessionID"].as_str().unwrap().to_owned();
    let (out, _) = call(
        &client,
        "servo_evaluate",
        json!({"actions": [{"sessionID": id, "script": "document.title + '!'"}]}),
    )
    .await;
    assert_eq!(first(&out)["response"]["value"], "solo!", "{out:#}");
    assert!(
        dir.join("fleet.db").exists(),
        "the SQLite file is where --data-dir says"
    );
}

#[tokio::test]
async fn serve_refuses_a_non_loopback_address_without_keys() {
    let dir = std::env::temp_dir().join(format!("fleet-serve-{}", uuid::Uuid::new_v4()));
    let (ok, _, err) = run_cli(&[
        "serve",
        "--listen",
        "0.0.0.0:0",
        "--data-dir",
        dir.to_str().unwrap(),
    ])
    .await;
    assert!(!ok, "serve started open on 0.0.0.0");
    assert!(
        err.contains("refusing to listen on 0.0.0.0:0 without API keys"),
        "{err}"
    );
}
