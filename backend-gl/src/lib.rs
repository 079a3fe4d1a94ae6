//! # layerbatch-gl
//!
//! layerbatch's OpenGL / OpenGL ES backend, on [`glow`]. The main type is [`Renderer`]: it
//! executes the [`layerbatch_core::FramePlan`]s a [`layerbatch_core::Batcher`] produces, in the
//! host's GL context, into the host's framebuffer. Core decides everything (placement, slots,
//! segments, uploads, growths); the renderer only executes and counts what it issued.
//! Before touching GL it checks each plan with core's [`layerbatch_core::PlanValidator`], the
//! same check every executor runs, so a bad plan gets the same
//! [`layerbatch_core::PlanError`] here as anywhere else ([`Error::Plan`]).
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
//! let red = batcher.register(&TextureDesc::new(16, 16), &[255, 0, 0, 255].repeat(16 * 16))?;
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
//! One program per slot tier of the budget (1, 2, 4, ... up to `Budget::slots`), all compiled
//! and linked in [`Renderer::new`] and never after: `DeviceCounters::pipeline_compiles` equals
//! the tier count for the renderer's whole life. Slots are `sampler2DArray` uniforms on units
//! `0..tier`; the slot is chosen by a branch on a flat per-instance attribute (a balanced tree
//! of `if`s), the layer is a texture coordinate, and the tier-1 program has no branch at all.
//! UV derivatives are taken before the branch and sampling uses `textureGrad`, so mipmaps
//! work (see [Sampling](#sampling)). The bit layout of `Instance::slot_flags_layer` comes from
//! [`layerbatch_core::Instance::SHADER_CONSTANTS`], declared in both stages as
//! `const uint NAME = VALUEu;` and used by name. A compile or link failure is an [`Error::Shader`] with the [`Stage`] and the driver's
//! info log; nothing is drawn with a program that did not link. [`shader_sources`] returns the
//! generated GLSL.
//!
//! ## Sampling
//!
//! `Instance::uv_rect` and `Instance::tex_rect` are in texels of level 0, not `0..1`: the
//! vertex stage divides them by the size of the instance's layer (`textureSize` of its slot's
//! sampler, once per vertex), and the fragment stage takes the derivatives of the resulting
//! `0..1` position (before any branch), clamps it, and samples with `textureGrad`. An atlas
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
//! backend builds its pipelines from the same table). Texels must be premultiplied (as core documents for `Batcher::register`), tints
//! are premultiplied, and the output is `texel * tint`. sRGB arrays (`SRGB8_ALPHA8`) are
//! decoded by the sampler; whether the framebuffer encodes is the host's `FRAMEBUFFER_SRGB`
//! (desktop) or framebuffer format, which the renderer leaves alone.
//!
//! ## Coordinates
//!
//! Instance positions are pixels, `(0, 0)` at the top-left corner of the viewport, y down.
//! [`Target::viewport_px`] sets the viewport to `(0, 0, w, h)` and the projection with it.
//! A segment's draw state transforms the corners first (a uniform, `u_transform`) and may
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
//!   shrinks or writes arrays): the `TEXTURE_2D_ARRAY` binding and the bound sampler object (set to 0 so
//!   the arrays' own filter and wrap apply); `ACTIVE_TEXTURE`. A host binding that names an
//!   array the paint deleted is restored as 0.
//! - Draws: `CURRENT_PROGRAM`, `VERTEX_ARRAY_BINDING` (the renderer has its own vertex array),
//!   `ARRAY_BUFFER_BINDING`, `VIEWPORT`, `BLEND` (enabled), the blend functions and equations,
//!   `DRAW_FRAMEBUFFER_BINDING` when [`Target::framebuffer`] names one.
//! - Draws and blit copies: `SCISSOR_TEST`, `DEPTH_TEST`, `STENCIL_TEST`, `CULL_FACE`,
//!   `RASTERIZER_DISCARD`, `SAMPLE_ALPHA_TO_COVERAGE`, `SAMPLE_COVERAGE` (all disabled while
//!   painting) and `COLOR_WRITEMASK` (all channels on). With [`Target::keep_host_clip`] the
//!   draws run with the host's `SCISSOR_TEST` and `STENCIL_TEST` (and its scissor box and
//!   stencil function) instead, so the host's clip applies; layer copies never run clipped.
//! - Draws with a clip rectangle in the plan's draw states: `SCISSOR_BOX` (and
//!   `SCISSOR_TEST`, above).
//! - Layer writes: `PIXEL_UNPACK_BUFFER_BINDING` (0 while uploading), `UNPACK_ALIGNMENT` (1),
//!   `UNPACK_ROW_LENGTH`, `UNPACK_IMAGE_HEIGHT`, `UNPACK_SKIP_PIXELS`, `UNPACK_SKIP_ROWS`,
//!   `UNPACK_SKIP_IMAGES` (0).
//! - GPU copies (growth, shrinking, rectangle copies) without copy-image (see
//!   [`CopyPath::Blit`]): `READ_FRAMEBUFFER_BINDING`, `DRAW_FRAMEBUFFER_BINDING` (the
//!   renderer's two copy framebuffers), and on desktop GL for sRGB arrays `FRAMEBUFFER_SRGB`
//!   (enabled), put back right after each op's copies, before any draw.
//!
//! Not saved, because the renderer never changes it: everything else, e.g. `POLYGON_MODE`
//! (desktop; a host left in wireframe sees wireframe quads), `FRAMEBUFFER_SRGB` outside sRGB
//! blits, `DITHER`, the blend colour, the depth and stencil functions (the tests are off).
//! Texture parameters are set on the renderer's own array textures only. Saving costs about
//! 30 `glGet*` calls per paint.
//!
//! [`Renderer::new`] changes and restores `CURRENT_PROGRAM`, `VERTEX_ARRAY_BINDING` and
//! `ARRAY_BUFFER_BINDING`. [`Renderer::destroy`] deletes the renderer's objects and changes
//! nothing else.
//!
//! ## Texture units
//!
//! Slot `s` is texture unit `s`. Within a paint, each segment's binds (`FramePlan::binds`) are
//! applied with `glBindTexture` on their unit before the segment is drawn. Because every paint
//! restores the host's units afterwards, the binds of earlier plans do not survive: the first
//! segment of a paint that uses a slot (a `Some` entry of its slot table) binds that slot's
//! array even when the plan counts it as already bound. A bind of the array a unit already
//! holds in this paint is skipped. `DeviceCounters::texture_binds` counts the real
//! `glBindTexture` calls, so it is at least core's `slot_binds` and may exceed it.
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
//! and layer write it calls
//! `glGetError`, and any error is an [`Error::Gl`] naming the op (e.g. an array larger than
//! the driver can create). Draws are checked only in debug builds (`debug_assertions`), as a
//! `glGetError` per draw can stall a driver. After such an error the renderer deletes every
//! array it holds and accepts only a rebuild plan: call [`layerbatch_core::Batcher::restore`],
//! re-upload the textures it returns with `Batcher::update`, and paint the next plan. The
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
//! the segment's first quad. The stride and offsets are `Instance::BYTES` and the
//! `Instance::OFFSET_*` constants.
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
//!
//! ## Counters
//!
//! [`Renderer::stats`] returns core's counters of the last plan and the renderer's
//! [`layerbatch_core::DeviceCounters`] (recorded with `Stats::record`): draw calls,
//! `glBindTexture`s for slots (texture binds), programs linked, texture and instance bytes
//! uploaded, layers copied (`copy_layers` per growth or shrink, 1 per rectangle copy), arrays
//! created and destroyed (growth and shrinking create one and destroy one; a rebuild's
//! deletions included).
//! `bind_group_*` stay 0 on GL.
#![deny(missing_docs)]

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

mod error;
mod host;
mod program;
mod renderer;
mod shader;
mod state;

pub use error::{Error, Stage};
#[doc(hidden)]
pub use program::compile_program_for_test;
pub use renderer::{Capabilities, CopyPath, Renderer, Target};
pub use shader::shader_sources;
