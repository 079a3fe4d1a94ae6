//! A scene of moving sprites and its reference, shared by the native test (`tests/moving.rs`)
//! and the browser test (`examples/web`): sprites turned and scaled by their motions, drawn
//! by a moving layer, against the same quads pushed under each motion's transform, which must
//! draw the same pixels (tolerance 0): the vertex shader applies a motion in the form it
//! applies a draw's transform. Also the flat-layer scene (256 layers whose neighbours differ,
//! [`flat_layers`]) and the keyed scene (a moving layer under a sort key and a clip among
//! pushed quads, [`keyed_scene`]).

use layerbatch_core::{
    Affine2, Batcher, Config, Filter, FramePlan, Motion, Quad, QuadVertices, ResidentId, ResidentStyle, SortKey,
    TextureDesc,
};

use crate::scene::{Scene, SceneOptions};

/// A xorshift: the same motions on every machine.
#[derive(Clone, Debug)]
pub struct Rng(pub u64);

impl Rng {
    /// A number in `0..1`.
    pub fn unit(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % 1_000_000) as f32 / 1_000_000.0
    }
}

/// `n` motions anywhere in a target of `size`, turned anyhow, scaled 0.5 to 2.
pub fn motions(rng: &mut Rng, n: usize, size: [u32; 2]) -> Vec<Motion> {
    (0..n)
        .map(|_| {
            let p = [rng.unit() * size[0] as f32, rng.unit() * size[1] as f32];
            Motion::new(p, rng.unit() * std::f32::consts::TAU, 0.5 + rng.unit() * 1.5)
        })
        .collect()
}

/// The transform a motion applies, as a draw state's: `[a, b, c, d, tx, ty]`.
pub fn transform(m: &Motion) -> Affine2 {
    let [c, s] = m.rotation_scale;
    Affine2([c, s, -s, c, m.position[0], m.position[1]])
}

/// `quads` made around their sprites' pivots: each centred on `(0, 0)` at its own size.
pub fn centred(quads: &[Quad]) -> Vec<Quad> {
    quads
        .iter()
        .map(|q| {
            let [w, h] = [q.axis_x[0].hypot(q.axis_x[1]), q.axis_y[0].hypot(q.axis_y[1])];
            Quad { origin: [-w / 2.0, -h / 2.0], axis_x: [w, 0.0], axis_y: [0.0, h], ..*q }
        })
        .collect()
}

/// The reference frame: each sprite pushed under its motion's transform, between `around`'s
/// two runs of quads.
///
/// # Panics
/// If a quad is refused (a texture the batcher does not hold).
pub fn pushed(b: &mut Batcher, sprites: &[Quad], motions: &[Motion], around: (&[Quad], &[Quad])) -> FramePlan {
    pushed_under(b, sprites, motions, around, &|_| {})
}

/// [`pushed`] with `look` applied to the drawing state for the sprites (an effect, lit, a
/// colour offset), the state saved before and restored after; `look` may add the frame's lights.
///
/// # Panics
/// As [`pushed`].
pub fn pushed_under(
    b: &mut Batcher,
    sprites: &[Quad],
    motions: &[Motion],
    around: (&[Quad], &[Quad]),
    look: &dyn Fn(&mut Batcher),
) -> FramePlan {
    framed(b, around, look, |b| {
        for (q, m) in sprites.iter().zip(motions) {
            b.state().set_transform(transform(m));
            b.push(q).expect("a live texture");
        }
    })
}

/// The frame with moving layer `layer` drawn between `around`'s two runs of quads.
///
/// # Panics
/// If the layer or a quad is refused.
pub fn drawn(b: &mut Batcher, layer: ResidentId, around: (&[Quad], &[Quad])) -> FramePlan {
    drawn_under(b, layer, around, &|_| {})
}

/// [`drawn`] with `look` applied to the drawing state for the layer's draw, as in
/// [`pushed_under`].
///
/// # Panics
/// As [`drawn`].
pub fn drawn_under(
    b: &mut Batcher,
    layer: ResidentId,
    around: (&[Quad], &[Quad]),
    look: &dyn Fn(&mut Batcher),
) -> FramePlan {
    framed(b, around, look, |b| b.draw_resident(layer, &ResidentStyle::default()).expect("a live layer"))
}

/// A frame of `around.0`, then `middle` under `look` (the drawing state saved before and
/// restored after), then `around.1`.
fn framed(
    b: &mut Batcher,
    around: (&[Quad], &[Quad]),
    look: &dyn Fn(&mut Batcher),
    middle: impl FnOnce(&mut Batcher),
) -> FramePlan {
    b.begin_frame();
    b.push_all(around.0).expect("live textures");
    b.state().save();
    look(b);
    middle(b);
    b.state().restore();
    b.push_all(around.1).expect("live textures");
    b.finish().clone()
}

/// Cells a side of the flat-layer scene's grid: one sprite a cell, 256 sprites.
pub const FLAT_GRID: u32 = 16;
/// A cell's side, pixels.
pub const FLAT_CELL: u32 = 30;
/// The flat-layer scene's target size.
pub const FLAT_SIZE: [u32; 2] = [FLAT_GRID * FLAT_CELL, FLAT_GRID * FLAT_CELL];

/// The flat-layer scene's config: nothing packed into pages, so every texture is a layer of
/// one class array of up to 256 layers, drawn with `vertices`.
pub fn flat_layers_config(vertices: QuadVertices) -> Config {
    Config::default().with_max_packed_size_px(4).with_max_layers_per_array(256).with_quad_vertices(vertices)
}

/// Colour of layer `i`: neighbours far apart in every channel.
pub fn layer_color(i: u32) -> [u8; 4] {
    let odd = i % 2 == 1;
    [if odd { 230 } else { 20 }, (i * 37 % 200) as u8 + 40, if odd { 30 } else { 220 }, 255]
}

/// The flat-layer scene on a batcher made with [`flat_layers_config`]: 256 textures of one
/// size and colour each ([`layer_color`]), each a layer of one array, as sprites centred on
/// their pivots, and a motion each that turns it anyhow and scales it 1 to 1.3 in its cell.
///
/// # Errors
/// A texture refused, or the textures not in 256 layers.
pub fn flat_layers(b: &mut Batcher) -> Result<(Vec<Quad>, Vec<Motion>), String> {
    let n = FLAT_GRID * FLAT_GRID;
    let desc = TextureDesc::new(16, 16).with_filter(Filter::Linear);
    let ids = (0..n)
        .map(|i| b.textures().register(&desc, &layer_color(i).repeat(16 * 16)))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    let layers: std::collections::BTreeSet<_> =
        ids.iter().filter_map(|id| b.placement(*id).ok()).map(|p| p.layer).collect();
    if layers.len() != n as usize {
        return Err(format!("{} layers for {n} textures", layers.len()));
    }
    let sprites = ids.iter().map(|&id| Quad::rect(id, [-8.0, -8.0], [16.0, 16.0])).collect();
    let mut rng = Rng(0x666c6174);
    let motions = (0..n)
        .map(|i| {
            let centre = [
                ((i % FLAT_GRID) * FLAT_CELL + FLAT_CELL / 2) as f32,
                ((i / FLAT_GRID) * FLAT_CELL + FLAT_CELL / 2) as f32,
            ];
            Motion::new(centre, rng.unit() * std::f32::consts::TAU, 1.0 + rng.unit() * 0.3)
        })
        .collect();
    Ok((sprites, motions))
}

/// Checks a [`FLAT_SIZE`] RGBA8 readback of the flat-layer scene drawn under `motions`: every
/// pixel inside a sprite (its centre one pixel in from the edges) shows that sprite's own
/// layer's colour. Returns the pixels checked.
///
/// # Errors
/// The first pixel that shows another layer's colour (or a blend of two), or too few pixels
/// inside the sprites to check.
pub fn check_flat_layers(px: &[u8], motions: &[Motion]) -> Result<usize, String> {
    let mut checked = 0;
    for (i, m) in motions.iter().enumerate() {
        let want = layer_color(i as u32);
        let [c, s] = m.rotation_scale;
        let scale = c.hypot(s);
        let (cx, cy) = ((i as u32 % FLAT_GRID) * FLAT_CELL, (i as u32 / FLAT_GRID) * FLAT_CELL);
        for y in cy..cy + FLAT_CELL {
            for x in cx..cx + FLAT_CELL {
                // The pixel centre in the sprite's own space: inside, one pixel in.
                let (dx, dy) = (x as f32 + 0.5 - m.position[0], y as f32 + 0.5 - m.position[1]);
                let (u, v) = ((c * dx + s * dy) / (scale * scale), (-s * dx + c * dy) / (scale * scale));
                if u.abs() > 8.0 - 1.0 / scale || v.abs() > 8.0 - 1.0 / scale {
                    continue;
                }
                let at = ((y * FLAT_SIZE[0] + x) * 4) as usize;
                let got = px.get(at..at + 4).ok_or("a readback smaller than the scene")?;
                if got != want {
                    return Err(format!("sprite {i} at ({x}, {y}) is {got:?}, not its layer's {want:?}"));
                }
                checked += 1;
            }
        }
    }
    if checked <= 256 * 150 {
        return Err(format!("only {checked} pixels inside the sprites"));
    }
    Ok(checked)
}

/// The keyed scene: a moving layer's sprites between a ground under everything and a HUD quad
/// over everything, the layer drawn under a clip.
#[derive(Clone, Debug)]
pub struct KeyedScene {
    /// The layer's sprites, centred on their pivots.
    pub sprites: Vec<Quad>,
    /// Pushed last, keyed on top.
    pub hud: Quad,
    /// Covers the target, keyed under everything.
    pub ground: Quad,
    /// The layer's clip, `[x, y, w, h]`.
    pub clip: [u32; 4],
}

/// The keyed scene for a target of `size`: 120 sprites over 24 textures of the stress scene.
///
/// # Errors
/// A texture refused.
pub fn keyed_scene(b: &mut Batcher, size: [u32; 2]) -> Result<KeyedScene, String> {
    let opts = SceneOptions { sprites: 122, textures: 24, viewport_px: size, ..SceneOptions::default() };
    let mut scene = Scene::new(b, opts).map_err(|e| e.to_string())?;
    scene.step(0.21);
    let mut all = Vec::new();
    scene.quads(&mut all);
    let (Some(hud), Some(last)) = (all.pop(), all.pop()) else { return Err("no quads".into()) };
    let ground = Quad { origin: [0.0, 0.0], axis_x: [size[0] as f32, 0.0], axis_y: [0.0, size[1] as f32], ..last };
    Ok(KeyedScene { sprites: centred(&all), hud, ground, clip: [20, 10, 140, 120] })
}

/// The keyed frame, pushed top down: the HUD under `SortKey::z(1)`, `layer` drawn under
/// `z(0)` and the clip, the ground under `z(-1)`.
///
/// # Panics
/// If a quad or the layer is refused.
pub fn keyed_frame(b: &mut Batcher, layer: ResidentId, scene: &KeyedScene) -> FramePlan {
    b.begin_frame();
    b.state().set_sort_key(SortKey::z(1));
    b.push(&scene.hud).expect("a live texture");
    b.state().set_sort_key(SortKey::z(0));
    b.draw_resident(layer, &ResidentStyle::default().with_clip(Some(scene.clip))).expect("a live layer");
    b.state().set_sort_key(SortKey::z(-1));
    b.push(&scene.ground).expect("a live texture");
    b.finish().clone()
}

/// The keyed frame's reference, pushed in key order without keys: the ground, the sprites
/// under their motions' transforms and the clip, the HUD.
///
/// # Panics
/// If a quad is refused.
pub fn keyed_reference(b: &mut Batcher, scene: &KeyedScene, motions: &[Motion]) -> FramePlan {
    b.begin_frame();
    b.push(&scene.ground).expect("a live texture");
    b.state().set_clip(Some(scene.clip));
    for (q, m) in scene.sprites.iter().zip(motions) {
        b.state().set_transform(transform(m));
        b.push(q).expect("a live texture");
    }
    b.state().set_clip(None);
    b.state().set_transform(Affine2::default());
    b.push(&scene.hud).expect("a live texture");
    b.finish().clone()
}
