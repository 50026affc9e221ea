//! Running a prepared scenario: the simulation, its story, its expectations, its trace.
//!
//! One run is one seed. The result says whether the scenario passed (every expectation held and
//! no invariant failed, or exactly the expected violation happened), and carries the course-style
//! story and, on request, the trace file's text. Nothing here prints or reads files.

use crate::load::Prepared;
use serde::Serialize;
use sim_core::{Actor, Outcome, Protocol, Record, RunReport, Sim, SimConfig, TraceMode, build_sim};
use traces::narrate::Detail;
use traces::story::{Told, tell};
use traces::view::TraceView;
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
}

/// One line of the story: when, and what happened in words (see `traces::story::tell`).
pub type StoryLine = Told;

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
    /// The story, line by line.
    #[serde(skip)]
    pub story: Vec<StoryLine>,
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
    for record in records {
        traces::write::record_line(record, &mut buf);
    }
    String::from_utf8(buf).expect("JSON is UTF-8")
}

/// A finished simulation with everything it recorded.
struct Executed<A: Actor> {
    sim: Sim<A>,
    report: RunReport,
    records: Vec<Record<A>>,
}

fn execute<P: Protocol>(
    prep: &Prepared<P>,
    seed: u64,
    max_steps: Option<u64>,
) -> Executed<P::Actor> {
    let mut sim = build_capped(prep, seed, max_steps);
    sim.set_trace(TraceMode::Memory(Vec::new()));
    let report = sim.run();
    let records = sim.take_records();
    Executed {
        sim,
        report,
        records,
    }
}

/// Each expectation's result, and whether the run passed as a whole.
fn verdict<P: Protocol>(
    prep: &Prepared<P>,
    run: &Executed<P::Actor>,
) -> (Vec<ExpectationResult>, bool) {
    let outcome = Outcome {
        sim: &run.sim,
        records: &run.records,
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
    verdict(prep, &execute(prep, seed, None)).1
}

/// Runs `prep` once.
pub fn run<P: Story>(prep: &Prepared<P>, options: &RunOptions) -> RunResult {
    let seed = options.seed.unwrap_or(prep.doc.seed);
    let executed = execute(prep, seed, options.max_steps);
    let (mut expectations, passed) = verdict(prep, &executed);
    if options.lang != traces::Lang::En {
        let outcome = Outcome {
            sim: &executed.sim,
            records: &executed.records,
        };
        for (e, result) in prep.doc.expect.iter().zip(expectations.iter_mut()) {
            // The verdict stays the model's; only the words change.
            let (Ok(detail) | Err(detail)) =
                P::explain(&prep.doc.config, e, &outcome, options.lang);
            result.detail = detail;
        }
    }
    let records = &executed.records;
    let story = tell::<P>(records, options.lang, options.detail);
    let summary = P::summary(records, options.lang);
    let trace = options
        .keep_trace
        .then(|| trace_text(&header(prep, seed), records));
    let view = options.keep_view.then(|| {
        let mut view = TraceView::of(header(prep, seed), records);
        view.attach_story(tell::<P>(records, options.lang, options.view_detail));
        view
    });
    let invariants = P::invariants(&prep.doc.config)
        .iter()
        .map(|i| i.name().to_string())
        .collect();
    RunResult {
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
        trace,
        view,
    }
}

/// Runs `prep` at `seed` for a sweep: the verdict and the protocol's figures, no story.
pub fn measure<P: Story>(prep: &Prepared<P>, seed: u64) -> crate::sweep::SeedOutcome {
    let executed = execute(prep, seed, None);
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
        measures: P::measures(&executed.records),
    }
}
