//! Host frames: when memory a plan drew from may be given to something else.
//!
//! A plan is not a frame. A wgpu host prepares several plans (one per egui callback, one per
//! camera) and submits them together, and `Queue::write_texture` runs at that submit, before
//! any of its passes: a rectangle freed after plan 0 and written for a new texture by plan 1
//! would show the new texels in plan 0's pass. So memory freed while a host frame has
//! finished plans waits for the frame to end ([`Batcher::end_frame`]) before it is reused.
//!
//! Until a host first calls `end_frame`, every [`Batcher::finish`] ends a frame: right on GL,
//! which draws each plan before the next is made, and on wgpu when each plan is submitted
//! before the next is prepared.

use super::Batcher;
use crate::alloc::Placement;
use crate::TextureId;

/// The host's frames, as far as the batcher knows them.
#[derive(Debug, Default)]
pub(super) struct HostFrames {
    /// The host has called [`Batcher::end_frame`] at least once: only it ends frames now.
    signalled: bool,
    /// Frames ended so far: the number of the frame being recorded.
    number: u64,
    /// Plans finished in the frame being recorded.
    plans: u32,
    /// Placements freed after a plan of this frame was finished: released when it ends.
    pub(super) waiting: Vec<(Placement, Option<TextureId>)>,
}

impl HostFrames {
    /// Whether a placement freed now (outside an open plan) must wait for the frame's end.
    pub(super) fn holds_frees(&self) -> bool {
        self.signalled && self.plans > 0
    }

    /// The number of the host frame being recorded.
    pub(super) fn number(&self) -> u64 {
        self.number
    }
}

impl Batcher {
    /// Ends the host's frame: every plan finished since the last call has been submitted to
    /// the device (wgpu: after `queue.submit` of the passes that render them; GL: after the
    /// last `paint`). Memory freed while the frame had finished plans (page rectangles and
    /// layers of freed textures, glyphs the text feature's `GlyphCache` evicts) is
    /// reused only after this, so a later plan of the same frame never writes where an earlier
    /// one still draws from.
    ///
    /// Optional while each plan is drawn before the next is made (GL; wgpu with one plan a
    /// submit): until the first call, every [`Batcher::finish`] ends a frame. A host that
    /// prepares several plans before one submit calls it after each submit; from its first
    /// call on, only it ends frames. Resident-layer updates parked during the frame
    /// ([`TextureStore::update_resident`](crate::TextureStore::update_resident)) apply now, or, when a frame is being recorded, once its
    /// plan is made or it is discarded (its draws were checked against the layers as they
    /// are).
    ///
    /// ```
    /// use layerbatch_core::{Batcher, Config, Limits, MockDevice, Quad, TextureDesc};
    /// let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default())?;
    /// let a = batcher.textures().register(&TextureDesc::new(8, 8), &[255; 8 * 8 * 4])?;
    /// let first = batcher.placement(a)?;
    /// // Two plans in one host frame (two prepared wgpu plans, one submit).
    /// batcher.begin_frame();
    /// batcher.push(&Quad::rect(a, [0.0, 0.0], [8.0, 8.0]))?;
    /// batcher.finish();
    /// batcher.end_frame(); // the previous frame: from here on, only end_frame ends frames
    /// batcher.begin_frame();
    /// batcher.push(&Quad::rect(a, [0.0, 0.0], [8.0, 8.0]))?;
    /// batcher.finish(); // plan 0 of this frame draws `a`...
    /// batcher.textures().free(a)?;
    /// let b = batcher.textures().register(&TextureDesc::new(8, 8), &[0; 8 * 8 * 4])?;
    /// assert_ne!(batcher.placement(b)?.rect_px, first.rect_px); // ...so `b` goes elsewhere
    /// batcher.end_frame(); // submitted: `a`'s rectangle is free again
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn end_frame(&mut self) {
        self.frames.signalled = true;
        self.frames.number += 1;
        self.frames.plans = 0;
        for (placement, _) in std::mem::take(&mut self.frames.waiting) {
            self.free_placement(placement);
        }
        self.drain_alloc_ops();
        if self.recorder.open {
            // The open frame may already draw a layer into a target its parked quads sample.
            self.residents.apply_after_plan = true;
        } else {
            self.apply_parked_residents();
        }
    }

    /// The number of the host frame being recorded: frames ended so far (by
    /// [`Batcher::end_frame`], or by each [`Batcher::finish`] until the first `end_frame`).
    /// What is drawn in a frame is kept until the frame ends (the glyph cache evicts only
    /// glyphs of earlier frames).
    pub fn frame_number(&self) -> u64 {
        self.frames.number
    }

    /// After a plan is finished: the frees deferred while it was open are released now (one
    /// plan a frame) or when the frame ends.
    pub(super) fn plan_finished(&mut self) {
        let deferred = std::mem::take(&mut self.deferred_frees);
        if self.frames.signalled {
            self.frames.waiting.extend(deferred);
            self.frames.plans += 1;
        } else {
            for (placement, _) in deferred {
                self.free_placement(placement);
            }
            self.frames.number += 1;
        }
    }
}
