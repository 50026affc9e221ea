//! The story of a Multi-Paxos run, one short line per note, in English or in the course's
//! Spanish, and its closing figures: how many times phase 1 ran and what each entry cost.
//!
//! Lines follow single-decree Paxos's story (`fase 1: prepare(...)`, `ELEGIDO`, `ADOPTO`), with
//! the log's words: an entry, the leader, its commit point, catching up.

use crate::kvstore::{answer_words, request_words};
use crate::linearizability::KvOp;
use crate::multipaxos::MultiPaxosNode;
use crate::multipaxos::msg::MultiPaxosMsg;
use crate::multipaxos::notes::{MultiPaxosNote, Source};
use sim_core::{Event, Message, Record};
use std::collections::BTreeSet;
use traces::Lang;

/// The line for one note of `node`.
fn note_line(node: &str, note: &MultiPaxosNote, lang: Lang) -> String {
    use MultiPaxosNote as N;
    let en = lang == Lang::En;
    let text = match note {
        N::Preparing { b, from } if en => {
            format!("phase 1: prepare(b={b}) for every entry from {from} on")
        }
        N::Preparing { b, from } => {
            format!("fase 1: prepare(b={b}) para todas las entradas desde la {from}")
        }
        N::Promised { b, reported: 0 } if en => format!("promised b={b}, nothing accepted"),
        N::Promised { b, reported: 0 } => format!("prometido b={b}, nada aceptado"),
        N::Promised { b, reported } if en => {
            format!("promised b={b}, reporting {reported} accepted entries")
        }
        N::Promised { b, reported } => {
            format!("prometido b={b}, informa de {reported} entradas aceptadas")
        }
        N::Nacked { b, promised } if en => format!("nack b={b}: already promised {promised}"),
        N::Nacked { b, promised } => format!("nack b={b}: ya prometido {promised}"),
        N::Leading {
            b,
            promises,
            of,
            from,
        } if en => format!(
            "LEADER with b={b} ({promises} of {of} promises): phase 1 done for every entry from \
             {from} on; from now on, only phase 2 per entry"
        ),
        N::Leading {
            b,
            promises,
            of,
            from,
        } => format!(
            "LÍDER con b={b} ({promises} de {of} promesas): fase 1 hecha para todas las entradas \
             desde la {from}; a partir de ahora, solo fase 2 por entrada"
        ),
        N::Recovered {
            slot,
            value,
            from_b,
            ..
        } if en => format!(
            "entry {slot} was open: ADOPTS '{value}' (accepted at b={from_b}) and proposes it again"
        ),
        N::Recovered {
            slot,
            value,
            from_b,
            ..
        } => format!(
            "la entrada {slot} estaba abierta: ADOPTO '{value}' (aceptado con b={from_b}) y lo vuelvo a proponer"
        ),
        N::Proposed { b, slot, value } if en => {
            format!("phase 2: accept(b={b}, entry {slot}, '{value}')")
        }
        N::Proposed { b, slot, value } => {
            format!("fase 2: accept(b={b}, entrada {slot}, '{value}')")
        }
        N::Accepted { b, slot, value } if en => {
            format!("accepted entry {slot} = '{value}' (b={b})")
        }
        N::Accepted { b, slot, value } => format!("aceptada entrada {slot} = '{value}' (b={b})"),
        N::Chosen { slot, value, how } => match (how, en) {
            (Source::Majority, true) => {
                format!("CHOSEN entry {slot} = '{value}' (a majority accepted)")
            }
            (Source::Majority, false) => {
                format!("ELEGIDA entrada {slot} = '{value}' (la mayoría aceptó)")
            }
            (Source::Commit, true) => {
                format!("learns entry {slot} = '{value}' is chosen (the leader's commit point)")
            }
            (Source::Commit, false) => format!(
                "sabe que la entrada {slot} = '{value}' está elegida (punto de commit del líder)"
            ),
            (Source::CatchUp, true) => {
                format!("CATCHES UP: entry {slot} = '{value}', sent by the leader")
            }
            (Source::CatchUp, false) => {
                format!("SE PONE AL DÍA: entrada {slot} = '{value}', enviada por el líder")
            }
        },
        N::Applied { slot, value } if en => format!("applies entry {slot}: '{value}'"),
        N::Applied { slot, value } => format!("aplica la entrada {slot}: '{value}'"),
        N::Preempted { b, by } if en => {
            format!("b={b} overtaken by b={by}: steps down and waits for the leader")
        }
        N::Preempted { b, by } => {
            format!("b={b} superado por b={by}: se retira y espera al líder")
        }
        N::PhaseFailed {
            promises, needed, ..
        } if en => format!("phase 1 failed: {promises} promises < majority {needed}"),
        N::PhaseFailed {
            promises, needed, ..
        } => format!("fase 1 fallida: {promises} promesas < mayoría {needed}"),
        N::Requested { .. } | N::Redirected { .. } | N::Retried { .. } | N::Acknowledged { .. } => {
            client_line(note, !en)
        }
    };
    format!("[{node}] {text}")
}

/// The lines of a key-value client: what it asks, where, and what it is told.
fn client_line(note: &MultiPaxosNote, es: bool) -> String {
    use MultiPaxosNote as N;
    match note {
        N::Requested { seq, server, op } => {
            let what = request_words(op.into(), es);
            if es {
                format!("pido a {server} {what} (petición {seq})")
            } else {
                format!("asks {server} to {what} (request {seq})")
            }
        }
        N::Redirected { from, to, .. } if es => {
            format!("{from} no es el líder y me remite a {to}")
        }
        N::Redirected { from, to, .. } => {
            format!("{from} is not the leader and redirects it to {to}")
        }
        N::Retried { seq, server } if es => {
            format!("sin respuesta a la petición {seq}, lo intento con {server}")
        }
        N::Retried { seq, server } => format!("no answer to request {seq}, trying {server}"),
        N::Acknowledged {
            seq,
            slot,
            server,
            answer,
        } => {
            let with = answer_words(answer, es);
            if es {
                format!("{server} confirma la petición {seq}{with}, aplicada en la entrada {slot}")
            } else {
                format!("{server} acknowledges request {seq}{with}, applied at entry {slot}")
            }
        }
        other => format!("{other:?}"),
    }
}

/// The course-style line for `record`, or `None` for what the generic narrator tells.
pub fn narrate(record: &Record<MultiPaxosNode>, lang: Lang) -> Option<String> {
    match &record.event {
        Event::Note { node, note } => Some(note_line(node, note, lang)),
        Event::Drop {
            from, to, msg_kind, ..
        } if MultiPaxosMsg::KINDS.contains(&msg_kind.as_ref()) => {
            let kind = msg_kind.to_lowercase();
            Some(match lang {
                Lang::En => format!("[{from}] {kind} to {to} LOST"),
                Lang::Es => format!("[{from}] {kind} a {to} PERDIDO"),
            })
        }
        _ => None,
    }
}

/// The events the lessons are about: a leader after phase 1, a recovered entry, an entry
/// chosen or caught up, a ballot overtaken; and a client's read or compare-and-set with its
/// answer (what a linearizability check is about).
pub fn is_key(record: &Record<MultiPaxosNode>) -> bool {
    if let Event::Note { note, .. } = &record.event {
        match note {
            MultiPaxosNote::Requested { op, .. } => return !matches!(op, KvOp::Put(..)),
            MultiPaxosNote::Acknowledged { answer, .. } => return !answer.is_written(),
            _ => {}
        }
    }
    matches!(
        &record.event,
        Event::Note {
            note: MultiPaxosNote::Leading { .. }
                | MultiPaxosNote::Recovered { .. }
                | MultiPaxosNote::Preempted { .. }
                | MultiPaxosNote::Chosen {
                    how: Source::Majority | Source::CatchUp,
                    ..
                },
            ..
        }
    )
}

/// The messages the closing figures count: phase 1's and phase 2's (a run keeps their sends).
pub fn counted(msg: &MultiPaxosMsg) -> bool {
    matches!(
        msg,
        MultiPaxosMsg::Prepare { .. }
            | MultiPaxosMsg::Promise { .. }
            | MultiPaxosMsg::Accept { .. }
            | MultiPaxosMsg::Accepted { .. }
    )
}

/// The run's figures: phase 1 runs and their messages, entries chosen and phase 2's messages
/// per entry (the lesson's "O(N): only phase 2 with a stable leader").
pub fn summary(records: &[Record<MultiPaxosNode>], lang: Lang) -> Vec<String> {
    let (mut phase_1, mut phase_1_msgs, mut phase_2_msgs) = (0u64, 0u64, 0u64);
    let mut entries = BTreeSet::new();
    for record in records {
        match &record.event {
            Event::Note {
                note: MultiPaxosNote::Preparing { .. },
                ..
            } => phase_1 += 1,
            Event::Note {
                note: MultiPaxosNote::Chosen { slot, .. },
                ..
            } => {
                entries.insert(*slot);
            }
            Event::Send { msg, .. } => match msg {
                MultiPaxosMsg::Prepare { .. } | MultiPaxosMsg::Promise { .. } => phase_1_msgs += 1,
                MultiPaxosMsg::Accept { .. } | MultiPaxosMsg::Accepted { .. } => phase_2_msgs += 1,
                _ => {}
            },
            _ => {}
        }
    }
    if phase_1 == 0 {
        return Vec::new();
    }
    let n = entries.len() as u64;
    let per = if n == 0 {
        String::new()
    } else {
        let each = phase_2_msgs as f64 / n as f64;
        match lang {
            Lang::En => format!(", {each:.1} an entry"),
            Lang::Es => format!(", {each:.1} por entrada"),
        }
    };
    let times = match (lang, phase_1) {
        (Lang::En, 1) => "once".to_string(),
        (Lang::En, k) => format!("{k} times"),
        (Lang::Es, 1) => "una vez".to_string(),
        (Lang::Es, k) => format!("{k} veces"),
    };
    vec![match lang {
        Lang::En => format!(
            "phase 1 ran {times} ({phase_1_msgs} prepare and promise messages); \
             {n} entries chosen with {phase_2_msgs} accept and accepted messages{per}"
        ),
        Lang::Es => format!(
            "la fase 1 se ejecutó {times} ({phase_1_msgs} mensajes prepare y promise); \
             {n} entradas elegidas con {phase_2_msgs} mensajes accept y accepted{per}"
        ),
    }]
}
