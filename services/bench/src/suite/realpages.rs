//! Rows on real pages nobody on the team wrote, served from the real-world
//! corpus `scripts/realworld.sh` installs (tests/realworld):
//! - one scripted page of each size class (about 30 KB, 300 KB and 1.5 MB of
//!   HTML) loaded again and again in an open session / page;
//! - the whole path an agent pays on a page it has not seen — new session, load,
//!   text — against Chromium's new page, load and `innerText`, once per page of
//!   the corpus, so the figure is a median over real pages.

use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

use anyhow::Context as _;
use serde_json::json;

use super::{
    Bench, Check, INNER_TEXT, MIN_TEXT_F1, Measured, close, fleet_text, progress, text_check,
};
use crate::fidelity::compare::abbreviate;
use crate::fidelity::text_f1;
use crate::realworld::{self, server::RootServer};
use crate::stats::{Row, Samples, Unit};

/// The page of each size class: its label, web root and path in the corpus
/// folder. The first two are pages of tests/realworld/pages.json (Sphinx 5 with
/// jQuery); the largest is a rustdoc page of the same Debian tree (rustdoc's
/// own scripts), as pages.json holds nothing that big.
const SIZED: [(&str, &str, &str); 3] = [
    (
        "30 KB",
        "debian-bookworm",
        "usr/share/doc/python-click-doc/html/index.html",
    ),
    (
        "300 KB",
        "debian-bookworm",
        "usr/share/doc/python-bs4-doc/html/index.html?highlight=soup",
    ),
    (
        "1.5 MB",
        "debian-bookworm",
        "usr/share/doc/rust-doc/html/std/primitive.usize.html",
    ),
];

/// The real pages a run loads, each root served on its own loopback port.
pub struct RealPages {
    /// Label, URL and HTML size of each [`SIZED`] page.
    pub sized: Vec<(&'static str, String, u64)>,
    /// Id and URL of every corpus page the corpus row reads.
    pub corpus: Vec<(String, String)>,
    _servers: HashMap<String, RootServer>,
}

impl RealPages {
    /// Serves the corpus installed in `dir`: all of it, or with `whole` false
    /// only the pages `make test` checks.
    pub async fn open(dir: &Path, whole: bool) -> anyhow::Result<Self> {
        let corpus = realworld::Corpus::open(Path::new("tests/realworld"), dir).context(
            "the bench reads real pages: run scripts/realworld.sh (make realworld-pages)",
        )?;
        let mut servers: HashMap<String, RootServer> = HashMap::new();
        let mut origin = async |root: &str| -> anyhow::Result<String> {
            if let Some(server) = servers.get(root) {
                return Ok(server.origin.clone());
            }
            let server = realworld::server::serve(&dir.join(root), dir).await?;
            let origin = server.origin.clone();
            servers.insert(root.to_owned(), server);
            Ok(origin)
        };
        let mut sized = Vec::new();
        for (label, root, path) in SIZED {
            let file = dir.join(root).join(path.split('?').next().unwrap_or(path));
            let bytes = std::fs::metadata(&file)
                .with_context(|| {
                    format!("{} is missing: run scripts/realworld.sh", file.display())
                })?
                .len();
            sized.push((label, format!("{}/{path}", origin(root).await?), bytes));
        }
        let mut pages = Vec::new();
        for page in corpus.pages(!whole) {
            let url = format!("{}/{}", origin(&page.root).await?, page.path);
            pages.push((page.id, url));
        }
        Ok(Self {
            sized,
            corpus: pages,
            _servers: servers,
        })
    }

    /// The URL of the 300 KB page, the one the memory rows hold.
    pub fn memory_page(&self) -> &str {
        self.sized.get(1).map_or("", |(_, url, _)| url.as_str())
    }
}

/// Load + text of each sized page in an open session and an open page.
pub(super) async fn sized_rows(b: &Bench<'_>) -> anyhow::Result<Measured> {
    let rounds = b.sizes.real_rounds;
    let mut measured = Measured::default();
    for (label, url, bytes) in &b.real.sized {
        progress(&format!("real {label} page ×{rounds}"));
        let name = format!("page load + text, real {label} page (scripted)");
        let (id, _) = b.mcp.act("servo_navigate", json!({ "url": url })).await?;
        let mut ours = Samples::new();
        for _ in 0..rounds {
            let t = Instant::now();
            b.mcp
                .act("servo_navigate", json!({ "sessionID": id, "url": url }))
                .await?;
            ours.push_duration(t.elapsed());
        }
        let our_text = fleet_text(b.mcp, &id).await?;
        close(b.mcp, &id).await?;
        let context = b.chromium.new_context().await?;
        let page = context.new_page().await?;
        page.set_viewport(1280, 720).await?;
        page.navigate(url).await?;
        let mut theirs = Samples::new();
        let mut their_text = String::new();
        for _ in 0..rounds {
            let t = Instant::now();
            page.navigate(url).await?;
            let text = page.evaluate(INNER_TEXT).await?;
            theirs.push_duration(t.elapsed());
            their_text = text.as_str().unwrap_or_default().to_owned();
        }
        context.close().await?;
        b.settle().await;
        let path = url.splitn(4, '/').nth(3).unwrap_or(url);
        measured
            .checks
            .push(text_check(&name, path, &their_text, &our_text));
        measured.rows.push(
            Row::new(&name, Unit::Millis, &ours, &theirs).with_note(format!(
                "{path}, {} KB of HTML; in an open session / page",
                bytes / 1000
            )),
        );
    }
    Ok(measured)
}

/// New session + load + text of every corpus page once, against a new Chromium
/// context and page + load + `innerText`.
pub(super) async fn corpus_row(b: &Bench<'_>) -> anyhow::Result<Measured> {
    let pages = &b.real.corpus;
    progress(&format!(
        "new session + load + text, {} real pages",
        pages.len()
    ));
    let name = "new session + load + text, real-world corpus (each page once)";
    let (mut ours, mut theirs) = (Samples::new(), Samples::new());
    let mut our_texts = Vec::new();
    let mut budget_stops = Vec::new();
    for (id, url) in pages {
        let t = Instant::now();
        let (session, out) = b
            .mcp
            .act(
                "servo_navigate",
                json!({ "url": url, "width": 1280, "height": 720 }),
            )
            .await
            .with_context(|| format!("loading {id}"))?;
        ours.push_duration(t.elapsed());
        if out["page"]["settle"] == "budget" {
            budget_stops.push(id.clone());
        }
        our_texts.push(fleet_text(b.mcp, &session).await?);
        close(b.mcp, &session).await?;
    }
    let mut scores = Vec::new();
    for ((id, url), ours) in pages.iter().zip(&our_texts) {
        let t = Instant::now();
        let context = b.chromium.new_context().await?;
        let page = context.new_page().await?;
        page.set_viewport(1280, 720).await?;
        page.navigate(url)
            .await
            .with_context(|| format!("loading {id} in Chromium"))?;
        let text = page.evaluate(INNER_TEXT).await?;
        theirs.push_duration(t.elapsed());
        let mut text = text.as_str().unwrap_or_default().to_owned();
        if text_f1(&text, ours).f1 < MIN_TEXT_F1 {
            // Some pages finish rendering after their load event (jQuery UI's
            // demos show nothing at that instant): compare with what Chromium
            // shows once its timers ran, as the engine's reading has waited
            // for its own.
            tokio::time::sleep(std::time::Duration::from_secs(1)).await;
            let later = page.evaluate(INNER_TEXT).await?;
            text = later.as_str().unwrap_or_default().to_owned();
        }
        context.close().await?;
        let text = text.as_str();
        let shown = |t: &str| abbreviate(&t.split_whitespace().collect::<Vec<_>>().join(" "), 80);
        scores.push((
            text_f1(text, ours).f1,
            format!("{id}: {:?} vs {:?}", shown(ours), shown(text)),
        ));
        if scores.len() % 10 == 0 {
            b.settle().await;
        }
    }
    let mean = scores.iter().map(|(f1, _)| f1).sum::<f64>() / scores.len().max(1) as f64;
    let worst = scores
        .iter()
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map_or_else(String::new, |(f1, id)| format!("; lowest {f1:.3} ({id})"));
    let check = Check {
        row: name.to_owned(),
        what: format!("text of {} real pages", scores.len()),
        passed: mean >= MIN_TEXT_F1,
        detail: format!("mean F1 {mean:.3}{worst}"),
    };
    Ok(Measured {
        rows: vec![
            Row::new(name, Unit::Millis, &ours, &theirs).with_note(format!(
                "{} pages; {} stopped by the engine's script budget{}",
                pages.len(),
                budget_stops.len(),
                if budget_stops.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", budget_stops.join(", "))
                }
            )),
        ],
        checks: vec![check],
    })
}
