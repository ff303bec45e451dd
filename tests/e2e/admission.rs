//! Turns at the engine (`--engine-lanes`): actions beyond the worker's lanes
//! wait in arrival order, each at most its budget; one that never got a turn
//! fails with `UNAVAILABLE` and changed nothing; a page waiting on the network
//! gives its turn to others meanwhile.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::harness::{Client, Fleet, act, eval, metrics, open};
use crate::held::Held;

/// Evaluates `script` in `id` with a budget of `ms`; the response entry.
async fn eval_within(client: &Client, id: &str, script: &str, ms: u64) -> Value {
    act(
        client,
        "servo_evaluate",
        id,
        json!({"script": script, "maxDurationMs": ms}),
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn actions_past_the_workers_lanes_wait_their_turn_and_one_that_never_gets_it_changes_nothing()
{
    let held = Held::start().await;
    let fleet = Fleet::start_with(1, &[("FLEET_ENGINE_LANES", "1")]).await;
    let client = fleet.client("lanes").await;
    let (busy, _) = open(&client, &held.page("busy")).await;
    let (refused, _) = open(&client, &held.page("refused")).await;
    let (patient, _) = open(&client, &held.page("patient")).await;

    // The busy session takes the one lane and keeps the CPU until its budget
    // runs out; the request first tells the test it is running.
    let spinner = fleet.client("lanes").await;
    // Before the busy action could have started: its lane is given back no
    // sooner than its 3 s budget after this.
    let before_spin = Instant::now();
    let spin = tokio::spawn({
        let (client, busy) = (spinner, busy.clone());
        let script = format!(
            "const x = new XMLHttpRequest(); x.open('GET', '{}', false); x.send(); for (;;) {{}}",
            held.page("spinning")
        );
        async move { eval_within(&client, &busy, &script, 3000).await }
    });
    held.arrived("spinning").await;

    let started = Instant::now();
    let r = eval_within(
        &client,
        &refused,
        "localStorage.setItem('ran', 'yes'); 1",
        300,
    )
    .await;
    assert_eq!(r["ok"], false, "{r:#}");
    assert_eq!(r["code"], "UNAVAILABLE", "{r:#}");
    let message = r["error"].as_str().unwrap();
    assert!(
        message.contains("engine is busy") && message.contains("did not start"),
        "{message}"
    );
    assert!(
        started.elapsed() >= Duration::from_millis(300),
        "it waited its budget"
    );

    // A patient action waits for the lane and then runs.
    let value = eval(&client, &patient, "6 * 7").await;
    let patient_done = Instant::now();
    assert_eq!(value, 42);
    assert!(
        patient_done.duration_since(before_spin) >= Duration::from_secs(3),
        "the patient action ran only after the busy one gave its lane back"
    );
    let spun = spin.await.unwrap();
    assert_eq!(spun["code"], "TIMEOUT", "{spun:#}");

    // The refused action never ran.
    assert_eq!(
        eval(&client, &refused, "localStorage.getItem('ran')").await,
        Value::Null
    );
    let text = metrics(&format!("http://{}", fleet.workers[0].0)).await;
    assert!(
        text.lines()
            .any(|l| l.starts_with("fleet_worker_engine_wait_timeouts_total") && !l.ends_with(" 0")),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_page_waiting_on_the_network_lets_other_sessions_run() {
    let held = Held::start().await;
    let fleet = Fleet::start_with(1, &[("FLEET_ENGINE_LANES", "1")]).await;
    let client = fleet.client("lanes").await;
    let (waiting, _) = open(&client, &held.page("waiting")).await;
    let (other, _) = open(&client, &held.page("other")).await;

    let waiter = fleet.client("lanes").await;
    let slow = tokio::spawn({
        let (client, waiting) = (waiter, waiting.clone());
        let script = format!(
            "const x = new XMLHttpRequest(); x.open('GET', '{}', false); x.send(); x.responseText.length > 0",
            held.hold("slow")
        );
        async move { eval_within(&client, &waiting, &script, 15000).await }
    });
    held.arrived("slow").await;
    // The one lane is free while the response is out.
    let r = eval_within(&client, &other, "document.title", 2000).await;
    assert_eq!(r["ok"], true, "{r:#}");
    assert_eq!(r["response"]["value"], "other");
    assert!(!slow.is_finished(), "the held request has not answered yet");
    held.release("slow");
    let r = slow.await.unwrap();
    assert_eq!(r["response"]["value"], true, "{r:#}");
}
