//! How the live ring plugs into scenarios: [`LiveRing`], its model (`sim_core::Protocol`) and
//! its story (`traces::Story`), wiring config, node, invariants, expectations and story.

use crate::ring_store::config::{self, RingConfig};
use crate::ring_store::env::Env;
use crate::ring_store::expect::{self, RingExpect};
use crate::ring_store::invariants::{
    HintsDelivered, NoAckedWriteLost, OwnershipTotal, ReadYourLatestAck,
};
use crate::ring_store::msg::RingCommand;
use crate::ring_store::narrate;
use crate::ring_store::node::RingNode;
use sim_core::{BugKnob, ConfigProblem, Invariant, NodeId, Outcome, Protocol, Record};
use std::collections::BTreeMap;
use traces::{Lang, Story};

/// The consistent-hash ring as a live, replicated store.
#[derive(Clone, Copy, Debug, Default)]
pub struct LiveRing;

impl Protocol for LiveRing {
    const NAME: &'static str = "ring";
    const ABOUT: &'static str = "consistent-hash ring as a live store: RF replicas, W/R quorums, hinted handoff, read repair, rebalancing";
    const BUGS: &'static [BugKnob] = &[
        BugKnob {
            name: "never_deliver_hints",
            breaks: "stand-ins keep hints forever and never hand them over",
        },
        BugKnob {
            name: "delete_before_ack",
            breaks: "a rebalancing source deletes its copy before the destination acks",
        },
        BugKnob {
            name: "count_standin_acks",
            breaks: "a stand-in's ack counts toward W with sloppy_quorum off",
        },
        BugKnob {
            name: "ignore_moved",
            breaks: "a node serves a key it no longer owns instead of answering Moved",
        },
    ];
    type Actor = RingNode;
    type Config = RingConfig;
    type Expect = RingExpect;

    fn nodes(config: &RingConfig) -> Vec<String> {
        config.names()
    }

    fn validate(config: &RingConfig) -> Vec<ConfigProblem> {
        config::validate(config)
    }

    fn build(config: &RingConfig, id: NodeId) -> RingNode {
        RingNode::new(config, id)
    }

    fn build_all(config: &RingConfig) -> Vec<RingNode> {
        Env::all(config)
            .into_iter()
            .map(RingNode::from_env)
            .collect()
    }

    fn invariants(config: &RingConfig) -> Vec<Box<dyn Invariant<RingNode>>> {
        vec![
            Box::new(NoAckedWriteLost::default()),
            Box::new(ReadYourLatestAck::default()),
            Box::new(OwnershipTotal::new(config)),
            Box::new(HintsDelivered::new(config)),
        ]
    }

    fn check(
        config: &RingConfig,
        expect: &RingExpect,
        outcome: &Outcome<'_, RingNode>,
    ) -> Result<String, String> {
        expect::check(config, expect, outcome)
    }

    fn expect_nodes(expect: &RingExpect) -> Vec<String> {
        expect::expect_nodes(expect)
    }

    fn command_problem(config: &RingConfig, node: &str, command: &RingCommand) -> Option<String> {
        let names = config.names();
        let index = names.iter().position(|n| n == node)?;
        let coordinator = config.coordinator_index();
        let is_client = index > coordinator;
        match command {
            _ if index < coordinator => Some(format!(
                "{node} is a storage node: scenario commands go to the coordinator \"{}\"{}",
                config.coordinator,
                if config.clients.is_empty() {
                    ""
                } else {
                    " or to a client"
                }
            )),
            RingCommand::Join(_) | RingCommand::Leave(_) if is_client => Some(format!(
                "{node} is a client: membership changes go to the coordinator \"{}\"",
                config.coordinator
            )),
            RingCommand::Join(n) | RingCommand::Leave(n)
                if !config.nodes.contains(n) && !config.spares.contains(n) =>
            {
                Some(format!(
                    "only storage nodes and spares join or leave the ring, and \"{n}\" is neither"
                ))
            }
            _ => None,
        }
    }

    fn command_problem_after(
        config: &RingConfig,
        earlier: &[&RingCommand],
        command: &RingCommand,
    ) -> Option<String> {
        if !matches!(command, RingCommand::Join(_) | RingCommand::Leave(_)) {
            return None;
        }
        let mut members: Vec<&String> = config.nodes.iter().collect();
        for cmd in earlier {
            match cmd {
                RingCommand::Join(n) if !members.contains(&n) => members.push(n),
                RingCommand::Leave(n) => members.retain(|m| *m != n),
                _ => {}
            }
        }
        match command {
            RingCommand::Join(n) if members.contains(&n) => Some(format!(
                "\"{n}\" is already on the ring when it is told to join: a node joins once, \
                 and again only after a Leave"
            )),
            RingCommand::Leave(n) if !members.contains(&n) => Some(format!(
                "\"{n}\" is not on the ring when it is told to leave: a spare leaves only after \
                 it joins, and a node only once"
            )),
            _ => None,
        }
    }

    fn command_nodes(command: &RingCommand) -> Vec<String> {
        match command {
            RingCommand::Join(n) | RingCommand::Leave(n) => vec![n.clone()],
            _ => Vec::new(),
        }
    }
}

impl Story for LiveRing {
    fn narrate(record: &Record<RingNode>, lang: Lang) -> Option<String> {
        narrate::narrate(record, lang)
    }

    fn explain(
        config: &RingConfig,
        expect: &RingExpect,
        outcome: &Outcome<'_, RingNode>,
        lang: Lang,
    ) -> Result<String, String> {
        crate::ring_store::expect::check_in(config, expect, outcome, lang)
    }

    fn is_key(record: &Record<RingNode>) -> bool {
        narrate::is_key(record)
    }

    fn retell(records: &[Record<RingNode>], lang: Lang) -> BTreeMap<usize, String> {
        narrate::retell(records, lang)
    }
}
