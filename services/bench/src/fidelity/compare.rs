//! An engine's extraction judged against Chromium's golden, field by field:
//! the title and the JS values must be equal, the links the same list, the
//! visible text a token F1 of at least [`MIN_TEXT_F1`], and every measured box
//! within [`BOX_TOLERANCE_PX`]. A [`PageReport`] lists every difference, so one
//! run shows every gap.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;

use serde_json::Value;

use super::{Extraction, Link};

/// The least visible-text token F1 a page must reach.
pub const MIN_TEXT_F1: f64 = 0.95;

/// How far (CSS px) each of a box's x, y, width and height may be from Chromium's.
///
/// The measured boxes (`data-box`) have sizes and offsets in whole px by
/// construction and sit above all text, so they do not depend on font metrics
/// and a correct engine lands on the same integers as Chromium. 2 px absorbs
/// what legitimately differs between engines: subpixel rounding where fractions
/// arise (flex and grid distribution, a position on .5 rounded the other way),
/// while every feature the layout page tests moves or resizes a box by 5 px or
/// more (5 px borders, 10 px padding and margins, a 5 px relative offset), so
/// missing one still fails.
pub const BOX_TOLERANCE_PX: f64 = 2.0;

/// How many differing tokens a text mismatch lists, each way.
const TOKENS_SHOWN: usize = 40;

/// How many characters of a value a mismatch shows.
const VALUE_SHOWN: usize = 600;

/// One difference between the golden and the engine.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    /// Which field: `title`, `values.<path>`, `links`, `text`, `boxes.<name>`,
    /// `golden`, `extraction`.
    pub field: String,
    /// What Chromium had.
    pub expected: String,
    /// What the engine had.
    pub got: String,
}

/// Visible-text agreement: token precision, recall and F1, and the tokens
/// each side had more of.
#[derive(Debug, Clone, PartialEq)]
pub struct TextScore {
    /// Share of the engine's tokens that Chromium also has.
    pub precision: f64,
    /// Share of Chromium's tokens that the engine also has.
    pub recall: f64,
    /// 2PR / (P + R).
    pub f1: f64,
    /// Tokens Chromium has more of, with how many more, most first.
    pub missing: Vec<(String, usize)>,
    /// Tokens the engine has more of, with how many more, most first.
    pub extra: Vec<(String, usize)>,
}

/// The tokens of visible text: lowercased, split on anything not alphanumeric.
pub fn tokens(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .collect()
}

fn counts(text: &str) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for t in tokens(text) {
        *counts.entry(t).or_insert(0) += 1;
    }
    counts
}

/// The token F1 of `got` against `expected`, over token multisets. Two empty
/// texts agree fully; one empty text agrees not at all.
pub fn text_f1(expected: &str, got: &str) -> TextScore {
    let (want, have) = (counts(expected), counts(got));
    let total_want: usize = want.values().sum();
    let total_have: usize = have.values().sum();
    let overlap: usize = want
        .iter()
        .map(|(t, n)| (*n).min(have.get(t).copied().unwrap_or(0)))
        .sum();
    let surplus = |a: &HashMap<String, usize>, b: &HashMap<String, usize>| {
        let mut more: Vec<(String, usize)> = a
            .iter()
            .filter_map(|(t, n)| {
                let other = b.get(t).copied().unwrap_or(0);
                (*n > other).then(|| (t.clone(), n - other))
            })
            .collect();
        more.sort_by(|x, y| y.1.cmp(&x.1).then_with(|| x.0.cmp(&y.0)));
        more
    };
    let (precision, recall, f1) = match (total_want, total_have) {
        (0, 0) => (1.0, 1.0, 1.0),
        (0, _) | (_, 0) => (0.0, 0.0, 0.0),
        _ => {
            let p = overlap as f64 / total_have as f64;
            let r = overlap as f64 / total_want as f64;
            let f1 = if p + r == 0.0 {
                0.0
            } else {
                2.0 * p * r / (p + r)
            };
            (p, r, f1)
        }
    };
    TextScore {
        precision,
        recall,
        f1,
        missing: surplus(&want, &have),
        extra: surplus(&have, &want),
    }
}

/// `text` cut to `max` characters, with an ellipsis when cut.
pub fn abbreviate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max).collect();
    cut.push('…');
    cut
}

fn shown(value: &Value) -> String {
    abbreviate(&value.to_string(), VALUE_SHOWN)
}

/// The outcome for one page.
#[derive(Debug, Clone, PartialEq)]
pub struct PageReport {
    /// The page's file name.
    pub page: String,
    /// Every difference found.
    pub mismatches: Vec<Mismatch>,
    /// Whether the title was equal.
    pub title_ok: bool,
    /// Top-level values equal, out of how many Chromium has.
    pub values: (usize, usize),
    /// Whether the link lists were equal.
    pub links_ok: bool,
    /// The visible-text agreement, when the page could be read.
    pub text: Option<TextScore>,
    /// Boxes within tolerance, out of how many Chromium measured.
    pub boxes: (usize, usize),
}

impl PageReport {
    /// A page that could not be compared at all (no golden, the engine failed
    /// to load or extract it).
    pub fn failed(page: &str, field: &str, expected: &str, got: &str) -> Self {
        Self {
            page: page.to_owned(),
            mismatches: vec![Mismatch {
                field: field.to_owned(),
                expected: expected.to_owned(),
                got: got.to_owned(),
            }],
            title_ok: false,
            values: (0, 0),
            links_ok: false,
            text: None,
            boxes: (0, 0),
        }
    }

    /// Compares an engine's extraction with Chromium's.
    pub fn compare(page: &str, expected: &Extraction, got: &Extraction) -> Self {
        let mut mismatches = Vec::new();
        let title_ok = expected.title == got.title;
        if !title_ok {
            mismatches.push(Mismatch {
                field: "title".into(),
                expected: Value::String(expected.title.clone()).to_string(),
                got: Value::String(got.title.clone()).to_string(),
            });
        }

        let values = compare_values(&expected.values, &got.values, &mut mismatches);

        let links_ok = expected.links == got.links;
        if !links_ok {
            mismatches.extend(diff_links(&expected.links, &got.links));
        }

        let text = text_f1(&expected.text, &got.text);
        if text.f1 < MIN_TEXT_F1 {
            let list = |tokens: &[(String, usize)]| {
                let mut out: Vec<String> = tokens
                    .iter()
                    .take(TOKENS_SHOWN)
                    .map(|(t, n)| {
                        if *n > 1 {
                            format!("{t}×{n}")
                        } else {
                            t.clone()
                        }
                    })
                    .collect();
                if tokens.len() > TOKENS_SHOWN {
                    out.push(format!("… {} more", tokens.len() - TOKENS_SHOWN));
                }
                out.join(" ")
            };
            mismatches.push(Mismatch {
                field: "text".into(),
                expected: format!(
                    "F1 ≥ {MIN_TEXT_F1}; tokens only Chromium has: {}",
                    list(&text.missing)
                ),
                got: format!(
                    "F1 {:.3} (precision {:.3}, recall {:.3}); tokens only the engine has: {}",
                    text.f1,
                    text.precision,
                    text.recall,
                    list(&text.extra)
                ),
            });
        }

        let boxes = compare_boxes(&expected.boxes, &got.boxes, &mut mismatches);
        Self {
            page: page.to_owned(),
            mismatches,
            title_ok,
            values,
            links_ok,
            text: Some(text),
            boxes,
        }
    }

    /// Whether the page matches Chromium on every field.
    pub fn passed(&self) -> bool {
        self.mismatches.is_empty()
    }

    /// Adds a difference found outside [`PageReport::compare`] (a stale golden).
    pub fn push(&mut self, field: &str, expected: String, got: String) {
        self.mismatches.push(Mismatch {
            field: field.to_owned(),
            expected,
            got,
        });
    }

    /// The page's differences, one block per field.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let status = if self.passed() {
            "matches Chromium".to_owned()
        } else {
            format!("{} difference(s)", self.mismatches.len())
        };
        let _ = writeln!(out, "── {}: {status}", self.page);
        for m in &self.mismatches {
            let _ = writeln!(out, "   {}", m.field);
            let _ = writeln!(out, "      expected: {}", m.expected);
            let _ = writeln!(out, "      got:      {}", m.got);
        }
        out
    }
}

/// Deep equality of the page's values, with a mismatch per differing leaf;
/// returns (equal top-level values, top-level values).
fn compare_values(expected: &Value, got: &Value, out: &mut Vec<Mismatch>) -> (usize, usize) {
    match (expected, got) {
        (Value::Object(want), Value::Object(have)) => {
            let mut equal = 0;
            for (key, value) in want {
                let before = out.len();
                match have.get(key) {
                    Some(other) => diff_value(&format!("values.{key}"), value, other, out),
                    None => out.push(Mismatch {
                        field: format!("values.{key}"),
                        expected: shown(value),
                        got: "(absent)".into(),
                    }),
                }
                if out.len() == before {
                    equal += 1;
                }
            }
            for (key, value) in have {
                if !want.contains_key(key) {
                    out.push(Mismatch {
                        field: format!("values.{key}"),
                        expected: "(absent)".into(),
                        got: shown(value),
                    });
                }
            }
            (equal, want.len())
        }
        _ => {
            let before = out.len();
            diff_value("values", expected, got, out);
            (usize::from(out.len() == before), 1)
        }
    }
}

/// Records where `got` differs from `expected` under `path`: objects and
/// equal-length arrays element by element, anything else whole. Numbers are
/// compared by value (`1` equals `1.0`).
fn diff_value(path: &str, expected: &Value, got: &Value, out: &mut Vec<Mismatch>) {
    match (expected, got) {
        (Value::Object(want), Value::Object(have)) => {
            let keys: BTreeSet<&String> = want.keys().chain(have.keys()).collect();
            for key in keys {
                let field = format!("{path}.{key}");
                match (want.get(key), have.get(key)) {
                    (Some(a), Some(b)) => diff_value(&field, a, b, out),
                    (Some(a), None) => out.push(Mismatch {
                        field,
                        expected: shown(a),
                        got: "(absent)".into(),
                    }),
                    (None, Some(b)) => out.push(Mismatch {
                        field,
                        expected: "(absent)".into(),
                        got: shown(b),
                    }),
                    (None, None) => {}
                }
            }
        }
        (Value::Array(want), Value::Array(have)) if want.len() == have.len() => {
            for (i, (a, b)) in want.iter().zip(have).enumerate() {
                diff_value(&format!("{path}[{i}]"), a, b, out);
            }
        }
        (Value::Number(a), Value::Number(b)) if a.as_f64() == b.as_f64() => {}
        _ if expected == got => {}
        _ => out.push(Mismatch {
            field: path.to_owned(),
            expected: shown(expected),
            got: shown(got),
        }),
    }
}

fn link_json(link: &Link) -> String {
    serde_json::json!({ "text": link.text, "href": link.href }).to_string()
}

/// The links only one side has, from a longest-common-subsequence alignment,
/// so one missing link does not make every later one differ.
fn diff_links(expected: &[Link], got: &[Link]) -> Vec<Mismatch> {
    let (n, m) = (expected.len(), got.len());
    // lcs[i][j]: the longest common subsequence of expected[i..] and got[j..].
    let mut lcs = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if expected[i] == got[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && expected[i] == got[j] {
            i += 1;
            j += 1;
        } else if j == m || (i < n && lcs[i + 1][j] >= lcs[i][j + 1]) {
            out.push(Mismatch {
                field: format!("links[{i}]"),
                expected: link_json(&expected[i]),
                got: "(missing)".into(),
            });
            i += 1;
        } else {
            out.push(Mismatch {
                field: format!("links (engine's #{j})"),
                expected: "(none)".into(),
                got: link_json(&got[j]),
            });
            j += 1;
        }
    }
    if out.is_empty() {
        // Equal element by element yet unequal: cannot happen, but say so if it does.
        out.push(Mismatch {
            field: "links".into(),
            expected: format!("{} links", expected.len()),
            got: format!("{} links", got.len()),
        });
    }
    out
}

/// Every golden box within tolerance; returns (boxes within, boxes measured).
fn compare_boxes(
    expected: &BTreeMap<String, Value>,
    got: &BTreeMap<String, Value>,
    out: &mut Vec<Mismatch>,
) -> (usize, usize) {
    let mut within = 0;
    for (name, want) in expected {
        let field = format!("boxes.{name}");
        let Some(have) = got.get(name) else {
            out.push(Mismatch {
                field,
                expected: want.to_string(),
                got: "(absent)".into(),
            });
            continue;
        };
        let close = ["x", "y", "width", "height"].iter().all(|k| {
            match (
                want.get(k).and_then(Value::as_f64),
                have.get(k).and_then(Value::as_f64),
            ) {
                (Some(a), Some(b)) => (a - b).abs() <= BOX_TOLERANCE_PX,
                _ => false,
            }
        });
        if close {
            within += 1;
        } else {
            out.push(Mismatch {
                field,
                expected: want.to_string(),
                got: have.to_string(),
            });
        }
    }
    for (name, have) in got {
        if !expected.contains_key(name) {
            out.push(Mismatch {
                field: format!("boxes.{name}"),
                expected: "(absent)".into(),
                got: have.to_string(),
            });
        }
    }
    (within, expected.len())
}

/// One line per page: what matched, at a glance.
pub fn summary_table(reports: &[PageReport]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<18} {:<6} {:<9} {:<6} {:<7} {:<7} differences",
        "page", "title", "values", "links", "text F1", "boxes"
    );
    for r in reports {
        let mark = |ok: bool| if ok { "ok" } else { "FAIL" };
        let f1 = r
            .text
            .as_ref()
            .map_or_else(|| "-".to_owned(), |t| format!("{:.3}", t.f1));
        let _ = writeln!(
            out,
            "{:<18} {:<6} {:<9} {:<6} {:<7} {:<7} {}",
            r.page,
            mark(r.title_ok),
            format!("{}/{}", r.values.0, r.values.1),
            mark(r.links_ok),
            f1,
            format!("{}/{}", r.boxes.0, r.boxes.1),
            r.mismatches.len()
        );
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use serde_json::json;

    use super::*;

    #[test]
    fn text_f1_counts_token_multisets_case_and_punctuation_blind() {
        let same = text_f1("Hello, World!", "hello world");
        assert_eq!(same.f1, 1.0);
        // Chromium: 4 tokens; engine: 3 of them plus 1 extra → P = R = 3/4.
        let s = text_f1("a b c d", "a b c e");
        assert!((s.precision - 0.75).abs() < 1e-9);
        assert!((s.recall - 0.75).abs() < 1e-9);
        assert!((s.f1 - 0.75).abs() < 1e-9);
        assert_eq!(s.missing, vec![("d".to_owned(), 1)]);
        assert_eq!(s.extra, vec![("e".to_owned(), 1)]);
        // A repeated token counts as often as it appears.
        let r = text_f1("the the the cat", "the cat");
        assert!((r.precision - 1.0).abs() < 1e-9);
        assert!((r.recall - 0.5).abs() < 1e-9);
        assert!((r.f1 - 2.0 / 3.0).abs() < 1e-9);
        assert_eq!(r.missing, vec![("the".to_owned(), 2)]);
        assert_eq!(text_f1("", "").f1, 1.0);
        assert_eq!(text_f1("words", "").f1, 0.0);
        assert_eq!(tokens("Zürich, 東京: ÉTÉ"), vec!["zürich", "東京", "été"]);
    }

    fn extraction(values: Value) -> Extraction {
        Extraction {
            title: "T".into(),
            text: "one two three".into(),
            links: vec![
                Link {
                    text: "a".into(),
                    href: "{origin}/a".into(),
                },
                Link {
                    text: "b".into(),
                    href: "{origin}/b".into(),
                },
            ],
            values,
            boxes: BTreeMap::from([(
                "x".to_owned(),
                json!({"x": 10, "y": 20, "width": 100, "height": 50}),
            )]),
        }
    }

    #[test]
    fn equal_extractions_pass_and_numbers_compare_by_value() {
        let golden = extraction(json!({"n": 1, "list": [1, "a"]}));
        let mut got = extraction(json!({"n": 1.0, "list": [1, "a"]}));
        got.boxes.insert(
            "x".into(),
            json!({"x": 12, "y": 18, "width": 101, "height": 50}),
        );
        let report = PageReport::compare("p.html", &golden, &got);
        assert!(report.passed(), "{}", report.render());
        assert_eq!(report.values, (2, 2));
        assert_eq!(report.boxes, (1, 1));
    }

    #[test]
    fn every_difference_is_reported_by_field() {
        let golden = extraction(json!({"order": ["a", "b"], "nested": {"k": 1}, "gone": true}));
        let mut got = extraction(json!({"order": ["b", "a"], "nested": {"k": 2}, "new": 1}));
        got.title = "Other".into();
        got.links.remove(0);
        got.text = "one".into();
        got.boxes.insert(
            "x".into(),
            json!({"x": 13, "y": 20, "width": 100, "height": 50}),
        );
        let report = PageReport::compare("p.html", &golden, &got);
        let fields: Vec<&str> = report.mismatches.iter().map(|m| m.field.as_str()).collect();
        assert_eq!(
            fields,
            vec![
                "title",
                "values.gone",
                "values.nested.k",
                "values.order[0]",
                "values.order[1]",
                "values.new",
                "links[0]",
                "text",
                "boxes.x"
            ],
            "{}",
            report.render()
        );
        assert_eq!(report.values, (0, 3));
        assert!(!report.links_ok);
        assert_eq!(report.boxes, (0, 1));
    }
}
