//! Linearizability of the clients' history: what the key-value store on Raft must look like
//! from outside (Herlihy and Wing; what Jepsen and Porcupine check).
//!
//! Every client's request is an operation from its `Requested` note (the call) to its
//! `Acknowledged` note (the return, with the answer); a request never acknowledged may have
//! taken effect or not. When the run ends, the history is split by key and each key's part
//! searched for an order in which a sequential map gives every answer seen
//! ([`crate::linearizability::check_by_part`]). Time is the order of the notes in the run, so
//! two operations overlap exactly when one was called before the other returned. A search
//! that exhausts its budget (an exponential history) holds the invariant: unknown is not a
//! violation, and the budget is far above what a scenario's history needs.

use crate::common::broke;
use crate::linearizability::{Budget, KvMap, Operation, Verdict, check_by_part};
use crate::raft::log::Write;
use crate::raft::node::RaftNode;
use crate::raft::notes::RaftNote;
use sim_core::{Broken, Event, Instant, Invariant, Kinds, Name, Record};
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

/// The clients' history is linearizable (checked when the run ends).
#[derive(Clone, Debug, Default)]
pub struct Linearizable {
    history: Vec<Operation<Name, KvMap>>,
    /// Each client's request in flight: its index in `history`.
    open: BTreeMap<Name, usize>,
    /// The notes read so far: the history's clock.
    clock: u64,
}

impl Invariant<RaftNode> for Linearizable {
    fn name(&self) -> &'static str {
        "linearizable"
    }

    fn memory(&self, state: &mut dyn Hasher) {
        let mut state = &mut *state;
        for o in &self.history {
            (&o.client, &o.op, o.call, &o.ret).hash(&mut state);
        }
        self.open.hash(&mut state);
        self.clock.hash(&mut state);
    }

    fn reads(&self) -> Kinds {
        Kinds::NOTE
    }

    fn reads_note(&self, note: &RaftNote) -> bool {
        matches!(
            note,
            RaftNote::Requested { .. } | RaftNote::Acknowledged { .. }
        )
    }

    fn observe(&mut self, record: &Record<RaftNode>) -> Result<(), Broken> {
        let Event::Note { node, note } = &record.event else {
            return Ok(());
        };
        match note {
            RaftNote::Requested {
                seq,
                key,
                value,
                request,
                ..
            } => {
                let write = Write {
                    client: node.clone(),
                    seq: *seq,
                    key: key.clone(),
                    value: value.clone(),
                    request: request.clone(),
                };
                self.open.insert(node.clone(), self.history.len());
                self.history.push(Operation {
                    client: node.clone(),
                    op: write.kv_op(),
                    call: self.clock,
                    ret: None,
                });
            }
            RaftNote::Acknowledged { answer, .. } => {
                if let Some(i) = self.open.remove(node) {
                    self.history[i].ret = Some((self.clock, answer.kv_ret()));
                }
            }
            _ => return Ok(()),
        }
        self.clock += 1;
        Ok(())
    }

    fn finish(&mut self, _end: Instant) -> Result<(), Broken> {
        match check_by_part(&KvMap::default(), &self.history, Budget::default()) {
            Verdict::Violation(window) => {
                let (en, es) = (
                    window.describe(&self.history, false),
                    window.describe(&self.history, true),
                );
                let key = window.part.unwrap_or_default();
                Err(broke(
                    format!("the clients' history is not linearizable (key {key}): {en}"),
                    format!("la historia de los clientes no es linealizable (clave {key}): {es}"),
                ))
            }
            Verdict::Linearizable | Verdict::Unknown { .. } => Ok(()),
        }
    }
}
