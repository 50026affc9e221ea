//! Folding a story's repeated patterns, so a long run reads on a screen or two.
//!
//! A run often repeats itself: a heartbeat lost again and again to a paused node, six votes
//! denied in a row, a split-vote round twelve times over, a load of reads and writes:
//!
//! - a run of identical lines is told once, with how many more and until when;
//! - a run of at least [`MIN_REPEATS`] lines of one pattern is told by its first line, with how
//!   many more and until when: `nodo-1 DENIES its vote to nodo-2 (...) (and 5 more like it,
//!   until 159ms)`;
//! - a round of up to [`MAX_ROUND`] lines repeated at least [`MIN_REPEATS`] times (its lines'
//!   patterns in any order) is told by its first and last rounds, with a line between them
//!   saying how many rounds were left out.
//!
//! Patterns are compared first keeping node names (so `nodo-3 recognises nodo-1` then `nodo-3
//! recognises nodo-2`, over and over, folds as a round of two and the two leaders stay in view),
//! then forgetting them. Faults and violations ([`Told::pinned`]) fold only with identical lines:
//! each different one is told.

use super::Told;
use crate::lang::Lang;
use sim_core::Instant;
use std::collections::BTreeMap;

/// How many times a line's pattern or a round must repeat before it folds: fewer is shorter
/// to read whole than its summary.
pub const MIN_REPEATS: usize = 5;

/// The longest round (in lines) that folds: longer stretches that repeat are rare and their
/// first and last copies would fill the screen anyway.
pub const MAX_ROUND: usize = 16;

/// Folds `story`'s identical lines and repeated patterns (see the module's documentation),
/// in `lang`.
pub fn fold(story: Vec<Told>, lang: Lang) -> Vec<Told> {
    let mut lines: Vec<Line> = story.into_iter().map(Line::from).collect();
    lines = fold_runs(lines, identical, 2, false);
    for pattern in [keeping_names as fn(&str) -> String, forgetting_names] {
        lines = fold_rounds(fold_runs(lines, pattern, MIN_REPEATS, true), pattern, lang);
    }
    lines.into_iter().map(|line| line.told(lang)).collect()
}

/// A story line while it is folded: how many more lines it tells, until when, and whether
/// they were only alike (one pattern) rather than identical.
#[derive(Clone)]
struct Line {
    told: Told,
    more: usize,
    until: Instant,
    alike: bool,
}

impl From<Told> for Line {
    fn from(told: Told) -> Line {
        Line {
            until: told.time,
            told,
            more: 0,
            alike: false,
        }
    }
}

impl Line {
    /// The told line, with how many more it tells said at its end.
    fn told(self, lang: Lang) -> Told {
        let Line {
            mut told,
            more,
            until,
            alike,
        } = self;
        if more > 0 {
            told.text.push_str(&match (lang, alike) {
                (Lang::En, _) => format!(" (and {more} more like it, until {until})"),
                (Lang::Es, false) => format!(" (y {more} más iguales, hasta {until})"),
                (Lang::Es, true) => format!(" (y {more} más como esta, hasta {until})"),
            });
        }
        told
    }
}

/// The line itself: identical lines fold at any length, faults included (a heartbeat lost
/// twice to a paused node is one line).
fn identical(text: &str) -> String {
    text.to_string()
}

/// The line's pattern with its numbers blanked (times, terms, counts) but node names kept:
/// a digit right after a letter, `-` or `_` is part of a name (`nodo-1`, `n4`, `a1`).
fn keeping_names(text: &str) -> String {
    blank_digits(text, |before| {
        !before.is_some_and(|c| c.is_alphabetic() || c == '-' || c == '_')
    })
}

/// The line's pattern with every digit blanked, node names' included.
fn forgetting_names(text: &str) -> String {
    blank_digits(text, |_| true)
}

/// `text` with each run of digits (with the `.` inside a decimal and a time's unit) replaced
/// by `#` where `blank` says so of the character before the run.
fn blank_digits(text: &str, blank: impl Fn(Option<char>) -> bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut before: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() && blank(before) {
            while chars
                .peek()
                .is_some_and(|d| d.is_ascii_digit() || *d == '.')
            {
                chars.next();
            }
            // A time's unit goes with its number: `912.5ms` and `1.064s` are one pattern.
            let unit: String = chars.clone().take_while(|u| u.is_alphabetic()).collect();
            if ["s", "ms", "µs", "ns"].contains(&unit.as_str()) {
                chars.nth(unit.chars().count() - 1);
            }
            out.push('#');
            before = Some('#');
            continue;
        }
        out.push(c);
        before = Some(c);
    }
    out
}

/// The patterns of `lines` as numbers, equal where the patterns are. With `pins`, a pinned
/// line gets a number of its own, so it matches nothing.
fn patterns(lines: &[Line], pattern: fn(&str) -> String, pins: bool) -> Vec<usize> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    lines
        .iter()
        .enumerate()
        .map(|(i, line)| {
            if pins && line.told.pinned {
                return usize::MAX - i;
            }
            let next = seen.len();
            *seen.entry(pattern(&line.told.text)).or_insert(next)
        })
        .collect()
}

/// Folds runs of at least `min` consecutive lines of one pattern into their first; with
/// `pins`, pinned lines stay apart.
fn fold_runs(lines: Vec<Line>, pattern: fn(&str) -> String, min: usize, pins: bool) -> Vec<Line> {
    let patterns = patterns(&lines, pattern, pins);
    let mut out: Vec<Line> = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        let run = patterns[i..]
            .iter()
            .take_while(|&&p| p == patterns[i])
            .count();
        let run = if run >= min { run } else { 1 };
        let mut first = lines[i].clone();
        for line in &lines[i + 1..i + run] {
            first.more += 1 + line.more;
            first.until = line.until;
            first.alike |= line.alike || line.told.text != first.told.text;
        }
        out.push(first);
        i += run;
    }
    out
}

/// Folds rounds of 2 to [`MAX_ROUND`] lines repeated at least [`MIN_REPEATS`] times into the
/// first round, a line counting the rounds left out, and the last round. Two rounds are alike
/// when they hold the same patterns, in any order: under load a write's three stores and its
/// confirmation arrive in a different order each time, and the round is still the same.
fn fold_rounds(story: Vec<Line>, pattern: fn(&str) -> String, lang: Lang) -> Vec<Line> {
    let patterns = patterns(&story, pattern, true);
    let sorted = |at: usize, round: usize| {
        let mut window = patterns[at..at + round].to_vec();
        window.sort_unstable();
        window
    };
    let n = story.len();
    let mut out = Vec::with_capacity(n);
    let mut i = 0;
    while i < n {
        // The round length that covers the most lines from here, and its repeats.
        let mut best: Option<(usize, usize)> = None;
        for round in 2..=MAX_ROUND.min((n - i) / MIN_REPEATS) {
            let first = sorted(i, round);
            let mut repeats = 1;
            while i + (repeats + 1) * round <= n && sorted(i + repeats * round, round) == first {
                repeats += 1;
            }
            if repeats >= MIN_REPEATS && best.is_none_or(|(r, k)| round * repeats > r * k) {
                best = Some((round, repeats));
            }
        }
        let Some((round, repeats)) = best else {
            out.push(story[i].clone());
            i += 1;
            continue;
        };
        let last = i + (repeats - 1) * round;
        out.extend_from_slice(&story[i..i + round]);
        let left_out = &story[i + round..last];
        let (more, until) = (repeats - 2, left_out[left_out.len() - 1].until);
        out.push(Line::from(Told {
            index: left_out[0].told.index,
            time: left_out[0].told.time,
            text: match lang {
                Lang::En => format!("... {more} more rounds like this one, until {until} ..."),
                Lang::Es => format!("... {more} rondas más como esta, hasta {until} ..."),
            },
            key: false,
            pinned: false,
        }));
        out.extend_from_slice(&story[last..last + round]);
        i = last + round;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn story(lines: &[&str]) -> Vec<Told> {
        lines
            .iter()
            .enumerate()
            .map(|(index, text)| Told {
                index,
                time: Instant::from_millis(index as u64),
                text: text.to_string(),
                key: false,
                pinned: text.starts_with("CRASH"),
            })
            .collect()
    }

    fn texts(story: &[Told]) -> Vec<&str> {
        story.iter().map(|t| t.text.as_str()).collect()
    }

    // Goal: what a pattern is. Method: blank the digits of lines with times, terms and node
    // names. Proves: numbers are blanked in both patterns, names only when forgetting them.
    #[test]
    fn patterns_blank_numbers_and_optionally_names() {
        let line = "nodo-1 DENIES its vote to n4 in term 13 at 0.156s, 3 sent";
        assert_eq!(
            keeping_names(line),
            "nodo-1 DENIES its vote to n4 in term # at #, # sent"
        );
        assert_eq!(
            forgetting_names(line),
            "nodo-# DENIES its vote to n# in term # at #, # sent"
        );
        assert_eq!(
            keeping_names("until 912.5ms"),
            keeping_names("until 1.064s")
        );
    }

    // Goal: a run of one pattern folds into its first line. Method: six denials with different
    // names, then one other line; and four denials. Proves: six fold with a count and the last
    // time; four (fewer than MIN_REPEATS) stay whole.
    #[test]
    fn a_run_of_one_pattern_is_told_once_with_a_count() {
        let six = story(&[
            "a1 DENIES b2",
            "a1 DENIES b3",
            "a2 DENIES b1",
            "a2 DENIES b3",
            "a3 DENIES b1",
            "a3 DENIES b2",
            "a1 leads",
        ]);
        let folded = fold(six, Lang::En);
        assert_eq!(
            texts(&folded),
            ["a1 DENIES b2 (and 5 more like it, until 5ms)", "a1 leads"]
        );
        let four = story(&["a1 x", "a2 x", "a3 x", "a4 x"]);
        assert_eq!(fold(four.clone(), Lang::Es), four);
    }

    // Goal: counts add up when identical lines fold and then their pattern does. Method: six
    // laps told twice each. Proves: one line, one count of all eleven others (not a count of
    // counts), in the Spanish words for lines only alike.
    #[test]
    fn counts_add_up_across_folds() {
        let mut lines = Vec::new();
        for hops in [3, 6, 9, 12, 15, 18] {
            let lap = format!("a token completes a lap ({hops} hops)");
            lines.extend([lap.clone(), lap]);
        }
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        assert_eq!(
            texts(&fold(story(&lines), Lang::Es)),
            ["a token completes a lap (3 hops) (y 11 más como esta, hasta 11ms)"]
        );
        assert_eq!(
            texts(&fold(story(&lines[..2]), Lang::Es)),
            ["a token completes a lap (3 hops) (y 1 más iguales, hasta 1ms)"]
        );
    }

    // Goal: a repeated round folds to its first and last rounds. Method: an alternation of two
    // leaders recognised seven times. Proves: names are kept (both leaders stay in view), the
    // middle five rounds become one line in the course's Spanish, with the left-out span's end.
    #[test]
    fn a_repeated_round_keeps_its_first_and_last_copies() {
        let mut lines = Vec::new();
        for _ in 0..7 {
            lines.extend(["n3 recognises n1", "n3 recognises n2"]);
        }
        let folded = fold(story(&lines), Lang::Es);
        assert_eq!(
            texts(&folded),
            [
                "n3 recognises n1",
                "n3 recognises n2",
                "... 5 rondas más como esta, hasta 11ms ...",
                "n3 recognises n1",
                "n3 recognises n2",
            ]
        );
        assert_eq!(folded[2].index, 2);
    }

    // Goal: faults are always told. Method: six crash lines of one pattern, and a round with a
    // crash inside. Proves: pinned lines neither fold nor let their round fold.
    #[test]
    fn faults_never_fold() {
        let crashes = story(&["CRASH n1", "CRASH n2", "CRASH n3", "CRASH n4", "CRASH n5"]);
        assert_eq!(fold(crashes.clone(), Lang::En), crashes);
        let mut lines = Vec::new();
        for _ in 0..6 {
            lines.extend(["tick", "CRASH n1"]);
        }
        let rounds = story(&lines);
        assert_eq!(fold(rounds.clone(), Lang::En), rounds);
    }
}
