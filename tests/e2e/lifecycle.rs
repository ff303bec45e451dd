//! Chaos: sessions outlive the worker that holds them. Idle eviction, SIGTERM
//! drain, a rolling restart and SIGKILL each move sessions to a restore from
//! their last Postgres checkpoint; every test checks each session's cookie
//! (HttpOnly), localStorage, IndexedDB record, form field, scroll and URL.

use std::time::Duration;

use serde_json::{Value, json};

use crate::harness::{Fleet, call, first, fixtures, start_worker, wait_for, wait_for_workers};
use crate::state::Stateful;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_idle_session_is_evicted_and_restored_on_another_worker_with_its_storage() {
    let site = fixtures().await;
    let mut fleet = Fleet::start_with(2, &[("FLEET_IDLE_TTL_SECS", "1")]).await;
    let client = fleet.client("acme").await;
    let session = Stateful::open(&client, &site, "idle").await;
    let id = session.id.clone();
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
    session.check(&client, "after idle eviction").await;
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
    let site = fixtures().await;
    let mut fleet = Fleet::start(2).await;
    let client = fleet.client("acme").await;
    let a = Stateful::open(&client, &site, "first").await;
    let b = Stateful::open(&client, &site, "second").await;
    let (owner, _) = fleet.route(&a.id).await;
    let victim: usize = owner.trim_start_matches("worker-").parse().unwrap();
    fleet.workers[victim].1.child.start_kill().unwrap();
    fleet.workers[victim].1.child.wait().await.unwrap();
    // Whether or not the registry has noticed yet, the next calls land elsewhere.
    a.check(&client, "after SIGKILL").await;
    b.check(&client, "after SIGKILL").await;
    assert_ne!(
        fleet.route(&a.id).await.0,
        owner,
        "the session stayed on the dead worker"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sigterm_drains_a_worker_and_its_sessions_continue_elsewhere() {
    let site = fixtures().await;
    let mut fleet = Fleet::start(2).await;
    let client = fleet.client("acme").await;
    let mut sessions = Vec::new();
    for value in ["one", "two", "three"] {
        sessions.push(Stateful::open(&client, &site, value).await);
    }
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
    for s in &sessions {
        assert_ne!(
            fleet.route(&s.id).await.0,
            victim_id,
            "the drained worker kept a route"
        );
    }
    for s in &sessions {
        s.check(&client, "after SIGTERM drained its worker").await;
        assert_eq!(fleet.route(&s.id).await.0, "worker-1");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_rolling_restart_of_every_worker_loses_no_session() {
    let site = fixtures().await;
    let mut fleet = Fleet::start(3).await;
    let client = fleet.client("acme").await;
    let mut sessions = Vec::new();
    for i in 0..6 {
        sessions.push(Stateful::open(&client, &site, &format!("v{i}")).await);
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
        for s in &sessions {
            s.check(&client, &format!("after restarting worker-{i}"))
                .await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn killing_one_of_three_workers_during_calls_loses_no_checkpointed_session() {
    let site = fixtures().await;
    let mut fleet = Fleet::start(3).await;
    let client = fleet.client("acme").await;
    let mut sessions = Vec::new();
    for i in 0..6 {
        sessions.push(Stateful::open(&client, &site, &format!("busy{i}")).await);
    }
    // Keep every session busy while worker-1 dies mid-flight.
    let busy: Vec<Value> = sessions
        .iter()
        .map(|s| json!({"sessionID": s.id, "script": "let t = Date.now(); while (Date.now() - t < 300) {} document.title"}))
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
            assert_eq!(r["response"]["value"], "app");
        } else {
            assert_eq!(r["code"], "UNAVAILABLE", "{r:#}");
        }
    }
    for s in &sessions {
        s.check(&client, "after SIGKILL mid-call").await;
    }
}
