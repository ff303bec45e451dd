//! The benchmark suite: each row runs the same work through the fleet (an MCP
//! client → gateway → worker → engine, all real processes on loopback) and
//! through headless Chromium over CDP, in the same run, and reports both with
//! their ratio. What makes a row honest:
//! - like for like: both sides through their protocols, or both timed inside
//!   the browser ([`loads`]); Chromium's creates and restores are measured both
//!   cold and from a warm pool of pages ([`create`]);
//! - every page runs scripts (the corpus pages load `site.js`, the real pages
//!   are the scripted pages of the real-world corpus) unless a row says otherwise;
//! - outputs are compared ([`Check`]): text F1 between the two sides, screenshot
//!   sizes and blocks, so faster cannot mean less work;
//! - memory is whole-process PSS of a fresh worker against a fresh Chromium's
//!   process tree ([`memory`]);
//! - what scripts pay to cross into the DOM is timed inside the page on both
//!   sides ([`crossing`]).
//!
//! Rows without a Chromium counterpart (gateway overhead, checkpoint cost, where
//! a call's time goes) are in [`stages`].

mod create;
mod crossing;
mod loads;
mod memory;
mod realpages;
mod shots;
mod stages;
mod throughput;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use serde::Serialize;
use serde_json::json;

use crate::chromium::{Chromium, LaunchOptions};
use crate::corpus::{self, SMALL};
use crate::fidelity::text_f1;
use crate::fleet::{Fleet, FleetConfig};
use crate::mcp::Mcp;
use crate::stats::{Row, Summary, Unit};

pub use realpages::RealPages;

/// What to run.
#[derive(Debug, Clone)]
pub struct SuiteConfig {
    /// Fewer samples and sizes, for a run of a few minutes.
    pub quick: bool,
    /// At most this many samples per row (for checking the bench itself: its
    /// figures mean little).
    pub samples: Option<usize>,
    /// The Chromium executable (`None`: Debian's `/usr/bin/chromium`).
    pub chromium: Option<PathBuf>,
    /// The fleet's binary and stores.
    pub fleet: FleetConfig,
    /// Where `scripts/realworld.sh` installed the real-world pages.
    pub realworld_dir: PathBuf,
}

/// A figure measured on the fleet alone.
#[derive(Debug, Clone, Serialize)]
pub struct FleetRow {
    /// What was measured.
    pub name: String,
    /// Its unit.
    pub unit: Unit,
    /// The figures.
    pub summary: Summary,
    /// What it is compared with, in words.
    pub note: String,
}

/// One comparison of the two sides' outputs.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    /// The row whose outputs were compared.
    pub row: String,
    /// What was compared.
    pub what: String,
    /// Whether the outputs agree well enough.
    pub passed: bool,
    /// The figures behind the verdict.
    pub detail: String,
}

/// Everything a suite run measured.
#[derive(Debug, Clone, Serialize)]
pub struct SuiteReport {
    /// Rows measured on both sides.
    pub rows: Vec<Row>,
    /// Rows measured on the fleet alone.
    pub fleet_rows: Vec<FleetRow>,
    /// How the two sides' outputs compared.
    pub checks: Vec<Check>,
    /// Chromium's product string.
    pub chromium_version: String,
}

impl SuiteReport {
    /// The checks that failed.
    pub fn failed_checks(&self) -> Vec<&Check> {
        self.checks.iter().filter(|c| !c.passed).collect()
    }
}

/// The least text F1 between the two sides' reading of one page for the row to
/// count: the same words, give or take what the two renderers break differently.
pub const MIN_TEXT_F1: f64 = 0.9;

/// A text-agreement [`Check`] of one page.
fn text_check(row: &str, page: &str, chromium: &str, ours: &str) -> Check {
    let score = text_f1(chromium, ours);
    Check {
        row: row.to_owned(),
        what: format!("text of {page}"),
        passed: score.f1 >= MIN_TEXT_F1,
        detail: format!(
            "F1 {:.3} ({} vs {} chars)",
            score.f1,
            ours.chars().count(),
            chromium.chars().count()
        ),
    }
}

/// Prints progress to stderr (stdout is for the report).
fn progress(what: &str) {
    eprintln!("bench: {what}");
}

/// How many samples each row takes.
struct Sizes {
    create: usize,
    corpus_rounds: usize,
    real_rounds: usize,
    /// Runs of the JS → DOM crossing script on each side.
    crossing_rounds: usize,
    /// Read the whole real-world corpus, not only the pages `make test` checks.
    whole_realworld: bool,
    screenshots: usize,
    memory: Vec<usize>,
    throughput_sessions: usize,
    throughput_secs: u64,
    direct_calls: usize,
    restores: usize,
    checkpoint_calls: usize,
}

impl Sizes {
    fn new(quick: bool, samples: Option<usize>) -> Self {
        let mut sizes = if quick {
            Sizes {
                create: 20,
                corpus_rounds: 2,
                real_rounds: 3,
                crossing_rounds: 3,
                whole_realworld: false,
                screenshots: 8,
                memory: vec![1, 10],
                throughput_sessions: 4,
                throughput_secs: 3,
                direct_calls: 100,
                restores: 8,
                checkpoint_calls: 20,
            }
        } else {
            Sizes {
                create: 100,
                corpus_rounds: 10,
                real_rounds: 10,
                crossing_rounds: 10,
                whole_realworld: true,
                screenshots: 30,
                memory: vec![1, 10, 50],
                throughput_sessions: 8,
                throughput_secs: 10,
                direct_calls: 1000,
                restores: 30,
                checkpoint_calls: 100,
            }
        };
        if let Some(n) = samples {
            let n = n.max(1);
            for count in [
                &mut sizes.create,
                &mut sizes.screenshots,
                &mut sizes.direct_calls,
                &mut sizes.restores,
                &mut sizes.checkpoint_calls,
            ] {
                *count = (*count).min(n);
            }
            sizes.corpus_rounds = 1;
            sizes.real_rounds = 1;
            sizes.crossing_rounds = 1;
            sizes.whole_realworld = false;
            sizes.throughput_secs = 1;
            sizes.memory = vec![1, 2];
        }
        sizes
    }
}

/// What every row works with.
struct Bench<'a> {
    mcp: &'a Mcp,
    fleet: &'a Fleet,
    chromium: &'a Chromium,
    /// The corpus site's base URL.
    site: &'a str,
    real: &'a RealPages,
    sizes: &'a Sizes,
    /// Chromium's process count with no page open.
    baseline: usize,
}

impl Bench<'_> {
    /// Waits for Chromium's closed pages to be gone (see [`settle`]).
    async fn settle(&self) {
        settle(self.chromium, self.baseline).await;
    }
}

/// Runs the suite.
pub async fn run(config: &SuiteConfig) -> anyhow::Result<SuiteReport> {
    let sizes = Sizes::new(config.quick, config.samples);
    let site = corpus::serve().await?;
    let real = RealPages::open(&config.realworld_dir, sizes.whole_realworld).await?;
    let launch = || {
        Chromium::launch(LaunchOptions {
            binary: config.chromium.clone(),
            extra_args: vec!["--hide-scrollbars".into()],
            ..LaunchOptions::default()
        })
    };
    let mut rows = Vec::new();
    let mut checks = Vec::new();

    // Memory first, from processes that have done nothing else.
    rows.extend(memory::rows(&config.fleet, &launch, &real, &sizes.memory).await?);

    progress("starting the fleet (a gateway and two workers)");
    let fleet = Fleet::start(&config.fleet, 2).await?;
    progress("starting headless Chromium");
    let chromium = launch()
        .await
        .context("headless Chromium could not be started (scripts/chromium.sh installs it)")?;
    let chromium_version = chromium.version().await?["product"]
        .as_str()
        .unwrap_or("unknown")
        .to_owned();
    let mcp = Mcp::connect(&fleet.gateway, &fleet.key).await?;

    // Untimed warm-up on both sides: connection pools, page cache, the first
    // renderer process.
    progress("warming up");
    for _ in 0..5 {
        let (id, _) = mcp.act("servo_navigate", json!({ "html": SMALL })).await?;
        close(&mcp, &id).await?;
        let context = chromium.new_context().await?;
        context.new_page().await?.set_content(SMALL).await?;
        context.close().await?;
    }
    let baseline = settle(&chromium, usize::MAX).await;
    let b = Bench {
        mcp: &mcp,
        fleet: &fleet,
        chromium: &chromium,
        site: &site,
        real: &real,
        sizes: &sizes,
        baseline,
    };

    let mut fleet_rows = Vec::new();
    // Each step after Chromium has let go of the previous one's pages.
    let mut record = |measured: Measured| {
        rows.extend(measured.rows);
        checks.extend(measured.checks);
    };
    b.settle().await;
    record(create::create_rows(&b).await?);
    b.settle().await;
    record(loads::corpus_rows(&b).await?);
    b.settle().await;
    record(loads::agent_pace_rows(&b).await?);
    b.settle().await;
    record(realpages::sized_rows(&b).await?);
    b.settle().await;
    record(crossing::crossing_rows(&b).await?);
    b.settle().await;
    record(realpages::corpus_row(&b).await?);
    b.settle().await;
    record(shots::screenshot_row(&b).await?);
    b.settle().await;
    record(throughput::throughput_row(&b).await?);
    b.settle().await;
    record(create::restore_rows(&b).await?);
    b.settle().await;
    fleet_rows.extend(stages::create_stages(&mcp, &fleet, sizes.create).await?);
    fleet_rows.extend(stages::corpus_stages(&mcp, &fleet, &site, sizes.corpus_rounds).await?);
    fleet_rows.extend(stages::screenshot_stages(&mcp, &fleet, &site, sizes.screenshots).await?);
    fleet_rows.push(stages::gateway_overhead(&mcp, &fleet, sizes.direct_calls).await?);
    fleet_rows.extend(stages::checkpoint_cost(&mcp, &fleet, &site, sizes.checkpoint_calls).await?);

    drop(mcp);
    if let Err(e) = chromium.close().await {
        tracing::warn!(error = %e, "Chromium did not close cleanly");
    }
    fleet.stop().await;
    Ok(SuiteReport {
        rows,
        fleet_rows,
        checks,
        chromium_version,
    })
}

/// What one step measured: its rows and the comparisons of its outputs.
#[derive(Default)]
struct Measured {
    rows: Vec<Row>,
    checks: Vec<Check>,
}

/// Waits (up to 10 s) until Chromium has no more processes than `baseline`, so
/// renderers of closed contexts are not still exiting, on the same two cores,
/// while the fleet is measured. Returns the process count it settled at.
async fn settle(chromium: &Chromium, baseline: usize) -> usize {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut last = usize::MAX;
    loop {
        let count = chromium.process_tree_pids().map_or(0, |p| p.len());
        // With no baseline yet, settle when the count stops changing.
        let settled = if baseline == usize::MAX {
            count == last
        } else {
            count <= baseline
        };
        if settled || Instant::now() > deadline {
            return count;
        }
        last = count;
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

async fn close(mcp: &Mcp, id: &str) -> anyhow::Result<()> {
    mcp.act("servo_session_close", json!({ "sessionID": id }))
        .await
        .map(|_| ())
}

/// The expression both sides read a page's whole text with.
const INNER_TEXT: &str = "document.body.innerText";

/// Session `id`'s whole text, read untimed for a [`Check`]: a navigation's
/// result carries a summary of the text (capped), not all of it.
async fn fleet_text(mcp: &Mcp, id: &str) -> anyhow::Result<String> {
    let (_, out) = mcp
        .act(
            "servo_evaluate",
            json!({ "sessionID": id, "script": INNER_TEXT }),
        )
        .await?;
    Ok(out["value"].as_str().unwrap_or_default().to_owned())
}
