//! How the engine's event loop reports the end of a load: what `settle`
//! says when a page keeps scheduling timers.

use std::time::Duration;

use fleet_worker::host::{Settle, Source};

const BUDGET: Duration = Duration::from_secs(10);

/// A page retrying with `setTimeout(f, 0)` forever (Doxygen's navtree.js
/// without its jQuery plugin) hits the cap on callbacks: it loops, as in a
/// browser, but no script was stopped, so it is quiet, not out of budget.
#[tokio::test(flavor = "multi_thread")]
async fn a_timer_retry_loop_without_end_settles_quiet_not_budget() -> anyhow::Result<()> {
    let (_host, mut tab) = crate::harness::engine_tab(&[]).await?;
    let page = "<title>retry</title><p id=out>retrying</p><script>
        let tries = 0;
        (function retry() { tries++; out.textContent = 'tries ' + (tries > 100); setTimeout(retry, 0); })();
        </script>";
    let summary = tab.load(Source::Html(page.into()), BUDGET).await?;
    assert!(
        matches!(summary.settle, Settle::Quiet),
        "settle {:?}, console {:?}",
        summary.settle,
        summary.console
    );
    assert_eq!(
        summary.text, "tries true",
        "the loop ran past the cap's first hundred"
    );
    Ok(())
}
