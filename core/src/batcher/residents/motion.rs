//! Moving resident layers: a layer whose quads each have a [`Motion`] (16 bytes) that the host
//! changes every frame, streamed into the layer's motion texture, while the quads (the static
//! half) stay in its buffer, written only when they change.
//!
//! Core keeps every motion (the truth a motion texture is written from, after a restore too)
//! and the range the host changed since the last plan wrote them; each plan writes that range
//! ([`ResidentOp::Move`]), unless a plan of the same host frame already drew the layer (a queue
//! write would land under that plan's pass, wgpu): then it waits for the next host frame.
//!
//! A plan that writes one layer whole (a frame that moves every sprite) is lent the layer's
//! vector as its [`crate::FramePlan::motions`] instead of a copy, and core takes it back before
//! the motions are next read or changed: a frame of moving sprites costs core no copy.

use std::ops::Range;

use crate::batcher::Batcher;
use crate::motion::{motion_texture_size, MOTION_ROW_TEXELS};
use crate::plan::{ResidentId, ResidentOp, ResourceOp};
use crate::{first_non_finite, Motion, Quad, ResidentError};

/// A moving layer's motions, and what of them the device does not have yet.
#[derive(Debug)]
pub(in crate::batcher) struct Moving {
    /// Every sprite's motion (empty while lent to the plan: [`Batcher::reclaim_motions`]).
    motions: Vec<Motion>,
    /// Sprites the layer holds.
    sprites: u32,
    /// Sprites changed since the last write (empty: none).
    dirty: Range<u32>,
    /// Some of `dirty` was written in place ([`Batcher::motions_mut`]): checked when planned.
    unchecked: bool,
    /// The motion texture is created by a plan not made yet: it is written whole by that plan,
    /// whatever drew the layer before.
    fresh: bool,
}

impl Moving {
    /// `sprites` motions at rest ([`Motion::default`]).
    pub(super) fn new(sprites: usize) -> Self {
        let motions = vec![Motion::default(); sprites];
        Self { motions, sprites: sprites as u32, dirty: 0..0, unchecked: false, fresh: true }
    }

    /// Another number of sprites: the first motions kept, new ones at rest (not lent).
    pub(super) fn resize(&mut self, sprites: usize) {
        self.motions.resize(sprites, Motion::default());
        self.sprites = sprites as u32;
    }

    /// Its motion texture is (re-)created by the next plan: written whole.
    pub(super) fn created(&mut self) {
        self.fresh = true;
        self.dirty = 0..self.sprites;
    }

    fn touch(&mut self, range: Range<u32>) {
        self.dirty = super::widened(&self.dirty, range);
    }
}

impl Batcher {
    pub(crate) fn create_moving(&mut self, quads: &[Quad]) -> Result<ResidentId, ResidentError> {
        self.create_resident_with(quads, true, None)
    }

    /// Bytes of the motion texture of `sprites` sprites, or [`ResidentError::TooManySprites`]
    /// past what a texture of the device's largest size holds.
    pub(super) fn check_motion_size(&self, sprites: usize) -> Result<u64, ResidentError> {
        let max_texture_size_px = self.limits.max_texture_size_px;
        let max_sprites = u64::from(MOTION_ROW_TEXELS) * u64::from(max_texture_size_px);
        if sprites as u64 > max_sprites {
            return Err(ResidentError::TooManySprites { sprites, max_sprites, max_texture_size_px });
        }
        let [w, h] = motion_texture_size(sprites as u32);
        Ok(u64::from(w) * u64::from(h) * u64::from(Motion::BYTES))
    }

    /// The live moving layer `id` and the end of `first..first + count`, checked.
    fn moving_range(&self, id: ResidentId, first: u32, count: usize) -> Result<u32, ResidentError> {
        let e = self.residents.entry(id)?;
        let moving = e.motion.as_ref().ok_or(ResidentError::NotMoving(id))?;
        let end = u64::from(first) + count as u64;
        if end > u64::from(moving.sprites) {
            return Err(ResidentError::OutOfRange { first, count, len: moving.sprites });
        }
        Ok(end as u32)
    }

    pub(crate) fn move_sprites(&mut self, id: ResidentId, first: u32, motions: &[Motion]) -> Result<(), ResidentError> {
        let end = self.moving_range(id, first, motions.len())?;
        if let Some(index) = first_non_finite(motions) {
            return Err(ResidentError::BadMotion { index, motion: motions[index] });
        }
        if motions.is_empty() {
            return Ok(());
        }
        self.reclaim_motions();
        let m = self.moving_mut(id)?;
        m.motions[first as usize..end as usize].copy_from_slice(motions);
        m.touch(first..end);
        Ok(())
    }

    pub(crate) fn motions_mut(&mut self, id: ResidentId, range: Range<u32>) -> Result<&mut [Motion], ResidentError> {
        let count = range.end.checked_sub(range.start).ok_or(ResidentError::OutOfRange {
            first: range.start,
            count: 0,
            len: self.residents.entry(id)?.motion.as_ref().map_or(0, |m| m.sprites),
        })?;
        self.moving_range(id, range.start, count as usize)?;
        self.reclaim_motions();
        let m = self.moving_mut(id)?;
        if count > 0 {
            m.touch(range.clone());
            m.unchecked = true;
        }
        Ok(&mut m.motions[range.start as usize..range.end as usize])
    }

    pub(crate) fn motions(&self, id: ResidentId) -> Result<&[Motion], ResidentError> {
        let e = self.residents.entry(id)?;
        let m = e.motion.as_ref().ok_or(ResidentError::NotMoving(id))?;
        Ok(if self.residents.lent == Some(id) { &self.plan.motions } else { &m.motions })
    }

    fn moving_mut(&mut self, id: ResidentId) -> Result<&mut Moving, ResidentError> {
        let e = self.residents.entries.get_mut(id.index as usize).ok_or(ResidentError::Stale(id))?;
        e.motion.as_mut().ok_or(ResidentError::NotMoving(id))
    }

    /// Takes back the vector of motions the last plan was lent (its `motions` are empty
    /// after): before the motions are read or changed, and before the next plan.
    pub(in crate::batcher) fn reclaim_motions(&mut self) {
        let Some(id) = self.residents.lent.take() else { return };
        let e = self.residents.entries.get_mut(id.index as usize).filter(|e| e.generation == id.generation);
        if let Some(m) = e.and_then(|e| e.motion.as_mut()) {
            std::mem::swap(&mut m.motions, &mut self.plan.motions);
        }
        self.plan.motions.clear();
    }

    /// Before a plan is made, after its other resident ops: a move op for each layer whose
    /// motions changed, unless a plan of this host frame drew it (its motions then go in the
    /// next host frame's first plan; a motion texture this plan creates is written anyway).
    /// Motions written in place that are not finite become [`Motion::NOTHING`], counted, here;
    /// on a budget with [`crate::Budget::staged_motion_writes`] in the executor's copy
    /// ([`crate::copy_checked`]), which reads them once instead of twice.
    pub(in crate::batcher) fn write_moved_motions(&mut self) {
        self.reclaim_motions();
        let mut due = std::mem::take(&mut self.residents.due_motions);
        due.clear();
        for (index, e) in self.residents.entries.iter().enumerate() {
            let id = ResidentId { index: index as u32, generation: e.generation };
            let Some(m) = &e.motion else { continue };
            if m.dirty.is_empty() || e.life == super::Life::Dead {
                continue;
            }
            if m.fresh || !self.drawn_earlier_this_frame(id) {
                due.push(id);
            }
        }
        // One layer written whole (every sprite moved): lent, not copied.
        let lend = match due[..] {
            [id] => self.residents.entries[id.index as usize]
                .motion
                .as_ref()
                .is_some_and(|m| m.dirty == (0..m.sprites) && self.residents.pending_motions.is_empty())
                .then_some(id),
            _ => None,
        };
        for &id in &due {
            let r = &mut self.residents;
            let Some(m) = r.entries[id.index as usize].motion.as_mut() else { continue };
            let dirty = std::mem::replace(&mut m.dirty, 0..0);
            m.fresh = false;
            if std::mem::take(&mut m.unchecked) && !self.budget.staged_motion_writes {
                self.frame.motions_rejected +=
                    reject_non_finite(&mut m.motions[dirty.start as usize..dirty.end as usize]);
            }
            let start = r.pending_motions.len() as u32;
            if lend == Some(id) {
                std::mem::swap(&mut m.motions, &mut r.pending_motions);
                r.lent = Some(id);
            } else {
                r.pending_motions.extend_from_slice(&m.motions[dirty.start as usize..dirty.end as usize]);
            }
            let motions = start..start + (dirty.end - dirty.start);
            self.ops.push(ResourceOp::Resident(ResidentOp::Move { resident: id, first: dirty.start, motions }));
        }
        self.residents.due_motions = due;
        if self.frame.motions_rejected > 0 && !std::mem::replace(&mut self.residents.warned_motions, true) {
            log::warn!(
                "{} motions written in place (motions_mut) were not finite: drawn as nothing \
                 (Counters::motions_rejected)",
                self.frame.motions_rejected
            );
        }
    }
}

/// Puts [`Motion::NOTHING`] in place of each motion with a NaN or infinite component; returns how many.
fn reject_non_finite(motions: &mut [Motion]) -> u64 {
    let Some(first) = first_non_finite(motions) else { return 0 };
    let mut rejected = 0;
    for m in &mut motions[first..] {
        if !m.is_finite() {
            *m = Motion::NOTHING;
            rejected += 1;
        }
    }
    rejected
}
