//! Tile grids through the mock device: on a device that culls on the GPU the grid is one draw
//! whose tiles drawn are exactly the tiles that show (against each tile's corners transformed
//! here, by the test's own arithmetic), the same tiles and texels the CPU path pushes; cells
//! written only when changed; animation by one quad; bad input refused, nothing changed.

use crate::plan::{ResidentOp, ResourceOp};
use crate::tilegrid::TileGrid;
use crate::tilemap::{TileTable, TilemapError};
use crate::*;

const GPU: Limits = Limits::desktop().with_max_storage_binding_bytes(128 << 20);

/// 4 tilesets of 4 x 4 tiles of 16 px: 64 tiles.
fn tilesets(b: &mut Batcher) -> TileTable {
    let mut table = TileTable::new();
    for s in 0..4u32 {
        let pixels: Vec<u8> = (0..64 * 64).flat_map(|i: u32| [(s * 60) as u8, (i % 251) as u8, 7, 255]).collect();
        let set = b.textures().register(&TextureDesc::new(64, 64), &pixels).unwrap();
        for k in 0..16 {
            table.push(set, [(k % 4) as f32 * 16.0, (k / 4) as f32 * 16.0, 16.0, 16.0], [64, 64]);
        }
    }
    table
}

fn ids(w: u32, h: u32) -> Vec<u32> {
    (0..w * h).map(|i| if i % 13 == 0 { 0 } else { 1 + (i * 7 + i / w) % 64 }).collect()
}

/// Whether tile `[x, y]` of `tile_px` shows in a `size` viewport under `t`: its corners
/// transformed, their box overlapping the viewport (the rule `GridDraw` states).
fn shows([x, y]: [u32; 2], tile_px: f32, t: Affine2, size: [f32; 2]) -> bool {
    let (x0, y0) = (x as f32 * tile_px, y as f32 * tile_px);
    let corners = [[x0, y0], [x0 + tile_px, y0], [x0, y0 + tile_px], [x0 + tile_px, y0 + tile_px]];
    let p = corners.map(|c| t.transform_point(c));
    let (lo_x, hi_x) = p.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(l, h), q| (l.min(q[0]), h.max(q[0])));
    let (lo_y, hi_y) = p.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(l, h), q| (l.min(q[1]), h.max(q[1])));
    lo_x < size[0] && hi_x > 0.0 && lo_y < size[1] && hi_y > 0.0
}

#[test]
fn the_gpu_draws_exactly_the_tiles_that_show_and_the_cpu_path_pushes_the_same_texels() {
    let mut rng = crate::test_rng::Rng(45);
    for case in 0..40 {
        let (w, h) = (1 + rng.below(300) as u32, 1 + rng.below(200) as u32);
        let tile_px = [8.0, 16.0, 13.5][case % 3];
        let ids = ids(w, h);
        let mut gpu = Batcher::new(GPU, Config::default().with_keep_pixels(true)).unwrap();
        let mut cpu = Batcher::new(Limits::desktop(), Config::default().with_keep_pixels(true)).unwrap();
        let (tg, tc) = (tilesets(&mut gpu), tilesets(&mut cpu));
        let g = TileGrid::new(&mut gpu, &tg, [w, h], tile_px, &ids).unwrap();
        let c = TileGrid::new(&mut cpu, &tc, [w, h], tile_px, &ids).unwrap();
        assert!(g.on_gpu() && !c.on_gpu());
        let size = [640u32, 360];
        let (mut dg, mut dc) = (MockDevice::new(gpu.budget()), MockDevice::new(cpu.budget()));
        dg.set_viewport(size);
        dc.set_viewport(size);
        for _ in 0..10 {
            let (vx, vy) = (rng.below(u64::from(w) * 20) as f32 - 100.0, rng.below(u64::from(h) * 20) as f32 - 100.0);
            // A camera: the view's corner to the origin, zoomed, sometimes turned.
            let zoom = [1.0, 0.5, 2.0, 1.25][rng.below(4) as usize];
            let turn = if rng.chance(30) { 0.3 } else { 0.0 };
            let t = Affine2::translation(-vx, -vy).then(Affine2::scale(zoom, zoom)).then(Affine2::rotation(turn));
            let view = [vx, vy, size[0] as f32 / zoom, size[1] as f32 / zoom];
            let style = ResidentStyle::default().with_transform(t);
            for (b, grid, d) in [(&mut gpu, &g, &mut dg), (&mut cpu, &c, &mut dc)] {
                b.begin_frame();
                grid.draw(b, view, &style).unwrap();
                d.execute(b.finish()).unwrap();
            }
            let Some([x0, y0, x1, y1]) = g.cells_in_view(view) else {
                assert!(dg.grid_drawn(g.layer().unwrap()).is_empty() && dc.sampled().is_empty());
                continue;
            };
            let cells = (y0..y1).flat_map(|y| (x0..x1).map(move |x| [x, y]));
            let nonempty: Vec<[u32; 2]> = cells.filter(|&[x, y]| ids[(y * w + x) as usize] != 0).collect();
            let visible: Vec<u32> = nonempty
                .iter()
                .filter(|&&at| shows(at, tile_px, t, size.map(|v| v as f32)))
                .map(|&[x, y]| y * w + x)
                .collect();
            let drawn = dg.grid_drawn(g.layer().unwrap());
            assert_eq!(drawn.iter().map(|d| d.0).collect::<Vec<_>>(), visible, "case {case}, view {view:?}");
            assert_eq!(dg.frame_counters().draw_calls, 1);
            assert_eq!(gpu.frame_counters().grid_cells_tested, u64::from((x1 - x0) * (y1 - y0)));
            // The CPU path pushed every tile under the view; those that show sampled the same.
            assert_eq!(dc.sampled().len(), nonempty.len());
            let cpu_sampled: std::collections::HashMap<u32, _> =
                nonempty.iter().map(|&[x, y]| y * w + x).zip(dc.sampled().iter().map(|s| s.map(|s| s.1))).collect();
            for &(cell, sampled) in drawn {
                assert!(sampled.is_some(), "case {case}: cell {cell} sampled nothing");
                assert_eq!(sampled.map(|s| s.1), cpu_sampled[&cell], "case {case}: cell {cell}");
            }
        }
    }
}

#[test]
fn cells_go_to_the_device_once_and_then_only_when_changed() {
    let mut b = Batcher::new(GPU, Config::default()).unwrap();
    let table = tilesets(&mut b);
    let all = ids(4096, 4096);
    let mut g = TileGrid::new(&mut b, &table, [4096, 4096], 16.0, &all).unwrap();
    let layer = g.layer().unwrap();
    let mut d = MockDevice::new(b.budget());
    d.set_viewport([1920, 1080]);
    let frame = |b: &mut Batcher, d: &mut MockDevice, g: &TileGrid| {
        b.begin_frame();
        g.draw(
            b,
            [30000.0, 20000.0, 1920.0, 1080.0],
            &ResidentStyle::default().with_transform(Affine2::translation(-30000.0, -20000.0)),
        )
        .unwrap();
        let plan = b.finish();
        let ops = plan.ops.clone();
        d.execute(plan).unwrap();
        ops
    };
    let ops = frame(&mut b, &mut d, &g);
    assert!(ops.iter().any(|op| matches!(op, ResourceOp::Resident(ResidentOp::Create { cells: 16_777_216, .. }))));
    assert_eq!(d.frame_counters().cell_bytes_written, 4096 * 4096 * 4);
    assert_eq!(b.frame_counters().resident_bytes, 4096 * 4096 * 4 + 64 * 64);
    // 121 x 68 cells under the view (30000 / 16 = 1875 exactly; 20000 / 16 = 1250).
    assert_eq!(b.frame_counters().grid_cells_tested, 120 * 68);
    let visible = (1250..1318).flat_map(|y| (1875..1995).map(move |x| y * 4096 + x));
    let visible = visible.filter(|&c| all[c as usize] != 0).count();
    assert_eq!(d.grid_drawn(layer).len(), visible);
    frame(&mut b, &mut d, &g);
    assert_eq!((d.frame_counters().cell_bytes_written, d.frame_counters().resident_bytes_written), (0, 0));
    // Two rows of a rectangle: one write from the first cell changed to the last.
    g.set_tiles(&mut b, [1900, 1260], [3, 2], &[0, 0, 0, 0, 0, 0]).unwrap();
    frame(&mut b, &mut d, &g);
    assert_eq!(d.frame_counters().cell_bytes_written, (4096 + 3) * 4);
    let cleared = [1260u32, 1261].iter().flat_map(|y| (1900..1903).map(move |x| y * 4096 + x));
    let cleared = cleared.filter(|&c| all[c as usize] != 0).count();
    assert_eq!(d.grid_drawn(layer).len(), visible - cleared);
    assert_eq!(g.ids(&b).unwrap()[1260 * 4096 + 1901], 0);
    // A restore writes the cells whole again.
    b.restore();
    let mut d = MockDevice::new(b.budget());
    d.set_viewport([1920, 1080]);
    frame(&mut b, &mut d, &g);
    assert_eq!(d.frame_counters().cell_bytes_written, 4096 * 4096 * 4);
    g.destroy(&mut b).unwrap();
    b.begin_frame();
    d.execute(b.finish()).unwrap();
    assert_eq!((b.frame_counters().resident_bytes, d.resident_count()), (0, 0));
}

#[test]
fn an_animation_writes_one_quad_not_the_cells() {
    let mut b = Batcher::new(GPU, Config::default()).unwrap();
    let mut table = tilesets(&mut b);
    table.animate(5, &[5, 21, 37], 0.5).unwrap();
    let mut g = TileGrid::new(&mut b, &table, [64, 64], 16.0, &vec![5; 64 * 64]).unwrap();
    let mut d = MockDevice::new(b.budget());
    d.set_viewport([256, 256]);
    let mut sampled = Vec::new();
    for step in 0..4 {
        let changed = g.advance(&mut b, if step == 0 { 0.0 } else { 0.5 }).unwrap();
        assert_eq!(changed, usize::from(step > 0));
        b.begin_frame();
        g.draw(&mut b, [0.0, 0.0, 256.0, 256.0], &ResidentStyle::default()).unwrap();
        d.execute(b.finish()).unwrap();
        let c = d.frame_counters();
        if step > 0 {
            assert_eq!((c.resident_bytes_written, c.cell_bytes_written), (64, 0));
        }
        let drawn = d.grid_drawn(g.layer().unwrap());
        assert_eq!(drawn.len(), 256);
        assert!(drawn.iter().all(|t| t.1 == drawn[0].1));
        sampled.push(drawn[0].1);
    }
    // Frames 5, 21, 37, then 5 again: a tile of the first three tilesets, each its own texels.
    assert_eq!(sampled[0], sampled[3]);
    assert!(sampled[0] != sampled[1] && sampled[1] != sampled[2]);
}

#[test]
fn bad_input_is_refused_and_changes_nothing() {
    let mut b = Batcher::new(GPU, Config::default()).unwrap();
    let table = tilesets(&mut b);
    let shape = |e| matches!(e, TilemapError::Shape { .. });
    assert!(shape(TileGrid::new(&mut b, &table, [0, 4], 16.0, &[]).unwrap_err()));
    assert!(shape(TileGrid::new(&mut b, &table, [2, 2], f32::NAN, &[1; 4]).unwrap_err()));
    assert!(shape(TileGrid::new(&mut b, &table, [2, 2], 16.0, &[1; 3]).unwrap_err()));
    let e = TileGrid::new(&mut b, &table, [2, 2], 16.0, &[1, 2, 65, 0]).unwrap_err();
    assert_eq!(e, TilemapError::UnknownTile { at: [0, 1], id: 65, tiles: 64 });
    let mut g = TileGrid::new(&mut b, &table, [8, 8], 16.0, &[1; 64]).unwrap();
    assert!(shape(g.set_tiles(&mut b, [7, 7], [2, 1], &[1, 1]).unwrap_err()));
    assert!(shape(g.set_tiles(&mut b, [0, 0], [2, 2], &[1, 1]).unwrap_err()));
    let e = g.set_tiles(&mut b, [1, 1], [2, 1], &[3, 99]).unwrap_err();
    assert_eq!(e, TilemapError::UnknownTile { at: [2, 1], id: 99, tiles: 64 });
    assert!(g.ids(&b).unwrap().iter().all(|&id| id == 1));
    // No frame; views that touch nothing draw nothing.
    let e = g.draw(&mut b, [0.0; 4], &ResidentStyle::default()).unwrap_err();
    assert_eq!(e, TilemapError::Resident(ResidentError::NoFrame));
    let mut d = MockDevice::new(b.budget());
    b.begin_frame();
    for view in
        [[f32::NAN, 0.0, 10.0, 10.0], [-500.0, 0.0, 100.0, 100.0], [0.0, 0.0, 0.0, 5.0], [0.0, 0.0, f32::INFINITY, 5.0]]
    {
        g.draw(&mut b, view, &ResidentStyle::default()).unwrap();
    }
    let plan = b.finish();
    assert_eq!(plan.segments.len(), 0);
    d.execute(plan).unwrap();
    // A grid too large for the device's storage bindings draws on the CPU.
    let mut small = Batcher::new(Limits::desktop().with_max_storage_binding_bytes(1024), Config::default()).unwrap();
    let table = tilesets(&mut small);
    assert!(!TileGrid::new(&mut small, &table, [16, 17], 16.0, &vec![1; 16 * 17]).unwrap().on_gpu());
    assert!(TileGrid::new(&mut small, &table, [16, 16], 16.0, &vec![1; 16 * 16]).unwrap().on_gpu());
    // Destroyed: drawing it is refused.
    let layer = g.layer().unwrap();
    b.textures().destroy_resident(layer).unwrap();
    b.begin_frame();
    let e = g.draw(&mut b, [0.0, 0.0, 64.0, 64.0], &ResidentStyle::default()).unwrap_err();
    assert_eq!(e, TilemapError::Resident(ResidentError::Stale(layer)));
    b.finish();
}

#[test]
fn the_view_box_of_any_camera_holds_the_tile_of_every_pixel() {
    let mut b = Batcher::new(GPU, Config::default()).unwrap();
    let table = tilesets(&mut b);
    let g = TileGrid::new(&mut b, &table, [64, 48], 16.0, &ids(64, 48)).unwrap();
    let mut rng = crate::test_rng::Rng(4242);
    let size = [320u32, 200];
    let mut seen = 0;
    for case in 0..300 {
        let (x, y) = (rng.below(1200) as f32 - 100.0, rng.below(900) as f32 - 100.0);
        let turn = rng.below(628) as f32 / 100.0;
        let zoom = [0.25, 0.5, 1.0, 1.5, 3.0, 7.0][rng.below(6) as usize];
        let camera = Affine2::translation(-x, -y).then(Affine2::rotation(turn)).then(Affine2::scale(zoom, zoom));
        let cells = g.cells_in_view(TileGrid::view_box(camera, size).unwrap());
        // Every pixel centre, taken back to the grid (in f64, not the code under test): its
        // tile, where the grid has one, lies in the cells drawn.
        let [a, b, c, d, tx, ty] = camera.0.map(f64::from);
        let det = a * d - b * c;
        for py in (0..size[1]).step_by(2) {
            for px in (0..size[0]).step_by(2) {
                let (sx, sy) = (f64::from(px) + 0.5 - tx, f64::from(py) + 0.5 - ty);
                let (u, v) = ((d * sx - c * sy) / det, (a * sy - b * sx) / det);
                let (cx, cy) = ((u / 16.0).floor(), (v / 16.0).floor());
                if cx < 0.0 || cy < 0.0 || cx >= 64.0 || cy >= 48.0 {
                    continue;
                }
                seen += 1;
                let (cx, cy) = (cx as u32, cy as u32);
                let Some([x0, y0, x1, y1]) = cells else { panic!("case {case}: pixel {px},{py} shows {cx},{cy}") };
                assert!((x0..x1).contains(&cx) && (y0..y1).contains(&cy), "case {case}: {cx},{cy} outside {cells:?}");
            }
        }
    }
    assert!(seen > 1_000_000, "{seen} pixels over the grid");
    assert_eq!(TileGrid::view_box(Affine2::scale(0.0, 2.0), size), None);
    assert_eq!(TileGrid::view_box(Affine2([f32::NAN, 0.0, 0.0, 1.0, 0.0, 0.0]), size), None);
}
