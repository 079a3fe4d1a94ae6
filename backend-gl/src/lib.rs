//! # layerbatch-gl
//!
//! layerbatch's OpenGL / OpenGL ES backend, on [`glow`]. The main type is [`Renderer`]: it
//! executes the [`layerbatch_core::FramePlan`]s a [`layerbatch_core::Batcher`] produces, in the
//! host's GL context, into the host's framebuffer. Core decides everything (placement, slots,
//! segments, uploads, growths); the renderer only executes and counts what it issued.
//! Its resource ops run through core's [`layerbatch_core::execute::PlanRunner`], as on every
//! executor: before touching GL it checks each plan with core's
//! [`layerbatch_core::validate::PlanValidator`], so a bad plan gets the same
//! [`layerbatch_core::PlanError`] here as anywhere else ([`Error::Plan`]), then walks the ops
//! in order, calling the renderer's GL commands for each, and counts them.
//!
//! It runs on desktop GL 3.3 core and on GLES 3.0 (the WebGL2 feature level) from the same
//! code: shaders are `#version 330 core` or `#version 300 es`, chosen from the context.
//!
//! ```no_run
//! use std::sync::Arc;
//! use layerbatch_core::{Batcher, Config, Quad, TextureDesc};
//! use layerbatch_gl::{glow, Renderer, Target};
//!
//! # fn run(gl: Arc<glow::Context>) -> Result<(), Box<dyn std::error::Error>> {
//! // Once, with the host's context current:
//! let limits = Renderer::query_limits(&gl);
//! let mut batcher = Batcher::new(limits, Config::default())?;
//! let mut renderer = Renderer::new(gl, batcher.budget())?; // every program, now and never again
//! let red = batcher.textures().register(&TextureDesc::new(16, 16), &[255, 0, 0, 255].repeat(16 * 16))?;
//!
//! // Each frame:
//! batcher.begin_frame();
//! batcher.push(&Quad::rect(red, [10.0, 10.0], [64.0, 64.0]))?;
//! let plan = batcher.finish();
//! renderer.paint(plan, &Target::bound([800, 600]))?; // into the bound framebuffer
//! let stats = renderer.stats(); // core's plan and what GL was asked to do
//! assert_eq!(stats.device_frame.draw_calls, 1);
//!
//! // At shutdown, with the context current:
//! renderer.destroy();
//! # Ok(()) }
//! ```
//!
//! ## glow versions
//!
//! The renderer takes the host's [`glow::Context`], so it must be built on the same glow as
//! the host. The `glow-0-18` feature (on by default) builds on glow 0.18; `glow-0-17` builds
//! on glow 0.17, the glow of egui_glow 0.37 / eframe and three-d. The API used is the same.
//! [`glow`] re-exports the one this build uses: create the context through it, or check that
//! the host's glow is the same version (a host on the other one gets a type mismatch between
//! two `glow::Context`s at compile time).
//!
//! ```toml
//! layerbatch-gl = { version = "0.1", features = ["glow-0-17"] }
//! ```
//!
//! ```no_run
//! use std::sync::Arc;
//! use layerbatch_core::{Batcher, Config};
//! use layerbatch_gl::glow::{self, HasContext};
//! use layerbatch_gl::Renderer;
//!
//! fn renderer_for(gl: Arc<glow::Context>) -> Result<Renderer, Box<dyn std::error::Error>> {
//!     // SAFETY: a plain query on the host's current context.
//!     let version = unsafe { gl.get_parameter_string(glow::VERSION) };
//!     println!("GL {version}");
//!     let batcher = Batcher::new(Renderer::query_limits(&gl), Config::default())?;
//!     Ok(Renderer::new(gl, batcher.budget())?)
//! }
//! ```
//!
//! When both features are on, `glow-0-17` wins. Cargo features are additive: if any crate in
//! the build enables `glow-0-17`, the whole build's layerbatch-gl takes glow 0.17 contexts.
//! Without either feature the crate does not compile (a `compile_error!` says so).
//!
//! ## In a browser
//!
//! On `wasm32-unknown-unknown` glow is its `web_sys` backend over a `WebGL2RenderingContext`
//! (`glow::Context::from_webgl2_context`), on stock glow 0.18 and 0.17 alike. WebGL2 is the
//! GLES 3.0 path: `#version 300 es` shaders, `glTexStorage3D`, and no copy-image, so GPU
//! copies are blits ([`CopyPath::Blit`]). The host does nothing special: a fresh context with
//! nothing bound and a context where the host has its own objects bound both work, and the
//! renderer saves and restores the same state as natively ([GL state](#gl-state)). What
//! differs is only *how* it reads the object bindings:
//!
//! - glow's binding getters (`get_parameter_texture`, `_program`, `_vertex_array`, `_buffer`,
//!   `_sampler`, `_framebuffer`) panic on the web whenever `getParameter` returns an object
//!   glow's context did not create, `null` (nothing bound) included (grovesNL/glow#334). The
//!   renderer never calls them there: it reads `CURRENT_PROGRAM`, `VERTEX_ARRAY_BINDING`,
//!   `ARRAY_BUFFER_BINDING`, `PIXEL_UNPACK_BUFFER_BINDING`, `DRAW_FRAMEBUFFER_BINDING`,
//!   `READ_FRAMEBUFFER_BINDING`, and each unit's `TEXTURE_BINDING_2D_ARRAY` and
//!   `SAMPLER_BINDING` through the raw `WebGL2RenderingContext`, as JS objects, and rebinds
//!   those very objects afterwards, whether the host made them through glow, through
//!   `web_sys`, or in JavaScript. A host texture the paint deleted is rebound as none
//!   (`isTexture` is false for it), as natively.
//! - glow 0.17 and 0.18 keep that raw context private, so [`Renderer::new`] finds it once:
//!   for the span of one synchronous call it replaces
//!   `WebGL2RenderingContext.prototype.getUniformLocation` with `Object.prototype.valueOf`,
//!   asks glow for a uniform location of a throwaway program (two one-line shaders, linked
//!   and deleted again), gets the context object itself back, and puts the method back before
//!   any other script can run. No JS snippet is
//!   involved, so it works with every `wasm-bindgen` target.
//! - If that fails (a WebGL1 context, or a debugging wrapper that defines its own
//!   `getUniformLocation` on the context object), [`Renderer::restores_host_bindings`] is
//!   `false` and a warning is logged: the object bindings above are then left unbound after
//!   `new` and each paint; everything else is still restored.
//!
//! Everything else is read through glow as natively (`glGetIntegerv`-style queries return
//! numbers and arrays there). `scripts/web-test.sh` checks all of this in headless Chromium on
//! glow 0.18 and 0.17: creation and paints on a fresh context, and 13 host bindings (made
//! through glow and through WebGL) held through `new`, paints that upload, grow and draw at
//! tier 2 into a framebuffer the target names, and `destroy`.
//!
//! ## Programs
//!
//! One program per slot tier of the budget (1, 2, 4, ... up to `Budget::slots`), and with
//! declared effects a second one per tier that has them (`Budget::programs_per_tier`; core
//! marks the segments that draw an effect, `Segment::effects`, and the rest keep the plain
//! program), all compiled and linked in [`Renderer::new`] and never after:
//! `DeviceCounters::pipeline_compiles` equals the program count for the renderer's whole life.
//!
//! The programs are written once, in WGSL, in core ([`layerbatch_core::shader`]), the same
//! text layerbatch-wgpu compiles; here naga translates each to GLSL 330 or GLSL ES 3.00 at
//! creation ([`program_sources`] shows the result for a
//! [`ProgramKey`](layerbatch_core::ProgramKey)). Slots are `sampler2DArray` uniforms on units
//! `0..tier`; the slot is chosen by a `switch` on a flat per-instance attribute, the layer is
//! a texture coordinate, and the tier-1 program has no branch at all. Tier 1 samples with
//! `texture`; above it the mip level is computed from the UV derivatives before the switch and
//! sampled with `textureLod`, so mipmaps work (see [Sampling](#sampling)). `Globals` and
//! `Lights` are plain uniforms of the program (no uniform buffer is bound). A WGSL that naga
//! refuses is an [`Error::Shader`] at [`Stage::Translate`]; a compile or link failure is one
//! with the [`Stage`] and the driver's info log; nothing is drawn with a program that did not
//! link.
//!
//! ## Sampling
//!
//! `Instance::uv_rect` and `Instance::tex_rect` are in texels of level 0, not `0..1`: the
//! vertex stage divides them by the size of the instance's layer (its slot's entry in the
//! slot-sizes uniform, set with the binds, once per vertex: the vertex stage samples no slot,
//! only a moving layer's motion texture), and the fragment stage takes the derivatives of the resulting
//! `0..1` position (before any branch), clamps it, and samples (`texture` at tier 1,
//! `textureLod` at the level from those derivatives above it). An atlas
//! page that grows in size therefore changes no instance, and per pixel the tier-1 program
//! does what a plain sprite shader does plus two derivatives and one `clamp` (`benches/fill.rs`
//! measures it against one). Both stages declare the tier's samplers (one unit each), so the
//! usable units are the fewest of the fragment, vertex and half the combined limits.
//!
//! With `Instance::FLAG_CLAMP_TO_RECT` (clamp-to-edge textures) the sampling position is
//! clamped into the texture's own rectangle inset by half a texel,
//! `clamp(uv, tex_rect.xy + 0.5, tex_rect.zw - 0.5)` (in texels, then divided by the layer
//! size), or to the rectangle's centre on an axis where it is under one texel. The vertex
//! stage computes these bounds once per quad, flat
//! (unbounded without the flag), so the per-pixel cost is one `clamp`. UVs outside `0..1`,
//! flipped UVs, rotation and linear filtering at any scale then read only the texture's own
//! texels, never a neighbour's or the padding's: the parts of a quad past the texture's edge
//! show its edge texels. The clamp is at level 0: a mip level below it may still blend a
//! neighbour at the rectangle's border. Repeat and mirrored-repeat textures fill their whole
//! layer and are wrapped by the array's own `TEXTURE_WRAP_*` parameters; `FLAG_LINEAR`,
//! `FLAG_REPEAT` and `FLAG_MIRROR` are informational (samplers follow the array).
//!
//! ## Blending and colour
//!
//! Premultiplied alpha: by default ([`layerbatch_core::BlendMode::Over`]) blend `ONE,
//! ONE_MINUS_SRC_ALPHA` for colour and alpha, equation `FUNC_ADD`; a segment whose draw state
//! names another mode gets that mode's [`layerbatch_core::BlendMode::factors`] (the wgpu
//! backend builds its pipelines from the same table). Texels must be premultiplied (as core documents for `TextureStore::register`), tints
//! are premultiplied, and the output is `texel * tint`. sRGB arrays (`SRGB8_ALPHA8`) are
//! decoded by the sampler; whether the framebuffer encodes is the host's `FRAMEBUFFER_SRGB`
//! (desktop) or framebuffer format, which the renderer leaves alone.
//!
//! ## Coordinates
//!
//! Instance positions are pixels, `(0, 0)` at the top-left corner of the viewport, y down.
//! [`Target::viewport_px`] sets the viewport to `(0, 0, w, h)` and the projection with it.
//! A segment's draw state transforms the corners first (a uniform, `Globals`' `linear` and
//! `translate`), multiplies every quad's colour by its tint (`Globals`' `tint`: a resident
//! layer's) and may
//! clip to a rectangle of the target (y down), drawn with `glScissor` (y flipped to GL's
//! window coordinates, intersected with the host's box under [`Target::keep_host_clip`]); a
//! segment clipped away entirely issues no draw.
//!
//! ## GL state
//!
//! [`Renderer::paint`] saves every piece of state below before changing it and restores it
//! before returning (errors included). Only the groups a plan needs are saved and touched.
//!
//! - Texture units `0..n` (`n` = the largest tier drawn, or 1 when the plan creates, grows,
//!   shrinks or writes arrays or ramp rows or draws into a render target; with lights, draws
//!   also take units `slots..slots + tier`, and with a ramp, draws of a segment marked
//!   `effects` take every unit up to [`layerbatch_core::Budget::ramp_unit`]): the
//!   `TEXTURE_2D_ARRAY` binding
//!   and the bound sampler object (set to 0 so the arrays' own filters and wraps apply);
//!   `ACTIVE_TEXTURE`. A host binding that names an array the paint deleted is restored as 0.
//! - Unit [`layerbatch_core::Budget::motion_unit`] (the one after the fragment stage's), when
//!   the plan makes or writes a moving layer's motion texture, or draws resident layers while
//!   the renderer holds one: its `TEXTURE_2D` binding and its sampler object (set to 0).
//! - Draws: `CURRENT_PROGRAM`, `VERTEX_ARRAY_BINDING` (the renderer has its own vertex array),
//!   `ARRAY_BUFFER_BINDING`, `VIEWPORT`, and of draw buffer 0 (below) `BLEND` (enabled) and
//!   the blend functions and equations; `DRAW_FRAMEBUFFER_BINDING` when [`Target::framebuffer`]
//!   names one or the plan draws into a render target.
//! - Draws into the host's framebuffer when it has several draw buffers (`DRAW_BUFFER1..`
//!   not all `NONE`): `glDrawBuffers`, set to draw buffer 0's buffer alone for the draws and
//!   put back after. The fragment stage writes output 0 only, so the paint draws into draw
//!   buffer 0 only (nothing when that is `NONE`), and the other attachments are left as
//!   they were instead of receiving undefined values.
//! - Draws and blit copies: `SCISSOR_TEST`, `DEPTH_TEST`, `STENCIL_TEST`, `CULL_FACE`,
//!   `RASTERIZER_DISCARD`, `SAMPLE_ALPHA_TO_COVERAGE`, `SAMPLE_COVERAGE`, and where the context
//!   has them `COLOR_LOGIC_OP` (desktop GL), `SAMPLE_MASK` (GL 3.2, GLES 3.1),
//!   `PRIMITIVE_RESTART` (desktop GL 3.1) and `CLIP_DISTANCE0..n` (desktop GL, GLES with
//!   `GL_EXT_clip_cull_distance`; the first 16 at most, drivers commonly have 8), all
//!   disabled while painting; `COLOR_WRITEMASK` of draw buffer 0 (all channels on). With
//!   [`Target::keep_host_clip`] the draws run with the host's `SCISSOR_TEST` and
//!   `STENCIL_TEST` (and its scissor box and stencil function) instead, so the host's clip
//!   applies; layer copies never run clipped.
//! - Draws with a clip rectangle in the plan's draw states: `SCISSOR_BOX` (and
//!   `SCISSOR_TEST`, above).
//! - Resident layers made or written (`glBufferData`, `glBufferSubData` on the layer's own
//!   buffer): `ARRAY_BUFFER_BINDING`. Their draws bind the layer's buffer to `ARRAY_BUFFER` and
//!   point the renderer's vertex array at it (saved with the draws above).
//! - Layer writes: `PIXEL_UNPACK_BUFFER_BINDING` (0 while uploading), `UNPACK_ALIGNMENT` (1),
//!   `UNPACK_ROW_LENGTH`, `UNPACK_IMAGE_HEIGHT`, `UNPACK_SKIP_PIXELS`, `UNPACK_SKIP_ROWS`,
//!   `UNPACK_SKIP_IMAGES` (0).
//! - GPU copies (growth, shrinking, rectangle copies) without copy-image (see
//!   [`CopyPath::Blit`]): `READ_FRAMEBUFFER_BINDING`, `DRAW_FRAMEBUFFER_BINDING` (the
//!   renderer's two copy framebuffers), and on desktop GL for sRGB arrays `FRAMEBUFFER_SRGB`
//!   (enabled), put back right after each op's copies, before any draw.
//! - Render targets: after the draws, the mip pass (for a target with mip levels) binds the
//!   target's array on unit 0, its own program, vertex array and framebuffer, sets the
//!   viewport and disables `BLEND` and `SCISSOR_TEST` (all saved above), narrows the array's
//!   `TEXTURE_BASE_LEVEL` / `TEXTURE_MAX_LEVEL` to the level it reads and sets them back, and
//!   on desktop GL enables `FRAMEBUFFER_SRGB` for an sRGB target, put back as found.
//!
//! Per draw buffer: blend enables, blend functions and equations and colour masks are
//! per-draw-buffer state (`glEnablei`, `glBlendFuncSeparatei`, `glColorMaski`). The paint
//! changes draw buffer 0's only, with the indexed setters where the context has them
//! (`glEnablei` / `glColorMaski`: GL 3.0, GLES 3.2; `glBlendFuncSeparatei` /
//! `glBlendEquationSeparatei`: GL 4.0, GLES 3.2), and saves and restores draw buffer 0's
//! values, which is what the non-indexed queries (`glIsEnabled(GL_BLEND)`,
//! `glGetIntegerv(GL_BLEND_SRC_RGB)`, `glGetBooleanv(GL_COLOR_WRITEMASK)`) report: the other
//! draw buffers' state is never touched, so it comes back exactly. Without the indexed
//! setters the global ones set every draw buffer at once, which is exact wherever the host
//! could not set them apart either. glow loads only the core names: a host that set
//! per-buffer state through an `ARB`, `EXT` or `OES` entry point on a context whose version
//! lacks the core one (blend functions per buffer through `GL_ARB_draw_buffers_blend` on
//! GL 3.x, anything per buffer through `GL_OES_draw_buffers_indexed` on GLES 3.0 or 3.1)
//! gets draw buffer 0's value on every draw buffer for that state after a paint.
//!
//! Read but never changed: `CLIP_ORIGIN` (GL 4.5, `GL_ARB_clip_control`,
//! `GL_EXT_clip_control`): under a host's `UPPER_LEFT` the draws flip their quads so they
//! still come out upright (glow has no `glClipControl` to set it with). `CLIP_DEPTH_MODE`
//! does not matter: the quads are at depth 0, inside either range.
//!
//! Not saved, because the renderer never changes it: everything else, e.g. `POLYGON_MODE`
//! (desktop; a host left in wireframe sees wireframe quads), `FRAMEBUFFER_SRGB` outside sRGB
//! blits and sRGB render targets, `DITHER`, `MULTISAMPLE` and `SAMPLE_SHADING`, the blend
//! colour (no blend mode uses it), the depth and stencil functions (the tests are off),
//! `PROVOKING_VERTEX` (every corner of a quad carries the same attributes). Texture
//! parameters are set on the renderer's own array textures only. Saving costs about 50
//! `glGet*` calls per paint.
//!
//! [`Renderer::new`] changes and restores `CURRENT_PROGRAM`, `VERTEX_ARRAY_BINDING` and
//! `ARRAY_BUFFER_BINDING`. [`Renderer::destroy`] deletes the renderer's objects and changes
//! nothing else.
//!
//! ## Threads and the current context
//!
//! A GL context is current on at most one thread at a time, and every GL call goes to the
//! context current on the calling thread. These issue GL: [`Renderer::new`],
//! [`Renderer::with_capabilities`], [`Renderer::paint`] and [`Renderer::destroy`] (on the
//! context the renderer was created with, which it keeps), and [`Renderer::query_limits`] and
//! [`Capabilities::detect`] (on the context passed). Each needs that context current on the
//! calling thread. Nothing else issues GL: every `&self` method ([`Renderer::stats`],
//! [`Renderer::tiers`], [`Renderer::array_texture`], ...), [`Renderer::abandon`] and `Drop`
//! (which only logs a leak) are fine on any thread, with any context or none current.
//!
//! [`Renderer`] is `Send + Sync` natively (as `glow::Context` is; in a browser neither is), so
//! it can live where the host's GL runs: in an egui paint callback, which must be
//! `Send + Sync` (egui_glow's `CallbackFn`; the callback holds the renderer in an
//! `Arc<Mutex<_>>`, and egui_glow calls it with its context current), or on a render thread
//! the context is made current on. The GL-issuing methods take `&mut self` or consume the
//! renderer, so two threads never issue GL through one renderer at once; `Sync` shares only
//! the `&self` methods, which issue none.
//!
//! Rust does not check which context is current: glow has no way to ask, and the methods
//! above are safe functions. That is the one precondition of this crate's safe API, the
//! same one every call of glow's `unsafe` `HasContext` methods carries, which the host takes
//! on when it creates the `glow::Context` (`from_loader_function` is `unsafe`) and makes its
//! context current. Calling them with another context current, or none, is undefined at the
//! GL level, and *not* guaranteed to be memory-safe, so the renderer does not claim it is:
//!
//! - the renderer's object names then name another context's objects, or nothing: a paint
//!   may write into or delete that context's textures and buffers;
//! - the draws read their vertices and indices through the renderer's vertex array, which
//!   does not exist in another context: binding it fails and the other context's stays
//!   bound; where that is the default vertex array of a GLES or compatibility-profile
//!   context with no element or array buffer, the driver reads the draw's offsets as
//!   client-memory addresses (a null pointer for the indices);
//! - with no context current, some platforms (WGL) call context-specific function pointers.
//!
//! A context that merely shares objects with the renderer's (`share_context`) is another
//! context too: vertex arrays and framebuffers are never shared. The contract is not in the
//! types because each way of putting it there breaks the hosts it is for: a `!Send`
//! renderer cannot sit in an egui paint callback, an `unsafe fn paint` makes every caller
//! write `unsafe` for a promise it already made to glow, and a "current context" token
//! parameter would itself be an unchecked assertion, since nothing can check it.
//!
//! ## Texture units
//!
//! Slot `s` is texture unit `s`; with lights its normal-map sibling is unit `slots + s`; the
//! ramp ([`layerbatch_core::Effect::with_ramp`]), a one-layer `TEXTURE_2D_ARRAY` made at the
//! first paint that needs it, is bound on [`layerbatch_core::Budget::ramp_unit`] before the
//! draws of a paint with a segment marked `effects` (not counted in `texture_binds`). A paint follows core's draw walk
//! ([`layerbatch_core::execute::DrawSteps`]), which starts from nothing bound: the first draw of a
//! paint that samples a slot (a `Some` entry of its segment's slot table) binds that slot's
//! array, even when an earlier plan bound it (every paint restores the host's units
//! afterwards), and a slot is bound again only when a later draw samples another array in it.
//! `DeviceCounters::texture_binds` counts those `glBindTexture` calls, the walk's `Bind`
//! steps: the same number the mock and layerbatch-wgpu count for the plan.
//!
//! ## Errors and recovery
//!
//! [`Renderer::paint`] checks the plan first; a refused plan ([`Error::Plan`]) did nothing and
//! the renderer is unchanged. Plans are numbered: a skipped or repeated plan is
//! [`layerbatch_core::PlanError::Sequence`].
//!
//! Then it reads and drops the GL errors the host left pending (`glGetError` until
//! `NO_ERROR`, at most 16 times, each logged at `debug!`), so that the errors it checks for
//! next are its own. After every array creation, GPU copy (growth, shrink, rectangle copy)
//! and layer write (once, after its last mip level) it calls `glGetError`, and any error is
//! an [`Error::Device`] naming the op (e.g. an array larger than the driver can create). Draws
//! are checked only in debug builds (`debug_assertions`), as a `glGetError` per draw can
//! stall a driver. After such an error the renderer deletes every
//! array it holds and accepts only a rebuild plan: call [`layerbatch_core::Batcher::restore`],
//! re-upload the textures it returns with `TextureStore::update`, and paint the next plan. The
//! host's GL state is restored on every error path.
//!
//! A rebuild plan (`FramePlan::rebuild`) deletes every array the renderer holds before its
//! ops re-create the live ones.
//!
//! ## Instances
//!
//! One vertex buffer, streamed per frame: each block of `FramePlan::instance_capacity`
//! instances is uploaded with `glBufferData` (which orphans the previous store) before its
//! segments are drawn. How a segment is drawn follows the budget's `indexed_quads`
//! (`layerbatch_core::QuadVertices`; `Renderer::query_limits` reports llvmpipe, softpipe and
//! SwiftShader, also behind ANGLE, as software rasterizers, where `Auto` picks indexed):
//!
//! - **Instanced** (the default on GPUs): one `glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4,
//!   quads)`, the attributes advancing per instance.
//! - **Indexed** (the default on software rasterizers, which run an instanced draw as one
//!   internal draw per instance): each instance uploaded once per corner, and one
//!   `glDrawElements(GL_TRIANGLES, 6 * quads, GL_UNSIGNED_INT)` from an element buffer made at
//!   creation for `instance_capacity` quads (`quad_indices`; 1.5 MiB at the default 65,536),
//!   bound in the renderer's own vertex array. On GLES and WebGL2 `query_limits` keeps a
//!   block within `MAX_ELEMENT_INDEX`.
//!
//! GLES 3.0 has neither base instance nor base vertex, so the attribute pointers are offset to
//! the segment's first quad. The stride is `Instance::BYTES`; the attribute pointers (and
//! the vertex shader's inputs, `layout(location = N) in <type> a_<name>;`) are generated from
//! core's table `Instance::ATTRIBUTES`: location, format (integers through
//! `glVertexAttribIPointer`) and byte offset of each field.
//!
//! ## Arrays
//!
//! `glTexStorage3D` where the context has it (GL 4.2, GLES 3.0, `GL_ARB_texture_storage`),
//! else `glTexImage3D` per level; `glTexSubImage3D` per level for layer writes, at the write's
//! offset in the layer. GPU copies use `glCopyImageSubData` (GL 4.3, GLES 3.2,
//! `GL_ARB_copy_image`) where the context has it, else a framebuffer blit (the source layer
//! and level attached to a read framebuffer, the destination's to a draw framebuffer):
//!
//! - `ArrayOp::Grow` creates the new array, which may have larger layers as well as more of
//!   them, copies layers `0..copy_layers` of every level of the old one, each as the *old*
//!   array's width x height, to the origin of the same layer and level (texel coordinates stay
//!   valid), then deletes the old array.
//! - `ArrayOp::Shrink` does the same into an array with fewer layers of the same size.
//! - `ArrayOp::CopyRect` copies a level-0 rectangle from a layer of one array to a layer of
//!   another, or to another layer of the same array (compaction of atlas pages): one
//!   `glCopyImageSubData`, or one blit from the source layer to the destination layer.
//! - `ArrayOp::HostContents` copies a host texture (the host's `GL_TEXTURE_2D`, handed over
//!   with [`Renderer::set_host_texture`]) into layer 0 of its array: one blit, flipped for
//!   [`HostRows::BottomFirst`]; GL cannot sample a 2D texture as an array, so its limits
//!   leave `host_texture_views` off and core plans copies (see the host textures chapter).
//!
//! Core may reuse an array id from the plan after the one that destroyed it (or grew or
//! shrank from it). Everything the renderer keeps for an array, its texture and a render
//! target's framebuffer, lives in one entry of its id, removed when the id goes (a destroy,
//! a growth or shrink from it, a rebuild, an error), so a reused id starts afresh.
//!
//! ## Render targets
//!
//! A plan with a target (`FramePlan::target`) draws into a layer of a render-target array
//! through a framebuffer the renderer makes on first use and keeps with the array: the
//! viewport is the whole target, the quads are flipped so that texel row 0 is the top row,
//! the target is cleared first when the plan asks, and on desktop GL an sRGB target is drawn
//! with `FRAMEBUFFER_SRGB` on. After a plan into a target whose array has mip levels, levels
//! `1..` of the target's layer are regenerated, each from the level above, by a box filter of
//! the renderer's own (a program made at creation, drawing each level through a framebuffer of
//! its own; `glGenerateMipmap`'s filter is the driver's, and llvmpipe's drops texels on odd
//! sides), the same as layerbatch-wgpu's, whether or not the plan drew anything, as core
//! documents for every executor (`PlanTarget`): a target drawn minified later shows what was
//! drawn. Counted as `DeviceCounters::mip_levels_regenerated`.
//!
//! ## Frames
//!
//! GL runs each `paint` in order, so a plan's uploads never reach a draw of an earlier plan:
//! one plan after another needs nothing more. A host that also draws with layerbatch-wgpu, or
//! wants the glyph cache to keep a frame's glyphs across several plans, calls
//! [`Batcher::end_frame`](layerbatch_core::Batcher::end_frame) once a frame: memory freed in
//! a frame is then reused after it ends.
//!
//! ## Counters
//!
//! [`Renderer::stats`] returns core's counters of the last plan and the renderer's
//! [`layerbatch_core::DeviceCounters`] (recorded with `Stats::record`). The renderer counts
//! what its draws issue: draw calls, `glBindTexture`s for slots (texture binds), instance
//! bytes uploaded; programs linked are counted at creation. Core's `PlanRunner` counts the
//! resource work, as for every executor: texture bytes uploaded, layers copied
//! (`copy_layers` per growth or shrink, 1 per rectangle copy), arrays created and destroyed
//! (growth and shrinking create one and destroy one; a rebuild's deletions included), mip
//! levels regenerated (`mip_levels - 1` per plan into a render target with mip levels, see
//! [Render targets](#render-targets)).
//! `bind_group_*` stay 0 on GL.
#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

// One glow, named `glow` at the crate root: an `extern crate ... as glow` there also puts the
// name in the extern prelude, so every `glow::` path in the crate resolves to the one the
// features chose, and `pub` re-exports it (a `pub use glow;` beside it would define the name
// twice). `glow-0-17` wins when both are on.
/// The glow crate this build uses: pass a `layerbatch_gl::glow::Context`.
///
/// glow 0.17 here (the `glow-0-17` feature); see [glow versions](crate#glow-versions). Name
/// glow through this re-export so the context the host creates is the one the renderer takes.
#[cfg(feature = "glow-0-17")]
pub extern crate glow017 as glow;
/// The glow crate this build uses: pass a `layerbatch_gl::glow::Context`.
///
/// glow 0.18 here (the `glow-0-18` feature, the default); `glow-0-17` switches to glow 0.17,
/// see [glow versions](crate#glow-versions). Name glow through this re-export so the context
/// the host creates is the one the renderer takes.
#[cfg(all(feature = "glow-0-18", not(feature = "glow-0-17")))]
pub extern crate glow018 as glow;
#[cfg(not(any(feature = "glow-0-18", feature = "glow-0-17")))]
compile_error!(
    "layerbatch-gl needs a glow: enable its `glow-0-18` feature (the default) or `glow-0-17`; \
     with `default-features = false`, name one of them in `features`"
);

mod arrays;
mod error;
mod fixed;
mod formats;
mod host;
mod host_textures;
mod motions;
mod program;
mod ramp;
mod renderer;
mod residents;
mod shader;
mod state;
mod target;

pub use error::{Error, Stage};
pub use host_textures::HostRows;
#[doc(hidden)]
pub use program::compile_program_for_test;
pub use renderer::{Capabilities, CopyPath, Renderer};
pub use shader::{effect_glsl, program_sources};
pub use target::Target;
