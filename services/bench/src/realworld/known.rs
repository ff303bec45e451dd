//! A page's known differences from Chromium (`known_differences` in
//! `pages.json`): each is an understood difference not yet fixed, with the
//! reason. A failure line it explains is reported as known instead of failing
//! the page, and a known difference no longer seen fails the page, so the
//! list stays true.

use serde::{Deserialize, Serialize};

/// One understood difference of a page (see [`PageSpec::known_differences`]).
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct KnownDifference {
    /// How the difference's line in the report starts.
    pub difference: String,
    /// Why the engine differs there.
    pub why: String,
}

/// Splits a page's failure lines into those still failing it and those its
/// `known` differences explain (each followed by its reason); adds a failure
/// for each known difference that explains none.
pub(super) fn sort_out(
    known: &[KnownDifference],
    failures: Vec<String>,
) -> (Vec<String>, Vec<String>) {
    let explaining = |line: &str| known.iter().find(|k| line.starts_with(&k.difference));
    let (explained, mut failures): (Vec<String>, Vec<String>) =
        failures.into_iter().partition(|f| explaining(f).is_some());
    for k in known {
        if !explained.iter().any(|f| f.starts_with(&k.difference)) {
            failures.push(format!(
                "a known difference is no longer seen (take it out of pages.json): {}",
                k.difference
            ));
        }
    }
    let explained = explained
        .into_iter()
        .map(|f| {
            let why = explaining(&f).map_or("", |k| k.why.as_str());
            format!("{f}\n      known: {why}")
        })
        .collect();
    (failures, explained)
}
