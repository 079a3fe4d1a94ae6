//! The renderer: prepares frame plans with the host's device and queue into the host's
//! [`PreparedPlan`]s, and records them into the host's passes.

use std::sync::atomic::{AtomicU64, Ordering};

use layerbatch_core::execute::DrawSteps;
use layerbatch_core::execute::PlanRunner;
use layerbatch_core::plan::ArrayId;
use layerbatch_core::{Budget, DeviceCounters, FramePlan, PlanTarget, Stats, Viewport};

use crate::arrays::{out_of_step, own_encoder, wgpu_format, ArrayOps, Arrays};
use crate::bind_groups::BindGroups;
use crate::draws::{self, Drawn, Parts, With};
use crate::globals::Globals;
use crate::grids::{self, GridPass};
use crate::instances::{Block, Instances};
use crate::limits::check_device;
use crate::mips::Mips;
use crate::motions::Motions;
use crate::pipelines::{Pipelines, RendererOptions};
use crate::prepared::{new_renderer_tag, PreparedPlan};
use crate::scope::{checked, Late};
use crate::{Error, PassKind};

/// Executes [`FramePlan`]s with the host's `Device` and `Queue`, drawing into the host's
/// `RenderPass`, the way glyphon and egui-wgpu embed: it borrows the device and queue on each
/// call and never submits the host's work.
///
/// The renderer holds what all plans share (pipelines, texture arrays, bind groups, samplers);
/// each plan's own resources live in a [`PreparedPlan`] the host holds
/// ([`Renderer::create_prepared`]). Per plan: [`Renderer::prepare`] checks it with core's
/// validator, applies its resource ops, uploads its instances and globals into the
/// `PreparedPlan` and resolves its bind groups; the host begins its pass and calls
/// [`Renderer::render`] with that `PreparedPlan`; then it submits. `prepare` submits only a
/// command buffer of its own, for GPU copies, the writes after them, motion writes and render
/// targets.
///
/// The crate docs say how plans and passes may interleave
/// ([Plans and passes](crate#plans-and-passes)), when `prepare`'s work runs relative to the
/// host's ([Submission ordering](crate#submission-ordering)), and what follows an error
/// ([Errors instead of panics](crate#errors-instead-of-panics)).
///
/// Two plans in one pass, the second in a panel:
///
/// ```no_run
/// # fn frame(device: &wgpu::Device, queue: &wgpu::Queue,
/// #     renderer: &mut layerbatch_wgpu::Renderer, batcher: &mut layerbatch_core::Batcher,
/// #     pass_for: impl Fn(&mut wgpu::CommandEncoder) -> wgpu::RenderPass<'_>)
/// # -> Result<(), layerbatch_wgpu::Error> {
/// // Once, and kept from frame to frame: one PreparedPlan per plan of a frame.
/// let mut scene = renderer.create_prepared();
/// let mut overlay = renderer.create_prepared();
///
/// batcher.begin_frame();
/// // ... the scene's quads ...
/// renderer.prepare(device, queue, &mut scene, batcher.finish(), [800, 600])?;
/// batcher.begin_frame();
/// // ... the overlay's quads, in a 400x300 panel at (380, 20) of the 800x600 target ...
/// let panel = layerbatch_core::Viewport::rect([800, 600], [380, 20, 400, 300]);
/// renderer.prepare(device, queue, &mut overlay, batcher.finish(), panel)?;
/// let mut encoder = device.create_command_encoder(&Default::default());
/// {
///     let mut pass = pass_for(&mut encoder);
///     renderer.render(&scene, &mut pass)?;
///     renderer.render(&overlay, &mut pass)?;
/// }
/// queue.submit([encoder.finish()]);
/// # Ok(()) }
/// ```
///
/// Prepare and render interleaved before one submit, one `PreparedPlan` re-prepared between
/// two passes: each pass draws the plan it rendered.
///
/// ```no_run
/// # fn frame(device: &wgpu::Device, queue: &wgpu::Queue,
/// #     renderer: &mut layerbatch_wgpu::Renderer, plan_a: &layerbatch_core::FramePlan,
/// #     plan_b: &layerbatch_core::FramePlan,
/// #     pass_for: impl Fn(&mut wgpu::CommandEncoder) -> wgpu::RenderPass<'_>)
/// # -> Result<(), layerbatch_wgpu::Error> {
/// let mut prepared = renderer.create_prepared();
/// let mut encoder = device.create_command_encoder(&Default::default());
/// renderer.prepare(device, queue, &mut prepared, plan_a, [800, 600])?;
/// renderer.render(&prepared, &mut pass_for(&mut encoder))?; // pass 1 draws plan A
/// renderer.prepare(device, queue, &mut prepared, plan_b, [800, 600])?;
/// renderer.render(&prepared, &mut pass_for(&mut encoder))?; // pass 2 draws plan B
/// queue.submit([encoder.finish()]);
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Renderer {
    /// Unique in the process: a [`PreparedPlan`] names the renderer that made it.
    tag: u64,
    /// Checks, applies and counts each plan's resource ops, through [`ArrayOps`].
    runner: PlanRunner,
    pipelines: Pipelines,
    /// The render targets' mip regeneration pipelines, one per format.
    mips: Mips,
    globals: Globals,
    pub(crate) arrays: Arrays,
    pub(crate) groups: BindGroups,
    instances: Instances,
    /// Where the last plan's instance blocks went, by block number (reused: no allocation per
    /// frame).
    blocks: Vec<(u32, Block)>,
    /// Core's draw walk of the last plan prepared.
    steps: DrawSteps,
    /// The device's `max_buffer_size`: the largest staging buffer.
    max_buffer_size: u64,
    /// The budget's `compressed_copies`: without them no GPU copy touches a compressed array,
    /// and compressed writes are never staged ([`crate::staging`]).
    compressed_copies: bool,
    /// Advanced when a device error reported late resets the renderer: plans prepared
    /// before then draw nothing.
    epoch: u64,
    /// Everything up to the last `prepare`; the renders since are added by
    /// [`Renderer::stats`].
    stats: Stats,
    /// What `render` issued since the last `prepare` (`render` takes `&self`).
    render_draws: AtomicU64,
    render_group_sets: AtomicU64,
    /// Errors the device reports after the call that caused them (WebGPU).
    late: Late,
    /// Pipelines [`Renderer::make_pass_kind`] made since the last `prepare`: counted in the
    /// next frame's `pipeline_compiles`.
    compiles_pending: u64,
    /// The tile grids' culling pass, on a budget whose grids live on the device
    /// ([`Budget::max_cell_bytes`] above 0).
    grid_pass: Option<GridPass>,
}

impl Renderer {
    /// Creates the renderer, with the pipelines of the pass kind of `target` and `options`
    /// (the kind [`Renderer::create_prepared`] prepares for): one shader module per tier of
    /// `budget.tiers` (two with declared effects), and for that kind one render pipeline per
    /// tier, program, vertex kind and [`BlendMode`](layerbatch_core::BlendMode)
    /// ([`Renderer::pipelines_per_kind`]), the twelve slot samplers, and the render targets'
    /// mip regeneration pipelines (one per format, not counted in `pipeline_compiles`), all
    /// here. Only the pipelines of other [`PassKind`]s come later, from the same modules,
    /// with the first plan prepared for each (render targets are kinds too: see the crate
    /// docs, *Pass kinds* and *Render to texture*).
    ///
    /// `budget` is the batcher's ([`layerbatch_core::Batcher::budget`]), made from
    /// [`crate::device_limits`] of this device.
    ///
    /// # Errors
    /// [`Error::EditedBudget`] when `budget` was edited into one core's `Budget::check` refuses (checked
    /// first); [`Error::BudgetAboveDevice`] when the device cannot bind the budget's slots or hold a block
    /// of its instances in one buffer; [`Error::BudgetNotForDevice`] on wgpu's GL backend when
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
        let globals = Globals::new(device, &late, budget.max_lights, budget.ramp())?;
        let groups = BindGroups::new(device, &late, budget.slots, budget.max_lights > 0)?;
        let instances = Instances::new(device, &late, budget)?;
        let motions = Motions::new(device, &late, budget)?;
        let layouts = (globals.layout(), motions.layout());
        let pipelines = Pipelines::new(device, &late, options.pass_kind(target), budget, layouts)?;
        let mips = Mips::new(device, &late, wgpu_format)?;
        let grid_pass = if budget.max_cell_bytes > 0 { Some(GridPass::new(device, &late)?) } else { None };
        // `pipeline_compiles` counts the sprite pipelines (tiers x blend modes), not the mips'.
        let stats = Stats::created(pipelines.per_kind() as u64);
        Ok(Self {
            tag: new_renderer_tag(),
            runner: PlanRunner::new(budget),
            pipelines,
            mips,
            globals,
            arrays: Arrays::new(motions, grid_pass.is_some()),
            groups,
            instances,
            blocks: Vec::new(),
            steps: DrawSteps::default(),
            max_buffer_size: device.limits().max_buffer_size,
            compressed_copies: budget.compressed_copies,
            epoch: 0,
            stats,
            render_draws: AtomicU64::new(0),
            render_group_sets: AtomicU64::new(0),
            late,
            compiles_pending: 0,
            grid_pass,
        })
    }

    /// A new, empty [`PreparedPlan`] of this renderer, for [`Renderer::prepare`] and
    /// [`Renderer::render`] into passes of the kind given to [`Renderer::new`]. Cheap: it holds
    /// no GPU object until its first `prepare`.
    pub fn create_prepared(&self) -> PreparedPlan {
        PreparedPlan::new(self.tag, self.pipelines.first().clone())
    }

    /// A new, empty [`PreparedPlan`] for passes of kind `kind`: another colour format (an HDR
    /// camera), sample count or depth attachment than [`Renderer::new`]'s. The kind's
    /// pipelines are made by the first `prepare` of a plan for it, if no prepared plan of
    /// that kind made them before (counted in that frame's `pipeline_compiles`), and kept.
    ///
    /// ```no_run
    /// # fn f(device: &wgpu::Device, renderer: &mut layerbatch_wgpu::Renderer) {
    /// use layerbatch_wgpu::PassKind;
    /// let sdr = renderer.create_prepared(); // Renderer::new's kind
    /// let hdr = renderer.create_prepared_for(PassKind::new(wgpu::TextureFormat::Rgba16Float));
    /// # }
    /// ```
    pub fn create_prepared_for(&self, kind: PassKind) -> PreparedPlan {
        PreparedPlan::new(self.tag, kind)
    }

    /// Pipelines made per pass kind: one per tier, program
    /// ([`Budget::programs_per_tier`](layerbatch_core::Budget::programs_per_tier)), vertex kind
    /// and blend mode.
    pub fn pipelines_per_kind(&self) -> usize {
        self.pipelines.per_kind()
    }

    /// Makes the pipelines of pass kind `kind` now, unless they are made: what the first
    /// `prepare` of a plan for that kind does, ahead of it (a host that learns of a new camera
    /// can find out before planning whether the device draws into it). Returns how many
    /// pipelines were made; they are counted in the next frame's `pipeline_compiles`.
    ///
    /// # Errors
    /// [`Error::Pipeline`] when the device refuses a pipeline of the kind (a sample count or
    /// format it cannot render): none of the kind is kept, and nothing else changes.
    pub fn make_pass_kind(&mut self, device: &wgpu::Device, kind: &PassKind) -> Result<u64, Error> {
        let made = self.pipelines.ensure(device, &self.late, kind)?;
        self.compiles_pending += made;
        Ok(made)
    }

    /// Pass kinds whose pipelines are made: [`Renderer::new`]'s, each other kind a plan was
    /// prepared for, and each render-target format.
    pub fn pass_kinds(&self) -> usize {
        self.pipelines.pass_kinds()
    }

    /// This renderer's tag, unique in the process: the one its [`PreparedPlan`]s carry
    /// ([`PreparedPlan::renderer_tag`]), named by [`Error::ForeignPrepared`].
    pub fn tag(&self) -> u64 {
        self.tag
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
        self.instances.indexed_quads()
    }

    /// Core's counters of the last plan prepared, and what this renderer issued for it and
    /// since: `device_frame` is the device work of the last [`Renderer::prepare`] (its
    /// `frames` is 1) plus the draws and bind-group sets of every [`Renderer::render`] since,
    /// whichever plans they drew. `bind_group_sets` counts every `set_bind_group`, the
    /// globals group's included (once per render call, and again at each change of draw
    /// state); `bind_group_creates` counts the slot bind groups created (the globals
    /// uniforms' groups, one per space of a [`PreparedPlan`], are not counted: see
    /// [`PreparedPlan::globals_uniforms`]); `texture_binds` counts core's draw walk's slot binds
    /// (each changes the next bind group). `device_total` includes
    /// the pipelines (one per tier and blend mode) created by `new`. A plan that failed on the device is counted with
    /// what it did (arrays created, and every array dropped after the error, as destroyed)
    /// but no frame.
    pub fn stats(&self) -> Stats {
        let mut s = self.stats;
        s.add_device(self.render_counters());
        // Pipelines `make_pass_kind` made since: in the totals now, in the next frame's counters.
        s.device_total.pipeline_compiles += self.compiles_pending;
        s
    }

    fn render_counters(&self) -> DeviceCounters {
        let mut c = DeviceCounters::ZERO;
        c.draw_calls = self.render_draws.load(Ordering::Relaxed);
        c.bind_group_sets = self.render_group_sets.load(Ordering::Relaxed);
        c
    }

    /// Folds the renders since the last `prepare` into the stats, before the next plan's.
    fn fold_renders(&mut self) {
        let mut rendered = DeviceCounters::ZERO;
        rendered.draw_calls = self.render_draws.swap(0, Ordering::Relaxed);
        rendered.bind_group_sets = self.render_group_sets.swap(0, Ordering::Relaxed);
        self.stats.add_device(rendered);
    }

    /// The instances each tile grid draw of the plan `prepared` holds drew, in the plan's
    /// order of grid draws: the counts the GPU's culling pass wrote
    /// ([`layerbatch_core::tilegrid::TileGrid`]; `prepare` submitted that pass). Empty for a
    /// plan without grid draws, and for one drawn into a render target (`prepared` then holds
    /// no plan). For tests and tools, not for a frame: it copies the counts
    /// into a buffer of its own, submits that copy and waits for the device.
    ///
    /// # Errors
    /// [`Error::ForeignPrepared`], or [`Error::Device`] when the copy or the read fails.
    pub fn grid_instances_drawn(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        prepared: &PreparedPlan,
    ) -> Result<Vec<u32>, Error> {
        self.check_mine(prepared)?;
        match prepared.held_grids() {
            Some(space) => grids::read_counts((device, queue), space),
            None => Ok(Vec::new()),
        }
    }

    /// `prepared` was made by this renderer, or [`Error::ForeignPrepared`].
    fn check_mine(&self, prepared: &PreparedPlan) -> Result<(), Error> {
        match prepared.renderer_tag() {
            tag if tag == self.tag => Ok(()),
            made_by => Err(Error::ForeignPrepared { renderer: self.tag, made_by }),
        }
    }

    /// Executes `plan` up to the draws, into `prepared`: checks it with core's validator, then
    /// applies its ops in order, uploads the instances and the globals (viewport size and
    /// transforms) into a space of `prepared` that no pass in flight draws from, and resolves
    /// the bind groups the segments need. GPU copies, the writes after them and motion writes
    /// go into a command buffer of the renderer's own, submitted here (see
    /// [Submission ordering](crate#submission-ordering)). [`Renderer::render`] with `prepared`
    /// then draws this plan, until `prepared` is prepared again.
    ///
    /// `viewport` says where the quads go (pixels, y down): `[u32; 2]` for the whole of a
    /// target of that size (the pass's viewport is left as the host set it, and must be that
    /// size), or [`Viewport::rect`] for an area of the target, which may reach outside it: the
    /// pass's viewport is then set to the visible part, and the quads keep their place (an egui
    /// callback passes its rect in the screen's physical pixels, and the clip rect egui set as
    /// [`Viewport::with_host_clip`]). A plan drawn into a render target
    /// ([`FramePlan::target`]) ignores `viewport`: `prepare` draws it into the whole texture
    /// itself (then regenerates the target layer's mip levels, if its array has any) and
    /// submits it; `render` then draws nothing with `prepared`.
    ///
    /// # Errors
    /// [`Error::ForeignPrepared`] when another renderer made `prepared`: nothing is done, and
    /// `prepared` is left as it was. [`Error::Plan`] when the validator refuses the plan (out
    /// of order, or one that could not run): nothing was applied. [`Error::TooManyStates`]
    /// likewise. [`Error::Device`] when wgpu refuses an operation of a valid plan (out of
    /// memory, a limit the budget did not know): part of the plan may be applied, so the
    /// renderer drops every array it holds and accepts only a rebuild plan next
    /// ([`Batcher::restore`](layerbatch_core::Batcher::restore)). After any of these but the
    /// first, `render` draws nothing with `prepared` until its next successful `prepare`;
    /// other prepared plans still draw theirs.
    ///
    /// On WebGPU, an error the device reported late, for an earlier `prepare` (or `new`), is
    /// returned here before anything else is done: this plan is not applied, the renderer
    /// holds no array and expects a rebuild plan, and no plan prepared before draws any more
    /// (see [Errors instead of panics](crate#errors-instead-of-panics);
    /// [`Renderer::device_errors`] waits for those errors instead).
    pub fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        prepared: &mut PreparedPlan,
        plan: &FramePlan,
        viewport: impl Into<Viewport>,
    ) -> Result<(), Error> {
        self.check_mine(prepared)?;
        self.fold_renders();
        prepared.release();
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
        // A plan for a pass kind not drawn before: its pipelines first, before the validator
        // takes the plan, so that a kind the device refuses leaves the plan unapplied (to be
        // prepared again for another kind). A render-target plan draws with its target
        // format's, made with the array.
        let made = match plan.target {
            None => self.pipelines.ensure(device, &self.late, prepared.pass_kind())?,
            Some(_) => 0,
        };
        self.runner.check(plan)?;

        let mut counters = DeviceCounters::one_frame();
        // With the pipelines made ahead by `make_pass_kind`.
        counters.pipeline_compiles += made + std::mem::take(&mut self.compiles_pending);
        // Into a render target: its whole texture, whatever the host's viewport says.
        let vp = plan.viewport(viewport.into());
        let space = prepared.free_space();
        let result = match self.execute((device, queue), prepared, space, plan, &vp, &mut counters) {
            Ok(own) => self.finish_plan((device, queue), own, plan.target, prepared, (space, vp)),
            Err(e) => Err(e),
        };
        match result {
            Ok(()) => {
                self.stats.record(plan.counters, plan.totals, counters);
                Ok(())
            }
            Err(e) => {
                // Part of the plan may have been applied: hold nothing, so that the next plan,
                // a rebuild, starts from an empty device (the validator now expects one).
                prepared.release();
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
        // No device may be at hand (an error the device reported late): the arrays are dropped
        // here, and the runner counts and forgets them.
        self.arrays.drop_all(&mut self.groups);
        self.runner.forget(&mut counters);
        counters.frames = 0;
        self.stats.device_total.accumulate(&counters);
        self.stats.device_frame = counters;
    }

    /// After an error the device reported late: hold nothing (a rebuild plan is next), and
    /// draw none of the plans prepared so far, which may use what failed.
    fn fail_late(&mut self) {
        self.fail(DeviceCounters::ZERO);
        self.epoch += 1;
    }

    /// Records the plan `prepared` holds into the host's pass, in order, per segment: its
    /// scissor rectangle, its draw state's globals (viewport and transform, at a dynamic
    /// offset), its instance block's vertex buffer, the pipeline of its tier and blend mode and
    /// the slot bind group (each only when it changes: a bind group is set when a segment
    /// rebinds a slot or changes tier) and one draw (with indexed quads, the renderer's quad
    /// index buffer is set once per call). A plan may be drawn in any pass, any number of
    /// times, until `prepared` is prepared again, and each pass draws the plan it was given
    /// even when `prepared` is re-prepared before the host submits it. Like any recorder into
    /// a shared pass, it leaves the pipeline, bind groups, vertex and index buffers it set: a
    /// host drawing after it sets its own again.
    ///
    /// Draws nothing (and is `Ok`) when `prepared` was never prepared, when its last
    /// `prepare` failed, and when that plan was drawn into a render target by `prepare`.
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
    /// # Errors
    /// [`Error::ForeignPrepared`] when another renderer made `prepared`: nothing is drawn.
    pub fn render(&self, prepared: &PreparedPlan, pass: &mut wgpu::RenderPass<'_>) -> Result<(), Error> {
        self.check_mine(prepared)?;
        let Some((drawn, space)) = prepared.drawn(self.epoch) else { return Ok(()) };
        let Some(pipelines) = self.pipelines.for_kind(prepared.pass_kind()) else { return Ok(()) };
        let (draws, sets) = draws::record(pass, drawn, With { pipelines, indices: self.instances.indices() });
        if draws > 0 {
            // The pass reads the space until the GPU has run it: `prepare` writes elsewhere
            // meanwhile. wgpu calls the closure after that, or drops it with the pass's
            // encoder if that is never submitted.
            if let Some(done) = prepared.in_flight(space) {
                pass.on_submitted_work_done(done);
            }
        }
        self.render_draws.fetch_add(draws, Ordering::Relaxed);
        self.render_group_sets.fetch_add(sets, Ordering::Relaxed);
        Ok(())
    }

    /// A view of `layer` of render-target array `array` (level 0), to draw into in a pass of
    /// the host's own, e.g. to add its own drawing to a target layerbatch rendered. The array
    /// and layer of a [`Usage::RenderTarget`](layerbatch_core::Usage::RenderTarget) texture
    /// come from [`Batcher::placement`](layerbatch_core::Batcher::placement). `None` when the
    /// renderer holds no such render-target array or layer.
    pub fn target_view(&self, array: ArrayId, layer: u32) -> Option<wgpu::TextureView> {
        self.arrays.target_view(array, layer)
    }

    /// Applies `plan`'s ops through the runner, uploads its instances and globals into
    /// `space` of `prepared` and resolves its draws there. Returns the renderer's encoder if
    /// anything was recorded into it.
    fn execute(
        &mut self,
        (device, queue): (&wgpu::Device, &wgpu::Queue),
        prepared: &mut PreparedPlan,
        space: usize,
        plan: &FramePlan,
        vp: &Viewport,
        counters: &mut DeviceCounters,
    ) -> Result<Option<wgpu::CommandEncoder>, Error> {
        self.groups.begin_plan();
        let mut ops = ArrayOps::new(
            (device, queue, &self.late),
            plan,
            (self.max_buffer_size, self.compressed_copies),
            &mut self.arrays,
            &mut self.groups,
            &mut self.pipelines,
            self.globals.ramp(),
        );
        let applied = self.runner.apply_ops(plan, &mut ops, counters);
        counters.pipeline_compiles += ops.pipeline_compiles();
        applied?;
        let own = ops.finish()?;

        // Core's draw walk: what to upload and draw. Its draws are counted by `render`, which
        // issues them (a prepared plan may be rendered any number of times).
        let mut walked = DeviceCounters::ZERO;
        self.steps.walk(plan, vp, self.instances.indexed_quads(), &mut walked);
        counters.texture_binds += walked.texture_binds;
        counters.instance_bytes_written += walked.instance_bytes_written;
        counters.segments_clipped_away += walked.segments_clipped_away;
        counters.draw_steps += walked.draw_steps;

        let late = &self.late;
        let (space, list, peak) = prepared.parts(space).ok_or_else(no_space)?;
        let blocks = &mut self.blocks;
        self.instances.upload((device, queue, late), plan, &self.steps, (&mut space.buffers, peak), blocks)?;
        // A space's globals group is made once, with the space: `bind_group_creates` counts the
        // slot groups (the cache's work, as core's mock device does), not these.
        self.globals.write((device, queue, late), &mut space.globals, plan, vp)?;
        let mut own = own;
        if let (Some(pass), Some(uniform)) = (&self.grid_pass, &space.globals) {
            let with = (pass, &self.globals, uniform);
            grids::prepare((device, queue, late), with, &mut space.grids, plan, &self.arrays, &mut own)?;
        }
        let parts = Parts {
            device,
            late,
            pipelines: &self.pipelines,
            arrays: &self.arrays,
            globals: &self.globals,
            groups: &mut self.groups,
            grids: &space.grids,
        };
        counters.bind_group_creates += draws::translate(parts, plan, &self.steps, blocks, vp, list)?;
        self.groups.trim();
        // `prepare` regenerates the target layer's levels above 0 after the draws.
        self.runner.count_target_mips(plan, counters);
        Ok(own)
    }

    /// Ends a plan's `prepare` after its ops, instances and globals: a plan for the host's
    /// passes is held by `prepared` for [`Renderer::render`]; a plan into a render target is
    /// drawn there, in a pass of the renderer's own encoder (cleared first if the plan asks),
    /// its mip levels regenerated. Then that encoder is submitted if anything was recorded
    /// into it: the plan's GPU copies, staged writes and render-target draws run whether or
    /// not the host ever submits its own encoder.
    ///
    /// The space of a render-target plan is not marked in flight: its pass is submitted here,
    /// and wgpu runs the queue writes of a later `prepare` after the work submitted before it.
    fn finish_plan(
        &mut self,
        (device, queue): (&wgpu::Device, &wgpu::Queue),
        mut own: Option<wgpu::CommandEncoder>,
        target: Option<PlanTarget>,
        prepared: &mut PreparedPlan,
        (space, vp): (usize, Viewport),
    ) -> Result<(), Error> {
        match target {
            Some(t) => {
                let drawn = prepared.drawn_from(space, &vp).ok_or_else(no_space)?;
                self.draw_into_target(device, &mut own, t, drawn)?;
                prepared.release();
            }
            None => prepared.hold(space, vp, self.epoch),
        }
        if let Some(encoder) = own {
            self.arrays.motions.close(&encoder);
            checked(
                device,
                &self.late,
                || "submitting the plan's copies, staged writes and render-target draws".to_string(),
                || {
                    queue.submit([encoder.finish()]);
                },
            )?;
        }
        Ok(())
    }

    /// Draws a render-target plan into its target, then regenerates the target layer's mip
    /// levels (if its array has any) from the level 0 just drawn.
    fn draw_into_target(
        &self,
        device: &wgpu::Device,
        own: &mut Option<wgpu::CommandEncoder>,
        t: PlanTarget,
        drawn: Drawn<'_>,
    ) -> Result<(), Error> {
        let view = self.arrays.target_view(t.array, t.layer).ok_or_else(|| out_of_step(t.array))?;
        let array = self.arrays.get(t.array).ok_or_else(|| out_of_step(t.array))?;
        let format = wgpu_format(array.desc.format);
        let pipelines = self.pipelines.for_kind(&PassKind::new(format)).ok_or_else(|| Error::Device {
            op: format!("drawing into render target array {:?}", t.array),
            message: format!("the renderer has no pipelines for {format:?} (renderer and validator out of step)"),
        })?;
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
                let (draws, sets) =
                    draws::record(&mut pass, drawn, With { pipelines, indices: self.instances.indices() });
                self.render_draws.fetch_add(draws, Ordering::Relaxed);
                self.render_group_sets.fetch_add(sets, Ordering::Relaxed);
                drop(pass);
                self.mips.regenerate(device, encoder, &array.texture, array.desc.format, t.layer);
            },
        )
    }
}

/// A space `free_space` gave is missing: a bug, reported instead of a panic.
fn no_space() -> Error {
    Error::Device {
        op: "preparing a plan into its space".to_string(),
        message: "the PreparedPlan lost the space it was given".to_string(),
    }
}
