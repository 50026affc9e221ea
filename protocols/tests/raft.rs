//! Raft leader election driven through the kernel: the course's RF-1 and RF-2, the bug knobs
//! against their control runs, and determinism.

use protocols::raft::{self, Raft, RaftConfig, RaftExpect, RaftNode, RaftNote, Role};
use sim_core::{
    Action, Duration, Event, FaultRule, Instant, Lang, Latency, Limits, LinkConfig, NodeId,
    Outcome, Protocol, Ratio, Record, RuleAction, Sim, SimConfig, TraceMode,
};

const N1: NodeId = NodeId(0);
const N2: NodeId = NodeId(1);
const N3: NodeId = NodeId(2);

fn ms(n: u64) -> Instant {
    Instant::from_millis(n)
}

/// The lesson's network: latency uniform in [2, 10] ms, nothing lost.
fn lesson_link() -> LinkConfig {
    LinkConfig {
        latency: Latency::Uniform {
            min: Duration::from_millis(2),
            max: Duration::from_millis(10),
        },
        loss: Ratio::ZERO,
        duplicate: Ratio::ZERO,
    }
}

/// A traced simulation of `config` that keeps running after a violation (so tests see them all).
fn traced(config: &RaftConfig, seed: u64, end_ms: u64) -> Sim<RaftNode> {
    let mut s = raft::sim(
        config,
        SimConfig {
            seed,
            link: lesson_link(),
            limits: Limits {
                max_time: ms(end_ms),
                ..Limits::default()
            },
            stop_on_violation: false,
        },
    );
    s.set_trace(TraceMode::Memory(Vec::new()));
    s
}

fn notes(records: &[Record<RaftNode>]) -> Vec<(u64, String, RaftNote)> {
    records
        .iter()
        .filter_map(|r| match &r.event {
            Event::Note { node, note } => {
                Some((r.time.as_millis(), node.to_string(), note.clone()))
            }
            _ => None,
        })
        .collect()
}

fn story(records: &[Record<RaftNode>], lang: Lang) -> String {
    records
        .iter()
        .filter_map(|r| {
            Raft::narrate(r, lang).map(|line| format!("{:>8} {line}\n", r.time.to_string()))
        })
        .collect()
}

fn violated(sim: &Sim<RaftNode>) -> Vec<String> {
    sim.violations()
        .iter()
        .map(|v| v.invariant.clone())
        .collect()
}

/// RF-1 as the lesson stages it: pause nodo-1 at 1 s, resume it at 2 s, run to 3 s.
fn rf1(seed: u64) -> (Sim<RaftNode>, Vec<Record<RaftNode>>) {
    let mut config = RaftConfig::lesson();
    config.elect_within_ms = Some(1000);
    let mut s = traced(&config, seed, 3000);
    s.schedule(ms(1000), Action::Pause(N1));
    s.schedule(ms(2000), Action::Resume(N1));
    s.run();
    let records = s.take_records();
    (s, records)
}

#[test]
fn explore_rf1() {
    let (s, records) = rf1(0);
    println!("{}", story(&records, Lang::Es));
    println!("{:?}", violated(&s));
}
