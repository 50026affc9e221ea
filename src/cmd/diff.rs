//! `dsim diff A B`: where two traces first part ways, with the lines before it.

use crate::compare::print_divergence;
use crate::exit::{CliError, FAILED, OK};
use crate::output::out;
use crate::trace_input;
use traces::diff::first_divergence;

/// Arguments of `dsim diff`.
#[derive(clap::Args, Debug)]
pub struct DiffArgs {
    /// The first trace. Example: `dsim diff seed1.jsonl seed2.jsonl`.
    pub a: String,
    /// The second trace.
    pub b: String,
    /// How many equal lines to show before the first difference. Example: `--context 5`.
    #[arg(long, default_value_t = 3)]
    pub context: usize,
}

/// Runs `dsim diff`.
pub fn run(args: DiffArgs) -> Result<u8, CliError> {
    let a = trace_input::read(&args.a)?;
    let b = trace_input::read(&args.b)?;
    match first_divergence(&a.text, &b.text, args.context) {
        None => {
            out!("{} and {} are the same run", args.a, args.b);
            Ok(OK)
        }
        Some(d) => {
            print_divergence(&d, &args.a, &args.b)?;
            Ok(FAILED)
        }
    }
}
