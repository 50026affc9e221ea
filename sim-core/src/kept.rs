//! The records a run keeps for its end, while every other record streams past.
//!
//! A run's expectation checks and figures read a run's facts (notes, faults, commands), not
//! the sends, deliveries and timers that make up nearly every step. [`KeptRecords`] keeps what
//! the protocol asks for ([`Protocol::keeps`]) and, for each message kept, its fate and its
//! receiver's replies, so what a long run holds in memory grows with its facts, not with its
//! length (a three-node Raft cluster heartbeating for ten million steps keeps a few dozen
//! records).

use crate::actor::Actor;
use crate::id::{MsgId, Name};
use crate::protocol::Protocol;
use crate::trace::{Event, Record};
use std::collections::BTreeMap;

/// The records of a run that its end reads, gathered as the run streams them.
#[derive(Clone, Debug)]
pub struct KeptRecords<A: Actor> {
    records: Vec<Record<A>>,
    /// Kept messages still in flight, with how many copies of each are (a duplicate is one
    /// more); a message leaves when its last copy is delivered or dropped.
    in_flight: BTreeMap<MsgId, u32>,
    /// The receiver and step of the last kept delivery: what it sends in that step answers a
    /// kept message, and is kept too.
    answering: Option<(Name, u64)>,
}

impl<A: Actor> Default for KeptRecords<A> {
    fn default() -> Self {
        KeptRecords {
            records: Vec::new(),
            in_flight: BTreeMap::new(),
            answering: None,
        }
    }
}

impl<A: Actor> KeptRecords<A> {
    /// Looks at the run's next record and keeps a copy if protocol `P` reads it at the end.
    pub fn observe<P: Protocol<Actor = A>>(&mut self, record: &Record<A>) {
        if self.wants::<P>(record) {
            self.records.push(record.clone());
        }
    }

    fn wants<P: Protocol<Actor = A>>(&mut self, record: &Record<A>) -> bool {
        match &record.event {
            Event::Send { id, from, .. } => {
                let reply = self
                    .answering
                    .as_ref()
                    .is_some_and(|(node, step)| node == from && *step == record.step);
                let kept = reply || P::keeps(record);
                if kept {
                    *self.in_flight.entry(*id).or_insert(0) += 1;
                }
                kept
            }
            Event::Duplicate { id, .. } => match self.in_flight.get_mut(id) {
                Some(copies) => {
                    *copies += 1;
                    true
                }
                None => P::keeps(record),
            },
            Event::Deliver { id, to, .. } | Event::Drop { id, to, .. } => {
                let Some(copies) = self.in_flight.get_mut(id) else {
                    return P::keeps(record);
                };
                *copies = copies.saturating_sub(1);
                if *copies == 0 {
                    self.in_flight.remove(id);
                }
                if matches!(record.event, Event::Deliver { .. }) {
                    self.answering = Some((to.clone(), record.step));
                }
                true
            }
            _ => P::keeps(record),
        }
    }

    /// The records kept so far, in the run's order.
    pub fn records(&self) -> &[Record<A>] {
        &self.records
    }

    /// The records kept, for the run's end.
    pub fn into_records(self) -> Vec<Record<A>> {
        self.records
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Outcome;
    use crate::testing::{Counter, Ping};
    use crate::time::Instant;
    use crate::{Invariant, NodeId};
    use std::borrow::Cow;

    /// Keeps, besides the facts, the messages sent to node "b".
    struct ToB;

    impl Protocol for ToB {
        const NAME: &'static str = "to-b";
        const ABOUT: &'static str = "keeps what goes to b";
        type Actor = Counter;
        type Config = ();
        type Expect = ();
        fn nodes(_: &()) -> Vec<String> {
            vec!["a".into(), "b".into(), "c".into()]
        }
        fn build(_: &(), _: NodeId) -> Counter {
            Counter(0)
        }
        fn invariants(_: &()) -> Vec<Box<dyn Invariant<Counter>>> {
            Vec::new()
        }
        fn check(_: &(), _: &(), _: &Outcome<'_, Counter>) -> Result<String, String> {
            Ok(String::new())
        }
        fn keeps(record: &Record<Counter>) -> bool {
            match &record.event {
                Event::Send { to, .. } => &**to == "b",
                Event::Note { .. } => true,
                _ => false,
            }
        }
    }

    fn at(step: u64, event: Event<Counter>) -> Record<Counter> {
        Record {
            step,
            time: Instant::ZERO,
            event,
        }
    }

    fn send(step: u64, id: u64, from: &str, to: &str) -> Record<Counter> {
        at(
            step,
            Event::Send {
                id: MsgId(id),
                from: Name::from(from),
                to: Name::from(to),
                msg: Ping,
            },
        )
    }

    fn deliver(step: u64, id: u64, from: &str, to: &str) -> Record<Counter> {
        at(
            step,
            Event::Deliver {
                id: MsgId(id),
                from: Name::from(from),
                to: Name::from(to),
                msg_kind: Cow::Borrowed("Ping"),
            },
        )
    }

    // Goal: a run keeps what its end reads and drops the rest. Method: hand-made records of
    // a protocol that keeps sends to b: two sends, one to b, its duplicate, both copies'
    // deliveries, b's reply in the delivery's step and a later send of b's, and a note.
    // Proves: the protocol's own choice, a kept message's fate (each copy) and the reply are
    // kept; the other message, its delivery and a send in a later step are not.
    #[test]
    fn a_run_keeps_its_facts_and_the_fates_and_replies_of_kept_messages() {
        let records = [
            send(1, 1, "a", "b"),
            send(1, 2, "a", "c"),
            at(
                1,
                Event::Duplicate {
                    id: MsgId(1),
                    from: Name::from("a"),
                    to: Name::from("b"),
                    msg_kind: Cow::Borrowed("Ping"),
                    delay: crate::Duration::from_millis(1),
                },
            ),
            deliver(2, 2, "a", "c"),
            deliver(3, 1, "a", "b"),
            send(3, 3, "b", "a"),
            deliver(4, 1, "a", "b"),
            send(5, 4, "b", "c"),
            deliver(6, 3, "b", "a"),
            at(
                7,
                Event::Note {
                    node: Name::from("a"),
                    note: (),
                },
            ),
        ];
        let mut kept = KeptRecords::default();
        for r in &records {
            kept.observe::<ToB>(r);
        }
        let what: Vec<(u64, &str, Option<u64>)> = kept
            .records()
            .iter()
            .map(|r| (r.step, r.event.kind_name(), r.event.msg_id().map(|m| m.0)))
            .collect();
        assert_eq!(
            what,
            [
                (1, "send", Some(1)),
                (1, "duplicate", Some(1)),
                (3, "deliver", Some(1)),
                (3, "send", Some(3)),
                (4, "deliver", Some(1)),
                (6, "deliver", Some(3)),
                (7, "note", None),
            ]
        );
        assert!(kept.in_flight.is_empty(), "{:?}", kept.in_flight);
    }
}
