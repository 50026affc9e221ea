//! The keys a measurement places: from a pattern over a range, from lines of text, or generated
//! with a seeded skew (a hot spot at the top of the key space, or Zipf-distributed words).
//!
//! Every key carries its text (rendezvous hashes `"node|key"`), its hash (everything else), and
//! its ordinal: its position in the key *order*, which is what range partitioning splits. Keys
//! are stored in one text buffer with offsets, so 100 000 keys are three allocations, not 100 000.

use super::hash::HashFn;
use sim_core::rng::{SimRng, Stream};
use std::ops::RangeInclusive;

/// One key as the placement schemes see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyRef<'a> {
    /// The key's text, e.g. `P-2026-000001`.
    pub text: &'a str,
    /// The key's hash under the set's [`HashFn`].
    pub hash: u64,
    /// The key's position in key order (range partitioning splits this, not the hash).
    pub ord: u64,
}

/// A set of keys hashed once, in generation order (duplicates allowed: they are requests).
#[derive(Clone, Debug)]
pub struct KeySet {
    hash_fn: HashFn,
    text: String,
    ends: Vec<usize>,
    hashes: Vec<u64>,
    ords: Vec<u64>,
    space: RangeInclusive<u64>,
}

impl KeySet {
    fn with_capacity(hash_fn: HashFn, n: usize, space: RangeInclusive<u64>) -> KeySet {
        KeySet {
            hash_fn,
            text: String::with_capacity(n * 14),
            ends: Vec::with_capacity(n),
            hashes: Vec::with_capacity(n),
            ords: Vec::with_capacity(n),
            space,
        }
    }

    fn push_key(&mut self, ord: u64) {
        self.ends.push(self.text.len());
        self.ords.push(ord);
    }

    /// Hashes every key pushed so far, in one batch.
    fn finish(mut self) -> KeySet {
        let mut starts = 0;
        let msgs: Vec<&[u8]> = self
            .ends
            .iter()
            .map(|&end| {
                let m = &self.text.as_bytes()[starts..end];
                starts = end;
                m
            })
            .collect();
        let mut hashes = Vec::with_capacity(msgs.len());
        self.hash_fn.hash_many(&msgs, &mut hashes);
        self.hashes = hashes;
        self
    }

    /// The keys `pattern` gives for every number of `range`, e.g. `P-2026-{:06}` over
    /// `1..=100000` (the lesson's order ids); a key's ordinal is its number.
    pub fn from_pattern(pattern: &Pattern, range: RangeInclusive<u64>, hash_fn: HashFn) -> KeySet {
        let n = range.end().saturating_sub(*range.start()).saturating_add(1);
        let mut set = KeySet::with_capacity(hash_fn, n.min(1 << 24) as usize, range.clone());
        for i in range {
            pattern.write(i, &mut set.text);
            set.push_key(i);
        }
        set.finish()
    }

    /// One key per non-blank line of `text` (trimmed). A key's ordinal is its first 8 bytes read
    /// big-endian, which preserves byte order, so range partitioning splits the sorted keys.
    pub fn from_lines(text: &str, hash_fn: HashFn) -> KeySet {
        let lines: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        let ords: Vec<u64> = lines.iter().map(|l| prefix_ordinal(l)).collect();
        let lo = ords.iter().copied().min().unwrap_or(0);
        let hi = ords.iter().copied().max().unwrap_or(0);
        let mut set = KeySet::with_capacity(hash_fn, lines.len(), lo..=hi);
        for (line, ord) in lines.iter().zip(ords) {
            set.text.push_str(line);
            set.push_key(ord);
        }
        set.finish()
    }

    /// Keys at ordinals `ords` in the space `0..space`, named `k{ord}` (generated workloads).
    pub fn from_ordinals(ords: &[u64], space: u64, hash_fn: HashFn) -> KeySet {
        let mut set = KeySet::with_capacity(hash_fn, ords.len(), 0..=space.saturating_sub(1));
        for &ord in ords {
            set.text.push('k');
            push_decimal(&mut set.text, ord, 0, false);
            set.push_key(ord);
        }
        set.finish()
    }

    /// How many keys there are.
    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    /// True when there are no keys.
    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }

    /// The hash every key was hashed with.
    pub fn hash_fn(&self) -> HashFn {
        self.hash_fn
    }

    /// The key space the ordinals live in (range partitioning splits it evenly).
    pub fn space(&self) -> RangeInclusive<u64> {
        self.space.clone()
    }

    /// Every key's hash, in key order.
    pub fn hashes(&self) -> &[u64] {
        &self.hashes
    }

    /// Key `i`.
    pub fn get(&self, i: usize) -> KeyRef<'_> {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        KeyRef {
            text: &self.text[start..self.ends[i]],
            hash: self.hashes[i],
            ord: self.ords[i],
        }
    }

    /// All keys in order.
    pub fn iter(&self) -> impl Iterator<Item = KeyRef<'_>> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }
}

fn prefix_ordinal(text: &str) -> u64 {
    let mut first = [0u8; 8];
    let bytes = text.as_bytes();
    let n = bytes.len().min(8);
    first[..n].copy_from_slice(&bytes[..n]);
    u64::from_be_bytes(first)
}

/// Appends `value` in decimal, padded to `width` with zeros or spaces (no formatter, no
/// allocation: key and label generation is a hot loop).
pub(crate) fn push_decimal(out: &mut String, value: u64, width: usize, zero: bool) {
    let mut digits = [0u8; 20];
    let mut n = 0;
    let mut v = value;
    loop {
        digits[n] = b'0' + (v % 10) as u8;
        n += 1;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    let pad = if zero { '0' } else { ' ' };
    for _ in n..width {
        out.push(pad);
    }
    for &d in digits[..n].iter().rev() {
        out.push(char::from(d));
    }
}

/// A key pattern with one number placeholder: `{}`, `{:06}` (zero-padded to 6) or `{:6}`
/// (space-padded); Python's `{:06d}` is accepted too.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    prefix: String,
    suffix: String,
    width: usize,
    zero: bool,
}

impl Pattern {
    /// Parses `text`, or says what a valid pattern looks like.
    pub fn parse(text: &str) -> Result<Pattern, String> {
        let help = "a key pattern has exactly one placeholder, e.g. 'P-2026-{:06}' (zero-padded to 6 digits) or 'user{}'";
        let open = text
            .find('{')
            .ok_or_else(|| format!("key pattern {text:?} has no {{}} placeholder: {help}"))?;
        let close = text[open..]
            .find('}')
            .map(|c| open + c)
            .ok_or_else(|| format!("key pattern {text:?} has an unclosed '{{': {help}"))?;
        let (prefix, spec, suffix) = (&text[..open], &text[open + 1..close], &text[close + 1..]);
        if suffix.contains('{') || suffix.contains('}') || prefix.contains('}') {
            return Err(format!(
                "key pattern {text:?} has more than one placeholder: {help}"
            ));
        }
        let spec = spec.strip_suffix('d').unwrap_or(spec);
        let (width, zero) = match spec.strip_prefix(':') {
            None if spec.is_empty() => (0, false),
            None => return Err(format!("key pattern {text:?}: unknown placeholder: {help}")),
            Some(w) => {
                let zero = w.starts_with('0');
                let w = w.trim_start_matches('>');
                let width = if w.is_empty() {
                    0
                } else {
                    w.parse::<usize>().map_err(|_| {
                        format!("key pattern {text:?}: width {w:?} is not a number: {help}")
                    })?
                };
                (width, zero)
            }
        };
        Ok(Pattern {
            prefix: prefix.to_string(),
            suffix: suffix.to_string(),
            width: width.min(40),
            zero,
        })
    }

    /// Appends the key for number `i` to `out`.
    pub fn write(&self, i: u64, out: &mut String) {
        out.push_str(&self.prefix);
        push_decimal(out, i, self.width, self.zero);
        out.push_str(&self.suffix);
    }

    /// The key for number `i`.
    pub fn key(&self, i: u64) -> String {
        let mut s = String::new();
        self.write(i, &mut s);
        s
    }
}

/// Parses a range of key numbers, `A..=B` (both included) or `A..B` (B excluded); an empty range
/// is an error that says how to write a non-empty one.
pub fn parse_range(text: &str) -> Result<RangeInclusive<u64>, String> {
    parse_number_range(text, "range", "--range 1..=100000")
}

/// Parses a range of whole numbers as a command line writes it, `A..=B` (B included) or `A..B`
/// (B excluded), into the inclusive range it covers. `what` names the range in errors (`range`,
/// `seed range`) and `example` shows a valid one; both errors say which format is expected.
/// Shared by `--range` here and `dsim sweep --seeds`.
pub fn parse_number_range(
    text: &str,
    what: &str,
    example: &str,
) -> Result<RangeInclusive<u64>, String> {
    let bad = || {
        format!("{what} {text:?} is not A..=B or A..B with whole numbers: expected e.g. {example}")
    };
    let (a, b, inclusive) = if let Some((a, b)) = text.split_once("..=") {
        (a, b, true)
    } else if let Some((a, b)) = text.split_once("..") {
        (a, b, false)
    } else {
        return Err(bad());
    };
    let a: u64 = a.trim().parse().map_err(|_| bad())?;
    let b: u64 = b.trim().parse().map_err(|_| bad())?;
    let end = if inclusive { Some(b) } else { b.checked_sub(1) };
    match end {
        Some(end) if end >= a => Ok(a..=end),
        _ => Err(format!(
            "{what} {text:?} is empty: the end must not be below the start (A..=B) or must be above it (A..B), e.g. {example}"
        )),
    }
}

/// The hot-spot workload of text 004: `count` ordinals in `0..space`, a share `hot_pct` % of them
/// uniformly in the top `top_pct` % of the space and the rest uniformly below it.
pub fn hotspot_ordinals(
    count: usize,
    space: u64,
    hot_pct: u64,
    top_pct: u64,
    seed: u64,
) -> Vec<u64> {
    let mut rng = SimRng::new(seed, Stream::Faults);
    let space = space.max(2);
    // In u128: `space * top_pct` overflows u64 for spaces near u64::MAX.
    let top = (u128::from(space) * u128::from(top_pct.min(100)) / 100) as u64;
    let cut = (space - top).clamp(1, space - 1);
    (0..count)
        .map(|_| {
            if rng.below(100) < hot_pct {
                rng.between(cut, space - 1)
            } else {
                rng.between(0, cut - 1)
            }
        })
        .collect()
}

/// Draws ranks `0..vocabulary` with probability proportional to `1 / (rank + 1)^s` (Zipf's law).
///
/// Sampling is ours: a uniform 53-bit fraction of the total weight, found by binary search in the
/// cumulative weights (no `rand` distribution whose algorithm could change). The weights use only
/// IEEE operations that are exactly rounded on every platform (`*`, `/`, `sqrt`), never `powf`,
/// whose last bit depends on the libm: so `s` is a multiple of 0.5 (see [`Zipf::MAX_S`]), and the
/// same seed draws the same ranks on every machine.
#[derive(Clone, Debug)]
pub struct Zipf {
    cumulative: Vec<f64>,
}

impl Zipf {
    /// The largest exponent accepted (the course uses `s = 1`).
    pub const MAX_S: f64 = 4.0;

    /// Zipf over `vocabulary` ranks with exponent `s` (the lesson's words: `s = 1`), or an error
    /// that says which exponents are accepted: multiples of 0.5 from 0.5 to [`Zipf::MAX_S`].
    pub fn new(vocabulary: usize, s: f64) -> Result<Zipf, String> {
        let halves = s * 2.0;
        if !(halves.is_finite()
            && halves.fract() == 0.0
            && (1.0..=Zipf::MAX_S * 2.0).contains(&halves))
        {
            return Err(format!(
                "Zipf exponent {s} is not a multiple of 0.5 from 0.5 to {}: use e.g. 1.0 (the course's), 0.5 or 1.5",
                Zipf::MAX_S
            ));
        }
        let halves = halves as u32;
        let mut total = 0.0;
        let cumulative = (1..=vocabulary.max(1))
            .map(|k| {
                let k = k as f64;
                // k^s = k^(halves / 2) (* sqrt(k) when halves is odd): products, one square root
                // and a division, each correctly rounded everywhere. For s = 1 this is 1 / k.
                let mut d = if halves % 2 == 1 { k.sqrt() } else { 1.0 };
                for _ in 0..halves / 2 {
                    d *= k;
                }
                total += 1.0 / d;
                total
            })
            .collect();
        Ok(Zipf { cumulative })
    }

    /// One rank drawn from `rng`.
    pub fn sample(&self, rng: &mut SimRng) -> usize {
        let total = self.cumulative[self.cumulative.len() - 1];
        let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * total;
        self.cumulative
            .partition_point(|&c| c <= u)
            .min(self.cumulative.len() - 1)
    }

    /// `count` ranks drawn from the seeded stream `seed`.
    pub fn draw(&self, count: usize, seed: u64) -> Vec<usize> {
        let mut rng = SimRng::new(seed, Stream::Faults);
        (0..count).map(|_| self.sample(&mut rng)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_format_like_python() {
        let p = Pattern::parse("P-2026-{:06}").unwrap();
        assert_eq!(p.key(1), "P-2026-000001");
        assert_eq!(p.key(100_000), "P-2026-100000");
        assert_eq!(Pattern::parse("P-{:06d}").unwrap().key(42), "P-000042");
        assert_eq!(Pattern::parse("u{}x").unwrap().key(7), "u7x");
        assert_eq!(Pattern::parse("u{:3}").unwrap().key(7), "u  7");
        assert!(Pattern::parse("none").is_err());
        assert!(Pattern::parse("{}{}").is_err());
        assert!(Pattern::parse("{:x}").is_err());
    }

    #[test]
    fn ranges_parse_and_empty_ones_are_refused() {
        assert_eq!(parse_range("1..=100000"), Ok(1..=100_000));
        assert_eq!(parse_range("0..10"), Ok(0..=9));
        assert!(parse_range("5..=4").unwrap_err().contains("empty"));
        assert!(parse_range("5..5").unwrap_err().contains("empty"));
        assert!(parse_range("0..0").unwrap_err().contains("empty"));
        assert!(parse_range("a..b").is_err());
    }

    #[test]
    fn key_sets_store_text_hash_and_ordinal() {
        let p = Pattern::parse("P-2026-{:06}").unwrap();
        let set = KeySet::from_pattern(&p, 1..=3, HashFn::Md5_64);
        assert_eq!(set.len(), 3);
        let k = set.get(2);
        assert_eq!(k.text, "P-2026-000003");
        assert_eq!(k.ord, 3);
        assert_eq!(k.hash, HashFn::Md5_64.hash_str("P-2026-000003"));
        let lines = KeySet::from_lines("b\n\n  a  \n", HashFn::Xxh3);
        assert_eq!(lines.iter().map(|k| k.text).collect::<Vec<_>>(), ["b", "a"]);
        assert!(lines.get(0).ord > lines.get(1).ord);
    }

    #[test]
    fn hotspot_puts_the_asked_share_in_the_top_of_the_space() {
        let ords = hotspot_ordinals(100_000, 1_000_000, 80, 10, 7);
        let top = ords.iter().filter(|&&o| o >= 900_000).count();
        assert!((79_000..81_000).contains(&top), "{top}");
        assert!(ords.iter().all(|&o| o < 1_000_000));
        assert_eq!(ords, hotspot_ordinals(100_000, 1_000_000, 80, 10, 7));
    }

    #[test]
    fn zipf_top_rank_takes_one_over_the_harmonic_number() {
        let z = Zipf::new(2000, 1.0).unwrap();
        let ranks = z.draw(200_000, 1);
        let top = ranks.iter().filter(|&&r| r == 0).count() as f64 / 200_000.0;
        // H(2000) ~ 8.18, so rank 0 gets ~12.2 % (the lesson's listing 9.7: 12.4 %).
        assert!((0.115..0.13).contains(&top), "{top}");
        let second = ranks.iter().filter(|&&r| r == 1).count() as f64 / 200_000.0;
        assert!((top / second - 2.0).abs() < 0.15, "{top} {second}");
    }

    #[test]
    fn zipf_exponents_are_half_steps_computed_without_powf() {
        for bad in [0.0, 0.3, -1.0, 4.5, f64::NAN, f64::INFINITY] {
            assert!(
                Zipf::new(10, bad).unwrap_err().contains("multiple of 0.5"),
                "{bad}"
            );
        }
        // s = 2: weights 1, 1/4, 1/9 exactly; s = 1.5: 1, 1/(2 sqrt 2), 1/(3 sqrt 3).
        let z = Zipf::new(3, 2.0).unwrap();
        assert_eq!(z.cumulative, [1.0, 1.25, 1.25 + 1.0 / 9.0]);
        let z = Zipf::new(3, 1.5).unwrap();
        let w2 = 1.0 / (2f64.sqrt() * 2.0);
        assert_eq!(z.cumulative[1], 1.0 + w2);
        // Pinned draws, the same on every machine (only correctly rounded operations); s = 1
        // draws what the earlier `1.0 / k` weights drew.
        let got = (
            Zipf::new(2000, 1.0).unwrap().draw(12, 1),
            Zipf::new(2000, 1.5).unwrap().draw(12, 1),
        );
        assert_eq!(
            got,
            (
                vec![727, 148, 8, 36, 1463, 20, 1, 11, 1594, 15, 0, 217],
                vec![30, 4, 0, 1, 195, 1, 0, 0, 297, 1, 0, 6]
            )
        );
    }
}
