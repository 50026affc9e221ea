//! A steady load (`RingCommand::Load`): `ops` operations, one every `every_ms`, over the keys
//! "clave-0" .. "clave-(keys-1)": first a write of each key, then reads and writes in turn.
//! The coordinator's load and a client's load are the same generator.

use sim_core::Duration;

/// One operation: a write of `value` under `key`, or a read of `key` (`value` is `None`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Op {
    /// The key.
    pub key: String,
    /// The value to write; `None` for a read.
    pub value: Option<String>,
}

impl Op {
    /// The `i`-th operation of a load over `keys` keys.
    pub fn nth(i: u32, keys: u32) -> Op {
        let key = format!("clave-{}", i % keys);
        let value = (i < keys || (i - keys) % 2 == 1).then(|| format!("valor-{i}"));
        Op { key, value }
    }
}

/// A load in progress: how many operations it has given so far.
#[derive(Clone, Debug, Hash)]
pub struct Load {
    keys: u32,
    ops: u32,
    every_ms: u64,
    done: u32,
}

impl Load {
    /// A load of `ops` operations over `keys` keys (at least one), one every `every_ms`.
    pub fn new(keys: u32, ops: u32, every_ms: u64) -> Load {
        Load {
            keys: keys.max(1),
            ops,
            every_ms,
            done: 0,
        }
    }

    /// The next operation, or `None` once all were given.
    pub fn next_op(&mut self) -> Option<Op> {
        if self.done >= self.ops {
            return None;
        }
        let op = Op::nth(self.done, self.keys);
        self.done += 1;
        Some(op)
    }

    /// Whether operations are left (the next is due after [`Load::every`]).
    pub fn more(&self) -> bool {
        self.done < self.ops
    }

    /// The time between operations.
    pub fn every(&self) -> Duration {
        Duration::from_millis(self.every_ms)
    }
}
