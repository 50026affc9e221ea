//! `dsim diff A B`: where two traces first part ways, with the lines before it.

use crate::exit::{CliError, FAILED, OK};
use crate::trace_input;
use traces::diff::{Divergence, first_divergence};

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

/// Prints a divergence: context, then each side's line (`left` and `right` name the sides).
pub fn print_divergence(d: &Divergence, left: &str, right: &str) {
    let step = d.step.map_or(String::new(), |s| format!(" (step {s})"));
    println!("first difference at line {}{step}:", d.line);
    for (n, text) in &d.before {
        println!("  {n:>5}   {text}");
    }
    let width = left.len().max(right.len());
    println!(
        "  {:>5} - {left:<width$}  {}",
        d.line,
        d.left.as_deref().unwrap_or("(ends before this line)")
    );
    println!(
        "  {:>5} + {right:<width$}  {}",
        d.line,
        d.right.as_deref().unwrap_or("(ends before this line)")
    );
}

/// Runs `dsim diff`.
pub fn run(args: DiffArgs) -> Result<u8, CliError> {
    let a = trace_input::read(&args.a)?;
    let b = trace_input::read(&args.b)?;
    match first_divergence(&a.text, &b.text, args.context) {
        None => {
            println!("{} and {} are the same run", args.a, args.b);
            Ok(OK)
        }
        Some(d) => {
            print_divergence(&d, &args.a, &args.b);
            Ok(FAILED)
        }
    }
}
