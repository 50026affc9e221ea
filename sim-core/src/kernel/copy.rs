//! Copying a run. A search starts every seed from one built run; `clone_from` makes the copy
//! in the previous seed's run, reusing its buffers (the node list, the queue, the effect
//! buffer, each node's timers and, in a timed run, its state), so that a seed allocates only
//! what its own steps need.
//!
//! The macro destructures the whole struct: a field added to `Sim` or `Node` and not listed
//! here does not compile.

use super::{Node, Sim};
use crate::actor::Actor;

/// `Clone` for a kernel struct over an actor type, listing its fields once: `copy` fields are
/// assigned, `clone` fields cloned (and, in `clone_from`, cloned into the old value's
/// buffers); `held` fields are a node's state, owned or shared (see `held`), which
/// `clone_from` copies into an owned one's allocation and leaves alone when both already share
/// one value.
macro_rules! clone_reusing_buffers {
    ($ty:ident {
        copy: [$($copy:ident),* $(,)?],
        clone: [$($clone:ident),* $(,)?],
        held: [$($held:ident),* $(,)?] $(,)?
    }) => {
        impl<A: Actor> Clone for $ty<A> {
            fn clone(&self) -> Self {
                let $ty { $($copy,)* $($clone,)* $($held,)* } = self;
                $ty {
                    $($copy: *$copy,)*
                    $($clone: $clone.clone(),)*
                    $($held: $held.clone(),)*
                }
            }

            fn clone_from(&mut self, source: &Self) {
                let $ty { $($copy,)* $($clone,)* $($held,)* } = source;
                $(self.$copy = *$copy;)*
                $(self.$clone.clone_from($clone);)*
                $(self.$held.clone_from($held);)*
            }
        }
    };
}

clone_reusing_buffers!(Sim {
    copy: [
        seed,
        limits,
        stop_on_violation,
        progress,
        role_restarts,
        untimed,
    ],
    clone: [nodes, queue, network, checker, trace, effects, twins],
    held: [],
});

clone_reusing_buffers!(Node {
    copy: [status, hash, dirty],
    clone: [draws, timers],
    held: [actor, facts],
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::SimConfig;
    use crate::kernel::held::Held;
    use crate::testing::Counter;

    /// A timed run copied from a template (as a search starts each seed) is the template's
    /// copy, as a clone is, and goes on to the same end; it copies the nodes' states into the
    /// ones it owns, their allocations reused.
    #[test]
    fn a_timed_run_copied_from_a_template_keeps_its_own_node_states() {
        let mut template = Sim::new(SimConfig::seeded(7));
        for name in ["a", "b", "c"] {
            template.add_node(name, Counter(0));
        }
        let mut run = template.clone();
        run.run();
        let own = |sim: &Sim<Counter>| -> Vec<*const Counter> {
            sim.nodes
                .iter()
                .map(|n| &*n.actor as *const Counter)
                .collect()
        };
        let before = own(&run);
        assert!(
            run.nodes.iter().all(|n| matches!(n.actor, Held::Own(_))),
            "a timed run owns its nodes' states"
        );

        run.clone_from(&template);
        assert_eq!(format!("{run:?}"), format!("{template:?}"));
        assert_eq!(own(&run), before, "copied into its own");
        let mut cloned = template.clone();
        assert_eq!(format!("{:?}", run.run()), format!("{:?}", cloned.run()));
        assert_eq!(format!("{run:?}"), format!("{cloned:?}"));
    }
}
