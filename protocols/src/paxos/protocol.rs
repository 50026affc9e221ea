//! How Paxos plugs into scenarios: [`Paxos`], its model (`sim_core::Protocol`) and its story
//! (`traces::Story`).
//!
//! It only wires the other modules together (config, node, invariants, expectations, story),
//! so that the scenarios registry can name "paxos" and get everything from one type.

use crate::paxos::config::{self, PaxosConfig};
use crate::paxos::expect::{self, PaxosExpect};
use crate::paxos::invariants::{Agreement, ChosenValueIsStable, Validity};
use crate::paxos::node::{PaxosCommand, PaxosNode};
use crate::paxos::{measure, narrate};
use sim_core::exhaustive::Sometimes;
use sim_core::{
    BugKnob, ConfigProblem, Duration, Instant, Invariant, NodeId, Outcome, Protocol, Record, Sim,
};
use std::collections::{BTreeMap, BTreeSet};
use traces::{Lang, Measure, Story};

/// Whether something is chosen: a learner learned it, or a majority of the acceptors hold one
/// value (once chosen, every higher accept carries it, so its majority keeps holding it).
fn something_chosen(sim: &Sim<PaxosNode>) -> bool {
    let learned = sim.node_ids().any(|id| {
        sim.actor(id)
            .learner
            .as_ref()
            .is_some_and(|l| !l.noted.is_empty())
    });
    if learned {
        return true;
    }
    let Some(first) = sim.node_ids().next() else {
        return false;
    };
    let acceptors = sim.actor(first).cluster.acceptors.len();
    let mut held: BTreeMap<&str, usize> = BTreeMap::new();
    for id in sim.node_ids() {
        if let Some((_, value)) = sim
            .actor(id)
            .acceptor
            .as_ref()
            .and_then(|a| a.accepted.as_ref())
        {
            *held.entry(value).or_default() += 1;
        }
    }
    held.values().any(|&n| n > acceptors / 2)
}

/// Single-decree Paxos as a scenario protocol.
#[derive(Clone, Copy, Debug, Default)]
pub struct Paxos;

impl Protocol for Paxos {
    const NAME: &'static str = "paxos";
    const ABOUT: &'static str =
        "single-decree Paxos: proposers, acceptors and learners agree on one value";
    const BUGS: &'static [BugKnob] = &[
        BugKnob {
            name: "ignore_accepted_in_promises",
            breaks: "a proposer proposes its own value, not the highest accepted one (P2b)",
        },
        BugKnob {
            name: "forget_promise_on_restart",
            breaks: "an acceptor forgets its promise when it crashes (P1a across restarts)",
        },
        BugKnob {
            name: "accept_below_promise",
            breaks: "an acceptor accepts whatever it promised (P1a)",
        },
    ];
    type Actor = PaxosNode;
    type Config = PaxosConfig;
    type Expect = PaxosExpect;

    fn nodes(config: &PaxosConfig) -> Vec<String> {
        config.node_names()
    }

    fn validate(config: &PaxosConfig) -> Vec<ConfigProblem> {
        config::validate(config)
    }

    fn build(config: &PaxosConfig, id: NodeId) -> PaxosNode {
        let names = config.node_names();
        PaxosNode::of_cluster(config, &names[id.index()], &names)
    }

    fn build_all(config: &PaxosConfig) -> Vec<PaxosNode> {
        let names = config.node_names();
        names
            .iter()
            .map(|name| PaxosNode::of_cluster(config, name, &names))
            .collect()
    }

    /// With retries, a proposal gets chosen once the network calms down: 50 rounds (each a
    /// phase timeout plus the longest back-off) after the last scripted step. Giving up after
    /// one round promises nothing.
    fn progress_bound(config: &PaxosConfig) -> Option<Duration> {
        match config.on_timeout {
            crate::paxos::OnTimeout::Retry(_, max) => Some(Duration::from_millis(
                config
                    .phase_timeout_ms
                    .saturating_add(max)
                    .saturating_mul(50),
            )),
            crate::paxos::OnTimeout::GiveUp => None,
        }
    }

    /// Something is chosen: a learner learned it, or a majority of acceptors hold one value
    /// (once chosen, every higher accept carries it, so its majority keeps holding it). A run
    /// with nothing left to happen has no proposer still trying (a crash makes a proposer
    /// forget its `Propose`), so nothing is promised of it.
    fn progress(config: &PaxosConfig, sim: &Sim<PaxosNode>, _since: Instant) -> Result<(), String> {
        if sim.stopped() == Some(sim_core::StopReason::Quiescent) {
            return Ok(());
        }
        if something_chosen(sim) {
            return Ok(());
        }
        Err(format!(
            "nothing chosen by {} although proposers retry: no majority of the {} acceptors holds one value",
            sim.now(),
            config.acceptors.len()
        ))
    }

    /// The acceptors that play no other role, and those that also learn: an acceptor answers
    /// whoever asks by the same rules, and nothing in Paxos tells two of them apart but their
    /// names (a proposer counts a majority of any of them). Proposers never are: their ids
    /// are the low digits of their numbers.
    fn interchangeable(config: &PaxosConfig) -> Vec<Vec<NodeId>> {
        let names = config.node_names();
        let learner = |name: &str| config.learners().iter().any(|l| l == name);
        let group = |learns: bool| -> Vec<NodeId> {
            config
                .acceptors
                .iter()
                .filter(|a| !config.proposers.contains(a) && learner(a) == learns)
                .filter_map(|a| names.iter().position(|n| n == a))
                .map(|i| NodeId(i as u32))
                .collect()
        };
        vec![group(false), group(true)]
    }

    /// A value is chosen: some schedule gets there (with `GiveUp`, a schedule where every
    /// phase times out before its replies arrive chooses nothing, which is allowed).
    fn sometimes(_config: &PaxosConfig) -> Vec<Sometimes<PaxosNode>> {
        vec![Sometimes {
            name: "a value is chosen",
            holds: something_chosen,
        }]
    }

    fn invariants(config: &PaxosConfig) -> Vec<Box<dyn Invariant<PaxosNode>>> {
        let acceptors = &config.acceptors;
        vec![
            Box::new(Agreement::new(acceptors)),
            Box::new(Validity::new(
                acceptors,
                config
                    .initial_values()
                    .into_iter()
                    .map(Into::into)
                    .collect(),
            )),
            Box::new(ChosenValueIsStable::new(acceptors)),
        ]
    }

    fn check(
        config: &PaxosConfig,
        expect: &PaxosExpect,
        outcome: &Outcome<'_, PaxosNode>,
    ) -> Result<String, String> {
        expect::check(config, expect, outcome)
    }

    fn expect_nodes(expect: &PaxosExpect) -> Vec<String> {
        expect::expect_nodes(expect)
    }

    fn command_problem(
        config: &PaxosConfig,
        node: &str,
        _command: &PaxosCommand,
    ) -> Option<String> {
        (!config.proposers.iter().any(|p| p == node)).then(|| {
            format!(
                "{node} is not a proposer, so it cannot propose; the proposers are: {}",
                config.proposers.join(", ")
            )
        })
    }
}

impl Story for Paxos {
    fn narrate(record: &Record<PaxosNode>, lang: Lang) -> Option<String> {
        narrate::narrate(record, lang)
    }

    fn is_key(record: &Record<PaxosNode>) -> bool {
        narrate::is_key(record)
    }

    fn explain(
        config: &PaxosConfig,
        expect: &PaxosExpect,
        outcome: &Outcome<'_, PaxosNode>,
        lang: Lang,
    ) -> Result<String, String> {
        expect::check_in(config, expect, outcome, lang)
    }

    fn retold(records: &[Record<PaxosNode>]) -> BTreeSet<usize> {
        narrate::retold(records)
    }

    fn measures(records: &[Record<PaxosNode>]) -> Vec<Measure> {
        measure::measures(records)
    }
}
