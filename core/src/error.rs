//! Errors, one enum per phase: creation, texture management, quad submission.

use crate::{Format, Limits, TextureId};

/// Creation: the config or the device limits cannot make a budget.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A config field that must be positive is zero.
    #[error("config field `{0}` must be at least 1")]
    Zero(&'static str),
    /// `max_padding_waste` outside `0.0..1.0`.
    #[error("max_padding_waste must be in 0.0..1.0, got {0}")]
    PaddingWaste(f32),
    /// The device reported a zero limit.
    #[error("the device reports unusable limits: {0:?}")]
    DeviceLimits(Limits),
    /// A [`crate::Budget`] edited after [`crate::Budget::new`] so that no executor could honour
    /// it: more slots than [`crate::MAX_SLOTS_PER_DRAW`], or tiers that are not ascending
    /// powers of two up to `slots` (with `slots` last).
    #[error("budget of {slots} slots with tiers {tiers:?}: slots must be 1..={max_slots} and the tiers 1, 2, 4, .. up to slots")]
    EditedBudget {
        /// The budget's `slots`.
        slots: u32,
        /// The budget's `tiers`.
        tiers: Vec<u32>,
        /// [`crate::MAX_SLOTS_PER_DRAW`].
        max_slots: u32,
    },
    /// More effects declared than [`crate::MAX_EFFECTS`].
    #[error("{effects} effects declared: at most {max}")]
    TooManyEffects {
        /// Effects declared.
        effects: usize,
        /// [`crate::MAX_EFFECTS`].
        max: usize,
    },
    /// More lights a frame asked for than [`crate::MAX_LIGHTS`].
    #[error("{lights} lights a frame asked for: at most {max}")]
    TooManyLights {
        /// [`crate::Config::lights`].
        lights: u32,
        /// [`crate::MAX_LIGHTS`].
        max: u32,
    },
    /// An effect samples the ramp, and the device's texture units cannot hold the ramp beside
    /// one slot (and its normal map, with lights): refused rather than drawn white.
    #[error("effect {effect:?} samples the ramp: a program then needs {needed} texture units (the ramp, one slot{}) and the device has {texture_units}", if *lights > 0 { " and its normal map" } else { "" })]
    EffectSamplers {
        /// The first declared effect that samples the ramp.
        effect: &'static str,
        /// Units the smallest program would sample.
        needed: u32,
        /// [`crate::Config::lights`].
        lights: u32,
        /// [`crate::Limits::max_texture_units`].
        texture_units: u32,
    },
}

/// Texture registration, update and free.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TextureError {
    /// Width or height is zero.
    #[error("texture is {width_px}x{height_px}: width and height must be at least 1")]
    ZeroSize {
        /// Width asked for.
        width_px: u32,
        /// Height asked for.
        height_px: u32,
    },
    /// Width or height above the device's maximum texture size.
    #[error("texture is {width_px}x{height_px}: above the device maximum of {max_px} px")]
    TooLarge {
        /// Width asked for.
        width_px: u32,
        /// Height asked for.
        height_px: u32,
        /// The device's `max_texture_size_px`.
        max_px: u32,
    },
    /// Mip level count zero or above what the size allows.
    #[error("{mip_levels} mip levels for a {width_px}x{height_px} texture: must be 1..={max_levels}")]
    MipLevels {
        /// Levels asked for.
        mip_levels: u32,
        /// Width.
        width_px: u32,
        /// Height.
        height_px: u32,
        /// Most levels this size has.
        max_levels: u32,
    },
    /// The pixel slice does not match the description.
    #[error("pixel data is {actual_bytes} bytes; a {width_px}x{height_px} {format:?} texture needs {expected_bytes}")]
    PixelLength {
        /// Bytes given.
        actual_bytes: usize,
        /// Bytes needed: [`crate::TextureDesc::byte_len`].
        expected_bytes: usize,
        /// Width.
        width_px: u32,
        /// Height.
        height_px: u32,
        /// Format.
        format: Format,
    },
    /// The id was freed (this includes a second free of the same id) or came from another
    /// batcher.
    #[error("texture id {0:?} is stale: it was freed or never registered here")]
    Stale(TextureId),
    /// The texture is sampled by a live resident layer: update or destroy the layer first
    /// ([`crate::TextureStore::destroy_resident`]), so that it never draws a freed texture.
    #[error(
        "texture {texture:?} is sampled by {quads} quads of resident layer {resident:?}: update or destroy it first"
    )]
    InResident {
        /// The texture.
        texture: TextureId,
        /// A resident layer sampling it.
        resident: crate::ResidentId,
        /// Quads of that layer sampling it.
        quads: u32,
    },
    /// The device samples no format of the texture's family ([`crate::Limits::format_families`]).
    /// With the `decode` feature such a texture is decoded to RGBA8 instead.
    #[error("format {format} needs the {family:?} family, which the device lacks (it has: {available})")]
    FormatUnsupported {
        /// Format asked for.
        format: Format,
        /// Its family.
        family: crate::FormatFamily,
        /// The families the device has.
        available: crate::FormatFamilies,
    },
    /// A texture of a format the device lacks could not be decoded on the CPU (the `decode`
    /// feature): its blocks are not its size, or the decoder refused them.
    #[cfg(feature = "decode")]
    #[error("decoding for a device without the format: {0}")]
    Decode(#[from] crate::decode::DecodeError),
    /// A compressed texture asked for as a [`crate::Usage::RenderTarget`]: no device renders
    /// into compressed texels.
    #[error("a render target cannot be {format}: compressed formats are sampled, never drawn into")]
    CompressedTarget {
        /// Format asked for.
        format: Format,
    },
    /// A compressed texture that is not whole blocks (its width or height is not a multiple
    /// of the block) with mip levels, or a repeating wrap along an axis that is not whole
    /// blocks. Its layer is whole blocks (wgpu creates no other), so the texture sits padded
    /// in it: a repeat would tile the encoder's padding, and the layer's levels would not line
    /// up with the texture's. Register it with one level and clamp-to-edge, or encode it at a
    /// size in whole blocks. With the `decode` feature such a texture is decoded to RGBA8
    /// (every authored level) instead, and counted in `textures_decoded`.
    #[error(
        "a {width_px}x{height_px} {format} texture is not whole {}x{} blocks: it cannot have \
         {mip_levels} mip levels or wrap {wrap_u:?} x {wrap_v:?} (only one level, clamp-to-edge along an axis \
         that is not whole blocks)",
        block_px[0],
        block_px[1]
    )]
    PartialBlocks {
        /// Format.
        format: Format,
        /// Width asked for.
        width_px: u32,
        /// Height asked for.
        height_px: u32,
        /// The format's block width and height.
        block_px: [u32; 2],
        /// Levels asked for.
        mip_levels: u32,
        /// Horizontal wrap asked for.
        wrap_u: crate::Wrap,
        /// Vertical wrap asked for.
        wrap_v: crate::Wrap,
    },
    /// An [`crate::TextureStore::update_region`] rectangle of a compressed texture that is not in
    /// whole blocks: its left and top edges must be multiples of `block_px`'s width and
    /// height, and so must its width and height, unless it reaches the texture's right or bottom edge.
    #[error(
        "region {rect_px:?} of a {width_px}x{height_px} {format} texture is not in whole {}x{} blocks",
        block_px[0],
        block_px[1]
    )]
    BlockAlign {
        /// `[x, y, width, height]` asked for.
        rect_px: [u32; 4],
        /// The texture's width.
        width_px: u32,
        /// The texture's height.
        height_px: u32,
        /// The format.
        format: Format,
        /// Its block's width and height.
        block_px: [u32; 2],
    },
    /// An [`crate::TextureStore::update_region`] rectangle that is empty, reaches past the
    /// texture, or names a texture with mip levels.
    #[error(
        "region {rect_px:?} of a {width_px}x{height_px} texture with {mip_levels} levels: must be non-empty, inside \
         it, and the texture must have one level"
    )]
    Region {
        /// `[x, y, width, height]` asked for.
        rect_px: [u32; 4],
        /// The texture's width.
        width_px: u32,
        /// The texture's height.
        height_px: u32,
        /// The texture's levels.
        mip_levels: u32,
    },
    /// [`crate::Batcher::begin_frame_into`] with a texture that is not
    /// [`crate::Usage::RenderTarget`].
    #[error("texture {0:?} is not Usage::RenderTarget: only render targets can be drawn into")]
    NotRenderTarget(TextureId),
    /// The operation needs another usage (e.g. `resize` on a static texture).
    #[error("texture {0:?} is not Usage::Dynamic or Usage::Host: only those can be resized")]
    NotDynamic(TextureId),
    /// [`crate::TextureStore::host_changed`] with a texture that is not [`crate::Usage::Host`].
    #[error("texture {0:?} is not Usage::Host: only host textures change on the device")]
    NotHost(TextureId),
    /// Pixels for a [`crate::Usage::Host`] texture: at registration, a resize, an update or a
    /// region update. The host draws its pixels on the device; layerbatch uploads none.
    #[error(
        "texture {texture:?} is a host texture: layerbatch uploads none of its pixels ({pixel_bytes} bytes given)"
    )]
    HostPixels {
        /// The texture (`None` at registration).
        texture: Option<TextureId>,
        /// Bytes given.
        pixel_bytes: usize,
    },
    /// [`crate::TextureStore::resize`] of a [`crate::Usage::Host`] texture while a frame is
    /// recorded: resize it between frames (after `finish`, before `begin_frame`).
    #[error("host texture {0:?} resized while a frame is recorded: resize it between frames")]
    HostResizeInFrame(TextureId),
    /// A [`crate::Usage::Host`] texture asked for with mip levels or a compressed format: a host
    /// texture is one level of an uncompressed colour format (its array is the texture itself,
    /// or a copy of its level 0).
    #[error("a host texture is one level of an uncompressed format, not {mip_levels} levels of {format}")]
    HostDesc {
        /// Format asked for.
        format: Format,
        /// Levels asked for.
        mip_levels: u32,
    },
    /// Admitting the texture would exceed the byte budget: `allocated_bytes + retired_bytes +
    /// requested_bytes > budget_bytes`. Nothing was changed: every texture already admitted
    /// stays valid and where it was.
    ///
    /// What a host can do: free textures it no longer needs; or, when `retired_bytes` is
    /// large (arrays the pending plan destroys, or grows or shrinks from: the device frees
    /// them only once that plan has run), finish and execute a plan first, then register
    /// again; or create the batcher with a larger [`crate::Config::budget_bytes`].
    ///
    /// Every byte is a real device byte: a compressed format's are its blocks.
    #[error(
        "texture budget exhausted: {requested_bytes} more bytes of {format} asked, with {allocated_bytes} allocated \
         and {retired_bytes} retired (held until the pending plan has run) of a {budget_bytes}-byte budget (bytes as \
         stored: blocks, for a compressed format)"
    )]
    BudgetExhausted {
        /// Format of the texture refused (its bytes are its blocks when compressed).
        format: Format,
        /// Bytes the cheapest placement would have added (a growth by copy counts the whole
        /// new array, since old and new exist during the copy; a growth in place, before any
        /// plan brought the array to the device, only the difference).
        requested_bytes: u64,
        /// Bytes of live arrays now.
        allocated_bytes: u64,
        /// Bytes of arrays the pending plan retires (destroyed, grown or shrunk from), which
        /// the device still holds until that plan has run.
        retired_bytes: u64,
        /// The budget.
        budget_bytes: u64,
    },
    /// [`crate::alloc::Allocator::free`] of a placement the allocator did not issue, or freed
    /// already.
    #[error("array {array:?}, layer {layer}, rectangle {rect_px:?} is not allocated here")]
    NotAllocated {
        /// The placement's array.
        array: crate::plan::ArrayId,
        /// Its layer.
        layer: u32,
        /// Its rectangle.
        rect_px: [u32; 4],
    },
    /// A normal map for a batcher made without lights ([`crate::Config::with_lights`]).
    #[error("normal map for texture {texture:?}: lights are off (Config::lights = 0)")]
    NormalMapWithoutLights {
        /// The texture.
        texture: crate::TextureId,
    },
    /// The normal map's pixel count is not its texture's.
    #[error(
        "normal map of {normal_bytes} bytes for texture {texture:?} of {width_px}x{height_px}: \
         expected {expected_bytes} (RGBA8, the texture's size)"
    )]
    NormalMapSize {
        /// The texture.
        texture: crate::TextureId,
        /// Its width.
        width_px: u32,
        /// Its height.
        height_px: u32,
        /// Bytes given.
        normal_bytes: usize,
        /// Bytes expected: width x height x 4.
        expected_bytes: usize,
    },
    /// The texture's array has no normal-map sibling: compressed formats and render targets
    /// take no normal map.
    #[error("texture {texture:?} ({format:?}, render target: {render_target}) takes no normal map")]
    NormalMapUnsupported {
        /// The texture.
        texture: crate::TextureId,
        /// Its format.
        format: crate::Format,
        /// Whether it is a render target.
        render_target: bool,
    },
}

/// Quad submission.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum QuadError {
    /// The quad names a freed or foreign texture.
    #[error("quad uses stale texture id {0:?}")]
    Stale(TextureId),
    /// A coordinate or UV is NaN or infinite. The quad is dropped; other quads are unaffected.
    #[error("quad has a NaN or infinite coordinate or UV")]
    NonFinite,
    /// A coordinate is finite but so large that the quad's corners or texel coordinates
    /// would overflow `f32`: positions and axes beyond [`crate::Quad::MAX_POSITION`] or UVs
    /// beyond [`crate::Quad::MAX_UV`]. The quad is dropped; other quads are unaffected.
    #[error(
        "quad has a position or axis coordinate beyond 2^30 px (Quad::MAX_POSITION) or a UV beyond 2^16 (Quad::MAX_UV)"
    )]
    OutOfRange,
    /// No frame is open: call [`crate::Batcher::begin_frame`] first.
    #[error("quad pushed outside begin_frame/finish")]
    NoFrame,
    /// The quad samples the render target the frame draws into
    /// ([`crate::Batcher::begin_frame_into`]): it would read what it writes.
    #[error("quad samples {0:?}, the render target its frame draws into")]
    SamplesTarget(TextureId),
    /// [`crate::Batcher::record_parts`] was asked for more parts than it lends at once
    /// ([`crate::Batcher::MAX_PARTS`]): nothing was lent or recorded.
    #[error("{parts} parts asked of record_parts, at most {max} are lent at once")]
    TooManyParts {
        /// The parts asked for.
        parts: usize,
        /// [`crate::Batcher::MAX_PARTS`].
        max: usize,
    },
}

/// A quad [`crate::Batcher::push_all`] dropped: its index in the slice, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("quad {index} of the slice was dropped: {error}")]
#[non_exhaustive]
pub struct RejectedQuad {
    /// Index in the slice given to `push_all`.
    pub index: usize,
    /// Why it was dropped.
    pub error: QuadError,
}

/// A mesh [`crate::Batcher::push_mesh`] refused. Nothing of the mesh is recorded: no
/// triangle of a bad mesh is drawn.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MeshError {
    /// The texture is not drawable: stale, foreign, no open frame, or the frame's render
    /// target ([`QuadError`] says which).
    #[error("mesh refused: {0}")]
    Texture(QuadError),
    /// The index count is not a multiple of three.
    #[error("mesh has {indices} indices: not whole triangles (a multiple of 3)")]
    PartialTriangle {
        /// Indices in the mesh.
        indices: usize,
    },
    /// An index names no vertex.
    #[error("mesh index {at} (triangle {}) is {index}, past the mesh's {vertices} vertices", at / 3)]
    IndexOutOfRange {
        /// Position of the index in `indices`.
        at: usize,
        /// The index.
        index: u32,
        /// Vertices in the mesh.
        vertices: usize,
    },
    /// A vertex position or texture coordinate is NaN or infinite, or beyond
    /// [`crate::Quad::MAX_POSITION`] / [`crate::Quad::MAX_UV`].
    #[error("mesh vertex {vertex} has a NaN, infinite or out-of-range position or uv")]
    BadVertex {
        /// Index of the vertex.
        vertex: usize,
    },
}
