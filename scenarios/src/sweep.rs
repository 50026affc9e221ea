//! Many seeds of one scenario: each run's verdict and figures, and their aggregate.
//!
//! A sweep is a list of independent runs, one per (variant, seed). This module runs one and
//! aggregates many; it spawns no threads (the CLI runs the list on a pool and hands the results
//! back in seed order, so the thread count can never change the table).

use serde::Serialize;
use sim_core::StopReason;
use std::collections::BTreeMap;
use traces::{Measure, MeasureKind};

/// What one seed of a sweep produced.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SeedOutcome {
    /// The seed.
    pub seed: u64,
    /// Whether the scenario passed (expectations held; no unexpected violation).
    pub passed: bool,
    /// Why the run stopped.
    pub stop: StopReason,
    /// The invariants violated, in order.
    pub violations: Vec<String>,
    /// The protocol's figures for this run.
    pub measures: Vec<Measure>,
}

/// One figure aggregated over the runs that reached it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Aggregate {
    /// The figure's name.
    pub name: &'static str,
    /// How to read it.
    pub kind: MeasureKind,
    /// Runs that reached a value.
    pub runs: usize,
    /// Median (for a flag: runs where it was 1).
    pub median: Option<u64>,
    /// 90th percentile (nearest rank).
    pub p90: Option<u64>,
    /// Maximum.
    pub max: Option<u64>,
    /// For a tally: how many runs had each outcome, by label.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub tally: BTreeMap<String, usize>,
}

/// The aggregate of a sweep of one variant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SweepSummary {
    /// Runs.
    pub runs: usize,
    /// Runs that passed.
    pub passed: usize,
    /// Runs with at least one violation.
    pub runs_with_violations: usize,
    /// Violations by invariant (counted once per run).
    pub violations: BTreeMap<String, usize>,
    /// Each figure, in the protocol's order.
    pub measures: Vec<Aggregate>,
    /// The first failing seed, to replay.
    pub first_failure: Option<u64>,
}

/// Aggregates the outcomes of one variant (in any order; the result does not depend on it).
pub fn summarize(outcomes: &[SeedOutcome]) -> SweepSummary {
    let mut sorted: Vec<&SeedOutcome> = outcomes.iter().collect();
    sorted.sort_by_key(|o| o.seed);
    let mut violations: BTreeMap<String, usize> = BTreeMap::new();
    for o in &sorted {
        let mut names: Vec<&String> = o.violations.iter().collect();
        names.sort();
        names.dedup();
        for n in names {
            *violations.entry(n.clone()).or_default() += 1;
        }
    }
    let mut measures = Vec::new();
    if let Some(first) = sorted.first() {
        for (i, m) in first.measures.iter().enumerate() {
            let mut values: Vec<u64> = sorted
                .iter()
                .filter_map(|o| o.measures.get(i).and_then(|x| x.value))
                .collect();
            values.sort_unstable();
            let mut aggregate = aggregate(m.name, m.kind, &values);
            if m.kind == MeasureKind::Tally {
                for label in sorted
                    .iter()
                    .filter_map(|o| o.measures.get(i)?.label.as_ref())
                {
                    *aggregate.tally.entry(label.clone()).or_default() += 1;
                }
                aggregate.runs = aggregate.tally.values().sum();
            }
            measures.push(aggregate);
        }
    }
    SweepSummary {
        runs: sorted.len(),
        passed: sorted.iter().filter(|o| o.passed).count(),
        runs_with_violations: sorted.iter().filter(|o| !o.violations.is_empty()).count(),
        violations,
        measures,
        first_failure: sorted.iter().find(|o| !o.passed).map(|o| o.seed),
    }
}

fn aggregate(name: &'static str, kind: MeasureKind, sorted: &[u64]) -> Aggregate {
    let rank = |q: usize| -> Option<u64> {
        if sorted.is_empty() {
            return None;
        }
        // Nearest rank: the smallest value with at least q % of the values at or below it.
        let i = (q * sorted.len()).div_ceil(100).max(1) - 1;
        Some(sorted[i.min(sorted.len() - 1)])
    };
    match kind {
        MeasureKind::Flag => Aggregate {
            name,
            kind,
            runs: sorted.len(),
            median: Some(sorted.iter().sum()),
            p90: None,
            max: None,
            tally: BTreeMap::new(),
        },
        _ => Aggregate {
            name,
            kind,
            runs: sorted.len(),
            median: rank(50),
            p90: rank(90),
            max: sorted.last().copied(),
            tally: BTreeMap::new(),
        },
    }
}

/// Parses a seed range: `0..1000` (1000 excluded) or `0..=999` (the one range parser of the
/// workspace, [`protocols::partition::keys::parse_number_range`], which also reads `dsim ring --range`).
pub fn parse_seeds(text: &str) -> Result<std::ops::Range<u64>, String> {
    let seeds =
        protocols::partition::keys::parse_number_range(text, "seed range", "0..1000 or 0..=999")?;
    let end = seeds.end().checked_add(1).ok_or_else(|| {
        format!(
            "seed range {text:?} ends at {}, past the last seed a sweep can run: expected e.g. 0..1000 or 0..=999",
            u64::MAX
        )
    })?;
    Ok(*seeds.start()..end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(seed: u64, passed: bool, v: &[&str], x: Option<u64>) -> SeedOutcome {
        SeedOutcome {
            seed,
            passed,
            stop: StopReason::TimeLimit,
            violations: v.iter().map(|s| s.to_string()).collect(),
            measures: vec![Measure::count("x", x)],
        }
    }

    #[test]
    fn aggregates_do_not_depend_on_order() {
        let a = vec![
            outcome(2, true, &[], Some(5)),
            outcome(0, false, &["agreement", "agreement"], Some(1)),
            outcome(1, true, &[], None),
        ];
        let mut b = a.clone();
        b.reverse();
        let s = summarize(&a);
        assert_eq!(s, summarize(&b));
        assert_eq!((s.runs, s.passed, s.runs_with_violations), (3, 2, 1));
        assert_eq!(s.violations["agreement"], 1);
        assert_eq!(s.first_failure, Some(0));
        assert_eq!(
            (s.measures[0].runs, s.measures[0].median, s.measures[0].max),
            (2, Some(1), Some(5))
        );
    }

    #[test]
    fn nearest_rank_percentiles() {
        let values: Vec<u64> = (1..=10).collect();
        let a = aggregate("x", MeasureKind::Count, &values);
        assert_eq!((a.median, a.p90, a.max), (Some(5), Some(9), Some(10)));
    }

    #[test]
    fn seed_ranges() {
        assert_eq!(parse_seeds("0..1000").unwrap(), 0..1000);
        assert_eq!(parse_seeds("5..=6").unwrap(), 5..7);
        assert!(parse_seeds("3..3").unwrap_err().contains("empty"));
        assert!(parse_seeds("ten").unwrap_err().contains("expected"));
    }
}
