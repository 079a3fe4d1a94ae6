//! layerbatch on wgpu in a winit window: two PNG textures, sprites under a moving camera, an
//! additive particle burst, a clipped UI panel, and a minimap drawn into a render-target
//! texture each frame. `cargo run --example tour_wgpu`; with `-- --out a.png [--frames N]`
//! (or with no display) it renders offscreen on a headless device and writes the last frame.
use layerbatch::{Batcher, Config};
use layerbatch_testkit::gpu;
// The scene (planned with the batcher alone) and the window / offscreen boilerplate.
use layerbatch_testkit::hello::{self, Scene};
use layerbatch_wgpu::{PreparedPlan, Renderer, RendererOptions};

/// What a wgpu engine keeps: its device and queue, the batcher, the renderer, what each plan
/// of a frame needs between `prepare` and `render`, the textures.
struct Tour {
    device: wgpu::Device,
    queue: wgpu::Queue,
    batcher: Batcher,
    renderer: Renderer,
    minimap: PreparedPlan,
    screen: PreparedPlan,
    scene: Scene,
}

impl Tour {
    /// Drawing into targets of `format` on `device`.
    fn new(device: &wgpu::Device, queue: &wgpu::Queue, format: wgpu::TextureFormat) -> hello::Result<Self> {
        let mut batcher = Batcher::new(layerbatch_wgpu::device_limits(device), Config::default())?;
        let renderer = Renderer::new(device, format, batcher.budget(), &RendererOptions::default())?;
        let scene = Scene::register(&mut batcher)?;
        let (minimap, screen) = (renderer.create_prepared(), renderer.create_prepared());
        Ok(Self { device: device.clone(), queue: queue.clone(), batcher, renderer, minimap, screen, scene })
    }

    /// Plans frame `t` (seconds), prepares every plan of it (`prepare` draws the minimap's
    /// into its texture and submits that itself), then draws the screen's into `view`.
    fn frame(&mut self, view: &wgpu::TextureView, size: [u32; 2], t: f32) -> hello::Result<()> {
        let (device, queue) = (&self.device, &self.queue);
        let minimap = self.scene.minimap(&mut self.batcher, t)?;
        self.renderer.prepare(device, queue, &mut self.minimap, minimap, size)?;
        let screen = self.scene.screen(&mut self.batcher, t, size)?;
        self.renderer.prepare(device, queue, &mut self.screen, screen, size)?;
        let mut encoder = device.create_command_encoder(&Default::default());
        // The host's pass, cleared, with the screen's plan in it.
        self.renderer.render(&self.screen, &mut gpu::clear_pass(&mut encoder, view, [0.0, 0.0, 0.0, 1.0]))?;
        queue.submit([encoder.finish()]);
        Ok(())
    }
}

/// Renders `frames` frames, 1/60 s apart, into a `size` texture on a device with no window:
/// the last frame, RGBA8, rows top first.
pub fn render_offscreen(frames: u32, size: [u32; 2]) -> hello::Result<Vec<u8>> {
    let (device, queue) = hello::wgpu_headless()?;
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let target = gpu::target(&device, size, format);
    let view = target.create_view(&Default::default());
    let mut tour = Tour::new(&device, &queue, format)?;
    for i in 0..frames.max(1) {
        tour.frame(&view, size, i as f32 / 60.0)?;
    }
    Ok(gpu::read_texture(&device, &queue, &target))
}

fn main() -> hello::Result<()> {
    // layerbatch reports through `log`: show its warnings (`RUST_LOG` says otherwise).
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let new = |w: &hello::WgpuWindow| Tour::new(&w.device, &w.queue, w.config.format);
    // Into the surface's next texture, then presented.
    let draw = |h: &mut Tour, w: &mut hello::WgpuWindow, t| w.present(|view, size| h.frame(view, size, t)).map(drop);
    hello::main("tour_wgpu", hello::SIZE, render_offscreen, new, draw)
}
