//! The kernel: a single-threaded discrete-event loop over virtual time.
//!
//! [`Sim`] pops the earliest event (ties by insertion order), hands it to the actor it concerns,
//! and applies the effects the handler buffered, in order: sends go through the [`Network`] once,
//! timers are armed on the node's local clock, notes become records. Every step appends records
//! (when someone listens) that the [`Checker`] reads as they are made; the first violation stops
//! the run unless configured otherwise. Faults are part of the closed event alphabet: a crash
//! cancels timers and drops deliveries, a pause holds timers and drops deliveries until resumed.
//! A `Sim` is `Clone`, so a run can be forked at any step (a timed run's copy copies every
//! node's state; an untimed one's shares them until they change, see `held`). It does not
//! parse scenarios, read files or print: see the `scenarios` and `traces` crates.

mod actions;
mod copy;
mod held;
mod pack;
mod untimed;

pub use pack::{ActorCache, Packed};
pub use untimed::{EffectBuffer, IgnoredAnswers, Move, MoveCode, MoveKind, Taken};

use crate::action::{Action, NodeAction};
use crate::actor::{Actor, Context, Effect, Message, RoleClaim};
use crate::check::{Checker, Invariant, Violation};
use crate::clock::Clock;
use crate::hash::stable_hash;
use crate::id::{MsgId, Name, NodeId};
use crate::net::{DropReason, LinkConfig, Network, Route};
use crate::oracle::{Armings, Choice, Draws, Oracle};
use crate::queue::EventQueue;
use crate::rng::{SimRng, Stream};
use crate::time::{self, Duration, Instant};
use crate::trace::{Event, Kinds, Record, TraceMode};
use held::Held;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::hash::{Hash, Hasher};

/// Bounds on a run, so that no run can loop forever.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Stop after this many steps.
    pub max_steps: u64,
    /// Stop before processing any event later than this.
    pub max_time: Instant,
    /// Stop when more messages than this are in flight at once.
    pub max_in_flight: usize,
    /// Stop after this many steps without virtual time advancing: a livelock (a node that
    /// messages itself forever, zero-latency ping-pong) rather than a run.
    #[serde(default = "default_steps_per_instant")]
    pub max_steps_per_instant: u64,
}

fn default_steps_per_instant() -> u64 {
    100_000
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_steps: 10_000_000,
            max_time: Instant::from_millis(3_600_000),
            max_in_flight: 1_000_000,
            max_steps_per_instant: default_steps_per_instant(),
        }
    }
}

/// How a run is set up before any node is added.
#[derive(Clone, Debug)]
pub struct SimConfig {
    /// The one seed every random stream derives from.
    pub seed: u64,
    /// How links behave unless overridden.
    pub link: LinkConfig,
    /// Bounds on the run.
    pub limits: Limits,
    /// Whether the first violation stops the run.
    pub stop_on_violation: bool,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            seed: 0,
            link: LinkConfig::default(),
            limits: Limits::default(),
            stop_on_violation: true,
        }
    }
}

impl SimConfig {
    /// The default setup (a healthy 1 ms network, default limits, stop at the first violation)
    /// with `seed`: the usual start of a library user's run.
    pub fn seeded(seed: u64) -> Self {
        SimConfig {
            seed,
            ..SimConfig::default()
        }
    }

    /// This setup with every link behaving as `link`.
    pub fn with_link(self, link: LinkConfig) -> Self {
        SimConfig { link, ..self }
    }
}

/// Why a run stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// Nothing left to happen.
    Quiescent,
    /// The next event was past `max_time`.
    TimeLimit,
    /// `max_steps` steps were taken.
    StepLimit,
    /// More than `max_in_flight` messages were in flight.
    InFlightLimit,
    /// An invariant failed and the run stops on violations.
    Violation,
    /// `max_steps_per_instant` steps were taken without virtual time advancing.
    Livelock,
}

/// Whether a node is running.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Running.
    Up,
    /// Crashed: volatile state gone, waiting for a restart.
    Crashed,
    /// Paused: all state kept, neither receiving nor acting.
    Paused,
}

/// Counts of what the network did in a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetStats {
    /// Messages sent.
    pub sent: u64,
    /// Messages handed to a receiver (duplicates included).
    pub delivered: u64,
    /// Messages that never arrived, or arrived at a node that could not take them.
    pub dropped: u64,
    /// Copies made by the network.
    pub duplicated: u64,
}

/// What a finished run reports.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunReport {
    /// Why it stopped.
    pub stop: StopReason,
    /// Steps taken.
    pub steps: u64,
    /// Virtual time at the end.
    pub time: Instant,
    /// Every violation found, in order.
    pub violations: Vec<Violation>,
    /// Network counts.
    pub net: NetStats,
}

#[derive(Clone, Debug)]
struct PendingTimer<T> {
    timer: T,
    generation: u64,
    /// Which of the node's armings (from 1) this is, for [`Choice::Timer`].
    arming: u64,
    /// Fell due while the node was paused; fires on resume.
    overdue: bool,
    /// When it falls due (true time), so that overdue timers fire on resume in the order they
    /// fell due.
    due: Instant,
}

/// A node as the kernel keeps it: its actor and what changes step by step, and (behind
/// [`NodeFacts`], reached through `Deref`) what seldom does.
#[derive(Debug)]
struct Node<A: Actor> {
    /// Owned in a timed run; in an untimed one, shared between copies of the simulation until
    /// one of them changes it (copy on write): a copy of a state costs a reference count per
    /// node, and an exhaustive search's millions of states share the actor states they have
    /// in common, as stateright's do (see `held`).
    actor: Held<A>,
    /// The node's name, identity, clock and the like, held in the same way: `node.name` reads
    /// them, and writing one (`node.clock = ...`) copies them first if another state shares
    /// them.
    facts: Held<NodeFacts>,
    draws: Draws,
    status: Status,
    timers: Vec<PendingTimer<A::Timer>>,
    /// In an untimed run, the actor's stable hash as of the last step (see
    /// [`Sim::untimed_hash`]); 0 in a timed run, which never reads it.
    hash: u64,
    /// In an untimed run, whether the actor may have changed since `hash` was taken.
    dirty: bool,
}

/// What a node seldom changes: set when it is added, or by a timeline step (a clock skew, a
/// crash of a role) or a timer's arming.
#[derive(Clone, Debug)]
struct NodeFacts {
    name: Name,
    /// Who the node is to the others: its own id, or for a twin the id of the node it copies
    /// (see [`Sim::add_twin`]).
    identity: NodeId,
    armings: Armings,
    clock: Clock,
    /// The role the node claimed when it crashed, kept only in a run that restarts a role
    /// (`Restart("@leader")`: the crashed node that was leading).
    crashed_claim: Option<RoleClaim>,
}

impl<A: Actor> std::ops::Deref for Node<A> {
    type Target = NodeFacts;
    fn deref(&self) -> &NodeFacts {
        &self.facts
    }
}

impl<A: Actor> std::ops::DerefMut for Node<A> {
    fn deref_mut(&mut self) -> &mut NodeFacts {
        self.facts.make_mut()
    }
}

/// A message in flight. One struct, so that the hot path (queue to handler) moves it whole.
#[derive(Clone, Debug)]
struct Delivery<M> {
    msg: M,
    id: MsgId,
    /// In an untimed run, the stable hash of (from, to, msg, copied), taken once at the send:
    /// a search lists, finds and hashes messages by it. 0 in a timed run.
    key: u64,
    from: NodeId,
    to: NodeId,
    /// An untimed search already delivered a copy of it (see [`Move::Duplicate`]).
    copied: bool,
}

#[derive(Clone, Debug)]
enum Pending<A: Actor> {
    Start(NodeId),
    Deliver(Delivery<A::Msg>),
    Timer {
        node: NodeId,
        generation: u64,
    },
    /// Boxed: actions are rare and large, deliveries are hot and small.
    Action(Box<Action<A::Command>>),
}

/// Where a run is: its virtual time, its counters and why it stopped. One `Copy` struct, so
/// that copying a run (`copy.rs`) and packing a state (`pack.rs`) name it once.
#[derive(Clone, Copy, Debug, Default)]
struct Progress {
    now: Instant,
    steps: u64,
    /// Steps taken at the current virtual time (for the livelock limit).
    steps_this_instant: u64,
    next_msg: u64,
    next_generation: u64,
    in_flight: usize,
    stats: NetStats,
    stopped: Option<StopReason>,
}

/// A simulation of actors of type `A` over a simulated network.
// Its `Clone` is in `copy.rs`.
#[derive(Debug)]
pub struct Sim<A: Actor> {
    seed: u64,
    nodes: Vec<Node<A>>,
    queue: EventQueue<Pending<A>>,
    network: Network,
    limits: Limits,
    stop_on_violation: bool,
    /// Where the run is: its time, its counters, why it stopped.
    progress: Progress,
    checker: Checker<A>,
    trace: TraceMode<A>,
    /// Reused buffer for a handler's effects (kept to avoid allocating per step).
    effects: Vec<Effect<A>>,
    /// Every twin as (the identity it shares, its own node), in the order they were added;
    /// empty in almost every run, so a send checks one length.
    twins: Vec<(NodeId, NodeId)>,
    /// Whether a step restarts whoever claimed a role when it crashed: then crashes keep the
    /// claim (see [`Node::crashed_claim`]) and state hashes include it.
    role_restarts: bool,
    /// Whether the run is untimed (see [`Sim::go_untimed`]): then messages carry their
    /// content hash and nodes their actor's.
    untimed: bool,
}

impl<A: Actor> Sim<A> {
    /// An empty simulation.
    pub fn new(config: SimConfig) -> Self {
        let oracle = Oracle::random(SimRng::new(config.seed, Stream::Network));
        Sim {
            seed: config.seed,
            nodes: Vec::new(),
            queue: EventQueue::new(),
            network: Network::new(config.link, oracle),
            limits: config.limits,
            stop_on_violation: config.stop_on_violation,
            progress: Progress::default(),
            checker: Checker::default(),
            trace: TraceMode::Off,
            effects: Vec::new(),
            twins: Vec::new(),
            role_restarts: false,
            untimed: false,
        }
    }

    /// Adds a node called `name`; it starts at the current time (time zero before the run).
    pub fn add_node(&mut self, name: &str, actor: A) -> NodeId {
        let id = NodeId(self.nodes.len() as u32);
        self.push_node(name, actor, id)
    }

    /// Adds a twin of node `of` called `name` (Bano et al., "Twins: BFT Systems Made Robust",
    /// OPODIS 2021): a second actor with `of`'s identity. It is a node of its own to the kernel
    /// (its own state, timers, status, clock and random draws; partitions, crashes and trace
    /// records name it by `name`), and the same node to the others: every message sent to `of`
    /// is also sent to each twin, each copy routed on its own (so a partition can separate the
    /// twins), and what a twin sends arrives from `of` and its handlers see `of` as their own
    /// id. Run correct code on both and to the rest they look like one node that equivocates or
    /// forgets what it said. Panics if `of` is not a node, or is itself a twin.
    pub fn add_twin(&mut self, name: &str, actor: A, of: NodeId) -> NodeId {
        assert!(
            of.index() < self.nodes.len() && self.nodes[of.index()].identity == of,
            "a twin copies a node that exists and is not itself a twin"
        );
        let id = NodeId(self.nodes.len() as u32);
        self.twins.push((of, id));
        self.push_node(name, actor, of)
    }

    fn push_node(&mut self, name: &str, actor: A, identity: NodeId) -> NodeId {
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(Node {
            actor: Held::new(actor, self.untimed),
            facts: Held::new(
                NodeFacts {
                    name: Name::from(name),
                    identity,
                    armings: Armings::default(),
                    clock: Clock::default(),
                    crashed_claim: None,
                },
                self.untimed,
            ),
            draws: Draws::seeded(self.seed, Stream::node(name)),
            status: Status::Up,
            timers: Vec::new(),
            hash: 0,
            dirty: true,
        });
        self.queue.push(self.progress.now, Pending::Start(id));
        id
    }

    /// Schedules a scenario action at `at` (not before now).
    pub fn schedule(&mut self, at: Instant, action: Action<A::Command>) {
        if matches!(action, Action::ToRole(_, NodeAction::Restart)) {
            self.role_restarts = true;
        }
        self.queue
            .push(at.max(self.progress.now), Pending::Action(Box::new(action)));
    }

    /// Adds an invariant; from now on records are built for it.
    pub fn add_invariant(&mut self, invariant: Box<dyn Invariant<A>>) {
        self.checker.push(invariant);
    }

    /// Chooses how the trace is kept.
    pub fn set_trace(&mut self, trace: TraceMode<A>) {
        self.trace = trace;
    }

    /// Takes the in-memory trace (empty unless the mode is `Memory`).
    pub fn take_records(&mut self) -> Vec<Record<A>> {
        match &mut self.trace {
            TraceMode::Memory(records) => std::mem::take(records),
            _ => Vec::new(),
        }
    }

    /// The records made since the last call (or since the start), in order, leaving the
    /// in-memory trace empty but with its allocation: a caller that drains after every step
    /// streams the run's records and keeps at most one step's worth (nothing unless the mode
    /// is `Memory`).
    pub fn drain_records(&mut self) -> impl Iterator<Item = Record<A>> + '_ {
        let records = match &mut self.trace {
            TraceMode::Memory(records) => Some(records),
            _ => None,
        };
        records.into_iter().flat_map(|r| r.drain(..))
    }

    /// Follows a schedule: message fates come from `choices` (a message they do not name is
    /// healthy) instead of the network stream, and their draws and timer durations are pinned
    /// on the nodes. Call it after adding the nodes and before the run; a choice about an
    /// unknown node is ignored.
    pub fn follow(&mut self, choices: &[Choice]) {
        *self.network.oracle_mut() = Oracle::scripted(choices);
        for choice in choices {
            match *choice {
                Choice::Draw(node, nth, value) => {
                    if let Some(slot) = self.nodes.get_mut(node.index()) {
                        slot.draws.pin(nth, value);
                    }
                }
                Choice::Timer(node, nth, after) => {
                    if let Some(slot) = self.nodes.get_mut(node.index()) {
                        slot.armings.pin(nth, after);
                    }
                }
                _ => {}
            }
        }
    }

    /// Gives a run that has not started another seed: the network's stream and every node's
    /// restart from `seed`, exactly as if the run had been built with it. A search builds one
    /// run and clones it per seed, instead of building each. The oracle becomes a random one
    /// again, not recording: call [`Sim::follow`] or [`Sim::record_choices`] after, not
    /// before. Panics once a step was taken (the streams' past draws would then belong to
    /// another seed).
    pub fn reseed(&mut self, seed: u64) {
        assert_eq!(self.progress.steps, 0, "reseed before the first step");
        self.seed = seed;
        self.network
            .oracle_mut()
            .reseed(SimRng::new(seed, Stream::Network));
        for node in &mut self.nodes {
            node.draws = Draws::seeded(seed, Stream::node(&node.name));
        }
    }

    /// Starts recording the network's choices that differ from the healthy default, so the run
    /// can be replayed with [`Sim::follow`] and shrunk.
    pub fn record_choices(&mut self) {
        self.network.oracle_mut().record();
    }

    /// The choices recorded since [`Sim::record_choices`], in the order they were made.
    pub fn recorded_choices(&self) -> &[Choice] {
        self.network.oracle().recorded()
    }

    /// The network (links, partitions, rules, decisions).
    pub fn network(&self) -> &Network {
        &self.network
    }

    /// The network, mutably (for setting links before the run).
    pub fn network_mut(&mut self) -> &mut Network {
        &mut self.network
    }

    /// The run's seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }
    /// The current virtual time.
    pub fn now(&self) -> Instant {
        self.progress.now
    }
    /// Steps taken so far.
    pub fn steps(&self) -> u64 {
        self.progress.steps
    }
    /// Why the run stopped, if it has.
    pub fn stopped(&self) -> Option<StopReason> {
        self.progress.stopped
    }
    /// How many nodes there are.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }
    /// Node ids in order.
    pub fn node_ids(&self) -> impl Iterator<Item = NodeId> + use<A> {
        (0..self.nodes.len() as u32).map(NodeId)
    }
    /// A node's actor.
    pub fn actor(&self, id: NodeId) -> &A {
        &self.nodes[id.index()].actor
    }
    /// Who node `id` is to the others: `id` itself, or for a twin the node it copies.
    pub fn identity(&self, id: NodeId) -> NodeId {
        self.nodes[id.index()].identity
    }
    /// A node's name.
    pub fn name(&self, id: NodeId) -> &str {
        &self.nodes[id.index()].name
    }
    /// The node called `name`.
    pub fn node_id(&self, name: &str) -> Option<NodeId> {
        self.nodes
            .iter()
            .position(|n| &*n.name == name)
            .map(|i| NodeId(i as u32))
    }
    /// A node's status.
    pub fn status(&self, id: NodeId) -> Status {
        self.nodes[id.index()].status
    }
    /// Messages in flight now.
    pub fn in_flight(&self) -> usize {
        self.progress.in_flight
    }
    /// Violations found so far.
    pub fn violations(&self) -> &[Violation] {
        self.checker.violations()
    }

    /// A stable hash of everything that decides the future of the run except the random
    /// streams' positions: actors, statuses, clocks, pending timers, messages in flight (in
    /// queue order, with times relative to now) and the network's cuts and rules.
    pub fn state_hash(&self) -> u64 {
        let mut h = xxhash_rust::xxh3::Xxh3Default::new();
        for node in &self.nodes {
            node.actor.hash(&mut h);
            node.status.hash(&mut h);
            node.clock.hash(&mut h);
            if self.role_restarts {
                node.crashed_claim.hash(&mut h);
            }
            for t in &node.timers {
                t.timer.hash(&mut h);
            }
        }
        for (at, pending) in self.queue.ordered() {
            (at.0 - self.progress.now.0.min(at.0)).hash(&mut h);
            match pending {
                Pending::Start(n) => (0u8, n).hash(&mut h),
                Pending::Deliver(Delivery { from, to, msg, .. }) => {
                    (1u8, from, to, msg).hash(&mut h)
                }
                Pending::Timer { node, .. } => (2u8, node).hash(&mut h),
                Pending::Action(a) => (3u8, stable_hash(&format!("{a:?}"))).hash(&mut h),
            }
        }
        self.network.hash(&mut h);
        h.finish()
    }

    /// A hash of the run's state with no time in it: every actor's state, every node's status,
    /// and the multiset of messages in flight (sender, receiver, content). What a search counts
    /// as coverage: with times, nearly every state would be new and the count never flatten.
    /// Allocates nothing.
    pub fn abstract_hash(&self) -> u64 {
        let mut h = xxhash_rust::xxh3::Xxh3Default::new();
        for node in &self.nodes {
            node.actor.hash(&mut h);
            node.status.hash(&mut h);
        }
        let messages = self.queue.pending().filter_map(|pending| match pending {
            Pending::Deliver(Delivery { from, to, msg, .. }) => Some(stable_hash(&(from, to, msg))),
            _ => None,
        });
        crate::hash::hash_multiset(messages, &mut h);
        h.finish()
    }

    /// Whether a record of `kind` would be read: by the trace, or by an invariant.
    #[inline]
    fn observing(&self, kind: Kinds) -> bool {
        self.tracing() || self.checker.reads().contains(kind)
    }

    /// Whether `note`'s record would be read: by the trace, or by an invariant that reads
    /// that note (see `Invariant::reads_note`).
    #[inline]
    fn observing_note(&self, note: &A::Note) -> bool {
        self.tracing() || self.checker.reads_note(note)
    }

    /// Whether the run keeps a trace, which reads every record.
    #[inline]
    fn tracing(&self) -> bool {
        !matches!(self.trace, TraceMode::Off)
    }

    fn emit(&mut self, event: Event<A>) {
        let record = Record {
            step: self.progress.steps,
            time: self.progress.now,
            event,
        };
        if self.checker.is_empty() {
            self.keep(record);
            return;
        }
        let new: Vec<Violation> = self.checker.observe(&record).to_vec();
        self.keep(record);
        if !new.is_empty() {
            self.report_violations(new);
        }
    }

    fn keep(&mut self, record: Record<A>) {
        match &mut self.trace {
            TraceMode::Off => {}
            TraceMode::Memory(records) => records.push(record),
            TraceMode::Sink(sink) => sink.take(record),
        }
    }

    fn report_violations(&mut self, violations: Vec<Violation>) {
        for v in violations {
            tracing::warn!(target: "dsim", invariant = %v.invariant, "violation: {}", v.message);
            let record = Record {
                step: v.step,
                time: v.time,
                event: Event::Violation {
                    invariant: Cow::Owned(v.invariant),
                    message: v.message,
                    translations: v.translations,
                },
            };
            self.keep(record);
            if self.stop_on_violation {
                self.progress.stopped = Some(StopReason::Violation);
            }
        }
    }

    /// Runs until something stops it; then runs the end-of-run checks and reports.
    pub fn run(&mut self) -> RunReport {
        while self.step() {}
        self.finish()
    }

    /// Runs until virtual time `deadline` (events at `deadline` included) or a stop.
    pub fn run_until(&mut self, deadline: Instant) {
        while self.step_within(deadline) {}
    }

    /// Runs the end-of-run checks (once) and reports the run.
    pub fn finish(&mut self) -> RunReport {
        let stop = self.progress.stopped.unwrap_or(StopReason::Quiescent);
        let end = self.progress.now;
        let new: Vec<Violation> = self.checker.finish_after(self.progress.steps, end).to_vec();
        self.report_violations(new);
        RunReport {
            stop,
            steps: self.progress.steps,
            time: self.progress.now,
            violations: self.checker.violations().to_vec(),
            net: self.progress.stats,
        }
    }

    /// Processes the next event. Returns false once the run has stopped.
    pub fn step(&mut self) -> bool {
        self.step_within(Instant::MAX)
    }

    /// Processes the next event if it is due by `deadline` (stale timer events popped on the
    /// way do not count). Returns false when the run has stopped or nothing is due by then.
    pub fn step_within(&mut self, deadline: Instant) -> bool {
        loop {
            if self.progress.stopped.is_some() {
                return false;
            }
            let Some(next) = self.queue.peek_time() else {
                self.progress.stopped = Some(StopReason::Quiescent);
                return false;
            };
            if next > deadline {
                return false;
            }
            if next > self.limits.max_time {
                self.progress.now = self.limits.max_time;
                self.progress.stopped = Some(StopReason::TimeLimit);
                return false;
            }
            if self.progress.steps >= self.limits.max_steps {
                self.progress.stopped = Some(StopReason::StepLimit);
                return false;
            }
            if next == self.progress.now
                && self.progress.steps_this_instant >= self.limits.max_steps_per_instant
            {
                self.progress.stopped = Some(StopReason::Livelock);
                return false;
            }
            let (at, pending) = self.queue.pop().expect("peeked");
            assert!(
                at >= self.progress.now,
                "virtual time never goes back: {at} after {}",
                self.progress.now
            );
            if at > self.progress.now {
                self.progress.steps_this_instant = 0;
            }
            self.progress.now = at;
            time::set_current(at);
            if self.process(pending) {
                self.progress.steps_this_instant += 1;
                return self.progress.stopped.is_none();
            }
        }
    }

    /// Handles one popped event; returns false for a stale timer (not a step).
    fn process(&mut self, pending: Pending<A>) -> bool {
        match pending {
            Pending::Timer { node, generation } => self.process_timer(node, generation),
            Pending::Start(node) => {
                self.progress.steps += 1;
                self.start(node, false);
                true
            }
            Pending::Deliver(delivery) => {
                self.progress.steps += 1;
                self.deliver(delivery);
                true
            }
            Pending::Action(action) => {
                self.progress.steps += 1;
                self.act(*action);
                true
            }
        }
    }

    fn start(&mut self, node: NodeId, restart: bool) {
        if self.nodes[node.index()].status != Status::Up {
            return;
        }
        tracing::debug!(target: "dsim", node = %self.nodes[node.index()].name, restart, "start");
        if self.observing(Kinds::START) {
            let name = self.nodes[node.index()].name.clone();
            self.emit(Event::Start {
                node: name,
                restart,
            });
        }
        self.dispatch(node, |actor, ctx| actor.on_start(ctx));
    }

    fn deliver(&mut self, delivery: Delivery<A::Msg>) {
        let Delivery {
            id, from, to, msg, ..
        } = delivery;
        self.progress.in_flight = self
            .progress
            .in_flight
            .checked_sub(1)
            .expect("a delivery was counted in flight when it was sent");
        let status = self.nodes[to.index()].status;
        let reason = match status {
            Status::Up => None,
            Status::Crashed => Some(DropReason::Crashed),
            Status::Paused => Some(DropReason::Paused),
        };
        if tracing::enabled!(target: "dsim", tracing::Level::DEBUG) {
            tracing::debug!(target: "dsim", from = %self.nodes[from.index()].name,
                to = %self.nodes[to.index()].name, kind = msg.kind(), ?reason, "deliver");
        }
        if let Some(reason) = reason {
            self.drop_message(id, from, to, msg.kind(), reason);
            return;
        }
        self.progress.stats.delivered += 1;
        if self.observing(Kinds::DELIVER) {
            self.emit(Event::Deliver {
                id,
                from: self.nodes[from.index()].name.clone(),
                to: self.nodes[to.index()].name.clone(),
                msg_kind: Cow::Borrowed(msg.kind()),
            });
        }
        let sender = self.nodes[from.index()].identity;
        self.dispatch(to, |actor, ctx| actor.on_message(ctx, sender, msg));
    }

    fn process_timer(&mut self, node: NodeId, generation: u64) -> bool {
        let slot = &mut self.nodes[node.index()];
        let Some(pos) = slot.timers.iter().position(|t| t.generation == generation) else {
            return false; // Cancelled or re-armed since: stale.
        };
        if slot.status == Status::Paused {
            slot.timers[pos].overdue = true;
            return false;
        }
        let timer = slot.timers.remove(pos).timer;
        self.progress.steps += 1;
        if self.observing(Kinds::TIMER) {
            let name = self.nodes[node.index()].name.clone();
            self.emit(Event::Timer {
                node: name,
                timer: timer.clone(),
            });
        }
        self.dispatch(node, |actor, ctx| actor.on_timer(ctx, timer));
        true
    }

    /// Runs a handler of `node` and applies the effects it buffered.
    fn dispatch(&mut self, node: NodeId, handler: impl FnOnce(&mut A, &mut Context<'_, A>)) {
        let mut effects = std::mem::take(&mut self.effects);
        let slot = &mut self.nodes[node.index()];
        let local = slot.clock.local(self.progress.now);
        let mut ctx = Context::new(
            slot.identity,
            self.progress.now,
            local,
            &mut slot.draws,
            &mut effects,
        );
        handler(slot.actor.make_mut(), &mut ctx);
        slot.dirty = true;
        for effect in effects.drain(..) {
            self.apply(node, effect);
        }
        self.effects = effects;
    }

    fn apply(&mut self, node: NodeId, effect: Effect<A>) {
        match effect {
            Effect::Send { to, msg } => self.send(node, to, msg),
            Effect::SetTimer { timer, after } => {
                let slot = &mut self.nodes[node.index()];
                let generation = self.progress.next_generation;
                self.progress.next_generation += 1;
                let pinned = slot.armings.arm();
                let arming = slot.armings.armed();
                let at = self.progress.now + pinned.unwrap_or_else(|| slot.clock.to_true(after));
                match slot.timers.iter_mut().find(|t| t.timer == timer) {
                    Some(t) => {
                        t.generation = generation;
                        t.arming = arming;
                        t.overdue = false;
                        t.due = at;
                    }
                    None => slot.timers.push(PendingTimer {
                        timer,
                        generation,
                        arming,
                        overdue: false,
                        due: at,
                    }),
                }
                self.queue.push(at, Pending::Timer { node, generation });
            }
            Effect::CancelTimer { timer } => {
                self.nodes[node.index()].timers.retain(|t| t.timer != timer);
            }
            Effect::Note(note) => {
                if self.observing_note(&note) {
                    let name = self.nodes[node.index()].name.clone();
                    self.emit(Event::Note { node: name, note });
                }
            }
        }
    }

    /// Sends `msg` from node `from` to whoever is `to`: the node, and each of its twins (a copy
    /// each, routed on its own).
    fn send(&mut self, from: NodeId, to: NodeId, msg: A::Msg) {
        if self.twins.is_empty() || !self.twins.iter().any(|&(of, _)| of == to) {
            return self.send_one(from, to, msg);
        }
        self.send_one(from, to, msg.clone());
        for i in 0..self.twins.len() {
            let (of, twin) = self.twins[i];
            if of == to {
                self.send_one(from, twin, msg.clone());
            }
        }
    }

    fn send_one(&mut self, from: NodeId, to: NodeId, msg: A::Msg) {
        self.progress.next_msg += 1;
        self.progress.stats.sent += 1;
        let id = MsgId(self.progress.next_msg);
        let kind = msg.kind();
        let known = to.index() < self.nodes.len();
        if self.observing(Kinds::SEND) {
            let to_name: Name = if known {
                self.nodes[to.index()].name.clone()
            } else {
                Name::from(format!("#{}", to.0))
            };
            self.emit(Event::Send {
                id,
                from: self.nodes[from.index()].name.clone(),
                to: to_name,
                msg: msg.clone(),
            });
        }
        let route = if !known {
            Route::Drop(DropReason::UnknownNode)
        } else if from == to {
            Route::Deliver {
                latency: Duration::ZERO,
                copy: None,
            }
        } else {
            self.network.route(id, from, to, kind, self.progress.now)
        };
        match route {
            Route::Drop(reason) => {
                tracing::debug!(target: "dsim", kind, %reason, "drop at send");
                self.drop_message(id, from, to, kind, reason);
            }
            Route::Deliver { latency, copy } => {
                if let Some(delay) = copy {
                    self.progress.stats.duplicated += 1;
                    if self.observing(Kinds::DUPLICATE) {
                        self.emit(Event::Duplicate {
                            id,
                            from: self.nodes[from.index()].name.clone(),
                            to: self.nodes[to.index()].name.clone(),
                            msg_kind: Cow::Borrowed(kind),
                            delay,
                        });
                    }
                    self.enqueue_delivery(self.progress.now + delay, id, from, to, msg.clone());
                }
                self.enqueue_delivery(self.progress.now + latency, id, from, to, msg);
            }
        }
    }

    /// Counts a message that never arrives (or arrives where it cannot be taken) and records
    /// why, naming an unknown receiver by its number.
    fn drop_message(
        &mut self,
        id: MsgId,
        from: NodeId,
        to: NodeId,
        kind: &'static str,
        reason: DropReason,
    ) {
        self.progress.stats.dropped += 1;
        if self.observing(Kinds::DROP) {
            let to: Name = match self.nodes.get(to.index()) {
                Some(node) => node.name.clone(),
                None => Name::from(format!("#{}", to.0)),
            };
            self.emit(Event::Drop {
                id,
                from: self.nodes[from.index()].name.clone(),
                to,
                msg_kind: Cow::Borrowed(kind),
                reason,
            });
        }
    }

    fn enqueue_delivery(&mut self, at: Instant, id: MsgId, from: NodeId, to: NodeId, msg: A::Msg) {
        self.progress.in_flight += 1;
        if self.progress.in_flight > self.limits.max_in_flight {
            self.progress.stopped = Some(StopReason::InFlightLimit);
        }
        let key = if self.untimed {
            untimed::message_key(from, to, &msg, false)
        } else {
            0
        };
        self.queue.push(
            at,
            Pending::Deliver(Delivery {
                id,
                from,
                to,
                msg,
                copied: false,
                key,
            }),
        );
    }
}
