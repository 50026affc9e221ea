//! `dsim replay TRACE`: run the header's scenario at the header's seed again and check that the
//! trace comes out identical (determinism, and a file nobody edited).

use crate::compare::print_divergence;
use crate::exit::{CliError, FAILED, OK};
use crate::output::out;
use crate::trace_input::{self, bad_trace};

/// Arguments of `dsim replay`.
#[derive(clap::Args, Debug)]
pub struct ReplayArgs {
    /// The trace file; its header holds the scenario and the seed. Example:
    /// `dsim run paxos/lost-accepts --trace t.jsonl && dsim replay t.jsonl`.
    pub trace: String,
}

/// Runs `dsim replay`.
pub fn run(args: ReplayArgs) -> Result<u8, CliError> {
    let file = trace_input::read(&args.trace)?;
    let again = file.trace.replay().map_err(|p| bad_trace(&file.path, &p))?;
    match traces::diff::first_divergence(&file.text, &again, 3) {
        None => {
            out!(
                "{}: the replay is identical ({} lines)",
                file.path,
                again.lines().count()
            );
            Ok(OK)
        }
        Some(d) => {
            out!("{}: the replay differs from the file", file.path);
            print_divergence(&d, &file.path, "replay")?;
            Ok(FAILED)
        }
    }
}
