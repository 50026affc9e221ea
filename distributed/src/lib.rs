//! dsim's exhaustive search on timely dataflow: breadth first over many workers, in one process
//! or several over TCP.
//!
//! Timely dataflow (Murray, McSherry et al., SOSP 2013) runs one dataflow on every worker and
//! tracks, for each timestamp, whether any worker can still produce data at it. Here the
//! timestamp is the level (moves from the start), and the dataflow is a loop of two operators:
//!
//! - **own** receives, at level `t`, every state reached at `t` whose fingerprint this worker
//!   owns (fingerprint modulo the workers: each worker holds its share of the visited set, 7
//!   bytes a state, [`Fingerprints`]). Once timely says level `t` is complete, it keeps those
//!   not visited before, each with the smallest (parent fingerprint, move) that reached it (the
//!   single-process search's rule), and broadcasts a summary of them (`level::Summary`).
//! - **expand**, once every worker's summary of `t` is in, adds them up alike on every worker
//!   and decides as the single-process search does whether to go on (a violation, the state
//!   limit, the depth bound); if so it rebuilds each owned state of `t` by replaying its path
//!   (sorted, so consecutive states share most of their moves,
//!   [`Searchable::go_to`]) and sends each successor to its owner at `t + 1`.
//!
//! A state travels as its path of moves from the start: states are not serializable, paths
//! are, and every worker builds the same start from the same file. So the counts, the
//! verdicts and the paths reported are the single-process search's at any number of workers
//! and processes.

mod connect;
mod level;

use level::{Found, Level, Msg, Summary, least};
use sim_core::MoveCode;
use sim_core::exhaustive::{Fingerprints, Reached, Report, Searchable, Stats, Successor};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;
use timely::dataflow::channels::pact::{Exchange, Pipeline};
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::vec::Broadcast;
use timely::dataflow::operators::{Concat, ConnectLoop, Feedback, ToStream};

/// Where the workers run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cluster {
    /// Worker threads in each process.
    pub workers: usize,
    /// This process's index among `hosts` (0 with one process).
    pub process: usize,
    /// Every process's address (`host:port`), one per process; empty for one process.
    pub hosts: Vec<String>,
}

impl Cluster {
    /// `processes` processes on this machine, at ports from 2101 (timely's own default).
    pub fn localhost(workers: usize, processes: usize, process: usize) -> Cluster {
        Cluster {
            workers,
            process,
            hosts: match processes {
                0 | 1 => Vec::new(),
                n => (0..n).map(|i| format!("127.0.0.1:{}", 2101 + i)).collect(),
            },
        }
    }

    /// The workers' allocators, connected to the other processes (quietly, see [`connect`]).
    fn allocators(
        &self,
    ) -> Result<
        (
            Vec<timely::communication::allocator::AllocatorBuilder>,
            Box<dyn std::any::Any + Send>,
        ),
        String,
    > {
        if self.hosts.len() > 1 {
            connect::cluster(self.workers.max(1), self.process, &self.hosts)
        } else {
            timely::CommunicationConfig::Process(self.workers.max(1)).try_build()
        }
    }
}

/// How far the search goes: the single-process search's bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// States this many moves from the start are not expanded.
    pub max_depth: Option<u32>,
    /// Stop (incomplete) after this many unique states.
    pub max_states: u64,
    /// Go on after a violation, to count every state.
    pub keep_going: bool,
}

/// Makes a worker's state graph (every worker makes its own, from the same file).
pub type MakeSearchable = Arc<dyn Fn() -> Result<Box<dyn Searchable>, String> + Send + Sync>;

/// Called by the first worker after each level with the counts so far.
pub type Progress = Arc<dyn Fn(&Stats) + Send + Sync>;

/// Explores the state graph `make` makes, breadth first on `cluster`'s workers. The report
/// (the first process's; `None` in the others), or why the search could not run.
pub fn explore(
    make: MakeSearchable,
    cluster: &Cluster,
    bounds: Bounds,
    progress: Progress,
) -> Result<Option<Report>, String> {
    let (allocators, others) = cluster.allocators()?;
    let config = timely::WorkerConfig::default();
    let guards = timely::execute::execute_from(allocators, others, config, move |worker| {
        let model = make()?;
        let index = worker.index();
        let (root, judged) = model.start();
        let properties = model.sometimes().len();
        let shared = Rc::new(RefCell::new(Tally::new(properties)));
        let model = Rc::new(RefCell::new(model));
        worker.dataflow::<u32, _, _>(|scope| {
            let (handle, cycle) = scope.feedback::<Vec<Msg>>(1);
            let seed = (index == 0)
                .then_some(Msg::Reached {
                    fp: root,
                    parent: root,
                    path: Vec::new(),
                    violates: judged.violates,
                    sometimes: judged.sometimes,
                })
                .into_iter()
                .to_stream(scope);
            let owned = seed.concat(cycle).unary_frontier(
                Exchange::new(|m: &Msg| m.route()),
                "own",
                |_, _| {
                    let mut visited = Fingerprints::default();
                    let mut levels: BTreeMap<u32, (_, Level)> = BTreeMap::new();
                    let shared = Rc::clone(&shared);
                    move |(input, frontier), output| {
                        input.for_each_stamp(|cap, data| {
                            if let Some(cap) = cap.retain_least(output.output_index()) {
                                let (_, level) = levels
                                    .entry(*cap.time())
                                    .or_insert_with(|| (cap, Level::default()));
                                for msg in data.flat_map(|d| d.drain(..)) {
                                    level.take(msg, &visited);
                                }
                            }
                        });
                        while let Some((&t, _)) = levels.first_key_value() {
                            if frontier.frontier().less_equal(&t) {
                                break;
                            }
                            let (cap, level) = levels.remove(&t).expect("the first level");
                            let (summary, states) = level.close(&mut visited, properties);
                            shared.borrow_mut().owned = states;
                            output.session(&cap).give((index, summary));
                        }
                    }
                },
            );
            owned
                .broadcast()
                .unary_frontier(Pipeline, "expand", |_, info| {
                    let mut levels: BTreeMap<u32, (_, Vec<(usize, Summary)>)> = BTreeMap::new();
                    let shared = Rc::clone(&shared);
                    let model = Rc::clone(&model);
                    let progress = Arc::clone(&progress);
                    let activator = scope.activator_for(Rc::clone(&info.address));
                    // The level being expanded, a batch at a time (see `BATCH`).
                    let mut work: Option<Work<_>> = None;
                    move |(input, frontier), output| {
                        input.for_each_stamp(|cap, data| {
                            if let Some(cap) = cap.retain_least(output.output_index()) {
                                let (_, summaries) = levels
                                    .entry(*cap.time())
                                    .or_insert_with(|| (cap, Vec::new()));
                                summaries.extend(data.flat_map(|d| d.drain(..)));
                            }
                        });
                        if work.is_none()
                            && let Some((&t, _)) = levels.first_key_value()
                            && !frontier.frontier().less_equal(&t)
                        {
                            let (cap, mut summaries) = levels.remove(&t).expect("the first level");
                            summaries.sort_by_key(|(worker, _)| *worker);
                            let mut tally = shared.borrow_mut();
                            let go_on = tally.absorb(t, summaries, bounds);
                            if index == 0 {
                                progress(&tally.stats);
                            }
                            let owned = std::mem::take(&mut tally.owned);
                            if go_on {
                                work = Some(Work::new(cap, owned));
                            }
                        }
                        let Some(level) = work.as_mut() else {
                            return;
                        };
                        let mut session = output.session(&level.cap);
                        let mut model = model.borrow_mut();
                        let end = (level.next + BATCH).min(level.states.len());
                        for (path, fp) in &level.states[level.next..end] {
                            if let Err(why) = model.go_to(path) {
                                shared.borrow_mut().failure.get_or_insert(why);
                                continue;
                            }
                            let found = model.expand(&mut |s: Successor| {
                                session.give(reached(*fp, path, s));
                            });
                            level.transitions += found.transitions;
                            level.terminal += u64::from(found.terminal);
                            level.run_limited |= found.run_limited;
                            if found.end_violation {
                                let here = Some(Found {
                                    fp: *fp,
                                    path: path.clone(),
                                });
                                level.end_violation = least(level.end_violation.take(), here);
                            }
                        }
                        level.next = end;
                        if level.next < level.states.len() {
                            // More of the level: after the owners have taken in this batch.
                            activator.activate();
                            return;
                        }
                        session.give(Msg::Expanded {
                            worker: index as u64,
                            transitions: level.transitions,
                            terminal: level.terminal,
                            run_limited: level.run_limited,
                            end_violation: level.end_violation.take(),
                        });
                        drop(session);
                        work = None;
                        // A later level may be complete already.
                        activator.activate();
                    }
                })
                .connect_loop(handle);
        });
        while worker.step() {}
        let tally = std::mem::replace(&mut *shared.borrow_mut(), Tally::new(properties));
        if let Some(why) = tally.failure {
            return Err(why);
        }
        if index != 0 {
            return Ok(None);
        }
        let mut model = model.borrow_mut();
        tally.report(model.as_mut()).map(Some)
    })?;
    let mut first = None;
    for result in guards.join() {
        let result = result.map_err(|panic| format!("a worker failed: {panic}"))??;
        first = first.or(result);
    }
    Ok(first)
}

/// How many states a worker expands before it lets the owners take in their successors: the
/// successors of a whole level at once, each carrying its path, would all wait in memory.
const BATCH: usize = 1024;

/// A level being expanded by one worker, a batch at a time.
struct Work<C> {
    /// The capability to send at the level's time.
    cap: C,
    /// The worker's states of the level: path and fingerprint, sorted by path.
    states: Vec<(Vec<MoveCode>, u64)>,
    /// The first not expanded yet.
    next: usize,
    transitions: u64,
    terminal: u64,
    run_limited: bool,
    end_violation: Option<Found>,
}

impl<C> Work<C> {
    fn new(cap: C, states: Vec<(Vec<MoveCode>, u64)>) -> Self {
        Work {
            cap,
            states,
            next: 0,
            transitions: 0,
            terminal: 0,
            run_limited: false,
            end_violation: None,
        }
    }
}

/// The message of successor `s` of the state at `path` (fingerprint `parent`).
fn reached(parent: u64, path: &[MoveCode], s: Successor) -> Msg {
    let mut to = Vec::with_capacity(path.len() + 1);
    to.extend_from_slice(path);
    to.push(s.mv);
    Msg::Reached {
        fp: s.fp,
        parent,
        path: to,
        violates: s.judged.violates,
        sometimes: s.judged.sometimes,
    }
}

/// What every worker knows of the whole search, added up alike from every summary.
struct Tally {
    stats: Stats,
    violation: Option<Found>,
    reached: Vec<Option<Found>>,
    /// This worker's states of the level last closed, to expand.
    owned: Vec<(Vec<MoveCode>, u64)>,
    /// Whether the search stopped before its end (a violation, the state limit).
    stopped: bool,
    failure: Option<String>,
}

impl Tally {
    fn new(properties: usize) -> Tally {
        Tally {
            stats: Stats::default(),
            violation: None,
            reached: vec![None; properties],
            owned: Vec::new(),
            stopped: false,
            failure: None,
        }
    }

    /// Adds up the summaries of level `t`; whether to expand it.
    fn absorb(&mut self, t: u32, summaries: Vec<(usize, Summary)>, bounds: Bounds) -> bool {
        let mut new_states = 0;
        let mut violation = None;
        let mut reached: Vec<Option<Found>> = vec![None; self.reached.len()];
        for (_, s) in summaries {
            new_states += s.new_states;
            self.stats.transitions += s.transitions;
            self.stats.terminal += s.terminal;
            self.stats.hit_run_limit |= s.run_limited;
            violation = least(violation, s.violation);
            for (mine, theirs) in reached.iter_mut().zip(s.reached) {
                *mine = least(mine.take(), theirs);
            }
        }
        self.stats.unique_states += new_states;
        if new_states > 0 {
            self.stats.max_depth = t;
        }
        if self.violation.is_none() {
            self.violation = violation;
        }
        for (mine, theirs) in self.reached.iter_mut().zip(reached) {
            if mine.is_none() {
                *mine = theirs;
            }
        }
        if self.stats.unique_states >= bounds.max_states {
            self.stats.hit_state_limit = true;
        }
        self.stopped =
            (self.violation.is_some() && !bounds.keep_going) || self.stats.hit_state_limit;
        if self.stopped || new_states == 0 {
            return false;
        }
        if bounds.max_depth.is_some_and(|bound| t >= bound) {
            self.stats.hit_depth_limit = true;
            return false;
        }
        true
    }

    /// The search's report, its paths as the single-process search reports them.
    fn report(mut self, model: &mut dyn Searchable) -> Result<Report, String> {
        self.stats.complete =
            !self.stopped && !self.stats.hit_state_limit && !self.stats.hit_run_limit;
        let violation = match self.violation {
            Some(found) => {
                let path = model.reported_path(&found.path)?;
                let violations = model.violations_at(&path);
                Some(sim_core::exhaustive::Found { violations, path })
            }
            None => None,
        };
        let names = model.sometimes();
        let sometimes = names
            .into_iter()
            .zip(self.reached)
            .map(|(name, found)| {
                let example = found.map(|f| model.reported_path(&f.path)).transpose()?;
                Ok(Reached { name, example })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Report {
            stats: self.stats,
            violation,
            sometimes,
            failure: None,
        })
    }
}
