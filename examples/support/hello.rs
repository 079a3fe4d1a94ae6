//! The boilerplate of `examples/hello_gl.rs` and `examples/hello_wgpu.rs` that is not
//! layerbatch usage: flags, PNG writing, a winit event loop, a GL window (glutin-winit) and a
//! wgpu window surface (the recipes of `window.rs`), and the offscreen devices (a surfaceless
//! EGL context with a framebuffer object, a headless wgpu device: `egl.rs`, `gpu.rs`).
//!
//! Include it with `#[allow(unsafe_code)] #[path = "support/hello.rs"] pub mod hello;`.
#![allow(dead_code)]

use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use glutin::config::{Config, ConfigTemplateBuilder};
use glutin::context::{ContextApi, ContextAttributesBuilder, GlProfile, PossiblyCurrentContext, Version};
use glutin::display::{Display, GetGlDisplay};
use glutin::prelude::*;
use glutin::surface::{Surface, SurfaceAttributesBuilder, WindowSurface};
use glutin_winit::{DisplayBuilder, GlWindow as _};
use layerbatch_gl::glow::{self, HasContext};
use raw_window_handle::HasWindowHandle;
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{ElementState, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{Key, NamedKey};
use winit::window::{Window, WindowAttributes, WindowId};

#[path = "egl.rs"]
mod egl;
#[path = "gpu.rs"]
pub mod gpu;

/// Every error of the examples, boxed: layerbatch's, the devices', and messages.
pub type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// No device to render on: no GL context, or no wgpu adapter. Tests skip on it outside CI.
#[derive(Debug)]
pub struct NoDevice(pub String);

impl std::fmt::Display for NoDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "no device: {}", self.0)
    }
}

impl std::error::Error for NoDevice {}

/// The flags: `--out FILE.png` renders offscreen and writes the last frame there; `--frames N`
/// stops after N frames (offscreen: 60 by default; in a window: when it is closed).
#[derive(Debug, Default)]
pub struct Args {
    /// Where to write the PNG: offscreen instead of in a window.
    pub out: Option<PathBuf>,
    /// Frames to draw.
    pub frames: Option<u32>,
}

impl Args {
    /// Parses the process's arguments.
    pub fn parse() -> Result<Self> {
        use lexopt::prelude::*;
        let mut args = Args::default();
        let mut parser = lexopt::Parser::from_env();
        while let Some(arg) = parser.next()? {
            match arg {
                Long("out") => args.out = Some(parser.value()?.into()),
                Long("frames") => args.frames = Some(parser.value()?.parse()?),
                Short('h') | Long("help") => {
                    println!("flags: [--out FILE.png] [--frames N]   (--out, or no display: render offscreen)");
                    std::process::exit(0);
                }
                _ => return Err(arg.unexpected().into()),
            }
        }
        Ok(args)
    }

    /// The frames to draw offscreen.
    pub fn offscreen_frames(&self) -> u32 {
        self.frames.unwrap_or(60).max(1)
    }
}

/// The examples' `main`, after the flags: a window (see [`run_window`] for `new` and `draw`)
/// unless `--out` is given or none can be opened; else `offscreen(frames, size)` and the
/// frame written as a PNG (`--out`, or `NAME.png`).
pub fn main<W: WindowGfx, S>(
    name: &str,
    size: [u32; 2],
    offscreen: fn(u32, [u32; 2]) -> Result<Vec<u8>>,
    new: impl FnMut(&W) -> Result<S>,
    draw: impl FnMut(&mut S, &mut W, f32) -> Result<()>,
) -> Result<()> {
    let args = Args::parse()?;
    if args.out.is_none() && run_window(&format!("layerbatch {name}"), size, args.frames, new, draw)? {
        return Ok(());
    }
    let frame = offscreen(args.offscreen_frames(), size)?;
    save_png(&args.out.unwrap_or_else(|| format!("{name}.png").into()), size, &frame)
}

/// Writes RGBA8 pixels (rows top first, straight alpha) as a PNG.
pub fn save_png(path: &Path, [w, h]: [u32; 2], rgba: &[u8]) -> Result<()> {
    image::save_buffer(path, rgba, w, h, image::ExtendedColorType::Rgba8)
        .map_err(|e| format!("writing {}: {e}", path.display()))?;
    println!("wrote {}", path.display());
    Ok(())
}

/// A window with a device: [`GlWindow`] or [`WgpuWindow`], for [`run_window`].
pub trait WindowGfx: Sized {
    /// Opens a window with `attrs` and its device.
    fn open(event_loop: &ActiveEventLoop, attrs: WindowAttributes) -> Result<Self>;
    /// The window.
    fn window(&self) -> &Window;
    /// The window's size changed (physical pixels, never zero).
    fn resize(&mut self, size: [u32; 2]);
}

/// Opens a `W` window titled `title`, `size` physical pixels, makes the example's state with
/// `new` and calls `draw` with it and `t` (seconds since the first frame) for each frame,
/// until the window is closed (or Escape) or `frames` frames were drawn. The state is dropped
/// before the window. `Ok(false)`: no window could be opened (no display, no device, an error
/// before the first frame); the reason is printed, and the caller renders offscreen instead.
pub fn run_window<W: WindowGfx, S>(
    title: &str,
    size: [u32; 2],
    frames: Option<u32>,
    new: impl FnMut(&W) -> Result<S>,
    draw: impl FnMut(&mut S, &mut W, f32) -> Result<()>,
) -> Result<bool> {
    let event_loop = match EventLoop::new() {
        Ok(l) => l,
        Err(e) => {
            eprintln!("no window ({e})");
            return Ok(false);
        }
    };
    event_loop.set_control_flow(ControlFlow::Poll);
    let attrs = Window::default_attributes().with_title(title).with_inner_size(PhysicalSize::new(size[0], size[1]));
    let mut runner = Runner { attrs, new, draw, running: None, frames, drawn: 0, start: Instant::now(), error: None };
    let result = event_loop.run_app(&mut runner);
    match (runner.error.take(), runner.drawn) {
        (Some(e), 0) => {
            eprintln!("no window ({e})");
            Ok(false)
        }
        (Some(e), _) => Err(e.into()),
        (None, _) => result.map(|()| true).map_err(Into::into),
    }
}

struct Runner<W, S, N, D> {
    attrs: WindowAttributes,
    new: N,
    draw: D,
    /// The state, then the window: dropped in that order.
    running: Option<(S, W)>,
    frames: Option<u32>,
    drawn: u32,
    start: Instant,
    error: Option<String>,
}

impl<W, S, N, D> ApplicationHandler for Runner<W, S, N, D>
where
    W: WindowGfx,
    N: FnMut(&W) -> Result<S>,
    D: FnMut(&mut S, &mut W, f32) -> Result<()>,
{
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.running.is_some() || self.error.is_some() {
            return;
        }
        let opened = W::open(event_loop, self.attrs.clone()).and_then(|w| Ok(((self.new)(&w)?, w)));
        match opened {
            Ok(r) => self.running = Some(r),
            Err(e) => {
                self.error = Some(e.to_string());
                event_loop.exit();
            }
        }
        self.start = Instant::now();
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let Some((state, window)) = self.running.as_mut() else { return };
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::KeyboardInput { event, .. }
                if event.state == ElementState::Pressed && event.logical_key == Key::Named(NamedKey::Escape) =>
            {
                event_loop.exit()
            }
            WindowEvent::Resized(s) if s.width > 0 && s.height > 0 => window.resize([s.width, s.height]),
            WindowEvent::RedrawRequested => {
                if let Err(e) = (self.draw)(state, window, self.start.elapsed().as_secs_f32()) {
                    self.error = Some(e.to_string());
                    return event_loop.exit();
                }
                self.drawn += 1;
                if self.frames.is_some_and(|n| self.drawn >= n) {
                    event_loop.exit();
                }
            }
            _ => {}
        }
    }

    fn about_to_wait(&mut self, _event_loop: &ActiveEventLoop) {
        if let Some((_, window)) = &self.running {
            window.window().request_redraw();
        }
    }
}

/// A window with a current GL context on its surface (GL 3.3 core, else GLES 3.0).
///
/// Drop what was made with `gl` (a layerbatch-gl renderer: `destroy()` it) first.
#[derive(Debug)]
pub struct GlWindow {
    /// The GL functions, for `layerbatch_gl::Renderer::new`.
    pub gl: Arc<glow::Context>,
    surface: Surface<WindowSurface>,
    context: PossiblyCurrentContext,
    _display: Display,
    /// The window (dropped last).
    pub window: Window,
}

impl WindowGfx for GlWindow {
    /// Opens the window and makes its context current on this thread.
    fn open(event_loop: &ActiveEventLoop, attrs: WindowAttributes) -> Result<Self> {
        // The config with the fewest samples (glutin reports no configs as an error).
        let pick = |configs: Box<dyn Iterator<Item = Config> + '_>| {
            configs.reduce(|best, c| if c.num_samples() < best.num_samples() { c } else { best }).expect("a config")
        };
        let (window, config) = DisplayBuilder::new()
            .with_window_attributes(Some(attrs))
            .build(event_loop, ConfigTemplateBuilder::new(), pick)
            .map_err(|e| format!("GL display: {e}"))?;
        let window = window.ok_or("no window was created")?;
        let raw = window.window_handle()?.as_raw();
        let display = config.display();
        let apis = [
            ContextAttributesBuilder::new()
                .with_context_api(ContextApi::OpenGl(Some(Version::new(3, 3))))
                .with_profile(GlProfile::Core),
            ContextAttributesBuilder::new().with_context_api(ContextApi::Gles(Some(Version::new(3, 0)))),
        ];
        // SAFETY: the config comes from this display and `raw` is the handle of a window
        // that outlives the context (it is dropped after it: field order).
        let not_current = apis
            .into_iter()
            .find_map(|b| unsafe { display.create_context(&config, &b.build(Some(raw))) }.ok())
            .ok_or("no GL 3.3 core or GLES 3.0 context")?;
        let attrs = window.build_surface_attributes(SurfaceAttributesBuilder::<WindowSurface>::new())?;
        // SAFETY: the attributes name this live window, which outlives the surface.
        let surface = unsafe { display.create_window_surface(&config, &attrs) }?;
        let context = not_current.make_current(&surface)?;
        // SAFETY: the context is current on this thread and outlives `gl` (field order).
        let gl = unsafe { glow::Context::from_loader_function_cstr(|s| display.get_proc_address(s)) };
        println!("GL: {}", egl::describe(&gl));
        Ok(Self { gl: Arc::new(gl), surface, context, _display: display, window })
    }

    fn window(&self) -> &Window {
        &self.window
    }

    fn resize(&mut self, [w, h]: [u32; 2]) {
        if let (Some(w), Some(h)) = (NonZeroU32::new(w), NonZeroU32::new(h)) {
            self.surface.resize(&self.context, w, h);
        }
    }
}

impl GlWindow {
    /// The window's size, physical pixels.
    pub fn size(&self) -> [u32; 2] {
        let s = self.window.inner_size();
        [s.width, s.height]
    }

    /// Presents the frame drawn into the default framebuffer.
    pub fn swap(&self) -> Result<()> {
        Ok(self.surface.swap_buffers(&self.context)?)
    }
}

/// A current GL context with no window (EGL, surfaceless: desktop GL 3.3 core, else GLES
/// 3.0), and an RGBA8 framebuffer object to draw into and read back.
///
/// Drop what was made with `gl` (a layerbatch-gl renderer: `destroy()` it) first.
#[derive(Debug)]
pub struct GlOffscreen {
    /// The GL functions, for `layerbatch_gl::Renderer::new`.
    pub gl: Arc<glow::Context>,
    /// The framebuffer, for `layerbatch_gl::Target::framebuffer`.
    pub fbo: glow::Framebuffer,
    size: [u32; 2],
    _context: glutin::api::egl::context::PossiblyCurrentContext,
    _display: glutin::api::egl::display::Display,
}

impl GlOffscreen {
    /// Makes the context current on this thread and a `size` framebuffer; [`NoDevice`] when
    /// there is no context to be had.
    pub fn new(size: [u32; 2]) -> Result<Self> {
        let egl::Egl { gl, context, display } = egl::surfaceless(false)
            .or_else(|gl_error| egl::surfaceless(true).map_err(|e| format!("GL: {gl_error}; GLES: {e}")))
            .map_err(NoDevice)?;
        println!("GL: {}", egl::describe(&gl));
        let [w, h] = size.map(|v| v as i32);
        // SAFETY: plain object creation on the current context.
        let fbo = unsafe {
            let fbo = gl.create_framebuffer()?;
            let rb = gl.create_renderbuffer()?;
            gl.bind_renderbuffer(glow::RENDERBUFFER, Some(rb));
            gl.renderbuffer_storage(glow::RENDERBUFFER, glow::RGBA8, w, h);
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
            gl.framebuffer_renderbuffer(glow::FRAMEBUFFER, glow::COLOR_ATTACHMENT0, glow::RENDERBUFFER, Some(rb));
            if gl.check_framebuffer_status(glow::FRAMEBUFFER) != glow::FRAMEBUFFER_COMPLETE {
                return Err("offscreen framebuffer incomplete".into());
            }
            fbo
        };
        Ok(Self { gl: Arc::new(gl), fbo, size, _context: context, _display: display })
    }

    /// The framebuffer's pixels, RGBA8, rows top first.
    pub fn read(&self) -> Vec<u8> {
        let [w, h] = self.size.map(|v| v as usize);
        let mut px = vec![0u8; w * h * 4];
        // SAFETY: reads w*h RGBA8 pixels into a buffer of exactly that size.
        unsafe {
            self.gl.finish();
            self.gl.bind_framebuffer(glow::READ_FRAMEBUFFER, Some(self.fbo));
            self.gl.pixel_store_i32(glow::PACK_ALIGNMENT, 4);
            let slice = glow::PixelPackData::Slice(Some(&mut px));
            self.gl.read_pixels(0, 0, w as i32, h as i32, glow::RGBA, glow::UNSIGNED_BYTE, slice);
        }
        // GL's rows go bottom-up.
        px.chunks_exact(w * 4).rev().flatten().copied().collect()
    }
}

/// A wgpu device with no window: Vulkan, Metal or DX12, else GL (`WGPU_BACKEND` picks
/// instead); [`NoDevice`] when there is no adapter.
pub fn wgpu_headless() -> Result<(wgpu::Device, wgpu::Queue)> {
    let choices = match wgpu::Backends::from_env() {
        Some(b) => vec![b],
        None => vec![wgpu::Backends::PRIMARY, wgpu::Backends::SECONDARY],
    };
    let mut errors = Vec::new();
    for backends in choices {
        match gpu::device(&gpu::headless_instance(backends), None) {
            Ok((adapter, device, queue)) => {
                println!("wgpu: {}", gpu::describe(&adapter));
                return Ok((device, queue));
            }
            Err(e) => errors.push(format!("{backends:?}: {e}")),
        }
    }
    Err(NoDevice(errors.join("; ")).into())
}

/// A window with a configured wgpu surface (a non-sRGB format where there is one, so pixels
/// show as the offscreen target has them).
#[derive(Debug)]
pub struct WgpuWindow {
    /// The device, for `layerbatch_wgpu::Renderer::new`.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// The surface's configuration: its format and size.
    pub config: wgpu::SurfaceConfiguration,
    surface: wgpu::Surface<'static>,
    /// The window.
    pub window: Arc<Window>,
}

impl WindowGfx for WgpuWindow {
    /// Opens the window, its surface and a device that can present to it.
    fn open(event_loop: &ActiveEventLoop, attrs: WindowAttributes) -> Result<Self> {
        let window = Arc::new(event_loop.create_window(attrs)?);
        // wgpu's GL backend needs the display for EGL; the other backends ignore it.
        let desc = wgpu::InstanceDescriptor::new_with_display_handle(Box::new(event_loop.owned_display_handle()));
        let instance = wgpu::Instance::new(desc);
        let surface = instance.create_surface(window.clone())?;
        let (adapter, device, queue) = gpu::device(&instance, Some(&surface))?;
        println!("wgpu: {}", gpu::describe(&adapter));
        let size = window.inner_size();
        let mut config = surface
            .get_default_config(&adapter, size.width.max(1), size.height.max(1))
            .ok_or("the window surface is not supported by the adapter")?;
        if let Some(&f) = surface.get_capabilities(&adapter).formats.iter().find(|f| !f.is_srgb()) {
            config.format = f;
        }
        surface.configure(&device, &config);
        Ok(Self { device, queue, config, surface, window })
    }

    fn window(&self) -> &Window {
        &self.window
    }

    fn resize(&mut self, [w, h]: [u32; 2]) {
        (self.config.width, self.config.height) = (w, h);
        self.surface.configure(&self.device, &self.config);
    }
}

impl WgpuWindow {
    /// Draws a frame with `draw` (given a view of the surface's next texture and its size)
    /// and presents it; skipped when the surface has no texture now.
    pub fn present(&mut self, draw: impl FnOnce(&wgpu::TextureView, [u32; 2]) -> Result<()>) -> Result<()> {
        let Some(frame) = self.acquire()? else { return Ok(()) };
        let view = frame.texture.create_view(&wgpu::TextureViewDescriptor::default());
        draw(&view, [self.config.width, self.config.height])?;
        self.queue.present(frame);
        Ok(())
    }

    /// The surface's next texture, or `None` when it has none to give now (skip the frame).
    fn acquire(&mut self) -> Result<Option<wgpu::SurfaceTexture>> {
        match self.surface.get_current_texture() {
            // Suboptimal: still presentable; a resize reconfigures the surface.
            wgpu::CurrentSurfaceTexture::Success(f) | wgpu::CurrentSurfaceTexture::Suboptimal(f) => Ok(Some(f)),
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => Ok(None),
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                self.surface.configure(&self.device, &self.config);
                Ok(None)
            }
            wgpu::CurrentSurfaceTexture::Validation => Err("validation error acquiring the surface texture".into()),
        }
    }
}
