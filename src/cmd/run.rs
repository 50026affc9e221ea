//! `dsim run`: one run of a scenario, told as a story, checked against its expectations.

use crate::exit::{CliError, FAILED, OK};
use crate::flags::{apply_sets, parse_lang, parse_sets};
use crate::output::{OutputFile, emit, out, refuse_own_input};
use crate::render::{Format, ViewOptions, render};
use crate::source::{Source, render_problems, resolve};
use scenarios::RunResult;
use scenarios::run::{RunOptions, StoryLines, TraceOut, replay_command};
use std::path::PathBuf;
use traces::Lang;
use traces::narrate::Detail;

/// Arguments of `dsim run`.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// The scenario: a path (`scenarios/course/paxos/lost-accepts.ron`) or a bundled name
    /// (`paxos/lost-accepts`; `dsim list` shows them).
    pub scenario: String,
    /// Seed for everything random (default: the file's `seed`, else 0). Only what is random
    /// changes; scripted faults stay where the file puts them.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Write the trace (JSON Lines) to this file; `dsim view`, `check` and `replay` read it.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Print a machine-readable result (outcome, expectations, violations, seed) instead of
    /// the story: for autograding.
    #[arg(long)]
    pub json: bool,
    /// Language of the story: `en` (default) or `es` (the lesson's own words).
    #[arg(long, default_value = "en", value_parser = parse_lang)]
    pub lang: Lang,
    /// Tell everything: every send, delivery, timer and note, not only the lesson's facts.
    #[arg(long, short)]
    pub verbose: bool,
    /// Print the whole story however long (by default a long one shows its first 80 and last
    /// 40 lines and up to 40 key events between them; `dsim view` on the `--trace` file shows
    /// all of it with filters). A run keeps only the lines it shows, so its memory does not
    /// grow with its length; with --full (or --view) it keeps them all, and memory grows with
    /// the story.
    #[arg(long)]
    pub full: bool,
    /// Run twice and check that both traces are byte-identical.
    #[arg(long)]
    pub check_determinism: bool,
    /// Change a config field for this run: `KEY=VALUE` (RON), repeatable.
    /// Example: --set 'bugs=(vote_twice: true)' --set heartbeat_ms=20
    #[arg(long, value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Also render the run, as `dsim view` would. Example: `--view html -o run.html`.
    /// Without `-o` the view replaces the story on standard output.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub view: Option<Format>,
    /// Where `--view` writes. Example: `-o run.html`.
    #[arg(long, short, value_name = "FILE", requires = "view")]
    pub output: Option<PathBuf>,
}

/// Runs `dsim run`.
pub fn run(args: RunArgs) -> Result<u8, CliError> {
    for out in args.trace.iter().chain(&args.output) {
        refuse_own_input(out, std::path::Path::new(&args.scenario))?;
    }
    let mut src = resolve(&args.scenario)?;
    src.text = apply_sets(&src.text, &parse_sets(&args.set)?)?;
    let view_detail = match args.view {
        Some(format) if args.verbose || format.tells_everything() => Detail::Everything,
        _ => Detail::Story,
    };
    let options = RunOptions {
        seed: args.seed,
        lang: args.lang,
        detail: if args.verbose {
            Detail::Everything
        } else {
            Detail::Story
        },
        keep_trace: false,
        keep_view: args.view.is_some(),
        view_detail,
        max_steps: None,
        story_lines: if args.full {
            StoryLines::Whole
        } else {
            StoryLines::SHOWN
        },
    };
    let mut trace_file = match &args.trace {
        Some(path) => Some(OutputFile::create(path)?),
        None => None,
    };
    let mut digest = args.check_determinism.then(TraceDigest::default);
    let mut trace = Tee(trace_file.as_mut().map(OutputFile::writer), digest.as_mut());
    let to = (trace.0.is_some() || trace.1.is_some()).then_some(&mut trace as TraceOut<'_>);
    let result = run_once(&src, &options, to, args.trace.as_deref()).map_err(|mut e| {
        if !args.set.is_empty() && e.code == crate::exit::BAD_INPUT {
            let sets: Vec<String> = args.set.iter().map(|s| format!("--set '{s}'")).collect();
            e.message.push_str(&format!(
                "\n(the lines shown are the file as {} changed it; fix the --set value, or the \
                 file itself if the problem is elsewhere)",
                sets.join(" ")
            ));
        }
        e
    })?;
    if let Some(first) = digest {
        let mut second = TraceDigest::default();
        run_once(&src, &options, Some(&mut second), None)?;
        check_same(&src, &options, first, second)?;
    }
    if let Some(file) = trace_file {
        file.commit()?;
    }
    if let (Some(format), Some(view)) = (args.view, result.view.clone()) {
        let all = ViewOptions::default();
        let text = render(view, format, &all, false, args.lang, &result.scenario)?;
        emit(args.output.as_deref(), &text)?;
        if args.output.is_none() {
            return Ok(if result.passed { OK } else { FAILED });
        }
    }
    if args.json {
        out!(
            "{}",
            serde_json::to_string_pretty(&result).expect("results serialize")
        );
    } else {
        let sets: String = args.set.iter().map(|s| format!(" --set '{s}'")).collect();
        print_story(&result, args.lang, &sets)?;
    }
    Ok(if result.passed { OK } else { FAILED })
}

/// Runs the scenario once, its trace (if any) written to `trace` as it is made. A failed
/// write is an error naming the file.
fn run_once(
    src: &Source,
    options: &RunOptions,
    trace: Option<TraceOut<'_>>,
    trace_path: Option<&std::path::Path>,
) -> Result<RunResult, CliError> {
    let protocol = scenarios::registry::protocol_for(&src.name, &src.text)
        .map_err(|p| CliError::bad_input(render_problems(&p)))?;
    let seed_hint = options.seed;
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        protocol.run_to(&src.name, &src.text, options, trace)
    }));
    match outcome {
        Ok(Ok((result, Ok(())))) => Ok(result),
        Ok(Ok((_, Err(e)))) => Err(CliError::bad_input(format!(
            "{}: cannot write the trace: {e}; no trace was written there (free some space, or \
             write it elsewhere with --trace FILE)",
            trace_path.map_or("(the trace)".into(), |p| p.display().to_string())
        ))),
        Ok(Err(problems)) => Err(CliError::bad_input(render_problems(&problems))),
        Err(panic) => {
            let what = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            let seed = seed_hint.map_or("the file's seed".to_string(), |s| s.to_string());
            Err(CliError::bug(format!(
                "a bug: the run panicked ({what}).\n  seed: {seed}\n  replay: {}\n  \
                 please report it with this scenario file",
                replay_command(&src.name, seed_hint.unwrap_or(0))
            )))
        }
    }
}

/// A trace's digest and line count, taken as it is written: `--check-determinism` compares two
/// runs' traces without keeping either.
#[derive(Default)]
struct TraceDigest {
    hash: xxhash_rust::xxh3::Xxh3Default,
    lines: u64,
}

impl std::io::Write for TraceDigest {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.hash.update(buf);
        self.lines += buf.iter().filter(|&&b| b == b'\n').count() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Writes to a file and a digest, either or both.
struct Tee<'a>(
    Option<&'a mut (dyn std::io::Write + Send)>,
    Option<&'a mut TraceDigest>,
);

impl std::io::Write for Tee<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if let Some(out) = &mut self.0 {
            out.write_all(buf)?;
        }
        if let Some(digest) = &mut self.1 {
            digest.write_all(buf)?;
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.0 {
            Some(out) => out.flush(),
            None => Ok(()),
        }
    }
}

/// Compares two runs' trace digests; when they differ, runs both again keeping their text to
/// say at which line (a bug, so its cost does not matter).
fn check_same(
    src: &Source,
    options: &RunOptions,
    a: TraceDigest,
    b: TraceDigest,
) -> Result<(), CliError> {
    if a.hash.digest128() == b.hash.digest128() && a.lines == b.lines {
        eprintln!(
            "determinism: two runs gave byte-identical traces ({} lines)",
            a.lines
        );
        return Ok(());
    }
    let text = || -> Result<String, CliError> {
        let mut buf: Vec<u8> = Vec::new();
        run_once(src, options, Some(&mut buf), None)?;
        Ok(String::from_utf8_lossy(&buf).into_owned())
    };
    let (ta, tb) = (text()?, text()?);
    let line = ta
        .lines()
        .zip(tb.lines())
        .position(|(x, y)| x != y)
        .unwrap_or_else(|| ta.lines().count().min(tb.lines().count()));
    Err(CliError::bug(format!(
        "a bug: two runs of the same scenario and seed differ at trace line {}:\n  first:  {}\n  second: {}",
        line + 1,
        ta.lines().nth(line).unwrap_or("(end)"),
        tb.lines().nth(line).unwrap_or("(end)")
    )))
}

/// Why a run stopped, in words.
fn stop_text(stop: sim_core::StopReason, es: bool) -> &'static str {
    use sim_core::StopReason::*;
    match (stop, es) {
        (Quiescent, false) => "nothing left to happen",
        (Quiescent, true) => "no queda nada por pasar",
        (TimeLimit, false) => "time limit reached",
        (TimeLimit, true) => "límite de tiempo",
        (StepLimit, false) => "step limit reached",
        (StepLimit, true) => "límite de pasos",
        (InFlightLimit, false) => "too many messages in flight",
        (InFlightLimit, true) => "demasiados mensajes en vuelo",
        (Violation, false) => "stopped at the first violation",
        (Violation, true) => "parada en la primera violación",
        (Livelock, false) => {
            "a livelock: the per-instant step limit was reached without virtual time advancing"
        }
        (Livelock, true) => {
            "bucle sin avance: se alcanzó el límite de pasos sin que avance el tiempo virtual"
        }
    }
}

fn print_story(result: &RunResult, lang: Lang, sets: &str) -> Result<(), CliError> {
    let es = lang == Lang::Es;
    out!("{} ({})", result.scenario, result.description);
    out!(
        "{} {}, {} {}",
        if es { "protocolo" } else { "protocol" },
        result.protocol,
        if es { "semilla" } else { "seed" },
        result.seed
    );
    out!();
    for shown in &result.story {
        let line = match shown {
            traces::story::Shown::Line(line) => line,
            traces::story::Shown::Gap(hidden) => {
                if es {
                    out!("   ...     ({hidden} líneas más; la historia entera con --full)");
                } else {
                    out!("   ...     ({hidden} more lines; the whole story with --full)");
                }
                continue;
            }
        };
        let t = line.time.as_nanos();
        out!(
            "{:>4}.{:03}s  {}",
            t / 1_000_000_000,
            (t / 1_000_000) % 1000,
            line.text
        );
    }
    if !result.summary.is_empty() {
        out!();
        for line in &result.summary {
            out!("  {line}");
        }
    }
    out!();
    let r = &result.report;
    let why = stop_text(r.stop, es);
    if es {
        out!(
            "fin: {why} a los {} tras {} pasos; mensajes: {} enviados, {} entregados, {} \
             perdidos, {} duplicados",
            r.time,
            r.steps,
            r.net.sent,
            r.net.delivered,
            r.net.dropped,
            r.net.duplicated
        );
    } else {
        out!(
            "end: {why} at {} after {} steps; messages: {} sent, {} delivered, {} lost, {} \
             duplicated",
            r.time,
            r.steps,
            r.net.sent,
            r.net.delivered,
            r.net.dropped,
            r.net.duplicated
        );
    }
    let say = |en: &'static str, spanish: &'static str| if es { spanish } else { en };
    for v in &r.violations {
        out!(
            "{} {} {} {} ({}): {}",
            say("violation of", "violación de"),
            v.invariant,
            say("at step", "en el paso"),
            v.step,
            v.time,
            v.message_in(lang.tag())
        );
    }
    let held: Vec<&str> = result
        .invariants
        .iter()
        .filter(|name| !r.violations.iter().any(|v| &v.invariant == *name))
        .map(String::as_str)
        .collect();
    if !held.is_empty() {
        out!(
            "{}: {}",
            say("invariants held", "invariantes que se cumplen"),
            held.join(", ")
        );
    }
    let (ok, fail) = ("ok  ", say("FAIL", "FALLA"));
    for e in &result.expectations {
        let mark = if e.held { ok } else { fail };
        out!(
            "{mark} {} {}: {}",
            say("expect", "se espera"),
            e.expect,
            e.detail
        );
    }
    for name in &result.expect_violation {
        let found = r.violations.iter().any(|v| &v.invariant == name);
        let mark = if found { ok } else { fail };
        let what = if found {
            say(
                "found, as the scenario means to show",
                "encontrada, como el escenario quiere mostrar",
            )
        } else {
            say("not found", "no encontrada")
        };
        out!(
            "{mark} {} {name}: {what}",
            say("expect violation of", "se espera una violación de")
        );
    }
    if result.passed {
        out!("{}", say("PASSED", "SUPERADO"));
    } else {
        out!(
            "{} ({}: {}{sets})",
            say("FAILED", "FALLIDO"),
            say("replay", "repetir"),
            replay_command(&result.scenario, result.seed)
        );
    }
    Ok(())
}
