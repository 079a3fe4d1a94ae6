//! A tilemap over 8 tilesets draws the pixels of its tiles pushed as quads: on GL 3.3, GLES
//! 3.0, wgpu on Vulkan and wgpu on GL, a frame with the map (one item, one draw beside the
//! sprites) reads back exactly (tolerance 0) as the frame that pushes the tiles the camera
//! sees; so it does after its animated tiles moved on a frame, and for a view across two rows
//! of chunks, drawn a row of chunks at a time (two draws, the chunks it touches only).
//!
//! Under `CI=true` a device that cannot be had fails the test; outside CI it prints `skipped:`.

use headless::DeviceKind;
use layerbatch::tilemap::{TileTable, Tilemap};
use layerbatch::{Affine2, Batcher, Config, Quad, ResidentStyle, TextureDesc};
use layerbatch_testkit::{headless, scene};

const SIZE: [u32; 2] = [160, 120];

fn map_matches_pushed_tiles(kind: DeviceKind, test: &str) {
    let Some(mut dev) = headless::open_for_test(kind, SIZE, test) else { return };
    let mut b = Batcher::new(dev.limits(), Config::default()).expect("budget");
    dev.init(b.budget()).expect("renderer");
    // 8 tilesets of 4 x 4 tiles of 8 px, each its own picture.
    let mut table = TileTable::new();
    for s in 0..8 {
        let set = b.textures().register(&TextureDesc::new(32, 32), &scene::texture_pixels(s, 32, 32)).unwrap();
        for k in 0..16 {
            table.push(set, [(k % 4) as f32 * 8.0, (k / 4) as f32 * 8.0, 8.0, 8.0], [32, 32]);
        }
    }
    table.animate(3, &[3, 40, 77], 0.5).unwrap();
    let ids: Vec<u32> =
        (0..256u32 * 256).map(|i| if i % 61 == 0 { 0 } else { 1 + (i * 13 + i / 256 * 5) % 128 }).collect();
    let mut map = Tilemap::new(&mut b, &table, [256, 256], 8.0, 16, &ids).unwrap();
    let sprite = b.textures().register(&TextureDesc::new(16, 16), &scene::texture_pixels(99, 16, 16)).unwrap();
    let sprites: Vec<Quad> = (0..12).map(|i| Quad::rect(sprite, [i as f32 * 13.0, 40.0], [12.0, 12.0])).collect();
    let mut tiles = Vec::new();
    // Chunks of 128 px: the first view lies in one row of chunks, the last across two.
    let (one_row, two_rows) =
        ([301.0, 517.0, SIZE[0] as f32, SIZE[1] as f32], [301.0, 570.0, SIZE[0] as f32, SIZE[1] as f32]);
    assert!(!map.draws_rows(one_row) && map.draws_rows(two_rows), "{test}: one run, then two rows");
    for (step, view, map_draws) in
        [("first frame", one_row, 1), ("animated", one_row, 1), ("two rows of chunks", two_rows, 2)]
    {
        let camera = Affine2::translation(-view[0], -view[1]);
        if step == "animated" {
            assert!(map.advance(&mut b, 0.6).unwrap() > 0, "{test}: animated tiles were rewritten");
        }
        b.begin_frame();
        map.draw(&mut b, view, &ResidentStyle::default().with_transform(camera)).unwrap();
        b.push_all(&sprites).unwrap();
        dev.draw(b.finish()).unwrap_or_else(|e| panic!("{test}: {e}"));
        assert_eq!(dev.stats().device_frame.draw_calls, map_draws + 1, "{test}: {step}: the map and the sprites");
        let drawn = dev.read();
        // The reference: every tile of the map pushed (not what the map chose to draw).
        map.quads_in_view([0.0, 0.0, 256.0 * 8.0, 256.0 * 8.0], &mut tiles);
        assert_eq!(tiles.len(), 256 * 256);
        b.begin_frame();
        b.state().set_transform(camera);
        b.push_all(&tiles).unwrap();
        b.state().set_transform(Affine2::default());
        b.push_all(&sprites).unwrap();
        dev.draw(b.finish()).unwrap_or_else(|e| panic!("{test}: {e}"));
        let pushed = dev.read();
        let (differing, worst) = headless::compare(&pushed, &drawn, SIZE[0], 0, "pushed", "map");
        assert_eq!(differing, 0, "{test}: {step}: {differing} pixels differ (worst {worst})");
        let lit = drawn.chunks_exact(4).filter(|p| p[..3] != [0, 0, 0]).count();
        assert!(lit > drawn.len() / 4 / 2, "{test}: {step}: only {lit} pixels drawn");
    }
}

#[test]
fn gl33_map_matches_pushed_tiles() {
    map_matches_pushed_tiles(DeviceKind::Gl, "gl33_map_matches_pushed_tiles");
}

#[test]
fn gles30_map_matches_pushed_tiles() {
    map_matches_pushed_tiles(DeviceKind::Gles, "gles30_map_matches_pushed_tiles");
}

#[test]
fn wgpu_vulkan_map_matches_pushed_tiles() {
    map_matches_pushed_tiles(DeviceKind::WgpuVulkan, "wgpu_vulkan_map_matches_pushed_tiles");
}

#[test]
fn wgpu_gl_map_matches_pushed_tiles() {
    map_matches_pushed_tiles(DeviceKind::WgpuGl, "wgpu_gl_map_matches_pushed_tiles");
}
