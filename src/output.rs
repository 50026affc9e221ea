//! Writing what a command produced: to a file without ever leaving half of it, or to standard
//! output.

use crate::exit::CliError;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use tempfile::NamedTempFile;

/// Writes `text` to `path` so that the file is either untouched or holds all of `text` (see
/// [`OutputFile`]).
pub fn write_atomically(path: &Path, text: &str) -> Result<(), CliError> {
    let mut file = OutputFile::create(path)?;
    file.writer()
        .write_all(text.as_bytes())
        .map_err(|e| CliError::io(path, e))?;
    file.commit()
}

/// A file being written, which appears at its path complete or not at all.
///
/// What is written goes, buffered, to a temporary file of a unique name in the target's
/// directory (so two runs writing one target never share it); [`OutputFile::commit`] syncs it,
/// gives it the target's permissions and renames it over the target. Dropped without a commit
/// (an error, a panic) the temporary file is removed, and so it is on Ctrl-C; a killed process
/// leaves at most a hidden `.NAME.*.dsim-tmp` beside the target, never a target that looks
/// whole. A read-only target is refused rather than replaced. A device such as `/dev/null` or
/// `/dev/full`, a pipe, or a symbolic link is written through as it is, never renamed over (a
/// rename would replace `/dev/null` itself with a regular file, or a link with a copy).
pub struct OutputFile {
    path: PathBuf,
    target: Target,
}

enum Target {
    /// A device, pipe or link, written in place.
    Through(BufWriter<File>),
    /// A regular file, written beside the target and renamed over it.
    Beside {
        out: BufWriter<NamedTempFile>,
        /// The replaced file's permissions, which the new one keeps.
        permissions: Option<std::fs::Permissions>,
        _pending: pending::Guard,
    },
}

impl OutputFile {
    /// Starts writing `path` (see [`OutputFile`]).
    pub fn create(path: &Path) -> Result<OutputFile, CliError> {
        let existing = std::fs::symlink_metadata(path).ok();
        if existing.as_ref().is_some_and(|m| !m.file_type().is_file()) {
            let file = std::fs::OpenOptions::new()
                .write(true)
                .truncate(true)
                .open(path)
                .map_err(|e| CliError::io(path, e))?;
            return Ok(OutputFile {
                path: path.to_path_buf(),
                target: Target::Through(BufWriter::new(file)),
            });
        }
        if existing
            .as_ref()
            .is_some_and(|m| m.permissions().readonly())
        {
            return Err(CliError::bad_input(format!(
                "{}: the file is read-only, so dsim leaves it alone; write somewhere else or \
                 make it writable",
                path.display()
            )));
        }
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let name = path
            .file_name()
            .map_or("out".into(), |n| n.to_string_lossy());
        let tmp = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(".dsim-tmp")
            .permissions(new_file_permissions())
            .tempfile_in(dir)
            .map_err(|e| CliError::io(path, e))?;
        let pending = pending::Guard::new(tmp.path());
        Ok(OutputFile {
            path: path.to_path_buf(),
            target: Target::Beside {
                out: BufWriter::with_capacity(1 << 16, tmp),
                permissions: existing.map(|m| m.permissions()),
                _pending: pending,
            },
        })
    }

    /// Where the content goes (buffered).
    pub fn writer(&mut self) -> &mut (dyn Write + Send) {
        match &mut self.target {
            Target::Through(out) => out,
            Target::Beside { out, .. } => out,
        }
    }

    /// Finishes the file: flushed, synced and renamed over the target. An error (a full disk)
    /// is exit 2 naming the file, and the target is left as it was.
    pub fn commit(self) -> Result<(), CliError> {
        let path = self.path;
        match self.target {
            Target::Through(mut out) => out.flush().map_err(|e| CliError::io(&path, e)),
            Target::Beside {
                out,
                permissions,
                _pending,
            } => {
                let tmp = out
                    .into_inner()
                    .map_err(|e| CliError::io(&path, e.into_error()))?;
                permissions
                    .map_or(Ok(()), |p| tmp.as_file().set_permissions(p))
                    .and_then(|_| tmp.as_file().sync_all())
                    .map_err(|e| CliError::io(&path, e))?;
                tmp.persist(&path)
                    .map_err(|e| CliError::io(&path, e.error))?;
                Ok(())
            }
        }
    }
}

/// The mode a new output file is created with: readable by all, as `>` in a shell would (the
/// process's umask applies).
#[cfg(unix)]
fn new_file_permissions() -> std::fs::Permissions {
    use std::os::unix::fs::PermissionsExt;
    std::fs::Permissions::from_mode(0o666)
}

#[cfg(not(unix))]
fn new_file_permissions() -> std::fs::Permissions {
    std::fs::metadata(".")
        .expect("the working folder")
        .permissions()
}

/// Refuses to write `out` when it is the command's own `input` (`dsim view T -o T`): the
/// input would be lost for the output.
pub fn refuse_own_input(out: &Path, input: &Path) -> Result<(), CliError> {
    let (Ok(a), Ok(b)) = (std::fs::canonicalize(out), std::fs::canonicalize(input)) else {
        return Ok(());
    };
    if a == b {
        return Err(CliError::bad_input(format!(
            "{}: that is the command's own input; write the output to another file",
            out.display()
        )));
    }
    Ok(())
}

/// The temporary files being written, so that Ctrl-C removes them before dsim exits.
pub mod pending {
    use std::path::{Path, PathBuf};
    use std::sync::Mutex;

    static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

    /// Registers a temporary file for the time it lives.
    pub struct Guard(PathBuf);

    impl Guard {
        /// Registers `path`.
        pub fn new(path: &Path) -> Guard {
            if let Ok(mut p) = PENDING.lock() {
                p.push(path.to_path_buf());
            }
            Guard(path.to_path_buf())
        }
    }

    impl Drop for Guard {
        fn drop(&mut self) {
            if let Ok(mut p) = PENDING.lock() {
                p.retain(|x| x != &self.0);
            }
        }
    }

    /// A long search that stops cleanly on Ctrl-C, while it runs: the first Ctrl-C raises
    /// its flag instead of exiting.
    static SEARCH: Mutex<Option<sim_core::exhaustive::Interrupt>> = Mutex::new(None);

    /// Routes Ctrl-C to `flag` for as long as the guard lives: the search sees it, stops and
    /// reports. A second Ctrl-C exits at once, as without it.
    pub struct StopGuard;

    impl StopGuard {
        /// Routes Ctrl-C to `flag`.
        pub fn new(flag: &sim_core::exhaustive::Interrupt) -> StopGuard {
            if let Ok(mut search) = SEARCH.lock() {
                *search = Some(flag.clone());
            }
            StopGuard
        }
    }

    impl Drop for StopGuard {
        fn drop(&mut self) {
            if let Ok(mut search) = SEARCH.lock() {
                *search = None;
            }
        }
    }

    /// On Ctrl-C (or SIGTERM): stops a running search that asked for it (see [`StopGuard`]);
    /// otherwise removes every temporary file still being written, then exits with 130, the
    /// shell's code for an interrupted command.
    pub fn remove_on_interrupt() {
        let _ = ctrlc::set_handler(|| {
            if let Ok(search) = SEARCH.lock()
                && let Some(flag) = search.as_ref()
                && !flag.is_raised()
            {
                flag.raise();
                eprintln!("\ninterrupted: stopping the search (Ctrl-C again to quit at once)");
                return;
            }
            if let Ok(p) = PENDING.lock() {
                for path in p.iter() {
                    let _ = std::fs::remove_file(path);
                }
            }
            std::process::exit(130);
        });
    }
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
