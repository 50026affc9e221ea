//! `dsim ring`: partitioning measurements (placeholder until the ring issue lands).

use crate::exit::CliError;

/// Arguments of `dsim ring`.
#[derive(clap::Args, Debug)]
pub struct RingArgs {}

/// Runs `dsim ring`.
pub fn run(_args: RingArgs) -> Result<u8, CliError> {
    Err(CliError::bad_input("dsim ring: not built yet"))
}
