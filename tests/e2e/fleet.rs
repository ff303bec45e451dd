//! The whole path: MCP client → gateway → gRPC → two workers → engine, with
//! routes in Redis and snapshots in Postgres.

use base64::Engine as _;
use serde_json::json;

use crate::harness::{Fleet, call, first, fixtures, open_tabs};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sessions_spread_over_both_workers_and_later_calls_reach_the_same_worker() {
    let fleet = Fleet::start(2).await;
    let client = fleet.client("acme").await;

    let actions: Vec<_> = (0..4)
        .map(|i| json!({"html": format!("<title>tab {i}</title><p>tab {i}</p>")}))
        .collect();
    let (out, _) = call(&client, "servo_navigate", json!({"actions": actions})).await;
    assert_eq!(out["metadata"]["successfulCount"], 4, "{out:#}");
    let ids: Vec<String> = (0..4)
        .map(|i| {
            out["responses"][i]["sessionID"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    let mut owners = Vec::new();
    for id in &ids {
        owners.push(fleet.route(id).await);
    }
    let workers: std::collections::BTreeSet<_> = owners.iter().map(|(w, _)| w.clone()).collect();
    assert_eq!(
        workers.len(),
        2,
        "sessions did not land on both workers: {owners:?}"
    );

    for round in 0..3 {
        let actions: Vec<_> = ids.iter().map(|id| json!({"sessionID": id})).collect();
        let (out, _) = call(&client, "servo_inspect", json!({"actions": actions})).await;
        assert_eq!(out["metadata"]["successfulCount"], 4, "{out:#}");
        for (i, id) in ids.iter().enumerate() {
            assert_eq!(
                out["responses"][i]["response"]["page"]["title"],
                format!("tab {i}")
            );
            assert_eq!(
                fleet.route(id).await,
                owners[i],
                "round {round}: session {id} moved"
            );
        }
    }
    let snapshots = fleet
        .db
        .query_count("SELECT COUNT(DISTINCT session_id) FROM session_parts")
        .await;
    assert_eq!(snapshots, 4, "every session is checkpointed in Postgres");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sessions_made_by_separate_calls_in_one_second_spread_over_both_workers() {
    // One registry read serves the gateway's calls for a second; each
    // session it places there must count, or a burst lands on one worker.
    let fleet = Fleet::start(2).await;
    let client = fleet.client("acme").await;
    let mut owners = Vec::new();
    for i in 0..4 {
        let page = json!({"html": format!("<p>call {i}</p>")});
        let (out, _) = call(&client, "servo_navigate", json!({"actions": [page]})).await;
        let id = out["responses"][0]["sessionID"]
            .as_str()
            .unwrap()
            .to_owned();
        owners.push(fleet.route(&id).await.0);
    }
    let workers: std::collections::BTreeSet<_> = owners.iter().collect();
    assert_eq!(
        workers.len(),
        2,
        "four sessions from four calls landed on one worker: {owners:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn loads_a_fixture_page_evaluates_javascript_and_screenshots_its_text() {
    // covers: output.text, render.screenshot
    let site = fixtures().await;
    let fleet = Fleet::start(2).await;
    let client = fleet.client("acme").await;

    let (out, _) = call(
        &client,
        "servo_navigate",
        json!({"actions": [{"url": format!("{site}/"), "width": 800, "height": 600}]}),
    )
    .await;
    let r = first(&out);
    assert_eq!(r["ok"], true, "{out:#}");
    let id = r["sessionID"].as_str().unwrap().to_owned();
    let page = &r["response"]["page"];
    assert_eq!(page["url"], format!("{site}/"));
    assert_eq!(page["title"], "Fixture Home (scripted)");
    let text = page["text"].as_str().unwrap();
    assert!(text.contains("Hello from the fixture"), "{text}");
    assert!(
        text.contains("Plain text with collapsed whitespace."),
        "{text}"
    );
    assert!(
        !text.contains("secret hidden text"),
        "hidden text leaked: {text}"
    );
    let links = page["links"].as_array().unwrap();
    assert_eq!(links[0]["href"], format!("{site}/about"));
    assert_eq!(links[0]["text"], "About us");

    let (out, _) = call(
        &client,
        "servo_evaluate",
        json!({"actions": [{"sessionID": id, "script": "[document.title, 1 + 2, location.href]"}]}),
    )
    .await;
    assert_eq!(
        first(&out)["response"]["value"],
        json!(["Fixture Home (scripted)", 3, format!("{site}/")]),
        "{out:#}"
    );

    let (out, raw) = call(
        &client,
        "servo_screenshot",
        json!({"actions": [{"sessionID": id}]}),
    )
    .await;
    let r = first(&out);
    assert_eq!(
        (
            r["response"]["width"].as_u64(),
            r["response"]["height"].as_u64()
        ),
        (Some(800), Some(600)),
        "{out:#}"
    );
    let image = raw
        .content
        .iter()
        .find_map(|c| c.as_image().map(|i| i.data.clone()))
        .expect("a PNG image block");
    let png = base64::engine::general_purpose::STANDARD
        .decode(image)
        .unwrap();
    let decoder = png::Decoder::new(std::io::Cursor::new(png));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (800, 600));
    // The 40px heading sits near the top left: it must have dark pixels there.
    let channels = info.color_type.samples();
    let dark = (20..80)
        .flat_map(|y| (20..400).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let p = (y * 800 + x) * channels;
            buf[p] < 100 && buf[p + 1] < 100 && buf[p + 2] < 100
        })
        .count();
    assert!(dark > 200, "no heading text painted ({dark} dark pixels)");
    let blank = (500..600)
        .flat_map(|y| (700..800).map(move |x| (x, y)))
        .all(|(x, y)| buf[(y * 800 + x) * channels] > 240);
    assert!(blank, "the empty corner is not background");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_session_whose_route_is_lost_restores_its_storage_from_postgres() {
    // covers: storage.web-storage
    let fleet = Fleet::start(2).await;
    let client = fleet.client("acme").await;
    let html = "<title>Notes</title><p>note page</p>";
    let (out, _) = call(
        &client,
        "servo_navigate",
        json!({"actions": [{"html": html, "width": 1024, "height": 700}]}),
    )
    .await;
    let id = first(&out)["sessionID"].as_str().unwrap().to_owned();
    let (out, _) = call(&client, "servo_evaluate", json!({"actions": [{"sessionID": id, "script": "localStorage.setItem('k', 'v1'); localStorage.getItem('k')"}]})).await;
    assert_eq!(first(&out)["response"]["value"], "v1", "{out:#}");
    let (_, epoch) = fleet.route(&id).await;

    // Forget the route, as after a Redis flush: the next call must restore.
    fleet.forget_route(&id).await;
    let (out, _) = call(&client, "servo_evaluate", json!({"actions": [{"sessionID": id, "script": "[localStorage.getItem('k'), document.title, innerWidth]"}]})).await;
    assert_eq!(
        first(&out)["response"]["value"],
        json!(["v1", "Notes", 1024]),
        "{out:#}"
    );
    let (_, new_epoch) = fleet.route(&id).await;
    assert!(
        new_epoch > epoch,
        "the restore claimed a new epoch ({epoch} → {new_epoch})"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn session_status_reports_a_live_session_with_the_default_viewport() {
    let fleet = Fleet::start(1).await;
    let client = fleet.client("acme").await;
    let (out, _) = call(
        &client,
        "servo_navigate",
        json!({"actions": [{"html": "<p>x</p>"}]}),
    )
    .await;
    let id = first(&out)["sessionID"].as_str().unwrap().to_owned();
    let (out, _) = call(
        &client,
        "servo_session_status",
        json!({"actions": [{"sessionID": id}]}),
    )
    .await;
    let s = &first(&out)["response"];
    assert_eq!(s["status"], "active", "{out:#}");
    assert_eq!(s["runtimeAvailable"], true);
    assert_eq!(s["resumable"], true);
    assert!(s["expiresAt"].as_str().unwrap() > s["updatedAt"].as_str().unwrap());
    assert_eq!(
        s["notRestored"],
        json!(["jsHeap", "history", "elementScrollOffsets"])
    );
    // No width/height: the default viewport.
    let (out, _) = call(
        &client,
        "servo_evaluate",
        json!({"actions": [{"sessionID": id, "script": "[innerWidth, innerHeight]"}]}),
    )
    .await;
    assert_eq!(
        first(&out)["response"]["value"],
        json!([1280, 720]),
        "{out:#}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_runaway_script_ends_at_its_deadline_and_a_memory_bomb_fails_only_its_session() {
    let mut fleet = Fleet::start(1).await;
    let client = fleet.client("acme").await;
    let ids = open_tabs(&client, &["kept", "bystander"]).await;
    let (id, bystander) = (ids[0].clone(), ids[1].clone());

    let started = std::time::Instant::now();
    let (out, _) = call(
        &client,
        "servo_evaluate",
        json!({"actions": [{"sessionID": id, "script": "while (true) {}", "maxDurationMs": 500}]}),
    )
    .await;
    let r = first(&out);
    assert_eq!(r["code"], "TIMEOUT", "{out:#}");
    assert!(r["error"].as_str().unwrap().contains("500 ms"), "{out:#}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "the deadline did not stop the loop"
    );
    // The interrupted tab is rebuilt from its last checkpoint on the next call.
    let (out, _) = call(
        &client,
        "servo_evaluate",
        json!({"actions": [{"sessionID": id, "script": "document.title"}]}),
    )
    .await;
    assert_eq!(first(&out)["response"]["value"], "kept", "{out:#}");

    let bomb = "let a = []; while (true) { a.push(new Array(1 << 20).fill(7)); }";
    let (out, _) = call(
        &client,
        "servo_evaluate",
        json!({"actions": [{"sessionID": id, "script": bomb, "maxDurationMs": 15000}]}),
    )
    .await;
    let r = first(&out);
    assert_eq!(r["ok"], false, "{out:#}");
    assert!(
        r["error"].as_str().unwrap().contains("memory"),
        "the memory bomb should fail on the session's memory cap: {out:#}"
    );
    assert!(
        fleet.workers[0].1.child.try_wait().unwrap().is_none(),
        "the worker died"
    );
    let (out, _) = call(
        &client,
        "servo_inspect",
        json!({"actions": [{"sessionID": bystander}]}),
    )
    .await;
    assert_eq!(
        first(&out)["response"]["page"]["title"],
        "bystander",
        "{out:#}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_httponly_login_cookie_is_kept_by_the_host_and_survives_a_restore() {
    // covers: net.cookies
    let site = fixtures().await;
    let fleet = Fleet::start(2).await;
    let client = fleet.client("acme").await;
    let (out, _) = call(
        &client,
        "servo_navigate",
        json!({"actions": [{"url": format!("{site}/login")}]}),
    )
    .await;
    let id = first(&out)["sessionID"].as_str().unwrap().to_owned();
    let whoami = json!({"actions": [{"sessionID": id, "url": format!("{site}/whoami")}]});
    let (out, _) = call(&client, "servo_navigate", whoami.clone()).await;
    assert!(
        first(&out)["response"]["page"]["text"]
            .as_str()
            .unwrap()
            .contains("cookie: sid=s3cret"),
        "{out:#}"
    );
    let (out, _) = call(
        &client,
        "servo_evaluate",
        json!({"actions": [{"sessionID": id, "script": "document.cookie"}]}),
    )
    .await;
    assert!(
        !first(&out)["response"]["value"]
            .as_str()
            .unwrap_or_default()
            .contains("s3cret"),
        "an HttpOnly cookie reached the page: {out:#}"
    );

    fleet.forget_route(&id).await;
    let (out, _) = call(&client, "servo_navigate", whoami).await;
    assert!(
        first(&out)["response"]["page"]["text"]
            .as_str()
            .unwrap()
            .contains("cookie: sid=s3cret"),
        "the jar was not restored: {out:#}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn deep_nesting_and_huge_documents_fit_the_default_memory_cap_and_a_million_nodes_stop_at_the_deadline()
 {
    // The worker's own default cap (512 MiB), as a user who sets nothing gets.
    let mut fleet = Fleet::start_with(1, &[("FLEET_SESSION_MEMORY_MB", "default")]).await;
    let client = fleet.client("acme").await;
    let deep = format!(
        "<title>deep</title>{}x{}",
        "<div>".repeat(20_000),
        "</div>".repeat(20_000)
    );
    let wide = format!("<title>wide</title>{}", "<p>row</p>".repeat(100_000));
    assert!(deep.len() <= 1 << 20 && wide.len() <= 1 << 20);
    let (out, _) = call(
        &client,
        "servo_navigate",
        json!({"actions": [{"html": deep}, {"html": wide}]}),
    )
    .await;
    for (i, title) in ["deep", "wide"].iter().enumerate() {
        assert_eq!(
            out["responses"][i]["response"]["page"]["title"], *title,
            "{:#}",
            out["responses"][i]
        );
    }
    let id = out["responses"][0]["sessionID"]
        .as_str()
        .unwrap()
        .to_owned();
    let bystander = out["responses"][1]["sessionID"]
        .as_str()
        .unwrap()
        .to_owned();
    // A million nodes built by script take longer than the largest budget
    // (and fit 512 MiB): the script is stopped at its deadline, this session
    // only, and is told so.
    let bomb = "for (let i = 0; i < 1000000; i++) document.body.appendChild(document.createElement('div')); document.body.children.length";
    let (out, _) = call(
        &client,
        "servo_evaluate",
        json!({"actions": [{"sessionID": id, "script": bomb, "maxDurationMs": 15000}]}),
    )
    .await;
    let r = first(&out);
    assert_eq!(r["code"], "TIMEOUT", "{r:#}");
    assert!(
        r["error"].as_str().unwrap().contains("time budget"),
        "{r:#}"
    );
    assert!(
        fleet.workers[0].1.child.try_wait().unwrap().is_none(),
        "the worker died"
    );
    let (out, _) = call(
        &client,
        "servo_inspect",
        json!({"actions": [{"sessionID": bystander}]}),
    )
    .await;
    assert_eq!(first(&out)["response"]["page"]["title"], "wide", "{out:#}");
}
