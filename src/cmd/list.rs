//! `dsim list`: the bundled scenarios, the protocols, and a protocol's message kinds.

use crate::exit::{CliError, OK};
use crate::output::out;
use scenarios::bundled::BUNDLED;
use scenarios::registry;

/// Arguments of `dsim list`.
#[derive(clap::Args, Debug)]
pub struct ListArgs {
    /// Show the message kinds of PROTOCOL (for drop/delay/duplicate rules) instead.
    #[arg(long, value_name = "PROTOCOL")]
    pub kinds: Option<String>,
}

/// Runs `dsim list`.
pub fn run(args: ListArgs) -> Result<u8, CliError> {
    if let Some(name) = args.kinds {
        let Some(p) = registry::find(&name) else {
            let names: Vec<&str> = registry::protocols().iter().map(|p| p.name()).collect();
            return Err(CliError::bad_input(format!(
                "unknown protocol `{name}`; dsim knows: {}",
                names.join(", ")
            )));
        };
        out!("message kinds of {}:", p.name());
        for kind in p.kinds() {
            out!("  {kind}");
        }
        return Ok(OK);
    }
    out!("bundled scenarios (run one with `dsim run NAME`):");
    let width = BUNDLED.iter().map(|b| b.name.len()).max().unwrap_or(0);
    for b in BUNDLED {
        let description = registry::protocol_for(b.name, b.source)
            .ok()
            .and_then(|p| p.validate(b.name, b.source).ok())
            .map(|s| s.description)
            .unwrap_or_else(|| "(does not validate: run `dsim validate` on it)".into());
        out!("  {:width$}  {description}", b.name);
    }
    out!();
    out!("protocols (`dsim list --kinds NAME` shows a protocol's message kinds):");
    for p in registry::protocols() {
        out!("  {:12}  {}", p.name(), p.about());
    }
    Ok(OK)
}
