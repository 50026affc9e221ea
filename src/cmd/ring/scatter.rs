//! `dsim ring scatter`: the tail latency of a query that asks every partition (text 000, §4).

use super::{limits, print_json};
use crate::chart::{Chart, Series, write_plot};
use crate::exit::{CliError, OK};
use crate::output::out;
use clap::Args;
use protocols::partition::scatter::{AnswerTimes, FanOut, predicted_share, simulate};
use serde_json::json;
use sim_core::Ratio;
use std::path::PathBuf;
use traces::Lang;

/// Partition answers drawn over one run: queries x the sum of the fan-outs.
const DRAWS: u64 = 500_000_000;
/// Partitions one query may ask.
const FANOUT: u64 = 100_000;
/// Queries per fan-out (each query's time is kept to rank its percentiles: 80 MB at most).
const QUERIES: u64 = 10_000_000;
/// The slow-query threshold: one day.
const THRESHOLD_MS: u64 = 86_400_000;

/// `dsim ring scatter`.
#[derive(Args, Debug)]
pub(crate) struct ScatterArgs {
    /// Partitions the query of the headline asks (text 000: 12). Example: --partitions 12.
    #[arg(long, default_value_t = 12)]
    partitions: u32,
    /// Chance that one partition answers slowly, as a fraction (text 000: 1 %). Example:
    /// --slow 1/100.
    #[arg(long, default_value = "1/100", value_parser = parse_ratio)]
    slow: Ratio,
    /// A query is slow when its slowest answer takes more than this (text 000: 500 ms).
    /// Example: --threshold-ms 500.
    #[arg(long, default_value_t = 500)]
    threshold_ms: u64,
    /// Queries simulated per fan-out. Example: --queries 100000.
    #[arg(long, default_value_t = 100_000)]
    queries: u64,
    /// Fan-outs of the table and the plot. Example: --fanouts 1,2,4,8,12,16,32,64,100.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "1,2,4,8,12,16,24,32,48,64,100"
    )]
    fanouts: Vec<u32>,
    /// Seed of the answer times. Example: --seed 7.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Write an SVG plot of slow queries vs fan-out. Example: --plot scatter.svg.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    /// Print JSON instead of a table. Example: --json.
    #[arg(long)]
    json: bool,
}

fn parse_ratio(s: &str) -> Result<Ratio, String> {
    s.parse()
}

fn row_json(times: &AnswerTimes, f: &FanOut) -> serde_json::Value {
    json!({
        "partitions": f.fanout,
        "queries": f.queries,
        "slow_queries": f.slow_queries,
        "slow_share": f.slow_share(),
        "predicted_share": predicted_share(times.slow, f.fanout),
        "p50_ms": f.p50_ms,
        "p99_ms": f.p99_ms,
    })
}

/// `dsim ring scatter`.
pub(crate) fn scatter(args: &ScatterArgs, lang: Lang) -> Result<u8, CliError> {
    let es = lang == Lang::Es;
    let mut fanouts = args.fanouts.clone();
    if !fanouts.contains(&args.partitions) {
        fanouts.push(args.partitions);
    }
    fanouts.sort_unstable();
    fanouts.dedup();
    limits::list("--fanouts", &fanouts, "1,2,4,8,12,16,32,64")?;
    if args.queries == 0 || fanouts.contains(&0) {
        return Err(CliError::bad_input(
            "need --queries >= 1 and every fan-out >= 1, e.g. --queries 100000 --fanouts 1,2,4,8,12",
        ));
    }
    limits::at_most(
        u128::from(args.queries),
        QUERIES,
        "--queries",
        "simulate fewer queries, e.g. --queries 100000",
    )?;
    limits::at_most(
        u128::from(args.threshold_ms),
        THRESHOLD_MS,
        "--threshold-ms",
        "use a threshold of at most a day, e.g. --threshold-ms 500",
    )?;
    let widest = u64::from(*fanouts.last().unwrap_or(&1));
    limits::at_most(
        u128::from(widest),
        FANOUT,
        "the widest fan-out",
        "ask fewer partitions, e.g. --fanouts 1,2,4,8,12,16,32,64",
    )?;
    // The fan-outs, and one partition alone for the comparison line.
    let draws =
        u128::from(args.queries) * (1 + fanouts.iter().map(|&f| u128::from(f)).sum::<u128>());
    limits::at_most(
        draws,
        DRAWS,
        "the partition answers drawn (--queries x the sum of the fan-outs)",
        "simulate fewer queries, e.g. --queries 100000",
    )?;
    let mut times = AnswerTimes::lesson();
    times.slow = args.slow;
    times.threshold_ms = args.threshold_ms;
    times.fast_ms = (
        times.fast_ms.0.min(args.threshold_ms),
        times.fast_ms.1.min(args.threshold_ms),
    );
    times.slow_ms = (
        args.threshold_ms + 1,
        (args.threshold_ms + 1).max(times.slow_ms.1),
    );
    let rows: Vec<FanOut> = fanouts
        .iter()
        .map(|&f| simulate(&times, f, args.queries, args.seed))
        .collect();
    let percent = |x: f64| x * 100.0;
    write_plot(
        args.plot.as_ref(),
        &Chart {
            title: format!(
                "Scatter/gather: queries slower than {} ms ({} queries per fan-out)",
                args.threshold_ms, args.queries
            ),
            x_label: "partitions asked".into(),
            y_label: "share of slow queries".into(),
            log_x: false,
            log_y: false,
            series: vec![
                Series::of(
                    "simulated",
                    &rows,
                    |r| (f64::from(r.fanout), r.slow_share()),
                    false,
                ),
                Series::of(
                    "1 - (1 - p)^k",
                    &rows,
                    |r| (f64::from(r.fanout), predicted_share(times.slow, r.fanout)),
                    true,
                ),
            ],
        },
    )?;
    let headline = rows
        .iter()
        .find(|r| r.fanout == args.partitions)
        .expect("the headline fan-out is in the table");
    if args.json {
        return print_json(&json!({
            "slow": args.slow.to_string(),
            "threshold_ms": args.threshold_ms,
            "seed": args.seed,
            "headline": row_json(&times, headline),
            "rows": rows.iter().map(|r| row_json(&times, r)).collect::<Vec<_>>(),
        }));
    }
    let (k, ms, slow, seed, queries) = (
        args.partitions,
        args.threshold_ms,
        &args.slow,
        args.seed,
        args.queries,
    );
    if es {
        out!(
            "scatter/gather: cada consulta pregunta a {k} particiones y espera a la más lenta; una \
             partición tarda más de {ms} ms con probabilidad {slow} (semilla {seed}, {queries} consultas)"
        );
    } else {
        out!(
            "scatter/gather: each query asks {k} partitions and waits for the slowest; one \
             partition answers in more than {ms} ms with probability {slow} (seed {seed}, {queries} queries)"
        );
    }
    let lessons = args.partitions == 12
        && args.slow == AnswerTimes::lesson().slow
        && args.threshold_ms == AnswerTimes::lesson().threshold_ms;
    let (sim, pred) = (
        percent(headline.slow_share()),
        percent(predicted_share(times.slow, args.partitions)),
    );
    let note = match (lessons, es) {
        (false, _) => "",
        (true, false) => " (text 000, section 4: about 11 %)",
        (true, true) => " (texto 000, sección 4: en torno al 11 %)",
    };
    if es {
        out!(
            "  consultas lentas: {sim:.1} % simulado, {pred:.1} % según 1 - (1 - {slow})^{k}{note}"
        );
    } else {
        out!("  slow queries: {sim:.1} % simulated, {pred:.1} % by 1 - (1 - {slow})^{k}{note}");
    }
    let alone = match rows.iter().find(|r| r.fanout == 1) {
        Some(row) => row.clone(),
        None => simulate(&times, 1, args.queries, args.seed),
    };
    let (p50, p99, a50, a99) = (headline.p50_ms, headline.p99_ms, alone.p50_ms, alone.p99_ms);
    if es {
        out!(
            "  tiempo de la consulta: mediana {p50} ms, p99 {p99} ms; una partición sola: mediana {a50} ms, p99 {a99} ms"
        );
    } else {
        out!(
            "  the query's time: median {p50} ms, p99 {p99} ms; one partition alone: median {a50} ms, p99 {a99} ms"
        );
    }
    out!();
    let (partitions, simulated) = if es {
        ("particiones", "simulado")
    } else {
        ("partitions", "simulated")
    };
    let pw = partitions.chars().count();
    out!(
        "{partitions:>pw$}  {simulated:>9}  {:>10}  {:>8}  {:>8}",
        "1-(1-p)^k",
        "p50",
        "p99"
    );
    for r in &rows {
        out!(
            "{:>pw$}  {:>7.1} %  {:>8.1} %  {:>5} ms  {:>5} ms",
            r.fanout,
            percent(r.slow_share()),
            percent(predicted_share(times.slow, r.fanout)),
            r.p50_ms,
            r.p99_ms
        );
    }
    Ok(OK)
}
