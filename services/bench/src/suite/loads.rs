//! Page load + text extraction of the synthetic corpus (every page loads
//! `site.js`), two ways:
//! - the whole path: `servo_navigate` through MCP (which returns the page's
//!   text) against CDP `Page.navigate` + `innerText`, each side through its
//!   protocol, in a session (a page) opened before the clock starts;
//! - inside the browser: the engine loading the page in this process, through
//!   the worker's wasmtime host (no gateway, gRPC or checkpoint), against
//!   Chromium's own Navigation Timing (start → end of the `load` event) plus the
//!   time `innerText` takes, measured in the page (no CDP round trips).
//!
//! Each side's text of every page is compared with the other's. The whole
//! path is timed twice: calls back to back, and at an agent's pace.

use std::time::{Duration, Instant};

use anyhow::Context as _;
use serde_json::json;

use super::{Bench, INNER_TEXT, Measured, close, fleet_text, progress, text_check};
use crate::chromium::Page;
use crate::corpus::{PAGES, SMALL};
use crate::mcp::Mcp;
use crate::stats::{Row, Samples, Unit};

/// Navigation Timing and the cost of `innerText`, read inside the page once its
/// `load` event has ended.
const IN_PAGE_TIMING: &str = "new Promise((resolve) => {
  const read = () => {
    const nav = performance.getEntriesByType('navigation')[0];
    if (!nav || nav.loadEventEnd === 0) return setTimeout(read, 0);
    const t = performance.now();
    const text = document.body.innerText;
    resolve({ load: nav.loadEventEnd - nav.startTime, text: performance.now() - t, chars: text.length });
  };
  read();
})";

const WHOLE_PATH: &str = "page load + text, whole path (corpus, scripted)";
const IN_BROWSER: &str = "page load + text, timed inside the browser (corpus, scripted)";

pub(super) async fn corpus_rows(b: &Bench<'_>) -> anyhow::Result<Measured> {
    let rounds = b.sizes.corpus_rounds;
    progress(&format!("load + extract, {} pages ×{rounds}", PAGES.len()));
    let (id, _) = b
        .mcp
        .act("servo_navigate", json!({ "html": SMALL }))
        .await?;
    let context = b.chromium.new_context().await?;
    let page = context.new_page().await?;
    page.set_viewport(1280, 720).await?;
    // One untimed round on each side, just before its timed ones: the session's
    // engine instance builds its per-instance caches (stylesheets, fonts,
    // prelude bytecode) on its first pages, as Chromium's new page fills its
    // caches on its first loads.
    warm_up(b.mcp, &id, b.site).await?;
    let mut ours_text = Vec::new();
    let (mut ours, mut theirs, mut in_page) = (Samples::new(), Samples::new(), Samples::new());
    for round in 0..rounds {
        for (name, _) in PAGES {
            ours.push_duration(navigate_ours(b, &id, name).await?);
            if round == 0 {
                ours_text.push(fleet_text(b.mcp, &id).await?);
            }
        }
    }
    close(b.mcp, &id).await?;
    for (name, _) in PAGES {
        page.navigate(&format!("{}/{name}", b.site)).await?;
    }
    let mut checks = Vec::new();
    for round in 0..rounds {
        for (i, (name, _)) in PAGES.iter().enumerate() {
            let (took, text) = navigate_theirs(b, &page, name).await?;
            theirs.push_duration(took);
            let timing = page.evaluate(IN_PAGE_TIMING).await?;
            in_page.push(
                timing["load"].as_f64().context("no Navigation Timing")?
                    + timing["text"].as_f64().context("no innerText timing")?,
            );
            if round == 0 {
                let ours = ours_text.get(i).map_or("", String::as_str);
                checks.push(text_check(
                    WHOLE_PATH,
                    name,
                    text.as_str().unwrap_or_default(),
                    ours,
                ));
            }
        }
    }
    context.close().await?;
    let engine = engine_samples(b.site, rounds).await?;
    Ok(Measured {
        rows: vec![
            Row::new(WHOLE_PATH, Unit::Millis, &ours, &theirs).with_note(
                "MCP servo_navigate (returns the text) vs CDP Page.navigate + innerText, in an open session / page",
            ),
            Row::new(IN_BROWSER, Unit::Millis, &engine, &in_page).with_note(
                "the engine through the worker's wasmtime host in the bench process (fetch, parse, style, scripts, text, links) vs Chromium's Navigation Timing start → loadEventEnd + innerText, read in the page",
            ),
        ],
        checks,
    })
}

/// An agent's pause between two calls. A language model thinks for seconds;
/// a tenth of one is enough for the work either browser leaves for when it
/// is idle (the fleet's `prepare` after an answer, Chromium's idle tasks), so
/// this row shows what an agent gets, where the whole-path row sends calls
/// back to back.
const AGENT_PAUSE: Duration = Duration::from_millis(100);

const AT_AGENT_PACE: &str =
    "page load + text, whole path at an agent's pace (corpus, 100 ms between calls)";

/// The whole-path row again, with [`AGENT_PAUSE`] before each timed call on
/// both sides. The pages and the calls are the whole-path row's, whose texts
/// are compared.
pub(super) async fn agent_pace_rows(b: &Bench<'_>) -> anyhow::Result<Measured> {
    let rounds = b.sizes.corpus_rounds;
    progress(&format!(
        "load + extract at an agent's pace, {} pages ×{rounds}",
        PAGES.len()
    ));
    let (id, _) = b
        .mcp
        .act("servo_navigate", json!({ "html": SMALL }))
        .await?;
    warm_up(b.mcp, &id, b.site).await?;
    let (mut ours, mut theirs) = (Samples::new(), Samples::new());
    for _ in 0..rounds {
        for (name, _) in PAGES {
            tokio::time::sleep(AGENT_PAUSE).await;
            ours.push_duration(navigate_ours(b, &id, name).await?);
        }
    }
    close(b.mcp, &id).await?;
    let context = b.chromium.new_context().await?;
    let page = context.new_page().await?;
    page.set_viewport(1280, 720).await?;
    for (name, _) in PAGES {
        page.navigate(&format!("{}/{name}", b.site)).await?;
    }
    for _ in 0..rounds {
        for (name, _) in PAGES {
            tokio::time::sleep(AGENT_PAUSE).await;
            theirs.push_duration(navigate_theirs(b, &page, name).await?.0);
        }
    }
    context.close().await?;
    Ok(Measured {
        rows: vec![
            Row::new(AT_AGENT_PACE, Unit::Millis, &ours, &theirs).with_note(
                "as the whole-path row, with 100 ms between calls on both sides (untimed)",
            ),
        ],
        checks: Vec::new(),
    })
}

/// `servo_navigate` (which returns the page's text) of corpus page `name` in
/// session `id`, timed.
async fn navigate_ours(b: &Bench<'_>, id: &str, name: &str) -> anyhow::Result<Duration> {
    let url = format!("{}/{name}", b.site);
    let t = Instant::now();
    b.mcp
        .act("servo_navigate", json!({ "sessionID": id, "url": url }))
        .await?;
    Ok(t.elapsed())
}

/// CDP `Page.navigate` to corpus page `name`, then its `innerText`: how long
/// both took, and the text.
async fn navigate_theirs(
    b: &Bench<'_>,
    page: &Page,
    name: &str,
) -> anyhow::Result<(Duration, serde_json::Value)> {
    let url = format!("{}/{name}", b.site);
    let t = Instant::now();
    page.navigate(&url).await?;
    let text = page.evaluate(INNER_TEXT).await?;
    Ok((t.elapsed(), text))
}

/// Loads every corpus page once, untimed, in session `id`.
pub(super) async fn warm_up(mcp: &Mcp, id: &str, site: &str) -> anyhow::Result<()> {
    for (name, _) in PAGES {
        let url = format!("{site}/{name}");
        mcp.act("servo_navigate", json!({ "sessionID": id, "url": url }))
            .await?;
    }
    Ok(())
}

/// Loads every corpus page `rounds` times in one tab of an in-process engine
/// host (the worker's, with the worker's default compiled-component cache).
async fn engine_samples(site: &str, rounds: usize) -> anyhow::Result<Samples> {
    use fleet_worker::host::{EngineHost, HostConfig, Source, Viewport};
    let policy = fleet_policy::NetPolicy {
        allow_private: vec![
            "127.0.0.0/8"
                .parse()
                .context("parsing the loopback range")?,
        ],
    };
    let fetcher = fleet_worker::net::Fetcher::new(policy, 8 << 20)?;
    let host = EngineHost::new(
        HostConfig {
            capacity: 1,
            memory_cap: 512 << 20,
            cache_dir: fleet_worker::config::default_cache_dir(),
            perf_map: false,
            keep_downloads: false,
        },
        fetcher,
    )?;
    let mut tab = host
        .new_tab(Viewport {
            width: 1280,
            height: 720,
        })
        .await?;
    let budget = Duration::from_secs(10);
    let mut samples = Samples::new();
    // One round to warm the tab, as the other rows warm theirs.
    for (name, _) in PAGES {
        tab.load(Source::Url(format!("{site}/{name}")), budget)
            .await?;
    }
    for _ in 0..rounds {
        for (name, _) in PAGES {
            let t = Instant::now();
            let summary = tab
                .load(Source::Url(format!("{site}/{name}")), budget)
                .await?;
            samples.push_duration(t.elapsed());
            anyhow::ensure!(
                !summary.text.is_empty(),
                "the engine read no text from {name}"
            );
        }
    }
    Ok(samples)
}
