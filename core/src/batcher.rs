//! The batcher: texture registry, allocator, slot ladder and frame recording in one place.

use crate::alloc::{Admission, ArrayOp, Placement};
use crate::ladder::{SlotLadder, PREPLACED};
use crate::plan::{FramePlan, Instance, Quad, ResourceOp};
use crate::texture::{max_mip_levels, push_mip_chain, Filter, Usage, Wrap};
use crate::{
    Allocator, ArrayId, Budget, Config, ConfigError, Counters, Limits, QuadError, TextureDesc, TextureError, TextureId,
};

#[derive(Clone, Debug)]
struct Entry {
    generation: u32,
    live: bool,
    desc: TextureDesc,
    placement: Placement,
    /// Precomputed for `push`: layer and flags bits of [`Instance::slot_flags_layer`].
    flags_layer: u32,
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
    budget: Budget,
    limits: Limits,
    entries: Vec<Entry>,
    free_indices: Vec<u32>,
    alloc: Allocator,
    ladder: SlotLadder,
    // Pending resource ops and their bytes, handed over at `finish`.
    ops: Vec<ResourceOp>,
    upload_bytes: Vec<u8>,
    // Frame recording.
    frame_open: bool,
    instances: Vec<Instance>,
    quad_arrays: Vec<u32>,
    flush_marks: Vec<u32>,
    deferred_frees: Vec<Placement>,
    moved_in_frame: Vec<(ArrayId, ArrayId)>,
    frame: Counters,
    total: Counters,
    plan: FramePlan,
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
            alloc: Allocator::new(&budget),
            ladder: SlotLadder::new(&budget),
            limits,
            entries: Vec::new(),
            free_indices: Vec::new(),
            ops: Vec::new(),
            upload_bytes: Vec::new(),
            frame_open: false,
            instances: Vec::new(),
            quad_arrays: Vec::new(),
            flush_marks: Vec::new(),
            deferred_frees: Vec::new(),
            moved_in_frame: Vec::new(),
            frame: Counters::default(),
            total: Counters::default(),
            plan: FramePlan { instance_capacity: budget.instance_capacity, ..FramePlan::default() },
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
        let admission = self.alloc.admit(desc)?;
        self.apply_admission(&admission);
        let placement = admission.placement;
        let entry =
            Entry { generation: 0, live: true, desc: *desc, placement, flags_layer: flags_layer(desc, &placement) };
        let id = match self.free_indices.pop() {
            Some(index) => {
                let e = &mut self.entries[index as usize];
                let generation = e.generation;
                *e = Entry { generation, ..entry };
                TextureId { index, generation }
            }
            None => {
                self.entries.push(Entry { generation: 1, ..entry });
                TextureId { index: self.entries.len() as u32 - 1, generation: 1 }
            }
        };
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

    /// Changes a [`Usage::Dynamic`] texture's size and pixels. Its one-texture array is
    /// replaced; the id stays valid.
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
        let admission = self.alloc.admit(&desc)?;
        self.apply_admission(&admission);
        self.release(old.placement);
        let e = &mut self.entries[id.index as usize];
        e.desc = desc;
        e.placement = admission.placement;
        e.flags_layer = flags_layer(&desc, &admission.placement);
        self.drain_alloc_ops();
        if !pixels.is_empty() {
            self.queue_write(id, pixels);
        }
        Ok(())
    }

    /// Frees a texture. Its id is rejected from now on; its layer is reused after the frame
    /// being built (quads already pushed still draw it).
    ///
    /// # Errors
    /// [`TextureError::Stale`] for a freed (double free) or foreign id.
    pub fn free(&mut self, id: TextureId) -> Result<(), TextureError> {
        let placement = self.entry(id)?.placement;
        let e = &mut self.entries[id.index as usize];
        e.live = false;
        e.generation = e.generation.wrapping_add(1).max(1);
        self.free_indices.push(id.index);
        self.release(placement);
        Ok(())
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
    /// # Panics
    /// If a frame is already open (call [`Batcher::finish`] first).
    pub fn begin_frame(&mut self) {
        assert!(!self.frame_open, "begin_frame called twice without finish");
        self.frame_open = true;
        self.instances.clear();
        self.quad_arrays.clear();
        self.flush_marks.clear();
        self.moved_in_frame.clear();
        self.frame = Counters::default();
    }

    /// Records a quad, drawn after every quad pushed before it.
    ///
    /// # Errors
    /// [`QuadError`] for a stale texture or a non-finite coordinate; the quad is dropped and
    /// nothing else changes.
    ///
    /// # Panics
    /// If no frame is open.
    #[inline]
    pub fn push(&mut self, quad: &Quad) -> Result<(), QuadError> {
        assert!(self.frame_open, "push outside begin_frame/finish");
        let e = match self.entries.get(quad.texture.index as usize) {
            Some(e) if e.live && e.generation == quad.texture.generation => e,
            _ => {
                self.frame.quads_rejected += 1;
                return Err(QuadError::Stale(quad.texture));
            }
        };
        if !quad.is_finite() {
            self.frame.quads_rejected += 1;
            return Err(QuadError::NonFinite);
        }
        let [u0, v0, u1, v1] = e.placement.uv_rect;
        let (sx, sy) = (u1 - u0, v1 - v0);
        let array = e.placement.array.0;
        // Most quads use an array a slot already holds: write the slot now, so `finish` need
        // not touch the instance again.
        let (slot, tag) = match self.ladder.resident(array) {
            Some(u) => (u, PREPLACED),
            None => (0, 0),
        };
        self.instances.push(Instance {
            origin: quad.origin,
            axis_x: quad.axis_x,
            axis_y: quad.axis_y,
            uv_rect: [u0 + quad.uv[0] * sx, v0 + quad.uv[1] * sy, u0 + quad.uv[2] * sx, v0 + quad.uv[3] * sy],
            color: quad.color,
            slot_flags_layer: e.flags_layer | slot,
        });
        self.quad_arrays.push(array | tag);
        Ok(())
    }

    /// Ends the current segment here: quads pushed after this go into a new draw call. Does
    /// nothing if no quad is pending. Counted as an explicit flush.
    ///
    /// # Panics
    /// If no frame is open.
    pub fn flush(&mut self) {
        assert!(self.frame_open, "flush outside begin_frame/finish");
        let at = self.instances.len() as u32;
        if at > 0 && self.flush_marks.last() != Some(&at) {
            self.flush_marks.push(at);
        }
    }

    /// Plans the recorded frame: resource ops to apply, then segments to draw in order.
    ///
    /// Every plan must reach the backend, in order: its resource ops (creations, growths,
    /// uploads) build on the previous plan's, and slot binds assume the previous plan's slot
    /// tables. A host that skips drawing a frame (a minimised window) should skip
    /// `begin_frame`/`finish` too, not just the draw. (`layerbatch-gl` refuses a plan out of
    /// order with `Error::FrameOrder`.)
    ///
    /// # Panics
    /// If no frame is open.
    pub fn finish(&mut self) -> &FramePlan {
        assert!(self.frame_open, "finish without begin_frame");
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
        let plan = &mut self.plan;
        plan.segments.clear();
        plan.binds.clear();
        plan.slot_tables.clear();
        std::mem::swap(&mut plan.ops, &mut self.ops);
        self.ops.clear();
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
                ResourceOp::Array(ArrayOp::Destroy { .. }) => c.arrays_destroyed += 1,
            }
        }
        c.quads = plan.instances.len() as u64;
        c.frames = 1;
        self.ladder.plan_frame(&self.quad_arrays, &self.flush_marks, &self.budget, plan, c);
        // Layers freed during the frame are released now that the frame no longer needs them.
        for p in std::mem::take(&mut self.deferred_frees) {
            self.free_placement(p);
        }
        self.drain_alloc_ops();
        self.frame.bytes_allocated = self.alloc.allocated_bytes();
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

    /// The last plan [`Batcher::finish`] returned.
    pub fn plan(&self) -> &FramePlan {
        &self.plan
    }

    fn entry(&self, id: TextureId) -> Result<&Entry, TextureError> {
        match self.entries.get(id.index as usize) {
            Some(e) if e.live && e.generation == id.generation => Ok(e),
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

    fn apply_admission(&mut self, admission: &Admission) {
        if let Some((old, new)) = admission.moved {
            for e in self.entries.iter_mut().filter(|e| e.placement.array == old) {
                e.placement.array = new;
            }
            for p in &mut self.deferred_frees {
                if p.array == old {
                    p.array = new;
                }
            }
            self.ladder.replace(old, new);
            if self.frame_open {
                self.moved_in_frame.push((old, new));
            }
        }
    }

    fn release(&mut self, placement: Placement) {
        if self.frame_open {
            self.deferred_frees.push(placement);
        } else {
            self.free_placement(placement);
            self.drain_alloc_ops();
        }
    }

    fn free_placement(&mut self, placement: Placement) {
        self.alloc.free(&placement);
        if placement.dedicated {
            self.ladder.forget(placement.array);
        }
    }

    fn drain_alloc_ops(&mut self) {
        self.ops.extend(self.alloc.drain_ops().map(ResourceOp::Array));
    }

    fn queue_write(&mut self, id: TextureId, pixels: &[u8]) {
        let e = &self.entries[id.index as usize];
        let start = self.upload_bytes.len();
        push_mip_chain(&mut self.upload_bytes, pixels, e.desc.width_px, e.desc.height_px, e.desc.mip_levels);
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

fn flags_layer(desc: &TextureDesc, placement: &Placement) -> u32 {
    let wrap = match desc.wrap {
        Wrap::ClampToEdge => Instance::FLAG_CLAMP_TO_RECT,
        Wrap::Repeat => Instance::FLAG_REPEAT,
        Wrap::MirroredRepeat => Instance::FLAG_MIRROR,
    };
    let filter = if desc.filter == Filter::Linear { Instance::FLAG_LINEAR } else { 0 };
    let flags = wrap | filter;
    (placement.layer << 16) | (flags << 8)
}
