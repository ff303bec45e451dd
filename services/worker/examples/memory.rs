//! What a live tab costs in memory: opens N tabs of one page in this process
//! and prints the process's PSS (and its anonymous part) after each.
//!
//! `cargo run -p fleet-worker --example memory -- http://127.0.0.1:8000/page.html 10`
//! (a URL on loopback, so the page's scripts and styles load too, or a file).
//! After the last tab it splits the PSS by part of the process: the engines'
//! linear memories, their fiber stacks (a store keeps the last one it ran on),
//! the host's heap and the rest, read from `/proc/self/smaps`.

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
    for (part, kib) in parts()? {
        println!("  {part}: {kib} KiB");
    }
    Ok(())
}

/// One mapping of `/proc/self/smaps`: its size, permissions, name and PSS.
struct Mapping {
    bytes: u64,
    perms: String,
    name: String,
    pss_kib: u64,
}

/// This process's PSS by part, KiB. A linear memory is a writable anonymous
/// mapping followed by its inaccessible reservation (GiBs); a fiber stack is
/// one behind a one-page guard; other writable anonymous mappings are the
/// host's heap. The start of a linear memory that is still mapped from the
/// engine's memory image (its data and stack) counts under files.
fn parts() -> anyhow::Result<Vec<(&'static str, u64)>> {
    let text = std::fs::read_to_string("/proc/self/smaps")?;
    let mut maps: Vec<Mapping> = Vec::new();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        let first = words.next().unwrap_or_default();
        if let Some((lo, hi)) = first.split_once('-')
            && let (Ok(lo), Ok(hi)) = (u64::from_str_radix(lo, 16), u64::from_str_radix(hi, 16))
        {
            let perms = words.next().unwrap_or_default().to_owned();
            let name = words.nth(3).unwrap_or_default().to_owned();
            maps.push(Mapping {
                bytes: hi - lo,
                perms,
                name,
                pss_kib: 0,
            });
        } else if first == "Pss:"
            && let (Some(v), Some(m)) = (words.next(), maps.last_mut())
        {
            m.pss_kib += v.parse::<u64>().unwrap_or(0);
        }
    }
    let mut sums = [
        ("linear memories", 0),
        ("fiber stacks", 0),
        ("host heap (anonymous)", 0),
        ("files and images", 0),
    ];
    for (i, m) in maps.iter().enumerate() {
        let next_reserved = maps
            .get(i + 1)
            .is_some_and(|n| n.perms.starts_with("---") && n.bytes >= 1 << 30);
        let after_guard =
            i > 0 && maps[i - 1].perms.starts_with("---") && maps[i - 1].bytes == 4096;
        let part = if !m.name.is_empty() && !m.name.starts_with('[') {
            3
        } else if m.perms.starts_with("rw") && next_reserved {
            0
        } else if m.perms.starts_with("rw") && after_guard && m.bytes >= 1 << 20 {
            1
        } else {
            2
        };
        sums[part].1 += m.pss_kib;
    }
    Ok(sums.to_vec())
}
