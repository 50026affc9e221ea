//! `dsim explore`'s search speed against `dsim sweep`'s, on the same file in the same run.
//!
//! `cargo run --profile perf -p dsim-bench --bin explore [SCENARIO] [SEEDS]` loads the scenario once
//! (default: the bundled `search/paxos-swarm`, 20,000 seeds) and times, best of five
//! interleaved rounds:
//! a sweep's per-seed work on one thread (every record kept, expectations and figures
//! computed), explore's probe on one thread (every invariant checked at every step, no trace;
//! chunks of 64 seeds, as `dsim explore` runs them), and the probe on a pool of 2 threads. It
//! prints seeds/s of each, the ratios, and heap allocations and reallocations per seed of the
//! sweep and of the probe (counted by the bench's global allocator: mimalloc, as in `dsim`,
//! wrapped to count). Because both paths read the same file in one run, the ratio holds
//! whatever the file's defaults become. `DSIM_BENCH_ONLY=probe` (or `sweep`) runs that path alone, for
//! profiling it (`perf record`).
#![allow(clippy::disallowed_types)] // Wall-clock timing is this binary's whole job.

use rayon::prelude::*;
use scenarios::registry::LoadedScenario;
use std::time::Instant;

/// mimalloc, as in `dsim`, counting each thread's heap operations (thread-local counters: no
/// contention between the 2-thread runs).
#[global_allocator]
static GLOBAL: densa_alloc::CountingAllocator<mimalloc::MiMalloc> =
    densa_alloc::CountingAllocator::new(mimalloc::MiMalloc);

const ROUNDS: usize = 5;

fn seeds_per_second(seeds: u64, work: &mut dyn FnMut()) -> f64 {
    let start = Instant::now();
    work();
    seeds as f64 / start.elapsed().as_secs_f64()
}

/// Heap allocations and reallocations per seed of `work`, which must run on the calling
/// thread: densa-alloc's counters are per thread (a pool's workers would go uncounted).
fn allocations_per_seed(seeds: u64, work: impl FnOnce()) -> f64 {
    let ((), change) = densa_alloc::measure(work);
    (change.allocs + change.reallocs) as f64 / seeds as f64
}

fn main() {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_else(|| "search/paxos-swarm".into());
    let seeds: u64 = args
        .next()
        .map(|s| s.parse().expect("SEEDS is a number"))
        .unwrap_or(20_000);
    let bundled = scenarios::bundled::find(&name).expect("a bundled scenario");
    let protocol =
        scenarios::registry::protocol_for(bundled.name, bundled.source).expect("a known protocol");
    let loaded: Box<dyn LoadedScenario> = protocol
        .load(bundled.name, bundled.source)
        .unwrap_or_else(|_| panic!("{name} loads"));
    let loaded = loaded.as_ref();
    let none = scenarios::explore::FaultModel::default();
    let all: Vec<u64> = (0..seeds).collect();
    // The two paths, each over the first `n` seeds, one thread.
    let sweep_first = |n: u64| {
        for seed in 0..n {
            std::hint::black_box(loaded.measure(seed));
        }
    };
    let probe_first = |n: u64| {
        for chunk in all[..n as usize].chunks(64) {
            std::hint::black_box(loaded.probe_many(chunk, &none));
        }
    };
    if let Ok(only) = std::env::var("DSIM_BENCH_ONLY") {
        for _ in 0..ROUNDS {
            match only.as_str() {
                "sweep" => sweep_first(seeds),
                _ => probe_first(seeds),
            }
        }
        return;
    }
    let failing = (0..seeds)
        .filter(|&s| loaded.probe(s, &none).is_some())
        .count();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("a pool of 2");
    let mut work: [Box<dyn FnMut() + '_>; 3] = [
        Box::new(|| sweep_first(seeds)),
        Box::new(|| probe_first(seeds)),
        Box::new(|| {
            pool.install(|| {
                all.par_chunks(64).for_each(|chunk| {
                    std::hint::black_box(loaded.probe_many(chunk, &none));
                })
            });
        }),
    ];
    // Rounds interleave the three, so a machine whose speed drifts (a shared host) slows each
    // alike and the ratios hold; each keeps its best round.
    let mut best = [0.0f64; 3];
    for _ in 0..ROUNDS {
        for (b, w) in best.iter_mut().zip(work.iter_mut()) {
            *b = b.max(seeds_per_second(seeds, w));
        }
    }
    let [sweep, probe, probe2] = best;
    let sample = seeds.min(2_000);
    let sweep_allocs = allocations_per_seed(sample, || sweep_first(sample));
    let probe_allocs = allocations_per_seed(sample, || probe_first(sample));

    println!("{name}: {seeds} seeds, {failing} break an invariant");
    println!("  sweep, 1 thread     {sweep:>10.0} seeds/s   {sweep_allocs:>7.1} allocations/seed");
    println!(
        "  explore, 1 thread   {probe:>10.0} seeds/s   {probe_allocs:>7.1} allocations/seed   {:.2}x the sweep",
        probe / sweep
    );
    println!(
        "  explore, 2 threads  {probe2:>10.0} seeds/s   {:.2}x the sweep, {:.2}x one thread",
        probe2 / sweep,
        probe2 / probe
    );
}
