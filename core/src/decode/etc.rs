//! ETC2 and EAC blocks, written from the Khronos Data Format Specification 1.3, section "ETC2
//! Compressed Texture Image Formats" (the text of the OpenGL ES 3.0 specification's annex C):
//! RGB ETC2 (individual, differential, T, H and planar modes), RGB ETC2 with punchthrough
//! alpha, RGBA ETC2 (an EAC alpha block, then an RGB ETC2 block) and unsigned R11 / RG11 EAC.
//!
//! Every block is a big-endian 64-bit word: "int64bit = 256 x (256 x ... q0 + q1) ...) + q7",
//! the first byte its bits 63..56. Pixels are named down the columns: pixel `j = 4 x + y`
//! (a, b, c, d is the first column). Tables are fixed-size arrays indexed by masked values,
//! so no block, whatever its bits, can index out of bounds.

use super::Texels;

/// The intensity modifier tables of the individual and differential modes, by table
/// codeword: `[a, b]`, which pixel indices 0, 1, 2, 3 (msb, lsb) turn into `a`, `b`, `-a`, `-b`.
const MODIFIERS: [[i32; 2]; 8] = [[2, 8], [5, 17], [9, 29], [13, 42], [18, 60], [24, 80], [33, 106], [47, 183]];

/// The distance table of the T and H modes.
const DISTANCES: [i32; 8] = [3, 6, 11, 16, 23, 32, 41, 64];

/// EAC's modifier tables, by table index; a pixel index 0..7 picks one entry.
const EAC_MODIFIERS: [[i32; 8]; 16] = [
    [-3, -6, -9, -15, 2, 5, 8, 14],
    [-3, -7, -10, -13, 2, 6, 9, 12],
    [-2, -5, -8, -13, 1, 4, 7, 12],
    [-2, -4, -6, -13, 1, 3, 5, 12],
    [-3, -6, -8, -12, 2, 5, 7, 11],
    [-3, -7, -9, -11, 2, 6, 8, 10],
    [-4, -7, -8, -11, 3, 6, 7, 10],
    [-3, -5, -8, -11, 2, 4, 7, 10],
    [-2, -6, -8, -10, 1, 5, 7, 9],
    [-2, -5, -8, -10, 1, 4, 7, 9],
    [-2, -4, -8, -10, 1, 3, 7, 9],
    [-2, -5, -7, -10, 1, 4, 6, 9],
    [-3, -4, -7, -10, 2, 3, 6, 9],
    [-1, -2, -3, -10, 0, 1, 2, 9],
    [-4, -6, -8, -9, 3, 5, 7, 8],
    [-3, -5, -7, -9, 2, 4, 6, 8],
];

/// `n` bits of `word` whose most significant bit is bit `msb` (bit 63: the top of the
/// first byte).
const fn field(word: u64, msb: u32, n: u32) -> i32 {
    ((word >> (msb + 1 - n)) & ((1 << n) - 1)) as i32
}

/// 4 bits to 8 by replication (`x * 17`).
const fn ext4(x: i32) -> i32 {
    (x << 4) | x
}

/// 5 bits to 8: the top three bits replicated below.
const fn ext5(x: i32) -> i32 {
    (x << 3) | (x >> 2)
}

/// 6 bits to 8: the top two bits replicated below.
const fn ext6(x: i32) -> i32 {
    (x << 2) | (x >> 4)
}

/// 7 bits to 8: the top bit replicated below.
const fn ext7(x: i32) -> i32 {
    (x << 1) | (x >> 6)
}

/// A 3-bit two's-complement value (-4..=3).
const fn signed3(x: i32) -> i32 {
    if x >= 4 {
        x - 8
    } else {
        x
    }
}

fn clamp255(v: i32) -> u8 {
    v.clamp(0, 255) as u8
}

/// The 2-bit pixel index of texel `(x, y)` of an ETC2 RGB block: its msb in bit `16 + j`, its
/// lsb in bit `j`, for pixel `j = 4 x + y`.
fn pixel_index(word: u64, x: usize, y: usize) -> usize {
    let j = (4 * x + y) & 15;
    ((((word >> (16 + j)) & 1) << 1) | ((word >> j) & 1)) as usize
}

/// Writes texel `(x, y)` of a 4x4 block.
fn put(out: &mut Texels, x: usize, y: usize, rgba: [u8; 4]) {
    if let Some(t) = out.get_mut(y * 4 + x) {
        *t = rgba;
    }
}

/// An opaque texel of `rgb`, each channel clamped to 0..=255.
fn opaque_texel(rgb: [i32; 3]) -> [u8; 4] {
    let [r, g, b] = rgb.map(clamp255);
    [r, g, b, 255]
}

/// A punchthrough alpha texel: `(0, 0, 0, 0)`.
const TRANSPARENT: [u8; 4] = [0; 4];

/// An RGB ETC2 block (8 bytes), or, when `punchthrough`, an RGB ETC2 block with punchthrough
/// alpha, into `out` (4 texels a row).
///
/// Bit 33 is the `diff` bit of RGB ETC2 (0: the individual mode) and the `opaque` bit of the
/// punchthrough format, which has no individual mode. Otherwise the 5-bit R, G, B and the
/// 3-bit two's-complement dR, dG, dB choose the mode: "if R + dR is not within [0, 31], the T
/// mode is selected. Otherwise, if G + dG is outside [0, 31], the H mode. Otherwise, if B + dB
/// is outside [0, 31], the planar mode", else the differential mode.
pub(super) fn etc2_rgb(block: &[u8; 8], punchthrough: bool, out: &mut Texels) {
    let word = u64::from_be_bytes(*block);
    let bit33 = field(word, 33, 1) == 1;
    // "If the opaque bit is zero, ... if MSB == 1 and LSB == 0, the alpha value will be zero"
    // and "the red, green and blue components will also be zero" (differential, T and H).
    let opaque = !punchthrough || bit33;
    if !punchthrough && !bit33 {
        // Individual: two 4-bit base colours, R1 R2 G1 G2 B1 B2 from bit 63 down.
        let base1 = [field(word, 63, 4), field(word, 55, 4), field(word, 47, 4)].map(ext4);
        let base2 = [field(word, 59, 4), field(word, 51, 4), field(word, 43, 4)].map(ext4);
        subblocks(word, [base1, base2], true, out);
        return;
    }
    let (r, g, b) = (field(word, 63, 5), field(word, 55, 5), field(word, 47, 5));
    let (dr, dg, db) = (signed3(field(word, 58, 3)), signed3(field(word, 50, 3)), signed3(field(word, 42, 3)));
    let in_range = |v: i32| (0..=31).contains(&v);
    if !in_range(r + dr) {
        // T: base colour 1 is R1a (bits 60..59) R1b (57..56), G1 (55..52), B1 (51..48); base
        // colour 2 is R2, G2, B2 (47..36); the distance index is da (35..34) and db (32).
        let c1 = [(field(word, 60, 2) << 2) | field(word, 57, 2), field(word, 55, 4), field(word, 51, 4)].map(ext4);
        let c2 = [field(word, 47, 4), field(word, 43, 4), field(word, 39, 4)].map(ext4);
        let d = DISTANCES[((field(word, 35, 2) << 1) | field(word, 32, 1)) as usize & 7];
        paint(word, [c1, c2.map(|c| c + d), c2, c2.map(|c| c - d)], opaque, out);
    } else if !in_range(g + dg) {
        // H: base colour 1 is R1 (62..59), G1a (58..56) G1b (52), B1a (51) B1b (49..47); base
        // colour 2 is R2, G2, B2 (46..35). The distance index is da (34), db (32) and, as its
        // least significant bit, "base col 1 value >= base col 2 value", a colour's value being
        // (R << 16) + (G << 8) + B.
        let c1 = [
            field(word, 62, 4),
            (field(word, 58, 3) << 1) | field(word, 52, 1),
            (field(word, 51, 1) << 3) | field(word, 49, 3),
        ]
        .map(ext4);
        let c2 = [field(word, 46, 4), field(word, 42, 4), field(word, 38, 4)].map(ext4);
        let value = |c: [i32; 3]| (c[0] << 16) + (c[1] << 8) + c[2];
        let index = (field(word, 34, 1) << 2) | (field(word, 32, 1) << 1) | i32::from(value(c1) >= value(c2));
        let d = DISTANCES[index as usize & 7];
        paint(word, [c1.map(|c| c + d), c1.map(|c| c - d), c2.map(|c| c + d), c2.map(|c| c - d)], opaque, out);
    } else if !in_range(b + db) {
        // Planar: always opaque ("should the opaque bit anyway be 0 the decoder should treat
        // it as if it were 1").
        planar(word, out);
    } else {
        // Differential: base colour 2 is base colour 1 plus the deltas, in 5 bits.
        let base1 = [r, g, b].map(ext5);
        let base2 = [r + dr, g + dg, b + db].map(ext5);
        subblocks(word, [base1, base2], opaque, out);
    }
}

/// The individual and differential modes: two subblocks (side by side, 2x4, when the flip bit
/// 32 is 0; on top of each other, 4x2, when it is 1), each a base colour plus the modifier of
/// its table codeword (bits 39..37 for subblock 1, 36..34 for subblock 2) that the pixel index
/// picks. Without `opaque` (punchthrough alpha, opaque bit 0) the small modifiers `a` and `-a`
/// are 0 and index 2 (msb 1, lsb 0) is transparent black.
fn subblocks(word: u64, base: [[i32; 3]; 2], opaque: bool, out: &mut Texels) {
    let flip = field(word, 32, 1) == 1;
    let tables = [field(word, 39, 3), field(word, 36, 3)];
    for x in 0..4 {
        for y in 0..4 {
            let sub = usize::from(if flip { y >= 2 } else { x >= 2 });
            let index = pixel_index(word, x, y);
            if !opaque && index == 2 {
                put(out, x, y, TRANSPARENT);
                continue;
            }
            let [a, b] = MODIFIERS[tables[sub] as usize & 7];
            let a = if opaque { a } else { 0 };
            let modifier = [a, b, -a, -b][index & 3];
            put(out, x, y, opaque_texel(base[sub].map(|c| c + modifier)));
        }
    }
}

/// The T and H modes: the pixel index picks one of four paint colours (clamped); without
/// `opaque`, index 2 is transparent black.
fn paint(word: u64, colours: [[i32; 3]; 4], opaque: bool, out: &mut Texels) {
    for x in 0..4 {
        for y in 0..4 {
            let index = pixel_index(word, x, y);
            let texel = if !opaque && index == 2 { TRANSPARENT } else { opaque_texel(colours[index & 3]) };
            put(out, x, y, texel);
        }
    }
}

/// The planar mode: colours O, H and V in RGB 676 (BO and GO and RH split over several bit
/// ranges), and each texel `clamp255((x (H - O) + y (V - O) + 4 O + 2) >> 2)`.
fn planar(word: u64, out: &mut Texels) {
    let o = [
        ext6(field(word, 62, 6)),
        ext7((field(word, 56, 1) << 6) | field(word, 54, 6)),
        ext6((field(word, 48, 1) << 5) | (field(word, 44, 2) << 3) | field(word, 41, 3)),
    ];
    let h = [ext6((field(word, 38, 5) << 1) | field(word, 32, 1)), ext7(field(word, 31, 7)), ext6(field(word, 24, 6))];
    let v = [ext6(field(word, 18, 6)), ext7(field(word, 12, 7)), ext6(field(word, 5, 6))];
    for x in 0..4 {
        for y in 0..4 {
            let (xi, yi) = (x as i32, y as i32);
            let rgb: [i32; 3] = std::array::from_fn(|c| (xi * (h[c] - o[c]) + yi * (v[c] - o[c]) + 4 * o[c] + 2) >> 2);
            put(out, x, y, opaque_texel(rgb));
        }
    }
}

/// The 16 values of an EAC block (8 bytes, big-endian: the base codeword in bits 63..56, the
/// multiplier in 55..52, the table index in 51..48, then a 3-bit pixel index for each pixel,
/// pixel a's in bits 47..45, msb first), row-major, through `value(base, multiplier,
/// modifier)`.
fn eac(block: &[u8; 8], value: impl Fn(i32, i32, i32) -> i32) -> [i32; 16] {
    let word = u64::from_be_bytes(*block);
    let (base, multiplier) = (field(word, 63, 8), field(word, 55, 4));
    let table = EAC_MODIFIERS[field(word, 51, 4) as usize & 15];
    std::array::from_fn(|i| {
        let (x, y) = (i % 4, i / 4);
        let j = (4 * x + y) as u32 & 15;
        let modifier = table[field(word, 47 - 3 * j, 3) as usize & 7];
        value(base, multiplier, modifier)
    })
}

/// An 8-bit EAC alpha value: `clamp255(base_codeword + modifier x multiplier)` (a multiplier
/// of 0 gives the base codeword: "0 x modifier = 0").
fn alpha8(base: i32, multiplier: i32, modifier: i32) -> i32 {
    (base + modifier * multiplier).clamp(0, 255)
}

/// An unsigned R11 EAC value, 0..=2047: `clamp2(base_codeword x 8 + 4 + modifier x multiplier x
/// 8)`, or, for a multiplier of 0 ("set the multiplier to 1/8"), `base_codeword x 8 + 4 +
/// modifier`.
fn r11(base: i32, multiplier: i32, modifier: i32) -> i32 {
    let scaled = if multiplier == 0 { modifier } else { modifier * multiplier * 8 };
    (base * 8 + 4 + scaled).clamp(0, 2047)
}

/// An 11-bit unsigned value (0..=2047, meaning `v / 2047`) as the 8-bit value a GPU writes to
/// an RGBA8 target: `v x 255 / 2047` rounded to nearest.
pub(super) fn r11_to_u8(v: i32) -> u8 {
    ((v.clamp(0, 2047) * 255 + 1023) / 2047) as u8
}

/// An RGBA ETC2 block (16 bytes): an EAC alpha block, then an RGB ETC2 block.
pub(super) fn etc2_rgba(block: &[u8; 16], out: &mut Texels) {
    let (alpha, colour) = split(block);
    etc2_rgb(&colour, false, out);
    for (t, a) in out.iter_mut().zip(eac(&alpha, alpha8)) {
        t[3] = a as u8;
    }
}

/// An unsigned R11 EAC block (8 bytes) as `(r, 0, 0, 255)`.
pub(super) fn eac_r11(block: &[u8; 8], out: &mut Texels) {
    for (t, r) in out.iter_mut().zip(eac(block, r11)) {
        *t = [r11_to_u8(r), 0, 0, 255];
    }
}

/// An unsigned RG11 EAC block (16 bytes: red's EAC block, then green's) as `(r, g, 0, 255)`.
pub(super) fn eac_rg11(block: &[u8; 16], out: &mut Texels) {
    let (red, green) = split(block);
    for ((t, r), g) in out.iter_mut().zip(eac(&red, r11)).zip(eac(&green, r11)) {
        *t = [r11_to_u8(r), r11_to_u8(g), 0, 255];
    }
}

/// The two 8-byte halves of a 16-byte block.
fn split(block: &[u8; 16]) -> ([u8; 8], [u8; 8]) {
    let mut halves = ([0; 8], [0; 8]);
    for (i, b) in block.iter().enumerate() {
        if i < 8 {
            halves.0[i & 7] = *b;
        } else {
            halves.1[i & 7] = *b;
        }
    }
    halves
}
