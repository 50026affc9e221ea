//! Handler tests of log replication with `TestContext` (no kernel): the follower's consistency
//! check, conflict deletion and idempotence, and the leader's commit rule, each bug knob next
//! to its control.

use crate::raft::log::Request;
use crate::raft::*;
use sim_core::actor::{notes_of as notes, sends_of as sent};
use sim_core::{Actor, NodeId, TestContext};

const S1: NodeId = NodeId(0);
const S2: NodeId = NodeId(1);
const S3: NodeId = NodeId(2);

/// Three servers with these logs (entry terms), replication on, every term starting at
/// `term`, and the bug knobs `bugs`.
fn config(logs: [&[u64]; 3], term: u64, bugs: Bugs) -> RaftConfig {
    let names = ["s1", "s2", "s3"];
    let mut config = RaftConfig::new(
        names
            .iter()
            .zip(logs)
            .map(|(n, log)| NodeSpec {
                term,
                ..NodeSpec::with_entries(n, log)
            })
            .collect(),
    );
    config.bugs = bugs;
    config
}

fn started(config: &RaftConfig, id: NodeId) -> (RaftNode, TestContext<RaftNode>) {
    let mut node = RaftNode::new(config, id);
    let mut t = TestContext::new(id);
    node.on_start(&mut t.ctx());
    t.take();
    (node, t)
}

fn append(term: u64, prev: (u64, u64), entries: &[u64], commit: u64) -> RaftMsg {
    RaftMsg::AppendEntries {
        term,
        prev_log_index: prev.0,
        prev_log_term: prev.1,
        entries: entries.iter().map(|&t| Entry::given(t)).collect(),
        leader_commit: commit,
    }
}

fn reply_of(effects: &[sim_core::Effect<RaftNode>]) -> RaftMsg {
    sent(effects)
        .into_iter()
        .map(|(_, m)| m)
        .find(|m| matches!(m, RaftMsg::AppendEntriesReply { .. }))
        .expect("an AppendEntriesReply")
}

fn terms(node: &RaftNode) -> Vec<u64> {
    node.server().unwrap().log().terms()
}

// Goal: the consistency check. Method: s2 holds [1, 1]; the leader of term 2 sends entries
// after (3, 1), then after (2, 1). Proves: the first is refused, with s2's last index as the
// hint and the log untouched; the second is stored and answered with match_index 3.
#[test]
fn a_follower_refuses_entries_that_do_not_follow_its_log() {
    let (mut s2, mut t) = started(&config([&[1, 1], &[1, 1], &[1, 1]], 1, Bugs::default()), S2);
    s2.on_message(&mut t.ctx(), S1, append(2, (3, 1), &[2], 0));
    let effects = t.take();
    assert_eq!(
        reply_of(&effects),
        RaftMsg::AppendEntriesReply {
            term: 2,
            success: false,
            match_index: 0,
            last_log_index: 2,
            rejected: 3,
        }
    );
    assert_eq!(terms(&s2), [1, 1]);
    s2.on_message(&mut t.ctx(), S1, append(2, (2, 1), &[2], 0));
    let effects = t.take();
    assert_eq!(
        reply_of(&effects),
        RaftMsg::AppendEntriesReply {
            term: 2,
            success: true,
            match_index: 3,
            last_log_index: 0,
            rejected: 0,
        }
    );
    assert_eq!(terms(&s2), [1, 1, 2]);
}

// Goal: the consistency check is what keeps logs matching. Method: the refused AppendEntries
// of the test above, with skip_prev_log_check. Proves: the entry lands at index 3 after a
// log that never held (3, 1) where the leader meant index 4.
#[test]
fn skipping_the_check_stores_entries_at_the_wrong_index() {
    let bugs = Bugs {
        skip_prev_log_check: true,
        ..Bugs::default()
    };
    let (mut s2, mut t) = started(&config([&[1, 1], &[1, 1], &[1, 1]], 1, bugs), S2);
    s2.on_message(&mut t.ctx(), S1, append(2, (3, 1), &[2], 0));
    t.take();
    assert_eq!(terms(&s2), [1, 1, 2]);
}

// Goal: conflict deletion. Method: s3 holds [1, 1, 2]; the leader of term 3 sends [3, 3]
// after (2, 1). Proves: entry 3 (term 2) and what follows is deleted, the new entries stored,
// and the note says kept 2, dropped 1.
#[test]
fn a_conflicting_entry_and_all_after_it_are_replaced() {
    let (mut s3, mut t) = started(
        &config([&[1, 1], &[1, 1], &[1, 1, 2]], 2, Bugs::default()),
        S3,
    );
    s3.on_message(&mut t.ctx(), S1, append(3, (2, 1), &[3, 3], 0));
    let effects = t.take();
    assert_eq!(terms(&s3), [1, 1, 3, 3]);
    assert!(notes(&effects).contains(&RaftNote::Stored {
        leader: "s1".into(),
        kept: 2,
        dropped: 1,
        entries: vec![Entry::given(3), Entry::given(3)],
    }));
}

// Goal: a late, shorter AppendEntries erases nothing, unless the truncate knob is on. Method:
// s2 holds [1, 1, 1]; an old AppendEntries of term 1 carrying entry 2 (after (1, 1)) arrives.
// Proves: correct s2 keeps all three entries, notes no change and answers match_index 2;
// with truncate_on_every_append it drops entry 3.
#[test]
fn a_late_shorter_append_erases_nothing_but_the_truncating_bug_does() {
    let logs: [&[u64]; 3] = [&[1, 1, 1], &[1, 1, 1], &[1, 1, 1]];
    let (mut s2, mut t) = started(&config(logs, 1, Bugs::default()), S2);
    s2.on_message(&mut t.ctx(), S1, append(1, (1, 1), &[1], 0));
    let effects = t.take();
    assert_eq!(terms(&s2), [1, 1, 1]);
    assert!(
        !notes(&effects)
            .iter()
            .any(|n| matches!(n, RaftNote::Stored { .. }))
    );
    assert!(matches!(
        reply_of(&effects),
        RaftMsg::AppendEntriesReply {
            success: true,
            match_index: 2,
            ..
        }
    ));
    let bugs = Bugs {
        truncate_on_every_append: true,
        ..Bugs::default()
    };
    let (mut s2, mut t) = started(&config(logs, 1, bugs), S2);
    s2.on_message(&mut t.ctx(), S1, append(1, (1, 1), &[1], 0));
    t.take();
    assert_eq!(terms(&s2), [1, 1]);
}

/// s1 leads term 3 (s2's vote), with the logs given: its first AppendEntries are taken.
fn leader(bugs: Bugs) -> (RaftNode, TestContext<RaftNode>) {
    let (mut s1, mut t) = started(&config([&[1, 2], &[1], &[1]], 2, bugs), S1);
    s1.on_timer(&mut t.ctx(), RaftTimer::Election);
    s1.on_message(
        &mut t.ctx(),
        S2,
        RaftMsg::RequestVoteReply {
            term: 3,
            vote_granted: true,
        },
    );
    assert_eq!(s1.server().unwrap().role(), Role::Leader);
    t.take();
    (s1, t)
}

fn matched(index: u64) -> RaftMsg {
    RaftMsg::AppendEntriesReply {
        term: 3,
        success: true,
        match_index: index,
        last_log_index: 0,
        rejected: 0,
    }
}

// Goal: §5.4.2's rule, with the Figure 8 knob as the contrast. Method: s1 leads term 3 with
// [1, 2]; s2 reports it holds index 2 (a majority: s1, s2). Proves: correct s1 does not commit
// entry 2 (of term 2) and notes why; a client write of term 3 at index 3, once s2 holds it,
// commits 3 and 2 with it. With commit_old_terms, s1 commits entry 2 at once.
#[test]
fn a_leader_commits_only_entries_of_its_own_term_by_counting() {
    let (mut s1, mut t) = leader(Bugs::default());
    s1.on_message(&mut t.ctx(), S2, matched(2));
    let effects = t.take();
    assert_eq!(s1.server().unwrap().commit_index(), 0);
    assert!(notes(&effects).contains(&RaftNote::NotCommitted {
        index: 2,
        entry_term: 2,
        term: 3,
    }));
    let write = RaftMsg::ClientRequest {
        seq: 1,
        key: "x".into(),
        value: "1".into(),
        request: Request::Put,
    };
    s1.on_message(&mut t.ctx(), NodeId(3), write);
    s1.on_message(&mut t.ctx(), S2, matched(3));
    let effects = t.take();
    assert_eq!(s1.server().unwrap().commit_index(), 3);
    assert!(notes(&effects).contains(&RaftNote::Committed {
        index: 3,
        term: 3,
        by: None,
    }));

    let (mut s1, mut t) = leader(Bugs {
        commit_old_terms: true,
        ..Bugs::default()
    });
    s1.on_message(&mut t.ctx(), S2, matched(2));
    t.take();
    assert_eq!(s1.server().unwrap().commit_index(), 2);
}

// Goal: walking back. Method: s1 leads term 3 with [1, 2]; s3 refuses (its last index 1).
// Proves: nextIndex goes back past s3's end at once and the retry sends entry 2 after (1, 1).
#[test]
fn a_refused_append_steps_next_index_back_and_retries() {
    let (mut s1, mut t) = leader(Bugs::default());
    let refused = RaftMsg::AppendEntriesReply {
        term: 3,
        success: false,
        match_index: 0,
        last_log_index: 1,
        rejected: 2,
    };
    s1.on_message(&mut t.ctx(), S3, refused);
    let effects = t.take();
    let retry: Vec<RaftMsg> = sent(&effects)
        .into_iter()
        .filter(|(to, _)| *to == S3)
        .map(|(_, m)| m)
        .collect();
    assert_eq!(retry, [append(3, (1, 1), &[2], 0)]);
}

// Goal: a new leader appends only, unless the knob on dropping uncommitted entries is on.
// Method: s1 wins term 3 holding an uncommitted entry 2. Proves: the correct leader keeps
// [1, 2]; with leader_drops_uncommitted it deletes entry 2 and notes it.
#[test]
fn a_new_leader_keeps_its_uncommitted_tail() {
    let (s1, _) = leader(Bugs::default());
    assert_eq!(terms(&s1), [1, 2]);
    let (s1, _) = leader(Bugs {
        leader_drops_uncommitted: true,
        ..Bugs::default()
    });
    assert_eq!(terms(&s1), Vec::<u64>::new());
}
