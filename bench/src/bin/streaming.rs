//! A run's memory against its length, and what its JSON trace costs.
//!
//! `cargo run --profile perf -p dsim-bench --bin streaming` runs a three-node Raft cluster (the
//! lesson's election model) heartbeating for 10^5, 10^6 and 10^7 steps, as `dsim run` runs it
//! (story told and shortened, expectations, invariants at every step), without and with a JSON
//! Lines trace written to a temporary file. Each run is a child process of its own, so its peak
//! resident memory is its own. Then, as the kernel bench does, the JSON trace's cost per event
//! against a bare binary heap at 64 tokens in flight. Nothing is asserted: it prints.
//! `streaming 100000 1000000` runs only the lengths given.
#![allow(clippy::disallowed_types)] // Wall-clock timing is this binary's whole job.

use dsim_bench::kernel_cost::{bare_heap, json_trace};
use dsim_bench::peak_bytes;

/// mimalloc, as in `dsim`.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The run, as a scenario file.
fn scenario(steps: u64) -> String {
    format!(
        r#"Scenario(
    description: "a long three-node Raft run",
    protocol: "raft",
    config: (
        replication: false,
        nodes: [
            (name: "nodo-1", log: (term: 1, index: 5)),
            (name: "nodo-2", log: (term: 1, index: 5)),
            (name: "nodo-3", log: (term: 1, index: 3)),
        ],
        election_timeout_ms: (150, 300),
        heartbeat_ms: 50,
        rpc_timeout_ms: 50,
    ),
    network: (latency: Uniform(2, 10)),
    stop: (max_time_ms: 2000000000, max_steps: {steps}),
)
"#
    )
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() == 4 && args[1] == "--child" {
        child(&args[2], &args[3]);
        return;
    }
    let lengths: Vec<u64> = if args.len() > 1 {
        args[1..]
            .iter()
            .map(|a| a.parse().expect("a number of steps"))
            .collect()
    } else {
        vec![100_000, 1_000_000, 10_000_000]
    };
    println!("dsim run of a three-node Raft cluster, as `dsim run FILE [--trace FILE]`");
    println!(
        "{:>11}  {:>6}  {:>9}  {:>11}  {:>13}  {:>12}",
        "steps", "trace", "seconds", "peak MB", "bytes a step", "trace MB"
    );
    let exe = std::env::current_exe().expect("this binary");
    for &steps in &lengths {
        for trace in ["no", "yes"] {
            let out = std::process::Command::new(&exe)
                .args(["--child", &steps.to_string(), trace])
                .output()
                .expect("the child runs");
            let text = String::from_utf8_lossy(&out.stdout);
            let fields: Vec<f64> = text
                .split_whitespace()
                .map(|f| f.parse().expect("a figure"))
                .collect();
            let [secs, peak, trace_bytes] = fields[..] else {
                panic!(
                    "child said {text:?}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
            };
            println!(
                "{steps:>11}  {trace:>6}  {secs:>9.2}  {:>11.1}  {:>13.1}  {:>12.1}",
                peak / 1e6,
                peak / steps as f64,
                trace_bytes / 1e6
            );
        }
    }
    const EVENTS: u64 = 2_000_000;
    let median = |mut xs: Vec<f64>| {
        xs.sort_by(f64::total_cmp);
        xs[xs.len() / 2]
    };
    let bare = median((0..5).map(|_| bare_heap(64, EVENTS)).collect());
    let json = median((0..5).map(|_| json_trace(64, EVENTS)).collect());
    println!(
        "\nJSON trace at 64 in flight: {json:.1} ns an event against a bare heap's {bare:.1}: \
         {:.2}x (goal 5x)",
        json / bare
    );
}

/// One run; prints "seconds peak-bytes trace-bytes".
fn child(steps: &str, trace: &str) {
    let steps: u64 = steps.parse().expect("steps");
    let source = scenario(steps);
    let name = "streaming-bench.ron";
    let protocol = scenarios::registry::protocol_for(name, &source).expect("a valid file");
    let options = scenarios::RunOptions::default();
    let path = std::env::temp_dir().join(format!("dsim-streaming-{}.jsonl", std::process::id()));
    let start = std::time::Instant::now();
    let (result, written) = if trace == "yes" {
        let file = std::fs::File::create(&path).expect("a temporary file");
        let mut out = std::io::BufWriter::with_capacity(1 << 16, file);
        let (result, written) = protocol
            .run_to(name, &source, &options, Some(&mut out))
            .expect("a valid file");
        (
            result,
            written.and_then(|()| std::io::Write::flush(&mut out)),
        )
    } else {
        protocol
            .run_to(name, &source, &options, None)
            .expect("a valid file")
    };
    let secs = start.elapsed().as_secs_f64();
    written.expect("the trace is written");
    assert_eq!(result.report.steps, steps, "the run lasts its steps");
    let trace_bytes = std::fs::metadata(&path).map_or(0, |m| m.len());
    std::fs::remove_file(&path).ok();
    println!("{secs} {} {trace_bytes}", peak_bytes());
}
