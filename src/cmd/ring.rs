//! `dsim ring`: partitioning measurements (text 000 sections 5-7, text 004 chapter 9).
//!
//! Glue only: flags, key files, tables, JSON and SVG. The placement schemes and measurements
//! live in `protocols::partition`. Teachers script this command line, so flags and JSON fields are a
//! contract: `place` prints `counts`, `deviation_pct`, `imbalance`; `move` prints `moved`,
//! `moved_fraction`, `before`, `after` and, with `--replicas`, `replica_sets_changed`.

mod experiments;
mod limits;
mod scatter;

use crate::exit::CliError;
use crate::output::out;
use clap::{Args, Subcommand};
use protocols::partition::hash::HashFn;
use protocols::partition::keys::{KeySet, Pattern, Zipf, hotspot_ordinals, parse_range};
use protocols::partition::measure::{self, Movement};
use protocols::partition::placement::{
    Member, NodeId, Placement, Placer, Ring, SchemeKind, SchemeParams,
};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::path::PathBuf;
use traces::Lang;

/// Arguments of `dsim ring`.
#[derive(Args, Debug)]
pub struct RingArgs {
    #[command(subcommand)]
    command: RingCommand,
    /// Language of the tables: `en` (default) or `es` (the lesson's), for every experiment.
    /// Example: dsim ring lesson --lang es.
    #[arg(long, global = true, default_value = "en", value_parser = crate::flags::parse_lang)]
    lang: Lang,
}

#[derive(Subcommand, Debug)]
enum RingCommand {
    /// Keys per node, relative deviation and imbalance of one placement.
    ///
    /// Example: dsim ring place --scheme ring --hash md5 --nodes inv-bcn,inv-vlc,inv-gir,inv-lle
    /// --vnodes 150 --keys 'P-2026-{:06}' --range 1..=100000
    Place(PlaceArgs),
    /// Keys (and replica sets) that change node when nodes join or leave.
    ///
    /// Example: dsim ring move --scheme ring --nodes inv-bcn,inv-vlc,inv-gir,inv-lle --add inv-tar
    Move(MoveArgs),
    /// The lesson's RING-1..3 tables (text 000), computed in one go.
    ///
    /// Example: dsim ring lesson --json
    Lesson(LessonArgs),
    /// The blackboard ring of listing 9.2: explicit positions on a small space.
    ///
    /// Example: dsim ring toy --space 100 --positions n10=10,n50=50,n90=90 --keys 40,55,95 --join n60=60
    Toy(experiments::ToyArgs),
    /// Imbalance and deviation as vnodes per node grow (text 004, figure 9.6).
    ///
    /// Example: dsim ring sweep-vnodes --nodes 10 --vnodes-list 1,10,50,200,1000 --plot balance.svg
    ///
    /// At 1, 50 and 200 vnodes the text quotes imbalances (largest share over the mean) of
    /// 2.9, 1.16 and 1.12 where this measures 2.28, 1.23 and 1.09 (10 nodes, 100,000 keys,
    /// md5): the text does not show its program, and its
    /// hash, keys and vnode positions are not ours, so one ring's luck differs from another's.
    /// The trend is what carries over: the imbalance falls towards 1 as vnodes grow.
    SweepVnodes(experiments::SweepVnodesArgs),
    /// Share of keys moved by one join, N -> N+1, for mod and ring (text 004, figure 9.3).
    ///
    /// Example: dsim ring sweep-nodes --from 2 --to 32 --plot movement.svg
    ///
    /// The text quotes 14 % of the keys moving on the ring from 8 to 9 nodes where this
    /// measures about 10.4 %, against the ideal 1/9 = 11.1 %: the newcomer's share depends on
    /// where its points land, and the text's ring (its program is not shown) is not this one.
    /// Modulo placement moves about N/(N+1) of the keys in both.
    SweepNodes(experiments::SweepNodesArgs),
    /// Range vs hash partitioning under a hot spot (text 004, figure 9.2).
    ///
    /// Example: dsim ring hotspot --count 100000 --hot 80 --top 10 --plot hotspot.svg
    Hotspot(experiments::HotspotArgs),
    /// Probability of losing a partition vs replication factor (text 004, figure 9.8).
    ///
    /// Example: dsim ring durability --p 0.3 --rf 1,2,3,4,5 --plot durability.svg
    ///
    /// Where the text quotes 32 % of the partitions lost at RF 1 this counts about 29.2 %,
    /// beside the exact p = 30 %: each count is one draw of the failures, and the text's draw
    /// (its program is not shown) is not ours; the exact column is the one to compare.
    Durability(experiments::DurabilityArgs),
    /// Map-Reduce makespan vs workers with Zipf-skewed words (text 004, figure 9.10).
    ///
    /// Example: dsim ring mapreduce --words 200000 --workers 1,2,4,8,16,32,64 --plot mr.svg
    Mapreduce(experiments::MapreduceArgs),
    /// A query that asks every partition waits for the slowest (text 000, section 4).
    ///
    /// Example: dsim ring scatter --partitions 12 --slow 1/100 --queries 20000 --plot scatter.svg
    ///
    /// With 12 partitions, each slower than 500 ms one time in 100, about 1 - 0.99^12 = 11 %
    /// of the queries are slower than 500 ms: the tail of one partition becomes a common case
    /// of the query, and the share grows with every partition asked.
    Scatter(scatter::ScatterArgs),
}

/// The seeded key generators' flags, shared by `--generate` and `dsim ring hotspot`.
#[derive(Args, Debug, Clone)]
pub(crate) struct GenArgs {
    /// How many keys to generate. Example: --count 100000.
    #[arg(long, default_value_t = 100_000)]
    count: usize,
    /// Size of the generated key space: keys are 0..SPACE. Example: --space 1000000.
    #[arg(long, default_value_t = 1_000_000)]
    space: u64,
    /// Hot spot: percentage of keys in the hot top of the space. Example: --hot 80.
    #[arg(long, default_value_t = 80)]
    hot: u64,
    /// Hot spot: the hot top of the space, in percent. Example: --top 10.
    #[arg(long, default_value_t = 10)]
    top: u64,
    /// Seed of the generated keys (same seed, same keys). Example: --seed 7.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

impl GenArgs {
    /// Checks `--count` and `--space` (and, for a hot spot, `--hot` and `--top`).
    fn check(&self, hotspot: bool) -> Result<(), CliError> {
        if self.count == 0 || self.space < 2 {
            return Err(CliError::bad_input(
                "--count must be at least 1 and --space at least 2, e.g. --count 100000 --space 1000000",
            ));
        }
        limits::at_most(
            self.count as u128,
            limits::KEYS,
            "--count",
            "generate fewer keys, e.g. --count 1000000",
        )?;
        if hotspot && (self.hot > 100 || self.top == 0 || self.top >= 100) {
            return Err(CliError::bad_input(
                "--hot is a percentage (0..=100) and --top a percentage in 1..=99, e.g. --hot 80 --top 10",
            ));
        }
        Ok(())
    }

    /// The hot-spot ordinals (after [`GenArgs::check`]).
    fn hotspot(&self) -> Vec<u64> {
        hotspot_ordinals(self.count, self.space, self.hot, self.top, self.seed)
    }
}

/// Which keys to place.
#[derive(Args, Debug, Clone)]
pub(crate) struct KeyArgs {
    /// Key pattern with one number placeholder, expanded over --range.
    /// Example: --keys 'P-2026-{:06}' (the lesson's order ids).
    #[arg(long, default_value = "P-2026-{:06}")]
    keys: String,
    /// Numbers the pattern is expanded over: A..=B (B included) or A..B.
    /// Example: --range 1..=100000.
    #[arg(long, default_value = "1..=100000")]
    range: String,
    /// Read keys from a file instead, one per line (blank lines skipped).
    /// Example: --keys-file keys.txt.
    #[arg(long, value_name = "FILE", conflicts_with = "generate")]
    keys_file: Option<PathBuf>,
    /// Generate skewed keys instead: `hotspot` (--hot % of keys in the top --top % of
    /// --space) or `zipf` (ranks over --space with exponent --zipf-s).
    /// Example: --generate hotspot --count 100000.
    #[arg(long, value_parser = ["hotspot", "zipf"])]
    generate: Option<String>,
    #[command(flatten)]
    gen_args: GenArgs,
    /// Zipf exponent of generated ranks: a multiple of 0.5 from 0.5 to 4. Example: --zipf-s 1.0.
    #[arg(long, default_value_t = 1.0)]
    zipf_s: f64,
}

impl KeyArgs {
    pub(crate) fn load(&self, hash_fn: HashFn) -> Result<KeySet, CliError> {
        let set = if let Some(path) = &self.keys_file {
            let text = std::fs::read_to_string(path).map_err(|e| CliError::io(path, e))?;
            limits::at_most(
                text.lines().filter(|l| !l.trim().is_empty()).count() as u128,
                limits::KEYS,
                &format!("the number of keys in {}", path.display()),
                "place a sample of the file, e.g. its first 1 000 000 lines",
            )?;
            KeySet::from_lines(&text, hash_fn)
        } else if let Some(kind) = &self.generate {
            let g = &self.gen_args;
            g.check(kind == "hotspot")?;
            let ords: Vec<u64> = if kind == "zipf" {
                let vocabulary = usize::try_from(g.space.min(10_000_000)).unwrap_or(10_000_000);
                Zipf::new(vocabulary, self.zipf_s)
                    .map_err(|e| CliError::bad_input(format!("--zipf-s: {e}")))?
                    .draw(g.count, g.seed)
                    .into_iter()
                    .map(|r| r as u64)
                    .collect()
            } else {
                g.hotspot()
            };
            KeySet::from_ordinals(&ords, g.space, hash_fn)
        } else {
            let pattern = Pattern::parse(&self.keys).map_err(CliError::bad_input)?;
            let range = parse_range(&self.range).map_err(CliError::bad_input)?;
            limits::at_most(
                u128::from(range.end() - range.start()) + 1,
                limits::KEYS,
                &format!("the number of keys in --range {}", self.range),
                "use a smaller range, e.g. --range 1..=1000000",
            )?;
            KeySet::from_pattern(&pattern, range, hash_fn)
        };
        if set.is_empty() {
            return Err(CliError::bad_input(
                "no keys to place: give a non-empty --range, a --keys-file with lines, or --count > 0",
            ));
        }
        Ok(set)
    }
}

fn parse_scheme(s: &str) -> Result<SchemeKind, String> {
    s.parse()
}

fn parse_hash(s: &str) -> Result<HashFn, String> {
    s.parse()
}

/// The cluster: scheme, hash, nodes and their parameters.
#[derive(Args, Debug, Clone)]
pub(crate) struct ClusterArgs {
    /// Placement scheme: ring (consistent hashing with vnodes), mod (hash % N), rendezvous
    /// (highest random weight), slots (fixed slot table), range (equal slices of the key order).
    /// Example: --scheme ring.
    #[arg(long, default_value = "ring", value_parser = parse_scheme)]
    scheme: SchemeKind,
    /// Hash of keys, vnode labels and rendezvous pairs: md5 (the course's: first 8 bytes of
    /// MD5, big-endian) or xxh3 (fast). Example: --hash md5.
    #[arg(long, default_value = "md5", value_parser = parse_hash)]
    hash: HashFn,
    /// Node names, comma-separated, in index order (mod, slots and range use the index).
    /// Example: --nodes inv-bcn,inv-vlc,inv-gir,inv-lle.
    #[arg(long, value_delimiter = ',', required = true)]
    nodes: Vec<String>,
    /// Vnodes per node of weight 1 (ring only). Example: --vnodes 150.
    #[arg(long, default_value_t = 150)]
    vnodes: u32,
    /// Node weights (ring only): a node of weight w gets max(1, floor(vnodes * w)) vnodes.
    /// Example: --weights inv-bcn=2,inv-vlc=0.5.
    #[arg(long, value_delimiter = ',')]
    weights: Vec<String>,
    /// Slots of the slot table (slots only; Redis Cluster has 16384). Example: --slots 16384.
    #[arg(long, default_value_t = 16_384)]
    slots: u32,
}

/// Node names and weights checked against each other: the name table the placement ids index.
pub(crate) struct Cluster {
    names: Vec<String>,
    weights: BTreeMap<String, f64>,
}

impl Cluster {
    /// Validates `nodes` (+ `extra` names that may join) and `--weights`.
    fn new(args: &ClusterArgs, extra: &[String]) -> Result<Cluster, CliError> {
        limits::at_most(
            (args.nodes.len() + extra.len()) as u128,
            limits::NODES,
            "the number of nodes (--nodes and --add)",
            "measure a smaller cluster, e.g. 1000 nodes",
        )?;
        limits::at_most(
            args.weights.len() as u128,
            limits::NODES,
            "the number of --weights entries",
            "give each node at most one weight",
        )?;
        let mut names: Vec<String> = Vec::new();
        for n in args.nodes.iter().chain(extra) {
            let n = n.trim();
            if n.is_empty() {
                return Err(CliError::bad_input(
                    "an empty node name: list names separated by single commas, e.g. --nodes a,b,c",
                ));
            }
            if names.iter().any(|m| m == n) {
                return Err(CliError::bad_input(format!(
                    "node {n:?} is listed twice (in --nodes or --add): give each node once"
                )));
            }
            names.push(n.to_string());
        }
        if args.vnodes == 0 {
            return Err(CliError::bad_input(
                "--vnodes must be at least 1, e.g. --vnodes 150",
            ));
        }
        if args.slots == 0 {
            return Err(CliError::bad_input(
                "--slots must be at least 1, e.g. --slots 16384",
            ));
        }
        if args.scheme == SchemeKind::Slots {
            limits::at_most(
                u128::from(args.slots),
                limits::SLOTS,
                "--slots",
                "use fewer slots, e.g. --slots 16384 (Redis Cluster's)",
            )?;
        }
        let mut weights = BTreeMap::new();
        for w in &args.weights {
            let (name, value) = w.split_once('=').ok_or_else(|| {
                CliError::bad_input(format!(
                    "--weights entry {w:?} is not NAME=WEIGHT, e.g. --weights inv-bcn=2,inv-vlc=0.5"
                ))
            })?;
            let name = name.trim();
            if !names.iter().any(|n| n == name) {
                return Err(CliError::bad_input(format!(
                    "--weights names {name:?}, which is not in --nodes {} (or --add): add it there or drop it from --weights",
                    args.nodes.join(",")
                )));
            }
            let value: f64 = value.trim().parse().ok().filter(|v: &f64| v.is_finite() && *v > 0.0).ok_or_else(|| {
                CliError::bad_input(format!(
                    "--weights {name}={value}: a weight is a positive number, e.g. {name}=2 or {name}=0.5"
                ))
            })?;
            weights.insert(name.to_string(), value);
        }
        if !weights.is_empty() && args.scheme != SchemeKind::Ring {
            return Err(CliError::bad_input(format!(
                "--weights only apply to --scheme ring (vnodes per node); drop --weights for --scheme {}",
                args.scheme
            )));
        }
        let cluster = Cluster { names, weights };
        if args.scheme == SchemeKind::Ring {
            let points: u128 = cluster
                .names
                .iter()
                .map(|n| u128::from(Ring::vnodes_for(args.vnodes, cluster.member(n).weight)))
                .sum();
            limits::at_most(
                points,
                limits::RING_POINTS,
                &format!(
                    "the number of ring points, --vnodes {} x {} nodes (weights included),",
                    args.vnodes,
                    cluster.names.len()
                ),
                "use fewer vnodes or smaller weights, e.g. --vnodes 150",
            )?;
        }
        Ok(cluster)
    }

    /// Refuses a rendezvous measurement that would hash more `(node, key)` pairs than
    /// [`limits::RENDEZVOUS_PAIRS`] (every node weighs every key).
    fn check_work(&self, args: &ClusterArgs, keys: usize) -> Result<(), CliError> {
        if args.scheme != SchemeKind::Rendezvous {
            return Ok(());
        }
        limits::at_most(
            keys as u128 * self.names.len() as u128,
            limits::RENDEZVOUS_PAIRS,
            &format!(
                "rendezvous over {} keys and {} nodes: the number of (node, key) weights",
                keys,
                self.names.len()
            ),
            "use fewer keys or nodes, e.g. --range 1..=100000",
        )
    }

    /// Width of the node column of a table.
    fn name_width(&self) -> usize {
        self.names.iter().map(String::len).max().unwrap_or(4).max(4)
    }

    fn member(&self, name: &str) -> Member {
        let id = self.id(name);
        Member {
            id,
            name: name.to_string(),
            weight: self.weights.get(name).copied().unwrap_or(1.0),
        }
    }

    fn id(&self, name: &str) -> NodeId {
        self.names
            .iter()
            .position(|n| n == name)
            .expect("a known node") as NodeId
    }

    fn name(&self, id: NodeId) -> &str {
        &self.names[id as usize]
    }

    fn counts_json(&self, ids: &[NodeId], counts: &[u64]) -> Value {
        let map: BTreeMap<&str, u64> = ids
            .iter()
            .map(|&id| (self.name(id), counts[id as usize]))
            .collect();
        json!(map)
    }
}

fn params(args: &ClusterArgs, keys: &KeySet) -> SchemeParams {
    let space = keys.space();
    SchemeParams {
        hash_fn: args.hash,
        vnodes: args.vnodes,
        slots: args.slots,
        space: (*space.start(), *space.end()),
    }
}

#[derive(Args, Debug)]
struct PlaceArgs {
    #[command(flatten)]
    cluster: ClusterArgs,
    #[command(flatten)]
    keys: KeyArgs,
    /// Print JSON (floats unrounded) instead of a table. Example: --json.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct MoveArgs {
    #[command(flatten)]
    cluster: ClusterArgs,
    #[command(flatten)]
    keys: KeyArgs,
    /// Nodes that join, comma-separated (after --nodes in index order). Example: --add inv-tar.
    #[arg(long, value_delimiter = ',', required_unless_present = "remove")]
    add: Vec<String>,
    /// Nodes that leave, comma-separated (must be in --nodes). Example: --remove inv-vlc.
    #[arg(long, value_delimiter = ',')]
    remove: Vec<String>,
    /// Also compare replica sets of this size (as sets). Example: --replicas 3.
    #[arg(long)]
    replicas: Option<usize>,
    /// Print JSON (floats unrounded) instead of a table. Example: --json.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct LessonArgs {
    /// Print JSON instead of the lesson's tables. Example: --json.
    #[arg(long)]
    json: bool,
}

/// Runs `dsim ring`.
pub fn run(args: RingArgs) -> Result<u8, CliError> {
    let lang = args.lang;
    match args.command {
        RingCommand::Place(a) => place(&a, lang),
        RingCommand::Move(a) => movement(&a, lang),
        RingCommand::Lesson(a) => experiments::lesson(a.json, lang),
        RingCommand::Toy(a) => experiments::toy(&a, lang),
        RingCommand::SweepVnodes(a) => experiments::sweep_vnodes(&a, lang),
        RingCommand::SweepNodes(a) => experiments::sweep_nodes(&a, lang),
        RingCommand::Hotspot(a) => experiments::hotspot(&a, lang),
        RingCommand::Durability(a) => experiments::durability(&a, lang),
        RingCommand::Mapreduce(a) => experiments::mapreduce(&a, lang),
        RingCommand::Scatter(a) => scatter::scatter(&a, lang),
    }
}

fn print_json(value: &Value) -> Result<u8, CliError> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| CliError::bug(format!("JSON output: {e}")))?;
    out!("{text}");
    Ok(crate::exit::OK)
}

fn scheme_label(args: &ClusterArgs, lang: Lang) -> String {
    match (args.scheme, lang) {
        (SchemeKind::Ring, Lang::En) => {
            format!("ring ({} vnodes per node of weight 1)", args.vnodes)
        }
        (SchemeKind::Ring, Lang::Es) => {
            format!("ring ({} vnodes por nodo de peso 1)", args.vnodes)
        }
        (SchemeKind::Slots, _) => format!("slots ({} slots)", args.slots),
        (other, _) => other.to_string(),
    }
}

fn place(args: &PlaceArgs, lang: Lang) -> Result<u8, CliError> {
    let cluster = Cluster::new(&args.cluster, &[])?;
    let keys = args.keys.load(args.cluster.hash)?;
    cluster.check_work(&args.cluster, keys.len())?;
    let members: Vec<Member> = cluster.names.iter().map(|n| cluster.member(n)).collect();
    let placer = Placer::build(args.cluster.scheme, &params(&args.cluster, &keys), &members);
    let counts = match &placer {
        Placer::Ring(ring) => {
            let mut sorted = keys.hashes().to_vec();
            sorted.sort_unstable();
            ring.counts_sorted(&sorted, cluster.names.len())
        }
        _ => measure::counts(&placer, &keys, cluster.names.len()),
    };
    let balance = measure::balance(&counts);
    let ids = placer.nodes();
    if args.json {
        return print_json(&json!({
            "scheme": args.cluster.scheme.name(),
            "hash": args.cluster.hash.name(),
            "keys": keys.len(),
            "counts": cluster.counts_json(&ids, &counts),
            "deviation_pct": balance.deviation_pct,
            "imbalance": balance.imbalance,
        }));
    }
    let (n, scheme, hash) = (
        keys.len(),
        scheme_label(&args.cluster, lang),
        args.cluster.hash,
    );
    if lang == Lang::Es {
        out!("{n} claves, esquema {scheme}, hash {hash}");
    } else {
        out!("{n} keys, scheme {scheme}, hash {hash}");
    }
    let width = cluster.name_width();
    out!(
        "{:<width$}  {:>9}  {:>7}",
        lang.pick("node", "nodo"),
        lang.pick("keys", "claves"),
        lang.pick("share", "parte")
    );
    for &id in &ids {
        let c = counts[id as usize];
        out!(
            "{:<width$}  {:>9}  {:>5.1} %",
            cluster.name(id),
            c,
            c as f64 / keys.len() as f64 * 100.0
        );
    }
    let (dev, imb) = (balance.deviation_pct, balance.imbalance);
    if lang == Lang::Es {
        out!(
            "desviación {dev:.1} % (desviación típica poblacional / media), desequilibrio {imb:.2} (máx / media)"
        );
    } else {
        out!("deviation {dev:.1} % (population std dev / mean), imbalance {imb:.2} (max / mean)");
    }
    Ok(crate::exit::OK)
}

/// The measured result of a membership change.
struct Change {
    movement: Movement,
    before: Vec<u64>,
    after: Vec<u64>,
    before_ids: Vec<NodeId>,
    after_ids: Vec<NodeId>,
}

fn movement(args: &MoveArgs, lang: Lang) -> Result<u8, CliError> {
    let cluster = Cluster::new(&args.cluster, &args.add)?;
    for r in &args.remove {
        if !args.cluster.nodes.iter().any(|n| n == r) {
            return Err(CliError::bad_input(format!(
                "--remove {r:?} is not in --nodes {}: remove a listed node",
                args.cluster.nodes.join(",")
            )));
        }
    }
    if args.remove.len() >= args.cluster.nodes.len() && args.add.is_empty() {
        return Err(CliError::bad_input(
            "--remove would leave no nodes: keep at least one, or --add another",
        ));
    }
    if args.replicas == Some(0) {
        return Err(CliError::bad_input(
            "--replicas must be at least 1, e.g. --replicas 3",
        ));
    }
    if let Some(r) = args.replicas {
        limits::at_most(
            r as u128,
            limits::REPLICAS,
            "--replicas",
            "compare smaller replica sets, e.g. --replicas 3",
        )?;
    }
    let keys = args.keys.load(args.cluster.hash)?;
    cluster.check_work(&args.cluster, keys.len())?;
    let change = measure_change(args, &cluster, &keys);
    let n = keys.len() as f64;
    let moved_fraction = change.movement.moved as f64 / n;
    let (nb, na) = (
        change.before_ids.len() as f64,
        change.after_ids.len() as f64,
    );
    // The minimum share that must move: what the leavers held (every one of their keys must
    // go) plus the newcomers' fair share of the new cluster, by weight (with equal weights,
    // 1/N of it each: RING-1's 20 %).
    let weight = |name: &String| cluster.weights.get(name).copied().unwrap_or(1.0);
    let after_weight: f64 = args
        .cluster
        .nodes
        .iter()
        .filter(|node| !args.remove.contains(node))
        .chain(&args.add)
        .map(weight)
        .sum();
    let joined: f64 =
        args.add.iter().map(weight).sum::<f64>() / after_weight.max(f64::MIN_POSITIVE);
    let left: f64 = args
        .remove
        .iter()
        .map(|r| change.before[cluster.id(r) as usize] as f64)
        .sum::<f64>()
        / n;
    let ideal = joined + left;
    if args.json {
        let mut out = Map::new();
        out.insert("scheme".into(), json!(args.cluster.scheme.name()));
        out.insert("hash".into(), json!(args.cluster.hash.name()));
        out.insert("keys".into(), json!(keys.len()));
        out.insert("moved".into(), json!(change.movement.moved));
        out.insert("moved_fraction".into(), json!(moved_fraction));
        out.insert("ideal_fraction".into(), json!(ideal));
        out.insert(
            "before".into(),
            cluster.counts_json(&change.before_ids, &change.before),
        );
        out.insert(
            "after".into(),
            cluster.counts_json(&change.after_ids, &change.after),
        );
        if let Some(c) = change.movement.replica_sets_changed {
            out.insert("replicas".into(), json!(args.replicas));
            out.insert("replica_sets_changed".into(), json!(c));
            out.insert("replica_sets_changed_fraction".into(), json!(c as f64 / n));
        }
        return print_json(&Value::Object(out));
    }
    let mut what = Vec::new();
    if !args.add.is_empty() {
        what.push(format!(
            "{} {}",
            lang.pick("add", "entra"),
            args.add.join(",")
        ));
    }
    if !args.remove.is_empty() {
        what.push(format!(
            "{} {}",
            lang.pick("remove", "sale"),
            args.remove.join(",")
        ));
    }
    let (what, count, scheme, hash) = (
        what.join(", "),
        keys.len(),
        scheme_label(&args.cluster, lang),
        args.cluster.hash,
    );
    let (moved, pct, min) = (change.movement.moved, moved_fraction * 100.0, ideal * 100.0);
    if lang == Lang::Es {
        out!("{what} ({nb} -> {na} nodos), {count} claves, esquema {scheme}, hash {hash}");
        out!("se mueven {moved} claves: {pct:.1} % (el mínimo es {min:.1} %)");
    } else {
        out!("{what} ({nb} -> {na} nodes), {count} keys, scheme {scheme}, hash {hash}");
        out!("{moved} keys move: {pct:.1} % (the minimum is {min:.1} %)");
    }
    if let (Some(c), Some(r)) = (change.movement.replica_sets_changed, args.replicas) {
        let pct = c as f64 / n * 100.0;
        if lang == Lang::Es {
            out!("{c} claves cambian su conjunto de {r} réplicas: {pct:.1} %");
        } else {
            out!("{c} keys change their {r}-replica set: {pct:.1} %");
        }
    }
    let width = cluster.name_width();
    out!(
        "{:<width$}  {:>9}  {:>9}",
        lang.pick("node", "nodo"),
        lang.pick("before", "antes"),
        lang.pick("after", "después")
    );
    let mut all: Vec<NodeId> = change.before_ids.clone();
    for id in &change.after_ids {
        if !all.contains(id) {
            all.push(*id);
        }
    }
    for id in all {
        let cell = |ids: &[NodeId], counts: &[u64]| {
            if ids.contains(&id) {
                counts[id as usize].to_string()
            } else {
                "-".to_string()
            }
        };
        out!(
            "{:<width$}  {:>9}  {:>9}",
            cluster.name(id),
            cell(&change.before_ids, &change.before),
            cell(&change.after_ids, &change.after)
        );
    }
    Ok(crate::exit::OK)
}

fn measure_change(args: &MoveArgs, cluster: &Cluster, keys: &KeySet) -> Change {
    let members: Vec<Member> = args
        .cluster
        .nodes
        .iter()
        .map(|n| cluster.member(n))
        .collect();
    let before = Placer::build(args.cluster.scheme, &params(&args.cluster, keys), &members);
    let mut after = before.clone();
    for r in &args.remove {
        after.leave(cluster.id(r));
    }
    for a in &args.add {
        after.join(&cluster.member(a));
    }
    let ids = cluster.names.len();
    let (before_ids, after_ids) = (before.nodes(), after.nodes());
    match (&before, &after) {
        (Placer::Ring(b), Placer::Ring(a)) => {
            let mut sorted = keys.hashes().to_vec();
            sorted.sort_unstable();
            let diff = b.diff_sorted(a, &sorted, args.replicas.unwrap_or(1));
            Change {
                movement: Movement {
                    moved: diff.moved,
                    replica_sets_changed: args.replicas.map(|_| diff.replica_sets_changed),
                },
                before: b.counts_sorted(&sorted, ids),
                after: a.counts_sorted(&sorted, ids),
                before_ids,
                after_ids,
            }
        }
        (Placer::Rendezvous(_), Placer::Rendezvous(_)) => {
            let list = |ids: &[NodeId]| -> Vec<(NodeId, &str)> {
                ids.iter().map(|&id| (id, cluster.name(id))).collect()
            };
            let change = measure::rendezvous_movement(
                args.cluster.hash,
                &list(&before_ids),
                &list(&after_ids),
                keys,
                args.replicas,
            );
            let pad = |mut v: Vec<u64>| {
                v.resize(ids, 0);
                v
            };
            Change {
                movement: change.movement,
                before: pad(change.before),
                after: pad(change.after),
                before_ids,
                after_ids,
            }
        }
        _ => Change {
            movement: measure::movement(&before, &after, keys, args.replicas),
            before: measure::counts(&before, keys, ids),
            after: measure::counts(&after, keys, ids),
            before_ids,
            after_ids,
        },
    }
}

/// A ring of `n` nodes named `n0..` with `vnodes` vnodes each (sweeps).
pub(crate) fn numbered(n: usize) -> Vec<Member> {
    (0..n)
        .map(|i| Member::new(i as NodeId, format!("n{i}")))
        .collect()
}

/// The ring of `members` (sweeps).
pub(crate) fn ring_of(hash_fn: HashFn, vnodes: u32, members: &[Member]) -> Ring {
    Ring::build(hash_fn, vnodes, members)
}
