//! The story of a lease run, one line per note, in English or in the lesson's Spanish.
//!
//! The relay's lines are `relay_lider.py`'s prints (`SOY LÍDER del relay outbox`, `líder
//! actual: relay-1; espero`, `dejo de ser líder: no he podido renovar el lease`); the store's
//! and the resource's say what etcd and the database did (a leader's routine writes, with the
//! token the database already has, only with -v). Lost messages to or from the store
//! are told as losses; everything else is left to the generic narrator.

use crate::lease::msg::LeaseMsg;
use crate::lease::node::LeaseNode;
use crate::lease::notes::{LeaseNote, StepDown};
use sim_core::{Event, Message, Record};
use traces::Lang;

fn why(why: StepDown, lang: Lang) -> &'static str {
    match (why, lang) {
        (StepDown::RefreshTimedOut, Lang::En) => {
            "could not renew the lease (the refresh had no answer in time)"
        }
        (StepDown::RefreshTimedOut, Lang::Es) => {
            "no he podido renovar el lease (el refresh no tuvo respuesta a tiempo)"
        }
        (StepDown::LeaseGone, Lang::En) => "could not renew the lease (TTL 0: it no longer exists)",
        (StepDown::LeaseGone, Lang::Es) => "no he podido renovar el lease (TTL 0: ya no existe)",
        (StepDown::Deadline, Lang::En) => {
            "its own clock says the lease may have expired (last refresh + TTL - margin)"
        }
        (StepDown::Deadline, Lang::Es) => {
            "mi reloj dice que el lease puede haber expirado (último refresh + TTL - margen)"
        }
        (StepDown::Shutdown, Lang::En) => "clean shutdown: revokes its lease",
        (StepDown::Shutdown, Lang::Es) => "apagado limpio: revoco el lease",
    }
}

/// What a leader leads: the lesson's relay outbox for its key, else the key.
fn what_leads(key: &str, lang: Lang) -> String {
    match (key == "/km0/lider/relay-outbox", lang) {
        (true, Lang::En) => "of the relay outbox".into(),
        (true, Lang::Es) => "del relay outbox".into(),
        (false, Lang::En) => format!("of {key}"),
        (false, Lang::Es) => format!("de {key}"),
    }
}

/// The line for one note of `node`.
fn note_line(node: &str, note: &LeaseNote, lang: Lang) -> String {
    use LeaseNote as N;
    let text = match (note, lang) {
        (N::Granted { lease }, Lang::En) => format!("got lease {lease}"),
        (N::Granted { lease }, Lang::Es) => format!("obtengo el lease {lease}"),
        (N::Leads { key, token, .. }, Lang::En) => {
            format!("I AM LEADER {} (token {token})", what_leads(key, lang))
        }
        (N::Leads { key, token, .. }, Lang::Es) => {
            format!("SOY LÍDER {} (token {token})", what_leads(key, lang))
        }
        (N::Waits { holder }, Lang::En) => format!(
            "current leader: {}; waiting",
            holder.as_deref().unwrap_or("(none)")
        ),
        (N::Waits { holder }, Lang::Es) => format!(
            "líder actual: {}; espero",
            holder.as_deref().unwrap_or("(ninguno)")
        ),
        (N::Races, Lang::En) => "the key is free: races for it".into(),
        (N::Races, Lang::Es) => "la clave está libre: compito por ella".into(),
        (N::StepsDown { why: w }, Lang::En) => format!("STOPS LEADING: {}", why(*w, lang)),
        (N::StepsDown { why: w }, Lang::Es) => format!("DEJO DE SER LÍDER: {}", why(*w, lang)),
        (N::CallFailed { call, retry_in_ms }, Lang::En) => format!(
            "the store did not answer its {call} in time: tries again in {}",
            secs(*retry_in_ms)
        ),
        (N::CallFailed { call, retry_in_ms }, Lang::Es) => format!(
            "el almacén no respondió a mi {call} a tiempo: lo intento de nuevo en {}",
            secs(*retry_in_ms)
        ),
        (N::Refreshed { ttl_ms }, Lang::En) => {
            format!("lease renewed (TTL {})", secs(*ttl_ms))
        }
        (N::Refreshed { ttl_ms }, Lang::Es) => {
            format!("lease renovado (TTL {})", secs(*ttl_ms))
        }
        (N::IgnoredRefresh, Lang::En) => {
            "the refresh failed, and it carries on as leader (it does not check)".into()
        }
        (N::IgnoredRefresh, Lang::Es) => {
            "el refresh ha fallado y sigo de líder (no lo compruebo)".into()
        }
        (
            N::Created {
                key,
                holder,
                revision,
            },
            Lang::En,
        ) => format!("creates {key} = {holder} (revision {revision})"),
        (
            N::Created {
                key,
                holder,
                revision,
            },
            Lang::Es,
        ) => format!("crea {key} = {holder} (revisión {revision})"),
        (
            N::LeaseEnded {
                lease,
                revoked,
                deleted,
            },
            Lang::En,
        ) => {
            let how = if *revoked { "is revoked" } else { "EXPIRES" };
            match deleted {
                Some((key, holder, revision)) => format!(
                    "lease {lease} {how}: deletes {key} ({holder}'s, revision {revision}); the watchers hear of it"
                ),
                None => format!("lease {lease} {how}"),
            }
        }
        (
            N::LeaseEnded {
                lease,
                revoked,
                deleted,
            },
            Lang::Es,
        ) => {
            let how = if *revoked { "se revoca" } else { "EXPIRA" };
            match deleted {
                Some((key, holder, revision)) => format!(
                    "el lease {lease} {how}: borra {key} (de {holder}, revisión {revision}); los watchers reciben el DeleteEvent"
                ),
                None => format!("el lease {lease} {how}"),
            }
        }
        (N::Accepted { writer, token, .. }, Lang::En) => {
            format!("accepts {writer}'s write (token {token})")
        }
        (N::Accepted { writer, token, .. }, Lang::Es) => {
            format!("acepta la escritura de {writer} (token {token})")
        }
        (
            N::Rejected {
                writer,
                token,
                highest,
            },
            Lang::En,
        ) => format!("REJECTS {writer}'s write: token {token} < {highest} (fencing)"),
        (
            N::Rejected {
                writer,
                token,
                highest,
            },
            Lang::Es,
        ) => format!("RECHAZA la escritura de {writer}: token {token} < {highest} (cercado)"),
    };
    format!("[{node}] {text}")
}

/// A duration in ms as seconds, the lesson's unit: "10 s", "2.5 s".
pub fn secs(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{} s", ms as f64 / 1000.0)
    }
}

/// The course-style line for `record`, or `None` for what the generic narrator tells.
pub fn narrate(record: &Record<LeaseNode>, lang: Lang) -> Option<String> {
    match &record.event {
        // A leader's routine writes (the token the resource already has) are told with -v
        // only: one line per leader's first write, and every stale one.
        Event::Note {
            note: LeaseNote::Accepted { token, highest, .. },
            ..
        } if token == highest => None,
        Event::Note { node, note } => Some(note_line(node, note, lang)),
        Event::Drop {
            from, to, msg_kind, ..
        } if LeaseMsg::KINDS.contains(&msg_kind.as_ref()) => {
            let kind = msg_kind.to_lowercase();
            Some(match lang {
                Lang::En => format!("[{from}] {kind} to {to} LOST"),
                Lang::Es => format!("[{from}] {kind} a {to} PERDIDO"),
            })
        }
        _ => None,
    }
}

/// The events the lease lesson is about: who leads, who steps down, a lease that ends, a
/// fenced write refused.
pub fn is_key(record: &Record<LeaseNode>) -> bool {
    matches!(
        &record.event,
        Event::Note {
            note: LeaseNote::Leads { .. }
                | LeaseNote::StepsDown { .. }
                | LeaseNote::LeaseEnded { .. }
                | LeaseNote::Rejected { .. },
            ..
        }
    )
}
