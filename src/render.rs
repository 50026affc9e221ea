//! The ways to look at a run, shared by `dsim view TRACE` and `dsim run --view`: both hand a
//! `TraceView` made from typed records to the same renderers.

use crate::exit::CliError;
use std::io::IsTerminal;
use traces::render::{self, Filter};
use traces::view::TraceView;

/// The ways to look at a trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The course-style story, one line per event (coloured on a terminal).
    Text,
    /// A Mermaid `sequenceDiagram`, to paste into the course's notes.
    Mermaid,
    /// One self-contained web page: step through the run, filter, click for details.
    Html,
    /// The happens-before graph in Graphviz DOT (`dot -Tsvg`).
    Dot,
}

impl Format {
    /// Whether this view tells every record (the pictures do) rather than the lesson's level.
    pub fn tells_everything(self) -> bool {
        self != Format::Text
    }
}

/// Filters shared by `dsim view` and `dsim run --view`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ViewOptions {
    /// Show only what involves this node (repeatable). Example: `--node a1 --node relay-2`.
    #[arg(long, value_name = "NODE")]
    pub node: Vec<String>,
    /// Show only this message, note, timer, command or fault kind (repeatable, any case).
    /// Example: `--kind Accept --kind Chosen`.
    #[arg(long, value_name = "KIND")]
    pub kind: Vec<String>,
    /// Show only from this virtual time on, in milliseconds. Example: `--from 100`.
    #[arg(long, value_name = "MS")]
    pub from: Option<u64>,
    /// Show only up to this virtual time, in milliseconds. Example: `--until 110`.
    #[arg(long, value_name = "MS")]
    pub until: Option<u64>,
}

impl ViewOptions {
    fn filter(&self) -> Filter {
        Filter {
            nodes: self.node.clone(),
            kinds: self.kind.clone(),
            from: self.from.map(|ms| ms.saturating_mul(1_000_000)),
            until: self.until.map(|ms| ms.saturating_mul(1_000_000)),
        }
    }
}

/// Whether text on standard output should be coloured: a terminal, and no `NO_COLOR`.
pub fn colour_wanted(output: Option<&std::path::Path>) -> bool {
    output.is_none()
        && std::io::stdout().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Renders `view` (its story already attached) in `format`; `source` names it in errors.
pub fn render(
    mut view: TraceView,
    format: Format,
    options: &ViewOptions,
    color: bool,
    source: &str,
) -> Result<String, CliError> {
    let filter = options.filter();
    if format != Format::Text {
        view.records.retain(|r| filter.keeps(r));
    }
    Ok(match format {
        Format::Text => render::text::render(&view, &filter, color),
        Format::Mermaid => render::mermaid::render(&view),
        Format::Html => render::html::render(&view),
        Format::Dot => {
            render::dot::render(&view).map_err(|e| CliError::bad_input(format!("{source}:{e}")))?
        }
    })
}
