//! The kernel benchmark's workload, shared by the bench binaries that compare the kernel (and
//! its trace) with a bare binary heap: a 3-node token ring with latency uniform in 1-10 ms.
#![allow(clippy::disallowed_types)] // Wall-clock timing is a bench's whole job.

use protocols::token_ring::TokenRing;
use sim_core::{
    Duration, Instant, Latency, Limits, LinkConfig, Sim, SimConfig, SimRng, Stream, TraceMode,
};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

fn link() -> LinkConfig {
    LinkConfig {
        latency: Latency::Uniform {
            min: Duration::from_millis(1),
            max: Duration::from_millis(10),
        },
        ..LinkConfig::default()
    }
}

/// The same scheduling as the kernel's token ring without the kernel, `events` times: pop,
/// pick the next node, draw a latency, push. Returns ns per event.
pub fn bare_heap(tokens: u32, events: u64) -> f64 {
    let mut rng = SimRng::new(0, Stream::Network);
    let mut heap: BinaryHeap<Reverse<(u64, u64, u32)>> = BinaryHeap::with_capacity(128);
    let mut seq = 0;
    for _ in 0..tokens {
        heap.push(Reverse((0, seq, 1)));
        seq += 1;
    }
    let start = std::time::Instant::now();
    let mut checksum = 0u64;
    for _ in 0..events {
        let Reverse((t, _, node)) = heap.pop().expect("tokens circulate");
        checksum = checksum.wrapping_add(u64::from(node));
        let next = (node + 1) % 3;
        let latency = 1_000_000 + rng.below(9_000_001);
        heap.push(Reverse((t + latency, seq, next)));
        seq += 1;
    }
    let ns = start.elapsed().as_nanos() as f64 / events as f64;
    std::hint::black_box(checksum);
    ns
}

/// The token ring with `tokens` tokens in flight, unbounded.
pub fn ring(tokens: u32) -> Sim<TokenRing> {
    let mut sim = Sim::new(SimConfig {
        seed: 0,
        link: link(),
        limits: Limits {
            max_steps: u64::MAX,
            max_time: Instant::MAX,
            max_in_flight: usize::MAX,
            max_steps_per_instant: u64::MAX,
        },
        stop_on_violation: true,
    });
    for i in 0..3 {
        sim.add_node(
            &format!("n{i}"),
            TokenRing {
                nodes: 3,
                tokens,
                forwarded: 0,
                panic_at_hops: None,
            },
        );
    }
    sim
}

/// ns per event of the token ring writing a JSON Lines trace as `dsim run --trace` does (on
/// the trace writer's thread; here to a sink that keeps nothing, so the disk is not measured).
/// The time includes waiting for the writer to finish.
pub fn json_trace(tokens: u32, events: u64) -> f64 {
    let mut sim = ring(tokens);
    let sink = traces::JsonLinesSink::new(std::io::sink(), "{}");
    let thread = traces::write::TraceThread::spawn(sink).expect("a thread for the trace");
    sim.set_trace(TraceMode::Sink(Box::new(thread)));
    for _ in 0..10_000 {
        sim.step();
    }
    let start = std::time::Instant::now();
    for _ in 0..events {
        sim.step();
    }
    // Dropping the trace waits until its thread has written every record.
    sim.set_trace(TraceMode::Off);
    start.elapsed().as_nanos() as f64 / events as f64
}
