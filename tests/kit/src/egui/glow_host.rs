//! A headless egui host on OpenGL, doing per frame what eframe's glow painter does: run the
//! egui context, tessellate, and `egui_glow::Painter::paint_and_update_textures` (which calls
//! every paint callback, with egui's viewport and scissor set for it) into a framebuffer. The
//! context is a surfaceless EGL one (llvmpipe when there is no GPU); the framebuffer is an
//! `RGBA8` renderbuffer (not sRGB, like eframe's), read back after each frame.
//!
//! egui_glow 0.37 is built on glow 0.17: build with the `glow-0-17` feature, so that
//! `layerbatch_gl::glow` (and the context [`crate::egl`] makes) is glow 0.17 too.
//!
//! Used by `examples/egui_glow.rs` and `tests/egui_glow.rs`.

use std::sync::Arc;

use glutin::api::egl::{context::PossiblyCurrentContext, display::Display};
use layerbatch_gl::glow;

use super::raw_input;
pub use super::Image;
use crate::egl;

/// The colour the framebuffer is cleared to before egui paints (opaque black).
pub const CLEAR: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

/// A current GL context (GL 3.3 core, or GLES 3.0), an egui context and egui_glow's painter
/// drawing into an offscreen framebuffer.
pub struct GlowEguiHost {
    // Field order matters: the painter and `gl` go before the context and display.
    /// egui_glow's painter; `painter.gl()` is the context.
    pub painter: egui_glow::Painter,
    /// The egui context.
    pub ctx: egui::Context,
    /// The GL functions.
    pub gl: Arc<glow::Context>,
    /// `"RENDERER (VERSION)"` of the context.
    pub adapter: String,
    /// The framebuffer's size, pixels.
    pub size_px: [u32; 2],
    /// egui's scale.
    pub pixels_per_point: f32,
    target: egl::Framebuffer,
    frame: u64,
    _context: PossiblyCurrentContext,
    _display: Display,
}

impl std::fmt::Debug for GlowEguiHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GlowEguiHost")
            .field("adapter", &self.adapter)
            .field("size_px", &self.size_px)
            .finish_non_exhaustive()
    }
}

impl GlowEguiHost {
    /// A surfaceless context (GLES 3.0 when `gles`, else GL 3.3 core) current on this thread,
    /// and a `size_px` framebuffer drawn at `pixels_per_point`.
    pub fn new(gles: bool, size_px: [u32; 2], pixels_per_point: f32) -> Result<Self, String> {
        let egl::Egl { gl, context, display } = egl::surfaceless(gles)?;
        let adapter = egl::describe(&gl);
        let gl = Arc::new(gl);
        let target = egl::Framebuffer::new(&gl, size_px)?;
        // No dithering: a frame reads back the same whatever was drawn around it.
        let painter = egui_glow::Painter::new(gl.clone(), "", None, false).map_err(|e| format!("egui_glow: {e}"))?;
        Ok(Self {
            painter,
            ctx: egui::Context::default(),
            gl,
            adapter,
            size_px,
            pixels_per_point,
            target,
            frame: 0,
            _context: context,
            _display: display,
        })
    }

    /// Runs one egui frame of `ui`, paints it into the framebuffer and reads it back.
    pub fn frame(&mut self, ui: impl FnMut(&mut egui::Ui)) -> Image {
        let input = raw_input(self.size_px, self.pixels_per_point, self.frame);
        self.frame += 1;
        let output = self.ctx.run_ui(input, ui);
        let primitives = self.ctx.tessellate(output.shapes, output.pixels_per_point);
        let mut textures = output.textures_delta;
        self.target.bind(&self.gl);
        self.painter.clear(self.size_px, CLEAR);
        // Every callback runs in here, with egui's viewport and scissor set for it.
        self.painter.paint_and_update_textures(self.size_px, output.pixels_per_point, &primitives, &mut textures);
        self.read()
    }

    /// The framebuffer's pixels, top row first.
    pub fn read(&self) -> Image {
        Image { width: self.size_px[0], height: self.size_px[1], pixels: self.target.read(&self.gl) }
    }
}

impl Drop for GlowEguiHost {
    fn drop(&mut self) {
        self.painter.destroy();
        self.target.delete(&self.gl);
    }
}
