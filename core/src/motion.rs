//! The moving half of a sprite: 16 bytes a frame ([`Motion`]), streamed into a moving
//! resident layer's motion texture ([`crate::TextureStore::create_moving`]) and pulled by the
//! vertex shader by the sprite's index, while the static half (texture, rectangle, size, tint,
//! effect) stays in the layer's buffer on the device.
//!
//! The motion texture is RGBA32F, one texel a sprite, [`MOTION_ROW_TEXELS`] texels a row:
//! sprite `i` is texel `(i % MOTION_ROW_TEXELS, i / MOTION_ROW_TEXELS)`, read with
//! `textureLoad` (`texelFetch` in GLSL), which every path has (GL 3.3, GLES 3.0, WebGL2,
//! WebGPU in compatibility mode, where the vertex stage has no storage buffer).

use std::ops::Range;

use bytemuck::{Pod, Zeroable};

/// Texels a row of a motion texture: sprite `i` is texel `(i % 1024, i / 1024)`. 1024 is half
/// the smallest `max_texture_size` WebGL2 and GLES 3.0 guarantee (2048), so a layer of up to
/// `1024 * max_texture_size_px` sprites fits (2,097,152 at 2048).
pub const MOTION_ROW_TEXELS: u32 = 1024;

/// Where a moving sprite is this frame: its quad (made in the sprite's own space, its pivot at
/// `(0, 0)`) is turned and scaled by `rotation_scale` and moved to `position`:
/// `world = position + (rs.x * q.x - rs.y * q.y, rs.y * q.x + rs.x * q.y)`, before the draw's
/// transform. 16 bytes, the bytes a moving sprite costs a frame.
///
/// The rotation is given as `scale * (cos θ, sin θ)`, not as an angle: the vertex shader does no
/// trigonometry, and a host turning a quad by the same 2x2 matrix on the CPU gets the same
/// corners.
///
/// ```
/// use layerbatch_core::Motion;
/// let m = Motion::new([100.0, 50.0], std::f32::consts::FRAC_PI_2, 2.0);
/// assert_eq!(m.position, [100.0, 50.0]);
/// let [c, s] = m.rotation_scale;
/// assert!(c.abs() < 1e-6 && (s - 2.0).abs() < 1e-6);
/// assert_eq!(Motion::default(), Motion::at([0.0, 0.0]));
/// assert_eq!(std::mem::size_of::<Motion>(), Motion::BYTES as usize);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct Motion {
    /// Where the sprite's pivot goes, pixels (before the draw's transform).
    pub position: [f32; 2],
    /// `scale * (cos θ, sin θ)`: `[1, 0]` is upright at scale 1.
    pub rotation_scale: [f32; 2],
}

impl Default for Motion {
    /// At the origin, upright, scale 1: the quads as recorded.
    fn default() -> Self {
        Self::at([0.0, 0.0])
    }
}

impl Motion {
    /// Bytes of one motion: what a moving sprite costs a frame.
    pub const BYTES: u32 = std::mem::size_of::<Motion>() as u32;

    /// What a motion the host wrote in place and that is not finite becomes on the device:
    /// scale 0, drawn as nothing ([`copy_checked`]).
    pub const NOTHING: Motion = Motion { position: [0.0, 0.0], rotation_scale: [0.0, 0.0] };

    /// At `position`, upright, scale 1.
    pub const fn at(position: [f32; 2]) -> Self {
        Self { position, rotation_scale: [1.0, 0.0] }
    }

    /// At `position`, turned by `rotation_rad` (clockwise on screen, y down) and scaled by
    /// `scale`.
    pub fn new(position: [f32; 2], rotation_rad: f32, scale: f32) -> Self {
        let (s, c) = rotation_rad.sin_cos();
        Self { position, rotation_scale: [c * scale, s * scale] }
    }

    /// Every component is finite (a NaN or infinite motion is refused:
    /// [`crate::ResidentError::BadMotion`]).
    pub fn is_finite(&self) -> bool {
        self.position.iter().chain(&self.rotation_scale).all(|v| v.is_finite())
    }

    /// Where corner `q` (in the sprite's space) lands: what the vertex shader computes.
    pub fn apply(&self, q: [f32; 2]) -> [f32; 2] {
        let [c, s] = self.rotation_scale;
        [c * q[0] + -s * q[1] + self.position[0], s * q[0] + c * q[1] + self.position[1]]
    }
}

/// The index of the first motion of `motions` with a NaN or infinite component, if any. Reads
/// the bits in blocks the compiler vectorises (an exponent of all ones is a NaN or an
/// infinity), at about the speed of reading the memory: the check costs a frame of a million
/// motions a fraction of a millisecond.
///
/// ```
/// use layerbatch_core::{first_non_finite, Motion};
/// let mut m = vec![Motion::at([1.0, 2.0]); 3000];
/// assert_eq!(first_non_finite(&m), None);
/// m[2049].rotation_scale[1] = f32::NEG_INFINITY;
/// m[2500].position[0] = f32::NAN;
/// assert_eq!(first_non_finite(&m), Some(2049));
/// ```
pub fn first_non_finite(motions: &[Motion]) -> Option<usize> {
    const EXPONENT: u32 = 0x7f80_0000;
    const BLOCK: usize = 256;
    for (b, block) in motions.chunks(BLOCK).enumerate() {
        let bits: &[u32] = bytemuck::cast_slice(block);
        if bits.iter().fold(false, |bad, v| bad | (v & EXPONENT == EXPONENT)) {
            return block.iter().position(|m| !m.is_finite()).map(|i| b * BLOCK + i);
        }
    }
    None
}

/// Copies `motions` into `sink` as bytes, in order, a block of up to 256 at a time, each
/// motion with a NaN or infinite component replaced by [`Motion::NOTHING`]; returns how many
/// were. The check and the copy are one pass over the motions: each block is checked while it
/// is in the cache and handed on from there (copied first only when it holds a bad motion).
/// This is how an executor whose budget has
/// [`staged_motion_writes`](crate::Budget::staged_motion_writes) copies a
/// [`MotionWrite`](crate::plan::MotionWrite)'s motions into its staging memory.
///
/// ```
/// use layerbatch_core::{copy_checked, Motion};
/// let mut m = vec![Motion::at([1.0, 2.0]); 600];
/// m[300].position[0] = f32::NAN;
/// m[599].rotation_scale[1] = f32::INFINITY;
/// let mut out: Vec<u8> = Vec::new();
/// assert_eq!(copy_checked(&m, |bytes| out.extend_from_slice(bytes)), 2);
/// let copied: &[Motion] = bytemuck::cast_slice(&out);
/// assert_eq!((copied.len(), copied[299], copied[300]), (600, m[299], Motion::NOTHING));
/// assert_eq!(copied[599], Motion::NOTHING);
/// ```
pub fn copy_checked(motions: &[Motion], mut sink: impl FnMut(&[u8])) -> u64 {
    const BLOCK: usize = 256;
    let mut patched = [Motion::NOTHING; BLOCK];
    let mut rejected = 0;
    for block in motions.chunks(BLOCK) {
        if first_non_finite(block).is_none() {
            sink(bytemuck::cast_slice(block));
            continue;
        }
        let out = &mut patched[..block.len()];
        for (o, m) in out.iter_mut().zip(block) {
            let finite = m.is_finite();
            rejected += u64::from(!finite);
            *o = if finite { *m } else { Motion::NOTHING };
        }
        sink(bytemuck::cast_slice(out));
    }
    rejected
}

/// The size in texels of the motion texture of a layer of `sprites` sprites:
/// `[MOTION_ROW_TEXELS, rows]` (at least one row).
pub fn motion_texture_size(sprites: u32) -> [u32; 2] {
    [MOTION_ROW_TEXELS, sprites.div_ceil(MOTION_ROW_TEXELS).max(1)]
}

/// The rectangles of a motion texture that sprites `first..first + count` cover, each with the
/// range of those sprites (relative to `first`): at most three (a partial first row, whole
/// rows, a partial last row), in order. Their texels are exactly the sprites': no byte is
/// written twice or for nothing.
///
/// ```
/// use layerbatch_core::motion_rects;
/// // Sprites 1000..3100: the end of row 0, rows 1 and 2, the start of row 3.
/// let rects: Vec<_> = motion_rects(1000, 2100).collect();
/// assert_eq!(rects[0], ([1000, 0, 24, 1], 0..24));
/// assert_eq!(rects[1], ([0, 1, 1024, 2], 24..2072));
/// assert_eq!(rects[2], ([0, 3, 28, 1], 2072..2100));
/// assert_eq!(rects.iter().map(|(r, _)| r[2] * r[3]).sum::<u32>(), 2100);
/// ```
pub fn motion_rects(first: u32, count: u32) -> impl Iterator<Item = ([u32; 4], Range<u32>)> {
    let row = MOTION_ROW_TEXELS;
    let end = first.saturating_add(count);
    let mut at = first;
    std::iter::from_fn(move || {
        if at >= end {
            return None;
        }
        let (x, y) = (at % row, at / row);
        let rect = if x > 0 || end - at < row {
            // A partial row: to the row's end or the range's.
            [x, y, (row - x).min(end - at), 1]
        } else {
            [0, y, row, (end - at) / row]
        };
        let n = rect[2] * rect[3];
        let range = at - first..at - first + n;
        at += n;
        Some((rect, range))
    })
}
