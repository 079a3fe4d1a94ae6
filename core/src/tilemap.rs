//! Tilemaps over any number of tilesets, drawn by an item a frame (or a row of chunks).
//!
//! A [`TileTable`] maps a tile id to its place: a rectangle of a tileset texture, any of the
//! batcher's textures (tilesets live in the arrays and pages like every texture, so a map
//! may use as many as it likes). A [`Tilemap`] is a grid of tile ids recorded once into a
//! resident layer ([`TextureStore::create_resident`](crate::TextureStore::create_resident)), chunk after chunk, one quad a tile (edge
//! chunks are cut to the map, never padded): [`Tilemap::draw`] draws the chunks the camera
//! sees, whatever the map's size, as one item over the run from the first to the last (one
//! draw call; the device shades whole chunk rows between them), or as one item a row of
//! chunks when that at least halves the tiles shaded ([`Tilemap::draws_rows`]). Its cost a
//! frame on the CPU is an item a row at most, not a tile.
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
//! let sets: Vec<_> = (0..2u8).map(|i| batcher.textures().register(&TextureDesc::new(32, 32), &[i * 90; 32 * 32 * 4])).collect::<Result<_, _>>()?;
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

use std::ops::Range;

use crate::{Batcher, Quad, ResidentError, ResidentId, ResidentStyle, TextureId};

/// A map cut into chunks, and where each tile's quad is in the layer: chunk after chunk, row
/// after row of chunks, each chunk's tiles row after row. A chunk is `chunk` tiles a side, or
/// what remains of the map at its right and bottom edges: the layer holds one quad a tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Grid {
    /// The map, tiles.
    size: [u32; 2],
    /// Chunk side, tiles.
    chunk: u32,
    /// Chunks across and down.
    chunks: [u32; 2],
}

impl Grid {
    fn new(size: [u32; 2], chunk: u32) -> Self {
        Self { size, chunk, chunks: size.map(|v| v.div_ceil(chunk)) }
    }

    /// Tiles in the map.
    fn tiles(&self) -> u64 {
        u64::from(self.size[0]) * u64::from(self.size[1])
    }

    /// Chunk `[cx, cy]`'s width and height, tiles: the chunk side, or what remains of the map.
    fn dims(&self, [cx, cy]: [u32; 2]) -> [u32; 2] {
        let c = self.chunk;
        [c.min(self.size[0] - cx * c), c.min(self.size[1] - cy * c)]
    }

    /// The quad of chunk `[cx, cy]`'s first tile: the rows of chunks above hold `chunk` whole
    /// map rows each, the chunks to its left `chunk` columns of its row's height each.
    fn start(&self, [cx, cy]: [u32; 2]) -> u64 {
        let c = u64::from(self.chunk);
        let height = u64::from(self.dims([cx, cy])[1]);
        u64::from(cy) * c * u64::from(self.size[0]) + u64::from(cx) * c * height
    }

    /// Where quad `q` is, tiles.
    fn tile_of(&self, q: u32) -> [u32; 2] {
        let (q, c, w) = (u64::from(q), u64::from(self.chunk), u64::from(self.size[0]));
        let cy = q / (c * w);
        let height = u64::from(self.dims([0, cy as u32])[1]);
        let rest = q - cy * c * w;
        let cx = rest / (c * height);
        let j = rest - cx * c * height;
        let width = u64::from(self.dims([cx as u32, cy as u32])[0]);
        [(cx * c + j % width) as u32, (cy * c + j / width) as u32]
    }
}

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

    /// The animations: (animated id, its frames, each frame's duration in seconds).
    pub(crate) fn animations(&self) -> impl Iterator<Item = (u32, &[u32], f32)> + '_ {
        self.animations.iter().map(|(id, frames, frame_s)| (*id, &frames[..], *frame_s))
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
    grid: Grid,
    tile_px: f32,
    table: TileTable,
    /// Per animation of the table: its frame shown, and the quad indices of its tiles.
    animated: Vec<(usize, Vec<u32>)>,
    /// The id of each quad of the layer, as made.
    ids: Vec<u32>,
    /// The animations' clock, seconds: `f64`, so that a frame of 1/60 s still counts whole
    /// after years (an `f32` clock ran fast after 3 days and stopped after 6).
    time_s: f64,
}

impl Tilemap {
    /// Records a `size` (`[width, height]` tiles) map of `ids` (row after row; 0 is no tile)
    /// with tiles of `tile_px` pixels, in chunks of `chunk` x `chunk` tiles, into a resident
    /// layer of the batcher.
    ///
    /// **Memory: one quad a tile, whatever the chunk.** A chunk is `chunk` tiles a side, or
    /// what remains of the map at its right and bottom edges (a 1 x 1 map at chunk 1024 is one
    /// quad; a 16384 x 1 map is 16 chunks of 1024 x 1). A tile of id 0 is a quad of no size.
    /// The layer's buffer is `width * height` quads of [`crate::plan::Instance::quad_bytes`]
    /// (64 bytes, 256 with indexed quads) held against the byte budget; core keeps a
    /// [`Quad`] (56 bytes) and an id (4 bytes) a tile, and while the layer is made, a second
    /// copy of the quads. The budget and the device's largest buffer are checked before
    /// anything is allocated for the tiles.
    ///
    /// # Errors
    /// [`TilemapError::Shape`], [`TilemapError::UnknownTile`] for an id outside `table`, or
    /// the resident layer's errors: [`ResidentError::OverBudget`] when `width * height` quads
    /// do not fit the budget beside what is held, [`ResidentError::TooLarge`] past the
    /// device's largest buffer (both before the quads are made), a tileset freed, ...
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
        let grid = Grid::new(size, chunk);
        // Before anything is allocated for the tiles: the layer's buffer must fit.
        check_room(batcher, grid.tiles())?;
        let total = grid.tiles() as usize;
        // A tile of no id is a quad of no size.
        let any = table.tiles.first().map(|t| t.texture);
        let mut quads = Vec::with_capacity(total);
        let mut ids_by_quad = Vec::with_capacity(total);
        for cy in 0..grid.chunks[1] {
            for cx in 0..grid.chunks[0] {
                let [cw, ch] = grid.dims([cx, cy]);
                for y in cy * chunk..cy * chunk + ch {
                    for x in cx * chunk..cx * chunk + cw {
                        let id = ids[y as usize * w as usize + x as usize];
                        ids_by_quad.push(id);
                        quads.push(tile_quad(table, id, [x, y], tile_px, any));
                    }
                }
            }
        }
        let layer = batcher.textures().create_resident(&quads)?;
        let animated = (0..table.animations.len())
            .map(|a| {
                let id = table.animations[a].0;
                let at = ids_by_quad.iter().enumerate().filter(|(_, &t)| t == id).map(|(i, _)| i as u32);
                (0, at.collect())
            })
            .collect();
        let table = table.clone();
        Ok(Self { layer, grid, tile_px, table, animated, ids: ids_by_quad, time_s: 0.0 })
    }

    /// The resident layer holding the tiles.
    pub fn layer(&self) -> ResidentId {
        self.layer
    }

    /// The map's size, tiles.
    pub fn size(&self) -> [u32; 2] {
        self.grid.size
    }

    /// The tiles of the chunks `view_px` (`[x, y, width, height]` in the map's pixels, before
    /// `style.transform`) touches: as quad indices of the layer, the run from the first
    /// such chunk to the last (whole rows of chunks between them). Empty when it touches none.
    pub fn visible_run(&self, view_px: [f32; 4]) -> Range<u32> {
        let Some(([x0, x1], [y0, y1])) = self.touched(view_px) else { return 0..0 };
        // Chunks lie in the layer row of chunks after row: the run ends with the last chunk's
        // tiles. The layer holds at most `u32::MAX` quads ([`Tilemap::new`]).
        let grid = &self.grid;
        let [w, h] = grid.dims([x1, y1]);
        let last = grid.start([x1, y1]) + u64::from(w) * u64::from(h);
        grid.start([x0, y0]) as u32..last as u32
    }

    /// The tiles of the chunks `view_px` touches, a run for each row of chunks: in a row of
    /// chunks the touched ones lie together in the layer. Together they are exactly those
    /// chunks' tiles; none when it touches none.
    pub fn visible_rows(&self, view_px: [f32; 4]) -> impl Iterator<Item = Range<u32>> + '_ {
        let touched = self.touched(view_px);
        let ([x0, x1], rows) = touched.map_or(([0, 0], 1..1), |(xs, [y0, y1])| (xs, y0..y1 + 1));
        let grid = &self.grid;
        rows.map(move |cy| {
            let [w, h] = grid.dims([x1, cy]);
            grid.start([x0, cy]) as u32..(grid.start([x1, cy]) + u64::from(w) * u64::from(h)) as u32
        })
    }

    /// Whether [`Tilemap::draw`] draws `view_px` a row of chunks at a time
    /// ([`Tilemap::visible_rows`]) rather than as one run ([`Tilemap::visible_run`]): when the
    /// rows hold at most half the run's tiles (a view narrower than the map), the device
    /// shades those tiles only, for a draw call a row.
    pub fn draws_rows(&self, view_px: [f32; 4]) -> bool {
        let Some(([x0, x1], [y0, y1])) = self.touched(view_px) else { return false };
        let grid = &self.grid;
        let width = u64::from(x1 - x0) * u64::from(grid.chunk) + u64::from(grid.dims([x1, y0])[0]);
        let height = u64::from(y1 - y0) * u64::from(grid.chunk) + u64::from(grid.dims([x0, y1])[1]);
        let run = self.visible_run(view_px);
        2 * width * height <= u64::from(run.end - run.start)
    }

    /// The runs of the layer [`Tilemap::draw`] draws for `view_px`: [`Tilemap::visible_rows`]
    /// when [`Tilemap::draws_rows`], else [`Tilemap::visible_run`].
    pub fn drawn_runs(&self, view_px: [f32; 4]) -> impl Iterator<Item = Range<u32>> + '_ {
        let rows = self.draws_rows(view_px);
        let run = (!rows).then(|| self.visible_run(view_px));
        run.into_iter().chain(self.visible_rows(view_px).filter(move |_| rows))
    }

    /// The chunks `view_px` touches: `([first, last] across, [first, last] down)`, or `None`.
    fn touched(&self, view_px: [f32; 4]) -> Option<([u32; 2], [u32; 2])> {
        let [x, y, vw, vh] = view_px;
        let grid = &self.grid;
        let chunk_px = self.tile_px * grid.chunk as f32;
        // Chunks along an axis of `tiles` tiles (`n` chunks, the last cut to the map) that
        // `lo..lo + len` touches.
        let span = |lo: f32, len: f32, n: u32, tiles: u32| -> Option<[u32; 2]> {
            let (a, b) = ((lo / chunk_px).floor(), ((lo + len) / chunk_px).ceil() - 1.0);
            if !(a.is_finite() && b.is_finite()) || b < 0.0 || a >= n as f32 || b < a {
                return None;
            }
            if lo >= tiles as f32 * self.tile_px {
                return None; // past the map's edge, in the last chunk's square
            }
            Some([a.max(0.0) as u32, (b as u32).min(n - 1)])
        };
        Some((span(x, vw, grid.chunks[0], grid.size[0])?, span(y, vh, grid.chunks[1], grid.size[1])?))
    }

    /// Draws the chunks `view_px` touches (the map's pixels, before `style.transform`): one
    /// item over their run, or one item a row of chunks when that at least halves the tiles
    /// the device shades ([`Tilemap::draws_rows`]); see [`Batcher::draw_resident_range`].
    /// `Counters::resident_instances_drawn` counts the tiles drawn.
    ///
    /// # Errors
    /// The resident layer's ([`ResidentError::NoFrame`], ...), from the first item: nothing
    /// is drawn then.
    pub fn draw(&self, batcher: &mut Batcher, view_px: [f32; 4], style: &ResidentStyle) -> Result<(), TilemapError> {
        for run in self.drawn_runs(view_px) {
            batcher.draw_resident_range(self.layer, run, style)?;
        }
        Ok(())
    }

    /// Moves the animations `dt_s` seconds on: the tiles of each animation whose frame
    /// changed are rewritten (one range write per run of them). Returns the tiles rewritten.
    /// The clock is an `f64`: steps of 1/60 s keep the animations' rate for millions of years.
    ///
    /// # Errors
    /// The resident layer's (a tileset freed).
    pub fn advance(&mut self, batcher: &mut Batcher, dt_s: f32) -> Result<usize, TilemapError> {
        if dt_s.is_finite() && dt_s > 0.0 {
            self.time_s += f64::from(dt_s);
        }
        let any = self.table.tiles.first().map(|t| t.texture);
        let (grid, tile_px) = (self.grid, self.tile_px);
        let mut written = 0;
        for (a, (shown, at)) in self.animated.iter_mut().enumerate() {
            let (_, frames, frame_s) = &self.table.animations[a];
            let frame = (self.time_s / f64::from(*frame_s)) as usize % frames.len();
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
                let quads: Vec<Quad> =
                    at[start..k].iter().map(|&q| tile_quad(&self.table, id, grid.tile_of(q), tile_px, any)).collect();
                batcher.textures().update_resident(self.layer, at[start], &quads)?;
                written += quads.len();
            }
        }
        Ok(written)
    }

    /// The quads of the tiles [`Tilemap::draw`] draws for `view_px` ([`Tilemap::drawn_runs`]),
    /// drawn as any quads are (a reference for the layer's pixels, and for hosts without
    /// resident layers).
    pub fn quads_in_view(&self, view_px: [f32; 4], out: &mut Vec<Quad>) {
        out.clear();
        let any = self.table.tiles.first().map(|t| t.texture);
        let ids = self.ids_now();
        for q in self.drawn_runs(view_px).flatten() {
            out.push(tile_quad(&self.table, ids(q), self.grid.tile_of(q), self.tile_px, any));
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

/// Whether a layer of `tiles` quads fits the device's largest buffer and the byte budget
/// beside what is held: the checks [`TextureStore::create_resident`] makes, made before the quads
/// are, with the same errors.
fn check_room(batcher: &Batcher, tiles: u64) -> Result<(), ResidentError> {
    let quad_bytes = batcher.budget().quad_bytes();
    let bytes = tiles.saturating_mul(u64::from(quad_bytes));
    let max_buffer_bytes = batcher.limits().max_buffer_bytes;
    if bytes > max_buffer_bytes || tiles > u64::from(u32::MAX) {
        log::debug!("tilemap of {tiles} tiles refused: {bytes} bytes, largest buffer {max_buffer_bytes}");
        let instances = usize::try_from(tiles).unwrap_or(usize::MAX);
        return Err(ResidentError::TooLarge { instances, bytes, quad_bytes, max_buffer_bytes });
    }
    let alloc = batcher.allocator();
    let held_bytes = alloc.allocated_bytes().saturating_add(alloc.retired_bytes()).saturating_add(alloc.buffer_bytes());
    let budget_bytes = alloc.budget_bytes();
    if held_bytes.checked_add(bytes).is_none_or(|t| t > budget_bytes) {
        log::debug!("tilemap of {tiles} tiles refused: {bytes} bytes beside {held_bytes} held, budget {budget_bytes}");
        return Err(ResidentError::OverBudget { requested_bytes: bytes, held_bytes, budget_bytes });
    }
    Ok(())
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
