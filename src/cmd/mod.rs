//! One module per `dsim` subcommand.

pub mod list;
pub mod ring;
pub mod run;
pub mod sweep;
pub mod validate;
