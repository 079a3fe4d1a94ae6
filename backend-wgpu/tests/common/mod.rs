//! Headless wgpu devices (Vulkan on lavapipe, GL on llvmpipe), offscreen rendering and
//! readback. See docs/ARCHITECTURE.md (testing without a GPU).
#![allow(dead_code)]

use std::ops::{Deref, DerefMut};
use std::sync::{Arc, Mutex};

use layerbatch_core::{Batcher, Config, FramePlan, Viewport};
use layerbatch_testkit::ci;
// Device, pass and readback recipes, shared with the root examples, benches and tests.
pub use layerbatch_testkit::gpu;
use layerbatch_wgpu::{device_limits, Error, PreparedPlan, Renderer, RendererOptions};

/// Offscreen target size.
pub const SIZE: u32 = 256;
/// Offscreen target format.
pub const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;
/// Clear colour of every frame: opaque black.
pub const CLEAR: [u8; 4] = [0, 0, 0, 255];

/// A device and queue on one backend.
pub struct Gpu {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub backend: wgpu::Backend,
    pub adapter: String,
}

/// A device on `backends`, or `None` after printing `skipped: <reason>`. Under `CI=true` a
/// missing adapter panics instead: a CI run must never pass by skipping (the kit's policy).
pub fn gpu(backends: wgpu::Backends, test: &str) -> Option<Gpu> {
    ci::require(try_gpu(backends), test, &format!("{backends:?} adapter"))
}

fn try_gpu(backends: wgpu::Backends) -> Result<Gpu, String> {
    let (adapter, device, queue) = gpu::device(&gpu::headless_instance(backends), None)?;
    Ok(Gpu { device, queue, backend: adapter.get_info().backend, adapter: gpu::describe(&adapter) })
}

/// [`gpu`] on a device requested with the usual limits changed by `adjust` (e.g. a small
/// `max_buffer_size`).
pub fn gpu_with(backends: wgpu::Backends, test: &str, adjust: impl FnOnce(&mut wgpu::Limits)) -> Option<Gpu> {
    ci::require(try_gpu_with(backends, adjust), test, &format!("{backends:?} adapter"))
}

fn try_gpu_with(backends: wgpu::Backends, adjust: impl FnOnce(&mut wgpu::Limits)) -> Result<Gpu, String> {
    let instance = gpu::headless_instance(backends);
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        force_fallback_adapter: false,
        compatible_surface: None,
        apply_limit_buckets: false,
    }))
    .map_err(|e| format!("no adapter: {e}"))?;
    // The limits of `gpu::device`, adjusted.
    let mut limits = wgpu::Limits::downlevel_webgl2_defaults().using_resolution(adapter.limits());
    adjust(&mut limits);
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("layerbatch"),
        required_limits: limits,
        ..Default::default()
    }))
    .map_err(|e| format!("request_device: {e}"))?;
    Ok(Gpu { device, queue, backend: adapter.get_info().backend, adapter: gpu::describe(&adapter) })
}

/// Replaces the device's uncaptured-error handler (which panics) with one that records every
/// error, so a test can assert that none reached it.
pub fn record_uncaptured(device: &wgpu::Device) -> Arc<Mutex<Vec<String>>> {
    let errors = Arc::new(Mutex::new(Vec::new()));
    let sink = errors.clone();
    device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| sink.lock().unwrap().push(e.to_string())));
    errors
}

/// Panics if any error reached the device's uncaptured-error handler.
#[track_caller]
pub fn assert_no_uncaptured(errors: &Mutex<Vec<String>>, what: &str) {
    let errors = errors.lock().unwrap();
    assert!(errors.is_empty(), "{what}: uncaptured wgpu errors: {errors:?}");
}

/// Defines `vulkan::$name` and `gl::$name` tests that run `$name(&Gpu)` on each backend.
#[macro_export]
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod vulkan {
            $(
                #[test]
                fn $name() {
                    if let Some(g) = $crate::common::gpu(wgpu::Backends::VULKAN, concat!("vulkan::", stringify!($name))) {
                        super::$name(&g);
                    }
                }
            )*
        }
        mod gl {
            $(
                #[test]
                fn $name() {
                    if let Some(g) = $crate::common::gpu(wgpu::Backends::GL, concat!("gl::", stringify!($name))) {
                        super::$name(&g);
                    }
                }
            )*
        }
    };
}

/// A batcher with this device's limits and `config`, and a renderer for it with the prepared
/// plan the helpers draw with.
pub fn setup(gpu: &Gpu, config: Config) -> (Batcher, Rig) {
    let batcher = Batcher::new(device_limits(&gpu.device), config).expect("budget");
    let renderer = Renderer::new(&gpu.device, FORMAT, batcher.budget(), &RendererOptions::default())
        .unwrap_or_else(|e| panic!("{}: Renderer::new: {e}", gpu.adapter));
    (batcher, Rig::new(renderer))
}

/// A renderer and the one [`PreparedPlan`] that [`draw`], [`Rig::prepare`] and [`Rig::render`]
/// use; the renderer's own methods are reached through it.
pub struct Rig {
    pub renderer: Renderer,
    pub plan: PreparedPlan,
}

impl Rig {
    pub fn new(renderer: Renderer) -> Self {
        let plan = renderer.create_prepared();
        Self { renderer, plan }
    }

    /// `Renderer::prepare` into the rig's prepared plan.
    pub fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        plan: &FramePlan,
        viewport: impl Into<Viewport>,
    ) -> Result<(), Error> {
        self.renderer.prepare(device, queue, &mut self.plan, plan, viewport)
    }

    /// `Renderer::render` of the rig's prepared plan (never foreign: its renderer made it).
    pub fn render(&self, pass: &mut wgpu::RenderPass<'_>) {
        self.renderer.render(&self.plan, pass).expect("the rig's own prepared plan");
    }

    /// Whether the rig's prepared plan holds a plan for the host's passes (0 or 1).
    pub fn prepared_plans(&self) -> usize {
        usize::from(self.plan.holds_plan())
    }

    /// The instance vertex buffers of the rig's prepared plan.
    pub fn instance_buffers(&self) -> usize {
        self.plan.instance_buffers()
    }

    /// Their bytes.
    pub fn instance_buffer_bytes(&self) -> u64 {
        self.plan.instance_buffer_bytes()
    }

    /// The globals uniforms of the rig's prepared plan.
    pub fn globals_uniforms(&self) -> usize {
        self.plan.globals_uniforms()
    }
}

impl Deref for Rig {
    type Target = Renderer;
    fn deref(&self) -> &Renderer {
        &self.renderer
    }
}

impl DerefMut for Rig {
    fn deref_mut(&mut self) -> &mut Renderer {
        &mut self.renderer
    }
}

/// A read-back frame.
pub struct Frame {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<u8>,
}

impl Frame {
    /// The pixel at `(x, y)`, top-left origin.
    pub fn px(&self, x: u32, y: u32) -> [u8; 4] {
        let i = ((y * self.width + x) * 4) as usize;
        self.pixels[i..i + 4].try_into().unwrap()
    }

    /// Panics unless `(x, y)` is within `tol` of `want` in every channel.
    #[track_caller]
    pub fn expect(&self, x: u32, y: u32, want: [u8; 4], tol: u8, what: &str) {
        let got = self.px(x, y);
        assert!(close(got, want, tol), "{what}: pixel ({x}, {y}) is {got:?}, expected {want:?} (±{tol})");
    }
}

/// Whether two colours are within `tol` per channel.
pub fn close(a: [u8; 4], b: [u8; 4], tol: u8) -> bool {
    a.iter().zip(b).all(|(&x, y)| x.abs_diff(y) <= tol)
}

/// Prepares `plan`, renders it into a fresh `SIZE` x `SIZE` target cleared to [`CLEAR`],
/// submits and reads the pixels back. Any wgpu validation error fails the test.
pub fn draw(gpu: &Gpu, renderer: &mut Rig, plan: &FramePlan) -> Frame {
    let device = &gpu.device;
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let frame = try_draw(gpu, renderer, plan).unwrap_or_else(|e| panic!("{}: prepare: {e}", gpu.adapter));
    if let Some(e) = pollster::block_on(scope.pop()) {
        panic!("{}: wgpu validation error: {e}", gpu.adapter);
    }
    frame
}

/// [`draw`] without an error scope of its own: `prepare`'s error comes back (and is the
/// frame's only outcome: the encoder is submitted anyway), and any other wgpu error goes to
/// the device's uncaptured-error handler (see [`record_uncaptured`]).
pub fn try_draw(gpu: &Gpu, renderer: &mut Rig, plan: &FramePlan) -> Result<Frame, Error> {
    let device = &gpu.device;
    let target = gpu::target(device, [SIZE, SIZE], FORMAT);
    let view = target.create_view(&Default::default());
    let mut encoder = device.create_command_encoder(&Default::default());
    let prepared = renderer.prepare(device, &gpu.queue, plan, [SIZE, SIZE]);
    {
        let mut pass = gpu::clear_pass(&mut encoder, &view, CLEAR.map(|v| f64::from(v) / 255.0));
        renderer.render(&mut pass);
    }
    gpu.queue.submit([encoder.finish()]);
    prepared?;
    let pixels = gpu::read_texture(device, &gpu.queue, &target);
    Ok(Frame { width: SIZE, height: SIZE, pixels })
}

/// A pass into `view` that keeps what is there.
pub fn load_pass<'e>(encoder: &'e mut wgpu::CommandEncoder, view: &wgpu::TextureView) -> wgpu::RenderPass<'e> {
    encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some("layerbatch load"),
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations { load: wgpu::LoadOp::Load, store: wgpu::StoreOp::Store },
        })],
        depth_stencil_attachment: None,
        timestamp_writes: None,
        occlusion_query_set: None,
        multiview_mask: None,
    })
}

/// The clear colour of every frame, as a pass's clear value.
pub fn clear_value() -> [f64; 4] {
    CLEAR.map(|v| f64::from(v) / 255.0)
}

/// Reads `target` (`SIZE` x `SIZE`) back.
pub fn read(gpu: &Gpu, target: &wgpu::Texture) -> Frame {
    Frame { width: SIZE, height: SIZE, pixels: gpu::read_texture(&gpu.device, &gpu.queue, target) }
}

/// `w` x `h` pixels of one colour.
pub fn solid(w: u32, h: u32, color: [u8; 4]) -> Vec<u8> {
    color.repeat((w * h) as usize)
}

/// A distinct opaque colour per `i < 250`, never black.
pub fn color(i: usize) -> [u8; 4] {
    [(i % 250) as u8 + 5, (255 - (i * 7) % 200) as u8, ((i * 97) % 256) as u8, 255]
}
