//! Offscreen rendering on whatever device there is (software included), for both backends:
//! a surfaceless EGL context for GL, an adapter with no surface for wgpu. Recipes from
//! `shared/notes/headless-gpu.md`.
//!
//! Shared by `examples/stress.rs` (headless mode), the frame benches and the cross-backend
//! tests. Include it with `#[allow(unsafe_code)] #[path = ...] mod headless;`.
#![allow(dead_code)]

use std::sync::Arc;

use glow::HasContext;
use glutin::api::egl::{context::PossiblyCurrentContext, device::Device, display::Display};
use glutin::config::{Api, ConfigSurfaceTypes, ConfigTemplateBuilder};
use glutin::context::{ContextApi, ContextAttributesBuilder, GlProfile, Version};
use glutin::display::GlDisplay;
use layerbatch::{Budget, FramePlan, Limits, Stats};

/// The clear colour of every offscreen frame: opaque black.
pub const CLEAR: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

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
    /// layerbatch-wgpu on any backend wgpu picks.
    WgpuAny,
}

/// An offscreen target on one device, with a renderer once [`Headless::init`] ran.
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
            DeviceKind::WgpuAny => WgpuHeadless::new(wgpu::Backends::all(), size).map(|w| Headless::Wgpu(Box::new(w))),
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

    /// Clears the target and draws `plan` into it; returns when the device has finished, so
    /// timing a frame measures the device's work too.
    pub fn draw(&mut self, plan: &FramePlan) -> Result<(), String> {
        match self {
            Headless::Gl(g) => g.draw(plan),
            Headless::Wgpu(w) => w.draw(plan),
        }
    }

    /// The last frame, RGBA8, top row first.
    pub fn read(&mut self) -> Vec<u8> {
        match self {
            Headless::Gl(g) => g.read(),
            Headless::Wgpu(w) => w.read(),
        }
    }

    /// The renderer's counters.
    pub fn stats(&self) -> Stats {
        match self {
            Headless::Gl(g) => g.renderer.as_ref().map(|r| r.stats()).unwrap_or_default(),
            Headless::Wgpu(w) => w.renderer.as_ref().map(|r| r.stats()).unwrap_or_default(),
        }
    }
}

/// A surfaceless EGL context with an RGBA8 framebuffer object.
pub struct GlHeadless {
    // Field order matters: the renderer and `gl` go before the context and display.
    renderer: Option<layerbatch_gl::Renderer>,
    pub gl: Arc<glow::Context>,
    fbo: glow::Framebuffer,
    size: [u32; 2],
    adapter: String,
    _context: PossiblyCurrentContext,
    _display: Display,
}

impl GlHeadless {
    fn new(gles: bool, size: [u32; 2]) -> Result<Self, String> {
        let devices: Vec<Device> = Device::query_devices().map_err(|e| format!("EGL devices: {e}"))?.collect();
        let device = devices
            .iter()
            .find(|d| d.extensions().contains("EGL_MESA_device_software"))
            .or(devices.first())
            .ok_or("no EGL device")?;
        // SAFETY: the device comes from EGL's own enumeration; no native display is passed.
        let display = unsafe { Display::with_device(device, None) }.map_err(|e| format!("EGL display: {e}"))?;
        let template = ConfigTemplateBuilder::new()
            .with_surface_type(ConfigSurfaceTypes::empty())
            .with_api(if gles { Api::GLES3 } else { Api::OPENGL })
            .build();
        // SAFETY: the display is alive for the call.
        let config = unsafe { display.find_configs(template) }
            .map_err(|e| format!("EGL configs: {e}"))?
            .next()
            .ok_or("no EGL config")?;
        let api = if gles {
            ContextApi::Gles(Some(Version::new(3, 0)))
        } else {
            ContextApi::OpenGl(Some(Version::new(3, 3)))
        };
        let attrs = ContextAttributesBuilder::new().with_context_api(api).with_profile(GlProfile::Core).build(None);
        // SAFETY: the config comes from this display; no shared context.
        let context = unsafe { display.create_context(&config, &attrs) }
            .map_err(|e| format!("EGL context: {e}"))?
            .make_current_surfaceless()
            .map_err(|e| format!("make current: {e}"))?;
        // SAFETY: the context is current on this thread and outlives `gl` (field order).
        let gl = unsafe { glow::Context::from_loader_function_cstr(|s| display.get_proc_address(s)) };
        // SAFETY: plain object creation and queries on the current context.
        let (fbo, adapter) = unsafe {
            let fbo = gl.create_framebuffer()?;
            let rb = gl.create_renderbuffer()?;
            gl.bind_renderbuffer(glow::RENDERBUFFER, Some(rb));
            gl.renderbuffer_storage(glow::RENDERBUFFER, glow::RGBA8, size[0] as i32, size[1] as i32);
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
            gl.framebuffer_renderbuffer(glow::FRAMEBUFFER, glow::COLOR_ATTACHMENT0, glow::RENDERBUFFER, Some(rb));
            if gl.check_framebuffer_status(glow::FRAMEBUFFER) != glow::FRAMEBUFFER_COMPLETE {
                return Err("offscreen framebuffer incomplete".into());
            }
            let adapter =
                format!("{} ({})", gl.get_parameter_string(glow::RENDERER), gl.get_parameter_string(glow::VERSION));
            (fbo, adapter)
        };
        Ok(Self { renderer: None, gl: Arc::new(gl), fbo, size, adapter, _context: context, _display: display })
    }

    fn init(&mut self, budget: &Budget) -> Result<(), String> {
        self.renderer = Some(layerbatch_gl::Renderer::new(self.gl.clone(), budget).map_err(|e| e.to_string())?);
        Ok(())
    }

    fn draw(&mut self, plan: &FramePlan) -> Result<(), String> {
        let r = self.renderer.as_mut().ok_or("init first")?;
        let [w, h] = self.size;
        // SAFETY: state calls on our own framebuffer, on the current context.
        unsafe {
            self.gl.bind_framebuffer(glow::FRAMEBUFFER, Some(self.fbo));
            self.gl.viewport(0, 0, w as i32, h as i32);
            self.gl.clear_color(CLEAR[0], CLEAR[1], CLEAR[2], CLEAR[3]);
            self.gl.clear(glow::COLOR_BUFFER_BIT);
        }
        r.paint(plan, &layerbatch_gl::Target::framebuffer(self.fbo, self.size)).map_err(|e| e.to_string())?;
        // SAFETY: a plain synchronisation call.
        unsafe { self.gl.finish() };
        Ok(())
    }

    fn read(&mut self) -> Vec<u8> {
        let [w, h] = self.size.map(|v| v as usize);
        let mut px = vec![0u8; w * h * 4];
        // SAFETY: reads w*h RGBA8 pixels into a buffer of exactly that size.
        unsafe {
            self.gl.bind_framebuffer(glow::READ_FRAMEBUFFER, Some(self.fbo));
            self.gl.pixel_store_i32(glow::PACK_ALIGNMENT, 4);
            self.gl.read_pixels(
                0,
                0,
                w as i32,
                h as i32,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                glow::PixelPackData::Slice(Some(&mut px)),
            );
        }
        // GL's rows go bottom-up.
        px.chunks_exact(w * 4).rev().flatten().copied().collect()
    }
}

impl Drop for GlHeadless {
    fn drop(&mut self) {
        if let Some(r) = self.renderer.take() {
            r.destroy();
        }
    }
}

/// A wgpu device with an RGBA8 target texture and a readback buffer.
pub struct WgpuHeadless {
    renderer: Option<layerbatch_wgpu::Renderer>,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    target: wgpu::Texture,
    view: wgpu::TextureView,
    size: [u32; 2],
    adapter: String,
}

/// The format of the offscreen targets.
pub const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

impl WgpuHeadless {
    fn new(backends: wgpu::Backends, size: [u32; 2]) -> Result<Self, String> {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
        desc.backends = backends;
        let instance = wgpu::Instance::new(desc);
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            force_fallback_adapter: false,
            compatible_surface: None,
            apply_limit_buckets: false,
        }))
        .map_err(|e| format!("no {backends:?} adapter: {e}"))?;
        let info = adapter.get_info();
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("layerbatch headless"),
            required_limits: wgpu::Limits::downlevel_webgl2_defaults().using_resolution(adapter.limits()),
            ..Default::default()
        }))
        .map_err(|e| format!("request_device: {e}"))?;
        let target = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("layerbatch headless target"),
            size: wgpu::Extent3d { width: size[0], height: size[1], depth_or_array_layers: 1 },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let view = target.create_view(&Default::default());
        let adapter = format!("{} ({:?})", info.name, info.backend);
        Ok(Self { renderer: None, device, queue, target, view, size, adapter })
    }

    fn init(&mut self, budget: &Budget) -> Result<(), String> {
        let options = layerbatch_wgpu::RendererOptions::default();
        let r = layerbatch_wgpu::Renderer::new(&self.device, FORMAT, budget, &options).map_err(|e| e.to_string())?;
        self.renderer = Some(r);
        Ok(())
    }

    fn draw(&mut self, plan: &FramePlan) -> Result<(), String> {
        let r = self.renderer.as_mut().ok_or("init first")?;
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let mut encoder = self.device.create_command_encoder(&Default::default());
        r.prepare(&self.device, &self.queue, &mut encoder, plan, self.size).map_err(|e| e.to_string())?;
        {
            let [cr, cg, cb, ca] = CLEAR.map(f64::from);
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("layerbatch headless"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &self.view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color { r: cr, g: cg, b: cb, a: ca }),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            r.render(&mut pass);
        }
        self.queue.submit([encoder.finish()]);
        self.device.poll(wgpu::PollType::wait_indefinitely()).map_err(|e| format!("poll: {e}"))?;
        match pollster::block_on(scope.pop()) {
            Some(e) => Err(format!("wgpu validation error: {e}")),
            None => Ok(()),
        }
    }

    fn read(&mut self) -> Vec<u8> {
        let [w, h] = self.size;
        let bytes_per_row = (w * 4).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
        let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("layerbatch readback"),
            size: u64::from(bytes_per_row * h),
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        let mut encoder = self.device.create_command_encoder(&Default::default());
        encoder.copy_texture_to_buffer(
            self.target.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(bytes_per_row),
                    rows_per_image: Some(h),
                },
            },
            wgpu::Extent3d { width: w, height: h, depth_or_array_layers: 1 },
        );
        self.queue.submit([encoder.finish()]);
        buffer.slice(..).map_async(wgpu::MapMode::Read, |r| r.expect("map readback"));
        self.device.poll(wgpu::PollType::wait_indefinitely()).expect("poll");
        let mapped = buffer.slice(..).get_mapped_range().expect("mapped range");
        let mut px = Vec::with_capacity((w * h * 4) as usize);
        for row in mapped.chunks_exact(bytes_per_row as usize) {
            px.extend_from_slice(&row[..(w * 4) as usize]);
        }
        px
    }
}

/// Whether the run is CI's: a device that cannot be had then is a failure, not a skip.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}
