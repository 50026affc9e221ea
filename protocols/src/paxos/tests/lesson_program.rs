//! A differential test: dsim's Paxos against a re-implementation of the lesson's own program.
//!
//! `paxos_un_valor.py` (text 003) is sequential: a proposer asks every acceptor in turn, drops
//! the messages listed in `red.perdidos`, and decides from all the answers it got. The
//! re-implementation below follows it line by line (its names are the lesson's). dsim runs the
//! same rounds as real messages on a 1 ms network, each round's losses as drop rules that hold
//! for that round only, and every round far enough from the next that it is over before the
//! next starts. With the config's defaults, both must agree on every round's number, the value
//! proposed and the value chosen, and on every acceptor's final state.

use super::support::{Propose, scenario};
use crate::paxos::PaxosConfig;
use crate::paxos::PaxosNote;
use proptest::prelude::*;
use sim_core::{Action, FaultRule, Instant, RuleAction};

/// The lesson's `Acceptor`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Acceptor {
    prometido: Option<u64>,
    aceptado: Option<(u64, String)>,
}

impl Acceptor {
    /// `prepare(n)`: a promise carrying what it accepted, or a nack with its promise.
    fn prepare(&mut self, n: u64) -> Result<Option<(u64, String)>, u64> {
        if self.prometido.is_none_or(|p| n > p) {
            self.prometido = Some(n);
            return Ok(self.aceptado.clone());
        }
        Err(self.prometido.unwrap_or(0))
    }

    /// `accept(n, valor)`: accepted, or a nack with its promise.
    fn accept(&mut self, n: u64, valor: &str) -> Result<u64, u64> {
        if self.prometido.is_none_or(|p| n >= p) {
            self.prometido = Some(n);
            self.aceptado = Some((n, valor.to_string()));
            return Ok(n);
        }
        Err(self.prometido.unwrap_or(0))
    }
}

/// Which of one round's messages the network loses: `prepare[i]`, `accept[i]` to acceptor i.
#[derive(Clone, Debug)]
struct Losses {
    prepare: [bool; 3],
    accept: [bool; 3],
}

/// What one round did: its number, the value it proposed in phase 2 (none if phase 1 failed)
/// and the value it saw chosen (`ELEGIDO`).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Round {
    n: u64,
    proposed: Option<String>,
    chosen: Option<String>,
}

/// The lesson's `Proposer.proponer(valor)`, for proposer `id` in its round `ronda` (already
/// incremented), over `acceptors`, with the round's losses.
fn proponer(id: u64, ronda: u64, valor: &str, acceptors: &mut [Acceptor], lost: &Losses) -> Round {
    let n = ronda * 10 + id;
    let mayoria = acceptors.len() / 2 + 1;
    let mut promesas: Vec<Option<(u64, String)>> = Vec::new();
    for (i, a) in acceptors.iter_mut().enumerate() {
        if lost.prepare[i] {
            continue;
        }
        if let Ok(dato) = a.prepare(n) {
            promesas.push(dato);
        }
    }
    if promesas.len() < mayoria {
        return Round {
            n,
            proposed: None,
            chosen: None,
        };
    }
    // Regla clave: si alguien ya aceptó algo, adoptar el valor del número más alto.
    let valor = promesas
        .iter()
        .flatten()
        .max()
        .map_or(valor.to_string(), |(_, v)| v.clone());
    let mut aceptados = 0;
    for (i, a) in acceptors.iter_mut().enumerate() {
        if !lost.accept[i] && a.accept(n, &valor).is_ok() {
            aceptados += 1;
        }
    }
    Round {
        n,
        chosen: (aceptados >= mayoria).then(|| valor.clone()),
        proposed: Some(valor),
    }
}

const ACCEPTORS: [&str; 3] = ["a1", "a2", "a3"];
const PROPOSERS: [&str; 3] = ["relay-1", "relay-2", "relay-3"];
/// Rounds start this far apart: a round with a lost Prepare and a lost Accept waits two phase
/// timeouts (50 ms each), so it is over well before the next.
const ROUND_MS: u64 = 200;

/// The lesson's program on `rounds` (proposer index and losses, in order).
fn lesson_program(rounds: &[(usize, Losses)]) -> (Vec<Round>, Vec<Acceptor>) {
    let mut acceptors = vec![Acceptor::default(); 3];
    let mut ronda = [0u64; 3];
    let mut out = Vec::new();
    for (p, lost) in rounds {
        ronda[*p] += 1;
        let id = *p as u64 + 1;
        out.push(proponer(id, ronda[*p], PROPOSERS[*p], &mut acceptors, lost));
    }
    (out, acceptors)
}

/// dsim on the same rounds, with the config's defaults.
fn dsim(proposers: usize, rounds: &[(usize, Losses)]) -> (Vec<Round>, Vec<Acceptor>) {
    let mut config = PaxosConfig::lesson();
    config.proposers = PROPOSERS[..proposers]
        .iter()
        .map(|p| p.to_string())
        .collect();
    let mut s = scenario(&config, 0, false);
    for (r, (p, lost)) in rounds.iter().enumerate() {
        let start = r as u64 * ROUND_MS;
        for (i, acceptor) in ACCEPTORS.iter().enumerate() {
            for (kind, dropped) in [("Prepare", lost.prepare[i]), ("Accept", lost.accept[i])] {
                if dropped {
                    let mut rule = FaultRule::new(RuleAction::Drop);
                    rule.kind = Some(kind.into());
                    rule.from = Some(s.id(PROPOSERS[*p]));
                    rule.to = Some(s.id(acceptor));
                    rule.since = Some(Instant::from_millis(start));
                    rule.until = Some(Instant::from_millis(start + ROUND_MS));
                    s.at(0, Action::AddRule(rule));
                }
            }
        }
        s.propose(start, PROPOSERS[*p]);
    }
    let run = s.run();
    let mut out: Vec<Round> = Vec::new();
    for (_, node, note) in run.notes() {
        let round_of = |n: &u64, out: &mut Vec<Round>| out.iter().position(|r| r.n == *n);
        match note {
            PaxosNote::Preparing { n, .. } => out.push(Round {
                n: *n,
                proposed: None,
                chosen: None,
            }),
            PaxosNote::Proposed { n, value } => {
                let i = round_of(n, &mut out).expect("proposed in a round");
                out[i].proposed = Some(value.to_string());
            }
            PaxosNote::Chosen { n, value, .. } => {
                if let Some(i) = round_of(n, &mut out)
                    && PROPOSERS[rounds[i].0] == node
                {
                    out[i].chosen = Some(value.to_string());
                }
            }
            _ => {}
        }
    }
    let acceptors = ACCEPTORS
        .iter()
        .map(|a| {
            let state = run.actor(a).acceptor.clone().expect("an acceptor");
            Acceptor {
                prometido: state.promised,
                aceptado: state.accepted.map(|(n, v)| (n, v.to_string())),
            }
        })
        .collect();
    (out, acceptors)
}

fn losses() -> impl Strategy<Value = Losses> {
    // Each message is lost one time in four.
    let lost = || prop::array::uniform3(prop::bool::weighted(0.25));
    (lost(), lost()).prop_map(|(prepare, accept)| Losses { prepare, accept })
}

fn schedule() -> impl Strategy<Value = (usize, Vec<(usize, Losses)>)> {
    (1..=3usize).prop_flat_map(|proposers| {
        let rounds = prop::collection::vec((0..proposers, losses()), 2..=5);
        (Just(proposers), rounds)
    })
}

// Goal: dsim decides as the lesson's program does. Method: the lesson's rounds A, B and C
// (PX-1) first, then random schedules of 2 to 5 rounds by up to 3 proposers with lost Prepares
// and Accepts, through both. Proves: the same number, proposed value and chosen value in every
// round, and the same final promise and accepted proposal at every acceptor.
#[test]
fn dsim_decides_as_the_lessons_program_on_px1() {
    let none = || Losses {
        prepare: [false; 3],
        accept: [false; 3],
    };
    let round_a = Losses {
        prepare: [false; 3],
        accept: [false, true, true],
    };
    let rounds = [(0, round_a), (1, none()), (0, none())];
    let (lesson, lesson_acceptors) = lesson_program(&rounds);
    assert_eq!(lesson.iter().map(|r| r.n).collect::<Vec<_>>(), [11, 12, 21]);
    assert_eq!(lesson[1].chosen.as_deref(), Some("relay-1"));
    assert_eq!(dsim(2, &rounds), (lesson, lesson_acceptors));
}

proptest! {
    // A fixed seed, so that every run (and CI) tries the same 300 schedules.
    #![proptest_config(ProptestConfig {
        cases: 300,
        rng_seed: proptest::test_runner::RngSeed::Fixed(20),
        ..ProptestConfig::default()
    })]

    #[test]
    fn dsim_decides_as_the_lessons_program((proposers, rounds) in schedule()) {
        let expected = lesson_program(&rounds);
        prop_assert_eq!(dsim(proposers, &rounds), expected);
    }
}
