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
//! counts, the paths and the order of discovery do not depend on the thread count. A path is
//! a list of [`Move`]s from the initial state; [`timed`] turns it into the choices of a timed
//! run that replays it.

mod timed;

pub use timed::{TimedPath, timed};

use crate::Actor;
use crate::check::Violation;
use crate::hash::{BufferHasher, stable_hash};
use crate::kernel::{Move, Sim};
use std::collections::VecDeque;

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
    /// Threads expanding breadth-first levels (depth-first search uses one).
    pub jobs: usize,
    /// Stop (incomplete) after this many unique states: no search runs away with the memory.
    pub max_states: u64,
    /// Keep exploring after a violation, to count every state.
    pub keep_going: bool,
    /// States outside this boundary (a Raft term past a bound) are neither counted nor
    /// expanded.
    pub within: Option<Boundary<A>>,
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
        }
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
    /// Whether some state was not expanded because of `max_depth`.
    pub hit_depth_limit: bool,
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
}

/// What the search remembers of a visited state: how it was first reached.
#[derive(Clone, Copy)]
struct Seen {
    parent: u64,
    mv: Move,
}

/// The visited states by fingerprint, and how each was first reached. Fingerprints are
/// already hashes, so the table uses them as they are; it is only ever looked up, never
/// iterated, so its layout cannot reach any output. 24 bytes a state.
#[derive(Default)]
struct Visited {
    table: hashbrown::HashTable<(u64, Seen)>,
}

impl Visited {
    fn get(&self, fp: u64) -> Option<&Seen> {
        self.table.find(fp, |e| e.0 == fp).map(|e| &e.1)
    }
    fn contains_key(&self, fp: &u64) -> bool {
        self.get(*fp).is_some()
    }
    fn insert(&mut self, fp: u64, seen: Seen) {
        self.table.insert_unique(fp, (fp, seen), |e| e.0);
    }
}

/// A state waiting to be expanded.
struct Frontier<A: Actor> {
    sim: Sim<A>,
    fp: u64,
    depth: u32,
    losses: u32,
    dups: u32,
}

/// A state one move away from a frontier state.
struct Successor<A: Actor> {
    next: Frontier<A>,
    parent: u64,
    mv: Move,
}

/// A frontier state expanded by a thread.
struct Expanded<A: Actor> {
    /// Nothing can happen in it (and it violates nothing).
    terminal: bool,
    /// How many moves it has.
    moves: u64,
    /// Its successors not seen before the level.
    fresh: Vec<Successor<A>>,
}

/// Explores every state reachable from `start` (a run already made untimed, with its
/// timeline scheduled). `progress` is called now and then with the counts so far.
pub fn explore<A: Actor>(
    start: Sim<A>,
    options: &Options<A>,
    sometimes: &[Sometimes<A>],
    progress: &mut dyn FnMut(&Stats),
) -> Report {
    let mut search = Search {
        options,
        sometimes,
        visited: Visited::default(),
        stats: Stats::default(),
        violation: None,
        reached: vec![None; sometimes.len()],
        scratch: Vec::new(),
    };
    let root = search.fingerprint(&start, options.loss_budget, options.dup_budget);
    let first = Frontier {
        sim: start,
        fp: root,
        depth: 0,
        losses: options.loss_budget,
        dups: options.dup_budget,
    };
    let inside = options.within.as_ref().is_none_or(|w| w(&first.sim));
    if inside {
        search.visited.insert(
            root,
            Seen {
                parent: root,
                mv: Move::Act(u32::MAX),
            },
        );
        search.stats.unique_states = 1;
        search.judge(&first);
        match options.order {
            Order::Bfs if options.jobs > 1 => search.bfs_parallel(first, progress),
            Order::Bfs => search.bfs(first, progress),
            Order::Dfs => search.dfs(first, progress),
        }
    }
    let complete = !search.stop() && !search.stats.hit_state_limit;
    search.stats.complete = complete;
    let paths: Vec<Option<Vec<Move>>> = search
        .reached
        .iter()
        .map(|r| r.map(|fp| search.path_to(fp)))
        .collect();
    let violation = search.violation.take().map(|(fp, violations)| Found {
        violations,
        path: search.path_to(fp),
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

struct Search<'a, A: Actor> {
    options: &'a Options<A>,
    sometimes: &'a [Sometimes<A>],
    visited: Visited,
    stats: Stats,
    violation: Option<(u64, Vec<Violation>)>,
    reached: Vec<Option<u64>>,
    scratch: Vec<u64>,
}

/// How often (in states) the progress callback is called.
const PROGRESS_EVERY: u64 = 1 << 14;

impl<A: Actor> Search<'_, A> {
    fn fingerprint(&mut self, sim: &Sim<A>, losses: u32, dups: u32) -> u64 {
        let mut h = BufferHasher::default();
        stable_hash(&(sim.untimed_hash(&mut self.scratch, &mut h), losses, dups))
    }

    /// Whether the search is over before every state was seen.
    fn stop(&self) -> bool {
        (self.violation.is_some() && !self.options.keep_going) || self.stats.hit_state_limit
    }

    /// Checks a newly visited state: its violations and `sometimes` properties.
    fn judge(&mut self, state: &Frontier<A>) {
        self.stats.max_depth = self.stats.max_depth.max(state.depth);
        if self.violation.is_none() && !state.sim.violations().is_empty() {
            self.violation = Some((state.fp, state.sim.violations().to_vec()));
        }
        for (i, s) in self.sometimes.iter().enumerate() {
            if self.reached[i].is_none() && (s.holds)(&state.sim) {
                self.reached[i] = Some(state.fp);
            }
        }
        if self.stats.unique_states >= self.options.max_states {
            self.stats.hit_state_limit = true;
        }
    }

    /// Whether a visited state's successors are to be explored.
    fn expands(&mut self, state: &Frontier<A>) -> bool {
        if state.sim.stopped().is_some() {
            return false;
        }
        if self.options.max_depth.is_some_and(|d| state.depth >= d) {
            self.stats.hit_depth_limit = true;
            return false;
        }
        true
    }

    /// The states one move away from `state`, inside the boundary (fingerprinted).
    fn successors(
        options: &Options<A>,
        state: &Frontier<A>,
        moves: &mut Vec<Move>,
        scratch: &mut (Vec<u64>, BufferHasher),
        out: &mut Vec<Successor<A>>,
    ) {
        state.sim.moves(state.losses > 0, state.dups > 0, moves);
        for &mv in moves.iter() {
            let mut sim = state.sim.clone();
            sim.take(mv);
            let losses = state.losses - u32::from(matches!(mv, Move::Lose(_)));
            let dups = state.dups - u32::from(matches!(mv, Move::Duplicate(_)));
            if options.within.as_ref().is_some_and(|w| !w(&sim)) {
                continue;
            }
            let fp = stable_hash(&(
                sim.untimed_hash(&mut scratch.0, &mut scratch.1),
                losses,
                dups,
            ));
            out.push(Successor {
                next: Frontier {
                    sim,
                    fp,
                    depth: state.depth + 1,
                    losses,
                    dups,
                },
                parent: state.fp,
                mv,
            });
        }
    }

    /// Records a successor; returns it if its state is new.
    fn visit(&mut self, s: Successor<A>) -> Option<Frontier<A>> {
        self.stats.transitions += 1;
        if self.visited.contains_key(&s.next.fp) {
            return None;
        }
        self.visited.insert(
            s.next.fp,
            Seen {
                parent: s.parent,
                mv: s.mv,
            },
        );
        self.stats.unique_states += 1;
        self.judge(&s.next);
        Some(s.next)
    }

    fn bfs(&mut self, first: Frontier<A>, progress: &mut dyn FnMut(&Stats)) {
        let mut queue = VecDeque::from([first]);
        let (mut moves, mut scratch, mut out) = (Vec::new(), Default::default(), Vec::new());
        while let Some(state) = queue.pop_front() {
            if self.stop() {
                break;
            }
            if !self.expands(&state) {
                continue;
            }
            out.clear();
            Self::successors(self.options, &state, &mut moves, &mut scratch, &mut out);
            if out.is_empty() && state.sim.violations().is_empty() {
                self.stats.terminal += 1;
            }
            for s in out.drain(..) {
                if let Some(new) = self.visit(s) {
                    queue.push_back(new);
                }
                if self.stop() {
                    break;
                }
            }
            if self.stats.unique_states.is_multiple_of(PROGRESS_EVERY) {
                progress(&self.stats);
            }
        }
        progress(&self.stats);
    }

    fn dfs(&mut self, first: Frontier<A>, progress: &mut dyn FnMut(&Stats)) {
        let mut stack = vec![first];
        let (mut moves, mut scratch, mut out) = (Vec::new(), Default::default(), Vec::new());
        while let Some(state) = stack.pop() {
            if self.stop() {
                break;
            }
            if !self.expands(&state) {
                continue;
            }
            out.clear();
            Self::successors(self.options, &state, &mut moves, &mut scratch, &mut out);
            if out.is_empty() && state.sim.violations().is_empty() {
                self.stats.terminal += 1;
            }
            // Pushed in reverse, so the first move is explored first.
            let before = stack.len();
            for s in out.drain(..) {
                if let Some(new) = self.visit(s) {
                    stack.push(new);
                }
                if self.stop() {
                    break;
                }
            }
            stack[before..].reverse();
            if self.stats.unique_states.is_multiple_of(PROGRESS_EVERY) {
                progress(&self.stats);
            }
        }
        progress(&self.stats);
    }

    /// Breadth first, a level at a time: the level's states are expanded on `jobs` threads,
    /// then their successors are visited in frontier order, exactly as [`Search::bfs`] would.
    fn bfs_parallel(&mut self, first: Frontier<A>, progress: &mut dyn FnMut(&Stats)) {
        let jobs = self.options.jobs.max(1);
        let mut level = vec![first];
        while !level.is_empty() && !self.stop() {
            let expanding: Vec<Frontier<A>> = level
                .into_iter()
                .filter(|state| self.expands(state))
                .collect();
            let chunk = expanding.len().div_ceil(jobs).max(1);
            let mut chunks: Vec<Vec<Frontier<A>>> = Vec::new();
            let mut rest = expanding;
            while rest.len() > chunk {
                let tail = rest.split_off(chunk);
                chunks.push(rest);
                rest = tail;
            }
            chunks.push(rest);
            let options = self.options;
            let visited = &self.visited;
            // Each thread returns, per state of its chunk, the successors not seen before
            // this level (whether they are new within the level is decided in the merge).
            let expanded: Vec<Vec<Expanded<A>>> = std::thread::scope(|scope| {
                let handles: Vec<_> = chunks
                    .into_iter()
                    .map(|chunk| {
                        scope.spawn(move || {
                            let (mut moves, mut scratch) = (Vec::new(), Default::default());
                            chunk
                                .iter()
                                .map(|state| {
                                    let mut out = Vec::new();
                                    Self::successors(
                                        options,
                                        state,
                                        &mut moves,
                                        &mut scratch,
                                        &mut out,
                                    );
                                    let terminal =
                                        out.is_empty() && state.sim.violations().is_empty();
                                    let moves = out.len() as u64;
                                    out.retain(|s| !visited.contains_key(&s.next.fp));
                                    Expanded {
                                        terminal,
                                        moves,
                                        fresh: out,
                                    }
                                })
                                .collect::<Vec<_>>()
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("an exploring thread panicked"))
                    .collect()
            });
            let mut next = Vec::new();
            'merge: for expanded in expanded.into_iter().flatten() {
                if expanded.terminal {
                    self.stats.terminal += 1;
                }
                // Successors seen before this level were dropped by the thread; they count
                // as transitions all the same.
                self.stats.transitions += expanded.moves - expanded.fresh.len() as u64;
                for s in expanded.fresh {
                    if let Some(new) = self.visit(s) {
                        next.push(new);
                    }
                    if self.stop() {
                        break 'merge;
                    }
                }
            }
            progress(&self.stats);
            level = next;
        }
    }

    /// The moves from the start to the visited state `fp`.
    fn path_to(&self, mut fp: u64) -> Vec<Move> {
        let mut path = Vec::new();
        loop {
            let seen = *self
                .visited
                .get(fp)
                .expect("every state on a path was visited");
            if seen.parent == fp {
                break;
            }
            path.push(seen.mv);
            fp = seen.parent;
        }
        path.reverse();
        path
    }
}
