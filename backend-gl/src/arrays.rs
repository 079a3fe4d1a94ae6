//! The renderer's texture arrays on GL: core's [`Executor`] for a plan's resource ops.
//!
//! Core's [`layerbatch_core::execute::PlanRunner`] checks each plan, calls these in the plan's
//! order and counts what they did; this module only issues GL. Everything kept for an array
//! (its texture, a render target's framebuffer) lives in one entry of its id, removed when
//! the id goes, so a reused id starts afresh.
#![allow(unsafe_code)]

use std::collections::HashMap;
use std::sync::Arc;

use glow::HasContext;

use layerbatch_core::execute::{Executor, HostFill, LayerCopy, LevelUpload, RectCopy};
use layerbatch_core::plan::{ArrayDesc, ArrayId, CellWrite, MotionWrite, ResidentWrite};
use layerbatch_core::{mip_size, Filter, Format, PlanError, ResidentId, Wrap};

use crate::error::{check_gl, Error};
use crate::formats::{gl_format, Upload};
use crate::host::HostGl;
use crate::motions::MotionTextures;
use crate::ramp::GlRamp;
use crate::renderer::Capabilities;
use crate::residents::ResidentBuffers;

/// One GPU copy between two arrays (or two layers of one): `size` = `[width, height, layers]`
/// texels of `level`, from `from` = `[x, y, first layer]` to `to`.
#[derive(Clone, Copy, Debug)]
struct Region {
    level: u32,
    from: [u32; 3],
    to: [u32; 3],
    size: [u32; 3],
}

impl Region {
    fn is_empty(&self) -> bool {
        self.size.contains(&0)
    }
}

#[derive(Debug)]
struct GpuArray {
    texture: glow::Texture,
    desc: ArrayDesc,
    /// The framebuffer drawing into a layer of a render-target array, made on first use.
    target_fbo: Option<(u32, glow::Framebuffer)>,
}

/// The arrays the renderer holds, by id, and the framebuffers its copies and render targets
/// use. Its [`Executor`] methods run with the paint's state saved (`Needs` asks for unit 0,
/// unpack state and, for blits, the capabilities a blit must not see).
#[derive(Debug)]
pub(crate) struct GlArrays {
    gl: Arc<glow::Context>,
    /// Reads and restores the host's framebuffer bindings around blit copies.
    host: HostGl,
    caps: Capabilities,
    arrays: HashMap<ArrayId, GpuArray>,
    /// Read and draw framebuffers of blit copies, made on first use.
    copy_fbos: Option<[glow::Framebuffer; 2]>,
    /// Textures deleted during the current paint: the host's bindings of them are restored
    /// as 0.
    deleted: Vec<glow::Texture>,
    /// Resident layers' vertex buffers.
    pub(crate) residents: ResidentBuffers,
    /// Moving layers' motion textures.
    pub(crate) motions: MotionTextures,
    /// The ramp effects read, if the budget has one.
    pub(crate) ramp: GlRamp,
    /// The host's textures ([`crate::Renderer::set_host_texture`]), by host texture id.
    pub(crate) host_textures: HashMap<layerbatch_core::TextureId, crate::host_textures::HostTexture>,
}

impl GlArrays {
    /// No arrays yet, on `gl` with the capabilities in use.
    pub(crate) fn new(gl: Arc<glow::Context>, host: HostGl, caps: Capabilities, units: (Option<u32>, u32)) -> Self {
        let (ramp_unit, motion_unit) = units;
        let residents = ResidentBuffers::default();
        let motions = MotionTextures::new(motion_unit);
        let ramp = GlRamp::new(ramp_unit);
        let (arrays, deleted) = (HashMap::new(), Vec::new());
        let host_textures = HashMap::new();
        Self { gl, host, caps, arrays, copy_fbos: None, deleted, residents, motions, ramp, host_textures }
    }

    /// The context.
    pub(crate) fn gl(&self) -> &glow::Context {
        &self.gl
    }

    /// The host's bindings, read and put back.
    pub(crate) fn host_gl(&self) -> &HostGl {
        &self.host
    }

    /// The context is GLES (WebGL2 included).
    pub(crate) fn gles(&self) -> bool {
        self.caps.gles
    }

    /// Arrays held.
    pub(crate) fn len(&self) -> usize {
        self.arrays.len()
    }

    /// The texture and description of a held array.
    pub(crate) fn get(&self, array: ArrayId) -> Option<(glow::Texture, &ArrayDesc)> {
        self.arrays.get(&array).map(|a| (a.texture, &a.desc))
    }

    /// The texture of a held array.
    pub(crate) fn texture(&self, array: ArrayId) -> Option<glow::Texture> {
        self.arrays.get(&array).map(|a| a.texture)
    }

    /// The size of a live array's layers, texels.
    pub(crate) fn size_px(&self, array: ArrayId) -> Option<[u32; 2]> {
        self.arrays.get(&array).map(|a| [a.desc.width_px, a.desc.height_px])
    }

    /// Starts a paint: no texture deleted yet.
    pub(crate) fn begin_paint(&mut self) {
        self.deleted.clear();
    }

    /// The textures deleted since [`GlArrays::begin_paint`].
    pub(crate) fn deleted(&self) -> &[glow::Texture] {
        &self.deleted
    }

    /// The framebuffer drawing into `layer` of render-target array `array`, made (and checked
    /// complete) on first use and kept with the array. Leaves it bound to `DRAW_FRAMEBUFFER`
    /// when it was made now; the caller binds it either way.
    pub(crate) fn target_framebuffer(&mut self, array: ArrayId, layer: u32) -> Result<glow::Framebuffer, Error> {
        let gl = &self.gl;
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
            let fbo = gl.create_framebuffer().map_err(|message| Error::create_object("framebuffer", message))?;
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
                return Err(Error::incomplete_framebuffer(status));
            }
            a.target_fbo = Some((layer, fbo));
            Ok(fbo)
        }
    }

    /// Deletes every GL object held (arrays, their framebuffers, the copy framebuffers), for
    /// the renderer's `destroy`.
    pub(crate) fn destroy(&mut self) {
        self.residents.drop_all(&self.gl);
        self.motions.drop_all(&self.gl);
        self.ramp.delete(&self.gl);
        let gl = &self.gl;
        // SAFETY: every handle below was created here on this context and leaves the map (or
        // the option) as it is deleted, so each is deleted once.
        unsafe {
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
        }
    }

    /// The array `id` of an op the runner checked: a miss would be a renderer bug, reported as
    /// the validator's error for an unknown array rather than a panic.
    fn array(&self, id: ArrayId) -> Result<&GpuArray, Error> {
        self.arrays.get(&id).ok_or(Error::Plan(PlanError::UnknownArray { at: 0, array: id }))
    }

    /// Deletes an array (already removed from the map) and its target framebuffer.
    fn delete_gpu_array(&mut self, a: GpuArray) {
        // SAFETY: our framebuffer and texture, deleted once (the array left the map); the
        // host's draw-framebuffer binding is restored after the paint, never to ours, and
        // `deleted` keeps the host's texture bindings from naming the texture.
        unsafe {
            if let Some((_, fbo)) = a.target_fbo {
                self.gl.delete_framebuffer(fbo);
            }
            self.gl.delete_texture(a.texture);
        }
        self.deleted.push(a.texture);
    }

    /// Copies `regions` of `from` into `to` on the GPU (possibly one texture: a rectangle copy
    /// between two layers of one array), both arrays of `format`: `glCopyImageSubData` per
    /// region where the context has it, else a framebuffer blit per region and layer.
    fn gpu_copy(
        &mut self,
        from: glow::Texture,
        to: glow::Texture,
        format: Format,
        regions: impl Iterator<Item = Region> + Clone,
    ) -> Result<(), Error> {
        if self.caps.copy_image {
            self.copy_image(from, to, regions);
            return Ok(());
        }
        if regions.clone().all(|r| r.is_empty()) {
            return Ok(());
        }
        let fbos = self.copy_framebuffers()?;
        self.blit(fbos, from, to, format, regions)
    }

    /// `glCopyImageSubData` per non-empty region.
    fn copy_image(&self, from: glow::Texture, to: glow::Texture, regions: impl Iterator<Item = Region>) {
        for r in regions.filter(|r| !r.is_empty()) {
            let ([fx, fy, fz], [tx, ty, tz], [w, h, d]) = (r.from, r.to, r.size);
            // SAFETY: both textures are live arrays of one format; the validator checked every
            // region lies inside both (layers, and the level's size: the old array's extent,
            // which the new one's covers). A copy within one texture is between two different
            // layers, so source and destination never overlap.
            unsafe {
                self.gl.copy_image_sub_data(
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
    }

    /// The read and draw framebuffers of blit copies, made on first use.
    pub(crate) fn copy_framebuffers(&mut self) -> Result<[glow::Framebuffer; 2], Error> {
        if let Some(f) = self.copy_fbos {
            return Ok(f);
        }
        let gl = &self.gl;
        // SAFETY: framebuffer object creation; a half-made pair is deleted.
        let fbos = unsafe {
            let a = gl.create_framebuffer().map_err(|message| Error::create_object("framebuffer", message))?;
            match gl.create_framebuffer() {
                Ok(b) => [a, b],
                Err(message) => {
                    gl.delete_framebuffer(a);
                    return Err(Error::create_object("framebuffer", message));
                }
            }
        };
        self.copy_fbos = Some(fbos);
        Ok(fbos)
    }

    /// Copies `regions` by blitting, layer by layer, between the read and draw framebuffers
    /// `read_fbo` and `draw_fbo`, and puts back the framebuffer bindings and
    /// `FRAMEBUFFER_SRGB` as found.
    fn blit(
        &self,
        [read_fbo, draw_fbo]: [glow::Framebuffer; 2],
        from: glow::Texture,
        to: glow::Texture,
        format: Format,
        regions: impl Iterator<Item = Region>,
    ) -> Result<(), Error> {
        let gl = &self.gl;
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
                            result = Err(Error::incomplete_framebuffer(status));
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
}

impl Executor for GlArrays {
    type Error = Error;

    /// Deletes every array and resident buffer (a rebuild plan, or after an error).
    fn drop_arrays(&mut self) {
        self.residents.drop_all(&self.gl);
        self.motions.drop_all(&self.gl);
        let mut arrays = std::mem::take(&mut self.arrays);
        for (_, a) in arrays.drain() {
            self.delete_gpu_array(a);
        }
        // Keeps the map's capacity.
        self.arrays = arrays;
    }

    /// `glTexStorage3D` where the context has it, else `glTexImage3D` per level; filter and
    /// wrap from the description as texture parameters. Binds the new texture on the active
    /// unit (unit 0, saved by the paint).
    fn create_array(&mut self, id: ArrayId, desc: &ArrayDesc) -> Result<(), Error> {
        let gl = &self.gl;
        let (internal, upload) = gl_format(desc.format);
        let mipmapped = desc.mip_levels > 1;
        let sampler = desc.sampler;
        let (min, mag) =
            (gl_min_filter(sampler.min_filter, sampler.mipmap_filter, mipmapped), gl_filter(sampler.mag_filter));
        let (wrap_s, wrap_t) = (gl_wrap(sampler.wrap_u), gl_wrap(sampler.wrap_v));
        let zero_blocks = match &upload {
            Upload::Compressed if !self.caps.texture_storage => vec![0u8; zero_block_bytes(desc)?],
            _ => Vec::new(),
        };
        // SAFETY: a new texture object bound to TEXTURE_2D_ARRAY on unit 0 (saved by `Saved`);
        // storage is allocated without client data (a null pointer), or, compressed without
        // texStorage, from `zero_blocks`, which holds at least each level's bytes.
        let texture = unsafe {
            let texture = gl.create_texture().map_err(|message| Error::create_object("array texture", message))?;
            gl.bind_texture(glow::TEXTURE_2D_ARRAY, Some(texture));
            // The levels and filters first: without texture storage, Mesa sizes a texture's
            // storage from the first glTexImage3D and the sampler state then (the default
            // NEAREST_MIPMAP_LINEAR filter, max level 1000). Set after, an array of 2+ layers
            // with a level 1 texel wide ended up with no storage at all: blits into it were
            // GL_FRAMEBUFFER_UNSUPPORTED (0x8CDD) and the plan failed.
            let t = glow::TEXTURE_2D_ARRAY;
            gl.tex_parameter_i32(t, glow::TEXTURE_BASE_LEVEL, 0);
            gl.tex_parameter_i32(t, glow::TEXTURE_MAX_LEVEL, desc.mip_levels as i32 - 1);
            gl.tex_parameter_i32(t, glow::TEXTURE_MIN_FILTER, min as i32);
            gl.tex_parameter_i32(t, glow::TEXTURE_MAG_FILTER, mag as i32);
            gl.tex_parameter_i32(t, glow::TEXTURE_WRAP_S, wrap_s as i32);
            gl.tex_parameter_i32(t, glow::TEXTURE_WRAP_T, wrap_t as i32);
            let (w, h, layers) = (desc.width_px as i32, desc.height_px as i32, desc.layers as i32);
            if self.caps.texture_storage {
                gl.tex_storage_3d(glow::TEXTURE_2D_ARRAY, desc.mip_levels as i32, internal, w, h, layers);
            } else {
                for level in 0..desc.mip_levels {
                    let (lw, lh) = mip_size(desc.width_px, desc.height_px, level);
                    match upload {
                        Upload::Plain { format, ty } => gl.tex_image_3d(
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
                        ),
                        Upload::Compressed => {
                            // At most level 0's bytes, checked above.
                            let bytes = desc.format.image_bytes(lw, lh) as usize * desc.layers as usize;
                            gl.compressed_tex_image_3d(
                                glow::TEXTURE_2D_ARRAY,
                                level as i32,
                                internal as i32,
                                lw as i32,
                                lh as i32,
                                layers,
                                0,
                                bytes as i32,
                                &zero_blocks[..bytes],
                            );
                        }
                    }
                }
            }
            texture
        };
        // Held before the check, so that a failed array is deleted with the others.
        self.arrays.insert(id, GpuArray { texture, desc: *desc, target_fbo: None });
        check_gl(&self.gl, || {
            let (w, h, n) = (desc.width_px, desc.height_px, desc.layers);
            format!("create array {} ({w}x{h}, {n} layer{})", id.0, if n == 1 { "" } else { "s" })
        })
    }

    /// Each layer as the old array's width x height, every level, to the origin: a growth may
    /// enlarge the layers, and texel coordinates stay.
    fn copy_layers(&mut self, copy: &LayerCopy) -> Result<(), Error> {
        let from = self.array(copy.from)?.texture;
        let to = self.array(copy.to)?.texture;
        // `LayerCopy::levels`, as a cloneable iterator.
        let regions = (0..copy.mip_levels).map(|level| {
            let (w, h) = mip_size(copy.size_px[0], copy.size_px[1], level);
            Region { level, from: [0, 0, 0], to: [0, 0, 0], size: [w, h, copy.layers] }
        });
        self.gpu_copy(from, to, copy.format, regions)?;
        check_gl(&self.gl, || {
            let ([w, h], levels) = (copy.size_px, copy.mip_levels);
            format!(
                "copy {} layers of array {} into {} ({w}x{h}, {levels} level{})",
                copy.layers,
                copy.from.0,
                copy.to.0,
                if levels == 1 { "" } else { "s" }
            )
        })
    }

    fn host_contents(&mut self, fill: &HostFill) -> Result<(), Error> {
        self.copy_host(fill)
    }

    fn copy_rect(&mut self, copy: &RectCopy) -> Result<(), Error> {
        let from = self.array(copy.from)?.texture;
        let to = self.array(copy.to)?.texture;
        let ([fx, fy], [tx, ty], [w, h]) = (copy.from_xy, copy.to_xy, copy.size);
        let region = Region { level: 0, from: [fx, fy, copy.from_layer], to: [tx, ty, copy.to_layer], size: [w, h, 1] };
        self.gpu_copy(from, to, copy.format, std::iter::once(region))?;
        check_gl(&self.gl, || {
            format!(
                "copy rect {w}x{h} from layer {} of array {} at {fx}, {fy} to layer {} of array {} at {tx}, {ty}",
                copy.from_layer, copy.from.0, copy.to_layer, copy.to.0
            )
        })
    }

    fn create_resident(&mut self, resident: ResidentId, instances: u32, indexed: bool) -> Result<(), Error> {
        self.residents.create(&self.gl, resident, instances, indexed)
    }

    fn write_resident(&mut self, write: &ResidentWrite<'_>) -> Result<(), Error> {
        self.residents.write(&self.gl, write)
    }

    fn destroy_resident(&mut self, resident: ResidentId) {
        self.residents.destroy(&self.gl, resident);
        self.motions.destroy(&self.gl, resident);
    }

    /// Makes a motion texture on the motion unit (its binding saved by the paint).
    fn create_motion(&mut self, resident: ResidentId, size_texels: [u32; 2]) -> Result<(), Error> {
        self.motions.create(&self.gl, resident, size_texels)
    }

    /// Uploads the motions as they are: GL's limits do not stage motion writes, so core
    /// checked them when it planned.
    fn write_motion(&mut self, write: &MotionWrite<'_>) -> Result<u64, Error> {
        self.motions.write(&self.gl, write).map(|()| 0)
    }

    /// GL has no grid culling pass: its limits report no storage binding, so core keeps tile
    /// grids on the CPU and the validator refuses a plan with cells before this is reached.
    fn create_cells(&mut self, resident: ResidentId, _cells: u32) -> Result<(), Error> {
        Err(PlanError::BadResident { at: 0, resident, reason: "created with cells on GL, which culls on the CPU" }
            .into())
    }

    fn write_cells(&mut self, write: &CellWrite<'_>) -> Result<(), Error> {
        let resident = write.resident;
        Err(PlanError::BadResident { at: 0, resident, reason: "cells written on GL, which culls on the CPU" }.into())
    }

    /// Writes a ramp row on the active unit (unit 0, saved by the paint).
    fn write_ramp(&mut self, row: u32, texels: &[u8]) -> Result<(), Error> {
        self.ramp.write(&self.gl, row, texels)?;
        check_gl(&self.gl, || format!("ramp row {row} write"))
    }

    fn destroy_array(&mut self, id: ArrayId) {
        if let Some(a) = self.arrays.remove(&id) {
            self.delete_gpu_array(a);
        }
    }

    /// `glTexSubImage3D` (`glCompressedTexSubImage3D` for whole blocks, clipped to the
    /// level's edge as GL wants) of the level's rectangle, from client memory; binds the array
    /// on the active unit (unit 0, saved by the paint).
    fn write_level(&mut self, write: &LevelUpload<'_>) -> Result<(), Error> {
        let a = self.array(write.array)?;
        let (texture, desc) = (a.texture, a.desc);
        let (internal, upload) = gl_format(write.format);
        let l = &write.level;
        let gl = &self.gl;
        // SAFETY: the texture is live; the validator checked the rectangle lies in the layer
        // (on blocks, for a compressed format) and the runner hands exactly the level's
        // `row_bytes * rows` bytes; unpack state is tightly packed rows from client memory
        // (set by `Saved`).
        unsafe {
            gl.bind_texture(glow::TEXTURE_2D_ARRAY, Some(texture));
            match upload {
                Upload::Plain { format, ty } => gl.tex_sub_image_3d(
                    glow::TEXTURE_2D_ARRAY,
                    l.level as i32,
                    l.x_px as i32,
                    l.y_px as i32,
                    write.layer as i32,
                    l.width_px as i32,
                    l.height_px as i32,
                    1,
                    format,
                    ty,
                    glow::PixelUnpackData::Slice(Some(write.bytes)),
                ),
                Upload::Compressed => {
                    let (w, h) = l.clipped_px(mip_size(desc.width_px, desc.height_px, l.level));
                    gl.compressed_tex_sub_image_3d(
                        glow::TEXTURE_2D_ARRAY,
                        l.level as i32,
                        l.x_px as i32,
                        l.y_px as i32,
                        write.layer as i32,
                        w as i32,
                        h as i32,
                        1,
                        internal,
                        glow::CompressedPixelUnpackData::Slice(write.bytes),
                    );
                }
            }
        }
        // One error check per write, after its last level: `glGetError` is a sync point on
        // some drivers, and a loading burst writes hundreds of textures.
        if l.level + 1 < write.mip_levels {
            return Ok(());
        }
        check_gl(&self.gl, || {
            format!(
                "write layer {} of array {} ({} level(s); level {}: {}x{} at {}, {})",
                write.layer, write.array.0, write.mip_levels, l.level, l.width_px, l.height_px, l.x_px, l.y_px
            )
        })
    }
}

/// GL's minification filter: `filter` within a level, `mipmap_filter` between levels (with
/// one level, `filter` alone: GL's plain `LINEAR` / `NEAREST`).
fn gl_min_filter(filter: Filter, mipmap_filter: Filter, mipmapped: bool) -> u32 {
    match (filter, mipmap_filter, mipmapped) {
        (_, _, false) => gl_filter(filter),
        (Filter::Nearest, Filter::Nearest, true) => glow::NEAREST_MIPMAP_NEAREST,
        (Filter::Nearest, Filter::Linear, true) => glow::NEAREST_MIPMAP_LINEAR,
        (Filter::Linear, Filter::Nearest, true) => glow::LINEAR_MIPMAP_NEAREST,
        (Filter::Linear, Filter::Linear, true) => glow::LINEAR_MIPMAP_LINEAR,
    }
}

/// GL's filter within a level.
fn gl_filter(filter: Filter) -> u32 {
    match filter {
        Filter::Nearest => glow::NEAREST,
        Filter::Linear => glow::LINEAR,
    }
}

/// GL's wrap of one axis.
fn gl_wrap(wrap: Wrap) -> u32 {
    match wrap {
        Wrap::ClampToEdge => glow::CLAMP_TO_EDGE,
        Wrap::Repeat => glow::REPEAT,
        Wrap::MirroredRepeat => glow::MIRRORED_REPEAT,
    }
}

/// Bytes of zero blocks a compressed array's storage takes without texStorage (`glCompressedTexImage3D`
/// takes data): level 0's blocks, every layer; one buffer of that size serves every level. An
/// error past GL's `GLsizei` (2 GiB), where `as i32` would wrap.
fn zero_block_bytes(desc: &ArrayDesc) -> Result<usize, Error> {
    let bytes = desc.format.image_bytes(desc.width_px, desc.height_px).saturating_mul(u64::from(desc.layers));
    match i32::try_from(bytes) {
        Ok(b) => Ok(b as usize),
        Err(_) => Err(Error::create_object(
            "compressed array texture",
            format!("{bytes} bytes of {} blocks: more than GL's 2 GiB image size", desc.format),
        )),
    }
}

#[cfg(test)]
mod zero_block_tests {
    use super::*;
    use layerbatch_core::Sampler;

    /// Compressed storage without texStorage: the zero blocks are level 0's bytes (one buffer
    /// for every level), and an array past 2 GiB is an error, not a wrapped `i32`.
    #[test]
    fn zero_blocks_fit_gl_sizes_or_are_refused() {
        let desc = |w, h, layers| ArrayDesc {
            width_px: w,
            height_px: h,
            layers,
            format: Format::Bc7RgbaUnorm,
            mip_levels: 5,
            sampler: Sampler::default(),
            render_target: false,
            normal_map: false,
            host: None,
        };
        assert_eq!(zero_block_bytes(&desc(64, 64, 3)).unwrap(), 16 * 16 * 16 * 3);
        // 16384x16384 BC7 is 256 MiB a layer: 8 layers are 2 GiB, one byte past i32::MAX.
        let err = zero_block_bytes(&desc(16384, 16384, 8)).unwrap_err();
        assert!(err.to_string().contains("2147483648 bytes"), "{err}");
        assert!(zero_block_bytes(&desc(16384, 16384, 7)).is_ok());
    }
}
