//! How the lease election plugs into scenarios: [`Lease`], its model (`sim_core::Protocol`) and
//! its story (`traces::Story`). It only wires the other modules together.

use crate::lease::config::{self, LeaseConfig};
use crate::lease::expect::{self, LeaseExpect, leaderless, split_brain};
use crate::lease::invariants::{FencedWrites, SplitBrain, rejected_writes, stale_writes, windows};
use crate::lease::narrate::{self, secs};
use crate::lease::node::{LeaseCommand, LeaseNode};
use crate::lease::relay::Phase;
use crate::lease::setup::{Setup, Shared};
use crate::lease::timeline;
use sim_core::{
    BugKnob, ConfigProblem, Duration, Instant, Invariant, NodeId, Outcome, Protocol, Record, Sim,
    Status,
};
use traces::{Lang, Measure, Story};

/// Lease-based leader election with fencing tokens (text 003, etcd and the outbox relay).
#[derive(Clone, Copy, Debug, Default)]
pub struct Lease;

impl Protocol for Lease {
    const NAME: &'static str = "lease";
    const ABOUT: &'static str =
        "etcd-style lease election: relays race for a key, the winner refreshes; fencing tokens";
    const BUGS: &'static [BugKnob] = &[
        BugKnob {
            name: "unchecked_refresh",
            breaks: "a relay leads on whatever its refresh says: two leaders once its lease expires",
        },
        BugKnob {
            name: "resource_ignores_tokens",
            breaks: "the resource accepts a stale leader's write although it carries a lower token",
        },
        BugKnob {
            name: "early_expiry",
            breaks: "the store expires leases at half the TTL, under a leader that still holds it",
        },
    ];
    type Actor = LeaseNode;
    type Config = LeaseConfig;
    type Expect = LeaseExpect;

    fn nodes(config: &LeaseConfig) -> Vec<String> {
        config.node_names()
    }

    fn validate(config: &LeaseConfig) -> Vec<ConfigProblem> {
        config::validate(config)
    }

    fn build(config: &LeaseConfig, id: NodeId) -> LeaseNode {
        LeaseNode::new(&Shared::new(Setup::of(config)), id)
    }

    fn build_all(config: &LeaseConfig) -> Vec<LeaseNode> {
        let setup = Shared::new(Setup::of(config));
        (0..config.node_names().len())
            .map(|i| LeaseNode::new(&setup, NodeId(u32::try_from(i).expect("few nodes"))))
            .collect()
    }

    fn invariants(config: &LeaseConfig) -> Vec<Box<dyn Invariant<LeaseNode>>> {
        let mut invariants: Vec<Box<dyn Invariant<LeaseNode>>> =
            vec![Box::new(SplitBrain::default())];
        if config.fencing {
            invariants.push(Box::new(FencedWrites));
        }
        invariants
    }

    fn check(
        _config: &LeaseConfig,
        expect: &LeaseExpect,
        outcome: &Outcome<'_, LeaseNode>,
    ) -> Result<String, String> {
        expect::check(expect, outcome)
    }

    fn expect_nodes(expect: &LeaseExpect) -> Vec<String> {
        expect::expect_nodes(expect)
    }

    fn command_problem(
        config: &LeaseConfig,
        node: &str,
        _command: &LeaseCommand,
    ) -> Option<String> {
        (!config.relays.iter().any(|r| r == node)).then(|| {
            format!(
                "{node} is not a relay, so it has no lease to give up; the relays are: {}",
                config.relays.join(", ")
            )
        })
    }

    /// After the leader dies or is cut off, another leads within the TTL (its lease expires),
    /// plus a round of calls to the store on each side, plus a renewal period. Generous.
    fn progress_bound(config: &LeaseConfig) -> Option<Duration> {
        let calls = config.rpc_timeout_ms.saturating_mul(4);
        Some(Duration::from_millis(
            config
                .ttl_ms
                .saturating_add(calls)
                .saturating_add(config.renew_every_ms)
                .saturating_add(config.work_ms),
        ))
    }

    /// Some running relay leads, or is on its way: the store still holds the key (its lease
    /// has not expired yet: a new leader can win only then) or a relay is racing. Stuck is a
    /// free key that every relay still waits for (a lost deletion nobody rechecks).
    fn progress(config: &LeaseConfig, sim: &Sim<LeaseNode>, _since: Instant) -> Result<(), String> {
        let up = |id| sim.status(id) == Status::Up;
        let mut relays = sim
            .node_ids()
            .filter(|&id| up(id))
            .filter_map(|id| sim.actor(id).relay());
        let moving = relays.any(|r| {
            matches!(
                r.phase(),
                Phase::Leading { .. } | Phase::Granting | Phase::Trying(_) | Phase::Reading
            )
        });
        let held = sim
            .node_ids()
            .filter_map(|id| sim.actor(id).store())
            .any(|s| s.get(&config.key).is_some());
        if moving || held {
            Ok(())
        } else {
            Err(format!(
                "no relay leads at {}, the key is free, and every running relay still waits for it",
                sim.now()
            ))
        }
    }

    /// A leading relay's token (its role claim's epoch): the newest leader's is the highest.
    fn epoch(actor: &LeaseNode) -> Option<u64> {
        sim_core::Actor::claim(actor).map(|c| c.epoch)
    }
}

impl Story for Lease {
    fn narrate(record: &Record<LeaseNode>, lang: Lang) -> Option<String> {
        narrate::narrate(record, lang)
    }

    fn explain(
        _config: &LeaseConfig,
        expect: &LeaseExpect,
        outcome: &Outcome<'_, LeaseNode>,
        lang: Lang,
    ) -> Result<String, String> {
        expect::check_in(expect, outcome, lang)
    }

    fn is_key(record: &Record<LeaseNode>) -> bool {
        narrate::is_key(record)
    }

    /// Split-brain time, stale writes accepted and rejected, leaderships, and the longest
    /// stretch without a leader.
    fn measures(records: &[Record<LeaseNode>]) -> Vec<Measure> {
        let end = records.last().map_or(Instant::ZERO, |r| r.time);
        let leaderships = sim_core::trace::notes(records)
            .filter(|(_, _, n)| matches!(n, crate::lease::notes::LeaseNote::Leads { .. }))
            .count() as u64;
        vec![
            Measure::nanos("split_brain", Some(split_brain(records, end).0)),
            Measure::count("stale_writes", Some(stale_writes(records))),
            Measure::count("rejected_writes", Some(rejected_writes(records))),
            Measure::count("leaderships", Some(leaderships)),
            Measure::nanos("leaderless", Some(leaderless(records, end).0)),
        ]
    }

    /// The split-brain windows and the writes that got through, in words.
    fn summary(records: &[Record<LeaseNode>], lang: Lang) -> Vec<String> {
        let es = lang == Lang::Es;
        let mut lines = Vec::new();
        let found = windows(records);
        if found.is_empty() {
            lines.push(if es {
                "nunca hubo dos líderes a la vez".to_string()
            } else {
                "never two leaders at once".to_string()
            });
        }
        for w in &found {
            let length = w.length.map_or_else(
                || {
                    if es {
                        "hasta el final".to_string()
                    } else {
                        "until the end".to_string()
                    }
                },
                |d| secs(d.as_millis()),
            );
            lines.push(if es {
                format!(
                    "CEREBRO PARTIDO: {} lideran a la vez desde {} durante {length}",
                    w.leaders.join(" y "),
                    w.start
                )
            } else {
                format!(
                    "SPLIT BRAIN: {} lead at once from {} for {length}",
                    w.leaders.join(" and "),
                    w.start
                )
            });
        }
        lines.extend(timeline::lost_leaderships(records, lang));
        let (stale, rejected) = (stale_writes(records), rejected_writes(records));
        if stale + rejected > 0 {
            lines.push(if es {
                format!("escrituras de un líder antiguo: {stale} aceptadas, {rejected} rechazadas por el token")
            } else {
                format!("writes of a stale leader: {stale} accepted, {rejected} rejected by their token")
            });
        }
        lines
    }
}
