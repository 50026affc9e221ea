//! Invariants: stateful checkers that read trace records, online or offline.
//!
//! A checker sees what a trace file holds (records, notes included), never an actor's private
//! state; state a checker needs is published by the protocol as notes. So `dsim check` re-runs
//! the very same checkers over a file a student hands in. Each invariant is handed only the
//! record kinds it says it reads, in a live run and over a file alike, so a run that keeps no
//! trace needs to build only the records some invariant reads. A violation is a value, with
//! the step and time where it was found, so the runner can print how to replay it.

use crate::actor::Actor;
use crate::time::Instant;
use crate::trace::{Kinds, Record};
use dyn_clone::DynClone;
use serde::{Deserialize, Serialize};
use std::any::Any;
use std::collections::BTreeMap;
use std::fmt::Debug;
use std::hash::{Hash, Hasher};

/// A property every run must keep. Stateful, so it can remember history (who led which term).
pub trait Invariant<A: Actor>: DynClone + CloneInto + Debug + Send + Any {
    /// A short claim-like name: "agreement", "at-most-one-leader-per-term".
    fn name(&self) -> &'static str;
    /// Reads one record; `Err` explains in words what went wrong.
    fn observe(&mut self, record: &Record<A>) -> Result<(), Broken>;
    /// The record kinds `observe` reads: it is handed only these, traced or not, and a run
    /// that keeps no trace builds no record nobody reads. Say less than everything only when
    /// `observe` ignores every other kind (a test shows every bundled run's other records to
    /// each invariant and checks that it neither breaks nor changes).
    fn reads(&self) -> Kinds {
        Kinds::ALL
    }
    /// Whether `observe` reads `note`, when [`Invariant::reads`] has notes: a run that keeps no
    /// trace builds a note's record only when some invariant reads that note (most notes
    /// narrate a step; a checker needs a few). Say `false` only for notes `observe` ignores
    /// (the same test as for `reads` checks it, and another compares runs with and without a
    /// trace).
    fn reads_note(&self, note: &A::Note) -> bool {
        let _ = note;
        true
    }
    /// Hashes what this invariant remembers of the run so far (the first value chosen, who
    /// led which term): an exhaustive search merges two states only when their memories agree
    /// too, or merging could hide a violation. By default the `Debug` text, which shows every
    /// field; an invariant whose fields are `Hash` says `hash_memory(self, state)` instead,
    /// which is faster.
    fn memory(&self, state: &mut dyn Hasher) {
        format!("{self:?}").hash(&mut &mut *state);
    }
    /// Called once when the run ends, for properties of the whole run (liveness bounds).
    fn finish(&mut self, end: Instant) -> Result<(), Broken> {
        let _ = end;
        Ok(())
    }
}

dyn_clone::clone_trait_object!(<A> Invariant<A> where A: Actor);

/// Copying a value into another of the same type in place (`Clone::clone_from`), through
/// `dyn Any`: what lets a checker copy its invariants into another checker's boxes instead of
/// allocating new ones (a search copies a run per seed or per state). Every `Clone` type has
/// it; nothing to implement.
pub trait CloneInto {
    /// Copies `self` into `target` if `target` is of the same type; whether it was.
    fn clone_into_any(&self, target: &mut dyn Any) -> bool;
}

impl<T: Clone + Any> CloneInto for T {
    fn clone_into_any(&self, target: &mut dyn Any) -> bool {
        match target.downcast_mut::<T>() {
            Some(target) => {
                target.clone_from(self);
                true
            }
            None => false,
        }
    }
}

/// Hashes `memory` into `state`: the body of [`Invariant::memory`] for an invariant whose
/// fields are `Hash`.
pub fn hash_memory<T: Hash + ?Sized>(memory: &T, state: &mut dyn Hasher) {
    memory.hash(&mut &mut *state);
}

/// What broke, in words: the text every trace records (English), and the same said in other
/// languages, each under its tag (`"es"`), for a story told in one of them to pick. The kernel
/// only carries the words; which languages exist is the stories' business.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Broken {
    /// The text.
    pub text: String,
    /// The same, said in other languages, by tag.
    pub translations: BTreeMap<String, String>,
}

impl Broken {
    /// The explanation in the language tagged `tag`, or the recorded text where none was given.
    pub fn text_in(&self, tag: &str) -> &str {
        self.translations.get(tag).unwrap_or(&self.text)
    }
    /// The same explanation said in the language tagged `tag`.
    pub fn also(mut self, tag: &str, text: String) -> Broken {
        self.translations.insert(tag.to_string(), text);
        self
    }
}

impl std::fmt::Display for Broken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl From<String> for Broken {
    fn from(text: String) -> Broken {
        Broken {
            text,
            translations: BTreeMap::new(),
        }
    }
}

impl From<&str> for Broken {
    fn from(text: &str) -> Broken {
        Broken::from(text.to_string())
    }
}

/// An invariant that failed, where and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Violation {
    /// The invariant's name.
    pub invariant: String,
    /// What went wrong, in words.
    pub message: String,
    /// The step whose record broke it (the last step for end-of-run checks).
    pub step: u64,
    /// The time of that step.
    pub time: Instant,
    /// Found by an end-of-run check (a property of the whole run, not of that step).
    #[serde(default)]
    pub at_end: bool,
    /// `message` said in other languages, by tag (see [`Broken`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub translations: BTreeMap<String, String>,
}

impl Violation {
    /// The message in the language tagged `tag`, or the recorded one where none was given.
    pub fn message_in(&self, tag: &str) -> &str {
        self.translations.get(tag).unwrap_or(&self.message)
    }
}

/// A set of invariants run in a fixed order over a stream of records.
#[derive(Debug)]
pub struct Checker<A: Actor> {
    invariants: Vec<Box<dyn Invariant<A>>>,
    /// What each invariant reads (its [`Invariant::reads`], asked once).
    kinds: Vec<Kinds>,
    violations: Vec<Violation>,
    last: (u64, Instant),
    /// What the invariants read, together.
    reads: Kinds,
}

impl<A: Actor> Clone for Checker<A> {
    fn clone(&self) -> Self {
        Checker {
            invariants: self.invariants.clone(),
            kinds: self.kinds.clone(),
            violations: self.violations.clone(),
            last: self.last,
            reads: self.reads,
        }
    }

    /// Copies each invariant into this checker's box for it when both are of one type (as
    /// they are between copies of one run), allocating nothing for the boxes.
    fn clone_from(&mut self, source: &Self) {
        if self.invariants.len() == source.invariants.len() {
            for (mine, theirs) in self.invariants.iter_mut().zip(&source.invariants) {
                let target: &mut dyn Any = &mut **mine;
                // Through the trait object, so the concrete type's copy runs.
                let source: &dyn Invariant<A> = &**theirs;
                if !source.clone_into_any(target) {
                    *mine = theirs.clone();
                }
            }
        } else {
            self.invariants.clone_from(&source.invariants);
        }
        self.kinds.clone_from(&source.kinds);
        self.violations.clone_from(&source.violations);
        self.last = source.last;
        self.reads = source.reads;
    }
}

impl<A: Actor> Default for Checker<A> {
    fn default() -> Self {
        Checker {
            invariants: Vec::new(),
            kinds: Vec::new(),
            violations: Vec::new(),
            last: (0, Instant::ZERO),
            reads: Kinds::NONE,
        }
    }
}

impl<A: Actor> Checker<A> {
    /// A checker running `invariants` in this order.
    pub fn new(invariants: Vec<Box<dyn Invariant<A>>>) -> Self {
        let mut checker = Checker::default();
        for invariant in invariants {
            checker.push(invariant);
        }
        checker
    }

    /// Adds an invariant after the others.
    pub fn push(&mut self, invariant: Box<dyn Invariant<A>>) {
        self.reads = self.reads | invariant.reads();
        self.kinds.push(invariant.reads());
        self.invariants.push(invariant);
    }

    /// The record kinds some invariant reads.
    pub fn reads(&self) -> Kinds {
        self.reads
    }

    /// Whether some invariant reads `note` (see [`Invariant::reads_note`]).
    pub fn reads_note(&self, note: &A::Note) -> bool {
        self.reads.contains(Kinds::NOTE)
            && self
                .invariants
                .iter()
                .zip(&self.kinds)
                .any(|(inv, reads)| reads.contains(Kinds::NOTE) && inv.reads_note(note))
    }

    /// Whether no invariant is installed.
    pub fn is_empty(&self) -> bool {
        self.invariants.is_empty()
    }

    /// Feeds one record to every invariant that reads its kind; returns the violations it
    /// caused.
    pub fn observe(&mut self, record: &Record<A>) -> &[Violation] {
        let before = self.violations.len();
        self.last = (record.step, record.time);
        let kind = record.event.kind();
        for (inv, reads) in self.invariants.iter_mut().zip(&self.kinds) {
            if !reads.contains(kind) {
                continue;
            }
            if let Err(broken) = inv.observe(record) {
                self.violations.push(Violation {
                    invariant: inv.name().to_string(),
                    message: broken.text,
                    step: record.step,
                    time: record.time,
                    at_end: false,
                    translations: broken.translations,
                });
            }
        }
        &self.violations[before..]
    }

    /// Runs every end-of-run check of a run whose last step was `step` (the kernel knows it
    /// even when it built no record for it); returns the violations they found.
    pub fn finish_after(&mut self, step: u64, end: Instant) -> &[Violation] {
        self.last.0 = step;
        self.finish(end)
    }

    /// Runs every end-of-run check after the last record read; returns the violations found.
    pub fn finish(&mut self, end: Instant) -> &[Violation] {
        let before = self.violations.len();
        for inv in &mut self.invariants {
            if let Err(broken) = inv.finish(end) {
                self.violations.push(Violation {
                    invariant: inv.name().to_string(),
                    message: broken.text,
                    step: self.last.0,
                    time: end,
                    at_end: true,
                    translations: broken.translations,
                });
            }
        }
        &self.violations[before..]
    }

    /// Hashes what every invariant remembers (see [`Invariant::memory`]).
    pub fn memory(&self, state: &mut dyn Hasher) {
        for inv in &self.invariants {
            inv.memory(state);
        }
    }

    /// Every violation found so far, in order.
    pub fn violations(&self) -> &[Violation] {
        &self.violations
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::actor::Context;
    use crate::testing::Ping;
    use crate::trace::Event;
    use crate::{MsgId, NodeId};

    /// An actor whose notes are numbers; it never runs here.
    #[derive(Clone, Debug, Hash)]
    struct Quiet;
    impl Actor for Quiet {
        type Msg = Ping;
        type Timer = ();
        type Note = u8;
        type Command = ();
        fn on_message(&mut self, _: &mut Context<'_, Self>, _: NodeId, _: Ping) {}
        fn on_timer(&mut self, _: &mut Context<'_, Self>, _: ()) {}
    }

    /// Reads `reads`, and of the notes only `note`; remembers the kinds it was handed.
    #[derive(Clone, Debug)]
    struct Seen {
        reads: Kinds,
        note: u8,
        handed: Vec<Kinds>,
    }
    impl Invariant<Quiet> for Seen {
        fn name(&self) -> &'static str {
            "seen"
        }
        fn observe(&mut self, record: &Record<Quiet>) -> Result<(), Broken> {
            self.handed.push(record.event.kind());
            Ok(())
        }
        fn reads(&self) -> Kinds {
            self.reads
        }
        fn reads_note(&self, note: &u8) -> bool {
            *note == self.note
        }
    }

    fn record(event: Event<Quiet>) -> Record<Quiet> {
        Record {
            step: 1,
            time: Instant::ZERO,
            event,
        }
    }

    /// Each invariant is handed the kinds it reads and no other; a note is wanted when an
    /// invariant reading notes reads that one; a copy into another checker keeps both rules.
    #[test]
    fn a_checker_hands_each_invariant_what_it_reads() {
        let notes = Seen {
            reads: Kinds::NOTE,
            note: 1,
            handed: Vec::new(),
        };
        let sends = Seen {
            reads: Kinds::SEND,
            note: 0,
            handed: Vec::new(),
        };
        let mut checker = Checker::new(vec![Box::new(notes), Box::new(sends)]);
        assert!(checker.reads_note(&1));
        assert!(
            !checker.reads_note(&2),
            "the sends' reader is not asked about notes"
        );
        let name: crate::Name = "a".into();
        checker.observe(&record(Event::Send {
            id: MsgId(1),
            from: name.clone(),
            to: name.clone(),
            msg: Ping,
        }));
        checker.observe(&record(Event::Note {
            node: name,
            note: 1,
        }));
        let mut copy = Checker::<Quiet>::default();
        copy.clone_from(&checker);
        for c in [&checker, &copy] {
            let handed: Vec<String> = c.invariants.iter().map(|i| format!("{i:?}")).collect();
            assert!(
                handed[0].contains(&format!("handed: [{:?}]", Kinds::NOTE)),
                "{handed:?}"
            );
            assert!(
                handed[1].contains(&format!("handed: [{:?}]", Kinds::SEND)),
                "{handed:?}"
            );
            assert!(c.reads_note(&1) && !c.reads_note(&2));
        }
    }
}
