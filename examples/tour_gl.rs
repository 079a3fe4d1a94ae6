//! layerbatch on OpenGL (glow) in a winit + glutin window: two PNG textures, sprites under a
//! moving camera, an additive particle burst, a clipped UI panel, and a minimap drawn into a
//! render-target texture each frame. `cargo run --example tour_gl`; with `-- --out a.png
//! [--frames N]` (or with no display) it renders offscreen on EGL and writes the last frame.
use std::sync::Arc;

use layerbatch::{Batcher, Config};
use layerbatch_gl::{glow, Renderer, Target};
// The scene (planned with the batcher alone) and the window / offscreen boilerplate.
use layerbatch_testkit::hello::{self, Scene};

/// What a GL engine keeps: the batcher, the renderer and the scene's textures.
struct Tour {
    batcher: Batcher,
    renderer: Option<Renderer>,
    scene: Scene,
}

impl Tour {
    /// On `gl`, current on this thread.
    fn new(gl: Arc<glow::Context>) -> hello::Result<Self> {
        let mut batcher = Batcher::new(Renderer::query_limits(&gl), Config::default())?;
        let renderer = Some(Renderer::new(gl, batcher.budget())?);
        let scene = Scene::register(&mut batcher)?;
        Ok(Self { batcher, renderer, scene })
    }

    /// Plans and paints frame `t` (seconds) into `target`: the minimap into its texture
    /// first (that plan ignores `target`), then the screen. Every plan is painted, in order.
    fn frame(&mut self, t: f32, target: &Target) -> hello::Result<()> {
        let renderer = self.renderer.as_mut().expect("taken on drop only");
        renderer.paint(self.scene.minimap(&mut self.batcher, t)?, target)?;
        renderer.paint(self.scene.screen(&mut self.batcher, t, target.viewport_px)?, target)?;
        Ok(())
    }
}

impl Drop for Tour {
    fn drop(&mut self) {
        // Deletes the renderer's GL objects: the context must still be current.
        self.renderer.take().into_iter().for_each(Renderer::destroy);
    }
}

/// Renders `frames` frames, 1/60 s apart, into a `size` framebuffer with no window: the last
/// frame, RGBA8, rows top first.
pub fn render_offscreen(frames: u32, size: [u32; 2]) -> hello::Result<Vec<u8>> {
    let device = hello::GlOffscreen::new(size)?;
    let mut tour = Tour::new(device.gl.clone())?;
    for i in 0..frames.max(1) {
        tour.frame(i as f32 / 60.0, &Target::framebuffer(device.fbo, size))?;
    }
    Ok(device.read())
}

fn main() -> hello::Result<()> {
    // layerbatch reports through `log`: show its warnings (`RUST_LOG` says otherwise).
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let new = |w: &hello::GlWindow| Tour::new(w.gl.clone());
    // Into the window's default framebuffer, then presented.
    let draw =
        |h: &mut Tour, w: &mut hello::GlWindow, t| h.frame(t, &Target::bound(w.size())).and_then(|()| Ok(w.swap()?));
    hello::main("tour_gl", hello::SIZE, render_offscreen, new, draw)
}
