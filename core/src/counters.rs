//! Counters: the proof that batching works. A picture looks the same with 1 draw call or 400.

/// What core planned. Per frame (reset at each `begin_frame`) and cumulative.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Counters {
    /// Frames finished.
    pub frames: u64,
    /// Frames begun and never finished: a `begin_frame` found the previous frame still open
    /// (the host returned early, e.g. with `?` on a push) and discarded its quads.
    pub frames_discarded: u64,
    /// Plans that rebuilt the device's arrays ([`crate::Batcher::restore`]).
    pub device_rebuilds: u64,
    /// Quads accepted.
    pub quads: u64,
    /// Quads rejected (stale id, NaN/infinite coordinates).
    pub quads_rejected: u64,
    /// Triangles accepted ([`crate::Batcher::push_mesh`]), drawn in the same segments as quads.
    pub triangles: u64,
    /// Meshes refused whole ([`crate::MeshError`]).
    pub meshes_rejected: u64,
    /// Draw calls planned: one per segment.
    pub draw_calls: u64,
    /// Flushes (segment ends), all causes: the sum of the six fields below.
    pub flushes: u64,
    /// Flushes because every slot was referenced by pending quads and another array was needed.
    pub flushes_slots_exhausted: u64,
    /// Flushes because the instance buffer was full.
    pub flushes_instance_buffer_full: u64,
    /// Flushes the caller asked for ([`crate::Batcher::flush`]).
    pub flushes_explicit: u64,
    /// The flush at the end of each frame with quads.
    pub flushes_end_of_frame: u64,
    /// Flushes because the draw state (blend, clip, transform) changed between two quads.
    pub flushes_state_change: u64,
    /// Flushes because a resident layer was drawn between two quads
    /// ([`crate::Batcher::draw_resident`]).
    pub flushes_resident: u64,
    /// Times every slot assignment was dropped at once. 0 unless
    /// [`crate::VictimChoice::WipeAll`] is chosen for a comparison.
    pub cache_resets: u64,
    /// Slot binds the plan asks for: (unit, array) pairs that changed before a draw.
    pub slot_binds: u64,
    /// Bound arrays replaced by another to make room.
    pub slot_evictions: u64,
    /// Layer writes from the CPU (registrations and updates).
    pub layer_uploads: u64,
    /// Bytes of those writes, mips included.
    pub bytes_uploaded: u64,
    /// Arrays created (growth included).
    pub arrays_created: u64,
    /// Array growths (reallocate and copy on the GPU).
    pub array_growths: u64,
    /// Arrays destroyed (growth and shrinking included).
    pub arrays_destroyed: u64,
    /// Arrays shrunk to give memory back (reallocate smaller and copy on the GPU).
    pub array_shrinks: u64,
    /// Rectangles copied between layers on the GPU ([`crate::TextureStore::compact`]).
    pub rect_copies: u64,
    /// Host textures whose contents the plan brings into their arrays
    /// ([`crate::plan::ArrayOp::HostContents`]): each array made for one, and each copy
    /// [`crate::TextureStore::host_changed`] asked for.
    pub host_contents: u64,
    /// Bytes of array storage held against the budget, at the end of the frame (a level, not
    /// a sum: equal in per-frame and cumulative counters).
    pub bytes_allocated: u64,
    /// The largest slot tier any segment used (a maximum, not a sum).
    pub max_slot_tier: u64,
    /// Bytes of CPU copies of texture pixels kept for restoring after a device loss
    /// ([`crate::Config::keep_pixels`]), at the end of the frame (a level, like
    /// `bytes_allocated`; 0 when the option is off).
    pub cpu_copy_bytes: u64,
    /// Textures of a format the device lacks, decoded to RGBA8 on the CPU at registration
    /// (the `decode` feature; always 0 without it).
    pub textures_decoded: u64,
    /// Textures (layers) of Basis Universal files transcoded at registration (the `basis`
    /// feature; always 0 without it), to the target `BasisTarget::choose` gives the device.
    pub textures_transcoded: u64,
    /// Resident layers drawn ([`crate::Batcher::draw_resident`]): one segment each (more
    /// with indexed quads, one per block of `instance_capacity`).
    pub resident_draws: u64,
    /// Resident layer draws of the frame not drawn: the layer's textures live in more arrays
    /// than one draw binds (after a restore laid pages out afresh, say), logged once at
    /// `warn!`. The layer is drawn again once they fit (`TextureStore::compact`). 0 normally.
    pub resident_draws_dropped: u64,
    /// Resident instances the frame's resident draws cover: the vertex work of resident
    /// layers and tilemaps ([`crate::tilemap::Tilemap::draw`] draws the chunks a view
    /// touches, not the map). 0 in a frame without resident draws.
    pub resident_instances_drawn: u64,
    /// Cells of tile grids the frame's grid draws have the GPU test
    /// ([`crate::tilegrid::TileGrid::draw`] on a device that culls on the GPU): the GPU draws
    /// those whose tile shows, which only the device counts. 0 in a frame without one.
    pub grid_cells_tested: u64,
    /// Resident instances written to the device: created, updated by ranges, re-resolved
    /// after a texture moved, or restored. 0 in a frame that left every resident untouched.
    pub resident_instances_written: u64,
    /// Moving sprites whose motion ([`crate::Motion`], 16 bytes) this plan writes
    /// ([`crate::TextureStore::move_sprites`]): those the host moved since the last plan, or
    /// every sprite of a moving layer created or restored. 0 in a frame that moved none.
    pub motions_written: u64,
    /// Motions written in place ([`crate::TextureStore::motions_mut`]) with a NaN or infinite
    /// component, drawn as nothing (scale 0) instead, logged once at `warn!`. 0 normally.
    pub motions_rejected: u64,
    /// Bytes of device buffers the resident layers hold against the budget, at the end of
    /// the frame (a level, like `bytes_allocated`).
    pub resident_bytes: u64,
    /// Items a sorted frame put in key order in `finish` (instances: quads and triangles; and
    /// explicit flushes and resident draws); 0 in a frame of painter's order, which sets no
    /// [`crate::SortKey`].
    pub sorted_items: u64,
    /// Point lights the frame drew with ([`crate::Batcher::add_light`]), at most
    /// [`crate::Budget::max_lights`].
    pub lights: u64,
    /// Point lights added beyond [`crate::Budget::max_lights`] and dropped, the lowest
    /// priorities first ([`crate::PointLight::priority`]).
    pub lights_dropped: u64,
    /// Ramp rows the plan writes ([`crate::TextureStore::write_ramp_row`]), each
    /// [`crate::RAMP_WIDTH_PX`] texels (their bytes are in `bytes_uploaded`).
    pub ramp_rows_written: u64,
}

impl Counters {
    /// Adds `frame` into `self`: sums, except `bytes_allocated` and `cpu_copy_bytes` (taken)
    /// and `max_slot_tier` (maximum).
    pub fn accumulate(&mut self, frame: &Counters) {
        // Destructured without `..`: a new field that is not accumulated does not compile.
        let Counters {
            frames,
            frames_discarded,
            device_rebuilds,
            quads,
            quads_rejected,
            triangles,
            meshes_rejected,
            draw_calls,
            flushes,
            flushes_slots_exhausted,
            flushes_instance_buffer_full,
            flushes_explicit,
            flushes_end_of_frame,
            flushes_state_change,
            cache_resets,
            slot_binds,
            slot_evictions,
            layer_uploads,
            bytes_uploaded,
            arrays_created,
            array_growths,
            arrays_destroyed,
            array_shrinks,
            rect_copies,
            host_contents,
            bytes_allocated,
            max_slot_tier,
            cpu_copy_bytes,
            textures_decoded,
            textures_transcoded,
            flushes_resident,
            resident_draws,
            resident_draws_dropped,
            resident_instances_drawn,
            grid_cells_tested,
            resident_instances_written,
            motions_written,
            motions_rejected,
            resident_bytes,
            sorted_items,
            lights,
            lights_dropped,
            ramp_rows_written,
        } = *frame;
        self.frames += frames;
        self.frames_discarded += frames_discarded;
        self.device_rebuilds += device_rebuilds;
        self.quads += quads;
        self.quads_rejected += quads_rejected;
        self.triangles += triangles;
        self.meshes_rejected += meshes_rejected;
        self.draw_calls += draw_calls;
        self.flushes += flushes;
        self.flushes_slots_exhausted += flushes_slots_exhausted;
        self.flushes_instance_buffer_full += flushes_instance_buffer_full;
        self.flushes_explicit += flushes_explicit;
        self.flushes_end_of_frame += flushes_end_of_frame;
        self.flushes_state_change += flushes_state_change;
        self.cache_resets += cache_resets;
        self.slot_binds += slot_binds;
        self.slot_evictions += slot_evictions;
        self.layer_uploads += layer_uploads;
        self.bytes_uploaded += bytes_uploaded;
        self.arrays_created += arrays_created;
        self.array_growths += array_growths;
        self.arrays_destroyed += arrays_destroyed;
        self.array_shrinks += array_shrinks;
        self.rect_copies += rect_copies;
        self.host_contents += host_contents;
        self.bytes_allocated = bytes_allocated;
        self.max_slot_tier = self.max_slot_tier.max(max_slot_tier);
        self.cpu_copy_bytes = cpu_copy_bytes;
        self.textures_decoded += textures_decoded;
        self.textures_transcoded += textures_transcoded;
        self.flushes_resident += flushes_resident;
        self.resident_draws += resident_draws;
        self.resident_draws_dropped += resident_draws_dropped;
        self.resident_instances_drawn += resident_instances_drawn;
        self.grid_cells_tested += grid_cells_tested;
        self.resident_instances_written += resident_instances_written;
        self.motions_written += motions_written;
        self.motions_rejected += motions_rejected;
        self.resident_bytes = resident_bytes;
        self.sorted_items += sorted_items;
        self.lights += lights;
        self.lights_dropped += lights_dropped;
        self.ramp_rows_written += ramp_rows_written;
    }
}

/// What a device actually issued executing plans. The same struct for every backend and the
/// mock device; a field a backend has no use for stays 0 (its doc says which).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeviceCounters {
    /// Frames executed.
    pub frames: u64,
    /// Draw calls issued.
    pub draw_calls: u64,
    /// Slot binds of the draw walk ([`crate::walk::DrawStep::Bind`]): an array bound in a slot a
    /// draw samples, where the walk (which starts from nothing bound) had another or none. GL
    /// issues one `glBindTexture` each; wgpu changes the slot's entry of the next bind group.
    pub texture_binds: u64,
    /// Bind groups set on a pass (wgpu; GL: 0).
    pub bind_group_sets: u64,
    /// Bind groups created (wgpu; GL: 0). Cached across frames: a one-slot change makes one.
    pub bind_group_creates: u64,
    /// Programs linked (GL) or render pipelines created (wgpu): the tier count times
    /// [`crate::Budget::programs_per_tier`] on GL, all at creation (blend modes are GL state,
    /// and a program draws into any framebuffer); on wgpu that times `BlendMode::ALL.len()` and
    /// the vertex kinds (blending is pipeline state there) per pass kind: the renderer's own
    /// at creation, and in the frame that first draws into another kind (format, sample count,
    /// depth attachment; a render-target format is one), never again for that kind.
    pub pipeline_compiles: u64,
    /// Texture bytes written from the CPU.
    pub texture_bytes_written: u64,
    /// Vertex bytes written from the CPU: each quad's [`crate::plan::Instance`] once per corner,
    /// [`crate::plan::Instance::QUAD_BYTES`] a quad.
    pub instance_bytes_written: u64,
    /// Layers copied on the GPU (growth).
    pub layers_copied: u64,
    /// Bytes copied on the GPU: every level of every layer a growth or shrink copies, and
    /// every rectangle a compaction copies.
    pub gpu_copy_bytes: u64,
    /// Arrays created on the device (growth included).
    pub arrays_created: u64,
    /// Arrays destroyed on the device.
    pub arrays_destroyed: u64,
    /// Host textures viewed as arrays ([`crate::plan::HostAccess::View`]): no storage made,
    /// none of their pixels copied.
    pub host_views: u64,
    /// Host textures copied into arrays on the GPU ([`crate::plan::HostAccess::Copy`]).
    pub host_copies: u64,
    /// Bytes of those copies (0 where host textures are views).
    pub host_copy_bytes: u64,
    /// Mip levels regenerated from level 0 after a plan drew into a render target with mip
    /// levels ([`crate::FramePlan::target`]): one per level above 0 of the target layer.
    pub mip_levels_regenerated: u64,
    /// Bytes of the arrays the device holds after the frame's resource ops: every layer and
    /// level, blocks for a compressed format (a level, not a sum: equal in per-frame and
    /// cumulative counters).
    pub bytes_held: u64,
    /// Segments the draw walk skipped because their clip leaves nothing of the target
    /// ([`crate::Clip::Empty`]): no draw, no bind, no upload for them.
    pub segments_clipped_away: u64,
    /// Steps of the draw walk ([`crate::walk::DrawSteps`]): every block, bind, program, blend, state,
    /// scissor and draw a device was told to change or issue.
    pub draw_steps: u64,
    /// Resident layer buffers created on the device ([`crate::plan::ResidentOp::Create`]).
    pub residents_created: u64,
    /// Resident layer buffers destroyed on the device (rebuilds included).
    pub residents_destroyed: u64,
    /// Vertex bytes written into resident layer buffers from the CPU (a resident instance is
    /// [`crate::plan::Instance::quad_bytes`] of them): 0 in a frame that left every resident
    /// untouched, however many it drew.
    pub resident_bytes_written: u64,
    /// Bytes written into moving layers' motion textures ([`crate::Motion::BYTES`] a sprite
    /// moved): the bytes a frame of moving sprites costs. 0 in a frame that moved none.
    pub motion_bytes_written: u64,
    /// Motions the executor's copy found NaN or infinite and wrote as
    /// [`crate::Motion::NOTHING`] (drawn as nothing): those a host wrote in place
    /// (`motions_mut`), on a budget with
    /// [`staged_motion_writes`](crate::Budget::staged_motion_writes) (layerbatch-wgpu). 0
    /// normally, and always 0 elsewhere: core then finds them when it plans
    /// ([`crate::Counters::motions_rejected`]).
    pub motions_rejected: u64,
    /// Bytes written into tile grids' cell buffers (4 a cell changed,
    /// [`crate::tilegrid::TileGrid`]): 0 in a frame that changed no cell.
    pub cell_bytes_written: u64,
    /// Bytes of the resident layer buffers (and moving layers' motion textures) the device
    /// holds after the frame's resource ops (a level, like `bytes_held`).
    pub resident_bytes_held: u64,
}

impl DeviceCounters {
    /// The counters of one frame that has issued nothing yet: `frames` 1, the rest 0.
    pub const fn one_frame() -> Self {
        let mut c = Self::ZERO;
        c.frames = 1;
        c
    }

    /// Every field 0.
    pub const ZERO: Self = Self {
        frames: 0,
        draw_calls: 0,
        texture_binds: 0,
        bind_group_sets: 0,
        bind_group_creates: 0,
        pipeline_compiles: 0,
        texture_bytes_written: 0,
        instance_bytes_written: 0,
        layers_copied: 0,
        gpu_copy_bytes: 0,
        arrays_created: 0,
        arrays_destroyed: 0,
        host_views: 0,
        host_copies: 0,
        host_copy_bytes: 0,
        mip_levels_regenerated: 0,
        bytes_held: 0,
        segments_clipped_away: 0,
        draw_steps: 0,
        residents_created: 0,
        residents_destroyed: 0,
        resident_bytes_written: 0,
        motion_bytes_written: 0,
        motions_rejected: 0,
        cell_bytes_written: 0,
        resident_bytes_held: 0,
    };

    /// Adds every field of `other` into `self` (`bytes_held` is taken, a level).
    pub fn accumulate(&mut self, other: &DeviceCounters) {
        // Destructured without `..`: a new field that is not accumulated does not compile.
        let DeviceCounters {
            frames,
            draw_calls,
            texture_binds,
            bind_group_sets,
            bind_group_creates,
            pipeline_compiles,
            texture_bytes_written,
            instance_bytes_written,
            layers_copied,
            gpu_copy_bytes,
            arrays_created,
            arrays_destroyed,
            host_views,
            host_copies,
            host_copy_bytes,
            mip_levels_regenerated,
            bytes_held,
            segments_clipped_away,
            draw_steps,
            residents_created,
            residents_destroyed,
            resident_bytes_written,
            motion_bytes_written,
            motions_rejected,
            cell_bytes_written,
            resident_bytes_held,
        } = *other;
        self.frames += frames;
        self.draw_calls += draw_calls;
        self.texture_binds += texture_binds;
        self.bind_group_sets += bind_group_sets;
        self.bind_group_creates += bind_group_creates;
        self.pipeline_compiles += pipeline_compiles;
        self.texture_bytes_written += texture_bytes_written;
        self.instance_bytes_written += instance_bytes_written;
        self.layers_copied += layers_copied;
        self.gpu_copy_bytes += gpu_copy_bytes;
        self.arrays_created += arrays_created;
        self.arrays_destroyed += arrays_destroyed;
        self.host_views += host_views;
        self.host_copies += host_copies;
        self.host_copy_bytes += host_copy_bytes;
        self.mip_levels_regenerated += mip_levels_regenerated;
        self.bytes_held = bytes_held;
        self.segments_clipped_away += segments_clipped_away;
        self.draw_steps += draw_steps;
        self.residents_created += residents_created;
        self.residents_destroyed += residents_destroyed;
        self.resident_bytes_written += resident_bytes_written;
        self.motion_bytes_written += motion_bytes_written;
        self.motions_rejected += motions_rejected;
        self.cell_bytes_written += cell_bytes_written;
        self.resident_bytes_held = resident_bytes_held;
    }
}

/// Both sets of counters, as a backend's `stats()` returns them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stats {
    /// Core's counters of the last frame executed.
    pub core_frame: Counters,
    /// Core's counters since the batcher was created.
    pub core_total: Counters,
    /// What the device issued for the last frame.
    pub device_frame: DeviceCounters,
    /// What the device issued since creation (creation-time compiles included).
    pub device_total: DeviceCounters,
}

impl Stats {
    /// The stats of a renderer that has compiled `pipelines` programs or pipelines at creation
    /// and executed nothing yet.
    pub fn created(pipelines: u64) -> Self {
        let mut s = Self::default();
        s.device_total.pipeline_compiles = pipelines;
        s
    }

    /// Records an executed plan: core's counters are the plan's (`FramePlan::counters` and
    /// `totals`), the device's frame counters replace the last frame's and are added to the
    /// totals. The one place a backend updates its stats.
    pub fn record(&mut self, core_frame: Counters, core_total: Counters, device_frame: DeviceCounters) {
        self.core_frame = core_frame;
        self.core_total = core_total;
        self.device_frame = device_frame;
        self.device_total.accumulate(&device_frame);
    }

    /// Adds device work done after [`Stats::record`] for the same frame (wgpu records its
    /// draws in `render`, after `prepare` recorded the plan). `bytes_held` stays the plan's:
    /// the work after it holds no arrays.
    pub fn add_device(&mut self, more: DeviceCounters) {
        let more = DeviceCounters {
            bytes_held: self.device_frame.bytes_held,
            resident_bytes_held: self.device_frame.resident_bytes_held,
            ..more
        };
        self.device_frame.accumulate(&more);
        self.device_total.accumulate(&more);
    }
}
