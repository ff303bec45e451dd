//! The load test: many concurrent sessions, each a separate MCP client doing a
//! fixed number of actions through one gateway and two workers on loopback. It
//! reports errors (the goal is none), latency percentiles and worker memory.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use serde::Serialize;
use serde_json::json;

use crate::corpus::{self, PAGES, SMALL};
use crate::fleet::{Fleet, FleetConfig};
use crate::mcp::Mcp;
use crate::procmem;
use crate::stats::{Samples, Summary};

/// What the load test did and saw.
#[derive(Debug, Clone, Serialize)]
pub struct LoadReport {
    /// Concurrent sessions.
    pub sessions: usize,
    /// Actions per session.
    pub actions_per_session: usize,
    /// Actions that failed, and the first few reasons.
    pub errors: u64,
    /// Up to five error messages.
    pub error_samples: Vec<String>,
    /// Latency of each action, milliseconds.
    pub latency_ms: Summary,
    /// The 99th percentile, milliseconds.
    pub p99_ms: f64,
    /// The same per kind of action (the first navigation creates the
    /// session), so a tail can be traced to what made it.
    pub by_action: Vec<ActionLatency>,
    /// Wall time of the whole test, seconds.
    pub wall_secs: f64,
    /// Actions completed per second over the whole test.
    pub actions_per_sec: f64,
    /// Peak of the two workers' summed resident memory, bytes (counts the
    /// engine image's shared copy-on-write pages once per session).
    pub peak_worker_rss: u64,
    /// Peak of the two workers' summed proportional set size, bytes, read
    /// once a second (a peak between two reads is missed).
    pub peak_worker_pss: u64,
}

/// One kind of action's latency in the load test, milliseconds.
#[derive(Debug, Clone, Serialize)]
pub struct ActionLatency {
    /// What the action was.
    pub action: &'static str,
    /// Its latencies.
    pub latency_ms: Summary,
    /// Their 99th percentile.
    pub p99_ms: f64,
}

/// The kinds of action a load-test session makes, in the order reported.
const KINDS: [&str; 5] = [
    "create (inline page)",
    "navigate (corpus page)",
    "evaluate (localStorage write)",
    "inspect",
    "navigate (inline page)",
];

/// How often the workers' RSS is read for the peak.
const SAMPLE_EVERY: Duration = Duration::from_millis(200);
/// Their PSS is read every this many RSS samples (once a second).
const PSS_EVERY: u32 = 5;

/// Runs `sessions` sessions × `actions` actions; bounded by `limit` in time.
pub async fn run(
    config: &FleetConfig,
    sessions: usize,
    actions: usize,
    limit: Duration,
) -> anyhow::Result<LoadReport> {
    let site = corpus::serve().await?;
    let mut config = config.clone();
    // Every session is live at once; leave headroom over an even split.
    config.capacity = config
        .capacity
        .max(u32::try_from(sessions).unwrap_or(u32::MAX));
    eprintln!("bench: load test, starting the fleet");
    let fleet = Fleet::start(&config, 2).await?;

    let workers = fleet.worker_pids();
    let peak = Arc::new(AtomicU64::new(0));
    let peak_pss = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let sampler = {
        let (peak, peak_pss, done) = (peak.clone(), peak_pss.clone(), done.clone());
        tokio::spawn(async move {
            let mut round = 0u32;
            while !done.load(Ordering::Relaxed) {
                peak.fetch_max(procmem::sum_rss(&workers), Ordering::Relaxed);
                // PSS walks every page table of the workers: read every 200 ms
                // it took ≈5 % of the machine's CPU from the fleet under test.
                if round.is_multiple_of(PSS_EVERY) {
                    peak_pss.fetch_max(procmem::sum_pss(&workers), Ordering::Relaxed);
                }
                round = round.wrapping_add(1);
                tokio::time::sleep(SAMPLE_EVERY).await;
            }
        })
    };

    eprintln!("bench: load test, {sessions} sessions × {actions} actions");
    let started = Instant::now();
    let mut tasks = Vec::new();
    for s in 0..sessions {
        let (gateway, key, site) = (fleet.gateway.clone(), fleet.key.clone(), site.clone());
        tasks.push(tokio::spawn(async move {
            session(&gateway, &key, &site, s, actions).await
        }));
    }
    let mut latencies = Samples::new();
    let mut per_kind: Vec<Samples> = KINDS.iter().map(|_| Samples::new()).collect();
    let mut errors = 0u64;
    let mut error_samples = Vec::new();
    let all = async {
        for task in tasks {
            let (times, errs) = task.await.context("a session task panicked")?;
            for (kind, t) in times {
                latencies.push_duration(t);
                per_kind[kind].push_duration(t);
            }
            for e in errs {
                errors += 1;
                if error_samples.len() < 5 {
                    error_samples.push(e);
                }
            }
        }
        anyhow::Ok(())
    };
    tokio::time::timeout(limit, all)
        .await
        .with_context(|| format!("the load test did not finish within {limit:?}"))??;
    let wall = started.elapsed();
    done.store(true, Ordering::Relaxed);
    let _ = sampler.await;
    fleet.stop().await;
    Ok(LoadReport {
        sessions,
        actions_per_session: actions,
        errors,
        error_samples,
        p99_ms: latencies.percentile(99.0).unwrap_or(f64::NAN),
        latency_ms: latencies.summary(),
        by_action: KINDS
            .iter()
            .zip(&per_kind)
            .map(|(action, samples)| ActionLatency {
                action,
                latency_ms: samples.summary(),
                p99_ms: samples.percentile(99.0).unwrap_or(f64::NAN),
            })
            .collect(),
        wall_secs: wall.as_secs_f64(),
        actions_per_sec: latencies.len() as f64 / wall.as_secs_f64(),
        peak_worker_rss: peak.load(Ordering::Relaxed),
        peak_worker_pss: peak_pss.load(Ordering::Relaxed),
    })
}

/// One agent: opens a session, then cycles through navigate (corpus page),
/// evaluate, inspect and navigate (inline page); closes the session at the end.
async fn session(
    gateway: &str,
    key: &str,
    site: &str,
    index: usize,
    actions: usize,
) -> (Vec<(usize, Duration)>, Vec<String>) {
    let (mut times, mut errors) = (Vec::new(), Vec::new());
    let mcp = match Mcp::connect(gateway, key).await {
        Ok(m) => m,
        Err(e) => return (times, vec![format!("{e:#}")]),
    };
    let t = Instant::now();
    let id = match mcp.act("servo_navigate", json!({ "html": SMALL })).await {
        Ok((id, _)) => id,
        Err(e) => return (times, vec![format!("{e:#}")]),
    };
    times.push((0, t.elapsed()));
    for i in 1..actions {
        let kind = 1 + (index + i) % 4;
        let (tool, action) = match kind {
            1 => {
                let (name, _) = PAGES[(index + i) % PAGES.len()];
                (
                    "servo_navigate",
                    json!({ "sessionID": id, "url": format!("{site}/{name}") }),
                )
            }
            2 => (
                "servo_evaluate",
                json!({ "sessionID": id, "script": "localStorage.setItem('n', String(Date.now())); document.title" }),
            ),
            3 => ("servo_inspect", json!({ "sessionID": id })),
            _ => ("servo_navigate", json!({ "sessionID": id, "html": SMALL })),
        };
        let t = Instant::now();
        match mcp.act(tool, action).await {
            Ok(_) => times.push((kind, t.elapsed())),
            Err(e) => errors.push(format!("{e:#}")),
        }
    }
    if let Err(e) = mcp
        .act("servo_session_close", json!({ "sessionID": id }))
        .await
    {
        errors.push(format!("{e:#}"));
    }
    (times, errors)
}
