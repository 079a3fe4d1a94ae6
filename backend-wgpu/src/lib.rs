//! # layerbatch-wgpu
//!
//! The wgpu backend of layerbatch: a [`Renderer`] that executes core's
//! [`FramePlan`](layerbatch_core::FramePlan)s with the host's `wgpu::Device` and `wgpu::Queue`
//! and draws into the host's `wgpu::RenderPass`, embedded the way glyphon and egui-wgpu are. It
//! borrows the device and queue, never owns them, and never submits the host's work. What a
//! plan needs between `prepare` and `render` is held by the host, in a [`PreparedPlan`].
//!
//! Core decides everything (placement, slots, segments, growths, shrinks, rectangle copies,
//! binds); the renderer executes the plan and counts what it issued. Textures live in
//! rectangles of layers of `texture_2d_array`s; each draw binds one bind group of up to
//! `budget.slots` arrays, each with its sampler, and picks the array per quad with a `switch`
//! (no branch at tier 1). The shader modules (one per slot tier, and with declared effects a
//! second one with them, drawn only by the segments core marks `Segment::effects`) are
//! compiled in [`Renderer::new`], never later; the render pipelines are made from them per
//! [`PassKind`] (colour format, multisampling, depth attachment), one per tier, program, vertex
//! kind and blend mode: `new`'s kind at creation, any other kind with its first plan (see
//! [Pass kinds](#pass-kinds)).
//!
//! Each segment is drawn with its plan's [`DrawState`](layerbatch_core::plan::DrawState): the
//! pipeline of its [`BlendMode`](layerbatch_core::BlendMode) (core's factors, an `ADD`
//! equation; `Over` is premultiplied alpha), its clip rectangle as the pass's scissor
//! (clamped to the viewport; a clip that leaves nothing skips the draw, and a segment without
//! one gets the whole viewport back), and its 2x3 transform applied to the quad corners in the
//! vertex shader, from a per-plan uniform of one entry per state at a dynamic offset.
//!
//! ## The plan contract
//!
//! - **Validated first.** [`Renderer::prepare`] runs every plan through core's
//!   [`PlanValidator`](layerbatch_core::validate::PlanValidator), the same one every executor uses,
//!   before it touches the device. A plan that could not run, or one out of order (skipped or
//!   repeated), is refused whole with [`Error::Plan`], and the same bad plan gets the same
//!   [`PlanError`](layerbatch_core::PlanError) on every backend. The renderer checks nothing
//!   itself.
//! - **Executed by core's runner.** Core's
//!   [`PlanRunner`](layerbatch_core::execute::PlanRunner) walks each plan's resource ops in
//!   order and counts them (arrays created and destroyed, layers copied, texture bytes
//!   written, mip levels regenerated); the renderer only carries each op out on the device,
//!   so those counters are the same on every backend by construction.
//! - **Rebuild.** After a skipped plan or any error from `prepare`, call
//!   [`Batcher::restore`](layerbatch_core::Batcher::restore) and re-upload the textures it
//!   lists; its next plan has `rebuild` set, and the renderer drops every array, cached bind
//!   group and slot binding before re-creating the live arrays.
//! - **Binds.** The renderer follows core's draw walk (`layerbatch_core::execute::DrawSteps`), which
//!   binds from nothing each plan: a draw's slot bind group holds what the walk bound, and is
//!   set only when a bind or a tier change came before the draw and the group differs from
//!   the one set. Bind groups are cached by (tier, arrays held).
//! - **Bounded buffers.** Instances are uploaded by blocks of the plan's `instance_capacity`
//!   (core never lets a draw cross a block), each in one vertex buffer of the
//!   [`PreparedPlan`]'s, reused frame to frame: any number of quads, no buffer above the
//!   device's `max_buffer_size`. Layer writes staged after a GPU copy are split into buffers
//!   no larger than it, too.
//! - **Instanced or indexed quads.** By the budget's `indexed_quads`
//!   (`layerbatch_core::QuadVertices`; [`device_limits`] reports a CPU adapter as a software
//!   rasterizer, where `Auto` picks indexed): a segment is one instanced draw of a 4-vertex
//!   strip per quad, or, indexed, each instance is written once per corner and a segment is
//!   one indexed draw of two triangles a quad, from an index buffer made at creation for
//!   `instance_capacity` quads (1.5 MiB at the default 65,536). Software rasterizers
//!   (SwiftShader, lavapipe) run an instanced draw as one internal draw per instance.
//! - **Host-owned plans.** [`Renderer::prepare`] fills a [`PreparedPlan`] the host holds (its
//!   instances, its globals uniform with its viewport and draw states' transforms, its
//!   pass commands) and [`Renderer::render`] draws it, so any number of plans are each drawn
//!   in their own place, in one pass or several, prepared and rendered in any order before a
//!   submit (see [Plans and passes](#plans-and-passes)).
//! - **GPU copies.** [`ArrayOp::Grow`](layerbatch_core::plan::ArrayOp::Grow) (more layers, or larger
//!   layers: each old layer is copied, all levels, as the old width x height to the origin of
//!   the new one), [`ArrayOp::Shrink`](layerbatch_core::plan::ArrayOp::Shrink) (fewer layers) and
//!   [`ArrayOp::CopyRect`](layerbatch_core::plan::ArrayOp::CopyRect) (a level-0 rectangle from a layer
//!   of one array to another layer of it, or to a layer of another array: compaction) are
//!   `copy_texture_to_texture` commands (one per layer and level for growth and shrinking)
//!   recorded into the renderer's own encoder, as is a host texture's copy on wgpu's GL
//!   backend ([`ArrayOp::HostContents`](layerbatch_core::plan::ArrayOp::HostContents); every
//!   other backend views the host's texture: [`Renderer::set_host_texture`]); every layer write after the plan's first GPU
//!   copy is recorded after it, so the plan's op order holds (see
//!   [Submission ordering](#submission-ordering)).
//! - **Errors, not panics.** Whatever wgpu refuses while a plan is applied (out of memory, a
//!   limit the budget did not know) comes back as [`Error::Device`], caught in error scopes,
//!   never at the device's uncaptured-error handler. On WebGPU, which answers error scopes
//!   later, it comes back from the next `prepare` or from [`Renderer::device_errors`] (see
//!   [In a browser](#in-a-browser) and [Errors instead of panics](#errors-instead-of-panics)).
//!
//! ```no_run
//! use layerbatch_core::{Batcher, Config, Quad, TextureDesc};
//! use layerbatch_wgpu::{device_limits, Renderer, RendererOptions};
//!
//! # fn frame(device: &wgpu::Device, queue: &wgpu::Queue, target: &wgpu::TextureView)
//! # -> Result<(), Box<dyn std::error::Error>> {
//! let format = wgpu::TextureFormat::Rgba8Unorm;
//! // Once: core's budget from this device's limits, then the pipelines.
//! let mut batcher = Batcher::new(device_limits(device), Config::default())?;
//! let mut renderer = Renderer::new(device, format, batcher.budget(), &RendererOptions::default())?;
//! let red = batcher.textures().register(&TextureDesc::new(16, 16), &[255, 0, 0, 255].repeat(16 * 16))?;
//!
//! // Every frame: record quads, plan, prepare, render into your pass, submit.
//! batcher.begin_frame();
//! batcher.push(&Quad::rect(red, [10.0, 10.0], [64.0, 64.0]))?;
//! let plan = batcher.finish();
//!
//! let mut prepared = renderer.create_prepared(); // once, kept from frame to frame
//! renderer.prepare(device, queue, &mut prepared, plan, [800, 600])?; // the whole 800x600 target
//! let mut encoder = device.create_command_encoder(&Default::default());
//! {
//!     let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
//!         label: None,
//!         color_attachments: &[Some(wgpu::RenderPassColorAttachment {
//!             view: target,
//!             depth_slice: None,
//!             resolve_target: None,
//!             ops: wgpu::Operations { load: wgpu::LoadOp::Clear(wgpu::Color::BLACK), store: wgpu::StoreOp::Store },
//!         })],
//!         depth_stencil_attachment: None,
//!         timestamp_writes: None,
//!         occlusion_query_set: None,
//!         multiview_mask: None,
//!     });
//!     renderer.render(&prepared, &mut pass)?;
//! }
//! queue.submit([encoder.finish()]);
//! assert_eq!(renderer.stats().device_frame.draw_calls, 1);
//! # Ok(()) }
//! ```
//!
//! ## Sampling
//!
//! - **Texel coordinates.** An [`Instance`](layerbatch_core::plan::Instance)'s `uv_rect` (the quad's
//!   UVs mapped into the layer) and `tex_rect` (the texture's own rectangle) are in texels of
//!   level 0. The shader divides by the bound layer's size (from the slot group's sizes
//!   uniform, made with the group), so core can grow an atlas page in size without touching an
//!   instance.
//! - **Clamping.** With [`Instance::FLAG_CLAMP_TO_RECT`](layerbatch_core::plan::Instance::FLAG_CLAMP_TO_RECT)
//!   the sampling position is clamped into `tex_rect` inset by half a texel (its centre on an
//!   axis under one texel), so UVs outside 0..1, flipped UVs and linear filtering at any scale
//!   never read a neighbour's or the padding's texels: the sampler's clamp-to-edge, exactly,
//!   for a texture that shares its layer.
//! - **Samplers per slot.** Each slot of a bind group is sampled through the sampler matching
//!   its array's [`Filter`](layerbatch_core::Filter) and [`Wrap`](layerbatch_core::Wrap), like
//!   a GL texture unit: `Linear` is bilinear (trilinear with mips), `Nearest` the nearest texel
//!   of the nearest level; clamp-to-edge, repeat or mirrored repeat. Repeat and mirror textures
//!   fill their layer, so the sampler wraps them, bilinear seams included. Twelve samplers, one
//!   per filter (2), wrap (3) and whether the array has mip levels (a linear array without
//!   levels gets a nearest mipmap filter, which software rasterizers run faster), are created
//!   once, in [`Renderer::new`]; the device must allow `budget.slots` samplers per stage
//!   (checked by [`Renderer::new`]). This is safe on wgpu's GL backend, which keeps one sampler per texture
//!   binding: each texture is sampled through one sampler only.
//! - **Small per-pixel work.** Filtering and wrapping are the sampler's, so the fragment shader
//!   only clamps and samples once: `textureSample` at tier 1, and above it, after taking the
//!   mip level from the derivatives, `textureSampleLevel` in the slot's case (software
//!   rasterizers such as lavapipe are fill-bound). The vertex stage samples no slot: its one
//!   texture is a moving layer's motions (group [`layerbatch_core::shader::GROUP_MOTION`]).
//!
//! ## Where a plan draws
//!
//! [`Renderer::prepare`] takes a [`Viewport`](layerbatch_core::Viewport): `[u32; 2]` (the
//! whole target, the pass's viewport left as the host set it), or
//! `Viewport::rect(target_size_px, rect_px)` for a panel inside the target (an egui paint
//! callback), which may lie partly outside it: the renderer sets the pass's viewport to the
//! visible part and the sprites keep their place (the viewport bounds them: no scissor is set
//! for it). `with_host_clip` names the scissor the host set: clips are intersected with it and
//! it is set back afterwards. A plan without clips and without a host clip sets no scissor.
//!
//! ## Render to texture
//!
//! A plan of [`Batcher::begin_frame_into`](layerbatch_core::Batcher::begin_frame_into) draws
//! into a [`Usage::RenderTarget`](layerbatch_core::Usage::RenderTarget) texture: `prepare`
//! records that pass itself (cleared first if the plan asks) and submits it, so later plans
//! sample the result. Such a plan is complete when `prepare` returns (rendering its
//! [`PreparedPlan`] in a host pass draws nothing), so a host that only draws into render
//! targets never needs `render`, and its prepared plan keeps one space. Texel
//! row 0 is the top row, as for uploads: drawn with default UVs, a target is upright (on the GL
//! backend too). [`Renderer::target_view`] gives a view of the target for passes of the host's
//! own. Render-target arrays are made with `RENDER_ATTACHMENT`; their pipelines (the pass kind
//! of their format, one sample, no depth) are made with the first render target of a format,
//! counted in `pipeline_compiles`.
//!
//! A target whose array has mip levels is mipmapped after each plan drawn into it, as core's
//! [`PlanTarget`](layerbatch_core::PlanTarget) says: levels `1..` of the target layer are
//! regenerated from level 0 (a box filter; in linear light for sRGB targets), one render pass
//! per level in the same encoder, counted in `DeviceCounters::mip_levels_regenerated` and in
//! no other counter (their draws and bind groups are not in `draw_calls` or
//! `bind_group_creates`, which stay core's mock device's). Those pipelines (one per format)
//! are made in [`Renderer::new`] and are not counted in `pipeline_compiles`. A host drawing
//! into [`Renderer::target_view`] itself regenerates nothing.
//!
//! ## In a browser
//!
//! On `wasm32-unknown-unknown` the renderer runs on wgpu's WebGPU backend (`webgpu`, a
//! default feature of wgpu) and on its WebGL2 backend (wgpu's `webgl` feature), unchanged:
//! the same plans, pipelines, bind groups and counters. One thing differs on WebGPU: the
//! browser answers error scopes asynchronously, so an error caused by `prepare` (or `new`)
//! comes back as `Err` from the *next* `prepare`, or from awaiting
//! [`Renderer::device_errors`], instead of from the call itself (see
//! [Errors instead of panics](#errors-instead-of-panics)). On WebGL2, as natively, it comes back from the call. Nothing is
//! lost to the uncaptured-error handler either way. `scripts/web-test.sh` runs the pixel
//! tests and this error contract on both in headless Chromium.
//!
//! ## Pass kinds
//!
//! One renderer draws into passes of any kind: the plain and the HDR camera of a game, MSAA
//! on or off, several windows of different formats. A [`PassKind`] is what a render pipeline
//! depends on in a pass: the colour format, the multisampling and the depth-stencil
//! attachment (layerbatch never tests depth: [`PassKind::untested_depth`]). Textures, bind
//! groups and shader modules are shared by every kind; only the pipelines are per kind, made
//! from the modules compiled at creation, as glyphon caches its pipelines.
//!
//! - [`Renderer::new`]'s format and [`RendererOptions`] are the first kind, made at creation:
//!   [`Renderer::create_prepared`] prepares for it, and a host with one kind of pass never
//!   compiles after creation.
//! - [`Renderer::create_prepared_for`] prepares a plan for another kind. The first `prepare`
//!   of a plan for a kind makes its pipelines ([`Renderer::pipelines_per_kind`] of them),
//!   counted in that frame's `device_frame.pipeline_compiles`, and keeps them: a frame that
//!   introduces a kind says so there, and later frames compile nothing. A kind the device
//!   refuses (a sample count it lacks) is [`Error::Pipeline`], naming the kind, before the
//!   plan is taken: nothing is applied, and the plan may be prepared again for another kind.
//! - [`PreparedPlan::set_pass_kind`] moves a prepared plan to another kind (a camera that
//!   turned HDR); it draws nothing until its next `prepare`.
//! - Render targets are kinds too: their format, one sample, no depth.
//!
//! ## Plans and passes
//!
//! A [`PreparedPlan`] ([`Renderer::create_prepared`]) holds one plan between `prepare` and
//! `render`; a host keeps one per plan it draws in a frame (one per egui callback, say) from
//! frame to frame. Plans and passes may interleave in any order before one submit, and every
//! pass draws the plan it was given:
//!
//! - prepare A, prepare B, render A, render B (one pass or two), submit;
//! - prepare A, render A (pass 1), prepare B, render B (pass 2), submit;
//! - the same with **one** prepared plan re-prepared between the two passes.
//!
//! **Spaces.** Each prepared plan keeps a few spaces: vertex buffers for its instances and a
//! globals uniform with its bind group. `render` marks the space it draws from in flight, with
//! the pass's `on_submitted_work_done`, until the GPU has run the host's submit (or until the
//! pass's encoder is dropped unsubmitted); `prepare` writes only into a space not in flight,
//! and adds one when all are. Queue writes run at the next submit, before its command
//! buffers, the last write to a range winning: no space a pass of that submit draws from is
//! written again, so plans of one submit never overwrite each other. wgpu reports finished
//! work when the host submits or polls the device; a host that prepares, renders and submits
//! every frame settles at one space more than the frames the GPU runs behind (two or three
//! under a surface's usual latency). Each space's buffers grow only when a plan needs more: no
//! GPU buffer is made per frame in steady state (each `render` hands wgpu one small callback),
//! and memory is bounded by the largest plan times the frames in flight. A plan drawn into a render target is drawn
//! and submitted by `prepare` itself, and its space is free again at once: wgpu runs the queue
//! writes of a later `prepare` after the work submitted before it.
//!
//! **Frames.** Since queue writes of a submit all run before its passes, memory one plan of a
//! submit draws from must not be given to a new texture by a later plan of the same submit.
//! Core reuses what it frees (a freed texture's rectangle or layer, a glyph its cache evicts)
//! only after the host's frame ends: call [`Batcher::end_frame`](layerbatch_core::Batcher::end_frame)
//! after each submit when a frame has several plans (until the first call, every
//! `Batcher::finish` ends a frame, which is right for one plan a submit).
//!
//! **Foreign plans.** A prepared plan works only with the renderer that made it: another
//! renderer refuses it in `prepare` and in `render` with [`Error::ForeignPrepared`], doing
//! nothing.
//!
//! **Stats.** [`Renderer::stats`] gives core's counters of the last plan prepared;
//! `device_frame` is the device work of the last `prepare` plus the draws of every `render`
//! since.
//!
//! ## Submission ordering
//!
//! `prepare` writes with `Queue::write_texture` / `write_buffer` / `write_buffer_with` (the
//! instances, written by core straight into the queue's staging memory), which wgpu executes
//! at the next `submit`, *before* every command buffer of that submit. GPU copies (growth, shrinking,
//! rectangle copies: [`ArrayOp::is_gpu_copy`](layerbatch_core::plan::ArrayOp::is_gpu_copy)) cannot
//! be queue writes: they are recorded into a command encoder of the renderer's own. A layer
//! write that follows a GPU copy in the plan (e.g. a texture admitted into the grown array,
//! or into the rectangle a compaction freed) would be overwritten by, or read by, the copy if
//! it were a queue write, so every write after the plan's first GPU copy is staged in buffers
//! no larger than the device's `max_buffer_size` (a level larger than that is split by rows)
//! and recorded into the same encoder with `copy_buffer_to_texture`, in op order around the
//! copies; a plan drawn into a render target records its pass there too. The result is
//! exactly the plan's op order. A moving layer's motions are copied (with core's check,
//! [`copy_checked`](layerbatch_core::copy_checked)) into mapped staging buffers the renderer
//! reuses and recorded into the same encoder with `copy_buffer_to_texture`: its limits have
//! [`staged_motion_writes`](layerbatch_core::Limits::staged_motion_writes), so the host's
//! motions are read once a frame. A plan with [tile grid](layerbatch_core::tilegrid) draws
//! records their culling pass there as well (a compute pass that writes the tiles that show
//! and their indirect draws' counts into buffers of the prepared plan's space), after the
//! queue writes of its uniforms and before any render-target pass.
//!
//! **`prepare` submits that encoder itself** (only when a plan has such work: GPU copies,
//! late writes, render targets, grid culling or moved sprites), before returning. So a plan's resource changes happen even when the host drops
//! its own encoder without submitting it (eframe does so when the surface is outdated, lost
//! or occluded): the next frame's textures are right. They also happen before anything the
//! host submits afterwards, including passes it recorded before calling `prepare`: a pass of
//! the same frame that draws an earlier plan sees this plan's texture changes (as it already
//! does for queue writes), so prepare every plan of a frame before submitting if a later plan
//! updates textures an earlier one draws.
//!
//! ## Errors instead of panics
//!
//! Every wgpu call of `prepare` that can fail (texture, buffer and bind-group creation, queue
//! writes) runs inside validation, out-of-memory and internal error scopes: a failure comes
//! back as [`Error::Device`], naming the operation, instead of reaching the device's
//! uncaptured-error handler. The renderer then drops every array it holds and accepts only a
//! rebuild plan next (call [`Batcher::restore`](layerbatch_core::Batcher::restore) and
//! re-upload the textures it lists). The renderer's own command buffer (copies, staged
//! writes, render-target draws) is finished and submitted inside the same scopes.
//! [`Renderer::new`] catches shader and pipeline errors the same way ([`Error::Shader`],
//! [`Error::Pipeline`]).
//!
//! **When the error arrives.** Natively, and on wgpu's WebGL2 backend in a browser, a popped
//! error scope has its answer at once: the error comes back from the call that caused it.
//! On **WebGPU** the browser answers error scopes asynchronously, after the call returned.
//! There the call returns `Ok`, the scopes' answers are awaited in the background (tasks
//! spawned with `wasm_bindgen_futures::spawn_local`), and the first error, in the order of
//! the operations, comes back as `Err`:
//!
//! - from the next [`Renderer::prepare`], which then applies nothing of its own plan (and
//!   expects a rebuild plan next, as after any device error); or
//! - from [`Renderer::device_errors`], which waits until every answer is in: await it after
//!   `prepare` (or after `new`) where an error must be known before going on. It is
//!   `Ok(())` at once natively.
//!
//! Either way the renderer then holds no array, and no plan prepared before is drawn any
//! more (`render` draws nothing with those prepared plans): a rebuild plan is next, as above. Draws the
//! host already recorded with a plan whose operations failed are the host's: WebGPU reports
//! what they trip over at the host's submit, through the device's uncaptured-error handler.
//! Errors of the host's own passes and submits (the draws `render` records) are the host's
//! scopes' or its uncaptured-error handler's, on every backend.
//!
//! See [`device_limits`] for the limits core gets, and [`pipeline_source`] for the WGSL of a [`ProgramKey`](layerbatch_core::ProgramKey).
#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod arrays;
mod bind_groups;
mod draws;
mod error;
mod globals;
mod grids;
mod host;
mod instances;
mod limits;
mod mips;
mod motions;
mod pass_kind;
mod pipelines;
mod prepared;
mod renderer;
mod samplers;
mod scope;
mod shader;
mod staging;

pub use error::Error;
pub use limits::{device_limits, format_families, limits};
pub use pass_kind::PassKind;
pub use pipelines::RendererOptions;
pub use prepared::PreparedPlan;
pub use renderer::Renderer;
pub use shader::pipeline_source;
