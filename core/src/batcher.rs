//! The batcher: texture registry, allocator, slot ladder and frame recording in one place.

use std::sync::atomic::{AtomicU32, Ordering};

use crate::alloc::{Admission, Moved, Placement};
use crate::writes::PendingWrites;

mod moves;
use crate::ladder::{Prefix, SlotLadder, PREPLACED};
use crate::plan::{ArrayOp, BlendMode, DrawState, FlushCause, FramePlan, Instance, PlanTarget, ResourceOp};
use crate::texture::{max_mip_levels, push_mip_chain, Filter, Usage, Wrap};
use crate::{
    Allocator, ArrayId, Budget, Config, ConfigError, Counters, Limits, Quad, QuadError, RejectedQuad, TextureDesc,
    TextureError, TextureId,
};

/// Quads `push_all` checks and converts at a time: a chunk's quads (56 KiB) stay in L2 for the
/// planner's pass. Measured: 256 took 480 µs for 100,000 quads, 1,024 and 4,096 took 429.
const CHUNK: usize = 1024;

/// Tags of batchers created in this process, so an id from one is rejected by another.
static NEXT_BATCHER_TAG: AtomicU32 = AtomicU32::new(1);

#[derive(Clone, Debug)]
struct Entry {
    generation: u32,
    live: bool,
    desc: TextureDesc,
    placement: Placement,
    /// The level-0 pixels last written, kept when [`Config::keep_pixels`] is on (empty
    /// otherwise), so [`Batcher::restore`] can re-upload them itself.
    pixels: Vec<u8>,
}

/// The layer batcher. Register textures, then each frame `begin_frame`, `push` quads in
/// painter's order, and `finish` into a [`FramePlan`] a backend executes.
///
/// ```
/// use layerbatch_core::{Batcher, Config, Limits, MockDevice, Quad, TextureDesc};
///
/// let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
/// let textures: Vec<_> = (0..64u8)
///     .map(|i| batcher.register(&TextureDesc::new(32, 32), &[i; 32 * 32 * 4]).unwrap())
///     .collect();
/// batcher.begin_frame();
/// for (i, &t) in textures.iter().enumerate() {
///     batcher.push(&Quad::rect(t, [i as f32 * 4.0, 0.0], [32.0, 32.0])).unwrap();
/// }
/// let mut device = MockDevice::new(batcher.budget());
/// let plan = batcher.finish();
/// assert_eq!(plan.segments.len(), 1); // 64 textures, one draw call
/// assert_eq!(plan.segments[0].tier, 1); // sampling one array: the branch-free program
/// device.execute(plan).unwrap();
/// assert_eq!(device.counters().draw_calls, 1);
/// ```
#[derive(Debug)]
pub struct Batcher {
    tag: u32,
    budget: Budget,
    limits: Limits,
    entries: Vec<Entry>,
    /// Per entry: what `push` reads.
    hot: Vec<Hot>,
    free_indices: Vec<u32>,
    alloc: Allocator,
    ladder: SlotLadder,
    // Pending resource ops and their bytes, handed over at `finish`.
    ops: Vec<ResourceOp>,
    upload_bytes: Vec<u8>,
    // Frame recording.
    frame_open: bool,
    instances: Vec<Instance>,
    /// The frame's leading quads whose arrays were resident when pushed, summarized.
    prefix: Prefix,
    /// The array of every quad after the prefix.
    quad_arrays: Vec<u32>,
    /// Quad indices a new segment starts at: explicit flushes and draw-state changes.
    flush_marks: Vec<(u32, FlushCause)>,
    /// The draw state quads pushed now get.
    state: DrawState,
    /// The frame's draw states, and where each starts: `(first quad, index into states)`.
    frame_states: Vec<DrawState>,
    state_marks: Vec<(u32, u32)>,
    /// Index of each distinct state in `frame_states`: a frame alternating two states holds
    /// two, however many times it alternates.
    state_lookup: std::collections::HashMap<StateKey, u32>,
    /// The state changed since the last quad: check it at the next one.
    state_dirty: bool,
    /// ANDed into every instance's tint alpha: 0 under [`BlendMode::Additive`] (drawn as
    /// "over" with alpha 0), else `0xFF`.
    alpha_mask: u8,
    /// Placements freed while a frame was open, with the freed texture (`None` for the old
    /// placement of a resized one).
    deferred_frees: Vec<(Placement, Option<TextureId>)>,
    /// The render target of the open frame ([`Batcher::begin_frame_into`]), resolved when the
    /// frame began (a dedicated array: it neither grows nor moves while the frame is open).
    frame_target: Option<PlanTarget>,
    /// The target's id, or [`NO_TARGET`]: quads naming it are refused (a feedback loop).
    target_id: TextureId,
    moved_in_frame: Vec<(ArrayId, ArrayId)>,
    sequence: u64,
    rebuild_pending: bool,
    cpu_copy_bytes: u64,
    /// The white texel of [`Batcher::white`], once asked for.
    white: Option<TextureId>,
    frame: Counters,
    total: Counters,
    plan: FramePlan,
    /// The pending layer writes of each texture, so a whole write supersedes the earlier ones.
    writes: PendingWrites,
}

impl Batcher {
    /// A batcher for a device with `limits`, configured by `config`. The [`Budget`] is derived
    /// here, once.
    ///
    /// # Errors
    /// [`ConfigError`] for a config or limits that cannot make a budget.
    pub fn new(limits: Limits, config: Config) -> Result<Self, ConfigError> {
        let budget = Budget::new(&limits, &config)?;
        Ok(Self {
            tag: NEXT_BATCHER_TAG.fetch_add(1, Ordering::Relaxed),
            alloc: Allocator::new(&budget),
            ladder: SlotLadder::new(&budget),
            limits,
            entries: Vec::new(),
            hot: Vec::new(),
            free_indices: Vec::new(),
            ops: Vec::new(),
            upload_bytes: Vec::new(),
            frame_target: None,
            target_id: NO_TARGET,
            frame_open: false,
            instances: Vec::new(),
            prefix: Prefix::new(budget.instance_capacity),
            quad_arrays: Vec::new(),
            flush_marks: Vec::new(),
            state: DrawState::default(),
            frame_states: Vec::new(),
            state_marks: Vec::new(),
            state_lookup: std::collections::HashMap::new(),
            state_dirty: false,
            alpha_mask: 0xFF,
            deferred_frees: Vec::new(),
            moved_in_frame: Vec::new(),
            sequence: 0,
            rebuild_pending: false,
            cpu_copy_bytes: 0,
            white: None,
            frame: Counters::default(),
            total: Counters::default(),
            plan: FramePlan { instance_capacity: budget.instance_capacity, ..FramePlan::default() },
            writes: PendingWrites::default(),
            budget,
        })
    }

    /// The budget derived at creation.
    pub fn budget(&self) -> &Budget {
        &self.budget
    }
    /// The device limits given at creation.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }
    /// The array allocator (read-only: placements, bytes, classes).
    pub fn allocator(&self) -> &Allocator {
        &self.alloc
    }
    /// Counters of the frame being built (or the last one finished).
    pub fn frame_counters(&self) -> Counters {
        self.frame
    }
    /// Counters since creation.
    pub fn total_counters(&self) -> Counters {
        self.total
    }
    /// The array held by each slot now.
    pub fn slot_arrays(&self) -> &[Option<ArrayId>] {
        self.ladder.units()
    }

    /// Registers a texture with its level-0 pixels (tightly packed RGBA8 rows, top row first,
    /// premultiplied alpha: the backends blend `ONE, ONE_MINUS_SRC_ALPHA`) and admits it into
    /// an array. A [`Usage::RenderTarget`] may pass empty `pixels`.
    ///
    /// # Errors
    /// [`TextureError`] for a zero or oversized texture, bad mip count, wrong pixel length, or
    /// an exhausted budget (then nothing changes).
    pub fn register(&mut self, desc: &TextureDesc, pixels: &[u8]) -> Result<TextureId, TextureError> {
        self.validate(desc, pixels)?;
        // The registry index the texture will get: rectangles that move later name it.
        let index = self.free_indices.last().copied().unwrap_or(self.entries.len() as u32);
        let admission = self.alloc.admit_for(desc, index)?;
        self.apply_admission(&admission);
        let placement = admission.placement;
        let entry = Entry { generation: 0, live: true, desc: *desc, placement, pixels: Vec::new() };
        debug_assert_eq!(index, self.free_indices.last().copied().unwrap_or(self.entries.len() as u32));
        let batcher = self.tag;
        let id = match self.free_indices.pop() {
            Some(index) => {
                let e = &mut self.entries[index as usize];
                let generation = e.generation;
                *e = Entry { generation, ..entry };
                TextureId { index, generation, batcher }
            }
            None => {
                self.entries.push(Entry { generation: 1, ..entry });
                self.hot.push(Hot::DEAD);
                TextureId { index: self.entries.len() as u32 - 1, generation: 1, batcher }
            }
        };
        self.refresh_hot(id.index);
        self.drain_alloc_ops();
        if !pixels.is_empty() {
            self.queue_write(id, pixels);
        }
        Ok(id)
    }

    /// Replaces a texture's pixels (same size). Takes effect for the whole frame being built:
    /// uploads are applied before any draw.
    ///
    /// # Errors
    /// [`TextureError::Stale`] or [`TextureError::PixelLength`].
    pub fn update(&mut self, id: TextureId, pixels: &[u8]) -> Result<(), TextureError> {
        let desc = self.entry(id)?.desc;
        check_len(&desc, pixels)?;
        self.queue_write(id, pixels);
        Ok(())
    }

    /// Replaces the pixels of a rectangle `[x, y, width, height]` of a texture (texels, top
    /// left origin), e.g. a glyph in a glyph cache or a frame of a dynamic atlas: one layer
    /// write of just that rectangle. `pixels` are tightly packed rows of the rectangle, in the
    /// texture's format, premultiplied. Like [`Batcher::update`] it applies to the whole frame
    /// being built.
    ///
    /// ```
    /// # use layerbatch_core::{Batcher, Config, Limits, TextureDesc};
    /// let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default())?;
    /// let atlas = batcher.register(&TextureDesc::new(64, 64), &[0; 64 * 64 * 4])?;
    /// batcher.update_region(atlas, [8, 16, 4, 2], &[255; 4 * 2 * 4])?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`TextureError::Stale`]; [`TextureError::Region`] for an empty rectangle, one reaching
    /// past the texture, or a texture with mip levels (its smaller levels could not follow);
    /// [`TextureError::PixelLength`] when `pixels` is not the rectangle's size.
    pub fn update_region(&mut self, id: TextureId, rect_px: [u32; 4], pixels: &[u8]) -> Result<(), TextureError> {
        let e = self.entry(id)?;
        let desc = e.desc;
        let [x, y, w, h] = rect_px;
        let inside = u64::from(x) + u64::from(w) <= u64::from(desc.width_px)
            && u64::from(y) + u64::from(h) <= u64::from(desc.height_px);
        if w == 0 || h == 0 || !inside || desc.mip_levels != 1 {
            return Err(TextureError::Region {
                rect_px,
                width_px: desc.width_px,
                height_px: desc.height_px,
                mip_levels: desc.mip_levels,
            });
        }
        let region = TextureDesc { width_px: w, height_px: h, ..desc };
        check_len(&region, pixels)?;
        let bpp = desc.format.bytes_per_pixel() as usize;
        let e = &mut self.entries[id.index as usize];
        if !e.pixels.is_empty() {
            // Keep the CPU copy whole: patch the rectangle's rows.
            let row = w as usize * bpp;
            for r in 0..h as usize {
                let at = ((y as usize + r) * desc.width_px as usize + x as usize) * bpp;
                e.pixels[at..at + row].copy_from_slice(&pixels[r * row..(r + 1) * row]);
            }
        }
        let start = self.upload_bytes.len();
        self.upload_bytes.extend_from_slice(pixels);
        self.writes.note(id, self.ops.len());
        let [px, py, ..] = e.placement.rect_px;
        self.ops.push(ResourceOp::WriteLayer {
            texture: id,
            array: e.placement.array,
            layer: e.placement.layer,
            x_px: px + x,
            y_px: py + y,
            width_px: w,
            height_px: h,
            mip_levels: 1,
            bytes: start..self.upload_bytes.len(),
        });
        Ok(())
    }

    /// Changes a [`Usage::Dynamic`] texture's size and pixels. Its one-texture array is
    /// replaced; the id stays valid. Quads pushed before the resize in the frame being
    /// recorded still draw the old pixels (unlike [`Batcher::update`], whose pixels apply to
    /// the whole frame): the old array lives until the frame is planned.
    ///
    /// # Errors
    /// [`TextureError::NotDynamic`], [`TextureError::Stale`], or any registration error for
    /// the new size (then the texture keeps its old size and pixels).
    pub fn resize(&mut self, id: TextureId, width_px: u32, height_px: u32, pixels: &[u8]) -> Result<(), TextureError> {
        let old = self.entry(id)?.clone();
        if old.desc.usage != Usage::Dynamic {
            return Err(TextureError::NotDynamic(id));
        }
        let desc = TextureDesc { width_px, height_px, ..old.desc };
        self.validate(&desc, pixels)?;
        let admission = self.alloc.admit_for(&desc, id.index)?;
        self.apply_admission(&admission);
        self.release(old.placement, None);
        let e = &mut self.entries[id.index as usize];
        e.desc = desc;
        e.placement = admission.placement;
        self.refresh_hot(id.index);
        self.drain_alloc_ops();
        if !pixels.is_empty() {
            self.queue_write(id, pixels);
        }
        Ok(())
    }

    /// Frees a texture. Its id is rejected from now on; its layer is reused after the frame
    /// being built (quads already pushed still draw it).
    ///
    /// An index is reused with a new generation until its generation reaches `u32::MAX`; then
    /// it is retired for good (4 bytes of registry per 4 billion frees), so a stale id never
    /// comes back to life.
    ///
    /// # Errors
    /// [`TextureError::Stale`] for a freed (double free) or foreign id.
    pub fn free(&mut self, id: TextureId) -> Result<(), TextureError> {
        let placement = self.entry(id)?.placement;
        if !self.frame_open {
            // No quad of an open frame draws it: its pending writes are dead.
            self.writes.supersede(id, &mut self.ops, &mut self.upload_bytes);
        }
        self.hot[id.index as usize] = Hot::DEAD;
        let e = &mut self.entries[id.index as usize];
        e.live = false;
        self.cpu_copy_bytes -= e.pixels.len() as u64;
        e.pixels = Vec::new();
        if let Some(next) = e.generation.checked_add(1) {
            e.generation = next;
            self.free_indices.push(id.index);
        }
        self.release(placement, Some(id));
        Ok(())
    }

    /// A 1x1 white texture for untextured quads ([`Quad::solid`]: health bars, debug boxes,
    /// fades), registered on first use. It is a rectangle of the atlas pages of linear RGBA8
    /// images, so solid quads share the draw and the slot of the sprites around them instead
    /// of costing a slot or a draw of their own. The batcher looks after it: [`Batcher::restore`]
    /// re-uploads it itself.
    ///
    /// ```
    /// # use layerbatch_core::{Batcher, Config, Limits, Quad, TextureDesc};
    /// let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default())?;
    /// let sprite = batcher.register(&TextureDesc::new(16, 16), &[200; 16 * 16 * 4])?;
    /// let white = batcher.white()?;
    /// batcher.begin_frame();
    /// batcher.push(&Quad::rect(sprite, [0.0, 0.0], [16.0, 16.0]))?;
    /// batcher.push(&Quad::solid(white, [0.0, 20.0], [16.0, 2.0], [0, 200, 0, 255]))?; // a health bar
    /// let plan = batcher.finish();
    /// assert_eq!((plan.segments.len(), plan.segments[0].tier), (1, 1)); // same draw, same slot
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`TextureError::BudgetExhausted`] on first use if not even a texel fits.
    pub fn white(&mut self) -> Result<TextureId, TextureError> {
        match self.white {
            Some(id) if self.contains(id) => Ok(id),
            _ => {
                let id = self.register(&TextureDesc::new(1, 1), &[255; 4])?;
                self.white = Some(id);
                Ok(id)
            }
        }
    }

    /// Whether `id` names a live texture.
    pub fn contains(&self, id: TextureId) -> bool {
        self.entry(id).is_ok()
    }

    /// Where a live texture is stored.
    ///
    /// # Errors
    /// [`TextureError::Stale`].
    pub fn placement(&self, id: TextureId) -> Result<Placement, TextureError> {
        Ok(self.entry(id)?.placement)
    }

    /// The description of a live texture.
    ///
    /// # Errors
    /// [`TextureError::Stale`].
    pub fn desc(&self, id: TextureId) -> Result<TextureDesc, TextureError> {
        Ok(self.entry(id)?.desc)
    }

    /// Starts recording a frame.
    ///
    /// If the previous frame is still open (the host returned early between `begin_frame`
    /// and `finish`, e.g. with `?` on a [`Batcher::push`]), its quads are discarded and
    /// counted in [`Counters::frames_discarded`]; registrations, updates and frees made
    /// meanwhile are kept. So the usual pattern is safe:
    ///
    /// ```
    /// # use layerbatch_core::{Batcher, Config, Limits, Quad, QuadError, TextureDesc};
    /// # let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
    /// # let tex = batcher.register(&TextureDesc::new(1, 1), &[255; 4]).unwrap();
    /// fn draw(batcher: &mut Batcher, quads: &[Quad]) -> Result<(), QuadError> {
    ///     batcher.begin_frame();
    ///     for q in quads {
    ///         batcher.push(q)?; // an error leaves the frame open...
    ///     }
    ///     batcher.finish();
    ///     Ok(())
    /// }
    /// let bad = Quad::rect(tex, [f32::NAN, 0.0], [1.0, 1.0]);
    /// assert!(draw(&mut batcher, &[bad]).is_err());
    /// draw(&mut batcher, &[Quad::rect(tex, [0.0, 0.0], [1.0, 1.0])]).unwrap(); // ...and this is fine
    /// assert_eq!(batcher.plan().counters.frames_discarded, 1);
    /// ```
    pub fn begin_frame(&mut self) {
        let discarded = self.frame_open;
        if discarded {
            // Releases what the abandoned frame's frees deferred.
            for (p, freed) in std::mem::take(&mut self.deferred_frees) {
                // The frame that drew the freed texture is gone: so are its writes.
                if let Some(id) = freed {
                    self.writes.supersede(id, &mut self.ops, &mut self.upload_bytes);
                }
                self.free_placement(p);
            }
            self.drain_alloc_ops();
        }
        // Arrays no plan has brought to the device yet are laid out afresh, for free, before
        // any quad points into them: a set registered at load time packs as tightly as it
        // would settle over many frames.
        let relaid = self.alloc.relay_born();
        if !relaid.is_empty() {
            self.apply_relaid(&relaid);
        }
        self.frame_open = true;
        self.frame_target = None;
        self.target_id = NO_TARGET;
        self.instances.clear();
        self.prefix.reset();
        self.quad_arrays.clear();
        self.flush_marks.clear();
        self.frame_states.clear();
        self.state_lookup.clear();
        self.state_marks.clear();
        self.state = DrawState::default();
        self.alpha_mask = 0xFF;
        let first = self.state_index(self.state);
        self.state_marks.push((0, first));
        self.state_dirty = false;
        self.moved_in_frame.clear();
        self.frame = Counters { frames_discarded: discarded as u64, ..Counters::default() };
    }

    /// Begins a frame drawn into `target`, a [`Usage::RenderTarget`] texture, instead of the
    /// host's framebuffer (render to texture: a minimap, a post-process source, a cached
    /// layer). It is [`Batcher::begin_frame`] plus a target: the plan [`Batcher::finish`]
    /// returns has [`FramePlan::target`] set, every backend draws its quads into the texture
    /// (over its whole size: the host's viewport does not apply), and quads of later plans
    /// sample what was drawn, with the same orientation as uploaded pixels (see
    /// [`PlanTarget`]: a target drawn with default UVs is upright).
    ///
    /// `clear_rgba` clears the texture first (premultiplied, `0.0..=1.0`; a value outside is
    /// clamped, NaN is 0); `None` draws over what it holds. A quad that samples the target
    /// itself is refused ([`QuadError::SamplesTarget`]): it would read what it writes.
    ///
    /// ```
    /// use layerbatch_core::{Batcher, Config, Limits, Quad, TextureDesc, Usage};
    /// let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default())?;
    /// let sprite = batcher.register(&TextureDesc::new(16, 16), &[255; 16 * 16 * 4])?;
    /// let minimap = batcher.register(&TextureDesc::new(128, 128).with_usage(Usage::RenderTarget), &[])?;
    /// // Frame 1: draw into the minimap.
    /// batcher.begin_frame_into(minimap, Some([0.0, 0.0, 0.0, 1.0]))?;
    /// batcher.push(&Quad::rect(sprite, [8.0, 8.0], [16.0, 16.0]))?;
    /// assert!(batcher.push(&Quad::rect(minimap, [0.0, 0.0], [8.0, 8.0])).is_err());
    /// assert_eq!(batcher.finish().target.map(|t| t.size_px), Some([128, 128]));
    /// // Frame 2: draw the minimap on screen.
    /// batcher.begin_frame();
    /// batcher.push(&Quad::rect(minimap, [600.0, 20.0], [128.0, 128.0]))?;
    /// assert!(batcher.finish().target.is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`TextureError::Stale`] for a freed or foreign id, [`TextureError::NotRenderTarget`]
    /// for a texture of another usage. Either way no frame is begun (an open one stays open).
    pub fn begin_frame_into(&mut self, target: TextureId, clear_rgba: Option<[f32; 4]>) -> Result<(), TextureError> {
        let e = self.entry(target)?;
        if e.desc.usage != Usage::RenderTarget {
            return Err(TextureError::NotRenderTarget(target));
        }
        let p = e.placement;
        let size_px = [e.desc.width_px, e.desc.height_px];
        let clear_rgba = clear_rgba.map(|c| c.map(|v| if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) }));
        self.begin_frame();
        self.frame_target = Some(PlanTarget { texture: target, array: p.array, layer: p.layer, size_px, clear_rgba });
        self.target_id = target;
        Ok(())
    }

    /// Records a quad, drawn after every quad pushed before it.
    ///
    /// # Errors
    /// [`QuadError`] for a stale or foreign texture, a non-finite coordinate, or no open
    /// frame; the quad is dropped and nothing else changes.
    #[inline]
    pub fn push(&mut self, quad: &Quad) -> Result<(), QuadError> {
        if !self.frame_open {
            return Err(QuadError::NoFrame);
        }
        if self.state_dirty {
            self.commit_state();
        }
        if let Err(e) = check_quad(&self.hot, quad, self.target_id) {
            self.frame.quads_rejected += 1;
            return Err(e);
        }
        let hot = self.hot[quad.texture.index as usize];
        let n = self.instances.len() as u32;
        self.instances.push(instance(&hot, quad, self.alpha_mask));
        self.record(n, &hot);
        Ok(())
    }

    /// [`Batcher::record`] for checked quads `start..start + chunk.len()`, with the prefix's
    /// run in locals while it extends.
    fn record_chunk(&mut self, start: u32, chunk: &[Quad]) {
        let mut k = 0;
        if self.prefix.open {
            let (hot, p) = (&self.hot, &mut self.prefix);
            let mut run = p.run();
            let slots = chunk.iter().map(|q| hot[q.texture.index as usize].slot);
            k = run.note_all(start, slots, &mut p.runs) as usize;
            p.set_run(run);
        }
        for (j, q) in chunk.iter().enumerate().skip(k) {
            let hot = self.hot[q.texture.index as usize];
            self.record(start + j as u32, &hot);
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
        if !self.frame_open {
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
            // Optimistic: check and convert in one pass (one read of the quads from memory);
            // a chunk with a bad quad is taken back and redone quad by quad. The `map` over a
            // slice is exact-size: `extend` reserves once and writes without a capacity check
            // per quad.
            let start = self.instances.len();
            let mut all_ok = true;
            let (hot, alpha_mask, target) = (&self.hot, self.alpha_mask, self.target_id);
            self.instances.extend(chunk.iter().map(|q| {
                let h = hot.get(q.texture.index as usize).unwrap_or(&Hot::DEAD);
                // `h.key` carries this batcher's tag: one compare checks the id's tag too.
                all_ok &=
                    (h.key == Hot::key(q.texture.batcher, q.texture.generation)) & q.in_range() & (q.texture != target);
                instance(h, q, alpha_mask)
            }));
            if all_ok {
                self.record_chunk(start as u32, chunk);
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

    /// Ends the current segment here: quads pushed after this go into a new draw call. Does
    /// nothing if no quad is pending or no frame is open. Counted as an explicit flush.
    pub fn flush(&mut self) {
        if !self.frame_open {
            return;
        }
        let at = self.instances.len() as u32;
        if at > 0 && self.flush_marks.last().map(|m| m.0) != Some(at) {
            self.prefix.flush(at, FlushCause::Explicit);
            self.flush_marks.push((at, FlushCause::Explicit));
        }
    }

    /// The draw state quads pushed from now on get.
    pub fn draw_state(&self) -> DrawState {
        self.state
    }

    /// Sets how quads pushed from now on blend ([`BlendMode::Over`] at first). Lasts until
    /// changed or the frame ends: [`Batcher::begin_frame`] starts every frame from
    /// [`DrawState::default`], so a frame the host left early (`?` after a `set_clip`) cannot
    /// clip the next one. A change between two quads of a frame ends the segment there
    /// (counted as `flushes_state_change`); a change with no quad since the last one costs
    /// nothing.
    ///
    /// ```
    /// # use layerbatch_core::{Batcher, BlendMode, Config, Limits, Quad, TextureDesc};
    /// let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default())?;
    /// let spark = batcher.register(&TextureDesc::new(4, 4), &[255; 64])?;
    /// batcher.begin_frame();
    /// batcher.push(&Quad::rect(spark, [0.0, 0.0], [4.0, 4.0]))?;
    /// batcher.set_blend(BlendMode::Additive); // particles
    /// batcher.push(&Quad::rect(spark, [8.0, 0.0], [4.0, 4.0]))?;
    /// batcher.set_blend(BlendMode::Multiply); // a shadow
    /// batcher.push(&Quad::rect(spark, [16.0, 0.0], [4.0, 4.0]))?;
    /// let plan = batcher.finish();
    /// // Additive shares the draw of "over" quads; multiply needs a draw of its own.
    /// assert_eq!(plan.segments.len(), 2);
    /// assert_eq!(plan.state(&plan.segments[1]).blend, BlendMode::Multiply);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_blend(&mut self, blend: BlendMode) {
        self.set_state(DrawState { blend, ..self.state });
    }

    /// Clips quads pushed from now on to `[x, y, width, height]` of the target (pixels, y
    /// down), or not at all with `None` (the default). Lasts until changed or the frame ends; see
    /// [`Batcher::set_blend`] for what a change costs.
    pub fn set_clip(&mut self, clip_px: Option<[u32; 4]>) {
        self.set_state(DrawState { clip_px, ..self.state });
    }

    /// Transforms the corners of quads pushed from now on by the affine `[a, b, c, d, tx,
    /// ty]`: `(x, y)` is drawn at `(a x + c y + tx, b x + d y + ty)`. A camera: pan, zoom and
    /// rotation without touching the quads. Identity at first; lasts until changed or the frame ends; see
    /// [`Batcher::set_blend`] for what a change costs. A non-finite transform is ignored.
    /// Takes an [`Affine2`](crate::Affine2), the `[f32; 6]` above, or with the `mint` feature
    /// a `mint::ColumnMatrix2x3<f32>` or `mint::ColumnMatrix3<f32>`.
    pub fn set_transform(&mut self, transform: impl Into<crate::Affine2>) {
        let transform = transform.into().0;
        if transform.iter().all(|v| v.is_finite()) {
            self.set_state(DrawState { transform, ..self.state });
        }
    }

    /// Makes `state` current. The boundary it may need is marked lazily, at the next quad
    /// ([`Batcher::commit_state`]), so changes that are undone before any quad cost nothing.
    fn set_state(&mut self, state: DrawState) {
        self.state = state;
        self.alpha_mask = if state.blend == BlendMode::Additive { 0 } else { 0xFF };
        self.state_dirty = true;
    }

    /// Before recording a quad after a state change: if the state differs from the one the
    /// frame's last quads used, a new segment starts here.
    #[cold]
    fn commit_state(&mut self) {
        self.state_dirty = false;
        let at = self.instances.len() as u32;
        let &(since, index) = self.state_marks.last().expect("begin_frame marks the first state");
        // Additive quads share "over" draws (their tint alpha is zeroed).
        let mut state = self.state;
        if state.blend == BlendMode::Additive {
            state.blend = BlendMode::Over;
        }
        if self.frame_states[index as usize] == state {
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

    /// The index of `state` in the frame's states, added if new.
    fn state_index(&mut self, state: DrawState) -> u32 {
        let key = StateKey::of(&state);
        if let Some(&i) = self.state_lookup.get(&key) {
            return i;
        }
        let i = self.frame_states.len() as u32;
        self.frame_states.push(state);
        self.state_lookup.insert(key, i);
        i
    }

    /// Plans the recorded frame: resource ops to apply, then segments to draw in order.
    ///
    /// Every plan must reach the backend, in order: its resource ops (creations, growths,
    /// uploads) build on the previous plan's, and slot binds assume the previous plan's slot
    /// tables. A host that skips drawing a frame (a minimised window) should skip
    /// `begin_frame`/`finish` too, not just the draw. Plans are numbered
    /// ([`FramePlan::sequence`]) and every executor refuses a gap or a repeat with
    /// [`crate::PlanError::Sequence`]; after a gap, [`Batcher::restore`] is the way back.
    ///
    /// Without an open frame, this plans an empty frame (as if `begin_frame` had been called).
    pub fn finish(&mut self) -> &FramePlan {
        if !self.frame_open {
            self.begin_frame();
        }
        self.frame_open = false;
        // Arrays that grew while the frame was recorded: quads recorded before still name the
        // old id; the layer is the same.
        if !self.moved_in_frame.is_empty() {
            for a in &mut self.quad_arrays {
                for &(old, new) in &self.moved_in_frame {
                    if *a & !PREPLACED == old.0 {
                        *a = new.0 | (*a & PREPLACED);
                    }
                }
            }
        }
        if let Some(t) = &mut self.frame_target {
            for &(old, new) in &self.moved_in_frame {
                if t.array == old {
                    t.array = new;
                }
            }
        }
        let plan = &mut self.plan;
        plan.batcher = self.tag;
        plan.target = self.frame_target.take();
        self.target_id = NO_TARGET;
        self.sequence += 1;
        plan.sequence = self.sequence;
        plan.rebuild = std::mem::take(&mut self.rebuild_pending);
        plan.segments.clear();
        plan.binds.clear();
        plan.slot_tables.clear();
        self.writes.drop_superseded(&mut self.ops, &mut self.upload_bytes);
        std::mem::swap(&mut plan.ops, &mut self.ops);
        self.ops.clear();
        // Arrays born and grown inside this plan are created once, at their final size.
        self.alloc.patch_ops(plan.ops.iter_mut().filter_map(|op| match op {
            ResourceOp::Array(a) => Some(a),
            ResourceOp::WriteLayer { .. } => None,
        }));
        // Arrays this plan destroys or grows from are freed once its commands finish.
        self.alloc.end_plan();
        std::mem::swap(&mut plan.upload_bytes, &mut self.upload_bytes);
        self.upload_bytes.clear();
        std::mem::swap(&mut plan.instances, &mut self.instances);
        let c = &mut self.frame;
        for op in &plan.ops {
            match op {
                ResourceOp::WriteLayer { bytes, .. } => {
                    c.layer_uploads += 1;
                    c.bytes_uploaded += bytes.len() as u64;
                }
                ResourceOp::Array(ArrayOp::Create { .. }) => c.arrays_created += 1,
                ResourceOp::Array(ArrayOp::Grow { .. }) => {
                    c.arrays_created += 1;
                    c.arrays_destroyed += 1;
                    c.array_growths += 1;
                }
                ResourceOp::Array(ArrayOp::Shrink { .. }) => {
                    c.arrays_created += 1;
                    c.arrays_destroyed += 1;
                    c.array_shrinks += 1;
                }
                ResourceOp::Array(ArrayOp::CopyRect { .. }) => c.rect_copies += 1,
                ResourceOp::Array(ArrayOp::Destroy { .. }) => c.arrays_destroyed += 1,
            }
        }
        c.quads = plan.instances.len() as u64;
        c.frames = 1;
        c.device_rebuilds = plan.rebuild as u64;
        self.ladder.plan_frame(&self.prefix, &self.quad_arrays, &self.flush_marks, &self.budget, plan, c);
        // Each segment draws with the state its first quad was pushed under.
        plan.states.clear();
        plan.states.extend_from_slice(&self.frame_states);
        let mut marks = self.state_marks.iter().peekable();
        let mut state = 0;
        for seg in &mut plan.segments {
            while let Some(&&(at, index)) = marks.peek() {
                if at > seg.instances.start {
                    break;
                }
                state = index;
                marks.next();
            }
            seg.state = state;
        }
        self.refresh_slots();
        // Layers freed during the frame are released now that the frame no longer needs them.
        for (p, _) in std::mem::take(&mut self.deferred_frees) {
            self.free_placement(p);
        }
        // Memory comes back between frames: the next plan carries the ops.
        let moved = self.alloc.maintain();
        self.apply_moved(&moved);
        self.refresh_slots();
        self.drain_alloc_ops();
        self.frame.bytes_allocated = self.alloc.allocated_bytes();
        self.frame.cpu_copy_bytes = self.cpu_copy_bytes;
        self.total.accumulate(&self.frame);
        self.plan.counters = self.frame;
        self.plan.totals = self.total;
        &self.plan
    }

    /// Resource ops queued for the next plan (registrations, updates and frees since the
    /// last [`Batcher::finish`]).
    pub fn pending_ops(&self) -> &[ResourceOp] {
        &self.ops
    }

    /// Bytes of pixels queued for the next plan (live writes only: a whole write supersedes
    /// a texture's earlier pending writes, and their bytes are reclaimed).
    pub fn pending_upload_bytes(&self) -> usize {
        self.upload_bytes.len() - self.writes.dead_bytes().min(self.upload_bytes.len())
    }

    /// The last plan [`Batcher::finish`] returned.
    pub fn plan(&self) -> &FramePlan {
        &self.plan
    }

    /// The device no longer holds what the plans built: a plan was skipped, an executor
    /// returned an error part-way, or the context or device was lost and replaced. The next
    /// plan is a *rebuild* plan ([`FramePlan::rebuild`]): the executor drops whatever arrays it
    /// holds, and the plan re-creates every live array at its current size, then binds every
    /// slot it uses again. Every [`TextureId`] stays valid.
    ///
    /// With [`Config::keep_pixels`] on, core re-uploads every texture from its CPU copy and
    /// the returned list is empty. Otherwise (the default) core keeps no pixels, and the
    /// returned ids, every live texture whose pixels the rebuild cannot supply, must be
    /// re-sent with [`Batcher::update`] (or [`Batcher::resize`]) before their next draw; until
    /// then they sample transparent black. Writes queued since the last plan are kept and not
    /// listed. Render targets come back cleared (transparent black) and are never listed.
    ///
    /// A frame being recorded stays open: its quads are drawn by the rebuild plan. (A texture
    /// freed during that frame is not re-uploaded, so its quads in it draw transparent.)
    ///
    /// Executors accept a rebuild plan after any earlier plan, so this is also the way back
    /// from [`crate::PlanError::Sequence`].
    ///
    /// ```
    /// use layerbatch_core::{Batcher, Config, Limits, MockDevice, PlanError, TextureDesc};
    /// let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default())?;
    /// let mut device = MockDevice::new(batcher.budget());
    /// let pixels = [255u8; 4 * 4 * 4];
    /// let tex = batcher.register(&TextureDesc::new(4, 4), &pixels)?;
    /// batcher.begin_frame();
    /// device.execute(batcher.finish())?;
    /// batcher.begin_frame();
    /// let _skipped = batcher.finish(); // never executed
    /// batcher.begin_frame();
    /// assert!(matches!(device.execute(batcher.finish()), Err(PlanError::Sequence { expected: 2, got: 3 })));
    ///
    /// for id in batcher.restore() {
    ///     batcher.update(id, &pixels)?; // here: `tex`
    /// }
    /// batcher.begin_frame();
    /// device.execute(batcher.finish())?; // accepted: it rebuilds the device
    /// assert!(batcher.contains(tex));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn restore(&mut self) -> Vec<TextureId> {
        // Frees since the last plan are already reflected in the allocator; their Destroy ops
        // and every other array op are superseded by re-creating what lives now.
        self.writes.drop_superseded(&mut self.ops, &mut self.upload_bytes);
        let pending = std::mem::take(&mut self.ops);
        // Every live array is created by the rebuild plan: until then each may still grow
        // in place.
        self.alloc.recreate_all();
        self.ops.extend(self.alloc.arrays().map(|(array, desc)| ResourceOp::Array(ArrayOp::Create { array, desc })));
        let mut written = vec![false; self.entries.len()];
        for op in pending {
            if let ResourceOp::WriteLayer { texture, array, layer, x_px, y_px, width_px, height_px, .. } = op {
                let Ok(e) = self.entry(texture) else { continue };
                let p = &e.placement;
                let whole = [x_px, y_px, width_px, height_px] == p.rect_px;
                let here = p.array == array && p.layer == layer;
                // A region write is kept after a kept whole write of its texture (in order);
                // alone it is dropped: the re-upload (or the CPU copy, which has it) follows.
                if here && (whole || written[texture.index as usize]) {
                    written[texture.index as usize] = true;
                    self.writes.note(texture, self.ops.len());
                    self.ops.push(op);
                }
            }
        }
        // Bytes of dropped writes stay in `upload_bytes` unreferenced until the plan is made;
        // the kept writes still point at theirs.
        self.ladder.forget_bindings();
        self.rebuild_pending = true;
        let tag = self.tag;
        let mut missing = Vec::new();
        for (i, &was_written) in written.iter().enumerate() {
            let e = &self.entries[i];
            if !e.live || e.desc.usage == Usage::RenderTarget || was_written {
                continue;
            }
            let id = TextureId { index: i as u32, generation: e.generation, batcher: tag };
            if self.white == Some(id) {
                self.queue_write(id, &[255; 4]);
            } else if e.pixels.is_empty() {
                missing.push(id);
            } else {
                let pixels = std::mem::take(&mut self.entries[i].pixels);
                self.cpu_copy_bytes -= pixels.len() as u64;
                self.queue_write(id, &pixels);
            }
        }
        missing
    }

    /// Bytes of the CPU copies kept for [`Batcher::restore`] ([`Config::keep_pixels`]); 0 when
    /// off. Counted apart from GPU memory, also as [`Counters::cpu_copy_bytes`].
    pub fn cpu_copy_bytes(&self) -> u64 {
        self.cpu_copy_bytes
    }

    /// Test hook: sets the generation of a registry index, to reach the end of the generation
    /// range without 2^32 frees.
    #[cfg(test)]
    pub(crate) fn set_generation_for_test(&mut self, index: u32, generation: u32) {
        self.entries[index as usize].generation = generation;
        self.refresh_hot(index);
    }

    fn entry(&self, id: TextureId) -> Result<&Entry, TextureError> {
        debug_assert_eq!(
            self.entries
                .get(id.index as usize)
                .is_some_and(|e| e.live && e.generation == id.generation && id.batcher == self.tag),
            self.hot.get(id.index as usize).is_some_and(|h| h.key == Hot::key(id.batcher, id.generation)),
        );
        match self.entries.get(id.index as usize) {
            Some(e) if e.live && e.generation == id.generation && id.batcher == self.tag => Ok(e),
            _ => Err(TextureError::Stale(id)),
        }
    }

    fn validate(&self, desc: &TextureDesc, pixels: &[u8]) -> Result<(), TextureError> {
        let (w, h) = (desc.width_px, desc.height_px);
        if w == 0 || h == 0 {
            return Err(TextureError::ZeroSize { width_px: w, height_px: h });
        }
        let max_px = self.budget.max_texture_size_px;
        if w > max_px || h > max_px {
            return Err(TextureError::TooLarge { width_px: w, height_px: h, max_px });
        }
        let max_levels = max_mip_levels(w, h);
        if desc.mip_levels == 0 || desc.mip_levels > max_levels {
            return Err(TextureError::MipLevels { mip_levels: desc.mip_levels, width_px: w, height_px: h, max_levels });
        }
        if pixels.is_empty() && desc.usage == Usage::RenderTarget {
            return Ok(());
        }
        check_len(desc, pixels)
    }

    /// Recomputes what `push` reads of a live entry.
    fn refresh_hot(&mut self, index: u32) {
        let e = &self.entries[index as usize];
        let [x, y, w, h] = e.placement.rect_px.map(|v| v as f32);
        self.hot[index as usize] = Hot {
            key: Hot::key(self.tag, e.generation),
            uv_offset: [x, y, x, y],
            uv_scale: [w, h, w, h],
            tex_rect: [x, y, x + w, y + h],
            flags_layer: flags_layer(&e.desc, &e.placement, self.alloc.packs(&e.desc)),
            array: e.placement.array.0,
            slot: self.ladder.resident(e.placement.array.0).unwrap_or(Hot::NO_SLOT),
        };
    }

    /// Re-reads every live texture's slot after the ladder changed.
    fn refresh_slots(&mut self) {
        for h in self.hot.iter_mut().filter(|h| h.key != 0) {
            h.slot = self.ladder.resident(h.array).unwrap_or(Hot::NO_SLOT);
        }
    }

    fn apply_admission(&mut self, admission: &Admission) {
        if let Some((old, new)) = admission.moved {
            self.array_moved(old, new);
        }
    }

    /// Repacks fragmented atlas pages now: rectangles move down from the top layers of each
    /// page array (GPU copies in the next plan, counted as `rect_copies`) and the emptied
    /// layers are given back. Every [`TextureId`] stays valid. Returns how many textures
    /// moved.
    ///
    /// Call it between frames: with a frame open (its quads point at the old places) it does
    /// nothing and returns 0. `Config::auto_compact` (on by default) does the same by itself
    /// for page arrays less than half full.
    pub fn compact(&mut self) -> usize {
        if self.frame_open {
            return 0;
        }
        let moved = self.alloc.compact();
        self.apply_moved(&moved);
        self.drain_alloc_ops();
        self.refresh_slots();
        moved.iter().filter(|m| matches!(m, Moved::Rect { .. })).count()
    }

    fn release(&mut self, placement: Placement, freed: Option<TextureId>) {
        if self.frame_open {
            self.deferred_frees.push((placement, freed));
        } else {
            self.free_placement(placement);
            self.drain_alloc_ops();
        }
    }

    fn free_placement(&mut self, placement: Placement) {
        // The batcher frees only placements the allocator issued, once.
        let freed = self.alloc.free(&placement);
        debug_assert!(freed.is_ok(), "{freed:?}");
        if placement.dedicated {
            // Only its own (dead or resized) texture used the array: no live entry's slot
            // changes.
            self.ladder.forget(placement.array);
        }
    }

    fn drain_alloc_ops(&mut self) {
        self.ops.extend(self.alloc.drain_ops().map(ResourceOp::Array));
    }

    fn queue_write(&mut self, id: TextureId, pixels: &[u8]) {
        // A whole write replaces every texel of the texture: its earlier pending writes are
        // dead (a host that updates while skipping frames queues one write, not thousands).
        self.writes.supersede(id, &mut self.ops, &mut self.upload_bytes);
        self.writes.note(id, self.ops.len());
        let keep = self.budget.keep_pixels;
        let e = &mut self.entries[id.index as usize];
        if keep && e.desc.usage != Usage::RenderTarget {
            self.cpu_copy_bytes = self.cpu_copy_bytes - e.pixels.len() as u64 + pixels.len() as u64;
            e.pixels.clear();
            e.pixels.extend_from_slice(pixels);
        }
        let start = self.upload_bytes.len();
        push_mip_chain(
            &mut self.upload_bytes,
            pixels,
            e.desc.width_px,
            e.desc.height_px,
            e.desc.mip_levels,
            e.desc.format,
        );
        let [x_px, y_px, ..] = e.placement.rect_px;
        self.ops.push(ResourceOp::WriteLayer {
            texture: id,
            array: e.placement.array,
            layer: e.placement.layer,
            x_px,
            y_px,
            width_px: e.desc.width_px,
            height_px: e.desc.height_px,
            mip_levels: e.desc.mip_levels,
            bytes: start..self.upload_bytes.len(),
        });
    }
}

/// What `push` reads of a texture, kept apart from the rest of its entry so the hot loop
/// touches 32 bytes per texture.
#[derive(Clone, Copy, Debug)]
struct Hot {
    /// [`Hot::key`] of the live id; 0 when the index holds no live texture.
    key: u64,
    /// The top-left corner of the texture's rectangle in its layer, texels, twice.
    uv_offset: [f32; 4],
    /// The rectangle's width and height, twice: with `uv_offset`, one multiply-add maps a
    /// quad's UVs to texels.
    uv_scale: [f32; 4],
    /// [`Instance::tex_rect`].
    tex_rect: [f32; 4],
    /// Layer and flags bits of [`Instance::slot_flags_layer`].
    flags_layer: u32,
    /// The array.
    array: u32,
    /// The slot holding the array, or [`Hot::NO_SLOT`]. Slots change only while a frame is
    /// planned and when arrays grow or die; each refreshes this.
    slot: u32,
}

impl Hot {
    const DEAD: Hot = Hot {
        key: 0,
        uv_offset: [0.0; 4],
        uv_scale: [0.0; 4],
        tex_rect: [0.0; 4],
        flags_layer: 0,
        array: 0,
        slot: Hot::NO_SLOT,
    };
    /// No slot holds the array. Has no bit in [`Instance::SLOT_MASK`].
    const NO_SLOT: u32 = 1 << 31;

    /// Batcher tag and generation in one word: one compare checks both. Never 0 for a live
    /// id (generations start at 1).
    const fn key(batcher: u32, generation: u32) -> u64 {
        ((batcher as u64) << 32) | generation as u64
    }
}

/// Whether `quad` may be recorded: a live texture of this batcher, finite coordinates.
#[inline(always)]
fn check_quad(hot: &[Hot], quad: &Quad, target: TextureId) -> Result<(), QuadError> {
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

/// [`Batcher::target_id`] outside a frame drawn into a texture: generation 0 is never live, so
/// no quad of a live texture names it.
const NO_TARGET: TextureId = TextureId { index: u32::MAX, generation: 0, batcher: 0 };

/// The instance of a checked quad. Most quads use an array a slot already holds: the slot is
/// written now, so `finish` need not touch the instance again.
#[inline(always)]
fn instance(hot: &Hot, quad: &Quad, alpha_mask: u8) -> Instance {
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
        slot_flags_layer: hot.flags_layer | (hot.slot & Instance::SLOT_MASK),
    }
}

fn check_len(desc: &TextureDesc, pixels: &[u8]) -> Result<(), TextureError> {
    if pixels.len() != desc.byte_len() {
        return Err(TextureError::PixelLength {
            actual_bytes: pixels.len(),
            expected_bytes: desc.byte_len(),
            width_px: desc.width_px,
            height_px: desc.height_px,
            format: desc.format,
        });
    }
    Ok(())
}

/// The flags and layer of a texture's instances. `packed`: it lives in an atlas page, which may
/// grow in size around it.
fn flags_layer(desc: &TextureDesc, placement: &Placement, packed: bool) -> u32 {
    // A clamp-to-edge texture that fills its layer for good (alone in a class layer of its
    // size, or in an array of its own) is clamped by the sampler, at every mip level: the
    // shader's clamp is only for textures that share or pad their layer (never mipmapped).
    let fills_layer = !packed && placement.uv_rect == [0.0, 0.0, 1.0, 1.0];
    let wrap = match desc.wrap {
        Wrap::ClampToEdge if fills_layer => 0,
        Wrap::ClampToEdge => Instance::FLAG_CLAMP_TO_RECT,
        Wrap::Repeat => Instance::FLAG_REPEAT,
        Wrap::MirroredRepeat => Instance::FLAG_MIRROR,
    };
    let filter = if desc.filter == Filter::Linear { Instance::FLAG_LINEAR } else { 0 };
    Instance::pack(0, wrap | filter, placement.layer)
}

/// A draw state's identity: its transform by bits (transforms are finite; `0.0` and `-0.0`
/// are two keys, which costs at most a duplicate entry).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct StateKey {
    blend: usize,
    clip_px: Option<[u32; 4]>,
    transform: [u32; 6],
}

impl StateKey {
    fn of(s: &DrawState) -> Self {
        Self { blend: s.blend.index(), clip_px: s.clip_px, transform: s.transform.map(f32::to_bits) }
    }
}
