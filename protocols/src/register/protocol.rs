//! How the register model plugs into scenarios: [`RegisterPaxos`], its model
//! (`sim_core::Protocol`) and its story (`traces::Story`).

use crate::linearizability::{RegisterOp, RegisterRet};
use crate::register::config::{self, RegisterConfig};
use crate::register::invariants::Linearizable;
use crate::register::msg::RegisterMsg;
use crate::register::node::{RegisterNode, RegisterNote, Setup};
use serde::{Deserialize, Serialize};
use sim_core::exhaustive::Sometimes;
use sim_core::trace::{Event, Record};
use sim_core::{BugKnob, ConfigProblem, Invariant, NodeId, Outcome, Protocol, Sim};
use traces::{Lang, Story};

/// stateright's linearizable register on single-decree Paxos (`protocol: "register"`).
#[derive(Clone, Copy, Debug, Default)]
pub struct RegisterPaxos;

/// What a register scenario can expect of a run.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum RegisterExpect {
    /// Some server decided this value.
    Decided(char),
    /// At least this many clients' reads returned (with whatever value). Not every client
    /// need get that far: as in stateright's model, nobody retries a write whose term a
    /// higher ballot ended, so its client waits for ever.
    Reads(usize),
}

/// stateright's `sometimes "value chosen"`: an answer to a read, with a written value, is in
/// flight.
fn value_chosen(sim: &Sim<RegisterNode>) -> bool {
    sim.messages_in_flight()
        .any(|(_, _, m)| matches!(m, RegisterMsg::GetOk { value, .. } if *value != '\0'))
}

impl Protocol for RegisterPaxos {
    const NAME: &'static str = "register";
    const ABOUT: &'static str =
        "stateright's linearizable register on single-decree Paxos: servers and clients";
    const BUGS: &'static [BugKnob] = &[BugKnob {
        name: "ignore_accepted",
        breaks: "a leader proposes its client's value over an accepted one: two values decided",
    }];
    const IGNORED_MESSAGES_WAIT: bool = true;
    type Actor = RegisterNode;
    type Config = RegisterConfig;
    type Expect = RegisterExpect;

    fn nodes(config: &RegisterConfig) -> Vec<String> {
        config.node_names()
    }

    fn validate(config: &RegisterConfig) -> Vec<ConfigProblem> {
        config::validate(config)
    }

    fn build(config: &RegisterConfig, id: NodeId) -> RegisterNode {
        RegisterNode::new(&Setup::of(config), id)
    }

    fn build_all(config: &RegisterConfig) -> Vec<RegisterNode> {
        let setup = Setup::of(config);
        (0..config.servers + config.clients)
            .map(|i| RegisterNode::new(&setup, NodeId(i)))
            .collect()
    }

    fn invariants(_config: &RegisterConfig) -> Vec<Box<dyn Invariant<RegisterNode>>> {
        vec![Box::new(Linearizable::default())]
    }

    fn sometimes(_config: &RegisterConfig) -> Vec<Sometimes<RegisterNode>> {
        vec![Sometimes {
            name: "a value is chosen (a read's answer carries it)",
            holds: value_chosen,
        }]
    }

    fn check(
        config: &RegisterConfig,
        expect: &RegisterExpect,
        outcome: &Outcome<'_, RegisterNode>,
    ) -> Result<String, String> {
        check_in(config, expect, outcome, Lang::En)
    }
}

/// Checks one expectation, said in `lang`.
fn check_in(
    _config: &RegisterConfig,
    expect: &RegisterExpect,
    outcome: &Outcome<'_, RegisterNode>,
    lang: Lang,
) -> Result<String, String> {
    let say = |en: String, es: String| if lang == Lang::Es { es } else { en };
    match expect {
        RegisterExpect::Decided(want) => {
            let decided: Vec<char> = outcome
                .notes()
                .filter_map(|(_, _, n)| match n {
                    RegisterNote::Decided { value, .. } => Some(*value),
                    _ => None,
                })
                .collect();
            if decided.contains(want) {
                Ok(say(
                    format!("{want:?} was decided"),
                    format!("se decidió {want:?}"),
                ))
            } else if decided.is_empty() {
                Err(say(
                    format!("expected {want:?} decided, but no server decided"),
                    format!("se esperaba {want:?} decidido, pero ningún servidor decidió"),
                ))
            } else {
                Err(say(
                    format!("expected {want:?} decided, but the servers decided {decided:?}"),
                    format!(
                        "se esperaba {want:?} decidido, pero los servidores decidieron {decided:?}"
                    ),
                ))
            }
        }
        RegisterExpect::Reads(want) => {
            let clients = outcome
                .sim
                .node_ids()
                .filter(|&id| outcome.sim.actor(id).server().is_none())
                .count();
            let reads = outcome
                .notes()
                .filter(|(_, _, n)| matches!(n, RegisterNote::Returned(RegisterRet::ReadOk(_))))
                .count();
            if reads >= *want {
                Ok(say(
                    format!("{reads} of {clients} clients read a value (at least {want} expected)"),
                    format!(
                        "{reads} de {clients} clientes leyeron un valor (se esperaban al menos \
                         {want})"
                    ),
                ))
            } else {
                Err(say(
                    format!(
                        "expected at least {want} clients to read, but {reads} of {clients} did"
                    ),
                    format!(
                        "se esperaba que leyeran al menos {want} clientes, pero leyeron {reads} \
                         de {clients}"
                    ),
                ))
            }
        }
    }
}

/// The line of one note.
fn note_line(node: &str, note: &RegisterNote, lang: Lang) -> String {
    use RegisterNote as N;
    match (note, lang) {
        (N::Invoked(RegisterOp::Write(v)), Lang::En) => format!("{node}: writes {v:?}"),
        (N::Invoked(RegisterOp::Write(v)), Lang::Es) => format!("{node}: escribe {v:?}"),
        (N::Invoked(RegisterOp::Read), Lang::En) => format!("{node}: reads"),
        (N::Invoked(RegisterOp::Read), Lang::Es) => format!("{node}: lee"),
        (N::Returned(RegisterRet::WriteOk), Lang::En) => format!("{node}: its write is done"),
        (N::Returned(RegisterRet::WriteOk), Lang::Es) => {
            format!("{node}: su escritura está hecha")
        }
        (N::Returned(RegisterRet::ReadOk(v)), Lang::En) => format!("{node}: read {v:?}"),
        (N::Returned(RegisterRet::ReadOk(v)), Lang::Es) => format!("{node}: leyó {v:?}"),
        (N::Decided { round, value }, Lang::En) => {
            format!("{node}: {value:?} is decided (round {round})")
        }
        (N::Decided { round, value }, Lang::Es) => {
            format!("{node}: {value:?} está decidido (ronda {round})")
        }
    }
}

impl Story for RegisterPaxos {
    fn explain(
        config: &RegisterConfig,
        expect: &RegisterExpect,
        outcome: &Outcome<'_, RegisterNode>,
        lang: Lang,
    ) -> Result<String, String> {
        check_in(config, expect, outcome, lang)
    }

    fn narrate(record: &Record<RegisterNode>, lang: Lang) -> Option<String> {
        match &record.event {
            Event::Note { node, note } => Some(note_line(node, note, lang)),
            _ => None,
        }
    }

    fn is_key(record: &Record<RegisterNode>) -> bool {
        matches!(
            &record.event,
            Event::Note {
                note: RegisterNote::Decided { .. } | RegisterNote::Returned(_),
                ..
            }
        )
    }
}
