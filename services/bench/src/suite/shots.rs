//! Screenshots of the corpus's landing page at 1280×720: `servo_screenshot`
//! through MCP against CDP `Page.captureScreenshot`, and the two PNGs compared
//! (size, blocks differing, bytes) so a faster screenshot cannot be a smaller
//! or emptier one.

use std::time::Instant;

use serde_json::json;

use super::{Bench, Check, Measured, close, progress};
use crate::pixels::{decode_png, differing_blocks};
use crate::stats::{Row, Samples, Unit};

/// The most of the blocks that may differ between the two screenshots.
const MAX_DIFFERING_BLOCKS: f64 = 0.10;

pub(super) async fn screenshot_row(b: &Bench<'_>) -> anyhow::Result<Measured> {
    let n = b.sizes.screenshots;
    progress(&format!("screenshot ×{n}"));
    let name = "screenshot 1280×720 PNG";
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
    let (mut ours, mut theirs) = (Samples::new(), Samples::new());
    let mut our_png = Vec::new();
    for _ in 0..n {
        let t = Instant::now();
        our_png = b.mcp.screenshot(&id).await?;
        ours.push_duration(t.elapsed());
    }
    let mut their_png = Vec::new();
    for _ in 0..n {
        let t = Instant::now();
        their_png = page.screenshot_png().await?;
        theirs.push_duration(t.elapsed());
    }
    close(b.mcp, &id).await?;
    context.close().await?;
    let (a, c) = (decode_png(&our_png)?, decode_png(&their_png)?);
    let share = differing_blocks(&a, &c);
    let checks = vec![
        Check {
            row: name.to_owned(),
            what: "screenshot size".to_owned(),
            passed: a.dimensions() == c.dimensions() && a.dimensions() == (1280, 720),
            detail: format!("{:?} vs {:?}", a.dimensions(), c.dimensions()),
        },
        Check {
            row: name.to_owned(),
            what: "screenshot blocks".to_owned(),
            passed: share <= MAX_DIFFERING_BLOCKS,
            detail: format!(
                "{:.1} % of 16×16 blocks differ (at most {:.0} %)",
                share * 100.0,
                MAX_DIFFERING_BLOCKS * 100.0
            ),
        },
    ];
    Ok(Measured {
        rows: vec![
            Row::new(name, Unit::Millis, &ours, &theirs).with_note(format!(
                "landing.html; PNG {} KB vs {} KB; {:.1} % of blocks differ",
                our_png.len() / 1000,
                their_png.len() / 1000,
                share * 100.0
            )),
        ],
        checks,
    })
}
