//! The windowed half of `examples/stress.rs`: a winit window drawn by layerbatch-gl (a glutin
//! context made with glutin-winit, on a window surface) or by layerbatch-wgpu (on a wgpu
//! surface), with live figures in the title.
//!
//! Everything that can fail before the first frame is presented (no event loop, no window, no
//! context or adapter, a renderer that cannot be built) is [`Error::Unavailable`]: the caller
//! then renders offscreen instead.

use std::time::{Duration, Instant};

use layerbatch::{Batcher, Stats};
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{ElementState, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{Key, NamedKey};
use winit::window::{Window, WindowAttributes, WindowId};

use crate::scene::Scene;
use crate::{Args, Backend, Mode, Recorder, Report, Sums, SIZE};

/// How often the title's figures are refreshed.
const TITLE_EVERY: Duration = Duration::from_millis(500);
/// Longest scene step, so a stall does not throw every sprite to the edges.
const MAX_DT: f32 = 0.1;

/// Why a windowed run did not complete.
#[derive(Debug)]
pub enum Error {
    /// No window could be shown (before any frame): render offscreen instead.
    Unavailable(String),
    /// The run failed after frames were presented.
    Failed(String),
}

/// Runs the scene in a window until it is closed or `--frames` frames were presented.
pub fn run(args: &Args) -> Result<Report, Error> {
    let event_loop = EventLoop::new().map_err(|e| Error::Unavailable(format!("event loop: {e}")))?;
    event_loop.set_control_flow(ControlFlow::Poll);
    let mut app = App {
        args,
        running: None,
        error: None,
        recorder: Recorder::default(),
        title: Sums::default(),
        title_since: Instant::now(),
        last_frame: None,
    };
    let result = event_loop.run_app(&mut app);
    let frames = app.recorder.frames;
    let fail = |e: String| if frames == 0 { Error::Unavailable(e) } else { Error::Failed(e) };
    if let Some(e) = app.error.take() {
        return Err(fail(e));
    }
    result.map_err(|e| fail(format!("event loop: {e}")))?;
    let running = app.running.take().ok_or_else(|| Error::Unavailable("the window was never created".into()))?;
    let mut report = Report::new(
        args,
        Mode::Window,
        running.gfx.backend_name(),
        running.gfx.adapter(),
        running.batcher.budget(),
        &app.recorder,
    );
    report.texel_bytes = running.scene.texel_bytes();
    report.arrays_alive = running.batcher.allocator().array_count();
    Ok(report)
}

/// The window's attributes: the scene's size, in physical pixels.
fn window_attributes() -> WindowAttributes {
    Window::default_attributes().with_title("layerbatch stress").with_inner_size(PhysicalSize::new(SIZE[0], SIZE[1]))
}

struct App<'a> {
    args: &'a Args,
    running: Option<Running>,
    error: Option<String>,
    recorder: Recorder,
    title: Sums,
    title_since: Instant,
    last_frame: Option<Instant>,
}

/// A window with its device, batcher and scene.
struct Running {
    gfx: Gfx,
    batcher: Batcher,
    scene: Scene,
}

enum Gfx {
    Gl(Box<gl::GlWindow>),
    Wgpu(Box<wgpu_window::WgpuWindow>),
}

impl Gfx {
    fn window(&self) -> &Window {
        match self {
            Gfx::Gl(g) => &g.window,
            Gfx::Wgpu(w) => &w.window,
        }
    }
    fn backend_name(&self) -> &'static str {
        match self {
            Gfx::Gl(_) => "gl",
            Gfx::Wgpu(_) => "wgpu",
        }
    }
    fn adapter(&self) -> String {
        match self {
            Gfx::Gl(g) => g.adapter.clone(),
            Gfx::Wgpu(w) => w.adapter.clone(),
        }
    }
    fn resize(&mut self, size: PhysicalSize<u32>) {
        match self {
            Gfx::Gl(g) => g.resize(size),
            Gfx::Wgpu(w) => w.resize(size),
        }
    }
}

impl Running {
    fn new(event_loop: &ActiveEventLoop, args: &Args) -> Result<Self, String> {
        let (gfx, limits) = match args.backend {
            Backend::Gl => {
                let g = gl::GlWindow::new(event_loop)?;
                let limits = g.limits();
                (Gfx::Gl(Box::new(g)), limits)
            }
            Backend::Wgpu => {
                let w = wgpu_window::WgpuWindow::new(event_loop)?;
                let limits = w.limits();
                (Gfx::Wgpu(Box::new(w)), limits)
            }
        };
        let mut gfx = gfx;
        let mut batcher = Batcher::new(limits, args.config()).map_err(|e| format!("config: {e}"))?;
        match &mut gfx {
            Gfx::Gl(g) => g.init(batcher.budget())?,
            Gfx::Wgpu(w) => w.init(batcher.budget())?,
        }
        let scene = Scene::new(&mut batcher, args.scene_options(SIZE)).map_err(|e| format!("textures: {e}"))?;
        Ok(Self { gfx, batcher, scene })
    }

    /// Steps the scene by `dt` and draws and presents one frame. `Ok(None)`: no frame this
    /// time (the surface was not ready); nothing was planned.
    fn frame(&mut self, dt: f32) -> Result<Option<(f64, Stats)>, String> {
        let Running { gfx, batcher, scene } = self;
        match gfx {
            Gfx::Gl(g) => g.frame(batcher, scene, dt).map(Some),
            Gfx::Wgpu(w) => w.frame(batcher, scene, dt),
        }
    }
}

impl App<'_> {
    fn fail(&mut self, event_loop: &ActiveEventLoop, e: String) {
        self.error.get_or_insert(e);
        event_loop.exit();
    }

    fn redraw(&mut self, event_loop: &ActiveEventLoop) {
        let Some(running) = self.running.as_mut() else { return };
        let now = Instant::now();
        let dt = self.last_frame.map_or(1.0 / 60.0, |t| (now - t).as_secs_f32().min(MAX_DT));
        match running.frame(dt) {
            Ok(Some((ms, stats))) => {
                self.last_frame = Some(now);
                self.recorder.record(ms, stats);
                self.title.add(&stats);
            }
            Ok(None) => return,
            Err(e) => return self.fail(event_loop, e),
        }
        let elapsed = self.title_since.elapsed();
        if elapsed >= TITLE_EVERY {
            let t = &self.title;
            running.gfx.window().set_title(&format!(
                "layerbatch stress · {} · {:.1} fps · {:.1} draw calls · {:.1} flushes · {} resets · {:.1} binds per frame",
                running.gfx.backend_name(),
                t.frames as f64 / elapsed.as_secs_f64(),
                t.per_frame(t.draw_calls),
                t.per_frame(t.flushes),
                self.recorder.last_stats().core_total.cache_resets,
                t.per_frame(t.slot_binds),
            ));
            self.title = Sums::default();
            self.title_since = Instant::now();
        }
        if self.args.frames.is_some_and(|n| self.recorder.frames >= n) {
            event_loop.exit();
        }
    }
}

impl ApplicationHandler for App<'_> {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.running.is_some() || self.error.is_some() {
            return;
        }
        match Running::new(event_loop, self.args) {
            Ok(r) => {
                r.gfx.window().request_redraw();
                self.title_since = Instant::now();
                self.running = Some(r);
            }
            Err(e) => self.fail(event_loop, e),
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::KeyboardInput { event, .. }
                if event.state == ElementState::Pressed && event.logical_key == Key::Named(NamedKey::Escape) =>
            {
                event_loop.exit()
            }
            WindowEvent::Resized(size) => {
                if let Some(r) = self.running.as_mut() {
                    r.gfx.resize(size);
                }
            }
            WindowEvent::RedrawRequested => self.redraw(event_loop),
            _ => {}
        }
    }

    fn about_to_wait(&mut self, _event_loop: &ActiveEventLoop) {
        if let Some(r) = &self.running {
            r.gfx.window().request_redraw();
        }
    }
}

/// GL through glutin: the one place this example needs `unsafe` besides the offscreen context.
#[allow(unsafe_code)]
mod gl {
    use std::num::NonZeroU32;
    use std::sync::Arc;
    use std::time::Instant;

    use glutin::config::{Config, ConfigTemplateBuilder};
    use glutin::context::{ContextApi, ContextAttributesBuilder, GlProfile, PossiblyCurrentContext, Version};
    use glutin::display::{Display, GetGlDisplay};
    use glutin::prelude::*;
    use glutin::surface::{Surface, SurfaceAttributesBuilder, SwapInterval, WindowSurface};
    use glutin_winit::{DisplayBuilder, GlWindow as _};
    use layerbatch::{Batcher, Budget, Limits, Stats};
    use layerbatch_gl::glow::{self, HasContext};
    use raw_window_handle::HasWindowHandle;
    use winit::dpi::PhysicalSize;
    use winit::event_loop::ActiveEventLoop;
    use winit::window::Window;

    use crate::headless::egl;
    use crate::scene::Scene;

    /// A window with a current GL context on its surface.
    pub struct GlWindow {
        // Field order is drop order: the renderer (destroyed in `Drop`) and `gl` before the
        // surface and context, the window last.
        renderer: Option<layerbatch_gl::Renderer>,
        gl: Arc<glow::Context>,
        surface: Surface<WindowSurface>,
        context: PossiblyCurrentContext,
        _display: Display,
        pub adapter: String,
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
        pub fn new(event_loop: &ActiveEventLoop) -> Result<Self, String> {
            let (window, config) = DisplayBuilder::new()
                .with_window_attributes(Some(super::window_attributes()))
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
                // SAFETY: the config comes from this display and `raw` is the handle of a
                // window that outlives the context (it is dropped after it).
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
            let surface = unsafe { display.create_window_surface(&config, &attrs) }
                .map_err(|e| format!("GL window surface: {e}"))?;
            let context = not_current.make_current(&surface).map_err(|e| format!("make current: {e}"))?;
            // No vsync: this is a stress test. Not every driver allows it; then it stays on.
            let _ = surface.set_swap_interval(&context, SwapInterval::DontWait);
            // SAFETY: the context is current on this thread and outlives `gl` (field order).
            let gl = unsafe { glow::Context::from_loader_function_cstr(|s| display.get_proc_address(s)) };
            let adapter = egl::describe(&gl);
            Ok(Self { renderer: None, gl: Arc::new(gl), surface, context, _display: display, adapter, window })
        }

        pub fn limits(&self) -> Limits {
            layerbatch_gl::Renderer::query_limits(&self.gl)
        }

        pub fn init(&mut self, budget: &Budget) -> Result<(), String> {
            let r = layerbatch_gl::Renderer::new(self.gl.clone(), budget).map_err(|e| format!("GL renderer: {e}"))?;
            self.renderer = Some(r);
            Ok(())
        }

        pub fn resize(&mut self, size: PhysicalSize<u32>) {
            if let (Some(w), Some(h)) = (NonZeroU32::new(size.width), NonZeroU32::new(size.height)) {
                self.surface.resize(&self.context, w, h);
            }
        }

        /// One frame: step, record, plan, paint into the window's framebuffer, swap. Returns
        /// its wall time in milliseconds and the renderer's stats.
        pub fn frame(&mut self, batcher: &mut Batcher, scene: &mut Scene, dt: f32) -> Result<(f64, Stats), String> {
            let renderer = self.renderer.as_mut().ok_or("the renderer is not initialised")?;
            let t0 = Instant::now();
            let plan = scene.frame(batcher, dt);
            let size = self.window.inner_size();
            let (w, h) = (size.width, size.height);
            // SAFETY: state calls on the current context, on the window's default framebuffer.
            unsafe {
                self.gl.bind_framebuffer(glow::FRAMEBUFFER, None);
                self.gl.viewport(0, 0, w as i32, h as i32);
                let c = crate::headless::CLEAR;
                self.gl.clear_color(c[0], c[1], c[2], c[3]);
                self.gl.clear(glow::COLOR_BUFFER_BIT);
            }
            renderer.paint(plan, &layerbatch_gl::Target::bound([w, h])).map_err(|e| format!("paint: {e}"))?;
            self.surface.swap_buffers(&self.context).map_err(|e| format!("swap buffers: {e}"))?;
            Ok((t0.elapsed().as_secs_f64() * 1e3, renderer.stats()))
        }
    }

    impl Drop for GlWindow {
        fn drop(&mut self) {
            // The context is still current on this thread (it is never made not current).
            if let Some(r) = self.renderer.take() {
                r.destroy();
            }
        }
    }
}

/// wgpu on a window surface.
mod wgpu_window {
    use std::sync::Arc;
    use std::time::Instant;

    use layerbatch::{Batcher, Budget, Limits, Stats};
    use winit::dpi::PhysicalSize;
    use winit::event_loop::ActiveEventLoop;
    use winit::window::Window;

    use crate::headless::gpu;
    use crate::scene::Scene;

    /// A window with a configured wgpu surface.
    pub struct WgpuWindow {
        renderer: Option<layerbatch_wgpu::Renderer>,
        surface: wgpu::Surface<'static>,
        config: wgpu::SurfaceConfiguration,
        device: wgpu::Device,
        queue: wgpu::Queue,
        pub adapter: String,
        pub window: Arc<Window>,
    }

    impl WgpuWindow {
        pub fn new(event_loop: &ActiveEventLoop) -> Result<Self, String> {
            let window =
                Arc::new(event_loop.create_window(super::window_attributes()).map_err(|e| format!("window: {e}"))?);
            // wgpu's GL backend needs the display for EGL; the other backends ignore it.
            let desc = wgpu::InstanceDescriptor::new_with_display_handle(Box::new(event_loop.owned_display_handle()));
            let instance = wgpu::Instance::new(desc);
            let surface = instance.create_surface(window.clone()).map_err(|e| format!("wgpu surface: {e}"))?;
            let (adapter, device, queue) =
                gpu::device(&instance, Some(&surface)).map_err(|e| format!("window: {e}"))?;
            let info = adapter.get_info();
            let size = window.inner_size();
            let mut config = surface
                .get_default_config(&adapter, size.width.max(1), size.height.max(1))
                .ok_or_else(|| format!("the window surface is not supported by {}", info.name))?;
            // A non-sRGB format shows the texels' bytes as they are, like the offscreen target.
            let caps = surface.get_capabilities(&adapter);
            if let Some(&f) = caps.formats.iter().find(|f| !f.is_srgb()) {
                config.format = f;
            }
            // No vsync where the surface allows it (falls back to Fifo): this is a stress test.
            config.present_mode = wgpu::PresentMode::AutoNoVsync;
            surface.configure(&device, &config);
            let adapter = gpu::describe(&adapter);
            Ok(Self { renderer: None, surface, config, device, queue, adapter, window })
        }

        pub fn limits(&self) -> Limits {
            layerbatch_wgpu::device_limits(&self.device)
        }

        pub fn init(&mut self, budget: &Budget) -> Result<(), String> {
            let options = layerbatch_wgpu::RendererOptions::default();
            let r = layerbatch_wgpu::Renderer::new(&self.device, self.config.format, budget, &options)
                .map_err(|e| format!("wgpu renderer: {e}"))?;
            self.renderer = Some(r);
            Ok(())
        }

        pub fn resize(&mut self, size: PhysicalSize<u32>) {
            if size.width > 0 && size.height > 0 {
                self.config.width = size.width;
                self.config.height = size.height;
                self.surface.configure(&self.device, &self.config);
            }
        }

        /// One frame: acquire the surface texture, then step, record, plan, prepare, render,
        /// submit and present. `Ok(None)` when the surface has no texture to give now (then
        /// nothing is planned, so the renderer still sees every plan in order).
        pub fn frame(
            &mut self,
            batcher: &mut Batcher,
            scene: &mut Scene,
            dt: f32,
        ) -> Result<Option<(f64, Stats)>, String> {
            let (frame, suboptimal) = match self.surface.get_current_texture() {
                wgpu::CurrentSurfaceTexture::Success(f) => (f, false),
                wgpu::CurrentSurfaceTexture::Suboptimal(f) => (f, true),
                wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => return Ok(None),
                wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                    self.surface.configure(&self.device, &self.config);
                    return Ok(None);
                }
                wgpu::CurrentSurfaceTexture::Validation => {
                    return Err("validation error acquiring the surface texture".into())
                }
            };
            let renderer = self.renderer.as_mut().ok_or("the renderer is not initialised")?;
            let t0 = Instant::now();
            let plan = scene.frame(batcher, dt);
            let view = frame.texture.create_view(&wgpu::TextureViewDescriptor::default());
            let mut encoder = self.device.create_command_encoder(&Default::default());
            renderer
                .prepare(&self.device, &self.queue, plan, [self.config.width, self.config.height])
                .map_err(|e| format!("prepare: {e}"))?;
            {
                let mut pass = gpu::clear_pass(&mut encoder, &view, crate::headless::CLEAR.map(f64::from));
                renderer.render(&mut pass);
            }
            self.queue.submit([encoder.finish()]);
            self.queue.present(frame);
            let ms = t0.elapsed().as_secs_f64() * 1e3;
            if suboptimal {
                self.surface.configure(&self.device, &self.config);
            }
            Ok(Some((ms, renderer.stats())))
        }
    }
}
