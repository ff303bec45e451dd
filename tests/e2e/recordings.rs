//! Screen recordings end to end: a real fleet records a session while it
//! types, scrolls and navigates, encodes H.264 MP4 on a worker, and serves it
//! over HTTP with the key or a signed link; ffprobe and ffmpeg read the file
//! back, and a frame of it is compared with the screenshot of the same moment.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::harness::{Client, Fleet, act, call, wait_for};

mod s3;

/// A fleet whose recordings go to a fresh folder, links signed with a
/// shared key (so the gateway and workers agree).
async fn fleet(workers: usize) -> (Fleet, PathBuf) {
    let dir = std::env::temp_dir().join(format!("fleet-recordings-{}", uuid::Uuid::new_v4()));
    let store = format!("file://{}", dir.display());
    let fleet = Fleet::start_env(
        workers,
        &[
            ("FLEET_OBJECT_STORE", store.as_str()),
            ("FLEET_URL_SIGNING_KEY", "test-signing-key"),
        ],
    )
    .await;
    (fleet, dir)
}

const PAGE: &str = "<title>rec</title><style>body{margin:0;font:20px sans-serif}\
    .band{height:300px}</style>\
    <div class=band style='background:#c0392b'></div>\
    <input id=q style='font-size:28px;width:600px'>\
    <div class=band style='background:#2980b9'></div>\
    <div class=band style='background:#27ae60'></div>\
    <div class=band style='background:#f1c40f'></div>";

/// Waits until `since` is `ms` old: recordings run on the wall clock, and
/// the test spaces its actions so the video has several seconds.
async fn until_elapsed(since: Instant, ms: u64) {
    wait_for("time to pass", Duration::from_secs(30), || async {
        (since.elapsed() >= Duration::from_millis(ms)).then_some(())
    })
    .await;
}

/// A new session showing [`PAGE`].
async fn page_session(client: &Client) -> String {
    let (out, _) = call(
        client,
        "servo_navigate",
        json!({"actions": [{"html": PAGE}]}),
    )
    .await;
    out["responses"][0]["sessionID"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Types `text` into the page's field, which must work.
async fn type_into(client: &Client, session: &str, text: &str) {
    let typed = act(
        client,
        "servo_type_text",
        session,
        json!({"selector": "#q", "text": text}),
    )
    .await;
    assert_eq!(typed["ok"], true, "{typed:#}");
}

/// Scrolls the page by `dy`, which must work.
async fn scroll(client: &Client, session: &str, dy: f64) {
    let scrolled = act(
        client,
        "servo_scroll",
        session,
        json!({"deltaX": 0, "deltaY": dy}),
    )
    .await;
    assert_eq!(scrolled["ok"], true, "{scrolled:#}");
}

/// Stops the session's recording `id`, which must work; returns the answer.
async fn stop(client: &Client, session: &str, id: &str) -> Value {
    let stopped = act(
        client,
        "servo_recording_stop",
        session,
        json!({"recordingId": id}),
    )
    .await;
    assert_eq!(stopped["ok"], true, "{stopped:#}");
    stopped
}

async fn start(client: &Client, session: &str, fields: Value) -> Value {
    act(client, "servo_recording_start", session, fields).await
}

/// One action of a tool that names a recording only.
async fn on_recording(client: &Client, tool: &str, id: &str) -> Value {
    let (out, _) = call(client, tool, json!({"actions": [{"recordingId": id}]})).await;
    if out.get("responses").is_some() {
        out["responses"][0].clone()
    } else {
        out
    }
}

/// Polls the status until it is `ready` (or fails the test on `failed`).
async fn ready(client: &Client, id: &str) -> Value {
    wait_for(
        "the recording to be ready",
        Duration::from_secs(90),
        || async {
            let s = on_recording(client, "servo_recording_status", id).await;
            assert_eq!(s["ok"], true, "{s:#}");
            assert_ne!(s["response"]["status"], "failed", "{s:#}");
            (s["response"]["status"] == "ready").then(|| s["response"].clone())
        },
    )
    .await
}

fn run(cmd: &str, args: &[&str]) -> (bool, String, String) {
    let out = std::process::Command::new(cmd)
        .args(args)
        .output()
        .unwrap_or_else(|e| {
            panic!("{cmd} could not run (the project's setup installs ffmpeg): {e}")
        });
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// What ffprobe says of the video stream, after decoding every frame.
fn probe(file: &Path) -> Value {
    let (ok, out, err) = run(
        "ffprobe",
        &[
            "-v",
            "error",
            "-select_streams",
            "v:0",
            "-count_frames",
            "-show_entries",
            "stream=codec_name,profile,width,height,nb_read_frames,avg_frame_rate",
            "-of",
            "json",
            file.to_str().unwrap(),
        ],
    );
    assert!(ok, "ffprobe failed: {err}");
    serde_json::from_str::<Value>(&out).unwrap()["streams"][0].clone()
}

/// The PSNR (average over Y, U, V, dB) between the video's last frame and a
/// screenshot scaled to the video's size.
fn last_frame_psnr(video: &Path, shot: &Path, width: u64, height: u64) -> f64 {
    let last = video.with_extension("last.png");
    let (ok, _, err) = run(
        "ffmpeg",
        &[
            "-v",
            "error",
            "-y",
            "-i",
            video.to_str().unwrap(),
            "-update",
            "1",
            last.to_str().unwrap(),
        ],
    );
    assert!(ok, "extracting the last frame failed: {err}");
    let filter = format!(
        "[1:v]scale={width}:{height}:flags=area,format=yuv420p[s];[0:v]format=yuv420p[v];[v][s]psnr"
    );
    let (ok, _, err) = run(
        "ffmpeg",
        &[
            "-v",
            "info",
            "-i",
            last.to_str().unwrap(),
            "-i",
            shot.to_str().unwrap(),
            "-lavfi",
            &filter,
            "-f",
            "null",
            "-",
        ],
    );
    assert!(ok, "ffmpeg psnr failed: {err}");
    let avg = err
        .split("average:")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .unwrap_or_else(|| panic!("no PSNR in: {err}"));
    if avg == "inf" {
        return f64::INFINITY;
    }
    avg.parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_recorded_session_downloads_as_h264_whose_last_frame_matches_the_screenshot() {
    let (fleet, dir) = fleet(1).await;
    let client = fleet.client("acme").await;
    let session = page_session(&client).await;

    let started = Instant::now();
    let rec = start(
        &client,
        &session,
        json!({"fps": 2, "maxDurationSeconds": 30}),
    )
    .await;
    assert_eq!(rec["ok"], true, "{rec:#}");
    assert_eq!(rec["response"]["status"], "recording");
    assert_eq!(rec["response"]["fps"], 2);
    assert_eq!(rec["response"]["maxDurationSeconds"], 30);
    let id = rec["response"]["recordingId"].as_str().unwrap().to_owned();

    type_into(&client, &session, "recorded text").await;
    until_elapsed(started, 1200).await;
    scroll(&client, &session, 500.0).await;
    until_elapsed(started, 2400).await;
    let (_, raw) = call(
        &client,
        "servo_screenshot",
        json!({"actions": [{"sessionID": session}]}),
    )
    .await;
    let png = raw
        .content
        .iter()
        .find_map(|c| c.as_image().map(|i| i.data.clone()))
        .expect("a screenshot image");
    use base64::Engine as _;
    let png = base64::engine::general_purpose::STANDARD
        .decode(png)
        .unwrap();

    let stopped = on_recording(&client, "servo_recording_stop", &id).await;
    // Stop names the session (it runs on the session's worker).
    assert!(
        stopped["error"]
            .as_str()
            .unwrap_or_default()
            .contains("sessionID is required"),
        "stop without the session: {stopped:#}"
    );
    let stopped = stop(&client, &session, &id).await;
    assert!(
        matches!(
            stopped["response"]["status"].as_str(),
            Some("encoding" | "ready")
        ),
        "{stopped:#}"
    );
    let secs = started.elapsed().as_secs_f64();

    let status = ready(&client, &id).await;
    assert_eq!(status["width"], 960, "{status:#}");
    assert_eq!(status["height"], 540, "{status:#}");
    assert_eq!(status["segments"], 1, "{status:#}");
    // The start, the typing and the scroll each showed something new.
    let captured = status["capturedFrames"].as_u64().unwrap();
    assert!((3..=4).contains(&captured), "{status:#}");
    let frames = status["targetFrames"].as_u64().unwrap();
    assert!(
        (5..=(secs * 2.0).ceil() as u64 + 1).contains(&frames),
        "{frames} frames for {secs:.1} s at 2 fps: {status:#}"
    );
    let size = status["sizeBytes"].as_u64().unwrap();
    assert!(size > 1000, "{status:#}");

    // The signed link needs no key, serves the whole file and byte ranges.
    let link = on_recording(&client, "servo_recording_download", &id).await;
    let url = link["response"]["downloadUrl"].as_str().unwrap().to_owned();
    assert_eq!(
        link["response"]["filename"],
        format!("servo-recording-{id}.mp4")
    );
    assert_eq!(link["response"]["mimeType"], "video/mp4");
    let http = reqwest::Client::new();
    let whole = http.get(&url).send().await.unwrap();
    assert_eq!(whole.status(), 200);
    assert_eq!(whole.headers()["content-type"], "video/mp4");
    let bytes = whole.bytes().await.unwrap();
    assert_eq!(bytes.len() as u64, size);
    let part = http
        .get(&url)
        .header("range", "bytes=0-99")
        .send()
        .await
        .unwrap();
    assert_eq!(part.status(), 206);
    assert_eq!(
        part.headers()["content-range"],
        format!("bytes 0-99/{size}")
    );
    assert_eq!(&part.bytes().await.unwrap()[..], &bytes[..100]);
    // A forged token, no credentials, or another tenant's key find nothing;
    // the owner's key does.
    let plain = format!("{}/recordings/{id}", fleet.gateway);
    let forged = url.replace("token=", "token=1");
    assert_eq!(http.get(&forged).send().await.unwrap().status(), 404);
    assert_eq!(http.get(&plain).send().await.unwrap().status(), 401);
    let other = fleet.key("umbrella").await;
    let theirs = http.get(&plain).bearer_auth(&other).send().await.unwrap();
    assert_eq!(theirs.status(), 404);
    let mine = fleet.key("acme").await;
    let owner = http.get(&plain).bearer_auth(&mine).send().await.unwrap();
    assert_eq!(owner.status(), 200);
    let other_client = fleet.client("umbrella").await;
    let hidden = on_recording(&other_client, "servo_recording_status", &id).await;
    assert_eq!(hidden["code"], "RECORDING_NOT_FOUND", "{hidden:#}");

    // ffprobe decodes every frame: H.264, the size and the frame count the
    // status gave; a full decode reports no error.
    let file = dir.join("download.mp4");
    std::fs::write(&file, &bytes).unwrap();
    let stream = probe(&file);
    assert_eq!(stream["codec_name"], "h264", "{stream:#}");
    assert_eq!(stream["width"], 960);
    assert_eq!(stream["height"], 540);
    assert_eq!(stream["avg_frame_rate"], "2/1", "{stream:#}");
    assert_eq!(stream["nb_read_frames"], frames.to_string(), "{stream:#}");
    let (ok, _, err) = run(
        "ffmpeg",
        &[
            "-v",
            "error",
            "-i",
            file.to_str().unwrap(),
            "-f",
            "null",
            "-",
        ],
    );
    assert!(ok && err.trim().is_empty(), "decoding reported: {err}");

    // The last frame shows what the screenshot showed.
    let shot_file = dir.join("shot.png");
    std::fs::write(&shot_file, &png).unwrap();
    let psnr = last_frame_psnr(&file, &shot_file, 960, 540);
    eprintln!(
        "recording: {frames} frames in {secs:.1} s, {size} bytes, last frame PSNR {psnr:.1} dB"
    );
    assert!(
        psnr >= 30.0,
        "PSNR of the last frame against the screenshot: {psnr:.1} dB"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_recording_continues_on_another_worker_when_its_worker_dies() {
    let (mut fleet, dir) = fleet(2).await;
    let client = fleet.client("acme").await;
    let session = page_session(&client).await;
    let started = Instant::now();
    let rec = start(&client, &session, json!({"fps": 3})).await;
    let id = rec["response"]["recordingId"].as_str().unwrap().to_owned();
    type_into(&client, &session, "first worker").await;
    // The frames are written off the call's path; wait until both are counted.
    wait_for(
        "the first worker's frames",
        Duration::from_secs(20),
        || async {
            let s = on_recording(&client, "servo_recording_status", &id).await;
            (s["response"]["capturedFrames"] == 2).then_some(())
        },
    )
    .await;

    let (owner, _) = fleet.route(&session).await;
    let index: usize = owner.trim_start_matches("worker-").parse().unwrap();
    fleet.workers[index].1.child.start_kill().unwrap();
    fleet.workers[index].1.child.wait().await.unwrap();

    until_elapsed(started, 1500).await;
    scroll(&client, &session, 700.0).await;
    let (now_on, _) = fleet.route(&session).await;
    assert_ne!(now_on, owner);
    stop(&client, &session, &id).await;

    let status = ready(&client, &id).await;
    assert_eq!(status["segments"], 2, "{status:#}");
    // Two frames from the first worker; the restored page and the scroll
    // from the second (the restore may paint what the first frame showed).
    let captured = status["capturedFrames"].as_u64().unwrap();
    assert!((3..=4).contains(&captured), "{status:#}");

    let link = on_recording(&client, "servo_recording_download", &id).await;
    let url = link["response"]["downloadUrl"].as_str().unwrap();
    let bytes = reqwest::get(url).await.unwrap().bytes().await.unwrap();
    let file = dir.join("moved.mp4");
    std::fs::write(&file, &bytes).unwrap();
    let stream = probe(&file);
    assert_eq!(stream["codec_name"], "h264");
    assert_eq!(
        stream["nb_read_frames"],
        status["targetFrames"].to_string(),
        "{stream:#}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn recording_limits_hold_at_their_edges_and_a_recording_stops_by_itself() {
    let (fleet, dir) = fleet(1).await;
    let client = fleet.client("acme").await;
    let session = page_session(&client).await;

    for (fields, message) in [
        (json!({"fps": 4}), "fps must be 1 to 3; got 4"),
        (
            json!({"maxDurationSeconds": 61}),
            "maxDurationSeconds must be 1 to 60; got 61",
        ),
    ] {
        let r = start(&client, &session, fields).await;
        assert!(
            r["error"].as_str().unwrap_or_default().contains(message),
            "{r:#}"
        );
    }
    let r = on_recording(&client, "servo_recording_status", "not-a-uuid").await;
    assert!(
        r["error"]
            .as_str()
            .unwrap_or_default()
            .contains("recordingId must be a recording UUID"),
        "{r:#}"
    );
    let unknown = uuid::Uuid::new_v4().to_string();
    let r = on_recording(&client, "servo_recording_status", &unknown).await;
    assert_eq!(r["code"], "RECORDING_NOT_FOUND", "{r:#}");

    // At the edges: 3 fps and 1 s. It stops by itself, and a second one
    // cannot start while the first runs.
    let first = start(
        &client,
        &session,
        json!({"fps": 3, "maxDurationSeconds": 1}),
    )
    .await;
    assert_eq!(first["ok"], true, "{first:#}");
    let id = first["response"]["recordingId"]
        .as_str()
        .unwrap()
        .to_owned();
    let second = start(&client, &session, json!({})).await;
    assert!(
        second["error"]
            .as_str()
            .unwrap_or_default()
            .contains("already has a recording"),
        "{second:#}"
    );
    let status = ready(&client, &id).await;
    assert_eq!(status["targetFrames"], 3, "1 s at 3 fps: {status:#}");
    assert!(status.get("stoppedAt").is_some(), "{status:#}");

    // Defaults (2 fps, 30 s), and at most three ready recordings per
    // session: a fourth evicts the oldest.
    let mut ids = vec![id];
    for _ in 0..3 {
        let r = start(&client, &session, json!({})).await;
        assert_eq!(r["response"]["fps"], 2, "{r:#}");
        assert_eq!(r["response"]["maxDurationSeconds"], 30, "{r:#}");
        let id = r["response"]["recordingId"].as_str().unwrap().to_owned();
        stop(&client, &session, &id).await;
        ready(&client, &id).await;
        ids.push(id);
    }
    let evicted = on_recording(&client, "servo_recording_status", &ids[0]).await;
    assert_eq!(evicted["response"]["status"], "expired", "{evicted:#}");
    assert_eq!(evicted["response"]["sizeBytes"], 0, "{evicted:#}");
    let gone = on_recording(&client, "servo_recording_download", &ids[0]).await;
    assert!(gone["response"].get("downloadUrl").is_none(), "{gone:#}");
    for id in &ids[1..] {
        let s = on_recording(&client, "servo_recording_status", id).await;
        assert_eq!(s["response"]["status"], "ready", "{s:#}");
    }

    // Closing the session keeps its recordings until they expire.
    let closed = act(&client, "servo_session_close", &session, json!({})).await;
    assert_eq!(closed["ok"], true, "{closed:#}");
    let kept = on_recording(&client, "servo_recording_download", &ids[3]).await;
    let url = kept["response"]["downloadUrl"].as_str().unwrap();
    assert_eq!(reqwest::get(url).await.unwrap().status(), 200);
    let _ = std::fs::remove_dir_all(dir);
}
