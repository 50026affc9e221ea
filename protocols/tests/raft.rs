//! Raft leader election driven through the kernel: the course's RF-1 and RF-2, the bug knobs
//! against their control runs, and determinism.

use protocols::raft::{self, Raft, RaftConfig, RaftExpect, RaftNode, RaftNote, Role};
use sim_core::{
    Action, Duration, Event, FaultRule, Instant, Latency, Limits, LinkConfig, NodeId, Outcome,
    Protocol, Ratio, Record, RuleAction, Sim, SimConfig, Status, TraceMode, build_sim, trace,
};
use traces::{Lang, Story};

const N1: NodeId = NodeId(0);
const N2: NodeId = NodeId(1);
const N3: NodeId = NodeId(2);

fn ms(n: u64) -> Instant {
    Instant::from_millis(n)
}

/// The lesson's network: latency uniform in [2, 10] ms, nothing lost.
fn lesson_link() -> LinkConfig {
    LinkConfig {
        latency: Latency::Uniform {
            min: Duration::from_millis(2),
            max: Duration::from_millis(10),
        },
        loss: Ratio::ZERO,
        duplicate: Ratio::ZERO,
    }
}

/// A traced simulation of `config` that keeps running after a violation (so tests see them all).
fn traced(config: &RaftConfig, seed: u64, end_ms: u64) -> Sim<RaftNode> {
    let mut s = build_sim::<Raft>(
        config,
        SimConfig {
            seed,
            link: lesson_link(),
            limits: Limits {
                max_time: ms(end_ms),
                ..Limits::default()
            },
            stop_on_violation: false,
        },
    );
    s.set_trace(TraceMode::Memory(Vec::new()));
    s
}

/// The notes as (ms, node, note), the shape these tests compare.
fn notes(records: &[Record<RaftNode>]) -> Vec<(u64, String, RaftNote)> {
    trace::notes(records)
        .map(|(t, node, note)| (t.as_millis(), node.to_string(), note.clone()))
        .collect()
}

fn story(records: &[Record<RaftNode>], lang: Lang) -> String {
    records
        .iter()
        .filter_map(|r| {
            Raft::narrate(r, lang).map(|line| format!("{:>8} {line}\n", r.time.to_string()))
        })
        .collect()
}

fn violated(sim: &Sim<RaftNode>) -> Vec<String> {
    sim.violations()
        .iter()
        .map(|v| v.invariant.clone())
        .collect()
}

/// The node that leads at `at`, as the lesson picks `lider` (the highest term among leaders).
/// Found on a fork, so the run itself is scheduled before it starts (`run_until` can step past
/// its deadline when it skips stale timers, which would move the fault).
fn leader_at(s: &Sim<RaftNode>, at: Instant) -> NodeId {
    let mut probe = s.clone();
    probe.set_trace(TraceMode::Off);
    probe.run_until(at);
    probe
        .claimant("leader", |status| status == Status::Up)
        .expect("a leader by 1 s")
}

/// RF-1 as the lesson stages it: the leader goes down (`down`) at 1 s, returns (`up`) at 2 s,
/// run to 3 s. Returns the run, its records and the leader that went down.
fn rf1_with(
    seed: u64,
    down: fn(NodeId) -> Action<raft::RaftCommand>,
    up: fn(NodeId) -> Action<raft::RaftCommand>,
) -> (Sim<RaftNode>, Vec<Record<RaftNode>>, String) {
    let mut config = RaftConfig::lesson();
    config.elect_within_ms = Some(1000);
    let mut s = traced(&config, seed, 3000);
    let leader = leader_at(&s, ms(999));
    s.schedule(ms(1000), down(leader));
    s.schedule(ms(2000), up(leader));
    s.run();
    let records = s.take_records();
    let name = s.name(leader).to_string();
    (s, records, name)
}

fn rf1(seed: u64) -> (Sim<RaftNode>, Vec<Record<RaftNode>>, String) {
    rf1_with(seed, Action::Pause, Action::Resume)
}

/// Every node's (role, term) at the end.
fn finals(s: &Sim<RaftNode>) -> Vec<(Role, u64)> {
    s.node_ids()
        .map(|id| {
            (
                s.actor(id).server().unwrap().role(),
                s.actor(id).server().unwrap().current_term(),
            )
        })
        .collect()
}

/// The facts of RF-1 that hold for any seed: nodo-3 stands first, in term 1, and both others
/// deny it for its log; a leader is elected before the pause; after nodo-1 pauses some other node
/// leads a higher term; nodo-1 steps down at the first message of that term it gets after
/// resuming; at the end exactly one leader, everyone in its term; no invariant broken.
fn assert_rf1_facts(s: &Sim<RaftNode>, records: &[Record<RaftNode>], old: &str) {
    let ns = notes(records);
    let seed = s.seed();
    let first = ns
        .iter()
        .find(|(_, _, n)| matches!(n, RaftNote::BecameCandidate { .. }));
    assert!(
        matches!(first, Some((120, who, RaftNote::BecameCandidate { term: 1 })) if who == "nodo-3"),
        "seed {seed}: {first:?}"
    );
    for voter in ["nodo-1", "nodo-2"] {
        let denied = Raft::check(
            &RaftConfig::lesson(),
            &RaftExpect::Denied {
                term: 1,
                voter: voter.into(),
                candidate: "nodo-3".into(),
            },
            &Outcome { sim: s, records },
        );
        assert!(denied.is_ok(), "seed {seed}: {denied:?}");
    }
    let leaders: Vec<(u64, String, u64)> = ns
        .iter()
        .filter_map(|(t, who, n)| match n {
            RaftNote::BecameLeader { term, .. } => Some((*t, who.clone(), *term)),
            _ => None,
        })
        .collect();
    let before = leaders
        .iter()
        .rfind(|l| l.0 < 1000)
        .expect("a leader before 1 s");
    assert!(
        before.1 != "nodo-3",
        "seed {seed}: the stale log never leads"
    );
    assert_eq!(
        before.1, old,
        "seed {seed}: the leader at 1 s is the one that goes down"
    );
    let after = leaders
        .iter()
        .find(|l| l.0 >= 1000 && l.0 < 2000)
        .unwrap_or_else(|| panic!("seed {seed}: no leader while nodo-1 is away: {leaders:?}"));
    assert!(
        after.1 != old && after.2 > before.2,
        "seed {seed}: {after:?}"
    );

    // The old leader's first delivery after resuming carries the new term, and it steps down right there.
    let (deliver_step, deliver_id) = records
        .iter()
        .find_map(|r| match &r.event {
            Event::Deliver { id, to, .. } if &**to == old && r.time >= ms(2000) => {
                Some((r.step, *id))
            }
            _ => None,
        })
        .expect("the old leader hears from the others after resuming");
    let carried = records
        .iter()
        .find_map(|r| match &r.event {
            Event::Send { id, msg, .. } if *id == deliver_id => Some(msg.term()),
            _ => None,
        })
        .unwrap();
    assert!(carried > before.2, "seed {seed}");
    assert!(
        records.iter().any(|r| r.step == deliver_step
            && matches!(&r.event, Event::Note { node, note: RaftNote::SteppedDown { from_term, .. } }
                if &**node == old && *from_term == before.2)),
        "seed {seed}: {old} steps down at its first message of the new term"
    );

    let end = finals(s);
    assert_eq!(
        end.iter().filter(|(r, _)| *r == Role::Leader).count(),
        1,
        "seed {seed}: {end:?}"
    );
    assert!(
        end.iter().all(|(_, t)| *t == end[0].1),
        "seed {seed}: {end:?}"
    );
    assert!(
        s.violations().is_empty(),
        "seed {seed}: {:?}",
        s.violations()
    );
}

// Goal: replay RF-1 of the course through the kernel. Method: the lesson's cast, timing and
// network (seed 0), pause nodo-1 at 1 s and resume it at 2 s, run to 3 s; check the facts, then
// the exact outcome of this seed through the expectations. Proves: the stale log cannot win,
// a paused leader is replaced in a higher term and steps down on return, and the time without a
// leader is sane (printed with the story).
#[test]
fn rf1_replays_the_lesson() {
    let (s, records, old) = rf1(0);
    println!("{}", story(&records, Lang::Es));
    assert_eq!(
        old, "nodo-1",
        "with seed 0 nodo-1 leads term 2, as in the lesson"
    );
    assert_rf1_facts(&s, &records, &old);
    let outcome = Outcome {
        sim: &s,
        records: &records,
    };
    for expect in [
        RaftExpect::LeaderOfTerm {
            term: 2,
            node: "nodo-1".into(),
        },
        RaftExpect::LeaderOfTerm {
            term: 4,
            node: "nodo-2".into(),
        },
        RaftExpect::Denied {
            term: 3,
            voter: "nodo-2".into(),
            candidate: "nodo-3".into(),
        },
        RaftExpect::Leader {
            node: "nodo-2".into(),
            term: 4,
        },
        RaftExpect::Final {
            node: "nodo-1".into(),
            role: Role::Follower,
            term: 4,
        },
        RaftExpect::Final {
            node: "nodo-3".into(),
            role: Role::Follower,
            term: 4,
        },
        RaftExpect::NoLeaderLongerThanMs { ms: 400 },
    ] {
        let result = Raft::check(&RaftConfig::lesson(), &expect, &outcome);
        println!("{expect:?}: {result:?}");
        assert!(result.is_ok(), "{expect:?}: {result:?}");
    }
    let (gap, since) = raft::expect::longest_gap(&records, s.now());
    println!("longest time without a leader: {gap} ms from {since}");
    assert!(
        since >= ms(1000) && (100..=450).contains(&gap),
        "{gap} ms from {since}"
    );
    // And what a wrong expectation says.
    let wrong = Raft::check(
        &RaftConfig::lesson(),
        &RaftExpect::Leader {
            node: "nodo-1".into(),
            term: 4,
        },
        &outcome,
    );
    assert_eq!(
        wrong,
        Err("expected nodo-1 to end as leader of term 4, but it is follower of term 4".into())
    );
    let wrong = Raft::check(
        &RaftConfig::lesson(),
        &RaftExpect::LeaderOfTerm {
            term: 2,
            node: "nodo-3".into(),
        },
        &outcome,
    );
    assert!(wrong.unwrap_err().contains("but the leader was nodo-1"));
    // The English story tells the same facts.
    let en = story(&records, Lang::En);
    assert!(en.contains("nodo-2 DENIES its vote to nodo-3 (its log (1,3) is behind mine (1,5))"));
    assert!(en.contains("nodo-1 is LEADER of term 2 with 2 votes"));
    assert!(en.contains("nodo-1 recognises nodo-2 as leader of term 4"));
}

// Goal: RF-1's facts do not depend on the seed. Method: 40 seeds of the same schedule.
// Proves: the general facts (not the exact terms) hold whatever the random streams give.
#[test]
fn rf1_facts_hold_for_any_seed() {
    let mut old_leaders = Vec::new();
    for seed in 0..40 {
        let (s, records, old) = rf1(seed);
        assert_rf1_facts(&s, &records, &old);
        old_leaders.push(old);
    }
    let n1 = old_leaders.iter().filter(|n| *n == "nodo-1").count();
    println!("nodo-1 led term 2 in {n1} of 40 seeds, nodo-2 in the others");
}

// Goal: RF-1 with a real crash instead of a pause. Method: crash the leader at 1 s, restart it at
// 2 s, 20 seeds.
// Proves: currentTerm and votedFor survive (Started note of the restart), the restarted node
// follows the new leader, and no invariant (terms never decrease included) breaks.
#[test]
fn rf1_with_crash_and_restart() {
    for seed in 0..20 {
        let (s, records, old) = rf1_with(seed, Action::Crash, Action::Restart);
        let restart = notes(&records)
            .into_iter()
            .find(|(t, who, n)| *t == 2000 && *who == old && matches!(n, RaftNote::Started { .. }))
            .expect("the old leader restarts");
        assert_eq!(
            restart.2,
            RaftNote::Started {
                current_term: 2,
                voted_for: Some(old.as_str().into())
            },
            "seed {seed}"
        );
        let old_id = s.node_id(&old).unwrap();
        let end = finals(&s);
        assert_eq!(
            end[old_id.index()].0,
            Role::Follower,
            "seed {seed}: {end:?}"
        );
        assert_eq!(
            end.iter().filter(|(r, _)| *r == Role::Leader).count(),
            1,
            "seed {seed}"
        );
        assert!(
            end.iter().all(|(_, t)| *t == end[0].1 && *t > 2),
            "seed {seed}: {end:?}"
        );
        assert!(
            s.violations().is_empty(),
            "seed {seed}: {:?}",
            s.violations()
        );
    }
}

/// RF-2's cast: equal logs, no pin, the given timeouts, 20 s. The term in which the first
/// leader is elected (or the highest term reached if none is), and the violations.
fn rf2(seed: u64, timeout: (u64, u64)) -> (u64, bool, Vec<String>) {
    let mut config = RaftConfig::lesson();
    config.nodes[2] = raft::NodeSpec::new("nodo-3", 1, 5);
    config.first_deadline_ms.clear();
    config.election_timeout_ms = timeout;
    let mut s = traced(&config, seed, 20_000);
    s.run();
    let records = s.take_records();
    let ns = notes(&records);
    let first = ns.iter().find_map(|(_, _, n)| match n {
        RaftNote::BecameLeader { term, .. } => Some(*term),
        _ => None,
    });
    let reached = s
        .node_ids()
        .map(|id| s.actor(id).server().unwrap().current_term())
        .max()
        .unwrap_or(0);
    (first.unwrap_or(reached), first.is_some(), violated(&s))
}

// Goal: RF-2, split votes. Method: 200 seeds with timeouts [150, 151] ms against the same seeds
// with [150, 300] ms, 20 s each; the term in which the first leader is elected (the highest term
// reached when none is). Proves: safety holds in every run (no invariant, at-most-one-leader
// included, ever fails); near-equal timeouts climb many more terms on average; [150, 300]
// settles in one or two terms.
#[test]
fn rf2_split_votes_climb_terms_but_never_split_brain() {
    let mut totals = [0u64; 2];
    let mut worst = [0u64; 2];
    let mut elected = [0u64; 2];
    for (i, timeout) in [(150, 151), (150, 300)].into_iter().enumerate() {
        for seed in 0..200 {
            let (term, leader, violations) = rf2(seed, timeout);
            assert!(
                violations.is_empty(),
                "seed {seed} {timeout:?}: {violations:?}"
            );
            totals[i] += term;
            worst[i] = worst[i].max(term);
            elected[i] += u64::from(leader);
        }
    }
    println!(
        "term of the first leader over 200 seeds: [150,151] mean {}.{:02} worst {} elected {}/200; \
         [150,300] mean {}.{:02} worst {} elected {}/200",
        totals[0] / 200,
        totals[0] % 200 / 2,
        worst[0],
        elected[0],
        totals[1] / 200,
        totals[1] % 200 / 2,
        worst[1],
        elected[1],
    );
    assert!(totals[0] > 2 * totals[1], "{totals:?}");
    assert_eq!(elected[1], 200, "[150, 300] always elects");
    assert!(
        totals[1] <= 2 * 200,
        "[150, 300] settles in one or two terms on average: {totals:?}"
    );
}

// Goal: determinism. Method: RF-1 twice with the same seed, records serialized to JSON; a third
// run with another seed. Proves: same seed, same bytes; and the comparison can fail.
#[test]
fn same_seed_same_records() {
    let json = |records: &[Record<RaftNode>]| -> String {
        records
            .iter()
            .map(|r| serde_json::to_string(r).unwrap() + "\n")
            .collect()
    };
    let a = json(&rf1(7).1);
    assert_eq!(a, json(&rf1(7).1));
    assert_ne!(a, json(&rf1(8).1));
}

/// The lesson's cast with equal logs, nodo-1 and nodo-2 both pinned at 120 ms: two candidates of
/// term 1 at the same instant.
fn twin_candidates() -> RaftConfig {
    let mut config = RaftConfig::lesson();
    config.nodes[2] = raft::NodeSpec::new("nodo-3", 1, 5);
    config.first_deadline_ms.clear();
    config.first_deadline_ms.insert("nodo-1".into(), 120);
    config.first_deadline_ms.insert("nodo-2".into(), 120);
    config
}

/// Runs `config` to `end_ms` with `seed`, after `setup`; returns the violated invariants.
fn violations_of(
    config: &RaftConfig,
    seed: u64,
    end_ms: u64,
    setup: impl Fn(&mut Sim<RaftNode>),
) -> Vec<String> {
    let mut s = traced(config, seed, end_ms);
    setup(&mut s);
    s.run();
    violated(&s)
}

// Goal: the vote_twice knob is caught. Method: nodo-1 and nodo-2 stand in term 1 at the same
// instant (both pinned at 120 ms), 20 seeds; control with the knob off. Proves: correct Raft
// elects one of them; with the knob the double vote is always caught, and in most seeds both
// reach a majority (split brain) before the first leader's heartbeat reaches the other.
#[test]
fn knob_vote_twice_against_control() {
    let mut config = twin_candidates();
    for seed in 0..20 {
        assert_eq!(
            violations_of(&config, seed, 1000, |_| {}),
            Vec::<String>::new(),
            "seed {seed}"
        );
    }
    config.bugs.vote_twice = true;
    let mut split = 0;
    for seed in 0..20 {
        let v = violations_of(&config, seed, 1000, |_| {});
        assert!(
            v.contains(&"one-vote-per-term".to_string()),
            "seed {seed}: {v:?}"
        );
        split += usize::from(v.contains(&"at-most-one-leader-per-term".to_string()));
    }
    println!("vote_twice: two leaders in term 1 in {split} of 20 seeds");
    assert!(split >= 10, "{split}");
}

// Goal: the skip_log_check knob is caught. Method: RF-1's first second (nodo-3, log (1,3), stands
// first), 20 seeds; control with the knob off. Proves: without the up-to-date check nodo-3 wins
// term 1 and the log invariant catches a leader behind a majority.
#[test]
fn knob_skip_log_check_against_control() {
    let mut config = RaftConfig::lesson();
    for seed in 0..20 {
        assert_eq!(
            violations_of(&config, seed, 1000, |_| {}),
            Vec::<String>::new(),
            "seed {seed}"
        );
    }
    config.bugs.skip_log_check = true;
    for seed in 0..20 {
        let v = violations_of(&config, seed, 1000, |_| {});
        assert_eq!(v, vec!["leader-log-up-to-date".to_string()], "seed {seed}");
    }
}

// Goal: the ignore_higher_term_in_replies knob is caught. Method: RF-1 (pause the leader at 1 s,
// resume at 2 s) with the new leader's messages to the old one cut from 1.9 s (one way), so the
// only news of the new term the old leader gets is in the replies to its own heartbeats; 20
// seeds; control with the knob off. Proves: correct Raft steps down on the reply; with the knob
// the old leader keeps its term and the adopt-higher-term invariant catches it.
#[test]
fn knob_ignore_higher_term_in_replies_against_control() {
    let mut config = RaftConfig::lesson();
    let stage = |s: &mut Sim<RaftNode>| {
        let old = leader_at(s, ms(999));
        s.schedule(ms(1000), Action::Pause(old));
        let new = leader_at_after_pause(s, old);
        s.schedule(ms(1900), Action::PartitionOneWay(vec![new], vec![old]));
        s.schedule(ms(2000), Action::Resume(old));
    };
    for seed in 0..20 {
        assert_eq!(
            violations_of(&config, seed, 3000, stage),
            Vec::<String>::new(),
            "seed {seed}"
        );
    }
    config.bugs.ignore_higher_term_in_replies = true;
    for seed in 0..20 {
        let v = violations_of(&config, seed, 3000, stage);
        assert!(
            v.contains(&"adopt-higher-term".to_string()),
            "seed {seed}: {v:?}"
        );
    }
}

/// The leader at 1.9 s of a fork of `s` where `old` is paused at 1 s.
fn leader_at_after_pause(s: &Sim<RaftNode>, old: NodeId) -> NodeId {
    let mut probe = s.clone();
    probe.schedule(ms(1000), Action::Pause(old));
    let new = leader_at(&probe, ms(1899));
    assert_ne!(new, old, "a new leader by 1.9 s");
    new
}

/// The schedule that makes the lesson's slip elect two leaders in term 1: nodo-1 and nodo-2
/// stand at 120 ms; nodo-2's RequestVote to nodo-3 is held 30 ms, so nodo-3 votes for nodo-1
/// first and gets nodo-1's first heartbeat (which, with the slip, clears its vote) before
/// nodo-2's request arrives; nodo-1's heartbeats to nodo-2 are held 100 ms so nodo-2 is still a
/// candidate when nodo-3's vote comes back.
fn slip_schedule(s: &mut Sim<RaftNode>) {
    let mut hold_vote = FaultRule::new(RuleAction::Delay {
        by: Duration::from_millis(30),
    });
    hold_vote.from = Some(N2);
    hold_vote.to = Some(N3);
    hold_vote.kind = Some("RequestVote".into());
    hold_vote.nth = Some(1);
    let mut hold_heartbeats = FaultRule::new(RuleAction::Delay {
        by: Duration::from_millis(100),
    });
    hold_heartbeats.from = Some(N1);
    hold_heartbeats.to = Some(N2);
    hold_heartbeats.kind = Some("AppendEntries".into());
    hold_heartbeats.until = Some(ms(200));
    s.schedule(Instant::ZERO, Action::AddRule(hold_vote));
    s.schedule(Instant::ZERO, Action::AddRule(hold_heartbeats));
}

// Goal: the lesson's own slip (votedFor cleared by every heartbeat) yields two leaders in one
// term. Method: the pinned schedule of `slip_schedule`, 20 seeds; control with the knob off and
// the same schedule. Proves: correct Raft keeps nodo-3's vote for nodo-1 and nodo-2 steps down at
// the held heartbeat; with the slip nodo-3 votes again and nodo-2 also leads term 1.
#[test]
fn knob_reset_vote_on_heartbeat_two_leaders_in_one_term() {
    let mut config = twin_candidates();
    for seed in 0..20 {
        let mut s = traced(&config, seed, 1000);
        slip_schedule(&mut s);
        s.run();
        assert_eq!(violated(&s), Vec::<String>::new(), "seed {seed}");
        let records = s.take_records();
        let denied = Raft::check(
            &config,
            &RaftExpect::Denied {
                term: 1,
                voter: "nodo-3".into(),
                candidate: "nodo-2".into(),
            },
            &Outcome {
                sim: &s,
                records: &records,
            },
        );
        assert!(denied.is_ok(), "seed {seed}: {denied:?}");
    }
    config.bugs.reset_vote_on_heartbeat = true;
    for seed in 0..20 {
        let mut s = traced(&config, seed, 1000);
        slip_schedule(&mut s);
        s.run();
        let v = violated(&s);
        assert!(
            v.contains(&"at-most-one-leader-per-term".to_string()),
            "seed {seed}: {v:?}"
        );
        let records = s.take_records();
        let outcome = Outcome {
            sim: &s,
            records: &records,
        };
        for node in ["nodo-1", "nodo-2"] {
            let led = Raft::check(
                &config,
                &RaftExpect::LeaderOfTerm {
                    term: 1,
                    node: node.into(),
                },
                &outcome,
            );
            assert!(led.is_ok(), "seed {seed}: {led:?}");
        }
        if seed == 0 {
            println!("{}", story(&records, Lang::Es));
        }
    }
}
