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
    /// Premultiplied RGBA8 tint. Default opaque white.
    pub color: [u8; 4],
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

    /// Shows only `[u0, v0, u1, v1]` of the texture (a sprite-sheet frame).
    pub const fn with_uv(mut self, uv: [f32; 4]) -> Self {
        self.uv = uv;
        self
    }

    /// Sets the premultiplied tint.
    pub const fn with_color(mut self, color: [u8; 4]) -> Self {
        self.color = color;
        self
    }

    #[inline]
    pub(crate) fn is_finite(&self) -> bool {
        // A float is NaN or infinite exactly when its exponent bits are all ones. Adding one
        // unit of exponent carries into bit 31 for that pattern only, so OR-ing the sums of the
        // ten coordinates and testing bit 31 finds any: adds, ands and ors over the quad's
        // leading 40 bytes, no branch per lane, which vectorizes on the push hot path.
        const EXP: u32 = 0x7f80_0000;
        const ONE: u32 = 0x0080_0000;
        let words: &[u32; 14] = bytemuck::cast_ref(self);
        words[..10].iter().fold(0u32, |m, &b| m | ((b & EXP) + ONE)) & (1 << 31) == 0
    }
}
