//! How Multi-Paxos plugs into scenarios: [`MultiPaxos`], its model (`sim_core::Protocol`) and
//! its story (`traces::Story`). It only wires the other modules together.

use crate::multipaxos::config::{self, Election, MultiPaxosConfig};
use crate::multipaxos::expect::{self, MultiPaxosExpect};
use crate::multipaxos::invariants::{
    AppliedOnlyIfChosen, AppliedPrefixesAgree, OneValuePerSlot, Phase2AfterPhase1,
};
use crate::multipaxos::msg::NO_OP;
use crate::multipaxos::narrate;
use crate::multipaxos::node::{MultiPaxosCommand, MultiPaxosNode};
use sim_core::exhaustive::Sometimes;
use sim_core::{
    BugKnob, ConfigProblem, Duration, Event, Instant, Invariant, NodeId, Outcome, Protocol, Record,
    Sim,
};
use traces::{Lang, Story};

/// Multi-Paxos as a scenario protocol.
#[derive(Clone, Copy, Debug, Default)]
pub struct MultiPaxos;

impl Protocol for MultiPaxos {
    const NAME: &'static str = "multipaxos";
    const ABOUT: &'static str = "Multi-Paxos: a log of Paxos instances; a stable leader runs phase 1 once, then phase 2 per entry";
    const BUGS: &'static [BugKnob] = &[
        BugKnob {
            name: "skip_recovery",
            breaks: "a new leader overwrites open slots instead of re-proposing their accepted values (one-value-per-slot)",
        },
        BugKnob {
            name: "propose_before_promises",
            breaks: "a would-be leader runs phase 2 before a majority promised (phase-2-after-phase-1)",
        },
        BugKnob {
            name: "apply_out_of_order",
            breaks: "a learner applies an entry before the ones below it (applied-prefixes-agree)",
        },
        BugKnob {
            name: "commit_any_ballot",
            breaks: "a replica takes what it accepted at an old ballot as committed (applied-only-if-chosen)",
        },
    ];
    type Actor = MultiPaxosNode;
    type Config = MultiPaxosConfig;
    type Expect = MultiPaxosExpect;

    fn nodes(config: &MultiPaxosConfig) -> Vec<String> {
        config.nodes.clone()
    }

    fn validate(config: &MultiPaxosConfig) -> Vec<ConfigProblem> {
        config::validate(config)
    }

    fn build(config: &MultiPaxosConfig, id: NodeId) -> MultiPaxosNode {
        MultiPaxosNode::from_config(config, &config.nodes[id.index()])
    }

    /// Never two different values in a slot, applied only what is chosen, in slot order and
    /// alike everywhere, and phase 2 only after phase 1. Applied-only-if-chosen comes before
    /// the prefixes' check: a replica that applies a value nobody chose breaks both, and the
    /// first says why.
    fn invariants(config: &MultiPaxosConfig) -> Vec<Box<dyn Invariant<MultiPaxosNode>>> {
        vec![
            Box::new(OneValuePerSlot::new(&config.nodes)),
            Box::new(AppliedOnlyIfChosen::new(&config.nodes)),
            Box::new(AppliedPrefixesAgree::default()),
            Box::new(Phase2AfterPhase1::new(&config.nodes)),
        ]
    }

    /// Facts, and the sends of phase 1 and phase 2, which the story's closing figures count.
    fn keeps(record: &Record<MultiPaxosNode>) -> bool {
        match &record.event {
            Event::Send { msg, .. } => narrate::counted(msg),
            event => event.is_fact(),
        }
    }

    fn check(
        config: &MultiPaxosConfig,
        expect: &MultiPaxosExpect,
        outcome: &Outcome<'_, MultiPaxosNode>,
    ) -> Result<String, String> {
        expect::check(&config.nodes, expect, outcome)
    }

    fn expect_nodes(expect: &MultiPaxosExpect) -> Vec<String> {
        expect::expect_nodes(expect)
    }

    fn command_problem(
        _config: &MultiPaxosConfig,
        _node: &str,
        command: &MultiPaxosCommand,
    ) -> Option<String> {
        match command {
            MultiPaxosCommand::Submit(value) if value == NO_OP => Some(format!(
                "\"{NO_OP}\" is what a new leader writes in a gap of the log: submit another value"
            )),
            _ => None,
        }
    }

    /// With election by timeout, a leader is in place and every value given to a live replica
    /// is applied there within a hundred election timeouts of the last scripted step.
    fn progress_bound(config: &MultiPaxosConfig) -> Option<Duration> {
        match config.election {
            Election::Timeout(_, max) => Some(Duration::from_millis(max.saturating_mul(100))),
            Election::Fixed(_) => None,
        }
    }

    fn progress(
        _config: &MultiPaxosConfig,
        sim: &Sim<MultiPaxosNode>,
        _since: Instant,
    ) -> Result<(), String> {
        for id in sim.node_ids() {
            if let Some(value) = sim.actor(id).pending.first() {
                return Err(format!(
                    "{} still waits for '{value}' to be applied at {}",
                    sim.name(id),
                    sim.now()
                ));
            }
        }
        Ok(())
    }

    fn epoch(actor: &MultiPaxosNode) -> Option<u64> {
        Some(actor.round)
    }

    fn sometimes(_config: &MultiPaxosConfig) -> Vec<Sometimes<MultiPaxosNode>> {
        vec![Sometimes {
            name: "an entry is chosen",
            holds: |sim| {
                sim.node_ids()
                    .any(|id| !sim.actor(id).learner.chosen.is_empty())
            },
        }]
    }
}

impl Story for MultiPaxos {
    fn narrate(record: &Record<MultiPaxosNode>, lang: Lang) -> Option<String> {
        narrate::narrate(record, lang)
    }

    fn is_key(record: &Record<MultiPaxosNode>) -> bool {
        narrate::is_key(record)
    }

    fn explain(
        config: &MultiPaxosConfig,
        expect: &MultiPaxosExpect,
        outcome: &Outcome<'_, MultiPaxosNode>,
        lang: Lang,
    ) -> Result<String, String> {
        expect::check_in(&config.nodes, expect, outcome, lang)
    }

    fn summary(records: &[Record<MultiPaxosNode>], lang: Lang) -> Vec<String> {
        narrate::summary(records, lang)
    }
}
