//! Copying a run. A search starts every seed from one built run; `clone_from` makes the copy
//! in the previous seed's run, reusing its buffers (the node list, the queue, the effect
//! buffer, each node's timers), so that a seed allocates only what its own steps need.
//!
//! The macro destructures the whole struct: a field added to `Sim` or `Node` and not listed
//! here does not compile.

use super::{Node, Sim};
use crate::actor::Actor;
use std::sync::Arc;

/// `Clone` for a kernel struct over an actor type, listing its fields once: `copy` fields are
/// assigned, `clone` fields cloned (and, in `clone_from`, cloned into the old value's
/// buffers), `nested` fields are lists of kernel structs, copied element by element, `shared`
/// fields are `Arc`s, which `clone_from` leaves alone when both already point to the same
/// value (a search's sibling states share most nodes' states: no reference count to bump and
/// drop).
///
/// It also makes `copy_owning_from`: `clone_from`, except that a `shared` value this one holds
/// alone is copied into (its allocation reused) rather than replaced by the source's.
macro_rules! clone_reusing_buffers {
    ($ty:ident {
        copy: [$($copy:ident),* $(,)?],
        clone: [$($clone:ident),* $(,)?],
        nested: [$($nested:ident),* $(,)?],
        shared: [$($shared:ident),* $(,)?] $(,)?
    }) => {
        impl<A: Actor> Clone for $ty<A> {
            fn clone(&self) -> Self {
                let $ty { $($copy,)* $($clone,)* $($nested,)* $($shared,)* } = self;
                $ty {
                    $($copy: *$copy,)*
                    $($clone: $clone.clone(),)*
                    $($nested: $nested.clone(),)*
                    $($shared: Arc::clone($shared),)*
                }
            }

            fn clone_from(&mut self, source: &Self) {
                let $ty { $($copy,)* $($clone,)* $($nested,)* $($shared,)* } = source;
                $(self.$copy = *$copy;)*
                $(self.$clone.clone_from($clone);)*
                $(self.$nested.clone_from($nested);)*
                $(
                    if !Arc::ptr_eq(&self.$shared, $shared) {
                        self.$shared = Arc::clone($shared);
                    }
                )*
            }
        }

        impl<A: Actor> $ty<A> {
            fn copy_owning_from(&mut self, source: &Self) {
                let $ty { $($copy,)* $($clone,)* $($nested,)* $($shared,)* } = source;
                $(self.$copy = *$copy;)*
                $(self.$clone.clone_from($clone);)*
                $(
                    let mine = &mut self.$nested;
                    mine.truncate($nested.len());
                    for (mine, theirs) in mine.iter_mut().zip($nested.iter()) {
                        mine.copy_owning_from(theirs);
                    }
                    let kept = mine.len();
                    mine.extend_from_slice(&$nested[kept..]);
                )*
                $(
                    if !Arc::ptr_eq(&self.$shared, $shared) {
                        match Arc::get_mut(&mut self.$shared) {
                            Some(mine) => mine.clone_from($shared),
                            None => self.$shared = Arc::clone($shared),
                        }
                    }
                )*
            }
        }
    };
}

/// Copying a whole run into this one without sharing its nodes' states.
impl<A: Actor> Sim<A> {
    /// Becomes a copy of `template`, as `clone_from` does, except that each node's actor and
    /// facts are copied into this run's own allocations where it holds them alone, instead of
    /// shared with `template`. A search that restarts every seed from one built run then
    /// allocates no node state per seed: shared, each would be copied again (copy on write)
    /// at the node's first step. An exhaustive search's sibling states want `clone_from`,
    /// which shares what a step leaves alone.
    pub fn restart_from(&mut self, template: &Self) {
        self.copy_owning_from(template);
    }
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
    clone: [queue, network, checker, trace, effects, twins],
    nested: [nodes],
    shared: [],
});

clone_reusing_buffers!(Node {
    copy: [status, hash, dirty],
    clone: [draws, timers],
    nested: [],
    shared: [actor, facts],
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NodeId;
    use crate::actor::Context;
    use crate::kernel::SimConfig;
    use crate::testing::Ping;

    /// Node 0 pings the other two at its start; a node counts the pings it got.
    #[derive(Clone, Debug, Hash)]
    struct Counter(u32);
    impl Actor for Counter {
        type Msg = Ping;
        type Timer = ();
        type Note = ();
        type Command = ();
        fn on_start(&mut self, ctx: &mut Context<'_, Self>) {
            if ctx.id() == NodeId(0) {
                ctx.send(NodeId(1), Ping);
                ctx.send(NodeId(2), Ping);
            }
        }
        fn on_message(&mut self, _: &mut Context<'_, Self>, _: NodeId, _: Ping) {
            self.0 += 1;
        }
        fn on_timer(&mut self, _: &mut Context<'_, Self>, _: ()) {}
    }

    /// A run restarted from a template is the template's copy, as a clone is, and goes on to
    /// the same end; it keeps the node states it held alone (their allocations reused), and
    /// shares the ones it shared.
    #[test]
    fn a_restarted_run_is_the_template_in_its_own_node_states() {
        let mut template = Sim::new(SimConfig::seeded(7));
        for name in ["a", "b", "c"] {
            template.add_node(name, Counter(0));
        }
        let mut run = template.clone();
        run.run();
        let owned: Vec<*const Counter> = run.nodes.iter().map(|n| Arc::as_ptr(&n.actor)).collect();
        for node in &run.nodes {
            assert_eq!(
                Arc::strong_count(&node.actor),
                1,
                "a step copied it on write"
            );
        }
        let shared_facts = Arc::as_ptr(&run.nodes[0].facts);

        run.restart_from(&template);
        assert_eq!(format!("{run:?}"), format!("{template:?}"));
        for (node, &before) in run.nodes.iter().zip(&owned) {
            assert_eq!(Arc::as_ptr(&node.actor), before, "copied into its own");
        }
        assert_eq!(
            Arc::as_ptr(&run.nodes[0].facts),
            shared_facts,
            "facts no step wrote stay shared with the template"
        );
        let mut cloned = template.clone();
        assert_eq!(format!("{:?}", run.run()), format!("{:?}", cloned.run()));
        assert_eq!(format!("{run:?}"), format!("{cloned:?}"));
    }
}
