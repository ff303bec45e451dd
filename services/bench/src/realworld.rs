//! The real-world corpus (`tests/realworld`): pages nobody on the team wrote —
//! HTML documentation from Debian packages made by many generators, and the demo
//! pages npm packages ship — loaded in headless Chromium and through the fleet in
//! the same run, and compared page by page.
//!
//! `scripts/realworld.sh` installs the pinned packages into the corpus folder;
//! `pages.json` lists the pages, each with its web root (served by [`server`] on
//! a loopback port of its own), its path, and a few facts (CSS selectors whose
//! element count and `display` say whether the page's scripts did their work).
//! Both browsers run `extract.js` after the page's event loop went quiet.
//!
//! A page passes when, against Chromium: the engine reports no more uncaught
//! errors; no script ran past its budget where Chromium's whole load took under
//! [`FAST_LOAD_MS`]; the title, link count, form-field count and every fact are
//! equal; and the visible text's token F1 is at least [`MIN_PAGE_F1`]. A
//! difference the page's `known_differences` explain is reported as known
//! rather than failing it, and one no longer seen fails it. The set passes
//! when every page does and the mean F1 is at least [`MIN_MEAN_F1`].
//! `make test` checks the `subset` pages (the e2e test `realworld`);
//! `servo-fleet bench --realworld` checks all of them.
//!
//! This module owns the corpus and the reading of its pages in both browsers;
//! `realworld/verdict.rs` the comparison of the readings and the report.

mod known;
pub mod server;
mod verdict;

pub use known::KnownDifference;
pub use verdict::{Verdict, judge, mean_f1, meets_the_bar, table};

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::chromium::Chromium;
use crate::mcp::Mcp;

/// The lowest visible-text F1 a page may have.
pub const MIN_PAGE_F1: f64 = 0.95;
/// The lowest mean visible-text F1 of a set of pages.
pub const MIN_MEAN_F1: f64 = 0.99;
/// A Chromium load (navigation to `load`) under this many milliseconds must not
/// make the engine stop a script for its time budget.
pub const FAST_LOAD_MS: f64 = 1_000.0;
/// How long Chromium's page runs after `load` before it is read: the engine's
/// event loop runs the timers due within its 1 s quiet period after a load, so
/// Chromium gets as long.
const CHROMIUM_SETTLE: Duration = Duration::from_millis(1_000);
/// How often Chromium's page is read again after [`CHROMIUM_SETTLE`] until its
/// reading has not changed for [`CHROMIUM_STABLE_FOR`], and for how long at
/// most (pages that animate never settle).
const CHROMIUM_REREAD: Duration = Duration::from_millis(250);
/// Longer than the 600 ms a MathJax page keeps its status message up after
/// its last step, so a reading taken in that window is not the one compared.
const CHROMIUM_STABLE_FOR: Duration = Duration::from_millis(1_000);
const CHROMIUM_STABLE_WITHIN: Duration = Duration::from_millis(4_000);
/// The engine's per-action budget for a load and for the reading.
const MAX_DURATION_MS: u64 = 15_000;
/// What the engine's console says when a script ran past its budget.
const BUDGET_MESSAGE: &str = "ran past its time budget";
/// Counts the uncaught exceptions of Chromium's page from its very start.
const COUNT_ERRORS_JS: &str = "window.__realworldErrors = []; \
    addEventListener('error', (e) => { if (e instanceof ErrorEvent) window.__realworldErrors.push(String(e.message)); }, true);";

/// One page of `pages.json`.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct PageSpec {
    /// A short unique name.
    pub id: String,
    /// Where it comes from (`deb:package@version`, `npm:package@version`).
    pub source: String,
    /// The folder, inside the corpus folder, served as the web root.
    pub root: String,
    /// The page's path under the root (may carry a query string).
    pub path: String,
    /// The generator or library that made it.
    pub kind: String,
    /// Whether it runs scripts.
    #[serde(default)]
    pub scripts: bool,
    /// Selectors whose count and first `display` both browsers report.
    #[serde(default)]
    pub facts: Vec<String>,
    /// Part of the set `make test` checks.
    #[serde(default)]
    pub subset: bool,
    /// Differences from Chromium that are understood and not yet fixed: each
    /// is reported as known instead of failing the page, and one that is no
    /// longer seen fails it, so the list stays true.
    #[serde(default)]
    pub known_differences: Vec<KnownDifference>,
}

#[derive(Debug, Deserialize)]
struct Manifest {
    pages: Vec<PageSpec>,
}

/// The corpus: its manifest and extraction script (in the repository) and its
/// pages (in the corpus folder `scripts/realworld.sh` fills).
#[derive(Debug, Clone)]
pub struct Corpus {
    /// Where pages.json and extract.js are.
    pub manifest_dir: PathBuf,
    /// Where the pages are.
    pub pages_dir: PathBuf,
    pages: Vec<PageSpec>,
    script: String,
}

impl Corpus {
    /// Reads `manifest_dir/pages.json` and checks that `pages_dir` holds the pages.
    pub fn open(manifest_dir: &Path, pages_dir: &Path) -> anyhow::Result<Self> {
        let manifest = manifest_dir.join("pages.json");
        let text = std::fs::read_to_string(&manifest)
            .with_context(|| format!("reading {}", manifest.display()))?;
        let Manifest { pages } = serde_json::from_str(&text)
            .with_context(|| format!("{} is not a page list", manifest.display()))?;
        let script_path = manifest_dir.join("extract.js");
        let script = std::fs::read_to_string(&script_path)
            .with_context(|| format!("reading {}", script_path.display()))?;
        let corpus = Self {
            manifest_dir: manifest_dir.to_owned(),
            pages_dir: pages_dir.to_owned(),
            pages,
            script,
        };
        for page in &corpus.pages {
            let file = corpus.file_of(page);
            anyhow::ensure!(
                file.is_file(),
                "{} is missing: run scripts/realworld.sh to install the real-world corpus into {}",
                file.display(),
                pages_dir.display()
            );
        }
        Ok(corpus)
    }

    /// The pages, or only the `subset` ones.
    pub fn pages(&self, subset: bool) -> Vec<PageSpec> {
        self.pages
            .iter()
            .filter(|p| !subset || p.subset)
            .cloned()
            .collect()
    }

    fn file_of(&self, page: &PageSpec) -> PathBuf {
        let path = page.path.split(['?', '#']).next().unwrap_or_default();
        self.pages_dir.join(&page.root).join(path)
    }

    /// `extract.js` with the page's facts in it.
    fn script_for(&self, page: &PageSpec) -> String {
        let facts = serde_json::to_string(&page.facts).unwrap_or_else(|_| "[]".into());
        format!("({})()", self.script.replace("FACTS", &facts))
    }
}

/// What one browser read of a page.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Reading {
    /// `document.title`.
    pub title: String,
    /// `document.body.innerText`.
    pub text: String,
    /// `a[href]` elements.
    pub links: u64,
    /// Form controls (inputs other than hidden ones, selects, textareas, buttons).
    pub fields: u64,
    /// Selector → `[count, display of the first match]`.
    pub facts: BTreeMap<String, Value>,
    /// Uncaught exceptions, as reported.
    pub errors: Vec<String>,
    /// A script was stopped for its time budget (the engine only).
    pub budget_hit: bool,
    /// Milliseconds from the navigation to the end of the load.
    pub load_ms: f64,
}

impl Reading {
    fn from_extraction(value: &Value) -> anyhow::Result<Self> {
        let count = |k: &str| {
            value[k]
                .as_u64()
                .with_context(|| format!("no {k} in {value}"))
        };
        Ok(Self {
            title: value["title"].as_str().unwrap_or_default().to_owned(),
            text: value["text"].as_str().unwrap_or_default().to_owned(),
            links: count("links")?,
            fields: count("fields")?,
            facts: value["facts"]
                .as_object()
                .map(|o| o.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
                .unwrap_or_default(),
            ..Self::default()
        })
    }
}

/// Loads `url` in a fresh Chromium context and reads it.
pub async fn read_in_chromium(
    chromium: &Chromium,
    url: &str,
    script: &str,
) -> anyhow::Result<Reading> {
    let context = chromium.new_context().await?;
    let page = context.new_page().await?;
    page.set_viewport(1280, 720).await?;
    page.send("Runtime.enable", json!({})).await?;
    page.send(
        "Page.addScriptToEvaluateOnNewDocument",
        json!({ "source": COUNT_ERRORS_JS }),
    )
    .await?;
    let started = Instant::now();
    page.navigate(url).await?;
    let load_ms = started.elapsed().as_secs_f64() * 1e3;
    tokio::time::sleep(CHROMIUM_SETTLE).await;
    let mut extraction = page.evaluate(script).await?;
    // A page still filling itself in (a search page showing one result after
    // another) is read again until its reading holds for a while, so a slow
    // moment on a loaded machine cannot make Chromium's reading the
    // incomplete one.
    let deadline = Instant::now() + CHROMIUM_STABLE_WITHIN;
    let mut unchanged_since = Instant::now();
    while Instant::now() < deadline && unchanged_since.elapsed() < CHROMIUM_STABLE_FOR {
        tokio::time::sleep(CHROMIUM_REREAD).await;
        let again = page.evaluate(script).await?;
        if again != extraction {
            extraction = again;
            unchanged_since = Instant::now();
        }
    }
    let errors = page.evaluate("window.__realworldErrors || []").await?;
    let mut reading = Reading::from_extraction(&extraction)?;
    reading.errors = errors
        .as_array()
        .map(|a| {
            a.iter()
                .map(|e| e.as_str().unwrap_or("?").to_owned())
                .collect()
        })
        .unwrap_or_default();
    reading.load_ms = load_ms;
    if let Err(e) = page.close().await {
        tracing::debug!(error = %e, "a Chromium page did not close");
    }
    if let Err(e) = context.close().await {
        tracing::debug!(error = %e, "a Chromium context did not close");
    }
    Ok(reading)
}

/// Loads `url` in a new fleet session through MCP, reads it, closes the session.
pub async fn read_in_fleet(mcp: &Mcp, url: &str, script: &str) -> anyhow::Result<Reading> {
    let started = Instant::now();
    let (session, navigated) = mcp
        .act(
            "servo_navigate",
            json!({ "url": url, "width": 1280, "height": 720, "maxDurationMs": MAX_DURATION_MS }),
        )
        .await?;
    let load_ms = started.elapsed().as_secs_f64() * 1e3;
    let page = &navigated["page"];
    let console: Vec<(String, String)> = page["console"]
        .as_array()
        .map(|entries| {
            entries
                .iter()
                .map(|e| {
                    let field = |k: &str| e[k].as_str().unwrap_or_default().to_owned();
                    (field("level"), field("text"))
                })
                .collect()
        })
        .unwrap_or_default();
    let read = mcp
        .act(
            "servo_evaluate",
            json!({ "sessionID": session, "script": script, "maxDurationMs": MAX_DURATION_MS }),
        )
        .await;
    let closed = mcp
        .act("servo_session_close", json!({ "sessionID": session }))
        .await;
    let (_, evaluated) = read?;
    closed?;
    let mut reading = Reading::from_extraction(&evaluated["value"])?;
    reading.errors = console
        .iter()
        .filter(|(level, text)| level == "error" && text.starts_with("Uncaught"))
        .map(|(_, text)| text.clone())
        .collect();
    reading.budget_hit = page["settle"] == "budget"
        || console
            .iter()
            .any(|(_, text)| text.contains(BUDGET_MESSAGE));
    reading.load_ms = load_ms;
    Ok(reading)
}

/// Reads and judges every page: each root is served once, Chromium and the
/// engine read the same URL.
pub async fn check(
    corpus: &Corpus,
    pages: &[PageSpec],
    chromium: &Chromium,
    mcp: &Mcp,
    mut progress: impl FnMut(&Verdict),
) -> anyhow::Result<Vec<Verdict>> {
    let mut servers: HashMap<String, server::RootServer> = HashMap::new();
    let mut verdicts = Vec::new();
    for page in pages {
        if !servers.contains_key(&page.root) {
            let root = corpus.pages_dir.join(&page.root);
            servers.insert(
                page.root.clone(),
                server::serve(&root, &corpus.pages_dir).await?,
            );
        }
        let Some(origin) = servers.get(&page.root).map(|s| s.origin.clone()) else {
            bail!("no server for {}", page.root);
        };
        let url = format!("{origin}/{}", page.path.trim_start_matches('/'));
        let script = corpus.script_for(page);
        let theirs = read_in_chromium(chromium, &url, &script)
            .await
            .with_context(|| format!("reading {} in Chromium", page.id))?;
        let ours = read_in_fleet(mcp, &url, &script)
            .await
            .map_err(|e| format!("{e:#}"));
        let verdict = judge(page, theirs, ours);
        progress(&verdict);
        verdicts.push(verdict);
    }
    Ok(verdicts)
}
