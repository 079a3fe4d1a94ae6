//! Moving resident layers: a layer whose quads each have a [`Motion`] (16 bytes) that the host
//! changes every frame, streamed into the layer's motion texture, while the quads (the static
//! half) stay in its buffer, written only when they change.
//!
//! Core keeps every motion (the truth a motion texture is written from, after a restore too)
//! and the range the host changed since the last plan wrote them; each plan writes that range
//! ([`ResidentOp::Move`]), unless a plan of the same host frame already drew the layer (a queue
//! write would land under that plan's pass, wgpu): then it waits for the next host frame.

use std::ops::Range;

use crate::batcher::Batcher;
use crate::motion::{motion_texture_size, MOTION_ROW_TEXELS};
use crate::plan::{ResidentId, ResidentOp, ResourceOp};
use crate::{Motion, Quad, ResidentError};

/// A moving layer's motions, and what of them the device does not have yet.
#[derive(Debug)]
pub(in crate::batcher) struct Moving {
    motions: Vec<Motion>,
    /// Sprites changed since the last write (empty: none).
    dirty: Range<u32>,
    /// The motion texture is created by a plan not made yet: it is written whole by that plan,
    /// whatever drew the layer before.
    fresh: bool,
}

impl Moving {
    /// `sprites` motions at rest ([`Motion::default`]).
    pub(super) fn new(sprites: usize) -> Self {
        Self { motions: vec![Motion::default(); sprites], dirty: 0..0, fresh: true }
    }

    /// Another number of sprites: the first motions kept, new ones at rest.
    pub(super) fn resize(&mut self, sprites: usize) {
        self.motions.resize(sprites, Motion::default());
    }

    /// Its motion texture is (re-)created by the next plan: written whole.
    pub(super) fn created(&mut self) {
        self.fresh = true;
        self.dirty = 0..self.motions.len() as u32;
    }

    fn touch(&mut self, range: Range<u32>) {
        self.dirty = if self.dirty.is_empty() {
            range
        } else {
            self.dirty.start.min(range.start)..self.dirty.end.max(range.end)
        };
    }
}

impl Batcher {
    pub(crate) fn create_moving(&mut self, quads: &[Quad]) -> Result<ResidentId, ResidentError> {
        self.create_resident_with(quads, true)
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

    pub(crate) fn move_sprites(&mut self, id: ResidentId, first: u32, motions: &[Motion]) -> Result<(), ResidentError> {
        let e = self.residents.entry(id)?;
        let moving = e.motion.as_ref().ok_or(ResidentError::NotMoving(id))?;
        let len = moving.motions.len() as u32;
        let end = u64::from(first) + motions.len() as u64;
        if end > u64::from(len) {
            return Err(ResidentError::OutOfRange { first, count: motions.len(), len });
        }
        if let Some(index) = motions.iter().position(|m| !m.is_finite()) {
            return Err(ResidentError::BadMotion { index, motion: motions[index] });
        }
        if motions.is_empty() {
            return Ok(());
        }
        let e = &mut self.residents.entries[id.index as usize];
        let Some(m) = e.motion.as_mut() else { return Err(ResidentError::NotMoving(id)) };
        m.motions[first as usize..end as usize].copy_from_slice(motions);
        m.touch(first..end as u32);
        Ok(())
    }

    pub(crate) fn motions(&self, id: ResidentId) -> Result<&[Motion], ResidentError> {
        let e = self.residents.entry(id)?;
        e.motion.as_ref().map(|m| m.motions.as_slice()).ok_or(ResidentError::NotMoving(id))
    }

    /// Before a plan is made, after its other resident ops: a move op for each layer whose
    /// motions changed, unless a plan of this host frame drew it (its motions then go in the
    /// next host frame's first plan; a motion texture this plan creates is written anyway).
    pub(in crate::batcher) fn write_moved_motions(&mut self) {
        for index in 0..self.residents.entries.len() {
            let e = &self.residents.entries[index];
            let id = ResidentId { index: index as u32, generation: e.generation };
            let Some(m) = &e.motion else { continue };
            if m.dirty.is_empty() || e.life == super::Life::Dead {
                continue;
            }
            if !m.fresh && self.drawn_earlier_this_frame(id) {
                continue;
            }
            let r = &mut self.residents;
            let Some(m) = r.entries[index].motion.as_mut() else { continue };
            let dirty = std::mem::replace(&mut m.dirty, 0..0);
            m.fresh = false;
            let start = r.pending_motions.len() as u32;
            r.pending_motions.extend_from_slice(&m.motions[dirty.start as usize..dirty.end as usize]);
            let motions = start..r.pending_motions.len() as u32;
            self.ops.push(ResourceOp::Resident(ResidentOp::Move { resident: id, first: dirty.start, motions }));
        }
    }
}
