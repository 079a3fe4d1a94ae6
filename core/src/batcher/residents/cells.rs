//! Tile grid layers: a resident layer of tile quads (one a tile id) with a cell buffer on the
//! device, a `u32` tile id a cell, from which the GPU makes the quads a view shows
//! ([`crate::tilegrid::TileGrid`], [`GridDraw`]).
//!
//! Core keeps every cell (the truth the buffer is written from, after a restore too) and the
//! range the host changed since the last plan wrote them; each plan writes that range
//! ([`ResidentOp::WriteCells`]), unless a plan of the same host frame already drew the layer
//! (a queue write would land under that plan's pass, wgpu): then it waits for the next host
//! frame, as motions do.

use std::ops::Range;

use crate::batcher::Batcher;
use crate::plan::{GridDraw, ResidentId, ResidentOp, ResourceOp};
use crate::{Quad, ResidentError, ResidentStyle};

/// A tile grid layer's cells, and what of them the device does not have yet.
#[derive(Debug)]
pub(in crate::batcher) struct Cells {
    /// Every cell's tile id, row after row.
    ids: Vec<u32>,
    /// Cells changed since the last write (empty: none).
    dirty: Range<u32>,
    /// The cell buffer is created by a plan not made yet: written whole by that plan.
    fresh: bool,
}

impl Cells {
    pub(super) fn new(ids: Vec<u32>) -> Self {
        Self { ids, dirty: 0..0, fresh: true }
    }

    pub(super) fn len(&self) -> u32 {
        self.ids.len() as u32
    }

    /// Its cell buffer is (re-)created by the next plan: written whole.
    pub(super) fn created(&mut self) {
        self.fresh = true;
        self.dirty = 0..self.len();
    }

    fn touch(&mut self, range: Range<u32>) {
        self.dirty = super::widened(&self.dirty, range);
    }
}

impl Batcher {
    /// Bytes of a cell buffer of `cells` cells, or [`ResidentError::CellsTooLarge`] where the
    /// device does not cull on the GPU or cannot bind that many.
    pub(super) fn check_cells(&self, cells: usize) -> Result<u64, ResidentError> {
        let bytes = cells as u64 * 4;
        let max_storage_binding_bytes = self.limits.max_storage_binding_bytes.min(self.limits.max_buffer_bytes);
        let indexed_quads = self.budget.indexed_quads;
        if bytes > self.budget.max_cell_bytes || cells > u32::MAX as usize || cells == 0 {
            return Err(ResidentError::NoGpuGrid { cells, bytes, max_storage_binding_bytes, indexed_quads });
        }
        Ok(bytes)
    }

    /// A tile grid layer of `quads` (tile id `k` is quad `k - 1`) and the cells `ids`.
    pub(crate) fn create_grid_layer(&mut self, quads: &[Quad], ids: Vec<u32>) -> Result<ResidentId, ResidentError> {
        self.create_resident_with(quads, false, Some(ids))
    }

    /// Sets cells `first..` of grid layer `id` to `ids`.
    pub(crate) fn write_cells(&mut self, id: ResidentId, first: u32, ids: &[u32]) -> Result<(), ResidentError> {
        let cells = self.cells_mut(id)?;
        let end = u64::from(first) + ids.len() as u64;
        if end > u64::from(cells.len()) {
            return Err(ResidentError::OutOfRange { first, count: ids.len(), len: cells.len() });
        }
        if ids.is_empty() {
            return Ok(());
        }
        cells.ids[first as usize..end as usize].copy_from_slice(ids);
        cells.touch(first..end as u32);
        Ok(())
    }

    /// The cells of grid layer `id`, row after row.
    pub(crate) fn cells(&self, id: ResidentId) -> Result<&[u32], ResidentError> {
        let e = self.residents.entry(id)?;
        e.cells.as_ref().map(|c| &c.ids[..]).ok_or(ResidentError::NotGrid(id))
    }

    fn cells_mut(&mut self, id: ResidentId) -> Result<&mut Cells, ResidentError> {
        self.residents.entry(id)?;
        let e = self.residents.entries.get_mut(id.index as usize).ok_or(ResidentError::Stale(id))?;
        e.cells.as_mut().ok_or(ResidentError::NotGrid(id))
    }

    /// Draws grid layer `id`'s cells `grid.cells`, culled by the GPU: one item in the stream,
    /// one draw; see [`GridDraw`].
    pub(crate) fn draw_resident_grid(
        &mut self,
        id: ResidentId,
        grid: GridDraw,
        style: &ResidentStyle,
    ) -> Result<(), ResidentError> {
        let e = self.residents.entry(id)?;
        let cells = e.cells.as_ref().ok_or(ResidentError::NotGrid(id))?;
        let [x0, y0, x1, y1] = grid.cells;
        let rows = cells.len() / grid.width.max(1);
        if grid.width == 0 || cells.len() % grid.width != 0 || x0 > x1 || y0 > y1 || x1 > grid.width || y1 > rows {
            let first = y0.saturating_mul(grid.width).saturating_add(x0);
            return Err(ResidentError::OutOfRange { first, count: grid.cell_count() as usize, len: cells.len() });
        }
        if grid.cell_count() == 0 {
            return Ok(());
        }
        let len = e.quads.len() as u32;
        self.draw_resident_item(id, 0..len, Some(grid), style)
    }

    /// Whether a frame is open (between `begin_frame` and `finish`).
    pub(crate) fn frame_open(&self) -> bool {
        self.recorder.open
    }

    /// Quads pushed from now until [`Batcher::restore_state`] are drawn as a resident layer
    /// drawn now with `style` would be (its transform, clip and tint on the drawing state's):
    /// a tile grid drawn on the CPU draws the pixels its GPU path draws.
    pub(crate) fn push_styled(&mut self, style: &ResidentStyle) {
        self.save_state();
        let state = super::style_state(self.recorder.draw_state_now(), style);
        self.recorder.set_state(state);
    }

    /// Before a plan is made, after its other resident ops: a cell write for each grid layer
    /// whose cells changed, unless a plan of this host frame drew it (a cell buffer this plan
    /// creates is written anyway).
    pub(in crate::batcher) fn write_changed_cells(&mut self) {
        for index in 0..self.residents.entries.len() {
            let e = &self.residents.entries[index];
            let id = ResidentId { index: index as u32, generation: e.generation };
            let Some(c) = &e.cells else { continue };
            if c.dirty.is_empty() || e.life == super::Life::Dead || (!c.fresh && self.drawn_earlier_this_frame(id)) {
                continue;
            }
            let r = &mut self.residents;
            let Some(c) = r.entries[index].cells.as_mut() else { continue };
            let dirty = std::mem::replace(&mut c.dirty, 0..0);
            c.fresh = false;
            let start = r.pending_cells.len() as u32;
            r.pending_cells.extend_from_slice(&c.ids[dirty.start as usize..dirty.end as usize]);
            let cells = start..r.pending_cells.len() as u32;
            self.ops.push(ResourceOp::Resident(ResidentOp::WriteCells { resident: id, first: dirty.start, cells }));
        }
    }
}
