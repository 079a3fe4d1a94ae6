//! ASTC LDR blocks through astc-decode (a pure-Rust port of Android's astc-codec decoder), for
//! any of the 14 2D footprints: [`decode_block`] takes the footprint, so a new ASTC format is a
//! match arm in [`super::BlockDecoder::of`].
//!
//! astc-decode checks a block's encoding as the ASTC specification lists the illegal ones
//! (reserved block modes, a weight grid larger than the block, more than 64 weights, weight
//! bits outside 24..=96, more than 18 colour values or too few bits for them, dual plane with
//! four partitions, an HDR void-extent block in the LDR profile) and decodes those to the error
//! colour, magenta. It leaves out one: "the minimum coordinates [of a void-extent block] must be
//! strictly less than the maximum coordinates, or an error results", unless all four are all 1s
//! (no extent). That check is made here first.
//!
//! Two bugs of astc-decode 0.3.1 with multi-partition blocks are worked around by rewriting
//! the block first ([`prepared`]), in ways the specification says cannot change what it
//! decodes to. Both were found by comparing with astcenc and llvmpipe (`tests/
//! decode_conformance.rs`): 400 of 65536 random blocks decoded wrongly, 0 after.
//!
//! - HDR endpoint modes (CEM 2, 3, 7, 11, 14, 15) decode to the error colour in the LDR profile
//!   ("HDR endpoint mode results: error color"), texel by texel: the partitions that use them
//!   are magenta, the others decode as usual (as Mesa's and astcenc's decoders do).
//!   astc-decode gives an HDR partition magenta endpoints but consumes none of its colour
//!   values, so the partitions after it read the wrong ones. Such a block is decoded with each
//!   HDR mode replaced by the LDR mode of its class (a class `k` mode has `2 (k + 1)` values
//!   whatever the mode: same layout, same legality), then the texels of the HDR partitions are
//!   set to the error colour, their partition chosen by the specification's partition function.
//! - The colour endpoint bits past the block's integer sequence are "not read by the decoding
//!   process and can have any value", and a final trit or quint block with too few bits has
//!   its "unused (higher order) bits ... assumed to be 0". astc-decode reads that final block
//!   on into the unallocated bits; they are cleared first.
//!
//! 8-bit output: astc-decode rounds the 16-bit interpolation `C` as `(255 C + 32767) >> 16`.
//! The specification's default for LDR (`C / 65536` to FP16, rounded to zero, then written to
//! an 8-bit target) differs from that for 2574 of the 65536 values of `C`, by 1; Mesa
//! (llvmpipe) and astcenc keep the top 8 bits (`decode_unorm8`), which differ from it for 17716,
//! by 1. For sRGB formats the specification expands endpoints as `(e << 8) | 0x80` and keeps the
//! top 8 bits; astc-decode decodes them as linear, within 1 of that (2.3% of endpoint and
//! weight combinations).

use super::{Texels, ERROR_COLOUR};
use astc_decode::Footprint;

/// The footprint `width` x `height` if the ASTC specification defines it for 2D blocks.
fn footprint(width: u32, height: u32) -> Option<Footprint> {
    Some(match (width, height) {
        (4, 4) => Footprint::ASTC_4X4,
        (5, 4) => Footprint::ASTC_5X4,
        (5, 5) => Footprint::ASTC_5X5,
        (6, 5) => Footprint::ASTC_6X5,
        (6, 6) => Footprint::ASTC_6X6,
        (8, 5) => Footprint::ASTC_8X5,
        (8, 6) => Footprint::ASTC_8X6,
        (8, 8) => Footprint::ASTC_8X8,
        (10, 5) => Footprint::ASTC_10X5,
        (10, 6) => Footprint::ASTC_10X6,
        (10, 8) => Footprint::ASTC_10X8,
        (10, 10) => Footprint::ASTC_10X10,
        (12, 10) => Footprint::ASTC_12X10,
        (12, 12) => Footprint::ASTC_12X12,
        _ => return None,
    })
}

/// Whether `block` is an LDR void-extent block (block mode bits 8..0 `1_1111_1100`, bit 9
/// clear) whose extent is illegal: some coordinate not all 1s, and a minimum not below its
/// maximum (S from bits 12..37, T from bits 38..63, 13 bits each).
fn illegal_void_extent(block: &[u8; 16]) -> bool {
    let bits = u128::from_le_bytes(*block);
    let coordinate = |at: u32| ((bits >> at) & 0x1FFF) as u32;
    if bits & 0x1FF != 0x1FC || bits & 0x200 != 0 {
        return false;
    }
    let [s_min, s_max, t_min, t_max] = [12, 25, 38, 51].map(coordinate);
    let none = [s_min, s_max, t_min, t_max].iter().all(|&c| c == 0x1FFF);
    !none && (s_min >= s_max || t_min >= t_max)
}

/// The weight bits of a 2D block mode (bits 10..0 of the block), from the specification's
/// "2D block mode layout" and "weight range encodings" tables, and whether it is dual-plane;
/// `None` for the reserved and void-extent modes.
fn weight_bits(bits: u128) -> Option<(u32, bool)> {
    let m = (bits & 0x7FF) as u32;
    let bit = |i: u32| (m >> i) & 1;
    let (a, b) = ((m >> 5) & 3, (m >> 7) & 3);
    // R = R2 R1 R0; H (bit 9) picks the high-precision ranges; D (bit 10) is dual plane.
    let (width, height, r, high, dual) = if m & 3 != 0 {
        let (w, h) = match (m >> 2) & 3 {
            0 => (b + 4, a + 2),
            1 => (b + 8, a + 2),
            2 => (a + 2, b + 8),
            _ if bit(8) == 0 => (a + 2, (b & 1) + 6),
            _ => ((b & 1) + 2, a + 2),
        };
        (w, h, ((m & 3) << 1) | bit(4), bit(9), bit(10))
    } else {
        if m & 0xF == 0 || (m >> 6) & 7 == 7 {
            return None;
        }
        let r = (((m >> 2) & 3) << 1) | bit(4);
        match b {
            0 => (12, a + 2, r, bit(9), bit(10)),
            1 => (a + 2, 12, r, bit(9), bit(10)),
            3 if bit(5) == 0 => (6, 10, r, bit(9), bit(10)),
            3 => (10, 6, r, bit(9), bit(10)),
            _ => (a + 6, ((m >> 9) & 3) + 6, r, 0, 0),
        }
    };
    // (trits, quints, bits) of each weight, by R (2..=7) and H.
    let (trits, quints, plain) = match (r, high) {
        (2, 0) => (0, 0, 1),
        (3, 0) => (1, 0, 0),
        (4, 0) => (0, 0, 2),
        (5, 0) => (0, 1, 0),
        (6, 0) => (1, 0, 1),
        (7, 0) => (0, 0, 3),
        (2, _) => (0, 1, 1),
        (3, _) => (1, 0, 2),
        (4, _) => (0, 0, 4),
        (5, _) => (0, 1, 2),
        (6, _) => (1, 0, 3),
        (7, _) => (0, 0, 5),
        _ => return None,
    };
    let n = width * height * (dual + 1);
    Some((ise_bits(n, (trits, quints, plain)), dual == 1))
}

/// Bits of `n` values of an integer sequence encoding of `(trits, quints, bits)`:
/// `ceil(8 n trits / 5) + ceil(7 n quints / 3) + n bits`.
const fn ise_bits(n: u32, (trits, quints, bits): (u32, u32, u32)) -> u32 {
    (n * 8 * trits).div_ceil(5) + (n * 7 * quints).div_ceil(3) + n * bits
}

/// The colour endpoint ranges, smallest first, as `(trits, quints, bits)`: 0..5, 0..7, 0..9,
/// ..., 0..255 (the specification's color unquantization table).
const COLOUR_RANGES: [(u32, u32, u32); 17] = [
    (1, 0, 1),
    (0, 0, 3),
    (0, 1, 1),
    (1, 0, 2),
    (0, 0, 4),
    (0, 1, 2),
    (1, 0, 3),
    (0, 0, 5),
    (0, 1, 3),
    (1, 0, 4),
    (0, 0, 6),
    (0, 1, 4),
    (1, 0, 5),
    (0, 0, 7),
    (0, 1, 5),
    (1, 0, 6),
    (0, 0, 8),
];

/// Whether a colour endpoint mode is one of the HDR modes.
const fn is_hdr(cem: u32) -> bool {
    matches!(cem, 2 | 3 | 7 | 11 | 14 | 15)
}

/// The partitions of a block that use HDR endpoint modes: the partition count, pattern index
/// and which of them.
#[derive(Clone, Copy, Debug)]
struct HdrPartitions {
    count: u32,
    seed: u32,
    hdr: [bool; 4],
}

/// `bits` as astc-decode must see it to decode as the specification says, and the partitions
/// whose texels are the error colour (HDR endpoint modes in a block whose partitions mix
/// modes). Two rewrites, neither of which changes what the block means:
///
/// - Every HDR endpoint mode of such a block becomes the LDR mode of its class (its two mode
///   bits `M` cleared: CEM 0, 4, 8 or 12), so that astc-decode reads the right colour values
///   for the partitions after it (it consumes none for an HDR mode).
/// - The colour endpoint bits past the integer sequence of the block's values are cleared: "in
///   cases where this procedure results in unallocated bits, these bits are not read by the
///   decoding process and can have any value", and "if there are insufficient bits in the
///   stream to fill the final block [of trits or quints], then unused (higher order) bits are
///   assumed to be 0". astc-decode reads the final, partial trit or quint block on into those
///   unallocated bits, which changes its values when they are not 0.
///
/// Void-extent, reserved and otherwise illegal blocks come back as they are: astc-decode
/// decodes them to the error colour itself.
fn prepared(bits: u128) -> (u128, Option<HdrPartitions>) {
    let Some((weights, dual)) = (bits & 0x1FF != 0x1FC).then(|| weight_bits(bits)).flatten() else {
        return (bits, None);
    };
    let bit = |at: u32| ((bits >> at) & 1) as u32;
    let count = ((bits >> 11) & 3) as u32 + 1;
    let selector = ((bits >> 23) & 3) as u32;
    let plane_bits = if dual { 2 } else { 0 };
    // The endpoint modes, and where each multi-mode partition's two M bits are: bits 25..28
    // hold the class bits C and M0 (or its low bit); the rest sit directly below the weights
    // (M1 for 2 partitions; M0's high bit, M1, M2 for 3; M0..M3 for 4).
    let (config_bits, colour_start, cems, m_bits) = if count == 1 {
        (17, 17, [((bits >> 13) & 0xF) as u32; 4], None)
    } else if selector == 0 {
        (29, 29, [((bits >> 25) & 0xF) as u32; 4], None)
    } else {
        let extra = 3 * count - 4;
        let Some(below) = 128u32.checked_sub(weights + extra) else { return (bits, None) };
        let m: [[u32; 2]; 4] = match count {
            2 => [[27, 28], [below, below + 1], [0; 2], [0; 2]],
            3 => [[28, below], [below + 1, below + 2], [below + 3, below + 4], [0; 2]],
            _ => [[below, below + 1], [below + 2, below + 3], [below + 4, below + 5], [below + 6, below + 7]],
        };
        let mut cems = [0; 4];
        for (i, (cem, [lo, hi])) in cems.iter_mut().zip(m).enumerate().take(count as usize) {
            *cem = ((selector - 1 + bit(25 + i as u32)) << 2) | (bit(hi) << 1) | bit(lo);
        }
        (25 + 3 * count, 29, cems, Some(m))
    };
    let Some(remaining) = 128u32.checked_sub(config_bits + plane_bits + weights) else { return (bits, None) };
    let mut out = bits;
    // 1. HDR modes in a block whose partitions mix modes.
    let mut hdr = HdrPartitions { count, seed: ((bits >> 13) & 0x3FF) as u32, hdr: [false; 4] };
    if let Some(m) = m_bits {
        for ((hdr, cem), [lo, hi]) in hdr.hdr.iter_mut().zip(cems).zip(m).take(count as usize) {
            if is_hdr(cem) {
                *hdr = true;
                out &= !((1u128 << lo) | (1u128 << hi));
            }
        }
    }
    // 2. The unallocated colour endpoint bits: past the sequence of `values` in the largest
    // range that fits the remaining bits.
    let values: u32 = cems.iter().take(count as usize).map(|cem| 2 * ((cem >> 2) + 1)).sum();
    let used = COLOUR_RANGES.iter().rev().map(|&range| ise_bits(values, range)).find(|&b| b <= remaining);
    if let Some(used) = used.filter(|_| values <= 18) {
        let (from, to) = (colour_start + used, colour_start + remaining);
        if to <= 128 && from < to {
            let unallocated = if to - from >= 128 { u128::MAX } else { ((1u128 << (to - from)) - 1) << from };
            out &= !unallocated;
        }
    }
    (out, hdr.hdr.contains(&true).then_some(hdr))
}

/// The specification's `hash52`, on 32-bit values.
fn hash52(p: u32) -> u32 {
    let mut p = p;
    p ^= p >> 15;
    p = p.wrapping_sub(p << 17);
    p = p.wrapping_add(p << 7);
    p = p.wrapping_add(p << 4);
    p ^= p >> 5;
    p = p.wrapping_add(p << 16);
    p ^= p >> 7;
    p ^= p >> 3;
    p ^= p << 6;
    p ^= p >> 17;
    p
}

/// The specification's `select_partition` for a 2D block (z = 0): the partition of texel
/// `(x, y)` of a block with `count` partitions and pattern index `seed`; `small` when the block
/// has fewer than 31 texels.
fn select_partition(seed: u32, x: u32, y: u32, count: u32, small: bool) -> usize {
    let (x, y) = if small { (x << 1, y << 1) } else { (x, y) };
    let seed = seed + (count - 1) * 1024;
    let rnum = hash52(seed);
    let nibble = |shift: u32| (rnum >> shift) & 0xF;
    let mut s = [
        nibble(0),
        nibble(4),
        nibble(8),
        nibble(12),
        nibble(16),
        nibble(20),
        nibble(24),
        nibble(28),
        nibble(18),
        nibble(22),
        nibble(26),
        // `(rnum >> 30) | (rnum << 2)`: rnum rotated left by 2.
        rnum.rotate_left(2) & 0xF,
    ]
    .map(|v| v * v);
    let (sh1, sh2) = if seed & 1 != 0 {
        (if seed & 2 != 0 { 4 } else { 5 }, if count == 3 { 6 } else { 5 })
    } else {
        (if count == 3 { 6 } else { 5 }, if seed & 2 != 0 { 4 } else { 5 })
    };
    let sh3 = if seed & 0x10 != 0 { sh1 } else { sh2 };
    for (i, v) in s.iter_mut().enumerate() {
        // seed1..seed8 alternate sh1, sh2; seed9..seed12 take sh3.
        *v >>= if i >= 8 {
            sh3
        } else if i % 2 == 0 {
            sh1
        } else {
            sh2
        };
    }
    // (z = 0: the seed11, seed12, seed9 and seed10 terms vanish.)
    let a = (s[0] * x + s[1] * y + (rnum >> 14)) & 0x3F;
    let b = (s[2] * x + s[3] * y + (rnum >> 10)) & 0x3F;
    let c = if count < 3 { 0 } else { (s[4] * x + s[5] * y + (rnum >> 6)) & 0x3F };
    let d = if count < 4 { 0 } else { (s[6] * x + s[7] * y + (rnum >> 2)) & 0x3F };
    if a >= b && a >= c && a >= d {
        0
    } else if b >= c && b >= d {
        1
    } else if c >= d {
        2
    } else {
        3
    }
}

/// Decodes one ASTC LDR block of a `width` x `height` footprint into `out` (`width` texels a
/// row): the texels, or the error colour for an illegal block (and for a footprint the
/// specification has not, which no format asks for). Returns whether the block was legal.
pub(super) fn decode_block(block: &[u8; 16], width: u32, height: u32, out: &mut Texels) -> bool {
    let texels = (width as usize).saturating_mul(height as usize);
    let Some(footprint) = footprint(width, height) else {
        out.iter_mut().take(texels).for_each(|t| *t = ERROR_COLOUR);
        return false;
    };
    if illegal_void_extent(block) {
        out.iter_mut().take(texels).for_each(|t| *t = ERROR_COLOUR);
        return false;
    }
    let (input, hdr) = prepared(u128::from_le_bytes(*block));
    let small = texels < 31;
    astc_decode::astc_decode_block(&input.to_le_bytes(), footprint, |x, y, rgba| {
        let i = (y as usize).saturating_mul(width as usize).saturating_add(x as usize);
        let in_hdr = hdr.is_some_and(|h| h.hdr[select_partition(h.seed, x, y, h.count, small) & 3]);
        if let Some(t) = out.get_mut(i) {
            *t = if in_hdr { ERROR_COLOUR } else { rgba };
        }
    })
}
