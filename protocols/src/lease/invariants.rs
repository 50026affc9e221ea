//! The lease protocol's properties, read from trace records alone.
//!
//! **split-brain**: no two relays act as leader at one virtual instant. A relay acts from its
//! `Leads` note until it steps down or crashes (a paused leader still acts: it believes it
//! leads, and writes when it wakes). The violation is reported when the window closes (or at
//! the end of the run, if it never did), with its start and length.
//!
//! **fenced-writes** (with fencing on): the resource never accepts a write whose token is
//! lower than one it accepted before; a stale leader's write is rejected.
//!
//! [`windows`] and [`stale_writes`] compute the same figures for a finished run's records, for
//! the story's summary and the sweep's measures.

use crate::common::broke;
use crate::lease::node::LeaseNode;
use crate::lease::notes::LeaseNote;
use sim_core::Broken;
use sim_core::check::hash_memory;
use sim_core::{Duration, Event, Fault, Instant, Invariant, Kinds, Record};
use std::collections::BTreeMap;
use std::hash::Hasher;

/// A split-brain window: when it opened, how long it lasted, and who led at once.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Window {
    /// When the second leader started.
    pub start: Instant,
    /// How long two or more led at once (`None`: until the run ended).
    pub length: Option<Duration>,
    /// The relays that led at once, by name.
    pub leaders: Vec<String>,
}

/// Follows who acts as leader, record by record.
#[derive(Clone, Debug, Default, Hash)]
struct Acting {
    /// Relay name -> since when it acts.
    leaders: BTreeMap<String, Instant>,
    /// The window open now, if two or more act.
    open: Option<(Instant, Vec<String>)>,
}

impl Acting {
    /// Reads one record; a window that closes with it comes back.
    fn read(&mut self, record: &Record<LeaseNode>) -> Option<Window> {
        let (node, leads) = match &record.event {
            Event::Note {
                node,
                note: LeaseNote::Leads { .. },
            } => (node.as_ref(), true),
            Event::Note {
                node,
                note: LeaseNote::StepsDown { .. },
            } => (node.as_ref(), false),
            Event::Fault {
                fault: Fault::Crash(node),
            } => (node.as_ref(), false),
            _ => return None,
        };
        if leads {
            self.leaders.insert(node.to_string(), record.time);
            if self.leaders.len() >= 2 {
                let names: Vec<String> = self.leaders.keys().cloned().collect();
                match &mut self.open {
                    Some((_, who)) => {
                        for name in names {
                            if !who.contains(&name) {
                                who.push(name);
                            }
                        }
                    }
                    None => self.open = Some((record.time, names)),
                }
            }
            return None;
        }
        self.leaders.remove(node)?;
        if self.leaders.len() < 2 {
            let (start, leaders) = self.open.take()?;
            return Some(Window {
                start,
                length: Some(Duration(record.time.0 - start.0)),
                leaders,
            });
        }
        None
    }

    /// The window still open at the end, if one is.
    fn still_open(&self) -> Option<Window> {
        self.open.as_ref().map(|(start, leaders)| Window {
            start: *start,
            length: None,
            leaders: leaders.clone(),
        })
    }
}

fn describe(w: &Window, end: Instant) -> Broken {
    let (length, durante) = match w.length {
        Some(d) => (format!("for {d}"), format!("durante {d}")),
        None => {
            let so_far = Duration(end.0 - w.start.0);
            (
                format!("until the end of the run ({so_far} and counting)"),
                format!("hasta el final de la ejecución ({so_far} y sigue)"),
            )
        }
    };
    broke(
        format!(
            "{} acted as leader at once from {} {length}",
            w.leaders.join(" and "),
            w.start
        ),
        format!(
            "{} actuaron como líder a la vez desde {} {durante}",
            w.leaders.join(" y "),
            w.start
        ),
    )
}

/// **split-brain**: no two relays act as leader at one virtual instant.
#[derive(Clone, Debug, Default)]
pub struct SplitBrain {
    acting: Acting,
}

impl Invariant<LeaseNode> for SplitBrain {
    fn name(&self) -> &'static str {
        "split-brain"
    }
    fn reads(&self) -> Kinds {
        Kinds::NOTE.or(Kinds::FAULT)
    }
    fn memory(&self, state: &mut dyn Hasher) {
        hash_memory(&self.acting, state);
    }
    fn observe(&mut self, record: &Record<LeaseNode>) -> Result<(), Broken> {
        match self.acting.read(record) {
            Some(w) => Err(describe(&w, record.time)),
            None => Ok(()),
        }
    }
    fn finish(&mut self, end: Instant) -> Result<(), Broken> {
        match self.acting.still_open() {
            Some(w) => Err(describe(&w, end)),
            None => Ok(()),
        }
    }
}

/// **fenced-writes**: with fencing on, the resource never accepts a write whose token is
/// below one it accepted before.
#[derive(Clone, Debug, Default)]
pub struct FencedWrites;

impl Invariant<LeaseNode> for FencedWrites {
    fn name(&self) -> &'static str {
        "fenced-writes"
    }
    fn reads(&self) -> Kinds {
        Kinds::NOTE
    }
    fn memory(&self, _state: &mut dyn Hasher) {}
    fn observe(&mut self, record: &Record<LeaseNode>) -> Result<(), Broken> {
        match &record.event {
            Event::Note {
                note:
                    LeaseNote::Accepted {
                        writer,
                        token,
                        highest,
                    },
                ..
            } if token < highest => Err(broke(
                format!(
                    "the resource accepted {writer}'s write with token {token}, after one with \
                     token {highest}: a stale leader's write got through the fence"
                ),
                format!(
                    "el recurso aceptó la escritura de {writer} con el token {token}, después de \
                     una con el token {highest}: la escritura de un líder caducado atravesó la \
                     valla (fencing)"
                ),
            )),
            _ => Ok(()),
        }
    }
}

/// Every split-brain window of a finished run, in order.
pub fn windows(records: &[Record<LeaseNode>]) -> Vec<Window> {
    let mut acting = Acting::default();
    let mut out: Vec<Window> = records.iter().filter_map(|r| acting.read(r)).collect();
    out.extend(acting.still_open());
    out
}

/// Writes the resource accepted with a token below one it had accepted before: a stale
/// leader's writes that got through.
pub fn stale_writes(records: &[Record<LeaseNode>]) -> u64 {
    sim_core::trace::notes(records)
        .filter(
            |(_, _, n)| matches!(n, LeaseNote::Accepted { token, highest, .. } if token < highest),
        )
        .count() as u64
}

/// Writes the resource rejected for a stale token.
pub fn rejected_writes(records: &[Record<LeaseNode>]) -> u64 {
    sim_core::trace::notes(records)
        .filter(|(_, _, n)| matches!(n, LeaseNote::Rejected { .. }))
        .count() as u64
}
