//! Nine-slices recorded: every piece made and checked before the first is pushed.

use crate::nine_slice::Axis;
use crate::{Batcher, NineSlice, NineSliceError, Quad, QuadError};

impl Batcher {
    /// Records a nine-slice: up to nine quads (more when tiled), drawn in order after what
    /// was pushed before, in the same draw.
    ///
    /// ```
    /// use layerbatch_core::{Batcher, Config, Limits, NineSlice, SliceFill, TextureDesc};
    /// let mut batcher = Batcher::new(Limits::desktop(), Config::default())?;
    /// let panel = batcher.textures().register(&TextureDesc::new(48, 48), &[200; 48 * 48 * 4])?;
    /// batcher.begin_frame();
    /// // A 300x120 panel whose 16-texel borders stay 16 px, its centre tiled.
    /// let slice = NineSlice::new(panel, [10.0, 10.0, 300.0, 120.0], [16.0; 4])
    ///     .with_fill(SliceFill::Stretch, SliceFill::Tile);
    /// batcher.push_nine_slice(&slice)?;
    /// let plan = batcher.finish();
    /// assert_eq!(plan.segments.len(), 1);
    /// assert_eq!(plan.counters.quads, 8 + 17 * 6); // corners and edges, then 17 x 6 tiles
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`NineSliceError`]: a stale texture or no open frame, non-finite numbers, negative
    /// sizes or borders, borders wider than the source, or tiling past
    /// [`NineSlice::MAX_QUADS`]. Nothing of a refused nine-slice is recorded.
    pub fn push_nine_slice(&mut self, slice: &NineSlice) -> Result<(), NineSliceError> {
        let desc = self.desc(slice.texture).map_err(|_| NineSliceError::Texture(QuadError::Stale(slice.texture)))?;
        let texture_px = [desc.width_px, desc.height_px];
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
        // Every piece is made and checked before the first is recorded: a refused nine-slice
        // leaves nothing behind, and no open frame is an error even with nothing to draw.
        self.check_push(&Quad::rect(slice.texture, [x, y], [0.0, 0.0])).map_err(NineSliceError::Texture)?;
        // Two walks over the same pieces (they are computed, not stored): the first checks
        // them all, the second records them. No allocation per nine-slice.
        for record in [false, true] {
            for j in 0..3 {
                for i in 0..3 {
                    let f = fill(i, j);
                    // A cell with no pieces on one axis has none at all, however many the
                    // other axis would tile (up to a billion: never walked).
                    if rows.tiles(j, f) == 0 || cols.tiles(i, f) == 0 {
                        continue;
                    }
                    for [dy, dh, v0, vh] in rows.pieces(j, f) {
                        for [dx, dw, u0, uw] in cols.pieces(i, f) {
                            let quad = Quad::rect(slice.texture, [dx, dy], [dw, dh])
                                .with_uv([u0 / tw, v0 / th, (u0 + uw) / tw, (v0 + vh) / th])
                                .with_color(slice.color);
                            if record {
                                // Checked by the first walk, nothing recorded since: cannot fail.
                                self.push(&quad).map_err(NineSliceError::Texture)?;
                            } else {
                                self.check_push(&quad).map_err(NineSliceError::Texture)?;
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }
}
