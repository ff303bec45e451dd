//! Sessions outlive the worker that holds them: idle eviction, SIGTERM drain and
//! SIGKILL each move a session to a restore from its last Postgres checkpoint,
//! with its URL and storage intact.

use std::time::Duration;

use serde_json::{Value, json};

use crate::harness::{Client, Fleet, call, first, mcp, wait_for};

/// Opens a session on an inline page with a localStorage value; returns its ID.
async fn session_with_storage(client: &Client, value: &str) -> String {
    let html = "<title>kept page</title><p>stateful</p>";
    let (out, _) = call(
        client,
        "servo_navigate",
        json!({"actions": [{"html": html}]}),
    )
    .await;
    let id = first(&out)["sessionID"].as_str().unwrap().to_owned();
    let script = format!("localStorage.setItem('k', '{value}'); localStorage.getItem('k')");
    let (out, _) = call(
        client,
        "servo_evaluate",
        json!({"actions": [{"sessionID": id, "script": script}]}),
    )
    .await;
    assert_eq!(first(&out)["response"]["value"], value, "{out:#}");
    id
}

async fn storage_and_title(client: &Client, id: &str) -> Value {
    let (out, _) = call(
        client,
        "servo_evaluate",
        json!({"actions": [{"sessionID": id, "script": "[localStorage.getItem('k'), document.title]"}]}),
    )
    .await;
    assert_eq!(first(&out)["ok"], true, "{out:#}");
    first(&out)["response"]["value"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_idle_session_is_evicted_and_restored_with_its_storage() {
    let fleet = Fleet::start_with(2, &[("FLEET_IDLE_TTL_SECS", "1")]).await;
    let key = fleet.key("acme").await;
    let client = mcp(&fleet.gateway, Some(&key)).await;
    let id = session_with_storage(&client, "idle-value").await;
    let (owner, _) = fleet.route(&id).await;
    assert!(!owner.is_empty());
    wait_for(
        "the idle session's route to be released",
        Duration::from_secs(20),
        || async { fleet.route(&id).await.0.is_empty().then_some(()) },
    )
    .await;
    assert_eq!(
        storage_and_title(&client, &id).await,
        json!(["idle-value", "kept page"])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_killed_workers_sessions_restore_on_the_other_worker() {
    let mut fleet = Fleet::start(2).await;
    let key = fleet.key("acme").await;
    let client = mcp(&fleet.gateway, Some(&key)).await;
    let a = session_with_storage(&client, "first").await;
    let b = session_with_storage(&client, "second").await;
    let (owner, _) = fleet.route(&a).await;
    let victim: usize = owner.trim_start_matches("worker-").parse().unwrap();
    fleet.workers[victim].1.child.start_kill().unwrap();
    fleet.workers[victim].1.child.wait().await.unwrap();
    // Whether or not the registry has noticed yet, the next calls land elsewhere.
    assert_eq!(
        storage_and_title(&client, &a).await,
        json!(["first", "kept page"])
    );
    assert_eq!(
        storage_and_title(&client, &b).await,
        json!(["second", "kept page"])
    );
    assert_ne!(
        fleet.route(&a).await.0,
        owner,
        "the session stayed on the dead worker"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sigterm_drains_a_worker_and_its_sessions_continue_elsewhere() {
    let mut fleet = Fleet::start(2).await;
    let key = fleet.key("acme").await;
    let client = mcp(&fleet.gateway, Some(&key)).await;
    let ids = [
        session_with_storage(&client, "one").await,
        session_with_storage(&client, "two").await,
        session_with_storage(&client, "three").await,
    ];
    let victim = 0;
    let victim_id = format!("worker-{victim}");
    let pid = fleet.workers[victim].1.child.id().unwrap();
    let status = tokio::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .await
        .unwrap();
    assert!(status.success());
    let exit = tokio::time::timeout(
        Duration::from_secs(30),
        fleet.workers[victim].1.child.wait(),
    )
    .await
    .expect("the worker did not exit within its drain bound")
    .unwrap();
    assert!(exit.success(), "a drained worker exits 0, got {exit}");
    for id in &ids {
        assert_ne!(
            fleet.route(id).await.0,
            victim_id,
            "the drained worker kept a route"
        );
    }
    for (id, value) in ids.iter().zip(["one", "two", "three"]) {
        assert_eq!(
            storage_and_title(&client, id).await,
            json!([value, "kept page"])
        );
        assert_eq!(fleet.route(id).await.0, "worker-1");
    }
}
