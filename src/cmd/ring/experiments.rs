//! The measurement subcommands beyond `place` and `move`: the lesson's tables, the blackboard
//! ring, and the sweeps behind text 004's figures, each with a table, `--json` and `--plot`.

use super::{GenArgs, KeyArgs, limits, numbered, print_json, ring_of};
use crate::chart::{Chart, Series, write_plot};
use crate::exit::{CliError, OK};
use crate::output::out;
use clap::Args;
use protocols::partition::hash::HashFn;
use protocols::partition::keys::{KeySet, Zipf};
use protocols::partition::lesson::{INVENTORY, lesson_keys, lesson_tables};
use protocols::partition::measure;
use protocols::partition::placement::{ModN, NodeId, RangePartition, Ring};
use serde_json::json;
use std::path::PathBuf;
use traces::Lang;

fn parse_hash(s: &str) -> Result<HashFn, String> {
    s.parse()
}

/// `dsim ring lesson`.
pub(crate) fn lesson(as_json: bool, lang: Lang) -> Result<u8, CliError> {
    let es = lang == Lang::Es;
    // The line in the language asked for.
    let say = |en: String, es_text: String| if es { es_text } else { en };
    let keys = lesson_keys();
    let t = lesson_tables(&keys);
    let pct = |n: u64| n as f64 / t.keys as f64 * 100.0;
    if as_json {
        let named = |names: &[&str], counts: &[u64]| -> serde_json::Value {
            names
                .iter()
                .zip(counts)
                .map(|(n, c)| ((*n).to_string(), json!(c)))
                .collect::<serde_json::Map<_, _>>()
                .into()
        };
        return print_json(&json!({
            "keys": t.keys,
            "ring1_mod": t.mod_resizes.iter().map(|r| json!({
                "before": r.before, "after": r.after, "moved": r.moved,
                "moved_fraction": r.moved as f64 / t.keys as f64,
            })).collect::<Vec<_>>(),
            "ring2_vnodes": t.spreads.iter().map(|s| json!({
                "vnodes": s.vnodes, "counts": named(&INVENTORY, &s.counts),
                "deviation_pct": s.balance.deviation_pct, "imbalance": s.balance.imbalance,
            })).collect::<Vec<_>>(),
            "ring2_add_inv_tar_moved": t.add_tar_moved,
            "ring2_remove_inv_vlc_moved": t.remove_vlc_moved,
            "ring2_after_remove_inv_vlc": named(&["inv-bcn", "inv-gir", "inv-lle"], &t.after_remove_vlc),
            "ring3_weighted": named(&["inv-bcn", "inv-vlc", "inv-gir"], &t.weighted),
            "ring3_weighted_points_after_removing_inv_bcn": t.weighted_points_after_remove,
            "ring3_weighted_after_removing_inv_bcn": named(&["inv-vlc", "inv-gir"], &t.weighted_after_remove),
            "ring3_rendezvous": named(&["n1", "n2", "n3", "n4", "n5"], &t.rendezvous),
            "ring3_rendezvous_deviation_pct": t.rendezvous_balance.deviation_pct,
            "ring3_rendezvous_add_n6_moved": t.rendezvous_join.moved,
            "ring3_rendezvous_add_n6_replica_sets_changed": t.rendezvous_join.replica_sets_changed,
        }));
    }
    out!(
        "{}",
        say(
            format!("RING-1 hash % N ({} keys P-2026-000001..., md5-64)", t.keys),
            format!(
                "RING-1 hash % N ({} claves P-2026-000001..., md5-64)",
                t.keys
            )
        )
    );
    for r in &t.mod_resizes {
        let (before, after, share) = (r.before, r.after, pct(r.moved));
        out!(
            "{}",
            say(
                format!(
                    "  {before:>2} -> {after:>2} nodes: {share:5.1} % of keys move ({})",
                    r.moved
                ),
                format!(
                    "  {before:>2} -> {after:>2} nodos: se mueve el {share:5.1} % de las claves ({})",
                    r.moved
                )
            )
        );
    }
    out!(
        "{}",
        say(
            format!("RING-2 consistent ring, nodes {}", INVENTORY.join(", ")),
            format!("RING-2 anillo consistente, nodos {}", INVENTORY.join(", "))
        )
    );
    for s in &t.spreads {
        let cells: Vec<String> = INVENTORY
            .iter()
            .zip(&s.counts)
            .map(|(n, c)| format!("{n} {c}"))
            .collect();
        let (vnodes, cells, dev) = (s.vnodes, cells.join(", "), s.balance.deviation_pct);
        out!(
            "{}",
            say(
                format!("  vnodes={vnodes:>3}: {cells}  deviation {dev:.1} %"),
                format!("  vnodes={vnodes:>3}: {cells}  desviación {dev:.1} %")
            )
        );
    }
    let (share, moved) = (pct(t.add_tar_moved), t.add_tar_moved);
    out!(
        "{}",
        say(
            format!("  add inv-tar (4 -> 5, 150 vnodes): {share:.1} % move ({moved}; ideal 1/5)"),
            format!(
                "  entra inv-tar (4 -> 5, 150 vnodes): se mueve el {share:.1} % ({moved}; lo ideal, 1/5)"
            )
        )
    );
    let (share, moved) = (pct(t.remove_vlc_moved), t.remove_vlc_moved);
    let [bcn, gir, lle] = [0, 1, 2].map(|i| t.after_remove_vlc[i]);
    out!(
        "{}",
        say(
            format!(
                "  remove inv-vlc (4 -> 3): {share:.1} % move ({moved}); after: inv-bcn {bcn}, \
                 inv-gir {gir}, inv-lle {lle}"
            ),
            format!(
                "  sale inv-vlc (4 -> 3): se mueve el {share:.1} % ({moved}); después: inv-bcn \
                 {bcn}, inv-gir {gir}, inv-lle {lle}"
            )
        )
    );
    out!(
        "{}",
        say("RING-3 exercises".into(), "RING-3 ejercicios".into())
    );
    let [w0, w1, w2] = [0, 1, 2].map(|i| t.weighted[i]);
    let share = pct(w0);
    out!(
        "{}",
        say(
            format!(
                "  weights inv-bcn 2.0, inv-vlc 1.0, inv-gir 1.0: {w0} {w1} {w2} (inv-bcn {share:.1} %)"
            ),
            format!(
                "  pesos inv-bcn 2.0, inv-vlc 1.0, inv-gir 1.0: {w0} {w1} {w2} (inv-bcn {share:.1} %)"
            )
        )
    );
    let (left, vlc, gir) = (
        t.weighted_points_after_remove,
        t.weighted_after_remove[0],
        t.weighted_after_remove[1],
    );
    out!(
        "{}",
        say(
            format!(
                "  removing inv-bcn removes all 300 of its vnodes: {left} positions left; inv-vlc \
                 {vlc}, inv-gir {gir}"
            ),
            format!(
                "  quitar inv-bcn quita sus 300 vnodes: quedan {left} posiciones; inv-vlc {vlc}, \
                 inv-gir {gir}"
            )
        )
    );
    let (counts, dev) = (t.rendezvous, t.rendezvous_balance.deviation_pct);
    out!(
        "{}",
        say(
            format!("  rendezvous n1..n5: {counts:?}, deviation {dev:.2} %"),
            format!("  rendezvous n1..n5: {counts:?}, desviación {dev:.2} %")
        )
    );
    let (moved, sets) = (
        t.rendezvous_join.moved,
        t.rendezvous_join.replica_sets_changed.unwrap_or(0),
    );
    let (share, sets_share) = (pct(moved), pct(sets));
    out!(
        "{}",
        say(
            format!(
                "  add n6: primary changes for {share:.1} % ({moved}; ideal 1/6), 3-replica set \
                 for {sets_share:.1} % ({sets}; ~3/6)"
            ),
            format!(
                "  entra n6: cambia el primario del {share:.1} % ({moved}; lo ideal, 1/6) y el \
                 conjunto de 3 réplicas del {sets_share:.1} % ({sets}; ~3/6)"
            )
        )
    );
    Ok(OK)
}

/// `dsim ring toy`: the blackboard ring.
#[derive(Args, Debug)]
pub(crate) struct ToyArgs {
    /// Size of the ring: positions 0..SPACE. Example: --space 100.
    #[arg(long, default_value_t = 100)]
    space: u64,
    /// Nodes and their positions, NAME=POS comma-separated.
    /// Example: --positions n10=10,n50=50,n90=90.
    #[arg(long, value_delimiter = ',', default_value = "n10=10,n50=50,n90=90")]
    positions: Vec<String>,
    /// Keys, given by their position on the ring. Example: --keys 40,55,95.
    #[arg(long, value_delimiter = ',', default_value = "40,55,95")]
    keys: Vec<u64>,
    /// A node that joins, NAME=POS. Example: --join n60=60.
    #[arg(long)]
    join: Option<String>,
    /// Print JSON instead of the trace. Example: --json.
    #[arg(long)]
    json: bool,
}

fn parse_position(text: &str, space: u64) -> Result<(String, u64), CliError> {
    let bad = || {
        CliError::bad_input(format!(
            "position {text:?} is not NAME=POS with 0 <= POS < {space}, e.g. n10=10"
        ))
    };
    let (name, pos) = text.split_once('=').ok_or_else(bad)?;
    let pos: u64 = pos.trim().parse().map_err(|_| bad())?;
    if pos >= space || name.trim().is_empty() {
        return Err(bad());
    }
    Ok((name.trim().to_string(), pos))
}

/// `dsim ring toy`.
pub(crate) fn toy(args: &ToyArgs, lang: Lang) -> Result<u8, CliError> {
    let es = lang == Lang::Es;
    if args.space == 0 {
        return Err(CliError::bad_input(
            "--space must be at least 1, e.g. --space 100",
        ));
    }
    let mut nodes: Vec<(String, u64)> = args
        .positions
        .iter()
        .map(|p| parse_position(p, args.space))
        .collect::<Result<_, _>>()?;
    if nodes.is_empty() {
        return Err(CliError::bad_input(
            "give at least one node, e.g. --positions n10=10",
        ));
    }
    if let Some(k) = args.keys.iter().find(|&&k| k >= args.space) {
        return Err(CliError::bad_input(format!(
            "key {k} is outside the ring 0..{}: keys are positions below --space",
            args.space
        )));
    }
    let ring_of_nodes = |nodes: &[(String, u64)]| {
        let pts: Vec<(u64, NodeId)> = nodes
            .iter()
            .enumerate()
            .map(|(i, (_, p))| (*p, i as NodeId))
            .collect();
        Ring::from_points(&pts)
    };
    let before = ring_of_nodes(&nodes);
    // Text 004's ring: a key belongs to the first node at or after it (its arcs are written
    // "(50,60]": key 50 is node 50's), so the successor of the position just before the key.
    let owner = |ring: &Ring, nodes: &[(String, u64)], k: u64| -> String {
        nodes[ring.owners()[ring.successor(k.wrapping_sub(1))] as usize]
            .0
            .clone()
    };
    let first: Vec<String> = args
        .keys
        .iter()
        .map(|&k| owner(&before, &nodes, k))
        .collect();
    let joined = args
        .join
        .as_deref()
        .map(|j| parse_position(j, args.space))
        .transpose()?;
    let second: Option<Vec<String>> = joined.map(|j| {
        nodes.push(j);
        let after = ring_of_nodes(&nodes);
        args.keys
            .iter()
            .map(|&k| owner(&after, &nodes, k))
            .collect()
    });
    if args.json {
        let rows: Vec<_> = args
            .keys
            .iter()
            .enumerate()
            .map(|(i, k)| {
                let after = second.as_ref().map(|s| s[i].clone());
                json!({"key": k, "before": first[i], "after": after,
                       "moved": after.as_ref().is_some_and(|a| *a != first[i])})
            })
            .collect();
        return print_json(&json!({"space": args.space, "keys": rows}));
    }
    let base: Vec<String> = args
        .positions
        .iter()
        .map(|p| p.replace('=', if es { " en " } else { " at " }))
        .collect();
    let (last, base) = (args.space - 1, base.join(", "));
    if es {
        out!(
            "anillo 0..{last}: {base} (una clave va al primer nodo en su posición o después, dando la vuelta: los arcos (a,b] del texto 004)"
        );
    } else {
        out!(
            "ring 0..{last}: {base} (a key goes to the first node at or after it, wrapping: text 004's arcs (a,b])"
        );
    }
    let key = if es { "clave" } else { "key" };
    for (k, o) in args.keys.iter().zip(&first) {
        out!("  {key} {k:>3} -> {o}");
    }
    if let (Some(second), Some(j)) = (&second, &args.join) {
        if es {
            out!("entra {}:", j.replace('=', " en "));
        } else {
            out!("{} joins:", j.replace('=', " at "));
        }
        for ((k, o), n) in args.keys.iter().zip(&first).zip(second) {
            let note = match (n == o, es) {
                (true, false) => "(no change)".to_string(),
                (true, true) => "(sin cambio)".to_string(),
                (false, false) => format!("(was {o}: moves)"),
                (false, true) => format!("(era {o}: se mueve)"),
            };
            out!("  {key} {k:>3} -> {n}  {note}");
        }
    }
    Ok(OK)
}

/// `dsim ring sweep-vnodes`.
#[derive(Args, Debug)]
pub(crate) struct SweepVnodesArgs {
    /// Number of nodes, named n0, n1, ... Example: --nodes 10.
    #[arg(long, default_value_t = 10)]
    nodes: usize,
    /// Vnodes per node to try. Example: --vnodes-list 1,10,50,200,1000.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "1,2,5,10,20,50,100,200,500,1000"
    )]
    vnodes_list: Vec<u32>,
    /// Hash: md5 (the course's) or xxh3. Example: --hash xxh3.
    #[arg(long, default_value = "md5", value_parser = parse_hash)]
    hash: HashFn,
    #[command(flatten)]
    keys: KeyArgs,
    /// Write an SVG plot of imbalance vs vnodes. Example: --plot balance.svg.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    /// Print JSON instead of a table. Example: --json.
    #[arg(long)]
    json: bool,
}

fn sorted_hashes(keys: &KeySet) -> Vec<u64> {
    let mut s = keys.hashes().to_vec();
    s.sort_unstable();
    s
}

/// `dsim ring sweep-vnodes`.
pub(crate) fn sweep_vnodes(args: &SweepVnodesArgs, lang: Lang) -> Result<u8, CliError> {
    let es = lang == Lang::Es;
    if args.nodes == 0 || args.vnodes_list.is_empty() || args.vnodes_list.contains(&0) {
        return Err(CliError::bad_input(
            "--nodes and every --vnodes-list entry must be at least 1, e.g. --nodes 10 --vnodes-list 1,10,100",
        ));
    }
    limits::list("--vnodes-list", &args.vnodes_list, "1,10,50,200,1000")?;
    limits::at_most(
        args.nodes as u128,
        limits::NODES,
        "--nodes",
        "sweep a smaller cluster, e.g. --nodes 10",
    )?;
    let largest = args.vnodes_list.iter().copied().max().unwrap_or(1);
    limits::at_most(
        args.nodes as u128 * u128::from(largest),
        limits::RING_POINTS,
        &format!(
            "the largest ring (--nodes {} x {largest} vnodes): its number of points",
            args.nodes
        ),
        "use fewer vnodes or nodes, e.g. --nodes 10 --vnodes-list 1,10,100,1000",
    )?;
    limits::at_most(
        args.vnodes_list
            .iter()
            .map(|&v| args.nodes as u128 * u128::from(v))
            .sum(),
        limits::SWEEP_POINTS,
        "the ring points built over the sweep (--nodes x the sum of --vnodes-list)",
        "sweep fewer or smaller vnode counts, e.g. --vnodes-list 1,10,100,1000",
    )?;
    let keys = args.keys.load(args.hash)?;
    let sorted = sorted_hashes(&keys);
    let members = numbered(args.nodes);
    let rows: Vec<(u32, measure::Balance)> = args
        .vnodes_list
        .iter()
        .map(|&v| {
            let ring = ring_of(args.hash, v, &members);
            (
                v,
                measure::balance(&ring.counts_sorted(&sorted, args.nodes)),
            )
        })
        .collect();
    write_plot(
        args.plot.as_ref(),
        &Chart {
            title: format!(
                "Imbalance vs vnodes ({} nodes, {} keys)",
                args.nodes,
                keys.len()
            ),
            x_label: "vnodes per node".into(),
            y_label: "imbalance (max / mean)".into(),
            log_x: true,
            log_y: false,
            series: vec![Series::of(
                "ring",
                &rows,
                |(v, b)| (f64::from(*v), b.imbalance),
                false,
            )],
        },
    )?;
    if args.json {
        let out: Vec<_> = rows
            .iter()
            .map(|(v, b)| json!({"vnodes": v, "imbalance": b.imbalance, "deviation_pct": b.deviation_pct}))
            .collect();
        return print_json(&json!({"nodes": args.nodes, "keys": keys.len(), "rows": out}));
    }
    let (nodes, count, hash) = (args.nodes, keys.len(), args.hash);
    let (imbalance, deviation) = if es {
        out!("{nodes} nodos, {count} claves, hash {hash}");
        ("desequilibrio", "desviación")
    } else {
        out!("{nodes} nodes, {count} keys, hash {hash}");
        ("imbalance", "deviation")
    };
    let (wi, wd) = (imbalance.chars().count(), deviation.chars().count());
    out!("{:>7}  {imbalance:>wi$}  {deviation:>wd$}", "vnodes");
    for (v, b) in &rows {
        let pct = wd - 2;
        out!(
            "{v:>7}  {:>wi$.3}  {:>pct$.1} %",
            b.imbalance,
            b.deviation_pct
        );
    }
    Ok(OK)
}

/// `dsim ring sweep-nodes`.
#[derive(Args, Debug)]
pub(crate) struct SweepNodesArgs {
    /// Smallest cluster size N (measures N -> N+1). Example: --from 2.
    #[arg(long, default_value_t = 2)]
    from: usize,
    /// Largest cluster size N. Example: --to 32.
    #[arg(long, default_value_t = 32)]
    to: usize,
    /// Vnodes per node of the ring. Example: --vnodes 150.
    #[arg(long, default_value_t = 150)]
    vnodes: u32,
    /// Hash: md5 (the course's) or xxh3. Example: --hash xxh3.
    #[arg(long, default_value = "md5", value_parser = parse_hash)]
    hash: HashFn,
    #[command(flatten)]
    keys: KeyArgs,
    /// Write an SVG plot of moved share vs cluster size. Example: --plot movement.svg.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    /// Print JSON instead of a table. Example: --json.
    #[arg(long)]
    json: bool,
}

/// `dsim ring sweep-nodes`.
pub(crate) fn sweep_nodes(args: &SweepNodesArgs, lang: Lang) -> Result<u8, CliError> {
    let es = lang == Lang::Es;
    if args.from == 0 || args.to < args.from || args.to > 4096 || args.vnodes == 0 {
        return Err(CliError::bad_input(
            "need 1 <= --from <= --to <= 4096 and --vnodes >= 1, e.g. --from 2 --to 32 --vnodes 150",
        ));
    }
    let steps = (args.to - args.from + 1) as u128;
    let largest = (args.to + 1) as u128 * u128::from(args.vnodes);
    limits::at_most(
        largest,
        limits::RING_POINTS,
        &format!(
            "the largest ring ({} nodes x --vnodes {}): its number of points",
            args.to + 1,
            args.vnodes
        ),
        "use fewer vnodes or a smaller --to, e.g. --to 32 --vnodes 150",
    )?;
    limits::at_most(
        steps * largest,
        limits::SWEEP_POINTS,
        "the ring points compared over the sweep (steps x (--to + 1) x --vnodes)",
        "sweep fewer sizes or vnodes, e.g. --from 2 --to 32 --vnodes 150",
    )?;
    let keys = args.keys.load(args.hash)?;
    limits::at_most(
        steps * keys.len() as u128,
        limits::SWEEP_KEY_STEPS,
        &format!("{} keys x {steps} steps", keys.len()),
        "use fewer keys or sizes, e.g. --range 1..=100000 --from 2 --to 32",
    )?;
    let sorted = sorted_hashes(&keys);
    let n_keys = keys.len() as f64;
    let all = numbered(args.to + 1);
    let mut ring = ring_of(args.hash, args.vnodes, &all[..args.from]);
    let mut rows = Vec::new();
    for (n, newcomer) in all.iter().enumerate().skip(args.from) {
        let mut next = ring.clone();
        next.add_node(newcomer);
        let ring_moved = ring.diff_sorted(&next, &sorted, 1).moved as f64 / n_keys;
        let (a, b) = (n as u64, n as u64 + 1);
        let mod_moved = sorted.iter().filter(|&&h| h % a != h % b).count() as f64 / n_keys;
        rows.push((n, mod_moved, ring_moved, 1.0 / (n as f64 + 1.0)));
        ring = next;
    }
    let series = |name: &str, f: fn(&(usize, f64, f64, f64)) -> f64, dashed| {
        Series::of(name, &rows, |r| (r.0 as f64, f(r)), dashed)
    };
    write_plot(
        args.plot.as_ref(),
        &Chart {
            title: format!("Keys moved by one join, N -> N+1 ({} keys)", keys.len()),
            x_label: "cluster size N".into(),
            y_label: "share of keys moved".into(),
            log_x: false,
            log_y: false,
            series: vec![
                series("hash mod N", |r| r.1, false),
                series("ring", |r| r.2, false),
                series("ideal 1/(N+1)", |r| r.3, true),
            ],
        },
    )?;
    if args.json {
        let out: Vec<_> = rows
            .iter()
            .map(|r| json!({"nodes": r.0, "mod": r.1, "ring": r.2, "ideal": r.3}))
            .collect();
        return print_json(&json!({"vnodes": args.vnodes, "keys": keys.len(), "rows": out}));
    }
    let (count, vnodes, hash) = (keys.len(), args.vnodes, args.hash);
    if es {
        out!(
            "{count} claves, ring con {vnodes} vnodes, hash {hash}: parte que se mueve de N -> N+1"
        );
    } else {
        out!("{count} keys, ring with {vnodes} vnodes, hash {hash}: share moved by N -> N+1");
    }
    out!("{:>4}  {:>7}  {:>7}  {:>7}", "N", "mod", "ring", "ideal");
    for r in &rows {
        out!(
            "{:>4}  {:>5.1} %  {:>5.1} %  {:>5.1} %",
            r.0,
            r.1 * 100.0,
            r.2 * 100.0,
            r.3 * 100.0
        );
    }
    Ok(OK)
}

/// `dsim ring hotspot`.
#[derive(Args, Debug)]
pub(crate) struct HotspotArgs {
    #[command(flatten)]
    gen_args: GenArgs,
    /// Cluster sizes to try. Example: --nodes-list 2,4,8,16,32.
    #[arg(long, value_delimiter = ',', default_value = "2,4,8,16,32")]
    nodes_list: Vec<usize>,
    /// Hash of the hash partitioning: md5 or xxh3. Example: --hash xxh3.
    #[arg(long, default_value = "md5", value_parser = parse_hash)]
    hash: HashFn,
    /// Write an SVG plot of imbalance vs nodes. Example: --plot hotspot.svg.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    /// Print JSON instead of a table. Example: --json.
    #[arg(long)]
    json: bool,
}

/// `dsim ring hotspot`.
pub(crate) fn hotspot(args: &HotspotArgs, lang: Lang) -> Result<u8, CliError> {
    let es = lang == Lang::Es;
    let g = &args.gen_args;
    g.check(true)?;
    if args.nodes_list.is_empty() || args.nodes_list.contains(&0) {
        return Err(CliError::bad_input(
            "every --nodes-list entry must be at least 1, e.g. --nodes-list 2,4,8,16,32",
        ));
    }
    limits::list("--nodes-list", &args.nodes_list, "2,4,8,16,32")?;
    limits::at_most(
        args.nodes_list.iter().copied().max().unwrap_or(1) as u128,
        limits::NODES,
        "the largest --nodes-list entry",
        "try smaller clusters, e.g. --nodes-list 2,4,8,16,32",
    )?;
    let keys = KeySet::from_ordinals(&g.hotspot(), g.space, args.hash);
    let rows: Vec<(usize, f64, f64)> = args
        .nodes_list
        .iter()
        .map(|&n| {
            let ids: Vec<NodeId> = (0..n as NodeId).collect();
            let range = RangePartition::new(0, g.space - 1, ids.clone());
            let hash = ModN::new(ids);
            let r = measure::balance(&measure::counts(&range, &keys, n)).imbalance;
            let h = measure::balance(&measure::counts(&hash, &keys, n)).imbalance;
            (n, r, h)
        })
        .collect();
    write_plot(
        args.plot.as_ref(),
        &Chart {
            title: format!(
                "Hot spot: {} % of keys in the top {} % of the space",
                g.hot, g.top
            ),
            x_label: "nodes".into(),
            y_label: "imbalance (max / mean)".into(),
            log_x: true,
            log_y: false,
            series: vec![
                Series::of("range", &rows, |r| (r.0 as f64, r.1), false),
                Series::of("hash", &rows, |r| (r.0 as f64, r.2), false),
            ],
        },
    )?;
    if args.json {
        let out: Vec<_> = rows
            .iter()
            .map(|r| json!({"nodes": r.0, "range_imbalance": r.1, "hash_imbalance": r.2}))
            .collect();
        return print_json(&json!({"keys": g.count, "rows": out}));
    }
    let (count, hot, top, space) = (g.count, g.hot, g.top, g.space);
    if es {
        out!(
            "{count} claves, el {hot} % en el {top} % superior de 0..{space}: nodo más cargado / media"
        );
        out!("{:>5}  {:>6}  {:>6}", "nodos", "rangos", "hash");
    } else {
        out!("{count} keys, {hot} % in the top {top} % of 0..{space}: busiest node / mean");
        out!("{:>5}  {:>6}  {:>6}", "nodes", "range", "hash");
    }
    for r in &rows {
        out!("{:>5}  {:>6.2}  {:>6.2}", r.0, r.1, r.2);
    }
    Ok(OK)
}

/// `dsim ring durability`.
#[derive(Args, Debug)]
pub(crate) struct DurabilityArgs {
    /// Probability that a node fails, independently. Example: --p 0.3.
    #[arg(long, default_value_t = 0.3)]
    p: f64,
    /// Replication factors to try. Example: --rf 1,2,3,4,5.
    #[arg(long, value_delimiter = ',', default_value = "1,2,3,4,5")]
    rf: Vec<u64>,
    /// Nodes in the cluster. Example: --nodes 100.
    #[arg(long, default_value_t = 100)]
    nodes: u64,
    /// Partitions placed per trial, each on RF distinct random nodes. Example: --partitions 1000.
    #[arg(long, default_value_t = 1000)]
    partitions: u64,
    /// Independent failure trials. Example: --trials 200.
    #[arg(long, default_value_t = 200)]
    trials: u64,
    /// Seed of the draws. Example: --seed 7.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write an SVG plot of loss probability vs RF (log axis). Example: --plot durability.svg.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    /// Print JSON instead of a table. Example: --json.
    #[arg(long)]
    json: bool,
}

/// `dsim ring durability`.
pub(crate) fn durability(args: &DurabilityArgs, lang: Lang) -> Result<u8, CliError> {
    let es = lang == Lang::Es;
    if !(0.0..=1.0).contains(&args.p)
        || args.rf.is_empty()
        || args.rf.iter().any(|&r| r == 0 || r > args.nodes)
        || args.partitions == 0
        || args.trials == 0
    {
        return Err(CliError::bad_input(
            "need 0 <= --p <= 1, every --rf in 1..=--nodes, --partitions and --trials >= 1, e.g. --p 0.3 --rf 1,2,3 --nodes 100",
        ));
    }
    limits::list("--rf", &args.rf, "1,2,3,4,5")?;
    limits::at_most(
        u128::from(args.nodes),
        limits::DURABILITY_NODES,
        "--nodes",
        "simulate a smaller cluster, e.g. --nodes 100",
    )?;
    let rf_sum: u128 = args.rf.iter().map(|&r| u128::from(r)).sum();
    limits::at_most(
        u128::from(args.trials) * (u128::from(args.nodes) + u128::from(args.partitions) * rf_sum),
        limits::DURABILITY_DRAWS,
        "the random draws, --trials x (--nodes + --partitions x the sum of --rf),",
        "use fewer trials or partitions, e.g. --trials 200 --partitions 1000",
    )?;
    let ppm = (args.p * 1e6).round() as u64;
    let rows: Vec<(u64, f64, f64)> = args
        .rf
        .iter()
        .map(|&rf| {
            let loss =
                measure::durability(args.nodes, args.partitions, rf, ppm, args.trials, args.seed);
            (rf, loss, pow(args.p, rf))
        })
        .collect();
    write_plot(
        args.plot.as_ref(),
        &Chart {
            title: format!(
                "Probability of losing a partition (node failure p = {})",
                args.p
            ),
            x_label: "replication factor".into(),
            y_label: "loss probability (log)".into(),
            log_x: false,
            log_y: true,
            series: vec![
                Series::of("measured", &rows, |r| (r.0 as f64, r.1), false),
                Series::of("p^RF", &rows, |r| (r.0 as f64, r.2), true),
            ],
        },
    )?;
    if args.json {
        let out: Vec<_> = rows
            .iter()
            .map(|r| json!({"rf": r.0, "loss": r.1, "p_pow_rf": r.2, "storage_cost": r.0}))
            .collect();
        return print_json(&json!({"p": args.p, "nodes": args.nodes, "rows": out}));
    }
    let (nodes, p, partitions, trials) = (args.nodes, args.p, args.partitions, args.trials);
    if es {
        out!(
            "{nodes} nodos que fallan de forma independiente con p = {p}; {partitions} particiones x {trials} pruebas"
        );
        out!(
            "{:>3}  {:>9}  {:>9}  {:>5}",
            "RF",
            "pérdida",
            "p^RF",
            "coste"
        );
    } else {
        out!(
            "{nodes} nodes failing independently with p = {p}; {partitions} partitions x {trials} trials"
        );
        out!("{:>3}  {:>9}  {:>9}  {:>5}", "RF", "loss", "p^RF", "cost");
    }
    for r in &rows {
        out!(
            "{:>3}  {:>7.3} %  {:>7.3} %  {:>4}x",
            r.0,
            r.1 * 100.0,
            r.2 * 100.0,
            r.0
        );
    }
    Ok(OK)
}

/// `dsim ring mapreduce`.
#[derive(Args, Debug)]
pub(crate) struct MapreduceArgs {
    /// Words in the text. Example: --words 200000.
    #[arg(long, default_value_t = 200_000)]
    words: usize,
    /// Distinct words (Zipf ranks). Example: --vocabulary 2000.
    #[arg(long, default_value_t = 2000)]
    vocabulary: usize,
    /// Zipf exponent of word frequencies: a multiple of 0.5 from 0.5 to 4. Example: --zipf-s 1.0.
    #[arg(long, default_value_t = 1.0)]
    zipf_s: f64,
    /// Worker counts to try. Example: --workers 1,2,4,8,16,32,64.
    #[arg(long, value_delimiter = ',', default_value = "1,2,4,8,16,32,64,128")]
    workers: Vec<usize>,
    /// Seed of the text. Example: --seed 7.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Hash of the shuffle (reducer = hash(word) % W): md5 or xxh3. Example: --hash xxh3.
    #[arg(long, default_value = "md5", value_parser = parse_hash)]
    hash: HashFn,
    /// Write an SVG plot of makespan vs workers (log-log). Example: --plot mapreduce.svg.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    /// Print JSON instead of a table. Example: --json.
    #[arg(long)]
    json: bool,
}

/// `dsim ring mapreduce`.
pub(crate) fn mapreduce(args: &MapreduceArgs, lang: Lang) -> Result<u8, CliError> {
    let es = lang == Lang::Es;
    if args.words == 0
        || args.vocabulary == 0
        || args.workers.is_empty()
        || args.workers.contains(&0)
    {
        return Err(CliError::bad_input(
            "need --words, --vocabulary and every --workers entry >= 1, e.g. --words 200000 --workers 1,2,4",
        ));
    }
    limits::at_most(
        args.words as u128,
        limits::KEYS,
        "--words",
        "use a shorter text, e.g. --words 200000",
    )?;
    limits::at_most(
        args.vocabulary as u128,
        limits::VOCABULARY,
        "--vocabulary",
        "use fewer distinct words, e.g. --vocabulary 2000",
    )?;
    limits::list("--workers", &args.workers, "1,2,4,8,16,32,64")?;
    limits::at_most(
        args.workers.iter().copied().max().unwrap_or(1) as u128,
        limits::WORKERS,
        "the largest --workers entry",
        "try fewer workers, e.g. --workers 1,2,4,8,16,32,64",
    )?;
    let zipf = Zipf::new(args.vocabulary, args.zipf_s)
        .map_err(|e| CliError::bad_input(format!("--zipf-s: {e}")))?;
    let mut counts = vec![0u64; args.vocabulary];
    for r in zipf.draw(args.words, args.seed) {
        counts[r] += 1;
    }
    let name = |w: usize| format!("palabra{w:04}");
    let total = args.words as f64;
    let floor = counts.iter().copied().max().unwrap_or(0) as f64 / total;
    let rows: Vec<(usize, f64, f64)> = args
        .workers
        .iter()
        .map(|&w| {
            let loads = measure::reducer_loads(&counts, w, args.hash, name);
            (w, measure::makespan_fraction(&loads), 1.0 / w as f64)
        })
        .collect();
    write_plot(
        args.plot.as_ref(),
        &Chart {
            title: format!("Map-Reduce makespan, {} Zipf words", args.words),
            x_label: "workers (reducers)".into(),
            y_label: "makespan (share of total work)".into(),
            log_x: true,
            log_y: true,
            series: vec![
                Series::of("hash shuffle", &rows, |r| (r.0 as f64, r.1), false),
                Series::of("ideal 1/W", &rows, |r| (r.0 as f64, r.2), true),
                Series::of("hottest word", &rows, |r| (r.0 as f64, floor), true),
            ],
        },
    )?;
    if args.json {
        let out: Vec<_> = rows
            .iter()
            .map(|r| json!({"workers": r.0, "makespan": r.1, "ideal": r.2}))
            .collect();
        return print_json(&json!({"words": args.words, "top_word_share": floor, "rows": out}));
    }
    let (words, s) = (args.words, args.zipf_s);
    if es {
        out!("palabras más frecuentes de {words} (Zipf s = {s}):");
    } else {
        out!("most frequent words of {words} (Zipf s = {s}):");
    }
    let mut top: Vec<(usize, u64)> = counts.iter().copied().enumerate().collect();
    top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    for (w, c) in top.iter().take(5) {
        out!("  {}  {c:>6}", name(*w));
    }
    let hottest = floor * 100.0;
    if es {
        out!(
            "la palabra más caliente es el {hottest:.1} % de todas: ningún reparto baja el makespan de eso"
        );
    } else {
        out!(
            "the hottest word is {hottest:.1} % of all words: no shuffle gets the makespan below that"
        );
    }
    let workers = if es { "trabajadores" } else { "workers" };
    let w = workers.len();
    out!("{workers:>w$}  {:>8}  {:>8}", "makespan", "ideal");
    for r in &rows {
        out!(
            "{:>w$}  {:>6.2} %  {:>6.2} %",
            r.0,
            r.1 * 100.0,
            r.2 * 100.0
        );
    }
    Ok(OK)
}

/// `p^n` by repeated multiplication: each step is correctly rounded, so the printed figure is the
/// same on every machine (`powi`'s rounding is left to the platform).
fn pow(p: f64, n: u64) -> f64 {
    (0..n).fold(1.0, |acc, _| acc * p)
}
