//! Writing a trace as the run makes it: one JSON line per record.
//!
//! [`mod@line`] makes a record's line; [`JsonLinesSink`] gathers lines and writes them in batches;
//! [`mod@thread`] does both on a thread of its own, so that a long run pays for its trace on a
//! second core rather than on the kernel's.

pub mod line;
pub mod thread;

pub use line::{LineCache, record_line, record_line_cached};
pub use thread::TraceThread;

use sim_core::{Actor, Record, TraceSink};
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
    cache: LineCache,
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
            cache: LineCache::default(),
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

impl<A: Actor, W: Write + Send> TraceSink<A> for JsonLinesSink<W> {
    fn record(&mut self, record: &Record<A>) {
        if self.error.is_some() {
            return;
        }
        record_line_cached(record, &mut self.batch, &mut self.cache);
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
