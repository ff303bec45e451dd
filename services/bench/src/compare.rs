//! `servo-fleet bench --compare OLD.json NEW.json`: two reports written by
//! `--json`, row by row, so a change's effect on every figure is one command away.
//!
//! Rows are matched by name. A row only one report has is listed, not guessed at:
//! a renamed row is a new measurement. Reports are read as plain JSON, so reports
//! written by older builds (fewer rows, fewer fields) still compare.

use std::collections::BTreeSet;
use std::path::Path;

use anyhow::Context as _;
use serde_json::Value;

use crate::stats::{Unit, aligned};

/// One figure of one row as both reports have it.
#[derive(Debug, Clone, PartialEq)]
struct Figure {
    unit: Unit,
    /// Our p50.
    ours: f64,
    /// Chromium's p50 (NaN for fleet-only rows).
    chromium: f64,
    /// The row's ratio as the report printed it (NaN for fleet-only rows).
    ratio: f64,
}

/// Reads both files and renders the comparison.
pub fn files(old: &Path, new: &Path) -> anyhow::Result<String> {
    let read = |path: &Path| -> anyhow::Result<Value> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        serde_json::from_str(&text)
            .with_context(|| format!("{} is not a bench report (JSON)", path.display()))
    };
    render(&read(old)?, &read(new)?)
}

/// The comparison of two reports as text: a header naming both runs, a table of
/// the rows both have, then the rows only one has.
pub fn render(old: &Value, new: &Value) -> anyhow::Result<String> {
    let (a, b) = (figures(old)?, figures(new)?);
    anyhow::ensure!(
        !a.is_empty() && !b.is_empty(),
        "a report has no rows: write reports with `servo-fleet bench --json FILE`"
    );
    let mut out = String::new();
    for (label, report) in [("old", old), ("new", new)] {
        out.push_str(&format!(
            "{label}: {} ({})\n",
            report["date"].as_str().unwrap_or("?"),
            report["command"].as_str().unwrap_or("?")
        ));
    }
    out.push('\n');
    let mut cells = Vec::new();
    for (name, was) in &a {
        let Some((_, now)) = b.iter().find(|(n, _)| n == name) else {
            continue;
        };
        cells.push(vec![
            name.clone(),
            was.unit.format(was.ours),
            now.unit.format(now.ours),
            change(now.unit, was.ours, now.ours),
            ratio(was.ratio),
            ratio(now.ratio),
        ]);
    }
    out.push_str(&aligned(
        &[
            "row",
            "ours p50 old",
            "ours p50 new",
            "change",
            "ratio old",
            "ratio new",
        ],
        &cells,
    ));
    let names = |f: &[(String, Figure)]| f.iter().map(|(n, _)| n.clone()).collect::<BTreeSet<_>>();
    let (in_a, in_b) = (names(&a), names(&b));
    for (label, only) in [
        ("only in old", in_a.difference(&in_b)),
        ("only in new", in_b.difference(&in_a)),
    ] {
        let only: Vec<&String> = only.collect();
        if !only.is_empty() {
            out.push_str(&format!("\n{label}:\n"));
            for name in only {
                out.push_str(&format!("  {name}\n"));
            }
        }
    }
    Ok(out)
}

/// Every figure of a report, in its order: the suite's rows, its fleet-only
/// rows, and the load test's latency, rate and error count.
fn figures(report: &Value) -> anyhow::Result<Vec<(String, Figure)>> {
    let mut out = Vec::new();
    let suite = &report["suite"];
    for row in suite["rows"].as_array().into_iter().flatten() {
        out.push((
            name(row)?,
            Figure {
                unit: unit(row)?,
                ours: number(&row["ours"]["median"]),
                chromium: number(&row["chromium"]["median"]),
                ratio: number(&row["ratio"]),
            },
        ));
    }
    for row in suite["fleet_rows"].as_array().into_iter().flatten() {
        out.push((
            name(row)?,
            Figure {
                unit: unit(row)?,
                ours: number(&row["summary"]["median"]),
                chromium: f64::NAN,
                ratio: f64::NAN,
            },
        ));
    }
    let load = &report["load"];
    if load.is_object() {
        let millis = |ours: f64| Figure {
            unit: Unit::Millis,
            ours,
            chromium: f64::NAN,
            ratio: f64::NAN,
        };
        let size = format!(
            "{} sessions × {} actions",
            load["sessions"], load["actions_per_session"]
        );
        out.push((
            format!("load test, {size}: latency p50"),
            millis(number(&load["latency_ms"]["median"])),
        ));
        out.push((
            format!("load test, {size}: latency p95"),
            millis(number(&load["latency_ms"]["p95"])),
        ));
        out.push((
            format!("load test, {size}: latency p99"),
            millis(number(&load["p99_ms"])),
        ));
        out.push((
            format!("load test, {size}: errors"),
            Figure {
                unit: Unit::Count,
                ours: number(&load["errors"]),
                chromium: f64::NAN,
                ratio: f64::NAN,
            },
        ));
    }
    Ok(out)
}

fn name(row: &Value) -> anyhow::Result<String> {
    row["name"]
        .as_str()
        .map(str::to_owned)
        .with_context(|| format!("a row has no name: {row}"))
}

fn unit(row: &Value) -> anyhow::Result<Unit> {
    match row["unit"].as_str() {
        Some("millis") => Ok(Unit::Millis),
        Some("bytes") => Ok(Unit::Bytes),
        Some("count") => Ok(Unit::Count),
        other => anyhow::bail!("row {} has an unknown unit {other:?}", row["name"]),
    }
}

/// A JSON number, NaN for `null` (a side without samples).
fn number(value: &Value) -> f64 {
    value.as_f64().unwrap_or(f64::NAN)
}

fn ratio(value: f64) -> String {
    if value.is_finite() {
        format!("{value:.2}×")
    } else {
        "-".to_owned()
    }
}

/// The change from `old` to `new` in words: every unit here is better lower.
fn change(unit: Unit, old: f64, new: f64) -> String {
    if !(old.is_finite() && new.is_finite()) {
        return "-".to_owned();
    }
    if old == new {
        return "same".to_owned();
    }
    if old == 0.0 {
        return format!("was 0, now {}", unit.format(new));
    }
    let percent = (new - old) / old * 100.0;
    let (better, worse) = match unit {
        Unit::Millis => ("faster", "slower"),
        Unit::Bytes => ("smaller", "larger"),
        Unit::Count => ("fewer", "more"),
    };
    if percent < 0.0 {
        format!("{:.0} % {better}", -percent)
    } else {
        format!("{percent:.0} % {worse}")
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use serde_json::json;

    use super::*;

    fn report(date: &str, create_ms: f64, extra: Option<&str>) -> Value {
        let mut rows = vec![json!({
            "name": "session create",
            "unit": "millis",
            "ours": { "median": create_ms, "p95": create_ms },
            "chromium": { "median": 100.0, "p95": 120.0 },
            "ratio": 100.0 / create_ms,
        })];
        if let Some(name) = extra {
            rows.push(json!({
                "name": name, "unit": "bytes",
                "ours": { "median": 1048576.0 }, "chromium": { "median": null }, "ratio": null,
            }));
        }
        json!({
            "date": date,
            "command": "servo-fleet bench",
            "suite": {
                "rows": rows,
                "fleet_rows": [{ "name": "gateway overhead", "unit": "millis", "summary": { "median": 0.5 } }],
            },
            "load": { "sessions": 500, "actions_per_session": 20, "errors": 0,
                      "latency_ms": { "median": 800.0, "p95": 3000.0 }, "p99_ms": 6400.0 },
        })
    }

    #[test]
    fn a_row_in_both_reports_shows_old_new_and_the_change_in_words() {
        let text = render(&report("d1", 5.0, None), &report("d2", 4.0, None)).unwrap();
        let line = text
            .lines()
            .find(|l| l.starts_with("session create"))
            .unwrap();
        assert!(
            line.contains("5.00 ms") && line.contains("4.00 ms"),
            "{line}"
        );
        assert!(line.contains("20 % faster"), "{line}");
        assert!(line.contains("20.00×") && line.contains("25.00×"), "{line}");
        assert!(
            text.starts_with("old: d1 (servo-fleet bench)\nnew: d2"),
            "{text}"
        );
        let load = text.lines().find(|l| l.contains("latency p99")).unwrap();
        assert!(load.contains("same"), "{load}");
    }

    #[test]
    fn a_slower_row_says_slower() {
        let text = render(&report("a", 4.0, None), &report("b", 5.0, None)).unwrap();
        assert!(text.contains("25 % slower"), "{text}");
    }

    #[test]
    fn rows_only_one_report_has_are_listed_not_compared() {
        let text = render(
            &report("a", 4.0, Some("memory, 10 sessions")),
            &report("b", 4.0, Some("memory, 50 sessions")),
        )
        .unwrap();
        let (compared, rest) = text.split_once("only in old:").unwrap();
        assert!(!compared.contains("memory,"), "{text}");
        assert!(rest.contains("memory, 10 sessions"), "{text}");
        assert!(
            rest.split_once("only in new:")
                .unwrap()
                .1
                .contains("memory, 50 sessions"),
            "{text}"
        );
    }

    #[test]
    fn a_file_that_is_not_a_report_is_refused_with_its_name() {
        let dir = std::env::temp_dir().join(format!("bench-compare-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (good, bad) = (dir.join("good.json"), dir.join("bad.json"));
        std::fs::write(&good, report("a", 4.0, None).to_string()).unwrap();
        std::fs::write(&bad, "not json").unwrap();
        let err = files(&good, &bad).unwrap_err();
        assert!(
            format!("{err:#}").contains("bad.json is not a bench report"),
            "{err:#}"
        );
        std::fs::write(&bad, "{}").unwrap();
        let err = files(&good, &bad).unwrap_err();
        assert!(format!("{err:#}").contains("has no rows"), "{err:#}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
