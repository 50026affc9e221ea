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
    /// Language of the explanation's story lines: `en` (default) or `es`.
    #[arg(long, default_value = "en", value_parser = parse_lang)]
    pub lang: Lang,
}

/// Runs `dsim check`.
pub fn run(args: CheckArgs) -> Result<u8, CliError> {
    let file = trace_input::read(&args.trace)?;
    let report = file.trace.check().map_err(|p| bad_trace(&file.path, &p))?;
    out!(
        "{}: {} records of a {} run checked against: {}",
        file.path,
        report.records,
        file.protocol.name(),
        report.invariants.join(", ")
    );
    if report.violations.is_empty() {
        out!("no invariant is broken");
        return Ok(OK);
    }
    let view = file.trace.view(args.lang, Detail::Everything);
    for v in &report.violations {
        out!();
        if v.at_end {
            out!(
                "VIOLATION of {} at the end of the run ({}):\n  {}",
                v.invariant,
                clock(v.time.as_nanos()).trim(),
                v.message
            );
            continue;
        }
        out!(
            "VIOLATION of {} at step {} ({}):\n  {}",
            v.invariant,
            v.step,
            clock(v.time.as_nanos()).trim(),
            v.message
        );
        out!("  what happened at step {}:", v.step);
        for r in view.records.iter().filter(|r| r.step == v.step) {
            if let Some(line) = &r.story {
                out!("    line {:>4}: {line}", r.line);
            }
        }
    }
    out!();
    out!(
        "{} violation{} found (the file itself records {}); see it with `dsim view {} --format html -o run.html`",
        report.violations.len(),
        if report.violations.len() == 1 {
            ""
        } else {
            "s"
        },
        report.recorded,
        file.path
    );
    Ok(FAILED)
}
