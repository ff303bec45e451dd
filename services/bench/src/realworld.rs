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

mod known;
pub mod server;

pub use known::KnownDifference;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::chromium::Chromium;
use crate::fidelity::text_f1;
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
    let extraction = page.evaluate(script).await?;
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

/// How one page compared.
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    /// The page's id.
    pub id: String,
    /// Its generator or library.
    pub kind: String,
    /// What Chromium read.
    pub chromium: Reading,
    /// What the engine read, or why it could not.
    pub engine: Result<Reading, String>,
    /// Visible-text token F1 (0 when the engine read nothing).
    pub f1: f64,
    /// Every difference that fails the page.
    pub failures: Vec<String>,
    /// Differences the page's `known_differences` explain, with the reason.
    pub known: Vec<String>,
}

impl Verdict {
    /// Whether the page passed.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

/// Judges the engine's reading against Chromium's.
pub fn judge(page: &PageSpec, chromium: Reading, engine: Result<Reading, String>) -> Verdict {
    let mut failures = Vec::new();
    let mut f1 = 0.0;
    match &engine {
        Err(e) => failures.push(format!("the engine could not read the page: {e}")),
        Ok(ours) => {
            if ours.errors.len() > chromium.errors.len() {
                failures.push(format!(
                    "uncaught errors: Chromium {}, engine {}: {}",
                    chromium.errors.len(),
                    ours.errors.len(),
                    abbreviate(&ours.errors.join(" | "), 400)
                ));
            }
            if ours.budget_hit && chromium.load_ms < FAST_LOAD_MS {
                failures.push(format!(
                    "a script ran past its budget; Chromium loads the page in {:.0} ms",
                    chromium.load_ms
                ));
            }
            let collapse = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
            if collapse(&ours.title) != collapse(&chromium.title) {
                failures.push(format!(
                    "title: Chromium {:?}, engine {:?}",
                    chromium.title, ours.title
                ));
            }
            let score = text_f1(&chromium.text, &ours.text);
            f1 = score.f1;
            if score.f1 < MIN_PAGE_F1 {
                let tokens = |list: &[(String, usize)]| {
                    list.iter()
                        .take(12)
                        .map(|(t, n)| {
                            if *n > 1 {
                                format!("{t}×{n}")
                            } else {
                                t.clone()
                            }
                        })
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                failures.push(format!(
                    "text F1 {:.3} (P {:.3}, R {:.3}); only Chromium: {}; only the engine: {}",
                    score.f1,
                    score.precision,
                    score.recall,
                    tokens(&score.missing),
                    tokens(&score.extra)
                ));
            }
            if ours.links != chromium.links {
                failures.push(format!(
                    "links: Chromium {}, engine {}",
                    chromium.links, ours.links
                ));
            }
            if ours.fields != chromium.fields {
                failures.push(format!(
                    "form fields: Chromium {}, engine {}",
                    chromium.fields, ours.fields
                ));
            }
            for (selector, want) in &chromium.facts {
                let got = ours.facts.get(selector).cloned().unwrap_or(Value::Null);
                if &got != want {
                    failures.push(format!("fact {selector}: Chromium {want}, engine {got}"));
                }
            }
        }
    }
    let (failures, known) = known::sort_out(&page.known_differences, failures);
    Verdict {
        id: page.id.clone(),
        kind: page.kind.clone(),
        chromium,
        engine,
        f1,
        failures,
        known,
    }
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

/// The mean F1 of the pages the engine read.
pub fn mean_f1(verdicts: &[Verdict]) -> f64 {
    if verdicts.is_empty() {
        return 0.0;
    }
    verdicts.iter().map(|v| v.f1).sum::<f64>() / verdicts.len() as f64
}

/// The table, page by page, then each failing page's differences.
pub fn table(verdicts: &[Verdict]) -> String {
    let mut out = format!(
        "{:<36} {:<10} {:>7} {:>7} {:>7} {:>6} {:>9} {:>9} {:>6}  {}\n",
        "page", "kind", "C ms", "ours ms", "errors", "F1", "links", "fields", "facts", "verdict"
    );
    for v in verdicts {
        let (ours_ms, errors, links, fields, facts) = match &v.engine {
            Ok(r) => (
                format!("{:.0}", r.load_ms),
                format!("{}/{}", v.chromium.errors.len(), r.errors.len()),
                format!("{}/{}", v.chromium.links, r.links),
                format!("{}/{}", v.chromium.fields, r.fields),
                format!(
                    "{}/{}",
                    v.chromium
                        .facts
                        .iter()
                        .filter(|(k, want)| r.facts.get(*k) == Some(want))
                        .count(),
                    v.chromium.facts.len()
                ),
            ),
            Err(_) => ("-".into(), "-".into(), "-".into(), "-".into(), "-".into()),
        };
        out.push_str(&format!(
            "{:<36} {:<10} {:>7.0} {:>7} {:>7} {:>6.3} {:>9} {:>9} {:>6}  {}\n",
            v.id,
            v.kind,
            v.chromium.load_ms,
            ours_ms,
            errors,
            v.f1,
            links,
            fields,
            facts,
            match (v.passed(), v.known.is_empty()) {
                (false, _) => "FAIL",
                (true, true) => "ok",
                (true, false) => "known",
            }
        ));
    }
    let passed = verdicts.iter().filter(|v| v.passed()).count();
    out.push_str(&format!(
        "\n{passed} of {} pages pass; mean text F1 {:.4} (errors are Chromium/engine)\n",
        verdicts.len(),
        mean_f1(verdicts)
    ));
    let known = verdicts.iter().filter(|v| !v.known.is_empty()).count();
    if known > 0 {
        out.push_str(&format!(
            "{known} page(s) differ only where pages.json says why (verdict \"known\")\n"
        ));
    }
    for v in verdicts
        .iter()
        .filter(|v| !v.passed() || !v.known.is_empty())
    {
        out.push_str(&format!("\n── {} ({})\n", v.id, v.kind));
        for failure in &v.failures {
            out.push_str(&format!("   {failure}\n"));
        }
        for difference in &v.known {
            out.push_str(&format!("   {difference}\n"));
        }
    }
    out
}

/// Whether the set meets the bar: every page passes and the mean F1 is high enough.
pub fn meets_the_bar(verdicts: &[Verdict]) -> bool {
    verdicts.iter().all(Verdict::passed) && mean_f1(verdicts) >= MIN_MEAN_F1
}

fn abbreviate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let cut: String = text.chars().take(max).collect();
    format!("{cut}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> PageSpec {
        PageSpec {
            id: "p".into(),
            source: "npm:x@1".into(),
            root: "npm".into(),
            path: "x/index.html".into(),
            kind: "x".into(),
            scripts: true,
            facts: vec![".a".into()],
            subset: true,
            known_differences: Vec::new(),
        }
    }

    fn reading() -> Reading {
        Reading {
            title: "Title".into(),
            text: "one two three four".into(),
            links: 3,
            fields: 1,
            facts: [(".a".to_owned(), json!([2, "block"]))].into(),
            load_ms: 200.0,
            ..Reading::default()
        }
    }

    #[test]
    fn an_equal_reading_passes_and_each_difference_fails_the_page() {
        assert!(judge(&spec(), reading(), Ok(reading())).passed());
        let mut ours = reading();
        ours.errors.push("Uncaught TypeError".into());
        ours.facts.insert(".a".into(), json!([0, null]));
        ours.links = 2;
        ours.budget_hit = true;
        let verdict = judge(&spec(), reading(), Ok(ours));
        let text = verdict.failures.join("\n");
        for needle in ["uncaught errors", "ran past its budget", "links", "fact .a"] {
            assert!(text.contains(needle), "{needle} missing from {text}");
        }
        let mut slow = reading();
        slow.load_ms = 1_500.0;
        let mut stopped = reading();
        stopped.budget_hit = true;
        assert!(
            judge(&spec(), slow, Ok(stopped)).passed(),
            "a slow Chromium load excuses a budget hit"
        );
    }

    #[test]
    fn a_known_difference_is_reported_without_failing_and_must_still_be_seen() {
        let mut page = spec();
        page.known_differences.push(KnownDifference {
            difference: "uncaught errors: Chromium 0, engine 1".into(),
            why: "no workers".into(),
        });
        let mut ours = reading();
        ours.errors.push("Uncaught SyntaxError".into());
        let verdict = judge(&page, reading(), Ok(ours.clone()));
        assert!(verdict.passed(), "{:?}", verdict.failures);
        assert_eq!(verdict.known.len(), 1);
        assert!(verdict.known[0].contains("known: no workers"));
        assert!(table(&[verdict]).contains("known"));
        // Another difference still fails the page.
        ours.links = 2;
        assert!(!judge(&page, reading(), Ok(ours)).passed());
        // A known difference that went away fails the page until it is removed.
        let fixed = judge(&page, reading(), Ok(reading()));
        assert!(!fixed.passed());
        assert!(
            fixed.failures[0].contains("no longer seen"),
            "{:?}",
            fixed.failures
        );
    }

    #[test]
    fn the_mean_f1_bar_fails_a_set_of_passing_pages_that_read_too_little() {
        let mut short = reading();
        short.text = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".into();
        let mut ours = short.clone();
        ours.text = ours.text.replace(" nineteen", "");
        let verdict = judge(&spec(), short, Ok(ours));
        assert!(verdict.passed(), "{:?}", verdict.failures);
        assert!(verdict.f1 < MIN_MEAN_F1);
        assert!(!meets_the_bar(&[verdict]));
    }
}
