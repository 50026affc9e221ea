//! The register's one invariant: the clients' history is linearizable.

use crate::common::broke;
use crate::linearizability::{History, Register};
use crate::register::node::{RegisterNode, RegisterNote};
use sim_core::Broken;
use sim_core::check::hash_memory;
use sim_core::trace::{Event, Record};
use sim_core::{Invariant, Kinds, Name};
use std::hash::Hasher;
use std::sync::Arc;

/// Every state's history of client operations has a linearization: one order of the writes
/// and reads, each at an instant between its invocation and its return, in which a register
/// starting at `'\0'` gives every read its value. The history is what it remembers, so an
/// exhaustive search keeps it as ghost state (stateright's `LinearizabilityTester`).
///
/// The history is shared between copies of a state until a note changes it (most moves do
/// not), so a search's millions of states do not each hold their own.
#[derive(Clone, Debug)]
pub struct Linearizable {
    history: Arc<History<Name, Register<char>>>,
    /// The history's stable hash, taken when it changes (a search hashes every state).
    hash: u64,
}

impl Default for Linearizable {
    fn default() -> Self {
        let history = History::new(Register('\0'));
        Linearizable {
            hash: sim_core::hash::stable_hash(&history),
            history: Arc::new(history),
        }
    }
}

/// Whether `history` (whose stable hash is `hash`) is linearizable. The verdict depends on the
/// history alone, and a search meets the same few histories in millions of states, so it is
/// remembered per thread by hash (a small table; a miss just searches again).
fn linearizable(hash: u64, history: &History<Name, Register<char>>) -> bool {
    /// log2 of the verdicts remembered (1,024 of 16 bytes a thread).
    const BITS: u32 = 10;
    thread_local! {
        static VERDICTS: std::cell::RefCell<Vec<(u64, bool)>> =
            std::cell::RefCell::new(vec![(0, false); 1 << BITS]);
    }
    let index = (hash.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - BITS)) as usize;
    let known = VERDICTS.with(|v| {
        let (h, verdict) = v.borrow()[index];
        (h == hash && hash != 0).then_some(verdict)
    });
    known.unwrap_or_else(|| {
        let verdict = history.linearization().is_some();
        VERDICTS.with(|v| v.borrow_mut()[index] = (hash, verdict));
        verdict
    })
}

impl Invariant<RegisterNode> for Linearizable {
    fn name(&self) -> &'static str {
        "linearizable"
    }

    fn reads(&self) -> Kinds {
        Kinds::NOTE
    }

    fn observe(&mut self, record: &Record<RegisterNode>) -> Result<(), Broken> {
        let Event::Note { node, note } = &record.event else {
            return Ok(());
        };
        let returned = match note {
            RegisterNote::Invoked(op) => {
                Arc::make_mut(&mut self.history).invoke(node.clone(), op.clone());
                false
            }
            RegisterNote::Returned(ret) => {
                Arc::make_mut(&mut self.history).ret(node.clone(), ret.clone());
                true
            }
            RegisterNote::Decided { .. } => return Ok(()),
        };
        self.hash = sim_core::hash::stable_hash(&*self.history);
        if let Some(why) = self.history.malformed() {
            return Err(broke(
                format!("the clients' history is malformed: {why}"),
                format!("el historial de los clientes está mal formado: {why}"),
            ));
        }
        // An invocation cannot make a linearizable history not so (a pending operation may
        // be left out), so only a return needs the search.
        if !returned {
            return Ok(());
        }
        if linearizable(self.hash, &self.history) {
            Ok(())
        } else {
            let history = self.history.describe();
            Err(broke(
                format!(
                    "no order of the clients' operations explains what they saw (not \
                     linearizable): {history}"
                ),
                format!(
                    "ningún orden de las operaciones de los clientes explica lo que vieron (no \
                     es linealizable): {history}"
                ),
            ))
        }
    }

    fn memory(&self, state: &mut dyn Hasher) {
        hash_memory(&self.hash, state);
    }
}
