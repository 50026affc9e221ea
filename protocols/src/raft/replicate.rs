//! Log replication, the server's other half (§5.3 and §5.4.2 of the paper, Figure 2's
//! AppendEntries and "Rules for Servers"):
//!
//! - a client's write reaches the leader, which appends (index, term, command) to its log and
//!   sends it with AppendEntries;
//! - a follower stores entries only if its log holds an entry at prevLogIndex of term
//!   prevLogTerm; otherwise the leader walks its nextIndex back ("to the last point in
//!   common", the lesson says) and sends again. A conflicting entry and all that follow it
//!   are deleted; matching entries are kept, so a late, shorter AppendEntries erases nothing;
//! - the leader commits index N once a majority's matchIndex reaches N **and log\[N\] is of
//!   its own term** ("Raft never commits log entries from previous terms by counting
//!   replicas", §5.4.2); older entries commit with it. Followers learn commitIndex from
//!   leaderCommit; every server applies committed entries in order, and the leader answers
//!   the client.

use crate::kvstore::Answer;
use crate::raft::config::Reads;
use crate::raft::handler::Handler;
use crate::raft::log::{Entry, Request, Write};
use crate::raft::msg::RaftMsg;
use crate::raft::notes::RaftNote;
use crate::raft::server::{Role, Server};
use sim_core::{Context, Name, NodeId};

/// The most entries one AppendEntries carries; a longer gap takes several round trips.
pub const MAX_BATCH: usize = 64;

impl Server {
    /// "Reinitialized after election": nextIndex = leader's last index + 1, matchIndex = 0.
    pub(crate) fn start_leading<A: Handler>(&mut self, ctx: &mut Context<'_, A>) {
        if self.settings.bugs.leader_drops_uncommitted && self.log.last_index() > self.commit_index
        {
            let dropped = self.log.last_index() - self.commit_index;
            self.log.truncate(self.commit_index);
            ctx.note(RaftNote::Stored {
                leader: self.name(ctx.id()),
                kept: self.commit_index,
                dropped,
                entries: Vec::new(),
            });
        }
        let next = self.log.last_index() + 1;
        self.older_held = 0;
        self.next_index = vec![next; self.servers];
        self.match_index = vec![0; self.servers];
        self.match_index[ctx.id().index()] = self.log.last_index();
    }

    /// The AppendEntries for `peer`: the entries from its nextIndex on (none for a heartbeat
    /// to a follower that has them all), after the entry before them.
    pub(crate) fn append_entries_for(&self, peer: NodeId) -> RaftMsg {
        let next = self
            .next_index
            .get(peer.index())
            .copied()
            .unwrap_or(self.log.last_index() + 1)
            .clamp(1, self.log.last_index() + 1);
        let prev_log_index = next - 1;
        RaftMsg::AppendEntries {
            term: self.current_term,
            prev_log_index,
            prev_log_term: self.log.term_at(prev_log_index).unwrap_or(0),
            entries: self.log.from(next, MAX_BATCH),
            leader_commit: self.commit_index,
        }
    }

    /// The AppendEntries receiver's log steps (the sender leads this node's term): the
    /// consistency check, conflict deletion, appending, and learning leaderCommit. Returns
    /// the reply.
    pub(crate) fn store<A: Handler>(
        &mut self,
        ctx: &mut Context<'_, A>,
        from: NodeId,
        prev_log_index: u64,
        prev_log_term: u64,
        entries: Vec<Entry>,
        leader_commit: u64,
    ) -> RaftMsg {
        let bugs = self.settings.bugs;
        // 2. "Reply false if log doesn't contain an entry at prevLogIndex whose term matches
        //    prevLogTerm."
        let matches = self.log.term_at(prev_log_index) == Some(prev_log_term);
        if !matches && !bugs.skip_prev_log_check {
            return RaftMsg::AppendEntriesReply {
                term: self.current_term,
                success: false,
                match_index: 0,
                last_log_index: self.log.last_index(),
                rejected: prev_log_index,
            };
        }
        // With the check skipped, a short log gets the entries at its end, whatever their
        // index was meant to be.
        let start = prev_log_index.min(self.log.last_index());
        let covered = start + entries.len() as u64;
        let before = self.log.last_index();
        let (kept, new) = if bugs.truncate_on_every_append {
            (start, entries)
        } else {
            self.new_entries(start, entries)
        };
        if kept < before || !new.is_empty() {
            self.log.truncate(kept);
            for entry in &new {
                self.log.push(entry.clone());
            }
            ctx.note(RaftNote::Stored {
                leader: self.name(from),
                kept,
                dropped: before - kept,
                entries: new,
            });
        }
        // 5. "If leaderCommit > commitIndex, set commitIndex = min(leaderCommit, index of last
        //    new entry)."
        let learnt = leader_commit.min(covered);
        if learnt > self.commit_index {
            self.commit_index = learnt;
            ctx.note(RaftNote::Committed {
                index: learnt,
                term: self.current_term,
                by: Some(self.name(from)),
            });
            self.apply_committed(ctx);
        }
        RaftMsg::AppendEntriesReply {
            term: self.current_term,
            success: true,
            match_index: covered,
            last_log_index: 0,
            rejected: 0,
        }
    }

    /// Steps 3 and 4 for `entries` meant to follow index `start`: how many entries of the
    /// log to keep, and which to append after them.
    ///
    /// 3. "If an existing entry conflicts with a new one (same index but different terms),
    ///    delete the existing entry and all that follow it."
    /// 4. "Append any new entries not already in the log."
    fn new_entries(&self, start: u64, entries: Vec<Entry>) -> (u64, Vec<Entry>) {
        let mut kept = self.log.last_index();
        let mut new = Vec::new();
        for (k, entry) in entries.into_iter().enumerate() {
            let index = start + 1 + k as u64;
            if new.is_empty() {
                match self.log.term_at(index) {
                    Some(term) if term == entry.term => continue,
                    Some(_) => kept = index - 1,
                    None => {}
                }
            }
            new.push(entry);
        }
        (kept, new)
    }

    /// The leader hears back: on success it advances matchIndex and nextIndex and perhaps
    /// commitIndex; on a mismatch it walks nextIndex back and tries again at once.
    pub(crate) fn on_append_reply<A: Handler>(
        &mut self,
        ctx: &mut Context<'_, A>,
        from: NodeId,
        reply: RaftMsg,
    ) {
        let RaftMsg::AppendEntriesReply {
            term,
            success,
            match_index,
            last_log_index,
            rejected,
        } = reply
        else {
            return;
        };
        if self.role != Role::Leader || term != self.current_term {
            return;
        }
        let i = from.index();
        if i >= self.next_index.len() {
            return;
        }
        if success {
            let matched = match_index.min(self.log.last_index());
            self.match_index[i] = self.match_index[i].max(matched);
            self.next_index[i] = self.next_index[i].max(matched + 1);
            self.advance_commit(ctx);
            if self.next_index[i] <= self.log.last_index() {
                let msg = self.append_entries_for(from);
                self.request(ctx, from, msg);
            }
        } else if rejected.saturating_add(1) == self.next_index[i] {
            // "If AppendEntries fails because of log inconsistency: decrement nextIndex and
            // retry", skipping past the end of a shorter log at once, never below what the
            // follower is known to hold. A refusal of an older request is ignored: the answer
            // to the latest one is on its way.
            let back = rejected
                .min(last_log_index.saturating_add(1))
                .max(self.match_index[i] + 1)
                .max(1);
            if back >= self.next_index[i] {
                return; // No step back is possible: the next heartbeat tries again.
            }
            self.next_index[i] = back;
            ctx.note(RaftNote::SteppedBack {
                follower: self.name(from),
                mismatch_at: rejected,
                next_index: back,
            });
            let msg = self.append_entries_for(from);
            self.request(ctx, from, msg);
        }
    }

    /// "If there exists an N such that N > commitIndex, a majority of matchIndex[i] >= N, and
    /// log[N].term == currentTerm: set commitIndex = N."
    fn advance_commit<A: Handler>(&mut self, ctx: &mut Context<'_, A>) {
        let me = ctx.id().index();
        self.match_index[me] = self.log.last_index();
        let mut n = self.log.last_index();
        while n > self.commit_index {
            let holders = self.match_index.iter().filter(|&&m| m >= n).count();
            let term_at = self.log.term_at(n).unwrap_or(0);
            let own_term = term_at == self.current_term;
            if holders >= self.majority() && !own_term && n > self.older_held {
                // The rule at work: say so once per entry, it is what Figure 8 is about.
                self.older_held = n;
                if !self.settings.bugs.commit_old_terms {
                    ctx.note(RaftNote::NotCommitted {
                        index: n,
                        entry_term: term_at,
                        term: self.current_term,
                    });
                }
            }
            if holders >= self.majority() && (own_term || self.settings.bugs.commit_old_terms) {
                self.commit_index = n;
                ctx.note(RaftNote::Committed {
                    index: n,
                    term: self.current_term,
                    by: None,
                });
                self.apply_committed(ctx);
                return;
            }
            n -= 1;
        }
    }

    /// "If commitIndex > lastApplied: increment lastApplied, apply log[lastApplied] to state
    /// machine"; the leader answers the client of each write it applies.
    pub(crate) fn apply_committed<A: Handler>(&mut self, ctx: &mut Context<'_, A>) {
        let first = self.last_applied + 1;
        let mut applied = Vec::new();
        while self.last_applied < self.commit_index {
            let index = self.last_applied + 1;
            let Some(entry) = self.log.get(index).cloned() else {
                break;
            };
            self.last_applied = index;
            if let Some(write) = &entry.write {
                let forget = self.settings.bugs.forget_requests;
                let (at, answer) =
                    self.kv
                        .apply(&write.client, write.seq, write.op(), index, forget);
                if self.role == Role::Leader {
                    self.answer(ctx, write, Some(at), answer);
                }
            }
            applied.push(entry);
        }
        if !applied.is_empty() {
            ctx.note(RaftNote::Applied {
                first,
                entries: applied,
            });
        }
    }

    /// Sends the client of `write` its answer.
    fn answer<A: Handler>(
        &self,
        ctx: &mut Context<'_, A>,
        write: &Write,
        index: Option<u64>,
        answer: Answer,
    ) {
        if let Some(client) = self.names.iter().position(|n| *n == write.client) {
            ctx.send(
                NodeId(client as u32),
                RaftMsg::ClientReply {
                    seq: write.seq,
                    index,
                    leader: None,
                    answer,
                },
            );
        }
    }

    /// A client's write: the leader appends it and replicates it at once; a follower names
    /// the leader it knows (or none) so that the client can go there.
    pub(crate) fn on_client_request<A: Handler>(
        &mut self,
        ctx: &mut Context<'_, A>,
        from: NodeId,
        seq: u64,
        key: Name,
        value: Name,
        request: Request,
    ) {
        if self.role != Role::Leader || !self.settings.replication {
            ctx.send(
                from,
                RaftMsg::ClientReply {
                    seq,
                    index: None,
                    leader: self.leader.filter(|&l| l != ctx.id()),
                    answer: Answer::Written,
                },
            );
            return;
        }
        let write = Write {
            client: self.name(from),
            seq,
            key,
            value,
            request,
        };
        if write.request == Request::Get && self.settings.reads == Reads::LeaderLocal {
            // Answered from this leader's own state machine, without asking anyone whether
            // it still leads: what makes the read fast, and stale behind a partition.
            let answer = self.kv.read(&write.key);
            self.answer(ctx, &write, Some(self.last_applied), answer);
            return;
        }
        if !self.settings.bugs.forget_requests
            && let Some((at, answer)) = self.kv.applied_at(&write.client, seq)
        {
            self.answer(ctx, &write, Some(at), answer);
            return;
        }
        let waiting = self
            .log
            .from(self.commit_index + 1, usize::MAX)
            .iter()
            .any(|e| e.term == self.current_term && e.write.as_ref() == Some(&write));
        if waiting {
            return; // Already in this term's log; the answer comes when it commits.
        }
        let entry = Entry {
            term: self.current_term,
            write: Some(write),
        };
        let index = self.log.push(entry.clone());
        ctx.note(RaftNote::Appended { index, entry });
        self.advance_commit(ctx);
        for peer in self.peers(ctx.id()) {
            if self.next_index[peer.index()] == index {
                let msg = self.append_entries_for(peer);
                self.request(ctx, peer, msg);
            }
        }
    }
}

#[cfg(test)]
mod tests;
