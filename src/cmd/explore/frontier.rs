//! Where breadth first keeps the states it has yet to expand: in memory, or on disk in a work
//! directory (see `sim_core::exhaustive::DiskFrontier`), and the directory's life: a temporary
//! one is removed at the end, a `--checkpoint` one is kept, a `--resume` one is gone on with.

use crate::exit::CliError;
use sim_core::exhaustive::{DiskFrontier, checkpoint_path};
use std::path::{Path, PathBuf};

/// Where breadth first keeps its frontier (`--frontier`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum FrontierMode {
    /// In memory while the search is small (200,000 states, a quarter of its memory budget),
    /// then from the start again on disk.
    #[default]
    Auto,
    /// In memory: about a kilobyte a state.
    Memory,
    /// On disk: 25 bytes a state in files, 7 in memory, as fast.
    Disk,
}

/// The directory a search on disk works in.
pub struct WorkDir {
    /// Where it is.
    pub path: PathBuf,
    /// A temporary directory, removed when this is dropped unless kept.
    temporary: Option<tempfile::TempDir>,
    /// Whether it goes on from a checkpoint there.
    pub resume: bool,
}

impl WorkDir {
    /// The directory `--resume`, `--checkpoint` or `--work-dir` names (a temporary one is made
    /// inside `--work-dir`, or in the system's temporary directory).
    pub fn choose(
        resume: Option<&Path>,
        checkpoint: Option<&Path>,
        work_dir: Option<&Path>,
    ) -> Result<WorkDir, CliError> {
        if let Some(dir) = resume {
            if !checkpoint_path(dir).exists() {
                return Err(CliError::bad_input(format!(
                    "--resume {}: no checkpoint there (a search writes one with --checkpoint DIR, \
                     or when Ctrl-C stops a search on disk)",
                    dir.display()
                )));
            }
            return Ok(WorkDir {
                path: dir.to_path_buf(),
                temporary: None,
                resume: true,
            });
        }
        if let Some(dir) = checkpoint {
            std::fs::create_dir_all(dir).map_err(|e| CliError::io(dir, e))?;
            if checkpoint_path(dir).exists() {
                return Err(CliError::bad_input(format!(
                    "--checkpoint {0}: it holds a search's checkpoint already; go on with it \
                     with --resume {0}, or give an empty directory",
                    dir.display()
                )));
            }
            return Ok(WorkDir {
                path: dir.to_path_buf(),
                temporary: None,
                resume: false,
            });
        }
        let parent = work_dir.map_or_else(std::env::temp_dir, Path::to_path_buf);
        let temporary = tempfile::Builder::new()
            .prefix("dsim-search-")
            .tempdir_in(&parent)
            .map_err(|e| CliError::io(&parent, e))?;
        Ok(WorkDir {
            path: temporary.path().to_path_buf(),
            temporary: Some(temporary),
            resume: false,
        })
    }

    /// The search's frontier in this directory; `identity` tells its checkpoint from
    /// another search's.
    pub fn frontier(&self, identity: u64) -> DiskFrontier {
        DiskFrontier {
            dir: self.path.clone(),
            resume: self.resume,
            identity,
        }
    }

    /// Keeps the directory after the search (a temporary one is otherwise removed): an
    /// interrupted search leaves it to be resumed. Whether it was a temporary one.
    pub fn keep(&mut self) -> bool {
        match self.temporary.take() {
            Some(dir) => {
                let _ = dir.keep();
                true
            }
            None => false,
        }
    }
}
