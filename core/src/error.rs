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
        /// Bytes needed: width x height x 4.
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
    /// An [`crate::Batcher::update_region`] rectangle that is empty, reaches past the
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
    #[error("texture {0:?} is not Usage::Dynamic: only dynamic textures can be resized")]
    NotDynamic(TextureId),
    /// Admitting the texture would exceed the byte budget. Nothing was changed: every texture
    /// already admitted stays valid and where it was.
    #[error("texture budget exhausted: {requested_bytes} more bytes asked with {allocated_bytes} of {budget_bytes} allocated")]
    BudgetExhausted {
        /// Bytes the cheapest placement would have added (a growth counts old + new layers,
        /// since both exist during the copy).
        requested_bytes: u64,
        /// Bytes allocated now.
        allocated_bytes: u64,
        /// The budget.
        budget_bytes: u64,
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
    /// No frame is open: call [`crate::Batcher::begin_frame`] first.
    #[error("quad pushed outside begin_frame/finish")]
    NoFrame,
    /// The quad samples the render target the frame draws into
    /// ([`crate::Batcher::begin_frame_into`]): it would read what it writes.
    #[error("quad samples {0:?}, the render target its frame draws into")]
    SamplesTarget(TextureId),
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
