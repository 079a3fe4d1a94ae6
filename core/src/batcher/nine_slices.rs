//! Nine-slices recorded: the slice's quads ([`NineSlice::quads`]) checked, then pushed.

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
        // The batcher's scratch list: no allocation per nine-slice once it has grown.
        let mut quads = std::mem::take(&mut self.nine_slice_quads);
        quads.clear();
        let recorded = slice.quads([desc.width_px, desc.height_px], &mut quads).and_then(|()| {
            // Every piece is checked before the first is recorded: a refused nine-slice leaves
            // nothing behind, and no open frame is an error even with nothing to draw.
            let [x, y, ..] = slice.dest_px;
            self.check_push(&Quad::rect(slice.texture, [x, y], [0.0, 0.0])).map_err(NineSliceError::Texture)?;
            for quad in &quads {
                self.check_push(quad).map_err(NineSliceError::Texture)?;
            }
            for quad in &quads {
                // Checked above, nothing recorded since: cannot fail.
                self.push(quad).map_err(NineSliceError::Texture)?;
            }
            Ok(())
        });
        self.nine_slice_quads = quads;
        recorded
    }
}
