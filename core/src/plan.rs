//! The frame plan: plain data core hands a backend. Backends execute it in order and decide
//! nothing.

use std::ops::Range;

use bytemuck::{Pod, Zeroable};

use crate::{ArrayDesc, ArrayId, ArrayOp, Counters, TextureId};

/// One quad as the GPU reads it: 48 bytes, one per quad, instanced over a 4-vertex strip.
///
/// A corner `(s, t)` in `{0,1}^2` lands at `origin + s * axis_x + t * axis_y` (pixels, y down)
/// and samples `mix(uv_rect.xy, uv_rect.zw, (s, t))` in the layer.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Instance {
    /// Position of corner (0, 0), pixels.
    pub origin: [f32; 2],
    /// From corner (0, 0) to corner (1, 0), pixels.
    pub axis_x: [f32; 2],
    /// From corner (0, 0) to corner (0, 1), pixels.
    pub axis_y: [f32; 2],
    /// `[u0, v0, u1, v1]` in layer space (already remapped for padding).
    pub uv_rect: [f32; 4],
    /// RGBA8 tint, premultiplied, multiplied with the texel.
    pub color: [u8; 4],
    /// Bits 0..8: slot (index into the segment's slot table); 8..16: flags
    /// ([`Instance::FLAG_CLAMP_TO_RECT`] and the others); 16..32: layer.
    pub slot_flags_layer: u32,
}

impl Instance {
    /// The sampling position is clamped into `uv_rect`, inset by half a texel, so linear
    /// filtering never reads a neighbour's or the padding's texels. Set for clamp-to-edge
    /// textures; repeat and mirror textures are never padded and tile instead.
    pub const FLAG_CLAMP_TO_RECT: u32 = 1;
    /// The texture's filter is [`crate::Filter::Linear`] (for backends whose samplers are not
    /// per array, e.g. wgpu; GL sets filters on the array texture itself).
    pub const FLAG_LINEAR: u32 = 2;
    /// The texture's wrap is [`crate::Wrap::Repeat`] (for backends that wrap in the shader).
    pub const FLAG_REPEAT: u32 = 4;
    /// The texture's wrap is [`crate::Wrap::MirroredRepeat`] (for backends that wrap in the
    /// shader).
    pub const FLAG_MIRROR: u32 = 8;

    /// The slot.
    pub const fn slot(&self) -> u32 {
        self.slot_flags_layer & 0xff
    }
    /// The flags.
    pub const fn flags(&self) -> u32 {
        (self.slot_flags_layer >> 8) & 0xff
    }
    /// The layer.
    pub const fn layer(&self) -> u32 {
        self.slot_flags_layer >> 16
    }
}

/// A quad to draw, in the texture's own coordinates. Plain data; build it with the
/// constructors or fill the fields.
///
/// ```
/// # use layerbatch_core::{Quad, TextureId};
/// # fn f(tex: TextureId) {
/// let q = Quad::rect(tex, [10.0, 20.0], [32.0, 32.0]).with_color([255, 255, 255, 128]);
/// # }
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Quad {
    /// The texture.
    pub texture: TextureId,
    /// Position of the corner that samples `uv[0..2]`, pixels.
    pub origin: [f32; 2],
    /// Edge vector to the corner that samples `(uv[2], uv[1])`.
    pub axis_x: [f32; 2],
    /// Edge vector to the corner that samples `(uv[0], uv[3])`.
    pub axis_y: [f32; 2],
    /// `[u0, v0, u1, v1]` in the texture's own `0..1` space. Default `[0, 0, 1, 1]`.
    pub uv: [f32; 4],
    /// Premultiplied RGBA8 tint. Default opaque white.
    pub color: [u8; 4],
}

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
    #[allow(clippy::eq_op)] // `v - v` is the point: 0 when finite, NaN otherwise.
    pub(crate) fn is_finite(&self) -> bool {
        // v - v is 0 for every finite v and NaN for NaN or infinity, and NaN survives any sum.
        // Lane-wise over three 4-wide groups, so it compiles to a few SIMD ops on the push
        // hot path.
        let a = [self.origin[0], self.origin[1], self.axis_x[0], self.axis_x[1]];
        let b = [self.axis_y[0], self.axis_y[1], self.uv[0], self.uv[1]];
        let c = [self.uv[2], self.uv[3], 0.0, 0.0];
        let mut s = [0.0f32; 4];
        for k in 0..4 {
            s[k] = (a[k] - a[k]) + (b[k] - b[k]) + (c[k] - c[k]);
        }
        s == [0.0; 4]
    }
}

/// Why a segment ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FlushCause {
    /// Every slot was referenced by the segment and the next quad needed another array.
    SlotsExhausted,
    /// The instance buffer was full.
    InstanceBufferFull,
    /// The caller asked ([`crate::Batcher::flush`]).
    Explicit,
    /// The frame ended.
    EndOfFrame,
}

/// Bind `array` to slot `slot`. Applied before the segment that lists it is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlotBind {
    /// The slot (texture unit / binding index).
    pub slot: u32,
    /// The array.
    pub array: ArrayId,
}

/// One draw call: a contiguous range of instances, drawn with the program of `tier` slots.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    /// Instances to draw, as indices into [`FramePlan::instances`]. Never crosses a multiple of
    /// [`FramePlan::instance_capacity`].
    pub instances: Range<u32>,
    /// Slots the program branches over: the smallest budget tier covering the segment's slots.
    pub tier: u32,
    /// Index range into [`FramePlan::slot_tables`]: the array in each slot `0..tier` (`None`
    /// for a slot this segment never samples).
    pub slots: Range<u32>,
    /// Index range into [`FramePlan::binds`]: slots to (re)bind before drawing.
    pub binds: Range<u32>,
    /// Why the segment ended.
    pub cause: FlushCause,
}

/// A resource change, applied in order before any segment is drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResourceOp {
    /// Create, grow or destroy an array.
    Array(ArrayOp),
    /// Write a texture's pixels into one layer: all `mip_levels` levels, level `l` at
    /// `(x_px >> l, y_px >> l)`, `mip_size(width_px, height_px, l)` big, packed in
    /// [`FramePlan::upload_bytes`] level after level. (Textures with mips always sit at the
    /// origin.)
    WriteLayer {
        /// The texture written (for tracing).
        texture: TextureId,
        /// The array.
        array: ArrayId,
        /// The layer.
        layer: u32,
        /// Left edge of the texture's rectangle in the layer (its placement's `rect_px[0]`).
        x_px: u32,
        /// Top edge of the texture's rectangle in the layer.
        y_px: u32,
        /// Width of level 0 (the texture's own width, which may be below the layer's).
        width_px: u32,
        /// Height of level 0.
        height_px: u32,
        /// Levels written.
        mip_levels: u32,
        /// Byte range into [`FramePlan::upload_bytes`], tightly packed RGBA8 rows.
        bytes: Range<usize>,
    },
}

/// Everything a backend executes for one frame. Owned by the [`crate::Batcher`] and reused
/// frame to frame, so planning allocates nothing in steady state.
#[derive(Clone, Debug, Default)]
pub struct FramePlan {
    /// Resource changes, in order, before the draws.
    pub ops: Vec<ResourceOp>,
    /// Pixel bytes the `WriteLayer` ops point into.
    pub upload_bytes: Vec<u8>,
    /// One instance per quad, in submission order.
    pub instances: Vec<Instance>,
    /// Draws, in submission order.
    pub segments: Vec<Segment>,
    /// Slot binds the segments point into.
    pub binds: Vec<SlotBind>,
    /// Slot tables the segments point into.
    pub slot_tables: Vec<Option<ArrayId>>,
    /// Instances per instance buffer.
    pub instance_capacity: u32,
    /// Core's counters for this frame.
    pub counters: Counters,
    /// Core's counters since creation, this frame included.
    pub totals: Counters,
}

impl FramePlan {
    /// The slot table of a segment: the array for each slot `0..tier`.
    pub fn slots(&self, segment: &Segment) -> &[Option<ArrayId>] {
        &self.slot_tables[segment.slots.start as usize..segment.slots.end as usize]
    }
    /// The binds to apply before drawing a segment.
    pub fn binds(&self, segment: &Segment) -> &[SlotBind] {
        &self.binds[segment.binds.start as usize..segment.binds.end as usize]
    }
    /// The instances of a segment.
    pub fn instances(&self, segment: &Segment) -> &[Instance] {
        &self.instances[segment.instances.start as usize..segment.instances.end as usize]
    }
    /// The bytes of a `WriteLayer` op (empty for other ops).
    pub fn upload(&self, op: &ResourceOp) -> &[u8] {
        match op {
            ResourceOp::WriteLayer { bytes, .. } => &self.upload_bytes[bytes.clone()],
            ResourceOp::Array(_) => &[],
        }
    }
    /// Arrays created by this plan's ops, with their descriptions (growth included).
    pub fn created_arrays(&self) -> impl Iterator<Item = (ArrayId, ArrayDesc)> + '_ {
        self.ops.iter().filter_map(|op| match op {
            ResourceOp::Array(ArrayOp::Create { array, desc }) => Some((*array, *desc)),
            ResourceOp::Array(ArrayOp::Grow { to, desc, .. }) => Some((*to, *desc)),
            _ => None,
        })
    }
}
