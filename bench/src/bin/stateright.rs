//! dsim against stateright on stateright's own model: its Paxos register example.
//!
//! `cargo run --profile perf -p dsim-bench --bin stateright` builds stateright 0.31's
//! `examples/paxos.rs` (kept in `bench/stateright-paxos/`, a crate of its own so that dsim's
//! tests never compile stateright), then explores the same model both ways, each exploration
//! in a child process of its own so that each peak memory is its own: dsim's
//! `register/stateright-paxos` and stateright's checker, 2 and 3 clients, breadth and depth
//! first, 1 and 2 threads, and dsim's breadth first with its frontier on disk (`bfs-disk`, set
//! against stateright's breadth first, which keeps its states in memory). It prints unique states (which must agree), seconds, states/s and
//! peak resident memory, and dsim's speed and memory as a ratio of stateright's; each side
//! keeps its fastest of `--rounds N` interleaved runs (3 by default), with that run's peak.
//! Pass `--clients 3` (or 2) to run only that size. dsim uses mimalloc, as the `dsim` binary does.
#![allow(clippy::disallowed_types)] // Wall-clock timing is this binary's whole job.

use dsim_bench::{SearchDir, peak_bytes};
use scenarios::exhaustive::Settings;
use sim_core::exhaustive::Order;
use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// One exploration's result: unique states, seconds, peak resident bytes.
type Measured = (u64, f64, u64);

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() == 5 && args[1] == "--child" {
        child(&args[2], &args[3], &args[4]);
        return;
    }
    let only: Option<u32> = args
        .iter()
        .position(|a| a == "--clients")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok());
    let rounds: usize = args
        .iter()
        .position(|a| a == "--rounds")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(3)
        .max(1);
    let stateright = build_stateright();
    println!(
        "{:<26} {:>10} {:>9} {:>11} {:>9} | {:>9} {:>11} {:>9} | {:>7} {:>7}",
        "configuration",
        "states",
        "dsim s",
        "dsim st/s",
        "dsim MB",
        "sr s",
        "sr st/s",
        "sr MB",
        "speed",
        "memory"
    );
    for clients in [2u32, 3] {
        if only.is_some_and(|c| c != clients) {
            continue;
        }
        for (order, jobs) in [
            ("bfs", 1),
            ("bfs", 2),
            ("bfs-disk", 1),
            ("bfs-disk", 2),
            ("dfs", 1),
            ("dfs", 2),
        ] {
            let (jobs_text, clients_text) = (jobs.to_string(), clients.to_string());
            // Interleaved rounds, each side keeping its fastest: a shared host's drift slows
            // both alike.
            let (mut ours, mut theirs): (Option<Measured>, Option<Measured>) = (None, None);
            for _ in 0..rounds {
                let mine = measure(Command::new(&args[0]).args([
                    "--child",
                    &clients_text,
                    order,
                    &jobs_text,
                ]));
                ours = fastest(ours, mine);
                if let Some(bin) = &stateright {
                    theirs = fastest(
                        theirs,
                        measure(Command::new(bin).args([
                            &clients_text,
                            order.trim_end_matches("-disk"),
                            &jobs_text,
                        ])),
                    );
                }
            }
            let ours = ours.expect("at least one round");
            let label = format!("{clients} clients, {order}, {jobs} thr");
            let (states, secs, peak) = ours;
            let mb = |b: u64| b as f64 / 1e6;
            match theirs {
                Some((sr_states, sr_secs, sr_peak)) => {
                    assert_eq!(states, sr_states, "{label}: dsim and stateright agree");
                    println!(
                        "{label:<26} {states:>10} {secs:>9.2} {:>11.0} {:>9.1} | {sr_secs:>9.2} \
                         {:>11.0} {:>9.1} | {:>6.2}x {:>6.2}x",
                        states as f64 / secs,
                        mb(peak),
                        sr_states as f64 / sr_secs,
                        mb(sr_peak),
                        sr_secs / secs,
                        peak as f64 / sr_peak.max(1) as f64,
                    );
                }
                None => println!(
                    "{label:<26} {states:>10} {secs:>9.2} {:>11.0} {:>9.1} | (stateright not built)",
                    states as f64 / secs,
                    mb(peak)
                ),
            }
        }
    }
}

/// Of two measurements, the faster (with its own peak memory).
fn fastest(best: Option<Measured>, new: Measured) -> Option<Measured> {
    match best {
        Some(best) if best.1 <= new.1 => Some(best),
        _ => Some(new),
    }
}

/// Builds stateright's example in release; its binary, or `None` (with why) if it cannot.
fn build_stateright() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("stateright-paxos");
    let mut cargo = Command::new(env!("CARGO"));
    // The compiler beside the cargo that built this bench: a dependency's own
    // `rust-toolchain.toml` (dashmap pins one) would otherwise send rustup's `rustc` looking
    // for a toolchain this machine may not have.
    let rustc = PathBuf::from(env!("CARGO")).with_file_name("rustc");
    if rustc.exists() {
        cargo.env("RUSTC", rustc);
    }
    let built = cargo
        .args(["build", "--release", "--quiet", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .status();
    match built {
        Ok(s) if s.success() => Some(dir.join("target/release/stateright-paxos")),
        other => {
            eprintln!("stateright's example did not build ({other:?}): dsim's side only");
            None
        }
    }
}

/// Runs one exploration in its own process: what it printed.
fn measure(command: &mut Command) -> Measured {
    let out = command.output().expect("the exploration runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut words = text.split_whitespace();
    let mut next = || words.next().unwrap_or("0").to_string();
    (
        next().parse().unwrap_or(0),
        next().parse().unwrap_or(0.0),
        next().parse().unwrap_or(0),
    )
}

/// One dsim exploration; prints "states seconds peak-bytes".
fn child(clients: &str, order: &str, jobs: &str) {
    let name = "register/stateright-paxos";
    let bundled = scenarios::bundled::find(name).expect("bundled");
    let text = scenarios::vary::set_config_field(bundled.source, "clients", clients)
        .expect("the file has a config");
    let protocol = scenarios::registry::protocol_for(name, &text).expect("a protocol");
    let loaded = protocol.load(name, &text).expect("loads");
    let settings = Settings {
        order: if order == "dfs" {
            Order::Dfs
        } else {
            Order::Bfs
        },
        jobs: jobs.parse().expect("a thread count"),
        keep_going: true,
        ..Settings::default()
    };
    let dir = SearchDir::new();
    let settings = Settings {
        disk: (order == "bfs-disk").then(|| dir.frontier()),
        ..settings
    };
    let start = Instant::now();
    let outcome = loaded
        .exhaustive(&settings, "the bench", &mut |_| {})
        .expect("explorable");
    let seconds = start.elapsed().as_secs_f64();
    assert!(outcome.violation.is_none() && outcome.complete);
    println!("{} {} {}", outcome.unique_states, seconds, peak_bytes());
}
