//! The stress scene: a bunnymark. Many sprites move every frame, drawn from many textures in
//! several sizes, submitted interleaved in z so consecutive quads use different textures.
//! Deterministic from its seed, so two backends can draw the same frame.
//!
//! Used by the stress example (native and in the browser), the frame benches and the
//! cross-backend tests.

use layerbatch_core::{Batcher, Format, FramePlan, Quad, TextureDesc, TextureError, TextureId};

/// Texture sizes, one per array class: 4 classes, so an arrays-on frame is one draw at tier 4.
pub const SIZES: [(u32, u32); 4] = [(16, 16), (32, 32), (64, 64), (32, 16)];

/// A small deterministic generator (xorshift32): no dependency, same numbers everywhere.
#[derive(Clone, Debug)]
pub struct Rng(u32);

impl Rng {
    /// Seeded generator (a zero seed is replaced).
    pub fn new(seed: u32) -> Self {
        Self(seed.max(1))
    }
    /// Next value in 0..2^32.
    pub fn next_u32(&mut self) -> u32 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.0 = x;
        x
    }
    /// Uniform in `lo..hi`.
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * (self.next_u32() >> 8) as f32 / (1u32 << 24) as f32
    }
}

/// The pixels of texture `index`: a solid colour with a darker 2-pixel frame, premultiplied.
/// Colours are spread so neighbouring indices differ a lot.
pub fn texture_pixels(index: usize, w: u32, h: u32) -> Vec<u8> {
    let hue = (index as u32).wrapping_mul(97) % 360;
    let c = hsv(hue as f32, 0.75, 1.0);
    let dark = [c[0] / 2, c[1] / 2, c[2] / 2, 255];
    let mut px = Vec::with_capacity((w * h * 4) as usize);
    for y in 0..h {
        for x in 0..w {
            let edge = x < 2 || y < 2 || x + 2 >= w || y + 2 >= h;
            px.extend_from_slice(if edge { &dark } else { &c });
        }
    }
    px
}

fn hsv(h: f32, s: f32, v: f32) -> [u8; 4] {
    let c = v * s;
    let x = c * (1.0 - ((h / 60.0) % 2.0 - 1.0).abs());
    let (r, g, b) = match (h / 60.0) as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = v - c;
    let q = |f: f32| ((f + m) * 255.0).round() as u8;
    [q(r), q(g), q(b), 255]
}

#[derive(Clone, Copy, Debug)]
struct Sprite {
    pos: [f32; 2],
    vel: [f32; 2],
    angle: f32,
    spin: f32,
    scale: f32,
    texture: usize,
    alpha: u8,
}

/// The scene: textures registered in a batcher, sprites moving in a `width x height` box.
#[derive(Debug)]
pub struct Scene {
    textures: Vec<TextureId>,
    sizes: Vec<(u32, u32)>,
    sprites: Vec<Sprite>,
    width: f32,
    height: f32,
    format: Format,
}

/// Scene options.
#[derive(Clone, Copy, Debug)]
pub struct SceneOptions {
    /// Sprites. Default 20,000.
    pub sprites: usize,
    /// Distinct textures. Default 64.
    pub textures: usize,
    /// Viewport size in pixels. Default 800 x 600.
    pub viewport_px: [u32; 2],
    /// Rotate sprites. Default `true`.
    pub rotation: bool,
    /// Every fourth sprite translucent. Default `true`.
    pub translucency: bool,
    /// Seed. Default 7.
    pub seed: u32,
    /// Texture sizes. Default [`Sizes::Pow2`].
    pub sizes: Sizes,
    /// Format of the textures. Default [`Format::Rgba8Unorm`]; another needs `encode`.
    pub format: Format,
    /// Encodes a texture's RGBA8 pixels into `format` (e.g. `compressed::encode`, behind the
    /// kit's `compressed` feature). Default `None`.
    pub encode: Option<Encoder>,
    /// Sprites' size relative to their texture's (each also gets a seeded 0.75 to 1.5).
    /// Default 1; small sprites keep fill from hiding the CPU on a software rasterizer.
    pub sprite_scale: f32,
}

/// Encodes `w` x `h` RGBA8 pixels into a format's blocks, `None` if it cannot.
pub type Encoder = fn(Format, &[u8], u32, u32) -> Option<Vec<u8>>;

/// `--quads auto|instanced|indexed`, the stress flag for `Config::quad_vertices`.
pub fn parse_quads(s: &str) -> Result<layerbatch_core::QuadVertices, String> {
    match s {
        "auto" => Ok(layerbatch_core::QuadVertices::Auto),
        "instanced" => Ok(layerbatch_core::QuadVertices::Instanced),
        "indexed" => Ok(layerbatch_core::QuadVertices::Indexed),
        other => Err(format!("--quads must be auto, instanced or indexed, not {other:?}")),
    }
}

/// The sizes of the scene's textures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sizes {
    /// Cycling through [`SIZES`]: four power-of-two sizes.
    Pow2,
    /// Seeded random sizes, 1 to 256 px a side: loose images.
    Mixed,
    /// Every texture the first of [`SIZES`] (16x16): the same pixels a frame at any number of
    /// textures, so that frames over 1 and 256 textures differ only in their textures.
    Uniform,
}

impl Default for SceneOptions {
    fn default() -> Self {
        Self {
            sprites: 20_000,
            textures: 64,
            viewport_px: [800, 600],
            rotation: true,
            translucency: true,
            seed: 7,
            sizes: Sizes::Pow2,
            format: Format::Rgba8Unorm,
            encode: None,
            sprite_scale: 1.0,
        }
    }
}

impl Scene {
    /// Registers `opts.textures` textures (cycling through [`SIZES`], or random sizes) and
    /// places the sprites.
    pub fn new(batcher: &mut Batcher, opts: SceneOptions) -> Result<Self, TextureError> {
        let mut textures = Vec::with_capacity(opts.textures);
        let mut sizes = Vec::with_capacity(opts.textures);
        let mut size_rng = Rng::new(opts.seed.wrapping_mul(31).wrapping_add(5));
        for i in 0..opts.textures {
            let (w, h) = match opts.sizes {
                Sizes::Pow2 => SIZES[i % SIZES.len()],
                Sizes::Mixed => (1 + size_rng.next_u32() % 256, 1 + size_rng.next_u32() % 256),
                Sizes::Uniform => SIZES[0],
            };
            let (desc, pixels) = (TextureDesc::new(w, h).with_format(opts.format), texture_pixels(i, w, h));
            let data = match opts.encode {
                Some(encode) if opts.format.is_compressed() => encode(opts.format, &pixels, w, h),
                _ => Some(pixels),
            };
            // Data that is not the format's size (no encoder) is refused by `register`.
            textures.push(batcher.textures().register(&desc, &data.unwrap_or_default())?);
            sizes.push((w, h));
        }
        let mut rng = Rng::new(opts.seed);
        let [vw, vh] = opts.viewport_px.map(|v| v as f32);
        let sprites = (0..opts.sprites)
            .map(|i| Sprite {
                // Fractional offsets keep quad edges off pixel centres, where rasterizers'
                // tie rules could differ.
                pos: [rng.range(0.0, vw) + 0.37, rng.range(0.0, vh) + 0.61],
                vel: [rng.range(-120.0, 120.0), rng.range(-120.0, 120.0)],
                angle: if opts.rotation { rng.range(0.0, std::f32::consts::TAU) } else { 0.0 },
                spin: if opts.rotation { rng.range(-2.0, 2.0) } else { 0.0 },
                scale: rng.range(0.75, 1.5) * opts.sprite_scale,
                // Interleaved in z: consecutive sprites use different textures.
                texture: i % opts.textures.max(1),
                alpha: if opts.translucency && i % 4 == 3 { 160 } else { 255 },
            })
            .collect();
        Ok(Self { textures, sizes, sprites, width: vw, height: vh, format: opts.format })
    }

    /// The registered textures.
    pub fn textures(&self) -> &[TextureId] {
        &self.textures
    }

    /// Bytes of the live textures' texels (level 0; blocks, for a compressed format).
    pub fn texel_bytes(&self) -> u64 {
        self.sizes.iter().map(|&(w, h)| self.format.image_bytes(w, h)).sum()
    }

    /// Churn, as a long session does: frees `count` textures picked by `rng` and registers a
    /// new one of a random size (1..=`max_px` a side) in each place, so the sprites that used
    /// it draw the new one. Call between frames.
    ///
    /// # Errors
    /// The batcher's, e.g. an exhausted budget (the old texture is freed already then, and the
    /// place is refilled by a 1x1 texture if even that fits).
    pub fn churn(
        &mut self,
        batcher: &mut Batcher,
        rng: &mut Rng,
        count: usize,
        max_px: u32,
    ) -> Result<(), TextureError> {
        for _ in 0..count {
            let i = rng.next_u32() as usize % self.textures.len().max(1);
            let (w, h) = (1 + rng.next_u32() % max_px.max(1), 1 + rng.next_u32() % max_px.max(1));
            batcher.textures().free(self.textures[i])?;
            match batcher.textures().register(&TextureDesc::new(w, h), &texture_pixels(i, w, h)) {
                Ok(id) => {
                    self.textures[i] = id;
                    self.sizes[i] = (w, h);
                }
                Err(e) => {
                    self.textures[i] =
                        batcher.textures().register(&TextureDesc::new(1, 1), &texture_pixels(i, 1, 1))?;
                    self.sizes[i] = (1, 1);
                    return Err(e);
                }
            }
        }
        Ok(())
    }

    /// Takes the first `n` sprites out of the scene (they move no more) and returns their
    /// quads now: the scene's static part, for a resident layer.
    pub fn take_sprites(&mut self, n: usize) -> Vec<Quad> {
        let n = n.min(self.sprites.len());
        let taken: Vec<Sprite> = self.sprites.drain(..n).collect();
        taken.iter().map(|s| self.quad(s)).collect()
    }

    /// Moves every sprite by `dt` seconds, bouncing off the edges.
    pub fn step(&mut self, dt: f32) {
        for s in &mut self.sprites {
            for k in 0..2 {
                s.pos[k] += s.vel[k] * dt;
                let max = if k == 0 { self.width } else { self.height };
                if s.pos[k] < 0.0 || s.pos[k] > max {
                    s.vel[k] = -s.vel[k];
                    s.pos[k] = s.pos[k].clamp(0.0, max);
                }
            }
            s.angle += s.spin * dt;
        }
    }

    /// Pushes every sprite, in order, into the open frame.
    pub fn push(&self, batcher: &mut Batcher) {
        for s in &self.sprites {
            batcher.push(&self.quad(s)).expect("scene quads are finite and their textures live");
        }
    }

    /// Every sprite's quad now, in order, into `out` (cleared first): what [`Scene::push`]
    /// pushes, built once (a bench of `push` alone).
    pub fn quads(&self, out: &mut Vec<Quad>) {
        out.clear();
        out.extend(self.sprites.iter().map(|s| self.quad(s)));
    }

    /// Every sprite's static half for a moving layer (`TextureStore::create_moving`): its
    /// quad centred on the origin, upright, at its size and scale, tinted as [`Scene::push`]
    /// tints it. With [`Scene::motions`] it draws what [`Scene::push`] draws.
    pub fn moving_quads(&self) -> Vec<Quad> {
        let at_rest = |s: &Sprite| Sprite { pos: [0.0; 2], angle: 0.0, ..*s };
        self.sprites.iter().map(|s| self.quad(&at_rest(s))).collect()
    }

    /// Every sprite's motion now, in order, into `out` (as many as both hold): its centre and
    /// its angle, for the quads of [`Scene::moving_quads`].
    pub fn motions(&self, out: &mut [layerbatch_core::Motion]) {
        for (m, s) in out.iter_mut().zip(&self.sprites) {
            *m = layerbatch_core::Motion::new(s.pos, s.angle, 1.0);
        }
    }

    fn quad(&self, s: &Sprite) -> Quad {
        let (w, h) = self.sizes[s.texture];
        let a = s.alpha;
        Quad::rotated(self.textures[s.texture], s.pos, [w as f32 * s.scale, h as f32 * s.scale], s.angle)
            .with_color([a, a, a, a])
    }

    /// One frame: steps by `dt`, records every sprite and plans.
    pub fn frame<'b>(&mut self, batcher: &'b mut Batcher, dt: f32) -> &'b FramePlan {
        self.step(dt);
        batcher.begin_frame();
        self.push(batcher);
        batcher.finish()
    }
}
