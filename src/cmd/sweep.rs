//! `dsim sweep`: one scenario over a range of seeds (and config variants), as a table of
//! outcomes and figures.

use crate::exit::{CliError, FAILED, OK};
use crate::flags::{apply_sets, parse_lang, parse_sets, worker_pool};
use crate::output::out;
use crate::source::{render_problems, resolve};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use scenarios::sweep::{SeedOutcome, SweepSummary, parse_seeds, summarize};
use scenarios::vary::Grid;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::io::IsTerminal;
use traces::{Lang, MeasureKind};

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
    /// Override a config field in every run (RON value), before the variants; repeat for
    /// several. Example: --set 'bugs=(vote_twice: true)'
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    /// Worker threads (default: every core). Results are identical at any count; how many
    /// threads ran is reported on stderr (and under `execution` in --json).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Print the results as JSON.
    #[arg(long)]
    pub json: bool,
    /// Language of the table: en, or es (the course's Spanish). Figures' names stay as they
    /// are (they are the JSON's keys). Example: --lang es
    #[arg(long, default_value = "en", value_parser = parse_lang)]
    pub lang: Lang,
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
    /// The --set overrides every run has (empty: none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    sets: Vec<String>,
    variants: Vec<VariantReport>,
    execution: Execution,
}

/// The most runs one sweep may ask for (seeds x variants): beyond, the user almost surely
/// mistyped a range, and the machine would be busy for days.
const MAX_RUNS: u64 = 10_000_000;

/// One batch of variants of a sweep: each loaded (parsed once), its seeds run in chunks on the
/// pool, only each variant's summary kept. Results come back in seed order whatever thread ran
/// them.
struct Batch<'a> {
    protocol: &'static dyn scenarios::DynProtocol,
    src: &'a crate::source::Source,
    seeds: &'a [u64],
    bar: &'a ProgressBar,
}

impl Batch<'_> {
    fn run(
        &self,
        pool: &rayon::ThreadPool,
        rows: &[Vec<(String, String)>],
        threads: &mut BTreeSet<usize>,
    ) -> Result<Vec<VariantReport>, CliError> {
        let mut loaded = Vec::with_capacity(rows.len());
        for sets in rows {
            let text = apply_sets(&self.src.text, sets)?;
            loaded.push(self.protocol.load(&self.src.name, &text).map_err(|p| {
                CliError::bad_input(format!("{}\n(with {})", render_problems(&p), label(sets)))
            })?);
        }
        let chunks: Vec<(usize, &[u64])> = (0..loaded.len())
            .flat_map(|v| self.seeds.chunks(16).map(move |c| (v, c)))
            .collect();
        let results: Vec<(usize, Option<usize>, Vec<SeedOutcome>)> = pool.install(|| {
            chunks
                .par_iter()
                .map(|(v, chunk)| {
                    let out = chunk
                        .iter()
                        .map(|&seed| {
                            let outcome = loaded[*v].measure(seed);
                            self.bar.inc(1);
                            outcome
                        })
                        .collect();
                    (*v, rayon::current_thread_index(), out)
                })
                .collect()
        });
        let mut per_variant: Vec<Vec<SeedOutcome>> = vec![Vec::new(); loaded.len()];
        for (v, thread, outcomes) in results {
            threads.extend(thread);
            per_variant[v].extend(outcomes);
        }
        Ok(rows
            .iter()
            .zip(&per_variant)
            .map(|(sets, outcomes)| VariantReport {
                sets: sets.iter().map(|(k, v)| format!("{k}={v}")).collect(),
                summary: summarize(outcomes),
            })
            .collect())
    }
}

/// Variants loaded and run at a time: memory stays bounded however large the grid.
const VARIANTS_AT_ONCE: u64 = 32;

/// Runs `dsim sweep`.
pub fn run(args: SweepArgs) -> Result<u8, CliError> {
    let mut src = resolve(&args.scenario)?;
    src.text = apply_sets(&src.text, &parse_sets(&args.sets)?)?;
    let protocol = scenarios::registry::protocol_for(&src.name, &src.text)
        .map_err(|p| CliError::bad_input(render_problems(&p)))?;
    let grid = Grid::parse(&args.vary).map_err(CliError::bad_input)?;
    // Each value alone, before anything runs: a bad one is refused up front, not after the
    // batches before it (each variant is still parsed once more when its batch runs).
    for (key, value) in grid.each_setting() {
        let sets = [(key.to_string(), value.to_string())];
        let text = apply_sets(&src.text, &sets)?;
        protocol.validate(&src.name, &text).map_err(|p| {
            CliError::bad_input(format!("{}\n(with {})", render_problems(&p), label(&sets)))
        })?;
    }
    let seed_count = args.seeds.end.saturating_sub(args.seeds.start);
    let runs = seed_count.saturating_mul(grid.len());
    if runs > MAX_RUNS {
        return Err(CliError::bad_input(format!(
            "{runs} runs ({seed_count} seeds x {} variants) is more than {MAX_RUNS}: narrow \
             --seeds, e.g. --seeds 0..1000",
            grid.len()
        )));
    }
    let seeds: Vec<u64> = args.seeds.clone().collect();
    let (pool, jobs) = worker_pool(args.jobs)?;
    let bar = if std::io::stderr().is_terminal() && !args.json {
        ProgressBar::new(runs).with_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} runs, {eta} left")
                .expect("a valid template"),
        )
    } else {
        ProgressBar::hidden()
    };
    let mut variants = Vec::new();
    let mut threads = BTreeSet::new();
    for first in (0..grid.len()).step_by(VARIANTS_AT_ONCE as usize) {
        let rows: Vec<Vec<(String, String)>> = (first..grid.len().min(first + VARIANTS_AT_ONCE))
            .map(|i| grid.row(i))
            .collect();
        let batch = Batch {
            protocol,
            src: &src,
            seeds: &seeds,
            bar: &bar,
        };
        variants.extend(batch.run(&pool, &rows, &mut threads)?);
    }
    bar.finish_and_clear();
    let report = SweepReport {
        scenario: src.name.clone(),
        sets: args.sets.clone(),
        seeds: (args.seeds.start, args.seeds.end),
        execution: Execution {
            jobs,
            threads_used: threads.len(),
        },
        variants,
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
        print_report(&report, args.lang)?;
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

/// "relay-2 in 112 runs (56.0 %), relay-1 in 88 (44.0 %)": most frequent first, then by label.
fn tally_line(tally: &BTreeMap<String, usize>, runs: usize, lang: Lang) -> String {
    let es = lang == Lang::Es;
    if tally.is_empty() {
        return if es {
            "nunca alcanzado"
        } else {
            "never reached"
        }
        .into();
    }
    let mut by_count: Vec<(&String, &usize)> = tally.iter().collect();
    by_count.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    by_count
        .iter()
        .enumerate()
        .map(|(i, (label, n))| {
            let share = 100.0 * **n as f64 / runs.max(1) as f64;
            let runs_word = match (i, es) {
                (0, false) => " runs",
                (0, true) => " ejecuciones",
                _ => "",
            };
            let inn = if es { "en" } else { "in" };
            format!("{label} {inn} {n}{runs_word} ({share:.1} %)")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn ms(ns: u64) -> String {
    format!("{:.1}ms", ns as f64 / 1e6)
}

fn print_report(report: &SweepReport, lang: Lang) -> Result<(), CliError> {
    let es = lang == Lang::Es;
    let say = |en: &'static str, spanish: &'static str| if es { spanish } else { en };
    // How it ran goes to stderr: standard output is the results, identical at any --jobs.
    let (threads, jobs) = (report.execution.threads_used, report.execution.jobs);
    if es {
        eprintln!("se ejecutó en {threads} hilos de trabajo (--jobs {jobs})");
    } else {
        eprintln!("ran on {threads} worker threads (--jobs {jobs})");
    }
    let with = if report.sets.is_empty() {
        String::new()
    } else {
        format!(" {} {}", say("with", "con"), report.sets.join(", "))
    };
    out!(
        "{}{with}: {} {}..{} ({} {})",
        report.scenario,
        say("seeds", "semillas"),
        report.seeds.0,
        report.seeds.1,
        report.seeds.1 - report.seeds.0,
        say("runs per variant", "ejecuciones por variante")
    );
    let runs = say("runs", "ejecuciones");
    for variant in &report.variants {
        let s = &variant.summary;
        out!();
        if variant.sets.is_empty() && report.sets.is_empty() {
            out!("{}", say("the file as written", "el fichero tal cual"));
        } else if variant.sets.is_empty() {
            out!(
                "{} {}",
                say("the file with", "el fichero con"),
                report.sets.join(", ")
            );
        } else {
            out!("{}", variant.sets.join(", "));
        }
        let violations = if s.violations.is_empty() {
            say("no safety violations", "ninguna violación de seguridad").to_string()
        } else {
            s.violations
                .iter()
                .map(|(k, n)| format!("{k} {} {n} {runs}", say("in", "en")))
                .collect::<Vec<_>>()
                .join(", ")
        };
        out!(
            "  {} {runs}, {} {}; {violations}",
            s.runs,
            s.passed,
            say("passed", "superadas")
        );
        for m in s.measures.iter().filter(|m| telling(report, m.name)) {
            let spread = |f: &dyn Fn(u64) -> String| {
                format!(
                    "{} {}  p90 {}  {} {}  ({} {runs})",
                    say("median", "mediana"),
                    f(m.median.unwrap_or(0)),
                    f(m.p90.unwrap_or(0)),
                    say("max", "máx"),
                    f(m.max.unwrap_or(0)),
                    m.runs
                )
            };
            let line = match m.kind {
                MeasureKind::Flag => format!(
                    "{:.1} % {} ({} {} {})",
                    100.0 * m.median.unwrap_or(0) as f64 / m.runs.max(1) as f64,
                    say("of runs", "de las ejecuciones"),
                    m.median.unwrap_or(0),
                    say("of", "de"),
                    m.runs
                ),
                MeasureKind::Tally => tally_line(&m.tally, s.runs, lang),
                MeasureKind::Count | MeasureKind::Nanos if m.runs == 0 => {
                    say("never reached", "nunca alcanzado").into()
                }
                MeasureKind::Count => spread(&|v| v.to_string()),
                MeasureKind::Nanos => spread(&ms),
            };
            out!("  {:24} {line}", m.name);
        }
        if let Some(seed) = s.first_failure {
            let sets: String = variant
                .sets
                .iter()
                .map(|kv| format!(" --set '{kv}'"))
                .collect();
            out!(
                "  {} {seed}: dsim run {} --seed {seed}{sets}",
                say("first failing seed", "primera semilla que falla"),
                report.scenario
            );
        }
    }
    Ok(())
}
