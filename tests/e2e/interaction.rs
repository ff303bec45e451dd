//! Acting on pages like a user, through the MCP tools: clicks (by selector,
//! visible text, accessibility ref and point), typing and keys with their
//! event sequences, form submission by GET and POST, links and history,
//! dialogs under the session's policy, fetch/XHR under the same-origin and
//! CORS rules, `document.cookie` beside HttpOnly cookies, the accessibility
//! tree, the settle outcome and the capabilities report.

use std::net::SocketAddr;

use axum::extract::{Query, RawQuery};
use axum::http::{HeaderMap, Method};
use axum::response::{Html, IntoResponse};
use axum::routing::{any, get};
use serde_json::{Value, json};

use crate::harness::{Fleet, act, call, eval, open};

/// The pages of these tests, served on two loopback origins: `127.0.0.1` (the
/// pages' own) and `127.0.0.2` (cross-origin, for CORS).
async fn sites() -> (String, String) {
    let app = axum::Router::new()
        .route(
            "/form",
            get(|| async {
                Html(
                    r#"<!doctype html><title>form</title>
<h1>Order</h1>
<form id=get action="/echo" method=get>
  <label for=q>Query</label> <input id=q name=q>
  <label><input id=c type=checkbox name=c value=yes> Gift wrap</label>
  <select id=s name=s><option value=a>Alpha</option><option value=b>Beta</option></select>
  <textarea id=t name=t></textarea>
  <button id=go>Search</button>
</form>
<form id=multi action="/echo-post" method=post enctype="multipart/form-data">
  <input name=who value="ada lovelace"><button>Send multipart</button>
</form>
<form id=plain action="/echo-post" method=post>
  <input name=who value="grace hopper"><input type=submit value="Send urlencoded">
</form>
<script>
  window.log = [];
  const q = document.getElementById('q');
  for (const t of ['keydown', 'beforeinput', 'input', 'keyup', 'focus', 'blur', 'change'])
    q.addEventListener(t, (e) => log.push(t + (e.key ? ':' + e.key : '') + (e.isTrusted ? '' : ':untrusted')));
  document.getElementById('c').addEventListener('change', () => log.push('c:change'));
</script>"#,
                )
            }),
        )
        .route(
            "/echo",
            get(|RawQuery(q): RawQuery| async move {
                Html(format!(
                    "<title>echo</title><pre id=out>{}</pre>",
                    q.unwrap_or_default()
                ))
            }),
        )
        .route(
            "/echo-post",
            any(|headers: HeaderMap, body: String| async move {
                let ct = headers
                    .get("content-type")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("")
                    .to_owned();
                Html(format!(
                    "<title>posted</title><pre id=ct>{ct}</pre><pre id=body>{}</pre>",
                    body.replace('<', "&lt;")
                ))
            }),
        )
        .route(
            "/links",
            get(|| async {
                Html(
                    r##"<!doctype html><title>links</title>
<a href="/echo?from=link">Plain link</a>
<a href="/echo?from=blank" target="_blank">New window link</a>
<a href="#section">Jump</a>
<div id=section style="margin-top:3000px">Section</div>
<script>
  window.events = [];
  addEventListener('hashchange', (e) => events.push('hashchange:' + e.newURL.split('#')[1]));
  addEventListener('popstate', (e) => events.push('popstate:' + JSON.stringify(e.state)));
</script>"##,
                )
            }),
        )
        .route(
            "/api/data",
            get(|| async { axum::Json(json!({"items": [1, 2, 3]})) }),
        )
        .route(
            "/api/open",
            any(|method: Method, headers: HeaderMap| async move {
                let origin = headers
                    .get("origin")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("")
                    .to_owned();
                let mut h = HeaderMap::new();
                h.insert("access-control-allow-origin", origin.parse().unwrap());
                h.insert(
                    "access-control-allow-methods",
                    "GET, PUT".parse().unwrap(),
                );
                h.insert(
                    "access-control-allow-headers",
                    "x-token".parse().unwrap(),
                );
                (h, format!("{method} ok from {origin}")).into_response()
            }),
        )
        .route("/api/closed", get(|| async { "secret" }))
        .route(
            "/set-cookie",
            get(|| async {
                (
                    axum::response::AppendHeaders([
                        ("set-cookie", "sid=hidden; HttpOnly; Path=/"),
                        ("set-cookie", "theme=dark; Path=/"),
                    ]),
                    Html("<title>cookies</title><p>set</p>"),
                )
            }),
        )
        .route(
            "/whoami",
            get(|h: HeaderMap| async move {
                h.get("cookie")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("none")
                    .to_owned()
            }),
        )
        .route(
            "/dialogs",
            get(|| async {
                Html(
                    r#"<!doctype html><title>dialogs</title>
<button onclick="window.answer = [confirm('Delete it?'), prompt('Your name?', 'anon')]">Ask</button>"#,
                )
            }),
        )
        .route(
            "/poll",
            get(|Query(_): Query<Vec<(String, String)>>| async {
                Html("<title>poll</title><p>polling</p><script>setInterval(() => {}, 5000)</script>")
            }),
        );
    let mut bases = Vec::new();
    for ip in ["127.0.0.1", "127.0.0.2"] {
        let listener = tokio::net::TcpListener::bind(format!("{ip}:0"))
            .await
            .unwrap();
        let addr: SocketAddr = listener.local_addr().unwrap();
        let app = app.clone();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        bases.push(format!("http://{addr}"));
    }
    (bases[0].clone(), bases[1].clone())
}

fn ok_page(r: &Value) -> &Value {
    assert_eq!(r["ok"], true, "{r:#}");
    &r["response"]["page"]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn clicks_types_and_presses_keys_like_a_user() {
    // covers: input.click, input.keyboard
    let fleet = Fleet::start(1).await;
    let client = fleet.client("input").await;
    let (site, _) = sites().await;
    let (id, _) = open(&client, &format!("{site}/form")).await;

    // Typing into a field named by selector: focus, then per character
    // keydown, beforeinput, input, keyup, all trusted.
    let r = act(
        &client,
        "servo_type_text",
        &id,
        json!({"selector": "#q", "text": "hi"}),
    )
    .await;
    let page = ok_page(&r);
    assert_eq!(page["settle"], "settled");
    let field = page["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "q")
        .unwrap();
    assert_eq!(field["value"], "hi");
    assert_eq!(field["label"], "Query");
    assert_eq!(
        eval(&client, &id, "log").await,
        json!([
            "focus",
            "keydown:h",
            "beforeinput",
            "input",
            "keyup:h",
            "keydown:i",
            "beforeinput",
            "input",
            "keyup:i"
        ])
    );

    // Backspace edits; Tab moves focus on, and the changed field fires change.
    let r = act(&client, "servo_press_key", &id, json!({"key": "Backspace"})).await;
    ok_page(&r);
    assert_eq!(eval(&client, &id, "q.value").await, "h");
    let r = act(&client, "servo_press_key", &id, json!({"key": "Tab"})).await;
    ok_page(&r);
    assert_eq!(eval(&client, &id, "document.activeElement.id").await, "c");
    // As in browsers: change and blur on the field left, keyup on the next.
    assert_eq!(
        eval(&client, &id, "log.slice(-3)").await,
        json!(["keydown:Tab", "change", "blur"])
    );

    // A checkbox clicked by the ref the page's fields list gives.
    let fields = page["fields"].as_array().unwrap().clone();
    let checkbox = fields.iter().find(|f| f["name"] == "c").unwrap();
    let r = act(&client, "servo_click", &id, json!({"ref": checkbox["ref"]})).await;
    let after = ok_page(&r)["fields"].as_array().unwrap().clone();
    assert_eq!(
        after.iter().find(|f| f["name"] == "c").unwrap()["checked"],
        true
    );
    assert_eq!(eval(&client, &id, "log.includes('c:change')").await, true);

    // A select by its option's visible text.
    let r = act(
        &client,
        "servo_select_option",
        &id,
        json!({"selector": "#s", "value": "Beta"}),
    )
    .await;
    ok_page(&r);
    assert_eq!(
        eval(&client, &id, "document.getElementById('s').value").await,
        "b"
    );

    // A click at a viewport point hits the element there.
    let rect = eval(
        &client,
        &id,
        "(() => { const r = document.querySelector('h1').getBoundingClientRect(); return [r.x + 5, r.y + 5]; })()",
    )
    .await;
    eval(
        &client,
        &id,
        "document.querySelector('h1').addEventListener('click', (e) => { window.hit = [e.target.tagName, e.isTrusted]; }), 1",
    )
    .await;
    let r = act(
        &client,
        "servo_click",
        &id,
        json!({"x": rect[0], "y": rect[1]}),
    )
    .await;
    ok_page(&r);
    assert_eq!(eval(&client, &id, "window.hit").await, json!(["H1", true]));

    // Targets that match nothing are the caller's mistake, named in the error.
    for (fields, needle) in [
        (
            json!({"selector": "#missing"}),
            "no element matches the selector \"#missing\"",
        ),
        (
            json!({"selector": "div[["}),
            "the selector \"div[[\" is not valid CSS",
        ),
        (
            json!({"ref": "e999999999"}),
            "no element has the reference \"e999999999\"",
        ),
        (
            json!({"visibleText": "No such words"}),
            "no visible element has the text",
        ),
    ] {
        let r = act(&client, "servo_click", &id, fields.clone()).await;
        assert_ne!(r["ok"], true, "{fields}: {r:#}");
        assert_eq!(r["code"], "INVALID_ARGUMENT", "{r:#}");
        assert!(r["error"].as_str().unwrap().contains(needle), "{r:#}");
    }
    let r = act(
        &client,
        "servo_click",
        &id,
        json!({"selector": "#q", "ref": "e1"}),
    )
    .await;
    assert!(
        r["error"].as_str().unwrap().contains("more than one way"),
        "{r:#}"
    );
    let r = act(&client, "servo_press_key", &id, json!({"key": "Hyper+x"})).await;
    assert!(
        r["error"].as_str().unwrap().contains("unknown modifier"),
        "{r:#}"
    );

    // The edge of the point range is accepted, and lands outside the viewport.
    let r = act(
        &client,
        "servo_click",
        &id,
        json!({"x": 10_000, "y": 10_000}),
    )
    .await;
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .contains("outside the viewport"),
        "{r:#}"
    );

    // Scrolling the page moves the viewport.
    let r = act(&client, "servo_scroll", &id, json!({"dy": 40})).await;
    ok_page(&r);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn forms_submit_by_get_and_post_with_typed_values() {
    // covers: dom.forms, navigation.forms
    let fleet = Fleet::start(1).await;
    let client = fleet.client("forms").await;
    let (site, _) = sites().await;
    let (id, _) = open(&client, &format!("{site}/form")).await;

    // Enter in a text field submits its form with GET.
    act(
        &client,
        "servo_click",
        &id,
        json!({"visibleText": "Gift wrap"}),
    )
    .await;
    let r = act(
        &client,
        "servo_type_text",
        &id,
        json!({"selector": "#q", "text": "red shoes\n"}),
    )
    .await;
    let page = ok_page(&r);
    assert_eq!(page["title"], "echo", "{page:#}");
    assert_eq!(page["url"], format!("{site}/echo?q=red+shoes&c=yes&s=a&t="));

    // multipart/form-data by a button's click, found by its text.
    let r = act(&client, "servo_history", &id, json!({"step": "back"})).await;
    assert_eq!(ok_page(&r)["title"], "form");
    let r = act(
        &client,
        "servo_click",
        &id,
        json!({"visibleText": "Send multipart"}),
    )
    .await;
    let page = ok_page(&r);
    assert_eq!(page["title"], "posted", "{page:#}");
    let text = page["text"].as_str().unwrap();
    assert!(text.contains("multipart/form-data; boundary="), "{text}");
    assert!(text.contains("name=\"who\""), "{text}");
    assert!(text.contains("ada lovelace"), "{text}");

    // application/x-www-form-urlencoded by an input submit button.
    act(&client, "servo_history", &id, json!({"step": "back"})).await;
    let r = act(
        &client,
        "servo_click",
        &id,
        json!({"visibleText": "Send urlencoded"}),
    )
    .await;
    let text = ok_page(&r)["text"].as_str().unwrap().to_owned();
    assert!(text.contains("application/x-www-form-urlencoded"), "{text}");
    assert!(text.contains("who=grace+hopper"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn links_forms_and_history_navigate_the_tab() {
    // covers: navigation.location-and-history, navigation.new-windows, render.screenshot
    let fleet = Fleet::start(1).await;
    let client = fleet.client("links").await;
    let (site, _) = sites().await;
    let (id, _) = open(&client, &format!("{site}/links")).await;

    // A full-page screenshot covers the whole document; the viewport stays.
    let r = act(&client, "servo_screenshot", &id, json!({"fullPage": true})).await;
    assert_eq!(r["response"]["width"], 1280, "{r:#}");
    assert!(r["response"]["height"].as_u64().unwrap() > 3000, "{r:#}");
    let r = act(&client, "servo_screenshot", &id, json!({})).await;
    assert_eq!(r["response"]["height"], 720, "{r:#}");

    // A fragment link stays in the document: the URL, hashchange, scroll.
    let r = act(&client, "servo_click", &id, json!({"visibleText": "Jump"})).await;
    assert_eq!(ok_page(&r)["url"], format!("{site}/links#section"));
    // As in browsers, a fragment navigation fires popstate, then hashchange.
    assert_eq!(
        eval(&client, &id, "events").await,
        json!(["popstate:null", "hashchange:section"])
    );
    assert!(eval(&client, &id, "scrollY").await.as_f64().unwrap() > 1000.0);

    // pushState, then back: popstate with the state, no load.
    eval(&client, &id, "history.pushState({n: 1}, '', '/pushed'), 1").await;
    assert_eq!(
        eval(&client, &id, "[location.pathname, history.length]").await,
        json!(["/pushed", 3])
    );
    let r = act(&client, "servo_history", &id, json!({"step": "back"})).await;
    assert_eq!(ok_page(&r)["url"], format!("{site}/links#section"));
    assert_eq!(
        eval(&client, &id, "events.slice(-1)").await,
        json!(["popstate:null"])
    );

    // A link loads a new document; target=_blank loads in the same tab.
    let r = act(
        &client,
        "servo_click",
        &id,
        json!({"visibleText": "Plain link"}),
    )
    .await;
    assert_eq!(ok_page(&r)["url"], format!("{site}/echo?from=link"));
    let r = act(&client, "servo_history", &id, json!({"step": "back"})).await;
    assert_eq!(ok_page(&r)["title"], "links");
    let r = act(
        &client,
        "servo_click",
        &id,
        json!({"visibleText": "New window link"}),
    )
    .await;
    assert_eq!(ok_page(&r)["url"], format!("{site}/echo?from=blank"));
    let r = act(&client, "servo_history", &id, json!({"step": "back"})).await;
    let r2 = act(&client, "servo_history", &id, json!({"step": "forward"})).await;
    assert_eq!(ok_page(&r)["title"], "links");
    assert_eq!(ok_page(&r2)["url"], format!("{site}/echo?from=blank"));

    // Scripts navigate too: location.href, then window.open in the same tab.
    let r = act(
        &client,
        "servo_evaluate",
        &id,
        json!({"script": "location.href = '/echo?from=script'; 1"}),
    )
    .await;
    assert_eq!(
        r["response"]["page"]["url"],
        format!("{site}/echo?from=script")
    );
    let r = act(
        &client,
        "servo_evaluate",
        &id,
        json!({"script": "window.open('/echo?from=open')"}),
    )
    .await;
    assert_eq!(r["response"]["value"], Value::Null);
    assert_eq!(
        r["response"]["page"]["url"],
        format!("{site}/echo?from=open")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn dialogs_follow_the_session_policy_and_are_reported() {
    // covers: dialogs
    let fleet = Fleet::start(1).await;
    let client = fleet.client("dialogs").await;
    let (site, _) = sites().await;
    let (id, _) = open(&client, &format!("{site}/dialogs")).await;

    // The default policy dismisses: confirm is false, prompt is null.
    let r = act(&client, "servo_click", &id, json!({"visibleText": "Ask"})).await;
    let dialogs = ok_page(&r)["dialogs"].clone();
    assert_eq!(
        dialogs,
        json!([
            {"kind": "confirm", "message": "Delete it?", "accepted": false, "answer": null},
            {"kind": "prompt", "message": "Your name?", "accepted": false, "answer": null}
        ])
    );
    assert_eq!(eval(&client, &id, "answer").await, json!([false, null]));

    // Accepting with an answer; the next summary reports only new dialogs.
    let r = act(
        &client,
        "servo_dialog_policy",
        &id,
        json!({"accept": true, "promptText": "Grace"}),
    )
    .await;
    assert!(ok_page(&r).get("dialogs").is_none(), "{r:#}");
    act(&client, "servo_click", &id, json!({"visibleText": "Ask"})).await;
    assert_eq!(eval(&client, &id, "answer").await, json!([true, "Grace"]));

    // The policy is part of the session: a restore keeps it.
    fleet.forget_route(&id).await;
    eval(&client, &id, "alert('hello'), 1").await;
    act(&client, "servo_click", &id, json!({"visibleText": "Ask"})).await;
    assert_eq!(eval(&client, &id, "answer").await, json!([true, "Grace"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fetch_follows_same_origin_and_cors_rules() {
    // covers: net.fetch
    let fleet = Fleet::start(1).await;
    let client = fleet.client("fetch").await;
    let (site, other) = sites().await;
    let (id, _) = open(&client, &format!("{site}/form")).await;

    let same = eval(
        &client,
        &id,
        "fetch('/api/data').then(async (r) => [r.status, r.ok, r.headers.get('content-type'), (await r.json()).items])",
    )
    .await;
    assert_eq!(same, json!([200, true, "application/json", [1, 2, 3]]));

    // Cross-origin: readable with Access-Control-Allow-Origin, refused without.
    let script = format!(
        "Promise.all([
           fetch('{other}/api/open').then((r) => r.text()),
           fetch('{other}/api/closed').then(() => 'read', (e) => e.name + ': ' + e.message),
           fetch('{other}/api/open', {{method: 'PUT', headers: {{'x-token': '1'}}}}).then((r) => r.text()),
           fetch('{other}/api/open', {{headers: {{'x-other': '1'}}}}).then(() => 'read', (e) => e.name),
         ])"
    );
    let r = act(&client, "servo_evaluate", &id, json!({"script": script})).await;
    assert_eq!(r["ok"], true, "{r:#}");
    assert_eq!(
        r["response"]["value"],
        json!([
            format!("GET ok from {site}"),
            "TypeError: Failed to fetch",
            format!("PUT ok from {site}"),
            "TypeError"
        ])
    );
    // The refusal is logged as browsers log it, and reported with the page.
    let console = r["response"]["page"]["console"].to_string();
    assert!(console.contains("blocked by CORS policy"), "{console}");

    // XMLHttpRequest, asynchronous, with its readyState sequence.
    let xhr = eval(
        &client,
        &id,
        "new Promise((done) => { const x = new XMLHttpRequest(); const states = [];
           x.onreadystatechange = () => states.push(x.readyState);
           x.onload = () => done([states, x.status, JSON.parse(x.responseText).items.length]);
           x.open('GET', '/api/data'); x.send(); })",
    )
    .await;
    assert_eq!(xhr, json!([[1, 2, 3, 4], 200, 3]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn document_cookie_sees_script_cookies_but_never_httponly_ones() {
    // covers: net.cookies
    let fleet = Fleet::start(1).await;
    let client = fleet.client("cookies").await;
    let (site, _) = sites().await;
    let (id, _) = open(&client, &format!("{site}/set-cookie")).await;
    assert_eq!(eval(&client, &id, "document.cookie").await, "theme=dark");
    // A script cannot set, or overwrite, an HttpOnly cookie.
    eval(
        &client,
        &id,
        "document.cookie = 'lang=en; path=/'; document.cookie = 'sid=forged'; document.cookie = 'x=1; HttpOnly'; 1",
    )
    .await;
    // (In no particular order: the host's jar does not keep creation order.)
    let cookie = eval(&client, &id, "document.cookie.split('; ').sort()").await;
    assert_eq!(cookie, json!(["lang=en", "theme=dark"]));
    // Requests carry them all, the HttpOnly one with its real value.
    let sent = eval(&client, &id, "fetch('/whoami').then((r) => r.text())").await;
    let mut sent: Vec<&str> = sent.as_str().unwrap().split("; ").collect();
    sent.sort_unstable();
    assert_eq!(sent, ["lang=en", "sid=hidden", "theme=dark"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn accessibility_tree_refs_drive_input() {
    // covers: output.accessibility-tree
    let fleet = Fleet::start(1).await;
    let client = fleet.client("a11y").await;
    let (site, _) = sites().await;
    let (id, _) = open(&client, &format!("{site}/form")).await;

    let r = act(&client, "servo_accessibility_tree", &id, json!({})).await;
    assert_eq!(r["ok"], true, "{r:#}");
    let tree = r["response"]["tree"].as_str().unwrap().to_owned();
    assert!(
        tree.contains("- heading \"Order\" [level=1] [ref=e"),
        "{tree}"
    );
    assert!(tree.contains("- textbox \"Query\" [ref=e"), "{tree}");
    assert!(tree.contains("- checkbox \"Gift wrap\" [ref=e"), "{tree}");
    // An unlabelled select has no name; its value is the selected option.
    let combobox = tree.lines().find(|l| l.contains("combobox")).unwrap();
    assert!(
        combobox.trim_start().starts_with("- combobox [ref=e")
            && combobox.ends_with("]: \"Alpha\""),
        "{tree}"
    );
    assert_eq!(r["response"]["truncated"], false);

    // A ref from the tree is a target.
    let line = tree
        .lines()
        .find(|l| l.contains("button \"Search\""))
        .unwrap();
    let reference = line
        .split("[ref=")
        .nth(1)
        .unwrap()
        .split(']')
        .next()
        .unwrap();
    act(
        &client,
        "servo_type_text",
        &id,
        json!({"selector": "#q", "text": "via ref"}),
    )
    .await;
    let r = act(&client, "servo_click", &id, json!({"ref": reference})).await;
    assert_eq!(ok_page(&r)["title"], "echo", "{r:#}");

    // The cap cuts the tree and says so.
    act(&client, "servo_history", &id, json!({"step": "back"})).await;
    let r = act(
        &client,
        "servo_accessibility_tree",
        &id,
        json!({"maxNodes": 3}),
    )
    .await;
    assert_eq!(r["response"]["nodes"], 3);
    assert_eq!(r["response"]["truncated"], true);
    assert!(
        r["response"]["tree"]
            .as_str()
            .unwrap()
            .contains("truncated:"),
        "{r:#}"
    );
    // The largest cap is accepted (5001 is refused: see bad_input).
    let r = act(
        &client,
        "servo_accessibility_tree",
        &id,
        json!({"maxNodes": 5000}),
    )
    .await;
    assert_eq!(r["response"]["truncated"], false, "{r:#}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_event_loop_reports_how_it_settled() {
    // covers: event-loop
    let fleet = Fleet::start(1).await;
    let client = fleet.client("settle").await;
    let (site, _) = sites().await;
    let (out, _) = call(
        &client,
        "servo_navigate",
        json!({"actions": [{"url": format!("{site}/echo?x=1")}, {"url": format!("{site}/poll")}]}),
    )
    .await;
    assert_eq!(
        out["responses"][0]["response"]["page"]["settle"], "settled",
        "{out:#}"
    );
    // A page polling every 5 s has run what was due; its poll stays pending.
    assert_eq!(
        out["responses"][1]["response"]["page"]["settle"], "quiet",
        "{out:#}"
    );
}
