//! The worker's code cache: page scripts compiled once per worker and tenant
//! by a fresh instance, then read as bytecode by every tab of that tenant.

use std::time::Duration;

use fleet_worker::host::{CodeCacheStats, EngineHost, Source, Tab, Viewport};

const BUDGET: Duration = Duration::from_secs(20);

/// A page whose first script is big enough to be kept. What it writes shows
/// what a script compiled from source shows: a function's source text, a
/// thrown error's line, its global `var` and `let` bindings seen by the next
/// script, and its completion not leaking anywhere.
fn page() -> String {
    let filler = format!("/*{}*/", "filler ".repeat(200));
    format!(
        "<!doctype html><title>c</title><p id=out></p><script>{filler}\n\
         var kept = 'var';\n\
         let lexical = 'let';\n\
         function shown(a, b) {{ /* the comment stays */ return a + b; }}\n\
         function thrower() {{\n  throw new Error('thrown here');\n}}\n\
         </script><script>\
         out.textContent = [shown.toString(), kept, lexical, \
         (() => {{ try {{ thrower(); }} catch (e) {{ return e.stack.split('\\n')[0].trim(); }} }})()]\
         .join(' | ');</script>"
    )
}

async fn tab(host: &EngineHost, tenant: &str) -> anyhow::Result<Tab> {
    let mut tab = host
        .new_tab(Viewport {
            width: 800,
            height: 600,
        })
        .await?;
    tab.set_tenant(tenant);
    Ok(tab)
}

async fn text(host: &EngineHost, tenant: &str, html: &str) -> anyhow::Result<String> {
    let mut tab = tab(host, tenant).await?;
    let summary = tab.load(Source::Html(html.to_owned()), BUDGET).await?;
    assert!(
        summary.console.iter().all(|c| c.level != "error"),
        "the page reported errors: {:?}",
        summary.console
    );
    Ok(summary.text)
}

/// A script a tab missed is compiled by the host after the call, in an
/// instance of its own; the next tab of the same tenant reads its bytecode
/// and the page shows exactly what it showed compiled from source (the
/// function's text, the error's line, the bindings the next script reads).
/// Another tenant's tab misses: tenants share nothing.
#[tokio::test(flavor = "multi_thread")]
async fn a_tenants_second_tab_runs_a_script_from_the_code_cache_as_from_source()
-> anyhow::Result<()> {
    let host = crate::harness::engine_host(4, &[])?;
    host.warm().await?;
    let page = page();
    let from_source = text(&host, "one", &page).await?;
    assert!(
        from_source.starts_with(
            "function shown(a, b) { /* the comment stays */ return a + b; } | var | let | "
        ) && from_source.contains("at thrower ("),
        "the page did not run as expected: {from_source:?}"
    );
    assert_eq!(
        host.code_cache(),
        CodeCacheStats {
            scripts: 0,
            bytes: 0,
            hits: 0,
            misses: 1
        },
        "only the big script is looked up"
    );
    assert_eq!(host.compile_scripts().await, 1);
    assert!(!host.scripts_waiting());
    let kept = host.code_cache();
    assert_eq!((kept.scripts, kept.hits), (1, 0));
    assert!(kept.bytes > 0);

    let from_cache = text(&host, "one", &page).await?;
    assert_eq!(
        host.code_cache().hits,
        1,
        "the second tab read the bytecode"
    );
    assert_eq!(from_cache, from_source);

    let other = text(&host, "two", &page).await?;
    let after = host.code_cache();
    assert_eq!((after.hits, after.misses), (1, 2), "another tenant missed");
    assert_eq!(other, from_source);
    Ok(())
}

/// A big script with a syntax error is compiled once for the cache, fails,
/// and is not compiled again; every tab still reports its error, from its
/// own compile.
#[tokio::test(flavor = "multi_thread")]
async fn a_script_that_does_not_compile_is_reported_by_every_tab_and_compiled_once()
-> anyhow::Result<()> {
    let host = crate::harness::engine_host(4, &[])?;
    host.warm().await?;
    let filler = format!("/*{}*/", "filler ".repeat(200));
    let page = format!(
        "<!doctype html><p id=out>before</p><script>{filler} var = ;</script>\
         <script>out.textContent = 'after';</script>"
    );
    for round in 0..3 {
        let mut tab = tab(&host, "one").await?;
        let summary = tab.load(Source::Html(page.clone()), BUDGET).await?;
        assert_eq!(summary.text, "after", "round {round}: the next script ran");
        assert!(
            summary
                .console
                .iter()
                .any(|c| c.level == "error" && c.text.contains("SyntaxError")),
            "round {round}: the syntax error was not reported: {:?}",
            summary.console
        );
        host.compile_scripts().await;
    }
    let stats = host.code_cache();
    assert_eq!((stats.scripts, stats.bytes, stats.hits), (1, 0, 0));
    Ok(())
}

/// Through the fleet: the worker compiles the script a session's page missed
/// after the call has answered, and the session's next document reads its
/// bytecode (the worker's lookup counter says so) and shows the same page.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_worker_compiles_a_missed_script_after_the_answer_for_the_next_document() {
    use serde_json::json;

    use crate::harness::{Fleet, act, call, first, metrics};

    let fleet = Fleet::start(1).await;
    let client = fleet.client("cache").await;
    let page = page();
    let (out, _) = call(
        &client,
        "servo_navigate",
        json!({"actions": [{"html": page}]}),
    )
    .await;
    let r = first(&out);
    assert_eq!(r["ok"], true, "{out:#}");
    let session = r["sessionID"].as_str().unwrap().to_owned();
    let first_text = r["response"]["page"]["text"].as_str().unwrap().to_owned();
    assert!(first_text.contains("the comment stays"), "{first_text}");
    let lookups = || async {
        let text = metrics(&format!("http://{}", fleet.workers[0].0)).await;
        let count = |result: &str| {
            let name = format!("fleet_worker_code_cache_lookups_total{{result=\"{result}\"}} ");
            text.lines()
                .find_map(|l| l.strip_prefix(&name)?.parse::<u64>().ok())
                .unwrap_or(0)
        };
        (count("hit"), count("miss"))
    };
    assert_eq!(lookups().await, (0, 1));
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    loop {
        let r = act(&client, "servo_navigate", &session, json!({"html": page})).await;
        assert_eq!(r["ok"], true, "{r:#}");
        assert_eq!(r["response"]["page"]["text"], first_text.as_str());
        if lookups().await.0 > 0 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no document read the script's bytecode: {:?}",
            lookups().await
        );
    }
}
