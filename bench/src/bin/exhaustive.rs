//! `dsim explore --exhaustive`'s speed and memory on the pinned configurations.
//!
//! `cargo run --profile perf -p dsim-bench --bin exhaustive` explores, each in a child process of
//! its own (so that each peak memory is its own): the one-proposer Paxos configuration
//! (complete), the bundled two-proposer `search/paxos-exhaustive` to depth 13, and
//! `search/raft-exhaustive` with terms up to 3 to depth 8, the last two also with `--symmetry`
//! (interchangeable acceptors, servers); breadth first on 1 and 2 threads and
//! depth first. It prints unique states, states/s, the 2-thread speed-up and the peak resident
//! memory per state (the process's high-water mark over the states it visited). The allocator
//! is mimalloc, as in the `dsim` binary.
#![allow(clippy::disallowed_types)] // Wall-clock timing is this binary's whole job.

use dsim_bench::peak_bytes;
use scenarios::exhaustive::Settings;
use sim_core::exhaustive::Order;
use std::process::Command;
use std::time::Instant;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A configuration: (label, bundled file, depth bound, epoch bound, one proposer only,
/// `--symmetry`).
type Config = (
    &'static str,
    &'static str,
    Option<u32>,
    Option<u64>,
    bool,
    bool,
);

const CONFIGS: &[Config] = &[
    (
        "paxos 1x3 (complete)",
        "search/paxos-exhaustive",
        None,
        None,
        true,
        false,
    ),
    (
        "paxos 2x3, depth 13",
        "search/paxos-exhaustive",
        Some(13),
        None,
        false,
        false,
    ),
    (
        "paxos 2x3, depth 13, symmetry",
        "search/paxos-exhaustive",
        Some(13),
        None,
        false,
        true,
    ),
    (
        "raft 3 nodes, term 3, depth 8",
        "search/raft-exhaustive",
        Some(8),
        Some(3),
        false,
        false,
    ),
    (
        "raft 3, term 3, depth 8, symmetry",
        "search/raft-exhaustive",
        Some(8),
        Some(3),
        false,
        true,
    ),
];

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() == 5 && args[1] == "--child" {
        child(&args[2], &args[3], &args[4]);
        return;
    }
    println!(
        "{:<32} {:>10} {:>13} {:>13} {:>8} {:>13} {:>12}",
        "configuration",
        "states",
        "bfs 1 thr/s",
        "bfs 2 thr/s",
        "speedup",
        "dfs 1 thr/s",
        "bytes/state"
    );
    for (i, (label, ..)) in CONFIGS.iter().enumerate() {
        let run = |order: &str, jobs: &str| -> (u64, f64, u64) {
            let out = Command::new(&args[0])
                .args(["--child", &i.to_string(), order, jobs])
                .output()
                .expect("the bench runs itself");
            let text = String::from_utf8_lossy(&out.stdout);
            let mut words = text.split_whitespace();
            let mut next = || words.next().unwrap_or("0").to_string();
            (
                next().parse().unwrap_or(0),
                next().parse().unwrap_or(0.0),
                next().parse().unwrap_or(0),
            )
        };
        let (states, one, peak) = run("bfs", "1");
        let (states2, two, _) = run("bfs", "2");
        let (states_dfs, dfs, _) = run("dfs", "1");
        assert_eq!(states, states2, "{label}: BFS on 2 threads counts the same");
        if CONFIGS[i].2.is_none() {
            assert_eq!(states, states_dfs, "{label}: DFS counts the same");
        }
        println!(
            "{label:<32} {states:>10} {one:>13.0} {two:>13.0} {:>7.2}x {dfs:>13.0} {:>12}",
            two / one.max(1e-9),
            peak / states.max(1)
        );
    }
}

/// One exploration; prints "states states/s peak-bytes".
fn child(config: &str, order: &str, jobs: &str) {
    let (_, name, depth, epoch, one, symmetry) =
        CONFIGS[config.parse::<usize>().expect("an index")];
    let bundled = scenarios::bundled::find(name).expect("bundled");
    let mut text = bundled.source.to_string();
    if one {
        text = text
            .replace(r#"proposers: ["p1", "p2"]"#, r#"proposers: ["p1"]"#)
            .replace(r#", At(0, Command("p2", Propose))"#, "");
    }
    let protocol = scenarios::registry::protocol_for(name, &text).expect("a protocol");
    let loaded = protocol.load(name, &text).expect("loads");
    let settings = Settings {
        order: if order == "dfs" {
            Order::Dfs
        } else {
            Order::Bfs
        },
        max_depth: depth,
        max_epoch: epoch,
        jobs: jobs.parse().expect("a thread count"),
        symmetry,
        ..Settings::default()
    };
    let before = peak_bytes();
    let start = Instant::now();
    let outcome = loaded
        .exhaustive(&settings, "the bench", &mut |_| {})
        .expect("explorable");
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "{} {} {}",
        outcome.unique_states,
        outcome.unique_states as f64 / seconds,
        peak_bytes().saturating_sub(before)
    );
}
