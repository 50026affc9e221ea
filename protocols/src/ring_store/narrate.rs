//! The story of a live-ring run, one line per note, in English or in the lesson's Spanish
//! (réplica, quórum, clave, partición, reequilibrado, hinted handoff, "repara las rezagadas";
//! MOVED stays MOVED).
//!
//! For example `write usuario:7 = 'Ada' v1 confirmed by n3, n4 (W=2)` /
//! `escritura usuario:7 = 'Ada' v1 confirmada por n3, n4 (W=2)`. Sends, deliveries and faults are
//! left to the generic narrator.

use crate::ring_store::RingNode;
use crate::ring_store::notes::{RingNote, Via};
use sim_core::{Event, Record};
use std::collections::BTreeMap;
use traces::Lang;

fn via(v: Via, lang: Lang) -> &'static str {
    match (v, lang) {
        (Via::Write, Lang::En) => "write",
        (Via::Write, Lang::Es) => "escritura",
        (Via::Handoff, Lang::En) => "hinted handoff",
        (Via::Handoff, Lang::Es) => "hinted handoff",
        (Via::Repair, Lang::En) => "read repair",
        (Via::Repair, Lang::Es) => "reparación en lectura",
        (Via::Stream, Lang::En) => "rebalance stream",
        (Via::Stream, Lang::Es) => "traspaso de reequilibrado",
    }
}

/// The line for one note.
fn note_line(note: &RingNote, lang: Lang) -> String {
    use RingNote as N;
    match note {
        N::WriteStarted { .. } | N::Acked { .. } | N::WriteFailed { .. } => write_line(note, lang),
        N::Stored { .. } | N::Deleted { .. } | N::HintSent { .. } | N::HintDelivered { .. } => {
            copy_line(note, lang)
        }
        N::ReadStarted { .. }
        | N::ReadResult { .. }
        | N::VersionRead { .. }
        | N::ReadFailed { .. }
        | N::Repairing { .. } => read_line(note, lang),
        N::OwnershipChanged { .. }
        | N::Split { .. }
        | N::Streamed { .. }
        | N::RebalanceDone { .. } => move_line(note, lang),
        N::Redirected { .. }
        | N::MapLearned { .. }
        | N::Answered { .. }
        | N::GaveUp { .. }
        | N::Refused { .. } => client_line(note, lang),
    }
}

/// A write's start, confirmation or failure.
fn write_line(note: &RingNote, lang: Lang) -> String {
    use RingNote as N;
    let es = lang == Lang::Es;
    match note {
        N::WriteStarted {
            key,
            version,
            value,
            homes,
        } => match es {
            false => format!(
                "write {key} = '{value}' v{version} to replicas {}",
                homes.join(", ")
            ),
            true => format!(
                "escribo {key} = '{value}' v{version} en las réplicas {}",
                homes.join(", ")
            ),
        },
        N::Acked {
            key,
            version,
            value,
            by,
            standins,
            w,
            home_sets,
        } => {
            let extra = match (es, standins.is_empty()) {
                (_, true) => String::new(),
                (false, false) => format!("; stand-ins counted: {}", standins.join(", ")),
                (true, false) => format!("; suplentes contados: {}", standins.join(", ")),
            };
            let w = if *w == 0 { by.len() as u32 } else { *w };
            // While the ring moves, W acks are needed from the old homes and W from the new.
            let quorum = match (es, *home_sets > 1) {
                (false, false) => format!("W={w}"),
                (true, false) => format!("W={w}"),
                (false, true) => format!("W={w} of the old homes and W={w} of the new"),
                (true, true) => format!("W={w} de las réplicas de antes y W={w} de las nuevas"),
            };
            match es {
                false => format!(
                    "write {key} = '{value}' v{version} confirmed by {} ({quorum}){extra}",
                    by.join(", ")
                ),
                true => format!(
                    "escritura {key} = '{value}' v{version} confirmada por {} ({quorum}){extra}",
                    by.join(", ")
                ),
            }
        }
        N::WriteFailed {
            key,
            version,
            acks,
            needed,
        } => match es {
            false => format!("write {key} v{version} FAILED: {acks} acks < W {needed}"),
            true => {
                format!("escritura {key} v{version} FALLIDA: {acks} confirmaciones < W {needed}")
            }
        },
        _ => unreachable!("note_line routes only these notes here"),
    }
}

/// A copy kept or dropped, and a hint sent or delivered.
fn copy_line(note: &RingNote, lang: Lang) -> String {
    use RingNote as N;
    let es = lang == Lang::Es;
    match note {
        N::Stored {
            key,
            version,
            hinted,
            via: v,
            ..
        } => match (es, hinted) {
            (false, true) => format!("keeps {key} v{version} as a hint (stand-in)"),
            (true, true) => format!("guarda {key} v{version} como pista (suplente)"),
            (false, false) => format!("stores {key} v{version} ({})", via(*v, lang)),
            (true, false) => format!("guarda {key} v{version} ({})", via(*v, lang)),
        },
        N::Deleted { key, version, .. } => match es {
            false => format!("drops {key} v{version} (no longer a replica)"),
            true => format!("borra {key} v{version} (ya no es réplica)"),
        },
        N::HintSent {
            key,
            version,
            home,
            standin,
        } => match es {
            false => format!(
                "replica {home} silent: {standin} keeps {key} v{version} for it (hinted handoff)"
            ),
            true => format!(
                "la réplica {home} no responde: {standin} guarda {key} v{version} para ella (hinted handoff)"
            ),
        },
        N::HintDelivered {
            key, version, home, ..
        } => match es {
            false => format!("hinted handoff: {home} got {key} v{version}; hint dropped"),
            true => format!("hinted handoff: {home} recibe {key} v{version}; pista borrada"),
        },
        _ => unreachable!("note_line routes only these notes here"),
    }
}

/// A read's start, result, failure and repairs, and an owner's version read.
fn read_line(note: &RingNote, lang: Lang) -> String {
    use RingNote as N;
    let es = lang == Lang::Es;
    match note {
        N::ReadStarted { key, .. } => match es {
            false => format!("read {key}"),
            true => format!("leo {key}"),
        },
        N::ReadResult {
            key,
            version,
            value,
            from,
            ..
        } => {
            let r = from.len();
            match (es, *version) {
                (false, 0) => format!("read {key}: not found (R={r}: {})", from.join(", ")),
                (true, 0) => format!("lectura {key}: no existe (R={r}: {})", from.join(", ")),
                (false, _) => format!(
                    "read {key} -> ('{value}', {version}) from {} (R={r})",
                    from.join(", ")
                ),
                (true, _) => format!(
                    "lectura {key} -> ('{value}', {version}) de {} (R={r})",
                    from.join(", ")
                ),
            }
        }
        N::VersionRead { key, version, from } => match (es, *version) {
            (false, 0) => format!(
                "new owner of {key}: none of its replicas {} holds it",
                from.join(", ")
            ),
            (true, 0) => format!(
                "nuevo dueño de la clave {key}: ninguna de sus réplicas {} la guarda",
                from.join(", ")
            ),
            (false, _) => format!(
                "new owner of {key}: the newest its replicas {} hold is v{version}; it numbers past it",
                from.join(", ")
            ),
            (true, _) => format!(
                "nuevo dueño de la clave {key}: lo más nuevo que guardan sus réplicas {} es v{version}; numera por encima",
                from.join(", ")
            ),
        },
        N::ReadFailed {
            key, got, needed, ..
        } => match es {
            false => format!("read {key} FAILED: {got} replies < R {needed}"),
            true => format!("lectura {key} FALLIDA: {got} respuestas < R {needed}"),
        },
        N::Repairing {
            key,
            node,
            had,
            version,
        } => match es {
            false => format!("read repair: {node} had {key} v{had}, sent v{version}"),
            true => format!("repara las rezagadas: {node} tenía {key} v{had}, le envío v{version}"),
        },
        _ => unreachable!("note_line routes only these notes here"),
    }
}

/// A map change: its epoch, a split, the streams and the end of the move.
fn move_line(note: &RingNote, lang: Lang) -> String {
    use RingNote as N;
    let es = lang == Lang::Es;
    match note {
        N::OwnershipChanged {
            epoch,
            change,
            members,
            ..
        } => match es {
            false => format!("epoch {epoch}: {change}; ring now {}", members.join(", ")),
            true => format!(
                "época {epoch}: {}; anillo: {}",
                change
                    .replace("join", "entra")
                    .replace("leave", "sale")
                    .replace("split at", "división en"),
                members.join(", ")
            ),
        },
        N::Split {
            epoch,
            lo,
            hi,
            at,
            keys,
            bytes,
            limit,
            from,
            to,
        } => match es {
            false => format!(
                "partition {lo:016x}..{hi:016x} of {from} holds {keys} keys / {bytes} bytes > {limit}: splits at {at:016x}; the upper half moves to {to} (epoch {epoch})"
            ),
            true => format!(
                "la partición {lo:016x}..{hi:016x} de {from} ocupa {keys} claves / {bytes} bytes > {limit}: se divide en {at:016x}; la mitad superior pasa a {to} (época {epoch})"
            ),
        },
        N::Streamed {
            epoch,
            keys,
            bytes,
            took_ms,
        } => match es {
            false => {
                format!("streamed {keys} keys ({bytes} bytes) for epoch {epoch} in {took_ms} ms")
            }
            true => format!(
                "traspasa {keys} claves ({bytes} bytes) para la época {epoch} en {took_ms} ms"
            ),
        },
        N::RebalanceDone {
            epoch,
            moved_keys,
            moved_bytes,
            required_keys,
            required_bytes,
            share_keys,
            share_bytes,
            took_ms,
        } => match es {
            false => format!(
                "rebalance to epoch {epoch} done in {took_ms} ms: sent {moved_keys} key copies / {moved_bytes} bytes (every old home streams); required {required_keys} / {required_bytes} bytes; an even share is {share_keys} / {share_bytes} bytes"
            ),
            true => format!(
                "reequilibrado a la época {epoch} terminado en {took_ms} ms: enviadas {moved_keys} copias / {moved_bytes} bytes (envía cada réplica antigua); necesarias {required_keys} / {required_bytes} bytes; un reparto parejo son {share_keys} / {share_bytes} bytes"
            ),
        },
        _ => unreachable!("note_line routes only these notes here"),
    }
}

/// A client's view (redirects, maps, answers) and a refused command.
fn client_line(note: &RingNote, lang: Lang) -> String {
    use RingNote as N;
    let es = lang == Lang::Es;
    match note {
        N::Redirected {
            key,
            from,
            to,
            epoch,
            attempt,
            ..
        } => match es {
            false => format!(
                "MOVED: {from} does not own {key} (its map: epoch {epoch}); retry at {to} (redirect {attempt})"
            ),
            true => format!(
                "MOVED: {from} no es dueño de la clave {key} (su mapa: época {epoch}); reintento en {to} (redirección {attempt})"
            ),
        },
        N::MapLearned { epoch, .. } => match es {
            false => format!("learns the partition map of epoch {epoch}"),
            true => format!("aprende el mapa de particiones de la época {epoch}"),
        },
        N::Answered {
            key,
            write,
            ok,
            version,
            value,
            node,
            ..
        } => match (es, write, ok) {
            (false, _, false) => format!("{node} could not reach the quorum for {key}"),
            (true, _, false) => format!("{node} no alcanza el quórum para la clave {key}"),
            (false, true, true) => format!("{node} confirms write {key} v{version}"),
            (true, true, true) => format!("{node} confirma la escritura {key} v{version}"),
            (false, false, true) => format!("{node} answers {key} -> ('{value}', {version})"),
            (true, false, true) => format!("{node} responde {key} -> ('{value}', {version})"),
        },
        N::GaveUp { key, reason, .. } => match es {
            false => format!("gives up {key}: {reason}"),
            true => format!("abandona la clave {key}: {reason}"),
        },
        N::Refused { command, reason } => match es {
            false => format!("refused '{command}': {reason}"),
            true => format!("rechazado '{command}': {reason}"),
        },
        _ => unreachable!("note_line routes only these notes here"),
    }
}
/// The story line for one record, or `None` for the generic narrator.
pub fn narrate(record: &Record<RingNode>, lang: Lang) -> Option<String> {
    match &record.event {
        Event::Note { node, note } => Some(format!("[{node}] {}", note_line(note, lang))),
        _ => None,
    }
}

/// The events RING-5 and RING-6 are about: a join or leave, the new ring, a split, a MOVED
/// redirect, a rebalance finished, a write or read that failed, a hint delivered.
pub fn is_key(record: &Record<RingNode>) -> bool {
    use crate::ring_store::msg::RingCommand;
    match &record.event {
        Event::Command { command, .. } => {
            matches!(command, RingCommand::Join(_) | RingCommand::Leave(_))
        }
        Event::Note { note, .. } => matches!(
            note,
            RingNote::OwnershipChanged { .. }
                | RingNote::Split { .. }
                | RingNote::Redirected { .. }
                | RingNote::RebalanceDone { .. }
                | RingNote::WriteFailed { .. }
                | RingNote::ReadFailed { .. }
                | RingNote::HintDelivered { .. }
        ),
        _ => false,
    }
}

/// A hint that delivers a write the client was told had FAILED, told with that news: the write
/// reaches its home all the same (a failed write under a sloppy quorum is not an undone one).
pub fn retell(records: &[Record<RingNode>], lang: Lang) -> BTreeMap<usize, String> {
    let mut failed: BTreeMap<(&str, u64), sim_core::Instant> = BTreeMap::new();
    let mut out = BTreeMap::new();
    for (index, record) in records.iter().enumerate() {
        let Event::Note { note, .. } = &record.event else {
            continue;
        };
        match note {
            RingNote::WriteFailed { key, version, .. } => {
                failed
                    .entry((key.as_str(), *version))
                    .or_insert(record.time);
            }
            RingNote::HintDelivered { key, version, .. } => {
                let Some(at) = failed.get(&(key.as_str(), *version)) else {
                    continue;
                };
                let Some(line) = narrate(record, lang) else {
                    continue;
                };
                out.insert(
                    index,
                    match lang {
                        Lang::En => format!(
                            "{line} (the write reported FAILED at {at} arrives all the same)"
                        ),
                        Lang::Es => {
                            format!("{line} (la escritura que falló a los {at} llega igualmente)")
                        }
                    },
                );
            }
            _ => {}
        }
    }
    out
}
