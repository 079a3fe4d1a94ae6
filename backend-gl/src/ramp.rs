//! The ramp texture ([`layerbatch_core::Budget::ramp`]): one RGBA8 layer of
//! `RAMP_WIDTH_PX` x `RAMP_ROWS` texels that effects read through `lb_ramp`, bound on
//! [`layerbatch_core::Budget::ramp_unit`] for the draws.
#![allow(unsafe_code)]

use glow::HasContext;
use layerbatch_core::{RAMP_ROWS, RAMP_WIDTH_PX};

use crate::error::Error;

/// The ramp of a renderer whose budget has one.
#[derive(Debug, Default)]
pub(crate) struct GlRamp {
    /// The unit the draws sample it on; `None` without a ramp.
    unit: Option<u32>,
    /// Made at the first paint that needs it (all transparent black).
    texture: Option<glow::Texture>,
}

impl GlRamp {
    /// A ramp sampled on `unit`, or none.
    pub(crate) fn new(unit: Option<u32>) -> Self {
        Self { unit, texture: None }
    }

    /// The unit the draws sample it on, if the renderer has a ramp.
    pub(crate) fn unit(&self) -> Option<u32> {
        self.unit
    }

    /// Whether a paint must make the texture first (it uploads zeros: unpack state).
    pub(crate) fn needs_creation(&self) -> bool {
        self.unit.is_some() && self.texture.is_none()
    }

    /// The texture, made on first use: bound on the active unit (the paint saved its
    /// binding), cleared to transparent black from client memory (the paint set tightly
    /// packed unpack rows).
    fn texture(&mut self, gl: &glow::Context) -> Result<glow::Texture, Error> {
        if let Some(t) = self.texture {
            return Ok(t);
        }
        let (w, h) = (RAMP_WIDTH_PX as i32, RAMP_ROWS as i32);
        let zeros = vec![0u8; (RAMP_WIDTH_PX * RAMP_ROWS * 4) as usize];
        // SAFETY: a new texture object bound to TEXTURE_2D_ARRAY on the active unit (saved by
        // the paint); `zeros` holds exactly the one level's `w * h * 4` bytes.
        let texture = unsafe {
            let t = gl.create_texture().map_err(|message| Error::create_object("ramp texture", message))?;
            gl.bind_texture(glow::TEXTURE_2D_ARRAY, Some(t));
            gl.tex_image_3d(
                glow::TEXTURE_2D_ARRAY,
                0,
                glow::RGBA8 as i32,
                w,
                h,
                1,
                0,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                glow::PixelUnpackData::Slice(Some(&zeros)),
            );
            // One level: complete with a non-mipmap filter (texelFetch ignores filtering).
            gl.tex_parameter_i32(glow::TEXTURE_2D_ARRAY, glow::TEXTURE_MIN_FILTER, glow::NEAREST as i32);
            gl.tex_parameter_i32(glow::TEXTURE_2D_ARRAY, glow::TEXTURE_MAG_FILTER, glow::NEAREST as i32);
            gl.tex_parameter_i32(glow::TEXTURE_2D_ARRAY, glow::TEXTURE_MAX_LEVEL, 0);
            t
        };
        self.texture = Some(texture);
        Ok(texture)
    }

    /// Writes row `row` (`RAMP_WIDTH_PX` RGBA8 texels) on the active unit.
    pub(crate) fn write(&mut self, gl: &glow::Context, row: u32, texels: &[u8]) -> Result<(), Error> {
        let texture = self.texture(gl)?;
        // SAFETY: our live texture on the active unit (saved by the paint); the validator
        // checked `row < RAMP_ROWS` (a u8) and that `texels` is exactly one row's bytes; unpack
        // state is tightly packed rows from client memory (set by `Saved`).
        unsafe {
            gl.bind_texture(glow::TEXTURE_2D_ARRAY, Some(texture));
            gl.tex_sub_image_3d(
                glow::TEXTURE_2D_ARRAY,
                0,
                0,
                row as i32,
                0,
                RAMP_WIDTH_PX as i32,
                1,
                1,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                glow::PixelUnpackData::Slice(Some(texels)),
            );
        }
        Ok(())
    }

    /// Makes the texture if needed (on unit 0) and binds it on its unit for the draws.
    pub(crate) fn bind(&mut self, gl: &glow::Context) -> Result<(), Error> {
        let Some(unit) = self.unit else { return Ok(()) };
        let texture = self.texture(gl)?;
        // SAFETY: our live texture on unit `unit`, below MAX_TEXTURE_IMAGE_UNITS (checked at
        // creation), whose binding and sampler the paint saved.
        unsafe {
            gl.active_texture(glow::TEXTURE0 + unit);
            gl.bind_texture(glow::TEXTURE_2D_ARRAY, Some(texture));
        }
        Ok(())
    }

    /// Deletes the texture (the renderer's `destroy`).
    pub(crate) fn delete(&mut self, gl: &glow::Context) {
        if let Some(t) = self.texture.take() {
            // SAFETY: our texture, deleted once (taken out of the option).
            unsafe { gl.delete_texture(t) };
        }
    }
}
