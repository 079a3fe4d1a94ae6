//! The renderer: executes frame plans with the host's device and queue, into the host's pass.

use std::collections::HashMap;
use std::future::Future;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll, Waker};

use layerbatch_core::{
    mip_chain_bytes, mip_size, ArrayDesc, ArrayId, ArrayOp, Budget, Counters, DeviceCounters, Format, FramePlan,
    Instance, Limits, ResourceOp, Stats, MAX_SLOTS_PER_DRAW,
};
use wgpu::util::DeviceExt as _;

use crate::shader::{self, GROUP_GLOBALS, GROUP_SLOTS};
use crate::Error;

/// Core's [`Limits`] for a wgpu device of `backend` with `device_limits` (use the *device's*
/// limits, [`wgpu::Device::limits`], not the adapter's: a device may be requested with less).
///
/// - `max_texture_units`: `max_sampled_textures_per_shader_stage`, and no more than
///   `max_samplers_per_shader_stage`: the shader uses one sampler for every slot, but on wgpu's
///   GL backend each slot is a combined GL texture unit that holds a sampler binding of its own.
/// - `max_samplers`, `max_array_layers`, `max_texture_size_px`: the matching wgpu limits.
/// - `avoid_ambiguous_layer_counts`: `true` on [`wgpu::Backend::Gl`], which guesses a texture's
///   type from its layer count (1 layer = 2D, a multiple of 6 = cube).
///
/// ```
/// let l = layerbatch_wgpu::limits(wgpu::Backend::Gl, &wgpu::Limits::downlevel_webgl2_defaults());
/// assert_eq!((l.max_texture_units, l.max_array_layers), (16, 256));
/// assert!(l.avoid_ambiguous_layer_counts);
/// ```
pub fn limits(backend: wgpu::Backend, device_limits: &wgpu::Limits) -> Limits {
    Limits {
        max_texture_units: device_limits
            .max_sampled_textures_per_shader_stage
            .min(device_limits.max_samplers_per_shader_stage),
        max_samplers: device_limits.max_samplers_per_shader_stage,
        max_array_layers: device_limits.max_texture_array_layers,
        max_texture_size_px: device_limits.max_texture_dimension_2d,
        avoid_ambiguous_layer_counts: backend == wgpu::Backend::Gl,
    }
}

/// [`limits`] for `device`: its backend and the limits it was created with.
pub fn device_limits(device: &wgpu::Device) -> Limits {
    limits(device.adapter_info().backend, &device.limits())
}

/// How the pipelines are built, beyond the target format. Match the host's render pass.
#[derive(Clone, Debug, Default)]
pub struct RendererOptions {
    /// Multisampling of the host's pass. Default: 1 sample.
    pub multisample: wgpu::MultisampleState,
    /// The depth-stencil attachment of the host's pass, if any. layerbatch draws in painter's
    /// order and needs no depth test: pass e.g. `depth_compare: Always`, `depth_write_enabled:
    /// false`.
    pub depth_stencil: Option<wgpu::DepthStencilState>,
}

/// Bind groups kept in the cache beyond those the current frame uses.
const MAX_CACHED_GROUPS: usize = 256;
/// Instances the instance buffer holds at first.
const MIN_INSTANCES: u64 = 1024;
/// An empty slot in a bind-group key.
const NO_ARRAY: u32 = u32::MAX;

type GroupKey = (u32, [u32; MAX_SLOTS_PER_DRAW as usize]);

#[derive(Debug)]
struct Array {
    texture: wgpu::Texture,
    view: wgpu::TextureView,
    desc: ArrayDesc,
}

#[derive(Debug)]
struct CachedGroup {
    group: wgpu::BindGroup,
    serial: u64,
    last_used: u64,
}

#[derive(Debug)]
struct Draw {
    pipeline: usize,
    group: wgpu::BindGroup,
    serial: u64,
    instances: Range<u32>,
}

/// Executes [`FramePlan`]s with the host's `Device` and `Queue`, drawing into the host's
/// `RenderPass`, the way glyphon and egui-wgpu embed.
///
/// Per frame:
///
/// 1. [`Renderer::prepare`] applies the plan's ops in order (array creation, growth by
///    `copy_texture_to_texture`, destruction, layer writes), uploads the instances and the
///    viewport, and resolves each segment's bind group (cached across frames).
/// 2. The host begins its render pass **in the encoder it gave `prepare`** (or in an encoder it
///    submits after that one), and calls [`Renderer::render`], which records the segments in
///    order: one `draw` each, with the pipeline of the segment's tier.
/// 3. The host submits. The renderer never calls `Queue::submit`.
///
/// # Submission ordering
///
/// `prepare` writes with `Queue::write_texture` / `write_buffer`, which wgpu executes at the
/// next `submit`, *before* every command buffer of that submit. Growth copies cannot be queue
/// writes: they are recorded into the host's `encoder`. A layer write that follows a growth in
/// the plan (e.g. a texture admitted into the grown array) would be overwritten by the copy if
/// it were a queue write, so every write after the plan's first growth is staged in a buffer
/// and recorded into the same encoder with `copy_buffer_to_texture`, after the copy. The result
/// is exactly the plan's op order. The host must submit the encoder before the next `prepare`
/// (the instance buffer is rewritten then).
#[derive(Debug)]
pub struct Renderer {
    tiers: Vec<u32>,
    pipelines: Vec<wgpu::RenderPipeline>,
    slot_layouts: Vec<wgpu::BindGroupLayout>,
    globals_buffer: wgpu::Buffer,
    globals_group: wgpu::BindGroup,
    placeholder: wgpu::TextureView,
    arrays: HashMap<ArrayId, Array>,
    groups: HashMap<GroupKey, CachedGroup>,
    next_serial: u64,
    frame_index: u64,
    instance_buffer: Option<wgpu::Buffer>,
    draws: Vec<Draw>,
    viewport_px: [u32; 2],
    pad_ambiguous_layers: bool,
    warned_ambiguous: bool,
    max_array_layers: u32,
    max_texture_px: u32,
    core_frame: Counters,
    core_total: Counters,
    /// What `prepare` issued for the current frame.
    device_frame: DeviceCounters,
    /// Everything before the current frame, creation included.
    device_before: DeviceCounters,
    /// What `render` issued for the current frame (`render` takes `&self`).
    render_draws: AtomicU64,
    render_group_sets: AtomicU64,
}

impl Renderer {
    /// Creates the renderer for passes whose colour target has `target` format: one render
    /// pipeline per tier of `budget.tiers`, all here, none later.
    ///
    /// `budget` is the batcher's ([`layerbatch_core::Batcher::budget`]), made from
    /// [`device_limits`] of this device.
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the device cannot bind the budget's slots;
    /// [`Error::Shader`] / [`Error::Pipeline`] when a tier does not compile or link.
    pub fn new(
        device: &wgpu::Device,
        target: wgpu::TextureFormat,
        budget: &Budget,
        options: &RendererOptions,
    ) -> Result<Self, Error> {
        let dl = device.limits();
        let check = |what, needed: u32, allowed: u32| {
            if needed > allowed {
                Err(Error::Unsupported { what, needed, allowed })
            } else {
                Ok(())
            }
        };
        check("max_sampled_textures_per_shader_stage", budget.slots, dl.max_sampled_textures_per_shader_stage)?;
        check("max_samplers_per_shader_stage", 1, dl.max_samplers_per_shader_stage)?;
        check("max_bind_groups", 2, dl.max_bind_groups)?;
        check("max_bindings_per_bind_group", budget.slots + 1, dl.max_bindings_per_bind_group)?;
        check("max_vertex_attributes", 6, dl.max_vertex_attributes)?;
        let info = device.adapter_info();
        let pad_ambiguous_layers = info.backend == wgpu::Backend::Gl;

        let globals_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("layerbatch globals"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::VERTEX,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: wgpu::BufferSize::new(16),
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    count: None,
                },
            ],
        });
        let globals_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("layerbatch globals"),
            contents: bytemuck::cast_slice(&[1.0f32, 1.0, 0.0, 0.0]),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        });
        // The one sampler: trilinear, clamp to edge. Nearest filtering and wrapping are done in
        // the shader (see the `shader` module for why).
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("layerbatch sampler"),
            address_mode_u: wgpu::AddressMode::ClampToEdge,
            address_mode_v: wgpu::AddressMode::ClampToEdge,
            address_mode_w: wgpu::AddressMode::ClampToEdge,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            mipmap_filter: wgpu::MipmapFilterMode::Linear,
            ..Default::default()
        });
        let globals_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("layerbatch globals"),
            layout: &globals_layout,
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: globals_buffer.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 1, resource: wgpu::BindingResource::Sampler(&sampler) },
            ],
        });

        let mut pipelines = Vec::with_capacity(budget.tiers.len());
        let mut slot_layouts = Vec::with_capacity(budget.tiers.len());
        for &tier in &budget.tiers {
            let layout = slot_layout(device, tier);
            let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("layerbatch"),
                bind_group_layouts: &[Some(&globals_layout), Some(&layout)],
                immediate_size: 0,
            });
            let source = shader::shader_source(tier);
            let (module, err) = scoped(device, || {
                device.create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some("layerbatch"),
                    source: wgpu::ShaderSource::Wgsl(source.into()),
                })
            });
            if let Some(e) = err {
                return Err(Error::Shader { tier, message: e.to_string() });
            }
            let (pipeline, err) =
                scoped(device, || create_pipeline(device, &pipeline_layout, &module, target, options, tier));
            if let Some(e) = err {
                return Err(Error::Pipeline { tier, message: e.to_string() });
            }
            pipelines.push(pipeline);
            slot_layouts.push(layout);
        }

        // Bound in slots a segment does not sample, so that every bind group is complete.
        // Two layers: never a layer count wgpu's GL backend misreads.
        let placeholder = device
            .create_texture(&wgpu::TextureDescriptor {
                label: Some("layerbatch placeholder"),
                size: wgpu::Extent3d { width: 1, height: 1, depth_or_array_layers: 2 },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: wgpu::TextureFormat::Rgba8Unorm,
                usage: wgpu::TextureUsages::TEXTURE_BINDING,
                view_formats: &[],
            })
            .create_view(&wgpu::TextureViewDescriptor {
                label: Some("layerbatch placeholder"),
                dimension: Some(wgpu::TextureViewDimension::D2Array),
                ..Default::default()
            });

        let device_before = DeviceCounters {
            pipeline_compiles: pipelines.len() as u64,
            bind_group_creates: 1,
            ..DeviceCounters::default()
        };
        Ok(Self {
            tiers: budget.tiers.clone(),
            pipelines,
            slot_layouts,
            globals_buffer,
            globals_group,
            placeholder,
            arrays: HashMap::new(),
            groups: HashMap::new(),
            next_serial: 0,
            frame_index: 0,
            instance_buffer: None,
            draws: Vec::new(),
            viewport_px: [0, 0],
            pad_ambiguous_layers,
            warned_ambiguous: false,
            max_array_layers: dl.max_texture_array_layers,
            max_texture_px: dl.max_texture_dimension_2d,
            core_frame: Counters::default(),
            core_total: Counters::default(),
            device_frame: DeviceCounters::default(),
            device_before,
            render_draws: AtomicU64::new(0),
            render_group_sets: AtomicU64::new(0),
        })
    }

    /// The slot tiers, one pipeline each, ascending.
    pub fn tiers(&self) -> &[u32] {
        &self.tiers
    }

    /// The GPU texture of a live array (for inspection). On wgpu's GL backend an array whose
    /// layer count that backend would misread as a 2D or cube texture (1, or a multiple of 6)
    /// is allocated with one extra, never used layer; core's limits from [`device_limits`]
    /// never ask for one.
    pub fn array_texture(&self, array: ArrayId) -> Option<&wgpu::Texture> {
        self.arrays.get(&array).map(|a| &a.texture)
    }

    /// Arrays alive on the device.
    pub fn array_count(&self) -> usize {
        self.arrays.len()
    }

    /// Bind groups in the cache.
    pub fn cached_bind_groups(&self) -> usize {
        self.groups.len()
    }

    /// Core's counters and what this renderer issued, for the last plan prepared (the draws and
    /// bind-group sets of `render` are counted when it runs). `bind_group_sets` counts every
    /// `set_bind_group`, the globals group's one per `render` included; `texture_binds` stays
    /// 0. `device_total` includes the pipelines and the globals bind group created by `new`.
    pub fn stats(&self) -> Stats {
        let frame = self.device_frame_counters();
        let mut total = self.device_before;
        total.accumulate(&frame);
        Stats { core_frame: self.core_frame, core_total: self.core_total, device_frame: frame, device_total: total }
    }

    fn device_frame_counters(&self) -> DeviceCounters {
        let mut c = self.device_frame;
        c.draw_calls += self.render_draws.load(Ordering::Relaxed);
        c.bind_group_sets += self.render_group_sets.load(Ordering::Relaxed);
        c
    }

    /// Executes `plan` up to the draws: applies its ops in order, uploads the instances and
    /// the viewport (`viewport_px`: the size of the host's viewport in pixels; quads are in
    /// pixels, y down, `(0, 0)` its top-left corner), and resolves the bind groups the
    /// segments need. Growth copies (and layer writes after them) are recorded into `encoder`:
    /// see [`Renderer`] for the ordering contract.
    ///
    /// # Errors
    /// [`Error::NoSuchArray`], [`Error::ArrayExists`], [`Error::BadArray`], [`Error::BadWrite`]
    /// or [`Error::BadSegment`] for a plan this renderer cannot execute (not one from a batcher
    /// fed only to it). Nothing is drawn for the frame then; ops before the bad one stay
    /// applied.
    pub fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        plan: &FramePlan,
        viewport_px: [u32; 2],
    ) -> Result<(), Error> {
        let last = self.device_frame_counters();
        self.device_before.accumulate(&last);
        self.render_draws.store(0, Ordering::Relaxed);
        self.render_group_sets.store(0, Ordering::Relaxed);
        self.device_frame = DeviceCounters { frames: 1, ..DeviceCounters::default() };
        self.core_frame = plan.counters;
        self.core_total = plan.totals;
        self.draws.clear();
        self.frame_index += 1;

        self.apply_ops(device, queue, encoder, plan)?;
        self.resolve_segments(device, plan)?;

        if !plan.instances.is_empty() {
            let bytes: &[u8] = bytemuck::cast_slice(&plan.instances);
            let needed = bytes.len() as u64;
            let buffer = match &self.instance_buffer {
                Some(b) if b.size() >= needed => b,
                _ => {
                    let instances = (plan.instances.len() as u64).next_power_of_two().max(MIN_INSTANCES);
                    self.instance_buffer.insert(device.create_buffer(&wgpu::BufferDescriptor {
                        label: Some("layerbatch instances"),
                        size: instances * std::mem::size_of::<Instance>() as u64,
                        usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
                        mapped_at_creation: false,
                    }))
                }
            };
            queue.write_buffer(buffer, 0, bytes);
            self.device_frame.instance_bytes_written += needed;
        }
        if viewport_px != self.viewport_px {
            self.viewport_px = viewport_px;
            let v = [viewport_px[0].max(1) as f32, viewport_px[1].max(1) as f32, 0.0, 0.0];
            queue.write_buffer(&self.globals_buffer, 0, bytemuck::cast_slice(&v));
        }
        if self.groups.len() > MAX_CACHED_GROUPS {
            let frame = self.frame_index;
            self.groups.retain(|_, g| g.last_used == frame);
        }
        Ok(())
    }

    /// Records the prepared segments into the host's pass, in order: per segment, the tier's
    /// pipeline and slot bind group (each only when it changes) and one instanced draw.
    /// Draws nothing before the first successful [`Renderer::prepare`] or after a failed one.
    pub fn render(&self, pass: &mut wgpu::RenderPass<'_>) {
        let Some(buffer) = &self.instance_buffer else {
            return;
        };
        if self.draws.is_empty() {
            return;
        }
        pass.set_vertex_buffer(0, buffer.slice(..));
        pass.set_bind_group(GROUP_GLOBALS, &self.globals_group, &[]);
        let mut sets = 1;
        let (mut pipeline, mut group) = (usize::MAX, u64::MAX);
        for d in &self.draws {
            if d.pipeline != pipeline {
                pass.set_pipeline(&self.pipelines[d.pipeline]);
                pipeline = d.pipeline;
            }
            if d.serial != group {
                pass.set_bind_group(GROUP_SLOTS, &d.group, &[]);
                group = d.serial;
                sets += 1;
            }
            pass.draw(0..4, d.instances.clone());
        }
        self.render_draws.fetch_add(self.draws.len() as u64, Ordering::Relaxed);
        self.render_group_sets.fetch_add(sets, Ordering::Relaxed);
    }

    fn apply_ops(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        plan: &FramePlan,
    ) -> Result<(), Error> {
        // Writes after the first growth go through a staging buffer recorded into `encoder`, so
        // that they land after the copy (queue writes run before every command buffer).
        let first_growth = plan.ops.iter().position(|op| matches!(op, ResourceOp::Array(ArrayOp::Grow { .. })));
        let staging = match first_growth {
            Some(i) => stage_writes(device, plan, &plan.ops[i + 1..])?,
            None => None,
        };
        let mut staged_offset = 0u64;
        let mut after_growth = false;
        for op in &plan.ops {
            match op {
                ResourceOp::Array(ArrayOp::Create { array, desc }) => {
                    self.create_array(device, *array, desc)?;
                    self.device_frame.arrays_created += 1;
                }
                ResourceOp::Array(ArrayOp::Grow { from, to, desc, copy_layers }) => {
                    let old = self.arrays.get(from).ok_or(Error::NoSuchArray(*from))?;
                    let o = &old.desc;
                    if (o.width_px, o.height_px, o.format, o.mip_levels)
                        != (desc.width_px, desc.height_px, desc.format, desc.mip_levels)
                        || *copy_layers > o.layers
                        || *copy_layers > desc.layers
                    {
                        return Err(Error::BadArray {
                            array: *to,
                            reason: format!("cannot grow {from:?} ({o:?}) into {desc:?}, copying {copy_layers} layers"),
                        });
                    }
                    self.create_array(device, *to, desc)?;
                    let old = self.arrays.remove(from).expect("checked above");
                    let new = &self.arrays[to];
                    if *copy_layers > 0 {
                        for level in 0..desc.mip_levels {
                            let (w, h) = mip_size(desc.width_px, desc.height_px, level);
                            encoder.copy_texture_to_texture(
                                copy_info(&old.texture, level, [0; 3]),
                                copy_info(&new.texture, level, [0; 3]),
                                wgpu::Extent3d { width: w, height: h, depth_or_array_layers: *copy_layers },
                            );
                        }
                    }
                    self.evict(*from);
                    self.device_frame.arrays_created += 1;
                    self.device_frame.arrays_destroyed += 1;
                    self.device_frame.layers_copied += u64::from(*copy_layers);
                    after_growth = true;
                }
                ResourceOp::Array(ArrayOp::Destroy { array }) => {
                    self.arrays.remove(array).ok_or(Error::NoSuchArray(*array))?;
                    self.evict(*array);
                    self.device_frame.arrays_destroyed += 1;
                }
                ResourceOp::WriteLayer { array, layer, x_px, y_px, width_px, height_px, mip_levels, bytes, .. } => {
                    let a = self.arrays.get(array).ok_or(Error::NoSuchArray(*array))?;
                    let bad = |reason: String| Error::BadWrite { array: *array, layer: *layer, reason };
                    check_write(&a.desc, plan, op).map_err(bad)?;
                    let mut offset = 0usize;
                    for level in 0..*mip_levels {
                        let (w, h) = mip_size(*width_px, *height_px, level);
                        let size = wgpu::Extent3d { width: w, height: h, depth_or_array_layers: 1 };
                        let dst = copy_info(&a.texture, level, [x_px >> level, y_px >> level, *layer]);
                        if after_growth {
                            let staging = staging.as_ref().expect("staged after the first growth");
                            let bytes_per_row = padded_row(w);
                            encoder.copy_buffer_to_texture(
                                wgpu::TexelCopyBufferInfo {
                                    buffer: staging,
                                    layout: wgpu::TexelCopyBufferLayout {
                                        offset: staged_offset,
                                        bytes_per_row: Some(bytes_per_row),
                                        rows_per_image: Some(h),
                                    },
                                },
                                dst,
                                size,
                            );
                            staged_offset += u64::from(bytes_per_row) * u64::from(h);
                        } else {
                            let len = w as usize * h as usize * 4;
                            let data = &plan.upload_bytes[bytes.start + offset..bytes.start + offset + len];
                            queue.write_texture(
                                dst,
                                data,
                                wgpu::TexelCopyBufferLayout {
                                    offset: 0,
                                    bytes_per_row: Some(w * 4),
                                    rows_per_image: Some(h),
                                },
                                size,
                            );
                        }
                        offset += w as usize * h as usize * 4;
                    }
                    self.device_frame.texture_bytes_written += bytes.len() as u64;
                }
            }
        }
        Ok(())
    }

    fn resolve_segments(&mut self, device: &wgpu::Device, plan: &FramePlan) -> Result<(), Error> {
        for (si, seg) in plan.segments.iter().enumerate() {
            let bad = |reason: String| Error::BadSegment { segment: si, reason };
            let pipeline = self
                .tiers
                .iter()
                .position(|&t| t == seg.tier)
                .ok_or_else(|| bad(format!("tier {} has no pipeline (tiers {:?})", seg.tier, self.tiers)))?;
            if seg.instances.start > seg.instances.end || seg.instances.end as usize > plan.instances.len() {
                return Err(bad(format!("instances {:?} of {}", seg.instances, plan.instances.len())));
            }
            if seg.slots.start > seg.slots.end
                || seg.slots.end as usize > plan.slot_tables.len()
                || seg.slots.len() != seg.tier as usize
            {
                return Err(bad(format!("slot table {:?} for tier {}", seg.slots, seg.tier)));
            }
            let table = plan.slots(seg);
            let mut key: GroupKey = (seg.tier, [NO_ARRAY; MAX_SLOTS_PER_DRAW as usize]);
            for (k, entry) in key.1.iter_mut().zip(table) {
                if let Some(a) = entry {
                    if !self.arrays.contains_key(a) {
                        return Err(Error::NoSuchArray(*a));
                    }
                    *k = a.0;
                }
            }
            if !self.groups.contains_key(&key) {
                let group = self.create_group(device, pipeline, table);
                self.next_serial += 1;
                self.groups.insert(key, CachedGroup { group, serial: self.next_serial, last_used: 0 });
                self.device_frame.bind_group_creates += 1;
            }
            let cached = self.groups.get_mut(&key).expect("inserted above");
            cached.last_used = self.frame_index;
            if seg.instances.is_empty() {
                continue;
            }
            self.draws.push(Draw {
                pipeline,
                group: cached.group.clone(),
                serial: cached.serial,
                instances: seg.instances.clone(),
            });
        }
        Ok(())
    }

    fn create_group(&self, device: &wgpu::Device, pipeline: usize, table: &[Option<ArrayId>]) -> wgpu::BindGroup {
        let tier = self.tiers[pipeline];
        // Per slot (width, height, mip levels, 0), as the shader's `SlotInfo`; the placeholder
        // of an unused slot is one 1x1 level.
        let mut info = vec![[1.0f32, 1.0, 1.0, 0.0]; (shader::slot_info_size(tier) / 16) as usize];
        for (row, a) in info.iter_mut().zip(table) {
            if let Some(a) = a {
                let d = &self.arrays[a].desc;
                *row = [d.width_px as f32, d.height_px as f32, d.mip_levels as f32, 0.0];
            }
        }
        let info = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("layerbatch slot info"),
            contents: bytemuck::cast_slice(&info),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let mut entries = Vec::with_capacity(tier as usize + 1);
        entries.push(wgpu::BindGroupEntry { binding: 0, resource: info.as_entire_binding() });
        for (i, a) in table.iter().enumerate() {
            let view = match a {
                Some(a) => &self.arrays[a].view,
                None => &self.placeholder,
            };
            entries.push(wgpu::BindGroupEntry {
                binding: i as u32 + 1,
                resource: wgpu::BindingResource::TextureView(view),
            });
        }
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("layerbatch slots"),
            layout: &self.slot_layouts[pipeline],
            entries: &entries,
        })
    }

    fn create_array(&mut self, device: &wgpu::Device, id: ArrayId, desc: &ArrayDesc) -> Result<(), Error> {
        if self.arrays.contains_key(&id) {
            return Err(Error::ArrayExists(id));
        }
        let bad = |reason: String| Error::BadArray { array: id, reason };
        if desc.width_px == 0 || desc.height_px == 0 || desc.layers == 0 || desc.mip_levels == 0 {
            return Err(bad(format!("empty description {desc:?}")));
        }
        if desc.width_px > self.max_texture_px || desc.height_px > self.max_texture_px {
            return Err(bad(format!(
                "{}x{} exceeds the device's {} px",
                desc.width_px, desc.height_px, self.max_texture_px
            )));
        }
        if desc.mip_levels > layerbatch_core::max_mip_levels(desc.width_px, desc.height_px) {
            return Err(bad(format!("{} mip levels for {}x{}", desc.mip_levels, desc.width_px, desc.height_px)));
        }
        // wgpu's GL backend picks the GL texture target from the layer count: 1 layer is a 2D
        // texture and a multiple of 6 a cube (array), whatever the view says. One unused layer
        // more keeps such an array a TEXTURE_2D_ARRAY.
        let mut layers = desc.layers;
        if self.pad_ambiguous_layers && (layers == 1 || layers % 6 == 0) {
            if !self.warned_ambiguous {
                self.warned_ambiguous = true;
                log::warn!(
                    "layerbatch-wgpu: array {id:?} has {layers} layers, which wgpu's GL backend would misread; \
                 allocating {} (build the batcher with layerbatch_wgpu::device_limits to avoid this)",
                    layers + 1
                );
            }
            layers += 1;
        }
        if layers > self.max_array_layers {
            return Err(bad(format!("{layers} layers exceed the device's {}", self.max_array_layers)));
        }
        let format = match desc.format {
            Format::Rgba8Unorm => wgpu::TextureFormat::Rgba8Unorm,
            Format::Rgba8UnormSrgb => wgpu::TextureFormat::Rgba8UnormSrgb,
        };
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("layerbatch array"),
            size: wgpu::Extent3d { width: desc.width_px, height: desc.height_px, depth_or_array_layers: layers },
            mip_level_count: desc.mip_levels,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let view = texture.create_view(&wgpu::TextureViewDescriptor {
            label: Some("layerbatch array"),
            dimension: Some(wgpu::TextureViewDimension::D2Array),
            ..Default::default()
        });
        self.arrays.insert(id, Array { texture, view, desc: *desc });
        Ok(())
    }

    /// Drops every cached bind group that references `array`.
    fn evict(&mut self, array: ArrayId) {
        self.groups.retain(|(_, ids), _| !ids.contains(&array.0));
    }
}

fn slot_layout(device: &wgpu::Device, tier: u32) -> wgpu::BindGroupLayout {
    let mut entries = Vec::with_capacity(tier as usize + 1);
    entries.push(wgpu::BindGroupLayoutEntry {
        binding: 0,
        visibility: wgpu::ShaderStages::FRAGMENT,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: wgpu::BufferSize::new(shader::slot_info_size(tier)),
        },
        count: None,
    });
    for i in 0..tier {
        entries.push(wgpu::BindGroupLayoutEntry {
            binding: i + 1,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: true },
                view_dimension: wgpu::TextureViewDimension::D2Array,
                multisampled: false,
            },
            count: None,
        });
    }
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("layerbatch slots"),
        entries: &entries,
    })
}

const INSTANCE_ATTRIBUTES: [wgpu::VertexAttribute; 6] = wgpu::vertex_attr_array![
    0 => Float32x2, // origin
    1 => Float32x2, // axis_x
    2 => Float32x2, // axis_y
    3 => Float32x4, // uv_rect
    4 => Unorm8x4,  // color
    5 => Uint32,    // slot_flags_layer
];

fn create_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    target: wgpu::TextureFormat,
    options: &RendererOptions,
    tier: u32,
) -> wgpu::RenderPipeline {
    let label = format!("layerbatch tier {tier}");
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(&label),
        layout: Some(layout),
        vertex: wgpu::VertexState {
            module,
            entry_point: Some("vs_main"),
            compilation_options: Default::default(),
            buffers: &[Some(wgpu::VertexBufferLayout {
                array_stride: std::mem::size_of::<Instance>() as u64,
                step_mode: wgpu::VertexStepMode::Instance,
                attributes: &INSTANCE_ATTRIBUTES,
            })],
        },
        primitive: wgpu::PrimitiveState {
            topology: wgpu::PrimitiveTopology::TriangleStrip,
            cull_mode: None,
            ..Default::default()
        },
        depth_stencil: options.depth_stencil.clone(),
        multisample: options.multisample,
        fragment: Some(wgpu::FragmentState {
            module,
            entry_point: Some("fs_main"),
            compilation_options: Default::default(),
            targets: &[Some(wgpu::ColorTargetState {
                format: target,
                // Premultiplied alpha: ONE, ONE_MINUS_SRC_ALPHA.
                blend: Some(wgpu::BlendState::PREMULTIPLIED_ALPHA_BLENDING),
                write_mask: wgpu::ColorWrites::ALL,
            })],
        }),
        multiview_mask: None,
        cache: None,
    })
}

fn copy_info(texture: &wgpu::Texture, mip_level: u32, [x, y, z]: [u32; 3]) -> wgpu::TexelCopyTextureInfo<'_> {
    wgpu::TexelCopyTextureInfo {
        texture,
        mip_level,
        origin: wgpu::Origin3d { x, y, z },
        aspect: wgpu::TextureAspect::All,
    }
}

/// Bytes per row of a staged level: `width * 4` rounded up to wgpu's copy alignment.
fn padded_row(width_px: u32) -> u32 {
    (width_px * 4).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)
}

/// Checks a `WriteLayer` against its array and the plan's bytes.
fn check_write(desc: &ArrayDesc, plan: &FramePlan, op: &ResourceOp) -> Result<(), String> {
    let ResourceOp::WriteLayer { layer, x_px, y_px, width_px, height_px, mip_levels, .. } = op else {
        return Ok(());
    };
    if *layer >= desc.layers {
        return Err(format!("the array has {} layers", desc.layers));
    }
    if *width_px == 0 || *height_px == 0 || x_px + width_px > desc.width_px || y_px + height_px > desc.height_px {
        return Err(format!(
            "{width_px}x{height_px} at ({x_px}, {y_px}) does not fit a {}x{} layer",
            desc.width_px, desc.height_px
        ));
    }
    if *mip_levels == 0 || *mip_levels > desc.mip_levels {
        return Err(format!("{mip_levels} mip levels, the array has {}", desc.mip_levels));
    }
    check_bytes(plan, op)
}

fn check_bytes(plan: &FramePlan, op: &ResourceOp) -> Result<(), String> {
    let ResourceOp::WriteLayer { width_px, height_px, mip_levels, bytes, .. } = op else {
        return Ok(());
    };
    let expected = mip_chain_bytes(*width_px, *height_px, *mip_levels);
    if bytes.start > bytes.end || bytes.end > plan.upload_bytes.len() || bytes.len() as u64 != expected {
        return Err(format!("bytes {bytes:?} of {} uploaded; {expected} needed", plan.upload_bytes.len()));
    }
    Ok(())
}

/// Packs the layer writes among `ops` into one staging buffer, level after level, rows padded
/// to [`wgpu::COPY_BYTES_PER_ROW_ALIGNMENT`]. `None` when there are none.
fn stage_writes(device: &wgpu::Device, plan: &FramePlan, ops: &[ResourceOp]) -> Result<Option<wgpu::Buffer>, Error> {
    let mut data = Vec::new();
    for op in ops {
        let ResourceOp::WriteLayer { array, layer, width_px, height_px, mip_levels, bytes, .. } = op else {
            continue;
        };
        check_bytes(plan, op).map_err(|reason| Error::BadWrite { array: *array, layer: *layer, reason })?;
        let mut src = bytes.start;
        for level in 0..*mip_levels {
            let (w, h) = mip_size(*width_px, *height_px, level);
            let row = w as usize * 4;
            let padded = padded_row(w) as usize;
            for _ in 0..h {
                data.extend_from_slice(&plan.upload_bytes[src..src + row]);
                data.resize(data.len() + padded - row, 0);
                src += row;
            }
        }
    }
    if data.is_empty() {
        return Ok(None);
    }
    Ok(Some(device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("layerbatch staged writes"),
        contents: &data,
        usage: wgpu::BufferUsages::COPY_SRC,
    })))
}

/// Runs `f` inside validation and internal error scopes and returns the first error caught.
fn scoped<T>(device: &wgpu::Device, f: impl FnOnce() -> T) -> (T, Option<wgpu::Error>) {
    let internal = device.push_error_scope(wgpu::ErrorFilter::Internal);
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let out = f();
    let v = ready(validation.pop()).flatten();
    let i = ready(internal.pop()).flatten();
    (out, v.or(i))
}

/// The output of a future that is already complete (wgpu's native error scopes are); `None`
/// if it is not (then the error, if any, goes to the device's uncaptured-error handler).
fn ready<F: Future>(future: F) -> Option<F::Output> {
    let mut future = std::pin::pin!(future);
    match future.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(v) => Some(v),
        Poll::Pending => None,
    }
}
