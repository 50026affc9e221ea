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
use crate::linearizability::{Budget, KvMap, Operation, Spec, Verdict, Window, check_by_part};
use crate::raft::log::Write;
use crate::raft::node::RaftNode;
use crate::raft::notes::RaftNote;
use sim_core::{Broken, Event, Instant, Invariant, Kinds, Name, Record};
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use traces::Lang;
use traces::history::{ClientHistory, HistoryOp};

/// The clients' history as the notes tell it: each `Requested` a call, each `Acknowledged` the
/// return of that client's open request.
#[derive(Clone, Debug, Default)]
struct Recorder {
    history: Vec<Operation<Name, KvMap>>,
    /// Each client's request in flight: its index in `history`.
    open: BTreeMap<Name, usize>,
}

impl Recorder {
    /// Reads `note` of `node` at time `at`; whether it was a call or a return.
    fn read(&mut self, node: &Name, note: &RaftNote, at: u64) -> bool {
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
                    call: at,
                    ret: None,
                });
                true
            }
            RaftNote::Acknowledged { answer, .. } => {
                if let Some(i) = self.open.remove(node) {
                    self.history[i].ret = Some((at, answer.kv_ret()));
                }
                true
            }
            _ => false,
        }
    }

    /// The verdict on the history, in words when it fails.
    fn verdict(&self) -> Verdict<String> {
        check_by_part(&KvMap::default(), &self.history, Budget::default())
    }
}

/// Why a window breaks linearizability, in English and Spanish.
fn failure(history: &[Operation<Name, KvMap>], window: &Window<String>) -> (String, String) {
    let key = window.part.clone().unwrap_or_default();
    (
        format!(
            "the clients' history is not linearizable (key {key}): {}",
            window.describe(history, false)
        ),
        format!(
            "la historia de los clientes no es linealizable (clave {key}): {}",
            window.describe(history, true)
        ),
    )
}

/// The clients' history of a run for the history view: times are record indices.
pub fn view(records: &[Record<RaftNode>], lang: Lang) -> Option<ClientHistory> {
    let mut recorder = Recorder::default();
    for (i, record) in records.iter().enumerate() {
        if let Event::Note { node, note } = &record.event {
            recorder.read(node, note, i as u64);
        }
    }
    if recorder.history.is_empty() {
        return None;
    }
    let es = lang == Lang::Es;
    let ops = recorder
        .history
        .iter()
        .map(|o| HistoryOp {
            client: o.client.to_string(),
            op: KvMap::describe(&o.op),
            result: o.ret.as_ref().map(|(_, r)| KvMap::outcome(r, es)),
            call: o.call as usize,
            ret: o.ret.as_ref().map(|(at, _)| *at as usize),
        })
        .collect();
    let (window, verdict) = match recorder.verdict() {
        Verdict::Linearizable => (
            Vec::new(),
            if es { "linealizable" } else { "linearizable" }.to_owned(),
        ),
        Verdict::Violation(w) => {
            let (en, es_text) = failure(&recorder.history, &w);
            let mut ops = vec![w.culprit];
            ops.extend(w.after);
            ops.extend(&w.overlapping);
            (ops, if es { es_text } else { en })
        }
        Verdict::Unknown { steps, .. } => (
            Vec::new(),
            if es {
                format!("desconocido: la búsqueda agotó {steps} pasos")
            } else {
                format!("unknown: the search ran out of {steps} steps")
            },
        ),
    };
    Some(ClientHistory {
        ops,
        window,
        verdict,
    })
}

/// The clients' history is linearizable (checked when the run ends).
#[derive(Clone, Debug, Default)]
pub struct Linearizable {
    recorder: Recorder,
    /// The notes read so far: the history's clock.
    clock: u64,
}

impl Invariant<RaftNode> for Linearizable {
    fn name(&self) -> &'static str {
        "linearizable"
    }

    fn memory(&self, state: &mut dyn Hasher) {
        let mut state = &mut *state;
        for o in &self.recorder.history {
            (&o.client, &o.op, o.call, &o.ret).hash(&mut state);
        }
        self.recorder.open.hash(&mut state);
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
        if let Event::Note { node, note } = &record.event
            && self.recorder.read(node, note, self.clock)
        {
            self.clock += 1;
        }
        Ok(())
    }

    fn finish(&mut self, _end: Instant) -> Result<(), Broken> {
        match self.recorder.verdict() {
            Verdict::Violation(window) => {
                let (en, es) = failure(&self.recorder.history, &window);
                Err(broke(en, es))
            }
            Verdict::Linearizable | Verdict::Unknown { .. } => Ok(()),
        }
    }
}
