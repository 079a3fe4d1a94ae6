//! The host textures scene, shared by the native device tests (`tests/host_textures.rs`) and
//! the browser's (`examples/web`): [`COUNT`] host textures of [`SIDE`] texels, more than the 4
//! slots the scene's batcher has, each pushed 4 times, interleaved so that the ladder evicts
//! and flushes; drawn 1:1 with nearest sampling, so the picture is known exactly
//! ([`reference()`]).

use layerbatch_core::{Batcher, Config, Filter, Quad, TextureDesc, TextureId, Usage};

/// The target's size: an 11 x 4 grid of cells.
pub const SIZE: [u32; 2] = [176, 64];
/// Side of each host texture, texels.
pub const SIDE: u32 = 16;
/// Host textures: more than the 4 slots.
pub const COUNT: usize = 10;

/// The batcher's configuration: 4 slots.
pub fn config() -> Config {
    Config::default().with_max_slots(4)
}

/// A host texture's description: [`SIDE`] x [`SIDE`], nearest.
pub fn desc() -> TextureDesc {
    TextureDesc::new(SIDE, SIDE).with_filter(Filter::Nearest).with_usage(Usage::Host)
}

/// Texture `k`'s pixels at version `v`: four quadrants of different colours (so a flip or a
/// mirror shows), every channel distinct per texture and version.
pub fn pattern(k: usize, v: u8) -> Vec<u8> {
    let mut px = Vec::with_capacity((SIDE * SIDE * 4) as usize);
    for y in 0..SIDE {
        for x in 0..SIDE {
            let q = (u8::from(x >= SIDE / 2)) + 2 * u8::from(y >= SIDE / 2);
            let base = (k as u8).wrapping_mul(23).wrapping_add(v.wrapping_mul(71));
            px.extend_from_slice(&[base.wrapping_add(q * 50), 255 - base, q * 60 + v, 255]);
        }
    }
    px
}

/// Rows bottom first: what a host that drew with GL's y-up projection holds.
pub fn bottom_first(px: &[u8]) -> Vec<u8> {
    let row = (SIDE * 4) as usize;
    px.chunks_exact(row).rev().flatten().copied().collect()
}

/// Where quad `i` of a frame goes: an 11 x 4 grid of [`SIDE`] px cells.
pub fn cell(i: usize) -> [u32; 2] {
    [(i % 11) as u32 * SIDE, (i / 11) as u32 * SIDE]
}

/// The order quads are pushed in: every texture 4 times, interleaved so that no 4 slots hold
/// a run (the ladder evicts and flushes).
pub fn order() -> Vec<usize> {
    (0..4 * COUNT).map(|i| (i * 7) % COUNT).collect()
}

/// The picture the frame must show: opaque black, and each quad's texels 1:1, texture `k` at
/// version `versions[k]`.
pub fn reference(versions: &[u8]) -> Vec<u8> {
    let mut img = [0u8, 0, 0, 255].repeat((SIZE[0] * SIZE[1]) as usize);
    for (i, &k) in order().iter().enumerate() {
        let px = pattern(k, versions[k]);
        let [cx, cy] = cell(i);
        for y in 0..SIDE {
            for x in 0..SIDE {
                let at = (((cy + y) * SIZE[0] + cx + x) * 4) as usize;
                let from = ((y * SIDE + x) * 4) as usize;
                img[at..at + 4].copy_from_slice(&px[from..from + 4]);
            }
        }
    }
    img
}

/// Records the frame: every quad of [`order`], texture `k` being `ids[k]`.
///
/// # Errors
/// When the batcher refuses a quad (it does not: the ids are live).
pub fn push_frame(b: &mut Batcher, ids: &[TextureId]) -> Result<(), String> {
    b.begin_frame();
    for (i, &k) in order().iter().enumerate() {
        let [x, y] = cell(i);
        let quad = Quad::rect(ids[k], [x as f32, y as f32], [SIDE as f32, SIDE as f32]);
        b.push(&quad).map_err(|e| format!("push: {e}"))?;
    }
    Ok(())
}
