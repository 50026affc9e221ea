//! Writing a trace as the run makes it: one JSON line per record.

use serde::Serialize;
use sim_core::{Actor, Name, Record, TraceSink};
use std::io::{self, Write};

/// A sink that writes each record as one JSON line. I/O errors are kept (the first one) for the
/// caller to report after the run, since a record sink cannot fail the kernel's step.
///
/// Lines are made straight into a batch of about [`BATCH`] bytes that goes to `out` in one
/// write when full: a record costs no copy between buffers and no call into `out`, so `out`
/// needs no buffer of its own.
pub struct JsonLinesSink<W: Write> {
    out: W,
    error: Option<io::Error>,
    batch: Vec<u8>,
    names: NameCache,
}

/// The bytes a [`JsonLinesSink`] gathers before writing them.
pub const BATCH: usize = 64 * 1024;

impl<W: Write> JsonLinesSink<W> {
    /// A sink writing to `out`, starting with the header line `header`.
    pub fn new(mut out: W, header: &str) -> Self {
        let error = writeln!(out, "{header}").err();
        JsonLinesSink {
            out,
            error,
            batch: Vec::with_capacity(BATCH + 4096),
            names: NameCache::default(),
        }
    }

    /// Writes what is gathered and flushes; returns the writer, or the first error met.
    pub fn finish(mut self) -> io::Result<W> {
        self.write_batch();
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()?;
        Ok(self.out)
    }

    fn write_batch(&mut self) {
        if self.error.is_none()
            && let Err(e) = self.out.write_all(&self.batch)
        {
            self.error = Some(e);
        }
        self.batch.clear();
    }
}

/// Appends one record as a JSON line to `buf`: exactly the bytes `serde_json` writes for the
/// record (the format is the `Serialize` derive's), but written directly for the records a run
/// makes most (sends, deliveries, drops, timers, notes), with node names escaped once per name.
/// A test checks the two agree on every course scenario.
pub fn record_line<A: Actor>(record: &Record<A>, buf: &mut Vec<u8>) {
    record_line_cached(record, buf, &mut NameCache::default());
}

/// Escaped JSON strings of node names and message kinds: a run has only a few distinct ones, so
/// each is escaped once. Node names are interned (`sim_core::Name`: one address per text for
/// the whole process, never freed), so a name is found by its address alone; other texts (a
/// message kind) by their content.
#[derive(Default)]
pub struct NameCache {
    entries: Vec<(Box<str>, Vec<u8>)>,
    /// Interned names by address and length, with their escaped text.
    interned: Vec<(usize, usize, Vec<u8>)>,
}

impl NameCache {
    fn write_name(&mut self, name: &sim_core::Name, buf: &mut Vec<u8>) {
        let text: &str = name;
        let key = (text.as_ptr() as usize, text.len());
        if let Some((_, _, escaped)) = self.interned.iter().find(|e| (e.0, e.1) == key) {
            buf.extend_from_slice(escaped);
            return;
        }
        let escaped = serde_json::to_vec(text).expect("strings always serialize");
        buf.extend_from_slice(&escaped);
        if self.interned.len() < 64 {
            self.interned.push((key.0, key.1, escaped));
        }
    }

    fn write(&mut self, s: &str, buf: &mut Vec<u8>) {
        if let Some((_, escaped)) = self.entries.iter().find(|e| &*e.0 == s) {
            buf.extend_from_slice(escaped);
            return;
        }
        let escaped = serde_json::to_vec(s).expect("strings always serialize");
        buf.extend_from_slice(&escaped);
        if self.entries.len() < 64 {
            self.entries.push((s.into(), escaped));
        }
    }
}

fn number(buf: &mut Vec<u8>, n: u64) {
    buf.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

fn value<T: Serialize + ?Sized>(buf: &mut Vec<u8>, v: &T) {
    serde_json::to_writer(&mut *buf, v).expect("values always serialize");
}

/// [`record_line`] with a cache that lives as long as the caller wants (a sink keeps one).
pub fn record_line_cached<A: Actor>(record: &Record<A>, buf: &mut Vec<u8>, names: &mut NameCache) {
    use sim_core::Event;
    let head = |buf: &mut Vec<u8>, kind: &[u8]| {
        buf.extend_from_slice(b"{\"step\":");
        number(buf, record.step);
        buf.extend_from_slice(b",\"time\":");
        number(buf, record.time.as_nanos());
        buf.extend_from_slice(b",\"kind\":\"");
        buf.extend_from_slice(kind);
        buf.push(b'"');
    };
    let mut link = |buf: &mut Vec<u8>, kind: &[u8], id: u64, from: &Name, to: &Name| {
        head(buf, kind);
        buf.extend_from_slice(b",\"id\":");
        number(buf, id);
        buf.extend_from_slice(b",\"from\":");
        names.write_name(from, buf);
        buf.extend_from_slice(b",\"to\":");
        names.write_name(to, buf);
    };
    match &record.event {
        Event::Send { id, from, to, msg } => {
            link(buf, b"send", id.0, from, to);
            buf.extend_from_slice(b",\"msg\":");
            value(buf, msg);
        }
        Event::Deliver {
            id,
            from,
            to,
            msg_kind,
        } => {
            link(buf, b"deliver", id.0, from, to);
            buf.extend_from_slice(b",\"msg_kind\":");
            names.write(msg_kind, buf);
        }
        Event::Drop {
            id,
            from,
            to,
            msg_kind,
            reason,
        } => {
            link(buf, b"drop", id.0, from, to);
            buf.extend_from_slice(b",\"msg_kind\":");
            names.write(msg_kind, buf);
            buf.extend_from_slice(b",\"reason\":");
            value(buf, reason);
        }
        Event::Duplicate {
            id,
            from,
            to,
            msg_kind,
            delay,
        } => {
            link(buf, b"duplicate", id.0, from, to);
            buf.extend_from_slice(b",\"msg_kind\":");
            names.write(msg_kind, buf);
            buf.extend_from_slice(b",\"delay\":");
            number(buf, delay.as_nanos());
        }
        Event::Timer { node, timer } => {
            head(buf, b"timer");
            buf.extend_from_slice(b",\"node\":");
            names.write_name(node, buf);
            buf.extend_from_slice(b",\"timer\":");
            value(buf, timer);
        }
        Event::Note { node, note } => {
            head(buf, b"note");
            buf.extend_from_slice(b",\"node\":");
            names.write_name(node, buf);
            buf.extend_from_slice(b",\"note\":");
            value(buf, note);
        }
        _ => {
            value(buf, record);
            buf.push(b'\n');
            return;
        }
    }
    buf.extend_from_slice(b"}\n");
}

impl<A: Actor, W: Write + Send> TraceSink<A> for JsonLinesSink<W> {
    fn record(&mut self, record: &Record<A>) {
        if self.error.is_some() {
            return;
        }
        record_line_cached(record, &mut self.batch, &mut self.names);
        if self.batch.len() >= BATCH {
            self.write_batch();
        }
    }
}

/// A sink that writes into a shared in-memory buffer (for tests, goldens and `--check-determinism`).
#[derive(Clone, Default)]
pub struct SharedBuffer(pub std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl Write for SharedBuffer {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0
            .lock()
            .expect("a writer panicked")
            .extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl SharedBuffer {
    /// The bytes written so far, as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().expect("a writer panicked")).into_owned()
    }
}
