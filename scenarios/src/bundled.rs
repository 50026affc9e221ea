//! Scenarios built into the binary, so `dsim run paxos/lost-accepts` works from anywhere.
//!
//! The list mirrors the files under `scenarios/course/`, `scenarios/demo/`,
//! `scenarios/search/` (the workloads of `dsim explore`) and `scenarios/models/` (other model
//! checkers' models, for comparing counts); a test checks that every file there is bundled.

/// A scenario that ships inside dsim.
#[derive(Clone, Copy, Debug)]
pub struct Bundled {
    /// Its short name (`paxos/lost-accepts`).
    pub name: &'static str,
    /// Its path in the repository, relative to `scenarios/`.
    pub path: &'static str,
    /// Its text.
    pub source: &'static str,
}

macro_rules! bundle {
    ($($name:literal => $path:literal),* $(,)?) => {
        &[$(Bundled { name: $name, path: $path, source: include_str!(concat!("../", $path)) }),*]
    };
}

/// Every bundled scenario, in the order `dsim list` shows them.
pub const BUNDLED: &[Bundled] = bundle! {
    "paxos/lost-accepts" => "course/paxos/lost-accepts.ron",
    "paxos/lost-accepts-a1" => "course/paxos/lost-accepts-a1.ron",
    "paxos/lost-prepare" => "course/paxos/lost-prepare.ron",
    "paxos/dueling-proposers" => "course/paxos/dueling-proposers.ron",
    "paxos/dueling-proposers-fixed-backoff" => "course/paxos/dueling-proposers-fixed-backoff.ron",
    "multipaxos/stable-leader" => "course/multipaxos/stable-leader.ron",
    "multipaxos/leader-change" => "course/multipaxos/leader-change.ron",
    "multipaxos/lagging-replica" => "course/multipaxos/lagging-replica.ron",
    "multipaxos/dueling-leaders" => "course/multipaxos/dueling-leaders.ron",
    "multipaxos/kv-linearizable" => "course/multipaxos/kv-linearizable.ron",
    "multipaxos/kv-stale-read" => "course/multipaxos/kv-stale-read.ron",
    "raft/leader-crash" => "course/raft/leader-crash.ron",
    "raft/leader-crash-restart" => "course/raft/leader-crash-restart.ron",
    "raft/leader-crash-unpinned" => "course/raft/leader-crash-unpinned.ron",
    "raft/split-votes" => "course/raft/split-votes.ron",
    "raft/vote-reset-split-brain" => "course/raft/vote-reset-split-brain.ron",
    "raft/repair" => "course/raft/repair.ron",
    "raft/leader-crash-mid-write" => "course/raft/leader-crash-mid-write.ron",
    "raft/partitioned-leader" => "course/raft/partitioned-leader.ron",
    "raft/figure-8" => "course/raft/figure-8.ron",
    "raft/figure-8-correct" => "course/raft/figure-8-correct.ron",
    "raft/figure-8-e" => "course/raft/figure-8-e.ron",
    "raft/kv-linearizable" => "course/raft/kv-linearizable.ron",
    "raft/kv-stale-read" => "course/raft/kv-stale-read.ron",
    "ring/coordinator" => "course/ring/coordinator.ron",
    "ring/hinted-handoff" => "course/ring/hinted-handoff.ron",
    "ring/stale-read" => "course/ring/stale-read.ron",
    "ring/join-under-load" => "course/ring/join-under-load.ron",
    "ring/leave" => "course/ring/leave.ron",
    "ring/moved" => "course/ring/moved.ron",
    "ring/dynamic-split" => "course/ring/dynamic-split.ron",
    "pbft/normal-case" => "course/pbft/normal-case.ron",
    "pbft/silent-backup" => "course/pbft/silent-backup.ron",
    "pbft/lying-replica" => "course/pbft/lying-replica.ron",
    "pbft/equivocating-primary" => "course/pbft/equivocating-primary.ron",
    "pbft/silent-primary" => "course/pbft/silent-primary.ron",
    "pbft/twins" => "course/pbft/twins.ron",
    "pbft/slow-primary" => "course/pbft/slow-primary.ron",
    "pbft/checkpoint-view-change" => "course/pbft/checkpoint-view-change.ron",
    "pbft/seven-replicas" => "course/pbft/seven-replicas.ron",
    "pbft/below-3f1" => "course/pbft/below-3f1.ron",
    "lease/kill-leader" => "course/lease/kill-leader.ron",
    "lease/clean-shutdown" => "course/lease/clean-shutdown.ron",
    "lease/exercise-3" => "course/lease/exercise-3.ron",
    "lease/gc-pause" => "course/lease/gc-pause.ron",
    "lease/gc-pause-fenced" => "course/lease/gc-pause-fenced.ron",
    "lease/clock-skew" => "course/lease/clock-skew.ron",
    "demo/token-ring" => "demo/token-ring.ron",
    "search/paxos-swarm" => "search/paxos-swarm.ron",
    "search/paxos-crash" => "search/paxos-crash.ron",
    "search/raft-election" => "search/raft-election.ron",
    "search/raft-replication" => "search/raft-replication.ron",
    "search/raft-kv" => "search/raft-kv.ron",
    "search/pbft-byzantine-backup" => "search/pbft-byzantine-backup.ron",
    "search/pbft-seven" => "search/pbft-seven.ron",
    "search/pbft-view-change" => "search/pbft-view-change.ron",
    "search/pbft-lying-next-primary" => "search/pbft-lying-next-primary.ron",
    "search/pbft-short-timeouts" => "search/pbft-short-timeouts.ron",
    "search/pbft-twins" => "search/pbft-twins.ron",
    "search/lease-election" => "search/lease-election.ron",
    "search/multipaxos" => "search/multipaxos.ron",
    "search/multipaxos-kv" => "search/multipaxos-kv.ron",
    "search/paxos-exhaustive" => "search/paxos-exhaustive.ron",
    "search/raft-exhaustive" => "search/raft-exhaustive.ron",
    "search/ring-exhaustive" => "search/ring-exhaustive.ron",
    "search/multipaxos-exhaustive" => "search/multipaxos-exhaustive.ron",
    "register/stateright-paxos" => "models/register/stateright-paxos.ron",
};

/// The bundled scenario called `name`.
pub fn find(name: &str) -> Option<&'static Bundled> {
    let name = name.trim_end_matches(".ron");
    BUNDLED.iter().find(|b| b.name == name)
}
