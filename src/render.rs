//! The ways to look at a run, shared by `dsim view TRACE` and `dsim run --view`: both hand a
//! `TraceView` made from typed records to the same renderers.

use crate::exit::CliError;
use std::collections::BTreeSet;
use std::io::IsTerminal;
use traces::Lang;
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
    /// Whether this view tells every record (the diagrams do) rather than the lesson's level.
    /// The web page draws every record but tells the lesson's story beside them, so a step's
    /// line is the course's words and not the generic `a -> b: Msg { .. }`.
    pub fn tells_everything(self) -> bool {
        matches!(self, Format::Mermaid | Format::Dot)
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
    /// Refuses filters that can match nothing in `view` because they are wrong: a node the
    /// trace does not have, a kind that is neither one of the protocol's message kinds (`kinds`)
    /// nor anything the trace records, a window that ends before it starts.
    pub fn check(&self, view: &TraceView, kinds: &[&str]) -> Result<(), CliError> {
        let nodes: Vec<&str> = view.header.nodes.iter().map(String::as_str).collect();
        for node in &self.node {
            if !nodes.contains(&node.as_str()) {
                return Err(CliError::bad_input(unknown("node", node, &nodes)));
            }
        }
        let mut known: BTreeSet<&str> = kinds.iter().copied().collect();
        known.extend(view.records.iter().filter_map(|r| r.what.as_deref()));
        let known: Vec<&str> = known.into_iter().collect();
        for kind in &self.kind {
            if !known.iter().any(|k| k.eq_ignore_ascii_case(kind)) {
                return Err(CliError::bad_input(unknown("kind", kind, &known)));
            }
        }
        if let (Some(from), Some(until)) = (self.from, self.until)
            && from > until
        {
            return Err(CliError::bad_input(format!(
                "--from {from} is after --until {until}: the window would be empty; swap them"
            )));
        }
        Ok(())
    }

    /// Whether any filter is set.
    fn filters(&self) -> bool {
        !self.node.is_empty()
            || !self.kind.is_empty()
            || self.from.is_some()
            || self.until.is_some()
    }

    fn filter(&self) -> Filter {
        Filter {
            nodes: self.node.clone(),
            kinds: self.kind.clone(),
            from: self.from.map(|ms| ms.saturating_mul(1_000_000)),
            until: self.until.map(|ms| ms.saturating_mul(1_000_000)),
        }
    }
}

/// "no node "zz" in this trace; did you mean ...? The nodes are: ...".
fn unknown(what: &str, wrong: &str, known: &[&str]) -> String {
    let list = known.join(", ");
    match scenarios::diagnostic::closest(wrong, known.iter().copied()) {
        Some(c) => format!(
            "no {what} \"{wrong}\" in this trace: did you mean \"{c}\"? The {what}s are: {list}"
        ),
        None => format!("no {what} \"{wrong}\" in this trace; the {what}s are: {list}"),
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
    lang: Lang,
    source: &str,
) -> Result<String, CliError> {
    let filter = options.filter();
    let shown = view
        .records
        .iter()
        .filter(|r| filter.keeps(r) && (format != Format::Text || r.story.is_some()))
        .count();
    if shown == 0 && options.filters() {
        eprintln!("note: nothing in {source} matches these filters");
    }
    if format != Format::Text {
        view.records.retain(|r| filter.keeps(r));
    }
    Ok(match format {
        Format::Text => render::text::render(&view, &filter, color, lang),
        Format::Mermaid => render::mermaid::render(&view),
        Format::Html => render::html::render(&view, lang),
        Format::Dot => {
            render::dot::render(&view).map_err(|e| CliError::bad_input(format!("{source}:{e}")))?
        }
    })
}
