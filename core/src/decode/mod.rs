//! CPU decoding of compressed blocks to RGBA8 (the `decode` feature): what a texture of a
//! family the device lacks becomes at registration, and the reference the pixel tests compare
//! the GPU's own decoding against.
//!
//! - BC1, BC3, BC4, BC5, BC7 ([`bc`]): bcdec_rs, a safe pure-Rust port of iOrange's bcdec
//!   (fuzzed by the porter against the C original for identical output). BC1-BC5 palettes come
//!   out as the S3TC and RGTC formulas in exact arithmetic, rounded to nearest.
//! - ETC2 RGB, RGB A1, RGBA, EAC R11 and RG11 ([`etc`]): written here from the Khronos Data
//!   Format Specification 1.3, "ETC2 Compressed Texture Image Formats".
//! - ASTC ([`astc`]): astc-decode, a pure-Rust port of Android's decoder (astc-codec), behind
//!   a footprint check, the illegal void-extent check it leaves out and fixes for two of its
//!   bugs with multi-partition blocks (see the module).
//!
//! `tests/decode_conformance.rs` compares all of them with llvmpipe's own sampling of the same
//! blocks in every edge mode (BC7, ETC2 and EAC bit-exact; ASTC within 1; BC1-BC5 within 2,
//! llvmpipe's palettes being approximate) and ASTC with ARM's astcenc (within 1).
//!
//! Nothing here panics, whatever the bytes: blocks are read through fixed-size arrays, texels
//! written through checked slices, and the output size is checked before it is allocated. A
//! block the format calls illegal decodes to what the format says (ASTC: the error colour,
//! magenta; BC7's reserved mode: transparent black).

mod astc;
mod bc;
mod etc;
#[cfg(test)]
mod tests;

use crate::{Format, TextureDesc};

/// Why blocks could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// The data is not the level's size in whole blocks.
    #[error("{format} data of {actual_bytes} bytes for a {width_px}x{height_px} level: it needs {expected_bytes}")]
    Length {
        /// Format.
        format: Format,
        /// Level width.
        width_px: u32,
        /// Level height.
        height_px: u32,
        /// Bytes given.
        actual_bytes: usize,
        /// Bytes of the level's blocks.
        expected_bytes: u64,
    },
    /// The decoder refused the blocks: the decoded level would not fit in memory.
    #[error("the {format} decoder refused a {width_px}x{height_px} level: {message}")]
    Decoder {
        /// Format.
        format: Format,
        /// Level width.
        width_px: u32,
        /// Level height.
        height_px: u32,
        /// The decoder's message.
        message: String,
    },
}

/// Texels of the largest block (ASTC 12x12).
const MAX_BLOCK_TEXELS: usize = 144;

/// The texels of one decoded block, RGBA8, rows top first, `block width` texels a row.
type Texels = [[u8; 4]; MAX_BLOCK_TEXELS];

/// The magenta of ASTC's illegal blocks.
const ERROR_COLOUR: [u8; 4] = [255, 0, 255, 255];

/// How one format's blocks decode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BlockDecoder {
    Bc1,
    Bc2,
    Bc3,
    Bc4,
    Bc5,
    Bc7,
    Etc2Rgb,
    Etc2RgbA1,
    Etc2Rgba,
    EacR11,
    EacRg11,
    /// ASTC LDR of a footprint, `[width, height]` texels.
    Astc([u32; 2]),
}

impl BlockDecoder {
    /// The decoder of a compressed format; `None` for RGBA8.
    const fn of(format: Format) -> Option<Self> {
        use Format::*;
        Some(match format {
            Rgba8Unorm | Rgba8UnormSrgb => return None,
            Bc1RgbaUnorm | Bc1RgbaUnormSrgb => Self::Bc1,
            Bc2RgbaUnorm | Bc2RgbaUnormSrgb => Self::Bc2,
            Bc3RgbaUnorm | Bc3RgbaUnormSrgb => Self::Bc3,
            Bc4RUnorm => Self::Bc4,
            Bc5RgUnorm => Self::Bc5,
            Bc7RgbaUnorm | Bc7RgbaUnormSrgb => Self::Bc7,
            Etc2Rgb8Unorm | Etc2Rgb8UnormSrgb => Self::Etc2Rgb,
            Etc2Rgb8A1Unorm | Etc2Rgb8A1UnormSrgb => Self::Etc2RgbA1,
            Etc2Rgba8Unorm | Etc2Rgba8UnormSrgb => Self::Etc2Rgba,
            EacR11Unorm => Self::EacR11,
            EacRg11Unorm => Self::EacRg11,
            Astc { block, .. } => Self::Astc(block.size_px()),
        })
    }

    /// Width and height of a block, texels.
    const fn footprint(self) -> [u32; 2] {
        match self {
            Self::Astc(footprint) => footprint,
            _ => [4, 4],
        }
    }

    /// Bytes of a block.
    const fn block_bytes(self) -> usize {
        match self {
            Self::Bc1 | Self::Bc4 | Self::Etc2Rgb | Self::Etc2RgbA1 | Self::EacR11 => 8,
            _ => 16,
        }
    }

    /// Decodes one block (`block_bytes` bytes; missing bytes read as 0, extra ones are
    /// ignored) into `out`, `footprint()[0]` texels a row.
    fn decode(self, block: &[u8], out: &mut Texels) {
        match self {
            Self::Bc1 => bc::bc1(&bytes(block), out),
            Self::Bc2 => bc::bc2(&bytes(block), out),
            Self::Bc3 => bc::bc3(&bytes(block), out),
            Self::Bc4 => bc::bc4(&bytes(block), out),
            Self::Bc5 => bc::bc5(&bytes(block), out),
            Self::Bc7 => bc::bc7(&bytes(block), out),
            Self::Etc2Rgb => etc::etc2_rgb(&bytes(block), false, out),
            Self::Etc2RgbA1 => etc::etc2_rgb(&bytes(block), true, out),
            Self::Etc2Rgba => etc::etc2_rgba(&bytes(block), out),
            Self::EacR11 => etc::eac_r11(&bytes(block), out),
            Self::EacRg11 => etc::eac_rg11(&bytes(block), out),
            Self::Astc([w, h]) => {
                astc::decode_block(&bytes(block), w, h, out);
            }
        }
    }
}

/// The first `N` bytes of `block` as an array (0 for bytes it lacks): blocks come from
/// `chunks_exact`, so this is a copy, never a failure.
fn bytes<const N: usize>(block: &[u8]) -> [u8; N] {
    let mut out = [0; N];
    for (o, b) in out.iter_mut().zip(block) {
        *o = *b;
    }
    out
}

/// Decodes one `width_px` x `height_px` level of `format` (whole blocks, rows top first) to
/// tightly packed RGBA8: BC1-BC7 with bcdec_rs, ETC2/EAC with core's own decoder, ASTC with
/// astc-decode. One- and two-channel formats come out as `(r, 0, 0, 255)` and
/// `(r, g, 0, 255)`, as GPUs sample them (EAC's 11 bits rounded to 8); sRGB formats stay
/// encoded (register the result as [`Format::Rgba8UnormSrgb`]). RGBA8 input is returned as is.
///
/// Every block decodes to something, as a GPU's sampler would: an illegal ASTC block to the
/// error colour (magenta, `(255, 0, 255, 255)`), BC7's reserved mode to transparent black.
///
/// ```
/// use layerbatch_core::{decode_rgba8, Format};
/// // A BC1 block of one colour: both endpoints pure red (RGB565 0xF800), every index 0.
/// let block = [0x00, 0xF8, 0x00, 0xF8, 0, 0, 0, 0];
/// let rgba = decode_rgba8(Format::Bc1RgbaUnorm, 3, 2, &block)?;
/// assert_eq!(rgba, [255, 0, 0, 255].repeat(6));
/// # Ok::<(), layerbatch_core::DecodeError>(())
/// ```
///
/// # Errors
/// [`DecodeError::Length`] for data that is not the level's blocks (checked first);
/// [`DecodeError::Decoder`] if the decoded level would not fit in this machine's memory (its
/// byte count overflows `usize`, or it cannot be allocated). Never a panic, whatever the bytes.
pub fn decode_rgba8(format: Format, width_px: u32, height_px: u32, blocks: &[u8]) -> Result<Vec<u8>, DecodeError> {
    let expected_bytes = format.image_bytes(width_px, height_px);
    if blocks.len() as u64 != expected_bytes {
        return Err(DecodeError::Length { format, width_px, height_px, actual_bytes: blocks.len(), expected_bytes });
    }
    let Some(decoder) = BlockDecoder::of(format) else {
        return Ok(blocks.to_vec());
    };
    let refused = |message: &str| DecodeError::Decoder { format, width_px, height_px, message: message.to_string() };
    let len = (width_px as usize)
        .checked_mul(height_px as usize)
        .and_then(|texels| texels.checked_mul(4))
        .ok_or_else(|| refused("the decoded level is larger than this machine's address space"))?;
    let mut rgba = Vec::new();
    rgba.try_reserve_exact(len).map_err(|_| refused("the decoded level could not be allocated"))?;
    rgba.resize(len, 0);
    decode_level(decoder, width_px, height_px, blocks, &mut rgba);
    Ok(rgba)
}

/// Decodes the blocks of a `width_px` x `height_px` level into `rgba` (4 bytes a texel):
/// blocks left to right, rows of blocks top first; the texels of a block past the level's
/// right or bottom edge are dropped.
fn decode_level(decoder: BlockDecoder, width_px: u32, height_px: u32, blocks: &[u8], rgba: &mut [u8]) {
    let [bw, bh] = decoder.footprint();
    let (w, h, bw, bh) = (width_px as usize, height_px as usize, bw as usize, bh as usize);
    let row_bytes = w.div_ceil(bw) * decoder.block_bytes();
    if row_bytes == 0 || height_px == 0 {
        return;
    }
    let mut texels = [[0u8; 4]; MAX_BLOCK_TEXELS];
    for (by, row) in blocks.chunks_exact(row_bytes).enumerate() {
        for (bx, block) in row.chunks_exact(decoder.block_bytes()).enumerate() {
            decoder.decode(block, &mut texels);
            let x0 = bx * bw;
            // Texels of this block a row inside the level (x0 < w: the row has w / bw
            // blocks, rounded up).
            let n = bw.min(w.saturating_sub(x0));
            for ty in 0..bh {
                let y = by * bh + ty;
                if y >= h {
                    break;
                }
                // y < h and x0 + n <= w: inside the `w * h * 4` bytes, no overflow.
                let start = (y * w + x0) * 4;
                let (Some(dst), Some(src)) = (rgba.get_mut(start..start + n * 4), texels.get(ty * bw..ty * bw + n))
                else {
                    break;
                };
                for (d, s) in dst.chunks_exact_mut(4).zip(src) {
                    for (d, s) in d.iter_mut().zip(s) {
                        *d = *s;
                    }
                }
            }
        }
    }
}

/// The RGBA8 texture a compressed one is decoded into: the same size, levels, filter, wrap and
/// usage, in [`Format::Rgba8UnormSrgb`] for an sRGB format and [`Format::Rgba8Unorm`]
/// otherwise; and its pixels: every authored level decoded, level 0 first (so the mips drawn
/// are the file's, not ones filtered from level 0).
pub(crate) fn decoded(desc: &TextureDesc, blocks: &[u8]) -> Result<(TextureDesc, Vec<u8>), DecodeError> {
    let format = if desc.format.is_srgb() { Format::Rgba8UnormSrgb } else { Format::Rgba8Unorm };
    let mut pixels = Vec::new();
    let mut at = 0usize;
    for level in 0..desc.mip_levels {
        let (w, h) = crate::mip_size(desc.width_px, desc.height_px, level);
        let len = desc.format.image_bytes(w, h) as usize;
        let level_blocks = blocks.get(at..at.saturating_add(len)).unwrap_or(&[]);
        let rgba = decode_rgba8(desc.format, w, h, level_blocks)?;
        if level == 0 {
            pixels = rgba;
        } else {
            pixels.try_reserve(rgba.len()).map_err(|_| DecodeError::Decoder {
                format: desc.format,
                width_px: w,
                height_px: h,
                message: "the decoded levels could not be allocated".to_string(),
            })?;
            pixels.extend_from_slice(&rgba);
        }
        at = at.saturating_add(len);
    }
    Ok((TextureDesc { format, ..*desc }, pixels))
}
