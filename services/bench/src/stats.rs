//! Bench statistics: raw samples, their summaries, the ours-versus-Chromium rows built
//! from them, and the two ways a run is reported (an aligned text table and JSON).
//!
//! Percentiles interpolate linearly between the two nearest ranks (the method numpy
//! and most spreadsheets default to), so a median of an even count is the mean of the
//! middle two and small sample counts still give a p95 that moves with the data.

use std::fmt::Write as _;
use std::time::Duration;

use serde::Serialize;

/// Raw measurements of one quantity, in the unit of the [`Row`] they end up in.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Samples {
    values: Vec<f64>,
}

impl Samples {
    /// An empty set of samples.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one measurement.
    pub fn push(&mut self, value: f64) {
        self.values.push(value);
    }

    /// Adds one duration, in milliseconds (the unit of [`Unit::Millis`]).
    pub fn push_duration(&mut self, elapsed: Duration) {
        self.values.push(elapsed.as_secs_f64() * 1000.0);
    }

    /// How many measurements were taken.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether no measurement was taken.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The measurements in the order they were taken.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// The 50th percentile, or `None` without samples.
    pub fn median(&self) -> Option<f64> {
        self.percentile(50.0)
    }

    /// The 95th percentile, or `None` without samples.
    pub fn p95(&self) -> Option<f64> {
        self.percentile(95.0)
    }

    /// The arithmetic mean, or `None` without samples.
    pub fn mean(&self) -> Option<f64> {
        if self.values.is_empty() {
            return None;
        }
        Some(self.values.iter().sum::<f64>() / self.values.len() as f64)
    }

    /// The `p`th percentile (`p` in 0..=100, clamped), interpolated linearly between
    /// the two nearest ranks, or `None` without samples.
    pub fn percentile(&self, p: f64) -> Option<f64> {
        let sorted = self.sorted();
        let last = sorted.len().checked_sub(1)?;
        let rank = p.clamp(0.0, 100.0) / 100.0 * last as f64;
        // `rank` lies in 0..=last, so both casts stay in bounds.
        let lo = rank.floor() as usize;
        let hi = rank.ceil() as usize;
        let (a, b) = (sorted[lo], sorted[hi]);
        Some(a + (b - a) * (rank - lo as f64))
    }

    /// A summary of these samples; every figure is NaN (JSON `null`) when empty.
    pub fn summary(&self) -> Summary {
        let sorted = self.sorted();
        Summary {
            count: self.values.len(),
            median: self.median().unwrap_or(f64::NAN),
            p95: self.p95().unwrap_or(f64::NAN),
            mean: self.mean().unwrap_or(f64::NAN),
            min: sorted.first().copied().unwrap_or(f64::NAN),
            max: sorted.last().copied().unwrap_or(f64::NAN),
        }
    }

    fn sorted(&self) -> Vec<f64> {
        let mut sorted = self.values.clone();
        sorted.sort_by(f64::total_cmp);
        sorted
    }
}

impl FromIterator<f64> for Samples {
    fn from_iter<I: IntoIterator<Item = f64>>(iter: I) -> Self {
        Self {
            values: iter.into_iter().collect(),
        }
    }
}

impl Extend<f64> for Samples {
    fn extend<I: IntoIterator<Item = f64>>(&mut self, iter: I) {
        self.values.extend(iter);
    }
}

/// The figures a report shows for one side of a row.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Summary {
    /// How many samples were taken.
    pub count: usize,
    /// The 50th percentile.
    pub median: f64,
    /// The 95th percentile.
    pub p95: f64,
    /// The arithmetic mean.
    pub mean: f64,
    /// The smallest sample.
    pub min: f64,
    /// The largest sample.
    pub max: f64,
}

/// What a row measures, which decides how values print and which way its ratio points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// Elapsed time in milliseconds; lower is better.
    Millis,
    /// Memory in bytes; lower is better.
    Bytes,
    /// A count of events (errors, budget stops); lower is better.
    Count,
}

impl Unit {
    /// Formats `value` in this unit for the text table (`-` for NaN).
    pub fn format(self, value: f64) -> String {
        if value.is_nan() {
            return "-".to_owned();
        }
        match self {
            Self::Millis if value < 10.0 => format!("{value:.2} ms"),
            Self::Millis => format!("{value:.1} ms"),
            Self::Bytes => format!("{:.1} MiB", value / (1024.0 * 1024.0)),
            Self::Count => format!("{value:.0}"),
        }
    }
}

/// One benchmark measured on both sides.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// What was measured, e.g. `context+setContent`.
    pub name: String,
    /// The unit of both summaries.
    pub unit: Unit,
    /// The fleet's figures.
    pub ours: Summary,
    /// Headless Chromium's figures.
    pub chromium: Summary,
    /// What the row's figures do not say by themselves (counts, rates, how the
    /// two sides' outputs compared); empty when nothing needs saying.
    pub note: String,
}

impl Row {
    /// A row summarising both sides' samples.
    pub fn new(name: impl Into<String>, unit: Unit, ours: &Samples, chromium: &Samples) -> Self {
        Self {
            name: name.into(),
            unit,
            ours: ours.summary(),
            chromium: chromium.summary(),
            note: String::new(),
        }
    }

    /// The row with `note` attached.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.note = note.into();
        self
    }

    /// The ratio of medians, oriented so that above 1 means the fleet wins on time:
    /// Chromium's time over ours ("× faster"), but our memory over Chromium's ("× the
    /// memory", where below 1 is the win). NaN when either side has no samples, and
    /// infinite when the denominator is zero.
    pub fn ratio(&self) -> f64 {
        match self.unit {
            Unit::Millis => self.chromium.median / self.ours.median,
            Unit::Bytes | Unit::Count => self.ours.median / self.chromium.median,
        }
    }

    /// The ratio as the table prints it, e.g. `4.20× faster`, `1.50× slower`, or
    /// `0.35× the memory`.
    pub fn ratio_label(&self) -> String {
        let ratio = self.ratio();
        if !ratio.is_finite() {
            return "-".to_owned();
        }
        match self.unit {
            Unit::Millis if ratio >= 1.0 => format!("{ratio:.2}× faster"),
            Unit::Millis => format!("{:.2}× slower", 1.0 / ratio),
            Unit::Bytes => format!("{ratio:.2}× the memory"),
            Unit::Count => format!("{ratio:.2}× as many"),
        }
    }
}

impl Serialize for Row {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // The ratio is derived rather than stored so it cannot go stale, but JSON readers
        // want it alongside the figures it came from.
        #[derive(Serialize)]
        struct RowJson<'a> {
            name: &'a str,
            unit: Unit,
            ours: &'a Summary,
            chromium: &'a Summary,
            ratio: f64,
            #[serde(skip_serializing_if = "str::is_empty")]
            note: &'a str,
        }
        RowJson {
            name: &self.name,
            unit: self.unit,
            ours: &self.ours,
            chromium: &self.chromium,
            ratio: self.ratio(),
            note: &self.note,
        }
        .serialize(serializer)
    }
}

/// Renders `rows` as a plain-text table with aligned columns: the row name left-aligned,
/// the figures right-aligned, one line per row under a header and a rule; then each
/// row's note, if it has one.
pub fn table(rows: &[Row]) -> String {
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            vec![
                row.name.clone(),
                row.unit.format(row.ours.median),
                row.unit.format(row.ours.p95),
                row.unit.format(row.chromium.median),
                row.unit.format(row.chromium.p95),
                row.ratio_label(),
            ]
        })
        .collect();
    let mut out = aligned(
        &[
            "row",
            "ours p50",
            "ours p95",
            "chromium p50",
            "chromium p95",
            "ratio",
        ],
        &cells,
    );
    let notes: Vec<&Row> = rows.iter().filter(|r| !r.note.is_empty()).collect();
    if !notes.is_empty() {
        out.push('\n');
        for row in notes {
            let _ = writeln!(out, "{}: {}", row.name, row.note);
        }
    }
    out
}

/// Lays `cells` out under `header`: the first column left-aligned, the others
/// right-aligned, two spaces between columns, a rule under the header. Widths
/// count chars, not bytes ("×" is one char but two bytes).
pub fn aligned(header: &[&str], cells: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for line in cells {
        for (width, cell) in widths.iter_mut().zip(line) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let header: Vec<String> = header.iter().map(|h| (*h).to_owned()).collect();
    push_line(&mut out, &header, &widths);
    let rule: Vec<String> = widths.iter().map(|&w| "-".repeat(w)).collect();
    out.push_str(rule.join("  ").trim_end());
    out.push('\n');
    for line in cells {
        push_line(&mut out, line, &widths);
    }
    out
}

fn push_line(out: &mut String, cells: &[String], widths: &[usize]) {
    let mut line = String::new();
    for (i, (cell, &width)) in cells.iter().zip(widths).enumerate() {
        if i > 0 {
            line.push_str("  ");
        }
        let pad = " ".repeat(width.saturating_sub(cell.chars().count()));
        if i == 0 {
            let _ = write!(line, "{cell}{pad}");
        } else {
            let _ = write!(line, "{pad}{cell}");
        }
    }
    out.push_str(line.trim_end());
    out.push('\n');
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn samples(values: &[f64]) -> Samples {
        values.iter().copied().collect()
    }

    #[test]
    fn median_of_odd_count_is_the_middle_value() {
        assert_eq!(samples(&[9.0, 1.0, 5.0]).median(), Some(5.0));
    }

    #[test]
    fn median_of_even_count_is_the_mean_of_the_middle_two() {
        assert_eq!(samples(&[4.0, 1.0, 3.0, 2.0]).median(), Some(2.5));
    }

    #[test]
    fn p95_of_one_to_a_hundred_interpolates_between_ranks() {
        let s: Samples = (1..=100).map(f64::from).collect();
        let p95 = s.p95().unwrap();
        assert!((p95 - 95.05).abs() < 1e-9, "{p95}");
    }

    #[test]
    fn p95_of_twenty_samples_sits_between_the_top_two() {
        let s: Samples = (1..=20).map(f64::from).collect();
        let p95 = s.p95().unwrap();
        assert!((p95 - 19.05).abs() < 1e-9, "{p95}");
    }

    #[test]
    fn a_single_sample_is_its_own_median_p95_and_mean() {
        let s = samples(&[7.5]);
        assert_eq!(
            (s.median(), s.p95(), s.mean()),
            (Some(7.5), Some(7.5), Some(7.5))
        );
    }

    #[test]
    fn empty_samples_have_no_statistics_and_a_nan_summary() {
        let s = Samples::new();
        assert_eq!((s.median(), s.p95(), s.mean()), (None, None, None));
        let summary = s.summary();
        assert_eq!(summary.count, 0);
        assert!(summary.median.is_nan());
    }

    #[test]
    fn durations_are_recorded_in_milliseconds() {
        let mut s = Samples::new();
        s.push_duration(Duration::from_micros(1500));
        assert_eq!(s.values(), &[1.5]);
    }

    #[test]
    fn time_ratio_is_chromium_over_ours_so_above_one_means_we_are_faster() {
        let row = Row::new(
            "t",
            Unit::Millis,
            &samples(&[2.0, 2.0]),
            &samples(&[8.0, 8.0]),
        );
        assert_eq!(row.ratio(), 4.0);
        assert_eq!(row.ratio_label(), "4.00× faster");
        let slower = Row::new("t", Unit::Millis, &samples(&[8.0]), &samples(&[4.0]));
        assert_eq!(slower.ratio_label(), "2.00× slower");
    }

    #[test]
    fn memory_ratio_is_ours_over_chromium_so_below_one_means_we_use_less() {
        let row = Row::new("m", Unit::Bytes, &samples(&[25.0]), &samples(&[100.0]));
        assert_eq!(row.ratio(), 0.25);
        assert_eq!(row.ratio_label(), "0.25× the memory");
    }

    #[test]
    fn a_side_without_samples_has_no_ratio() {
        let row = Row::new("x", Unit::Millis, &Samples::new(), &samples(&[1.0]));
        assert!(row.ratio().is_nan());
        assert_eq!(row.ratio_label(), "-");
    }

    #[test]
    fn json_rows_carry_the_ratio_and_null_for_missing_figures() {
        let row = Row::new("m", Unit::Bytes, &samples(&[1.0]), &Samples::new());
        let json = serde_json::to_value(&row).unwrap();
        assert_eq!(json["unit"], "bytes");
        assert_eq!(json["ours"]["median"], 1.0);
        assert!(json["chromium"]["median"].is_null());
        assert!(json["ratio"].is_null());
    }

    #[test]
    fn table_columns_line_up_across_rows() {
        let rows = [
            Row::new(
                "context+setContent",
                Unit::Millis,
                &samples(&[1.0]),
                &samples(&[12.0]),
            ),
            Row::new(
                "tree pss",
                Unit::Bytes,
                &samples(&[40.0 * 1048576.0]),
                &samples(&[400.0 * 1048576.0]),
            ),
        ];
        let text = table(&rows);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert!(lines[0].starts_with("row "));
        assert!(lines[2].starts_with("context+setContent  "));
        assert!(lines[3].ends_with("0.10× the memory"), "{text}");
        // Right-aligned columns end at the same char offset on every line.
        let end_of = |line: &str, needle: &str| {
            line[..line.find(needle).unwrap() + needle.len()]
                .chars()
                .count()
        };
        assert_eq!(
            end_of(lines[0], "chromium p50"),
            end_of(lines[2], "12.0 ms")
        );
        assert_eq!(
            end_of(lines[0], "chromium p50"),
            end_of(lines[3], "400.0 MiB")
        );
    }
}
