//! Whole frames of a map under a 1920 x 1080 view of 16 px tiles, on wgpu's Vulkan backend
//! with a native device's limits (lavapipe here), in one group: a 4096 x 4096 `TileGrid` culled
//! on the GPU; the same grid on its CPU path (its tiles pushed); a 1024 x 1024 `Tilemap` at
//! chunks of 4 and of 32 (the CPU-culled resident path; a 4096 x 4096 one would be 1 GiB).
//! Each frame: record, `finish`, `prepare` (the culling pass with it), the pass, submit, and
//! the wait for the device. Before the group, each case's phases (medians of 20 frames) are
//! printed: `prepare`'s CPU time and the wait. `cargo bench --bench tilegrid`; with the `CI`
//! env var set, fewer frames.

use criterion::{criterion_group, criterion_main, Criterion};
use layerbatch::tilegrid::TileGrid;
use layerbatch::tilemap::Tilemap;
use layerbatch::{Affine2, Batcher, Config, QuadVertices, ResidentStyle};
use layerbatch_testkit::grids::{cells, tilesets};
use layerbatch_testkit::headless::{self, DeviceKind, Headless};

const VIEW: [u32; 2] = [1920, 1080];
const AT: [f32; 2] = [30_000.5, 21_000.25];

/// A map drawn by one of the four paths.
enum Map {
    Grid(TileGrid),
    Tiles(Tilemap),
}

struct Case {
    name: &'static str,
    dev: Headless,
    batcher: Batcher,
    map: Map,
    view: [f32; 4],
}

impl Case {
    fn new(name: &'static str, gpu: bool, tilemap_chunk: Option<u32>) -> Self {
        let dev = Headless::new(DeviceKind::WgpuVulkanCompute, VIEW).expect("a Vulkan device (lavapipe)");
        let limits = if gpu { dev.limits() } else { dev.limits().with_max_storage_binding_bytes(0) };
        let config = Config::default().with_quad_vertices(QuadVertices::Instanced).with_budget_bytes(512 << 20);
        let mut batcher = Batcher::new(limits, config).expect("budget");
        let mut dev = dev;
        dev.init(batcher.budget()).expect("renderer");
        let (table, _) = tilesets(&mut batcher, 16).expect("tilesets");
        let (map, view) = match tilemap_chunk {
            None => {
                let grid =
                    TileGrid::new(&mut batcher, &table, [4096, 4096], 16.0, &cells(4096, 256, 29)).expect("grid");
                assert_eq!(grid.on_gpu(), gpu);
                (Map::Grid(grid), [AT[0], AT[1], VIEW[0] as f32, VIEW[1] as f32])
            }
            Some(chunk) => {
                let map = Tilemap::new(&mut batcher, &table, [1024, 1024], 16.0, chunk, &cells(1024, 256, 29))
                    .expect("tilemap");
                (Map::Tiles(map), [AT[0] / 4.0, AT[1] / 4.0, VIEW[0] as f32, VIEW[1] as f32])
            }
        };
        Self { name, dev, batcher, map, view }
    }

    fn frame(&mut self) -> headless::DeviceTimes {
        let style = ResidentStyle::default().with_transform(Affine2::translation(-self.view[0], -self.view[1]));
        self.batcher.begin_frame();
        match &self.map {
            Map::Grid(g) => g.draw(&mut self.batcher, self.view, &style).expect("grid draw"),
            Map::Tiles(m) => m.draw(&mut self.batcher, self.view, &style).expect("map draw"),
        }
        self.dev.draw_timed(self.batcher.finish()).expect("frame")
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn bench(c: &mut Criterion) {
    let mut cases = vec![
        Case::new("grid_4096_gpu_culled", true, None),
        Case::new("grid_4096_cpu_path", false, None),
        Case::new("tilemap_1024_chunks_4", false, Some(4)),
        Case::new("tilemap_1024_chunks_32", false, Some(32)),
    ];
    let frames = if std::env::var_os("CI").is_some() { 3 } else { 20 };
    for case in &mut cases {
        case.frame();
        let times: Vec<_> = (0..frames).map(|_| case.frame()).collect();
        let prepare = median(times.iter().map(|t| t.backend_ms).collect());
        let wait = median(times.iter().map(|t| t.wait_ms).collect());
        let drawn = case.dev.grid_instances_drawn().expect("counts");
        let c = case.batcher.frame_counters();
        let device = case.dev.stats().device_frame;
        println!(
            "{}: prepare {prepare:.3} ms, wait {wait:.2} ms, {} draws, resident tiles drawn {}, grid cells tested {}, \
             grid instances drawn {drawn:?}, instance bytes {}",
            case.name,
            device.draw_calls,
            c.resident_instances_drawn,
            c.grid_cells_tested,
            device.instance_bytes_written
        );
    }
    let mut group = c.benchmark_group("tilegrid");
    group.sample_size(10);
    for case in &mut cases {
        group.bench_function(case.name, |b| {
            b.iter(|| {
                case.frame();
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
