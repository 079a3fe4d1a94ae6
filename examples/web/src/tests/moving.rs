//! Moving sprites in the page ([`layerbatch_testkit::moving`]): a moving layer of sprites,
//! turned and scaled by their motions, draws the pixels of the same quads pushed under each
//! motion's transform, exactly, in one draw; a frame that moves them all sends 16 bytes a
//! sprite and nothing of the static half; motions written in place that are not finite draw
//! nothing, counted once; drawn under an effect, lit, with a colour offset
//! (the drawing state's look), it draws the pixels of the quads pushed under the same look.
//! Under a sort key and a clip among pushed quads, and in several plans of one host frame, it
//! draws the frame pushed in key order ([`moving_keys_clips_plans`]). And rotated, scaled
//! sprites over 256 layers whose neighbours differ show only their own layer, instanced and
//! indexed: the layer reaches the fragment stage whole ([`moving_layers_whole`]).

use layerbatch::{Batcher, Config, Effect, PointLight, QuadVertices, TextureDesc};
use layerbatch_testkit::moving::{
    centred, check_flat_layers, drawn, drawn_under, flat_layers, flat_layers_config, keyed_frame, keyed_reference,
    keyed_scene, motions, pushed, pushed_under, Rng, FLAT_SIZE,
};
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
        "1 draw, 16 bytes a moving sprite, the pushed quads' pixels exactly, under effects and lights too; motions not finite drawn as nothing, counted ({})",
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
    // Motions written in place, three not finite: those sprites draw as nothing, counted once
    // (by core when it plans, or by the copy where the renderer stages motion writes: wgpu).
    let now = motions(&mut rng, SPRITES, SIZE);
    b.textures().move_sprites(layer, 0, &now).map_err(|e| e.to_string())?;
    let bad = [5, SPRITES / 2, SPRITES - 1];
    let m = b.textures().motions_mut(layer, 0..SPRITES as u32).map_err(|e| e.to_string())?;
    m[bad[0]].position[1] = f32::NAN;
    m[bad[1]].rotation_scale[0] = f32::INFINITY;
    m[bad[2]].position[0] = f32::NEG_INFINITY;
    dev.draw(&drawn(&mut b, layer, (&[], &[]))).await?;
    let planned = b.plan().counters.motions_rejected;
    let copied = dev.stats().device_frame.motions_rejected;
    let expected = if dev.limits().staged_motion_writes { (0, 3) } else { (3, 0) };
    ensure!((planned, copied) == expected, "not finite: counted {planned} planned, {copied} copied");
    let moving = dev.read().await?;
    let (shown, shown_at): (Vec<_>, Vec<_>) =
        (0..SPRITES).filter(|i| !bad.contains(i)).map(|i| (sprites[i], now[i])).unzip();
    dev.draw(&pushed(&mut b, &shown, &shown_at, (&[], &[]))).await?;
    let off = differing(&moving, &dev.read().await?);
    ensure!(off == 0, "not finite: {off} pixels differ from the other quads pushed");
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

/// RGBA8 pixels that differ between `a` and `b`.
fn differing(a: &[u8], b: &[u8]) -> usize {
    a.chunks_exact(4).zip(b.chunks_exact(4)).filter(|(a, b)| a != b).count()
}

/// On one path: the moving layer under a sort key and a clip among pushed quads, then across
/// several plans of one host frame, against the frame pushed in key order (tolerance 0).
pub async fn moving_keys_clips_plans(backend: Backend) -> Checked {
    let (mut dev, mut b) = open(backend, SIZE, Config::default()).await?;
    let checked = keys_clips_plans_on(&mut dev, &mut b).await;
    dev.close();
    checked?;
    Ok(format!(
        "a moving layer under a sort key and a clip, and in 2 plans of a host frame: the frame pushed in key order exactly ({})",
        backend.name()
    ))
}

async fn keys_clips_plans_on(dev: &mut Device, b: &mut Batcher) -> Result<(), Fail> {
    let scene = keyed_scene(b, SIZE)?;
    let layer = b.textures().create_moving(&scene.sprites).map_err(|e| e.to_string())?;
    let mut rng = Rng(0x6b657973);
    let first = motions(&mut rng, scene.sprites.len(), SIZE);
    b.textures().move_sprites(layer, 0, &first).map_err(|e| e.to_string())?;
    dev.draw(&keyed_frame(b, layer, &scene)).await?;
    let moving = dev.read().await?;
    dev.draw(&keyed_reference(b, &scene, &first)).await?;
    let want = dev.read().await?;
    let off = differing(&moving, &want);
    ensure!(off == 0, "sort keys and a clip: {off} pixels differ from the frame pushed in key order");
    let lit = want.chunks_exact(4).filter(|p| p[..3] != [0, 0, 0]).count();
    ensure!(lit > want.len() / 4 / 8, "only {lit} pixels drawn");
    // A move after a plan of the host frame drew the layer waits for the next host frame.
    b.end_frame();
    dev.draw(&keyed_frame(b, layer, &scene)).await?;
    let second = motions(&mut rng, scene.sprites.len(), SIZE);
    b.textures().move_sprites(layer, 0, &second).map_err(|e| e.to_string())?;
    dev.draw(&keyed_frame(b, layer, &scene)).await?;
    let held = dev.read().await?;
    let written = dev.stats().device_frame.motion_bytes_written;
    ensure!(written == 0, "plan 2 of the frame wrote {written} motion bytes: the move should wait");
    let off = differing(&held, &want);
    ensure!(off == 0, "plan 2 of the frame: {off} pixels differ from the frame's motions");
    b.end_frame();
    dev.draw(&keyed_frame(b, layer, &scene)).await?;
    let next = dev.read().await?;
    let written = dev.stats().device_frame.motion_bytes_written;
    ensure!(written == scene.sprites.len() as u64 * 16, "the next frame wrote {written} motion bytes");
    dev.draw(&keyed_reference(b, &scene, &second)).await?;
    let want = dev.read().await?;
    let off = differing(&next, &want);
    ensure!(off == 0, "the next frame: {off} pixels differ from the move pushed");
    Ok(())
}

/// On one path, instanced and indexed: 256 rotated, scaled moving sprites over 256 layers of
/// one array, neighbours far apart in colour, drawn in one draw, and the same sprites pushed:
/// inside each sprite only its own layer's colour.
pub async fn moving_layers_whole(backend: Backend) -> Checked {
    let mut pixels = 0;
    for vertices in [QuadVertices::Instanced, QuadVertices::Indexed] {
        let (mut dev, mut b) = open(backend, FLAT_SIZE, flat_layers_config(vertices)).await?;
        let checked = layers_whole_on(&mut dev, &mut b).await;
        dev.close();
        pixels += checked.map_err(|e| match e {
            Fail::Failed(e) => Fail::Failed(format!("{vertices:?}: {e}")),
            other => other,
        })?;
    }
    Ok(format!(
        "256 layers, instanced and indexed: {pixels} pixels inside the sprites, each its own layer's ({})",
        backend.name()
    ))
}

async fn layers_whole_on(dev: &mut Device, b: &mut Batcher) -> Result<usize, Fail> {
    let (sprites, motions) = flat_layers(b)?;
    let layer = b.textures().create_moving(&sprites).map_err(|e| e.to_string())?;
    b.textures().move_sprites(layer, 0, &motions).map_err(|e| e.to_string())?;
    dev.draw(&drawn(b, layer, (&[], &[]))).await?;
    let draws = dev.stats().device_frame.draw_calls;
    ensure!(draws == 1, "{draws} draws over 256 layers");
    let moving = dev.read().await?;
    dev.draw(&pushed(b, &sprites, &motions, (&[], &[]))).await?;
    let pushed = dev.read().await?;
    let mut pixels = 0;
    for (path, px) in [("moving", &moving), ("pushed", &pushed)] {
        pixels += check_flat_layers(px, &motions).map_err(|e| format!("{path}: {e}"))?;
    }
    Ok(pixels)
}
