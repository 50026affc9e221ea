//! Copying a run. A search starts every seed from one built run; `clone_from` makes the copy
//! in the previous seed's run, reusing its buffers (the node list, the queue, the effect
//! buffer, each node's timers), so that a seed allocates only what its own steps need.
//!
//! The macro destructures the whole struct: a field added to `Sim` or `Node` and not listed
//! here does not compile.

use super::{Node, Sim};
use crate::actor::Actor;

/// `Clone` for a kernel struct over an actor type, listing its fields once: `copy` fields are
/// assigned, `clone` fields cloned (and, in `clone_from`, cloned into the old value's
/// buffers), `shared` fields are `Arc`s, which `clone_from` leaves alone when both already
/// point to the same value (a search's sibling states share most nodes' states: no reference
/// count to bump and drop).
macro_rules! clone_reusing_buffers {
    ($ty:ident {
        copy: [$($copy:ident),* $(,)?],
        clone: [$($clone:ident),* $(,)?],
        shared: [$($shared:ident),* $(,)?] $(,)?
    }) => {
        impl<A: Actor> Clone for $ty<A> {
            fn clone(&self) -> Self {
                let $ty { $($copy,)* $($clone,)* $($shared,)* } = self;
                $ty {
                    $($copy: *$copy,)*
                    $($clone: $clone.clone(),)*
                    $($shared: std::sync::Arc::clone($shared),)*
                }
            }

            fn clone_from(&mut self, source: &Self) {
                let $ty { $($copy,)* $($clone,)* $($shared,)* } = source;
                $(self.$copy = *$copy;)*
                $(self.$clone.clone_from($clone);)*
                $(
                    if !std::sync::Arc::ptr_eq(&self.$shared, $shared) {
                        self.$shared = std::sync::Arc::clone($shared);
                    }
                )*
            }
        }
    };
}

clone_reusing_buffers!(Sim {
    copy: [
        seed,
        limits,
        stop_on_violation,
        now,
        steps,
        steps_this_instant,
        next_msg,
        next_generation,
        in_flight,
        stats,
        stopped,
        role_restarts,
        untimed,
    ],
    clone: [nodes, queue, network, checker, trace, effects, twins],
    shared: [],
});

clone_reusing_buffers!(Node {
    copy: [status, hash, dirty],
    clone: [draws, timers],
    shared: [actor, facts],
});
