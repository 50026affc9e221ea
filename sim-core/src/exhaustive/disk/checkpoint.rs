//! A search's checkpoint: what a breadth-first search with its frontier on disk has found when
//! it finishes a level, written beside the level files, so that the search can stop there and
//! go on later from that level to the same end as a search never stopped.
//!
//! The level files are the rest of it: they hold every state's fingerprint (the visited set is
//! rebuilt from them) and the frontier (the last level). Written to a temporary file and
//! renamed over the last one, after the level's file is on disk, so a checkpoint never names a
//! level that is not whole.

use super::levels::{Located, named};
use crate::exhaustive::Stats;
use serde::{Deserialize, Serialize};
use std::io;
use std::path::{Path, PathBuf};

/// The checkpoint's format; one of another version is refused.
const VERSION: u32 = 1;

/// The checkpoint (see the module's docs).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Checkpoint {
    pub(super) version: u32,
    /// What the search is of (see `DiskFrontier::identity`).
    pub(super) identity: u64,
    /// The start's fingerprint.
    pub(super) root: u64,
    /// The last level whose file is whole: the frontier.
    pub(super) level: u32,
    pub(super) unique_states: u64,
    pub(super) transitions: u64,
    pub(super) terminal: u64,
    pub(super) max_depth: u32,
    pub(super) hit_run_limit: bool,
    pub(super) violation: Option<Located>,
    pub(super) reached: Vec<Option<Located>>,
}

impl Checkpoint {
    /// The checkpoint of a search at `level` with these counts and findings.
    pub(super) fn new(
        identity: u64,
        root: u64,
        level: u32,
        stats: &Stats,
        violation: Option<Located>,
        reached: Vec<Option<Located>>,
    ) -> Self {
        Checkpoint {
            version: VERSION,
            identity,
            root,
            level,
            unique_states: stats.unique_states,
            transitions: stats.transitions,
            terminal: stats.terminal,
            max_depth: stats.max_depth,
            hit_run_limit: stats.hit_run_limit,
            violation,
            reached,
        }
    }

    /// Its counts, as the search's.
    pub(super) fn restore(&self, stats: &mut Stats) {
        stats.unique_states = self.unique_states;
        stats.transitions = self.transitions;
        stats.terminal = self.terminal;
        stats.max_depth = self.max_depth;
        stats.hit_run_limit = self.hit_run_limit;
    }

    /// Writes it into `dir` (see the module's docs).
    pub(super) fn write(&self, dir: &Path) -> io::Result<()> {
        let path = checkpoint_path(dir);
        let text = ron::to_string(self).map_err(io::Error::other)?;
        let temporary = dir.join("checkpoint.ron.partial");
        let write = || -> io::Result<()> {
            let mut file = std::fs::File::create(&temporary)?;
            io::Write::write_all(&mut file, text.as_bytes())?;
            file.sync_all()?;
            std::fs::rename(&temporary, &path)
        };
        write().map_err(|e| named(e, &path))
    }

    /// The checkpoint in `dir`, checked to be of this search (`identity`, `root`) and of this
    /// format.
    pub(super) fn read(dir: &Path, identity: u64, root: u64) -> io::Result<Checkpoint> {
        let path = checkpoint_path(dir);
        let text = std::fs::read_to_string(&path).map_err(|e| named(e, &path))?;
        let refuse = |why: String| named(io::Error::new(io::ErrorKind::InvalidData, why), &path);
        let checkpoint: Checkpoint =
            ron::from_str(&text).map_err(|e| refuse(format!("not a search checkpoint ({e})")))?;
        if checkpoint.version != VERSION {
            return Err(refuse(format!(
                "a checkpoint of format {}, and this dsim reads format {VERSION}",
                checkpoint.version
            )));
        }
        if checkpoint.identity != identity || checkpoint.root != root {
            return Err(refuse(
                "the checkpoint is of another search: resume with the same file and the same \
                 flags that shape the search (bounds, budgets, --symmetry, --set)"
                    .to_string(),
            ));
        }
        Ok(checkpoint)
    }
}

/// The checkpoint's file in `dir`.
pub fn checkpoint_path(dir: &Path) -> PathBuf {
    dir.join("checkpoint.ron")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkpoint_reads_back_and_refuses_another_search() {
        let dir = std::env::temp_dir().join(format!("dsim-checkpoint-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let stats = Stats {
            unique_states: 10,
            transitions: 30,
            ..Stats::default()
        };
        let at = Located {
            fp: u64::MAX,
            level: 3,
            index: 2,
        };
        let checkpoint = Checkpoint::new(7, 9, 4, &stats, Some(at), vec![None, Some(at)]);
        checkpoint.write(&dir).unwrap();
        assert_eq!(Checkpoint::read(&dir, 7, 9).unwrap(), checkpoint);
        let other = Checkpoint::read(&dir, 8, 9).unwrap_err().to_string();
        assert!(other.contains("another search"), "{other}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
