//! The simulated network: links, partitions and ordered fault rules.
//!
//! Every send passes [`Network::route`] once, at send time, which returns a [`Route`]: dropped
//! (with the reason), or delivered after some latency, possibly with a duplicate. The order of
//! the questions is fixed: unknown receiver, fault rules (in install order, the first verdict
//! that is not `Pass` wins; every matching rule counts the send as an occurrence, so "the 2nd
//! Accept from relay-1 to a2" means the 2nd one relay-1 sent, whatever happened to the 1st),
//! partitions, then the message's fate (loss, latency, duplication), which the [`Oracle`]
//! decides by message id. A message to oneself
//! bypasses the network. This module does not know about crashes; the kernel drops deliveries
//! to a crashed or paused node when they arrive.

use crate::id::{MsgId, NodeId};
pub use crate::link::{Latency, LinkConfig};
use crate::oracle::Oracle;
use crate::time::{Duration, Instant};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fmt;

/// What a fault rule does to the messages it matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RuleAction {
    /// Lose the message.
    Drop,
    /// Deliver it `by` later than the link would.
    Delay {
        /// Extra delay on top of the link latency.
        by: Duration,
    },
    /// Deliver it, and a copy `after` later than the original.
    Duplicate {
        /// How much later the copy arrives.
        after: Duration,
    },
}

/// A targeted fault: "drop the 2nd Accept from relay-1 to a2", "delay every Promise by 50 ms
/// between 1 s and 2 s". Unset fields match anything.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FaultRule {
    /// Only messages from this node.
    pub from: Option<NodeId>,
    /// Only messages to this node.
    pub to: Option<NodeId>,
    /// Only messages of this kind.
    pub kind: Option<String>,
    /// Only messages sent at or after this time.
    pub since: Option<Instant>,
    /// Only messages sent before this time.
    pub until: Option<Instant>,
    /// Only the nth matching message (1-based, counted as the sender sends); every one if unset.
    pub nth: Option<u64>,
    /// What to do with a matching message.
    pub action: RuleAction,
}

impl FaultRule {
    /// A rule that matches every message and does `action`; narrow it with the fields.
    pub fn new(action: RuleAction) -> Self {
        FaultRule {
            from: None,
            to: None,
            kind: None,
            since: None,
            until: None,
            nth: None,
            action,
        }
    }

    fn matches(&self, from: NodeId, to: NodeId, kind: &str, now: Instant) -> bool {
        self.from.is_none_or(|f| f == from)
            && self.to.is_none_or(|t| t == to)
            && self.kind.as_deref().is_none_or(|k| k == kind)
            && self.since.is_none_or(|s| now >= s)
            && self.until.is_none_or(|u| now < u)
    }
}

#[derive(Clone, Debug, Hash, PartialEq)]
struct InstalledRule {
    rule: FaultRule,
    /// Matching messages sent so far.
    seen: u64,
}

/// Why a message never arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DropReason {
    /// The link lost it (its loss probability).
    Loss,
    /// A partition cut the link.
    Partition,
    /// A fault rule (its index in install order, from 0) dropped it.
    Rule(u32),
    /// The receiver was crashed when it arrived.
    Crashed,
    /// The receiver was paused when it arrived.
    Paused,
    /// There is no such receiver.
    UnknownNode,
}

impl fmt::Display for DropReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DropReason::Loss => f.write_str("lost by the link"),
            DropReason::Partition => f.write_str("cut by a partition"),
            DropReason::Rule(i) => write!(f, "dropped by fault rule #{}", i + 1),
            DropReason::Crashed => f.write_str("receiver crashed"),
            DropReason::Paused => f.write_str("receiver paused"),
            DropReason::UnknownNode => f.write_str("no such node"),
        }
    }
}

/// The network's answer for one send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// Never arrives.
    Drop(DropReason),
    /// Arrives after `latency`; if `copy` is set, a duplicate arrives after that delay.
    Deliver {
        /// Delay of the original.
        latency: Duration,
        /// Delay of the network's duplicate, if any.
        copy: Option<Duration>,
    },
}

/// Links, partitions and fault rules between `node_count` nodes.
#[derive(Clone, Debug, PartialEq)]
pub struct Network {
    default_link: LinkConfig,
    /// Per directed link overrides, in a sorted list (few entries; looked up linearly).
    links: Vec<((NodeId, NodeId), LinkConfig)>,
    /// Directed cuts (from, to) currently in force.
    cuts: BTreeSet<(NodeId, NodeId)>,
    rules: Vec<InstalledRule>,
    oracle: Oracle,
}

impl Network {
    /// A network whose links all behave as `default_link`, deciding fates with `oracle`.
    pub fn new(default_link: LinkConfig, oracle: Oracle) -> Self {
        Network {
            default_link,
            links: Vec::new(),
            cuts: BTreeSet::new(),
            rules: Vec::new(),
            oracle,
        }
    }

    /// The source of message fates (to read what it recorded).
    pub fn oracle(&self) -> &Oracle {
        &self.oracle
    }
    /// The source of message fates, mutably (to replace it or start recording).
    pub fn oracle_mut(&mut self) -> &mut Oracle {
        &mut self.oracle
    }

    /// The laws of every link without an override.
    pub fn default_link(&self) -> LinkConfig {
        self.default_link
    }

    /// Changes every link without an override.
    pub fn set_default_link(&mut self, link: LinkConfig) {
        self.default_link = link;
    }

    /// Overrides the directed link `from -> to`.
    pub fn set_link(&mut self, from: NodeId, to: NodeId, link: LinkConfig) {
        match self.links.binary_search_by_key(&(from, to), |e| e.0) {
            Ok(i) => self.links[i].1 = link,
            Err(i) => self.links.insert(i, ((from, to), link)),
        }
    }

    fn link(&self, from: NodeId, to: NodeId) -> LinkConfig {
        if self.links.is_empty() {
            return self.default_link;
        }
        match self.links.binary_search_by_key(&(from, to), |e| e.0) {
            Ok(i) => self.links[i].1,
            Err(_) => self.default_link,
        }
    }

    /// Splits the nodes into `groups` that cannot reach each other (both ways). Nodes of
    /// `all` listed in no group form one more group together.
    pub fn partition(&mut self, groups: &[Vec<NodeId>], all: &[NodeId]) {
        let mut groups: Vec<Vec<NodeId>> = groups.to_vec();
        let listed: BTreeSet<NodeId> = groups.iter().flatten().copied().collect();
        let rest: Vec<NodeId> = all
            .iter()
            .copied()
            .filter(|n| !listed.contains(n))
            .collect();
        if !rest.is_empty() {
            groups.push(rest);
        }
        for (i, a) in groups.iter().enumerate() {
            for b in groups.iter().skip(i + 1) {
                for &x in a {
                    for &y in b {
                        self.cuts.insert((x, y));
                        self.cuts.insert((y, x));
                    }
                }
            }
        }
    }

    /// Cuts every link from a node of `from` to a node of `to`, one way only.
    pub fn partition_one_way(&mut self, from: &[NodeId], to: &[NodeId]) {
        for &x in from {
            for &y in to {
                if x != y {
                    self.cuts.insert((x, y));
                }
            }
        }
    }

    /// Restores every cut link.
    pub fn heal(&mut self) {
        self.cuts.clear();
    }

    /// Whether any link is cut now.
    pub fn has_cuts(&self) -> bool {
        !self.cuts.is_empty()
    }

    /// Whether `from -> to` is cut now.
    pub fn is_cut(&self, from: NodeId, to: NodeId) -> bool {
        !self.cuts.is_empty() && self.cuts.contains(&(from, to))
    }

    /// Installs a fault rule after the existing ones; returns its index.
    pub fn add_rule(&mut self, rule: FaultRule) -> u32 {
        self.rules.push(InstalledRule { rule, seen: 0 });
        (self.rules.len() - 1) as u32
    }

    /// Removes every fault rule.
    pub fn clear_rules(&mut self) {
        self.rules.clear();
    }

    /// Decides the fate of message `id`, `from -> to` of `kind`, sent at `now`.
    pub fn route(
        &mut self,
        id: MsgId,
        from: NodeId,
        to: NodeId,
        kind: &str,
        now: Instant,
    ) -> Route {
        let mut verdict: Option<(u32, RuleAction)> = None;
        for (i, installed) in self.rules.iter_mut().enumerate() {
            if !installed.rule.matches(from, to, kind, now) {
                continue;
            }
            installed.seen += 1;
            let hit = installed.rule.nth.is_none_or(|n| n == installed.seen);
            if hit && verdict.is_none() {
                verdict = Some((i as u32, installed.rule.action));
            }
        }
        if self.is_cut(from, to) {
            return Route::Drop(DropReason::Partition);
        }
        if let Some((i, RuleAction::Drop)) = verdict {
            return Route::Drop(DropReason::Rule(i));
        }
        let link = self.link(from, to);
        let rule_copies = matches!(verdict, Some((_, RuleAction::Duplicate { .. })));
        let fate = self.oracle.fate(id, &link, rule_copies);
        if fate.lost {
            return Route::Drop(DropReason::Loss);
        }
        let mut latency = fate.latency;
        let mut copy = fate.copy;
        match verdict {
            Some((_, RuleAction::Delay { by })) => latency = latency + by,
            Some((_, RuleAction::Duplicate { after })) => copy = Some(latency + after),
            _ => {}
        }
        Route::Deliver { latency, copy }
    }
}

impl std::hash::Hash for Network {
    /// The network's state that changes behaviour: cuts, rules and their counters. (The
    /// oracle's stream position is not part of a protocol state.)
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        // As sets: renaming nodes reorders what is kept in node order (see `symmetry`).
        crate::symmetry::AsSet(&self.cuts).hash(state);
        self.rules.hash(state);
        self.default_link.hash(state);
        crate::symmetry::AsSet(&self.links).hash(state);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Ratio, SimRng, Stream};

    fn net(link: LinkConfig) -> Network {
        Network::new(link, Oracle::random(SimRng::new(1, Stream::Network)))
    }
    const A: NodeId = NodeId(0);
    const B: NodeId = NodeId(1);
    const C: NodeId = NodeId(2);
    const T: Instant = Instant::ZERO;

    fn delivered(r: Route) -> bool {
        matches!(r, Route::Deliver { .. })
    }

    /// The nth rule drops exactly the nth matching send, counting sends dropped by others.
    #[test]
    fn nth_counts_sends_of_the_matching_kind_only() {
        let mut n = net(LinkConfig::default());
        let mut rule = FaultRule::new(RuleAction::Drop);
        rule.from = Some(A);
        rule.to = Some(B);
        rule.kind = Some("Accept".into());
        rule.nth = Some(2);
        n.add_rule(rule);
        assert!(delivered(n.route(MsgId(1), A, B, "Accept", T)));
        assert!(
            delivered(n.route(MsgId(1), A, B, "Prepare", T)),
            "other kinds do not count"
        );
        assert!(
            delivered(n.route(MsgId(1), A, C, "Accept", T)),
            "other receivers do not count"
        );
        assert_eq!(
            n.route(MsgId(1), A, B, "Accept", T),
            Route::Drop(DropReason::Rule(0))
        );
        assert!(
            delivered(n.route(MsgId(1), A, B, "Accept", T)),
            "only the 2nd"
        );
    }

    /// First non-Pass verdict wins, and a later rule still counts the occurrence.
    #[test]
    fn first_verdict_wins_and_later_rules_still_count() {
        let mut n = net(LinkConfig::default());
        let mut first = FaultRule::new(RuleAction::Delay {
            by: Duration::from_millis(50),
        });
        first.nth = Some(1);
        n.add_rule(first);
        let mut second = FaultRule::new(RuleAction::Drop);
        second.nth = Some(2);
        n.add_rule(second);
        assert_eq!(
            n.route(MsgId(1), A, B, "X", T),
            Route::Deliver {
                latency: Duration::from_millis(51),
                copy: None
            }
        );
        assert_eq!(
            n.route(MsgId(1), A, B, "X", T),
            Route::Drop(DropReason::Rule(1))
        );
    }

    #[test]
    fn time_windows_bound_rules() {
        let mut n = net(LinkConfig::default());
        let mut rule = FaultRule::new(RuleAction::Drop);
        rule.since = Some(Instant::from_millis(10));
        rule.until = Some(Instant::from_millis(20));
        n.add_rule(rule);
        assert!(delivered(n.route(
            MsgId(1),
            A,
            B,
            "X",
            Instant::from_millis(9)
        )));
        assert!(!delivered(n.route(
            MsgId(1),
            A,
            B,
            "X",
            Instant::from_millis(10)
        )));
        assert!(delivered(n.route(
            MsgId(1),
            A,
            B,
            "X",
            Instant::from_millis(20)
        )));
    }

    #[test]
    fn symmetric_partition_puts_unlisted_nodes_together() {
        let mut n = net(LinkConfig::default());
        n.partition(&[vec![A]], &[A, B, C]);
        assert_eq!(
            n.route(MsgId(1), A, B, "X", T),
            Route::Drop(DropReason::Partition)
        );
        assert_eq!(
            n.route(MsgId(1), C, A, "X", T),
            Route::Drop(DropReason::Partition)
        );
        assert!(delivered(n.route(MsgId(1), B, C, "X", T)));
        n.heal();
        assert!(delivered(n.route(MsgId(1), A, B, "X", T)));
    }

    #[test]
    fn one_way_partition_cuts_one_direction() {
        let mut n = net(LinkConfig::default());
        n.partition_one_way(&[A], &[B]);
        assert_eq!(
            n.route(MsgId(1), A, B, "X", T),
            Route::Drop(DropReason::Partition)
        );
        assert!(delivered(n.route(MsgId(1), B, A, "X", T)));
    }

    /// Loss and duplication happen at about their ratio, and never when the ratio is zero.
    #[test]
    fn loss_and_duplication_follow_their_ratios() {
        let quarter = Ratio::new(1, 4).unwrap();
        let mut lossy = net(LinkConfig {
            loss: quarter,
            ..LinkConfig::default()
        });
        let lost = (0..10_000)
            .filter(|_| !delivered(lossy.route(MsgId(1), A, B, "X", T)))
            .count();
        assert!((2_300..2_700).contains(&lost), "{lost}");
        let mut healthy = net(LinkConfig::default());
        assert!((0..10_000).all(|_| healthy.route(MsgId(1), A, B, "X", T)
            == Route::Deliver {
                latency: Duration::from_millis(1),
                copy: None
            }));
        let mut dup = net(LinkConfig {
            duplicate: quarter,
            ..LinkConfig::default()
        });
        let copies = (0..10_000)
            .filter(|_| {
                matches!(
                    dup.route(MsgId(1), A, B, "X", T),
                    Route::Deliver { copy: Some(_), .. }
                )
            })
            .count();
        assert!((2_300..2_700).contains(&copies), "{copies}");
    }

    /// Uniform latency stays within bounds and varies (so it reorders); the heavy tail is
    /// mostly short with rare long values.
    #[test]
    fn latency_laws_stay_in_bounds() {
        let (lo, hi) = (Duration::from_millis(1), Duration::from_millis(10));
        let mut n = net(LinkConfig {
            latency: Latency::Uniform { min: lo, max: hi },
            ..LinkConfig::default()
        });
        let mut seen = BTreeSet::new();
        for _ in 0..1000 {
            let Route::Deliver { latency, .. } = n.route(MsgId(1), A, B, "X", T) else {
                panic!()
            };
            assert!(latency >= lo && latency <= hi);
            seen.insert(latency);
        }
        assert!(seen.len() > 100);
        let mut tail = net(LinkConfig {
            latency: Latency::HeavyTail {
                min: lo,
                max: Duration::from_secs(1),
            },
            ..LinkConfig::default()
        });
        let draws: Vec<Duration> = (0..10_000)
            .map(|_| match tail.route(MsgId(1), A, B, "X", T) {
                Route::Deliver { latency, .. } => latency,
                Route::Drop(_) => panic!(),
            })
            .collect();
        let short = draws
            .iter()
            .filter(|d| **d < Duration::from_millis(2))
            .count();
        let long = draws
            .iter()
            .filter(|d| **d >= Duration::from_millis(64))
            .count();
        assert!(
            (4_500..5_500).contains(&short),
            "about half below 2x min: {short}"
        );
        assert!(
            (50..400).contains(&long),
            "about 1/64 above 64x min: {long}"
        );
        assert!(draws.iter().all(|d| *d <= Duration::from_secs(1)));
    }
}
