//! The renderer: executes frame plans on the host's GL context.
#![allow(unsafe_code)]

use std::collections::HashMap;
use std::sync::Arc;

use glow::HasContext;
use layerbatch_core::{
    mip_chain_bytes, mip_size, ArrayDesc, ArrayId, ArrayOp, Budget, DeviceCounters, Filter, Format, FramePlan,
    Instance, Limits, ResourceOp, Segment, Stats, Wrap,
};

use crate::error::Error;
use crate::program::{self, TierProgram};
use crate::shader::attr;
use crate::state::{Needs, Saved};

const INSTANCE_BYTES: usize = std::mem::size_of::<Instance>();
const _: () = assert!(INSTANCE_BYTES == 48);

/// Where a paint draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    /// The framebuffer to draw into, bound to `DRAW_FRAMEBUFFER` for the paint and then
    /// rebound to what was there. `None`: whatever the host has bound (the default
    /// framebuffer, or its own FBO).
    pub framebuffer: Option<glow::Framebuffer>,
    /// Viewport size in pixels. The viewport is set to `(0, 0, w, h)`; instance positions are
    /// pixels with `(0, 0)` at the top-left corner and y pointing down. A zero width or height
    /// applies the plan's resource ops and draws nothing.
    pub viewport_px: [u32; 2],
}

impl Target {
    /// Draw into whatever framebuffer the host has bound, over a `w x h` viewport.
    pub const fn bound(viewport_px: [u32; 2]) -> Self {
        Self { framebuffer: None, viewport_px }
    }
    /// Draw into `framebuffer`, over a `w x h` viewport.
    pub const fn framebuffer(framebuffer: glow::Framebuffer, viewport_px: [u32; 2]) -> Self {
        Self { framebuffer: Some(framebuffer), viewport_px }
    }
}

/// What the context offers that the renderer can use, detected once at creation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capabilities {
    /// An OpenGL ES context: shaders are `#version 300 es`. Otherwise `#version 330 core`.
    pub gles: bool,
    /// `glCopyImageSubData` (GL 4.3, GLES 3.2, `GL_ARB_copy_image`): array growth copies
    /// layers with it. Otherwise each layer and level is blitted between two framebuffers.
    pub copy_image: bool,
    /// `glTexStorage3D` (GL 4.2, GLES 3.0, `GL_ARB_texture_storage`): arrays get immutable
    /// storage. Otherwise `glTexImage3D` per level.
    pub texture_storage: bool,
    /// `MAX_TEXTURE_IMAGE_UNITS`.
    pub max_texture_units: u32,
}

impl Capabilities {
    /// Reads the capabilities of the current context.
    pub fn detect(gl: &glow::Context) -> Self {
        let v = gl.version();
        let ext = gl.supported_extensions();
        let at_least = |major: u32, minor: u32| (v.major, v.minor) >= (major, minor);
        // SAFETY: a plain integer query on the current context.
        let units = unsafe { gl.get_parameter_i32(glow::MAX_TEXTURE_IMAGE_UNITS) }.max(0) as u32;
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

/// How array growth copies layers on the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyPath {
    /// `glCopyImageSubData`, all layers of a level in one call.
    CopyImage,
    /// `glFramebufferTextureLayer` + `glBlitFramebuffer`, per layer and level.
    Blit,
}

#[derive(Debug)]
struct GpuArray {
    texture: glow::Texture,
    desc: ArrayDesc,
}

/// Executes [`FramePlan`]s on the host's GL context: one program per slot tier, texture
/// arrays, one streamed instance buffer. See the crate docs for the GL state it touches.
pub struct Renderer {
    gl: Arc<glow::Context>,
    caps: Capabilities,
    programs: Vec<TierProgram>,
    vao: glow::VertexArray,
    vbo: glow::Buffer,
    arrays: HashMap<ArrayId, GpuArray>,
    copy_fbos: Option<[glow::Framebuffer; 2]>,
    frames_painted: u64,
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
            .field("frames_painted", &self.frames_painted)
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl Renderer {
    /// Reads the device limits core needs, once: `MAX_TEXTURE_IMAGE_UNITS` (units and
    /// samplers), `MAX_ARRAY_TEXTURE_LAYERS`, `MAX_TEXTURE_SIZE`. Logs the GL version, renderer
    /// and these limits at `debug!`.
    pub fn query_limits(gl: &glow::Context) -> Limits {
        // SAFETY: integer and string queries on the current context.
        let (units, layers, size, version, renderer, glsl) = unsafe {
            (
                gl.get_parameter_i32(glow::MAX_TEXTURE_IMAGE_UNITS).max(0) as u32,
                gl.get_parameter_i32(glow::MAX_ARRAY_TEXTURE_LAYERS).max(0) as u32,
                gl.get_parameter_i32(glow::MAX_TEXTURE_SIZE).max(0) as u32,
                gl.get_parameter_string(glow::VERSION),
                gl.get_parameter_string(glow::RENDERER),
                gl.get_parameter_string(glow::SHADING_LANGUAGE_VERSION),
            )
        };
        log::debug!(
            "layerbatch-gl: {version} ({renderer}), GLSL {glsl}; MAX_TEXTURE_IMAGE_UNITS {units}, \
             MAX_ARRAY_TEXTURE_LAYERS {layers}, MAX_TEXTURE_SIZE {size}"
        );
        Limits {
            max_texture_units: units,
            max_samplers: units,
            max_array_layers: layers,
            max_texture_size_px: size,
            avoid_ambiguous_layer_counts: false,
        }
    }

    /// Creates the renderer for `budget` (from [`layerbatch_core::Batcher::budget`]): compiles
    /// and links one program per tier in `budget.tiers`, now and never again, and creates its
    /// vertex array and instance buffer. The host's program, vertex array and array buffer
    /// bindings are restored before returning.
    ///
    /// # Errors
    /// [`Error::Shader`] with the stage and info log if any tier fails to compile or link
    /// (every object made so far is deleted), [`Error::SlotsAboveDevice`] for a budget from
    /// another device, [`Error::CreateObject`] if the driver refuses an object.
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
        let detected = Capabilities::detect(&gl);
        let caps = Capabilities {
            gles: detected.gles,
            copy_image: caps.copy_image && detected.copy_image,
            texture_storage: caps.texture_storage && detected.texture_storage,
            max_texture_units: detected.max_texture_units,
        };
        if budget.slots > caps.max_texture_units {
            return Err(Error::SlotsAboveDevice { slots: budget.slots, units: caps.max_texture_units });
        }
        // SAFETY: queries and object creation on the current context; every object created
        // here is deleted on the error paths, and the bindings changed are restored.
        unsafe {
            let prev_program = gl.get_parameter_program(glow::CURRENT_PROGRAM);
            let prev_vao = gl.get_parameter_vertex_array(glow::VERTEX_ARRAY_BINDING);
            let prev_buffer = gl.get_parameter_buffer(glow::ARRAY_BUFFER_BINDING);
            let restore = |gl: &glow::Context| {
                gl.use_program(prev_program);
                gl.bind_vertex_array(prev_vao);
                gl.bind_buffer(glow::ARRAY_BUFFER, prev_buffer);
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
                });
            let (vao, vbo) = match objects {
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
            let capacity_bytes = budget.instance_capacity as usize * INSTANCE_BYTES;
            gl.buffer_data_size(glow::ARRAY_BUFFER, capacity_bytes.min(i32::MAX as usize) as i32, glow::STREAM_DRAW);
            for a in 0..attr::COUNT {
                gl.enable_vertex_attrib_array(a);
                gl.vertex_attrib_divisor(a, 1);
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
            let device_total = DeviceCounters { pipeline_compiles: links, ..DeviceCounters::default() };
            Ok(Self {
                gl,
                caps,
                programs,
                vao,
                vbo,
                arrays: HashMap::new(),
                copy_fbos: None,
                frames_painted: 0,
                stats: Stats { device_total, ..Stats::default() },
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

    /// How array growth copies layers.
    pub fn copy_path(&self) -> CopyPath {
        if self.caps.copy_image {
            CopyPath::CopyImage
        } else {
            CopyPath::Blit
        }
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

    /// Executes `plan` into `target`: applies its resource ops in order (array creation,
    /// growth by GPU copy, destruction, layer writes), then draws its segments in order, each
    /// with the program of its tier, after binding the arrays its slot table names. Every
    /// plan the batcher finishes must be painted, once, in order.
    ///
    /// The GL state changed is listed in the crate docs; it is restored before returning,
    /// on errors too.
    ///
    /// # Errors
    /// [`Error::FrameOrder`] for a plan out of sequence (nothing is done then), or an error
    /// naming what in the plan the device could not execute (a core bug; the device may then
    /// be partly updated).
    pub fn paint(&mut self, plan: &FramePlan, target: &Target) -> Result<(), Error> {
        let expected = self.frames_painted + 1;
        if plan.totals.frames != expected {
            return Err(Error::FrameOrder { expected, got: plan.totals.frames });
        }
        let [w, h] = target.viewport_px;
        let draw = !plan.segments.is_empty() && w > 0 && h > 0;
        let mut needs = Needs { draw, draw_framebuffer: draw && target.framebuffer.is_some(), ..Needs::default() };
        let mut srgb_blit = false;
        for op in &plan.ops {
            match op {
                ResourceOp::WriteLayer { .. } => {
                    needs.upload = true;
                    needs.units = needs.units.max(1);
                }
                ResourceOp::Array(ArrayOp::Create { .. }) => needs.units = needs.units.max(1),
                ResourceOp::Array(ArrayOp::Grow { desc, .. }) => {
                    needs.units = needs.units.max(1);
                    if !self.caps.copy_image {
                        needs.blit = true;
                        srgb_blit |= !self.caps.gles && desc.format == Format::Rgba8UnormSrgb;
                    }
                }
                ResourceOp::Array(ArrayOp::Destroy { .. }) => {}
            }
        }
        if draw {
            let max_tier = plan.segments.iter().map(|s| s.tier).max().unwrap_or(1);
            needs.units = needs.units.max(max_tier.min(self.frame_bound.len() as u32));
        }
        let saved = Saved::capture_and_prepare(&self.gl, needs);
        let mut c = DeviceCounters { frames: 1, ..DeviceCounters::default() };
        self.deleted.clear();
        self.drawn_tiers.clear();
        let mut result = self.apply_ops(plan, &mut c, srgb_blit);
        if result.is_ok() && draw {
            result = self.draw(plan, target, &mut c);
        }
        saved.restore(&self.gl, &self.deleted);
        self.frames_painted += 1;
        self.stats.core_frame = plan.counters;
        self.stats.core_total = plan.totals;
        self.stats.device_frame = c;
        self.stats.device_total.accumulate(&c);
        result
    }

    /// Deletes every GL object the renderer made (programs, vertex array, buffer, arrays,
    /// copy framebuffers). The renderer's context must be current.
    pub fn destroy(mut self) {
        let gl = &self.gl;
        // SAFETY: every handle below was created by this renderer on this context and is
        // deleted exactly once (the renderer is consumed).
        unsafe {
            for p in self.programs.drain(..) {
                gl.delete_program(p.program);
            }
            for (_, a) in self.arrays.drain() {
                gl.delete_texture(a.texture);
            }
            if let Some(fbos) = self.copy_fbos.take() {
                for f in fbos {
                    gl.delete_framebuffer(f);
                }
            }
            gl.delete_vertex_array(self.vao);
            gl.delete_buffer(self.vbo);
        }
        self.destroyed = true;
    }

    fn array(&self, id: ArrayId) -> Result<&GpuArray, Error> {
        self.arrays.get(&id).ok_or(Error::UnknownArray(id))
    }

    fn apply_ops(&mut self, plan: &FramePlan, c: &mut DeviceCounters, srgb_blit: bool) -> Result<(), Error> {
        for op in &plan.ops {
            match op {
                ResourceOp::Array(ArrayOp::Create { array, desc }) => {
                    self.create_array(*array, *desc)?;
                    c.arrays_created += 1;
                }
                ResourceOp::Array(ArrayOp::Grow { from, to, desc, copy_layers }) => {
                    let old = self.array(*from)?;
                    let (old_tex, old_desc) = (old.texture, old.desc);
                    let copy_layers = (*copy_layers).min(old_desc.layers).min(desc.layers);
                    self.create_array(*to, *desc)?;
                    c.arrays_created += 1;
                    let new_tex = self.arrays[to].texture;
                    let levels = old_desc.mip_levels.min(desc.mip_levels);
                    let (w, h) = (old_desc.width_px.min(desc.width_px), old_desc.height_px.min(desc.height_px));
                    self.copy_layers(old_tex, new_tex, w, h, levels, copy_layers, srgb_blit)?;
                    c.layers_copied += copy_layers as u64;
                    self.delete_array(*from);
                    c.arrays_destroyed += 1;
                }
                ResourceOp::Array(ArrayOp::Destroy { array }) => {
                    self.array(*array)?;
                    self.delete_array(*array);
                    c.arrays_destroyed += 1;
                }
                ResourceOp::WriteLayer { array, layer, x_px, y_px, width_px, height_px, mip_levels, .. } => {
                    let bytes = plan.upload(op);
                    let a = self.array(*array)?;
                    let d = a.desc;
                    if *layer >= d.layers
                        || x_px + width_px > d.width_px
                        || y_px + height_px > d.height_px
                        || *mip_levels > d.mip_levels
                        || bytes.len() as u64 != mip_chain_bytes(*width_px, *height_px, *mip_levels)
                    {
                        return Err(Error::BadWrite {
                            array: *array,
                            layer: *layer,
                            width_px: *width_px,
                            height_px: *height_px,
                            mip_levels: *mip_levels,
                            bytes: bytes.len(),
                        });
                    }
                    let gl = &self.gl;
                    // SAFETY: the texture is live; every level's slice holds exactly
                    // `w * h * 4` bytes (the total was checked against the mip chain above);
                    // unpack state is tight rows from client memory (set by `Saved`).
                    unsafe {
                        gl.bind_texture(glow::TEXTURE_2D_ARRAY, Some(a.texture));
                        let mut offset = 0;
                        for level in 0..*mip_levels {
                            let (lw, lh) = mip_size(*width_px, *height_px, level);
                            let n = lw as usize * lh as usize * 4;
                            gl.tex_sub_image_3d(
                                glow::TEXTURE_2D_ARRAY,
                                level as i32,
                                (x_px >> level) as i32,
                                (y_px >> level) as i32,
                                *layer as i32,
                                lw as i32,
                                lh as i32,
                                1,
                                glow::RGBA,
                                glow::UNSIGNED_BYTE,
                                glow::PixelUnpackData::Slice(Some(&bytes[offset..offset + n])),
                            );
                            offset += n;
                        }
                    }
                    c.texture_bytes_written += bytes.len() as u64;
                }
            }
        }
        Ok(())
    }

    fn create_array(&mut self, id: ArrayId, desc: ArrayDesc) -> Result<(), Error> {
        if self.arrays.contains_key(&id) {
            return Err(Error::ArrayExists(id));
        }
        let gl = &self.gl;
        let internal = match desc.format {
            Format::Rgba8Unorm => glow::RGBA8,
            Format::Rgba8UnormSrgb => glow::SRGB8_ALPHA8,
        };
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
                        glow::RGBA,
                        glow::UNSIGNED_BYTE,
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
        self.arrays.insert(id, GpuArray { texture, desc });
        Ok(())
    }

    fn delete_array(&mut self, id: ArrayId) {
        if let Some(a) = self.arrays.remove(&id) {
            // SAFETY: the texture was created by this renderer and is removed from the map, so
            // it is deleted once; `deleted` keeps the host's bindings from naming it.
            unsafe { self.gl.delete_texture(a.texture) };
            self.deleted.push(a.texture);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn copy_layers(
        &mut self,
        from: glow::Texture,
        to: glow::Texture,
        width_px: u32,
        height_px: u32,
        levels: u32,
        layers: u32,
        srgb_blit: bool,
    ) -> Result<(), Error> {
        if layers == 0 {
            return Ok(());
        }
        let gl = &self.gl;
        if self.caps.copy_image {
            for level in 0..levels {
                let (w, h) = mip_size(width_px, height_px, level);
                // SAFETY: both textures are live arrays of the same format with at least
                // `layers` layers and `levels` levels of at least `w x h` (checked by caller).
                unsafe {
                    gl.copy_image_sub_data(
                        from,
                        glow::TEXTURE_2D_ARRAY,
                        level as i32,
                        0,
                        0,
                        0,
                        to,
                        glow::TEXTURE_2D_ARRAY,
                        level as i32,
                        0,
                        0,
                        0,
                        w as i32,
                        h as i32,
                        layers as i32,
                    );
                }
            }
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
        // SAFETY: our own framebuffers, attached to live layers and levels of `from` and `to`;
        // completeness is checked before each blit; both attachments are removed afterwards,
        // before `from` is deleted; the framebuffer bindings and FRAMEBUFFER_SRGB found here
        // are put back before returning (the draws that follow use the host's framebuffer).
        unsafe {
            let prev_read = gl.get_parameter_framebuffer(glow::READ_FRAMEBUFFER_BINDING);
            let prev_draw = gl.get_parameter_framebuffer(glow::DRAW_FRAMEBUFFER_BINDING);
            gl.bind_framebuffer(glow::READ_FRAMEBUFFER, Some(read_fbo));
            gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, Some(draw_fbo));
            let prev_srgb = srgb_blit && gl.is_enabled(glow::FRAMEBUFFER_SRGB);
            if srgb_blit {
                // Desktop GL may decode sRGB on a blit's read whatever FRAMEBUFFER_SRGB says,
                // but encodes on the write only with it on: with it on, both convert and the
                // bytes survive.
                gl.enable(glow::FRAMEBUFFER_SRGB);
            }
            let mut result = Ok(());
            'copy: for level in 0..levels {
                let (w, h) = mip_size(width_px, height_px, level);
                for layer in 0..layers {
                    gl.framebuffer_texture_layer(
                        glow::READ_FRAMEBUFFER,
                        glow::COLOR_ATTACHMENT0,
                        Some(from),
                        level as i32,
                        layer as i32,
                    );
                    gl.framebuffer_texture_layer(
                        glow::DRAW_FRAMEBUFFER,
                        glow::COLOR_ATTACHMENT0,
                        Some(to),
                        level as i32,
                        layer as i32,
                    );
                    for target in [glow::READ_FRAMEBUFFER, glow::DRAW_FRAMEBUFFER] {
                        let status = gl.check_framebuffer_status(target);
                        if status != glow::FRAMEBUFFER_COMPLETE {
                            result = Err(Error::IncompleteFramebuffer(status));
                            break 'copy;
                        }
                    }
                    let (w, h) = (w as i32, h as i32);
                    gl.blit_framebuffer(0, 0, w, h, 0, 0, w, h, glow::COLOR_BUFFER_BIT, glow::NEAREST);
                }
            }
            gl.framebuffer_texture_layer(glow::READ_FRAMEBUFFER, glow::COLOR_ATTACHMENT0, None, 0, 0);
            gl.framebuffer_texture_layer(glow::DRAW_FRAMEBUFFER, glow::COLOR_ATTACHMENT0, None, 0, 0);
            if srgb_blit && !prev_srgb {
                gl.disable(glow::FRAMEBUFFER_SRGB);
            }
            gl.bind_framebuffer(glow::READ_FRAMEBUFFER, prev_read);
            gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, prev_draw);
            result
        }
    }

    fn draw(&mut self, plan: &FramePlan, target: &Target, c: &mut DeviceCounters) -> Result<(), Error> {
        let gl = Arc::clone(&self.gl);
        let gl = &*gl;
        let [w, h] = target.viewport_px;
        let viewport = [w as f32, h as f32];
        let cap = plan.instance_capacity.max(1);
        // SAFETY: binds our own VAO and buffer and sets fixed-function state that `Saved`
        // captured; the framebuffer is the host's, named by the target.
        unsafe {
            if let Some(fb) = target.framebuffer {
                gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, Some(fb));
            }
            gl.viewport(0, 0, w.min(i32::MAX as u32) as i32, h.min(i32::MAX as u32) as i32);
            gl.enable(glow::BLEND);
            // Premultiplied alpha: texels and tints are premultiplied.
            gl.blend_func_separate(glow::ONE, glow::ONE_MINUS_SRC_ALPHA, glow::ONE, glow::ONE_MINUS_SRC_ALPHA);
            gl.blend_equation_separate(glow::FUNC_ADD, glow::FUNC_ADD);
            gl.bind_vertex_array(Some(self.vao));
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(self.vbo));
        }
        self.frame_bound.iter_mut().for_each(|b| *b = None);
        let mut chunk = u32::MAX;
        let mut current_program = usize::MAX;
        for seg in &plan.segments {
            let r = &seg.instances;
            if r.start >= r.end {
                continue;
            }
            let seg_chunk = r.start / cap;
            let chunk_start = seg_chunk * cap;
            if seg_chunk != chunk {
                chunk = seg_chunk;
                let end = (chunk_start as usize + cap as usize).min(plan.instances.len());
                let bytes: &[u8] = bytemuck::cast_slice(&plan.instances[chunk_start as usize..end]);
                // SAFETY: our buffer is bound to ARRAY_BUFFER; the slice is valid for its length.
                // Re-specifying the store orphans the previous chunk's data still in flight.
                unsafe { gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, bytes, glow::STREAM_DRAW) };
                c.instance_bytes_written += bytes.len() as u64;
            }
            let pi = self.programs.iter().position(|p| p.tier == seg.tier).ok_or(Error::UnknownTier(seg.tier))?;
            self.bind_segment(plan, seg, c)?;
            let prog = &mut self.programs[pi];
            // SAFETY: the program linked at creation; attribute offsets stay inside the chunk
            // just uploaded (the segment lies in it: core never crosses a capacity multiple).
            unsafe {
                if current_program != pi {
                    gl.use_program(Some(prog.program));
                    current_program = pi;
                }
                if prog.viewport != viewport {
                    gl.uniform_2_f32(prog.u_viewport.as_ref(), viewport[0], viewport[1]);
                    prog.viewport = viewport;
                }
                let base = ((r.start - chunk_start) as usize * INSTANCE_BYTES) as i32;
                let stride = INSTANCE_BYTES as i32;
                gl.vertex_attrib_pointer_f32(attr::ORIGIN, 2, glow::FLOAT, false, stride, base);
                gl.vertex_attrib_pointer_f32(attr::AXIS_X, 2, glow::FLOAT, false, stride, base + 8);
                gl.vertex_attrib_pointer_f32(attr::AXIS_Y, 2, glow::FLOAT, false, stride, base + 16);
                gl.vertex_attrib_pointer_f32(attr::UV_RECT, 4, glow::FLOAT, false, stride, base + 24);
                gl.vertex_attrib_pointer_f32(attr::COLOR, 4, glow::UNSIGNED_BYTE, true, stride, base + 40);
                gl.vertex_attrib_pointer_i32(attr::SLOT_FLAGS_LAYER, 1, glow::UNSIGNED_INT, stride, base + 44);
                gl.draw_arrays_instanced(glow::TRIANGLE_STRIP, 0, 4, (r.end - r.start) as i32);
            }
            c.draw_calls += 1;
            self.drawn_tiers.push(self.programs[pi].tier);
        }
        Ok(())
    }

    /// Applies a segment's binds, then binds every array of its slot table not yet bound on
    /// its unit during this paint (the host may have changed units between frames).
    fn bind_segment(&mut self, plan: &FramePlan, seg: &Segment, c: &mut DeviceCounters) -> Result<(), Error> {
        let table = plan.slots(seg);
        let wanted = plan
            .binds(seg)
            .iter()
            .map(|b| (b.slot, b.array))
            .chain(table.iter().enumerate().filter_map(|(s, a)| a.map(|a| (s as u32, a))));
        for (slot, array) in wanted {
            let s = slot as usize;
            if s >= self.frame_bound.len() {
                return Err(Error::UnknownTier(seg.tier));
            }
            if self.frame_bound[s] == Some(array) {
                continue;
            }
            let texture = self.array(array)?.texture;
            // SAFETY: a live texture of ours bound on a unit below the budget's slots (below
            // MAX_TEXTURE_IMAGE_UNITS, checked at creation); the unit's binding was saved.
            unsafe {
                self.gl.active_texture(glow::TEXTURE0 + slot);
                self.gl.bind_texture(glow::TEXTURE_2D_ARRAY, Some(texture));
            }
            self.frame_bound[s] = Some(array);
            c.texture_binds += 1;
        }
        Ok(())
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
