//! Browsing as an agent does it, through the MCP tools (editing at the caret
//! is in `typing.rs`): timers that an action starts running in
//! its quiet period on the page's clock, and readable results that carry a
//! page's main content without the chrome around it. And, through the worker's
//! host, a `<select>` painted with its selected option.

use std::net::SocketAddr;
use std::time::Duration;

use axum::response::Html;
use axum::routing::get;
use fleet_worker::host::{Source, Viewport};
use serde_json::{Value, json};

use crate::harness::{Client, Fleet, act, eval, open};

const EDITOR: &str = r#"<!doctype html><title>editor</title>
<input id=name value="world">
<textarea id=notes>line one
line two</textarea>
<input id=code maxlength=6 value="abcd">
<script>
  window.inputTypes = [];
  for (const el of document.querySelectorAll('input, textarea'))
    el.addEventListener('input', (e) => inputTypes.push(e.inputType));
</script>"#;

/// A search box that waits for typing to pause (300 ms) before it searches,
/// on a page whose poll keeps running long after the load.
const DEBOUNCE: &str = r#"<!doctype html><title>search</title>
<input id=q><ul id=results></ul>
<script>
  window.polls = 0;
  setInterval(() => { polls += 1; }, 200);
  let timer = null;
  window.searches = [];
  q.addEventListener('input', () => {
    clearTimeout(timer);
    const started = Date.now();
    const perf = performance.now();
    timer = setTimeout(() => {
      searches.push({ value: q.value, waited: Date.now() - started, perf: performance.now() - perf });
      results.innerHTML = '<li>Results for ' + q.value + '</li>';
    }, 300);
  });
</script>"#;

/// A page that shows its report three seconds after it loads, and reveals a
/// hidden panel a second after that.
const SLOW: &str = r#"<!doctype html><title>slow</title>
<p id=status>Loading the report</p><div id=panel style="display:none">Panel ready</div>
<script>
  window.started = Date.now();
  setTimeout(() => {
    const p = document.createElement('p');
    p.id = 'late';
    p.textContent = 'Report ready: 42 boats in harbour';
    document.body.appendChild(p);
    status.textContent = 'Loaded';
  }, 3000);
  setTimeout(() => { panel.style.display = 'block'; }, 4000);
</script>"#;

/// A news article between the chrome news sites put around one.
const ARTICLE: &str = r#"<!doctype html><html lang=en><head><title>Harbour wall repaired | The Coast Gazette</title>
<meta name="description" content="Masons finished the repair of the harbour wall a month early.">
<meta name="author" content="Tamsin Pryor">
<meta property="og:site_name" content="The Coast Gazette">
<meta property="article:published_time" content="2026-11-20T08:00:00Z">
</head><body>
<header><a href="/">The Coast Gazette</a><nav><a href="/news">News</a> <a href="/sport">Sport</a> <a href="/weather">Weather</a></nav></header>
<div class="cookie-consent">We use cookies. <a href="/cookies">Manage cookies</a> <button>Accept all</button></div>
<main>
<article>
<h1>Harbour wall repaired a month early</h1>
<p class="byline">By Tamsin Pryor</p>
<p>The storm in January tore a gap twenty metres wide in the harbour wall, and for most of the spring the fishing fleet had to shelter in the estuary instead of at the quay.</p>
<p>Masons from three villages worked through the summer, setting each granite block by hand, and the wall was finished a month before the winter gales were due.</p>
<div class="share-bar"><a href="/share/fb">Share on social</a> <a href="/share/mail">Email this</a></div>
<p>The harbour master said the boats would be back at the quay by the weekend, and that the old mooring rings had been saved and set back into the new stone.</p>
<aside class="related"><h3>Related stories</h3><ul><li><a href="/a">Lifeboat station gets a new slipway</a></li><li><a href="/b">Ferry timetable changes for winter</a></li></ul></aside>
</article>
<section class="comments"><h2>Comments</h2><p>Great news for the fleet, well done to all the masons involved in this.</p></section>
</main>
<footer><p>The Coast Gazette, 3 Quay Street. <a href="/privacy">Privacy</a> <a href="/terms">Terms</a></p></footer>
</body></html>"#;

/// A page of plain `div`s, where only the scores of its blocks tell the
/// story from the link lists beside it.
const DIV_SOUP: &str = r#"<!doctype html><title>Lighthouse keepers</title>
<div id="top"><div class="menu"><a href="/1">Home</a> | <a href="/2">Archive</a> | <a href="/3">About</a> | <a href="/4">Contact</a></div></div>
<div id="wrap">
  <div class="sidebar"><div><a href="/x">Popular: the tallest lighthouses</a></div><div><a href="/y">Popular: lamp rooms, a history</a></div><div><a href="/z">Popular: fog signals explained</a></div></div>
  <div class="story-body">
    <div>The last keepers left the rock in 1998, when the light was automated, but the logbooks they kept for a century are still read by anyone who wants to know the weather of a given night.</div>
    <div>Each entry records the wind, the state of the sea, the ships that passed, and, now and then, a line about the keepers themselves, such as a birthday, a letter from home, or a storm that kept the relief boat away.</div>
    <div>The archive has scanned every page, and volunteers are typing them up, one night at a time, so that the records can be searched.</div>
  </div>
</div>
<div class="foot">Copyright the lighthouse trust. <a href="/legal">Legal</a></div>"#;

/// The pages of these tests on a loopback server; returns its base URL.
pub(crate) async fn site() -> String {
    let app = axum::Router::new()
        .route("/editor", get(|| async { Html(EDITOR) }))
        .route("/debounce", get(|| async { Html(DEBOUNCE) }))
        .route("/article", get(|| async { Html(ARTICLE) }))
        .route("/slow", get(|| async { Html(SLOW) }))
        .route(
            "/framed",
            get(|| async {
                Html(
                    r#"<!doctype html><title>Framed</title><h1>The quay webcam page</h1>
<iframe srcdoc="<title>Notice</title><p>Inside the frame: the quay is closed today</p><a href='https://example.com/quay'>Quay notices</a>" width=400 height=120></iframe>
<iframe src="/article" width=600 height=300></iframe>
<iframe style="display:none" srcdoc="<p>Never shown</p>"></iframe>"#,
                )
            }),
        )
        .route("/soup", get(|| async { Html(DIV_SOUP) }))
        .route(
            "/links",
            get(|| async {
                Html(
                    r#"<!doctype html><title>Links</title><ul><li><a href="/a">One</a></li><li><a href="/b">Two</a></li></ul>"#,
                )
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}")
}

/// One action of `tool` on session `id`, which must succeed; its response.
pub(crate) async fn act_ok(client: &Client, tool: &str, id: &str, fields: Value) -> Value {
    let r = act(client, tool, id, fields.clone()).await;
    assert_eq!(r["ok"], true, "{tool} {fields}: {r:#}");
    r
}

/// Types `text` where the caret is.
pub(crate) async fn type_text(client: &Client, id: &str, text: &str) {
    act_ok(client, "servo_type_text", id, json!({ "text": text })).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn timers_an_action_starts_run_in_its_quiet_period_on_the_page_clock() {
    // covers: event-loop
    let fleet = Fleet::start(1).await;
    let client = fleet.client("timers").await;
    let base = site().await;
    let (id, _) = open(&client, &format!("{base}/debounce")).await;
    // The poll ran through the load's quiet period and keeps going.
    let polls = eval(&client, &id, "polls").await.as_u64().unwrap();
    assert!(polls >= 4, "polls after load: {polls}");

    // Typing starts the debounce timer; the action runs it before it ends,
    // and the page's clocks agree that 300 ms went by.
    let r = act_ok(
        &client,
        "servo_type_text",
        &id,
        json!({"selector": "#q", "text": "gulls"}),
    )
    .await;
    assert!(
        r["response"]["page"]["text"]
            .as_str()
            .unwrap()
            .contains("Results for gulls"),
        "{r:#}"
    );
    assert_eq!(r["response"]["page"]["settle"], "quiet", "{r:#}");
    let searches = eval(&client, &id, "searches").await;
    assert_eq!(searches.as_array().unwrap().len(), 1, "{searches}");
    let search = &searches[0];
    assert_eq!(search["value"], "gulls");
    let waited = search["waited"].as_f64().unwrap();
    let perf = search["perf"].as_f64().unwrap();
    assert!(
        (300.0..1000.0).contains(&waited),
        "Date.now() moved {waited} ms"
    );
    assert!(
        (300.0..1000.0).contains(&perf),
        "performance.now() moved {perf} ms"
    );

    // A later action starts another; it runs too.
    type_text(&client, &id, " and terns").await;
    assert_eq!(
        eval(&client, &id, "searches.map((s) => s.value)").await,
        json!(["gulls", "gulls and terns"])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn navigate_results_carry_the_main_content_without_the_page_chrome() {
    // covers: output.readable
    let fleet = Fleet::start(1).await;
    let client = fleet.client("reader").await;
    let base = site().await;

    let (_, article) = open(&client, &format!("{base}/article")).await;
    let result = &article["response"]["results"][0];
    let content = result["content"].as_str().unwrap();
    for kept in [
        "Harbour wall repaired a month early",
        "The storm in January tore a gap",
        "Masons from three villages",
        "the old mooring rings had been saved",
    ] {
        assert!(content.contains(kept), "{kept:?} missing from {content:?}");
    }
    for dropped in [
        "Sport",
        "Manage cookies",
        "Share on social",
        "Related stories",
        "Lifeboat station",
        "Great news for the fleet",
        "Quay Street",
    ] {
        assert!(!content.contains(dropped), "{dropped:?} in {content:?}");
    }
    assert_eq!(result["title"], "Harbour wall repaired a month early");
    assert_eq!(
        result["snippet"],
        "Masons finished the repair of the harbour wall a month early."
    );
    assert_eq!(result["byline"], "Tamsin Pryor");
    assert_eq!(result["published"], "2026-11-20T08:00:00Z");
    assert_eq!(result["siteName"], "The Coast Gazette");
    assert_eq!(result["url"], format!("{base}/article"));
    // The page's own text still has everything.
    let text = article["response"]["page"]["text"].as_str().unwrap();
    assert!(text.contains("Manage cookies") && text.contains("Great news"));

    // Plain divs: the story scores, the menu and the link lists do not.
    let (_, soup) = open(&client, &format!("{base}/soup")).await;
    let result = &soup["response"]["results"][0];
    let content = result["content"].as_str().unwrap();
    assert!(
        content.starts_with("The last keepers left the rock"),
        "{content:?}"
    );
    assert!(
        content.ends_with("so that the records can be searched."),
        "{content:?}"
    );
    for dropped in ["Archive", "Popular:", "Copyright"] {
        assert!(!content.contains(dropped), "{dropped:?} in {content:?}");
    }
    // Without a description, the snippet is the start of the first paragraph.
    let snippet = result["snippet"].as_str().unwrap();
    assert!(
        snippet.starts_with("The last keepers left the rock in 1998"),
        "{snippet:?}"
    );
    assert!(snippet.chars().count() <= 300, "{snippet:?}");
    assert_eq!(result["title"], "Lighthouse keepers");
    assert!(result.get("byline").is_none(), "{result:#}");

    // A page with no prose at all reads as what it has.
    let (_, links) = open(&client, &format!("{base}/links")).await;
    let result = &links["response"]["results"][0];
    assert_eq!(result["content"], "One\nTwo");
    assert_eq!(result["title"], "Links");
}

/// One servo_wait on session `id`; its response entry, failed or not.
async fn wait(client: &Client, id: &str, fields: Value) -> Value {
    act(client, "servo_wait", id, fields).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn waits_run_the_page_clock_until_an_element_or_text_appears() {
    // covers: event-loop
    let fleet = Fleet::start(1).await;
    let client = fleet.client("waits").await;
    let base = site().await;
    let (id, opened) = open(&client, &format!("{base}/slow")).await;
    // The load's quiet period (1 s) is over before the report comes.
    let text = opened["response"]["page"]["text"].as_str().unwrap();
    assert!(!text.contains("Report ready"), "{text}");
    assert_eq!(opened["response"]["page"]["settle"], "quiet");

    let r = wait(&client, &id, json!({"selector": "#late"})).await;
    assert_eq!(r["ok"], true, "{r:#}");
    let text = r["response"]["page"]["text"].as_str().unwrap();
    assert!(text.contains("Report ready: 42 boats"), "{text}");
    let elapsed = eval(&client, &id, "Date.now() - started")
        .await
        .as_f64()
        .unwrap();
    assert!(
        (3000.0..3900.0).contains(&elapsed),
        "page time passed: {elapsed}"
    );

    // An element in the document but not displayed is not there yet.
    let r = wait(&client, &id, json!({"selector": "#panel", "timeMs": 5000})).await;
    assert_eq!(r["ok"], true, "{r:#}");
    assert!(
        r["response"]["page"]["text"]
            .as_str()
            .unwrap()
            .contains("Panel ready")
    );
    assert_eq!(r["response"]["page"]["settle"], "settled", "{r:#}");

    // Text, and time alone.
    let r = wait(&client, &id, json!({"text": "42  boats in"})).await;
    assert_eq!(r["ok"], true, "{r:#}");
    let before = eval(&client, &id, "Date.now()").await.as_f64().unwrap();
    let r = wait(&client, &id, json!({"timeMs": 5000})).await;
    assert_eq!(r["ok"], true, "{r:#}");
    let after = eval(&client, &id, "Date.now()").await.as_f64().unwrap();
    assert!(
        after - before >= 5000.0,
        "the clock moved {} ms",
        after - before
    );

    // What never comes is a TIMEOUT naming it; a bad selector names itself.
    let r = wait(&client, &id, json!({"selector": "#never", "timeMs": 2000})).await;
    assert_ne!(r["ok"], true, "{r:#}");
    assert_eq!(r["code"], "TIMEOUT", "{r:#}");
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .contains("an element matching \"#never\" did not appear within 2000 ms of page time"),
        "{r:#}"
    );
    let r = wait(&client, &id, json!({"selector": "div[["})).await;
    assert_eq!(r["code"], "INVALID_ARGUMENT", "{r:#}");
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .contains("the selector \"div[[\" is not valid CSS"),
        "{r:#}"
    );
    for (fields, needle) in [
        (json!({}), "a selector, a text or a timeMs"),
        (
            json!({"timeMs": 60001}),
            "timeMs must be 1 to 60000; got 60001",
        ),
        (json!({"timeMs": 0}), "timeMs must be 1 to 60000; got 0"),
    ] {
        let r = wait(&client, &id, fields.clone()).await;
        assert!(r.to_string().contains(needle), "{fields}: {r:#}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn frames_are_read_as_their_own_documents() {
    // covers: frames
    let fleet = Fleet::start(1).await;
    let client = fleet.client("frames").await;
    let base = site().await;
    let (_, framed) = open(&client, &format!("{base}/framed")).await;
    let page = &framed["response"]["page"];
    // The page's own text is its own, as innerText has it.
    let text = page["text"].as_str().unwrap();
    assert_eq!(text, "The quay webcam page", "{page:#}");
    let frames = page["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 2, "the hidden frame is left out: {page:#}");
    assert_eq!(frames[0]["title"], "Notice");
    assert_eq!(
        frames[0]["text"],
        "Inside the frame: the quay is closed today\n\nQuay notices"
    );
    assert_eq!(
        frames[0]["links"],
        json!([{"text": "Quay notices", "href": "https://example.com/quay"}])
    );
    assert_eq!(frames[1]["url"], format!("{base}/article"));
    assert_eq!(
        frames[1]["title"],
        "Harbour wall repaired | The Coast Gazette"
    );
    assert!(
        frames[1]["text"]
            .as_str()
            .unwrap()
            .contains("The storm in January"),
        "{:#}",
        frames[1]
    );
}

const BUDGET: Duration = Duration::from_secs(20);

/// The bounding box of `selector`'s element, `[x, y, width, height]` in px.
async fn rect(tab: &mut fleet_worker::host::Tab, selector: &str) -> [f64; 4] {
    let json = tab
        .evaluate(
            &format!(
                "(() => {{ const r = document.querySelector('{selector}').getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; }})()"
            ),
            BUDGET,
        )
        .await
        .expect("evaluate call")
        .expect("evaluate");
    serde_json::from_str(&json).expect("a box")
}

/// How many pixels of the box are dark (text), in a decoded RGB frame.
fn dark_pixels(frame: &image::RgbImage, [x, y, w, h]: [f64; 4]) -> usize {
    let mut dark = 0;
    // Inside the border, left of the arrow.
    for py in (y as u32 + 3)..((y + h) as u32).saturating_sub(3) {
        for px in (x as u32 + 3)..((x + w) as u32).saturating_sub(24) {
            let p = frame.get_pixel(px, py).0;
            if p.iter().all(|c| *c < 110) {
                dark += 1;
            }
        }
    }
    dark
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_select_paints_its_selected_option_as_wide_as_its_widest() -> anyhow::Result<()> {
    // covers: render.screenshot
    let host = crate::harness::engine_host(2, &[])?;
    let mut tab = host
        .new_tab(Viewport {
            width: 600,
            height: 300,
        })
        .await?;
    let html = r#"<!doctype html><title>select</title><style>body{margin:20px;background:#fff} select{font-size:24px}</style>
<select id=plain><option>I</option><option>A much longer option label</option></select>
<br><br><select id=chosen><option>I</option><option selected>WWWWWW</option></select>
<br><br><select id=empty></select>"#;
    tab.load(Source::Html(html.to_owned()), BUDGET).await?;
    let plain = rect(&mut tab, "#plain").await;
    let chosen = rect(&mut tab, "#chosen").await;
    let empty = rect(&mut tab, "#empty").await;
    // As wide as the longest label though it shows the first, short one; as
    // high as one line of 24px text, not two.
    assert!(plain[2] > 250.0, "width {plain:?}");
    assert!((24.0..45.0).contains(&plain[3]), "height {plain:?}");
    assert!(
        empty[2] > 0.0 && empty[3] > 0.0,
        "an empty select still has a box: {empty:?}"
    );

    let shot = |png: Vec<u8>| image::load_from_memory(&png).map(|i| i.to_rgb8());
    let frame = shot(
        tab.screenshot(false, BUDGET)
            .await?
            .map_err(anyhow::Error::msg)?,
    )?;
    let first = dark_pixels(&frame, plain);
    let wide = dark_pixels(&frame, chosen);
    // "I" is a few strokes; "WWWWWW" many more; neither select is blank.
    assert!(
        first > 10,
        "the first option is painted: {first} dark pixels"
    );
    assert!(
        wide > first * 3,
        "the selected option is painted: {wide} vs {first}"
    );

    // Choosing the long option paints it instead.
    tab.evaluate("document.querySelector('#plain').selectedIndex = 1", BUDGET)
        .await?
        .map_err(|e| anyhow::anyhow!("{e:?}"))?;
    let frame = shot(
        tab.screenshot(false, BUDGET)
            .await?
            .map_err(anyhow::Error::msg)?,
    )?;
    let long = dark_pixels(&frame, plain);
    assert!(long > first * 5, "after choosing: {long} vs {first}");
    Ok(())
}
