//! Loads one page in one engine instance and prints what a script returns
//! there, as JSON: the quickest way to compare the engine with a browser on a
//! page while developing it.
//!
//! `cargo run -p fleet-worker --release --example eval -- <url|file.html> <script.js|-e expr>`
//!
//! The script is an expression (an async function expression is called and
//! awaited, as `tests/corpus/extract.js` is). Loopback URLs are allowed.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::time::{Duration, Instant};

use fleet_worker::host::Viewport;

mod common;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let target = args.get(1).expect("a URL or an HTML file");
    let script = match (args.get(2).map(String::as_str), args.get(3)) {
        (Some("-e"), Some(expr)) => expr.clone(),
        (Some(path), _) => std::fs::read_to_string(path)?,
        _ => panic!("a script file or -e <expression>"),
    };
    let host = common::host(2)?;
    let budget = Duration::from_secs(15);
    let mut tab = host
        .new_tab(Viewport {
            width: 1280,
            height: 720,
        })
        .await?;
    let source = common::source(target)?;
    let t = Instant::now();
    let summary = tab.load(source, budget).await?;
    eprintln!("load {:?} ({:?})", t.elapsed(), summary.settle);
    for entry in &summary.console {
        eprintln!("console.{}: {}", entry.level, entry.text);
    }
    let wrapped = format!(
        "(async () => {{ const v = ({script}); return typeof v === 'function' ? await v() : await v; }})()"
    );
    let t = Instant::now();
    let value = tab.evaluate(&wrapped, budget).await?;
    eprintln!("eval {:?}", t.elapsed());
    match value {
        Ok(json) => println!("{json}"),
        Err(e) => println!("error: {e:?}"),
    }
    Ok(())
}
