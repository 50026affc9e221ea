//! What a Raft scenario can expect of a run's outcome, checked in plain words.
//!
//! RON, one per line of the scenario's `expect` list:
//!
//! ```ron
//! Leader(node: "nodo-2", term: 4)               // at the end, nodo-2 leads term 4, alone
//! Final(node: "nodo-1", role: Follower, term: 4) // a node's final role and term
//! LeaderOfTerm(term: 2, node: "nodo-1")         // nodo-1 was elected in term 2 (from notes)
//! Denied(term: 1, voter: "nodo-2", candidate: "nodo-3")
//! NoLeaderLongerThanMs(ms: 400)                 // after the first election, gaps stay short
//! Log(node: "S3", terms: [1, 2, 4])             // with replication: a node's final log
//! Committed(node: "S1", index: 3)               // its final commitIndex
//! Value(node: "S2", key: "x", value: Some("1")) // its state machine's final value of x
//! Acknowledged(client: "c1", writes: 2)         // writes the client got answers for
//! LeaderReplaced                                // the lesson's RF-1, at any seed: see below
//! ```

use crate::raft::config::RaftConfig;
use crate::raft::node::{RaftNode, Role};
use crate::raft::notes::RaftNote;
use crate::raft::server::Server;
use serde::{Deserialize, Serialize};
use sim_core::{Event, Fault, Instant, Outcome, Record};
use std::collections::BTreeMap;

/// One expectation about a Raft run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum RaftExpect {
    /// At the end `node` is leader of `term`, and no other node leads `term` or a later one.
    Leader {
        /// The leader.
        node: String,
        /// Its term.
        term: u64,
    },
    /// At the end `node` has this role and currentTerm.
    Final {
        /// The node.
        node: String,
        /// Follower, Candidate or Leader.
        role: Role,
        /// Its currentTerm.
        term: u64,
    },
    /// `node` became leader of `term` at some point of the run.
    LeaderOfTerm {
        /// The term.
        term: u64,
        /// The node elected.
        node: String,
    },
    /// `voter` denied its vote to `candidate` in `term`.
    Denied {
        /// The RequestVote's term.
        term: u64,
        /// Who refused.
        voter: String,
        /// Who asked.
        candidate: String,
    },
    /// From the first election on, the cluster is never without a live leader longer than `ms`.
    NoLeaderLongerThanMs {
        /// The longest gap allowed, in ms.
        ms: u64,
    },
    /// At the end `node`'s log holds entries of exactly these terms, index 1 first.
    Log {
        /// The server.
        node: String,
        /// The terms of its entries.
        terms: Vec<u64>,
    },
    /// At the end `node`'s commitIndex is `index`.
    Committed {
        /// The server.
        node: String,
        /// Its commitIndex.
        index: u64,
    },
    /// At the end `node`'s state machine holds `value` for `key` (`None`: never written).
    Value {
        /// The server.
        node: String,
        /// The key.
        key: String,
        /// Its value.
        value: Option<String>,
    },
    /// The lesson's "the leader goes down" as facts that hold at every seed: a node that leads
    /// goes down (paused or crashed), another node leads a later term while it is down, and
    /// when it returns it steps down (a paused one on the first message of the newer term; a
    /// crashed one comes back a follower).
    LeaderReplaced,
    /// `client` got an answer for exactly `writes` of its writes.
    Acknowledged {
        /// The client.
        client: String,
        /// How many writes were acknowledged.
        writes: u64,
    },
}

/// Node names an expectation mentions.
pub fn nodes(expect: &RaftExpect) -> Vec<String> {
    match expect {
        RaftExpect::Leader { node, .. }
        | RaftExpect::Final { node, .. }
        | RaftExpect::LeaderOfTerm { node, .. }
        | RaftExpect::Log { node, .. }
        | RaftExpect::Committed { node, .. }
        | RaftExpect::Value { node, .. } => vec![node.clone()],
        RaftExpect::Acknowledged { client, .. } => vec![client.clone()],
        RaftExpect::Denied {
            voter, candidate, ..
        } => vec![voter.clone(), candidate.clone()],
        RaftExpect::NoLeaderLongerThanMs { .. } | RaftExpect::LeaderReplaced => Vec::new(),
    }
}

fn role_word(role: Role) -> &'static str {
    match role {
        Role::Follower => "follower",
        Role::Candidate => "candidate",
        Role::Leader => "leader",
    }
}

/// Checks one expectation: `Ok` says what held, `Err` what was expected and what happened.
pub fn check(
    config: &RaftConfig,
    expect: &RaftExpect,
    outcome: &Outcome<'_, RaftNode>,
) -> Result<String, String> {
    let _ = config;
    match expect {
        RaftExpect::Leader { node, term } => sole_leader(outcome, node, *term),
        RaftExpect::Final { node, role, term } => ends_as(outcome, node, *role, *term),
        RaftExpect::LeaderOfTerm { term, node } => elected(outcome, node, *term),
        RaftExpect::Denied {
            term,
            voter,
            candidate,
        } => denied(outcome, voter, candidate, *term),
        RaftExpect::NoLeaderLongerThanMs { ms } => {
            let (gap, from) = longest_gap(outcome.records, outcome.sim.now());
            if gap <= *ms {
                Ok(format!("the longest time without a leader was {gap} ms"))
            } else {
                Err(format!(
                    "expected never more than {ms} ms without a leader, but there were {gap} ms \
                     from {from}"
                ))
            }
        }
        RaftExpect::Log { node, terms } => {
            let have = server(outcome, node)?.log().terms();
            if &have == terms {
                Ok(format!("{node}'s log ends as {have:?}"))
            } else {
                Err(format!(
                    "expected {node}'s log to hold terms {terms:?}, but it holds {have:?}"
                ))
            }
        }
        RaftExpect::Committed { node, index } => {
            let have = server(outcome, node)?.commit_index();
            if have == *index {
                Ok(format!("{node}'s commitIndex ends at {have}"))
            } else {
                Err(format!(
                    "expected {node}'s commitIndex to end at {index}, but it is {have}"
                ))
            }
        }
        RaftExpect::Value { node, key, value } => {
            let have = server(outcome, node)?.kv().get(key);
            if have == value.as_deref() {
                Ok(format!("{node} ends with {key} = {}", shown(have)))
            } else {
                Err(format!(
                    "expected {node} to end with {key} = {}, but it has {}",
                    shown(value.as_deref()),
                    shown(have)
                ))
            }
        }
        RaftExpect::LeaderReplaced => leader_replaced(outcome.records),
        RaftExpect::Acknowledged { client, writes } => {
            let have = outcome
                .actor(client)
                .and_then(RaftNode::client)
                .ok_or_else(|| format!("expected a client called {client}, but there is none"))?
                .acknowledged();
            if have == *writes {
                Ok(format!("{client} got {have} writes acknowledged"))
            } else {
                Err(format!(
                    "expected {client} to get {writes} writes acknowledged, but it got {have}"
                ))
            }
        }
    }
}

/// `LeaderReplaced`: the first leader to go down is replaced while down and steps down on
/// its return.
fn leader_replaced(records: &[Record<RaftNode>]) -> Result<String, String> {
    let mut leading: BTreeMap<&str, u64> = BTreeMap::new();
    let mut down: Option<(&str, u64, Instant)> = None;
    let mut replaced: Option<(&str, u64, Instant)> = None;
    let mut back: Option<Instant> = None;
    for r in records {
        match (&r.event, down, replaced, back) {
            (
                Event::Fault {
                    fault: Fault::Pause(n) | Fault::Crash(n),
                },
                None,
                _,
                _,
            ) => {
                if let Some(&term) = leading.get(&**n) {
                    down = Some((n, term, r.time));
                }
            }
            (Event::Note { node, note }, Some((old, term, _)), None, None) => {
                if let RaftNote::BecameLeader { term: t, .. } = note
                    && &**node != old
                    && *t > term
                {
                    replaced = Some((node, *t, r.time));
                }
            }
            (
                Event::Fault {
                    fault: Fault::Resume(n),
                },
                Some((old, ..)),
                Some(_),
                None,
            ) if &**n == old => back = Some(r.time),
            (
                Event::Fault {
                    fault: Fault::Restart(n),
                },
                Some((old, term, at)),
                Some((new, t, from)),
                None,
            ) if &**n == old => {
                return Ok(format!(
                    "{old} led term {term} until it went down at {at}; {new} led term {t} from \
                     {from}; {old} came back a follower at {}",
                    r.time
                ));
            }
            (Event::Note { node, note }, Some((old, term, at)), Some((new, t, from)), Some(_)) => {
                if let RaftNote::SteppedDown { .. } = note
                    && &**node == old
                {
                    return Ok(format!(
                        "{old} led term {term} until it went down at {at}; {new} led term {t} \
                         from {from}; {old} stepped down on its return, at {}",
                        r.time
                    ));
                }
            }
            _ => {}
        }
        if let Event::Note { node, note } = &r.event {
            match note {
                RaftNote::BecameLeader { term, .. } => {
                    leading.insert(node, *term);
                }
                RaftNote::SteppedDown { .. } => {
                    leading.remove(&**node);
                }
                _ => {}
            }
        }
    }
    Err(match (down, replaced, back) {
        (None, ..) => "expected a leader to go down (paused or crashed), but none did".into(),
        (Some((old, term, at)), None, _) => format!(
            "expected another node to lead a term after {term} while {old} was down (from \
             {at}), but none did"
        ),
        (Some((old, ..)), Some(_), None) => {
            format!("expected {old} to return after another node took over, but it never did")
        }
        (Some((old, term, _)), Some(_), Some(at)) => format!(
            "expected {old} to step down after returning at {at}, but it still believes it \
             leads term {term}"
        ),
    })
}

fn shown(value: Option<&str>) -> String {
    value.map_or_else(|| "nothing".into(), |v| format!("{v:?}"))
}

/// The final state of the server `name`, or why there is none.
fn server<'a>(outcome: &'a Outcome<'_, RaftNode>, name: &str) -> Result<&'a Server, String> {
    outcome
        .actor(name)
        .and_then(RaftNode::server)
        .ok_or_else(|| format!("expected a server called {name}, but there is none"))
}

/// `Leader`: `node` ends as leader of `term`, and no other node leads that term or a later one.
fn sole_leader(outcome: &Outcome<'_, RaftNode>, node: &str, term: u64) -> Result<String, String> {
    let a = server(outcome, node)?;
    if a.role() != Role::Leader || a.current_term() != term {
        return Err(format!(
            "expected {node} to end as leader of term {term}, but it is {} of term {}",
            role_word(a.role()),
            a.current_term()
        ));
    }
    let sim = outcome.sim;
    let rivals: Vec<String> = sim
        .node_ids()
        .filter(|&id| sim.name(id) != node)
        .filter_map(|id| sim.actor(id).server().map(|s| (id, s)))
        .filter(|(_, other)| other.role() == Role::Leader && other.current_term() >= term)
        .map(|(id, s)| format!("{} (term {})", sim.name(id), s.current_term()))
        .collect();
    if rivals.is_empty() {
        Ok(format!("{node} ends as the leader of term {term}"))
    } else {
        Err(format!(
            "expected {node} to be the only leader of term {term} at the end, but {} also lead",
            rivals.join(", ")
        ))
    }
}

/// `Final`: `node` ends as `role` of `term`.
fn ends_as(
    outcome: &Outcome<'_, RaftNode>,
    node: &str,
    role: Role,
    term: u64,
) -> Result<String, String> {
    let a = server(outcome, node)?;
    if a.role() == role && a.current_term() == term {
        Ok(format!("{node} ends as {} of term {term}", role_word(role)))
    } else {
        Err(format!(
            "expected {node} to end as {} of term {term}, but it is {} of term {}",
            role_word(role),
            role_word(a.role()),
            a.current_term()
        ))
    }
}

/// `LeaderOfTerm`: `node` was elected leader of `term` at some point.
fn elected(outcome: &Outcome<'_, RaftNode>, node: &str, term: u64) -> Result<String, String> {
    let leaders: Vec<String> = outcome
        .notes()
        .filter_map(|(at, who, n)| match n {
            RaftNote::BecameLeader { term: t, votes, .. } if *t == term => {
                Some(format!("{who} at {at} with {votes} votes"))
            }
            _ => None,
        })
        .collect();
    match leaders.iter().find(|l| l.starts_with(&format!("{node} "))) {
        Some(l) => Ok(format!("leader of term {term}: {l}")),
        None if leaders.is_empty() => Err(format!(
            "expected {node} to be elected leader of term {term}, but nobody was"
        )),
        None => Err(format!(
            "expected {node} to be elected leader of term {term}, but the leader was {}",
            leaders.join(" and ")
        )),
    }
}

/// `Denied`: `voter` denied its vote to `candidate` in `term`.
fn denied(
    outcome: &Outcome<'_, RaftNode>,
    voter: &str,
    candidate: &str,
    term: u64,
) -> Result<String, String> {
    let mut answer = None;
    for (at, who, n) in outcome.notes() {
        match n {
            RaftNote::VoteDenied {
                term: t,
                candidate: c,
                reason,
            } if who == voter && *t == term && c == candidate => {
                let line = crate::raft::narrate::deny_line(voter, candidate, reason, false);
                return Ok(format!("term {term}, at {at}: {line}"));
            }
            RaftNote::VoteGranted {
                term: t,
                candidate: c,
            } if who == voter && *t == term && c == candidate => {
                answer = Some(format!("granted it at {at}"));
            }
            _ => {}
        }
    }
    Err(format!(
        "expected {voter} to deny its vote to {candidate} in term {term}, but it {}",
        answer.unwrap_or_else(|| "never answered such a request".into())
    ))
}

/// The longest span, after the first leader took office, with no live leader of the highest
/// term seen (leaders leave office by stepping down, crashing or pausing). In ms, with its start.
pub fn longest_gap(records: &[Record<RaftNode>], end: Instant) -> (u64, Instant) {
    let mut leaders: BTreeMap<String, u64> = BTreeMap::new();
    let mut max_term = 0;
    let mut gap_since: Option<Instant> = None;
    let mut elected_once = false;
    let mut best = (0, Instant::ZERO);
    for r in records {
        match &r.event {
            Event::Fault {
                fault: Fault::Crash(n) | Fault::Pause(n),
            } => {
                leaders.remove(&**n);
            }
            Event::Note { node, note } => match *note {
                RaftNote::BecameLeader { term, .. } => {
                    leaders.insert(node.to_string(), term);
                    elected_once = true;
                }
                RaftNote::SteppedDown { .. } => {
                    leaders.remove(&**node);
                }
                RaftNote::TermChanged { to, .. } => max_term = u64::max(max_term, to),
                _ => {}
            },
            _ => {}
        }
        let led = leaders.values().any(|&t| t == max_term);
        match (led, gap_since) {
            (false, None) if elected_once => gap_since = Some(r.time),
            (true, Some(since)) => {
                let gap = r.time.saturating_since(since).as_millis();
                if gap > best.0 {
                    best = (gap, since);
                }
                gap_since = None;
            }
            _ => {}
        }
    }
    if let Some(since) = gap_since {
        let gap = end.saturating_since(since).as_millis();
        if gap > best.0 {
            best = (gap, since);
        }
    }
    best
}
