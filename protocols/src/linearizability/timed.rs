//! Linearizability of an observed history: every client operation with the time it was called
//! and the time it returned (a trace's steps or virtual nanoseconds), checked as Porcupine does.
//!
//! [`History`](super::History) suits a model checker (ghost state, real-time order as counts);
//! a history read off a run is a list of [`Operation`]s with times, often thousands of them
//! over many keys. [`check`] searches for an order with Wing and Gong's algorithm over a list
//! of call and return events, with Lowe's cache of (operations linearized, object state).
//! [`check_by_part`] first splits the history by the part of the object each operation touches
//! (a key), since a history is linearizable exactly when each part's is (Herlihy and Wing's
//! locality; Porcupine's P-compositionality): many small searches instead of one exponential
//! one. A [`Budget`] of search steps bounds the work: spent, the verdict is
//! [`Verdict::Unknown`], never a hang. A failure names its [`Window`]: the first return that
//! no order of what came before explains, what had returned before it was called, and what
//! overlapped it.
//!
//! Times: an operation returning at `t` precedes one called after `t`; events at the same time
//! are taken as concurrent (calls before returns), the permissive reading. An operation that
//! never returned may have taken effect, at any point after its call, or not at all.

use super::Spec;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::{Debug, Display};
use std::hash::Hash;

/// One client operation as observed: who called what, when, and what came back when.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Operation<C, S: Spec> {
    /// The client that called it.
    pub client: C,
    /// The operation.
    pub op: S::Op,
    /// When it was called.
    pub call: u64,
    /// When it returned and what; `None` if it never did (the client gave up, or the run
    /// ended first): it may have taken effect or not.
    pub ret: Option<(u64, S::Ret)>,
}

/// A specification whose operations each touch one part of the object (a key), so that a
/// history splits into independent histories, one per part.
pub trait Partitioned: Spec {
    /// What an operation touches.
    type Part: Clone + Debug + Ord;
    /// The part `op` touches.
    fn part(op: &Self::Op) -> Self::Part;
}

/// How many search steps a check may take (one step: try one event of the history) before it
/// gives up with [`Verdict::Unknown`]. Exponential cases exist; a bound keeps a check finite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget(pub u64);

impl Default for Budget {
    /// One million steps: milliseconds for a history split by key (the bench binary
    /// `linearizability` checks 10,000 operations over 100 keys in about 10 ms), seconds at
    /// most for one whose object is large (the same history as one: 5.8 s for the million).
    fn default() -> Self {
        Budget(1_000_000)
    }
}

/// A 128-bit fingerprint of a configuration (which operations are linearized, the object's
/// state): Lowe's cache keeps these instead of copies, 16 bytes an entry whatever the object's
/// size. Two configurations sharing one (odds of about n² / 2¹²⁹ for n entries) would make the
/// search skip the second: a linearizable history could then look not linearizable, never the
/// other way round.
fn fingerprint<S: Hash>(linearized: &[u64], state: &S, bytes: &mut Vec<u8>) -> u128 {
    struct Gather<'a>(&'a mut Vec<u8>);
    impl std::hash::Hasher for Gather<'_> {
        fn write(&mut self, data: &[u8]) {
            self.0.extend_from_slice(data);
        }
        fn finish(&self) -> u64 {
            xxhash_rust::xxh3::xxh3_64(self.0)
        }
    }
    bytes.clear();
    let mut gather = Gather(bytes);
    linearized.hash(&mut gather);
    state.hash(&mut gather);
    xxhash_rust::xxh3::xxh3_128(bytes)
}

/// The operations around the first return that no order explains (indices into the history).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Window<P> {
    /// The part of the object (key) whose history fails, when the history was split.
    pub part: Option<P>,
    /// The operation whose return no order of the operations before it explains.
    pub culprit: usize,
    /// The last operation (of the same part) that had returned before the culprit was called,
    /// if any: the culprit had to take effect after it.
    pub after: Option<usize>,
    /// The operations (of the same part) that overlapped the culprit.
    pub overlapping: Vec<usize>,
}

/// What a check concluded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict<P> {
    /// An order exists in which every return is the object's.
    Linearizable,
    /// No order explains the history; where it first fails.
    Violation(Window<P>),
    /// The budget ran out first; in which part, if the history was split.
    Unknown {
        /// The part whose search ran out.
        part: Option<P>,
        /// The steps spent in all.
        steps: u64,
    },
}

/// Whether `history` (of an object that starts as `init`) is linearizable, searched as one.
pub fn check<C, S: Spec>(init: &S, history: &[Operation<C, S>], budget: Budget) -> Verdict<()> {
    let all: Vec<usize> = (0..history.len()).collect();
    let mut left = budget.0;
    match part_verdict(init, history, &all, &mut left) {
        PartVerdict::Yes => Verdict::Linearizable,
        PartVerdict::No(window) => Verdict::Violation(window.in_part(None)),
        PartVerdict::OutOfBudget => Verdict::Unknown {
            part: None,
            steps: budget.0,
        },
    }
}

/// Whether `history` is linearizable, each part (key) checked alone, parts in order; the budget
/// is shared. The first failing part is reported (an unknown part does not hide a later one's
/// failure, which is certain).
pub fn check_by_part<C, S: Partitioned>(
    init: &S,
    history: &[Operation<C, S>],
    budget: Budget,
) -> Verdict<S::Part> {
    let mut parts: BTreeMap<S::Part, Vec<usize>> = BTreeMap::new();
    for (i, operation) in history.iter().enumerate() {
        parts.entry(S::part(&operation.op)).or_default().push(i);
    }
    let mut left = budget.0;
    let mut unknown = None;
    for (part, members) in parts {
        match part_verdict(init, history, &members, &mut left) {
            PartVerdict::Yes => {}
            PartVerdict::No(window) => return Verdict::Violation(window.in_part(Some(part))),
            PartVerdict::OutOfBudget => {
                unknown.get_or_insert(part);
            }
        }
    }
    match unknown {
        None => Verdict::Linearizable,
        Some(part) => Verdict::Unknown {
            part: Some(part),
            steps: budget.0,
        },
    }
}

impl<P> Window<P> {
    fn in_part<Q>(self, part: Option<Q>) -> Window<Q> {
        Window {
            part,
            culprit: self.culprit,
            after: self.after,
            overlapping: self.overlapping,
        }
    }

    /// The window in words: "get(x) by c2 returned 1 after put(x, 2) by c1 had returned, while
    /// put(x, 3) by c3 was in flight" (in Spanish with `es`: "get(x) de c2 devolvió 1 después de
    /// que put(x, 2) de c1 terminó, mientras put(x, 3) de c3 seguía en curso").
    pub fn describe<C: Display, S: Spec>(&self, history: &[Operation<C, S>], es: bool) -> String {
        let by = if es { "de" } else { "by" };
        let call = |i: usize| format!("{} {by} {}", S::describe(&history[i].op), history[i].client);
        let outcome = |i: usize| match &history[i].ret {
            Some((_, ret)) => S::outcome(ret, es),
            None if es => "no terminó".to_owned(),
            None => "never returned".to_owned(),
        };
        let mut text = format!("{} {}", call(self.culprit), outcome(self.culprit));
        if let Some(after) = self.after {
            text += &if es {
                format!(" después de que {} {}", call(after), outcome(after))
            } else {
                format!(" after {} had {}", call(after), outcome(after))
            };
        }
        if !self.overlapping.is_empty() {
            let names: Vec<String> = self.overlapping.iter().map(|&i| call(i)).collect();
            let several = names.len() > 1;
            text += &match (es, several) {
                (false, false) => format!(", while {} was in flight", names[0]),
                (false, true) => format!(", while {} were in flight", names.join(" and ")),
                (true, false) => format!(", mientras {} seguía en curso", names[0]),
                (true, true) => format!(", mientras {} seguían en curso", names.join(" y ")),
            };
        }
        text
    }
}

enum PartVerdict {
    Yes,
    No(Window<()>),
    OutOfBudget,
}

/// An event's place in time: calls before returns at the same time, then by operation.
type EventKey = (u64, bool, usize);

fn return_key<C, S: Spec>(history: &[Operation<C, S>], i: usize) -> EventKey {
    (history[i].ret.as_ref().map_or(u64::MAX, |r| r.0), true, i)
}

fn part_verdict<C, S: Spec>(
    init: &S,
    history: &[Operation<C, S>],
    members: &[usize],
    left: &mut u64,
) -> PartVerdict {
    let whole: Vec<(usize, bool)> = members.iter().map(|&i| (i, true)).collect();
    match search(init, history, &whole, left) {
        Some(true) => PartVerdict::Yes,
        None => PartVerdict::OutOfBudget,
        Some(false) => PartVerdict::No(window(init, history, members, left)),
    }
}

/// The smallest prefix (cut at a return) that no order explains: non-linearizability only grows
/// with the prefix, so a binary search over the returns finds it. A prefix whose search runs
/// out of budget counts as explained (the window is then wider than it could be).
fn window<C, S: Spec>(
    init: &S,
    history: &[Operation<C, S>],
    members: &[usize],
    left: &mut u64,
) -> Window<()> {
    let mut returns: Vec<EventKey> = members
        .iter()
        .filter(|&&i| history[i].ret.is_some())
        .map(|&i| return_key(history, i))
        .collect();
    returns.sort_unstable();
    let prefix = |cut: EventKey| -> Vec<(usize, bool)> {
        members
            .iter()
            .filter(|&&i| (history[i].call, false, i) < cut)
            .map(|&i| (i, return_key(history, i) <= cut))
            .collect()
    };
    // The whole history fails; find the first cut that fails (returns is not empty: a history
    // of pending operations alone is always explained).
    let (mut lo, mut hi) = (0, returns.len().saturating_sub(1));
    while lo < hi {
        let mid = (lo + hi) / 2;
        let mut spend = *left;
        let fails = search(init, history, &prefix(returns[mid]), &mut spend) == Some(false);
        *left = spend;
        if fails {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    let cut = returns
        .get(lo)
        .copied()
        .unwrap_or((u64::MAX, true, usize::MAX));
    let culprit = cut.2.min(history.len().saturating_sub(1));
    let called = (history[culprit].call, false, culprit);
    let after = members
        .iter()
        .filter(|&&i| i != culprit && return_key(history, i) < called)
        .max_by_key(|&&i| return_key(history, i))
        .copied();
    let overlapping = members
        .iter()
        .filter(|&&i| {
            i != culprit && return_key(history, i) > called && (history[i].call, false, i) < cut
        })
        .copied()
        .collect();
    Window {
        part: None,
        culprit,
        after,
        overlapping,
    }
}

/// Wing and Gong's search with Lowe's cache over the operations `ops` (index, and whether its
/// return counts: a cut prefix turns later returns into pending operations). `Some(verdict)`, or
/// `None` when `left` steps ran out.
fn search<C, S: Spec>(
    init: &S,
    history: &[Operation<C, S>],
    ops: &[(usize, bool)],
    left: &mut u64,
) -> Option<bool> {
    let n = ops.len();
    // Events sorted in time; the list's nodes are 1..=2n in that order, 0 is the head.
    let mut events: Vec<(EventKey, usize)> = Vec::with_capacity(2 * n);
    for (k, &(i, returned)) in ops.iter().enumerate() {
        events.push(((history[i].call, false, i), k));
        let ret = if returned {
            return_key(history, i)
        } else {
            (u64::MAX, true, i)
        };
        events.push((ret, k));
    }
    events.sort_unstable();
    const NIL: usize = usize::MAX;
    let mut next: Vec<usize> = (1..=2 * n + 1).collect();
    next[2 * n] = NIL;
    let mut prev: Vec<usize> = (0..=2 * n).map(|x| x.wrapping_sub(1)).collect();
    let mut call_node = vec![0; n];
    let mut ret_node = vec![0; n];
    let mut op_of = vec![(0, false); 2 * n + 1];
    for (pos, &((_, is_return, _), k)) in events.iter().enumerate() {
        let node = pos + 1;
        op_of[node] = (k, !is_return);
        if is_return {
            ret_node[k] = node;
        } else {
            call_node[k] = node;
        }
    }
    let unlink = |next: &mut [usize], prev: &mut [usize], x: usize| {
        next[prev[x]] = next[x];
        if next[x] != NIL {
            prev[next[x]] = prev[x];
        }
    };
    let relink = |next: &mut [usize], prev: &mut [usize], x: usize| {
        next[prev[x]] = x;
        if next[x] != NIL {
            prev[next[x]] = x;
        }
    };
    let mut linearized = vec![0u64; n.div_ceil(64)];
    let mut seen: BTreeSet<u128> = BTreeSet::new();
    let mut bytes = Vec::new();
    let mut stack: Vec<(usize, S)> = Vec::new();
    let mut state = init.clone();
    let mut node = next[0];
    while next[0] != NIL {
        *left = left.checked_sub(1)?;
        let (k, is_call) = op_of[node];
        if is_call {
            let (i, returned) = ops[k];
            let mut after = state.clone();
            let got = after.invoke(&history[i].op);
            let explained = match (&history[i].ret, returned) {
                (Some((_, seen_ret)), true) => got == *seen_ret,
                _ => true,
            };
            if explained {
                linearized[k / 64] |= 1 << (k % 64);
                if seen.insert(fingerprint(&linearized, &after, &mut bytes)) {
                    stack.push((k, std::mem::replace(&mut state, after)));
                    unlink(&mut next, &mut prev, call_node[k]);
                    unlink(&mut next, &mut prev, ret_node[k]);
                    node = next[0];
                    continue;
                }
                linearized[k / 64] &= !(1 << (k % 64));
            }
            node = next[node];
        } else {
            // A return whose operation is not linearized: undo the last choice.
            let Some((k, before)) = stack.pop() else {
                return Some(false);
            };
            linearized[k / 64] &= !(1 << (k % 64));
            relink(&mut next, &mut prev, ret_node[k]);
            relink(&mut next, &mut prev, call_node[k]);
            state = before;
            node = next[call_node[k]];
        }
    }
    Some(true)
}
