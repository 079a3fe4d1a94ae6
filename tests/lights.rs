//! Lights drawn on GL 3.3, GLES 3.0, wgpu on Vulkan and wgpu on GL against a CPU reference of
//! the same lighting (DESIGN 24): 64 textures, half of them with normal maps, lit sprites
//! (turned a quarter, flipped) and unlit ones, solid shapes, effects on some, 9 lights with a
//! cap of 8 (the lowest priority dropped and counted), y-sorted: one draw, nothing compiled
//! after creation, also with 1 and with 8 lights. GL and wgpu within 2 of each other.
//!
//! Tolerance: 3 per channel against the reference (lighting adds a square root, a division
//! and a `pow` per light in floats before the one rounding to 8 bits; the reference computes
//! the same in `f32`), 2 between GL 3.3 and wgpu on Vulkan.
//!
//! Under `CI=true` a device that cannot be had fails the test; outside CI it prints `skipped:`.

use headless::DeviceKind;
use layerbatch::{Batcher, Config, Effect, EffectId, PointLight, Quad, SortKey, TextureDesc, TextureId};
use layerbatch_testkit::headless;

const SIZE: [u32; 2] = [192, 128];
const TEX: u32 = 16;
const TEXTURES: usize = 64;
const EFFECTS: [Effect; 4] = Effect::BUILT_IN;
const AMBIENT: [f32; 3] = [0.15, 0.12, 0.2];

/// Texture `t`'s colour texel at `(x, y)`: opaque, varied.
fn texel(t: usize, x: u32, y: u32) -> [u8; 4] {
    [(x * 15) as u8 ^ (t * 37) as u8, (y * 14 + t as u32 * 3) as u8, ((x ^ y) * 9 + t as u32 * 5) as u8, 255]
}

/// Texture `t`'s normal-map texel: a bump, leaning differently per texture.
fn normal(t: usize, x: u32, y: u32) -> [u8; 4] {
    let (dx, dy) = (x as f32 - 7.5, 7.5 - y as f32);
    let lean = (t % 5) as f32 * 0.1;
    let (nx, ny) = (dx / 10.0 + lean, dy / 10.0 - lean);
    let nz = (1.0 - nx * nx - ny * ny).max(0.05).sqrt();
    let len = (nx * nx + ny * ny + nz * nz).sqrt();
    let enc = |v: f32| ((v / len * 0.5 + 0.5) * 255.0).round() as u8;
    [enc(nx), enc(ny), enc(nz), 255]
}

fn has_normal_map(t: usize) -> bool {
    t.is_multiple_of(2)
}

fn lights(n: usize) -> Vec<PointLight> {
    let all = [
        PointLight::new([20.0, 20.0], 70.0, [1.0, 0.8, 0.6]).with_priority(5),
        PointLight::new([170.0, 30.0], 90.0, [0.5, 0.7, 1.0]).with_height_px(12.0).with_priority(4),
        PointLight::new([100.0, 64.0], 40.0, [1.2, 1.2, 1.0]).with_falloff(2.0).with_priority(9),
        PointLight::new([60.0, 110.0], 60.0, [0.3, 1.0, 0.4]).with_height_px(60.0).with_priority(3),
        PointLight::new([140.0, 100.0], 50.0, [0.9, 0.2, 0.2]).with_falloff(0.5).with_priority(3),
        PointLight::new([0.0, 128.0], 80.0, [0.4, 0.4, 0.9]).with_priority(2),
        PointLight::new([192.0, 0.0], 64.0, [0.7, 0.7, 0.2]).with_height_px(8.0).with_priority(1),
        PointLight::new([96.0, 10.0], 30.0, [1.0, 1.0, 1.0]).with_falloff(3.0).with_priority(7),
        // The lowest priority: dropped with a cap of 8. It would light the middle brightly.
        PointLight::new([96.0, 64.0], 200.0, [3.0, 3.0, 3.0]).with_priority(-1),
    ];
    all[..n].to_vec()
}

/// One sprite: texture (or `None`: a solid shape), top-left corner, turn (0: none, 1: a
/// quarter clockwise, 2: flipped in x), lit, effect, the tint.
#[derive(Clone, Copy)]
struct Sprite {
    texture: Option<usize>,
    at: [u32; 2],
    turn: u8,
    lit: bool,
    effect: u8,
    tint: [u8; 4],
}

fn sprites() -> Vec<Sprite> {
    (0..96)
        .map(|i| {
            let texture = if i % 11 == 10 { None } else { Some(i * 7 % TEXTURES) };
            // Overlapping rows: the y-sort decides who is in front.
            let at = [(i % 12) as u32 * 15 + (i / 12 % 2) as u32 * 4, (i * 5 % 8) as u32 * 14 + 2];
            Sprite {
                texture,
                at,
                turn: (i % 3) as u8,
                lit: i % 4 != 3,
                effect: if i % 5 == 4 {
                    2
                } else if i % 9 == 8 {
                    1
                } else {
                    0
                },
                tint: if texture.is_none() { [200, 120, 60, 255] } else { [255; 4] },
            }
        })
        .collect()
}

/// The texel sprite `s` shows at its local pixel `(x, y)`, and the quad's axes as drawn.
fn local_texel(s: &Sprite, x: u32, y: u32) -> ([u32; 2], [[f32; 2]; 2]) {
    match s.turn {
        // A quarter clockwise: axis x points down, axis y left.
        1 => ([y, TEX - 1 - x], [[0.0, 1.0], [-1.0, 0.0]]),
        2 => ([TEX - 1 - x, y], [[-1.0, 0.0], [0.0, 1.0]]),
        _ => ([x, y], [[1.0, 0.0], [0.0, 1.0]]),
    }
}

fn quad(s: &Sprite, id: TextureId) -> Quad {
    let [x, y] = s.at.map(|v| v as f32);
    let t = TEX as f32;
    let mut q = Quad::rect(id, [x, y], [t, t]);
    match s.turn {
        1 => {
            q.origin = [x + t, y];
            q.axis_x = [0.0, t];
            q.axis_y = [-t, 0.0];
        }
        2 => {
            q.origin = [x + t, y];
            q.axis_x = [-t, 0.0];
        }
        _ => {}
    }
    q.color = s.tint;
    q
}

/// The light at pixel centre `p` on a surface facing `n`, as the shaders compute it.
fn lighting(n: [f32; 3], p: [f32; 2], lights: &[PointLight]) -> [f32; 3] {
    let mut sum = AMBIENT;
    for l in lights {
        let d = [l.position_px[0] - p[0], l.position_px[1] - p[1]];
        let reach = 1.0 - (d[0] * d[0] + d[1] * d[1]).sqrt() / l.radius_px;
        if reach <= 0.0 {
            continue;
        }
        let v = [d[0], d[1], l.height_px];
        let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        let dir = if len > 0.0 { v.map(|c| c / len) } else { [0.0, 0.0, 1.0] };
        let k = (n[0] * dir[0] + n[1] * dir[1] + n[2] * dir[2]).max(0.0) * reach.powf(l.falloff);
        for (s, c) in sum.iter_mut().zip(l.color) {
            *s += c * k;
        }
    }
    sum
}

fn reference(sprites: &[Sprite], lights: &[PointLight], clear: &[u8]) -> Vec<u8> {
    let mut want = clear.to_vec();
    let mut order: Vec<usize> = (0..sprites.len()).collect();
    // The y-sort: by the sprite's bottom edge, stable.
    order.sort_by(|&a, &b| (sprites[a].at[1] + TEX).cmp(&(sprites[b].at[1] + TEX)));
    for &k in &order {
        let s = &sprites[k];
        for y in 0..TEX {
            for x in 0..TEX {
                let ([tx, ty], [ax, ay]) = local_texel(s, x, y);
                let (colour, n) = match s.texture {
                    Some(t) => {
                        let n = if has_normal_map(t) {
                            let m = normal(t, tx, ty).map(|v| f32::from(v) / 255.0 * 2.0 - 1.0);
                            let v = [m[0] * ax[0] - m[1] * ay[0], m[0] * ax[1] - m[1] * ay[1], m[2]];
                            let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
                            v.map(|c| c / len)
                        } else {
                            [0.0, 0.0, 1.0]
                        };
                        (texel(t, tx, ty), n)
                    }
                    None => ([255; 4], [0.0, 0.0, 1.0]),
                };
                let mut c: [f32; 4] =
                    std::array::from_fn(|i| f32::from(colour[i]) / 255.0 * f32::from(s.tint[i]) / 255.0);
                let (px, py) = (s.at[0] + x, s.at[1] + y);
                if s.lit {
                    let l = lighting(n, [px as f32 + 0.5, py as f32 + 0.5], lights);
                    for (c, l) in c.iter_mut().zip(l) {
                        *c *= l;
                    }
                }
                let c = match s.effect {
                    // Greyscale, fully.
                    2 => {
                        let l = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
                        [l, l, l, c[3]]
                    }
                    // Flash white at 50% (params 1, 1, 1, 0.5 carried as 128/255).
                    1 => {
                        let t = 128.0 / 255.0;
                        [0, 1, 2, 3].map(|i| if i == 3 { c[3] } else { c[i] * (1.0 - t) + c[3] * t })
                    }
                    _ => c,
                };
                let at = ((py * SIZE[0] + px) * 4) as usize;
                for i in 0..4 {
                    let dst = f32::from(want[at + i]) / 255.0;
                    want[at + i] = ((c[i].min(1.0) + dst * (1.0 - c[3])).clamp(0.0, 1.0) * 255.0).round() as u8;
                }
            }
        }
    }
    want
}

/// Draws the scene with `n` lights; returns the picture, the frame's lights counters and draws.
fn draw_scene(kind: DeviceKind, test: &str, n: usize) -> Option<(Vec<u8>, Vec<u8>)> {
    let mut dev = headless::open_for_test(kind, SIZE, test)?;
    let config = Config::default().with_effects(&EFFECTS).with_lights(8);
    let mut b = Batcher::new(dev.limits(), config).expect("budget");
    dev.init(b.budget()).unwrap_or_else(|e| panic!("{test}: {e}"));
    let compiles = dev.stats().device_total.pipeline_compiles;
    let ids: Vec<TextureId> = (0..TEXTURES)
        .map(|t| {
            let px: Vec<u8> = (0..TEX * TEX).flat_map(|i| texel(t, i % TEX, i / TEX)).collect();
            let id = b.register(&TextureDesc::new(TEX, TEX), &px).expect("register");
            if has_normal_map(t) {
                let nm: Vec<u8> = (0..TEX * TEX).flat_map(|i| normal(t, i % TEX, i / TEX)).collect();
                b.register_normal_map(id, &nm).expect("a normal map of the texture's size");
            }
            id
        })
        .collect();
    let white = b.white().expect("white");
    b.begin_frame();
    dev.draw(b.finish()).unwrap_or_else(|e| panic!("{test}: {e}"));
    let clear = dev.read();

    let sprites = sprites();
    b.begin_frame();
    b.set_ambient(AMBIENT).unwrap();
    for l in lights(n) {
        b.add_light(l).unwrap();
    }
    for s in &sprites {
        b.set_lit(s.lit).unwrap();
        let params = if s.effect == 1 { [1.0, 1.0, 1.0, 0.5] } else { [1.0, 0.0, 0.0, 0.0] };
        b.set_effect(EffectId(s.effect), params).unwrap();
        let q = quad(s, s.texture.map_or(white, |t| ids[t]));
        b.push_sorted(&q, SortKey::zy(0, (s.at[1] + TEX) as f32)).expect("a live texture");
    }
    let plan = b.finish();
    assert_eq!((plan.counters.lights, plan.counters.lights_dropped), (n.min(8) as u64, n.saturating_sub(8) as u64));
    dev.draw(plan).unwrap_or_else(|e| panic!("{test}: {e}"));
    let frame = dev.stats().device_frame;
    assert_eq!(frame.draw_calls, 1, "{test}: 64 textures, lit and unlit, effects, sorted: one draw");
    assert_eq!(dev.stats().device_total.pipeline_compiles, compiles, "{test}: nothing compiled after creation");
    Some((dev.read(), clear))
}

fn lights_match_the_reference(kind: DeviceKind, test: &str) {
    for n in [9, 1, 8] {
        let Some((drawn, clear)) = draw_scene(kind, test, n) else { return };
        let kept = lights(n.min(8));
        let want = reference(&sprites(), &kept, &clear);
        let (differing, worst) = headless::compare(&drawn, &want, SIZE[0], 3, "drawn", "reference");
        assert_eq!(differing, 0, "{test}, {n} lights: {differing} pixels differ by more than 3 (worst {worst})");
        if n == 9 {
            // The dropped light would have changed the picture: the cap is what was drawn.
            let all = reference(&sprites(), &lights(9), &clear);
            let (changed, _) = headless::compare(&all, &want, SIZE[0], 3, "nine", "eight");
            assert!(changed > 1000, "{test}: the ninth light lights {changed} pixels");
            // And lighting changes the picture.
            let dark = reference(&sprites(), &[], &clear);
            let (lit, _) = headless::compare(&dark, &want, SIZE[0], 3, "ambient", "lit");
            assert!(lit > 4000, "{test}: the lights light {lit} pixels");
        }
    }
}

#[test]
fn gl33_lights_match_the_reference() {
    lights_match_the_reference(DeviceKind::Gl, "gl33_lights_match_the_reference");
}

#[test]
fn gles30_lights_match_the_reference() {
    lights_match_the_reference(DeviceKind::Gles, "gles30_lights_match_the_reference");
}

#[test]
fn wgpu_vulkan_lights_match_the_reference() {
    lights_match_the_reference(DeviceKind::WgpuVulkan, "wgpu_vulkan_lights_match_the_reference");
}

#[test]
fn wgpu_gl_lights_match_the_reference() {
    lights_match_the_reference(DeviceKind::WgpuGl, "wgpu_gl_lights_match_the_reference");
}

#[test]
fn gl_and_wgpu_light_within_two() {
    let test = "gl_and_wgpu_light_within_two";
    let Some((gl, _)) = draw_scene(DeviceKind::Gl, test, 8) else { return };
    let Some((wgpu, _)) = draw_scene(DeviceKind::WgpuVulkan, test, 8) else { return };
    let (differing, worst) = headless::compare(&gl, &wgpu, SIZE[0], 2, "gl", "wgpu");
    assert_eq!(differing, 0, "{test}: {differing} pixels differ by more than 2 (worst {worst})");
}
