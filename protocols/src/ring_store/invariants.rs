//! The live ring's invariants, read from notes and faults only (so `dsim check` runs them on a
//! trace file too).
//!
//! - `no-acked-write-lost`: a confirmed version (or a newer one) is always held by some node;
//!   checked whenever a copy is dropped and at the end. Storage is durable, so crashes never
//!   fire it; a rebalance that deletes too early does. A write numbered at or below a version
//!   of its key confirmed before it started is lost too, once confirmed: "the newest wins"
//!   shadows it, so no read will return it (an owner that serves a key it no longer owns). So
//!   are two different values confirmed under one version: replicas keep whichever came first.
//! - `read-your-latest-ack`: a read that starts after version v of its key was confirmed returns
//!   v or newer, and a read that returns a confirmed version returns the value confirmed under
//!   it. It holds when R + W > RF (the quorums overlap) and fires when they need not.
//! - `ownership-total`: when a rebalance (a join, a leave or a split) ends, every confirmed key
//!   has exactly RF distinct home replicas on the ring, and one of them holds its confirmed
//!   version.
//! - `hints-delivered`: at the end, no hint is still held that its home has acknowledged (a
//!   `HandoffAck` for that version or newer reached the stand-in), and no stand-in that has been
//!   up (not crashed, not paused) for the grace period holds a hint it has not tried to hand
//!   over (sent a `Handoff`) within it. A home that is down, paused or cut off keeps the hint
//!   waiting legally; a stand-in that stops trying does not.

use crate::common::{broke, broke_all};
use crate::ring_store::RingNode;
use crate::ring_store::config::RingConfig;
use crate::ring_store::map::{Change, Map};
use crate::ring_store::msg::RingMsg;
use crate::ring_store::notes::RingNote;
use sim_core::Broken;
use sim_core::{Event, Fault, Instant, Invariant, Kinds, NodeId, Record};
use std::collections::BTreeMap;

/// Who holds which version of each key, and what was confirmed: built from notes.
#[derive(Clone, Debug, Default)]
pub struct Ledger {
    acked: BTreeMap<String, u64>,
    /// key -> (node, hinted) -> version.
    copies: BTreeMap<String, BTreeMap<(String, bool), u64>>,
}

impl Ledger {
    /// Reads one note.
    pub fn observe(&mut self, note: &RingNote) {
        match note {
            RingNote::Acked { key, version, .. } => {
                let a = self.acked.entry(key.clone()).or_default();
                *a = (*a).max(*version);
            }
            RingNote::Stored {
                key,
                version,
                node,
                hinted,
                ..
            } => {
                let copies = self.copies.entry(key.clone()).or_default();
                copies.insert((node.clone(), *hinted), *version);
            }
            RingNote::Deleted { key, node, .. } => {
                if let Some(c) = self.copies.get_mut(key) {
                    c.remove(&(node.clone(), false));
                }
            }
            RingNote::HintDelivered { key, standin, .. } => {
                if let Some(c) = self.copies.get_mut(key) {
                    c.remove(&(standin.clone(), true));
                }
            }
            _ => {}
        }
    }

    /// The newest version confirmed for `key` (0: none).
    pub fn acked(&self, key: &str) -> u64 {
        self.acked.get(key).copied().unwrap_or(0)
    }

    /// The newest version any node holds for `key`, home copy or hint.
    pub fn newest(&self, key: &str) -> u64 {
        self.copies
            .get(key)
            .and_then(|c| c.values().max().copied())
            .unwrap_or(0)
    }

    /// The version `node` holds as a home copy (0: none).
    pub fn at(&self, key: &str, node: &str) -> u64 {
        self.copies
            .get(key)
            .and_then(|c| c.get(&(node.to_string(), false)).copied())
            .unwrap_or(0)
    }

    /// Confirmed keys and versions, in key order.
    pub fn confirmed(&self) -> impl Iterator<Item = (&String, &u64)> {
        self.acked.iter()
    }

    fn lost(&self, key: &str) -> Option<Broken> {
        let (acked, newest) = (self.acked(key), self.newest(key));
        (newest < acked).then(|| {
            broke(
                format!(
                    "{key} v{acked} was confirmed, but the newest copy any node holds is v{newest}"
                ),
                format!(
                    "{key} v{acked} fue confirmada, pero la copia más nueva que guarda algún nodo es v{newest}"
                ),
            )
        })
    }
}

fn note(record: &Record<RingNode>) -> Option<&RingNote> {
    match &record.event {
        Event::Note { note, .. } => Some(note),
        _ => None,
    }
}

/// A confirmed write stays held by some node.
#[derive(Clone, Debug, Default)]
pub struct NoAckedWriteLost {
    ledger: Ledger,
    /// (key, version) -> the value confirmed under it.
    values: BTreeMap<(String, u64), String>,
    /// (key, version) of writes that started at or below a confirmed version of their key.
    shadowed: BTreeMap<(String, u64), u64>,
}

impl Invariant<RingNode> for NoAckedWriteLost {
    fn name(&self) -> &'static str {
        "no-acked-write-lost"
    }
    fn reads(&self) -> Kinds {
        Kinds::NOTE
    }
    fn observe(&mut self, record: &Record<RingNode>) -> Result<(), Broken> {
        let Some(n) = note(record) else { return Ok(()) };
        if let RingNote::WriteStarted { key, version, .. } = n {
            let acked = self.ledger.acked(key);
            if *version <= acked {
                self.shadowed.insert((key.clone(), *version), acked);
            }
        }
        if let RingNote::Acked {
            key,
            version,
            value,
            ..
        } = n
            && let Some(above) = self.shadowed.remove(&(key.clone(), *version))
        {
            return Err(broke(
                format!(
                    "{key} v{version} '{value}' was confirmed, but v{above} was confirmed before it started: the newer version shadows it and no read will return it"
                ),
                format!(
                    "{key} v{version} '{value}' fue confirmada, pero v{above} se confirmó antes de que empezara: la versión más nueva la oculta y ninguna lectura la devolverá"
                ),
            ));
        }
        if let RingNote::Acked {
            key,
            version,
            value,
            ..
        } = n
            && let Some(first) = self.values.insert((key.clone(), *version), value.clone())
            && first != *value
        {
            return Err(broke(
                format!(
                    "{key} v{version} was confirmed twice with different values ('{first}', then '{value}'): replicas keep whichever reached them first, so one confirmed write is lost"
                ),
                format!(
                    "{key} v{version} se confirmó dos veces con valores distintos ('{first}' y después '{value}'): cada réplica guarda el que le llegó antes, así que se pierde una escritura confirmada"
                ),
            ));
        }
        self.ledger.observe(n);
        if let RingNote::Deleted { key, node, .. } = n
            && let Some(why) = self.ledger.lost(key)
        {
            return Err(broke(
                format!("{} ({node} dropped the last copy)", why.text),
                format!("{} ({node} borró la última copia)", why.text_in("es")),
            ));
        }
        Ok(())
    }
    fn finish(&mut self, _end: Instant) -> Result<(), Broken> {
        let lost: Vec<Broken> = self
            .ledger
            .confirmed()
            .filter_map(|(k, _)| self.ledger.lost(k))
            .collect();
        if lost.is_empty() {
            Ok(())
        } else {
            Err(broke_all(lost))
        }
    }
}

/// A read returns at least the newest version confirmed before it started.
#[derive(Clone, Debug, Default)]
pub struct ReadYourLatestAck {
    acked: BTreeMap<String, u64>,
    /// (key, version) -> the value confirmed under it.
    values: BTreeMap<(String, u64), String>,
    /// (coordinating node, request) -> the floor: storage nodes number their requests too.
    started: BTreeMap<(String, u64), u64>,
}

impl Invariant<RingNode> for ReadYourLatestAck {
    fn name(&self) -> &'static str {
        "read-your-latest-ack"
    }
    fn reads(&self) -> Kinds {
        Kinds::NOTE
    }
    fn observe(&mut self, record: &Record<RingNode>) -> Result<(), Broken> {
        let node = match &record.event {
            Event::Note { node, .. } => node.to_string(),
            _ => String::new(),
        };
        match note(record) {
            Some(RingNote::Acked {
                key,
                version,
                value,
                ..
            }) => {
                let a = self.acked.entry(key.clone()).or_default();
                *a = (*a).max(*version);
                self.values
                    .entry((key.clone(), *version))
                    .or_insert_with(|| value.clone());
            }
            Some(RingNote::ReadStarted { req, key }) => {
                let floor = self.acked.get(key).copied().unwrap_or(0);
                self.started.insert((node, *req), floor);
            }
            Some(RingNote::ReadResult {
                req,
                key,
                version,
                value,
                from,
            }) => {
                let floor = self.started.remove(&(node, *req)).unwrap_or(0);
                if let Some(acked) = self.values.get(&(key.clone(), *version))
                    && acked != value
                {
                    let from = from.join(", ");
                    return Err(broke(
                        format!(
                            "{key} v{version} was confirmed as '{acked}', but a read returned v{version} '{value}' (from {from})"
                        ),
                        format!(
                            "{key} v{version} se confirmó como '{acked}', pero una lectura devolvió v{version} '{value}' (de {from})"
                        ),
                    ));
                }
                if *version < floor {
                    let from = from.join(", ");
                    return Err(broke(
                        format!(
                            "stale read: {key} v{floor} was confirmed before the read started, but the read returned v{version} (from {from})"
                        ),
                        format!(
                            "lectura obsoleta: {key} v{floor} se confirmó antes de empezar la lectura, pero la lectura devolvió v{version} (de {from})"
                        ),
                    ));
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// After a rebalance, every confirmed key has RF distinct homes and one of them holds it.
#[derive(Clone, Debug)]
pub struct OwnershipTotal {
    map: Map,
    names: Vec<String>,
    rf: usize,
    pending: Option<Change>,
    ledger: Ledger,
}

impl OwnershipTotal {
    /// The checker for `config`'s initial map.
    pub fn new(config: &RingConfig) -> OwnershipTotal {
        OwnershipTotal {
            map: Map::initial(config),
            names: config.names(),
            rf: config.rf as usize,
            pending: None,
            ledger: Ledger::default(),
        }
    }
}

impl Invariant<RingNode> for OwnershipTotal {
    fn name(&self) -> &'static str {
        "ownership-total"
    }
    fn reads(&self) -> Kinds {
        Kinds::NOTE
    }
    fn observe(&mut self, record: &Record<RingNode>) -> Result<(), Broken> {
        let Some(n) = note(record) else { return Ok(()) };
        self.ledger.observe(n);
        match n {
            RingNote::Split { at, to, .. } => {
                let Some(pos) = self.names.iter().position(|x| x == to) else {
                    return Err(broke(
                        format!("a range split to unknown node {to}"),
                        format!("un rango se dividió hacia un nodo desconocido, {to}"),
                    ));
                };
                self.pending = Some(Change::Split {
                    at: *at,
                    to: NodeId(pos as u32),
                });
            }
            RingNote::OwnershipChanged { change, .. } if change.starts_with("split") => {}
            RingNote::OwnershipChanged { change, node, .. } => {
                let Some(pos) = self.names.iter().position(|x| x == node) else {
                    return Err(broke(
                        format!("ownership changed for unknown node {node}"),
                        format!("cambió la propiedad de un nodo desconocido, {node}"),
                    ));
                };
                let id = NodeId(pos as u32);
                self.pending = Some(if change.starts_with("join") {
                    Change::Join(id)
                } else {
                    Change::Leave(id)
                });
            }
            RingNote::RebalanceDone { epoch, .. } => {
                if let Some(change) = self.pending.take() {
                    self.map.apply(change);
                }
                for (key, &version) in self.ledger.confirmed() {
                    let homes = self.map.homes(key);
                    let mut distinct = homes.clone();
                    distinct.sort();
                    distinct.dedup();
                    if distinct.len() != self.rf || !homes.iter().all(|h| self.map.is_member(*h)) {
                        let (homes, rf) = (distinct.len(), self.rf);
                        return Err(broke(
                            format!(
                                "after epoch {epoch}, {key} has {homes} distinct home replicas on the ring, not RF = {rf}"
                            ),
                            format!(
                                "tras la época {epoch}, {key} tiene {homes} réplicas propias distintas en el anillo, no RF = {rf}"
                            ),
                        ));
                    }
                    let held = homes
                        .iter()
                        .any(|h| self.ledger.at(key, &self.names[h.index()]) >= version);
                    if !held {
                        let names: Vec<&str> = homes
                            .iter()
                            .map(|h| self.names[h.index()].as_str())
                            .collect();
                        let names = names.join(", ");
                        return Err(broke(
                            format!(
                                "after epoch {epoch}, none of {key}'s homes ({names}) holds its confirmed v{version}"
                            ),
                            format!(
                                "tras la época {epoch}, ninguna de las réplicas de {key} ({names}) guarda su v{version} confirmada"
                            ),
                        ));
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// At the end, no hint is kept that its home acknowledged, or that a stand-in up for the grace
/// period has stopped trying to hand over.
#[derive(Clone, Debug)]
pub struct HintsDelivered {
    grace_ms: u64,
    /// (stand-in, key) -> home, from `HintSent`.
    sent: BTreeMap<(String, String), String>,
    /// (stand-in, home, key) -> (version, time kept).
    held: BTreeMap<(String, String, String), (u64, Instant)>,
    /// (stand-in, home, key) -> when the stand-in last sent a `Handoff` of it.
    tried: BTreeMap<(String, String, String), Instant>,
    /// (stand-in, home, key) -> the newest version a delivered `HandoffAck` acknowledged.
    acked: BTreeMap<(String, String, String), u64>,
    /// Message id -> (home, stand-in, key, version) of `HandoffAck`s sent.
    acks_sent: BTreeMap<u64, (String, String, String, u64)>,
    /// node -> up (not crashed, not paused) since; None: down now.
    up_since: BTreeMap<String, Option<Instant>>,
}

impl HintsDelivered {
    /// The checker for `config`: a stand-in up for 3 handoff retries plus 2 timeouts must have
    /// tried within that time.
    pub fn new(config: &RingConfig) -> HintsDelivered {
        HintsDelivered {
            grace_ms: 3 * config.hint_retry_ms + 2 * config.rpc_timeout_ms,
            sent: BTreeMap::new(),
            held: BTreeMap::new(),
            tried: BTreeMap::new(),
            acked: BTreeMap::new(),
            acks_sent: BTreeMap::new(),
            up_since: BTreeMap::new(),
        }
    }

    fn note(&mut self, note: &RingNote, time: Instant) {
        match note {
            RingNote::HintSent {
                key, home, standin, ..
            } => {
                self.sent
                    .insert((standin.clone(), key.clone()), home.clone());
            }
            RingNote::Stored {
                key,
                version,
                node,
                hinted: true,
                ..
            } => {
                if let Some(home) = self.sent.get(&(node.clone(), key.clone())) {
                    let slot = (node.clone(), home.clone(), key.clone());
                    self.held.insert(slot, (*version, time));
                }
            }
            RingNote::HintDelivered {
                key,
                version,
                home,
                standin,
            } => {
                let slot = (standin.clone(), home.clone(), key.clone());
                if self.held.get(&slot).is_some_and(|(v, _)| v <= version) {
                    self.held.remove(&slot);
                }
            }
            _ => {}
        }
    }
}

impl Invariant<RingNode> for HintsDelivered {
    fn name(&self) -> &'static str {
        "hints-delivered"
    }
    /// Everything but the message ids of the acks in flight (names, not facts: two runs
    /// reaching one state number their messages differently): their contents, as a multiset.
    fn memory(&self, state: &mut dyn std::hash::Hasher) {
        let mut acks: Vec<&(String, String, String, u64)> = self.acks_sent.values().collect();
        acks.sort();
        sim_core::check::hash_memory(
            &(
                self.grace_ms,
                &self.sent,
                &self.held,
                &self.tried,
                &self.acked,
                acks,
                &self.up_since,
            ),
            state,
        );
    }
    fn observe(&mut self, record: &Record<RingNode>) -> Result<(), Broken> {
        let now = record.time;
        match &record.event {
            Event::Fault {
                fault: Fault::Crash(n) | Fault::Pause(n),
            } => {
                self.up_since.insert(n.to_string(), None);
            }
            Event::Fault {
                fault: Fault::Restart(n) | Fault::Resume(n),
            } => {
                self.up_since.insert(n.to_string(), Some(now));
            }
            Event::Send { id, from, to, msg } => match msg {
                RingMsg::Handoff { key, .. } => {
                    let slot = (from.to_string(), to.to_string(), key.clone());
                    self.tried.insert(slot, now);
                }
                RingMsg::HandoffAck { key, version } => {
                    let ack = (from.to_string(), to.to_string(), key.clone(), *version);
                    self.acks_sent.insert(id.0, ack);
                }
                _ => {}
            },
            Event::Deliver { id, .. } => {
                if let Some((home, standin, key, version)) = self.acks_sent.remove(&id.0) {
                    let v = self.acked.entry((standin, home, key)).or_default();
                    *v = (*v).max(version);
                }
            }
            Event::Note { note, .. } => self.note(note, now),
            _ => {}
        }
        Ok(())
    }
    fn finish(&mut self, end: Instant) -> Result<(), Broken> {
        let late = |t: Instant| end.saturating_since(t).as_millis() >= self.grace_ms;
        let mut overdue = Vec::new();
        for (slot, &(v, kept)) in &self.held {
            let (standin, home, key) = slot;
            if self.acked.get(slot).is_some_and(|&a| a >= v) {
                overdue.push(broke(
                    format!(
                        "{standin} still holds the hint {key} v{v} for {home}, which acknowledged it"
                    ),
                    format!(
                        "{standin} aún guarda el hint {key} v{v} para {home}, que ya lo confirmó"
                    ),
                ));
                continue;
            }
            let up = self
                .up_since
                .get(standin)
                .copied()
                .unwrap_or(Some(Instant::ZERO));
            let idle = self.tried.get(slot).is_none_or(|&t| late(t));
            if up.is_some_and(late) && late(kept) && idle {
                let grace = self.grace_ms;
                overdue.push(broke(
                    format!(
                        "{standin} holds the hint {key} v{v} for {home} and has not tried to hand it over for {grace} ms while up"
                    ),
                    format!(
                        "{standin} guarda el hint {key} v{v} para {home} y lleva {grace} ms activo sin intentar entregarlo"
                    ),
                ));
            }
        }
        if overdue.is_empty() {
            Ok(())
        } else {
            Err(broke_all(overdue))
        }
    }
}
