//! Testing your own protocol with dsim, outside the `protocols` crate.
//!
//! A primary-backup register with asynchronous replication: the primary acknowledges a write
//! at once and copies it to the backup afterwards. The primary crashes at 50 ms and the backup
//! is promoted; if a copy was lost on the way, an acknowledged write is gone. The example
//! searches seeds of a lossy network for a run that breaks `no-acked-write-lost`, prints the
//! violation, the story of that run and the line that replays it; with `--sync` (acknowledge
//! only after the backup has the write) the same search finds nothing.
//!
//! ```text
//! cargo run --example primary_backup              # search seeds 0..200
//! cargo run --example primary_backup -- --seed 0  # replay one seed
//! cargo run --example primary_backup -- --sync    # the fix: no seed breaks it
//! ```

use serde::{Deserialize, Serialize};
use sim_core::Broken;
use sim_core::{
    Actor, Context, Event, Harness, Invariant, LinkConfig, NodeId, Outcome, Protocol, Ratio,
    Record, SimConfig,
};
use std::collections::BTreeSet;
use traces::narrate::Detail;
use traces::{Lang, Story};

/// Both nodes; which one a node is follows from its id (0 is the primary).
#[derive(Clone, Debug, Hash)]
struct Node {
    sync: bool,
    values: BTreeSet<u64>,
}

#[derive(Clone, Debug, Hash, Serialize, Deserialize)]
enum Msg {
    Replicate(u64),
    Ack(u64),
}
sim_core::message!(Msg { Replicate, Ack });

#[derive(Clone, Debug, Serialize, Deserialize)]
enum Command {
    Write(u64),
    Promote,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
enum Note {
    Acked(u64),
    Promoted(Vec<u64>),
}

impl Actor for Node {
    type Msg = Msg;
    type Timer = ();
    type Note = Note;
    type Command = Command;

    fn on_message(&mut self, ctx: &mut Context<'_, Self>, from: NodeId, msg: Msg) {
        match msg {
            Msg::Replicate(v) => {
                self.values.insert(v);
                ctx.send(from, Msg::Ack(v));
            }
            Msg::Ack(v) if self.sync => ctx.note(Note::Acked(v)),
            Msg::Ack(_) => {}
        }
    }

    fn on_timer(&mut self, _ctx: &mut Context<'_, Self>, _timer: ()) {}

    fn on_command(&mut self, ctx: &mut Context<'_, Self>, command: Command) {
        match command {
            Command::Write(v) => {
                self.values.insert(v);
                if !self.sync {
                    ctx.note(Note::Acked(v)); // The bug: acknowledged before it is safe.
                }
                ctx.send(NodeId(1), Msg::Replicate(v));
            }
            Command::Promote => ctx.note(Note::Promoted(self.values.iter().copied().collect())),
        }
    }
}

/// Every acknowledged write is held by the node promoted after the crash.
#[derive(Clone, Debug, Default)]
struct NoAckedWriteLost {
    acked: BTreeSet<u64>,
}

impl Invariant<Node> for NoAckedWriteLost {
    fn name(&self) -> &'static str {
        "no-acked-write-lost"
    }
    fn observe(&mut self, record: &Record<Node>) -> Result<(), Broken> {
        let Event::Note { node, note } = &record.event else {
            return Ok(());
        };
        match note {
            Note::Acked(v) => _ = self.acked.insert(*v),
            Note::Promoted(has) => {
                if let Some(lost) = self.acked.iter().find(|v| !has.contains(v)) {
                    return Err(
                        format!("write {lost} was acknowledged; {node} never got it").into(),
                    );
                }
            }
        }
        Ok(())
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct Config {
    sync: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
enum Expect {}

struct PrimaryBackup;

impl Protocol for PrimaryBackup {
    const NAME: &'static str = "primary-backup";
    const ABOUT: &'static str = "a register with one backup, replicated asynchronously";
    type Actor = Node;
    type Config = Config;
    type Expect = Expect;

    fn nodes(_config: &Config) -> Vec<String> {
        vec!["primary".into(), "backup".into()]
    }
    fn build(config: &Config, _id: NodeId) -> Node {
        let (sync, values) = (config.sync, BTreeSet::new());
        Node { sync, values }
    }
    fn invariants(_config: &Config) -> Vec<Box<dyn Invariant<Node>>> {
        vec![Box::new(NoAckedWriteLost::default())]
    }
    fn check(_: &Config, expect: &Expect, _: &Outcome<'_, Node>) -> Result<String, String> {
        match *expect {}
    }
}

impl Story for PrimaryBackup {}

/// Five writes every 10 ms over a lossy network; the primary crashes at 50 ms and the backup is
/// promoted at 60 ms.
fn run(seed: u64, sync: bool) -> sim_core::Finished<PrimaryBackup> {
    let lossy = LinkConfig::uniform_ms(1, 5).with_loss(Ratio::new(1, 10).expect("1/10"));
    let config = SimConfig::seeded(seed).with_link(lossy);
    let mut h = Harness::<PrimaryBackup>::new(Config { sync }, config);
    for v in 1..=5 {
        h.command(10 * (v - 1), "primary", Command::Write(v));
    }
    h.crash(50, "primary")
        .command(60, "backup", Command::Promote);
    h.run()
}

/// Exit 0 when the search shows what the mode is about (asynchronous replication loses a write
/// at some seed, synchronous at none), 1 when it does not: CI runs both.
fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let sync = args.iter().any(|a| a == "--sync");
    let one = args
        .windows(2)
        .find(|w| w[0] == "--seed")
        .map(|w| w[1].parse::<u64>());
    let seeds = match one {
        None => 0..200,
        Some(Ok(seed)) => seed..seed + 1,
        Some(Err(_)) => {
            eprintln!("error: --seed needs a number, e.g. --seed 3");
            std::process::exit(2);
        }
    };
    println!("sync: {sync}, seeds {}..{}", seeds.start, seeds.end);
    for seed in seeds.clone() {
        let finished = run(seed, sync);
        let Some(v) = finished.report.violations.first() else {
            continue;
        };
        println!(
            "seed {seed}: {} violated at {}: {}",
            v.invariant, v.time, v.message
        );
        for r in &finished.records {
            if let Some(line) = traces::story::line::<PrimaryBackup>(r, Lang::En, Detail::Story) {
                println!("{:>8}  {line}", r.time.to_string());
            }
        }
        let flag = if sync { " --sync" } else { "" };
        println!("replay: cargo run --example primary_backup -- --seed {seed}{flag}");
        return exit(one.is_some() || !sync);
    }
    println!("no violation in {} seeds", seeds.end - seeds.start);
    exit(one.is_some() || sync)
}

fn exit(as_expected: bool) -> std::process::ExitCode {
    std::process::ExitCode::from(if as_expected { 0 } else { 1 })
}
