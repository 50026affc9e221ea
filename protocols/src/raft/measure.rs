//! A run's election figures, for sweeps over seeds and for the story's closing lines.
//!
//! Everything is read from records (notes and faults), like the invariants, so the figures of a
//! trace file are the figures of its run: elections until the first leader, the term it won,
//! when, whether the stale node stood first, and each span without a leader after the leader
//! went down.

use crate::raft::{RaftNode, RaftNote};
use sim_core::{Event, Fault, Instant, Record};
use std::collections::BTreeMap;
use traces::{Lang, Measure};

/// A stretch of time with no leader: from `from` (the start, or the leader going down) to the
/// next leader's election (or the end of the run, `to: None`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gap {
    /// Who went down or stepped down (None for the start of the run).
    pub after: Option<String>,
    /// Whether that leader stepped down (a higher term, say) rather than going down.
    pub stepped_down: bool,
    /// When the gap opened.
    pub from: Instant,
    /// When the next leader was elected, if one was.
    pub to: Option<Instant>,
    /// The next leader and its term.
    pub next: Option<(String, u64)>,
}

impl Gap {
    /// A gap opened when the leader `node` went down (paused or crashed) or stepped down.
    fn after(node: &str, from: Instant, stepped_down: bool) -> Gap {
        Gap {
            after: Some(node.to_string()),
            stepped_down,
            from,
            to: None,
            next: None,
        }
    }
}

/// The figures of a run of Raft election.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Figures {
    /// Candidacies up to and including the one that produced the first leader.
    pub elections: Option<u64>,
    /// The term of the first leader.
    pub first_term: Option<u64>,
    /// When the first leader was elected.
    pub first_at: Option<Instant>,
    /// Whether the first node to stand had a log behind another node's (and so was denied).
    pub stale_stood_first: bool,
    /// The highest term any node reached.
    pub max_term: u64,
    /// Every stretch without a leader, in order.
    pub gaps: Vec<Gap>,
}

/// Reads a run's figures from its records.
pub fn figures(records: &[Record<RaftNode>]) -> Figures {
    let mut f = Figures::default();
    let mut logs: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    let mut candidacies = 0u64;
    let mut first_candidate: Option<&str> = None;
    let mut leader: Option<(&str, u64)> = None;
    // A leader paused in office, who is back in office when resumed unless deposed meanwhile.
    let mut paused: Option<(&str, u64)> = None;
    let mut open = Some(Gap {
        after: None,
        stepped_down: false,
        from: Instant::ZERO,
        to: None,
        next: None,
    });
    for r in records {
        match &r.event {
            Event::Note { node, note } => match note {
                RaftNote::Log {
                    last_term,
                    last_index,
                } => {
                    logs.insert(node, (*last_term, *last_index));
                }
                RaftNote::BecameCandidate { term } => {
                    f.max_term = f.max_term.max(*term);
                    if f.first_term.is_none() {
                        candidacies += 1;
                    }
                    first_candidate.get_or_insert(node);
                }
                RaftNote::BecameLeader { term, .. } => {
                    f.max_term = f.max_term.max(*term);
                    if f.first_term.is_none() {
                        f.first_term = Some(*term);
                        f.first_at = Some(r.time);
                        f.elections = Some(candidacies);
                    }
                    leader = Some((node, *term));
                    paused = None;
                    if let Some(mut gap) = open.take() {
                        gap.to = Some(r.time);
                        gap.next = Some((node.to_string(), *term));
                        f.gaps.push(gap);
                    }
                }
                RaftNote::SteppedDown { to_term, .. } => {
                    f.max_term = f.max_term.max(*to_term);
                    if paused.is_some_and(|p| p.0 == &**node) {
                        paused = None;
                    }
                    if leader.is_some_and(|l| l.0 == &**node) {
                        leader = None;
                        open.get_or_insert_with(|| Gap::after(node, r.time, true));
                    }
                }
                _ => {}
            },
            Event::Fault {
                fault: Fault::Resume(node),
            } if paused.is_some_and(|p| p.0 == &**node) => {
                let back = paused.take().expect("checked");
                leader = Some(back);
                if let Some(mut gap) = open.take() {
                    gap.to = Some(r.time);
                    gap.next = Some((node.to_string(), back.1));
                    f.gaps.push(gap);
                }
            }
            Event::Fault {
                fault: Fault::Pause(node) | Fault::Crash(node),
            } if leader.is_some_and(|l| l.0 == &**node) => {
                if matches!(
                    r.event,
                    Event::Fault {
                        fault: Fault::Pause(_)
                    }
                ) {
                    paused = leader;
                }
                leader = None;
                open.get_or_insert_with(|| Gap::after(node, r.time, false));
            }
            _ => {}
        }
    }
    if let Some(gap) = open {
        f.gaps.push(gap);
    }
    if let (Some(first), Some(best)) = (first_candidate, logs.values().max()) {
        f.stale_stood_first = logs.get(first).is_some_and(|mine| mine < best);
    }
    f
}

/// The figures a sweep aggregates.
pub fn measures(records: &[Record<RaftNode>]) -> Vec<Measure> {
    let f = figures(records);
    let after_fault = f
        .gaps
        .iter()
        .filter(|g| g.after.is_some() && !g.stepped_down)
        .filter_map(|g| g.to.map(|to| to.saturating_since(g.from).as_nanos()))
        .max();
    vec![
        Measure::count("candidacies", f.elections),
        Measure::count("leader_term", f.first_term),
        Measure::nanos("time_to_leader", f.first_at.map(|t| t.as_nanos())),
        Measure::nanos("no_leader_after_fault", after_fault),
        Measure::flag("stale_stood_first", Some(u64::from(f.stale_stood_first))),
        Measure::count("max_term", Some(f.max_term)),
    ]
}

/// The story's closing lines: each stretch without a leader and how the terms went.
pub fn summary(records: &[Record<RaftNode>], lang: Lang) -> Vec<String> {
    let f = figures(records);
    let es = lang == Lang::Es;
    let mut out = Vec::new();
    for g in &f.gaps {
        let why = match (&g.after, g.stepped_down, es) {
            (None, _, false) => "from the start".to_string(),
            (None, _, true) => "desde el arranque".to_string(),
            (Some(n), false, false) => format!("after {n} went down"),
            (Some(n), false, true) => format!("tras caer {n}"),
            (Some(n), true, false) => format!("after {n} stepped down"),
            (Some(n), true, true) => format!("tras dejar {n} de ser líder"),
        };
        out.push(match (g.to, &g.next, es) {
            (Some(to), Some((who, term)), false) => format!(
                "no leader for {} {why}, until {who} led term {term}",
                to.saturating_since(g.from)
            ),
            (Some(to), Some((who, term)), true) => format!(
                "sin líder durante {} {why}, hasta que {who} fue líder del término {term}",
                to.saturating_since(g.from)
            ),
            (_, _, false) => format!("no leader {why} to the end of the run"),
            (_, _, true) => format!("sin líder {why} hasta el final"),
        });
    }
    if let Some(term) = f.first_term {
        out.push(if es {
            format!(
                "primer líder en el término {term} tras {} candidaturas; término máximo {}",
                f.elections.unwrap_or(0),
                f.max_term
            )
        } else {
            format!(
                "first leader in term {term} after {} candidacies; highest term {}",
                f.elections.unwrap_or(0),
                f.max_term
            )
        });
    }
    out
}
