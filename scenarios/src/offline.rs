//! Working from a trace file alone: its story, an offline re-check, a replay.
//!
//! A trace's header carries its scenario's text and seed, so the protocol's typed machinery can
//! be brought back: the records are read as the protocol's own types, the embedded scenario is
//! loaded for its config (the invariants depend on it), and the run can be made again. These
//! are the typed halves of `dsim view`, `dsim check` and `dsim replay`; the registry exposes
//! them type-erased.

use crate::diagnostic::Diagnostic;
use crate::load::{Prepared, load};
use crate::run::{RunOptions, run, trace_text};
use sim_core::{Checker, Event, Instant, Record, Violation};
use std::fmt;
use traces::narrate::Detail;
use traces::story::tell;
use traces::view::TraceView;
use traces::{Header, Lang, Story, TraceError, read_trace_lines};

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

/// A trace file read once into the protocol's typed records: what `dsim view`, `check`,
/// `replay` and `diff` work from, whatever the protocol (see [`LoadedTrace`]).
pub struct TypedTrace<P: Story> {
    header: Header,
    records: Vec<Record<P::Actor>>,
    /// The file line of each record.
    lines: Vec<usize>,
}

/// A trace file read with its protocol's types, type-erased for the command line. Every
/// command reads the file once, through this.
pub trait LoadedTrace {
    /// The header.
    fn header(&self) -> &Header;
    /// The view for the renderers, with the story (folded as `dsim run` folds it) attached.
    fn view(&self, lang: Lang, detail: Detail) -> TraceView;
    /// Re-checks the records against the invariants of the scenario in the header, so a
    /// hand-edited trace is judged by the very checkers a run uses (`dsim check`).
    fn check(&self) -> Result<CheckReport, TraceProblem>;
    /// Re-runs the scenario in the header at the header's seed: the new trace's text.
    fn replay(&self) -> Result<String, TraceProblem>;
    /// The records written back through their `Serialize` derive: the canonical form of the
    /// format (a round trip must give the same bytes).
    fn reserialize(&self) -> String;
}

impl<P: Story> TypedTrace<P> {
    /// Reads `text` as a trace of `P`; every line is parsed once (see `traces::read_trace`).
    pub fn read(text: &str) -> Result<Self, TraceError> {
        let read = read_trace_lines::<P::Actor>(text)?;
        Ok(TypedTrace {
            header: read.header,
            records: read.records,
            lines: read.lines,
        })
    }

    fn embedded(&self) -> Result<Prepared<P>, TraceProblem> {
        let h = &self.header;
        load::<P>(&h.scenario_name, &h.scenario).map_err(TraceProblem::Scenario)
    }
}

impl<P: Story> LoadedTrace for TypedTrace<P> {
    fn header(&self) -> &Header {
        &self.header
    }

    fn view(&self, lang: Lang, detail: Detail) -> TraceView {
        let mut view = TraceView::of(self.header.clone(), &self.records);
        for (r, &line) in view.records.iter_mut().zip(&self.lines) {
            r.line = line;
        }
        view.attach_story(tell::<P>(&self.records, lang, detail));
        view.history = P::history(&self.records, lang);
        view
    }

    fn check(&self) -> Result<CheckReport, TraceProblem> {
        let prep = self.embedded()?;
        let invariants = P::invariants(&prep.doc.config);
        let names = invariants.iter().map(|i| i.name().to_string()).collect();
        let mut checker = Checker::new(invariants);
        let mut recorded = 0;
        for r in &self.records {
            if matches!(r.event, Event::Violation { .. }) {
                recorded += 1;
                continue;
            }
            checker.observe(r);
        }
        checker.finish(self.records.last().map_or(Instant::ZERO, |r| r.time));
        Ok(CheckReport {
            records: self.records.len(),
            invariants: names,
            violations: checker.violations().to_vec(),
            recorded,
        })
    }

    fn replay(&self) -> Result<String, TraceProblem> {
        let prep = self.embedded()?;
        let options = RunOptions {
            seed: Some(self.header.seed),
            keep_trace: true,
            ..RunOptions::default()
        };
        Ok(run(&prep, &options).trace.unwrap_or_default())
    }

    fn reserialize(&self) -> String {
        trace_text(&self.header, &self.records)
    }
}
