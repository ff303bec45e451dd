//! `servo_hover`: a menu that opens on mouseover opens; enter and leave go to
//! the elements the pointer entered and left, in order. `servo_find`: an
//! element found by its text gives a ref and a selector the other tools take.

use serde_json::json;

use crate::harness::{Fleet, act, call, eval, first};

const PAGE: &str = r#"<title>hover</title>
<nav><div id="menu">Products</div><ul id="sub" hidden><li id="item">Servo fleet</li></ul></nav>
<p id="other">Elsewhere</p>
<script>
  window.seen = [];
  for (const id of ['menu', 'other']) {
    const el = document.getElementById(id);
    for (const t of ['mouseover', 'mouseenter', 'mouseleave', 'mousemove']) el.addEventListener(t, () => seen.push(id + ':' + t));
  }
  document.getElementById('menu').addEventListener('mouseover', () => document.getElementById('sub').hidden = false);
</script>"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn hovering_opens_a_hover_menu_and_fires_enter_and_leave_in_order() {
    // covers: input.hover
    let fleet = Fleet::start(1).await;
    let client = fleet.client("acme").await;
    let (out, _) = call(
        &client,
        "servo_navigate",
        json!({"actions": [{"html": PAGE}]}),
    )
    .await;
    let id = first(&out)["sessionID"].as_str().unwrap().to_owned();
    assert!(
        !first(&out)["response"]["page"]["text"]
            .as_str()
            .unwrap()
            .contains("Servo fleet")
    );

    let r = act(
        &client,
        "servo_hover",
        &id,
        json!({"visibleText": "Products"}),
    )
    .await;
    assert_eq!(r["response"]["action"], "hover", "{r:#}");
    assert!(
        r["response"]["page"]["text"]
            .as_str()
            .unwrap()
            .contains("Servo fleet"),
        "the menu did not open: {r:#}"
    );
    let r = act(&client, "servo_hover", &id, json!({"selector": "#other"})).await;
    assert_eq!(r["ok"], true, "{r:#}");
    assert_eq!(
        eval(&client, &id, "seen.join(' ')").await,
        "menu:mouseover menu:mouseenter menu:mousemove menu:mouseleave other:mouseover other:mouseenter other:mousemove"
    );
    let r = act(&client, "servo_hover", &id, json!({"selector": "#nothing"})).await;
    assert_eq!(r["code"], "INVALID_ARGUMENT", "{r:#}");
    let r = act(&client, "servo_hover", &id, json!({})).await;
    assert!(
        r["error"]
            .as_str()
            .unwrap_or_default()
            .contains("actions[0]"),
        "{r:#}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_element_found_by_text_gives_a_ref_and_a_unique_selector() {
    let fleet = Fleet::start(1).await;
    let client = fleet.client("acme").await;
    let page = r#"<title>find</title><main id="main"><ul><li>One</li><li>Two <button>Buy</button></li></ul>
        <p id="dup">A</p><p id="dup">B</p></main>
        <script>document.querySelector('button').onclick = () => document.title = 'bought';</script>"#;
    let (out, _) = call(
        &client,
        "servo_navigate",
        json!({"actions": [{"html": page}]}),
    )
    .await;
    let id = first(&out)["sessionID"].as_str().unwrap().to_owned();

    let r = act(&client, "servo_find", &id, json!({"visibleText": "Buy"})).await;
    let found = &r["response"];
    assert_eq!(found["tag"], "button", "{r:#}");
    assert_eq!(found["text"], "Buy");
    assert_eq!(
        found["selector"], "#main > ul:nth-of-type(1) > li:nth-of-type(2) > button:nth-of-type(1)",
        "{r:#}"
    );
    assert!(found["ref"].as_str().unwrap().starts_with('e'), "{r:#}");
    assert!(found["box"]["width"].as_f64().unwrap() > 0.0, "{r:#}");
    // The selector matches it alone; a duplicated id is not trusted.
    let n = eval(
        &client,
        &id,
        &format!("document.querySelectorAll({}).length", found["selector"]),
    )
    .await;
    assert_eq!(n, 1);
    let r = act(
        &client,
        "servo_find",
        &id,
        json!({"selector": "main p + p"}),
    )
    .await;
    assert_eq!(
        r["response"]["selector"], "#main > p:nth-of-type(2)",
        "{r:#}"
    );
    // Nothing was clicked; the ref works as a target.
    assert_eq!(eval(&client, &id, "document.title").await, "find");
    let r = act(&client, "servo_click", &id, json!({"ref": found["ref"]})).await;
    assert_eq!(r["response"]["page"]["title"], "bought", "{r:#}");
    let r = act(
        &client,
        "servo_find",
        &id,
        json!({"visibleText": "Nowhere"}),
    )
    .await;
    assert_eq!(r["code"], "INVALID_ARGUMENT", "{r:#}");
}
