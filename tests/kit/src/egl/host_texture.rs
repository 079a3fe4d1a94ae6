//! A host's own GL texture, as an engine or a video decoder would make one: a `GL_TEXTURE_2D`
//! the host owns and writes, handed to layerbatch-gl as a host texture.

use layerbatch_gl::glow::{self, HasContext};

/// Makes an RGBA8 (or SRGB8_ALPHA8) `GL_TEXTURE_2D` of `size`, level 0 only, filled with
/// `pixels` (tight rows, row 0 first). Leaves unit 0's `TEXTURE_2D` binding at 0.
pub fn create(gl: &glow::Context, size: [u32; 2], srgb: bool, pixels: &[u8]) -> Result<glow::Texture, String> {
    let internal = if srgb { glow::SRGB8_ALPHA8 } else { glow::RGBA8 };
    // SAFETY: a new texture bound on unit 0, storage of exactly `size` from `pixels` (the
    // caller's tight RGBA8 rows, checked to be that long), unbound after.
    unsafe {
        assert_eq!(pixels.len(), (size[0] * size[1] * 4) as usize, "pixels of the texture's size");
        let t = gl.create_texture()?;
        gl.active_texture(glow::TEXTURE0);
        gl.bind_texture(glow::TEXTURE_2D, Some(t));
        gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_MAX_LEVEL, 0);
        gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_MIN_FILTER, glow::NEAREST as i32);
        gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_MAG_FILTER, glow::NEAREST as i32);
        gl.pixel_store_i32(glow::UNPACK_ALIGNMENT, 1);
        gl.tex_image_2d(
            glow::TEXTURE_2D,
            0,
            internal as i32,
            size[0] as i32,
            size[1] as i32,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            glow::PixelUnpackData::Slice(Some(pixels)),
        );
        gl.bind_texture(glow::TEXTURE_2D, None);
        Ok(t)
    }
}

/// The host draws new `pixels` into its texture `t` of `size` (a sub-image write of level 0).
pub fn write(gl: &glow::Context, t: glow::Texture, size: [u32; 2], pixels: &[u8]) {
    // SAFETY: the caller's live texture of `size`, written whole from `pixels` (checked to be
    // that long), unbound after.
    unsafe {
        assert_eq!(pixels.len(), (size[0] * size[1] * 4) as usize, "pixels of the texture's size");
        gl.active_texture(glow::TEXTURE0);
        gl.bind_texture(glow::TEXTURE_2D, Some(t));
        gl.pixel_store_i32(glow::UNPACK_ALIGNMENT, 1);
        gl.tex_sub_image_2d(
            glow::TEXTURE_2D,
            0,
            0,
            0,
            size[0] as i32,
            size[1] as i32,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            glow::PixelUnpackData::Slice(Some(pixels)),
        );
        gl.bind_texture(glow::TEXTURE_2D, None);
    }
}

/// Deletes the host's texture.
pub fn delete(gl: &glow::Context, t: glow::Texture) {
    // SAFETY: the caller's texture, deleted once; layerbatch-gl was told to forget it first.
    unsafe { gl.delete_texture(t) }
}
