//! Benchmark of `dsim ring`'s placement code: `cargo run --profile perf -p dsim-bench --bin ring`.
//!
//! 1. A join at scale: 1 000 nodes x 128 vnodes, 1 000 000 keys hashed and sorted beforehand
//!    (not timed), RF 3; one node joins: rebuild the ring and find every key whose replica set
//!    changed. Median of several runs on one thread, and the moved share against the ideal.
//! 2. The ring store at scale: a 1 000-node store (100 vnodes each) built and run for one Put
//!    and one Get through the kernel; a request must cost O(RF log N), not O(N) per node.
//! 3. The lesson's RING-1..3 tables (text 000) against the lesson's own Python, run in the same
//!    process from listings extracted from the course text at run time (nothing copied).

// Wall-clock timing is this benchmark's whole point; clippy.toml bans Instant elsewhere.
#![allow(clippy::disallowed_types)]

use protocols::partition::hash::HashFn;
use protocols::partition::lesson::{lesson_keys, lesson_tables};
use protocols::partition::placement::{Member, Ring};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn median(mut d: Vec<Duration>) -> Duration {
    d.sort();
    d[d.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn join_at_scale() {
    const NODES: u32 = 1000;
    const VNODES: u32 = 128;
    const KEYS: u64 = 1_000_000;
    const RF: usize = 3;
    const RUNS: usize = 9;
    let hash_fn = HashFn::Md5_64;
    let members: Vec<Member> = (0..NODES)
        .map(|i| Member::new(i, format!("node-{i:04}")))
        .collect();
    let before = Ring::build(hash_fn, VNODES, &members);
    let mut keys: Vec<u64> = (0..KEYS)
        .map(|i| hash_fn.hash_str(&format!("key-{i:07}")))
        .collect();
    keys.sort_unstable();
    let newcomer = Member::new(NODES, "node-new");
    let mut times = Vec::with_capacity(RUNS);
    let mut last = None;
    for _ in 0..RUNS {
        let start = Instant::now();
        let mut after = before.clone();
        after.add_node(&newcomer);
        let diff = before.diff_sorted(&after, &keys, RF);
        times.push(start.elapsed());
        last = Some(diff);
    }
    let diff = last.expect("at least one run");
    let moved = diff.moved as f64 / KEYS as f64;
    let ideal = 1.0 / f64::from(NODES + 1);
    let changed = diff.replica_sets_changed as f64 / KEYS as f64;
    println!(
        "join: {NODES} nodes x {VNODES} vnodes, {KEYS} keys, RF {RF}, one node joins (md5-64)"
    );
    println!(
        "  rebuild ring + every key's replica-set change: median {:.2} ms of {RUNS} runs (min {:.2}, max {:.2}), one thread",
        ms(median(times.clone())),
        ms(*times.iter().min().expect("runs")),
        ms(*times.iter().max().expect("runs")),
    );
    println!(
        "  moved share {:.4} % vs ideal 1/{} = {:.4} % ({:+.1} %); replica sets changed {:.4} % (ideal ~{RF}/{} = {:.4} %), in {} key ranges",
        moved * 100.0,
        NODES + 1,
        ideal * 100.0,
        (moved / ideal - 1.0) * 100.0,
        changed * 100.0,
        NODES + 1,
        RF as f64 * ideal * 100.0,
        diff.changed.len(),
    );
}

fn lesson_tables_timed() -> Duration {
    const RUNS: usize = 7;
    let mut times = Vec::with_capacity(RUNS);
    let mut tables = None;
    for _ in 0..RUNS {
        let start = Instant::now();
        let keys = lesson_keys();
        let t = lesson_tables(&keys);
        times.push(start.elapsed());
        tables = Some(t);
    }
    let t = tables.expect("runs");
    let pct = |n: u64| n as f64 / t.keys as f64 * 100.0;
    for r in &t.mod_resizes {
        println!(
            "  {:>2} -> {:>2} nodes: {:5.1} % move",
            r.before,
            r.after,
            pct(r.moved)
        );
    }
    for s in &t.spreads {
        println!(
            "  vnodes={:>3}: {:?} deviation {:.1} %",
            s.vnodes, s.counts, s.balance.deviation_pct
        );
    }
    println!(
        "  add inv-tar {:.1} %, remove inv-vlc {:.1} %, after {:?}",
        pct(t.add_tar_moved),
        pct(t.remove_vlc_moved),
        t.after_remove_vlc
    );
    println!(
        "  weighted {:?}; rendezvous {:?} deviation {:.2} %, primary moves {:.1} %, 3-replica sets change {:.1} %",
        t.weighted,
        t.rendezvous,
        t.rendezvous_balance.deviation_pct,
        pct(t.rendezvous_join.moved),
        pct(t.rendezvous_join.replica_sets_changed.unwrap_or(0)),
    );
    median(times)
}

/// The lines of `text` from the one starting with `from` (included or not) up to the first
/// starting with `to` (excluded).
fn between(text: &str, from: &str, include_from: bool, to: &str) -> Option<String> {
    let mut out = String::new();
    let mut on = false;
    for line in text.lines() {
        if on && line.starts_with(to) {
            return Some(out);
        }
        if !on && line.starts_with(from) {
            on = true;
            if !include_from {
                continue;
            }
        }
        if on {
            out.push_str(line);
            out.push('\n');
        }
    }
    None
}

fn python_listings(text: &str, dir: &Path) -> Result<Vec<PathBuf>, String> {
    let grab = |from, include, to| {
        between(text, from, include, to).ok_or_else(|| format!("listing {from:?} not found"))
    };
    let hash_mod = grab(
        "# km0/simulaciones/hash_modulo.py",
        true,
        "Explicación paso a paso",
    )?;
    let ring = grab(
        "# km0/simulaciones/anillo_consistente.py",
        true,
        "Cómo funciona, línea a línea",
    )?;
    let sol1 = grab("Solución 1:", false, "Si quitar_nodo recalcula")?;
    let sol3 = grab("Solución 3:", false, "(a) La desviación")?;
    let exercises = format!(
        "from anillo_consistente import *\nclaves = [f\"P-2026-{{i:06d}}\" for i in range(1, 100_001)]\n{sol1}\n{sol3}"
    );
    let mut paths = Vec::new();
    for (name, body) in [
        ("hash_modulo.py", hash_mod),
        ("anillo_consistente.py", ring),
        ("ejercicios.py", exercises),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, body).map_err(|e| format!("{}: {e}", path.display()))?;
        paths.push(path);
    }
    Ok(paths)
}

fn python_run() -> Result<Duration, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let course = root.join("../shared/course/texts/000_577675acdcbedebc.txt");
    let text = std::fs::read_to_string(&course)
        .map_err(|e| format!("course text {} absent ({e})", course.display()))?;
    let dir = std::env::temp_dir().join(format!("dsim-ring-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let scripts = python_listings(&text, &dir)?;
    let mut total = Duration::ZERO;
    for script in &scripts {
        let start = Instant::now();
        let out = Command::new("python3")
            .arg(script)
            .current_dir(&dir)
            .output()
            .map_err(|e| format!("python3 not runnable ({e})"))?;
        let took = start.elapsed();
        total += took;
        if !out.status.success() {
            return Err(format!(
                "{} failed: {}",
                script.display(),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        println!(
            "  python3 {}: {:.0} ms",
            script.file_name().and_then(|n| n.to_str()).unwrap_or("?"),
            ms(took)
        );
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            println!("    | {line}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(total)
}

/// Builds a `nodes`-node ring store and runs one Put and one Get: the wall time of the whole run
/// (building included) and its kernel steps.
fn store_put_get(nodes: usize) -> (Duration, u64) {
    use protocols::ring_store::{LiveRing, RingCommand, RingConfig};
    use sim_core::{Action, SimConfig, build_sim};
    let mut config = RingConfig::lesson();
    config.nodes = (0..nodes).map(|i| format!("n{i}")).collect();
    let start = Instant::now();
    let mut sim = build_sim::<LiveRing>(&config, SimConfig::seeded(0));
    let coord = sim.node_id("coord").expect("the coordinator");
    let put = RingCommand::Put {
        key: "k".into(),
        value: "v".into(),
    };
    let get = RingCommand::Get { key: "k".into() };
    sim.schedule(sim_core::Instant::ZERO, Action::Command(coord, put));
    sim.schedule(
        sim_core::Instant::from_millis(100),
        Action::Command(coord, get),
    );
    let report = sim.run();
    (start.elapsed(), report.steps)
}

fn store_at_scale() {
    println!("ring store: build, one Put and one Get (release build, one thread):");
    for nodes in [100, 500, 1000] {
        let runs: Vec<(Duration, u64)> = (0..5).map(|_| store_put_get(nodes)).collect();
        let steps = runs[0].1;
        let t = median(runs.into_iter().map(|r| r.0).collect());
        println!("  {nodes:>5} nodes: median {:.2} ms, {steps} steps", ms(t));
    }
}

fn main() {
    join_at_scale();
    store_at_scale();
    println!("lesson tables RING-1..3 (100 000 keys, md5-64, hashing included):");
    let ours = lesson_tables_timed();
    println!("  dsim: median {:.2} ms", ms(ours));
    println!("the lesson's Python (hash_modulo.py, anillo_consistente.py, solutions 1 and 3):");
    match python_run() {
        Ok(py) => println!(
            "  python3 total {:.0} ms; dsim {:.2} ms: {:.0}x faster",
            ms(py),
            ms(ours),
            py.as_secs_f64() / ours.as_secs_f64()
        ),
        Err(why) => println!("  skipped: {why}"),
    }
}
