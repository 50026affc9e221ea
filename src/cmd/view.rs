//! `dsim view TRACE`: look at a run as a story, a Mermaid diagram, a web page or a graph.

use crate::cmd::run::parse_lang;
use crate::exit::{CliError, OK};
use crate::trace_input::{self, TraceFile};
use std::io::IsTerminal;
use std::path::PathBuf;
use traces::Lang;
use traces::narrate::Detail;
use traces::render::{self, Filter};

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

/// Filters and language shared by `dsim view` and `dsim run --view`.
#[derive(clap::Args, Debug, Clone)]
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

/// Arguments of `dsim view`.
#[derive(clap::Args, Debug)]
pub struct ViewArgs {
    /// The trace file, as written by `dsim run SCENARIO --trace FILE`.
    /// Example: `dsim view /tmp/t.jsonl --lang es`.
    pub trace: String,
    /// How to show it. Example: `--format html -o run.html`, then open run.html.
    #[arg(long, short, value_enum, default_value = "text")]
    pub format: Format,
    /// Write to this file instead of standard output. Example: `-o run.mmd`.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Language of the story: `en` (default) or `es` (the lesson's own words).
    /// Example: `--lang es`.
    #[arg(long, default_value = "en", value_parser = parse_lang)]
    pub lang: Lang,
    /// Text: tell everything (every send, delivery, timer and note). Example: `-v --node a1`.
    #[arg(long, short)]
    pub verbose: bool,
    #[command(flatten)]
    pub options: ViewOptions,
}

/// Whether text on standard output should be coloured: a terminal, and no `NO_COLOR`.
fn colour_wanted(output: Option<&std::path::Path>) -> bool {
    output.is_none()
        && std::io::stdout().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Renders the trace `file` in `format`.
pub fn render(
    file: &TraceFile,
    format: Format,
    lang: Lang,
    verbose: bool,
    options: &ViewOptions,
    color: bool,
) -> Result<String, CliError> {
    let detail = if verbose || format != Format::Text {
        Detail::Everything
    } else {
        Detail::Story
    };
    let mut view = file.view(lang, detail)?;
    let filter = options.filter();
    if format != Format::Text {
        view.records.retain(|r| filter.keeps(r));
    }
    Ok(match format {
        Format::Text => render::text::render(&view, &filter, color),
        Format::Mermaid => render::mermaid::render(&view),
        Format::Html => render::html::render(&view),
        Format::Dot => render::dot::render(&view)
            .map_err(|e| CliError::bad_input(format!("{}:{e}", file.path)))?,
    })
}

/// Runs `dsim view`.
pub fn run(args: ViewArgs) -> Result<u8, CliError> {
    let file = trace_input::read(&args.trace)?;
    let color = colour_wanted(args.output.as_deref());
    let text = render(
        &file,
        args.format,
        args.lang,
        args.verbose,
        &args.options,
        color,
    )?;
    trace_input::emit(args.output.as_deref(), &text)?;
    Ok(OK)
}
