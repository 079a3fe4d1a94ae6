//! The looks scene (issue 29, DESIGN 24), native and in the browser: 96 y-sorted sprites over
//! 64 textures, half of them normal-mapped and some cut out, turned a quarter or flipped, lit
//! and unlit, solid shapes, under up to 9 point lights with a cap of 8, with 8 effects (the 5
//! built-ins, palette swap by a ramp among them, and 3 of the host's, one reading the frame's
//! time); and its CPU reference: the
//! same lighting and effects in `f32`, blended over what the target held.
//!
//! The scene is one draw on every path; [`TOLERANCE`] per channel against the reference
//! (lighting adds a square root, a division and a `pow` per light in floats before the one
//! rounding to 8 bits).

use layerbatch_core::{Batcher, Config, Effect, EffectId, PointLight, Quad, SortKey, TextureDesc, TextureId};

/// The target's size.
pub const SIZE: [u32; 2] = [192, 128];
/// The textures' side.
pub const TEX: u32 = 16;
/// Textures in the scene.
pub const TEXTURES: usize = 64;
/// Largest difference per channel from the reference.
pub const TOLERANCE: u8 = 3;
/// The cap: lights a frame draws with.
pub const MAX_LIGHTS: u32 = 8;
/// The ambient colour.
pub const AMBIENT: [f32; 3] = [0.15, 0.12, 0.2];
/// The frame's time, which the pulse effect reads.
pub const TIME_S: f32 = 1.25;

/// The host's invert: `a - rgb` (shared with `tests/effects.rs` and the fill rig).
pub const INVERT: Effect = Effect::new("invert", "return vec4<f32>(vec3<f32>(color.a) - color.rgb, color.a);");
/// The host's pulse: scaled by `0.5 + time_s / 4 + params.x / 2`, clamped to 0..1.
pub const PULSE: Effect = Effect::new("pulse", "return color * clamp(0.5 + 0.25 * time_s + 0.5 * params.x, 0.0, 1.0);");
/// The host's fade: scaled by `1 - params.x`.
pub const FADE: Effect = Effect::new("fade", "return color * (1.0 - params.x);");

/// The 8 effects, ids 1 to 8: the 5 built-ins (flash, greyscale, dissolve, outline, palette)
/// and the host's invert, pulse and fade.
pub const EFFECTS: [Effect; 8] =
    [Effect::FLASH, Effect::GREYSCALE, Effect::DISSOLVE, Effect::OUTLINE, Effect::PALETTE, INVERT, PULSE, FADE];

/// The ramp rows the scene writes: those its palette sprites pick (`params.x * 255`).
pub const RAMP_ROWS: [u8; 4] = [255, 153, 89, 51];

/// Entry `k` of ramp row `row`, straight RGBA8 (some translucent).
pub fn ramp_color(row: u8, k: u32) -> [u8; 4] {
    let r = u32::from(row);
    [(k * 3 + r) as u8, (255 - k) as u8, ((k * 7) ^ r) as u8, 255 - (k % 4) as u8 * 40]
}

/// The config the scene's batcher is made with.
pub fn config() -> Config {
    Config::default().with_effects(&EFFECTS).with_lights(MAX_LIGHTS)
}

/// Whether texture `t` is cut out: a transparent frame 3 texels wide around an opaque middle.
fn cut_out(t: usize) -> bool {
    t % 4 == 1
}

/// Texture `t`'s colour texel at `(x, y)`, premultiplied.
pub fn texel(t: usize, x: u32, y: u32) -> [u8; 4] {
    if cut_out(t) && !((3..13).contains(&x) && (3..13).contains(&y)) {
        return [0; 4];
    }
    [(x * 15) as u8 ^ (t * 37) as u8, (y * 14 + t as u32 * 3) as u8, ((x ^ y) * 9 + t as u32 * 5) as u8, 255]
}

/// Texture `t`'s normal-map texel: a bump, leaning differently per texture.
pub fn normal(t: usize, x: u32, y: u32) -> [u8; 4] {
    let (dx, dy) = (x as f32 - 7.5, 7.5 - y as f32);
    let lean = (t % 5) as f32 * 0.1;
    let (nx, ny) = (dx / 10.0 + lean, dy / 10.0 - lean);
    let nz = (1.0 - nx * nx - ny * ny).max(0.05).sqrt();
    let len = (nx * nx + ny * ny + nz * nz).sqrt();
    let enc = |v: f32| ((v / len * 0.5 + 0.5) * 255.0).round() as u8;
    [enc(nx), enc(ny), enc(nz), 255]
}

/// Whether texture `t` has a normal map.
pub fn has_normal_map(t: usize) -> bool {
    t.is_multiple_of(2)
}

/// The first `n` of the scene's 9 lights; the ninth has the lowest priority.
pub fn lights(n: usize) -> Vec<PointLight> {
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
    all[..n.min(all.len())].to_vec()
}

/// One sprite of the scene.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct Sprite {
    /// Its texture, or `None`: a solid shape (the white texel, tinted).
    pub texture: Option<usize>,
    /// Its top-left corner, pixels.
    pub at: [u32; 2],
    /// 0: as is; 1: turned a quarter clockwise; 2: flipped in x.
    pub turn: u8,
    /// Lit by the lights.
    pub lit: bool,
    /// Its effect (0: none).
    pub effect: u8,
    /// The effect's parameters.
    pub params: [f32; 4],
    /// Its tint.
    pub tint: [u8; 4],
}

/// The scene's sprites, in the order they are pushed (the y-sort reorders them).
pub fn sprites() -> Vec<Sprite> {
    let params = [[1.0, 1.0, 1.0, 0.5], [0.6, 0.2, 0.9, 0.375], [0.35, 0.8, 1.0, 0.5], [0.2, 0.9, 0.1, 0.25]];
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
                // Shapes draw without effects: the effects that read texels need a texture.
                effect: if texture.is_some() { (i % 9) as u8 } else { 0 },
                params: params[i / 9 % params.len()],
                tint: if texture.is_none() { [200, 120, 60, 255] } else { [255; 4] },
            }
        })
        .collect()
}

/// Registers the scene's textures and normal maps and writes its ramp rows; returns their ids and the white texel's.
///
/// # Errors
/// The batcher's refusal, as text.
pub fn register(b: &mut Batcher) -> Result<(Vec<TextureId>, TextureId), String> {
    let mut ids = Vec::with_capacity(TEXTURES);
    for t in 0..TEXTURES {
        let px: Vec<u8> = (0..TEX * TEX).flat_map(|i| texel(t, i % TEX, i / TEX)).collect();
        let id = b.textures().register(&TextureDesc::new(TEX, TEX), &px).map_err(|e| format!("register: {e}"))?;
        if has_normal_map(t) {
            let nm: Vec<u8> = (0..TEX * TEX).flat_map(|i| normal(t, i % TEX, i / TEX)).collect();
            b.textures().register_normal_map(id, &nm).map_err(|e| format!("normal map: {e}"))?;
        }
        ids.push(id);
    }
    for row in RAMP_ROWS {
        let colors: Vec<[u8; 4]> = (0..layerbatch_core::RAMP_WIDTH_PX).map(|k| ramp_color(row, k)).collect();
        b.textures().write_ramp_row(row, &colors).map_err(|e| format!("ramp: {e}"))?;
    }
    Ok((ids, b.textures().white().map_err(|e| format!("white: {e}"))?))
}

/// The quad of sprite `s` drawing `id`.
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

/// Records the scene with its first `lights` lights into a frame (begun here; the caller
/// finishes it).
///
/// # Errors
/// The batcher's refusal, as text.
pub fn record(b: &mut Batcher, ids: &[TextureId], white: TextureId, lights: usize) -> Result<(), String> {
    b.set_time_s(TIME_S);
    b.begin_frame();
    b.set_ambient(AMBIENT).map_err(|e| e.to_string())?;
    for l in self::lights(lights) {
        b.add_light(l).map_err(|e| e.to_string())?;
    }
    for s in &sprites() {
        b.state().set_lit(s.lit);
        let id = b.budget().effect_at(usize::from(s.effect)).unwrap_or(EffectId::NONE);
        b.state().set_effect(id, s.params);
        let q = quad(s, s.texture.map_or(white, |t| ids[t]));
        b.state().set_sort_key(SortKey::zy(0, (s.at[1] + TEX) as f32));
        b.push(&q).map_err(|e| e.to_string())?;
    }
    Ok(())
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

/// Effect `id` of [`EFFECTS`] (0: none) on the CPU, for texture `t`.
fn effect(id: u8, c: [f32; 4], t: usize, at: [f32; 2], p: [f32; 4]) -> [f32; 4] {
    let texel_at = |x: f32, y: f32| {
        let inside = (0.0..TEX as f32).contains(&x) && (0.0..TEX as f32).contains(&y);
        if inside {
            texel(t, x as u32, y as u32).map(|v| f32::from(v) / 255.0)
        } else {
            [0.0; 4]
        }
    };
    let ramp = |k: u32, row: u32| if RAMP_ROWS.contains(&(row as u8)) { ramp_color(row as u8, k) } else { [0; 4] };
    match id {
        0 => c,
        _ => reference_effect(
            &EFFECTS[usize::from(id) - 1],
            c,
            &Sampled { texel: &texel_at, ramp: &ramp },
            at,
            p,
            TIME_S,
        ),
    }
}

/// What an effect reads besides its inputs: its quad's texture at a texel position
/// (premultiplied, 0 outside it: `lb_texel`) and the ramp's entry `(index, row)` (straight
/// RGBA8: `lb_ramp`).
#[allow(missing_debug_implementations)] // closures
pub struct Sampled<'a> {
    /// `lb_texel` at `(x, y)`, texels.
    pub texel: &'a dyn Fn(f32, f32) -> [f32; 4],
    /// `lb_ramp` at entry `k` of row `row`.
    pub ramp: &'a dyn Fn(u32, u32) -> [u8; 4],
}

/// Effect `e` on the CPU, by its name: the built-ins and the host effects of this scene
/// (`invert`, `pulse`, `fade`), as their documented formulas say (in `f32`, as the shaders
/// compute). `c` is premultiplied; `at` the texel position in the texture's texels; `sampled`
/// what the outline and the palette read; `p` the parameters as carried (multiples of 1/255).
///
/// # Panics
/// For an effect of another name.
pub fn reference_effect(
    e: &Effect,
    c: [f32; 4],
    sampled: &Sampled<'_>,
    at: [f32; 2],
    p: [f32; 4],
    time_s: f32,
) -> [f32; 4] {
    let [r, g, b, a] = c;
    let mix = |x: f32, y: f32, k: f32| x * (1.0 - k) + y * k;
    match e.name {
        "flash" => [mix(r, p[0] * a, p[3]), mix(g, p[1] * a, p[3]), mix(b, p[2] * a, p[3]), a],
        "greyscale" => {
            let l = 0.2126 * r + 0.7152 * g + 0.0722 * b;
            [mix(r, l, p[0]), mix(g, l, p[0]), mix(b, l, p[0]), a]
        }
        "dissolve" => {
            let cell = at.map(|v| v.max(0.0) as u32);
            let mut h = cell[0].wrapping_mul(1664525).wrapping_add(cell[1].wrapping_mul(1013904223));
            h ^= h >> 16;
            h = h.wrapping_mul(0x7feb352d);
            h ^= h >> 15;
            h = h.wrapping_mul(0x846ca68b);
            h ^= h >> 16;
            let n = (h >> 8) as f32 / 16777216.0;
            if n < p[0] {
                [0.0; 4]
            } else if n < p[0] + p[1] * 0.25 {
                [p[2] * a, p[3] * a, p[3] * a, a]
            } else {
                c
            }
        }
        "outline" => {
            if a >= 0.5 {
                return c;
            }
            let w = (p[3] * 8.0 + 0.5).floor().max(1.0);
            let dirs =
                [(1.0, 0.0), (1.0, 1.0), (0.0, 1.0), (-1.0, 1.0), (-1.0, 0.0), (-1.0, -1.0), (0.0, -1.0), (1.0, -1.0)];
            let edge = dirs.iter().any(|&(dx, dy)| (sampled.texel)(at[0] + dx * w, at[1] + dy * w)[3] >= 0.5);
            if edge {
                [r + p[0] * (1.0 - a), g + p[1] * (1.0 - a), b + p[2] * (1.0 - a), a + (1.0 - a)]
            } else {
                c
            }
        }
        "palette" => {
            let t = (sampled.texel)(at[0], at[1]);
            if t[3] <= 0.0 {
                return c;
            }
            let entry = |v: f32| (v.clamp(0.0, 1.0) * 255.0 + 0.5).floor() as u32;
            let k = (sampled.ramp)(entry(t[0] / t[3]), entry(p[0])).map(|v| f32::from(v) / 255.0);
            let swapped = [k[0] * k[3] * a, k[1] * k[3] * a, k[2] * k[3] * a, k[3] * a];
            std::array::from_fn(|i| mix(c[i], swapped[i], p[1]))
        }
        "invert" => [a - r, a - g, a - b, a],
        "pulse" => {
            let k = (0.5 + 0.25 * time_s + 0.5 * p[0]).clamp(0.0, 1.0);
            c.map(|v| v * k)
        }
        "fade" => c.map(|v| v * (1.0 - p[0])),
        name => panic!("no CPU reference for effect {name:?}"),
    }
}

/// The texel sprite `s` shows at its local pixel `(x, y)`, and the quad's axes as drawn.
fn local_texel(s: &Sprite, x: u32, y: u32) -> ([u32; 2], [[f32; 2]; 2]) {
    match s.turn {
        1 => ([y, TEX - 1 - x], [[0.0, 1.0], [-1.0, 0.0]]),
        2 => ([TEX - 1 - x, y], [[-1.0, 0.0], [0.0, 1.0]]),
        _ => ([x, y], [[1.0, 0.0], [0.0, 1.0]]),
    }
}

/// The scene drawn on the CPU with `lights`, over `clear` (the target before the frame, RGBA8
/// rows top first).
pub fn reference(lights: &[PointLight], clear: &[u8]) -> Vec<u8> {
    reference_with_text(lights, clear, &[])
}

/// A text label of the scene as the reference composites it (`looks_text`, feature `text`): its
/// glyphs over transparent black (premultiplied RGBA8, [`SIZE`]), its sort key's y, whether it
/// is lit, its effect (one that reads no texel: flash, greyscale, invert, pulse or fade) and
/// parameters.
#[derive(Clone, Debug)]
pub struct TextLayer {
    /// The y of its [`SortKey::zy`].
    pub sort_y: f32,
    /// Its pixels.
    pub pixels: Vec<u8>,
    /// Lit by the lights.
    pub lit: bool,
    /// Its effect (0: none).
    pub effect: u8,
    /// The effect's parameters.
    pub params: [f32; 4],
}

/// "Over" of a premultiplied `c` onto the 8-bit pixel at `at`.
fn blend(want: &mut [u8], at: usize, c: [f32; 4]) {
    for i in 0..4 {
        let dst = f32::from(want[at + i]) / 255.0;
        want[at + i] =
            ((c[i].clamp(0.0, 1.0) + dst * (1.0 - c[3].clamp(0.0, 1.0))).clamp(0.0, 1.0) * 255.0).round() as u8;
    }
}

/// [`reference()`] with text `labels` y-sorted among the sprites (no label shares a sprite's key).
pub fn reference_with_text(lights: &[PointLight], clear: &[u8], labels: &[TextLayer]) -> Vec<u8> {
    let sprites = sprites();
    let mut want = clear.to_vec();
    // The y-sort: sprites by their bottom edge, labels by their key; stable.
    let mut order: Vec<(f32, Result<usize, usize>)> =
        (0..sprites.len()).map(|k| ((sprites[k].at[1] + TEX) as f32, Ok(k))).collect();
    order.extend(labels.iter().enumerate().map(|(k, l)| (l.sort_y, Err(k))));
    order.sort_by(|a, b| a.0.total_cmp(&b.0));
    for &(_, item) in &order {
        match item {
            Ok(k) => draw_sprite(&sprites[k], lights, &mut want),
            Err(k) => draw_label(&labels[k], lights, &mut want),
        }
    }
    want
}

/// A label's pixels, lit and with its effect, over `want`.
fn draw_label(l: &TextLayer, lights: &[PointLight], want: &mut [u8]) {
    let carried = l.params.map(|v| (v * 255.0).round() / 255.0);
    for (p, px) in l.pixels.chunks_exact(4).enumerate() {
        if px[3] == 0 && px[..3] == [0, 0, 0] {
            continue;
        }
        let (x, y) = ((p as u32 % SIZE[0]) as f32, (p as u32 / SIZE[0]) as f32);
        let mut c: [f32; 4] = std::array::from_fn(|i| f32::from(px[i]) / 255.0);
        if l.lit {
            let light = lighting([0.0, 0.0, 1.0], [x + 0.5, y + 0.5], lights);
            for (c, l) in c.iter_mut().zip(light) {
                *c *= l;
            }
        }
        let c = effect(l.effect, c, 0, [0.0; 2], carried);
        blend(want, p * 4, c);
    }
}

/// One sprite, lit and with its effect, over `want`.
fn draw_sprite(s: &Sprite, lights: &[PointLight], want: &mut [u8]) {
    let carried = s.params.map(|v| (v * 255.0).round() / 255.0);
    for y in 0..TEX {
        for x in 0..TEX {
            let ([tx, ty], [ax, ay]) = local_texel(s, x, y);
            let (colour, n) = match s.texture {
                Some(t) if has_normal_map(t) => {
                    let m = normal(t, tx, ty).map(|v| f32::from(v) / 255.0 * 2.0 - 1.0);
                    let v = [m[0] * ax[0] - m[1] * ay[0], m[0] * ax[1] - m[1] * ay[1], m[2]];
                    let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
                    (texel(t, tx, ty), v.map(|c| c / len))
                }
                Some(t) => (texel(t, tx, ty), [0.0, 0.0, 1.0]),
                None => ([255; 4], [0.0, 0.0, 1.0]),
            };
            let mut c: [f32; 4] = std::array::from_fn(|i| f32::from(colour[i]) / 255.0 * f32::from(s.tint[i]) / 255.0);
            let (px, py) = (s.at[0] + x, s.at[1] + y);
            if s.lit {
                let l = lighting(n, [px as f32 + 0.5, py as f32 + 0.5], lights);
                for (c, l) in c.iter_mut().zip(l) {
                    *c *= l;
                }
            }
            let t = s.texture.unwrap_or(0);
            let c = effect(s.effect, c, t, [tx as f32 + 0.5, ty as f32 + 0.5], carried);
            blend(want, ((py * SIZE[0] + px) * 4) as usize, c);
        }
    }
}

/// Pixels of two RGBA8 pictures that differ by more than `tol` in a channel, and the largest
/// difference.
pub fn differing(a: &[u8], b: &[u8], tol: u8) -> (usize, u8) {
    let mut out = (0, 0);
    for (pa, pb) in a.chunks_exact(4).zip(b.chunks_exact(4)) {
        let d = pa.iter().zip(pb).map(|(x, y)| x.abs_diff(*y)).max().unwrap_or(0);
        out.1 = out.1.max(d);
        out.0 += usize::from(d > tol);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    // The reference sees what the scene is about: the ninth light, the lights at all, and the
    // effects each change many pixels.
    #[test]
    fn the_reference_shows_the_cap_the_lights_and_the_effects() {
        let clear = vec![0; (SIZE[0] * SIZE[1] * 4) as usize];
        let eight = reference(&lights(8), &clear);
        assert!(differing(&reference(&lights(9), &clear), &eight, TOLERANCE).0 > 1000);
        // 4,000 pixels of the 24,576 (the palette's fully swapped sprites ignore the lights).
        assert!(differing(&reference(&[], &clear), &eight, TOLERANCE).0 > 3500);
        let effects: std::collections::BTreeSet<u8> = sprites().iter().map(|s| s.effect).collect();
        assert_eq!(effects.len(), 9, "every effect and none");
    }
}
