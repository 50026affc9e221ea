//! One record as one JSON line, written without `serde_json` for the records a run makes most.
//!
//! A line's fixed parts (step, time, kind, ids, names) are made in a `Line`, a scratch buffer
//! the cache keeps, whose length stays in a register, and go to the output in one copy:
//! appending each piece to the output `Vec` stores and reloads its length every time, a chain
//! of dependent memory operations that cost more than making the text. Numbers are written in place, and
//! names and the step's head are copied as fixed-size padded blocks (see `Padded`), so that
//! no piece costs a call to `memcpy`. Values whose shape is the protocol's (a message, a note,
//! a timer) are written by `serde_json`.

use serde::Serialize;
use sim_core::{Actor, Name, Record};
use std::borrow::Cow;

/// Appends one record as a JSON line to `buf`: exactly the bytes `serde_json` writes for the
/// record (the format is the `Serialize` derive's), but written directly for the records a run
/// makes most (sends, deliveries, drops, timers, notes), with node names escaped once per name.
/// A test checks the two agree on every course scenario. For more than one line, keep a
/// [`LineCache`] and call [`record_line_cached`].
pub fn record_line<A: Actor>(record: &Record<A>, buf: &mut Vec<u8>) {
    record_line_cached(record, buf, &mut LineCache::default());
}

/// What a writer remembers from one line to the next: escaped node names and message kinds,
/// and the last record's step and time as written.
///
/// A run has only a few distinct names and kinds, so each is escaped once. Node names are
/// interned (`sim_core::Name`: one address per text for the whole process, never freed) and
/// kinds are nearly always `&'static str`, so a text is found by its address and length alone.
/// A step makes a few records (a delivery and the sends it causes), all with the same step and
/// time: their head is written once.
pub struct LineCache {
    texts: Texts,
    tails: Tails,
    /// The last line's `{"step":S,"time":T`, with its step and time, once one was written.
    head: Option<(u64, u64, Padded<HEAD>)>,
    /// Where a [`Line`] is made (kept, so that a line does not clear a buffer first).
    scratch: Box<[u8; LINE]>,
}

impl Default for LineCache {
    fn default() -> Self {
        LineCache {
            texts: Texts::default(),
            tails: Tails::default(),
            head: None,
            scratch: Box::new([0; LINE]),
        }
    }
}

/// Escaped texts by address and length.
#[derive(Default)]
struct Texts {
    entries: Vec<(usize, usize, Escaped)>,
}

/// The end of message records' lines, from their ends on, by what makes them: see
/// [`Tails::write`].
#[derive(Default)]
struct Tails {
    /// [`TAIL_SLOTS`] slots once the first tail is written, each holding the last tail whose
    /// key maps to it.
    slots: Vec<Option<(TailKey, Padded<TAIL>)>>,
}

/// What a message record's tail is made of: the record's kind, the addresses of its ends'
/// names (interned) and of its message kind's text (static), with the kind's length.
type TailKey = (Tail, usize, usize, usize, usize);

/// The slots of [`Tails`]: a cluster of a few nodes sending a few kinds of messages fits.
const TAIL_SLOTS: usize = 256;

/// The padded size of a cached tail: two 32-byte names, a 32-byte kind and their keys fit.
const TAIL: usize = 128;

/// The message records whose tails are cached, with what follows their tail.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tail {
    /// `,"msg":` (the message follows).
    Send,
    /// `}` and the line's end: a delivery's line ends with its message kind.
    Deliver,
    /// `,"reason":` (the reason follows).
    Drop,
    /// `,"delay":` (the delay follows).
    Duplicate,
}

impl Tail {
    fn after(self) -> &'static [u8] {
        match self {
            Tail::Send => b",\"msg\":",
            Tail::Deliver => b"}\n",
            Tail::Drop => b",\"reason\":",
            Tail::Duplicate => b",\"delay\":",
        }
    }
}

impl Tails {
    /// Writes `,"from":F,"to":T`, then `,"msg_kind":K` when the record names its message's
    /// kind, then what follows the tail (see [`Tail`]): copied whole from the last line with
    /// the same key, a fixed-size copy, when its slot still holds it.
    #[inline(always)]
    fn write(
        &mut self,
        tail: Tail,
        (from, to): (&Name, &Name),
        kind: Option<&Cow<'static, str>>,
        line: &mut Line<'_>,
    ) {
        let kind = match kind {
            None => None,
            Some(Cow::Borrowed(kind)) => Some(*kind),
            // Only records read back from a file own their kind: not cached.
            Some(Cow::Owned(kind)) => {
                line.text(&tail_text(tail, from, to, Some(kind)));
                return;
            }
        };
        let key: TailKey = (
            tail,
            from.as_str().as_ptr() as usize,
            to.as_str().as_ptr() as usize,
            kind.map_or(0, |k| k.as_ptr() as usize),
            kind.map_or(0, str::len),
        );
        let slot = tail_slot(&key);
        if let Some(Some((cached, padded))) = self.slots.get(slot)
            && *cached == key
        {
            line.padded(padded);
            return;
        }
        self.miss(key, slot, from, to, kind, line);
    }

    #[cold]
    fn miss(
        &mut self,
        key: TailKey,
        slot: usize,
        from: &Name,
        to: &Name,
        kind: Option<&str>,
        line: &mut Line<'_>,
    ) {
        let text = tail_text(key.0, from, to, kind);
        line.text(&text);
        if self.slots.is_empty() {
            self.slots.resize(TAIL_SLOTS, None);
        }
        self.slots[slot] = Padded::of(&text).map(|padded| (key, padded));
    }
}

/// The slot of a tail's key: its addresses mixed and spread by a multiplication.
#[inline(always)]
fn tail_slot(key: &TailKey) -> usize {
    let mixed = (key.1 >> 3) as u64
        ^ ((key.2 >> 3) as u64).rotate_left(21)
        ^ ((key.3 >> 3) as u64).rotate_left(42)
        ^ key.0 as u64;
    (mixed.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 56) as usize % TAIL_SLOTS
}

/// A tail's text (see [`Tails::write`]).
fn tail_text(tail: Tail, from: &Name, to: &Name, kind: Option<&str>) -> Vec<u8> {
    let quoted = |text: &str| serde_json::to_vec(text).expect("strings always serialize");
    let mut text = b",\"from\":".to_vec();
    text.extend(quoted(from));
    text.extend(b",\"to\":");
    text.extend(quoted(to));
    if let Some(kind) = kind {
        text.extend(b",\"msg_kind\":");
        text.extend(quoted(kind));
    }
    text.extend(tail.after());
    text
}

/// How many texts a [`LineCache`] keeps (a run names a few nodes and message kinds).
const CACHED_TEXTS: usize = 64;

/// The padded size of a cached head: two 20-digit numbers and their keys fit.
const HEAD: usize = 64;

/// The padded size of a short escaped text.
const SHORT: usize = 32;

/// Up to `N` bytes kept in a block of exactly `N`, so that copying them is a fixed-size move
/// (inlined) rather than a call to `memcpy` with their length, which costs more than the copy
/// for a text of a few bytes.
#[derive(Clone, Copy)]
struct Padded<const N: usize> {
    bytes: [u8; N],
    len: usize,
}

impl<const N: usize> Padded<N> {
    /// `text`, when it fits.
    fn of(text: &[u8]) -> Option<Self> {
        let mut bytes = [0; N];
        bytes.get_mut(..text.len())?.copy_from_slice(text);
        Some(Padded {
            bytes,
            len: text.len(),
        })
    }
}

/// A text as a JSON string, ready to copy: most are short.
enum Escaped {
    Short(Padded<SHORT>),
    Long(Vec<u8>),
}

impl Escaped {
    fn of(text: &str) -> Escaped {
        let escaped = serde_json::to_vec(text).expect("strings always serialize");
        Padded::of(&escaped).map_or(Escaped::Long(escaped), Escaped::Short)
    }

    #[inline(always)]
    fn write(&self, line: &mut Line<'_>) {
        match self {
            Escaped::Short(padded) => line.padded(padded),
            Escaped::Long(bytes) => line.text(bytes),
        }
    }
}

/// Writes `{"step":S,"time":T`, copied from the last line when it had the same step and
/// time.
#[inline(always)]
fn write_head(
    head: &mut Option<(u64, u64, Padded<HEAD>)>,
    step: u64,
    time: u64,
    line: &mut Line<'_>,
) {
    if let Some((s, t, cached)) = head
        && (*s, *t) == (step, time)
    {
        line.padded(cached);
        return;
    }
    // A head starts its line, so it is never spilled and the first HEAD bytes of the buffer
    // hold it: they are kept whole (a fixed-size copy).
    debug_assert_eq!(line.len, 0, "a head starts its line");
    line.text(b"{\"step\":");
    line.number(step);
    line.text(b",\"time\":");
    line.number(time);
    let mut bytes = [0; HEAD];
    bytes.copy_from_slice(&line.bytes[..HEAD]);
    let len = line.len;
    *head = Some((step, time, Padded { bytes, len }));
}

impl Texts {
    /// Writes a node's name.
    #[inline(always)]
    fn write_name(&mut self, name: &Name, line: &mut Line<'_>) {
        self.write_static(name.as_str(), line);
    }

    /// Writes a text that lives as long as the process: its address and length name it.
    #[inline(always)]
    fn write_static(&mut self, text: &'static str, line: &mut Line<'_>) {
        let key = (text.as_ptr() as usize, text.len());
        match self.entries.iter().find(|e| (e.0, e.1) == key) {
            Some((_, _, escaped)) => escaped.write(line),
            None => self.miss(text, line),
        }
    }

    #[cold]
    fn miss(&mut self, text: &'static str, line: &mut Line<'_>) {
        let escaped = Escaped::of(text);
        escaped.write(line);
        if self.entries.len() < CACHED_TEXTS {
            self.entries
                .push((text.as_ptr() as usize, text.len(), escaped));
        }
    }
}

/// The bytes a [`Line`] holds before it goes to its output.
const LINE: usize = 128;

/// A line being made in the cache's scratch buffer, handed to `out` when full
/// ([`Line::spill`]), before a value `serde_json` writes, and at the end. Every method is inlined, so that `len` stays
/// in a register.
struct Line<'a> {
    out: &'a mut Vec<u8>,
    bytes: &'a mut [u8; LINE],
    len: usize,
}

impl<'a> Line<'a> {
    #[inline(always)]
    fn new(out: &'a mut Vec<u8>, bytes: &'a mut [u8; LINE]) -> Self {
        Line { out, bytes, len: 0 }
    }

    /// Makes room for `n` more bytes (`n` at most [`LINE`]).
    #[inline(always)]
    fn room(&mut self, n: usize) {
        if self.len + n > LINE {
            self.spill();
        }
    }

    /// Hands what is held to the output: the whole buffer, cut to what it holds (a fixed-size
    /// copy, see [`Padded`]).
    #[inline(always)]
    fn spill(&mut self) {
        let start = self.out.len();
        self.out.extend_from_slice(&self.bytes[..]);
        self.out.truncate(start + self.len);
        self.len = 0;
    }

    /// Appends `text` (a literal: its copy is inlined).
    #[inline(always)]
    fn text(&mut self, text: &[u8]) {
        if text.len() > LINE {
            self.spill();
            self.out.extend_from_slice(text);
            return;
        }
        self.room(text.len());
        self.bytes[self.len..self.len + text.len()].copy_from_slice(text);
        self.len += text.len();
    }

    /// Appends a padded block's bytes, copying the whole block.
    #[inline(always)]
    fn padded<const N: usize>(&mut self, padded: &Padded<N>) {
        self.room(N);
        self.bytes[self.len..self.len + N].copy_from_slice(&padded.bytes);
        self.len += padded.len;
    }

    /// Appends `n` in decimal.
    #[inline(always)]
    fn number(&mut self, n: u64) {
        let digits = n.checked_ilog10().map_or(1, |d| d as usize + 1);
        self.room(20);
        fill_digits(&mut self.bytes[self.len..self.len + digits], n);
        self.len += digits;
    }

    /// Appends `value` as `serde_json` writes it.
    #[inline(always)]
    fn value<T: Serialize + ?Sized>(&mut self, value: &T) {
        self.spill();
        serde_json::to_writer(&mut *self.out, value).expect("values always serialize");
    }

    /// Hands the line to the output.
    #[inline(always)]
    fn end(mut self) {
        self.spill();
    }

    /// Ends a line whose last value `serde_json` wrote (nothing is held): the closing bytes go
    /// straight to the output.
    #[inline(always)]
    fn end_after_value(self, closing: &[u8]) {
        debug_assert_eq!(self.len, 0, "a value was the last thing written");
        self.out.extend_from_slice(closing);
    }
}

/// Two decimal digits for each of 0..100.
const DIGIT_PAIRS: &[u8; 200] = b"\
    0001020304050607080910111213141516171819\
    2021222324252627282930313233343536373839\
    4041424344454647484950515253545556575859\
    6061626364656667686970717273747576777879\
    8081828384858687888990919293949596979899";

/// Writes `n`'s decimal digits into `out`, which is exactly as long as they are. Eight digits
/// are made per division by 10^8, as two groups of four that do not wait for each other.
#[inline]
fn fill_digits(out: &mut [u8], mut n: u64) {
    let mut end = out.len();
    while n >= 100_000_000 {
        let low = n % 100_000_000;
        n /= 100_000_000;
        four_digits(&mut out[end - 8..end - 4], low / 10_000);
        four_digits(&mut out[end - 4..end], low % 10_000);
        end -= 8;
    }
    if n >= 10_000 {
        four_digits(&mut out[end - 4..end], n % 10_000);
        n /= 10_000;
        end -= 4;
    }
    // One to four digits remain.
    match end {
        4 => four_digits(&mut out[..4], n),
        3 => {
            out[0] = b'0' + (n / 100) as u8;
            out[1..3].copy_from_slice(&digit_pair(n % 100));
        }
        2 => out[..2].copy_from_slice(&digit_pair(n)),
        _ => out[0] = b'0' + n as u8,
    }
}

/// `n` (below 10,000) as exactly four digits.
#[inline]
fn four_digits(out: &mut [u8], n: u64) {
    out[..2].copy_from_slice(&digit_pair(n / 100));
    out[2..4].copy_from_slice(&digit_pair(n % 100));
}

/// `n` (below 100) as exactly two digits.
#[inline]
fn digit_pair(n: u64) -> [u8; 2] {
    let k = n as usize * 2;
    [DIGIT_PAIRS[k], DIGIT_PAIRS[k + 1]]
}

/// Writes a line's head: `{"step":S,"time":T,"kind":"KIND"`.
#[inline(always)]
fn head<A: Actor>(
    line: &mut Line<'_>,
    cached: &mut Option<(u64, u64, Padded<HEAD>)>,
    record: &Record<A>,
    kind: &[u8],
) {
    write_head(cached, record.step, record.time.as_nanos(), line);
    line.text(b",\"kind\":\"");
    line.text(kind);
    line.text(b"\"");
}

/// Writes a message record's line up to what follows its tail (see [`Tails::write`]).
#[inline(always)]
fn link<A: Actor>(
    line: &mut Line<'_>,
    (tails, cached): (&mut Tails, &mut Option<(u64, u64, Padded<HEAD>)>),
    record: &Record<A>,
    (kind, tail): (&[u8], Tail),
    id: u64,
    ends: (&Name, &Name),
    msg_kind: Option<&Cow<'static, str>>,
) {
    head(line, cached, record, kind);
    line.text(b",\"id\":");
    line.number(id);
    tails.write(tail, ends, msg_kind, line);
}

/// [`record_line`] with a cache that lives as long as the caller wants (a sink keeps one).
pub fn record_line_cached<A: Actor>(record: &Record<A>, buf: &mut Vec<u8>, cache: &mut LineCache) {
    use sim_core::Event;
    let LineCache {
        texts,
        tails,
        head: cached,
        scratch,
    } = cache;
    let mut line = Line::new(buf, scratch);
    match &record.event {
        Event::Send { id, from, to, msg } => {
            let kind = (&b"send"[..], Tail::Send);
            link(
                &mut line,
                (tails, cached),
                record,
                kind,
                id.0,
                (from, to),
                None,
            );
            line.value(msg);
            line.end_after_value(b"}\n");
        }
        Event::Deliver {
            id,
            from,
            to,
            msg_kind,
        } => {
            let kind = (&b"deliver"[..], Tail::Deliver);
            let ends = (from, to);
            link(
                &mut line,
                (tails, cached),
                record,
                kind,
                id.0,
                ends,
                Some(msg_kind),
            );
            line.end();
        }
        Event::Drop {
            id,
            from,
            to,
            msg_kind,
            reason,
        } => {
            let kind = (&b"drop"[..], Tail::Drop);
            let ends = (from, to);
            link(
                &mut line,
                (tails, cached),
                record,
                kind,
                id.0,
                ends,
                Some(msg_kind),
            );
            line.value(reason);
            line.end_after_value(b"}\n");
        }
        Event::Duplicate {
            id,
            from,
            to,
            msg_kind,
            delay,
        } => {
            let kind = (&b"duplicate"[..], Tail::Duplicate);
            let ends = (from, to);
            link(
                &mut line,
                (tails, cached),
                record,
                kind,
                id.0,
                ends,
                Some(msg_kind),
            );
            line.number(delay.as_nanos());
            line.text(b"}\n");
            line.end();
        }
        Event::Timer { node, timer } => {
            head(&mut line, cached, record, b"timer");
            line.text(b",\"node\":");
            texts.write_name(node, &mut line);
            line.text(b",\"timer\":");
            line.value(timer);
            line.end_after_value(b"}\n");
        }
        Event::Note { node, note } => {
            head(&mut line, cached, record, b"note");
            line.text(b",\"node\":");
            texts.write_name(node, &mut line);
            line.text(b",\"note\":");
            line.value(note);
            line.end_after_value(b"}\n");
        }
        _ => {
            line.value(record);
            line.end_after_value(b"\n");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Numbers are written as `u64`'s `Display` writes them, at every digit count.
        #[test]
        fn numbers_read_as_display_writes_them(n in any::<u64>(), digits in 0u32..20) {
            for n in [n, n % 10u64.pow(digits), 10u64.pow(digits), 10u64.pow(digits) - 1] {
                let (mut out, mut scratch) = (Vec::new(), [0; LINE]);
                let mut line = Line::new(&mut out, &mut scratch);
                line.number(n);
                line.end();
                prop_assert_eq!(String::from_utf8(out).unwrap(), n.to_string());
            }
        }
    }

    /// A line longer than the scratch buffer (a long name) is handed over in parts, whole.
    #[test]
    fn long_texts_spill_whole() {
        let long = "n".repeat(3 * LINE);
        let (mut out, mut scratch) = (Vec::new(), [0; LINE]);
        let mut line = Line::new(&mut out, &mut scratch);
        line.text(b"{\"to\":");
        Escaped::of(&long).write(&mut line);
        for _ in 0..LINE {
            line.number(u64::MAX);
        }
        line.end();
        let expected = format!("{{\"to\":\"{long}\"{}", u64::MAX.to_string().repeat(LINE));
        assert_eq!(String::from_utf8(out).unwrap(), expected);
    }
}
