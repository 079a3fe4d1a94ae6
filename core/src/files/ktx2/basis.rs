//! Basis Universal KTX2 files (ETC1S and UASTC, zstd or not): transcoded at registration to
//! the best family the device samples, by the pure-Rust `basisu` transcoder (the `basis`
//! feature).
//!
//! The transcoder trusts its container more than core does: a forged zstd length is
//! allocated as given, a key/value section at the end of the file is walked past its end, and
//! ETC1S slice offsets are added without overflow checks. So core reads the container
//! itself (the `ktx2` crate, as for every KTX2 file), checks every size and offset the
//! transcoder will use against the file and [`FileLimits`], undoes zstd with its own
//! window-bounded decoder, and hands the transcoder a clean copy: header, level index, data
//! format descriptor, global data and plain levels, nothing else.

use crate::{AstcBlock, Format, FormatFamilies, FormatFamily, TextureDesc, Wrap};

#[cfg(feature = "basis")]
use super::{check_dfd, footprint, unzstd, FileLimits, FileTexture};
#[cfg(feature = "basis")]
use crate::Alpha;
#[cfg(feature = "basis")]
use crate::{FileError, FileKind};

/// The two Basis Universal codecs a KTX2 file may carry (`vkFormat` 0, the data format
/// descriptor's colour model saying which).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BasisMode {
    /// ETC1S: small files (BasisLZ-supercompressed ETC1 endpoints and selectors), colour model
    /// 163.
    Etc1s,
    /// UASTC LDR 4x4: high quality, each block a valid ASTC 4x4 block in disguise; often zstd
    /// supercompressed. Colour model 166.
    Uastc,
}

impl std::fmt::Display for BasisMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BasisMode::Etc1s => "ETC1S",
            BasisMode::Uastc => "UASTC",
        })
    }
}

/// What a Basis Universal file is transcoded to: chosen once per file from the device's
/// families by [`BasisTarget::choose`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BasisTarget {
    /// ASTC 4x4 (UASTC to ASTC 4x4 is lossless): where the device has ASTC.
    Astc4x4,
    /// BC7: where the device has BC.
    Bc7,
    /// ETC2 RGBA8 (ETC2 + EAC alpha) for a file with alpha, ETC1 stored as ETC2 RGB8 (half
    /// the bytes) for one without: where the device has ETC2.
    Etc2,
    /// RGBA8: a device with none of those, or a texture whose levels cannot be whole blocks.
    Rgba8,
}

impl std::fmt::Display for BasisTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BasisTarget::Astc4x4 => "ASTC 4x4",
            BasisTarget::Bc7 => "BC7",
            BasisTarget::Etc2 => "ETC2",
            BasisTarget::Rgba8 => "RGBA8",
        })
    }
}

impl BasisTarget {
    /// The target for a Basis texture described by `desc` (its size, levels and sampler) on a
    /// device with `families`: ASTC 4x4, else BC7, else ETC2, else RGBA8, the order of
    /// quality a byte (three.js's `KTX2Loader` and PixiJS pick in the same order). A texture
    /// whose levels cannot all be whole 4x4 blocks (a side not a multiple of 4 with mips, or
    /// an axis that repeats) goes to RGBA8: core would refuse the blocks
    /// ([`crate::TextureError::PartialBlocks`]) or decode them to RGBA8 anyway, and the
    /// transcoder's RGBA8 is exact.
    ///
    /// ```
    /// use layerbatch_core::{BasisTarget, FormatFamilies, FormatFamily, TextureDesc};
    /// let bc = FormatFamilies::RGBA8.with(FormatFamily::Bc);
    /// assert_eq!(BasisTarget::choose(bc, &TextureDesc::new(64, 64)), BasisTarget::Bc7);
    /// assert_eq!(BasisTarget::choose(FormatFamilies::ALL, &TextureDesc::new(64, 64)), BasisTarget::Astc4x4);
    /// let odd_with_mips = TextureDesc::new(37, 29).with_mip_levels(3);
    /// assert_eq!(BasisTarget::choose(FormatFamilies::ALL, &odd_with_mips), BasisTarget::Rgba8);
    /// ```
    pub fn choose(families: FormatFamilies, desc: &TextureDesc) -> BasisTarget {
        let (partial_u, partial_v) = (desc.width_px % 4 != 0, desc.height_px % 4 != 0);
        let repeats = (partial_u && desc.sampler.wrap_u != Wrap::ClampToEdge)
            || (partial_v && desc.sampler.wrap_v != Wrap::ClampToEdge);
        if ((partial_u || partial_v) && desc.mip_levels > 1) || repeats {
            return BasisTarget::Rgba8;
        }
        if families.contains(FormatFamily::Astc) {
            BasisTarget::Astc4x4
        } else if families.contains(FormatFamily::Bc) {
            BasisTarget::Bc7
        } else if families.contains(FormatFamily::Etc2) {
            BasisTarget::Etc2
        } else {
            BasisTarget::Rgba8
        }
    }

    /// Core's format for this target, for a file with or without alpha, sRGB or linear.
    pub const fn format(self, has_alpha: bool, srgb: bool) -> Format {
        match (self, has_alpha, srgb) {
            (BasisTarget::Astc4x4, _, srgb) => Format::Astc { block: AstcBlock::B4x4, srgb },
            (BasisTarget::Bc7, _, false) => Format::Bc7RgbaUnorm,
            (BasisTarget::Bc7, _, true) => Format::Bc7RgbaUnormSrgb,
            (BasisTarget::Etc2, true, false) => Format::Etc2Rgba8Unorm,
            (BasisTarget::Etc2, true, true) => Format::Etc2Rgba8UnormSrgb,
            (BasisTarget::Etc2, false, false) => Format::Etc2Rgb8Unorm,
            (BasisTarget::Etc2, false, true) => Format::Etc2Rgb8UnormSrgb,
            (BasisTarget::Rgba8, _, false) => Format::Rgba8Unorm,
            (BasisTarget::Rgba8, _, true) => Format::Rgba8UnormSrgb,
        }
    }
}

/// The Basis mode of a KTX2 file, if it is one: `vkFormat` 0 and a basic data format
/// descriptor of colour model ETC1S (163) or UASTC (166).
pub(crate) fn basis_mode<D: AsRef<[u8]>>(reader: &ktx2::Reader<D>) -> Option<BasisMode> {
    if reader.header().format.is_some() {
        return None;
    }
    match reader.color_model()? {
        ktx2::ColorModel::ETC1S => Some(BasisMode::Etc1s),
        ktx2::ColorModel::UASTC => Some(BasisMode::Uastc),
        _ => None,
    }
}

/// The largest side a Basis file may have: with it, every `width * height * 4` the
/// transcoder computes in `u32` fits.
#[cfg(feature = "basis")]
const MAX_SIDE_PX: u32 = 1 << 15;

/// Reads a Basis Universal KTX2 file (ETC1S or UASTC, zstd-supercompressed or not, 2D or a 2D
/// array, with its authored mips) and transcodes every level of every layer to the target
/// [`BasisTarget::choose`] gives for `families` (the device's: `Limits::format_families`).
/// `like` gives the sampler and usage; alpha is the file's (premultiplied when its descriptor
/// says so, else straight; premultiplied for a file without alpha), sRGB its transfer
/// function's. [`crate::TextureStore::register_file`] calls this for a Basis
/// file, with the budget as `limits`.
///
/// The transcoded bytes are the reference transcoder's (Binomial's `basisu_transcoder`):
/// `tests/real_files.rs` compares them with another build of it, byte for byte.
///
/// ```
/// use layerbatch_core::{read_basis, FileLimits, FormatFamilies, FileError, TextureDesc};
/// let err = read_basis(b"not a ktx2 file", &TextureDesc::new(1, 1), FileLimits::default(), FormatFamilies::ALL);
/// assert!(matches!(err, Err(FileError::Container { .. })));
/// ```
///
/// # Errors
/// [`FileError`]: [`FileError::Format`] for a KTX2 file that is not Basis; the limits
/// ([`FileError::TooLarge`] counts the transcoded bytes, or a UASTC file's plain blocks
/// where they are more, [`FileError::TooManyLayers`],
/// [`FileError::TooManyLevels`]) checked before anything is allocated;
/// [`FileError::LevelSize`] for a UASTC level of the wrong size; [`FileError::Container`] for
/// ETC1S global data whose offsets leave their section; [`FileError::Unsupported`] for a cube
/// map, a 3D texture, an ETC1S video or a supercompression the mode does not use;
/// [`FileError::Transcode`] for an image the transcoder refuses.
#[cfg(feature = "basis")]
pub fn read_basis(
    bytes: &[u8],
    like: &TextureDesc,
    limits: FileLimits,
    families: FormatFamilies,
) -> Result<FileTexture, FileError> {
    let container = |message: String| FileError::Container { kind: FileKind::Ktx2, len: bytes.len(), message };
    check_dfd(bytes).map_err(container)?;
    let reader = ktx2::Reader::new(bytes).map_err(|e| container(e.to_string()))?;
    let h = reader.header();
    let Some(mode) = basis_mode(&reader) else {
        return Err(FileError::Format {
            kind: FileKind::Ktx2,
            format: format!("vkFormat {}", h.format.map_or(0, |f| f.value())),
            why: super::KTX2_FORMATS,
        });
    };
    let unsupported = |what: String| Err(FileError::Unsupported { kind: FileKind::Ktx2, what });
    if h.face_count != 1 {
        return unsupported(format!("a Basis {mode} cube map ({} faces)", h.face_count));
    }
    if h.pixel_depth > 1 || h.pixel_height == 0 {
        return unsupported(format!("a Basis {mode} texture {} deep and {} high", h.pixel_depth, h.pixel_height));
    }
    let zstd = match (mode, h.supercompression_scheme) {
        (BasisMode::Etc1s, Some(ktx2::SupercompressionScheme::BasisLZ)) => false,
        (BasisMode::Uastc, None) => false,
        (BasisMode::Uastc, Some(ktx2::SupercompressionScheme::Zstandard)) => true,
        (_, scheme) => return unsupported(format!("Basis {mode} with supercompression {scheme:?}")),
    };
    if reader.key_value_data().any(|(key, _)| key == "KTXanimData") {
        return unsupported(format!("a Basis {mode} video (KTXanimData)"));
    }
    let (w, h_px, layers) = (h.pixel_width, h.pixel_height, h.layer_count.max(1));
    if w > MAX_SIDE_PX || h_px > MAX_SIDE_PX {
        return unsupported(format!("a {w}x{h_px} Basis {mode} texture (at most {MAX_SIDE_PX} texels a side)"));
    }
    let levels = h.level_count.max(1);
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
    if layers > limits.max_layers {
        return Err(FileError::TooManyLayers { kind: FileKind::Ktx2, layers, max_layers: limits.max_layers });
    }
    let sized = TextureDesc { width_px: w, height_px: h_px, mip_levels: levels, ..*like };
    let target = BasisTarget::choose(families, &sized);
    // Alpha and sRGB as the transcoder will see them: ETC1S has alpha when the descriptor
    // has a second sample (an alpha slice), UASTC when its channel is RGBA or RRRG.
    let basic = reader.basic_dfd();
    let has_alpha = match mode {
        BasisMode::Etc1s => basic.is_some_and(|b| b.sample_information.len() > 1),
        BasisMode::Uastc => {
            basic.and_then(|b| b.sample_information.first()).is_some_and(|s| matches!(s.channel_type, 3 | 5))
        }
    };
    let srgb = reader.transfer_function() == Some(ktx2::TransferFunction::SRGB);
    let format = target.format(has_alpha, srgb);
    // The transcoded texture, and the plain (zstd-free) UASTC levels on the way (16 bytes a
    // block: twice an opaque file's ETC1), both bounded.
    let plain_uastc_bytes = match mode {
        BasisMode::Uastc => footprint(w, h_px, levels, layers, Format::Bc7RgbaUnorm),
        BasisMode::Etc1s => 0,
    };
    let total_bytes = footprint(w, h_px, levels, layers, format).max(plain_uastc_bytes);
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
    let clean = clean_container(&reader, mode, zstd, layers, levels)?;
    let transcoder = basisu::Transcoder::new(&clean)
        .map_err(|e| container(format!("the Basis {mode} transcoder refuses its header: {e:?}")))?;
    if transcoder.has_alpha() != has_alpha || transcoder.is_video() {
        return Err(container(format!("a Basis {mode} header the transcoder reads another way")));
    }
    let to = match (target, has_alpha) {
        (BasisTarget::Astc4x4, _) => basisu::TargetFormat::Astc4x4Rgba,
        (BasisTarget::Bc7, _) => basisu::TargetFormat::Bc7Rgba,
        (BasisTarget::Etc2, true) => basisu::TargetFormat::Etc2Rgba,
        (BasisTarget::Etc2, false) => basisu::TargetFormat::Etc1Rgb,
        (BasisTarget::Rgba8, _) => basisu::TargetFormat::Rgba32,
    };
    let chain_bytes = crate::mip_chain_bytes(w, h_px, levels, format) as usize;
    let mut per_layer: Vec<Vec<u8>> = (0..layers).map(|_| Vec::with_capacity(chain_bytes)).collect();
    for level in 0..levels {
        let (lw, lh) = crate::mip_size(w, h_px, level);
        let image_bytes = format.image_bytes(lw, lh) as usize;
        let transcode_error =
            |layer: u32, message: String| FileError::Transcode { mode, level, layer, target, message };
        let needed = transcoder.output_size(level, to).map_err(|e| transcode_error(0, format!("{e:?}")))?;
        if needed != image_bytes {
            return Err(transcode_error(0, format!("{needed} bytes for a {lw}x{lh} {format} image")));
        }
        for (layer, out) in (0..layers).zip(per_layer.iter_mut()) {
            let flags = basisu::DecodeFlags::NONE;
            if layers == 1 {
                // Straight into the layer: no second copy of the level.
                let at = out.len();
                out.resize(at + image_bytes, 0);
                transcoder
                    .transcode_into(level, to, flags, &mut out[at..])
                    .map_err(|e| transcode_error(layer, format!("{e:?}")))?;
            } else {
                let image = transcoder
                    .transcode_image(level, layer, 0, to, flags)
                    .map_err(|e| transcode_error(layer, format!("{e:?}")))?;
                if image.len() != image_bytes {
                    return Err(transcode_error(
                        layer,
                        format!("{} bytes for a {lw}x{lh} {format} image", image.len()),
                    ));
                }
                out.extend_from_slice(&image);
            }
        }
    }
    let alpha = match (has_alpha, reader.is_alpha_premultiplied()) {
        (true, Some(false) | None) => Alpha::Straight,
        _ => Alpha::Premultiplied,
    };
    let desc = TextureDesc { format, alpha, ..sized };
    Ok(FileTexture { desc, layers: per_layer })
}

/// Bytes of a KTX2 header and of one level index entry.
#[cfg(feature = "basis")]
const HEADER_BYTES: usize = 80;
#[cfg(feature = "basis")]
const LEVEL_INDEX_BYTES: usize = 24;

/// The file as the transcoder gets it: header, level index, data format descriptor, global
/// data and levels, with no key/value data and zstd undone, once every size and offset the
/// transcoder uses is checked: a UASTC level holds `layers` images of 16-byte blocks, an
/// ETC1S file's global data holds its image descriptors and codebooks, and each slice lies
/// within its level.
#[cfg(feature = "basis")]
fn clean_container(
    reader: &ktx2::Reader<&[u8]>,
    mode: BasisMode,
    zstd: bool,
    layers: u32,
    levels: u32,
) -> Result<Vec<u8>, FileError> {
    let bytes = reader.data();
    let container = |message: String| FileError::Container { kind: FileKind::Ktx2, len: bytes.len(), message };
    let h = reader.header();
    let (w, h_px) = (h.pixel_width, h.pixel_height);
    let index = h.index;
    let dfd = bytes
        .get(index.dfd_byte_offset as usize..(index.dfd_byte_offset + index.dfd_byte_length) as usize)
        .ok_or_else(|| container("the data format descriptor is past the end".to_string()))?;
    let sgd = reader.supercompression_global_data();
    let mut level_data: Vec<std::borrow::Cow<'_, [u8]>> = Vec::with_capacity(levels as usize);
    for (level, data) in reader.levels().enumerate() {
        let level = level as u32;
        let (lw, lh) = crate::mip_size(w, h_px, level);
        if mode == BasisMode::Etc1s {
            level_data.push(data.data.into());
            continue;
        }
        // UASTC: `layers` images of 16-byte 4x4 blocks.
        let expected_bytes = Format::Bc7RgbaUnorm.image_bytes(lw, lh).saturating_mul(u64::from(layers));
        let size_error = |actual_bytes: u64| FileError::LevelSize {
            level,
            width_px: lw,
            height_px: lh,
            layers,
            format: Format::Astc { block: AstcBlock::B4x4, srgb: false },
            actual_bytes,
            expected_bytes,
        };
        let plain = if zstd {
            if data.uncompressed_byte_length != expected_bytes {
                return Err(size_error(data.uncompressed_byte_length));
            }
            unzstd(data.data, expected_bytes, level)?.into()
        } else {
            std::borrow::Cow::Borrowed(data.data)
        };
        if plain.len() as u64 != expected_bytes {
            return Err(size_error(plain.len() as u64));
        }
        level_data.push(plain);
    }
    if mode == BasisMode::Etc1s {
        check_etc1s_global_data(sgd, &level_data, layers).map_err(container)?;
    }
    // Header (the file's, with zstd undone and no key/value data), level index, DFD, global
    // data, levels.
    let mut out = bytes[..HEADER_BYTES].to_vec();
    let dfd_at = HEADER_BYTES + LEVEL_INDEX_BYTES * level_data.len();
    let sgd_at = dfd_at + dfd.len();
    let mut data_at = sgd_at + sgd.len();
    if zstd {
        out[44..48].copy_from_slice(&0u32.to_le_bytes());
    }
    out[48..52].copy_from_slice(&(dfd_at as u32).to_le_bytes());
    out[56..64].fill(0);
    out[64..72].copy_from_slice(&(sgd_at as u64).to_le_bytes());
    for data in &level_data {
        let len = data.len() as u64;
        let uncompressed = if mode == BasisMode::Etc1s { 0 } else { len };
        for v in [data_at as u64, len, uncompressed] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        data_at += data.len();
    }
    out.extend_from_slice(dfd);
    out.extend_from_slice(sgd);
    for data in &level_data {
        out.extend_from_slice(data);
    }
    Ok(out)
}

/// Checks ETC1S global data (BasisLZ) as the transcoder will read it: a 20-byte header, one
/// 20-byte descriptor an image (levels x layers), then the endpoint, selector and table
/// codebooks, all within the section; each image's colour and alpha slices within its level.
#[cfg(feature = "basis")]
fn check_etc1s_global_data(sgd: &[u8], levels: &[std::borrow::Cow<'_, [u8]>], layers: u32) -> Result<(), String> {
    let u32_at = |at: usize| sgd.get(at..at + 4).map(|b| u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])));
    let images = levels.len() as u64 * u64::from(layers);
    let (Some(endpoints), Some(selectors), Some(tables)) = (u32_at(4), u32_at(8), u32_at(12)) else {
        return Err(format!("ETC1S global data of {} bytes has no 20-byte header", sgd.len()));
    };
    let needed = 20 + 20 * images + endpoints + selectors + tables;
    if needed > sgd.len() as u64 {
        return Err(format!(
            "ETC1S global data of {} bytes; its {images} image descriptors and {endpoints} + {selectors} + {tables} \
             bytes of codebooks need {needed}",
            sgd.len()
        ));
    }
    for (image, at) in (0..images as usize).map(|i| (i, 20 + 20 * i)) {
        let level = image / layers as usize;
        let level_bytes = levels[level].len() as u64;
        for slice in [4, 12] {
            let (Some(offset), Some(len)) = (u32_at(at + slice), u32_at(at + slice + 4)) else { continue };
            if offset + len > level_bytes {
                return Err(format!(
                    "ETC1S image {image}: a slice of {len} bytes at {offset} in level {level} of {level_bytes} bytes"
                ));
            }
        }
    }
    Ok(())
}
