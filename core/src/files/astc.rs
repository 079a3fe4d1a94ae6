//! ARM's `.astc` files, as astcenc writes them: a 16-byte header (magic `13 AB A1 5C`, the
//! block's width, height and depth, then the image's width, height and depth as 24-bit
//! little-endian numbers), then the blocks, 16 bytes each, in raster order. One level, one
//! layer; the header says nothing of colour space or alpha.

use super::{check_declared, FileError, FileKind};
use crate::{AstcBlock, FileLimits, FileTexture, Format, TextureDesc};

/// Bytes of the header.
const HEADER_BYTES: usize = 16;

/// Reads an `.astc` file: a 2D texture of one level in [`Format::Astc`] at the file's block
/// size, sRGB when `like.format` is sRGB (the file does not say; astcenc's `-cs` and `-cl`
/// write the same header), with `like`'s alpha, sampler and usage.
///
/// # Errors
/// [`FileError::Container`] for a short header, a zero size, or data that is not exactly the
/// image's blocks (truncated, or bytes left over); [`FileError::Format`] for a block size
/// that is not one of ASTC's 14 2D sizes; [`FileError::Unsupported`] for a 3D image;
/// [`FileError::TooLarge`] past `limits.max_bytes`, checked before the blocks are copied.
pub fn read_astc(bytes: &[u8], like: &TextureDesc, limits: FileLimits) -> Result<FileTexture, FileError> {
    let kind = FileKind::Astc;
    let container = |message: String| FileError::Container { kind, len: bytes.len(), message };
    let Some(header) = bytes.get(..HEADER_BYTES) else {
        return Err(container(format!("the header is {HEADER_BYTES} bytes")));
    };
    if FileKind::of(header) != Some(kind) {
        return Err(container("no ASTC magic number".to_string()));
    }
    let [bw, bh, bd] = [header[4], header[5], header[6]].map(u32::from);
    let dim = |at: usize| u32::from_le_bytes([header[at], header[at + 1], header[at + 2], 0]);
    let (w, h, d) = (dim(7), dim(10), dim(13));
    if bd != 1 || d != 1 {
        return Err(FileError::Unsupported { kind, what: format!("a 3D image ({bw}x{bh}x{bd} blocks, {d} deep)") });
    }
    let Some(block) = AstcBlock::from_size_px([bw, bh]) else {
        let why = "not one of ASTC's 14 2D block sizes";
        return Err(FileError::Format { kind, format: format!("{bw}x{bh} blocks"), why });
    };
    if w == 0 || h == 0 {
        return Err(container(format!("a {w}x{h} image")));
    }
    let format = Format::Astc { block, srgb: like.format.is_srgb() };
    let desc = TextureDesc { width_px: w, height_px: h, format, mip_levels: 1, ..*like };
    check_declared(kind, &desc, 1, limits)?;
    let expected = format.image_bytes(w, h);
    let data = &bytes[HEADER_BYTES..];
    if data.len() as u64 != expected {
        return Err(container(format!(
            "a {w}x{h} image of {bw}x{bh} blocks is {expected} bytes of blocks; the file holds {}",
            data.len()
        )));
    }
    Ok(FileTexture { desc, layers: vec![data.to_vec()] })
}
