//! Reading a trace file for `view`, `check`, `replay` and `diff`: its text, its protocol, its
//! renderable view, with every problem turned into exit 2 and a way forward.

use crate::exit::CliError;
use scenarios::DynProtocol;
use scenarios::offline::TraceProblem;
use std::path::Path;
use traces::Lang;
use traces::narrate::Detail;
use traces::view::TraceView;

/// A trace file read from disk, with the protocol that wrote it.
pub struct TraceFile {
    /// The path as given.
    pub path: String,
    /// The file's text.
    pub text: String,
    /// The protocol named in its header.
    pub protocol: &'static dyn DynProtocol,
}

/// A located problem in the file at `path` (exit 2).
pub fn bad_trace(path: &str, problem: &TraceProblem) -> CliError {
    match problem {
        TraceProblem::Trace(e) => CliError::bad_input(format!("{path}:{}: {}", e.line, e.message)),
        TraceProblem::Scenario(_) => CliError::bad_input(format!("{path}: {problem}")),
    }
}

/// Reads the trace at `path` and finds its protocol; a missing file, a file that is not a trace,
/// a broken line, a newer format or an unknown protocol is bad input.
pub fn read(path: &str) -> Result<TraceFile, CliError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        CliError::bad_input(format!(
            "{path}: {e}; make a trace with `dsim run SCENARIO --trace {path}`"
        ))
    })?;
    // Every line must be a record, whatever the command: a truncated file is refused here.
    TraceView::parse(&text).map_err(|e| bad_trace(path, &TraceProblem::Trace(e)))?;
    from_text(path, text)
}

/// Takes trace `text` known as `path` (a file, or a run's name) and finds its protocol.
pub fn from_text(path: &str, text: String) -> Result<TraceFile, CliError> {
    let header =
        traces::parse_header(&text).map_err(|e| bad_trace(path, &TraceProblem::Trace(e)))?;
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
    Ok(TraceFile {
        path: path.to_string(),
        text,
        protocol,
    })
}

impl TraceFile {
    /// The protocol-independent view with the protocol's story attached at `detail`.
    pub fn view(&self, lang: Lang, detail: Detail) -> Result<TraceView, CliError> {
        let mut view = TraceView::parse(&self.text)
            .map_err(|e| bad_trace(&self.path, &TraceProblem::Trace(e)))?;
        let story = self
            .protocol
            .story_of_trace(&self.text, lang, detail)
            .map_err(|e| bad_trace(&self.path, &TraceProblem::Trace(e)))?;
        view.attach_story(story);
        Ok(view)
    }
}

/// Writes `text` to `out`, or to standard output when there is none.
pub fn emit(out: Option<&Path>, text: &str) -> Result<(), CliError> {
    match out {
        Some(path) => crate::cmd::run::write_atomically(path, text),
        None => {
            use std::io::Write;
            let mut stdout = std::io::stdout().lock();
            // A closed pipe (`dsim view t | head`) is not an error worth a panic.
            let _ = stdout
                .write_all(text.as_bytes())
                .and_then(|_| stdout.flush());
            Ok(())
        }
    }
}
