//! `servo-fleet goldens`: runs every corpus page in headless Chromium (through
//! the CDP driver in [`crate::chromium`]) and writes what the extraction read
//! as `golden/<page>.json`. Each page is loaded twice, each time in a fresh
//! browser context (its own cookies and storage, as a fresh fleet session has),
//! and the two answers must agree, so a golden never holds a value that
//! depends on timing. A page whose values record a thrown exception or a wait
//! that timed out is refused: the pages are written so that neither happens in
//! Chromium.

use std::path::PathBuf;

use anyhow::{Context as _, bail};
use serde_json::Value;

use super::{Corpus, Extraction, Golden, VIEWPORT, serve, sorted_keys};
use crate::chromium::{Chromium, LaunchOptions, Page};

/// The generator's flags.
#[derive(Debug, Clone, clap::Args)]
pub struct GoldensConfig {
    /// The corpus directory (holding pages/, extract.js and golden/).
    #[arg(long, env = "FLEET_CORPUS_DIR", default_value = "tests/corpus")]
    pub corpus: PathBuf,
    /// Headless Chromium to take the goldens from (default: Debian's /usr/bin/chromium).
    #[arg(long, env = "FLEET_BENCH_CHROMIUM")]
    pub chromium: Option<PathBuf>,
    /// Only these pages (file names in pages/); every page when absent.
    #[arg(long = "page")]
    pub pages: Vec<String>,
    /// Write nothing; fail if any golden is missing or differs from what Chromium reads now.
    #[arg(long)]
    pub check: bool,
}

/// Writes (or, with `--check`, verifies) the goldens. Progress goes to stderr.
pub async fn run(config: GoldensConfig) -> anyhow::Result<()> {
    let corpus = Corpus::open(&config.corpus)?;
    let mut pages = corpus.pages()?;
    if !config.pages.is_empty() {
        for wanted in &config.pages {
            if !pages.contains(wanted) {
                bail!("no page {wanted} in {}", corpus.pages_dir().display());
            }
        }
        pages.retain(|p| config.pages.contains(p));
    }
    let script = corpus.extraction_script()?;
    let server = serve(corpus.pages_dir()).await?;
    eprintln!(
        "goldens: serving {} on {} and {}",
        corpus.pages_dir().display(),
        server.origins.origin,
        server.origins.origin2
    );
    let chromium = Chromium::launch(LaunchOptions {
        binary: config.chromium.clone(),
        // The engine draws no scrollbars: neither may Chromium take their width.
        extra_args: vec!["--hide-scrollbars".into()],
        ..LaunchOptions::default()
    })
    .await
    .context("headless Chromium could not be started (scripts/chromium.sh installs it)")?;
    let version = chromium.version().await?["product"]
        .as_str()
        .unwrap_or("unknown")
        .to_owned();
    eprintln!("goldens: {version}");

    let outcome = write_all(
        &corpus,
        &pages,
        &script,
        &server,
        &chromium,
        &version,
        config.check,
    )
    .await;
    if let Err(e) = chromium.close().await {
        tracing::warn!(error = %e, "Chromium did not close cleanly");
    }
    let (written, unchanged, stale) = outcome?;
    if config.check {
        if !stale.is_empty() {
            bail!(
                "{} golden(s) differ from Chromium: {} (run scripts/goldens.sh)",
                stale.len(),
                stale.join(", ")
            );
        }
        eprintln!("goldens: all {} goldens are current", pages.len());
    } else {
        eprintln!("goldens: {written} written, {unchanged} unchanged");
    }
    Ok(())
}

/// Extracts every page, writes the goldens that changed (unless `check`), and
/// returns (written, unchanged, differing page names).
async fn write_all(
    corpus: &Corpus,
    pages: &[String],
    script: &str,
    server: &super::CorpusServer,
    chromium: &Chromium,
    version: &str,
    check: bool,
) -> anyhow::Result<(usize, usize, Vec<String>)> {
    let (mut written, mut unchanged, mut stale) = (0, 0, Vec::new());
    for page in pages {
        let url = server.url(page);
        let first = extract(chromium, &url, script)
            .await
            .with_context(|| format!("extracting {page} in Chromium"))?;
        let second = extract(chromium, &url, script)
            .await
            .with_context(|| format!("extracting {page} in Chromium again"))?;
        let first = Extraction::from_json(first, &server.origins)?;
        let second = Extraction::from_json(second, &server.origins)?;
        if first != second {
            let report = super::PageReport::compare(page, &first, &second);
            bail!(
                "{page} is not deterministic: two loads in Chromium differ\n{}",
                report.render()
            );
        }
        let mut thrown = Vec::new();
        find_thrown("values", &first.values, &mut thrown);
        if !thrown.is_empty() {
            bail!(
                "{page} throws in Chromium; fix the page:\n  {}",
                thrown.join("\n  ")
            );
        }
        let golden = Golden {
            page: page.clone(),
            source_sha256: corpus.source_hash(page)?,
            chromium: version.to_owned(),
            viewport: [VIEWPORT.0, VIEWPORT.1],
            extraction: first,
        };
        let text =
            serde_json::to_string_pretty(&sorted_keys(serde_json::to_value(&golden)?))? + "\n";
        let path = corpus.golden_path(page);
        let current = std::fs::read_to_string(&path).ok();
        // The Chromium version alone changing does not make a golden differ.
        let same = current
            .as_deref()
            .and_then(|c| serde_json::from_str::<Golden>(c).ok())
            .is_some_and(|old| {
                old.extraction == golden.extraction && old.source_sha256 == golden.source_sha256
            });
        if same {
            unchanged += 1;
            eprintln!("goldens: {page}: unchanged");
            continue;
        }
        stale.push(page.clone());
        if check {
            eprintln!("goldens: {page}: differs from {}", path.display());
            continue;
        }
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        written += 1;
        eprintln!("goldens: {page}: written to {}", path.display());
    }
    Ok((written, unchanged, stale))
}

/// Loads `url` in a fresh context at the engine's viewport and runs the extraction.
async fn extract(chromium: &Chromium, url: &str, script: &str) -> anyhow::Result<Value> {
    let context = chromium.new_context().await?;
    let result = async {
        let page: Page = context.new_page().await?;
        page.set_viewport(VIEWPORT.0, VIEWPORT.1).await?;
        page.navigate(url).await?;
        page.evaluate(script).await
    }
    .await;
    context.close().await?;
    result
}

/// Every string under `value` that records a thrown exception (`threw …`), a
/// wait that timed out (`timed out …`) or the extraction's `__error`, with its
/// path.
fn find_thrown(path: &str, value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) if s.starts_with("threw ") || s.starts_with("timed out ") => {
            out.push(format!("{path}: {s}"));
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                find_thrown(&format!("{path}[{i}]"), v, out);
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                if k == "__error" {
                    out.push(format!("{path}: {v}"));
                } else {
                    find_thrown(&format!("{path}.{k}"), v, out);
                }
            }
        }
        _ => {}
    }
}
