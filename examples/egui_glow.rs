//! layerbatch inside egui, on OpenGL: sprites drawn by `layerbatch-gl` in egui panels, through
//! egui_glow's paint callbacks (what eframe's glow backend runs).
//!
//! ```sh
//! cargo run --features glow-0-17 --example egui_glow -- --out egui_glow.png
//! ```
//!
//! egui_glow 0.37 is built on glow 0.17, and `layerbatch-gl` must take the same
//! `glow::Context`: build with the `glow-0-17` feature (`layerbatch_gl::glow` is then glow
//! 0.17; without it this example is not built).
//!
//! This example runs **headless only**: it renders one egui frame with `egui_glow::Painter`
//! into a framebuffer of a surfaceless EGL context (llvmpipe when there is no GPU), exactly as
//! eframe would into its window, and saves it as a PNG. `tests/egui_glow.rs` runs the same
//! code.
//!
//! The pieces, all in this file:
//!
//! - [`SpriteRenderer`]: the `layerbatch_core::Batcher` and the `layerbatch_gl::Renderer`,
//!   created once with egui's context (in eframe: `cc.gl` in your app's creation), shared by
//!   the callbacks as an `Arc<Mutex<_>>`, destroyed with the context current (eframe:
//!   `App::on_exit`). Register your textures with its batcher.
//! - [`paint_sprites`]: adds one panel's callback. egui_glow calls it while painting, with
//!   the panel's viewport and scissor set; the renderer draws into the panel's rectangle of
//!   the bound framebuffer, through egui's scissor, and restores the GL state it changed.
//! - [`sprite_canvas`]: the widget that allocates a panel and adds its callback.
//!
//! Rules: egui's framebuffer is not sRGB: register textures as `Format::Rgba8Unorm`, holding
//! sRGB-encoded bytes like egui's own colours. Quads are in the panel's physical pixels,
//! `(0, 0)` its top-left corner.

use std::error::Error;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use layerbatch::{Batcher, Config, Quad, TextureDesc, TextureId};
use layerbatch_gl::{glow, Renderer, Target};

/// The headless host: a surfaceless EGL context, an egui context, `egui_glow::Painter`, a
/// framebuffer.
pub use layerbatch_testkit::egui::glow_host as host;

/// The sprite state all panels share, as an `Arc<Mutex<_>>` the callbacks hold.
#[derive(Debug)]
pub struct SpriteRenderer {
    batcher: Batcher,
    renderer: Option<Renderer>,
    /// What went wrong in a callback (egui's callbacks cannot return errors).
    pub errors: Vec<String>,
}

impl SpriteRenderer {
    /// A batcher with the context's limits and a renderer on it (all its programs compiled
    /// here). Call with egui's context current.
    pub fn new(gl: Arc<glow::Context>) -> Result<Self, Box<dyn Error>> {
        // CPU copies of the textures: after a GL error, `restore` alone re-uploads them.
        let batcher = Batcher::new(Renderer::query_limits(&gl), Config::default().with_keep_pixels(true))?;
        let renderer = Renderer::new(gl, batcher.budget())?;
        Ok(Self { batcher, renderer: Some(renderer), errors: Vec::new() })
    }

    /// The batcher: register, update and free textures here, between egui frames.
    pub fn batcher(&mut self) -> &mut Batcher {
        &mut self.batcher
    }

    /// The renderer's counters: core's and the device's of the last panel painted.
    pub fn stats(&self) -> layerbatch::Stats {
        self.renderer.as_ref().map(Renderer::stats).unwrap_or_default()
    }

    /// Plans one panel's sprites and paints them into the panel's rectangle of the bound
    /// framebuffer, through egui's scissor.
    fn paint(&mut self, info: &egui::PaintCallbackInfo, sprites: &Sprites) {
        let Some(renderer) = self.renderer.as_mut() else { return };
        self.batcher.begin_frame();
        self.batcher.state().set_clip(sprites.clip_px);
        if let Err(e) = self.batcher.push_all(&sprites.quads) {
            self.errors.push(e.to_string());
        }
        let plan = self.batcher.finish();
        // The panel's rectangle in the framebuffer's pixels, unclamped (it may reach off-screen),
        // and egui's scissor kept (`with_host_clip`).
        let target = Target::bound(info.screen_size_px).with_rect(rect_px(info)).with_host_clip(true);
        if let Err(e) = renderer.paint(plan, &target) {
            self.errors.push(e.to_string());
            // The renderer dropped its arrays: the next plan rebuilds them from core's copies.
            self.batcher.restore();
        }
    }

    /// Deletes the renderer's GL objects; call with the context current (eframe:
    /// `App::on_exit`).
    pub fn destroy(&mut self) {
        if let Some(renderer) = self.renderer.take() {
            renderer.destroy();
        }
    }
}

/// The callback's rectangle in physical pixels, `[x, y, width, height]` from the top-left
/// corner, rounded as egui rounds its viewport but not clamped to the screen.
fn rect_px(info: &egui::PaintCallbackInfo) -> [i32; 4] {
    let r = info.viewport;
    let [x0, y0, x1, y1] = [r.min.x, r.min.y, r.max.x, r.max.y].map(|v| (v * info.pixels_per_point).round() as i32);
    [x0, y0, x1 - x0, y1 - y0]
}

/// What one panel draws: quads in the panel's physical pixels (`(0, 0)` its top-left corner),
/// optionally clipped to a rectangle of the panel (`[x, y, w, h]`, the same pixels).
#[derive(Clone, Debug, Default)]
pub struct Sprites {
    pub quads: Vec<Quad>,
    pub clip_px: Option<[u32; 4]>,
}

/// Adds the paint callback drawing `sprites` with `renderer` over `rect` (points) of
/// `painter`'s layer.
pub fn paint_sprites(
    painter: &egui::Painter,
    rect: egui::Rect,
    renderer: &Arc<Mutex<SpriteRenderer>>,
    sprites: Sprites,
) {
    let renderer = renderer.clone();
    let callback = egui_glow::CallbackFn::new(move |info, _painter| {
        renderer.lock().unwrap().paint(&info, &sprites);
    });
    painter.add(egui::PaintCallback { rect, callback: Arc::new(callback) });
}

/// A `size` (points) panel of sprites, laid out like any egui widget.
pub fn sprite_canvas(
    ui: &mut egui::Ui,
    size: egui::Vec2,
    renderer: &Arc<Mutex<SpriteRenderer>>,
    sprites: Sprites,
) -> egui::Response {
    let (rect, response) = ui.allocate_exact_size(size, egui::Sense::hover());
    paint_sprites(ui.painter(), rect, renderer, sprites);
    response
}

/// The demo's textures.
#[derive(Debug)]
pub struct DemoTextures {
    white: TextureId,
    checker: TextureId,
}

impl DemoTextures {
    /// Registers the demo's textures: `Format::Rgba8Unorm` (the default), as egui's
    /// framebuffer is not sRGB.
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
pub fn demo_ui(ui: &mut egui::Ui, renderer: &Arc<Mutex<SpriteRenderer>>, textures: &DemoTextures) {
    egui::CentralPanel::default_margins().show(ui, |ui| {
        ui.heading("layerbatch in egui");
        ui.label("Two paint callbacks, one layerbatch renderer, one egui paint.");
        ui.horizontal(|ui| {
            for panel in 0..2 {
                egui::Frame::new().fill(PANEL_FILL).inner_margin(8).show(ui, |ui| {
                    let size = egui::vec2(200.0, 140.0);
                    let px = size * ui.pixels_per_point();
                    sprite_canvas(ui, size, renderer, textures.sprites(panel, [px.x, px.y]));
                });
            }
        });
    });
}

/// Renders the demo headless (GL 3.3 core) and returns the last frame.
pub fn run_demo(size_px: [u32; 2], pixels_per_point: f32) -> Result<host::Image, Box<dyn Error>> {
    let mut host = host::GlowEguiHost::new(false, size_px, pixels_per_point)?;
    println!("egui_glow: {}", host.adapter);
    let renderer = Arc::new(Mutex::new(SpriteRenderer::new(host.painter.gl().clone())?));
    let textures = DemoTextures::register(renderer.lock().unwrap().batcher())?;
    let mut image = None;
    // Two frames: egui lays some widgets out over more than one.
    for _ in 0..2 {
        image = Some(host.frame(|ui| demo_ui(ui, &renderer, &textures)));
    }
    let mut sprites = renderer.lock().unwrap();
    sprites.destroy();
    if !sprites.errors.is_empty() {
        return Err(format!("layerbatch: {:?}", sprites.errors).into());
    }
    Ok(image.expect("two frames"))
}

fn main() -> ExitCode {
    let mut out = std::path::PathBuf::from("egui_glow.png");
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
            eprintln!("egui_glow: {e}");
            ExitCode::FAILURE
        }
    }
}

fn usage(error: &str) -> ExitCode {
    if !error.is_empty() {
        eprintln!("egui_glow: {error}");
    }
    eprintln!("usage: cargo run --features glow-0-17 --example egui_glow -- [--out FILE.png]   (headless only)");
    if error.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
