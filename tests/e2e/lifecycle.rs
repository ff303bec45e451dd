//! Chaos: sessions outlive the worker that holds them. Idle eviction, SIGTERM
//! drain (with a call in flight, and past its bound), a rolling restart and
//! SIGKILL mid-call each move sessions to a restore from
//! their last Postgres checkpoint; every test checks each session's cookie
//! (HttpOnly), localStorage, IndexedDB record, form field, scroll and URL.

use std::time::Duration;

use serde_json::json;

use crate::harness::{
    Fleet, act, call, eval, first, fixtures, open, start_worker, wait_for, wait_for_workers,
};
use crate::held::Held;
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

/// Sends SIGTERM to a worker process.
async fn sigterm(fleet: &Fleet, worker: usize) {
    crate::harness::sigterm(&fleet.workers[worker].1).await;
}

/// An evaluate that waits inside the page for the held fixture `name`, then
/// marks localStorage: a call known to be in flight until the test releases it.
fn held_call(held: &Held, name: &str) -> String {
    format!(
        "const x = new XMLHttpRequest(); x.open('GET', '{}', false); x.send(); \
         localStorage.setItem('after', '{name}'); x.responseText.includes('released')",
        held.hold(name)
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sigterm_drains_a_worker_finishing_its_call_in_flight_and_refusing_new_sessions() {
    const DRAIN_SECS: u64 = 20;
    let site = fixtures().await;
    let held = Held::start().await;
    let drain_secs = DRAIN_SECS.to_string();
    let mut fleet = Fleet::start_with(2, &[("FLEET_DRAIN_SECS", drain_secs.as_str())]).await;
    let client = fleet.client("acme").await;
    let mut sessions = Vec::new();
    for value in ["one", "two", "three"] {
        sessions.push(Stateful::open(&client, &site, value).await);
    }
    // The victim is the worker of a session with a call in flight.
    let (busy, _) = open(&client, &held.page("busy")).await;
    let (victim_id, _) = fleet.route(&busy).await;
    let victim: usize = victim_id.trim_start_matches("worker-").parse().unwrap();
    let survivor_id = format!("worker-{}", 1 - victim);
    let mut on_victim = vec![busy.clone()];
    for s in &sessions {
        if fleet.route(&s.id).await.0 == victim_id {
            on_victim.push(s.id.clone());
        }
    }
    let in_flight = tokio::spawn({
        let client = fleet.client("acme").await;
        let (busy, script) = (busy.clone(), held_call(&held, "drain"));
        async move {
            act(
                &client,
                "servo_evaluate",
                &busy,
                json!({"script": script, "maxDurationMs": 15_000}),
            )
            .await
        }
    });
    held.arrived("drain").await;

    sigterm(&fleet, victim).await;
    let terminated = std::time::Instant::now();
    let readyz = format!("http://{}/readyz", fleet.workers[victim].0);
    wait_for(
        "the draining worker's /readyz to answer 503",
        Duration::from_secs(10),
        || async {
            let r = reqwest::get(&readyz).await.ok()?;
            (r.status() == reqwest::StatusCode::SERVICE_UNAVAILABLE).then_some(())
        },
    )
    .await;
    // New sessions open on the other worker while the drain waits for the call.
    for i in 0..4 {
        let (id, _) = open(&client, &held.page(&format!("new{i}"))).await;
        assert_eq!(
            fleet.route(&id).await.0,
            survivor_id,
            "a new session went to the draining worker"
        );
    }
    // And the draining worker itself refuses to open one, even when a route
    // names it (as a gateway that has not heard yet would).
    let fresh = uuid::Uuid::new_v4().to_string();
    let routing = fleet_store::RedisRouting::connect(&fleet.redis_url, "")
        .await
        .unwrap();
    let epoch = fleet_store::Routing::claim(&routing, &fresh, &victim_id, 0)
        .await
        .unwrap()
        .epoch;
    let mut direct = fleet_proto::v1::worker_client::WorkerClient::connect(format!(
        "http://{}",
        fleet.workers[victim].0
    ))
    .await
    .unwrap();
    let refused = direct
        .run(fleet_proto::v1::RunRequest {
            session_id: fresh,
            tenant_id: "acme".into(),
            epoch,
            create: true,
            viewport: None,
            action: Some(fleet_proto::v1::Action {
                kind: Some(fleet_proto::v1::action::Kind::Navigate(
                    fleet_proto::v1::Navigate {
                        target: Some(fleet_proto::v1::navigate::Target::Url(held.page("refused"))),
                    },
                )),
                max_duration_ms: 0,
            }),
        })
        .await
        .expect_err("a draining worker opened a new session");
    assert_eq!(refused.code(), tonic::Code::Unavailable, "{refused}");
    assert!(refused.message().contains("draining"), "{refused}");
    assert_eq!(held.hits("refused"), 0);
    assert!(
        fleet.workers[victim].1.child.try_wait().unwrap().is_none(),
        "the worker exited with a call in flight"
    );

    held.release("drain");
    let r = in_flight.await.unwrap();
    assert_eq!(r["ok"], true, "the call in flight did not finish: {r:#}");
    assert_eq!(r["response"]["value"], true, "{r:#}");
    let exit = tokio::time::timeout(
        Duration::from_secs(DRAIN_SECS),
        fleet.workers[victim].1.child.wait(),
    )
    .await
    .expect("the worker did not exit within --drain-secs")
    .unwrap();
    assert!(exit.success(), "a drained worker exits 0, got {exit}");
    assert!(terminated.elapsed() < Duration::from_secs(DRAIN_SECS));
    for id in &on_victim {
        assert_ne!(
            fleet.route(id).await.0,
            victim_id,
            "the drained worker kept a route"
        );
    }
    // The call that finished during the drain was saved with the session.
    assert_eq!(
        eval(&client, &busy, "localStorage.getItem('after')").await,
        "drain"
    );
    for s in &sessions {
        s.check(&client, "after SIGTERM drained its worker").await;
        assert_eq!(fleet.route(&s.id).await.0, survivor_id);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_drain_still_waiting_at_its_bound_exits_and_the_call_is_not_retried() {
    let held = Held::start().await;
    let mut fleet = Fleet::start_with(1, &[("FLEET_DRAIN_SECS", "2")]).await;
    let client = fleet.client("acme").await;
    let (id, _) = open(&client, &held.page("stuck")).await;
    let in_flight = tokio::spawn({
        let client = fleet.client("acme").await;
        let script = held_call(&held, "forever");
        async move { act(&client, "servo_evaluate", &id, json!({"script": script})).await }
    });
    held.arrived("forever").await;
    sigterm(&fleet, 0).await;
    // The call would wait out its 10 s budget; the drain's 2 s
    // bound, plus a second for answers to leave, is what ends the process.
    let exit = tokio::time::timeout(Duration::from_secs(8), fleet.workers[0].1.child.wait())
        .await
        .expect("the worker outlived its drain bound")
        .unwrap();
    assert!(exit.success(), "{exit}");
    let r = in_flight.await.unwrap();
    assert_eq!(r["code"], "UNAVAILABLE", "{r:#}");
    assert_eq!(held.hits("forever"), 1, "the call was sent again");
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
        sigterm(&fleet, i).await;
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
async fn a_worker_killed_during_a_call_is_not_retried_and_every_checkpointed_session_survives() {
    let site = fixtures().await;
    let held = Held::start().await;
    let mut fleet = Fleet::start(3).await;
    let client = fleet.client("acme").await;
    let mut sessions = Vec::new();
    for i in 0..6 {
        sessions.push(Stateful::open(&client, &site, &format!("busy{i}")).await);
    }
    let (victim_session, _) = open(&client, &held.page("victim")).await;
    let (victim_id, _) = fleet.route(&victim_session).await;
    let victim: usize = victim_id.trim_start_matches("worker-").parse().unwrap();
    let in_flight = tokio::spawn({
        let client = fleet.client("acme").await;
        let (id, script) = (victim_session.clone(), held_call(&held, "crash"));
        async move { act(&client, "servo_evaluate", &id, json!({"script": script})).await }
    });
    // The call is running on the victim, inside the page, when it dies.
    held.arrived("crash").await;
    fleet.workers[victim].1.child.start_kill().unwrap();
    fleet.workers[victim].1.child.wait().await.unwrap();
    let r = in_flight.await.unwrap();
    assert_eq!(r["ok"], false, "{r:#}");
    assert_eq!(r["code"], "UNAVAILABLE", "{r:#}");
    // Had the gateway sent the call again, it would have reached the fixture
    // again (and waited there: the hold is only released now).
    held.release("crash");
    assert_eq!(
        held.hits("crash"),
        1,
        "a call that may have run was retried"
    );
    // The session restores elsewhere from its last checkpoint, without the
    // effect of the call that died with the worker.
    assert_eq!(
        eval(
            &client,
            &victim_session,
            "[document.title, localStorage.getItem('after')]"
        )
        .await,
        json!(["victim", null])
    );
    assert_ne!(fleet.route(&victim_session).await.0, victim_id);
    for s in &sessions {
        s.check(&client, "after SIGKILL mid-call").await;
    }
}
