//! The hello examples' scene (`examples/hello_gl.rs`, `examples/hello_wgpu.rs`): two PNG
//! textures, sprites under a moving camera, an additive particle burst, a clipped UI panel,
//! and a minimap drawn into a render-target texture each frame. Both examples plan it with
//! this [`Scene`] and draw the plans with their backend. The boilerplate around the examples
//! (flags, windows, offscreen devices) is in [`run`], re-exported here.

use layerbatch_core::{Affine2, Batcher, BlendMode, FramePlan, Quad, TextureDesc, TextureId, Usage};

pub mod run;

pub use run::*;

/// The window's first size and the offscreen frame's.
pub const SIZE: [u32; 2] = [640, 400];
/// The colour behind everything.
pub const BACKGROUND: [u8; 4] = [16, 18, 28, 255];
/// The UI panel on screen, `[x, y, w, h]` (its clip rectangle).
pub const PANEL: [u32; 4] = [16, 16, 200, 120];
/// The UI panel's colour.
pub const PANEL_COLOR: [u8; 4] = [40, 48, 96, 255];
/// The minimap: the size of its texture and where it is shown, 1:1.
pub const MINIMAP: [u32; 4] = [456, 276, 168, 108];
/// The minimap texture's clear colour.
pub const MINIMAP_CLEAR: [f32; 4] = [0.05, 0.25, 0.12, 1.0];

/// The scene's textures, and the plans drawn with them.
#[derive(Clone, Copy, Debug)]
pub struct Scene {
    sprite: TextureId,
    particle: TextureId,
    white: TextureId,
    minimap: TextureId,
}

impl Scene {
    /// Registers the textures: the two PNGs (decoded and premultiplied by core), the white
    /// texel, the minimap's render target.
    ///
    /// # Errors
    /// The batcher's.
    pub fn register(b: &mut Batcher) -> Result<Self> {
        let png = TextureDesc::new(0, 0); // the size is the PNG's
        Ok(Scene {
            sprite: b.textures().register_encoded(include_bytes!("../../../../examples/assets/sprite.png"), png)?,
            particle: b.textures().register_encoded(include_bytes!("../../../../examples/assets/particle.png"), png)?,
            white: b.textures().white()?,
            minimap: b
                .textures()
                .register(&TextureDesc::new(MINIMAP[2], MINIMAP[3]).with_usage(Usage::RenderTarget), &[])?,
        })
    }

    /// The world, in its own pixels (960 x 600): 15 x 10 sprites, bobbing and turning.
    fn world(&self, b: &mut Batcher, t: f32) -> Result<()> {
        for (i, j) in (0..15).flat_map(|i| (0..10).map(move |j| (i as f32, j as f32))) {
            let pos = [i * 64.0 + 32.0, j * 60.0 + 30.0 + 8.0 * (t * 2.0 + i).sin()];
            b.push(&Quad::rotated(self.sprite, pos, [32.0; 2], t + j))?;
        }
        Ok(())
    }

    /// Frame `t` (seconds) into the minimap's texture: the whole world, scaled down.
    ///
    /// # Errors
    /// The batcher's.
    pub fn minimap<'b>(&self, b: &'b mut Batcher, t: f32) -> Result<&'b FramePlan> {
        b.begin_frame_into(self.minimap, Some(MINIMAP_CLEAR))?;
        b.state().set_transform(Affine2::scale(MINIMAP[2] as f32 / 960.0, MINIMAP[3] as f32 / 600.0));
        self.world(b, t)?;
        Ok(b.finish())
    }

    /// Frame `t` (seconds) of the screen, `w` x `h`, with the minimap drawn this frame.
    ///
    /// # Errors
    /// The batcher's.
    pub fn screen<'b>(&self, b: &'b mut Batcher, t: f32, [w, h]: [u32; 2]) -> Result<&'b FramePlan> {
        b.begin_frame();
        b.push(&Quad::solid(self.white, [0.0; 2], [w as f32, h as f32], BACKGROUND))?;
        // The camera: the world point it looks at goes to the screen's centre, turned, zoomed.
        let look = [480.0 + 200.0 * (t * 0.3).sin(), 300.0 + 100.0 * (t * 0.4).cos()];
        let (turn, zoom) = (Affine2::rotation(0.3 * (t * 0.5).sin()), 1.0 + 0.3 * (t * 0.5).sin());
        let pan = Affine2::translation(w as f32 / 2.0, h as f32 / 2.0);
        b.state().set_transform(
            Affine2::translation(-look[0], -look[1]).then(turn).then(Affine2::scale(zoom, zoom)).then(pan),
        );
        self.world(b, t)?;
        // A burst of sparks every 2 s where the camera looks, added onto what is below.
        b.state().set_blend(BlendMode::Additive);
        for (k, angle) in (0..48).map(|k| (k % 5, k as f32 * 0.1309)) {
            let r = 20.0 + 150.0 * (t % 2.0) * (0.6 + 0.1 * k as f32);
            let pos = [look[0] + r * angle.cos(), look[1] + r * angle.sin()];
            b.push(&Quad::rotated(self.particle, pos, [32.0; 2], angle).with_color([60, 200, 255, 255]))?;
        }
        // The UI, in screen pixels: a panel whose list scrolls, clipped to the panel.
        b.state().set_blend(BlendMode::Over);
        b.state().set_transform(Affine2::IDENTITY);
        b.state().set_clip(Some(PANEL));
        let [x, y, pw, ph] = PANEL.map(|v| v as f32);
        let top = y - 40.0 - 40.0 * (t * 0.8).sin();
        b.push(&Quad::solid(self.white, [x, top], [pw, ph + 160.0], PANEL_COLOR))?;
        for ry in (0..7).map(|row| top + 8.0 + row as f32 * 40.0) {
            b.push(&Quad::rect(self.sprite, [x + 8.0, ry], [32.0, 32.0]))?;
            b.push(&Quad::solid(self.white, [x + 48.0, ry + 12.0], [pw - 56.0, 8.0], [90, 100, 160, 255]))?;
        }
        b.state().set_clip(None);
        let [mx, my, mw, mh] = MINIMAP.map(|v| v as f32);
        b.push(&Quad::rect(self.minimap, [mx, my], [mw, mh]))?;
        Ok(b.finish())
    }
}
