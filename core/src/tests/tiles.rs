//! Tilemaps through the mock device: a 1024 x 1024 map over 8 tilesets in one draw beside the
//! sprites, the same texels as its tiles pushed as quads, animation by rewriting only the
//! animated tiles, and bad ids refused.

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
fn a_big_map_over_eight_tilesets_is_one_draw_beside_the_sprites() {
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
        dev.execute(b.finish()).unwrap();
        let c = dev.frame_counters();
        assert_eq!(c.draw_calls, 2, "{c:?}");
        if frame > 0 {
            assert_eq!(c.resident_bytes_written, 0);
        }
    }
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
