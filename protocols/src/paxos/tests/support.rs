//! Helpers shared by the Paxos tests: a `Sim` built from a config the way scenarios build it,
//! scheduling in milliseconds, fault rules by node name, and reading notes back.

use crate::paxos::{Paxos, PaxosCommand, PaxosConfig, PaxosExpect, PaxosNode, PaxosNote};
use sim_core::{
    Action, Event, FaultRule, Instant, Lang, Limits, NodeId, Outcome, Protocol, Record, RuleAction,
    RunReport, Sim, SimConfig, TraceMode,
};

/// A finished run: the simulation as it ended, its report and every record.
pub struct Run {
    pub sim: Sim<PaxosNode>,
    pub report: RunReport,
    pub records: Vec<Record<PaxosNode>>,
}

impl Run {
    /// Checks an expectation as a scenario would.
    pub fn check(&self, expect: &PaxosExpect) -> Result<String, String> {
        Paxos::check(
            expect,
            &Outcome {
                sim: &self.sim,
                records: &self.records,
            },
        )
    }

    /// Names of the invariants that fired, in order.
    pub fn violated(&self) -> Vec<String> {
        self.report
            .violations
            .iter()
            .map(|v| v.invariant.clone())
            .collect()
    }

    /// Every `Chosen` note: (learner, n, value, accepts).
    pub fn chosen(&self) -> Vec<(String, u64, String, u32)> {
        self.notes()
            .into_iter()
            .filter_map(|(node, note)| match note {
                PaxosNote::Chosen {
                    n, value, accepts, ..
                } => Some((node, n, value, accepts)),
                _ => None,
            })
            .collect()
    }

    /// Every note, with the node that published it.
    pub fn notes(&self) -> Vec<(String, PaxosNote)> {
        self.records
            .iter()
            .filter_map(|r| match &r.event {
                Event::Note { node, note } => Some((node.to_string(), note.clone())),
                _ => None,
            })
            .collect()
    }

    /// The story, one line per record Paxos narrates.
    pub fn story(&self, lang: Lang) -> Vec<String> {
        self.records
            .iter()
            .filter_map(|r| Paxos::narrate(r, lang))
            .collect()
    }

    /// The records as JSON lines (what a trace file holds).
    pub fn json(&self) -> String {
        self.records
            .iter()
            .map(|r| serde_json::to_string(r).unwrap() + "\n")
            .collect()
    }
}

/// A scenario under construction: nodes, invariants and an in-memory trace.
pub struct Scenario {
    pub sim: Sim<PaxosNode>,
}

pub fn ms(n: u64) -> Instant {
    Instant::from_millis(n)
}

impl Scenario {
    /// `config`'s nodes with its invariants; latency fixed at 1 ms; stops at the first
    /// violation unless `keep_going`.
    pub fn new(config: &PaxosConfig, seed: u64, keep_going: bool) -> Self {
        let mut sim = Sim::new(SimConfig {
            seed,
            stop_on_violation: !keep_going,
            limits: Limits {
                max_time: ms(2_000),
                ..Limits::default()
            },
            ..SimConfig::default()
        });
        for (i, name) in Paxos::nodes(config).iter().enumerate() {
            sim.add_node(name, Paxos::build(config, NodeId(i as u32)));
        }
        for invariant in Paxos::invariants(config) {
            sim.add_invariant(invariant);
        }
        sim.set_trace(TraceMode::Memory(Vec::new()));
        Scenario { sim }
    }

    pub fn id(&self, name: &str) -> NodeId {
        self.sim.node_id(name).expect("a node of the config")
    }

    /// `name` runs `Propose` at `at` ms.
    pub fn propose(&mut self, at: u64, name: &str) -> &mut Self {
        let id = self.id(name);
        self.sim
            .schedule(ms(at), Action::Command(id, PaxosCommand::Propose));
        self
    }

    /// Installs at time 0 a rule on `kind` messages from `from` to `to` (any when `None`),
    /// for the `nth` one only (every one when `None`).
    pub fn rule(
        &mut self,
        action: RuleAction,
        kind: &str,
        from: Option<&str>,
        to: Option<&str>,
        nth: Option<u64>,
    ) -> &mut Self {
        let mut rule = FaultRule::new(action);
        rule.kind = Some(kind.to_string());
        rule.from = from.map(|f| self.id(f));
        rule.to = to.map(|t| self.id(t));
        rule.nth = nth;
        self.sim.schedule(Instant::ZERO, Action::AddRule(rule));
        self
    }

    /// Loses the first `kind` message from `from` to `to`.
    pub fn lose_first(&mut self, kind: &str, from: &str, to: &str) -> &mut Self {
        self.rule(RuleAction::Drop, kind, Some(from), Some(to), Some(1))
    }

    pub fn at(&mut self, at: u64, action: Action<PaxosCommand>) -> &mut Self {
        self.sim.schedule(ms(at), action);
        self
    }

    pub fn run(&mut self) -> Run {
        let mut sim = self.sim.clone();
        let report = sim.run();
        let records = sim.take_records();
        Run {
            sim,
            report,
            records,
        }
    }
}

/// The lesson's cast with `edit` applied.
pub fn lesson(edit: impl FnOnce(&mut PaxosConfig)) -> PaxosConfig {
    let mut config = PaxosConfig::lesson();
    edit(&mut config);
    config
}

/// The final-state expectation "every acceptor ends promised `n`, accepted (`n`, `value`)".
pub fn every_acceptor(run: &Run, n: u64, value: &str) {
    for a in ["a1", "a2", "a3"] {
        let expect = PaxosExpect::Acceptor {
            node: a.into(),
            promised: n,
            accepted: Some((n, value.into())),
        };
        run.check(&expect).unwrap();
    }
}

/// PX-1's schedule: relay-1's first Accepts to a2 and a3 are lost; rounds at 0, 100, 200 ms.
pub fn px1(config: &PaxosConfig, keep_going: bool) -> Run {
    let mut s = Scenario::new(config, 1, keep_going);
    s.lose_first("Accept", "relay-1", "a2")
        .lose_first("Accept", "relay-1", "a3");
    s.propose(0, "relay-1")
        .propose(100, "relay-2")
        .propose(200, "relay-1");
    s.run()
}
