//! Rounds of measurements summarised as median (min–max), and ratios between programs measured
//! alternately in one run: the only comparisons a shared, noisy machine supports.

use std::collections::BTreeMap;
use std::fmt;

/// The values one metric took over the rounds.
#[derive(Clone, Debug, Default)]
pub struct Samples(Vec<f64>);

impl Samples {
    /// Adds one round's value.
    pub fn push(&mut self, value: f64) {
        self.0.push(value);
    }

    fn sorted(&self) -> Vec<f64> {
        let mut values = self.0.clone();
        values.sort_by(f64::total_cmp);
        values
    }

    /// The median (the mean of the middle two for an even count); 0 without samples.
    pub fn median(&self) -> f64 {
        let values = self.sorted();
        match values.len() {
            0 => 0.0,
            n if n % 2 == 1 => values[n / 2],
            n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
        }
    }

    /// The smallest and largest value.
    pub fn range(&self) -> (f64, f64) {
        let values = self.sorted();
        (
            values.first().copied().unwrap_or(0.0),
            values.last().copied().unwrap_or(0.0),
        )
    }

    /// Median (min–max), to a precision that suits the magnitude.
    pub fn display(&self) -> String {
        let (min, max) = self.range();
        format!("{} ({}–{})", human(self.median()), human(min), human(max))
    }
}

/// A number to three significant digits, with k/M suffixes for large values.
pub fn human(value: f64) -> String {
    let (scaled, suffix) = match value.abs() {
        v if v >= 10_000_000.0 => (value / 1_000_000.0, " M"),
        v if v >= 10_000.0 => (value / 1_000.0, " k"),
        _ => (value, ""),
    };
    let digits = match scaled.abs() {
        v if v >= 100.0 => 0,
        v if v >= 10.0 => 1,
        v if v >= 1.0 => 2,
        _ => 3,
    };
    format!("{scaled:.digits$}{suffix}")
}

/// Metrics per program (e.g. "informer" → "list objects/s" → samples), in insertion order of
/// programs so tables read in the order they ran.
#[derive(Default)]
pub struct Table {
    programs: Vec<String>,
    metrics: Vec<String>,
    values: BTreeMap<(String, String), Samples>,
}

impl Table {
    /// Records one round's `value` of `metric` for `program`.
    pub fn record(&mut self, program: &str, metric: &str, value: f64) {
        if !self.programs.iter().any(|p| p == program) {
            self.programs.push(program.to_owned());
        }
        if !self.metrics.iter().any(|m| m == metric) {
            self.metrics.push(metric.to_owned());
        }
        self.values
            .entry((program.to_owned(), metric.to_owned()))
            .or_default()
            .push(value);
    }

    /// The samples of `metric` for `program`.
    pub fn samples(&self, program: &str, metric: &str) -> Samples {
        self.values
            .get(&(program.to_owned(), metric.to_owned()))
            .cloned()
            .unwrap_or_default()
    }

    /// The programs recorded, in the order they first ran.
    pub fn programs(&self) -> &[String] {
        &self.programs
    }

    /// The ratio of the medians of `metric`, `program` over `baseline`.
    pub fn ratio(&self, program: &str, baseline: &str, metric: &str) -> f64 {
        self.samples(program, metric).median() / self.samples(baseline, metric).median()
    }
}

impl fmt::Display for Table {
    /// A Markdown table: one row per program, one column per metric.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "| |")?;
        for metric in &self.metrics {
            write!(f, " {metric} |")?;
        }
        write!(f, "\n|---|")?;
        for _ in &self.metrics {
            write!(f, "---|")?;
        }
        writeln!(f)?;
        for program in &self.programs {
            write!(f, "| {program} |")?;
            for metric in &self.metrics {
                match self.values.get(&(program.clone(), metric.clone())) {
                    Some(samples) => write!(f, " {} |", samples.display())?,
                    None => write!(f, " – |")?,
                }
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

/// One target's verdict line: `name: measured (target) met|MISSED`.
pub fn verdict(name: &str, measured: String, target: &str, met: bool) -> String {
    format!(
        "- {name}: {measured} (target {target}): {}",
        if met { "met" } else { "MISSED" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_should_take_the_middle_of_sorted_values() {
        let mut odd = Samples::default();
        for v in [3.0, 1.0, 2.0] {
            odd.push(v);
        }
        assert_eq!((odd.median(), odd.range()), (2.0, (1.0, 3.0)));
        let mut even = Samples::default();
        for v in [4.0, 1.0, 3.0, 2.0] {
            even.push(v);
        }
        assert_eq!(even.median(), 2.5);
        assert_eq!(Samples::default().median(), 0.0);
    }

    #[test]
    fn numbers_should_read_at_three_significant_digits() {
        assert_eq!(human(123_456.0), "123 k");
        assert_eq!(human(12_345_678.0), "12.3 M");
        assert_eq!(human(1.2345), "1.23");
        assert_eq!(human(0.01234), "0.012");
    }

    #[test]
    fn a_table_should_list_programs_in_the_order_they_ran() {
        let mut table = Table::default();
        table.record("b", "x", 2.0);
        table.record("a", "x", 4.0);
        assert_eq!(table.ratio("a", "b", "x"), 2.0);
        let text = table.to_string();
        assert!(text.find("| b |").unwrap() < text.find("| a |").unwrap(), "{text}");
    }
}
