//! winit windows with a device on their surface, for the hello and stress examples: a GL
//! context ([`GlWindow`], glutin-winit) or a configured wgpu surface ([`WgpuWindow`]).

use std::sync::Arc;

use winit::event_loop::ActiveEventLoop;
use winit::window::{Window, WindowAttributes};

pub use crate::egl::window::GlWindow;
use crate::gpu;

/// A window with a configured wgpu surface: a non-sRGB format where there is one, so pixels
/// show as the offscreen targets have them.
#[derive(Debug)]
pub struct WgpuWindow {
    /// The device, for `layerbatch_wgpu::Renderer::new`.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// The surface's configuration: its format and size.
    pub config: wgpu::SurfaceConfiguration,
    /// `"name (Backend)"` of the adapter.
    pub adapter: String,
    surface: wgpu::Surface<'static>,
    /// The window.
    pub window: Arc<Window>,
}

impl WgpuWindow {
    /// Opens a window with `attrs`, its surface and a device that can present to it; with
    /// `vsync` false, presents without vsync where the surface allows it (else Fifo).
    ///
    /// # Errors
    /// When there is no window, surface or adapter to be had.
    pub fn open(event_loop: &ActiveEventLoop, attrs: WindowAttributes, vsync: bool) -> Result<Self, String> {
        let window = Arc::new(event_loop.create_window(attrs).map_err(|e| format!("window: {e}"))?);
        // wgpu's GL backend needs the display for EGL; the other backends ignore it.
        let desc = wgpu::InstanceDescriptor::new_with_display_handle(Box::new(event_loop.owned_display_handle()));
        let instance = wgpu::Instance::new(desc);
        let surface = instance.create_surface(window.clone()).map_err(|e| format!("wgpu surface: {e}"))?;
        let (adapter, device, queue) = gpu::device(&instance, Some(&surface)).map_err(|e| format!("window: {e}"))?;
        let size = window.inner_size();
        let mut config = surface
            .get_default_config(&adapter, size.width.max(1), size.height.max(1))
            .ok_or_else(|| format!("the window surface is not supported by {}", adapter.get_info().name))?;
        // A non-sRGB format shows the texels' bytes as they are, like the offscreen target.
        if let Some(&f) = surface.get_capabilities(&adapter).formats.iter().find(|f| !f.is_srgb()) {
            config.format = f;
        }
        if !vsync {
            config.present_mode = wgpu::PresentMode::AutoNoVsync;
        }
        surface.configure(&device, &config);
        Ok(Self { device, queue, config, adapter: gpu::describe(&adapter), surface, window })
    }

    /// The window's size changed (physical pixels; zero sizes are ignored).
    pub fn resize(&mut self, [w, h]: [u32; 2]) {
        if w > 0 && h > 0 {
            (self.config.width, self.config.height) = (w, h);
            self.surface.configure(&self.device, &self.config);
        }
    }

    /// The surface's size, physical pixels.
    pub fn size(&self) -> [u32; 2] {
        [self.config.width, self.config.height]
    }

    /// The surface's next texture and whether it is suboptimal (still presentable; call
    /// [`WgpuWindow::reconfigure`] after presenting it), or `None` when it has none to give
    /// now (skip the frame).
    ///
    /// # Errors
    /// A validation error acquiring the texture.
    pub fn acquire(&mut self) -> Result<Option<(wgpu::SurfaceTexture, bool)>, String> {
        match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(f) => Ok(Some((f, false))),
            wgpu::CurrentSurfaceTexture::Suboptimal(f) => Ok(Some((f, true))),
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => Ok(None),
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                self.reconfigure();
                Ok(None)
            }
            wgpu::CurrentSurfaceTexture::Validation => Err("validation error acquiring the surface texture".into()),
        }
    }

    /// Configures the surface again, as it is.
    pub fn reconfigure(&self) {
        self.surface.configure(&self.device, &self.config);
    }

    /// Draws a frame with `draw` (given a view of the surface's next texture and its size)
    /// and presents it; `Ok(None)` when the surface has no texture now (nothing was drawn).
    ///
    /// # Errors
    /// `draw`'s, or acquiring the texture's.
    pub fn present<T, E: From<String>>(
        &mut self,
        draw: impl FnOnce(&wgpu::TextureView, [u32; 2]) -> Result<T, E>,
    ) -> Result<Option<T>, E> {
        let Some((frame, suboptimal)) = self.acquire()? else { return Ok(None) };
        let view = frame.texture.create_view(&wgpu::TextureViewDescriptor::default());
        let drawn = draw(&view, self.size())?;
        self.queue.present(frame);
        if suboptimal {
            self.reconfigure();
        }
        Ok(Some(drawn))
    }
}
