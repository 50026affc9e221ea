//! The protected resource (the lesson's database): it accepts the leader's writes, and with
//! fencing on it rejects a write whose token is lower than the highest it has accepted, the
//! `UPDATE outbox ... WHERE lider_revision <= %s` of the lesson. Durable.

use crate::lease::msg::{LeaseMsg, Revision};
use crate::lease::notes::LeaseNote;
use crate::lease::setup::{Ctx, Handler, Shared};
use sim_core::NodeId;

/// The resource's state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Resource {
    setup: Shared,
    /// The highest token of an accepted write (0: none yet).
    highest: Revision,
}

impl Resource {
    /// A resource that has accepted nothing.
    pub fn new(setup: Shared) -> Resource {
        Resource { setup, highest: 0 }
    }

    /// A write from a leader.
    pub fn on_message<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>, from: NodeId, msg: LeaseMsg) {
        let LeaseMsg::Write { token, .. } = msg else {
            return;
        };
        let writer = self.setup.name(from);
        let checks = self.setup.fencing && !self.setup.bugs.resource_ignores_tokens;
        if checks && token < self.highest {
            ctx.note(LeaseNote::Rejected {
                writer,
                token,
                highest: self.highest,
            });
            return;
        }
        ctx.note(LeaseNote::Accepted {
            writer,
            token,
            highest: self.highest,
        });
        self.highest = self.highest.max(token);
    }
}
