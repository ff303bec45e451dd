//! What crossing from JavaScript into the DOM costs: the operations scripts
//! lean on (a live `getElementsByTagName('*')` walked by index, a
//! `querySelectorAll`, a recursive `childNodes` walk, `getComputedStyle` of
//! every element, a jQuery selection), run by the same script in both browsers
//! on the real 300 KB page (about 8,000 elements, jQuery loaded), each timed
//! inside the page with `performance.now()`, so neither side pays for its
//! protocol. Each operation also returns what it counted, and the two sides'
//! counts must agree: a fast answer that saw fewer nodes is not faster.

use std::collections::BTreeMap;

use anyhow::Context as _;
use serde_json::{Value, json};

use super::{Bench, Check, Measured, close, progress};
use crate::stats::{Row, Samples, Unit};

/// The operations, by name, in the order the script runs them.
const OPERATIONS: [&str; 5] = [
    "getElementsByTagName('*') walked by index",
    "querySelectorAll of five tags",
    "childNodes walk of the whole tree",
    "getComputedStyle(el).display of every element",
    "jQuery('div a') + .each",
];

/// Runs every operation once; returns `{name: [milliseconds, count]}` as JSON
/// text (both sides hand back a string, so no protocol reshapes the numbers).
const SCRIPT: &str = include_str!("crossing.js");

/// One run's figures: milliseconds and count per operation.
type Run = BTreeMap<String, (f64, i64)>;

fn parse_run(text: &str) -> anyhow::Result<Run> {
    let value: Value = serde_json::from_str(text).context("the crossing script's answer")?;
    let object = value
        .as_object()
        .context("the crossing script returned no object")?;
    let mut run = Run::new();
    for (name, figures) in object {
        let ms = figures[0].as_f64().context("no time")?;
        let count = figures[1].as_i64().context("no count")?;
        run.insert(name.clone(), (ms, count));
    }
    Ok(run)
}

/// The crossing rows: the real 300 KB page loaded once on each side, then the
/// script run `rounds` times in it.
pub(super) async fn crossing_rows(b: &Bench<'_>) -> anyhow::Result<Measured> {
    let url = b.real.memory_page().split('?').next().unwrap_or_default();
    let rounds = b.sizes.crossing_rounds;
    progress(&format!("JS → DOM crossing on {url} ×{rounds}"));
    let (id, _) = b.mcp.act("servo_navigate", json!({ "url": url })).await?;
    let mut ours = Vec::new();
    for _ in 0..rounds {
        let (_, out) = b
            .mcp
            .act(
                "servo_evaluate",
                json!({ "sessionID": id, "script": SCRIPT }),
            )
            .await?;
        ours.push(parse_run(out["value"].as_str().unwrap_or_default())?);
    }
    close(b.mcp, &id).await?;

    let context = b.chromium.new_context().await?;
    let page = context.new_page().await?;
    page.set_viewport(1280, 720).await?;
    page.navigate(url).await?;
    let mut theirs = Vec::new();
    for _ in 0..rounds {
        let value = page.evaluate(SCRIPT).await?;
        theirs.push(parse_run(value.as_str().unwrap_or_default())?);
    }
    context.close().await?;

    let mut measured = Measured::default();
    let path = url.splitn(4, '/').nth(3).unwrap_or(url);
    let elements = theirs
        .first()
        .and_then(|run| run.get(OPERATIONS[0]))
        .map_or(0, |(_, n)| *n);
    for op in OPERATIONS {
        let samples = |runs: &[Run]| {
            let mut samples = Samples::new();
            for run in runs {
                if let Some((ms, _)) = run.get(op) {
                    samples.push(*ms);
                }
            }
            samples
        };
        let name = format!("JS → DOM: {op}");
        let count = |runs: &[Run]| runs.first().and_then(|r| r.get(op)).map(|(_, n)| *n);
        let (our_count, their_count) = (count(&ours), count(&theirs));
        measured.checks.push(Check {
            row: name.clone(),
            what: format!("what the operation counted on {path}"),
            passed: our_count.is_some() && our_count == their_count,
            detail: format!("{our_count:?} vs {their_count:?}"),
        });
        measured.rows.push(
            Row::new(&name, Unit::Millis, &samples(&ours), &samples(&theirs)).with_note(format!(
                "{path} ({elements} elements), timed inside the page with performance.now() on both sides"
            )),
        );
    }
    Ok(measured)
}
