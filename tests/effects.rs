//! Effects drawn on GL 3.3, GLES 3.0, wgpu on Vulkan and wgpu on GL against a CPU reference
//! of the same effects (the built-ins and two user effects, one of them reading the frame's
//! time), 48 sprites over 16 textures in one draw, no program compiled after the renderer was
//! made; and a broken effect body refused at creation, naming the effect.
//!
//! Tolerance: 2 per channel (the GPU computes in floats and rounds once to 8 bits, the
//! reference likewise; they differ by the rounding of a few float operations).
//!
//! Under `CI=true` a device that cannot be had fails the test; outside CI it prints `skipped:`.

use headless::DeviceKind;
use layerbatch::{Batcher, Config, Effect, EffectId, Quad, TextureDesc, TextureId};
use layerbatch_testkit::{headless, looks};

const SIZE: [u32; 2] = [160, 120];
const TEX: u32 = 16;

const EFFECTS: [Effect; 5] = [Effect::FLASH, Effect::GREYSCALE, Effect::DISSOLVE, looks::INVERT, looks::PULSE];

const TIME_S: f32 = 1.25;

/// The effects, on the CPU (the kit's reference, by name): `color` premultiplied, `texel` in
/// the texture's texels; the textures are opaque.
fn reference_effect(id: u8, color: [f32; 4], texel: [f32; 2], p: [f32; 4]) -> [f32; 4] {
    match id {
        0 => color,
        _ => {
            // Opaque textures; no effect here reads a texel or the ramp.
            let sampled = looks::Sampled { texel: &|_, _| [1.0; 4], ramp: &|_, _| [0; 4] };
            looks::reference_effect(&EFFECTS[usize::from(id) - 1], color, &sampled, texel, p, TIME_S)
        }
    }
}

/// Texture `t`'s texel at `(x, y)`: opaque, varied in both directions.
fn texel(t: usize, x: u32, y: u32) -> [u8; 4] {
    [(x * 16) as u8 ^ (t * 40) as u8, (y * 16) as u8, ((x ^ y) * 8 + t as u32 * 5) as u8, 255]
}

/// The sprites: `(texture, top-left corner, effect, parameters)`.
fn sprites() -> Vec<(usize, [u32; 2], u8, [f32; 4])> {
    let params = [
        [0.0; 4],
        [1.0, 1.0, 1.0, 0.75],
        [1.0, 0.2, 0.1, 0.4],
        [1.0, 0.0, 0.0, 0.0],
        [0.6, 0.0, 0.0, 0.0],
        [0.35, 0.8, 1.0, 0.5],
        [0.7, 0.3, 0.0, 0.9],
        [0.0; 4],
        [0.2, 0.0, 0.0, 0.0],
    ];
    (0..48)
        .map(|i| {
            let effect = (i % 6) as u8;
            let p = params[(i / 6 + i) % params.len()];
            (i % 16, [(i % 8) as u32 * 20 + 2, (i / 8) as u32 * 20 + 2], effect, p)
        })
        .collect()
}

fn effects_match_the_reference(kind: DeviceKind, test: &str) {
    let Some(mut dev) = headless::open_for_test(kind, SIZE, test) else { return };
    let mut b = Batcher::new(dev.limits(), Config::default().with_effects(&EFFECTS)).expect("budget");
    dev.init(b.budget()).unwrap_or_else(|e| panic!("{test}: {e}"));
    let compiles = dev.stats().device_total.pipeline_compiles;
    let ids: Vec<TextureId> = (0..16)
        .map(|t| {
            let px: Vec<u8> = (0..TEX * TEX).flat_map(|i| texel(t, i % TEX, i / TEX)).collect();
            b.textures().register(&TextureDesc::new(TEX, TEX), &px).expect("register")
        })
        .collect();
    b.begin_frame();
    dev.draw(b.finish()).unwrap_or_else(|e| panic!("{test}: {e}"));
    let clear = dev.read();

    let sprites = sprites();
    b.set_time_s(TIME_S);
    b.begin_frame();
    let mut carried = Vec::new();
    for &(t, [x, y], effect, params) in &sprites {
        let id = b.budget().effect_at(usize::from(effect)).unwrap_or(EffectId::NONE);
        b.state().set_effect(id, params);
        carried.push(b.state().effect().1.map(|v| f32::from(v) / 255.0));
        b.push(&Quad::rect(ids[t], [x as f32, y as f32], [TEX as f32, TEX as f32])).expect("a live texture");
    }
    dev.draw(b.finish()).unwrap_or_else(|e| panic!("{test}: {e}"));
    let frame = dev.stats().device_frame;
    assert_eq!(frame.draw_calls, 1, "{test}: 16 textures, 6 effects, one draw");
    assert_eq!(dev.stats().device_total.pipeline_compiles, compiles, "{test}: nothing compiled after creation");
    let drawn = dev.read();

    let mut want = clear.clone();
    for (&(t, [x0, y0], effect, _), p) in sprites.iter().zip(&carried) {
        for y in 0..TEX {
            for x in 0..TEX {
                let color = texel(t, x, y).map(|v| f32::from(v) / 255.0);
                let out = reference_effect(effect, color, [x as f32 + 0.5, y as f32 + 0.5], *p);
                let at = (((y0 + y) * SIZE[0] + x0 + x) * 4) as usize;
                for c in 0..4 {
                    let dst = f32::from(clear[at + c]) / 255.0;
                    want[at + c] = ((out[c] + dst * (1.0 - out[3])).clamp(0.0, 1.0) * 255.0).round() as u8;
                }
            }
        }
    }
    let (differing, worst) = headless::compare(&drawn, &want, SIZE[0], 2, "drawn", "reference");
    assert_eq!(differing, 0, "{test}: {differing} pixels differ by more than 2 (worst {worst})");
    // The effects change the picture: without them it differs from the reference.
    let plain = {
        let mut img = clear.clone();
        for &(t, [x0, y0], ..) in &sprites {
            for y in 0..TEX {
                for x in 0..TEX {
                    let at = (((y0 + y) * SIZE[0] + x0 + x) * 4) as usize;
                    img[at..at + 4].copy_from_slice(&texel(t, x, y));
                }
            }
        }
        img
    };
    let (changed, _) = headless::compare(&plain, &want, SIZE[0], 2, "plain", "reference");
    assert!(changed > 4000, "{test}: the effects must change the picture ({changed} pixels)");
}

/// The outline's texture: an opaque 8x6 block with a notch, in transparent texels.
fn cut_out(x: u32, y: u32) -> [u8; 4] {
    let inside = (4..12).contains(&x) && (5..11).contains(&y) && !(x == 7 && y == 5);
    if inside {
        [(x * 20) as u8, 200, (y * 20) as u8, 255]
    } else {
        [0; 4]
    }
}

fn the_outline_matches_the_reference(kind: DeviceKind, test: &str) {
    let Some(mut dev) = headless::open_for_test(kind, SIZE, test) else { return };
    const BUILT_IN: [Effect; 5] = Effect::BUILT_IN;
    let mut b = Batcher::new(dev.limits(), Config::default().with_effects(&BUILT_IN)).expect("budget");
    dev.init(b.budget()).unwrap_or_else(|e| panic!("{test}: {e}"));
    let px: Vec<u8> = (0..TEX * TEX).flat_map(|i| cut_out(i % TEX, i / TEX)).collect();
    let id = b.textures().register(&TextureDesc::new(TEX, TEX), &px).expect("register");
    let other = b.textures().register(&TextureDesc::new(TEX, TEX), &[255; (TEX * TEX * 4) as usize]).expect("register");
    b.begin_frame();
    dev.draw(b.finish()).unwrap_or_else(|e| panic!("{test}: {e}"));
    let clear = dev.read();
    // Widths 1, 2, 3 (params.a = w / 8) in three colours; an opaque neighbour in the same draw.
    let outlines = [([1.0, 0.0, 0.0], 1u32), ([0.0, 1.0, 1.0], 2), ([1.0, 1.0, 0.0], 3)];
    b.begin_frame();
    for (k, &(rgb, w)) in outlines.iter().enumerate() {
        let outline = b.budget().effect_id(&Effect::OUTLINE).expect("declared");
        b.state().set_effect(outline, [rgb[0], rgb[1], rgb[2], w as f32 / 8.0]);
        b.push(&Quad::rect(id, [k as f32 * 20.0 + 2.0, 2.0], [TEX as f32; 2])).expect("live");
    }
    b.push(&Quad::rect(other, [80.0, 2.0], [TEX as f32; 2])).expect("live");
    dev.draw(b.finish()).unwrap_or_else(|e| panic!("{test}: {e}"));
    assert_eq!(dev.stats().device_frame.draw_calls, 1, "{test}");
    let drawn = dev.read();
    let mut want = clear.clone();
    let texel_at = |x: f32, y: f32| {
        let inside = (0.0..TEX as f32).contains(&x) && (0.0..TEX as f32).contains(&y);
        if inside {
            cut_out(x as u32, y as u32).map(|v| f32::from(v) / 255.0)
        } else {
            [0.0; 4]
        }
    };
    let sampled = looks::Sampled { texel: &texel_at, ramp: &|_, _| [0; 4] };
    for (k, &(rgb, w)) in outlines.iter().enumerate() {
        // The parameters as carried: 8-bit fractions.
        let p = [rgb[0], rgb[1], rgb[2], w as f32 / 8.0].map(|v| (v * 255.0).round() / 255.0);
        for y in 0..TEX {
            for x in 0..TEX {
                let c = cut_out(x, y).map(|v| f32::from(v) / 255.0);
                let at = [x as f32 + 0.5, y as f32 + 0.5];
                let out = looks::reference_effect(&Effect::OUTLINE, c, &sampled, at, p, 0.0);
                let at = (((2 + y) * SIZE[0] + k as u32 * 20 + 2 + x) * 4) as usize;
                for i in 0..4 {
                    let dst = f32::from(clear[at + i]) / 255.0;
                    want[at + i] = ((out[i] + dst * (1.0 - out[3])).clamp(0.0, 1.0) * 255.0).round() as u8;
                }
            }
        }
    }
    for y in 0..TEX {
        for x in 0..TEX {
            let at = (((2 + y) * SIZE[0] + 80 + x) * 4) as usize;
            want[at..at + 4].copy_from_slice(&[255; 4]);
        }
    }
    let (differing, worst) = headless::compare(&drawn, &want, SIZE[0], 2, "drawn", "reference");
    assert_eq!(differing, 0, "{test}: {differing} pixels differ by more than 2 (worst {worst})");
    let (outlined, _) = headless::compare(&clear, &want, SIZE[0], 2, "clear", "reference");
    assert!(outlined > 3 * 48 + 256, "{test}: the outlines draw ({outlined} pixels)");
}

#[test]
fn gl33_the_outline_matches_the_reference() {
    the_outline_matches_the_reference(DeviceKind::Gl, "gl33_the_outline_matches_the_reference");
}

#[test]
fn gles30_the_outline_matches_the_reference() {
    the_outline_matches_the_reference(DeviceKind::Gles, "gles30_the_outline_matches_the_reference");
}

#[test]
fn wgpu_vulkan_the_outline_matches_the_reference() {
    the_outline_matches_the_reference(DeviceKind::WgpuVulkan, "wgpu_vulkan_the_outline_matches_the_reference");
}

#[test]
fn wgpu_gl_the_outline_matches_the_reference() {
    the_outline_matches_the_reference(DeviceKind::WgpuGl, "wgpu_gl_the_outline_matches_the_reference");
}

const BROKEN: Effect = Effect::new("broken glow", "return nope * color;");

fn a_broken_effect_is_refused_naming_it(kind: DeviceKind, test: &str) {
    let Some(mut dev) = headless::open_for_test(kind, SIZE, test) else { return };
    const SET: [Effect; 2] = [Effect::FLASH, BROKEN];
    let b = Batcher::new(dev.limits(), Config::default().with_effects(&SET)).expect("budget");
    let err = dev.init(b.budget()).expect_err("a body that does not compile");
    assert!(err.contains("broken glow"), "{test}: the error names the effect: {err}");
    assert!(err.contains("nope"), "{test}: the error carries the compiler's message: {err}");
    // A body calling lb_ramp without `with_ramp`: no ramp is made, and it does not compile.
    const SNEAKY: Effect = Effect::new("sneaky palette", "return lb_ramp(0.5, 0.0);");
    const UNDECLARED: [Effect; 2] = [Effect::FLASH, SNEAKY];
    let b = Batcher::new(dev.limits(), Config::default().with_effects(&UNDECLARED)).expect("budget");
    assert!(!b.budget().ramp());
    let err = dev.init(b.budget()).expect_err("lb_ramp without a ramp");
    assert!(err.contains("sneaky palette") && err.contains("lb_ramp"), "{test}: {err}");
}

#[test]
fn gl33_effects_match_the_reference() {
    effects_match_the_reference(DeviceKind::Gl, "gl33_effects_match_the_reference");
}

#[test]
fn gles30_effects_match_the_reference() {
    effects_match_the_reference(DeviceKind::Gles, "gles30_effects_match_the_reference");
}

#[test]
fn wgpu_vulkan_effects_match_the_reference() {
    effects_match_the_reference(DeviceKind::WgpuVulkan, "wgpu_vulkan_effects_match_the_reference");
}

#[test]
fn wgpu_gl_effects_match_the_reference() {
    effects_match_the_reference(DeviceKind::WgpuGl, "wgpu_gl_effects_match_the_reference");
}

#[test]
fn gl33_a_broken_effect_is_refused_naming_it() {
    a_broken_effect_is_refused_naming_it(DeviceKind::Gl, "gl33_a_broken_effect_is_refused_naming_it");
}

#[test]
fn gles30_a_broken_effect_is_refused_naming_it() {
    a_broken_effect_is_refused_naming_it(DeviceKind::Gles, "gles30_a_broken_effect_is_refused_naming_it");
}

#[test]
fn wgpu_vulkan_a_broken_effect_is_refused_naming_it() {
    a_broken_effect_is_refused_naming_it(DeviceKind::WgpuVulkan, "wgpu_vulkan_a_broken_effect_is_refused_naming_it");
}

#[test]
fn wgpu_gl_a_broken_effect_is_refused_naming_it() {
    a_broken_effect_is_refused_naming_it(DeviceKind::WgpuGl, "wgpu_gl_a_broken_effect_is_refused_naming_it");
}
