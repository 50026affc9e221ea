//! The safety properties of PBFT, checked from trace records alone (notes of correct replicas
//! and clients; a Byzantine replica's notes prove nothing and are ignored).
//!
//! Three are what a user of the service is promised: **agreement** (no two correct replicas
//! commit different requests at one sequence number), **same-execution-order** (correct
//! replicas execute 1, 2, 3 ... in order, the same request at each) and
//! **accepted-result-was-executed** (a client accepts only a result a correct replica
//! executed). Two are the paper's own invariants of its phases (Castro and Liskov, section
//! 4.2), which catch a broken quorum before it breaks the first three:
//! **prepared-agreement** (no two correct replicas are prepared for different requests at one
//! view and number) and **committed-local-implies-committed** (a request committed-local at a
//! correct replica is prepared at f + 1 correct replicas, which is what carries it across a
//! view change). **committed-survives-view-change** follows a committed request through
//! every later view.

use crate::common::broke;
use crate::pbft::PbftNode;
use crate::pbft::msg::{Seq, View};
use crate::pbft::notes::PbftNote;
use crate::pbft::service::{Op, OpResult};
use crate::pbft::sign::Digest;
use sim_core::Broken;
use sim_core::check::hash_memory;
use sim_core::{Event, Invariant, Kinds, Name, Record};
use std::collections::{BTreeMap, BTreeSet};
use std::hash::Hasher;
use std::sync::Arc;

/// Which nodes' notes count: the correct replicas, and f.
#[derive(Clone, Debug)]
pub struct Correct {
    replicas: Arc<BTreeSet<String>>,
    f: usize,
}

impl Correct {
    /// The correct replicas (by name) of a cluster tolerating `f`.
    pub fn new(replicas: impl IntoIterator<Item = String>, f: usize) -> Correct {
        Correct {
            replicas: Arc::new(replicas.into_iter().collect()),
            f,
        }
    }

    fn note<'r>(&self, record: &'r Record<PbftNode>) -> Option<(&'r Name, &'r PbftNote)> {
        match &record.event {
            Event::Note { node, note } if self.replicas.contains(node.as_ref()) => {
                Some((node, note))
            }
            _ => None,
        }
    }
}

/// What the pre-prepares said each digest is, for messages in words.
#[derive(Clone, Debug, Default)]
struct Ops(BTreeMap<Digest, Op>);

impl Ops {
    fn learn(&mut self, record: &Record<PbftNode>) {
        if let Event::Note {
            note: PbftNote::PrePrepared { digest, op, .. },
            ..
        } = &record.event
        {
            self.0.entry(*digest).or_insert_with(|| op.clone());
        }
    }

    /// A digest in words: its operation if a pre-prepare named it, the null request, or the
    /// bare digest.
    fn show(&self, digest: Digest) -> String {
        if digest == crate::pbft::msg::NULL {
            return "the null request".into();
        }
        match self.0.get(&digest) {
            Some(op) => format!("'{op}' (d={digest})"),
            None => format!("d={digest}"),
        }
    }
}

/// The first digest correct replicas reported for each key (a number, or a view and number)
/// and who reported it: what three invariants compare every later report with.
#[derive(Clone, Debug)]
struct FirstDigest<K: Ord>(BTreeMap<K, (Digest, Name)>);

impl<K: Ord + std::hash::Hash> FirstDigest<K> {
    fn new() -> Self {
        FirstDigest(BTreeMap::new())
    }

    /// Records `node`'s `digest` at `key`; the first report there, when it differs.
    fn report(&mut self, key: K, digest: Digest, node: &Name) -> Option<(Digest, Name)> {
        match self.0.get(&key) {
            Some((first, who)) if *first != digest => Some((*first, who.clone())),
            Some(_) => None,
            None => {
                self.0.insert(key, (digest, node.clone()));
                None
            }
        }
    }

    /// The digests by key, not who reported them (words only).
    fn memory(&self, state: &mut dyn Hasher) {
        let digests: Vec<(&K, &Digest)> = self.0.iter().map(|(k, (d, _))| (k, d)).collect();
        hash_memory(&digests, state);
    }
}

/// **agreement**: no two correct replicas commit different requests at one sequence number,
/// in any views.
#[derive(Clone, Debug)]
pub struct Agreement {
    correct: Correct,
    ops: Ops,
    committed: FirstDigest<Seq>,
}

impl Agreement {
    /// Over these correct replicas.
    pub fn new(correct: Correct) -> Self {
        Agreement {
            correct,
            ops: Ops::default(),
            committed: FirstDigest::new(),
        }
    }
}

impl Invariant<PbftNode> for Agreement {
    fn name(&self) -> &'static str {
        "agreement"
    }
    fn memory(&self, state: &mut dyn Hasher) {
        self.committed.memory(state);
    }
    fn reads(&self) -> Kinds {
        Kinds::NOTE
    }
    fn reads_note(&self, note: &PbftNote) -> bool {
        matches!(
            note,
            PbftNote::PrePrepared { .. } | PbftNote::Committed { .. }
        )
    }
    fn observe(&mut self, record: &Record<PbftNode>) -> Result<(), Broken> {
        self.ops.learn(record);
        let Some((
            node,
            PbftNote::Committed {
                seq, digest, view, ..
            },
        )) = self.correct.note(record)
        else {
            return Ok(());
        };
        match self.committed.report(*seq, *digest, node) {
            Some((first, who)) => {
                let (mine, theirs) = (self.ops.show(*digest), self.ops.show(first));
                Err(broke(
                    format!(
                        "{node} committed {mine} at n={seq} (view {view}), but {who} committed {theirs} there"
                    ),
                    format!(
                        "{node} confirmó {mine} en n={seq} (vista {view}), pero {who} confirmó ahí {theirs}"
                    ),
                ))
            }
            None => Ok(()),
        }
    }
}

/// **prepared-agreement**: no two correct replicas are prepared for different requests at one
/// view and sequence number (the paper's invariant of the prepare phase).
#[derive(Clone, Debug)]
pub struct PreparedAgreement {
    correct: Correct,
    ops: Ops,
    prepared: FirstDigest<(View, Seq)>,
}

impl PreparedAgreement {
    /// Over these correct replicas.
    pub fn new(correct: Correct) -> Self {
        PreparedAgreement {
            correct,
            ops: Ops::default(),
            prepared: FirstDigest::new(),
        }
    }
}

impl Invariant<PbftNode> for PreparedAgreement {
    fn name(&self) -> &'static str {
        "prepared-agreement"
    }
    fn memory(&self, state: &mut dyn Hasher) {
        self.prepared.memory(state);
    }
    fn reads(&self) -> Kinds {
        Kinds::NOTE
    }
    fn reads_note(&self, note: &PbftNote) -> bool {
        matches!(
            note,
            PbftNote::PrePrepared { .. } | PbftNote::Prepared { .. }
        )
    }
    fn observe(&mut self, record: &Record<PbftNode>) -> Result<(), Broken> {
        self.ops.learn(record);
        let Some((
            node,
            PbftNote::Prepared {
                view, seq, digest, ..
            },
        )) = self.correct.note(record)
        else {
            return Ok(());
        };
        match self.prepared.report((*view, *seq), *digest, node) {
            Some((first, who)) => {
                let (mine, theirs) = (self.ops.show(*digest), self.ops.show(first));
                Err(broke(
                    format!(
                        "{node} is prepared for {mine} at view {view}, n={seq}, but {who} is prepared for {theirs} there"
                    ),
                    format!(
                        "{node} está preparado para {mine} en la vista {view}, n={seq}, pero {who} está preparado ahí para {theirs}"
                    ),
                ))
            }
            None => Ok(()),
        }
    }
}

/// **committed-local-implies-committed**: when a correct replica commits (view, n, d) locally,
/// f + 1 correct replicas are already prepared for it (the paper's invariant of the commit
/// phase).
#[derive(Clone, Debug)]
pub struct CommittedLocalImpliesCommitted {
    correct: Correct,
    prepared: BTreeMap<(View, Seq, Digest), BTreeSet<Name>>,
}

impl CommittedLocalImpliesCommitted {
    /// Over these correct replicas.
    pub fn new(correct: Correct) -> Self {
        CommittedLocalImpliesCommitted {
            correct,
            prepared: BTreeMap::new(),
        }
    }
}

impl Invariant<PbftNode> for CommittedLocalImpliesCommitted {
    fn name(&self) -> &'static str {
        "committed-local-implies-committed"
    }
    fn memory(&self, state: &mut dyn Hasher) {
        hash_memory(&self.prepared, state);
    }
    fn reads(&self) -> Kinds {
        Kinds::NOTE
    }
    fn reads_note(&self, note: &PbftNote) -> bool {
        matches!(note, PbftNote::Prepared { .. } | PbftNote::Committed { .. })
    }
    fn observe(&mut self, record: &Record<PbftNode>) -> Result<(), Broken> {
        match self.correct.note(record) {
            Some((
                node,
                PbftNote::Prepared {
                    view, seq, digest, ..
                },
            )) => {
                self.prepared
                    .entry((*view, *seq, *digest))
                    .or_default()
                    .insert(node.clone());
                Ok(())
            }
            Some((
                node,
                PbftNote::Committed {
                    view,
                    seq,
                    digest,
                    commits,
                },
            )) => {
                let who = self.prepared.get(&(*view, *seq, *digest));
                let n = who.map_or(0, BTreeSet::len);
                if n > self.correct.f {
                    return Ok(());
                }
                let names: Vec<&str> = who.into_iter().flatten().map(|s| s.as_ref()).collect();
                let need = self.correct.f + 1;
                let (names, nombres) = if names.is_empty() {
                    ("none".to_string(), "ninguna".to_string())
                } else {
                    (names.join(", "), names.join(", "))
                };
                Err(broke(
                    format!(
                        "{node} committed n={seq} (view {view}) with {commits} commits, but only {n} \
                         correct replica(s) are prepared for it ({names}), not f + 1 = {need}: a view \
                         change could lose it"
                    ),
                    format!(
                        "{node} confirmó n={seq} (vista {view}) con {commits} commits, pero solo {n} \
                         réplica(s) correcta(s) están preparadas para ello ({nombres}), no f + 1 = \
                         {need}: un cambio de vista podría perderlo"
                    ),
                ))
            }
            _ => Ok(()),
        }
    }
}

/// **same-execution-order**: every correct replica executes sequence numbers 1, 2, 3 ... in
/// order, and the same request at each as every other correct replica.
#[derive(Clone, Debug)]
pub struct SameExecutionOrder {
    correct: Correct,
    ops: Ops,
    /// The digest executed at each number, and by whom first.
    at: FirstDigest<Seq>,
    /// The last number each correct replica executed.
    last: BTreeMap<Name, Seq>,
}

impl SameExecutionOrder {
    /// Over these correct replicas.
    pub fn new(correct: Correct) -> Self {
        SameExecutionOrder {
            correct,
            ops: Ops::default(),
            at: FirstDigest::new(),
            last: BTreeMap::new(),
        }
    }
}

impl Invariant<PbftNode> for SameExecutionOrder {
    fn name(&self) -> &'static str {
        "same-execution-order"
    }
    fn memory(&self, state: &mut dyn Hasher) {
        self.at.memory(state);
        hash_memory(&self.last, state);
    }
    fn reads(&self) -> Kinds {
        Kinds::NOTE
    }
    fn reads_note(&self, note: &PbftNote) -> bool {
        matches!(
            note,
            PbftNote::PrePrepared { .. }
                | PbftNote::Executed { .. }
                | PbftNote::ExecutedNull { .. }
        )
    }
    fn observe(&mut self, record: &Record<PbftNode>) -> Result<(), Broken> {
        self.ops.learn(record);
        let (node, seq, digest) = match self.correct.note(record) {
            Some((node, PbftNote::Executed { seq, digest, .. })) => (node, seq, digest),
            Some((node, PbftNote::ExecutedNull { seq })) => (node, seq, &crate::pbft::msg::NULL),
            _ => return Ok(()),
        };
        let last = self.last.get(node).copied().unwrap_or(0);
        if *seq != last + 1 {
            let op = self.ops.show(*digest);
            return Err(broke(
                format!(
                    "{node} executed n={seq} ({op}) right after n={last}: requests execute in sequence order"
                ),
                format!(
                    "{node} ejecutó n={seq} ({op}) justo después de n={last}: las peticiones se ejecutan en orden de secuencia"
                ),
            ));
        }
        self.last.insert(node.clone(), *seq);
        match self.at.report(*seq, *digest, node) {
            Some((first, who)) => {
                let (mine, theirs) = (self.ops.show(*digest), self.ops.show(first));
                Err(broke(
                    format!("{node} executed {mine} at n={seq}, but {who} executed {theirs} there"),
                    format!("{node} ejecutó {mine} en n={seq}, pero {who} ejecutó ahí {theirs}"),
                ))
            }
            None => Ok(()),
        }
    }
}

/// **accepted-result-was-executed**: a client accepts only a result that a correct replica
/// executed for that very request (f + 1 matching replies include a correct one).
#[derive(Clone, Debug)]
pub struct AcceptedResultWasExecuted {
    correct: Correct,
    executed: BTreeSet<(Name, u64, OpResult)>,
}

impl AcceptedResultWasExecuted {
    /// Over these correct replicas.
    pub fn new(correct: Correct) -> Self {
        AcceptedResultWasExecuted {
            correct,
            executed: BTreeSet::new(),
        }
    }
}

impl Invariant<PbftNode> for AcceptedResultWasExecuted {
    fn name(&self) -> &'static str {
        "accepted-result-was-executed"
    }
    fn memory(&self, state: &mut dyn Hasher) {
        hash_memory(&self.executed, state);
    }
    fn reads(&self) -> Kinds {
        Kinds::NOTE
    }
    fn reads_note(&self, note: &PbftNote) -> bool {
        matches!(note, PbftNote::Executed { .. } | PbftNote::Accepted { .. })
    }
    fn observe(&mut self, record: &Record<PbftNode>) -> Result<(), Broken> {
        let Event::Note { node, note } = &record.event else {
            return Ok(());
        };
        match note {
            PbftNote::Executed {
                client,
                timestamp,
                result,
                again: false,
                ..
            } if self.correct.replicas.contains(node.as_ref()) => {
                self.executed
                    .insert((client.as_str().into(), *timestamp, result.clone()));
                Ok(())
            }
            PbftNote::Accepted {
                timestamp,
                op,
                result,
                replies,
            } => {
                if self
                    .executed
                    .contains(&(node.clone(), *timestamp, result.clone()))
                {
                    return Ok(());
                }
                let from = replies.join(", ");
                Err(broke(
                    format!(
                        "{node} accepted {} for '{op}' (request {timestamp}) from {from}, but no \
                         correct replica executed that",
                        crate::pbft::narrate::result(result, traces::Lang::En),
                    ),
                    format!(
                        "{node} aceptó {} para '{op}' (petición {timestamp}) de {from}, pero \
                         ninguna réplica correcta ejecutó eso",
                        crate::pbft::narrate::result(result, traces::Lang::Es),
                    ),
                ))
            }
            _ => Ok(()),
        }
    }
}

/// **committed-survives-view-change**: a request committed at a correct replica in view v is
/// the request at its sequence number in every later view that a correct replica enters or
/// pre-prepares (the view change's whole point).
#[derive(Clone, Debug)]
pub struct CommittedSurvivesViewChange {
    correct: Correct,
    ops: Ops,
    /// Per number, the commit of the earliest view seen: its digest, view and replica.
    committed: BTreeMap<Seq, (Digest, View, Name)>,
}

impl CommittedSurvivesViewChange {
    /// Over these correct replicas.
    pub fn new(correct: Correct) -> Self {
        CommittedSurvivesViewChange {
            correct,
            ops: Ops::default(),
            committed: BTreeMap::new(),
        }
    }

    fn carried(&self, node: &Name, view: View, seq: Seq, digest: Digest) -> Result<(), Broken> {
        match self.committed.get(&seq) {
            Some((kept, at, who)) if *at < view && *kept != digest => {
                let (mine, theirs) = (self.ops.show(digest), self.ops.show(*kept));
                Err(broke(
                    format!(
                        "{node} has {mine} at n={seq} in view {view}, but {who} committed {theirs} there in view {at}"
                    ),
                    format!(
                        "{node} tiene {mine} en n={seq} en la vista {view}, pero {who} confirmó ahí {theirs} en la vista {at}"
                    ),
                ))
            }
            _ => Ok(()),
        }
    }
}

impl Invariant<PbftNode> for CommittedSurvivesViewChange {
    fn name(&self) -> &'static str {
        "committed-survives-view-change"
    }
    fn memory(&self, state: &mut dyn Hasher) {
        let kept: Vec<(&Seq, &Digest, &View)> = self
            .committed
            .iter()
            .map(|(n, (d, v, _))| (n, d, v))
            .collect();
        hash_memory(&kept, state);
    }
    fn reads(&self) -> Kinds {
        Kinds::NOTE
    }
    fn reads_note(&self, note: &PbftNote) -> bool {
        matches!(
            note,
            PbftNote::PrePrepared { .. }
                | PbftNote::Committed { .. }
                | PbftNote::NewViewEntered { .. }
        )
    }
    fn observe(&mut self, record: &Record<PbftNode>) -> Result<(), Broken> {
        self.ops.learn(record);
        match self.correct.note(record) {
            Some((
                node,
                PbftNote::Committed {
                    view, seq, digest, ..
                },
            )) => {
                self.carried(node, *view, *seq, *digest)?;
                let earliest = self.committed.get(seq).is_none_or(|(_, at, _)| view < at);
                if earliest {
                    self.committed.insert(*seq, (*digest, *view, node.clone()));
                }
                Ok(())
            }
            Some((
                node,
                PbftNote::PrePrepared {
                    view, seq, digest, ..
                },
            )) => self.carried(node, *view, *seq, *digest),
            Some((
                node,
                PbftNote::NewViewEntered {
                    view, proposals, ..
                },
            )) => proposals
                .iter()
                .try_for_each(|&(seq, digest)| self.carried(node, *view, seq, digest)),
            _ => Ok(()),
        }
    }
}
