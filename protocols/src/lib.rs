//! protocols
pub mod ring;
