//! The three browser paths, each with a target to draw into, a barrier (the frame is done on
//! the GPU) and readback.

use std::sync::{Arc, Mutex};

use layerbatch::{Budget, FramePlan, Limits, Stats};
use layerbatch_gl::glow::{self, HasContext};
use wasm_bindgen::JsCast;
use web_sys::{HtmlCanvasElement, WebGl2RenderingContext};

use crate::util;

/// A browser path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// layerbatch-gl on WebGL2 (stock glow).
    Gl,
    /// layerbatch-wgpu on wgpu's WebGL2 backend.
    WgpuWebgl,
    /// layerbatch-wgpu on WebGPU.
    WgpuWebgpu,
}

impl Backend {
    pub const ALL: [Backend; 3] = [Backend::Gl, Backend::WgpuWebgl, Backend::WgpuWebgpu];

    pub fn parse(s: &str) -> Result<Self, String> {
        Backend::ALL
            .into_iter()
            .find(|b| b.name() == s)
            .ok_or_else(|| format!("backend must be gl, wgpu-webgl or wgpu-webgpu, not {s:?}"))
    }

    pub fn name(self) -> &'static str {
        match self {
            Backend::Gl => "gl",
            Backend::WgpuWebgl => "wgpu-webgl",
            Backend::WgpuWebgpu => "wgpu-webgpu",
        }
    }
}

/// Why a device could not be opened.
#[derive(Debug)]
pub enum OpenError {
    /// The browser offers no such context or adapter (a skip outside CI).
    Unavailable(String),
    /// Anything else.
    Failed(String),
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenError::Unavailable(e) => write!(f, "unavailable: {e}"),
            OpenError::Failed(e) => f.write_str(e),
        }
    }
}

/// The clear colour of every frame: opaque black.
pub const CLEAR: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

/// One path with its target and, after [`Device::init`], its renderer.
#[allow(clippy::large_enum_variant)]
pub enum Device {
    Gl(GlDevice),
    Wgpu(WgpuDevice),
}

impl Device {
    /// Opens `backend` on a new `size` canvas added to the page; a WebGPU device asks for
    /// what the adapter offers, as the examples do.
    pub async fn open(backend: Backend, size: [u32; 2]) -> Result<Self, OpenError> {
        Self::open_with(backend, size, false).await
    }

    /// [`Device::open`], but a WebGPU device left at WebGPU's default limits (256 layers an
    /// array: a host that asks for nothing). The WebGL2 paths are opened as by `open`.
    pub async fn open_at_default_limits(backend: Backend, size: [u32; 2]) -> Result<Self, OpenError> {
        Self::open_with(backend, size, true).await
    }

    async fn open_with(backend: Backend, size: [u32; 2], default_limits: bool) -> Result<Self, OpenError> {
        let canvas = util::canvas(size, backend.name()).map_err(OpenError::Failed)?;
        match backend {
            Backend::Gl => GlDevice::new(canvas, size).map(Device::Gl),
            Backend::WgpuWebgl => WgpuDevice::new(false, canvas, size, false).await.map(Device::Wgpu),
            Backend::WgpuWebgpu => WgpuDevice::new(true, canvas, size, default_limits).await.map(Device::Wgpu),
        }
    }

    pub fn limits(&self) -> Limits {
        match self {
            Device::Gl(g) => layerbatch_gl::Renderer::query_limits(&g.gl),
            Device::Wgpu(w) => layerbatch_wgpu::device_limits(&w.device),
        }
    }

    pub fn adapter(&self) -> &str {
        match self {
            Device::Gl(g) => &g.adapter,
            Device::Wgpu(w) => &w.adapter,
        }
    }

    /// Creates the renderer.
    pub fn init(&mut self, budget: &Budget) -> Result<(), String> {
        match self {
            Device::Gl(g) => {
                g.renderer = Some(layerbatch_gl::Renderer::new(g.gl.clone(), budget).map_err(|e| e.to_string())?);
            }
            Device::Wgpu(w) => {
                let options = layerbatch_wgpu::RendererOptions::default();
                let r = layerbatch_wgpu::Renderer::new(&w.device, FORMAT, budget, &options)
                    .map_err(|e| format!("renderer: {e}"))?;
                w.prepared = Some(r.create_prepared());
                w.renderer = Some(r);
            }
        }
        Ok(())
    }

    /// Clears the target, draws `plan` and waits until the GPU is done with it (and, on wgpu,
    /// for the device's verdict on the plan's operations).
    pub async fn draw(&mut self, plan: &FramePlan) -> Result<(), String> {
        match self {
            Device::Gl(g) => g.draw(plan),
            Device::Wgpu(w) => w.draw(plan).await,
        }
    }

    /// The last frame, RGBA8, top row first.
    pub async fn read(&mut self) -> Result<Vec<u8>, String> {
        match self {
            Device::Gl(g) => Ok(g.read()),
            Device::Wgpu(w) => w.read().await,
        }
    }

    pub fn stats(&self) -> Stats {
        match self {
            Device::Gl(g) => g.renderer.as_ref().map(|r| r.stats()).unwrap_or_default(),
            Device::Wgpu(w) => w.renderer.as_ref().map(|r| r.stats()).unwrap_or_default(),
        }
    }

    /// The canvas the device was made on.
    pub fn canvas(&self) -> &HtmlCanvasElement {
        match self {
            Device::Gl(g) => &g.canvas,
            Device::Wgpu(w) => &w.canvas,
        }
    }

    /// Deletes the renderer's objects, takes the canvas off the page and lets its WebGL2
    /// context go at once (`WEBGL_lose_context`): Chromium keeps 16 at most, and a test run
    /// makes more.
    pub fn close(self) {
        let canvas = self.canvas().clone();
        let webgl = match self {
            Device::Gl(mut g) => {
                if let Some(r) = g.renderer.take() {
                    r.destroy();
                }
                Some(g.raw.clone())
            }
            Device::Wgpu(w) => {
                let webgl = !w.webgpu;
                w.device.destroy();
                drop(w);
                // The context wgpu made on the canvas (asking again returns the same one).
                webgl.then(|| webgl2_context(&canvas).ok()).flatten()
            }
        };
        if let Some(raw) = webgl {
            if let Ok(Some(ext)) = raw.get_extension("WEBGL_lose_context") {
                ext.unchecked_into::<web_sys::WebglLoseContext>().lose_context();
            }
        }
        util::remove(&canvas);
    }
}

/// A WebGL2 context on a canvas, drawn into through its default framebuffer.
pub struct GlDevice {
    pub canvas: HtmlCanvasElement,
    pub raw: WebGl2RenderingContext,
    pub gl: Arc<glow::Context>,
    pub renderer: Option<layerbatch_gl::Renderer>,
    pub size: [u32; 2],
    pub adapter: String,
}

/// A WebGL2 context on `canvas`: no antialiasing (the other paths draw without it), and the
/// drawing buffer kept for readback.
pub fn webgl2_context(canvas: &HtmlCanvasElement) -> Result<WebGl2RenderingContext, OpenError> {
    let options = js_sys::Object::new();
    for (key, value) in [("antialias", false), ("preserveDrawingBuffer", true), ("premultipliedAlpha", true)] {
        let _ = js_sys::Reflect::set(&options, &key.into(), &value.into());
    }
    canvas
        .get_context_with_context_options("webgl2", &options)
        .map_err(|e| OpenError::Failed(format!("getContext(webgl2): {e:?}")))?
        .ok_or_else(|| OpenError::Unavailable("no WebGL2 context".into()))?
        .dyn_into::<WebGl2RenderingContext>()
        .map_err(|_| OpenError::Failed("getContext(webgl2) returned something else".into()))
}

/// `UNMASKED_RENDERER_WEBGL` (`WEBGL_debug_renderer_info`), or `RENDERER`.
fn renderer_name(raw: &WebGl2RenderingContext) -> String {
    const UNMASKED_RENDERER_WEBGL: u32 = 0x9246;
    let unmasked = raw.get_extension("WEBGL_debug_renderer_info").ok().flatten().is_some();
    let name = if unmasked { UNMASKED_RENDERER_WEBGL } else { WebGl2RenderingContext::RENDERER };
    raw.get_parameter(name).ok().and_then(|v| v.as_string()).unwrap_or_else(|| "WebGL2".into())
}

impl GlDevice {
    fn new(canvas: HtmlCanvasElement, size: [u32; 2]) -> Result<Self, OpenError> {
        let raw = webgl2_context(&canvas)?;
        let adapter = format!("{} (WebGL2)", renderer_name(&raw));
        // The host's side of the story: a stock glow context, nothing bound. (The renderer
        // takes an `Arc`; on the web glow's context is not `Sync`, and nothing here crosses
        // threads.)
        #[allow(clippy::arc_with_non_send_sync)]
        let gl = Arc::new(glow::Context::from_webgl2_context(raw.clone()));
        Ok(Self { canvas, raw, gl, renderer: None, size, adapter })
    }

    fn draw(&mut self, plan: &FramePlan) -> Result<(), String> {
        let r = self.renderer.as_mut().ok_or("init first")?;
        let [w, h] = self.size;
        // SAFETY: state calls on the canvas's context: the default framebuffer, cleared.
        unsafe {
            self.gl.bind_framebuffer(glow::FRAMEBUFFER, None);
            self.gl.viewport(0, 0, w as i32, h as i32);
            self.gl.clear_color(CLEAR[0], CLEAR[1], CLEAR[2], CLEAR[3]);
            self.gl.clear(glow::COLOR_BUFFER_BIT);
        }
        r.paint(plan, &layerbatch_gl::Target::bound(self.size)).map_err(|e| e.to_string())?;
        self.barrier();
        Ok(())
    }

    /// `finish` alone is not a barrier in Chromium; `finish` and a one-pixel read are.
    fn barrier(&self) {
        let mut px = [0u8; 4];
        // SAFETY: reads one RGBA8 pixel into a 4-byte buffer.
        unsafe {
            self.gl.finish();
            self.gl.read_pixels(0, 0, 1, 1, glow::RGBA, glow::UNSIGNED_BYTE, glow::PixelPackData::Slice(Some(&mut px)));
        }
    }

    pub fn read(&self) -> Vec<u8> {
        read_bound(&self.gl, self.size)
    }
}

/// The framebuffer bound for reading, `size`, RGBA8, top row first.
pub fn read_bound(gl: &glow::Context, size: [u32; 2]) -> Vec<u8> {
    let [w, h] = size.map(|v| v as usize);
    let mut px = vec![0u8; w * h * 4];
    // SAFETY: reads w*h RGBA8 pixels into a buffer of exactly that size.
    unsafe {
        gl.pixel_store_i32(glow::PACK_ALIGNMENT, 4);
        gl.read_pixels(
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

/// The format of the wgpu targets.
pub const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

/// A wgpu device (WebGL2 or WebGPU) with an offscreen RGBA8 target.
pub struct WgpuDevice {
    pub canvas: HtmlCanvasElement,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub target: wgpu::Texture,
    pub view: wgpu::TextureView,
    pub renderer: Option<layerbatch_wgpu::Renderer>,
    /// What the plan [`WgpuDevice::submit`] draws needs between `prepare` and `render`: made
    /// by [`Device::init`]'s renderer.
    pub prepared: Option<layerbatch_wgpu::PreparedPlan>,
    pub size: [u32; 2],
    pub adapter: String,
    /// Errors that reached the device's uncaptured-error handler.
    pub uncaptured: Arc<Mutex<Vec<String>>>,
    /// WebGPU (else wgpu's WebGL2 backend).
    pub webgpu: bool,
    _surface: Option<wgpu::Surface<'static>>,
    _instance: wgpu::Instance,
}

impl WgpuDevice {
    async fn new(
        webgpu: bool,
        canvas: HtmlCanvasElement,
        size: [u32; 2],
        default_limits: bool,
    ) -> Result<Self, OpenError> {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
        desc.backends = if webgpu { wgpu::Backends::BROWSER_WEBGPU } else { wgpu::Backends::GL };
        let instance = wgpu::Instance::new(desc);
        // wgpu's WebGL2 backend makes its context from a canvas surface; WebGPU needs none.
        let surface = if webgpu {
            None
        } else {
            Some(
                instance
                    .create_surface(wgpu::SurfaceTarget::Canvas(canvas.clone()))
                    .map_err(|e| OpenError::Unavailable(format!("WebGL2 surface: {e}")))?,
            )
        };
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                force_fallback_adapter: false,
                compatible_surface: surface.as_ref(),
                apply_limit_buckets: false,
            })
            .await
            .map_err(|e| {
                OpenError::Unavailable(format!("no {} adapter: {e}", if webgpu { "WebGPU" } else { "WebGL2" }))
            })?;
        // WebGL2: its downlevel limits at the adapter's resolution, as natively on GL; WebGPU:
        // what the adapter offers, or WebGPU's defaults when asked.
        let required_limits = if webgpu && default_limits {
            wgpu::Limits::default().using_resolution(adapter.limits())
        } else if webgpu {
            adapter.limits()
        } else {
            wgpu::Limits::downlevel_webgl2_defaults().using_resolution(adapter.limits())
        };
        // The texture compression families the adapter has, as a host with compressed
        // assets asks for them.
        let compression = wgpu::Features::TEXTURE_COMPRESSION_BC
            | wgpu::Features::TEXTURE_COMPRESSION_ETC2
            | wgpu::Features::TEXTURE_COMPRESSION_ASTC;
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("layerbatch"),
                required_features: adapter.features() & compression,
                required_limits,
                ..Default::default()
            })
            .await
            .map_err(|e| OpenError::Failed(format!("request_device: {e}")))?;
        let uncaptured = Arc::new(Mutex::new(Vec::new()));
        let sink = uncaptured.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            log::error!("uncaptured wgpu error: {e}");
            sink.lock().unwrap_or_else(|p| p.into_inner()).push(e.to_string());
        }));
        let info = adapter.get_info();
        // WebGPU may not name its adapter.
        let name = if info.name.is_empty() { format!("{:?} adapter", info.device_type) } else { info.name };
        let adapter = format!("{name} ({:?})", info.backend);
        let target = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("layerbatch offscreen target"),
            size: wgpu::Extent3d { width: size[0], height: size[1], depth_or_array_layers: 1 },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let view = target.create_view(&Default::default());
        Ok(Self {
            canvas,
            device,
            queue,
            target,
            view,
            renderer: None,
            prepared: None,
            size,
            adapter,
            uncaptured,
            webgpu,
            _surface: surface,
            _instance: instance,
        })
    }

    /// Prepares `plan`, renders it into the target in a cleared pass and submits.
    pub fn submit(&mut self, plan: &FramePlan) -> Result<(), layerbatch_wgpu::Error> {
        let r = self.renderer.as_mut().expect("init first");
        let prepared = self.prepared.get_or_insert_with(|| r.create_prepared());
        r.prepare(&self.device, &self.queue, prepared, plan, self.size)?;
        let mut encoder = self.device.create_command_encoder(&Default::default());
        {
            let mut pass = clear_pass(&mut encoder, &self.view);
            r.render(prepared, &mut pass)?;
        }
        self.queue.submit([encoder.finish()]);
        Ok(())
    }

    async fn draw(&mut self, plan: &FramePlan) -> Result<(), String> {
        self.submit(plan).map_err(|e| e.to_string())?;
        // The barrier: one texel read back.
        self.read_rect([0, 0, 1, 1]).await?;
        let r = self.renderer.as_mut().expect("init first");
        r.device_errors().await.map_err(|e| e.to_string())?;
        match self.uncaptured.lock().unwrap_or_else(|p| p.into_inner()).first() {
            Some(e) => Err(format!("uncaptured wgpu error: {e}")),
            None => Ok(()),
        }
    }

    async fn read(&mut self) -> Result<Vec<u8>, String> {
        let [w, h] = self.size;
        self.read_rect([0, 0, w, h]).await
    }

    /// `[x, y, w, h]` of the target, RGBA8, top row first.
    async fn read_rect(&self, [x, y, w, h]: [u32; 4]) -> Result<Vec<u8>, String> {
        read_texture(&self.device, &self.queue, &self.target, [x, y, w, h]).await
    }
}

/// A render pass into `view`, cleared to [`CLEAR`].
pub fn clear_pass<'e>(encoder: &'e mut wgpu::CommandEncoder, view: &wgpu::TextureView) -> wgpu::RenderPass<'e> {
    let [r, g, b, a] = CLEAR.map(f64::from);
    encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some("layerbatch"),
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load: wgpu::LoadOp::Clear(wgpu::Color { r, g, b, a }),
                store: wgpu::StoreOp::Store,
            },
        })],
        depth_stencil_attachment: None,
        timestamp_writes: None,
        occlusion_query_set: None,
        multiview_mask: None,
    })
}

/// Copies `[x, y, w, h]` of a 4-byte-per-pixel texture out and waits for it (polling the
/// device and yielding to the browser): tightly packed rows, top row first.
pub async fn read_texture(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    texture: &wgpu::Texture,
    [x, y, w, h]: [u32; 4],
) -> Result<Vec<u8>, String> {
    let bytes_per_row = (w * 4).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("layerbatch readback"),
        size: u64::from(bytes_per_row * h),
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_texture_to_buffer(
        wgpu::TexelCopyTextureInfo {
            texture,
            mip_level: 0,
            origin: wgpu::Origin3d { x, y, z: 0 },
            aspect: wgpu::TextureAspect::All,
        },
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
    queue.submit([encoder.finish()]);
    let done = Arc::new(Mutex::new(None));
    let sink = done.clone();
    buffer.slice(..).map_async(wgpu::MapMode::Read, move |r| {
        *sink.lock().unwrap_or_else(|p| p.into_inner()) = Some(r);
    });
    loop {
        // WebGL2 maps on a poll; WebGPU resolves by itself.
        let _ = device.poll(wgpu::PollType::Poll);
        if let Some(r) = done.lock().unwrap_or_else(|p| p.into_inner()).take() {
            r.map_err(|e| format!("map readback: {e}"))?;
            break;
        }
        util::sleep_ms(0).await;
    }
    let mapped = buffer.slice(..).get_mapped_range().map_err(|e| format!("mapped range: {e}"))?;
    let mut px = Vec::with_capacity((w * h * 4) as usize);
    for row in mapped.chunks_exact(bytes_per_row as usize) {
        px.extend_from_slice(&row[..(w * 4) as usize]);
    }
    Ok(px)
}
