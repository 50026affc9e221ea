//! The registry: the one place that names every protocol.
//!
//! Each protocol is reached through [`DynProtocol`], which hides its types: it loads a scenario
//! once into a [`LoadedScenario`] (run it, sweep it) and reads a trace once into a
//! `LoadedTrace` (view, check, replay it), so the CLI works with any protocol without knowing it.

use crate::diagnostic::{Diagnostic, Locator, closest};
use crate::explore::{self, Counterexample, FaultModel, Finding};
use crate::load::{self, Prepared};
use crate::offline::{LoadedTrace, TypedTrace};
use crate::run::{self, RunOptions, RunResult, TraceOut};
use crate::sweep::SeedOutcome;
use protocols::lease::Lease;
use protocols::multipaxos::MultiPaxos;
use protocols::paxos::Paxos;
use protocols::pbft::Pbft;
use protocols::raft::Raft;
use protocols::register::RegisterPaxos;
use protocols::ring_store::LiveRing;
use protocols::token_ring::TokenRingProtocol;
use sim_core::{Actor, BugKnob, Message};
use std::marker::PhantomData;
use traces::{Story, TraceError};

/// A protocol, type-erased for the command line: it loads scenarios and reads traces with the
/// protocol's own types, and hands back objects that know them.
pub trait DynProtocol: Sync {
    /// The protocol's name in scenario files.
    fn name(&self) -> &'static str;
    /// One line on what it is.
    fn about(&self) -> &'static str;
    /// Its message kinds.
    fn kinds(&self) -> &'static [&'static str];
    /// Its bug knobs (`bugs: (name: true)` in a config), for `dsim explore --bug`.
    fn bugs(&self) -> &'static [BugKnob];
    /// Parses and checks a scenario once, into something that runs it at any seed.
    fn load(&self, file: &str, source: &str) -> Result<Box<dyn LoadedScenario>, Vec<Diagnostic>>;
    /// Reads a trace of this protocol once, into its typed records.
    fn read_trace(&self, text: &str) -> Result<Box<dyn LoadedTrace>, TraceError>;

    /// Parses and checks a scenario; on success, a short summary.
    fn validate(&self, file: &str, source: &str) -> Result<Summary, Vec<Diagnostic>> {
        Ok(self.load(file, source)?.summary())
    }
    /// Parses, checks and runs a scenario once.
    fn run(
        &self,
        file: &str,
        source: &str,
        options: &RunOptions,
    ) -> Result<RunResult, Vec<Diagnostic>> {
        Ok(self.load(file, source)?.run(options))
    }
    /// Parses, checks and runs a scenario once, writing its trace to `trace` as it is made;
    /// the second value is the first error writing it met.
    fn run_to(
        &self,
        file: &str,
        source: &str,
        options: &RunOptions,
        trace: Option<TraceOut<'_>>,
    ) -> Result<(RunResult, std::io::Result<()>), Vec<Diagnostic>> {
        Ok(self.load(file, source)?.run_to(options, trace))
    }
}

/// A scenario parsed and checked once, with its protocol's types: `dsim run` runs it, a sweep
/// runs it at many seeds from many threads (it is `Sync`), and nothing parses the file again.
pub trait LoadedScenario: Sync {
    /// What `dsim validate` reports about it.
    fn summary(&self) -> Summary;
    /// One run, with its story, expectations and (on request) trace and view.
    fn run(&self, options: &RunOptions) -> RunResult;
    /// One run, its trace written to `trace` as it is made (see `run::run_to`).
    fn run_to(
        &self,
        options: &RunOptions,
        trace: Option<TraceOut<'_>>,
    ) -> (RunResult, std::io::Result<()>);
    /// One run at `seed` for a sweep: the verdict and the protocol's figures, no story.
    fn measure(&self, seed: u64) -> SeedOutcome;
    /// Whether the file fixes its own schedule (a search has nothing left to vary then).
    fn has_schedule(&self) -> bool;
    /// One seed of a search, on the fast path, with `faults` drawn from the seed: the first
    /// invariant broken, if any.
    fn probe(&self, seed: u64, faults: &FaultModel) -> Option<Finding>;
    /// [`LoadedScenario::probe`] of each seed, faster (one run built, cloned per seed): the
    /// findings in seed order.
    fn probe_many(&self, seeds: &[u64], faults: &FaultModel) -> Vec<(u64, Finding)>;
    /// [`LoadedScenario::probe_many`], also counting the distinct abstract states reached
    /// (sorted hashes: actor states, statuses, messages in flight; no times).
    fn probe_covering(&self, seeds: &[u64], faults: &FaultModel)
    -> (Vec<(u64, Finding)>, Vec<u64>);
    /// PCT's k for the file (see [`crate::pct::estimate_steps`]), or why it cannot be
    /// searched so.
    fn pct_steps(&self, max_moves: u32) -> Result<u32, String>;
    /// One PCT walk per seed: the findings in seed order, and what the walks were like.
    fn pct_probe(
        &self,
        seeds: &[u64],
        settings: &crate::pct::PctSettings,
    ) -> (Vec<(u64, Finding)>, crate::pct::PctStats);
    /// A swarm search's tally of `seeds`: per mix, the seeds and how many of them broke each
    /// invariant (`findings` are those seeds' findings). Empty unless `faults.swarm`.
    fn swarm_tally(
        &self,
        seeds: std::ops::Range<u64>,
        faults: &FaultModel,
        findings: &[(u64, Finding)],
    ) -> Vec<crate::swarm::MixTally>;
    /// The shortest shrunk counterexample of `invariant` among the first
    /// [`explore::SHRINK_CANDIDATES`] seeds of `findings` (in seed order) that broke it: a
    /// seed's own draws decide how far its schedule shrinks. The earliest seed on a tie.
    fn shortest_counterexample(
        &self,
        findings: &[(u64, Finding)],
        invariant: &str,
        faults: &FaultModel,
        origin: &str,
    ) -> Counterexample {
        findings
            .iter()
            .filter(|(_, f)| f.invariant == invariant)
            .take(explore::SHRINK_CANDIDATES)
            .map(|(seed, f)| self.counterexample(*seed, faults, f, origin))
            .min_by_key(|cx| cx.choices.len())
            .expect("a finding of the invariant is among the candidates")
    }
    /// The shrunk counterexample of what `probe` found at `seed`, as a scenario file.
    fn counterexample(
        &self,
        seed: u64,
        faults: &FaultModel,
        finding: &Finding,
        origin: &str,
    ) -> Counterexample;
    /// Every interleaving of the file's configuration (see [`crate::exhaustive`]).
    fn exhaustive(
        &self,
        settings: &crate::exhaustive::Settings,
        origin: &str,
        progress: &mut dyn FnMut(&sim_core::exhaustive::Stats),
    ) -> Result<crate::exhaustive::Outcome, String>;
    /// The file's state graph for a search engine outside the kernel (see
    /// [`crate::exhaustive::searchable`]).
    fn searchable(
        &self,
        settings: &crate::exhaustive::Settings,
    ) -> Result<Box<dyn sim_core::exhaustive::Searchable>, String>;
    /// The outcome of such an engine's search (see [`crate::exhaustive::outcome`]).
    fn exhaustive_outcome(
        &self,
        settings: &crate::exhaustive::Settings,
        report: sim_core::exhaustive::Report,
        origin: &str,
    ) -> Result<crate::exhaustive::Outcome, String>;
}

impl<P: Story> LoadedScenario for Prepared<P> {
    fn summary(&self) -> Summary {
        Summary {
            protocol: P::NAME,
            description: self.doc.description.clone(),
            nodes: self.nodes.clone(),
            steps: self.timeline.len(),
            expectations: self.doc.expect.len() + self.doc.expect_violation.len(),
        }
    }
    fn run(&self, options: &RunOptions) -> RunResult {
        run::run(self, options)
    }
    fn run_to(
        &self,
        options: &RunOptions,
        trace: Option<TraceOut<'_>>,
    ) -> (RunResult, std::io::Result<()>) {
        run::run_to(self, options, trace)
    }
    fn measure(&self, seed: u64) -> SeedOutcome {
        run::measure(self, seed)
    }
    fn has_schedule(&self) -> bool {
        self.schedule.is_some()
    }
    fn probe(&self, seed: u64, faults: &FaultModel) -> Option<Finding> {
        match &faults.pct {
            Some(pct) => crate::pct::probe(self, &[seed], pct)
                .0
                .pop()
                .map(|(_, f)| f),
            None => explore::probe(self, seed, faults),
        }
    }
    fn probe_many(&self, seeds: &[u64], faults: &FaultModel) -> Vec<(u64, Finding)> {
        match &faults.pct {
            Some(pct) => crate::pct::probe(self, seeds, pct).0,
            None => explore::probe_many(self, seeds, faults),
        }
    }
    fn probe_covering(
        &self,
        seeds: &[u64],
        faults: &FaultModel,
    ) -> (Vec<(u64, Finding)>, Vec<u64>) {
        explore::probe_covering(self, seeds, faults)
    }
    fn pct_steps(&self, max_moves: u32) -> Result<u32, String> {
        crate::pct::estimate_steps(self, max_moves)
    }
    fn pct_probe(
        &self,
        seeds: &[u64],
        settings: &crate::pct::PctSettings,
    ) -> (Vec<(u64, Finding)>, crate::pct::PctStats) {
        crate::pct::probe(self, seeds, settings)
    }
    fn swarm_tally(
        &self,
        seeds: std::ops::Range<u64>,
        faults: &FaultModel,
        findings: &[(u64, Finding)],
    ) -> Vec<crate::swarm::MixTally> {
        explore::swarm_tally(self, seeds, faults, findings)
    }
    fn counterexample(
        &self,
        seed: u64,
        faults: &FaultModel,
        finding: &Finding,
        origin: &str,
    ) -> Counterexample {
        match &faults.pct {
            Some(pct) => crate::pct::counterexample(self, seed, pct, finding, origin),
            None => explore::counterexample(self, seed, faults, finding, origin),
        }
    }
    fn exhaustive(
        &self,
        settings: &crate::exhaustive::Settings,
        origin: &str,
        progress: &mut dyn FnMut(&sim_core::exhaustive::Stats),
    ) -> Result<crate::exhaustive::Outcome, String> {
        crate::exhaustive::explore(self, settings, origin, progress)
    }
    fn searchable(
        &self,
        settings: &crate::exhaustive::Settings,
    ) -> Result<Box<dyn sim_core::exhaustive::Searchable>, String> {
        crate::exhaustive::searchable(self, settings)
    }
    fn exhaustive_outcome(
        &self,
        settings: &crate::exhaustive::Settings,
        report: sim_core::exhaustive::Report,
        origin: &str,
    ) -> Result<crate::exhaustive::Outcome, String> {
        crate::exhaustive::outcome(self, settings, report, origin)
    }
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
    fn bugs(&self) -> &'static [BugKnob] {
        P::BUGS
    }
    fn load(&self, file: &str, source: &str) -> Result<Box<dyn LoadedScenario>, Vec<Diagnostic>> {
        let prep: Prepared<P> = load::load(file, source)?;
        Ok(Box::new(prep))
    }
    fn read_trace(&self, text: &str) -> Result<Box<dyn LoadedTrace>, TraceError> {
        Ok(Box::new(TypedTrace::<P>::read(text)?))
    }
}

/// Every protocol dsim knows, in the order `dsim list` shows them.
pub fn protocols() -> &'static [&'static dyn DynProtocol] {
    &[
        &Entry::<Paxos>(PhantomData),
        &Entry::<MultiPaxos>(PhantomData),
        &Entry::<Raft>(PhantomData),
        &Entry::<LiveRing>(PhantomData),
        &Entry::<Pbft>(PhantomData),
        &Entry::<Lease>(PhantomData),
        &Entry::<RegisterPaxos>(PhantomData),
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
    // The name as written, else escaped, else the `protocol:` field itself.
    let mut locator = Locator::new(source);
    let found = locator
        .find(&format!("\"{name}\""))
        .or_else(|| locator.find(&format!("{name:?}")))
        .or_else(|| {
            let at = crate::load::field_offset(source, "protocol", 0)?;
            Some(locator.position_of(at, "protocol"))
        });
    let d = match found {
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
