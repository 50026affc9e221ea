//! A run's records streamed to what reads them, each dropped once read.
//!
//! The kernel keeps a step's records in a buffer that [`stream`] empties after every step,
//! handing each record to the run's [`Listeners`]: the trace file's writer (a line written as
//! the record is made), the records the protocol keeps for its end (`sim_core::KeptRecords`:
//! expectations and figures), the story (`traces::story::stream::Teller`: a window of records
//! at a time, shortened as it goes) and, only when a view is asked for, every record. So a
//! run's memory is flat in its length unless the user asks for the whole of it (`--view`,
//! `--full`).

use sim_core::{Actor, KeptRecords, Record, RunReport, Sim, TraceMode};
use std::io::Write;
use traces::Story;
use traces::story::stream::Teller;
use traces::write::TraceThread;

/// Where a run's trace goes as it is made (a file, a digest, a buffer).
pub type TraceOut<'w> = &'w mut (dyn Write + Send);

/// What reads a run's records as they stream by.
pub(super) struct Listeners<'w, P: Story> {
    /// The records the protocol keeps for the run's end.
    pub kept: KeptRecords<P::Actor>,
    /// The story, when one is told.
    pub teller: Option<Teller<P>>,
    /// The trace's JSON lines, when written (on a thread of their own).
    pub trace: Option<TraceThread<P::Actor, TraceOut<'w>>>,
    /// Every record, when a view of the whole run is asked for.
    pub all: Option<Vec<Record<P::Actor>>>,
}

impl<P: Story> Listeners<'_, P> {
    /// Hands `record` to each listener.
    pub fn take(&mut self, record: Record<P::Actor>) {
        self.kept.observe::<P>(&record);
        if let Some(all) = &mut self.all {
            all.push(record.clone());
        }
        match (&mut self.teller, &mut self.trace) {
            (Some(teller), Some(trace)) => {
                teller.push(record.clone());
                trace.take(record);
            }
            (Some(teller), None) => teller.push(record),
            (None, Some(trace)) => trace.take(record),
            (None, None) => {}
        }
    }
}

/// Runs `sim` to its end, handing each record to `take` once its step is over.
pub(super) fn stream<A: Actor>(sim: &mut Sim<A>, mut take: impl FnMut(Record<A>)) -> RunReport {
    sim.set_trace(TraceMode::Memory(Vec::new()));
    while sim.step() {
        sim.drain_records().for_each(&mut take);
    }
    let report = sim.finish();
    sim.drain_records().for_each(take);
    report
}
