//! Tilemaps held in proportion to their tiles, refused before anything large is allocated when
//! they cannot be held, drawn right with edge chunks smaller than the chunk, and animated at
//! their rate however long the clock has run. One test per promise; see `docs/resident-layers.md`.

use crate::plan::*;
use crate::tilemap::{TileTable, Tilemap, TilemapError};
use crate::*;

const TILE_PX: f32 = 8.0;
/// Tile ids of the table: one texture each, so the texture an instance samples names its tile.
const KINDS: u32 = 6;

/// `KINDS` tiles, tile `k + 1` the whole of texture `k`.
fn tileset_table(b: &mut Batcher) -> (TileTable, Vec<TextureId>) {
    let mut table = TileTable::new();
    let textures: Vec<TextureId> = (0..KINDS)
        .map(|k| {
            let pixels: Vec<u8> = (0..8 * 8).flat_map(|i: u32| [(k * 40) as u8, i as u8, 255 - k as u8, 255]).collect();
            b.textures().register(&TextureDesc::new(8, 8), &pixels).unwrap()
        })
        .collect();
    for &t in &textures {
        table.push(t, [0.0, 0.0, 8.0, 8.0], [8, 8]);
    }
    (table, textures)
}

/// The map's id at `[x, y]`: some empty tiles (0), the rest of every kind.
fn id_at(x: u32, y: u32) -> u32 {
    if (x * 7 + y * 3 + 5) % 11 == 0 {
        0
    } else {
        1 + (x + 2 * y) % KINDS
    }
}

fn map_ids([w, h]: [u32; 2]) -> Vec<u32> {
    (0..w * h).map(|i| id_at(i % w, i / w)).collect()
}

/// The tiles a view draws, worked out from the chunk grid alone (not from the tilemap's code):
/// every tile of the chunks from the first the view touches to the last, chunk row after
/// chunk row, each chunk clipped to the map. Sorted by `[x, y]`.
fn expected_tiles([w, h]: [u32; 2], chunk: u32, view: [f32; 4], rows: bool) -> Vec<[u32; 2]> {
    let chunk_px = chunk as f32 * TILE_PX;
    let grid = [w.div_ceil(chunk), h.div_ceil(chunk)];
    let span = |lo: f32, len: f32, n: u32| {
        let a = ((lo / chunk_px).floor().max(0.0) as u32).min(n - 1);
        let b = ((((lo + len) / chunk_px).ceil() - 1.0).max(0.0) as u32).min(n - 1);
        (a, b)
    };
    let (x0, x1) = span(view[0], view[2], grid[0]);
    let (y0, y1) = span(view[1], view[3], grid[1]);
    let mut tiles = Vec::new();
    for k in y0 * grid[0] + x0..=y1 * grid[0] + x1 {
        let (cx, cy) = (k % grid[0], k / grid[0]);
        // Drawn a row of chunks at a time: only the chunks the view touches.
        if rows && !(x0..=x1).contains(&cx) {
            continue;
        }
        for y in cy * chunk..((cy + 1) * chunk).min(h) {
            for x in cx * chunk..((cx + 1) * chunk).min(w) {
                tiles.push([x, y]);
            }
        }
    }
    tiles.sort_unstable();
    tiles
}

/// Draws `view` of `map` in one frame through a mock device (whose executor runs the
/// `PlanValidator` every backend runs) and checks, from the plan alone, that the layer holds
/// each tile of the map exactly once (no padding), that the view draws exactly the tiles of
/// its chunks, and that each drawn instance sits at its tile and samples its tile's texture.
fn check_drawn(b: &mut Batcher, map: &Tilemap, chunk: u32, textures: &[TextureId], view: [f32; 4], first_frame: bool) {
    let [w, h] = map.size();
    let layer = map.layer();
    let mut dev = MockDevice::new(b.budget());
    if !first_frame {
        b.restore();
    }
    let len = b.textures().resident_len(layer).unwrap() as usize;
    b.begin_frame();
    map.draw(b, view, &ResidentStyle::default()).unwrap();
    let plan = b.finish();
    // The layer is written whole by the first plan after it is made (or after a restore).
    let mut at: Vec<Option<([u32; 2], bool)>> = vec![None; len];
    for op in &plan.ops {
        if let ResourceOp::Resident(w @ ResidentOp::Write { resident, first, .. }) = op {
            if *resident != layer {
                continue;
            }
            for (k, i) in plan.resident_write_instances(w).iter().enumerate() {
                let tile = [(i.origin[0] / TILE_PX) as u32, (i.origin[1] / TILE_PX) as u32];
                at[*first as usize + k] = Some((tile, i.axis_x != [0.0, 0.0]));
            }
        }
    }
    let mut held: Vec<[u32; 2]> = at.iter().map(|a| a.expect("every quad of the layer written").0).collect();
    held.sort_unstable();
    let all: Vec<[u32; 2]> = (0..w).flat_map(|x| (0..h).map(move |y| [x, y])).collect();
    assert_eq!(held, all, "{w}x{h}: the layer holds each tile of the map once");
    for (q, a) in at.iter().enumerate() {
        let ([x, y], sized) = a.unwrap();
        assert_eq!(sized, id_at(x, y) != 0, "quad {q}: tile [{x}, {y}] is empty exactly when its id is 0");
    }
    // The segments drawing the layer, as quads of it.
    let mut drawn: Vec<usize> = plan
        .segments
        .iter()
        .filter(|s| s.resident == Some(layer))
        .flat_map(|s| s.instances.start as usize..s.instances.end as usize)
        .collect();
    drawn.sort_unstable();
    let run = map.visible_run(view);
    let runs: Vec<usize> = map.drawn_runs(view).flat_map(|r| r.start as usize..r.end as usize).collect();
    assert_eq!(drawn, runs, "the runs are what is drawn");
    let mut drawn_tiles: Vec<[u32; 2]> = drawn.iter().map(|&q| at[q].unwrap().0).collect();
    drawn_tiles.sort_unstable();
    let want = expected_tiles([w, h], chunk, view, map.draws_rows(view));
    assert_eq!(drawn_tiles, want, "{w}x{h}, view {view:?}: the view's chunks");
    dev.execute(plan).unwrap();
    let sampled = dev.resident_sampled(layer);
    // Recorded up to the last instance drawn.
    assert_eq!(sampled.len(), run.end as usize);
    for &q in &drawn {
        let ([x, y], _) = at[q].unwrap();
        let id = id_at(x, y);
        if id != 0 {
            assert_eq!(sampled[q].map(|s| s.0), Some(textures[id as usize - 1]), "quad {q}: tile [{x}, {y}]");
        }
    }
    for (q, s) in sampled.iter().enumerate() {
        assert!(s.is_none() || run.contains(&(q as u32)), "quad {q}: sampled only when drawn");
    }
}

#[test]
fn tilemap_holds_one_quad_per_tile_without_padding() {
    // The three maps of the review, and two whose edge chunks are partial along both axes.
    for size in [[1u32, 1], [4096, 1], [1024, 1024], [1000, 37], [37, 1000]] {
        for chunk in [16u32, 1024] {
            // Pixels kept: the second view's plan restores the device, re-uploading them.
            let mut b = Batcher::new(Limits::desktop(), Config::default().with_keep_pixels(true)).unwrap();
            let (table, textures) = tileset_table(&mut b);
            let before = b.textures().resident_bytes();
            let map = Tilemap::new(&mut b, &table, size, TILE_PX, chunk, &map_ids(size)).unwrap();
            let tiles = u64::from(size[0]) * u64::from(size[1]);
            let quads = u64::from(b.textures().resident_len(map.layer()).unwrap());
            let host_bytes = quads * std::mem::size_of::<Quad>() as u64;
            let device_bytes = b.textures().resident_bytes() - before;
            eprintln!(
                "tilemap {}x{} chunk {chunk}: {quads} quads, host {host_bytes} bytes (Vec<Quad>), device {device_bytes} \
                 bytes",
                size[0], size[1]
            );
            assert_eq!(quads, tiles, "{size:?} chunk {chunk}: one quad per tile");
            assert_eq!(device_bytes, tiles * u64::from(b.budget().quad_bytes()));
            // A view of the last tile (the bottom-right edge chunk), then one over the middle
            // of the map spanning chunk rows and columns.
            let [wp, hp] = size.map(|v| v as f32 * TILE_PX);
            let edge = [wp - 1.5 * TILE_PX, hp - 1.5 * TILE_PX, TILE_PX, TILE_PX];
            check_drawn(&mut b, &map, chunk, &textures, edge, true);
            let middle = [wp * 0.3, hp * 0.3, wp * 0.4 + 1.0, hp * 0.4 + 1.0];
            check_drawn(&mut b, &map, chunk, &textures, middle, false);
            // A view past the map draws nothing; one over all of it, every tile.
            assert_eq!(map.visible_run([wp + 1.0, 0.0, 10.0, 10.0]), 0..0);
            assert_eq!(map.visible_run([-1.0, -1.0, wp + 2.0, hp + 2.0]), 0..tiles as u32);
        }
    }
}

#[test]
fn a_huge_thin_tilemap_is_held_in_proportion_or_refused_before_allocating() {
    // 64 KiB of ids. Padded to 1024 x 1024 chunks it was 16,777,216 quads: 1 GiB of device
    // buffer, refused by the budget only after 1.86 GiB of host quads were made.
    let mut b = Batcher::new(Limits::desktop(), Config::default()).unwrap();
    let (table, textures) = tileset_table(&mut b);
    let size = [16384, 1];
    let map = Tilemap::new(&mut b, &table, size, TILE_PX, 1024, &map_ids(size)).unwrap();
    let quads = b.textures().resident_len(map.layer()).unwrap();
    eprintln!(
        "tilemap 16384x1 chunk 1024: {quads} quads, host {} bytes, device {} bytes",
        quads as usize * std::mem::size_of::<Quad>(),
        b.textures().resident_bytes()
    );
    assert_eq!(quads, 16384);
    assert_eq!(b.textures().resident_bytes(), 16384 * u64::from(b.budget().quad_bytes()));
    // 16 chunks of 1024 x 1: the last tile's view draws the last chunk, 1024 quads.
    assert_eq!(map.visible_run([16383.5 * TILE_PX, 0.0, 1.0, 1.0]), 15 * 1024..16384);
    check_drawn(&mut b, &map, 1024, &textures, [16383.5 * TILE_PX, 0.0, 1.0, 1.0], true);
}

#[test]
fn a_tilemap_past_the_budget_or_the_largest_buffer_is_refused_before_allocating() {
    // 512 x 512 tiles at 64 bytes a quad (instanced): 16 MiB, over a budget of 8 MiB.
    let size = [512u32, 512];
    let tiles = 512 * 512u64;
    let config = Config { budget_bytes: 8 << 20, ..Config::default() };
    let mut b = Batcher::new(Limits::desktop(), config).unwrap();
    let (table, _) = tileset_table(&mut b);
    let quad_bytes = b.budget().quad_bytes();
    let held = b.allocator().allocated_bytes() + b.allocator().retired_bytes() + b.allocator().buffer_bytes();
    for chunk in [16, 1024] {
        let e = Tilemap::new(&mut b, &table, size, TILE_PX, chunk, &map_ids(size)).unwrap_err();
        assert_eq!(
            e,
            TilemapError::Resident(ResidentError::OverBudget {
                requested_bytes: tiles * u64::from(quad_bytes),
                held_bytes: held,
                budget_bytes: 8 << 20,
            }),
            "chunk {chunk}"
        );
        assert_eq!(b.textures().resident_bytes(), 0, "nothing held");
        assert_eq!(b.allocator().buffer_bytes(), 0);
    }
    // A map that fits the budget but not the device's largest buffer (4 MiB).
    let limits = Limits::desktop().with_max_buffer_bytes(4 << 20);
    let mut b = Batcher::new(limits, Config::default()).unwrap();
    let (table, _) = tileset_table(&mut b);
    for chunk in [16, 1024] {
        let e = Tilemap::new(&mut b, &table, size, TILE_PX, chunk, &map_ids(size)).unwrap_err();
        assert_eq!(
            e,
            TilemapError::Resident(ResidentError::TooLarge {
                instances: tiles as usize,
                bytes: tiles * u64::from(quad_bytes),
                quad_bytes,
                max_buffer_bytes: 4 << 20,
            }),
            "chunk {chunk}"
        );
        assert!(e.to_string().contains("largest buffer"), "{e}");
        assert_eq!(b.textures().resident_bytes(), 0);
    }
    // Just inside both: held.
    let size = [256u32, 256];
    let map = Tilemap::new(&mut b, &table, size, TILE_PX, 1024, &map_ids(size)).unwrap();
    assert_eq!(b.textures().resident_bytes(), 256 * 256 * u64::from(quad_bytes));
    assert_eq!(b.textures().resident_len(map.layer()).unwrap(), 256 * 256);
}

#[test]
fn tilemap_animation_keeps_its_rate_after_seven_days() {
    // Tile 1 animates through tiles 1, 2, 3, a quarter second each; the map shows it once.
    let mut b = Batcher::new(Limits::desktop(), Config::default()).unwrap();
    let (mut table, textures) = tileset_table(&mut b);
    table.animate(1, &[1, 2, 3], 0.25).unwrap();
    let mut map = Tilemap::new(&mut b, &table, [2, 1], TILE_PX, 16, &[1, 4]).unwrap();
    let dt = 1.0f32 / 60.0;
    // Seven days at 60 frames a second, through the real code path: every call advances the
    // clock and rewrites the tile when its frame changes (the layer is not written to a
    // device until a plan is made, so the rewrites queue nothing).
    let frames_7_days = 7 * 24 * 3600 * 60u64;
    let mut rewritten = 0u64;
    for _ in 0..frames_7_days {
        rewritten += map.advance(&mut b, dt).unwrap() as u64;
    }
    // 0.25 s frames: 4 changes a second, over 604,800 s (the host's 1/60 as an f32 is
    // 1/60 * (1 + 2e-8): the clock stays within a frame of it).
    let expected = 604_800 * 4u64;
    assert!(rewritten.abs_diff(expected) <= 1, "{rewritten} frame changes in 7 days, expected {expected}");
    // At day 7, thousands more frames: still 4 changes a second, and each reaches the device.
    let mut dev = MockDevice::new(b.budget());
    let mut changes = 0u64;
    let mut written = 0u64;
    for f in 0..6000u32 {
        changes += map.advance(&mut b, dt).unwrap() as u64;
        if f % 60 == 59 {
            b.begin_frame();
            map.draw(&mut b, [0.0, 0.0, 16.0, 8.0], &ResidentStyle::default()).unwrap();
            dev.execute(b.finish()).unwrap();
            written += b.plan().counters.resident_instances_written;
        }
    }
    assert!(changes.abs_diff(400) <= 1, "{changes} frame changes in 100 s at day 7, expected 400");
    // The first plan writes the 2-tile layer whole; each change after it, one instance.
    assert!(written >= 2 + changes - 4, "{written} instances written for {changes} changes");
    // The tile shows the frame its clock says: frame (t / 0.25) mod 3 of 1, 2, 3.
    let t = (frames_7_days + 6000) as f64 * f64::from(dt);
    let frame = (t / 0.25) as usize % 3;
    let mut quads = Vec::new();
    map.quads_in_view([0.0, 0.0, 16.0, 8.0], &mut quads);
    assert_eq!(quads.len(), 2);
    assert_eq!(quads[0].texture, textures[frame], "at {t} s the tile shows frame {frame}");
    assert_eq!(quads[1].texture, textures[3], "the other tile never changes");
}
