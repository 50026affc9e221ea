//! Reading a trace file for `view`, `check`, `replay` and `diff`: once, with its protocol's
//! types, every problem turned into exit 2 and a way forward.

use crate::exit::CliError;
use scenarios::DynProtocol;
use scenarios::offline::{LoadedTrace, TraceProblem};

/// A trace file read from disk, with the protocol that wrote it and its typed records.
pub struct TraceFile {
    /// The path as given.
    pub path: String,
    /// The file's text.
    pub text: String,
    /// The protocol named in its header.
    pub protocol: &'static dyn DynProtocol,
    /// Its records, read once with the protocol's types.
    pub trace: Box<dyn LoadedTrace>,
}

/// A located problem in the file at `path` (exit 2).
pub fn bad_trace(path: &str, problem: &TraceProblem) -> CliError {
    match problem {
        TraceProblem::Trace(e) => CliError::bad_input(format!("{path}:{}: {}", e.line, e.message)),
        TraceProblem::Scenario(_) => CliError::bad_input(format!("{path}: {problem}")),
    }
}

/// Reads the trace at `path` once: a missing file, a file that is not a trace, a broken line, a
/// newer format, an unknown protocol or records that cannot belong to a run are bad input.
pub fn read(path: &str) -> Result<TraceFile, CliError> {
    if let Err(e) = std::fs::metadata(path) {
        return Err(CliError::bad_input(format!(
            "{path}: {e}; make a trace with `dsim run SCENARIO --trace {path}`"
        )));
    }
    let text = crate::source::read_text(std::path::Path::new(path))?;
    let broken = |e| bad_trace(path, &TraceProblem::Trace(e));
    let header = traces::parse_header(&text).map_err(broken)?;
    let Some(protocol) = scenarios::registry::find(&header.protocol) else {
        let known: Vec<&str> = scenarios::registry::protocols()
            .iter()
            .map(|p| p.name())
            .collect();
        return Err(CliError::bad_input(format!(
            "{path}:1: a trace of protocol \"{}\", which this dsim does not know (it knows: {}); \
             use the dsim that wrote it",
            header.protocol,
            known.join(", ")
        )));
    };
    let trace = protocol.read_trace(&text).map_err(broken)?;
    Ok(TraceFile {
        path: path.to_string(),
        text,
        protocol,
        trace,
    })
}
