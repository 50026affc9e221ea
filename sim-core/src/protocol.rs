//! The model of a protocol: its config, its nodes, its invariants and its expectation checks.
//!
//! A protocol is two things: this model, which lives beside the kernel because a run needs
//! nothing else, and its story (how its records read in the course's words), which lives in the
//! `traces` crate's `Story` trait, outside the kernel. The `scenarios` crate's registry is the
//! only place that names every protocol. Nothing here knows files or languages: configs and
//! expectations arrive already parsed.

use crate::actor::Actor;
use crate::check::Invariant;
use crate::id::NodeId;
use crate::kernel::{Sim, SimConfig};
use crate::trace::Record;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::fmt::Debug;

/// What a finished run offers to expectation checks: the final states and the records the
/// protocol keeps ([`Protocol::keeps`]).
pub struct Outcome<'a, A: Actor> {
    /// The simulation as it ended (final actor states, statuses, node names).
    pub sim: &'a Sim<A>,
    /// The run's records that the protocol keeps ([`Protocol::keeps`]), in order: every note,
    /// fault, command and start by default, not the sends, deliveries and timers between them.
    pub records: &'a [Record<A>],
}

impl<A: Actor> Outcome<'_, A> {
    /// The final state of the node called `name`.
    pub fn actor(&self, name: &str) -> Option<&A> {
        self.sim.node_id(name).map(|id| self.sim.actor(id))
    }

    /// Every note of the run with its time and node, in order.
    pub fn notes(&self) -> impl Iterator<Item = (crate::time::Instant, &str, &A::Note)> {
        crate::trace::notes(self.records)
    }
}

/// A protocol's model: what a scenario file configures and how a run of it is judged.
///
/// A minimal implementation names the protocol, its three types, and writes `nodes`, `build`,
/// `invariants` and `check`; everything else has a default. [`build_sim`] turns a config into a
/// ready `Sim`.
pub trait Protocol: 'static {
    /// The name scenario files and the CLI use: "paxos", "raft".
    const NAME: &'static str;
    /// One line on what the protocol is, for `dsim list`.
    const ABOUT: &'static str;
    /// The node type.
    type Actor: Actor;
    /// The protocol's settings in a scenario file (roles, timeouts, bug knobs).
    type Config: Clone + Debug + Serialize + DeserializeOwned + Send + Sync;
    /// What a scenario can expect of the outcome ("chosen relay-1", "leader of term 4 is nodo-2").
    type Expect: Clone + Debug + Serialize + DeserializeOwned + Send + Sync;
    /// The config's bug knobs, each switched on by `bugs: (name: true)`: deliberate mistakes
    /// that a search (`dsim explore --bug name`) or a student can turn on to see an invariant
    /// catch them. Empty for a protocol without any.
    const BUGS: &'static [BugKnob] = &[];

    /// The nodes this config describes, by name, in the order they get their `NodeId`s.
    fn nodes(config: &Self::Config) -> Vec<String>;

    /// The node whose twin node `node` is (see [`Sim::add_twin`]): it shares that node's
    /// identity. `None` (the default) for every node of a protocol without twins.
    fn twin_of(config: &Self::Config, node: NodeId) -> Option<NodeId> {
        let _ = (config, node);
        None
    }

    /// Problems with the config that parsing cannot see (empty when it is fine). Each names the
    /// offending value (quoted as in the file, so it can be located) and says how to fix it.
    fn validate(config: &Self::Config) -> Vec<ConfigProblem> {
        let _ = config;
        Vec::new()
    }

    /// Builds the node with id `id` (its name is `Self::nodes(config)[id]`).
    fn build(config: &Self::Config, id: NodeId) -> Self::Actor;

    /// Builds every node, in id order. By default one [`Protocol::build`] each; a protocol whose
    /// nodes share large read-only state (a ring's initial map) builds it once here.
    fn build_all(config: &Self::Config) -> Vec<Self::Actor> {
        (0..Self::nodes(config).len())
            .map(|i| {
                Self::build(
                    config,
                    NodeId(u32::try_from(i).expect("node count fits in u32")),
                )
            })
            .collect()
    }

    /// The invariants every run of this config must keep.
    fn invariants(config: &Self::Config) -> Vec<Box<dyn Invariant<Self::Actor>>>;

    /// Checks one expectation against the outcome of a run of `config`: `Ok` says what held,
    /// `Err` why it did not.
    fn check(
        config: &Self::Config,
        expect: &Self::Expect,
        outcome: &Outcome<'_, Self::Actor>,
    ) -> Result<String, String>;

    /// Whether a run keeps `record` for its end: the expectation checks ([`Outcome::records`])
    /// and the story's figures (measures, summary) read only the records kept. A run streams
    /// every other record to its consumers (trace file, invariants, story) and drops it, so
    /// what stays in memory grows with what a protocol keeps, not with the run's length.
    ///
    /// By default: notes, faults, commands and starts (a run's facts), not the sends,
    /// deliveries, drops, timers and duplicates that make up nearly every step. A run also
    /// keeps, for each message whose send is kept, its delivery, drop or duplicate and what its
    /// receiver sends in the step it is delivered (its replies). A protocol whose checks or
    /// figures read some messages keeps their sends.
    fn keeps(record: &Record<Self::Actor>) -> bool {
        record.event.is_fact()
    }

    /// Node names that an expectation mentions, for validating them against the nodes.
    fn expect_nodes(expect: &Self::Expect) -> Vec<String> {
        let _ = expect;
        Vec::new()
    }

    /// Why `command` means nothing to the node called `node` (a `Propose` to an acceptor, a
    /// `Put` to a storage node that is not the coordinator), or `None` when it is fine. A file
    /// that sends one is refused at validation rather than run with the command ignored.
    fn command_problem(
        config: &Self::Config,
        node: &str,
        command: &<Self::Actor as Actor>::Command,
    ) -> Option<String> {
        let _ = (config, node, command);
        None
    }

    /// Why `command` means nothing after the `earlier` commands of the timeline (in the order
    /// they run): a `Join` of a node already on the ring, a `Leave` of one that is not. `None`
    /// when it is fine; the file is refused at validation otherwise.
    fn command_problem_after(
        config: &Self::Config,
        earlier: &[&<Self::Actor as Actor>::Command],
        command: &<Self::Actor as Actor>::Command,
    ) -> Option<String> {
        let _ = (config, earlier, command);
        None
    }

    /// How long after a run's last scripted step (its last fault) the protocol promises to have
    /// made progress, for a search's liveness report; `None` (the default) promises nothing.
    fn progress_bound(config: &Self::Config) -> Option<crate::time::Duration> {
        let _ = config;
        None
    }

    /// Whether a finished run made the progress the protocol promises (something chosen, a
    /// leader elected after `since`, the run's last scripted step), judged from its final
    /// states; `Err` says what is missing. Asked only when the run ended at least
    /// [`Protocol::progress_bound`] after `since`, or with nothing left to happen.
    fn progress(
        config: &Self::Config,
        sim: &Sim<Self::Actor>,
        since: crate::time::Instant,
    ) -> Result<(), String> {
        let _ = (config, sim, since);
        Ok(())
    }

    /// What must be reachable in an exhaustive exploration of `config` ("a value is chosen",
    /// "a leader is elected"): the search reports an example path for each, or says that none
    /// exists. None by default.
    fn sometimes(config: &Self::Config) -> Vec<crate::exhaustive::Sometimes<Self::Actor>> {
        let _ = config;
        Vec::new()
    }

    /// Whether, in an exhaustive search, a message its receiver ignores (its state unchanged,
    /// nothing sent) stays in flight instead of being consumed: stateright's semantics, which
    /// a model copied from stateright follows to get stateright's counts. False by default: a
    /// delivery is a move whatever the receiver makes of it, as in a timed run.
    const IGNORED_MESSAGES_WAIT: bool = false;

    /// The epoch a node is in (a Raft term, a Paxos round), which an exhaustive search can
    /// bound (`--max-epoch`); `None` (the default) for a protocol without one.
    fn epoch(actor: &Self::Actor) -> Option<u64> {
        let _ = actor;
        None
    }

    /// Groups of interchangeable nodes of `config` (three acceptors of one Paxos cluster): nodes
    /// that run the same code with the same settings, and that no rule of the protocol tells
    /// apart but by their ids (no tie broken by the lowest id, no per-node setting). An
    /// exhaustive search with `--symmetry` merges states that are renamings of each other
    /// within these groups (see [`crate::symmetry`] for what a protocol then promises of its
    /// hashed state). The scenario drops from them any node its timeline names. None by
    /// default: nothing is merged.
    fn interchangeable(config: &Self::Config) -> Vec<Vec<NodeId>> {
        let _ = config;
        Vec::new()
    }

    /// Node names that a command mentions (besides the node it is sent to).
    fn command_nodes(command: &<Self::Actor as Actor>::Command) -> Vec<String> {
        let _ = command;
        Vec::new()
    }
}

/// One bug knob of a protocol: its field name under `bugs` and the rule it breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BugKnob {
    /// The field under the config's `bugs: (...)`.
    pub name: &'static str,
    /// The rule it breaks, in one line.
    pub breaks: &'static str,
}

/// A problem found in a protocol config.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigProblem {
    /// The offending text as written in the file (a quoted name, a field name), to locate it.
    pub locate: Option<String>,
    /// What is wrong and how to fix it.
    pub message: String,
}

/// A simulation of `config`'s nodes, in the order [`Protocol::nodes`] gives (twins, per
/// [`Protocol::twin_of`], added as such), with the protocol's invariants installed and no trace (set one with `Sim::set_trace` if wanted).
///
/// How scenarios build a run, and how tests and tools that drive a `Sim` directly build theirs.
pub fn build_sim<P: Protocol>(config: &P::Config, sim_config: SimConfig) -> Sim<P::Actor> {
    let mut sim = Sim::new(sim_config);
    let names = P::nodes(config);
    let actors = P::build_all(config);
    assert_eq!(
        actors.len(),
        names.len(),
        "build_all builds one node per name"
    );
    for (i, (name, actor)) in names.iter().zip(actors).enumerate() {
        let id = NodeId(u32::try_from(i).expect("node count fits in u32"));
        match P::twin_of(config, id) {
            Some(of) => sim.add_twin(name, actor, of),
            None => sim.add_node(name, actor),
        };
    }
    for invariant in P::invariants(config) {
        sim.add_invariant(invariant);
    }
    sim
}
