//! Degraded mode: the fleet reaches Postgres and Redis through proxies, and
//! each is cut for 30 s while four live sessions take calls. Calls on live
//! sessions keep succeeding, what cannot be served (a new session) fails fast
//! with `UNAVAILABLE` and leaves no row behind, and afterwards every session's storage — read back from
//! Postgres on a fresh restore — holds exactly what the client wrote last,
//! including the writes made during the outage.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};
use tokio::sync::watch;
use tokio::time::Instant;

use crate::harness::{Client, Fleet, fixtures, mcp, store_urls, wait_for};
use crate::proxy::{Proxy, host_port};

/// How long each store is away.
const CUT: Duration = Duration::from_secs(30);
/// Pause between one session's calls.
const PACE: Duration = Duration::from_millis(100);

/// One call as the client saw it.
struct Seen {
    at: Instant,
    value: u64,
    ok: bool,
    code: String,
}

/// A call's outcome: ok, or the error code (`PROTOCOL` when no tool result came).
async fn call(client: &Client, tool: &str, args: Value) -> (Result<Value, String>, Duration) {
    let started = Instant::now();
    let params = CallToolRequestParams::new(tool.to_owned())
        .with_arguments(args.as_object().cloned().unwrap());
    let out = match client.call_tool(params).await {
        Err(_) => Err("PROTOCOL".to_owned()),
        Ok(result) => {
            let body = result.structured_content.unwrap_or(Value::Null);
            let first = &body["responses"][0];
            if first["ok"] == true {
                Ok(first["response"].clone())
            } else {
                Err(first["code"]
                    .as_str()
                    .or(body["code"].as_str())
                    .unwrap_or("NONE")
                    .to_owned())
            }
        }
    };
    (out, started.elapsed())
}

/// What one session's writer did.
struct Writer {
    id: String,
    client: Arc<Client>,
    seen: Arc<Mutex<Vec<Seen>>>,
}

/// The script of the write of `n`: every write sets `v`, and one of three
/// other keys, so the final storage is a function of which writes landed.
fn write_script(n: u64) -> String {
    format!(
        "localStorage.setItem('v', '{n}'); localStorage.setItem('k' + ({n} % 3), '{n}'); localStorage.getItem('v')"
    )
}

/// Reads every key of localStorage, sorted.
const READ_ALL: &str =
    "JSON.stringify(Object.keys(localStorage).sort().map(k => [k, localStorage.getItem(k)]))";

async fn run_writer(
    w: (Arc<Client>, String, Arc<Mutex<Vec<Seen>>>),
    next: Arc<std::sync::atomic::AtomicU64>,
    mut stop: watch::Receiver<bool>,
) {
    let (client, id, seen) = w;
    while !*stop.borrow_and_update() {
        let n = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let args = json!({"actions": [{"sessionID": id, "script": write_script(n)}]});
        let (out, _) = call(&client, "servo_evaluate", args).await;
        let (ok, code) = match out {
            Ok(r) if r["value"].as_str() == Some(n.to_string().as_str()) => (true, String::new()),
            Ok(r) => (false, format!("WRONG {r}")),
            Err(code) => (false, code),
        };
        seen.lock().unwrap().push(Seen {
            at: Instant::now(),
            value: n,
            ok,
            code,
        });
        tokio::select! {
            () = tokio::time::sleep(PACE) => {}
            _ = stop.changed() => {}
        }
    }
}

/// The storage a session must hold: every write up to its last acknowledged
/// one landed (all of this session's calls since it opened succeeded).
fn expected_storage(seen: &[Seen]) -> Value {
    let mut keys = BTreeMap::new();
    for s in seen.iter().filter(|s| s.ok) {
        keys.insert("v".to_owned(), s.value.to_string());
        keys.insert(format!("k{}", s.value % 3), s.value.to_string());
    }
    json!(
        keys.into_iter()
            .map(|(k, v)| json!([k, v]))
            .collect::<Vec<_>>()
    )
}

/// Waits until no worker holds an unwritten checkpoint.
async fn backlog_drained(fleet: &Fleet) -> Duration {
    let started = Instant::now();
    for (addr, _) in &fleet.workers {
        let url = format!("http://{addr}/metrics");
        wait_for(
            "the checkpoint backlog to drain",
            Duration::from_secs(60),
            || {
                let url = url.clone();
                async move {
                    let text = reqwest::get(&url).await.ok()?.text().await.ok()?;
                    let queued = text
                        .lines()
                        .find(|l| l.starts_with("fleet_worker_checkpoints_queued "))
                        .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
                        .unwrap_or(0.0);
                    (queued == 0.0).then_some(())
                }
            },
        )
        .await;
    }
    started.elapsed()
}

/// Tries to open a new session; its outcome and how long it took.
async fn open_new(client: &Client) -> (Result<Value, String>, Duration) {
    call(
        client,
        "servo_navigate",
        json!({"actions": [{"html": "<title>new</title>"}]}),
    )
    .await
}

struct Report {
    ok: usize,
    failed: usize,
    codes: BTreeMap<String, usize>,
    new_session: Vec<(String, Duration)>,
    recovered_in: Duration,
    drained_in: Duration,
}

/// Runs traffic on every session, cuts `proxy` for [`CUT`], restores it, and
/// checks each session's storage from a fresh restore.
async fn outage(
    fleet: &Fleet,
    writers: &[Writer],
    next: &Arc<std::sync::atomic::AtomicU64>,
    proxy: &Proxy,
    probe: &Client,
) -> Report {
    let (stop, stop_rx) = watch::channel(false);
    let tasks: Vec<_> = writers
        .iter()
        .map(|w| {
            tokio::spawn(run_writer(
                (w.client.clone(), w.id.clone(), w.seen.clone()),
                next.clone(),
                stop_rx.clone(),
            ))
        })
        .collect();
    tokio::time::sleep(Duration::from_secs(2)).await;

    let cut_at = Instant::now();
    proxy.cut();
    let mut new_session = Vec::new();
    for _ in 0..3 {
        tokio::time::sleep(Duration::from_secs(5)).await;
        let (out, took) = open_new(probe).await;
        new_session.push((out.err().unwrap_or_else(|| "ok".into()), took));
    }
    tokio::time::sleep_until(cut_at + CUT).await;
    proxy.restore().await;
    let restored_at = Instant::now();
    let recovered_in = wait_for("a new session to open", Duration::from_secs(60), || async {
        open_new(probe).await.0.ok().map(|_| restored_at.elapsed())
    })
    .await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    stop.send_replace(true);
    for t in tasks {
        t.await.unwrap();
    }
    let drained_in = backlog_drained(fleet).await;

    let mut report = Report {
        ok: 0,
        failed: 0,
        codes: BTreeMap::new(),
        new_session,
        recovered_in,
        drained_in,
    };
    for w in writers {
        let seen = w.seen.lock().unwrap();
        for s in seen
            .iter()
            .filter(|s| s.at >= cut_at && s.at <= restored_at)
        {
            if s.ok {
                report.ok += 1;
            } else {
                report.failed += 1;
                *report.codes.entry(s.code.clone()).or_default() += 1;
            }
        }
        assert!(
            seen.iter()
                .any(|s| s.ok && s.at > cut_at + Duration::from_secs(1) && s.at < restored_at),
            "session {} had no successful write during the outage",
            w.id
        );
    }
    for w in writers {
        // A fresh restore under a new epoch reads the session from Postgres.
        fleet.forget_route(&w.id).await;
        let (out, _) = call(
            &w.client,
            "servo_evaluate",
            json!({"actions": [{"sessionID": w.id, "script": READ_ALL}]}),
        )
        .await;
        let stored: Value = serde_json::from_str(out.unwrap()["value"].as_str().unwrap()).unwrap();
        let seen = w.seen.lock().unwrap();
        let last_ok = seen.iter().rev().find(|s| s.ok).map(|s| s.value).unwrap();
        if seen.iter().all(|s| s.ok) {
            assert_eq!(
                stored,
                expected_storage(&seen),
                "session {}'s storage",
                w.id
            );
        } else {
            // A failed call may or may not have run; v is the last acknowledged
            // write or one attempted after it.
            let v: u64 = stored
                .as_array()
                .unwrap()
                .iter()
                .find(|kv| kv[0] == "v")
                .and_then(|kv| kv[1].as_str()?.parse().ok())
                .unwrap();
            assert!(
                v == last_ok
                    || seen
                        .iter()
                        .any(|s| !s.ok && s.value > last_ok && s.value == v),
                "session {}: v = {v}, last acknowledged {last_ok}",
                w.id
            );
        }
    }
    report
}

/// The sum of a metric's series whose line contains `labels`, from `/metrics`.
async fn metric(base: &str, name: &str, labels: &str) -> f64 {
    crate::harness::metrics(base)
        .await
        .lines()
        .filter(|l| {
            let series = l.strip_prefix(name).unwrap_or("x");
            (series.starts_with('{') || series.starts_with(' ')) && l.contains(labels)
        })
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

fn print(name: &str, r: &Report) {
    let total = r.ok + r.failed;
    eprintln!(
        "outage {name}: {CUT:?} cut; calls on live sessions during it: {} ok, {} failed of {total} ({:.2} %) {:?}; \
         new sessions during it: {:?}; a new session opened {:?} after the restore; backlog drained {:?} after the traffic stopped",
        r.ok,
        r.failed,
        100.0 * r.ok as f64 / total.max(1) as f64,
        r.codes,
        r.new_session,
        r.recovered_in,
        r.drained_in,
    );
}

fn check(name: &str, r: &Report) {
    print(name, r);
    let total = r.ok + r.failed;
    assert!(
        total > 100,
        "{name}: too little traffic to judge ({total} calls)"
    );
    assert!(
        r.ok * 100 >= total * 99,
        "{name}: {} of {total} calls on live sessions failed: {:?}",
        r.failed,
        r.codes
    );
    assert!(
        r.codes.keys().all(|c| c == "UNAVAILABLE"),
        "{name}: failures other than UNAVAILABLE: {:?}",
        r.codes
    );
    for (code, took) in &r.new_session {
        assert!(
            code == "UNAVAILABLE" || code == "ok",
            "{name}: a new session during the outage got {code}"
        );
        // Not a benchmark: only that the call did not wait out a store timeout.
        assert!(
            *took < Duration::from_secs(1),
            "{name}: a refused new session took {took:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn live_sessions_keep_working_through_30_s_outages_of_postgres_and_redis_and_lose_nothing() {
    let (pg_url, redis_url) = store_urls();
    let pg = Proxy::start(&host_port(&pg_url)).await;
    let redis = Proxy::start(&host_port(&redis_url)).await;
    // Rows the writers' calls reuse run out a third of the way into an
    // outage (30 s by default, as long as the outage), so what the gateway
    // remembered answers the rest: both paths are taken.
    let fleet = Fleet::start_through(
        2,
        pg.port,
        redis.port,
        &[("FLEET_SESSION_CACHE_SECS", "10")],
    )
    .await;
    let key = fleet.key("acme").await;
    let opener = mcp(&fleet.gateway, Some(&key)).await;
    // Pages with an origin, so they have localStorage.
    let site = fixtures().await;
    let mut writers = Vec::new();
    for _ in 0..4 {
        let (out, _) = crate::harness::call(
            &opener,
            "servo_navigate",
            json!({"actions": [{"url": format!("{site}/about")}]}),
        )
        .await;
        let id = out["responses"][0]["sessionID"]
            .as_str()
            .unwrap()
            .to_owned();
        writers.push(Writer {
            id,
            client: Arc::new(mcp(&fleet.gateway, Some(&key)).await),
            seen: Arc::default(),
        });
    }
    let next = Arc::new(std::sync::atomic::AtomicU64::new(1));

    let r = outage(&fleet, &writers, &next, &pg, &opener).await;
    check("postgres", &r);
    let mut opened = writers.len() + opened_by(&r);
    // What answered meanwhile shows in the metrics.
    let gw = &fleet.gateway;
    assert!(metric(gw, "fleet_gateway_remembered_total", "kind=\"session\"").await > 0.0);
    assert!(metric(gw, "fleet_store_outages_total", "postgres").await >= 1.0);
    assert_eq!(
        metric(gw, "fleet_store_outage", "postgres").await,
        0.0,
        "over"
    );
    // Checkpoints waited in the workers' backlogs (the storage check above
    // proves they reached Postgres afterwards, by the flusher or the next call).
    let mut deferred = 0.0;
    for (addr, _) in &fleet.workers {
        let base = format!("http://{addr}");
        deferred += metric(&base, "fleet_worker_checkpoints_deferred_total", "").await;
    }
    assert!(deferred > 0.0, "checkpoints waited for the database");

    let r = outage(&fleet, &writers, &next, &redis, &opener).await;
    check("redis", &r);
    assert!(metric(gw, "fleet_gateway_remembered_total", "kind=\"route\"").await > 0.0);
    assert!(metric(gw, "fleet_gateway_remembered_total", "kind=\"workers\"").await > 0.0);
    opened += opened_by(&r);
    // A create writes the row and the route at once: each new session
    // refused during an outage took back what the store still up had written.
    assert_eq!(
        fleet.db.query_count("SELECT COUNT(*) FROM sessions").await,
        i64::try_from(opened).unwrap(),
        "rows left by refused new sessions"
    );
}

/// The sessions an outage's probes opened: those let in during it, and the
/// one that showed it was over.
fn opened_by(r: &Report) -> usize {
    r.new_session.iter().filter(|(c, _)| c == "ok").count() + 1
}
