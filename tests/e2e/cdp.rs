//! The DevTools endpoint end to end. Puppeteer (puppeteer-core's `connect`)
//! attaches to a fleet session, navigates, evaluates, queries, types,
//! clicks, screenshots and follows a link; an agent then reads what it did
//! from the session. A raw Rust client checks the protocol itself: the
//! order of a navigation's events, replies carrying their session, remote
//! objects that die with their document, the session's own events
//! (navigations by agents, console messages) as CDP events, errors, forged
//! links, and the close when the session ends.

use std::time::Duration;

use futures::{SinkExt as _, StreamExt as _};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

use crate::harness::{Client, Fleet, act, call, first};

/// A form, a list and a link, at fixed places.
const FORM: &str = "<!doctype html><title>Form</title><style>body{margin:0}\
    #go{position:absolute;left:20px;top:150px;width:160px;height:40px}\
    #name{position:absolute;left:20px;top:220px;width:200px;height:30px}\
    #next{position:absolute;left:20px;top:300px}</style>\
    <ul><li>one</li><li>two</li></ul>\
    <button id=go onclick=\"document.getElementById('out').textContent='hi '+document.getElementById('name').value\">go</button>\
    <input id=name><p id=out>idle</p><a id=next href=/second>next</a>";

/// A loopback server with [`FORM`] and the page its link opens.
async fn pages() -> String {
    use axum::response::Html;
    use axum::routing::get;
    let app = axum::Router::new()
        .route("/form", get(|| async { Html(FORM) }))
        .route(
            "/second",
            get(|| async { Html("<title>Second</title><h1>second page</h1>") }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}")
}

/// A new blank session.
async fn new_session(client: &Client) -> String {
    let (out, _) = call(
        client,
        "servo_navigate",
        json!({"actions": [{"html": "<title>blank</title>"}]}),
    )
    .await;
    first(&out)["sessionID"].as_str().unwrap().to_owned()
}

/// The session's DevTools endpoint.
async fn endpoint(client: &Client, session: &str) -> String {
    let r = act(client, "servo_cdp_endpoint", session, json!({})).await;
    assert_eq!(r["ok"], true, "{r:#}");
    assert!(r["response"]["expiresAt"].is_string(), "{r:#}");
    r["response"]["webSocketDebuggerUrl"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn puppeteer_connects_to_a_session_and_drives_it() {
    let fleet = Fleet::start(1).await;
    let client = fleet.client("acme").await;
    let base = pages().await;
    let session = new_session(&client).await;
    let url = endpoint(&client, &session).await;
    assert!(
        url.starts_with(&format!(
            "{}/cdp/{session}?token=",
            fleet.gateway.replacen("http://", "ws://", 1)
        )),
        "{url}"
    );

    let seen = drive("cdp_puppeteer.mjs", &url, &base).await;

    assert_eq!(seen["pages"], 1, "the session is the one page");
    assert_eq!(seen["url"], format!("{base}/form"));
    assert_eq!(seen["title"], "Form");
    assert_eq!(seen["evaluated"], 43, "arguments and the page's DOM");
    assert_eq!(seen["items"], json!(["one", "two"]), "handles of $$");
    assert_eq!(seen["out"], "hi fleet", "typed, then clicked");
    assert_eq!(seen["value"], "fleet");
    assert_eq!(
        (&seen["box"]["x"], &seen["box"]["y"]),
        (&json!(20), &json!(150))
    );
    assert!(
        seen["thrown"].as_str().unwrap().contains("boom in page"),
        "{seen:#}"
    );
    assert_eq!(seen["html"], true);
    assert_eq!(
        (
            seen["png"]["width"].as_u64(),
            seen["png"]["height"].as_u64()
        ),
        (Some(1280), Some(720)),
        "the session's viewport"
    );
    assert_eq!(
        seen["afterClick"],
        json!({"url": format!("{base}/second"), "title": "Second"}),
        "the link's navigation reached Puppeteer as events"
    );
    assert_eq!(seen["afterClickText"], "second page");
    assert!(
        seen["console"]
            .as_array()
            .unwrap()
            .contains(&json!("log:hello from the page")),
        "{seen:#}"
    );

    // What Puppeteer did is the session's: an agent sees it.
    let r = act(
        &client,
        "servo_evaluate",
        &session,
        json!({"script": "[location.href, document.title]"}),
    )
    .await;
    assert_eq!(
        r["response"]["value"],
        json!([format!("{base}/second"), "Second"]),
        "{r:#}"
    );
}

/// Runs client script `script` of tests/clients/browser against endpoint
/// `url` and fixtures at `base`; what it saw.
async fn drive(script: &str, url: &str, base: &str) -> Value {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/browser");
    assert!(
        dir.join("node_modules/playwright-core").exists(),
        "the browser clients are not installed in {}: run `make test` (it runs npm ci there)",
        dir.display()
    );
    let out = tokio::time::timeout(
        Duration::from_secs(120),
        tokio::process::Command::new("node")
            .arg(dir.join(script))
            .arg(url)
            .arg(base)
            .kill_on_drop(true)
            .output(),
    )
    .await
    .expect("the client script ends in time")
    .expect("node must be installed");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let seen: Value = serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("{e}: {stdout}\n{stderr}"));
    assert!(seen.get("error").is_none(), "{seen:#}\n{stderr}");
    eprintln!("{script}: step times, ms: {}", seen["ms"]);
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn playwright_connects_over_cdp_and_drives_a_session() {
    let fleet = Fleet::start(1).await;
    let client = fleet.client("acme").await;
    let base = pages().await;
    let session = new_session(&client).await;
    let url = endpoint(&client, &session).await;
    let seen = drive("cdp_playwright.mjs", &url, &base).await;
    assert_eq!(
        (seen["contexts"].as_u64(), seen["pages"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(seen["url"], format!("{base}/form"));
    assert_eq!(seen["title"], "Form");
    assert_eq!(seen["evaluated"], 43);
    assert_eq!(seen["items"], json!(["one", "two"]));
    assert_eq!(seen["out"], "hi playwright", "filled, typed, then clicked");
    assert_eq!(seen["value"], "playwright");
    assert_eq!(
        (
            seen["png"]["width"].as_u64(),
            seen["png"]["height"].as_u64()
        ),
        (Some(1280), Some(720))
    );
    assert_eq!(
        seen["afterClick"],
        json!({"url": format!("{base}/second"), "title": "Second"})
    );
    assert_eq!(seen["afterClickText"], "second page");
    let r = act(
        &client,
        "servo_evaluate",
        &session,
        json!({"script": "location.href"}),
    )
    .await;
    assert_eq!(r["response"]["value"], format!("{base}/second"), "{r:#}");
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A raw protocol client that keeps every message it received.
struct Raw {
    ws: Socket,
    next: i64,
    seen: Vec<Value>,
}

impl Raw {
    async fn open(url: &str) -> Raw {
        let (ws, _) = tokio_tungstenite::connect_async(url).await.unwrap();
        Raw {
            ws,
            next: 0,
            seen: Vec::new(),
        }
    }

    async fn recv(&mut self) -> Option<Value> {
        let msg = tokio::time::timeout(Duration::from_secs(20), self.ws.next())
            .await
            .expect("a message in time")?;
        match msg.unwrap() {
            Message::Text(t) => {
                let v: Value = serde_json::from_str(&t).unwrap();
                self.seen.push(v.clone());
                Some(v)
            }
            Message::Close(frame) => {
                let frame = frame.expect("a close frame with a code");
                self.seen.push(
                    json!({"close": u16::from(frame.code), "reason": frame.reason.to_string()}),
                );
                None
            }
            _ => Some(Value::Null),
        }
    }

    /// Sends a command and returns its reply (events before it are kept).
    async fn send(&mut self, method: &str, params: Value, session: Option<&str>) -> Value {
        self.next += 1;
        let id = self.next;
        let mut cmd = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            cmd["sessionId"] = json!(s);
        }
        self.ws.send(Message::text(cmd.to_string())).await.unwrap();
        loop {
            let v = self.recv().await.expect("the socket stays open");
            if v["id"] == id {
                return v;
            }
        }
    }

    /// Waits for an event named `method`, at most 20 seconds (the socket's
    /// pings do not count).
    async fn event(&mut self, method: &str) -> Value {
        if let Some(v) = self.seen.iter().find(|v| v["method"] == method) {
            return v.clone();
        }
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        loop {
            assert!(
                tokio::time::Instant::now() < deadline,
                "no {method}; got {:#}",
                json!(self.seen)
            );
            let v = self.recv().await.expect("the socket stays open");
            if v["method"] == method {
                return v;
            }
        }
    }

    /// Where message `pred` first is among those received.
    fn position(&self, pred: impl Fn(&Value) -> bool) -> usize {
        self.seen
            .iter()
            .position(pred)
            .unwrap_or_else(|| panic!("not received; got {:#}", json!(self.seen)))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_protocol_orders_events_and_carries_sessions() {
    let fleet = Fleet::start(1).await;
    let client = fleet.client("acme").await;
    let base = pages().await;
    let session = new_session(&client).await;
    let url = endpoint(&client, &session).await;

    // A forged token and another session's token open nothing.
    for bad in [
        format!("{url}0"),
        url.replace(&session, &uuid::Uuid::new_v4().to_string()),
    ] {
        let err = tokio_tungstenite::connect_async(bad.as_str())
            .await
            .unwrap_err();
        assert!(err.to_string().contains("403"), "{bad}: {err}");
    }

    let mut raw = Raw::open(&url).await;
    let contexts = raw.send("Target.getBrowserContexts", json!({}), None).await;
    assert_eq!(contexts["result"]["defaultBrowserContextId"], session);
    raw.send("Target.setDiscoverTargets", json!({"discover": true}), None)
        .await;
    let created = raw.event("Target.targetCreated").await;
    assert_eq!(created["params"]["targetInfo"]["type"], "page");
    assert_eq!(created["params"]["targetInfo"]["title"], "blank");
    let auto = raw
        .send(
            "Target.setAutoAttach",
            json!({"autoAttach": true, "flatten": true, "waitForDebuggerOnStart": true}),
            None,
        )
        .await;
    assert!(auto.get("sessionId").is_none(), "a browser-level reply");
    let attached = raw.event("Target.attachedToTarget").await;
    assert_eq!(attached["params"]["targetInfo"]["targetId"], session);
    let page = attached["params"]["sessionId"].as_str().unwrap().to_owned();
    let p = Some(page.as_str());

    for m in ["Page.enable", "Runtime.enable"] {
        let r = raw.send(m, json!({}), p).await;
        assert_eq!(
            r["sessionId"],
            page.as_str(),
            "{m}: replies carry the session"
        );
    }
    let main = raw.event("Runtime.executionContextCreated").await;
    assert_eq!(main["sessionId"], page.as_str());
    assert_eq!(main["params"]["context"]["auxData"]["isDefault"], true);
    raw.send(
        "Page.setLifecycleEventsEnabled",
        json!({"enabled": true}),
        p,
    )
    .await;

    // A handle into the blank document.
    let doc = raw
        .send(
            "Runtime.evaluate",
            json!({"expression": "document.body"}),
            p,
        )
        .await;
    assert_eq!(doc["result"]["result"]["subtype"], "node", "{doc:#}");
    let old = doc["result"]["result"]["objectId"]
        .as_str()
        .unwrap()
        .to_owned();

    // A navigation: Chrome's order, the reply after loading starts and
    // before the new document's events.
    raw.seen.clear();
    let nav = raw
        .send("Page.navigate", json!({"url": format!("{base}/form")}), p)
        .await;
    let loader = nav["result"]["loaderId"].as_str().unwrap().to_owned();
    assert_eq!(nav["result"]["frameId"], session);
    let stopped = raw.event("Page.frameStoppedLoading").await;
    assert_eq!(stopped["sessionId"], page.as_str());
    let lifecycle = |name: &'static str| {
        let loader = loader.clone();
        move |v: &Value| {
            v["method"] == "Page.lifecycleEvent"
                && v["params"]["name"] == name
                && v["params"]["loaderId"] == loader.as_str()
        }
    };
    let order = [
        raw.position(|v| v["method"] == "Page.frameStartedLoading"),
        raw.position(|v| v.get("id").is_some()),
        raw.position(|v| v["method"] == "Runtime.executionContextsCleared"),
        raw.position(lifecycle("init")),
        raw.position(|v| {
            v["method"] == "Page.frameNavigated"
                && v["params"]["frame"]["url"] == format!("{base}/form")
        }),
        raw.position(|v| v["method"] == "Runtime.executionContextCreated"),
        raw.position(lifecycle("DOMContentLoaded")),
        raw.position(lifecycle("load")),
        raw.position(|v| v["method"] == "Page.frameStoppedLoading"),
    ];
    assert!(
        order.windows(2).all(|w| w[0] < w[1]),
        "{order:?}: {:#}",
        json!(raw.seen)
    );

    let context = raw
        .seen
        .iter()
        .rev()
        .find(|v| {
            v["method"] == "Runtime.executionContextCreated"
                && v["params"]["context"]["auxData"]["isDefault"] == true
        })
        .map(|v| v["params"]["context"]["id"].clone())
        .unwrap();
    assert_ne!(
        context, main["params"]["context"]["id"],
        "a new document, a new context"
    );
    let gone = raw
        .send(
            "Runtime.evaluate",
            json!({"expression": "1", "contextId": main["params"]["context"]["id"]}),
            p,
        )
        .await;
    assert_eq!(
        gone["error"]["message"],
        "Cannot find context with specified id"
    );

    // The old document's objects are gone with it.
    let stale = raw
        .send(
            "Runtime.callFunctionOn",
            json!({"functionDeclaration": "function () { return this.tagName }", "objectId": old}),
            p,
        )
        .await;
    assert_eq!(
        stale["error"]["message"], "Could not find object with given id",
        "{stale:#}"
    );
    // Values by value and by handle, thrown errors, DOM queries.
    let sum = raw
        .send(
            "Runtime.callFunctionOn",
            json!({
                "functionDeclaration": "(a, b) => ({sum: a + b, items: document.querySelectorAll('li').length})",
                "executionContextId": context,
                "arguments": [{"value": 40}, {"unserializableValue": "2"}],
                "returnByValue": true,
            }),
            p,
        )
        .await;
    assert!(
        sum.get("error").is_some(),
        "an unknown unserializable value is refused: {sum:#}"
    );
    let sum = raw
        .send(
            "Runtime.callFunctionOn",
            json!({
                "functionDeclaration": "(a, b) => ({sum: a + b, items: document.querySelectorAll('li').length})",
                "executionContextId": context,
                "arguments": [{"value": 40}, {"value": 2}],
                "returnByValue": true,
            }),
            p,
        )
        .await;
    assert_eq!(
        sum["result"]["result"]["value"],
        json!({"sum": 42, "items": 2})
    );
    let thrown = raw
        .send("Runtime.evaluate", json!({"expression": "null.x"}), p)
        .await;
    assert_eq!(
        thrown["result"]["exceptionDetails"]["exception"]["subtype"], "error",
        "{thrown:#}"
    );
    let document = raw.send("DOM.getDocument", json!({"depth": -1}), p).await;
    let root = document["result"]["root"]["nodeId"].clone();
    let button = raw
        .send(
            "DOM.querySelector",
            json!({"nodeId": root, "selector": "#go"}),
            p,
        )
        .await;
    let quads = raw
        .send(
            "DOM.getContentQuads",
            json!({"nodeId": button["result"]["nodeId"]}),
            p,
        )
        .await;
    // The button's box, from its top-left corner (its size is the engine's).
    let q: Vec<f64> = quads["result"]["quads"][0]
        .as_array()
        .unwrap_or_else(|| panic!("{quads:#}"))
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!((q[0], q[1]), (20.0, 150.0), "{quads:#}");
    assert!(
        q[2] > q[0] && q[5] > q[1] && q[4] == q[2] && q[6] == q[0],
        "{quads:#}"
    );
    // What Playwright asks of each element before acting on it.
    let visible = raw
        .send(
            "Runtime.evaluate",
            json!({
                "expression": "(() => { const none = document.createElement('div'); none.style.display = 'none'; \
                    none.append(document.createElement('span')); const hidden = document.createElement('p'); \
                    hidden.textContent = 'x'; hidden.style.visibility = 'hidden'; document.body.append(none, hidden); \
                    return [document.getElementById('go').checkVisibility(), none.checkVisibility(), \
                    none.firstChild.checkVisibility(), hidden.checkVisibility(), \
                    hidden.checkVisibility({checkVisibilityCSS: true})]; })()",
                "returnByValue": true,
            }),
            p,
        )
        .await;
    assert_eq!(
        visible["result"]["result"]["value"],
        json!([true, false, false, true, false]),
        "{visible:#}"
    );
    let unknown = raw.send("Tracing.start", json!({}), p).await;
    assert_eq!(unknown["error"]["code"], -32601, "{unknown:#}");
    let wrong = raw
        .send("Runtime.evaluate", json!({"expression": "1"}), Some("nope"))
        .await;
    assert_eq!(wrong["error"]["code"], -32001, "{wrong:#}");

    // The session's own events: an agent's navigation and console output.
    raw.seen.clear();
    let r = act(
        &client,
        "servo_navigate",
        &session,
        json!({"url": format!("{base}/second")}),
    )
    .await;
    assert_eq!(r["ok"], true, "{r:#}");
    let navigated = raw.event("Page.frameNavigated").await;
    assert_eq!(
        navigated["params"]["frame"]["url"],
        format!("{base}/second")
    );
    assert_eq!(navigated["sessionId"], page.as_str());
    raw.event("Runtime.executionContextsCleared").await;
    let r = act(
        &client,
        "servo_evaluate",
        &session,
        json!({"script": "console.warn('careful'); 1"}),
    )
    .await;
    assert_eq!(r["ok"], true, "{r:#}");
    let logged = raw.event("Runtime.consoleAPICalled").await;
    assert_eq!(logged["params"]["type"], "warning");
    assert_eq!(logged["params"]["args"][0]["value"], "careful");

    // Closing the session detaches the page and ends the socket.
    let r = act(&client, "servo_session_close", &session, json!({})).await;
    assert_eq!(r["ok"], true, "{r:#}");
    while raw.recv().await.is_some() {}
    let last = raw.seen.last().unwrap().clone();
    assert_eq!(last["close"], 1000, "{:#}", json!(raw.seen));
    raw.position(|v| {
        v["method"] == "Target.detachedFromTarget" && v["params"]["sessionId"] == page.as_str()
    });
    raw.position(|v| v["method"] == "Target.targetDestroyed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn another_tenants_session_has_no_endpoint() {
    let fleet = Fleet::start(1).await;
    let acme = fleet.client("acme").await;
    let other = fleet.client("other").await;
    let session = new_session(&acme).await;
    let r = act(&other, "servo_cdp_endpoint", &session, json!({})).await;
    assert_eq!(r["code"], "SESSION_NOT_FOUND", "{r:#}");
}

/// Attaches `raw` to the page with the Page and Runtime domains on; the
/// page's CDP session.
async fn attach(raw: &mut Raw) -> String {
    raw.send(
        "Target.setAutoAttach",
        json!({"autoAttach": true, "flatten": true}),
        None,
    )
    .await;
    let attached = raw.event("Target.attachedToTarget").await;
    let page = attached["params"]["sessionId"].as_str().unwrap().to_owned();
    for m in ["Page.enable", "Runtime.enable"] {
        raw.send(m, json!({}), Some(&page)).await;
    }
    page
}

/// A worker's crash moves the session: the socket, which ends at the
/// gateway, stays open, and the client is told the restored session shows a
/// new document (its old objects are gone), as after a navigation.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_session_restored_on_another_worker_keeps_its_socket_and_starts_a_new_document() {
    let base = pages().await;
    let mut fleet = Fleet::start(2).await;
    let client = fleet.client("acme").await;
    let session = new_session(&client).await;
    let r = act(
        &client,
        "servo_navigate",
        &session,
        json!({"url": format!("{base}/form")}),
    )
    .await;
    assert_eq!(r["ok"], true, "{r:#}");
    let url = endpoint(&client, &session).await;
    let mut raw = Raw::open(&url).await;
    let page = attach(&mut raw).await;
    let p = Some(page.as_str());
    let body = raw
        .send(
            "Runtime.evaluate",
            json!({"expression": "document.body"}),
            p,
        )
        .await;
    let old = body["result"]["result"]["objectId"].clone();
    assert!(old.is_string(), "{body:#}");

    let (owner, _) = fleet.route(&session).await;
    let victim: usize = owner.trim_start_matches("worker-").parse().unwrap();
    fleet.workers[victim].1.child.start_kill().unwrap();
    fleet.workers[victim].1.child.wait().await.unwrap();

    raw.seen.clear();
    let here = raw
        .send(
            "Runtime.evaluate",
            json!({"expression": "document.title", "returnByValue": true}),
            p,
        )
        .await;
    assert_eq!(here["result"]["result"]["value"], "Form", "{here:#}");
    assert_ne!(fleet.route(&session).await.0, owner, "the session moved");
    // Nothing had told the client yet: this command found the new realm, so
    // the new document's events come before its reply.
    let reply = raw.position(|v| v.get("id").is_some());
    let cleared = raw.position(|v| v["method"] == "Runtime.executionContextsCleared");
    let navigated = raw.position(|v| {
        v["method"] == "Page.frameNavigated"
            && v["params"]["frame"]["url"] == format!("{base}/form")
    });
    assert!(
        cleared < navigated && navigated < reply,
        "{:#}",
        json!(raw.seen)
    );
    let stale = raw
        .send(
            "Runtime.callFunctionOn",
            json!({"functionDeclaration": "function () { return 1 }", "objectId": old}),
            p,
        )
        .await;
    assert_eq!(
        stale["error"]["message"], "Could not find object with given id",
        "{stale:#}"
    );
}
