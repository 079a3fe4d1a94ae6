//! Texture files of any kind core reads, told apart by their magic number: KTX2
//! ([`crate::read_ktx2`]), ARM's `.astc` (astcenc's output: one level of ASTC blocks) and DDS
//! (the `dds` feature). [`read_file`] and [`TextureStore::register_file`](crate::TextureStore::register_file) are the one entry point.
//!
//! Every kind is untrusted input and is held to the same [`FileLimits`]: the header's sizes,
//! levels and layers are checked before anything is allocated for the texture.

mod astc;
#[cfg(feature = "dds")]
mod dds;
pub(crate) mod ktx2;
#[cfg(test)]
mod tests;

use crate::{BasisMode, BasisTarget, FileLimits, FileTexture, Format, TextureDesc, TextureError};

pub use astc::read_astc;
#[cfg(feature = "dds")]
pub use dds::read_dds;

/// The kinds of texture file [`read_file`] tells apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FileKind {
    /// Khronos KTX2 (`«KTX 20»`).
    Ktx2,
    /// ARM's `.astc` (magic `13 AB A1 5C`), as astcenc writes it.
    Astc,
    /// Microsoft DirectDraw Surface (`DDS `), legacy or DX10 header.
    Dds,
}

impl FileKind {
    /// The kind of file `bytes` start like, if any.
    ///
    /// ```
    /// use layerbatch_core::FileKind;
    /// assert_eq!(FileKind::of(b"DDS \x7c\0\0\0"), Some(FileKind::Dds));
    /// assert_eq!(FileKind::of(&[0x13, 0xAB, 0xA1, 0x5C]), Some(FileKind::Astc));
    /// assert_eq!(FileKind::of(b"\x89PNG\r\n\x1a\n"), None);
    /// ```
    pub fn of(bytes: &[u8]) -> Option<FileKind> {
        const KTX2: [u8; 12] = [0xAB, b'K', b'T', b'X', b' ', b'2', b'0', 0xBB, b'\r', b'\n', 0x1A, b'\n'];
        if bytes.starts_with(&KTX2) {
            Some(FileKind::Ktx2)
        } else if bytes.starts_with(&[0x13, 0xAB, 0xA1, 0x5C]) {
            Some(FileKind::Astc)
        } else if bytes.starts_with(b"DDS ") {
            Some(FileKind::Dds)
        } else {
            None
        }
    }
}

impl std::fmt::Display for FileKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FileKind::Ktx2 => "KTX2",
            FileKind::Astc => "ASTC",
            FileKind::Dds => "DDS",
        })
    }
}

/// Why a texture file was refused by [`read_file`] or [`TextureStore::register_file`](crate::TextureStore::register_file). Nothing is
/// registered then.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum FileError {
    /// The bytes are no kind of file core reads.
    #[error("{len} bytes are not a KTX2, ASTC or DDS file (they start {start:02x?})")]
    UnknownKind {
        /// Bytes given.
        len: usize,
        /// Their first bytes (at most 12).
        start: Vec<u8>,
    },
    /// The container does not parse: a header field out of range, or data missing (a
    /// truncated file) or left over.
    #[error("not a readable {kind} file ({len} bytes): {message}")]
    Container {
        /// The kind its magic number says.
        kind: FileKind,
        /// Bytes given.
        len: usize,
        /// What was wrong.
        message: String,
    },
    /// A texel format core does not store (named as the file names it).
    #[error("{kind} format {format} is not one layerbatch stores ({why})")]
    Format {
        /// The kind of file.
        kind: FileKind,
        /// The file's format.
        format: String,
        /// Why it is refused.
        why: &'static str,
    },
    /// Something core does not hold: a cube map or a 3D texture.
    #[error("a {kind} file holding {what}, which layerbatch does not store")]
    Unsupported {
        /// The kind of file.
        kind: FileKind,
        /// What the file holds.
        what: String,
    },
    /// More levels than a `width_px` x `height_px` texture has.
    #[error("a {width_px}x{height_px} {kind} file declares {levels} levels; it has at most {max_levels}")]
    TooManyLevels {
        /// The kind of file.
        kind: FileKind,
        /// Level-0 width.
        width_px: u32,
        /// Level-0 height.
        height_px: u32,
        /// Levels declared.
        levels: u32,
        /// [`crate::max_mip_levels`] of the size.
        max_levels: u32,
    },
    /// The texture would take more than [`FileLimits::max_bytes`].
    #[error(
        "a {width_px}x{height_px} {format} {kind} file of {layers} layers and {levels} levels takes \
         {total_bytes} bytes, more than the limit of {max_bytes}"
    )]
    TooLarge {
        /// The kind of file.
        kind: FileKind,
        /// Its format.
        format: Format,
        /// Level-0 width.
        width_px: u32,
        /// Level-0 height.
        height_px: u32,
        /// Layers.
        layers: u32,
        /// Levels.
        levels: u32,
        /// Bytes it would take, as [`FileLimits::max_bytes`] counts them.
        total_bytes: u64,
        /// The limit.
        max_bytes: u64,
    },
    /// More layers than [`FileLimits::max_layers`].
    #[error("a {kind} file of {layers} layers; the limit is {max_layers}")]
    TooManyLayers {
        /// The kind of file.
        kind: FileKind,
        /// Layers declared.
        layers: u32,
        /// The limit.
        max_layers: u32,
    },
    /// A layer the batcher refused (for a format the device lacks: the format, its family and
    /// the device's families). The layers before it were freed.
    #[error("layer {layer} of a {kind} file: {source}")]
    Texture {
        /// The kind of file.
        kind: FileKind,
        /// The layer refused.
        layer: u32,
        /// Why.
        source: TextureError,
    },
    /// A Basis Universal file, which must be transcoded for a device: [`crate::read_ktx2`] does not
    /// know the device (use `read_basis` or [`TextureStore::register_file`](crate::TextureStore::register_file)), or the build lacks
    /// layerbatch-core's `basis` feature.
    #[error("a Basis Universal {mode} KTX2 file needs transcoding for the device: {how}")]
    NotTranscoded {
        /// The file's Basis mode.
        mode: BasisMode,
        /// What to do.
        how: &'static str,
    },
    /// The Basis Universal transcoder refused one image of a file (corrupt codebooks or
    /// blocks).
    #[error("Basis Universal {mode} level {level}, layer {layer}, to {target}: the transcoder says {message}")]
    Transcode {
        /// The file's Basis mode.
        mode: BasisMode,
        /// The level.
        level: u32,
        /// The layer.
        layer: u32,
        /// What it was transcoded to.
        target: BasisTarget,
        /// The transcoder's error.
        message: String,
    },
    /// A level's data is not the size its format and dimensions give (after zstd, if used).
    #[error(
        "KTX2 level {level} ({width_px}x{height_px}, {layers} layer(s) of {format}) holds {actual_bytes} bytes; it \
         needs {expected_bytes}"
    )]
    LevelSize {
        /// The level.
        level: u32,
        /// Its width.
        width_px: u32,
        /// Its height.
        height_px: u32,
        /// Layers of the file.
        layers: u32,
        /// The format.
        format: Format,
        /// Bytes found (or declared uncompressed).
        actual_bytes: u64,
        /// Bytes the level needs.
        expected_bytes: u64,
    },
    /// zstd could not decompress a level (a corrupt frame, more data than the level's size, or
    /// a window larger than twice the level's size and 1 MiB).
    #[error("KTX2 level {level}: zstd: {message}")]
    Zstd {
        /// The level.
        level: u32,
        /// The decoder's message.
        message: String,
    },
    /// A BC1 RGB file (`vkFormat` 131 or 132) whose opaque black texels cannot be stored as
    /// BC1 RGBA. Core stores BC1 as RGBA, where a block in 3-colour mode (`color0 <=
    /// color1`) draws its index 3 transparent, where BC1 RGB draws it opaque black. A file
    /// whose blocks never use that index reads unchanged; a block that does is rewritten to
    /// decode the same as RGBA where it can (black is one of its endpoints, or the block has
    /// only one other colour, an endpoint); `blocks` could not be. With the `decode` feature
    /// such a file is decoded to RGBA8 instead (alpha 255 everywhere, as BC1 RGB has none),
    /// and this error is never returned.
    #[error(
        "KTX2 BC1 RGB: {blocks} block(s) draw opaque black texels that BC1 RGBA would draw transparent (enable the \
         `decode` feature to read such a file as RGBA8)"
    )]
    Bc1RgbBlackTexels {
        /// Blocks that could not be rewritten.
        blocks: u64,
    },
}

impl FileError {
    /// [`FileError::UnknownKind`] of `bytes`.
    pub(crate) fn unknown_kind(bytes: &[u8]) -> Self {
        FileError::UnknownKind { len: bytes.len(), start: bytes.iter().take(12).copied().collect() }
    }
}

/// Checks a file's declared size against `limits` and [`crate::max_mip_levels`], before
/// anything is allocated for it.
pub(crate) fn check_declared(
    kind: FileKind,
    desc: &TextureDesc,
    layers: u32,
    limits: FileLimits,
) -> Result<(), FileError> {
    let (width_px, height_px, levels) = (desc.width_px, desc.height_px, desc.mip_levels);
    let max_levels = crate::max_mip_levels(width_px, height_px);
    if levels == 0 || levels > max_levels {
        return Err(FileError::TooManyLevels { kind, width_px, height_px, levels, max_levels });
    }
    if layers > limits.max_layers {
        return Err(FileError::TooManyLayers { kind, layers, max_layers: limits.max_layers });
    }
    let total_bytes = crate::mip_chain_bytes(width_px, height_px, levels, desc.format)
        .saturating_add(FileLimits::LAYER_BOOKKEEPING_BYTES)
        .saturating_mul(u64::from(layers));
    if total_bytes > limits.max_bytes {
        let format = desc.format;
        return Err(FileError::TooLarge {
            kind,
            format,
            width_px,
            height_px,
            layers,
            levels,
            total_bytes,
            max_bytes: limits.max_bytes,
        });
    }
    Ok(())
}

/// Reads a texture file of any kind core knows ([`FileKind::of`] its first bytes) into
/// core's terms: KTX2 as [`crate::read_ktx2`], `.astc` as [`read_astc`], DDS as `read_dds`
/// (the `dds` feature). `like` gives what the file does not say (sampler, usage; alpha and
/// sRGB where the file is silent).
///
/// ```
/// use layerbatch_core::{read_file, AstcBlock, FileLimits, Format, TextureDesc};
/// // An .astc header (6x6 blocks, 7x5x1 texels), then its 2 blocks.
/// let mut file = vec![0x13, 0xAB, 0xA1, 0x5C, 6, 6, 1, 7, 0, 0, 5, 0, 0, 1, 0, 0];
/// file.extend([0u8; 32]);
/// let texture = read_file(&file, &TextureDesc::new(1, 1), FileLimits::default())?;
/// assert_eq!(texture.desc.format, Format::Astc { block: AstcBlock::B6x6, srgb: false });
/// assert_eq!((texture.desc.width_px, texture.desc.height_px, texture.layers[0].len()), (7, 5, 32));
/// # Ok::<(), layerbatch_core::FileError>(())
/// ```
///
/// # Errors
/// [`FileError`], naming the kind, the format and what was wrong; nothing is allocated for
/// the texture before its declared size is checked against `limits`.
pub fn read_file(bytes: &[u8], like: &TextureDesc, limits: FileLimits) -> Result<FileTexture, FileError> {
    match FileKind::of(bytes) {
        Some(FileKind::Ktx2) => Ok(crate::read_ktx2(bytes, like, limits)?),
        Some(FileKind::Astc) => read_astc(bytes, like, limits),
        #[cfg(feature = "dds")]
        Some(FileKind::Dds) => read_dds(bytes, like, limits),
        #[cfg(not(feature = "dds"))]
        Some(FileKind::Dds) => Err(FileError::Unsupported {
            kind: FileKind::Dds,
            what: "DDS data, in a build without layerbatch-core's `dds` feature".to_string(),
        }),
        None => Err(FileError::unknown_kind(bytes)),
    }
}
