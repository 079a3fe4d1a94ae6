//! A 4096 x 4096 tile grid over 16 tilesets, viewed through a 1920 x 1080 window, culled on
//! the GPU (wgpu on Vulkan, lavapipe, a native device's limits): one draw for the map; the
//! instances the culling pass counted are exactly the tiles that show (counted here from the
//! cells and the camera, not by the code under test); the pixels equal, tolerance 0, both the
//! same tiles pushed as quads by this test and the grid drawn on the CPU path (a budget
//! without GPU culling, as GL and WebGL2 have). Again after cells change, and under a turned,
//! zoomed camera, and beside a triangle mesh (the plan then drawn indexed, the grid instanced).
//! On GL 3.3 the grid draws on the CPU path with the same pixels. And a grid drawn into a
//! render target (the culling pass before the target's pass), then shown.
//!
//! Under `CI=true` a device that cannot be had fails the test; outside CI it prints `skipped:`.

use headless::DeviceKind;
use layerbatch::tilegrid::TileGrid;
use layerbatch::{Affine2, Batcher, Config, Mesh, ResidentStyle, Vertex};
use layerbatch_testkit::grids::{cells, tiles_under, tilesets, TILE_PX as TILE};
use layerbatch_testkit::headless;

const VIEW: [u32; 2] = [1920, 1080];
const SIDE: u32 = 4096;

/// Whether tile `[x, y]` shows under `camera` in the window: its corners' box overlaps it.
fn shows([x, y]: [u32; 2], camera: Affine2) -> bool {
    let (x0, y0) = (x as f32 * TILE, y as f32 * TILE);
    let p = [[x0, y0], [x0 + TILE, y0], [x0, y0 + TILE], [x0 + TILE, y0 + TILE]].map(|c| camera.transform_point(c));
    let lo = |k: usize| p.iter().map(|q| q[k]).fold(f32::INFINITY, f32::min);
    let hi = |k: usize| p.iter().map(|q| q[k]).fold(f32::NEG_INFINITY, f32::max);
    lo(0) < VIEW[0] as f32 && hi(0) > 0.0 && lo(1) < VIEW[1] as f32 && hi(1) > 0.0
}

fn grid_culled_on_the_gpu(kind: DeviceKind, test: &str) {
    let Some(mut dev) = headless::open_for_test(kind, VIEW, test) else { return };
    let gpu = kind == DeviceKind::WgpuVulkanCompute;
    assert_eq!(dev.limits().gpu_culling(), gpu, "{test}: the device's limits");
    let config = Config::default().with_quad_vertices(layerbatch::QuadVertices::Instanced);
    let mut b = Batcher::new(dev.limits(), config).expect("budget");
    dev.init(b.budget()).expect("renderer");
    let (table, sets) = tilesets(&mut b, 16).unwrap();
    let mut ids = cells(SIDE, 256, 29);
    let mut grid = TileGrid::new(&mut b, &table, [SIDE, SIDE], TILE, &ids).unwrap();
    assert_eq!(grid.on_gpu(), gpu, "{test}: cells on the device");
    // The CPU path of the same grid, as a device without GPU culling draws it, on a second
    // device of the same kind.
    let Some(mut cdev) = headless::open_for_test(kind, VIEW, test) else { return };
    let cpu_limits = cdev.limits().with_max_storage_binding_bytes(0);
    let mut cb = Batcher::new(cpu_limits, config).expect("budget");
    cdev.init(cb.budget()).expect("renderer");
    let (ctable, _) = tilesets(&mut cb, 16).unwrap();
    let mut cpu = TileGrid::new(&mut cb, &ctable, [SIDE, SIDE], TILE, &ids).unwrap();
    assert!(!cpu.on_gpu());

    let steps = [
        ("first frame", [30_000.5, 41_000.25], 0.0, 1.0),
        ("cells changed", [30_000.5, 41_000.25], 0.0, 1.0),
        ("turned and zoomed", [52_000.0, 12_345.0], 0.4, 1.7),
        ("beside a mesh", [30_000.5, 41_000.25], 0.0, 1.0),
    ];
    // A triangle over the view (a plan with triangles is drawn indexed), of the white
    // texture both batchers registered at the same point.
    let white = b.textures().white().unwrap();
    let cwhite = cb.textures().white().unwrap();
    let mut mesh = Mesh::default();
    for p in [[100.0, 100.0], [900.0, 150.0], [300.0, 800.0]] {
        mesh.push_vertex(Vertex::solid(p, [40, 200, 90, 255]));
    }
    mesh.push_triangle(0, 1, 2);
    let with_mesh = |b: &mut Batcher, step: &str| {
        if step == "beside a mesh" {
            b.state().set_transform(Affine2::default());
            b.push_mesh(white, &mesh).unwrap();
        }
    };
    for (step, [vx, vy], turn, zoom) in steps {
        if step == "cells changed" {
            let hole = vec![0u32; 40 * 30];
            grid.set_tiles(&mut b, [1900, 2580], [40, 30], &hole).unwrap();
            cpu.set_tiles(&mut cb, [1900, 2580], [40, 30], &hole).unwrap();
            for y in 2580..2610 {
                ids[(y * SIDE + 1900) as usize..(y * SIDE + 1940) as usize].fill(0);
            }
        }
        // The camera: the view's corner to the window's, turned and zoomed about it.
        let camera = Affine2::translation(-vx, -vy).then(Affine2::rotation(turn)).then(Affine2::scale(zoom, zoom));
        // The grid's pixels the window shows: the view itself, or for the turned camera the
        // box of the window taken back through it.
        let view = if turn == 0.0 {
            [vx, vy, VIEW[0] as f32, VIEW[1] as f32]
        } else {
            TileGrid::view_box(camera, VIEW).unwrap()
        };
        let style = ResidentStyle::default().with_transform(camera);

        b.begin_frame();
        grid.draw(&mut b, view, &style).unwrap();
        with_mesh(&mut b, step);
        let plan = b.finish();
        let mesh_draws = u64::from(step == "beside a mesh");
        assert_eq!(plan.indexed, step == "beside a mesh", "{test}: {step}: the plan's vertices");
        dev.draw(plan).unwrap_or_else(|e| panic!("{test}: {step}: {e}"));
        assert_eq!(dev.stats().device_frame.draw_calls, 1 + mesh_draws, "{test}: {step}: one draw for the map");
        let drawn = dev.read();
        let counted = dev.grid_instances_drawn().unwrap();

        // What shows, counted here.
        let cells_under = grid.cells_in_view(view).unwrap();
        let under = tiles_under(&ids, SIDE, &sets, cells_under);
        let [x0, y0, x1, y1] = cells_under;
        let all = (y0..y1).flat_map(|y| (x0..x1).map(move |x| [x, y]));
        let visible = all.filter(|&[x, y]| ids[(y * SIDE + x) as usize] != 0 && shows([x, y], camera)).count() as u64;
        if gpu {
            let tested = b.frame_counters().grid_cells_tested;
            assert_eq!(counted, vec![visible as u32], "{test}: {step}: instances drawn = tiles that show");
            println!(
                "{test}: {step}: {visible} tiles show, {} drawn ({:.3}x), {tested} cells tested",
                counted[0],
                f64::from(counted[0]) / visible as f64
            );
        }

        // The same tiles pushed as quads, made here.
        b.begin_frame();
        b.state().set_transform(camera);
        b.push_all(&under).unwrap();
        with_mesh(&mut b, step);
        dev.draw(b.finish()).unwrap_or_else(|e| panic!("{test}: {step}: {e}"));
        let pushed = dev.read();
        let (differing, worst) = headless::compare(&pushed, &drawn, VIEW[0], 0, "pushed", "grid");
        assert_eq!(differing, 0, "{test}: {step}: {differing} pixels differ from the pushed tiles (worst {worst})");
        let lit = drawn.chunks_exact(4).filter(|p| p[..3] != [0, 0, 0]).count();
        assert!(lit > drawn.len() / 4 / 2, "{test}: {step}: only {lit} pixels drawn");

        // The CPU path.
        cb.begin_frame();
        cpu.draw(&mut cb, view, &style).unwrap();
        if step == "beside a mesh" {
            cb.state().set_transform(Affine2::default());
            cb.push_mesh(cwhite, &mesh).unwrap();
        }
        cdev.draw(cb.finish()).unwrap_or_else(|e| panic!("{test}: {step}: {e}"));
        let cpu_pixels = cdev.read();
        let (differing, worst) = headless::compare(&cpu_pixels, &drawn, VIEW[0], 0, "CPU path", "GPU path");
        assert_eq!(differing, 0, "{test}: {step}: {differing} pixels differ from the CPU path (worst {worst})");
    }
}

#[test]
fn wgpu_vulkan_compute_grid_culled_on_the_gpu() {
    grid_culled_on_the_gpu(DeviceKind::WgpuVulkanCompute, "wgpu_vulkan_compute_grid_culled_on_the_gpu");
}

#[test]
fn gl33_grid_drawn_on_the_cpu() {
    grid_culled_on_the_gpu(DeviceKind::Gl, "gl33_grid_drawn_on_the_cpu");
}

/// A grid drawn into a render target (the culling pass recorded before the target's pass,
/// in the plan `prepare` submits itself), then the target drawn as a sprite: the pixels of the
/// same tiles pushed into the target, tolerance 0.
#[test]
fn wgpu_vulkan_compute_grid_into_a_render_target() {
    let test = "wgpu_vulkan_compute_grid_into_a_render_target";
    let Some(mut dev) = headless::open_for_test(DeviceKind::WgpuVulkanCompute, [256, 256], test) else { return };
    let config = Config::default().with_quad_vertices(layerbatch::QuadVertices::Instanced);
    let mut b = Batcher::new(dev.limits(), config).expect("budget");
    dev.init(b.budget()).expect("renderer");
    let rt_desc = layerbatch::TextureDesc::new(200, 150).with_usage(layerbatch::Usage::RenderTarget);
    let rt = b.textures().register(&rt_desc, &[]).unwrap();
    let (table, sets) = tilesets(&mut b, 16).unwrap();
    let ids = cells(256, 256, 7);
    let grid = TileGrid::new(&mut b, &table, [256, 256], TILE, &ids).unwrap();
    assert!(grid.on_gpu(), "{test}: culled on the GPU");
    let view = [1000.25, 700.5, 200.0, 150.0];
    let camera = Affine2::translation(-view[0], -view[1]);
    let show = |b: &mut Batcher| {
        b.begin_frame();
        b.push(&layerbatch::Quad::rect(rt, [20.0, 30.0], [200.0, 150.0])).unwrap();
        b.finish().clone()
    };
    b.begin_frame_into(rt, Some([0.0, 0.0, 0.0, 1.0])).unwrap();
    grid.draw(&mut b, view, &ResidentStyle::default().with_transform(camera)).unwrap();
    dev.draw(b.finish()).unwrap_or_else(|e| panic!("{test}: {e}"));
    // A plan drawn into a target is not held for `render`: nothing to read back.
    assert_eq!(dev.grid_instances_drawn().unwrap(), Vec::<u32>::new(), "{test}: counts of a target plan");
    let shown = show(&mut b);
    dev.draw(&shown).unwrap_or_else(|e| panic!("{test}: {e}"));
    let drawn = dev.read();
    // The reference: the tiles under the view pushed into the target.
    let under = tiles_under(&ids, 256, &sets, grid.cells_in_view(view).unwrap());
    assert!(under.len() > 100, "{test}: {} tiles under the view", under.len());
    b.begin_frame_into(rt, Some([0.0, 0.0, 0.0, 1.0])).unwrap();
    b.state().set_transform(camera);
    b.push_all(&under).unwrap();
    dev.draw(b.finish()).unwrap_or_else(|e| panic!("{test}: {e}"));
    let shown = show(&mut b);
    dev.draw(&shown).unwrap_or_else(|e| panic!("{test}: {e}"));
    let pushed = dev.read();
    let (differing, worst) = headless::compare(&pushed, &drawn, 256, 0, "pushed", "grid");
    assert_eq!(differing, 0, "{test}: {differing} pixels differ from the tiles pushed into the target (worst {worst})");
    let lit = drawn.chunks_exact(4).filter(|p| p[..3] != [0, 0, 0]).count();
    // Every 7th cell is empty: about 6/7 of the target is tiles.
    assert!(lit > 200 * 150 * 3 / 4, "{test}: only {lit} pixels drawn");
}
