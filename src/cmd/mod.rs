//! One module per `dsim` subcommand.

pub mod ring;
