//! What this crate's unit tests share: the smallest message there is, and an actor that
//! counts them.

use crate::actor::{Actor, Context};
use crate::{Message, NodeId};

/// A message with no content, of the one kind "Ping".
#[derive(Clone, Debug, Hash, serde::Serialize, serde::Deserialize)]
pub struct Ping;

impl Message for Ping {
    const KINDS: &'static [&'static str] = &["Ping"];
    fn kind(&self) -> &'static str {
        "Ping"
    }
}

/// Node 0 pings node 1, node 2, and node 1 again at its start; a node counts the pings it got.
#[derive(Clone, Debug, Hash)]
pub struct Counter(pub u32);

impl Actor for Counter {
    type Msg = Ping;
    type Timer = ();
    type Note = ();
    type Command = ();
    fn on_start(&mut self, ctx: &mut Context<'_, Self>) {
        if ctx.id() == NodeId(0) {
            ctx.send(NodeId(1), Ping);
            ctx.send(NodeId(2), Ping);
            ctx.send(NodeId(1), Ping);
        }
    }
    fn on_message(&mut self, _: &mut Context<'_, Self>, _: NodeId, _: Ping) {
        self.0 += 1;
    }
    fn on_timer(&mut self, _: &mut Context<'_, Self>, _: ()) {}
    fn same_state(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}
