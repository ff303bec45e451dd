//! How a page of the real-world corpus compares with Chromium, and the report
//! of a set: [`judge`] turns the two browsers' readings of a page into a
//! [`Verdict`] (the bar a page must meet is described in [`super`]), [`table`]
//! prints them page by page, and [`meets_the_bar`] says whether the set passes.
//! Reading the pages is the parent module's business; this one only compares.

use serde::Serialize;
use serde_json::Value;

use super::{FAST_LOAD_MS, MIN_MEAN_F1, MIN_PAGE_F1, PageSpec, Reading, known};
use crate::fidelity::text_f1;

/// How one page compared.
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    /// The page's id.
    pub id: String,
    /// Its generator or library.
    pub kind: String,
    /// What Chromium read.
    pub chromium: Reading,
    /// What the engine read, or why it could not.
    pub engine: Result<Reading, String>,
    /// Visible-text token F1 (0 when the engine read nothing).
    pub f1: f64,
    /// Every difference that fails the page.
    pub failures: Vec<String>,
    /// Differences the page's `known_differences` explain, with the reason.
    pub known: Vec<String>,
}

impl Verdict {
    /// Whether the page passed.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

/// Judges the engine's reading against Chromium's.
pub fn judge(page: &PageSpec, chromium: Reading, engine: Result<Reading, String>) -> Verdict {
    let mut failures = Vec::new();
    let mut f1 = 0.0;
    match &engine {
        Err(e) => failures.push(format!("the engine could not read the page: {e}")),
        Ok(ours) => {
            if ours.errors.len() > chromium.errors.len() {
                failures.push(format!(
                    "uncaught errors: Chromium {}, engine {}: {}",
                    chromium.errors.len(),
                    ours.errors.len(),
                    abbreviate(&ours.errors.join(" | "), 400)
                ));
            }
            if ours.budget_hit && chromium.load_ms < FAST_LOAD_MS {
                failures.push(format!(
                    "a script ran past its budget; Chromium loads the page in {:.0} ms",
                    chromium.load_ms
                ));
            }
            let collapse = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
            if collapse(&ours.title) != collapse(&chromium.title) {
                failures.push(format!(
                    "title: Chromium {:?}, engine {:?}",
                    chromium.title, ours.title
                ));
            }
            let score = text_f1(&chromium.text, &ours.text);
            f1 = score.f1;
            if score.f1 < MIN_PAGE_F1 {
                let tokens = |list: &[(String, usize)]| {
                    list.iter()
                        .take(12)
                        .map(|(t, n)| {
                            if *n > 1 {
                                format!("{t}×{n}")
                            } else {
                                t.clone()
                            }
                        })
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                failures.push(format!(
                    "text F1 {:.3} (P {:.3}, R {:.3}); only Chromium: {}; only the engine: {}",
                    score.f1,
                    score.precision,
                    score.recall,
                    tokens(&score.missing),
                    tokens(&score.extra)
                ));
            }
            if ours.links != chromium.links {
                failures.push(format!(
                    "links: Chromium {}, engine {}",
                    chromium.links, ours.links
                ));
            }
            if ours.fields != chromium.fields {
                failures.push(format!(
                    "form fields: Chromium {}, engine {}",
                    chromium.fields, ours.fields
                ));
            }
            for (selector, want) in &chromium.facts {
                let got = ours.facts.get(selector).cloned().unwrap_or(Value::Null);
                if &got != want {
                    failures.push(format!("fact {selector}: Chromium {want}, engine {got}"));
                }
            }
        }
    }
    let (failures, known) = known::sort_out(&page.known_differences, failures);
    Verdict {
        id: page.id.clone(),
        kind: page.kind.clone(),
        chromium,
        engine,
        f1,
        failures,
        known,
    }
}

/// The mean F1 of the pages the engine read.
pub fn mean_f1(verdicts: &[Verdict]) -> f64 {
    if verdicts.is_empty() {
        return 0.0;
    }
    verdicts.iter().map(|v| v.f1).sum::<f64>() / verdicts.len() as f64
}

/// The table, page by page, then each failing page's differences.
pub fn table(verdicts: &[Verdict]) -> String {
    let mut out = format!(
        "{:<36} {:<10} {:>7} {:>7} {:>7} {:>6} {:>9} {:>9} {:>6}  {}\n",
        "page", "kind", "C ms", "ours ms", "errors", "F1", "links", "fields", "facts", "verdict"
    );
    for v in verdicts {
        let (ours_ms, errors, links, fields, facts) = match &v.engine {
            Ok(r) => (
                format!("{:.0}", r.load_ms),
                format!("{}/{}", v.chromium.errors.len(), r.errors.len()),
                format!("{}/{}", v.chromium.links, r.links),
                format!("{}/{}", v.chromium.fields, r.fields),
                format!(
                    "{}/{}",
                    v.chromium
                        .facts
                        .iter()
                        .filter(|(k, want)| r.facts.get(*k) == Some(want))
                        .count(),
                    v.chromium.facts.len()
                ),
            ),
            Err(_) => ("-".into(), "-".into(), "-".into(), "-".into(), "-".into()),
        };
        out.push_str(&format!(
            "{:<36} {:<10} {:>7.0} {:>7} {:>7} {:>6.3} {:>9} {:>9} {:>6}  {}\n",
            v.id,
            v.kind,
            v.chromium.load_ms,
            ours_ms,
            errors,
            v.f1,
            links,
            fields,
            facts,
            match (v.passed(), v.known.is_empty()) {
                (false, _) => "FAIL",
                (true, true) => "ok",
                (true, false) => "known",
            }
        ));
    }
    let passed = verdicts.iter().filter(|v| v.passed()).count();
    out.push_str(&format!(
        "\n{passed} of {} pages pass; mean text F1 {:.4} (errors are Chromium/engine)\n",
        verdicts.len(),
        mean_f1(verdicts)
    ));
    let known = verdicts.iter().filter(|v| !v.known.is_empty()).count();
    if known > 0 {
        out.push_str(&format!(
            "{known} page(s) differ only where pages.json says why (verdict \"known\")\n"
        ));
    }
    for v in verdicts
        .iter()
        .filter(|v| !v.passed() || !v.known.is_empty())
    {
        out.push_str(&format!("\n── {} ({})\n", v.id, v.kind));
        for failure in &v.failures {
            out.push_str(&format!("   {failure}\n"));
        }
        for difference in &v.known {
            out.push_str(&format!("   {difference}\n"));
        }
    }
    out
}

/// Whether the set meets the bar: every page passes and the mean F1 is high enough.
pub fn meets_the_bar(verdicts: &[Verdict]) -> bool {
    verdicts.iter().all(Verdict::passed) && mean_f1(verdicts) >= MIN_MEAN_F1
}

fn abbreviate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let cut: String = text.chars().take(max).collect();
    format!("{cut}…")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::realworld::KnownDifference;
    use serde_json::json;

    fn spec() -> PageSpec {
        PageSpec {
            id: "p".into(),
            source: "npm:x@1".into(),
            root: "npm".into(),
            path: "x/index.html".into(),
            kind: "x".into(),
            scripts: true,
            facts: vec![".a".into()],
            subset: true,
            known_differences: Vec::new(),
        }
    }

    fn reading() -> Reading {
        Reading {
            title: "Title".into(),
            text: "one two three four".into(),
            links: 3,
            fields: 1,
            facts: [(".a".to_owned(), json!([2, "block"]))].into(),
            load_ms: 200.0,
            ..Reading::default()
        }
    }

    #[test]
    fn an_equal_reading_passes_and_each_difference_fails_the_page() {
        assert!(judge(&spec(), reading(), Ok(reading())).passed());
        let mut ours = reading();
        ours.errors.push("Uncaught TypeError".into());
        ours.facts.insert(".a".into(), json!([0, null]));
        ours.links = 2;
        ours.budget_hit = true;
        let verdict = judge(&spec(), reading(), Ok(ours));
        let text = verdict.failures.join("\n");
        for needle in ["uncaught errors", "ran past its budget", "links", "fact .a"] {
            assert!(text.contains(needle), "{needle} missing from {text}");
        }
        let mut slow = reading();
        slow.load_ms = 1_500.0;
        let mut stopped = reading();
        stopped.budget_hit = true;
        assert!(
            judge(&spec(), slow, Ok(stopped)).passed(),
            "a slow Chromium load excuses a budget hit"
        );
    }

    #[test]
    fn a_known_difference_is_reported_without_failing_and_must_still_be_seen() {
        let mut page = spec();
        page.known_differences.push(KnownDifference {
            difference: "uncaught errors: Chromium 0, engine 1".into(),
            why: "no workers".into(),
        });
        let mut ours = reading();
        ours.errors.push("Uncaught SyntaxError".into());
        let verdict = judge(&page, reading(), Ok(ours.clone()));
        assert!(verdict.passed(), "{:?}", verdict.failures);
        assert_eq!(verdict.known.len(), 1);
        assert!(verdict.known[0].contains("known: no workers"));
        assert!(table(&[verdict]).contains("known"));
        // Another difference still fails the page.
        ours.links = 2;
        assert!(!judge(&page, reading(), Ok(ours)).passed());
        // A known difference that went away fails the page until it is removed.
        let fixed = judge(&page, reading(), Ok(reading()));
        assert!(!fixed.passed());
        assert!(
            fixed.failures[0].contains("no longer seen"),
            "{:?}",
            fixed.failures
        );
    }

    #[test]
    fn the_mean_f1_bar_fails_a_set_of_passing_pages_that_read_too_little() {
        let mut short = reading();
        short.text = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".into();
        let mut ours = short.clone();
        ours.text = ours.text.replace(" nineteen", "");
        let verdict = judge(&spec(), short, Ok(ours));
        assert!(verdict.passed(), "{:?}", verdict.failures);
        assert!(verdict.f1 < MIN_MEAN_F1);
        assert!(!meets_the_bar(&[verdict]));
    }
}
