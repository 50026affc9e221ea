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
}
