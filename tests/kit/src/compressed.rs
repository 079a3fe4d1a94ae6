//! Compressed texture data for tests, benches and the stress example: pictures encoded with
//! Intel's ISPC texture compressor (`intel_tex_2`: BC1, BC3, BC4, BC5, BC7), mip chains of them
//! (authored mips), and KTX2 files around them. ETC2 RGB is written as ETC1 individual-mode
//! blocks by a small encoder here ([`etc1_blocks`]): intel_tex_2's ISPC ETC1 kernel aborted on
//! an assert in its differential mode (kernel.ispc:3720) in a build with other debug info, on
//! the same picture, so its output could not be relied on. intel_tex_2 0.5's ASTC encoder is a
//! stub (`unimplemented!`), and no maintained pure-Rust ASTC encoder exists: ASTC 4x4 is
//! written here as void-extent blocks, each the mean of its 16 texels (valid ASTC that every
//! decoder reads alike; a block-flat picture, exact for solid colours). The reference
//! decode is core's own (`layerbatch_core::decode_rgba8`: bcdec_rs for BC1-BC7, core's ETC2/EAC
//! decoder, astc-decode for ASTC; `tests/decode_conformance.rs` checks it against llvmpipe and
//! astcenc).

use layerbatch_core::{mip_size, Format};

/// Formats [`encode`] can make.
pub const ENCODABLE: [Format; 12] = [
    Format::Bc1RgbaUnorm,
    Format::Bc1RgbaUnormSrgb,
    Format::Bc3RgbaUnorm,
    Format::Bc3RgbaUnormSrgb,
    Format::Bc4RUnorm,
    Format::Bc5RgUnorm,
    Format::Bc7RgbaUnorm,
    Format::Bc7RgbaUnormSrgb,
    Format::Etc2Rgb8Unorm,
    Format::Etc2Rgb8UnormSrgb,
    Format::Astc { block: layerbatch_core::AstcBlock::B4x4, srgb: false },
    Format::Astc { block: layerbatch_core::AstcBlock::B4x4, srgb: true },
];

/// `rgba` (`w` x `h`, tight RGBA8) padded to whole 4x4 blocks by repeating its last row and
/// column, and the padded size.
fn padded(rgba: &[u8], w: u32, h: u32) -> (Vec<u8>, u32, u32) {
    let (pw, ph) = (w.div_ceil(4) * 4, h.div_ceil(4) * 4);
    let mut out = Vec::with_capacity((pw * ph * 4) as usize);
    for y in 0..ph {
        for x in 0..pw {
            let i = ((y.min(h - 1) * w + x.min(w - 1)) * 4) as usize;
            out.extend_from_slice(&rgba[i..i + 4]);
        }
    }
    (out, pw, ph)
}

/// Encodes one `w` x `h` level of tight RGBA8 into `format`'s blocks (rows of blocks, top
/// first), or `None` for a format [`ENCODABLE`] does not list. The sRGB variants take the same
/// bytes as the linear ones (the encoder works on the stored values).
pub fn encode(format: Format, rgba: &[u8], w: u32, h: u32) -> Option<Vec<u8>> {
    use intel_tex_2 as t;
    let (data, pw, ph) = padded(rgba, w, h);
    let surface = t::RgbaSurface { data: &data, width: pw, height: ph, stride: pw * 4 };
    let channels = |n: usize| -> Vec<u8> { data.chunks_exact(4).flat_map(|p| p[..n].to_vec()).collect() };
    Some(match format {
        Format::Bc1RgbaUnorm | Format::Bc1RgbaUnormSrgb => t::bc1::compress_blocks(&surface),
        Format::Bc3RgbaUnorm | Format::Bc3RgbaUnormSrgb => t::bc3::compress_blocks(&surface),
        Format::Bc4RUnorm => {
            let r = channels(1);
            t::bc4::compress_blocks(&t::RSurface { data: &r, width: pw, height: ph, stride: pw })
        }
        Format::Bc5RgUnorm => {
            let rg = channels(2);
            t::bc5::compress_blocks(&t::RgSurface { data: &rg, width: pw, height: ph, stride: pw * 2 })
        }
        Format::Bc7RgbaUnorm | Format::Bc7RgbaUnormSrgb => {
            t::bc7::compress_blocks(&t::bc7::alpha_very_fast_settings(), &surface)
        }
        Format::Etc2Rgb8Unorm | Format::Etc2Rgb8UnormSrgb => etc1_blocks(&data, pw, ph),
        Format::Astc { block: layerbatch_core::AstcBlock::B4x4, srgb: false }
        | Format::Astc { block: layerbatch_core::AstcBlock::B4x4, srgb: true } => astc_void_extent(&data, pw, ph),
        _ => return None,
    })
}

/// ETC1's intensity modifier tables (the Khronos Data Format Specification, "ETC1"): for
/// codeword `cw`, pixel indices 0..4 add `a`, `b`, `-a`, `-b`.
const ETC1_TABLES: [[i32; 2]; 8] = [[2, 8], [5, 17], [9, 29], [13, 42], [18, 60], [24, 80], [33, 106], [47, 183]];

/// ETC1 blocks of a padded RGBA8 picture (read as ETC2 RGB): individual mode, not flipped
/// (two 2x4 halves, left and right), each half's base colour its mean in 4 bits a channel,
/// its codeword and every pixel's modifier the ones of least squared error. Rough, but every
/// block is valid ETC1; a flat half whose colour is a multiple of 17 decodes within 2 (ETC1's
/// smallest modifier).
fn etc1_blocks(data: &[u8], pw: u32, ph: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity((pw / 4 * ph / 4 * 8) as usize);
    let texel = |x: u32, y: u32| {
        let i = ((y * pw + x) * 4) as usize;
        [i32::from(data[i]), i32::from(data[i + 1]), i32::from(data[i + 2])]
    };
    for by in 0..ph / 4 {
        for bx in 0..pw / 4 {
            let mut bases = [[0i32; 3]; 2];
            let mut codewords = [0u8; 2];
            let (mut msb, mut lsb) = (0u16, 0u16);
            for half in 0..2u32 {
                let pixels: Vec<(u32, [i32; 3])> = (0..8)
                    .map(|i| {
                        let (x, y) = (half * 2 + i / 4, i % 4);
                        (x * 4 + y, texel(bx * 4 + x, by * 4 + y))
                    })
                    .collect();
                let base4 = [0, 1, 2].map(|c| ((pixels.iter().map(|p| p.1[c]).sum::<i32>() + 4) / 8 + 8) / 17);
                let base = base4.map(|v| v.min(15) * 17);
                // Per codeword: each pixel's best modifier index and the total error.
                let best = (0..8u8)
                    .map(|cw| {
                        let [a, b] = ETC1_TABLES[cw as usize];
                        let mut total = 0i64;
                        let mut picks = Vec::with_capacity(8);
                        for (index, p) in &pixels {
                            let (mut pick, mut err) = (0u16, i64::MAX);
                            for (k, m) in [a, b, -a, -b].into_iter().enumerate() {
                                let e: i64 = (0..3).map(|c| i64::from((base[c] + m).clamp(0, 255) - p[c]).pow(2)).sum();
                                if e < err {
                                    (pick, err) = (k as u16, e);
                                }
                            }
                            total += err;
                            picks.push((*index, pick));
                        }
                        (total, cw, picks)
                    })
                    .min_by_key(|(total, cw, _)| (*total, *cw))
                    .expect("eight codewords");
                bases[half as usize] = base4.map(|v| v.min(15));
                codewords[half as usize] = best.1;
                for (index, pick) in best.2 {
                    msb |= (pick >> 1) << index;
                    lsb |= (pick & 1) << index;
                }
            }
            let [r, g, b] = [0, 1, 2].map(|c| ((bases[0][c] << 4) | bases[1][c]) as u8);
            // Codewords in bits 39..37 and 36..34, diff bit 33 (0: individual), flip bit 32 (0).
            out.extend_from_slice(&[r, g, b, (codewords[0] << 5) | (codewords[1] << 2)]);
            out.extend_from_slice(&msb.to_be_bytes());
            out.extend_from_slice(&lsb.to_be_bytes());
        }
    }
    out
}

/// ASTC 4x4 void-extent blocks of a padded RGBA8 picture: per block, the LDR void-extent
/// header (block mode 0x1FC, no extent) and the mean colour as four UNORM16 (`v * 257`).
fn astc_void_extent(data: &[u8], pw: u32, ph: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity((pw / 4 * ph / 4 * 16) as usize);
    for by in 0..ph / 4 {
        for bx in 0..pw / 4 {
            out.extend_from_slice(&[0xFC, 0xFD, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]);
            for c in 0..4 {
                let mut sum = 0u32;
                for y in 0..4 {
                    for x in 0..4 {
                        sum += u32::from(data[(((by * 4 + y) * pw + bx * 4 + x) * 4 + c) as usize]);
                    }
                }
                let v = ((sum + 8) / 16) as u16 * 257;
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
    }
    out
}

/// A chain of `levels` levels of `rgba` (each a 2x2 box filter of the one above, on the stored
/// values), each encoded, back to back: a texture's authored mips as
/// [`layerbatch_core::TextureStore::register`] takes them. `None` as [`encode`].
pub fn encode_chain(format: Format, rgba: &[u8], w: u32, h: u32, levels: u32) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut level = rgba.to_vec();
    let (mut lw, mut lh) = (w, h);
    for l in 0..levels {
        out.extend(encode(format, &level, lw, lh)?);
        let (nw, nh) = mip_size(w, h, l + 1);
        level = box_filter(&level, lw, lh, nw, nh);
        (lw, lh) = (nw, nh);
    }
    Some(out)
}

fn box_filter(src: &[u8], w: u32, h: u32, nw: u32, nh: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity((nw * nh * 4) as usize);
    for y in 0..nh {
        for x in 0..nw {
            for c in 0..4 {
                let mut sum = 0u32;
                for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                    let (sx, sy) = ((2 * x + dx).min(w - 1), (2 * y + dy).min(h - 1));
                    sum += u32::from(src[((sy * w + sx) * 4 + c) as usize]);
                }
                out.push(((sum + 2) / 4) as u8);
            }
        }
    }
    out
}

/// A `w` x `h` premultiplied test picture: gradients, a checker of 3 px cells and seeded
/// noise, so that neighbouring texels and blocks differ; opaque, or with alpha falling from
/// 255 at the top to 64 at the bottom.
pub fn picture(w: u32, h: u32, seed: u32, alpha: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity((w * h * 4) as usize);
    let mut x32 = seed.wrapping_mul(2_654_435_761) | 1;
    for y in 0..h {
        for x in 0..w {
            x32 ^= x32 << 13;
            x32 ^= x32 >> 17;
            x32 ^= x32 << 5;
            let checker = if (x / 3 + y / 3) % 2 == 0 { 60 } else { 0 };
            let noise = x32 & 31;
            let a = if alpha { 255 - (191 * y / h.max(1)) } else { 255 };
            let r = (x * 255 / w.max(1)).min(195) + checker;
            let g = (y * 255 / h.max(1)).min(200) + noise;
            let b = ((x + y + seed) * 37 % 200) + noise;
            let pm = |v: u32| (v.min(255) * a / 255) as u8;
            out.extend_from_slice(&[pm(r), pm(g), pm(b), a as u8]);
        }
    }
    out
}

/// KTX2's `vkFormat` for `format`.
pub fn vk_format(format: Format) -> u32 {
    (0..200).find(|&v| layerbatch_core::format_from_vk(v) == Some(format)).expect("every format has a vkFormat")
}

/// A KTX2 file (no key/value data, an empty data format descriptor) of `format`, `w` x `h`,
/// `layers` array layers (0: a plain 2D texture), whose level `l` is `levels[l]` (every layer
/// of it, back to back), zstd-supercompressed when `zstd`.
pub fn ktx2_file(format: Format, w: u32, h: u32, layers: u32, levels: &[Vec<u8>], zstd: bool) -> Vec<u8> {
    let stored: Vec<Vec<u8>> = levels
        .iter()
        .map(|l| {
            if zstd {
                ruzstd::encoding::compress_to_vec(&l[..], ruzstd::encoding::CompressionLevel::Fastest)
            } else {
                l.clone()
            }
        })
        .collect();
    let index_end = 80 + 24 * levels.len();
    let dfd_offset = index_end as u32;
    let dfd_len = 4u32;
    let mut data_at = (index_end + dfd_len as usize).next_multiple_of(16);
    let mut index = Vec::new();
    let mut body = Vec::new();
    for (stored, raw) in stored.iter().zip(levels) {
        index.extend_from_slice(&(data_at as u64).to_le_bytes());
        index.extend_from_slice(&(stored.len() as u64).to_le_bytes());
        index.extend_from_slice(&(raw.len() as u64).to_le_bytes());
        body.push((data_at, stored));
        data_at = (data_at + stored.len()).next_multiple_of(16);
    }
    let mut file = Vec::new();
    file.extend_from_slice(&[0xAB, 0x4B, 0x54, 0x58, 0x20, 0x32, 0x30, 0xBB, 0x0D, 0x0A, 0x1A, 0x0A]);
    // typeSize: 1 for block-compressed and 8-bit formats alike.
    let type_size = 1u32;
    let supercompression = if zstd { 2u32 } else { 0 };
    for v in [vk_format(format), type_size, w, h, 0, layers, 1, levels.len() as u32, supercompression] {
        file.extend_from_slice(&v.to_le_bytes());
    }
    // Index: DFD offset and length, KVD offset and length (none), SGD offset and length (none).
    file.extend_from_slice(&dfd_offset.to_le_bytes());
    file.extend_from_slice(&dfd_len.to_le_bytes());
    file.extend_from_slice(&0u32.to_le_bytes());
    file.extend_from_slice(&0u32.to_le_bytes());
    file.extend_from_slice(&0u64.to_le_bytes());
    file.extend_from_slice(&0u64.to_le_bytes());
    file.extend_from_slice(&index);
    file.extend_from_slice(&dfd_len.to_le_bytes());
    for (at, stored) in body {
        file.resize(at, 0);
        file.extend_from_slice(stored);
    }
    file
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kit's ETC1 blocks decode (core's decoder, checked against llvmpipe in
    /// tests/decode_conformance.rs) to what they were made from: a flat colour of multiples
    /// of 17 within 2, and the test picture within the rough error such an encoder has.
    #[test]
    fn etc1_blocks_decode_to_their_picture() {
        let flat = [34u8, 68, 102, 255].repeat(8 * 4);
        let blocks = encode(Format::Etc2Rgb8Unorm, &flat, 8, 4).unwrap();
        assert_eq!(blocks.len(), 2 * 8);
        let back = layerbatch_core::decode_rgba8(Format::Etc2Rgb8Unorm, 8, 4, &blocks).unwrap();
        for (got, want) in back.chunks(4).zip(flat.chunks(4)) {
            assert!(got.iter().zip(want).all(|(g, w)| g.abs_diff(*w) <= 2), "{got:?} against {want:?}");
        }
        let pic = picture(30, 22, 7, false);
        let blocks = encode(Format::Etc2Rgb8Unorm, &pic, 30, 22).unwrap();
        let back = layerbatch_core::decode_rgba8(Format::Etc2Rgb8Unorm, 30, 22, &blocks).unwrap();
        let mean_error =
            back.iter().zip(&pic).map(|(a, b)| u64::from(a.abs_diff(*b))).sum::<u64>() as f64 / back.len() as f64;
        assert!(mean_error < 24.0, "mean error {mean_error}");
    }
}
