//! The one source of every random network decision: lose, duplicate, how long.
//!
//! By default decisions come from the run's network stream. A search replaces that stream by a
//! scripted list of [`Decision`]s and shrinks the list; a recording of a random run gives the list
//! to start from. A script that runs out, or whose next entry is of another sort than the one
//! asked for (the schedule changed under shrinking), answers with the healthy default: no loss,
//! no duplicate, the shortest latency. Shrinking therefore always moves toward a calmer network.
//!
//! A search can also script whole messages rather than single questions: a list of [`Fate`]s,
//! one per message that reaches the link's random choices, in sending order. A shrinker that
//! drops or simplifies a fate changes one message's fate only, which makes fates the better
//! unit for property tests.

use crate::rng::{Ratio, SimRng};
use serde::{Deserialize, Serialize};

/// One network decision, as recorded or scripted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Decision {
    /// Whether a packet was lost to the link's loss probability.
    Lose(bool),
    /// Whether a packet was duplicated by the link.
    Duplicate(bool),
    /// The latency drawn, as an offset in nanoseconds above the link's minimum.
    Latency(u64),
}

/// What the network does to one message, within the link's fault model: lost (only if the link
/// can lose), duplicated (only if it can duplicate), and its latencies as offsets above the
/// link's minimum (capped at its maximum). The default is the healthy fate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Fate {
    /// Lost, if the link's loss probability is not zero.
    pub lose: bool,
    /// Delivered twice, if the link's duplication probability is not zero.
    pub duplicate: bool,
    /// Latency offset above the minimum, in nanoseconds.
    pub latency: u64,
    /// The duplicate's latency offset, in nanoseconds.
    pub copy_latency: u64,
}

/// Where network decisions come from.
#[derive(Clone, Debug)]
pub struct Decider {
    source: Source,
    /// Every decision taken, when recording.
    recorded: Option<Vec<Decision>>,
}

// The random variant is the hot one; boxing it would add a pointer chase per decision.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
enum Source {
    Random(SimRng),
    Scripted {
        script: Vec<Decision>,
        next: usize,
    },
    Fates {
        fates: Vec<Fate>,
        next: usize,
        current: Fate,
        latencies: u8,
    },
}

impl Decider {
    /// Decisions drawn from `rng` (the run's network stream).
    pub fn random(rng: SimRng) -> Decider {
        Decider {
            source: Source::Random(rng),
            recorded: None,
        }
    }

    /// Decisions read from `script` in order; past its end, the healthy default.
    pub fn scripted(script: Vec<Decision>) -> Decider {
        Decider {
            source: Source::Scripted { script, next: 0 },
            recorded: None,
        }
    }

    /// Decisions read from `fates`, one per message; past its end, the healthy fate.
    pub fn fates(fates: Vec<Fate>) -> Decider {
        Decider {
            source: Source::Fates {
                fates,
                next: 0,
                current: Fate::default(),
                latencies: 0,
            },
            recorded: None,
        }
    }

    /// The network calls this before the random choices about one message.
    #[inline]
    pub fn begin_message(&mut self) {
        if let Source::Fates {
            fates,
            next,
            current,
            latencies,
        } = &mut self.source
        {
            *current = fates.get(*next).copied().unwrap_or_default();
            *next += 1;
            *latencies = 0;
        }
    }

    /// Starts keeping every decision taken, for a search to replay and shrink.
    pub fn record(&mut self) {
        self.recorded = Some(Vec::new());
    }

    /// The decisions taken since [`Decider::record`].
    pub fn recorded(&self) -> &[Decision] {
        self.recorded.as_deref().unwrap_or(&[])
    }

    fn scripted_next(&mut self) -> Option<Decision> {
        match &mut self.source {
            Source::Scripted { script, next } => {
                let d = script.get(*next).copied();
                *next += 1;
                d
            }
            Source::Random(_) | Source::Fates { .. } => None,
        }
    }

    fn keep(&mut self, d: Decision) {
        if let Some(log) = &mut self.recorded {
            log.push(d);
        }
    }

    /// Whether to lose a packet on a link whose loss probability is `p` (not asked when `p` is 0).
    pub fn lose(&mut self, p: Ratio) -> bool {
        let lost = match &mut self.source {
            Source::Random(rng) => rng.chance(p),
            Source::Scripted { .. } => matches!(self.scripted_next(), Some(Decision::Lose(true))),
            Source::Fates { current, .. } => current.lose,
        };
        self.keep(Decision::Lose(lost));
        lost
    }

    /// Whether to duplicate a packet on a link whose duplication probability is `p`.
    pub fn duplicate(&mut self, p: Ratio) -> bool {
        let dup = match &mut self.source {
            Source::Random(rng) => rng.chance(p),
            Source::Scripted { .. } => {
                matches!(self.scripted_next(), Some(Decision::Duplicate(true)))
            }
            Source::Fates { current, .. } => current.duplicate,
        };
        self.keep(Decision::Duplicate(dup));
        dup
    }

    /// An offset in `[0, span]` above a latency minimum, drawn by `draw` when random.
    pub fn latency_offset(&mut self, span: u64, draw: impl FnOnce(&mut SimRng) -> u64) -> u64 {
        let offset = match &mut self.source {
            Source::Random(rng) => draw(rng),
            Source::Scripted { .. } => match self.scripted_next() {
                Some(Decision::Latency(ns)) => ns.min(span),
                _ => 0,
            },
            Source::Fates {
                current, latencies, ..
            } => {
                *latencies += 1;
                let ns = if *latencies == 1 {
                    current.latency
                } else {
                    current.copy_latency
                };
                ns.min(span)
            }
        };
        self.keep(Decision::Latency(offset));
        offset
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Stream;

    /// Fates answer per message: each message's questions read its own fate.
    #[test]
    fn fates_answer_one_message_at_a_time() {
        let half = Ratio::new(1, 2).unwrap();
        let mut d = Decider::fates(vec![
            Fate {
                lose: true,
                ..Fate::default()
            },
            Fate {
                duplicate: true,
                latency: 7,
                copy_latency: 500,
                ..Fate::default()
            },
        ]);
        d.begin_message();
        assert!(d.lose(half));
        d.begin_message();
        assert!(!d.lose(half));
        assert_eq!(d.latency_offset(100, |_| unreachable!()), 7);
        assert!(d.duplicate(half));
        assert_eq!(
            d.latency_offset(100, |_| unreachable!()),
            100,
            "capped at the span"
        );
        d.begin_message();
        assert!(!d.lose(half) && !d.duplicate(half), "past the end: healthy");
    }

    /// A recorded random run, replayed as a script, takes the same decisions; a script of the
    /// wrong sort or past its end answers with the healthy default.
    #[test]
    fn a_recording_replays_and_a_bad_script_falls_back_to_healthy() {
        let half = Ratio::new(1, 2).unwrap();
        let mut live = Decider::random(SimRng::new(9, Stream::Network));
        live.record();
        let taken: Vec<(bool, bool, u64)> = (0..50)
            .map(|_| {
                (
                    live.lose(half),
                    live.duplicate(half),
                    live.latency_offset(100, |r| r.below(101)),
                )
            })
            .collect();
        let mut replay = Decider::scripted(live.recorded().to_vec());
        for &(l, d, o) in &taken {
            assert_eq!(replay.lose(half), l);
            assert_eq!(replay.duplicate(half), d);
            assert_eq!(replay.latency_offset(100, |_| unreachable!()), o);
        }
        assert!(taken.iter().any(|t| t.0), "the control run loses something");
        let mut wrong = Decider::scripted(vec![Decision::Latency(5), Decision::Lose(true)]);
        assert!(
            !wrong.lose(half),
            "a latency entry does not answer a loss question"
        );
        assert_eq!(wrong.latency_offset(100, |_| 0), 0);
        assert!(!wrong.duplicate(half), "past the end: healthy");
    }
}
