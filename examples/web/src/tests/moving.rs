//! Moving sprites in the page ([`layerbatch_testkit::moving`]): a moving layer of sprites,
//! turned and scaled by their motions, draws the pixels of the same quads pushed under each
//! motion's transform, exactly, in one draw; a frame that moves them all sends 16 bytes a
//! sprite and nothing of the static half; drawn under an effect, lit, with a colour offset
//! (the drawing state's look), it draws the pixels of the quads pushed under the same look.

use layerbatch::{Batcher, Config, Effect, PointLight, TextureDesc};
use layerbatch_testkit::moving::{centred, drawn, drawn_under, motions, pushed, pushed_under, Rng};
use layerbatch_testkit::scene::{texture_pixels, SIZES};

use super::{open, Checked, Fail};
use crate::device::{Backend, Device};

const SIZE: [u32; 2] = [192, 160];
const SPRITES: usize = 300;

/// On one path: every sprite moved twice, each frame against the quads pushed.
pub async fn moving_sprites(backend: Backend) -> Checked {
    let config = Config::default().with_effects(&Effect::BUILT_IN).with_lights(2);
    let (mut dev, b) = open(backend, SIZE, config).await?;
    let drawn = check_on(&mut dev, b).await;
    // Closed whatever happened: Chromium keeps 16 WebGL2 contexts at most.
    dev.close();
    drawn?;
    Ok(format!(
        "1 draw, 16 bytes a moving sprite, the pushed quads' pixels exactly, under effects and lights too ({})",
        backend.name()
    ))
}

async fn check_on(dev: &mut Device, mut b: layerbatch::Batcher) -> Result<(), Fail> {
    let mut quads = Vec::with_capacity(SPRITES);
    for i in 0..SPRITES {
        let (w, h) = SIZES[i % SIZES.len()];
        if i < 32 {
            let id = b.textures().register(&TextureDesc::new(w, h), &texture_pixels(i, w, h));
            quads.push(layerbatch::Quad::rect(id.map_err(|e| e.to_string())?, [0.0, 0.0], [w as f32, h as f32]));
        } else {
            quads.push(quads[i % 32]);
        }
    }
    let sprites = centred(&quads);
    let layer = b.textures().create_moving(&sprites).map_err(|e| e.to_string())?;
    let mut rng = Rng(0x7765_6267_7075);
    for round in 0..2 {
        let now = motions(&mut rng, SPRITES, SIZE);
        b.textures().move_sprites(layer, 0, &now).map_err(|e| e.to_string())?;
        dev.draw(&drawn(&mut b, layer, (&[], &[]))).await?;
        let c = dev.stats().device_frame;
        ensure!(c.draw_calls == 1, "round {round}: {} draws", c.draw_calls);
        ensure!(
            c.motion_bytes_written == SPRITES as u64 * 16,
            "round {round}: {} motion bytes",
            c.motion_bytes_written
        );
        let moving = dev.read().await?;
        dev.draw(&pushed(&mut b, &sprites, &now, (&[], &[]))).await?;
        let reference = dev.read().await?;
        let off = moving.chunks_exact(4).zip(reference.chunks_exact(4)).filter(|(a, b)| a != b).count();
        ensure!(off == 0, "round {round}: {off} pixels differ from the quads pushed");
        let lit = moving.chunks_exact(4).filter(|p| p[..3] != [0, 0, 0]).count();
        ensure!(lit > moving.len() / 4 / 8, "round {round}: only {lit} pixels drawn");
    }
    // Under a look: two effects, lit by two lights, with a colour offset.
    let now = motions(&mut rng, SPRITES, SIZE);
    b.textures().move_sprites(layer, 0, &now).map_err(|e| e.to_string())?;
    b.set_time_s(0.75);
    for k in [2, 4] {
        let effect = b.budget().effect_at(k).ok_or("a declared effect")?;
        let look = move |b: &mut Batcher| {
            b.state().set_effect(effect, [0.8, 0.3, 0.6, 1.0]);
            b.state().set_lit(true);
            b.state().set_color_offset([12, 0, 40]);
            let _ = b.set_ambient([0.25, 0.2, 0.3]);
            let _ = b.add_light(PointLight::new([40.0, 50.0], 120.0, [1.0, 0.8, 0.5]));
            let _ = b.add_light(PointLight::new([150.0, 110.0], 90.0, [0.3, 0.5, 1.0]));
        };
        dev.draw(&drawn_under(&mut b, layer, (&[], &[]), &look)).await?;
        let c = dev.stats().device_frame;
        ensure!(c.draw_calls == 1, "effect {k}: {} draws", c.draw_calls);
        let moving = dev.read().await?;
        dev.draw(&pushed_under(&mut b, &sprites, &now, (&[], &[]), &look)).await?;
        let reference = dev.read().await?;
        let off = moving.chunks_exact(4).zip(reference.chunks_exact(4)).filter(|(a, b)| a != b).count();
        ensure!(off == 0, "effect {k}, lit: {off} pixels differ from the quads pushed");
    }
    Ok(())
}
