//! Exhaustive exploration of a scenario file: every interleaving of its small configuration.
//!
//! The file's nodes, timeline, invariants and `sometimes` properties go to
//! [`sim_core::exhaustive`] as an untimed run (see there for the semantics); a violation comes
//! back as a path of moves, which is made timed ([`sim_core::exhaustive::timed`]) and written
//! as an ordinary scenario file: its `schedule` gives each message the latency and each timer
//! the duration that make the path happen in time, and its timeline is retimed to the moments
//! the path takes each step. `dsim run` of that file replays the violation; the search checks
//! that it does before saying so. Nothing here prints, spawns or writes files.

use crate::load::Prepared;
use crate::run;
use crate::schedule::{choice_text, full_schedule_text};
use crate::vary::set_scenario_field;
use serde::Serialize;
use sim_core::exhaustive::{
    self, Boundary, DiskFrontier, Interrupt, MemoryGauge, Options, Order, Stats,
};
use sim_core::symmetry::Symmetry;
use sim_core::{Action, Choice, Duration, NodeId, Protocol, RuleAction, Sim};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// How an exhaustive search of a file is bounded and run (the CLI's flags).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Breadth or depth first.
    pub order: Order,
    /// States this many moves from the start are not expanded.
    pub max_depth: Option<u32>,
    /// Messages a path may lose.
    pub loss_budget: u32,
    /// Messages a path may duplicate.
    pub dup_budget: u32,
    /// Threads for breadth-first levels or a depth-first walk without a depth bound.
    pub jobs: usize,
    /// States where a node's epoch (a Raft term) is past this are outside the search.
    pub max_epoch: Option<u64>,
    /// Count every state even after a violation.
    pub keep_going: bool,
    /// Stop after this many unique states.
    pub max_states: u64,
    /// Merge states that are renamings of each other within the protocol's interchangeable
    /// nodes (see [`symmetry`]).
    pub symmetry: bool,
    /// The memory budget's gauge: the search stops (incomplete) when it says the budget is
    /// reached. `None`: no budget.
    pub memory: Option<MemoryGauge>,
    /// Breadth first with the frontier on disk, in this directory (see [`DiskFrontier`]);
    /// `None` keeps it in memory.
    pub disk: Option<DiskFrontier>,
    /// Raised to stop the search at once (Ctrl-C): it stops, incomplete, and one on disk can
    /// be resumed from its last level.
    pub interrupt: Option<Interrupt>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            order: Order::Bfs,
            max_depth: None,
            loss_budget: 0,
            dup_budget: 0,
            jobs: 1,
            max_epoch: None,
            keep_going: false,
            max_states: 50_000_000,
            symmetry: false,
            memory: None,
            disk: None,
            interrupt: None,
        }
    }
}

/// What an exhaustive search of a file found.
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    /// Distinct states visited.
    pub unique_states: u64,
    /// Moves taken from them.
    pub transitions: u64,
    /// The most moves from the start to a visited state.
    pub max_depth: u32,
    /// States where nothing was left to happen.
    pub terminal_states: u64,
    /// Whether every reachable state within the bounds was visited.
    pub complete: bool,
    /// Whether the search stopped at its state limit.
    pub hit_state_limit: bool,
    /// Whether the search stopped at its memory budget.
    pub hit_memory_limit: bool,
    /// Whether the search was interrupted (Ctrl-C).
    pub interrupted: bool,
    /// The chance that two distinct states had the same 64-bit fingerprint, so that one of
    /// them was never explored (as TLC estimates it: n(n-1)/2 pairs, each colliding with
    /// probability 2^-64, for n states).
    pub collision_probability: f64,
    /// Whether some state was left unexpanded at the depth bound.
    pub hit_depth_limit: bool,
    /// Whether some state stopped at the file's in-flight limit and was left unexpanded.
    pub hit_run_limit: bool,
    /// The first violation (breadth first: on a shortest path).
    pub violation: Option<PathFinding>,
    /// Each `sometimes` property and whether (and how deep) it was reached.
    pub sometimes: Vec<SometimesOutcome>,
    /// With `--symmetry`, the groups of interchangeable nodes (by name) whose renamings were
    /// merged; empty without.
    pub interchangeable: Vec<Vec<String>>,
}

/// A violation, its path, and the file that replays it.
#[derive(Clone, Debug, Serialize)]
pub struct PathFinding {
    /// The broken invariants (usually one).
    pub invariants: Vec<String>,
    /// What went wrong, in words (the first one's message).
    pub message: String,
    /// Moves from the start.
    pub depth: usize,
    /// Whether `dsim run` of the written file breaks the same invariants.
    pub replays: bool,
    /// The scenario file that replays it.
    #[serde(skip)]
    pub text: String,
    /// Its schedule's choices, as the file writes them.
    #[serde(skip)]
    pub choices: Vec<String>,
    /// The file without its header comment: the scenario as explored, retimed, with the
    /// path's schedule.
    #[serde(skip)]
    pub body: String,
}

/// A `sometimes` property's result.
#[derive(Clone, Debug, Serialize)]
pub struct SometimesOutcome {
    /// What must be reachable.
    pub name: &'static str,
    /// Moves to the first state found that has it; `None` if no state reached has it.
    pub depth: Option<usize>,
}

impl From<Stats> for Outcome {
    fn from(stats: Stats) -> Outcome {
        Outcome {
            unique_states: stats.unique_states,
            transitions: stats.transitions,
            max_depth: stats.max_depth,
            terminal_states: stats.terminal,
            complete: stats.complete,
            hit_state_limit: stats.hit_state_limit,
            hit_memory_limit: stats.hit_memory_limit,
            interrupted: stats.interrupted,
            collision_probability: collision_probability(stats.unique_states),
            hit_depth_limit: stats.hit_depth_limit,
            hit_run_limit: stats.hit_run_limit,
            violation: None,
            sometimes: Vec::new(),
            interchangeable: Vec::new(),
        }
    }
}

/// The chance that some two of `states` distinct states share a 64-bit fingerprint (so that
/// the search merged them and never explored one): at most n(n-1)/2 * 2^-64, TLC's estimate
/// for fingerprints that hash well.
pub fn collision_probability(states: u64) -> f64 {
    let n = states as f64;
    (n * (n - 1.0) / 2.0 * 2f64.powi(-64)).min(1.0)
}

/// Why `prep` cannot be explored exhaustively, if it cannot: what has no meaning without
/// time, and a schedule (the search tries every one).
pub fn refusal<P: Protocol>(prep: &Prepared<P>) -> Option<String> {
    if prep.schedule.is_some() || !prep.injected.is_empty() {
        return Some(
            "the file has a `schedule`, and an exhaustive search tries every schedule: \
             explore the file without it"
                .into(),
        );
    }
    for (_, action) in &prep.timeline {
        if let Action::AddRule(rule) = action {
            if matches!(
                rule.action,
                RuleAction::Delay { .. } | RuleAction::Duplicate { .. }
            ) {
                return Some(
                    "a `Delay` or `Duplicate` rule means nothing to an untimed search (any \
                     message may arrive at any time; --dup-budget copies messages): remove it"
                        .into(),
                );
            }
            if rule.until.is_some() {
                return Some(
                    "a rule with an end (`until`) means nothing to an untimed search: let a \
                     timeline step clear it instead (`ClearRules`)"
                        .into(),
                );
            }
        }
    }
    None
}

/// The untimed start of `prep`'s exhaustive search: its nodes started, its timeline pending.
/// A rule takes effect when its step happens: the `since` a file's step gives it (its own
/// time) would mean, with the clock standing still, never.
pub(crate) fn start<P: Protocol>(prep: &Prepared<P>) -> Sim<P::Actor> {
    let config = sim_core::SimConfig {
        seed: prep.doc.seed,
        link: prep.link,
        limits: prep.limits,
        stop_on_violation: true,
    };
    let mut sim = sim_core::build_sim::<P>(&prep.doc.config, config);
    for (at, action) in &prep.timeline {
        let mut action = action.clone();
        if let Action::AddRule(rule) = &mut action {
            rule.since = None;
        }
        sim.schedule(*at, action);
    }
    sim.go_untimed();
    sim
}

/// The interchangeable nodes of `prep` for `--symmetry`: the protocol's groups (see
/// `Protocol::interchangeable`) less every node the timeline names (a crash of `a1` tells it
/// from `a2`) and every twin. `Err` says why nothing is left to merge.
pub fn symmetry<P: Protocol>(prep: &Prepared<P>) -> Result<Symmetry, String> {
    let declared = P::interchangeable(&prep.doc.config);
    if declared.is_empty() {
        return Err(format!(
            "--symmetry: {} declares no interchangeable nodes (its nodes are told apart by \
             more than their names), so there is nothing to merge: drop the flag",
            P::NAME
        ));
    }
    let mut named: BTreeSet<NodeId> = BTreeSet::new();
    let id_of = |name: &str| {
        prep.nodes
            .iter()
            .position(|n| n == name)
            .map(|i| NodeId(i as u32))
    };
    for (_, action) in &prep.timeline {
        match action {
            Action::Crash(n)
            | Action::Restart(n)
            | Action::Pause(n)
            | Action::Resume(n)
            | Action::SetClock(n, _) => {
                named.insert(*n);
            }
            Action::Command(n, command) => {
                named.insert(*n);
                named.extend(P::command_nodes(command).iter().filter_map(|m| id_of(m)));
            }
            Action::Partition(groups) => named.extend(groups.iter().flatten()),
            Action::PartitionOneWay(a, b) => named.extend(a.iter().chain(b)),
            Action::AddRule(rule) => named.extend(rule.from.iter().chain(&rule.to)),
            Action::SetLink(a, b, _) => named.extend([*a, *b]),
            Action::Heal | Action::ClearRules | Action::SetDefaultLink(_) => {}
            Action::ToRole(role, _) => {
                return Err(format!(
                    "--symmetry: a timeline step aims at a role (`@{role}`), which may hit any \
                     node and picks the lowest id on a tie, so no nodes are interchangeable: \
                     name the node instead, or drop the flag"
                ));
            }
        }
    }
    for i in 0..prep.nodes.len() {
        let id = NodeId(i as u32);
        if let Some(twin) = P::twin_of(&prep.doc.config, id) {
            named.extend([id, twin]);
        }
    }
    let groups: Vec<Vec<NodeId>> = declared
        .into_iter()
        .map(|g| g.into_iter().filter(|n| !named.contains(n)).collect())
        .collect();
    let names: Vec<sim_core::Name> = prep.nodes.iter().map(|n| n.as_str().into()).collect();
    let symmetry = Symmetry::new(groups, &names).map_err(|why| format!("--symmetry: {why}"))?;
    if symmetry.is_trivial() {
        return Err(
            "--symmetry: no two interchangeable nodes are left (the timeline names them, or no \
             two nodes of the config are alike): there is nothing to merge, drop the flag"
                .into(),
        );
    }
    Ok(symmetry)
}

/// The boundary of `settings.max_epoch`: every node's epoch at most that.
fn boundary<P: Protocol>(settings: &Settings) -> Option<Boundary<P::Actor>> {
    let max = settings.max_epoch?;
    Some(Arc::new(move |sim: &Sim<P::Actor>| {
        sim.node_ids()
            .all(|id| P::epoch(sim.actor(id)).is_none_or(|e| e <= max))
    }))
}

/// What a search of `prep` starts from, as `settings` bound it: the untimed start, the
/// kernel's options, the `sometimes` properties, and the symmetry merged by (if asked).
#[allow(clippy::type_complexity)]
fn search_of<P: Protocol>(
    prep: &Prepared<P>,
    settings: &Settings,
) -> Result<
    (
        Sim<P::Actor>,
        Options<P::Actor>,
        Vec<exhaustive::Sometimes<P::Actor>>,
        Option<Symmetry>,
    ),
    String,
> {
    if let Some(why) = refusal(prep) {
        return Err(why);
    }
    let symmetry = settings.symmetry.then(|| symmetry(prep)).transpose()?;
    let root = start(prep);
    let options = Options {
        order: settings.order,
        max_depth: settings.max_depth,
        loss_budget: settings.loss_budget,
        dup_budget: settings.dup_budget,
        jobs: settings.jobs,
        max_states: settings.max_states,
        keep_going: settings.keep_going,
        within: boundary::<P>(settings),
        ignored_wait: P::IGNORED_MESSAGES_WAIT,
        symmetry: symmetry.clone().map(Arc::new),
        over_budget: settings.memory.clone(),
        disk: settings.disk.clone(),
        interrupt: settings.interrupt.clone(),
    };
    let sometimes = P::sometimes(&prep.doc.config);
    Ok((root, options, sometimes, symmetry))
}

/// Explores `prep` exhaustively. `progress` is called now and then with the counts so far;
/// `origin` says in words where a counterexample came from. `Err` when the file cannot be
/// explored (see [`refusal`]).
pub fn explore<P: Protocol>(
    prep: &Prepared<P>,
    settings: &Settings,
    origin: &str,
    progress: &mut dyn FnMut(&Stats),
) -> Result<Outcome, String> {
    let (root, options, sometimes, symmetry) = search_of(prep, settings)?;
    let report = exhaustive::explore(root.clone(), &options, &sometimes, progress);
    if let Some(why) = report.failure {
        return Err(format!("the search's files: {why}"));
    }
    Ok(outcome_of(prep, &root, symmetry.as_ref(), report, origin))
}

/// The state graph of `prep`'s search behind the kernel's protocol-free interface, for a
/// search engine outside the kernel (the timely dataflow one).
pub fn searchable<P: Protocol>(
    prep: &Prepared<P>,
    settings: &Settings,
) -> Result<Box<dyn exhaustive::Searchable>, String> {
    let (root, options, sometimes, _) = search_of(prep, settings)?;
    Ok(Box::new(exhaustive::Model::new(root, options, sometimes)))
}

/// The outcome of a search of `prep` that another engine made (see [`searchable`]): its
/// violation made timed and written as a file, as [`explore`] does.
pub fn outcome<P: Protocol>(
    prep: &Prepared<P>,
    settings: &Settings,
    report: exhaustive::Report,
    origin: &str,
) -> Result<Outcome, String> {
    let (root, _, _, symmetry) = search_of(prep, settings)?;
    Ok(outcome_of(prep, &root, symmetry.as_ref(), report, origin))
}

/// What `report`, a search of `prep` from `root`, found, in the words and files of an outcome.
fn outcome_of<P: Protocol>(
    prep: &Prepared<P>,
    root: &Sim<P::Actor>,
    symmetry: Option<&Symmetry>,
    report: exhaustive::Report,
    origin: &str,
) -> Outcome {
    let mut outcome = Outcome::from(report.stats);
    outcome.interchangeable = symmetry
        .iter()
        .flat_map(|s| s.groups())
        .map(|g| g.iter().map(|id| prep.nodes[id.index()].clone()).collect())
        .collect();
    outcome.sometimes = report
        .sometimes
        .iter()
        .map(|r| SometimesOutcome {
            name: r.name,
            depth: r.example.as_ref().map(Vec::len),
        })
        .collect();
    outcome.violation = report.violation.map(|found| {
        path_finding(
            prep,
            root,
            &found.path,
            &found.violations,
            "dsim explore --exhaustive",
            origin,
        )
    });
    outcome
}

/// A violation at the end of `path` from `root` (an untimed start of `prep`), made timed and
/// written as the file that replays it; `by` names the search in the file's header (`dsim
/// explore --exhaustive`), `origin` its flags.
pub(crate) fn path_finding<P: Protocol>(
    prep: &Prepared<P>,
    root: &Sim<P::Actor>,
    path: &[sim_core::Move],
    violations: &[sim_core::Violation],
    by: &str,
    origin: &str,
) -> PathFinding {
    let invariants: BTreeSet<String> = violations.iter().map(|v| v.invariant.clone()).collect();
    let invariants: Vec<String> = invariants.into_iter().collect();
    let timed = exhaustive::timed(root, path, Duration::from_millis(1));
    let message = violations
        .first()
        .map(|v| v.message.clone())
        .unwrap_or_default();
    let write = |named: &BTreeMap<Choice, String>| {
        file_text(
            prep,
            &timed,
            &invariants,
            &message,
            path.len(),
            (by, origin),
            named,
        )
    };
    let (mut header, mut body) = write(&BTreeMap::new());
    // Written once more with each message named (who sends what to whom, when), as the
    // timed run of the file itself sends them.
    if let Ok(again) = crate::load::load::<P>(&prep.name, &body) {
        (header, body) = write(&crate::explore::describe(
            &again,
            again.doc.seed,
            &[],
            &timed.choices,
        ));
    }
    let text = header + &body;
    let replays = crate::load::load::<P>(&prep.name, &text)
        .is_ok_and(|again| run::passes(&again, again.doc.seed));
    PathFinding {
        invariants,
        message,
        depth: path.len(),
        replays,
        text,
        body,
        choices: timed
            .choices
            .iter()
            .map(|&c| choice_text(c, &prep.nodes))
            .collect(),
    }
}

/// The file that replays a path: the scenario as explored, its timeline retimed to the
/// path's moments (steps the path did not take come after it), the path's schedule, and the
/// broken invariants as the expected violations; as (header comment, the rest).
fn file_text<P: Protocol>(
    prep: &Prepared<P>,
    timed: &exhaustive::TimedPath,
    invariants: &[String],
    message: &str,
    depth: usize,
    (by, origin): (&str, &str),
    named: &BTreeMap<Choice, String>,
) -> (String, String) {
    // The k-th timeline step the path took is the k-th in (time, file order).
    let mut order: Vec<usize> = (0..prep.doc.timeline.len()).collect();
    order.sort_by_key(|&i| (prep.doc.timeline[i].0, i));
    let after = (timed.end + Duration::from_millis(1)).0 / 1_000_000;
    let mut timeline = String::from("[\n");
    for (k, &i) in order.iter().enumerate() {
        let ms = timed.act_times.get(k).map_or(after, |t| t.0 / 1_000_000);
        let step = ron::to_string(&prep.doc.timeline[i].1).unwrap_or_default();
        let note = if k < timed.act_times.len() {
            format!(
                "step {} of the path (was at {} ms)",
                k + 1,
                prep.doc.timeline[i].0
            )
        } else {
            "after the path: it did not need this step".to_string()
        };
        timeline.push_str(&format!("        At({ms}, {step}), // {note}\n"));
    }
    timeline.push_str("    ]");
    let nodes = &prep.nodes;
    let words = |c: Choice| -> Option<String> {
        Some(match c {
            Choice::Latency(m, _) if timed.late.contains(&m) => match named.get(&c) {
                Some(words) => format!("{words}: still in flight when the path ends"),
                None => format!("message {}: still in flight when the path ends", m.0),
            },
            Choice::Latency(..) | Choice::Copy(..) | Choice::Lose(_) if named.contains_key(&c) => {
                named[&c].clone()
            }
            Choice::Latency(m, d) => format!("message {} arrives after {}", m.0, d),
            Choice::Copy(m, d) => format!("message {} arrives twice, the copy after {}", m.0, d),
            Choice::Lose(m) => format!("message {} is lost", m.0),
            Choice::Timer(n, nth, d) => format!(
                "{}'s timer #{nth} fires after {}",
                nodes.get(n.index()).map(String::as_str).unwrap_or("?"),
                d
            ),
            Choice::Draw(n, nth, _) => format!(
                "{}'s draw #{nth} takes the low end of its range",
                nodes.get(n.index()).map(String::as_str).unwrap_or("?")
            ),
        })
    };
    let schedule = full_schedule_text(&[], &timed.choices, nodes, words);
    let expect_violation: Vec<String> = invariants.iter().map(|n| format!("{n:?}")).collect();
    let description = format!(
        "counterexample: {} breaks ({})",
        invariants.join(", "),
        prep.doc.description
    );
    let mut text = prep.source.clone();
    for (key, value) in [
        ("description", format!("{description:?}")),
        ("expect", "[]".to_string()),
        (
            "expect_violation",
            format!("[{}]", expect_violation.join(", ")),
        ),
        ("timeline", timeline),
        ("schedule", schedule),
    ] {
        // Every field is top level and the text was already parsed: setting cannot fail.
        if let Ok(changed) = set_scenario_field(&text, key, &value) {
            text = changed;
        }
    }
    let written: Vec<String> = timed
        .choices
        .iter()
        .map(|&c| choice_text(c, nodes))
        .collect();
    let header = format!(
        "// A counterexample found by `{by}` ({origin}).\n\
         // {} breaks after {depth} moves: {}\n\
         // The path's k-th move happens at k ms: the schedule's {} choices give each message\n\
         // the latency and each timer the duration that make it so, and the timeline is\n\
         // retimed to the path. Replay: dsim run FILE\n",
        invariants.join(", "),
        message.replace('\n', " "),
        written.len(),
    );
    (header, text)
}
