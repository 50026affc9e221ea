//! What a live-ring scenario can expect of a finished run, and how each is checked.
//!
//! In RON: `Read(key: "usuario:7", value: "Ada B.", version: 2)` (the key's last read),
//! `Acked(key: "usuario:7", version: 2)`, `HintDelivered(key: "usuario:7", to: "n3")`,
//! `Holds(node: "n3", key: "usuario:7", version: 2)` (the node's final store), `Rebalanced`,
//! `Redirected(client: "c1", at_least: 1)`, `MapLearned(client: "c1", epoch: 1)` and
//! `Splits(at_least: 1)`.

use crate::ring_store::RingNode;
use crate::ring_store::config::RingConfig;
use crate::ring_store::notes::RingNote;
use serde::{Deserialize, Serialize};
use sim_core::Outcome;
use traces::Lang;

/// One expectation about a live-ring run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum RingExpect {
    /// The last read of `key` returned this value and version.
    Read {
        /// The key.
        key: String,
        /// The value.
        value: String,
        /// The version.
        version: u64,
    },
    /// Version `version` of `key` was confirmed.
    Acked {
        /// The key.
        key: String,
        /// The version.
        version: u64,
    },
    /// A stand-in handed its hint for `key` to the home replica `to`.
    HintDelivered {
        /// The key.
        key: String,
        /// The home replica.
        to: String,
    },
    /// Node `node` ends holding version `version` of `key` (0: nothing).
    Holds {
        /// The node.
        node: String,
        /// The key.
        key: String,
        /// The version.
        version: u64,
    },
    /// A rebalance finished.
    Rebalanced,
    /// Client `client` was redirected (`Moved`) at least `at_least` times.
    Redirected {
        /// The client.
        client: String,
        /// The fewest redirects expected.
        at_least: u32,
    },
    /// Client `client` learned the map of `epoch`.
    MapLearned {
        /// The client.
        client: String,
        /// The epoch.
        epoch: u64,
    },
    /// At least `at_least` ranges split (dynamic scheme).
    Splits {
        /// The fewest splits expected.
        at_least: u32,
    },
}

fn notes<'a>(outcome: &'a Outcome<'_, RingNode>) -> impl Iterator<Item = (&'a str, &'a RingNote)> {
    outcome.notes().map(|(_, node, note)| (node, note))
}

/// Checks one expectation: `Ok` says what held, `Err` what was expected and what happened.
pub fn check(
    config: &RingConfig,
    expect: &RingExpect,
    outcome: &Outcome<'_, RingNode>,
) -> Result<String, String> {
    check_in(config, expect, outcome, Lang::En)
}

/// [`check`], said in `lang` (the course's Spanish: `confirmada`, `réplica`, `época`).
pub fn check_in(
    config: &RingConfig,
    expect: &RingExpect,
    outcome: &Outcome<'_, RingNode>,
    lang: Lang,
) -> Result<String, String> {
    let _ = config;
    let es = lang == Lang::Es;
    match expect {
        RingExpect::Read {
            key,
            value,
            version,
        } => last_read(outcome, key, value, *version, es),
        RingExpect::Acked { key, version } => acked(outcome, key, *version, es),
        RingExpect::HintDelivered { key, to } => hint_delivered(outcome, key, to, es),
        RingExpect::Holds { node, key, version } => holds(outcome, node, key, *version, es),
        RingExpect::Rebalanced => rebalanced(outcome, es),
        RingExpect::Redirected { client, at_least } => redirected(outcome, client, *at_least, es),
        RingExpect::MapLearned { client, epoch } => map_learned(outcome, client, *epoch, es),
        RingExpect::Splits { at_least } => splits(outcome, *at_least, es),
    }
}

/// The English or the Spanish words.
fn say(es: bool, en: String, spanish: String) -> String {
    if es { spanish } else { en }
}

/// `Read`: the last read of `key` returned `value` at `version`.
fn last_read(
    outcome: &Outcome<'_, RingNode>,
    key: &str,
    value: &str,
    version: u64,
    es: bool,
) -> Result<String, String> {
    let last = notes(outcome)
        .filter_map(|(_, n)| match n {
            RingNote::ReadResult {
                key: k,
                value,
                version,
                ..
            } if k == key => Some((value.clone(), *version)),
            _ => None,
        })
        .last();
    match last {
        Some((v, n)) if v == value && n == version => Ok(say(
            es,
            format!("the last read of {key} returned ('{v}', {n})"),
            format!("la última lectura de {key} devolvió ('{v}', {n})"),
        )),
        Some((v, n)) => Err(say(
            es,
            format!(
                "expected the last read of {key} to return ('{value}', {version}), but it \
                 returned ('{v}', {n})"
            ),
            format!(
                "se esperaba que la última lectura de {key} devolviera ('{value}', {version}), \
                 pero devolvió ('{v}', {n})"
            ),
        )),
        None => Err(say(
            es,
            format!("expected a read of {key}, but none finished"),
            format!("se esperaba una lectura de {key}, pero ninguna terminó"),
        )),
    }
}

/// `Acked`: `key` `version` was confirmed.
fn acked(
    outcome: &Outcome<'_, RingNode>,
    key: &str,
    version: u64,
    es: bool,
) -> Result<String, String> {
    let found = notes(outcome).any(|(_, n)| {
        matches!(n, RingNote::Acked { key: k, version: v, .. } if k == key && *v == version)
    });
    if found {
        Ok(say(
            es,
            format!("{key} v{version} confirmed"),
            format!("{key} v{version} confirmada"),
        ))
    } else {
        Err(say(
            es,
            format!("expected {key} v{version} confirmed, but it was not"),
            format!("se esperaba {key} v{version} confirmada, pero no lo fue"),
        ))
    }
}

/// `HintDelivered`: a hint for `key` was handed to `to`.
fn hint_delivered(
    outcome: &Outcome<'_, RingNode>,
    key: &str,
    to: &str,
    es: bool,
) -> Result<String, String> {
    let found = notes(outcome).find_map(|(_, n)| match n {
        RingNote::HintDelivered {
            key: k,
            home,
            standin,
            version,
        } if k == key && home == to => Some((standin.clone(), *version)),
        _ => None,
    });
    match found {
        Some((s, v)) => Ok(say(
            es,
            format!("{s} handed {key} v{v} to {to}"),
            format!("{s} entregó {key} v{v} a {to}"),
        )),
        None => Err(say(
            es,
            format!("expected a hint for {key} handed to {to}, but none was"),
            format!("se esperaba un hint de {key} entregado a {to}, pero no hubo ninguno"),
        )),
    }
}

/// `Holds`: at the end `node` stores `key` at `version` (0: not at all).
fn holds(
    outcome: &Outcome<'_, RingNode>,
    node: &str,
    key: &str,
    version: u64,
    es: bool,
) -> Result<String, String> {
    let Some(actor) = outcome.actor(node) else {
        return Err(say(
            es,
            format!("expected node {node}, but there is no such node"),
            format!("se esperaba el nodo {node}, pero no existe"),
        ));
    };
    let got = actor.stored(key).map_or(0, |d| d.version);
    if got == version {
        Ok(say(
            es,
            format!("{node} holds {key} v{version}"),
            format!("{node} guarda {key} v{version}"),
        ))
    } else {
        Err(say(
            es,
            format!("expected {node} to hold {key} v{version}, but it holds v{got}"),
            format!("se esperaba que {node} guardara {key} v{version}, pero guarda v{got}"),
        ))
    }
}

/// `Rebalanced`: a rebalance finished.
fn rebalanced(outcome: &Outcome<'_, RingNode>, es: bool) -> Result<String, String> {
    notes(outcome)
        .find_map(|(_, n)| match n {
            RingNote::RebalanceDone {
                epoch,
                moved_keys,
                moved_bytes,
                required_bytes,
                ..
            } => Some(say(
                es,
                format!(
                    "epoch {epoch} rebalanced: {moved_keys} key copies, {moved_bytes} bytes \
                     sent ({required_bytes} bytes required)"
                ),
                format!(
                    "época {epoch} rebalanceada: {moved_keys} copias de claves, {moved_bytes} \
                     bytes enviados ({required_bytes} bytes necesarios)"
                ),
            )),
            _ => None,
        })
        .ok_or_else(|| {
            say(
                es,
                "expected a rebalance to finish, but none did".into(),
                "se esperaba que terminara un rebalanceo, pero no terminó ninguno".into(),
            )
        })
}

/// `Redirected`: `client` was redirected at least `at_least` times.
fn redirected(
    outcome: &Outcome<'_, RingNode>,
    client: &str,
    at_least: u32,
    es: bool,
) -> Result<String, String> {
    let got = notes(outcome)
        .filter(|(_, n)| matches!(n, RingNote::Redirected { client: c, .. } if c == client))
        .count() as u32;
    if got >= at_least {
        Ok(say(
            es,
            format!("{client} was redirected {got} times"),
            format!("{client} fue redirigido {got} veces"),
        ))
    } else {
        Err(say(
            es,
            format!(
                "expected {client} redirected at least {at_least} times, but it was {got} times"
            ),
            format!(
                "se esperaba {client} redirigido al menos {at_least} veces, pero lo fue {got} \
                 veces"
            ),
        ))
    }
}

/// `MapLearned`: `client` learned the map of `epoch`.
fn map_learned(
    outcome: &Outcome<'_, RingNode>,
    client: &str,
    epoch: u64,
    es: bool,
) -> Result<String, String> {
    let found = notes(outcome).any(|(_, n)| {
        matches!(n, RingNote::MapLearned { client: c, epoch: e } if c == client && *e == epoch)
    });
    if found {
        Ok(say(
            es,
            format!("{client} learned the map of epoch {epoch}"),
            format!("{client} aprendió el mapa de la época {epoch}"),
        ))
    } else {
        Err(say(
            es,
            format!("expected {client} to learn the map of epoch {epoch}, but it did not"),
            format!("se esperaba que {client} aprendiera el mapa de la época {epoch}, pero no"),
        ))
    }
}

/// `Splits`: at least `at_least` ranges split.
fn splits(outcome: &Outcome<'_, RingNode>, at_least: u32, es: bool) -> Result<String, String> {
    let got = notes(outcome)
        .filter(|(_, n)| matches!(n, RingNote::Split { .. }))
        .count() as u32;
    if got >= at_least {
        Ok(say(
            es,
            format!("{got} ranges split"),
            format!("{got} rangos divididos"),
        ))
    } else {
        Err(say(
            es,
            format!("expected at least {at_least} splits, but there were {got}"),
            format!("se esperaban al menos {at_least} divisiones, pero hubo {got}"),
        ))
    }
}

/// Node names an expectation mentions.
pub fn expect_nodes(expect: &RingExpect) -> Vec<String> {
    match expect {
        RingExpect::HintDelivered { to, .. } => vec![to.clone()],
        RingExpect::Holds { node, .. } => vec![node.clone()],
        RingExpect::Redirected { client, .. } | RingExpect::MapLearned { client, .. } => {
            vec![client.clone()]
        }
        _ => Vec::new(),
    }
}
