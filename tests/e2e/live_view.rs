//! Live view end to end. A person opens a control link in headless Chromium
//! (puppeteer-core): the page shows the session's frame, a click in it
//! changes the session, typed text and keys arrive in an input, the wheel
//! scrolls the page, and agents' calls are
//! refused with HUMAN_IN_CONTROL until the person releases control or closes
//! the page. A view link only watches, over a socket a Rust client reads
//! too; forged and swapped links are refused. (Bad modes and a missing
//! session are in `bad_input`.)

use std::process::Stdio;
use std::time::Duration;

use futures::{SinkExt as _, StreamExt as _};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio_tungstenite::tungstenite::Message;

use crate::harness::{Client, Fleet, act, call, first};

/// A box the button turns green, a button and an input, at fixed places.
const PAGE: &str = "<title>live</title><style>body{margin:0}\
    #box{position:absolute;left:0;top:0;width:200px;height:100px;background:rgb(255,0,0)}\
    #go{position:absolute;left:20px;top:150px;width:160px;height:40px}\
    #name{position:absolute;left:20px;top:220px;width:200px;height:30px}</style>\
    <div id=box></div>\
    <button id=go onclick=\"document.getElementById('box').style.background='rgb(0,128,0)';this.textContent='clicked'\">go</button>\
    <input id=name><div style='height:3000px'></div>";

/// The puppeteer-core script, answering one JSON line per command.
struct Person {
    child: Child,
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
}

impl Person {
    async fn open(url: &str) -> Person {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/browser");
        assert!(
            dir.join("node_modules/puppeteer-core").exists(),
            "puppeteer-core is not installed in {}: run `make test` (it runs npm ci there)",
            dir.display()
        );
        let chromium = which("chromium");
        let mut child = tokio::process::Command::new("node")
            .arg(dir.join("live_view.mjs"))
            .arg(chromium)
            .arg(url)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("node must be installed");
        let stdin = child.stdin.take().unwrap();
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        Person {
            child,
            stdin,
            lines,
        }
    }

    /// Runs one command; its answer must say it worked.
    async fn ask(&mut self, cmd: Value) -> Value {
        self.stdin
            .write_all(format!("{cmd}\n").as_bytes())
            .await
            .unwrap();
        let line = tokio::time::timeout(Duration::from_secs(60), self.lines.next_line())
            .await
            .unwrap_or_else(|_| panic!("no answer to {cmd}"))
            .unwrap()
            .unwrap_or_else(|| panic!("the browser script ended at {cmd}"));
        let answer: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(answer["ok"], true, "{cmd}: {answer:#}");
        answer
    }

    /// The colour of point (x, y) of the frame the page shows now.
    async fn pixel(&mut self, x: u32, y: u32) -> (u64, u64, u64) {
        let p = self.ask(json!({"do": "pixel", "x": x, "y": y})).await["pixel"].clone();
        assert_eq!(
            (p["width"].as_u64(), p["height"].as_u64()),
            (Some(1280), Some(720))
        );
        (
            p["r"].as_u64().unwrap(),
            p["g"].as_u64().unwrap(),
            p["b"].as_u64().unwrap(),
        )
    }

    /// Waits for a frame after the `after`th, returning how many there are.
    async fn next_frame(&mut self, after: u64) -> u64 {
        let seen = self.ask(json!({"do": "wait-frame", "after": after})).await;
        seen["frames"].as_u64().unwrap()
    }
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// The socket's next message, which must come within a few seconds.
async fn recv(ws: &mut Socket) -> Message {
    tokio::time::timeout(Duration::from_secs(20), ws.next())
        .await
        .expect("a message in time")
        .expect("the socket stays open")
        .unwrap()
}

fn which(program: &str) -> String {
    let out = std::process::Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .unwrap();
    let path = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    assert!(
        !path.is_empty(),
        "{program} is not installed: run `make test` (scripts/chromium.sh installs it)"
    );
    path
}

/// The holder named by the next control event of a watched session.
async fn next_control(watch: &mut tonic::Streaming<fleet_proto::v1::SessionEvent>) -> String {
    use fleet_proto::v1::session_event::Kind;
    loop {
        let event = tokio::time::timeout(Duration::from_secs(20), watch.message())
            .await
            .expect("a control event in time")
            .unwrap()
            .expect("the stream goes on");
        if let Some(Kind::Control(c)) = event.kind {
            return c.holder;
        }
    }
}

/// A new session showing [`PAGE`].
async fn open_page(client: &Client) -> String {
    let (out, _) = call(
        client,
        "servo_navigate",
        json!({"actions": [{"html": PAGE}]}),
    )
    .await;
    first(&out)["sessionID"].as_str().unwrap().to_owned()
}

/// A live link of `session` in `mode`.
async fn link(client: &Client, session: &str, mode: &str) -> Value {
    let r = act(client, "servo_live_view", session, json!({"mode": mode})).await;
    assert_eq!(r["ok"], true, "{r:#}");
    r["response"].clone()
}

/// An agent's evaluation: `Ok(value)` or `Err(code)`.
async fn agent_eval(client: &Client, session: &str, script: &str) -> Result<Value, String> {
    let r = act(client, "servo_evaluate", session, json!({"script": script})).await;
    if r["ok"] == true {
        Ok(r["response"]["value"].clone())
    } else {
        Err(r["code"].as_str().unwrap_or_default().to_owned())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_person_drives_a_session_from_a_live_view_while_agents_wait() {
    let fleet = Fleet::start(1).await;
    let client = fleet.client("acme").await;
    let session = open_page(&client).await;
    let control = link(&client, &session, "control").await;
    let url = control["url"].as_str().unwrap();
    assert!(
        url.starts_with(&format!(
            "{}/live/{session}?mode=control&token=",
            fleet.gateway
        )),
        "{url}"
    );
    assert_eq!(control["mode"], "control");
    assert!(control["expiresAt"].is_string(), "{control:#}");

    let key = fleet.key("acme").await;
    let mut watch = crate::harness::grpc(&fleet, &key)
        .await
        .watch(fleet_proto::v1::WatchRequest {
            session_id: session.clone(),
            until: None,
        })
        .await
        .unwrap()
        .into_inner();

    let mut person = Person::open(url).await;
    person
        .ask(json!({"do": "wait-state", "state": "control"}))
        .await;
    assert_eq!(
        next_control(&mut watch).await,
        "human",
        "Watch sees the takeover"
    );
    let frames = person.next_frame(0).await;
    assert_eq!(person.pixel(100, 50).await, (255, 0, 0), "the box, red");

    // Agents wait while the person holds control; status still answers.
    assert_eq!(
        agent_eval(&client, &session, "1").await,
        Err("HUMAN_IN_CONTROL".into())
    );
    let status = act(&client, "servo_session_status", &session, json!({})).await;
    assert_eq!(status["ok"], true, "{status:#}");

    // A click on the button in the frame turns the box green in the session,
    // and the page shows it.
    person.ask(json!({"do": "click", "x": 100, "y": 170})).await;
    let mut frames = person.next_frame(frames).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while person.pixel(100, 50).await != (0, 128, 0) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the box never turned green on the page"
        );
        frames = person.next_frame(frames).await;
    }
    // Typing into the input the person clicked, then giving control back.
    person.ask(json!({"do": "click", "x": 120, "y": 235})).await;
    person
        .ask(json!({"do": "type", "text": "hello fleets"}))
        .await;
    person.ask(json!({"do": "key", "key": "Backspace"})).await;
    // And the wheel scrolls the page.
    person
        .ask(json!({"do": "wheel", "x": 600, "y": 400, "dy": 300}))
        .await;
    person
        .ask(json!({"do": "button", "selector": "#release"}))
        .await;
    person
        .ask(json!({"do": "wait-state", "state": "watching"}))
        .await;
    assert_eq!(
        next_control(&mut watch).await,
        "agent",
        "Watch sees the release"
    );
    let seen = agent_eval(
        &client,
        &session,
        "[getComputedStyle(document.getElementById('box')).backgroundColor, document.getElementById('go').textContent, document.getElementById('name').value, scrollY]",
    )
    .await;
    assert_eq!(
        seen,
        Ok(json!(["rgb(0, 128, 0)", "clicked", "hello fleet", 300])),
        "the person's click, typing, key and scroll reached the session"
    );

    // Control taken again ends when the page closes, without a release.
    person
        .ask(json!({"do": "button", "selector": "#take"}))
        .await;
    person
        .ask(json!({"do": "wait-state", "state": "control"}))
        .await;
    assert_eq!(
        agent_eval(&client, &session, "1").await,
        Err("HUMAN_IN_CONTROL".into())
    );
    person.ask(json!({"do": "close"})).await;
    person.child.wait().await.unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        match agent_eval(&client, &session, "2").await {
            Ok(v) => break assert_eq!(v, json!(2)),
            Err(code) => {
                assert_eq!(code, "HUMAN_IN_CONTROL");
                assert!(
                    tokio::time::Instant::now() < deadline,
                    "control outlived the page"
                );
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_view_link_streams_frames_as_agents_act_and_refuses_input_and_forgeries() {
    let fleet = Fleet::start(1).await;
    let client = fleet.client("acme").await;
    let session = open_page(&client).await;
    let view = link(&client, &session, "view").await;
    let url = view["url"].as_str().unwrap().to_owned();

    // The page itself, with a policy that lets it load nothing from elsewhere.
    let page = reqwest::get(&url).await.unwrap();
    assert_eq!(page.status(), 200);
    let csp = page.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(csp.contains("default-src 'none'"), "{csp}");
    assert_eq!(page.headers()["referrer-policy"], "no-referrer");

    // A token for view does not open control; a changed token opens nothing;
    // another session's token does not open this one.
    let forged = [
        url.replace("mode=view", "mode=control"),
        format!("{}0", url),
        url.replace(&session, &uuid::Uuid::new_v4().to_string()),
    ];
    for bad in &forged {
        let got = reqwest::get(bad).await.unwrap();
        assert_eq!(got.status(), 403, "{bad}");
    }

    let ws_url = url
        .replacen("http://", "ws://", 1)
        .replacen("?", "/socket?", 1);
    let (mut ws, _) = tokio_tungstenite::connect_async(ws_url.as_str())
        .await
        .unwrap();
    let state: Value = serde_json::from_str(recv(&mut ws).await.to_text().unwrap()).unwrap();
    assert_eq!(
        (state["type"].as_str(), state["control"].as_bool()),
        (Some("state"), Some(false))
    );
    let shown: Value = serde_json::from_str(recv(&mut ws).await.to_text().unwrap()).unwrap();
    assert_eq!(shown["type"], "page", "{shown}");
    let frame = recv(&mut ws).await.into_data();
    assert!(frame.starts_with(b"\x89PNG\r\n\x1a\n"), "a PNG frame");

    // An agent's click changes the page: a new frame follows, unasked.
    let r = act(&client, "servo_click", &session, json!({"selector": "#go"})).await;
    assert_eq!(r["ok"], true, "{r:#}");
    let changed = loop {
        let m = recv(&mut ws).await;
        if m.is_binary() {
            break m.into_data();
        }
    };
    assert_ne!(changed, frame, "the frame after the click differs");

    // A watcher cannot drive the session.
    ws.send(Message::text(
        json!({"type": "click", "x": 1, "y": 1}).to_string(),
    ))
    .await
    .unwrap();
    let refused = loop {
        let m = recv(&mut ws).await;
        if m.is_text() {
            break serde_json::from_str::<Value>(m.to_text().unwrap()).unwrap();
        }
    };
    assert_eq!(refused["type"], "error", "{refused}");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("only watches"),
        "{refused}"
    );
    // Agents were never held up by a watcher.
    assert_eq!(agent_eval(&client, &session, "3").await, Ok(json!(3)));

    // The close ends the socket, saying why.
    let closed = act(&client, "servo_session_close", &session, json!({})).await;
    assert_eq!(closed["ok"], true, "{closed:#}");
    let end = loop {
        let m = tokio::time::timeout(Duration::from_secs(20), ws.next())
            .await
            .expect("the close in time");
        match m {
            Some(Ok(Message::Close(frame))) => break frame,
            Some(Ok(_)) => {}
            other => panic!("not a close: {other:?}"),
        }
    };
    assert_eq!(
        end.map(|f| f.reason.to_string()).as_deref(),
        Some("the session was closed")
    );
    // A closed session has no live view.
    let gone = reqwest::get(&url).await.unwrap();
    assert_eq!(gone.status(), 200, "the page itself still loads");
    let refused = tokio_tungstenite::connect_async(ws_url.as_str()).await;
    assert!(refused.is_err(), "a closed session's socket opens");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn another_tenants_session_has_no_live_view() {
    let fleet = Fleet::start(1).await;
    let client = fleet.client("acme").await;
    let session = open_page(&client).await;
    let other = fleet.client("umbrella").await;
    let theirs = act(&other, "servo_live_view", &session, json!({})).await;
    assert_eq!(theirs["code"], "SESSION_NOT_FOUND", "{theirs:#}");
}
