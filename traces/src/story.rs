//! The story side of a protocol: how its records read in the course's words, in English or in
//! the course's Spanish, and the figures a sweep aggregates.
//!
//! The model (config, nodes, invariants, checks) is `sim_core::Protocol`, beside the kernel;
//! this is its presentation, outside it. Every item has a default, so a protocol with nothing to
//! say of its own writes `impl Story for MyProtocol {}` and is told by the generic narrator
//! ([`crate::narrate`]): sends, losses, faults and violations.

pub mod fold;
pub mod stream;

pub use crate::lang::Lang;
use crate::narrate::{Detail, generic_line};
use sim_core::{Event, Instant, Outcome, Protocol, Record};
use std::collections::{BTreeMap, BTreeSet};

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

    /// Lines that depend on other records, told in place of the record's own line (by index
    /// among `records`): Raft names a term whose vote split ("votos divididos") on the next
    /// term's first candidacy. None by default.
    fn retell(records: &[Record<Self::Actor>], lang: Lang) -> BTreeMap<usize, String> {
        let _ = (records, lang);
        BTreeMap::new()
    }

    /// What an expectation's check found, said in `lang`: `Ok` what held, `Err` why not. The
    /// verdict is the model's ([`Protocol::check`]); by default so are the words (English).
    fn explain(
        config: &Self::Config,
        expect: &Self::Expect,
        outcome: &Outcome<'_, Self::Actor>,
        lang: Lang,
    ) -> Result<String, String> {
        let _ = lang;
        Self::check(config, expect, outcome)
    }

    /// The clients' history of the run, with the verdict of a linearizability check, for the
    /// history view: only protocols whose clients call and return operations have one. `None`
    /// by default.
    fn history(
        records: &[Record<Self::Actor>],
        lang: Lang,
    ) -> Option<crate::history::ClientHistory> {
        let _ = (records, lang);
        None
    }

    /// Whether `record` is an event the lesson is about (a value chosen, a leader elected, a
    /// join, a MOVED redirect ...): a long story shows such lines even where it leaves the
    /// routine ones out. Faults and violations always are; nothing else by default.
    fn is_key(record: &Record<Self::Actor>) -> bool {
        let _ = record;
        false
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
    /// Whether it tells an event the lesson is about ([`Story::is_key`], a fault, a violation),
    /// which a shortened story still shows.
    #[serde(skip)]
    pub key: bool,
    /// Whether it tells a fault or a violation, which is never folded into another line
    /// ([`fold`]).
    #[serde(skip)]
    pub pinned: bool,
}

/// The story of `records` at `detail`: the protocol's own lines, the generic ones for the rest.
///
/// At the lesson's level of detail a run of identical lines (a leader's heartbeats to a node that
/// is down) is told once, on its first record, with how many more and until when, and repeated
/// patterns fold too ([`fold`]). `dsim run` and `dsim view` both tell a run with this,
/// so they fold it the same way.
pub fn tell<P: Story>(records: &[Record<P::Actor>], lang: Lang, detail: Detail) -> Vec<Told> {
    tell_from::<P>(records, 0, lang, detail)
}

/// [`tell`] of a stretch of a run whose first record is the run's `first`-th (from 0), so each
/// line's [`Told::index`] is the record's index in the whole run: a long run is told a window
/// at a time ([`stream::Teller`]).
pub fn tell_from<P: Story>(
    records: &[Record<P::Actor>],
    first: usize,
    lang: Lang,
    detail: Detail,
) -> Vec<Told> {
    let retold = if detail == Detail::Everything {
        BTreeSet::new()
    } else {
        P::retold(records)
    };
    let cut = if detail == Detail::Everything {
        PartitionCuts::default()
    } else {
        PartitionCuts::of(records)
    };
    let retell = P::retell(records, lang);
    let lines = records.iter().enumerate().filter_map(|(index, r)| {
        if retold.contains(&index) || cut.folded.contains(&index) {
            return None;
        }
        let mut text = match retell.get(&index) {
            Some(text) => text.clone(),
            None => line::<P>(r, lang, detail)?,
        };
        if let Some((n, until)) = cut.more.get(&index) {
            text.push_str(&match lang {
                Lang::En => format!(" (and {n} more cut by the partition, until {until})"),
                Lang::Es => format!(" (y {n} más cortados por la partición, hasta {until})"),
            });
        }
        let generic_key = matches!(r.event, Event::Fault { .. } | Event::Violation { .. });
        Some(Told {
            index: first + index,
            time: r.time,
            text,
            key: generic_key || P::is_key(r),
            pinned: generic_key,
        })
    });
    if detail == Detail::Everything {
        return lines.collect();
    }
    fold::fold(lines.collect(), lang)
}

/// Messages a partition cut, told once per link and kind while the partition lasts: a leader's
/// heartbeats to the other side are one line, "(and 28 more cut by the partition, until ...)",
/// not one line each.
#[derive(Default)]
struct PartitionCuts {
    /// Records told by an earlier line of the same link and kind.
    folded: BTreeSet<usize>,
    /// For the first record of each link and kind: how many more, and the last one's time.
    more: BTreeMap<usize, (u32, Instant)>,
}

impl PartitionCuts {
    fn of<A: sim_core::Actor>(records: &[Record<A>]) -> PartitionCuts {
        let mut cuts = PartitionCuts::default();
        // (from, to, kind) -> the index of its first cut record in this partition.
        let mut first: BTreeMap<(&str, &str, &str), usize> = BTreeMap::new();
        for (index, r) in records.iter().enumerate() {
            match &r.event {
                // A new partition or a heal starts the count again.
                Event::Fault {
                    fault:
                        sim_core::Fault::Partition(_)
                        | sim_core::Fault::PartitionOneWay(..)
                        | sim_core::Fault::Heal,
                } => first.clear(),
                Event::Drop {
                    from,
                    to,
                    msg_kind,
                    reason: sim_core::DropReason::Partition,
                    ..
                } => match first.entry((from.as_ref(), to.as_ref(), msg_kind.as_ref())) {
                    std::collections::btree_map::Entry::Vacant(e) => {
                        e.insert(index);
                    }
                    std::collections::btree_map::Entry::Occupied(e) => {
                        cuts.folded.insert(index);
                        let more = cuts.more.entry(*e.get()).or_insert((0, r.time));
                        more.0 += 1;
                        more.1 = r.time;
                    }
                },
                _ => {}
            }
        }
        cuts
    }
}

/// One entry of a shortened story: a told line, or a gap of routine lines left out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shown {
    /// A line shown.
    Line(Told),
    /// This many lines left out.
    Gap(usize),
}

/// A long story shortened to what a person reads: its first `head` and last `tail` lines and,
/// in between, the lines of key events (at most `keys` of them), so a join, a choice or a
/// leader in the middle of a long run stays in view. A gap of one line shows the line instead
/// (leaving one out saves nothing). A story of at most `head + tail` lines is shown whole.
/// This is [`stream::Shortener`] fed a whole story; a run feeds it line by line.
pub fn shorten(story: &[Told], head: usize, tail: usize, keys: usize) -> Vec<Shown> {
    let mut shortener = stream::Shortener::new(head, tail, keys);
    for told in story {
        shortener.push(told.clone());
    }
    shortener.finish()
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

#[cfg(test)]
mod tests {
    use super::*;

    fn told(index: usize, key: bool) -> Told {
        Told {
            index,
            time: Instant::ZERO,
            text: format!("line {index}"),
            key,
            pinned: false,
        }
    }

    fn shape(shown: &[Shown]) -> Vec<String> {
        shown
            .iter()
            .map(|s| match s {
                Shown::Line(t) => t.index.to_string(),
                Shown::Gap(n) => format!("({n})"),
            })
            .collect()
    }

    // Goal: what a shortened story keeps. Method: stories of 5, 6 and 12 lines shortened to 2
    // first and 2 last lines, with key lines in the middle and a cap of one key line. Proves: a
    // short story is whole; a gap of one line shows the line; key lines stay in view up to the
    // cap, and the gaps count what is left out.
    #[test]
    fn a_shortened_story_keeps_its_ends_and_its_key_events() {
        let story = |n: usize, keys: &[usize]| -> Vec<Told> {
            (0..n).map(|i| told(i, keys.contains(&i))).collect()
        };
        let four = story(4, &[]);
        assert_eq!(shape(&shorten(&four, 2, 2, 1)), ["0", "1", "2", "3"]);
        let five = story(5, &[]);
        assert_eq!(shape(&shorten(&five, 2, 2, 1)), ["0", "1", "2", "3", "4"]);
        let six = story(6, &[]);
        assert_eq!(shape(&shorten(&six, 2, 2, 1)), ["0", "1", "(2)", "4", "5"]);
        let twelve = story(12, &[5, 8]);
        assert_eq!(
            shape(&shorten(&twelve, 2, 2, 1)),
            ["0", "1", "(3)", "5", "(4)", "10", "11"]
        );
    }
}
