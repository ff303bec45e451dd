//! What loading a page costs in the engine alone: loads one page N times in
//! one tab (each load a new document and, if it has scripts, a new realm) and
//! prints the median, p95 and fastest load. Used to A/B an engine change
//! without the fleet's protocols around it. With `prepared`, the engine's
//! work between calls (`prepare`, which a worker runs after each answer when
//! a lane is idle) runs between loads, untimed, as between an agent's calls.
//! With `fresh`, each load is a new tab's first (its instantiation timed
//! too), which is the engine's part of a session create. With `inspect`, the
//! page is loaded once and its summary (what every answer carries) is read N
//! times instead; with `screenshot`, its 1280×720 viewport is painted to PNG
//! N times (the first paint, which also lays the page out, left out; the
//! engine answers the later ones from it while the page paints the same);
//! with `changed-screenshot`, the same but the first heading's text (or the
//! body's first element's) is changed untimed before each paint; with
//! `first-screenshot`, each of N new tabs loads the page untimed and its first
//! paint is timed (nothing the tab caches for painting exists yet).
//!
//! `cargo run -p fleet-worker --example loads -- page.html 200 [prepared|fresh|inspect|screenshot|changed-screenshot|first-screenshot]`

use std::time::{Duration, Instant};

use fleet_worker::host::Viewport;

mod common;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let target = args.get(1).map_or("page.html", String::as_str).to_owned();
    let count: usize = args.get(2).map_or(Ok(100), |n| n.parse())?.max(1);
    let mode = args.get(3).map_or("", String::as_str);
    let prepared = mode == "prepared";
    let host = common::host(3)?;
    host.warm().await?;
    let viewport = Viewport {
        width: 1280,
        height: 720,
    };
    let mut tab = host.new_tab(viewport).await?;
    let budget = Duration::from_secs(15);
    // The first load pays for what an instance does once (the preludes'
    // bytecode handed over, first allocations); it is left out.
    tab.load(common::source(&target)?, budget).await?;
    let screenshots = matches!(mode, "screenshot" | "changed-screenshot");
    if screenshots {
        tab.screenshot(false, budget)
            .await?
            .map_err(anyhow::Error::msg)?;
    }
    let mut times = Vec::with_capacity(count);
    for take in 0..count {
        if prepared {
            tab.prepare().await?;
        }
        if mode == "inspect" {
            let t = Instant::now();
            tab.inspect(budget).await?;
            times.push(t.elapsed());
            continue;
        }
        if mode == "first-screenshot" {
            tab = host.new_tab(viewport).await?;
            tab.load(common::source(&target)?, budget).await?;
        }
        if mode == "changed-screenshot" {
            tab.evaluate(&change(take), budget)
                .await?
                .map_err(|e| anyhow::anyhow!("the change failed: {e:?}"))?;
        }
        if screenshots || mode == "first-screenshot" {
            let t = Instant::now();
            tab.screenshot(false, budget)
                .await?
                .map_err(anyhow::Error::msg)?;
            times.push(t.elapsed());
            continue;
        }
        let source = common::source(&target)?;
        let t = Instant::now();
        if mode == "fresh" {
            tab = host.new_tab(viewport).await?;
        }
        let summary = tab.load(source, budget).await?;
        times.push(t.elapsed());
        if let Some(e) = summary.load_error {
            anyhow::bail!("the page did not load: {e}");
        }
    }
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    println!(
        "{count} loads of {target}{}: median {:.2} ms, p95 {:.2} ms, fastest {:.2} ms",
        match mode {
            "prepared" => ", prepared between loads",
            "fresh" => ", each in a new tab",
            "inspect" => ", its summary read (not loads)",
            "screenshot" => ", its viewport painted to PNG (not loads)",
            "changed-screenshot" => ", changed, then its viewport painted to PNG (not loads)",
            "first-screenshot" => ", each in a new tab, its first paint to PNG (not loads)",
            _ => "",
        },
        at(0.5).as_secs_f64() * 1e3,
        at(0.95).as_secs_f64() * 1e3,
        times[0].as_secs_f64() * 1e3,
    );
    Ok(())
}

/// A script that changes what the page paints: the first heading's text (or
/// the body's first element's) as it was, with `take` after it.
fn change(take: usize) -> String {
    format!(
        "(() => {{ const e = document.querySelector('h1, h2, h3') || document.body.firstElementChild || document.body; \
         globalThis.textWas ??= e.textContent; e.textContent = globalThis.textWas + ' {take}'; }})()"
    )
}
