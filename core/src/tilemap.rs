//! Tilemaps over any number of tilesets, drawn by one item a frame.
//!
//! A [`TileTable`] maps a tile id to its place: a rectangle of a tileset texture, any of the
//! batcher's textures (tilesets live in the arrays and pages like every texture, so a map
//! may use as many as it likes). A [`Tilemap`] is a grid of tile ids recorded once into a
//! resident layer ([`Batcher::create_resident`]), chunk after chunk: [`Tilemap::draw`] draws
//! the run of chunks from the first the camera sees to the last, in one draw call, whatever
//! the map's size. Its cost a frame on the CPU is one item, not a tile; the device shades the
//! run's tiles (whole chunk rows of the map between the first visible chunk and the last).
//!
//! Animated tiles follow a frame table ([`TileTable::animate`]): when a frame changes,
//! [`Tilemap::advance`] rewrites the instances of the tiles showing that animation (a range
//! write each run of them), never the map.
//!
//! ```
//! use layerbatch_core::tilemap::{TileTable, Tilemap};
//! use layerbatch_core::{Batcher, Config, Limits, MockDevice, TextureDesc};
//! let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default())?;
//! // Two tilesets of 2 x 2 tiles of 16 px.
//! let sets: Vec<_> = (0..2u8).map(|i| batcher.register(&TextureDesc::new(32, 32), &[i * 90; 32 * 32 * 4])).collect::<Result<_, _>>()?;
//! let mut table = TileTable::new();
//! for &set in &sets {
//!     for k in 0..4 {
//!         table.push(set, [(k % 2) as f32 * 16.0, (k / 2) as f32 * 16.0, 16.0, 16.0], [32, 32]);
//!     }
//! }
//! let ids: Vec<u32> = (0..64 * 64).map(|i| 1 + i % 8).collect(); // 0 is "no tile"
//! let mut map = Tilemap::new(&mut batcher, &table, [64, 64], 16.0, 16, &ids)?;
//! let mut device = MockDevice::new(batcher.budget());
//! batcher.begin_frame();
//! map.draw(&mut batcher, [0.0, 0.0, 320.0, 180.0], &Default::default())?;
//! device.execute(batcher.finish())?;
//! assert_eq!(device.frame_counters().draw_calls, 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::{Batcher, Quad, ResidentError, ResidentId, ResidentStyle, TextureId};

/// One tile's place: a rectangle of a tileset.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TileDef {
    /// The tileset.
    pub texture: TextureId,
    /// Its `[u0, v0, u1, v1]` in the tileset, `0..1`.
    pub uv: [f32; 4],
}

/// Tile ids to places, and animations. Id 0 is "no tile"; [`TileTable::push`] gives 1, 2, ...
#[derive(Clone, Debug, Default)]
pub struct TileTable {
    tiles: Vec<TileDef>,
    /// Per animated id: its frames (tile ids) and each frame's duration.
    animations: Vec<(u32, Vec<u32>, f32)>,
}

impl TileTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a tile: `rect_px` `[x, y, width, height]` of `tileset`, a texture of
    /// `tileset_px`. Returns its id (1 for the first).
    pub fn push(&mut self, tileset: TextureId, rect_px: [f32; 4], tileset_px: [u32; 2]) -> u32 {
        let [x, y, w, h] = rect_px;
        let [tw, th] = tileset_px.map(|v| v.max(1) as f32);
        self.tiles.push(TileDef { texture: tileset, uv: [x / tw, y / th, (x + w) / tw, (y + h) / th] });
        self.tiles.len() as u32
    }

    /// Tiles in the table (the largest id).
    pub fn len(&self) -> usize {
        self.tiles.len()
    }

    /// Whether the table has no tile.
    pub fn is_empty(&self) -> bool {
        self.tiles.is_empty()
    }

    /// A tile's place; `None` for 0 and ids past the table.
    pub fn get(&self, id: u32) -> Option<&TileDef> {
        id.checked_sub(1).and_then(|i| self.tiles.get(i as usize))
    }

    /// Animates tile `id`: maps showing it show `frames` (tile ids) in turn, each for
    /// `frame_s` seconds ([`Tilemap::advance`]).
    ///
    /// # Errors
    /// [`TilemapError::UnknownTile`] for an id or frame outside the table, or no frames.
    pub fn animate(&mut self, id: u32, frames: &[u32], frame_s: f32) -> Result<(), TilemapError> {
        let tiles = self.tiles.len();
        for &t in std::iter::once(&id).chain(frames) {
            if self.get(t).is_none() {
                return Err(TilemapError::UnknownTile { at: [0, 0], id: t, tiles });
            }
        }
        if frames.is_empty() || !frame_s.is_finite() || frame_s <= 0.0 {
            return Err(TilemapError::UnknownTile { at: [0, 0], id, tiles });
        }
        self.animations.retain(|a| a.0 != id);
        self.animations.push((id, frames.to_vec(), frame_s));
        Ok(())
    }
}

/// Why a tilemap could not be made or drawn.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum TilemapError {
    /// A tile id that is not 0 and not in the table.
    #[error("tile {at:?} has id {id}; the table has tiles 1..={tiles} (0: no tile)")]
    UnknownTile {
        /// Its `[x, y]` in the map, tiles.
        at: [u32; 2],
        /// The id.
        id: u32,
        /// Tiles in the table.
        tiles: usize,
    },
    /// The ids are not `width x height`, the map or its chunks are empty, chunks are over
    /// 1024 tiles a side, or the tile size is not a positive number.
    #[error("a {width}x{height} map of {chunk}-tile chunks with {ids} ids")]
    Shape {
        /// Width, tiles.
        width: u32,
        /// Height, tiles.
        height: u32,
        /// Chunk side, tiles.
        chunk: u32,
        /// Ids given.
        ids: usize,
    },
    /// The resident layer's.
    #[error(transparent)]
    Resident(#[from] ResidentError),
}

/// A grid of tiles in a resident layer, chunk after chunk; see the [module](self).
#[derive(Clone, Debug)]
pub struct Tilemap {
    layer: ResidentId,
    size: [u32; 2],
    tile_px: f32,
    chunk: u32,
    chunks: [u32; 2],
    table: TileTable,
    /// Per animation of the table: its frame shown, and the quad indices of its tiles.
    animated: Vec<(usize, Vec<u32>)>,
    /// The id of each quad of the layer, as made (0 past the map's edge).
    ids: Vec<u32>,
    time_s: f32,
}

impl Tilemap {
    /// Records a `size` (`[width, height]` tiles) map of `ids` (row after row; 0 is no tile)
    /// with tiles of `tile_px` pixels, in chunks of `chunk` x `chunk` tiles, into a resident
    /// layer of the batcher.
    ///
    /// # Errors
    /// [`TilemapError::Shape`], [`TilemapError::UnknownTile`] for an id outside `table`, or
    /// the resident layer's errors (a tileset freed, the budget, the device's largest buffer).
    /// Nothing is recorded then.
    pub fn new(
        batcher: &mut Batcher,
        table: &TileTable,
        size: [u32; 2],
        tile_px: f32,
        chunk: u32,
        ids: &[u32],
    ) -> Result<Self, TilemapError> {
        let [w, h] = size;
        let shape = TilemapError::Shape { width: w, height: h, chunk, ids: ids.len() };
        if w == 0 || h == 0 || chunk == 0 || ids.len() as u64 != u64::from(w) * u64::from(h) {
            return Err(shape);
        }
        // A chunk's tiles are counted in u32, and a map's in the device's buffer.
        if !tile_px.is_finite() || tile_px <= 0.0 || chunk > 1024 {
            return Err(shape);
        }
        if table.is_empty() {
            return Err(TilemapError::UnknownTile { at: [0, 0], id: 1, tiles: 0 });
        }
        for (i, &id) in ids.iter().enumerate() {
            if id != 0 && table.get(id).is_none() {
                let at = [(i % w as usize) as u32, (i / w as usize) as u32];
                return Err(TilemapError::UnknownTile { at, id, tiles: table.len() });
            }
        }
        let chunks = [w.div_ceil(chunk), h.div_ceil(chunk)];
        let per_chunk = chunk as usize * chunk as usize;
        let total = chunks[0] as usize * chunks[1] as usize * per_chunk;
        // A tile of no id, or past the map's edge in an edge chunk, is a quad of no size.
        let any = table.tiles.first().map(|t| t.texture);
        let mut quads = Vec::with_capacity(total);
        let mut ids_by_quad = Vec::with_capacity(total);
        for k in 0..chunks[0] as usize * chunks[1] as usize {
            let (cx, cy) = (k as u32 % chunks[0], k as u32 / chunks[0]);
            for j in 0..per_chunk as u32 {
                let (x, y) = (cx * chunk + j % chunk, cy * chunk + j / chunk);
                let id = if x < w && y < h { ids[(y * w + x) as usize] } else { 0 };
                ids_by_quad.push(id);
                quads.push(tile_quad(table, id, [x, y], tile_px, any));
            }
        }
        let layer = batcher.create_resident(&quads)?;
        let animated = (0..table.animations.len())
            .map(|a| {
                let id = table.animations[a].0;
                let at = ids_by_quad.iter().enumerate().filter(|(_, &t)| t == id).map(|(i, _)| i as u32);
                (0, at.collect())
            })
            .collect();
        let table = table.clone();
        Ok(Self { layer, size, tile_px, chunk, chunks, table, animated, ids: ids_by_quad, time_s: 0.0 })
    }

    /// The resident layer holding the tiles.
    pub fn layer(&self) -> ResidentId {
        self.layer
    }

    /// The map's size, tiles.
    pub fn size(&self) -> [u32; 2] {
        self.size
    }

    /// The tiles of the chunks `view_px` (`[x, y, width, height]` in the map's pixels, before
    /// `style.transform`) touches: as quad indices of the layer, the run from the first
    /// such chunk to the last. Empty when it touches none.
    pub fn visible_run(&self, view_px: [f32; 4]) -> std::ops::Range<u32> {
        let [x, y, vw, vh] = view_px;
        let chunk_px = self.tile_px * self.chunk as f32;
        let span = |lo: f32, len: f32, n: u32| -> Option<(u32, u32)> {
            let (a, b) = ((lo / chunk_px).floor(), ((lo + len) / chunk_px).ceil() - 1.0);
            if !(a.is_finite() && b.is_finite()) || b < 0.0 || a >= n as f32 || b < a {
                return None;
            }
            Some((a.max(0.0) as u32, (b as u32).min(n - 1)))
        };
        let (Some((x0, x1)), Some((y0, y1))) = (span(x, vw, self.chunks[0]), span(y, vh, self.chunks[1])) else {
            return 0..0;
        };
        let per_chunk = self.chunk * self.chunk;
        let first = (y0 * self.chunks[0] + x0) * per_chunk;
        let last = (y1 * self.chunks[0] + x1 + 1) * per_chunk;
        first..last
    }

    /// Draws the chunks `view_px` touches (the map's pixels, before `style.transform`) in
    /// one item; see [`Batcher::draw_resident_range`].
    ///
    /// # Errors
    /// The resident layer's ([`ResidentError::NoFrame`], ...).
    pub fn draw(&self, batcher: &mut Batcher, view_px: [f32; 4], style: &ResidentStyle) -> Result<(), TilemapError> {
        Ok(batcher.draw_resident_range(self.layer, self.visible_run(view_px), style)?)
    }

    /// Moves the animations `dt_s` seconds on: the tiles of each animation whose frame
    /// changed are rewritten (one range write per run of them). Returns the tiles rewritten.
    ///
    /// # Errors
    /// The resident layer's (a tileset freed).
    pub fn advance(&mut self, batcher: &mut Batcher, dt_s: f32) -> Result<usize, TilemapError> {
        if dt_s.is_finite() && dt_s > 0.0 {
            self.time_s += dt_s;
        }
        let any = self.table.tiles.first().map(|t| t.texture);
        let (chunk, chunks, tile_px) = (self.chunk, self.chunks, self.tile_px);
        let mut written = 0;
        for (a, (shown, at)) in self.animated.iter_mut().enumerate() {
            let (_, frames, frame_s) = &self.table.animations[a];
            let frame = (self.time_s / frame_s) as usize % frames.len();
            if frame == *shown || at.is_empty() {
                continue;
            }
            *shown = frame;
            let id = frames[frame];
            let mut k = 0;
            while k < at.len() {
                // A run of consecutive quads: one write.
                let start = k;
                while k + 1 < at.len() && at[k + 1] == at[k] + 1 {
                    k += 1;
                }
                k += 1;
                let quads: Vec<Quad> = at[start..k]
                    .iter()
                    .map(|&q| tile_quad(&self.table, id, tile_of(chunk, chunks, q), tile_px, any))
                    .collect();
                batcher.update_resident(self.layer, at[start], &quads)?;
                written += quads.len();
            }
        }
        Ok(written)
    }

    /// The quads of the tiles `view_px` touches, drawn as any quads are (a reference for the
    /// layer's pixels, and for hosts without resident layers).
    pub fn quads_in_view(&self, view_px: [f32; 4], out: &mut Vec<Quad>) {
        out.clear();
        let any = self.table.tiles.first().map(|t| t.texture);
        let ids = self.ids_now();
        for q in self.visible_run(view_px) {
            let [x, y] = tile_of(self.chunk, self.chunks, q);
            if x < self.size[0] && y < self.size[1] {
                out.push(tile_quad(&self.table, ids(q), [x, y], self.tile_px, any));
            }
        }
    }

    /// The id each quad shows now (its animation's frame).
    fn ids_now(&self) -> impl Fn(u32) -> u32 + '_ {
        |q| {
            for (a, (shown, at)) in self.animated.iter().enumerate() {
                if at.binary_search(&q).is_ok() {
                    return self.table.animations[a].1[*shown];
                }
            }
            self.ids[q as usize]
        }
    }
}

/// Where quad `q` of a map of `chunks` chunks of `chunk` x `chunk` tiles is, tiles.
fn tile_of(chunk: u32, chunks: [u32; 2], q: u32) -> [u32; 2] {
    let per_chunk = chunk * chunk;
    let (k, j) = (q / per_chunk, q % per_chunk);
    let (cx, cy) = (k % chunks[0], k / chunks[0]);
    [cx * chunk + j % chunk, cy * chunk + j / chunk]
}

/// Tile `id`'s quad at `[x, y]` tiles: a quad of no size for id 0 (of texture `any`, which
/// every map has).
fn tile_quad(table: &TileTable, id: u32, [x, y]: [u32; 2], tile_px: f32, any: Option<TextureId>) -> Quad {
    let pos = [x as f32 * tile_px, y as f32 * tile_px];
    match (table.get(id), any) {
        (Some(t), _) => Quad::rect(t.texture, pos, [tile_px, tile_px]).with_uv(t.uv),
        (None, Some(any)) => Quad::rect(any, pos, [0.0, 0.0]),
        (None, None) => Quad::rect(TextureId { index: 0, generation: 0, batcher: 0 }, pos, [0.0, 0.0]),
    }
}
