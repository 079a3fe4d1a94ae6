//! Nine-slice sprites: a texture cut by four lines into corners, edges and a centre, drawn
//! into a rectangle of any size with the corners unscaled and the edges and centre stretched
//! or tiled ([`crate::Batcher::push_nine_slice`]).

use crate::{Quad, QuadError, TextureId};

/// How a nine-slice's edges or centre fill their span.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SliceFill {
    /// One piece stretched over the span. The default.
    #[default]
    Stretch,
    /// The piece repeated at its own size (times [`NineSlice::border_scale`]) from the span's
    /// top-left, the last one cut (its texels too, so nothing is squeezed).
    Tile,
}

/// A nine-slice draw ([`crate::Batcher::push_nine_slice`]).
///
/// `#[non_exhaustive]`: make one with [`NineSlice::new`] and the `with_*` methods.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct NineSlice {
    /// The texture.
    pub texture: TextureId,
    /// Where it is drawn: `[x, y, width, height]`, pixels.
    pub dest_px: [f32; 4],
    /// Widths of the left, top, right and bottom borders in the source, texels. Drawn at
    /// that size (times `border_scale`) whatever the destination's size, unless the
    /// destination is smaller than two borders: then both shrink in proportion, as CSS
    /// `border-image` does.
    pub border_px: [f32; 4],
    /// The part of the texture that is sliced, `[x, y, width, height]` in texels. Default
    /// `None`: the whole texture.
    pub source_px: Option<[f32; 4]>,
    /// Scale of the borders (and of tiles) on screen. Default 1.
    pub border_scale: f32,
    /// How the top, bottom, left and right edges fill their span. Default
    /// [`SliceFill::Stretch`].
    pub edges: SliceFill,
    /// How the centre fills its span. Default [`SliceFill::Stretch`].
    pub center: SliceFill,
    /// RGBA8 tint, premultiplied (as [`Quad::color`](crate::Quad::color)). Default opaque white.
    pub color: [u8; 4],
}

impl NineSlice {
    /// Tiles of one nine-slice at most: a tile far smaller than its span is a mistake, not
    /// a pattern (a 1-texel centre tiled over a 4K screen would be 8 million quads).
    pub const MAX_QUADS: usize = 16_384;

    /// The quads of this nine-slice over a texture `texture_px` in size, appended to `out`
    /// in drawing order (rows top to bottom, cells left to right), as shapes yield a mesh:
    /// plain data the host may push ([`crate::Batcher::push_all`]) or keep.
    /// [`crate::Batcher::push_nine_slice`] records them.
    ///
    /// ```
    /// use layerbatch_core::{NineSlice, TextureId};
    /// let panel: TextureId = bytemuck::Zeroable::zeroed(); // any id: quads only name it
    /// let slice = NineSlice::new(panel, [0.0, 0.0, 100.0, 40.0], [8.0; 4]);
    /// let mut quads = Vec::new();
    /// slice.quads([32, 32], &mut quads)?;
    /// assert_eq!(quads.len(), 9);
    /// assert_eq!(quads[0].axis_x, [8.0, 0.0]); // the top-left corner keeps its 8 texels
    /// # Ok::<(), layerbatch_core::NineSliceError>(())
    /// ```
    ///
    /// # Errors
    /// [`NineSliceError`]: non-finite numbers, negative sizes or borders, borders wider than
    /// the source, positions out of range, or tiling past [`NineSlice::MAX_QUADS`]; `out` is
    /// left as it was.
    pub fn quads(&self, texture_px: [u32; 2], out: &mut Vec<Quad>) -> Result<(), NineSliceError> {
        let slice = self;
        let [tw, th] = texture_px.map(|v| v as f32);
        let source = slice.source_px.unwrap_or([0.0, 0.0, tw, th]);
        let [x, y, w, h] = slice.dest_px;
        let bad = |field, value: [f32; 4], negative_ok: bool| {
            let ok = value.iter().all(|v| v.is_finite() && (negative_ok || *v >= 0.0));
            if ok {
                Ok(())
            } else {
                Err(NineSliceError::BadNumber { field, value, negative_ok })
            }
        };
        bad("dest_px position", [x, y, 0.0, 0.0], true)?;
        bad("dest_px size", [w, h, 0.0, 0.0], false)?;
        bad("border_px", slice.border_px, false)?;
        bad("source_px", source, false)?;
        bad("border_scale", [slice.border_scale, 0.0, 0.0, 0.0], false)?;
        let far = |v: f32| v.abs() >= Quad::MAX_POSITION;
        if far(x) || far(y) || far(x + w) || far(y + h) {
            return Err(NineSliceError::Texture(QuadError::OutOfRange));
        }
        let [l, t, r, b] = slice.border_px;
        let [sx, sy, sw, sh] = source;
        if l + r > sw || t + b > sh || sx + sw > tw || sy + sh > th {
            return Err(NineSliceError::Borders { border_px: slice.border_px, source_px: source, texture_px });
        }
        let cols = Axis::new(x, w, sx, sw, [l, r], slice.border_scale);
        let rows = Axis::new(y, h, sy, sh, [t, b], slice.border_scale);
        let fill = |i: usize, j: usize| match (i, j) {
            (1, 1) => slice.center,
            _ => slice.edges,
        };
        let quads: usize = (0..3)
            .flat_map(|j| (0..3).map(move |i| (i, j)))
            .map(|(i, j)| cols.tiles(i, fill(i, j)).saturating_mul(rows.tiles(j, fill(i, j))))
            .fold(0usize, usize::saturating_add);
        if quads > NineSlice::MAX_QUADS {
            return Err(NineSliceError::TooManyTiles { quads, max: NineSlice::MAX_QUADS });
        }
        out.reserve(quads);
        for j in 0..3 {
            for i in 0..3 {
                let f = fill(i, j);
                // A cell with no pieces on one axis has none at all, however many the other
                // axis would tile (up to a billion: never walked).
                if rows.tiles(j, f) == 0 || cols.tiles(i, f) == 0 {
                    continue;
                }
                for [dy, dh, v0, vh] in rows.pieces(j, f) {
                    for [dx, dw, u0, uw] in cols.pieces(i, f) {
                        let quad = Quad::rect(slice.texture, [dx, dy], [dw, dh])
                            .with_uv([u0 / tw, v0 / th, (u0 + uw) / tw, (v0 + vh) / th])
                            .with_color(slice.color);
                        out.push(quad);
                    }
                }
            }
        }
        Ok(())
    }

    /// `texture` sliced by `border_px` (`[left, top, right, bottom]`, texels), stretched into
    /// `dest_px` (`[x, y, width, height]`).
    pub const fn new(texture: TextureId, dest_px: [f32; 4], border_px: [f32; 4]) -> Self {
        Self {
            texture,
            dest_px,
            border_px,
            source_px: None,
            border_scale: 1.0,
            edges: SliceFill::Stretch,
            center: SliceFill::Stretch,
            color: [255; 4],
        }
    }
    /// Sets `source_px`.
    #[must_use]
    pub const fn with_source_px(mut self, source_px: [f32; 4]) -> Self {
        self.source_px = Some(source_px);
        self
    }
    /// Sets `border_scale`.
    #[must_use]
    pub const fn with_border_scale(mut self, border_scale: f32) -> Self {
        self.border_scale = border_scale;
        self
    }
    /// Sets `edges` and `center`.
    #[must_use]
    pub const fn with_fill(mut self, edges: SliceFill, center: SliceFill) -> Self {
        self.edges = edges;
        self.center = center;
        self
    }
    /// Sets `color` (premultiplied).
    #[must_use]
    pub const fn with_color(mut self, color: [u8; 4]) -> Self {
        self.color = color;
        self
    }
}

/// A nine-slice [`NineSlice::quads`] or [`crate::Batcher::push_nine_slice`] refused; nothing of it
/// was recorded.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum NineSliceError {
    /// The texture is not drawable (stale, foreign, no open frame, the frame's target).
    #[error("nine-slice refused: {0}")]
    Texture(QuadError),
    /// A number is NaN, infinite or negative where it must not be.
    #[error("nine-slice {field} is {value:?}: must be finite{}", if *.negative_ok { "" } else { " and not negative" })]
    BadNumber {
        /// Which field.
        field: &'static str,
        /// The value.
        value: [f32; 4],
        /// Whether negative values are allowed (positions are).
        negative_ok: bool,
    },
    /// The borders do not fit the source: left + right above its width, or top + bottom
    /// above its height, or the source leaves the texture.
    #[error("nine-slice borders {border_px:?} do not fit source {source_px:?} of a {texture_px:?} texture")]
    Borders {
        /// The borders.
        border_px: [f32; 4],
        /// The source rectangle.
        source_px: [f32; 4],
        /// The texture's size.
        texture_px: [u32; 2],
    },
    /// Tiling would take more than [`NineSlice::MAX_QUADS`] quads.
    #[error("nine-slice tiling needs {quads} quads, above the {max} allowed")]
    TooManyTiles {
        /// Quads needed.
        quads: usize,
        /// [`NineSlice::MAX_QUADS`].
        max: usize,
    },
}

/// One axis of a nine-slice: destination and source lines, and how many tiles each span
/// takes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Axis {
    /// Destination: start, first line, second line, end.
    dest: [f32; 4],
    /// Source: start, first line, second line, end (texels).
    src: [f32; 4],
    /// Tile length on screen of the middle span (its source length times the scale).
    tile: f32,
}

impl Axis {
    pub(crate) fn new(pos: f32, len: f32, src_pos: f32, src_len: f32, border: [f32; 2], scale: f32) -> Self {
        let (mut a, mut b) = (border[0] * scale, border[1] * scale);
        if a + b > len && a + b > 0.0 {
            // Shrunk in proportion to the borders themselves: the scale cancels, so a scale
            // whose product overflows to infinity still shrinks them (no infinity times 0).
            let total = border[0] + border[1];
            (a, b) = (len * (border[0] / total), len * (border[1] / total));
        }
        let src = [src_pos, src_pos + border[0], src_pos + src_len - border[1], src_pos + src_len];
        Self { dest: [pos, pos + a, pos + len - b, pos + len], src, tile: (src[2] - src[1]) * scale }
    }

    /// Pieces of span `i` (0, 1, 2) filled by `fill`: `(dest start, dest len, src start, src
    /// len)` each.
    pub(crate) fn pieces(&self, i: usize, fill: SliceFill) -> impl Iterator<Item = [f32; 4]> + '_ {
        let (d0, d1, s0, s1) = (self.dest[i], self.dest[i + 1], self.src[i], self.src[i + 1]);
        let tiles = self.tiles(i, fill);
        let tile = self.tile;
        (0..tiles).map(move |t| match tiles {
            1 => [d0, d1 - d0, s0, s1 - s0],
            _ => {
                let start = d0 + t as f32 * tile;
                let len = tile.min(d1 - start);
                [start, len, s0, (s1 - s0) * len / tile]
            }
        })
    }

    /// Pieces span `i` takes: 0 when it has no length on screen or in the source.
    pub(crate) fn tiles(&self, i: usize, fill: SliceFill) -> usize {
        let (len, src_len) = (self.dest[i + 1] - self.dest[i], self.src[i + 1] - self.src[i]);
        // Written so that NaN has no length either.
        if !(len > 0.0 && src_len > 0.0) {
            return 0;
        }
        match (i, fill) {
            (1, SliceFill::Tile) if self.tile > 0.0 => (len / self.tile).ceil().min(1e9) as usize,
            _ => 1,
        }
    }
}
