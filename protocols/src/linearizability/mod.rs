//! Linearizability of a concurrent history (Herlihy and Wing): is there one order of the
//! operations, each taking effect at an instant between its invocation and its return, in
//! which a sequential object gives every return that was seen?
//!
//! [`History`] records, per client (a "thread"), its operations in order: each completed one
//! with its return, the last one possibly still pending. For real-time order it keeps what
//! stateright's `LinearizabilityTester` keeps: with each invocation, how many operations every
//! other client had completed by then, so "A returned before B was invoked" is a fact of the
//! history, not of a clock. [`History::linearization`] searches for an order as Wing and Gong
//! do (try each client's next operation that nothing unlinearized must precede; backtrack),
//! with Lowe's improvement: a configuration (how far each client is linearized, the object's
//! state) already explored is not explored again. A pending operation may take effect (with
//! whatever its return would be) or not at all.
//!
//! Any object with a sequential specification ([`Spec`]) can be checked: [`Register`] is the
//! one the register model and the ring store's reads and writes need, [`KvMap`] a key-value
//! store's. A history observed with times (a trace's calls and returns) is checked by
//! [`check`] and, split by key, by [`check_by_part`], with a bound on the work (module `timed`). The history is `Hash`,
//! so a model checker can keep it as ghost state (two states with different histories are
//! different states). A search keeps millions of such histories, most of them a copy of
//! another with one operation more: so clients are a sorted list (not a map), each client's
//! record is shared between copies until it changes, and real-time facts are small sorted
//! slices; a copy allocates one short list, and a change copies one client's record.

mod kv;
mod timed;
#[cfg(test)]
mod timed_tests;

pub use kv::{KvMap, KvOp, KvRet};
pub use timed::{Budget, Operation, Partitioned, Verdict, Window, check, check_by_part};

use std::collections::BTreeSet;
use std::fmt::Debug;
use std::hash::Hash;
use std::sync::Arc;

/// A sequential object: its operations and what each returns, one at a time.
pub trait Spec: Clone + Debug + Hash + Ord {
    /// An operation ("write 'A'", "read").
    type Op: Clone + Debug + Hash + Eq;
    /// What an operation returns ("ok", "read 'A'").
    type Ret: Clone + Debug + Hash + Eq;
    /// Applies `op` to the object; what it returns.
    fn invoke(&mut self, op: &Self::Op) -> Self::Ret;

    /// An operation in words, for a failure's message: "get(x)".
    fn describe(op: &Self::Op) -> String {
        format!("{op:?}")
    }

    /// What an operation returned, in words that follow "had" as well as a name: "returned 1"
    /// (in Spanish, `es`, a past tense: "devolvió 1").
    fn outcome(ret: &Self::Ret, es: bool) -> String {
        if es {
            format!("devolvió {ret:?}")
        } else {
            format!("returned {ret:?}")
        }
    }
}

/// A read/write register holding a `V`, starting at its initial value.
#[derive(Clone, Debug, Hash, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Register<V>(pub V);

/// An operation on a [`Register`].
#[derive(
    Clone, Debug, Hash, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum RegisterOp<V> {
    /// Store a value.
    Write(V),
    /// Fetch the value.
    Read,
}

/// What an operation on a [`Register`] returns.
#[derive(
    Clone, Debug, Hash, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum RegisterRet<V> {
    /// A write is done.
    WriteOk,
    /// A read saw this value.
    ReadOk(V),
}

impl<V: Clone + Debug + Hash + Ord> Spec for Register<V> {
    type Op = RegisterOp<V>;
    type Ret = RegisterRet<V>;
    fn invoke(&mut self, op: &RegisterOp<V>) -> RegisterRet<V> {
        match op {
            RegisterOp::Write(v) => {
                self.0 = v.clone();
                RegisterRet::WriteOk
            }
            RegisterOp::Read => RegisterRet::ReadOk(self.0.clone()),
        }
    }
}

/// For each other client (sorted by client), the index of its last operation completed before
/// an invocation: that one (and those before it) must take effect first.
type After<T> = Box<[(T, usize)]>;

/// A completed operation.
#[derive(Clone, Debug, Hash, PartialEq, Eq)]
struct Completed<T: Ord, S: Spec> {
    after: After<T>,
    op: S::Op,
    ret: S::Ret,
}

/// One client's operations: those completed, in order, and the one pending, if any.
#[derive(Clone, Debug, Hash, PartialEq, Eq)]
struct Thread<T: Ord, S: Spec> {
    done: Vec<Completed<T, S>>,
    pending: Option<(After<T>, S::Op)>,
}

impl<T: Ord, S: Spec> Default for Thread<T, S> {
    fn default() -> Self {
        Thread {
            done: Vec::new(),
            pending: None,
        }
    }
}

/// A concurrent history of operations on an object `S`, by clients named by `T`.
#[derive(Clone, Debug, Hash, PartialEq, Eq)]
pub struct History<T: Ord, S: Spec> {
    init: S,
    /// Each client's operations, sorted by client.
    threads: Vec<(T, Arc<Thread<T, S>>)>,
    /// Why the history itself is malformed (a client invoked twice without a return, or
    /// returned without an invocation): no object explains it then.
    malformed: Option<String>,
}

/// One step of a linearization: a client, its operation and what it returned (for a pending
/// operation, what it would return at that point).
pub type Step<T, S> = (T, <S as Spec>::Op, <S as Spec>::Ret);

impl<T: Clone + Debug + Hash + Ord, S: Spec> History<T, S> {
    /// An empty history of an object that starts as `init`.
    pub fn new(init: S) -> Self {
        History {
            init,
            threads: Vec::new(),
            malformed: None,
        }
    }

    /// `client`'s operations, for a change (added, empty, if it has none yet).
    fn thread_mut(&mut self, client: &T) -> &mut Thread<T, S> {
        let i = match self.threads.binary_search_by(|(id, _)| id.cmp(client)) {
            Ok(i) => i,
            Err(i) => {
                self.threads
                    .insert(i, (client.clone(), Arc::new(Thread::default())));
                i
            }
        };
        Arc::make_mut(&mut self.threads[i].1)
    }

    /// `client` invoked `op`.
    pub fn invoke(&mut self, client: T, op: S::Op) {
        if self.malformed.is_some() {
            return;
        }
        let after: After<T> = self
            .threads
            .iter()
            .filter(|(id, t)| *id != client && !t.done.is_empty())
            .map(|(id, t)| (id.clone(), t.done.len() - 1))
            .collect();
        let thread = self.thread_mut(&client);
        if let Some((_, old)) = &thread.pending {
            self.malformed = Some(format!(
                "{client:?} invoked {op:?} while its {old:?} had not returned"
            ));
            return;
        }
        thread.pending = Some((after, op));
    }

    /// `client`'s pending operation returned `ret`.
    pub fn ret(&mut self, client: T, ret: S::Ret) {
        if self.malformed.is_some() {
            return;
        }
        let thread = self.thread_mut(&client);
        match thread.pending.take() {
            Some((after, op)) => thread.done.push(Completed { after, op, ret }),
            None => {
                self.malformed = Some(format!("{client:?} got {ret:?} with no operation pending"))
            }
        }
    }

    /// Every operation so far, completed or pending.
    pub fn len(&self) -> usize {
        self.threads
            .iter()
            .map(|(_, t)| t.done.len() + usize::from(t.pending.is_some()))
            .sum()
    }

    /// Whether nothing was invoked yet.
    pub fn is_empty(&self) -> bool {
        self.threads.is_empty()
    }

    /// Why the history is malformed, if it is.
    pub fn malformed(&self) -> Option<&str> {
        self.malformed.as_deref()
    }

    /// An order of the operations in which the object explains every return, and which keeps
    /// real-time order; `None` if there is none (the history is not linearizable). Pending
    /// operations appear in it only where they had to take effect.
    pub fn linearization(&self) -> Option<Vec<Step<T, S>>> {
        if self.malformed.is_some() {
            return None;
        }
        let threads: Vec<(&T, &Thread<T, S>)> =
            self.threads.iter().map(|(id, t)| (id, &**t)).collect();
        let mut search = Search {
            threads: &threads,
            pos: vec![0; threads.len()],
            took_pending: vec![false; threads.len()],
            seen: BTreeSet::new(),
            order: Vec::new(),
        };
        search.run(self.init.clone()).then_some(search.order)
    }

    /// The history in words, client by client: "client-3: Write('A') -> WriteOk, Read ...".
    pub fn describe(&self) -> String {
        self.threads
            .iter()
            .map(|(id, t)| {
                let mut ops: Vec<String> = t
                    .done
                    .iter()
                    .map(|c| format!("{:?} -> {:?}", c.op, c.ret))
                    .collect();
                if let Some((_, op)) = &t.pending {
                    ops.push(format!("{op:?} (pending)"));
                }
                format!("{id:?}: {}", ops.join(", "))
            })
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// Wing and Gong's search, with Lowe's cache of configurations already explored.
struct Search<'a, T: Ord, S: Spec> {
    threads: &'a [(&'a T, &'a Thread<T, S>)],
    /// Per client, how many of its completed operations are linearized.
    pos: Vec<usize>,
    /// Per client, whether its pending operation is linearized.
    took_pending: Vec<bool>,
    seen: BTreeSet<(Vec<usize>, Vec<bool>, S)>,
    order: Vec<Step<T, S>>,
}

impl<T: Clone + Ord, S: Spec> Search<'_, T, S> {
    /// Whether every operation that `after` says must come first is linearized.
    fn ready(&self, after: &After<T>) -> bool {
        after.iter().all(|&(ref peer, last)| {
            self.threads
                .binary_search_by(|(id, _)| (*id).cmp(peer))
                .is_ok_and(|i| self.pos[i] > last)
        })
    }

    /// Whether the rest of the history can be linearized from `object`.
    fn run(&mut self, object: S) -> bool {
        if self
            .threads
            .iter()
            .zip(&self.pos)
            .all(|((_, t), &p)| p == t.done.len())
        {
            return true;
        }
        if !self
            .seen
            .insert((self.pos.clone(), self.took_pending.clone(), object.clone()))
        {
            return false;
        }
        for i in 0..self.threads.len() {
            let (id, thread) = self.threads[i];
            if let Some(next) = thread.done.get(self.pos[i]) {
                if !self.ready(&next.after) {
                    continue;
                }
                let mut after = object.clone();
                if after.invoke(&next.op) != next.ret {
                    continue;
                }
                self.pos[i] += 1;
                self.order
                    .push((id.clone(), next.op.clone(), next.ret.clone()));
                if self.run(after) {
                    return true;
                }
                self.order.pop();
                self.pos[i] -= 1;
            } else if let Some((before, op)) = &thread.pending
                && !self.took_pending[i]
                && self.ready(before)
            {
                let mut after = object.clone();
                let ret = after.invoke(op);
                self.took_pending[i] = true;
                self.order.push((id.clone(), op.clone(), ret));
                if self.run(after) {
                    return true;
                }
                self.order.pop();
                self.took_pending[i] = false;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type H = History<&'static str, Register<char>>;
    use RegisterOp::{Read, Write};
    use RegisterRet::{ReadOk, WriteOk};

    fn history() -> H {
        History::new(Register('\0'))
    }

    #[test]
    fn a_read_after_a_completed_write_must_see_it() {
        let mut h = history();
        h.invoke("a", Write('A'));
        h.ret("a", WriteOk);
        h.invoke("b", Read);
        h.ret("b", ReadOk('\0'));
        assert!(h.linearization().is_none(), "{}", h.describe());
        let mut ok = history();
        ok.invoke("a", Write('A'));
        ok.ret("a", WriteOk);
        ok.invoke("b", Read);
        ok.ret("b", ReadOk('A'));
        assert_eq!(ok.linearization().map(|l| l.len()), Some(2));
    }

    #[test]
    fn overlapping_operations_may_take_effect_in_either_order() {
        // b's read overlaps a's write: it may see the old value or the new one.
        for seen in ['\0', 'A'] {
            let mut h = history();
            h.invoke("a", Write('A'));
            h.invoke("b", Read);
            h.ret("b", ReadOk(seen));
            h.ret("a", WriteOk);
            assert!(h.linearization().is_some(), "read {seen:?}");
        }
    }

    #[test]
    fn a_pending_write_may_explain_a_read_or_be_left_out() {
        let mut h = history();
        h.invoke("a", Write('A'));
        h.invoke("b", Read);
        h.ret("b", ReadOk('A'));
        let order = h.linearization().expect("the pending write took effect");
        assert_eq!(order[0], ("a", Write('A'), WriteOk));
        let mut h = history();
        h.invoke("a", Write('A'));
        h.invoke("b", Read);
        h.ret("b", ReadOk('\0'));
        assert_eq!(h.linearization().map(|l| l.len()), Some(1));
    }

    #[test]
    fn two_readers_cannot_see_two_writes_in_opposite_orders() {
        // Writes of A and B overlap; then c reads A then B while d reads B then A.
        let mut h = history();
        h.invoke("a", Write('A'));
        h.invoke("b", Write('B'));
        h.ret("a", WriteOk);
        h.ret("b", WriteOk);
        for (client, first, second) in [("c", 'A', 'B'), ("d", 'B', 'A')] {
            h.invoke(client, Read);
            h.ret(client, ReadOk(first));
            h.invoke(client, Read);
            h.ret(client, ReadOk(second));
        }
        assert!(h.linearization().is_none());
    }

    #[test]
    fn a_malformed_history_is_not_linearizable_and_says_why() {
        let mut h = history();
        h.invoke("a", Read);
        h.invoke("a", Read);
        assert!(h.linearization().is_none());
        assert!(h.malformed().unwrap().contains("had not returned"));
        let mut h = history();
        h.ret("a", WriteOk);
        assert!(h.malformed().unwrap().contains("no operation pending"));
    }

    #[test]
    fn the_real_time_facts_are_part_of_the_history() {
        // The same operations, one after the other or overlapping, are two histories.
        let mut sequential = history();
        sequential.invoke("a", Write('A'));
        sequential.ret("a", WriteOk);
        sequential.invoke("b", Read);
        let mut overlapping = history();
        overlapping.invoke("a", Write('A'));
        overlapping.invoke("b", Read);
        overlapping.ret("a", WriteOk);
        assert_ne!(sequential, overlapping);
        assert_ne!(
            sim_core::hash::stable_hash(&sequential),
            sim_core::hash::stable_hash(&overlapping)
        );
    }
}
