//! The actor contract: protocol nodes as sans-IO state machines.
//!
//! A handler never blocks, never reads a clock and never does I/O: everything it wants to happen
//! (send, set or cancel a timer, publish a note for the checkers) is buffered in its [`Context`]
//! and applied by the kernel after the handler returns, in the order it was asked for. That is
//! what lets a handler be unit-tested with a [`TestContext`] and no kernel, and what lets the
//! kernel own every ordering decision. This module does not deliver anything: see `kernel`.

use crate::id::NodeId;
use crate::oracle::Draws;
use crate::rng::{SimRng, Stream};
use crate::time::{Duration, Instant};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::fmt::Debug;
use std::hash::Hash;

/// A protocol message: a payload in the paper's words (`Prepare`, `Promise`, `RequestVote` ...).
///
/// Implement it with [`message!`](crate::message), which derives both items from the enum's
/// variant names, so the list of kinds and `kind()` cannot disagree.
pub trait Message: Clone + Debug + Hash + Serialize + DeserializeOwned + Send + 'static {
    /// Every kind this protocol sends, for validating scenario rules and `dsim list --kinds`.
    const KINDS: &'static [&'static str];
    /// The stable short label of this message (one of [`Message::KINDS`]), used by network rules,
    /// traces and filters.
    fn kind(&self) -> &'static str;
}

/// Implements [`Message`] for an enum from its variant names, each written once:
/// `sim_core::message!(PaxosMsg { Prepare, Promise, Accept });`.
///
/// The generated `kind()` is an exhaustive `match`, so a variant missing from the list, or a
/// name that is not a variant, is a compile error: `KINDS` and `kind()` agree by construction.
/// The kind of a variant is its name, whatever its fields.
#[macro_export]
macro_rules! message {
    ($name:ident { $($variant:ident),+ $(,)? }) => {
        impl $crate::Message for $name {
            const KINDS: &'static [&'static str] = &[$(stringify!($variant)),+];
            fn kind(&self) -> &'static str {
                match self {
                    $($name::$variant { .. } => stringify!($variant),)+
                }
            }
        }
    };
}

/// A role a node claims at this instant (leader, candidate, primary ...) and the epoch it
/// claims it in (a term, a view), so that a scenario step can target "the leader now".
///
/// See [`Actor::claim`]; the kernel resolves a role step with [`Actor::ROLES`] and this claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RoleClaim {
    /// One of the actor's [`Actor::ROLES`].
    pub role: &'static str,
    /// The term, view or epoch of the claim: among several claimants, the newest wins.
    pub epoch: u64,
}

/// A protocol node. `Clone` so that a whole simulation can be forked at a step; `Send` and
/// `Sync` so that an exhaustive search can expand states on several threads (copies of a state
/// share their actors until one changes); `Hash` so that a
/// search can recognise a state it has seen (hashed with [`crate::hash::stable_hash`], never with
/// a randomly keyed hasher).
pub trait Actor: Clone + Debug + Hash + Send + Sync + 'static {
    /// The messages this node exchanges.
    type Msg: Message;
    /// Timer tags; setting a tag that is already pending re-arms it.
    type Timer: Clone + Debug + PartialEq + Hash + Serialize + DeserializeOwned + Send + 'static;
    /// Facts the node publishes for invariant checkers ("chose v", "leader of term t").
    type Note: Clone + Debug + Serialize + DeserializeOwned + Send + 'static;
    /// What a scenario can tell the node to do ("propose", "put k v").
    type Command: Clone + Debug + Serialize + DeserializeOwned + Send + Sync + 'static;

    /// The roles a node of this protocol can claim ("leader", "candidate" ...), which a scenario
    /// step can target as `"@leader"`. Empty by default: nodes are named, never targeted by role.
    const ROLES: &'static [&'static str] = &[];

    /// The role this node claims now, if any (one of [`Actor::ROLES`]). `None` by default.
    fn claim(&self) -> Option<RoleClaim> {
        None
    }

    /// Whether `other` is this very state: equal in every field that can differ between states
    /// of one search (`self == other` for an actor that is `PartialEq`). A breadth-first search that meets one node state on many paths keeps a
    /// single copy of it when this says so (`kernel::ActorCache`); a stable hash alone cannot
    /// say it, since a hash may leave out what does not change a state's future (Raft's RPC
    /// numbers) while a copy must keep it. The copy kept may stand in for another node's
    /// actor, so fields left out of `==` because they are the same in every state (a shared
    /// setup with the node's own id and peers) must still tell two nodes apart here. `false`
    /// by default: every copy is kept.
    fn same_state(&self, other: &Self) -> bool {
        let _ = other;
        false
    }

    /// Called when the node starts, and again when it restarts after a crash. Does nothing by
    /// default.
    fn on_start(&mut self, ctx: &mut Context<'_, Self>) {
        let _ = ctx;
    }
    /// Called when a message from `from` is delivered.
    fn on_message(&mut self, ctx: &mut Context<'_, Self>, from: NodeId, msg: Self::Msg);
    /// Called when a timer this node set fires.
    fn on_timer(&mut self, ctx: &mut Context<'_, Self>, timer: Self::Timer);
    /// Called when the scenario tells this node to do something. Ignored by default.
    fn on_command(&mut self, ctx: &mut Context<'_, Self>, command: Self::Command) {
        let _ = (ctx, command);
    }
    /// Called when a paused node resumes, with all its state (its overdue timers fire next):
    /// where a node can say what it believes on its return. Does nothing by default.
    fn on_resume(&mut self, ctx: &mut Context<'_, Self>) {
        let _ = ctx;
    }
    /// Called when the node crashes: drop volatile state here; what stays in `self` is durable
    /// and survives the restart. Pending timers are cancelled by the kernel. By default all
    /// state is durable.
    fn on_crash(&mut self) {}
}

/// Something a handler asked for, applied by the kernel after the handler returns.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect<A: Actor> {
    /// Send `msg` to `to` through the network.
    Send {
        /// The receiver.
        to: NodeId,
        /// The payload.
        msg: A::Msg,
    },
    /// Arm `timer` to fire after `after` of this node's local clock (re-arms if pending).
    SetTimer {
        /// The tag.
        timer: A::Timer,
        /// Local-clock delay.
        after: Duration,
    },
    /// Disarm `timer` if pending.
    CancelTimer {
        /// The tag.
        timer: A::Timer,
    },
    /// Publish a fact for the checkers.
    Note(A::Note),
}

/// What a handler may see and do. It buffers effects; it never delivers anything itself.
pub struct Context<'a, A: Actor> {
    id: NodeId,
    now: Instant,
    local_now: Instant,
    draws: &'a mut Draws,
    effects: &'a mut Vec<Effect<A>>,
}

impl<'a, A: Actor> Context<'a, A> {
    /// A context for node `id` at true time `now` and local clock reading `local_now`.
    pub fn new(
        id: NodeId,
        now: Instant,
        local_now: Instant,
        draws: &'a mut Draws,
        effects: &'a mut Vec<Effect<A>>,
    ) -> Self {
        Context {
            id,
            now,
            local_now,
            draws,
            effects,
        }
    }

    /// This node.
    pub fn id(&self) -> NodeId {
        self.id
    }
    /// The true virtual time. Protocols that model clocks should read [`Context::local_clock`];
    /// this one is for notes and checkers.
    pub fn now(&self) -> Instant {
        self.now
    }
    /// This node's own clock, with its skew and drift applied.
    pub fn local_clock(&self) -> Instant {
        self.local_now
    }
    /// A random integer in `[low, high]` from this node's own stream: the node's n-th draw,
    /// which a schedule can pin (see [`crate::oracle`]). Every random choice a protocol makes
    /// goes through here, so a search can replay and steer it.
    pub fn random_between(&mut self, low: u64, high: u64) -> u64 {
        self.draws.between(low, high)
    }
    /// Sends `msg` to `to`.
    pub fn send(&mut self, to: NodeId, msg: A::Msg) {
        self.effects.push(Effect::Send { to, msg });
    }
    /// Sends a copy of `msg` to each of `to`, in order.
    pub fn broadcast(&mut self, to: &[NodeId], msg: &A::Msg) {
        for &peer in to {
            self.effects.push(Effect::Send {
                to: peer,
                msg: msg.clone(),
            });
        }
    }
    /// Arms `timer` to fire after `after` on this node's clock; re-arms it if already pending.
    pub fn set_timer(&mut self, timer: A::Timer, after: Duration) {
        self.effects.push(Effect::SetTimer { timer, after });
    }
    /// Disarms `timer` if it is pending.
    pub fn cancel_timer(&mut self, timer: A::Timer) {
        self.effects.push(Effect::CancelTimer { timer });
    }
    /// Publishes a fact for the invariant checkers and the trace.
    pub fn note(&mut self, note: A::Note) {
        self.effects.push(Effect::Note(note));
    }
}

/// The sends among `effects`, as (receiver, message): what a handler test usually asserts.
pub fn sends_of<A: Actor>(effects: &[Effect<A>]) -> Vec<(NodeId, A::Msg)> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Send { to, msg } => Some((*to, msg.clone())),
            _ => None,
        })
        .collect()
}

/// The notes among `effects`, in order.
pub fn notes_of<A: Actor>(effects: &[Effect<A>]) -> Vec<A::Note> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Note(n) => Some(n.clone()),
            _ => None,
        })
        .collect()
}

/// A stand-alone context for unit-testing handlers without a kernel.
///
/// ```ignore
/// let mut t = TestContext::<MyNode>::new(NodeId(0));
/// node.on_message(&mut t.ctx(), NodeId(1), Msg::Ping);
/// assert_eq!(t.take(), vec![Effect::Send { to: NodeId(1), msg: Msg::Pong }]);
/// ```
pub struct TestContext<A: Actor> {
    /// The node the handler runs as.
    pub id: NodeId,
    /// The time the handler sees (true and local).
    pub now: Instant,
    /// The node's random draws (seed 0, keyed by the node's id).
    pub draws: Draws,
    effects: Vec<Effect<A>>,
}

impl<A: Actor> TestContext<A> {
    /// A test context for node `id` at time zero.
    pub fn new(id: NodeId) -> Self {
        TestContext {
            id,
            now: Instant::ZERO,
            draws: Draws::new(SimRng::new(0, Stream::Node(u64::from(id.0)))),
            effects: Vec::new(),
        }
    }
    /// The context to pass to a handler.
    pub fn ctx(&mut self) -> Context<'_, A> {
        Context::new(
            self.id,
            self.now,
            self.now,
            &mut self.draws,
            &mut self.effects,
        )
    }
    /// The effects buffered so far, emptying the buffer.
    pub fn take(&mut self) -> Vec<Effect<A>> {
        std::mem::take(&mut self.effects)
    }
}
