//! `dsim check TRACE`: re-judge a trace file, hand-edited ones included, by its protocol's
//! invariants, and explain any violation in words.

use crate::exit::{CliError, FAILED, OK};
use crate::flags::parse_lang;
use crate::output::out;
use crate::trace_input::{self, bad_trace};
use traces::Lang;
use traces::narrate::Detail;
use traces::view::clock;

/// Arguments of `dsim check`.
#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// The trace file. Example: edit the value of a `Chosen` note in a Paxos trace, then
    /// `dsim check /tmp/t.jsonl` explains the agreement violation (exit 1).
    pub trace: String,
    /// Language of the report and its story lines: `en` (default) or `es`.
    #[arg(long, default_value = "en", value_parser = parse_lang)]
    pub lang: Lang,
}

/// Runs `dsim check`.
pub fn run(args: CheckArgs) -> Result<u8, CliError> {
    let file = trace_input::read(&args.trace)?;
    let report = file.trace.check().map_err(|p| bad_trace(&file.path, &p))?;
    let es = args.lang == Lang::Es;
    let (path, records, protocol) = (&file.path, report.records, file.protocol.name());
    let invariants = report.invariants.join(", ");
    if es {
        out!(
            "{path}: {records} registros de una ejecución de {protocol} comprobados con: {invariants}"
        );
    } else {
        out!("{path}: {records} records of a {protocol} run checked against: {invariants}");
    }
    if report.violations.is_empty() {
        out!(
            "{}",
            if es {
                "no se incumple ningún invariante"
            } else {
                "no invariant is broken"
            }
        );
        return Ok(OK);
    }
    let view = file.trace.view(args.lang, Detail::Everything);
    for v in &report.violations {
        out!();
        let (invariant, at) = (&v.invariant, clock(v.time.as_nanos()));
        let (at, message, step) = (at.trim(), v.message_in(args.lang.tag()), v.step);
        if v.at_end {
            if es {
                out!("VIOLACIÓN de {invariant} al final de la ejecución ({at}):\n  {message}");
            } else {
                out!("VIOLATION of {invariant} at the end of the run ({at}):\n  {message}");
            }
            continue;
        }
        if es {
            out!("VIOLACIÓN de {invariant} en el paso {step} ({at}):\n  {message}");
            out!("  lo que pasó en el paso {step}:");
        } else {
            out!("VIOLATION of {invariant} at step {step} ({at}):\n  {message}");
            out!("  what happened at step {step}:");
        }
        for r in view.records.iter().filter(|r| r.step == v.step) {
            if let Some(line) = &r.story {
                let word = if es { "línea" } else { "line" };
                out!("    {word} {:>4}: {line}", r.line);
            }
        }
    }
    out!();
    let (found, recorded) = (report.violations.len(), report.recorded);
    if es {
        out!(
            "{found} {} (el propio fichero registra {recorded}); se ve con `dsim view {path} --format html -o run.html`",
            if found == 1 {
                "violación encontrada"
            } else {
                "violaciones encontradas"
            }
        );
    } else {
        out!(
            "{found} violation{} found (the file itself records {recorded}); see it with `dsim view {path} --format html -o run.html`",
            if found == 1 { "" } else { "s" }
        );
    }
    Ok(FAILED)
}
