//! The hash functions that put keys and nodes on the ring, selectable by name.
//!
//! The course fixes one: the first 8 bytes of the MD5 digest of the UTF-8 text, read big-endian
//! as an unsigned 64-bit integer ([`HashFn::Md5_64`]). Every exact figure of the lesson depends on
//! it, bit for bit. [`HashFn::Xxh3`] is the fast alternative a real system would pick (no
//! cryptographic work for a placement decision); its figures differ but have the same shape.

use md5::Digest;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A 64-bit hash of a key or a node label, chosen by name on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum HashFn {
    /// The course's hash: MD5, first 8 bytes, big-endian. Slow but fixed by the lesson.
    Md5_64,
    /// xxh3 (64-bit, seed 0): several times faster, for measurements that need not match the text.
    Xxh3,
}

impl HashFn {
    /// Every hash with the name it is selected by, for help texts and error messages.
    pub const ALL: [(&'static str, HashFn); 2] = [("md5", HashFn::Md5_64), ("xxh3", HashFn::Xxh3)];

    /// The hash of `bytes`.
    #[inline]
    pub fn hash(self, bytes: &[u8]) -> u64 {
        match self {
            HashFn::Md5_64 => md5_64(bytes),
            HashFn::Xxh3 => xxhash_rust::xxh3::xxh3_64(bytes),
        }
    }

    /// The hash of a text, as the lesson's `hash_clave(text)` (UTF-8 bytes).
    #[inline]
    pub fn hash_str(self, text: &str) -> u64 {
        self.hash(text.as_bytes())
    }

    /// The hashes of many messages, appended to `out` in order: the same values as
    /// [`HashFn::hash`], several times faster for MD5 (eight short messages per pass).
    /// Large batches are split over rayon's threads (each chunk's hashes land at their index,
    /// so the output does not depend on scheduling).
    pub fn hash_many(self, msgs: &[&[u8]], out: &mut Vec<u64>) {
        const PARALLEL_CHUNK: usize = 8192;
        if msgs.len() > PARALLEL_CHUNK {
            use rayon::prelude::*;
            let parts: Vec<Vec<u64>> = msgs
                .par_chunks(PARALLEL_CHUNK)
                .map(|chunk| {
                    let mut part = Vec::with_capacity(chunk.len());
                    self.hash_many(chunk, &mut part);
                    part
                })
                .collect();
            out.reserve(msgs.len());
            for part in parts {
                out.extend_from_slice(&part);
            }
            return;
        }
        out.reserve(msgs.len());
        match self {
            HashFn::Md5_64 => {
                for chunk in msgs.chunks(super::md5x::LANES) {
                    if chunk.iter().all(|m| m.len() <= super::md5x::MAX_LEN) {
                        let mut lanes = [0u64; super::md5x::LANES];
                        super::md5x::md5_64_lanes(chunk, &mut lanes);
                        out.extend_from_slice(&lanes[..chunk.len()]);
                    } else {
                        out.extend(chunk.iter().map(|m| md5_64(m)));
                    }
                }
            }
            HashFn::Xxh3 => out.extend(msgs.iter().map(|m| xxhash_rust::xxh3::xxh3_64(m))),
        }
    }

    /// The name this hash is selected by (`md5`, `xxh3`).
    pub fn name(self) -> &'static str {
        match self {
            HashFn::Md5_64 => "md5",
            HashFn::Xxh3 => "xxh3",
        }
    }
}

impl fmt::Display for HashFn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for HashFn {
    type Err = String;

    fn from_str(s: &str) -> Result<HashFn, String> {
        HashFn::ALL
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(s))
            .map(|&(_, h)| h)
            .ok_or_else(|| format!("unknown hash {s:?}: use md5 (the course's) or xxh3 (fast)"))
    }
}

/// MD5 of `bytes`, first 8 bytes big-endian.
///
/// Keys and vnode labels are short, so the common case is a single 64-byte block: it is padded
/// here and compressed directly, which avoids the streaming hasher's bookkeeping (the hot loop of
/// every RING table is this function).
#[inline]
fn md5_64(bytes: &[u8]) -> u64 {
    if bytes.len() <= 55 {
        let mut block = [0u8; 64];
        block[..bytes.len()].copy_from_slice(bytes);
        block[bytes.len()] = 0x80;
        let bits = (bytes.len() as u64) * 8;
        block[56..].copy_from_slice(&bits.to_le_bytes());
        let mut state = [0x6745_2301u32, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];
        md5::block_api::compress(&mut state, &[block]);
        (u64::from(state[0].swap_bytes()) << 32) | u64::from(state[1].swap_bytes())
    } else {
        let digest = md5::Md5::digest(bytes);
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        u64::from_be_bytes(first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn md5_64_matches_known_digests() {
        // md5("") = d41d8cd98f00b204e9800998ecf8427e
        assert_eq!(HashFn::Md5_64.hash(b""), 0xd41d_8cd9_8f00_b204);
        // md5("abc") = 900150983cd24fb0d6963f7d28e17f72
        assert_eq!(HashFn::Md5_64.hash(b"abc"), 0x9001_5098_3cd2_4fb0);
    }

    #[test]
    fn single_block_path_agrees_with_streaming_hasher() {
        for len in 0..130 {
            let text: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            let digest = md5::Md5::digest(&text);
            let mut first = [0u8; 8];
            first.copy_from_slice(&digest[..8]);
            assert_eq!(md5_64(&text), u64::from_be_bytes(first), "length {len}");
        }
    }

    #[test]
    fn hash_many_agrees_with_hash() {
        let texts: Vec<String> = (0..50).map(|i| "x".repeat(i * 3)).collect();
        let msgs: Vec<&[u8]> = texts.iter().map(|t| t.as_bytes()).collect();
        for h in [HashFn::Md5_64, HashFn::Xxh3] {
            let mut out = vec![7];
            h.hash_many(&msgs, &mut out);
            let want: Vec<u64> = std::iter::once(7)
                .chain(msgs.iter().map(|m| h.hash(m)))
                .collect();
            assert_eq!(out, want);
        }
    }

    #[test]
    fn names_round_trip_and_unknown_names_say_what_exists() {
        for (name, h) in HashFn::ALL {
            assert_eq!(name.parse::<HashFn>(), Ok(h));
            assert_eq!(h.to_string(), name);
        }
        let err = "sha1".parse::<HashFn>().unwrap_err();
        assert!(err.contains("md5") && err.contains("xxh3"), "{err}");
    }
}
