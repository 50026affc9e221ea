//! Searching schedules for a broken invariant, and shrinking a breaking one to a few choices.
//!
//! A search runs one scenario at many seeds on the fast path ([`probe`]: invariants checked at
//! every step, no trace kept, no story, no expectations: a file's expectations describe one
//! story and are not goals of the search). At a seed that breaks an invariant,
//! [`counterexample`] re-runs it recording the network's choices, shrinks that list to the
//! smallest one that still breaks the same invariant (delta debugging: drop halves, then
//! quarters, ... then single choices, until no choice can go), and writes the result as an
//! ordinary scenario file whose `schedule` holds the choices left, each explained in a comment.
//! `dsim run` of that file replays the violation. Nothing here spawns threads or touches files:
//! the CLI runs seeds on a pool and writes the text.

use crate::load::Prepared;
use crate::run;
use crate::schedule::{Injected, full_schedule_text, ms_text};
use crate::swarm::{self, FaultKinds, Mix};
use crate::vary::set_scenario_field;
use serde::{Deserialize, Serialize};
use sim_core::{
    Choice, Event, Instant, LinkConfig, Message, MsgId, NodeId, Protocol, Sim, SimConfig, SimRng,
    Status, StopReason, Stream, TraceMode,
};
use std::collections::{BTreeMap, BTreeSet};

/// An invariant that broke at one seed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// The invariant's name.
    pub invariant: String,
    /// What went wrong, in words.
    pub message: String,
    /// The step that broke it.
    pub step: u64,
    /// When, in virtual nanoseconds.
    pub time_ns: u64,
}

impl Finding {
    /// `"liveness"` for a liveness failure, `"violation"` for a broken invariant.
    pub fn kind(&self) -> &'static str {
        if self.invariant == LIVENESS {
            "liveness"
        } else {
            "violation"
        }
    }
}

/// A shrunk counterexample, ready to be written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Counterexample {
    /// The seed it was found at (node draws still come from it).
    pub seed: u64,
    /// What broke when the shrunk schedule runs.
    pub finding: Finding,
    /// Decisions the random run made that differ from the healthy network: its injected
    /// faults and its message choices.
    pub recorded: usize,
    /// The choices left after shrinking, as the file writes them.
    pub choices: Vec<String>,
    /// Runs the shrinking took.
    pub shrink_runs: u64,
    /// Whether the written file, parsed and run again, breaks the same invariant.
    pub replays: bool,
    /// The scenario file's text.
    #[serde(skip)]
    pub text: String,
}

/// How a PCT search is set (`--strategy pct --depth D`; the search itself is the `pct` module,
/// which the registry calls instead of this module's probes when [`FaultModel::pct`] is set).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PctSettings {
    /// The bug depth aimed at: d - 1 priority change points per walk.
    pub depth: u32,
    /// The walk length the change points are spread over (PCT's k).
    pub steps: u32,
    /// The most moves a walk takes.
    pub max_moves: u32,
}

/// The faults a search may inject on top of the file's timeline, each drawn from the seed's
/// fault stream: a crash (and restart), a pause (and resume), a partition into two random
/// sides (and heal), each starting in `[0, window_ms]` and lasting 1 ms to half the window.
///
/// Or enumerated rather than drawn, as the Twins paper's scenario generator does (Bano et al.,
/// OPODIS 2021): `partition_rounds` rounds of `round_ms` each, and in each round the nodes split
/// into two sides as the seed's bits say (see [`FaultModel::draw`]), so that the seeds
/// `0..2^((nodes - 1) * rounds)` are every such schedule exactly once.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaultModel {
    /// Crashes per seed.
    pub crashes: u32,
    /// Pauses per seed.
    pub pauses: u32,
    /// Partitions per seed.
    pub partitions: u32,
    /// Faults start within this many ms of the run's start.
    pub window_ms: u64,
    /// Rounds of enumerated partitions, from time 0 (none when 0).
    #[serde(default)]
    pub partition_rounds: u32,
    /// How long each enumerated round lasts, in ms.
    #[serde(default)]
    pub round_ms: u64,
    /// The sorts of fault the search may use (`--faults`): without `swarm`, the sorts left out
    /// are taken out of the file's link laws (no loss, no duplicates, every latency the
    /// shortest); with it, each seed's mix is drawn among them.
    #[serde(default)]
    pub kinds: FaultKinds,
    /// Swarm testing (see [`crate::swarm`]): each seed draws its own mix of fault sorts and
    /// intensities, in place of the file's link laws and the counts above.
    #[serde(default)]
    pub swarm: bool,
    /// A PCT search instead of random schedules (the `pct` module): each seed one walk of
    /// the untimed run, steered by chain priorities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pct: Option<PctSettings>,
}

/// What one seed of a search runs with besides the file: its links' laws, its injected faults,
/// and (in a swarm search) the mix they came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeedFaults {
    /// The default link's laws.
    pub link: LinkConfig,
    /// Faults injected on top of the file's timeline.
    pub injected: Vec<Injected>,
    /// The seed's swarm mix.
    pub mix: Option<Mix>,
}

impl FaultModel {
    /// Whether it injects nothing.
    pub fn is_empty(&self) -> bool {
        self.crashes + self.pauses + self.partitions + self.partition_rounds == 0 && !self.swarm
    }

    /// Seed `seed`'s swarm mix among `nodes` nodes whose file gives the default `link`: drawn
    /// among the sorts both `kinds` and the scenario allow.
    pub fn mix(&self, seed: u64, nodes: usize, link: LinkConfig) -> Mix {
        let kinds = FaultKinds::ALL
            .iter()
            .filter(|&k| self.kinds.has(k) && swarm::allowed(nodes).has(k))
            .fold(FaultKinds::NONE, FaultKinds::with);
        swarm::mix(seed, kinds, link, nodes, self.window_ms)
    }

    /// What seed `seed` runs with among `nodes` nodes whose file gives the default `link`.
    pub fn seed_faults(&self, seed: u64, nodes: usize, link: LinkConfig) -> SeedFaults {
        if !self.swarm {
            return SeedFaults {
                link: swarm::restrict(link, self.kinds),
                injected: self.draw(seed, nodes),
                mix: None,
            };
        }
        let mix = self.mix(seed, nodes, link);
        let counts = FaultModel {
            crashes: mix.crashes,
            pauses: mix.pauses,
            partitions: mix.partitions,
            swarm: false,
            ..*self
        };
        let mut injected = counts.draw(seed, nodes);
        injected.extend(mix.skews.iter().cloned());
        SeedFaults {
            link: mix.link,
            injected,
            mix: Some(mix),
        }
    }

    /// How many distinct schedules the enumerated rounds make among `nodes` nodes: each round
    /// puts every node but the first on one of two sides, 2^(nodes - 1) ways (one of them, all
    /// on one side, is no partition). `None` when there are no rounds, or more than 2^64.
    pub fn enumerated(&self, nodes: usize) -> Option<u64> {
        if self.partition_rounds == 0 || nodes == 0 {
            return None;
        }
        let bits = (nodes as u64 - 1).checked_mul(u64::from(self.partition_rounds))?;
        (bits < 64).then(|| 1u64 << bits)
    }

    /// The enumerated partitions of `seed` among `nodes` nodes: in round r (from 0), node i
    /// (from 1) is on the second side when bit `r * (nodes - 1) + i - 1` of the seed is set,
    /// node 0 always on the first; a round with nobody on the second side has no partition.
    /// Each partition heals at the end of its round.
    fn enumerate(&self, seed: u64, nodes: usize) -> Vec<Injected> {
        let bits = nodes.saturating_sub(1);
        let mut out = Vec::new();
        for round in 0..self.partition_rounds as usize {
            let side = |node: usize| -> bool {
                let Some(bit) = (round * bits + node).checked_sub(1).filter(|_| node > 0) else {
                    return false;
                };
                bit < 64 && seed >> bit & 1 == 1
            };
            let second: Vec<NodeId> = (1..nodes)
                .filter(|&i| side(i))
                .map(|i| NodeId(i as u32))
                .collect();
            if second.is_empty() {
                continue;
            }
            let first = (0..nodes)
                .filter(|&i| !side(i))
                .map(|i| NodeId(i as u32))
                .collect();
            let at_ms = round as u64 * self.round_ms;
            out.push(Injected::Partition {
                groups: vec![first, second],
                at_ms,
                back_ms: at_ms + self.round_ms,
            });
        }
        out
    }

    /// The faults of `seed` among `nodes` nodes (none with fewer than 2 nodes for a partition):
    /// drawn from its fault stream, or with `partition_rounds` its enumerated partitions (the
    /// CLI refuses random partitions beside enumerated ones).
    pub fn draw(&self, seed: u64, nodes: usize) -> Vec<Injected> {
        if self.is_empty() || nodes == 0 {
            return Vec::new();
        }
        if self.partition_rounds > 0 {
            return self.enumerate(seed, nodes);
        }
        let mut rng = SimRng::new(seed, Stream::Faults);
        // Within a run's longest time, so that the written file is one `load` accepts.
        let window = self.window_ms.min(crate::load::caps::TIME_MS / 2);
        let span = |rng: &mut SimRng| {
            let at = rng.between(0, window);
            (at, at + rng.between(1, (window / 2).max(1)))
        };
        let mut out = Vec::new();
        for crash in std::iter::repeat_n(true, self.crashes as usize)
            .chain(std::iter::repeat_n(false, self.pauses as usize))
        {
            let node = NodeId(rng.below(nodes as u64) as u32);
            let (at_ms, back_ms) = span(&mut rng);
            out.push(if crash {
                Injected::Crash {
                    node,
                    at_ms,
                    back_ms,
                }
            } else {
                Injected::Pause {
                    node,
                    at_ms,
                    back_ms,
                }
            });
        }
        for _ in 0..self.partitions {
            if nodes < 2 {
                break;
            }
            let mut side: Vec<bool> = (0..nodes).map(|_| rng.below(2) == 1).collect();
            if side.iter().all(|&s| s == side[0]) {
                side[0] = !side[0];
            }
            let group = |want: bool| -> Vec<NodeId> {
                (0..nodes)
                    .filter(|&i| side[i] == want)
                    .map(|i| NodeId(i as u32))
                    .collect()
            };
            let (at_ms, back_ms) = span(&mut rng);
            out.push(Injected::Partition {
                groups: vec![group(false), group(true)],
                at_ms,
                back_ms,
            });
        }
        out
    }
}

/// Failing seeds of one invariant (the first ones of their batch) whose shrunk schedules a
/// search compares, to keep the shortest.
pub const SHRINK_CANDIDATES: usize = 4;

/// The most runs one shrink may take: beyond, the schedule is left as shrunk so far.
pub const MAX_SHRINK_RUNS: u64 = 20_000;

/// Builds the run of `prep` at `seed` for a search: the file's timeline and limits, its
/// invariants, no trace, stopping at the first violation.
pub(crate) fn build<P: Protocol>(
    prep: &Prepared<P>,
    seed: u64,
    injected: &[Injected],
) -> Sim<P::Actor> {
    build_on(prep, seed, injected, prep.link)
}

/// [`build`] with `link` as the default link's laws (a swarm seed's, or the file's restricted).
fn build_on<P: Protocol>(
    prep: &Prepared<P>,
    seed: u64,
    injected: &[Injected],
    link: LinkConfig,
) -> Sim<P::Actor> {
    let config = SimConfig {
        seed,
        link,
        limits: prep.limits,
        stop_on_violation: true,
    };
    let mut sim = sim_core::build_sim::<P>(&prep.doc.config, config);
    for (at, action) in &prep.timeline {
        sim.schedule(*at, action.clone());
    }
    Injected::inject(injected, &mut sim);
    sim
}

/// The name a liveness failure goes by where an invariant's name would be.
pub const LIVENESS: &str = "liveness";

/// Runs `sim` and judges it: the first invariant broken, else (when the protocol promises
/// progress, and the run ended long enough after its last scripted step or with nothing left
/// to happen) a liveness failure.
fn judge<P: Protocol>(
    prep: &Prepared<P>,
    sim: &mut Sim<P::Actor>,
    injected: &[Injected],
) -> Option<Finding> {
    let report = sim.run();
    verdict(prep, sim, injected, report)
}

/// [`judge`], counting the abstract state after every step into `states`.
fn judge_counting<P: Protocol>(
    prep: &Prepared<P>,
    sim: &mut Sim<P::Actor>,
    injected: &[Injected],
    states: &mut Vec<u64>,
) -> Option<Finding> {
    states.push(sim.abstract_hash());
    while sim.step() {
        states.push(sim.abstract_hash());
    }
    let report = sim.finish();
    verdict(prep, sim, injected, report)
}

/// What a finished run found: its first violation, else a liveness failure (see [`judge`]).
fn verdict<P: Protocol>(
    prep: &Prepared<P>,
    sim: &Sim<P::Actor>,
    injected: &[Injected],
    report: sim_core::RunReport,
) -> Option<Finding> {
    if let Some(first) = report.violations.first() {
        return Some(Finding {
            invariant: first.invariant.clone(),
            message: first.message.clone(),
            step: first.step,
            time_ns: first.time.0,
        });
    }
    let bound = P::progress_bound(&prep.doc.config)?;
    let last = last_fault_ns(prep, injected)?;
    let calm = report.time.0.saturating_sub(last) >= bound.0;
    if !calm && report.stop != StopReason::Quiescent {
        return None;
    }
    // A fault still in force at the end (a node down, a cut link) makes progress impossible
    // by design, not by a bug: nothing is promised then.
    let all_up = sim.node_ids().all(|id| sim.status(id) == Status::Up);
    if !all_up || sim.network().has_cuts() {
        return None;
    }
    // A swarm seed's network that is harsher than the file's (more loss, more duplicates,
    // longer latencies) is a fault that never ends: the protocol's bound assumed the file's.
    if harsher(sim.network().default_link(), prep.link) {
        return None;
    }
    let message = P::progress(&prep.doc.config, sim, Instant(last)).err()?;
    Some(Finding {
        invariant: LIVENESS.to_string(),
        message: format!(
            "{message}; the protocol promises progress within {bound} of the last fault"
        ),
        step: report.steps,
        time_ns: report.time.0,
    })
}

/// Whether `link` loses or duplicates more often than `file`, or can take longer.
fn harsher(link: LinkConfig, file: LinkConfig) -> bool {
    let above = |a: sim_core::Ratio, b: sim_core::Ratio| {
        u64::from(a.numerator) * u64::from(b.denominator)
            > u64::from(b.numerator) * u64::from(a.denominator)
    };
    above(link.loss, file.loss)
        || above(link.duplicate, file.duplicate)
        || link.latency.max() > file.latency.max()
}

/// When the run's last fault ends, in virtual ns: the last scripted step, the end of every
/// injected fault, and the `until` of every fault rule; `None` when a rule acts forever (a
/// drop or delay with neither an end nor an `nth`), so no progress can be promised.
fn last_fault_ns<P: Protocol>(prep: &Prepared<P>, injected: &[Injected]) -> Option<u64> {
    let mut last = 0u64;
    for (at, action) in &prep.timeline {
        last = last.max(at.0);
        if let sim_core::Action::AddRule(rule) = action {
            match (rule.until, rule.nth) {
                (Some(until), _) => last = last.max(until.0),
                (None, Some(_)) => {}
                (None, None) => return None,
            }
        }
    }
    for fault in injected {
        last = last.max(Instant::from_millis(fault.span_ms().1).0);
    }
    Some(last)
}

/// One seed of a search on the fast path, with `faults` drawn from it: the first invariant
/// broken, if any.
pub fn probe<P: Protocol>(prep: &Prepared<P>, seed: u64, faults: &FaultModel) -> Option<Finding> {
    let planned = faults.seed_faults(seed, prep.nodes.len(), prep.link);
    let injected = &planned.injected;
    judge(
        prep,
        &mut build_on(prep, seed, injected, planned.link),
        injected,
    )
}

/// Many seeds of a search on the fast path, one after another: the run is built once and
/// cloned per seed (reseeded, its drawn faults added), which is what a search spends least on.
/// The findings in seed order; each is the one [`probe`] gives at its seed.
pub fn probe_many<P: Protocol>(
    prep: &Prepared<P>,
    seeds: &[u64],
    faults: &FaultModel,
) -> Vec<(u64, Finding)> {
    probe_chunk(prep, seeds, faults, None)
}

/// [`probe_many`], also counting coverage: the distinct abstract states (see
/// `Sim::abstract_hash`) the runs reached, as sorted hashes.
pub fn probe_covering<P: Protocol>(
    prep: &Prepared<P>,
    seeds: &[u64],
    faults: &FaultModel,
) -> (Vec<(u64, Finding)>, Vec<u64>) {
    let mut states = Vec::new();
    let found = probe_chunk(prep, seeds, faults, Some(&mut states));
    states.sort_unstable();
    states.dedup();
    (found, states)
}

fn probe_chunk<P: Protocol>(
    prep: &Prepared<P>,
    seeds: &[u64],
    faults: &FaultModel,
    mut states: Option<&mut Vec<u64>>,
) -> Vec<(u64, Finding)> {
    let template = build(prep, seeds.first().copied().unwrap_or(0), &[]);
    // Each seed's run is copied into the last one's, reusing its buffers and its nodes' states.
    let mut sim = template.clone();
    seeds
        .iter()
        .filter_map(|&seed| {
            sim.clone_from(&template);
            sim.reseed(seed);
            let planned = faults.seed_faults(seed, prep.nodes.len(), prep.link);
            if planned.link != prep.link {
                sim.network_mut().set_default_link(planned.link);
            }
            let injected = planned.injected;
            Injected::inject(&injected, &mut sim);
            let found = match states.as_deref_mut() {
                Some(states) => judge_counting(prep, &mut sim, &injected, states),
                None => judge(prep, &mut sim, &injected),
            };
            found.map(|f| (seed, f))
        })
        .collect()
}

/// A swarm search's tally of `seeds` (see `LoadedScenario::swarm_tally`).
pub fn swarm_tally<P: Protocol>(
    prep: &Prepared<P>,
    seeds: std::ops::Range<u64>,
    faults: &FaultModel,
    findings: &[(u64, Finding)],
) -> Vec<swarm::MixTally> {
    if !faults.swarm {
        return Vec::new();
    }
    let mut by_mix: BTreeMap<FaultKinds, swarm::MixTally> = BTreeMap::new();
    let mut found = findings.iter().peekable();
    for seed in seeds {
        let kinds = faults.mix(seed, prep.nodes.len(), prep.link).kinds;
        let row = by_mix.entry(kinds).or_insert_with(|| swarm::MixTally {
            mix: kinds.to_string(),
            ..swarm::MixTally::default()
        });
        row.seeds += 1;
        while let Some((_, finding)) = found.next_if(|(s, _)| *s == seed) {
            *row.found.entry(finding.invariant.clone()).or_default() += 1;
        }
    }
    let mut rows = Vec::new();
    swarm::add_tallies(&mut rows, &by_mix.into_values().collect::<Vec<_>>());
    rows
}

/// What breaks when `prep` at `seed` injects `injected` and follows `choices`.
fn follow<P: Protocol>(
    prep: &Prepared<P>,
    seed: u64,
    injected: &[Injected],
    choices: &[Choice],
) -> Option<Finding> {
    let mut sim = build(prep, seed, injected);
    sim.follow(choices);
    judge(prep, &mut sim, injected)
}

/// Shrinks `items` to a list from which no single item, and (for short lists) no pair of
/// items, can be removed with `fails` still true, within `budget` calls of `fails`.
pub fn shrink<T: Clone>(
    items: Vec<T>,
    budget: u64,
    mut fails: impl FnMut(&[T]) -> bool,
) -> (Vec<T>, u64) {
    let (mut items, mut runs) = drop_chunks(items, budget, &mut fails);
    // Then pairs: two choices that only matter together (a loss and the retry it causes)
    // survive every single removal. Tried on short lists only: the pairs grow as the square.
    'pairs: while items.len() <= PAIRS_UP_TO && runs < budget {
        for i in 0..items.len() {
            for j in i + 1..items.len() {
                if runs >= budget {
                    break 'pairs;
                }
                let candidate: Vec<T> = items
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| *k != i && *k != j)
                    .map(|(_, c)| c.clone())
                    .collect();
                runs += 1;
                if fails(&candidate) {
                    let (again, more) = drop_chunks(candidate, budget - runs, &mut fails);
                    items = again;
                    runs += more;
                    continue 'pairs;
                }
            }
        }
        break;
    }
    (items, runs)
}

/// Lists at most this long get the pair pass of [`shrink`].
const PAIRS_UP_TO: usize = 40;

/// Delta debugging's complement steps: drop halves, then quarters, ... then single items,
/// keeping every drop after which `fails` still holds.
fn drop_chunks<T: Clone>(
    mut items: Vec<T>,
    budget: u64,
    fails: &mut impl FnMut(&[T]) -> bool,
) -> (Vec<T>, u64) {
    let mut runs = 0u64;
    let mut parts = 2usize;
    while !items.is_empty() && runs < budget {
        let chunk = items.len().div_ceil(parts.min(items.len()));
        let mut reduced = false;
        let mut start = 0;
        while start < items.len() && runs < budget {
            let end = (start + chunk).min(items.len());
            let candidate: Vec<T> = items[..start]
                .iter()
                .chain(&items[end..])
                .cloned()
                .collect();
            runs += 1;
            if fails(&candidate) {
                items = candidate;
                parts = parts.saturating_sub(1).max(2);
                reduced = true;
                break;
            }
            start = end;
        }
        if !reduced {
            if chunk == 1 {
                break;
            }
            parts = (parts * 2).min(items.len());
        }
    }
    (items, runs)
}

/// The counterexample of `finding`, found at `seed` of `prep`, shrunk and written as a file.
/// `origin` says in words where it came from (the scenario and the flags of the search).
pub fn counterexample<P: Protocol>(
    prep: &Prepared<P>,
    seed: u64,
    faults: &FaultModel,
    finding: &Finding,
    origin: &str,
) -> Counterexample {
    let planned = faults.seed_faults(seed, prep.nodes.len(), prep.link);
    let drawn = planned.injected.clone();
    let mut sim = build_on(prep, seed, &drawn, planned.link);
    sim.record_choices();
    judge(prep, &mut sim, &drawn);
    let recorded = sim.recorded_choices().to_vec();
    shrunk(
        prep,
        seed,
        (drawn, recorded),
        finding,
        origin,
        planned.mix.as_ref(),
    )
}

/// The counterexample of `finding` at `seed` of `prep`, from the faults and choices that
/// break it there: both shrunk, and written as a file (`mix`: the seed's swarm mix, for the
/// header).
pub(crate) fn shrunk<P: Protocol>(
    prep: &Prepared<P>,
    seed: u64,
    (drawn, recorded): (Vec<Injected>, Vec<Choice>),
    finding: &Finding,
    origin: &str,
    mix: Option<&Mix>,
) -> Counterexample {
    let same = |injected: &[Injected], choices: &[Choice]| {
        follow(prep, seed, injected, choices).is_some_and(|f| f.invariant == finding.invariant)
    };
    let (injected, choices, shrink_runs) = if same(&drawn, &recorded) {
        // Faults first (each one removed shifts the messages after it), then the messages.
        let (injected, fault_runs) = shrink(drawn.clone(), MAX_SHRINK_RUNS, |faults| {
            same(faults, &recorded)
        });
        let (choices, message_runs) = shrink(
            recorded.clone(),
            MAX_SHRINK_RUNS.saturating_sub(fault_runs),
            |choices| same(&injected, choices),
        );
        (injected, choices, fault_runs + message_runs)
    } else {
        // Cannot happen (a recording replays its run); keep everything rather than lie.
        (drawn.clone(), recorded.clone(), 0)
    };
    let finding = follow(prep, seed, &injected, &choices).unwrap_or_else(|| finding.clone());
    let words = describe(prep, seed, &injected, &choices);
    let body = full_schedule_text(&injected, &choices, &prep.nodes, |c| words.get(&c).cloned());
    let decided = recorded.len() + drawn.len();
    let expect_violation = expected_violations(prep, seed, &injected, &choices);
    let text = file_text(
        prep,
        seed,
        &finding,
        (origin, mix),
        decided,
        &body,
        expect_violation,
    );
    // Replays: `dsim run` of the file passes (it shows exactly the violations it expects),
    // and the search's own judge finds the same thing in it again.
    let replays = crate::load::load::<P>(&prep.name, &text).is_ok_and(|again| {
        run::passes(&again, again.doc.seed)
            && probe_followed(&again, seed).is_some_and(|f| f.invariant == finding.invariant)
    });
    let mut written: Vec<String> = injected.iter().map(|f| f.text(&prep.nodes)).collect();
    written.extend(
        choices
            .iter()
            .map(|&c| crate::schedule::choice_text(c, &prep.nodes)),
    );
    Counterexample {
        seed,
        recorded: decided,
        choices: written,
        shrink_runs,
        replays,
        text,
        finding,
    }
}

/// A loaded file run as `dsim run` would, following its own schedule.
fn probe_followed<P: Protocol>(prep: &Prepared<P>, seed: u64) -> Option<Finding> {
    let mut sim = run::build(prep, seed);
    judge(prep, &mut sim, &prep.injected)
}

/// Each choice in words, from a traced run of the shrunk schedule: which message it is (who
/// sent what to whom, when) and what the choice does to it.
pub(crate) fn describe<P: Protocol>(
    prep: &Prepared<P>,
    seed: u64,
    injected: &[Injected],
    choices: &[Choice],
) -> BTreeMap<Choice, String> {
    let mut sim = build(prep, seed, injected);
    sim.follow(choices);
    sim.set_trace(TraceMode::Memory(Vec::new()));
    sim.run();
    let mut sends: BTreeMap<MsgId, String> = BTreeMap::new();
    for record in sim.take_records() {
        if let Event::Send { id, from, to, msg } = &record.event {
            sends.insert(
                *id,
                format!("{from} -> {to} {} at {}", msg.kind(), record.time),
            );
        }
    }
    choices
        .iter()
        .map(|&c| {
            let what = |m: MsgId| {
                sends
                    .get(&m)
                    .cloned()
                    .unwrap_or_else(|| format!("message {} (never sent in this run)", m.0))
            };
            let words = match c {
                Choice::Lose(m) => format!("{}: lost", what(m)),
                Choice::Latency(m, d) => format!("{}: takes {} ms", what(m), ms_text(d)),
                Choice::Copy(m, d) => format!(
                    "{}: delivered twice, the copy after {} ms",
                    what(m),
                    ms_text(d)
                ),
                Choice::Draw(n, nth, v) => format!(
                    "{}'s random draw #{nth} answers {v}",
                    prep.nodes.get(n.index()).map(String::as_str).unwrap_or("?")
                ),
                Choice::Timer(n, nth, d) => format!(
                    "{}'s timer #{nth} fires after {} ms",
                    prep.nodes.get(n.index()).map(String::as_str).unwrap_or("?"),
                    ms_text(d)
                ),
            };
            (c, words)
        })
        .collect()
}

/// Every invariant the shrunk run breaks when run as the file says (its own
/// `on_violation_stop`, its end-of-run checks), as the file's `expect_violation` list: what
/// `dsim run` of the file must see for it to pass.
fn expected_violations<P: Protocol>(
    prep: &Prepared<P>,
    seed: u64,
    injected: &[Injected],
    choices: &[Choice],
) -> String {
    let mut sim = run::build(prep, seed);
    Injected::inject(injected, &mut sim);
    sim.follow(choices);
    let names: BTreeSet<String> = sim
        .run()
        .violations
        .into_iter()
        .map(|v| v.invariant)
        .collect();
    let names: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
    format!("[{}]", names.join(", "))
}

/// The counterexample file: the scenario as searched, with its seed, the shrunk schedule, the
/// broken invariant as the expected violation (so `dsim run` of it passes by showing it), and
/// a header comment saying what it is.
fn file_text<P: Protocol>(
    prep: &Prepared<P>,
    seed: u64,
    finding: &Finding,
    (origin, mix): (&str, Option<&Mix>),
    recorded: usize,
    schedule: &str,
    expect_violation: String,
) -> String {
    let mut text = prep.source.clone();
    let invariant = &finding.invariant;
    let description = if invariant == LIVENESS {
        format!("counterexample: no progress ({})", prep.doc.description)
    } else {
        format!(
            "counterexample: {invariant} breaks ({})",
            prep.doc.description
        )
    };
    for (key, value) in [
        ("description", format!("{description:?}")),
        ("seed", seed.to_string()),
        ("expect", "[]".to_string()),
        ("expect_violation", expect_violation),
        ("schedule", schedule.to_string()),
    ] {
        // Every field is top level and the text was already parsed: setting cannot fail.
        if let Ok(changed) = set_scenario_field(&text, key, &value) {
            text = changed;
        }
    }
    let choices = schedule
        .lines()
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_uppercase()))
        .count();
    let header = format!(
        "// A counterexample found by `dsim explore` ({origin}).\n\
         // {} at {}: {}\n\
         // Found at seed {seed}; its {recorded} decisions (faults, message fates) were shrunk to the {choices} below.\n\
         // Every message the schedule does not name is delivered once at the link's shortest\n\
         // latency; the nodes' own random draws come from the seed. Replay: dsim run FILE\n{}",
        if invariant == LIVENESS {
            "No progress (a liveness failure, not an invariant: `dsim run` of this file passes and\n\
             // its closing summary shows what is missing; `dsim explore` judges it)"
                .to_string()
        } else {
            format!("Invariant {invariant:?} breaks")
        },
        Instant(finding.time_ns),
        finding.message.replace('\n', " "),
        mix.map(|m| format!(
            "// The seed's swarm mix, before shrinking: {}.\n",
            m.words()
        ))
        .unwrap_or_default(),
    );
    header + &text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rounds(partition_rounds: u32) -> FaultModel {
        FaultModel {
            partition_rounds,
            round_ms: 50,
            ..FaultModel::default()
        }
    }

    /// The enumerated seeds are every assignment of 4 nodes to two sides over 2 rounds exactly
    /// once (node 0 fixed on the first side: 8 per round, one of them no partition), each
    /// partition lasting its round.
    #[test]
    fn enumerated_partitions_are_every_schedule_once() {
        let model = rounds(2);
        assert_eq!(model.enumerated(4), Some(64));
        let mut seen = BTreeSet::new();
        for seed in 0..64 {
            let faults = model.draw(seed, 4);
            for fault in &faults {
                let Injected::Partition {
                    groups,
                    at_ms,
                    back_ms,
                } = fault
                else {
                    panic!("only partitions: {fault:?}");
                };
                assert_eq!(groups.len(), 2);
                assert!(groups[0].contains(&NodeId(0)) && !groups[1].is_empty());
                assert_eq!(groups[0].len() + groups[1].len(), 4);
                assert!(*at_ms == 0 || *at_ms == 50);
                assert_eq!(back_ms - at_ms, 50);
            }
            assert!(seen.insert(format!("{faults:?}")), "seed {seed} repeats");
        }
        assert!(model.draw(0, 4).is_empty(), "seed 0: no partition at all");
        assert_eq!(
            model.draw(0b010_001, 4),
            [
                Injected::Partition {
                    groups: vec![vec![NodeId(0), NodeId(2), NodeId(3)], vec![NodeId(1)]],
                    at_ms: 0,
                    back_ms: 50,
                },
                Injected::Partition {
                    groups: vec![vec![NodeId(0), NodeId(1), NodeId(3)], vec![NodeId(2)]],
                    at_ms: 50,
                    back_ms: 100,
                },
            ]
        );
        assert_eq!(rounds(0).enumerated(4), None);
        assert_eq!(rounds(16).enumerated(7), None, "2^96 does not fit");
    }
}
