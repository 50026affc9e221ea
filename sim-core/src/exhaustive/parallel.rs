//! Depth-first search on several threads, for its counts.
//!
//! Each thread walks depth first from a state of its own, as [`Search::dfs_light`] does on one,
//! against one shared set of fingerprints, so each reachable state is counted by exactly one
//! thread and the counts are those of one thread. A thread that runs out of work waits; a
//! busy thread that sees one waiting hands over half the untried moves of the state nearest
//! the start on its path (the biggest piece of work it has). Tasks carry no path: nothing
//! this search reports needs one.
//!
//! Which thread reaches a state first depends on timing, so whatever a search reports beyond
//! its counts (the violation and its path, each `sometimes` example) is not taken from here:
//! [`super::explore`] asks a one-thread search for those, stopping as soon as it has them.
//! What this search says is only whether there is such a thing to find.
//!
//! [`Search::dfs_light`]: super::Search

use super::fingerprints::SharedFingerprints;
use super::{Frontier, Options, Sometimes, Stats};
use crate::Actor;
use crate::kernel::{IgnoredAnswers, Move};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Condvar, Mutex};

/// What a search on several threads found.
pub(super) struct Found {
    /// Its counts: of the whole graph unless a violation (without `keep_going`) or the state
    /// limit stopped it early, when they depend on timing and the caller walks again.
    pub stats: Stats,
    /// Whether some state breaks an invariant (in a step or at its end).
    pub broke: bool,
    /// Per `sometimes` property, whether some state has it.
    pub reached: Vec<bool>,
}

/// A state on a thread's path (or handed over as a task): already counted, with the moves
/// from it still to try.
struct Step<A: Actor> {
    state: Frontier<A>,
    moves: Vec<Move>,
    next: usize,
    /// Whether some move from the state stayed inside the boundary (then it is not terminal).
    any: bool,
}

/// What the threads share.
struct Shared<A: Actor> {
    seen: SharedFingerprints,
    tasks: Mutex<Vec<Step<A>>>,
    wake: Condvar,
    /// Threads waiting for a task.
    waiting: AtomicUsize,
    /// Set when every thread waits with no task left, or the search must stop.
    over: AtomicBool,
    unique: AtomicU64,
    broke: AtomicBool,
    reached: Vec<AtomicBool>,
}

/// Explores every state reachable from `first` (already counted) on `jobs` threads; the
/// calling thread is one of them and reports `progress` now and then.
pub(super) fn search<A: Actor>(
    first: Frontier<A>,
    options: &Options<A>,
    sometimes: &[Sometimes<A>],
    jobs: usize,
    progress: &mut dyn FnMut(&Stats),
) -> Found {
    let shared = Shared {
        seen: SharedFingerprints::default(),
        tasks: Mutex::new(Vec::new()),
        wake: Condvar::new(),
        waiting: AtomicUsize::new(0),
        over: AtomicBool::new(false),
        unique: AtomicU64::new(1),
        broke: AtomicBool::new(false),
        reached: sometimes.iter().map(|_| AtomicBool::new(false)).collect(),
    };
    shared.seen.insert(first.fp);
    let mut moves = Vec::new();
    first
        .sim
        .moves(first.losses > 0, first.dups > 0, &mut moves);
    let mut stats = Stats::default();
    if let Some(reason) = first.sim.stopped() {
        stats.hit_run_limit = reason != crate::StopReason::Violation;
    } else {
        shared.tasks.lock().expect("no thread yet").push(Step {
            state: first,
            moves,
            next: 0,
            any: false,
        });
    }
    let shared = &shared;
    let counts: Vec<Stats> = std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..jobs)
            .map(|_| scope.spawn(move || work(shared, options, sometimes, jobs, &mut |_| {})))
            .collect();
        let mut counts = vec![work(shared, options, sometimes, jobs, progress)];
        counts.extend(
            helpers
                .into_iter()
                .map(|h| h.join().expect("an exploring thread panicked")),
        );
        counts
    });
    for c in counts {
        stats.transitions += c.transitions;
        stats.terminal += c.terminal;
        stats.max_depth = stats.max_depth.max(c.max_depth);
        stats.hit_run_limit |= c.hit_run_limit;
        stats.hit_state_limit |= c.hit_state_limit;
        stats.hit_memory_limit |= c.hit_memory_limit;
        stats.interrupted |= c.interrupted;
    }
    stats.unique_states = shared.unique.load(Relaxed);
    Found {
        stats,
        broke: shared.broke.load(Relaxed),
        reached: shared.reached.iter().map(|r| r.load(Relaxed)).collect(),
    }
}

/// The next task for a thread, or `None` when the search is over: every thread is waiting
/// and no task is left, or the search was told to stop.
fn next_task<A: Actor>(shared: &Shared<A>, jobs: usize) -> Option<Step<A>> {
    let mut tasks = shared
        .tasks
        .lock()
        .expect("a thread panicked holding the tasks");
    loop {
        if shared.over.load(Relaxed) {
            return None;
        }
        if let Some(task) = tasks.pop() {
            return Some(task);
        }
        if shared.waiting.fetch_add(1, Relaxed) + 1 == jobs {
            shared.over.store(true, Relaxed);
            shared.wake.notify_all();
            return None;
        }
        tasks = shared
            .wake
            .wait(tasks)
            .expect("a thread panicked holding the tasks");
        shared.waiting.fetch_sub(1, Relaxed);
    }
}

/// Stops every thread.
fn stop_all<A: Actor>(shared: &Shared<A>) {
    let _tasks = shared.tasks.lock().unwrap_or_else(|e| e.into_inner());
    shared.over.store(true, Relaxed);
    shared.wake.notify_all();
}

/// Stops every thread when the one holding it panics (in a handler, say), so the others do
/// not wait for it for ever and the panic reaches the caller, as on one thread.
struct StopOnPanic<'a, A: Actor>(&'a Shared<A>);

impl<A: Actor> Drop for StopOnPanic<'_, A> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            stop_all(self.0);
        }
    }
}

/// How often (in states a thread counts) the calling thread reports progress.
const PROGRESS_EVERY: u64 = 1 << 14;

/// One thread's share: tasks until the search is over; its counts (but unique states, which
/// are counted together).
fn work<A: Actor>(
    shared: &Shared<A>,
    options: &Options<A>,
    sometimes: &[Sometimes<A>],
    jobs: usize,
    progress: &mut dyn FnMut(&Stats),
) -> Stats {
    let _guard = StopOnPanic(shared);
    let mut stats = Stats::default();
    let mut answers = IgnoredAnswers::default();
    let mut scratch = super::Scratch::<A>::default();
    let mut since_progress = 0u64;
    let mut since_budget = 0u64;
    let stop_at_violation = !options.keep_going;
    while let Some(task) = next_task(shared, jobs) {
        let mut stack = vec![task];
        while let Some(top) = stack.last_mut() {
            if shared.over.load(Relaxed) {
                break;
            }
            let Some(&mv) = top.moves.get(top.next) else {
                let mut done = stack.pop().expect("the top is there");
                if !done.any && done.state.sim.violations().is_empty() {
                    stats.terminal += 1;
                    if !done.state.end_checks().is_empty() {
                        shared.broke.store(true, Relaxed);
                        if stop_at_violation {
                            stop_all(shared);
                        }
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
            stats.transitions += 1;
            if !shared.seen.insert(child.fp) {
                scratch.recycle(child);
                continue;
            }
            let unique = shared.unique.fetch_add(1, Relaxed) + 1;
            stats.max_depth = stats.max_depth.max(child.depth);
            let sim = &child.sim;
            if !sim.violations().is_empty() {
                shared.broke.store(true, Relaxed);
                if stop_at_violation {
                    stop_all(shared);
                }
            }
            for (s, reached) in sometimes.iter().zip(&shared.reached) {
                if !reached.load(Relaxed) && (s.holds)(sim) {
                    reached.store(true, Relaxed);
                }
            }
            if unique >= options.max_states {
                stats.hit_state_limit = true;
                stop_all(shared);
            }
            since_budget += 1;
            if since_budget >= super::BUDGET_EVERY {
                since_budget = 0;
                if options.budget_reached() {
                    stats.hit_memory_limit = true;
                    stop_all(shared);
                }
                if options.interrupted() {
                    stats.interrupted = true;
                    stop_all(shared);
                }
            }
            since_progress += 1;
            if since_progress >= PROGRESS_EVERY {
                since_progress = 0;
                progress(&Stats {
                    unique_states: unique,
                    ..stats
                });
            }
            if let Some(reason) = sim.stopped() {
                stats.hit_run_limit |= reason != crate::StopReason::Violation;
                continue;
            }
            let moves = scratch.moves_of(&child);
            stack.push(Step {
                state: child,
                moves,
                next: 0,
                any: false,
            });
            if shared.waiting.load(Relaxed) > 0 {
                share(shared, &mut stack);
            }
        }
    }
    stats
}

/// Hands a waiting thread half the untried moves of the state nearest the start on `stack`
/// that has at least two left and a move known to stay inside the boundary (so that neither
/// half has to judge whether the state is terminal: it is not).
fn share<A: Actor>(shared: &Shared<A>, stack: &mut [Step<A>]) {
    let mut tasks = shared
        .tasks
        .lock()
        .expect("a thread panicked holding the tasks");
    if !tasks.is_empty() {
        return;
    }
    let Some(step) = stack
        .iter_mut()
        .find(|s| s.any && s.moves.len() - s.next >= 2)
    else {
        return;
    };
    let left = step.moves.len() - step.next;
    let given = step.moves.split_off(step.next + left / 2);
    tasks.push(Step {
        state: step.state.copy(),
        moves: given,
        next: 0,
        any: true,
    });
    shared.wake.notify_one();
}
