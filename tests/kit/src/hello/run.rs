//! The boilerplate of the hello examples that is not layerbatch usage: flags, PNG writing, a
//! winit event loop over a [`GlWindow`] or a [`WgpuWindow`], and the offscreen devices (a
//! surfaceless EGL context with a framebuffer object, a headless wgpu device).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use layerbatch_gl::glow;
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{ElementState, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{Key, NamedKey};
use winit::window::{Window, WindowAttributes, WindowId};

use crate::egl;
use crate::gpu;
pub use crate::window::{GlWindow, WgpuWindow};

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

impl WindowGfx for GlWindow {
    /// Opens the window and makes its context current on this thread.
    fn open(event_loop: &ActiveEventLoop, attrs: WindowAttributes) -> Result<Self> {
        let w = GlWindow::open(event_loop, attrs, true)?;
        println!("GL: {}", w.describe());
        Ok(w)
    }

    fn window(&self) -> &Window {
        &self.window
    }

    fn resize(&mut self, size: [u32; 2]) {
        GlWindow::resize(self, size);
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
    target: egl::Framebuffer,
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
        let target = egl::Framebuffer::new(&gl, size)?;
        Ok(Self { gl: Arc::new(gl), fbo: target.fbo, target, _context: context, _display: display })
    }

    /// The framebuffer's pixels, RGBA8, rows top first.
    pub fn read(&self) -> Vec<u8> {
        egl::finish(&self.gl);
        self.target.read(&self.gl)
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

impl WindowGfx for WgpuWindow {
    /// Opens the window, its surface and a device that can present to it.
    fn open(event_loop: &ActiveEventLoop, attrs: WindowAttributes) -> Result<Self> {
        let w = WgpuWindow::open(event_loop, attrs, true)?;
        println!("wgpu: {}", w.adapter);
        Ok(w)
    }

    fn window(&self) -> &Window {
        &self.window
    }

    fn resize(&mut self, size: [u32; 2]) {
        WgpuWindow::resize(self, size);
    }
}
