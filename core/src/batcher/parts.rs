//! Recording on several threads: [`Batcher::record_parts`] lends the host part recorders, one
//! per thread (or per chunk of the scene), that convert and check quads with nothing shared
//! but the texture table, read-only; the parts join the frame in order, each kept in the
//! vector it was written to ([`Instances`](crate::plan::Instances)), so joining costs a
//! summary per part, not a copy per quad.

use super::recorder::{check_quad, convert_checked, instance, Look, Recorder, CHUNK};
use super::registry::Hot;
use super::Batcher;
use crate::ladder::PREPLACED;
use crate::plan::{ArrayId, Instance};
use crate::{Quad, QuadError, RejectedQuad, SortKey, TextureId};

/// Quads a block of a part's slot summary covers.
const BLOCK: usize = 64;

/// A part's notes besides its instances, kept by the recorder between frames so that a part
/// does not grow them from nothing each frame.
#[derive(Debug, Default)]
pub(super) struct PartNotes {
    /// The array of each quad from the first whose array no slot held on ([`Hot::array`],
    /// with [`PREPLACED`] when a slot held it); the leading run's are its slots' arrays.
    arrays: Vec<u32>,
    /// Slots used by each whole block of [`BLOCK`] quads of the leading run.
    block_masks: Vec<u32>,
    /// Where the sort key changed: `(first quad, key)`.
    key_marks: Vec<(u32, SortKey)>,
}

impl PartNotes {
    fn cleared(mut self) -> Self {
        self.arrays.clear();
        self.block_masks.clear();
        self.key_marks.clear();
        self
    }
}

/// Records quads for one part of a frame, on any thread ([`Batcher::record_parts`]). Its
/// quads are drawn after those of the parts before it, under the drawing state in force when
/// the parts were lent, as if [`Batcher::push`]ed there.
///
/// Aligned to 128 bytes: parts lent side by side, each written by its own thread on every
/// quad, share no cache line (measured: two threads were no faster than one without it).
#[derive(Debug)]
#[repr(align(128))]
pub struct PartRecorder<'a> {
    hot: &'a [Hot],
    target: TextureId,
    alpha_mask: u8,
    look: Look,
    instances: Vec<Instance>,
    notes: PartNotes,
    /// The first quad whose array no slot held, if any: the part's leading run of resident
    /// quads ends there.
    first_unplaced: Option<u32>,
    /// Slots used since the last whole block.
    tail_mask: u32,
    /// Per slot, 1 + the last quad of the leading run using it (0: none).
    last: [u32; 32],
    key: SortKey,
    /// A key was set.
    keyed: bool,
    rejected: u64,
}

impl<'a> PartRecorder<'a> {
    /// Records a quad after this part's earlier ones; see [`Batcher::push`].
    ///
    /// # Errors
    /// [`QuadError`] for a stale or foreign texture, a non-finite or out-of-range coordinate,
    /// or the frame's render target as the texture; the quad is dropped (counted in
    /// [`crate::Counters::quads_rejected`]).
    #[inline]
    pub fn push(&mut self, quad: &Quad) -> Result<(), QuadError> {
        if let Err(e) = check_quad(self.hot, quad, self.target) {
            self.rejected += 1;
            return Err(e);
        }
        let hot = self.hot[quad.texture.index as usize];
        let n = self.instances.len();
        self.instances.push(instance(&hot, quad, self.alpha_mask, self.look));
        self.record(n, &hot);
        Ok(())
    }

    /// Records `quads` in order, like [`PartRecorder::push`] on each; see
    /// [`Batcher::push_all`].
    ///
    /// # Errors
    /// The first quad rejected, with its index in `quads`, after every valid one was recorded.
    pub fn push_all(&mut self, quads: &[Quad]) -> Result<(), RejectedQuad> {
        let mut first = None;
        for (c, chunk) in quads.chunks(CHUNK).enumerate() {
            let start = self.instances.len();
            let hot = self.hot;
            if convert_checked(&mut self.instances, hot, chunk, (self.alpha_mask, self.target, self.look)) {
                for (j, q) in chunk.iter().enumerate() {
                    self.record(start + j, &hot[q.texture.index as usize]);
                }
                continue;
            }
            self.instances.truncate(start);
            for (k, q) in chunk.iter().enumerate() {
                if let Err(error) = self.push(q) {
                    first.get_or_insert(RejectedQuad { index: c * CHUNK + k, error });
                }
            }
        }
        first.map_or(Ok(()), Err)
    }

    /// Quads pushed after this get `key` in a sorted frame; see
    /// [`DrawingState::set_sort_key`](crate::DrawingState::set_sort_key). A part starts with
    /// the key in force when the parts were lent, and its keys end with it.
    pub fn set_sort_key(&mut self, key: SortKey) {
        // Setting a key sorts the frame, as on the batcher, even one equal to the last.
        self.keyed = true;
        if key == self.key {
            return;
        }
        self.key = key;
        let at = self.instances.len() as u32;
        match self.notes.key_marks.last_mut() {
            Some(m) if m.0 == at => m.1 = key,
            _ => self.notes.key_marks.push((at, key)),
        }
    }

    /// Quads recorded in this part so far.
    pub fn len(&self) -> usize {
        self.instances.len()
    }

    /// No quad recorded in this part yet.
    pub fn is_empty(&self) -> bool {
        self.instances.is_empty()
    }

    /// Notes quad `n`'s slot in the leading run's summary, or its array after that run.
    #[inline(always)]
    fn record(&mut self, n: usize, hot: &Hot) {
        let resident = hot.slot != Hot::NO_SLOT;
        if self.first_unplaced.is_none() && !resident {
            self.first_unplaced = Some(n as u32);
        }
        if self.first_unplaced.is_some() {
            self.notes.arrays.push(if resident { hot.array | PREPLACED } else { hot.array });
            return;
        }
        self.tail_mask |= 1 << hot.slot;
        self.last[hot.slot as usize] = n as u32 + 1;
        if (n + 1) % BLOCK == 0 {
            self.notes.block_masks.push(self.tail_mask);
            self.tail_mask = 0;
        }
    }

    /// The slots quads `a..b` of the leading run use.
    fn slots_used(&self, a: usize, b: usize) -> u32 {
        let mut mask = 0;
        let mut i = a;
        while i < b {
            match self.notes.block_masks.get(i / BLOCK) {
                Some(&m) if i % BLOCK == 0 && i + BLOCK <= b => {
                    mask |= m;
                    i += BLOCK;
                }
                _ => {
                    mask |= 1 << self.instances[i].slot();
                    i += 1;
                }
            }
        }
        mask
    }
}

impl Recorder {
    /// A part recorder over `hot` with the frame's current drawing state, and the allocations
    /// of earlier parts.
    fn lend_part<'a>(&mut self, hot: &'a [Hot]) -> PartRecorder<'a> {
        PartRecorder {
            hot,
            target: self.target_id,
            alpha_mask: self.alpha_mask,
            look: self.look,
            instances: self.instances.spare_part(),
            notes: self.part_notes.pop().unwrap_or_default(),
            first_unplaced: None,
            tail_mask: 0,
            last: [0; 32],
            key: self.sort.key(),
            keyed: false,
            rejected: 0,
        }
    }

    /// Adds `part`'s quads after the frame's: its leading resident run joins the prefix by
    /// its summary (or, after the prefix, by the arrays `units`, the slots' arrays, held), its
    /// other quads' arrays are noted, its instances become a part of the frame's as they are.
    fn join(&mut self, part: PartRecorder<'_>, units: &[Option<ArrayId>]) -> u64 {
        let rejected = part.rejected;
        let notes = self.join_quads(part, units);
        self.part_notes.push(notes.cleared());
        rejected
    }

    /// [`Recorder::join`]'s work; returns the part's notes, to keep.
    fn join_quads(&mut self, part: PartRecorder<'_>, units: &[Option<ArrayId>]) -> PartNotes {
        if part.instances.is_empty() {
            if part.keyed {
                // Its keys set nothing, but a key was set: the frame is sorted.
                self.sort.set(self.instances.len() as u32, self.sort.key());
            }
            self.instances.append_part(part.instances);
            return part.notes;
        }
        if self.state_dirty {
            self.commit_state();
        }
        let start = self.instances.len() as u32;
        let len = part.instances.len();
        let leading = part.first_unplaced.map_or(len, |n| n as usize);
        if self.prefix.open {
            self.prefix.note_span(start, leading as u32, |a, b| part.slots_used(a as usize, b as usize), &part.last);
            if leading < len {
                self.prefix.close(start + leading as u32);
            }
        } else {
            // Slots do not change while a frame is recorded: a slot holds now what it held
            // when the quad was recorded.
            let array = |i: &Instance| units.get(i.slot() as usize).copied().flatten().map_or(0, |a| a.0) | PREPLACED;
            self.quad_arrays.extend(part.instances[..leading].iter().map(array));
        }
        self.quad_arrays.extend_from_slice(&part.notes.arrays);
        if part.keyed {
            let key = self.sort.key();
            self.sort.append_marks(start, &part.notes.key_marks, (start + len as u32, key));
        }
        self.instances.append_part(part.instances);
        part.notes
    }
}

impl Batcher {
    /// The most parts [`Batcher::record_parts`] lends at once: far more than a machine has
    /// threads; a count past it is a host's mistake, refused rather than allocated.
    pub const MAX_PARTS: usize = 1024;

    /// Lends `parts` part recorders to `record`, which may fill them on as many threads (the
    /// host's own: `std::thread::scope`, rayon), then adds their quads to the frame in the
    /// parts' order, after every quad pushed before: the frame is planned as if each part's
    /// quads had been [`push`](Batcher::push)ed here, part after part. Returns what `record`
    /// returned.
    ///
    /// Parts record quads only, under the drawing state in force now (a part may set its own
    /// sort keys). Each part's instances stay in the vector it wrote
    /// ([`FramePlan::instances`](crate::FramePlan::instances) holds them as parts, recycled
    /// frame to frame), so joining them costs a summary per part, not a copy per quad.
    ///
    /// ```
    /// use layerbatch_core::{Batcher, Config, Limits, Quad, TextureDesc};
    /// let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default())?;
    /// let t = batcher.textures().register(&TextureDesc::new(8, 8), &[255; 8 * 8 * 4])?;
    /// let quads: Vec<Quad> = (0..1000).map(|i| Quad::rect(t, [i as f32, 0.0], [8.0, 8.0])).collect();
    /// batcher.begin_frame();
    /// batcher.record_parts(2, |parts| {
    ///     std::thread::scope(|s| {
    ///         for (part, chunk) in parts.iter_mut().zip(quads.chunks(500)) {
    ///             s.spawn(move || part.push_all(chunk));
    ///         }
    ///     })
    /// })?;
    /// let plan = batcher.finish();
    /// assert_eq!((plan.instances.len(), plan.instances.part_count(), plan.segments.len()), (1000, 2, 1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`QuadError::NoFrame`] without an open frame, [`QuadError::TooManyParts`] for more
    /// than [`Batcher::MAX_PARTS`]; `record` is not called.
    pub fn record_parts<R>(
        &mut self,
        parts: usize,
        record: impl FnOnce(&mut [PartRecorder<'_>]) -> R,
    ) -> Result<R, QuadError> {
        let r = &mut self.recorder;
        if !r.open {
            return Err(QuadError::NoFrame);
        }
        if parts > Self::MAX_PARTS {
            return Err(QuadError::TooManyParts { parts, max: Self::MAX_PARTS });
        }
        let hot = &self.registry.hot;
        let mut lent: Vec<PartRecorder<'_>> = (0..parts).map(|_| r.lend_part(hot)).collect();
        let out = record(&mut lent);
        for part in lent {
            self.frame.quads_rejected += r.join(part, self.ladder.units());
        }
        Ok(out)
    }
}
