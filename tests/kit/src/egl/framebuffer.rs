//! An offscreen RGBA8 framebuffer (a renderbuffer colour attachment) on the current context,
//! and the few state calls a host makes around a layerbatch-gl paint.

use layerbatch_gl::glow::{self, HasContext};

/// An RGBA8 framebuffer object of `size` pixels.
#[derive(Clone, Copy, Debug)]
pub struct Framebuffer {
    /// The framebuffer, for `layerbatch_gl::Target::framebuffer`.
    pub fbo: glow::Framebuffer,
    /// Its colour attachment.
    pub renderbuffer: glow::Renderbuffer,
    /// Width and height, pixels.
    pub size: [u32; 2],
}

impl Framebuffer {
    /// Creates it on the current context of `gl`, bound to `FRAMEBUFFER`.
    ///
    /// # Errors
    /// When GL cannot make the objects, or the framebuffer is incomplete.
    pub fn new(gl: &glow::Context, size: [u32; 2]) -> Result<Self, String> {
        let [w, h] = size.map(|v| v as i32);
        // SAFETY: object creation and state calls on the current context.
        unsafe {
            let fbo = gl.create_framebuffer()?;
            let renderbuffer = gl.create_renderbuffer()?;
            gl.bind_renderbuffer(glow::RENDERBUFFER, Some(renderbuffer));
            gl.renderbuffer_storage(glow::RENDERBUFFER, glow::RGBA8, w, h);
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
            gl.framebuffer_renderbuffer(
                glow::FRAMEBUFFER,
                glow::COLOR_ATTACHMENT0,
                glow::RENDERBUFFER,
                Some(renderbuffer),
            );
            if gl.check_framebuffer_status(glow::FRAMEBUFFER) != glow::FRAMEBUFFER_COMPLETE {
                return Err("offscreen framebuffer incomplete".into());
            }
            Ok(Self { fbo, renderbuffer, size })
        }
    }

    /// Binds it to `FRAMEBUFFER` with the viewport on the whole of it.
    pub fn bind(&self, gl: &glow::Context) {
        // SAFETY: state calls on our own framebuffer.
        unsafe {
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(self.fbo));
            gl.viewport(0, 0, self.size[0] as i32, self.size[1] as i32);
        }
    }

    /// Binds it and clears it to `clear` (RGBA in 0..=1).
    pub fn clear(&self, gl: &glow::Context, clear: [f32; 4]) {
        self.bind(gl);
        clear_bound(gl, clear);
    }

    /// [`Framebuffer::clear`], then the host's scissor: `clip_px` (`[x, y, w, h]`, y down),
    /// or none. [`finish`] turns it off again.
    pub fn begin(&self, gl: &glow::Context, clear: [f32; 4], clip_px: Option<[u32; 4]>) {
        self.clear(gl, clear);
        if let Some([x, y, w, h]) = clip_px {
            let target_h = self.size[1] as i32;
            // SAFETY: state calls on the current context. GL's scissor box is y up.
            unsafe {
                gl.enable(glow::SCISSOR_TEST);
                gl.scissor(x as i32, target_h - y as i32 - h as i32, w as i32, h as i32);
            }
        }
    }

    /// The pixels, RGBA8, rows top first, once GL has finished drawing them.
    pub fn read(&self, gl: &glow::Context) -> Vec<u8> {
        let [w, h] = self.size.map(|v| v as usize);
        let mut px = vec![0u8; w * h * 4];
        // SAFETY: reads w*h RGBA8 pixels into a buffer of exactly that size.
        unsafe {
            gl.bind_framebuffer(glow::READ_FRAMEBUFFER, Some(self.fbo));
            gl.pixel_store_i32(glow::PACK_ALIGNMENT, 4);
            let slice = glow::PixelPackData::Slice(Some(&mut px));
            gl.read_pixels(0, 0, w as i32, h as i32, glow::RGBA, glow::UNSIGNED_BYTE, slice);
        }
        // GL's rows go bottom-up.
        px.chunks_exact(w * 4).rev().flatten().copied().collect()
    }

    /// Deletes its objects (the context current).
    pub fn delete(self, gl: &glow::Context) {
        // SAFETY: our own objects, on the current context.
        unsafe {
            gl.delete_framebuffer(self.fbo);
            gl.delete_renderbuffer(self.renderbuffer);
        }
    }
}

/// Clears whatever framebuffer is bound to `clear` (RGBA in 0..=1).
pub(crate) fn clear_bound(gl: &glow::Context, [r, g, b, a]: [f32; 4]) {
    // SAFETY: state calls on the current context.
    unsafe {
        gl.clear_color(r, g, b, a);
        gl.clear(glow::COLOR_BUFFER_BIT);
    }
}

/// Sends the commands issued so far to the device (`glFlush`), without waiting.
pub fn flush(gl: &glow::Context) {
    // SAFETY: a synchronisation call on the current context.
    unsafe { gl.flush() };
}

/// Turns the host's scissor off and waits until GL has finished every command: a frame timed
/// up to here includes the device's work.
pub fn finish(gl: &glow::Context) {
    // SAFETY: a state call and a synchronisation call on the current context.
    unsafe {
        gl.disable(glow::SCISSOR_TEST);
        gl.finish();
    }
}
