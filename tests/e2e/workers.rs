//! Dedicated workers: a worker's script runs in a realm of its own, imports
//! scripts and makes requests relative to its own URL, and talks to the page
//! only through messages; its errors reach the `Worker` object.

use std::net::SocketAddr;
use std::time::Duration;

use fleet_worker::host::Source;

const BUDGET: Duration = Duration::from_secs(10);

/// A loopback site: a page whose worker lives in `js/`, next to what it loads.
async fn site() -> String {
    use axum::response::Html;
    use axum::routing::get;
    let js = |body: &'static str| {
        (
            [(axum::http::header::CONTENT_TYPE, "text/javascript")],
            body,
        )
    };
    let app = axum::Router::new()
        .route(
            "/page.html",
            get(|| async {
                Html(
                    "<!doctype html><title>worker</title><p id=out>waiting</p><script>
                    const w = new Worker('js/worker.js');
                    w.onmessage = (e) => {
                      out.textContent = [e.data.answer, e.data.words.join(','), e.data.scope,
                        e.data.own, typeof double, typeof workerOnly].join(' ');
                    };
                    w.postMessage({ n: 20, tag: ['x', 'y'] });
                    </script>",
                )
            }),
        )
        .route(
            "/js/worker.js",
            get(move || async move {
                js("importScripts('lib.js');
                var workerOnly = 1;
                onmessage = function (e) {
                  var xhr = new XMLHttpRequest();
                  xhr.open('GET', 'words.json');
                  xhr.onload = function () {
                    postMessage({
                      answer: double(e.data.n),
                      words: JSON.parse(xhr.responseText),
                      scope: String(self instanceof WorkerGlobalScope) + '/' + typeof document,
                      own: Array.isArray(e.data.tag) && e.data.tag instanceof Array,
                    });
                  };
                  xhr.send();
                };")
            }),
        )
        .route(
            "/js/lib.js",
            get(move || async move { js("function double(x) { return x * 2; }") }),
        )
        .route("/js/words.json", get(|| async { "[\"alpha\", \"beta\"]" }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}")
}

/// The worker imports `lib.js` and requests `words.json` relative to its own
/// script (`js/`), not the page; the message it gets is an object of its own
/// realm (`instanceof Array` holds there), it sees no `document`, and what it
/// declares does not leak into the page.
#[tokio::test(flavor = "multi_thread")]
async fn a_worker_runs_in_its_own_realm_and_loads_relative_to_its_script() -> anyhow::Result<()> {
    // covers: workers
    let base = site().await;
    let (_host, mut tab) = crate::harness::engine_tab(&["127.0.0.0/8"]).await?;
    let summary = tab
        .load(Source::Url(format!("{base}/page.html")), BUDGET)
        .await?;
    assert_eq!(
        summary.text, "40 alpha,beta true/undefined true undefined undefined",
        "console: {:?}",
        summary.console
    );
    Ok(())
}

/// A cross-origin script is refused at once; a worker from a blob: URL
/// answers; an exception it does not catch is an `error` event on the
/// Worker (here cancelled, so not logged); after `terminate` nothing more
/// arrives; and the next document (which drops the page's realm with the
/// worker's) loads as usual.
#[tokio::test(flavor = "multi_thread")]
async fn worker_errors_reach_the_page_and_terminate_stops_it() -> anyhow::Result<()> {
    let (_host, mut tab) = crate::harness::engine_tab(&[]).await?;
    let page = "<!doctype html><title>w</title><p id=out>waiting</p><script>
        const lines = [];
        try { new Worker('http://203.0.113.9/w.js'); } catch (e) { lines.push(e.name); }
        const code = \"onmessage = (e) => { if (e.data === 'boom') throw new Error('worker broke'); postMessage(e.data + '!'); }\";
        const w = new Worker(URL.createObjectURL(new Blob([code])));
        w.onerror = (e) => { lines.push('error: ' + e.message); e.preventDefault(); w.postMessage('after'); w.terminate(); w.postMessage('late'); };
        w.onmessage = (e) => { lines.push('message: ' + e.data); if (e.data === 'hi!') w.postMessage('boom'); };
        w.postMessage('hi');
        setTimeout(() => { out.textContent = lines.join(' | '); }, 50);
        </script>";
    let summary = tab.load(Source::Html(page.into()), BUDGET).await?;
    assert_eq!(
        summary.text, "SecurityError | message: hi! | error: Uncaught Error: worker broke",
        "console: {:?}",
        summary.console
    );
    assert!(
        !summary
            .console
            .iter()
            .any(|c| c.text.contains("worker broke")),
        "a cancelled error is not logged: {:?}",
        summary.console
    );
    let next = tab
        .load(
            Source::Html("<title>next</title><p>after the worker".into()),
            BUDGET,
        )
        .await?;
    assert_eq!(next.text, "after the worker");
    Ok(())
}
