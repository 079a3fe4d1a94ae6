//! The renderer: executes frame plans with the host's device and queue, into the host's pass.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use layerbatch_core::plan::{expand_quads, quad_indices};
use layerbatch_core::{
    ArrayDesc, ArrayId, ArrayOp, BlendFactor, BlendMode, Budget, Clip, DeviceCounters, DrawState, Filter, Format,
    FramePlan, Instance, Limits, PlanTarget, PlanValidator, ResourceOp, Stats, Viewport, Wrap, MAX_SLOTS_PER_DRAW,
};
use wgpu::util::DeviceExt as _;

use crate::mips::Mips;
use crate::scope::{checked, scoped, Late, What};
use crate::shader::{self, GLOBALS_BYTES, GROUP_GLOBALS, GROUP_SLOTS};
use crate::transfer::{self, copy_info, own_encoder, upload, Staging};
use crate::Error;

/// Core's [`Limits`] for a wgpu device of `backend` with `device_limits` (use the *device's*
/// limits, [`wgpu::Device::limits`], not the adapter's: a device may be requested with less).
///
/// - `max_texture_units`: `max_sampled_textures_per_shader_stage`, and no more than
///   `max_samplers_per_shader_stage`: each slot is sampled through a sampler of its own (and
///   on wgpu's GL backend is one combined GL texture unit).
/// - `max_samplers`, `max_array_layers`, `max_texture_size_px`: the matching wgpu limits.
/// - `avoid_ambiguous_layer_counts`: `true` on [`wgpu::Backend::Gl`], which guesses a texture's
///   type from its layer count (1 layer = 2D, a multiple of 6 = cube).
/// - `max_buffer_bytes`: `max_buffer_size`, so that core's instance capacity fits one vertex
///   buffer.
///
/// ```
/// let l = layerbatch_wgpu::limits(wgpu::Backend::Gl, &wgpu::Limits::downlevel_webgl2_defaults());
/// assert_eq!((l.max_texture_units, l.max_array_layers), (16, 256));
/// assert_eq!(l.max_buffer_bytes, 256 << 20);
/// assert!(l.avoid_ambiguous_layer_counts);
/// ```
pub fn limits(backend: wgpu::Backend, device_limits: &wgpu::Limits) -> Limits {
    let units = device_limits.max_sampled_textures_per_shader_stage.min(device_limits.max_samplers_per_shader_stage);
    Limits::new(units, device_limits.max_texture_array_layers, device_limits.max_texture_dimension_2d)
        .with_max_samplers(device_limits.max_samplers_per_shader_stage)
        .with_avoid_ambiguous_layer_counts(backend == wgpu::Backend::Gl)
        .with_max_buffer_bytes(device_limits.max_buffer_size)
}

/// [`limits`] for `device`: its backend and the limits it was created with, and
/// `software_rasterizer` when its adapter is a CPU one ([`wgpu::DeviceType::Cpu`]: lavapipe,
/// llvmpipe and SwiftShader behind wgpu's GL backend, SwiftShader behind a browser's WebGPU).
pub fn device_limits(device: &wgpu::Device) -> Limits {
    let info = device.adapter_info();
    limits(info.backend, &device.limits()).with_software_rasterizer(info.device_type == wgpu::DeviceType::Cpu)
}

/// How the pipelines are built, beyond the target format. Match the host's render pass.
///
/// `#[non_exhaustive]`: start from `RendererOptions::default()` and use the `with_*` methods.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct RendererOptions {
    /// Multisampling of the host's pass. Default: 1 sample.
    pub multisample: wgpu::MultisampleState,
    /// The depth-stencil attachment of the host's pass, if any. layerbatch draws in painter's
    /// order and needs no depth test: pass e.g. `depth_compare: Always`, `depth_write_enabled:
    /// false`. Default: none.
    pub depth_stencil: Option<wgpu::DepthStencilState>,
}

impl RendererOptions {
    /// Sets `multisample`.
    #[must_use]
    pub fn with_multisample(mut self, multisample: wgpu::MultisampleState) -> Self {
        self.multisample = multisample;
        self
    }
    /// Sets `depth_stencil`.
    #[must_use]
    pub fn with_depth_stencil(mut self, depth_stencil: Option<wgpu::DepthStencilState>) -> Self {
        self.depth_stencil = depth_stencil;
        self
    }
}

/// Bind groups kept in the cache beyond those the current frame uses.
const MAX_CACHED_GROUPS: usize = 256;
/// Instances a block's vertex buffer holds at least (unless the block capacity is smaller), so
/// that small frames do not recreate it for every few quads more.
const MIN_INSTANCES: u64 = 1024;
/// Plans one automatic frame may hold before a warning that no render ended it.
const PLANS_WARNING: usize = 64;
/// An empty slot in a bind-group key.
const NO_ARRAY: u32 = u32::MAX;
/// Blend modes, one pipeline each per tier: pipeline `tier_index * BLENDS + mode.index()`.
const BLENDS: usize = BlendMode::ALL.len();

/// A bind group's identity: the tier, and the array each of its slots holds.
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
    /// Index into the pipelines: the tier's, and the segment's blend mode.
    pipeline: usize,
    /// Dynamic offset of the segment's draw state in the plan's globals uniform.
    globals_offset: u32,
    clip: Clip,
    group: wgpu::BindGroup,
    serial: u64,
    /// Where the segment's instance block lies.
    block: Block,
    /// Instances, relative to the block's first.
    instances: Range<u32>,
}

/// An instance block's place in the pool: `bytes` at `offset` of vertex buffer `index`.
#[derive(Clone, Debug)]
struct Block {
    buffer: wgpu::Buffer,
    index: usize,
    offset: u64,
    bytes: u64,
}

/// One plan prepared in the current frame: its draws, its globals slot and where it draws.
#[derive(Debug)]
struct PlanDraws {
    viewport: usize,
    vp: Viewport,
    /// Drawn into a render target by `prepare` itself, with that format's pipelines: the
    /// host's passes never draw it.
    target_format: Option<wgpu::TextureFormat>,
    draws: Vec<Draw>,
}

/// A globals uniform (one entry per draw state of a plan: the viewport size and the state's
/// transform, at a dynamic offset each) and its bind group: one per place in a frame's plans,
/// reused frame to frame, grown only when a plan has more states than it holds.
#[derive(Debug)]
struct Globals {
    buffer: wgpu::Buffer,
    group: wgpu::BindGroup,
    /// Entries `buffer` holds.
    entries: usize,
    /// The bytes last written into `buffer` (empty: nothing written yet).
    written: Vec<u8>,
}

/// A plan prepared by [`Renderer::prepare`], for [`Renderer::render_prepared`]: a small
/// handle, valid until the frame ends (see [`Renderer`], *Several plans per frame*).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Prepared {
    /// The renderer's frame the plan was prepared in.
    frame: u64,
    /// Its place among that frame's plans.
    index: u32,
    /// Its place among the plans the renderer holds for the host's passes; `None` for a plan
    /// drawn into a render target, which `prepare` drew and submits and holds nothing of.
    held: Option<u32>,
}

impl Prepared {
    /// The plan's place among the plans prepared in its frame: 0 for the first.
    pub fn index(self) -> usize {
        self.index as usize
    }
}

/// Executes [`FramePlan`]s with the host's `Device` and `Queue`, drawing into the host's
/// `RenderPass`, the way glyphon and egui-wgpu embed.
///
/// Per frame:
///
/// 1. [`Renderer::prepare`] checks the plan with core's [`PlanValidator`] (the one every
///    executor uses) before touching the device, then applies its ops in order (array
///    creation; growth, shrinking and rectangle copies by `copy_texture_to_texture`;
///    destruction; layer writes), uploads the instances and the viewport, and resolves each
///    segment's bind group (cached across frames).
/// 2. The host begins its render pass and calls [`Renderer::render`], which records the
///    segments in order: one `draw` each, with the pipeline of the segment's tier.
/// 3. The host submits its encoder. The renderer never submits the host's work: only its
///    own command buffer of copies (see *Submission ordering*).
///
/// # Several plans per frame
///
/// A frame may hold several plans (of one batcher, in order), each drawn in its own place in
/// the host's passes, all submitted together: e.g. egui's callbacks prepare A, prepare B, then
/// paint A, paint B. [`Renderer::prepare`] returns a [`Prepared`] handle (a small `Copy`
/// value); [`Renderer::render_prepared`] draws that plan, into any pass of the frame, in any
/// order; [`Renderer::render`] draws the last plan prepared (the one-plan frame above).
///
/// - **Space of its own.** Each plan of a frame gets its own instance space (blocks placed one
///   after another in a pool of vertex buffers shared by the frame's plans) and its own
///   globals uniform: the viewport and one transform per draw state, each entry at a dynamic
///   offset (plan `i` of a frame uses the `i`th of a list of uniforms, each with its bind
///   group). Queue writes run at the next submit, the last write to a range winning, so
///   no two plans of a frame ever write the same range: the plans of one submit never
///   overwrite each other.
/// - **Frames.** The space is recycled when a frame ends, and a frame must not end before
///   the host has submitted the renders of its plans. A frame ends in one of two ways:
///   - *Explicit frames*: the host calls [`Renderer::begin_frame`] before each frame's first
///     `prepare`, after submitting the previous frame. Once it has been called, `prepare`
///     never ends a frame by itself. Needed when `prepare` and `render` alternate before one
///     submit (prepare A, render A, prepare B, render B, submit).
///   - *Automatic frames* (no `begin_frame` call ever): a `prepare` that follows a `render` or
///     `render_prepared` starts a new frame. This covers one plan per submit (prepare, render,
///     submit, as before) and "prepare every plan, then render them, then submit". A host
///     that prepares plans and never renders holds their space until it renders (a warning is
///     logged at 64 plans).
///   - Either way, a plan drawn into a render target ([`FramePlan::target`]) holds no space
///     past its `prepare`, which draws and submits it: its instance space and globals uniform
///     go to the next plan, and a host that only draws into render targets, never calling
///     `render`, holds what one such plan needs.
/// - **Stale handles.** A [`Prepared`] of an earlier frame draws nothing (a warning is
///   logged): its space may hold another plan's instances now.
/// - **Bounded memory.** Each frame reuses the space of the frames before it: the pool grows
///   only until it holds the largest frame (the first buffer grows toward the largest frame's
///   instances, so that a frame's plans come to share it), and there are as many globals
///   uniforms as the most plans a frame held, each grown (to a power of two entries) only
///   when a plan has more draw states than it holds.
/// - **Stats.** [`Renderer::stats`] gives core's counters of the last plan prepared and the
///   device counters of the frame, summed over its plans and renders.
///
/// ```no_run
/// # fn frame(device: &wgpu::Device, queue: &wgpu::Queue,
/// #     renderer: &mut layerbatch_wgpu::Renderer, batcher: &mut layerbatch_core::Batcher,
/// #     pass_for: impl Fn(&mut wgpu::CommandEncoder) -> wgpu::RenderPass<'_>)
/// # -> Result<(), layerbatch_wgpu::Error> {
/// renderer.begin_frame(); // the previous frame was submitted
/// batcher.begin_frame();
/// // ... the scene's quads ...
/// let scene = renderer.prepare(device, queue, batcher.finish(), [800, 600])?;
/// batcher.begin_frame();
/// // ... the overlay's quads, in a 400x300 panel at (380, 20) of the 800x600 target ...
/// let panel = layerbatch_core::Viewport::rect([800, 600], [380, 20, 400, 300]);
/// let overlay = renderer.prepare(device, queue, batcher.finish(), panel)?;
/// let mut encoder = device.create_command_encoder(&Default::default());
/// {
///     let mut pass = pass_for(&mut encoder);
///     renderer.render_prepared(&mut pass, scene);
///     renderer.render_prepared(&mut pass, overlay);
/// }
/// queue.submit([encoder.finish()]);
/// # Ok(()) }
/// ```
///
/// # Plans
///
/// Plans must be prepared once each, in order. A repeat or a gap is refused with
/// [`Error::Plan`]`(`[`PlanError::Sequence`](layerbatch_core::PlanError::Sequence)`)`, and any
/// other plan core's validator refuses comes back as [`Error::Plan`] too, with nothing applied.
/// After a gap (a plan finished and never prepared), call
/// [`Batcher::restore`](layerbatch_core::Batcher::restore) and re-upload the textures it
/// lists: its next plan has [`FramePlan::rebuild`] set, and the renderer then drops every
/// array, cached bind group and slot binding it holds before applying the ops, which re-create
/// every live array.
///
/// # Errors instead of panics
///
/// Every wgpu call of `prepare` that can fail (texture, buffer and bind-group creation, queue
/// writes) runs inside validation, out-of-memory and internal error scopes: a failure comes
/// back as [`Error::Device`] instead of reaching the device's uncaptured-error handler. The
/// renderer then drops every array it holds and accepts only a rebuild plan next (call
/// `Batcher::restore`). The renderer's own command buffer (copies, staged writes,
/// render-target draws) is finished and submitted inside the same scopes. [`Renderer::new`]
/// catches shader and pipeline errors the same way ([`Error::Shader`], [`Error::Pipeline`]).
///
/// **When the error arrives.** Natively, and on wgpu's WebGL2 backend in a browser, a popped
/// error scope has its answer at once: the error comes back from the call that caused it.
/// On **WebGPU** the browser answers error scopes asynchronously, after the call returned.
/// There the call returns `Ok`, the scopes' answers are awaited in the background (tasks
/// spawned with `wasm_bindgen_futures::spawn_local`), and the first error, in the order of
/// the operations, comes back as `Err`:
///
/// - from the next [`Renderer::prepare`], which then applies nothing of its own plan (and
///   expects a rebuild plan next, as after any device error); or
/// - from [`Renderer::device_errors`], which waits until every answer is in: await it after
///   `prepare` (or after `new`) where an error must be known before going on. It is
///   `Ok(())` at once natively.
///
/// Either way the renderer then holds no array, and none of the current frame's plans is
/// drawn any more (their handles draw nothing): a rebuild plan is next, as above. Draws the
/// host already recorded with a plan whose operations failed are the host's: WebGPU reports
/// what they trip over at the host's submit, through the device's uncaptured-error handler.
/// Errors of the host's own passes and submits (the draws `render` records) are the host's
/// scopes' or its uncaptured-error handler's, on every backend.
///
/// # Sampling
///
/// Instances carry texel coordinates of level 0 (`uv_rect`, and the texture's own `tex_rect`);
/// the shader divides by the bound layer's size (`textureDimensions`), so a plan that grows an
/// atlas page in size needs no new instances. With [`Instance::FLAG_CLAMP_TO_RECT`] the
/// sampling position is clamped into `tex_rect` inset by half a texel, so neither a neighbour
/// in the layer nor its padding ever bleeds in.
///
/// Each slot of a bind group gets the sampler of the array bound there: its
/// [`Filter`](layerbatch_core::Filter) (`Linear`: bilinear, trilinear with mips; `Nearest`:
/// nearest texel of the nearest mip level) and its [`Wrap`](layerbatch_core::Wrap)
/// (clamp-to-edge, repeat, mirrored repeat), like a GL texture unit. The six samplers are
/// created once, in [`Renderer::new`]. Repeat and mirror textures fill their whole layer, so
/// the sampler's wrapping, bilinear seams included, is exactly the texture's.
///
/// # Instances
///
/// Instances are uploaded by blocks of [`FramePlan::instance_capacity`] instances (core never
/// lets a segment cross a block), each block in one vertex buffer of a pool, each buffer no
/// larger than the device's `max_buffer_size`. A frame's blocks (of all its plans) are placed
/// one after another; the pool grows to what the largest frame needs and is reused frame to
/// frame, so any number of quads fits and instance memory is bounded by the largest frame.
///
/// # Submission ordering
///
/// `prepare` writes with `Queue::write_texture` / `write_buffer`, which wgpu executes at the
/// next `submit`, *before* every command buffer of that submit. GPU copies (growth, shrinking,
/// rectangle copies: [`ArrayOp::is_gpu_copy`]) cannot be queue writes: they are recorded into
/// a command encoder of the renderer's own. A layer write that follows a GPU copy in the plan
/// (e.g. a texture admitted into the grown array, or into the rectangle a compaction freed)
/// would be overwritten by, or read by, the copy if it were a queue write, so every write
/// after the plan's first GPU copy is staged in buffers no larger than the device's
/// `max_buffer_size` (a level larger than that is split by rows) and recorded into the same
/// encoder with `copy_buffer_to_texture`, in op order around the copies; a plan drawn into a
/// render target records its pass there too. The result is exactly the plan's op order.
///
/// **`prepare` submits that encoder itself** (only when a plan has such work: most frames
/// have none), before returning. So a plan's resource changes happen even when the host drops
/// its own encoder without submitting it (eframe does so when the surface is outdated, lost
/// or occluded): the next frame's textures are right. They also happen before anything the
/// host submits afterwards, including passes it recorded before calling `prepare`: a pass of
/// the same frame that draws an earlier plan sees this plan's texture changes (as it already
/// did for queue writes), so prepare every plan of a frame before submitting if a later plan
/// updates textures an earlier one draws. The host must submit the encoder holding the
/// renders before the frame ends (the instance buffers and globals uniforms of the frame's
/// plans are rewritten then): see *Several plans per frame*.
#[derive(Debug)]
pub struct Renderer {
    validator: PlanValidator,
    tiers: Vec<u32>,
    /// One pipeline per (tier, blend mode): `tier_index * BLENDS + mode.index()`.
    pipelines: Vec<wgpu::RenderPipeline>,
    /// Each tier's shader module and pipeline layout, for render-target pipelines.
    tier_modules: Vec<(wgpu::ShaderModule, wgpu::PipelineLayout)>,
    /// Pipelines drawing into render targets of a format, indexed as `pipelines`: made when
    /// the first render-target array of that format is created.
    target_pipelines: HashMap<wgpu::TextureFormat, Vec<wgpu::RenderPipeline>>,
    /// The render targets' mip regeneration pipelines, one per format, made in `new`.
    mips: Mips,
    slot_layouts: Vec<wgpu::BindGroupLayout>,
    globals_layout: wgpu::BindGroupLayout,
    /// One globals uniform per place in a frame's plans: plan `i` of a frame uses the `i`th.
    viewports: Vec<Globals>,
    /// Bytes between two globals entries: [`GLOBALS_BYTES`] rounded up to the device's
    /// `min_uniform_buffer_offset_alignment`.
    globals_stride: u64,
    /// The most draw states one plan may hold: `max_buffer_size / globals_stride`.
    max_states: usize,
    /// The globals bytes of the plan being prepared (reused: no allocation per frame).
    globals_scratch: Vec<u8>,
    placeholder: wgpu::TextureView,
    /// One sampler per (filter, wrap, mipmapped), indexed by [`sampler_index`].
    samplers: Vec<wgpu::Sampler>,
    arrays: HashMap<ArrayId, Array>,
    /// The array each slot holds, as the plans' binds left it (the validator's view, mirrored).
    slots: Vec<Option<ArrayId>>,
    groups: HashMap<GroupKey, CachedGroup>,
    next_serial: u64,
    /// Plans executed past the validator, successfully or not (the bind-group cache's clock).
    frame_index: u64,
    /// The pool of instance vertex buffers, shared by a frame's plans, reused frame to frame.
    /// Each instance is written once per corner (`Instance::VERTICES`).
    instance_buffers: Vec<wgpu::Buffer>,
    /// With indexed quads (`Budget::indexed_quads`), the indices of `instance_capacity` quads
    /// (`quad_indices`), written once at creation; `None` with instanced quads.
    indices: Option<wgpu::Buffer>,
    /// Scratch: a block's vertices (`expand_quads`), kept frame to frame.
    vertices: Vec<Instance>,
    /// Where the current frame's next instance block goes: (buffer, byte offset).
    cursor: (usize, u64),
    /// Instance bytes the current frame has placed.
    frame_bytes: u64,
    /// The most instance bytes a finished frame placed: the first buffer grows toward it, so
    /// that a frame's plans come to share one buffer.
    peak_frame_bytes: u64,
    /// The device's `max_buffer_size`: the largest staging buffer.
    max_buffer_size: u64,
    /// The renderer's frame: [`Prepared`] handles of other frames are stale.
    frame: u64,
    /// The plans of the current frame held for the host's passes, in order (not those drawn
    /// into render targets: `prepare` draws them and holds nothing of them).
    plans: Vec<PlanDraws>,
    /// Plans prepared successfully in the current frame, render-target plans included: the
    /// next [`Prepared::index`].
    frame_plans: u32,
    /// Draw lists of earlier frames' plans, emptied, for reuse.
    spare_draws: Vec<Vec<Draw>>,
    /// The plan `render` draws: the last one prepared, if that succeeded.
    latest: Option<Prepared>,
    /// Set by [`Renderer::begin_frame`]: frames end only there, never in `prepare`.
    explicit_frames: bool,
    /// `render` or `render_prepared` ran since the last `prepare` (automatic frames).
    rendered: AtomicBool,
    /// The device counters of the current frame's plans, summed.
    frame_counters: DeviceCounters,
    /// Everything up to the last `prepare`; `render`'s work for the current frame is added by
    /// [`Renderer::stats`].
    stats: Stats,
    /// What `render` issued for the current frame (`render` takes `&self`).
    render_draws: AtomicU64,
    render_group_sets: AtomicU64,
    /// Errors the device reports after the call that caused them (WebGPU).
    late: Late,
}

impl Renderer {
    /// Creates the renderer for passes whose colour target has `target` format: one shader
    /// module per tier of `budget.tiers` and one render pipeline per tier and
    /// [`BlendMode`] (`tiers x BlendMode::ALL.len()`), and the render targets' mip
    /// regeneration pipelines (one per format, not counted in `pipeline_compiles`), all here.
    /// Only the pipelines drawing into render targets of a format come later, with the first
    /// such target (see the crate docs, *Render to texture*).
    ///
    /// `budget` is the batcher's ([`layerbatch_core::Batcher::budget`]), made from
    /// [`device_limits`] of this device.
    ///
    /// # Errors
    /// [`Error::Budget`] when `budget` was edited into one core's `Budget::check` refuses (checked
    /// first); [`Error::Unsupported`] when the device cannot bind the budget's slots or hold a block
    /// of its instances in one buffer; [`Error::UnsupportedBudget`] on wgpu's GL backend when
    /// the budget allows layer counts that backend misreads (a budget not made from
    /// [`device_limits`]); [`Error::Shader`] / [`Error::Pipeline`] when a tier does not
    /// compile or link; [`Error::Device`] when wgpu refuses another object.
    pub fn new(
        device: &wgpu::Device,
        target: wgpu::TextureFormat,
        budget: &Budget,
        options: &RendererOptions,
    ) -> Result<Self, Error> {
        // A budget edited past what `Budget::new` makes would index past the slot tables.
        budget.check().map_err(Error::Budget)?;
        let dl = device.limits();
        let check = |what, needed: u32, allowed: u32| {
            if needed > allowed {
                Err(Error::Unsupported { what, needed, allowed })
            } else {
                Ok(())
            }
        };
        check("max_sampled_textures_per_shader_stage", budget.slots, dl.max_sampled_textures_per_shader_stage)?;
        // One sampler per slot.
        check("max_samplers_per_shader_stage", budget.slots, dl.max_samplers_per_shader_stage)?;
        check("max_bind_groups", 2, dl.max_bind_groups)?;
        check("max_bindings_per_bind_group", 2 * budget.slots, dl.max_bindings_per_bind_group)?;
        check("max_vertex_attributes", INSTANCE_ATTRIBUTES.len() as u32, dl.max_vertex_attributes)?;
        check("max_vertex_buffer_array_stride", Instance::BYTES, dl.max_vertex_buffer_array_stride)?;
        check(
            "max_dynamic_uniform_buffers_per_pipeline_layout",
            1,
            dl.max_dynamic_uniform_buffers_per_pipeline_layout,
        )?;
        let globals_stride = GLOBALS_BYTES.next_multiple_of(u64::from(dl.min_uniform_buffer_offset_alignment.max(1)));
        // A block's vertices fill at most one buffer; indices take less (6 x 4 bytes a quad).
        let max_instances = (dl.max_buffer_size / u64::from(budget.quad_bytes())).min(u64::from(u32::MAX)) as u32;
        check("max_buffer_size / Budget::quad_bytes (quads per buffer)", budget.instance_capacity, max_instances)?;
        // wgpu's GL backend picks the GL texture target from the layer count (1 layer is a 2D
        // texture, a multiple of 6 a cube), whatever the view says. Core avoids those counts
        // when the budget says so; a budget that does not would draw wrong, silently.
        if device.adapter_info().backend == wgpu::Backend::Gl && !budget.avoid_ambiguous_layer_counts {
            return Err(Error::UnsupportedBudget {
                reason: "wgpu's GL backend reads an array of 1 layer or a multiple of 6 layers as a 2D or cube \
                         texture, and this budget allows such arrays (avoid_ambiguous_layer_counts is off)",
            });
        }

        let globals_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("layerbatch globals"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: true,
                    min_binding_size: wgpu::BufferSize::new(GLOBALS_BYTES),
                },
                count: None,
            }],
        });
        let late = Late::default();
        let (viewport, placeholder, samplers, indices) = checked(
            device,
            &late,
            || "creating the globals, the samplers, the placeholder texture and the index buffer".to_string(),
            || {
                let viewport = create_viewport(device, &globals_layout, globals_stride, 1);
                // Indexed quads (software rasterizers): see `QuadVertices`.
                let indices = budget.indexed_quads.then(|| {
                    let list: Vec<u32> = quad_indices(budget.instance_capacity).collect();
                    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                        label: Some("layerbatch quad indices"),
                        contents: bytemuck::cast_slice(&list),
                        usage: wgpu::BufferUsages::INDEX,
                    })
                });
                // Every slot's sampler, chosen per array by `sampler_index`.
                let samplers = SAMPLER_KINDS
                    .iter()
                    .map(|&(filter, wrap, mips)| create_sampler(device, filter, wrap, mips))
                    .collect();
                // Bound in slots a segment does not sample, so that every bind group is
                // complete. Two layers: never a layer count wgpu's GL backend misreads.
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
                (viewport, placeholder, samplers, indices)
            },
        )?;

        let mut pipelines = Vec::with_capacity(budget.tiers.len() * BLENDS);
        let mut slot_layouts = Vec::with_capacity(budget.tiers.len());
        let mut tier_modules = Vec::with_capacity(budget.tiers.len());
        for &tier in &budget.tiers {
            let layout = slot_layout(device, tier);
            let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("layerbatch"),
                bind_group_layouts: &[Some(&globals_layout), Some(&layout)],
                immediate_size: 0,
            });
            let source = shader::shader_source(tier);
            let (module, verdict) = scoped(device, || {
                device.create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some("layerbatch"),
                    source: wgpu::ShaderSource::Wgsl(source.into()),
                })
            });
            if let Some(e) = late.settle(verdict, || What::Shader { tier }) {
                return Err(e);
            }
            // One module per tier, one pipeline per blend mode of it.
            for mode in BlendMode::ALL {
                let (pipeline, verdict) = scoped(device, || {
                    let kind = PipelineKind { tier, mode, indexed: budget.indexed_quads };
                    create_pipeline(device, &pipeline_layout, &module, target, options, kind)
                });
                if let Some(e) = late.settle(verdict, || What::Pipeline { tier, detail: format!("{mode:?} blending") })
                {
                    return Err(e);
                }
                pipelines.push(pipeline);
            }
            slot_layouts.push(layout);
            tier_modules.push((module, pipeline_layout));
        }

        // Not counted in `pipeline_compiles`, which counts the sprite pipelines (tiers x
        // blend modes).
        let mips = Mips::new(device, &late, wgpu_format)?;
        let mut stats = Stats::created(pipelines.len() as u64);
        // The first viewport's globals group.
        stats.device_total.bind_group_creates = 1;
        Ok(Self {
            validator: PlanValidator::new(budget),
            tiers: budget.tiers.clone(),
            pipelines,
            tier_modules,
            target_pipelines: HashMap::new(),
            mips,
            slot_layouts,
            globals_layout,
            viewports: vec![viewport],
            globals_stride,
            max_states: (dl.max_buffer_size / globals_stride).min(u32::MAX as u64) as usize,
            globals_scratch: Vec::new(),
            placeholder,
            samplers,
            arrays: HashMap::new(),
            slots: vec![None; budget.slots as usize],
            groups: HashMap::new(),
            next_serial: 0,
            frame_index: 0,
            instance_buffers: Vec::new(),
            indices,
            vertices: Vec::new(),
            cursor: (0, 0),
            frame_bytes: 0,
            peak_frame_bytes: 0,
            max_buffer_size: dl.max_buffer_size,
            frame: 0,
            plans: Vec::new(),
            frame_plans: 0,
            spare_draws: Vec::new(),
            latest: None,
            explicit_frames: false,
            rendered: AtomicBool::new(false),
            frame_counters: DeviceCounters::ZERO,
            stats,
            render_draws: AtomicU64::new(0),
            render_group_sets: AtomicU64::new(0),
            late,
        })
    }

    /// The slot tiers, one pipeline each, ascending.
    pub fn tiers(&self) -> &[u32] {
        &self.tiers
    }

    /// The GPU texture of a live array (for inspection): exactly the plan's description.
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

    /// Whether quads are drawn indexed (each instance written once per corner, one indexed
    /// draw) rather than instanced: the budget's `indexed_quads`
    /// ([`layerbatch_core::QuadVertices`]).
    pub fn indexed_quads(&self) -> bool {
        self.indices.is_some()
    }

    /// Instance vertex buffers in the pool, shared by a frame's plans: at least the most
    /// blocks of [`FramePlan::instance_capacity`] instances any frame needed, each no larger
    /// than the device's `max_buffer_size`.
    pub fn instance_buffers(&self) -> usize {
        self.instance_buffers.len()
    }

    /// Bytes of the instance vertex buffers held.
    pub fn instance_buffer_bytes(&self) -> u64 {
        self.instance_buffers.iter().map(wgpu::Buffer::size).sum()
    }

    /// Plans of the current frame held for the host's passes: those prepared successfully,
    /// less those drawn into render targets (which `prepare` draws and submits itself, and
    /// holds nothing of afterwards).
    pub fn prepared_plans(&self) -> usize {
        self.plans.len()
    }

    /// Globals uniforms held (each with its bind group): as many as the most plans a frame
    /// held for the host's passes (at least one).
    pub fn globals_uniforms(&self) -> usize {
        self.viewports.len()
    }

    /// Core's counters of the last plan prepared, and what this renderer issued for the current
    /// frame, summed over its plans (the draws and bind-group sets of `render` and
    /// `render_prepared` are counted when they run; `device_frame.frames` is the number of
    /// plans prepared in the frame). `bind_group_sets` counts every `set_bind_group`, the
    /// globals group's included (once per render call, and again at each change of draw
    /// state); `texture_binds` stays 0. `device_total` includes the pipelines (one per tier
    /// and blend mode) and the globals bind group created by `new`.
    pub fn stats(&self) -> Stats {
        let mut s = self.stats;
        s.add_device(self.render_counters());
        s
    }

    fn render_counters(&self) -> DeviceCounters {
        let mut c = DeviceCounters::ZERO;
        c.draw_calls = self.render_draws.load(Ordering::Relaxed);
        c.bind_group_sets = self.render_group_sets.load(Ordering::Relaxed);
        c
    }

    /// Starts a new frame: the host has submitted every encoder holding the renders of the
    /// plans prepared so far (or dropped them). Their instance space and globals uniforms are
    /// reused by the plans prepared next, and their [`Prepared`] handles go stale.
    ///
    /// Call it once per frame, before the frame's first [`Renderer::prepare`] (the first call
    /// switches the renderer to explicit frames for good: `prepare` then never starts a frame
    /// by itself). Hosts that render each plan after preparing all of the frame's plans, or
    /// that prepare one plan per submit, may leave it out: see [`Renderer`].
    pub fn begin_frame(&mut self) {
        self.explicit_frames = true;
        self.rendered.store(false, Ordering::Relaxed);
        self.start_frame();
    }

    /// Recycles the current frame's space: the frame's plans were submitted.
    fn start_frame(&mut self) {
        // The frame's draws were counted by `render`; fold them in before a new frame.
        let mut rendered = DeviceCounters::ZERO;
        rendered.draw_calls = self.render_draws.swap(0, Ordering::Relaxed);
        rendered.bind_group_sets = self.render_group_sets.swap(0, Ordering::Relaxed);
        self.stats.add_device(rendered);
        self.frame_counters = DeviceCounters::ZERO;
        self.frame += 1;
        // Keep the draw lists' storage for the next frame's plans: no allocation per frame.
        for mut p in self.plans.drain(..) {
            p.draws.clear();
            self.spare_draws.push(p.draws);
        }
        self.latest = None;
        self.frame_plans = 0;
        self.peak_frame_bytes = self.peak_frame_bytes.max(self.frame_bytes);
        self.frame_bytes = 0;
        self.cursor = (0, 0);
    }

    /// Executes `plan` up to the draws: checks it with core's [`PlanValidator`], then applies
    /// its ops in order, uploads the instances and the globals (viewport size and transforms)
    /// into space of their own in the current frame, and resolves the bind groups the segments
    /// need. GPU copies and the writes after them go into a command buffer of the renderer's
    /// own, submitted here (see [`Renderer`], *Submission ordering*).
    ///
    /// `viewport` says where the quads go (pixels, y down): `[u32; 2]` for the whole of a
    /// target of that size (the pass's viewport is left as the host set it, and must be that
    /// size), or [`Viewport::rect`] for an area of the target, which may reach outside it: the
    /// pass's viewport is then set to the visible part, and the quads keep their place (an egui
    /// callback passes its rect in the screen's physical pixels, and the clip rect egui set as
    /// [`Viewport::with_host_clip`]). A plan drawn into a render target
    /// ([`FramePlan::target`]) ignores `viewport`: `prepare` draws it into the whole texture
    /// itself (then regenerates the target layer's mip levels, if its array has any) and
    /// submits it, holds nothing of it afterwards, and its handle draws nothing in the host's
    /// passes.
    ///
    /// Returns the handle [`Renderer::render_prepared`] draws the plan with; [`Renderer::render`]
    /// draws the last plan prepared.
    ///
    /// # Errors
    /// [`Error::Plan`] when the validator refuses the plan (out of order, or one that could not
    /// run): nothing was applied. [`Error::Device`] when wgpu refuses an operation of a valid
    /// plan (out of memory, a limit the budget did not know): part of the plan may be applied,
    /// so the renderer drops every array it holds and accepts only a rebuild plan next
    /// ([`Batcher::restore`](layerbatch_core::Batcher::restore)). Either way there is no
    /// handle and `render` draws nothing until the next successful `prepare`; plans prepared
    /// earlier in the frame can still be drawn with their handles.
    ///
    /// On WebGPU, an error the device reported late, for an earlier `prepare` (or `new`), is
    /// returned here before anything else is done: this plan is not applied, the renderer
    /// holds no array and expects a rebuild plan, and the current frame's plans draw nothing
    /// (see *Errors instead of panics* in [`Renderer`]; [`Renderer::device_errors`] waits for
    /// those errors instead).
    pub fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        plan: &FramePlan,
        viewport: impl Into<Viewport>,
    ) -> Result<Prepared, Error> {
        // Automatic frames: a `prepare` after a render starts the next frame (the host
        // submitted before preparing again).
        if self.rendered.swap(false, Ordering::Relaxed) && !self.explicit_frames {
            self.start_frame();
        }
        self.latest = None;
        // An error the device reported after an earlier call returned (WebGPU): that call's
        // plan may be half applied, so this one is refused and a rebuild plan expected.
        if let Some(e) = self.late.take() {
            self.fail_late();
            return Err(e);
        }
        if plan.states.len() > self.max_states {
            return Err(Error::TooManyStates { states: plan.states.len(), max: self.max_states });
        }
        self.validator.check(plan)?;

        let mut counters = DeviceCounters::one_frame();
        // Into a render target: its whole texture, whatever the host's viewport says.
        let vp = plan.viewport(viewport.into());
        let mut own = None;
        // Where the frame's instance space ends before this plan: a plan drawn into a render
        // target gives its space back once `prepare` has submitted its draws.
        let space = (self.cursor, self.frame_bytes);
        let result = match self.execute(device, queue, &mut own, plan, vp, &mut counters) {
            Ok(plan_draws) => self.finish_plan(device, queue, own, plan.target, plan_draws, space),
            Err(e) => Err(e),
        };
        match result {
            Ok(prepared) => {
                self.latest = Some(prepared);
                // A host drawing only into render targets may never end its frame.
                self.frame_plans = self.frame_plans.saturating_add(1);
                self.frame_counters.accumulate(&counters);
                self.stats.record(plan, counters);
                // Core's counters are the last plan's; the device's, the frame's plans summed.
                self.stats.device_frame = self.frame_counters;
                if prepared.held.is_some() && self.plans.len() == PLANS_WARNING && !self.explicit_frames {
                    log::warn!(
                        "layerbatch-wgpu: {PLANS_WARNING} plans prepared in one frame without a render: \
                         their instance space is held until a render (or Renderer::begin_frame) ends the frame"
                    );
                }
                Ok(prepared)
            }
            Err(e) => {
                // Part of the plan may have been applied: hold nothing, so that the next plan,
                // a rebuild, starts from an empty device (the validator now expects one).
                self.forget_arrays();
                self.validator.reset();
                Err(e)
            }
        }
    }

    /// Waits until the device has answered for every operation of [`Renderer::new`] and of
    /// the plans prepared so far, and returns the first error it reported, as `prepare` would
    /// have (the renderer then holds no array and expects a rebuild plan, see
    /// [`Renderer::prepare`]).
    ///
    /// Natively, and on wgpu's WebGL backend, the device answers before each call returns, so
    /// every error has been returned already and this is `Ok(())` at once. On WebGPU the
    /// browser answers error scopes asynchronously: an error caused by `prepare` (or `new`) is
    /// returned by the next `prepare`, or by this, whichever comes first. See *Errors instead
    /// of panics* in [`Renderer`].
    ///
    /// # Errors
    /// The first [`Error::Device`], [`Error::Shader`] or [`Error::Pipeline`] the device reported
    /// late, in the order of the operations.
    pub async fn device_errors(&mut self) -> Result<(), Error> {
        match self.late.settled().await {
            None => Ok(()),
            Some(e) => {
                self.fail_late();
                Err(e)
            }
        }
    }

    /// After an error the device reported late: hold nothing (a rebuild plan is next), and
    /// draw none of the current frame's plans, which may use what failed (their handles draw
    /// nothing; their space stays reserved until the frame ends).
    fn fail_late(&mut self) {
        self.forget_arrays();
        self.validator.reset();
        self.latest = None;
        for p in &mut self.plans {
            p.draws.clear();
        }
    }

    /// Records the last plan prepared into the host's pass: [`Renderer::render_prepared`] with
    /// the handle of the last successful [`Renderer::prepare`]. Draws nothing before the first
    /// successful `prepare`, after a failed one, or after [`Renderer::begin_frame`].
    pub fn render(&self, pass: &mut wgpu::RenderPass<'_>) {
        self.rendered.store(true, Ordering::Relaxed);
        if let Some(plan) = self.latest.and_then(|prepared| self.held_plan(prepared)) {
            self.draw_plan(pass, plan);
        }
    }

    /// Records the plan of `prepared` into the host's pass, in order, per segment: its scissor
    /// rectangle, its draw state's globals (viewport and transform, at a dynamic offset), its
    /// instance block's vertex buffer range, the pipeline of its tier and blend mode and the
    /// slot bind group (each only when it changes: a bind group is set when a segment rebinds
    /// a slot or changes tier) and one indexed draw (the renderer's quad index buffer is set
    /// once per call). Any plan of the current frame may be drawn, in any pass, any number of
    /// times. Like any recorder into a shared pass, it leaves the pipeline, bind groups,
    /// vertex and index buffers it set: a host drawing after it sets its own again.
    ///
    /// **Viewport.** With a [`Viewport::rect`] that is not the whole target, the pass's
    /// viewport is set to its visible part ([`Viewport::visible_px`]), which bounds the quads
    /// by itself: no scissor is set for it. With the whole target it is left as the host set it.
    ///
    /// **Clips.** A segment's clip rectangle is in the quads' pixels and becomes the pass's
    /// scissor rectangle, moved into the target and clamped to the visible viewport and the
    /// host's clip ([`Viewport::scissor`]: core's rule). A clip that leaves nothing skips the
    /// segment's draw. Once a segment has set a scissor, a segment without a clip sets the
    /// host's clip (or the whole target) again, and so does the end of the call: no clip leaks
    /// into a later plan. A plan without clips and without a host clip never sets a scissor
    /// (nor changes one the host set), whatever its viewport. The `target_size_px` given to
    /// `prepare` must be the attachment's size whenever scissors are set.
    ///
    /// A handle of an earlier frame is stale (its space may hold another plan now): nothing is
    /// drawn, and a warning is logged.
    pub fn render_prepared(&self, pass: &mut wgpu::RenderPass<'_>, prepared: Prepared) {
        self.rendered.store(true, Ordering::Relaxed);
        if let Some(plan) = self.held_plan(prepared) {
            self.draw_plan(pass, plan);
        }
    }

    /// Ends a plan's `prepare` after its ops, instances and globals: a plan for the host's
    /// passes is held for them (its handle draws it until the frame ends); a plan into a render
    /// target is drawn there, in a pass of the renderer's own encoder (cleared first if the
    /// plan asks), its mip levels regenerated. Then that encoder is submitted if anything was
    /// recorded into it: the plan's GPU copies, staged writes and render-target draws run
    /// whether or not the host ever submits its own encoder.
    ///
    /// A render-target plan is then complete, render or no render: it holds nothing. Its
    /// instance space (`space`: where the frame's space ended before it) and its globals
    /// uniform go to the next plan, whose queue writes run at a later submit than this one,
    /// and its handle draws nothing in the host's passes.
    fn finish_plan(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        mut own: Option<wgpu::CommandEncoder>,
        target: Option<PlanTarget>,
        plan: PlanDraws,
        space: ((usize, u64), u64),
    ) -> Result<Prepared, Error> {
        let held = match target {
            Some(t) => {
                let drawn = self.draw_into_target(device, &mut own, t, &plan);
                let mut draws = plan.draws;
                draws.clear();
                self.spare_draws.push(draws);
                (self.cursor, self.frame_bytes) = space;
                drawn?;
                None
            }
            None => {
                self.plans.push(plan);
                Some(self.plans.len() as u32 - 1)
            }
        };
        if let Some(encoder) = own {
            let submitted = checked(
                device,
                &self.late,
                || "submitting the plan's copies, staged writes and render-target draws".to_string(),
                || {
                    queue.submit([encoder.finish()]);
                },
            );
            if let Err(e) = submitted {
                if held.is_some() {
                    self.plans.pop();
                }
                return Err(e);
            }
        }
        Ok(Prepared { frame: self.frame, index: self.frame_plans, held })
    }

    /// Draws a render-target plan into its target, then regenerates the target layer's mip
    /// levels (if its array has any) from the level 0 just drawn.
    fn draw_into_target(
        &self,
        device: &wgpu::Device,
        own: &mut Option<wgpu::CommandEncoder>,
        t: PlanTarget,
        plan: &PlanDraws,
    ) -> Result<(), Error> {
        let view = self.target_view(t.array, t.layer).ok_or_else(|| out_of_step(t.array))?;
        let array = self.array(t.array)?;
        let load = match t.clear_rgba {
            Some([r, g, b, a]) => {
                wgpu::LoadOp::Clear(wgpu::Color { r: f64::from(r), g: f64::from(g), b: f64::from(b), a: f64::from(a) })
            }
            None => wgpu::LoadOp::Load,
        };
        let encoder = own_encoder(device, own);
        checked(
            device,
            &self.late,
            || format!("drawing into render target array {:?}, layer {}", t.array, t.layer),
            || {
                let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                    label: Some("layerbatch render target"),
                    color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                        view: &view,
                        depth_slice: None,
                        resolve_target: None,
                        ops: wgpu::Operations { load, store: wgpu::StoreOp::Store },
                    })],
                    depth_stencil_attachment: None,
                    timestamp_writes: None,
                    occlusion_query_set: None,
                    multiview_mask: None,
                });
                self.draw_plan(&mut pass, plan);
                drop(pass);
                self.mips.regenerate(device, encoder, &array.texture, array.desc.format, t.layer);
            },
        )
    }

    /// The plan of a handle, if it is held for the host's passes: `None` for a plan drawn into
    /// a render target (drawn by `prepare` itself), and for a stale handle (with a warning).
    fn held_plan(&self, prepared: Prepared) -> Option<&PlanDraws> {
        let held = prepared.held?;
        match self.plans.get(held as usize) {
            Some(plan) if prepared.frame == self.frame => Some(plan),
            _ => {
                log::warn!(
                    "layerbatch-wgpu: render_prepared with a stale handle (plan {} of frame {}, now frame {}): \
                     nothing drawn",
                    prepared.index,
                    prepared.frame,
                    self.frame
                );
                None
            }
        }
    }

    /// Records a plan's draws into `pass`: the host's, or the renderer's own pass on the
    /// plan's render target (with that format's pipelines).
    fn draw_plan(&self, pass: &mut wgpu::RenderPass<'_>, plan: &PlanDraws) {
        if plan.draws.is_empty() {
            return;
        }
        let Some(viewport) = self.viewports.get(plan.viewport) else {
            return;
        };
        let pipelines = match plan.target_format {
            Some(format) => match self.target_pipelines.get(&format) {
                Some(p) => p,
                None => return,
            },
            None => &self.pipelines,
        };
        let Some([vx, vy, vw, vh]) = plan.vp.visible_px() else { return };
        if !plan.vp.is_full() {
            // The quads' area, as much of it as the target shows (`Viewport::transform` moved
            // their origin into it).
            pass.set_viewport(vx as f32, vy as f32, vw as f32, vh as f32, 0.0, 1.0);
        }
        // The quads' corners, for every draw of the plan (block-relative: each block's vertex
        // buffer range starts at its first quad).
        if let Some(indices) = &self.indices {
            pass.set_index_buffer(indices.slice(..), wgpu::IndexFormat::Uint32);
        }
        let (mut sets, mut draws) = (0, 0);
        let (mut pipeline, mut group, mut block) = (usize::MAX, u64::MAX, (usize::MAX, u64::MAX));
        let mut globals = None;
        // The scissor this call set, if any: segments without a clip get the host's scissor
        // (or the whole target) back, and so does the pass at the end. A plan without clips
        // and without a host clip never sets one.
        let full = plan.vp.restored_scissor_px();
        let mut scissor: Option<[u32; 4]> = None;
        for d in &plan.draws {
            let want = match d.clip {
                Clip::Empty => continue,
                Clip::Rect(r) => Some(r),
                Clip::Full => scissor.map(|_| full),
            };
            if let Some(r) = want {
                if scissor != Some(r) {
                    pass.set_scissor_rect(r[0], r[1], r[2], r[3]);
                    scissor = Some(r);
                }
            }
            if globals != Some(d.globals_offset) {
                pass.set_bind_group(GROUP_GLOBALS, &viewport.group, &[d.globals_offset]);
                globals = Some(d.globals_offset);
                sets += 1;
            }
            if (d.block.index, d.block.offset) != block {
                pass.set_vertex_buffer(0, d.block.buffer.slice(d.block.offset..d.block.offset + d.block.bytes));
                block = (d.block.index, d.block.offset);
            }
            if d.pipeline != pipeline {
                pass.set_pipeline(&pipelines[d.pipeline]);
                pipeline = d.pipeline;
            }
            if d.serial != group {
                pass.set_bind_group(GROUP_SLOTS, &d.group, &[]);
                group = d.serial;
                sets += 1;
            }
            if self.indices.is_some() {
                pass.draw_indexed(d.instances.start * Instance::INDICES..d.instances.end * Instance::INDICES, 0, 0..1);
            } else {
                pass.draw(0..4, d.instances.clone());
            }
            draws += 1;
        }
        if scissor.is_some_and(|r| r != full) {
            pass.set_scissor_rect(full[0], full[1], full[2], full[3]);
        }
        self.render_draws.fetch_add(draws, Ordering::Relaxed);
        self.render_group_sets.fetch_add(sets, Ordering::Relaxed);
    }

    fn execute(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        own: &mut Option<wgpu::CommandEncoder>,
        plan: &FramePlan,
        vp: Viewport,
        frame: &mut DeviceCounters,
    ) -> Result<PlanDraws, Error> {
        self.frame_index += 1;
        if plan.rebuild {
            frame.arrays_destroyed += self.arrays.len() as u64;
            self.forget_arrays();
        }
        self.apply_ops(device, queue, own, plan, frame)?;
        let blocks = self.upload_instances(device, queue, plan, frame)?;
        let draws = self.resolve_segments(device, plan, &blocks, &vp, frame)?;
        // The plan's place in the frame picks its globals uniform: no two plans of a frame
        // (of a submit) write the same one.
        let slot = self.plans.len();
        let entries = plan.states.len().max(1);
        let stride = self.globals_stride;
        if self.viewports.get(slot).is_none_or(|v| v.entries < entries) {
            let room = if slot == self.viewports.len() { entries } else { entries.next_power_of_two() };
            let viewport = checked(
                device,
                &self.late,
                || format!("creating the globals uniform of plan {slot} of a frame ({room} draw states)"),
                || create_viewport(device, &self.globals_layout, stride, room),
            )?;
            match self.viewports.get_mut(slot) {
                Some(v) => *v = viewport,
                None => self.viewports.push(viewport),
            }
            frame.bind_group_creates += 1;
        }
        // Every entry: the visible viewport's size, and the state's transform moved to it.
        let size_px = vp.visible_px().map_or([1, 1], |[_, _, w, h]| [w, h]);
        let bytes = &mut self.globals_scratch;
        bytes.clear();
        bytes.resize(entries * stride as usize, 0);
        for (i, chunk) in bytes.chunks_exact_mut(stride as usize).enumerate() {
            let state = plan.states.get(i).copied().unwrap_or_default();
            let v = globals_entry(size_px, vp.transform(state.transform));
            chunk[..GLOBALS_BYTES as usize].copy_from_slice(bytemuck::cast_slice(&v));
        }
        let viewport = &mut self.viewports[slot];
        if viewport.written != *bytes {
            checked(
                device,
                &self.late,
                || "writing the viewport and draw states".to_string(),
                || queue.write_buffer(&viewport.buffer, 0, bytes),
            )?;
            viewport.written.clone_from(bytes);
        }
        if self.groups.len() > MAX_CACHED_GROUPS {
            let frame = self.frame_index;
            self.groups.retain(|_, g| g.last_used == frame);
        }
        let target_format = match plan.target {
            Some(t) => {
                let desc = self.array(t.array)?.desc;
                // `prepare` regenerates the target layer's levels above 0 after the draws.
                frame.mip_levels_regenerated += u64::from(desc.mip_levels.saturating_sub(1));
                Some(wgpu_format(desc.format))
            }
            None => None,
        };
        Ok(PlanDraws { viewport: slot, vp, target_format, draws })
    }

    /// Drops every array, cached bind group and slot binding: a rebuild plan, or a device
    /// error after which only a rebuild plan is accepted.
    fn forget_arrays(&mut self) {
        self.arrays.clear();
        self.groups.clear();
        self.slots.iter_mut().for_each(|s| *s = None);
    }

    fn apply_ops(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        own: &mut Option<wgpu::CommandEncoder>,
        plan: &FramePlan,
        frame: &mut DeviceCounters,
    ) -> Result<(), Error> {
        // Writes after the first GPU copy go through staging buffers recorded into `encoder`,
        // so that they land after the copy (queue writes run before every command buffer).
        let mut staging = Staging::new(self.max_buffer_size, self.late.clone());
        let mut after_copy = false;
        for op in &plan.ops {
            if let ResourceOp::Array(a) = op {
                if a.is_gpu_copy() {
                    // Staged writes before this copy (to its source, say) must precede it.
                    staging.flush(device, own, plan)?;
                    after_copy = true;
                }
            }
            match op {
                ResourceOp::Array(ArrayOp::Create { array, desc }) => {
                    self.create_array(device, *array, desc, frame)?;
                    frame.arrays_created += 1;
                }
                ResourceOp::Array(
                    ArrayOp::Grow { from, to, desc, copy_layers } | ArrayOp::Shrink { from, to, desc, copy_layers },
                ) => {
                    self.create_array(device, *to, desc, frame)?;
                    let old = self.arrays.remove(from).ok_or_else(|| out_of_step(*from))?;
                    let new = self.array(*to)?;
                    if *copy_layers > 0 {
                        // Each layer as the old array's width x height, every level, to the
                        // origin: texel coordinates stay valid in a larger layer. One layer
                        // per copy: see `transfer::copy_layers`.
                        let levels = old.desc.mip_levels.min(desc.mip_levels);
                        let encoder = own_encoder(device, own);
                        checked(
                            device,
                            &self.late,
                            || format!("copying {copy_layers} layers of array {from:?} into {to:?}"),
                            || {
                                let size = [old.desc.width_px, old.desc.height_px];
                                transfer::copy_layers(encoder, &old.texture, size, &new.texture, levels, *copy_layers);
                            },
                        )?;
                    }
                    self.release(*from);
                    frame.arrays_created += 1;
                    frame.arrays_destroyed += 1;
                    frame.layers_copied += u64::from(*copy_layers);
                }
                ResourceOp::Array(ArrayOp::CopyRect { from, from_layer, from_xy, to, to_layer, to_xy, size }) => {
                    let (src, dst) = (self.array(*from)?, self.array(*to)?);
                    let encoder = own_encoder(device, own);
                    checked(
                        device,
                        &self.late,
                        || {
                            format!(
                                "copying a rectangle from layer {from_layer} of {from:?} to layer {to_layer} of {to:?}"
                            )
                        },
                        || {
                            encoder.copy_texture_to_texture(
                                copy_info(&src.texture, 0, [from_xy[0], from_xy[1], *from_layer]),
                                copy_info(&dst.texture, 0, [to_xy[0], to_xy[1], *to_layer]),
                                wgpu::Extent3d { width: size[0], height: size[1], depth_or_array_layers: 1 },
                            );
                        },
                    )?;
                    // Counted as one layer copied, as core's mock device counts it.
                    frame.layers_copied += 1;
                }
                ResourceOp::Array(ArrayOp::Destroy { array }) => {
                    self.arrays.remove(array).ok_or_else(|| out_of_step(*array))?;
                    self.release(*array);
                    frame.arrays_destroyed += 1;
                }
                ResourceOp::WriteLayer { array, layer, bytes, .. } => {
                    let a = self.array(*array)?;
                    let bytes_per_pixel = a.desc.format.bytes_per_pixel();
                    for level in op.levels(bytes_per_pixel) {
                        if after_copy {
                            staging.push(device, own, plan, &a.texture, *layer, level)?;
                        } else {
                            let data = upload(plan, &level.bytes)?;
                            let dst = copy_info(&a.texture, level.level, [level.x_px, level.y_px, *layer]);
                            let size = wgpu::Extent3d {
                                width: level.width_px,
                                height: level.height_px,
                                depth_or_array_layers: 1,
                            };
                            let layout = wgpu::TexelCopyBufferLayout {
                                offset: 0,
                                bytes_per_row: Some(level.row_bytes),
                                rows_per_image: Some(level.height_px),
                            };
                            checked(
                                device,
                                &self.late,
                                || format!("writing level {} of layer {layer} of array {array:?}", level.level),
                                || queue.write_texture(dst, data, layout, size),
                            )?;
                        }
                    }
                    frame.texture_bytes_written += bytes.len() as u64;
                }
            }
        }
        staging.flush(device, own, plan)
    }

    /// Forgets a destroyed (or grown- or shrunk-from) array: its cached bind groups and the
    /// slots holding it, as the validator does.
    fn release(&mut self, array: ArrayId) {
        self.groups.retain(|(_, ids), _| !ids.contains(&array.0));
        for s in self.slots.iter_mut().filter(|s| **s == Some(array)) {
            *s = None;
        }
    }

    fn array(&self, id: ArrayId) -> Result<&Array, Error> {
        self.arrays.get(&id).ok_or_else(|| out_of_step(id))
    }

    fn resolve_segments(
        &mut self,
        device: &wgpu::Device,
        plan: &FramePlan,
        blocks: &[Block],
        vp: &Viewport,
        frame: &mut DeviceCounters,
    ) -> Result<Vec<Draw>, Error> {
        // Drawing into a render target: a slot still holding it (from an earlier plan that
        // sampled it) gets the placeholder instead, so the target is never bound while it is
        // drawn into (no segment samples it: the validator checked).
        let exclude = plan.target.map(|t| t.array);
        let capacity = plan.instance_capacity.max(1);
        let mut draws = self.spare_draws.pop().unwrap_or_default();
        draws.reserve(plan.segments.len());
        for seg in &plan.segments {
            for b in plan.binds(seg) {
                if let Some(slot) = self.slots.get_mut(b.slot as usize) {
                    *slot = Some(b.array);
                }
            }
            let tier_index = self.tiers.iter().position(|&t| t == seg.tier).ok_or_else(|| Error::Device {
                op: format!("drawing with slot tier {}", seg.tier),
                message: "the renderer has no pipeline for it (renderer and validator out of step)".to_string(),
            })?;
            // The group binds what the slots hold, not only what the segment samples: a later
            // segment without binds keeps it, and may sample a slot this one does not.
            let mut key: GroupKey = (seg.tier, [NO_ARRAY; MAX_SLOTS_PER_DRAW as usize]);
            for (k, held) in key.1.iter_mut().zip(self.slots.iter().take(seg.tier as usize)) {
                if let Some(a) = held.filter(|a| Some(*a) != exclude) {
                    *k = a.0;
                }
            }
            if !self.groups.contains_key(&key) {
                let group = self.create_group(device, tier_index, seg.tier, exclude)?;
                self.next_serial += 1;
                self.groups.insert(key, CachedGroup { group, serial: self.next_serial, last_used: 0 });
                frame.bind_group_creates += 1;
            }
            let Some(cached) = self.groups.get_mut(&key) else { continue };
            cached.last_used = self.frame_index;
            let block = seg.instances.start / capacity;
            let base = block * capacity;
            let placed = blocks.get(block as usize).ok_or_else(|| Error::Device {
                op: format!("drawing instances {:?}", seg.instances),
                message: format!(
                    "they lie outside the plan's {} instances (renderer and validator out of step)",
                    plan.instances.len()
                ),
            })?;
            let state = plan.state(seg);
            // States past the plan's own (a hand-made plan without any) use entry 0, the default.
            let entry = if (seg.state as usize) < plan.states.len() { u64::from(seg.state) } else { 0 };
            draws.push(Draw {
                pipeline: tier_index * BLENDS + state.blend.index(),
                globals_offset: (entry * self.globals_stride) as u32,
                clip: vp.scissor(state.clip_px),
                group: cached.group.clone(),
                serial: cached.serial,
                block: placed.clone(),
                instances: seg.instances.start - base..seg.instances.end - base,
            });
        }
        Ok(draws)
    }

    /// Uploads the instances, one block of `instance_capacity` at a time, each into space of
    /// its own in the pool (see [`Renderer::place`]), and returns where each block went.
    fn upload_instances(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        plan: &FramePlan,
        frame: &mut DeviceCounters,
    ) -> Result<Vec<Block>, Error> {
        let capacity = u64::from(plan.instance_capacity.max(1));
        let blocks = (plan.instances.len() as u64).div_ceil(capacity);
        let mut placed = Vec::with_capacity(blocks as usize);
        let mut vertices = std::mem::take(&mut self.vertices);
        let indexed = self.indices.is_some();
        let result = (0..blocks).try_for_each(|k| {
            let data: &[u8] = if indexed {
                expand_quads(plan.block(k as u32), &mut vertices);
                bytemuck::cast_slice(&vertices)
            } else {
                bytemuck::cast_slice(plan.block(k as u32))
            };
            let bytes = data.len() as u64;
            let block = self.place(device, bytes, capacity)?;
            checked(
                device,
                &self.late,
                || format!("writing instance block {k} ({bytes} bytes at {} of buffer {})", block.offset, block.index),
                || queue.write_buffer(&block.buffer, block.offset, data),
            )?;
            frame.instance_bytes_written += bytes;
            placed.push(block);
            Ok(())
        });
        self.vertices = vertices;
        result.map(|()| placed)
    }

    /// Room for a block of `bytes` (at most `capacity` instances) in the pool, after every
    /// block placed earlier in the frame: the space of the frame's plans never overlaps, so
    /// their queue writes, which all run at the next submit, never overwrite each other.
    ///
    /// The cursor walks the pool's buffers in order; a buffer without room left is skipped.
    /// A buffer the frame has not used yet is replaced when it is too small for the block (or,
    /// the first one, for the largest frame so far), with one of a power of two instances, at
    /// least [`MIN_INSTANCES`] and at most `capacity`; past the last buffer a new one is
    /// added. Buffers are never replaced once used in the frame, so every block placed keeps
    /// its buffer. The pool stops growing once it holds the largest frame: at most one
    /// buffer per block of the largest frame, each at most `capacity` instances.
    fn place(&mut self, device: &wgpu::Device, bytes: u64, capacity: u64) -> Result<Block, Error> {
        let stride = u64::from(Instance::quad_bytes(self.indexed_quads()));
        let size_for =
            |bytes: u64| (bytes.div_ceil(stride)).next_power_of_two().max(MIN_INSTANCES).min(capacity) * stride;
        loop {
            let (index, offset) = self.cursor;
            if offset == 0 {
                let want = if index == 0 { bytes.max(self.peak_frame_bytes) } else { bytes };
                let held = self.instance_buffers.get(index).map(wgpu::Buffer::size);
                if held.is_none_or(|size| size < bytes || size < size_for(want)) {
                    let size = size_for(want).max(bytes);
                    let buffer = checked(
                        device,
                        &self.late,
                        || format!("creating instance vertex buffer {index} ({size} bytes)"),
                        || {
                            device.create_buffer(&wgpu::BufferDescriptor {
                                label: Some("layerbatch instances"),
                                size,
                                usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
                                mapped_at_creation: false,
                            })
                        },
                    )?;
                    match self.instance_buffers.get_mut(index) {
                        Some(b) => *b = buffer,
                        None => self.instance_buffers.push(buffer),
                    }
                }
            }
            let buffer = &self.instance_buffers[index];
            if buffer.size() - offset >= bytes {
                self.cursor = (index, offset + bytes);
                self.frame_bytes += bytes;
                return Ok(Block { buffer: buffer.clone(), index, offset, bytes });
            }
            self.cursor = (index + 1, 0);
        }
    }

    /// The bind group of tier `pipeline`'s slots as they are held now: per slot, the array's
    /// view and the sampler of its filter and wrap (the placeholder and any sampler for an
    /// empty slot).
    fn create_group(
        &self,
        device: &wgpu::Device,
        pipeline: usize,
        tier: u32,
        exclude: Option<ArrayId>,
    ) -> Result<wgpu::BindGroup, Error> {
        let held = &self.slots[..(tier as usize).min(self.slots.len())];
        let mut bound = Vec::with_capacity(tier as usize);
        for a in held {
            bound.push(match a.filter(|a| Some(*a) != exclude) {
                Some(a) => {
                    let a = self.array(a)?;
                    (&a.view, &self.samplers[sampler_index(a.desc.filter, a.desc.wrap, a.desc.mip_levels > 1)])
                }
                None => (&self.placeholder, &self.samplers[0]),
            });
        }
        checked(
            device,
            &self.late,
            || format!("creating a bind group for slot tier {tier}"),
            || {
                let mut entries = Vec::with_capacity(2 * bound.len());
                for (i, (view, sampler)) in bound.iter().enumerate() {
                    let i = i as u32;
                    entries.push(wgpu::BindGroupEntry {
                        binding: shader::texture_binding(i),
                        resource: wgpu::BindingResource::TextureView(view),
                    });
                    entries.push(wgpu::BindGroupEntry {
                        binding: shader::sampler_binding(i),
                        resource: wgpu::BindingResource::Sampler(sampler),
                    });
                }
                device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("layerbatch slots"),
                    layout: &self.slot_layouts[pipeline],
                    entries: &entries,
                })
            },
        )
    }

    fn create_array(
        &mut self,
        device: &wgpu::Device,
        id: ArrayId,
        desc: &ArrayDesc,
        frame: &mut DeviceCounters,
    ) -> Result<(), Error> {
        let format = wgpu_format(desc.format);
        let mut usage =
            wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST | wgpu::TextureUsages::COPY_SRC;
        if desc.render_target {
            usage |= wgpu::TextureUsages::RENDER_ATTACHMENT;
            self.ensure_target_pipelines(device, format, frame)?;
        }
        let what = || {
            format!(
                "creating array {id:?} ({}x{} px, {} layers, {} levels, {} bytes)",
                desc.width_px,
                desc.height_px,
                desc.layers,
                desc.mip_levels,
                desc.bytes()
            )
        };
        // The texture on its own first: a view of a texture that failed would report only
        // that the texture is invalid, hiding why.
        let texture = checked(device, &self.late, what, || {
            device.create_texture(&wgpu::TextureDescriptor {
                label: Some("layerbatch array"),
                size: wgpu::Extent3d {
                    width: desc.width_px,
                    height: desc.height_px,
                    depth_or_array_layers: desc.layers,
                },
                mip_level_count: desc.mip_levels,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats: &[],
            })
        })?;
        let view = checked(
            device,
            &self.late,
            || format!("creating the view of array {id:?}"),
            || {
                texture.create_view(&wgpu::TextureViewDescriptor {
                    label: Some("layerbatch array"),
                    dimension: Some(wgpu::TextureViewDimension::D2Array),
                    ..Default::default()
                })
            },
        )?;
        self.arrays.insert(id, Array { texture, view, desc: *desc });
        Ok(())
    }

    /// The pipelines drawing into render targets of `format` (one sample, no depth), made with
    /// the first render-target array of the format: every tier and blend mode, counted in
    /// `pipeline_compiles`. The shader modules are the ones compiled at creation.
    fn ensure_target_pipelines(
        &mut self,
        device: &wgpu::Device,
        format: wgpu::TextureFormat,
        frame: &mut DeviceCounters,
    ) -> Result<(), Error> {
        if self.target_pipelines.contains_key(&format) {
            return Ok(());
        }
        let plain = RendererOptions::default();
        let mut list = Vec::with_capacity(self.pipelines.len());
        for (&tier, (module, layout)) in self.tiers.iter().zip(&self.tier_modules) {
            for mode in BlendMode::ALL {
                let (pipeline, verdict) = scoped(device, || {
                    let kind = PipelineKind { tier, mode, indexed: self.indices.is_some() };
                    create_pipeline(device, layout, module, format, &plain, kind)
                });
                let what =
                    || What::Pipeline { tier, detail: format!("{mode:?} blending into a {format:?} render target") };
                if let Some(e) = self.late.settle(verdict, what) {
                    return Err(e);
                }
                list.push(pipeline);
            }
        }
        frame.pipeline_compiles += list.len() as u64;
        self.target_pipelines.insert(format, list);
        Ok(())
    }

    /// A view of `layer` of render-target array `array` (level 0), to draw into in a pass of
    /// the host's own, e.g. to add its own drawing to a target layerbatch rendered. The array
    /// and layer of a [`Usage::RenderTarget`](layerbatch_core::Usage::RenderTarget) texture
    /// come from [`Batcher::placement`](layerbatch_core::Batcher::placement). `None` when the
    /// renderer holds no such render-target array or layer.
    pub fn target_view(&self, array: ArrayId, layer: u32) -> Option<wgpu::TextureView> {
        let a = self.arrays.get(&array).filter(|a| a.desc.render_target && layer < a.desc.layers)?;
        Some(a.texture.create_view(&wgpu::TextureViewDescriptor {
            label: Some("layerbatch render target"),
            dimension: Some(wgpu::TextureViewDimension::D2),
            base_array_layer: layer,
            array_layer_count: Some(1),
            base_mip_level: 0,
            mip_level_count: Some(1),
            ..Default::default()
        }))
    }
}

/// The renderer does not hold an array the validator says exists: a bug, reported instead of
/// a panic.
fn out_of_step(array: ArrayId) -> Error {
    Error::Device {
        op: format!("looking up array {array:?}"),
        message: "the renderer does not hold it (renderer and validator out of step)".to_string(),
    }
}

fn slot_layout(device: &wgpu::Device, tier: u32) -> wgpu::BindGroupLayout {
    let mut entries = Vec::with_capacity(2 * tier as usize);
    for i in 0..tier {
        entries.push(wgpu::BindGroupLayoutEntry {
            binding: shader::texture_binding(i),
            // The vertex stage asks the layer's size; the fragment stage samples.
            visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: true },
                view_dimension: wgpu::TextureViewDimension::D2Array,
                multisampled: false,
            },
            count: None,
        });
        entries.push(wgpu::BindGroupLayoutEntry {
            binding: shader::sampler_binding(i),
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
            count: None,
        });
    }
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("layerbatch slots"),
        entries: &entries,
    })
}

/// The (filter, wrap, mipmapped) of each sampler, in [`sampler_index`] order.
const SAMPLER_KINDS: [(Filter, Wrap, bool); 12] = {
    const FILTERS: [Filter; 2] = [Filter::Nearest, Filter::Linear];
    const WRAPS: [Wrap; 3] = [Wrap::ClampToEdge, Wrap::Repeat, Wrap::MirroredRepeat];
    let mut kinds = [(Filter::Nearest, Wrap::ClampToEdge, false); 12];
    let mut i = 0;
    while i < 12 {
        kinds[i] = (FILTERS[(i / 3) % 2], WRAPS[i % 3], i >= 6);
        i += 1;
    }
    kinds
};

/// Index into [`SAMPLER_KINDS`] (and the renderer's samplers) of an array's sampler.
const fn sampler_index(filter: Filter, wrap: Wrap, mipmapped: bool) -> usize {
    let f = match filter {
        Filter::Nearest => 0,
        Filter::Linear => 3,
    };
    let w = match wrap {
        Wrap::ClampToEdge => 0,
        Wrap::Repeat => 1,
        Wrap::MirroredRepeat => 2,
    };
    if mipmapped {
        6 + f + w
    } else {
        f + w
    }
}

/// The sampler of arrays with `filter` and `wrap`, as GL samples such a texture: with mip
/// levels, `Linear` is bilinear within a level and linear between levels (trilinear) and
/// `Nearest` the nearest texel of the nearest level; without, the mipmap filter is `Nearest`
/// (GL's `LINEAR` / `NEAREST` minification). The pixels are the same either way with one
/// level, but a software rasterizer pays for a linear mipmap filter whether or not there are
/// levels to blend: in Chromium's SwiftShader the stress scene (64 textures, 20,000 sprites)
/// took 759 ms a frame on WebGL2 and 770 ms on WebGPU with it, 524 and 536 ms without
/// (layerbatch-gl, which never had it: 509 and 504 ms in the same two runs).
fn create_sampler(device: &wgpu::Device, filter: Filter, wrap: Wrap, mipmapped: bool) -> wgpu::Sampler {
    let address = match wrap {
        Wrap::ClampToEdge => wgpu::AddressMode::ClampToEdge,
        Wrap::Repeat => wgpu::AddressMode::Repeat,
        Wrap::MirroredRepeat => wgpu::AddressMode::MirrorRepeat,
    };
    let (texel, mip) = match filter {
        Filter::Nearest => (wgpu::FilterMode::Nearest, wgpu::MipmapFilterMode::Nearest),
        Filter::Linear if mipmapped => (wgpu::FilterMode::Linear, wgpu::MipmapFilterMode::Linear),
        Filter::Linear => (wgpu::FilterMode::Linear, wgpu::MipmapFilterMode::Nearest),
    };
    device.create_sampler(&wgpu::SamplerDescriptor {
        label: Some("layerbatch sampler"),
        address_mode_u: address,
        address_mode_v: address,
        address_mode_w: wgpu::AddressMode::ClampToEdge,
        mag_filter: texel,
        min_filter: texel,
        mipmap_filter: mip,
        ..Default::default()
    })
}

/// The instance attributes, at the offsets core's [`Instance`] declares.
const INSTANCE_ATTRIBUTES: [wgpu::VertexAttribute; 7] = [
    attribute(0, wgpu::VertexFormat::Float32x2, Instance::OFFSET_ORIGIN),
    attribute(1, wgpu::VertexFormat::Float32x2, Instance::OFFSET_AXIS_X),
    attribute(2, wgpu::VertexFormat::Float32x2, Instance::OFFSET_AXIS_Y),
    attribute(3, wgpu::VertexFormat::Float32x4, Instance::OFFSET_UV_RECT),
    attribute(4, wgpu::VertexFormat::Float32x4, Instance::OFFSET_TEX_RECT),
    attribute(5, wgpu::VertexFormat::Unorm8x4, Instance::OFFSET_COLOR),
    attribute(6, wgpu::VertexFormat::Uint32, Instance::OFFSET_SLOT_FLAGS_LAYER),
];

const fn attribute(shader_location: u32, format: wgpu::VertexFormat, offset: u32) -> wgpu::VertexAttribute {
    wgpu::VertexAttribute { format, offset: offset as u64, shader_location }
}

/// What a pipeline is for, beyond the target and the host's options.
#[derive(Clone, Copy)]
struct PipelineKind {
    tier: u32,
    mode: BlendMode,
    /// Indexed quads (a triangle list of per-vertex instances), else instanced ones (a
    /// 4-vertex strip per instance).
    indexed: bool,
}

fn create_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    target: wgpu::TextureFormat,
    options: &RendererOptions,
    kind: PipelineKind,
) -> wgpu::RenderPipeline {
    let PipelineKind { tier, mode, indexed } = kind;
    let label = format!("layerbatch tier {tier}, {mode:?}");
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(&label),
        layout: Some(layout),
        vertex: wgpu::VertexState {
            module,
            entry_point: Some("vs_main"),
            compilation_options: Default::default(),
            buffers: &[Some(wgpu::VertexBufferLayout {
                array_stride: Instance::BYTES as u64,
                step_mode: if indexed { wgpu::VertexStepMode::Vertex } else { wgpu::VertexStepMode::Instance },
                attributes: &INSTANCE_ATTRIBUTES,
            })],
        },
        primitive: wgpu::PrimitiveState {
            topology: if indexed {
                wgpu::PrimitiveTopology::TriangleList
            } else {
                wgpu::PrimitiveTopology::TriangleStrip
            },
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
                // Core's factors for the mode, with an ADD equation (Over: premultiplied alpha).
                blend: Some(blend_state(mode)),
                write_mask: wgpu::ColorWrites::ALL,
            })],
        }),
        multiview_mask: None,
        cache: None,
    })
}

/// A globals uniform of `entries` entries `stride` bytes apart (each a 1 x 1 px viewport and
/// the identity until written) and its globals bind group, bound at a dynamic offset.
fn create_viewport(device: &wgpu::Device, layout: &wgpu::BindGroupLayout, stride: u64, entries: usize) -> Globals {
    let mut contents = vec![0u8; entries.max(1) * stride as usize];
    let v = globals_entry([1, 1], DrawState::IDENTITY);
    for chunk in contents.chunks_exact_mut(stride as usize) {
        chunk[..GLOBALS_BYTES as usize].copy_from_slice(bytemuck::cast_slice(&v));
    }
    let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("layerbatch globals"),
        contents: &contents,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
    });
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("layerbatch globals"),
        layout,
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: &buffer,
                offset: 0,
                size: wgpu::BufferSize::new(GLOBALS_BYTES),
            }),
        }],
    });
    Globals { buffer, group, entries: entries.max(1), written: Vec::new() }
}

/// One globals entry, as the shader's `Globals` reads it: the viewport size, then the
/// transform `[a, b, c, d]` and `[tx, ty]`.
fn globals_entry(viewport_px: [u32; 2], transform: [f32; 6]) -> [f32; 12] {
    let [a, b, c, d, tx, ty] = transform;
    [viewport_px[0].max(1) as f32, viewport_px[1].max(1) as f32, 0.0, 0.0, a, b, c, d, tx, ty, 0.0, 0.0]
}

/// wgpu's format for core's.
fn wgpu_format(format: Format) -> wgpu::TextureFormat {
    match format {
        Format::Rgba8Unorm => wgpu::TextureFormat::Rgba8Unorm,
        Format::Rgba8UnormSrgb => wgpu::TextureFormat::Rgba8UnormSrgb,
    }
}

/// wgpu's blend state for a mode: core's factors with an `ADD` equation.
fn blend_state(mode: BlendMode) -> wgpu::BlendState {
    let f = |factor: BlendFactor| match factor {
        BlendFactor::Zero => wgpu::BlendFactor::Zero,
        BlendFactor::One => wgpu::BlendFactor::One,
        BlendFactor::DstColor => wgpu::BlendFactor::Dst,
        BlendFactor::OneMinusSrcColor => wgpu::BlendFactor::OneMinusSrc,
        BlendFactor::OneMinusSrcAlpha => wgpu::BlendFactor::OneMinusSrcAlpha,
    };
    let [cs, cd, as_, ad] = mode.factors();
    wgpu::BlendState {
        color: wgpu::BlendComponent { src_factor: f(cs), dst_factor: f(cd), operation: wgpu::BlendOperation::Add },
        alpha: wgpu::BlendComponent { src_factor: f(as_), dst_factor: f(ad), operation: wgpu::BlendOperation::Add },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sampler_kind_sits_at_its_index() {
        for (i, &(filter, wrap, mipmapped)) in SAMPLER_KINDS.iter().enumerate() {
            assert_eq!(sampler_index(filter, wrap, mipmapped), i, "{filter:?} {wrap:?} mipmapped {mipmapped}");
        }
    }
}
