//! The checks of a file's `schedule`: every message number and draw in range, every node
//! known, no message or draw given two answers of one sort, none both lost and late, every fault
//! ending after it starts.

use super::caps;
use super::checks::{Checks, field_offset};
use crate::schedule::{Entry, Injected, entry_of};
use crate::schema::ChoiceSpec;
use sim_core::{Choice, NodeId};
use std::collections::{BTreeMap, BTreeSet};

impl Checks<'_> {
    /// The schedule as kernel choices and injected faults, or `None` with the problems
    /// recorded.
    pub(super) fn schedule(
        &mut self,
        specs: &[ChoiceSpec],
    ) -> Option<(Vec<Choice>, Vec<Injected>)> {
        self.anchor = field_offset(self.source, "schedule", 0);
        let entries = self.schedule_entries(specs);
        self.anchor = None;
        entries
    }

    fn schedule_entries(&mut self, specs: &[ChoiceSpec]) -> Option<(Vec<Choice>, Vec<Injected>)> {
        if specs.len() > caps::TIMELINE_STEPS {
            self.problem(
                Some("schedule"),
                format!(
                    "the schedule has {} choices; at most {} are allowed",
                    specs.len(),
                    caps::TIMELINE_STEPS
                ),
                Some("keep the choices that matter: every message not listed is healthy".into()),
            );
            return None;
        }
        let before = self.problems.len();
        let mut choices = Vec::with_capacity(specs.len());
        let mut injected = Vec::new();
        // (message, sort) -> the first choice that answered it.
        let mut answered: BTreeMap<(u64, u8), &ChoiceSpec> = BTreeMap::new();
        // (node, n) of every pinned draw.
        let mut pinned: BTreeSet<(&str, u64, bool)> = BTreeSet::new();
        for spec in specs {
            // The choice as written starts with its sort and its first value: `Latency(4,`.
            let written = match spec {
                ChoiceSpec::Lose(m) => format!("Lose({m})"),
                ChoiceSpec::Latency(m, _) => format!("Latency({m},"),
                ChoiceSpec::Duplicate(m, _) => format!("Duplicate({m},"),
                ChoiceSpec::Draw(name, ..) => format!("Draw({name:?}"),
                ChoiceSpec::Timer(name, ..) => format!("Timer({name:?}"),
                ChoiceSpec::Crash(name, ..) => format!("Crash({name:?}"),
                ChoiceSpec::Pause(name, ..) => format!("Pause({name:?}"),
                ChoiceSpec::Skew(name, ..) => format!("Skew({name:?}"),
                ChoiceSpec::Partition(..) => "Partition(".to_string(),
            };
            let counted = match spec {
                ChoiceSpec::Lose(m) | ChoiceSpec::Latency(m, _) | ChoiceSpec::Duplicate(m, _) => {
                    Some((*m, "message"))
                }
                ChoiceSpec::Draw(_, nth, _) => Some((*nth, "draw")),
                ChoiceSpec::Timer(_, nth, _) => Some((*nth, "timer")),
                _ => None,
            };
            if let Some((counted, what)) = counted
                && (counted == 0 || counted > caps::STEPS)
            {
                self.problem(
                    Some(&written),
                    format!(
                        "{what} number {counted} is out of range: they count from 1 up to {}",
                        caps::STEPS
                    ),
                    Some("message numbers are the `id`s of a trace's send records".into()),
                );
                continue;
            }
            let names: Vec<&String> = match spec {
                ChoiceSpec::Draw(name, ..)
                | ChoiceSpec::Timer(name, ..)
                | ChoiceSpec::Crash(name, ..)
                | ChoiceSpec::Pause(name, ..)
                | ChoiceSpec::Skew(name, ..) => {
                    vec![name]
                }
                ChoiceSpec::Partition(groups, ..) => groups.iter().flatten().collect(),
                _ => Vec::new(),
            };
            let mut unknown = false;
            for name in names {
                unknown |= self.node(name).is_none();
            }
            if unknown {
                continue;
            }
            if let ChoiceSpec::Draw(name, nth, _) | ChoiceSpec::Timer(name, nth, _) = spec
                && !pinned.insert((name.as_str(), *nth, matches!(spec, ChoiceSpec::Timer(..))))
            {
                let what = if matches!(spec, ChoiceSpec::Timer(..)) {
                    "timer"
                } else {
                    "draw"
                };
                self.problem(
                    Some(&written),
                    format!("{name}'s {what} {nth} is pinned twice"),
                    Some("pin each draw once".into()),
                );
                continue;
            }
            if let Some(clash) = self.clash(&mut answered, spec) {
                self.problem(
                    Some(&written),
                    clash,
                    Some("give each message one answer of each sort".into()),
                );
                continue;
            }
            let nodes = &self.nodes;
            let node = |n: &str| nodes.iter().position(|x| x == n).map(|i| NodeId(i as u32));
            match entry_of(spec, node, caps::TIME_MS) {
                Ok(Entry::Choice(choice)) => choices.push(choice),
                Ok(Entry::Fault(fault)) => injected.push(fault),
                Err(message) => self.problem(
                    Some(&written),
                    message,
                    Some(
                        match spec {
                            ChoiceSpec::Latency(..) | ChoiceSpec::Duplicate(..) => {
                                "latencies are milliseconds, e.g. `Latency(14, 9.5)`"
                            }
                            ChoiceSpec::Partition(..) => {
                                "list each node in at most one group, with two times: when the \
                                 partition starts and when it heals"
                            }
                            ChoiceSpec::Skew(..) => {
                                "a skew is the node, when (ms), the offset (ms) and the drift \
                                 (ppm), e.g. `Skew(\"n2\", 50, 0, 200000)`"
                            }
                            _ => {
                                "a fault's two times are when it starts and when it ends, e.g. \
                                  `Crash(\"a2\", 8, 12)`"
                            }
                        }
                        .into(),
                    ),
                ),
            }
        }
        (self.problems.len() == before).then_some((choices, injected))
    }

    /// Why `spec` contradicts an earlier choice about the same message, if it does.
    fn clash<'s>(
        &self,
        answered: &mut BTreeMap<(u64, u8), &'s ChoiceSpec>,
        spec: &'s ChoiceSpec,
    ) -> Option<String> {
        let (m, sort) = match spec {
            ChoiceSpec::Lose(m) => (*m, 0),
            ChoiceSpec::Latency(m, _) => (*m, 1),
            ChoiceSpec::Duplicate(m, _) => (*m, 2),
            _ => return None,
        };
        if let Some(earlier) = answered.get(&(m, sort)) {
            return Some(format!(
                "message {m} is answered twice: {earlier:?} and {spec:?}"
            ));
        }
        let lost = answered.contains_key(&(m, 0));
        let delivered = answered.contains_key(&(m, 1)) || answered.contains_key(&(m, 2));
        if (sort == 0 && delivered) || (sort != 0 && lost) {
            return Some(format!(
                "message {m} is both lost and delivered: a lost message has no latency or copy"
            ));
        }
        answered.insert((m, sort), spec);
        None
    }
}
