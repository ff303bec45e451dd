//! `Browser.Watch` end to end: a gRPC client watches a session while an MCP
//! client acts on it; navigations, console messages, dialogs, downloads,
//! page changes, recordings' state and the close arrive in order, across a worker's death
//! (the session moves, the stream goes on), and the stream ends with the
//! close. Another tenant and a bad request are refused. A long wait ends
//! when another agent makes its condition true, or when its time passes.

use std::time::Duration;

use fleet_proto::v1::{self as pb, session_event::Kind};
use serde_json::json;

use crate::harness::{Fleet, act, open};

/// The next event, which must come within a few seconds.
async fn next(stream: &mut tonic::Streaming<pb::SessionEvent>) -> Kind {
    tokio::time::timeout(Duration::from_secs(10), stream.message())
        .await
        .expect("an event in time")
        .expect("no error")
        .expect("the stream goes on")
        .kind
        .expect("an event says what happened")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_watcher_sees_a_sessions_events_in_order_across_workers_until_it_closes() {
    let dir = std::env::temp_dir().join(format!("fleet-watch-{}", uuid::Uuid::new_v4()));
    let store = format!("file://{}", dir.display());
    let mut fleet = Fleet::start_env(2, &[("FLEET_OBJECT_STORE", store.as_str())]).await;
    let base = crate::downloads::site().await;
    let client = fleet.client("acme").await;
    let (session, _) = open(&client, &format!("{base}/page")).await;
    let key = fleet.key("acme").await;
    let mut browser = crate::harness::grpc(&fleet, &key).await;
    let mut events = browser
        .watch(pb::WatchRequest {
            session_id: session.clone(),
            until: None,
        })
        .await
        .unwrap()
        .into_inner();

    // A dialog, a download (the page stays), a navigation and its console.
    act(
        &client,
        "servo_click",
        &session,
        json!({"selector": "#ask"}),
    )
    .await;
    match next(&mut events).await {
        Kind::Dialog(d) => assert_eq!((d.kind.as_str(), d.message.as_str()), ("alert", "hello")),
        other => panic!("not the dialog: {other:?}"),
    }
    // A click can change what the page shows: a live view repaints on this.
    assert!(matches!(next(&mut events).await, Kind::Changed(_)));
    act(
        &client,
        "servo_click",
        &session,
        json!({"selector": "#pdf"}),
    )
    .await;
    match next(&mut events).await {
        Kind::Console(c) => assert!(c.text.contains("download saved: report.pdf"), "{c:?}"),
        other => panic!("not the download's console line: {other:?}"),
    }
    match next(&mut events).await {
        Kind::Download(d) => {
            assert_eq!(
                (d.filename.as_str(), d.status.as_str()),
                ("report.pdf", "complete")
            );
            assert_eq!(d.session_id, session);
            // The gateway signs its link, as servo_downloads does.
            let url = d.download_url.expect("a signed link");
            let got = reqwest::get(&url).await.unwrap();
            assert_eq!(got.status(), 200, "{url}");
            assert_eq!(got.bytes().await.unwrap().len(), 4009);
        }
        other => panic!("not the download: {other:?}"),
    }
    assert!(matches!(next(&mut events).await, Kind::Changed(_)));
    act(
        &client,
        "servo_click",
        &session,
        json!({"selector": "#next"}),
    )
    .await;
    match next(&mut events).await {
        Kind::Navigated(n) => {
            assert_eq!(
                (n.url, n.title),
                (format!("{base}/about"), "about".to_owned())
            )
        }
        other => panic!("not the navigation: {other:?}"),
    }
    match next(&mut events).await {
        Kind::Console(c) => assert_eq!(c.text, "about loaded"),
        other => panic!("not the new page's console: {other:?}"),
    }
    assert!(matches!(next(&mut events).await, Kind::Changed(_)));

    // The worker holding the session dies; the next action restores it on
    // the other one, and its events reach the same stream.
    let (owner, _) = fleet.route(&session).await;
    let index: usize = owner.trim_start_matches("worker-").parse().unwrap();
    fleet.workers[index].1.child.start_kill().unwrap();
    fleet.workers[index].1.child.wait().await.unwrap();
    let rec = act(&client, "servo_recording_start", &session, json!({})).await;
    assert_eq!(rec["ok"], true, "{rec:#}");
    assert_ne!(fleet.route(&session).await.0, owner);
    let id = rec["response"]["recordingId"].as_str().unwrap().to_owned();
    match next(&mut events).await {
        Kind::Recording(r) => assert_eq!(
            (r.recording_id.as_str(), r.status.as_str()),
            (id.as_str(), "recording")
        ),
        other => panic!("not the recording: {other:?}"),
    }
    act(
        &client,
        "servo_recording_stop",
        &session,
        json!({"recordingId": id}),
    )
    .await;
    match next(&mut events).await {
        Kind::Recording(r) => assert_eq!(r.status, "encoding", "{r:?}"),
        other => panic!("not the stop: {other:?}"),
    }
    // The encode ends outside any action; its outcome is an event too.
    match next(&mut events).await {
        Kind::Recording(r) => assert_eq!((r.recording_id, r.status), (id.clone(), "ready".into())),
        other => panic!("not the encode's end: {other:?}"),
    }

    // The close is the last event, and the stream ends.
    act(&client, "servo_session_close", &session, json!({})).await;
    assert!(matches!(next(&mut events).await, Kind::Closed(_)));
    let end = tokio::time::timeout(Duration::from_secs(10), events.message()).await;
    assert!(matches!(end, Ok(Ok(None))), "{end:?}");

    // Someone else's session, a closed one and none at all are refused.
    let (theirs, _) = open(&client, &format!("{base}/page")).await;
    let other_key = fleet.key("umbrella").await;
    let mut other = crate::harness::grpc(&fleet, &other_key).await;
    let refused = other
        .watch(pb::WatchRequest {
            session_id: theirs,
            until: None,
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code(), tonic::Code::NotFound, "{refused:?}");
    let closed = browser
        .watch(pb::WatchRequest {
            session_id: session,
            until: None,
        })
        .await
        .unwrap_err();
    assert_eq!(closed.code(), tonic::Code::NotFound, "{closed:?}");
    let none = browser
        .watch(pb::WatchRequest {
            session_id: String::new(),
            until: None,
        })
        .await
        .unwrap_err();
    assert_eq!(none.code(), tonic::Code::InvalidArgument, "{none:?}");
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_python_grpcio_client_watches_a_session_with_stubs_from_the_proto() {
    use tokio::io::AsyncBufReadExt as _;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = root.join("tests/clients/grpc/venv/bin/python");
    assert!(
        python.exists(),
        "grpcio is not installed in {}: run `make test` (it makes the venv)",
        python.display()
    );
    let fleet = Fleet::start(1).await;
    let base = crate::downloads::site().await;
    let client = fleet.client("acme").await;
    let (session, _) = open(&client, &format!("{base}/page")).await;
    let key = fleet.key("acme").await;
    let target = fleet.gateway.trim_start_matches("http://").to_owned();
    let mut child = tokio::process::Command::new(&python)
        .arg(root.join("tests/clients/grpc/watch.py"))
        .arg(root.join("proto"))
        .arg(&target)
        .arg(&key)
        .arg(&session)
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let first = tokio::time::timeout(Duration::from_secs(60), lines.next_line())
        .await
        .expect("the Python client to start watching")
        .unwrap();
    assert_eq!(first.as_deref(), Some("watching"));

    act(
        &client,
        "servo_click",
        &session,
        json!({"selector": "#next"}),
    )
    .await;
    act(&client, "servo_session_close", &session, json!({})).await;
    let mut seen = Vec::new();
    while let Some(line) = tokio::time::timeout(Duration::from_secs(20), lines.next_line())
        .await
        .expect("the stream to go on until the close")
        .unwrap()
    {
        seen.push(serde_json::from_str::<serde_json::Value>(&line).unwrap());
    }
    let status = child.wait().await.unwrap();
    assert!(status.success(), "the Python client failed: {status}");
    let kinds: Vec<&str> = seen.iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["navigated", "console", "changed", "closed"],
        "{seen:#?}"
    );
    assert_eq!(seen[0]["url"], format!("{base}/about"));
    assert_eq!(seen[1]["text"], "about loaded");
    assert!(seen.iter().all(|e| e["session"] == session.as_str()));
}

/// A watch of `session` that waits on `until`.
fn waiting_on(session: &str, until: pb::LongWait) -> pb::WatchRequest {
    pb::WatchRequest {
        session_id: session.to_owned(),
        until: Some(until),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_long_wait_ends_when_another_agent_makes_its_condition_true_or_its_time_passes() {
    let fleet = Fleet::start(1).await;
    let client = fleet.client("acme").await;
    let base = crate::harness::fixtures().await;
    let (session, _) = open(&client, &format!("{base}/about")).await;
    let key = fleet.key("acme").await;
    let mut browser = crate::harness::grpc(&fleet, &key).await;

    // Longer than a call may take: nothing holds yet, and the stream waits.
    let mut waiting = browser
        .watch(waiting_on(
            &session,
            pb::LongWait {
                selector: Some("#done".into()),
                text: None,
                timeout_ms: 120_000,
            },
        ))
        .await
        .unwrap()
        .into_inner();
    let early = tokio::time::timeout(Duration::from_secs(3), waiting.message()).await;
    assert!(
        early.is_err(),
        "the wait ended before its condition held: {early:?}"
    );
    // Another agent adds the element: the wait ends soon after, met.
    let r = act(
        &client,
        "servo_evaluate",
        &session,
        json!({"script": "const d = document.createElement('p'); d.id = 'done'; d.textContent = 'done'; document.body.append(d); 1"}),
    )
    .await;
    assert_eq!(r["ok"], true, "{r:#}");
    let waited = loop {
        match next(&mut waiting).await {
            Kind::Waited(w) => break w,
            Kind::Changed(_) => {}
            other => panic!("not the end of the wait: {other:?}"),
        }
    };
    assert!(waited.met, "{waited:?}");
    assert!(
        waited.checks >= 2,
        "checked at the start and after the change: {waited:?}"
    );
    assert!(waited.elapsed_ms >= 3_000, "{waited:?}");
    let end = tokio::time::timeout(Duration::from_secs(10), waiting.message()).await;
    assert!(
        matches!(end, Ok(Ok(None))),
        "the stream ends after the wait: {end:?}"
    );

    // Text that never comes: the wait ends when its time passes.
    let mut never = browser
        .watch(waiting_on(
            &session,
            pb::LongWait {
                selector: None,
                text: Some("never on this page".into()),
                timeout_ms: 2_500,
            },
        ))
        .await
        .unwrap()
        .into_inner();
    match next(&mut never).await {
        Kind::Waited(w) => {
            assert!(!w.met, "{w:?}");
            assert!((2_500..10_000).contains(&w.elapsed_ms), "{w:?}");
            assert!(w.checks >= 2, "checked again while waiting: {w:?}");
            assert!(w.error.is_empty(), "{w:?}");
        }
        other => panic!("not the end of the wait: {other:?}"),
    }

    // A wait that is not one: both conditions, neither, too long.
    for (until, says) in [
        (
            pb::LongWait {
                selector: Some("p".into()),
                text: Some("x".into()),
                timeout_ms: 0,
            },
            "got both",
        ),
        (pb::LongWait::default(), "got neither"),
        (
            pb::LongWait {
                selector: Some("p".into()),
                text: None,
                timeout_ms: 600_001,
            },
            "until.timeoutMs must be 1000 to 600000",
        ),
    ] {
        let refused = browser
            .watch(waiting_on(&session, until))
            .await
            .unwrap_err();
        assert_eq!(refused.code(), tonic::Code::InvalidArgument, "{refused:?}");
        assert!(refused.message().contains(says), "{refused:?}");
    }
}
