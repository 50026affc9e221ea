//! The live ring's actor, which only composes the roles: every node but the clients is a
//! storage node (the lesson's `Nodo`: a durable store and, as a stand-in, hints; see `storage`)
//! with a quorum machine (see `coord`): on the coordinator it runs the scenario's writes, reads
//! and membership changes, and on a storage node it coordinates the client requests for the
//! keys the node owns (see `serve`). The clients are nodes with the client role only (see
//! `client`).
//!
//! The roles own their state and handlers and share messages, the read-only [`Env`] and, where
//! the quorum machine reads the storage (its map, the version held, the era), an explicit
//! parameter. This file routes each message, timer and command to the role it is for, and
//! carries out the one step that needs two: a `Rebalance` moves the storage's map, extends the
//! writes in flight to the new homes, then starts the storage's stream.

use crate::ring_store::client::Client;
use crate::ring_store::config::RingConfig;
use crate::ring_store::coord::Coord;
use crate::ring_store::env::Env;
use crate::ring_store::msg::{RingCommand, RingMsg, RingTimer, Versioned};
use crate::ring_store::notes::RingNote;
use crate::ring_store::storage::Storage;
use sim_core::{Actor, Context, NodeId};

/// A node of the live ring.
#[derive(Clone, Debug, Hash)]
pub struct RingNode {
    env: Env,
    role: Role,
}

/// What a node is: a storage node with its quorum machine (the coordinator too), or a client.
#[derive(Clone, Debug, Hash)]
enum Role {
    /// A storage node, or the coordinator (whose storage holds only its map).
    Server {
        /// The store, hints, streams and the node's map (boxed: a client is much smaller).
        storage: Box<Storage>,
        /// The quorum machine.
        coord: Coord,
    },
    /// A client: its cached map and its requests.
    Client(Client),
}

impl RingNode {
    /// Node `id` of `config` (see [`RingConfig::names`] for the order of roles).
    pub fn new(config: &RingConfig, id: NodeId) -> RingNode {
        RingNode::from_env(Env::new(config, id))
    }

    /// The node whose context is `env` (see [`Env::all`] to build every node at once).
    pub fn from_env(env: Env) -> RingNode {
        let role = if env.is_client() {
            Role::Client(Client::new((*env.initial).clone()))
        } else {
            Role::Server {
                storage: Box::new(Storage::new(&env.initial)),
                coord: Coord::default(),
            }
        };
        RingNode { env, role }
    }

    /// This node's name.
    pub fn name(&self) -> &str {
        self.env.name()
    }

    /// What this node stores for `key` as a home replica (a client stores nothing).
    pub fn stored(&self, key: &str) -> Option<&Versioned> {
        match &self.role {
            Role::Server { storage, .. } => storage.stored(key),
            Role::Client(_) => None,
        }
    }

    /// How many hints this node keeps for other nodes.
    pub fn hint_count(&self) -> usize {
        match &self.role {
            Role::Server { storage, .. } => storage.hint_count(),
            Role::Client(_) => 0,
        }
    }

    /// The epoch of this node's map (a client's: its cached map).
    pub fn epoch(&self) -> u64 {
        match &self.role {
            Role::Server { storage, .. } => storage.map().epoch(),
            Role::Client(client) => client.map().epoch(),
        }
    }
}

/// Routes a message to the storage or the quorum machine of a server node; a `Rebalance` is
/// the step of both: the storage moves its map, the quorum machine sends the writes in flight
/// to the new homes too, and then the storage starts its stream.
fn serve_message(
    ctx: &mut Context<'_, RingNode>,
    env: &Env,
    storage: &mut Storage,
    coord: &mut Coord,
    from: NodeId,
    msg: RingMsg,
) {
    match msg {
        RingMsg::Rebalance { epoch, change } => {
            if storage.move_to(ctx, env, epoch, change) {
                coord.extend_writes(ctx, env, storage, storage.map());
                storage.start_stream(ctx, env);
            }
        }
        RingMsg::Store { .. }
        | RingMsg::Read { .. }
        | RingMsg::Handoff { .. }
        | RingMsg::HandoffAck { .. }
        | RingMsg::Transfer { .. }
        | RingMsg::TransferAck { .. }
        | RingMsg::Cleanup { .. } => {
            let node_era = coord.era(storage);
            storage.on_message(ctx, env, node_era, from, msg);
        }
        RingMsg::StoreAck { .. }
        | RingMsg::ReadReply { .. }
        | RingMsg::StreamDone { .. }
        | RingMsg::CleanupAck { .. }
        | RingMsg::Request { .. }
        | RingMsg::MapAck { .. } => coord.on_message(ctx, env, storage, from, msg),
        // A client's: a storage node never asked.
        RingMsg::Reply { .. } | RingMsg::Moved { .. } | RingMsg::MapUpdate { .. } => {}
    }
}

impl Actor for RingNode {
    type Msg = RingMsg;
    type Timer = RingTimer;
    type Note = RingNote;
    type Command = RingCommand;

    fn on_start(&mut self, ctx: &mut Context<'_, Self>) {
        if let Role::Server { storage, coord } = &mut self.role {
            storage.on_start(ctx, &self.env);
            coord.on_start(ctx, &self.env, storage.map());
        }
    }

    fn on_message(&mut self, ctx: &mut Context<'_, Self>, from: NodeId, msg: RingMsg) {
        match &mut self.role {
            Role::Server { storage, coord } => {
                serve_message(ctx, &self.env, storage, coord, from, msg);
            }
            Role::Client(client) => client.on_message(ctx, &self.env, from, msg),
        }
    }

    fn on_timer(&mut self, ctx: &mut Context<'_, Self>, timer: RingTimer) {
        let env = &self.env;
        match (&mut self.role, timer) {
            (Role::Server { storage, .. }, RingTimer::HintRetry) => storage.retry_hints(ctx, env),
            (Role::Server { storage, .. }, RingTimer::Pace) => storage.on_pace(ctx, env),
            (Role::Server { storage, .. }, RingTimer::Resend(seq)) => {
                storage.on_resend(ctx, env, seq);
            }
            (Role::Server { storage, coord }, RingTimer::Request(req)) => {
                coord.on_request_timeout(ctx, env, storage, req);
            }
            (Role::Server { storage, coord }, RingTimer::Load) => {
                coord.on_load_tick(ctx, env, storage);
            }
            (Role::Server { coord, .. }, RingTimer::RebalanceRetry) => {
                coord.on_rebalance_retry(ctx, env);
            }
            (Role::Server { storage, coord }, RingTimer::MapPush) => {
                coord.on_map_push(ctx, env, storage.map());
            }
            (Role::Client(client), RingTimer::ClientLoad) => client.on_load(ctx, env),
            (Role::Client(client), RingTimer::ClientTimeout(id)) => {
                client.on_timeout(ctx, env, id);
            }
            // Each role sets only its own timers.
            _ => {}
        }
    }

    fn on_command(&mut self, ctx: &mut Context<'_, Self>, command: RingCommand) {
        match &mut self.role {
            Role::Server { storage, coord } => coord.on_command(ctx, &self.env, storage, command),
            Role::Client(client) => client.on_command(ctx, &self.env, command),
        }
    }

    fn on_crash(&mut self) {
        // Storage is durable; only requests in flight (and a client's queue) are lost.
        match &mut self.role {
            Role::Server { coord, .. } => coord.crash(),
            Role::Client(client) => client.crash(),
        }
    }
}
