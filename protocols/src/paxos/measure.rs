//! The figures of one Paxos run that `dsim sweep` aggregates over seeds: which value won, at
//! which number, how many phases failed first (how long a duel of proposers lasted), and when.

use crate::paxos::PaxosNode;
use crate::paxos::notes::PaxosNote;
use sim_core::{Event, Record};
use traces::Measure;

/// The run's first choice and the failed phases before it.
pub fn measures(records: &[Record<PaxosNode>]) -> Vec<Measure> {
    let mut failed_phases = 0;
    let mut first = None;
    for record in records {
        let Event::Note { note, .. } = &record.event else {
            continue;
        };
        match note {
            PaxosNote::PhaseFailed { .. } | PaxosNote::Abandoned { .. } => failed_phases += 1,
            PaxosNote::Chosen { n, value, .. } => {
                first = Some((record.time, *n, value.to_string()));
                break;
            }
            _ => {}
        }
    }
    vec![
        Measure::tally("chosen_value", first.as_ref().map(|(_, _, v)| v.clone())),
        Measure::count("chosen_at_n", first.as_ref().map(|(_, n, _)| *n)),
        Measure::count("phases_failed_first", Some(failed_phases)),
        Measure::nanos("time_to_choose", first.map(|(t, _, _)| t.as_nanos())),
    ]
}
