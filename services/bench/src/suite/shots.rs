//! Screenshots of the corpus's landing page at 1280×720: `servo_screenshot`
//! through MCP against CDP `Page.captureScreenshot`, and the two PNGs compared
//! (size, blocks differing, bytes) so a faster screenshot cannot be a smaller
//! or emptier one. Two rows: screenshots of the page as it is, and each after
//! a change both sides make untimed (the heading's text), which neither side
//! can answer from its last paint.

use std::time::Instant;

use serde_json::json;

use super::{Bench, Check, Measured, close, progress};
use crate::pixels::{decode_png, differing_blocks};
use crate::stats::{Row, Samples, Unit};

/// The most of the blocks that may differ between the two screenshots.
const MAX_DIFFERING_BLOCKS: f64 = 0.10;
/// Screenshots of a page nothing changed on since the last one (which the
/// fleet answers from the last paint when the page paints the same).
const UNCHANGED: &str = "screenshot 1280×720 PNG";
/// Screenshots each after a change to the page (a new heading), so each is
/// painted again on both sides.
const CHANGED: &str = "screenshot 1280×720 PNG after a change to the page";

pub(super) async fn screenshot_row(b: &Bench<'_>) -> anyhow::Result<Measured> {
    let n = b.sizes.screenshots;
    progress(&format!(
        "screenshot ×{n} after a change, then ×{n} as it is"
    ));
    let url = format!("{}/landing.html", b.site);
    let (id, _) = b
        .mcp
        .act(
            "servo_navigate",
            json!({ "url": url, "width": 1280, "height": 720 }),
        )
        .await?;
    let context = b.chromium.new_context().await?;
    let page = context.new_page().await?;
    page.set_viewport(1280, 720).await?;
    page.navigate(&url).await?;
    let mut rows = Vec::new();
    let mut checks = Vec::new();
    // The row after a change first. Right after the real-world row a
    // screenshot is slower for a while (the same screenshots took 11.9 ms p50
    // here and 8.4 ms later in the run), and the row whose every screenshot is
    // painted should bear that, not the one answered from the last paint.
    for changed in [true, false] {
        let name = if changed { CHANGED } else { UNCHANGED };
        let (mut ours, mut theirs) = (Samples::new(), Samples::new());
        let mut our_png = Vec::new();
        for take in 0..n {
            if changed {
                let script = retitle(take);
                b.mcp
                    .act(
                        "servo_evaluate",
                        json!({ "sessionID": id, "script": script }),
                    )
                    .await?;
            }
            let t = Instant::now();
            our_png = b.mcp.screenshot(&id).await?;
            ours.push_duration(t.elapsed());
        }
        let mut their_png = Vec::new();
        for take in 0..n {
            if changed {
                page.evaluate(&retitle(take)).await?;
            }
            let t = Instant::now();
            their_png = page.screenshot_png().await?;
            theirs.push_duration(t.elapsed());
        }
        let (a, c) = (decode_png(&our_png)?, decode_png(&their_png)?);
        let share = differing_blocks(&a, &c);
        checks.push(Check {
            row: name.to_owned(),
            what: "screenshot size".to_owned(),
            passed: a.dimensions() == c.dimensions() && a.dimensions() == (1280, 720),
            detail: format!("{:?} vs {:?}", a.dimensions(), c.dimensions()),
        });
        checks.push(Check {
            row: name.to_owned(),
            what: "screenshot blocks".to_owned(),
            passed: share <= MAX_DIFFERING_BLOCKS,
            detail: format!(
                "{:.1} % of 16×16 blocks differ (at most {:.0} %)",
                share * 100.0,
                MAX_DIFFERING_BLOCKS * 100.0
            ),
        });
        rows.push(
            Row::new(name, Unit::Millis, &ours, &theirs).with_note(format!(
                "landing.html{}; PNG {} KB vs {} KB; {:.1} % of blocks differ",
                if changed {
                    ", its heading's text changed before each"
                } else {
                    ", nothing changed between screenshots"
                },
                our_png.len() / 1000,
                their_png.len() / 1000,
                share * 100.0
            )),
        );
    }
    close(b.mcp, &id).await?;
    context.close().await?;
    // The page as it is, then after a change, as the table reads.
    rows.reverse();
    Ok(Measured { rows, checks })
}

/// The script both sides run, untimed, before each screenshot of the
/// [`CHANGED`] row: the heading's text, different each time, so the page must
/// be laid out and painted again (in Chromium, the damaged part).
fn retitle(take: usize) -> String {
    format!("document.querySelector('h1').textContent = 'Browse at fleet scale, take {take}'")
}
