//! The real-world corpus through the whole fleet, against headless Chromium in
//! the same run: the `subset` pages of `tests/realworld/pages.json` (pages nobody
//! on the team wrote, installed by `scripts/realworld.sh`, which `make test`
//! runs) must each meet the bar of `fleet_bench::realworld` — no more uncaught
//! errors than Chromium, no script stopped where Chromium loads in under a
//! second, equal titles, links, form fields and facts, text F1 ≥ 0.95 — and
//! their mean text F1 must be ≥ 0.99. `servo-fleet bench --realworld` checks
//! every page the same way.

use std::path::{Path, PathBuf};

use fleet_bench::chromium::{Chromium, LaunchOptions};
use fleet_bench::mcp::Mcp;
use fleet_bench::realworld::{self, Corpus};

use crate::harness::Fleet;

/// Where `scripts/realworld.sh` installed the real-world pages.
pub(crate) fn pages_dir() -> PathBuf {
    std::env::var_os("FLEET_REALWORLD_DIR").map_or_else(
        || {
            PathBuf::from(std::env::var_os("HOME").expect("a home folder"))
                .join(".cache/servo-fleet/realworld")
        },
        PathBuf::from,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn real_world_pages_read_as_in_chromium() {
    let corpus = Corpus::open(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/realworld"),
        &pages_dir(),
    )
    .unwrap_or_else(|e| panic!("{e:#}"));
    let pages = corpus.pages(true);
    assert!(
        pages.len() >= 15,
        "the subset has too few pages: {}",
        pages.len()
    );
    let chromium = Chromium::launch(LaunchOptions {
        extra_args: vec!["--hide-scrollbars".into()],
        ..LaunchOptions::default()
    })
    .await
    .expect("headless Chromium (scripts/chromium.sh installs it)");
    let fleet = Fleet::start(2).await;
    let key = fleet.key("realworld").await;
    let mcp = Mcp::connect(&fleet.gateway, &key).await.unwrap();
    let verdicts = realworld::check(&corpus, &pages, &chromium, &mcp, |_| {})
        .await
        .unwrap();
    let table = realworld::table(&verdicts);
    println!("{table}");
    assert!(
        realworld::meets_the_bar(&verdicts),
        "the engine differs from Chromium on real-world pages (the table is above)"
    );
}
