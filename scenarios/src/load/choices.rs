//! The checks of a file's `schedule`: every message number and draw in range, every node
//! known, no message given two answers of one sort, and none both lost and late.

use super::caps;
use super::checks::{Checks, field_offset};
use crate::schedule::choice_of;
use crate::schema::ChoiceSpec;
use sim_core::{Choice, NodeId};
use std::collections::BTreeMap;

impl Checks<'_> {
    /// The schedule as kernel choices, or `None` with the problems recorded.
    pub(super) fn schedule(&mut self, specs: &[ChoiceSpec]) -> Option<Vec<Choice>> {
        self.anchor = field_offset(self.source, "schedule", 0);
        let choices = self.schedule_choices(specs);
        self.anchor = None;
        choices
    }

    fn schedule_choices(&mut self, specs: &[ChoiceSpec]) -> Option<Vec<Choice>> {
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
        // (message, sort) -> the first choice that answered it.
        let mut answered: BTreeMap<(u64, u8), &ChoiceSpec> = BTreeMap::new();
        for spec in specs {
            let (counted, what) = match spec {
                ChoiceSpec::Lose(m) | ChoiceSpec::Latency(m, _) | ChoiceSpec::Duplicate(m, _) => {
                    (*m, "message")
                }
                ChoiceSpec::Draw(_, nth, _) => (*nth, "draw"),
            };
            // The choice as written starts with its sort and message: `Latency(4`.
            let written = match spec {
                ChoiceSpec::Lose(m) => format!("Lose({m}"),
                ChoiceSpec::Latency(m, _) => format!("Latency({m}"),
                ChoiceSpec::Duplicate(m, _) => format!("Duplicate({m}"),
                ChoiceSpec::Draw(..) => counted.to_string(),
            };
            if counted == 0 || counted > caps::STEPS {
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
            if let ChoiceSpec::Draw(name, ..) = spec
                && self.node(name).is_none()
            {
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
            match choice_of(spec, node, caps::TIME_MS) {
                Ok(choice) => choices.push(choice),
                Err(message) => self.problem(
                    Some(&written),
                    message,
                    Some("latencies are milliseconds, e.g. `Latency(14, 9.5)`".into()),
                ),
            }
        }
        (self.problems.len() == before).then_some(choices)
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
            ChoiceSpec::Draw(..) => return None,
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
