//! The registry: the one place that names every protocol.
//!
//! Each protocol is reached through [`DynProtocol`], which hides its types behind text in and
//! results out, so the CLI can load, validate and run any scenario without knowing its protocol.

use crate::diagnostic::{Diagnostic, Locator, closest};
use crate::load::{self, Prepared};
use crate::run::{self, RunOptions, RunResult};
use protocols::paxos::Paxos;
use protocols::ring::live::LiveRing;
use sim_core::demo::TokenRingProtocol;
use sim_core::{Actor, Message, Protocol};
use std::marker::PhantomData;

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

impl<P: Protocol> DynProtocol for Entry<P> {
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
            expectations: prep.doc.expect.len() + usize::from(prep.doc.expect_violation.is_some()),
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
}

/// Every protocol dsim knows, in the order `dsim list` shows them.
pub fn protocols() -> &'static [&'static dyn DynProtocol] {
    &[
        &Entry::<Paxos>(PhantomData),
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
