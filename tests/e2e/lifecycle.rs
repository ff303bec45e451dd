//! Sessions outlive the worker that holds them: idle eviction, SIGTERM drain and
//! SIGKILL each move a session to a restore from its last Postgres checkpoint,
//! with its URL and storage intact.

use std::time::Duration;

use serde_json::{Value, json};

use crate::harness::{Client, Fleet, call, first, start_worker, wait_for, wait_for_workers};

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
async fn an_idle_session_is_evicted_and_restored_on_another_worker_with_its_storage() {
    let mut fleet = Fleet::start_with(2, &[("FLEET_IDLE_TTL_SECS", "1")]).await;
    let client = fleet.client("acme").await;
    let id = session_with_storage(&client, "idle-value").await;
    let (owner, _) = fleet.route(&id).await;
    assert!(!owner.is_empty());
    wait_for(
        "the idle session's route to be released",
        Duration::from_secs(20),
        || async { fleet.route(&id).await.0.is_empty().then_some(()) },
    )
    .await;
    // Retire the worker that held it, so the restore must happen elsewhere.
    let index: usize = owner.trim_start_matches("worker-").parse().unwrap();
    fleet.workers[index].1.child.start_kill().unwrap();
    fleet.workers[index].1.child.wait().await.unwrap();
    assert_eq!(
        storage_and_title(&client, &id).await,
        json!(["idle-value", "kept page"])
    );
    let (restored_on, _) = fleet.route(&id).await;
    assert!(
        !restored_on.is_empty() && restored_on != owner,
        "restored on {restored_on:?}, evicted from {owner:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_restored_session_keeps_its_session_storage_and_form_values() {
    let fleet = Fleet::start(2).await;
    let client = fleet.client("acme").await;
    // The page script reads sessionStorage while loading, so the restored
    // title shows the storage was back before the scripts ran.
    let html = "<title>forms</title><form><input id=t value=markup>\
        <input id=p type=password><input id=c type=checkbox>\
        <select id=s><option>a</option><option selected>b</option><option>c</option></select>\
        <textarea id=a></textarea></form>\
        <script>document.title = 'seen:' + sessionStorage.getItem('s');</script>";
    let (out, _) = call(
        &client,
        "servo_navigate",
        json!({"actions": [{"html": html}]}),
    )
    .await;
    let id = first(&out)["sessionID"].as_str().unwrap().to_owned();
    let set = "sessionStorage.setItem('s', 'sv'); \
        const q = (s) => document.querySelector(s); \
        q('#t').value = 'typed'; q('#p').value = 'secret'; q('#c').checked = true; \
        q('#s').children[1].selected = false; q('#s').children[2].selected = true; \
        q('#a').value = 'notes'; sessionStorage.getItem('s')";
    let (out, _) = call(
        &client,
        "servo_evaluate",
        json!({"actions": [{"sessionID": id, "script": set}]}),
    )
    .await;
    assert_eq!(first(&out)["response"]["value"], "sv", "{out:#}");

    // Forget the route: the next call restores from the last checkpoint.
    fleet.forget_route(&id).await;
    let read = "const q = (s) => document.querySelector(s); \
        [sessionStorage.getItem('s'), document.title, q('#t').value, q('#p').value, \
         q('#c').checked, [...q('#s').children].map((o) => o.selected), q('#a').value]";
    let (out, _) = call(
        &client,
        "servo_evaluate",
        json!({"actions": [{"sessionID": id, "script": read}]}),
    )
    .await;
    assert_eq!(
        first(&out)["response"]["value"],
        json!([
            "sv",
            "seen:sv",
            "typed",
            "",
            true,
            [false, false, true],
            "notes"
        ]),
        "{out:#}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_killed_workers_sessions_restore_on_the_other_worker() {
    let mut fleet = Fleet::start(2).await;
    let client = fleet.client("acme").await;
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
    let client = fleet.client("acme").await;
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

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_rolling_restart_of_every_worker_loses_no_session() {
    let mut fleet = Fleet::start(3).await;
    let client = fleet.client("acme").await;
    let mut sessions = Vec::new();
    for i in 0..6 {
        let value = format!("v{i}");
        sessions.push((session_with_storage(&client, &value).await, value));
    }
    for i in 0..3 {
        let pid = fleet.workers[i].1.child.id().unwrap();
        let term = tokio::process::Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status()
            .await
            .unwrap();
        assert!(term.success());
        let exit = tokio::time::timeout(Duration::from_secs(30), fleet.workers[i].1.child.wait())
            .await
            .unwrap()
            .unwrap();
        assert!(exit.success(), "worker-{i} exited with {exit}");
        // Its replacement takes the same name, as a StatefulSet pod would.
        fleet.workers[i] =
            start_worker(&fleet.db.url, &fleet.redis_url, &format!("worker-{i}"), &[]);
        wait_for_workers(&fleet.redis, 3).await;
        for (id, value) in &sessions {
            assert_eq!(
                storage_and_title(&client, id).await,
                json!([value, "kept page"]),
                "after restarting worker-{i}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn killing_one_of_three_workers_during_calls_loses_no_checkpointed_session() {
    let mut fleet = Fleet::start(3).await;
    let client = fleet.client("acme").await;
    let mut sessions = Vec::new();
    for i in 0..6 {
        let value = format!("busy{i}");
        sessions.push((session_with_storage(&client, &value).await, value));
    }
    // Keep every session busy while worker-1 dies mid-flight.
    let busy: Vec<Value> = sessions
        .iter()
        .map(|(id, _)| json!({"sessionID": id, "script": "let t = Date.now(); while (Date.now() - t < 300) {} document.title"}))
        .collect();
    let calls = call(&client, "servo_evaluate", json!({"actions": busy}));
    let kill = async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        fleet.workers[1].1.child.start_kill().unwrap();
    };
    let ((out, _), ()) = tokio::join!(calls, kill);
    // Calls on the dead worker may fail (they may have run); none may be wrong.
    for r in out["responses"].as_array().unwrap() {
        if r["ok"] == true {
            assert_eq!(r["response"]["value"], "kept page");
        } else {
            assert_eq!(r["code"], "UNAVAILABLE", "{r:#}");
        }
    }
    for (id, value) in &sessions {
        assert_eq!(
            storage_and_title(&client, id).await,
            json!([value, "kept page"])
        );
    }
}
