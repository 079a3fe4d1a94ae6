//! KTX2 ingestion (the `ktx2` feature): a file's levels and layers, checked, as core textures.
//!
//! The container is read by the `ktx2` crate (Bevy's reader); zstd supercompression is undone
//! with ruzstd (pure Rust). Every level the file holds is kept: for a compressed format those
//! are the texture's authored mips.
//!
//! A KTX2 file is untrusted input: a few hundred bytes may declare a million layers, 33 levels
//! or terabytes of texels. Everything the header declares is checked against [`FileLimits`]
//! before anything is allocated for it, and the zstd decoder may neither write past a level's
//! declared size nor keep a window larger than twice it.

#[cfg(feature = "decode")]
use crate::TextureError;
use crate::{Alpha, FileError, FileKind, Format, TextureDesc};

/// The formats a KTX2 file may hold, as a refusal names them.
pub(crate) const KTX2_FORMATS: &str =
    "RGBA8 and the 8-bit formats widened to it, BC1-5/7, ETC2/EAC, ASTC at all 14 block sizes, Basis Universal ETC1S/UASTC";

mod basis;
#[cfg(test)]
mod tests;

#[cfg(feature = "basis")]
pub use basis::read_basis;
pub use basis::{BasisMode, BasisTarget};

/// The smallest zstd window a level may declare, whatever its size: a frame's window is what
/// ruzstd allocates before decoding, so it is bounded by twice the level's size or this.
const MIN_ZSTD_WINDOW_BYTES: u64 = 1 << 20;

/// What [`read_ktx2`] may allocate for one file: checked against the header before anything
/// is allocated for the texture.
///
/// ```
/// use layerbatch_core::FileLimits;
/// let limits = FileLimits::new(64 << 20, 16);
/// assert_eq!((limits.max_bytes, limits.max_layers), (64 << 20, 16));
/// assert_eq!(FileLimits::default(), FileLimits::new(256 << 20, 256));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct FileLimits {
    /// Most bytes the texture may take: every layer's levels in whole blocks (for a BC1 RGB
    /// file decoded to RGBA8, the decoded texels), plus [`FileLimits::LAYER_BOOKKEEPING_BYTES`] a layer.
    /// Default [`FileLimits::DEFAULT_MAX_BYTES`]; [`TextureStore::register_file`](crate::TextureStore::register_file) uses the
    /// budget's `budget_bytes`.
    pub max_bytes: u64,
    /// Most array layers. Default [`FileLimits::DEFAULT_MAX_LAYERS`];
    /// [`TextureStore::register_file`](crate::TextureStore::register_file) uses the budget's `max_layers_per_array` (a KTX2 array is
    /// one array's worth of layers).
    pub max_layers: u32,
}

impl FileLimits {
    /// The default [`FileLimits::max_bytes`]: 256 MiB, the default `Config::budget_bytes`.
    pub const DEFAULT_MAX_BYTES: u64 = 256 << 20;
    /// The default [`FileLimits::max_layers`]: 256, the fewest array layers a GLES 3.0 or
    /// WebGL2 device has (`Limits::guaranteed_minimum`).
    pub const DEFAULT_MAX_LAYERS: u32 = 256;
    /// Bytes counted per layer on top of its data: the `Vec` its levels are kept in. With the
    /// data (at least one block per level), this is what [`FileLimits::max_bytes`] bounds.
    pub const LAYER_BOOKKEEPING_BYTES: u64 = std::mem::size_of::<Vec<u8>>() as u64;

    /// Limits of `max_bytes` and `max_layers`.
    pub const fn new(max_bytes: u64, max_layers: u32) -> Self {
        Self { max_bytes, max_layers }
    }
}

impl Default for FileLimits {
    fn default() -> Self {
        Self::new(Self::DEFAULT_MAX_BYTES, Self::DEFAULT_MAX_LAYERS)
    }
}

/// A KTX2 file read into core's terms: the description of each layer and each layer's bytes,
/// every level of it, level 0 first, as [`TextureStore::register`](crate::TextureStore::register) takes them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileTexture {
    /// Size, format, levels and alpha (filter, wrap and usage as the caller gave them).
    pub desc: TextureDesc,
    /// Each array layer's levels, back to back (one entry for a plain 2D file).
    pub layers: Vec<Vec<u8>>,
}

/// Core's format for a Vulkan format number, as KTX2 files name them. BC1's RGB and RGBA
/// variants are one format here, as in wgpu and Bevy; [`read_ktx2`] checks the blocks of a
/// BC1 RGB file (131, 132) before storing them as RGBA ([`FileError::Bc1RgbBlackTexels`]).
pub fn format_from_vk(vk_format: u32) -> Option<Format> {
    Some(match vk_format {
        37 => Format::Rgba8Unorm,
        43 => Format::Rgba8UnormSrgb,
        131 | 133 => Format::Bc1RgbaUnorm,
        132 | 134 => Format::Bc1RgbaUnormSrgb,
        135 => Format::Bc2RgbaUnorm,
        136 => Format::Bc2RgbaUnormSrgb,
        137 => Format::Bc3RgbaUnorm,
        138 => Format::Bc3RgbaUnormSrgb,
        139 => Format::Bc4RUnorm,
        141 => Format::Bc5RgUnorm,
        145 => Format::Bc7RgbaUnorm,
        146 => Format::Bc7RgbaUnormSrgb,
        147 => Format::Etc2Rgb8Unorm,
        148 => Format::Etc2Rgb8UnormSrgb,
        149 => Format::Etc2Rgb8A1Unorm,
        150 => Format::Etc2Rgb8A1UnormSrgb,
        151 => Format::Etc2Rgba8Unorm,
        152 => Format::Etc2Rgba8UnormSrgb,
        153 => Format::EacR11Unorm,
        155 => Format::EacRg11Unorm,
        // VK_FORMAT_ASTC_{4x4 .. 12x12}_{UNORM, SRGB}_BLOCK, in `AstcBlock::ALL`'s order.
        157..=184 => {
            let i = vk_format - 157;
            Format::Astc { block: crate::AstcBlock::ALL[(i / 2) as usize], srgb: i % 2 == 1 }
        }
        _ => return None,
    })
}

/// An 8-bit uncompressed format other than RGBA8, widened to RGBA8 as it is read: `channels`
/// bytes a texel, in BGR(A) order when `bgr`.
#[derive(Clone, Copy, Debug)]
struct Narrow {
    channels: u8,
    bgr: bool,
}

impl Narrow {
    /// Appends `texels` (tightly packed, as KTX2 stores uncompressed levels) as RGBA8: R as
    /// `(r, 0, 0, 255)`, RG as `(r, g, 0, 255)`, RGB as `(r, g, b, 255)`, as GPUs sample them.
    fn widen(self, texels: &[u8], out: &mut Vec<u8>) {
        for t in texels.chunks_exact(usize::from(self.channels)) {
            let mut rgba = [0, 0, 0, 255];
            rgba[..t.len()].copy_from_slice(t);
            if self.bgr {
                rgba.swap(0, 2);
            }
            out.extend_from_slice(&rgba);
        }
    }
}

/// RGBA8 (linear or sRGB) for the 8-bit uncompressed formats `toktx` writes besides RGBA8:
/// R8, RG8, RGB8, BGR8 and BGRA8, UNORM and SRGB.
fn narrow_8bit(vk_format: u32) -> Option<(Format, Narrow)> {
    let (channels, bgr, srgb) = match vk_format {
        9 => (1, false, false),
        15 => (1, false, true),
        16 => (2, false, false),
        22 => (2, false, true),
        23 => (3, false, false),
        29 => (3, false, true),
        30 => (3, true, false),
        36 => (3, true, true),
        44 => (4, true, false),
        50 => (4, true, true),
        _ => return None,
    };
    let format = if srgb { Format::Rgba8UnormSrgb } else { Format::Rgba8Unorm };
    Some((format, Narrow { channels, bgr }))
}

/// Whether texels of the file's format carry alpha: BC1 RGB (131, 132), BC4, BC5, ETC2 RGB
/// and EAC do not (alpha is 1, so straight and premultiplied are the same).
const fn has_alpha(vk_format: u32, format: Format) -> bool {
    use Format::*;
    match format {
        Bc1RgbaUnorm | Bc1RgbaUnormSrgb => !matches!(vk_format, 131 | 132),
        Bc4RUnorm | Bc5RgUnorm | Etc2Rgb8Unorm | Etc2Rgb8UnormSrgb | EacR11Unorm | EacRg11Unorm => false,
        _ => true,
    }
}

/// Bytes `layers` layers of `levels` levels take, as [`FileLimits::max_bytes`] counts them.
fn footprint(width_px: u32, height_px: u32, levels: u32, layers: u32, format: Format) -> u64 {
    crate::mip_chain_bytes(width_px, height_px, levels, format)
        .saturating_add(FileLimits::LAYER_BOOKKEEPING_BYTES)
        .saturating_mul(u64::from(layers))
}

/// Walks the data format descriptor as the `ktx2` crate will, and refuses a basic block with
/// a texel block dimension of 255 (stored minus one: 256), on which ktx2 0.5 panics
/// (`NonZeroU8::new(dim + 1).unwrap()`). Anything else malformed is left to the crate.
fn check_dfd(bytes: &[u8]) -> Result<(), String> {
    let u32_at = |at: usize| bytes.get(at..at + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    let (Some(offset), Some(length)) = (u32_at(48), u32_at(52)) else { return Ok(()) };
    let (offset, length) = (offset as usize, length as usize);
    let Some(mut dfd) = offset.checked_add(length).and_then(|end| bytes.get(offset.checked_add(4)?..end)) else {
        return Ok(());
    };
    while dfd.len() >= 8 {
        let first = u32::from_le_bytes([dfd[0], dfd[1], dfd[2], dfd[3]]);
        let version = u16::from_le_bytes([dfd[4], dfd[5]]);
        let size = usize::from(u16::from_le_bytes([dfd[6], dfd[7]]));
        let Some(block) = dfd.get(8..size) else { return Ok(()) };
        if first == 0 && version == 2 && block.get(4..8).is_some_and(|dims| dims.contains(&255)) {
            return Err("the data format descriptor declares a texel block dimension of 256".to_string());
        }
        dfd = &dfd[size..];
    }
    Ok(())
}

/// Reads a KTX2 file: checks the container, the format, that it is a 2D texture or 2D array,
/// and every level's size; undoes zstd. `like` gives filter, wrap and usage (its size,
/// format and levels are the file's). A file with `levelCount` 0 ("generate mips") reads
/// as one level.
///
/// Alpha: a file whose format has alpha and whose data format descriptor lacks
/// `KHR_DF_FLAG_ALPHA_PREMULTIPLIED` is straight ([`Alpha::Straight`]: premultiplied by core),
/// with the flag it is [`Alpha::Premultiplied`]; a file without a basic descriptor keeps
/// `like.alpha`. Formats without alpha (BC1 RGB, BC4, BC5, ETC2 RGB, EAC) are premultiplied.
///
/// BC1 RGB files (`vkFormat` 131, 132) are stored as BC1 RGBA, with the blocks whose opaque
/// black would turn transparent rewritten; where that cannot be done, decoded to RGBA8 with the
/// `decode` feature, refused without ([`FileError::Bc1RgbBlackTexels`]).
///
/// ```
/// use layerbatch_core::{read_ktx2, FileError, FileLimits, TextureDesc};
/// let err = read_ktx2(b"not a ktx2 file", &TextureDesc::new(1, 1), FileLimits::default()).unwrap_err();
/// assert!(matches!(err, FileError::Container { .. }));
/// ```
///
/// # Errors
/// [`FileError`], naming what was wrong. Nothing is allocated for the texture before its
/// header is checked: at most [`crate::max_mip_levels`] levels for its size
/// ([`FileError::TooManyLevels`]), at most `limits.max_bytes` in all
/// ([`FileError::TooLarge`]: a file of a few bytes may declare terabytes) and at most
/// `limits.max_layers` layers ([`FileError::TooManyLayers`]); a zstd level is decompressed only
/// once its declared size matches its dimensions, into a buffer of that size.
pub fn read_ktx2(bytes: &[u8], like: &TextureDesc, limits: FileLimits) -> Result<FileTexture, FileError> {
    let container = |message: String| FileError::Container { kind: FileKind::Ktx2, len: bytes.len(), message };
    check_dfd(bytes).map_err(container)?;
    let reader = ktx2::Reader::new(bytes).map_err(|e| container(e.to_string()))?;
    let h = reader.header();
    if let Some(mode) = basis::basis_mode(&reader) {
        let how = "read_ktx2 does not know the device's families: use read_basis or TextureStore::register_file (the \
                   `basis` feature)";
        return Err(FileError::NotTranscoded { mode, how });
    }
    let vk_format = h.format.map_or(0, |f| f.value());
    let (format, narrow) = match format_from_vk(vk_format) {
        Some(format) => (format, None),
        None => narrow_8bit(vk_format).map(|(f, n)| (f, Some(n))).ok_or(FileError::Format {
            kind: FileKind::Ktx2,
            format: format!("vkFormat {vk_format}"),
            why: KTX2_FORMATS,
        })?,
    };
    let unsupported = |what: String| Err(FileError::Unsupported { kind: FileKind::Ktx2, what });
    if h.face_count != 1 {
        return unsupported(format!("a cube map ({} faces)", h.face_count));
    }
    if h.pixel_depth > 1 {
        return unsupported(format!("a 3D texture ({} deep)", h.pixel_depth));
    }
    if h.pixel_height == 0 {
        return unsupported("a 1D texture".to_string());
    }
    let zstd = match h.supercompression_scheme {
        None => false,
        Some(ktx2::SupercompressionScheme::Zstandard) => true,
        Some(other) => return unsupported(format!("supercompression {other:?}")),
    };
    let (w, h_px, layers) = (h.pixel_width, h.pixel_height, h.layer_count.max(1));
    let levels = h.level_count.max(1);
    // Every mip size below is of a level that exists: at most 32 levels, none past 1x1.
    let max_levels = crate::max_mip_levels(w, h_px);
    if levels > max_levels {
        return Err(FileError::TooManyLevels {
            kind: FileKind::Ktx2,
            width_px: w,
            height_px: h_px,
            levels,
            max_levels,
        });
    }
    let total_bytes = footprint(w, h_px, levels, layers, format);
    if total_bytes > limits.max_bytes {
        let max_bytes = limits.max_bytes;
        return Err(FileError::TooLarge {
            kind: FileKind::Ktx2,
            format,
            width_px: w,
            height_px: h_px,
            layers,
            levels,
            total_bytes,
            max_bytes,
        });
    }
    if layers > limits.max_layers {
        return Err(FileError::TooManyLayers { kind: FileKind::Ktx2, layers, max_layers: limits.max_layers });
    }
    // Bounded by both checks above: at most `max_layers` vectors of at most `max_bytes` in all.
    let chain_bytes = crate::mip_chain_bytes(w, h_px, levels, format) as usize;
    let mut per_layer: Vec<Vec<u8>> = (0..layers).map(|_| Vec::with_capacity(chain_bytes)).collect();
    for (level, data) in reader.levels().enumerate() {
        let level = level as u32;
        let (lw, lh) = crate::mip_size(w, h_px, level);
        // In the file's format: fewer bytes a texel than RGBA8 for a narrow one.
        let image = match narrow {
            Some(n) => u64::from(lw) * u64::from(lh) * u64::from(n.channels),
            None => format.image_bytes(lw, lh),
        };
        let expected_bytes = image.saturating_mul(u64::from(layers));
        let size_error = |actual_bytes: u64| FileError::LevelSize {
            level,
            width_px: lw,
            height_px: lh,
            layers,
            format,
            actual_bytes,
            expected_bytes,
        };
        let decompressed;
        let data = if zstd {
            if data.uncompressed_byte_length != expected_bytes {
                return Err(size_error(data.uncompressed_byte_length));
            }
            decompressed = unzstd(data.data, expected_bytes, level)?;
            &decompressed[..]
        } else {
            data.data
        };
        if data.len() as u64 != expected_bytes {
            return Err(size_error(data.len() as u64));
        }
        for (layer, chunk) in per_layer.iter_mut().zip(data.chunks_exact(image as usize)) {
            match narrow {
                Some(n) => n.widen(chunk, layer),
                None => layer.extend_from_slice(chunk),
            }
        }
    }
    let with_alpha = narrow.map_or(has_alpha(vk_format, format), |n| n.channels == 4);
    let alpha = if !with_alpha {
        Alpha::Premultiplied
    } else {
        match reader.is_alpha_premultiplied() {
            Some(true) => Alpha::Premultiplied,
            Some(false) => Alpha::Straight,
            None => like.alpha,
        }
    };
    let desc = TextureDesc { width_px: w, height_px: h_px, format, mip_levels: levels, alpha, ..*like };
    if matches!(vk_format, 131 | 132) {
        let black = per_layer.iter_mut().map(|layer| bc1_rgb_as_rgba(layer, w, h_px, levels)).sum::<u64>();
        if black > 0 {
            return bc1_rgb_decoded(desc, per_layer, black, limits);
        }
    }
    Ok(FileTexture { desc, layers: per_layer })
}

/// Decompresses one zstd level of `expected_bytes` into a buffer of exactly that size (the
/// caller checked it against the limits), cut to what the frames held.
fn unzstd(data: &[u8], expected_bytes: u64, level: u32) -> Result<Vec<u8>, FileError> {
    let zstd_error = |message: String| FileError::Zstd { level, message };
    let len = usize::try_from(expected_bytes).map_err(|e| zstd_error(e.to_string()))?;
    let mut decoder = ruzstd::decoding::FrameDecoder::new();
    // ruzstd allocates a frame's declared window before decoding it, and keeps up to the
    // window before handing bytes out: a frame of a few bytes may declare 128 MiB.
    decoder.set_max_window_size(expected_bytes.saturating_mul(2).max(MIN_ZSTD_WINDOW_BYTES));
    let mut out = vec![0u8; len];
    // A fixed buffer: ruzstd writes at most `len` bytes (more is its `TargetTooSmall`).
    let written = decoder.decode_all(data, &mut out).map_err(|e| zstd_error(e.to_string()))?;
    out.truncate(written);
    Ok(out)
}

/// What reading a BC1 RGB block as BC1 RGBA takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bc1Block {
    /// Nothing: it decodes the same either way.
    Same,
    /// It was rewritten to decode the same as RGBA.
    Rewritten,
    /// It draws opaque black texels with index 3 of a 3-colour block and another colour
    /// besides: RGBA has no such block.
    Black,
}

/// Makes one BC1 RGB block decode the same read as BC1 RGBA, over its `visible` texels (bit
/// `y * 4 + x`; texels past the level's edge are never sampled).
fn bc1_block_as_rgba(block: &mut [u8], visible: u16) -> Bc1Block {
    let c0 = u16::from_le_bytes([block[0], block[1]]);
    let c1 = u16::from_le_bytes([block[2], block[3]]);
    let indices = u32::from_le_bytes([block[4], block[5], block[6], block[7]]);
    let index = |t: u32| (indices >> (2 * t)) & 3;
    let shown = |t: u32| visible & (1 << t) != 0;
    // 4-colour mode has no transparent index; a 3-colour block without a visible index 3 draws
    // the same in both readings.
    if c0 > c1 || !(0..16).any(|t| shown(t) && index(t) == 3) {
        return Bc1Block::Same;
    }
    let remap = |block: &mut [u8], to: &dyn Fn(u32) -> u32| {
        let new = (0..16).fold(0u32, |acc, t| acc | (to(index(t)) << (2 * t)));
        block[4..8].copy_from_slice(&new.to_le_bytes());
    };
    if c0 == 0 {
        // Endpoint 0 is black (and the block stays 3-colour): index 3 becomes 0.
        remap(block, &|i| if i == 3 { 0 } else { i });
        return Bc1Block::Rewritten;
    }
    // The colours visible besides black: 0 is c0, 1 is c1, 2 their midpoint (c0 itself when
    // c0 == c1, as are 0 and 1).
    let mut used = [false; 3];
    for t in (0..16).filter(|&t| shown(t) && index(t) != 3) {
        used[index(t) as usize] = true;
    }
    let other = match used {
        _ if c0 == c1 => c0,
        [_, false, false] => c0,
        [false, true, false] => c1,
        _ => return Bc1Block::Black,
    };
    // One colour and black: 4-colour mode (`other > 0`), the colour as endpoint 0 (index 0),
    // black as endpoint 1 (index 1), both exact.
    block[0..2].copy_from_slice(&other.to_le_bytes());
    block[2..4].copy_from_slice(&0u16.to_le_bytes());
    remap(block, &|i| u32::from(i == 3));
    Bc1Block::Rewritten
}

/// Rewrites the blocks of one layer's BC1 RGB levels (`levels` of a `width_px` x `height_px`
/// texture, back to back) to decode the same as BC1 RGBA; returns how many blocks could not be.
fn bc1_rgb_as_rgba(layer: &mut [u8], width_px: u32, height_px: u32, levels: u32) -> u64 {
    let mut black = 0;
    let mut at = 0usize;
    for level in 0..levels {
        let (lw, lh) = crate::mip_size(width_px, height_px, level);
        let len = Format::Bc1RgbaUnorm.image_bytes(lw, lh) as usize;
        let Some(data) = layer.get_mut(at..at + len) else { break };
        at += len;
        let blocks_wide = lw.div_ceil(4) as usize;
        for (i, block) in data.chunks_exact_mut(8).enumerate() {
            let (bx, by) = ((i % blocks_wide) as u32 * 4, (i / blocks_wide) as u32 * 4);
            let visible = (0..16u32).filter(|t| bx + t % 4 < lw && by + t / 4 < lh).fold(0u16, |acc, t| acc | (1 << t));
            if bc1_block_as_rgba(block, visible) == Bc1Block::Black {
                black += 1;
            }
        }
    }
    black
}

/// A BC1 RGB texture with `black` blocks RGBA cannot draw: decoded to RGBA8 (every level,
/// alpha 255), once the decoded texels are found to fit `limits.max_bytes`.
#[cfg(feature = "decode")]
fn bc1_rgb_decoded(
    desc: TextureDesc,
    blocks: Vec<Vec<u8>>,
    _black: u64,
    limits: FileLimits,
) -> Result<FileTexture, FileError> {
    let format = if desc.format.is_srgb() { Format::Rgba8UnormSrgb } else { Format::Rgba8Unorm };
    let (w, h, levels, layers) = (desc.width_px, desc.height_px, desc.mip_levels, blocks.len() as u32);
    let total_bytes = footprint(w, h, levels, layers, format);
    if total_bytes > limits.max_bytes {
        let max_bytes = limits.max_bytes;
        return Err(FileError::TooLarge {
            kind: FileKind::Ktx2,
            format,
            width_px: w,
            height_px: h,
            layers,
            levels,
            total_bytes,
            max_bytes,
        });
    }
    let chain_bytes = crate::mip_chain_bytes(w, h, levels, format) as usize;
    let mut decoded = Vec::with_capacity(blocks.len());
    for (layer, data) in blocks.iter().enumerate() {
        let mut rgba = Vec::with_capacity(chain_bytes);
        let mut at = 0usize;
        for level in 0..levels {
            let (lw, lh) = crate::mip_size(w, h, level);
            let len = desc.format.image_bytes(lw, lh) as usize;
            let level_blocks = data.get(at..at + len).unwrap_or_default();
            at += len;
            let texels = crate::decode_rgba8(desc.format, lw, lh, level_blocks).map_err(|e| FileError::Texture {
                kind: FileKind::Ktx2,
                layer: layer as u32,
                source: TextureError::from(e),
            })?;
            // BC1 RGB has no alpha: the texels RGBA decodes transparent are opaque black.
            rgba.extend(texels.chunks_exact(4).flat_map(|t| [t[0], t[1], t[2], 255]));
        }
        decoded.push(rgba);
    }
    let desc = TextureDesc { format, alpha: Alpha::Premultiplied, ..desc };
    Ok(FileTexture { desc, layers: decoded })
}

/// A BC1 RGB texture with `black` blocks RGBA cannot draw, without the `decode` feature.
#[cfg(not(feature = "decode"))]
fn bc1_rgb_decoded(
    _desc: TextureDesc,
    _blocks: Vec<Vec<u8>>,
    black: u64,
    _limits: FileLimits,
) -> Result<FileTexture, FileError> {
    Err(FileError::Bc1RgbBlackTexels { blocks: black })
}
