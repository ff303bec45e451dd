//! The bench's load test, run as a user runs it, at a small size: its own
//! fleet (a gateway and two worker processes it starts) serves concurrent MCP
//! sessions without an error. The suite's test, which times both sides, is in
//! [`crate::alone::bench_suite`].

use serde_json::Value;

use crate::harness::{BIN, Database, fresh_redis};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_load_test_serves_concurrent_sessions_without_errors() {
    let db = Database::create().await;
    let (redis_url, _redis, _guard) = fresh_redis().await;
    let out = tokio::process::Command::new(BIN)
        .args(["bench", "--load", "--sessions", "12", "--actions", "6"])
        .args([
            "--json",
            "-",
            "--database-url",
            &db.url,
            "--redis-url",
            &redis_url,
        ])
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "bench --load failed: {stderr}");
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("the report is not JSON ({e}): {stderr}"));
    let load = &report["load"];
    assert_eq!(load["errors"], 0, "{load:#}");
    assert_eq!(load["latency_ms"]["count"], 12 * 6, "{load:#}");
    // The memory figures are the two worker processes': each maps the
    // compiled engine (tens of MiB) and holds live sessions, so their summed
    // RSS is well above 40 MiB (about 210 MiB here); PSS, which shares pages
    // out, is never above RSS.
    let (rss, pss) = (
        load["peak_worker_rss"].as_u64().unwrap(),
        load["peak_worker_pss"].as_u64().unwrap(),
    );
    assert!(rss >= 40 << 20, "{load:#}");
    assert!(pss > 0 && pss <= rss, "{load:#}");
    assert!(report["machine"]["cpus"].as_u64().unwrap() >= 1);
}
