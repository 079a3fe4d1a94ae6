//! Moving layers in the model: made with `create_moving` (each quad a cell's size at its
//! pivot), placed and moved by `move_sprites` or `motions_mut` to cells of their own band,
//! misuse included. After every plan the mock device's motions must be exactly where the host
//! moved the sprites, or, for a layer a plan of the same host frame drew before, exactly where
//! they were (its motions wait for the next host frame, unless this plan makes its motion
//! texture anew); the picture follows the device.

use layerbatch_core::plan::{ResidentOp, ResourceOp};
use layerbatch_core::{Motion, Quad, ResidentError, ResidentId, TextureId};

use super::model::{Moves, Res};
use super::ops::trace;
use super::residents::BAND_CELLS;
use super::{Choices, World, CELL_PX, GRID};

/// A moving sprite's quad: a cell's size, its corner at the pivot.
pub(super) fn sprite_quad(t: TextureId) -> Quad {
    Quad::rect(t, [0.0, 0.0], [CELL_PX as f32; 2])
}

/// The cell of a sprite whose motion the host wrote in place as NaN: drawn as nothing.
pub(super) const NO_CELL: u32 = u32::MAX;

/// The motion that puts a sprite on `cell` ([`Motion::NOTHING`] for [`NO_CELL`]).
fn cell_motion(cell: u32) -> Motion {
    if cell == NO_CELL {
        return Motion::NOTHING;
    }
    Motion::at([(cell % GRID[0] * CELL_PX) as f32, (cell / GRID[0] * CELL_PX) as f32])
}

/// Core reports the motion the host set for a sprite on `cell`: for [`NO_CELL`] the NaN the
/// host wrote in place, or [`Motion::NOTHING`] once core checked it when it planned (a
/// budget without `staged_motion_writes`).
fn reported(kept: &Motion, cell: u32) -> bool {
    match cell {
        NO_CELL => !kept.is_finite() || *kept == Motion::NOTHING,
        _ => *kept == cell_motion(cell),
    }
}

impl World {
    /// `quads` (made on `cells`) as a moving layer, each sprite then moved onto its cell.
    pub(super) fn create_moving(&mut self, quads: &[Quad], cells: Vec<u32>) -> Result<(), String> {
        let sprites: Vec<Quad> = quads.iter().map(|q| sprite_quad(q.texture)).collect();
        match self.batcher.textures().create_moving(&sprites) {
            Ok(id) => {
                let quads = sprites.iter().map(|q| q.texture).collect();
                trace(|| format!("create_moving {id:?} {quads:?}"));
                let res = Res { quads, parked: Vec::new(), cells, tilemap: false, moves: None };
                self.model.residents.insert(id, res);
                self.place_sprites(id)
            }
            Err(ResidentError::OverBudget { .. } | ResidentError::TooManyArrays { .. }) => {
                self.tally.refused += 1;
                Ok(())
            }
            Err(e) => Err(format!("create_moving: {e}")),
        }
    }

    /// Moves every sprite of moving layer `id` onto its own cell (as made, or replaced).
    pub(super) fn place_sprites(&mut self, id: ResidentId) -> Result<(), String> {
        let r = self.model.residents.get_mut(&id).ok_or("no such resident")?;
        let motions: Vec<Motion> = r.cells.iter().map(|&c| cell_motion(c)).collect();
        self.batcher.textures().move_sprites(id, 0, &motions).map_err(|e| format!("placing {id:?}: {e}"))?;
        let shown = r.moves.as_ref().map_or_else(|| r.cells.clone(), |m| m.shown.clone());
        let mut shown = shown;
        shown.resize(r.cells.len(), r.cells[0]);
        r.moves = Some(Moves { shown, want: r.cells.clone() });
        Ok(())
    }

    /// `move_sprites` on a range of a layer: to random cells of its band, or misused (a NaN, a
    /// range past the end, a layer that does not move).
    pub(super) fn move_sprites(&mut self, c: &mut dyn Choices) -> Result<(), String> {
        let Some(id) = self.pick_resident(c) else { return Ok(()) };
        let r = &self.model.residents[&id];
        let len = r.quads.len() as u32;
        let band = r.cells[0] / BAND_CELLS;
        let first = c.below(u64::from(len)) as u32;
        let count = 1 + c.below(u64::from(len - first)) as u32;
        let cells: Vec<u32> = (0..count).map(|_| band * BAND_CELLS + c.below(u64::from(BAND_CELLS)) as u32).collect();
        let mut motions: Vec<Motion> = cells.iter().map(|&cell| cell_motion(cell)).collect();
        let misuse = c.below(10);
        let first = if misuse == 0 { len - count + 1 } else { first };
        if misuse == 1 {
            motions[count as usize / 2].position[1] = f32::NAN;
        }
        let moving = r.moves.is_some();
        if misuse >= 6 && moving {
            return self.move_in_place(id, first, &cells, misuse == 9);
        }
        let result = self.batcher.textures().move_sprites(id, first, &motions);
        trace(|| format!("move_sprites {id:?} {first}+{count} misuse {misuse}: {result:?}"));
        match (result, misuse, moving) {
            (Err(ResidentError::NotMoving(n)), _, false) if n == id => self.tally.refused += 1,
            (Err(ResidentError::OutOfRange { .. }), 0, true) => self.tally.refused += 1,
            (Err(ResidentError::BadMotion { index, .. }), 1, true) if index == count as usize / 2 => {
                self.tally.refused += 1;
            }
            (Ok(()), 2.., true) => {
                let m = self.model.residents.get_mut(&id).and_then(|r| r.moves.as_mut()).ok_or("not moving")?;
                m.want[first as usize..(first + count) as usize].copy_from_slice(&cells);
            }
            (r, misuse, moving) => {
                return Err(format!("move_sprites {id:?} {first}+{count} (misuse {misuse}, moving {moving}): {r:?}"))
            }
        }
        Ok(())
    }

    /// `motions_mut` of sprites `first..` onto `cells` (the zero-copy form of `move_sprites`),
    /// the middle one NaN when `poison`: that sprite then draws as nothing ([`NO_CELL`]),
    /// whether core checks it when it plans or the device's copy does.
    fn move_in_place(&mut self, id: ResidentId, first: u32, cells: &[u32], poison: bool) -> Result<(), String> {
        let range = first..first + cells.len() as u32;
        let mut cells = cells.to_vec();
        if poison {
            let middle = cells.len() / 2;
            cells[middle] = NO_CELL;
        }
        let slots = self.batcher.textures().motions_mut(id, range.clone()).map_err(|e| format!("motions_mut: {e}"))?;
        for (m, &cell) in slots.iter_mut().zip(&cells) {
            *m = if cell == NO_CELL { Motion::at([f32::NAN, 0.0]) } else { cell_motion(cell) };
        }
        trace(|| format!("motions_mut {id:?} {range:?} poison {poison}"));
        let cells = &cells[..];
        let m = self.model.residents.get_mut(&id).and_then(|r| r.moves.as_mut()).ok_or("not moving")?;
        m.want[range.start as usize..range.end as usize].copy_from_slice(cells);
        Ok(())
    }

    /// After a plan ran on the mock: every moving layer's sprites where the host moved them
    /// (or, for a layer a plan of this host frame drew before, where they were), as the mock
    /// holds them and as `motions` reports them.
    pub(super) fn check_motions(&mut self) -> Result<(), String> {
        // Motion textures this plan makes: written whole, whatever drew their layers before.
        let fresh: Vec<ResidentId> = (self.batcher.plan().ops.iter())
            .filter_map(|op| match op {
                ResourceOp::Resident(ResidentOp::Create { resident, moving: true, .. }) => Some(*resident),
                _ => None,
            })
            .collect();
        let waits = |id: &ResidentId| self.host.ends_frames && self.host.drawn.contains(id) && !fresh.contains(id);
        // Where a plan of the host frame left draws out, core may not count a layer drawn:
        // its sprites may be where the host moved them.
        let exact = !self.host.dropped;
        let mut seen = Vec::new();
        for (id, r) in &self.model.residents {
            let Some(m) = &r.moves else { continue };
            let kept = self.batcher.textures().motions(*id).map_err(|e| format!("motions of {id:?}: {e}"))?;
            if kept.len() != m.want.len() || kept.iter().zip(&m.want).any(|(k, &w)| !reported(k, w)) {
                return Err(format!("moving layer {id:?}: motions reported are not the host's"));
            }
            let mut shown = Vec::with_capacity(m.want.len());
            for (k, (&was, &want)) in m.shown.iter().zip(&m.want).enumerate() {
                let on_device = self.device.motion(*id, k as u32);
                // Exactly where the host moved it, or where it was when its move waits.
                let expected = if waits(id) { was } else { want };
                let cell = [expected, want, was].into_iter().find(|&c| on_device == Some(cell_motion(c)));
                match cell {
                    Some(c) if c == expected || (waits(id) && !exact) => shown.push(c),
                    _ => {
                        return Err(format!(
                            "moving layer {id:?} sprite {k}: the device has {on_device:?}, the host moved it to cell \
                             {want} (was {was}; waits {})",
                            waits(id)
                        ))
                    }
                }
            }
            seen.push((*id, shown));
        }
        for (id, shown) in seen {
            if let Some(m) = self.model.residents.get_mut(&id).and_then(|r| r.moves.as_mut()) {
                m.shown = shown;
            }
        }
        Ok(())
    }
}
