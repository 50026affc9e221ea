//! One module per `dsim` subcommand.

pub mod check;
pub mod cost;
pub mod diff;
pub mod explore;
pub mod list;
pub mod replay;
pub mod ring;
pub mod run;
pub mod sweep;
pub mod validate;
pub mod view;
