//! Texel formats: plain RGBA8 and the block-compressed families (BC, ETC2/EAC, ASTC at all
//! 14 LDR block sizes), with the block arithmetic every size and write is computed from.

/// Texel format of a texture, and of the arrays and pages that hold it (format is part of
/// every class and page key: formats never share an array).
///
/// Compressed formats are stored in blocks (4x4 texels, or ASTC's
/// [`AstcBlock::size_px`]): every rectangle a texture takes in a page, every layer size and
/// every write is whole blocks, and the pixel data handed over is
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
    /// ASTC LDR at one of its 14 block sizes, 16 bytes a block whatever its size (8 bits a
    /// texel at 4x4, 0.89 at 12x12).
    Astc {
        /// Texels a block covers.
        block: AstcBlock,
        /// Whether colour is sRGB-encoded.
        srgb: bool,
    },
    /// BC2 (DXT3) RGBA with 4-bit explicit alpha, 16 bytes a block (after ASTC: added later).
    Bc2RgbaUnorm,
    /// BC2, sRGB colour.
    Bc2RgbaUnormSrgb,
}

/// The 14 block sizes of 2D ASTC (LDR), in the order of the Khronos format tables.
///
/// ```
/// use layerbatch_core::{AstcBlock, Format};
/// assert_eq!(AstcBlock::B6x5.size_px(), [6, 5]);
/// assert_eq!(AstcBlock::from_size_px([12, 10]), Some(AstcBlock::B12x10));
/// let f = Format::Astc { block: AstcBlock::B8x8, srgb: false };
/// assert_eq!((f.block_size_px(), f.image_bytes(30, 30)), ([8, 8], 4 * 4 * 16));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AstcBlock {
    /// 4x4 texels (8 bits a texel).
    B4x4,
    /// 5x4 texels.
    B5x4,
    /// 5x5 texels.
    B5x5,
    /// 6x5 texels.
    B6x5,
    /// 6x6 texels (3.56 bits a texel).
    B6x6,
    /// 8x5 texels.
    B8x5,
    /// 8x6 texels.
    B8x6,
    /// 8x8 texels (2 bits a texel).
    B8x8,
    /// 10x5 texels.
    B10x5,
    /// 10x6 texels.
    B10x6,
    /// 10x8 texels.
    B10x8,
    /// 10x10 texels.
    B10x10,
    /// 12x10 texels.
    B12x10,
    /// 12x12 texels (0.89 bits a texel).
    B12x12,
}

impl AstcBlock {
    /// Every block size, smallest first (the Khronos order: Vulkan's, GL's and KTX2's).
    pub const ALL: [AstcBlock; 14] = [
        AstcBlock::B4x4,
        AstcBlock::B5x4,
        AstcBlock::B5x5,
        AstcBlock::B6x5,
        AstcBlock::B6x6,
        AstcBlock::B8x5,
        AstcBlock::B8x6,
        AstcBlock::B8x8,
        AstcBlock::B10x5,
        AstcBlock::B10x6,
        AstcBlock::B10x8,
        AstcBlock::B10x10,
        AstcBlock::B12x10,
        AstcBlock::B12x12,
    ];

    /// Width and height of the block, texels.
    pub const fn size_px(self) -> [u32; 2] {
        use AstcBlock::*;
        match self {
            B4x4 => [4, 4],
            B5x4 => [5, 4],
            B5x5 => [5, 5],
            B6x5 => [6, 5],
            B6x6 => [6, 6],
            B8x5 => [8, 5],
            B8x6 => [8, 6],
            B8x8 => [8, 8],
            B10x5 => [10, 5],
            B10x6 => [10, 6],
            B10x8 => [10, 8],
            B10x10 => [10, 10],
            B12x10 => [12, 10],
            B12x12 => [12, 12],
        }
    }

    /// The position of the size in [`AstcBlock::ALL`] (Vulkan's `VK_FORMAT_ASTC_*_UNORM_BLOCK`
    /// is `157 + 2 * index`, GL's `COMPRESSED_RGBA_ASTC_*_KHR` is `0x93B0 + index`).
    pub const fn index(self) -> u32 {
        self as u32
    }

    /// The block of `size_px` texels, if ASTC has one (2D, LDR).
    pub fn from_size_px(size_px: [u32; 2]) -> Option<AstcBlock> {
        Self::ALL.into_iter().find(|b| b.size_px() == size_px)
    }
}

/// A group of formats a device supports together ([`crate::Limits::format_families`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum FormatFamily {
    /// RGBA8: every device.
    Rgba8,
    /// BC1, BC2, BC3, BC4, BC5, BC7 (`EXT_texture_compression_s3tc` + `_rgtc` + `ARB_texture_compression_bptc`;
    /// wgpu's `TEXTURE_COMPRESSION_BC`; WebGPU's `texture-compression-bc`).
    Bc,
    /// ETC2 and EAC (core in GLES 3.0 and GL 4.3; wgpu's `TEXTURE_COMPRESSION_ETC2`).
    Etc2,
    /// ASTC LDR, all 14 block sizes (`KHR_texture_compression_astc_ldr`; wgpu's
    /// `TEXTURE_COMPRESSION_ASTC`; WebGPU's `texture-compression-astc`).
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
    /// Every format, in declaration order (ASTC's block sizes smallest first, linear before sRGB).
    pub const ALL: [Format; 48] = [
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
        Format::astc(0, false),
        Format::astc(0, true),
        Format::astc(1, false),
        Format::astc(1, true),
        Format::astc(2, false),
        Format::astc(2, true),
        Format::astc(3, false),
        Format::astc(3, true),
        Format::astc(4, false),
        Format::astc(4, true),
        Format::astc(5, false),
        Format::astc(5, true),
        Format::astc(6, false),
        Format::astc(6, true),
        Format::astc(7, false),
        Format::astc(7, true),
        Format::astc(8, false),
        Format::astc(8, true),
        Format::astc(9, false),
        Format::astc(9, true),
        Format::astc(10, false),
        Format::astc(10, true),
        Format::astc(11, false),
        Format::astc(11, true),
        Format::astc(12, false),
        Format::astc(12, true),
        Format::astc(13, false),
        Format::astc(13, true),
        Format::Bc2RgbaUnorm,
        Format::Bc2RgbaUnormSrgb,
    ];

    /// ASTC of block `AstcBlock::ALL[index]`, for [`Format::ALL`].
    const fn astc(index: usize, srgb: bool) -> Format {
        Format::Astc { block: AstcBlock::ALL[index], srgb }
    }

    /// The family a device must support to sample the format.
    pub const fn family(self) -> FormatFamily {
        use Format::*;
        match self {
            Rgba8Unorm | Rgba8UnormSrgb => FormatFamily::Rgba8,
            Bc1RgbaUnorm | Bc1RgbaUnormSrgb | Bc2RgbaUnorm | Bc2RgbaUnormSrgb | Bc3RgbaUnorm | Bc3RgbaUnormSrgb
            | Bc4RUnorm | Bc5RgUnorm | Bc7RgbaUnorm | Bc7RgbaUnormSrgb => FormatFamily::Bc,
            Etc2Rgb8Unorm | Etc2Rgb8UnormSrgb | Etc2Rgb8A1Unorm | Etc2Rgb8A1UnormSrgb | Etc2Rgba8Unorm
            | Etc2Rgba8UnormSrgb | EacR11Unorm | EacRg11Unorm => FormatFamily::Etc2,
            Astc { .. } => FormatFamily::Astc,
        }
    }

    /// Whether texels are stored in blocks of more than one texel.
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
                | Bc2RgbaUnormSrgb
                | Bc3RgbaUnormSrgb
                | Bc7RgbaUnormSrgb
                | Etc2Rgb8UnormSrgb
                | Etc2Rgb8A1UnormSrgb
                | Etc2Rgba8UnormSrgb
                | Astc { srgb: true, .. }
        )
    }

    /// Width and height of a block, texels: `[1, 1]` for RGBA8, the block's size for ASTC,
    /// `[4, 4]` for every other compressed format.
    pub const fn block_size_px(self) -> [u32; 2] {
        match self {
            Format::Astc { block, .. } => block.size_px(),
            _ if self.is_compressed() => [4, 4],
            _ => [1, 1],
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

    /// `[width, height]` rounded up to whole blocks, texels (saturating at the last whole
    /// block below `u32::MAX`).
    pub const fn round_up_px(self, [w, h]: [u32; 2]) -> [u32; 2] {
        let [bw, bh] = self.block_size_px();
        [round_up(w, bw), round_up(h, bh)]
    }

    /// Whether `[x, y]` is on a block boundary.
    pub const fn on_block(self, [x, y]: [u32; 2]) -> bool {
        let [bw, bh] = self.block_size_px();
        x % bw == 0 && y % bh == 0
    }

    /// Bytes of one row of blocks `width_px` texels wide.
    pub const fn row_bytes(self, width_px: u32) -> u64 {
        (width_px.div_ceil(self.block_size_px()[0]) as u64) * self.block_bytes() as u64
    }

    /// Rows of blocks `height_px` texels tall.
    pub const fn block_rows(self, height_px: u32) -> u32 {
        height_px.div_ceil(self.block_size_px()[1])
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
            Bc2RgbaUnorm => "bc2-rgba-unorm",
            Bc2RgbaUnormSrgb => "bc2-rgba-unorm-srgb",
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
            Astc { block, srgb } => ASTC_NAMES[block.index() as usize][srgb as usize],
        }
    }
}

/// `px` rounded up to a multiple of `block`, saturating at the last multiple below `u32::MAX`.
const fn round_up(px: u32, block: u32) -> u32 {
    match px.div_ceil(block).checked_mul(block) {
        Some(v) => v,
        None => u32::MAX / block * block,
    }
}

/// ASTC's names in wgpu's table, linear then sRGB, by [`AstcBlock::index`].
const ASTC_NAMES: [[&str; 2]; 14] = [
    ["astc-4x4-unorm", "astc-4x4-unorm-srgb"],
    ["astc-5x4-unorm", "astc-5x4-unorm-srgb"],
    ["astc-5x5-unorm", "astc-5x5-unorm-srgb"],
    ["astc-6x5-unorm", "astc-6x5-unorm-srgb"],
    ["astc-6x6-unorm", "astc-6x6-unorm-srgb"],
    ["astc-8x5-unorm", "astc-8x5-unorm-srgb"],
    ["astc-8x6-unorm", "astc-8x6-unorm-srgb"],
    ["astc-8x8-unorm", "astc-8x8-unorm-srgb"],
    ["astc-10x5-unorm", "astc-10x5-unorm-srgb"],
    ["astc-10x6-unorm", "astc-10x6-unorm-srgb"],
    ["astc-10x8-unorm", "astc-10x8-unorm-srgb"],
    ["astc-10x10-unorm", "astc-10x10-unorm-srgb"],
    ["astc-12x10-unorm", "astc-12x10-unorm-srgb"],
    ["astc-12x12-unorm", "astc-12x12-unorm-srgb"],
];

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
        assert_eq!((f.block_size_px(), f.block_bytes()), ([4, 4], 16));
        assert_eq!(f.image_bytes(30, 30), 8 * 8 * 16);
        assert_eq!(Format::Bc1RgbaUnorm.image_bytes(1, 1), 8);
        assert_eq!(Format::Rgba8Unorm.image_bytes(3, 5), 60);
        assert_eq!(f.round_up_px([30, 1]), [32, 4]);
        assert_eq!(f.round_up_px([u32::MAX, 0]), [u32::MAX - 3, 0]);
        let astc = Format::Astc { block: AstcBlock::B12x10, srgb: true };
        assert_eq!(astc.round_up_px([13, 13]), [24, 20]);
        assert_eq!(astc.round_up_px([u32::MAX, u32::MAX]), [u32::MAX / 12 * 12, u32::MAX / 10 * 10]);
        assert_eq!(astc.image_bytes(13, 13), 2 * 2 * 16);
        assert_eq!((astc.name(), astc.is_srgb()), ("astc-12x10-unorm-srgb", true));
        assert!(astc.on_block([24, 10]) && !astc.on_block([10, 10]));
        assert_eq!(Format::ALL.iter().filter(|f| f.is_compressed()).count(), 46);
        for f in Format::ALL {
            assert_eq!(f.is_compressed(), f.block_size_px() != [1, 1], "{f}");
        }
        let names: std::collections::HashSet<&str> = Format::ALL.iter().map(|f| f.name()).collect();
        assert_eq!(names.len(), Format::ALL.len());
        for (i, b) in AstcBlock::ALL.into_iter().enumerate() {
            assert_eq!((b.index(), AstcBlock::from_size_px(b.size_px())), (i as u32, Some(b)));
        }
    }
}
