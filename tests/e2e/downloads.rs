//! Downloads end to end: a real fleet's page follows links whose responses
//! are an attachment, a type the engine does not render, or an
//! `<a download>` link; the page stays, the files are listed, read in ranges
//! as text or base64, and served over HTTP with the key or a signed link,
//! tenant-scoped; the caps hold at their edges.

use std::path::PathBuf;

use base64::Engine as _;
use serde_json::{Value, json};

use crate::harness::{Client, Fleet, act, call, open};

/// The CSV's rows: 282 KiB with a multi-byte character in every row, so a
/// 256 KiB read ends inside the file and may cut a character.
fn csv() -> String {
    (0..20_000).map(|i| format!("{i:05},€{i}\n")).collect()
}

/// Bytes no text decoder accepts, standing in for a PDF's body.
fn pdf() -> Vec<u8> {
    let mut b = b"%PDF-1.4\n".to_vec();
    b.extend((0..=255u8).cycle().take(4000));
    b
}

/// A loopback site: a page of links and the files they lead to.
pub(crate) async fn site() -> String {
    use axum::extract::Path;
    use axum::response::Html;
    use axum::routing::get;
    let app = axum::Router::new()
        .route(
            "/page",
            get(|| async {
                Html(
                    "<title>files</title><a id=pdf href=/files/report.pdf>report</a> \
                     <a id=csv href=/export>export</a> \
                     <a id=notes href=/notes.txt download='my notes.txt'>notes</a> \
                     <button id=ask onclick=\"alert('hello')\">ask</button> \
                     <a id=next href=/about>next</a> \
                     <button id=export onclick=\"exportCsv()\">export</button> \
                     <a id=inline download=hello.txt href='data:text/plain,hello%20data'>inline</a> \
                     <script>function exportCsv() { \
                       const blob = new Blob(['a,b\\n1,2\\n'], {type: 'text/csv'}); \
                       const a = document.createElement('a'); \
                       a.href = URL.createObjectURL(blob); a.download = 'table.csv'; \
                       document.body.appendChild(a); a.click(); a.remove(); }</script>",
                )
            }),
        )
        .route(
            "/about",
            get(|| async {
                Html("<title>about</title><script>console.log('about loaded')</script>")
            }),
        )
        .route(
            "/files/report.pdf",
            get(|| async { ([("content-type", "application/pdf")], pdf()) }),
        )
        .route(
            "/export",
            get(|| async {
                (
                    [
                        ("content-type", "text/csv; charset=utf-8"),
                        (
                            "content-disposition",
                            "attachment; filename=\"rates.csv\"; filename*=UTF-8''%E2%82%AC%20rates.csv",
                        ),
                    ],
                    csv(),
                )
            }),
        )
        .route(
            "/notes.txt",
            get(|| async { ([("content-type", "text/plain")], "hello notes") }),
        )
        .route(
            "/sized/{n}",
            get(|Path(n): Path<usize>| async move {
                ([("content-type", "application/octet-stream")], vec![b'x'; n])
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}")
}

/// A fleet whose files go to a fresh folder.
async fn fleet() -> (Fleet, PathBuf) {
    let dir = std::env::temp_dir().join(format!("fleet-downloads-{}", uuid::Uuid::new_v4()));
    let store = format!("file://{}", dir.display());
    let fleet = Fleet::start_env(
        1,
        &[
            ("FLEET_OBJECT_STORE", store.as_str()),
            ("FLEET_URL_SIGNING_KEY", "test-signing-key"),
        ],
    )
    .await;
    (fleet, dir)
}

/// The session's downloads, which must be listed.
async fn list(client: &Client, session: &str) -> Vec<Value> {
    let r = act(client, "servo_downloads", session, json!({})).await;
    assert_eq!(r["ok"], true, "{r:#}");
    r["response"]["downloads"].as_array().unwrap().clone()
}

/// One read action (its answer, failed or not).
async fn read(client: &Client, fields: Value) -> Value {
    let (out, _) = call(client, "servo_download_read", json!({"actions": [fields]})).await;
    if out.get("responses").is_some() {
        out["responses"][0].clone()
    } else {
        out
    }
}

fn error_of(r: &Value) -> &str {
    r["error"].as_str().unwrap_or_default()
}

/// Navigates the session to `url`, which must answer.
async fn go(client: &Client, session: &str, url: &str) -> Value {
    let r = act(client, "servo_navigate", session, json!({"url": url})).await;
    assert_eq!(r["ok"], true, "{url}: {r:#}");
    r
}

async fn console(client: &Client, session: &str) -> Vec<String> {
    let r = act(client, "servo_console_messages", session, json!({})).await;
    r["response"]["messages"]
        .as_array()
        .unwrap_or_else(|| panic!("{r:#}"))
        .iter()
        .map(|m| format!("{}: {}", m["level"], m["text"]))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_clicked_attachment_is_saved_listed_read_and_served_while_the_page_stays() {
    let (fleet, dir) = fleet().await;
    let base = site().await;
    let client = fleet.client("acme").await;
    let (session, _) = open(&client, &format!("{base}/page")).await;

    // A PDF link, an attachment reached by navigating, an <a download> link
    // to text the engine would otherwise show: the page stays each time.
    let clicked = act(
        &client,
        "servo_click",
        &session,
        json!({"selector": "#pdf"}),
    )
    .await;
    assert_eq!(clicked["ok"], true, "{clicked:#}");
    assert_eq!(
        clicked["response"]["page"]["url"],
        format!("{base}/page"),
        "{clicked:#}"
    );
    let went = go(&client, &session, &format!("{base}/export")).await;
    assert_eq!(went["response"]["page"]["title"], "files", "{went:#}");
    let clicked = act(
        &client,
        "servo_click",
        &session,
        json!({"selector": "#notes"}),
    )
    .await;
    assert_eq!(clicked["response"]["page"]["title"], "files", "{clicked:#}");
    let said = console(&client, &session).await;
    assert!(
        said.iter()
            .any(|m| m.contains("download saved: report.pdf (4009 bytes)")),
        "{said:?}"
    );

    let files = list(&client, &session).await;
    let summary: Vec<_> = files
        .iter()
        .map(|f| {
            (
                f["filename"].as_str().unwrap().to_owned(),
                f["mimeType"].as_str().unwrap().to_owned(),
                f["sizeBytes"].as_u64().unwrap(),
                f["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (
                "report.pdf".into(),
                "application/pdf".into(),
                4009,
                "complete".into()
            ),
            (
                "€ rates.csv".into(),
                "text/csv".into(),
                csv().len() as u64,
                "complete".into()
            ),
            (
                "my notes.txt".into(),
                "text/plain".into(),
                11,
                "complete".into()
            ),
        ]
    );
    assert_eq!(files[1]["sourceUrl"], format!("{base}/export"));
    assert_eq!(files[0]["sessionID"], session);
    let id = |i: usize| files[i]["downloadId"].as_str().unwrap().to_owned();

    // Binary comes back as base64, text as text; a 256 KiB read ends before
    // a cut character and the next read goes on from there.
    let r = read(&client, json!({"downloadId": id(0)})).await;
    assert_eq!(r["response"]["encoding"], "base64", "{r:#}");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(r["response"]["content"].as_str().unwrap())
        .unwrap();
    assert_eq!((bytes, &r["response"]["eof"]), (pdf(), &json!(true)));
    let first = read(&client, json!({"downloadId": id(1)})).await;
    assert_eq!(first["response"]["encoding"], "text", "{first:#}");
    let n = first["response"]["length"].as_u64().unwrap();
    assert!((262_141..=262_144).contains(&n), "{n}");
    assert_eq!(first["response"]["eof"], false);
    let rest = read(&client, json!({"downloadId": id(1), "offset": n})).await;
    assert_eq!(rest["response"]["eof"], true, "{rest:#}");
    let whole = format!(
        "{}{}",
        first["response"]["content"].as_str().unwrap(),
        rest["response"]["content"].as_str().unwrap()
    );
    assert_eq!(whole, csv());
    // Edges: the most a read may ask, one byte more, none; the end of the
    // file and past it; an encoding that is not offered; text of binary.
    let r = read(
        &client,
        json!({"downloadId": id(1), "length": 262_144, "encoding": "base64"}),
    )
    .await;
    assert_eq!(r["response"]["length"], 262_144, "{r:#}");
    for (fields, message) in [
        (
            json!({"length": 262_145}),
            "length must be 1 to 262144 bytes (256 KiB); got 262145",
        ),
        (
            json!({"length": 0}),
            "length must be 1 to 262144 bytes (256 KiB); got 0",
        ),
        (
            json!({"encoding": "hex"}),
            "encoding must be \"text\" or \"base64\"",
        ),
        (
            json!({"offset": 4010}),
            "offset 4010 is past the end of the file (4009 bytes)",
        ),
        (
            json!({"encoding": "text"}),
            "are not UTF-8 text; read them with encoding \"base64\"",
        ),
    ] {
        let mut fields = fields;
        fields["downloadId"] = json!(id(0));
        let r = read(&client, fields.clone()).await;
        assert!(error_of(&r).contains(message), "{fields}: {r:#}");
    }
    let end = read(&client, json!({"downloadId": id(0), "offset": 4009})).await;
    assert_eq!(
        (&end["response"]["length"], &end["response"]["eof"]),
        (&json!(0), &json!(true)),
        "{end:#}"
    );
    let r = read(&client, json!({"downloadId": "nope"})).await;
    assert!(
        error_of(&r).contains("downloadId must be a download UUID"),
        "{r:#}"
    );

    // The signed link needs no key and serves ranges with the exact name;
    // a forged one, none, and another tenant's key find nothing.
    let http = reqwest::Client::new();
    let url = files[1]["downloadUrl"].as_str().unwrap();
    let got = http.get(url).send().await.unwrap();
    assert_eq!(got.status(), 200);
    assert_eq!(
        got.headers()["content-disposition"],
        "attachment; filename=\"_ rates.csv\"; filename*=UTF-8''%E2%82%AC%20rates.csv"
    );
    assert_eq!(got.headers()["x-content-type-options"], "nosniff");
    assert_eq!(got.text().await.unwrap(), csv());
    let part = http
        .get(url)
        .header("range", "bytes=0-5")
        .send()
        .await
        .unwrap();
    assert_eq!(part.status(), 206);
    assert_eq!(part.text().await.unwrap(), "00000,");
    let plain = format!("{}/downloads/{}", fleet.gateway, id(2));
    assert_eq!(
        http.get(url.replace("token=", "token=1"))
            .send()
            .await
            .unwrap()
            .status(),
        404
    );
    assert_eq!(http.get(&plain).send().await.unwrap().status(), 401);
    let theirs = fleet.key("umbrella").await;
    assert_eq!(
        http.get(&plain)
            .bearer_auth(&theirs)
            .send()
            .await
            .unwrap()
            .status(),
        404
    );
    let mine = fleet.key("acme").await;
    let owner = http.get(&plain).bearer_auth(&mine).send().await.unwrap();
    assert_eq!(owner.text().await.unwrap(), "hello notes");
    let other = fleet.client("umbrella").await;
    let hidden = read(&other, json!({"downloadId": id(0)})).await;
    assert_eq!(hidden["code"], "DOWNLOAD_NOT_FOUND", "{hidden:#}");
    assert!(list(&other, &session).await.is_empty());

    // The typed twin over gRPC: the list names its session in the
    // operation, and a read of the notes comes back as text.
    let key = fleet.key("acme").await;
    let mut browser = crate::harness::grpc(&fleet, &key).await;
    let typed = |op| fleet_proto::v1::ExecuteRequest {
        actions: vec![fleet_proto::v1::BrowserAction {
            session_id: String::new(),
            viewport: None,
            action: Some(fleet_proto::v1::Action {
                kind: Some(fleet_proto::v1::action::Kind::Downloads(
                    fleet_proto::v1::Downloads { op: Some(op) },
                )),
                max_duration_ms: 0,
            }),
        }],
    };
    let mut answers = Vec::new();
    for op in [
        fleet_proto::v1::downloads::Op::List(fleet_proto::v1::DownloadList {
            session_id: session.clone(),
        }),
        fleet_proto::v1::downloads::Op::Read(fleet_proto::v1::DownloadRead {
            download_id: id(2),
            offset: 6,
            length: 5,
            encoding: String::new(),
        }),
    ] {
        let out = browser.execute(typed(op)).await.unwrap().into_inner();
        let Some(fleet_proto::v1::action_response::Outcome::Output(out)) =
            &out.responses[0].outcome
        else {
            panic!("no output: {out:?}");
        };
        let Some(fleet_proto::v1::action_output::Kind::Downloads(d)) = &out.kind else {
            panic!("not downloads: {out:?}");
        };
        answers.push(d.clone());
    }
    assert_eq!(answers[0].downloads.len(), 3, "{answers:?}");
    assert_eq!(answers[0].downloads[1].filename, "€ rates.csv");
    let chunk = answers[1].chunk.clone().unwrap();
    assert_eq!(
        (chunk.content.as_str(), chunk.encoding.as_str(), chunk.eof),
        ("notes", "text", true)
    );

    // The CLI's short table names the files.
    let (ok, out, err) = crate::harness::run_cli_env(
        &[
            "call",
            "servo_downloads",
            "--json",
            &format!(r#"{{"sessionID": "{session}"}}"#),
            "--output",
            "table",
        ],
        &[
            ("FLEET_GATEWAY_URL", &fleet.gateway),
            ("FLEET_API_KEY", &mine),
        ],
    )
    .await;
    assert!(ok, "{err}");
    assert!(
        out.contains("3 files: report.pdf (4009 B, complete), € rates.csv"),
        "{out}"
    );

    // Files the page built: an export button's Blob and a data: link.
    for target in ["#export", "#inline"] {
        let r = act(
            &client,
            "servo_click",
            &session,
            json!({"selector": target}),
        )
        .await;
        assert_eq!(r["response"]["page"]["title"], "files", "{r:#}");
    }
    let built = list(&client, &session).await;
    let tail: Vec<_> = built[3..]
        .iter()
        .map(|f| {
            (
                f["filename"].as_str().unwrap(),
                f["mimeType"].as_str().unwrap(),
                f["sourceUrl"].as_str().unwrap().split(':').next().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        tail,
        [
            ("table.csv", "text/csv", "blob"),
            ("hello.txt", "text/plain", "data")
        ],
        "{built:#?}"
    );
    for (i, text) in [(3, "a,b\n1,2\n"), (4, "hello data")] {
        let r = read(&client, json!({"downloadId": built[i]["downloadId"]})).await;
        assert_eq!(r["response"]["content"], text, "{r:#}");
    }

    // The capability report says so; the files outlive the session's close.
    let (out, _) = call(
        &client,
        "servo_get_capabilities",
        json!({"actions": [{"sessionID": session}]}),
    )
    .await;
    let caps = out["responses"][0]["response"]["capabilities"]
        .as_array()
        .unwrap()
        .clone();
    assert!(
        caps.iter()
            .any(|c| c["name"] == "downloads" && c["support"] == "supported"),
        "{caps:#?}"
    );
    let closed = act(&client, "servo_session_close", &session, json!({})).await;
    assert_eq!(closed["ok"], true, "{closed:#}");
    assert_eq!(list(&client, &session).await.len(), 5);
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn download_caps_hold_at_their_edges() {
    const MIB50: u64 = 50 * 1024 * 1024;
    let (fleet, dir) = fleet().await;
    let base = site().await;
    let client = fleet.client("acme").await;
    let (session, _) = open(&client, &format!("{base}/page")).await;

    // A file of exactly 50 MiB is kept; one byte more is listed as failed.
    go(&client, &session, &format!("{base}/sized/{MIB50}")).await;
    go(&client, &session, &format!("{base}/sized/{}", MIB50 + 1)).await;
    // A second 50 MiB file brings the session to exactly 100 MiB; then one
    // byte more does not fit.
    go(&client, &session, &format!("{base}/sized/{MIB50}")).await;
    go(&client, &session, &format!("{base}/sized/1")).await;
    let files = list(&client, &session).await;
    let states: Vec<_> = files
        .iter()
        .map(|f| {
            (
                f["status"].as_str().unwrap(),
                f["sizeBytes"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        states,
        [
            ("complete", MIB50),
            ("failed", 0),
            ("complete", MIB50),
            ("failed", 0)
        ],
        "{files:#?}"
    );
    assert!(
        files[1]["error"]
            .as_str()
            .unwrap()
            .contains("exceeds the limit of 52428800 bytes"),
        "{files:#?}"
    );
    assert!(files[1].get("downloadUrl").is_none());
    assert!(
        files[3]["error"]
            .as_str()
            .unwrap()
            .contains("would pass 100 MiB"),
        "{files:#?}"
    );
    let failed = read(&client, json!({"downloadId": files[1]["downloadId"]})).await;
    assert!(
        error_of(&failed).contains("failed and has no bytes"),
        "{failed:#}"
    );

    // At most 100 files a session, failed ones counted: the 101st is not
    // listed, and the console says why.
    let (small, _) = open(&client, &format!("{base}/page")).await;
    for _ in 0..100 {
        go(&client, &small, &format!("{base}/sized/1")).await;
    }
    assert_eq!(list(&client, &small).await.len(), 100);
    go(&client, &small, &format!("{base}/sized/1")).await;
    assert_eq!(list(&client, &small).await.len(), 100);
    let said = console(&client, &small).await;
    assert!(
        said.iter()
            .any(|m| m.contains("already keeps 100 downloads")),
        "{said:?}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn without_an_object_store_a_download_leaves_the_page_and_says_why() {
    let fleet = Fleet::start(1).await;
    let base = site().await;
    let client = fleet.client("acme").await;
    let (session, _) = open(&client, &format!("{base}/page")).await;
    let clicked = act(
        &client,
        "servo_click",
        &session,
        json!({"selector": "#pdf"}),
    )
    .await;
    assert_eq!(clicked["response"]["page"]["title"], "files", "{clicked:#}");
    let said = console(&client, &session).await;
    assert!(
        said.iter().any(|m| m.contains("download of report.pdf not kept")
            && m.contains("no object store")),
        "{said:?}"
    );
    let r = act(&client, "servo_downloads", &session, json!({})).await;
    assert!(
        error_of(&r).contains("downloads are not available"),
        "{r:#}"
    );
}
