//! Texel formats on GL: each core [`Format`]'s internal format and upload path, and the
//! compressed families a context samples.

use glow::HasContext;

use layerbatch_core::{Format, FormatFamilies, FormatFamily};

/// How texels of a format reach an array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Upload {
    /// `glTexSubImage3D` with this pixel format and type.
    Plain {
        /// Pixel format (`RGBA`).
        format: u32,
        /// Pixel type (`UNSIGNED_BYTE`).
        ty: u32,
    },
    /// `glCompressedTexSubImage3D` of whole blocks.
    Compressed,
}

/// The internal format of an array of `format`, and how its texels are uploaded.
pub(crate) fn gl_format(format: Format) -> (u32, Upload) {
    use Format::*;
    let rgba = Upload::Plain { format: glow::RGBA, ty: glow::UNSIGNED_BYTE };
    let internal = match format {
        Rgba8Unorm => return (glow::RGBA8, rgba),
        Rgba8UnormSrgb => return (glow::SRGB8_ALPHA8, rgba),
        Bc1RgbaUnorm => glow::COMPRESSED_RGBA_S3TC_DXT1_EXT,
        Bc1RgbaUnormSrgb => glow::COMPRESSED_SRGB_ALPHA_S3TC_DXT1_EXT,
        Bc2RgbaUnorm => glow::COMPRESSED_RGBA_S3TC_DXT3_EXT,
        Bc2RgbaUnormSrgb => glow::COMPRESSED_SRGB_ALPHA_S3TC_DXT3_EXT,
        Bc3RgbaUnorm => glow::COMPRESSED_RGBA_S3TC_DXT5_EXT,
        Bc3RgbaUnormSrgb => glow::COMPRESSED_SRGB_ALPHA_S3TC_DXT5_EXT,
        Bc4RUnorm => glow::COMPRESSED_RED_RGTC1,
        Bc5RgUnorm => glow::COMPRESSED_RG_RGTC2,
        Bc7RgbaUnorm => glow::COMPRESSED_RGBA_BPTC_UNORM,
        Bc7RgbaUnormSrgb => glow::COMPRESSED_SRGB_ALPHA_BPTC_UNORM,
        Etc2Rgb8Unorm => glow::COMPRESSED_RGB8_ETC2,
        Etc2Rgb8UnormSrgb => glow::COMPRESSED_SRGB8_ETC2,
        Etc2Rgb8A1Unorm => glow::COMPRESSED_RGB8_PUNCHTHROUGH_ALPHA1_ETC2,
        Etc2Rgb8A1UnormSrgb => glow::COMPRESSED_SRGB8_PUNCHTHROUGH_ALPHA1_ETC2,
        Etc2Rgba8Unorm => glow::COMPRESSED_RGBA8_ETC2_EAC,
        Etc2Rgba8UnormSrgb => glow::COMPRESSED_SRGB8_ALPHA8_ETC2_EAC,
        EacR11Unorm => glow::COMPRESSED_R11_EAC,
        EacRg11Unorm => glow::COMPRESSED_RG11_EAC,
        // The 14 sizes are consecutive in both ranges, in `AstcBlock::ALL`'s order.
        Astc { block, srgb: false } => glow::COMPRESSED_RGBA_ASTC_4x4_KHR + block.index(),
        Astc { block, srgb: true } => glow::COMPRESSED_SRGB8_ALPHA8_ASTC_4x4_KHR + block.index(),
        // `Format` is non-exhaustive: a format added to core without a GL mapping is one
        // the device is never said to have (`format_families`), so no plan names it.
        _ => return (glow::RGBA8, rgba),
    };
    (internal, Upload::Compressed)
}

/// The format families the current context samples, from its version and extensions (a
/// family counts only with every format of it, sRGB variants included):
///
/// - BC: S3TC (`GL_EXT_texture_compression_s3tc`, with sRGB from `GL_EXT_texture_sRGB` or
///   `GL_EXT_texture_compression_s3tc_srgb`), RGTC (GL 3.0, `GL_ARB_texture_compression_rgtc`,
///   `GL_EXT_texture_compression_rgtc`) and BPTC (GL 4.2, `GL_ARB_texture_compression_bptc`,
///   `GL_EXT_texture_compression_bptc`); in a browser the `WEBGL_`/`EXT_` equivalents.
/// - ETC2/EAC: GLES 3.0, GL 4.3, `GL_ARB_ES3_compatibility`; `WEBGL_compressed_texture_etc`.
/// - ASTC (all 14 LDR block sizes): `GL_KHR_texture_compression_astc_ldr`; `WEBGL_compressed_texture_astc`.
pub(crate) fn format_families(gl: &glow::Context) -> FormatFamilies {
    let v = gl.version();
    let ext = gl.supported_extensions();
    let has = |names: &[&str]| names.iter().any(|n| ext.contains(*n));
    let at_least = |major: u32, minor: u32| !v.is_embedded && (v.major, v.minor) >= (major, minor);
    let s3tc = has(&["GL_EXT_texture_compression_s3tc", "WEBGL_compressed_texture_s3tc"])
        && (has(&["GL_EXT_texture_compression_s3tc_srgb", "WEBGL_compressed_texture_s3tc_srgb"])
            || (!v.is_embedded && (at_least(2, 1) || has(&["GL_EXT_texture_sRGB"]))));
    let rgtc = at_least(3, 0)
        || has(&["GL_ARB_texture_compression_rgtc", "GL_EXT_texture_compression_rgtc", "EXT_texture_compression_rgtc"]);
    let bptc = at_least(4, 2)
        || has(&["GL_ARB_texture_compression_bptc", "GL_EXT_texture_compression_bptc", "EXT_texture_compression_bptc"]);
    let etc2 = if v.is_embedded && !cfg!(target_arch = "wasm32") {
        true
    } else {
        at_least(4, 3) || has(&["GL_ARB_ES3_compatibility", "WEBGL_compressed_texture_etc"])
    };
    let astc = has(&["GL_KHR_texture_compression_astc_ldr", "WEBGL_compressed_texture_astc"]);
    let mut families = FormatFamilies::RGBA8;
    for (on, family) in
        [(s3tc && rgtc && bptc, FormatFamily::Bc), (etc2, FormatFamily::Etc2), (astc, FormatFamily::Astc)]
    {
        if on {
            families = families.with(family);
        }
    }
    families
}

#[cfg(test)]
mod tests {
    use super::*;
    use layerbatch_core::AstcBlock;

    /// The GL enums of `KHR_texture_compression_astc_ldr`, as glow names them.
    #[test]
    fn astc_enums_are_the_extensions() {
        let rgba = [
            glow::COMPRESSED_RGBA_ASTC_4x4_KHR,
            glow::COMPRESSED_RGBA_ASTC_5x4_KHR,
            glow::COMPRESSED_RGBA_ASTC_5x5_KHR,
            glow::COMPRESSED_RGBA_ASTC_6x5_KHR,
            glow::COMPRESSED_RGBA_ASTC_6x6_KHR,
            glow::COMPRESSED_RGBA_ASTC_8x5_KHR,
            glow::COMPRESSED_RGBA_ASTC_8x6_KHR,
            glow::COMPRESSED_RGBA_ASTC_8x8_KHR,
            glow::COMPRESSED_RGBA_ASTC_10x5_KHR,
            glow::COMPRESSED_RGBA_ASTC_10x6_KHR,
            glow::COMPRESSED_RGBA_ASTC_10x8_KHR,
            glow::COMPRESSED_RGBA_ASTC_10x10_KHR,
            glow::COMPRESSED_RGBA_ASTC_12x10_KHR,
            glow::COMPRESSED_RGBA_ASTC_12x12_KHR,
        ];
        let srgb = [
            glow::COMPRESSED_SRGB8_ALPHA8_ASTC_4x4_KHR,
            glow::COMPRESSED_SRGB8_ALPHA8_ASTC_5x4_KHR,
            glow::COMPRESSED_SRGB8_ALPHA8_ASTC_5x5_KHR,
            glow::COMPRESSED_SRGB8_ALPHA8_ASTC_6x5_KHR,
            glow::COMPRESSED_SRGB8_ALPHA8_ASTC_6x6_KHR,
            glow::COMPRESSED_SRGB8_ALPHA8_ASTC_8x5_KHR,
            glow::COMPRESSED_SRGB8_ALPHA8_ASTC_8x6_KHR,
            glow::COMPRESSED_SRGB8_ALPHA8_ASTC_8x8_KHR,
            glow::COMPRESSED_SRGB8_ALPHA8_ASTC_10x5_KHR,
            glow::COMPRESSED_SRGB8_ALPHA8_ASTC_10x6_KHR,
            glow::COMPRESSED_SRGB8_ALPHA8_ASTC_10x8_KHR,
            glow::COMPRESSED_SRGB8_ALPHA8_ASTC_10x10_KHR,
            glow::COMPRESSED_SRGB8_ALPHA8_ASTC_12x10_KHR,
            glow::COMPRESSED_SRGB8_ALPHA8_ASTC_12x12_KHR,
        ];
        for (i, block) in AstcBlock::ALL.into_iter().enumerate() {
            assert_eq!(gl_format(Format::Astc { block, srgb: false }).0, rgba[i], "{block:?}");
            assert_eq!(gl_format(Format::Astc { block, srgb: true }).0, srgb[i], "{block:?}");
        }
    }
}
