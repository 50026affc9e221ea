//! The safety properties of Paxos, checked from trace records alone.
//!
//! Each checker reads the notes nodes publish (and the scenario's commands), never an actor's
//! state, so the very same code judges a live run and a trace file a student edited. "Chosen"
//! is computed two ways: a learner's `Chosen` note, and, from the acceptors' own `Accepted`
//! notes, a majority of acceptors that accepted the same proposal (the paper's definition,
//! which holds even if no learner ever hears of it).

use crate::common::{Bits, broke};
use crate::paxos::PaxosNode;
use crate::paxos::config::MAX_NODES;
use crate::paxos::msg::{Number, Proposal, Value};
use crate::paxos::node::PaxosCommand;
use crate::paxos::notes::PaxosNote;
use sim_core::check::hash_memory;
use sim_core::{Broken, Name, NodeName};
use sim_core::{Event, Invariant, Kinds, Record};
use std::collections::BTreeSet;
use std::hash::Hasher;
use std::sync::Arc;

/// A value became chosen, and how we know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChosenFact {
    /// The proposal number.
    pub n: Number,
    /// The value.
    pub value: Value,
    /// Who witnessed it.
    pub witness: Witness,
}

/// Who saw a value chosen: kept as names and put in words only when a violation is reported,
/// so that a search checking every step formats nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Witness {
    /// A learner's `Chosen` note.
    Learned(Name),
    /// A majority of acceptors accepted the same proposal.
    Majority(AcceptorSet),
}

impl Witness {
    /// "a majority (a1, a2) accepted", "relay-2 learned".
    pub fn describe(&self) -> String {
        match self {
            Witness::Learned(node) => format!("{node} learned"),
            Witness::Majority(who) => format!("a majority ({who}) accepted"),
        }
    }
    /// The same in the course's Spanish: "una mayoría (a1, a2) aceptó", "relay-2 aprendió".
    pub fn describe_es(&self) -> String {
        match self {
            Witness::Learned(node) => format!("{node} aprendió"),
            Witness::Majority(who) => format!("una mayoría ({who}) aceptó"),
        }
    }
}

impl ChosenFact {
    fn describe(&self) -> String {
        format!(
            "{} '{}' at n={}",
            self.witness.describe(),
            self.value,
            self.n
        )
    }
    fn describe_es(&self) -> String {
        format!(
            "{} '{}' con n={}",
            self.witness.describe_es(),
            self.value,
            self.n
        )
    }
}

/// Some acceptors of a cluster: one bit per acceptor over the cluster's names in name order
/// (a config has at most [`MAX_NODES`] nodes), so that noting who accepted allocates nothing.
/// Shows as the names in that order, comma-separated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AcceptorSet {
    acceptors: Arc<[Name]>,
    bits: u64,
}

impl AcceptorSet {
    /// The acceptors in the set, in name order.
    pub fn names(&self) -> impl Iterator<Item = &Name> + '_ {
        members(&self.acceptors, self.bits)
    }
}

/// The names of `acceptors` whose bits are set in `bits`, in order.
fn members(acceptors: &[Name], bits: u64) -> impl Iterator<Item = &Name> + '_ {
    Bits(bits).map(|i| &acceptors[i as usize])
}

impl std::fmt::Display for AcceptorSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, name) in self.names().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(name)?;
        }
        Ok(())
    }
}

/// Which acceptors accepted which proposal, from `Accepted` notes: the paper's "chosen".
#[derive(Clone, Debug, Default)]
pub struct AcceptLedger {
    /// The acceptors, sorted; an acceptor is its index here (its bit in a set).
    acceptors: Arc<[Name]>,
    majority: usize,
    /// (proposal number, value, the acceptors that accepted it as bits), sorted: a small
    /// sorted list, cheap to clone for a search that keeps a copy per state.
    accepts: Vec<(Number, Value, u64)>,
}

impl AcceptLedger {
    /// A ledger over these acceptors: a majority of them choose a proposal. Notes from any
    /// other node (a hand-edited trace can have them) never count. A config has at most
    /// [`MAX_NODES`] nodes; acceptors past that many, in name order, would never count either.
    pub fn new(acceptors: &[String]) -> Self {
        let acceptors: Arc<[Name]> = acceptors
            .iter()
            .map(|a| a.as_str())
            .collect::<BTreeSet<&str>>()
            .into_iter()
            .take(MAX_NODES)
            .map(Name::from)
            .collect();
        AcceptLedger {
            majority: acceptors.len() / 2 + 1,
            acceptors,
            accepts: Vec::new(),
        }
    }

    /// Records that `acceptor` accepted `(n, value)`; returns the fact when this accept is the
    /// one that makes a majority.
    pub fn accept(&mut self, acceptor: &str, n: Number, value: &Value) -> Option<ChosenFact> {
        let who = self.index(acceptor)?;
        self.accept_by(who, n, value)
    }

    /// [`AcceptLedger::index`] of a record's name, by name (one comparison each).
    fn index_of(&self, acceptor: &Name) -> Option<usize> {
        self.acceptors.iter().position(|a| a == acceptor)
    }

    /// The acceptor's index (its bit), if it is one of the cluster's.
    fn index(&self, acceptor: &str) -> Option<usize> {
        self.acceptors
            .binary_search_by(|a| (**a).cmp(acceptor))
            .ok()
    }

    /// [`AcceptLedger::accept`] by the acceptor at index `who`.
    fn accept_by(&mut self, who: usize, n: Number, value: &Value) -> Option<ChosenFact> {
        let at = match self
            .accepts
            .binary_search_by(|(m, v, _)| m.cmp(&n).then_with(|| (**v).cmp(value)))
        {
            Ok(i) => i,
            Err(i) => {
                self.accepts.insert(i, (n, value.clone(), 0));
                i
            }
        };
        let set = &mut self.accepts[at].2;
        let bit = 1u64 << who;
        if *set & bit != 0 {
            return None;
        }
        *set |= bit;
        if set.count_ones() as usize != self.majority {
            return None;
        }
        Some(ChosenFact {
            n,
            value: value.clone(),
            witness: Witness::Majority(AcceptorSet {
                acceptors: self.acceptors.clone(),
                bits: *set,
            }),
        })
    }

    /// The first accept, in (number, value, acceptor name) order, numbered above `n` with a
    /// value other than `value`: what P2b forbids once `(n, value)` is chosen.
    fn accepted_above(&self, n: Number, value: &Value) -> Option<(Number, &Value, &Name)> {
        self.accepts
            .iter()
            .find(|(m, v, _)| *m > n && v != value)
            .map(|(m, v, bits)| (*m, v, &self.acceptors[bits.trailing_zeros() as usize]))
    }

    /// Hashes the accepts for a search (see `Invariant::memory`): the acceptors by name (as a
    /// search renaming interchangeable acceptors renames them), not by their index here.
    fn memory(&self, state: &mut dyn Hasher) {
        use std::hash::Hash;
        /// An acceptor's name, hashed as a search renaming acceptors renames it.
        struct Named<'a>(&'a str);
        impl Hash for Named<'_> {
            fn hash<H: Hasher>(&self, state: &mut H) {
                sim_core::symmetry::hash_name(self.0, state);
            }
        }
        let state = &mut &mut *state;
        self.accepts.len().hash(state);
        for (n, value, bits) in &self.accepts {
            (n, value).hash(state);
            let who = members(&self.acceptors, *bits).map(|name| Named(name));
            sim_core::symmetry::hash_set(who, state);
        }
    }

    /// Every proposal a majority accepted, in number order.
    pub fn chosen(&self) -> Vec<Proposal> {
        self.accepts
            .iter()
            .filter(|(_, _, who)| who.count_ones() as usize >= self.majority)
            .map(|(n, v, _)| (*n, v.clone()))
            .collect()
    }
}

/// Whether `note` can reveal a chosen value: the notes [`chosen_fact`] reads.
fn reveals_chosen(note: &PaxosNote) -> bool {
    matches!(note, PaxosNote::Chosen { .. } | PaxosNote::Accepted { .. })
}

/// Reads one record as the chosen fact it reveals, if any (a learner's note, or a new majority of
/// acceptor accepts), feeding acceptor accepts into `ledger`.
fn chosen_fact(ledger: &mut AcceptLedger, record: &Record<PaxosNode>) -> Option<ChosenFact> {
    let Event::Note { node, note } = &record.event else {
        return None;
    };
    match note {
        PaxosNote::Chosen { n, value, .. } => Some(ChosenFact {
            n: *n,
            value: value.clone(),
            witness: Witness::Learned(node.clone()),
        }),
        PaxosNote::Accepted { n, value } => ledger.accept_by(ledger.index_of(node)?, *n, value),
        _ => None,
    }
}

/// **agreement**: no two different values are ever chosen.
#[derive(Clone, Debug)]
pub struct Agreement {
    ledger: AcceptLedger,
    first: Option<ChosenFact>,
}

impl Agreement {
    /// For a cluster of these acceptors.
    pub fn new(acceptors: &[String]) -> Self {
        Agreement {
            ledger: AcceptLedger::new(acceptors),
            first: None,
        }
    }
}

impl Invariant<PaxosNode> for Agreement {
    fn name(&self) -> &'static str {
        "agreement"
    }
    /// The accepts and the first value chosen (not who witnessed it: words only).
    fn memory(&self, state: &mut dyn Hasher) {
        self.ledger.memory(state);
        hash_memory(&self.first.as_ref().map(|f| (f.n, &f.value)), state);
    }
    fn reads(&self) -> Kinds {
        Kinds::NOTE
    }
    fn reads_note(&self, note: &PaxosNote) -> bool {
        reveals_chosen(note)
    }

    fn observe(&mut self, record: &Record<PaxosNode>) -> Result<(), Broken> {
        if let Some(fact) = chosen_fact(&mut self.ledger, record) {
            match &self.first {
                None => self.first = Some(fact),
                Some(first) if first.value != fact.value => {
                    return Err(broke(
                        format!(
                            "two different values chosen: {}, then {}",
                            first.describe(),
                            fact.describe()
                        ),
                        format!(
                            "se eligen dos valores distintos: {}, y después {}",
                            first.describe_es(),
                            fact.describe_es()
                        ),
                    ));
                }
                Some(_) => {}
            }
        }
        Ok(())
    }
}

/// **validity**: a chosen value is one some proposer was asked to propose (its configured
/// value, or one given by a `ProposeValue` command).
#[derive(Clone, Debug)]
pub struct Validity {
    ledger: AcceptLedger,
    proposed: BTreeSet<Value>,
}

impl Validity {
    /// With the proposers' initial values, for a cluster of these acceptors.
    pub fn new(acceptors: &[String], initial: BTreeSet<Value>) -> Self {
        Validity {
            ledger: AcceptLedger::new(acceptors),
            proposed: initial,
        }
    }
}

impl Invariant<PaxosNode> for Validity {
    fn name(&self) -> &'static str {
        "validity"
    }
    fn memory(&self, state: &mut dyn Hasher) {
        self.ledger.memory(state);
        hash_memory(&self.proposed, state);
    }
    fn reads(&self) -> Kinds {
        Kinds::COMMAND | Kinds::NOTE
    }
    fn reads_note(&self, note: &PaxosNote) -> bool {
        reveals_chosen(note)
    }

    fn observe(&mut self, record: &Record<PaxosNode>) -> Result<(), Broken> {
        if let Event::Command {
            command: PaxosCommand::ProposeValue(value),
            accepted: true,
            ..
        } = &record.event
        {
            self.proposed.insert(value.as_str().into());
        }
        if let Some(fact) = chosen_fact(&mut self.ledger, record)
            && !self.proposed.contains(&fact.value)
        {
            let known: Vec<String> = self.proposed.iter().map(|v| format!("'{v}'")).collect();
            return Err(broke(
                format!(
                    "{}, but no proposer was ever asked to propose it (proposed: {})",
                    fact.describe(),
                    known.join(", ")
                ),
                format!(
                    "{}, pero a ningún proposer se le pidió proponerlo (propuestos: {})",
                    fact.describe_es(),
                    known.join(", ")
                ),
            ));
        }
        Ok(())
    }
}

/// **chosen-value-is-stable** (P2b): once `(n, v)` is chosen, every proposal numbered above
/// `n` that any acceptor accepts carries `v`, whenever it was accepted (before or after `n`
/// became chosen). An accept numbered below `n` arriving late is legal.
#[derive(Clone, Debug)]
pub struct ChosenValueIsStable {
    /// Every acceptor's accept.
    ledger: AcceptLedger,
    /// Accepts noted by nodes that are not acceptors (only a hand-edited trace has them):
    /// (number, value, node), kept apart so that the ledger stays a cluster's.
    strays: BTreeSet<(Number, Value, NodeName)>,
    chosen: Vec<ChosenFact>,
}

impl ChosenValueIsStable {
    /// For a cluster of these acceptors.
    pub fn new(acceptors: &[String]) -> Self {
        ChosenValueIsStable {
            ledger: AcceptLedger::new(acceptors),
            strays: BTreeSet::new(),
            chosen: Vec::new(),
        }
    }
}

impl Invariant<PaxosNode> for ChosenValueIsStable {
    fn name(&self) -> &'static str {
        "chosen-value-is-stable"
    }
    /// Every accept seen, whose majorities are the chosen facts.
    fn memory(&self, state: &mut dyn Hasher) {
        self.ledger.memory(state);
        hash_memory(&sim_core::symmetry::AsSet(&self.strays), state);
    }
    fn reads(&self) -> Kinds {
        Kinds::NOTE
    }
    fn reads_note(&self, note: &PaxosNote) -> bool {
        matches!(note, PaxosNote::Accepted { .. })
    }

    fn observe(&mut self, record: &Record<PaxosNode>) -> Result<(), Broken> {
        let Event::Note {
            node,
            note: PaxosNote::Accepted { n, value },
        } = &record.event
        else {
            return Ok(());
        };
        for fact in &self.chosen {
            if *n > fact.n && *value != fact.value {
                return Err(broke(
                    format!(
                        "{node} accepted '{value}' at n={n}, above n={} where '{}' was chosen ({})",
                        fact.n,
                        fact.value,
                        fact.witness.describe()
                    ),
                    format!(
                        "{node} aceptó '{value}' con n={n}, por encima de n={}, donde se eligió '{}' ({})",
                        fact.n,
                        fact.value,
                        fact.witness.describe_es()
                    ),
                ));
            }
        }
        let Some(who) = self.ledger.index_of(node) else {
            self.strays
                .insert((*n, value.clone(), NodeName::from(node)));
            return Ok(());
        };
        let Some(fact) = self.ledger.accept_by(who, *n, value) else {
            return Ok(());
        };
        // The first accept above `fact`, in (number, value, node) order, acceptor or not.
        let stray = self
            .strays
            .iter()
            .find(|(m, v, _)| *m > fact.n && *v != fact.value)
            .map(|(m, v, who)| (*m, v, &who.0));
        let above = match (self.ledger.accepted_above(fact.n, &fact.value), stray) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if let Some((m, v, who)) = above {
            return Err(broke(
                format!(
                    "{} became chosen, but {who} had already accepted '{v}' at n={m}, a higher number with another value",
                    fact.describe()
                ),
                format!(
                    "{} quedó elegido, pero {who} ya había aceptado '{v}' con n={m}, un número mayor con otro valor",
                    fact.describe_es()
                ),
            ));
        }
        self.chosen.push(fact);
        Ok(())
    }
}
