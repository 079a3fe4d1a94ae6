//! Tile grids: maps of any size at 4 bytes a tile, whose visible tiles are picked by the GPU.
//!
//! A [`Tilemap`](crate::tilemap::Tilemap) records a quad a tile into a resident layer (64
//! bytes a tile on the device, 60 in core) and draws whole chunks: a 4096 x 4096 map is 1 GiB
//! and past a device's largest buffer. A [`TileGrid`] keeps a `u32` tile id a cell and a quad
//! a tile *id* (its [`TileTable`]):
//!
//! - **On a device that culls on the GPU** ([`crate::Limits::gpu_culling`]: native wgpu,
//!   WebGPU; quads drawn instanced), the cells live on the device beside a resident layer of
//!   the table's quads. [`TileGrid::draw`] is one item in the stream and one draw: a compute
//!   pass tests each cell under the view ([`GridDraw`]), writes the quads of the tiles that
//!   show and the count of an indirect draw, and the draw draws exactly those. The CPU does
//!   no work a tile; the device shades the tiles the view shows and tests the cells of the
//!   rectangle the view's box covers.
//! - **Elsewhere** (GL, GLES, WebGL2, wgpu's GL backend, indexed quads) the cells stay in
//!   core and `draw` pushes the quad of every tile in that rectangle (about 9,000 for a
//!   1920 x 1080 view of 16 px tiles): the same pixels.
//!
//! Animated tiles ([`TileTable::animate`]) change the table's quad of their id, never the
//! cells: [`TileGrid::advance`] writes one quad an animation whose frame changed.
//!
//! ```
//! use layerbatch_core::tilemap::TileTable;
//! use layerbatch_core::tilegrid::TileGrid;
//! use layerbatch_core::{Batcher, Config, Limits, MockDevice, TextureDesc};
//! // A device that culls on the GPU (as layerbatch-wgpu reports a native device).
//! let limits = Limits::desktop().with_max_storage_binding_bytes(128 << 20);
//! let mut batcher = Batcher::new(limits, Config::default())?;
//! let set = batcher.textures().register(&TextureDesc::new(32, 32), &[90; 32 * 32 * 4])?;
//! let mut table = TileTable::new();
//! for k in 0..4 {
//!     table.push(set, [(k % 2) as f32 * 16.0, (k / 2) as f32 * 16.0, 16.0, 16.0], [32, 32]);
//! }
//! let ids: Vec<u32> = (0..1024 * 1024).map(|i| 1 + i % 4).collect(); // 4 MiB of cells
//! let grid = TileGrid::new(&mut batcher, &table, [1024, 1024], 16.0, &ids)?;
//! assert!(grid.on_gpu());
//! let mut device = MockDevice::new(batcher.budget());
//! batcher.begin_frame();
//! grid.draw(&mut batcher, [100.0, 50.0, 320.0, 180.0], &Default::default())?;
//! let plan = batcher.finish();
//! assert_eq!(plan.counters.grid_cells_tested, 21 * 12); // the cells under the view
//! device.execute(plan)?;
//! assert_eq!(device.frame_counters().draw_calls, 1);
//! assert_eq!(device.grid_drawn(grid.layer().unwrap()).len(), 21 * 12);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::plan::{GridDraw, Instance};
use crate::tilemap::{TileTable, TilemapError};
use crate::{Affine2, Batcher, Quad, ResidentError, ResidentId, ResidentStyle, TextureId};

/// A grid of tile ids, drawn by the GPU's culling where the device has it; see the
/// [module](self).
#[derive(Clone, Debug)]
pub struct TileGrid {
    size: [u32; 2],
    tile_px: f32,
    table: TileTable,
    /// The layer of the table's quads (tile id `k` is quad `k - 1`) and the cells, on a
    /// device that culls on the GPU.
    layer: Option<ResidentId>,
    /// The cells, on the CPU path (the batcher holds them on the GPU path).
    ids: Vec<u32>,
    /// Per animation of the table: the frame shown.
    shown: Vec<usize>,
    /// The animations' clock, seconds (`f64`, as [`crate::tilemap::Tilemap`]'s).
    time_s: f64,
}

impl TileGrid {
    /// A `size` (`[width, height]` tiles) grid of `ids` (row after row; 0 is no tile) with
    /// tiles of `tile_px` pixels. On a device that culls on the GPU the cells go to the device
    /// (4 bytes a cell, held against the budget) with a resident layer of a quad a tile id;
    /// elsewhere core keeps them (4 bytes a cell).
    ///
    /// # Errors
    /// [`TilemapError::Shape`] for an empty map, ids not `width * height`, or a tile size that
    /// is not a positive number; [`TilemapError::UnknownTile`] for an id past the table (or
    /// an empty table); the resident layer's errors on the GPU path
    /// ([`ResidentError::OverBudget`], a tileset freed, ...). Nothing is made then.
    pub fn new(
        batcher: &mut Batcher,
        table: &TileTable,
        size: [u32; 2],
        tile_px: f32,
        ids: &[u32],
    ) -> Result<Self, TilemapError> {
        let [w, h] = size;
        let shape = TilemapError::Shape { width: w, height: h, chunk: 1, ids: ids.len() };
        if w == 0 || h == 0 || ids.len() as u64 != u64::from(w) * u64::from(h) || ids.len() > u32::MAX as usize {
            return Err(shape);
        }
        if !tile_px.is_finite() || tile_px <= 0.0 {
            return Err(shape);
        }
        if table.is_empty() {
            return Err(TilemapError::UnknownTile { at: [0, 0], id: 1, tiles: 0 });
        }
        if let Some(i) = ids.iter().position(|&id| id as usize > table.len()) {
            let at = [(i % w as usize) as u32, (i / w as usize) as u32];
            return Err(TilemapError::UnknownTile { at, id: ids[i], tiles: table.len() });
        }
        let shown = vec![0; table.animations().count()];
        let mut grid = Self { size, tile_px, table: table.clone(), layer: None, ids: Vec::new(), shown, time_s: 0.0 };
        if batcher.budget().max_cell_bytes >= ids.len() as u64 * 4 {
            let quads: Vec<Quad> = (1..=table.len() as u32).map(|id| grid.table_quad(id)).collect();
            grid.layer = Some(batcher.create_grid_layer(&quads, ids.to_vec())?);
        } else {
            grid.ids = ids.to_vec();
        }
        Ok(grid)
    }

    /// Whether the GPU picks the tiles this grid draws (its cells are on the device).
    pub fn on_gpu(&self) -> bool {
        self.layer.is_some()
    }

    /// The resident layer of the table's quads and the cells, on the GPU path.
    pub fn layer(&self) -> Option<ResidentId> {
        self.layer
    }

    /// The grid's size, tiles.
    pub fn size(&self) -> [u32; 2] {
        self.size
    }

    /// The tile ids, row after row.
    ///
    /// # Errors
    /// [`ResidentError::Stale`] when the batcher no longer holds the grid's layer.
    pub fn ids<'a>(&'a self, batcher: &'a Batcher) -> Result<&'a [u32], ResidentError> {
        match self.layer {
            Some(layer) => batcher.cells(layer),
            None => Ok(&self.ids),
        }
    }

    /// Sets the tiles of the `size` (`[width, height]`) rectangle at `at` to `ids` (row after
    /// row). On the GPU path the next plan writes the rows changed (4 bytes a cell,
    /// `DeviceCounters::cell_bytes_written`).
    ///
    /// # Errors
    /// [`TilemapError::Shape`] for a rectangle outside the grid or ids not `width * height`,
    /// [`TilemapError::UnknownTile`] for an id past the table; nothing changes then.
    pub fn set_tiles(
        &mut self,
        batcher: &mut Batcher,
        at: [u32; 2],
        size: [u32; 2],
        ids: &[u32],
    ) -> Result<(), TilemapError> {
        let [x, y] = at.map(u64::from);
        let [w, h] = size.map(u64::from);
        let shape = TilemapError::Shape { width: size[0], height: size[1], chunk: 1, ids: ids.len() };
        if x + w > u64::from(self.size[0]) || y + h > u64::from(self.size[1]) || ids.len() as u64 != w * h {
            return Err(shape);
        }
        if let Some(i) = ids.iter().position(|&id| id as usize > self.table.len()) {
            let at = [at[0] + (i as u64 % w) as u32, at[1] + (i as u64 / w) as u32];
            return Err(TilemapError::UnknownTile { at, id: ids[i], tiles: self.table.len() });
        }
        let width = u64::from(self.size[0]);
        for (r, row) in ids.chunks(w.max(1) as usize).enumerate() {
            let first = (y + r as u64) * width + x;
            match self.layer {
                Some(layer) => batcher.write_cells(layer, first as u32, row)?,
                None => self.ids[first as usize..first as usize + row.len()].copy_from_slice(row),
            }
        }
        Ok(())
    }

    /// The cells `view_px` (`[x, y, width, height]` in the grid's pixels, before
    /// `style.transform`) touches: `[x0, y0, x1, y1]`, ends exclusive, or `None` when it
    /// touches none (off the grid, empty, not finite).
    pub fn cells_in_view(&self, view_px: [f32; 4]) -> Option<[u32; 4]> {
        let [x, y, w, h] = view_px;
        let span = |lo: f32, len: f32, n: u32| -> Option<[u32; 2]> {
            let (a, b) = ((lo / self.tile_px).floor(), ((lo + len) / self.tile_px).ceil());
            if !(a.is_finite() && b.is_finite()) || b <= a || b <= 0.0 || a >= n as f32 {
                return None;
            }
            Some([a.max(0.0) as u32, (b as u32).min(n)])
        };
        let ([x0, x1], [y0, y1]) = (span(x, w, self.size[0])?, span(y, h, self.size[1])?);
        Some([x0, y0, x1, y1])
    }

    /// The grid's pixels a `viewport_px` target shows under `camera` (the transform the grid
    /// is drawn with, `style.transform` on the drawing state's): the box of the viewport's
    /// corners taken back through the camera, one grid pixel wider each way (rounding never
    /// loses a tile at the edge), for [`TileGrid::draw`]. `None` for a camera that flattens
    /// the plane or is not finite.
    ///
    /// ```
    /// use layerbatch_core::{tilegrid::TileGrid, Affine2};
    /// let camera = Affine2::translation(-1000.0, -500.0).then(Affine2::scale(2.0, 2.0));
    /// assert_eq!(TileGrid::view_box(camera, [640, 360]), Some([999.0, 499.0, 322.0, 182.0]));
    /// // Turned a quarter: the box of a 640 x 360 view is 360 x 640 (and a pixel each way).
    /// let turned = Affine2::rotation(std::f32::consts::FRAC_PI_2);
    /// let [_, _, w, h] = TileGrid::view_box(turned, [640, 360]).unwrap();
    /// assert!((w - 362.0).abs() < 0.01 && (h - 642.0).abs() < 0.01);
    /// ```
    pub fn view_box(camera: Affine2, viewport_px: [u32; 2]) -> Option<[f32; 4]> {
        let back = camera.inverse()?;
        let [w, h] = viewport_px.map(|v| v as f32);
        let p = [[0.0, 0.0], [w, 0.0], [0.0, h], [w, h]].map(|c| back.transform_point(c));
        let lo = [0, 1].map(|k| p.iter().map(|q| q[k]).fold(f32::INFINITY, f32::min) - 1.0);
        let hi = [0, 1].map(|k| p.iter().map(|q| q[k]).fold(f32::NEG_INFINITY, f32::max) + 1.0);
        let view = [lo[0], lo[1], hi[0] - lo[0], hi[1] - lo[1]];
        view.iter().all(|v| v.is_finite()).then_some(view)
    }

    /// Draws the tiles `view_px` (the grid's pixels, before `style.transform`) touches, as a
    /// resident layer is drawn ([`Batcher::draw_resident`]: the drawing state's blend, clip,
    /// transform and look, `style` on top). On the GPU path: one item, one draw, the GPU
    /// testing the cells under the view (`Counters::grid_cells_tested`); elsewhere the quads
    /// of the tiles under it are pushed.
    ///
    /// # Errors
    /// [`ResidentError::NoFrame`] without an open frame, [`ResidentError::Stale`] when the
    /// grid's layer was destroyed; a tileset freed since the grid was made (the CPU path's
    /// [`crate::QuadError`], as [`ResidentError::Quad`]). Nothing is drawn then.
    pub fn draw(&self, batcher: &mut Batcher, view_px: [f32; 4], style: &ResidentStyle) -> Result<(), TilemapError> {
        if !batcher.frame_open() {
            return Err(ResidentError::NoFrame.into());
        }
        let Some(cells) = self.cells_in_view(view_px) else { return Ok(()) };
        if let Some(layer) = self.layer {
            // One draw, or a draw a band of the view where one pass cannot test it all.
            let max_cells = (batcher.budget().max_cell_bytes / u64::from(Instance::BYTES)).max(1);
            let [x0, y0, x1, y1] = cells;
            let cols = (x1 - x0).min(GridDraw::MAX_SIDE_CELLS).min(max_cells.min(u64::from(u32::MAX)) as u32).max(1);
            let rows = (y1 - y0).min(GridDraw::MAX_SIDE_CELLS).min((max_cells / u64::from(cols)).max(1) as u32).max(1);
            for y in (y0..y1).step_by(rows as usize) {
                for x in (x0..x1).step_by(cols as usize) {
                    let cells = [x, y, (x + cols).min(x1), (y + rows).min(y1)];
                    let grid = GridDraw { cells, width: self.size[0], tile_px: self.tile_px };
                    batcher.draw_resident_grid(layer, grid, style)?;
                }
            }
            return Ok(());
        }
        if !style.visible {
            return Ok(());
        }
        batcher.push_styled(style);
        let [x0, y0, x1, y1] = cells;
        let mut pushed = Ok(());
        'rows: for y in y0..y1 {
            for x in x0..x1 {
                let id = self.ids[y as usize * self.size[0] as usize + x as usize];
                if id == 0 {
                    continue;
                }
                let mut quad = self.table_quad(id);
                quad.origin = [x as f32 * self.tile_px, y as f32 * self.tile_px];
                if let Err(error) = batcher.push(&quad) {
                    pushed = Err(ResidentError::Quad { index: (y * self.size[0] + x) as usize, error });
                    break 'rows;
                }
            }
        }
        batcher.restore_state();
        Ok(pushed?)
    }

    /// Moves the animations `dt_s` seconds on: each animation whose frame changed changes the
    /// quad of its id (one quad written on the GPU path). Returns the animations changed.
    ///
    /// # Errors
    /// The resident layer's (a tileset freed).
    pub fn advance(&mut self, batcher: &mut Batcher, dt_s: f32) -> Result<usize, TilemapError> {
        if dt_s.is_finite() && dt_s > 0.0 {
            self.time_s += f64::from(dt_s);
        }
        let mut changed = Vec::new();
        for (a, (id, frames, frame_s)) in self.table.animations().enumerate() {
            let frame = (self.time_s / f64::from(frame_s)) as usize % frames.len();
            if frame != self.shown[a] {
                changed.push((a, id, frame));
            }
        }
        for &(a, id, frame) in &changed {
            self.shown[a] = frame;
            if let Some(layer) = self.layer {
                batcher.textures().update_resident(layer, id - 1, &[self.table_quad(id)])?;
            }
        }
        Ok(changed.len())
    }

    /// The quads of the tiles [`TileGrid::draw`] draws for `view_px` on the CPU path (every
    /// tile under the view; the GPU path draws those of them that show): a reference.
    ///
    /// # Errors
    /// [`ResidentError::Stale`] when the batcher no longer holds the grid's layer.
    pub fn quads_in_view(&self, batcher: &Batcher, view_px: [f32; 4], out: &mut Vec<Quad>) -> Result<(), TilemapError> {
        out.clear();
        let ids = self.ids(batcher)?;
        let Some([x0, y0, x1, y1]) = self.cells_in_view(view_px) else { return Ok(()) };
        for y in y0..y1 {
            for x in x0..x1 {
                let id = ids[y as usize * self.size[0] as usize + x as usize];
                if id != 0 {
                    let mut quad = self.table_quad(id);
                    quad.origin = [x as f32 * self.tile_px, y as f32 * self.tile_px];
                    out.push(quad);
                }
            }
        }
        Ok(())
    }

    /// Ends the grid: on the GPU path its layer and cells leave the device with the next
    /// plan (after the plans that draw it), and their bytes return to the budget.
    ///
    /// # Errors
    /// [`ResidentError::Stale`] when the batcher no longer holds the grid's layer.
    pub fn destroy(self, batcher: &mut Batcher) -> Result<(), TilemapError> {
        match self.layer {
            Some(layer) => Ok(batcher.textures().destroy_resident(layer)?),
            None => Ok(()),
        }
    }

    /// Tile `id`'s quad at the grid's origin: its place, or its animation's frame's now.
    fn table_quad(&self, id: u32) -> Quad {
        let shown = self.table.animations().zip(&self.shown).find(|((a, ..), _)| *a == id);
        let id = shown.map_or(id, |((_, frames, _), &f)| frames[f]);
        let (texture, uv) = match self.table.get(id) {
            Some(def) => (def.texture, def.uv),
            None => (TextureId { index: 0, generation: 0, batcher: 0 }, [0.0; 4]),
        };
        Quad::rect(texture, [0.0, 0.0], [self.tile_px, self.tile_px]).with_uv(uv)
    }
}
