//! `dsim validate FILE`: parse and check a scenario without running it.

use crate::exit::{CliError, OK};
use crate::output::out;
use crate::source::{render_problems, resolve};

/// Arguments of `dsim validate`.
#[derive(clap::Args, Debug)]
pub struct ValidateArgs {
    /// The scenario: a path, or a bundled name such as `paxos/lost-accepts`.
    pub scenario: String,
}

/// Runs `dsim validate`.
pub fn run(args: ValidateArgs) -> Result<u8, CliError> {
    let src = resolve(&args.scenario)?;
    let protocol = scenarios::registry::protocol_for(&src.name, &src.text)
        .map_err(|p| CliError::bad_input(render_problems(&p)))?;
    let summary = protocol
        .validate(&src.name, &src.text)
        .map_err(|p| CliError::bad_input(render_problems(&p)))?;
    out!(
        "{}: ok ({} scenario, {} nodes: {}; {} timeline steps; {} expectations)",
        src.name,
        summary.protocol,
        summary.nodes.len(),
        summary.nodes.join(", "),
        summary.steps,
        summary.expectations
    );
    Ok(OK)
}
