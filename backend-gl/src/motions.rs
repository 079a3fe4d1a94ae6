//! Moving layers' motion textures: one `GL_TEXTURE_2D` each, RGBA32F, a sprite a texel
//! ([`layerbatch_core::motion_texture_size`]), written by rectangles (`glTexSubImage2D`) and
//! read by the vertex stage with `texelFetch`. Everything happens on one texture unit,
//! [`layerbatch_core::Budget::motion_unit`], whose `TEXTURE_2D` binding and sampler the paint
//! saves and puts back.
#![allow(unsafe_code)]

use std::collections::HashMap;

use glow::HasContext;
use layerbatch_core::plan::MotionWrite;
use layerbatch_core::{Motion, ResidentId};

use crate::error::{check_gl, Error};

/// The motion textures of one context.
#[derive(Debug)]
pub(crate) struct MotionTextures {
    /// The unit they are made, written and drawn on.
    unit: u32,
    textures: HashMap<ResidentId, glow::Texture>,
}

impl MotionTextures {
    /// None yet, on `unit`.
    pub(crate) fn new(unit: u32) -> Self {
        Self { unit, textures: HashMap::new() }
    }

    /// The unit they live on.
    pub(crate) fn unit(&self) -> u32 {
        self.unit
    }

    /// Whether any is held (a paint then saves the unit's binding).
    pub(crate) fn any(&self) -> bool {
        !self.textures.is_empty()
    }

    /// Makes `resident`'s motion texture, `size` texels, contents undefined.
    pub(crate) fn create(&mut self, gl: &glow::Context, resident: ResidentId, size: [u32; 2]) -> Result<(), Error> {
        let op = || format!("create the motion texture of moving layer {resident:?} ({}x{} texels)", size[0], size[1]);
        let [w, h] = size.map(|v| i32::try_from(v).unwrap_or(i32::MAX));
        // SAFETY: a new texture of ours, bound to TEXTURE_2D on our unit (its binding saved by
        // the paint), given one RGBA32F level with no data read (a null pointer); deleted
        // again if GL reports an error.
        unsafe {
            let texture = gl.create_texture().map_err(|message| Error::create_object("motion texture", message))?;
            gl.active_texture(glow::TEXTURE0 + self.unit);
            gl.bind_texture(glow::TEXTURE_2D, Some(texture));
            gl.tex_image_2d(
                glow::TEXTURE_2D,
                0,
                glow::RGBA32F as i32,
                w,
                h,
                0,
                glow::RGBA,
                glow::FLOAT,
                glow::PixelUnpackData::Slice(None),
            );
            // One level, not filterable: complete with NEAREST (texelFetch ignores filtering).
            gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_MIN_FILTER, glow::NEAREST as i32);
            gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_MAG_FILTER, glow::NEAREST as i32);
            gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_MAX_LEVEL, 0);
            if let Err(e) = check_gl(gl, op) {
                gl.delete_texture(texture);
                return Err(e);
            }
            if let Some(old) = self.textures.insert(resident, texture) {
                gl.delete_texture(old);
            }
        }
        Ok(())
    }

    /// Writes a rectangle of motions.
    pub(crate) fn write(&mut self, gl: &glow::Context, write: &MotionWrite<'_>) -> Result<(), Error> {
        let resident = write.resident;
        let op = || format!("write the motions of moving layer {resident:?} at {:?}", write.rect);
        let texture = *self.textures.get(&resident).ok_or_else(|| Error::gl(op(), glow::INVALID_OPERATION))?;
        let [x, y, w, h] = write.rect.map(|v| i32::try_from(v).unwrap_or(i32::MAX));
        let texels = write.rect[2] as usize * write.rect[3] as usize;
        let motions: &[Motion] = write.motions.get(..texels).ok_or_else(|| Error::gl(op(), glow::INVALID_VALUE))?;
        // SAFETY: our live texture bound on our unit (saved by the paint); the validator kept
        // the rectangle inside the texture made for the layer's sprites, and `motions` holds
        // exactly its `w * h` texels of 16 bytes; unpack state is tightly packed rows from
        // client memory (set by `Saved`).
        unsafe {
            gl.active_texture(glow::TEXTURE0 + self.unit);
            gl.bind_texture(glow::TEXTURE_2D, Some(texture));
            gl.tex_sub_image_2d(
                glow::TEXTURE_2D,
                0,
                x,
                y,
                w,
                h,
                glow::RGBA,
                glow::FLOAT,
                glow::PixelUnpackData::Slice(Some(bytemuck::cast_slice(motions))),
            );
        }
        Ok(())
    }

    /// Binds `resident`'s motion texture on the unit for the draws that follow; `false` when
    /// none is held (the layer does not move).
    pub(crate) fn bind(&self, gl: &glow::Context, resident: ResidentId) -> bool {
        let Some(&texture) = self.textures.get(&resident) else { return false };
        // SAFETY: our live texture; the unit's TEXTURE_2D binding was saved by the paint.
        unsafe {
            gl.active_texture(glow::TEXTURE0 + self.unit);
            gl.bind_texture(glow::TEXTURE_2D, Some(texture));
        }
        true
    }

    /// Deletes `resident`'s motion texture, if it has one.
    pub(crate) fn destroy(&mut self, gl: &glow::Context, resident: ResidentId) {
        if let Some(texture) = self.textures.remove(&resident) {
            // SAFETY: our texture; GL frees it once draws using it are done.
            unsafe { gl.delete_texture(texture) };
        }
    }

    /// Deletes every motion texture (a rebuild plan, an error, the renderer dropped).
    pub(crate) fn drop_all(&mut self, gl: &glow::Context) {
        for (_, texture) in self.textures.drain() {
            // SAFETY: our textures.
            unsafe { gl.delete_texture(texture) };
        }
    }
}
