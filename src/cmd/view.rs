//! `dsim view TRACE`: look at a run as a story, a Mermaid diagram, a web page or a graph.

use crate::exit::{CliError, OK};
use crate::flags::parse_lang;
use crate::output::{emit, refuse_own_input};
use crate::render::{Format, ViewOptions, colour_wanted, render};
use crate::trace_input;
use std::path::PathBuf;
use traces::Lang;
use traces::narrate::Detail;

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

/// Runs `dsim view`.
pub fn run(args: ViewArgs) -> Result<u8, CliError> {
    if let Some(out) = &args.output {
        refuse_own_input(out, std::path::Path::new(&args.trace))?;
    }
    let file = trace_input::read(&args.trace)?;
    let detail = if args.verbose || args.format.tells_everything() {
        Detail::Everything
    } else {
        Detail::Story
    };
    let view = file.trace.view(args.lang, detail);
    args.options.check(&view, file.protocol.kinds())?;
    let color = colour_wanted(args.output.as_deref());
    let text = render(
        view,
        args.format,
        &args.options,
        color,
        args.lang,
        &file.path,
    )?;
    emit(args.output.as_deref(), &text)?;
    Ok(OK)
}
