//! Upper bounds on every size `dsim ring` accepts, so that a typo (`--vnodes 4294967295`) is an
//! exit-2 message that names the limit and a usable size, never an allocation abort or a run
//! that does not end.
//!
//! Each limit leaves wide headroom over the course's sizes (4-6 nodes, 150 vnodes, 100 000 keys,
//! 16 384 slots) and the benchmark's (1 000 nodes x 128 vnodes = 128 000 ring points, 1 000 000
//! keys), and keeps the worst accepted run within seconds and a few hundred MB.

use crate::exit::CliError;

/// Nodes of one cluster (`--nodes` plus `--add`, `--nodes` of sweeps, `--nodes-list` entries).
pub(crate) const NODES: u64 = 10_000;
/// Ring positions of one ring: vnodes of every node, weights included (benchmark: 128 000).
pub(crate) const RING_POINTS: u64 = 2_000_000;
/// Ring positions built over a whole sweep (`sweep-vnodes`, `sweep-nodes`).
pub(crate) const SWEEP_POINTS: u64 = 20_000_000;
/// Key comparisons of `sweep-nodes`'s `hash % N` column: keys x steps.
pub(crate) const SWEEP_KEY_STEPS: u64 = 200_000_000;
/// Slots of the slot table (Redis Cluster: 16 384).
pub(crate) const SLOTS: u64 = 1_048_576;
/// Keys of one measurement (`--range`, `--count`, `--keys-file` lines, `--words`).
pub(crate) const KEYS: u64 = 10_000_000;
/// `(node, key)` weights rendezvous hashes: keys x nodes (the lesson: 100 000 x 6).
pub(crate) const RENDEZVOUS_PAIRS: u64 = 100_000_000;
/// Replica set size (`--replicas`; the course uses 3).
pub(crate) const REPLICAS: u64 = 16;
/// Entries of a list flag (`--vnodes-list`, `--nodes-list`, `--rf`, `--workers`).
pub(crate) const LIST: u64 = 64;
/// Nodes of `durability` (a flag per node per trial).
pub(crate) const DURABILITY_NODES: u64 = 1_000_000;
/// Random draws of `durability`: trials x (nodes + partitions x the sum of --rf).
pub(crate) const DURABILITY_DRAWS: u64 = 200_000_000;
/// Distinct words of `mapreduce` (each is hashed once per --workers entry).
pub(crate) const VOCABULARY: u64 = 100_000;
/// Workers of one `mapreduce` row.
pub(crate) const WORKERS: u64 = 1_000_000;

/// `n` with a space every three digits: `2 000 000`.
pub(crate) fn grouped(n: u128) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

/// Refuses `value` above `limit`: "`what` is VALUE, above the limit of LIMIT: `fix`".
/// `value` is a u128 so that products of user sizes cannot overflow before the check.
pub(crate) fn at_most(value: u128, limit: u64, what: &str, fix: &str) -> Result<(), CliError> {
    if value > u128::from(limit) {
        return Err(CliError::bad_input(format!(
            "{what} is {}, above the limit of {}: {fix}",
            grouped(value),
            grouped(u128::from(limit))
        )));
    }
    Ok(())
}

/// Refuses a list flag with more than [`LIST`] entries.
pub(crate) fn list<T>(flag: &str, items: &[T], example: &str) -> Result<(), CliError> {
    at_most(
        items.len() as u128,
        LIST,
        &format!("the number of {flag} entries"),
        &format!("give fewer, e.g. {flag} {example}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_grouped_by_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(2_000_000), "2 000 000");
        assert_eq!(grouped(34_359_738_360), "34 359 738 360");
    }
}
