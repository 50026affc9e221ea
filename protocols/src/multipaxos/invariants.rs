//! The safety properties of Multi-Paxos, checked from trace records alone.
//!
//! "Chosen" is the paper's definition, per slot: a majority of acceptors accepted the same
//! value at the same ballot in that slot, computed from the acceptors' own `Accepted` notes
//! (so it holds even if no learner ever hears of it). Each checker is proven by a bug knob that
//! breaks it (`config::Bugs`, and the tests).

use crate::common::{Bits, broke};
use crate::multipaxos::MultiPaxosNode;
use crate::multipaxos::msg::{Ballot, Slot, Value};
use crate::multipaxos::notes::MultiPaxosNote;
use sim_core::check::hash_memory;
use sim_core::{Broken, Event, Invariant, Kinds, Name, Record};
use std::collections::BTreeMap;
use std::hash::Hasher;
use std::sync::Arc;

/// Which replicas accepted what in each slot, from `Accepted` notes: the paper's "chosen".
#[derive(Clone, Debug, Default, Hash)]
pub struct SlotLedger {
    /// The replicas, sorted; a replica is its index here (its bit in a set).
    nodes: Arc<[Name]>,
    majority: usize,
    /// Per slot: (ballot, value, who accepted it as bits), sorted.
    accepts: BTreeMap<Slot, Vec<(Ballot, Value, u64)>>,
}

impl SlotLedger {
    /// A ledger over these replicas (at most 64: a config's bound). Notes from any other node
    /// (a hand-edited trace) never count.
    pub fn new(nodes: &[String]) -> Self {
        let mut sorted: Vec<Name> = nodes.iter().map(|n| Name::from(n.as_str())).collect();
        sorted.sort();
        sorted.dedup();
        sorted.truncate(64);
        SlotLedger {
            majority: sorted.len() / 2 + 1,
            nodes: sorted.into(),
            accepts: BTreeMap::new(),
        }
    }

    /// Records that `node` accepted `value` in `slot` at `b`; returns who accepted it when this
    /// accept is the one that makes a majority.
    pub fn accept(&mut self, node: &str, b: Ballot, slot: Slot, value: &Value) -> Option<String> {
        let who = self.nodes.binary_search_by(|n| (**n).cmp(node)).ok()?;
        let list = self.accepts.entry(slot).or_default();
        let at = match list.binary_search_by(|(m, v, _)| m.cmp(&b).then_with(|| v.cmp(value))) {
            Ok(i) => i,
            Err(i) => {
                list.insert(i, (b, value.clone(), 0));
                i
            }
        };
        let set = &mut list[at].2;
        let bit = 1u64 << who;
        if *set & bit != 0 {
            return None;
        }
        *set |= bit;
        let set = *set;
        (set.count_ones() as usize == self.majority).then(|| self.names(set))
    }

    /// The names in `bits`, comma-separated.
    fn names(&self, bits: u64) -> String {
        Bits(bits)
            .map(|i| self.nodes[i as usize].to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The value chosen in `slot`, if a majority accepted one there, with its ballot.
    pub fn chosen(&self, slot: Slot) -> Option<(Ballot, &Value)> {
        self.accepts
            .get(&slot)?
            .iter()
            .find_map(|(b, v, who)| (who.count_ones() as usize >= self.majority).then_some((*b, v)))
    }

    /// Every slot with a chosen value, in slot order.
    pub fn log(&self) -> BTreeMap<Slot, Value> {
        self.accepts
            .keys()
            .filter_map(|s| self.chosen(*s).map(|(_, v)| (*s, v.clone())))
            .collect()
    }

    fn memory(&self, state: &mut dyn Hasher) {
        hash_memory(&self.accepts, state);
    }
}

/// Feeds an `Accepted` note into `ledger`; returns (slot, ballot, value, who) when it makes a
/// majority.
fn new_majority(
    ledger: &mut SlotLedger,
    record: &Record<MultiPaxosNode>,
) -> Option<(Slot, Ballot, Value, String)> {
    let Event::Note {
        node,
        note: MultiPaxosNote::Accepted { b, slot, value },
    } = &record.event
    else {
        return None;
    };
    let who = ledger.accept(node, *b, *slot, value)?;
    Some((*slot, *b, value.clone(), who))
}

/// **one-value-per-slot**: no two different values are ever chosen in one slot.
#[derive(Clone, Debug)]
pub struct OneValuePerSlot {
    ledger: SlotLedger,
    /// The first value chosen in each slot, its ballot and who chose it.
    first: BTreeMap<Slot, (Value, Ballot, String)>,
}

impl OneValuePerSlot {
    /// For these replicas.
    pub fn new(nodes: &[String]) -> Self {
        OneValuePerSlot {
            ledger: SlotLedger::new(nodes),
            first: BTreeMap::new(),
        }
    }
}

impl Invariant<MultiPaxosNode> for OneValuePerSlot {
    fn name(&self) -> &'static str {
        "one-value-per-slot"
    }
    fn memory(&self, state: &mut dyn Hasher) {
        self.ledger.memory(state);
    }
    fn reads(&self) -> Kinds {
        Kinds::NOTE
    }
    fn reads_note(&self, note: &MultiPaxosNote) -> bool {
        matches!(note, MultiPaxosNote::Accepted { .. })
    }
    fn observe(&mut self, record: &Record<MultiPaxosNode>) -> Result<(), Broken> {
        let Some((slot, b, value, who)) = new_majority(&mut self.ledger, record) else {
            return Ok(());
        };
        match self.first.get(&slot) {
            Some((first, fb, fwho)) if *first != value => Err(broke(
                format!(
                    "two values chosen in entry {slot}: '{first}' (ballot {fb}, accepted by {fwho}), \
                     then '{value}' (ballot {b}, accepted by {who})"
                ),
                format!(
                    "dos valores elegidos en la entrada {slot}: '{first}' (ballot {fb}, aceptado \
                     por {fwho}), y después '{value}' (ballot {b}, aceptado por {who})"
                ),
            )),
            Some(_) => Ok(()),
            None => {
                self.first.insert(slot, (value, b, who));
                Ok(())
            }
        }
    }
}

/// **applied-only-if-chosen**: a replica applies a value in a slot only once a majority
/// accepted that value there.
#[derive(Clone, Debug)]
pub struct AppliedOnlyIfChosen {
    ledger: SlotLedger,
}

impl AppliedOnlyIfChosen {
    /// For these replicas.
    pub fn new(nodes: &[String]) -> Self {
        AppliedOnlyIfChosen {
            ledger: SlotLedger::new(nodes),
        }
    }
}

impl Invariant<MultiPaxosNode> for AppliedOnlyIfChosen {
    fn name(&self) -> &'static str {
        "applied-only-if-chosen"
    }
    fn memory(&self, state: &mut dyn Hasher) {
        self.ledger.memory(state);
    }
    fn reads(&self) -> Kinds {
        Kinds::NOTE
    }
    fn reads_note(&self, note: &MultiPaxosNote) -> bool {
        matches!(
            note,
            MultiPaxosNote::Accepted { .. } | MultiPaxosNote::Applied { .. }
        )
    }
    fn observe(&mut self, record: &Record<MultiPaxosNode>) -> Result<(), Broken> {
        new_majority(&mut self.ledger, record);
        let Event::Note {
            node,
            note: MultiPaxosNote::Applied { slot, value },
        } = &record.event
        else {
            return Ok(());
        };
        match self.ledger.chosen(*slot) {
            Some((_, chosen)) if chosen == value => Ok(()),
            Some((b, chosen)) => Err(broke(
                format!(
                    "{node} applied '{value}' as entry {slot}, but '{chosen}' was chosen there (ballot {b})"
                ),
                format!(
                    "{node} aplicó '{value}' como entrada {slot}, pero allí se eligió '{chosen}' (ballot {b})"
                ),
            )),
            None => Err(broke(
                format!(
                    "{node} applied '{value}' as entry {slot}, but no majority has accepted anything there"
                ),
                format!(
                    "{node} aplicó '{value}' como entrada {slot}, pero ninguna mayoría ha aceptado nada allí"
                ),
            )),
        }
    }
}

/// **applied-prefixes-agree**: every replica applies entries in slot order, and the entry it
/// applies in a slot is the one every other replica applies there: applied logs are prefixes of
/// one another.
#[derive(Clone, Debug, Default, Hash)]
pub struct AppliedPrefixesAgree {
    /// The first value applied in each slot, and by whom.
    log: BTreeMap<Slot, (Value, Name)>,
    /// Each replica's next slot to apply.
    next: BTreeMap<Name, Slot>,
}

impl Invariant<MultiPaxosNode> for AppliedPrefixesAgree {
    fn name(&self) -> &'static str {
        "applied-prefixes-agree"
    }
    fn memory(&self, state: &mut dyn Hasher) {
        hash_memory(self, state);
    }
    fn reads(&self) -> Kinds {
        Kinds::NOTE
    }
    fn reads_note(&self, note: &MultiPaxosNote) -> bool {
        matches!(note, MultiPaxosNote::Applied { .. })
    }
    fn observe(&mut self, record: &Record<MultiPaxosNode>) -> Result<(), Broken> {
        let Event::Note {
            node,
            note: MultiPaxosNote::Applied { slot, value },
        } = &record.event
        else {
            return Ok(());
        };
        let next = self.next.entry(node.clone()).or_insert(1);
        if *slot != *next {
            return Err(broke(
                format!(
                    "{node} applied entry {slot} ('{value}') before entry {next}: a log is applied in slot order"
                ),
                format!(
                    "{node} aplicó la entrada {slot} ('{value}') antes que la {next}: un log se aplica en orden"
                ),
            ));
        }
        *next += 1;
        match self.log.get(slot) {
            Some((other, by)) if other != value => Err(broke(
                format!(
                    "{node} applied '{value}' as entry {slot}, but {by} applied '{other}' there"
                ),
                format!(
                    "{node} aplicó '{value}' como entrada {slot}, pero {by} aplicó '{other}' allí"
                ),
            )),
            Some(_) => Ok(()),
            None => {
                self.log.insert(*slot, (value.clone(), node.clone()));
                Ok(())
            }
        }
    }
}

/// **phase-2-after-phase-1**: a leader proposes in ballot `b` only after a majority of
/// acceptors promised `b` (phase 1 complete).
#[derive(Clone, Debug, Hash)]
pub struct Phase2AfterPhase1 {
    nodes: Arc<[Name]>,
    majority: usize,
    /// Who promised each ballot, as bits over `nodes`.
    promised: BTreeMap<Ballot, u64>,
}

impl Phase2AfterPhase1 {
    /// For these replicas.
    pub fn new(nodes: &[String]) -> Self {
        let ledger = SlotLedger::new(nodes);
        Phase2AfterPhase1 {
            majority: ledger.majority,
            nodes: ledger.nodes,
            promised: BTreeMap::new(),
        }
    }
}

impl Invariant<MultiPaxosNode> for Phase2AfterPhase1 {
    fn name(&self) -> &'static str {
        "phase-2-after-phase-1"
    }
    fn memory(&self, state: &mut dyn Hasher) {
        hash_memory(&self.promised, state);
    }
    fn reads(&self) -> Kinds {
        Kinds::NOTE
    }
    fn reads_note(&self, note: &MultiPaxosNote) -> bool {
        matches!(
            note,
            MultiPaxosNote::Promised { .. } | MultiPaxosNote::Proposed { .. }
        )
    }
    fn observe(&mut self, record: &Record<MultiPaxosNode>) -> Result<(), Broken> {
        let Event::Note { node, note } = &record.event else {
            return Ok(());
        };
        match note {
            MultiPaxosNote::Promised { b, .. } => {
                if let Ok(i) = self.nodes.binary_search_by(|n| (**n).cmp(node)) {
                    *self.promised.entry(*b).or_default() |= 1 << i;
                }
                Ok(())
            }
            MultiPaxosNote::Proposed { b, slot, value } => {
                let bits = self.promised.get(b).copied().unwrap_or(0);
                if bits.count_ones() as usize >= self.majority {
                    return Ok(());
                }
                let who: Vec<String> = Bits(bits)
                    .map(|i| self.nodes[i as usize].to_string())
                    .collect();
                let who = if who.is_empty() {
                    "nobody".to_string()
                } else {
                    who.join(", ")
                };
                let who_es = if bits == 0 {
                    "nadie".to_string()
                } else {
                    who.clone()
                };
                Err(broke(
                    format!(
                        "{node} proposed '{value}' for entry {slot} at ballot {b}, but only {who} \
                         had promised {b} (a majority is {} of {}): phase 2 before phase 1 was complete",
                        self.majority,
                        self.nodes.len()
                    ),
                    format!(
                        "{node} propuso '{value}' para la entrada {slot} con ballot {b}, pero solo \
                         {who_es} había prometido {b} (la mayoría es {} de {}): fase 2 antes de \
                         completar la fase 1",
                        self.majority,
                        self.nodes.len()
                    ),
                ))
            }
            _ => Ok(()),
        }
    }
}
