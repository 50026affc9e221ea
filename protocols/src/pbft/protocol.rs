//! How PBFT plugs into scenarios: [`Pbft`], its model (`sim_core::Protocol`) and its story
//! (`traces::Story`). It only wires the other modules together.

use crate::pbft::config::{self, PbftConfig};
use crate::pbft::expect::{self, PbftExpect};
use crate::pbft::invariants::{
    AcceptedResultWasExecuted, Agreement, CommittedLocalImpliesCommitted,
    CommittedSurvivesViewChange, Correct, PreparedAgreement, SameExecutionOrder,
};
use crate::pbft::narrate;
use crate::pbft::node::PbftNode;
use crate::pbft::service::Op;
use crate::pbft::setup::{Setup, Shared};
use sim_core::exhaustive::Sometimes;
use sim_core::{
    BugKnob, ConfigProblem, Duration, Instant, Invariant, NodeId, Outcome, Protocol, Record, Sim,
};
use traces::{Lang, Story};

/// Whether some client accepted a result.
fn something_accepted(sim: &Sim<PbftNode>) -> bool {
    sim.node_ids().any(|id| {
        sim.actor(id)
            .client()
            .is_some_and(|c| c.outstanding().is_none() && c.timestamp() > 0)
    })
}

/// PBFT (Castro and Liskov, OSDI 1999) as a scenario protocol.
#[derive(Clone, Copy, Debug, Default)]
pub struct Pbft;

impl Protocol for Pbft {
    const NAME: &'static str = "pbft";
    const ABOUT: &'static str =
        "PBFT: 3f+1 replicas order clients' requests despite f Byzantine ones";
    const BUGS: &'static [BugKnob] = &[
        BugKnob {
            name: "commit_with_2f",
            breaks: "committed-local with 2f commits: fewer than f+1 correct replicas may be prepared",
        },
        BugKnob {
            name: "prepare_with_f_plus_1",
            breaks: "prepared with f+1 prepares: two requests can be prepared at one number",
        },
        BugKnob {
            name: "accept_pre_prepare_from_backup",
            breaks: "a backup's pre-prepare is accepted as if the primary had sent it",
        },
        BugKnob {
            name: "execute_out_of_order",
            breaks: "committed requests execute at once, not in sequence order",
        },
        BugKnob {
            name: "new_view_drops_prepared",
            breaks: "a new view proposes null requests where requests were prepared",
        },
        BugKnob {
            name: "enter_view_unverified",
            breaks: "a backup enters a new view without checking NEW-VIEW against its view changes",
        },
        BugKnob {
            name: "fixed_view_change_timeout",
            breaks: "view-change timeouts do not grow, so views may keep changing",
        },
    ];
    type Actor = PbftNode;
    type Config = PbftConfig;
    type Expect = PbftExpect;

    fn nodes(config: &PbftConfig) -> Vec<String> {
        config.all_node_names()
    }

    fn twin_of(config: &PbftConfig, node: NodeId) -> Option<NodeId> {
        config
            .twin_of(node.index())
            .map(|r| NodeId(u32::try_from(r).expect("at most 64")))
    }

    fn validate(config: &PbftConfig) -> Vec<ConfigProblem> {
        config::validate(config)
    }

    /// Node `id`; a twin is built as the replica it copies.
    fn build(config: &PbftConfig, id: NodeId) -> PbftNode {
        Self::build_all(config).swap_remove(id.index())
    }

    fn build_all(config: &PbftConfig) -> Vec<PbftNode> {
        let setup = Shared::new(Setup::of(config));
        (0..config.all_node_names().len())
            .map(|i| {
                let identity = config.twin_of(i).unwrap_or(i);
                PbftNode::new(
                    config,
                    &setup,
                    NodeId(u32::try_from(identity).expect("at most 64")),
                )
            })
            .collect()
    }

    fn invariants(config: &PbftConfig) -> Vec<Box<dyn Invariant<PbftNode>>> {
        let correct = Correct::new(config.correct_replicas(), config.f as usize);
        vec![
            Box::new(Agreement::new(correct.clone())),
            Box::new(PreparedAgreement::new(correct.clone())),
            Box::new(CommittedLocalImpliesCommitted::new(correct.clone())),
            Box::new(SameExecutionOrder::new(correct.clone())),
            Box::new(CommittedSurvivesViewChange::new(correct.clone())),
            Box::new(AcceptedResultWasExecuted::new(correct)),
        ]
    }

    fn check(
        config: &PbftConfig,
        expect: &PbftExpect,
        outcome: &Outcome<'_, PbftNode>,
    ) -> Result<String, String> {
        expect::check(config, expect, outcome)
    }

    fn expect_nodes(expect: &PbftExpect) -> Vec<String> {
        expect::expect_nodes(expect)
    }

    fn command_problem(config: &PbftConfig, node: &str, _command: &Op) -> Option<String> {
        (!config.clients.iter().any(|c| c == node)).then(|| {
            format!(
                "{node} is not a client, so it sends no requests; the clients are: {}",
                config.clients.join(", ")
            )
        })
    }

    /// Once faults stop, a faulty primary is replaced and every request gets through: within
    /// 64 rounds of a client timeout plus a view-change timeout doubled f times after the last
    /// scripted step (at most f primaries in a row are faulty, and consecutive view changes
    /// double their timeout). Generous, not tight.
    fn progress_bound(config: &PbftConfig) -> Option<Duration> {
        let doubled = config
            .view_change_timeout_ms
            .saturating_mul(1u64 << config.f.min(10));
        let round = config.client_timeout_ms.saturating_add(doubled);
        Some(Duration::from_millis(round.saturating_mul(64)))
    }

    /// Every client accepted a result for every request it was given.
    fn progress(_config: &PbftConfig, sim: &Sim<PbftNode>, _since: Instant) -> Result<(), String> {
        let waiting: Vec<String> = sim
            .node_ids()
            .filter(|&id| sim.actor(id).client().is_some_and(|c| !c.is_done()))
            .map(|id| sim.name(id).to_string())
            .collect();
        if waiting.is_empty() {
            return Ok(());
        }
        let views: std::collections::BTreeSet<u64> = sim
            .node_ids()
            .filter_map(|id| sim.actor(id).replica().map(|r| r.view()))
            .collect();
        Err(format!(
            "by {} {} still wait(s) for a result; the replicas are in view(s) {:?}",
            sim.now(),
            waiting.join(", "),
            views
        ))
    }

    /// A client accepts a result: some schedule gets there.
    fn sometimes(_config: &PbftConfig) -> Vec<Sometimes<PbftNode>> {
        vec![Sometimes {
            name: "a client accepts a result",
            holds: something_accepted,
        }]
    }

    /// A replica's view.
    fn epoch(actor: &PbftNode) -> Option<u64> {
        actor.replica().map(|r| r.view())
    }
}

impl Story for Pbft {
    fn narrate(record: &Record<PbftNode>, lang: Lang) -> Option<String> {
        narrate::narrate(record, lang)
    }

    fn explain(
        config: &PbftConfig,
        expect: &PbftExpect,
        outcome: &Outcome<'_, PbftNode>,
        lang: Lang,
    ) -> Result<String, String> {
        crate::pbft::expect::check_in(config, expect, outcome, lang)
    }

    fn is_key(record: &Record<PbftNode>) -> bool {
        narrate::is_key(record)
    }
}
