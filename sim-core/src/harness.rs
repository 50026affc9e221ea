//! One harness for kernel-level tests of any protocol: a run built from a config as scenarios
//! build it, steps scripted in milliseconds by node name, and the finished run read back
//! (violations, notes, records, expectations).
//!
//! ```
//! # use sim_core::{Harness, Protocol, SimConfig};
//! # fn demo<P: Protocol>(config: P::Config, cmd: <P::Actor as sim_core::Actor>::Command) {
//! let mut h = Harness::<P>::new(config, SimConfig::default());
//! h.command(0, "n1", cmd).crash(100, "n2");
//! let run = h.run();
//! assert!(run.violated().is_empty());
//! # }
//! ```

use crate::action::Action;
use crate::actor::{Actor, Message};
use crate::id::NodeId;
use crate::kernel::{RunReport, Sim, SimConfig};
use crate::net::{FaultRule, RuleAction};
use crate::protocol::{Outcome, Protocol, build_sim};
use crate::time::Instant;
use crate::trace::{self, Record, TraceMode};

type Command<P> = <<P as Protocol>::Actor as Actor>::Command;
type Note<P> = <<P as Protocol>::Actor as Actor>::Note;

/// A run of protocol `P` being scripted. Records are kept in memory.
pub struct Harness<P: Protocol> {
    config: P::Config,
    sim: Sim<P::Actor>,
}

impl<P: Protocol> Harness<P> {
    /// `config`'s nodes and invariants under `sim_config`, tracing to memory.
    pub fn new(config: P::Config, sim_config: SimConfig) -> Self {
        let mut sim = build_sim::<P>(&config, sim_config);
        sim.set_trace(TraceMode::Memory(Vec::new()));
        Harness { config, sim }
    }

    /// The config the run was built from.
    pub fn config(&self) -> &P::Config {
        &self.config
    }

    /// The simulation, to inspect before the run (node ids, a fork to probe the future).
    pub fn sim(&self) -> &Sim<P::Actor> {
        &self.sim
    }

    /// The simulation, to change before the run (a decider, a node's clock ...).
    pub fn sim_mut(&mut self) -> &mut Sim<P::Actor> {
        &mut self.sim
    }

    /// The id of the node called `name`. Panics on a name the config does not have: a test's
    /// typo should fail loudly.
    pub fn id(&self, name: &str) -> NodeId {
        self.sim
            .node_id(name)
            .unwrap_or_else(|| panic!("no node called {name:?} in this config"))
    }

    /// Schedules `action` at `ms` milliseconds. Panics on a role the protocol's nodes never
    /// claim (a typo would make the step do nothing).
    pub fn at(&mut self, ms: u64, action: Action<Command<P>>) -> &mut Self {
        if let Action::ToRole(role, _) = &action {
            let roles = <P::Actor as Actor>::ROLES;
            assert!(
                roles.contains(&role.as_str()),
                "no role {role:?} in this protocol (its roles: {roles:?})"
            );
        }
        self.sim.schedule(Instant::from_millis(ms), action);
        self
    }

    /// `node` gets `command` at `ms`.
    pub fn command(&mut self, ms: u64, node: &str, command: Command<P>) -> &mut Self {
        let id = self.id(node);
        self.at(ms, Action::Command(id, command))
    }

    /// `node` crashes at `ms`.
    pub fn crash(&mut self, ms: u64, node: &str) -> &mut Self {
        let id = self.id(node);
        self.at(ms, Action::Crash(id))
    }

    /// `node` restarts at `ms`.
    pub fn restart(&mut self, ms: u64, node: &str) -> &mut Self {
        let id = self.id(node);
        self.at(ms, Action::Restart(id))
    }

    /// `node` pauses at `ms`.
    pub fn pause(&mut self, ms: u64, node: &str) -> &mut Self {
        let id = self.id(node);
        self.at(ms, Action::Pause(id))
    }

    /// `node` resumes at `ms`.
    pub fn resume(&mut self, ms: u64, node: &str) -> &mut Self {
        let id = self.id(node);
        self.at(ms, Action::Resume(id))
    }

    /// Installs at time 0 a fault rule on messages of `kind` from `from` to `to` (any when
    /// `None`), for the `nth` match only (every match when `None`). Panics on a kind the
    /// protocol does not send (a typo would match nothing).
    pub fn rule(
        &mut self,
        action: RuleAction,
        kind: Option<&str>,
        from: Option<&str>,
        to: Option<&str>,
        nth: Option<u64>,
    ) -> &mut Self {
        if let Some(kind) = kind {
            let kinds = <<P::Actor as Actor>::Msg as Message>::KINDS;
            assert!(
                kinds.contains(&kind),
                "no message kind {kind:?} in this protocol (its kinds: {kinds:?})"
            );
        }
        let mut rule = FaultRule::new(action);
        rule.kind = kind.map(str::to_string);
        rule.from = from.map(|f| self.id(f));
        rule.to = to.map(|t| self.id(t));
        rule.nth = nth;
        self.at(0, Action::AddRule(rule))
    }

    /// Loses the first message of `kind` from `from` to `to`.
    pub fn lose_first(&mut self, kind: &str, from: &str, to: &str) -> &mut Self {
        self.rule(RuleAction::Drop, Some(kind), Some(from), Some(to), Some(1))
    }

    /// Runs a copy of the scripted simulation to its end (the harness can run again).
    pub fn run(&self) -> Finished<P> {
        let mut sim = self.sim.clone();
        let report = sim.run();
        let records = sim.take_records();
        Finished {
            config: self.config.clone(),
            sim,
            report,
            records,
        }
    }
}

/// A finished run: the simulation as it ended, its report and every record.
pub struct Finished<P: Protocol> {
    /// The config it was built from.
    pub config: P::Config,
    /// The simulation as it ended (final states, statuses).
    pub sim: Sim<P::Actor>,
    /// How it ended.
    pub report: RunReport,
    /// Every record, in order.
    pub records: Vec<Record<P::Actor>>,
}

impl<P: Protocol> Finished<P> {
    /// What expectation checks see.
    pub fn outcome(&self) -> Outcome<'_, P::Actor> {
        Outcome {
            sim: &self.sim,
            records: &self.records,
        }
    }

    /// Checks an expectation as a scenario would.
    pub fn check(&self, expect: &P::Expect) -> Result<String, String> {
        P::check(&self.config, expect, &self.outcome())
    }

    /// The names of the invariants violated, in the order they fired.
    pub fn violated(&self) -> Vec<String> {
        self.report
            .violations
            .iter()
            .map(|v| v.invariant.clone())
            .collect()
    }

    /// Every note with its time and node, in order.
    pub fn notes(&self) -> impl Iterator<Item = (Instant, &str, &Note<P>)> {
        trace::notes(&self.records)
    }

    /// The final state of the node called `name`.
    pub fn actor(&self, name: &str) -> &P::Actor {
        let id = self
            .sim
            .node_id(name)
            .unwrap_or_else(|| panic!("no node called {name:?} in this config"));
        self.sim.actor(id)
    }
}
