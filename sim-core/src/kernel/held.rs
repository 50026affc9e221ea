//! How a run holds each node's state: its own, or shared between copies of a state.
//!
//! An untimed search keeps millions of states that differ in a node or two, so there a node's
//! actor and facts are shared between copies until a step changes them (copy on write, as
//! stateright's states share theirs). A timed run's copies go their own ways (a search copies
//! one built run per seed, and every seed's steps touch every node), so sharing buys nothing
//! there, and it costs: reaching a shared value to change it asks its reference count whether
//! it is alone, an atomic operation on every step. A timed run therefore owns its nodes' state
//! outright, and [`Held::share`] turns it into shared state when a run goes untimed.

use std::sync::Arc;

/// A node's state, owned or shared (see the module's documentation). It prints, hashes and
/// compares as the value alone, whichever way it is held: state hashes and fingerprints, and
/// tests that compare runs' `Debug` text, must not tell two ways of holding one state apart.
pub(super) enum Held<T> {
    /// This run's alone: changed in place, copied whole with the run.
    Own(Box<T>),
    /// Shared with other copies of a state until one of them changes it.
    Shared(Arc<T>),
}

impl<T: Clone> Held<T> {
    /// Owned, or shared when `shared` (a node added to an untimed run).
    pub(super) fn new(value: T, shared: bool) -> Self {
        if shared {
            Held::Shared(Arc::new(value))
        } else {
            Held::Own(Box::new(value))
        }
    }

    /// The value, to change: in place when owned or shared with no other copy, else a copy of
    /// its own first.
    #[inline]
    pub(super) fn make_mut(&mut self) -> &mut T {
        match self {
            Held::Own(value) => value,
            Held::Shared(value) => Arc::make_mut(value),
        }
    }

    /// Shared from now on: an untimed run's copies share it.
    pub(super) fn share(&mut self) {
        if let Held::Own(value) = self {
            *self = Held::Shared(Arc::new((**value).clone()));
        }
    }

    /// Becomes `source` shared: what a packed state's node holds.
    pub(super) fn set_shared(&mut self, source: &Arc<T>) {
        if !matches!(self, Held::Shared(mine) if Arc::ptr_eq(mine, source)) {
            *self = Held::Shared(Arc::clone(source));
        }
    }

    /// The shared handle: only an untimed run packs its states, and its nodes' states are
    /// all shared (`go_untimed` makes them so).
    pub(super) fn shared(&self) -> &Arc<T> {
        match self {
            Held::Shared(value) => value,
            Held::Own(_) => {
                panic!("a packed state is an untimed run's, whose node states are shared")
            }
        }
    }
}

impl<T> std::ops::Deref for Held<T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        match self {
            Held::Own(value) => value,
            Held::Shared(value) => value,
        }
    }
}

impl<T: Clone> Clone for Held<T> {
    /// An owned value is copied; a shared one shared once more.
    fn clone(&self) -> Self {
        match self {
            Held::Own(value) => Held::Own(value.clone()),
            Held::Shared(value) => Held::Shared(Arc::clone(value)),
        }
    }

    /// Copies an owned value into this one's allocation; leaves a shared one alone when both
    /// already share it (a search's sibling states share most nodes' states: no reference
    /// count to bump and drop).
    fn clone_from(&mut self, source: &Self) {
        match (&mut *self, source) {
            (Held::Own(mine), Held::Own(theirs)) => (**mine).clone_from(theirs),
            (Held::Shared(mine), Held::Shared(theirs)) if Arc::ptr_eq(mine, theirs) => {}
            _ => *self = source.clone(),
        }
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Held<T> {
    /// As the value (see [`Held`]).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

impl<T: std::hash::Hash> std::hash::Hash for Held<T> {
    /// As the value (see [`Held`]): never derived, which would hash how it is held too.
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (**self).hash(state);
    }
}
