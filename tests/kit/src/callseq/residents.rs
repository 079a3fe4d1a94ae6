//! The calls on resident layers and the tilemap, each with what the model expects of it.

use std::collections::BTreeSet;

use layerbatch_core::tilemap::{TileTable, Tilemap};
use layerbatch_core::{
    plan::Instance, Affine2, Filter, Quad, ResidentError, ResidentId, ResidentStyle, TextureDesc, TextureError,
    TextureId,
};

use super::model::Res;
use super::motions::sprite_quad;
use super::ops::{cell_quad, solid, trace};
use super::{Choices, World, CELL_PX, GRID};

/// Bands of the grid's top half a resident layer's quads lie in (pixel-exact runs): the last
/// is the tilemap's.
const BANDS: u32 = 4;
/// Cells in a band.
pub(super) const BAND_CELLS: u32 = GRID[0] * GRID[1] / 2 / BANDS;
/// A tilemap's size in tiles: one band, one chunk, one animated tile everywhere in pixel runs.
const MAP: [u32; 2] = [GRID[0], BAND_CELLS / GRID[0]];
/// Seconds a tile animation frame lasts; the clock advances by eighths (exact in binary).
const FRAME_S: f32 = 0.25;

/// The tilemap and its tilesets.
#[derive(Debug)]
pub(super) struct Tiles {
    pub(super) map: Tilemap,
    /// The still tileset and the two animation frames' tilesets.
    pub(super) sets: [TextureId; 3],
    /// The animation's clock in eighths of a second.
    pub(super) eighths: u64,
    /// The frame the layer shows (applied), and one parked until the host frame ends.
    pub(super) shown: usize,
    pub(super) parked: Option<usize>,
}

impl World {
    /// The cells of a new resident layer: the first free band (pixel-exact runs).
    pub(super) fn free_band(&self) -> Option<u32> {
        let used: BTreeSet<u32> =
            self.model.residents.values().filter(|r| !r.tilemap).map(|r| r.cells[0] / BAND_CELLS).collect();
        (0..BANDS - 1).find(|b| !used.contains(b))
    }

    pub(super) fn resident_quads(&mut self, c: &mut dyn Choices, cells: &[u32]) -> Option<Vec<Quad>> {
        cells.iter().map(|&cell| self.pick_drawable(c).map(|t| cell_quad(t, cell))).collect()
    }

    pub(super) fn create_resident(&mut self, c: &mut dyn Choices) -> Result<(), String> {
        let Some(band) = self.free_band() else { return Ok(()) };
        let n = 1 + c.below(u64::from(BAND_CELLS)) as u32;
        let cells: Vec<u32> = (band * BAND_CELLS..band * BAND_CELLS + n).collect();
        let Some(quads) = self.resident_quads(c, &cells) else { return Ok(()) };
        if c.chance(30) {
            return self.create_moving(&quads, cells);
        }
        match self.batcher.textures().create_resident(&quads) {
            Ok(id) => {
                let quads = quads.iter().map(|q| q.texture).collect();
                trace(|| format!("create_resident {id:?} {quads:?}"));
                let res = Res { quads, parked: Vec::new(), cells, tilemap: false, moves: None };
                self.model.residents.insert(id, res);
                Ok(())
            }
            Err(ResidentError::OverBudget { .. } | ResidentError::TooManyArrays { .. }) => {
                self.tally.refused += 1;
                Ok(())
            }
            Err(e) => Err(format!("create_resident: {e}")),
        }
    }

    pub(super) fn pick_resident(&self, c: &mut dyn Choices) -> Option<ResidentId> {
        let ids: Vec<ResidentId> = self.model.residents.iter().filter(|r| !r.1.tilemap).map(|r| *r.0).collect();
        (!ids.is_empty()).then(|| ids[c.below(ids.len() as u64) as usize])
    }

    /// Whether an update of `id` now parks until the host frame ends.
    pub(super) fn parks(&self, id: ResidentId) -> bool {
        let behind = self.host.apply_after_plan && self.model.residents.get(&id).is_some_and(|r| !r.parked.is_empty());
        let tiles_behind = self.host.apply_after_plan
            && self.tiles.as_ref().is_some_and(|t| t.parked.is_some() && t.map.layer() == id);
        (self.host.ends_frames && self.host.drawn.contains(&id)) || behind || tiles_behind
    }

    pub(super) fn update_resident(&mut self, c: &mut dyn Choices) -> Result<(), String> {
        let Some(id) = self.pick_resident(c) else { return Ok(()) };
        let len = self.model.residents[&id].quads.len() as u32;
        let first = c.below(u64::from(len)) as u32;
        let count = 1 + c.below(u64::from(len - first)) as u32;
        let cells = self.model.residents[&id].cells[first as usize..(first + count) as usize].to_vec();
        let Some(mut quads) = self.resident_quads(c, &cells) else { return Ok(()) };
        if self.model.residents[&id].moves.is_some() {
            quads = quads.iter().map(|q| sprite_quad(q.texture)).collect();
        }
        let target = self.model.frame.target;
        let into_target = !self.setup.pixel_exact && target.is_some() && c.chance(10);
        if let (true, Some(t)) = (into_target, target) {
            quads[0].texture = t;
        }
        let drawn_now = self.model.frame.drawn.iter().any(|d| d.0 == id);
        let parks = self.parks(id);
        trace(|| {
            format!(
                "update_resident {id:?} {first}+{count} parks {parks} drawn now {drawn_now} into target {into_target}"
            )
        });
        match self.batcher.textures().update_resident(id, first, &quads) {
            Ok(()) if !(into_target && drawn_now && !parks) => {
                let textures = quads.iter().map(|q| q.texture).collect::<Vec<_>>();
                let r = self.model.residents.get_mut(&id).ok_or("no such resident")?;
                if parks {
                    r.parked.push((first, textures));
                } else {
                    r.quads[first as usize..(first + count) as usize].copy_from_slice(&textures);
                }
                Ok(())
            }
            Err(ResidentError::SamplesTarget { .. }) if into_target && drawn_now && !parks => {
                self.tally.refused += 1;
                Ok(())
            }
            Err(ResidentError::TooManyArrays { .. }) => {
                self.tally.refused += 1;
                Ok(())
            }
            r => Err(format!("update_resident {id:?} {first}+{count} (parks {parks}): {r:?}")),
        }
    }

    pub(super) fn replace_resident(&mut self, c: &mut dyn Choices) -> Result<(), String> {
        let Some(id) = self.pick_resident(c) else { return Ok(()) };
        let band = self.model.residents[&id].cells[0] / BAND_CELLS;
        let n = 1 + c.below(u64::from(BAND_CELLS)) as u32;
        let cells: Vec<u32> = (band * BAND_CELLS..band * BAND_CELLS + n).collect();
        let Some(mut quads) = self.resident_quads(c, &cells) else { return Ok(()) };
        let moving = self.model.residents[&id].moves.is_some();
        if moving {
            quads = quads.iter().map(|q| sprite_quad(q.texture)).collect();
        }
        match self.batcher.textures().replace_resident(id, &quads) {
            Ok(()) => {
                trace(|| format!("replace_resident {id:?} with {} quads", quads.len()));
                let textures = quads.iter().map(|q| q.texture).collect();
                let res = Res { quads: textures, parked: Vec::new(), cells, tilemap: false, moves: None };
                self.model.residents.insert(id, res);
                if moving {
                    // New sprites start at rest (the grid's corner): the host places them all.
                    self.place_sprites(id)?;
                }
                Ok(())
            }
            Err(ResidentError::OverBudget { .. } | ResidentError::TooManyArrays { .. }) => {
                self.tally.refused += 1;
                Ok(())
            }
            Err(e) => Err(format!("replace_resident {id:?}: {e}")),
        }
    }

    pub(super) fn destroy_resident(&mut self, c: &mut dyn Choices) -> Result<(), String> {
        let Some(id) = self.pick_resident(c) else { return Ok(()) };
        self.batcher.textures().destroy_resident(id).map_err(|e| format!("destroy_resident {id:?}: {e}"))?;
        trace(|| format!("destroy_resident {id:?}"));
        if let Some(r) = self.model.residents.remove(&id) {
            if self.model.frame.drawn.iter().any(|d| d.0 == id) {
                // The frame's plan still draws it, and its textures stay sampled until then.
                self.model.frame.doomed.push((id, r));
            }
        }
        match self.batcher.textures().destroy_resident(id) {
            Err(ResidentError::Stale(s)) if s == id => Ok(()),
            r => Err(format!("destroying {id:?} twice: {r:?}")),
        }
    }

    /// The drawing state's look now, as a look word: what a resident draw made now carries.
    fn look_now(&mut self) -> u32 {
        let (effect, _) = self.batcher.state().effect();
        let lit = if self.batcher.state().lit() { Instance::EFFECT_LIT } else { 0 };
        let [r, g, b] = self.batcher.state().color_offset();
        u32::from(effect.index()) | lit | u32::from_le_bytes([0, r, g, b])
    }

    pub(super) fn draw_residents(&mut self, c: &mut dyn Choices) -> Result<(), String> {
        if !self.model.frame.open {
            return Ok(());
        }
        let Some(id) = self.pick_resident(c) else { return Ok(()) };
        let pixel = self.setup.pixel_exact;
        if pixel && (self.model.frame.drawn.iter().any(|d| d.0 == id) || self.model.frame.target.is_some()) {
            return Ok(());
        }
        let len = self.model.residents[&id].quads.len() as u32;
        let (start, end) = if c.chance(50) {
            (0, len)
        } else {
            let s = c.below(u64::from(len)) as u32;
            (s, s + c.below(u64::from(len - s) + 1) as u32)
        };
        let mut style = ResidentStyle::default();
        if !pixel && c.chance(30) {
            style = style.with_transform(Affine2::translation(c.below(50) as f32, 3.0)).with_tint([0.5; 4]);
        }
        if !pixel && c.chance(20) {
            style = style.with_clip(Some([0, 0, c.below(300) as u32, 200]));
            self.model.frame.clipped = true;
        }
        // An empty range draws nothing, and nothing is checked.
        let samples_target =
            self.model.frame.target.filter(|t| start < end && self.model.residents[&id].quads.contains(t));
        match (self.batcher.draw_resident_range(id, start..end, &style), samples_target) {
            (Ok(()), None) => {
                if start < end {
                    trace(|| format!("draw_resident_range {id:?} {start}..{end}"));
                    let look = self.look_now();
                    self.model.frame.drawn.push((id, start..end, look));
                }
                Ok(())
            }
            (Err(ResidentError::SamplesTarget { texture, .. }), Some(t)) if texture == t => {
                self.tally.refused += 1;
                Ok(())
            }
            (r, t) => {
                Err(format!("draw_resident_range {id:?} {start}..{end}: {r:?}, the model's target sampled: {t:?}"))
            }
        }
    }

    pub(super) fn tilemap(&mut self, c: &mut dyn Choices) -> Result<(), String> {
        let look = self.look_now();
        let Some(tiles) = &mut self.tiles else { return self.make_tilemap(c) };
        let layer = tiles.map.layer();
        match c.below(3) {
            0 if self.model.frame.open && !(self.setup.pixel_exact && self.model.frame.target.is_some()) => {
                if self.setup.pixel_exact && self.model.frame.drawn.iter().any(|d| d.0 == layer) {
                    return Ok(());
                }
                let origin = ((BANDS - 1) * BAND_CELLS / GRID[0] * CELL_PX) as f32;
                let style = ResidentStyle::default().with_transform(Affine2::translation(0.0, origin));
                // The whole map, or a window of it (a view narrower than the map is drawn a
                // row of chunks at a time when that halves the tiles).
                let cell = CELL_PX as f32;
                let view = if c.below(2) == 0 {
                    [0.0, 0.0, MAP[0] as f32 * cell, MAP[1] as f32 * cell]
                } else {
                    let (x, y) = (c.below(u64::from(MAP[0])) as f32, c.below(u64::from(MAP[1])) as f32);
                    let w = 1 + c.below(u64::from(MAP[0]) - x as u64);
                    let h = 1 + c.below(u64::from(MAP[1]) - y as u64);
                    [x * cell + 0.5, y * cell + 0.5, w as f32 * cell - 1.0, h as f32 * cell - 1.0]
                };
                tiles.map.draw(&mut self.batcher, view, &style).map_err(|e| format!("tilemap draw: {e}"))?;
                let runs = tiles.map.drawn_runs(view).map(|run| (layer, run, look));
                self.model.frame.drawn.extend(runs);
            }
            _ => {
                let eighths = 1 + c.below(3);
                tiles.map.advance(&mut self.batcher, eighths as f32 / 8.0).map_err(|e| format!("advance: {e}"))?;
                tiles.eighths += eighths;
                let frame = (tiles.eighths as f32 / 8.0 / FRAME_S) as usize % 2;
                if frame != tiles.parked.unwrap_or(tiles.shown) {
                    if self.parks(layer) {
                        if let Some(t) = &mut self.tiles {
                            t.parked = Some(frame);
                        }
                    } else if let Some(t) = &mut self.tiles {
                        t.shown = frame;
                    }
                }
            }
        }
        Ok(())
    }

    /// Three solid 8 x 8 tilesets of known colours and the table of their one tile each: id 1
    /// still, id 2 animated between tiles 2 and 3 every `frame_s`; `None` when the budget
    /// holds no more textures.
    pub(super) fn tile_table(
        &mut self,
        c: &mut dyn Choices,
        frame_s: f32,
    ) -> Result<Option<([TextureId; 3], TileTable)>, String> {
        let desc = TextureDesc::new(8, 8).with_filter(Filter::Nearest);
        let mut sets = Vec::new();
        for _ in 0..3 {
            let color = self.color(c);
            let px = solid(&desc, color);
            match self.batcher.textures().register(&desc, &px) {
                Ok(id) => {
                    self.model.written(id, desc, &px, Some(color));
                    sets.push(id);
                }
                Err(TextureError::BudgetExhausted { .. }) => return Ok(None),
                Err(e) => return Err(format!("tileset: {e}")),
            }
        }
        let sets = [sets[0], sets[1], sets[2]];
        let mut table = TileTable::new();
        for s in sets {
            table.push(s, [0.0, 0.0, 8.0, 8.0], [8, 8]);
        }
        table.animate(2, &[2, 3], frame_s).map_err(|e| format!("animate: {e}"))?;
        Ok(Some((sets, table)))
    }

    pub(super) fn make_tilemap(&mut self, c: &mut dyn Choices) -> Result<(), String> {
        let Some((sets, table)) = self.tile_table(c, FRAME_S)? else { return Ok(()) };
        let pixel = self.setup.pixel_exact;
        let ids: Vec<u32> = (0..MAP[0] * MAP[1]).map(|_| if pixel || c.chance(50) { 2 } else { 1 }).collect();
        let chunk = if pixel { MAP[0] } else { 1 + c.below(8) as u32 };
        match Tilemap::new(&mut self.batcher, &table, MAP, CELL_PX as f32, chunk, &ids) {
            Ok(map) => {
                let origin = (BANDS - 1) * BAND_CELLS;
                let res = Res {
                    quads: ids.iter().map(|&i| sets[i as usize - 1]).collect(),
                    parked: Vec::new(),
                    cells: (origin..origin + MAP[0] * MAP[1]).collect(),
                    tilemap: true,
                    moves: None,
                };
                self.model.residents.insert(map.layer(), res);
                self.tiles = Some(Tiles { map, sets, eighths: 0, shown: 0, parked: None });
                Ok(())
            }
            Err(layerbatch_core::tilemap::TilemapError::Resident(ResidentError::OverBudget { .. })) => Ok(()),
            Err(e) => Err(format!("Tilemap::new: {e}")),
        }
    }
}
