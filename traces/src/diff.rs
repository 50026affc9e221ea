//! The first place two traces part ways, with the lines before it for context.
//!
//! `dsim replay` and `dsim diff` both need it. Lines are compared as written, except the
//! header's informational `dsim_version` (a trace stays the same run across dsim builds).

use crate::format::without_version;

/// Where two traces first differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divergence {
    /// The first differing line, from 1 (the header is line 1).
    pub line: usize,
    /// The step of that line in the first trace (or the second, if the first has ended).
    pub step: Option<u64>,
    /// Up to `context` equal lines before it, with their numbers.
    pub before: Vec<(usize, String)>,
    /// The first trace's line there, or `None` where it has ended.
    pub left: Option<String>,
    /// The second trace's line there, or `None` where it has ended.
    pub right: Option<String>,
}

fn step_of(line: &str) -> Option<u64> {
    serde_json::from_str::<serde_json::Value>(line)
        .ok()?
        .get("step")?
        .as_u64()
}

/// The first divergence between traces `a` and `b`, with `context` lines before it, or `None`
/// when they are the same run.
pub fn first_divergence(a: &str, b: &str, context: usize) -> Option<Divergence> {
    let (a, b) = (without_version(a), without_version(b));
    let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let at = (0..la.len().max(lb.len())).find(|&i| la.get(i) != lb.get(i))?;
    let left = la.get(at).map(|s| s.to_string());
    let right = lb.get(at).map(|s| s.to_string());
    let step = left
        .as_deref()
        .and_then(step_of)
        .or_else(|| right.as_deref().and_then(step_of));
    let before = (at.saturating_sub(context)..at)
        .map(|i| (i + 1, la[i].to_string()))
        .collect();
    Some(Divergence {
        line: at + 1,
        step,
        before,
        left,
        right,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const H1: &str = r#"{"format":1,"dsim_version":"0.1.0","seed":0}"#;
    const H2: &str = r#"{"format":1,"dsim_version":"9.9.9","seed":0}"#;

    // Goal: the same run under another dsim version is no difference. Method: two traces whose
    // headers differ only in `dsim_version`. Proves the version is ignored.
    #[test]
    fn version_is_ignored() {
        let a = format!("{H1}\n{{\"step\":1}}\n");
        let b = format!("{H2}\n{{\"step\":1}}\n");
        assert_eq!(first_divergence(&a, &b, 3), None);
    }

    // Goal: the first differing line, its step and its context are reported; a shorter trace
    // diverges where it ends. Method: two small traces. Proves both cases.
    #[test]
    fn finds_the_first_difference() {
        let a = format!("{H1}\n{{\"step\":1}}\n{{\"step\":2,\"x\":1}}\n");
        let b = format!("{H1}\n{{\"step\":1}}\n{{\"step\":2,\"x\":2}}\n");
        let d = first_divergence(&a, &b, 1).unwrap();
        assert_eq!((d.line, d.step), (3, Some(2)));
        assert_eq!(d.before, vec![(2, "{\"step\":1}".to_string())]);
        let short = format!("{H1}\n{{\"step\":1}}\n");
        let d = first_divergence(&a, &short, 1).unwrap();
        assert_eq!((d.line, d.right), (3, None));
    }
}
