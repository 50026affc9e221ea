//! Exit codes and the one error type every command returns.
//!
//! The codes are part of dsim's contract with scripts and graders: 0 ok; 1 a violation, a failed
//! expectation, a replay mismatch or a difference found; 2 bad input or usage; 3 a bug inside
//! dsim or a panicking actor; 130 a long search stopped by Ctrl-C after its partial report. Commands return `Result<Outcome, CliError>` and `main` maps them.

use std::fmt;
use std::process::ExitCode;

/// Everything went as expected.
pub const OK: u8 = 0;
/// The run found what it was looking for: a violation, a failed expectation, a difference.
pub const FAILED: u8 = 1;
/// The input or the command line is wrong; the message says how to fix it.
pub const BAD_INPUT: u8 = 2;
/// A bug: a panicking actor or a broken kernel invariant.
pub const BUG: u8 = 3;
/// The reader of standard output closed the pipe before the command finished (128 + SIGPIPE).
pub const CLOSED_PIPE: u8 = 141;
/// A long command stopped by Ctrl-C, after it reported what it had done (the shell's code for
/// an interrupted command).
pub const INTERRUPTED: u8 = 130;

/// An error that ends a command, with the exit code it maps to.
#[derive(Debug)]
pub struct CliError {
    /// One of [`FAILED`], [`BAD_INPUT`], [`BUG`].
    pub code: u8,
    /// What went wrong and how to fix it, already formatted for a person.
    pub message: String,
}

impl CliError {
    /// Bad input or usage (exit 2).
    pub fn bad_input(message: impl Into<String>) -> CliError {
        CliError {
            code: BAD_INPUT,
            message: message.into(),
        }
    }
    /// A bug in dsim or an actor (exit 3).
    pub fn bug(message: impl Into<String>) -> CliError {
        CliError {
            code: BUG,
            message: message.into(),
        }
    }
    /// A failed write to standard output: a reader that closed the pipe ends the command
    /// quietly with 141, the code a shell gives a command killed by SIGPIPE (coreutils' way), so
    /// a script never takes a cut-off output for a pass; anything else is exit 2 with one line.
    pub fn stdout(err: std::io::Error) -> CliError {
        if err.kind() == std::io::ErrorKind::BrokenPipe {
            return CliError {
                code: CLOSED_PIPE,
                message: String::new(),
            };
        }
        CliError::bad_input(format!("cannot write to standard output: {err}"))
    }
    /// An I/O error on `path`, which is the user's to fix (exit 2).
    pub fn io(path: &std::path::Path, err: std::io::Error) -> CliError {
        CliError::bad_input(format!("{}: {err}", path.display()))
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Maps a command's result to the process exit code, printing the error if any.
pub fn finish(result: Result<u8, CliError>) -> ExitCode {
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            if e.message.starts_with("error:") {
                // Already rendered diagnostics (scenario problems) carry their own prefix.
                eprintln!("{}", e.message);
            } else if !e.message.is_empty() {
                eprintln!("error: {}", e.message);
            }
            ExitCode::from(e.code)
        }
    }
}
