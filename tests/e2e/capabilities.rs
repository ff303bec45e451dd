//! The capabilities report is backed by checks that exercise it: every check a
//! capability cites must exist, carry a `covers:` tag naming that capability,
//! and load what exercising it takes (an `<iframe>` for frames, `@font-face`
//! or a registered font for fonts, ...) in its module or page. The capabilities whose checks live
//! nowhere else are checked here: web fonts in WOFF and WOFF2, and scripts
//! inside iframes.

use std::path::PathBuf;

use axum::response::Html;
use serde_json::json;

use crate::harness::{Fleet, call, eval, first, open};

/// What a check of each capability must contain, one of these strings at least.
const EVIDENCE: &[(&str, &[&str])] = &[
    (
        "dom.traversal-and-mutation",
        &["querySelector", "appendChild", "createElement"],
    ),
    ("dom.custom-elements", &["customElements.define"]),
    ("dom.parsing", &["DOMParser"]),
    ("compat.frameworks", &["/vendor/"]),
    ("dom.forms", &["<input", "<select", "<textarea"]),
    (
        "dom.style-and-layout",
        &["getComputedStyle", "getBoundingClientRect", "styleSheets"],
    ),
    ("dom.mutation-observer", &["MutationObserver"]),
    ("events.dispatch", &["dispatchEvent"]),
    (
        "events.lifecycle",
        &[
            "DOMContentLoaded",
            "readystatechange",
            "hashchange",
            "popstate",
        ],
    ),
    (
        "event-loop",
        &["setTimeout", "setInterval", "requestAnimationFrame"],
    ),
    ("scripts.classic", &["<script"]),
    ("scripts.modules", &["type=module", "type=\"module\""]),
    ("net.fetch", &["fetch("]),
    ("net.xhr", &["XMLHttpRequest"]),
    ("net.cookies", &["cookie"]),
    ("storage.web-storage", &["localStorage", "sessionStorage"]),
    ("storage.indexeddb", &["indexedDB"]),
    ("navigation.location-and-history", &["history", "location"]),
    ("navigation.forms", &["<form"]),
    ("navigation.new-windows", &["_blank", "window.open"]),
    ("dialogs", &["alert(", "confirm(", "prompt("]),
    ("input.click", &["servo_click"]),
    ("input.hover", &["servo_hover"]),
    ("input.keyboard", &["servo_type_text", "servo_press_key"]),
    ("input.scroll", &["servo_scroll"]),
    ("output.accessibility-tree", &["servo_accessibility_tree"]),
    ("output.readable", &["readable"]),
    ("output.text", &["innerText", "\"text\"", "[\"text\"]"]),
    ("render.screenshot", &["servo_screenshot", "screenshot("]),
    ("render.images", &["<img"]),
    ("render.fonts", &["@font-face", "servo_register_font"]),
    (
        "apis.encoding-crypto-url",
        &["TextEncoder", "URLSearchParams", "crypto."],
    ),
    ("apis.intl", &["Intl."]),
    (
        "apis.messaging-files-streams",
        &["MessageChannel", "FileReader", "ReadableStream"],
    ),
    ("frames", &["<iframe"]),
    ("workers", &["new Worker("]),
    ("canvas", &["getContext"]),
    (
        "compat.feature-detection",
        &["[native code]", "getOwnPropertyDescriptor"],
    ),
];

/// Each e2e test module's source (module directories included).
fn test_modules() -> Vec<String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/e2e");
    std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .flat_map(|p| match std::fs::read_dir(&p) {
            Ok(dir) => dir.map(|e| e.unwrap().path()).collect(),
            Err(_) => vec![p],
        })
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

/// A check's own text (where its tag must be) and the text it exercises
/// (where the evidence must be): a corpus page, and the page with its asset
/// folder; or an e2e test function, and its module, which holds the pages
/// and fixtures the function loads.
fn check_text(modules: &[String], check: &str) -> Option<(String, String)> {
    let pages = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/pages");
    if let Ok(page) = std::fs::read_to_string(pages.join(format!("{check}.html"))) {
        let mut all = page.clone();
        let mut dirs = vec![pages.join(check)];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(dir).into_iter().flatten() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else {
                    all.push_str(&String::from_utf8_lossy(&std::fs::read(path).unwrap()));
                }
            }
        }
        return Some((page, all));
    }
    let signature = format!("async fn {check}()");
    let module = modules.iter().find(|m| m.contains(&signature))?;
    let rest = &module[module.find(&signature)?..];
    let body = rest[..rest.find("\n}\n").unwrap_or(rest.len())].to_owned();
    Some((body, module.clone()))
}

/// The capabilities a check's `covers:` tags name.
fn covered(text: &str) -> Vec<String> {
    text.match_indices("covers: ")
        .flat_map(|(at, tag)| {
            let rest = &text[at + tag.len()..];
            let line = &rest[..rest.find('\n').unwrap_or(rest.len())];
            let end = line.find("-->").unwrap_or(line.len());
            line[..end]
                .split(',')
                .map(|c| c.trim().to_owned())
                .collect::<Vec<_>>()
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn capabilities_cite_checks_that_exist_are_tagged_and_exercise_them() {
    let fleet = Fleet::start(1).await;
    let client = fleet.client("caps").await;
    let (out, _) = call(&client, "servo_get_capabilities", json!({"actions": [{}]})).await;
    let caps = first(&out)["response"]["capabilities"]
        .as_array()
        .unwrap()
        .clone();
    assert!(caps.len() >= 20, "{out:#}");
    let modules = test_modules();
    let mut wrong = Vec::new();
    for cap in &caps {
        let (name, support, reason) = (
            cap["name"].as_str().unwrap(),
            cap["support"].as_str().unwrap(),
            cap["reason"].as_str().unwrap(),
        );
        match support {
            "supported" | "partial" => {
                let checks = reason
                    .rsplit_once("(checked by: ")
                    .map(|(_, c)| c.trim_end_matches(')'))
                    .unwrap_or_else(|| panic!("{name} names no checks: {reason}"));
                let evidence = EVIDENCE
                    .iter()
                    .find(|(c, _)| *c == name)
                    .unwrap_or_else(|| panic!("no evidence listed for {name}"))
                    .1;
                for check in checks.split(", ") {
                    let Some((own, exercised)) = check_text(&modules, check) else {
                        wrong.push(format!(
                            "{name}: {check} is neither a corpus page nor an e2e test"
                        ));
                        continue;
                    };
                    if !covered(&own).iter().any(|c| c == name) {
                        wrong.push(format!("{name}: {check} has no `covers: {name}` tag"));
                    }
                    if !evidence.iter().any(|e| exercised.contains(e)) {
                        wrong.push(format!("{name}: {check} contains none of {evidence:?}"));
                    }
                }
            }
            "unsupported" | "unverified" => assert!(!reason.is_empty(), "{name}"),
            other => panic!("{name} has an unknown support level {other:?}"),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let level = |name: &str| {
        caps.iter()
            .find(|c| c["name"] == name)
            .unwrap_or_else(|| panic!("no capability {name}"))["support"]
            .clone()
    };
    assert_eq!(level("scripts.modules"), "supported");
    assert_eq!(level("frames"), "partial");
    assert_eq!(level("dom.shadow-dom"), "unsupported");
}

#[test]
fn covers_tags_are_read_from_rust_comments_and_html_comments() {
    assert_eq!(covered("x\n    // covers: a.b, c\n"), ["a.b", "c"]);
    assert_eq!(
        covered("<!-- covers: dom.traversal-and-mutation, frames -->"),
        ["dom.traversal-and-mutation", "frames"]
    );
    assert!(covered("no tags").is_empty());
}

/// The web fonts of the Sphinx "Read the Docs" theme, as Debian ships them
/// (`make realworld-pages` downloads them).
fn theme_fonts() -> PathBuf {
    let dir = crate::alone::realworld::pages_dir()
        .join("debian-trixie/usr/share/sphinx_rtd_theme/static/fonts");
    assert!(
        dir.join("Lato-Regular.woff2").exists(),
        "{} has no theme fonts: run `make realworld-pages`",
        dir.display()
    );
    dir
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn web_fonts_in_woff_and_woff2_are_fetched_and_used() {
    // covers: render.fonts
    let fonts = theme_fonts();
    let app = axum::Router::new()
        .route(
            "/",
            axum::routing::get(|| async {
                Html(
                    r#"<!doctype html><title>web fonts</title><style>
@font-face { font-family: W2; src: url(/fonts/Lato-Regular.woff2) format('woff2') }
@font-face { font-family: T2; src: url(/fonts/Lato-Regular.ttf) format('truetype') }
@font-face { font-family: W1; src: url(/fonts/fontawesome-webfont.woff) format('woff') }
@font-face { font-family: T1; src: url(/fonts/fontawesome-webfont.ttf) format('truetype') }
@font-face { font-family: Gone; src: url(/fonts/missing.woff2) format('woff2') }
span { font-size: 40px }
</style>
<span id=w2 style="font-family: W2, monospace">Hamburgefonstiv</span><br>
<span id=t2 style="font-family: T2, monospace">Hamburgefonstiv</span><br>
<span id=gone style="font-family: Gone, monospace">Hamburgefonstiv</span><br>
<span id=mono style="font-family: monospace">Hamburgefonstiv</span><br>
<span id=w1 style="font-family: W1, monospace">&#xf007;&#xf015;&#xf0e0;</span><br>
<span id=t1 style="font-family: T1, monospace">&#xf007;&#xf015;&#xf0e0;</span><br>
<span id=mono1 style="font-family: monospace">&#xf007;&#xf015;&#xf0e0;</span>"#,
                )
            }),
        )
        .route(
            "/fonts/{name}",
            axum::routing::get(
                move |axum::extract::Path(name): axum::extract::Path<String>| {
                    let path = fonts.join(&name);
                    async move {
                        match std::fs::read(path) {
                            Ok(bytes) => (axum::http::StatusCode::OK, bytes),
                            Err(_) => (axum::http::StatusCode::NOT_FOUND, Vec::new()),
                        }
                    }
                },
            ),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let site = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let fleet = Fleet::start(1).await;
    let client = fleet.client("fonts").await;
    let (id, _) = open(&client, &format!("{site}/")).await;
    let widths = eval(
        &client,
        &id,
        "Object.fromEntries(['w2', 't2', 'gone', 'mono', 'w1', 't1', 'mono1'].map((i) => \
         [i, document.getElementById(i).getBoundingClientRect().width]))",
    )
    .await;
    let w = |k: &str| widths[k].as_f64().unwrap();
    // The same font from WOFF2 and from TrueType lays out alike, and unlike
    // the fallback; a font that fails to load falls back.
    assert!((w("w2") - w("t2")).abs() < 0.5, "{widths}");
    assert!(
        (w("w2") - w("mono")).abs() > 20.0,
        "WOFF2 font not used: {widths}"
    );
    assert!((w("gone") - w("mono")).abs() < 0.5, "{widths}");
    assert!((w("w1") - w("t1")).abs() < 0.5, "{widths}");
    assert!(
        (w("w1") - w("mono1")).abs() > 10.0,
        "WOFF font not used: {widths}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_srcdoc_frames_scripts_run_and_its_message_reaches_the_page() {
    // covers: frames
    let fleet = Fleet::start(1).await;
    let client = fleet.client("frames").await;
    let page = r#"<title>host</title><p>host page</p>
<iframe srcdoc="<title>inner</title><p id=s>as written</p><script>document.getElementById('s').textContent = 'scripted'; document.title = 'ran'; window.done = true; parent.postMessage('ran', '*');</script>"></iframe>
<script>window.messages = []; addEventListener('message', (e) => messages.push(e.data));</script>"#;
    let (out, _) = call(
        &client,
        "servo_navigate",
        json!({"actions": [{"html": page}]}),
    )
    .await;
    let r = first(&out);
    assert_eq!(r["ok"], true, "{out:#}");
    let frame = &r["response"]["page"]["frames"][0];
    assert_eq!(frame["title"], "ran", "{frame:#}");
    assert_eq!(frame["text"], "scripted", "{frame:#}");
    let id = r["sessionID"].as_str().unwrap();
    let seen = eval(
        &client,
        id,
        "[messages, frames[0].document.getElementById('s').textContent, frames[0].document === document.querySelector('iframe').contentDocument, frames[0].done]",
    )
    .await;
    assert_eq!(seen, json!([["ran"], "scripted", true, true]));
}
