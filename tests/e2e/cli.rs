//! The command-line client against a running fleet: `servo-fleet call`
//! prints a tool's JSON result (screenshots go to files), `servo-fleet
//! sessions list|close` lists and closes the caller's sessions; the gateway
//! and key come from the environment, and failures exit non-zero saying why.
//! A reader that stops reading its output (`| head`) ends it quietly.

use std::process::Stdio;

use serde_json::Value;

use crate::harness::{BIN, Fleet, run_cli_env};

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

    // No gateway there: the reason in one line, not the transport's types
    // or a second report logged by the MCP client.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let nowhere = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let (ok, _, err) = run_cli_env(
        &["sessions", "list"],
        &[("FLEET_GATEWAY_URL", &nowhere), ("FLEET_API_KEY", &key)],
    )
    .await;
    assert!(!ok);
    assert!(
        err.contains(&format!(
            "nothing answers at {nowhere}/mcp: Connection refused"
        )),
        "{err}"
    );
    assert!(!err.contains("rmcp") && !err.contains("Transport"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

/// Runs `servo-fleet args` with its stdout's reader gone before it prints, as
/// `| head -0` leaves it: its exit code and stderr.
async fn cli_unread(env: &[(&str, &str)], args: &[&str]) -> (Option<i32>, String) {
    let mut child = tokio::process::Command::new(BIN)
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().await.unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn output_nobody_reads_ends_quietly_with_the_calls_status_and_a_new_key_is_never_lost() {
    let fleet = Fleet::start(1).await;
    let key = fleet.key("unread").await;
    let env = [
        ("FLEET_GATEWAY_URL", fleet.gateway.as_str()),
        ("FLEET_API_KEY", key.as_str()),
    ];

    // The call runs and exits 0; only its printing stopped.
    let (code, err) = cli_unread(
        &env,
        &[
            "call",
            "servo_navigate",
            "--json",
            r#"{"html": "<title>unread</title>"}"#,
        ],
    )
    .await;
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let (ok, out, err) = cli(&fleet, &key, &["sessions", "list", "--output", "table"]).await;
    assert!(ok, "{err}");
    let id = out
        .lines()
        .find(|l| l.ends_with("unread"))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("the unread call opened no session: {out}"))
        .to_owned();
    let (code, err) = cli_unread(&env, &["sessions", "list", "--output", "table"]).await;
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains("panicked"), "{err}");

    // A failed action still makes the exit status say so.
    let other = fleet.key("other").await;
    let (code, err) = cli_unread(
        &[
            ("FLEET_GATEWAY_URL", fleet.gateway.as_str()),
            ("FLEET_API_KEY", other.as_str()),
        ],
        &[
            "call",
            "servo_inspect",
            "--json",
            &format!(r#"{{"sessionID": "{id}"}}"#),
        ],
    )
    .await;
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("1 of the call's actions failed"), "{err}");

    // A new key nobody saw: the command fails naming the stored key to revoke.
    let db = fleet.db.url.as_str();
    let (code, err) = cli_unread(
        &[],
        &["keys", "create", "--tenant", "unseen", "--database-url", db],
    )
    .await;
    assert_eq!(code, Some(1), "{err}");
    let revoke = "revoke it with `servo-fleet keys revoke ";
    let at = err.find(revoke).unwrap_or_else(|| panic!("{err}"));
    let prefix = err[at + revoke.len()..].split('`').next().unwrap();
    let (ok, listed, err) =
        crate::harness::run_cli(&["keys", "list", "--tenant", "unseen", "--database-url", db])
            .await;
    assert!(ok, "{err}");
    assert!(
        listed.lines().any(|l| l.starts_with(prefix)),
        "{prefix}: {listed}"
    );
    let (ok, _, err) =
        crate::harness::run_cli(&["keys", "revoke", prefix, "--database-url", db]).await;
    assert!(ok, "{err}");
}
