//! How the engine's event loop reports the end of a load: what `settle`
//! says when a page keeps scheduling timers, and when a script is stopped.

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

/// A script stopped at its time budget is reported as stopped, wherever it
/// ran: the load settles `budget`, the console says the script was stopped
/// (it is not an error of the page's that its `onerror` sees), and the
/// scripts after it still run, as after a browser's "stop script".
#[tokio::test(flavor = "multi_thread")]
async fn a_script_stopped_by_its_budget_in_a_load_or_a_timer_settles_budget() -> anyhow::Result<()>
{
    let (_host, mut tab) = crate::harness::engine_tab(&[]).await?;
    let stopped = |console: &[fleet_worker::host::ConsoleEntry], name: &str| {
        console.iter().any(|c| {
            c.level == "error"
                && c.text.contains("ran past its time budget and was stopped")
                && c.text.contains(name)
        })
    };
    let page = "<title>stopped</title><p id=out>before</p>
        <script>window.errors = 0; window.onerror = () => { errors++; };</script>
        <script>while (true) {}</script>
        <script>out.textContent = 'after, errors ' + errors;</script>";
    let summary = tab.load(Source::Html(page.into()), BUDGET).await?;
    assert_settles_budget(&summary);
    assert_eq!(summary.text, "after, errors 0");
    assert!(
        stopped(&summary.console, "(inline-script-2)"),
        "{:?}",
        summary.console
    );

    let page = "<title>timer</title><p id=out>before</p><script>
        setTimeout(() => { out.textContent = 'ran'; for (;;) {} }, 0);
        </script>";
    let summary = tab.load(Source::Html(page.into()), BUDGET).await?;
    assert_settles_budget(&summary);
    assert_eq!(summary.text, "ran");
    assert!(stopped(&summary.console, ""), "{:?}", summary.console);
    Ok(())
}

fn assert_settles_budget(summary: &fleet_worker::host::Summary) {
    assert!(
        matches!(summary.settle, Settle::Budget),
        "settle {:?}, console {:?}",
        summary.settle,
        summary.console
    );
}
