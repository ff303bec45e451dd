//! The benchmark suite: each row runs the same work through the fleet (an MCP
//! client → gateway → worker → engine, all real processes on loopback) and through
//! headless Chromium over CDP, in the same run, and reports both with their ratio.
//! Rows without a Chromium counterpart (gateway overhead, checkpoint cost) are
//! reported on their own.

use std::time::{Duration, Instant};

use anyhow::Context as _;
use serde::Serialize;
use serde_json::json;

use crate::chromium::{Chromium, LaunchOptions};
use crate::corpus::{self, PAGES, SMALL};
use crate::fleet::{Fleet, FleetConfig};
use crate::mcp::Mcp;
use crate::procmem;
use crate::stats::{Row, Samples, Summary, Unit};

/// What to run.
#[derive(Debug, Clone)]
pub struct SuiteConfig {
    /// Fewer samples and sizes, for a run under two minutes.
    pub quick: bool,
    /// The Chromium executable (`None`: Debian's `/usr/bin/chromium`).
    pub chromium: Option<std::path::PathBuf>,
    /// The fleet's binary and stores.
    pub fleet: FleetConfig,
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

/// Everything a suite run measured.
#[derive(Debug, Clone, Serialize)]
pub struct SuiteReport {
    /// Rows measured on both sides.
    pub rows: Vec<Row>,
    /// Rows measured on the fleet alone.
    pub fleet_rows: Vec<FleetRow>,
    /// Chromium's product string.
    pub chromium_version: String,
}

/// Prints progress to stderr (stdout is for the report).
fn progress(what: &str) {
    eprintln!("bench: {what}");
}

struct Sizes {
    create: usize,
    corpus_rounds: usize,
    screenshots: usize,
    memory: &'static [usize],
    throughput_sessions: usize,
    throughput_secs: u64,
    direct_calls: usize,
    restores: usize,
    checkpoint_calls: usize,
}

impl Sizes {
    fn new(quick: bool) -> Self {
        if quick {
            Sizes {
                create: 20,
                corpus_rounds: 2,
                screenshots: 8,
                memory: &[1, 10],
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
                screenshots: 30,
                memory: &[1, 10, 100],
                throughput_sessions: 8,
                throughput_secs: 10,
                direct_calls: 1000,
                restores: 30,
                checkpoint_calls: 100,
            }
        }
    }
}

/// Runs the suite.
pub async fn run(config: &SuiteConfig) -> anyhow::Result<SuiteReport> {
    let sizes = Sizes::new(config.quick);
    let site = corpus::serve().await?;
    progress("starting the fleet (a gateway and two workers)");
    let fleet = Fleet::start(&config.fleet, 2).await?;
    progress("starting headless Chromium");
    let chromium = Chromium::launch(LaunchOptions {
        binary: config.chromium.clone(),
        ..LaunchOptions::default()
    })
    .await
    .context("headless Chromium could not be started (install Debian's `chromium`)")?;
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

    let mut rows = Vec::new();
    let mut fleet_rows = Vec::new();
    rows.push(create_row(&mcp, &chromium, sizes.create).await?);
    settle(&chromium, baseline).await;
    rows.extend(corpus_rows(&mcp, &chromium, &site, sizes.corpus_rounds).await?);
    settle(&chromium, baseline).await;
    rows.push(screenshot_row(&mcp, &chromium, &site, sizes.screenshots).await?);
    for &n in sizes.memory {
        settle(&chromium, baseline).await;
        rows.push(memory_row(&mcp, &fleet, &chromium, &site, n).await?);
    }
    settle(&chromium, baseline).await;
    rows.push(throughput_row(&fleet, &chromium, &sizes).await?);
    settle(&chromium, baseline).await;
    rows.push(restore_row(&mcp, &fleet, &chromium, &site, sizes.restores).await?);
    settle(&chromium, baseline).await;
    fleet_rows.extend(create_stages(&mcp, &fleet, sizes.create).await?);
    fleet_rows.extend(corpus_stages(&mcp, &fleet, &site, sizes.corpus_rounds).await?);
    fleet_rows.push(gateway_overhead(&mcp, &fleet, sizes.direct_calls).await?);
    fleet_rows.extend(checkpoint_cost(&mcp, &fleet, &site, sizes.checkpoint_calls).await?);

    drop(mcp);
    if let Err(e) = chromium.close().await {
        tracing::warn!(error = %e, "Chromium did not close cleanly");
    }
    fleet.stop().await;
    Ok(SuiteReport {
        rows,
        fleet_rows,
        chromium_version,
    })
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

/// What a fresh Chromium context does before its time is taken.
enum Fresh<'a> {
    /// `setContent` of inline HTML.
    Content(&'a str),
    /// Load a URL, then run a script that writes the session's state back.
    Restore { url: &'a str, script: &'a str },
}

/// Times `n` fresh contexts (context + page + `what`), closing them only after
/// the last is timed so teardown never lands inside a sample.
async fn fresh_contexts(chromium: &Chromium, n: usize, what: Fresh<'_>) -> anyhow::Result<Samples> {
    let mut samples = Samples::new();
    let mut contexts = Vec::new();
    for _ in 0..n {
        let t = Instant::now();
        let context = chromium.new_context().await?;
        let page = context.new_page().await?;
        match what {
            Fresh::Content(html) => page.set_content(html).await?,
            Fresh::Restore { url, script } => {
                page.navigate(url).await?;
                page.evaluate(script).await?;
            }
        }
        samples.push_duration(t.elapsed());
        contexts.push(context);
    }
    for context in contexts {
        context.close().await?;
    }
    Ok(samples)
}

/// Session create + a small inline page: a new tab through the gateway vs a new
/// browser context, page and `setContent`.
async fn create_row(mcp: &Mcp, chromium: &Chromium, n: usize) -> anyhow::Result<Row> {
    progress(&format!("create + first page ×{n}"));
    // One side at a time: Chromium tears contexts down in the background, and
    // that work must not land on the fleet's samples (or the reverse).
    let mut ours = Samples::new();
    let mut ids = Vec::new();
    for _ in 0..n {
        let t = Instant::now();
        ids.push(mcp.act("servo_navigate", json!({ "html": SMALL })).await?.0);
        ours.push_duration(t.elapsed());
    }
    for id in &ids {
        close(mcp, id).await?;
    }
    let theirs = fresh_contexts(chromium, n, Fresh::Content(SMALL)).await?;
    Ok(Row::new(
        "session create + small inline page",
        Unit::Millis,
        &ours,
        &theirs,
    ))
}

async fn close(mcp: &Mcp, id: &str) -> anyhow::Result<()> {
    mcp.act("servo_session_close", json!({ "sessionID": id }))
        .await
        .map(|_| ())
}

/// Load + text extraction of every corpus page: `servo_navigate` (which returns the
/// page's text) vs `Page.navigate` + `innerText`; and the same pages loaded by the
/// engine in this process, through the worker's wasmtime host with no gateway,
/// worker process or checkpoint in between: the engine's own cost per page.
async fn corpus_rows(
    mcp: &Mcp,
    chromium: &Chromium,
    site: &str,
    rounds: usize,
) -> anyhow::Result<Vec<Row>> {
    progress(&format!("load + extract, {} pages ×{rounds}", PAGES.len()));
    let (id, _) = mcp.act("servo_navigate", json!({ "html": SMALL })).await?;
    let context = chromium.new_context().await?;
    let page = context.new_page().await?;
    // One untimed round on each side, just before its timed ones: the session's
    // engine instance builds its per-instance caches (stylesheets, fonts,
    // prelude bytecode) on its first pages, as Chromium's new page fills its
    // caches on its first loads.
    warm_up(mcp, &id, site).await?;
    let (mut ours, mut theirs) = (Samples::new(), Samples::new());
    for _ in 0..rounds {
        for (name, _) in PAGES {
            let url = format!("{site}/{name}");
            let t = Instant::now();
            let (_, out) = mcp
                .act("servo_navigate", json!({ "sessionID": id, "url": url }))
                .await?;
            ours.push_duration(t.elapsed());
            anyhow::ensure!(
                !out["page"]["text"].as_str().unwrap_or_default().is_empty(),
                "the fleet read no text from {name}"
            );
        }
    }
    for (name, _) in PAGES {
        page.navigate(&format!("{site}/{name}")).await?;
    }
    for _ in 0..rounds {
        for (name, _) in PAGES {
            let url = format!("{site}/{name}");
            let t = Instant::now();
            page.navigate(&url).await?;
            let text = page.evaluate("document.body.innerText").await?;
            theirs.push_duration(t.elapsed());
            anyhow::ensure!(
                !text.as_str().unwrap_or_default().is_empty(),
                "Chromium read no text from {name}"
            );
        }
    }
    close(mcp, &id).await?;
    context.close().await?;
    let engine = engine_samples(site, rounds).await?;
    Ok(vec![
        Row::new(
            "page load + text extraction (corpus)",
            Unit::Millis,
            &ours,
            &theirs,
        ),
        Row::new(
            "page load + text extraction, engine in-process (corpus)",
            Unit::Millis,
            &engine,
            &theirs,
        ),
    ])
}

/// Loads every corpus page once, untimed, in session `id`.
async fn warm_up(mcp: &Mcp, id: &str, site: &str) -> anyhow::Result<()> {
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

async fn screenshot_row(
    mcp: &Mcp,
    chromium: &Chromium,
    site: &str,
    n: usize,
) -> anyhow::Result<Row> {
    progress(&format!("screenshot ×{n}"));
    let url = format!("{site}/landing.html");
    let (id, _) = mcp.act("servo_navigate", json!({ "url": url })).await?;
    let context = chromium.new_context().await?;
    let page = context.new_page().await?;
    page.set_viewport(1280, 720).await?;
    page.navigate(&url).await?;
    let (mut ours, mut theirs) = (Samples::new(), Samples::new());
    for _ in 0..n {
        let t = Instant::now();
        mcp.act("servo_screenshot", json!({ "sessionID": id }))
            .await?;
        ours.push_duration(t.elapsed());
    }
    for _ in 0..n {
        let t = Instant::now();
        page.screenshot_png().await?;
        theirs.push_duration(t.elapsed());
    }
    close(mcp, &id).await?;
    context.close().await?;
    Ok(Row::new(
        "screenshot 1280×720 (PNG)",
        Unit::Millis,
        &ours,
        &theirs,
    ))
}

/// Memory per live session with `n` sessions open on the article page: the growth
/// of the two worker processes' PSS vs the growth of Chromium's process tree PSS,
/// divided by `n`.
async fn memory_row(
    mcp: &Mcp,
    fleet: &Fleet,
    chromium: &Chromium,
    site: &str,
    n: usize,
) -> anyhow::Result<Row> {
    progress(&format!("memory with {n} live sessions"));
    let url = format!("{site}/article.html");
    let workers = fleet.worker_pids();
    let before = procmem::sum_pss(&workers);
    let mut ids = Vec::new();
    for _ in 0..n {
        ids.push(mcp.act("servo_navigate", json!({ "url": url })).await?.0);
    }
    let after = procmem::sum_pss(&workers);
    for id in &ids {
        close(mcp, id).await?;
    }

    let before_c = chromium.tree_pss_bytes()?;
    let mut contexts = Vec::new();
    for _ in 0..n {
        let context = chromium.new_context().await?;
        let page = context.new_page().await?;
        page.navigate(&url).await?;
        contexts.push((context, page));
    }
    let after_c = chromium.tree_pss_bytes()?;
    for (context, _page) in contexts {
        context.close().await?;
    }
    let per = |before: u64, after: u64| after.saturating_sub(before) as f64 / n as f64;
    let (mut ours, mut theirs) = (Samples::new(), Samples::new());
    ours.push(per(before, after));
    theirs.push(per(before_c, after_c));
    Ok(Row::new(
        format!("memory per live session, {n} open (PSS)"),
        Unit::Bytes,
        &ours,
        &theirs,
    ))
}

/// Pages per second with N sessions loading the small page concurrently, full path;
/// reported as time per page (wall time × N ÷ pages) so lower is better on both
/// sides, and as pages/s in the row name.
async fn throughput_row(fleet: &Fleet, chromium: &Chromium, sizes: &Sizes) -> anyhow::Result<Row> {
    let n = sizes.throughput_sessions;
    let secs = sizes.throughput_secs;
    progress(&format!(
        "throughput: {n} concurrent sessions for {secs} s each side"
    ));
    let window = Duration::from_secs(secs);

    let mut tasks = Vec::new();
    for _ in 0..n {
        let (gateway, key) = (fleet.gateway.clone(), fleet.key.clone());
        tasks.push(tokio::spawn(async move {
            let mcp = Mcp::connect(&gateway, &key).await?;
            let (id, _) = mcp.act("servo_navigate", json!({ "html": SMALL })).await?;
            let start = Instant::now();
            let mut pages = 0u64;
            while start.elapsed() < window {
                mcp.act("servo_navigate", json!({ "sessionID": id, "html": SMALL }))
                    .await?;
                pages += 1;
            }
            let elapsed = start.elapsed();
            close(&mcp, &id).await?;
            anyhow::Ok((pages, elapsed))
        }));
    }
    let ours_rate = rate(tasks).await?;

    let mut tasks = Vec::new();
    for _ in 0..n {
        let context = chromium.new_context().await?;
        let page = context.new_page().await?;
        tasks.push(tokio::spawn(async move {
            let start = Instant::now();
            let mut pages = 0u64;
            while start.elapsed() < window {
                page.set_content(SMALL).await?;
                page.evaluate("document.body.innerText").await?;
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
    Ok(Row::new(
        format!(
            "throughput, {n} sessions: {ours_rate:.0} vs {theirs_rate:.0} pages/s (ms per page)"
        ),
        Unit::Millis,
        &ours,
        &theirs,
    ))
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

/// Restore of an evicted session (its route dropped, so the next call claims it
/// under a new epoch and rebuilds it from its Postgres checkpoint: cookies,
/// storage, the page reloaded, form fields, scroll) → first answer, vs Chromium
/// restoring the same state into a fresh context (new context and page, navigate,
/// write localStorage back).
async fn restore_row(
    mcp: &Mcp,
    fleet: &Fleet,
    chromium: &Chromium,
    site: &str,
    n: usize,
) -> anyhow::Result<Row> {
    progress(&format!("restore of an evicted session ×{n}"));
    let url = format!("{site}/article.html");
    let write = "for (let i = 0; i < 20; i++) localStorage.setItem('k' + i, 'v'.repeat(100)); 1";
    let mut ids = Vec::new();
    for _ in 0..n {
        let (id, _) = mcp.act("servo_navigate", json!({ "url": url })).await?;
        mcp.act(
            "servo_evaluate",
            json!({ "sessionID": id, "script": write }),
        )
        .await?;
        ids.push(id);
    }
    let mut ours = Samples::new();
    for id in &ids {
        let (_, epoch) = fleet.route(id).await?;
        fleet.forget_route(id).await?;
        let t = Instant::now();
        let (_, out) = mcp.act("servo_inspect", json!({ "sessionID": id })).await?;
        ours.push_duration(t.elapsed());
        anyhow::ensure!(
            fleet.route(id).await?.1 > epoch,
            "the session was not claimed again"
        );
        anyhow::ensure!(out["page"]["url"] == json!(url), "restored the wrong page");
    }
    for id in &ids {
        close(mcp, id).await?;
    }
    let theirs = fresh_contexts(
        chromium,
        n,
        Fresh::Restore {
            url: &url,
            script: write,
        },
    )
    .await?;
    Ok(Row::new(
        "restore evicted session → first answer",
        Unit::Millis,
        &ours,
        &theirs,
    ))
}

/// The gateway's added latency: the same `inspect` through the gateway's gRPC
/// `Browser.Execute` and straight to the owning worker's `Worker.Run`.
async fn gateway_overhead(mcp: &Mcp, fleet: &Fleet, n: usize) -> anyhow::Result<FleetRow> {
    use fleet_proto::v1::{self as pb, browser_client::BrowserClient, worker_client::WorkerClient};
    progress(&format!("gateway overhead ×{n}"));
    let (id, _) = mcp.act("servo_navigate", json!({ "html": SMALL })).await?;
    let (worker_id, epoch) = fleet.route(&id).await?;
    let index: usize = worker_id
        .rsplit('-')
        .next()
        .and_then(|i| i.parse().ok())
        .context("unexpected worker id")?;
    let worker_url = fleet
        .workers
        .get(index)
        .context("unknown worker")?
        .0
        .clone();
    let mut worker = WorkerClient::connect(worker_url).await?;
    let mut gateway = BrowserClient::connect(fleet.gateway.clone()).await?;
    let inspect = pb::Action {
        kind: Some(pb::action::Kind::Inspect(pb::Inspect {})),
        max_duration_ms: 0,
    };
    let bearer: tonic::metadata::MetadataValue<_> = format!("Bearer {}", fleet.key).parse()?;
    let (mut direct, mut via) = (Samples::new(), Samples::new());
    for _ in 0..n {
        let t = Instant::now();
        worker
            .run(pb::RunRequest {
                session_id: id.clone(),
                tenant_id: String::new(),
                epoch,
                create: false,
                viewport: None,
                action: Some(inspect.clone()),
            })
            .await?;
        direct.push_duration(t.elapsed());

        let mut request = tonic::Request::new(pb::ExecuteRequest {
            actions: vec![pb::BrowserAction {
                session_id: id.clone(),
                viewport: None,
                action: Some(inspect.clone()),
            }],
        });
        request
            .metadata_mut()
            .insert("authorization", bearer.clone());
        let t = Instant::now();
        gateway.execute(request).await?;
        via.push_duration(t.elapsed());
    }
    close(mcp, &id).await?;
    let (d, v) = (direct.summary(), via.summary());
    let mut added = Samples::new();
    added.push(v.median - d.median);
    Ok(FleetRow {
        name: "gateway overhead (gRPC inspect via gateway − direct to worker)".into(),
        unit: Unit::Millis,
        summary: added.summary(),
        note: format!(
            "via gateway p50 {:.2} ms, direct p50 {:.2} ms",
            v.median, d.median
        ),
    })
}

/// Checkpoint cost per call, read from the workers' own metrics around two
/// workloads: calls that change one localStorage key, and calls that change nothing.
async fn checkpoint_cost(
    mcp: &Mcp,
    fleet: &Fleet,
    site: &str,
    n: usize,
) -> anyhow::Result<Vec<FleetRow>> {
    progress(&format!("checkpoint cost ×{n}"));
    let (id, _) = mcp
        .act(
            "servo_navigate",
            json!({ "url": format!("{site}/form.html") }),
        )
        .await?;
    let mut rows = Vec::new();
    for (label, script) in [
        (
            "a call that changes one localStorage key",
            "localStorage.setItem('n', String(Math.random())); 1",
        ),
        ("a call that changes nothing", "1"),
    ] {
        let before = Metrics::read(fleet).await?;
        for _ in 0..n {
            mcp.act(
                "servo_evaluate",
                json!({ "sessionID": id, "script": script }),
            )
            .await?;
        }
        let after = Metrics::read(fleet).await?;
        let calls = (after.count - before.count).max(1.0);
        let mut time = Samples::new();
        time.push((after.seconds - before.seconds) / calls * 1000.0);
        rows.push(FleetRow {
            name: format!("checkpoint per call, {label}"),
            unit: Unit::Millis,
            summary: time.summary(),
            note: format!(
                "{:.0} bytes and {:.1} parts written, {:.1} parts unchanged per call (mean of {calls:.0})",
                (after.bytes - before.bytes) / calls,
                (after.written - before.written) / calls,
                (after.unchanged - before.unchanged) / calls,
            ),
        });
    }
    close(mcp, &id).await?;
    Ok(rows)
}

/// Counters and histogram sums read from every service's `/metrics`.
#[derive(Default)]
struct Metrics {
    /// Gateway: calls and seconds spent answering them.
    calls: f64,
    call_seconds: f64,
    /// Workers: runs and seconds, checkpoint count, seconds, bytes and parts.
    runs: f64,
    run_seconds: f64,
    count: f64,
    seconds: f64,
    bytes: f64,
    written: f64,
    unchanged: f64,
}

impl Metrics {
    async fn read(fleet: &Fleet) -> anyhow::Result<Metrics> {
        let http = reqwest::Client::new();
        let scrape = |base: String| {
            let http = http.clone();
            async move {
                anyhow::Ok(
                    http.get(format!("{base}/metrics"))
                        .send()
                        .await?
                        .text()
                        .await?,
                )
            }
        };
        let mut c = Metrics::default();
        let text = scrape(fleet.gateway.clone()).await?;
        c.calls = metric(&text, "fleet_gateway_call_seconds_count");
        c.call_seconds = metric(&text, "fleet_gateway_call_seconds_sum");
        for (base, _) in &fleet.workers {
            let text = scrape(base.clone()).await?;
            c.runs += metric(&text, "fleet_worker_run_seconds_count");
            c.run_seconds += metric(&text, "fleet_worker_run_seconds_sum");
            c.count += metric(&text, "fleet_worker_checkpoint_seconds_count");
            c.seconds += metric(&text, "fleet_worker_checkpoint_seconds_sum");
            c.bytes += metric(&text, "fleet_worker_checkpoint_bytes_total");
            c.written += metric(&text, "fleet_worker_checkpoint_parts_written_total");
            c.unchanged += metric(&text, "fleet_worker_checkpoint_parts_unchanged_total");
        }
        Ok(c)
    }
}

/// Where the time of a session create + first page goes: the client's view, the
/// gateway's own time to answer, the worker's run, and the checkpoint inside it,
/// as means over `n` creates (from the services' own histograms).
async fn create_stages(mcp: &Mcp, fleet: &Fleet, n: usize) -> anyhow::Result<Vec<FleetRow>> {
    progress(&format!("where a session create goes ×{n}"));
    let before = Metrics::read(fleet).await?;
    let mut client = Samples::new();
    let mut ids = Vec::new();
    for _ in 0..n {
        let t = Instant::now();
        ids.push(mcp.act("servo_navigate", json!({ "html": SMALL })).await?.0);
        client.push_duration(t.elapsed());
    }
    let after = Metrics::read(fleet).await?;
    for id in &ids {
        close(mcp, id).await?;
    }
    Ok(stage_rows(
        "session create",
        &client,
        &before,
        &after,
        [
            "auth, validation, session row insert, route claim, gRPC to the worker",
            "route check, instantiate, parse/style/layout/scripts, text",
            "snapshot and the Postgres transaction writing every part of a new session",
        ],
    ))
}

/// Where the time of a corpus page load in an open, warmed session goes, split
/// as [`create_stages`] splits a create, as means over `rounds` passes of the
/// corpus.
async fn corpus_stages(
    mcp: &Mcp,
    fleet: &Fleet,
    site: &str,
    rounds: usize,
) -> anyhow::Result<Vec<FleetRow>> {
    progress(&format!("where a corpus page load goes ×{rounds}"));
    let (id, _) = mcp.act("servo_navigate", json!({ "html": SMALL })).await?;
    warm_up(mcp, &id, site).await?;
    let before = Metrics::read(fleet).await?;
    let mut client = Samples::new();
    for _ in 0..rounds {
        for (name, _) in PAGES {
            let t = Instant::now();
            mcp.act(
                "servo_navigate",
                json!({ "sessionID": id, "url": format!("{site}/{name}") }),
            )
            .await?;
            client.push_duration(t.elapsed());
        }
    }
    let after = Metrics::read(fleet).await?;
    close(mcp, &id).await?;
    Ok(stage_rows(
        "corpus page load",
        &client,
        &before,
        &after,
        [
            "auth, validation, session row read, route read, gRPC to the worker",
            "route check, fetch, parse/style/layout/scripts, text and links",
            "snapshot and the Postgres transaction writing the changed parts",
        ],
    ))
}

/// The stage rows of calls timed by the client (`client`) between two metric
/// readings; `notes` say what the gateway, the worker and the checkpoint did.
fn stage_rows(
    what: &str,
    client: &Samples,
    before: &Metrics,
    after: &Metrics,
    [gateway_note, worker_note, checkpoint_note]: [&str; 3],
) -> Vec<FleetRow> {
    let mean = |sum: f64, count: f64| sum / count.max(1.0) * 1000.0;
    let gateway = mean(
        after.call_seconds - before.call_seconds,
        after.calls - before.calls,
    );
    let worker = mean(
        after.run_seconds - before.run_seconds,
        after.runs - before.runs,
    );
    let checkpoint = mean(after.seconds - before.seconds, after.count - before.count);
    let client = client.mean().unwrap_or(f64::NAN);
    let row = |name: &str, ms: f64, note: &str| {
        let mut s = Samples::new();
        s.push(ms);
        FleetRow {
            name: format!("{what}: {name}"),
            unit: Unit::Millis,
            summary: s.summary(),
            note: note.to_owned(),
        }
    };
    vec![
        row(
            "whole call, client's view (mean)",
            client,
            "MCP over HTTP, as an agent sees it",
        ),
        row(
            "MCP/HTTP and the client",
            client - gateway,
            "client time minus the gateway's own time to answer",
        ),
        row("gateway", gateway - worker, gateway_note),
        row(
            "worker before the checkpoint",
            worker - checkpoint,
            worker_note,
        ),
        row("worker checkpoint", checkpoint, checkpoint_note),
    ]
}

/// The value of an unlabelled metric in Prometheus text, 0 when absent.
fn metric(text: &str, name: &str) -> f64 {
    text.lines()
        .filter_map(|line| line.strip_prefix(name))
        .filter_map(|rest| rest.strip_prefix(' '))
        .filter_map(|v| v.trim().parse::<f64>().ok())
        .sum()
}
