//! `dsim`: the command line. Glue only: flags, files, printing and exit codes; the work lives in
//! the library crates (`sim-core`, `protocols`, `scenarios`, `traces`).

mod cmd;
mod exit;

use clap::{Parser, Subcommand};

/// dsim replays distributed-protocol scenarios deterministically: the same scenario and seed give
/// the same story and the same trace, byte for byte, on any machine.
#[derive(Parser, Debug)]
#[command(name = "dsim", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Partitioning measurements: hash mod N, consistent-hash ring, rendezvous, slots, ranges.
    Ring(cmd::ring::RingArgs),
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Ring(args) => cmd::ring::run(args),
    };
    exit::finish(result)
}
