//! Trace records: one per thing that happened, in the order it happened.
//!
//! A record is (step, time, event). The events are a closed alphabet: start, send, deliver,
//! drop (with its reason), duplicate, timer, fault, command, note, violation. Records carry node
//! names and typed payloads (the protocol's messages, timers, notes, commands), so that the same
//! invariant checker reads them online, as the kernel makes them, and offline, from a JSON Lines
//! file (the file format, header and readers live in the `traces` crate). Records are built only
//! when someone listens (a sink or a checker); with neither, the kernel builds none.

use crate::actor::{Actor, Message};
use crate::id::{MsgId, Name};
use crate::net::DropReason;
use crate::time::{Duration, Instant};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::BTreeMap;

/// Something that happened at a step of a run.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct Record<A: Actor> {
    /// The kernel step (one popped event) this record belongs to, from 1.
    pub step: u64,
    /// The virtual time of that step.
    pub time: Instant,
    /// What happened.
    #[serde(flatten)]
    pub event: Event<A>,
}

/// What happened, in the kernel's closed alphabet.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(bound = "", tag = "kind", rename_all = "snake_case")]
pub enum Event<A: Actor> {
    /// A node started (`restart` after a crash).
    Start {
        /// The node.
        node: Name,
        /// Whether this start follows a crash.
        #[serde(default)]
        restart: bool,
    },
    /// A node sent a message (before the network acts on it).
    Send {
        /// The message's number in the run.
        id: MsgId,
        /// Sender.
        from: Name,
        /// Receiver.
        to: Name,
        /// The payload, with its fields.
        msg: A::Msg,
    },
    /// A message arrived and was handed to its receiver.
    Deliver {
        /// The message's number.
        id: MsgId,
        /// Sender.
        from: Name,
        /// Receiver.
        to: Name,
        /// The message's kind.
        msg_kind: Cow<'static, str>,
    },
    /// A message will never arrive (or arrived at a node that could not take it).
    Drop {
        /// The message's number.
        id: MsgId,
        /// Sender.
        from: Name,
        /// Receiver.
        to: Name,
        /// The message's kind.
        msg_kind: Cow<'static, str>,
        /// Why.
        reason: DropReason,
    },
    /// The network will deliver a second copy of a message.
    Duplicate {
        /// The message's number (the copy keeps it).
        id: MsgId,
        /// Sender.
        from: Name,
        /// Receiver.
        to: Name,
        /// The message's kind.
        msg_kind: Cow<'static, str>,
        /// When the copy arrives, counted from the send.
        delay: Duration,
    },
    /// A node's timer fired.
    Timer {
        /// The node.
        node: Name,
        /// The timer's tag.
        timer: A::Timer,
    },
    /// The scenario changed a node or the network.
    Fault {
        /// What changed.
        fault: Fault,
    },
    /// The scenario told a node to do something.
    Command {
        /// The node.
        node: Name,
        /// The command.
        command: A::Command,
        /// False when the node was down and the command went nowhere.
        #[serde(default = "yes")]
        accepted: bool,
    },
    /// A node published a fact for the checkers.
    Note {
        /// The node.
        node: Name,
        /// The fact.
        note: A::Note,
    },
    /// An invariant failed.
    Violation {
        /// The invariant's name.
        invariant: Cow<'static, str>,
        /// What went wrong, in words.
        message: String,
        /// The message said in other languages, by tag (`"es"`).
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        translations: BTreeMap<String, String>,
    },
}

fn yes() -> bool {
    true
}

impl<A: Actor> Event<A> {
    /// Whether this is one of a run's facts (a note, fault, command, start or violation),
    /// rather than one of the sends, deliveries, drops, duplicates and timers that make up
    /// nearly every step: what a run keeps for its end by default (`Protocol::keeps`).
    pub fn is_fact(&self) -> bool {
        matches!(
            self,
            Event::Note { .. }
                | Event::Fault { .. }
                | Event::Command { .. }
                | Event::Start { .. }
                | Event::Violation { .. }
        )
    }

    /// The kind of record this event makes, as a one-kind set (a violation is none of the
    /// kinds an invariant can name, so only one reading every kind sees it).
    pub fn kind(&self) -> Kinds {
        match self {
            Event::Start { .. } => Kinds::START,
            Event::Send { .. } => Kinds::SEND,
            Event::Deliver { .. } => Kinds::DELIVER,
            Event::Drop { .. } => Kinds::DROP,
            Event::Duplicate { .. } => Kinds::DUPLICATE,
            Event::Timer { .. } => Kinds::TIMER,
            Event::Fault { .. } => Kinds::FAULT,
            Event::Command { .. } => Kinds::COMMAND,
            Event::Note { .. } => Kinds::NOTE,
            Event::Violation { .. } => Kinds::VIOLATION,
        }
    }
}

/// A change the scenario made to a node or to the network, as recorded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fault {
    /// The node crashed: volatile state lost, timers cancelled.
    Crash(Name),
    /// The node came back from a crash with its durable state.
    Restart(Name),
    /// The node stopped receiving and acting, keeping all its state.
    Pause(Name),
    /// The node resumed; timers that fell due while it was paused fire now.
    Resume(Name),
    /// The nodes were split into groups that cannot reach each other.
    Partition(Vec<Vec<Name>>),
    /// Links from the first group to the second were cut, one way.
    PartitionOneWay(Vec<Name>, Vec<Name>),
    /// Every cut link was restored.
    Heal,
    /// A fault rule was installed (its number, from 1, and what it does).
    Rule(u32, String),
    /// Every fault rule was removed.
    ClearRules,
    /// A node's clock was set off by `skew_ns` and made to run fast by `drift_ppm`.
    Clock {
        /// The node.
        node: Name,
        /// Offset of its clock from true time, in nanoseconds.
        skew_ns: i64,
        /// Rate error in parts per million (positive: runs fast).
        drift_ppm: i64,
    },
    /// The behaviour of links changed (a description).
    Link(String),
    /// A step aimed at whoever claims `role` ("pause the leader") found no node claiming it,
    /// so it did nothing. `action` is what it would have done: "crash", "pause", "resume" or
    /// "command".
    Vacant {
        /// The role named by the step, without its `@`.
        role: Name,
        /// What the step would have done.
        action: Cow<'static, str>,
    },
}

impl Fault {
    /// The node this fault is about, for the faults about one node (crash, restart, pause,
    /// resume, clock).
    pub fn node(&self) -> Option<&str> {
        match self {
            Fault::Crash(n) | Fault::Restart(n) | Fault::Pause(n) | Fault::Resume(n) => Some(n),
            Fault::Clock { node, .. } => Some(node),
            _ => None,
        }
    }
}

/// Every record kind, as trace files write it (the `kind` field), in the order of [`Event`]'s
/// variants. Readers use it to name what a broken line could have been.
pub const EVENT_KINDS: &[&str] = &[
    "start",
    "send",
    "deliver",
    "drop",
    "duplicate",
    "timer",
    "fault",
    "command",
    "note",
    "violation",
];

/// A set of record kinds. An invariant names the kinds it reads, so that a run keeping no
/// trace builds no record that nobody reads (a Paxos checker reads notes and commands, never
/// the hundreds of sends and deliveries between them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Kinds(u16);

impl Kinds {
    /// No kind.
    pub const NONE: Kinds = Kinds(0);
    /// Every kind (the default: an invariant that does not say reads everything).
    pub const ALL: Kinds = Kinds(u16::MAX);
    /// `start` records.
    pub const START: Kinds = Kinds(1);
    /// `send` records (each carries a copy of the message).
    pub const SEND: Kinds = Kinds(1 << 1);
    /// `deliver` records.
    pub const DELIVER: Kinds = Kinds(1 << 2);
    /// `drop` records.
    pub const DROP: Kinds = Kinds(1 << 3);
    /// `duplicate` records.
    pub const DUPLICATE: Kinds = Kinds(1 << 4);
    /// `timer` records.
    pub const TIMER: Kinds = Kinds(1 << 5);
    /// `fault` records.
    pub const FAULT: Kinds = Kinds(1 << 6);
    /// `command` records.
    pub const COMMAND: Kinds = Kinds(1 << 7);
    /// `note` records.
    pub const NOTE: Kinds = Kinds(1 << 8);
    /// `violation` records: a kind no invariant names, so that [`Event::kind`] has an answer
    /// for every record. No checker is handed them: a run keeps them apart, and `dsim check`
    /// skips those a file holds.
    const VIOLATION: Kinds = Kinds(1 << 9);

    /// Both sets.
    pub const fn or(self, other: Kinds) -> Kinds {
        Kinds(self.0 | other.0)
    }
    /// Whether every kind of `other` is in this set.
    pub const fn contains(self, other: Kinds) -> bool {
        self.0 & other.0 == other.0
    }
}

impl std::ops::BitOr for Kinds {
    type Output = Kinds;
    fn bitor(self, other: Kinds) -> Kinds {
        self.or(other)
    }
}

impl<A: Actor> Event<A> {
    /// The record kind, as trace files write it (one of [`EVENT_KINDS`]).
    pub fn kind_name(&self) -> &'static str {
        match self {
            Event::Start { .. } => "start",
            Event::Send { .. } => "send",
            Event::Deliver { .. } => "deliver",
            Event::Drop { .. } => "drop",
            Event::Duplicate { .. } => "duplicate",
            Event::Timer { .. } => "timer",
            Event::Fault { .. } => "fault",
            Event::Command { .. } => "command",
            Event::Note { .. } => "note",
            Event::Violation { .. } => "violation",
        }
    }

    /// Sender and receiver, for the records about one message (send, deliver, drop, duplicate).
    pub fn link(&self) -> Option<(&str, &str)> {
        match self {
            Event::Send { from, to, .. }
            | Event::Deliver { from, to, .. }
            | Event::Drop { from, to, .. }
            | Event::Duplicate { from, to, .. } => Some((from, to)),
            _ => None,
        }
    }

    /// The message's number, for the records about one message.
    pub fn msg_id(&self) -> Option<MsgId> {
        match self {
            Event::Send { id, .. }
            | Event::Deliver { id, .. }
            | Event::Drop { id, .. }
            | Event::Duplicate { id, .. } => Some(*id),
            _ => None,
        }
    }
    /// The node this event is about, if it is about one node (the receiver for deliveries).
    pub fn node(&self) -> Option<&str> {
        match self {
            Event::Start { node, .. }
            | Event::Timer { node, .. }
            | Event::Command { node, .. }
            | Event::Note { node, .. } => Some(node),
            Event::Send { from, .. } => Some(from),
            Event::Deliver { to, .. } | Event::Drop { to, .. } | Event::Duplicate { to, .. } => {
                Some(to)
            }
            Event::Fault { .. } | Event::Violation { .. } => None,
        }
    }

    /// The kind of message this event is about, if any.
    pub fn msg_kind(&self) -> Option<&str> {
        match self {
            Event::Send { msg, .. } => Some(msg.kind()),
            Event::Deliver { msg_kind, .. }
            | Event::Drop { msg_kind, .. }
            | Event::Duplicate { msg_kind, .. } => Some(msg_kind),
            _ => None,
        }
    }
}

/// Where records go as they are made.
pub trait TraceSink<A: Actor>: Send {
    /// Takes one record. A sink that can fail (a file) keeps its first error for the caller.
    fn record(&mut self, record: &Record<A>);

    /// Takes one record the run no longer needs: a sink that keeps records (one that hands
    /// them to another thread) takes them without a copy. By default, [`TraceSink::record`].
    fn take(&mut self, record: Record<A>) {
        self.record(&record);
    }
}

/// How a run keeps its trace.
pub enum TraceMode<A: Actor> {
    /// No trace (zero cost when no checker listens either).
    Off,
    /// Every record kept in memory.
    Memory(Vec<Record<A>>),
    /// Every record handed to a sink as it is made.
    Sink(Box<dyn TraceSink<A>>),
}

impl<A: Actor> Clone for TraceMode<A> {
    /// A fork keeps an in-memory trace; a sink (a file) stays with the original run.
    fn clone(&self) -> Self {
        match self {
            TraceMode::Off | TraceMode::Sink(_) => TraceMode::Off,
            TraceMode::Memory(records) => TraceMode::Memory(records.clone()),
        }
    }
}

impl<A: Actor> std::fmt::Debug for TraceMode<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TraceMode::Off => f.write_str("Off"),
            TraceMode::Memory(r) => write!(f, "Memory({} records)", r.len()),
            TraceMode::Sink(_) => f.write_str("Sink"),
        }
    }
}

/// The notes among `records`, with when and by whom they were published, in order: what
/// expectation checks and protocol tests read.
pub fn notes<A: Actor>(records: &[Record<A>]) -> impl Iterator<Item = (Instant, &str, &A::Note)> {
    records.iter().filter_map(|r| match &r.event {
        Event::Note { node, note } => Some((r.time, &**node, note)),
        _ => None,
    })
}
