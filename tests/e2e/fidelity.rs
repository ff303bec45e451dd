//! Engine fidelity through the whole fleet: every page of `tests/corpus/pages`,
//! served from loopback by the corpus server, is loaded in a fresh session with
//! `servo_navigate` and read with `tests/corpus/extract.js` through
//! `servo_evaluate`, and what the engine read must match what headless Chromium
//! read (the goldens in `tests/corpus/golden/`, written by `scripts/goldens.sh`):
//! equal titles, JS values and links, a visible-text token F1 of at least 0.95,
//! and boxes within 2 px. Every page is checked before the test fails, and the
//! failure prints each page's differences, field by field.

use std::path::Path;

use fleet_bench::fidelity::{self, Corpus, Extraction, PageReport, VIEWPORT, compare};
use serde_json::json;

use crate::harness::{Client, Fleet, call, first};

/// The most an action may take: the extraction waits up to 5 s for a page's
/// values, so this leaves room around it.
const MAX_DURATION_MS: u64 = 15_000;

/// Loads and extracts one page in a fresh session, then closes the session.
async fn check_page(
    client: &Client,
    corpus: &Corpus,
    server: &fidelity::CorpusServer,
    script: &str,
    page: &str,
) -> PageReport {
    let golden = match corpus.read_golden(page) {
        Ok(golden) => golden,
        Err(e) => {
            return PageReport::failed(page, "golden", "a golden file", &format!("{e:#}"));
        }
    };
    let (out, _) = call(
        client,
        "servo_navigate",
        json!({"actions": [{
            "url": server.url(page),
            "width": VIEWPORT.0,
            "height": VIEWPORT.1,
            "maxDurationMs": MAX_DURATION_MS,
        }]}),
    )
    .await;
    let navigated = first(&out);
    let Some(id) = navigated["sessionID"].as_str().map(str::to_owned) else {
        return PageReport::failed(page, "navigate", "a session", &out.to_string());
    };
    let mut report = if navigated["ok"] != true {
        PageReport::failed(page, "navigate", "the page loads", &navigated.to_string())
    } else {
        let (out, _) = call(
            client,
            "servo_evaluate",
            json!({"actions": [{"sessionID": id, "script": script, "maxDurationMs": MAX_DURATION_MS}]}),
        )
        .await;
        let evaluated = first(&out);
        if evaluated["ok"] != true {
            PageReport::failed(
                page,
                "extraction",
                "extract.js returns the page's extraction",
                &format!("{} ({})", evaluated["error"], evaluated["code"]),
            )
        } else {
            match Extraction::from_json(evaluated["response"]["value"].clone(), &server.origins) {
                Ok(got) => PageReport::compare(page, &golden.extraction, &got),
                Err(e) => PageReport::failed(
                    page,
                    "extraction",
                    "{title, text, links, values, boxes}",
                    &format!("{e:#}"),
                ),
            }
        }
    };
    if let Some(error) = navigated["response"]["page"]["loadError"].as_str() {
        report.push("loadError", "(none)".into(), error.to_owned());
    }
    match corpus.source_hash(page) {
        Ok(hash) if hash == golden.source_sha256 => {}
        Ok(hash) => report.push(
            "golden",
            format!(
                "sources hashed {} when the golden was written",
                golden.source_sha256
            ),
            format!("sources now hash {hash}: the golden is stale, run scripts/goldens.sh"),
        ),
        Err(e) => report.push("golden", "readable page sources".into(), format!("{e:#}")),
    }
    let (out, _) = call(
        client,
        "servo_session_close",
        json!({"actions": [{"sessionID": id}]}),
    )
    .await;
    assert_eq!(first(&out)["ok"], true, "closing a session failed: {out:#}");
    report
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn corpus_pages_match_chromium_goldens() {
    let corpus = Corpus::open(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")).unwrap();
    let pages = corpus.pages().unwrap();
    assert!(pages.len() >= 10, "the corpus has too few pages: {pages:?}");
    let script = corpus.extraction_script().unwrap();
    let server = fidelity::serve(corpus.pages_dir()).await.unwrap();
    let fleet = Fleet::start(2).await;
    let client = fleet.client("fidelity").await;

    let mut reports = Vec::new();
    for page in &pages {
        reports.push(check_page(&client, &corpus, &server, &script, page).await);
    }

    let failing: Vec<&PageReport> = reports.iter().filter(|r| !r.passed()).collect();
    let mut text = format!(
        "engine vs Chromium on {} corpus pages (title and values equal, links equal, text F1 ≥ {}, boxes ±{} px)\n\n{}",
        reports.len(),
        compare::MIN_TEXT_F1,
        compare::BOX_TOLERANCE_PX,
        compare::summary_table(&reports)
    );
    for report in &failing {
        text.push('\n');
        text.push_str(&report.render());
    }
    println!("{text}");
    let failing_pages: Vec<&str> = failing.iter().map(|r| r.page.as_str()).collect();
    assert!(
        failing.is_empty(),
        "{} of {} corpus pages differ from Chromium: {} (the report is above)",
        failing.len(),
        reports.len(),
        failing_pages.join(", ")
    );
}
