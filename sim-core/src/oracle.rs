//! The one source of a run's choices: each message's fate and each node's random draws.
//!
//! Everything a run leaves to chance is asked here, keyed by what it decides: "message #k"
//! (the k-th message sent in the run, whatever happened to the others) and "the n-th draw of
//! node X". A [`Choice`] names one such answer, so a schedule is plain data: a list of choices
//! that a scenario file carries, a search shrinks, and a student edits.
//!
//! Two answerers exist. [`Oracle::random`] draws from the run's network stream (and each node
//! from its own stream); it can record the choices it made that differ from the healthy
//! default. [`Oracle::scripted`] answers from a list and gives every message the list does not
//! name the healthy default: delivered once, at the link's shortest latency. A node's draw that
//! the list does not pin comes from the node's own seeded stream, as in any run; a pinned draw
//! still consumes its stream value, so pinning one draw never shifts the node's later draws.
//! Replaying a random run's recording therefore reproduces the run exactly, and removing one
//! choice from a list changes that one decision (and, through what the nodes do about it, at
//! most the messages sent after it).

use crate::id::{MsgId, NodeId};
use crate::link::LinkConfig;
use crate::rng::{SimRng, Stream};
use crate::time::Duration;

/// One answer of a schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Choice {
    /// Message #k is lost by the link.
    Lose(MsgId),
    /// Message #k takes this long on the link (any rule's extra delay comes on top).
    Latency(MsgId, Duration),
    /// Message #k is delivered twice; the copy takes this long.
    Copy(MsgId, Duration),
    /// The n-th random draw (from 1) of a node answers this value (clamped to the draw's range).
    Draw(NodeId, u64, u64),
    /// The n-th timer (from 1) a node arms fires after this long in true time, whatever the
    /// node asked for: a clock that runs fast or slow, and how an untimed path found by
    /// exhaustive exploration is replayed in time.
    Timer(NodeId, u64, Duration),
}

impl Choice {
    /// The message this choice is about, if any.
    pub fn message(self) -> Option<MsgId> {
        match self {
            Choice::Lose(m) | Choice::Latency(m, _) | Choice::Copy(m, _) => Some(m),
            Choice::Draw(..) | Choice::Timer(..) => None,
        }
    }
}

/// What the network does to one message, as the oracle decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fate {
    /// Lost by the link.
    pub lost: bool,
    /// The link's latency for it.
    pub latency: Duration,
    /// The network's duplicate, and its latency.
    pub copy: Option<Duration>,
}

/// A scripted message fate: anything unset is healthy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Scripted {
    lose: bool,
    latency: Option<Duration>,
    copy: Option<Duration>,
}

/// The random stream is boxed: one pointer chase per message, against a stream's few hundred
/// bytes in every copy of a run an exhaustive search keeps.
#[derive(Clone, Debug, PartialEq)]
enum Answers {
    Random(Box<SimRng>),
    Scripted {
        /// By message id, ascending; message ids only grow, so a cursor finds each one.
        fates: Vec<(MsgId, Scripted)>,
        next: usize,
    },
}

/// Where the network's choices come from (see the module documentation).
#[derive(Clone, Debug, PartialEq)]
pub struct Oracle {
    answers: Answers,
    /// The choices made that differ from the healthy default, when recording.
    recorded: Option<Vec<Choice>>,
}

impl Oracle {
    /// Choices drawn from `rng` (the run's network stream).
    pub fn random(rng: SimRng) -> Oracle {
        Oracle {
            answers: Answers::Random(Box::new(rng)),
            recorded: None,
        }
    }

    /// Becomes a random oracle drawing from `rng`, not recording: what [`Oracle::random`]
    /// makes, reusing this one's box for the stream.
    pub fn reseed(&mut self, rng: SimRng) {
        match &mut self.answers {
            Answers::Random(stream) => **stream = rng,
            answers => *answers = Answers::Random(Box::new(rng)),
        }
        self.recorded = None;
    }

    /// Choices read from `choices` (their message choices; draws are pinned on the nodes);
    /// every message they do not name is healthy. Of two choices of one sort about one
    /// message, the later wins.
    pub fn scripted(choices: &[Choice]) -> Oracle {
        let mut fates: Vec<(MsgId, Scripted)> = Vec::new();
        let mut by_message: Vec<Choice> = choices
            .iter()
            .copied()
            .filter(|c| c.message().is_some())
            .collect();
        by_message.sort_by_key(|c| c.message());
        for choice in by_message {
            let id = choice.message().expect("filtered");
            if fates.last().is_none_or(|(last, _)| *last != id) {
                fates.push((id, Scripted::default()));
            }
            let fate = &mut fates.last_mut().expect("pushed").1;
            match choice {
                Choice::Lose(_) => fate.lose = true,
                Choice::Latency(_, d) => fate.latency = Some(d),
                Choice::Copy(_, d) => fate.copy = Some(d),
                Choice::Draw(..) | Choice::Timer(..) => {}
            }
        }
        Oracle {
            answers: Answers::Scripted { fates, next: 0 },
            recorded: None,
        }
    }

    /// Starts keeping every choice that differs from the healthy default.
    pub fn record(&mut self) {
        self.recorded = Some(Vec::new());
    }

    /// The choices kept since [`Oracle::record`], in the order they were made.
    pub fn recorded(&self) -> &[Choice] {
        self.recorded.as_deref().unwrap_or(&[])
    }

    /// The fate of message `id` on `link`. `rule_copies` says a fault rule already duplicates
    /// it, so the link's own duplication is not asked.
    #[inline]
    pub fn fate(&mut self, id: MsgId, link: &LinkConfig, rule_copies: bool) -> Fate {
        let fate = match &mut self.answers {
            Answers::Random(rng) => random_fate(rng, link, rule_copies),
            Answers::Scripted { fates, next } => {
                while *next < fates.len() && fates[*next].0 < id {
                    *next += 1;
                }
                let scripted = match fates.get(*next) {
                    Some((at, s)) if *at == id => *s,
                    _ => Scripted::default(),
                };
                Fate {
                    lost: scripted.lose,
                    latency: scripted.latency.unwrap_or(link.latency.min()),
                    copy: scripted.copy.filter(|_| !rule_copies),
                }
            }
        };
        if let Some(log) = &mut self.recorded {
            if fate.lost {
                log.push(Choice::Lose(id));
            } else {
                if fate.latency != link.latency.min() {
                    log.push(Choice::Latency(id, fate.latency));
                }
                if let Some(copy) = fate.copy {
                    log.push(Choice::Copy(id, copy));
                }
            }
        }
        fate
    }
}

/// The random fate: the questions in a fixed order (loss, latency, duplication), each asked
/// only when its probability is not zero, so a healthy link draws nothing.
fn random_fate(rng: &mut SimRng, link: &LinkConfig, rule_copies: bool) -> Fate {
    let lost = !link.loss.is_zero() && rng.chance(link.loss);
    if lost {
        return Fate {
            lost,
            latency: link.latency.min(),
            copy: None,
        };
    }
    let latency = link.latency.sample(rng);
    let copy = (!rule_copies && !link.duplicate.is_zero() && rng.chance(link.duplicate))
        .then(|| link.latency.sample(rng));
    Fate {
        lost,
        latency,
        copy,
    }
}

/// A node's random draws: its own seeded stream, with some draws pinned by a schedule.
#[derive(Clone, Debug)]
pub struct Draws {
    source: Source,
    taken: u64,
    /// (n, value), sorted by n.
    pins: Vec<(u64, u64)>,
}

/// Where a node's draws come from.
#[derive(Clone, Debug)]
enum Source {
    /// The stream of `purpose` in the run seeded with `seed`, made at the first draw: most
    /// nodes never draw, and a search makes a run per seed.
    Unopened { seed: u64, purpose: Stream },
    /// Boxed: a run has a few of these and draws rarely, and an exhaustive search keeps
    /// millions of states, each with one per node.
    Open(Box<SimRng>),
    /// Fixed (see [`Draws::fix`]).
    Fixed,
}

impl Draws {
    /// Draws from `rng`, none pinned.
    pub fn new(rng: SimRng) -> Draws {
        Draws {
            source: Source::Open(Box::new(rng)),
            taken: 0,
            pins: Vec::new(),
        }
    }

    /// Draws from the stream of `purpose` in the run seeded with `seed`, none pinned: the
    /// same answers as `Draws::new(SimRng::new(seed, purpose))`, with the stream made only
    /// when the node first draws.
    pub fn seeded(seed: u64, purpose: Stream) -> Draws {
        Draws {
            source: Source::Unopened { seed, purpose },
            taken: 0,
            pins: Vec::new(),
        }
    }

    /// From now on every draw answers the low end of its range and consumes nothing: the
    /// answer depends on nothing but the question, so a state that an exhaustive search
    /// merges by its hash has one future. (The bundled protocols draw only timer durations,
    /// which an untimed network ignores.)
    pub fn fix(&mut self) {
        self.source = Source::Fixed;
    }

    /// How many draws the node has made.
    pub fn taken(&self) -> u64 {
        self.taken
    }

    /// How many draws were made, if the draws are fixed (see [`Draws::fix`]) and none is
    /// pinned: then that count is all there is to them (what a search stores of a node).
    pub(crate) fn fixed_taken(&self) -> Option<u64> {
        (matches!(self.source, Source::Fixed) && self.pins.is_empty()).then_some(self.taken)
    }

    /// Becomes fixed draws with none pinned that have made `taken` draws, in place.
    pub(crate) fn set_fixed(&mut self, taken: u64) {
        self.source = Source::Fixed;
        self.taken = taken;
        self.pins.clear();
    }

    /// Makes the `nth` draw (from 1) answer `value`.
    pub fn pin(&mut self, nth: u64, value: u64) {
        match self.pins.binary_search_by_key(&nth, |p| p.0) {
            Ok(i) => self.pins[i].1 = value,
            Err(i) => self.pins.insert(i, (nth, value)),
        }
    }

    /// A uniform integer in `[low, high]`, unless this draw is pinned.
    pub fn between(&mut self, low: u64, high: u64) -> u64 {
        self.taken += 1;
        if let Source::Unopened { seed, purpose } = self.source {
            self.source = Source::Open(Box::new(SimRng::new(seed, purpose)));
        }
        let Source::Open(rng) = &mut self.source else {
            return low; // Fixed.
        };
        let drawn = rng.between(low, high);
        if self.pins.is_empty() {
            return drawn;
        }
        match self.pins.binary_search_by_key(&self.taken, |p| p.0) {
            Ok(i) => self.pins[i].1.clamp(low, high),
            Err(_) => drawn,
        }
    }
}

/// A node's timer armings, counted, with some durations pinned by a schedule
/// ([`Choice::Timer`]).
#[derive(Clone, Debug, Default)]
pub struct Armings {
    armed: u64,
    /// (n, true-time duration), sorted by n.
    pins: Vec<(u64, Duration)>,
}

impl Armings {
    /// Makes the `nth` arming (from 1) fire after `after`.
    pub fn pin(&mut self, nth: u64, after: Duration) {
        match self.pins.binary_search_by_key(&nth, |p| p.0) {
            Ok(i) => self.pins[i].1 = after,
            Err(i) => self.pins.insert(i, (nth, after)),
        }
    }

    /// Counts one arming; answers its pinned duration, if any.
    pub fn arm(&mut self) -> Option<Duration> {
        self.armed += 1;
        if self.pins.is_empty() {
            return None;
        }
        self.pins
            .binary_search_by_key(&self.armed, |p| p.0)
            .ok()
            .map(|i| self.pins[i].1)
    }

    /// How many timers the node has armed.
    pub fn armed(&self) -> u64 {
        self.armed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Ratio, Stream};

    fn lossy() -> LinkConfig {
        LinkConfig::uniform_ms(1, 10).with_loss(Ratio::new(1, 3).unwrap())
    }

    /// A script names messages by id: unnamed messages are healthy, named ones get their
    /// choices, and ids skipped by the run (sent elsewhere) do not shift the others.
    #[test]
    fn a_script_answers_by_message_id() {
        let link = lossy();
        let mut oracle = Oracle::scripted(&[
            Choice::Latency(MsgId(4), Duration::from_millis(7)),
            Choice::Lose(MsgId(2)),
            Choice::Copy(MsgId(4), Duration::from_millis(9)),
        ]);
        let healthy = oracle.fate(MsgId(1), &link, false);
        assert!(!healthy.lost && healthy.copy.is_none());
        assert_eq!(healthy.latency, Duration::from_millis(1));
        assert!(oracle.fate(MsgId(2), &link, false).lost);
        let four = oracle.fate(MsgId(4), &link, false);
        assert_eq!(four.latency, Duration::from_millis(7));
        assert_eq!(four.copy, Some(Duration::from_millis(9)));
        assert!(!oracle.fate(MsgId(5), &link, false).lost, "past the end");
    }

    /// A recorded random run, replayed as a script, makes the same choices.
    #[test]
    fn a_recording_replays() {
        let mut link = lossy();
        link.duplicate = Ratio::new(1, 4).unwrap();
        let mut live = Oracle::random(SimRng::new(9, Stream::Network));
        live.record();
        let ids: Vec<MsgId> = (1..200).filter(|i| i % 3 != 0).map(MsgId).collect();
        let taken: Vec<Fate> = ids.iter().map(|&id| live.fate(id, &link, false)).collect();
        assert!(taken.iter().any(|f| f.lost) && taken.iter().any(|f| f.copy.is_some()));
        let mut replay = Oracle::scripted(live.recorded());
        for (&id, fate) in ids.iter().zip(&taken) {
            assert_eq!(replay.fate(id, &link, false), *fate);
        }
    }

    /// A pinned draw answers its value and leaves the node's other draws as they were.
    #[test]
    fn a_pin_changes_one_draw_only() {
        let mut free = Draws::new(SimRng::new(3, Stream::node("n1")));
        let mut pinned = Draws::new(SimRng::new(3, Stream::node("n1")));
        pinned.pin(2, 1_000);
        let a: Vec<u64> = (0..5).map(|_| free.between(10, 20)).collect();
        let b: Vec<u64> = (0..5).map(|_| pinned.between(10, 20)).collect();
        assert_eq!(b[1], 20, "clamped to the draw's range");
        assert_eq!((a[0], &a[2..]), (b[0], &b[2..]));
    }
}
