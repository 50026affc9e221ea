//! A Raft server: leader election, the "Rules for Servers" and RequestVote of Figure 2 (log
//! replication, the other half of a server, is in [`crate::raft::replicate`]).
//!
//! Durable state (survives a crash, kept in `self` by `on_crash`): `current_term`, `voted_for`,
//! the log. Volatile: the role, the votes gathered, the known leader, outstanding RPCs, the
//! commit index, the state machine and the leader's nextIndex/matchIndex; the kernel cancels
//! the timers. Every decision is an integer comparison; the only randomness is the election
//! timeout, drawn from the node's own stream.

use crate::kvstore::Kv;
use crate::raft::config::{Bugs, CountVotes, RaftConfig, Reads};
use crate::raft::handler::{Handler, RaftTimer};
use crate::raft::log::{LastEntry, Log};
use crate::raft::msg::RaftMsg;
use crate::raft::notes::{DenyReason, RaftNote, StepDownCause};
use serde::{Deserialize, Serialize};
use sim_core::{Context, Duration, Instant, Message, Name, NodeId};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// The three states of a Raft server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Role {
    /// Answers RPCs; stands for election when no leader is heard from.
    Follower,
    /// Gathers votes for its own term.
    Candidate,
    /// Won a majority; sends heartbeats.
    Leader,
}

/// A server's timing and knobs, in the kernel's units.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Settings {
    /// Shortest election timeout, in microseconds.
    pub election_min_us: u64,
    /// Longest election timeout, in microseconds.
    pub election_max_us: u64,
    /// Heartbeat period.
    pub heartbeat: Duration,
    /// How long to wait for a reply before noting an RPC timeout.
    pub rpc_timeout: Duration,
    /// The bug knobs.
    pub bugs: Bugs,
    /// Whether logs are replicated (`false`: the lesson's election-only model).
    pub replication: bool,
    /// When a candidate counts its votes.
    pub count_votes: CountVotes,
    /// How a leader answers reads.
    pub reads: Reads,
}

impl Settings {
    /// The settings of server `id` of `config` (its own election timeout if it has one).
    pub fn of(config: &RaftConfig, id: NodeId) -> Settings {
        let (min, max) = config
            .nodes
            .get(id.index())
            .and_then(|n| n.election_timeout_ms)
            .unwrap_or(config.election_timeout_ms);
        Settings {
            election_min_us: min.saturating_mul(1000),
            election_max_us: max.saturating_mul(1000),
            heartbeat: Duration::from_millis(config.heartbeat_ms),
            rpc_timeout: Duration::from_millis(config.rpc_timeout_ms),
            bugs: config.bugs,
            replication: config.replication,
            count_votes: config.count_votes,
            reads: config.reads,
        }
    }
}

/// Whether we still wait for a peer's reply, and since which request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Awaiting {
    /// Request `seq` is unanswered; its RPC timer is armed.
    Pending(u64),
    /// The timeout was noted; quiet until the peer answers again.
    TimedOut,
}

impl std::hash::Hash for Awaiting {
    /// Whether a reply is awaited, not the request's number: a token that only pairs the wait
    /// with its timer (see `RaftTimer`'s hash).
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        matches!(self, Awaiting::Pending(_)).hash(state);
    }
}

/// When a node led, kept out of the state's hash (see [`Server::led`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Led(Option<(Instant, Option<Instant>)>);

impl std::hash::Hash for Led {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {}
}

/// A Raft server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Server {
    /// Every node's name, by `NodeId` (for notes): the servers, then the clients.
    pub(crate) names: Arc<[Name]>,
    /// How many of `names` are servers.
    pub(crate) servers: usize,
    pub(crate) settings: Settings,
    /// The first election deadline, if pinned.
    first_deadline: Option<Duration>,
    /// Whether the node has started once (a pin applies to the first start only).
    started: bool,
    // Durable.
    pub(crate) log: Log,
    pub(crate) current_term: u64,
    voted_for: Option<NodeId>,
    // Volatile.
    pub(crate) role: Role,
    votes: BTreeSet<NodeId>,
    pub(crate) leader: Option<NodeId>,
    /// commitIndex: the highest entry known to be committed.
    pub(crate) commit_index: u64,
    /// lastApplied: the highest entry applied to the state machine.
    pub(crate) last_applied: u64,
    /// The state machine, rebuilt from the log after a crash.
    pub(crate) kv: Kv,
    /// The leader's nextIndex and matchIndex, by server id (empty unless leading with
    /// replication).
    pub(crate) next_index: Vec<u64>,
    pub(crate) match_index: Vec<u64>,
    /// The highest entry of an older term the leader has seen held by a majority (and so
    /// noted as not committed by counting).
    pub(crate) older_held: u64,
    awaiting: BTreeMap<NodeId, Awaiting>,
    next_seq: u64,
    /// When this node last became leader, and when it stopped leading (`None`: it still
    /// leads): what a search's liveness check reads. Not part of the state's hash, which
    /// holds no absolute time.
    led: Led,
}

impl std::hash::Hash for Server {
    /// Every field but the next request number, the votes and the replies awaited as sets
    /// (see `sim_core::symmetry::AsSet`); `led` hashes as nothing.
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        use sim_core::symmetry::AsSet;
        self.names.hash(state);
        self.servers.hash(state);
        self.settings.hash(state);
        self.first_deadline.hash(state);
        self.started.hash(state);
        self.log.hash(state);
        self.current_term.hash(state);
        self.voted_for.hash(state);
        self.role.hash(state);
        AsSet(&self.votes).hash(state);
        self.leader.hash(state);
        self.commit_index.hash(state);
        self.last_applied.hash(state);
        self.kv.hash(state);
        self.next_index.hash(state);
        self.match_index.hash(state);
        self.older_held.hash(state);
        AsSet(&self.awaiting).hash(state);
        // Not `next_seq`: request numbers are tokens (see `Awaiting`'s hash).
        self.led.hash(state);
    }
}

impl Server {
    /// Server `id` of `config` (servers are the first ids).
    pub fn new(config: &RaftConfig, id: NodeId) -> Server {
        let spec = &config.nodes[id.index()];
        Server {
            names: config.names().iter().map(Name::from).collect(),
            servers: config.nodes.len(),
            settings: Settings::of(config, id),
            first_deadline: config
                .first_deadline_ms
                .get(&spec.name)
                .map(|&ms| Duration::from_millis(ms)),
            started: false,
            log: spec.initial_log(),
            current_term: config.start_term(spec),
            voted_for: None,
            role: Role::Follower,
            votes: BTreeSet::new(),
            leader: None,
            commit_index: 0,
            last_applied: 0,
            kv: Kv::default(),
            next_index: Vec::new(),
            match_index: Vec::new(),
            older_held: 0,
            awaiting: BTreeMap::new(),
            next_seq: 0,
            led: Led(None),
        }
    }

    /// When this node last led since its last start: from when, and until when (`None`:
    /// it still leads).
    pub fn led(&self) -> Option<(Instant, Option<Instant>)> {
        self.led.0
    }

    /// Follower, candidate or leader.
    pub fn role(&self) -> Role {
        self.role
    }
    /// currentTerm: the latest term this server has seen.
    pub fn current_term(&self) -> u64 {
        self.current_term
    }
    /// votedFor: whom it voted for in `current_term`.
    pub fn voted_for(&self) -> Option<NodeId> {
        self.voted_for
    }
    /// The leader of `current_term`, as far as it knows.
    pub fn leader(&self) -> Option<NodeId> {
        self.leader
    }
    /// Its log.
    pub fn log(&self) -> &Log {
        &self.log
    }
    /// commitIndex.
    pub fn commit_index(&self) -> u64 {
        self.commit_index
    }
    /// Its state machine.
    pub fn kv(&self) -> &Kv {
        &self.kv
    }
    /// Votes gathered in `current_term` (its own included) while candidate or leader.
    pub fn votes(&self) -> usize {
        self.votes.len()
    }

    pub(crate) fn name(&self, id: NodeId) -> Name {
        self.names
            .get(id.index())
            .cloned()
            .unwrap_or_else(|| Name::from(id.to_string()))
    }

    /// A majority of the servers.
    pub(crate) fn majority(&self) -> usize {
        self.servers / 2 + 1
    }

    /// The other servers.
    pub(crate) fn peers(&self, me: NodeId) -> Vec<NodeId> {
        (0..self.servers as u32)
            .map(NodeId)
            .filter(|&p| p != me)
            .collect()
    }

    pub(crate) fn reset_election_timer<A: Handler>(&self, ctx: &mut Context<'_, A>) {
        let s = &self.settings;
        let us = if s.bugs.fixed_election_timeout {
            s.election_min_us
        } else {
            ctx.random_between(s.election_min_us, s.election_max_us)
        };
        ctx.set_timer(RaftTimer::Election, Duration::from_micros(us));
    }

    /// Adopts a newer term: votedFor is cleared with it.
    fn set_term<A: Handler>(&mut self, ctx: &mut Context<'_, A>, to: u64) {
        assert!(
            to > self.current_term,
            "a term only moves forward: {} -> {to}",
            self.current_term
        );
        ctx.note(RaftNote::TermChanged {
            from: self.current_term,
            to,
        });
        self.current_term = to;
        self.voted_for = None;
    }

    /// Sends a request and starts waiting for `peer`'s reply (unless already waiting).
    pub(crate) fn request<A: Handler>(
        &mut self,
        ctx: &mut Context<'_, A>,
        peer: NodeId,
        msg: RaftMsg,
    ) {
        ctx.send(peer, msg);
        if !self.awaiting.contains_key(&peer) {
            let seq = self.next_seq;
            self.next_seq += 1;
            self.awaiting.insert(peer, Awaiting::Pending(seq));
            ctx.set_timer(RaftTimer::Rpc { peer, seq }, self.settings.rpc_timeout);
        }
    }

    fn stop_waiting<A: Handler>(&mut self, ctx: &mut Context<'_, A>, peer: NodeId) {
        if let Some(Awaiting::Pending(seq)) = self.awaiting.remove(&peer) {
            ctx.cancel_timer(RaftTimer::Rpc { peer, seq });
        }
    }

    fn stop_waiting_for_all<A: Handler>(&mut self, ctx: &mut Context<'_, A>) {
        let peers: Vec<NodeId> = self.awaiting.keys().copied().collect();
        for peer in peers {
            self.stop_waiting(ctx, peer);
        }
    }

    /// Becomes a follower (role and volatile state only; terms are handled by the caller).
    fn become_follower<A: Handler>(&mut self, ctx: &mut Context<'_, A>) {
        let was = self.role;
        self.role = Role::Follower;
        self.votes.clear();
        self.leader = None;
        self.next_index.clear();
        self.match_index.clear();
        self.stop_waiting_for_all(ctx);
        if was == Role::Leader {
            ctx.cancel_timer(RaftTimer::Heartbeat);
            self.reset_election_timer(ctx);
            if let Some((_, until)) = &mut self.led.0 {
                *until = Some(ctx.now());
            }
        }
    }

    /// "If RPC request or response contains term T > currentTerm: set currentTerm = T, convert
    /// to follower."
    fn adopt_higher_term<A: Handler>(
        &mut self,
        ctx: &mut Context<'_, A>,
        term: u64,
        from: NodeId,
        kind: &str,
    ) {
        let (was, from_term) = (self.role, self.current_term);
        self.set_term(ctx, term);
        if was != Role::Follower {
            ctx.note(RaftNote::SteppedDown {
                from_term,
                to_term: term,
                because: StepDownCause::HigherTerm {
                    kind: kind.to_string(),
                    from: self.name(from),
                },
            });
        }
        self.become_follower(ctx);
    }

    /// "On conversion to candidate, start election: increment currentTerm, vote for self, reset
    /// election timer, send RequestVote RPCs to all other servers."
    fn start_election<A: Handler>(&mut self, ctx: &mut Context<'_, A>) {
        let me = ctx.id();
        self.stop_waiting_for_all(ctx);
        self.set_term(ctx, self.current_term + 1);
        self.role = Role::Candidate;
        self.voted_for = Some(me);
        self.votes = BTreeSet::from([me]);
        self.leader = None;
        ctx.note(RaftNote::BecameCandidate {
            term: self.current_term,
        });
        self.reset_election_timer(ctx);
        let request = RaftMsg::RequestVote {
            term: self.current_term,
            last_log_index: self.log.last_index(),
            last_log_term: self.log.last_term(),
        };
        for peer in self.peers(me) {
            self.request(ctx, peer, request.clone());
        }
        self.count_votes(ctx);
    }

    /// "If votes received from majority of servers: become leader" (at the first majority).
    /// With `AfterAllReplies`, only once no RequestVote is still waiting for its answer.
    fn count_votes<A: Handler>(&mut self, ctx: &mut Context<'_, A>) {
        if self.role != Role::Candidate || self.votes.len() < self.majority() {
            return;
        }
        let waiting = self
            .awaiting
            .values()
            .any(|a| matches!(a, Awaiting::Pending(_)));
        if self.settings.count_votes == CountVotes::AfterAllReplies && waiting {
            return;
        }
        let me = ctx.id();
        assert!(
            self.votes.len() <= self.names.len(),
            "more votes than nodes"
        );
        self.role = Role::Leader;
        self.leader = Some(me);
        self.led = Led(Some((ctx.now(), None)));
        ctx.note(RaftNote::BecameLeader {
            term: self.current_term,
            votes: self.votes.len() as u32,
            last_log: self.log.last(),
        });
        ctx.cancel_timer(RaftTimer::Election);
        if self.settings.replication {
            self.start_leading(ctx);
        }
        self.send_heartbeats(ctx);
    }

    /// "Upon election: send initial empty AppendEntries RPCs (heartbeat) to each server; repeat
    /// during idle periods to prevent election timeouts." With replication, each carries the
    /// entries the follower still lacks (from its nextIndex).
    fn send_heartbeats<A: Handler>(&mut self, ctx: &mut Context<'_, A>) {
        for peer in self.peers(ctx.id()) {
            let msg = if self.settings.replication {
                self.append_entries_for(peer)
            } else {
                RaftMsg::heartbeat(self.current_term)
            };
            self.request(ctx, peer, msg);
        }
        ctx.set_timer(RaftTimer::Heartbeat, self.settings.heartbeat);
    }

    /// RequestVote receiver implementation (the term rule has already run).
    fn on_request_vote<A: Handler>(
        &mut self,
        ctx: &mut Context<'_, A>,
        from: NodeId,
        term: u64,
        theirs: LastEntry,
    ) {
        let mine = self.log.last();
        let bugs = self.settings.bugs;
        let deny = if term < self.current_term {
            Some(DenyReason::StaleTerm {
                current_term: self.current_term,
            })
        } else if let Some(other) = self.voted_for.filter(|&v| v != from && !bugs.vote_twice) {
            Some(DenyReason::AlreadyVoted {
                voted_for: self.name(other),
            })
        } else if !bugs.skip_log_check && !theirs.is_at_least_as_up_to_date_as(mine) {
            Some(DenyReason::LogBehind { theirs, mine })
        } else {
            None
        };
        let candidate = self.name(from);
        let vote_granted = match deny {
            Some(reason) => {
                ctx.note(RaftNote::VoteDenied {
                    term,
                    candidate,
                    reason,
                });
                false
            }
            None => {
                self.voted_for = Some(from);
                ctx.note(RaftNote::VoteGranted { term, candidate });
                self.reset_election_timer(ctx);
                true
            }
        };
        ctx.send(
            from,
            RaftMsg::RequestVoteReply {
                term: self.current_term,
                vote_granted,
            },
        );
    }

    fn on_vote_reply<A: Handler>(
        &mut self,
        ctx: &mut Context<'_, A>,
        from: NodeId,
        term: u64,
        granted: bool,
    ) {
        if term != self.current_term || self.role == Role::Follower {
            return;
        }
        if granted && !self.votes.insert(from) {
            return; // A duplicated vote.
        }
        match self.role {
            // A refusal counts too when the candidate waits for every answer.
            Role::Candidate => self.count_votes(ctx),
            Role::Leader if granted => ctx.note(RaftNote::LateVote {
                term,
                voter: self.name(from),
                votes: self.votes.len() as u32,
            }),
            Role::Leader | Role::Follower => {}
        }
    }

    /// AppendEntries receiver implementation, the leader's part (the term rule has already
    /// run): a candidate steps down, the leader is recognised, the election timer reset.
    /// Returns whether the sender is the leader of this node's term.
    pub(crate) fn accept_leader<A: Handler>(
        &mut self,
        ctx: &mut Context<'_, A>,
        from: NodeId,
        term: u64,
    ) -> bool {
        let success = term == self.current_term && self.role != Role::Leader;
        if success {
            if self.role == Role::Candidate {
                // "If AppendEntries RPC received from new leader: convert to follower."
                ctx.note(RaftNote::SteppedDown {
                    from_term: term,
                    to_term: term,
                    because: StepDownCause::LeaderOfTerm {
                        leader: self.name(from),
                    },
                });
                self.become_follower(ctx);
            }
            if self.leader != Some(from) {
                self.leader = Some(from);
                ctx.note(RaftNote::Recognised {
                    leader: self.name(from),
                    term,
                });
            }
            if self.settings.bugs.reset_vote_on_heartbeat {
                self.voted_for = None; // The lesson's `votado_por = None`.
            }
            self.reset_election_timer(ctx);
        }
        success
    }
}

/// The server's part of [`sim_core::Actor`], which [`crate::raft::RaftNode`] dispatches to.
impl Server {
    /// The server's role word, for `"@leader"` steps.
    pub(crate) fn role_word(&self) -> &'static str {
        match self.role {
            Role::Leader => "leader",
            Role::Candidate => "candidate",
            Role::Follower => "follower",
        }
    }

    pub(crate) fn on_start<A: Handler>(&mut self, ctx: &mut Context<'_, A>) {
        ctx.note(RaftNote::Log {
            last_term: self.log.last_term(),
            last_index: self.log.last_index(),
        });
        ctx.note(RaftNote::Started {
            current_term: self.current_term,
            voted_for: self.voted_for.map(|v| self.name(v)),
        });
        if self.settings.replication && !self.started && self.log.last_index() > 0 {
            ctx.note(RaftNote::Entries {
                terms: self.log.terms(),
            });
        }
        match self.first_deadline.filter(|_| !self.started) {
            Some(pinned) => ctx.set_timer(RaftTimer::Election, pinned),
            None => self.reset_election_timer(ctx),
        }
        self.started = true;
    }

    pub(crate) fn on_message<A: Handler>(
        &mut self,
        ctx: &mut Context<'_, A>,
        from: NodeId,
        msg: RaftMsg,
    ) {
        if msg.is_reply() {
            self.stop_waiting(ctx, from);
        }
        if msg.term() > self.current_term {
            let ignored = self.settings.bugs.ignore_higher_term_in_replies
                && self.role == Role::Leader
                && matches!(msg, RaftMsg::AppendEntriesReply { .. });
            if !ignored {
                self.adopt_higher_term(ctx, msg.term(), from, msg.kind());
            }
        }
        match msg {
            RaftMsg::RequestVote {
                term,
                last_log_index,
                last_log_term,
            } => {
                let theirs = LastEntry {
                    term: last_log_term,
                    index: last_log_index,
                };
                self.on_request_vote(ctx, from, term, theirs);
            }
            RaftMsg::RequestVoteReply { term, vote_granted } => {
                self.on_vote_reply(ctx, from, term, vote_granted);
            }
            RaftMsg::AppendEntries {
                term,
                prev_log_index,
                prev_log_term,
                entries,
                leader_commit,
            } => {
                let leads = self.accept_leader(ctx, from, term);
                let reply = if self.settings.replication && leads {
                    self.store(
                        ctx,
                        from,
                        prev_log_index,
                        prev_log_term,
                        entries,
                        leader_commit,
                    )
                } else {
                    RaftMsg::AppendEntriesReply {
                        term: self.current_term,
                        success: leads,
                        match_index: 0,
                        last_log_index: 0,
                        rejected: 0,
                    }
                };
                ctx.send(from, reply);
            }
            reply @ RaftMsg::AppendEntriesReply { .. } => {
                if self.settings.replication {
                    self.on_append_reply(ctx, from, reply);
                }
            }
            RaftMsg::ClientRequest {
                seq,
                key,
                value,
                request,
            } => {
                self.on_client_request(ctx, from, seq, key, value, request);
            }
            RaftMsg::ClientReply { .. } => {}
        }
    }

    pub(crate) fn on_timer<A: Handler>(&mut self, ctx: &mut Context<'_, A>, timer: RaftTimer) {
        match timer {
            RaftTimer::Election => {
                if self.role != Role::Leader {
                    self.start_election(ctx);
                }
            }
            RaftTimer::Heartbeat => {
                if self.role == Role::Leader {
                    self.send_heartbeats(ctx);
                }
            }
            RaftTimer::Rpc { peer, seq } => {
                if self.awaiting.get(&peer) == Some(&Awaiting::Pending(seq)) {
                    self.awaiting.insert(peer, Awaiting::TimedOut);
                    ctx.note(RaftNote::RpcTimeout {
                        peer: self.name(peer),
                        term: self.current_term,
                    });
                    self.count_votes(ctx);
                }
            }
            RaftTimer::ClientRetry { .. } => {}
        }
    }

    pub(crate) fn on_crash(&mut self) {
        // current_term, voted_for and the log are durable; the rest is volatile.
        if self.settings.bugs.forget_term_on_restart {
            self.current_term = 0;
            self.voted_for = None;
        }
        self.role = Role::Follower;
        self.votes.clear();
        self.leader = None;
        self.awaiting.clear();
        self.led = Led(None);
        self.commit_index = 0;
        self.last_applied = 0;
        self.kv = Kv::default();
        self.next_index.clear();
        self.match_index.clear();
    }
}
