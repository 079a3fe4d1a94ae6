//! The dynamic path: what a frame of moving sprites costs layerbatch, from `push` to work
//! handed to the device, without the host's own logic (the quads are built once) and without
//! the device's time, against a `memcpy` of the bytes the device receives, in one group per
//! vertex layout so that the ratios come from one run.
//!
//! - `memcpy_device_bytes`: copying the frame's vertex bytes (64 a sprite instanced, 256
//!   indexed) from one buffer into another: the floor of any path that hands the device
//!   vertices written on the CPU.
//! - `core_push_finish`: `begin_frame`, `push` of every quad, `finish`, frame after frame with
//!   nothing between them: caches stay warm, unlike in a real frame, where the device's work
//!   in between evicts the quads and instances (in the timed frames below, push and finish
//!   take about twice as long).
//! - `wgpu_push_finish_prepare`: that, then layerbatch-wgpu's `prepare` (resource ops, the
//!   draw walk, instance and globals uploads, bind groups); the pass, submit and wait that
//!   follow each frame are not timed.
//! - `wgpu_push_all_finish_prepare`: the same with the quads handed over by one `push_all`
//!   (checked and converted in cache-sized chunks) instead of a `push` each.
//! - `gl_push_finish_paint`: that, then layerbatch-gl's `paint`, which also issues the draws:
//!   on llvmpipe a draw call runs the vertex shader on the calling thread, so this includes
//!   the software device's vertex work (the stress example's GPU timer shows it).
//!
//! 200,000 sprites of the stress scene over 64 textures, on a 160x120 target with sprites at
//! a tenth of their texture's size; with the `CI` env var set, 20,000. `cargo bench --bench
//! dynamic`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use layerbatch::plan::Instance;
use layerbatch::{Batcher, Config, Quad, QuadVertices};
use layerbatch_testkit::ci;
use layerbatch_testkit::headless::{DeviceKind, Headless};
use layerbatch_testkit::scene::{Scene, SceneOptions};

const SIZE: [u32; 2] = [160, 120];

fn sprites() -> usize {
    if std::env::var_os("CI").is_some() {
        20_000
    } else {
        200_000
    }
}

/// A device of `kind` with a batcher of `quads`, the scene registered and its quads built.
fn open(kind: DeviceKind, quads: QuadVertices, n: usize) -> Option<(Headless, Batcher, Vec<Quad>)> {
    let mut dev = ci::require(Headless::new(kind, SIZE), "dynamic", &format!("{kind:?} device"))?;
    let mut batcher = Batcher::new(dev.limits(), Config::default().with_quad_vertices(quads)).expect("budget");
    dev.init(batcher.budget()).expect("renderer");
    let opts = SceneOptions { sprites: n, textures: 64, viewport_px: SIZE, sprite_scale: 0.1, ..Default::default() };
    let scene = Scene::new(&mut batcher, opts).expect("textures fit");
    let mut list = Vec::new();
    scene.quads(&mut list);
    Some((dev, batcher, list))
}

/// `push` of every quad (or one `push_all` of them, `all`) between `begin_frame` and
/// `finish`: the plan's instance count.
fn record(batcher: &mut Batcher, quads: &[Quad], all: bool) -> usize {
    batcher.begin_frame();
    if all {
        batcher.push_all(quads).expect("live textures");
    } else {
        for q in quads {
            batcher.push(q).expect("live texture");
        }
    }
    batcher.finish().instances.len()
}

/// `iters` frames of `quads`: the time of push, finish and the backend's call (wgpu
/// `prepare`, GL `paint`); each frame is also rendered, submitted and waited for, untimed.
fn timed(batcher: &mut Batcher, dev: &mut Headless, quads: &[Quad], iters: u64, all: bool) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        let t = Instant::now();
        record(batcher, quads, all);
        let recorded = t.elapsed();
        let times = dev.draw_timed(batcher.plan()).expect("draw");
        total += recorded + Duration::from_secs_f64(times.backend_ms / 1e3);
    }
    total
}

fn bench(c: &mut Criterion) {
    let n = sprites();
    for (layout, quads) in [("instanced", QuadVertices::Instanced), ("indexed", QuadVertices::Indexed)] {
        let mut group = c.benchmark_group(format!("dynamic_{layout}"));
        group.sample_size(10);
        group.throughput(Throughput::Elements(n as u64));
        let bytes = n * Instance::quad_bytes(quads == QuadVertices::Indexed) as usize;
        let (src, mut dst) = (vec![7u8; bytes], vec![0u8; bytes]);
        group.bench_function(BenchmarkId::new("memcpy_device_bytes", n), |b| {
            b.iter(|| {
                dst.copy_from_slice(black_box(&src));
                black_box(dst[bytes / 2])
            })
        });
        drop((src, dst));
        let Some((mut dev, mut batcher, list)) = open(DeviceKind::WgpuVulkan, quads, n) else { return };
        timed(&mut batcher, &mut dev, &list, 2, false); // uploads the textures
        group.bench_function(BenchmarkId::new("wgpu_push_finish_prepare", n), |b| {
            b.iter_custom(|iters| timed(&mut batcher, &mut dev, &list, iters, false))
        });
        group.bench_function(BenchmarkId::new("wgpu_push_all_finish_prepare", n), |b| {
            b.iter_custom(|iters| timed(&mut batcher, &mut dev, &list, iters, true))
        });
        // Plans no device executes: last, as the device would refuse the next one.
        group.bench_function(BenchmarkId::new("core_push_finish", n), |b| {
            b.iter(|| black_box(record(&mut batcher, &list, false)))
        });
        drop((dev, batcher, list));
        let Some((mut dev, mut batcher, list)) = open(DeviceKind::Gl, quads, n) else { return };
        timed(&mut batcher, &mut dev, &list, 2, false);
        group.bench_function(BenchmarkId::new("gl_push_finish_paint", n), |b| {
            b.iter_custom(|iters| timed(&mut batcher, &mut dev, &list, iters, false))
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
