//! Where a paint draws: [`Target`].

use layerbatch_core::Viewport;

/// Where a paint draws.
///
/// `#[non_exhaustive]`: build it with [`Target::bound`] or [`Target::framebuffer`] and the
/// `with_*` methods.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Target {
    /// The framebuffer to draw into, bound to `DRAW_FRAMEBUFFER` for the paint and then
    /// rebound to what was there. `None`: whatever the host has bound (the default
    /// framebuffer, or its own FBO).
    pub framebuffer: Option<glow::Framebuffer>,
    /// Size of the framebuffer in pixels (of the part of it the paint may use, from its
    /// bottom-left corner). Without [`Target::rect_px`] the viewport is set to `(0, 0, w, h)`;
    /// instance positions are pixels with `(0, 0)` at the top-left corner and y pointing down.
    /// A zero width or height applies the plan's resource ops and draws nothing.
    pub viewport_px: [u32; 2],
    /// Draw into `[x, y, width, height]` of the framebuffer (pixels, y down from its top-left
    /// corner) instead of all of it: the quads' `(0, 0)` is at `(x, y)`, and the GL viewport
    /// is set to the part inside the framebuffer. The rectangle may reach outside (an egui
    /// panel scrolled partly off-screen): what lies outside is not drawn and nothing moves
    /// (core's [`Viewport`] does the mapping, as on wgpu). Default `None`: the whole of
    /// `viewport_px`.
    pub rect_px: Option<[i32; 4]>,
    /// Draw through the host's clip: keep `SCISSOR_TEST` and `STENCIL_TEST` as the host set
    /// them (with its scissor box and stencil function), so a UI panel, a scroll view or a
    /// split screen clips the sprites. Default `false`: both are disabled while drawing. Either
    /// way they are restored after the paint, and layer copies never run clipped.
    pub keep_host_clip: bool,
}

impl Target {
    /// Draw into whatever framebuffer the host has bound, over a `w x h` viewport.
    pub const fn bound(viewport_px: [u32; 2]) -> Self {
        Self { framebuffer: None, viewport_px, rect_px: None, keep_host_clip: false }
    }
    /// Draw into `framebuffer`, over a `w x h` viewport.
    pub const fn framebuffer(framebuffer: glow::Framebuffer, viewport_px: [u32; 2]) -> Self {
        Self { framebuffer: Some(framebuffer), viewport_px, rect_px: None, keep_host_clip: false }
    }
    /// Sets [`Target::rect_px`]: the quads go into `[x, y, width, height]` of the framebuffer
    /// (y down), which may reach outside it.
    #[must_use]
    pub const fn with_rect(mut self, rect_px: [i32; 4]) -> Self {
        self.rect_px = Some(rect_px);
        self
    }
    /// Where the quads go: core's [`Viewport`] for [`Target::viewport_px`] and
    /// [`Target::rect_px`] (the host's scissor is added by the paint when it is kept).
    pub fn viewport(&self) -> Viewport {
        match self.rect_px {
            Some(rect) => Viewport::rect(self.viewport_px, rect),
            None => Viewport::full(self.viewport_px),
        }
    }
    /// Sets [`Target::keep_host_clip`].
    ///
    /// ```no_run
    /// # use layerbatch_gl::glow;
    /// # fn f(gl: &glow::Context, renderer: &mut layerbatch_gl::Renderer, plan: &layerbatch_core::FramePlan)
    /// # -> Result<(), layerbatch_gl::Error> {
    /// use glow::HasContext;
    /// // SAFETY: plain state calls on the current context.
    /// unsafe {
    ///     gl.enable(glow::SCISSOR_TEST);
    ///     gl.scissor(100, 100, 200, 150); // GL's window coordinates: y up
    /// }
    /// renderer.paint(plan, &layerbatch_gl::Target::bound([800, 600]).with_host_clip(true))?;
    /// # Ok(()) }
    /// ```
    #[must_use]
    pub const fn with_host_clip(mut self, keep_host_clip: bool) -> Self {
        self.keep_host_clip = keep_host_clip;
        self
    }
}
