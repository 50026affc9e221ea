//! The kernel's half that applies a timeline's actions: faults, network changes, commands and
//! steps aimed at a role, each traced as the fault record that tells it.

use super::{Pending, Sim, Status};
use crate::action::{Action, NodeAction};
use crate::actor::Actor;
use crate::id::{Name, NodeId};
use crate::time::Instant;
use crate::trace::{Event, Fault, Kinds};
use std::borrow::Cow;

impl<A: Actor> Sim<A> {
    pub(super) fn act(&mut self, action: Action<A::Command>) {
        tracing::debug!(target: "dsim", ?action, "scenario action");
        match action {
            Action::Crash(node) => self.crash(node),
            Action::Restart(node) => self.restart(node),
            Action::Pause(node) => self.pause(node),
            Action::Resume(node) => self.resume(node),
            Action::Command(node, command) => self.command(node, command),
            Action::Partition(groups) => {
                let all: Vec<NodeId> = self.node_ids().collect();
                self.network.partition(&groups, &all);
                let named = groups.iter().map(|g| self.names(g)).collect();
                self.fault(Fault::Partition(named));
            }
            Action::PartitionOneWay(from, to) => {
                self.network.partition_one_way(&from, &to);
                self.fault(Fault::PartitionOneWay(self.names(&from), self.names(&to)));
            }
            Action::Heal => {
                self.network.heal();
                self.fault(Fault::Heal);
            }
            Action::AddRule(rule) => {
                let description = self.describe_rule(&rule);
                let index = self.network.add_rule(rule);
                self.fault(Fault::Rule(index + 1, description));
            }
            Action::ClearRules => {
                self.network.clear_rules();
                self.fault(Fault::ClearRules);
            }
            Action::SetClock(node, clock) => {
                self.nodes[node.index()].clock = clock;
                self.fault(Fault::Clock {
                    node: self.nodes[node.index()].name.clone(),
                    skew_ns: clock.skew_ns,
                    drift_ppm: clock.drift_ppm,
                });
            }
            Action::SetDefaultLink(link) => {
                self.network.set_default_link(link);
                self.fault(Fault::Link(format!("every link: {link:?}")));
            }
            Action::SetLink(from, to, link) => {
                self.network.set_link(from, to, link);
                let text = format!("{} -> {}: {link:?}", self.name(from), self.name(to));
                self.fault(Fault::Link(text));
            }
            Action::ToRole(role, action) => self.aim_at_role(&role, action),
        }
    }

    /// A crash: volatile state dropped by the actor, timers cancelled (no-op if crashed).
    fn crash(&mut self, node: NodeId) {
        if self.nodes[node.index()].status == Status::Crashed {
            return;
        }
        let keep_claim = self.role_restarts;
        let slot = &mut self.nodes[node.index()];
        slot.status = Status::Crashed;
        slot.timers.clear();
        slot.crashed_claim = if keep_claim { slot.actor.claim() } else { None };
        slot.actor.make_mut().on_crash();
        slot.dirty = true;
        self.fault(Fault::Crash(self.nodes[node.index()].name.clone()));
    }

    /// A restart of a crashed node: `on_start` again (no-op unless crashed).
    fn restart(&mut self, node: NodeId) {
        if self.nodes[node.index()].status != Status::Crashed {
            return;
        }
        self.nodes[node.index()].status = Status::Up;
        self.nodes[node.index()].crashed_claim = None;
        self.fault(Fault::Restart(self.nodes[node.index()].name.clone()));
        self.start(node, true);
    }

    /// A pause of an up node: everything kept, timers held (no-op unless up).
    fn pause(&mut self, node: NodeId) {
        if self.nodes[node.index()].status != Status::Up {
            return;
        }
        self.nodes[node.index()].status = Status::Paused;
        self.fault(Fault::Pause(self.nodes[node.index()].name.clone()));
    }

    /// A resume of a paused node: timers that fell due fire now, in the order they fell due
    /// (no-op unless paused).
    fn resume(&mut self, node: NodeId) {
        if self.nodes[node.index()].status != Status::Paused {
            return;
        }
        let slot = &mut self.nodes[node.index()];
        slot.status = Status::Up;
        let mut overdue: Vec<(Instant, u64)> = slot
            .timers
            .iter_mut()
            .filter(|t| t.overdue)
            .map(|t| {
                t.overdue = false;
                (t.due, t.generation)
            })
            .collect();
        overdue.sort_unstable();
        for (_, generation) in overdue {
            self.queue
                .push(self.progress.now, Pending::Timer { node, generation });
        }
        self.fault(Fault::Resume(self.nodes[node.index()].name.clone()));
        self.dispatch(node, |actor, ctx| actor.on_resume(ctx));
    }

    /// A scenario's command: traced, and handed to the node if it is up.
    fn command(&mut self, node: NodeId, command: A::Command) {
        let accepted = self.nodes[node.index()].status == Status::Up;
        if self.observing(Kinds::COMMAND) {
            self.emit(Event::Command {
                node: self.nodes[node.index()].name.clone(),
                command: command.clone(),
                accepted,
            });
        }
        if accepted {
            self.dispatch(node, |actor, ctx| actor.on_command(ctx, command));
        }
    }

    /// A step aimed at a role: the action on its claimant (see [`Action::ToRole`]), or a
    /// `Vacant` fault when nobody the action can apply to claims it.
    fn aim_at_role(&mut self, role: &str, action: NodeAction<A::Command>) {
        let eligible = |status: Status| match action {
            NodeAction::Crash => status != Status::Crashed,
            NodeAction::Restart => status == Status::Crashed,
            NodeAction::Resume => status == Status::Paused,
            NodeAction::Pause | NodeAction::Command(_) => status == Status::Up,
        };
        match self.claimant(role, eligible) {
            Some(node) => self.act(action.on(node)),
            None => self.fault(Fault::Vacant {
                role: Name::from(role),
                action: Cow::Borrowed(action.name()),
            }),
        }
    }

    /// The node that claims `role` now among those whose status passes `eligible`: the one
    /// claiming it in the newest epoch, the lowest id on a tie (a crashed node by the claim it
    /// held when it crashed). How a role step ("pause the leader") picks its node; tests use
    /// it to find the leader at an instant.
    pub fn claimant(&self, role: &str, eligible: impl Fn(Status) -> bool) -> Option<NodeId> {
        let mut best: Option<(u64, NodeId)> = None;
        for id in self.node_ids() {
            let slot = &self.nodes[id.index()];
            if !eligible(slot.status) {
                continue;
            }
            let claim = if slot.status == Status::Crashed {
                slot.crashed_claim
            } else {
                slot.actor.claim()
            };
            let Some(claim) = claim else {
                continue;
            };
            if claim.role == role && best.is_none_or(|(epoch, _)| claim.epoch > epoch) {
                best = Some((claim.epoch, id));
            }
        }
        best.map(|(_, id)| id)
    }

    fn fault(&mut self, fault: Fault) {
        if self.observing(Kinds::FAULT) {
            self.emit(Event::Fault { fault });
        }
    }

    fn names(&self, ids: &[NodeId]) -> Vec<Name> {
        ids.iter()
            .map(|id| self.nodes[id.index()].name.clone())
            .collect()
    }

    fn describe_rule(&self, rule: &crate::net::FaultRule) -> String {
        use crate::net::RuleAction;
        let what = match rule.action {
            RuleAction::Drop => "drop".to_string(),
            RuleAction::Delay { by } => format!("delay by {by}"),
            RuleAction::Duplicate { after } => format!("duplicate ({after} later)"),
        };
        let nth = rule
            .nth
            .map(|n| format!(" occurrence {n} of"))
            .unwrap_or_else(|| " every".into());
        let kind = rule.kind.as_deref().unwrap_or("message");
        let from = rule.from.map(|f| format!(" from {}", self.name(f)));
        let to = rule.to.map(|t| format!(" to {}", self.name(t)));
        // A rule installed at its start time needs no "since".
        let since = rule
            .since
            .filter(|s| *s > self.progress.now)
            .map(|s| format!(" since {s}"));
        let until = rule.until.map(|u| format!(" until {u}"));
        format!(
            "{what}{nth} {kind}{}{}{}{}",
            from.unwrap_or_default(),
            to.unwrap_or_default(),
            since.unwrap_or_default(),
            until.unwrap_or_default()
        )
    }
}
