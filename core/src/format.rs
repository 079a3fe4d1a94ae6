//! Texel formats: plain RGBA8 and the block-compressed families (BC, ETC2/EAC, ASTC 4x4),
//! with the block arithmetic every size and write is computed from.

/// Texel format of a texture, and of the arrays and pages that hold it (format is part of
/// every class and page key: formats never share an array).
///
/// Compressed formats are stored in 4x4 blocks: every rectangle a texture takes in a page,
/// every layer size and every write is whole blocks, and the pixel data handed over is
/// blocks, level after level (the mips are authored: core never filters compressed data).
/// Colours are expected premultiplied before encoding, as for RGBA8 (the backends blend
/// `ONE, ONE_MINUS_SRC_ALPHA`). One-channel and two-channel formats sample as `(r, 0, 0, 1)`
/// and `(r, g, 0, 1)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Format {
    /// 8-bit RGBA, linear (`RGBA8` / `Rgba8Unorm`).
    Rgba8Unorm,
    /// 8-bit RGBA, sRGB-encoded colour, linear alpha (`SRGB8_ALPHA8` / `Rgba8UnormSrgb`).
    Rgba8UnormSrgb,
    /// BC1 (DXT1) RGB with 1-bit alpha, 8 bytes a block.
    Bc1RgbaUnorm,
    /// BC1, sRGB colour.
    Bc1RgbaUnormSrgb,
    /// BC3 (DXT5) RGBA, 16 bytes a block.
    Bc3RgbaUnorm,
    /// BC3, sRGB colour.
    Bc3RgbaUnormSrgb,
    /// BC4 one channel (red), 8 bytes a block.
    Bc4RUnorm,
    /// BC5 two channels (red, green), 16 bytes a block.
    Bc5RgUnorm,
    /// BC7 RGBA, 16 bytes a block.
    Bc7RgbaUnorm,
    /// BC7, sRGB colour.
    Bc7RgbaUnormSrgb,
    /// ETC2 RGB, 8 bytes a block (ETC1 data decodes as ETC2).
    Etc2Rgb8Unorm,
    /// ETC2 RGB, sRGB.
    Etc2Rgb8UnormSrgb,
    /// ETC2 RGB with punch-through (1-bit) alpha, 8 bytes a block.
    Etc2Rgb8A1Unorm,
    /// ETC2 RGB punch-through alpha, sRGB.
    Etc2Rgb8A1UnormSrgb,
    /// ETC2 RGBA (EAC alpha), 16 bytes a block.
    Etc2Rgba8Unorm,
    /// ETC2 RGBA, sRGB colour.
    Etc2Rgba8UnormSrgb,
    /// EAC R11 one channel, 8 bytes a block.
    EacR11Unorm,
    /// EAC RG11 two channels, 16 bytes a block.
    EacRg11Unorm,
    /// ASTC 4x4 LDR, 16 bytes a block.
    Astc4x4RgbaUnorm,
    /// ASTC 4x4 LDR, sRGB colour.
    Astc4x4RgbaUnormSrgb,
}

/// A group of formats a device supports together ([`crate::Limits::format_families`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum FormatFamily {
    /// RGBA8: every device.
    Rgba8,
    /// BC1-BC7 (`EXT_texture_compression_s3tc` + `_rgtc` + `ARB_texture_compression_bptc`;
    /// wgpu's `TEXTURE_COMPRESSION_BC`; WebGPU's `texture-compression-bc`).
    Bc,
    /// ETC2 and EAC (core in GLES 3.0 and GL 4.3; wgpu's `TEXTURE_COMPRESSION_ETC2`).
    Etc2,
    /// ASTC 4x4 LDR (`KHR_texture_compression_astc_ldr`; wgpu's `TEXTURE_COMPRESSION_ASTC`).
    Astc,
}

impl FormatFamily {
    /// The bit of this family in a [`FormatFamilies`] set.
    const fn bit(self) -> u8 {
        match self {
            FormatFamily::Rgba8 => 1,
            FormatFamily::Bc => 2,
            FormatFamily::Etc2 => 4,
            FormatFamily::Astc => 8,
        }
    }
}

/// A set of [`FormatFamily`]s: what a device samples.
///
/// ```
/// use layerbatch_core::{FormatFamilies, FormatFamily};
/// let families = FormatFamilies::RGBA8.with(FormatFamily::Bc);
/// assert!(families.contains(FormatFamily::Bc) && !families.contains(FormatFamily::Astc));
/// assert_eq!(families.to_string(), "RGBA8, BC");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FormatFamilies(u8);

impl FormatFamilies {
    /// RGBA8 only: the default of [`crate::Limits`], every device.
    pub const RGBA8: Self = Self(1);
    /// Every family.
    pub const ALL: Self = Self(15);

    /// This set and `family`.
    #[must_use]
    pub const fn with(self, family: FormatFamily) -> Self {
        Self(self.0 | family.bit())
    }
    /// Whether the set holds `family`.
    pub const fn contains(self, family: FormatFamily) -> bool {
        self.0 & family.bit() != 0
    }
    /// The families of the set, in declaration order.
    pub fn iter(self) -> impl Iterator<Item = FormatFamily> {
        [FormatFamily::Rgba8, FormatFamily::Bc, FormatFamily::Etc2, FormatFamily::Astc]
            .into_iter()
            .filter(move |f| self.contains(*f))
    }
}

impl Default for FormatFamilies {
    fn default() -> Self {
        Self::RGBA8
    }
}

impl std::fmt::Display for FormatFamilies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self
            .iter()
            .map(|family| match family {
                FormatFamily::Rgba8 => "RGBA8",
                FormatFamily::Bc => "BC",
                FormatFamily::Etc2 => "ETC2",
                FormatFamily::Astc => "ASTC",
            })
            .collect();
        f.write_str(&names.join(", "))
    }
}

impl Format {
    /// Every format, in declaration order.
    pub const ALL: [Format; 20] = [
        Format::Rgba8Unorm,
        Format::Rgba8UnormSrgb,
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
        Format::Etc2Rgb8A1Unorm,
        Format::Etc2Rgb8A1UnormSrgb,
        Format::Etc2Rgba8Unorm,
        Format::Etc2Rgba8UnormSrgb,
        Format::EacR11Unorm,
        Format::EacRg11Unorm,
        Format::Astc4x4RgbaUnorm,
        Format::Astc4x4RgbaUnormSrgb,
    ];

    /// The family a device must support to sample the format.
    pub const fn family(self) -> FormatFamily {
        use Format::*;
        match self {
            Rgba8Unorm | Rgba8UnormSrgb => FormatFamily::Rgba8,
            Bc1RgbaUnorm | Bc1RgbaUnormSrgb | Bc3RgbaUnorm | Bc3RgbaUnormSrgb | Bc4RUnorm | Bc5RgUnorm
            | Bc7RgbaUnorm | Bc7RgbaUnormSrgb => FormatFamily::Bc,
            Etc2Rgb8Unorm | Etc2Rgb8UnormSrgb | Etc2Rgb8A1Unorm | Etc2Rgb8A1UnormSrgb | Etc2Rgba8Unorm
            | Etc2Rgba8UnormSrgb | EacR11Unorm | EacRg11Unorm => FormatFamily::Etc2,
            Astc4x4RgbaUnorm | Astc4x4RgbaUnormSrgb => FormatFamily::Astc,
        }
    }

    /// Whether texels are stored in 4x4 blocks.
    pub const fn is_compressed(self) -> bool {
        !matches!(self.family(), FormatFamily::Rgba8)
    }

    /// Whether colour is sRGB-encoded (decoded to linear light when sampled).
    pub const fn is_srgb(self) -> bool {
        use Format::*;
        matches!(
            self,
            Rgba8UnormSrgb
                | Bc1RgbaUnormSrgb
                | Bc3RgbaUnormSrgb
                | Bc7RgbaUnormSrgb
                | Etc2Rgb8UnormSrgb
                | Etc2Rgb8A1UnormSrgb
                | Etc2Rgba8UnormSrgb
                | Astc4x4RgbaUnormSrgb
        )
    }

    /// Width and height of a block, texels: 1 for RGBA8, 4 for every compressed format.
    pub const fn block_px(self) -> u32 {
        if self.is_compressed() {
            4
        } else {
            1
        }
    }

    /// Bytes of one block (of one texel, for RGBA8).
    pub const fn block_bytes(self) -> u32 {
        use Format::*;
        match self {
            Rgba8Unorm | Rgba8UnormSrgb => 4,
            Bc1RgbaUnorm | Bc1RgbaUnormSrgb | Bc4RUnorm | Etc2Rgb8Unorm | Etc2Rgb8UnormSrgb | Etc2Rgb8A1Unorm
            | Etc2Rgb8A1UnormSrgb | EacR11Unorm => 8,
            _ => 16,
        }
    }

    /// `px` rounded up to whole blocks, texels.
    pub const fn round_up_px(self, px: u32) -> u32 {
        let b = self.block_px();
        px.div_ceil(b).saturating_mul(b)
    }

    /// Bytes of one row of blocks `width_px` texels wide.
    pub const fn row_bytes(self, width_px: u32) -> u64 {
        (width_px.div_ceil(self.block_px()) as u64) * self.block_bytes() as u64
    }

    /// Rows of blocks `height_px` texels tall.
    pub const fn block_rows(self, height_px: u32) -> u32 {
        height_px.div_ceil(self.block_px())
    }

    /// Bytes of a `width_px` x `height_px` image (whole blocks). Saturates at `u64::MAX`.
    pub const fn image_bytes(self, width_px: u32, height_px: u32) -> u64 {
        self.row_bytes(width_px).saturating_mul(self.block_rows(height_px) as u64)
    }

    /// The format's name in the format tables of KTX2 and wgpu, lowercase.
    pub const fn name(self) -> &'static str {
        use Format::*;
        match self {
            Rgba8Unorm => "rgba8unorm",
            Rgba8UnormSrgb => "rgba8unorm-srgb",
            Bc1RgbaUnorm => "bc1-rgba-unorm",
            Bc1RgbaUnormSrgb => "bc1-rgba-unorm-srgb",
            Bc3RgbaUnorm => "bc3-rgba-unorm",
            Bc3RgbaUnormSrgb => "bc3-rgba-unorm-srgb",
            Bc4RUnorm => "bc4-r-unorm",
            Bc5RgUnorm => "bc5-rg-unorm",
            Bc7RgbaUnorm => "bc7-rgba-unorm",
            Bc7RgbaUnormSrgb => "bc7-rgba-unorm-srgb",
            Etc2Rgb8Unorm => "etc2-rgb8unorm",
            Etc2Rgb8UnormSrgb => "etc2-rgb8unorm-srgb",
            Etc2Rgb8A1Unorm => "etc2-rgb8a1unorm",
            Etc2Rgb8A1UnormSrgb => "etc2-rgb8a1unorm-srgb",
            Etc2Rgba8Unorm => "etc2-rgba8unorm",
            Etc2Rgba8UnormSrgb => "etc2-rgba8unorm-srgb",
            EacR11Unorm => "eac-r11unorm",
            EacRg11Unorm => "eac-rg11unorm",
            Astc4x4RgbaUnorm => "astc-4x4-unorm",
            Astc4x4RgbaUnormSrgb => "astc-4x4-unorm-srgb",
        }
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_math() {
        let f = Format::Bc7RgbaUnorm;
        assert_eq!((f.block_px(), f.block_bytes()), (4, 16));
        assert_eq!(f.image_bytes(30, 30), 8 * 8 * 16);
        assert_eq!(Format::Bc1RgbaUnorm.image_bytes(1, 1), 8);
        assert_eq!(Format::Rgba8Unorm.image_bytes(3, 5), 60);
        assert_eq!(f.round_up_px(30), 32);
        assert_eq!(f.round_up_px(u32::MAX), u32::MAX);
        assert_eq!(Format::ALL.iter().filter(|f| f.is_compressed()).count(), 18);
        for f in Format::ALL {
            assert_eq!(f.is_compressed(), f.block_px() == 4, "{f}");
        }
    }
}
