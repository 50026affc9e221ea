//! What a Byzantine replica does instead of following the protocol: the deviations the config's
//! [`Behaviour`](crate::pbft::config::Behaviour)s switch on, kept apart from the correct code
//! in [`crate::pbft::replica`].
//!
//! Every deviation goes through the same [`Signed::new`] as the correct code, so a Byzantine
//! replica lies only in its own name: it can forge digests and results, tell different
//! replicas different things, vote twice and replay old messages, but never make a message
//! that another node seems to have signed.

use crate::pbft::msg::{Commit, PbftMsg, PrePrepare, Prepare, Request, Seq, View, digest_of};
use crate::pbft::notes::{ByzantineAct, PbftNote};
use crate::pbft::replica::Replica;
use crate::pbft::setup::{Ctx, Handler};
use crate::pbft::sign::{Digest, Signed};
use sim_core::{Message, NodeId};

impl Replica {
    /// `Lie`: a digest nobody computed instead of `digest`; the truth otherwise.
    pub(crate) fn maybe_forge<A: Handler>(
        &self,
        ctx: Ctx<'_, '_, A>,
        seq: Seq,
        digest: Digest,
    ) -> Digest {
        if !self.faults.lie {
            return digest;
        }
        ctx.note(PbftNote::Byzantine {
            act: ByzantineAct::Lied { seq },
        });
        digest.forged()
    }

    /// `Replay`: sends every other replica the message received before `current`, each
    /// distinct message once (two replayers would otherwise bounce messages forever).
    pub(crate) fn replay<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>, current: &PbftMsg) {
        if let Some(old) = self.previous.replace(current.clone())
            && self.replayed.insert(sim_core::hash::stable_hash(&old))
        {
            ctx.note(PbftNote::Byzantine {
                act: ByzantineAct::Replayed {
                    kind: old.kind().into(),
                },
            });
            self.multicast(ctx, &old);
        }
    }

    /// `Replay` as primary: assigns `request` (just assigned) again, at the next
    /// number. Correct replicas execute it once: the second time it is a repeat.
    pub(crate) fn reassign<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>, request: Signed<Request>) {
        let op = request.body().op.clone();
        let to = self.others();
        let seq = self.assign(ctx, request, &to);
        ctx.note(PbftNote::Byzantine {
            act: ByzantineAct::Reassigned { seq, op },
        });
    }

    /// The backups split in two halves, for an equivocating primary.
    fn halves(&self) -> (Vec<NodeId>, Vec<NodeId>) {
        let mut first = self.others();
        let second = first.split_off(first.len().div_ceil(2));
        (first, second)
    }

    fn names(&self, ids: &[NodeId]) -> Vec<String> {
        ids.iter()
            .map(|&id| self.setup.name(id).to_string())
            .collect()
    }

    /// `Equivocate` as primary: a new number goes to the first half of the backups with this
    /// request; the next request gets the same number, told to the other half.
    pub(crate) fn equivocate<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>, request: Signed<Request>) {
        let (first, second) = self.halves();
        let op = request.body().op.clone();
        let digest = digest_of(&request);
        let seq = match self.split.take() {
            Some(seq) => {
                let pp = Signed::new(
                    ctx,
                    PrePrepare {
                        view: self.view,
                        seq,
                        digest,
                    },
                );
                ctx.broadcast(&second, &PbftMsg::PrePrepare(pp, request));
                ctx.note(PbftNote::Byzantine {
                    act: ByzantineAct::Equivocated {
                        seq,
                        op,
                        to: self.names(&second),
                    },
                });
                seq
            }
            None => {
                let seq = self.assign(ctx, request, &first);
                self.split = Some(seq);
                ctx.note(PbftNote::Byzantine {
                    act: ByzantineAct::Equivocated {
                        seq,
                        op,
                        to: self.names(&first),
                    },
                });
                seq
            }
        };
        if self.faults.double_vote {
            self.double_vote(ctx, self.view, seq, digest);
        }
    }

    /// `Equivocate` as a backup: poses as a primary and pre-prepares `request` (given at `seq`)
    /// at the number before, to every other replica.
    pub(crate) fn pose_as_primary<A: Handler>(
        &mut self,
        ctx: Ctx<'_, '_, A>,
        seq: Seq,
        request: Signed<Request>,
    ) {
        if seq <= self.low + 1 {
            return;
        }
        let forged_seq = seq - 1;
        let digest = digest_of(&request);
        let op = request.body().op.clone();
        let pp = Signed::new(
            ctx,
            PrePrepare {
                view: self.view,
                seq: forged_seq,
                digest,
            },
        );
        let to = self.others();
        ctx.broadcast(&to, &PbftMsg::PrePrepare(pp, request));
        ctx.note(PbftNote::Byzantine {
            act: ByzantineAct::Equivocated {
                seq: forged_seq,
                op,
                to: self.names(&to),
            },
        });
        if self.faults.double_vote {
            self.double_vote(ctx, self.view, forged_seq, digest);
        }
    }

    /// `DoubleVote`: a prepare (unless primary of `view`) and a commit for (view, seq, digest)
    /// to every other replica, now, prepared or not: for each pre-prepare it accepts, and for
    /// each conflicting one it refuses (both sides of an equivocation). Forged if it also lies.
    pub(crate) fn double_vote<A: Handler>(
        &mut self,
        ctx: Ctx<'_, '_, A>,
        view: View,
        seq: Seq,
        digest: Digest,
    ) {
        ctx.note(PbftNote::Byzantine {
            act: ByzantineAct::DoubleVoted { seq, digest },
        });
        let digest = self.maybe_forge(ctx, seq, digest);
        if self.setup.primary(view) != self.me {
            let p = Signed::new(ctx, Prepare { view, seq, digest });
            self.multicast(ctx, &PbftMsg::Prepare(p));
        }
        let c = Signed::new(ctx, Commit { view, seq, digest });
        self.multicast(ctx, &PbftMsg::Commit(c));
    }
}
