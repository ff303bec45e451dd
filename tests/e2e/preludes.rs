//! The engine's JavaScript preludes and realms as the worker's host sets them
//! up: the preludes compiled once, in the pre-initialized engine every tab
//! starts from; a realm made between calls and put back in a tab that
//! navigates.

use std::time::Duration;

use fleet_worker::host::{Source, Viewport};

const BUDGET: Duration = Duration::from_secs(20);

/// Every tab is instantiated from the engine as it was after
/// `page.initialize` (`host/preinit.rs`), every prelude's bytecode compiled,
/// so no tab asks the host for a prelude or compiles one, IndexedDB's and
/// Intl's included. Built-ins still look native to feature detection on the
/// first page.
#[tokio::test(flavor = "multi_thread")]
async fn every_tab_starts_with_the_preludes_compiled_into_the_engine() -> anyhow::Result<()> {
    let host = crate::harness::engine_host(4, &[])?;
    host.warm().await?;
    const PLAIN: &str = "<!doctype html><title>p</title><p id=out></p><script>\
        out.textContent = [typeof document.querySelector, \
        /\\[native code\\]/.test(Function.prototype.toString.call(document.querySelector)), \
        typeof fetch, 'indexedDB' in window].join(' ')</script>";
    const PROBE: &str = "<!doctype html><title>p</title><p id=out></p><script>\
        out.textContent = [typeof indexedDB.open, typeof Intl.NumberFormat].join(' ')</script>";
    for _ in 0..2 {
        let mut tab = new_tab(&host).await?;
        for load in 0..2 {
            let summary = tab.load(Source::Html(PLAIN.into()), BUDGET).await?;
            assert!(
                summary.text.contains("function true function true"),
                "load {load}: the preludes did not build the page's API: {:?} (console: {:?})",
                summary.text,
                summary.console
            );
            let summary = tab.load(Source::Html(PROBE.into()), BUDGET).await?;
            assert!(
                summary.text.contains("function function"),
                "load {load}: IndexedDB or Intl is missing: {:?} (console: {:?})",
                summary.text,
                summary.console
            );
            assert_eq!(
                tab.preludes_asked(),
                0,
                "load {load}: the tab asked the host for preludes its engine should hold"
            );
        }
    }
    Ok(())
}

/// Tabs start from one pre-initialized image, yet nothing a page can read
/// repeats between them: each new tab's first page draws its own
/// `Math.random` and `crypto` values, and its clock starts with its
/// document, not when the image was made.
#[tokio::test(flavor = "multi_thread")]
async fn tabs_from_one_image_draw_their_own_random_numbers_and_clock() -> anyhow::Result<()> {
    let host = crate::harness::engine_host(4, &[])?;
    host.warm().await?;
    const PAGE: &str = "<!doctype html><p id=out></p><script>out.textContent = ['drawn', \
        Math.random(), Math.random(), crypto.getRandomValues(new Uint32Array(2)).join('-'), \
        crypto.randomUUID(), performance.timeOrigin].join(' ')</script>";
    let mut seen: Vec<Vec<String>> = Vec::new();
    for tab in 0..3 {
        let opened = now_ms();
        let summary = new_tab(&host)
            .await?
            .load(Source::Html(PAGE.into()), BUDGET)
            .await?;
        let written = summary
            .text
            .find("drawn")
            .map_or("", |at| &summary.text[at..]);
        let words: Vec<String> = written.split_whitespace().map(str::to_owned).collect();
        assert_eq!(
            words.len(),
            6,
            "tab {tab}: {:?} (console: {:?})",
            summary.text,
            summary.console
        );
        let origin: f64 = words[5].parse()?;
        assert!(
            origin >= opened as f64,
            "tab {tab}: the clock started at {origin}, before the tab was opened at {opened}"
        );
        seen.push(words[1..5].to_vec());
    }
    for (i, one) in seen.iter().enumerate() {
        for other in &seen[i + 1..] {
            for (a, b) in one.iter().zip(other) {
                assert_ne!(a, b, "two tabs drew the same value: {seen:?}");
            }
        }
    }
    Ok(())
}

/// A new 800×600 tab of `host`.
async fn new_tab(host: &fleet_worker::host::EngineHost) -> anyhow::Result<fleet_worker::host::Tab> {
    host.new_tab(Viewport {
        width: 800,
        height: 600,
    })
    .await
}

/// IndexedDB and Intl's objects are evaluated when a page first uses them,
/// and look to the page as if they had been there from the start: the
/// globals enumerate as they will, the interfaces have their WebIDL shape
/// once touched, `history.state` clones with IndexedDB's serialization
/// before anything else loaded it, `toLocaleString` formats without the page
/// naming Intl, and a page's own global that looks like an interface is not
/// reshaped by the late walk.
#[tokio::test(flavor = "multi_thread")]
async fn indexeddb_and_intl_appear_on_first_use_as_if_always_there() -> anyhow::Result<()> {
    let host = crate::harness::engine_host(4, &[])?;
    host.warm().await?;
    let mut tab = new_tab(&host).await?;
    const PAGE: &str = "<!doctype html><title>p</title><p id=out></p><script>\
        function Mine() {} \
        const r = []; \
        r.push(Object.keys(window).includes('indexedDB'), Object.keys(window).includes('IDBKeyRange')); \
        history.pushState({ at: new Date(0), n: new Map([[1, 2]]) }, ''); \
        r.push(history.state.at instanceof Date, history.state.n.get(1)); \
        r.push((1234.5).toLocaleString()); \
        r.push(Object.prototype.toString.call(indexedDB), typeof IDBKeyRange.only, \
          Object.getOwnPropertyDescriptor(window, 'IDBKeyRange').enumerable, \
          String(IDBKeyRange.prototype[Symbol.toStringTag]), /\\[native code\\]/.test(String(IDBFactory))); \
        r.push(new Intl.NumberFormat('en-US').format(1e6), Intl === window.Intl); \
        r.push(Object.keys(window).includes('Mine'), Mine.prototype[Symbol.toStringTag] === undefined); \
        out.textContent = r.join(' ')</script>";
    let summary = tab.load(Source::Html(PAGE.into()), BUDGET).await?;
    let words: Vec<&str> = summary.text.split_whitespace().collect();
    assert_eq!(
        words,
        [
            "true",
            "false",
            "true",
            "2",
            "1,234.5",
            "[object",
            "IDBFactory]",
            "function",
            "false",
            "IDBKeyRange",
            "true",
            "1,000,000",
            "true",
            "true",
            "true"
        ],
        "{:?} (console: {:?})",
        summary.text,
        summary.console
    );
    assert_eq!(tab.preludes_asked(), 0);
    Ok(())
}

/// A tab that navigates between pages that run scripts makes its next
/// document's realm between calls (`prepare`, which a worker runs after each
/// answer). The document
/// that takes it gets a realm of its own, with none of the last page's
/// globals; its clock starts when the document takes it, not when the realm
/// was made, and what it remembers of the markup (the options a form's
/// reset returns to) is read from that document.
#[tokio::test(flavor = "multi_thread")]
async fn a_realm_made_between_calls_is_fresh_and_its_clock_starts_with_its_document()
-> anyhow::Result<()> {
    let host = crate::harness::engine_host(4, &[])?;
    host.warm().await?;
    let mut tab = new_tab(&host).await?;
    const FIRST: &str = "<!doctype html><p id=out></p><script>window.leak = 1; \
        out.textContent = 'first ' + typeof window.leak</script>";
    const NEXT: &str = "<!doctype html><form id=f><select id=s><option>a<option selected>b\
        </select></form><p id=out></p><script>s.value = 'a'; f.reset(); out.textContent = \
        ['next', typeof window.leak, performance.timeOrigin, performance.now() < 1000, s.value].join(' ')</script>";
    // A tab makes a realm ahead once it has gone from one scripted page to
    // another.
    for _ in 0..2 {
        let first = tab.load(Source::Html(FIRST.into()), BUDGET).await?;
        assert!(first.text.contains("first number"), "{:?}", first.text);
    }
    tab.prepare().await?;
    let made = now_ms();
    // The realm is older than the document that takes it by a few ms.
    while now_ms() < made + 3 {
        std::hint::spin_loop();
    }
    let taken = now_ms();
    let next = tab.load(Source::Html(NEXT.into()), BUDGET).await?;
    // The text is the options' and then the paragraph's.
    let written = next.text.find("next").map_or("", |at| &next.text[at..]);
    let words: Vec<&str> = written.split_whitespace().collect();
    assert_eq!(
        words.first().copied(),
        Some("next"),
        "{:?} (console: {:?})",
        next.text,
        next.console
    );
    assert_eq!(
        words.get(1).copied(),
        Some("undefined"),
        "the last page's global leaked"
    );
    let origin: f64 = words.get(2).unwrap_or(&"").parse()?;
    assert!(
        origin >= taken as f64,
        "the clock started when the realm was made ({origin}), before its document ({taken})"
    );
    assert_eq!(words.get(3).copied(), Some("true"));
    assert_eq!(
        words.get(4).copied(),
        Some("b"),
        "reset() returns to what this document's markup selected"
    );
    Ok(())
}

/// A tab that keeps navigating between scripted pages runs them all in one
/// realm that is put back as it was made for each document (`js/heap.rs`),
/// whether `prepare` made it and put it back between calls or the tab, never
/// prepared, did so on its navigations. Each document sees none of the last
/// one's globals, prototype changes or frames' writes, its frame realms
/// work, and Math.random never repeats.
#[tokio::test(flavor = "multi_thread")]
async fn a_tab_that_navigates_gets_a_realm_as_new_as_a_made_one_for_every_document()
-> anyhow::Result<()> {
    let host = crate::harness::engine_host(4, &[])?;
    host.warm().await?;
    const PAGE: &str = "<!doctype html><p id=out></p>\
        <iframe srcdoc=\"<script>parent.framed = (parent.framed || 0) + 1</script>\"></iframe>\
        <script>addEventListener('load', () => { out.textContent = ['page', typeof window.leak, \
        typeof Element.prototype.marker, typeof [].extra, window.framed, Math.random()].join(' '); \
        window.leak = 1; Element.prototype.marker = 1; Array.prototype.extra = 1; });</script>";
    for prepared in [true, false] {
        let mut tab = new_tab(&host).await?;
        let mut randoms = Vec::new();
        for document in 0..8 {
            let summary = tab.load(Source::Html(PAGE.into()), BUDGET).await?;
            let written = summary
                .text
                .find("page")
                .map_or("", |at| &summary.text[at..]);
            let words: Vec<&str> = written.split_whitespace().collect();
            assert_eq!(
                words.get(..5),
                Some(&["page", "undefined", "undefined", "undefined", "1"][..]),
                "prepared {prepared}, document {document} saw the last one's realm: {:?} \
                 (console: {:?})",
                summary.text,
                summary.console
            );
            randoms.push(words.get(5).copied().unwrap_or_default().to_owned());
            // Every other document, the host prepares between calls.
            if prepared && document % 2 == 1 {
                tab.prepare().await?;
            }
        }
        let mut distinct = randoms.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(
            distinct.len(),
            randoms.len(),
            "prepared {prepared}: Math.random repeated across documents: {randoms:?}"
        );
    }
    Ok(())
}

/// The wall clock in milliseconds, as the page's `Date.now()` reads it.
fn now_ms() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis())
}

/// A worker keeps one tab ready for its next session (instantiated, its
/// viewport set): the session takes it with its own viewport, its page runs,
/// and another tab is made ready behind it.
#[tokio::test(flavor = "multi_thread")]
async fn a_new_session_takes_the_tab_kept_ready_and_another_is_made() -> anyhow::Result<()> {
    let host = crate::harness::engine_host(4, &[])?;
    host.warm().await?;
    host.make_ready();
    let ready = async {
        while !host.has_ready_tab() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    tokio::time::timeout(BUDGET, ready).await?;
    let viewport = Viewport {
        width: 640,
        height: 480,
    };
    // The ready tab was made at 1280×720: the session's viewport is set on it.
    let mut tab = host.session_tab(viewport).await?;
    const PAGE: &str = "<!doctype html><p id=out></p><script>out.textContent = \
        [innerWidth, typeof document.querySelector].join(' ')</script>";
    let summary = tab.load(Source::Html(PAGE.into()), BUDGET).await?;
    assert!(
        summary.text.contains("640 function"),
        "{:?} (console: {:?})",
        summary.text,
        summary.console
    );
    let again = async {
        while !host.has_ready_tab() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    tokio::time::timeout(BUDGET, again).await?;
    Ok(())
}
