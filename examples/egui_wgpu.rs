//! layerbatch inside egui, on wgpu: sprites drawn by `layerbatch-wgpu` in egui panels, through
//! egui-wgpu's paint callbacks (what eframe's wgpu backend runs).
//!
//! ```sh
//! cargo run --example egui_wgpu -- --out egui_wgpu.png
//! ```
//!
//! This example runs **headless only**: it renders one egui frame offscreen on wgpu's Vulkan
//! backend (lavapipe when there is no GPU) with `egui_wgpu::Renderer`, exactly as eframe
//! would into its surface, and saves it as a PNG. `tests/egui_wgpu.rs` runs the same code.
//!
//! The pieces, all in this file:
//!
//! - [`SpriteRenderer`]: the `layerbatch_core::Batcher` and the `layerbatch_wgpu::Renderer`,
//!   created once and stored in egui-wgpu's `callback_resources` (in eframe:
//!   `frame.wgpu_render_state().renderer.write().callback_resources.insert(...)`). Register
//!   your textures with its batcher.
//! - [`SpriteCallback`]: one panel's sprites. egui calls `prepare` of every callback of the
//!   frame, then `paint` of each inside its render pass; all the panels share the renderer,
//!   and each callback holds a `layerbatch_wgpu::PreparedPlan` of its own from `prepare` to
//!   `paint` (taken from the renderer's spares, given back when egui drops the callback).
//!   `prepare` plans the sprites and hands layerbatch a `Viewport`: the panel's rectangle in
//!   the target's pixels (unclamped: a panel scrolled partly off-screen keeps its sprites in
//!   place) and egui's clip. layerbatch submits its texture uploads and copies itself and
//!   leaves egui's encoder alone, so a frame eframe drops (outdated surface) loses nothing.
//!   egui gives `prepare` no rectangle, so the callback keeps the one it was made with: a
//!   panel inside a transformed layer (`egui::Scene`) would need the rectangle egui paints.
//! - [`sprite_canvas`]: the widget that allocates a panel and adds its callback.
//!
//! Rules: the renderer's target format is egui's (not sRGB: register textures as
//! `Format::Rgba8Unorm`, holding sRGB-encoded bytes like egui's own colours), and its
//! multisample count is egui-wgpu's `msaa_samples`. Quads are in the panel's physical pixels,
//! `(0, 0)` its top-left corner.

use std::error::Error;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use layerbatch::{Batcher, Config, Quad, TextureDesc, TextureId, Viewport};
use layerbatch_wgpu::{device_limits, PreparedPlan, Renderer, RendererOptions};

/// The headless host: a wgpu device, an egui context, `egui_wgpu::Renderer`, an offscreen
/// target.
pub use layerbatch_testkit::egui::wgpu_host as host;

/// Prepared plans no callback holds: reused frame to frame.
type Spares = Arc<Mutex<Vec<PreparedPlan>>>;

/// The sprite state all panels share; one per egui-wgpu renderer, in its `callback_resources`.
#[derive(Debug)]
pub struct SpriteRenderer {
    batcher: Batcher,
    renderer: Renderer,
    /// A callback takes one in `prepare` and gives it back when egui drops it.
    spares: Spares,
    /// What went wrong in a callback's `prepare` (egui's callbacks cannot return errors).
    pub errors: Vec<String>,
    /// egui's frame whose panels are being prepared: the first panel of the next one ends it
    /// for the batcher (`end_frame`), as every panel of it has been submitted by then.
    egui_frame: Option<u64>,
}

impl SpriteRenderer {
    /// A batcher with the device's limits and a renderer for passes into `format` targets with
    /// `msaa_samples` samples: egui-wgpu's target format and `RendererOptions::msaa_samples`.
    pub fn new(device: &wgpu::Device, format: wgpu::TextureFormat, msaa_samples: u32) -> Result<Self, Box<dyn Error>> {
        // CPU copies of the textures: after a device error, `restore` alone re-uploads them.
        let batcher = Batcher::new(device_limits(device), Config::default().with_keep_pixels(true))?;
        let multisample = wgpu::MultisampleState { count: msaa_samples.max(1), ..Default::default() };
        let options = RendererOptions::default().with_multisample(multisample);
        let renderer = Renderer::new(device, format, batcher.budget(), &options)?;
        Ok(Self { batcher, renderer, spares: Spares::default(), errors: Vec::new(), egui_frame: None })
    }

    /// The batcher: register, update and free textures here, between egui frames.
    pub fn batcher(&mut self) -> &mut Batcher {
        &mut self.batcher
    }

    /// The renderer's counters: core's of the last plan, the device's of its `prepare` and of
    /// the paints since (every panel's).
    pub fn stats(&self) -> layerbatch::Stats {
        self.renderer.stats()
    }

    /// Plans one panel's sprites and prepares them for `viewport` (the panel's rectangle of
    /// egui's target and egui's clip) into a spare prepared plan, returned with the spares
    /// to give it back to. Texture changes are uploaded (and submitted) here.
    fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        sprites: &Sprites,
        viewport: Viewport,
        egui_frame: u64,
    ) -> (PreparedPlan, Spares) {
        // Several panels are prepared before egui's one submit: memory a panel's plan draws
        // from is reused only once egui's frame has ended (`Batcher::end_frame`).
        if self.egui_frame != Some(egui_frame) {
            if self.egui_frame.is_some() {
                self.batcher.end_frame();
            }
            self.egui_frame = Some(egui_frame);
        }
        let spare = self.spares.lock().unwrap().pop();
        let mut prepared = spare.unwrap_or_else(|| self.renderer.create_prepared());
        self.batcher.begin_frame();
        self.batcher.state().set_clip(sprites.clip_px);
        if let Err(e) = self.batcher.push_all(&sprites.quads) {
            self.errors.push(e.to_string());
        }
        let plan = self.batcher.finish();
        if let Err(e) = self.renderer.prepare(device, queue, &mut prepared, plan, viewport) {
            self.errors.push(e.to_string());
            // The renderer dropped its arrays: the next plan rebuilds them from core's copies.
            // `prepared` draws nothing.
            self.batcher.restore();
        }
        (prepared, Arc::clone(&self.spares))
    }

    /// Draws a prepared panel into egui's render pass.
    fn paint(&self, pass: &mut wgpu::RenderPass<'_>, prepared: &PreparedPlan) {
        // Every prepared plan here was made by this renderer: `render` refuses none.
        let _ = self.renderer.render(prepared, pass);
    }
}

/// What one panel draws: quads in the panel's physical pixels (`(0, 0)` its top-left corner),
/// optionally clipped to a rectangle of the panel (`[x, y, w, h]`, the same pixels).
#[derive(Clone, Debug, Default)]
pub struct Sprites {
    pub quads: Vec<Quad>,
    pub clip_px: Option<[u32; 4]>,
}

/// One panel's paint callback.
#[derive(Debug)]
pub struct SpriteCallback {
    /// Where egui paints the panel, and egui's clip there, in points: `prepare` is given
    /// neither.
    rect: egui::Rect,
    clip: egui::Rect,
    sprites: Sprites,
    /// egui's frame (`Context::cumulative_frame_nr`) the callback was added in.
    egui_frame: u64,
    /// Set by `prepare`, drawn by `paint`, given back to the spares when egui drops the
    /// callback (after the frame).
    prepared: Mutex<Option<(PreparedPlan, Spares)>>,
}

impl Drop for SpriteCallback {
    fn drop(&mut self) {
        if let Some((prepared, spares)) = self.prepared.get_mut().ok().and_then(Option::take) {
            spares.lock().unwrap().push(prepared);
        }
    }
}

impl egui_wgpu::CallbackTrait for SpriteCallback {
    fn prepare(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        screen: &egui_wgpu::ScreenDescriptor,
        _egui_encoder: &mut wgpu::CommandEncoder,
        resources: &mut egui_wgpu::CallbackResources,
    ) -> Vec<wgpu::CommandBuffer> {
        if let Some(sprites) = resources.get_mut::<SpriteRenderer>() {
            // The panel's rectangle in the target's pixels, unclamped (it may reach off-screen),
            // and egui's clip: the scissor egui sets before `paint`.
            let (ppp, screen_px) = (screen.pixels_per_point, screen.size_in_pixels);
            let viewport = Viewport::rect(screen_px, rect_px(self.rect, ppp))
                .with_host_clip(Some(clip_px(self.clip, ppp, screen_px)));
            let held = sprites.prepare(device, queue, &self.sprites, viewport, self.egui_frame);
            // A callback egui prepares twice gives its first prepared plan back at once.
            if let Some((old, spares)) = self.prepared.lock().unwrap().replace(held) {
                spares.lock().unwrap().push(old);
            }
        }
        Vec::new()
    }

    fn paint(
        &self,
        _info: egui::PaintCallbackInfo,
        pass: &mut wgpu::RenderPass<'static>,
        resources: &egui_wgpu::CallbackResources,
    ) {
        if let (Some(sprites), Some((prepared, _))) =
            (resources.get::<SpriteRenderer>(), &*self.prepared.lock().unwrap())
        {
            sprites.paint(pass, prepared);
        }
    }
}

/// `rect` (points) in physical pixels, `[x, y, width, height]` from the top-left corner,
/// rounded as egui rounds a callback's viewport but not clamped to the screen.
fn rect_px(rect: egui::Rect, pixels_per_point: f32) -> [i32; 4] {
    let [x0, y0, x1, y1] =
        [rect.min.x, rect.min.y, rect.max.x, rect.max.y].map(|v| (v * pixels_per_point).round() as i32);
    [x0, y0, x1 - x0, y1 - y0]
}

/// egui's clip rectangle `clip` (points) in physical pixels, within the screen: the scissor
/// egui-wgpu sets before a callback's `paint`.
fn clip_px(clip: egui::Rect, pixels_per_point: f32, screen_px: [u32; 2]) -> [u32; 4] {
    let c = egui::epaint::ViewportInPixels::from_points(&clip, pixels_per_point, screen_px);
    [c.left_px, c.top_px, c.width_px, c.height_px].map(|v| v.max(0) as u32)
}

/// Adds the paint callback drawing `sprites` over `rect` (points) of `painter`'s layer.
pub fn paint_sprites(painter: &egui::Painter, rect: egui::Rect, sprites: Sprites) {
    let egui_frame = painter.ctx().cumulative_frame_nr();
    let callback = SpriteCallback { rect, clip: painter.clip_rect(), sprites, egui_frame, prepared: Mutex::new(None) };
    painter.add(egui_wgpu::Callback::new_paint_callback(rect, callback));
}

/// A `size` (points) panel of sprites, laid out like any egui widget.
pub fn sprite_canvas(ui: &mut egui::Ui, size: egui::Vec2, sprites: Sprites) -> egui::Response {
    let (rect, response) = ui.allocate_exact_size(size, egui::Sense::hover());
    paint_sprites(ui.painter(), rect, sprites);
    response
}

/// The demo's textures.
#[derive(Debug)]
pub struct DemoTextures {
    white: TextureId,
    checker: TextureId,
}

impl DemoTextures {
    /// Registers the demo's textures: `Format::Rgba8Unorm` (the default), as egui's target
    /// is not sRGB.
    pub fn register(batcher: &mut Batcher) -> Result<Self, Box<dyn Error>> {
        let checker: Vec<u8> = (0..16 * 16)
            .flat_map(|i| if (i % 16 / 4 + i / 64) % 2 == 0 { [240, 200, 60, 255] } else { [40, 40, 40, 255] })
            .collect();
        Ok(Self {
            white: batcher.textures().white()?,
            checker: batcher.textures().register(&TextureDesc::new(16, 16), &checker)?,
        })
    }

    /// Panel `panel`'s sprites: a row of coloured squares and a few rotated checkers.
    pub fn sprites(&self, panel: usize, size_px: [f32; 2]) -> Sprites {
        let mut quads: Vec<Quad> = (0..6)
            .map(|i| {
                let color = [40 * i as u8 + 40, 200 - 60 * panel as u8, 120 + 20 * i as u8, 255];
                Quad::solid(self.white, [12.0 + 30.0 * i as f32, 12.0], [24.0, 24.0], color)
            })
            .collect();
        for i in 0..3 {
            let center = [size_px[0] * (i as f32 + 1.0) / 4.0, size_px[1] * 0.6];
            quads.push(Quad::rotated(self.checker, center, [40.0, 40.0], 0.3 * (i + panel) as f32));
        }
        Sprites { quads, clip_px: None }
    }
}

/// The fill of the frames around the panels.
pub const PANEL_FILL: egui::Color32 = egui::Color32::from_rgb(30, 60, 110);

/// The demo's egui frame: a central panel with a heading, a label and two sprite panels in
/// coloured frames.
pub fn demo_ui(ui: &mut egui::Ui, textures: &DemoTextures) {
    egui::CentralPanel::default_margins().show(ui, |ui| {
        ui.heading("layerbatch in egui");
        ui.label("Two paint callbacks, one layerbatch renderer, one egui render pass.");
        ui.horizontal(|ui| {
            for panel in 0..2 {
                egui::Frame::new().fill(PANEL_FILL).inner_margin(8).show(ui, |ui| {
                    let size = egui::vec2(200.0, 140.0);
                    let px = size * ui.pixels_per_point();
                    sprite_canvas(ui, size, textures.sprites(panel, [px.x, px.y]));
                });
            }
        });
    });
}

/// Renders the demo headless and returns the last frame.
pub fn run_demo(size_px: [u32; 2], pixels_per_point: f32) -> Result<host::Image, Box<dyn Error>> {
    let mut host = host::WgpuEguiHost::new(size_px, pixels_per_point, 1)?;
    println!("egui_wgpu: {}", host.adapter);
    let mut sprites = SpriteRenderer::new(&host.device, host::FORMAT, host.msaa_samples)?;
    let textures = DemoTextures::register(sprites.batcher())?;
    host.renderer.callback_resources.insert(sprites);
    let mut image = None;
    // Two frames: egui lays some widgets out over more than one.
    for _ in 0..2 {
        image = Some(host.frame(host::Submit::Yes, |ui| demo_ui(ui, &textures))?);
    }
    let errors = &host.resources::<SpriteRenderer>().expect("inserted above").errors;
    if !errors.is_empty() {
        return Err(format!("layerbatch: {errors:?}").into());
    }
    Ok(image.expect("two frames"))
}

fn main() -> ExitCode {
    let mut out = std::path::PathBuf::from("egui_wgpu.png");
    let mut parser = lexopt::Parser::from_env();
    loop {
        use lexopt::prelude::*;
        match parser.next() {
            Ok(None) => break,
            Ok(Some(Long("out"))) => match parser.value() {
                Ok(v) => out = v.into(),
                Err(e) => return usage(&e.to_string()),
            },
            Ok(Some(Short('h') | Long("help"))) => return usage(""),
            Ok(Some(arg)) => return usage(&arg.unexpected().to_string()),
            Err(e) => return usage(&e.to_string()),
        }
    }
    match run_demo([480, 260], 1.0).and_then(|image| Ok(image.save_png(&out)?)) {
        Ok(()) => {
            println!("wrote {}", out.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("egui_wgpu: {e}");
            ExitCode::FAILURE
        }
    }
}

fn usage(error: &str) -> ExitCode {
    if !error.is_empty() {
        eprintln!("egui_wgpu: {error}");
    }
    eprintln!("usage: cargo run --example egui_wgpu -- [--out FILE.png]   (headless only)");
    if error.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
