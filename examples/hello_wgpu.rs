//! The smallest layerbatch program on wgpu (`cargo run --example hello_wgpu`): a winit window, one
//! texture, three tinted sprites, one draw call in the host's render pass. Copy it: it uses only
//! published crates (layerbatch, layerbatch-wgpu, wgpu, winit, pollster, env_logger). `tour_wgpu` shows more.
use layerbatch::{Batcher, Config, Filter, Quad, TextureDesc, TextureId};
use layerbatch_wgpu::{PreparedPlan, Renderer, RendererOptions};
use std::sync::Arc;
use winit::{application::ApplicationHandler, event::WindowEvent, event_loop::*, window::Window, window::WindowId};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// What an engine keeps: device, queue, batcher, renderer, a prepared plan (`render` uses it in
/// the pass), and the textures.
#[derive(Debug)]
pub struct Sprites {
    device: wgpu::Device,
    queue: wgpu::Queue,
    batcher: Batcher,
    renderer: Renderer,
    prepared: PreparedPlan,
    checker: TextureId,
}

impl Sprites {
    /// Drawing into passes of `format` on `device`, with a 2x2 checker (RGBA8, premultiplied, nearest).
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue, format: wgpu::TextureFormat) -> Result<Self> {
        let mut batcher = Batcher::new(layerbatch_wgpu::device_limits(device), Config::default())?;
        let renderer = Renderer::new(device, format, batcher.budget(), &RendererOptions::default())?;
        let texels = [[255; 4], [120, 120, 120, 255], [120, 120, 120, 255], [255; 4]].concat();
        let checker = batcher.textures().register(&TextureDesc::new(2, 2).with_filter(Filter::Nearest), &texels)?;
        let (device, queue, prepared) = (device.clone(), queue.clone(), renderer.create_prepared());
        Ok(Self { device, queue, batcher, renderer, prepared, checker })
    }

    /// Plans and prepares a frame, then draws it into `view` (`size` pixels) in a cleared pass.
    pub fn frame(&mut self, view: &wgpu::TextureView, size: [u32; 2]) -> Result<()> {
        self.batcher.begin_frame();
        for (i, tint) in [[255, 80, 80, 255], [80, 255, 80, 255], [80, 80, 255, 255]].into_iter().enumerate() {
            let quad = Quad::rect(self.checker, [40.0 + 120.0 * i as f32, 40.0], [96.0, 96.0]);
            self.batcher.push(&quad.with_color(tint))?;
        }
        self.renderer.prepare(&self.device, &self.queue, &mut self.prepared, self.batcher.finish(), size)?;
        let mut encoder = self.device.create_command_encoder(&Default::default());
        let ops = wgpu::Operations { load: wgpu::LoadOp::Clear(wgpu::Color::BLACK), store: wgpu::StoreOp::Store };
        let attachment = wgpu::RenderPassColorAttachment { view, depth_slice: None, resolve_target: None, ops };
        let pass = wgpu::RenderPassDescriptor { color_attachments: &[Some(attachment)], ..Default::default() };
        self.renderer.render(&self.prepared, &mut encoder.begin_render_pass(&pass))?;
        self.queue.submit([encoder.finish()]);
        Ok(())
    }
}

/// The sprites and the window's surface (which holds the window), made when the app resumes.
struct Running(Sprites, wgpu::Surface<'static>, wgpu::SurfaceConfiguration);

fn open(event_loop: &ActiveEventLoop) -> Result<Running> {
    let window = Arc::new(event_loop.create_window(Window::default_attributes().with_title("hello_wgpu"))?);
    let instance = wgpu::Instance::default();
    let surface = instance.create_surface(window.clone())?;
    let options = wgpu::RequestAdapterOptions { compatible_surface: Some(&surface), ..Default::default() };
    let adapter = pollster::block_on(instance.request_adapter(&options))?;
    let (device, queue) = pollster::block_on(adapter.request_device(&Default::default()))?;
    let size = window.inner_size();
    let config = surface.get_default_config(&adapter, size.width.max(1), size.height.max(1)).ok_or("no format")?;
    surface.configure(&device, &config);
    Ok(Running(Sprites::new(&device, &queue, config.format)?, surface, config))
}

struct App(Option<Running>);

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        self.0 = self.0.take().or_else(|| open(event_loop).map_err(|e| eprintln!("hello_wgpu: {e}")).ok());
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        let Some(Running(sprites, surface, config)) = self.0.as_mut() else { return event_loop.exit() };
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(s) if s.width > 0 && s.height > 0 => {
                (config.width, config.height) = (s.width, s.height);
                surface.configure(&sprites.device, config);
            }
            // Skips a frame the surface cannot give now (occluded, outdated, timed out).
            WindowEvent::RedrawRequested => {
                let wgpu::CurrentSurfaceTexture::Success(frame) = surface.get_current_texture() else { return };
                match sprites.frame(&frame.texture.create_view(&Default::default()), [config.width, config.height]) {
                    Ok(()) => sprites.queue.present(frame),
                    Err(e) => (eprintln!("hello_wgpu: {e}"), event_loop.exit()).1,
                }
            }
            _ => {}
        }
    }
}

fn main() -> Result<()> {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init(); // budget cuts
    Ok(EventLoop::new()?.run_app(&mut App(None))?)
}
