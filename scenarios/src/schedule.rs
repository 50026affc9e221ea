//! Schedules as text: the kernel's [`Choice`]s written in a scenario file's `schedule: [...]`
//! and read back, exactly.
//!
//! Latencies are milliseconds with up to six decimals (the kernel counts nanoseconds), so a
//! recorded latency of 7 342 105 ns is written `7.342105` and reads back as the same number.

use crate::schema::ChoiceSpec;
use sim_core::{Choice, Duration, MsgId, NodeId};

/// A file's milliseconds as a duration, or why they cannot be one.
pub fn duration_of_ms(ms: f64, cap_ms: u64) -> Result<Duration, String> {
    if !ms.is_finite() || ms < 0.0 {
        return Err(format!(
            "{ms} is not a latency: expected milliseconds, 0 or more"
        ));
    }
    if ms > cap_ms as f64 {
        return Err(format!("{ms} ms is past the longest run ({cap_ms} ms)"));
    }
    // Rounded to the nanosecond: exact for every value `ms_text` writes.
    Ok(Duration((ms * 1e6).round() as u64))
}

/// A duration as the file's milliseconds: `7`, `7.25`, `7.342105`.
pub fn ms_text(d: Duration) -> String {
    let (whole, ns) = (d.0 / 1_000_000, d.0 % 1_000_000);
    if ns == 0 {
        return whole.to_string();
    }
    let fraction = format!("{ns:06}");
    format!("{whole}.{}", fraction.trim_end_matches('0'))
}

/// The file's form of one kernel choice (`nodes` names the node ids).
pub fn spec_of(choice: Choice, nodes: &[String]) -> ChoiceSpec {
    match choice {
        Choice::Lose(m) => ChoiceSpec::Lose(m.0),
        Choice::Latency(m, d) => ChoiceSpec::Latency(m.0, d.0 as f64 / 1e6),
        Choice::Copy(m, d) => ChoiceSpec::Duplicate(m.0, d.0 as f64 / 1e6),
        Choice::Draw(n, nth, v) => {
            ChoiceSpec::Draw(nodes.get(n.index()).cloned().unwrap_or_default(), nth, v)
        }
    }
}

/// One choice as it is written in a file: `Lose(12)`, `Latency(14, 9.5)`.
pub fn choice_text(choice: Choice, nodes: &[String]) -> String {
    match choice {
        Choice::Lose(m) => format!("Lose({})", m.0),
        Choice::Latency(m, d) => format!("Latency({}, {})", m.0, ms_text(d)),
        Choice::Copy(m, d) => format!("Duplicate({}, {})", m.0, ms_text(d)),
        Choice::Draw(n, nth, v) => {
            let name = nodes.get(n.index()).map(String::as_str).unwrap_or("?");
            format!("Draw({name:?}, {nth}, {v})")
        }
    }
}

/// The kernel's form of a checked spec (`node` resolves a name to its id).
pub fn choice_of(
    spec: &ChoiceSpec,
    node: impl Fn(&str) -> Option<NodeId>,
    cap_ms: u64,
) -> Result<Choice, String> {
    Ok(match spec {
        ChoiceSpec::Lose(m) => Choice::Lose(MsgId(*m)),
        ChoiceSpec::Latency(m, ms) => Choice::Latency(MsgId(*m), duration_of_ms(*ms, cap_ms)?),
        ChoiceSpec::Duplicate(m, ms) => Choice::Copy(MsgId(*m), duration_of_ms(*ms, cap_ms)?),
        ChoiceSpec::Draw(name, nth, v) => Choice::Draw(
            node(name).ok_or_else(|| format!("unknown node \"{name}\""))?,
            *nth,
            *v,
        ),
    })
}

/// A `schedule: [...]` field's text, one choice per line, each followed by its comment
/// (`describe` says in words what the choice does, or nothing).
pub fn schedule_text(
    choices: &[Choice],
    nodes: &[String],
    describe: impl Fn(Choice) -> Option<String>,
) -> String {
    if choices.is_empty() {
        return "[]".into();
    }
    let mut text = String::from("[\n");
    for &choice in choices {
        text.push_str("        ");
        text.push_str(&choice_text(choice, nodes));
        text.push(',');
        if let Some(words) = describe(choice) {
            text.push_str(" // ");
            text.push_str(&words.replace('\n', " "));
        }
        text.push('\n');
    }
    text.push_str("    ]");
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every nanosecond count reads back exactly from the text written for it.
    #[test]
    fn milliseconds_round_trip_exactly() {
        for ns in [
            0,
            1,
            999_999,
            1_000_000,
            7_342_105,
            9_500_000,
            2_591_999_999_999_999,
        ] {
            let text = ms_text(Duration(ns));
            let back = duration_of_ms(text.parse().unwrap(), u64::MAX / 2_000_000).unwrap();
            assert_eq!(back, Duration(ns), "{text}");
        }
        assert_eq!(ms_text(Duration(9_500_000)), "9.5");
        assert!(duration_of_ms(-1.0, 10).is_err());
        assert!(duration_of_ms(f64::NAN, 10).is_err());
        assert!(duration_of_ms(11.0, 10).is_err());
    }

    /// What `schedule_text` writes parses back to the same choices.
    #[test]
    fn a_written_schedule_reads_back() {
        let nodes = vec!["a".to_string(), "b".to_string()];
        let choices = vec![
            Choice::Lose(MsgId(3)),
            Choice::Latency(MsgId(4), Duration(7_342_105)),
            Choice::Copy(MsgId(4), Duration(2_000_000)),
            Choice::Draw(NodeId(1), 2, 170),
        ];
        let text = schedule_text(&choices, &nodes, |c| Some(format!("{c:?}")));
        let specs: Vec<ChoiceSpec> = crate::load::ron_options().from_str(&text).unwrap();
        let back: Vec<Choice> = specs
            .iter()
            .map(|s| {
                choice_of(
                    s,
                    |n| nodes.iter().position(|x| x == n).map(|i| NodeId(i as u32)),
                    1 << 40,
                )
                .unwrap()
            })
            .collect();
        assert_eq!(back, choices);
        assert_eq!(spec_of(choices[1], &nodes), specs[1]);
    }
}
