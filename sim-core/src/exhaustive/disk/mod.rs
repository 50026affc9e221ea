//! Breadth first with the frontier on disk: fingerprints in memory, levels in files.
//!
//! A search in memory keeps every state of the level it expands, packed, and the way back to
//! every state it visited: a kilobyte or more a state, which puts large searches beyond one
//! machine's memory. This one keeps in memory only the fingerprints of the states visited (7
//! bytes each, [`Fingerprints`]) and the level being made ([`LevelMap`], the new states' ways
//! there), and writes each level to a file of 25 bytes a state ([`levels`]): fingerprint,
//! parent and move. A state is not stored but rebuilt when its level is expanded, by replaying
//! its move from its parent, rebuilt likewise ([`levels::Replay`]): the levels' files are the
//! search's tree, and the states of a level are rebuilt in order by walking it.
//!
//! What it finds is what the search in memory finds: the same states (a new state is one no
//! earlier level has, and merged within its level), the same counts, and the same paths, since
//! each state's way there is the one the in-memory visited set keeps (the smallest parent
//! fingerprint and move of its level) and its reported states are chosen by the same rules.
//! At any thread count, too: a level's threads each rebuild a contiguous share of it, and the
//! level's file is sorted after they are done.
//!
//! After each level the search writes a [`checkpoint`] beside the files; a search stopped (a
//! Ctrl-C, a memory budget, a machine that went down) goes on from its last level with
//! [`DiskFrontier::resume`], to the end an uninterrupted search reaches.

mod checkpoint;
mod level_map;
mod levels;

pub use checkpoint::checkpoint_path;

use super::fingerprints::Fingerprints;
use super::{BUDGET_EVERY, Expansion, Frontier, Keep, Search, Work};
use crate::{Actor, Sim};
use checkpoint::Checkpoint;
use level_map::LevelMap;
use levels::{LevelReader, LevelWriter, Located, MAX_LEVEL_STATES, Record, Replay};
use std::io;
use std::path::PathBuf;

/// Where a breadth-first search keeps its frontier on disk, and whether it resumes one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiskFrontier {
    /// The directory of its level files and checkpoint. The caller makes it, and removes it
    /// when it is done with it: the search only writes there.
    pub dir: PathBuf,
    /// Go on from the checkpoint in `dir` rather than from the start.
    pub resume: bool,
    /// What the search is of, in a number the caller makes from what shapes the state graph
    /// (the file, its overrides, the bounds): a checkpoint of another search is refused.
    pub identity: u64,
}

impl<A: Actor> Search<'_, A> {
    /// Breadth first, a level at a time, the levels on disk (see the module's docs).
    pub(super) fn bfs_on_disk(
        &mut self,
        first: Frontier<A>,
        origin: &Sim<A>,
        progress: &mut dyn FnMut(&super::Stats),
    ) -> io::Result<()> {
        let options = self.options;
        let disk = options
            .disk
            .as_ref()
            .expect("a search on disk has a directory");
        let dir = disk.dir.as_path();
        let mut seen = Fingerprints::default();
        seen.insert(first.fp);
        let mut level = 0;
        let mut violation: Option<Located> = None;
        let mut reached: Vec<Option<Located>> = self
            .reached
            .iter()
            .map(|r| {
                r.map(|fp| Located {
                    fp,
                    level: 0,
                    index: 0,
                })
            })
            .collect();
        if let Some((fp, _)) = &self.violation {
            violation = Some(Located {
                fp: *fp,
                level: 0,
                index: 0,
            });
        }
        if disk.resume {
            let checkpoint = Checkpoint::read(dir, disk.identity, first.fp)?;
            if checkpoint.reached.len() != reached.len() {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "the checkpoint has another number of `sometimes` properties",
                ));
            }
            checkpoint.restore(&mut self.stats);
            level = checkpoint.level;
            violation = checkpoint.violation;
            reached = checkpoint.reached;
            self.violation = violation.map(|at| (at.fp, Vec::new()));
            self.reached = reached.iter().map(|r| r.map(|at| at.fp)).collect();
            // The visited set, from the levels' files, unless there is nothing left to do.
            if levels::level_len_or_root(dir, level)? > 0 && !self.stop() {
                seen = Fingerprints::with_room(self.stats.unique_states);
                seen.insert(first.fp);
                for k in 1..=level {
                    let mut reader = LevelReader::open(dir, k, 0)?;
                    for _ in 0..levels::level_len(dir, k)? {
                        seen.insert(reader.next_record()?.1.fp);
                    }
                }
            }
        } else {
            Checkpoint::new(
                disk.identity,
                first.fp,
                0,
                &self.stats,
                violation,
                reached.clone(),
            )
            .write(dir)?;
        }
        let mut size = levels::level_len_or_root(dir, level)?;
        while size > 0 && !self.stop() {
            if options.max_depth.is_some_and(|bound| level >= bound) {
                self.stats.hit_depth_limit = true;
                break;
            }
            let map = LevelMap::new(&seen);
            let Some(made) = self.expand_level(&first, level, size, &map)? else {
                // Stopped inside the level: what was found there is dropped, and the search
                // ends at the last level done, as its checkpoint has it.
                break;
            };
            let states = map.into_sorted();
            if states.len() as u64 > MAX_LEVEL_STATES {
                return Err(io::Error::other(format!(
                    "level {} holds more than {MAX_LEVEL_STATES} states, more than a search on \
                     disk can index: bound the search (--max-depth, --symmetry)",
                    level + 1
                )));
            }
            let mut writer = LevelWriter::create(dir, level + 1)?;
            for (fp, way) in &states {
                writer.push(&Record {
                    fp: *fp,
                    parent: way.parent,
                    mv: way.mv,
                })?;
                seen.insert(*fp);
            }
            writer.finish()?;
            // Where the level's findings are: a new state in this level's file, or a terminal
            // state of the level expanded (the end-of-run checks broke).
            let locate = |fp: u64| -> io::Result<Located> {
                match states.iter().position(|(f, _)| *f == fp) {
                    Some(index) => Ok(Located {
                        fp,
                        level: level + 1,
                        index: index as u64,
                    }),
                    None => levels::find(dir, level, fp),
                }
            };
            let mut made = made;
            if violation.is_none()
                && let Some((fp, _)) = &made.violation
            {
                violation = Some(locate(*fp)?);
            }
            for (mine, theirs) in reached.iter_mut().zip(&made.reached) {
                if mine.is_none()
                    && let Some(fp) = theirs
                {
                    *mine = Some(locate(*fp)?);
                }
            }
            self.absorb(&mut made);
            if !states.is_empty() {
                self.stats.max_depth = level + 1;
            }
            if self.stats.unique_states >= options.max_states {
                self.stats.hit_state_limit = true;
            }
            self.stats.hit_memory_limit |= options.budget_reached();
            level += 1;
            size = states.len() as u64;
            drop(states);
            Checkpoint::new(
                disk.identity,
                first.fp,
                level,
                &self.stats,
                violation,
                reached.clone(),
            )
            .write(dir)?;
            progress(&self.stats);
        }
        // The paths to what the search reports, from the level files.
        for at in violation.iter().chain(reached.iter().flatten()) {
            if self.paths.iter().any(|(fp, _)| *fp == at.fp) {
                continue;
            }
            let (mut chain, moves) = levels::path_to(dir, at.level, at.index)?;
            let path = match options.symmetry {
                None => moves,
                Some(_) => {
                    chain.insert(0, first.fp);
                    super::moves_along(options, &chain, origin)
                }
            };
            self.paths.push((at.fp, path));
        }
        Ok(())
    }

    /// Expands the `size` states of level `level` on the options' threads, each rebuilding a
    /// contiguous share of them, into `map`; what they found, or `None` when the memory budget
    /// or an interrupt stopped them first.
    fn expand_level(
        &mut self,
        first: &Frontier<A>,
        level: u32,
        size: u64,
        map: &LevelMap<'_>,
    ) -> io::Result<Option<Expansion<A>>> {
        let (options, sometimes) = (self.options, self.sometimes);
        let dir = options.disk.as_ref().expect("on disk").dir.as_path();
        let jobs = (options.jobs.max(1) as u64).min(size).max(1);
        let per_share = size.div_ceil(jobs);
        // Runs are not shared between threads: each share rebuilds its states from a copy of
        // the start of its own.
        let expand_share = |(from, root): (u64, Frontier<A>)| -> io::Result<Expansion<A>> {
            let to = (from + per_share).min(size);
            let mut out = Expansion::new(sometimes.len());
            out.keep = Keep::Elsewhere;
            let mut work = Work::default();
            let mut replay = Replay::open(dir, root, level, from)?;
            for index in from..to {
                if (index - from) % BUDGET_EVERY == BUDGET_EVERY - 1
                    && (options.budget_reached() || options.interrupted())
                {
                    out.over_budget = true;
                    break;
                }
                let state = replay.state(index)?;
                if let Some(reason) = state.sim.stopped() {
                    out.limited |= reason != crate::StopReason::Violation;
                    continue;
                }
                Self::expand(options, sometimes, map, state, index, &mut work, &mut out);
            }
            Ok(out)
        };
        let expansions: Vec<io::Result<Expansion<A>>> = if jobs == 1 {
            vec![expand_share((0, first.copy()))]
        } else {
            std::thread::scope(|scope| {
                let expand_share = &expand_share;
                let handles: Vec<_> = (1..jobs)
                    .map(|share| (share * per_share, first.copy()))
                    .map(|share| scope.spawn(move || expand_share(share)))
                    .collect();
                let mut done = vec![expand_share((0, first.copy()))];
                done.extend(
                    handles
                        .into_iter()
                        .map(|h| h.join().expect("an exploring thread panicked")),
                );
                done
            })
        };
        let mut merged = self.empty_expansion();
        for e in expansions {
            merged.add_share(&mut e?);
        }
        if merged.over_budget || options.interrupted() {
            self.stats.interrupted |= options.interrupted();
            self.stats.hit_memory_limit |= !self.stats.interrupted;
            return Ok(None);
        }
        Ok(Some(merged))
    }
}
