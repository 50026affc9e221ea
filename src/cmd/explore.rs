//! `dsim explore`: search many seeds' schedules for a broken invariant, shrink the first one
//! found to a handful of choices, and write it as a scenario file that `dsim run` replays.
//! `shard` splits a search for a batch system and merges the shards' results.

mod budget;
mod exhaustive;
mod frontier;
mod shard;
mod timely;

use crate::exit::{CliError, FAILED, OK};
use crate::flags::{apply_sets, parse_sets, worker_pool};
use crate::output::{out, refuse_own_input, write_atomically};
use crate::source::{render_problems, resolve};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use scenarios::DynProtocol;
use scenarios::coverage::StateSet;
use scenarios::explore::{Counterexample, FaultModel, Finding};
use scenarios::pct::{PctSettings, PctStats};
use scenarios::registry::LoadedScenario;
use scenarios::swarm::{FaultKinds, MixTally};
use scenarios::sweep::parse_seeds;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
// Wall-clock time only for the speed line on stderr; it never reaches the results.
#[allow(clippy::disallowed_types)]
use std::time::Instant as WallClock;

/// Arguments of `dsim explore`.
#[derive(clap::Args, Debug)]
#[command(after_long_help = "\
Each seed is one random schedule within the scenario's fault model: its links' loss,
duplication and latency laws, its timeline's faults, and the random crashes, pauses and
partitions --crashes, --pauses and --partitions add (drawn from the seed). Every invariant is checked at every
step; the file's expectations are not goals of the search. The first seed (in seed order,
whatever --jobs) that breaks an invariant is re-run recording the network's choices, the list
is shrunk to the fewest that still break the same invariant (of the first 4 failing seeds of
their batch, the one that shrinks shortest is kept), and the result is written as an
ordinary scenario file with a `schedule:`, each choice explained in a comment.

Examples:
  dsim explore search/paxos-swarm --bug accept_below_promise --out found.ron
  dsim run found.ron
  dsim explore search/paxos-swarm --bug forget_promise_on_restart --crashes 1 --window-ms 50
  dsim explore search/raft-election --seeds 0..2000 --bug vote_twice --json
  dsim explore search/raft-election --list-bugs
  dsim explore search/paxos-swarm --swarm --window-ms 50 --bug forget_promise_on_restart
  dsim explore search/raft-election --strategy pct --depth 3 --max-depth 200 --bug vote_twice

--swarm gives each seed its own mix of fault sorts (see --faults) and intensities and counts,
per mix, the seeds searched and what they broke. --strategy pct steers each seed's walk of the
untimed run with PCTCP's chain priorities and prints the probability bound for --depth.

Liveness is reported apart from safety: a protocol that promises progress (Paxos with
retries: something chosen; Raft: a leader) and has not made it by the end of a run that ended
long enough after its last scripted step (or with nothing left to happen) is a `liveness`
finding, shrunk and written the same way.

With --exhaustive, no seeds: every state the configuration can reach is visited once, with
an untimed network (any message in flight may arrive next, any pending timer may fire, the
timeline's steps happen in order anywhere in between). Breadth first finds a shortest path
to a violation and writes it as a file whose schedule replays it in time:
  dsim explore search/paxos-exhaustive --exhaustive --bug accept_below_promise --out found.ron
  dsim explore search/raft-exhaustive --exhaustive --max-epoch 3 --max-depth 6 --jobs 2
Counts, paths and files are the same at any --jobs. A search keeps within a memory budget
(--max-memory, by default half of the memory free when it starts): one that reaches it stops
and reports what it found so far as incomplete, with the bound to add, rather than taking the
machine's memory. Breadth first can keep its frontier on disk (--frontier disk: 7 bytes a
state in memory), checkpoint each level and go on after a stop:
  dsim explore search/paxos-exhaustive --exhaustive --max-depth 12 --checkpoint search.ckpt
  dsim explore search/paxos-exhaustive --exhaustive --max-depth 12 --resume search.ckpt
Ctrl-C stops a search, prints what it found and says how to go on.
Both modes find the same states, counts and paths. On timely dataflow, breadth first runs on
--workers threads in each of --processes processes, each worker owning a share of the states:
  dsim explore search/paxos-exhaustive --exhaustive --max-depth 10 --engine timely --workers 2
For two processes, start the same command with `--processes 2 --process 1` and with
`--processes 2 --process 0` (the one that reports), on one machine or, with --hostfile, on two.

Exit codes: 0 nothing found (an exhaustive search that a bound stopped says `incomplete`, and
`complete: false` under --json); 1 an invariant broke or progress failed (the counterexample is
written; --json says which under `kind`); 2 bad input, or a search's files could not be
written; 3 a run panicked (a bug: the seed is printed); 130 an exhaustive search stopped by
Ctrl-C (its partial report printed).")]
pub struct ExploreArgs {
    /// The scenario: a path or a bundled name (`search/paxos-swarm`).
    #[arg(required_unless_present = "merge")]
    pub scenario: Option<String>,
    /// Search only shard I of N (from 0): the range's batches of 4096 seeds taken in turn, so
    /// that N jobs of a batch system (a CI matrix, a Kubernetes Indexed Job, a Slurm array)
    /// search it together; join their --json outputs with --merge.
    #[arg(long, value_name = "I/N", value_parser = shard::parse_shard)]
    pub shard: Option<(u64, u64)>,
    /// Join the --json outputs of the N shards of one search into exactly what one run over
    /// the whole range prints (and writes the counterexamples to --out).
    #[arg(long, value_name = "SHARD.json", num_args = 1.., conflicts_with = "scenario")]
    pub merge: Vec<PathBuf>,
    /// Seeds to search: a range, `0..10000` (10000 excluded) or `0..=9999`.
    #[arg(long, value_parser = parse_seeds, default_value = "0..10000")]
    pub seeds: std::ops::Range<u64>,
    /// Worker threads (default: every core). The findings are identical at any count.
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Turn on one of the protocol's bug knobs (repeat for several); see --list-bugs.
    #[arg(long = "bug", value_name = "NAME")]
    pub bugs: Vec<String>,
    /// Inject this many random crashes per seed (each node restarts later), on top of the
    /// file's timeline; drawn from the seed, shrunk away first.
    #[arg(long, default_value_t = 0)]
    pub crashes: u32,
    /// Inject this many random pauses per seed (each node resumes later).
    #[arg(long, default_value_t = 0)]
    pub pauses: u32,
    /// Inject this many random partitions per seed into two random sides (healed later).
    #[arg(long, default_value_t = 0)]
    pub partitions: u32,
    /// Injected faults start within this many ms of the start and last up to half of it.
    #[arg(long, default_value_t = 1000, value_name = "MS")]
    pub window_ms: u64,
    /// Enumerate partitions instead of drawing them, as the Twins paper's generator does: R
    /// rounds of --round-ms from time 0, and in each the nodes split into two sides as the
    /// seed's bits say, so that seeds 0..2^((nodes-1)*R) are every schedule exactly once (the
    /// count is printed). With twins in the config, this puts them on every pair of sides.
    #[arg(
        long,
        value_name = "R",
        default_value_t = 0,
        conflicts_with = "partitions"
    )]
    pub partition_rounds: u32,
    /// How long each enumerated round lasts.
    #[arg(
        long,
        value_name = "MS",
        default_value_t = 100,
        requires = "partition_rounds"
    )]
    pub round_ms: u64,
    /// The sorts of fault the search may use: a comma list among loss, dup, delay, crash,
    /// pause, partition, skew (default: every sort the scenario allows). Without --swarm, the
    /// sorts left out are taken out of the file's link laws: `--faults crash --crashes 1`
    /// crashes a node on a network that loses and duplicates nothing and gives every message
    /// its shortest latency.
    #[arg(long, value_name = "KINDS", value_parser = FaultKinds::parse)]
    pub faults: Option<FaultKinds>,
    /// Swarm testing: each seed draws its own mix of the --faults sorts, each in or out with
    /// even odds, and its own intensities (loss 1-30 %, duplication 1-20 %, latencies spread
    /// to 2-10 times the law's longest, 1-2 crashes, pauses or partitions, a clock 1-30 % fast
    /// or slow), in place of the file's link laws. Some seeds lose nothing, some only crash
    /// nodes: rare combinations of a few faults are not drowned by constant noise. The report
    /// counts seeds and findings per mix.
    #[arg(long, conflicts_with_all = ["crashes", "pauses", "partitions", "partition_rounds"])]
    pub swarm: bool,
    /// How each seed's schedule is made: `random` (the fault model's laws) or `pct`, a
    /// PCTCP priority scheduler (Ozkan et al., OOPSLA 2018) on the untimed run: events are
    /// split online into causal chains with random priorities, the highest chain's event goes
    /// next, and at --depth - 1 random steps the running chain drops below all others. A bug
    /// needing --depth ordering constraints is hit with a probability the report states.
    #[arg(long, value_enum, default_value_t = Strategy::Random, conflicts_with_all = [
        "swarm", "crashes", "pauses", "partitions", "partition_rounds", "coverage", "plot",
        "faults", "exhaustive",
    ])]
    pub strategy: Strategy,
    /// With --strategy pct: the bug depth aimed at (d - 1 priority change points per walk).
    #[arg(long, value_name = "D", default_value_t = 3)]
    pub depth: u32,
    /// With --strategy pct: the walk length the change points are spread over (PCT's k).
    /// Default: the length of one walk that changes no priority.
    #[arg(long, value_name = "K")]
    pub pct_steps: Option<u32>,
    /// Override a config field before searching (RON value); repeat for several.
    /// Example: --set phase_timeout_ms=80
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    /// Where to write the counterexample. With --keep-going, each broken invariant gets its
    /// own file: `found.ron` becomes `found.agreement.ron`, ...
    #[arg(long, short, default_value = "counterexample.ron")]
    pub out: PathBuf,
    /// Search the whole range, writing the first counterexample of every invariant that
    /// breaks, instead of stopping at the first.
    #[arg(long)]
    pub keep_going: bool,
    /// Count the distinct abstract states the search reaches (actor states, node statuses,
    /// messages in flight; no times) and how the count grows batch by batch: when it
    /// flattens, more seeds of this fault model find little new. Slower (a hash per step).
    #[arg(long)]
    pub coverage: bool,
    /// Draw the coverage curve (distinct states against seeds) as an SVG picture to FILE;
    /// implies --coverage.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// Print the results as JSON.
    #[arg(long)]
    pub json: bool,
    /// Name the scenario protocol's bug knobs and what each breaks, and exit.
    #[arg(long)]
    pub list_bugs: bool,
    /// Visit every state of the configuration instead of sampling seeds: any message in
    /// flight may arrive next, any pending timer may fire, the timeline's steps happen in
    /// order anywhere in between (the clock stands still). Counts the distinct states.
    #[arg(long, help_heading = "Exhaustive exploration")]
    pub exhaustive: bool,
    /// Breadth first (the default): a shortest path to a violation.
    #[arg(
        long,
        requires = "exhaustive",
        conflicts_with = "dfs",
        help_heading = "Exhaustive exploration"
    )]
    pub bfs: bool,
    /// Depth first: less memory, paths not the shortest.
    #[arg(long, requires = "exhaustive", help_heading = "Exhaustive exploration")]
    pub dfs: bool,
    /// Do not expand states this many moves from the start (with --strategy pct: a walk
    /// stops after this many moves; default 1000).
    #[arg(long, value_name = "N", help_heading = "Exhaustive exploration")]
    pub max_depth: Option<u32>,
    /// Let a path lose up to K messages.
    #[arg(
        long,
        value_name = "K",
        default_value_t = 0,
        requires = "exhaustive",
        help_heading = "Exhaustive exploration"
    )]
    pub loss_budget: u32,
    /// Let a path deliver up to K messages twice (each at most once more).
    #[arg(
        long,
        value_name = "K",
        default_value_t = 0,
        requires = "exhaustive",
        help_heading = "Exhaustive exploration"
    )]
    pub dup_budget: u32,
    /// Leave out states where a node's epoch (a Raft term) is past N.
    #[arg(
        long,
        value_name = "N",
        requires = "exhaustive",
        help_heading = "Exhaustive exploration"
    )]
    pub max_epoch: Option<u64>,
    /// Merge states that differ only by a renaming of interchangeable nodes (Paxos's
    /// acceptors, Raft's servers in an election): one state per class is explored, with the
    /// same verdicts. Nodes the timeline names are told apart and stay out.
    #[arg(long, requires = "exhaustive", help_heading = "Exhaustive exploration")]
    pub symmetry: bool,
    /// Stop (incomplete) after this many distinct states.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 20_000_000,
        requires = "exhaustive",
        help_heading = "Exhaustive exploration"
    )]
    pub max_states: u64,
    /// Stop (incomplete) once the process holds this much memory: `4G`, `512M`, `1.5GiB`, or
    /// bytes. By default half of the memory available when the search starts (Linux's
    /// `MemAvailable`), so a search never ends in the kernel's out-of-memory killer.
    #[arg(
        long,
        value_name = "SIZE",
        value_parser = budget::parse_size,
        requires = "exhaustive",
        help_heading = "Exhaustive exploration"
    )]
    pub max_memory: Option<u64>,
    /// Where breadth first keeps the states it has yet to expand: `memory` (about a kilobyte
    /// a state), `disk` (a file per level, 25 bytes a state, and 7 bytes a visited state in
    /// memory: as fast, and for searches larger than memory), or `auto`: in memory, and from
    /// the start again on disk past 200,000 states or a quarter of --max-memory.
    #[arg(
        long,
        value_enum,
        default_value_t,
        requires = "exhaustive",
        help_heading = "Exhaustive exploration"
    )]
    pub frontier: frontier::FrontierMode,
    /// Where a search on disk keeps its files: a temporary directory made in DIR (by default
    /// in the system's), removed at the end.
    #[arg(
        long,
        value_name = "DIR",
        requires = "exhaustive",
        help_heading = "Exhaustive exploration"
    )]
    pub work_dir: Option<PathBuf>,
    /// Keep the search's files in DIR, with a checkpoint after each level, so that a search
    /// stopped (Ctrl-C, a budget, a machine gone) goes on with --resume DIR. Frontier on disk.
    #[arg(
        long,
        value_name = "DIR",
        requires = "exhaustive",
        conflicts_with = "resume",
        help_heading = "Exhaustive exploration"
    )]
    pub checkpoint: Option<PathBuf>,
    /// Go on with the search checkpointed in DIR (same file, same flags) to the end an
    /// uninterrupted search reaches, checkpointing there as it goes.
    #[arg(
        long,
        value_name = "DIR",
        requires = "exhaustive",
        help_heading = "Exhaustive exploration"
    )]
    pub resume: Option<PathBuf>,
    /// Which engine runs breadth first: `local` (this process's threads, --jobs) or `timely`
    /// (timely dataflow: --workers threads in each of --processes processes, each worker
    /// owning a share of the visited set; the same counts and paths).
    #[arg(
        long,
        value_enum,
        default_value_t,
        requires = "exhaustive",
        help_heading = "Distributed exhaustive search"
    )]
    pub engine: timely::Engine,
    /// Timely worker threads in this process.
    #[arg(
        long,
        value_name = "W",
        default_value_t = 1,
        help_heading = "Distributed exhaustive search"
    )]
    pub workers: usize,
    /// How many processes run the search (each started with the same command and its own
    /// --process); they find each other at --hostfile's addresses, or at 127.0.0.1:2101 and
    /// up without one.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 1,
        help_heading = "Distributed exhaustive search"
    )]
    pub processes: usize,
    /// This process's index, 0 to N-1; process 0 prints the report and writes the files.
    #[arg(
        long,
        value_name = "P",
        default_value_t = 0,
        help_heading = "Distributed exhaustive search"
    )]
    pub process: usize,
    /// A file of the processes' addresses, `host:port`, one a line, in process order.
    #[arg(
        long,
        value_name = "FILE",
        help_heading = "Distributed exhaustive search"
    )]
    pub hostfile: Option<PathBuf>,
}

/// How a search makes each seed's schedule.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Random schedules within the fault model.
    Random,
    /// A PCT priority scheduler on the untimed run.
    Pct,
}

/// The most moves a PCT walk takes unless --max-depth says.
const PCT_MAX_MOVES: u32 = 1_000;
/// The deepest bug a PCT search may aim at, and its longest walk.
const PCT_MAX_DEPTH: u32 = 10;
const PCT_MOVES_CAP: u32 = 100_000;

/// The most seeds one search may ask for.
const MAX_SEEDS: u64 = 1_000_000_000;
/// Seeds probed between two looks for a finding: small enough to stop soon after the first,
/// large enough to keep every thread busy.
const BATCH: u64 = 4096;

#[derive(Serialize, Deserialize)]
struct Found {
    kind: String,
    file: String,
    /// The first seed of the search that broke this (the kept counterexample may be another
    /// of the first few).
    first_seed: u64,
    #[serde(flatten)]
    counterexample: Counterexample,
    /// The counterexample file's text, carried by a shard's output for --merge to write.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    text: Option<String>,
}

/// The distinct abstract states a search reached (actor states, statuses, messages in flight;
/// no times), and how that count grew: (seeds searched, states) after each batch.
#[derive(Serialize, Deserialize)]
struct Coverage {
    distinct_states: usize,
    curve: Vec<(u64, usize)>,
}

/// How the search ran (the results never depend on it).
#[derive(Serialize, Deserialize)]
struct Execution {
    jobs: usize,
}

/// How fast it ran: for the speed line on stderr only, so --json output is identical from run
/// to run and machine to machine.
struct Speed {
    seconds: f64,
    seeds_per_second: f64,
}

#[derive(Serialize, Deserialize)]
struct Report {
    scenario: String,
    seeds: (u64, u64),
    bugs: Vec<String>,
    sets: Vec<String>,
    faults: FaultModel,
    keep_going: bool,
    /// Which shard of the search this is (I, N), if one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    shard: Option<(u64, u64)>,
    /// With --coverage: how many distinct abstract states the search reached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    coverage: Option<Coverage>,
    /// A shard's coverage batch by batch (batch index, the states it reached first in that
    /// batch, as sorted hashes), for --merge to count the union the single run would have.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    coverage_batches: Vec<(u64, Vec<u64>)>,
    /// With --partition-rounds: how many distinct partition schedules there are (seeds
    /// 0..this are each once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    enumerated: Option<u64>,
    /// With --swarm: per fault mix, the seeds searched and how many broke each invariant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    swarm: Option<Vec<MixTally>>,
    /// A shard's swarm tally batch by batch (batch index, rows), for --merge to cut where the
    /// single run would have stopped.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    swarm_batches: Vec<(u64, Vec<MixTally>)>,
    /// With --strategy pct: what the walks were like (PCTCP's bound is stated for them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pct: Option<PctStats>,
    /// A shard's walks batch by batch, for --merge.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pct_batches: Vec<(u64, PctStats)>,
    seeds_searched: u64,
    found: Vec<Found>,
    execution: Execution,
}

/// Runs `dsim explore`.
pub fn run(args: ExploreArgs) -> Result<u8, CliError> {
    if !args.merge.is_empty() {
        return shard::merge(&args.merge, &args.out, args.json);
    }
    let Some(scenario) = &args.scenario else {
        return Err(CliError::bad_input(
            "name a scenario to explore (or --merge shards)",
        ));
    };
    let src = resolve(scenario)?;
    let protocol = scenarios::registry::protocol_for(&src.name, &src.text)
        .map_err(|p| CliError::bad_input(render_problems(&p)))?;
    if args.list_bugs {
        return list_bugs(protocol);
    }
    let mut sets = parse_sets(&args.sets)?;
    if !args.bugs.is_empty() {
        sets.push(("bugs".into(), bug_setting(protocol, &args.bugs)?));
    }
    let text = apply_sets(&src.text, &sets)?;
    let loaded = protocol
        .load(&src.name, &text)
        .map_err(|p| CliError::bad_input(render_problems(&p)))?;
    if args.exhaustive {
        return exhaustive::run(&args, loaded.as_ref(), &src.name, &text);
    }
    if loaded.has_schedule() {
        return Err(CliError::bad_input(format!(
            "{}: the file fixes its own `schedule:`, so every seed runs the same network; \
             remove the schedule to search, or `dsim run` it to replay",
            src.name
        )));
    }
    let seed_count = args.seeds.end.saturating_sub(args.seeds.start);
    if seed_count > MAX_SEEDS {
        return Err(CliError::bad_input(format!(
            "{seed_count} seeds is more than {MAX_SEEDS}: narrow --seeds"
        )));
    }
    refuse_own_input(&args.out, Path::new(&src.name))?;
    let mut faults = fault_model(&args)?;
    if args.strategy == Strategy::Pct {
        faults.pct = Some(pct_settings(&args, loaded.as_ref(), &src.name)?);
    } else if args.pct_steps.is_some() || args.max_depth.is_some() {
        return Err(CliError::bad_input(
            "--pct-steps and --max-depth belong to --strategy pct (or --exhaustive)",
        ));
    }
    let coverage = args.coverage || args.plot.is_some();
    let (pool, jobs) = worker_pool(args.jobs)?;
    let bar = progress(seed_count, args.json);
    let origin = origin(&src.name, &args.bugs, &args.sets, &faults);
    #[allow(clippy::disallowed_types)]
    let started = WallClock::now();
    let mut found: Vec<Found> = Vec::new();
    let mut broken: BTreeSet<String> = BTreeSet::new();
    let mut searched = 0u64;
    // Coverage: every distinct abstract state so far, and its count after each batch; a
    // shard also keeps each batch's new states for --merge.
    let mut states = StateSet::new();
    let mut curve: Vec<(u64, usize)> = Vec::new();
    let mut coverage_batches: Vec<(u64, Vec<u64>)> = Vec::new();
    // Swarm: the tally per mix, and per batch for a shard's output.
    let mut tally: Vec<MixTally> = Vec::new();
    let mut batches: Vec<(u64, Vec<MixTally>)> = Vec::new();
    // PCT: what the walks were like, and per batch for a shard's output.
    let mut pct_walks = PctStats::default();
    let mut pct_batches: Vec<(u64, PctStats)> = Vec::new();
    let mut start = args.seeds.start;
    while start < args.seeds.end {
        let end = args.seeds.end.min(start.saturating_add(BATCH));
        let batch = (start - args.seeds.start) / BATCH;
        if args.shard.is_some_and(|(i, n)| batch % n != i) {
            start = end;
            continue;
        }
        let (findings, reached, walks) =
            probe_batch(&pool, loaded.as_ref(), &faults, start..end, coverage, &bar).map_err(
                |(seed, what)| {
                    bar.finish_and_clear();
                    CliError::bug(format!(
                        "a bug: a run panicked ({what}).\n  seed: {seed}\n  replay: dsim run {} \
                     --seed {seed} (with the same --set and --bug flags; injected faults are \
                     drawn from the seed by explore only)\n  please report it with this \
                     scenario file",
                        src.name
                    ))
                },
            )?;
        searched += end - start;
        if faults.pct.is_some() {
            pct_walks.add(walks);
            if args.shard.is_some() {
                pct_batches.push((batch, walks));
            }
        }
        if faults.swarm {
            let rows = loaded.swarm_tally(start..end, &faults, &findings);
            scenarios::swarm::add_tallies(&mut tally, &rows);
            if args.shard.is_some() {
                batches.push((batch, rows));
            }
        }
        if coverage {
            let fresh = states.insert_sorted(&reached);
            curve.push((searched, states.len()));
            if args.shard.is_some() {
                coverage_batches.push((batch, fresh));
            }
        }
        for (seed, finding) in &findings {
            if !broken.insert(finding.invariant.clone()) {
                continue;
            }
            bar.set_message(format!("{} found, shrinking seed {seed}", found.len() + 1));
            let cx =
                loaded.shortest_counterexample(&findings, &finding.invariant, &faults, &origin);
            let path = out_path(&args.out, &finding.invariant, args.keep_going);
            write_atomically(&path, &cx.text)?;
            bar.set_message(format!("{} found", found.len() + 1));
            found.push(Found {
                kind: finding.kind().to_string(),
                file: path.display().to_string(),
                first_seed: *seed,
                text: args.shard.is_some().then(|| cx.text.clone()),
                counterexample: cx,
            });
            if !args.keep_going {
                break;
            }
        }
        if !found.is_empty() && !args.keep_going {
            break;
        }
        start = end;
    }
    bar.finish_and_clear();
    let seconds = started.elapsed().as_secs_f64();
    let report = Report {
        scenario: src.name.clone(),
        seeds: (args.seeds.start, args.seeds.end),
        bugs: args.bugs.clone(),
        sets: args.sets.clone(),
        faults,
        keep_going: args.keep_going,
        shard: args.shard,
        coverage: coverage.then_some(Coverage {
            distinct_states: states.len(),
            curve,
        }),
        coverage_batches,
        enumerated: faults.enumerated(loaded.summary().nodes.len()),
        swarm: faults.swarm.then_some(tally),
        swarm_batches: batches,
        pct: faults.pct.map(|_| pct_walks),
        pct_batches,
        seeds_searched: searched,
        found,
        execution: Execution { jobs },
    };
    let speed = Speed {
        seconds,
        seeds_per_second: searched as f64 / seconds.max(1e-9),
    };
    eprintln!(
        "searched {} seeds in {:.2}s ({:.0} seeds/s on {} worker threads)",
        searched, speed.seconds, speed.seeds_per_second, jobs
    );
    if let (Some(path), Some(c)) = (&args.plot, &report.coverage) {
        let points = c.curve.iter().map(|&(s, n)| (s as f64, n as f64)).collect();
        let chart = crate::chart::Chart {
            title: format!("coverage of {}", report.scenario),
            x_label: "seeds searched".into(),
            y_label: "distinct states".into(),
            log_x: false,
            log_y: false,
            series: vec![crate::chart::Series::line(
                "distinct abstract states",
                points,
                false,
            )],
        };
        crate::chart::write_plot(Some(path), &chart)?;
    }
    print(&report, args.json)
}

/// Prints a search's report (JSON or words); exit 1 when it found something.
fn print(report: &Report, json: bool) -> Result<u8, CliError> {
    if json {
        out!(
            "{}",
            serde_json::to_string_pretty(report).expect("serializes")
        );
    } else {
        print_report(report)?;
    }
    Ok(if report.found.is_empty() { OK } else { FAILED })
}

/// A batch's findings in seed order, or the seed at which a run panicked and why.
type Probed = Result<(Vec<(u64, Finding)>, Vec<u64>, PctStats), (u64, String)>;

/// Probes `seeds` on the pool; the findings in seed order, whatever thread found them, and
/// (when `coverage` is asked) the sorted distinct abstract states reached. A panicking actor is
/// a bug in the protocol: its seed comes back as the error (the lowest one, whatever thread
/// met it first).
fn probe_batch(
    pool: &rayon::ThreadPool,
    loaded: &dyn LoadedScenario,
    faults: &FaultModel,
    seeds: std::ops::Range<u64>,
    coverage: bool,
    bar: &ProgressBar,
) -> Probed {
    let seeds: Vec<u64> = seeds.collect();
    let chunks: Vec<Probed> = pool.install(|| {
        seeds
            .par_chunks(64)
            .map(|chunk| {
                let found = guarded(|| {
                    if let Some(pct) = &faults.pct {
                        let (found, walks) = loaded.pct_probe(chunk, pct);
                        (found, Vec::new(), walks)
                    } else if coverage {
                        let (found, states) = loaded.probe_covering(chunk, faults);
                        (found, states, PctStats::default())
                    } else {
                        (
                            loaded.probe_many(chunk, faults),
                            Vec::new(),
                            PctStats::default(),
                        )
                    }
                })
                .map_err(|_| {
                    // Find the seed that panics, one by one.
                    chunk
                        .iter()
                        .find_map(|&seed| {
                            guarded(|| loaded.probe(seed, faults))
                                .err()
                                .map(|e| (seed, e))
                        })
                        .unwrap_or((chunk[0], "a panic that did not repeat".into()))
                });
                bar.inc(chunk.len() as u64);
                found
            })
            .collect()
    });
    let mut findings = Vec::new();
    let mut states = Vec::new();
    let mut walks = PctStats::default();
    for chunk in chunks {
        let (found, reached, w) = chunk?;
        findings.extend(found);
        states.extend(reached);
        walks.add(w);
    }
    findings.sort_by_key(|(seed, _)| *seed);
    states.sort_unstable();
    states.dedup();
    Ok((findings, states, walks))
}

/// Runs `work`, turning a panic into its message.
fn guarded<T>(work: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).map_err(|panic| {
        panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "unknown panic".into())
    })
}

/// The most faults of each sort a search may inject per seed.
const MAX_FAULTS: u32 = 16;
/// The most rounds of enumerated partitions.
const MAX_ROUNDS: u32 = 16;

fn fault_model(args: &ExploreArgs) -> Result<FaultModel, CliError> {
    for (flag, n) in [
        ("--crashes", args.crashes),
        ("--pauses", args.pauses),
        ("--partitions", args.partitions),
    ] {
        if n > MAX_FAULTS {
            return Err(CliError::bad_input(format!(
                "{flag} {n}: at most {MAX_FAULTS} faults of a sort per seed (a few find more bugs \
                 than many: each one masks the others)"
            )));
        }
    }
    if args.window_ms == 0 || args.window_ms > scenarios::load::caps::TIME_MS {
        return Err(CliError::bad_input(format!(
            "--window-ms {}: expected 1 to {} (ms)",
            args.window_ms,
            scenarios::load::caps::TIME_MS
        )));
    }
    if args.partition_rounds > MAX_ROUNDS {
        return Err(CliError::bad_input(format!(
            "--partition-rounds {}: at most {MAX_ROUNDS} (each round multiplies the schedules by \
             2^(nodes-1))",
            args.partition_rounds
        )));
    }
    let rounds_ms = args
        .round_ms
        .saturating_mul(u64::from(args.partition_rounds));
    if args.partition_rounds > 0
        && (args.round_ms == 0 || rounds_ms > scenarios::load::caps::TIME_MS)
    {
        return Err(CliError::bad_input(format!(
            "--round-ms {}: expected 1 ms or more, and all {} rounds within {} ms",
            args.round_ms,
            args.partition_rounds,
            scenarios::load::caps::TIME_MS
        )));
    }
    let kinds = args.faults.unwrap_or_default();
    if !args.swarm && args.faults.is_some() {
        for (flag, n, kind) in [
            ("--crashes", args.crashes, "crash"),
            ("--pauses", args.pauses, "pause"),
            ("--partitions", args.partitions, "partition"),
            ("--partition-rounds", args.partition_rounds, "partition"),
        ] {
            if n > 0 && !kinds.iter().any(|k| k.name() == kind) {
                return Err(CliError::bad_input(format!(
                    "{flag} {n} injects a {kind}, which --faults {kinds} leaves out: add \
                     `{kind}` to --faults"
                )));
            }
        }
        if kinds.has(scenarios::swarm::FaultKind::Skew) {
            return Err(CliError::bad_input(
                "--faults skew: only a swarm search draws clock skews; add --swarm",
            ));
        }
    }
    Ok(FaultModel {
        kinds,
        swarm: args.swarm,
        pct: None,
        crashes: args.crashes,
        pauses: args.pauses,
        partitions: args.partitions,
        window_ms: args.window_ms,
        partition_rounds: args.partition_rounds,
        round_ms: if args.partition_rounds > 0 {
            args.round_ms
        } else {
            0
        },
    })
}

/// A PCT search's settings from the flags; its k measured on the file unless given.
fn pct_settings(
    args: &ExploreArgs,
    loaded: &dyn LoadedScenario,
    name: &str,
) -> Result<PctSettings, CliError> {
    if args.depth == 0 || args.depth > PCT_MAX_DEPTH {
        return Err(CliError::bad_input(format!(
            "--depth {}: expected 1 to {PCT_MAX_DEPTH} (the bugs PCT finds best need 1 to 3)",
            args.depth
        )));
    }
    let max_moves = args.max_depth.unwrap_or(PCT_MAX_MOVES);
    if max_moves == 0 || max_moves > PCT_MOVES_CAP {
        return Err(CliError::bad_input(format!(
            "--max-depth {max_moves}: a walk takes 1 to {PCT_MOVES_CAP} moves"
        )));
    }
    let steps = match args.pct_steps {
        Some(0) => return Err(CliError::bad_input("--pct-steps 0: expected 1 or more")),
        Some(k) => k.min(max_moves),
        None => loaded
            .pct_steps(max_moves)
            .map_err(|why| CliError::bad_input(format!("{name}: {why}")))?,
    };
    Ok(PctSettings {
        depth: args.depth,
        steps,
        max_moves,
    })
}

/// The `bugs: (...)` value that turns on `names`, each checked against the protocol's knobs.
fn bug_setting(protocol: &dyn DynProtocol, names: &[String]) -> Result<String, CliError> {
    let known: Vec<&str> = protocol.bugs().iter().map(|b| b.name).collect();
    for name in names {
        if !known.contains(&name.as_str()) {
            let hint = match scenarios::diagnostic::closest(name, known.iter().copied()) {
                Some(c) => format!("did you mean `{c}`? "),
                None => String::new(),
            };
            return Err(CliError::bad_input(format!(
                "{} has no bug knob `{name}`; {hint}`dsim explore SCENARIO --list-bugs` names them",
                protocol.name()
            )));
        }
    }
    let fields: Vec<String> = names.iter().map(|n| format!("{n}: true")).collect();
    Ok(format!("({})", fields.join(", ")))
}

fn list_bugs(protocol: &dyn DynProtocol) -> Result<u8, CliError> {
    if protocol.bugs().is_empty() {
        out!("{} has no bug knobs", protocol.name());
        return Ok(OK);
    }
    out!(
        "bug knobs of {} (turn one on with --bug NAME):",
        protocol.name()
    );
    let width = protocol
        .bugs()
        .iter()
        .map(|b| b.name.len())
        .max()
        .unwrap_or(0);
    for bug in protocol.bugs() {
        out!("  {:width$}  {}", bug.name, bug.breaks);
    }
    Ok(OK)
}

/// `found.ron` for the first invariant, or `found.agreement.ron` when each gets its own file.
fn out_path(out: &Path, invariant: &str, per_invariant: bool) -> PathBuf {
    if !per_invariant {
        return out.to_path_buf();
    }
    let stem = out
        .file_stem()
        .map_or("counterexample".into(), |s| s.to_string_lossy());
    let ext = out
        .extension()
        .map_or("ron".into(), |e| e.to_string_lossy());
    out.with_file_name(format!("{stem}.{invariant}.{ext}"))
}

/// The search in words, for the counterexample's header.
pub(crate) fn origin(
    scenario: &str,
    bugs: &[String],
    sets: &[String],
    faults: &FaultModel,
) -> String {
    let mut words = format!("dsim explore {scenario}");
    for (flag, n) in [
        ("--crashes", faults.crashes),
        ("--pauses", faults.pauses),
        ("--partitions", faults.partitions),
    ] {
        if n > 0 {
            words.push_str(&format!(" {flag} {n}"));
        }
    }
    if faults.crashes + faults.pauses + faults.partitions > 0 {
        words.push_str(&format!(" --window-ms {}", faults.window_ms));
    }
    if faults.partition_rounds > 0 {
        words.push_str(&format!(
            " --partition-rounds {} --round-ms {}",
            faults.partition_rounds, faults.round_ms
        ));
    }
    if faults.kinds != FaultKinds::ALL {
        words.push_str(&format!(
            " --faults {}",
            faults.kinds.to_string().replace('+', ",")
        ));
    }
    if faults.swarm {
        words.push_str(&format!(" --swarm --window-ms {}", faults.window_ms));
    }
    if let Some(pct) = &faults.pct {
        words.push_str(&format!(
            " --strategy pct --depth {} --pct-steps {} --max-depth {}",
            pct.depth, pct.steps, pct.max_moves
        ));
    }
    for bug in bugs {
        words.push_str(&format!(" --bug {bug}"));
    }
    for set in sets {
        words.push_str(&format!(" --set '{set}'"));
    }
    words
}

fn progress(seeds: u64, json: bool) -> ProgressBar {
    if !std::io::stderr().is_terminal() || json {
        return ProgressBar::hidden();
    }
    ProgressBar::new(seeds).with_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} seeds, {per_sec}, {eta} left  {msg}")
            .expect("a valid template"),
    )
}

fn print_report(report: &Report) -> Result<(), CliError> {
    let mut flags = String::new();
    for bug in &report.bugs {
        flags.push_str(&format!(" --bug {bug}"));
    }
    out!(
        "explored {}{flags}: seeds {}..{}",
        report.scenario,
        report.seeds.0,
        report.seeds.0 + report.seeds_searched
    );
    if let Some(n) = report.enumerated {
        let (from, to) = (report.seeds.0, report.seeds.0 + report.seeds_searched);
        let covered = from.min(n)..to.min(n);
        let all = if covered == (0..n) {
            "every one of them"
        } else {
            "not all of them: search seeds 0..N with N the count to try each once"
        };
        out!(
            "enumerated partitions: {} rounds of {} ms give {n} schedules; seeds {}..{} tried {} \
             ({all})",
            report.faults.partition_rounds,
            report.faults.round_ms,
            covered.start,
            covered.end,
            covered.end - covered.start
        );
    }
    if let Some(c) = &report.coverage {
        let growth: Vec<String> = c
            .curve
            .iter()
            .map(|(seeds, states)| format!("{states} after {seeds}"))
            .collect();
        out!(
            "coverage: {} distinct states (actors, statuses, messages in flight; no times): {}",
            c.distinct_states,
            growth.join(", ")
        );
    }
    if let Some(rows) = &report.swarm {
        print_swarm(rows)?;
    }
    if let (Some(walks), Some(pct)) = (&report.pct, &report.faults.pct) {
        print_pct(walks, pct)?;
    }
    if report.found.is_empty() {
        out!("no invariant broke in {} seeds", report.seeds_searched);
        return Ok(());
    }
    for f in &report.found {
        let cx = &f.counterexample;
        out!();
        let what = if f.kind == "liveness" {
            "no progress (liveness)".to_string()
        } else {
            format!("{} broke", cx.finding.invariant)
        };
        out!(
            "{what} at seed {} (step {}, {}): {}",
            cx.seed,
            cx.finding.step,
            sim_core::Instant(cx.finding.time_ns),
            cx.finding.message
        );
        out!(
            "shrunk {} decisions (faults, message fates) to {} in {} runs:",
            cx.recorded,
            cx.choices.len(),
            cx.shrink_runs
        );
        for choice in &cx.choices {
            out!("    {choice}");
        }
        if cx.choices.is_empty() {
            out!("    (none: the healthy network breaks it)");
        }
        let replay = if cx.replays {
            "replays"
        } else {
            "DOES NOT replay (a bug: please report it)"
        };
        out!("wrote {} ({replay}): dsim run {}", f.file, f.file);
    }
    Ok(())
}

/// The swarm tally as a table: per mix, its seeds and the seeds that broke each invariant.
fn print_swarm(rows: &[MixTally]) -> Result<(), CliError> {
    let width = rows.iter().map(|r| r.mix.len()).max().unwrap_or(3).max(3);
    out!("swarm: seeds per fault mix, and how many broke what");
    out!("  {:width$}  {:>8}  found", "mix", "seeds");
    for row in rows {
        let found: Vec<String> = row.found.iter().map(|(k, n)| format!("{k} {n}")).collect();
        let found = if found.is_empty() {
            "-".to_string()
        } else {
            found.join(", ")
        };
        out!("  {:width$}  {:>8}  {found}", row.mix, row.seeds);
    }
    Ok(())
}

/// What the PCT walks were like, and the probability PCTCP's theorem gives for them.
fn print_pct(walks: &PctStats, pct: &PctSettings) -> Result<(), CliError> {
    let bound = sim_core::exhaustive::pct_bound(walks.max_chains, walks.max_moves, pct.depth);
    out!(
        "pct: {} walks of depth {} (change points within {} moves); the longest took {} moves \
         and made {} chains",
        walks.walks,
        pct.depth,
        pct.steps,
        walks.max_moves,
        walks.max_chains
    );
    out!(
        "PCTCP's bound (Ozkan et al. 2018) for a bug of depth {} in such runs: each walk finds \
         it with probability at least 1/(w² · k^(d-1)) = 1 in {:.0} (width w <= {} chains, k <= \
         {} events)",
        pct.depth,
        1.0 / bound,
        walks.max_chains,
        walks.max_moves
    );
    Ok(())
}
