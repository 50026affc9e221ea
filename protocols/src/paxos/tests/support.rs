//! What the Paxos tests add to the shared `sim_core::Harness`: the lesson's network (1 ms,
//! nothing lost), `Propose` by node name, and the learners' choices and story read back.

use crate::paxos::{Paxos, PaxosCommand, PaxosConfig, PaxosExpect, PaxosNote};
use sim_core::{Finished, Harness, Instant, Limits, SimConfig};
use traces::Lang;

/// A finished Paxos run.
pub type Run = Finished<Paxos>;

/// A Paxos run being scripted.
pub type Scenario = Harness<Paxos>;

pub fn ms(n: u64) -> Instant {
    Instant::from_millis(n)
}

/// `config`'s nodes with its invariants; latency fixed at 1 ms; runs to 2 s and stops at the
/// first violation unless `keep_going`.
pub fn scenario(config: &PaxosConfig, seed: u64, keep_going: bool) -> Scenario {
    Harness::new(
        config.clone(),
        SimConfig {
            seed,
            stop_on_violation: !keep_going,
            limits: Limits {
                max_time: ms(2_000),
                ..Limits::default()
            },
            ..SimConfig::default()
        },
    )
}

/// `Propose` by name.
pub trait Propose {
    /// `name` runs `Propose` at `at` ms.
    fn propose(&mut self, at: u64, name: &str) -> &mut Self;
}

impl Propose for Scenario {
    fn propose(&mut self, at: u64, name: &str) -> &mut Self {
        self.command(at, name, PaxosCommand::Propose)
    }
}

/// What Paxos tests read of a finished run.
pub trait PaxosRun {
    /// Every note, with the node that published it.
    fn noted(&self) -> Vec<(String, PaxosNote)>;
    /// Every `Chosen` note: (learner, n, value, accepts).
    fn chosen(&self) -> Vec<(String, u64, String, u32)>;
    /// The story, one line per record Paxos narrates (a decision once, as `dsim run` tells it).
    fn story(&self, lang: Lang) -> Vec<String>;
    /// The records as JSON lines (what a trace file holds).
    fn json(&self) -> String;
}

impl PaxosRun for Run {
    fn noted(&self) -> Vec<(String, PaxosNote)> {
        self.notes()
            .map(|(_, node, note)| (node.to_string(), note.clone()))
            .collect()
    }

    fn chosen(&self) -> Vec<(String, u64, String, u32)> {
        self.noted()
            .into_iter()
            .filter_map(|(node, note)| match note {
                PaxosNote::Chosen {
                    n, value, accepts, ..
                } => Some((node, n, value.to_string(), accepts)),
                _ => None,
            })
            .collect()
    }

    fn story(&self, lang: Lang) -> Vec<String> {
        use traces::Story;
        let retold = Paxos::retold(&self.records);
        self.records
            .iter()
            .enumerate()
            .filter(|(index, _)| !retold.contains(index))
            .filter_map(|(_, r)| Paxos::narrate(r, lang))
            .collect()
    }

    fn json(&self) -> String {
        self.records
            .iter()
            .map(|r| serde_json::to_string(r).unwrap() + "\n")
            .collect()
    }
}

/// The lesson's cast with `edit` applied.
pub fn lesson(edit: impl FnOnce(&mut PaxosConfig)) -> PaxosConfig {
    let mut config = PaxosConfig::lesson();
    edit(&mut config);
    config
}

/// The final-state expectation "every acceptor ends promised `n`, accepted (`n`, `value`)".
pub fn every_acceptor(run: &Run, n: u64, value: &str) {
    for a in ["a1", "a2", "a3"] {
        let expect = PaxosExpect::Acceptor {
            node: a.into(),
            promised: n,
            accepted: Some((n, value.into())),
        };
        run.check(&expect).unwrap();
    }
}

/// PX-1's schedule: relay-1's first Accepts to a2 and a3 are lost; rounds at 0, 100, 200 ms.
pub fn px1(config: &PaxosConfig, keep_going: bool) -> Run {
    let mut s = scenario(config, 1, keep_going);
    s.lose_first("Accept", "relay-1", "a2")
        .lose_first("Accept", "relay-1", "a3");
    s.propose(0, "relay-1")
        .propose(100, "relay-2")
        .propose(200, "relay-1");
    s.run()
}
