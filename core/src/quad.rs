//! Quads as the host submits them.

use crate::TextureId;

/// A quad to draw, in the texture's own coordinates. Plain data; build it with the
/// constructors or fill the fields.
///
/// ```
/// # use layerbatch_core::{Quad, TextureId};
/// # fn f(tex: TextureId) {
/// let q = Quad::rect(tex, [10.0, 20.0], [32.0, 32.0]).with_color([255, 255, 255, 128]);
/// # }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct Quad {
    /// Position of the corner that samples `uv[0..2]`, pixels.
    pub origin: [f32; 2],
    /// Edge vector to the corner that samples `(uv[2], uv[1])`.
    pub axis_x: [f32; 2],
    /// Edge vector to the corner that samples `(uv[0], uv[3])`.
    pub axis_y: [f32; 2],
    /// `[u0, v0, u1, v1]` in the texture's own `0..1` space. Default `[0, 0, 1, 1]`.
    pub uv: [f32; 4],
    /// The texture.
    pub texture: TextureId,
    /// Premultiplied RGBA8 tint, linear unless the drawing state says sRGB
    /// ([`TintEncoding`]). Default opaque white.
    pub color: [u8; 4],
}

/// How the batcher reads the `color` of the quads and vertices pushed
/// ([`crate::DrawingState::set_tint_encoding`]). Both are premultiplied RGBA8; they differ in
/// the curve the red, green and blue bytes are on. `#[non_exhaustive]`; default
/// [`TintEncoding::Linear`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TintEncoding {
    /// Linear light: byte `v` is `v / 255`. Dark tints are coarse (linear 0.0056, sRGB 17,
    /// rounds to 1/255, which shows as sRGB 13).
    #[default]
    Linear,
    /// The sRGB curve: byte `v` is the sRGB encoding of the linear, premultiplied value, which
    /// the vertex shader decodes (`Instance::FLAG_SRGB_TINT`). As fine as an sRGB image in the
    /// dark: a host holding colours as floats (Bevy's `Color`) gets them to within a level
    /// of an sRGB target. Alpha stays linear. [`srgb_tint`] encodes a straight colour.
    Srgb,
}

/// A straight sRGB colour with straight alpha (`0.0..=1.0` each) as a premultiplied tint for
/// [`TintEncoding::Srgb`]: premultiplied in linear light, then encoded with the sRGB curve.
///
/// ```
/// use layerbatch_core::srgb_tint;
/// assert_eq!(srgb_tint([1.0, 0.5, 0.0, 1.0]), [255, 128, 0, 255]);
/// assert_eq!(srgb_tint([1.0, 1.0, 1.0, 0.5]), [188, 188, 188, 128]); // linear 0.5
/// ```
pub fn srgb_tint(rgba: [f32; 4]) -> [u8; 4] {
    let decode = |c: f32| if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) };
    let encode = |c: f32| if c <= 0.003_130_8 { c * 12.92 } else { 1.055 * c.powf(1.0 / 2.4) - 0.055 };
    let a = rgba[3].clamp(0.0, 1.0);
    let byte = |c: f32| (c.clamp(0.0, 1.0) * 255.0).round() as u8;
    let rgb = |c: f32| byte(encode(decode(c.clamp(0.0, 1.0)) * a));
    [rgb(rgba[0]), rgb(rgba[1]), rgb(rgba[2]), byte(a)]
}

// The ten coordinates lead, contiguous, so `is_finite` reads them as one array.
const _: () = assert!(std::mem::size_of::<Quad>() == 56);
const _: () = assert!(std::mem::offset_of!(Quad, texture) == 40);

impl Quad {
    /// An axis-aligned quad with its top-left corner at `pos_px`, `size_px` big, showing the
    /// whole texture untinted.
    pub const fn rect(texture: TextureId, pos_px: [f32; 2], size_px: [f32; 2]) -> Self {
        Self {
            texture,
            origin: pos_px,
            axis_x: [size_px[0], 0.0],
            axis_y: [0.0, size_px[1]],
            uv: [0.0, 0.0, 1.0, 1.0],
            color: [255; 4],
        }
    }

    /// A quad `size_px` big centred on `center_px`, rotated by `angle_rad` (clockwise on a
    /// y-down screen).
    pub fn rotated(texture: TextureId, center_px: [f32; 2], size_px: [f32; 2], angle_rad: f32) -> Self {
        let (s, c) = angle_rad.sin_cos();
        let ax = [c * size_px[0], s * size_px[0]];
        let ay = [-s * size_px[1], c * size_px[1]];
        Self {
            texture,
            origin: [center_px[0] - 0.5 * (ax[0] + ay[0]), center_px[1] - 0.5 * (ax[1] + ay[1])],
            axis_x: ax,
            axis_y: ay,
            uv: [0.0, 0.0, 1.0, 1.0],
            color: [255; 4],
        }
    }

    /// A quad `size_px` big, scaled by `scale` and rotated by `angle_rad` (clockwise on a y-down
    /// screen) about its `pivot`, which lands on `pos_px`. The pivot is in the quad's own
    /// `0..1` coordinates: `[0, 0]` is the top-left corner, `[0.5, 0.5]` the centre,
    /// `[0.5, 1]` the middle of the bottom edge (feet of a character). A negative scale
    /// mirrors.
    ///
    /// ```
    /// # use layerbatch_core::{Quad, TextureId};
    /// # fn f(tex: TextureId) {
    /// // Feet at (100, 200), twice as big, no rotation: the quad spans x 68..132, y 136..200.
    /// let q = Quad::placed(tex, [100.0, 200.0], [32.0, 32.0], [0.5, 1.0], [2.0, 2.0], 0.0);
    /// assert_eq!(q.origin, [68.0, 136.0]);
    /// # }
    /// ```
    pub fn placed(
        texture: TextureId,
        pos_px: [f32; 2],
        size_px: [f32; 2],
        pivot: [f32; 2],
        scale: [f32; 2],
        angle_rad: f32,
    ) -> Self {
        let (s, c) = angle_rad.sin_cos();
        let (w, h) = (size_px[0] * scale[0], size_px[1] * scale[1]);
        let ax = [c * w, s * w];
        let ay = [-s * h, c * h];
        Self {
            texture,
            origin: [pos_px[0] - pivot[0] * ax[0] - pivot[1] * ay[0], pos_px[1] - pivot[0] * ax[1] - pivot[1] * ay[1]],
            axis_x: ax,
            axis_y: ay,
            uv: [0.0, 0.0, 1.0, 1.0],
            color: [255; 4],
        }
    }

    /// An untextured quad of one premultiplied colour: `white` is
    /// [`crate::TextureStore::white`], a white texel in the batcher's atlas pages, so solid quads
    /// share the draw (and the slot) of the sprites around them.
    pub const fn solid(white: TextureId, pos_px: [f32; 2], size_px: [f32; 2], color: [u8; 4]) -> Self {
        Self::rect(white, pos_px, size_px).with_color(color)
    }

    /// Shows only `[u0, v0, u1, v1]` of the texture (a sprite-sheet frame).
    pub const fn with_uv(mut self, uv: [f32; 4]) -> Self {
        self.uv = uv;
        self
    }

    /// Shows only the pixel rectangle `[x, y, width, height]` of a texture of
    /// `texture_size_px` (a sprite-sheet frame, in the sheet's pixels).
    ///
    /// ```
    /// # use layerbatch_core::{Quad, TextureId};
    /// # fn f(sheet: TextureId) {
    /// let frame = Quad::rect(sheet, [0.0, 0.0], [16.0, 16.0]).with_source_px([16.0, 0.0, 16.0, 16.0], [64, 16]);
    /// assert_eq!(frame.uv, [0.25, 0.0, 0.5, 1.0]);
    /// # }
    /// ```
    pub fn with_source_px(mut self, rect_px: [f32; 4], texture_size_px: [u32; 2]) -> Self {
        let (w, h) = (texture_size_px[0].max(1) as f32, texture_size_px[1].max(1) as f32);
        let [x, y, rw, rh] = rect_px;
        self.uv = [x / w, y / h, (x + rw) / w, (y + rh) / h];
        self
    }

    /// Mirrors the texture left-right and/or top-bottom (swaps the UVs).
    pub const fn flipped(mut self, horizontal: bool, vertical: bool) -> Self {
        let [u0, v0, u1, v1] = self.uv;
        if horizontal {
            self.uv[0] = u1;
            self.uv[2] = u0;
        }
        if vertical {
            self.uv[1] = v1;
            self.uv[3] = v0;
        }
        self
    }

    /// Sets the tint from a straight-alpha colour (the kind colour pickers give): the colour
    /// channels are multiplied by alpha, as the premultiplied blending expects. With
    /// [`Quad::with_color`], `[255, 0, 0, 128]` would be a half-transparent red added at full
    /// strength.
    ///
    /// ```
    /// # use layerbatch_core::{Quad, TextureId};
    /// # fn f(tex: TextureId) {
    /// let q = Quad::rect(tex, [0.0, 0.0], [8.0, 8.0]).with_straight_color([255, 0, 0, 128]);
    /// assert_eq!(q.color, [128, 0, 0, 128]);
    /// # }
    /// ```
    pub const fn with_straight_color(self, rgba: [u8; 4]) -> Self {
        self.with_color(premultiply(rgba))
    }

    /// Sets the premultiplied tint.
    pub const fn with_color(mut self, color: [u8; 4]) -> Self {
        self.color = color;
        self
    }

    /// Largest magnitude a position or axis coordinate may have: 2^30 px (about 1.07e9), so
    /// that a corner (`origin + axis_x + axis_y`) and its transform stay finite in `f32`.
    pub const MAX_POSITION: f32 = (1u32 << 30) as f32;
    /// Largest magnitude a UV may have: 2^16 (a repeating texture tiled 65,536 times), so that
    /// UVs mapped to texels (times a layer size of at most 2^16) stay finite in `f32`.
    pub const MAX_UV: f32 = (1u32 << 16) as f32;

    /// Whether every coordinate is finite and within [`Quad::MAX_POSITION`] (positions, axes)
    /// and [`Quad::MAX_UV`] (UVs): then the quad's instance is finite too.
    #[inline]
    pub(crate) fn in_range(&self) -> bool {
        // A float's magnitude is below 2^k exactly when its exponent bits are below 127 + k
        // (NaN and infinity have all ones). Max-folding the exponents of the ten coordinates
        // is adds, ands and compares over the quad's leading 40 bytes, no branch per lane,
        // which vectorizes on the push hot path.
        const EXP: u32 = 0x7f80_0000;
        const POS_LIMIT: u32 = (127 + 30) << 23;
        const UV_LIMIT: u32 = (127 + 16) << 23;
        let words: &[u32; 14] = bytemuck::cast_ref(self);
        let pos = words[..6].iter().fold(0u32, |m, &b| m.max(b & EXP));
        let uv = words[6..10].iter().fold(0u32, |m, &b| m.max(b & EXP));
        (pos < POS_LIMIT) & (uv < UV_LIMIT)
    }

    #[inline]
    pub(crate) fn is_finite(&self) -> bool {
        let words: &[u32; 14] = bytemuck::cast_ref(self);
        words[..10].iter().all(|&b| b & 0x7f80_0000 != 0x7f80_0000)
    }
}

/// A straight-alpha RGBA8 colour premultiplied (rounded): `[r * a, g * a, b * a, a]`.
///
/// ```
/// assert_eq!(layerbatch_core::premultiply([255, 128, 0, 128]), [128, 64, 0, 128]);
/// ```
pub const fn premultiply(rgba: [u8; 4]) -> [u8; 4] {
    const fn mul(c: u8, a: u8) -> u8 {
        ((c as u32 * a as u32 + 127) / 255) as u8
    }
    [mul(rgba[0], rgba[3]), mul(rgba[1], rgba[3]), mul(rgba[2], rgba[3]), rgba[3]]
}
