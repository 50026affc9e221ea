//! What a lease scenario can expect of a finished run, and how each expectation is checked.
//!
//! In RON: `Leader("relay-2")` (at the end this relay, and only it, leads), `Leaderships(2)`
//! (relays won the key this many times in the run), `SplitBrainMs(at_least: 0, at_most: 0)`
//! (the time two relays led at once, summed over the run), `LeaderlessMs(at_most: 10500)` (the
//! longest stretch with no leader once the first one won), `StaleWrites(1)` (writes the
//! resource accepted with a token below one it had seen), `RejectedWrites(1)`.

use crate::lease::invariants::{rejected_writes, stale_writes, windows};
use crate::lease::node::LeaseNode;
use crate::lease::notes::LeaseNote;
use serde::{Deserialize, Serialize};
use sim_core::{Duration, Event, Fault, Instant, Outcome, Record};
use traces::Lang;

/// One expectation about a lease run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum LeaseExpect {
    /// At the end this relay leads, and no other does.
    Leader(String),
    /// Relays won the key this many times.
    Leaderships(u64),
    /// The time two or more relays led at once, summed over the run, is within these bounds.
    SplitBrainMs {
        /// At least this many ms.
        at_least: u64,
        /// At most this many ms.
        at_most: u64,
    },
    /// Once a first relay led, no stretch without a leader lasted longer than this.
    LeaderlessMs {
        /// At most this many ms.
        at_most: u64,
    },
    /// The resource accepted this many writes with a token below one it had seen.
    StaleWrites(u64),
    /// The resource rejected this many writes for a stale token (fencing).
    RejectedWrites(u64),
}

/// The total split-brain time of a run ending at `end`.
pub fn split_brain(records: &[Record<LeaseNode>], end: Instant) -> Duration {
    Duration(
        windows(records)
            .iter()
            .map(|w| w.length.map_or(end.0 - w.start.0, |d| d.0))
            .sum(),
    )
}

/// The longest stretch with no leader after the first one won, up to `end`.
pub fn leaderless(records: &[Record<LeaseNode>], end: Instant) -> Duration {
    let mut leading: std::collections::BTreeSet<&str> = Default::default();
    let mut since: Option<Instant> = None;
    let mut longest = 0u64;
    for record in records {
        match &record.event {
            Event::Note {
                node,
                note: LeaseNote::Leads { .. },
            } => {
                if let Some(s) = since.take() {
                    longest = longest.max(record.time.0 - s.0);
                }
                leading.insert(node);
            }
            Event::Note {
                node,
                note: LeaseNote::StepsDown { .. },
            }
            | Event::Fault {
                fault: Fault::Crash(node),
            } if leading.remove(node.as_ref()) && leading.is_empty() => {
                since = Some(record.time);
            }
            _ => {}
        }
    }
    if let Some(s) = since {
        longest = longest.max(end.0 - s.0);
    }
    Duration(longest)
}

/// Checks one expectation: `Ok` says what held, `Err` what was expected and what happened.
pub fn check(expect: &LeaseExpect, outcome: &Outcome<'_, LeaseNode>) -> Result<String, String> {
    check_in(expect, outcome, Lang::En)
}

/// [`check`], said in `lang` (the lesson's Spanish: `cerebro partido`, `líder`).
pub fn check_in(
    expect: &LeaseExpect,
    outcome: &Outcome<'_, LeaseNode>,
    lang: Lang,
) -> Result<String, String> {
    let es = lang == Lang::Es;
    let say = |en: String, spanish: String| if es { spanish } else { en };
    let sim = outcome.sim;
    let end = sim.now();
    let leaders: Vec<&str> = sim
        .node_ids()
        .filter(|&id| {
            sim.status(id) != sim_core::Status::Crashed
                && sim.actor(id).relay().is_some_and(|r| r.is_leading())
        })
        .map(|id| sim.name(id))
        .collect();
    let within = |(en, spanish): (&str, &str), got: u64, at_least: u64, at_most: u64| {
        if (at_least..=at_most).contains(&got) {
            Ok(say(
                format!("{en} {got} ms, within {at_least}..={at_most}"),
                format!("{spanish}: {got} ms, dentro de {at_least}..={at_most}"),
            ))
        } else {
            Err(say(
                format!("expected {en} within {at_least}..={at_most} ms, but it was {got} ms"),
                format!(
                    "se esperaba {spanish} dentro de {at_least}..={at_most} ms, pero fue de {got} ms"
                ),
            ))
        }
    };
    let count = |(en, spanish): (&str, &str), got: u64, want: u64| {
        if got == want {
            Ok(say(format!("{en}: {got}"), format!("{spanish}: {got}")))
        } else {
            Err(say(
                format!("expected {want} {en}, but there were {got}"),
                format!("se esperaban {want} {spanish}, pero hubo {got}"),
            ))
        }
    };
    match expect {
        LeaseExpect::Leader(name) => {
            if leaders == [name.as_str()] {
                Ok(say(
                    format!("{name} leads at the end, alone"),
                    format!("{name} es el único líder al final"),
                ))
            } else if leaders.is_empty() {
                Err(say(
                    format!("expected {name} to lead at the end, but nobody leads"),
                    format!("se esperaba a {name} de líder al final, pero no hay líder"),
                ))
            } else {
                Err(say(
                    format!(
                        "expected {name} to lead at the end, alone, but {} lead(s)",
                        leaders.join(" and ")
                    ),
                    format!(
                        "se esperaba a {name} como único líder al final, pero lidera(n) {}",
                        leaders.join(" y ")
                    ),
                ))
            }
        }
        LeaseExpect::Leaderships(n) => {
            let won = outcome
                .notes()
                .filter(|(_, _, n)| matches!(n, LeaseNote::Leads { .. }))
                .count() as u64;
            count(("leaderships", "liderazgos"), won, *n)
        }
        LeaseExpect::SplitBrainMs { at_least, at_most } => within(
            ("split brain", "cerebro partido"),
            split_brain(outcome.records, end).as_millis(),
            *at_least,
            *at_most,
        ),
        LeaseExpect::LeaderlessMs { at_most } => within(
            (
                "the longest time without a leader",
                "el mayor tiempo sin líder",
            ),
            leaderless(outcome.records, end).as_millis(),
            0,
            *at_most,
        ),
        LeaseExpect::StaleWrites(n) => count(
            (
                "stale writes accepted",
                "escrituras de un líder antiguo aceptadas",
            ),
            stale_writes(outcome.records),
            *n,
        ),
        LeaseExpect::RejectedWrites(n) => count(
            (
                "stale writes rejected",
                "escrituras de un líder antiguo rechazadas",
            ),
            rejected_writes(outcome.records),
            *n,
        ),
    }
}

/// Node names an expectation mentions.
pub fn expect_nodes(expect: &LeaseExpect) -> Vec<String> {
    match expect {
        LeaseExpect::Leader(name) => vec![name.clone()],
        _ => Vec::new(),
    }
}
