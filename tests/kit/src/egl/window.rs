//! A GL context on a winit window's surface (glutin-winit): GL 3.3 core, else GLES 3.0.

use std::num::NonZeroU32;
use std::sync::Arc;

use glutin::config::{Config, ConfigTemplateBuilder};
use glutin::context::{ContextApi, ContextAttributesBuilder, GlProfile, PossiblyCurrentContext, Version};
use glutin::display::{Display, GetGlDisplay};
use glutin::prelude::*;
use glutin::surface::{Surface, SurfaceAttributesBuilder, SwapInterval, WindowSurface};
use glutin_winit::{DisplayBuilder, GlWindow as _};
use layerbatch_gl::glow::{self, HasContext};
use raw_window_handle::HasWindowHandle;
use winit::event_loop::ActiveEventLoop;
use winit::window::{Window, WindowAttributes};

/// A window with a current GL context on its surface.
///
/// Drop what was made with `gl` (a layerbatch-gl renderer: `destroy()` it) first.
#[derive(Debug)]
pub struct GlWindow {
    // Field order is drop order: `gl` before the surface and context, the window last.
    /// The GL functions, for `layerbatch_gl::Renderer::new`.
    pub gl: Arc<glow::Context>,
    surface: Surface<WindowSurface>,
    context: PossiblyCurrentContext,
    _display: Display,
    /// The window.
    pub window: Window,
}

/// The config with the fewest samples (glutin reports no configs as an error, never as an
/// empty list).
fn pick(configs: Box<dyn Iterator<Item = Config> + '_>) -> Config {
    configs
        .reduce(|best, c| if c.num_samples() < best.num_samples() { c } else { best })
        .expect("glutin returns an error instead of an empty config list")
}

impl GlWindow {
    /// Opens a window with `attrs` and makes its context current on this thread; with
    /// `vsync` false, asks for no vsync (not every driver allows it; then it stays on).
    ///
    /// # Errors
    /// When there is no display, window, context or surface to be had.
    pub fn open(event_loop: &ActiveEventLoop, attrs: WindowAttributes, vsync: bool) -> Result<Self, String> {
        let (window, config) = DisplayBuilder::new()
            .with_window_attributes(Some(attrs))
            .build(event_loop, ConfigTemplateBuilder::new(), pick)
            .map_err(|e| format!("GL display: {e}"))?;
        let window = window.ok_or("no window was created")?;
        let raw = window.window_handle().map_err(|e| format!("window handle: {e}"))?.as_raw();
        let display = config.display();
        let apis = [
            (ContextApi::OpenGl(Some(Version::new(3, 3))), Some(GlProfile::Core)),
            (ContextApi::Gles(Some(Version::new(3, 0))), None),
        ];
        let mut errors = Vec::new();
        let mut not_current = None;
        for (api, profile) in apis {
            let mut b = ContextAttributesBuilder::new().with_context_api(api);
            if let Some(p) = profile {
                b = b.with_profile(p);
            }
            // SAFETY: the config comes from this display and `raw` is the handle of a window
            // that outlives the context (it is dropped after it: field order).
            match unsafe { display.create_context(&config, &b.build(Some(raw))) } {
                Ok(c) => {
                    not_current = Some(c);
                    break;
                }
                Err(e) => errors.push(format!("{api:?}: {e}")),
            }
        }
        let not_current = not_current.ok_or_else(|| format!("no GL context: {}", errors.join("; ")))?;
        let size = window.inner_size();
        if size.width == 0 || size.height == 0 {
            return Err("the window has a zero size".into());
        }
        let attrs = window
            .build_surface_attributes(SurfaceAttributesBuilder::<WindowSurface>::new())
            .map_err(|e| format!("window handle: {e}"))?;
        // SAFETY: the attributes name this live window, which outlives the surface.
        let surface =
            unsafe { display.create_window_surface(&config, &attrs) }.map_err(|e| format!("GL window surface: {e}"))?;
        let context = not_current.make_current(&surface).map_err(|e| format!("make current: {e}"))?;
        if !vsync {
            let _ = surface.set_swap_interval(&context, SwapInterval::DontWait);
        }
        // SAFETY: the context is current on this thread and outlives `gl` (field order).
        let gl = unsafe { glow::Context::from_loader_function_cstr(|s| display.get_proc_address(s)) };
        Ok(Self { gl: Arc::new(gl), surface, context, _display: display, window })
    }

    /// `"RENDERER (VERSION)"` of the context.
    pub fn describe(&self) -> String {
        super::describe(&self.gl)
    }

    /// The window's size, physical pixels.
    pub fn size(&self) -> [u32; 2] {
        let s = self.window.inner_size();
        [s.width, s.height]
    }

    /// The window's size changed (physical pixels; zero sizes are ignored).
    pub fn resize(&mut self, [w, h]: [u32; 2]) {
        if let (Some(w), Some(h)) = (NonZeroU32::new(w), NonZeroU32::new(h)) {
            self.surface.resize(&self.context, w, h);
        }
    }

    /// Binds the window's default framebuffer, with the viewport on all of it, and clears it
    /// to `clear` (RGBA in 0..=1).
    pub fn clear(&self, clear: [f32; 4]) {
        let [w, h] = self.size();
        // SAFETY: state calls on the current context, on the window's default framebuffer.
        unsafe {
            self.gl.bind_framebuffer(glow::FRAMEBUFFER, None);
            self.gl.viewport(0, 0, w as i32, h as i32);
        }
        super::framebuffer::clear_bound(&self.gl, clear);
    }

    /// Presents the frame drawn into the default framebuffer.
    ///
    /// # Errors
    /// glutin's.
    pub fn swap(&self) -> Result<(), String> {
        self.surface.swap_buffers(&self.context).map_err(|e| format!("swap buffers: {e}"))
    }
}
