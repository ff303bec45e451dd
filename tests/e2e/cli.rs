//! The command-line client against a running fleet: `servo-fleet call`
//! prints a tool's JSON result (screenshots go to files), `servo-fleet
//! sessions list|close` lists and closes the caller's sessions; the gateway
//! and key come from the environment, and failures exit non-zero saying why.

use serde_json::Value;

use crate::harness::{Fleet, run_cli_env};

/// Runs `servo-fleet args` with the gateway and key in the environment.
async fn cli(fleet: &Fleet, key: &str, args: &[&str]) -> (bool, String, String) {
    run_cli_env(
        args,
        &[
            ("FLEET_GATEWAY_URL", &fleet.gateway),
            ("FLEET_API_KEY", key),
        ],
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_cli_calls_tools_writes_screenshots_and_lists_and_closes_sessions() {
    let fleet = Fleet::start(1).await;
    let key = fleet.key("acme").await;
    let dir = std::env::temp_dir().join(format!("fleet-cli-{}", std::process::id()));

    // One action given bare; the result is the tool's JSON.
    let (ok, out, err) = cli(
        &fleet,
        &key,
        &[
            "call",
            "servo_navigate",
            "--json",
            r#"{"html": "<title>from the cli</title><p id=p>x</p><script>p.textContent = 6 * 7</script>"}"#,
        ],
    )
    .await;
    assert!(ok, "{err}");
    let result: Value = serde_json::from_str(&out).unwrap();
    let r = &result["responses"][0];
    assert_eq!(r["response"]["page"]["title"], "from the cli", "{out}");
    assert_eq!(r["response"]["page"]["text"], "42", "{out}");
    let id = r["sessionID"].as_str().unwrap().to_owned();

    // A screenshot is written to a file the result names.
    let actions = format!(r#"{{"actions": [{{"sessionID": "{id}"}}]}}"#);
    let (ok, out, err) = cli(
        &fleet,
        &key,
        &[
            "call",
            "servo_screenshot",
            "--json",
            &actions,
            "--out-dir",
            dir.to_str().unwrap(),
        ],
    )
    .await;
    assert!(ok, "{err}");
    let result: Value = serde_json::from_str(&out).unwrap();
    let file = result["responses"][0]["response"]["file"].as_str().unwrap();
    let png = std::fs::read(file).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(
        file,
        dir.join(format!("screenshot-{id}-0.png")).to_str().unwrap()
    );

    // A table of the caller's sessions; another tenant sees none of them.
    let (ok, out, err) = cli(&fleet, &key, &["sessions", "list", "--output", "table"]).await;
    assert!(ok, "{err}");
    let row = out
        .lines()
        .find(|l| l.starts_with(&id))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        row.contains("active") && row.ends_with("from the cli"),
        "{row}"
    );
    let other = fleet.key("other").await;
    let (ok, out, _) = cli(&fleet, &other, &["sessions", "list"]).await;
    assert!(ok);
    assert!(!out.contains(&id), "{out}");

    // A failed action is printed and the exit says so.
    let (ok, out, err) = cli(
        &fleet,
        &other,
        &[
            "call",
            "servo_inspect",
            "--json",
            &format!(r#"{{"sessionID": "{id}"}}"#),
            "--output",
            "table",
        ],
    )
    .await;
    assert!(!ok);
    assert!(out.contains("SESSION_NOT_FOUND"), "{out}");
    assert!(err.contains("1 of the call's actions failed"), "{err}");

    // Closing it: gone from the list.
    let (ok, _, err) = cli(&fleet, &key, &["sessions", "close", &id]).await;
    assert!(ok, "{err}");
    let (_, out, _) = cli(&fleet, &key, &["sessions", "list"]).await;
    assert!(!out.contains(&id), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_cli_refuses_bad_arguments_keys_and_tools_clearly() {
    let fleet = Fleet::start(1).await;
    let key = fleet.key("acme").await;
    for (args, key, needle) in [
        (
            vec!["call", "servo_navigate", "--json", "{url:"],
            key.as_str(),
            "--json is not valid JSON",
        ),
        (
            vec!["call", "servo_no_such_tool"],
            key.as_str(),
            "servo_no_such_tool",
        ),
        (
            vec!["call", "servo_navigate", "--json", r#"{"url": "ftp://x/"}"#],
            key.as_str(),
            "http",
        ),
        (vec!["sessions", "list"], "sf_not_a_key", "connecting to"),
    ] {
        let (ok, out, err) = cli(&fleet, key, &args).await;
        assert!(!ok, "{args:?}: {out}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}
