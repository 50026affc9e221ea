//! A breadth-first level on disk: one record per state, and the replay that rebuilds states.
//!
//! Level `k`'s file holds one fixed-size record per state `k` moves from the start: its
//! fingerprint, the index of its parent in level `k - 1`, and the move from that parent. The
//! records are sorted by parent, so the files together are the search's tree, walked in order:
//! a [`Replay`] rebuilds the states of a level one after the other, keeping one state per
//! level on its path from the start and taking one move per state it rebuilds, and only the
//! states that have children in the level asked for are ever rebuilt. Any state's path is its
//! records' parents followed back to the start ([`path_to`]).

use crate::Actor;
use crate::exhaustive::Frontier;
use crate::kernel::{EffectBuffer, Move};
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Bytes of a record: fingerprint (8), parent (4), move kind (1), key (8), slot (4).
pub(super) const RECORD: u64 = 25;

/// The most states one level may hold: a parent's index is 32 bits.
pub(super) const MAX_LEVEL_STATES: u64 = u32::MAX as u64;

/// A state the search reports (its violation, an example), by its fingerprint and where its
/// record is: its level and its index there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Located {
    pub(super) fp: u64,
    pub(super) level: u32,
    pub(super) index: u64,
}

/// A state as its level's file keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Record {
    pub(super) fp: u64,
    pub(super) parent: u32,
    pub(super) mv: Move,
}

impl Record {
    fn encode(&self) -> [u8; RECORD as usize] {
        let (kind, key, slot) = self.mv.code();
        let mut out = [0u8; RECORD as usize];
        out[0..8].copy_from_slice(&self.fp.to_le_bytes());
        out[8..12].copy_from_slice(&self.parent.to_le_bytes());
        out[12] = kind;
        out[13..21].copy_from_slice(&key.to_le_bytes());
        out[21..25].copy_from_slice(&slot.to_le_bytes());
        out
    }

    fn decode(bytes: &[u8; RECORD as usize]) -> io::Result<Record> {
        let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        let half = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        let mv = Move::from_code((bytes[12], word(13), half(21)))
            .ok_or_else(|| corrupt("a move of no known kind"))?;
        Ok(Record {
            fp: word(0),
            parent: half(8),
            mv,
        })
    }
}

/// An error for a level file that is not what this search wrote.
pub(super) fn corrupt(what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("a search file is damaged: {what}"),
    )
}

/// The file of level `level` in `dir`.
pub(super) fn level_path(dir: &Path, level: u32) -> PathBuf {
    dir.join(format!("level-{level:06}.states"))
}

/// Writes a level's records, in order.
pub(super) struct LevelWriter {
    out: BufWriter<File>,
    path: PathBuf,
}

impl LevelWriter {
    /// Starts the file of `level` in `dir` (replacing one an interrupted search left).
    pub(super) fn create(dir: &Path, level: u32) -> io::Result<LevelWriter> {
        let path = level_path(dir, level);
        let file = File::create(&path).map_err(|e| named(e, &path))?;
        Ok(LevelWriter {
            out: BufWriter::with_capacity(1 << 16, file),
            path,
        })
    }

    pub(super) fn push(&mut self, record: &Record) -> io::Result<()> {
        self.out
            .write_all(&record.encode())
            .map_err(|e| named(e, &self.path))
    }

    /// Flushes the file to the disk: a checkpoint that names this level finds it whole.
    pub(super) fn finish(self) -> io::Result<()> {
        let path = self.path;
        let file = self
            .out
            .into_inner()
            .map_err(|e| named(e.into_error(), &path))?;
        file.sync_all().map_err(|e| named(e, &path))
    }
}

/// `error`, saying which file it is about.
pub(super) fn named(error: io::Error, path: &Path) -> io::Error {
    io::Error::new(error.kind(), format!("{}: {error}", path.display()))
}

/// How many states level `level` in `dir` holds (its file's length in records).
pub(super) fn level_len(dir: &Path, level: u32) -> io::Result<u64> {
    let path = level_path(dir, level);
    let len = std::fs::metadata(&path).map_err(|e| named(e, &path))?.len();
    if len % RECORD != 0 {
        return Err(named(
            corrupt("its length is not a whole number of records"),
            &path,
        ));
    }
    Ok(len / RECORD)
}

/// How many states level `level` holds, level 0 being the start alone.
pub(super) fn level_len_or_root(dir: &Path, level: u32) -> io::Result<u64> {
    match level {
        0 => Ok(1),
        _ => level_len(dir, level),
    }
}

/// Where state `fp` of level `level` is (level 0: the start).
pub(super) fn find(dir: &Path, level: u32, fp: u64) -> io::Result<Located> {
    if level == 0 {
        return Ok(Located {
            fp,
            level,
            index: 0,
        });
    }
    let mut reader = LevelReader::open(dir, level, 0)?;
    for _ in 0..level_len(dir, level)? {
        let (index, record) = reader.next_record()?;
        if record.fp == fp {
            return Ok(Located { fp, level, index });
        }
    }
    Err(corrupt("a state the search found is not in its level"))
}

/// Reads a level's records in order, from any index on.
pub(super) struct LevelReader {
    input: BufReader<File>,
    /// The index of the next record read.
    next: u64,
    path: PathBuf,
}

impl LevelReader {
    /// Opens level `level` in `dir` at record `from`.
    pub(super) fn open(dir: &Path, level: u32, from: u64) -> io::Result<LevelReader> {
        let path = level_path(dir, level);
        let mut file = File::open(&path).map_err(|e| named(e, &path))?;
        file.seek(SeekFrom::Start(from * RECORD))
            .map_err(|e| named(e, &path))?;
        Ok(LevelReader {
            input: BufReader::with_capacity(1 << 16, file),
            next: from,
            path,
        })
    }

    /// The next record and its index.
    pub(super) fn next_record(&mut self) -> io::Result<(u64, Record)> {
        let mut bytes = [0u8; RECORD as usize];
        self.input.read_exact(&mut bytes).map_err(|e| {
            let e = if e.kind() == io::ErrorKind::UnexpectedEof {
                corrupt("a record a search needs is missing")
            } else {
                e
            };
            named(e, &self.path)
        })?;
        let at = self.next;
        self.next += 1;
        Ok((
            at,
            Record::decode(&bytes).map_err(|e| named(e, &self.path))?,
        ))
    }
}

/// The record at `index` of level `level` in `dir`.
pub(super) fn record_at(dir: &Path, level: u32, index: u64) -> io::Result<Record> {
    Ok(LevelReader::open(dir, level, index)?.next_record()?.1)
}

/// The path to state `index` of level `level`: the fingerprints from the start's (excluded)
/// to its own, and the moves between them.
pub(super) fn path_to(dir: &Path, level: u32, index: u64) -> io::Result<(Vec<u64>, Vec<Move>)> {
    let (mut fps, mut moves) = (Vec::new(), Vec::new());
    let mut at = index;
    for level in (1..=level).rev() {
        let record = record_at(dir, level, at)?;
        fps.push(record.fp);
        moves.push(record.mv);
        at = u64::from(record.parent);
    }
    fps.reverse();
    moves.reverse();
    Ok((fps, moves))
}

/// Rebuilds the states of one level in order, from the level files below it (see the module's
/// docs). Holds one state per level, the path to the last state rebuilt.
pub(super) struct Replay<A: Actor> {
    /// The state the search began from.
    root: Frontier<A>,
    /// Per level from 1, where its file is read, and the state last rebuilt there.
    cursors: Vec<Cursor<A>>,
    effects: EffectBuffer<A>,
}

struct Cursor<A: Actor> {
    reader: LevelReader,
    /// The index of the state in `state`, if one was rebuilt.
    at: Option<u64>,
    state: Frontier<A>,
}

impl<A: Actor> Replay<A> {
    /// A replay of level `level` in `dir` from its state `from` on. `root` is the state the
    /// search began from.
    pub(super) fn open(dir: &Path, root: Frontier<A>, level: u32, from: u64) -> io::Result<Self> {
        // Each level's reader starts at the first state the one above needs: the parent of the
        // first state needed there.
        let mut starts = vec![0u64; level as usize];
        let mut need = from;
        for k in (1..=level).rev() {
            starts[k as usize - 1] = need;
            if k > 1 && need < level_len(dir, k)? {
                need = u64::from(record_at(dir, k, need)?.parent);
            }
        }
        let cursors = (1..=level)
            .zip(starts)
            .map(|(k, start)| {
                Ok(Cursor {
                    reader: LevelReader::open(dir, k, start)?,
                    at: None,
                    state: root.copy(),
                })
            })
            .collect::<io::Result<Vec<_>>>()?;
        Ok(Replay {
            root,
            cursors,
            effects: EffectBuffer::default(),
        })
    }

    /// State `index` of the level this replay is of. Indices asked must grow.
    pub(super) fn state(&mut self, index: u64) -> io::Result<&Frontier<A>> {
        let level = self.cursors.len();
        if level == 0 {
            return Ok(&self.root);
        }
        advance(&mut self.cursors, &self.root, index, &mut self.effects)?;
        Ok(&self.cursors[level - 1].state)
    }
}

/// Makes the last of `cursors` hold its level's state `index`, rebuilding its parent in the
/// level below first if that is not the one held there.
fn advance<A: Actor>(
    cursors: &mut [Cursor<A>],
    root: &Frontier<A>,
    index: u64,
    effects: &mut EffectBuffer<A>,
) -> io::Result<()> {
    let (below, this) = cursors.split_at_mut(cursors.len() - 1);
    let this = &mut this[0];
    if this.at == Some(index) {
        return Ok(());
    }
    let record = loop {
        let (at, record) = this.reader.next_record()?;
        if at == index {
            break record;
        }
        if at > index {
            return Err(corrupt("a replay went back"));
        }
    };
    let parent = match below.len() {
        0 => root,
        _ => {
            advance(below, root, u64::from(record.parent), effects)?;
            &below[below.len() - 1].state
        }
    };
    parent.replay_into(record.mv, &mut this.state, effects);
    this.state.fp = record.fp;
    this.at = Some(index);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_as_written() {
        let record = Record {
            fp: 0x0123_4567_89ab_cdef,
            parent: 77,
            mv: Move::from_parts(crate::MoveKind::Fire, u64::MAX - 3, 9),
        };
        assert_eq!(Record::decode(&record.encode()).unwrap(), record);
        let mut bad = record.encode();
        bad[12] = 200;
        assert!(Record::decode(&bad).is_err());
    }
}
