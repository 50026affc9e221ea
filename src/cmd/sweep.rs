//! `dsim sweep`: one scenario over a range of seeds (and config variants), as a table of
//! outcomes and figures.

use crate::exit::{CliError, FAILED, OK};
use crate::flags::apply_sets;
use crate::output::out;
use crate::source::{render_problems, resolve};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use scenarios::sweep::{SeedOutcome, SweepSummary, parse_seeds, summarize};
use serde::Serialize;
use std::io::IsTerminal;
use traces::MeasureKind;

/// Arguments of `dsim sweep`.
#[derive(clap::Args, Debug)]
pub struct SweepArgs {
    /// The scenario: a path or a bundled name (`raft/split-votes`).
    pub scenario: String,
    /// Seeds to run: a range, `0..1000` (1000 excluded) or `0..=999`.
    #[arg(long, value_parser = parse_seeds)]
    pub seeds: std::ops::Range<u64>,
    /// Vary a config field across runs: `KEY=V1|V2|...` (RON values). Repeat for a grid.
    /// Example: --vary 'election_timeout_ms=(150,151)|(150,160)|(150,200)|(150,300)'
    /// Example: --vary 'bugs=(vote_twice: false)|(vote_twice: true)'
    #[arg(long, value_name = "KEY=V1|V2")]
    pub vary: Vec<String>,
    /// Worker threads (default: every core). Results are identical at any count; how many
    /// threads ran is reported on stderr (and under `execution` in --json).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Print the results as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct VariantReport {
    sets: Vec<String>,
    summary: SweepSummary,
}

/// How the sweep ran (not part of its results: these depend on the machine and `--jobs`).
#[derive(Serialize)]
struct Execution {
    jobs: usize,
    threads_used: usize,
}

#[derive(Serialize)]
struct SweepReport {
    scenario: String,
    seeds: (u64, u64),
    variants: Vec<VariantReport>,
    execution: Execution,
}

/// The most runs one sweep may ask for (seeds x variants): beyond, the user almost surely
/// mistyped a range, and the machine would be busy for days.
const MAX_RUNS: u64 = 10_000_000;
/// The most worker threads.
const MAX_JOBS: usize = 256;

/// Parses `--vary` flags into their grid of (key, value) settings.
fn grid(vary: &[String]) -> Result<Vec<Vec<(String, String)>>, CliError> {
    let mut grid: Vec<Vec<(String, String)>> = vec![Vec::new()];
    for v in vary {
        let Some((key, values)) = v.split_once('=') else {
            return Err(CliError::bad_input(format!(
                "--vary `{v}`: write KEY=V1|V2, e.g. --vary 'heartbeat_ms=20|50'"
            )));
        };
        let key = key.trim();
        let values: Vec<&str> = values.split('|').map(str::trim).collect();
        if key.is_empty() || values.iter().any(|x| x.is_empty()) {
            return Err(CliError::bad_input(format!(
                "--vary `{v}`: a key and non-empty values are needed, e.g. 'heartbeat_ms=20|50'"
            )));
        }
        grid = grid
            .into_iter()
            .flat_map(|row| {
                values.iter().map(move |value| {
                    let mut row = row.clone();
                    row.push((key.to_string(), value.to_string()));
                    row
                })
            })
            .collect();
    }
    Ok(grid)
}

/// Runs `dsim sweep`.
pub fn run(args: SweepArgs) -> Result<u8, CliError> {
    let src = resolve(&args.scenario)?;
    let protocol = scenarios::registry::protocol_for(&src.name, &src.text)
        .map_err(|p| CliError::bad_input(render_problems(&p)))?;
    let rows = grid(&args.vary)?;
    let mut variants = Vec::new();
    for sets in &rows {
        let text = apply_sets(&src.text, sets)?;
        let loaded = protocol.load(&src.name, &text).map_err(|p| {
            CliError::bad_input(format!("{}\n(with {})", render_problems(&p), label(sets)))
        })?;
        variants.push(loaded);
    }
    let runs = (args.seeds.end - args.seeds.start).saturating_mul(variants.len() as u64);
    if runs > MAX_RUNS {
        return Err(CliError::bad_input(format!(
            "{runs} runs ({} seeds x {} variants) is more than {MAX_RUNS}: narrow --seeds, \
             e.g. --seeds 0..1000",
            args.seeds.end - args.seeds.start,
            variants.len()
        )));
    }
    if args.jobs.is_some_and(|j| j == 0 || j > MAX_JOBS) {
        return Err(CliError::bad_input(format!(
            "--jobs must be between 1 and {MAX_JOBS} (default: every core)"
        )));
    }
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
        .map_err(|e| CliError::bug(format!("cannot start {jobs} worker threads: {e}")))?;
    let seeds: Vec<u64> = args.seeds.clone().collect();
    let total = (seeds.len() * variants.len()) as u64;
    let bar = if std::io::stderr().is_terminal() && !args.json {
        ProgressBar::new(total).with_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} runs, {eta} left")
                .expect("a valid template"),
        )
    } else {
        ProgressBar::hidden()
    };
    // Each variant was parsed once; threads take chunks of its seeds, and results come back
    // in seed order whatever thread ran them.
    let chunks: Vec<(usize, &[u64])> = (0..variants.len())
        .flat_map(|v| seeds.chunks(16).map(move |c| (v, c)))
        .collect();
    let tick = || bar.inc(1);
    let results: Vec<(usize, Option<usize>, Vec<SeedOutcome>)> = pool.install(|| {
        chunks
            .par_iter()
            .map(|(v, chunk)| {
                let out = chunk
                    .iter()
                    .map(|&seed| {
                        let outcome = variants[*v].measure(seed);
                        tick();
                        outcome
                    })
                    .collect();
                (*v, rayon::current_thread_index(), out)
            })
            .collect()
    });
    bar.finish_and_clear();
    let threads_used = {
        let mut t: Vec<usize> = results.iter().filter_map(|r| r.1).collect();
        t.sort_unstable();
        t.dedup();
        t.len()
    };
    let mut per_variant: Vec<Vec<SeedOutcome>> = vec![Vec::new(); variants.len()];
    for (v, _, outcomes) in results {
        per_variant[v].extend(outcomes);
    }
    let report = SweepReport {
        scenario: src.name.clone(),
        seeds: (args.seeds.start, args.seeds.end),
        execution: Execution { jobs, threads_used },
        variants: rows
            .iter()
            .zip(&per_variant)
            .map(|(sets, outcomes)| VariantReport {
                sets: sets.iter().map(|(k, v)| format!("{k}={v}")).collect(),
                summary: summarize(outcomes),
            })
            .collect(),
    };
    let failed = report
        .variants
        .iter()
        .any(|v| v.summary.passed < v.summary.runs);
    if args.json {
        out!(
            "{}",
            serde_json::to_string_pretty(&report).expect("serializes")
        );
    } else {
        print_report(&report, &rows)?;
    }
    Ok(if failed { FAILED } else { OK })
}

fn label(sets: &[(String, String)]) -> String {
    if sets.is_empty() {
        "the file as written".to_string()
    } else {
        sets.iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Whether a figure says anything in this sweep: some variant reached it (and, for a flag, saw
/// it set). A figure no run ever reached (no fault to measure after, a stale node where every
/// log is equal) is left out of the table rather than printed as noise.
fn telling(report: &SweepReport, name: &str) -> bool {
    report.variants.iter().any(|v| {
        v.summary.measures.iter().any(|m| {
            m.name == name
                && m.runs > 0
                && (m.kind != MeasureKind::Flag || m.median.unwrap_or(0) > 0)
        })
    })
}

fn ms(ns: u64) -> String {
    format!("{:.1}ms", ns as f64 / 1e6)
}

fn print_report(report: &SweepReport, rows: &[Vec<(String, String)>]) -> Result<(), CliError> {
    // How it ran goes to stderr: standard output is the results, identical at any --jobs.
    eprintln!(
        "ran on {} worker threads (--jobs {})",
        report.execution.threads_used, report.execution.jobs
    );
    out!(
        "{}: seeds {}..{} ({} runs per variant)",
        report.scenario,
        report.seeds.0,
        report.seeds.1,
        report.seeds.1 - report.seeds.0
    );
    for (variant, sets) in report.variants.iter().zip(rows) {
        let s = &variant.summary;
        out!();
        out!("{}", label(sets));
        let violations = if s.violations.is_empty() {
            "no safety violations".to_string()
        } else {
            s.violations
                .iter()
                .map(|(k, n)| format!("{k} in {n} runs"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        out!("  {} runs, {} passed; {violations}", s.runs, s.passed);
        for m in s.measures.iter().filter(|m| telling(report, m.name)) {
            let line = match m.kind {
                MeasureKind::Flag => format!(
                    "{:.1} % of runs ({} of {})",
                    100.0 * m.median.unwrap_or(0) as f64 / m.runs.max(1) as f64,
                    m.median.unwrap_or(0),
                    m.runs
                ),
                MeasureKind::Count | MeasureKind::Nanos if m.runs == 0 => "never reached".into(),
                MeasureKind::Count => format!(
                    "median {}  p90 {}  max {}  ({} runs)",
                    m.median.unwrap_or(0),
                    m.p90.unwrap_or(0),
                    m.max.unwrap_or(0),
                    m.runs
                ),
                MeasureKind::Nanos => format!(
                    "median {}  p90 {}  max {}  ({} runs)",
                    ms(m.median.unwrap_or(0)),
                    ms(m.p90.unwrap_or(0)),
                    ms(m.max.unwrap_or(0)),
                    m.runs
                ),
            };
            out!("  {:24} {line}", m.name);
        }
        if let Some(seed) = s.first_failure {
            let sets: String = sets
                .iter()
                .map(|(k, v)| format!(" --set '{k}={v}'"))
                .collect();
            out!(
                "  first failing seed {seed}: dsim run {} --seed {seed}{sets}",
                report.scenario
            );
        }
    }
    Ok(())
}
