//! The updater against a fake Kubernetes API server on loopback: an axum app that
//! serves one pod's metadata, records every request, and fails patches on demand.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};

use super::*;

#[derive(Debug, Clone)]
struct Seen {
    method: &'static str,
    path: String,
    content_type: String,
    body: Value,
    at: Instant,
}

#[derive(Default)]
struct Fake {
    annotations: Mutex<BTreeMap<String, String>>,
    seen: Mutex<Vec<Seen>>,
    /// Patches still to answer with a 500.
    failing: AtomicU32,
}

impl Fake {
    fn patches(&self) -> Vec<Seen> {
        let seen = self.seen.lock().unwrap();
        seen.iter()
            .filter(|s| s.method == "PATCH")
            .cloned()
            .collect()
    }

    fn metadata(&self, ns: &str, name: &str) -> Value {
        json!({
            "apiVersion": "meta.k8s.io/v1",
            "kind": "PartialObjectMetadata",
            "metadata": {
                "name": name,
                "namespace": ns,
                "annotations": *self.annotations.lock().unwrap(),
            }
        })
    }
}

async fn get_pod(
    State(fake): State<Arc<Fake>>,
    Path((ns, name)): Path<(String, String)>,
) -> Response {
    fake.seen.lock().unwrap().push(Seen {
        method: "GET",
        path: format!("/api/v1/namespaces/{ns}/pods/{name}"),
        content_type: String::new(),
        body: Value::Null,
        at: Instant::now(),
    });
    axum::Json(fake.metadata(&ns, &name)).into_response()
}

async fn patch_pod(
    State(fake): State<Arc<Fake>>,
    Path((ns, name)): Path<(String, String)>,
    headers: HeaderMap,
    body: String,
) -> Response {
    let body: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    fake.seen.lock().unwrap().push(Seen {
        method: "PATCH",
        path: format!("/api/v1/namespaces/{ns}/pods/{name}"),
        content_type: headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned(),
        body: body.clone(),
        at: Instant::now(),
    });
    if fake
        .failing
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok()
    {
        let status = json!({
            "kind": "Status", "apiVersion": "v1", "status": "Failure",
            "message": "etcdserver: request timed out", "reason": "InternalError", "code": 500
        });
        return (StatusCode::INTERNAL_SERVER_ERROR, axum::Json(status)).into_response();
    }
    if let Some(a) = body["metadata"]["annotations"].as_object() {
        let mut annotations = fake.annotations.lock().unwrap();
        for (k, v) in a {
            annotations.insert(k.clone(), v.as_str().unwrap_or_default().to_owned());
        }
    }
    axum::Json(fake.metadata(&ns, &name)).into_response()
}

/// Serves the fake API; returns it and a client pointed at it.
async fn fake_api() -> (Arc<Fake>, kube::Client) {
    let fake = Arc::new(Fake::default());
    let app = axum::Router::new()
        .route(
            "/api/v1/namespaces/{ns}/pods/{name}",
            get(get_pod).patch(patch_pod),
        )
        .with_state(fake.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url: http::Uri = format!("http://{}", listener.local_addr().unwrap())
        .parse()
        .unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let mut config = kube::Config::new(url);
    config.default_retry = false;
    (fake, kube::Client::try_from(config).unwrap())
}

/// Waits until `cond` holds, polling, for at most `deadline`.
async fn until(what: &str, deadline: Duration, cond: impl Fn() -> bool) {
    let end = tokio::time::Instant::now() + deadline;
    while !cond() {
        assert!(
            tokio::time::Instant::now() < end,
            "timed out after {deadline:?} waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

fn cost_of(s: &Seen) -> &str {
    s.body["metadata"]["annotations"][ANNOTATION]
        .as_str()
        .unwrap_or("<none>")
}

#[tokio::test]
async fn the_pod_annotation_follows_the_live_sessions_and_only_changes_are_patched() {
    let (fake, client) = fake_api().await;
    let live = Arc::new(AtomicU32::new(3));
    let looks = Arc::new(AtomicU32::new(0));
    let stop = CancellationToken::new();
    let updater = DeletionCost::new(client, "fleet", "worker-7d9f", Duration::from_millis(20));
    let task = tokio::spawn({
        let (live, looks, stop) = (live.clone(), looks.clone(), stop.clone());
        updater.run(
            move || {
                looks.fetch_add(1, Ordering::SeqCst);
                live.load(Ordering::SeqCst)
            },
            stop,
        )
    });
    until("the first patch", Duration::from_secs(10), || {
        !fake.patches().is_empty()
    })
    .await;
    let first = fake.patches()[0].clone();
    assert_eq!(first.path, "/api/v1/namespaces/fleet/pods/worker-7d9f");
    assert_eq!(first.content_type, "application/merge-patch+json");
    assert_eq!(
        first.body,
        json!({"metadata": {"annotations": {ANNOTATION: "3"}}})
    );

    live.store(11, Ordering::SeqCst);
    until("the patch to 11", Duration::from_secs(10), || {
        fake.patches().last().is_some_and(|p| cost_of(p) == "11")
    })
    .await;
    // Several more looks at an unchanged count patch nothing.
    let looked = looks.load(Ordering::SeqCst);
    until("five more looks", Duration::from_secs(10), || {
        looks.load(Ordering::SeqCst) >= looked + 5
    })
    .await;
    let costs: Vec<String> = fake
        .patches()
        .iter()
        .map(|p| cost_of(p).to_owned())
        .collect();
    assert_eq!(costs, ["3", "11"]);
    assert_eq!(
        fake.annotations
            .lock()
            .unwrap()
            .get(ANNOTATION)
            .map(String::as_str),
        Some("11")
    );
    stop.cancel();
    task.await.unwrap();
}

#[tokio::test]
async fn a_value_the_pod_already_carries_is_not_patched_again() {
    let (fake, client) = fake_api().await;
    fake.annotations
        .lock()
        .unwrap()
        .insert(ANNOTATION.into(), "4".into());
    let looks = Arc::new(AtomicU32::new(0));
    let stop = CancellationToken::new();
    let updater = DeletionCost::new(client, "fleet", "worker-a", Duration::from_millis(10));
    let task = tokio::spawn({
        let (looks, stop) = (looks.clone(), stop.clone());
        updater.run(
            move || {
                looks.fetch_add(1, Ordering::SeqCst);
                4
            },
            stop,
        )
    });
    until("five looks", Duration::from_secs(10), || {
        looks.load(Ordering::SeqCst) >= 5
    })
    .await;
    assert!(fake.patches().is_empty(), "{:?}", fake.patches());
    stop.cancel();
    task.await.unwrap();
}

#[tokio::test]
async fn failed_patches_back_off_doubling_up_to_the_cap_then_the_value_lands() {
    let (fake, client) = fake_api().await;
    fake.failing.store(4, Ordering::SeqCst);
    let interval = Duration::from_millis(40);
    let cap = Duration::from_millis(200);
    let stop = CancellationToken::new();
    let updater = DeletionCost::new(client, "fleet", "worker-b", interval).with_max_backoff(cap);
    let task = tokio::spawn(updater.run(|| 9, stop.clone()));
    until(
        "four failures and a success",
        Duration::from_secs(20),
        || fake.patches().len() >= 5,
    )
    .await;
    let patches = fake.patches();
    let gaps: Vec<Duration> = patches.windows(2).map(|w| w[1].at - w[0].at).collect();
    // After failure n the updater waits interval × 2^n, at most the cap.
    let expected = [80, 160, 200, 200].map(Duration::from_millis);
    for (i, (gap, want)) in gaps.iter().zip(expected).enumerate() {
        assert!(
            *gap >= want,
            "retry {} came after {gap:?}, before the {want:?} backoff",
            i + 1
        );
    }
    assert!(patches.iter().all(|p| cost_of(p) == "9"));
    assert_eq!(
        fake.annotations
            .lock()
            .unwrap()
            .get(ANNOTATION)
            .map(String::as_str),
        Some("9"),
        "the value lands once the API answers again"
    );
    stop.cancel();
    task.await.unwrap();
    assert_eq!(
        fake.patches().len(),
        5,
        "nothing is patched after the success"
    );
}

#[test]
fn the_backoff_doubles_from_the_interval_and_stops_at_the_cap() {
    let s = Duration::from_secs;
    assert_eq!(delay(s(10), 0, MAX_BACKOFF), s(10));
    assert_eq!(delay(s(10), 1, MAX_BACKOFF), s(20));
    assert_eq!(delay(s(10), 3, MAX_BACKOFF), s(80));
    assert_eq!(delay(s(10), 5, MAX_BACKOFF), MAX_BACKOFF);
    assert_eq!(delay(s(10), u32::MAX, MAX_BACKOFF), MAX_BACKOFF);
    // An interval longer than the cap is never shortened by a failure.
    assert_eq!(delay(s(600), 2, MAX_BACKOFF), s(600));
}

#[tokio::test]
async fn without_a_pod_name_there_is_no_updater() {
    use clap::Parser as _;
    #[derive(clap::Parser)]
    struct Args {
        #[command(flatten)]
        worker: WorkerConfig,
    }
    let args = Args::try_parse_from(["worker"]).unwrap();
    assert!(
        DeletionCost::from_config(&args.worker)
            .await
            .unwrap()
            .is_none()
    );
    let half = Args::try_parse_from(["worker", "--pod-name", "w-1"]);
    assert!(
        half.is_err(),
        "a pod name without a namespace is refused at parse time"
    );
}
