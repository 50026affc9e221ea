//! How Multi-Paxos plugs into scenarios: [`MultiPaxos`], its model (`sim_core::Protocol`) and
//! its story (`traces::Story`). It only wires the other modules together.

use crate::kvstore::history::{self, Linearizable};
use crate::linearizability::{KvMap, Spec};
use crate::multipaxos::MultiPaxosNode;
use crate::multipaxos::config::{self, Election, MultiPaxosConfig};
use crate::multipaxos::expect::{self, MultiPaxosExpect};
use crate::multipaxos::invariants::{
    AppliedOnlyIfChosen, AppliedPrefixesAgree, OneValuePerSlot, Phase2AfterPhase1,
};
use crate::multipaxos::msg::NO_OP;
use crate::multipaxos::narrate;
use crate::multipaxos::node::MultiPaxosCommand;
use sim_core::exhaustive::Sometimes;
use sim_core::{
    BugKnob, ConfigProblem, Duration, Event, Instant, Invariant, NodeId, Outcome, Protocol, Record,
    Sim,
};
use traces::history::ClientHistory;
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
        BugKnob {
            name: "forget_requests",
            breaks: "the key-value store applies a client's retried request again (linearizable)",
        },
    ];
    type Actor = MultiPaxosNode;
    type Config = MultiPaxosConfig;
    type Expect = MultiPaxosExpect;

    fn nodes(config: &MultiPaxosConfig) -> Vec<String> {
        config.names()
    }

    fn validate(config: &MultiPaxosConfig) -> Vec<ConfigProblem> {
        config::validate(config)
    }

    fn build(config: &MultiPaxosConfig, id: NodeId) -> MultiPaxosNode {
        MultiPaxosNode::new(config, id)
    }

    /// Never two different values in a slot, applied only what is chosen, in slot order and
    /// alike everywhere, and phase 2 only after phase 1. Applied-only-if-chosen comes before
    /// the prefixes' check: a replica that applies a value nobody chose breaks both, and the
    /// first says why. With key-value clients, their history must be linearizable too.
    fn invariants(config: &MultiPaxosConfig) -> Vec<Box<dyn Invariant<MultiPaxosNode>>> {
        let mut all: Vec<Box<dyn Invariant<MultiPaxosNode>>> = vec![
            Box::new(OneValuePerSlot::new(&config.nodes)),
            Box::new(AppliedOnlyIfChosen::new(&config.nodes)),
            Box::new(AppliedPrefixesAgree::default()),
            Box::new(Phase2AfterPhase1::new(&config.nodes)),
        ];
        if !config.clients.is_empty() {
            all.push(Box::new(Linearizable::<MultiPaxosNode>::default()));
        }
        all
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
        config: &MultiPaxosConfig,
        node: &str,
        command: &MultiPaxosCommand,
    ) -> Option<String> {
        let to_client = config.clients.iter().any(|c| c == node);
        match command {
            MultiPaxosCommand::Submit(_) | MultiPaxosCommand::Lead if to_client => Some(format!(
                "{node} is a key-value client: Submit and Lead go to a replica ({}); a client \
                 takes Put, Get, Append and Cas",
                config.nodes.join(", ")
            )),
            MultiPaxosCommand::Submit(value) if value == NO_OP => Some(format!(
                "\"{NO_OP}\" is what a new leader writes in a gap of the log: submit another value"
            )),
            MultiPaxosCommand::Submit(_) | MultiPaxosCommand::Lead => None,
            _ if to_client => None,
            _ if config.clients.is_empty() => Some(format!(
                "{node} is a replica and this config has no clients: add clients: [\"c1\"] and \
                 send the request to \"c1\", which goes through the leader (or give a replica \
                 a value with Submit)"
            )),
            _ => Some(format!(
                "{node} is a replica: a key-value request goes to a client ({}), which sends it \
                 to the leader",
                config.clients.join(", ")
            )),
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
            match sim.actor(id) {
                MultiPaxosNode::Replica(r) => {
                    if let Some(value) = r.pending.first() {
                        return Err(format!(
                            "{} still waits for '{value}' to be applied at {}",
                            sim.name(id),
                            sim.now()
                        ));
                    }
                }
                MultiPaxosNode::Client(c) => {
                    if let Some(op) = c.waiting() {
                        return Err(format!(
                            "{} still waits for an answer to {} at {}",
                            sim.name(id),
                            KvMap::describe(op),
                            sim.now()
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    fn epoch(actor: &MultiPaxosNode) -> Option<u64> {
        actor.replica().map(|r| r.round)
    }

    fn sometimes(_config: &MultiPaxosConfig) -> Vec<Sometimes<MultiPaxosNode>> {
        vec![Sometimes {
            name: "an entry is chosen",
            holds: |sim| {
                sim.node_ids()
                    .filter_map(|id| sim.actor(id).replica())
                    .any(|r| !r.learner.chosen.is_empty())
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

    fn history(records: &[Record<MultiPaxosNode>], lang: Lang) -> Option<ClientHistory> {
        history::view(records, lang)
    }
}
