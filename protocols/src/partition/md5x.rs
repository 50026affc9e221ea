//! MD5 of many short messages at once, lane by lane, for the course's MD5-64 hash.
//!
//! Every key and every vnode label of the lesson fits one 64-byte block. Hashing eight of them
//! side by side, each MD5 step written as a loop over eight independent lanes, lets the compiler
//! use SIMD registers (SSE2 on any x86-64) for what is otherwise a strictly serial chain of
//! dependent additions: several times the throughput of one-at-a-time hashing, with the same
//! bits (tests compare every lane against the streaming hasher).

/// Messages hashed side by side.
pub const LANES: usize = 4;

/// Longest message that fits one padded block.
pub const MAX_LEN: usize = 55;

const K: [u32; 64] = [
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
];

type Lanes = [u32; LANES];

#[inline(always)]
fn map3(x: Lanes, y: Lanes, z: Lanes, f: impl Fn(u32, u32, u32) -> u32) -> Lanes {
    let mut r = [0u32; LANES];
    for l in 0..LANES {
        r[l] = f(x[l], y[l], z[l]);
    }
    r
}

/// One MD5 step on every lane: `a = b + ((a + f(b, c, d) + k + m) <<< s)`.
#[inline(always)]
fn step<const S: u32>(
    a: Lanes,
    b: Lanes,
    c: Lanes,
    d: Lanes,
    m: Lanes,
    k: u32,
    f: impl Fn(u32, u32, u32) -> u32,
) -> Lanes {
    let fv = map3(b, c, d, f);
    let mut r = [0u32; LANES];
    for l in 0..LANES {
        let t = a[l].wrapping_add(fv[l]).wrapping_add(k).wrapping_add(m[l]);
        r[l] = b[l].wrapping_add(t.rotate_left(S));
    }
    r
}

/// MD5-64 (first 8 digest bytes, big-endian) of up to [`LANES`] messages of at most
/// [`MAX_LEN`] bytes each; `out[i]` is the hash of `msgs[i]`.
pub fn md5_64_lanes(msgs: &[&[u8]], out: &mut [u64]) {
    assert!(msgs.len() <= LANES && out.len() >= msgs.len());
    let mut w = [[0u32; LANES]; 16];
    for (l, msg) in msgs.iter().enumerate() {
        assert!(
            msg.len() <= MAX_LEN,
            "md5_64_lanes: message longer than one block"
        );
        let mut block = [0u8; 64];
        block[..msg.len()].copy_from_slice(msg);
        block[msg.len()] = 0x80;
        block[56..].copy_from_slice(&(msg.len() as u64 * 8).to_le_bytes());
        for (j, word) in w.iter_mut().enumerate() {
            let b = [
                block[4 * j],
                block[4 * j + 1],
                block[4 * j + 2],
                block[4 * j + 3],
            ];
            word[l] = u32::from_le_bytes(b);
        }
    }
    let init = [0x6745_2301u32, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];
    let (mut a, mut b, mut c, mut d) = (
        [init[0]; LANES],
        [init[1]; LANES],
        [init[2]; LANES],
        [init[3]; LANES],
    );
    let fun = |x: u32, y: u32, z: u32| (x & y) | (!x & z);
    let gun = |x: u32, y: u32, z: u32| (x & z) | (y & !z);
    let hun = |x: u32, y: u32, z: u32| x ^ y ^ z;
    let iun = |x: u32, y: u32, z: u32| y ^ (x | !z);
    a = step::<7>(a, b, c, d, w[0], K[0], fun);
    d = step::<12>(d, a, b, c, w[1], K[1], fun);
    c = step::<17>(c, d, a, b, w[2], K[2], fun);
    b = step::<22>(b, c, d, a, w[3], K[3], fun);
    a = step::<7>(a, b, c, d, w[4], K[4], fun);
    d = step::<12>(d, a, b, c, w[5], K[5], fun);
    c = step::<17>(c, d, a, b, w[6], K[6], fun);
    b = step::<22>(b, c, d, a, w[7], K[7], fun);
    a = step::<7>(a, b, c, d, w[8], K[8], fun);
    d = step::<12>(d, a, b, c, w[9], K[9], fun);
    c = step::<17>(c, d, a, b, w[10], K[10], fun);
    b = step::<22>(b, c, d, a, w[11], K[11], fun);
    a = step::<7>(a, b, c, d, w[12], K[12], fun);
    d = step::<12>(d, a, b, c, w[13], K[13], fun);
    c = step::<17>(c, d, a, b, w[14], K[14], fun);
    b = step::<22>(b, c, d, a, w[15], K[15], fun);
    a = step::<5>(a, b, c, d, w[1], K[16], gun);
    d = step::<9>(d, a, b, c, w[6], K[17], gun);
    c = step::<14>(c, d, a, b, w[11], K[18], gun);
    b = step::<20>(b, c, d, a, w[0], K[19], gun);
    a = step::<5>(a, b, c, d, w[5], K[20], gun);
    d = step::<9>(d, a, b, c, w[10], K[21], gun);
    c = step::<14>(c, d, a, b, w[15], K[22], gun);
    b = step::<20>(b, c, d, a, w[4], K[23], gun);
    a = step::<5>(a, b, c, d, w[9], K[24], gun);
    d = step::<9>(d, a, b, c, w[14], K[25], gun);
    c = step::<14>(c, d, a, b, w[3], K[26], gun);
    b = step::<20>(b, c, d, a, w[8], K[27], gun);
    a = step::<5>(a, b, c, d, w[13], K[28], gun);
    d = step::<9>(d, a, b, c, w[2], K[29], gun);
    c = step::<14>(c, d, a, b, w[7], K[30], gun);
    b = step::<20>(b, c, d, a, w[12], K[31], gun);
    a = step::<4>(a, b, c, d, w[5], K[32], hun);
    d = step::<11>(d, a, b, c, w[8], K[33], hun);
    c = step::<16>(c, d, a, b, w[11], K[34], hun);
    b = step::<23>(b, c, d, a, w[14], K[35], hun);
    a = step::<4>(a, b, c, d, w[1], K[36], hun);
    d = step::<11>(d, a, b, c, w[4], K[37], hun);
    c = step::<16>(c, d, a, b, w[7], K[38], hun);
    b = step::<23>(b, c, d, a, w[10], K[39], hun);
    a = step::<4>(a, b, c, d, w[13], K[40], hun);
    d = step::<11>(d, a, b, c, w[0], K[41], hun);
    c = step::<16>(c, d, a, b, w[3], K[42], hun);
    b = step::<23>(b, c, d, a, w[6], K[43], hun);
    a = step::<4>(a, b, c, d, w[9], K[44], hun);
    d = step::<11>(d, a, b, c, w[12], K[45], hun);
    c = step::<16>(c, d, a, b, w[15], K[46], hun);
    b = step::<23>(b, c, d, a, w[2], K[47], hun);
    a = step::<6>(a, b, c, d, w[0], K[48], iun);
    d = step::<10>(d, a, b, c, w[7], K[49], iun);
    c = step::<15>(c, d, a, b, w[14], K[50], iun);
    b = step::<21>(b, c, d, a, w[5], K[51], iun);
    a = step::<6>(a, b, c, d, w[12], K[52], iun);
    d = step::<10>(d, a, b, c, w[3], K[53], iun);
    c = step::<15>(c, d, a, b, w[10], K[54], iun);
    b = step::<21>(b, c, d, a, w[1], K[55], iun);
    a = step::<6>(a, b, c, d, w[8], K[56], iun);
    d = step::<10>(d, a, b, c, w[15], K[57], iun);
    c = step::<15>(c, d, a, b, w[6], K[58], iun);
    b = step::<21>(b, c, d, a, w[13], K[59], iun);
    a = step::<6>(a, b, c, d, w[4], K[60], iun);
    d = step::<10>(d, a, b, c, w[11], K[61], iun);
    c = step::<15>(c, d, a, b, w[2], K[62], iun);
    b = step::<21>(b, c, d, a, w[9], K[63], iun);
    for l in 0..msgs.len() {
        let x = a[l].wrapping_add(init[0]);
        let y = b[l].wrapping_add(init[1]);
        out[l] = (u64::from(x.swap_bytes()) << 32) | u64::from(y.swap_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use md5::Digest;

    #[test]
    fn every_lane_matches_the_streaming_hasher() {
        let texts: Vec<Vec<u8>> = (0..=MAX_LEN)
            .map(|len| {
                (0..len)
                    .map(|i| b'!' + ((i * 7 + len) % 90) as u8)
                    .collect()
            })
            .collect();
        for chunk in texts.chunks(LANES - 1).chain(texts.chunks(LANES)) {
            let msgs: Vec<&[u8]> = chunk.iter().map(Vec::as_slice).collect();
            let mut out = [0u64; LANES];
            md5_64_lanes(&msgs, &mut out);
            for (msg, got) in msgs.iter().zip(out) {
                let digest = md5::Md5::digest(msg);
                let mut first = [0u8; 8];
                first.copy_from_slice(&digest[..8]);
                assert_eq!(got, u64::from_be_bytes(first), "{msg:?}");
            }
        }
    }
}
