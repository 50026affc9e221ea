//! The register's nodes: a Paxos server and a client, as stateright's example writes them.

use crate::common::Shared;
use crate::linearizability::{RegisterOp, RegisterRet};
use crate::register::config::{MAX_SERVERS, RegisterConfig};
use crate::register::msg::{Ballot, Proposal, RegisterMsg};
use serde::{Deserialize, Serialize};
use sim_core::{Actor, Context, NodeId};

/// What every node of a run knows alike (left out of state hashes).
#[derive(Debug)]
pub struct Setup {
    /// How many servers (ids 0 to servers - 1).
    pub servers: u32,
    /// Writes per client before its read.
    pub put_count: u64,
    /// Whether leaders ignore accepted proposals in promises (a bug knob).
    pub ignore_accepted: bool,
}

impl Setup {
    /// The setup of `config`.
    pub fn of(config: &RegisterConfig) -> Shared<Setup> {
        Shared::new(Setup {
            servers: config.servers,
            put_count: u64::from(config.put_count),
            ignore_accepted: config.bugs.ignore_accepted,
        })
    }

    /// A majority of the servers.
    fn majority(&self) -> u32 {
        self.servers / 2 + 1
    }
}

/// A fact for the checkers and the story.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RegisterNote {
    /// A client invoked an operation on the register (it sent the request).
    Invoked(RegisterOp<char>),
    /// A client's operation returned (its answer arrived).
    Returned(RegisterRet<char>),
    /// A server learned the decided proposal: as the leader at a majority of accepts, or told.
    Decided {
        /// The ballot's round.
        round: u32,
        /// The decided value.
        value: char,
    },
}

/// A Paxos server's state (stateright's `PaxosState`).
#[derive(Clone, Debug, Hash, PartialEq)]
pub struct Server {
    setup: Shared<Setup>,
    /// The highest ballot seen (promised, or led).
    pub ballot: Ballot,
    /// As leader: the proposal of its term.
    pub proposal: Option<Proposal>,
    /// As leader: the promises of its term by server id (what each had accepted).
    prepares: [Option<Option<(Ballot, Proposal)>>; MAX_SERVERS as usize],
    /// As leader: the servers that accepted its proposal, one bit each.
    accepts: u8,
    /// The last accepted (ballot, proposal).
    pub accepted: Option<(Ballot, Proposal)>,
    /// Whether it knows the decided value.
    pub decided: bool,
}

/// A client's state (stateright's `RegisterActorState::Client`).
#[derive(Clone, Debug, Hash, PartialEq)]
pub struct Client {
    setup: Shared<Setup>,
    /// The request it waits an answer to.
    pub awaiting: Option<u64>,
    /// Operations it has invoked.
    pub op_count: u64,
}

/// A node of the register model.
#[derive(Clone, Debug, Hash, PartialEq)]
pub enum RegisterNode {
    /// A Paxos server.
    Server(Server),
    /// A client.
    Client(Client),
}

impl RegisterNode {
    /// Node `id` of a run with this setup: a server below `setup.servers`, else a client.
    pub fn new(setup: &Shared<Setup>, id: NodeId) -> RegisterNode {
        if id.0 < setup.servers {
            RegisterNode::Server(Server {
                setup: setup.clone(),
                ballot: (0, NodeId(0)),
                proposal: None,
                prepares: [None; MAX_SERVERS as usize],
                accepts: 0,
                accepted: None,
                decided: false,
            })
        } else {
            RegisterNode::Client(Client {
                setup: setup.clone(),
                awaiting: None,
                op_count: 0,
            })
        }
    }

    /// The server's state, if this node is one.
    pub fn server(&self) -> Option<&Server> {
        match self {
            RegisterNode::Server(s) => Some(s),
            RegisterNode::Client(_) => None,
        }
    }
}

impl Server {
    /// The other servers.
    fn peers(&self, me: NodeId) -> Vec<NodeId> {
        (0..self.setup.servers)
            .map(NodeId)
            .filter(|&p| p != me)
            .collect()
    }

    fn promises(&self) -> u32 {
        self.prepares.iter().filter(|p| p.is_some()).count() as u32
    }

    fn on_message(&mut self, ctx: &mut Context<'_, RegisterNode>, from: NodeId, msg: RegisterMsg) {
        use RegisterMsg as M;
        let me = ctx.id();
        if self.decided {
            if let M::Get { request } = msg
                && let Some((_, (_, _, value))) = self.accepted
            {
                ctx.send(from, M::GetOk { request, value });
            }
            return;
        }
        match msg {
            M::Put { request, value } if self.proposal.is_none() => {
                self.proposal = Some((request, from, value));
                self.prepares = [None; MAX_SERVERS as usize];
                self.accepts = 0;
                // Its own Prepare and Prepared, without sending them (as stateright does).
                self.ballot = (self.ballot.0 + 1, me);
                self.prepares[me.index()] = Some(self.accepted);
                ctx.broadcast(
                    &self.peers(me),
                    &M::Prepare {
                        ballot: self.ballot,
                    },
                );
            }
            M::Prepare { ballot } if self.ballot < ballot => {
                self.ballot = ballot;
                ctx.send(
                    from,
                    M::Prepared {
                        ballot,
                        last_accepted: self.accepted,
                    },
                );
            }
            M::Prepared {
                ballot,
                last_accepted,
            } if ballot == self.ballot => {
                self.prepares[from.index()] = Some(last_accepted);
                if self.promises() == self.setup.majority() {
                    let own = self.proposal.expect("a leader has a proposal");
                    let highest = self.prepares.iter().flatten().max().copied().flatten();
                    let proposal = match highest {
                        Some((_, accepted)) if !self.setup.ignore_accepted => accepted,
                        _ => own,
                    };
                    self.proposal = Some(proposal);
                    // Its own Accept and Accepted.
                    self.accepted = Some((ballot, proposal));
                    self.accepts |= 1 << me.0;
                    ctx.broadcast(&self.peers(me), &M::Accept { ballot, proposal });
                }
            }
            M::Accept { ballot, proposal } if self.ballot <= ballot => {
                self.ballot = ballot;
                self.accepted = Some((ballot, proposal));
                ctx.send(from, M::Accepted { ballot });
            }
            M::Accepted { ballot } if ballot == self.ballot => {
                self.accepts |= 1 << from.0;
                if self.accepts.count_ones() == self.setup.majority() {
                    self.decided = true;
                    let proposal = self.proposal.expect("a leader has a proposal");
                    ctx.broadcast(&self.peers(me), &M::Decided { ballot, proposal });
                    let (request, client, value) = proposal;
                    ctx.send(client, M::PutOk { request });
                    ctx.note(RegisterNote::Decided {
                        round: ballot.0,
                        value,
                    });
                }
            }
            M::Decided { ballot, proposal } => {
                self.ballot = ballot;
                self.accepted = Some((ballot, proposal));
                self.decided = true;
                ctx.note(RegisterNote::Decided {
                    round: ballot.0,
                    value: proposal.2,
                });
            }
            _ => {}
        }
    }
}

impl Client {
    /// Client `id`'s k-th write (from 0): stateright's letters, 'A' + i first, then 'Z' - i.
    fn value(&self, id: NodeId, k: u64) -> char {
        let i = (id.0 - self.setup.servers) as u8;
        if k == 0 {
            (b'A' + i) as char
        } else {
            (b'Z' - i) as char
        }
    }

    /// The server a client's `op_count`-th request goes to.
    fn server(&self, id: NodeId, op_count: u64) -> NodeId {
        let servers = u64::from(self.setup.servers);
        NodeId(((u64::from(id.0) + op_count) % servers) as u32)
    }

    fn on_start(&mut self, ctx: &mut Context<'_, RegisterNode>) {
        let id = ctx.id();
        let request = u64::from(id.0);
        let value = self.value(id, 0);
        ctx.send(self.server(id, 0), RegisterMsg::Put { request, value });
        ctx.note(RegisterNote::Invoked(RegisterOp::Write(value)));
        self.awaiting = Some(request);
        self.op_count = 1;
    }

    fn on_message(&mut self, ctx: &mut Context<'_, RegisterNode>, msg: RegisterMsg) {
        let Some(awaiting) = self.awaiting else {
            return;
        };
        let id = ctx.id();
        match msg {
            RegisterMsg::PutOk { request } if request == awaiting => {
                ctx.note(RegisterNote::Returned(RegisterRet::WriteOk));
                let request = (self.op_count + 1) * u64::from(id.0);
                let to = self.server(id, self.op_count);
                if self.op_count < self.setup.put_count {
                    let value = self.value(id, self.op_count);
                    ctx.send(to, RegisterMsg::Put { request, value });
                    ctx.note(RegisterNote::Invoked(RegisterOp::Write(value)));
                } else {
                    ctx.send(to, RegisterMsg::Get { request });
                    ctx.note(RegisterNote::Invoked(RegisterOp::Read));
                }
                self.awaiting = Some(request);
                self.op_count += 1;
            }
            RegisterMsg::GetOk { request, value } if request == awaiting => {
                ctx.note(RegisterNote::Returned(RegisterRet::ReadOk(value)));
                self.awaiting = None;
                self.op_count += 1;
            }
            _ => {}
        }
    }
}

impl Actor for RegisterNode {
    type Msg = RegisterMsg;
    type Timer = ();
    type Note = RegisterNote;
    type Command = ();

    fn same_state(&self, other: &Self) -> bool {
        self == other
    }

    fn on_start(&mut self, ctx: &mut Context<'_, Self>) {
        if let RegisterNode::Client(c) = self {
            c.on_start(ctx);
        }
    }

    fn on_message(&mut self, ctx: &mut Context<'_, Self>, from: NodeId, msg: RegisterMsg) {
        match self {
            RegisterNode::Server(s) => s.on_message(ctx, from, msg),
            RegisterNode::Client(c) => c.on_message(ctx, msg),
        }
    }

    fn on_timer(&mut self, _ctx: &mut Context<'_, Self>, _timer: ()) {}
}
