//! New sessions and restored ones. Chromium starts a page two ways, and both
//! are reported: cold (a new browser context and page, so a new renderer
//! process) and from a warm pool (pages opened before the clock starts, as a
//! pool-keeping Chromium service would hand them out). The fleet's side is the
//! same call either way: an engine instance per session, taken from the one a
//! worker keeps ready (its warm pool of one, made again after each create).

use std::time::Instant;

use serde_json::json;

use super::{Bench, Check, INNER_TEXT, Measured, close, progress, text_check};
use crate::chromium::{Chromium, Context, Page};
use crate::corpus::SMALL;
use crate::stats::{Row, Samples, Unit};

/// What a Chromium page does once the clock runs.
#[derive(Clone, Copy)]
enum Work<'a> {
    /// `setContent` of inline HTML, then read its text.
    Content(&'a str),
    /// Load a URL, then run a script that writes the session's state back.
    Restore { url: &'a str, script: &'a str },
}

impl Work<'_> {
    async fn run(self, page: &Page) -> anyhow::Result<String> {
        match self {
            Work::Content(html) => {
                page.set_content(html).await?;
                Ok(page
                    .evaluate(INNER_TEXT)
                    .await?
                    .as_str()
                    .unwrap_or_default()
                    .to_owned())
            }
            Work::Restore { url, script } => {
                page.navigate(url).await?;
                page.evaluate(script).await?;
                Ok(String::new())
            }
        }
    }
}

/// Times `n` cold starts (new context + page + `work`), closing them only after
/// the last is timed so teardown never lands inside a sample. Returns the
/// samples and the first page's text.
async fn cold(chromium: &Chromium, n: usize, work: Work<'_>) -> anyhow::Result<(Samples, String)> {
    let mut samples = Samples::new();
    let mut contexts = Vec::new();
    let mut text = None;
    for _ in 0..n {
        let t = Instant::now();
        let context = chromium.new_context().await?;
        let page = context.new_page().await?;
        let read = work.run(&page).await?;
        samples.push_duration(t.elapsed());
        text.get_or_insert(read);
        contexts.push(context);
    }
    for context in contexts {
        context.close().await?;
    }
    Ok((samples, text.unwrap_or_default()))
}

/// Times `work` on `n` pages opened (each in its own context) before the clock
/// started.
async fn warm(chromium: &Chromium, n: usize, work: Work<'_>) -> anyhow::Result<Samples> {
    let mut pool: Vec<(Context, Page)> = Vec::new();
    for _ in 0..n {
        let context = chromium.new_context().await?;
        let page = context.new_page().await?;
        pool.push((context, page));
    }
    let mut samples = Samples::new();
    for (_, page) in &pool {
        let t = Instant::now();
        work.run(page).await?;
        samples.push_duration(t.elapsed());
    }
    for (context, _) in pool {
        context.close().await?;
    }
    Ok(samples)
}

/// Session create + a small scripted inline page and its text: a new session
/// through the gateway vs a new Chromium page, cold and warm.
pub(super) async fn create_rows(b: &Bench<'_>) -> anyhow::Result<Measured> {
    let n = b.sizes.create;
    progress(&format!("create + first page ×{n}"));
    // One side at a time: Chromium tears contexts down in the background, and
    // that work must not land on the fleet's samples (or the reverse).
    let mut ours = Samples::new();
    let mut ids = Vec::new();
    let mut our_text = String::new();
    for _ in 0..n {
        let t = Instant::now();
        let (id, _) = b
            .mcp
            .act("servo_navigate", json!({ "html": SMALL }))
            .await?;
        ours.push_duration(t.elapsed());
        if ids.is_empty() {
            our_text = super::fleet_text(b.mcp, &id).await?;
        }
        ids.push(id);
    }
    for id in &ids {
        close(b.mcp, id).await?;
    }
    let (cold, their_text) = cold(b.chromium, n, Work::Content(SMALL)).await?;
    b.settle().await;
    let warm = warm(b.chromium, n, Work::Content(SMALL)).await?;
    let name = "session create + small scripted page + text";
    let checks: Vec<Check> = vec![text_check(name, "the small page", &their_text, &our_text)];
    Ok(Measured {
        rows: vec![
            Row::new(format!("{name}, Chromium cold"), Unit::Millis, &ours, &cold)
                .with_note("Chromium: new context + page + setContent + innerText"),
            Row::new(
                format!("{name}, Chromium warm pool"),
                Unit::Millis,
                &ours,
                &warm,
            )
            .with_note(
                "Chromium: setContent + innerText on a page opened before the clock started",
            ),
        ],
        checks,
    })
}

/// Restore of an evicted session (its route dropped, so the next call claims it
/// under a new epoch and rebuilds it from its Postgres checkpoint: cookies,
/// storage, the page reloaded, form fields, scroll) → first answer, vs Chromium
/// restoring the same state (navigate, write localStorage back) cold and warm.
pub(super) async fn restore_rows(b: &Bench<'_>) -> anyhow::Result<Measured> {
    let n = b.sizes.restores;
    progress(&format!("restore of an evicted session ×{n}"));
    let url = format!("{}/article.html", b.site);
    let write = "for (let i = 0; i < 20; i++) localStorage.setItem('k' + i, 'v'.repeat(100)); 1";
    let mut ids = Vec::new();
    for _ in 0..n {
        let (id, _) = b.mcp.act("servo_navigate", json!({ "url": url })).await?;
        b.mcp
            .act(
                "servo_evaluate",
                json!({ "sessionID": id, "script": write }),
            )
            .await?;
        ids.push(id);
    }
    let mut ours = Samples::new();
    for id in &ids {
        let (_, epoch) = b.fleet.route(id).await?;
        b.fleet.forget_route(id).await?;
        let t = Instant::now();
        let (_, out) = b
            .mcp
            .act("servo_inspect", json!({ "sessionID": id }))
            .await?;
        ours.push_duration(t.elapsed());
        anyhow::ensure!(
            b.fleet.route(id).await?.1 > epoch,
            "the session was not claimed again"
        );
        anyhow::ensure!(out["page"]["url"] == json!(url), "restored the wrong page");
    }
    for id in &ids {
        close(b.mcp, id).await?;
    }
    let work = Work::Restore {
        url: &url,
        script: write,
    };
    let (cold, _) = cold(b.chromium, n, work).await?;
    b.settle().await;
    let warm = warm(b.chromium, n, work).await?;
    let name = "restore evicted session → first answer";
    Ok(Measured {
        rows: vec![
            Row::new(format!("{name}, Chromium cold"), Unit::Millis, &ours, &cold)
                .with_note("Chromium: new context + page, navigate, write localStorage back"),
            Row::new(format!("{name}, Chromium warm pool"), Unit::Millis, &ours, &warm)
                .with_note("Chromium: navigate and write localStorage back on a page opened before the clock started"),
        ],
        checks: Vec::new(),
    })
}
