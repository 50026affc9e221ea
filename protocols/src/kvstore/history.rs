//! Linearizability of the clients' history: what a replicated key-value store (on Raft, on
//! Multi-Paxos) must look like from outside (Herlihy and Wing; what Jepsen and Porcupine check).
//!
//! Every client's request is an operation from its call note (Raft's and Multi-Paxos's
//! `Requested`) to its return note (`Acknowledged`, with the answer); a request never
//! acknowledged may have taken effect or not. A protocol says which of its notes are calls and
//! returns ([`ClientNotes`]); the rest is the same for every store. When the run ends, the history is split by key and each key's part
//! searched for an order in which a sequential map gives every answer seen
//! ([`crate::linearizability::check_by_part`]). Time is the order of the notes in the run, so
//! two operations overlap exactly when one was called before the other returned. A search
//! that exhausts its budget (an exponential history) holds the invariant: unknown is not a
//! violation, and the budget is far above what a scenario's history needs.

use crate::common::broke;
use crate::linearizability::{Budget, KvMap, Operation, Spec, Verdict, Window, check_by_part};
use crate::linearizability::{KvOp, KvRet};
use sim_core::{Actor, Broken, Event, Instant, Invariant, Kinds, Name, Record};
use std::collections::BTreeMap;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;
use traces::Lang;
use traces::history::{ClientHistory, HistoryOp};

/// A client's call or return, as one of its notes tells it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClientEvent {
    /// The client called this operation.
    Call(KvOp),
    /// The client's operation in flight returned this.
    Return(KvRet),
}

/// An actor whose clients publish their calls and returns as notes: what the history check
/// and the history view need of a protocol.
pub trait ClientNotes: Actor {
    /// Whether `note` is a client's call or return (asked of every note a run makes, so cheap).
    fn is_client_event(note: &Self::Note) -> bool;
    /// The call or return `note` records, if it is one.
    fn client_event(note: &Self::Note) -> Option<ClientEvent>;
}

/// The clients' history as the notes tell it: each call note a call, each return note the
/// return of that client's open request.
#[derive(Clone, Debug, Default)]
struct Recorder {
    history: Vec<Operation<Name, KvMap>>,
    /// Each client's request in flight: its index in `history`.
    open: BTreeMap<Name, usize>,
}

impl Recorder {
    /// Reads the call or return `event` of client `node` at time `at`.
    fn read(&mut self, node: &Name, event: ClientEvent, at: u64) {
        match event {
            ClientEvent::Call(op) => {
                self.open.insert(node.clone(), self.history.len());
                self.history.push(Operation {
                    client: node.clone(),
                    op,
                    call: at,
                    ret: None,
                });
            }
            ClientEvent::Return(ret) => {
                if let Some(i) = self.open.remove(node) {
                    self.history[i].ret = Some((at, ret));
                }
            }
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
pub fn view<A: ClientNotes>(records: &[Record<A>], lang: Lang) -> Option<ClientHistory> {
    let mut recorder = Recorder::default();
    for (i, record) in records.iter().enumerate() {
        if let Event::Note { node, note } = &record.event
            && let Some(event) = A::client_event(note)
        {
            recorder.read(node, event, i as u64);
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
pub struct Linearizable<A> {
    recorder: Recorder,
    /// The calls and returns read so far: the history's clock.
    clock: u64,
    actor: PhantomData<fn() -> A>,
}

impl<A> Default for Linearizable<A> {
    fn default() -> Self {
        Linearizable {
            recorder: Recorder::default(),
            clock: 0,
            actor: PhantomData,
        }
    }
}

impl<A> Clone for Linearizable<A> {
    fn clone(&self) -> Self {
        Linearizable {
            recorder: self.recorder.clone(),
            clock: self.clock,
            actor: PhantomData,
        }
    }
}

impl<A> fmt::Debug for Linearizable<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Linearizable")
            .field("recorder", &self.recorder)
            .field("clock", &self.clock)
            .finish()
    }
}

impl<A: ClientNotes> Invariant<A> for Linearizable<A> {
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

    fn reads_note(&self, note: &A::Note) -> bool {
        A::is_client_event(note)
    }

    fn observe(&mut self, record: &Record<A>) -> Result<(), Broken> {
        if let Event::Note { node, note } = &record.event
            && let Some(event) = A::client_event(note)
        {
            self.recorder.read(node, event, self.clock);
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
