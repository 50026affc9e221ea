//! traces
