//! protocols
