//! Writing what a command produced: to a file without ever leaving half of it, or to standard
//! output.

use crate::exit::CliError;
use std::io::Write;
use std::path::Path;

/// Writes `text` to `path` through a temporary file, so a failed run never leaves half a file.
///
/// Only a regular file (or a new one) is replaced that way: a device such as `/dev/null`, a
/// pipe, or a symbolic link is written through as it is, never renamed over (a rename would
/// replace `/dev/null` itself with a regular file, or a link with a copy).
pub fn write_atomically(path: &Path, text: &str) -> Result<(), CliError> {
    let replaceable = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta.file_type().is_file(),
        Err(_) => true,
    };
    if !replaceable {
        return std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(path)
            .and_then(|mut f| f.write_all(text.as_bytes()))
            .map_err(|e| CliError::io(path, e));
    }
    let tmp = path.with_extension("tmp-dsim");
    let result = std::fs::File::create(&tmp)
        .and_then(|mut f| f.write_all(text.as_bytes()).and_then(|_| f.sync_all()))
        .and_then(|_| std::fs::rename(&tmp, path));
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(CliError::io(path, e));
    }
    Ok(())
}

/// Writes `text` to `out`, or to standard output when there is none.
pub fn emit(out: Option<&Path>, text: &str) -> Result<(), CliError> {
    match out {
        Some(path) => write_atomically(path, text),
        None => print_text(text),
    }
}

/// Writes `text` to standard output and flushes it. A reader that closed the pipe
/// (`dsim run ... | head`) ends the command quietly; any other failure (a full disk) is exit 2
/// with a one-line message: output is never lost silently, and never a panic.
pub fn print_text(text: &str) -> Result<(), CliError> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|_| stdout.flush())
        .map_err(CliError::stdout)
}

/// One line of a command's output on standard output (see [`print_text`] for errors).
pub fn print_line(args: std::fmt::Arguments<'_>) -> Result<(), CliError> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_fmt(args)
        .and_then(|_| stdout.write_all(b"\n"))
        .map_err(CliError::stdout)
}

/// `println!` for commands: writes one line and returns from the command on a write error
/// (`?` on [`print_line`]), so a closed pipe or a full disk never panics.
macro_rules! out {
    () => {
        $crate::output::print_line(format_args!(""))?
    };
    ($($arg:tt)*) => {
        $crate::output::print_line(format_args!($($arg)*))?
    };
}
pub(crate) use out;
