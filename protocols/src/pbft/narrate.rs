//! The story of a PBFT run, one line per note, in English or in the course's Spanish
//! (pre-prepare, prepare, commit and checkpoint keep the paper's names, as the lesson does;
//! "réplica bizantina" for a Byzantine replica).

use crate::pbft::PbftNode;
use crate::pbft::msg::PbftMsg;
use crate::pbft::notes::{ByzantineAct, PbftNote, Refusal};
use crate::pbft::service::OpResult;
use sim_core::{Event, Message, Record};
use traces::Lang;

/// A result in words: `'1'`, or none.
pub fn result(result: &OpResult, lang: Lang) -> String {
    match (result, lang) {
        (Some(v), _) => format!("'{v}'"),
        (None, Lang::En) => "none".into(),
        (None, Lang::Es) => "nada".into(),
    }
}

fn refusal(why: &Refusal, lang: Lang) -> String {
    match (why, lang) {
        (Refusal::NotPrimary { primary }, Lang::En) => {
            format!("it is not the primary (the primary is {primary})")
        }
        (Refusal::NotPrimary { primary }, Lang::Es) => {
            format!("no es el primario (el primario es {primary})")
        }
        (Refusal::Conflicting { accepted, offered }, Lang::En) => {
            format!("it already accepted d={accepted} there, not d={offered}")
        }
        (Refusal::Conflicting { accepted, offered }, Lang::Es) => {
            format!("ya acepté d={accepted} ahí, no d={offered}")
        }
        (Refusal::OutsideWindow { low, high }, Lang::En) => {
            format!("outside the water marks {low}..{high}")
        }
        (Refusal::OutsideWindow { low, high }, Lang::Es) => {
            format!("fuera de las marcas de agua {low}..{high}")
        }
        (Refusal::BadRequest, Lang::En) => "the request does not match its digest".into(),
        (Refusal::BadRequest, Lang::Es) => "la petición no coincide con su digest".into(),
        (Refusal::OtherView { current }, Lang::En) => format!("I am in view {current}"),
        (Refusal::OtherView { current }, Lang::Es) => format!("estoy en la vista {current}"),
    }
}

fn byzantine(act: &ByzantineAct, lang: Lang) -> String {
    let text = match (act, lang) {
        (ByzantineAct::Equivocated { seq, op, to }, Lang::En) => {
            format!("pre-prepares n={seq} as '{op}' to {} only", to.join(", "))
        }
        (ByzantineAct::Equivocated { seq, op, to }, Lang::Es) => {
            format!("pre-prepare n={seq} como '{op}' solo a {}", to.join(", "))
        }
        (ByzantineAct::Lied { seq }, Lang::En) => {
            format!("votes at n={seq} for a digest nobody computed")
        }
        (ByzantineAct::Lied { seq }, Lang::Es) => {
            format!("vota en n={seq} por un digest que nadie calculó")
        }
        (ByzantineAct::DoubleVoted { seq, digest }, Lang::En) => {
            format!("votes prepare and commit for d={digest} at n={seq} without being prepared")
        }
        (ByzantineAct::DoubleVoted { seq, digest }, Lang::Es) => {
            format!("vota prepare y commit por d={digest} en n={seq} sin estar preparada")
        }
        (ByzantineAct::Replayed { kind }, Lang::En) => {
            format!("replays an old {} to every replica", kind_word(kind))
        }
        (ByzantineAct::Replayed { kind }, Lang::Es) => {
            format!(
                "reenvía un {} antiguo a todas las réplicas",
                kind_word(kind)
            )
        }
        (ByzantineAct::Reassigned { seq, op }, Lang::En) => {
            format!("assigns '{op}' again, at n={seq}")
        }
        (ByzantineAct::Reassigned { seq, op }, Lang::Es) => {
            format!("asigna '{op}' otra vez, en n={seq}")
        }
    };
    match lang {
        Lang::En => format!("BYZANTINE: {text}"),
        Lang::Es => format!("RÉPLICA BIZANTINA: {text}"),
    }
}

/// A message kind as the lesson writes it: `pre-prepare`, `prepare`, `commit` ...
fn kind_word(kind: &str) -> String {
    match kind {
        "PrePrepare" => "pre-prepare".into(),
        other => other.to_lowercase(),
    }
}

/// `n=1, n=2`, or `none` for no numbers.
fn numbers(seqs: &[u64], none: &str) -> String {
    if seqs.is_empty() {
        return none.into();
    }
    let seqs: Vec<String> = seqs.iter().map(|n| format!("n={n}")).collect();
    seqs.join(", ")
}

/// A new view's proposals: `n=1 d=86ad, n=2 null`.
fn proposals_text(
    proposals: &[(u64, crate::pbft::sign::Digest)],
    null: &str,
    none: &str,
) -> String {
    if proposals.is_empty() {
        return none.into();
    }
    let items: Vec<String> = proposals
        .iter()
        .map(|(n, d)| {
            if *d == crate::pbft::msg::NULL {
                format!("n={n} {null}")
            } else {
                format!("n={n} d={d}")
            }
        })
        .collect();
    items.join(", ")
}

/// What a NEW-VIEW carried into this replica: its proposals, and the numbers its stable
/// checkpoint already covered.
fn carried_over(
    proposals: &[(u64, crate::pbft::sign::Digest)],
    covered: &[u64],
    lang: Lang,
) -> String {
    let (null, none, behind, and) = match lang {
        Lang::En => (
            "null",
            "nothing to carry over",
            "already behind its stable checkpoint",
            "and",
        ),
        Lang::Es => (
            "nula",
            "nada que arrastrar",
            "que mi checkpoint estable ya cubre",
            "y",
        ),
    };
    let what = proposals_text(proposals, null, none);
    let (Some(first), Some(last)) = (covered.first(), covered.last()) else {
        return what;
    };
    let sep = if lang == Lang::Es { ", " } else { " " };
    let behind = format!("n={first}..{last}{sep}{behind}");
    if proposals.is_empty() {
        behind
    } else {
        format!("{what}, {and} {behind}")
    }
}

/// ` (n=3, n=4)`, or nothing for no numbers.
fn at(seqs: &[u64]) -> String {
    if seqs.is_empty() {
        return String::new();
    }
    let seqs: Vec<String> = seqs.iter().map(|n| format!("n={n}")).collect();
    format!(" ({})", seqs.join(", "))
}

/// The line for one note of `node`.
fn note_line(node: &str, note: &PbftNote, lang: Lang) -> String {
    use PbftNote as N;
    let text = match (note, lang) {
        (N::Requested { timestamp, op, to }, Lang::En) => {
            format!("request {timestamp}: '{op}' to the primary {to}")
        }
        (N::Requested { timestamp, op, to }, Lang::Es) => {
            format!("petición {timestamp}: '{op}' al primario {to}")
        }
        (N::Retransmitted { timestamp }, Lang::En) => {
            format!("no result for request {timestamp} in time: sends it to every replica")
        }
        (N::Retransmitted { timestamp }, Lang::Es) => {
            format!(
                "sin resultado de la petición {timestamp} a tiempo: la envío a todas las réplicas"
            )
        }
        (
            N::Accepted {
                op,
                result: r,
                replies,
                ..
            },
            Lang::En,
        ) => format!(
            "ACCEPTS {} for '{op}': {} matching replies ({})",
            result(r, lang),
            replies.len(),
            replies.join(", ")
        ),
        (
            N::Accepted {
                op,
                result: r,
                replies,
                ..
            },
            Lang::Es,
        ) => format!(
            "ACEPTO {} para '{op}': {} respuestas iguales ({})",
            result(r, lang),
            replies.len(),
            replies.join(", ")
        ),
        (
            N::Forwarded {
                client,
                timestamp,
                to,
            },
            Lang::En,
        ) => {
            format!("forwards {client}'s request {timestamp} to the primary {to}")
        }
        (
            N::Forwarded {
                client,
                timestamp,
                to,
            },
            Lang::Es,
        ) => {
            format!("reenvío la petición {timestamp} de {client} al primario {to}")
        }
        (
            N::PrePrepared {
                view,
                seq,
                digest,
                primary,
                issued,
                client,
                op,
                ..
            },
            Lang::En,
        ) => {
            if *issued {
                format!("primary of view {view}: assigns n={seq} to {client}'s '{op}' (d={digest})")
            } else {
                format!(
                    "pre-prepare (v={view}, n={seq}) from {primary}: {client}'s '{op}' (d={digest})"
                )
            }
        }
        (
            N::PrePrepared {
                view,
                seq,
                digest,
                primary,
                issued,
                client,
                op,
                ..
            },
            Lang::Es,
        ) => {
            if *issued {
                format!(
                    "primario de la vista {view}: asigno n={seq} a '{op}' de {client} (d={digest})"
                )
            } else {
                format!(
                    "pre-prepare (v={view}, n={seq}) de {primary}: '{op}' de {client} (d={digest})"
                )
            }
        }
        (
            N::Refused {
                view,
                seq,
                from,
                why,
            },
            Lang::En,
        ) => format!(
            "REFUSES the pre-prepare (v={view}, n={seq}) from {from}: {}",
            refusal(why, lang)
        ),
        (
            N::Refused {
                view,
                seq,
                from,
                why,
            },
            Lang::Es,
        ) => format!(
            "RECHAZO el pre-prepare (v={view}, n={seq}) de {from}: {}",
            refusal(why, lang)
        ),
        (
            N::Prepared {
                view,
                seq,
                prepares,
                ..
            },
            Lang::En,
        ) => {
            let s = if *prepares == 1 { "" } else { "s" };
            format!("PREPARED (v={view}, n={seq}): pre-prepare + {prepares} matching prepare{s}")
        }
        (
            N::Prepared {
                view,
                seq,
                prepares,
                ..
            },
            Lang::Es,
        ) => {
            let (s, es) = if *prepares == 1 {
                ("", "")
            } else {
                ("s", "es")
            };
            format!("PREPARADA (v={view}, n={seq}): pre-prepare + {prepares} prepare{s} igual{es}")
        }
        (
            N::Committed {
                view, seq, commits, ..
            },
            Lang::En,
        ) => {
            format!("COMMITTED (v={view}, n={seq}): {commits} matching commits")
        }
        (
            N::Committed {
                view, seq, commits, ..
            },
            Lang::Es,
        ) => {
            format!("CONFIRMADA (v={view}, n={seq}): {commits} commits iguales")
        }
        (
            N::Executed {
                seq,
                client,
                op,
                result: r,
                again: false,
                ..
            },
            Lang::En,
        ) => {
            format!("executes n={seq}: {client}'s '{op}' -> {}", result(r, lang))
        }
        (
            N::Executed {
                seq,
                client,
                op,
                result: r,
                again: false,
                ..
            },
            Lang::Es,
        ) => {
            format!("ejecuto n={seq}: '{op}' de {client} -> {}", result(r, lang))
        }
        (
            N::Executed {
                seq,
                client,
                op,
                timestamp,
                ..
            },
            Lang::En,
        ) => format!(
            "n={seq} repeats {client}'s request {timestamp} ('{op}'), executed already: not again"
        ),
        (
            N::Executed {
                seq,
                client,
                op,
                timestamp,
                ..
            },
            Lang::Es,
        ) => format!(
            "n={seq} repite la petición {timestamp} de {client} ('{op}'), ya ejecutada: no la repito"
        ),
        (
            N::CheckpointStable {
                seq, checkpoints, ..
            },
            Lang::En,
        ) => format!(
            "stable checkpoint at n={seq} ({checkpoints} matching): log up to {seq} collected"
        ),
        (
            N::CheckpointStable {
                seq, checkpoints, ..
            },
            Lang::Es,
        ) => format!(
            "checkpoint estable en n={seq} ({checkpoints} iguales): log hasta {seq} descartado"
        ),
        (N::Resent { seqs, messages }, Lang::En) => {
            format!(
                "the client asked again: sends {messages} message(s) again{}",
                at(seqs)
            )
        }
        (N::Resent { seqs, messages }, Lang::Es) => {
            format!(
                "el cliente insiste: reenvío {messages} mensaje(s){}",
                at(seqs)
            )
        }
        (
            N::ViewChangeStarted {
                view,
                stable,
                prepared,
            },
            Lang::En,
        ) => format!(
            "VIEW CHANGE to view {view}: last stable checkpoint {stable}, prepared {}",
            numbers(prepared, "nothing")
        ),
        (
            N::ViewChangeStarted {
                view,
                stable,
                prepared,
            },
            Lang::Es,
        ) => format!(
            "CAMBIO DE VISTA a la vista {view}: último checkpoint estable {stable}, preparadas {}",
            numbers(prepared, "ninguna")
        ),
        (
            N::NewViewEntered {
                view,
                primary,
                from,
                proposals,
                covered,
                built,
            },
            _,
        ) => {
            let what = carried_over(proposals, covered, lang);
            match (*built, lang) {
                (true, Lang::En) => format!(
                    "NEW VIEW {view}: primary, from the view changes of {}; {what}",
                    from.join(", ")
                ),
                (true, Lang::Es) => format!(
                    "NUEVA VISTA {view}: soy el primario, con los cambios de vista de {}; {what}",
                    from.join(", ")
                ),
                (false, Lang::En) => format!("enters view {view} (primary {primary}); {what}"),
                (false, Lang::Es) => {
                    format!("entro en la vista {view} (primario {primary}); {what}")
                }
            }
        }
        (
            N::NewViewRefused {
                view, from, why, ..
            },
            Lang::En,
        ) => {
            format!("REFUSES the new view {view} from {from}: {why}")
        }
        (
            N::NewViewRefused {
                view,
                from,
                why,
                why_es,
            },
            Lang::Es,
        ) => {
            let why = if why_es.is_empty() { why } else { why_es };
            format!("RECHAZO la nueva vista {view} de {from}: {why}")
        }
        (N::ExecutedNull { seq }, Lang::En) => {
            format!("executes n={seq}: the null request (nothing to do)")
        }
        (N::ExecutedNull { seq }, Lang::Es) => {
            format!("ejecuto n={seq}: la petición nula (nada que hacer)")
        }
        (N::Byzantine { act }, _) => byzantine(act, lang),
    };
    format!("[{node}] {text}")
}

/// The course-style line for `record`, or `None` for what the generic narrator tells.
pub fn narrate(record: &Record<PbftNode>, lang: Lang) -> Option<String> {
    match &record.event {
        Event::Note { node, note } => Some(note_line(node, note, lang)),
        Event::Drop {
            from, to, msg_kind, ..
        } if PbftMsg::KINDS.contains(&msg_kind.as_ref()) => {
            let kind = kind_word(msg_kind);
            Some(match lang {
                Lang::En => format!("[{from}] {kind} to {to} LOST"),
                Lang::Es => format!("[{from}] {kind} a {to} PERDIDO"),
            })
        }
        _ => None,
    }
}

/// The events the PBFT lesson is about: a view change and the new view (a Byzantine replica's
/// acts are too many to keep in a shortened story; its first ones are in the head).
pub fn is_key(record: &Record<PbftNode>) -> bool {
    matches!(
        &record.event,
        Event::Note {
            note: PbftNote::ViewChangeStarted { .. } | PbftNote::NewViewEntered { .. },
            ..
        }
    )
}
