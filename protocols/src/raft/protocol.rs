//! How Raft plugs into scenarios: [`Raft`], its model (`sim_core::Protocol`) and its story
//! (`traces::Story`, with the sweep's election figures from `measure`).

use sim_core::{
    BugKnob, ConfigProblem, Duration, Instant, Invariant, NodeId, Outcome, Protocol, Record, Sim,
    Status,
};
use std::collections::BTreeMap;
use traces::{Lang, Measure, Story};

use crate::kvstore::history;
use crate::raft::config::{self, RaftConfig};
use crate::raft::expect::{self, RaftExpect};
use crate::raft::node::{RaftCommand, RaftNode};
use crate::raft::{invariants, log_invariants, measure, narrate, replication_measure};

/// Raft as scenarios see it.
pub struct Raft;

impl Protocol for Raft {
    const NAME: &'static str = "raft";
    const ABOUT: &'static str = "Raft: leader election (terms, randomized timeouts, RequestVote with the log check) and log replication (AppendEntries, commit by a majority of the leader's term)";
    const BUGS: &'static [BugKnob] = &[
        BugKnob {
            name: "vote_twice",
            breaks: "a node votes for a second candidate in a term it already voted in",
        },
        BugKnob {
            name: "skip_log_check",
            breaks: "votes are granted without the up-to-date log check",
        },
        BugKnob {
            name: "ignore_higher_term_in_replies",
            breaks: "a leader stays leader when a reply carries a higher term",
        },
        BugKnob {
            name: "reset_vote_on_heartbeat",
            breaks: "the lesson's slip: every heartbeat clears votedFor, even of the current term",
        },
        BugKnob {
            name: "forget_term_on_restart",
            breaks: "currentTerm and votedFor live in memory only: a crash forgets them",
        },
        BugKnob {
            name: "fixed_election_timeout",
            breaks: "election timeouts are never randomized, so split votes repeat",
        },
        BugKnob {
            name: "commit_old_terms",
            breaks: "Figure 8: a leader commits an older term's entry by counting replicas",
        },
        BugKnob {
            name: "skip_prev_log_check",
            breaks: "a follower stores entries without the prevLogIndex/prevLogTerm check",
        },
        BugKnob {
            name: "truncate_on_every_append",
            breaks: "a follower truncates after prevLogIndex on every AppendEntries, even matching ones",
        },
        BugKnob {
            name: "leader_drops_uncommitted",
            breaks: "a new leader deletes the uncommitted tail of its own log",
        },
        BugKnob {
            name: "forget_requests",
            breaks: "no table of clients' last requests: a retried append is applied twice",
        },
    ];
    type Actor = RaftNode;
    type Config = RaftConfig;
    type Expect = RaftExpect;

    fn nodes(config: &RaftConfig) -> Vec<String> {
        config.names()
    }
    fn validate(config: &RaftConfig) -> Vec<ConfigProblem> {
        config::validate(config)
    }
    fn build(config: &RaftConfig, id: NodeId) -> RaftNode {
        RaftNode::new(config, id)
    }
    /// A leader is elected within 5 of the longest election timeouts after the last scripted
    /// step.
    fn progress_bound(config: &RaftConfig) -> Option<Duration> {
        Some(Duration::from_millis(
            config.election_timeout_ms.1.max(1).saturating_mul(5),
        ))
    }

    /// Some node led at some time after the last scripted step (a leader deposed later by
    /// lost heartbeats does not undo that progress; a paused one never counts).
    fn progress(_config: &RaftConfig, sim: &Sim<RaftNode>, since: Instant) -> Result<(), String> {
        let led = |id| sim.actor(id).server().and_then(|s| s.led());
        let progressed = sim.node_ids().any(|id| match led(id) {
            Some((_, Some(until))) => until >= since,
            Some((_, None)) => sim.status(id) == Status::Up,
            None => false,
        });
        if progressed {
            Ok(())
        } else {
            Err(format!(
                "no node led from {since} (the last scripted step) to the end ({})",
                sim.now()
            ))
        }
    }

    /// A leader is elected: some schedule gets there.
    fn sometimes(_config: &RaftConfig) -> Vec<sim_core::exhaustive::Sometimes<RaftNode>> {
        vec![sim_core::exhaustive::Sometimes {
            name: "a leader is elected",
            holds: |sim| {
                sim.node_ids().any(|id| {
                    sim.actor(id)
                        .server()
                        .is_some_and(|s| s.role() == crate::raft::Role::Leader)
                })
            },
        }]
    }

    /// Servers with the same spec (log, term, timeouts) and no pinned first deadline, in an
    /// election-only config: a vote goes to whoever asks first with a log as up to date,
    /// nothing breaks a tie by id. With replication a leader keeps its `nextIndex` by
    /// position, and clients pick servers by position, so nothing is interchangeable then.
    fn interchangeable(config: &RaftConfig) -> Vec<Vec<NodeId>> {
        if config.replication || !config.clients.is_empty() {
            return Vec::new();
        }
        let mut groups: BTreeMap<String, Vec<NodeId>> = BTreeMap::new();
        for (i, spec) in config.nodes.iter().enumerate() {
            if config.first_deadline_ms.contains_key(&spec.name) {
                continue;
            }
            // Every field but the name (a field added later splits groups until it is
            // thought about here).
            let mut alike = spec.clone();
            alike.name.clear();
            groups
                .entry(format!("{alike:?}"))
                .or_default()
                .push(NodeId(i as u32));
        }
        groups.into_values().collect()
    }

    /// A server's current term.
    fn epoch(actor: &RaftNode) -> Option<u64> {
        actor.server().map(|s| s.current_term())
    }

    /// Election safety always; with replication, the log properties of Figure 3 too.
    fn invariants(config: &RaftConfig) -> Vec<Box<dyn Invariant<RaftNode>>> {
        let mut all = invariants::all(config.elect_within_ms);
        if config.replication {
            all.extend(log_invariants::all());
            if !config.clients.is_empty() {
                all.push(Box::new(history::Linearizable::<RaftNode>::default()));
            }
        }
        all
    }

    fn command_problem(config: &RaftConfig, node: &str, command: &RaftCommand) -> Option<String> {
        if let Some((word, server)) = command.via()
            && !config.nodes.iter().any(|n| n.name == *server)
        {
            return Some(format!(
                "{word} names \"{server}\", which is not a server; the servers are {}",
                config.server_names().join(", ")
            ));
        }
        if config.clients.iter().any(|c| c == node) {
            None
        } else if config.clients.is_empty() {
            Some(format!(
                "{node} is a server and this config has no clients: add clients: [\"c1\"] and \
                 send the Put to \"c1\", which writes through the leader"
            ))
        } else {
            Some(format!(
                "{node} is a server: a Put goes to a client, which writes through the leader; \
                 the clients are {}",
                config.clients.join(", ")
            ))
        }
    }
    fn check(
        config: &RaftConfig,
        expect: &RaftExpect,
        outcome: &Outcome<'_, RaftNode>,
    ) -> Result<String, String> {
        expect::check(config, expect, outcome)
    }
    fn expect_nodes(expect: &RaftExpect) -> Vec<String> {
        expect::nodes(expect)
    }
    /// The run's facts, and the AppendEntries that carry entries (with, by the kernel's rule,
    /// their deliveries and the replies to them): the replication figures count them. Empty
    /// heartbeats, nearly every message of a long run, are not kept.
    fn keeps(record: &Record<RaftNode>) -> bool {
        match &record.event {
            sim_core::Event::Send {
                msg: crate::raft::RaftMsg::AppendEntries { entries, .. },
                ..
            } => !entries.is_empty(),
            event => event.is_fact(),
        }
    }
}

impl Story for Raft {
    fn narrate(record: &Record<RaftNode>, lang: Lang) -> Option<String> {
        narrate::narrate(record, lang)
    }

    fn explain(
        config: &RaftConfig,
        expect: &RaftExpect,
        outcome: &sim_core::Outcome<'_, RaftNode>,
        lang: Lang,
    ) -> Result<String, String> {
        expect::check_in(config, expect, outcome, lang)
    }

    fn is_key(record: &Record<RaftNode>) -> bool {
        narrate::is_key(record)
    }

    fn history(records: &[Record<RaftNode>], lang: Lang) -> Option<traces::history::ClientHistory> {
        history::view(records, lang)
    }

    fn retell(records: &[Record<RaftNode>], lang: Lang) -> BTreeMap<usize, String> {
        narrate::retell(records, lang)
    }
    fn measures(records: &[Record<RaftNode>]) -> Vec<Measure> {
        let mut all = measure::measures(records);
        all.extend(replication_measure::measures(records));
        all
    }
    fn summary(records: &[Record<RaftNode>], lang: Lang) -> Vec<String> {
        let mut all = measure::summary(records, lang);
        all.extend(replication_measure::summary(records, lang));
        all
    }
}
