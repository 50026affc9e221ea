//! Printing where two traces part ways, for `dsim diff` and `dsim replay`.

use crate::exit::CliError;
use crate::output::out;
use traces::diff::Divergence;

/// Prints a divergence: context, then each side's line (`left` and `right` name the sides).
pub fn print_divergence(d: &Divergence, left: &str, right: &str) -> Result<(), CliError> {
    let step = d.step.map_or(String::new(), |s| format!(" (step {s})"));
    out!("first difference at line {}{step}:", d.line);
    for (n, text) in &d.before {
        out!("  {n:>5}   {text}");
    }
    let width = left.len().max(right.len());
    out!(
        "  {:>5} - {left:<width$}  {}",
        d.line,
        d.left.as_deref().unwrap_or("(ends before this line)")
    );
    out!(
        "  {:>5} + {right:<width$}  {}",
        d.line,
        d.right.as_deref().unwrap_or("(ends before this line)")
    );
    Ok(())
}
