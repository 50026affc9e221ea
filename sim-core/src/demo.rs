//! A token ring: the smallest real protocol, for the benchmark, the kernel's tests and the docs.
//!
//! Node i forwards every token it receives to node i+1 (mod n). Node 0 injects `tokens` tokens
//! when it starts. Each token carries the number of hops it has made; a note marks every full
//! lap. It exercises the whole hot path (deliver, handler, send, network) and nothing else.

use crate::actor::{Actor, Context, Message};
use crate::id::NodeId;
use serde::{Deserialize, Serialize};

/// A token ring member.
#[derive(Clone, Debug, Hash)]
pub struct TokenRing {
    /// Ring size.
    pub nodes: u32,
    /// Tokens node 0 injects at start.
    pub tokens: u32,
    /// Tokens forwarded so far (durable).
    pub forwarded: u64,
}

/// The one message: a token and how many hops it has made.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, Serialize, Deserialize)]
pub enum Token {
    /// A token after `hops` hops.
    Token {
        /// Hops so far.
        hops: u64,
    },
}

impl Message for Token {
    const KINDS: &'static [&'static str] = &["Token"];
    fn kind(&self) -> &'static str {
        "Token"
    }
}

/// A fact for checkers: a token completed a lap.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LapNote {
    /// A token came back to node 0 after `hops` hops.
    Lap {
        /// Hops so far.
        hops: u64,
    },
}

impl Actor for TokenRing {
    type Msg = Token;
    type Timer = ();
    type Note = LapNote;
    type Command = ();

    fn on_start(&mut self, ctx: &mut Context<'_, Self>) {
        if ctx.id() == NodeId(0) {
            let next = NodeId(1 % self.nodes);
            for _ in 0..self.tokens {
                ctx.send(next, Token::Token { hops: 0 });
            }
        }
    }

    fn on_message(&mut self, ctx: &mut Context<'_, Self>, _from: NodeId, msg: Token) {
        let Token::Token { hops } = msg;
        self.forwarded += 1;
        let me = ctx.id().0;
        if me == 0 && hops > 0 {
            ctx.note(LapNote::Lap { hops });
        }
        ctx.send(
            NodeId((me + 1) % self.nodes),
            Token::Token { hops: hops + 1 },
        );
    }

    fn on_timer(&mut self, _ctx: &mut Context<'_, Self>, _timer: ()) {}

    fn on_crash(&mut self) {}
}
