//! The cookie tools on a session's jar: what pages set (HttpOnly included) is
//! read back in Playwright's shape; what an agent sets, pages' requests carry
//! (and scripts see unless HttpOnly); deletes and clears; all-or-none sets;
//! and the jar surviving a restore on another worker.

use serde_json::{Value, json};

use crate::harness::{Fleet, act, call, first, fixtures, open};

fn names(r: &Value) -> Vec<String> {
    let mut n: Vec<String> = r["response"]["cookies"]
        .as_array()
        .unwrap_or_else(|| panic!("no cookies: {r:#}"))
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_owned())
        .collect();
    n.sort();
    n
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn agents_read_and_change_the_cookie_jar_pages_use() {
    let fleet = Fleet::start(2).await;
    let client = fleet.client("acme").await;
    let base = fixtures().await;
    let (id, _) = open(&client, &format!("{base}/login")).await;

    // What the page set, HttpOnly and all, in Playwright's shape.
    let r = act(&client, "servo_cookies_get", &id, json!({})).await;
    let sid = &r["response"]["cookies"][0];
    assert_eq!(sid["name"], "sid", "{r:#}");
    assert_eq!(sid["value"], "s3cret");
    assert_eq!(sid["domain"], "127.0.0.1");
    assert_eq!(sid["path"], "/");
    assert_eq!(sid["httpOnly"], true);
    assert_eq!(sid["expires"], -1.0);
    assert_eq!(sid["sameSite"], "Lax");
    let r = act(
        &client,
        "servo_cookies_get",
        &id,
        json!({"urls": ["http://elsewhere.example/"]}),
    )
    .await;
    assert_eq!(r["response"]["cookies"], json!([]), "{r:#}");

    // Set two; the next request carries them, scripts see only the one
    // without HttpOnly.
    let expires = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 3600;
    let r = act(
        &client,
        "servo_cookies_set",
        &id,
        json!({"cookies": [
            {"name": "theme", "value": "dark", "url": base},
            {"name": "tok", "value": "t1", "domain": "127.0.0.1", "path": "/", "httpOnly": true, "expires": expires}
        ]}),
    )
    .await;
    assert_eq!(r["response"]["changed"], 2, "{r:#}");
    assert_eq!(names(&r), ["sid", "theme", "tok"]);
    let tok = r["response"]["cookies"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "tok")
        .unwrap();
    assert!(
        (tok["expires"].as_f64().unwrap() - expires as f64).abs() <= 2.0,
        "{tok:#}"
    );
    let (out, _) = call(
        &client,
        "servo_navigate",
        json!({"actions": [{"sessionID": id, "url": format!("{base}/whoami")}]}),
    )
    .await;
    let text = first(&out)["response"]["page"]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    for c in ["sid=s3cret", "theme=dark", "tok=t1"] {
        assert!(text.contains(c), "{c} not sent: {text}");
    }
    let seen = act(
        &client,
        "servo_evaluate",
        &id,
        json!({"script": "document.cookie"}),
    )
    .await;
    assert_eq!(seen["response"]["value"], "theme=dark", "{seen:#}");

    // One bad cookie sets none.
    let r = act(
        &client,
        "servo_cookies_set",
        &id,
        json!({"cookies": [
            {"name": "fine", "value": "1", "url": base},
            {"name": "bad", "value": "1", "url": base, "sameSite": "None"}
        ]}),
    )
    .await;
    assert_eq!(r["code"], "INVALID_ARGUMENT", "{r:#}");
    assert!(r["error"].as_str().unwrap().contains("cookies[1]"), "{r:#}");
    let r = act(&client, "servo_cookies_get", &id, json!({})).await;
    assert_eq!(names(&r), ["sid", "theme", "tok"], "{r:#}");

    // The jar goes with the session to another worker.
    fleet.forget_route(&id).await;
    let r = act(&client, "servo_cookies_get", &id, json!({})).await;
    assert_eq!(names(&r), ["sid", "theme", "tok"], "after a restore: {r:#}");

    // Delete one by name, then clear the rest.
    let r = act(
        &client,
        "servo_cookies_delete",
        &id,
        json!({"name": "theme"}),
    )
    .await;
    assert_eq!(r["response"]["changed"], 1, "{r:#}");
    assert_eq!(names(&r), ["sid", "tok"]);
    let r = act(&client, "servo_cookies_clear", &id, json!({})).await;
    assert_eq!(r["response"]["changed"], 2, "{r:#}");
    let (out, _) = call(
        &client,
        "servo_navigate",
        json!({"actions": [{"sessionID": id, "url": format!("{base}/whoami")}]}),
    )
    .await;
    assert!(
        first(&out)["response"]["page"]["text"]
            .as_str()
            .unwrap()
            .contains("cookie: none"),
        "{out:#}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn cookies_set_on_a_new_tab_reach_its_first_page() {
    let fleet = Fleet::start(1).await;
    let client = fleet.client("acme").await;
    let base = fixtures().await;
    let (out, _) = call(
        &client,
        "servo_cookies_set",
        json!({"actions": [{"cookies": [{"name": "pre", "value": "set", "url": base}]}]}),
    )
    .await;
    let id = first(&out)["sessionID"].as_str().unwrap().to_owned();
    assert_eq!(first(&out)["ok"], true, "{out:#}");
    let (out, _) = call(
        &client,
        "servo_navigate",
        json!({"actions": [{"sessionID": id, "url": format!("{base}/whoami")}]}),
    )
    .await;
    assert!(
        first(&out)["response"]["page"]["text"]
            .as_str()
            .unwrap()
            .contains("pre=set"),
        "{out:#}"
    );
    // Reads need the session they read.
    let (out, _) = call(&client, "servo_cookies_get", json!({"actions": [{}]})).await;
    assert!(
        out["error"]
            .as_str()
            .unwrap_or_default()
            .contains("sessionID"),
        "{out:#}"
    );
    for (cookie, needle) in [
        (json!({"name": "a", "value": "1"}), "url or domain"),
        (
            json!({"name": "a b", "value": "1", "url": base}),
            "not a cookie name",
        ),
        (
            json!({"name": "a", "value": "1", "url": base, "domain": "x.example"}),
            "exactly one",
        ),
        (json!({"name": "a", "value": "1;2", "url": base}), "';'"),
        (
            json!({"name": "a", "value": "1", "url": base, "colour": 1}),
            "unknown field",
        ),
    ] {
        let r = act(
            &client,
            "servo_cookies_set",
            &id,
            json!({"cookies": [cookie]}),
        )
        .await;
        assert!(
            r["error"].as_str().unwrap_or_default().contains(needle),
            "{needle:?}: {r:#}"
        );
    }
}
