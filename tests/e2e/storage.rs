//! The storage tools: localStorage and sessionStorage read and changed by an
//! agent, and a login carried from one session to a fresh one through an
//! exported and imported Playwright storage state.

use serde_json::json;

use crate::harness::{Fleet, act, call, eval, first, fixtures, open};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn storage_is_read_and_changed_and_a_login_moves_to_another_session() {
    let fleet = Fleet::start(1).await;
    let client = fleet.client("acme").await;
    let base = fixtures().await;
    let (id, _) = open(&client, &format!("{base}/login")).await;

    // Set through the page's origin; its scripts see the items.
    let r = act(
        &client,
        "servo_storage_set",
        &id,
        json!({"items": {"token": "abc", "theme": "dark"}}),
    )
    .await;
    assert_eq!(r["ok"], true, "{r:#}");
    assert_eq!(r["response"]["origins"][0]["origin"], base, "{r:#}");
    let mut items: Vec<String> = r["response"]["origins"][0]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            format!(
                "{}={}",
                i["name"].as_str().unwrap(),
                i["value"].as_str().unwrap()
            )
        })
        .collect();
    items.sort();
    assert_eq!(items, ["theme=dark", "token=abc"], "{r:#}");
    assert_eq!(
        eval(&client, &id, "localStorage.getItem('token')").await,
        "abc"
    );
    let r = act(
        &client,
        "servo_storage_set",
        &id,
        json!({"area": "session", "items": {"tab": "1"}}),
    )
    .await;
    assert_eq!(
        r["response"]["origins"][0]["items"],
        json!([{"name": "tab", "value": "1"}]),
        "{r:#}"
    );
    assert_eq!(eval(&client, &id, "sessionStorage.tab").await, "1");
    // A page's own writes show in a read.
    eval(&client, &id, "localStorage.setItem('byPage', 'yes')").await;
    let r = act(&client, "servo_storage_get", &id, json!({"origin": base})).await;
    let names: Vec<&str> = r["response"]["origins"][0]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    for n in ["token", "theme", "byPage"] {
        assert!(names.contains(&n), "{n} missing: {r:#}");
    }

    // Export: the HttpOnly login cookie and the origin's localStorage.
    let r = act(&client, "servo_storage_state_export", &id, json!({})).await;
    let state = r["response"]["storageState"].clone();
    assert_eq!(state["cookies"][0]["name"], "sid", "{r:#}");
    assert_eq!(state["cookies"][0]["httpOnly"], true);
    assert_eq!(state["origins"][0]["origin"], base);

    // Import into a fresh session: its requests carry the cookie, its pages
    // find the storage.
    let (out, _) = call(
        &client,
        "servo_storage_state_import",
        json!({"actions": [{"storageState": state}]}),
    )
    .await;
    assert_eq!(first(&out)["ok"], true, "{out:#}");
    let other = first(&out)["sessionID"].as_str().unwrap().to_owned();
    assert_ne!(other, id);
    let (out, _) = call(
        &client,
        "servo_navigate",
        json!({"actions": [{"sessionID": other, "url": format!("{base}/whoami")}]}),
    )
    .await;
    assert!(
        first(&out)["response"]["page"]["text"]
            .as_str()
            .unwrap()
            .contains("sid=s3cret"),
        "{out:#}"
    );
    assert_eq!(
        eval(&client, &other, "localStorage.getItem('token')").await,
        "abc"
    );

    // Clear empties the page's origin.
    let r = act(&client, "servo_storage_clear", &other, json!({})).await;
    assert_eq!(r["response"]["origins"], json!([]), "{r:#}");
    assert_eq!(eval(&client, &other, "localStorage.length").await, 0);

    for (tool, fields, needle) in [
        (
            "servo_storage_get",
            json!({"area": "disk"}),
            "local or session",
        ),
        (
            "servo_storage_set",
            json!({"items": {"n": 1}}),
            "items.n must be a string",
        ),
        ("servo_storage_set", json!({}), "items is required"),
        (
            "servo_storage_state_import",
            json!({"storageState": {"origins": [{"origin": "nope", "localStorage": []}]}}),
            "not an origin",
        ),
    ] {
        let r = act(&client, tool, &id, fields).await;
        assert!(
            r["error"].as_str().unwrap_or_default().contains(needle),
            "{tool} {needle:?}: {r:#}"
        );
    }
}
