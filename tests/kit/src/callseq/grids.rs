//! The calls on a tile grid ([`TileGrid`]: made, drawn through windows, cells set, animated,
//! destroyed), with what the model expects of them. On a device that culls on the GPU (the
//! `desktop` setup) the grid is a layer with cells on the device: the tiles the mock device's
//! culling drew must be exactly the non-empty cells of the windows drawn whose tile shows
//! (by the model's own arithmetic), each sampling its tileset, with cells set after a plan of
//! the host frame drew the grid shown from the next host frame on. Elsewhere the grid pushes
//! its tiles: they join the frame's pushed quads and the model's checks of those.

use layerbatch_core::plan::{ResidentOp, ResourceOp};
use layerbatch_core::tilegrid::TileGrid;
use layerbatch_core::tilemap::TilemapError;
use layerbatch_core::{MockDevice, ResidentError, ResidentId, ResidentStyle, TextureId};

use super::ops::trace;
use super::{Choices, World, CELL_PX};

/// A grid's size in cells.
const SIZE: [u32; 2] = [12, 9];
/// Seconds an animation frame lasts; the clock advances by eighths.
const FRAME_S: f32 = 0.25;

/// The grid, its tilesets, and what the device shows of it.
#[derive(Debug)]
pub(super) struct GridState {
    grid: TileGrid,
    /// The still tileset (id 1) and the two frames of the animated id 2.
    pub(super) sets: [TextureId; 3],
    /// The cells as set.
    ids: Vec<u32>,
    /// The cells the device holds (the GPU path: set cells wait for the next host frame when
    /// a plan of this one drew the grid), and whether the next plan writes them whole.
    shown: Vec<u32>,
    fresh: bool,
    /// The animation's clock in eighths of a second; the frame the table shows, and one
    /// parked until the host frame ends (the GPU path).
    eighths: u64,
    frame: usize,
    parked: Option<usize>,
    /// Windows drawn in the open frame, `[x0, y0, x1, y1]` cells, with the transform then.
    pub(super) drawn: Vec<([u32; 4], [f32; 6])>,
}

impl GridState {
    /// The tileset cell value `id` samples, under animation frame `frame`.
    fn set_of(&self, id: u32, frame: usize) -> TextureId {
        if id == 1 {
            self.sets[0]
        } else {
            self.sets[1 + frame]
        }
    }
}

/// Whether cell `[x, y]`'s tile shows under `t` in a viewport of `[w, h]` pixels: its
/// corners' box overlaps it (the model's arithmetic).
fn shows([x, y]: [u32; 2], t: [f32; 6], [w, h]: [f32; 2]) -> bool {
    let [a, b, c, d, tx, ty] = t;
    let side = CELL_PX as f32;
    let (x0, y0) = (x as f32 * side, y as f32 * side);
    let corners = [[x0, y0], [x0 + side, y0], [x0, y0 + side], [x0 + side, y0 + side]];
    let p = corners.map(|[u, v]| [a * u + c * v + tx, b * u + d * v + ty]);
    let lo = |k: usize| p.iter().map(|q| q[k]).fold(f32::INFINITY, f32::min);
    let hi = |k: usize| p.iter().map(|q| q[k]).fold(f32::NEG_INFINITY, f32::max);
    lo(0) < w && hi(0) > 0.0 && lo(1) < h && hi(1) > 0.0
}

impl World {
    pub(super) fn grid(&mut self, c: &mut dyn Choices) -> Result<(), String> {
        if self.grid.is_none() {
            return self.make_grid(c);
        }
        match c.below(8) {
            0..=3 => self.draw_grid(c),
            4 | 5 => self.set_grid_tiles(c),
            6 => self.advance_grid(c),
            _ => self.destroy_grid(),
        }
    }

    fn make_grid(&mut self, c: &mut dyn Choices) -> Result<(), String> {
        let Some((sets, table)) = self.tile_table(c, FRAME_S)? else { return Ok(()) };
        let ids: Vec<u32> = (0..SIZE[0] * SIZE[1]).map(|_| c.below(3) as u32).collect();
        match TileGrid::new(&mut self.batcher, &table, SIZE, CELL_PX as f32, &ids) {
            Ok(grid) => {
                let gpu = self.batcher.budget().max_cell_bytes >= u64::from(SIZE[0] * SIZE[1]) * 4;
                if grid.on_gpu() != gpu {
                    return Err(format!("a grid on the GPU: {}, the budget says {gpu}", grid.on_gpu()));
                }
                trace(|| format!("TileGrid::new on the GPU: {gpu}, layer {:?}", grid.layer()));
                let shown = ids.clone();
                let (eighths, frame, parked, drawn) = (0, 0, None, Vec::new());
                self.grid = Some(GridState { grid, sets, ids, shown, fresh: true, eighths, frame, parked, drawn });
                Ok(())
            }
            Err(TilemapError::Resident(ResidentError::OverBudget { .. })) => Ok(()),
            Err(e) => Err(format!("TileGrid::new: {e}")),
        }
    }

    fn draw_grid(&mut self, c: &mut dyn Choices) -> Result<(), String> {
        let open = self.model.frame.open;
        let transform = self.batcher.state().draw_state().transform;
        let Some(g) = &mut self.grid else { return Ok(()) };
        let side = CELL_PX as f32;
        // A window of the grid, reaching past its edges sometimes.
        let (x, y) = (c.below(u64::from(SIZE[0]) + 2) as f32 - 1.0, c.below(u64::from(SIZE[1]) + 2) as f32 - 1.0);
        let (w, h) = (1 + c.below(u64::from(SIZE[0])), 1 + c.below(u64::from(SIZE[1])));
        let view = [x * side + 0.5, y * side + 0.5, w as f32 * side - 1.0, h as f32 * side - 1.0];
        let r = g.grid.draw(&mut self.batcher, view, &ResidentStyle::default());
        trace(|| format!("grid draw {view:?} (cells {:?}): {r:?}", g.grid.cells_in_view(view)));
        match r {
            Err(TilemapError::Resident(ResidentError::NoFrame)) if !open => {
                self.tally.refused += 1;
                return Ok(());
            }
            Err(e) => return Err(format!("grid draw: {e}")),
            Ok(()) if !open => return Err("a grid drawn without a frame".to_string()),
            Ok(()) => {}
        }
        // The cells under the window, by the model's arithmetic.
        let (x0, y0) = ((x as i64).max(0) as u32, (y as i64).max(0) as u32);
        let (x1, y1) = (
            (x as i64 + w as i64).min(i64::from(SIZE[0])) as u32,
            (y as i64 + h as i64).min(i64::from(SIZE[1])) as u32,
        );
        if x1 <= x0 || y1 <= y0 {
            return Ok(());
        }
        let cells = [x0, y0, x1, y1];
        if g.grid.on_gpu() {
            g.drawn.push((cells, transform));
            return Ok(());
        }
        // The CPU path pushed the tiles under the window, as quads of the tilesets shown now.
        let [x0, y0, x1, y1] = cells;
        for y in y0..y1 {
            for x in x0..x1 {
                let id = g.ids[(y * SIZE[0] + x) as usize];
                if id != 0 {
                    self.model.frame.pushed.push((g.set_of(id, g.frame), 0, false));
                }
            }
        }
        Ok(())
    }

    fn set_grid_tiles(&mut self, c: &mut dyn Choices) -> Result<(), String> {
        let Some(g) = &mut self.grid else { return Ok(()) };
        let (x, y) = (c.below(u64::from(SIZE[0])) as u32, c.below(u64::from(SIZE[1])) as u32);
        let (w, h) = (1 + c.below(u64::from(SIZE[0] - x)) as u32, 1 + c.below(u64::from(SIZE[1] - y)) as u32);
        // Misuse, sometimes: a rectangle past the grid, an id past the table.
        let misuse = c.below(6);
        let (w, bad_id) = (if misuse == 0 { w + SIZE[0] } else { w }, misuse == 1);
        let ids: Vec<u32> = (0..w * h).map(|_| if bad_id { 4 } else { c.below(3) as u32 }).collect();
        let r = g.grid.set_tiles(&mut self.batcher, [x, y], [w, h], &ids);
        trace(|| format!("grid set_tiles {x},{y} {w}x{h}: {r:?}"));
        match r {
            Err(TilemapError::Shape { .. }) if misuse == 0 => self.tally.refused += 1,
            Err(TilemapError::UnknownTile { id: 4, .. }) if bad_id => self.tally.refused += 1,
            Ok(()) if misuse > 1 => {
                for (k, &id) in ids.iter().enumerate() {
                    let k = k as u32;
                    g.ids[((y + k / w) * SIZE[0] + x + k % w) as usize] = id;
                }
            }
            r => return Err(format!("set_tiles: {r:?}")),
        }
        if g.grid.ids(&self.batcher).map_err(|e| format!("ids: {e}"))? != g.ids {
            return Err("the grid's cells are not those set".to_string());
        }
        Ok(())
    }

    fn advance_grid(&mut self, c: &mut dyn Choices) -> Result<(), String> {
        let layer = self.grid.as_ref().and_then(|g| g.grid.layer());
        let parks = layer.is_some_and(|l| self.parks(l) || self.host.apply_after_plan && self.grid_parked());
        let Some(g) = &mut self.grid else { return Ok(()) };
        let eighths = 1 + c.below(3);
        g.grid.advance(&mut self.batcher, eighths as f32 / 8.0).map_err(|e| format!("grid advance: {e}"))?;
        g.eighths += eighths;
        let frame = (g.eighths as f32 / 8.0 / FRAME_S) as usize % 2;
        if !g.grid.on_gpu() {
            g.frame = frame;
        } else if frame != g.parked.unwrap_or(g.frame) {
            if parks {
                g.parked = Some(frame);
            } else {
                g.frame = frame;
            }
        }
        Ok(())
    }

    fn grid_parked(&self) -> bool {
        self.grid.as_ref().is_some_and(|g| g.parked.is_some())
    }

    fn destroy_grid(&mut self) -> Result<(), String> {
        let Some(g) = &self.grid else { return Ok(()) };
        if !g.drawn.is_empty() {
            return Ok(()); // drawn in the open frame: destroyed after its plan, another time
        }
        let Some(g) = self.grid.take() else { return Ok(()) };
        // Its tilesets stay, as textures like any other.
        g.grid.destroy(&mut self.batcher).map_err(|e| format!("grid destroy: {e}"))?;
        trace(|| "grid destroyed".to_string());
        Ok(())
    }

    /// Before a plan is made: the cells the plan gives the device.
    pub(super) fn grid_before_plan(&mut self) {
        let drawn_earlier = self
            .grid
            .as_ref()
            .and_then(|g| g.grid.layer())
            .is_some_and(|l| self.host.ends_frames && self.host.drawn.contains(&l));
        if let Some(g) = &mut self.grid {
            trace(|| {
                format!("grid before the plan: drawn earlier in the host frame {drawn_earlier}, fresh {}", g.fresh)
            });
            if g.fresh || !drawn_earlier {
                g.shown.clone_from(&g.ids);
                g.fresh = false;
            }
        }
    }

    /// At the host frame's end: what was parked shows.
    pub(super) fn apply_parked_grid(&mut self) {
        if let Some(g) = &mut self.grid {
            g.frame = g.parked.take().unwrap_or(g.frame);
        }
    }

    /// A restore: the device gets the cells whole with the next plan.
    pub(super) fn restore_grid(&mut self) {
        if let Some(g) = &mut self.grid {
            g.fresh = true;
        }
    }

    /// At the run's end: the grid destroyed.
    pub(super) fn wind_down_grid(&mut self) -> Result<(), String> {
        if let Some(g) = self.grid.take() {
            g.grid.destroy(&mut self.batcher).map_err(|e| format!("grid destroy at the end: {e}"))?;
        }
        Ok(())
    }
}

/// After the mock device ran `plan`: the grid's tiles drawn (the GPU path) are the non-empty
/// cells of the windows drawn whose tile shows, each sampling its tileset. Returns the
/// grid's layer when the plan drew it.
pub(super) fn check(
    grid: &mut Option<GridState>,
    model: &super::model::Model,
    device: &MockDevice,
    plan: &layerbatch_core::FramePlan,
) -> Result<Option<ResidentId>, String> {
    {
        let Some(g) = grid else { return Ok(None) };
        let Some(layer) = g.grid.layer() else { return Ok(None) };
        // A layer made again by the plan (its textures moved while a pass of the host frame
        // drew the old buffer, a restore) gets the cells as they are, whole.
        let made = |op: &ResourceOp| matches!(op, ResourceOp::Resident(ResidentOp::Create { resident, .. }) if *resident == layer);
        if plan.ops.iter().any(made) {
            g.shown.clone_from(&g.ids);
        }
        let drawn = std::mem::take(&mut g.drawn);
        // The mock device's viewport, or the render target the frame draws into.
        let target = model.frame.target.and_then(|t| model.live.get(&t)).map(|t| [t.desc.width_px, t.desc.height_px]);
        let viewport = target.unwrap_or(MockDevice::DEFAULT_TARGET_PX).map(|v| v as f32);
        let mut want: Vec<(u32, TextureId)> = Vec::new();
        for ([x0, y0, x1, y1], t) in &drawn {
            for y in *y0..*y1 {
                for x in *x0..*x1 {
                    let id = g.shown[(y * SIZE[0] + x) as usize];
                    if id != 0 && shows([x, y], *t, viewport) {
                        want.push((y * SIZE[0] + x, g.set_of(id, g.frame)));
                    }
                }
            }
        }
        let got = device.grid_drawn(layer);
        let partial = model.frame.clipped || plan.counters.resident_draws_dropped > 0;
        let mut got_cells: Vec<u32> = got.iter().map(|d| d.0).collect();
        let mut want_cells: Vec<u32> = want.iter().map(|d| d.0).collect();
        got_cells.sort_unstable();
        want_cells.sort_unstable();
        if !partial && got_cells != want_cells {
            return Err(format!("grid tiles drawn {got_cells:?}, the model says {want_cells:?}"));
        }
        for &(cell, sampled) in got {
            let Some(&(_, set)) = want.iter().find(|w| w.0 == cell) else {
                return Err(format!("grid cell {cell} drawn, the model draws none there"));
            };
            let known = model.live.get(&set).and_then(|t| t.content);
            match sampled {
                Some((t, hash)) if t == set && known.is_none_or(|k| k == hash) => {}
                None if known.is_none() => {}
                s => return Err(format!("grid cell {cell} sampled {s:?}; its tile shows {set:?}")),
            }
        }
        let tested: u64 = drawn.iter().map(|([x0, y0, x1, y1], _)| u64::from((x1 - x0) * (y1 - y0))).sum();
        if plan.counters.resident_draws_dropped == 0 && plan.counters.grid_cells_tested != tested {
            let counted = plan.counters.grid_cells_tested;
            return Err(format!("{counted} grid cells tested, the windows drawn hold {tested}"));
        }
        Ok((!drawn.is_empty() && plan.counters.resident_draws_dropped == 0).then_some(layer))
    }
}
