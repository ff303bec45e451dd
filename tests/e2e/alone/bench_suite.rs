//! The bench's suite, run as a user runs it, at a small size: with a few
//! samples per row it runs every row on both sides (the fleet and headless
//! Chromium), the two sides' outputs agree, and `--compare` reads the reports
//! it writes.

use serde_json::Value;

use crate::harness::{BIN, Database, fresh_redis};

/// Every row the suite must have, by name; a row that stops running fails here.
const SUITE_ROWS: &[&str] = &[
    "memory, whole process, 1 sessions on a real page (PSS)",
    "memory, whole process, 2 sessions on a real page (PSS)",
    "memory per added session, 1→2 (PSS)",
    "session create + small scripted page + text, Chromium cold",
    "session create + small scripted page + text, Chromium warm pool",
    "page load + text, whole path (corpus, scripted)",
    "page load + text, whole path at an agent's pace (corpus, 100 ms between calls)",
    "page load + text, timed inside the browser (corpus, scripted)",
    "page load + text, real 30 KB page (scripted)",
    "page load + text, real 300 KB page (scripted)",
    "page load + text, real 1.5 MB page (scripted)",
    "new session + load + text, real-world corpus (each page once)",
    "screenshot 1280×720 PNG",
    "screenshot 1280×720 PNG after a change to the page",
    "throughput, 4 sessions loading the corpus (ms per page)",
    "restore evicted session → first answer, Chromium cold",
    "restore evicted session → first answer, Chromium warm pool",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_suite_runs_every_row_on_both_sides_and_their_outputs_agree() {
    let db = Database::create().await;
    let (redis_url, _redis, _guard) = fresh_redis().await;
    let dir = std::env::temp_dir().join(format!("fleet-bench-suite-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("report.json");
    let pages = super::realworld::pages_dir();
    let out = tokio::process::Command::new(BIN)
        .args(["bench", "--quick", "--samples", "2", "--json"])
        .arg(&json)
        .args(["--database-url", &db.url, "--redis-url", &redis_url])
        .arg("--realworld-dir")
        .arg(&pages)
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "bench failed: {stderr}\n{stdout}");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let suite = &report["suite"];
    let rows = suite["rows"].as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["name"].as_str().unwrap()).collect();
    for name in SUITE_ROWS {
        assert!(names.contains(name), "no row {name:?} in {names:#?}");
    }
    for row in rows {
        for side in ["ours", "chromium"] {
            let median = row[side]["median"].as_f64();
            assert!(
                median.is_some_and(|m| m.is_finite() && m > 0.0),
                "{} has no {side} figure: {row:#}",
                row["name"]
            );
        }
    }
    // Both sides' outputs were compared: the text of the small page, of every
    // corpus page, of each real page and the real-world set, and both
    // screenshot rows' (size and blocks each).
    let checks = suite["checks"].as_array().unwrap();
    assert!(checks.len() >= 1 + 6 + 3 + 1 + 2 + 2, "{checks:#?}");
    assert!(checks.iter().all(|c| c["passed"] == true), "{checks:#?}");
    assert!(stdout.contains("outputs compared"), "{stdout}");
    let fleet_rows = suite["fleet_rows"].as_array().unwrap();
    assert!(
        fleet_rows
            .iter()
            .any(|r| r["name"].as_str().unwrap().starts_with("gateway overhead")),
        "{fleet_rows:#?}"
    );

    // A report compared with itself: every row, unchanged.
    let out = tokio::process::Command::new(BIN)
        .args(["bench", "--compare"])
        .args([&json, &json])
        .output()
        .await
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = text
        .lines()
        .find(|l| l.starts_with("page load + text, real 1.5 MB page"))
        .unwrap_or_else(|| {
            panic!(
                "no 1.5 MB row in the comparison:\n{text}\n{}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
    assert!(line.contains("same"), "{line}");
    assert!(!text.contains("only in"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}
