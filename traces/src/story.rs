//! The story side of a protocol: how its records read in the course's words, in English or in
//! the course's Spanish, and the figures a sweep aggregates.
//!
//! The model (config, nodes, invariants, checks) is `sim_core::Protocol`, beside the kernel;
//! this is its presentation, outside it. Every item has a default, so a protocol with nothing to
//! say of its own writes `impl Story for MyProtocol {}` and is told by the generic narrator
//! ([`crate::narrate`]): sends, losses, faults and violations.

pub use crate::lang::Lang;
use crate::narrate::{Detail, generic_line};
use sim_core::{Instant, Protocol, Record};
use std::collections::BTreeSet;

/// How a protocol's runs read as a story, and what a sweep measures of them.
pub trait Story: Protocol {
    /// The story line for one record, in the course's words, or `None` to leave it to the
    /// generic narrator (sends, drops, faults ...). `None` for every record by default. An
    /// empty line leaves the record untold, for a record another one tells better.
    fn narrate(record: &Record<Self::Actor>, lang: Lang) -> Option<String> {
        let _ = (record, lang);
        None
    }

    /// Records whose news another record tells better, left out of the story (by index among
    /// `records`) at every detail but `Everything`: Paxos tells each decision once, in the
    /// proposer's count, not again in every learner's. None by default.
    fn retold(records: &[Record<Self::Actor>]) -> BTreeSet<usize> {
        let _ = records;
        BTreeSet::new()
    }

    /// Figures of one run that a sweep over seeds aggregates (elections until a leader, time
    /// without a leader ...). Empty by default.
    fn measures(records: &[Record<Self::Actor>]) -> Vec<Measure> {
        let _ = records;
        Vec::new()
    }

    /// Closing lines of the story: the run's figures in words ("no leader for 183 ms").
    fn summary(records: &[Record<Self::Actor>], lang: Lang) -> Vec<String> {
        let _ = (records, lang);
        Vec::new()
    }
}

/// The story line of `record` at `detail`: the protocol's own words, else the generic
/// narrator's, else `None` (not told at this detail).
pub fn line<P: Story>(record: &Record<P::Actor>, lang: Lang, detail: Detail) -> Option<String> {
    P::narrate(record, lang)
        .or_else(|| generic_line(record, lang, detail))
        .filter(|text| !text.is_empty())
}

/// One line of a story: which record it tells (its index among the records, from 0), when, and
/// what happened in words.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Told {
    /// The record's index among the run's records, from 0.
    #[serde(skip)]
    pub index: usize,
    /// Virtual time.
    pub time: Instant,
    /// The line.
    pub text: String,
}

/// The story of `records` at `detail`: the protocol's own lines, the generic ones for the rest.
///
/// At the lesson's level of detail a run of identical lines (a leader's heartbeats to a node that
/// is down) is told once, on its first record, with how many more and until when. `dsim run`
/// and `dsim view` both tell a run with this, so they fold it the same way.
pub fn tell<P: Story>(records: &[Record<P::Actor>], lang: Lang, detail: Detail) -> Vec<Told> {
    let retold = if detail == Detail::Everything {
        BTreeSet::new()
    } else {
        P::retold(records)
    };
    let lines = records.iter().enumerate().filter_map(|(index, r)| {
        if retold.contains(&index) {
            return None;
        }
        let text = line::<P>(r, lang, detail)?;
        Some(Told {
            index,
            time: r.time,
            text,
        })
    });
    if detail == Detail::Everything {
        return lines.collect();
    }
    let mut out: Vec<Told> = Vec::new();
    let mut repeats: Vec<(usize, u32, Instant)> = Vec::new();
    for told in lines {
        match out.last() {
            Some(last) if last.text == told.text => match repeats.last_mut() {
                Some((at, n, until)) if *at == out.len() - 1 => {
                    *n += 1;
                    *until = told.time;
                }
                _ => repeats.push((out.len() - 1, 1, told.time)),
            },
            _ => out.push(told),
        }
    }
    for (at, n, until) in repeats {
        let more = match lang {
            Lang::En => format!(" (and {n} more like it, until {until})"),
            Lang::Es => format!(" (y {n} más iguales, hasta {until})"),
        };
        out[at].text.push_str(&more);
    }
    out
}

/// One figure of one run, for sweeps to aggregate over seeds.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Measure {
    /// A short name, a column of the sweep's table: "elections", "no_leader".
    pub name: &'static str,
    /// What kind of figure it is (how to aggregate and print it).
    pub kind: MeasureKind,
    /// The value, or `None` when the run never got there (no leader was ever elected).
    pub value: Option<u64>,
    /// A tally's outcome ("relay-1" won), `None` for the other kinds or a run without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

impl Measure {
    /// A count, or `None` when the run never got there.
    pub fn count(name: &'static str, value: Option<u64>) -> Measure {
        Measure::of(name, MeasureKind::Count, value)
    }

    /// A span of virtual time in nanoseconds, or `None` when the run never got there.
    pub fn nanos(name: &'static str, value: Option<u64>) -> Measure {
        Measure::of(name, MeasureKind::Nanos, value)
    }

    /// A yes (1) or no (0).
    pub fn flag(name: &'static str, value: Option<u64>) -> Measure {
        Measure::of(name, MeasureKind::Flag, value)
    }

    /// Which of several outcomes the run had ("relay-1" won), or `None` for none of them.
    pub fn tally(name: &'static str, label: Option<String>) -> Measure {
        Measure {
            label,
            ..Measure::of(name, MeasureKind::Tally, None)
        }
    }

    fn of(name: &'static str, kind: MeasureKind, value: Option<u64>) -> Measure {
        Measure {
            name,
            kind,
            value,
            label: None,
        }
    }
}

/// How a figure aggregates over runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MeasureKind {
    /// A count: median, p90, max.
    Count,
    /// A span of virtual time in nanoseconds: median, p90, max, printed in ms.
    Nanos,
    /// 0 or 1: printed as the share of runs where it is 1.
    Flag,
    /// One outcome among several (which proposer won): printed as how many runs had each.
    Tally,
}
