//! The renderer: executes frame plans on the host's GL context.
#![allow(unsafe_code)]

use std::sync::Arc;

use glow::HasContext;

use layerbatch_core::execute::DrawSteps;
use layerbatch_core::execute::PlanRunner;
use layerbatch_core::plan::quad_indices;
use layerbatch_core::plan::{ArrayId, ArrayOp, Instance, ResidentOp, ResourceOp};
use layerbatch_core::{Budget, DeviceCounters, FramePlan, Limits, Stats};

use crate::arrays::GlArrays;
use crate::error::Error;
use crate::fixed::StateCaps;
use crate::host::HostGl;
use crate::program::{self, TierProgram};
use crate::state::{Needs, Saved};
use crate::target::Target;

// Child modules: more of `Renderer`'s methods.
mod draw;
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
    /// Texture units a program may use: the fewest of `MAX_TEXTURE_IMAGE_UNITS` and
    /// `MAX_COMBINED_TEXTURE_IMAGE_UNITS` less one (the vertex stage's one texture, a moving
    /// layer's motions, [`layerbatch_core::Budget::motion_unit`], on the unit after the
    /// fragment stage's).
    pub max_texture_units: u32,
}

/// [`Capabilities::max_texture_units`] of the current context.
fn usable_texture_units(gl: &glow::Context) -> u32 {
    // SAFETY: plain integer queries on the current context.
    let [fragment, combined] = [glow::MAX_TEXTURE_IMAGE_UNITS, glow::MAX_COMBINED_TEXTURE_IMAGE_UNITS]
        .map(|p| unsafe { gl.get_parameter_i32(p) }.max(0) as u32);
    fragment.min(combined.saturating_sub(1))
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
    /// The indices of `instance_capacity` primitives (`quad_indices`), uploaded once; part of
    /// `vao`. Made with instanced quads too: a plan with triangles is drawn indexed.
    ebo: glow::Buffer,
    /// `Budget::indexed_quads`: plans are drawn from four vertex records a primitive and
    /// `glDrawElements`, rather than instanced `glDrawArraysInstanced`, unless they have
    /// triangles, which are always drawn indexed (`FramePlan::drawn_indexed`).
    indexed_quads: bool,
    /// How `vao`'s attribute divisors are set: `true` per vertex (indexed), `false` per
    /// instance.
    vao_indexed: bool,
    /// Scratch: the current block's vertex bytes where they are not written into a mapping
    /// (WebGL2), kept frame to frame.
    vertex_bytes: Vec<u8>,
    /// The arrays on GL: the executor of the plans' resource ops.
    pub(crate) arrays: GlArrays,
    /// Core's check, application and counting of the plans' resource ops, as every executor
    /// runs them; what it holds mirrors `arrays`.
    runner: PlanRunner,
    stats: Stats,
    /// Texture units the budget draws with (slots).
    slots: u32,
    /// The budget has lights: slot `s`'s normal-map sibling is bound on unit `slots + s`.
    lights: bool,
    /// The budget's lights ([`layerbatch_core::Budget::max_lights`]).
    max_lights: u32,
    /// Scratch: the `Lights` bytes of the plan being drawn, kept frame to frame.
    lights_bytes: Vec<u8>,
    /// Core's draw walk of the current plan (kept paint to paint).
    steps: DrawSteps,
    /// The tier of the program each draw of the last paint used.
    drawn_tiers: Vec<u32>,
    /// The render targets' mip regeneration pass.
    mips: mips::MipPass,
    destroyed: bool,
}

impl std::fmt::Debug for Renderer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Renderer")
            .field("caps", &self.caps)
            .field("tiers", &self.tiers())
            .field("arrays", &self.arrays.len())
            .field("last_plan", &self.runner.validator().last_sequence())
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
    /// quad vertices. The compressed format families come from the version and extensions
    /// (`format_families`: BC, ETC2/EAC, ASTC 4x4), and `compressed_copies` from
    /// `glCopyImageSubData` ([`Capabilities::copy_image`]: no framebuffer blit copies
    /// compressed texels). Logs the GL version, renderer and these limits at `debug!`.
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
        let families = crate::formats::format_families(gl);
        log::debug!("layerbatch-gl: texture format families {families}");
        Limits::new(units, layers, size)
            .with_max_buffer_bytes(max_buffer_bytes)
            .with_software_rasterizer(software)
            .with_format_families(families)
            .with_compressed_copies(Capabilities::detect(gl).copy_image)
    }

    /// Creates the renderer for `budget` (from [`layerbatch_core::Batcher::budget`]): compiles
    /// and links one program per tier in `budget.tiers`, now and never again, and creates its
    /// vertex array and instance buffer. The host's program, vertex array and array buffer
    /// bindings are restored before returning. `gl` must be current on the calling thread, and
    /// stays the renderer's context ([current context](Renderer#current-context)).
    ///
    /// # Errors
    /// [`Error::EditedBudget`] for a budget edited into one no renderer can run (core's
    /// [`Budget::check`]; checked before any GL call), [`Error::Shader`] with the stage and
    /// info log if any tier fails to compile or link (every object made so far is deleted),
    /// [`Error::BudgetAboveDevice`] for a budget from another device,
    /// [`Error::BudgetNotForDevice`] for a budget that plans compressed copies this
    /// renderer cannot make, [`Error::Device`] if the driver refuses an object.
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
        budget.check().map_err(Error::EditedBudget)?;
        let detected = Capabilities::detect(&gl);
        let caps = Capabilities {
            gles: detected.gles,
            copy_image: caps.copy_image && detected.copy_image,
            texture_storage: caps.texture_storage && detected.texture_storage,
            max_texture_units: detected.max_texture_units,
        };
        let state_caps = StateCaps::detect(&gl);
        // A lit program samples each slot's normal-map sibling too, on units `slots..`, and
        // the ramp the unit after.
        let units_used =
            (if budget.max_lights > 0 { 2 * budget.slots } else { budget.slots }) + u32::from(budget.ramp());
        if units_used > caps.max_texture_units {
            return Err(Error::BudgetAboveDevice {
                what: "texture units",
                needed: units_used,
                allowed: caps.max_texture_units,
            });
        }
        let compressed = budget.format_families.iter().any(|f| f != layerbatch_core::FormatFamily::Rgba8);
        if compressed && budget.compressed_copies && !caps.copy_image {
            let families = budget.format_families;
            let reason = format!(
                "the budget plans copies of compressed texels ({families}) but this renderer has no glCopyImageSubData \
                 (copy_image off): make the budget with Limits::with_compressed_copies(false)"
            );
            return Err(Error::BudgetNotForDevice { reason });
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
            // Each tier's plain program, and with declared effects its effect program.
            let variants: &[bool] = if budget.programs_per_tier() == 2 { &[false, true] } else { &[false] };
            let mut programs: Vec<TierProgram> = Vec::with_capacity(budget.tiers.len() * variants.len());
            for key in budget.tiers.iter().flat_map(|&t| variants.iter().map(move |&e| (t, e))) {
                match program::build_tier(&gl, key, caps.gles, budget) {
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
                .map_err(|message| Error::create_object("vertex array", message))
                .and_then(|vao| match gl.create_buffer() {
                    Ok(vbo) => Ok((vao, vbo)),
                    Err(message) => {
                        gl.delete_vertex_array(vao);
                        Err(Error::create_object("buffer", message))
                    }
                })
                .and_then(|(vao, vbo)| match gl.create_buffer() {
                    Ok(ebo) => Ok((vao, vbo, ebo)),
                    Err(message) => {
                        gl.delete_vertex_array(vao);
                        gl.delete_buffer(vbo);
                        Err(Error::create_object("buffer", message))
                    }
                });
            let objects = objects.and_then(|(vao, vbo, ebo)| match mips::MipPass::new(&gl, caps.gles) {
                Ok(mips) => Ok((vao, vbo, ebo, mips)),
                Err(e) => {
                    gl.delete_vertex_array(vao);
                    gl.delete_buffer(vbo);
                    gl.delete_buffer(ebo);
                    Err(e)
                }
            });
            let (vao, vbo, ebo, mips) = match objects {
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
            // The element binding is state of our vertex array: the host's is not touched.
            let indices: Vec<u32> = quad_indices(budget.instance_capacity).collect();
            gl.bind_buffer(glow::ELEMENT_ARRAY_BUFFER, Some(ebo));
            gl.buffer_data_u8_slice(glow::ELEMENT_ARRAY_BUFFER, bytemuck::cast_slice(&indices), glow::STATIC_DRAW);
            for a in &Instance::ATTRIBUTES {
                gl.enable_vertex_attrib_array(a.location);
                // Instanced quads: one instance per quad; indexed: one per vertex.
                gl.vertex_attrib_divisor(a.location, u32::from(!budget.indexed_quads));
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
            let arrays = GlArrays::new(Arc::clone(&gl), host.clone(), caps, (budget.ramp_unit(), budget.motion_unit()));
            Ok(Self {
                gl,
                host,
                caps,
                state_caps,
                programs,
                vao,
                vbo,
                ebo,
                indexed_quads: budget.indexed_quads,
                vao_indexed: budget.indexed_quads,
                vertex_bytes: Vec::new(),
                arrays,
                runner: PlanRunner::new(budget),
                stats,
                slots: budget.slots,
                lights: budget.max_lights > 0,
                max_lights: budget.max_lights,
                lights_bytes: Vec::new(),
                steps: DrawSteps::default(),
                drawn_tiers: Vec::new(),
                mips,
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

    /// The slot tiers there is a program for, ascending (each has
    /// [`layerbatch_core::Budget::programs_per_tier`] programs).
    pub fn tiers(&self) -> Vec<u32> {
        let mut tiers: Vec<u32> = self.programs.iter().map(|p| p.tier).collect();
        tiers.dedup();
        tiers
    }

    /// The GL texture (`TEXTURE_2D_ARRAY`) of a live array, e.g. to render into the array of
    /// a [`layerbatch_core::Usage::RenderTarget`] texture (its placement names the array).
    pub fn array_texture(&self, array: ArrayId) -> Option<glow::Texture> {
        self.arrays.texture(array)
    }

    /// Arrays alive on the device.
    pub fn array_count(&self) -> usize {
        self.arrays.len()
    }

    /// Whether quads are drawn indexed (each instance written once per corner,
    /// `glDrawElements`) rather than instanced: the budget's `indexed_quads`
    /// ([`layerbatch_core::QuadVertices`]).
    pub fn indexed_quads(&self) -> bool {
        self.indexed_quads
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
    /// The plan is checked first with the [`layerbatch_core::validate::PlanValidator`] every executor
    /// uses (through core's [`PlanRunner`], which then applies and counts its resource ops),
    /// before any GL call. Then errors the host left pending are drained (`glGetError` until `NO_ERROR`, at
    /// most 16, logged at `debug!`), so that a GL error after one of the renderer's own calls
    /// is the renderer's. A rebuild plan ([`FramePlan::rebuild`]) first deletes every array the
    /// renderer holds.
    ///
    /// The GL state changed is listed in the crate docs; it is restored before returning,
    /// on errors too. After the draws into a render target with mip levels, levels `1..` of
    /// its target layer are regenerated from level 0 (a box filter: see the crate docs).
    ///
    /// The renderer's context must be current on the calling thread
    /// ([current context](Renderer#current-context)).
    ///
    /// # Errors
    /// - [`Error::Plan`] with the validator's [`layerbatch_core::PlanError`] for a plan that
    ///   cannot run (out of order, or naming what the device does not hold): nothing was
    ///   done, the renderer is unchanged, and a later good plan paints normally.
    /// - [`Error::Device`] when GL reports an error after an array creation, GPU copy (growth,
    ///   shrink, rectangle copy) or layer write (and, in debug builds, after a draw), or
    ///   an object not created or a framebuffer incomplete. The renderer then holds
    ///   no array any more and expects a rebuild plan: call
    ///   [`layerbatch_core::Batcher::restore`] and re-upload the textures it lists (any other
    ///   plan gets [`layerbatch_core::PlanError::NeedsRebuild`]).
    pub fn paint(&mut self, plan: &FramePlan, target: &Target) -> Result<(), Error> {
        self.runner.check(plan)?;
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
                // Motion textures are made and written on their unit, from client memory.
                ResourceOp::Resident(ResidentOp::Move { .. } | ResidentOp::Create { moving: true, .. }) => {
                    needs.vertex_buffer = true;
                    needs.upload = true;
                    needs.motion_unit = Some(self.arrays.motions.unit());
                }
                // Resident buffers are written through ARRAY_BUFFER.
                ResourceOp::Resident(_) => needs.vertex_buffer = true,
                ResourceOp::Array(a) => {
                    // Creating an array binds it on unit 0; copies without copy-image blit.
                    if matches!(a, ArrayOp::Create { .. } | ArrayOp::Grow { .. } | ArrayOp::Shrink { .. }) {
                        needs.units = needs.units.max(1);
                    }
                    // A host texture's copy is always a blit (it may flip).
                    needs.blit |=
                        (a.is_gpu_copy() && !self.caps.copy_image) || matches!(a, ArrayOp::HostContents { .. });
                }
            }
        }
        // Only effect programs sample the ramp: a paint binds it (and saves the units up to
        // its own) when a segment core marked `effects` is drawn.
        let ramp_drawn = draw && self.arrays.ramp.unit().is_some() && plan.segments.iter().any(|s| s.effects);
        if !plan.ramp_writes.is_empty() || (ramp_drawn && self.arrays.ramp.needs_creation()) {
            // Ramp rows are written (and the ramp made, from zeros) on unit 0.
            needs.upload = true;
            needs.units = needs.units.max(1);
        }
        if plan.target.is_some() {
            // Regenerating a target's mip levels binds its array on unit 0, and draws (its
            // array may be made by this very plan: whether it has levels is not known yet).
            needs.units = needs.units.max(1);
            needs.draw = true;
            needs.draw_framebuffer = true;
        }
        if draw {
            let tier = plan.segments.iter().map(|s| s.tier).max().unwrap_or(1);
            // Lit: the normal-map siblings go on units `slots..slots + tier`; the ramp after.
            needs.units = needs.units.max(if self.lights { self.slots + tier } else { tier });
            if let Some(unit) = self.arrays.ramp.unit().filter(|_| ramp_drawn) {
                needs.units = needs.units.max(unit + 1);
            }
            needs.scissor = plan.states.iter().any(|s| s.clip_px.is_some());
            // A moving layer's draws bind its motion texture on the motion unit.
            if self.arrays.motions.any() && plan.segments.iter().any(|s| s.resident.is_some()) {
                needs.motion_unit = Some(self.arrays.motions.unit());
            }
        }
        let mut saved = Saved::capture_and_prepare(&self.gl, &self.host, needs, &self.state_caps);
        let mut c = DeviceCounters::one_frame();
        self.arrays.begin_paint();
        self.drawn_tiers.clear();
        // Core counts the resource ops (arrays created and destroyed, layers copied, bytes
        // written, target mip levels) and the draw walk's steps (draws, binds, bytes).
        let mut result = self.runner.apply_ops(plan, &mut self.arrays, &mut c);
        if result.is_ok() {
            // The host's clip applies to its framebuffer, never to a render target.
            if draw && target.keep_host_clip && !into_texture {
                saved.reenable_host_clip(&self.gl);
                let h = viewport.target_size_px[1];
                viewport = viewport.with_host_clip(saved.host_scissor().map(|b| draw::y_down(b, h)));
            }
            let mut steps = std::mem::take(&mut self.steps);
            steps.walk(plan, &viewport, self.indexed_quads, &mut c);
            if draw {
                result = self.draw(plan, &steps, target, &viewport, &mut saved, ramp_drawn);
            }
            self.steps = steps;
        }
        if result.is_ok() {
            result = self.regenerate_target_mips(plan);
            if result.is_ok() {
                self.runner.count_target_mips(plan, &mut c);
            }
        }
        if result.is_err() {
            // What the device holds is unknown now: hold nothing, so that only a rebuild plan
            // (or a fresh batcher's first) is accepted next, and it re-creates every array.
            self.runner.fail(&mut self.arrays, &mut c);
        }
        saved.restore(&self.gl, &self.host, &self.state_caps, self.arrays.deleted());
        self.stats.record(plan.counters, plan.totals, c);
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
            gl.delete_vertex_array(self.vao);
            gl.delete_buffer(self.vbo);
            gl.delete_buffer(self.ebo);
        }
        self.mips.delete(gl);
        self.arrays.destroy();
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
