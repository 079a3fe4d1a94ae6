//! What the allocator hands out: class keys, placements, and what moved.

use crate::plan::ArrayId;
use crate::texture::{Format, Sampler};

/// The key of an array family: textures with equal keys can share an array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClassKey {
    /// Layer width.
    pub width_px: u32,
    /// Layer height.
    pub height_px: u32,
    /// Format.
    pub format: Format,
    /// Mip levels.
    pub mip_levels: u32,
    /// Filters and wraps.
    pub sampler: Sampler,
}

/// Where a texture lives: an array, a layer, and the rectangle of the layer its own texels
/// cover. Today a texture always starts at the layer's origin (a padded texture covers less
/// than the layer); the rectangle is part of the placement so that packing several small
/// textures into one layer changes no backend.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placement {
    /// The array.
    pub array: ArrayId,
    /// The layer in it.
    pub layer: u32,
    /// `[x, y, width, height]` of the texture's texels in the layer, pixels.
    pub rect_px: [u32; 4],
    /// The same rectangle as `[u0, v0, u1, v1]` in the layer's `0..1` coordinates.
    pub uv_rect: [f32; 4],
    /// Whether the array holds only this texture (unbucketable textures).
    pub dedicated: bool,
}

impl Placement {
    /// A texture of `size_px` at the origin of `layer`, in an array whose layers are
    /// `layer_size_px`.
    pub fn at_origin(array: ArrayId, layer: u32, size_px: [u32; 2], layer_size_px: [u32; 2], dedicated: bool) -> Self {
        let [w, h] = size_px;
        let [lw, lh] = layer_size_px;
        Self {
            array,
            layer,
            rect_px: [0, 0, w, h],
            uv_rect: [0.0, 0.0, w as f32 / lw as f32, h as f32 / lh as f32],
            dedicated,
        }
    }
}

/// A change [`super::Allocator::maintain`] or [`super::Allocator::compact`] made that moves textures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Moved {
    /// Every placement in the array now lives at the same place of another array.
    Array {
        /// The old array.
        from: ArrayId,
        /// The new one.
        to: ArrayId,
    },
    /// A texture's rectangle moved to another place: a page array was repacked into a new
    /// array.
    Rect {
        /// The owner given to [`super::Allocator::admit_for`] (`u32::MAX` through
        /// [`super::Allocator::admit`]).
        owner: u32,
        /// The array it was in.
        from: ArrayId,
        /// The layer it was in.
        from_layer: u32,
        /// Its old top-left corner, texels.
        from_xy: [u32; 2],
        /// The array it is in now.
        to: ArrayId,
        /// The layer it is in now.
        to_layer: u32,
        /// Its new top-left corner, texels.
        to_xy: [u32; 2],
    },
    /// An empty array was destroyed.
    Destroyed(ArrayId),
}

/// A rectangle that moved inside an array no plan has brought to the device yet
/// ([`super::Allocator::relay_born`]): no copy, its pending writes follow it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Relaid {
    pub(crate) owner: u32,
    pub(crate) array: ArrayId,
    pub(crate) layer: u32,
    pub(crate) xy: [u32; 2],
}

/// What one admission did, beyond the placement.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Admission {
    /// Where the texture went.
    pub placement: Placement,
    /// An array that grew during this admission: every placement in `.0` now lives at the same
    /// layer and texel position of `.1`. The two are equal when the array grew in place,
    /// before any plan brought it to the device (its layers may be larger now).
    pub moved: Option<(ArrayId, ArrayId)>,
}
