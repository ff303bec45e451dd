//! Rows measured on the fleet alone, because Chromium has no counterpart: the
//! gateway's added latency, what a checkpoint costs a call, and where the time
//! of one call (a create, a page load, a screenshot) goes (MCP/HTTP, gateway,
//! worker, checkpoint), read from the services' own metrics around the calls.

use std::time::Instant;

use anyhow::Context as _;
use serde_json::json;

use super::loads::warm_up;
use super::{FleetRow, close, progress};
use crate::corpus::{PAGES, SMALL};
use crate::fleet::Fleet;
use crate::mcp::Mcp;
use crate::stats::{Samples, Unit};

/// The gateway's added latency: the same `inspect` through the gateway's gRPC
/// `Browser.Execute` and straight to the owning worker's `Worker.Run`.
pub(super) async fn gateway_overhead(
    mcp: &Mcp,
    fleet: &Fleet,
    n: usize,
) -> anyhow::Result<FleetRow> {
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
pub(super) async fn checkpoint_cost(
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
    /// Gateway: its gRPC calls to workers and their seconds.
    worker_calls: f64,
    worker_call_seconds: f64,
    /// Workers: actions inside the engine and their seconds.
    engine: f64,
    engine_seconds: f64,
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
        c.worker_calls = metric(&text, "fleet_gateway_worker_call_seconds_count");
        c.worker_call_seconds = metric(&text, "fleet_gateway_worker_call_seconds_sum");
        for (base, _) in &fleet.workers {
            let text = scrape(base.clone()).await?;
            c.runs += metric(&text, "fleet_worker_run_seconds_count");
            c.run_seconds += metric(&text, "fleet_worker_run_seconds_sum");
            c.engine += metric(&text, "fleet_worker_engine_seconds_count");
            c.engine_seconds += metric(&text, "fleet_worker_engine_seconds_sum");
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
pub(super) async fn create_stages(
    mcp: &Mcp,
    fleet: &Fleet,
    n: usize,
) -> anyhow::Result<Vec<FleetRow>> {
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
            "auth, validation, session row insert, route claim",
            "parse, style, scripts, text",
            "snapshot and the one Postgres statement writing every part of a new session",
        ],
    ))
}

/// Where the time of a corpus page load in an open, warmed session goes, split
/// as [`create_stages`] splits a create, as means over `rounds` passes of the
/// corpus.
pub(super) async fn corpus_stages(
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
            "auth, validation, route read, the session row reused (or read)",
            "fetch, parse, style, scripts, text and links",
            "snapshot and the Postgres transaction writing the changed parts",
        ],
    ))
}

/// Where the time of a screenshot of the landing page goes, split as
/// [`create_stages`] splits a create, as means over `n` screenshots in one
/// session of the unchanged page (the first screenshot row's workload).
pub(super) async fn screenshot_stages(
    mcp: &Mcp,
    fleet: &Fleet,
    site: &str,
    n: usize,
) -> anyhow::Result<Vec<FleetRow>> {
    progress(&format!("where a screenshot goes ×{n}"));
    let url = format!("{site}/landing.html");
    let viewport = json!({ "url": url, "width": 1280, "height": 720 });
    let (id, _) = mcp.act("servo_navigate", viewport).await?;
    mcp.screenshot(&id).await?;
    let before = Metrics::read(fleet).await?;
    let mut client = Samples::new();
    for _ in 0..n {
        let t = Instant::now();
        mcp.screenshot(&id).await?;
        client.push_duration(t.elapsed());
    }
    let after = Metrics::read(fleet).await?;
    close(mcp, &id).await?;
    Ok(stage_rows(
        "screenshot",
        &client,
        &before,
        &after,
        [
            "auth, validation, route read, the session row reused (or read)",
            "style and layout if needed, the paint recorded (the page unchanged, so the last PNG answers), the page's summary",
            "snapshot; nothing changed, so nothing is sent to Postgres within 10 s of the last write",
        ],
    ))
}

/// The stage rows of calls timed by the client (`client`) between two metric
/// readings, as means: the whole call, then its parts — MCP/HTTP and the
/// client, the gateway's own work, the gRPC hop, the worker around the engine,
/// the engine, the checkpoint — each with its share of the whole. `notes` say
/// what the gateway, the engine and the checkpoint did.
fn stage_rows(
    what: &str,
    client: &Samples,
    before: &Metrics,
    after: &Metrics,
    [gateway_note, engine_note, checkpoint_note]: [&str; 3],
) -> Vec<FleetRow> {
    let mean = |sum: f64, count: f64| sum / count.max(1.0) * 1000.0;
    let gateway = mean(
        after.call_seconds - before.call_seconds,
        after.calls - before.calls,
    );
    let worker_call = mean(
        after.worker_call_seconds - before.worker_call_seconds,
        after.worker_calls - before.worker_calls,
    );
    let worker = mean(
        after.run_seconds - before.run_seconds,
        after.runs - before.runs,
    );
    let engine = mean(
        after.engine_seconds - before.engine_seconds,
        after.engine - before.engine,
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
            note: if name.starts_with("whole") {
                note.to_owned()
            } else {
                format!("{:.0} % of the whole; {note}", ms / client * 100.0)
            },
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
        row("gateway", gateway - worker_call, gateway_note),
        row(
            "gRPC hop to the worker",
            worker_call - worker,
            "the gateway's gRPC call minus the worker's own time",
        ),
        row(
            "worker around the engine",
            worker - engine - checkpoint,
            "route check, the session's slot, restore or instantiate",
        ),
        row("engine", engine, engine_note),
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
