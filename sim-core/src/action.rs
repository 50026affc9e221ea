//! What a scenario can schedule at a time: faults, network changes and commands to nodes.
//!
//! Schedules are data: a timeline is a list of (time, [`Action`]) that the kernel queues like any
//! other event, so a search can generate, mutate and shrink them, and a found counterexample can be
//! written back as a scenario file.

use crate::clock::Clock;
use crate::id::NodeId;
use crate::net::{FaultRule, LinkConfig};
use serde::{Deserialize, Serialize};

/// One scheduled change. `C` is the protocol's command type.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Action<C> {
    /// Crash the node: volatile state lost, timers cancelled, messages to it dropped.
    Crash(NodeId),
    /// Restart a crashed node: durable state kept, `on_start` again.
    Restart(NodeId),
    /// Pause the node: it keeps everything but neither receives nor acts.
    Pause(NodeId),
    /// Resume a paused node: timers that fell due fire now.
    Resume(NodeId),
    /// Tell a node to do something.
    Command(NodeId, C),
    /// Split the nodes into groups (nodes listed nowhere form one more group).
    Partition(Vec<Vec<NodeId>>),
    /// Cut links from every node of the first list to every node of the second, one way.
    PartitionOneWay(Vec<NodeId>, Vec<NodeId>),
    /// Restore every cut link.
    Heal,
    /// Install a fault rule after the existing ones.
    AddRule(FaultRule),
    /// Remove every fault rule.
    ClearRules,
    /// Set a node's clock error.
    SetClock(NodeId, Clock),
    /// Change every link without an override.
    SetDefaultLink(LinkConfig),
    /// Override the directed link from the first node to the second.
    SetLink(NodeId, NodeId, LinkConfig),
    /// Apply a node action to whichever node claims `role` when the step runs ("pause the
    /// leader"). Among the nodes the action can apply to (not crashed for a crash, up for a
    /// pause or a command, paused for a resume), the one claiming the role in the newest epoch
    /// is chosen, the lowest id on a tie; with no claimant the step does nothing and the trace
    /// says so (`Fault::Vacant`). A restart aims at the crashed node that claimed the role
    /// when it crashed (the leader that crashed), since a crashed node has lost the volatile
    /// state a claim comes from.
    ToRole(String, NodeAction<C>),
}

/// What a role-targeted step does to the node it resolves to (see [`Action::ToRole`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum NodeAction<C> {
    /// [`Action::Crash`].
    Crash,
    /// [`Action::Restart`].
    Restart,
    /// [`Action::Pause`].
    Pause,
    /// [`Action::Resume`].
    Resume,
    /// [`Action::Command`].
    Command(C),
}

impl<C> NodeAction<C> {
    /// The action on `node`.
    pub fn on(self, node: NodeId) -> Action<C> {
        match self {
            NodeAction::Crash => Action::Crash(node),
            NodeAction::Restart => Action::Restart(node),
            NodeAction::Pause => Action::Pause(node),
            NodeAction::Resume => Action::Resume(node),
            NodeAction::Command(c) => Action::Command(node, c),
        }
    }

    /// A short lowercase name for traces and stories: "crash", "restart", "pause", "resume",
    /// "command".
    pub fn name(&self) -> &'static str {
        match self {
            NodeAction::Crash => "crash",
            NodeAction::Restart => "restart",
            NodeAction::Pause => "pause",
            NodeAction::Resume => "resume",
            NodeAction::Command(_) => "command",
        }
    }
}
