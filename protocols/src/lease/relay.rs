//! A relay instance, as `relay_lider.py` runs it: get a lease, try the transaction; the winner
//! works a round (its write to the resource at the round's end), refreshes its lease, sleeps,
//! and again; it stops leading the moment a refresh fails (no answer within the RPC timeout,
//! or TTL 0), revokes, and races again. The others read the key and wait on a watch until the
//! key is deleted, then race. As a safety net a leader also stops at its last successful
//! refresh + TTL - margin, judged by its own clock (a slow clock judges late).
//!
//! A relay is a process: a crash (kill -9) loses everything, and a restart races afresh.

use crate::lease::msg::{LeaseId, LeaseMsg, LeaseTimer, Revision};
use crate::lease::notes::{LeaseNote, StepDown};
use crate::lease::setup::{Ctx, Handler, Shared};
use sim_core::{Duration, Instant};

/// What the relay is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Asked for a lease.
    Granting,
    /// Sent the transaction with this lease.
    Trying(LeaseId),
    /// Leads with this lease and fencing token.
    Leading {
        /// Its lease.
        lease: LeaseId,
        /// Its key's `mod_revision`.
        token: Revision,
    },
    /// Lost the race: reading the key.
    Reading,
    /// Waiting on a watch for the key's deletion.
    Watching,
    /// Shut down cleanly: does nothing more.
    Stopped,
}

/// Which call to the store is unanswered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Call {
    Grant,
    Txn,
    Get,
    KeepAlive,
}

impl Call {
    fn name(self) -> &'static str {
        match self {
            Call::Grant => "grant",
            Call::Txn => "txn",
            Call::Get => "get",
            Call::KeepAlive => "refresh",
        }
    }
}

/// A relay's state. All of it is volatile.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Relay {
    setup: Shared,
    phase: Phase,
    /// The number of the last call, and which call it is while unanswered.
    call: u64,
    pending: Option<Call>,
    /// Rounds of work done as leader.
    round: u64,
    /// When (by its own clock) the lease was last known alive: the grant's request, then each
    /// successful refresh's.
    alive_since: Instant,
    /// When the unanswered call was sent (by its own clock).
    sent_at: Instant,
}

impl Relay {
    /// A relay about to race.
    pub fn new(setup: Shared) -> Relay {
        Relay {
            setup,
            phase: Phase::Granting,
            call: 0,
            pending: None,
            round: 0,
            alive_since: Instant::ZERO,
            sent_at: Instant::ZERO,
        }
    }

    /// What it is doing.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Whether it believes it leads.
    pub fn is_leading(&self) -> bool {
        matches!(self.phase, Phase::Leading { .. })
    }

    /// A (re)start: race for the key.
    pub fn on_start<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>) {
        *self = Relay::new(self.setup.clone());
        self.race(ctx);
    }

    /// A crash loses the process's state (the kernel cancels its timers).
    pub fn on_crash(&mut self) {
        *self = Relay::new(self.setup.clone());
    }

    /// A clean shutdown: revoke the lease (so the key goes at once) and stop.
    pub fn shut_down<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>) {
        if let Phase::Leading { lease, .. } = self.phase {
            ctx.send(self.setup.store(), LeaseMsg::Revoke { lease });
            ctx.note(LeaseNote::StepsDown {
                why: StepDown::Shutdown,
            });
        }
        for timer in [
            LeaseTimer::Rpc,
            LeaseTimer::Round,
            LeaseTimer::WorkDone,
            LeaseTimer::Deadline,
            LeaseTimer::Recheck,
            LeaseTimer::Retry,
        ] {
            ctx.cancel_timer(timer);
        }
        self.phase = Phase::Stopped;
        self.pending = None;
    }

    /// Sends `msg` (call number `call` in it) to the store and waits for its answer.
    fn ask<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>, call: Call, msg: LeaseMsg) {
        self.pending = Some(call);
        self.sent_at = ctx.local_clock();
        ctx.send(self.setup.store(), msg);
        ctx.set_timer(LeaseTimer::Rpc, self.setup.rpc_timeout);
    }

    /// The next call number.
    fn next_call(&mut self) -> u64 {
        self.call += 1;
        self.call
    }

    /// `lease = cliente.lease(TTL)`: the race starts with a lease.
    fn race<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>) {
        self.phase = Phase::Granting;
        let call = self.next_call();
        let ttl_ms = self.setup.ttl.as_millis();
        self.ask(ctx, Call::Grant, LeaseMsg::Grant { call, ttl_ms });
    }

    /// A message from the store (the resource never answers).
    pub fn on_message<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>, msg: LeaseMsg) {
        if self.phase == Phase::Stopped {
            return;
        }
        match msg {
            LeaseMsg::Granted { call, lease } if self.answers(call, Call::Grant) => {
                self.settle(ctx);
                ctx.note(LeaseNote::Granted { lease });
                // The lease lives TTL from when the store granted it, which is after we asked.
                self.alive_since = self.sent_at;
                self.phase = Phase::Trying(lease);
                let call = self.next_call();
                let msg = LeaseMsg::Txn {
                    call,
                    key: self.setup.key.clone(),
                    value: self.setup.name(ctx.id()),
                    lease,
                };
                self.ask(ctx, Call::Txn, msg);
            }
            LeaseMsg::TxnReply {
                call,
                succeeded,
                revision,
            } if self.answers(call, Call::Txn) => {
                self.settle(ctx);
                let Phase::Trying(lease) = self.phase else {
                    return;
                };
                if succeeded {
                    self.phase = Phase::Leading {
                        lease,
                        token: revision,
                    };
                    ctx.note(LeaseNote::Leads {
                        key: self.setup.key.clone(),
                        token: revision,
                        lease,
                    });
                    self.arm_deadline(ctx);
                    self.start_round(ctx);
                } else {
                    ctx.send(self.setup.store(), LeaseMsg::Revoke { lease });
                    self.read_key(ctx);
                }
            }
            LeaseMsg::GetReply { call, value } if self.answers(call, Call::Get) => {
                self.settle(ctx);
                if value.is_none() {
                    ctx.note(LeaseNote::Races);
                    self.race(ctx);
                    return;
                }
                ctx.note(LeaseNote::Waits { holder: value });
                self.phase = Phase::Watching;
                ctx.send(
                    self.setup.store(),
                    LeaseMsg::Watch {
                        key: self.setup.key.clone(),
                    },
                );
                ctx.set_timer(LeaseTimer::Recheck, self.setup.ttl);
            }
            LeaseMsg::Deleted { .. } if self.phase == Phase::Watching => {
                ctx.cancel_timer(LeaseTimer::Recheck);
                ctx.note(LeaseNote::Races);
                self.race(ctx);
            }
            LeaseMsg::KeepAliveReply { call, ttl_ms } if self.answers(call, Call::KeepAlive) => {
                self.settle(ctx);
                if ttl_ms > 0 || self.setup.bugs.unchecked_refresh {
                    self.refreshed(ctx, ttl_ms);
                } else {
                    self.step_down(ctx, StepDown::LeaseGone);
                }
            }
            _ => {}
        }
    }

    /// Whether an answer numbered `call` is to the pending call of kind `kind`.
    fn answers(&self, call: u64, kind: Call) -> bool {
        self.pending == Some(kind) && call == self.call
    }

    /// The pending call was answered.
    fn settle<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>) {
        self.pending = None;
        ctx.cancel_timer(LeaseTimer::Rpc);
    }

    /// Lost the race: `cliente.get(CLAVE)`.
    fn read_key<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>) {
        self.phase = Phase::Reading;
        let call = self.next_call();
        let key = self.setup.key.clone();
        self.ask(ctx, Call::Get, LeaseMsg::Get { call, key });
    }

    /// A round of work begins; its write goes out when it ends.
    fn start_round<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>) {
        self.round += 1;
        ctx.set_timer(LeaseTimer::WorkDone, self.setup.work);
    }

    /// The safety net: last time the lease was known alive + TTL - margin, on its own clock.
    fn arm_deadline<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>) {
        let left = self.alive_since.0 + self.setup.ttl.0 - self.setup.safety_margin.0;
        let after = Duration(left.saturating_sub(ctx.local_clock().0));
        ctx.set_timer(LeaseTimer::Deadline, after);
    }

    /// A refresh worked (or, with `unchecked_refresh`, is taken to have): sleep, then work.
    fn refreshed<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>, ttl_ms: u64) {
        if ttl_ms > 0 {
            ctx.note(LeaseNote::Refreshed { ttl_ms });
        } else {
            ctx.note(LeaseNote::IgnoredRefresh);
        }
        self.alive_since = self.sent_at;
        self.arm_deadline(ctx);
        ctx.set_timer(LeaseTimer::Round, self.setup.renew_every);
    }

    /// Stops leading: revoke (best effort) and race again.
    fn step_down<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>, why: StepDown) {
        let Phase::Leading { lease, .. } = self.phase else {
            return;
        };
        ctx.note(LeaseNote::StepsDown { why });
        ctx.send(self.setup.store(), LeaseMsg::Revoke { lease });
        for timer in [
            LeaseTimer::Round,
            LeaseTimer::WorkDone,
            LeaseTimer::Deadline,
        ] {
            ctx.cancel_timer(timer);
        }
        self.race(ctx);
    }

    /// One of its timers.
    pub fn on_timer<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>, timer: LeaseTimer) {
        if self.phase == Phase::Stopped {
            return;
        }
        match timer {
            LeaseTimer::Rpc => self.call_failed(ctx),
            LeaseTimer::WorkDone => {
                if let Phase::Leading { token, lease } = self.phase {
                    // The round's write, then `lease.refresh()`.
                    let round = self.round;
                    ctx.send(self.setup.resource(), LeaseMsg::Write { round, token });
                    let call = self.next_call();
                    self.ask(ctx, Call::KeepAlive, LeaseMsg::KeepAlive { call, lease });
                }
            }
            LeaseTimer::Round => {
                if self.is_leading() {
                    self.start_round(ctx);
                }
            }
            LeaseTimer::Deadline => self.step_down(ctx, StepDown::Deadline),
            LeaseTimer::Recheck => {
                if self.phase == Phase::Watching {
                    self.read_key(ctx);
                }
            }
            LeaseTimer::Retry => match self.phase {
                Phase::Granting => self.race(ctx),
                Phase::Reading => self.read_key(ctx),
                _ => {}
            },
            LeaseTimer::Expire(_) => {}
        }
    }

    /// The pending call had no answer in time.
    fn call_failed<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>) {
        let Some(call) = self.pending.take() else {
            return;
        };
        match call {
            Call::KeepAlive if self.setup.bugs.unchecked_refresh => self.refreshed(ctx, 0),
            Call::KeepAlive => self.step_down(ctx, StepDown::RefreshTimedOut),
            Call::Grant | Call::Txn | Call::Get => {
                let retry = self.setup.renew_every;
                ctx.note(LeaseNote::CallFailed {
                    call: call.name().into(),
                    retry_in_ms: retry.as_millis(),
                });
                // A transaction may have won without our hearing: the key's read says so.
                self.phase = if call == Call::Grant {
                    Phase::Granting
                } else {
                    Phase::Reading
                };
                ctx.set_timer(LeaseTimer::Retry, retry);
            }
        }
    }
}
