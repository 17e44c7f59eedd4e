//! Reports of a replay: the per-category table and the differences of single steps.

use std::fmt::Write as _;

use crate::compare::{StepResult, Verdict};
use crate::expect::Expectations;

/// Counts of one category, or of all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    /// Compared steps.
    pub steps: usize,
    /// Identical.
    pub identical: usize,
    /// Differ only in allowlisted paths.
    pub allowed: usize,
    /// Differ only softly (wording, warnings, content type, empty-vs-absent).
    pub soft: usize,
    /// Differ.
    pub differ: usize,
    /// Of those that differ, only in managedFields.
    pub managed_fields_only: usize,
}

impl Tally {
    fn add(&mut self, result: &StepResult, expectations: &Expectations) {
        self.steps += 1;
        match result.verdict {
            Verdict::Identical => self.identical += 1,
            Verdict::Soft => self.soft += 1,
            Verdict::Differ if expectations.allowed(result) => self.allowed += 1,
            Verdict::Differ => {
                self.differ += 1;
                if result.managed_fields_only() {
                    self.managed_fields_only += 1;
                }
            }
        }
    }
}

/// The totals of `results`.
pub fn totals(results: &[StepResult], expectations: &Expectations) -> Tally {
    let mut tally = Tally::default();
    results.iter().for_each(|r| tally.add(r, expectations));
    tally
}

/// The per-category table and the totals line.
pub fn summary(results: &[StepResult], expectations: &Expectations) -> String {
    let mut categories: Vec<(String, Tally)> = Vec::new();
    for result in results {
        let index = match categories.iter().position(|(c, _)| *c == result.category) {
            Some(i) => i,
            None => {
                categories.push((result.category.clone(), Tally::default()));
                categories.len() - 1
            }
        };
        categories[index].1.add(result, expectations);
    }
    let mut out = String::from("category          steps  identical  allowed  soft-only  differ (managedFields only)\n");
    let total = totals(results, expectations);
    for (name, t) in categories
        .iter()
        .chain(std::iter::once(&("TOTAL".to_owned(), total.clone())))
    {
        let _ = writeln!(
            out,
            "{name:16} {:6} {:10} {:8} {:10} {:7} {:8}",
            t.steps, t.identical, t.allowed, t.soft, t.differ, t.managed_fields_only
        );
    }
    let _ = writeln!(
        out,
        "{} steps: {} identical, {} allowed, {} soft-only, {} differ ({} only in managedFields)",
        total.steps, total.identical, total.allowed, total.soft, total.differ, total.managed_fields_only
    );
    out
}

/// One step's differences, as lines (hard first; soft ones with `~`).
pub fn describe(result: &StepResult, with_soft: bool, max_lines: usize) -> String {
    let mut lines: Vec<String> = result.hard.iter().map(|d| format!("    {d}")).collect();
    if with_soft {
        lines.extend(result.soft.iter().map(|d| format!("  ~ {d}")));
    }
    let mut out = format!(
        "[{}] {} / {}  ({})  {}\n",
        result.verdict.name(),
        result.scenario,
        result.step,
        result.category,
        result.request
    );
    for line in lines.iter().take(max_lines) {
        let _ = writeln!(out, "{line}");
    }
    if lines.len() > max_lines {
        let _ = writeln!(out, "    ... {} more", lines.len() - max_lines);
    }
    out
}
