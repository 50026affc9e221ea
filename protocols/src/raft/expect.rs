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
use traces::Lang;

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

fn role_word(role: Role, es: bool) -> &'static str {
    match (role, es) {
        (Role::Follower, false) => "follower",
        (Role::Candidate, false) => "candidate",
        (Role::Leader, false) => "leader",
        (Role::Follower, true) => "seguidor",
        (Role::Candidate, true) => "candidato",
        (Role::Leader, true) => "líder",
    }
}

/// The English or the Spanish words.
fn say(es: bool, en: String, spanish: String) -> String {
    if es { spanish } else { en }
}

/// Checks one expectation: `Ok` says what held, `Err` what was expected and what happened.
pub fn check(
    config: &RaftConfig,
    expect: &RaftExpect,
    outcome: &Outcome<'_, RaftNode>,
) -> Result<String, String> {
    check_in(config, expect, outcome, Lang::En)
}

/// [`check`], said in `lang` (the lesson's Spanish: `líder del término 4`, `DENIEGO voto`).
pub fn check_in(
    config: &RaftConfig,
    expect: &RaftExpect,
    outcome: &Outcome<'_, RaftNode>,
    lang: Lang,
) -> Result<String, String> {
    let _ = config;
    let es = lang == Lang::Es;
    match expect {
        RaftExpect::Leader { node, term } => sole_leader(outcome, node, *term, es),
        RaftExpect::Final { node, role, term } => ends_as(outcome, node, *role, *term, es),
        RaftExpect::LeaderOfTerm { term, node } => elected(outcome, node, *term, es),
        RaftExpect::Denied {
            term,
            voter,
            candidate,
        } => denied(outcome, voter, candidate, *term, es),
        RaftExpect::NoLeaderLongerThanMs { ms } => {
            let (gap, from) = longest_gap(outcome.records, outcome.sim.now());
            if gap <= *ms {
                Ok(say(
                    es,
                    format!("the longest time without a leader was {gap} ms"),
                    format!("el mayor tiempo sin líder fue de {gap} ms"),
                ))
            } else {
                Err(say(
                    es,
                    format!(
                        "expected never more than {ms} ms without a leader, but there were \
                         {gap} ms from {from}"
                    ),
                    format!(
                        "se esperaba no pasar nunca más de {ms} ms sin líder, pero hubo {gap} ms \
                         desde {from}"
                    ),
                ))
            }
        }
        RaftExpect::Log { node, terms } => {
            let have = server(outcome, node, es)?.log().terms();
            if &have == terms {
                Ok(say(
                    es,
                    format!("{node}'s log ends as {have:?}"),
                    format!("el log de {node} termina como {have:?}"),
                ))
            } else {
                Err(say(
                    es,
                    format!("expected {node}'s log to hold terms {terms:?}, but it holds {have:?}"),
                    format!(
                        "se esperaba que el log de {node} tuviera los términos {terms:?}, pero \
                         tiene {have:?}"
                    ),
                ))
            }
        }
        RaftExpect::Committed { node, index } => {
            let have = server(outcome, node, es)?.commit_index();
            if have == *index {
                Ok(say(
                    es,
                    format!("{node}'s commitIndex ends at {have}"),
                    format!("el commitIndex de {node} termina en {have}"),
                ))
            } else {
                Err(say(
                    es,
                    format!("expected {node}'s commitIndex to end at {index}, but it is {have}"),
                    format!(
                        "se esperaba que el commitIndex de {node} terminara en {index}, pero es \
                         {have}"
                    ),
                ))
            }
        }
        RaftExpect::Value { node, key, value } => {
            let have = server(outcome, node, es)?.kv().get(key);
            if have == value.as_deref() {
                Ok(say(
                    es,
                    format!("{node} ends with {key} = {}", shown(have, es)),
                    format!("{node} termina con {key} = {}", shown(have, es)),
                ))
            } else {
                Err(say(
                    es,
                    format!(
                        "expected {node} to end with {key} = {}, but it has {}",
                        shown(value.as_deref(), es),
                        shown(have, es)
                    ),
                    format!(
                        "se esperaba que {node} terminara con {key} = {}, pero tiene {}",
                        shown(value.as_deref(), es),
                        shown(have, es)
                    ),
                ))
            }
        }
        RaftExpect::LeaderReplaced => leader_replaced(outcome.records, es),
        RaftExpect::Acknowledged { client, writes } => {
            let have = outcome
                .actor(client)
                .and_then(RaftNode::client)
                .ok_or_else(|| {
                    say(
                        es,
                        format!("expected a client called {client}, but there is none"),
                        format!("se esperaba un cliente llamado {client}, pero no existe"),
                    )
                })?
                .acknowledged();
            if have == *writes {
                Ok(say(
                    es,
                    format!("{client} got {have} writes acknowledged"),
                    format!("{client} recibió confirmación de {have} escrituras"),
                ))
            } else {
                Err(say(
                    es,
                    format!(
                        "expected {client} to get {writes} writes acknowledged, but it got {have}"
                    ),
                    format!(
                        "se esperaba que {client} recibiera confirmación de {writes} escrituras, \
                         pero recibió {have}"
                    ),
                ))
            }
        }
    }
}

/// `LeaderReplaced`: the first leader to go down is replaced while down and steps down on
/// its return.
fn leader_replaced(records: &[Record<RaftNode>], es: bool) -> Result<String, String> {
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
                return Ok(say(
                    es,
                    format!(
                        "{old} led term {term} until it went down at {at}; {new} led term {t} \
                         from {from}; {old} came back a follower at {}",
                        r.time
                    ),
                    format!(
                        "{old} fue líder del término {term} hasta que cayó a los {at}; {new} fue \
                         líder del término {t} desde {from}; {old} VUELVE como seguidor a los {}",
                        r.time
                    ),
                ));
            }
            (Event::Note { node, note }, Some((old, term, at)), Some((new, t, from)), Some(_)) => {
                if let RaftNote::SteppedDown { .. } = note
                    && &**node == old
                {
                    return Ok(say(
                        es,
                        format!(
                            "{old} led term {term} until it went down at {at}; {new} led term \
                             {t} from {from}; {old} stepped down on its return, at {}",
                            r.time
                        ),
                        format!(
                            "{old} fue líder del término {term} hasta que cayó a los {at}; {new} \
                             fue líder del término {t} desde {from}; {old} dejó de ser líder al \
                             volver, a los {}",
                            r.time
                        ),
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
        (None, ..) => say(
            es,
            "expected a leader to go down (paused or crashed), but none did".into(),
            "se esperaba que cayera un líder (pausado o caído), pero no cayó ninguno".into(),
        ),
        (Some((old, term, at)), None, _) => say(
            es,
            format!(
                "expected another node to lead a term after {term} while {old} was down (from \
                 {at}), but none did"
            ),
            format!(
                "se esperaba que otro nodo liderara un término posterior al {term} mientras \
                 {old} estaba caído (desde {at}), pero ninguno lo hizo"
            ),
        ),
        (Some((old, ..)), Some(_), None) => say(
            es,
            format!("expected {old} to return after another node took over, but it never did"),
            format!("se esperaba que {old} volviera tras el relevo, pero no volvió"),
        ),
        (Some((old, term, _)), Some(_), Some(at)) => say(
            es,
            format!(
                "expected {old} to step down after returning at {at}, but it still believes it \
                 leads term {term}"
            ),
            format!(
                "se esperaba que {old} dejara de ser líder al volver a los {at}, pero aún cree \
                 que lidera el término {term}"
            ),
        ),
    })
}

fn shown(value: Option<&str>, es: bool) -> String {
    match value {
        Some(v) => format!("{v:?}"),
        None if es => "nada".into(),
        None => "nothing".into(),
    }
}

/// The final state of the server `name`, or why there is none.
fn server<'a>(
    outcome: &'a Outcome<'_, RaftNode>,
    name: &str,
    es: bool,
) -> Result<&'a Server, String> {
    outcome
        .actor(name)
        .and_then(RaftNode::server)
        .ok_or_else(|| {
            say(
                es,
                format!("expected a server called {name}, but there is none"),
                format!("se esperaba un servidor llamado {name}, pero no existe"),
            )
        })
}

/// `Leader`: `node` ends as leader of `term`, and no other node leads that term or a later one.
fn sole_leader(
    outcome: &Outcome<'_, RaftNode>,
    node: &str,
    term: u64,
    es: bool,
) -> Result<String, String> {
    let a = server(outcome, node, es)?;
    if a.role() != Role::Leader || a.current_term() != term {
        let (role, now) = (role_word(a.role(), es), a.current_term());
        return Err(say(
            es,
            format!(
                "expected {node} to end as leader of term {term}, but it is {role} of term {now}"
            ),
            format!(
                "se esperaba que {node} terminara como líder del término {term}, pero es {role} \
                 del término {now}"
            ),
        ));
    }
    let sim = outcome.sim;
    let rivals: Vec<String> = sim
        .node_ids()
        .filter(|&id| sim.name(id) != node)
        .filter_map(|id| sim.actor(id).server().map(|s| (id, s)))
        .filter(|(_, other)| other.role() == Role::Leader && other.current_term() >= term)
        .map(|(id, s)| {
            let t = s.current_term();
            say(
                es,
                format!("{} (term {t})", sim.name(id)),
                format!("{} (término {t})", sim.name(id)),
            )
        })
        .collect();
    if rivals.is_empty() {
        Ok(say(
            es,
            format!("{node} ends as the leader of term {term}"),
            format!("{node} termina como líder del término {term}"),
        ))
    } else {
        let rivals = rivals.join(", ");
        Err(say(
            es,
            format!(
                "expected {node} to be the only leader of term {term} at the end, but {rivals} \
                 also lead"
            ),
            format!(
                "se esperaba que {node} fuera el único líder del término {term} al final, pero \
                 también lidera(n) {rivals}"
            ),
        ))
    }
}

/// `Final`: `node` ends as `role` of `term`.
fn ends_as(
    outcome: &Outcome<'_, RaftNode>,
    node: &str,
    role: Role,
    term: u64,
    es: bool,
) -> Result<String, String> {
    let a = server(outcome, node, es)?;
    let want = role_word(role, es);
    if a.role() == role && a.current_term() == term {
        Ok(say(
            es,
            format!("{node} ends as {want} of term {term}"),
            format!("{node} termina como {want} del término {term}"),
        ))
    } else {
        let (got, now) = (role_word(a.role(), es), a.current_term());
        Err(say(
            es,
            format!(
                "expected {node} to end as {want} of term {term}, but it is {got} of term {now}"
            ),
            format!(
                "se esperaba que {node} terminara como {want} del término {term}, pero es {got} \
                 del término {now}"
            ),
        ))
    }
}

/// `LeaderOfTerm`: `node` was elected leader of `term` at some point.
fn elected(
    outcome: &Outcome<'_, RaftNode>,
    node: &str,
    term: u64,
    es: bool,
) -> Result<String, String> {
    let leaders: Vec<String> = outcome
        .notes()
        .filter_map(|(at, who, n)| match n {
            RaftNote::BecameLeader { term: t, votes, .. } if *t == term => Some(say(
                es,
                format!("{who} at {at} with {votes} votes"),
                format!("{who} a los {at} con {votes} votos"),
            )),
            _ => None,
        })
        .collect();
    match leaders.iter().find(|l| l.starts_with(&format!("{node} "))) {
        Some(l) => Ok(say(
            es,
            format!("leader of term {term}: {l}"),
            format!("líder del término {term}: {l}"),
        )),
        None if leaders.is_empty() => Err(say(
            es,
            format!("expected {node} to be elected leader of term {term}, but nobody was"),
            format!(
                "se esperaba que {node} fuera elegido líder del término {term}, pero nadie lo fue"
            ),
        )),
        None => Err(say(
            es,
            format!(
                "expected {node} to be elected leader of term {term}, but the leader was {}",
                leaders.join(" and ")
            ),
            format!(
                "se esperaba que {node} fuera elegido líder del término {term}, pero el líder \
                 fue {}",
                leaders.join(" y ")
            ),
        )),
    }
}

/// `Denied`: `voter` denied its vote to `candidate` in `term`.
fn denied(
    outcome: &Outcome<'_, RaftNode>,
    voter: &str,
    candidate: &str,
    term: u64,
    es: bool,
) -> Result<String, String> {
    let mut answer = None;
    for (at, who, n) in outcome.notes() {
        match n {
            RaftNote::VoteDenied {
                term: t,
                candidate: c,
                reason,
            } if who == voter && *t == term && c == candidate => {
                let line = crate::raft::narrate::deny_line(voter, candidate, reason, es);
                return Ok(say(
                    es,
                    format!("term {term}, at {at}: {line}"),
                    format!("término {term}, a los {at}: {line}"),
                ));
            }
            RaftNote::VoteGranted {
                term: t,
                candidate: c,
            } if who == voter && *t == term && c == candidate => {
                answer = Some(say(
                    es,
                    format!("granted it at {at}"),
                    format!("se lo concedió a los {at}"),
                ));
            }
            _ => {}
        }
    }
    let answer = answer.unwrap_or_else(|| {
        say(
            es,
            "never answered such a request".into(),
            "nunca respondió a esa petición".into(),
        )
    });
    Err(say(
        es,
        format!("expected {voter} to deny its vote to {candidate} in term {term}, but it {answer}"),
        format!(
            "se esperaba que {voter} denegara su voto a {candidate} en el término {term}, pero \
             {answer}"
        ),
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
