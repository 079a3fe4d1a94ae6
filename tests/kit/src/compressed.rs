//! Compressed texture data for tests, benches and the stress example: pictures encoded with
//! Intel's ISPC texture compressor (`intel_tex_2`: BC1, BC3, BC4, BC5, BC7, ETC1 as ETC2 RGB),
//! mip chains of them (authored mips), and KTX2 files around them. intel_tex_2 0.5's ASTC
//! encoder is a stub (`unimplemented!`), and no maintained pure-Rust ASTC encoder exists: ASTC
//! 4x4 is written here as void-extent blocks, each the mean of its 16 texels (valid ASTC that
//! every decoder reads alike; a block-flat picture, exact for solid colours). The reference
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
    Format::Astc4x4RgbaUnorm,
    Format::Astc4x4RgbaUnormSrgb,
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
        Format::Etc2Rgb8Unorm | Format::Etc2Rgb8UnormSrgb => {
            t::etc1::compress_blocks(&t::etc1::slow_settings(), &surface)
        }
        Format::Astc4x4RgbaUnorm | Format::Astc4x4RgbaUnormSrgb => astc_void_extent(&data, pw, ph),
        _ => return None,
    })
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
/// [`layerbatch_core::Batcher::register`] takes them. `None` as [`encode`].
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
