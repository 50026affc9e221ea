//! Finding a scenario: a path on disk, or the name of a bundled one.

use crate::exit::CliError;
use scenarios::bundled;
use std::path::Path;

/// A scenario's text and the name errors and traces call it by.
pub struct Source {
    /// The path as given, or the bundled name.
    pub name: String,
    /// The file's text.
    pub text: String,
}

/// Reads `arg` as a path if one exists there, else as a bundled scenario name.
pub fn resolve(arg: &str) -> Result<Source, CliError> {
    let path = Path::new(arg);
    if path.exists() {
        let text = read_text(path)?;
        return Ok(Source {
            name: arg.to_string(),
            text,
        });
    }
    if let Some(b) = bundled::find(arg) {
        return Ok(Source {
            name: b.name.to_string(),
            text: b.source.to_string(),
        });
    }
    let names: Vec<&str> = bundled::BUNDLED.iter().map(|b| b.name).collect();
    let hint = match scenarios::diagnostic::closest(arg, names.iter().copied()) {
        Some(c) => format!("did you mean `{c}`? "),
        None => String::new(),
    };
    Err(CliError::bad_input(format!(
        "no file `{arg}` and no bundled scenario of that name; {hint}`dsim list` shows the bundled ones"
    )))
}

/// Reads a text file (a scenario or a trace). A file that is not UTF-8 (a Latin-1 `é`) is
/// refused at the line and column of its first bad byte, with how to fix it.
pub fn read_text(path: &Path) -> Result<String, CliError> {
    let bytes = std::fs::read(path).map_err(|e| CliError::io(path, e))?;
    String::from_utf8(bytes).map_err(|e| {
        let good = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let good = std::str::from_utf8(good).expect("the valid prefix");
        let line = good.matches('\n').count() + 1;
        let col = good.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        let byte = e.as_bytes()[good.len()];
        CliError::bad_input(format!(
            "{}:{line}:{col}: not UTF-8 text (byte 0x{byte:02X}); save the file as UTF-8",
            path.display()
        ))
    })
}

/// Renders diagnostics for the terminal, all of them, with a count.
pub fn render_problems(problems: &[scenarios::Diagnostic]) -> String {
    let mut out = String::new();
    for p in problems {
        out.push_str(&p.to_string());
        out.push('\n');
    }
    let n: usize = problems.iter().map(scenarios::Diagnostic::count).sum();
    out.push_str(&format!(
        "{n} problem{} found; nothing was run",
        if n == 1 { "" } else { "s" }
    ));
    out
}
