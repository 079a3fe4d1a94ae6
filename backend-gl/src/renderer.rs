//! The renderer: executes frame plans on the host's GL context.
#![allow(unsafe_code)]

use std::collections::HashMap;
use std::sync::Arc;

use glow::HasContext;

use layerbatch_core::{
    flip_y, mip_size, ArrayDesc, ArrayId, ArrayOp, BlendFactor, BlendMode, Budget, Clip, DeviceCounters, Filter,
    Format, FramePlan, Instance, Limits, PlanError, PlanValidator, ResourceOp, Segment, Stats, Viewport, Wrap,
};

use layerbatch_core::plan::{expand_quads, quad_indices};

use crate::error::Error;
use crate::fixed::StateCaps;
use crate::host::HostGl;
use crate::program::{self, TierProgram};
use crate::shader::attr;
use crate::state::{Needs, Saved};
use crate::target::Target;

// Child modules: more of `Renderer`'s methods.
mod mips;

/// At most this many errors the host left pending are drained at the start of a paint: a lost
/// context may report `GL_CONTEXT_LOST` forever.
const MAX_PENDING_ERRORS: usize = 16;

/// What the context offers that the renderer can use, detected once at creation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capabilities {
    /// An OpenGL ES context: shaders are `#version 300 es`. Otherwise `#version 330 core`.
    pub gles: bool,
    /// `glCopyImageSubData` (GL 4.3, GLES 3.2, `GL_ARB_copy_image`): array growth, shrinking
    /// and rectangle copies use it. Otherwise each layer and level (or rectangle) is blitted
    /// between two framebuffers.
    pub copy_image: bool,
    /// `glTexStorage3D` (GL 4.2, GLES 3.0, `GL_ARB_texture_storage`): arrays get immutable
    /// storage. Otherwise `glTexImage3D` per level.
    pub texture_storage: bool,
    /// Texture units a program may use: the fewest of `MAX_TEXTURE_IMAGE_UNITS`,
    /// `MAX_VERTEX_TEXTURE_IMAGE_UNITS` and half of `MAX_COMBINED_TEXTURE_IMAGE_UNITS` (both
    /// stages use every slot's sampler).
    pub max_texture_units: u32,
}

/// [`Capabilities::max_texture_units`] of the current context.
fn usable_texture_units(gl: &glow::Context) -> u32 {
    // SAFETY: plain integer queries on the current context.
    let [fragment, vertex, combined] =
        [glow::MAX_TEXTURE_IMAGE_UNITS, glow::MAX_VERTEX_TEXTURE_IMAGE_UNITS, glow::MAX_COMBINED_TEXTURE_IMAGE_UNITS]
            .map(|p| unsafe { gl.get_parameter_i32(p) }.max(0) as u32);
    fragment.min(vertex).min(combined / 2)
}

impl Capabilities {
    /// Reads the capabilities of the current context: `gl` must be current on the calling
    /// thread ([current context](Renderer#current-context)).
    pub fn detect(gl: &glow::Context) -> Self {
        let v = gl.version();
        let ext = gl.supported_extensions();
        let at_least = |major: u32, minor: u32| (v.major, v.minor) >= (major, minor);
        let units = usable_texture_units(gl);
        Self {
            gles: v.is_embedded,
            copy_image: if v.is_embedded {
                at_least(3, 2)
            } else {
                at_least(4, 3) || ext.contains("GL_ARB_copy_image")
            },
            texture_storage: v.is_embedded || at_least(4, 2) || ext.contains("GL_ARB_texture_storage"),
            max_texture_units: units,
        }
    }
}

/// How GPU copies (array growth and shrinking, rectangle copies) run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyPath {
    /// `glCopyImageSubData`: all layers of a level in one call, or one call per rectangle.
    CopyImage,
    /// `glFramebufferTextureLayer` + `glBlitFramebuffer`, per layer and level (a rectangle:
    /// the source layer attached for reading, the destination layer for drawing).
    Blit,
}

/// One GPU copy between two arrays (or two layers of one): `size` = `[width, height, layers]`
/// texels of `level`, from `from` = `[x, y, first layer]` to `to`.
#[derive(Clone, Copy, Debug)]
struct Region {
    level: u32,
    from: [u32; 3],
    to: [u32; 3],
    size: [u32; 3],
}

#[derive(Debug)]
struct GpuArray {
    texture: glow::Texture,
    desc: ArrayDesc,
    /// The framebuffer drawing into a layer of a render-target array, made on first use.
    target_fbo: Option<(u32, glow::Framebuffer)>,
}

/// Executes [`FramePlan`]s on the host's GL context: one program per slot tier, texture
/// arrays, one streamed instance buffer. See the crate docs for the GL state it touches.
///
/// # Current context
///
/// `Send + Sync` (natively), so that a host can keep it where its GL runs (an egui paint
/// callback, another thread). Every method that issues GL ([`Renderer::new`],
/// [`Renderer::with_capabilities`], [`Renderer::paint`], [`Renderer::destroy`], and
/// [`Renderer::query_limits`] on the context it is given) needs that context current on the
/// calling thread, which Rust does not check; every `&self` method and `Drop` issue none. See
/// [Threads and the current context](crate#threads-and-the-current-context).
pub struct Renderer {
    gl: Arc<glow::Context>,
    /// Reads and restores the host's object bindings (through the raw WebGL2 context in a
    /// browser, where glow's getters panic).
    host: HostGl,
    caps: Capabilities,
    /// The optional state the paint saves, sets and restores.
    state_caps: StateCaps,
    programs: Vec<TierProgram>,
    vao: glow::VertexArray,
    /// Vertices: each instance once per corner, streamed per block.
    vbo: glow::Buffer,
    /// With indexed quads, the indices of `instance_capacity` quads (`quad_indices`),
    /// uploaded once; part of `vao`. Empty with instanced quads.
    ebo: glow::Buffer,
    /// `Budget::indexed_quads`: each instance once per corner and `glDrawElements`, rather
    /// than instanced `glDrawArraysInstanced`.
    indexed: bool,
    /// Scratch: the current block's vertices (`expand_quads`), kept frame to frame.
    vertices: Vec<Instance>,
    arrays: HashMap<ArrayId, GpuArray>,
    copy_fbos: Option<[glow::Framebuffer; 2]>,
    /// The one plan check every executor runs; its state mirrors `arrays`.
    validator: PlanValidator,
    stats: Stats,
    /// Scratch: the array bound on each unit during the current paint.
    frame_bound: Vec<Option<ArrayId>>,
    /// Scratch: textures deleted during the current paint.
    deleted: Vec<glow::Texture>,
    /// The tier of the program each draw of the last paint used.
    drawn_tiers: Vec<u32>,
    destroyed: bool,
}

impl std::fmt::Debug for Renderer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Renderer")
            .field("caps", &self.caps)
            .field("tiers", &self.tiers())
            .field("arrays", &self.arrays.len())
            .field("last_plan", &self.validator.last_sequence())
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl Renderer {
    /// Reads the device limits core needs, once: texture units (the fewest of
    /// `MAX_TEXTURE_IMAGE_UNITS`, `MAX_VERTEX_TEXTURE_IMAGE_UNITS` and half of
    /// `MAX_COMBINED_TEXTURE_IMAGE_UNITS`: both stages of a program use every slot's sampler),
    /// `MAX_ARRAY_TEXTURE_LAYERS`, `MAX_TEXTURE_SIZE`. GL has no buffer size limit, but glow
    /// takes buffer sizes and attribute offsets as `i32`: `max_buffer_bytes` is `i32::MAX`,
    /// less on GLES and WebGL2 where `MAX_ELEMENT_INDEX` indexes fewer than that many bytes of
    /// quad vertices. Logs the GL version, renderer and these limits at `debug!`.
    ///
    /// `gl` must be current on the calling thread ([current context](Renderer#current-context)).
    pub fn query_limits(gl: &glow::Context) -> Limits {
        // SAFETY: integer and string queries on the current context.
        let (units, vertex_units, combined_units, layers, size, version, renderer, glsl) = unsafe {
            (
                gl.get_parameter_i32(glow::MAX_TEXTURE_IMAGE_UNITS).max(0) as u32,
                gl.get_parameter_i32(glow::MAX_VERTEX_TEXTURE_IMAGE_UNITS).max(0) as u32,
                gl.get_parameter_i32(glow::MAX_COMBINED_TEXTURE_IMAGE_UNITS).max(0) as u32,
                gl.get_parameter_i32(glow::MAX_ARRAY_TEXTURE_LAYERS).max(0) as u32,
                gl.get_parameter_i32(glow::MAX_TEXTURE_SIZE).max(0) as u32,
                gl.get_parameter_string(glow::VERSION),
                // In a browser RENDERER is masked; glow enables WEBGL_debug_renderer_info
                // where the browser has it, and its unmasked string names the rasterizer.
                if gl.supported_extensions().contains("WEBGL_debug_renderer_info") {
                    gl.get_parameter_string(UNMASKED_RENDERER_WEBGL)
                } else {
                    gl.get_parameter_string(glow::RENDERER)
                },
                gl.get_parameter_string(glow::SHADING_LANGUAGE_VERSION),
            )
        };
        let software = is_software_renderer(&renderer);
        log::debug!(
            "layerbatch-gl: {version} ({renderer}), GLSL {glsl}; MAX_TEXTURE_IMAGE_UNITS {units}, \
             MAX_VERTEX_TEXTURE_IMAGE_UNITS {vertex_units}, MAX_COMBINED_TEXTURE_IMAGE_UNITS {combined_units}, \
             MAX_ARRAY_TEXTURE_LAYERS {layers}, MAX_TEXTURE_SIZE {size}; software rasterizer {software}"
        );
        let units = usable_texture_units(gl);
        // glow takes buffer sizes and attribute offsets as `i32`. GLES and WebGL2 may index
        // fewer vertices than `u32` holds (`MAX_ELEMENT_INDEX`, at least 2^24 - 1): a block's
        // quads stay within it. Desktop GL before 4.3 has no such query, and no such limit.
        let quads = if gl.version().is_embedded {
            // SAFETY: an integer query on the current context (GLES 3.0, WebGL2).
            let v = unsafe { gl.get_parameter_i32(glow::MAX_ELEMENT_INDEX) };
            // Past i32::MAX a driver may clamp or wrap: either means "all of u32".
            let max_index = if v < 0 { u32::MAX } else { (v as u32).max((1 << 24) - 1) };
            (u64::from(max_index) + 1) / u64::from(Instance::VERTICES)
        } else {
            u64::MAX
        };
        let max_buffer_bytes = (i32::MAX as u64).min(quads.saturating_mul(u64::from(Instance::QUAD_BYTES)));
        Limits::new(units, layers, size).with_max_buffer_bytes(max_buffer_bytes).with_software_rasterizer(software)
    }

    /// Creates the renderer for `budget` (from [`layerbatch_core::Batcher::budget`]): compiles
    /// and links one program per tier in `budget.tiers`, now and never again, and creates its
    /// vertex array and instance buffer. The host's program, vertex array and array buffer
    /// bindings are restored before returning. `gl` must be current on the calling thread, and
    /// stays the renderer's context ([current context](Renderer#current-context)).
    ///
    /// # Errors
    /// [`Error::EditedBudget`] for a budget edited into one no executor can honour (core's
    /// [`Budget::check`]; checked before any GL call), [`Error::Shader`] with the stage and
    /// info log if any tier fails to compile or link (every object made so far is deleted),
    /// [`Error::SlotsAboveDevice`] for a budget from another device, [`Error::CreateObject`]
    /// if the driver refuses an object.
    pub fn new(gl: Arc<glow::Context>, budget: &Budget) -> Result<Self, Error> {
        let caps = Capabilities::detect(&gl);
        Self::with_capabilities(gl, budget, caps)
    }

    /// [`Renderer::new`] using at most the capabilities in `caps`: a capability the context
    /// lacks stays off whatever `caps` says, and `gles` and `max_texture_units` are always the
    /// context's. Turning one off forces the fallback path (e.g. `copy_image: false` grows
    /// arrays by framebuffer blits), which is how tests cover the paths of older contexts.
    ///
    /// # Errors
    /// As [`Renderer::new`].
    pub fn with_capabilities(gl: Arc<glow::Context>, budget: &Budget, caps: Capabilities) -> Result<Self, Error> {
        budget.check().map_err(|e| Error::edited_budget(budget, &e))?;
        let detected = Capabilities::detect(&gl);
        let caps = Capabilities {
            gles: detected.gles,
            copy_image: caps.copy_image && detected.copy_image,
            texture_storage: caps.texture_storage && detected.texture_storage,
            max_texture_units: detected.max_texture_units,
        };
        let state_caps = StateCaps::detect(&gl);
        if budget.slots > caps.max_texture_units {
            return Err(Error::SlotsAboveDevice { slots: budget.slots, units: caps.max_texture_units });
        }
        // SAFETY: queries and object creation on the current context; every object created
        // here is deleted on the error paths, and the bindings changed are restored.
        unsafe {
            let host = HostGl::new(&gl);
            let prev_program = host.program(&gl);
            let prev_vao = host.vertex_array(&gl);
            let prev_buffer = host.buffer(&gl, glow::ARRAY_BUFFER_BINDING);
            let restore = |gl: &glow::Context| {
                host.use_program(gl, &prev_program);
                host.bind_vertex_array(gl, &prev_vao);
                host.bind_buffer(gl, glow::ARRAY_BUFFER, &prev_buffer);
            };
            let mut programs: Vec<TierProgram> = Vec::with_capacity(budget.tiers.len());
            for &tier in &budget.tiers {
                match program::build_tier(&gl, tier, caps.gles) {
                    Ok(p) => programs.push(p),
                    Err(e) => {
                        restore(&gl);
                        for p in programs {
                            gl.delete_program(p.program);
                        }
                        return Err(e);
                    }
                }
            }
            let objects = gl
                .create_vertex_array()
                .map_err(|message| Error::CreateObject { object: "vertex array", message })
                .and_then(|vao| match gl.create_buffer() {
                    Ok(vbo) => Ok((vao, vbo)),
                    Err(message) => {
                        gl.delete_vertex_array(vao);
                        Err(Error::CreateObject { object: "buffer", message })
                    }
                })
                .and_then(|(vao, vbo)| match gl.create_buffer() {
                    Ok(ebo) => Ok((vao, vbo, ebo)),
                    Err(message) => {
                        gl.delete_vertex_array(vao);
                        gl.delete_buffer(vbo);
                        Err(Error::CreateObject { object: "buffer", message })
                    }
                });
            let (vao, vbo, ebo) = match objects {
                Ok(o) => o,
                Err(e) => {
                    restore(&gl);
                    for p in programs {
                        gl.delete_program(p.program);
                    }
                    return Err(e);
                }
            };
            gl.bind_vertex_array(Some(vao));
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(vbo));
            let capacity_bytes = budget.instance_capacity as usize * budget.quad_bytes() as usize;
            gl.buffer_data_size(glow::ARRAY_BUFFER, capacity_bytes.min(i32::MAX as usize) as i32, glow::STREAM_DRAW);
            if budget.indexed_quads {
                // The element binding is state of our vertex array: the host's is not touched.
                let indices: Vec<u32> = quad_indices(budget.instance_capacity).collect();
                gl.bind_buffer(glow::ELEMENT_ARRAY_BUFFER, Some(ebo));
                gl.buffer_data_u8_slice(glow::ELEMENT_ARRAY_BUFFER, bytemuck::cast_slice(&indices), glow::STATIC_DRAW);
            }
            for a in 0..attr::COUNT {
                gl.enable_vertex_attrib_array(a);
                // Instanced quads: one instance per quad; indexed: one per vertex.
                gl.vertex_attrib_divisor(a, u32::from(!budget.indexed_quads));
            }
            restore(&gl);
            let links = programs.len() as u64;
            log::debug!(
                "layerbatch-gl: {} programs linked (tiers {:?}), {} shaders, copy path {:?}, texStorage3D {}",
                links,
                budget.tiers,
                if caps.gles { "GLSL ES 3.00" } else { "GLSL 3.30" },
                if caps.copy_image { CopyPath::CopyImage } else { CopyPath::Blit },
                caps.texture_storage,
            );
            let stats = Stats::created(links);
            Ok(Self {
                gl,
                host,
                caps,
                state_caps,
                programs,
                vao,
                vbo,
                ebo,
                indexed: budget.indexed_quads,
                vertices: Vec::new(),
                arrays: HashMap::new(),
                copy_fbos: None,
                validator: PlanValidator::new(budget),
                stats,
                frame_bound: vec![None; budget.slots as usize],
                deleted: Vec::new(),
                drawn_tiers: Vec::new(),
                destroyed: false,
            })
        }
    }

    /// The capabilities in use.
    pub fn capabilities(&self) -> Capabilities {
        self.caps
    }

    /// How GPU copies run (growth, shrinking, rectangle copies).
    pub fn copy_path(&self) -> CopyPath {
        if self.caps.copy_image {
            CopyPath::CopyImage
        } else {
            CopyPath::Blit
        }
    }

    /// Whether paints put back the host's object bindings (program, vertex array, buffers,
    /// textures, samplers, framebuffers) as found. Always `true` natively. In a browser it is
    /// `true` when the renderer reached the WebGL2 context behind the glow context at
    /// creation (see [In a browser](crate#in-a-browser)); when `false`, those bindings are
    /// left unbound after a paint, and everything else is still restored.
    pub fn restores_host_bindings(&self) -> bool {
        self.host.reads_bindings()
    }

    /// The slot tiers there is a program for, ascending.
    pub fn tiers(&self) -> Vec<u32> {
        self.programs.iter().map(|p| p.tier).collect()
    }

    /// The GL texture (`TEXTURE_2D_ARRAY`) of a live array, e.g. to render into the array of
    /// a [`layerbatch_core::Usage::RenderTarget`] texture (its placement names the array).
    pub fn array_texture(&self, array: ArrayId) -> Option<glow::Texture> {
        self.arrays.get(&array).map(|a| a.texture)
    }

    /// Arrays alive on the device.
    pub fn array_count(&self) -> usize {
        self.arrays.len()
    }

    /// Whether quads are drawn indexed (each instance written once per corner,
    /// `glDrawElements`) rather than instanced: the budget's `indexed_quads`
    /// ([`layerbatch_core::QuadVertices`]).
    pub fn indexed_quads(&self) -> bool {
        self.indexed
    }

    /// The slot tier of the program each draw call of the last paint used, in order (for
    /// tests: it mirrors the plan's segments).
    #[doc(hidden)]
    pub fn last_drawn_tiers(&self) -> &[u32] {
        &self.drawn_tiers
    }

    /// Core's counters of the last plan painted and what this renderer issued for it, plus
    /// both since creation (`device_total.pipeline_compiles` counts the programs linked at
    /// creation).
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// Executes `plan` into `target`: checks it, applies its resource ops in order (array
    /// creation, growth and shrinking by GPU copy, rectangle copies between layers and arrays,
    /// destruction, layer writes), then draws its segments in order, each with the program of
    /// its tier, after binding the arrays its slot table names. Every plan the batcher
    /// finishes must be painted, once, in order.
    ///
    /// The plan is checked first with the [`PlanValidator`] every executor uses, before any GL
    /// call. Then errors the host left pending are drained (`glGetError` until `NO_ERROR`, at
    /// most 16, logged at `debug!`), so that a GL error after one of the renderer's own calls
    /// is the renderer's. A rebuild plan ([`FramePlan::rebuild`]) first deletes every array the
    /// renderer holds.
    ///
    /// The GL state changed is listed in the crate docs; it is restored before returning,
    /// on errors too. After the draws into a render target with mip levels, levels `1..` of
    /// its array are regenerated from level 0 (`glGenerateMipmap`).
    ///
    /// The renderer's context must be current on the calling thread
    /// ([current context](Renderer#current-context)).
    ///
    /// # Errors
    /// - [`Error::Plan`] with the validator's [`PlanError`] for a plan that cannot run (out of
    ///   order, or naming what the device does not hold): nothing was done, the renderer is
    ///   unchanged, and a later good plan paints normally.
    /// - [`Error::Gl`] when GL reports an error after an array creation, GPU copy (growth,
    ///   shrink, rectangle copy) or layer write (and, in debug builds, after a draw), or
    ///   [`Error::CreateObject`] / [`Error::IncompleteFramebuffer`]. The renderer then holds
    ///   no array any more and expects a rebuild plan: call
    ///   [`layerbatch_core::Batcher::restore`] and re-upload the textures it lists (any other
    ///   plan gets [`PlanError::NeedsRebuild`]).
    pub fn paint(&mut self, plan: &FramePlan, target: &Target) -> Result<(), Error> {
        self.validator.check(plan)?;
        self.drain_host_errors();
        // Into a render target: its whole texture, whatever the host's target says.
        let mut viewport = plan.viewport(target.viewport());
        let into_texture = plan.target.is_some();
        let clear = plan.target.and_then(|t| t.clear_rgba);
        let draw = (!plan.segments.is_empty() || clear.is_some()) && viewport.visible_px().is_some();
        let mut needs = Needs {
            draw,
            draw_framebuffer: draw && (target.framebuffer.is_some() || into_texture),
            clear: draw && clear.is_some(),
            ..Needs::default()
        };
        for op in &plan.ops {
            match op {
                ResourceOp::WriteLayer { .. } => {
                    needs.upload = true;
                    needs.units = needs.units.max(1);
                }
                ResourceOp::Array(a) => {
                    // Creating an array binds it on unit 0; copies without copy-image blit.
                    if matches!(a, ArrayOp::Create { .. } | ArrayOp::Grow { .. } | ArrayOp::Shrink { .. }) {
                        needs.units = needs.units.max(1);
                    }
                    needs.blit |= a.is_gpu_copy() && !self.caps.copy_image;
                }
            }
        }
        if plan.target.is_some() {
            // Regenerating a target's mip levels binds its array on unit 0.
            needs.units = needs.units.max(1);
        }
        if draw {
            needs.units = needs.units.max(plan.segments.iter().map(|s| s.tier).max().unwrap_or(1));
            needs.scissor = plan.states.iter().any(|s| s.clip_px.is_some());
        }
        let mut saved = Saved::capture_and_prepare(&self.gl, &self.host, needs, &self.state_caps);
        let mut c = DeviceCounters::one_frame();
        self.deleted.clear();
        self.drawn_tiers.clear();
        if plan.rebuild {
            self.drop_arrays(&mut c);
        }
        let mut result = self.apply_ops(plan, &mut c);
        if result.is_ok() && draw {
            // The host's clip applies to its framebuffer, never to a render target.
            if target.keep_host_clip && !into_texture {
                saved.reenable_host_clip(&self.gl);
                let h = viewport.target_size_px[1];
                viewport = viewport.with_host_clip(saved.host_scissor().map(|b| y_down(b, h)));
            }
            result = self.draw(plan, target, &viewport, &mut saved, &mut c);
        }
        if result.is_ok() {
            result = self.regenerate_target_mips(plan, &mut c);
        }
        if result.is_err() {
            // What the device holds is unknown now: hold nothing, so that only a rebuild plan
            // (or a fresh batcher's first) is accepted next, and it re-creates every array.
            self.drop_arrays(&mut c);
            self.validator.reset();
        }
        saved.restore(&self.gl, &self.host, &self.state_caps, &self.deleted);
        self.stats.record(plan, c);
        result
    }

    /// Drops the renderer of a context that is gone (lost, or already destroyed by the host)
    /// without a GL call: its objects died with the context. Then make a renderer on the new
    /// context and call [`layerbatch_core::Batcher::restore`]; its next plan rebuilds every
    /// array there, with every `TextureId` unchanged.
    pub fn abandon(mut self) {
        self.destroyed = true;
    }

    /// Deletes every GL object the renderer made (programs, vertex array, buffer, arrays,
    /// copy framebuffers). The renderer's context must be current on the calling thread
    /// ([current context](Renderer#current-context)).
    pub fn destroy(mut self) {
        let gl = &self.gl;
        // SAFETY: every handle below was created by this renderer on this context and is
        // deleted exactly once (the renderer is consumed).
        unsafe {
            for p in self.programs.drain(..) {
                gl.delete_program(p.program);
            }
            for (_, a) in self.arrays.drain() {
                if let Some((_, fbo)) = a.target_fbo {
                    gl.delete_framebuffer(fbo);
                }
                gl.delete_texture(a.texture);
            }
            if let Some(fbos) = self.copy_fbos.take() {
                for f in fbos {
                    gl.delete_framebuffer(f);
                }
            }
            gl.delete_vertex_array(self.vao);
            gl.delete_buffer(self.vbo);
            gl.delete_buffer(self.ebo);
        }
        self.destroyed = true;
    }

    /// Reads and logs the errors the host left pending, so that `glGetError` after the
    /// renderer's own calls reports only those.
    fn drain_host_errors(&self) {
        for _ in 0..MAX_PENDING_ERRORS {
            // SAFETY: a plain error query on the current context.
            let code = unsafe { self.gl.get_error() };
            if code == glow::NO_ERROR {
                return;
            }
            log::debug!(
                "layerbatch-gl: GL error {code:#06x} ({}) was pending before paint; ignored",
                crate::error::gl_error_name(code)
            );
        }
    }

    /// `Err(Error::Gl)` naming the op if GL reports an error now. `op` is only called then.
    fn check_gl(&self, op: impl FnOnce() -> String) -> Result<(), Error> {
        // SAFETY: a plain error query on the current context.
        let code = unsafe { self.gl.get_error() };
        if code == glow::NO_ERROR {
            Ok(())
        } else {
            Err(Error::Gl { op: op(), code })
        }
    }

    /// The array `id`, named by op or segment `at`. The validator accepted the plan against
    /// the state `arrays` mirrors, so this finds it; a miss would be a renderer bug, reported
    /// as the error the validator gives for an unknown array rather than a panic.
    fn array(&self, at: usize, id: ArrayId) -> Result<&GpuArray, Error> {
        self.arrays.get(&id).ok_or(Error::Plan(PlanError::UnknownArray { at, array: id }))
    }

    fn apply_ops(&mut self, plan: &FramePlan, c: &mut DeviceCounters) -> Result<(), Error> {
        for (i, op) in plan.ops.iter().enumerate() {
            match op {
                ResourceOp::Array(ArrayOp::Create { array, desc }) => {
                    self.create_array(*array, *desc)?;
                    c.arrays_created += 1;
                }
                ResourceOp::Array(
                    op @ (ArrayOp::Grow { from, to, desc, copy_layers }
                    | ArrayOp::Shrink { from, to, desc, copy_layers }),
                ) => {
                    let old = self.array(i, *from)?;
                    let (old_texture, old_desc) = (old.texture, old.desc);
                    self.create_array(*to, *desc)?;
                    c.arrays_created += 1;
                    let new = self.array(i, *to)?.texture;
                    // Each layer is copied as the old array's width x height, every level, to
                    // the origin: a growth may enlarge the layers, and texel coordinates stay.
                    let layers = *copy_layers;
                    let copies = (0..old_desc.mip_levels).map(|level| {
                        let (w, h) = mip_size(old_desc.width_px, old_desc.height_px, level);
                        Region { level, from: [0, 0, 0], to: [0, 0, 0], size: [w, h, layers] }
                    });
                    self.gpu_copy(old_texture, new, old_desc.format, copies)?;
                    let verb = if matches!(op, ArrayOp::Grow { .. }) { "grow" } else { "shrink" };
                    self.check_gl(|| {
                        let (w, h, n) = (desc.width_px, desc.height_px, desc.layers);
                        format!("{verb} array {} into {} ({w}x{h}, {n} layers; copy {layers} layers)", from.0, to.0)
                    })?;
                    c.layers_copied += u64::from(layers);
                    self.delete_array(*from);
                    c.arrays_destroyed += 1;
                }
                ResourceOp::Array(ArrayOp::CopyRect { from, from_layer, from_xy, to, to_layer, to_xy, size }) => {
                    let src = self.array(i, *from)?;
                    let (src_texture, format) = (src.texture, src.desc.format);
                    let dst_texture = self.array(i, *to)?.texture;
                    let region = Region {
                        level: 0,
                        from: [from_xy[0], from_xy[1], *from_layer],
                        to: [to_xy[0], to_xy[1], *to_layer],
                        size: [size[0], size[1], 1],
                    };
                    self.gpu_copy(src_texture, dst_texture, format, std::iter::once(region))?;
                    self.check_gl(|| {
                        let ([fx, fy], [tx, ty], [w, h]) = (from_xy, to_xy, size);
                        format!(
                            "copy rect {w}x{h} from layer {from_layer} of array {} at {fx}, {fy} to layer {to_layer} \
                             of array {} at {tx}, {ty}",
                            from.0, to.0
                        )
                    })?;
                    c.layers_copied += 1;
                }
                ResourceOp::Array(ArrayOp::Destroy { array }) => {
                    self.delete_array(*array);
                    c.arrays_destroyed += 1;
                }
                ResourceOp::WriteLayer { array, layer, x_px, y_px, width_px, height_px, .. } => {
                    let a = self.array(i, *array)?;
                    let (texture, bytes_per_pixel) = (a.texture, a.desc.format.bytes_per_pixel());
                    let (_, format, ty) = gl_format(a.desc.format);
                    let gl = &self.gl;
                    // SAFETY: the texture is live; the validator checked the rectangle lies in
                    // the layer and the byte range is exactly the levels' size, so each level's
                    // slice holds its `width * height * bytes_per_pixel` bytes; unpack state is
                    // tightly packed rows from client memory (set by `Saved`).
                    unsafe {
                        gl.bind_texture(glow::TEXTURE_2D_ARRAY, Some(texture));
                        for level in op.levels(bytes_per_pixel) {
                            gl.tex_sub_image_3d(
                                glow::TEXTURE_2D_ARRAY,
                                level.level as i32,
                                level.x_px as i32,
                                level.y_px as i32,
                                *layer as i32,
                                level.width_px as i32,
                                level.height_px as i32,
                                1,
                                format,
                                ty,
                                glow::PixelUnpackData::Slice(Some(&plan.upload_bytes[level.bytes])),
                            );
                        }
                    }
                    self.check_gl(|| {
                        format!("write layer {layer} of array {} ({width_px}x{height_px} at {x_px}, {y_px})", array.0)
                    })?;
                    c.texture_bytes_written += plan.upload(op).len() as u64;
                }
            }
        }
        Ok(())
    }

    fn create_array(&mut self, id: ArrayId, desc: ArrayDesc) -> Result<(), Error> {
        let gl = &self.gl;
        let (internal, format, ty) = gl_format(desc.format);
        let mipmapped = desc.mip_levels > 1;
        let (min, mag) = match (desc.filter, mipmapped) {
            (Filter::Linear, true) => (glow::LINEAR_MIPMAP_LINEAR, glow::LINEAR),
            (Filter::Linear, false) => (glow::LINEAR, glow::LINEAR),
            (Filter::Nearest, true) => (glow::NEAREST_MIPMAP_NEAREST, glow::NEAREST),
            (Filter::Nearest, false) => (glow::NEAREST, glow::NEAREST),
        };
        let wrap = match desc.wrap {
            Wrap::ClampToEdge => glow::CLAMP_TO_EDGE,
            Wrap::Repeat => glow::REPEAT,
            Wrap::MirroredRepeat => glow::MIRRORED_REPEAT,
        };
        // SAFETY: a new texture object bound to TEXTURE_2D_ARRAY on unit 0 (saved by `Saved`);
        // storage is allocated without client data (null pointer).
        let texture = unsafe {
            let texture =
                gl.create_texture().map_err(|message| Error::CreateObject { object: "array texture", message })?;
            gl.bind_texture(glow::TEXTURE_2D_ARRAY, Some(texture));
            let (w, h, layers) = (desc.width_px as i32, desc.height_px as i32, desc.layers as i32);
            if self.caps.texture_storage {
                gl.tex_storage_3d(glow::TEXTURE_2D_ARRAY, desc.mip_levels as i32, internal, w, h, layers);
            } else {
                for level in 0..desc.mip_levels {
                    let (lw, lh) = mip_size(desc.width_px, desc.height_px, level);
                    gl.tex_image_3d(
                        glow::TEXTURE_2D_ARRAY,
                        level as i32,
                        internal as i32,
                        lw as i32,
                        lh as i32,
                        layers,
                        0,
                        format,
                        ty,
                        glow::PixelUnpackData::Slice(None),
                    );
                }
            }
            let t = glow::TEXTURE_2D_ARRAY;
            gl.tex_parameter_i32(t, glow::TEXTURE_BASE_LEVEL, 0);
            gl.tex_parameter_i32(t, glow::TEXTURE_MAX_LEVEL, desc.mip_levels as i32 - 1);
            gl.tex_parameter_i32(t, glow::TEXTURE_MIN_FILTER, min as i32);
            gl.tex_parameter_i32(t, glow::TEXTURE_MAG_FILTER, mag as i32);
            gl.tex_parameter_i32(t, glow::TEXTURE_WRAP_S, wrap as i32);
            gl.tex_parameter_i32(t, glow::TEXTURE_WRAP_T, wrap as i32);
            texture
        };
        // Held before the check, so that a failed array is deleted with the others.
        self.arrays.insert(id, GpuArray { texture, desc, target_fbo: None });
        self.check_gl(|| {
            let (w, h, n) = (desc.width_px, desc.height_px, desc.layers);
            format!("create array {} ({w}x{h}, {n} layer{})", id.0, if n == 1 { "" } else { "s" })
        })
    }

    fn delete_array(&mut self, id: ArrayId) {
        if let Some(a) = self.arrays.remove(&id) {
            self.delete_gpu_array(a);
        }
    }

    /// Deletes an array (already removed from `arrays`) and its target framebuffer.
    fn delete_gpu_array(&mut self, a: GpuArray) {
        if let Some((_, fbo)) = a.target_fbo {
            // SAFETY: our framebuffer, deleted once (its array left the map); the host's
            // draw-framebuffer binding is restored after the paint, never to ours.
            unsafe { self.gl.delete_framebuffer(fbo) };
        }
        self.delete_texture(a.texture);
    }

    /// Deletes every array (a rebuild plan, or after an error), counted as destroyed.
    fn drop_arrays(&mut self, c: &mut DeviceCounters) {
        let mut arrays = std::mem::take(&mut self.arrays);
        for (_, a) in arrays.drain() {
            self.delete_gpu_array(a);
            c.arrays_destroyed += 1;
        }
        // Keeps the map's capacity.
        self.arrays = arrays;
    }

    /// Deletes an array's texture, already removed from `arrays`.
    fn delete_texture(&mut self, texture: glow::Texture) {
        // SAFETY: the texture was created by this renderer and its caller removed it from the
        // map, so it is deleted once; `deleted` keeps the host's bindings from naming it.
        unsafe { self.gl.delete_texture(texture) };
        self.deleted.push(texture);
    }

    /// Copies `regions` of `from` into `to` on the GPU (possibly one texture: a rectangle copy
    /// between two layers of one array), both arrays of `format`: `glCopyImageSubData` per region where the
    /// context has it, else a framebuffer blit per region and layer.
    fn gpu_copy(
        &mut self,
        from: glow::Texture,
        to: glow::Texture,
        format: Format,
        regions: impl Iterator<Item = Region> + Clone,
    ) -> Result<(), Error> {
        let gl = &self.gl;
        if self.caps.copy_image {
            for r in regions {
                let ([fx, fy, fz], [tx, ty, tz], [w, h, d]) = (r.from, r.to, r.size);
                if w == 0 || h == 0 || d == 0 {
                    continue;
                }
                // SAFETY: both textures are live arrays of one format; the validator checked
                // every region lies inside both (layers, and the level's size: the old array's
                // extent, which the new one's covers). A copy within one texture is between
                // two different layers, so source and destination never overlap.
                unsafe {
                    gl.copy_image_sub_data(
                        from,
                        glow::TEXTURE_2D_ARRAY,
                        r.level as i32,
                        fx as i32,
                        fy as i32,
                        fz as i32,
                        to,
                        glow::TEXTURE_2D_ARRAY,
                        r.level as i32,
                        tx as i32,
                        ty as i32,
                        tz as i32,
                        w as i32,
                        h as i32,
                        d as i32,
                    );
                }
            }
            return Ok(());
        }
        if regions.clone().all(|r| r.size.contains(&0)) {
            return Ok(());
        }
        let [read_fbo, draw_fbo] = match self.copy_fbos {
            Some(f) => f,
            None => {
                // SAFETY: framebuffer object creation; a half-made pair is deleted.
                let fbos = unsafe {
                    let a = gl
                        .create_framebuffer()
                        .map_err(|message| Error::CreateObject { object: "framebuffer", message })?;
                    match gl.create_framebuffer() {
                        Ok(b) => [a, b],
                        Err(message) => {
                            gl.delete_framebuffer(a);
                            return Err(Error::CreateObject { object: "framebuffer", message });
                        }
                    }
                };
                self.copy_fbos = Some(fbos);
                fbos
            }
        };
        // Desktop GL may decode sRGB on a blit's read whatever FRAMEBUFFER_SRGB says, but
        // encodes on the write only with it on: with it on, both convert and the bytes survive.
        let srgb_blit = !self.caps.gles && format == Format::Rgba8UnormSrgb;
        // SAFETY: our own framebuffers, attached to live layers and levels of `from` and `to`
        // (two different layers when they are one texture: distinct images, no feedback);
        // completeness is checked before each blit; both attachments are removed afterwards,
        // before `from` may be deleted; the framebuffer bindings and FRAMEBUFFER_SRGB found
        // here are put back before returning (the draws that follow use the host's
        // framebuffer).
        unsafe {
            let prev_read = self.host.framebuffer(gl, glow::READ_FRAMEBUFFER_BINDING);
            let prev_draw = self.host.framebuffer(gl, glow::DRAW_FRAMEBUFFER_BINDING);
            gl.bind_framebuffer(glow::READ_FRAMEBUFFER, Some(read_fbo));
            gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, Some(draw_fbo));
            let prev_srgb = srgb_blit && gl.is_enabled(glow::FRAMEBUFFER_SRGB);
            if srgb_blit {
                gl.enable(glow::FRAMEBUFFER_SRGB);
            }
            let mut result = Ok(());
            'copy: for r in regions {
                let ([fx, fy, fz], [tx, ty, tz], [w, h, d]) = (r.from, r.to, r.size);
                if w == 0 || h == 0 {
                    continue;
                }
                for layer in 0..d {
                    let level = r.level as i32;
                    gl.framebuffer_texture_layer(
                        glow::READ_FRAMEBUFFER,
                        glow::COLOR_ATTACHMENT0,
                        Some(from),
                        level,
                        (fz + layer) as i32,
                    );
                    gl.framebuffer_texture_layer(
                        glow::DRAW_FRAMEBUFFER,
                        glow::COLOR_ATTACHMENT0,
                        Some(to),
                        level,
                        (tz + layer) as i32,
                    );
                    for target in [glow::READ_FRAMEBUFFER, glow::DRAW_FRAMEBUFFER] {
                        let status = gl.check_framebuffer_status(target);
                        if status != glow::FRAMEBUFFER_COMPLETE {
                            result = Err(Error::IncompleteFramebuffer(status));
                            break 'copy;
                        }
                    }
                    let (fx, fy, tx, ty, w, h) = (fx as i32, fy as i32, tx as i32, ty as i32, w as i32, h as i32);
                    gl.blit_framebuffer(
                        fx,
                        fy,
                        fx + w,
                        fy + h,
                        tx,
                        ty,
                        tx + w,
                        ty + h,
                        glow::COLOR_BUFFER_BIT,
                        glow::NEAREST,
                    );
                }
            }
            gl.framebuffer_texture_layer(glow::READ_FRAMEBUFFER, glow::COLOR_ATTACHMENT0, None, 0, 0);
            gl.framebuffer_texture_layer(glow::DRAW_FRAMEBUFFER, glow::COLOR_ATTACHMENT0, None, 0, 0);
            if srgb_blit && !prev_srgb {
                gl.disable(glow::FRAMEBUFFER_SRGB);
            }
            self.host.bind_framebuffer(gl, glow::READ_FRAMEBUFFER, &prev_read);
            self.host.bind_framebuffer(gl, glow::DRAW_FRAMEBUFFER, &prev_draw);
            result
        }
    }

    /// Draws the segments into `vp` (the plan's viewport; its host clip is the host's scissor
    /// box when that is kept and a segment clip may change the box), or into the plan's
    /// render target, cleared first when the plan asks.
    fn draw(
        &mut self,
        plan: &FramePlan,
        target: &Target,
        vp: &Viewport,
        saved: &mut Saved,
        c: &mut DeviceCounters,
    ) -> Result<(), Error> {
        let gl = Arc::clone(&self.gl);
        let gl = &*gl;
        let Some([vx, vy, vw, vh]) = vp.visible_px() else { return Ok(()) };
        let target_h = vp.target_size_px[1];
        // GL's window rows go up. Into the host's framebuffer the viewport is flipped; into a
        // texture the quads are (`flip_y`), so that texel row 0 is the top row, as uploads.
        let flip = plan.target.is_some();
        let viewport = [vw as f32, vh as f32];
        let cap = plan.instance_capacity.max(1);
        let srgb_target = match plan.target {
            Some(t) => {
                let fbo = self.target_framebuffer(t.array, t.layer)?;
                // SAFETY: our own complete framebuffer; the host's binding was saved.
                unsafe { gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, Some(fbo)) };
                let srgb = self.arrays.get(&t.array).is_some_and(|a| a.desc.format == Format::Rgba8UnormSrgb);
                // Desktop GL encodes into an sRGB attachment only with FRAMEBUFFER_SRGB (GLES
                // and wgpu always do): on for the paint, as it was after.
                // SAFETY: a capability query on the current context.
                (srgb && !self.caps.gles).then(|| unsafe { gl.is_enabled(glow::FRAMEBUFFER_SRGB) })
            }
            None => {
                if let Some(fb) = target.framebuffer {
                    // SAFETY: the host's framebuffer, named by the target; its binding was saved.
                    unsafe { gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, Some(fb)) };
                }
                saved.limit_draw_buffers(gl, &self.state_caps);
                None
            }
        };
        let gl_y = if flip { i64::from(vy) } else { i64::from(target_h) - i64::from(vy) - i64::from(vh) };
        let to_i32 = |v: i64| v.clamp(0, i64::from(i32::MAX)) as i32;
        // SAFETY: binds our own VAO and buffer and sets fixed-function state that `Saved`
        // captured (the clear colour too, when a target is cleared).
        unsafe {
            if srgb_target.is_some() {
                gl.enable(glow::FRAMEBUFFER_SRGB);
            }
            gl.viewport(to_i32(i64::from(vx)), to_i32(gl_y), to_i32(i64::from(vw)), to_i32(i64::from(vh)));
            if let Some([r, g, b, a]) = plan.target.and_then(|t| t.clear_rgba) {
                // Scissor is off (`Saved` disabled it) and every channel writable.
                gl.clear_color(r, g, b, a);
                gl.clear(glow::COLOR_BUFFER_BIT);
            }
            gl.bind_vertex_array(Some(self.vao));
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(self.vbo));
        }
        // Blending of draw buffer 0 (the only one drawn): premultiplied alpha, as texels and
        // tints are premultiplied.
        let fixed = self.state_caps;
        fixed.set_blend_enabled(gl, true);
        fixed.set_blend_func(gl, [glow::ONE, glow::ONE_MINUS_SRC_ALPHA, glow::ONE, glow::ONE_MINUS_SRC_ALPHA]);
        fixed.set_blend_equation(gl, glow::FUNC_ADD, glow::FUNC_ADD);
        // A host clip origin of UPPER_LEFT flips y inside the viewport: flip the quads back.
        let flip_quads = flip != saved.clip_upper_left();
        // The host's units were restored after the last paint: nothing is bound yet.
        self.frame_bound.iter_mut().for_each(|b| *b = None);
        let mut block = u32::MAX;
        let mut current_program = usize::MAX;
        let mut current_blend = BlendMode::Over;
        let clips = vp.host_clip_px.is_some() || plan.states.iter().any(|s| s.clip_px.is_some());
        // The clip last set (`None`: the scissor as the paint set it up), and whether it
        // leaves anything to draw.
        let mut current_clip: Option<Clip> = None;
        let mut clip_drawable = true;
        for (si, seg) in plan.segments.iter().enumerate() {
            let r = &seg.instances;
            let state = plan.state(seg);
            if state.blend != current_blend {
                // The host's blend functions were saved.
                fixed.set_blend_func(gl, state.blend.factors().map(gl_blend_factor));
                current_blend = state.blend;
            }
            // Without segment clips the scissor stays as the paint set it up (the host's clip
            // where kept, else none).
            let clip = vp.scissor(state.clip_px);
            if clips && current_clip != Some(clip) {
                current_clip = Some(clip);
                clip_drawable = self.set_clip(clip, target_h, flip);
            }
            if clip == Clip::Empty || !clip_drawable {
                // Clipped away entirely: the segment draws nothing.
                continue;
            }
            let seg_block = r.start / cap;
            if seg_block != block {
                block = seg_block;
                let bytes: &[u8] = if self.indexed {
                    expand_quads(plan.block(block), &mut self.vertices);
                    bytemuck::cast_slice(&self.vertices)
                } else {
                    bytemuck::cast_slice(plan.block(block))
                };
                // SAFETY: our buffer is bound to ARRAY_BUFFER; the slice is valid for its length.
                // Re-specifying the store orphans the previous block's data still in flight.
                unsafe { gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, bytes, glow::STREAM_DRAW) };
                c.instance_bytes_written += bytes.len() as u64;
            }
            let pi = self
                .programs
                .iter()
                .position(|p| p.tier == seg.tier)
                // A program per budget tier, and the validator accepted only budget tiers.
                .ok_or(Error::Plan(PlanError::UnknownTier { segment: si, tier: seg.tier }))?;
            self.bind_segment(si, plan, seg, c)?;
            let prog = &mut self.programs[pi];
            // SAFETY: the program linked at creation; attribute offsets stay inside the block
            // just uploaded (the segment lies in it: the validator checked it crosses no
            // multiple of the instance capacity).
            unsafe {
                if current_program != pi {
                    gl.use_program(Some(prog.program));
                    current_program = pi;
                }
                if prog.viewport != viewport {
                    gl.uniform_2_f32(prog.u_viewport.as_ref(), viewport[0], viewport[1]);
                    prog.viewport = viewport;
                }
                let mut transform = vp.transform(state.transform);
                if flip_quads {
                    transform = flip_y(transform, viewport[1]);
                }
                if prog.transform != transform {
                    gl.uniform_2_f32_slice(prog.u_transform.as_ref(), &transform);
                    prog.transform = transform;
                }
                // No base vertex on GLES 3.0: the attributes start at the segment's first quad,
                // and its indices at 0.
                let base = (r.start - seg_block * cap) * Instance::quad_bytes(self.indexed);
                let at = |offset: u32| (base + offset) as i32;
                let stride = Instance::BYTES as i32;
                gl.vertex_attrib_pointer_f32(attr::ORIGIN, 2, glow::FLOAT, false, stride, at(Instance::OFFSET_ORIGIN));
                gl.vertex_attrib_pointer_f32(attr::AXIS_X, 2, glow::FLOAT, false, stride, at(Instance::OFFSET_AXIS_X));
                gl.vertex_attrib_pointer_f32(attr::AXIS_Y, 2, glow::FLOAT, false, stride, at(Instance::OFFSET_AXIS_Y));
                gl.vertex_attrib_pointer_f32(
                    attr::UV_RECT,
                    4,
                    glow::FLOAT,
                    false,
                    stride,
                    at(Instance::OFFSET_UV_RECT),
                );
                gl.vertex_attrib_pointer_f32(
                    attr::TEX_RECT,
                    4,
                    glow::FLOAT,
                    false,
                    stride,
                    at(Instance::OFFSET_TEX_RECT),
                );
                gl.vertex_attrib_pointer_f32(
                    attr::COLOR,
                    4,
                    glow::UNSIGNED_BYTE,
                    true,
                    stride,
                    at(Instance::OFFSET_COLOR),
                );
                gl.vertex_attrib_pointer_i32(
                    attr::SLOT_FLAGS_LAYER,
                    1,
                    glow::UNSIGNED_INT,
                    stride,
                    at(Instance::OFFSET_SLOT_FLAGS_LAYER),
                );
                if self.indexed {
                    let indices = (r.end - r.start) * Instance::INDICES;
                    gl.draw_elements(glow::TRIANGLES, indices as i32, glow::UNSIGNED_INT, 0);
                } else {
                    gl.draw_arrays_instanced(glow::TRIANGLE_STRIP, 0, 4, (r.end - r.start) as i32);
                }
            }
            c.draw_calls += 1;
            self.drawn_tiers.push(seg.tier);
            // A glGetError per draw stalls some drivers: debug builds only.
            #[cfg(debug_assertions)]
            self.check_gl(|| format!("draw segment {si} (tier {}, instances {}..{})", seg.tier, r.start, r.end))?;
        }
        if srgb_target == Some(false) {
            // SAFETY: puts back the capability as found.
            unsafe { gl.disable(glow::FRAMEBUFFER_SRGB) };
        }
        Ok(())
    }

    /// The framebuffer drawing into `layer` of render-target array `array`, made (and checked
    /// complete) on first use and kept with the array.
    fn target_framebuffer(&mut self, array: ArrayId, layer: u32) -> Result<glow::Framebuffer, Error> {
        let gl = Arc::clone(&self.gl);
        let a = self.arrays.get_mut(&array).ok_or(Error::Plan(PlanError::BadTarget {
            array,
            layer,
            reason: "the device holds no such array",
        }))?;
        if let Some((l, fbo)) = a.target_fbo {
            if l == layer {
                return Ok(fbo);
            }
            // SAFETY: our framebuffer for another layer of this array: replaced.
            unsafe { gl.delete_framebuffer(fbo) };
            a.target_fbo = None;
        }
        // SAFETY: a new framebuffer of ours, bound to DRAW_FRAMEBUFFER (saved by the paint) and
        // attached to a live layer of our texture; deleted again if incomplete.
        unsafe {
            let fbo =
                gl.create_framebuffer().map_err(|message| Error::CreateObject { object: "framebuffer", message })?;
            gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, Some(fbo));
            gl.framebuffer_texture_layer(
                glow::DRAW_FRAMEBUFFER,
                glow::COLOR_ATTACHMENT0,
                Some(a.texture),
                0,
                layer as i32,
            );
            let status = gl.check_framebuffer_status(glow::DRAW_FRAMEBUFFER);
            if status != glow::FRAMEBUFFER_COMPLETE {
                gl.delete_framebuffer(fbo);
                return Err(Error::IncompleteFramebuffer(status));
            }
            a.target_fbo = Some((layer, fbo));
            Ok(fbo)
        }
    }

    /// Sets the scissor for a segment's clip (from [`Viewport::scissor`]: in the target's
    /// pixels, y down, within the host's clip; [`Clip::Full`]: none). Returns false when
    /// nothing of the target is left to draw. `flip`: drawing into a texture, whose rows are
    /// y down already.
    fn set_clip(&self, clip: Clip, target_h: u32, flip: bool) -> bool {
        let gl = &self.gl;
        let scissor = match clip {
            Clip::Full => None,
            Clip::Empty => return false,
            Clip::Rect(rect) => Some(gl_scissor(rect, target_h, flip)),
        };
        // SAFETY: scissor state on the current context; the host's box and `SCISSOR_TEST`
        // were saved (`Needs::scissor` is set whenever a plan state has a clip).
        unsafe {
            match scissor {
                Some([x, y, w, h]) => {
                    gl.scissor(x, y, w, h);
                    gl.enable(glow::SCISSOR_TEST);
                }
                None => gl.disable(glow::SCISSOR_TEST),
            }
        }
        true
    }

    /// Applies a segment's binds, then binds every array of its slot table not yet bound on
    /// its unit during this paint: each paint restores the host's units, so the binds of
    /// earlier plans are gone. Counts each `glBindTexture`.
    fn bind_segment(
        &mut self,
        si: usize,
        plan: &FramePlan,
        seg: &Segment,
        c: &mut DeviceCounters,
    ) -> Result<(), Error> {
        let table = plan.slots(seg);
        let wanted = plan
            .binds(seg)
            .iter()
            .map(|b| (b.slot, b.array))
            .chain(table.iter().enumerate().filter_map(|(s, a)| a.map(|a| (s as u32, a))));
        for (slot, array) in wanted {
            // The validator keeps every slot below the segment's tier, a budget tier.
            let Some(bound) = self.frame_bound.get(slot as usize).copied() else {
                return Err(Error::Plan(PlanError::SlotOutOfRange { segment: si, slot }));
            };
            if bound == Some(array) {
                continue;
            }
            let texture = self.array(si, array)?.texture;
            // SAFETY: a live texture of ours bound on a unit below the budget's slots (below
            // MAX_TEXTURE_IMAGE_UNITS, checked at creation); the unit's binding was saved.
            unsafe {
                self.gl.active_texture(glow::TEXTURE0 + slot);
                self.gl.bind_texture(glow::TEXTURE_2D_ARRAY, Some(texture));
            }
            self.frame_bound[slot as usize] = Some(array);
            c.texture_binds += 1;
        }
        Ok(())
    }
}

/// GL's name for a blend factor.
fn gl_blend_factor(f: BlendFactor) -> u32 {
    match f {
        BlendFactor::Zero => glow::ZERO,
        BlendFactor::One => glow::ONE,
        BlendFactor::DstColor => glow::DST_COLOR,
        BlendFactor::OneMinusSrcColor => glow::ONE_MINUS_SRC_COLOR,
        BlendFactor::OneMinusSrcAlpha => glow::ONE_MINUS_SRC_ALPHA,
    }
}

/// The GL scissor box (window coordinates, y up) of a clip rectangle inside a target
/// `target_h` tall ([`Viewport::scissor`]: y down). Into a texture (`flip`) rows are y down
/// already.
fn gl_scissor(rect: [u32; 4], target_h: u32, flip: bool) -> [i32; 4] {
    let [x, y, w, h] = rect.map(i64::from);
    let gl_y = if flip { y } else { i64::from(target_h) - y - h };
    [x, gl_y, w, h].map(|v| v.clamp(0, i64::from(i32::MAX)) as i32)
}

/// The host's scissor box (GL window coordinates, y up) as a rectangle of a target `target_h`
/// tall, y down, cut to the target's top and left edges.
fn y_down(b: [i32; 4], target_h: u32) -> [u32; 4] {
    let [x, y, w, h] = b.map(i64::from);
    let top = i64::from(target_h) - y - h.max(0);
    let (x0, y0) = (x.max(0), top.max(0));
    let (x1, y1) = (x + w.max(0), top + h.max(0));
    [x0, y0, (x1 - x0).max(0), (y1 - y0).max(0)].map(|v| v.min(i64::from(u32::MAX)) as u32)
}

/// The internal format, pixel format and pixel type of an array of `format`.
fn gl_format(format: Format) -> (u32, u32, u32) {
    match format {
        Format::Rgba8Unorm => (glow::RGBA8, glow::RGBA, glow::UNSIGNED_BYTE),
        Format::Rgba8UnormSrgb => (glow::SRGB8_ALPHA8, glow::RGBA, glow::UNSIGNED_BYTE),
    }
}

impl Drop for Renderer {
    fn drop(&mut self) {
        if !self.destroyed {
            log::warn!(
                "layerbatch-gl: Renderer dropped without destroy(): {} programs, {} arrays, a vertex array and a \
                 buffer leak (call destroy() with the context current)",
                self.programs.len(),
                self.arrays.len()
            );
        }
    }
}

/// `UNMASKED_RENDERER_WEBGL` (`WEBGL_debug_renderer_info`).
const UNMASKED_RENDERER_WEBGL: u32 = 0x9246;

/// Whether a `RENDERER` string names a rasterizer that runs on the CPU (Mesa's llvmpipe,
/// softpipe and swrast, Google's SwiftShader, also behind ANGLE).
fn is_software_renderer(renderer: &str) -> bool {
    let r = renderer.to_ascii_lowercase();
    ["llvmpipe", "softpipe", "swrast", "swiftshader", "mesa offscreen"].iter().any(|s| r.contains(s))
}

#[cfg(test)]
mod tests {
    use super::is_software_renderer;

    #[test]
    fn software_renderers_are_recognised() {
        for soft in [
            "llvmpipe (LLVM 15.0.6, 256 bits)",
            "ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device (Subzero) (0x0000C0DE)), SwiftShader driver)",
            "Google SwiftShader",
            "softpipe",
        ] {
            assert!(is_software_renderer(soft), "{soft}");
        }
        for gpu in ["NVIDIA H200/PCIe/SSE2", "AMD Radeon RX 7900 XTX (radeonsi, navi31, LLVM 15.0.6)", "WebKit WebGL"] {
            assert!(!is_software_renderer(gpu), "{gpu}");
        }
    }
}
