//! The mip levels of a layer write, as backends upload them: rectangles and rows in whole
//! blocks.

use std::ops::Range;

#[cfg(doc)]
use super::FramePlan;
use super::ResourceOp;
use crate::texture::{mip_size, Format};

/// One mip level of a [`ResourceOp::WriteLayer`], as a backend uploads it.
///
/// For a compressed format the rectangle is whole blocks: `width_px` and `height_px` are the
/// level's size rounded up to blocks (the extent of its data, which wgpu copies as is); an API
/// that wants the extent clipped to the level's edge (GL, where a level of a 64 px array may
/// be 2 px wide) clips it with [`LevelWrite::clipped_px`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelWrite {
    /// The level.
    pub level: u32,
    /// Left edge in the level, pixels (on a block).
    pub x_px: u32,
    /// Top edge in the level, pixels (on a block).
    pub y_px: u32,
    /// Width, pixels, in whole blocks.
    pub width_px: u32,
    /// Height, pixels, in whole blocks.
    pub height_px: u32,
    /// Bytes per row of blocks (of texels, for RGBA8), tightly packed.
    pub row_bytes: u32,
    /// Rows of blocks (of texels, for RGBA8).
    pub rows: u32,
    /// Byte range into [`FramePlan::upload_bytes`].
    pub bytes: Range<usize>,
}

impl LevelWrite {
    /// Width and height clipped to a level `level_size_px` big: what GL's
    /// `glCompressedTexSubImage3D` takes for a rectangle reaching the level's edge.
    pub fn clipped_px(&self, level_size_px: (u32, u32)) -> (u32, u32) {
        (
            self.width_px.min(level_size_px.0.saturating_sub(self.x_px)),
            self.height_px.min(level_size_px.1.saturating_sub(self.y_px)),
        )
    }
}

impl ResourceOp {
    /// The levels of a `WriteLayer` of `format` (the array's), in upload order (empty for
    /// array ops): rows of blocks, whole blocks (see [`LevelWrite`]).
    pub fn levels(&self, format: Format) -> impl Iterator<Item = LevelWrite> + '_ {
        let (x, y, w, h, levels, start) = match self {
            ResourceOp::WriteLayer { x_px, y_px, width_px, height_px, mip_levels, bytes, .. } => {
                (*x_px, *y_px, *width_px, *height_px, *mip_levels, bytes.start)
            }
            ResourceOp::Array(_) | ResourceOp::Resident(_) => (0, 0, 0, 0, 0, 0),
        };
        let mut offset = start;
        (0..levels).map(move |level| {
            let (lw, lh) = mip_size(w, h, level);
            let row_bytes = format.row_bytes(lw) as u32;
            let rows = format.block_rows(lh);
            let len = row_bytes as usize * rows as usize;
            let bytes = offset..offset + len;
            offset += len;
            let [width_px, height_px] = format.round_up_px([lw, lh]);
            LevelWrite { level, x_px: x >> level, y_px: y >> level, width_px, height_px, row_bytes, rows, bytes }
        })
    }
}
