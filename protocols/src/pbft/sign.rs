//! Authentication, modelled: a signed message can only be made by the node whose id it carries.
//!
//! PBFT's safety rests on signatures: a Byzantine replica may lie in its own messages, but it
//! cannot make a message that claims to come from another node, so a certificate (2f prepares,
//! 2f+1 checkpoints) forwarded later is verifiably its senders'. Here the only way to make a
//! [`Signed`] value is [`Signed::new`], which takes the signing node's own handler `Context`
//! and stamps its id; the kernel hands each node only its own context. The fields are
//! private, so a signed value cannot be edited after the fact either; forwarding a copy is
//! allowed (and proves nothing new). Each phase has its own body type, so a prepare's
//! signature is never a commit's.
//!
//! Two doors stay open in Rust and are closed by tests instead: making a context by hand
//! (`Context::new`, `TestContext`, which the kernel and unit tests need) and deserializing a
//! signed value (which reading a trace needs). `tests/it/pbft.rs` checks that protocol code
//! does neither, and that in runs with every Byzantine behaviour each signed part a node sends
//! in another's name is one that node sent first.

use serde::{Deserialize, Serialize};
use sim_core::{Actor, Context, NodeId};
use std::fmt;

/// A body signed by one node: who signed it can be read, never chosen. In a trace it reads as
/// the body's fields and `signer`.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Signed<T> {
    #[serde(flatten)]
    body: T,
    signer: NodeId,
}

impl<T> Signed<T> {
    /// `body`, signed by the node whose handler owns `ctx`.
    pub fn new<A: Actor>(ctx: &Context<'_, A>, body: T) -> Self {
        Signed {
            body,
            signer: ctx.id(),
        }
    }

    /// The node that signed it.
    pub fn signer(&self) -> NodeId {
        self.signer
    }

    /// What it says.
    pub fn body(&self) -> &T {
        &self.body
    }
}

impl<T: fmt::Debug> fmt::Debug for Signed<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} signed by {}", self.body, self.signer.0)
    }
}

/// A digest, the hash of a request or of a service state: 64 bits of a stable hash,
/// collision-free by assumption (as the paper assumes of its cryptographic digests). In a
/// trace it is 16 hex digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Digest(pub u64);

impl Serialize for Digest {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{:016x}", self.0))
    }
}

impl<'de> Deserialize<'de> for Digest {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Digest, D::Error> {
        let text = String::deserialize(d)?;
        u64::from_str_radix(&text, 16).map(Digest).map_err(|_| {
            serde::de::Error::custom(format!("a digest is 16 hex digits, not {text:?}"))
        })
    }
}

impl Digest {
    /// The digest of `value` (the same on every machine).
    pub fn of<T: std::hash::Hash + ?Sized>(value: &T) -> Digest {
        Digest(sim_core::hash::stable_hash(value))
    }

    /// A digest nobody computed: what a lying replica puts in its votes.
    pub fn forged(self) -> Digest {
        Digest(self.0 ^ 0x5a5a_5a5a_5a5a_5a5a)
    }
}

/// Four hex digits: enough to tell digests apart in a story.
impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04x}", self.0 >> 48)
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}
