//! `dsim explore --exhaustive`: every interleaving of a small configuration. Pinned state
//! counts that breadth first, depth first and two threads agree on; sound merging (two paths
//! to one state are one state, a different invariant memory is another); bug knobs found on a
//! shortest path and written as a file that `dsim run` replays; refusals of what has no
//! meaning without time.

use crate::support::{dsim, scratch, stderr, stdout};
use protocols::paxos::invariants::{ChosenValueIsStable, Validity};
use protocols::paxos::{Paxos, PaxosCommand, PaxosConfig};
use scenarios::exhaustive::{Outcome, Settings};
use scenarios::registry::LoadedScenario;
use sim_core::exhaustive::Order;
use sim_core::hash::BufferHasher;
use sim_core::{Action, Instant, Move, Protocol, SimConfig};
use std::collections::BTreeSet;

/// The bundled two-proposer file with one proposer: small enough to explore completely in a
/// debug build.
fn one_proposer() -> String {
    let text = scenarios::bundled::find("search/paxos-exhaustive")
        .unwrap()
        .source;
    text.replace(r#"proposers: ["p1", "p2"]"#, r#"proposers: ["p1"]"#)
        .replace(r#", At(0, Command("p2", Propose))"#, "")
}

fn loaded(name: &str, text: &str) -> Box<dyn LoadedScenario> {
    let protocol = scenarios::registry::protocol_for(name, text).unwrap();
    protocol.load(name, text).unwrap()
}

fn explore(loaded: &dyn LoadedScenario, settings: Settings) -> Outcome {
    loaded
        .exhaustive(&settings, "a test", &mut |_| {})
        .expect("explorable")
}

fn counts(o: &Outcome) -> (u64, u64, u64, bool) {
    (
        o.unique_states,
        o.transitions,
        o.terminal_states,
        o.complete,
    )
}

/// Goal: the explorer's counts are facts of the configuration, not of the search. Method: the
/// one-proposer Paxos configuration explored breadth first, depth first and breadth first on
/// two threads. Proves: one count (pinned), complete, the value chosen on some path and no
/// invariant broken, whatever the order or thread count.
#[test]
fn one_proposer_paxos_has_530_states_in_every_order() {
    let l = loaded("one-proposer", &one_proposer());
    let bfs = explore(l.as_ref(), Settings::default());
    assert_eq!(counts(&bfs), (530, 1745, 2, true));
    assert_eq!(bfs.max_depth, 13);
    assert!(bfs.violation.is_none());
    assert_eq!(bfs.sometimes[0].name, "a value is chosen");
    assert_eq!(
        bfs.sometimes[0].depth,
        Some(8),
        "Propose, 2 Prepares, 2 Promises, the phase timer (phase 1 waits for every acceptor), 2 Accepts"
    );
    let dfs = explore(
        l.as_ref(),
        Settings {
            order: Order::Dfs,
            ..Settings::default()
        },
    );
    assert_eq!(counts(&dfs), counts(&bfs));
    assert!(dfs.sometimes[0].depth.is_some());
    let dfs_two = explore(
        l.as_ref(),
        Settings {
            order: Order::Dfs,
            jobs: 2,
            ..Settings::default()
        },
    );
    assert_eq!(counts(&dfs_two), counts(&bfs));
    assert_eq!(dfs_two.sometimes[0].depth, dfs.sometimes[0].depth);
    let two = explore(
        l.as_ref(),
        Settings {
            jobs: 2,
            ..Settings::default()
        },
    );
    assert_eq!(counts(&two), counts(&bfs));
    assert_eq!(two.sometimes[0].depth, Some(8));
}

/// Goal: a bound cuts the search where it says, the same way on any thread count and in either
/// order. Method: the bundled two-proposer file to depth 6 and 8, breadth first on one thread
/// and two, and depth first. Proves: pinned counts of the bounded search, the depth limit
/// reported, depth first visiting the same states.
#[test]
fn two_proposers_to_a_depth_bound() {
    let b = scenarios::bundled::find("search/paxos-exhaustive").unwrap();
    let l = loaded(b.name, b.source);
    for (depth, states, transitions) in [(6, 531, 1371), (8, 2358, 7644)] {
        for jobs in [1, 2] {
            let o = explore(
                l.as_ref(),
                Settings {
                    max_depth: Some(depth),
                    jobs,
                    ..Settings::default()
                },
            );
            assert_eq!(
                (o.unique_states, o.transitions, o.max_depth),
                (states, transitions, depth),
                "depth {depth}, {jobs} threads"
            );
            assert!(o.hit_depth_limit && o.violation.is_none());
        }
        // Depth first under a bound re-expands a state reached again closer to the start, so
        // it visits exactly the states within the bound too.
        let dfs = explore(
            l.as_ref(),
            Settings {
                order: Order::Dfs,
                max_depth: Some(depth),
                ..Settings::default()
            },
        );
        assert_eq!(dfs.unique_states, states, "depth first, depth {depth}");
    }
}

/// Goal: Raft elections, bounded, explore the same on any thread count. Method: the bundled
/// three-node file with terms up to 3 and depth 6, on one thread and two. Proves: one pinned
/// count (it depends on no message id or step number: the invariants' memory names nodes and
/// terms, not ids), and a leader elected on some path.
#[test]
fn raft_elections_bounded_by_term_and_depth() {
    let b = scenarios::bundled::find("search/raft-exhaustive").unwrap();
    let l = loaded(b.name, b.source);
    for jobs in [1, 2] {
        let o = explore(
            l.as_ref(),
            Settings {
                max_depth: Some(6),
                max_epoch: Some(3),
                jobs,
                ..Settings::default()
            },
        );
        assert_eq!(
            (o.unique_states, o.transitions),
            (11203, 26052),
            "{jobs} threads"
        );
        assert!(o.violation.is_none());
        assert_eq!(o.sometimes[0].depth, Some(3), "a timeout and two votes");
    }
}

/// Goal: the replicated store explores too: a write while its first replica crashes and
/// restarts anywhere in it. Method: the bundled file to depth 8. Proves: a pinned count, no
/// acknowledged write lost on any of those paths.
#[test]
fn the_ring_store_write_with_a_crash_to_a_depth_bound() {
    let b = scenarios::bundled::find("search/ring-exhaustive").unwrap();
    let l = loaded(b.name, b.source);
    let o = explore(
        l.as_ref(),
        Settings {
            max_depth: Some(8),
            ..Settings::default()
        },
    );
    assert_eq!((o.unique_states, o.transitions), (1098, 3235));
    assert!(o.violation.is_none());
}

/// Goal: no protocol's state leaks a name that differs between two paths to one state (a
/// message id, a step number), which would make the count depend on which path a thread took
/// first. Method: every bundled scenario an untimed search can take, to depth 4, on one thread
/// and two. Proves: the same counts.
#[test]
fn every_explorable_bundled_scenario_counts_the_same_on_two_threads() {
    let mut explored = 0;
    for b in scenarios::bundled::BUNDLED {
        let l = loaded(b.name, b.source);
        let settings = Settings {
            max_depth: Some(4),
            ..Settings::default()
        };
        let Ok(one) = l.exhaustive(&settings, "a test", &mut |_| {}) else {
            continue; // Refused (a Delay rule, say): covered by the refusal test.
        };
        let two = explore(
            l.as_ref(),
            Settings {
                jobs: 2,
                ..settings
            },
        );
        assert_eq!(counts(&one), counts(&two), "{}", b.name);
        explored += 1;
    }
    assert!(explored >= 15, "{explored}");
}

/// Goal: loss and duplication budgets add exactly the states they should. Method: the
/// one-proposer configuration with one loss, then one duplicate. Proves: more states than
/// without (a lost Prepare, a Promise counted twice are new states), the same in every order,
/// and still safe.
#[test]
fn budgets_add_lost_and_copied_messages() {
    let l = loaded("one-proposer", &one_proposer());
    for (loss, dup) in [(1, 0), (0, 1)] {
        let settings = Settings {
            loss_budget: loss,
            dup_budget: dup,
            ..Settings::default()
        };
        let bfs = explore(l.as_ref(), settings.clone());
        let dfs = |jobs| {
            explore(
                l.as_ref(),
                Settings {
                    order: Order::Dfs,
                    jobs,
                    ..settings.clone()
                },
            )
        };
        assert!(
            bfs.unique_states > 530,
            "{loss} {dup}: {}",
            bfs.unique_states
        );
        assert_eq!(counts(&bfs), counts(&dfs(1)), "{loss} {dup}");
        assert_eq!(counts(&bfs), counts(&dfs(2)), "{loss} {dup}, two threads");
        assert!(bfs.violation.is_none() && bfs.complete);
    }
}

/// The untimed start of the two-proposer configuration, with `invariant_values` as the values
/// Validity knows were proposed.
fn paxos_start(proposed: &[&str]) -> sim_core::Sim<protocols::paxos::PaxosNode> {
    let config = PaxosConfig {
        proposers: vec!["p1".into(), "p2".into()],
        acceptors: vec!["a1".into(), "a2".into(), "a3".into()],
        ..PaxosConfig::lesson()
    };
    let mut sim = sim_core::Sim::new(SimConfig::seeded(0));
    for (id, name) in Paxos::nodes(&config).iter().enumerate() {
        sim.add_node(name, Paxos::build(&config, sim_core::NodeId(id as u32)));
    }
    let values: BTreeSet<protocols::paxos::msg::Value> =
        proposed.iter().map(|v| (*v).into()).collect();
    sim.add_invariant(Box::new(Validity::new(&config.acceptors, values)));
    sim.add_invariant(Box::new(ChosenValueIsStable::new(&config.acceptors)));
    for p in ["p1", "p2"] {
        let node = sim.node_id(p).unwrap();
        sim.schedule(Instant::ZERO, Action::Command(node, PaxosCommand::Propose));
    }
    sim.go_untimed();
    sim
}

/// The move that delivers message `id` (its first copy) in `sim`.
fn delivering_message(sim: &sim_core::Sim<protocols::paxos::PaxosNode>, id: u64) -> Move {
    let mut moves = Vec::new();
    sim.moves(false, false, &mut moves);
    moves
        .into_iter()
        .find(|&m| {
            sim.clone().take(m)
                == sim_core::Taken::Delivered {
                    id: sim_core::MsgId(id),
                    copy: false,
                }
        })
        .expect("in flight")
}

fn hash(sim: &sim_core::Sim<protocols::paxos::PaxosNode>) -> u64 {
    sim.untimed_hash(&mut BufferHasher::default())
}

/// Goal: merging is sound. Method: both proposers propose, then their Prepares to a1 arrive in
/// either order; and the same start with a different memory in an invariant. Proves: two
/// paths to one state give one hash, whatever the queue's slots; a state that differs only in
/// what an invariant remembers gets another hash (merging them could hide a violation).
#[test]
fn paths_to_one_state_merge_and_invariant_memory_keeps_states_apart() {
    let mut start = paxos_start(&["p1", "p2"]);
    let mut moves = Vec::new();
    start.moves(false, false, &mut moves);
    assert_eq!(moves.len(), 1, "only the timeline's next step: {moves:?}");
    start.take(moves[0]);
    start.moves(false, false, &mut moves);
    start.take(moves[moves.len() - 1]); // p2's Propose, the last move listed.
    start.moves(false, false, &mut moves);
    assert_eq!(
        moves
            .iter()
            .filter(|m| m.kind == sim_core::MoveKind::Deliver)
            .count(),
        6,
        "two Prepares to each acceptor: {moves:?}"
    );
    // p1's Prepares to a1 and a2 are the first two messages sent (its broadcast, in order).
    let delivering = delivering_message;
    let (mut ab, mut ba) = (start.clone(), start.clone());
    let first = delivering(&ab, 1);
    ab.take(first);
    let second = delivering(&ab, 2);
    ab.take(second);
    let second = delivering(&ba, 2);
    ba.take(second);
    let first = delivering(&ba, 1);
    ba.take(first);
    assert_eq!(hash(&ab), hash(&ba), "two orders, one state");
    assert_ne!(hash(&ab), hash(&start));
    let other_memory = paxos_start(&["p1", "p2", "p3"]);
    assert_ne!(
        hash(&paxos_start(&["p1", "p2"])),
        hash(&other_memory),
        "the same nodes and network, another memory of what was proposed"
    );
}

/// Goal: a bug knob is found exhaustively, on a shortest path, and the file it writes replays
/// it in time. Method: `dsim explore --exhaustive` of the two-proposer file with each knob
/// that needs no crash, then `dsim run` of the written file. Proves: exit 1, the path's length
/// (pinned: 15 moves, the fewest that get a second value accepted above a chosen one), a file
/// that replays, and `dsim run` of it passing by showing the violation.
#[test]
fn bug_knobs_are_found_on_a_shortest_path_that_replays() {
    for bug in ["accept_below_promise", "ignore_accepted_in_promises"] {
        let out = scratch(&format!("exhaustive-{bug}")).join("found.ron");
        let o = dsim(&[
            "explore",
            "search/paxos-exhaustive",
            "--exhaustive",
            "--bug",
            bug,
            "--json",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(1), "{bug}: {}", stderr(&o));
        let json: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        let v = &json["violation"];
        assert_eq!(v["depth"], 15, "{bug}: {v}");
        assert_eq!(v["replays"], true, "{bug}");
        assert_eq!(v["invariants"][0], "chosen-value-is-stable", "{bug}");
        let run = dsim(&["run", out.to_str().unwrap()]);
        assert_eq!(run.status.code(), Some(0), "{bug}: {}", stdout(&run));
        assert!(stdout(&run).contains("violation of chosen-value-is-stable"));
        if bug != "accept_below_promise" {
            continue;
        }
        // The same path, byte for byte, on one thread and on two.
        let one = scratch(&format!("exhaustive-{bug}-one")).join("found.ron");
        let o = dsim(&[
            "explore",
            "search/paxos-exhaustive",
            "--exhaustive",
            "--bug",
            bug,
            "--jobs",
            "1",
            "--out",
            one.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(1));
        assert_eq!(
            std::fs::read_to_string(&one).unwrap(),
            std::fs::read_to_string(&out).unwrap(),
            "{bug}"
        );
    }
}

/// Goal: depth first on two threads reports what it does on one. Method: a bug knob explored
/// depth first with `--jobs 1` and `--jobs 2`. Proves: the same counts and the same file byte
/// for byte (the counterexample a one-thread walk finds first). Going on past a violation is
/// `register::tests::depth_first_on_two_threads_keeps_going_as_one_does`.
#[test]
fn depth_first_on_two_threads_finds_what_one_finds() {
    let run = |jobs: &str| {
        let out = scratch(&format!("exhaustive-dfs-{jobs}")).join("found.ron");
        let args = vec![
            "explore",
            "register/stateright-paxos",
            "--exhaustive",
            "--dfs",
            "--bug",
            "ignore_accepted",
            "--jobs",
            jobs,
            "--json",
            "--out",
            out.to_str().unwrap(),
        ];
        let o = dsim(&args);
        assert_eq!(o.status.code(), Some(1), "{jobs}: {}", stderr(&o));
        let json: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        let file = std::fs::read_to_string(&out).unwrap();
        (
            json["unique_states"].clone(),
            json["transitions"].clone(),
            file,
        )
    };
    assert_eq!(run("1"), run("2"));
}

/// Goal: a panic on one depth-first thread (a bug in a handler, a boundary, a property) stops
/// the search and reaches the caller, as on one thread, rather than leaving the other thread
/// waiting for ever. Method: a boundary that panics on its 200th call, two threads, the
/// two-proposer start. Proves: `explore` panics (and returns).
#[test]
fn a_panic_on_one_depth_first_thread_reaches_the_caller() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&calls);
    let options = sim_core::exhaustive::Options {
        order: Order::Dfs,
        jobs: 2,
        keep_going: true,
        within: Some(Arc::new(move |_: &sim_core::Sim<_>| {
            assert_ne!(counted.fetch_add(1, Ordering::SeqCst), 200, "a bug");
            true
        })),
        ..Default::default()
    };
    let start = paxos_start(&["p1", "p2"]);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        sim_core::exhaustive::explore(start, &options, &[], &mut |_| {})
    }));
    assert!(result.is_err());
    assert!(calls.load(Ordering::SeqCst) > 200);
}

/// Goal: the CLI prints what a person needs and refuses what has no meaning. Method: a
/// bounded search in words and as JSON; the random search's fault flags, and a file with a
/// schedule of its own. Proves: counts and the sometimes line in words, `unique_states` in
/// JSON, exit 2 with a reason for each refusal.
#[test]
fn the_cli_reports_and_refuses() {
    let o = dsim(&[
        "explore",
        "search/paxos-exhaustive",
        "--exhaustive",
        "--max-depth",
        "6",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("531 distinct states, 1371 transitions, depth 6"),
        "{text}"
    );
    assert!(text.contains("sometimes \"a value is chosen\""), "{text}");
    let o = dsim(&[
        "explore",
        "search/paxos-exhaustive",
        "--exhaustive",
        "--max-depth",
        "6",
        "--json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(json["unique_states"], 531);
    assert_eq!(json["order"], "bfs");
    let o = dsim(&[
        "explore",
        "search/paxos-exhaustive",
        "--exhaustive",
        "--crashes",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--crashes belongs to the random search"),
        "{}",
        stderr(&o)
    );
    let regression =
        crate::support::root().join("scenarios/regressions/paxos-accept-below-promise.ron");
    let o = dsim(&["explore", regression.to_str().unwrap(), "--exhaustive"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("has a `schedule`"), "{}", stderr(&o));
    let o = dsim(&["explore", "search/paxos-exhaustive", "--max-depth", "3"]);
    assert_eq!(o.status.code(), Some(2), "--max-depth needs --exhaustive");
}

/// Goal: a PCT walk is a real path of the untimed run, a function of its seed, and varied.
/// Method: walks of the two-proposer start at 40 seeds, depth 1 and 3. Proves: each walk is the
/// same when taken again; following its moves from the start reaches the same state (every
/// move was possible where it was taken); the walks are not all one path, at either depth; a
/// walk stops at its move bound.
#[test]
fn pct_walks_are_paths_of_the_untimed_run() {
    use sim_core::exhaustive::{PctOptions, pct_walk};
    let start = paxos_start(&["p1", "p2"]);
    let mut paths = BTreeSet::new();
    for depth in [1, 3] {
        let options = PctOptions {
            depth,
            steps: 20,
            max_moves: 500,
        };
        for seed in 0..40 {
            let walk = pct_walk(&start, seed, &options);
            let again = pct_walk(&start, seed, &options);
            assert_eq!(walk.path, again.path, "seed {seed}");
            assert!(
                walk.violations.is_empty(),
                "correct Paxos: {:?}",
                walk.violations
            );
            assert!(walk.chains >= 2 && !walk.path.is_empty());
            let end = sim_core::exhaustive::follow(&start, &walk.path);
            assert_eq!(end.steps(), start.steps() + walk.path.len() as u64);
            paths.insert((depth, format!("{:?}", walk.path)));
        }
    }
    let distinct = |d: u32| paths.iter().filter(|(depth, _)| *depth == d).count();
    assert!(
        distinct(1) >= 5,
        "{} distinct walks at depth 1",
        distinct(1)
    );
    assert!(
        distinct(3) >= 5,
        "{} distinct walks at depth 3",
        distinct(3)
    );
    let short = pct_walk(
        &start,
        0,
        &PctOptions {
            depth: 3,
            steps: 20,
            max_moves: 4,
        },
    );
    assert_eq!(short.path.len(), 4);
}

fn symmetric_hash(sim: &sim_core::Sim<protocols::paxos::PaxosNode>) -> u64 {
    let config = PaxosConfig {
        proposers: vec!["p1".into(), "p2".into()],
        acceptors: vec!["a1".into(), "a2".into(), "a3".into()],
        ..PaxosConfig::lesson()
    };
    let names: Vec<sim_core::Name> = Paxos::nodes(&config)
        .iter()
        .map(|n| n.as_str().into())
        .collect();
    let symmetry =
        sim_core::symmetry::Symmetry::new(Paxos::interchangeable(&config), &names).unwrap();
    assert_eq!(symmetry.orders(), 6, "the three acceptors");
    sim.symmetric_hash(&symmetry, &mut BufferHasher::default())
}

/// Goal: `--symmetry` merges exactly the states that are renamings of each other. Method: p1's
/// Prepare delivered to a1 in one copy of the start, to a2 in another, to a1 and a2 in a third,
/// each one accepted; then an invariant's memory that names an acceptor. Proves: the first two
/// (one acceptor promised; which one is a name) get one symmetric hash and two plain ones; a
/// state with two promises stays apart from both; a renaming reaches the invariants' memory
/// (Validity's accepts and ChosenValueIsStable's, kept by acceptor name) as well as the actors.
#[test]
fn symmetric_hashes_merge_renamed_acceptors_only() {
    let mut start = paxos_start(&["p1", "p2"]);
    let mut moves = Vec::new();
    start.moves(false, false, &mut moves);
    start.take(moves[0]); // p1's Propose: Prepares to a1, a2, a3 (messages 1, 2, 3).
    let deliver = |sim: &mut sim_core::Sim<_>, id: u64| {
        let mv = delivering_message(sim, id);
        sim.take(mv);
    };
    let (mut to_a1, mut to_a2, mut to_both) = (start.clone(), start.clone(), start.clone());
    deliver(&mut to_a1, 1);
    deliver(&mut to_a2, 2);
    deliver(&mut to_both, 1);
    deliver(&mut to_both, 2);
    assert_ne!(hash(&to_a1), hash(&to_a2), "a1 promised, or a2: two states");
    assert_eq!(
        symmetric_hash(&to_a1),
        symmetric_hash(&to_a2),
        "the same state but for a name"
    );
    assert_ne!(symmetric_hash(&to_a1), symmetric_hash(&to_both));
    assert_ne!(symmetric_hash(&to_a1), symmetric_hash(&start));
    // The whole round to a chosen value, with a1 and a2 or with a2 and a3 accepting: the
    // invariants now remember names (who accepted), and still the two merge.
    // p1's round with two acceptors, then its Accepts (messages 6, 7, 8 to a1, a2, a3)
    // delivered to those two: they accept, and a value is chosen.
    let round = |first: u64, second: u64| {
        let mut sim = start.clone();
        deliver(&mut sim, first); // Prepares...
        deliver(&mut sim, second);
        deliver(&mut sim, 4); // ...their Promises...
        deliver(&mut sim, 5);
        // ...and the phase timer (phase 1 waits for every acceptor until it fires).
        let mut moves = Vec::new();
        sim.moves(false, false, &mut moves);
        let fire = moves
            .into_iter()
            .find(|m| m.kind == sim_core::MoveKind::Fire)
            .expect("p1's phase timer");
        sim.take(fire);
        deliver(&mut sim, 5 + first);
        deliver(&mut sim, 5 + second);
        assert!(
            (Paxos::sometimes(&PaxosConfig::lesson())[0].holds)(&sim),
            "{first} {second}"
        );
        sim
    };
    assert_ne!(hash(&round(1, 2)), hash(&round(2, 3)));
    assert_eq!(symmetric_hash(&round(1, 2)), symmetric_hash(&round(2, 3)));
}

fn with_symmetry(settings: Settings) -> Settings {
    Settings {
        symmetry: true,
        ..settings
    }
}

/// Goal: `--symmetry` gives a smaller count and the same verdicts. Method: the two-proposer
/// Paxos file to depth 8 and Raft's three-node election (terms up to 3, depth 6), each with
/// and without symmetry, breadth first, depth first and on two threads; a Paxos bug knob
/// (debug builds take seconds a knob). Proves: pinned counts, between a sixth of the plain
/// count (three interchangeable nodes) and all of it, agreeing in every order; the same
/// `sometimes` depths; a bug found on a path of the same shortest length (15 moves, as
/// without), the same invariant broken, and a written file that replays it.
#[test]
fn symmetry_gives_fewer_states_and_the_same_verdicts() {
    let paxos = scenarios::bundled::find("search/paxos-exhaustive").unwrap();
    let raft = scenarios::bundled::find("search/raft-exhaustive").unwrap();
    let cases = [
        (
            paxos,
            Settings {
                max_depth: Some(8),
                ..Settings::default()
            },
            2358,
            521,
        ),
        (
            raft,
            Settings {
                max_depth: Some(6),
                max_epoch: Some(3),
                ..Settings::default()
            },
            11203,
            1898,
        ),
    ];
    for (b, settings, plain_count, symmetric_count) in cases {
        let l = loaded(b.name, b.source);
        let plain = explore(l.as_ref(), settings.clone());
        let merged = explore(l.as_ref(), with_symmetry(settings.clone()));
        assert_eq!(plain.unique_states, plain_count, "{}", b.name);
        assert_eq!(merged.unique_states, symmetric_count, "{}", b.name);
        assert!(
            merged.unique_states * 6 >= plain.unique_states,
            "{}",
            b.name
        );
        assert_eq!(merged.interchangeable.len(), 1, "{}", b.name);
        assert_eq!(merged.interchangeable[0].len(), 3, "{}", b.name);
        assert!(plain.interchangeable.is_empty());
        let depths = |o: &Outcome| o.sometimes.iter().map(|s| s.depth).collect::<Vec<_>>();
        assert_eq!(depths(&plain), depths(&merged), "{}", b.name);
        for (order, jobs) in [(Order::Dfs, 1), (Order::Bfs, 2)] {
            let other = explore(
                l.as_ref(),
                with_symmetry(Settings {
                    order,
                    jobs,
                    ..settings.clone()
                }),
            );
            assert_eq!(
                other.unique_states, symmetric_count,
                "{} {order:?} {jobs}",
                b.name
            );
        }
    }
    {
        let bug = "accept_below_promise";
        let text = paxos
            .source
            .replace("config: (", &format!("config: (bugs: ({bug}: true), "));
        let l = loaded(paxos.name, &text);
        let merged = explore(l.as_ref(), with_symmetry(Settings::default()));
        let m = merged.violation.unwrap();
        // As without symmetry (`bug_knobs_are_found_on_a_shortest_path_that_replays`).
        assert_eq!(m.depth, 15, "{bug}");
        assert_eq!(m.invariants, ["chosen-value-is-stable"], "{bug}");
        assert!(m.replays, "{bug}");
    }
}

/// Goal: `--symmetry` refuses what it cannot merge and says why. Method: the ring store's file
/// (its nodes sit at different places on the ring), and the Paxos file with a crash of a1.
/// Proves: exit 2 naming the protocol; with a1 crashed, only a2 and a3 are interchangeable.
#[test]
fn symmetry_leaves_out_what_the_file_tells_apart() {
    let o = dsim(&[
        "explore",
        "search/ring-exhaustive",
        "--exhaustive",
        "--symmetry",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("declares no interchangeable nodes"),
        "{}",
        stderr(&o)
    );
    let paxos = scenarios::bundled::find("search/paxos-exhaustive").unwrap();
    let text = paxos.source.replace(
        r#"At(0, Command("p1", Propose))"#,
        r#"At(0, Command("p1", Propose)), At(1, Crash("a1"))"#,
    );
    assert_ne!(text, paxos.source);
    let l = loaded(paxos.name, &text);
    let o = explore(
        l.as_ref(),
        with_symmetry(Settings {
            max_depth: Some(4),
            ..Settings::default()
        }),
    );
    assert_eq!(
        o.interchangeable,
        vec![vec!["a2".to_string(), "a3".to_string()]]
    );
}

/// Goal: a breadth-first level's packed states are the states themselves. Method: walk two
/// proposers' Paxos forty moves (always the middle move listed); at each state, pack it and
/// unpack it into a run holding another state (the start, or the previous state), then compare
/// the two runs whole (every field, as `Debug` shows it), their moves, and the runs each move
/// leads to. Proves: packing keeps everything a run holds that may differ between states of a
/// search, and unpacking leaves nothing of the run it reuses.
#[test]
fn a_packed_state_unpacks_to_the_same_state() {
    let start = paxos_start(&["p1", "p2"]);
    let mut state = start.clone();
    let mut previous = start.clone();
    let (mut moves, mut other_moves) = (Vec::new(), Vec::new());
    for step in 0..40 {
        state.moves(false, true, &mut moves);
        if moves.is_empty() {
            break;
        }
        let packed = state.pack();
        // Packed again sharing the first one's network (the same network: one allocation).
        let sharing = state.pack_sharing(Some(packed.network()), None);
        assert!(std::sync::Arc::ptr_eq(sharing.network(), packed.network()));
        for (mut spare, packed) in [(start.clone(), &packed), (previous.clone(), &sharing)] {
            spare.unpack_from(packed);
            assert_eq!(format!("{spare:?}"), format!("{state:?}"), "step {step}");
            assert_eq!(hash(&spare), hash(&state), "step {step}");
            spare.moves(false, true, &mut other_moves);
            assert_eq!(other_moves, moves, "step {step}");
            for &mv in &moves {
                let (mut a, mut b) = (state.clone(), spare.clone());
                assert_eq!(a.take(mv), b.take(mv), "step {step}, {mv:?}");
                assert_eq!(format!("{a:?}"), format!("{b:?}"), "step {step}, {mv:?}");
            }
        }
        previous = state.clone();
        state.take(moves[moves.len() / 2]);
    }
}

// Goal: a search that would outgrow the memory it may use stops and says so, never dies of
// out-of-memory. Method: the two-proposer Paxos file (millions of states without --symmetry)
// with a budget of one megabyte, in words and in JSON. Proves: it stops after its first look at
// the gauge, exit 0, reports `incomplete` with the bounds to add, and --json says
// `complete: false` and `hit_memory_limit: true` with the counts found so far.
#[test]
fn a_search_stops_at_its_memory_budget() {
    let words = crate::support::dsim(&[
        "explore",
        "search/paxos-exhaustive",
        "--exhaustive",
        "--max-memory",
        "1M",
    ]);
    let text = crate::support::stdout(&words);
    assert_eq!(words.status.code(), Some(0), "{text}");
    assert!(text.contains("stopped at the memory budget"), "{text}");
    assert!(text.contains("--symmetry"), "{text}");
    let json = crate::support::dsim(&[
        "explore",
        "search/paxos-exhaustive",
        "--exhaustive",
        "--max-memory",
        "1M",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&crate::support::stdout(&json)).unwrap();
    assert_eq!(v["complete"], false, "{v}");
    assert_eq!(v["hit_memory_limit"], true, "{v}");
    assert!(v["unique_states"].as_u64().unwrap() > 0, "{v}");
    assert!(v["collision_probability"].as_f64().unwrap() < 1e-6, "{v}");
    let bad = crate::support::dsim(&[
        "explore",
        "search/paxos-exhaustive",
        "--exhaustive",
        "--max-memory",
        "lots",
    ]);
    assert_eq!(bad.status.code(), Some(2));
}
