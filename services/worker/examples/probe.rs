//! Drives one engine instance directly, without a fleet: loads a file or URL,
//! prints the summary, evaluates an expression, writes a screenshot, and prints how
//! long each step took. Used to develop the engine and to measure it.
//!
//! `cargo run -p fleet-worker --example probe -- <file.html|url> <out.png> [js]`
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::time::{Duration, Instant};

use fleet_worker::host::{Source, Viewport};

mod common;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let (target, out) = (
        args.get(1).expect("a file or URL"),
        args.get(2).expect("an output PNG path"),
    );
    let t = Instant::now();
    let host = common::host(32)?;
    eprintln!("engine ready in {:?}", t.elapsed());
    let budget = Duration::from_secs(15);
    for round in 0..3 {
        let t = Instant::now();
        let mut tab = host
            .new_tab(Viewport {
                width: 1280,
                height: 720,
            })
            .await?;
        let inst = t.elapsed();
        let t = Instant::now();
        let summary = tab
            .load(
                Source::Html("<title>t</title><p>small page</p>".into()),
                budget,
            )
            .await?;
        eprintln!(
            "round {round}: instantiate {inst:?}, small inline load {:?} ({:?})",
            t.elapsed(),
            summary.title
        );
    }
    let mut tab = host
        .new_tab(Viewport {
            width: 1280,
            height: 720,
        })
        .await?;
    let source = || common::source(target);
    let t = Instant::now();
    let summary = tab.load(source()?, budget).await?;
    eprintln!("load {:?}", t.elapsed());
    println!(
        "url: {}\ntitle: {}\nload_error: {:?}",
        summary.url, summary.title, summary.load_error
    );
    println!("text:\n{}\n", summary.text);
    for l in &summary.links {
        println!("link: {:?} -> {}", l.text, l.href);
    }
    if let Some(js) = args.get(3) {
        let t = Instant::now();
        println!(
            "eval: {:?} ({:?})",
            tab.evaluate(js, budget).await?,
            t.elapsed()
        );
    }
    let t = Instant::now();
    match tab.screenshot(false, budget).await? {
        Ok(png) => {
            std::fs::write(out, &png)?;
            eprintln!("screenshot {} bytes in {:?}", png.len(), t.elapsed());
        }
        Err(e) => eprintln!("screenshot failed: {e}"),
    }
    let t = Instant::now();
    let snap = tab.snapshot(budget).await?;
    println!("snapshot: {} bytes in {:?}", snap.len(), t.elapsed());
    // Restore cost as a worker pays it for an evicted session: a new instance,
    // then the snapshot applied (the page loaded again, storage and forms set).
    for round in 0..3 {
        let t = Instant::now();
        let mut restored = host
            .new_tab(Viewport {
                width: 1280,
                height: 720,
            })
            .await?;
        let summary = restored.restore(&snap, budget).await?;
        eprintln!(
            "restore round {round}: {:?} ({:?})",
            t.elapsed(),
            summary.map(|s| s.title)
        );
    }

    // Resident memory per live session: hold N tabs with the page loaded.
    const N: usize = 20;
    let before = rss_kib();
    let mut tabs = Vec::new();
    for _ in 0..N {
        let mut t = host
            .new_tab(Viewport {
                width: 1280,
                height: 720,
            })
            .await?;
        t.load(source()?, budget).await?;
        tabs.push(t);
    }
    let after = rss_kib();
    eprintln!(
        "RSS {before} KiB -> {after} KiB with {N} live tabs: {} KiB per session",
        (after - before) / N as i64
    );
    Ok(())
}

fn rss_kib() -> i64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}
