//! A token ring: the smallest real protocol, for the benchmark, the kernel's tests and the docs.
//!
//! Node i forwards every token it receives to node i+1 (mod n). Node 0 injects `tokens` tokens
//! when it starts. Each token carries the number of hops it has made, counting the one in
//! flight; a note marks every full lap. It exercises the whole hot path (deliver, handler, send,
//! network) and nothing else. It is also the reference for the protocol contract: the
//! `message!` line and the `Protocol` and `Story` impls are all the glue a protocol writes
//! (here with a config check, an expectation and a bilingual lap line; the bare minimum, as in
//! `examples/primary_backup.rs`, is about 25 lines).

use crate::common::broke;
use serde::{Deserialize, Serialize};
use sim_core::Broken;
use sim_core::trace::{Event, Record};
use sim_core::{Actor, Context, Invariant, Kinds, NodeId, Outcome, Protocol};
use traces::{Lang, Story};

/// A token ring member.
#[derive(Clone, Debug, Hash)]
pub struct TokenRing {
    /// Ring size.
    pub nodes: u32,
    /// Tokens node 0 injects at start.
    pub tokens: u32,
    /// Tokens forwarded so far (durable).
    pub forwarded: u64,
    /// Panic when a token reaches this many hops (a deliberate bug, off by default).
    pub panic_at_hops: Option<u64>,
}

/// The one message: a token and how many hops it has made.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, Serialize, Deserialize)]
pub enum Token {
    /// A token on its `hops`-th hop (the injection is hop 1).
    Token {
        /// Hops made, counting the one in flight.
        hops: u64,
    },
}

sim_core::message!(Token { Token });

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
                ctx.send(next, Token::Token { hops: 1 });
            }
        }
    }

    fn on_message(&mut self, ctx: &mut Context<'_, Self>, _from: NodeId, msg: Token) {
        let Token::Token { hops } = msg;
        if self.panic_at_hops == Some(hops) {
            panic!("token-ring bug knob: a token reached {hops} hops");
        }
        self.forwarded += 1;
        let me = ctx.id().0;
        if me == 0 {
            ctx.note(LapNote::Lap { hops });
        }
        let next = NodeId((me + 1) % self.nodes);
        ctx.send(next, Token::Token { hops: hops + 1 });
    }

    fn on_timer(&mut self, _ctx: &mut Context<'_, Self>, _timer: ()) {}
}

/// Settings of the token ring demo.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenRingConfig {
    /// Ring members in order; node 0 injects the tokens.
    pub nodes: Vec<String>,
    /// Tokens injected at start.
    #[serde(default = "one")]
    pub tokens: u32,
    /// A deliberate bug for testing dsim itself: a node panics when a token reaches this many
    /// hops (how a crashing actor is reported: exit 3, the seed and the replay command).
    #[serde(default)]
    pub panic_at_hops: Option<u64>,
}

fn one() -> u32 {
    1
}

/// What a token-ring scenario can expect.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum TokenRingExpect {
    /// At least this many laps were completed.
    Laps(u64),
}

/// Every lap has a multiple of the ring size as its hop count.
#[derive(Clone, Debug)]
pub struct LapsAreWhole {
    nodes: u64,
}

impl Invariant<TokenRing> for LapsAreWhole {
    fn name(&self) -> &'static str {
        "laps-are-whole"
    }
    fn reads(&self) -> Kinds {
        Kinds::NOTE
    }
    fn observe(&mut self, record: &Record<TokenRing>) -> Result<(), Broken> {
        match &record.event {
            Event::Note {
                note: LapNote::Lap { hops },
                ..
            } if hops % self.nodes != 0 => Err(broke(
                format!(
                    "a token came back after {hops} hops, not a multiple of the ring size {}",
                    self.nodes
                ),
                format!(
                    "un testigo volvió tras {hops} saltos, que no es múltiplo del tamaño del anillo {}",
                    self.nodes
                ),
            )),
            _ => Ok(()),
        }
    }
}

/// The token ring as a scenario protocol (`protocol: "token-ring"`), the kernel's demo.
pub struct TokenRingProtocol;

impl Protocol for TokenRingProtocol {
    const NAME: &'static str = "token-ring";
    const ABOUT: &'static str = "a token ring: the kernel's demo (every node forwards to the next)";
    type Actor = TokenRing;
    type Config = TokenRingConfig;
    type Expect = TokenRingExpect;

    fn nodes(config: &TokenRingConfig) -> Vec<String> {
        config.nodes.clone()
    }

    fn validate(config: &TokenRingConfig) -> Vec<sim_core::ConfigProblem> {
        if config.nodes.is_empty() {
            return vec![sim_core::ConfigProblem {
                locate: Some("nodes".into()),
                message: "a ring needs at least one node: list them in `nodes`".into(),
            }];
        }
        Vec::new()
    }

    fn build(config: &TokenRingConfig, id: NodeId) -> TokenRing {
        TokenRing {
            nodes: config.nodes.len() as u32,
            tokens: if id.0 == 0 { config.tokens } else { 0 },
            forwarded: 0,
            panic_at_hops: config.panic_at_hops,
        }
    }

    fn invariants(config: &TokenRingConfig) -> Vec<Box<dyn Invariant<TokenRing>>> {
        let nodes = config.nodes.len() as u64;
        vec![Box::new(LapsAreWhole { nodes })]
    }

    fn check(
        config: &TokenRingConfig,
        expect: &TokenRingExpect,
        outcome: &Outcome<'_, TokenRing>,
    ) -> Result<String, String> {
        laps(config, expect, outcome, Lang::En)
    }
}

/// Checks `Laps(n)`, said in `lang`.
fn laps(
    _config: &TokenRingConfig,
    expect: &TokenRingExpect,
    outcome: &Outcome<'_, TokenRing>,
    lang: Lang,
) -> Result<String, String> {
    let TokenRingExpect::Laps(want) = expect;
    let laps = outcome.notes().count() as u64;
    match (laps >= *want, lang) {
        (true, Lang::En) => Ok(format!("{laps} laps completed (at least {want} expected)")),
        (true, Lang::Es) => Ok(format!(
            "{laps} vueltas completadas (se esperaban al menos {want})"
        )),
        (false, Lang::En) => Err(format!(
            "expected at least {want} laps, but only {laps} completed"
        )),
        (false, Lang::Es) => Err(format!(
            "se esperaban al menos {want} vueltas, pero solo se completaron {laps}"
        )),
    }
}

impl Story for TokenRingProtocol {
    fn explain(
        config: &TokenRingConfig,
        expect: &TokenRingExpect,
        outcome: &Outcome<'_, TokenRing>,
        lang: Lang,
    ) -> Result<String, String> {
        laps(config, expect, outcome, lang)
    }

    fn narrate(record: &Record<TokenRing>, lang: Lang) -> Option<String> {
        let Event::Note {
            node,
            note: LapNote::Lap { hops },
        } = &record.event
        else {
            return None;
        };
        Some(match lang {
            Lang::En => format!("{node}: a token completes a lap ({hops} hops)"),
            Lang::Es => format!("{node}: un testigo completa una vuelta ({hops} saltos)"),
        })
    }
}
