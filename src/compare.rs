//! Printing where two traces part ways, for `dsim diff` and `dsim replay`.

use traces::diff::Divergence;

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
