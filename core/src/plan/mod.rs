//! The frame plan: the one contract between core and the backends.
//!
//! Every type a backend reads is defined here: arrays and their ops, layer writes, the
//! per-quad [`Instance`] and its bit layout, segments, slot tables and binds. Backends execute
//! a plan in order and decide nothing. Before touching a device, every executor (the
//! [`crate::MockDevice`], `layerbatch-gl`, `layerbatch-wgpu`) runs the plan through the same
//! [`PlanValidator`](crate::validate::PlanValidator), so the same bad plan gets the same [`PlanError`] everywhere.

use std::ops::Range;

use bytemuck::{Pod, Zeroable};

use crate::{Counters, TextureId};

mod arrays;
mod attributes;
mod instances;
mod levels;
mod plan_error;
mod resident;
mod vertices;
mod viewport;

pub use arrays::{ArrayDesc, ArrayId, ArrayOp, HostAccess};
pub use attributes::{AttributeFormat, InstanceAttribute};
pub use instances::Instances;
pub use levels::LevelWrite;
pub use plan_error::PlanError;
pub use resident::{CellWrite, GridDraw, MotionWrite, ResidentId, ResidentOp, ResidentWrite};
pub use vertices::{expand_quads, quad_indices, Corner};
pub use viewport::{flip_y, Viewport};

/// One quad as the GPU reads it: 64 bytes, drawn instanced over a 4-vertex strip or, with
/// indexed quads ([`crate::QuadVertices`]), written once per corner and drawn as two indexed
/// triangles ([`Instance::VERTICES`], [`quad_indices`]).
///
/// A corner `(s, t)` in `{0,1}^2` lands at `origin + s * axis_x + t * axis_y` (pixels, y down)
/// and samples `mix(uv_rect.xy, uv_rect.zw, (s, t))` in the layer. Sampling positions are in
/// texels of level 0 (a shader divides by the layer's size), so an atlas page growing in
/// size changes no instance.
///
/// `slot_flags_layer` packs three fields; the layout is [`Instance::SLOT_MASK`],
/// [`Instance::FLAGS_SHIFT`], [`Instance::FLAGS_MASK`] and [`Instance::LAYER_SHIFT`], and the
/// shader generators take those values from [`Instance::SHADER_CONSTANTS`]:
///
/// ```
/// use layerbatch_core::plan::Instance;
/// let packed = Instance::pack(3, Instance::FLAG_LINEAR, 700);
/// let i = Instance { slot_flags_layer: packed, ..Instance::default() };
/// assert_eq!((i.slot(), i.flags(), i.layer()), (3, Instance::FLAG_LINEAR, 700));
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Instance {
    /// Position of corner (0, 0), pixels.
    pub origin: [f32; 2],
    /// From corner (0, 0) to corner (1, 0), pixels.
    pub axis_x: [f32; 2],
    /// From corner (0, 0) to corner (0, 1), pixels.
    pub axis_y: [f32; 2],
    /// The quad's `[u0, v0, u1, v1]`, mapped into the layer: texels of level 0 (may reach
    /// outside the texture's rectangle, and be flipped).
    pub uv_rect: [f32; 4],
    /// The texture's own rectangle in the layer, `[x0, y0, x1, y1]` in texels of level 0
    /// (`x0 < x1`, `y0 < y1`; whole texels, so 16 bits each). With
    /// [`Instance::FLAG_CLAMP_TO_RECT`] sampling stays half a texel inside it, whatever
    /// `uv_rect` says; effects see texel positions from its corner.
    pub tex_rect: [u16; 4],
    /// RGBA8 tint, premultiplied, multiplied with the texel.
    pub color: [u8; 4],
    /// Slot, flags and layer, packed: see [`Instance::pack`].
    pub slot_flags_layer: u32,
    /// The effect's 4 parameters, `0..=255` for `0.0..=1.0` ([`crate::DrawingState::set_effect`]).
    pub effect_params: [u8; 4],
    /// The look word: [`crate::EffectId`] in bits `0..7` (0: none), [`Instance::EFFECT_LIT`]
    /// in bit 7, and the colour offset's red, green and blue in bytes 1, 2 and 3
    /// ([`Instance::COLOR_OFFSET_SHIFT`]).
    pub effect: u32,
}

const _: () = assert!(std::mem::size_of::<Instance>() == 64);

impl Instance {
    /// Bytes of one instance.
    pub const BYTES: u32 = std::mem::size_of::<Instance>() as u32;
    /// Vertices a quad is drawn with. With indexed quads ([`crate::Budget::indexed_quads`])
    /// backends write each instance once per corner ([`expand_quads`]), so corner `k` of the
    /// quad at `q` is vertex `4q + k`, and draw [`Instance::INDICES`] indices per quad
    /// ([`quad_indices`]); instanced, corner `k` is vertex `k` of a 4-vertex strip. Either way
    /// `(s, t) = (k % 2, k / 2)` with `k = vertex_index % 4`.
    ///
    /// Indexed quads cost 4x the vertex bytes, and are worth it on software rasterizers,
    /// which run an instanced draw as one internal draw per instance: in SwiftShader
    /// (Chromium's WebGL2 and WebGPU without a GPU) layerbatch-gl drew 20,000 quads of one
    /// texture in 291 ms a frame instanced and 118 ms indexed, in one run. See
    /// [`crate::QuadVertices`].
    pub const VERTICES: u32 = 4;
    /// Indices a quad is drawn with: two triangles, `4q, 4q+1, 4q+2` and `4q+2, 4q+1, 4q+3`.
    pub const INDICES: u32 = 6;
    /// Vertex bytes one quad takes in a vertex buffer: [`Instance::BYTES`] per vertex.
    pub const QUAD_BYTES: u32 = Self::VERTICES * Self::BYTES;

    /// Vertex bytes a quad takes: [`Instance::QUAD_BYTES`] when quads are indexed (each
    /// instance once per corner), [`Instance::BYTES`] when they are instanced.
    pub const fn quad_bytes(indexed: bool) -> u32 {
        if indexed {
            Self::QUAD_BYTES
        } else {
            Self::BYTES
        }
    }
    /// Byte offsets of the fields, in declaration order, for vertex attribute layouts.
    pub const OFFSET_ORIGIN: u32 = std::mem::offset_of!(Instance, origin) as u32;
    /// Byte offset of `axis_x`.
    pub const OFFSET_AXIS_X: u32 = std::mem::offset_of!(Instance, axis_x) as u32;
    /// Byte offset of `axis_y`.
    pub const OFFSET_AXIS_Y: u32 = std::mem::offset_of!(Instance, axis_y) as u32;
    /// Byte offset of `uv_rect`.
    pub const OFFSET_UV_RECT: u32 = std::mem::offset_of!(Instance, uv_rect) as u32;
    /// Byte offset of `tex_rect`.
    pub const OFFSET_TEX_RECT: u32 = std::mem::offset_of!(Instance, tex_rect) as u32;
    /// Byte offset of `color`.
    pub const OFFSET_COLOR: u32 = std::mem::offset_of!(Instance, color) as u32;
    /// Byte offset of `slot_flags_layer`.
    pub const OFFSET_SLOT_FLAGS_LAYER: u32 = std::mem::offset_of!(Instance, slot_flags_layer) as u32;
    /// Byte offset of `effect_params`.
    pub const OFFSET_EFFECT_PARAMS: u32 = std::mem::offset_of!(Instance, effect_params) as u32;
    /// Byte offset of `effect`.
    pub const OFFSET_EFFECT: u32 = std::mem::offset_of!(Instance, effect) as u32;
    /// The effect id: `effect & EFFECT_MASK`.
    pub const EFFECT_MASK: u32 = 0x7f;
    /// The colour offset ([`crate::DrawingState::set_color_offset`]): `effect >>
    /// COLOR_OFFSET_SHIFT` is its red, green and blue, a byte each (`0..=255` for
    /// `0.0..=1.0`), added to the colour a quad draws times its coverage.
    pub const COLOR_OFFSET_SHIFT: u32 = 8;

    /// The slot: `slot_flags_layer & SLOT_MASK` (bits 0..8).
    pub const SLOT_MASK: u32 = 0xff;
    /// The flags: `(slot_flags_layer >> FLAGS_SHIFT) & FLAGS_MASK` (bits 8..16).
    pub const FLAGS_SHIFT: u32 = 8;
    /// See [`Instance::FLAGS_SHIFT`].
    pub const FLAGS_MASK: u32 = 0xff;
    /// The layer: `slot_flags_layer >> LAYER_SHIFT` (bits 16..32).
    pub const LAYER_SHIFT: u32 = 16;
    /// Layers an instance can address: the layer field's range.
    pub const MAX_LAYERS: u32 = 1 << (32 - Self::LAYER_SHIFT);

    /// The sampling position is clamped into `tex_rect`, inset by half a texel, so no UV
    /// (outside 0..1, flipped) and no linear filtering reads a neighbour's or the padding's
    /// texels. Set for clamp-to-edge textures that share their layer (atlas pages) or are
    /// padded in it (a larger size class), which never have mip levels. A clamp-to-edge
    /// texture that fills its layer for good is clamped by the array's clamp-to-edge sampler,
    /// at every mip level, and goes without; repeat and mirror textures fill their layer and
    /// are wrapped by the sampler.
    pub const FLAG_CLAMP_TO_RECT: u32 = 1;
    /// The texture's filter is [`crate::Filter::Linear`]. Informational: samplers follow the
    /// array's filter.
    pub const FLAG_LINEAR: u32 = 2;
    /// The texture's wrap is [`crate::Wrap::Repeat`]. Informational: samplers follow the
    /// array's wrap.
    pub const FLAG_REPEAT: u32 = 4;
    /// The texture's wrap is [`crate::Wrap::MirroredRepeat`]. Informational.
    pub const FLAG_MIRROR: u32 = 8;
    /// The instance is a triangle ([`crate::Batcher::push_mesh`]): its corners are in
    /// [`FramePlan::triangles`], and it is drawn from them ([`FramePlan::expand_block`]), never
    /// instanced. Its `origin`, `axis_x` and `axis_y` span the triangle (corner 0, and from it
    /// to corners 1 and 2); `slot_flags_layer` and `tex_rect` are its corners'. No shader
    /// reads it (a triangle reaches the GPU as its corners' vertex records), so it is not one
    /// of [`Instance::SHADER_CONSTANTS`].
    pub const FLAG_TRIANGLE: u32 = 16;
    /// The texture's colours are straight ([`crate::Alpha::Straight`]): the shader multiplies
    /// the sampled colour by its alpha before the tint.
    pub const FLAG_STRAIGHT_ALPHA: u32 = 32;
    /// The texture has a normal map ([`crate::TextureStore::register_normal_map`]) at its place in
    /// the sibling of its array: a lit quad samples it; without the flag a lit quad faces the
    /// viewer (normal `(0, 0, 1)`).
    pub const FLAG_NORMAL_MAP: u32 = 64;
    /// The instance's `color` is encoded with the sRGB curve ([`crate::TintEncoding::Srgb`]):
    /// the vertex shader decodes its red, green and blue to linear before it tints. Set from
    /// the drawing state on quads and triangles pushed under it.
    pub const FLAG_SRGB_TINT: u32 = 128;
    /// In [`Instance::effect`]: the quad is lit ([`crate::DrawingState::set_lit`]) by the frame's
    /// ambient colour and lights.
    pub const EFFECT_LIT: u32 = 0x80;

    /// Every constant a shader needs to unpack an instance, by the name the shader generators
    /// declare it under (`const uint NAME = VALUEu;` in GLSL, `const NAME: u32 = VALUEu;` in
    /// WGSL). Shaders use these names, never literals; each backend has a test that parses
    /// its generated source and compares.
    pub const SHADER_CONSTANTS: [(&'static str, u32); 14] = [
        ("SLOT_MASK", Self::SLOT_MASK),
        ("FLAGS_SHIFT", Self::FLAGS_SHIFT),
        ("FLAGS_MASK", Self::FLAGS_MASK),
        ("LAYER_SHIFT", Self::LAYER_SHIFT),
        ("FLAG_CLAMP_TO_RECT", Self::FLAG_CLAMP_TO_RECT),
        ("FLAG_LINEAR", Self::FLAG_LINEAR),
        ("FLAG_REPEAT", Self::FLAG_REPEAT),
        ("FLAG_MIRROR", Self::FLAG_MIRROR),
        ("FLAG_STRAIGHT_ALPHA", Self::FLAG_STRAIGHT_ALPHA),
        ("FLAG_SRGB_TINT", Self::FLAG_SRGB_TINT),
        ("EFFECT_MASK", Self::EFFECT_MASK),
        ("FLAG_NORMAL_MAP", Self::FLAG_NORMAL_MAP),
        ("EFFECT_LIT", Self::EFFECT_LIT),
        ("COLOR_OFFSET_SHIFT", Self::COLOR_OFFSET_SHIFT),
    ];

    /// Packs a slot, flags and a layer into `slot_flags_layer`. Out-of-range values are masked
    /// (core never produces them; the [`PlanValidator`](crate::validate::PlanValidator) rejects slots and layers their
    /// segment cannot hold).
    pub const fn pack(slot: u32, flags: u32, layer: u32) -> u32 {
        (slot & Self::SLOT_MASK) | ((flags & Self::FLAGS_MASK) << Self::FLAGS_SHIFT) | (layer << Self::LAYER_SHIFT)
    }
    /// `packed` with its slot replaced by `slot`.
    pub const fn with_slot(packed: u32, slot: u32) -> u32 {
        (packed & !Self::SLOT_MASK) | (slot & Self::SLOT_MASK)
    }
    /// The slot.
    pub const fn slot(&self) -> u32 {
        self.slot_flags_layer & Self::SLOT_MASK
    }
    /// The flags.
    pub const fn flags(&self) -> u32 {
        (self.slot_flags_layer >> Self::FLAGS_SHIFT) & Self::FLAGS_MASK
    }
    /// The layer.
    pub const fn layer(&self) -> u32 {
        self.slot_flags_layer >> Self::LAYER_SHIFT
    }
    /// Whether the instance is a triangle ([`Instance::FLAG_TRIANGLE`]).
    pub const fn is_triangle(&self) -> bool {
        self.flags() & Self::FLAG_TRIANGLE != 0
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
    /// The draw state (blend mode, clip rectangle, transform) changed between two quads.
    StateChange,
    /// A resident layer was drawn between two quads ([`crate::Batcher::draw_resident`]).
    Resident,
}

/// How a quad's colour combines with what is under it. Colours and texels are
/// premultiplied; each mode is an `ADD` equation of [`BlendMode::factors`], the same on every
/// backend.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BlendMode {
    /// Premultiplied "over": `src + dst * (1 - src.a)`. The default.
    #[default]
    Over,
    /// Light adds up (particles, glows): colour `src + dst`; the target's alpha is kept
    /// (light adds colour, not coverage). The batcher draws additive quads in the same draw
    /// as [`BlendMode::Over`] ones: a premultiplied colour with alpha 0 under "over" *is*
    /// additive, so it zeroes their tint's alpha and switching between the two costs no draw.
    Additive,
    /// Darkens by the source colour (shadows, tints): `src * dst + dst * (1 - src.a)`.
    Multiply,
    /// Lightens (the inverse of multiply): `src + dst * (1 - src)`.
    Screen,
    /// Replaces what is under it, alpha included: `src`.
    Opaque,
}

/// A blend factor, as GL and wgpu both name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlendFactor {
    /// 0.
    Zero,
    /// 1.
    One,
    /// The destination colour.
    DstColor,
    /// 1 - the source colour.
    OneMinusSrcColor,
    /// 1 - the source alpha.
    OneMinusSrcAlpha,
}

impl BlendMode {
    /// Every mode, for backends that build one pipeline per mode.
    pub const ALL: [BlendMode; 5] =
        [BlendMode::Over, BlendMode::Additive, BlendMode::Multiply, BlendMode::Screen, BlendMode::Opaque];

    /// `[colour source, colour destination, alpha source, alpha destination]` factors of an
    /// `ADD` blend equation.
    pub const fn factors(self) -> [BlendFactor; 4] {
        use BlendFactor::*;
        match self {
            BlendMode::Over => [One, OneMinusSrcAlpha, One, OneMinusSrcAlpha],
            BlendMode::Additive => [One, One, Zero, One],
            BlendMode::Multiply => [DstColor, OneMinusSrcAlpha, One, OneMinusSrcAlpha],
            BlendMode::Screen => [One, OneMinusSrcColor, One, OneMinusSrcAlpha],
            BlendMode::Opaque => [One, Zero, One, Zero],
        }
    }

    /// The index of the mode in [`BlendMode::ALL`].
    pub const fn index(self) -> usize {
        match self {
            BlendMode::Over => 0,
            BlendMode::Additive => 1,
            BlendMode::Multiply => 2,
            BlendMode::Screen => 3,
            BlendMode::Opaque => 4,
        }
    }
}

/// State the quads of a segment share: how they blend, where they are clipped, and the
/// transform (a camera) applied to their corners. Set on the batcher
/// ([`crate::DrawingState::set_blend`], [`crate::DrawingState::set_clip`],
/// [`crate::DrawingState::set_transform`]); a change ends the segment only when quads were pushed
/// since the last one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DrawState {
    /// Blending. Default [`BlendMode::Over`].
    pub blend: BlendMode,
    /// Pixels outside `[x, y, width, height]` of the target (y down, like quads) are left
    /// untouched. Default `None`: no clip.
    pub clip_px: Option<[u32; 4]>,
    /// Affine transform of quad corners before they are drawn: `[a, b, c, d, tx, ty]` maps
    /// `(x, y)` to `(a x + c y + tx, b x + d y + ty)`, pixels. Default identity
    /// `[1, 0, 0, 1, 0, 0]`.
    pub transform: [f32; 6],
    /// Premultiplied RGBA (`0.0..=1.0`) multiplied with every quad's tint: a resident layer's
    /// ([`crate::ResidentStyle::tint`]). Default `[1, 1, 1, 1]`: quads as pushed.
    pub tint: [f32; 4],
    /// The look a resident layer is drawn with: the drawing state's when
    /// [`crate::Batcher::draw_resident`] was called (its effect, lit, colour offset), as an
    /// [`Instance::effect`] word ORed into each quad's own (a resident quad has none), with
    /// [`DrawState::look_params`]. Default 0: each quad's own look, as for pushed quads, which
    /// carry theirs in the instance.
    pub look: u32,
    /// The effect parameters of [`DrawState::look`], in place of each quad's. Default
    /// `[0; 4]`; unused while `look` is 0.
    pub look_params: [u8; 4],
}

impl DrawState {
    /// The identity transform.
    pub const IDENTITY: [f32; 6] = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0];
    /// The tint that leaves quads as they are.
    pub const WHITE: [f32; 4] = [1.0; 4];

    /// The state's clip within a target of `viewport_px`: clamped to it (no overflow, however
    /// large the rectangle), or [`Clip::Empty`] when nothing of the target is left, in which
    /// case a backend issues no draw for the segment. Both backends scissor with this.
    ///
    /// ```
    /// use layerbatch_core::Clip;
    /// use layerbatch_core::plan::DrawState;
    /// let clipped = |clip_px| DrawState { clip_px, ..DrawState::default() }.clip_within([100, 50]);
    /// assert_eq!(clipped(None), Clip::Full);
    /// assert_eq!(clipped(Some([90, 40, 20, 20])), Clip::Rect([90, 40, 10, 10]));
    /// assert_eq!(clipped(Some([100, 0, 5, 5])), Clip::Empty);
    /// assert_eq!(clipped(Some([u32::MAX; 4])), Clip::Empty);
    /// ```
    pub fn clip_within(&self, viewport_px: [u32; 2]) -> Clip {
        Viewport::full(viewport_px).scissor(self.clip_px)
    }
}

/// A segment's clip within its target ([`DrawState::clip_within`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clip {
    /// No clip: the whole target.
    Full,
    /// `[x, y, width, height]` of the target (y down), inside it and not empty.
    Rect([u32; 4]),
    /// Nothing of the target is left: the segment draws nothing.
    Empty,
}

impl Default for DrawState {
    fn default() -> Self {
        Self {
            blend: BlendMode::Over,
            clip_px: None,
            transform: Self::IDENTITY,
            tint: Self::WHITE,
            look: 0,
            look_params: [0; 4],
        }
    }
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
    /// Index range into [`FramePlan::binds`]: the slots whose array changes before this
    /// segment, relative to the slot state the previous segment (or the previous plan) left.
    /// After applying them, every `Some` entry of the slot table is what its slot holds.
    pub binds: Range<u32>,
    /// Why the segment ended.
    pub cause: FlushCause,
    /// Index into [`FramePlan::states`]: the segment's draw state. A plan with no states
    /// (hand-made) draws every segment with the default state.
    pub state: u32,
    /// `Some`: the segment draws instances `instances` of this resident layer's device buffer
    /// ([`crate::Batcher::draw_resident`]), not of [`FramePlan::instances`]; its `binds` are
    /// empty (the draw walk binds from the slot table), and it lies in painter's order among
    /// the plan's own segments.
    pub resident: Option<ResidentId>,
    /// `Some` (with `resident`, a tile grid's layer): the GPU culls the grid's cells and the
    /// segment draws the tiles that show ([`GridDraw`]); `instances` is then the layer's
    /// quads the tiles are made from (what the draw binds).
    pub grid: Option<GridDraw>,
    /// Some instance of the segment draws with an effect ([`Instance::effect`]): it is drawn
    /// with its tier's effect program, which has every declared effect. Segments without
    /// one use the tier's plain program, which costs what a renderer without effects costs.
    /// Set by core in `finish`; for a resident layer's segment, when its draw state's
    /// [`DrawState::look`] has an effect.
    pub effects: bool,
}

/// A resource change, applied in order before any segment is drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResourceOp {
    /// Create, grow or destroy an array.
    Array(ArrayOp),
    /// Create, write or destroy a resident layer's buffer.
    Resident(ResidentOp),
    /// Write a texture's pixels into one layer: all `mip_levels` levels (the array's), level
    /// `l` at `(x_px >> l, y_px >> l)`, `mip_size(width_px, height_px, l)` big, packed in
    /// [`FramePlan::upload_bytes`] level after level. [`ResourceOp::levels`] walks them.
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
        /// Levels written: always the array's level count.
        mip_levels: u32,
        /// Byte range into [`FramePlan::upload_bytes`], tightly packed rows of the array's
        /// format ([`crate::Format::Rgba8Unorm`] for a normal map).
        bytes: Range<usize>,
        /// The write goes to the array's normal-map sibling ([`ArrayDesc::normal_map`]).
        normal_map: bool,
    },
}

/// One row of the ramp written: [`crate::RAMP_WIDTH_PX`] straight RGBA8 texels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RampWrite {
    /// The row, `0..RAMP_ROWS`.
    pub row: u8,
    /// Byte range into [`FramePlan::upload_bytes`]: `RAMP_WIDTH_PX * 4` bytes.
    pub bytes: Range<usize>,
}

/// A render-target texture a plan draws into instead of the host's target
/// ([`crate::Batcher::begin_frame_into`]), to be sampled by quads of later plans.
///
/// **Orientation.** Texel row 0 is the top row for every texture, whether its pixels were
/// uploaded or rendered: quads drawn into a target at pixel `(x, y)` (y down, as always) land
/// at texel `(x, y)`, so a render target drawn later with default UVs shows upright, on every
/// backend. (GL's framebuffer rows go up; the GL backend flips its y while drawing into a
/// target, with [`flip_y`].)
///
/// A target whose array has mip levels (`ArrayDesc::mip_levels > 1`) is mipmapped by every
/// executor after the plan's draws: levels `1..` of the target layer are regenerated from the
/// level 0 just drawn (a box filter, each level from the one above, the three texels under a
/// texel of an odd side weighted by the area it covers), so a target drawn minified
/// later shows what was drawn. Counted as `DeviceCounters::mip_levels_regenerated`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlanTarget {
    /// The texture drawn into.
    pub texture: TextureId,
    /// Its array (a render-target array: [`ArrayDesc::render_target`]).
    pub array: ArrayId,
    /// Its layer.
    pub layer: u32,
    /// The texture's size: the viewport of the plan's draws.
    pub size_px: [u32; 2],
    /// Cleared to this premultiplied colour (`0.0..=1.0` per channel) before the draws, or
    /// `None` to draw over what the target holds.
    pub clear_rgba: Option<[f32; 4]>,
}

/// Everything a backend executes for one frame. Owned by the [`crate::Batcher`] and reused
/// frame to frame, so planning allocates nothing in steady state.
///
/// Plans are numbered: an executor accepts plan `n + 1` after plan `n`, and refuses a gap or
/// a repeat with [`PlanError::Sequence`] before touching the device. The way back from a gap
/// is [`crate::Batcher::restore`], whose next plan has `rebuild` set.
#[derive(Clone, Debug, Default)]
pub struct FramePlan {
    /// This plan's number: 1 for the first plan a batcher finishes, then one more each plan.
    pub sequence: u64,
    /// The batcher that made the plan: a tag unique in the process (0 for a plan made by
    /// hand). An executor runs the plans of one batcher only, and refuses another's with
    /// [`PlanError::ForeignPlan`] (its arrays and slots would name the first batcher's).
    pub batcher: u32,
    /// The device must drop every array it holds (and forget its slot bindings) before
    /// applying `ops`, which then re-create every live array. Set on the first plan after
    /// [`crate::Batcher::restore`]; an executor accepts such a plan after any earlier one.
    pub rebuild: bool,
    /// Resource changes, in order, before the draws.
    pub ops: Vec<ResourceOp>,
    /// Pixel bytes the `WriteLayer` ops point into.
    pub upload_bytes: Vec<u8>,
    /// One instance per primitive (quad or triangle), in submission order: one part, or one
    /// per part recorded on another thread ([`crate::Batcher::record_parts`]).
    pub instances: Instances,
    /// Instances the [`ResidentOp::Write`] ops point into.
    pub resident_instances: Vec<Instance>,
    /// Motions the [`ResidentOp::Move`] ops point into: 16 bytes a moving sprite changed.
    pub motions: Vec<crate::Motion>,
    /// Tile ids the [`ResidentOp::WriteCells`] ops point into.
    pub cells: Vec<u32>,
    /// Whether the primitives are drawn indexed, from four vertex records each
    /// ([`FramePlan::expand_block`]) and the static [`quad_indices`], rather than instanced
    /// (one instance per quad over a 4-vertex strip). Core sets it from
    /// [`crate::Budget::indexed_quads`], and for every plan with a triangle: an instance holds
    /// one colour and an axis-aligned texel rectangle for four corners, so it cannot carry a
    /// triangle's three positions, texels and colours. Such a plan's quads then cost
    /// [`Instance::QUAD_BYTES`] of vertices each instead of [`Instance::BYTES`]; it is still
    /// drawn in as many draws as its segments.
    pub indexed: bool,
    /// The corners of each triangle instance ([`Instance::FLAG_TRIANGLE`]), in instance
    /// order.
    pub triangles: Vec<[Corner; 3]>,
    /// For each instance block ([`FramePlan::block_pieces`]), the index in
    /// [`FramePlan::triangles`] of its first triangle; empty when the plan has no triangle.
    pub block_triangles: Vec<u32>,
    /// Draws, in submission order.
    pub segments: Vec<Segment>,
    /// Slot binds the segments point into.
    pub binds: Vec<SlotBind>,
    /// Slot tables the segments point into.
    pub slot_tables: Vec<Option<ArrayId>>,
    /// Draw states the segments point into.
    pub states: Vec<DrawState>,
    /// Where the segments draw: `None` for the host's framebuffer or pass (the usual case),
    /// or a render-target texture ([`crate::Batcher::begin_frame_into`]).
    pub target: Option<PlanTarget>,
    /// Instances per instance buffer: no segment crosses a multiple of it. A backend with
    /// bounded buffers (wgpu) keeps one buffer per block of this many instances.
    pub instance_capacity: u32,
    /// The frame's time, seconds: what effects see as `time_s`
    /// ([`crate::Batcher::set_time_s`]; 0 until set).
    pub time_s: f32,
    /// The light lit quads get from everywhere, linear RGB ([`crate::Batcher::set_ambient`];
    /// `[1, 1, 1]` until set: lit quads look unlit).
    pub ambient: [f32; 3],
    /// The frame's point lights, at most [`crate::Budget::max_lights`] (the rest dropped by
    /// priority and counted in `Counters::lights_dropped`), in the order they were added.
    pub lights: Vec<crate::PointLight>,
    /// Ramp rows to write before the draws ([`crate::TextureStore::write_ramp_row`]), each a
    /// whole row, its bytes in [`FramePlan::upload_bytes`]. Empty without a ramp
    /// ([`crate::Budget::ramp`]).
    pub ramp_writes: Vec<RampWrite>,
    /// Core's counters for this frame.
    pub counters: Counters,
    /// Core's counters since creation, this frame included.
    pub totals: Counters,
}

impl FramePlan {
    /// The slot table of a segment: the array for each slot `0..tier`.
    ///
    /// # Panics
    /// If the segment's range is outside [`FramePlan::slot_tables`] (not for a validated plan).
    pub fn slots(&self, segment: &Segment) -> &[Option<ArrayId>] {
        &self.slot_tables[segment.slots.start as usize..segment.slots.end as usize]
    }
    /// The draw state of a segment ([`DrawState::default`] when the plan has none).
    pub fn state(&self, segment: &Segment) -> DrawState {
        self.states.get(segment.state as usize).copied().unwrap_or_default()
    }
    /// The binds to apply before drawing a segment.
    ///
    /// # Panics
    /// If the segment's range is outside [`FramePlan::binds`] (not for a validated plan).
    pub fn binds(&self, segment: &Segment) -> &[SlotBind] {
        &self.binds[segment.binds.start as usize..segment.binds.end as usize]
    }
    /// The instances of a segment of the plan's own (empty for a resident layer's: those are
    /// on the device).
    ///
    /// # Panics
    /// If the segment's range is outside [`FramePlan::instances`] (not for a validated plan).
    pub fn instances(&self, segment: &Segment) -> impl Iterator<Item = &Instance> + '_ {
        let range = match segment.resident {
            Some(_) => 0..0,
            None => segment.instances.start as usize..segment.instances.end as usize,
        };
        assert!(range.end <= self.instances.len(), "segment {range:?} of {} instances", self.instances.len());
        self.instances.range(range)
    }
    /// The bytes of a `WriteLayer` op (empty for other ops).
    ///
    /// # Panics
    /// If the op's range is outside [`FramePlan::upload_bytes`] (not for a validated plan).
    pub fn upload(&self, op: &ResourceOp) -> &[u8] {
        match op {
            ResourceOp::WriteLayer { bytes, .. } => &self.upload_bytes[bytes.clone()],
            ResourceOp::Array(_) | ResourceOp::Resident(_) => &[],
        }
    }
    /// Arrays created by this plan's ops, with their descriptions (growth and shrinking
    /// included).
    pub fn created_arrays(&self) -> impl Iterator<Item = (ArrayId, ArrayDesc)> + '_ {
        self.ops.iter().filter_map(|op| match op {
            ResourceOp::Array(ArrayOp::Create { array, desc }) => Some((*array, *desc)),
            ResourceOp::Array(ArrayOp::Grow { to, desc, .. } | ArrayOp::Shrink { to, desc, .. }) => Some((*to, *desc)),
            _ => None,
        })
    }
    /// The instance-buffer block of `capacity` instances that instance `i` lies in:
    /// `block * capacity .. (block + 1) * capacity`, clipped to the plan's instances.
    /// Its instances are [`FramePlan::block_pieces`]; this is their count.
    pub fn block_len(&self, block: u32) -> usize {
        let range = self.block_range(block);
        range.end - range.start
    }

    /// The instances of block `block` ([`FramePlan::block_len`]) as the slices of
    /// [`FramePlan::instances`]' parts they lie in, in order.
    pub fn block_pieces(&self, block: u32) -> impl Iterator<Item = &[Instance]> + '_ {
        self.instances.pieces(self.block_range(block))
    }

    fn block_range(&self, block: u32) -> Range<usize> {
        let cap = self.instance_capacity.max(1) as usize;
        let start = (block as usize).saturating_mul(cap).min(self.instances.len());
        start..start.saturating_add(cap).min(self.instances.len())
    }
}
