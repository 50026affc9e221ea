//! The linearizability checker's time on a large key-value history, with and without the split
//! by key.
//!
//! `cargo run --profile perf -p dsim-bench --bin linearizability` makes a history of 10,000
//! operations (puts, gets, appends, compare-and-sets) by 20 clients over 100 keys, each
//! operation taking effect at a random point of its interval (so the history is linearizable),
//! and a copy with one late read made stale. It checks both as one history and split by key,
//! each under the default budget (10 million search steps), and prints the verdict, the
//! search's wall time and the process's peak resident memory after it (the split runs first,
//! so its peak is its own).
#![allow(clippy::disallowed_types)] // Wall-clock timing is this binary's whole job.

use dsim_bench::peak_bytes;
use protocols::linearizability::{
    Budget, KvMap, KvOp, KvRet, Operation, Spec, Verdict, check, check_by_part,
};
use sim_core::{SimRng, Stream};
use std::time::Instant;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const OPERATIONS: usize = 10_000;
const CLIENTS: u64 = 20;
const KEYS: u64 = 100;

type History = Vec<Operation<String, KvMap>>;

/// The linearizable history: clients call one operation after another, each taking effect at
/// a point of its interval; returns are the map's in the order of the points.
fn history(seed: u64) -> History {
    let mut rng = SimRng::new(seed, Stream::Node(0));
    let mut free = vec![0u64; CLIENTS as usize];
    let mut ops: History = Vec::with_capacity(OPERATIONS);
    let mut points = Vec::with_capacity(OPERATIONS);
    for n in 0..OPERATIONS {
        let client = rng.below(CLIENTS) as usize;
        let call = free[client] + rng.below(5);
        let end = call + 1 + rng.below(50);
        free[client] = end + 1;
        let key = format!("k{}", rng.below(KEYS));
        let value = format!("{n}");
        let op = match rng.below(10) {
            0..4 => KvOp::Put(key, value),
            4..8 => KvOp::Get(key),
            8 => KvOp::Append(key, value),
            _ => KvOp::Cas(key, Some(format!("{}", rng.below(n as u64 + 1))), value),
        };
        points.push((call * 100 + 1 + rng.below((end - call) * 100 - 1), n));
        ops.push(Operation {
            client: format!("c{client}"),
            op,
            call,
            ret: Some((end, KvRet::Done)),
        });
    }
    points.sort_unstable();
    let mut map = KvMap::default();
    for (_, n) in points {
        let ret = map.invoke(&ops[n].op);
        ops[n].ret.as_mut().expect("every operation returns").1 = ret;
    }
    ops
}

/// The same history with its last read made to return a value nobody wrote.
fn with_stale_read(mut ops: History) -> History {
    let last_get = ops
        .iter()
        .rposition(|o| matches!(o.op, KvOp::Get(_)))
        .expect("a history of 10,000 has reads");
    ops[last_get].ret.as_mut().expect("it returned").1 = KvRet::Value(Some("stale".into()));
    ops
}

fn report<P: std::fmt::Debug>(label: &str, run: impl FnOnce() -> Verdict<P>) {
    let start = Instant::now();
    let verdict = run();
    let seconds = start.elapsed().as_secs_f64();
    let verdict = match verdict {
        Verdict::Linearizable => "linearizable".to_owned(),
        Verdict::Violation(w) => format!("not linearizable (part {:?})", w.part),
        Verdict::Unknown { part, steps } => format!("unknown after {steps} steps (part {part:?})"),
    };
    println!(
        "{label:<38} {seconds:>9.3} s  peak {:>6.1} MB  {verdict}",
        peak_bytes() as f64 / 1e6
    );
}

fn main() {
    let good = history(1);
    let bad = with_stale_read(good.clone());
    let init = KvMap::default();
    println!(
        "{OPERATIONS} operations, {CLIENTS} clients, {KEYS} keys, budget {} steps\n",
        Budget::default().0
    );
    report("linearizable, split by key", || {
        check_by_part(&init, &good, Budget::default())
    });
    report("one stale read, split by key", || {
        check_by_part(&init, &bad, Budget::default())
    });
    report("linearizable, one history", || {
        check(&init, &good, Budget::default())
    });
    report("one stale read, one history", || {
        check(&init, &bad, Budget::default())
    });
}
