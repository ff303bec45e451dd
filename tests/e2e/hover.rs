//! `servo_hover`: a menu that opens on mouseover opens; enter and leave go to
//! the elements the pointer entered and left, in order.

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
