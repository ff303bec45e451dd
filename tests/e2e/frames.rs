//! Frames: a same-origin frame's scripts run in a realm of their own before
//! the page's load, the page reaches the frame's live window and document,
//! and the frame tools list frames by id, evaluate in one and read one's
//! HTML (and `servo_get_html` the page's); a frame of another origin stays a
//! static document.

use serde_json::{Value, json};

use crate::harness::{Fleet, act, eval, open};

/// The page (`/`) and its same-origin frame (`/inner`, which holds a srcdoc
/// frame) on 127.0.0.1, and a frame of another origin on 127.0.0.2.
async fn site() -> String {
    use axum::response::Html;
    use axum::routing::get;
    let other = axum::Router::new().route(
        "/other",
        get(|| async {
            Html("<title>other</title><p id=o>static</p><script>document.getElementById('o').textContent = 'ran'</script>")
        }),
    );
    let other_listener = tokio::net::TcpListener::bind("127.0.0.2:0").await.unwrap();
    let other_origin = format!("http://{}", other_listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(other_listener, other).await.unwrap() });
    let page = format!(
        r#"<title>host</title><script>window.early = 'before the frames'</script><p>host page</p>
<iframe name="inner" src="/inner"></iframe>
<iframe name="other" src="{other_origin}/other"></iframe>
<script>
  window.loads = []; window.messages = []; window.got = null;
  for (const f of document.querySelectorAll('iframe')) f.addEventListener('load', () => loads.push(f.name));
  addEventListener('message', (e) => messages.push(e.data));
  addEventListener('load', () => {{ got = frames[0].answer; }});
</script>"#
    );
    let app = axum::Router::new()
        .route("/", get(move || async move { Html(page) }))
        .route(
            "/inner",
            get(|| async {
                Html(
                    r#"<title>inner</title><p id=s>as written</p>
<iframe srcdoc="<p id=deep>deep</p><script>document.getElementById('deep').textContent = 'deep ' + (parent.answer === 42 ? 'saw its parent' : 'alone')</script>"></iframe>
<script>
  document.getElementById('s').textContent = 'scripted';
  window.answer = 42;
  document.title = 'ran';
  parent.postMessage('hello', '*');
  setTimeout(() => { document.body.dataset.t = 'timer'; }, 100);
  setTimeout(() => { window.late = 'ran'; }, 1500);
  localStorage.setItem('k', 'v');
</script>"#,
                )
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    base
}

/// `servo_frame_evaluate` in frame `frame` of session `id`, which must succeed.
async fn frame_eval(client: &crate::harness::Client, id: &str, frame: &str, script: &str) -> Value {
    let r = act(
        client,
        "servo_frame_evaluate",
        id,
        json!({"frameId": frame, "script": script}),
    )
    .await;
    assert_eq!(r["ok"], true, "{frame}: {script}: {r:#}");
    assert_eq!(r["response"]["frameId"], frame, "{r:#}");
    r["response"]["value"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn same_origin_frames_run_their_scripts_before_the_pages_load() {
    // covers: frames
    let fleet = Fleet::start(1).await;
    let client = fleet.client("frames").await;
    let base = site().await;
    let (id, r) = open(&client, &format!("{base}/")).await;
    let frames = r["response"]["page"]["frames"].as_array().unwrap().clone();
    assert_eq!(frames[0]["title"], "ran", "{frames:#?}");
    assert_eq!(frames[0]["text"], "scripted", "{frames:#?}");
    assert_eq!(frames[1]["text"], "deep saw its parent", "{frames:#?}");
    assert_eq!(frames[2]["text"], "static", "{frames:#?}");

    // The frames loaded (their load events on the page's elements) before
    // the page's load, when the page read the frame's global; the frame's
    // message reached the page.
    assert_eq!(
        eval(&client, &id, "[loads, got, messages]").await,
        json!([["inner", "other"], 42, ["hello"]])
    );
    // The page's view of the frame is the frame's live realm, both ways.
    assert_eq!(
        eval(
            &client,
            &id,
            "const w = frames[0]; w.document.getElementById('s').textContent = 'from the page'; [w === document.querySelector('iframe').contentWindow, w.frameElement.name, w.parent === window, w.answer]"
        )
        .await,
        json!([true, "inner", true, 42])
    );
    // The frame's timer ran while it loaded; its storage is its origin's,
    // which is the page's.
    assert_eq!(
        frame_eval(
            &client,
            &id,
            "1",
            "[answer, document.body.dataset.t, document.getElementById('s').textContent, parent === top, frameElement.name, localStorage.getItem('k'), location.pathname]"
        )
        .await,
        json!([42, "timer", "from the page", true, "inner", "v", "/inner"])
    );
    assert_eq!(eval(&client, &id, "localStorage.getItem('k')").await, "v");
    // A timer past the load's quiet period runs when a wait lets its time pass.
    assert_eq!(
        frame_eval(&client, &id, "1", "typeof late").await,
        "undefined"
    );
    let r = act(&client, "servo_wait", &id, json!({"timeMs": 2000})).await;
    assert_eq!(r["ok"], true, "{r:#}");
    assert_eq!(frame_eval(&client, &id, "1", "late").await, "ran");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn frame_tools_list_frames_by_id_and_evaluate_and_read_one() {
    // covers: frames
    let fleet = Fleet::start(1).await;
    let client = fleet.client("frames").await;
    let base = site().await;
    let (id, _) = open(&client, &format!("{base}/")).await;

    let r = act(&client, "servo_frame_list", &id, json!({})).await;
    assert_eq!(r["ok"], true, "{r:#}");
    let list = r["response"]["frames"].as_array().unwrap();
    let brief: Vec<Value> = list
        .iter()
        .map(|f| {
            json!([
                f["id"],
                f["parentId"],
                f["name"],
                f["title"],
                f["loaded"],
                f["sameOrigin"]
            ])
        })
        .collect();
    assert_eq!(
        brief,
        vec![
            json!(["1", null, "inner", "ran", true, true]),
            json!(["1.1", "1", "", "", true, true]),
            json!(["2", null, "other", "other", true, false]),
        ]
    );
    assert_eq!(list[0]["url"], format!("{base}/inner"));

    // A frame of another origin never ran its scripts; an agent can still
    // read it and evaluate in it.
    assert_eq!(
        frame_eval(
            &client,
            &id,
            "2",
            "document.getElementById('o').textContent"
        )
        .await,
        "static"
    );
    // A number names a frame of the page too.
    let r = act(&client, "servo_frame_get_html", &id, json!({"frameId": 1})).await;
    assert_eq!(r["ok"], true, "{r:#}");
    let html = r["response"]["html"].as_str().unwrap();
    assert!(html.starts_with("<html>"), "{html}");
    assert!(html.contains("<p id=\"s\">scripted</p>"), "{html}");
    assert_eq!(r["response"]["truncated"], false);
    assert_eq!(r["response"]["url"], format!("{base}/inner"));
    let r = act(
        &client,
        "servo_frame_get_html",
        &id,
        json!({"frameId": "1.1", "maxChars": 12}),
    )
    .await;
    assert_eq!(r["response"]["html"], "<html><head>", "{r:#}");
    assert_eq!(r["response"]["truncated"], true);

    // The page's own HTML holds its frame elements, not their documents.
    let r = act(&client, "servo_get_html", &id, json!({})).await;
    let html = r["response"]["html"].as_str().unwrap_or_default();
    assert!(
        html.contains("<iframe name=\"inner\" src=\"/inner\"></iframe>"),
        "{r:#}"
    );
    assert!(!html.contains("scripted"), "{html}");
    assert_eq!(r["response"]["url"], format!("{base}/"));
    let r = act(&client, "servo_get_html", &id, json!({"maxChars": 6})).await;
    assert_eq!(
        (&r["response"]["html"], &r["response"]["truncated"]),
        (&json!("<html>"), &json!(true)),
        "{r:#}"
    );

    // What an evaluation changes in a frame is in the frame's HTML, and its
    // promise is awaited.
    assert_eq!(
        frame_eval(
            &client,
            &id,
            "1.1",
            "new Promise((done) => setTimeout(() => { document.getElementById('deep').textContent = 'changed'; done(document.title || 'untitled'); }, 50))"
        )
        .await,
        "untitled"
    );
    let r = act(
        &client,
        "servo_frame_get_html",
        &id,
        json!({"frameId": "1.1"}),
    )
    .await;
    assert!(
        r["response"]["html"].as_str().unwrap().contains("changed"),
        "{r:#}"
    );

    // A frame's navigation leaves the page where it is.
    frame_eval(&client, &id, "1", "location.href = '/elsewhere'; 1").await;
    let r = act(&client, "servo_inspect", &id, json!({})).await;
    assert_eq!(r["response"]["page"]["url"], format!("{base}/"), "{r:#}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn frame_tools_refuse_ids_that_name_no_frame() {
    // covers: frames
    let fleet = Fleet::start(1).await;
    let client = fleet.client("frames").await;
    let base = site().await;
    let (id, _) = open(&client, &format!("{base}/")).await;
    for (tool, fields, needle) in [
        (
            "servo_frame_evaluate",
            json!({"frameId": "3", "script": "1"}),
            "no frame has the id 3",
        ),
        (
            "servo_frame_get_html",
            json!({"frameId": "2.1"}),
            "no frame has the id 2.1",
        ),
        (
            "servo_frame_get_html",
            json!({"frameId": "1.x"}),
            "\"1.x\" is not a frame id",
        ),
        (
            "servo_frame_evaluate",
            json!({"frameId": "1"}),
            "script is required",
        ),
        (
            "servo_frame_get_html",
            json!({"frameId": "1", "maxChars": 200_001}),
            "maxChars must be 1 to 200000",
        ),
        (
            "servo_frame_list",
            json!({"frameId": "1"}),
            "unknown field \"frameId\"",
        ),
    ] {
        let r = act(&client, tool, &id, fields.clone()).await;
        assert!(
            r["error"].as_str().unwrap_or_default().contains(needle),
            "{tool} {fields}: {r:#}"
        );
    }
    // A script that throws in a frame is the script's error.
    let r = act(
        &client,
        "servo_frame_evaluate",
        &id,
        json!({"frameId": "1", "script": "undefinedThing.x"}),
    )
    .await;
    assert_eq!(r["ok"], false, "{r:#}");
    assert!(
        r["error"].as_str().unwrap().contains("the script threw"),
        "{r:#}"
    );
    // Nothing was changed by the refused calls.
    assert_eq!(frame_eval(&client, &id, "1", "answer").await, 42);
}

/// The limits on frames, at their edges: the scripts of at most 8 frames
/// run at load; at most 16 frames get a realm; at most 50 are listed.
#[tokio::test(flavor = "multi_thread")]
async fn frame_limits_hold_at_their_edges() -> anyhow::Result<()> {
    use fleet_worker::host::{EvalError, Source};
    let budget = std::time::Duration::from_secs(20);
    let (_host, mut tab) = crate::harness::engine_tab(&[]).await?;
    let scripted =
        "<iframe srcdoc=\"<script>parent.ran = (parent.ran || 0) + 1</script>\"></iframe>";
    let plain = "<iframe srcdoc=\"<p>plain</p>\"></iframe>";
    let page = format!(
        "<title>many</title>{}{}",
        scripted.repeat(9),
        plain.repeat(50)
    );
    tab.load(Source::Html(page), budget).await?;
    assert_eq!(tab.evaluate("ran", budget).await??, "8");
    let listed = tab.frames(budget).await?;
    assert_eq!(listed.len(), 50);
    assert_eq!(listed[49].id, "50");
    // Eight realms exist; eight more may be made, the seventeenth not.
    for frame in 10..=17 {
        let value = tab
            .frame_evaluate(&frame.to_string(), "1 + 1", budget)
            .await??;
        assert_eq!(value, "2", "frame {frame}");
    }
    match tab.frame_evaluate("18", "1 + 1", budget).await? {
        Err(EvalError::Exception(m)) => {
            assert!(m.contains("16 frame realms"), "{m}")
        }
        other => panic!("a seventeenth realm: {other:?}"),
    }
    // A frame that has its realm still answers.
    assert_eq!(tab.frame_evaluate("3", "parent.ran", budget).await??, "8");
    Ok(())
}

/// The frames action typed over gRPC, on the caller's own sessions only.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn frames_are_a_typed_grpc_action_on_the_callers_sessions() {
    use fleet_proto::v1::{self as pb, action_output, action_response::Outcome, frames::Op};
    let fleet = Fleet::start(1).await;
    let client = fleet.client("acme").await;
    let base = site().await;
    let (id, _) = open(&client, &format!("{base}/")).await;
    let action = |op: Op| pb::BrowserAction {
        session_id: id.clone(),
        viewport: None,
        action: Some(pb::Action {
            kind: Some(pb::action::Kind::Frames(pb::Frames { op: Some(op) })),
            max_duration_ms: 0,
        }),
    };
    let key = fleet.key("acme").await;
    let mut browser = crate::harness::grpc(&fleet, &key).await;
    let mut outputs = Vec::new();
    // One action per call: a call names each session once.
    for op in [
        Op::List(pb::FrameList {}),
        Op::Evaluate(pb::FrameEvaluate {
            frame_id: "1".into(),
            script: "document.title".into(),
        }),
    ] {
        let resp = browser
            .execute(pb::ExecuteRequest {
                actions: vec![action(op)],
            })
            .await
            .unwrap()
            .into_inner();
        match &resp.responses[0].outcome {
            Some(Outcome::Output(pb::ActionOutput {
                kind: Some(action_output::Kind::Frames(f)),
            })) => outputs.push(f.clone()),
            other => panic!("{other:?}"),
        }
    }
    let ids: Vec<&str> = outputs[0].frames.iter().map(|f| f.id.as_str()).collect();
    assert_eq!(ids, ["1", "1.1", "2"]);
    assert_eq!(outputs[0].frames[1].parent_id, "1");
    assert_eq!(outputs[1].value_json, "\"ran\"");
    assert_eq!(outputs[1].page.as_ref().unwrap().url, format!("{base}/"));

    // Another tenant's key finds no such session.
    let other = fleet.key("other").await;
    let mut browser = crate::harness::grpc(&fleet, &other).await;
    let resp = browser
        .execute(pb::ExecuteRequest {
            actions: vec![action(Op::List(pb::FrameList {}))],
        })
        .await
        .unwrap()
        .into_inner();
    match &resp.responses[0].outcome {
        Some(Outcome::Error(e)) => {
            assert_eq!(e.code, pb::ErrorCode::SessionNotFound as i32, "{e:?}")
        }
        other => panic!("another tenant read the frames: {other:?}"),
    }
}
