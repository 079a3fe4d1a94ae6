//! DDS files (the `dds` feature), legacy (DX9) and DX10 headers, read by image-rs's `dds`
//! crate: fuzzed, `forbid(unsafe_code)`, with checked layout arithmetic. Core takes its
//! parsed header and data layout and copies the levels itself, after checking the declared
//! size against the limits.
//!
//! Formats: BC1, BC2, BC3, BC4, BC5 and BC7 (their `_TYPELESS` DXGI variants read as UNORM,
//! sRGB from the DX10 format; DXT2 and DXT4 as premultiplied BC2 and BC3), and 8-bit RGBA /
//! BGRA (BGRA swizzled to RGBA). A legacy header has no colour space: sRGB when
//! `like.format` is. Refused with a clear error: BC6H (HDR), signed BC4/BC5, other
//! uncompressed layouts, cube maps and volumes.

use ::dds::header::{AlphaMode, DxgiFormat, Header, ParseOptions};
use ::dds::{DataLayout, DataRegion, TextureArrayKind};

use super::{check_declared, FileError, FileKind};
use crate::{Alpha, FileLimits, FileTexture, Format, TextureDesc};

/// What a file's format is in core: the format, whether its rows are BGRA, and whether its
/// alpha is premultiplied as the format says (DXT2/DXT4).
struct Mapped {
    format: Format,
    bgra: bool,
    premultiplied: bool,
}

/// Reads a DDS file: every level and array layer, as core's format (see the module docs).
///
/// # Errors
/// [`FileError::Container`] for a header the `dds` crate refuses or data past the file's
/// end; [`FileError::Format`] for a format core does not store; [`FileError::Unsupported`]
/// for a cube map or a volume; [`FileError::TooManyLevels`], [`FileError::TooManyLayers`] and
/// [`FileError::TooLarge`] against `limits`, checked before anything is allocated.
pub fn read_dds(bytes: &[u8], like: &TextureDesc, limits: FileLimits) -> Result<FileTexture, FileError> {
    let kind = FileKind::Dds;
    let container = |message: String| FileError::Container { kind, len: bytes.len(), message };
    let mut reader = bytes;
    let header = Header::read(&mut reader, &ParseOptions::default()).map_err(|e| container(e.to_string()))?;
    let data = reader;
    let mapped = mapped(&header, like)?;
    let layout = DataLayout::from_header(&header).map_err(|e| container(e.to_string()))?;
    // The layers are walked, never collected, before their count is checked: a 148-byte
    // header may declare 2^32 of them.
    let (first, array) = match &layout {
        DataLayout::Texture(t) => (*t, None),
        DataLayout::TextureArray(a) if a.kind() == TextureArrayKind::Textures => match a.get(0) {
            Some(first) => (first, Some(*a)),
            None => return Err(container("an array of no textures".to_string())),
        },
        DataLayout::TextureArray(a) => {
            return Err(FileError::Unsupported { kind, what: format!("a cube map ({} faces)", a.len()) });
        }
        DataLayout::Volume(v) => {
            return Err(FileError::Unsupported { kind, what: format!("a volume ({} deep)", v.main().depth()) });
        }
    };
    let size = layout.main_size();
    let alpha = match (&header, mapped.premultiplied) {
        (_, true) => Alpha::Premultiplied,
        (Header::Dx10(h), _) => match h.alpha_mode {
            AlphaMode::Premultiplied | AlphaMode::Opaque => Alpha::Premultiplied,
            AlphaMode::Straight => Alpha::Straight,
            _ => like.alpha,
        },
        _ => like.alpha,
    };
    let levels = u32::from(first.mipmaps());
    let desc = TextureDesc {
        width_px: size.width,
        height_px: size.height,
        format: mapped.format,
        mip_levels: levels,
        alpha,
        ..*like
    };
    let layers = array.map_or(1, |a| u32::try_from(a.len()).unwrap_or(u32::MAX));
    check_declared(kind, &desc, layers, limits)?;
    // Bounded by `check_declared`: the chain of each layer, at most `max_bytes` in all.
    let chain_bytes = crate::mip_chain_bytes(desc.width_px, desc.height_px, levels, desc.format) as usize;
    let mut out = Vec::with_capacity(layers as usize);
    let textures: Box<dyn Iterator<Item = ::dds::Texture>> = match array {
        Some(a) => Box::new(a.iter()),
        None => Box::new(std::iter::once(first)),
    };
    for (layer, texture) in textures.enumerate() {
        let mut chain = Vec::with_capacity(chain_bytes);
        for (level, surface) in texture.iter_mips().enumerate() {
            let expected = desc.format.image_bytes(surface.width(), surface.height());
            let (start, len) = (surface.data_offset(), surface.data_len());
            if len != expected {
                return Err(container(format!(
                    "layer {layer} level {level} is {len} bytes; a {}x{} {} level is {expected}",
                    surface.width(),
                    surface.height(),
                    desc.format
                )));
            }
            let range = usize::try_from(start).ok().zip(usize::try_from(start + len).ok());
            let Some(level_bytes) = range.and_then(|(s, e)| data.get(s..e)) else {
                return Err(container(format!(
                    "layer {layer} level {level} ends at byte {} of the data, which holds {} (a truncated file)",
                    start + len,
                    data.len()
                )));
            };
            chain.extend_from_slice(level_bytes);
        }
        if mapped.bgra {
            for texel in chain.chunks_exact_mut(4) {
                texel.swap(0, 2);
            }
        }
        out.push(chain);
    }
    Ok(FileTexture { desc, layers: out })
}

/// Core's format of the file's (see the module docs).
fn mapped(header: &Header, like: &TextureDesc) -> Result<Mapped, FileError> {
    let kind = FileKind::Dds;
    let refused = |format: String, why: &'static str| Err(FileError::Format { kind, format, why });
    let mapped = |format: Format, bgra: bool, premultiplied: bool| Ok(Mapped { format, bgra, premultiplied });
    let plain = |format: Format| mapped(format, false, false);
    match header {
        Header::Dx10(h) => {
            let srgb = h.dxgi_format.is_srgb();
            let pick = |linear: Format, srgb_format: Format| if srgb { srgb_format } else { linear };
            let f = h.dxgi_format;
            let name = format!("{f:?} (DXGI {})", u32::from(f));
            match f {
                DxgiFormat::R8G8B8A8_TYPELESS | DxgiFormat::R8G8B8A8_UNORM | DxgiFormat::R8G8B8A8_UNORM_SRGB => {
                    plain(pick(Format::Rgba8Unorm, Format::Rgba8UnormSrgb))
                }
                DxgiFormat::B8G8R8A8_TYPELESS | DxgiFormat::B8G8R8A8_UNORM | DxgiFormat::B8G8R8A8_UNORM_SRGB => {
                    mapped(pick(Format::Rgba8Unorm, Format::Rgba8UnormSrgb), true, false)
                }
                DxgiFormat::BC1_TYPELESS | DxgiFormat::BC1_UNORM | DxgiFormat::BC1_UNORM_SRGB => {
                    plain(pick(Format::Bc1RgbaUnorm, Format::Bc1RgbaUnormSrgb))
                }
                DxgiFormat::BC3_TYPELESS | DxgiFormat::BC3_UNORM | DxgiFormat::BC3_UNORM_SRGB => {
                    plain(pick(Format::Bc3RgbaUnorm, Format::Bc3RgbaUnormSrgb))
                }
                DxgiFormat::BC4_TYPELESS | DxgiFormat::BC4_UNORM => plain(Format::Bc4RUnorm),
                DxgiFormat::BC5_TYPELESS | DxgiFormat::BC5_UNORM => plain(Format::Bc5RgUnorm),
                DxgiFormat::BC7_TYPELESS | DxgiFormat::BC7_UNORM | DxgiFormat::BC7_UNORM_SRGB => {
                    plain(pick(Format::Bc7RgbaUnorm, Format::Bc7RgbaUnormSrgb))
                }
                DxgiFormat::BC2_TYPELESS | DxgiFormat::BC2_UNORM | DxgiFormat::BC2_UNORM_SRGB => {
                    plain(pick(Format::Bc2RgbaUnorm, Format::Bc2RgbaUnormSrgb))
                }
                DxgiFormat::BC6H_TYPELESS | DxgiFormat::BC6H_UF16 | DxgiFormat::BC6H_SF16 => {
                    refused(name, "BC6H is HDR; layerbatch samples 8-bit colour")
                }
                DxgiFormat::BC4_SNORM | DxgiFormat::BC5_SNORM => refused(name, "signed BC4/BC5 is not stored"),
                _ => refused(name, "only BC1-BC5, BC7 and 8-bit RGBA/BGRA are stored"),
            }
        }
        Header::Dx9(_) => {
            let Ok(f) = ::dds::Format::from_header(header) else {
                return refused(
                    format!("{:?}", header_pixel_format(header)),
                    "a legacy pixel format the dds crate does not know",
                );
            };
            let srgb = like.format.is_srgb();
            let pick = |linear: Format, srgb_format: Format| if srgb { srgb_format } else { linear };
            use ::dds::Format as D;
            match f {
                D::BC1_UNORM => plain(pick(Format::Bc1RgbaUnorm, Format::Bc1RgbaUnormSrgb)),
                D::BC3_UNORM => plain(pick(Format::Bc3RgbaUnorm, Format::Bc3RgbaUnormSrgb)),
                D::BC3_UNORM_PREMULTIPLIED_ALPHA => {
                    mapped(pick(Format::Bc3RgbaUnorm, Format::Bc3RgbaUnormSrgb), false, true)
                }
                D::BC4_UNORM => plain(Format::Bc4RUnorm),
                D::BC5_UNORM => plain(Format::Bc5RgUnorm),
                D::BC7_UNORM => plain(pick(Format::Bc7RgbaUnorm, Format::Bc7RgbaUnormSrgb)),
                D::R8G8B8A8_UNORM => plain(pick(Format::Rgba8Unorm, Format::Rgba8UnormSrgb)),
                D::B8G8R8A8_UNORM => mapped(pick(Format::Rgba8Unorm, Format::Rgba8UnormSrgb), true, false),
                D::BC2_UNORM => plain(pick(Format::Bc2RgbaUnorm, Format::Bc2RgbaUnormSrgb)),
                D::BC2_UNORM_PREMULTIPLIED_ALPHA => {
                    mapped(pick(Format::Bc2RgbaUnorm, Format::Bc2RgbaUnormSrgb), false, true)
                }
                other => refused(format!("{other:?}"), "only BC1-BC5, BC7 and 8-bit RGBA/BGRA are stored"),
            }
        }
    }
}

/// The legacy pixel format of a DX9 header, for an error message.
fn header_pixel_format(header: &Header) -> Option<&::dds::header::Dx9PixelFormat> {
    match header {
        Header::Dx9(h) => Some(&h.pixel_format),
        Header::Dx10(_) => None,
    }
}
