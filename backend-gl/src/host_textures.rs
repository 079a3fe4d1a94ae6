//! Host textures ([`Usage::Host`](layerbatch_core::Usage::Host)) on GL: the host's own
//! `GL_TEXTURE_2D`s, handed over with [`Renderer::set_host_texture`]. A `GL_TEXTURE_2D`
//! cannot be sampled through a `sampler2DArray`, so core plans copies on GL
//! ([`HostAccess::Copy`](layerbatch_core::plan::HostAccess)): each fill of a host texture's
//! array is one framebuffer blit, on the GPU, from the host's texture into layer 0 of the
//! array (flipped where the host's rows run bottom first), counted in the device counters'
//! `host_copies` and `host_copy_bytes`.
#![allow(unsafe_code)]

use glow::HasContext;
use layerbatch_core::execute::HostFill;
use layerbatch_core::plan::{HostAccess, PlanError};
use layerbatch_core::{Format, TextureId};

use crate::arrays::GlArrays;
use crate::error::check_gl;
use crate::{Error, Renderer};

/// Which way a host texture's rows run, as the host drew them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum HostRows {
    /// Row 0 is the top of the picture: a texture the host uploaded, or one an engine drew
    /// with y down (layerbatch's own convention).
    #[default]
    TopFirst,
    /// Row 0 is the bottom: a texture the host drew through a framebuffer with GL's usual y-up
    /// projection. The copy flips it, so it shows upright.
    BottomFirst,
}

/// A texture of the host's, as handed over.
#[derive(Clone, Copy, Debug)]
pub(crate) struct HostTexture {
    texture: glow::Texture,
    rows: HostRows,
}

impl Renderer {
    /// Hands the renderer the host's `GL_TEXTURE_2D` `texture` for host texture `id`
    /// (registered with [`Usage::Host`](layerbatch_core::Usage::Host): its size and format
    /// are the registered ones, level 0 complete, colour-renderable: RGBA8 or SRGB8_ALPHA8),
    /// or a new texture name for it. Every plan that fills `id`'s array (its registration, a
    /// resize, [`host_changed`](layerbatch_core::TextureStore::host_changed), a rebuild)
    /// copies `texture` on the GPU during [`Renderer::paint`], before the draws: draw into it
    /// before that paint. `rows` says which way its rows run.
    ///
    /// The renderer never deletes `texture`; call [`Renderer::remove_host_texture`] before
    /// the host does.
    pub fn set_host_texture(&mut self, id: TextureId, texture: glow::Texture, rows: HostRows) {
        self.arrays.host_textures.insert(id, HostTexture { texture, rows });
    }

    /// Forgets the host's texture for `id`: a later plan that fills `id`'s array (one that has
    /// not freed it) fails in `paint` with [`PlanError::HostTexture`] naming it. The copy
    /// already made stays drawable until the texture is freed in the batcher.
    pub fn remove_host_texture(&mut self, id: TextureId) {
        self.arrays.host_textures.remove(&id);
    }
}

impl GlArrays {
    /// [`layerbatch_core::execute::Executor::host_contents`]: one blit from the host's texture
    /// into layer 0 of the array, through the copy framebuffers; the host's framebuffer
    /// bindings put back as found, and `FRAMEBUFFER_SRGB` too (the paint saved the scissor
    /// test and the rest a blit must not see).
    pub(crate) fn copy_host(&mut self, fill: &HostFill) -> Result<(), Error> {
        let (texture, array) = (fill.texture, fill.array);
        let refuse = |reason| Error::Plan(PlanError::HostTexture { texture, array, reason });
        if fill.access != HostAccess::Copy {
            return Err(refuse("GL cannot view a 2D texture as an array: a budget of GL limits copies host textures"));
        }
        let host = *self.host_textures.get(&texture).ok_or(refuse(
            "the renderer holds no texture of the host's for it: hand it over with set_host_texture before the plan \
             that registers it",
        ))?;
        let to = self.texture(array).ok_or(Error::Plan(PlanError::UnknownArray { at: 0, array }))?;
        let [read_fbo, draw_fbo] = self.copy_framebuffers()?;
        let (gl, host_gl) = (self.gl(), self.host_gl());
        let srgb_blit = !self.gles() && fill.format == Format::Rgba8UnormSrgb;
        let [w, h] = fill.size_px.map(|v| v as i32);
        let (y0, y1) = match host.rows {
            HostRows::TopFirst => (0, h),
            HostRows::BottomFirst => (h, 0),
        };
        // SAFETY: our own copy framebuffers, the host's texture attached for reading (level 0,
        // the host's word that it is a live, complete 2D texture of the registered size and
        // format) and layer 0 of our live array for drawing: two different textures, no
        // feedback; completeness is checked before the blit; both attachments are removed after
        // it, and the framebuffer bindings and FRAMEBUFFER_SRGB found here are put back.
        let result = unsafe {
            let prev_read = host_gl.framebuffer(gl, glow::READ_FRAMEBUFFER_BINDING);
            let prev_draw = host_gl.framebuffer(gl, glow::DRAW_FRAMEBUFFER_BINDING);
            gl.bind_framebuffer(glow::READ_FRAMEBUFFER, Some(read_fbo));
            gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, Some(draw_fbo));
            let prev_srgb = srgb_blit && gl.is_enabled(glow::FRAMEBUFFER_SRGB);
            if srgb_blit {
                gl.enable(glow::FRAMEBUFFER_SRGB);
            }
            gl.framebuffer_texture_2d(
                glow::READ_FRAMEBUFFER,
                glow::COLOR_ATTACHMENT0,
                glow::TEXTURE_2D,
                Some(host.texture),
                0,
            );
            gl.framebuffer_texture_layer(glow::DRAW_FRAMEBUFFER, glow::COLOR_ATTACHMENT0, Some(to), 0, 0);
            let mut result = Ok(());
            for target in [glow::READ_FRAMEBUFFER, glow::DRAW_FRAMEBUFFER] {
                let status = gl.check_framebuffer_status(target);
                if status != glow::FRAMEBUFFER_COMPLETE && result.is_ok() {
                    result = Err(refuse(if target == glow::READ_FRAMEBUFFER {
                        "its texture cannot be read through a framebuffer (not a complete, colour-renderable 2D \
                         texture of level 0)"
                    } else {
                        "its array cannot be drawn into"
                    }));
                }
            }
            if result.is_ok() {
                gl.blit_framebuffer(0, y0, w, y1, 0, 0, w, h, glow::COLOR_BUFFER_BIT, glow::NEAREST);
            }
            gl.framebuffer_texture_2d(glow::READ_FRAMEBUFFER, glow::COLOR_ATTACHMENT0, glow::TEXTURE_2D, None, 0);
            gl.framebuffer_texture_layer(glow::DRAW_FRAMEBUFFER, glow::COLOR_ATTACHMENT0, None, 0, 0);
            if srgb_blit && !prev_srgb {
                gl.disable(glow::FRAMEBUFFER_SRGB);
            }
            host_gl.bind_framebuffer(gl, glow::READ_FRAMEBUFFER, &prev_read);
            host_gl.bind_framebuffer(gl, glow::DRAW_FRAMEBUFFER, &prev_draw);
            result
        };
        result?;
        check_gl(gl, || format!("copy host texture {texture:?} ({w}x{h}) into array {}", array.0))
    }
}
