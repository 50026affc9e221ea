//! Writing a trace as the run makes it: one JSON line per record.

use serde::Serialize;
use sim_core::{Actor, Record, TraceSink};
use std::io::{self, Write};

/// A sink that writes each record as one JSON line. I/O errors are kept (the first one) for the
/// caller to report after the run, since a record sink cannot fail the kernel's step.
pub struct JsonLinesSink<W: Write> {
    out: W,
    error: Option<io::Error>,
    line: Vec<u8>,
}

impl<W: Write> JsonLinesSink<W> {
    /// A sink writing to `out`, starting with the header line `header`.
    pub fn new(mut out: W, header: &str) -> Self {
        let error = writeln!(out, "{header}").err();
        JsonLinesSink {
            out,
            error,
            line: Vec::with_capacity(256),
        }
    }

    /// Flushes and returns the writer, or the first error met.
    pub fn finish(mut self) -> io::Result<W> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Appends one record as a JSON line to `buf`.
pub fn record_line<A: Actor>(record: &Record<A>, buf: &mut Vec<u8>) {
    record
        .serialize(&mut serde_json::Serializer::new(&mut *buf))
        .expect("records always serialize");
    buf.push(b'\n');
}

impl<A: Actor, W: Write> TraceSink<A> for JsonLinesSink<W> {
    fn record(&mut self, record: &Record<A>) {
        if self.error.is_some() {
            return;
        }
        self.line.clear();
        record_line(record, &mut self.line);
        if let Err(e) = self.out.write_all(&self.line) {
            self.error = Some(e);
        }
    }
}

/// A sink that writes into a shared in-memory buffer (for tests, goldens and `--check-determinism`).
#[derive(Clone, Default)]
pub struct SharedBuffer(pub std::rc::Rc<std::cell::RefCell<Vec<u8>>>);

impl Write for SharedBuffer {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl SharedBuffer {
    /// The bytes written so far, as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.borrow()).into_owned()
    }
}
