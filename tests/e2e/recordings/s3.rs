//! Recordings kept in S3-compatible storage: moto in server mode stands in
//! for S3 (the fleet signs its requests), and the typed gRPC action reads the
//! same recording.

use std::path::Path;
use std::time::Duration;

use serde_json::json;

use super::{on_recording, page_session, probe, ready, start, stop, type_into};
use crate::harness::{Fleet, wait_for};

/// A local S3-compatible server: moto in server mode, from the venv
/// `make test` makes (`tests/clients/s3`). It is stopped when dropped.
struct S3Server {
    endpoint: String,
    _process: tokio::process::Child,
}

async fn moto() -> S3Server {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/s3");
    let server = dir.join("venv/bin/moto_server");
    assert!(
        server.exists(),
        "moto is not installed in {}: run `make test` (it makes the venv)",
        dir.display()
    );
    let port = crate::harness::free_port();
    let process = tokio::process::Command::new(server)
        .args(["-H", "127.0.0.1", "-p", &port.to_string()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let endpoint = format!("http://127.0.0.1:{port}");
    let probe = format!("{endpoint}/moto-api/");
    wait_for("moto to answer", Duration::from_secs(30), || async {
        reqwest::get(&probe).await.ok().map(|_| ())
    })
    .await;
    S3Server {
        endpoint,
        _process: process,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_recording_kept_in_s3_compatible_storage_downloads_whole() {
    let s3 = moto().await;
    // moto creates a bucket on an unsigned PUT; the fleet signs every request.
    let made = reqwest::Client::new()
        .put(format!("{}/fleet-recordings", s3.endpoint))
        .send()
        .await
        .unwrap();
    assert!(made.status().is_success(), "{}", made.status());
    let env = [
        ("FLEET_OBJECT_STORE", "s3://fleet-recordings"),
        ("FLEET_S3_ENDPOINT", s3.endpoint.as_str()),
        ("FLEET_S3_ALLOW_HTTP", "true"),
        ("FLEET_S3_ACCESS_KEY_ID", "test"),
        ("FLEET_S3_SECRET_ACCESS_KEY", "test"),
        ("FLEET_URL_SIGNING_KEY", "test-signing-key"),
    ];
    let fleet = Fleet::start_env(1, &env).await;
    let client = fleet.client("acme").await;
    let session = page_session(&client).await;
    let rec = start(&client, &session, json!({"fps": 1})).await;
    assert_eq!(rec["ok"], true, "{rec:#}");
    let id = rec["response"]["recordingId"].as_str().unwrap().to_owned();
    type_into(&client, &session, "in s3").await;
    stop(&client, &session, &id).await;
    let status = ready(&client, &id).await;
    assert_eq!(status["capturedFrames"], 2, "{status:#}");

    // The typed twin: the same action model over gRPC, no session named.
    let key = fleet.key("acme").await;
    let mut browser = crate::harness::grpc(&fleet, &key).await;
    let op = fleet_proto::v1::recording::Op::Download(fleet_proto::v1::RecordingDownload {
        recording_id: id.clone(),
    });
    let typed = browser
        .execute(fleet_proto::v1::ExecuteRequest {
            actions: vec![fleet_proto::v1::BrowserAction {
                session_id: String::new(),
                viewport: None,
                action: Some(fleet_proto::v1::Action {
                    kind: Some(fleet_proto::v1::action::Kind::Recording(
                        fleet_proto::v1::Recording { op: Some(op) },
                    )),
                    max_duration_ms: 0,
                }),
            }],
        })
        .await
        .unwrap()
        .into_inner();
    let Some(fleet_proto::v1::action_response::Outcome::Output(out)) = &typed.responses[0].outcome
    else {
        panic!("no output: {typed:?}");
    };
    let Some(fleet_proto::v1::action_output::Kind::Recording(r)) = &out.kind else {
        panic!("not a recording: {out:?}");
    };
    assert_eq!(r.status, "ready");
    assert_eq!(r.size_bytes, status["sizeBytes"].as_u64().unwrap());
    assert!(
        r.download_url
            .as_deref()
            .unwrap_or_default()
            .contains("token=")
    );

    // What the bucket holds, read with the fleet's own client: the file, and
    // no frames (they go once the file is stored).
    let config = fleet_media::MediaConfig {
        s3_endpoint: Some(s3.endpoint.clone()),
        s3_allow_http: true,
        s3_access_key_id: Some("test".into()),
        s3_secret_access_key: Some("test".into()),
        ..Default::default()
    };
    let bucket = fleet_media::Blobs::open(&config, "s3://fleet-recordings").unwrap();
    let held: Vec<String> = bucket
        .list(&format!("recordings/{id}"))
        .await
        .unwrap()
        .into_iter()
        .map(|o| o.key)
        .collect();
    assert_eq!(held, [format!("recordings/{id}/video.mp4")]);
    let stored = bucket
        .get(&format!("recordings/{id}/video.mp4"))
        .await
        .unwrap();

    let link = on_recording(&client, "servo_recording_download", &id).await;
    let url = link["response"]["downloadUrl"].as_str().unwrap();
    let bytes = reqwest::get(url).await.unwrap().bytes().await.unwrap();
    assert_eq!(bytes, stored);
    assert_eq!(bytes.len() as u64, status["sizeBytes"].as_u64().unwrap());
    let file = std::env::temp_dir().join(format!("fleet-s3-{id}.mp4"));
    std::fs::write(&file, &bytes).unwrap();
    let stream = probe(&file);
    assert_eq!(stream["codec_name"], "h264", "{stream:#}");
    assert_eq!(stream["nb_read_frames"], status["targetFrames"].to_string());
    let _ = std::fs::remove_file(file);
}
