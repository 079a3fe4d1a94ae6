//! The renderer: prepares frame plans with the host's device and queue, and records them into
//! the host's passes.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use layerbatch_core::execute::PlanRunner;
use layerbatch_core::{ArrayId, Budget, DeviceCounters, FramePlan, PlanTarget, Stats, Viewport};

use crate::arrays::{out_of_step, own_encoder, wgpu_format, ArrayOps, Arrays, Forget};
use crate::bind_groups::BindGroups;
use crate::draws::{self, Draw, Parts, PlanDraws};
use crate::globals::Globals;
use crate::instances::{Instances, Space};
use crate::limits::check_device;
use crate::mips::Mips;
use crate::pipelines::{Pipelines, RendererOptions};
use crate::scope::{checked, Late};
use crate::Error;

/// Plans one automatic frame may hold before a warning that no render ended it.
const PLANS_WARNING: usize = 64;

/// A plan prepared by [`Renderer::prepare`], for [`Renderer::render_prepared`]: a small
/// handle, valid until the frame ends (see [Frames](crate#frames)).
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
/// `RenderPass`, the way glyphon and egui-wgpu embed: it borrows the device and queue on each
/// call and never submits the host's work.
///
/// Per frame: [`Renderer::prepare`] checks each plan with core's validator, applies its
/// resource ops, uploads its instances and globals and resolves its bind groups; the host
/// begins its pass and calls [`Renderer::render`] (the last plan) or
/// [`Renderer::render_prepared`] (any plan of the frame); then it submits. `prepare` submits
/// only a command buffer of its own, for GPU copies, the writes after them and render targets.
///
/// The crate docs say how several plans share a frame ([Frames](crate#frames)), when
/// `prepare`'s work runs relative to the host's
/// ([Submission ordering](crate#submission-ordering)), and what follows an error
/// ([Errors instead of panics](crate#errors-instead-of-panics)).
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
#[derive(Debug)]
pub struct Renderer {
    /// Checks, applies and counts each plan's resource ops, through [`ArrayOps`].
    runner: PlanRunner,
    pipelines: Pipelines,
    /// The render targets' mip regeneration pipelines, one per format.
    mips: Mips,
    globals: Globals,
    arrays: Arrays,
    groups: BindGroups,
    instances: Instances,
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
    /// [`BlendMode`](layerbatch_core::BlendMode) (`tiers x BlendMode::ALL.len()`), the twelve
    /// slot samplers, and the render targets' mip regeneration pipelines (one per format, not
    /// counted in `pipeline_compiles`), all here. Only the pipelines drawing into render
    /// targets of a format come later, with the first such target (see the crate docs,
    /// *Render to texture*).
    ///
    /// `budget` is the batcher's ([`layerbatch_core::Batcher::budget`]), made from
    /// [`crate::device_limits`] of this device.
    ///
    /// # Errors
    /// [`Error::Budget`] when `budget` was edited into one core's `Budget::check` refuses (checked
    /// first); [`Error::Unsupported`] when the device cannot bind the budget's slots or hold a block
    /// of its instances in one buffer; [`Error::UnsupportedBudget`] on wgpu's GL backend when
    /// the budget allows layer counts that backend misreads (a budget not made from
    /// [`crate::device_limits`]); [`Error::Shader`] / [`Error::Pipeline`] when a tier does not
    /// compile or link; [`Error::Device`] when wgpu refuses another object.
    pub fn new(
        device: &wgpu::Device,
        target: wgpu::TextureFormat,
        budget: &Budget,
        options: &RendererOptions,
    ) -> Result<Self, Error> {
        check_device(device, budget)?;
        let late = Late::default();
        let globals = Globals::new(device, &late)?;
        let groups = BindGroups::new(device, &late, budget.slots)?;
        let instances = Instances::new(device, &late, budget)?;
        let pipelines = Pipelines::new(device, &late, target, budget, options, globals.layout())?;
        let mips = Mips::new(device, &late, wgpu_format)?;
        // `pipeline_compiles` counts the sprite pipelines (tiers x blend modes), not the mips'.
        let mut stats = Stats::created(pipelines.count() as u64);
        // The first globals uniform's group.
        stats.device_total.bind_group_creates = 1;
        Ok(Self {
            runner: PlanRunner::new(budget),
            pipelines,
            mips,
            globals,
            arrays: Arrays::default(),
            groups,
            instances,
            max_buffer_size: device.limits().max_buffer_size,
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
        self.pipelines.tiers()
    }

    /// The GPU texture of a live array (for inspection): exactly the plan's description.
    pub fn array_texture(&self, array: ArrayId) -> Option<&wgpu::Texture> {
        self.arrays.get(array).map(|a| &a.texture)
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
        self.instances.indices().is_some()
    }

    /// Instance vertex buffers in the pool, shared by a frame's plans: at least the most
    /// blocks of [`FramePlan::instance_capacity`] instances any frame needed, each no larger
    /// than the device's `max_buffer_size`.
    pub fn instance_buffers(&self) -> usize {
        self.instances.buffers()
    }

    /// Bytes of the instance vertex buffers held.
    pub fn instance_buffer_bytes(&self) -> u64 {
        self.instances.buffer_bytes()
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
        self.globals.len()
    }

    /// Core's counters of the last plan prepared, and what this renderer issued for the current
    /// frame, summed over its plans (the draws and bind-group sets of `render` and
    /// `render_prepared` are counted when they run; `device_frame.frames` is the number of
    /// plans prepared in the frame). `bind_group_sets` counts every `set_bind_group`, the
    /// globals group's included (once per render call, and again at each change of draw
    /// state); `texture_binds` stays 0. `device_total` includes the pipelines (one per tier
    /// and blend mode) and the globals bind group created by `new`. A plan that failed on the
    /// device adds what it did (arrays created, and every array dropped after the error, as
    /// destroyed) but no frame.
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
    /// that prepare one plan per submit, may leave it out: see [Frames](crate#frames).
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
        self.instances.end_frame();
    }

    /// Executes `plan` up to the draws: checks it with core's validator, then applies its ops
    /// in order, uploads the instances and the globals (viewport size and transforms) into
    /// space of their own in the current frame, and resolves the bind groups the segments
    /// need. GPU copies and the writes after them go into a command buffer of the renderer's
    /// own, submitted here (see [Submission ordering](crate#submission-ordering)).
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
    /// run): nothing was applied. [`Error::TooManyStates`] likewise. [`Error::Device`] when wgpu
    /// refuses an operation of a valid plan (out of memory, a limit the budget did not know):
    /// part of the plan may be applied, so the renderer drops every array it holds and accepts
    /// only a rebuild plan next ([`Batcher::restore`](layerbatch_core::Batcher::restore)).
    /// Either way there is no handle and `render` draws nothing until the next successful
    /// `prepare`; plans prepared earlier in the frame can still be drawn with their handles.
    ///
    /// On WebGPU, an error the device reported late, for an earlier `prepare` (or `new`), is
    /// returned here before anything else is done: this plan is not applied, the renderer
    /// holds no array and expects a rebuild plan, and the current frame's plans draw nothing
    /// (see [Errors instead of panics](crate#errors-instead-of-panics);
    /// [`Renderer::device_errors`] waits for those errors instead).
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
        let max = self.globals.max_states();
        if plan.states.len() > max {
            return Err(Error::TooManyStates { states: plan.states.len(), max });
        }
        self.runner.check(plan)?;

        let mut counters = DeviceCounters::one_frame();
        // Into a render target: its whole texture, whatever the host's viewport says.
        let vp = plan.viewport(viewport.into());
        // Where the frame's instance space ends before this plan: a plan drawn into a render
        // target gives its space back once `prepare` has submitted its draws.
        let space = self.instances.space();
        let result = match self.execute(device, queue, plan, vp, &mut counters) {
            Ok((draws, own)) => self.finish_plan(device, queue, own, plan.target, draws, space),
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
                self.fail(counters);
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
    /// returned by the next `prepare`, or by this, whichever comes first. See
    /// [Errors instead of panics](crate#errors-instead-of-panics).
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

    /// After a device error: the runner drops every array (counted as destroyed) and expects
    /// a rebuild plan. The failed plan's device work (`counters`) is counted, as no frame.
    fn fail(&mut self, mut counters: DeviceCounters) {
        self.runner.fail(&mut Forget { arrays: &mut self.arrays, groups: &mut self.groups }, &mut counters);
        counters.frames = 0;
        self.frame_counters.accumulate(&counters);
        self.stats.device_total.accumulate(&counters);
        self.stats.device_frame = self.frame_counters;
    }

    /// After an error the device reported late: hold nothing (a rebuild plan is next), and
    /// draw none of the current frame's plans, which may use what failed (their handles draw
    /// nothing; their space stays reserved until the frame ends).
    fn fail_late(&mut self) {
        self.fail(DeviceCounters::ZERO);
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
    /// a slot or changes tier) and one draw (with indexed quads, the renderer's quad index
    /// buffer is set once per call). Any plan of the current frame may be drawn, in any pass,
    /// any number of times. Like any recorder into a shared pass, it leaves the pipeline, bind
    /// groups, vertex and index buffers it set: a host drawing after it sets its own again.
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
    /// (nor changes one the host set), whatever its viewport. Whenever scissors are set, the
    /// target size of the `viewport` given to `prepare` (the `[u32; 2]`, or
    /// [`Viewport::rect`]'s first argument) must be the attachment's size.
    ///
    /// A handle of an earlier frame is stale (its space may hold another plan now): nothing is
    /// drawn, and a warning is logged.
    pub fn render_prepared(&self, pass: &mut wgpu::RenderPass<'_>, prepared: Prepared) {
        self.rendered.store(true, Ordering::Relaxed);
        if let Some(plan) = self.held_plan(prepared) {
            self.draw_plan(pass, plan);
        }
    }

    /// A view of `layer` of render-target array `array` (level 0), to draw into in a pass of
    /// the host's own, e.g. to add its own drawing to a target layerbatch rendered. The array
    /// and layer of a [`Usage::RenderTarget`](layerbatch_core::Usage::RenderTarget) texture
    /// come from [`Batcher::placement`](layerbatch_core::Batcher::placement). `None` when the
    /// renderer holds no such render-target array or layer.
    pub fn target_view(&self, array: ArrayId, layer: u32) -> Option<wgpu::TextureView> {
        self.arrays.target_view(array, layer)
    }

    /// Applies `plan`'s ops through the runner, uploads its instances and globals and resolves
    /// its draws. Returns them, and the renderer's encoder if anything was recorded into it.
    fn execute(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        plan: &FramePlan,
        vp: Viewport,
        counters: &mut DeviceCounters,
    ) -> Result<(PlanDraws, Option<wgpu::CommandEncoder>), Error> {
        self.groups.begin_plan();
        let mut ops = ArrayOps::new(
            (device, queue, &self.late),
            plan,
            self.max_buffer_size,
            &mut self.arrays,
            &mut self.groups,
            &mut self.pipelines,
        );
        let applied = self.runner.apply_ops(plan, &mut ops, counters);
        counters.pipeline_compiles += ops.pipeline_compiles();
        applied?;
        let own = ops.finish()?;

        let blocks = self.instances.upload(device, queue, &self.late, plan, counters)?;
        let mut draws = self.spare_draws.pop().unwrap_or_default();
        let parts = Parts {
            device,
            late: &self.late,
            pipelines: &self.pipelines,
            arrays: &self.arrays,
            globals: &self.globals,
            groups: &mut self.groups,
        };
        counters.bind_group_creates += draws::resolve(parts, plan, blocks, &vp, &mut draws)?;
        self.groups.trim();
        // The plan's place in the frame picks its globals uniform: no two plans of a frame
        // (of a submit) write the same one.
        let slot = self.plans.len();
        counters.bind_group_creates += self.globals.write(device, queue, &self.late, slot, plan, &vp)?;
        let target_format = match plan.target {
            Some(t) => Some(wgpu_format(self.arrays.get(t.array).ok_or_else(|| out_of_step(t.array))?.desc.format)),
            None => None,
        };
        // `prepare` regenerates the target layer's levels above 0 after the draws.
        self.runner.count_target_mips(plan, counters);
        Ok((PlanDraws { globals: slot, vp, target_format, draws }, own))
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
        space: Space,
    ) -> Result<Prepared, Error> {
        let held = match target {
            Some(t) => {
                let drawn = self.draw_into_target(device, &mut own, t, &plan);
                let mut draws = plan.draws;
                draws.clear();
                self.spare_draws.push(draws);
                self.instances.give_back(space);
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
        let view = self.arrays.target_view(t.array, t.layer).ok_or_else(|| out_of_step(t.array))?;
        let array = self.arrays.get(t.array).ok_or_else(|| out_of_step(t.array))?;
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

    /// Records a plan's draws into `pass` and counts them.
    fn draw_plan(&self, pass: &mut wgpu::RenderPass<'_>, plan: &PlanDraws) {
        let (draws, sets) = draws::record(pass, plan, &self.pipelines, &self.globals, &self.instances);
        self.render_draws.fetch_add(draws, Ordering::Relaxed);
        self.render_group_sets.fetch_add(sets, Ordering::Relaxed);
    }
}
