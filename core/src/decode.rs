//! CPU decoding of compressed blocks to RGBA8 (the `decode` feature): what a texture of a
//! family the device lacks becomes at registration, and the reference the pixel tests compare
//! the GPU's own decoding against.

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
    /// The decoder refused the blocks (or failed on them).
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

/// Decodes one `width_px` x `height_px` level of `format` (whole blocks, rows top first) to
/// tightly packed RGBA8, with texture2ddecoder. One- and two-channel formats come out as
/// `(r, 0, 0, 255)` and `(r, g, 0, 255)`, as GPUs sample them; sRGB formats stay encoded
/// (register the result as [`Format::Rgba8UnormSrgb`]). RGBA8 input is returned as is.
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
/// [`DecodeError::Length`] for data that is not the level's blocks; [`DecodeError::Decoder`]
/// if the decoder refuses or fails on them (a failure inside it is caught, never a panic).
pub fn decode_rgba8(format: Format, width_px: u32, height_px: u32, blocks: &[u8]) -> Result<Vec<u8>, DecodeError> {
    let expected_bytes = format.image_bytes(width_px, height_px);
    if blocks.len() as u64 != expected_bytes {
        return Err(DecodeError::Length { format, width_px, height_px, actual_bytes: blocks.len(), expected_bytes });
    }
    if !format.is_compressed() {
        return Ok(blocks.to_vec());
    }
    let (w, h) = (width_px as usize, height_px as usize);
    let refused = |message: String| DecodeError::Decoder { format, width_px, height_px, message };
    // The decoders index into the blocks by hand: a failure in one is reported, not passed on
    // as a panic to the host that registered a texture.
    let texels = std::panic::catch_unwind(|| {
        use texture2ddecoder as d;
        let mut out = vec![0u32; w * h];
        let result = match format {
            Format::Bc1RgbaUnorm | Format::Bc1RgbaUnormSrgb => d::decode_bc1a(blocks, w, h, &mut out),
            Format::Bc3RgbaUnorm | Format::Bc3RgbaUnormSrgb => d::decode_bc3(blocks, w, h, &mut out),
            Format::Bc4RUnorm => d::decode_bc4(blocks, w, h, &mut out),
            Format::Bc5RgUnorm => d::decode_bc5(blocks, w, h, &mut out),
            Format::Bc7RgbaUnorm | Format::Bc7RgbaUnormSrgb => d::decode_bc7(blocks, w, h, &mut out),
            Format::Etc2Rgb8Unorm | Format::Etc2Rgb8UnormSrgb => d::decode_etc2_rgb(blocks, w, h, &mut out),
            Format::Etc2Rgb8A1Unorm | Format::Etc2Rgb8A1UnormSrgb => d::decode_etc2_rgba1(blocks, w, h, &mut out),
            Format::Etc2Rgba8Unorm | Format::Etc2Rgba8UnormSrgb => d::decode_etc2_rgba8(blocks, w, h, &mut out),
            Format::EacR11Unorm => d::decode_eacr(blocks, w, h, &mut out),
            Format::EacRg11Unorm => d::decode_eacrg(blocks, w, h, &mut out),
            Format::Astc4x4RgbaUnorm | Format::Astc4x4RgbaUnormSrgb => d::decode_astc(blocks, w, h, 4, 4, &mut out),
            _ => Err("no decoder for this format"),
        };
        result.map(|()| out)
    })
    .map_err(|_| refused("the decoder failed on these blocks".to_string()))?
    .map_err(|m| refused(m.to_string()))?;
    let channels = match format {
        Format::Bc4RUnorm | Format::EacR11Unorm => 1,
        Format::Bc5RgUnorm | Format::EacRg11Unorm => 2,
        _ => 4,
    };
    let mut rgba = Vec::with_capacity(w * h * 4);
    for t in texels {
        // texture2ddecoder's texel: `u32::from_le_bytes([b, g, r, a])`.
        let [b, g, r, a] = t.to_le_bytes();
        rgba.extend_from_slice(&match channels {
            1 => [r, 0, 0, 255],
            2 => [r, g, 0, 255],
            _ => [r, g, b, a],
        });
    }
    Ok(rgba)
}

/// The RGBA8 texture a compressed one is decoded into: the same size, levels (core makes them
/// from the decoded level 0), filter, wrap and usage, in [`Format::Rgba8UnormSrgb`] for an
/// sRGB format and [`Format::Rgba8Unorm`] otherwise; and its level-0 pixels.
pub(crate) fn decoded(desc: &TextureDesc, blocks: &[u8]) -> Result<(TextureDesc, Vec<u8>), DecodeError> {
    let level0 = desc.format.image_bytes(desc.width_px, desc.height_px) as usize;
    let pixels = decode_rgba8(desc.format, desc.width_px, desc.height_px, blocks.get(..level0).unwrap_or(blocks))?;
    let format = if desc.format.is_srgb() { Format::Rgba8UnormSrgb } else { Format::Rgba8Unorm };
    Ok((TextureDesc { format, ..*desc }, pixels))
}
