//! Running a prepared scenario: the simulation, its story, its expectations, its trace.
//!
//! One run is one seed. The result says whether the scenario passed (every expectation held and
//! no invariant failed, or exactly the expected violation happened), and carries the course-style
//! story and, on request, the trace. Records stream from the kernel to what reads them and are
//! dropped (`run/stream.rs`), so a run's memory does not grow with its length. Nothing here prints
//! or reads files: a trace goes to the writer the caller hands over.

mod stream;

use crate::load::Prepared;
use serde::Serialize;
use sim_core::{Actor, Outcome, Protocol, Record, RunReport, Sim, SimConfig, build_sim};
use std::io;
pub use stream::TraceOut;
use stream::{Listeners, stream};
use traces::narrate::Detail;
use traces::story::stream::{Shortener, Teller};
use traces::story::{Shown, tell};
use traces::view::TraceView;
use traces::write::{JsonLinesSink, TraceThread};
use traces::{FORMAT_VERSION, Header, Lang, Story};

/// How to run a scenario.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Overrides the file's seed.
    pub seed: Option<u64>,
    /// The story's language.
    pub lang: Lang,
    /// How much the story tells.
    pub detail: Detail,
    /// Whether to keep the trace file's text in the result.
    pub keep_trace: bool,
    /// Whether to make the run's view for the renderers (`dsim run --view`), from the records
    /// in memory, told at `view_detail`.
    pub keep_view: bool,
    /// How much the view's story tells.
    pub view_detail: Detail,
    /// At most this many kernel steps, whatever the file says (fuzzing, quick previews).
    pub max_steps: Option<u64>,
    /// How much of the story the result keeps.
    pub story_lines: StoryLines,
}

/// How much of a story a run keeps: a long story is shortened as it is told, so its length
/// costs no memory unless the whole of it is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoryLines {
    /// Its first `head` and last `tail` lines and at most `keys` key events between them
    /// (`traces::story::shorten`).
    Shortened {
        /// Lines from the start.
        head: usize,
        /// Lines from the end.
        tail: usize,
        /// Key events in between.
        keys: usize,
    },
    /// Every line (`dsim run --full`): memory grows with the story.
    Whole,
}

impl StoryLines {
    /// What `dsim run` shows of a long story: its first 80 and last 40 lines, and at most 40
    /// lines of key events (a join, a choice, a new leader) in between.
    pub const SHOWN: StoryLines = StoryLines::Shortened {
        head: 80,
        tail: 40,
        keys: 40,
    };

    fn shortener(self) -> Shortener {
        match self {
            StoryLines::Shortened { head, tail, keys } => Shortener::new(head, tail, keys),
            StoryLines::Whole => Shortener::whole(),
        }
    }
}

impl Default for StoryLines {
    fn default() -> Self {
        StoryLines::SHOWN
    }
}

/// Whether one expectation held.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ExpectationResult {
    /// The expectation as written (RON).
    pub expect: String,
    /// Whether it held.
    pub held: bool,
    /// What held, or why not.
    pub detail: String,
}

/// Everything a run produced.
#[derive(Clone, Debug, Serialize)]
pub struct RunResult {
    /// The scenario (path or bundled name).
    pub scenario: String,
    /// One line on what it shows.
    pub description: String,
    /// The protocol.
    pub protocol: String,
    /// The seed used.
    pub seed: u64,
    /// The invariants checked at every step, by name (what held is these less the violated).
    pub invariants: Vec<String>,
    /// The kernel's report (stop reason, steps, time, violations, network counts).
    pub report: RunReport,
    /// Each expectation and whether it held.
    pub expectations: Vec<ExpectationResult>,
    /// The invariants the scenario expects to break (empty: none may break).
    pub expect_violation: Vec<String>,
    /// Whether the scenario passed.
    pub passed: bool,
    /// The story, line by line, shortened as [`RunOptions::story_lines`] says (a gap stands
    /// for the lines left out).
    #[serde(skip)]
    pub story: Vec<Shown>,
    /// The run's figures in words (the protocol's summary).
    pub summary: Vec<String>,
    /// The trace file's text (JSON Lines), when asked for.
    #[serde(skip)]
    pub trace: Option<String>,
    /// The run as the renderers see it, with its story attached, when asked for.
    #[serde(skip)]
    pub view: Option<TraceView>,
}

/// The command that replays a run.
pub fn replay_command(scenario: &str, seed: u64) -> String {
    format!("dsim run {scenario} --seed {seed}")
}

/// Builds the simulation for `prep` with `seed`, its invariants installed and its timeline
/// scheduled.
pub fn build<P: Protocol>(prep: &Prepared<P>, seed: u64) -> Sim<P::Actor> {
    build_capped(prep, seed, None)
}

/// [`build`], with at most `max_steps` kernel steps whatever the file says.
pub fn build_capped<P: Protocol>(
    prep: &Prepared<P>,
    seed: u64,
    max_steps: Option<u64>,
) -> Sim<P::Actor> {
    let mut limits = prep.limits;
    if let Some(cap) = max_steps {
        limits.max_steps = limits.max_steps.min(cap);
    }
    let config = SimConfig {
        seed,
        link: prep.link,
        limits,
        stop_on_violation: prep.doc.stop.on_violation_stop,
    };
    let mut sim = build_sim::<P>(&prep.doc.config, config);
    for (at, action) in &prep.timeline {
        sim.schedule(*at, action.clone());
    }
    crate::schedule::Injected::inject(&prep.injected, &mut sim);
    if let Some(choices) = &prep.schedule {
        sim.follow(choices);
    }
    sim
}

/// The trace header of a run of `prep` with `seed`.
pub fn header<P: Protocol>(prep: &Prepared<P>, seed: u64) -> Header {
    Header {
        format: FORMAT_VERSION,
        dsim_version: env!("CARGO_PKG_VERSION").to_string(),
        protocol: P::NAME.to_string(),
        seed,
        scenario_name: prep.name.clone(),
        scenario: prep.source.clone(),
        nodes: prep.nodes.clone(),
    }
}

/// The trace file's text for `records`.
pub fn trace_text<A: Actor>(header: &Header, records: &[Record<A>]) -> String {
    let mut buf = header.to_line().into_bytes();
    buf.push(b'\n');
    let mut cache = traces::write::LineCache::default();
    for record in records {
        traces::write::record_line_cached(record, &mut buf, &mut cache);
    }
    String::from_utf8(buf).expect("JSON is UTF-8")
}

/// A finished simulation with the records its end reads.
struct Executed<A: Actor> {
    sim: Sim<A>,
    report: RunReport,
    /// The records the protocol keeps (`Protocol::keeps`).
    kept: Vec<Record<A>>,
}

/// Runs `prep` at `seed`, keeping only what its end reads.
fn execute<P: Protocol>(prep: &Prepared<P>, seed: u64) -> Executed<P::Actor> {
    let mut sim = build(prep, seed);
    let mut kept = sim_core::KeptRecords::default();
    let report = stream(&mut sim, |record| kept.observe::<P>(&record));
    Executed {
        sim,
        report,
        kept: kept.into_records(),
    }
}

/// Each expectation's result, and whether the run passed as a whole.
fn verdict<P: Protocol>(
    prep: &Prepared<P>,
    run: &Executed<P::Actor>,
) -> (Vec<ExpectationResult>, bool) {
    let outcome = Outcome {
        sim: &run.sim,
        records: &run.kept,
    };
    let expectations: Vec<ExpectationResult> = prep
        .doc
        .expect
        .iter()
        .map(|e| {
            let (held, detail) = match P::check(&prep.doc.config, e, &outcome) {
                Ok(d) => (true, d),
                Err(d) => (false, d),
            };
            ExpectationResult {
                expect: crate::load::ron_options()
                    .to_string(e)
                    .unwrap_or_else(|_| format!("{e:?}")),
                held,
                detail,
            }
        })
        .collect();
    let violations = &run.report.violations;
    let expected = &prep.doc.expect_violation;
    let violations_ok = expected
        .iter()
        .all(|name| violations.iter().any(|v| &v.invariant == name))
        && violations.iter().all(|v| expected.contains(&v.invariant));
    let livelocked = run.report.stop == sim_core::StopReason::Livelock;
    let passed = violations_ok && !livelocked && expectations.iter().all(|e| e.held);
    (expectations, passed)
}

/// Whether `prep` at `seed` passes, as `dsim run` judges it (expectations and expected
/// violations), without telling its story.
pub fn passes<P: Protocol>(prep: &Prepared<P>, seed: u64) -> bool {
    let executed = execute(prep, seed);
    verdict(prep, &executed).1
}

/// Runs `prep` once; with `options.keep_trace`, the result holds the trace's text.
pub fn run<P: Story>(prep: &Prepared<P>, options: &RunOptions) -> RunResult {
    if !options.keep_trace {
        return run_to(prep, options, None).0;
    }
    let mut text: Vec<u8> = Vec::new();
    let (mut result, written) = run_to(prep, options, Some(&mut text));
    written.expect("writing to memory never fails");
    result.trace = Some(String::from_utf8(text).expect("JSON is UTF-8"));
    result
}

/// Runs `prep` once, writing its trace (JSON Lines, header first) to `trace` as the run makes
/// it. The second value is the first error writing the trace met (the run goes on to its end
/// without writing more); the caller reports it. `options.keep_trace` is for [`run`].
pub fn run_to<P: Story>(
    prep: &Prepared<P>,
    options: &RunOptions,
    trace: Option<TraceOut<'_>>,
) -> (RunResult, io::Result<()>) {
    let seed = options.seed.unwrap_or(prep.doc.seed);
    // The trace is written on a thread of this scope, which ends once it has written all.
    let (executed, listeners, written) = std::thread::scope(|scope| {
        let (trace, started) = match trace.map(|out| {
            let sink = JsonLinesSink::new(out, &header(prep, seed).to_line());
            TraceThread::spawn_scoped(scope, sink)
        }) {
            None => (None, Ok(())),
            Some(Ok(thread)) => (Some(thread), Ok(())),
            Some(Err(e)) => (None, Err(e)),
        };
        let mut listeners: Listeners<P> = Listeners {
            kept: sim_core::KeptRecords::default(),
            teller: Some(Teller::new(
                options.lang,
                options.detail,
                options.story_lines.shortener(),
            )),
            trace,
            all: options.keep_view.then(Vec::new),
        };
        let mut sim = build_capped(prep, seed, options.max_steps);
        let report = stream(&mut sim, |record| listeners.take(record));
        let executed = Executed {
            sim,
            report,
            kept: std::mem::take(&mut listeners.kept).into_records(),
        };
        let written = started.and_then(|()| {
            listeners
                .trace
                .take()
                .map_or(Ok(()), |thread| thread.finish().map(drop))
        });
        (executed, listeners, written)
    });
    let story = listeners.teller.map(Teller::finish).unwrap_or_default();
    let (mut expectations, passed) = verdict(prep, &executed);
    let outcome = Outcome {
        sim: &executed.sim,
        records: &executed.kept,
    };
    if options.lang != traces::Lang::En {
        for (e, result) in prep.doc.expect.iter().zip(expectations.iter_mut()) {
            // The verdict stays the model's; only the words change.
            let (Ok(detail) | Err(detail)) =
                P::explain(&prep.doc.config, e, &outcome, options.lang);
            result.detail = detail;
        }
    }
    let summary = P::summary(&executed.kept, options.lang);
    let view = listeners.all.map(|records| {
        let mut view = TraceView::of(header(prep, seed), &records);
        view.attach_story(tell::<P>(&records, options.lang, options.view_detail));
        view.history = P::history(&records, options.lang);
        view
    });
    let invariants = P::invariants(&prep.doc.config)
        .iter()
        .map(|i| i.name().to_string())
        .collect();
    let result = RunResult {
        scenario: prep.name.clone(),
        description: match (options.lang, &prep.doc.description_es) {
            (traces::Lang::Es, Some(es)) => es.clone(),
            _ => prep.doc.description.clone(),
        },
        protocol: P::NAME.to_string(),
        seed,
        invariants,
        report: executed.report,
        expectations,
        expect_violation: prep.doc.expect_violation.clone(),
        passed,
        story,
        summary,
        trace: None,
        view,
    };
    (result, written)
}

/// Runs `prep` at `seed` for a sweep: the verdict and the protocol's figures, no story.
pub fn measure<P: Story>(prep: &Prepared<P>, seed: u64) -> crate::sweep::SeedOutcome {
    let executed = execute(prep, seed);
    let (_, passed) = verdict(prep, &executed);
    crate::sweep::SeedOutcome {
        seed,
        passed,
        stop: executed.report.stop,
        violations: executed
            .report
            .violations
            .iter()
            .map(|v| v.invariant.clone())
            .collect(),
        measures: P::measures(&executed.kept),
    }
}
