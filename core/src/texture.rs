//! Texture descriptions and generational ids.

pub use crate::format::Format;

/// Minification / magnification filter. With mip levels, `Linear` is trilinear and `Nearest`
/// picks the nearest texel of the nearest level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Filter {
    /// Nearest texel (pixel art).
    Nearest,
    /// Bilinear (trilinear with mips).
    Linear,
}

/// Addressing outside `0..1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Wrap {
    /// Clamp to the edge texel. Textures with this wrap may be padded into a larger size class.
    ClampToEdge,
    /// Tile. Never padded: padding would show in the tiling.
    Repeat,
    /// Tile, mirrored. Never padded.
    MirroredRepeat,
}

/// How a texture is sampled: filters for magnification, minification and between mip levels,
/// and the wrap of each axis. One per texture (and per array: textures share an array only
/// with textures sampled alike).
///
/// ```
/// use layerbatch_core::{Filter, Sampler, TextureDesc, Wrap};
/// // Pixel art up close, smooth when shrunk, tiling horizontally only:
/// let sampler = Sampler::new(Filter::Linear, Wrap::ClampToEdge)
///     .with_mag_filter(Filter::Nearest)
///     .with_wrap_u(Wrap::Repeat);
/// let desc = TextureDesc::new(64, 16).with_sampler(sampler);
/// assert_eq!(desc.sampler.min_filter, Filter::Linear);
/// assert!(!desc.sampler.clamps());
/// assert_eq!(Sampler::default(), Sampler::new(Filter::Linear, Wrap::ClampToEdge));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sampler {
    /// Filter when a texel covers more than a pixel. Default [`Filter::Linear`].
    pub mag_filter: Filter,
    /// Filter when a texel covers less than a pixel. Default [`Filter::Linear`].
    pub min_filter: Filter,
    /// Filter between mip levels (only with more than one level): `Linear` blends the two
    /// nearest levels, `Nearest` picks one. Default [`Filter::Linear`].
    pub mipmap_filter: Filter,
    /// Wrap of the horizontal axis (`u`). Default [`Wrap::ClampToEdge`].
    pub wrap_u: Wrap,
    /// Wrap of the vertical axis (`v`). Default [`Wrap::ClampToEdge`].
    pub wrap_v: Wrap,
}

impl Sampler {
    /// `filter` for magnification, minification and between levels; `wrap` on both axes.
    pub const fn new(filter: Filter, wrap: Wrap) -> Self {
        Self { mag_filter: filter, min_filter: filter, mipmap_filter: filter, wrap_u: wrap, wrap_v: wrap }
    }
    /// Sets the magnification filter.
    pub const fn with_mag_filter(mut self, filter: Filter) -> Self {
        self.mag_filter = filter;
        self
    }
    /// Sets the minification filter.
    pub const fn with_min_filter(mut self, filter: Filter) -> Self {
        self.min_filter = filter;
        self
    }
    /// Sets the filter between mip levels.
    pub const fn with_mipmap_filter(mut self, filter: Filter) -> Self {
        self.mipmap_filter = filter;
        self
    }
    /// Sets the horizontal wrap.
    pub const fn with_wrap_u(mut self, wrap: Wrap) -> Self {
        self.wrap_u = wrap;
        self
    }
    /// Sets the vertical wrap.
    pub const fn with_wrap_v(mut self, wrap: Wrap) -> Self {
        self.wrap_v = wrap;
        self
    }
    /// Whether both axes clamp to the edge: only such textures share atlas pages or are padded
    /// into a larger size class.
    pub const fn clamps(&self) -> bool {
        matches!((self.wrap_u, self.wrap_v), (Wrap::ClampToEdge, Wrap::ClampToEdge))
    }
}

impl Default for Sampler {
    /// Linear filters, clamp to edge on both axes.
    fn default() -> Self {
        Self::new(Filter::Linear, Wrap::ClampToEdge)
    }
}

/// Whether a texture's colours are premultiplied by its alpha.
///
/// layerbatch blends premultiplied colour (`ONE, ONE_MINUS_SRC_ALPHA`), so texels are expected
/// premultiplied. A texture registered [`Alpha::Straight`] is premultiplied in the shader right
/// after sampling ([`crate::plan::Instance::FLAG_STRAIGHT_ALPHA`]): exact at scale 1 with nearest
/// filtering, and, like every straight-alpha texture, filtered before it is premultiplied, so a
/// linear filter across a transparent edge blends in the transparent texels' colour. Core's mips
/// of an RGBA8 straight texture are box-filtered straight colours too. Premultiply before
/// registering (or before encoding, for a compressed format) for the cleanest edges.
///
/// ```
/// use layerbatch_core::{Alpha, TextureDesc};
/// let desc = TextureDesc::new(8, 8).with_alpha(Alpha::Straight);
/// assert_eq!(TextureDesc::new(8, 8).alpha, Alpha::Premultiplied);
/// assert_ne!(desc, TextureDesc::new(8, 8));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Alpha {
    /// Colour already multiplied by alpha. The default.
    #[default]
    Premultiplied,
    /// Colour not multiplied by alpha (PNG's convention, and KTX2's without
    /// `KHR_DF_FLAG_ALPHA_PREMULTIPLIED`): premultiplied in the shader after sampling.
    Straight,
}

/// How a texture is used, which decides whether it can share an array with others.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Usage {
    /// Pixels set at registration and by [`crate::TextureStore::update`]. Bucketed into shared arrays.
    Static,
    /// The host renders into it. Lives in its own one-texture array, served by the slot ladder.
    RenderTarget,
    /// Its size may change ([`crate::TextureStore::resize`]). Lives in its own one-texture array.
    Dynamic,
    /// The host owns it on the device (a render target of its own, a video frame, another
    /// renderer's output) and hands it to the backend (`set_host_texture`); layerbatch never
    /// uploads its pixels. Lives in its own one-texture array, bound through the slot ladder:
    /// on a device that views a 2D texture as a one-layer array
    /// ([`crate::Limits::host_texture_views`]: native wgpu, WebGPU) the array *is* the host's
    /// texture and shows what the host draws into it at once; elsewhere (GL, GLES, WebGL2,
    /// wgpu's GL backend) the array is a copy, made on the GPU when it is registered and after
    /// each [`crate::TextureStore::host_changed`]. One level, an uncompressed format, no
    /// pixels at registration; [`crate::TextureStore::resize`] follows a host texture that
    /// changed size. See the host textures chapter of the docs.
    Host,
}

/// Everything about a texture except its pixels.
///
/// ```
/// use layerbatch_core::{Filter, Format, TextureDesc};
/// let desc = TextureDesc::new(64, 32).with_filter(Filter::Nearest).with_format(Format::Rgba8UnormSrgb);
/// assert_eq!(desc.byte_len(), 64 * 32 * 4);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TextureDesc {
    /// Width in pixels. Must be at least 1.
    pub width_px: u32,
    /// Height in pixels. Must be at least 1.
    pub height_px: u32,
    /// Pixel format. Default [`Format::Rgba8Unorm`].
    pub format: Format,
    /// Filters and wraps. Default [`Sampler::default`]: linear, clamp to edge.
    pub sampler: Sampler,
    /// Mip levels, level 0 included. Default 1. For RGBA8, levels below 0 are generated by core
    /// (2x2 box filter, in linear light for sRGB) from the level-0 pixels given at
    /// registration; for a compressed format the data holds every level (authored mips).
    pub mip_levels: u32,
    /// Usage. Default [`Usage::Static`].
    pub usage: Usage,
    /// Whether the texels are premultiplied. Default [`Alpha::Premultiplied`].
    pub alpha: Alpha,
}

impl TextureDesc {
    /// A `width_px` x `height_px` RGBA8 linear texture, linear filter, clamp to edge, one level.
    pub const fn new(width_px: u32, height_px: u32) -> Self {
        Self {
            width_px,
            height_px,
            format: Format::Rgba8Unorm,
            sampler: Sampler::new(Filter::Linear, Wrap::ClampToEdge),
            mip_levels: 1,
            usage: Usage::Static,
            alpha: Alpha::Premultiplied,
        }
    }
    /// Sets the format.
    pub const fn with_format(mut self, format: Format) -> Self {
        self.format = format;
        self
    }
    /// Sets the magnification, minification and mipmap filters to `filter`.
    pub const fn with_filter(mut self, filter: Filter) -> Self {
        self.sampler.mag_filter = filter;
        self.sampler.min_filter = filter;
        self.sampler.mipmap_filter = filter;
        self
    }
    /// Sets the wrap of both axes.
    pub const fn with_wrap(mut self, wrap: Wrap) -> Self {
        self.sampler.wrap_u = wrap;
        self.sampler.wrap_v = wrap;
        self
    }
    /// Sets the whole sampler (filters and per-axis wraps).
    pub const fn with_sampler(mut self, sampler: Sampler) -> Self {
        self.sampler = sampler;
        self
    }
    /// Sets the number of mip levels (level 0 included).
    pub const fn with_mip_levels(mut self, mip_levels: u32) -> Self {
        self.mip_levels = mip_levels;
        self
    }
    /// Sets the usage.
    pub const fn with_usage(mut self, usage: Usage) -> Self {
        self.usage = usage;
        self
    }
    /// Sets whether the texels are premultiplied.
    pub const fn with_alpha(mut self, alpha: Alpha) -> Self {
        self.alpha = alpha;
        self
    }
    /// Bytes of pixel data expected at registration: level 0 (`width * height * 4`) for RGBA8,
    /// whose mips core generates; every level, in whole blocks, for a compressed format,
    /// whose mips are authored ([`mip_chain_bytes`]). Saturates at `usize::MAX` (which no
    /// slice has) instead of wrapping.
    ///
    /// ```
    /// use layerbatch_core::{Format, TextureDesc};
    /// let bc7 = TextureDesc::new(30, 30).with_format(Format::Bc7RgbaUnorm).with_mip_levels(2);
    /// assert_eq!(bc7.byte_len(), (8 * 8 + 4 * 4) * 16); // 30x30 is 8x8 blocks, 15x15 is 4x4
    /// ```
    pub const fn byte_len(&self) -> usize {
        let levels = if self.format.is_compressed() { self.mip_levels } else { 1 };
        let bytes = mip_chain_bytes(self.width_px, self.height_px, levels, self.format);
        if bytes > usize::MAX as u64 {
            usize::MAX
        } else {
            bytes as usize
        }
    }
}

/// Size of mip `level` of a `width` x `height` image (never below 1). Total: a level past
/// the chain's end (32 or more included) is 1x1.
///
/// ```
/// use layerbatch_core::mip_size;
/// assert_eq!(mip_size(64, 16, 5), (2, 1));
/// assert_eq!(mip_size(u32::MAX, 7, 40), (1, 1));
/// ```
pub const fn mip_size(width_px: u32, height_px: u32, level: u32) -> (u32, u32) {
    let w = match width_px.checked_shr(level) {
        Some(w) => w,
        None => 0,
    };
    let h = match height_px.checked_shr(level) {
        Some(h) => h,
        None => 0,
    };
    (if w == 0 { 1 } else { w }, if h == 0 { 1 } else { h })
}

/// The largest valid mip level count for a `width` x `height` image.
pub const fn max_mip_levels(width_px: u32, height_px: u32) -> u32 {
    let m = if width_px > height_px { width_px } else { height_px };
    if m == 0 {
        0
    } else {
        32 - m.leading_zeros()
    }
}

/// Bytes of `levels` mip levels of a `width` x `height` image of `format`, each level in whole
/// blocks. Saturates at `u64::MAX` (which no budget admits) instead of wrapping. Total and
/// quick for any `levels`: the levels past the chain's end count as 1x1 (one block each).
///
/// ```
/// use layerbatch_core::{mip_chain_bytes, Format};
/// assert_eq!(mip_chain_bytes(4, 4, 3, Format::Rgba8Unorm), (16 + 4 + 1) * 4);
/// assert_eq!(mip_chain_bytes(1, 1, u32::MAX, Format::Bc7RgbaUnorm), u64::from(u32::MAX) * 16);
/// ```
pub const fn mip_chain_bytes(width_px: u32, height_px: u32, levels: u32, format: Format) -> u64 {
    let mut total = 0u64;
    let mut l = 0;
    // By level 32 every size is 1x1 (`mip_size`); the rest are one block each.
    while l < levels && l < 32 {
        let (w, h) = mip_size(width_px, height_px, l);
        total = total.saturating_add(format.image_bytes(w, h));
        l += 1;
    }
    let rest = (levels - l) as u64;
    total.saturating_add(rest.saturating_mul(format.image_bytes(1, 1)))
}

/// A registered texture. Generational: once the texture is freed, this id is rejected
/// forever, even after its index is reused by another texture. It also names the
/// [`crate::Batcher`] that issued it: another batcher rejects it as stale.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct TextureId {
    pub(crate) index: u32,
    pub(crate) generation: u32,
    pub(crate) batcher: u32,
}

impl TextureId {
    /// Index in the registry (reused after a free, until its generations run out).
    pub const fn index(self) -> u32 {
        self.index
    }
    /// Generation of the index (bumped by every free; an index whose generation reaches
    /// `u32::MAX` is retired instead of wrapping).
    pub const fn generation(self) -> u32 {
        self.generation
    }
    /// The tag of the batcher that issued the id (unique per batcher in a process, until 2^32
    /// batchers have been created).
    pub const fn batcher(self) -> u32 {
        self.batcher
    }
}

/// Source texels a destination texel `x` of a level averages, along one axis whose previous
/// level is `prev` texels: `2x` and `2x + 1`, and for an odd `prev` the last texel takes
/// `2x + 2` too, so the last row and column are never dropped.
fn taps(x: u32, size: u32, prev: u32) -> (u32, u32) {
    let first = (2 * x).min(prev - 1);
    let last = if prev % 2 == 1 && x + 1 == size { prev - 1 } else { (2 * x + 1).min(prev - 1) };
    (first, last)
}

/// sRGB-encoded byte to linear light.
fn srgb_to_linear(v: u8) -> f32 {
    static TABLE: std::sync::OnceLock<[f32; 256]> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        std::array::from_fn(|i| {
            let c = i as f32 / 255.0;
            if c <= 0.04045 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        })
    })[v as usize]
}

/// Linear light to an sRGB-encoded byte.
fn linear_to_srgb(l: f32) -> u8 {
    let c = if l <= 0.003_130_8 { l * 12.92 } else { 1.055 * l.powf(1.0 / 2.4) - 0.055 };
    (c * 255.0).round().clamp(0.0, 255.0) as u8
}

/// Appends a full mip chain generated from level 0 (`pixels`, RGBA8 of `format`) to `out`:
/// level 0 itself, then each level a box filter of the previous one (2x2 texels, 3 along an
/// odd axis's last row or column). sRGB textures are averaged in linear light (decoded,
/// averaged, encoded; alpha is linear), so their mips keep their brightness. `pixels` that
/// hold more than level 0 hold every level already (a compressed texture's authored levels,
/// or those levels decoded to RGBA8 on the CPU) and are copied as they are.
pub(crate) fn push_mip_chain(
    out: &mut Vec<u8>,
    pixels: &[u8],
    width_px: u32,
    height_px: u32,
    levels: u32,
    format: Format,
) {
    let start = out.len();
    out.extend_from_slice(pixels);
    if format.is_compressed() || pixels.len() as u64 > format.image_bytes(width_px, height_px) {
        // Authored: `pixels` holds every level already.
        return;
    }
    let srgb = format.is_srgb();
    let mut prev_start = start;
    let (mut pw, mut ph) = (width_px, height_px);
    for level in 1..levels {
        let (w, h) = mip_size(width_px, height_px, level);
        let this_start = out.len();
        out.reserve(w as usize * h as usize * 4);
        for y in 0..h {
            let (y0, y1) = taps(y, h, ph);
            for x in 0..w {
                let (x0, x1) = taps(x, w, pw);
                let mut acc = [0f32; 4];
                let mut n = 0.0;
                for sy in y0..=y1 {
                    for sx in x0..=x1 {
                        let i = prev_start + ((sy * pw + sx) * 4) as usize;
                        for c in 0..4 {
                            let v = out[i + c];
                            acc[c] += if srgb && c < 3 { srgb_to_linear(v) } else { f32::from(v) / 255.0 };
                        }
                        n += 1.0;
                    }
                }
                for (c, a) in acc.into_iter().enumerate() {
                    let mean = a / n;
                    out.push(if srgb && c < 3 { linear_to_srgb(mean) } else { (mean * 255.0).round() as u8 });
                }
            }
        }
        prev_start = this_start;
        pw = w;
        ph = h;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn srgb_mips_average_in_linear_light() {
        // Black and white texels: linear light averages to 0.5, which sRGB encodes as 188,
        // not the 128 an average of the encoded bytes gives (visibly darker).
        let px: Vec<u8> = [[0u8, 0, 0, 255], [255, 255, 255, 255], [0, 0, 0, 255], [255, 255, 255, 255]].concat();
        let mut out = Vec::new();
        push_mip_chain(&mut out, &px, 2, 2, 2, Format::Rgba8UnormSrgb);
        assert_eq!(&out[16..], &[188, 188, 188, 255]);
        let mut linear = Vec::new();
        push_mip_chain(&mut linear, &px, 2, 2, 2, Format::Rgba8Unorm);
        assert_eq!(&linear[16..], &[128, 128, 128, 255]);
    }

    #[test]
    fn odd_sizes_keep_their_last_row_and_column() {
        // 3x1: level 1 is 1x1 and averages all three texels (the old 2x2 box dropped the last).
        let px: Vec<u8> = [[0u8, 0, 0, 255], [0, 0, 0, 255], [255, 255, 255, 255]].concat();
        let mut out = Vec::new();
        push_mip_chain(&mut out, &px, 3, 1, 2, Format::Rgba8Unorm);
        assert_eq!(&out[12..], &[85, 85, 85, 255]);
        // 5x5 with a white last row and column: level 1 (2x2) keeps them in its last row and
        // column, level 2 (1x1) in its only texel.
        let mut px = vec![0u8; 5 * 5 * 4];
        for i in 0..25 {
            let (x, y) = (i % 5, i / 5);
            let v = if x == 4 || y == 4 { 255 } else { 0 };
            px[i * 4..i * 4 + 4].copy_from_slice(&[v, v, v, 255]);
        }
        let mut out = Vec::new();
        push_mip_chain(&mut out, &px, 5, 5, 3, Format::Rgba8Unorm);
        let level1 = &out[100..116];
        assert_eq!(level1[0], 0, "top-left stays black");
        assert!(level1[4] > 0 && level1[8] > 0 && level1[12] > 0, "the white edge reaches level 1: {level1:?}");
        assert!(out[116] > 0, "and level 2");
    }

    #[test]
    fn mip_math() {
        assert_eq!(max_mip_levels(1, 1), 1);
        assert_eq!(max_mip_levels(64, 16), 7);
        assert_eq!(max_mip_levels(65, 1), 7);
        assert_eq!(mip_size(64, 16, 5), (2, 1));
        assert_eq!(mip_chain_bytes(4, 4, 3, Format::Rgba8Unorm), (16 + 4 + 1) * 4);
        assert_eq!(mip_chain_bytes(u32::MAX, u32::MAX, 32, Format::Rgba8Unorm), u64::MAX);
    }

    #[test]
    fn mip_helpers_are_total_past_level_32() {
        // Level 32 and beyond used to shift by 32 or more: a debug panic, and in release a
        // wrapped shift (level 32 the size of level 0 again).
        for level in [31, 32, 33, 64, u32::MAX] {
            assert_eq!(mip_size(u32::MAX, u32::MAX, level), (1, 1), "level {level}");
            assert_eq!(mip_size(1024, 1, level), (1, 1), "level {level}");
        }
        assert_eq!(mip_size(u32::MAX, 3, 31), (1, 1));
        assert_eq!(mip_size(u32::MAX, 3, 30), (3, 1));
        // Levels past the chain are 1x1, one block each; u32::MAX levels are counted at once.
        let chain = mip_chain_bytes(1024, 1024, 11, Format::Rgba8Unorm);
        assert_eq!(mip_chain_bytes(1024, 1024, 33, Format::Rgba8Unorm), chain + 22 * 4);
        assert_eq!(
            mip_chain_bytes(1024, 1024, 40, Format::Bc7RgbaUnorm),
            mip_chain_bytes(1024, 1024, 11, Format::Bc7RgbaUnorm) + 29 * 16
        );
        let all = mip_chain_bytes(8, 8, u32::MAX, Format::Bc1RgbaUnorm);
        assert_eq!(all, 32 + 8 * (u64::from(u32::MAX) - 1), "8x8 is 2x2 blocks, then one block a level");
        assert_eq!(mip_chain_bytes(u32::MAX, u32::MAX, u32::MAX, Format::Rgba8Unorm), u64::MAX);
        // byte_len of a compressed texture declaring far more levels than it has.
        let desc = TextureDesc::new(4, 4).with_format(Format::Bc1RgbaUnorm).with_mip_levels(u32::MAX);
        assert_eq!(desc.byte_len() as u64, 8 * u64::from(u32::MAX));
        assert_eq!(TextureDesc::new(4, 4).with_mip_levels(u32::MAX).byte_len(), 64, "RGBA8: level 0 only");
        assert_eq!(max_mip_levels(u32::MAX, 1), 32, "unchanged");
    }

    #[test]
    fn mip_chain_averages() {
        let mut out = Vec::new();
        let px: Vec<u8> = [[0u8, 0, 0, 255], [255, 255, 255, 255], [0, 0, 0, 255], [255, 255, 255, 255]].concat();
        push_mip_chain(&mut out, &px, 2, 2, 2, Format::Rgba8Unorm);
        assert_eq!(out.len(), 20);
        assert_eq!(&out[16..], &[128, 128, 128, 255]);
    }
}
