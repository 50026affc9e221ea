//! `dsim`: the command line. Glue only: flags, files, printing and exit codes; the work lives in
//! the library crates (`sim-core`, `protocols`, `scenarios`, `traces`).

mod chart;
mod cmd;
mod compare;
mod exit;
mod flags;
mod logging;
mod output;
mod render;
mod source;
mod trace_input;

use clap::{Parser, Subcommand};

/// mimalloc, not the system allocator: an exhaustive search's threads allocate states that
/// the merging thread frees, which glibc's allocator serialises on its arena locks (two
/// threads ran slower than one). Nothing observable depends on the allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// dsim replays distributed-protocol scenarios deterministically: the same scenario and seed give
/// the same story and the same trace, byte for byte, on any machine.
///
/// Start with `dsim list`, then `dsim run paxos/lost-accepts`.
/// Diagnostics: RUST_LOG=dsim=debug prints the kernel's steps stamped with virtual time.
/// Exit codes: 0 ok; 1 a violation, failed expectation or difference; 2 bad input; 3 a bug;
/// 141 the reader of the output closed the pipe.
#[derive(Parser, Debug)]
#[command(name = "dsim", version, about, long_about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run a scenario and tell its story; exit 1 if an expectation or invariant fails.
    Run(cmd::run::RunArgs),
    /// Run a scenario over a range of seeds (and config variants): a table of outcomes.
    Sweep(cmd::sweep::SweepArgs),
    /// Search many seeds' schedules for a broken invariant; write the shrunk counterexample as
    /// a scenario file that `dsim run` replays. Exit 1 when one is found.
    Explore(Box<cmd::explore::ExploreArgs>),
    /// Check a scenario file without running it (every problem, with line and column).
    Validate(cmd::validate::ValidateArgs),
    /// List the bundled scenarios and protocols, or a protocol's message kinds.
    List(cmd::list::ListArgs),
    /// Look at a trace: its story (text), a Mermaid diagram, a web page (html) or a DOT graph.
    View(cmd::view::ViewArgs),
    /// Re-check a trace file (hand-edited ones too) against its protocol's invariants; exit 1
    /// on a violation.
    Check(cmd::check::CheckArgs),
    /// Re-run a trace's scenario and seed and verify the trace is identical; exit 1 if not.
    Replay(cmd::replay::ReplayArgs),
    /// Show where two traces first differ; exit 1 when they do.
    Diff(cmd::diff::DiffArgs),
    /// Partitioning measurements: hash mod N, consistent-hash ring, rendezvous, slots, ranges.
    Ring(Box<cmd::ring::RingArgs>),
    /// Messages per decision for PBFT and Paxos at several cluster sizes, counted from runs:
    /// O(N^2) against O(N), the course's comparison table.
    Cost(cmd::cost::CostArgs),
}

fn main() -> std::process::ExitCode {
    logging::init();
    output::pending::remove_on_interrupt();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => cmd::run::run(args),
        Command::Sweep(args) => cmd::sweep::run(args),
        Command::Explore(args) => cmd::explore::run(*args),
        Command::Validate(args) => cmd::validate::run(args),
        Command::List(args) => cmd::list::run(args),
        Command::Ring(args) => cmd::ring::run(*args),
        Command::Cost(args) => cmd::cost::run(args),
        Command::View(args) => cmd::view::run(args),
        Command::Check(args) => cmd::check::run(args),
        Command::Replay(args) => cmd::replay::run(args),
        Command::Diff(args) => cmd::diff::run(args),
    };
    exit::finish(result)
}
