//! Throughput: N sessions (each its own MCP client) load the corpus pages in
//! turn for a fixed time, against N Chromium pages doing the same over CDP.
//! Every load runs `site.js`, which counts the visit in localStorage, so each
//! of the fleet's calls writes a checkpoint, as an agent's calls do.

use std::time::{Duration, Instant};

use anyhow::Context as _;
use serde_json::json;

use super::{Bench, INNER_TEXT, Measured, close, progress};
use crate::corpus::{PAGES, SMALL};
use crate::mcp::Mcp;
use crate::stats::{Row, Samples, Unit};

pub(super) async fn throughput_row(b: &Bench<'_>) -> anyhow::Result<Measured> {
    let n = b.sizes.throughput_sessions;
    let secs = b.sizes.throughput_secs;
    progress(&format!(
        "throughput: {n} concurrent sessions for {secs} s each side"
    ));
    let window = Duration::from_secs(secs);
    let urls: Vec<String> = PAGES
        .iter()
        .map(|(name, _)| format!("{}/{name}", b.site))
        .collect();

    let mut tasks = Vec::new();
    for _ in 0..n {
        let (gateway, key) = (b.fleet.gateway.clone(), b.fleet.key.clone());
        let urls = urls.clone();
        tasks.push(tokio::spawn(async move {
            let mcp = Mcp::connect(&gateway, &key).await?;
            let (id, _) = mcp.act("servo_navigate", json!({ "html": SMALL })).await?;
            let start = Instant::now();
            let mut pages = 0u64;
            for url in urls.iter().cycle() {
                if start.elapsed() >= window {
                    break;
                }
                mcp.act("servo_navigate", json!({ "sessionID": id, "url": url }))
                    .await?;
                pages += 1;
            }
            let elapsed = start.elapsed();
            close(&mcp, &id).await?;
            anyhow::Ok((pages, elapsed))
        }));
    }
    let ours_rate = rate(tasks).await?;
    b.settle().await;

    let mut tasks = Vec::new();
    for _ in 0..n {
        let context = b.chromium.new_context().await?;
        let page = context.new_page().await?;
        let urls = urls.clone();
        tasks.push(tokio::spawn(async move {
            let start = Instant::now();
            let mut pages = 0u64;
            for url in urls.iter().cycle() {
                if start.elapsed() >= window {
                    break;
                }
                page.navigate(url).await?;
                page.evaluate(INNER_TEXT).await?;
                pages += 1;
            }
            let elapsed = start.elapsed();
            context.close().await?;
            anyhow::Ok((pages, elapsed))
        }));
    }
    let theirs_rate = rate(tasks).await?;
    // As time per page so the ratio reads "× faster" like the other rows.
    let (mut ours, mut theirs) = (Samples::new(), Samples::new());
    ours.push(1000.0 / ours_rate);
    theirs.push(1000.0 / theirs_rate);
    Ok(Measured {
        rows: vec![
            Row::new(
                format!("throughput, {n} sessions loading the corpus (ms per page)"),
                Unit::Millis,
                &ours,
                &theirs,
            )
            .with_note(format!(
                "{ours_rate:.0} vs {theirs_rate:.0} pages/s; every load writes localStorage, so every call checkpoints"
            )),
        ],
        checks: Vec::new(),
    })
}

/// Sums the page rates of spawned session loops.
async fn rate(
    tasks: Vec<tokio::task::JoinHandle<anyhow::Result<(u64, Duration)>>>,
) -> anyhow::Result<f64> {
    let mut total = 0.0;
    for task in tasks {
        let (pages, elapsed) = task.await.context("a session loop panicked")??;
        total += pages as f64 / elapsed.as_secs_f64();
    }
    Ok(total)
}
