//! How Paxos plugs into scenarios: [`Paxos`], its model (`sim_core::Protocol`) and its story
//! (`traces::Story`).
//!
//! It only wires the other modules together (config, node, invariants, expectations, story),
//! so that the scenarios registry can name "paxos" and get everything from one type.

use crate::paxos::config::{self, PaxosConfig};
use crate::paxos::expect::{self, PaxosExpect};
use crate::paxos::invariants::{Agreement, ChosenValueIsStable, Validity};
use crate::paxos::narrate;
use crate::paxos::node::{PaxosCommand, PaxosNode};
use sim_core::{BugKnob, ConfigProblem, Invariant, NodeId, Outcome, Protocol, Record};
use traces::{Lang, Story};

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
}
