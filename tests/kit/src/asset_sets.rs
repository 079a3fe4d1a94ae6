//! Asset sets modelled on real games, for loading tests (core's, and the cross-backend ones).
//!
//! `real_like` follows the size distribution of a real CC0 asset pack as a popular game
//! library ships it (the 759 PNGs inside Python Arcade 3.3.3's wheel): every size that
//! appears three times or more, with its count; the ten images over 256 px exactly; and 47
//! odd sizes of 9..256 px for the rest. `game_like` is a smaller, rounder mix with
//! backgrounds and nearest-filtered pixel art. Pixels are opaque and different at every
//! texel of every image, so a wrong layer, rectangle or offset shows in a readback.

use layerbatch_core::{Filter, TextureDesc};

/// One image of a set: its description and a seed for its pixels.
#[derive(Clone, Copy, Debug)]
pub struct Asset {
    /// Its size and settings.
    pub desc: TextureDesc,
    /// The seed of its pixels ([`texel`]).
    pub seed: u32,
}

impl Asset {
    /// Tightly packed opaque RGBA8 rows: a hash of the seed and the texel position.
    pub fn pixels(&self) -> Vec<u8> {
        let (w, h) = (self.desc.width_px as usize, self.desc.height_px as usize);
        let mut out = vec![255u8; w * h * 4];
        for y in 0..h {
            for x in 0..w {
                let [r, g, b] = texel(self.seed, x as u32, y as u32);
                let at = (y * w + x) * 4;
                out[at] = r;
                out[at + 1] = g;
                out[at + 2] = b;
            }
        }
        out
    }

    /// Texel bytes (RGBA8).
    pub fn bytes(&self) -> u64 {
        u64::from(self.desc.width_px) * u64::from(self.desc.height_px) * 4
    }
}

/// The colour of texel `(x, y)` of image `seed` (alpha 255).
pub fn texel(seed: u32, x: u32, y: u32) -> [u8; 3] {
    let mut v = seed.wrapping_mul(0x9E37_79B9) ^ x.wrapping_mul(0x85EB_CA6B) ^ y.wrapping_mul(0xC2B2_AE35);
    v ^= v >> 15;
    v = v.wrapping_mul(0x2C1B_3C6D);
    v ^= v >> 12;
    [v as u8, (v >> 8) as u8, (v >> 16) as u8]
}

/// Every size of the real pack seen three times or more, with its count (702 images).
const COMMON: [((u32, u32), usize); 24] = [
    ((128, 128), 289),
    ((96, 128), 78),
    ((140, 190), 68),
    ((48, 48), 55),
    ((64, 64), 54),
    ((80, 80), 52),
    ((50, 48), 18),
    ((8, 26), 10),
    ((12, 30), 10),
    ((108, 48), 9),
    ((50, 50), 8),
    ((32, 32), 6),
    ((184, 68), 5),
    ((12, 26), 5),
    ((16, 30), 5),
    ((42, 46), 4),
    ((190, 49), 4),
    ((64, 32), 4),
    ((33, 26), 3),
    ((99, 75), 3),
    ((38, 36), 3),
    ((42, 40), 3),
    ((110, 48), 3),
    ((100, 100), 3),
];

/// The real pack's ten images over 256 px (a sprite sheet of explosions, 4096x3584, among
/// them).
const LARGE: [(u32, u32); 10] = [
    (288, 128),
    (352, 192),
    (400, 240),
    (500, 507),
    (800, 600),
    (800, 600),
    (896, 240),
    (1024, 1024),
    (1664, 1536),
    (4096, 3584),
];

/// A small xorshift generator: sets are the same on every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u32) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % u64::from(n)) as u32
    }
    fn range(&mut self, lo: u32, hi: u32) -> u32 {
        lo + self.below(hi - lo + 1)
    }
}

/// 759 images modelled on the real pack, in a shuffled registration order (the large ones
/// anywhere in it), 110.6 MiB of texels.
pub fn real_like() -> Vec<Asset> {
    let mut sizes: Vec<(u32, u32)> = COMMON.iter().flat_map(|&(s, n)| std::iter::repeat_n(s, n)).collect();
    sizes.extend(LARGE);
    let mut rng = Rng(0x5EED_0759);
    while sizes.len() < 759 {
        sizes.push((rng.range(9, 256), rng.range(9, 256)));
    }
    shuffle(&mut sizes, &mut rng);
    sizes
        .into_iter()
        .enumerate()
        .map(|(i, (w, h))| Asset { desc: TextureDesc::new(w, h), seed: i as u32 + 1 })
        .collect()
}

/// 300 images as a small game has them: 180 icons of 32 or 64 px, 75 odd sizes of 5..200 px,
/// 30 backgrounds of 256..512 px, 15 nearest-filtered pixel-art sprites of 8..48 px.
pub fn game_like() -> Vec<Asset> {
    let mut rng = Rng(0x0300_6A3E);
    let mut descs = Vec::with_capacity(300);
    for i in 0..180 {
        let s = if i % 2 == 0 { 32 } else { 64 };
        descs.push(TextureDesc::new(s, s));
    }
    for _ in 0..75 {
        descs.push(TextureDesc::new(rng.range(5, 200), rng.range(5, 200)));
    }
    for _ in 0..30 {
        descs.push(TextureDesc::new(rng.range(256, 512), rng.range(256, 512)));
    }
    for _ in 0..15 {
        descs.push(TextureDesc::new(rng.range(8, 48), rng.range(8, 48)).with_filter(Filter::Nearest));
    }
    shuffle(&mut descs, &mut rng);
    descs.into_iter().enumerate().map(|(i, desc)| Asset { desc, seed: 10_000 + i as u32 }).collect()
}

fn shuffle<T>(v: &mut [T], rng: &mut Rng) {
    for i in (1..v.len()).rev() {
        let j = rng.below(i as u32 + 1) as usize;
        v.swap(i, j);
    }
}

/// Texel bytes of a set.
pub fn texel_bytes(set: &[Asset]) -> u64 {
    set.iter().map(Asset::bytes).sum()
}
