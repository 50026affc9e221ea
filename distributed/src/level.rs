//! What crosses between workers, and a worker's share of one level: the states it owns that
//! were first reached in it, merged from every worker's successors.

use serde::{Deserialize, Serialize};
use sim_core::MoveCode;
use sim_core::exhaustive::Fingerprints;
use std::collections::BTreeMap;

/// A state the search reports (a violation, a `sometimes` example): its fingerprint and path.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Found {
    pub(crate) fp: u64,
    pub(crate) path: Vec<MoveCode>,
}

/// Of two findings, the one with the smaller fingerprint: the rule of the single-process
/// search, whatever order the workers' findings come in.
pub(crate) fn least(a: Option<Found>, b: Option<Found>) -> Option<Found> {
    match (a, b) {
        (Some(x), Some(y)) => Some(if y.fp < x.fp { y } else { x }),
        (x, None) => x,
        (None, y) => y,
    }
}

/// What the loop carries from one level to the next, to the worker that owns it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) enum Msg {
    /// A state reached, sent to the worker that owns its fingerprint.
    Reached {
        fp: u64,
        /// Its parent's fingerprint (the way to a state is the smallest parent and move).
        parent: u64,
        /// The moves from the start.
        path: Vec<MoveCode>,
        violates: bool,
        sometimes: u64,
    },
    /// What a worker's expansion of a level found besides successors, sent to itself.
    Expanded {
        worker: u64,
        transitions: u64,
        terminal: u64,
        run_limited: bool,
        /// The least terminal state whose end-of-run checks broke.
        end_violation: Option<Found>,
    },
}

impl Msg {
    /// The worker (modulo their number) the message goes to.
    pub(crate) fn route(&self) -> u64 {
        match self {
            Msg::Reached { fp, .. } => *fp,
            Msg::Expanded { worker, .. } => *worker,
        }
    }
}

/// A worker's account of one level, broadcast so that every worker decides alike whether the
/// search goes on.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct Summary {
    /// New states this worker owns.
    pub(crate) new_states: u64,
    /// Moves this worker took expanding the level before.
    pub(crate) transitions: u64,
    pub(crate) terminal: u64,
    pub(crate) run_limited: bool,
    /// The least new state that breaks an invariant, or terminal state whose end checks broke.
    pub(crate) violation: Option<Found>,
    /// Per `sometimes` property, the least new state that has it.
    pub(crate) reached: Vec<Option<Found>>,
}

/// A state reached in the level being made, and its way there so far.
struct Way {
    parent: u64,
    path: Vec<MoveCode>,
    violates: bool,
    sometimes: u64,
}

impl Way {
    /// The order of ways to one state: the smaller parent fingerprint, then move.
    fn key(&self) -> (u64, (u8, u64)) {
        let last = self
            .path
            .last()
            .map_or((0, 0), |&(kind, key, _)| (kind, key));
        (self.parent, last)
    }
}

/// The states a worker owns that were reached in the level being made, by fingerprint.
#[derive(Default)]
pub(crate) struct Level {
    ways: BTreeMap<u64, Way>,
    summary: Summary,
}

impl Level {
    /// Takes in one message: a state not visited before (by `visited`, this worker's share of
    /// the earlier levels) is kept with the smaller of its ways; a report is added up.
    pub(crate) fn take(&mut self, msg: Msg, visited: &Fingerprints) {
        match msg {
            Msg::Reached {
                fp,
                parent,
                path,
                violates,
                sometimes,
            } => {
                if visited.contains(fp) {
                    return;
                }
                let way = Way {
                    parent,
                    path,
                    violates,
                    sometimes,
                };
                match self.ways.entry(fp) {
                    std::collections::btree_map::Entry::Vacant(slot) => {
                        slot.insert(way);
                    }
                    std::collections::btree_map::Entry::Occupied(mut slot) => {
                        if way.key() < slot.get().key() {
                            slot.insert(way);
                        }
                    }
                }
            }
            Msg::Expanded {
                transitions,
                terminal,
                run_limited,
                end_violation,
                ..
            } => {
                let s = &mut self.summary;
                s.transitions += transitions;
                s.terminal += terminal;
                s.run_limited |= run_limited;
                s.violation = least(s.violation.take(), end_violation);
            }
        }
    }

    /// The level closed: its states added to `visited`, its summary, and its states (path and
    /// fingerprint) sorted by path, the order in which replaying them shares the most moves.
    pub(crate) fn close(
        self,
        visited: &mut Fingerprints,
        properties: usize,
    ) -> (Summary, Vec<(Vec<MoveCode>, u64)>) {
        let mut summary = self.summary;
        summary.reached = vec![None; properties];
        let mut states = Vec::with_capacity(self.ways.len());
        for (fp, way) in self.ways {
            visited.insert(fp);
            summary.new_states += 1;
            let found = || {
                Some(Found {
                    fp,
                    path: way.path.clone(),
                })
            };
            if way.violates {
                summary.violation = least(summary.violation.take(), found());
            }
            for (i, reached) in summary.reached.iter_mut().enumerate() {
                if way.sometimes & (1 << i) != 0 && reached.is_none() {
                    *reached = found();
                }
            }
            states.push((way.path, fp));
        }
        states.sort_unstable();
        (summary, states)
    }
}
