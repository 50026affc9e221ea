//! `dsim explore --exhaustive`: every state of a small configuration, counted; a violation's
//! shortest path written as a scenario file that `dsim run` replays.

use super::frontier::{FrontierMode, WorkDir};
use super::timely::Engine;
use super::{ExploreArgs, budget};
use crate::exit::{CliError, FAILED, INTERRUPTED, OK};
use crate::output::pending::StopGuard;
use crate::output::{out, refuse_own_input, write_atomically};
use indicatif::{ProgressBar, ProgressStyle};
use scenarios::exhaustive::{Outcome, Settings};
use scenarios::explore::FaultModel;
use scenarios::registry::LoadedScenario;
use serde::Serialize;
use sim_core::exhaustive::{Interrupt, Order};
use std::io::IsTerminal;
use std::path::Path;
// Wall-clock time only for the speed line on stderr; it never reaches the results.
#[allow(clippy::disallowed_types)]
use std::time::Instant as WallClock;

/// How many states `--frontier auto` explores in memory before it starts over on disk: a
/// search this small is over in a second, where a level file's sync would cost more than it
/// saves; a larger one is as fast on disk, in a tenth of the memory.
const AUTO_IN_MEMORY_STATES: u64 = 200_000;

/// The most threads an exhaustive search may ask for.
const MAX_JOBS: usize = 256;

/// What `--json` prints: the settings, the outcome, where the counterexample went.
#[derive(Serialize)]
struct Report<'a> {
    scenario: &'a str,
    order: &'static str,
    max_depth: Option<u32>,
    loss_budget: u32,
    dup_budget: u32,
    max_epoch: Option<u64>,
    symmetry: bool,
    /// Where breadth first kept its frontier: "memory" or "disk".
    frontier: &'static str,
    /// Which engine ran the search: "local" or "timely".
    engine: &'static str,
    bugs: &'a [String],
    sets: &'a [String],
    #[serde(flatten)]
    outcome: &'a Outcome,
    /// Where the counterexample was written, if one was found.
    file: Option<String>,
}

/// Runs an exhaustive search of `loaded` as `args` say.
pub fn run(
    args: &ExploreArgs,
    loaded: &dyn LoadedScenario,
    name: &str,
    text: &str,
) -> Result<u8, CliError> {
    for (flag, used) in [
        ("--crashes", args.crashes > 0),
        ("--pauses", args.pauses > 0),
        ("--partitions", args.partitions > 0),
        ("--shard", args.shard.is_some()),
        ("--coverage", args.coverage || args.plot.is_some()),
    ] {
        if used {
            return Err(CliError::bad_input(format!(
                "{flag} belongs to the random search; an exhaustive search tries every order \
                 (put faults in the file's timeline, where they happen in order anywhere)"
            )));
        }
    }
    let jobs = match args.jobs {
        Some(0) => return Err(CliError::bad_input("--jobs 0: give at least one thread")),
        Some(n) if n > MAX_JOBS => {
            return Err(CliError::bad_input(format!(
                "--jobs {n}: at most {MAX_JOBS} threads"
            )));
        }
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, usize::from),
    };
    refuse_own_input(&args.out, Path::new(name))?;
    let on_disk = args.frontier == FrontierMode::Disk
        || args.checkpoint.is_some()
        || args.resume.is_some()
        || args.work_dir.is_some();
    if args.dfs && (on_disk || args.frontier != FrontierMode::Auto) {
        return Err(CliError::bad_input(
            "--frontier, --work-dir, --checkpoint and --resume are breadth first's: depth first \
             keeps no frontier, only 7 bytes a visited state",
        ));
    }
    let budget = budget::budget(args.max_memory);
    let interrupt = Interrupt::default();
    // Ctrl-C stops the local engine's search cleanly; timely's workers are not told (a
    // Ctrl-C ends the process, as without a search).
    let _routed = (args.engine == Engine::Local).then(|| StopGuard::new(&interrupt));
    let mut settings = Settings {
        order: if args.dfs { Order::Dfs } else { Order::Bfs },
        max_depth: args.max_depth,
        loss_budget: args.loss_budget,
        dup_budget: args.dup_budget,
        jobs,
        max_epoch: args.max_epoch,
        keep_going: args.keep_going,
        max_states: args.max_states,
        symmetry: args.symmetry,
        memory: budget.and_then(budget::gauge),
        disk: None,
        interrupt: Some(interrupt),
    };
    let origin = format!(
        "{} --exhaustive{}",
        super::origin(name, &args.bugs, &args.sets, &FaultModel::default()),
        flags(args)
    );
    let bar = if std::io::stderr().is_terminal() && !args.json {
        ProgressBar::new_spinner().with_style(
            ProgressStyle::with_template("{spinner} {msg} ({elapsed})").expect("a valid template"),
        )
    } else {
        ProgressBar::hidden()
    };
    #[allow(clippy::disallowed_types)]
    let started = WallClock::now();
    let search = |settings: &Settings| {
        loaded
            .exhaustive(settings, &origin, &mut |stats| {
                bar.set_message(format!(
                    "{} states, {} transitions, depth {}",
                    stats.unique_states, stats.transitions, stats.max_depth
                ));
            })
            .map_err(|why| CliError::bad_input(format!("{name}: {why}")))
    };
    let identity = xxhash_rust::xxh3::xxh3_64(format!("{text}\n{}", flags(args)).as_bytes());
    let mut work = None;
    let outcome = if args.engine == Engine::Timely {
        let shown = bar.clone();
        let progress = std::sync::Arc::new(move |stats: &sim_core::exhaustive::Stats| {
            shown.set_message(format!(
                "{} states, {} transitions, depth {}",
                stats.unique_states, stats.transitions, stats.max_depth
            ));
        });
        match super::timely::search(args, loaded, name, text, &settings, &origin, progress)? {
            Some(outcome) => outcome,
            None => {
                bar.finish_and_clear();
                eprintln!(
                    "process {} of {}: done (process 0 reports)",
                    args.process, args.processes
                );
                return Ok(OK);
            }
        }
    } else if on_disk || settings.order == Order::Dfs {
        if on_disk {
            let dir = WorkDir::choose(
                args.resume.as_deref(),
                args.checkpoint.as_deref(),
                args.work_dir.as_deref(),
            )?;
            settings.disk = Some(dir.frontier(identity));
            work = Some(dir);
        }
        search(&settings)?
    } else if args.frontier == FrontierMode::Memory {
        search(&settings)?
    } else {
        // Auto: in memory while the search is small; past that, from the start again on disk,
        // which is as fast and keeps a tenth of the memory or less.
        let in_memory = Settings {
            memory: budget.and_then(|b| budget::gauge(b / 4)),
            max_states: settings.max_states.min(AUTO_IN_MEMORY_STATES),
            ..settings.clone()
        };
        let outcome = search(&in_memory)?;
        let outgrew = (outcome.hit_memory_limit && budget.is_some())
            || (outcome.hit_state_limit && settings.max_states > AUTO_IN_MEMORY_STATES);
        if outgrew && outcome.violation.is_none() && !outcome.interrupted {
            let dir = WorkDir::choose(None, None, None)?;
            eprintln!(
                "more than {} states: starting over with the frontier on disk, in {}",
                outcome.unique_states,
                dir.path.display()
            );
            settings.disk = Some(dir.frontier(identity));
            work = Some(dir);
            search(&settings)?
        } else {
            outcome
        }
    };
    bar.finish_and_clear();
    if let Some(dir) = work.as_mut()
        && outcome.interrupted
    {
        let temporary = dir.keep();
        eprintln!(
            "the search's files are in {}{}: go on with --resume {}",
            dir.path.display(),
            if temporary { " (kept)" } else { "" },
            dir.path.display()
        );
    }
    let seconds = started.elapsed().as_secs_f64();
    let mut file = None;
    if let Some(v) = &outcome.violation {
        write_atomically(&args.out, &v.text)?;
        file = Some(args.out.display().to_string());
    }
    // Depth first under a depth bound re-expands states reached closer, on one thread.
    let threads = if args.engine == Engine::Timely {
        args.workers * args.processes
    } else if settings.order == Order::Dfs && settings.max_depth.is_some() {
        1
    } else {
        jobs
    };
    eprintln!(
        "explored {} states in {seconds:.2}s ({:.0} states/s on {threads} thread{})",
        outcome.unique_states,
        outcome.unique_states as f64 / seconds.max(1e-9),
        if threads == 1 { "" } else { "s" }
    );
    let report = Report {
        scenario: name,
        order: match settings.order {
            Order::Bfs => "bfs",
            Order::Dfs => "dfs",
        },
        max_depth: args.max_depth,
        loss_budget: args.loss_budget,
        dup_budget: args.dup_budget,
        max_epoch: args.max_epoch,
        symmetry: args.symmetry,
        frontier: if work.is_some() { "disk" } else { "memory" },
        engine: match args.engine {
            Engine::Local => "local",
            Engine::Timely => "timely",
        },
        bugs: &args.bugs,
        sets: &args.sets,
        outcome: &outcome,
        file,
    };
    if args.json {
        out!(
            "{}",
            serde_json::to_string_pretty(&report).expect("serializes")
        );
    } else {
        print_words(&report)?;
    }
    Ok(if outcome.violation.is_some() {
        FAILED
    } else if outcome.interrupted {
        INTERRUPTED
    } else {
        OK
    })
}

/// The search's own flags, as they were given (for the counterexample's origin line).
fn flags(args: &ExploreArgs) -> String {
    let mut words = String::new();
    if args.dfs {
        words.push_str(" --dfs");
    }
    for (flag, value) in [
        ("--max-depth", args.max_depth.map(u64::from)),
        (
            "--loss-budget",
            Some(u64::from(args.loss_budget)).filter(|&k| k > 0),
        ),
        (
            "--dup-budget",
            Some(u64::from(args.dup_budget)).filter(|&k| k > 0),
        ),
        ("--max-epoch", args.max_epoch),
    ] {
        if let Some(v) = value {
            words.push_str(&format!(" {flag} {v}"));
        }
    }
    if args.symmetry {
        words.push_str(" --symmetry");
    }
    words
}

fn print_words(report: &Report<'_>) -> Result<(), CliError> {
    let o = report.outcome;
    out!(
        "explored {} exhaustively ({}{}): {} distinct states, {} transitions, depth {}",
        report.scenario,
        report.order,
        flags_words(report),
        o.unique_states,
        o.transitions,
        o.max_depth
    );
    let coverage = if o.complete && o.hit_depth_limit {
        format!(
            "every state within {} moves was visited",
            report.max_depth.unwrap_or_default()
        )
    } else if o.complete {
        "every reachable state was visited".to_string()
    } else if o.hit_run_limit {
        "some states stopped at the file's in-flight limit and were not expanded: incomplete"
            .to_string()
    } else if o.interrupted {
        format!(
            "interrupted after {} states (Ctrl-C): incomplete",
            o.unique_states
        )
    } else if o.hit_memory_limit {
        format!(
            "stopped at the memory budget after {} states (--max-memory): incomplete; to go \
             further add --symmetry, --max-depth N or --dfs (which keeps 7 bytes a state), or \
             give a larger --max-memory",
            o.unique_states
        )
    } else if o.hit_state_limit {
        format!(
            "stopped at {} states (--max-states): incomplete",
            o.unique_states
        )
    } else {
        "stopped at the first violation (--keep-going counts every state)".to_string()
    };
    out!(
        "  {coverage}; {} states with nothing left to happen",
        o.terminal_states
    );
    out!(
        "  states are told apart by 64-bit fingerprints: the chance that two shared one, so \
         that one was never explored, is at most {:.1e}",
        o.collision_probability
    );
    for s in &o.sometimes {
        match s.depth {
            Some(d) => out!(
                "  sometimes \"{}\": reached, {d} moves from the start",
                s.name
            ),
            None => out!("  sometimes \"{}\": never reached", s.name),
        }
    }
    match (&o.violation, &report.file) {
        (Some(v), Some(file)) => {
            out!(
                "  violation: {} after {} moves: {}",
                v.invariants.join(", "),
                v.depth,
                v.message
            );
            out!(
                "  written to {file} ({}); replay: dsim run {file}",
                if v.replays {
                    "it replays"
                } else {
                    "WARNING: its timed replay does not break the same invariants"
                }
            );
        }
        _ => out!("  no invariant broke"),
    }
    Ok(())
}

fn flags_words(report: &Report<'_>) -> String {
    let mut words = String::new();
    if let Some(d) = report.max_depth {
        words.push_str(&format!(", depth at most {d}"));
    }
    if report.loss_budget > 0 {
        words.push_str(&format!(", up to {} lost", report.loss_budget));
    }
    if report.dup_budget > 0 {
        words.push_str(&format!(", up to {} duplicated", report.dup_budget));
    }
    if let Some(e) = report.max_epoch {
        words.push_str(&format!(", epochs up to {e}"));
    }
    for bug in report.bugs {
        words.push_str(&format!(", bug {bug}"));
    }
    for group in &report.outcome.interchangeable {
        words.push_str(&format!(", {} interchangeable", group.join("/")));
    }
    words
}
