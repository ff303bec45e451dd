//! What a live tab costs in memory: opens N tabs of one page in this process
//! and prints the process's PSS (and its anonymous part) after each.
//!
//! `cargo run -p fleet-worker --example memory -- http://127.0.0.1:8000/page.html 10`
//! (a URL on loopback, so the page's scripts and styles load too, or a file).

use std::time::Duration;

use fleet_worker::host::Viewport;

mod common;

/// `Pss:` and `Pss_Anon:` of this process, KiB.
fn pss() -> anyhow::Result<(u64, u64)> {
    let text = std::fs::read_to_string("/proc/self/smaps_rollup")?;
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .unwrap_or(0)
    };
    Ok((field("Pss:"), field("Pss_Anon:")))
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let target = args.get(1).map_or("page.html", String::as_str).to_owned();
    let source = || common::source(&target);

    let count: usize = args.get(2).map_or(Ok(10), |n| n.parse())?;
    // `ready`: each tab is the one the host kept ready, as a worker opens them.
    let ready = args.get(3).is_some_and(|a| a == "ready");
    let host = common::host(count as u32 + 1)?;
    host.warm().await?;
    let (base, base_anon) = pss()?;
    println!("warm host: PSS {} KiB (anon {} KiB)", base, base_anon);
    let mut tabs = Vec::new();
    let mut last = (base, base_anon);
    for n in 1..=count {
        let viewport = Viewport {
            width: 1280,
            height: 720,
        };
        let mut tab = if ready {
            host.make_ready();
            while !host.has_ready_tab() {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            host.session_tab(viewport).await?
        } else {
            host.new_tab(viewport).await?
        };
        let summary = tab.load(source()?, Duration::from_secs(15)).await?;
        tabs.push(tab);
        let now = pss()?;
        println!(
            "{n} tabs ({} chars of text): PSS {} KiB (+{}), anon {} KiB (+{})",
            summary.text.len(),
            now.0,
            now.0.saturating_sub(last.0),
            now.1,
            now.1.saturating_sub(last.1)
        );
        last = now;
    }
    let per = last.1.saturating_sub(base_anon) / count.max(1) as u64;
    println!("per tab (anonymous PSS): {per} KiB");
    Ok(())
}
