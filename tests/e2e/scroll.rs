//! `servo_scroll` as a user's wheel: the page moves by the distance asked and
//! stops at its ends, the page hears `wheel` then `scroll`, an element target
//! scrolls its own box (or its nearest scrollable ancestor), and a page that
//! cancels the wheel keeps its place.

use serde_json::{Value, json};

use crate::harness::{Client, Fleet, act, call, eval, first};

const PAGE: &str = r#"<!doctype html><title>scroll</title>
<style>
  body { margin: 0; font: 16px sans-serif }
  #box { width: 300px; height: 100px; overflow: auto }
  #inner { height: 1000px }
  #locked { width: 300px; height: 100px; overflow: auto }
  #locked div { height: 1000px }
  .tall { height: 5000px }
</style>
<div id=box><div id=inner>inside the box</div></div>
<div id=locked><div>cancels its wheel</div></div>
<div class=tall>a tall page</div>
<script>
  window.heard = [];
  addEventListener('wheel', (e) => heard.push(['wheel', e.target.id || e.target.localName, e.deltaY]));
  addEventListener('scroll', () => heard.push(['scroll', 'window', scrollY]));
  box.addEventListener('scroll', () => heard.push(['scroll', 'box', box.scrollTop]));
  locked.addEventListener('wheel', (e) => e.preventDefault());
</script>"#;

/// Scrolls, which must succeed, and returns what the page heard since the
/// last scroll with the page's and the box's positions.
async fn scroll(client: &Client, id: &str, fields: Value) -> Value {
    let r = act(client, "servo_scroll", id, fields.clone()).await;
    assert_eq!(r["ok"], true, "{fields}: {r:#}");
    eval(
        client,
        id,
        "(() => { const h = heard; heard = []; \
         return {heard: h, x: scrollX, y: scrollY, box: box.scrollTop, locked: locked.scrollTop}; })()",
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn scrolling_moves_the_page_or_the_targeted_box_and_fires_wheel_then_scroll() {
    // covers: input.scroll
    let fleet = Fleet::start(1).await;
    let client = fleet.client("scroll").await;
    let (out, _) = call(
        &client,
        "servo_navigate",
        json!({"actions": [{"html": PAGE, "width": 800, "height": 600}]}),
    )
    .await;
    let id = first(&out)["sessionID"].as_str().unwrap().to_owned();
    let max_y = eval(
        &client,
        &id,
        "document.documentElement.scrollHeight - innerHeight",
    )
    .await
    .as_f64()
    .unwrap();
    // 5,200 px of boxes in a 600 px viewport.
    assert_eq!(max_y, 4600.0);

    let s = scroll(&client, &id, json!({"dy": 300})).await;
    assert_eq!(
        (s["x"].clone(), s["y"].clone()),
        (json!(0), json!(300)),
        "{s:#}"
    );
    assert_eq!(
        s["heard"],
        json!([["wheel", "html", 300], ["scroll", "window", 300]]),
        "{s:#}"
    );
    let s = scroll(&client, &id, json!({"dy": -100})).await;
    assert_eq!(s["y"], 200, "{s:#}");
    // The page stops at its ends, and has no width to scroll sideways.
    let s = scroll(&client, &id, json!({"dy": 1_000_000, "dx": 500})).await;
    assert_eq!(
        (s["x"].as_f64(), s["y"].as_f64()),
        (Some(0.0), Some(max_y)),
        "{s:#}"
    );
    let s = scroll(&client, &id, json!({"dy": -1_000_000})).await;
    assert_eq!(s["y"], 0, "{s:#}");

    // An element target scrolls its own box, not the page.
    let s = scroll(&client, &id, json!({"selector": "#box", "dy": 50})).await;
    assert_eq!(
        (s["y"].clone(), s["box"].clone()),
        (json!(0), json!(50)),
        "{s:#}"
    );
    assert_eq!(
        s["heard"],
        json!([["wheel", "box", 50], ["scroll", "box", 50]]),
        "{s:#}"
    );
    // An element that does not scroll passes it to its nearest scrollable
    // ancestor; the wheel event is the element's.
    let s = scroll(&client, &id, json!({"selector": "#inner", "dy": 30})).await;
    assert_eq!(
        (s["y"].clone(), s["box"].clone()),
        (json!(0), json!(80)),
        "{s:#}"
    );
    assert_eq!(s["heard"][0], json!(["wheel", "inner", 30]), "{s:#}");
    // A box at its end passes the rest on to the page.
    let s = scroll(&client, &id, json!({"selector": "#box", "dy": 5000})).await;
    assert_eq!(s["box"], 900, "{s:#}");
    let s = scroll(&client, &id, json!({"selector": "#box", "dy": 70})).await;
    assert_eq!(
        (s["y"].clone(), s["box"].clone()),
        (json!(70), json!(900)),
        "{s:#}"
    );
    // A page that cancels the wheel keeps its place.
    let s = scroll(&client, &id, json!({"selector": "#locked", "dy": 60})).await;
    assert_eq!(
        (s["y"].clone(), s["locked"].clone()),
        (json!(70), json!(0)),
        "{s:#}"
    );
    assert_eq!(s["heard"], json!([["wheel", "locked", 60]]), "{s:#}");
}
