//! sim-core
pub mod rng;
pub mod time;
