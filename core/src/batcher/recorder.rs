//! The frame recorder: what a frame's `push`es leave for `finish` to plan. Quads become
//! instances at once; the recorder notes each quad's array, where segments must end
//! (explicit flushes, draw-state changes) and which draw state each run of quads has.

use std::collections::HashMap;

use super::registry::Hot;
use super::sorting::FrameSort;
use super::Batcher;
use crate::ladder::{Prefix, PREPLACED};
use crate::plan::ArrayId;
use crate::plan::{BlendMode, Corner, DrawState, FlushCause, Instance, Instances, PlanTarget};
use crate::{Counters, MeshError, Quad, QuadError, RejectedQuad, TextureId, Vertex};

/// Quads `push_all` checks and converts at a time: a chunk's quads (56 KiB) stay in L2 for the
/// planner's pass. Measured: 256 took 480 µs for 100,000 quads, 1,024 and 4,096 took 429.
pub(super) const CHUNK: usize = 1024;

/// [`Recorder::target_id`] outside a frame drawn into a texture: generation 0 is never live,
/// so no quad of a live texture names it.
pub(super) const NO_TARGET: TextureId = TextureId { index: u32::MAX, generation: 0, batcher: 0 };

/// One frame's recording, between `begin_frame` and `finish`.
#[derive(Debug)]
pub(super) struct Recorder {
    /// A frame is being recorded.
    pub(super) open: bool,
    pub(super) instances: Instances,
    /// The corners of each triangle instance, in order.
    pub(super) triangles: Vec<[Corner; 3]>,
    /// The frame's leading quads whose arrays were resident when pushed, summarized.
    pub(super) prefix: Prefix,
    /// The array of every quad after the prefix.
    pub(super) quad_arrays: Vec<u32>,
    /// Quad indices a new segment starts at: explicit flushes and draw-state changes.
    pub(super) flush_marks: Vec<(u32, FlushCause)>,
    /// The draw state quads pushed now get.
    state: DrawState,
    /// The frame's draw states, and where each starts: `(first quad, index into states)`.
    pub(super) states: Vec<DrawState>,
    pub(super) state_marks: Vec<(u32, u32)>,
    /// Index of each distinct state in `states`: a frame alternating two states holds two,
    /// however many times it alternates.
    state_lookup: HashMap<StateKey, u32>,
    /// The state changed since the last quad: check it at the next one.
    pub(super) state_dirty: bool,
    /// ANDed into every instance's tint alpha: 0 under [`BlendMode::Additive`] (drawn as
    /// "over" with alpha 0), else `0xFF`.
    pub(super) alpha_mask: u8,
    /// The render target of the open frame ([`Batcher::begin_frame_into`]), resolved when the
    /// frame began (a dedicated array: it neither grows nor moves while the frame is open).
    pub(super) target: Option<PlanTarget>,
    /// The target's id, or [`NO_TARGET`]: quads naming it are refused (a feedback loop).
    pub(super) target_id: TextureId,
    /// Arrays that grew or shrank while the frame was open: `(old, new)`.
    pub(super) moved: Vec<(ArrayId, ArrayId)>,
    /// The frame's sort keys, when it sets any.
    pub(super) sort: FrameSort,
    /// The effect quads pushed now get.
    /// An effect was set since the frame opened: `finish` marks the segments that draw one
    /// (a frame without any skips that pass over its instances).
    pub(super) effects_used: bool,
    /// An effect id of another budget was set (said once, at `warn!`).
    pub(super) foreign_effect_warned: bool,
    pub(super) look: Look,
    /// The draw states, looks and sort keys `save_state` kept, the last on top; emptied
    /// when a frame opens or closes.
    saved: Vec<(DrawState, Look, crate::SortKey)>,
    /// Notes of parts recorded on other threads, kept for their allocations.
    pub(super) part_notes: Vec<super::parts::PartNotes>,
}

/// An effect and its parameters, as instances carry them, and the drawing state's instance
/// flags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Look {
    /// [`Instance::effect`].
    pub(super) effect: u32,
    /// [`Instance::effect_params`].
    pub(super) params: [u8; 4],
    /// Flags ORed into [`Instance::slot_flags_layer`], shifted into place
    /// ([`Instance::FLAG_SRGB_TINT`]).
    pub(super) flags: u32,
}

impl Recorder {
    pub(super) fn new(instance_capacity: u32) -> Self {
        Self {
            open: false,
            instances: Instances::new(),
            triangles: Vec::new(),
            prefix: Prefix::new(instance_capacity),
            quad_arrays: Vec::new(),
            flush_marks: Vec::new(),
            state: DrawState::default(),
            states: Vec::new(),
            state_marks: Vec::new(),
            state_lookup: HashMap::new(),
            state_dirty: false,
            alpha_mask: 0xFF,
            target: None,
            target_id: NO_TARGET,
            moved: Vec::new(),
            sort: FrameSort::default(),
            look: Look::default(),
            effects_used: false,
            foreign_effect_warned: false,
            saved: Vec::new(),
            part_notes: Vec::new(),
        }
    }

    /// Opens a new, empty frame with the default draw state, drawn into `target` if any.
    pub(super) fn open(&mut self, target: Option<PlanTarget>) {
        self.open = true;
        self.target = target;
        self.target_id = target.map_or(NO_TARGET, |t| t.texture);
        self.instances.clear();
        self.triangles.clear();
        self.prefix.reset();
        self.quad_arrays.clear();
        self.flush_marks.clear();
        self.states.clear();
        self.state_lookup.clear();
        self.state_marks.clear();
        self.state = DrawState::default();
        self.alpha_mask = 0xFF;
        let first = self.state_index(self.state);
        self.state_marks.push((0, first));
        self.state_dirty = false;
        self.moved.clear();
        self.sort.open();
        self.look = Look::default();
        self.effects_used = false;
        self.saved.clear();
    }

    /// Closes the frame: its target, with arrays moved during the frame followed.
    pub(super) fn close(&mut self) -> Option<PlanTarget> {
        self.open = false;
        self.saved.clear();
        self.target_id = NO_TARGET;
        // Arrays that grew while the frame was recorded: quads recorded before still name the
        // old id; the layer is the same.
        if !self.moved.is_empty() {
            for a in &mut self.quad_arrays {
                for &(old, new) in &self.moved {
                    if *a & !PREPLACED == old.0 {
                        *a = new.0 | (*a & PREPLACED);
                    }
                }
            }
        }
        let mut target = self.target.take();
        if let Some(t) = &mut target {
            for &(old, new) in &self.moved {
                if t.array == old {
                    t.array = new;
                }
            }
        }
        target
    }

    /// Records a quad; see [`Batcher::push`].
    #[inline(always)]
    fn push(&mut self, hot: &[Hot], quad: &Quad, frame: &mut Counters) -> Result<(), QuadError> {
        if !self.open {
            return Err(QuadError::NoFrame);
        }
        if self.state_dirty {
            self.commit_state();
        }
        if let Err(e) = check_quad(hot, quad, self.target_id) {
            frame.quads_rejected += 1;
            return Err(e);
        }
        let hot = hot[quad.texture.index as usize];
        let n = self.instances.len() as u32;
        self.instances.push(instance(&hot, quad, self.alpha_mask, self.look));
        self.record(n, &hot);
        Ok(())
    }

    /// Records a mesh's triangles, each one instance; see [`Batcher::push_mesh`].
    pub(super) fn push_triangles(
        &mut self,
        hot: &[Hot],
        texture: TextureId,
        vertices: &[Vertex],
        indices: &[u32],
        frame: &mut Counters,
    ) -> Result<(), MeshError> {
        let checked = check_mesh(hot, texture, self.target_id, vertices, indices, self.open);
        if let Err(e) = checked {
            frame.meshes_rejected += 1;
            return Err(e);
        }
        if self.state_dirty {
            self.commit_state();
        }
        let hot = hot[texture.index as usize];
        let (o, k) = (hot.uv_offset, hot.uv_scale);
        let alpha_mask = self.alpha_mask;
        let corner = |v: &Vertex| {
            let [r, g, b, a] = v.color;
            Corner {
                pos_px: v.pos_px,
                uv_texels: [o[0] + v.uv[0] * k[0], o[1] + v.uv[1] * k[1]],
                color: [r, g, b, a & alpha_mask],
            }
        };
        let flags = (Instance::FLAG_TRIANGLE << Instance::FLAGS_SHIFT) | (hot.slot & Instance::SLOT_MASK);
        for tri in indices.chunks_exact(3) {
            let [a, b, c] = [0, 1, 2].map(|j| corner(&vertices[tri[j] as usize]));
            let n = self.instances.len() as u32;
            let (p0, p1, p2) = (a.pos_px, b.pos_px, c.pos_px);
            self.instances.push(Instance {
                origin: p0,
                axis_x: [p1[0] - p0[0], p1[1] - p0[1]],
                axis_y: [p2[0] - p0[0], p2[1] - p0[1]],
                uv_rect: [a.uv_texels[0], a.uv_texels[1], a.uv_texels[0], a.uv_texels[1]],
                tex_rect: hot.tex_rect,
                color: a.color,
                slot_flags_layer: hot.flags_layer | flags | self.look.flags,
                effect_params: self.look.params,
                effect: self.look.effect,
            });
            self.triangles.push([a, b, c]);
            self.record(n, &hot);
        }
        frame.triangles += (indices.len() / 3) as u64;
        Ok(())
    }

    /// Records quads; see [`Batcher::push_all`].
    fn push_all(&mut self, hot: &[Hot], quads: &[Quad], frame: &mut Counters) -> Result<(), RejectedQuad> {
        if !self.open {
            return match quads.is_empty() {
                true => Ok(()),
                false => Err(RejectedQuad { index: 0, error: QuadError::NoFrame }),
            };
        }
        if self.state_dirty {
            self.commit_state();
        }
        let mut first = None;
        for (c, chunk) in quads.chunks(CHUNK).enumerate() {
            // Optimistic: check and convert in one pass; a chunk with a bad quad is taken back
            // and redone quad by quad.
            let start = self.instances.len();
            let (alpha_mask, target, look) = (self.alpha_mask, self.target_id, self.look);
            if convert_checked(&mut self.instances, hot, chunk, (alpha_mask, target, look)) {
                self.record_chunk(hot, start as u32, chunk);
                continue;
            }
            self.instances.truncate(start);
            for (k, q) in chunk.iter().enumerate() {
                if let Err(error) = self.push(hot, q, frame) {
                    first.get_or_insert(RejectedQuad { index: c * CHUNK + k, error });
                }
            }
        }
        first.map_or(Ok(()), Err)
    }

    /// [`Recorder::record`] for checked quads `start..start + chunk.len()`, with the prefix's
    /// run in locals while it extends.
    fn record_chunk(&mut self, hot: &[Hot], start: u32, chunk: &[Quad]) {
        let mut k = 0;
        if self.prefix.open {
            let p = &mut self.prefix;
            let mut run = p.run();
            let slots = chunk.iter().map(|q| hot[q.texture.index as usize].slot);
            k = run.note_all(start, slots, &mut p.runs) as usize;
            p.set_run(run);
        }
        for (j, q) in chunk.iter().enumerate().skip(k) {
            let h = hot[q.texture.index as usize];
            self.record(start + j as u32, &h);
        }
    }

    /// Records quad `n`'s array for the planner: in the prefix while every quad so far was
    /// resident, one by one after that.
    #[inline(always)]
    fn record(&mut self, n: u32, hot: &Hot) {
        let resident = hot.slot != Hot::NO_SLOT;
        if self.prefix.open {
            match resident {
                true => return self.prefix.note(n, hot.slot),
                false => self.prefix.close(n),
            }
        }
        self.quad_arrays.push(if resident { hot.array | PREPLACED } else { hot.array });
    }

    /// Ends the current segment here; see [`Batcher::flush`].
    fn flush(&mut self) {
        if !self.open {
            return;
        }
        let at = self.instances.len() as u32;
        self.sort.note_flush(at);
        if at > 0 && self.flush_marks.last().map(|m| m.0) != Some(at) {
            self.prefix.flush(at, FlushCause::Explicit);
            self.flush_marks.push((at, FlushCause::Explicit));
        }
    }

    /// Makes `state` current. The boundary it may need is marked lazily, at the next quad
    /// ([`Recorder::commit_state`]), so changes that are undone before any quad cost nothing.
    /// Pushes the draw state, the look and the sort key (`DrawingState::save`).
    pub(super) fn save(&mut self) {
        self.saved.push((self.state, self.look, self.sort.key()));
    }

    /// Pops the last saved draw state and look back into place and returns the sort key
    /// saved with them, for the batcher to set; `None` with none saved.
    pub(super) fn restore(&mut self) -> Option<crate::SortKey> {
        let (state, look, key) = self.saved.pop()?;
        self.set_state(state);
        self.look = look;
        Some(key)
    }

    pub(super) fn set_state(&mut self, state: DrawState) {
        self.state = state;
        self.alpha_mask = if state.blend == BlendMode::Additive { 0 } else { 0xFF };
        self.state_dirty = true;
    }

    /// Before recording a quad after a state change: if the state differs from the one the
    /// frame's last quads used, a new segment starts here.
    #[cold]
    pub(super) fn commit_state(&mut self) {
        self.state_dirty = false;
        let at = self.instances.len() as u32;
        let Some(&(since, index)) = self.state_marks.last() else { return };
        // Additive quads share "over" draws (their tint alpha is zeroed).
        let mut state = self.state;
        if state.blend == BlendMode::Additive {
            state.blend = BlendMode::Over;
        }
        if self.states[index as usize] == state {
            return;
        }
        let index = self.state_index(state);
        if since == at {
            // No quad since that state was marked (the frame's start): it is unused.
            if let Some(mark) = self.state_marks.last_mut() {
                mark.1 = index;
            }
            return;
        }
        self.state_marks.push((at, index));
        self.prefix.flush(at, FlushCause::StateChange);
        match self.flush_marks.last_mut() {
            Some(m) if m.0 == at => m.1 = FlushCause::StateChange,
            _ => self.flush_marks.push((at, FlushCause::StateChange)),
        }
    }

    /// Marks a resident layer's draw after the quads recorded so far, with `state`: a
    /// segment boundary there. Returns where (the next quad's index) and the state's index.
    pub(super) fn mark_resident(&mut self, state: DrawState) -> (u32, u32) {
        let at = self.instances.len() as u32;
        self.sort.note_resident();
        if at > 0 {
            self.prefix.flush(at, FlushCause::Resident);
            if self.flush_marks.last().map(|m| m.0) != Some(at) {
                self.flush_marks.push((at, FlushCause::Resident));
            }
        }
        (at, self.state_index(state))
    }

    /// The texture the open frame draws into, if any.
    pub(super) fn target_texture(&self) -> Option<TextureId> {
        self.target.map(|t| t.texture)
    }

    /// The draw state quads pushed now get.
    pub(super) fn draw_state_now(&self) -> DrawState {
        self.state
    }

    /// The index of `state` in the frame's states, added if new.
    fn state_index(&mut self, state: DrawState) -> u32 {
        let key = StateKey::of(&state);
        if let Some(&i) = self.state_lookup.get(&key) {
            return i;
        }
        let i = self.states.len() as u32;
        self.states.push(state);
        self.state_lookup.insert(key, i);
        i
    }
}

impl Batcher {
    /// Records a quad, drawn after every quad pushed before it.
    ///
    /// # Errors
    /// [`QuadError`] for a stale or foreign texture, a non-finite coordinate, or no open
    /// frame; the quad is dropped and nothing else changes.
    #[inline]
    pub fn push(&mut self, quad: &Quad) -> Result<(), QuadError> {
        self.recorder.push(&self.registry.hot, quad, &mut self.frame)
    }

    /// Whether [`Batcher::push`] would record `quad` now (an open frame, a live texture,
    /// coordinates in range), without recording it: for calls that record several quads or
    /// none.
    pub(crate) fn check_push(&self, quad: &Quad) -> Result<(), QuadError> {
        if !self.recorder.open {
            return Err(QuadError::NoFrame);
        }
        check_quad(&self.registry.hot, quad, self.recorder.target_id)
    }

    /// Records `quads` in order, like [`Batcher::push`] on each, but faster for many: the
    /// checks and the copies run over the slice in cache-sized chunks, with no per-quad
    /// capacity checks.
    ///
    /// Every valid quad is recorded; each invalid one is dropped (and counted in
    /// [`Counters::quads_rejected`]) without affecting the others.
    ///
    /// # Errors
    /// The first quad rejected, with its index in `quads` ([`RejectedQuad`]), after every
    /// valid quad was recorded. Without an open frame nothing is recorded and the error is
    /// [`QuadError::NoFrame`] at index 0.
    pub fn push_all(&mut self, quads: &[Quad]) -> Result<(), RejectedQuad> {
        self.recorder.push_all(&self.registry.hot, quads, &mut self.frame)
    }

    /// Ends the current segment here: quads pushed after this go into a new draw call. Does
    /// nothing if no quad is pending or no frame is open. Counted as an explicit flush.
    pub fn flush(&mut self) {
        self.recorder.flush();
    }

    pub(crate) fn draw_state(&self) -> DrawState {
        self.recorder.state
    }

    pub(crate) fn set_blend(&mut self, blend: BlendMode) {
        let state = self.recorder.state;
        self.recorder.set_state(DrawState { blend, ..state });
    }

    pub(crate) fn set_clip(&mut self, clip_px: Option<[u32; 4]>) {
        let state = self.recorder.state;
        self.recorder.set_state(DrawState { clip_px, ..state });
    }

    pub(crate) fn set_transform(&mut self, transform: impl Into<crate::Affine2>) {
        let transform = transform.into().0;
        if transform.iter().all(|v| v.is_finite()) {
            let state = self.recorder.state;
            self.recorder.set_state(DrawState { transform, ..state });
        }
    }
}

/// Appends the instances of `chunk` to `out` in one pass (one read of the quads from
/// memory), checking each quad as [`check_quad`] would; whether every one passed (if not, the
/// caller takes the chunk back and redoes it quad by quad). The `map` over a slice is
/// exact-size: `extend` reserves once and writes without a capacity check per quad.
#[inline(always)]
pub(super) fn convert_checked(
    out: &mut impl Extend<Instance>,
    hot: &[Hot],
    chunk: &[Quad],
    (alpha_mask, target, look): (u8, TextureId, Look),
) -> bool {
    let mut all_ok = true;
    out.extend(chunk.iter().map(|q| {
        let h = hot.get(q.texture.index as usize).unwrap_or(&Hot::DEAD);
        // `h.key` carries this batcher's tag: one compare checks the id's tag too.
        all_ok &= (h.key == Hot::key(q.texture.batcher, q.texture.generation)) & q.in_range() & (q.texture != target);
        instance(h, q, alpha_mask, look)
    }));
    all_ok
}

/// Whether `quad` may be recorded: a live texture of this batcher, finite coordinates.
#[inline(always)]
pub(super) fn check_quad(hot: &[Hot], quad: &Quad, target: TextureId) -> Result<(), QuadError> {
    let t = quad.texture;
    // A live entry's key carries this batcher's tag: one compare checks the id's tag too.
    match hot.get(t.index as usize) {
        Some(h) if h.key == Hot::key(t.batcher, t.generation) => {}
        _ => return Err(QuadError::Stale(t)),
    }
    if !quad.in_range() {
        return Err(if quad.is_finite() { QuadError::OutOfRange } else { QuadError::NonFinite });
    }
    if t == target {
        return Err(QuadError::SamplesTarget(t));
    }
    Ok(())
}

/// Whether a mesh may be recorded: drawable texture, whole triangles, every index in range,
/// every vertex finite and in range.
fn check_mesh(
    hot: &[Hot],
    texture: TextureId,
    target: TextureId,
    vertices: &[Vertex],
    indices: &[u32],
    open: bool,
) -> Result<(), MeshError> {
    if !open {
        return Err(MeshError::Texture(QuadError::NoFrame));
    }
    match hot.get(texture.index as usize) {
        Some(h) if h.key == Hot::key(texture.batcher, texture.generation) => {}
        _ => return Err(MeshError::Texture(QuadError::Stale(texture))),
    }
    if texture == target {
        return Err(MeshError::Texture(QuadError::SamplesTarget(texture)));
    }
    if indices.len() % 3 != 0 {
        return Err(MeshError::PartialTriangle { indices: indices.len() });
    }
    if let Some((at, &index)) = indices.iter().enumerate().find(|(_, &i)| i as usize >= vertices.len()) {
        return Err(MeshError::IndexOutOfRange { at, index, vertices: vertices.len() });
    }
    // Vertices no triangle uses are checked too: a bad one is a bug in what made the mesh.
    let in_range = |v: &Vertex| {
        v.pos_px.iter().all(|c| c.abs() < Quad::MAX_POSITION) && v.uv.iter().all(|c| c.abs() < Quad::MAX_UV)
    };
    if let Some(vertex) = vertices.iter().position(|v| !in_range(v)) {
        return Err(MeshError::BadVertex { vertex });
    }
    Ok(())
}

/// The instance of a checked quad. Most quads use an array a slot already holds: the slot is
/// written now, so `finish` need not touch the instance again.
#[inline(always)]
pub(super) fn instance(hot: &Hot, quad: &Quad, alpha_mask: u8, look: Look) -> Instance {
    let [r, g, b, a] = quad.color;
    let (o, k, uv) = (hot.uv_offset, hot.uv_scale, quad.uv);
    Instance {
        origin: quad.origin,
        axis_x: quad.axis_x,
        axis_y: quad.axis_y,
        uv_rect: [o[0] + uv[0] * k[0], o[1] + uv[1] * k[1], o[2] + uv[2] * k[2], o[3] + uv[3] * k[3]],
        tex_rect: hot.tex_rect,
        color: [r, g, b, a & alpha_mask],
        // NO_SLOT has no bit in the slot field: a quad whose array no slot holds gets slot 0
        // until it is planned.
        slot_flags_layer: hot.flags_layer | look.flags | (hot.slot & Instance::SLOT_MASK),
        effect_params: look.params,
        effect: look.effect,
    }
}

/// The instance of a checked quad in a resident layer whose slot table puts its array in
/// `slot`: drawn as pushed (its tint whole; the layer's draw state adds blend and tint).
#[inline]
pub(super) fn resident_instance(hot: &Hot, quad: &Quad, slot: u32) -> Instance {
    let i = instance(hot, quad, 0xFF, Look::default());
    Instance { slot_flags_layer: Instance::with_slot(i.slot_flags_layer, slot), ..i }
}

/// A draw state's identity: its transform by bits (transforms are finite; `0.0` and `-0.0`
/// are two keys, which costs at most a duplicate entry).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct StateKey {
    blend: usize,
    clip_px: Option<[u32; 4]>,
    transform: [u32; 6],
    tint: [u32; 4],
    look: (u32, [u8; 4]),
}

impl StateKey {
    fn of(s: &DrawState) -> Self {
        Self {
            blend: s.blend.index(),
            clip_px: s.clip_px,
            transform: s.transform.map(f32::to_bits),
            tint: s.tint.map(f32::to_bits),
            look: (s.look, s.look_params),
        }
    }
}
