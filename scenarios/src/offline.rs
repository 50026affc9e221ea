//! Working from a trace file alone: its story, an offline re-check, a replay.
//!
//! A trace's header carries its scenario's text and seed, so the protocol's typed machinery can
//! be brought back: the records are read as the protocol's own types, the embedded scenario is
//! loaded for its config (the invariants depend on it), and the run can be made again. These
//! are the typed halves of `dsim view`, `dsim check` and `dsim replay`; the registry exposes
//! them type-erased.

use crate::diagnostic::Diagnostic;
use crate::load::{Prepared, load};
use crate::run::{RunOptions, run, story};
use sim_core::{Checker, Event, Instant, Violation};
use std::fmt;
use traces::narrate::Detail;
use traces::{Lang, Story, TraceError, read_trace};

/// Why a trace file could not be worked with.
#[derive(Clone, Debug)]
pub enum TraceProblem {
    /// The file itself is wrong at a line.
    Trace(TraceError),
    /// The scenario embedded in its header no longer loads (edited, or from another dsim).
    Scenario(Vec<Diagnostic>),
}

impl fmt::Display for TraceProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceProblem::Trace(e) => write!(f, "{e}"),
            TraceProblem::Scenario(ds) => {
                writeln!(
                    f,
                    "the scenario embedded in the trace's header does not load:"
                )?;
                for d in ds {
                    writeln!(f, "{d}")?;
                }
                Ok(())
            }
        }
    }
}

impl From<TraceError> for TraceProblem {
    fn from(e: TraceError) -> Self {
        TraceProblem::Trace(e)
    }
}

/// What an offline re-check found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckReport {
    /// Records read.
    pub records: usize,
    /// The invariants that were checked, by name.
    pub invariants: Vec<String>,
    /// Every violation the checkers found, in order.
    pub violations: Vec<Violation>,
    /// How many violation records the file itself carries (the run's own verdict).
    pub recorded: usize,
}

/// Story lines of a trace of `P`: `(record index from 0, line)`, at `detail`.
pub fn story_of_trace<P: Story>(
    text: &str,
    lang: Lang,
    detail: Detail,
) -> Result<Vec<(usize, String)>, TraceError> {
    let (_, records) = read_trace::<P::Actor>(text)?;
    Ok(records
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let line = story::<P>(std::slice::from_ref(r), lang, detail).pop()?;
            Some((i, line.text))
        })
        .collect())
}

fn embedded<P: Story>(text: &str) -> Result<(Prepared<P>, u64), TraceProblem> {
    let header = traces::parse_header(text)?;
    let prep =
        load::<P>(&header.scenario_name, &header.scenario).map_err(TraceProblem::Scenario)?;
    Ok((prep, header.seed))
}

/// Re-checks a trace of `P` against the invariants of the scenario in its header.
pub fn check_trace<P: Story>(text: &str) -> Result<CheckReport, TraceProblem> {
    let (_, records) = read_trace::<P::Actor>(text)?;
    let (prep, _) = embedded::<P>(text)?;
    let invariants = P::invariants(&prep.doc.config);
    let names = invariants.iter().map(|i| i.name().to_string()).collect();
    let mut checker = Checker::new(invariants);
    let mut recorded = 0;
    for r in &records {
        if matches!(r.event, Event::Violation { .. }) {
            recorded += 1;
            continue;
        }
        checker.observe(r);
    }
    checker.finish(records.last().map_or(Instant::ZERO, |r| r.time));
    Ok(CheckReport {
        records: records.len(),
        invariants: names,
        violations: checker.violations().to_vec(),
        recorded,
    })
}

/// Re-runs the scenario in a trace's header at its seed: the new trace's text.
pub fn replay<P: Story>(text: &str) -> Result<String, TraceProblem> {
    let (prep, seed) = embedded::<P>(text)?;
    let options = RunOptions {
        seed: Some(seed),
        keep_trace: true,
        ..RunOptions::default()
    };
    Ok(run(&prep, &options).trace.unwrap_or_default())
}
