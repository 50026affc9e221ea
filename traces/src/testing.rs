//! A protocol-free actor for this crate's unit tests: its messages are `Ping { n }`, and its
//! notes and commands are any JSON, so hand-written trace lines read as typed records.

use serde::{Deserialize, Serialize};
use sim_core::{Actor, Context, NodeId};

/// The test actor; it never runs, it only gives records their types.
#[derive(Clone, Debug, Hash)]
pub struct Probe;

/// Its one message.
#[derive(Clone, Debug, Hash, Serialize, Deserialize)]
pub enum Msg {
    /// A ping with a number.
    Ping {
        /// The number.
        n: u64,
    },
}

sim_core::message!(Msg { Ping });

impl Actor for Probe {
    type Msg = Msg;
    type Timer = u8;
    type Note = serde_json::Value;
    type Command = serde_json::Value;
    fn on_message(&mut self, _ctx: &mut Context<'_, Self>, _from: NodeId, _msg: Msg) {}
    fn on_timer(&mut self, _ctx: &mut Context<'_, Self>, _timer: u8) {}
}
