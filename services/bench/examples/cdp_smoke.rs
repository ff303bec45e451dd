//! Drives a real headless Chromium through every part of the CDP driver and prints
//! rough timings: two isolated contexts, `set_content`, `evaluate`, a navigation to a
//! loopback HTTP server this example runs, a screenshot, the tree's memory, and a clean
//! close that leaves no Chromium process behind.
//!
//! `cargo run -p fleet-bench --example cdp_smoke [-- /path/to/chromium]`

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, ensure};
use fleet_bench::chromium::{Chromium, LaunchOptions};
use fleet_bench::procmem;
use fleet_bench::stats::{Row, Samples, Unit, table};
use serde_json::json;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpListener;

const RUNS: usize = 20;
const HTML: &str = "<title>t</title><p>Hello</p>";
const SERVED: &str = "<!doctype html><title>served</title><p>from loopback</p>";

#[tokio::main]
async fn main() -> Result<()> {
    let chromium_before = pgrep_chromium();
    let (addr, server) = serve_fixed_page().await?;
    let url = format!("http://{addr}/");

    let started = Instant::now();
    let browser = Chromium::launch(LaunchOptions {
        binary: std::env::args().nth(1).map(PathBuf::from),
        ..LaunchOptions::default()
    })
    .await?;
    let launch = started.elapsed();
    let version = browser.version().await?;
    println!(
        "launched {} (pid {}) in {launch:.1?}",
        version["product"],
        browser.pid()
    );

    // Two contexts, each with a page showing the same content.
    let contexts = [browser.new_context().await?, browser.new_context().await?];
    ensure!(contexts[0].id() != contexts[1].id(), "contexts share an id");
    let mut pages = Vec::new();
    for context in &contexts {
        let page = context.new_page().await?;
        page.set_viewport(800, 600).await?;
        page.set_content(HTML).await?;
        let title = page.evaluate("document.title").await?;
        let text = page.evaluate("document.body.innerText").await?;
        ensure!(title == json!("t"), "title was {title}");
        ensure!(text == json!("Hello"), "innerText was {text}");
        pages.push(page);
    }
    println!("set_content + evaluate: ok in both contexts");

    // Navigation, and cookie isolation between the contexts on the same origin.
    for page in &pages {
        page.navigate(&url).await?;
        ensure!(page.evaluate("document.title").await? == json!("served"));
    }
    pages[0].evaluate("document.cookie = 'who=first'").await?;
    ensure!(pages[0].evaluate("document.cookie").await? == json!("who=first"));
    ensure!(
        pages[1].evaluate("document.cookie").await? == json!(""),
        "a cookie leaked across browser contexts"
    );
    println!("navigate {url}: ok; cookies stay in their context");

    // Errors carry their cause.
    let closed_port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?;
    let refused = pages[1]
        .navigate(&format!("http://{closed_port}/"))
        .await
        .unwrap_err();
    println!("navigate to a closed port fails: {refused:#}");
    let thrown = pages[1]
        .evaluate("throw new Error('boom')")
        .await
        .unwrap_err();
    ensure!(format!("{thrown:#}").contains("boom"), "{thrown:#}");
    let promised = pages[1].evaluate("Promise.resolve(6 * 7)").await?;
    ensure!(promised == json!(42), "awaited {promised}");

    let png = pages[0].screenshot_png().await?;
    ensure!(
        png.starts_with(b"\x89PNG\r\n\x1a\n"),
        "screenshot is not a PNG"
    );
    let shot = std::env::temp_dir().join("cdp_smoke.png");
    std::fs::write(&shot, &png)?;
    println!("screenshot: {} bytes, {}", png.len(), shot.display());

    let pids = browser.process_tree_pids()?;
    let mut pss = Samples::new();
    pss.push(procmem::sum_pss(&pids) as f64);
    let mut rss = Samples::new();
    rss.push(procmem::sum_rss(&pids) as f64);
    println!(
        "tree with 2 contexts: {} processes, PSS {:.1} MiB, RSS {:.1} MiB",
        pids.len(),
        pss.values()[0] / 1048576.0,
        rss.values()[0] / 1048576.0
    );
    drop(pages);
    for context in contexts {
        context.close().await?;
    }

    // Timings. One untimed round first, so the first sample is not a cold start.
    let mut create = Samples::new();
    let mut dispose = Samples::new();
    for run in 0..=RUNS {
        let started = Instant::now();
        let context = browser.new_context().await?;
        let page = context.new_page().await?;
        page.set_content(HTML).await?;
        let created = started.elapsed();
        let started = Instant::now();
        drop(page);
        context.close().await?;
        if run > 0 {
            create.push_duration(created);
            dispose.push_duration(started.elapsed());
        }
    }
    let context = browser.new_context().await?;
    let page = context.new_page().await?;
    let mut set_content = Samples::new();
    let mut evaluate = Samples::new();
    let mut navigate = Samples::new();
    let mut screenshot = Samples::new();
    for run in 0..=RUNS {
        let t = Instant::now();
        page.set_content(HTML).await?;
        let t_set = t.elapsed();
        let t = Instant::now();
        page.evaluate("document.body.innerText").await?;
        let t_eval = t.elapsed();
        let t = Instant::now();
        page.navigate(&url).await?;
        let t_nav = t.elapsed();
        let t = Instant::now();
        page.screenshot_png().await?;
        let t_shot = t.elapsed();
        if run > 0 {
            set_content.push_duration(t_set);
            evaluate.push_duration(t_eval);
            navigate.push_duration(t_nav);
            screenshot.push_duration(t_shot);
        }
    }
    drop(page);
    context.close().await?;

    let mut launches = Samples::new();
    launches.push_duration(launch);
    let none = Samples::new();
    let rows = [
        Row::new("launch", Unit::Millis, &none, &launches),
        Row::new("context+page+setContent", Unit::Millis, &none, &create),
        Row::new("context close", Unit::Millis, &none, &dispose),
        Row::new("setContent (same page)", Unit::Millis, &none, &set_content),
        Row::new("evaluate", Unit::Millis, &none, &evaluate),
        Row::new("navigate (loopback)", Unit::Millis, &none, &navigate),
        Row::new("screenshot 800x600", Unit::Millis, &none, &screenshot),
        Row::new("tree PSS, 2 contexts", Unit::Bytes, &none, &pss),
        Row::new("tree RSS, 2 contexts", Unit::Bytes, &none, &rss),
    ];
    println!(
        "\n{RUNS} runs each (ours is not measured here):\n{}",
        table(&rows)
    );
    println!("{}", serde_json::to_string(&rows[1])?);

    let pids = browser.process_tree_pids()?;
    println!("closing {} processes: {pids:?}", pids.len());
    let started = Instant::now();
    browser.close().await?;
    println!("\nclosed in {:.1?}", started.elapsed());
    server.abort();

    let alive: Vec<_> = pids.iter().filter(|&&p| procmem::is_alive(p)).collect();
    ensure!(
        alive.is_empty(),
        "chromium processes left running: {alive:?}"
    );
    // Chromium's crash handlers are children of init once they double-fork, and init
    // may reap them a while after they exit: a zombie there holds nothing and runs
    // nothing, so only running processes count as left behind.
    let leftover: BTreeSet<_> = pgrep_chromium()
        .difference(&chromium_before)
        .copied()
        .filter(|&pid| procmem::is_alive(pid))
        .collect();
    if !leftover.is_empty() {
        let list: Vec<String> = leftover.iter().map(u32::to_string).collect();
        let ps = std::process::Command::new("ps")
            .args(["-o", "pid,ppid,stat,args", "-p", &list.join(",")])
            .output()?;
        println!("{}", String::from_utf8_lossy(&ps.stdout));
    }
    ensure!(
        leftover.is_empty(),
        "pgrep chromium still finds {leftover:?}"
    );
    let zombies = pgrep_chromium().difference(&chromium_before).count();
    println!("no chromium process left running ({zombies} exited, awaiting init's reaping)");
    Ok(())
}

/// Serves `SERVED` to every request on a loopback port until the task is aborted.
async fn serve_fixed_page() -> Result<(std::net::SocketAddr, tokio::task::JoinHandle<()>)> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let task = tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                // Read up to the end of the request head; the request itself is ignored.
                let mut head = Vec::new();
                let mut buf = [0u8; 4096];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 65536 {
                    match tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buf)).await
                    {
                        Ok(Ok(n)) if n > 0 => head.extend_from_slice(&buf[..n]),
                        _ => return,
                    }
                }
                let response = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\
                     Content-Length: {}\r\nConnection: close\r\n\r\n{SERVED}",
                    SERVED.len()
                );
                let _ = stream.write_all(response.as_bytes()).await;
                let _ = stream.shutdown().await;
            });
        }
    });
    Ok((addr, task))
}

/// The pids `pgrep chromium` lists now (empty if pgrep is missing).
fn pgrep_chromium() -> BTreeSet<u32> {
    std::process::Command::new("pgrep")
        .arg("chromium")
        .output()
        .context("running pgrep")
        .map(|out| {
            String::from_utf8_lossy(&out.stdout)
                .split_whitespace()
                .filter_map(|pid| pid.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}
