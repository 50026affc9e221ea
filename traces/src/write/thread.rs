//! A trace written on a thread of its own.
//!
//! The run hands each record over by value, gathered in batches of [`RECORDS_PER_BATCH`]; the
//! thread turns them into JSON lines with a [`JsonLinesSink`], in the order they came, and
//! hands the emptied batches back to be filled again. The channel holds at most
//! [`BATCHES_WAITING`] full batches, so a run that makes records faster than the disk takes
//! them waits for it rather than piling them up: memory stays flat in the run's length. The
//! bytes written are the sink's, in the same order: the file is the same as when the run
//! writes it itself, at a fraction of the run's time on a second core.

use super::JsonLinesSink;
use sim_core::{Actor, Record, TraceSink};
use std::io::{self, Write};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::thread::Scope;

/// The records a batch gathers before it goes to the writer's thread. Each batch costs a
/// wake-up of the other thread: at 256 records the token-ring bench spent more time waking
/// than writing (10.7x the bare heap, against 4.4x at 2,048); at 4,096 and more, memory in
/// flight grows with no gain in speed.
pub const RECORDS_PER_BATCH: usize = 2048;

/// The full batches that may wait for the writer's thread before the run waits for it: two
/// keep both threads busy; more only hold more records (with four batches of 4,096 waiting, a
/// 10^7-step Raft run's peak was 16 % above a 10^5-step run's).
pub const BATCHES_WAITING: usize = 2;

/// What the writer's thread sends back at its end: the writer, or the first error it met.
type Outcome<W> = io::Result<W>;

/// The run's end of a trace written on another thread: takes records, and at [`finish`]
/// (or when dropped) waits until every record it took is written.
///
/// [`finish`]: TraceThread::finish
pub struct TraceThread<A: Actor, W> {
    batch: Vec<Record<A>>,
    /// `None` once the last batch is handed over.
    full: Option<SyncSender<Vec<Record<A>>>>,
    empty: Receiver<Vec<Record<A>>>,
    done: Receiver<Outcome<W>>,
}

/// The writer's end of a [`TraceThread`]: what its thread runs ([`Writer::run`]).
pub struct Writer<A: Actor, W: Write> {
    sink: JsonLinesSink<W>,
    full: Receiver<Vec<Record<A>>>,
    empty: Sender<Vec<Record<A>>>,
    done: Sender<Outcome<W>>,
}

impl<A: Actor, W: Write + Send> TraceThread<A, W> {
    /// The two ends of a trace written through `sink`; run the [`Writer`] on a thread of the
    /// caller's choosing ([`TraceThread::spawn`] and [`TraceThread::spawn_scoped`] do).
    pub fn new(sink: JsonLinesSink<W>) -> (Self, Writer<A, W>) {
        let (full_tx, full_rx) = mpsc::sync_channel(BATCHES_WAITING);
        let (empty_tx, empty_rx) = mpsc::channel();
        let (done_tx, done_rx) = mpsc::channel();
        let run_end = TraceThread {
            batch: Vec::with_capacity(RECORDS_PER_BATCH),
            full: Some(full_tx),
            empty: empty_rx,
            done: done_rx,
        };
        let writer = Writer {
            sink,
            full: full_rx,
            empty: empty_tx,
            done: done_tx,
        };
        (run_end, writer)
    }

    /// Writes through `sink` on a new thread (for a writer that owns what it writes to).
    pub fn spawn(sink: JsonLinesSink<W>) -> io::Result<Self>
    where
        W: 'static,
    {
        let (run_end, writer) = Self::new(sink);
        std::thread::Builder::new()
            .name("dsim trace writer".into())
            .spawn(move || writer.run())?;
        Ok(run_end)
    }

    /// Writes through `sink` on a new thread of `scope` (for a writer borrowed for the run:
    /// the scope ends after the thread has written everything).
    pub fn spawn_scoped<'scope>(
        scope: &'scope Scope<'scope, '_>,
        sink: JsonLinesSink<W>,
    ) -> io::Result<Self>
    where
        W: 'scope,
    {
        let (run_end, writer) = Self::new(sink);
        std::thread::Builder::new()
            .name("dsim trace writer".into())
            .spawn_scoped(scope, move || writer.run())?;
        Ok(run_end)
    }
}

impl<A: Actor, W> TraceThread<A, W> {
    /// Takes one record, to be written after every record taken before it.
    #[inline]
    pub fn take(&mut self, record: Record<A>) {
        self.batch.push(record);
        if self.batch.len() >= RECORDS_PER_BATCH {
            self.hand_over();
        }
    }

    fn hand_over(&mut self) {
        let next = self
            .empty
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(RECORDS_PER_BATCH));
        let batch = std::mem::replace(&mut self.batch, next);
        if let Some(full) = &self.full {
            // A send fails only when the thread is gone (it panicked); `finish` says so.
            let _ = full.send(batch);
        }
    }

    /// Hands over the last records, waits until everything is written and flushed, and
    /// returns the writer, or the first error met (a run does not stop for a failed write:
    /// its caller reports it).
    pub fn finish(mut self) -> io::Result<W> {
        self.close()
    }

    fn close(&mut self) -> io::Result<W> {
        if !self.batch.is_empty() {
            self.hand_over();
        }
        // Dropping the sender ends the writer's loop once it has written what it was sent.
        self.full = None;
        self.done.recv().unwrap_or_else(|_| {
            Err(io::Error::other(
                "the trace writer's thread stopped before the end of the run",
            ))
        })
    }
}

impl<A: Actor, W> Drop for TraceThread<A, W> {
    /// Waits until what was taken is written, as dropping a `BufWriter` flushes it (errors
    /// are lost here: call [`TraceThread::finish`] to see them).
    fn drop(&mut self) {
        if self.full.is_some() {
            let _ = self.close();
        }
    }
}

impl<A: Actor, W: Write + Send> Writer<A, W> {
    /// Writes each batch as it comes and sends it back emptied, until the run's end is
    /// finished or dropped; then flushes and reports.
    pub fn run(mut self) {
        while let Ok(mut batch) = self.full.recv() {
            for record in batch.drain(..) {
                self.sink.record(&record);
            }
            // The run's end may be gone already (it was dropped): nothing to hand back then.
            let _ = self.empty.send(batch);
        }
        let _ = self.done.send(self.sink.finish());
    }
}

impl<A: Actor, W: Write + Send> TraceSink<A> for TraceThread<A, W> {
    fn record(&mut self, record: &Record<A>) {
        self.take(record.clone());
    }

    fn take(&mut self, record: Record<A>) {
        TraceThread::take(self, record);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{Msg, Probe};
    use sim_core::{Duration, Event, Instant, MsgId, Name, net::DropReason};
    use std::borrow::Cow;

    /// Records of every kind the fast lines write, and one they leave to `serde_json`; names
    /// that need escaping and one longer than any padded block.
    fn records(count: u64) -> Vec<Record<Probe>> {
        let long = Name::from("n".repeat(300));
        let names = [Name::from("a"), Name::from("b \"quoted\"\n"), long];
        (0..count)
            .map(|i| {
                let from = names[(i % 3) as usize].clone();
                let to = names[(i / 3 % 3) as usize].clone();
                let kind = Cow::Borrowed("Ping");
                let event = match i % 7 {
                    0 => Event::Send {
                        id: MsgId(i),
                        from,
                        to,
                        msg: Msg::Ping { n: i * 1_000_003 },
                    },
                    1 => Event::Deliver {
                        id: MsgId(i),
                        from,
                        to,
                        msg_kind: kind,
                    },
                    2 => Event::Drop {
                        id: MsgId(i),
                        from,
                        to,
                        msg_kind: Cow::Owned("Ping".into()),
                        reason: DropReason::Rule(3),
                    },
                    3 => Event::Duplicate {
                        id: MsgId(i),
                        from,
                        to,
                        msg_kind: kind,
                        delay: Duration::from_millis(i),
                    },
                    4 => Event::Timer {
                        node: from,
                        timer: (i % 256) as u8,
                    },
                    5 => Event::Note {
                        node: to,
                        note: serde_json::json!({"i": i, "text": "é\u{1}"}),
                    },
                    _ => Event::Start {
                        node: from,
                        restart: i % 2 == 0,
                    },
                };
                Record {
                    // Two or three records a step, as a run makes them.
                    step: i / 3 * 10_000_019,
                    time: Instant(u64::MAX / (count + 1) * (i / 3)),
                    event,
                }
            })
            .collect()
    }

    /// The trace thread writes every record, in order, as `serde_json` would (through more
    /// batches than may wait at once).
    #[test]
    fn the_thread_writes_what_serde_json_writes_in_order() {
        let count = (RECORDS_PER_BATCH * (BATCHES_WAITING + 3) + 17) as u64;
        let records = records(count);
        let mut thread = TraceThread::spawn(JsonLinesSink::new(Vec::new(), "{}")).unwrap();
        for record in records.clone() {
            thread.take(record);
        }
        let written = String::from_utf8(thread.finish().unwrap()).unwrap();
        let mut expected = String::from("{}\n");
        for record in &records {
            expected.push_str(&serde_json::to_string(record).unwrap());
            expected.push('\n');
        }
        assert_eq!(written, expected);
    }

    /// A writer that fails.
    struct Full;
    impl Write for Full {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::new(io::ErrorKind::StorageFull, "no space left"))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// A failed write is the run's to report: `finish` returns it, after taking every record.
    #[test]
    fn a_failed_write_is_returned_at_the_end() {
        let mut thread = TraceThread::spawn(JsonLinesSink::new(Full, "{}")).unwrap();
        for record in records(3 * RECORDS_PER_BATCH as u64) {
            thread.take(record);
        }
        let error = thread.finish().err().expect("the write failed");
        assert_eq!(error.kind(), io::ErrorKind::StorageFull);
    }

    /// Dropping the run's end waits for the records it took to be written.
    #[test]
    fn dropping_waits_for_the_writing() {
        let buffer = super::super::SharedBuffer::default();
        std::thread::scope(|scope| {
            let sink = JsonLinesSink::new(buffer.clone(), "{}");
            let mut thread = TraceThread::spawn_scoped(scope, sink).unwrap();
            records(10).into_iter().for_each(|r| thread.take(r));
            drop(thread);
            assert_eq!(buffer.text().lines().count(), 11);
        });
    }
}
