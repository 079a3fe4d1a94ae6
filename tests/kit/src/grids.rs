//! The tile grid scene of the native, browser and bench runs: `sets` tilesets of 4 x 4 tiles of
//! 16 px (each its own picture), a grid of cells over them with every `gap`-th cell empty, and
//! each tile's quad made here from the table's layout (not by the grid under test).

use layerbatch_core::tilemap::TileTable;
use layerbatch_core::{Batcher, Quad, TextureDesc, TextureId};

use crate::scene::texture_pixels;

/// A tile's side, pixels.
pub const TILE_PX: f32 = 16.0;

/// `sets` tilesets of 64 x 64 texels, 16 tiles each: tile id `1 + 16 s + k` is tile `k` of set
/// `s`.
///
/// # Errors
/// A tileset the batcher refuses.
pub fn tilesets(b: &mut Batcher, sets: usize) -> Result<(TileTable, Vec<TextureId>), String> {
    let mut table = TileTable::new();
    let mut ids = Vec::new();
    for s in 0..sets {
        let set = b.textures().register(&TextureDesc::new(64, 64), &texture_pixels(s, 64, 64));
        let set = set.map_err(|e| format!("tileset {s}: {e}"))?;
        for k in 0..16 {
            table.push(set, [(k % 4) as f32 * 16.0, (k / 4) as f32 * 16.0, 16.0, 16.0], [64, 64]);
        }
        ids.push(set);
    }
    Ok((table, ids))
}

/// A `side` x `side` grid over `tiles` tile ids, every `gap`-th cell empty.
pub fn cells(side: u32, tiles: u32, gap: u32) -> Vec<u32> {
    (0..side * side).map(|i| if i % gap == 0 { 0 } else { 1 + (i * 7 + i / side * 3) % tiles }).collect()
}

/// Tile `id` at cell `[x, y]`: the quad of its tileset's rectangle there.
pub fn tile_quad(sets: &[TextureId], id: u32, [x, y]: [u32; 2]) -> Quad {
    let (s, k) = ((id - 1) / 16, (id - 1) % 16);
    let (u, v) = ((k % 4) as f32 * 0.25, (k / 4) as f32 * 0.25);
    let at = [x as f32 * TILE_PX, y as f32 * TILE_PX];
    Quad::rect(sets[s as usize], at, [TILE_PX, TILE_PX]).with_uv([u, v, u + 0.25, v + 0.25])
}

/// The quads of the non-empty cells of `[x0, y0, x1, y1]` of a grid `side` wide.
pub fn tiles_under(ids: &[u32], side: u32, sets: &[TextureId], [x0, y0, x1, y1]: [u32; 4]) -> Vec<Quad> {
    let mut out = Vec::new();
    for y in y0..y1 {
        for x in x0..x1 {
            let id = ids[(y * side + x) as usize];
            if id != 0 {
                out.push(tile_quad(sets, id, [x, y]));
            }
        }
    }
    out
}
