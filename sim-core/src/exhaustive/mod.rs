//! Exhaustive exploration: every order of deliveries, timer firings and timeline steps of a
//! small configuration, each distinct state visited once.
//!
//! The run is untimed (see [`Sim::go_untimed`]): the clock stands still, any message in flight
//! may arrive next, any pending timer may fire, and the timeline's next step may happen; within
//! a budget a message may also be lost or arrive twice. States are merged by
//! [`Sim::untimed_hash`] together with the budgets left, so two paths to one state are explored
//! once, and two states that differ only in what an invariant remembers are not merged. Every
//! invariant is checked in every state, as in a timed run (the same checkers read the same
//! records); `sometimes` properties say what must be reachable, and each gets an example path.
//!
//! Breadth-first search finds a shortest path to the first violation; depth-first search keeps
//! less in memory. Both visit the same states, so their counts agree, and so do runs on more
//! threads: breadth-first levels are expanded in parallel and merged in frontier order, so the
//! counts, the paths and the order of discovery do not depend on the thread count; depth first
//! without a bound walks on several threads for the counts, and takes its paths from a walk on
//! one that stops once it has them (`parallel.rs`). The depth it reports is the deepest its
//! walk went, which on several threads depends on who got where first. A path is
//! a list of [`Move`]s from the initial state; [`timed`] turns it into the choices of a timed
//! run that replays it.

mod disk;
mod fingerprints;
mod model;
mod parallel;
mod pct;
mod timed;
mod visited;

pub use disk::{DiskFrontier, checkpoint_path};
pub use fingerprints::Fingerprints;
pub use model::{Expanded, Judged, Model, Searchable, Successor};
pub use pct::{PctOptions, PctWalk, pct_bound, pct_walk};
pub use timed::{TimedPath, timed};

use crate::Actor;
use crate::check::Violation;
use crate::hash::{BufferHasher, stable_hash};
use crate::kernel::{ActorCache, EffectBuffer, IgnoredAnswers, Move, MoveKind, Packed, Sim};
use visited::{Reach, Reaches, Seen, Visited};

/// Which way the state graph is walked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Order {
    /// Breadth first: level by level, shortest paths, a wide frontier in memory.
    #[default]
    Bfs,
    /// Depth first: one path at a time, little in memory, paths not shortest.
    Dfs,
}

/// A property that some reachable state must have ("a value is chosen"), with the predicate
/// that recognises such a state.
#[derive(Clone, Copy)]
pub struct Sometimes<A: Actor> {
    /// What must be reachable, in words: "a value is chosen".
    pub name: &'static str,
    /// Whether a state has it.
    pub holds: fn(&Sim<A>) -> bool,
}

impl<A: Actor> std::fmt::Debug for Sometimes<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sometimes")
            .field("name", &self.name)
            .finish()
    }
}

/// Whether a state is inside a search's boundary.
pub type Boundary<A> = std::sync::Arc<dyn Fn(&Sim<A>) -> bool + Send + Sync>;

/// Whether the process has reached its memory budget. The caller measures (the kernel reads
/// no state of the operating system); a search asks every [`BUDGET_EVERY`] states on each
/// thread, and once told yes stops, incomplete, with what it found so far.
#[derive(Clone)]
pub struct MemoryGauge(std::sync::Arc<dyn Fn() -> bool + Send + Sync>);

impl MemoryGauge {
    /// A gauge that says the budget is reached when `reached` says so.
    pub fn new(reached: impl Fn() -> bool + Send + Sync + 'static) -> Self {
        MemoryGauge(std::sync::Arc::new(reached))
    }

    /// Whether the budget is reached.
    pub fn reached(&self) -> bool {
        (self.0)()
    }
}

impl std::fmt::Debug for MemoryGauge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MemoryGauge")
    }
}

/// Two gauges are the same when they are one gauge.
impl PartialEq for MemoryGauge {
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for MemoryGauge {}

/// A flag that stops a search at once (raised by a Ctrl-C handler): the search looks at it
/// when it looks at its memory gauge, and stops, incomplete.
#[derive(Clone, Debug, Default)]
pub struct Interrupt(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl Interrupt {
    /// Tells the search to stop.
    pub fn raise(&self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Whether the search was told to stop.
    pub fn is_raised(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// Two flags are the same when they are one flag.
impl PartialEq for Interrupt {
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Interrupt {}

/// How many states a search thread visits between two looks at the memory gauge: often enough
/// that a level never outgrows the budget by much, seldom enough to cost nothing.
pub const BUDGET_EVERY: u64 = 4_096;

/// How a search is bounded and run.
#[derive(Clone)]
pub struct Options<A: Actor> {
    /// Breadth or depth first.
    pub order: Order,
    /// States this many moves from the start are not expanded.
    pub max_depth: Option<u32>,
    /// How many messages a path may lose.
    pub loss_budget: u32,
    /// How many messages a path may duplicate.
    pub dup_budget: u32,
    /// Threads expanding breadth-first levels or walking depth first (one under a depth bound).
    pub jobs: usize,
    /// Stop (incomplete) after this many unique states: no search runs away with the memory.
    pub max_states: u64,
    /// Keep exploring after a violation, to count every state.
    pub keep_going: bool,
    /// States outside this boundary (a Raft term past a bound) are neither counted nor
    /// expanded.
    pub within: Option<Boundary<A>>,
    /// Whether a delivery its receiver ignores (see [`Sim::is_ignored`]) is no move, the
    /// message staying in flight (stateright's semantics), rather than a move that consumes
    /// it. The protocol says which it follows (`Protocol::IGNORED_MESSAGES_WAIT`).
    pub ignored_wait: bool,
    /// Interchangeable nodes: states that are renamings of each other are merged (see
    /// [`crate::symmetry`]). `None` merges only states that are the same.
    pub symmetry: Option<std::sync::Arc<crate::symmetry::Symmetry>>,
    /// The memory budget: the search stops (incomplete) once this says it is reached. `None`
    /// never stops for memory.
    pub over_budget: Option<MemoryGauge>,
    /// Breadth first with the frontier on disk (see [`DiskFrontier`]) rather than in memory.
    pub disk: Option<DiskFrontier>,
    /// Set (by a Ctrl-C handler) to stop the search at once, incomplete; one with its frontier
    /// on disk can be resumed from its last level.
    pub interrupt: Option<Interrupt>,
}

impl<A: Actor> Default for Options<A> {
    fn default() -> Self {
        Options {
            order: Order::Bfs,
            max_depth: None,
            loss_budget: 0,
            dup_budget: 0,
            jobs: 1,
            max_states: 50_000_000,
            keep_going: false,
            within: None,
            ignored_wait: false,
            symmetry: None,
            over_budget: None,
            disk: None,
            interrupt: None,
        }
    }
}

impl<A: Actor> Options<A> {
    /// Whether the memory budget is reached (never, without a gauge).
    fn budget_reached(&self) -> bool {
        self.over_budget.as_ref().is_some_and(MemoryGauge::reached)
    }

    /// Whether the search was told to stop (see [`Options::interrupt`]).
    fn interrupted(&self) -> bool {
        self.interrupt.as_ref().is_some_and(Interrupt::is_raised)
    }
}

/// Counts of a search.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Distinct states visited (inside the boundary).
    pub unique_states: u64,
    /// Moves taken from visited states (each leads to a new or an already seen state).
    pub transitions: u64,
    /// The largest number of moves from the start to a visited state.
    pub max_depth: u32,
    /// States with nothing left to happen (and no violation).
    pub terminal: u64,
    /// Whether every reachable state (within the bounds) was visited: false when the search
    /// stopped at a violation or at `max_states`.
    pub complete: bool,
    /// Whether the search stopped at `max_states`.
    pub hit_state_limit: bool,
    /// Whether the search stopped at its memory budget ([`Options::over_budget`]).
    pub hit_memory_limit: bool,
    /// Whether the search was stopped by [`Options::interrupt`].
    pub interrupted: bool,
    /// Whether some state was not expanded because of `max_depth`.
    pub hit_depth_limit: bool,
    /// Whether some state stopped at a run limit (more messages in flight than the file's
    /// limits allow) and was not expanded.
    pub hit_run_limit: bool,
}

/// A violation found, and the moves from the start to the state where it happened.
#[derive(Clone, Debug)]
pub struct Found {
    /// The violations of that state (usually one).
    pub violations: Vec<Violation>,
    /// The moves that lead there from the initial state.
    pub path: Vec<Move>,
}

/// What a search of a `sometimes` property found.
#[derive(Clone, Debug)]
pub struct Reached {
    /// The property's name.
    pub name: &'static str,
    /// A path to a state that has it (a shortest one, breadth first); `None` if unreachable
    /// (or not reached before the search stopped).
    pub example: Option<Vec<Move>>,
}

/// What a search found.
#[derive(Clone, Debug)]
pub struct Report {
    /// The counts.
    pub stats: Stats,
    /// The first violation in search order (breadth first: on a shortest path).
    pub violation: Option<Found>,
    /// Each `sometimes` property, in the order given.
    pub sometimes: Vec<Reached>,
    /// Why the search could not go on, if it could not: the files of a frontier on disk could
    /// not be written or read. The counts are then those of the last level done.
    pub failure: Option<String>,
}

/// A state being expanded, or waiting on a depth-first stack. The simulation is boxed, so
/// moving one between vectors moves 40 bytes (a breadth-first level keeps [`Stored`] states).
struct Frontier<A: Actor> {
    sim: Box<Sim<A>>,
    fp: u64,
    depth: u32,
    losses: u32,
    dups: u32,
}

/// A state waiting in a breadth-first level, packed (see [`Packed`]): a level holds hundreds
/// of thousands of these, and a packed state is about half the size of its run.
struct Stored<A: Actor> {
    packed: Packed<A>,
    fp: u64,
    depth: u32,
    losses: u32,
    dups: u32,
}

impl<A: Actor> Frontier<A> {
    /// This state, packed for a breadth-first level, its network shared with `network` if
    /// it is the same.
    fn pack(
        &self,
        network: Option<&std::sync::Arc<crate::net::Network>>,
        actors: Option<&mut ActorCache<A>>,
    ) -> Stored<A> {
        Stored {
            packed: self.sim.pack_sharing(network, actors),
            fp: self.fp,
            depth: self.depth,
            losses: self.losses,
            dups: self.dups,
        }
    }

    /// Makes `into` the state that `mv`, a move listed for this very state, leads to (its
    /// fingerprint left to the caller): the step of a replay, which needs no boundary or
    /// ignored-delivery check, the move having passed them when it was recorded.
    fn replay_into(&self, mv: Move, into: &mut Frontier<A>, effects: &mut EffectBuffer<A>) {
        Sim::clone_from(&mut into.sim, &self.sim);
        into.sim.take_with(mv, effects);
        into.depth = self.depth + 1;
        into.losses = self.losses - u32::from(mv.kind == MoveKind::Lose);
        into.dups = self.dups - u32::from(mv.kind == MoveKind::Duplicate);
    }

    /// A copy (the actors shared until one changes).
    fn copy(&self) -> Frontier<A> {
        Frontier {
            sim: self.sim.clone(),
            ..*self
        }
    }

    /// The state `mv` leads to, one move farther from the start and fingerprinted, or `None`
    /// when `mv` is no move (a delivery its receiver ignores, where such messages wait) or
    /// leads outside the search's boundary.
    fn after(
        &self,
        mv: Move,
        options: &Options<A>,
        answers: &mut IgnoredAnswers,
        scratch: &mut Scratch<A>,
    ) -> Option<Frontier<A>> {
        if options.ignored_wait && self.sim.is_ignored(mv, answers) {
            return None;
        }
        let mut sim = scratch.copy(&self.sim);
        sim.take_with(mv, &mut scratch.effects);
        if options.within.as_ref().is_some_and(|w| !w(&sim)) {
            scratch.recycle_run(sim);
            return None;
        }
        let losses = self.losses - u32::from(mv.kind == MoveKind::Lose);
        let dups = self.dups - u32::from(mv.kind == MoveKind::Duplicate);
        Some(Frontier {
            fp: fingerprint(&sim, losses, dups, options, &mut scratch.hash),
            sim,
            depth: self.depth + 1,
            losses,
            dups,
        })
    }

    /// The end-of-run checks of a terminal state the search is done with, run on the state
    /// itself (no copy). Its trace is turned off first: the root is the caller's run, whose
    /// sink is not the search's to write.
    fn end_checks(&mut self) -> Vec<Violation> {
        self.sim.set_trace(crate::TraceMode::Off);
        self.sim.finish().violations
    }
}

/// What one thread reuses from one state's expansion to the next.
struct Work<A: Actor> {
    moves: Vec<Move>,
    scratch: Scratch<A>,
    answers: IgnoredAnswers,
}

impl<A: Actor> Default for Work<A> {
    fn default() -> Self {
        Work {
            moves: Vec::new(),
            scratch: Scratch::default(),
            answers: IgnoredAnswers::default(),
        }
    }
}

/// What one thread reuses from one child state to the next: the hashing buffers, and runs
/// to copy children into. A child reached before goes back here ([`Scratch::recycle`]), and
/// so does a depth-first search's state once its subtree is done, so that copying a child
/// reuses a run's buffers instead of allocating and freeing a state each move.
pub(crate) struct Scratch<A: Actor> {
    hash: BufferHasher,
    /// Boxed as a state's run is (`Frontier::sim`), so a spare moves in and out as a pointer.
    #[allow(clippy::vec_box)]
    spares: Vec<Box<Sim<A>>>,
    /// Move lists of states done with, likewise.
    move_lists: Vec<Vec<Move>>,
    /// The effect buffer lent to each child's step.
    effects: EffectBuffer<A>,
    /// The network of the state last unpacked, for its children's packed states to share.
    network: Option<std::sync::Arc<crate::net::Network>>,
    /// The actors this thread packed lately, for other states' equal actors to share.
    actors: ActorCache<A>,
}

impl<A: Actor> Default for Scratch<A> {
    fn default() -> Self {
        Scratch {
            hash: Default::default(),
            spares: Vec::new(),
            move_lists: Vec::new(),
            effects: EffectBuffer::default(),
            network: None,
            actors: ActorCache::default(),
        }
    }
}

/// How many spare runs a thread keeps: a depth-first search frees a state as often as it
/// keeps one, so a few suffice.
const SPARES: usize = 4;

impl<A: Actor> Scratch<A> {
    /// Keeps the run of a state that will not be explored (again), for a later child's copy.
    fn recycle(&mut self, state: Frontier<A>) {
        self.recycle_run(state.sim);
    }

    fn recycle_run(&mut self, sim: Box<Sim<A>>) {
        if self.spares.len() < SPARES {
            self.spares.push(sim);
        }
    }

    /// The state's moves (see `Sim::moves`), in a spare list when there is one.
    fn moves_of(&mut self, state: &Frontier<A>) -> Vec<Move> {
        let mut moves = self.move_lists.pop().unwrap_or_default();
        state
            .sim
            .moves(state.losses > 0, state.dups > 0, &mut moves);
        moves
    }

    /// Keeps a move list done with, for a later state's.
    fn recycle_moves(&mut self, moves: Vec<Move>) {
        if self.move_lists.len() < SPARES {
            self.move_lists.push(moves);
        }
    }

    /// The state `stored` unpacked, in a spare run (or else a copy of `template`, a run of the
    /// same search).
    fn unpack(&mut self, stored: &Stored<A>, template: &Sim<A>) -> Frontier<A> {
        let mut sim = self
            .spares
            .pop()
            .unwrap_or_else(|| Box::new(template.clone()));
        sim.unpack_from(&stored.packed);
        self.network = Some(std::sync::Arc::clone(stored.packed.network()));
        Frontier {
            sim,
            fp: stored.fp,
            depth: stored.depth,
            losses: stored.losses,
            dups: stored.dups,
        }
    }

    /// A copy of `sim`, in a spare run's buffers when there is one.
    fn copy(&mut self, sim: &Sim<A>) -> Box<Sim<A>> {
        match self.spares.pop() {
            Some(mut spare) => {
                Sim::clone_from(&mut spare, sim);
                spare
            }
            None => Box::new(sim.clone()),
        }
    }
}

/// How an expansion keeps the states to expand next.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Keep {
    /// As they are (depth first's stack).
    AsTheyAre,
    /// Packed, in `stored` (breadth first's next level in memory).
    Packed,
    /// Not at all: the level being made on disk has their way there.
    Elsewhere,
}

/// What one thread found expanding its part of a level.
struct Expansion<A: Actor> {
    /// The states to expand next: the new ones (first reached by this thread), and under a
    /// depth bound those reached closer to the start than before.
    next: Vec<Frontier<A>>,
    /// The states to expand next, packed, when the search keeps its frontier so (breadth
    /// first); then `next` stays empty.
    stored: Vec<Stored<A>>,
    /// How states to expand next are kept.
    keep: Keep,
    /// How many of `next` (or `stored`) are new.
    new_states: u64,
    /// Whether some state stopped at a run limit (the in-flight bound) and was not expanded.
    limited: bool,
    /// Whether the memory budget stopped this expansion before its end.
    over_budget: bool,
    transitions: u64,
    terminal: u64,
    /// The smallest fingerprint among the new states that break an invariant.
    violation: Option<(u64, Vec<Violation>)>,
    /// Per `sometimes` property, the smallest fingerprint among the new states that have it.
    reached: Vec<Option<u64>>,
}

impl<A: Actor> Expansion<A> {
    /// Nothing found yet, with room for `sometimes` properties.
    fn new(sometimes: usize) -> Self {
        Expansion {
            next: Vec::new(),
            stored: Vec::new(),
            keep: Keep::AsTheyAre,
            new_states: 0,
            limited: false,
            over_budget: false,
            transitions: 0,
            terminal: 0,
            violation: None,
            reached: vec![None; sometimes],
        }
    }

    /// Keeps `child` to be expanded next: packed (its run going back to the spares), or as it
    /// is.
    fn keep(&mut self, child: Frontier<A>, scratch: &mut Scratch<A>) {
        match self.keep {
            Keep::Packed => {
                let packed = child.pack(scratch.network.as_ref(), Some(&mut scratch.actors));
                self.stored.push(packed);
                scratch.recycle(child);
            }
            Keep::AsTheyAre => self.next.push(child),
            Keep::Elsewhere => scratch.recycle(child),
        }
    }

    /// Adds what another thread found expanding its share of the same level: counts summed,
    /// and of the candidates, the least fingerprint, whatever thread found it.
    fn add_share(&mut self, e: &mut Expansion<A>) {
        self.transitions += e.transitions;
        self.terminal += e.terminal;
        self.new_states += e.new_states;
        self.limited |= e.limited;
        self.over_budget |= e.over_budget;
        self.violation = least(self.violation.take(), e.violation.take());
        for (m, r) in self.reached.iter_mut().zip(&e.reached) {
            *m = least(m.map(|f| (f, ())), r.map(|f| (f, ()))).map(|(f, ())| f);
        }
    }

    /// The deepest state kept to expand next.
    fn deepest(&self) -> Option<u32> {
        let next = self.next.iter().map(|s| s.depth);
        next.chain(self.stored.iter().map(|s| s.depth)).max()
    }
}

/// Explores every state reachable from `start` (a run already made untimed, with its
/// timeline scheduled). `progress` is called now and then with the counts so far.
pub fn explore<A: Actor>(
    start: Sim<A>,
    options: &Options<A>,
    sometimes: &[Sometimes<A>],
    progress: &mut dyn FnMut(&Stats),
) -> Report {
    let origin = start.clone();
    let root = fingerprint(
        &start,
        options.loss_budget,
        options.dup_budget,
        options,
        &mut Default::default(),
    );
    let mut search = Search {
        options,
        sometimes,
        visited: Visited::default(),
        stats: Stats::default(),
        violation: None,
        reached: vec![None; sometimes.len()],
        paths: vec![(root, Vec::new())],
        goal: None,
    };
    let first = Frontier {
        sim: Box::new(start),
        fp: root,
        depth: 0,
        losses: options.loss_budget,
        dups: options.dup_budget,
    };
    let mut failure = None;
    if options.within.as_ref().is_none_or(|w| w(&first.sim)) {
        search.visited.reach(
            root,
            Seen {
                parent: root,
                mv: ROOT_MOVE,
                depth: 0,
            },
        );
        search.stats.unique_states = 1;
        if !first.sim.violations().is_empty() {
            search.violation = Some((root, first.sim.violations().to_vec()));
        }
        for (i, s) in sometimes.iter().enumerate() {
            if (s.holds)(&first.sim) {
                search.reached[i] = Some(root);
            }
        }
        match (options.order, options.max_depth) {
            (Order::Bfs, _) if options.disk.is_some() => {
                if let Err(error) = search.bfs_on_disk(first, &origin, progress) {
                    failure = Some(error.to_string());
                }
            }
            (Order::Bfs, _) => search.bfs(first, progress),
            (Order::Dfs, Some(_)) => search.dfs(first, progress),
            (Order::Dfs, None) if options.jobs > 1 => search.dfs_parallel(first, progress),
            (Order::Dfs, None) => search.dfs_light(first, progress),
        }
    }
    search.stats.complete = !search.stop()
        && !search.stats.hit_state_limit
        && !search.stats.hit_run_limit
        && failure.is_none();
    let paths: Vec<Option<Vec<Move>>> = search
        .reached
        .iter()
        .map(|r| r.map(|fp| search.path_to(fp, &origin)))
        .collect();
    // The violation's words come from a replay of its path, not from whichever copy of the
    // state a thread kept: they then describe the path reported, at any thread count.
    let violation = search.violation.take().map(|(fp, _)| {
        let path = search.path_to(fp, &origin);
        let violations = violations_at(&origin, &path);
        Found { violations, path }
    });
    Report {
        stats: search.stats,
        violation,
        sometimes: sometimes
            .iter()
            .zip(paths)
            .map(|(s, example)| Reached {
                name: s.name,
                example,
            })
            .collect(),
        failure,
    }
}

/// The violations of the state `path` leads to from `start`: those of a step, or else its
/// end-of-run checks' (a terminal state judged as at a run's end).
fn violations_at<A: Actor>(start: &Sim<A>, path: &[Move]) -> Vec<Violation> {
    let mut end = follow(start, path);
    match end.violations() {
        [] => end.finish().violations,
        found => found.to_vec(),
    }
}

/// Replays `path` from `start` (the state the search began from): the state it leads to.
pub fn follow<A: Actor>(start: &Sim<A>, path: &[Move]) -> Sim<A> {
    let mut sim = start.clone();
    for &mv in path {
        sim.take(mv);
    }
    sim
}

/// The root's stand-in for "the move that led here".
const ROOT_MOVE: Move = Move::ROOT;

/// A state's fingerprint: its untimed hash (up to the options' symmetry) and the budgets it
/// has left.
fn fingerprint<A: Actor>(
    sim: &Sim<A>,
    losses: u32,
    dups: u32,
    options: &Options<A>,
    h: &mut BufferHasher,
) -> u64 {
    let hash = match &options.symmetry {
        Some(symmetry) => sim.symmetric_hash(symmetry, h),
        None => sim.untimed_hash(h),
    };
    stable_hash(&(hash, losses, dups))
}

struct Search<'a, A: Actor> {
    options: &'a Options<A>,
    sometimes: &'a [Sometimes<A>],
    visited: Visited,
    stats: Stats,
    violation: Option<(u64, Vec<Violation>)>,
    reached: Vec<Option<u64>>,
    /// The paths to the states a search reports (its violation, its examples) when it keeps
    /// no way back in `visited` (depth first without a bound keeps only fingerprints).
    paths: Vec<(u64, Vec<Move>)>,
    /// What a search walks for and stops at once it has: a violation (if `.0`) and an example
    /// of each `sometimes` property marked in `.1`. `None` walks everything.
    goal: Option<(bool, Vec<bool>)>,
}

/// How often (in states) depth-first search calls the progress callback.
const PROGRESS_EVERY: u64 = 1 << 14;

/// The smaller-fingerprint one of two candidates (for choices that must not depend on order).
fn least<T>(a: Option<(u64, T)>, b: Option<(u64, T)>) -> Option<(u64, T)> {
    match (a, b) {
        (Some(x), Some(y)) => Some(if y.0 < x.0 { y } else { x }),
        (x, None) => x,
        (None, y) => y,
    }
}

impl<A: Actor> Search<'_, A> {
    /// Whether the search is over before every state was seen.
    fn stop(&self) -> bool {
        if let Some((violation, reached)) = &self.goal {
            let all = reached
                .iter()
                .zip(&self.reached)
                .all(|(wanted, r)| !wanted || r.is_some());
            if all && (!violation || self.violation.is_some()) {
                return true;
            }
        }
        (self.violation.is_some() && !self.options.keep_going)
            || self.stats.hit_state_limit
            || self.stats.hit_memory_limit
            || self.stats.interrupted
    }

    /// Expands `state` (at index `at` of its level, which only a level on disk reads): each
    /// successor inside the boundary is counted and recorded in `visited`, and the new ones are
    /// judged and kept to expand next ([`Expansion::keep`]).
    fn expand(
        options: &Options<A>,
        sometimes: &[Sometimes<A>],
        visited: &impl Reaches,
        state: &Frontier<A>,
        at: u64,
        work: &mut Work<A>,
        out: &mut Expansion<A>,
    ) {
        let Work {
            moves,
            scratch,
            answers,
        } = work;
        state.sim.moves(state.losses > 0, state.dups > 0, moves);
        let mut any = false;
        for &mv in moves.iter() {
            let Some(child) = state.after(mv, options, answers, scratch) else {
                continue;
            };
            any = true;
            out.transitions += 1;
            let fp = child.fp;
            let seen = Seen {
                parent: state.fp,
                mv,
                depth: child.depth,
            };
            match visited.reach(fp, seen, at) {
                Reach::Seen => {
                    scratch.recycle(child);
                    continue;
                }
                Reach::Closer if options.max_depth.is_some() => {
                    out.keep(child, scratch);
                    continue;
                }
                Reach::Closer => {
                    scratch.recycle(child);
                    continue;
                }
                Reach::New => out.new_states += 1,
            }
            if !child.sim.violations().is_empty() {
                let candidate = Some((fp, child.sim.violations().to_vec()));
                out.violation = least(out.violation.take(), candidate);
            }
            for (i, s) in sometimes.iter().enumerate() {
                if (s.holds)(&child.sim) {
                    out.reached[i] =
                        least(out.reached[i].map(|f| (f, ())), Some((fp, ()))).map(|(f, ())| f);
                }
            }
            out.keep(child, scratch);
        }
        if !any && state.sim.violations().is_empty() {
            out.terminal += 1;
            // Nothing left to happen: the end-of-run checks judge it, as at a run's end.
            let ended = state.sim.clone().finish();
            if !ended.violations.is_empty() {
                out.violation = least(out.violation.take(), Some((state.fp, ended.violations)));
            }
        }
    }

    fn empty_expansion(&self) -> Expansion<A> {
        Expansion::new(self.sometimes.len())
    }

    /// Folds a thread's findings into the search's.
    fn absorb(&mut self, e: &mut Expansion<A>) {
        self.stats.transitions += e.transitions;
        self.stats.terminal += e.terminal;
        self.stats.unique_states += e.new_states;
        self.stats.hit_run_limit |= e.limited;
        if let Some(max) = e.deepest() {
            self.stats.max_depth = self.stats.max_depth.max(max);
        }
        if self.violation.is_none() {
            self.violation = e.violation.take();
        }
        for (mine, theirs) in self.reached.iter_mut().zip(&e.reached) {
            if mine.is_none() {
                *mine = *theirs;
            }
        }
    }

    /// Breadth first, a level at a time. A level's states are expanded on `jobs` threads
    /// (each a share of them) against one visited set; the next level is the set of states
    /// first reached from it, whatever the order, so the counts are the same at any thread
    /// count. Where a choice among the level's states is made (the violation reported, each
    /// `sometimes` example, a state's way there), the smallest fingerprint wins, so the paths
    /// are the same too. Limits are looked at between levels. A level's states wait packed
    /// (see [`Packed`]), and each is unpacked into a spare run when it is expanded.
    fn bfs(&mut self, first: Frontier<A>, progress: &mut dyn FnMut(&Stats)) {
        let jobs = self.options.jobs.max(1);
        let mut level = vec![first.pack(None, None)];
        // Runs are not shared between threads: each share gets its own copy of the start to
        // unpack states into when it has no spare run.
        let template = first.sim;
        while !level.is_empty() && !self.stop() {
            if let Some(bound) = self.options.max_depth
                && level[0].depth >= bound
            {
                self.stats.hit_depth_limit = true;
                break;
            }
            if level.iter().any(|s| {
                s.packed
                    .stopped()
                    .is_some_and(|r| r != crate::StopReason::Violation)
            }) {
                self.stats.hit_run_limit = true;
            }
            level.retain(|s| s.packed.stopped().is_none());
            // Contiguous shares: siblings (which share most of their actors) stay on one
            // thread, so threads seldom touch the same reference counts.
            let per_share = level.len().div_ceil(jobs).max(1);
            let mut shares: Vec<Vec<Stored<A>>> = (0..jobs).map(|_| Vec::new()).collect();
            for (i, state) in level.into_iter().enumerate() {
                shares[(i / per_share).min(jobs - 1)].push(state);
            }
            let (options, sometimes, visited) = (self.options, self.sometimes, &self.visited);
            // One share of the level, expanded: on this thread, or on one of `jobs`.
            let expand_share = move |(share, template): (Vec<Stored<A>>, Box<Sim<A>>)| {
                let mut out = Expansion::new(sometimes.len());
                out.keep = Keep::Packed;
                let mut work = Work::default();
                for (i, stored) in share.into_iter().enumerate() {
                    if i as u64 % BUDGET_EVERY == BUDGET_EVERY - 1
                        && (options.budget_reached() || options.interrupted())
                    {
                        out.over_budget = true;
                        break;
                    }
                    let state = work.scratch.unpack(&stored, &template);
                    drop(stored);
                    Self::expand(options, sometimes, visited, &state, 0, &mut work, &mut out);
                    work.scratch.recycle(state);
                }
                out
            };
            let shares = shares.into_iter().map(|share| (share, template.clone()));
            let mut expansions: Vec<Expansion<A>> = if jobs == 1 {
                shares.map(expand_share).collect()
            } else {
                // The first share on this thread, whose allocator heap lives from level to
                // level (a spawned thread's is handed back when the thread ends), the rest on
                // threads of their own.
                let mut shares = shares;
                let first = shares.next().expect("at least one share");
                std::thread::scope(|scope| {
                    let handles: Vec<_> = shares
                        .map(|share| scope.spawn(move || expand_share(share)))
                        .collect();
                    let mut done = vec![expand_share(first)];
                    done.extend(
                        handles
                            .into_iter()
                            .map(|h| h.join().expect("an exploring thread panicked")),
                    );
                    done
                })
            };
            // The level's findings, least fingerprint first, whatever thread found them.
            let mut merged = self.empty_expansion();
            merged
                .stored
                .reserve_exact(expansions.iter().map(|e| e.stored.len()).sum());
            for e in &mut expansions {
                merged.add_share(e);
                merged.stored.append(&mut e.stored);
            }
            self.absorb(&mut merged);
            if self.stats.unique_states >= self.options.max_states {
                self.stats.hit_state_limit = true;
            }
            self.stats.interrupted |= self.options.interrupted();
            self.stats.hit_memory_limit |=
                self.options.budget_reached() || (merged.over_budget && !self.stats.interrupted);
            progress(&self.stats);
            level = merged.stored;
        }
    }

    fn dfs(&mut self, first: Frontier<A>, progress: &mut dyn FnMut(&Stats)) {
        let mut stack = vec![first];
        let mut work = Work::default();
        let mut last_progress = 0;
        let mut last_budget = 0;
        while let Some(state) = stack.pop() {
            if self.stop() {
                break;
            }
            if let Some(reason) = state.sim.stopped() {
                self.stats.hit_run_limit |= reason != crate::StopReason::Violation;
                continue;
            }
            if self.options.max_depth.is_some_and(|d| state.depth >= d) {
                self.stats.hit_depth_limit = true;
                continue;
            }
            let mut out = self.empty_expansion();
            Self::expand(
                self.options,
                self.sometimes,
                &self.visited,
                &state,
                0,
                &mut work,
                &mut out,
            );
            self.absorb(&mut out);
            // Pushed in reverse, so the first move is explored first.
            stack.extend(out.next.into_iter().rev());
            if self.stats.unique_states >= self.options.max_states {
                self.stats.hit_state_limit = true;
            }
            if self.stats.unique_states - last_budget >= BUDGET_EVERY {
                last_budget = self.stats.unique_states;
                self.stats.hit_memory_limit |= self.options.budget_reached();
                self.stats.interrupted |= self.options.interrupted();
            }
            if self.stats.unique_states - last_progress >= PROGRESS_EVERY {
                last_progress = self.stats.unique_states;
                progress(&self.stats);
            }
        }
        progress(&self.stats);
    }

    /// Depth first with no depth bound, keeping only fingerprints (see [`fingerprints`]):
    /// the stack holds one state per move of the current path, each with the moves left to
    /// try from it, so the path to a state is the stack's moves and needs no parent links.
    /// The states visited, and so every count, are those of [`Search::dfs`] and of
    /// breadth-first search.
    fn dfs_light(&mut self, first: Frontier<A>, progress: &mut dyn FnMut(&Stats)) {
        /// A state on the current path, the move that led to it, and its moves still to try.
        struct Step<A: Actor> {
            state: Frontier<A>,
            via: Move,
            moves: Vec<Move>,
            next: usize,
            /// Whether some move from it stayed inside the boundary.
            any: bool,
        }
        let mut seen = fingerprints::Fingerprints::default();
        let mut answers = IgnoredAnswers::default();
        seen.insert(first.fp);
        let mut scratch = Scratch::<A>::default();
        let options = self.options;
        let mut stack: Vec<Step<A>> = Vec::new();
        let mut last_progress = 0;
        let mut last_budget = 0;
        let open = |state: Frontier<A>,
                    via: Move,
                    stats: &mut Stats,
                    scratch: &mut Scratch<A>|
         -> Option<Step<A>> {
            if let Some(reason) = state.sim.stopped() {
                stats.hit_run_limit |= reason != crate::StopReason::Violation;
                return None;
            }
            let moves = scratch.moves_of(&state);
            Some(Step {
                state,
                via,
                moves,
                next: 0,
                any: false,
            })
        };
        stack.extend(open(first, ROOT_MOVE, &mut self.stats, &mut scratch));
        while let Some(top) = stack.last_mut() {
            if self.stop() {
                break;
            }
            let Some(&mv) = top.moves.get(top.next) else {
                let mut done = stack.pop().expect("the top is there");
                if !done.any && done.state.sim.violations().is_empty() {
                    self.stats.terminal += 1;
                    let ended = done.state.end_checks();
                    if !ended.is_empty() && self.violation.is_none() {
                        let mut path: Vec<Move> = stack.iter().skip(1).map(|s| s.via).collect();
                        path.extend((!stack.is_empty()).then_some(done.via));
                        self.paths.push((done.state.fp, path));
                        self.violation = Some((done.state.fp, ended));
                    }
                }
                scratch.recycle(done.state);
                scratch.recycle_moves(done.moves);
                continue;
            };
            top.next += 1;
            let Some(child) = top.state.after(mv, options, &mut answers, &mut scratch) else {
                continue;
            };
            top.any = true;
            self.stats.transitions += 1;
            let fp = child.fp;
            if !seen.insert(fp) {
                scratch.recycle(child);
                continue;
            }
            self.stats.unique_states += 1;
            self.stats.max_depth = self.stats.max_depth.max(child.depth);
            let sim = &child.sim;
            let broke = !sim.violations().is_empty() && self.violation.is_none();
            let reached: Vec<usize> = (0..self.sometimes.len())
                .filter(|&i| self.reached[i].is_none() && (self.sometimes[i].holds)(sim))
                .collect();
            if broke || !reached.is_empty() {
                let mut path: Vec<Move> = stack.iter().skip(1).map(|s| s.via).collect();
                path.push(mv);
                self.paths.push((fp, path));
                if broke {
                    self.violation = Some((fp, sim.violations().to_vec()));
                }
                for i in reached {
                    self.reached[i] = Some(fp);
                }
            }
            if let Some(step) = open(child, mv, &mut self.stats, &mut scratch) {
                stack.push(step);
            }
            if self.stats.unique_states >= self.options.max_states {
                self.stats.hit_state_limit = true;
            }
            if self.stats.unique_states - last_budget >= BUDGET_EVERY {
                last_budget = self.stats.unique_states;
                self.stats.hit_memory_limit |= self.options.budget_reached();
                self.stats.interrupted |= self.options.interrupted();
            }
            if self.stats.unique_states - last_progress >= PROGRESS_EVERY {
                last_progress = self.stats.unique_states;
                progress(&self.stats);
            }
        }
        progress(&self.stats);
    }

    /// Depth first with no depth bound on `jobs` threads (see [`parallel`]): the counts are
    /// theirs; the violation and the examples, whose paths depend on which thread gets where
    /// first, are those a one-thread walk finds, which stops as soon as it has them all, so
    /// they are the same as on one thread. A search the violation stops (or the state limit)
    /// is walked again on one thread, for counts that do not depend on timing either.
    fn dfs_parallel(&mut self, first: Frontier<A>, progress: &mut dyn FnMut(&Stats)) {
        if self.stop() {
            // The start itself breaks an invariant: nothing to walk.
            return self.dfs_light(first, progress);
        }
        let again = first.copy();
        let found = parallel::search(
            first,
            self.options,
            self.sometimes,
            self.options.jobs,
            progress,
        );
        if (found.broke && !self.options.keep_going) || found.stats.hit_state_limit {
            return self.dfs_light(again, progress);
        }
        let s = &mut self.stats;
        s.unique_states = found.stats.unique_states;
        s.transitions = found.stats.transitions;
        s.terminal = found.stats.terminal;
        s.max_depth = found.stats.max_depth;
        s.hit_run_limit = found.stats.hit_run_limit;
        s.hit_memory_limit = found.stats.hit_memory_limit;
        s.interrupted = found.stats.interrupted;
        if found.broke || found.reached.contains(&true) {
            let mut walk = Search {
                options: self.options,
                sometimes: self.sometimes,
                visited: Visited::default(),
                stats: Stats::default(),
                violation: self.violation.take(),
                reached: self.reached.clone(),
                paths: std::mem::take(&mut self.paths),
                goal: Some((found.broke, found.reached)),
            };
            walk.dfs_light(again, &mut |_| {});
            self.violation = walk.violation;
            self.reached = walk.reached;
            self.paths = walk.paths;
        }
        progress(&self.stats);
    }

    /// The moves from `origin` (the start) to the visited state `fp`.
    ///
    /// Under symmetry the state kept for a fingerprint may be a renaming of the one its
    /// recorded move leads to (two threads reach a class from different parents, and the
    /// smaller parent is kept as its way there), so the recorded moves are not followed:
    /// the chain of fingerprints is, each step taking the first move of the state in hand
    /// that reaches the next fingerprint (one exists, the states being renamings).
    fn path_to(&self, mut fp: u64, origin: &Sim<A>) -> Vec<Move> {
        if let Some((_, path)) = self.paths.iter().find(|(f, _)| *f == fp) {
            return path.clone();
        }
        let mut path = Vec::new();
        let mut chain = vec![fp];
        loop {
            let seen = self
                .visited
                .get(fp)
                .expect("every state on a path was visited");
            if seen.parent == fp {
                break;
            }
            path.push(seen.mv);
            fp = seen.parent;
            chain.push(fp);
        }
        path.reverse();
        if self.options.symmetry.is_none() {
            return path;
        }
        chain.reverse();
        moves_along(self.options, &chain, origin)
    }
}

/// The moves from `origin` along `chain`, the fingerprints of a path's states from the
/// start's on: from each state in hand, the first move that reaches the next fingerprint.
/// Under symmetry a recorded move may be of a renaming of the state in hand (see
/// `Search::path_to`); this finds the moves of the state itself.
fn moves_along<A: Actor>(options: &Options<A>, chain: &[u64], origin: &Sim<A>) -> Vec<Move> {
    let mut state = Frontier {
        sim: Box::new(origin.clone()),
        fp: chain[0],
        depth: 0,
        losses: options.loss_budget,
        dups: options.dup_budget,
    };
    let (mut answers, mut scratch, mut moves) =
        (IgnoredAnswers::default(), Default::default(), Vec::new());
    let mut found = Vec::with_capacity(chain.len());
    for &next in &chain[1..] {
        state
            .sim
            .moves(state.losses > 0, state.dups > 0, &mut moves);
        let (mv, child) = moves
            .iter()
            .find_map(|&mv| {
                let child = state.after(mv, options, &mut answers, &mut scratch)?;
                (child.fp == next).then_some((mv, child))
            })
            .expect("a renaming of the state kept has a move to the next on the path");
        found.push(mv);
        state = child;
    }
    found
}
