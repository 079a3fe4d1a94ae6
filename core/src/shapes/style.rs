//! How a shape is filled or stroked: colour, fill rule, width, caps, joins, tolerance and
//! anti-aliasing.

use super::{FillRule, LineCap, LineJoin};

/// The smallest [`FillStyle::tolerance_px`] / [`StrokeStyle::tolerance_px`] accepted:
/// below it a large curve would flatten into millions of segments.
pub const MIN_TOLERANCE_PX: f32 = 0.01;

/// How [`super::Shapes`] fills a shape.
///
/// ```
/// use layerbatch_core::shapes::{FillRule, FillStyle};
/// let style = FillStyle::new([0, 0, 128, 128]).with_rule(FillRule::EvenOdd);
/// assert_eq!(style.tolerance_px, 0.1);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct FillStyle {
    /// Premultiplied RGBA8 colour. Default opaque white `[255; 4]`.
    pub color: [u8; 4],
    /// Which points are inside when the path crosses itself or has holes. Default
    /// [`FillRule::NonZero`].
    pub rule: FillRule,
    /// Largest distance, in pixels, between a curve and the straight segments that
    /// approximate it. Default `0.1`; must be finite and at least [`MIN_TOLERANCE_PX`].
    pub tolerance_px: f32,
    /// Whether edges get a one-pixel feathered band (see the [module docs](super)).
    /// Default `true`.
    pub anti_alias: bool,
}

impl Default for FillStyle {
    fn default() -> Self {
        Self { color: [255; 4], rule: FillRule::NonZero, tolerance_px: 0.1, anti_alias: true }
    }
}

impl FillStyle {
    /// The default style with `color` (premultiplied RGBA8).
    pub fn new(color: [u8; 4]) -> Self {
        Self { color, ..Self::default() }
    }
    /// With `color` (premultiplied RGBA8).
    pub fn with_color(self, color: [u8; 4]) -> Self {
        Self { color, ..self }
    }
    /// With fill `rule`.
    pub fn with_rule(self, rule: FillRule) -> Self {
        Self { rule, ..self }
    }
    /// With flattening tolerance `tolerance_px`.
    pub fn with_tolerance_px(self, tolerance_px: f32) -> Self {
        Self { tolerance_px, ..self }
    }
    /// With or without the anti-aliasing band.
    pub fn with_anti_alias(self, anti_alias: bool) -> Self {
        Self { anti_alias, ..self }
    }
}

/// How [`super::Shapes`] strokes a shape.
///
/// ```
/// use layerbatch_core::shapes::{LineCap, LineJoin, StrokeStyle};
/// let style = StrokeStyle::new([255, 255, 255, 255], 3.0)
///     .with_cap(LineCap::Round)
///     .with_join(LineJoin::Round);
/// assert_eq!(style.miter_limit, 4.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct StrokeStyle {
    /// Premultiplied RGBA8 colour. Default opaque white `[255; 4]`.
    pub color: [u8; 4],
    /// Line width in pixels. Default `1.0`; must be finite and not negative. Zero draws
    /// nothing. With anti-aliasing, a width under one pixel is drawn one pixel wide with its
    /// colour scaled by the width, so its coverage stays right.
    pub width_px: f32,
    /// Shape of open ends. Default [`LineCap::Butt`].
    pub cap: LineCap,
    /// Shape of corners. Default [`LineJoin::Miter`].
    pub join: LineJoin,
    /// Miter joins longer than `miter_limit` half-widths fall back to bevels (as in SVG).
    /// Default `4.0`; must be finite and at least `1.0`.
    pub miter_limit: f32,
    /// Largest distance, in pixels, between a curve and the straight segments that
    /// approximate it. Default `0.1`; must be finite and at least [`MIN_TOLERANCE_PX`].
    pub tolerance_px: f32,
    /// Whether edges get a one-pixel feathered band (see the [module docs](super)).
    /// Default `true`.
    pub anti_alias: bool,
}

impl Default for StrokeStyle {
    fn default() -> Self {
        Self {
            color: [255; 4],
            width_px: 1.0,
            cap: LineCap::Butt,
            join: LineJoin::Miter,
            miter_limit: 4.0,
            tolerance_px: 0.1,
            anti_alias: true,
        }
    }
}

impl StrokeStyle {
    /// The default style with `color` (premultiplied RGBA8) and `width_px`.
    pub fn new(color: [u8; 4], width_px: f32) -> Self {
        Self { color, width_px, ..Self::default() }
    }
    /// With `color` (premultiplied RGBA8).
    pub fn with_color(self, color: [u8; 4]) -> Self {
        Self { color, ..self }
    }
    /// With line width `width_px`.
    pub fn with_width_px(self, width_px: f32) -> Self {
        Self { width_px, ..self }
    }
    /// With end `cap`.
    pub fn with_cap(self, cap: LineCap) -> Self {
        Self { cap, ..self }
    }
    /// With corner `join`.
    pub fn with_join(self, join: LineJoin) -> Self {
        Self { join, ..self }
    }
    /// With `miter_limit`.
    pub fn with_miter_limit(self, miter_limit: f32) -> Self {
        Self { miter_limit, ..self }
    }
    /// With flattening tolerance `tolerance_px`.
    pub fn with_tolerance_px(self, tolerance_px: f32) -> Self {
        Self { tolerance_px, ..self }
    }
    /// With or without the anti-aliasing band.
    pub fn with_anti_alias(self, anti_alias: bool) -> Self {
        Self { anti_alias, ..self }
    }
}
