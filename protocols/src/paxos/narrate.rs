//! The story of a Paxos run, one short line per record, in English or in the lesson's Spanish.
//!
//! Lines follow the lesson's printout (`[relay-2] fase 2: un acceptor ya aceptó (11, 'relay-1'):
//! ADOPTO 'relay-1' y abandono 'relay-2'`, `ELEGIDO 'relay-1' con n=12 (3 de 3)`, `accept a a2
//! PERDIDO`). Notes and lost Paxos messages are told here; every other record (sends,
//! deliveries, faults, timers) is left to the generic narrator.

use crate::paxos::PaxosNode;
use crate::paxos::msg::{PaxosMsg, Proposal};
use crate::paxos::notes::PaxosNote;
use sim_core::{Event, Message, Record};
use std::collections::{BTreeMap, BTreeSet};
use traces::Lang;

fn proposal(p: &Option<Proposal>, lang: Lang) -> String {
    match (p, lang) {
        (Some((n, v)), Lang::En) => format!("already accepted ({n}, '{v}')"),
        (Some((n, v)), Lang::Es) => format!("ya aceptado ({n}, '{v}')"),
        (None, Lang::En) => "nothing accepted".into(),
        (None, Lang::Es) => "nada aceptado".into(),
    }
}

/// "phase 2 failed: 1 accepted < majority 2", in the lesson's words for `lang`.
fn phase_failed(phase: u8, got: u32, needed: u32, retry_in_ms: Option<u64>, lang: Lang) -> String {
    let (failed, what, majority, retry) = match (lang, phase) {
        (Lang::En, 1) => ("phase 1 failed", "promises", "majority", "retry in"),
        (Lang::En, _) => ("phase 2 failed", "accepted", "majority", "retry in"),
        (Lang::Es, 1) => ("fase 1 fallida", "promesas", "mayoría", "reintento en"),
        (Lang::Es, _) => ("fase 2 fallida", "aceptados", "mayoría", "reintento en"),
    };
    let retry = retry_in_ms.map_or(String::new(), |ms| format!("; {retry} {ms} ms"));
    format!("{failed}: {got} {what} < {majority} {needed}{retry}")
}

/// "phase 1 abandoned for a new round (1 promises, majority 2)", in the lesson's words.
fn abandoned(phase: u8, n: u64, got: u32, needed: u32, lang: Lang) -> String {
    match (lang, phase) {
        (Lang::En, 1) => format!(
            "phase 1 of n={n} abandoned for a new round ({got} promises, majority {needed})"
        ),
        (Lang::En, _) => format!(
            "phase 2 of n={n} abandoned for a new round ({got} accepted, majority {needed})"
        ),
        (Lang::Es, 1) => format!(
            "fase 1 de n={n} abandonada por una ronda nueva ({got} promesas, mayoría {needed})"
        ),
        (Lang::Es, _) => format!(
            "fase 2 de n={n} abandonada por una ronda nueva ({got} aceptados, mayoría {needed})"
        ),
    }
}

/// The line for one note of `node`.
fn note_line(node: &str, note: &PaxosNote, lang: Lang) -> String {
    use PaxosNote as N;
    let text = match (note, lang) {
        (N::Preparing { n, value }, Lang::En) => {
            format!("phase 1: prepare(n={n}) wanting to propose '{value}'")
        }
        (N::Preparing { n, value }, Lang::Es) => {
            format!("fase 1: prepare(n={n}) queriendo proponer '{value}'")
        }
        (N::Promised { n, accepted }, Lang::En) => {
            format!("promised n={n}, {}", proposal(accepted, lang))
        }
        (N::Promised { n, accepted }, Lang::Es) => {
            format!("prometido n={n}, {}", proposal(accepted, lang))
        }
        (N::Nacked { n, promised }, Lang::En) => format!("nack n={n}: already promised {promised}"),
        (N::Nacked { n, promised }, Lang::Es) => format!("nack n={n}: ya prometido {promised}"),
        (N::Accepted { n, value }, Lang::En) => format!("accepted ({n}, '{value}')"),
        (N::Accepted { n, value }, Lang::Es) => format!("aceptado ({n}, '{value}')"),
        (
            N::Adopted {
                value,
                from_n,
                gave_up,
                ..
            },
            Lang::En,
        ) => format!("ADOPTS '{value}' (accepted at n={from_n}) and gives up '{gave_up}'"),
        (
            N::Adopted {
                value,
                from_n,
                gave_up,
                ..
            },
            Lang::Es,
        ) => format!(
            "fase 2: un acceptor ya aceptó ({from_n}, '{value}'): ADOPTO '{value}' y abandono '{gave_up}'"
        ),
        (N::Proposed { n, value }, Lang::En) => format!("phase 2: accept(n={n}, '{value}')"),
        (N::Proposed { n, value }, Lang::Es) => format!("fase 2: accept(n={n}, '{value}')"),
        (
            N::PhaseFailed {
                phase,
                got,
                needed,
                retry_in_ms,
                ..
            },
            _,
        ) => phase_failed(*phase, *got, *needed, *retry_in_ms, lang),
        (
            N::Abandoned {
                phase,
                n,
                got,
                needed,
            },
            _,
        ) => abandoned(*phase, *n, *got, *needed, lang),
        (
            N::Chosen {
                n,
                value,
                accepts,
                of,
            },
            Lang::En,
        ) => format!("CHOSEN '{value}' with n={n} ({accepts} of {of})"),
        (
            N::Chosen {
                n,
                value,
                accepts,
                of,
            },
            Lang::Es,
        ) => format!("ELEGIDO '{value}' con n={n} ({accepts} de {of})"),
    };
    format!("[{node}] {text}")
}

/// The course-style line for `record`, or `None` for what the generic narrator tells.
pub fn narrate(record: &Record<PaxosNode>, lang: Lang) -> Option<String> {
    match &record.event {
        Event::Note { node, note } => Some(note_line(node, note, lang)),
        Event::Drop {
            from, to, msg_kind, ..
        } if PaxosMsg::KINDS.contains(&msg_kind.as_ref()) => {
            let kind = msg_kind.to_lowercase();
            Some(match lang {
                Lang::En => format!("[{from}] {kind} to {to} LOST"),
                Lang::Es => format!("[{from}] {kind} a {to} PERDIDO"),
            })
        }
        _ => None,
    }
}

/// The learners' `Chosen` notes that repeat a decision: each proposal number's choice is told
/// once, in the lesson's counting. The proposer of round n tells it ("CHOSEN ... (3 of 3)" when
/// its phase 2 ends); only if it never does (its replies lost, or it crashed) does the first
/// learner that counted a majority tell it instead.
pub fn retold(records: &[Record<PaxosNode>]) -> BTreeSet<usize> {
    let mut proposer_of: BTreeMap<u64, &str> = BTreeMap::new();
    let mut chosen: Vec<(usize, u64, &str)> = Vec::new();
    for (index, record) in records.iter().enumerate() {
        if let Event::Note { node, note } = &record.event {
            match note {
                PaxosNote::Proposed { n, .. } => {
                    proposer_of.insert(*n, node.as_ref());
                }
                PaxosNote::Chosen { n, .. } => chosen.push((index, *n, node.as_ref())),
                _ => {}
            }
        }
    }
    let by_proposer: BTreeSet<u64> = chosen
        .iter()
        .filter(|(_, n, node)| proposer_of.get(n) == Some(node))
        .map(|(_, n, _)| *n)
        .collect();
    let mut told: BTreeSet<u64> = BTreeSet::new();
    let mut retold = BTreeSet::new();
    for (index, n, node) in chosen {
        let by_its_proposer = proposer_of.get(&n) == Some(&node);
        if by_its_proposer || (!by_proposer.contains(&n) && told.insert(n)) {
            continue;
        }
        retold.insert(index);
    }
    retold
}

/// The events PX-1..3 are about: a value adopted from a promise, a value chosen.
pub fn is_key(record: &Record<PaxosNode>) -> bool {
    matches!(
        &record.event,
        Event::Note {
            note: PaxosNote::Adopted { .. } | PaxosNote::Chosen { .. },
            ..
        }
    )
}
