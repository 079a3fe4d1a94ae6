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

use layerbatch_testkit::scene::Scene;

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
        recorder: Recorder::new(args.warmup, Stats::default()),
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
    let mut report = crate::report(
        args,
        Mode::Window,
        running.gfx.backend_name(),
        running.gfx.adapter(),
        running.batcher.budget(),
        &app.recorder,
    );
    report.texel_bytes = running.scene.texel_bytes();
    report.format = args.format.name();
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
    /// Started again once the window's renderer exists.
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
            Gfx::Gl(g) => g.window(),
            Gfx::Wgpu(w) => w.window(),
        }
    }
    fn stats(&self) -> Stats {
        match self {
            Gfx::Gl(g) => g.stats(),
            Gfx::Wgpu(w) => w.stats(),
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
            Gfx::Wgpu(w) => w.adapter().to_string(),
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
        if self.args.frames.is_some_and(|n| self.recorder.measured_frames() >= n) {
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
                self.recorder = Recorder::new(self.args.warmup, r.gfx.stats());
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

/// layerbatch-gl on the kit's GL window.
mod gl {
    use std::time::Instant;

    use layerbatch::{Batcher, Budget, Limits, Stats};
    use layerbatch_testkit::headless::CLEAR;
    use layerbatch_testkit::scene::Scene;
    use layerbatch_testkit::window;
    use winit::dpi::PhysicalSize;
    use winit::event_loop::ActiveEventLoop;
    use winit::window::Window;

    /// A window with a current GL context on its surface, and the renderer on it.
    pub struct GlWindow {
        // Field order is drop order: the renderer (destroyed in `Drop`) before the window.
        renderer: Option<layerbatch_gl::Renderer>,
        gfx: window::GlWindow,
        pub adapter: String,
    }

    impl GlWindow {
        pub fn new(event_loop: &ActiveEventLoop) -> Result<Self, String> {
            // No vsync: this is a stress test.
            let gfx = window::GlWindow::open(event_loop, super::window_attributes(), false)?;
            Ok(Self { renderer: None, adapter: gfx.describe(), gfx })
        }

        pub fn window(&self) -> &Window {
            &self.gfx.window
        }

        pub fn limits(&self) -> Limits {
            layerbatch_gl::Renderer::query_limits(&self.gfx.gl)
        }

        pub fn init(&mut self, budget: &Budget) -> Result<(), String> {
            let r =
                layerbatch_gl::Renderer::new(self.gfx.gl.clone(), budget).map_err(|e| format!("GL renderer: {e}"))?;
            self.renderer = Some(r);
            Ok(())
        }

        pub fn stats(&self) -> Stats {
            self.renderer.as_ref().map(|r| r.stats()).unwrap_or_default()
        }

        pub fn resize(&mut self, size: PhysicalSize<u32>) {
            self.gfx.resize([size.width, size.height]);
        }

        /// One frame: step, record, plan, paint into the window's framebuffer, swap. Returns
        /// its wall time in milliseconds and the renderer's stats.
        pub fn frame(&mut self, batcher: &mut Batcher, scene: &mut Scene, dt: f32) -> Result<(f64, Stats), String> {
            let renderer = self.renderer.as_mut().ok_or("the renderer is not initialised")?;
            let t0 = Instant::now();
            let plan = scene.frame(batcher, dt);
            self.gfx.clear(CLEAR);
            renderer.paint(plan, &layerbatch_gl::Target::bound(self.gfx.size())).map_err(|e| format!("paint: {e}"))?;
            self.gfx.swap()?;
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

/// layerbatch-wgpu on the kit's wgpu window.
mod wgpu_window {
    use std::time::Instant;

    use layerbatch::{Batcher, Budget, Limits, Stats};
    use layerbatch_testkit::headless::CLEAR;
    use layerbatch_testkit::scene::Scene;
    use layerbatch_testkit::{gpu, window};
    use winit::dpi::PhysicalSize;
    use winit::event_loop::ActiveEventLoop;
    use winit::window::Window;

    /// A window with a configured wgpu surface, and the renderer on its device.
    pub struct WgpuWindow {
        /// The renderer, and what the frame's plan needs between `prepare` and `render`.
        renderer: Option<(layerbatch_wgpu::Renderer, layerbatch_wgpu::PreparedPlan)>,
        gfx: window::WgpuWindow,
    }

    impl WgpuWindow {
        pub fn new(event_loop: &ActiveEventLoop) -> Result<Self, String> {
            // No vsync where the surface allows it (falls back to Fifo): this is a stress test.
            let gfx = window::WgpuWindow::open(event_loop, super::window_attributes(), false)?;
            Ok(Self { renderer: None, gfx })
        }

        pub fn window(&self) -> &Window {
            &self.gfx.window
        }

        pub fn adapter(&self) -> &str {
            &self.gfx.adapter
        }

        pub fn limits(&self) -> Limits {
            layerbatch_wgpu::device_limits(&self.gfx.device)
        }

        pub fn init(&mut self, budget: &Budget) -> Result<(), String> {
            let options = layerbatch_wgpu::RendererOptions::default();
            let r = layerbatch_wgpu::Renderer::new(&self.gfx.device, self.gfx.config.format, budget, &options)
                .map_err(|e| format!("wgpu renderer: {e}"))?;
            let prepared = r.create_prepared();
            self.renderer = Some((r, prepared));
            Ok(())
        }

        pub fn stats(&self) -> Stats {
            self.renderer.as_ref().map(|(r, _)| r.stats()).unwrap_or_default()
        }

        pub fn resize(&mut self, size: PhysicalSize<u32>) {
            self.gfx.resize([size.width, size.height]);
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
            let Some((frame, suboptimal)) = self.gfx.acquire()? else { return Ok(None) };
            let (renderer, prepared) = self.renderer.as_mut().ok_or("the renderer is not initialised")?;
            let t0 = Instant::now();
            let plan = scene.frame(batcher, dt);
            let view = frame.texture.create_view(&wgpu::TextureViewDescriptor::default());
            let (device, queue) = (&self.gfx.device, &self.gfx.queue);
            let mut encoder = device.create_command_encoder(&Default::default());
            renderer.prepare(device, queue, prepared, plan, self.gfx.size()).map_err(|e| format!("prepare: {e}"))?;
            {
                let mut pass = gpu::clear_pass(&mut encoder, &view, CLEAR.map(f64::from));
                renderer.render(prepared, &mut pass).map_err(|e| format!("render: {e}"))?;
            }
            queue.submit([encoder.finish()]);
            queue.present(frame);
            let ms = t0.elapsed().as_secs_f64() * 1e3;
            if suboptimal {
                self.gfx.reconfigure();
            }
            Ok(Some((ms, renderer.stats())))
        }
    }
}
