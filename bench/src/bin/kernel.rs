//! The kernel's cost per event, against a bare binary heap doing the same scheduling.
//!
//! `cargo run --profile perf -p dsim-bench --bin kernel` prints, for a 3-node token ring with
//! latency uniform in 1-10 ms and 1 or 64 tokens in flight: ns per event for a bare
//! `BinaryHeap` of (time, seq) events (with the same latency draws), for the kernel with tracing
//! off, and for the kernel writing a full JSON Lines trace to memory as `dsim run --trace` does
//! (lines made on the trace writer's thread, `traces::write::TraceThread`; the time includes
//! waiting for it to finish); and heap allocations per event on the kernel's hot path with
//! tracing off (counted by the bench's global allocator: mimalloc, as in `dsim`, wrapped to
//! count).
#![allow(clippy::disallowed_types)] // Wall-clock timing is this binary's whole job.

use dsim_bench::kernel_cost::{bare_heap, ring};
use sim_core::TraceMode;

/// mimalloc, as in `dsim`, counting each thread's heap operations (thread-local counters).
#[global_allocator]
static GLOBAL: densa_alloc::CountingAllocator<mimalloc::MiMalloc> =
    densa_alloc::CountingAllocator::new(mimalloc::MiMalloc);

const EVENTS: u64 = 2_000_000;
const ROUNDS: usize = 5;

/// How the kernel keeps its trace in a measurement.
#[derive(Clone, Copy, PartialEq)]
enum Trace {
    Off,
    /// Typed records kept in memory (`TraceMode::Memory`).
    Records,
    /// Every record written as a JSON line into a memory buffer.
    Json,
    /// Records built and handed to a sink that drops them (the cost of making records).
    Discard,
}

struct Discard;
impl<A: sim_core::Actor> sim_core::TraceSink<A> for Discard {
    fn record(&mut self, record: &sim_core::Record<A>) {
        std::hint::black_box(record);
    }
}

/// Kernel steps: returns (ns per event, allocations per event).
fn kernel(tokens: u32, trace: Trace, buffer: &traces::write::SharedBuffer) -> (f64, f64) {
    let mut sim = ring(tokens);
    match trace {
        Trace::Off => {}
        Trace::Records => sim.set_trace(TraceMode::Memory(Vec::with_capacity(
            3 * (EVENTS as usize + 10_000),
        ))),
        Trace::Discard => sim.set_trace(TraceMode::Sink(Box::new(Discard))),
        Trace::Json => {
            // As `dsim run --trace` writes: on the trace writer's thread, here into memory.
            let sink = traces::JsonLinesSink::new(buffer.clone(), "{}");
            let thread = traces::write::TraceThread::spawn(sink).expect("a thread for the trace");
            sim.set_trace(TraceMode::Sink(Box::new(thread)));
        }
    }
    // Warm up: fill the queue, the slab and the effect buffer to their steady sizes.
    for _ in 0..10_000 {
        sim.step();
    }
    // The buffer is reused across rounds, so its pages are already mapped: this measures
    // writing the trace, not the kernel's page faults.
    buffer.0.lock().expect("one thread").clear();
    let start = std::time::Instant::now();
    let ((), change) = densa_alloc::measure(|| {
        for _ in 0..EVENTS {
            sim.step();
        }
        // Dropping the trace waits until its thread has written every record.
        sim.set_trace(TraceMode::Off);
    });
    let ns = start.elapsed().as_nanos() as f64 / EVENTS as f64;
    let allocs = change.allocs + change.reallocs;
    std::hint::black_box(buffer.0.lock().expect("one thread").len());
    (ns, allocs as f64 / EVENTS as f64)
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    println!("dsim kernel benchmark: 3-node token ring, latency uniform 1-10 ms");
    println!(
        "{EVENTS} events per measurement, median of {ROUNDS}; one core (the JSON trace: two, \
         its lines made on a thread of their own)\n"
    );
    println!(
        "{:>9}  {:>10}  {:>12}  {:>7}  {:>15}  {:>7}  {:>12}  {:>7}  {:>13}",
        "in flight",
        "bare heap",
        "kernel, off",
        "ratio",
        "kernel, records",
        "ratio",
        "kernel, json",
        "ratio",
        "allocs/event"
    );
    for tokens in [1, 64] {
        let bare = median((0..ROUNDS).map(|_| bare_heap(tokens, EVENTS)).collect());
        let buffer = traces::write::SharedBuffer::default();
        let off: Vec<(f64, f64)> = (0..ROUNDS)
            .map(|_| kernel(tokens, Trace::Off, &buffer))
            .collect();
        let allocs = off.iter().map(|r| r.1).fold(0.0, f64::max);
        let off = median(off.iter().map(|r| r.0).collect());
        if std::env::var_os("DSIM_BENCH_DISCARD").is_some() {
            let discard = median(
                (0..ROUNDS)
                    .map(|_| kernel(tokens, Trace::Discard, &buffer).0)
                    .collect(),
            );
            println!("{tokens:>9}  records built and discarded: {discard:.1}ns");
        }
        let records = median(
            (0..ROUNDS)
                .map(|_| kernel(tokens, Trace::Records, &buffer).0)
                .collect(),
        );
        let json = median(
            (0..ROUNDS)
                .map(|_| kernel(tokens, Trace::Json, &buffer).0)
                .collect(),
        );
        println!(
            "{tokens:>9}  {bare:>8.1}ns  {off:>10.1}ns  {:>6.2}x  {records:>13.1}ns  {:>6.2}x  \
             {json:>10.1}ns  {:>6.2}x  {allocs:>13.4}",
            off / bare,
            records / bare,
            json / bare
        );
    }
    println!(
        "\ntargets: kernel off <= 2.5x bare heap at 64 in flight; JSON trace <= 5x; 0 allocs/event"
    );
}
