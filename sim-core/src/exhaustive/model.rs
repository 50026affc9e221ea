//! A search's state graph behind an interface that knows no protocol, for search engines
//! outside this crate (the timely dataflow one, which runs a search on many workers).
//!
//! An engine holds a [`Searchable`] per worker, made from the same file, so every worker has
//! the same start. States are named by their paths from the start (moves as [`MoveCode`]s, plain
//! numbers that cross a process boundary) and their fingerprints; a worker rebuilds a state by
//! replaying its path ([`Searchable::go_to`], which keeps the states of the last path and
//! replays only where the next one differs, so a sorted frontier costs about one move a
//! state), then expands it ([`Searchable::expand`]): each successor inside the search's
//! boundary, fingerprinted and judged exactly as the single-process search does.

use super::{Frontier, Options, Scratch, Sometimes, fingerprint};
use crate::check::Violation;
use crate::kernel::{EffectBuffer, IgnoredAnswers, Move, MoveCode};
use crate::{Actor, Sim};

/// How a state is judged: whether it breaks an invariant, and which `sometimes` properties it
/// has (bit `i` for the `i`-th).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Judged {
    /// Some invariant broke in it.
    pub violates: bool,
    /// Bit `i`: it has the `i`-th `sometimes` property.
    pub sometimes: u64,
}

/// A successor of the state in hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Successor {
    /// Its fingerprint (as the single-process search makes it).
    pub fp: u64,
    /// The move that leads there.
    pub mv: MoveCode,
    /// How it is judged.
    pub judged: Judged,
}

/// What expanding a state found besides its successors.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Expanded {
    /// Moves taken (successors inside the boundary).
    pub transitions: u64,
    /// Nothing was left to happen (and no invariant had broken): a terminal state.
    pub terminal: bool,
    /// A terminal state whose end-of-run checks broke.
    pub end_violation: bool,
    /// The state had stopped at a run limit (more in flight than the file allows), and was
    /// not expanded.
    pub run_limited: bool,
}

/// A search's state graph, for an engine that knows no protocol (see the module's docs).
pub trait Searchable {
    /// The start's fingerprint, and how it is judged.
    fn start(&self) -> (u64, Judged);
    /// The `sometimes` properties' names, in order (at most 64).
    fn sometimes(&self) -> Vec<&'static str>;
    /// Makes the state at the end of `path` (moves from the start) the state in hand; an
    /// error for a path this search did not make.
    fn go_to(&mut self, path: &[MoveCode]) -> Result<(), String>;
    /// Expands the state in hand: `out` gets each successor inside the boundary.
    fn expand(&mut self, out: &mut dyn FnMut(Successor)) -> Expanded;
    /// The path to report for a state reached by `path`: `path` itself, or under symmetry
    /// the moves the single-process search reports for it (see `Search::moves_along`).
    fn reported_path(&mut self, path: &[MoveCode]) -> Result<Vec<Move>, String>;
    /// The violations of the state at the end of `path` (its end-of-run checks' if none
    /// broke in a step), replayed from the start.
    fn violations_at(&mut self, path: &[Move]) -> Vec<Violation>;
}

/// The [`Searchable`] of a start, the search's options and its `sometimes` properties.
pub struct Model<A: Actor> {
    root: Frontier<A>,
    origin: Sim<A>,
    options: Options<A>,
    sometimes: Vec<Sometimes<A>>,
    /// The path last gone to: per move, the move and the state it leads to.
    stack: Vec<(MoveCode, Frontier<A>)>,
    moves: Vec<Move>,
    scratch: Scratch<A>,
    answers: IgnoredAnswers,
    effects: EffectBuffer<A>,
}

impl<A: Actor> Model<A> {
    /// The model of a search from `start` (an untimed run with its timeline scheduled, as
    /// [`super::explore`] takes it). At most 64 `sometimes` properties.
    pub fn new(start: Sim<A>, options: Options<A>, sometimes: Vec<Sometimes<A>>) -> Self {
        assert!(sometimes.len() <= 64, "at most 64 sometimes properties");
        let fp = fingerprint(
            &start,
            options.loss_budget,
            options.dup_budget,
            &options,
            &mut Default::default(),
        );
        let root = Frontier {
            sim: Box::new(start.clone()),
            fp,
            depth: 0,
            losses: options.loss_budget,
            dups: options.dup_budget,
        };
        Model {
            root,
            origin: start,
            options,
            sometimes,
            stack: Vec::new(),
            moves: Vec::new(),
            scratch: Scratch::default(),
            answers: IgnoredAnswers::default(),
            effects: EffectBuffer::default(),
        }
    }
}

impl<A: Actor> Searchable for Model<A> {
    fn start(&self) -> (u64, Judged) {
        (self.root.fp, judge(&self.sometimes, &self.root.sim))
    }

    fn sometimes(&self) -> Vec<&'static str> {
        self.sometimes.iter().map(|s| s.name).collect()
    }

    fn go_to(&mut self, path: &[MoveCode]) -> Result<(), String> {
        let shared = self
            .stack
            .iter()
            .zip(path)
            .take_while(|((held, _), wanted)| held == *wanted)
            .count();
        for (_, state) in self.stack.drain(shared..) {
            self.scratch.recycle(state);
        }
        for &code in &path[shared..] {
            let mv = Move::from_code(code).ok_or("a move of no known kind")?;
            let parent = self.stack.last().map_or(&self.root, |(_, state)| state);
            let mut state = Frontier {
                sim: self.scratch.copy(&parent.sim),
                fp: 0,
                depth: 0,
                losses: 0,
                dups: 0,
            };
            parent.replay_into(mv, &mut state, &mut self.effects);
            state.fp = fingerprint(
                &state.sim,
                state.losses,
                state.dups,
                &self.options,
                &mut self.scratch.hash,
            );
            self.stack.push((code, state));
        }
        Ok(())
    }

    fn expand(&mut self, out: &mut dyn FnMut(Successor)) -> Expanded {
        let Model {
            root,
            options,
            sometimes,
            stack,
            moves,
            scratch,
            answers,
            ..
        } = self;
        let state = stack.last().map_or(&*root, |(_, state)| state);
        let mut found = Expanded::default();
        if let Some(reason) = state.sim.stopped() {
            found.run_limited = reason != crate::StopReason::Violation;
            return found;
        }
        state.sim.moves(state.losses > 0, state.dups > 0, moves);
        for &mv in moves.iter() {
            let Some(child) = state.after(mv, options, answers, scratch) else {
                continue;
            };
            found.transitions += 1;
            out(Successor {
                fp: child.fp,
                mv: mv.code(),
                judged: judge(sometimes, &child.sim),
            });
            scratch.recycle(child);
        }
        if found.transitions == 0 && state.sim.violations().is_empty() {
            found.terminal = true;
            found.end_violation = !state.sim.clone().finish().violations.is_empty();
        }
        found
    }

    fn reported_path(&mut self, path: &[MoveCode]) -> Result<Vec<Move>, String> {
        let moves: Vec<Move> = path
            .iter()
            .map(|&code| Move::from_code(code).ok_or("a move of no known kind"))
            .collect::<Result<_, _>>()?;
        if self.options.symmetry.is_none() {
            return Ok(moves);
        }
        self.go_to(path)?;
        let mut chain = vec![self.root.fp];
        chain.extend(self.stack.iter().map(|(_, state)| state.fp));
        Ok(super::moves_along(&self.options, &chain, &self.origin))
    }

    fn violations_at(&mut self, path: &[Move]) -> Vec<Violation> {
        super::violations_at(&self.origin, path)
    }
}

/// How `sim` is judged by its invariants and by `sometimes`.
fn judge<A: Actor>(sometimes: &[Sometimes<A>], sim: &Sim<A>) -> Judged {
    let sometimes = sometimes
        .iter()
        .enumerate()
        .filter(|(_, s)| (s.holds)(sim))
        .fold(0u64, |bits, (i, _)| bits | 1 << i);
    Judged {
        violates: !sim.violations().is_empty(),
        sometimes,
    }
}
