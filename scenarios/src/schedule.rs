//! Schedules as text: the kernel's [`Choice`]s written in a scenario file's `schedule: [...]`
//! and read back, exactly.
//!
//! Latencies are milliseconds with up to six decimals (the kernel counts nanoseconds), so a
//! recorded latency of 7 342 105 ns is written `7.342105` and reads back as the same number.

use crate::schema::ChoiceSpec;
use sim_core::{Action, Choice, Clock, Duration, Instant, MsgId, NodeId};

/// A fault a schedule injects for a while: a node crashed then restarted, a node paused then
/// resumed, or the nodes split into groups then healed. A search draws these from the seed
/// (see `explore::FaultModel`) and shrinks them before the message choices.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Injected {
    /// Crash `node` at `at_ms`, restart it at `back_ms`.
    Crash {
        /// The node.
        node: NodeId,
        /// When it crashes.
        at_ms: u64,
        /// When it restarts.
        back_ms: u64,
    },
    /// Pause `node` at `at_ms`, resume it at `back_ms`.
    Pause {
        /// The node.
        node: NodeId,
        /// When it pauses.
        at_ms: u64,
        /// When it resumes.
        back_ms: u64,
    },
    /// From `at_ms` on, `node`'s clock reads true time plus `skew_ms` and runs `drift_ppm`
    /// parts per million fast (slow if negative): its timers fire early or late in true time,
    /// its leases end early or late. It stays so (a clock is not healed).
    Skew {
        /// The node.
        node: NodeId,
        /// When its clock goes wrong.
        at_ms: u64,
        /// Offset from true time, in ms.
        skew_ms: i64,
        /// Rate error, in parts per million.
        drift_ppm: i64,
    },
    /// Split the nodes into `groups` at `at_ms`; heal every cut at `back_ms`.
    Partition {
        /// The groups (unlisted nodes form one more).
        groups: Vec<Vec<NodeId>>,
        /// When the partition starts.
        at_ms: u64,
        /// When every cut heals.
        back_ms: u64,
    },
}

impl Injected {
    /// When the fault starts and ends, in ms (a skewed clock ends where it starts: it is one
    /// change that stays).
    pub fn span_ms(&self) -> (u64, u64) {
        match self {
            Injected::Crash { at_ms, back_ms, .. }
            | Injected::Pause { at_ms, back_ms, .. }
            | Injected::Partition { at_ms, back_ms, .. } => (*at_ms, *back_ms),
            Injected::Skew { at_ms, .. } => (*at_ms, *at_ms),
        }
    }

    /// The timeline actions that make the fault: its start and (but for a clock) its end.
    pub fn actions<C>(&self) -> Vec<(Instant, Action<C>)> {
        let (at, back) = self.span_ms();
        let (at, back) = (Instant::from_millis(at), Instant::from_millis(back));
        match self {
            Injected::Crash { node, .. } => {
                vec![(at, Action::Crash(*node)), (back, Action::Restart(*node))]
            }
            Injected::Pause { node, .. } => {
                vec![(at, Action::Pause(*node)), (back, Action::Resume(*node))]
            }
            Injected::Partition { groups, .. } => vec![
                (at, Action::Partition(groups.clone())),
                (back, Action::Heal),
            ],
            Injected::Skew {
                node,
                skew_ms,
                drift_ppm,
                ..
            } => {
                let clock = Clock {
                    skew_ns: skew_ms.saturating_mul(1_000_000),
                    drift_ppm: *drift_ppm,
                };
                vec![(at, Action::SetClock(*node, clock))]
            }
        }
    }

    /// Queues every fault of `faults` on `sim` (its start and end), after what is queued at
    /// the same instants already: how a run, a search and a counterexample inject them alike.
    pub fn inject<A: sim_core::Actor>(faults: &[Injected], sim: &mut sim_core::Sim<A>) {
        for fault in faults {
            for (at, action) in fault.actions() {
                sim.schedule(at, action);
            }
        }
    }

    /// As a file writes it: `Crash("a2", 8, 12)`.
    pub fn text(&self, nodes: &[String]) -> String {
        let name = |n: &NodeId| {
            format!(
                "{:?}",
                nodes.get(n.index()).map(String::as_str).unwrap_or("?")
            )
        };
        let (at, back) = self.span_ms();
        match self {
            Injected::Crash { node, .. } => format!("Crash({}, {at}, {back})", name(node)),
            Injected::Pause { node, .. } => format!("Pause({}, {at}, {back})", name(node)),
            Injected::Skew {
                node,
                skew_ms,
                drift_ppm,
                ..
            } => format!("Skew({}, {at}, {skew_ms}, {drift_ppm})", name(node)),
            Injected::Partition { groups, .. } => {
                let groups: Vec<String> = groups
                    .iter()
                    .map(|g| format!("[{}]", g.iter().map(name).collect::<Vec<_>>().join(", ")))
                    .collect();
                format!("Partition([{}], {at}, {back})", groups.join(", "))
            }
        }
    }

    /// In words, for the file's comment.
    pub fn words(&self, nodes: &[String]) -> String {
        let name = |n: &NodeId| nodes.get(n.index()).cloned().unwrap_or_default();
        let (at, back) = self.span_ms();
        match self {
            Injected::Crash { node, .. } => {
                format!(
                    "{} crashes at {at} ms and restarts at {back} ms",
                    name(node)
                )
            }
            Injected::Pause { node, .. } => {
                format!("{} pauses at {at} ms and resumes at {back} ms", name(node))
            }
            Injected::Skew {
                node,
                skew_ms,
                drift_ppm,
                ..
            } => format!(
                "from {at} ms, {}'s clock is {skew_ms} ms off and runs {drift_ppm} ppm {}",
                name(node),
                if *drift_ppm < 0 { "slow" } else { "fast" }
            ),
            Injected::Partition { groups, .. } => {
                let groups: Vec<String> = groups
                    .iter()
                    .map(|g| g.iter().map(name).collect::<Vec<_>>().join(" "))
                    .collect();
                format!(
                    "partition {{{}}} from {at} ms, healed at {back} ms",
                    groups.join("} | {")
                )
            }
        }
    }
}

/// A file's milliseconds as a duration, or why they cannot be one.
pub fn duration_of_ms(ms: f64, cap_ms: u64) -> Result<Duration, String> {
    if !ms.is_finite() || ms < 0.0 {
        return Err(format!(
            "{ms} is not a latency: expected milliseconds, 0 or more"
        ));
    }
    if ms > cap_ms as f64 {
        return Err(format!("{ms} ms is past the longest run ({cap_ms} ms)"));
    }
    // Rounded to the nanosecond: exact for every value `ms_text` writes.
    Ok(Duration((ms * 1e6).round() as u64))
}

/// A duration as the file's milliseconds: `7`, `7.25`, `7.342105`.
pub fn ms_text(d: Duration) -> String {
    let (whole, ns) = (d.0 / 1_000_000, d.0 % 1_000_000);
    if ns == 0 {
        return whole.to_string();
    }
    let fraction = format!("{ns:06}");
    format!("{whole}.{}", fraction.trim_end_matches('0'))
}

/// A `schedule: [...]` field's text: the injected faults first, then the message and draw
/// choices, one per line, each followed by its comment (`describe` says in words what a
/// choice does, or nothing).
pub fn full_schedule_text(
    injected: &[Injected],
    choices: &[Choice],
    nodes: &[String],
    describe: impl Fn(Choice) -> Option<String>,
) -> String {
    if injected.is_empty() {
        return schedule_text(choices, nodes, describe);
    }
    let mut text = String::from("[\n");
    for fault in injected {
        text.push_str(&format!(
            "        {}, // {}\n",
            fault.text(nodes),
            fault.words(nodes)
        ));
    }
    let rest = schedule_text(choices, nodes, describe);
    if let Some(body) = rest.strip_prefix("[\n") {
        text.push_str(body);
    } else {
        text.push_str("    ]");
    }
    text
}

/// The file's form of one kernel choice (`nodes` names the node ids).
#[cfg(test)]
fn spec_of(choice: Choice, nodes: &[String]) -> ChoiceSpec {
    match choice {
        Choice::Lose(m) => ChoiceSpec::Lose(m.0),
        Choice::Latency(m, d) => ChoiceSpec::Latency(m.0, d.0 as f64 / 1e6),
        Choice::Copy(m, d) => ChoiceSpec::Duplicate(m.0, d.0 as f64 / 1e6),
        Choice::Draw(n, nth, v) => {
            ChoiceSpec::Draw(nodes.get(n.index()).cloned().unwrap_or_default(), nth, v)
        }
        Choice::Timer(n, nth, d) => ChoiceSpec::Timer(
            nodes.get(n.index()).cloned().unwrap_or_default(),
            nth,
            d.0 as f64 / 1e6,
        ),
    }
}

/// One choice as it is written in a file: `Lose(12)`, `Latency(14, 9.5)`.
pub fn choice_text(choice: Choice, nodes: &[String]) -> String {
    match choice {
        Choice::Lose(m) => format!("Lose({})", m.0),
        Choice::Latency(m, d) => format!("Latency({}, {})", m.0, ms_text(d)),
        Choice::Copy(m, d) => format!("Duplicate({}, {})", m.0, ms_text(d)),
        Choice::Draw(n, nth, v) => {
            let name = nodes.get(n.index()).map(String::as_str).unwrap_or("?");
            format!("Draw({name:?}, {nth}, {v})")
        }
        Choice::Timer(n, nth, d) => {
            let name = nodes.get(n.index()).map(String::as_str).unwrap_or("?");
            format!("Timer({name:?}, {nth}, {})", ms_text(d))
        }
    }
}

/// The slowest clock a schedule's `Skew` may set (it must still move forward), in ppm.
pub const MIN_DRIFT_PPM: i64 = -999_999;
/// The fastest: ten times true time.
pub const MAX_DRIFT_PPM: i64 = 9_000_000;

/// One entry of a file's schedule, in the kernel's terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    /// A message's fate or a node's draw, answered by the oracle.
    Choice(Choice),
    /// A fault injected for a while.
    Fault(Injected),
}

/// The kernel's form of a spec, or why it cannot be one (`node` resolves a name to its id;
/// times are capped at `cap_ms`).
pub fn entry_of(
    spec: &ChoiceSpec,
    node: impl Fn(&str) -> Option<NodeId>,
    cap_ms: u64,
) -> Result<Entry, String> {
    let known = |name: &str| node(name).ok_or_else(|| format!("unknown node \"{name}\""));
    let span = |what: &str, at: u64, back: u64| {
        if at >= back {
            Err(format!(
                "{what} at {at} ms ends at {back} ms: the end must come after the start"
            ))
        } else if back > cap_ms {
            Err(format!("{back} ms is past the longest run ({cap_ms} ms)"))
        } else {
            Ok(())
        }
    };
    Ok(match spec {
        ChoiceSpec::Lose(m) => Entry::Choice(Choice::Lose(MsgId(*m))),
        ChoiceSpec::Latency(m, ms) => {
            Entry::Choice(Choice::Latency(MsgId(*m), duration_of_ms(*ms, cap_ms)?))
        }
        ChoiceSpec::Duplicate(m, ms) => {
            Entry::Choice(Choice::Copy(MsgId(*m), duration_of_ms(*ms, cap_ms)?))
        }
        ChoiceSpec::Draw(name, nth, v) => Entry::Choice(Choice::Draw(known(name)?, *nth, *v)),
        ChoiceSpec::Timer(name, nth, ms) => Entry::Choice(Choice::Timer(
            known(name)?,
            *nth,
            duration_of_ms(*ms, cap_ms)?,
        )),
        ChoiceSpec::Crash(name, at, back) => {
            span("a crash", *at, *back)?;
            Entry::Fault(Injected::Crash {
                node: known(name)?,
                at_ms: *at,
                back_ms: *back,
            })
        }
        ChoiceSpec::Pause(name, at, back) => {
            span("a pause", *at, *back)?;
            Entry::Fault(Injected::Pause {
                node: known(name)?,
                at_ms: *at,
                back_ms: *back,
            })
        }
        ChoiceSpec::Skew(name, at, skew_ms, drift_ppm) => {
            if *at > cap_ms {
                return Err(format!("{at} ms is past the longest run ({cap_ms} ms)"));
            }
            if skew_ms.unsigned_abs() > cap_ms {
                return Err(format!(
                    "a skew of {skew_ms} ms is more than the longest run ({cap_ms} ms)"
                ));
            }
            if !(MIN_DRIFT_PPM..=MAX_DRIFT_PPM).contains(drift_ppm) {
                return Err(format!(
                    "a drift of {drift_ppm} ppm: expected {MIN_DRIFT_PPM} to {MAX_DRIFT_PPM} (a \
                     clock must still move forward)"
                ));
            }
            Entry::Fault(Injected::Skew {
                node: known(name)?,
                at_ms: *at,
                skew_ms: *skew_ms,
                drift_ppm: *drift_ppm,
            })
        }
        ChoiceSpec::Partition(groups, at, back) => {
            span("a partition", *at, *back)?;
            let mut seen: Vec<NodeId> = Vec::new();
            let mut ids = Vec::with_capacity(groups.len());
            for group in groups {
                if group.is_empty() {
                    return Err("a partition group is empty: list at least one node".into());
                }
                let mut g = Vec::with_capacity(group.len());
                for name in group {
                    let id = known(name)?;
                    if seen.contains(&id) {
                        return Err(format!("\"{name}\" is in two groups of one partition"));
                    }
                    seen.push(id);
                    g.push(id);
                }
                ids.push(g);
            }
            Entry::Fault(Injected::Partition {
                groups: ids,
                at_ms: *at,
                back_ms: *back,
            })
        }
    })
}

/// A `schedule: [...]` field's text, one choice per line, each followed by its comment
/// (`describe` says in words what the choice does, or nothing).
fn schedule_text(
    choices: &[Choice],
    nodes: &[String],
    describe: impl Fn(Choice) -> Option<String>,
) -> String {
    if choices.is_empty() {
        return "[]".into();
    }
    let mut text = String::from("[\n");
    for &choice in choices {
        text.push_str("        ");
        text.push_str(&choice_text(choice, nodes));
        text.push(',');
        if let Some(words) = describe(choice) {
            text.push_str(" // ");
            text.push_str(&words.replace('\n', " "));
        }
        text.push('\n');
    }
    text.push_str("    ]");
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every nanosecond count reads back exactly from the text written for it.
    #[test]
    fn milliseconds_round_trip_exactly() {
        for ns in [
            0,
            1,
            999_999,
            1_000_000,
            7_342_105,
            9_500_000,
            2_591_999_999_999_999,
        ] {
            let text = ms_text(Duration(ns));
            let back = duration_of_ms(text.parse().unwrap(), u64::MAX / 2_000_000).unwrap();
            assert_eq!(back, Duration(ns), "{text}");
        }
        assert_eq!(ms_text(Duration(9_500_000)), "9.5");
        assert!(duration_of_ms(-1.0, 10).is_err());
        assert!(duration_of_ms(f64::NAN, 10).is_err());
        assert!(duration_of_ms(11.0, 10).is_err());
    }

    /// What `schedule_text` writes parses back to the same choices.
    #[test]
    fn a_written_schedule_reads_back() {
        let nodes = vec!["a".to_string(), "b".to_string()];
        let choices = vec![
            Choice::Lose(MsgId(3)),
            Choice::Latency(MsgId(4), Duration(7_342_105)),
            Choice::Copy(MsgId(4), Duration(2_000_000)),
            Choice::Draw(NodeId(1), 2, 170),
        ];
        let text = schedule_text(&choices, &nodes, |c| Some(format!("{c:?}")));
        let specs: Vec<ChoiceSpec> = ron::from_str(&text).unwrap();
        let back: Vec<Choice> = specs
            .iter()
            .map(|s| {
                let node = |n: &str| nodes.iter().position(|x| x == n).map(|i| NodeId(i as u32));
                match entry_of(s, node, 1 << 40).unwrap() {
                    Entry::Choice(c) => c,
                    Entry::Fault(f) => panic!("no fault was written: {f:?}"),
                }
            })
            .collect();
        assert_eq!(back, choices);
        assert_eq!(spec_of(choices[1], &nodes), specs[1]);
    }
}
