//! The engine's JavaScript preludes as the worker's host shares them: compiled
//! once per process by an instance that loads no page, read by every tab.

use std::time::Duration;

use fleet_worker::host::{Source, Viewport};

const BUDGET: Duration = Duration::from_secs(20);

/// The engine's JavaScript preludes are compiled once per process, by an
/// instance that loads no page, and every tab's first script reads them from
/// the host instead of compiling ≈330 KB of source itself. Built-ins still
/// look native to feature detection on the first page, and a tab asks for
/// each prelude once, however many documents it loads.
#[tokio::test(flavor = "multi_thread")]
async fn every_tab_takes_the_preludes_the_host_compiled_once() -> anyhow::Result<()> {
    let host = crate::harness::engine_host(4, &[])?;
    host.warm().await?;
    const PROBE: &str = "<!doctype html><title>p</title><p id=out></p><script>\
        out.textContent = [typeof document.querySelector, \
        /\\[native code\\]/.test(Function.prototype.toString.call(document.querySelector)), \
        typeof indexedDB.open, typeof fetch, typeof Intl.NumberFormat].join(' ')</script>";
    for _ in 0..2 {
        let mut tab = host
            .new_tab(Viewport {
                width: 800,
                height: 600,
            })
            .await?;
        assert_eq!(
            tab.preludes_from_host(),
            0,
            "a tab asks only when a script runs"
        );
        for load in 0..2 {
            let summary = tab.load(Source::Html(PROBE.into()), BUDGET).await?;
            assert!(
                summary
                    .text
                    .contains("function true function function function"),
                "load {load}: the preludes did not build the page's API: {:?} (console: {:?})",
                summary.text,
                summary.console
            );
            assert_eq!(
                tab.preludes_from_host(),
                9,
                "load {load}: every prelude comes from the host, once per tab"
            );
        }
    }
    Ok(())
}
