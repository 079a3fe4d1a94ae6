//! Resident layers in a plan: buffers of instances kept on the device, created, written by
//! ranges and destroyed by [`ResidentOp`]s, and drawn by segments that name them
//! ([`Segment::resident`](super::Segment::resident)) instead of the plan's own instances.

use std::ops::Range;

use super::{FramePlan, Instance};

/// A resident layer ([`crate::TextureStore::create_resident`]): quads kept on the device, drawn
/// each frame by one item in the stream. An id is never reused by its batcher while it is
/// live; a destroyed id is refused ([`crate::ResidentError::Stale`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResidentId {
    /// Index in the batcher's table of residents.
    pub index: u32,
    /// Bumped each time the index is reused: a stale id names an older generation.
    pub generation: u32,
}

/// A change to a resident layer's device buffer, applied in the plan's order among its other
/// [`super::ResourceOp`]s.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResidentOp {
    /// Create `resident`'s buffer with room for `instances` instances (contents undefined
    /// until written): [`Instance::quad_bytes`] of vertex bytes each, four vertex records an
    /// instance when `indexed`.
    Create {
        /// The resident.
        resident: ResidentId,
        /// Instances it holds.
        instances: u32,
        /// Each instance is stored once per corner (the budget's
        /// [`crate::Budget::indexed_quads`]), and drawn indexed.
        indexed: bool,
        /// A moving layer ([`crate::TextureStore::create_moving`]): a motion texture of
        /// [`crate::motion_texture_size`]`(instances)` texels (RGBA32F, contents undefined
        /// until written by [`ResidentOp::Move`]) is created with the buffer, and its draws
        /// move each instance by its motion.
        moving: bool,
        /// A tile grid's layer ([`crate::tilegrid::TileGrid`]): a cell buffer of this many
        /// `u32` tile ids (contents undefined until written by [`ResidentOp::WriteCells`]) is
        /// created with the buffer, read by the compute pass of the layer's grid draws
        /// ([`GridDraw`]). 0: none. Only on a device that culls on the GPU
        /// ([`crate::Limits::gpu_culling`]).
        cells: u32,
    },
    /// Write cells `first..first + cells.len()` of tile grid layer `resident`'s cell buffer,
    /// from [`FramePlan::cells`]`[cells]`.
    WriteCells {
        /// The resident.
        resident: ResidentId,
        /// The first cell written.
        first: u32,
        /// Index range into [`FramePlan::cells`].
        cells: Range<u32>,
    },
    /// Write the motions of sprites `first..first + motions.len()` of moving layer
    /// `resident`, from [`FramePlan::motions`]`[motions]`, into its motion texture
    /// ([`crate::motion_rects`] gives the rectangles).
    Move {
        /// The resident.
        resident: ResidentId,
        /// The first sprite written.
        first: u32,
        /// Index range into [`FramePlan::motions`].
        motions: Range<u32>,
    },
    /// Write instances `first..first + instances.len()` of `resident`, from
    /// [`FramePlan::resident_instances`]`[instances]`.
    Write {
        /// The resident.
        resident: ResidentId,
        /// The first instance written.
        first: u32,
        /// Index range into [`FramePlan::resident_instances`].
        instances: Range<u32>,
    },
    /// Destroy `resident`'s buffer (and its motion texture).
    Destroy {
        /// The resident.
        resident: ResidentId,
    },
}

/// One [`ResidentOp::Write`] as an executor receives it: where the instances go and what
/// they are; [`ResidentWrite::write_with`] makes the vertex bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ResidentWrite<'a> {
    /// The resident.
    pub resident: ResidentId,
    /// The first instance written.
    pub first: u32,
    /// The instances.
    pub instances: &'a [Instance],
    /// The resident stores four vertex records an instance ([`ResidentOp::Create::indexed`]).
    pub indexed: bool,
}

impl ResidentWrite<'_> {
    /// Byte offset of the first instance in the resident's buffer.
    pub fn offset_bytes(&self) -> u64 {
        u64::from(self.first) * u64::from(Instance::quad_bytes(self.indexed))
    }
    /// Vertex bytes written.
    pub fn bytes(&self) -> usize {
        self.instances.len() * Instance::quad_bytes(self.indexed) as usize
    }
    /// Hands the vertex bytes to `put(offset from the write's start, bytes)` in pieces that
    /// cover [`ResidentWrite::bytes`] exactly: each instance once, or once per corner when
    /// `indexed` (the same records as [`FramePlan::write_block_with`]).
    pub fn write_with(&self, mut put: impl FnMut(usize, &[u8])) {
        if !self.indexed {
            put(0, bytemuck::cast_slice(self.instances));
            return;
        }
        const PIECE: usize = 64;
        let mut piece = [[Instance::default(); Instance::VERTICES as usize]; PIECE];
        for (n, chunk) in self.instances.chunks(PIECE).enumerate() {
            for (dst, i) in piece.iter_mut().zip(chunk) {
                *dst = [*i; Instance::VERTICES as usize];
            }
            put(n * PIECE * Instance::QUAD_BYTES as usize, bytemuck::cast_slice(&piece[..chunk.len()]));
        }
    }
    /// The vertex bytes, into `out` (at least [`ResidentWrite::bytes`] long); `None` when it
    /// is shorter.
    pub fn write_into(&self, out: &mut [u8]) -> Option<usize> {
        let bytes = self.bytes();
        let out = out.get_mut(..bytes)?;
        self.write_with(|at, piece| out[at..at + piece.len()].copy_from_slice(piece));
        Some(bytes)
    }
}

/// One rectangle of a [`ResidentOp::Move`] as an executor receives it: the texels of a moving
/// layer's motion texture to write, and their motions (one texel each, row after row).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MotionWrite<'a> {
    /// The resident.
    pub resident: ResidentId,
    /// `[x, y, width, height]` in texels of the motion texture.
    pub rect: [u32; 4],
    /// `width * height` motions, row after row. On a budget with
    /// [`staged_motion_writes`](crate::Budget::staged_motion_writes) those a host wrote in
    /// place are as it wrote them, NaN included: copy them with
    /// [`MotionWrite::copy_checked`].
    pub motions: &'a [crate::Motion],
}

impl MotionWrite<'_> {
    /// The motions, into `sink` a block at a time, each NaN or infinite one as
    /// [`crate::Motion::NOTHING`]: [`crate::copy_checked`]. Returns how many were.
    pub fn copy_checked(&self, sink: impl FnMut(&[u8])) -> u64 {
        crate::copy_checked(self.motions, sink)
    }
}

/// One [`ResidentOp::WriteCells`] as an executor receives it: the tile ids of cells
/// `first..first + cells.len()` of a tile grid layer's cell buffer (4 bytes each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellWrite<'a> {
    /// The resident.
    pub resident: ResidentId,
    /// The first cell written.
    pub first: u32,
    /// The tile ids: 0 is no tile, `k` is quad `k - 1` of the layer.
    pub cells: &'a [u32],
}

/// A tile grid layer's draw ([`crate::tilegrid::TileGrid::draw`]), the GPU's to cull: a
/// compute pass tests each cell of `cells`, and for each whose tile shows in the viewport
/// writes the tile's quad (quad `id - 1` of the layer, moved to the cell) into an instance
/// buffer of the pass's own and counts it into an indirect draw's arguments; the draw then
/// draws those instances. So the device shades the tiles the view shows, and the CPU does no
/// work a tile.
///
/// The cell `(x, y)`'s quad is the layer's quad with `[x * tile_px, y * tile_px]` added to its
/// origin (f32 arithmetic: `x as f32 * tile_px`), under the segment's draw state. A tile shows
/// when the bounding box of its four corners, after the state's transform, overlaps the
/// viewport ([`GridDraw::shows`]). Tiles of a grid never overlap, so the order the GPU writes
/// them in changes no pixel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridDraw {
    /// The cells tested, `[x0, y0, x1, y1]` (ends exclusive), within the grid.
    pub cells: [u32; 4],
    /// Cells a row of the grid: cell `(x, y)` is `cells[y * width + x]`.
    pub width: u32,
    /// A cell's side, pixels (finite, above 0).
    pub tile_px: f32,
}

// `tile_px` is finite (the validator refuses a plan where it is not): equality is reflexive.
impl Eq for GridDraw {}

impl GridDraw {
    /// The most cells a side of one grid draw: 8 cells a workgroup
    /// ([`crate::shader::GRID_WORKGROUP_SIDE`]) times the 65,535 workgroups a dimension every
    /// device with compute dispatches.
    pub const MAX_SIDE_CELLS: u32 = 8 * 65_535;

    /// Cells tested: the instances the compute pass may write at most.
    pub fn cell_count(&self) -> u64 {
        let [x0, y0, x1, y1] = self.cells;
        u64::from(x1.saturating_sub(x0)) * u64::from(y1.saturating_sub(y0))
    }

    /// A tile's quad (the layer's quad `id - 1`) moved to cell `[x, y]`: `[x as f32 *
    /// tile_px, y as f32 * tile_px]` added to its origin, what the compute pass writes.
    pub fn tile_at(&self, quad: &Instance, [x, y]: [u32; 2]) -> Instance {
        let mut i = *quad;
        i.origin = [quad.origin[0] + x as f32 * self.tile_px, quad.origin[1] + y as f32 * self.tile_px];
        i
    }

    /// Whether `quad` (a tile's instance, already moved to its cell) shows in a viewport of
    /// `viewport_px` under `transform` (`[a, b, c, d, tx, ty]`): the bounding box of its
    /// corners overlaps `0..width` and `0..height`, open at both ends. The compute pass
    /// tests the same, in the same order of operations.
    pub fn shows(quad: &Instance, transform: [f32; 6], viewport_px: [f32; 2]) -> bool {
        let [a, b, c, d, tx, ty] = transform;
        let (mut lo, mut hi) = ([f32::INFINITY; 2], [f32::NEG_INFINITY; 2]);
        for (s, t) in [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)] {
            let q = [
                quad.origin[0] + s * quad.axis_x[0] + t * quad.axis_y[0],
                quad.origin[1] + s * quad.axis_x[1] + t * quad.axis_y[1],
            ];
            let p = [a * q[0] + c * q[1] + tx, b * q[0] + d * q[1] + ty];
            for k in 0..2 {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
        }
        lo[0] < viewport_px[0] && hi[0] > 0.0 && lo[1] < viewport_px[1] && hi[1] > 0.0
    }
}

impl FramePlan {
    /// The tile ids a [`ResidentOp::WriteCells`] writes (empty for another op or a range
    /// outside [`FramePlan::cells`]: the validator refuses such a plan).
    pub fn write_cells_ids(&self, op: &ResidentOp) -> &[u32] {
        match op {
            ResidentOp::WriteCells { cells, .. } => {
                self.cells.get(cells.start as usize..cells.end as usize).unwrap_or(&[])
            }
            _ => &[],
        }
    }

    /// The motions a [`ResidentOp::Move`] writes (empty for another op or a range outside
    /// [`FramePlan::motions`]: the validator refuses such a plan).
    pub fn move_motions(&self, op: &ResidentOp) -> &[crate::Motion] {
        match op {
            ResidentOp::Move { motions, .. } => {
                self.motions.get(motions.start as usize..motions.end as usize).unwrap_or(&[])
            }
            _ => &[],
        }
    }

    /// The instances a [`ResidentOp::Write`] writes (empty for another op or a range outside
    /// [`FramePlan::resident_instances`]: the validator refuses such a plan).
    pub fn resident_write_instances(&self, op: &ResidentOp) -> &[Instance] {
        match op {
            ResidentOp::Write { instances, .. } => {
                self.resident_instances.get(instances.start as usize..instances.end as usize).unwrap_or(&[])
            }
            _ => &[],
        }
    }
}
