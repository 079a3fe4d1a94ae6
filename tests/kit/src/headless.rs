//! Offscreen rendering on whatever device there is (software included), for both backends:
//! a surfaceless EGL context for GL, an adapter with no surface for wgpu. Recipes from
//! `docs/ARCHITECTURE.md` (testing without a GPU).
//!
//! Used by the stress example (headless mode), the frame benches, the conformance suite and
//! the cross-backend tests.

use std::sync::Arc;
use std::time::Instant;

use glutin::api::egl::{context::PossiblyCurrentContext, display::Display};
use layerbatch_core::{Budget, FramePlan, Limits, PlanError, Stats};
use layerbatch_gl::glow;

use crate::{ci, egl, gpu};

/// The clear colour of every offscreen frame: opaque black.
pub const CLEAR: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

/// Why a headless draw failed: the plan was refused by the validator (the same error on every
/// backend), or something else went wrong.
#[derive(Debug)]
pub enum DrawError {
    /// The backend refused the plan before touching the device.
    Plan(PlanError),
    /// Anything else, as the backend or the device said it.
    Other(String),
}

impl std::fmt::Display for DrawError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DrawError::Plan(e) => write!(f, "plan refused: {e}"),
            DrawError::Other(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for DrawError {}

impl From<DrawError> for String {
    fn from(e: DrawError) -> String {
        e.to_string()
    }
}

impl From<layerbatch_gl::Error> for DrawError {
    fn from(e: layerbatch_gl::Error) -> Self {
        match e {
            layerbatch_gl::Error::Plan(p) => DrawError::Plan(p),
            e => DrawError::Other(e.to_string()),
        }
    }
}

impl From<layerbatch_wgpu::Error> for DrawError {
    fn from(e: layerbatch_wgpu::Error) -> Self {
        match e {
            layerbatch_wgpu::Error::Plan(p) => DrawError::Plan(p),
            e => DrawError::Other(e.to_string()),
        }
    }
}

/// Which device to render on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceKind {
    /// layerbatch-gl on a desktop GL 3.3 core context (EGL, surfaceless).
    Gl,
    /// layerbatch-gl on a GLES 3.0 context (EGL, surfaceless).
    Gles,
    /// layerbatch-wgpu on wgpu's Vulkan backend.
    WgpuVulkan,
    /// layerbatch-wgpu on wgpu's GL backend.
    WgpuGl,
    /// layerbatch-wgpu on wgpu's Vulkan backend with a native device's default limits
    /// (`wgpu::Limits::default()`: compute and storage buffers): tile grids culled on the GPU.
    /// Not in [`DeviceKind::ALL`].
    WgpuVulkanCompute,
}

impl DeviceKind {
    /// Every kind: GL 3.3, GLES 3.0, wgpu on Vulkan, wgpu on GL.
    pub const ALL: [DeviceKind; 4] = [DeviceKind::Gl, DeviceKind::Gles, DeviceKind::WgpuVulkan, DeviceKind::WgpuGl];
}

/// An offscreen target on one device, with a renderer once [`Headless::init`] ran.
#[derive(Debug)]
pub enum Headless {
    /// GL.
    Gl(Box<GlHeadless>),
    /// wgpu.
    Wgpu(Box<WgpuHeadless>),
}

impl Headless {
    /// Opens the device and a `size` RGBA8 target.
    pub fn new(device: DeviceKind, size: [u32; 2]) -> Result<Self, String> {
        match device {
            DeviceKind::Gl => GlHeadless::new(false, size).map(|g| Headless::Gl(Box::new(g))),
            DeviceKind::Gles => GlHeadless::new(true, size).map(|g| Headless::Gl(Box::new(g))),
            DeviceKind::WgpuVulkan => {
                WgpuHeadless::new(wgpu::Backends::VULKAN, size).map(|w| Headless::Wgpu(Box::new(w)))
            }
            DeviceKind::WgpuGl => WgpuHeadless::new(wgpu::Backends::GL, size).map(|w| Headless::Wgpu(Box::new(w))),
            DeviceKind::WgpuVulkanCompute => {
                WgpuHeadless::with_limits(wgpu::Backends::VULKAN, size, |_| wgpu::Limits::default())
                    .map(|w| Headless::Wgpu(Box::new(w)))
            }
        }
    }

    /// What the device reports, for `Batcher::new`.
    pub fn limits(&self) -> Limits {
        match self {
            Headless::Gl(g) => layerbatch_gl::Renderer::query_limits(&g.gl),
            Headless::Wgpu(w) => layerbatch_wgpu::device_limits(&w.device),
        }
    }

    /// The adapter / renderer name.
    pub fn adapter(&self) -> &str {
        match self {
            Headless::Gl(g) => &g.adapter,
            Headless::Wgpu(w) => &w.adapter,
        }
    }

    /// `"gl"` or `"wgpu"`.
    pub fn backend_name(&self) -> &'static str {
        match self {
            Headless::Gl(_) => "gl",
            Headless::Wgpu(_) => "wgpu",
        }
    }

    /// Creates the renderer (every program / pipeline, once).
    pub fn init(&mut self, budget: &Budget) -> Result<(), String> {
        match self {
            Headless::Gl(g) => g.init(budget),
            Headless::Wgpu(w) => w.init(budget),
        }
    }

    /// [`Headless::init`] on GL's blit path, as on macOS's GL 4.1: no `glCopyImageSubData`,
    /// no immutable texture storage (growth, shrinking and compaction blit layers between
    /// framebuffers). Pair with [`Headless::blit_path_limits`]. wgpu: as `init`.
    pub fn init_blit_path(&mut self, budget: &Budget) -> Result<(), String> {
        match self {
            Headless::Gl(g) => {
                let caps = layerbatch_gl::Capabilities {
                    copy_image: false,
                    texture_storage: false,
                    ..layerbatch_gl::Capabilities::detect(&g.gl)
                };
                let r = layerbatch_gl::Renderer::with_capabilities(g.gl.clone(), budget, caps);
                g.renderer = Some(r.map_err(|e| e.to_string())?);
                Ok(())
            }
            Headless::Wgpu(w) => w.init(budget),
        }
    }

    /// The limits of GL's blit path: the device's, without compressed copies (blits cannot
    /// copy compressed texels).
    pub fn blit_path_limits(&self) -> Limits {
        self.limits().with_compressed_copies(false)
    }

    /// Clears the target and draws `plan` into it; returns when the device has finished, so
    /// timing a frame measures the device's work too.
    pub fn draw(&mut self, plan: &FramePlan) -> Result<(), DrawError> {
        self.draw_in(plan, None, None).map(|_| ())
    }

    /// [`Headless::draw`], timed by phase ([`DeviceTimes`]).
    pub fn draw_timed(&mut self, plan: &FramePlan) -> Result<DeviceTimes, DrawError> {
        self.draw_in(plan, None, None)
    }

    /// Whether [`DeviceTimes::gpu_ms`] comes from the device's timer (GL `GL_TIME_ELAPSED`,
    /// wgpu `TIMESTAMP_QUERY`).
    pub fn has_gpu_timer(&self) -> bool {
        match self {
            Headless::Gl(g) => g.timer.is_some(),
            Headless::Wgpu(w) => w.timer.is_some(),
        }
    }

    /// [`Headless::draw`] into `rect_px` (`[x, y, w, h]`, y down, may reach outside) of the
    /// target instead of all of it, with the host's scissor set to `host_clip_px` first (and
    /// handed to the renderer as the host's clip), as an egui paint callback does.
    pub fn draw_in(
        &mut self,
        plan: &FramePlan,
        rect_px: Option<[i32; 4]>,
        host_clip_px: Option<[u32; 4]>,
    ) -> Result<DeviceTimes, DrawError> {
        match self {
            Headless::Gl(g) => g.draw(plan, rect_px, host_clip_px),
            Headless::Wgpu(w) => w.draw(plan, rect_px, host_clip_px),
        }
    }

    /// The last frame, RGBA8, top row first.
    pub fn read(&mut self) -> Vec<u8> {
        match self {
            Headless::Gl(g) => g.read(),
            Headless::Wgpu(w) => w.read(),
        }
    }

    /// Simulates losing the device: the GL context is destroyed under the renderer (which is
    /// abandoned, without a GL call), or the wgpu device is destroyed and dropped with
    /// everything on it.
    pub fn lose(self) {
        match self {
            Headless::Gl(mut g) => {
                if let Some(r) = g.renderer.take() {
                    r.abandon();
                }
                // Dropping `g` destroys the context and display.
            }
            Headless::Wgpu(w) => {
                w.device.destroy();
                // Dropping `w` drops the renderer and every object of the lost device.
            }
        }
    }

    /// The renderer's counters.
    pub fn stats(&self) -> Stats {
        match self {
            Headless::Gl(g) => g.renderer.as_ref().map(|r| r.stats()).unwrap_or_default(),
            Headless::Wgpu(w) => w.renderer.as_ref().map(|(r, _)| r.stats()).unwrap_or_default(),
        }
    }

    /// The instances each tile grid draw of the last plan drew, as the GPU's culling pass
    /// counted them (`layerbatch_wgpu::Renderer::grid_instances_drawn`); empty on GL, which
    /// culls tile grids on the CPU.
    pub fn grid_instances_drawn(&self) -> Result<Vec<u32>, String> {
        match self {
            Headless::Gl(_) => Ok(Vec::new()),
            Headless::Wgpu(w) => match &w.renderer {
                Some((r, prepared)) => r.grid_instances_drawn(&w.device, &w.queue, prepared).map_err(|e| e.to_string()),
                None => Err("init first".to_string()),
            },
        }
    }
}

/// Where a headless draw's time went, milliseconds of wall time on the CPU but `gpu_ms`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DeviceTimes {
    /// The backend's call that applies the plan: GL `Renderer::paint` (resource ops, the draw
    /// walk, instance uploads and every GL call), wgpu `Renderer::prepare` (resource ops,
    /// instance and globals uploads, bind groups).
    pub backend_ms: f64,
    /// Handing the work to the device: GL `glFlush`; wgpu `Renderer::render` into a pass,
    /// the pass's end and `Queue::submit`.
    pub submit_ms: f64,
    /// Waiting until the device has finished: GL `glFinish`, wgpu a blocking `Device::poll`.
    pub wait_ms: f64,
    /// The device's own time for the frame's draws, from its timer, when it has one: GL
    /// `GL_TIME_ELAPSED` around `paint`, wgpu timestamps at the render pass's start and end.
    pub gpu_ms: Option<f64>,
}

impl DeviceTimes {
    /// A frame's phases: the host's `scene_ms`, `push_ms` and `finish_ms` (measured by the
    /// caller) and these.
    pub fn phases(&self, scene_ms: f64, push_ms: f64, finish_ms: f64) -> crate::phases::FramePhases {
        crate::phases::FramePhases {
            scene_ms,
            push_ms,
            finish_ms,
            backend_ms: self.backend_ms,
            submit_ms: self.submit_ms,
            wait_ms: self.wait_ms,
            gpu_ms: self.gpu_ms,
        }
    }
}

/// Milliseconds since `t`.
fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// A surfaceless EGL context with an RGBA8 framebuffer object.
#[derive(Debug)]
pub struct GlHeadless {
    // Field order matters: the renderer and `gl` go before the context and display.
    pub(crate) renderer: Option<layerbatch_gl::Renderer>,
    /// The GL functions.
    pub gl: Arc<glow::Context>,
    target: egl::Framebuffer,
    adapter: String,
    /// `GL_TIME_ELAPSED` around each paint, when the context has it.
    timer: Option<egl::GpuTimer>,
    _context: PossiblyCurrentContext,
    _display: Display,
}

impl GlHeadless {
    fn new(gles: bool, size: [u32; 2]) -> Result<Self, String> {
        let egl::Egl { gl, context, display } = egl::surfaceless(gles)?;
        let target = egl::Framebuffer::new(&gl, size)?;
        let adapter = egl::describe(&gl);
        let timer = egl::GpuTimer::new(&gl, gles);
        Ok(Self { renderer: None, gl: Arc::new(gl), target, adapter, timer, _context: context, _display: display })
    }

    fn init(&mut self, budget: &Budget) -> Result<(), String> {
        self.renderer = Some(layerbatch_gl::Renderer::new(self.gl.clone(), budget).map_err(|e| e.to_string())?);
        Ok(())
    }

    fn draw(
        &mut self,
        plan: &FramePlan,
        rect_px: Option<[i32; 4]>,
        host_clip: Option<[u32; 4]>,
    ) -> Result<DeviceTimes, DrawError> {
        let r = self.renderer.as_mut().ok_or_else(|| DrawError::Other("init first".into()))?;
        self.target.begin(&self.gl, CLEAR, host_clip);
        let mut target =
            layerbatch_gl::Target::framebuffer(self.target.fbo, self.target.size).with_host_clip(host_clip.is_some());
        if let Some(rect) = rect_px {
            target = target.with_rect(rect);
        }
        let mut times = DeviceTimes::default();
        let t = Instant::now();
        if let Some(timer) = &self.timer {
            timer.begin(&self.gl);
        }
        let result = r.paint(plan, &target);
        if let Some(timer) = &self.timer {
            timer.end(&self.gl);
        }
        times.backend_ms = ms_since(t);
        let t = Instant::now();
        egl::flush(&self.gl);
        times.submit_ms = ms_since(t);
        let t = Instant::now();
        egl::finish(&self.gl);
        times.wait_ms = ms_since(t);
        times.gpu_ms = self.timer.as_ref().map(|timer| timer.elapsed_ms(&self.gl));
        result?;
        Ok(times)
    }

    fn read(&mut self) -> Vec<u8> {
        self.target.read(&self.gl)
    }
}

impl Drop for GlHeadless {
    fn drop(&mut self) {
        if let Some(r) = self.renderer.take() {
            r.destroy();
        }
        if let Some(timer) = self.timer.take() {
            timer.delete(&self.gl);
        }
    }
}

/// A wgpu device with an RGBA8 target texture and a readback buffer.
#[derive(Debug)]
pub struct WgpuHeadless {
    /// The renderer, and what its plan needs between `prepare` and `render`.
    pub(crate) renderer: Option<(layerbatch_wgpu::Renderer, layerbatch_wgpu::PreparedPlan)>,
    /// The device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    target: wgpu::Texture,
    view: wgpu::TextureView,
    size: [u32; 2],
    adapter: String,
    /// Timestamps at the render pass's start and end, when the device has them.
    timer: Option<gpu::PassTimer>,
}

/// The format of the offscreen targets.
pub const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

impl WgpuHeadless {
    fn new(backends: wgpu::Backends, size: [u32; 2]) -> Result<Self, String> {
        let webgl2 = |a: &wgpu::Adapter| wgpu::Limits::downlevel_webgl2_defaults().using_resolution(a.limits());
        Self::with_limits(backends, size, webgl2)
    }

    fn with_limits(
        backends: wgpu::Backends,
        size: [u32; 2],
        limits: impl FnOnce(&wgpu::Adapter) -> wgpu::Limits,
    ) -> Result<Self, String> {
        let instance = gpu::headless_instance(backends);
        let (adapter, device, queue) =
            gpu::device_with(&instance, None, limits).map_err(|e| format!("{backends:?}: {e}"))?;
        let target = gpu::target(&device, size, FORMAT);
        let view = target.create_view(&Default::default());
        let timer = gpu::PassTimer::new(&device, &queue);
        Ok(Self { renderer: None, device, queue, target, view, size, adapter: gpu::describe(&adapter), timer })
    }

    fn init(&mut self, budget: &Budget) -> Result<(), String> {
        let options = layerbatch_wgpu::RendererOptions::default();
        let r = layerbatch_wgpu::Renderer::new(&self.device, FORMAT, budget, &options).map_err(|e| e.to_string())?;
        let prepared = r.create_prepared();
        self.renderer = Some((r, prepared));
        Ok(())
    }

    fn draw(
        &mut self,
        plan: &FramePlan,
        rect_px: Option<[i32; 4]>,
        host_clip: Option<[u32; 4]>,
    ) -> Result<DeviceTimes, DrawError> {
        let (r, prepared) = self.renderer.as_mut().ok_or_else(|| DrawError::Other("init first".into()))?;
        let viewport = match rect_px {
            Some(rect) => layerbatch_core::Viewport::rect(self.size, rect),
            None => layerbatch_core::Viewport::full(self.size),
        };
        let mut times = DeviceTimes::default();
        let t = Instant::now();
        // `prepare` returns the device's errors itself; nothing is submitted after one.
        r.prepare(&self.device, &self.queue, prepared, plan, viewport.with_host_clip(host_clip))?;
        times.backend_ms = ms_since(t);
        let t = Instant::now();
        let mut encoder = self.device.create_command_encoder(&Default::default());
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        {
            let timestamps = self.timer.as_ref().map(gpu::PassTimer::writes);
            let mut pass = gpu::clear_pass_timed(&mut encoder, &self.view, CLEAR.map(f64::from), timestamps);
            if let Some([x, y, w, h]) = host_clip {
                pass.set_scissor_rect(x, y, w, h);
            }
            r.render(prepared, &mut pass)?;
        }
        if let Some(timer) = &self.timer {
            timer.resolve(&mut encoder);
        }
        self.queue.submit([encoder.finish()]);
        times.submit_ms = ms_since(t);
        let t = Instant::now();
        let popped = pollster::block_on(scope.pop());
        self.device.poll(wgpu::PollType::wait_indefinitely()).map_err(|e| DrawError::Other(format!("poll: {e}")))?;
        times.wait_ms = ms_since(t);
        if let Some(e) = popped {
            return Err(DrawError::Other(format!("wgpu validation error: {e}")));
        }
        times.gpu_ms = match &self.timer {
            Some(timer) => Some(timer.read_ms(&self.device).map_err(DrawError::Other)?),
            None => None,
        };
        Ok(times)
    }

    fn read(&mut self) -> Vec<u8> {
        gpu::read_texture(&self.device, &self.queue, &self.target)
    }
}

/// Opens `kind` for the test named `test`, under the kit's skip policy ([`ci::require`]):
/// under `CI=true` a device that cannot be had panics; outside CI it prints `skipped: ...`
/// and gives `None`.
pub fn open_for_test(kind: DeviceKind, size: [u32; 2], test: &str) -> Option<Headless> {
    ci::require(Headless::new(kind, size), test, &format!("{kind:?} device"))
}

/// Compares two RGBA8 readbacks of `width` pixels a row: `(pixels differing by more than
/// `tol` in a channel, the largest channel difference)`. The first five such pixels are
/// printed to stderr, named by `a_name` and `b_name`.
pub fn compare(a: &[u8], b: &[u8], width: u32, tol: u8, a_name: &str, b_name: &str) -> (usize, u8) {
    assert_eq!(a.len(), b.len(), "{a_name} and {b_name}: readbacks of different sizes");
    let (mut differing, mut worst) = (0, 0);
    for (i, (pa, pb)) in a.chunks_exact(4).zip(b.chunks_exact(4)).enumerate() {
        let d = pa.iter().zip(pb).map(|(x, y)| x.abs_diff(*y)).max().unwrap_or(0);
        worst = worst.max(d);
        if d > tol {
            differing += 1;
            if differing <= 5 {
                let (x, y) = (i as u32 % width, i as u32 / width);
                eprintln!("({x}, {y}): {a_name} {pa:?} vs {b_name} {pb:?}");
            }
        }
    }
    (differing, worst)
}
