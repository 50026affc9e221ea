//! The story of a Raft run in the course's words, English or the lesson's Spanish.
//!
//! Lines follow the lesson's printout ("nodo-3: timeout, me presento en el término 1",
//! "nodo-2: DENIEGO voto a nodo-3 (su log (1,3) va por detrás del mío (1,5))", "nodo-1: LÍDER
//! del término 2 con 3 votos", "nodo-1: reconozco a nodo-2 como líder del término 4", "---
//! nodo-1 CAE ---"), and for replication the lesson's words ("confirmada (committed)", "el
//! log del líder es siempre la verdad"). Records the generic narrator tells well (sends,
//! deliveries, drops, other faults) and bookkeeping notes (Log, Started, TermChanged, Entries)
//! get `None`.

use crate::kvstore::{answer_words, request_words};
use crate::raft::log::{Entry, Write};
use crate::raft::node::RaftNode;
use crate::raft::notes::{DenyReason, RaftNote, StepDownCause};
use sim_core::{Event, Fault, Record};
use std::collections::{BTreeMap, BTreeSet};
use traces::Lang;

/// The story line of one record, or `None` to leave it to the generic narrator.
pub fn narrate(record: &Record<RaftNode>, lang: Lang) -> Option<String> {
    match &record.event {
        Event::Note { node, note } => note_line(node, note, lang),
        Event::Fault { fault } => fault_line(fault, lang),
        _ => None,
    }
}

fn fault_line(fault: &Fault, lang: Lang) -> Option<String> {
    let line = match (fault, lang) {
        (Fault::Pause(n) | Fault::Crash(n), Lang::Es) => format!("--- {n} CAE ---"),
        (Fault::Pause(n), Lang::En) => format!("--- {n} CRASHES (paused, keeping its state) ---"),
        (Fault::Crash(n), Lang::En) => format!("--- {n} CRASHES ---"),
        // The node's own `Resumed` note tells it, with what it believes.
        (Fault::Resume(_), _) => String::new(),
        (Fault::Restart(n), Lang::Es) => format!("--- {n} VUELVE ---"),
        (Fault::Restart(n), Lang::En) => format!("--- {n} RETURNS ---"),
        _ => return None,
    };
    Some(line)
}

/// The lesson's `--- nodo-1 VUELVE (cree seguir en el término 2) ---`.
fn resumed_line(node: &str, term: Option<u64>, es: bool) -> String {
    match (term, es) {
        (Some(t), true) => format!("--- {node} VUELVE (cree seguir en el término {t}) ---"),
        (None, true) => format!("--- {node} VUELVE ---"),
        (Some(t), false) => format!("--- {node} RETURNS (believing it is still in term {t}) ---"),
        (None, false) => format!("--- {node} RETURNS ---"),
    }
}

fn note_line(node: &str, note: &RaftNote, lang: Lang) -> Option<String> {
    let es = lang == Lang::Es;
    let line = match note {
        RaftNote::Log { .. }
        | RaftNote::Started { .. }
        | RaftNote::TermChanged { .. }
        | RaftNote::Entries { .. } => {
            return None;
        }
        RaftNote::Resumed { term, .. } => resumed_line(node, *term, es),
        RaftNote::BecameCandidate { term } if es => {
            format!("{node}: timeout, me presento en el término {term}")
        }
        RaftNote::BecameCandidate { term } => {
            format!("{node} times out and stands for election in term {term}")
        }
        RaftNote::VoteGranted { term, candidate } if es => {
            format!("{node}: concedo mi voto a {candidate} en el término {term}")
        }
        RaftNote::VoteGranted { term, candidate } => {
            format!("{node} grants its vote to {candidate} in term {term}")
        }
        RaftNote::VoteDenied {
            candidate, reason, ..
        } => deny_line(node, candidate, reason, es),
        RaftNote::BecameLeader { term, votes, .. } if es => {
            format!("{node}: LÍDER del término {term} con {votes} votos")
        }
        RaftNote::BecameLeader { term, votes, .. } => {
            format!("{node} is LEADER of term {term} with {votes} votes")
        }
        RaftNote::LateVote { voter, votes, .. } if es => {
            format!("{node}: llega tarde el voto de {voter} ({votes} votos)")
        }
        RaftNote::LateVote { voter, votes, .. } => {
            format!("{node} gets a late vote from {voter} ({votes} votes)")
        }
        RaftNote::SteppedDown {
            from_term,
            to_term,
            because,
        } => step_down_line(node, *from_term, *to_term, because, es),
        RaftNote::Recognised { leader, term } if es => {
            format!("{node}: reconozco a {leader} como líder del término {term}")
        }
        RaftNote::Recognised { leader, term } => {
            format!("{node} recognises {leader} as leader of term {term}")
        }
        RaftNote::RpcTimeout { peer, term } if es => {
            format!("{node}: timeout de RPC, {peer} no responde (término {term})")
        }
        RaftNote::RpcTimeout { peer, term } => {
            format!("{node}: RPC timeout, {peer} does not answer (term {term})")
        }
        RaftNote::Appended { .. }
        | RaftNote::Stored { .. }
        | RaftNote::Committed { .. }
        | RaftNote::Applied { .. }
        | RaftNote::SteppedBack { .. }
        | RaftNote::NotCommitted { .. }
        | RaftNote::Requested { .. }
        | RaftNote::Redirected { .. }
        | RaftNote::Retried { .. }
        | RaftNote::Acknowledged { .. } => return Some(replication_line(node, note, es)),
    };
    Some(line)
}

/// The lines of log replication, commit and the clients.
fn replication_line(node: &str, note: &RaftNote, es: bool) -> String {
    match note {
        RaftNote::Appended { index, entry } if es => {
            format!(
                "{node}: añado a mi log la entrada {index} ({})",
                entry_es(entry)
            )
        }
        RaftNote::Appended { index, entry } => {
            format!("{node} appends entry {index} ({entry}) to its log")
        }
        RaftNote::Stored {
            leader,
            kept,
            dropped,
            entries,
        } => stored_line(node, leader, *kept, *dropped, entries, es),
        RaftNote::Committed {
            index,
            term,
            by: None,
        } if es => format!(
            "{node}: CONFIRMO (commit) hasta la entrada {index}: está en una mayoría (término \
             {term})"
        ),
        RaftNote::Committed {
            index,
            term,
            by: None,
        } => format!("{node} COMMITS up to entry {index}: a majority holds it (term {term})"),
        RaftNote::Committed {
            index,
            by: Some(leader),
            ..
        } if es => {
            format!("{node}: {leader} me informa de que hasta la entrada {index} está confirmada")
        }
        RaftNote::Committed {
            index,
            by: Some(leader),
            ..
        } => format!("{node} learns from {leader} that entries up to {index} are committed"),
        RaftNote::Applied { first, entries } => applied_line(node, *first, entries, es),
        RaftNote::NotCommitted {
            index,
            entry_term,
            term,
        } if es => format!(
            "{node}: la entrada {index} está en una mayoría, pero es del término {entry_term}, no \
             del mío ({term}): no la confirmo contando réplicas"
        ),
        RaftNote::NotCommitted {
            index,
            entry_term,
            term,
        } => format!(
            "{node} does NOT commit entry {index}: a majority holds it, but it is of term \
             {entry_term}, not of its own term {term}"
        ),
        RaftNote::SteppedBack {
            follower,
            mismatch_at,
            next_index,
        } if es => format!(
            "{node}: el log de {follower} no casa en la entrada {mismatch_at}; retrocedo y le \
             envío desde la {next_index}"
        ),
        RaftNote::SteppedBack {
            follower,
            mismatch_at,
            next_index,
        } => format!(
            "{node}: {follower}'s log does not match at entry {mismatch_at}; stepping back to \
             send from entry {next_index}"
        ),
        RaftNote::Requested {
            seq,
            server,
            key,
            value,
            request,
        } => {
            let what = request_words(request.op(key, value), es);
            if es {
                format!("{node}: pido a {server} {what} (petición {seq})")
            } else {
                format!("{node} asks {server} to {what} (request {seq})")
            }
        }
        RaftNote::Redirected { from, to, .. } if es => {
            format!("{node}: {from} no es el líder y me remite a {to}")
        }
        RaftNote::Redirected { from, to, .. } => {
            format!("{node}: {from} is not the leader and redirects it to {to}")
        }
        RaftNote::Retried { seq, server } if es => {
            format!("{node}: sin respuesta a la petición {seq}, lo intento con {server}")
        }
        RaftNote::Retried { seq, server } => {
            format!("{node}: no answer to request {seq}, trying {server}")
        }
        RaftNote::Acknowledged {
            seq,
            index,
            server,
            answer,
        } => {
            let with = answer_words(answer, es);
            if es {
                format!(
                    "{node}: {server} confirma la petición {seq}{with}, aplicada en la entrada {index}"
                )
            } else {
                format!(
                    "{node}: {server} acknowledges request {seq}{with}, applied at entry {index}"
                )
            }
        }
        other => format!("{node}: {other:?}"),
    }
}

/// Applied entries: one in full, several as a span with the writes among them.
fn applied_line(node: &str, first: u64, entries: &[Entry], es: bool) -> String {
    let writes: Vec<String> = entries
        .iter()
        .filter_map(|e| e.write.as_ref())
        .map(Write::effect)
        .collect();
    let writes = match (writes.is_empty(), es) {
        (true, _) => String::new(),
        (false, true) => format!(": {}", writes.join(", ")),
        (false, false) => format!(": {}", writes.join(", ")),
    };
    match (entries.len(), es) {
        (1, true) => format!("{node}: aplico {}", span(first, entries, true)),
        (1, false) => format!("{node} applies {}", span(first, entries, false)),
        (_, true) => format!("{node}: aplico {}{writes}", span(first, entries, true)),
        (_, false) => format!("{node} applies {}{writes}", span(first, entries, false)),
    }
}

/// An entry in Spanish: `término 2, x=1 de c1`.
fn entry_es(entry: &Entry) -> String {
    match &entry.write {
        Some(w) => format!("término {}, {} de {}", entry.term, w.effect(), w.client),
        None => format!("término {}", entry.term),
    }
}

/// Entries `first..=last` in words: `entry 3 (t2 x=1 (c1#1))` or `entries 3-5`.
fn span(first: u64, entries: &[Entry], es: bool) -> String {
    let last = first.saturating_add(entries.len() as u64).saturating_sub(1);
    match (entries, es) {
        ([one], true) => format!("la entrada {first} ({})", entry_es(one)),
        ([one], false) => format!("entry {first} ({one})"),
        (_, true) => format!("las entradas {first} a {last}"),
        (_, false) => format!("entries {first}-{last}"),
    }
}

fn stored_line(
    node: &str,
    leader: &str,
    kept: u64,
    dropped: u64,
    entries: &[Entry],
    es: bool,
) -> String {
    let deleted = match (dropped, es) {
        (0, _) => String::new(),
        (1, true) => format!("borro la entrada {} ", kept.saturating_add(1)),
        (d, true) => format!(
            "borro las entradas {} a {} ",
            kept.saturating_add(1),
            kept.saturating_add(d)
        ),
        (1, false) => format!("deletes entry {} ", kept.saturating_add(1)),
        (d, false) => format!(
            "deletes entries {}-{} ",
            kept.saturating_add(1),
            kept.saturating_add(d)
        ),
    };
    match (entries.is_empty(), dropped > 0, es) {
        (true, _, true) => {
            format!("{node}: {deleted}de mi propio log, que aún no estaban confirmadas")
        }
        (true, _, false) => format!("{node} {deleted}of its own log, which were not committed"),
        (false, true, true) => format!(
            "{node}: {deleted}(no casan con el log de {leader}, que es la verdad) y guardo {}",
            span(kept.saturating_add(1), entries, true)
        ),
        (false, true, false) => format!(
            "{node} {deleted}({} with {leader}'s log) and stores {}",
            if dropped == 1 {
                "it conflicts"
            } else {
                "they conflict"
            },
            span(kept.saturating_add(1), entries, false)
        ),
        (false, false, true) => {
            format!(
                "{node}: guardo {} de {leader}",
                span(kept.saturating_add(1), entries, true)
            )
        }
        (false, false, false) => {
            format!(
                "{node} stores {} from {leader}",
                span(kept.saturating_add(1), entries, false)
            )
        }
    }
}

pub(crate) fn deny_line(node: &str, candidate: &str, reason: &DenyReason, es: bool) -> String {
    match (reason, es) {
        (DenyReason::LogBehind { theirs, mine }, true) => format!(
            "{node}: DENIEGO voto a {candidate} (su log {theirs} va por detrás del mío {mine})"
        ),
        (DenyReason::LogBehind { theirs, mine }, false) => format!(
            "{node} DENIES its vote to {candidate} (its log {theirs} is behind mine {mine})"
        ),
        // A candidate's vote went to itself: say so, not "I voted for nodo-1" of nodo-1.
        (DenyReason::AlreadyVoted { voted_for }, true) if voted_for == node => {
            format!("{node}: DENIEGO voto a {candidate} (ya me voté a mí mismo en este término)")
        }
        (DenyReason::AlreadyVoted { voted_for }, false) if voted_for == node => {
            format!("{node} DENIES its vote to {candidate} (it already voted for itself this term)")
        }
        (DenyReason::AlreadyVoted { voted_for }, true) => {
            format!("{node}: DENIEGO voto a {candidate} (ya voté a {voted_for} en este término)")
        }
        (DenyReason::AlreadyVoted { voted_for }, false) => format!(
            "{node} DENIES its vote to {candidate} (already voted for {voted_for} this term)"
        ),
        (DenyReason::StaleTerm { current_term }, true) => format!(
            "{node}: DENIEGO voto a {candidate} (su término es anterior al mío, {current_term})"
        ),
        (DenyReason::StaleTerm { current_term }, false) => format!(
            "{node} DENIES its vote to {candidate} (its term is older than mine, {current_term})"
        ),
    }
}

fn step_down_line(node: &str, from: u64, to: u64, because: &StepDownCause, es: bool) -> String {
    match (because, es) {
        (StepDownCause::HigherTerm { kind, from: sender }, true) => format!(
            "{node}: vuelvo a seguidor, {sender} trae el término {to} en {kind} (yo iba por el {from})"
        ),
        (StepDownCause::HigherTerm { kind, from: sender }, false) => format!(
            "{node} steps down: {kind} from {sender} carries term {to} (it was at term {from})"
        ),
        (StepDownCause::LeaderOfTerm { leader }, true) => {
            format!("{node}: vuelvo a seguidor, {leader} ya es líder del término {to}")
        }
        (StepDownCause::LeaderOfTerm { leader }, false) => {
            format!("{node} steps down: {leader} already leads term {to}")
        }
    }
}

/// The events RF-1 and RF-2 are about: a leader elected, a leader stepping down, a commit;
/// and what a key-value story is about: a read or a compare-and-set asked and answered.
pub fn is_key(record: &Record<RaftNode>) -> bool {
    let Event::Note { note, .. } = &record.event else {
        return false;
    };
    match note {
        RaftNote::BecameLeader { .. }
        | RaftNote::SteppedDown { .. }
        | RaftNote::Committed { .. } => true,
        RaftNote::Requested { request, .. } => !request.is_put(),
        RaftNote::Acknowledged { answer, .. } => !answer.is_written(),
        _ => false,
    }
}

/// The first candidacy of a term that follows a split vote, told with it: "votos divididos en
/// el término 2, nadie tuvo mayoría; nodo-3: timeout, me presento en el término 3". A term had
/// a split vote when two or more nodes stood in it and none became its leader (the lesson's
/// RF-2).
pub fn retell(records: &[Record<RaftNode>], lang: Lang) -> BTreeMap<usize, String> {
    let mut candidates: BTreeMap<u64, BTreeSet<&str>> = BTreeMap::new();
    let mut led: BTreeSet<u64> = BTreeSet::new();
    let mut first_candidacy: BTreeMap<u64, usize> = BTreeMap::new();
    for (index, record) in records.iter().enumerate() {
        let Event::Note { node, note } = &record.event else {
            continue;
        };
        match note {
            RaftNote::BecameCandidate { term } => {
                candidates.entry(*term).or_default().insert(node.as_ref());
                first_candidacy.entry(*term).or_insert(index);
            }
            RaftNote::BecameLeader { term, .. } => {
                led.insert(*term);
            }
            _ => {}
        }
    }
    let mut out = BTreeMap::new();
    for (&term, &index) in &first_candidacy {
        let previous = term.saturating_sub(1);
        let split = candidates.get(&previous).is_some_and(|c| c.len() >= 2);
        if !split || led.contains(&previous) {
            continue;
        }
        let Some(line) = narrate(&records[index], lang) else {
            continue;
        };
        out.insert(
            index,
            match lang {
                Lang::Es => {
                    format!("votos divididos en el término {previous}, nadie tuvo mayoría; {line}")
                }
                Lang::En => {
                    format!("split vote in term {previous}, nobody got a majority; {line}")
                }
            },
        );
    }
    out
}
