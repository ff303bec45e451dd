//! The DevTools protocol itself, from a raw Rust client: the order of a
//! navigation's events, replies carrying their session, remote objects that
//! die with their document, the session's own events (navigations by agents,
//! console messages) as CDP events, errors, forged links, the close when the
//! session ends, and a session that moves to another worker.

use std::time::Duration;

use futures::{SinkExt as _, StreamExt as _};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

use super::{endpoint, new_session, pages};
use crate::harness::{Fleet, act};

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
            .unwrap_or_else(|_| panic!("no message in 20 s; received: {:#}", json!(self.seen)))?;
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
        let id = self.start(method, params, session).await;
        self.reply(id).await
    }

    /// Sends a command; its ID, to wait for its reply.
    async fn start(&mut self, method: &str, params: Value, session: Option<&str>) -> i64 {
        self.next += 1;
        let id = self.next;
        let mut cmd = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            cmd["sessionId"] = json!(s);
        }
        self.ws.send(Message::text(cmd.to_string())).await.unwrap();
        id
    }

    /// The reply to command `id`.
    async fn reply(&mut self, id: i64) -> Value {
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
    assert_gone(&mut raw, &old, p).await;
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
    agent(
        &client,
        "servo_navigate",
        &session,
        json!({"url": format!("{base}/second")}),
    )
    .await;
    let navigated = raw.event("Page.frameNavigated").await;
    assert_eq!(
        navigated["params"]["frame"]["url"],
        format!("{base}/second")
    );
    assert_eq!(navigated["sessionId"], page.as_str());
    raw.event("Runtime.executionContextsCleared").await;
    agent(
        &client,
        "servo_evaluate",
        &session,
        json!({"script": "console.warn('careful'); 1"}),
    )
    .await;
    let logged = raw.event("Runtime.consoleAPICalled").await;
    assert_eq!(logged["params"]["type"], "warning");
    assert_eq!(logged["params"]["args"][0]["value"], "careful");
    // A dialog the session's policy answered opens and closes.
    agent(
        &client,
        "servo_evaluate",
        &session,
        json!({"script": "alert('heads up'); 1"}),
    )
    .await;
    let opened = raw.event("Page.javascriptDialogOpening").await;
    assert_eq!(
        (&opened["params"]["type"], &opened["params"]["message"]),
        (&json!("alert"), &json!("heads up"))
    );
    let closed = raw.event("Page.javascriptDialogClosed").await;
    assert_eq!(closed["params"]["result"], true, "{closed:#}");

    // Closing the session detaches the page and ends the socket.
    agent(&client, "servo_session_close", &session, json!({})).await;
    while raw.recv().await.is_some() {}
    let last = raw.seen.last().unwrap().clone();
    assert_eq!(last["close"], 1000, "{:#}", json!(raw.seen));
    raw.position(|v| {
        v["method"] == "Target.detachedFromTarget" && v["params"]["sessionId"] == page.as_str()
    });
    raw.position(|v| v["method"] == "Target.targetDestroyed");
}

/// An agent's action on `session` over MCP, which must succeed.
async fn agent(client: &crate::harness::Client, tool: &str, session: &str, fields: Value) {
    let r = act(client, tool, session, fields).await;
    assert_eq!(r["ok"], true, "{tool}: {r:#}");
}

/// Asserts remote object `old` is no more.
async fn assert_gone(raw: &mut Raw, old: &str, page: Option<&str>) {
    let stale = raw
        .send(
            "Runtime.callFunctionOn",
            json!({"functionDeclaration": "function () { return this.tagName }", "objectId": old}),
            page,
        )
        .await;
    assert_eq!(
        stale["error"]["message"], "Could not find object with given id",
        "{stale:#}"
    );
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
    agent(
        &client,
        "servo_navigate",
        &session,
        json!({"url": format!("{base}/form")}),
    )
    .await;
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
    let old = body["result"]["result"]["objectId"]
        .as_str()
        .unwrap_or_else(|| panic!("{body:#}"))
        .to_owned();

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
    assert_gone(&mut raw, &old, p).await;
}

/// Each command holds one of the tenant's calls in flight while it runs: with
/// a limit of one, a second client's command is refused (an error reply; its
/// socket stays open) until the first command ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_running_command_holds_one_of_the_tenants_calls_in_flight() {
    use axum::response::Html;
    use axum::routing::get;
    // A page whose `/held` answers only when the test says so, and says when
    // it was asked.
    let (asked, mut was_asked) = tokio::sync::mpsc::channel::<()>(1);
    let answer = std::sync::Arc::new(tokio::sync::Notify::new());
    let held = {
        let answer = answer.clone();
        move || async move {
            asked.send(()).await.ok();
            answer.notified().await;
            "late"
        }
    };
    let app = axum::Router::new()
        .route("/", get(|| async { Html("<title>held</title>") }))
        .route("/held", get(held));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let site = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let fleet = Fleet::start(1).await;
    fleet.key("busy").await;
    crate::limits::set_limits(&fleet, "busy", &["--max-in-flight", "1"]).await;
    let client = fleet.client("busy").await;
    let session = new_session(&client).await;
    agent(&client, "servo_navigate", &session, json!({"url": site})).await;
    let url = endpoint(&client, &session).await;
    let (mut first, mut second) = (Raw::open(&url).await, Raw::open(&url).await);
    let one = attach(&mut first).await;
    let two = attach(&mut second).await;

    let slow = first
        .start(
            "Runtime.evaluate",
            json!({
                "expression": "const x = new XMLHttpRequest(); x.open('GET', '/held', false); x.send(); x.responseText",
                "returnByValue": true,
            }),
            Some(&one),
        )
        .await;
    let asked = tokio::time::timeout(Duration::from_secs(20), was_asked.recv()).await;
    assert!(
        asked.is_ok(),
        "no ask for /held in 20 s: {:#}",
        json!(first.seen)
    );
    let refused = second
        .send("Runtime.evaluate", json!({"expression": "1"}), Some(&two))
        .await;
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .starts_with("RESOURCE_EXHAUSTED: the tenant already has 1 calls in flight"),
        "{refused:#}"
    );
    answer.notify_one();
    let done = first.reply(slow).await;
    assert_eq!(done["result"]["result"]["value"], "late", "{done:#}");
    let r = second
        .send(
            "Runtime.evaluate",
            json!({"expression": "6 * 7", "returnByValue": true}),
            Some(&two),
        )
        .await;
    assert_eq!(r["result"]["result"]["value"], 42, "{r:#}");
}

/// A gateway that shuts down (a rolling update) closes its DevTools sockets
/// with 1012, service restart: the client may connect again, to any gateway.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_gateway_that_shuts_down_closes_its_sockets_with_a_code_to_reconnect_on() {
    let fleet = Fleet::start(1).await;
    let client = fleet.client("acme").await;
    let session = new_session(&client).await;
    let url = endpoint(&client, &session).await;
    let mut raw = Raw::open(&url).await;
    attach(&mut raw).await;
    fleet.stop_gateway().await;
    while raw.recv().await.is_some() {}
    let last = raw.seen.last().unwrap();
    assert_eq!(last["close"], 1012, "{:#}", json!(raw.seen));
    assert!(
        last["reason"].as_str().unwrap().contains("reconnect"),
        "{last:#}"
    );
}
