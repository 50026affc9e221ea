//! The registry: the one place that names every protocol.
//!
//! Each protocol is reached through [`DynProtocol`], which hides its types behind text in and
//! results out, so the CLI can load, validate and run any scenario without knowing its protocol.

use crate::diagnostic::{Diagnostic, Locator, closest};
use crate::load::{self, Prepared};
use crate::offline::{self, CheckReport, TraceProblem};
use crate::run::{self, RunOptions, RunResult};
use crate::sweep::SeedOutcome;
use protocols::paxos::Paxos;
use protocols::raft::Raft;
use protocols::ring::live::LiveRing;
use protocols::token_ring::TokenRingProtocol;
use sim_core::{Actor, Message};
use std::marker::PhantomData;
use traces::narrate::Detail;
use traces::{Lang, Story, TraceError};

/// A protocol, type-erased for the command line.
pub trait DynProtocol: Sync {
    /// The protocol's name in scenario files.
    fn name(&self) -> &'static str;
    /// One line on what it is.
    fn about(&self) -> &'static str;
    /// Its message kinds.
    fn kinds(&self) -> &'static [&'static str];
    /// Parses and checks a scenario; on success, a short summary.
    fn validate(&self, file: &str, source: &str) -> Result<Summary, Vec<Diagnostic>>;
    /// Parses, checks and runs a scenario.
    fn run(
        &self,
        file: &str,
        source: &str,
        options: &RunOptions,
    ) -> Result<RunResult, Vec<Diagnostic>>;
    /// Reads a trace of this protocol and writes it back through the records' `Serialize`
    /// derive: the canonical form of the format (a round trip must give the same bytes).
    fn reserialize(&self, trace: &str) -> Result<String, traces::TraceError>;
    /// Parses and checks a scenario, then runs it at each of `seeds` (no story, no trace
    /// text), calling `progress` after each run. For sweeps: results come back in seed order.
    fn sweep(
        &self,
        file: &str,
        source: &str,
        seeds: &[u64],
        progress: &(dyn Fn() + Sync),
    ) -> Result<Vec<SeedOutcome>, Vec<Diagnostic>>;
    /// The story of a trace file of this protocol, read with the protocol's types:
    /// `(record index from 0, line)` for each record told at `detail`. The renderers attach
    /// these lines to their protocol-independent view.
    fn story_of_trace(
        &self,
        text: &str,
        lang: Lang,
        detail: Detail,
    ) -> Result<Vec<(usize, String)>, TraceError>;
    /// Re-checks a trace file against the invariants of the scenario in its header, so a
    /// hand-edited trace is judged by the very checkers a run uses (`dsim check`).
    fn check_trace(&self, text: &str) -> Result<CheckReport, TraceProblem>;
    /// Re-runs the scenario in a trace's header at the header's seed and returns the new
    /// trace's text, for `dsim replay` to compare.
    fn replay(&self, text: &str) -> Result<String, TraceProblem>;
}

/// What `dsim validate` reports about a valid scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    /// The protocol.
    pub protocol: &'static str,
    /// One line on what the scenario shows.
    pub description: String,
    /// Node names.
    pub nodes: Vec<String>,
    /// Timeline steps.
    pub steps: usize,
    /// Expectations (plus one if a violation is expected).
    pub expectations: usize,
}

struct Entry<P>(PhantomData<fn() -> P>);

impl<P: Story> DynProtocol for Entry<P> {
    fn name(&self) -> &'static str {
        P::NAME
    }
    fn about(&self) -> &'static str {
        P::ABOUT
    }
    fn kinds(&self) -> &'static [&'static str] {
        <<P::Actor as Actor>::Msg as Message>::KINDS
    }
    fn validate(&self, file: &str, source: &str) -> Result<Summary, Vec<Diagnostic>> {
        let prep: Prepared<P> = load::load(file, source)?;
        Ok(Summary {
            protocol: P::NAME,
            description: prep.doc.description.clone(),
            nodes: prep.nodes.clone(),
            steps: prep.timeline.len(),
            expectations: prep.doc.expect.len() + prep.doc.expect_violation.len(),
        })
    }
    fn run(
        &self,
        file: &str,
        source: &str,
        options: &RunOptions,
    ) -> Result<RunResult, Vec<Diagnostic>> {
        let prep: Prepared<P> = load::load(file, source)?;
        Ok(run::run(&prep, options))
    }
    fn story_of_trace(
        &self,
        text: &str,
        lang: Lang,
        detail: Detail,
    ) -> Result<Vec<(usize, String)>, TraceError> {
        offline::story_of_trace::<P>(text, lang, detail)
    }
    fn check_trace(&self, text: &str) -> Result<CheckReport, TraceProblem> {
        offline::check_trace::<P>(text)
    }
    fn replay(&self, text: &str) -> Result<String, TraceProblem> {
        offline::replay::<P>(text)
    }
    fn reserialize(&self, trace: &str) -> Result<String, traces::TraceError> {
        let (header, records) = traces::read_trace::<P::Actor>(trace)?;
        let mut out = header.to_line();
        out.push('\n');
        for r in &records {
            out.push_str(&serde_json::to_string(r).expect("records serialize"));
            out.push('\n');
        }
        Ok(out)
    }
    fn sweep(
        &self,
        file: &str,
        source: &str,
        seeds: &[u64],
        progress: &(dyn Fn() + Sync),
    ) -> Result<Vec<SeedOutcome>, Vec<Diagnostic>> {
        let prep: Prepared<P> = load::load(file, source)?;
        Ok(seeds
            .iter()
            .map(|&seed| {
                let outcome = run::measure(&prep, seed);
                progress();
                outcome
            })
            .collect())
    }
}

/// Every protocol dsim knows, in the order `dsim list` shows them.
pub fn protocols() -> &'static [&'static dyn DynProtocol] {
    &[
        &Entry::<Paxos>(PhantomData),
        &Entry::<Raft>(PhantomData),
        &Entry::<LiveRing>(PhantomData),
        &Entry::<TokenRingProtocol>(PhantomData),
    ]
}

/// The protocol called `name`.
pub fn find(name: &str) -> Option<&'static dyn DynProtocol> {
    protocols().iter().copied().find(|p| p.name() == name)
}

/// The protocol a scenario names, or a located problem (with the closest known name).
pub fn protocol_for(file: &str, source: &str) -> Result<&'static dyn DynProtocol, Vec<Diagnostic>> {
    let name = load::protocol_of(file, source).map_err(|d| vec![d])?;
    if let Some(p) = find(&name) {
        return Ok(p);
    }
    let names: Vec<&str> = protocols().iter().map(|p| p.name()).collect();
    let list = names.join(", ");
    let help = match closest(&name, names.iter().copied()) {
        Some(c) => format!("did you mean \"{c}\"? dsim knows: {list}"),
        None => format!("dsim knows: {list}"),
    };
    let needle = format!("\"{name}\"");
    let d = match Locator::new(source).find(&needle) {
        Some((line, col, width)) => Diagnostic::at(
            file,
            source,
            line,
            col,
            width,
            format!("unknown protocol \"{name}\""),
        ),
        None => Diagnostic::whole_file(file, format!("unknown protocol \"{name}\"")),
    };
    Err(vec![d.with_help(help)])
}
