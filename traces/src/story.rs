//! The story side of a protocol: how its records read in the course's words, in English or in
//! the course's Spanish, and the figures a sweep aggregates.
//!
//! The model (config, nodes, invariants, checks) is `sim_core::Protocol`, beside the kernel;
//! this is its presentation, outside it. Every item has a default, so a protocol with nothing to
//! say of its own writes `impl Story for MyProtocol {}` and is told by the generic narrator
//! ([`crate::narrate`]): sends, losses, faults and violations.

use crate::narrate::{Detail, generic_line};
use sim_core::{Protocol, Record};

/// The language of a story. The course is taught in Spanish; English is the default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Lang {
    /// English.
    #[default]
    En,
    /// Spanish, with the lesson's own words.
    Es,
}

/// How a protocol's runs read as a story, and what a sweep measures of them.
pub trait Story: Protocol {
    /// The story line for one record, in the course's words, or `None` to leave it to the
    /// generic narrator (sends, drops, faults ...). `None` for every record by default.
    fn narrate(record: &Record<Self::Actor>, lang: Lang) -> Option<String> {
        let _ = (record, lang);
        None
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
    P::narrate(record, lang).or_else(|| generic_line(record, lang, detail))
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
}
