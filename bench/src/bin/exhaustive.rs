//! `dsim explore --exhaustive`'s speed and memory on the pinned configurations.
//!
//! `cargo run --profile perf -p dsim-bench --bin exhaustive` explores, each in a child process of
//! its own (so that each peak memory is its own): the one-proposer Paxos configuration
//! (complete), the bundled two-proposer `search/paxos-exhaustive` to depth 13, and
//! `search/raft-exhaustive` with terms up to 3 to depth 8, the last two also with `--symmetry`
//! (interchangeable acceptors, servers); breadth first on 1 and 2 threads with the frontier in
//! memory and on disk, and depth first. It prints unique states, states/s, and per state the
//! peak resident memory (the process's high-water mark over the states it visited) of breadth
//! first in memory and on disk, and the disk bytes of the latter. The allocator is mimalloc,
//! as in the `dsim` binary.
#![allow(clippy::disallowed_types)] // Wall-clock timing is this binary's whole job.

use dsim_bench::{SearchDir, peak_bytes};
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
        "{:<34} {:>9} | {:>9} {:>9} {:>7} | {:>9} {:>9} {:>7} {:>6} | {:>9}",
        "configuration",
        "states",
        "mem 1t/s",
        "mem 2t/s",
        "B/st",
        "disk 1t/s",
        "disk 2t/s",
        "B/st",
        "disk",
        "dfs 1t/s",
    );
    for (i, (label, ..)) in CONFIGS.iter().enumerate() {
        let run = |order: &str, jobs: &str| -> (u64, f64, u64, u64) {
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
                next().parse().unwrap_or(0),
            )
        };
        let (states, one, peak, _) = run("bfs", "1");
        let (states2, two, ..) = run("bfs", "2");
        let (states_disk, disk_one, disk_peak, disk_bytes) = run("disk", "1");
        let (states_disk2, disk_two, ..) = run("disk", "2");
        let (states_dfs, dfs, ..) = run("dfs", "1");
        assert_eq!(states, states2, "{label}: BFS on 2 threads counts the same");
        assert_eq!(states, states_disk, "{label}: BFS on disk counts the same");
        assert_eq!(states, states_disk2, "{label}: on disk, 2 threads");
        if CONFIGS[i].2.is_none() {
            assert_eq!(states, states_dfs, "{label}: DFS counts the same");
        }
        let per = |bytes: u64| bytes / states.max(1);
        println!(
            "{label:<34} {states:>9} | {one:>9.0} {two:>9.0} {:>7} | {disk_one:>9.0} \
             {disk_two:>9.0} {:>7} {:>6} | {dfs:>9.0}",
            per(peak),
            per(disk_peak),
            per(disk_bytes),
        );
    }
}

/// One exploration; prints "states states/s peak-bytes disk-bytes". Order `disk` is breadth
/// first with its frontier on disk.
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
    let dir = SearchDir::new();
    let settings = Settings {
        disk: (order == "disk").then(|| dir.frontier()),
        ..settings
    };
    let before = peak_bytes();
    let start = Instant::now();
    let outcome = loaded
        .exhaustive(&settings, "the bench", &mut |_| {})
        .expect("explorable");
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "{} {} {} {}",
        outcome.unique_states,
        outcome.unique_states as f64 / seconds,
        peak_bytes().saturating_sub(before),
        dir.bytes()
    );
}
