//! A structure-aware mutation fuzzer of our own over the bundled scenarios and the golden
//! traces: byte flips, truncation, token swaps, numbers at their limits, unknown fields, long
//! and hostile strings. Each mutant goes through `validate`, `run` (with a step cap), and for
//! traces through the typed reader, `view` and `check`, all in-process.
//!
//! CI runs a fixed-seed slice (`DEFAULT_ROUNDS` mutants per class and input); set
//! `DSIM_FUZZ_ROUNDS=N` for a longer search and `DSIM_FUZZ_SEED=S` for another one. It asserts
//! no panic, a line and column on every problem found in a scenario, a line on every problem
//! found in a trace, and no run past its step cap; it prints the figures per class.

use scenarios::RunOptions;
use sim_core::{SimRng, Stream};
use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};

const DEFAULT_ROUNDS: u64 = 12;
/// The most steps a fuzzed run may take.
const STEP_CAP: u64 = 20_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Class {
    ByteFlip,
    Truncate,
    TokenSwap,
    Number,
    UnknownField,
    LongString,
    HostileString,
}

const CLASSES: [Class; 7] = [
    Class::ByteFlip,
    Class::Truncate,
    Class::TokenSwap,
    Class::Number,
    Class::UnknownField,
    Class::LongString,
    Class::HostileString,
];

/// What happened to one mutant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    /// Not UTF-8 after the mutation: the binary's reader refuses it (tested in `cli`).
    NotText,
    /// Refused, every problem located.
    Refused,
    /// Refused with a problem that has no position.
    RefusedUnlocated,
    /// Accepted and run (scenarios) or read, viewed and checked (traces).
    Accepted,
    /// A panic: always a bug.
    Panic,
    /// A run past its step cap: always a bug.
    PastCap,
}

fn rounds() -> u64 {
    std::env::var("DSIM_FUZZ_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_ROUNDS)
}

fn seed() -> u64 {
    std::env::var("DSIM_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Byte ranges of the "words" of a text: identifiers, numbers and quoted strings.
fn tokens(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'"' {
            let start = i;
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            out.push((start, (i + 1).min(b.len())));
            i += 1;
        } else if b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'-' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'-') {
                i += 1;
            }
            out.push((start, i));
        } else {
            i += 1;
        }
    }
    out
}

/// Where `byte` occurs in `text` outside strings and `//` or `/* */` comments.
fn code_positions(text: &str, byte: u8) -> Vec<usize> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
            }
            c => {
                if c == byte {
                    out.push(i);
                }
                i += 1;
            }
        }
    }
    out
}

#[test]
fn code_positions_skip_strings_and_comments() {
    let text = "A( // (\n \"(\" /* ( */ (x)";
    assert_eq!(code_positions(text, b'('), [1, 21]);
}

fn pick<T: Copy>(rng: &mut SimRng, items: &[T]) -> Option<T> {
    (!items.is_empty()).then(|| items[rng.below(items.len() as u64) as usize])
}

/// One mutant of `text` of class `class`.
fn mutate(text: &str, class: Class, rng: &mut SimRng) -> Vec<u8> {
    let mut bytes = text.as_bytes().to_vec();
    let toks = tokens(text);
    let replace = |bytes: &mut Vec<u8>, (a, b): (usize, usize), with: &[u8]| {
        bytes.splice(a..b, with.iter().copied());
    };
    match class {
        Class::ByteFlip => {
            for _ in 0..=rng.below(3) {
                let at = rng.below(bytes.len() as u64) as usize;
                bytes[at] ^= 1 << rng.below(8);
            }
        }
        Class::Truncate => bytes.truncate(rng.below(bytes.len() as u64) as usize),
        Class::TokenSwap => {
            if let (Some(x), Some(y)) = (pick(rng, &toks), pick(rng, &toks)) {
                let (first, second) = if x.0 < y.0 { (x, y) } else { (y, x) };
                if first.1 <= second.0 {
                    let a = text.as_bytes()[first.0..first.1].to_vec();
                    let b = text.as_bytes()[second.0..second.1].to_vec();
                    replace(&mut bytes, second, &a);
                    replace(&mut bytes, first, &b);
                }
            }
        }
        Class::Number => {
            let numbers: Vec<(usize, usize)> = toks
                .iter()
                .copied()
                .filter(|&(a, b)| text.as_bytes()[a..b].iter().all(u8::is_ascii_digit))
                .collect();
            let limits: [&[u8]; 8] = [
                b"0",
                b"-1",
                b"-0",
                b"4294967296",
                b"18446744073709551615",
                b"18446744073709551616",
                b"99999999999999999999999",
                b"1e309",
            ];
            if let (Some(n), Some(with)) = (pick(rng, &numbers), pick(rng, &limits)) {
                replace(&mut bytes, n, with);
            }
        }
        Class::UnknownField => {
            // A RON struct opens with `(`, a JSON object (a trace record) with `{`.
            let (open, field): (char, &[u8]) = if text.starts_with('{') {
                ('{', b"\"zq_field\":1,")
            } else {
                ('(', b"zq_field: 1, ")
            };
            // Only where a struct could open: not inside a string or a comment, where an
            // unknown field is no field at all (so every such mutant must be refused).
            let opens: Vec<usize> = code_positions(text, open as u8)
                .into_iter()
                .map(|i| i + 1)
                .collect();
            if let Some(at) = pick(rng, &opens) {
                bytes.splice(at..at, field.iter().copied());
            }
        }
        Class::LongString | Class::HostileString => {
            let strings: Vec<(usize, usize)> = toks
                .iter()
                .copied()
                .filter(|&(a, _)| text.as_bytes()[a] == b'"')
                .collect();
            let long = format!("\"{}\"", "n".repeat(100_000));
            let hostile: [&str; 9] = [
                "\"\"",
                "\"a\\nb\"",
                "\"\u{202e}evil\"",
                "\"\\u{202e}escaped\"",
                "\" padded \"",
                "\"</script><b>\"",
                "\"\\\"\"",
                "\"tab\\there\"",
                "\"bell\\u{7}\"",
            ];
            let with = if class == Class::LongString {
                long
            } else {
                pick(rng, &hostile).unwrap_or("\"\"").to_string()
            };
            if let Some(s) = pick(rng, &strings) {
                replace(&mut bytes, s, with.as_bytes());
            }
        }
    }
    bytes
}

/// Whether a problem names its line and column (the count of problems not shown in full,
/// which stands for others, has no place of its own).
fn located(d: &scenarios::Diagnostic) -> bool {
    (d.line > 0 && d.col > 0) || d.hidden > 0
}

/// A scenario mutant through validate and, if valid, a capped run.
fn try_scenario(name: &str, text: &str) -> Outcome {
    let result = catch_unwind(AssertUnwindSafe(|| {
        let protocol = match scenarios::registry::protocol_for(name, text) {
            Ok(p) => p,
            Err(problems) if problems.iter().all(located) => {
                return Outcome::Refused;
            }
            Err(_) => return Outcome::RefusedUnlocated,
        };
        match protocol.validate(name, text) {
            Err(problems) => {
                if problems.iter().all(located) {
                    Outcome::Refused
                } else {
                    for d in problems.iter().filter(|d| !located(d)) {
                        eprintln!("unlocated in {name}: {}", d.message);
                    }
                    Outcome::RefusedUnlocated
                }
            }
            Ok(_) => {
                let options = RunOptions {
                    max_steps: Some(STEP_CAP),
                    ..RunOptions::default()
                };
                let result = protocol.run(name, text, &options).expect("validated");
                if result.report.steps > STEP_CAP {
                    Outcome::PastCap
                } else {
                    Outcome::Accepted
                }
            }
        }
    }));
    result.unwrap_or(Outcome::Panic)
}

/// A trace mutant through the typed reader, the view and the offline check.
fn try_trace(text: &str) -> Outcome {
    let result = catch_unwind(AssertUnwindSafe(|| {
        let Ok(header) = traces::parse_header(text) else {
            return Outcome::Refused;
        };
        let Some(protocol) = scenarios::registry::find(&header.protocol) else {
            return Outcome::Refused;
        };
        match protocol.read_trace(text) {
            Err(e) if e.line > 0 => Outcome::Refused,
            Err(_) => Outcome::RefusedUnlocated,
            Ok(trace) => {
                let _ = trace.view(traces::Lang::Es, traces::narrate::Detail::Everything);
                let _ = trace.check();
                Outcome::Accepted
            }
        }
    }));
    result.unwrap_or(Outcome::Panic)
}

type Figures = BTreeMap<(Class, Outcome), u64>;

fn report(what: &str, figures: &Figures) {
    println!("{what}: mutants per class and outcome");
    for class in CLASSES {
        let row: Vec<String> = figures
            .iter()
            .filter(|((c, _), _)| *c == class)
            .map(|((_, o), n)| format!("{o:?} {n}"))
            .collect();
        println!("  {class:?}: {}", row.join(", "));
    }
}

fn bad(figures: &Figures) -> Vec<String> {
    figures
        .iter()
        .filter(|((c, o), _)| {
            // An unknown field where a struct opens must be refused, never ignored.
            matches!(
                o,
                Outcome::Panic | Outcome::PastCap | Outcome::RefusedUnlocated
            ) || (*c == Class::UnknownField && *o == Outcome::Accepted)
        })
        .map(|((c, o), n)| format!("{c:?}: {n} x {o:?}"))
        .collect()
}

// Goal: no scenario a student can write crashes dsim, runs unbounded, or is refused without a
// place to look. Method: every bundled scenario and every kept counterexample (their
// `schedule:` sections too), each mutation class, a fixed-seed slice. Proves: 0 panics, 0 runs
// past the cap, 0 problems without line and column, 0 unknown fields accepted.
#[test]
fn mutated_scenarios_never_panic_and_are_refused_where_they_break() {
    let mut rng = SimRng::new(seed(), Stream::Faults);
    let mut figures = Figures::new();
    let mut corpus: Vec<(String, String)> = scenarios::bundled::BUNDLED
        .iter()
        .map(|b| (b.name.to_string(), b.source.to_string()))
        .collect();
    for file in crate::support::ron_files(&crate::support::root().join("scenarios/regressions")) {
        let text = std::fs::read_to_string(&file).unwrap();
        corpus.push((file.display().to_string(), text));
    }
    for (name, source) in &corpus {
        for class in CLASSES {
            for _ in 0..rounds() {
                let bytes = mutate(source, class, &mut rng);
                let outcome = match std::str::from_utf8(&bytes) {
                    Err(_) => Outcome::NotText,
                    Ok(text) => try_scenario(name, text),
                };
                *figures.entry((class, outcome)).or_default() += 1;
            }
        }
    }
    report("scenarios", &figures);
    assert!(bad(&figures).is_empty(), "{:?}", bad(&figures));
}

// Goal: no trace file, however edited, crashes `view` or `check`. Method: the smallest bundled
// trace of every protocol, each mutation class. Proves: 0 panics and a line on every refusal.
#[test]
fn mutated_traces_never_panic_and_are_refused_at_a_line() {
    // The smallest bundled trace of every protocol, so each protocol's typed reader is fuzzed.
    let mut smallest: BTreeMap<String, String> = BTreeMap::new();
    for b in scenarios::bundled::BUNDLED {
        let trace = crate::support::bundled_trace(b);
        let protocol = traces::parse_header(&trace).unwrap().protocol;
        let entry = smallest.entry(protocol).or_insert_with(|| trace.clone());
        if trace.len() < entry.len() {
            *entry = trace;
        }
    }
    let files: Vec<String> = smallest.into_values().collect();
    let mut rng = SimRng::new(seed(), Stream::Network);
    let mut figures = Figures::new();
    for text in &files {
        for class in CLASSES {
            for _ in 0..rounds() {
                let bytes = mutate(text, class, &mut rng);
                let outcome = match std::str::from_utf8(&bytes) {
                    Err(_) => Outcome::NotText,
                    Ok(t) => try_trace(t),
                };
                *figures.entry((class, outcome)).or_default() += 1;
            }
        }
    }
    report("traces", &figures);
    assert!(bad(&figures).is_empty(), "{:?}", bad(&figures));
}
