//! The generic story of a run: what any protocol's trace says about sends, losses and faults.
//!
//! Protocols tell their own facts (who adopted which value, who leads which term) through
//! `Story::narrate`; this module covers the records they leave to it, in English or in the
//! course's Spanish.

use crate::lang::Lang;
use sim_core::{Actor, DropReason, Event, Fault, Record};

/// How much of a run the story tells.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Detail {
    /// Protocol facts, losses, faults and violations: the lesson's level.
    #[default]
    Story,
    /// Everything, sends and deliveries included.
    Everything,
}

/// A story line for a record the protocol did not narrate, or `None` to skip it at this detail.
pub fn generic_line<A: Actor>(record: &Record<A>, lang: Lang, detail: Detail) -> Option<String> {
    let es = lang == Lang::Es;
    let all = detail == Detail::Everything;
    Some(match &record.event {
        Event::Start { node, restart } => {
            // A restart is already told by its fault line ("n4 RETURNS after a crash").
            if !all {
                return None;
            }
            match (es, restart) {
                (false, false) => format!("{node} starts"),
                (false, true) => format!("{node} restarts"),
                (true, false) => format!("{node} arranca"),
                (true, true) => format!("{node} VUELVE (reinicio)"),
            }
        }
        Event::Send { from, to, msg, .. } if all => format!("{from} -> {to}: {}", ron_form(msg)),
        Event::Deliver {
            from, to, msg_kind, ..
        } if all => {
            if es {
                format!("{to} recibe {msg_kind} de {from}")
            } else {
                format!("{to} receives {msg_kind} from {from}")
            }
        }
        Event::Drop {
            from,
            to,
            msg_kind,
            reason,
            ..
        } => {
            let why = reason_text(*reason, es);
            if es {
                format!("{from}: {msg_kind} a {to} PERDIDO ({why})")
            } else {
                format!("{from}: {msg_kind} to {to} LOST ({why})")
            }
        }
        Event::Duplicate {
            from, to, msg_kind, ..
        } => {
            if es {
                format!("{from}: {msg_kind} a {to} DUPLICADO por la red")
            } else {
                format!("{from}: {msg_kind} to {to} DUPLICATED by the network")
            }
        }
        Event::Timer { node, timer } if all => format!("{node}: timer {}", ron_form(timer)),
        Event::Fault { fault } => fault_line(fault, es),
        Event::Command {
            node,
            command,
            accepted,
        } => match (es, accepted) {
            (false, true) => format!("{node} is told: {}", ron_form(command)),
            (false, false) => format!("{node} is down and cannot {}", ron_form(command)),
            (true, true) => format!("{node} recibe la orden {}", ron_form(command)),
            (true, false) => format!("{node} está caído y no puede {}", ron_form(command)),
        },
        Event::Note { node, note } if all => format!("{node}: {}", ron_form(note)),
        Event::Violation {
            invariant,
            message,
            translations,
        } => {
            if es {
                let message = translations.get(lang.tag()).unwrap_or(message);
                format!("VIOLACIÓN de {invariant}: {message}")
            } else {
                format!("VIOLATION of {invariant}: {message}")
            }
        }
        _ => return None,
    })
}

/// Why a message was lost, in words (`lost` to a partition, a fault rule, a down receiver).
pub fn reason_text(reason: DropReason, es: bool) -> String {
    if !es {
        return reason.to_string();
    }
    match reason {
        DropReason::Loss => "la red lo pierde".into(),
        DropReason::Partition => "cortado por una partición".into(),
        DropReason::Rule(i) => format!("regla de fallo #{}", i + 1),
        DropReason::Crashed => "el receptor está caído".into(),
        DropReason::Paused => "el receptor está parado".into(),
        DropReason::UnknownNode => "no existe ese nodo".into(),
    }
}

fn fault_line(fault: &Fault, es: bool) -> String {
    let join = |g: &[sim_core::Name]| {
        g.iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match (fault, es) {
        (Fault::Crash(n), false) => format!("{n} CRASHES (volatile state lost)"),
        (Fault::Crash(n), true) => format!("{n} CAE (pierde el estado volátil)"),
        (Fault::Restart(n), false) => format!("{n} RETURNS after a crash"),
        (Fault::Restart(n), true) => format!("{n} VUELVE tras la caída"),
        (Fault::Pause(n), false) => format!("{n} GOES DOWN (paused, state kept)"),
        (Fault::Pause(n), true) => format!("{n} CAE (parado, conserva su estado)"),
        (Fault::Resume(n), false) => format!("{n} RETURNS"),
        (Fault::Resume(n), true) => format!("{n} VUELVE"),
        (Fault::Partition(groups), false) => format!(
            "network partition: {}",
            groups
                .iter()
                .map(|g| format!("[{}]", join(g)))
                .collect::<Vec<_>>()
                .join(" | ")
        ),
        (Fault::Partition(groups), true) => format!(
            "partición de red: {}",
            groups
                .iter()
                .map(|g| format!("[{}]", join(g)))
                .collect::<Vec<_>>()
                .join(" | ")
        ),
        (Fault::PartitionOneWay(a, b), false) => {
            format!(
                "one-way cut: [{}] can no longer reach [{}]",
                join(a),
                join(b)
            )
        }
        (Fault::PartitionOneWay(a, b), true) => {
            format!(
                "corte en un sentido: [{}] ya no llega a [{}]",
                join(a),
                join(b)
            )
        }
        (Fault::Heal, false) => "the network heals".into(),
        (Fault::Heal, true) => "la red se recupera".into(),
        (Fault::Rule(i, what), false) => format!("fault rule #{i}: {what}"),
        (Fault::Rule(i, what), true) => format!(
            "regla de fallo #{i}: {}",
            rule_in_spanish(what).unwrap_or_else(|| what.clone())
        ),
        (Fault::ClearRules, false) => "fault rules removed".into(),
        (Fault::ClearRules, true) => "se quitan las reglas de fallo".into(),
        (
            Fault::Clock {
                node,
                skew_ns,
                drift_ppm,
            },
            _,
        ) => format!("{node} clock: skew {skew_ns} ns, drift {drift_ppm} ppm"),
        (Fault::Link(what), _) => format!("link change: {what}"),
        (Fault::Vacant { role, action }, false) => {
            format!("no node is {role} now: the {action} aimed at @{role} does nothing")
        }
        (Fault::Vacant { role, action }, true) => {
            let accion = match &**action {
                "crash" => "la caída",
                "pause" => "la parada",
                "resume" => "la vuelta",
                "command" => "la orden",
                other => other,
            };
            format!("ningún nodo tiene ahora el rol @{role}: {accion} dirigida a él no hace nada")
        }
    }
}

/// A fault rule's description (the kernel writes it in English, in one fixed grammar: `drop
/// occurrence 1 of Accept from relay-1 to a2`, `delay by 100ms every AppendEntries from nodo-1
/// to nodo-2 until 200ms`) in the course's Spanish; `None` if it does not parse, and then the
/// English stands.
pub fn rule_in_spanish(text: &str) -> Option<String> {
    let (what, rest): (String, &str) = if let Some(rest) = text.strip_prefix("drop") {
        ("descarto".to_string(), rest)
    } else if let Some(rest) = text.strip_prefix("delay by ") {
        let at = rest.find(' ')?;
        (format!("retraso {}", &rest[..at]), &rest[at..])
    } else if let Some(rest) = text.strip_prefix("duplicate (") {
        let (after, rest) = rest.split_once(" later)")?;
        (format!("duplico ({after} después)"), rest)
    } else {
        return None;
    };
    let (nth, rest) = if let Some(rest) = rest.strip_prefix(" occurrence ") {
        let (n, rest) = rest.split_once(" of ")?;
        (format!(" la aparición {n} de"), rest)
    } else {
        (" cada".to_string(), rest.strip_prefix(" every ")?)
    };
    let (kind, mut rest) = match rest.split_once(' ') {
        Some((kind, rest)) => (kind, format!(" {rest}")),
        None => (rest, String::new()),
    };
    let kind = if kind == "message" { "mensaje" } else { kind };
    let mut tail = Vec::new();
    for (en, es) in [(" until ", " hasta "), (" since ", " desde ")] {
        if let Some(at) = rest.rfind(en) {
            tail.insert(0, format!("{es}{}", &rest[at + en.len()..]));
            rest.truncate(at);
        }
    }
    let mut path = String::new();
    let (from, to) = match rest.rfind(" to ") {
        Some(at) => (rest[..at].to_string(), Some(rest[at + 4..].to_string())),
        None => (rest.clone(), None),
    };
    if let Some(from) = from.strip_prefix(" from ") {
        path.push_str(&format!(" de {from}"));
    } else if !from.is_empty() {
        return None;
    }
    if let Some(to) = to {
        path.push_str(&format!(" a {to}"));
    }
    Some(format!("{what}{nth} {kind}{path}{}", tail.concat()))
}

#[cfg(test)]
mod rule_tests {
    use super::rule_in_spanish;

    #[test]
    fn fault_rules_read_in_spanish() {
        for (en, es) in [
            (
                "drop occurrence 1 of Accept from relay-1 to a2",
                "descarto la aparición 1 de Accept de relay-1 a a2",
            ),
            (
                "delay by 100ms every AppendEntries from nodo-1 to nodo-2 until 200ms",
                "retraso 100ms cada AppendEntries de nodo-1 a nodo-2 hasta 200ms",
            ),
            (
                "duplicate (5ms later) every message to n2",
                "duplico (5ms después) cada mensaje a n2",
            ),
            (
                "delay by 230ms every PrePrepare from r0",
                "retraso 230ms cada PrePrepare de r0",
            ),
        ] {
            assert_eq!(rule_in_spanish(en).as_deref(), Some(es), "{en}");
        }
        assert_eq!(rule_in_spanish("something else"), None);
    }
}

/// A command as a scenario file writes it (`Put(key: "usuario:7", value: "Ada")`), not in
/// Rust's debug syntax (`Put { key: .. }`): what a student reads is what they would type.
pub fn ron_form<T: serde::Serialize + std::fmt::Debug>(value: &T) -> String {
    let one_line = ron::ser::PrettyConfig::new()
        .compact_structs(true)
        .compact_arrays(true)
        .compact_maps(true)
        .new_line(" ")
        .indentor("");
    ron::ser::to_string_pretty(value, one_line).unwrap_or_else(|_| format!("{value:?}"))
}

#[cfg(test)]
mod tests {
    use super::ron_form;

    #[derive(serde::Serialize, Debug)]
    enum Command {
        Put { key: String, value: String },
        Join(String),
        Propose,
        Load { keys: u32, nodes: Vec<u32> },
    }

    /// Commands read as the file writes them, on one line.
    #[test]
    fn commands_are_shown_in_the_files_syntax() {
        let shown = |c: Command| ron_form(&c);
        assert_eq!(
            shown(Command::Put {
                key: "usuario:7".into(),
                value: "Ada".into()
            }),
            r#"Put(key: "usuario:7", value: "Ada")"#
        );
        assert_eq!(shown(Command::Join("n6".into())), r#"Join("n6")"#);
        assert_eq!(shown(Command::Propose), "Propose");
        assert_eq!(
            shown(Command::Load {
                keys: 3,
                nodes: vec![1, 2]
            }),
            "Load(keys: 3, nodes: [1, 2])"
        );
    }
}
