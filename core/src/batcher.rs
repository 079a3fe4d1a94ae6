//! The batcher: the texture registry ([`registry`], [`textures`]), the frame recorder
//! ([`recorder`]), the allocator and the slot ladder, joined into plans at `finish`.

use crate::alloc::Allocator;
use crate::alloc::{Admission, Moved, Placement};
use crate::ladder::SlotLadder;
use crate::plan::ArrayId;
use crate::plan::{ArrayOp, FramePlan, PlanTarget, ResourceOp};
use crate::texture::Usage;
use crate::writes::PendingWrites;
use crate::{Budget, Config, ConfigError, Counters, Limits, TextureError, TextureId};

mod drawing;
#[cfg(feature = "ktx2")]
mod files;
mod finish;
mod frames;
mod host;
#[cfg(feature = "image")]
mod images;
mod memory;
pub use memory::FormatMemory;
mod lights;
mod looks;
mod meshes;
mod moves;
mod nine_slices;
mod parts;
mod ramp;
mod recorder;
mod registry;
mod residents;
mod sorting;
mod state;
mod store;
mod textures;

pub use drawing::DrawingState;
pub use parts::PartRecorder;
pub use store::TextureStore;

use frames::HostFrames;
use recorder::Recorder;
use registry::Registry;
use residents::Residents;

/// The layer batcher. Register textures, then each frame `begin_frame`, `push` quads in
/// painter's order, and `finish` into a [`FramePlan`] a backend executes.
///
/// ```
/// use layerbatch_core::{Batcher, Config, Limits, MockDevice, Quad, TextureDesc};
///
/// let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
/// let textures: Vec<_> = (0..64u8)
///     .map(|i| batcher.textures().register(&TextureDesc::new(32, 32), &[i; 32 * 32 * 4]).unwrap())
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
    registry: Registry,
    recorder: Recorder,
    alloc: Allocator,
    ladder: SlotLadder,
    // Pending resource ops and their bytes, handed over at `finish`.
    ops: Vec<ResourceOp>,
    upload_bytes: Vec<u8>,
    /// Placements freed while a frame was open, with the freed texture (`None` for the old
    /// placement of a resized one).
    deferred_frees: Vec<(Placement, Option<TextureId>)>,
    /// The host's frames, and what is freed when one ends.
    frames: HostFrames,
    sequence: u64,
    rebuild_pending: bool,
    cpu_copy_bytes: u64,
    /// Formats whose textures were decoded on the CPU (each logged once).
    #[cfg(feature = "decode")]
    decoded_formats: Vec<crate::Format>,
    /// Textures decoded since the frame began (`Counters::textures_decoded` of its plan).
    decoded_pending: u64,
    /// Textures transcoded from Basis files since the frame began.
    transcoded_pending: u64,
    /// The targets Basis files were transcoded to (each logged once).
    #[cfg(feature = "basis")]
    transcode_targets: Vec<crate::BasisTarget>,
    /// The white texel of [`TextureStore::white`], once asked for.
    white: Option<TextureId>,
    /// Host textures whose contents the next plan brings into their arrays.
    host: host::HostContents,
    frame: Counters,
    total: Counters,
    plan: FramePlan,
    /// The pending layer writes of each texture, so a whole write supersedes the earlier ones.
    writes: PendingWrites,
    /// Resident layers.
    residents: Residents,
    /// The time effects see ([`Batcher::set_time_s`]).
    time_s: f32,
    /// The ambient colour and the lights of the frame being recorded.
    lighting: lights::Lighting,
    /// Scratch: the quads of the nine-slice being pushed, kept call to call.
    nine_slice_quads: Vec<crate::Quad>,
    /// The ramp's rows ([`TextureStore::write_ramp_row`]).
    ramp: ramp::Ramp,
}

impl Batcher {
    /// The texture store: registering, updating and freeing textures, normal maps, the ramp,
    /// resident layers, and what they hold. Long-lived: nothing here resets with a frame.
    pub fn textures(&mut self) -> TextureStore<'_> {
        TextureStore(self)
    }

    /// The drawing state items pushed from now on get (blend, clip, transform, effect, lit,
    /// colour offset, sort key), with `save` and `restore`. Resets at `begin_frame`.
    pub fn state(&mut self) -> DrawingState<'_> {
        DrawingState(self)
    }

    /// A batcher for a device with `limits`, configured by `config`. The [`Budget`] is derived
    /// here, once.
    ///
    /// # Errors
    /// [`ConfigError`] for a config or limits that cannot make a budget.
    pub fn new(limits: Limits, config: Config) -> Result<Self, ConfigError> {
        let budget = Budget::new(&limits, &config)?;
        Ok(Self {
            registry: Registry::new(),
            recorder: Recorder::new(budget.instance_capacity),
            alloc: Allocator::new(&budget),
            ladder: SlotLadder::new(&budget),
            limits,
            ops: Vec::new(),
            upload_bytes: Vec::new(),
            deferred_frees: Vec::new(),
            frames: HostFrames::default(),
            sequence: 0,
            rebuild_pending: false,
            cpu_copy_bytes: 0,
            #[cfg(feature = "decode")]
            decoded_formats: Vec::new(),
            decoded_pending: 0,
            transcoded_pending: 0,
            #[cfg(feature = "basis")]
            transcode_targets: Vec::new(),
            white: None,
            host: host::HostContents::default(),
            frame: Counters::default(),
            total: Counters::default(),
            plan: FramePlan { instance_capacity: budget.instance_capacity, ..FramePlan::default() },
            writes: PendingWrites::default(),
            residents: Residents::default(),
            time_s: 0.0,
            lighting: lights::Lighting::default(),
            nine_slice_quads: Vec::new(),
            ramp: ramp::Ramp::new(budget.ramp()),
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
    pub(crate) fn slot_arrays(&self) -> &[Option<ArrayId>] {
        self.ladder.units()
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
    /// # let tex = batcher.textures().register(&TextureDesc::new(1, 1), &[255; 4]).unwrap();
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
        self.begin(None);
    }

    /// Opens a frame, drawn into `target` if any.
    fn begin(&mut self, target: Option<PlanTarget>) {
        let discarded = self.recorder.open;
        if discarded {
            // Releases what the abandoned frame's frees deferred.
            for (p, freed) in std::mem::take(&mut self.deferred_frees) {
                // The frame that drew the freed texture is gone: so are its writes.
                if let Some(id) = freed {
                    self.writes.supersede(id, None, &mut self.ops, &mut self.upload_bytes);
                }
                self.free_placement(p);
            }
            self.drain_alloc_ops();
            self.bury_doomed_residents();
            self.lighting.lights.clear();
        }
        // Arrays no plan has brought to the device yet are laid out afresh, for free, before
        // any quad points into them: a set registered at load time packs as tightly as it
        // would settle over many frames.
        let relaid = self.alloc.relay_born();
        if !relaid.is_empty() {
            self.apply_relaid(&relaid);
        }
        self.recorder.open(target);
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
    /// itself is refused ([`QuadError::SamplesTarget`](crate::QuadError::SamplesTarget)): it would read what it writes.
    ///
    /// ```
    /// use layerbatch_core::{Batcher, Config, Limits, Quad, TextureDesc, Usage};
    /// let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default())?;
    /// let sprite = batcher.textures().register(&TextureDesc::new(16, 16), &[255; 16 * 16 * 4])?;
    /// let minimap = batcher.textures().register(&TextureDesc::new(128, 128).with_usage(Usage::RenderTarget), &[])?;
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
        let e = self.registry.entry(target)?;
        if e.desc.usage != Usage::RenderTarget {
            return Err(TextureError::NotRenderTarget(target));
        }
        let p = e.placement;
        let size_px = [e.desc.width_px, e.desc.height_px];
        let clear_rgba = clear_rgba.map(|c| c.map(|v| if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) }));
        self.begin(Some(PlanTarget { texture: target, array: p.array, layer: p.layer, size_px, clear_rgba }));
        Ok(())
    }

    pub(crate) fn pending_ops(&self) -> &[ResourceOp] {
        &self.ops
    }

    pub(crate) fn pending_upload_bytes(&self) -> usize {
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
    /// re-sent with [`TextureStore::update`] (or [`TextureStore::resize`]) before their next draw; until
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
    /// let tex = batcher.textures().register(&TextureDesc::new(4, 4), &pixels)?;
    /// batcher.begin_frame();
    /// device.execute(batcher.finish())?;
    /// batcher.begin_frame();
    /// let _skipped = batcher.finish(); // never executed
    /// batcher.begin_frame();
    /// assert!(matches!(device.execute(batcher.finish()), Err(PlanError::Sequence { expected: 2, got: 3 })));
    ///
    /// for id in batcher.restore() {
    ///     batcher.textures().update(id, &pixels)?; // here: `tex`
    /// }
    /// batcher.begin_frame();
    /// device.execute(batcher.finish())?; // accepted: it rebuilds the device
    /// assert!(batcher.contains(tex));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn restore(&mut self) -> Vec<TextureId> {
        self.release_waiting_host_arrays();
        // Frees since the last plan are already reflected in the allocator; their Destroy ops
        // and every other array op are superseded by re-creating what lives now.
        self.writes.drop_superseded(&mut self.ops, &mut self.upload_bytes);
        let pending = std::mem::take(&mut self.ops);
        // Every live array is created by the rebuild plan: until then each may still grow
        // in place.
        self.alloc.recreate_all();
        self.ops.extend(self.alloc.arrays().map(|(array, desc)| ResourceOp::Array(ArrayOp::Create { array, desc })));
        // Resident layers come back whole, with the same ids, from where their textures are.
        self.restore_residents();
        let mut written = vec![false; self.registry.entries.len()];
        let mut normals_written = written.clone();
        for op in pending {
            if let ResourceOp::WriteLayer {
                texture, array, layer, x_px, y_px, width_px, height_px, normal_map, ..
            } = op
            {
                let Ok(e) = self.registry.entry(texture) else { continue };
                let p = &e.placement;
                let whole = [x_px, y_px, width_px, height_px] == p.rect_px;
                let here = p.array == array && p.layer == layer;
                if normal_map {
                    // Normal maps are whole writes: kept, or written again from the copy below.
                    if here && whole {
                        normals_written[texture.index as usize] = true;
                        self.writes.note(texture, self.ops.len());
                        self.ops.push(op);
                    }
                    continue;
                }
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
        self.ramp.requeue();
        self.ladder.forget_bindings();
        self.rebuild_pending = true;
        let mut missing = Vec::new();
        for (i, &was_written) in written.iter().enumerate() {
            let e = &self.registry.entries[i];
            if !e.live || matches!(e.desc.usage, Usage::RenderTarget | Usage::Host) || was_written {
                continue;
            }
            let id = self.registry.id(i);
            if self.white == Some(id) {
                self.queue_write(id, &[255; 4]);
            } else if e.pixels.is_empty() {
                missing.push(id);
            } else {
                let pixels = std::mem::take(&mut self.registry.entries[i].pixels);
                self.cpu_copy_bytes -= pixels.len() as u64;
                self.queue_write(id, &pixels);
            }
        }
        // Normal maps come back from their copies; without copies, the host registers them
        // again (as it re-uploads the `missing` textures).
        for (i, &was_written) in normals_written.iter().enumerate() {
            let e = &mut self.registry.entries[i];
            if !e.live || was_written {
                continue;
            }
            match e.normals.take() {
                Some(normals) if !normals.is_empty() => {
                    self.cpu_copy_bytes -= normals.len() as u64;
                    let id = self.registry.id(i);
                    self.queue_normal_write(id, &normals);
                }
                // Lost with the device: the texture draws flat until registered again.
                _ => {
                    e.normals = None;
                    self.registry.refresh_hot(i as u32, &self.alloc, &self.ladder);
                }
            }
        }
        missing
    }

    pub(crate) fn cpu_copy_bytes(&self) -> u64 {
        self.cpu_copy_bytes
    }

    /// Counts `textures` transcoded from a Basis file, in the next plan's counters.
    #[cfg(feature = "ktx2")]
    pub(crate) fn count_transcoded(&mut self, textures: u64) {
        self.transcoded_pending += textures;
    }

    /// Whether `target` is new to this batcher (to be logged); remembers it.
    #[cfg(feature = "basis")]
    pub(crate) fn note_transcode_target(&mut self, target: crate::BasisTarget) -> bool {
        let new = !self.transcode_targets.contains(&target);
        if new {
            self.transcode_targets.push(target);
        }
        new
    }

    /// Test hook: sets the generation of a registry index, to reach the end of the generation
    /// range without 2^32 frees.
    #[cfg(test)]
    pub(crate) fn set_generation_for_test(&mut self, index: u32, generation: u32) {
        self.registry.entries[index as usize].generation = generation;
        self.registry.refresh_hot(index, &self.alloc, &self.ladder);
    }

    fn apply_admission(&mut self, admission: &Admission) {
        if let Some((old, new)) = admission.moved {
            self.array_moved(old, new);
        }
    }

    pub(crate) fn compact(&mut self) -> usize {
        if self.recorder.open {
            return 0;
        }
        let moved = self.alloc.compact();
        self.apply_moved(&moved);
        self.drain_alloc_ops();
        self.refresh_slots();
        moved.iter().filter(|m| matches!(m, Moved::Rect { .. })).count()
    }

    fn release(&mut self, placement: Placement, freed: Option<TextureId>) {
        if self.recorder.open {
            self.deferred_frees.push((placement, freed));
        } else if self.frames.holds_frees() && self.alloc.on_device(placement.array) {
            // A plan of this frame may draw from it. (An array made since cannot be drawn
            // from yet, and may still be laid out afresh: freed now.)
            self.frames.waiting.push((placement, freed));
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

    fn refresh_slots(&mut self) {
        self.registry.refresh_slots(&self.ladder);
    }
}
