//! From scenario text to a checked, ready-to-run scenario.
//!
//! Parsing goes in two passes: a first look finds the protocol's name, then the whole file is
//! parsed with that protocol's config, command and expectation types, so a misspelled field or
//! variant is caught by the parser with its position. Then every name is checked against the
//! scenario's nodes and the protocol's message kinds and invariants, collecting every problem at
//! once, each located in the text with the closest valid name suggested.

pub mod caps;
mod checks;
mod choices;
mod literals;
mod ron_errors;

pub use ron_errors::{from_ron, protocol_of, ron_options};

use crate::diagnostic::{Diagnostic, Locator};
use crate::schema::{At, ScenarioDoc};
use checks::Checks;
pub(crate) use checks::field_offset;
use ron_errors::suggest;
use sim_core::{Action, Actor, Instant, Limits, LinkConfig, Protocol};

/// A scenario checked against its protocol, with names resolved to node ids.
pub struct Prepared<P: Protocol> {
    /// Where it came from (a path or a bundled name).
    pub name: String,
    /// The file's text, kept for trace headers.
    pub source: String,
    /// The parsed document.
    pub doc: ScenarioDoc<P::Config, <P::Actor as Actor>::Command, P::Expect>,
    /// Node names in id order.
    pub nodes: Vec<String>,
    /// The timeline as kernel actions.
    pub timeline: Vec<(Instant, Action<<P::Actor as Actor>::Command>)>,
    /// The default link.
    pub link: LinkConfig,
    /// Run limits.
    pub limits: Limits,
    /// The file's schedule as kernel choices: when set, the run follows it (see
    /// `sim_core::oracle`).
    pub schedule: Option<Vec<sim_core::Choice>>,
    /// The faults the file's schedule injects (each a start and an end action).
    pub injected: Vec<crate::schedule::Injected>,
}

/// Parses and checks `source` for protocol `P`, collecting every problem.
pub fn load<P: Protocol>(file: &str, source: &str) -> Result<Prepared<P>, Vec<Diagnostic>> {
    let long = caps::long_texts(file, source);
    if !long.is_empty() {
        return Err(long);
    }
    let doc: ScenarioDoc<P::Config, <P::Actor as Actor>::Command, P::Expect> = ron_options()
        .from_str(source)
        .map_err(|e| vec![from_ron(file, source, &e)])?;
    let locator = Locator::new(source);
    let steps = locator.occurrences("At(");
    let network = locator.occurrences("network:").first().copied();
    let nodes = P::nodes(&doc.config);
    let mut index = std::collections::BTreeMap::new();
    for (i, name) in nodes.iter().enumerate() {
        index.entry(name.clone()).or_insert(i as u32);
    }
    let mut check = Checks {
        file,
        source,
        locator,
        problems: Vec::new(),
        nodes,
        anchor: None,
        unshown: 0,
        index,
    };
    for problem in P::validate(&doc.config) {
        // A field left at its default is not in the file: the config is the place then.
        let written = problem.locate.as_deref().filter(|needle| {
            field_offset(source, needle, 0).is_some()
                || check.locator.find_from(needle, 0).is_some()
        });
        check.problem(written.or(Some("config")), problem.message, None);
    }
    check.sizes(&doc.stop, doc.timeline.len());
    check.node_names();
    check.anchor = network;
    let link = check.link(&doc.network);
    check.anchor = None;
    let timeline = check.timeline::<P>(&doc.config, &doc.timeline, &steps);
    let (schedule, injected) = match doc
        .schedule
        .as_ref()
        .and_then(|specs| check.schedule(specs))
    {
        Some((choices, injected)) => (Some(choices), injected),
        None => (None, Vec::new()),
    };
    for expect in &doc.expect {
        for name in P::expect_nodes(expect) {
            check.node(&name);
        }
    }
    for name in &doc.expect_violation {
        let invariants = P::invariants(&doc.config);
        let names: Vec<&str> = invariants.iter().map(|i| i.name()).collect();
        if !names.contains(&name.as_str()) {
            let help = suggest(name, &names, "invariants of this protocol");
            check.problem(
                Some(&format!("\"{name}\"")),
                format!("unknown invariant \"{name}\""),
                Some(help),
            );
        }
    }
    for (i, At(ms, _)) in doc.timeline.iter().enumerate() {
        if *ms > doc.stop.max_time_ms
            && *ms <= caps::TIME_MS
            && doc.stop.max_time_ms <= caps::TIME_MS
        {
            // The step's own time is the place (the stop may be left at its default).
            check.anchor = (steps.len() == doc.timeline.len()).then(|| steps[i]);
            check.problem(
                Some(&ms.to_string()),
                format!(
                    "a step at {ms} ms is after the run stops (max_time_ms: {})",
                    doc.stop.max_time_ms
                ),
                Some("raise stop.max_time_ms or move the step earlier".into()),
            );
            check.anchor = None;
            break;
        }
    }
    if check.unshown > 0 {
        check.problems.push(Diagnostic::more(file, check.unshown));
    }
    if !check.problems.is_empty() {
        return Err(check.problems);
    }
    let limits = Limits {
        max_steps: doc.stop.max_steps,
        max_time: Instant::from_millis(doc.stop.max_time_ms),
        max_in_flight: doc.stop.max_in_flight,
        ..Limits::default()
    };
    Ok(Prepared {
        name: file.to_string(),
        source: source.to_string(),
        nodes: check.nodes,
        timeline,
        link,
        limits,
        schedule,
        injected,
        doc,
    })
}
