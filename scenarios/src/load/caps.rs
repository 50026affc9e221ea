//! The largest sizes a scenario file may set: a run beyond them would take the machine's
//! memory or days, and a student's typo should be refused, not run. Each admits the course's
//! sizes many times over (a 1,000-node ring, a minute of virtual time, a million steps).

/// Nodes of one scenario.
pub const NODES: usize = 10_000;
/// Characters of a node name.
pub const NAME_CHARS: usize = 64;
/// Steps of a timeline.
pub const TIMELINE_STEPS: usize = 100_000;
/// Virtual time of a run and of any step, in ms (30 days).
pub const TIME_MS: u64 = 30 * 24 * 3_600_000;
/// Kernel steps of a run.
pub const STEPS: u64 = 100_000_000;
/// Messages in flight at once.
pub const IN_FLIGHT: usize = 10_000_000;
