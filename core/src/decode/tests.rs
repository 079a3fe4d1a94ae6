//! Known answers worked out by hand from the format specifications (the working is in the
//! comments: none of these numbers came from running a decoder), and a no-panic sweep of
//! random blocks through every format and every ASTC footprint.

use super::{astc, decode_rgba8, BlockDecoder, DecodeError, MAX_BLOCK_TEXELS};
use crate::test_rng::Rng;
use crate::Format;

/// The 16 texels of one 4x4 block of `format`, row-major.
fn block(format: Format, bytes: &[u8]) -> Vec<[u8; 4]> {
    let rgba = decode_rgba8(format, 4, 4, bytes).unwrap();
    rgba.chunks_exact(4).map(|t| [t[0], t[1], t[2], t[3]]).collect()
}

/// Texel `(x, y)` of a decoded 4x4 block.
fn at(texels: &[[u8; 4]], x: usize, y: usize) -> [u8; 4] {
    texels[y * 4 + x]
}

/// The expected block: `rows[y][x]`.
fn rows(rows: [[[u8; 4]; 4]; 4]) -> Vec<[u8; 4]> {
    rows.iter().flatten().copied().collect()
}

// --- BC1 / BC3 (S3TC) ---------------------------------------------------------------------
// A colour block: color0 and color1 as little-endian RGB565, then 32 bits of 2-bit indices,
// texel i (row-major) in bits 2i..2i+1. 565 expands by bit replication: 5-bit 31 -> 255,
// 16 -> 132, 8 -> 66; 6-bit 32 -> 130.

#[test]
fn bc1_four_colour_mode() {
    // color0 = 0xF800 (255, 0, 0) > color1 = 0x001F (0, 0, 255): four colours,
    // color2 = 2/3 c0 + 1/3 c1 = (170, 0, 85), color3 = 1/3 c0 + 2/3 c1 = (85, 0, 170).
    // Row 0 has indices 0, 1, 2, 3: 0b11_10_01_00 = 0xE4; the other rows index 0.
    let texels = block(Format::Bc1RgbaUnorm, &[0x00, 0xF8, 0x1F, 0x00, 0xE4, 0, 0, 0]);
    let c0 = [255, 0, 0, 255];
    assert_eq!(texels, rows([[c0, [0, 0, 255, 255], [170, 0, 85, 255], [85, 0, 170, 255]], [c0; 4], [c0; 4], [c0; 4]]));
}

#[test]
fn bc1_three_colour_mode_has_transparent_index_3() {
    // color0 = 0x0000 (0, 0, 0) <= color1 = 0x8408 (r 16, g 32, b 8: (132, 130, 66)): three
    // colours, color2 = (c0 + c1) / 2 = (66, 65, 33), and index 3 is transparent black.
    let texels = block(Format::Bc1RgbaUnorm, &[0x00, 0x00, 0x08, 0x84, 0xE4, 0, 0, 0]);
    let c0 = [0, 0, 0, 255];
    assert_eq!(texels, rows([[c0, [132, 130, 66, 255], [66, 65, 33, 255], [0, 0, 0, 0]], [c0; 4], [c0; 4], [c0; 4]]));
    // The same block in BC1's sRGB format: the same bytes.
    assert_eq!(block(Format::Bc1RgbaUnormSrgb, &[0x00, 0x00, 0x08, 0x84, 0xE4, 0, 0, 0]), texels);
}

#[test]
fn bc3_colour_block_is_four_colour_whatever_the_endpoint_order() {
    // The issue's block: alpha 255 (both endpoints 255, indices 0); colour endpoints both
    // 0xF800 (color0 <= color1) and every index 3. Four-colour decoding ("as though color0 >
    // color1"): color3 = 1/3 c0 + 2/3 c1 = red. (Three-colour decoding would give black.)
    let issue = [0xff, 0xff, 0, 0, 0, 0, 0, 0, 0x00, 0xf8, 0x00, 0xf8, 0xff, 0xff, 0xff, 0xff];
    assert_eq!(block(Format::Bc3RgbaUnorm, &issue), vec![[255, 0, 0, 255]; 16]);
    // color0 = 0x001F (blue) < color1 = 0xF800 (red), row 0 indices 0, 1, 2, 3: blue, red,
    // 2/3 blue + 1/3 red = (85, 0, 170) (three-colour mode would give (128, 0, 128)), and
    // 1/3 blue + 2/3 red = (170, 0, 85). Alpha endpoints 255 and 0, every alpha index 0: 255.
    let texels = block(Format::Bc3RgbaUnorm, &[255, 0, 0, 0, 0, 0, 0, 0, 0x1F, 0x00, 0x00, 0xF8, 0xE4, 0, 0, 0]);
    let blue = [0, 0, 255, 255];
    assert_eq!(
        texels,
        rows([[blue, [255, 0, 0, 255], [85, 0, 170, 255], [170, 0, 85, 255]], [blue; 4], [blue; 4], [blue; 4]])
    );
}

#[test]
fn bc3_alpha_rounds_to_nearest() {
    // alpha0 = 10 > alpha1 = 0: alpha_i = ((8 - i) 10 + (i - 1) 0) / 7. Row 0 has codes 2, 3,
    // 4, 5: 60/7 = 8.57 -> 9, 50/7 = 7.14 -> 7, 40/7 = 5.71 -> 6, 30/7 = 4.29 -> 4 (3-bit codes
    // from bit 0: 2 | 3 << 3 | 4 << 6 | 5 << 9 = 0x0B1A); the rest code 0: 10. Colour: one
    // colour, white (0xFFFF both), every index 0.
    let bytes = [10, 0, 0x1A, 0x0B, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0];
    let a = |v| [255, 255, 255, v];
    assert_eq!(
        block(Format::Bc3RgbaUnorm, &bytes),
        rows([[a(9), a(7), a(6), a(4)], [a(10); 4], [a(10); 4], [a(10); 4]])
    );
}

// --- BC4 / BC5 (RGTC) -----------------------------------------------------------------------
// red0, red1, then 48 bits of 3-bit indices (little-endian), texel i in bits 3i..3i+2. Texels
// 0..7 get indices 0..7 here: sum(i << 3i) = 0xFAC688, bytes 0x88 0xC6 0xFA 0 0 0.

const INDICES_0_TO_7: [u8; 6] = [0x88, 0xC6, 0xFA, 0, 0, 0];

#[test]
fn bc4_eight_value_mode() {
    // red0 = 140 > red1 = 0: red_i = ((8 - i) red0 + (i - 1) red1) / 7 for i = 2..7:
    // 120, 100, 80, 60, 40, 20 (exact).
    let mut bytes = vec![140, 0];
    bytes.extend(INDICES_0_TO_7);
    let r = |v| [v, 0, 0, 255];
    let zero = r(140);
    assert_eq!(
        block(Format::Bc4RUnorm, &bytes),
        rows([[r(140), r(0), r(120), r(100)], [r(80), r(60), r(40), r(20)], [zero; 4], [zero; 4]])
    );
}

#[test]
fn bc4_six_value_mode() {
    // red0 = 0 <= red1 = 250: red_i = ((6 - i) red0 + (i - 1) red1) / 5 for i = 2..5:
    // 50, 100, 150, 200; red6 = 0, red7 = 255.
    let mut bytes = vec![0, 250];
    bytes.extend(INDICES_0_TO_7);
    let r = |v| [v, 0, 0, 255];
    assert_eq!(
        block(Format::Bc4RUnorm, &bytes),
        rows([[r(0), r(250), r(50), r(100)], [r(150), r(200), r(0), r(255)], [r(0); 4], [r(0); 4]])
    );
}

#[test]
fn bc5_red_eight_values_green_six() {
    // Red as bc4_eight_value_mode, green as bc4_six_value_mode, the same indices.
    let mut bytes = vec![140, 0];
    bytes.extend(INDICES_0_TO_7);
    bytes.extend([0, 250]);
    bytes.extend(INDICES_0_TO_7);
    let rg = |r, g| [r, g, 0, 255];
    assert_eq!(
        block(Format::Bc5RgUnorm, &bytes),
        rows([
            [rg(140, 0), rg(0, 250), rg(120, 50), rg(100, 100)],
            [rg(80, 150), rg(60, 200), rg(40, 0), rg(20, 255)],
            [rg(140, 0); 4],
            [rg(140, 0); 4],
        ])
    );
}

// --- BC7 (BPTC) -----------------------------------------------------------------------------
// Fields are packed from bit 0 (the first byte's lsb) up, in the spec's order: mode (m zeros
// and a one), partition, rotation, index selection, the colour endpoints (every R, then every
// G, then B, then A; subset 0's two endpoints first), p-bits, the primary indices, the
// secondary indices. An index is one bit shorter at each subset's anchor texel (texel 0; for
// partition 0, texel 15 for the second of two subsets, texels 3 and 15 for three). Partition
// 0: two subsets split columns 0-1 | 2-3; three subsets are rows `0011 0011 0221 2222`.
// Endpoints with their p-bit expand to 8 bits by replicating their top bits. Texels
// interpolate `((64 - w) e0 + w e1 + 32) >> 6` with 2-bit weights 0 21 43 64, 3-bit weights
// 0 9 18 27 37 46 55 64 and 4-bit weights 0 4 9 13 17 21 26 30 34 38 43 47 51 55 60 64.

/// Builds a 128-bit block field by field, from bit 0 up.
struct Bits {
    block: u128,
    at: u32,
}

impl Bits {
    fn mode(m: u32) -> Self {
        Bits { block: 0, at: 0 }.put(1 << m, m + 1)
    }

    fn put(mut self, value: u32, bits: u32) -> Self {
        assert!(bits == 32 || value >> bits == 0, "{value} does not fit {bits} bits");
        self.block |= u128::from(value) << self.at;
        self.at += bits;
        self
    }

    fn each(self, values: &[u32], bits: u32) -> Self {
        values.iter().fold(self, |b, &v| b.put(v, bits))
    }

    /// Sixteen indices of `bits`, one bit fewer at the `anchors`.
    fn indices(self, values: [u32; 16], bits: u32, anchors: &[usize]) -> Self {
        values.iter().enumerate().fold(self, |b, (i, &v)| b.put(v, if anchors.contains(&i) { bits - 1 } else { bits }))
    }

    fn bytes(self) -> [u8; 16] {
        assert_eq!(self.at, 128, "the fields must fill the block");
        self.block.to_le_bytes()
    }
}

/// Indices all 0 but `set`: `(texel, index)`.
fn indices(set: &[(usize, u32)]) -> [u32; 16] {
    let mut out = [0; 16];
    for &(i, v) in set {
        out[i] = v;
    }
    out
}

const O: u8 = 255;

#[test]
fn bc7_mode_0() {
    // 3 subsets, partition 0, RGB 4 bits + a p-bit per endpoint, 3-bit indices.
    // s0e0 R = 1111 p 0 -> 11110 -> 247: (247, 0, 0); s1e0 (0, 247, 0); s2e0 all p 1:
    // R = G = 00001 -> 8, B = 11111 -> 255: (8, 8, 255); every e1 is 0. Texel 4 (x 0, y 1,
    // subset 0) has index 7 (weight 64): its e1, black.
    let bytes = Bits::mode(0)
        .put(0, 4)
        .each(&[15, 0, 0, 0, 0, 0], 4)
        .each(&[0, 0, 15, 0, 0, 0], 4)
        .each(&[0, 0, 0, 0, 15, 0], 4)
        .each(&[0, 0, 0, 0, 1, 0], 1)
        .indices(indices(&[(4, 7)]), 3, &[0, 3, 15])
        .bytes();
    let (a, b, c) = ([247, 0, 0, O], [0, 247, 0, O], [8, 8, 255, O]);
    assert_eq!(
        block(Format::Bc7RgbaUnorm, &bytes),
        rows([[a, a, b, b], [[0, 0, 0, O], a, b, b], [a, c, c, b], [c; 4]])
    );
}

#[test]
fn bc7_mode_1() {
    // 2 subsets, partition 0, RGB 6 bits, one shared p-bit a subset, 3-bit indices.
    // s0e0 R 111111 p 0 -> 1111110 -> 253: (253, 0, 0); s0e1 black. Subset 1 has p-bit 1:
    // s1e0 G 1111111 -> 255, R = B = 0000001 -> 2: (2, 255, 2); s1e1 (2, 2, 2). Texel 1
    // (subset 0) index 7: black; texel 2 (subset 1) index 7: (2, 2, 2); texel 5 (subset 0)
    // index 4 (weight 37): R = (27 * 253 + 32) >> 6 = 107.
    let bytes = Bits::mode(1)
        .put(0, 6)
        .each(&[63, 0, 0, 0], 6)
        .each(&[0, 0, 63, 0], 6)
        .each(&[0, 0, 0, 0], 6)
        .each(&[0, 1], 1)
        .indices(indices(&[(1, 7), (2, 7), (5, 4)]), 3, &[0, 15])
        .bytes();
    let (a, b) = ([253, 0, 0, O], [2, 255, 2, O]);
    assert_eq!(
        block(Format::Bc7RgbaUnorm, &bytes),
        rows([[a, [0, 0, 0, O], [2, 2, 2, O], b], [a, [107, 0, 0, O], b, b], [a, a, b, b], [a, a, b, b]])
    );
}

#[test]
fn bc7_mode_2() {
    // 3 subsets, partition 0, RGB 5 bits, no p-bits, 2-bit indices. e0s are red, green,
    // blue (31 -> 255); every e1 is 16 -> 132. Texel 5 (subset 0) index 3: (132, 132, 132);
    // texel 9 (x 1, y 2: subset 2) index 1 (weight 21): R = G = (21 * 132 + 32) >> 6 = 43,
    // B = (43 * 255 + 21 * 132 + 32) >> 6 = 215.
    let bytes = Bits::mode(2)
        .put(0, 6)
        .each(&[31, 16, 0, 16, 0, 16], 5)
        .each(&[0, 16, 31, 16, 0, 16], 5)
        .each(&[0, 16, 0, 16, 31, 16], 5)
        .indices(indices(&[(5, 3), (9, 1)]), 2, &[0, 3, 15])
        .bytes();
    let (r, g, b) = ([255, 0, 0, O], [0, 255, 0, O], [0, 0, 255, O]);
    assert_eq!(
        block(Format::Bc7RgbaUnorm, &bytes),
        rows([[r, r, g, g], [r, [132, 132, 132, O], g, g], [r, [43, 43, 215, O], b, g], [b; 4]])
    );
}

#[test]
fn bc7_mode_3() {
    // 2 subsets, partition 0, RGB 7 bits + a p-bit per endpoint, 2-bit indices.
    // s0e0 R 127 p 0 -> 254: (254, 0, 0); s0e1 0 p 1: (1, 1, 1); s1e0 G 100 p 0: (0, 200, 0);
    // s1e1 R 50 p 1 -> 101, G = B = 1: (101, 1, 1). Texel 1 index 3: (1, 1, 1); texel 6 (x 2,
    // y 1: subset 1) index 2 (weight 43): R = (43 * 101 + 32) >> 6 = 68, G = (21 * 200 + 43 +
    // 32) >> 6 = 66, B = (43 + 32) >> 6 = 1.
    let bytes = Bits::mode(3)
        .put(0, 6)
        .each(&[127, 0, 0, 50], 7)
        .each(&[0, 0, 100, 0], 7)
        .each(&[0, 0, 0, 0], 7)
        .each(&[0, 1, 0, 1], 1)
        .indices(indices(&[(1, 3), (6, 2)]), 2, &[0, 15])
        .bytes();
    let (a, b) = ([254, 0, 0, O], [0, 200, 0, O]);
    assert_eq!(
        block(Format::Bc7RgbaUnorm, &bytes),
        rows([[a, [1, 1, 1, O], b, b], [a, a, [68, 66, 1, O], b], [a, a, b, b], [a, a, b, b]])
    );
}

#[test]
fn bc7_mode_4_rotation_swaps_alpha_and_red() {
    // 1 subset, rotation 01 (swap A and R after decoding), index selection 0 (2-bit indices
    // for colour, 3-bit for alpha), RGB 5 bits, A 6 bits. Colour e0 (255, 0, 0), e1
    // (0, 0, 255); alpha e0 0, e1 63 -> 255. Colour index 3 at texel 1; alpha index 7 at
    // texel 2 and 4 (weight 37: (37 * 255 + 32) >> 6 = 147) at texel 3. Before the swap:
    // texel 0 (255, 0, 0 | 0), 1 (0, 0, 255 | 0), 2 (255, 0, 0 | 255), 3 (255, 0, 0 | 147).
    let bytes = Bits::mode(4)
        .put(1, 2)
        .put(0, 1)
        .each(&[31, 0], 5)
        .each(&[0, 0], 5)
        .each(&[0, 31], 5)
        .each(&[0, 63], 6)
        .indices(indices(&[(1, 3)]), 2, &[0])
        .indices(indices(&[(2, 7), (3, 4)]), 3, &[0])
        .bytes();
    let rest = [0, 0, 0, O];
    assert_eq!(
        block(Format::Bc7RgbaUnorm, &bytes),
        rows([[rest, [0, 0, 255, 0], [255, 0, 0, O], [147, 0, 0, O]], [rest; 4], [rest; 4], [rest; 4]])
    );
}

#[test]
fn bc7_mode_5() {
    // 1 subset, rotation 0, RGB 7 bits, A 8 bits, 2-bit colour and 2-bit alpha indices.
    // Colour e0 R 127 -> 255: (255, 0, 0); e1 (0, 127 -> 255, 64 -> 129); alpha e0 255, e1 0.
    // Colour index 3 at texel 1; index 1 (weight 21) at texel 2: R = (43 * 255 + 32) >> 6 =
    // 171, G = (21 * 255 + 32) >> 6 = 84, B = (21 * 129 + 32) >> 6 = 42. Alpha index 3 at
    // texel 2 (0); index 2 (weight 43) at texel 3: (21 * 255 + 32) >> 6 = 84.
    let bytes = Bits::mode(5)
        .put(0, 2)
        .each(&[127, 0], 7)
        .each(&[0, 127], 7)
        .each(&[0, 64], 7)
        .each(&[255, 0], 8)
        .indices(indices(&[(1, 3), (2, 1)]), 2, &[0])
        .indices(indices(&[(2, 3), (3, 2)]), 2, &[0])
        .bytes();
    let a = [255, 0, 0, O];
    assert_eq!(
        block(Format::Bc7RgbaUnorm, &bytes),
        rows([[a, [0, 255, 129, O], [171, 84, 42, 0], [255, 0, 0, 84]], [a; 4], [a; 4], [a; 4]])
    );
}

#[test]
fn bc7_mode_6() {
    // 1 subset, RGBA 7 bits + a p-bit per endpoint, 4-bit indices, texel i has index i.
    // e0 = RGB 0 A 127, p 1: (1, 1, 1, 255); e1 = RGB 127 A 0, p 0: (254, 254, 254, 0).
    // Texel 0 (w 0): RGB (64 + 32) >> 6 = 1, A (64 * 255 + 32) >> 6 = 255. Texel 1 (w 4):
    // (60 + 4 * 254 + 32) >> 6 = 17, (60 * 255 + 32) >> 6 = 239. Texel 7 (w 30):
    // (34 + 30 * 254 + 32) >> 6 = 120, (34 * 255 + 32) >> 6 = 135. Texel 8 (w 34):
    // (30 + 34 * 254 + 32) >> 6 = 135, (30 * 255 + 32) >> 6 = 120. Texel 15 (w 64): 254, 0.
    let bytes = Bits::mode(6)
        .each(&[0, 127], 7)
        .each(&[0, 127], 7)
        .each(&[0, 127], 7)
        .each(&[127, 0], 7)
        .each(&[1, 0], 1)
        .indices(std::array::from_fn(|i| i as u32), 4, &[0])
        .bytes();
    let texels = block(Format::Bc7RgbaUnorm, &bytes);
    assert_eq!(texels[0], [1, 1, 1, 255]);
    assert_eq!(texels[1], [17, 17, 17, 239]);
    assert_eq!(texels[7], [120, 120, 120, 135]);
    assert_eq!(texels[8], [135, 135, 135, 120]);
    assert_eq!(texels[15], [254, 254, 254, 0]);
}

#[test]
fn bc7_mode_7() {
    // 2 subsets, partition 0, RGBA 5 bits + a p-bit per endpoint, 2-bit indices.
    // s0e0 R 31 G B 0 A 31, p 1: R A 111111 -> 255, G B 000001 -> 4: (255, 4, 4, 255); s0e1 0;
    // s1e0 A 16 p 0 -> 100000 -> 130: (0, 0, 0, 130); s1e1 all 31 p 1: (255, 255, 255, 255).
    // Texel 1 index 3: (0, 0, 0, 0); texel 2 (subset 1) index 1 (weight 21): RGB
    // (21 * 255 + 32) >> 6 = 84, A (43 * 130 + 21 * 255 + 32) >> 6 = 171.
    let bytes = Bits::mode(7)
        .put(0, 6)
        .each(&[31, 0, 0, 31], 5)
        .each(&[0, 0, 0, 31], 5)
        .each(&[0, 0, 0, 31], 5)
        .each(&[31, 0, 16, 31], 5)
        .each(&[1, 0, 0, 1], 1)
        .indices(indices(&[(1, 3), (2, 1)]), 2, &[0, 15])
        .bytes();
    let (a, b) = ([255, 4, 4, 255], [0, 0, 0, 130]);
    assert_eq!(
        block(Format::Bc7RgbaUnorm, &bytes),
        rows([[a, [0, 0, 0, 0], [84, 84, 84, 171], b], [a, a, b, b], [a, a, b, b], [a, a, b, b]])
    );
}

#[test]
fn bc7_reserved_mode_is_transparent_black() {
    // No mode bit in the first byte: the reserved mode 8, which decodes to (0, 0, 0, 0).
    let mut bytes = [0xFF; 16];
    bytes[0] = 0;
    assert_eq!(block(Format::Bc7RgbaUnorm, &bytes), vec![[0, 0, 0, 0]; 16]);
    assert_eq!(block(Format::Bc7RgbaUnormSrgb, &bytes), vec![[0, 0, 0, 0]; 16]);
}

// --- ETC2 -----------------------------------------------------------------------------------
// Big-endian 64-bit words. Pixel j = 4x + y's 2-bit index has its msb in bit 16 + j and its
// lsb in bit j: bytes 4..7 are bits 31..0. Modifier tables [a, b]: 0 [2, 8], 1 [5, 17],
// 2 [9, 29], 7 [47, 183]; indices 0, 1, 2, 3 mean a, b, -a, -b. T/H distances: 3 6 11 16 23
// 32 41 64.

/// The individual-mode block: R1 14 G1 3 B1 8 -> (238, 51, 136), R2 G2 B2 0 0 15 -> (0, 0,
/// 255); table 1 = 2, table 2 = 0, diff 0, flip 0 (subblocks side by side). Bytes: 0xE0
/// (R1 R2), 0x30 (G1 G2), 0x8F (B1 B2), 0b010_000_0_0. Indices: (0,0) 1 (bit 0), (1,0) 3 (bits
/// 4, 20), (0,1) 2 (bit 17), (3,3) 3 (bits 15, 31): 0x80128011.
const INDIVIDUAL: [u8; 8] = [0xE0, 0x30, 0x8F, 0x40, 0x80, 0x12, 0x80, 0x11];

#[test]
fn etc2_individual_mode() {
    let t = block(Format::Etc2Rgb8Unorm, &INDIVIDUAL);
    // Subblock 1 (x < 2), table 2: +29 at (0,0): (267 -> 255, 80, 165); -29 at (1,0):
    // (209, 22, 107); -9 at (0,1): (229, 42, 127); +9 elsewhere: (247, 60, 145).
    assert_eq!(at(&t, 0, 0), [255, 80, 165, 255]);
    assert_eq!(at(&t, 1, 0), [209, 22, 107, 255]);
    assert_eq!(at(&t, 0, 1), [229, 42, 127, 255]);
    for (x, y) in [(1, 1), (0, 2), (1, 2), (0, 3), (1, 3)] {
        assert_eq!(at(&t, x, y), [247, 60, 145, 255]);
    }
    // Subblock 2 (x >= 2), table 0: +2 -> (2, 2, 257 -> 255); -8 at (3,3): (0, 0, 247).
    for y in 0..4 {
        for x in 2..4 {
            let want = if (x, y) == (3, 3) { [0, 0, 247, 255] } else { [2, 2, 255, 255] };
            assert_eq!(at(&t, x, y), want, "({x}, {y})");
        }
    }
}

/// The differential-mode block (the spec's example): R 28 G 4 B 3 -> (231, 33, 24); dR -4
/// dG 2 dB 0 -> 5-bit (24, 6, 3) -> (198, 49, 24); table 1 = 7, table 2 = 1, diff 1, flip 1
/// (top and bottom). Bytes 0b11100_100, 0b00100_010, 0b00011_000, 0b111_001_1_1. Indices:
/// (1,0) 3 (bits 4, 20), (0,2) 1 (bit 2), (3,3) 2 (bit 31): 0x80100014.
const DIFFERENTIAL: [u8; 8] = [0xE4, 0x22, 0x18, 0xE7, 0x80, 0x10, 0x00, 0x14];

#[test]
fn etc2_differential_mode() {
    let t = block(Format::Etc2Rgb8Unorm, &DIFFERENTIAL);
    // Top (y < 2), table 7: +47 -> (255, 80, 71); -183 at (1,0) -> (48, 0, 0).
    // Bottom, table 1: +5 -> (203, 54, 29); +17 at (0,2) -> (215, 66, 41); -5 at (3,3) ->
    // (193, 44, 19).
    for y in 0..4 {
        for x in 0..4 {
            let want = match (x, y) {
                (1, 0) => [48, 0, 0, 255],
                (0, 2) => [215, 66, 41, 255],
                (3, 3) => [193, 44, 19, 255],
                (_, 0 | 1) => [255, 80, 71, 255],
                _ => [203, 54, 29, 255],
            };
            assert_eq!(at(&t, x, y), want, "({x}, {y})");
        }
    }
}

/// The T-mode block: bits 63..59 = 11111 (R 31) and 58..56 = 001 (dR +1): 32 is out of range.
/// R1a (60..59) 11, R1b (57..56) 01 -> R1 1101 = 13 -> 221; G1 B1 0; R2 0, G2 8 -> 136, B2 0;
/// da 10, diff 1, db 1 -> distance index 5 -> 32. Bytes 0xF9, 0x00, 0x08, 0b0000_10_1_1.
/// Indices 0, 1, 2, 3 along row 0: (1,0) bit 4, (2,0) bit 24, (3,0) bits 12, 28: 0x11001010.
const T_MODE: [u8; 8] = [0xF9, 0x00, 0x08, 0x0B, 0x11, 0x00, 0x10, 0x10];

#[test]
fn etc2_t_mode() {
    // Paint colours: c1 (221, 0, 0), c2 + 32 (32, 168, 32), c2 (0, 136, 0), c2 - 32 (0, 104, 0).
    let t = block(Format::Etc2Rgb8Unorm, &T_MODE);
    let p0 = [221, 0, 0, 255];
    assert_eq!(t, rows([[p0, [32, 168, 32, 255], [0, 136, 0, 255], [0, 104, 0, 255]], [p0; 4], [p0; 4], [p0; 4]]));
}

/// The H-mode block: R (63..59) 01111 + dR (58..56) 000 is in range; G (55..51) 11111 + dG
/// (50..48) 001 is 32: H. R1 (62..59) 1111 -> 255; G1a (58..56) 000, G1b (52) 1 -> 0001 -> 17;
/// B1a (51) 1, B1b (49..47) 010 -> 1010 -> 170; R2 G2 B2 0. da 0, db 1, and c1 >= c2 -> distance
/// index 0b011 = 3 -> 16. Bytes 0b0_1111_000, 0b111_1_1_0_01, 0b0_0000_000, 0b0_0000_0_1_1.
const H_MODE: [u8; 8] = [0x78, 0xF9, 0x00, 0x03, 0x11, 0x00, 0x10, 0x10];

#[test]
fn etc2_h_mode() {
    // Paint colours: c1 + 16 (255, 33, 186), c1 - 16 (239, 1, 154), c2 + 16 (16, 16, 16),
    // c2 - 16 (0, 0, 0).
    let t = block(Format::Etc2Rgb8Unorm, &H_MODE);
    let p0 = [255, 33, 186, 255];
    assert_eq!(t, rows([[p0, [239, 1, 154, 255], [16, 16, 16, 255], [0, 0, 0, 255]], [p0; 4], [p0; 4], [p0; 4]]));
}

/// The planar-mode block: R 0 + dR 0 and G 0 + dG 0 in range, B (47..43) 00000 + dB (42..40)
/// 100 = -4 out. O = (0, 0, 0); H: RH1 (38..34) 11111, RH2 (32) 1 -> 63 -> 255, GH BH 0;
/// V: RV 0, GV 127 -> 255, BV 63 -> 255. Bytes 0, 0, 0b000_00_1_00, 0b0_11111_1_1, then GH BH
/// RV 0 and GV BV all ones: 0x00001FFF.
const PLANAR: [u8; 8] = [0x00, 0x00, 0x04, 0x7F, 0x00, 0x00, 0x1F, 0xFF];

/// `(x * 255 + 2) >> 2` for x = 0..3: the planar ramp from 0 to 255.
const RAMP: [u8; 4] = [0, 64, 128, 191];

#[test]
fn etc2_planar_mode() {
    // R(x, y) = (x (RH - RO) + y (RV - RO) + 4 RO + 2) >> 2 = (255 x + 2) >> 2; G and B
    // likewise ramp with y.
    let t = block(Format::Etc2Rgb8Unorm, &PLANAR);
    for (y, gb) in RAMP.into_iter().enumerate() {
        for (x, r) in RAMP.into_iter().enumerate() {
            assert_eq!(at(&t, x, y), [r, gb, gb, 255], "({x}, {y})");
        }
    }
}

#[test]
fn etc2_punchthrough_opaque_and_transparent() {
    // Opaque bit 1: the differential block decodes as in RGB ETC2, alpha 255.
    assert_eq!(block(Format::Etc2Rgb8A1Unorm, &DIFFERENTIAL), block(Format::Etc2Rgb8Unorm, &DIFFERENTIAL));
    // Opaque bit 0 (bit 33 cleared: 0xE7 -> 0xE5): the modifiers are 0, b, 0, -b and index 2
    // is transparent black. Top: 231 + 0 = (231, 33, 24); -183 at (1,0): (48, 0, 0). Bottom:
    // (198, 49, 24); +17 at (0,2): (215, 66, 41); index 2 at (3,3): (0, 0, 0, 0).
    let mut clear = DIFFERENTIAL;
    clear[3] = 0xE5;
    let t = block(Format::Etc2Rgb8A1Unorm, &clear);
    for y in 0..4 {
        for x in 0..4 {
            let want = match (x, y) {
                (1, 0) => [48, 0, 0, 255],
                (0, 2) => [215, 66, 41, 255],
                (3, 3) => [0, 0, 0, 0],
                (_, 0 | 1) => [231, 33, 24, 255],
                _ => [198, 49, 24, 255],
            };
            assert_eq!(at(&t, x, y), want, "({x}, {y})");
        }
    }
    // There is no individual mode: the individual block's bit 33 is the opaque bit (0), and
    // R 11100 + dR 000 etc. select the differential mode.
    let individual_as_a1 = block(Format::Etc2Rgb8A1Unorm, &INDIVIDUAL);
    assert_ne!(individual_as_a1, block(Format::Etc2Rgb8Unorm, &INDIVIDUAL));
    // T mode, opaque bit 0 (0x0B -> 0x09): paint colour 2 is transparent black.
    let mut t_clear = T_MODE;
    t_clear[3] = 0x09;
    let p0 = [221, 0, 0, 255];
    assert_eq!(
        block(Format::Etc2Rgb8A1Unorm, &t_clear),
        rows([[p0, [32, 168, 32, 255], [0, 0, 0, 0], [0, 104, 0, 255]], [p0; 4], [p0; 4], [p0; 4]])
    );
    // H mode, opaque bit 0 (0x03 -> 0x01): the same paint colours, index 2 transparent.
    let mut h_clear = H_MODE;
    h_clear[3] = 0x01;
    let p0 = [255, 33, 186, 255];
    assert_eq!(
        block(Format::Etc2Rgb8A1Unorm, &h_clear),
        rows([[p0, [239, 1, 154, 255], [0, 0, 0, 0], [0, 0, 0, 255]], [p0; 4], [p0; 4], [p0; 4]])
    );
    // Planar, opaque bit 0 (0x7F -> 0x7D): treated as 1, the same opaque ramp.
    let mut planar_clear = PLANAR;
    planar_clear[3] = 0x7D;
    assert_eq!(block(Format::Etc2Rgb8A1Unorm, &planar_clear), block(Format::Etc2Rgb8Unorm, &PLANAR));
}

// --- EAC ------------------------------------------------------------------------------------
// Big-endian: base codeword (byte 0), multiplier << 4 | table index (byte 1), then 3-bit
// indices from bit 47 down, pixel j = 4x + y in bits 47 - 3j ..= 45 - 3j. Table 13 is
// -1 -2 -3 -10 0 1 2 9. Indices: a (0,0) 3 -> bits 47..45 = 011, b (0,1) 7 -> 44..42 = 111,
// e (1,0) 4 -> 35..33 = 100, the rest 0: bytes 2..7 = 0x7C 0x08 0 0 0 0.

/// Base 103, multiplier 2, table 13 (the spec's example).
const EAC_M2: [u8; 8] = [0x67, 0x2D, 0x7C, 0x08, 0, 0, 0, 0];
/// The same with multiplier 0.
const EAC_M0: [u8; 8] = [0x67, 0x0D, 0x7C, 0x08, 0, 0, 0, 0];

#[test]
fn eac_r11_multiplier_nonzero() {
    // 11 bits: 103 * 8 + 4 = 828, + modifier * 2 * 8: a -10 -> 668, b +9 -> 972, e 0 -> 828,
    // rest -1 -> 812. To 8 bits, v * 255 / 2047 rounded: 83, 121, 103, 101.
    let t = block(Format::EacR11Unorm, &EAC_M2);
    let r = |v| [v, 0, 0, 255];
    assert_eq!(t, rows([[r(83), r(103), r(101), r(101)], [r(121), r(101), r(101), r(101)], [r(101); 4], [r(101); 4]]));
    // Clamping: base 255, multiplier 15, table 0 (-3 -6 -9 -15 2 5 8 14), a 7 (+14) and b 3
    // (-15): 2044 + 1680 -> 2047 -> 255, 2044 - 1800 = 244 -> 30, the rest -3: 1684 -> 210.
    let t = block(Format::EacR11Unorm, &[0xFF, 0xF0, 0xEC, 0, 0, 0, 0, 0]);
    assert_eq!(t, rows([[r(255), r(210), r(210), r(210)], [r(30), r(210), r(210), r(210)], [r(210); 4], [r(210); 4]]));
}

#[test]
fn eac_r11_multiplier_zero_is_an_eighth() {
    // Multiplier 0 means 1/8: 828 + modifier: a 818, b 837, e 828, rest 827 -> 102, 104, 103,
    // 103.
    let t = block(Format::EacR11Unorm, &EAC_M0);
    let r = |v| [v, 0, 0, 255];
    assert_eq!(t, rows([[r(102), r(103), r(103), r(103)], [r(104), r(103), r(103), r(103)], [r(103); 4], [r(103); 4]]));
}

#[test]
fn eac_rg11_is_two_r11_blocks() {
    // Red: EAC_M2, green: EAC_M0 (as in the two tests above).
    let mut bytes = EAC_M2.to_vec();
    bytes.extend(EAC_M0);
    let t = block(Format::EacRg11Unorm, &bytes);
    let rg = |r, g| [r, g, 0, 255];
    assert_eq!(
        t,
        rows([
            [rg(83, 102), rg(103, 103), rg(101, 103), rg(101, 103)],
            [rg(121, 104), rg(101, 103), rg(101, 103), rg(101, 103)],
            [rg(101, 103); 4],
            [rg(101, 103); 4],
        ])
    );
}

#[test]
fn etc2_rgba8_is_eac_alpha_then_etc2_rgb() {
    // Alpha: clamp255(base + modifier * multiplier) = 103 + 2 * (-10, 9, 0, -1) = 83, 121,
    // 103, 101; colour: the differential block.
    let mut bytes = EAC_M2.to_vec();
    bytes.extend(DIFFERENTIAL);
    let t = block(Format::Etc2Rgba8Unorm, &bytes);
    let rgb = block(Format::Etc2Rgb8Unorm, &DIFFERENTIAL);
    let alpha = [[83, 103, 101, 101], [121, 101, 101, 101], [101; 4], [101; 4]];
    for (y, row) in alpha.into_iter().enumerate() {
        for (x, a) in row.into_iter().enumerate() {
            let [r, g, b, _] = at(&rgb, x, y);
            assert_eq!(at(&t, x, y), [r, g, b, a], "({x}, {y})");
        }
    }
    // Multiplier 0 in the 8-bit alpha block: "0 x modifier = 0", the base codeword everywhere.
    let mut bytes = EAC_M0.to_vec();
    bytes.extend(DIFFERENTIAL);
    assert!(block(Format::Etc2Rgba8Unorm, &bytes).iter().all(|t| t[3] == 103));
}

// --- ASTC -----------------------------------------------------------------------------------

#[test]
fn astc_void_extent_is_one_colour() {
    // Block mode 0x1FC (bits 8..0), bit 9 0 (LDR), bits 10 11 1 and every extent coordinate
    // all 1s (no extent): bytes 0xFC 0xFD 0xFF x 6; then R G B A as UNORM16, little-endian:
    // 0xFFFF, 0x8080, 0x0000, 0xFFFF -> (255, 128, 0, 255).
    let bytes = [0xFC, 0xFD, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x80, 0x80, 0, 0, 0xFF, 0xFF];
    assert_eq!(
        block(Format::Astc { block: crate::AstcBlock::B4x4, srgb: false }, &bytes),
        vec![[255, 128, 0, 255]; 16]
    );
    assert_eq!(block(Format::Astc { block: crate::AstcBlock::B4x4, srgb: true }, &bytes), vec![[255, 128, 0, 255]; 16]);
}

#[test]
fn astc_illegal_blocks_are_magenta() {
    let magenta = vec![[255, 0, 255, 255]; 16];
    // Every bit 0: block mode bits 3..0 are 0000, a reserved block mode.
    assert_eq!(block(Format::Astc { block: crate::AstcBlock::B4x4, srgb: false }, &[0; 16]), magenta);
    // A void-extent block whose coordinates are all 0: not all 1s, and S min >= S max.
    let bytes = [0xFC, 0x0D, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0, 0, 0, 0, 0xFF, 0xFF];
    assert_eq!(block(Format::Astc { block: crate::AstcBlock::B4x4, srgb: false }, &bytes), magenta);
    // An HDR void-extent block (bit 9 set) in the LDR profile.
    let bytes = [0xFC, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0x3C, 0, 0x3C, 0, 0x3C, 0, 0x3C];
    assert_eq!(block(Format::Astc { block: crate::AstcBlock::B4x4, srgb: false }, &bytes), magenta);
}

// Two multi-partition blocks built field by field from the specification (bits from bit 0 of
// the first byte): block mode 0x053 (bits 1..0 = 11 and 3..2 = 00: a 4x4 weight grid,
// W = B + 4 = 4, H = A + 2 = 4; R = 111, H = 0: weights 0..7, 3 bits: 48 weight bits, every
// one 0, so each texel is its partition's endpoint e0).

#[test]
fn astc_hdr_partition_is_magenta_and_the_next_reads_its_own_values() {
    // 2 partitions (bits 12..11 = 01), pattern 1 (bits 22..13), CEM selector 01 (classes 0
    // and 1, bits 24..23), C0 = C1 = 0 (bits 25, 26), M0 = 11 (bits 28..27): partition 0 has
    // CEM 3, HDR luminance; M1 = 00 (bits 79..78, below the weights): partition 1 has CEM 0,
    // LDR luminance direct. Config bits 25 + 3 x 2 = 31, so 128 - 31 - 48 = 49 bits for 4
    // values: 8 bits each, v0..v3 = 200, 200 (partition 0), 60, 90 (partition 1) from bit 29.
    // Partition 1's e0 is (60, 60, 60, 255); partition 0's texels are the error colour ("HDR
    // endpoint mode results: error color" in the LDR profile). Pattern 1 for 2 partitions in a
    // small block (the specification's select_partition): rows 0110 1110 1100 1100.
    let bytes = [0x53, 0x28, 0x80, 0x18, 0x19, 0x99, 0x47, 0x0B, 0, 0, 0, 0, 0, 0, 0, 0];
    let (m, g) = ([255, 0, 255, 255], [60, 60, 60, 255]);
    assert_eq!(
        block(Format::Astc { block: crate::AstcBlock::B4x4, srgb: false }, &bytes),
        rows([[m, g, g, m], [g, g, g, m], [g, g, m, m], [g, g, m, m]])
    );
}

#[test]
fn astc_unallocated_colour_bits_are_not_read() {
    // 3 partitions (bits 12..11 = 10), pattern 0 (rows 2000 2000 2111 2111), one CEM for all
    // (selector 00), CEM 8 (bits 28..25 = 1000): RGB direct, 6 values each, 18 in all. Config
    // bits 29, so 128 - 29 - 48 = 51 bits for them: trits with 1 bit (range 0..5) take
    // 18 + ceil(18 x 8 / 5) = 47 bits, 3 bits a value would take 54. Each partition's values
    // are 51 255 102 204 255 255 (t, m: 1 0, 0 1, 2 0, 1 1, 0 1, 0 1; value = 51 t, or 255 - 51 t
    // when m = 1): e0 = (v0, v2, v4) = (51, 102, 255) (v1 + v3 + v5 >= v0 + v2 + v4).
    // Trit blocks of 13 bits (m0 T0 T1 m1 T2 T3 m2 T4 m3 T5 T6 m4 T7): T = 39, 196, 112 for
    // values 0..14. Values 15..17 have 8 bits left (m0 T0 T1 m1 T2 T3 m2 T4 = 1 1 0 1 1 1 1 1):
    // T[4:2] = 111, so C = {T7, T6, T5, T1, T0} with the missing T5..T7 "assumed to be 0":
    // C = 00001, t = 1, 0, 0: values 204, 255, 255. The 4 unallocated bits 76..79 are 1s ("not
    // read by the decoding process and can have any value"): read as T5, T6 they would make
    // t = 1, 2, 2 and partition 2's blue 153.
    let bytes = [0x53, 0x10, 0x00, 0xD0, 0x63, 0x45, 0xF1, 0xC4, 0xB3, 0xFF, 0, 0, 0, 0, 0, 0];
    assert_eq!(
        block(Format::Astc { block: crate::AstcBlock::B4x4, srgb: false }, &bytes),
        vec![[51, 102, 255, 255]; 16]
    );
    // The same block with those bits 0 decodes the same.
    let mut clean = bytes;
    clean[9] = 0x0F;
    assert_eq!(
        block(Format::Astc { block: crate::AstcBlock::B4x4, srgb: false }, &clean),
        vec![[51, 102, 255, 255]; 16]
    );
}

// --- The whole level ------------------------------------------------------------------------

#[test]
fn levels_crop_partial_blocks_and_check_the_length_first() {
    // A 6x5 BC1 level: 2x2 blocks, each one colour (index 0 everywhere): red, green, blue,
    // white. Texel (x, y) is block (x / 4, y / 4)'s colour; texels past 6 and 5 are dropped.
    let solid = |c: u16| {
        let [lo, hi] = c.to_le_bytes();
        [lo, hi, lo, hi, 0, 0, 0, 0]
    };
    let blocks: Vec<u8> = [0xF800, 0x07E0, 0x001F, 0xFFFF].into_iter().flat_map(solid).collect();
    let rgba = decode_rgba8(Format::Bc1RgbaUnorm, 6, 5, &blocks).unwrap();
    assert_eq!(rgba.len(), 6 * 5 * 4);
    let colours = [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255], [255, 255, 255, 255]];
    for y in 0..5 {
        for x in 0..6 {
            let i = (y * 6 + x) * 4;
            assert_eq!(rgba[i..i + 4], colours[(y / 4) * 2 + x / 4], "({x}, {y})");
        }
    }
    // One byte short, one byte long: refused before any decoding.
    for len in [blocks.len() - 1, blocks.len() + 1] {
        let err = decode_rgba8(Format::Bc1RgbaUnorm, 6, 5, &vec![0; len]).unwrap_err();
        assert_eq!(
            err,
            DecodeError::Length {
                format: Format::Bc1RgbaUnorm,
                width_px: 6,
                height_px: 5,
                actual_bytes: len,
                expected_bytes: 32
            }
        );
    }
    // Empty levels and RGBA8.
    assert_eq!(decode_rgba8(Format::Bc7RgbaUnorm, 0, 9, &[]).unwrap(), Vec::<u8>::new());
    assert_eq!(decode_rgba8(Format::Rgba8Unorm, 1, 1, &[1, 2, 3, 4]).unwrap(), [1, 2, 3, 4]);
}

// --- No panic, whatever the bytes -----------------------------------------------------------

const RANDOM_BLOCKS: usize = 200_000;

#[test]
fn random_blocks_never_panic_in_any_format() {
    // Levels of odd sizes (partial blocks at the right and bottom edges) until each format
    // has decoded RANDOM_BLOCKS random blocks; this test build has overflow checks on.
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for format in Format::ALL {
        let mut decoded = 0;
        let (mut illegal_astc, mut transparent) = (0usize, 0usize);
        while decoded < RANDOM_BLOCKS {
            let (w, h) = (1 + (rng.next() % 67) as u32, 1 + (rng.next() % 61) as u32);
            let mut blocks = vec![0; format.image_bytes(w, h) as usize];
            rng.fill(&mut blocks);
            let rgba = decode_rgba8(format, w, h, &blocks).unwrap();
            assert_eq!(rgba.len(), (w * h * 4) as usize);
            if format.is_compressed() {
                decoded += (w.div_ceil(4) * h.div_ceil(4)) as usize;
            } else {
                assert_eq!(rgba, blocks);
                decoded += (w * h) as usize;
            }
            for t in rgba.chunks_exact(4) {
                match format {
                    Format::Bc4RUnorm | Format::EacR11Unorm => assert_eq!(t[1..], [0, 0, 255]),
                    Format::Bc5RgUnorm | Format::EacRg11Unorm => assert_eq!(t[2..], [0, 255]),
                    // One-bit alpha, and a transparent texel is black.
                    Format::Bc1RgbaUnorm | Format::Etc2Rgb8A1Unorm => {
                        assert!(t == [0, 0, 0, 0] || t[3] == 255, "{format}: {t:?}");
                        transparent += usize::from(t[3] == 0);
                    }
                    Format::Etc2Rgb8Unorm => assert_eq!(t[3], 255),
                    Format::Astc { block: crate::AstcBlock::B4x4, srgb: false } => {
                        illegal_astc += usize::from(t == [255, 0, 255, 255])
                    }
                    _ => {}
                }
            }
        }
        // Random bytes hit both sides of each format's branches.
        if matches!(format, Format::Bc1RgbaUnorm | Format::Etc2Rgb8A1Unorm) {
            assert!(transparent > 0, "{format}: no transparent texel");
        }
        if format == (Format::Astc { block: crate::AstcBlock::B4x4, srgb: false }) {
            assert!(illegal_astc > 0 && illegal_astc < decoded * 16, "ASTC: {illegal_astc} magenta texels");
        }
    }
}

#[test]
fn random_blocks_never_panic_in_any_astc_footprint() {
    const FOOTPRINTS: [[u32; 2]; 14] = [
        [4, 4],
        [5, 4],
        [5, 5],
        [6, 5],
        [6, 6],
        [8, 5],
        [8, 6],
        [8, 8],
        [10, 5],
        [10, 6],
        [10, 8],
        [10, 10],
        [12, 10],
        [12, 12],
    ];
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let mut texels = [[0u8; 4]; MAX_BLOCK_TEXELS];
    for [w, h] in FOOTPRINTS {
        let decoder = BlockDecoder::Astc([w, h]);
        assert_eq!(decoder.footprint(), [w, h]);
        let (mut legal, mut void_extent) = (0, 0);
        for i in 0..RANDOM_BLOCKS {
            let mut block = [0u8; 16];
            rng.fill(&mut block);
            if i % 8 == 0 {
                // Every eighth block a void-extent header with random extent and colour.
                block[0] = 0xFC;
                block[1] = (block[1] & 0xF0) | 0x0D;
                void_extent += 1;
            }
            legal += usize::from(astc::decode_block(&block, w, h, &mut texels));
        }
        // Random blocks are mostly illegal, but not all: the decoder's paths are exercised.
        assert!(legal > 0 && legal < RANDOM_BLOCKS, "{w}x{h}: {legal} legal blocks");
        assert!(void_extent > 0);
    }
    // A footprint ASTC does not have decodes to the error colour.
    assert!(!astc::decode_block(
        &[0xFC, 0xFD, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0],
        7,
        7,
        &mut texels
    ));
    assert!(texels[..49].iter().all(|t| *t == [255, 0, 255, 255]));
}
