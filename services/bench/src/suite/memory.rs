//! Memory as a user measures it: the whole-process proportional set size (PSS)
//! of a fresh worker process holding N sessions, against a fresh headless
//! Chromium's whole process tree holding N pages (each in its own context, as
//! sessions are isolated), all on the same real page. Both sides start from
//! processes that have done nothing else, so nothing earlier rows warmed is
//! hidden, and each is read right after its last page loaded. The marginal row
//! is the growth per session between the smallest and the largest count.

use std::future::Future;

use anyhow::Context as _;
use serde_json::json;

use super::{RealPages, progress};
use crate::chromium::Chromium;
use crate::fleet::{Fleet, FleetConfig};
use crate::mcp::Mcp;
use crate::procmem;
use crate::stats::{Row, Samples, Unit};

/// PSS with each of `counts` sessions open, after the idle process's; and
/// the anonymous part of it at each count, which the per-session figure is
/// read from: other processes mapping the same files (the other workers of a
/// machine, other Chromiums) move the whole PSS up or down between two
/// readings, but not the anonymous part.
struct Curve {
    idle: u64,
    at: Vec<u64>,
    anon_at: Vec<u64>,
}

pub(super) async fn rows<F, Fut>(
    config: &FleetConfig,
    launch: &F,
    real: &RealPages,
    counts: &[usize],
) -> anyhow::Result<Vec<Row>>
where
    F: Fn() -> Fut,
    Fut: Future<Output = anyhow::Result<Chromium>>,
{
    let url = real.memory_page();
    progress(&format!("memory: a fresh worker with {counts:?} sessions"));
    let ours = fleet_curve(config, url, counts).await?;
    progress(&format!("memory: a fresh Chromium with {counts:?} pages"));
    let theirs = chromium_curve(launch, url, counts).await?;
    let page = url.splitn(4, '/').nth(3).unwrap_or(url);
    let mut rows = Vec::new();
    for (i, &n) in counts.iter().enumerate() {
        let (mut a, mut c) = (Samples::new(), Samples::new());
        a.push(ours.at[i] as f64);
        c.push(theirs.at[i] as f64);
        let mut row = Row::new(
            format!("memory, whole process, {n} sessions on a real page (PSS)"),
            Unit::Bytes,
            &a,
            &c,
        );
        if i == 0 {
            row = row.with_note(format!(
                "{page}; a fresh worker process vs a fresh Chromium's process tree; idle {:.1} vs {:.1} MiB",
                mib(ours.idle),
                mib(theirs.idle)
            ));
        }
        rows.push(row);
    }
    if let (Some(&first), Some(&last)) = (counts.first(), counts.last())
        && last > first
    {
        let per = |curve: &Curve| {
            let (lo, hi) = (curve.anon_at[0], curve.anon_at[curve.anon_at.len() - 1]);
            hi.saturating_sub(lo) as f64 / (last - first) as f64
        };
        let (mut a, mut c) = (Samples::new(), Samples::new());
        a.push(per(&ours));
        c.push(per(&theirs));
        rows.push(
            Row::new(
                format!("memory per added session, {first}→{last} (PSS)"),
                Unit::Bytes,
                &a,
                &c,
            )
            .with_note("growth of the anonymous PSS (Pss_Anon): heaps and linear memories, which other processes mapping the same files do not move"),
        );
    }
    Ok(rows)
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / 1024.0 / 1024.0
}

async fn fleet_curve(config: &FleetConfig, url: &str, counts: &[usize]) -> anyhow::Result<Curve> {
    let fleet = Fleet::start(config, 1).await?;
    let measured = async {
        let mcp = Mcp::connect(&fleet.gateway, &fleet.key).await?;
        let pid = *fleet
            .worker_pids()
            .first()
            .context("the fleet has no worker")?;
        let idle = procmem::pss_bytes(pid)?;
        let mut ids = Vec::new();
        let (mut at, mut anon_at) = (Vec::new(), Vec::new());
        for &n in counts {
            while ids.len() < n {
                ids.push(mcp.act("servo_navigate", json!({ "url": url })).await?.0);
            }
            at.push(procmem::pss_bytes(pid)?);
            anon_at.push(procmem::pss_anon_bytes(pid)?);
        }
        for id in &ids {
            super::close(&mcp, id).await?;
        }
        anyhow::Ok(Curve { idle, at, anon_at })
    }
    .await;
    fleet.stop().await;
    measured
}

async fn chromium_curve<F, Fut>(launch: &F, url: &str, counts: &[usize]) -> anyhow::Result<Curve>
where
    F: Fn() -> Fut,
    Fut: Future<Output = anyhow::Result<Chromium>>,
{
    let chromium = launch()
        .await
        .context("headless Chromium could not be started (scripts/chromium.sh installs it)")?;
    let measured = async {
        super::settle(&chromium, usize::MAX).await;
        let idle = chromium.tree_pss_bytes()?;
        let mut open = Vec::new();
        let (mut at, mut anon_at) = (Vec::new(), Vec::new());
        for &n in counts {
            while open.len() < n {
                let context = chromium.new_context().await?;
                let page = context.new_page().await?;
                page.set_viewport(1280, 720).await?;
                page.navigate(url).await?;
                open.push((context, page));
            }
            at.push(chromium.tree_pss_bytes()?);
            anon_at.push(chromium.tree_pss_anon_bytes()?);
        }
        anyhow::Ok(Curve { idle, at, anon_at })
    }
    .await;
    if let Err(e) = chromium.close().await {
        tracing::warn!(error = %e, "Chromium did not close cleanly");
    }
    measured
}
