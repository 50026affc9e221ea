//! The story of a Raft run in the course's words, English or the lesson's Spanish.
//!
//! Lines follow the lesson's printout ("nodo-3: timeout, me presento en el término 1",
//! "nodo-2: DENIEGO voto a nodo-3 (su log (1,3) va por detrás del mío (1,5))", "nodo-1: LÍDER
//! del término 2 con 3 votos", "nodo-1: reconozco a nodo-2 como líder del término 4", "---
//! nodo-1 CAE ---"). Records the generic narrator tells well (sends, deliveries, drops, other
//! faults) and bookkeeping notes (Log, Started, TermChanged) get `None`.

use crate::raft::node::RaftNode;
use crate::raft::notes::{DenyReason, RaftNote, StepDownCause};
use sim_core::{Event, Fault, Record};
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
        (Fault::Resume(n) | Fault::Restart(n), Lang::Es) => format!("--- {n} VUELVE ---"),
        (Fault::Resume(n) | Fault::Restart(n), Lang::En) => format!("--- {n} RETURNS ---"),
        _ => return None,
    };
    Some(line)
}

fn note_line(node: &str, note: &RaftNote, lang: Lang) -> Option<String> {
    let es = lang == Lang::Es;
    let line = match note {
        RaftNote::Log { .. } | RaftNote::Started { .. } | RaftNote::TermChanged { .. } => {
            return None;
        }
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
    };
    Some(line)
}

pub(crate) fn deny_line(node: &str, candidate: &str, reason: &DenyReason, es: bool) -> String {
    match (reason, es) {
        (DenyReason::LogBehind { theirs, mine }, true) => format!(
            "{node}: DENIEGO voto a {candidate} (su log {theirs} va por detrás del mío {mine})"
        ),
        (DenyReason::LogBehind { theirs, mine }, false) => format!(
            "{node} DENIES its vote to {candidate} (its log {theirs} is behind mine {mine})"
        ),
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
