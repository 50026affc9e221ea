//! A lost leadership told step by step from the leader's last successful renewal, as exercise
//! 3's solution tells it (t=0 the last renewal; t≈3 the refresh fails and the leader stops;
//! t=10 the lease expires, the key is deleted and another wins; t=25 the old one waits as a
//! follower). Read from the records alone, for the story's summary.

use crate::lease::node::LeaseNode;
use crate::lease::notes::{LeaseNote, StepDown};
use sim_core::{Instant, Record};
use traces::Lang;

/// One line per step of every leadership lost to something other than a clean shutdown.
pub fn lost_leaderships(records: &[Record<LeaseNode>], lang: Lang) -> Vec<String> {
    let es = lang == Lang::Es;
    let notes: Vec<(Instant, &str, &LeaseNote)> = sim_core::trace::notes(records).collect();
    let mut lines = Vec::new();
    for (i, &(stopped, who, note)) in notes.iter().enumerate() {
        let LeaseNote::StepsDown { why } = note else {
            continue;
        };
        if *why == StepDown::Shutdown {
            continue;
        }
        let renewed = notes[..i].iter().rev().find_map(|&(t, n, note)| {
            (n == who && matches!(note, LeaseNote::Refreshed { .. } | LeaseNote::Leads { .. }))
                .then_some(t)
        });
        let Some(t0) = renewed else {
            continue;
        };
        let at = |t: Instant| format!("t={:.1} s", (t.0 - t0.0) as f64 / 1e9);
        lines.push(if es {
            format!("cronología de {who}, desde su última renovación con éxito ({t0}):")
        } else {
            format!("timeline of {who}, from its last successful renewal ({t0}):")
        });
        // The steps, in time order (a paused leader stops after the others moved on).
        let mut steps: Vec<(Instant, String)> = vec![(
            t0,
            if es {
                format!("  {}: última renovación con éxito", at(t0))
            } else {
                format!("  {}: last successful renewal", at(t0))
            },
        )];
        let reason = match (why, es) {
            (StepDown::RefreshTimedOut, false) => "its refresh had no answer in time",
            (StepDown::RefreshTimedOut, true) => "su refresh no tuvo respuesta a tiempo",
            (StepDown::LeaseGone, false) => "its refresh found the lease gone",
            (StepDown::LeaseGone, true) => "su refresh encontró el lease ya expirado",
            (StepDown::Deadline, false) => "its own clock's deadline",
            (StepDown::Deadline, true) => "el plazo de su propio reloj",
            (StepDown::Shutdown, _) => "",
        };
        steps.push((
            stopped,
            if es {
                format!(
                    "  {}: {who} deja de actuar como líder ({reason})",
                    at(stopped)
                )
            } else {
                format!("  {}: {who} stops acting as leader ({reason})", at(stopped))
            },
        ));
        let later = &notes[i + 1..];
        let expired = notes.iter().find_map(|&(t, _, note)| match note {
            LeaseNote::LeaseEnded {
                revoked: false,
                deleted: Some((_, holder, _)),
                ..
            } if holder == who && t > t0 => Some(t),
            _ => None,
        });
        if let Some(t) = expired {
            steps.push((
                t,
                if es {
                    format!(
                        "  {}: su lease expira en el almacén y la clave se borra",
                        at(t)
                    )
                } else {
                    format!(
                        "  {}: its lease expires in the store and the key is deleted",
                        at(t)
                    )
                },
            ));
        }
        let winner = notes.iter().find_map(|&(t, n, note)| {
            (t > t0 && n != who && matches!(note, LeaseNote::Leads { .. })).then_some((t, n))
        });
        if let Some((t, n)) = winner {
            steps.push((
                t,
                if es {
                    format!("  {}: {n} gana la carrera y es el nuevo líder", at(t))
                } else {
                    format!("  {}: {n} wins the race and leads", at(t))
                },
            ));
            let follows = later.iter().find_map(|&(t2, n2, note)| {
                (t2 > t && n2 == who && matches!(note, LeaseNote::Waits { .. })).then_some(t2)
            });
            if let Some(t2) = follows {
                steps.push((
                    t2,
                    if es {
                        format!(
                            "  {}: {who} encuentra la clave ocupada y espera como seguidor",
                            at(t2)
                        )
                    } else {
                        format!(
                            "  {}: {who} finds the key taken and waits as a follower",
                            at(t2)
                        )
                    },
                ));
            }
        }
        steps.sort_by_key(|(t, _)| *t);
        lines.extend(steps.into_iter().map(|(_, line)| line));
    }
    lines
}
