//! Tilemaps through the mock device: a 1024 x 1024 map over 8 tilesets drawn beside the
//! sprites, a draw a row of the chunks in view, the same texels as its tiles pushed as quads;
//! the chunks drawn are exactly those a view touches (against every chunk tested on its own),
//! a view as wide as the map is one draw, and a 1920 x 1080 view draws 1.07x the tiles
//! it shows at chunks of 4; animation by rewriting only the animated tiles, and bad ids
//! refused.

use crate::tilemap::{TileTable, Tilemap, TilemapError};
use crate::*;

/// 8 tilesets of 8 x 8 tiles of 16 px: 512 tiles.
fn tilesets(b: &mut Batcher) -> TileTable {
    let mut table = TileTable::new();
    for s in 0..8u32 {
        let pixels: Vec<u8> =
            (0..128 * 128).flat_map(|i: u32| [(s * 30) as u8, (i % 251) as u8, (i / 128) as u8, 255]).collect();
        let set = b.textures().register(&TextureDesc::new(128, 128), &pixels).unwrap();
        for k in 0..64 {
            table.push(set, [(k % 8) as f32 * 16.0, (k / 8) as f32 * 16.0, 16.0, 16.0], [128, 128]);
        }
    }
    table
}

fn ids(size: u32) -> Vec<u32> {
    (0..size * size).map(|i| if i % 97 == 0 { 0 } else { 1 + (i * 7 + i / size) % 512 }).collect()
}

#[test]
fn a_big_map_over_eight_tilesets_draws_the_chunks_in_view_beside_the_sprites() {
    let mut b = Batcher::new(Limits::desktop(), Config::default().with_keep_pixels(true)).unwrap();
    let table = tilesets(&mut b);
    let sprite = b.textures().register(&TextureDesc::new(20, 20), &[200; 20 * 20 * 4]).unwrap();
    let map = Tilemap::new(&mut b, &table, [1024, 1024], 16.0, 32, &ids(1024)).unwrap();
    let mut dev = MockDevice::new(b.budget());
    let view = [5000.0, 7000.0, 1280.0, 720.0];
    for frame in 0..3 {
        b.begin_frame();
        map.draw(&mut b, view, &ResidentStyle::default().with_transform(Affine2::translation(-5000.0, -7000.0)))
            .unwrap();
        for i in 0..100 {
            b.push(&Quad::rect(sprite, [i as f32 * 10.0, 50.0], [20.0, 20.0])).unwrap();
        }
        let plan = b.finish();
        // 4 x 3 chunks of 32 x 32 tiles touched, in 3 rows: a draw each, not the 68 chunks
        // from the first to the last.
        assert_eq!(plan.counters.resident_instances_drawn, 4 * 3 * 32 * 32);
        dev.execute(plan).unwrap();
        let c = dev.frame_counters();
        assert_eq!(c.draw_calls, 3 + 1, "{c:?}");
        if frame > 0 {
            assert_eq!(c.resident_bytes_written, 0);
        }
    }
    assert!(map.draws_rows(view));
    // The run from the first chunk seen to the last: 3 chunk rows, as quads of the layer.
    let run = map.visible_run(view);
    let seen = map.visible_run([5000.0, 7000.0, 1.0, 1.0]);
    assert_eq!(seen.len(), 32 * 32, "a point sees one chunk");
    assert!(run.len() <= 4 * 32 * 32 * 32, "{run:?}");
    // The same texels as the tiles pushed.
    let mut quads = Vec::new();
    map.quads_in_view(view, &mut quads);
    let drawn: Vec<_> = dev.resident_sampled(map.layer())[run.start as usize..run.end as usize]
        .iter()
        .copied()
        .filter(Option::is_some)
        .collect();
    let mut reference = MockDevice::new(b.budget());
    b.restore();
    b.begin_frame();
    b.push_all(&quads).unwrap();
    reference.execute(b.finish()).unwrap();
    let pushed: Vec<_> = reference.sampled().iter().copied().filter(Option::is_some).collect();
    assert_eq!(drawn.len(), pushed.len());
    assert_eq!(drawn, pushed);
}

#[test]
fn animated_tiles_rewrite_only_themselves_and_bad_ids_are_refused() {
    let mut b = Batcher::new(Limits::desktop(), Config::default()).unwrap();
    let mut table = tilesets(&mut b);
    table.animate(5, &[5, 6, 7], 0.25).unwrap();
    assert!(matches!(table.animate(5, &[600], 0.25), Err(TilemapError::UnknownTile { id: 600, tiles: 512, .. })));
    let mut map_ids = vec![1u32; 64 * 64];
    for i in (0..64 * 64).step_by(50) {
        map_ids[i] = 5;
    }
    let animated = map_ids.iter().filter(|&&i| i == 5).count();
    let mut map = Tilemap::new(&mut b, &table, [64, 64], 16.0, 16, &map_ids).unwrap();
    let mut dev = MockDevice::new(b.budget());
    b.begin_frame();
    dev.execute(b.finish()).unwrap();
    assert_eq!(map.advance(&mut b, 0.1).unwrap(), 0, "the same frame");
    assert_eq!(map.advance(&mut b, 0.2).unwrap(), animated);
    b.begin_frame();
    map.draw(&mut b, [0.0, 0.0, 1024.0, 1024.0], &ResidentStyle::default()).unwrap();
    dev.execute(b.finish()).unwrap();
    assert_eq!(dev.frame_counters().resident_bytes_written, animated as u64 * 64, "only the animated tiles");
    // An id past the table, and a map of the wrong shape.
    map_ids[77] = 513;
    let e = Tilemap::new(&mut b, &table, [64, 64], 16.0, 16, &map_ids).unwrap_err();
    assert_eq!(e, TilemapError::UnknownTile { at: [13, 1], id: 513, tiles: 512 });
    let e = Tilemap::new(&mut b, &table, [64, 63], 16.0, 16, &map_ids).unwrap_err();
    assert!(matches!(e, TilemapError::Shape { .. }), "{e}");
    assert_eq!(map.visible_run([-500.0, -500.0, 10.0, 10.0]), 0..0, "nothing seen");
}

/// Whether `lo..lo + len` meets the chunk square `start..start + size` (open: a view that
/// ends where a chunk starts does not touch it).
fn meets(lo: f32, len: f32, start: f32, size: f32) -> bool {
    lo < start + size && lo + len > start
}

#[test]
fn the_chunks_drawn_are_exactly_those_a_view_touches() {
    let mut b = Batcher::new(Limits::desktop(), Config::default()).unwrap();
    let set = b.textures().register(&TextureDesc::new(8, 8), &[90; 8 * 8 * 4]).unwrap();
    let mut table = TileTable::new();
    table.push(set, [0.0, 0.0, 8.0, 8.0], [8, 8]);
    let mut rng = crate::test_rng::Rng(45);
    let tile = 8.0;
    let mut rows_seen = 0;
    for _ in 0..300 {
        let size = [1 + rng.below(40) as u32, 1 + rng.below(40) as u32];
        let chunk = 1 + rng.below(9) as u32;
        let map = Tilemap::new(&mut b, &table, size, tile, chunk, &vec![1; (size[0] * size[1]) as usize]).unwrap();
        // Where each quad's tile is, from the layer itself (quads are recorded in their place).
        let mut quads = Vec::new();
        map.quads_in_view([0.0, 0.0, size[0] as f32 * tile, size[1] as f32 * tile], &mut quads);
        assert_eq!(quads.len() as u32, size[0] * size[1], "the whole map in view draws every tile");
        for _ in 0..20 {
            let mut at =
                |n: u32| rng.below(u64::from(n) * 10 + 20) as f32 - 10.0 + [0.0, 0.5, 0.25][rng.below(3) as usize];
            let (x, y) = (at(size[0]), at(size[1]));
            let view = [x, y, rng.below(200) as f32, rng.below(200) as f32];
            // Every chunk tested on its own: touched when the view meets its square and starts
            // inside the map.
            let chunk_px = chunk as f32 * tile;
            let inside = view[0] < size[0] as f32 * tile && view[1] < size[1] as f32 * tile;
            let touched = |[x, y]: [u32; 2]| {
                let [cx, cy] = [x / chunk, y / chunk];
                inside
                    && meets(view[0], view[2], cx as f32 * chunk_px, chunk_px)
                    && meets(view[1], view[3], cy as f32 * chunk_px, chunk_px)
            };
            let mut want: Vec<u32> = (0..quads.len() as u32)
                .filter(|&q| {
                    let o = quads[q as usize].origin;
                    touched([(o[0] / tile) as u32, (o[1] / tile) as u32])
                })
                .collect();
            let mut rows: Vec<u32> = map.visible_rows(view).flatten().collect();
            rows.sort_unstable();
            assert_eq!(rows, want, "map {size:?} chunk {chunk} view {view:?}");
            let run = map.visible_run(view);
            assert!(want.iter().all(|q| run.contains(q)), "the run holds every touched chunk");
            let mut drawn: Vec<u32> = map.drawn_runs(view).flatten().collect();
            drawn.sort_unstable();
            if map.draws_rows(view) {
                rows_seen += 1;
                assert!(2 * want.len() <= run.len(), "rows only when they halve the run");
                assert_eq!(drawn, want);
            } else {
                assert!(2 * want.len() > run.len() || want.is_empty());
                want = run.collect();
                assert_eq!(drawn, want);
            }
            // What the plan counts is what it draws.
            b.begin_frame();
            map.draw(&mut b, view, &ResidentStyle::default()).unwrap();
            assert_eq!(b.finish().counters.resident_instances_drawn, drawn.len() as u64);
        }
        b.textures().destroy_resident(map.layer()).unwrap();
    }
    assert!(rows_seen > 500, "{rows_seen} views drawn by rows");
}

#[test]
fn a_full_hd_view_draws_little_more_than_it_shows() {
    let mut b = Batcher::new(Limits::desktop(), Config::default()).unwrap();
    let table = tilesets(&mut b);
    // 16 px tiles: a 1920 x 1080 view shows parts of 121 x 69 tiles at this offset.
    let view = [5000.0 + 7.0, 7000.0 + 3.0, 1920.0, 1080.0];
    let shown = 121 * 69;
    let mut dev = MockDevice::new(b.budget());
    // Chunks across and down the view touches, tiles drawn: 31 x 18 chunks of 4 (124 x 72
    // tiles), 16 x 10 of 8, 5 x 3 of 32.
    for (chunk, rows, tiles, most) in [(4, 18, 124 * 72, 1.07), (8, 10, 128 * 80, 1.23), (32, 3, 160 * 96, 1.84)] {
        let map = Tilemap::new(&mut b, &table, [1024, 1024], 16.0, chunk, &ids(1024)).unwrap();
        b.begin_frame();
        map.draw(&mut b, view, &ResidentStyle::default()).unwrap();
        let plan = b.finish();
        let drawn = plan.counters.resident_instances_drawn;
        dev.execute(plan).unwrap();
        assert_eq!(dev.frame_counters().draw_calls, rows, "chunk {chunk}: a draw a row of chunks");
        assert_eq!(drawn, tiles, "chunk {chunk}: the chunks the view touches");
        let ratio = drawn as f64 / shown as f64;
        assert!(ratio < most + 0.005, "chunk {chunk}: {drawn} tiles drawn for {shown} shown ({ratio:.3}x)");
        b.textures().destroy_resident(map.layer()).unwrap();
    }
}
