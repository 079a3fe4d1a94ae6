//! Moving sprites: what a frame that moves every sprite of a moving layer costs layerbatch,
//! from the host's new motions to work handed to the device, without the host's own logic
//! (the motions are computed once) and without the device's time, against a `memcpy` of the
//! bytes the device receives (16 a sprite), in one group so that the ratios come from one run.
//!
//! - `memcpy_motion_bytes`: copying 16 bytes a sprite from one buffer into another.
//! - `core_move_sprites_finish`: `move_sprites` of every motion (checked: finite; copied into
//!   core), `begin_frame`, `draw_resident`, `finish` (the plan is lent the layer's motions).
//! - `wgpu_move_sprites_prepare` / `gl_move_sprites_paint`: that, then layerbatch-wgpu's
//!   `prepare` (its queue write of the motion texture) or layerbatch-gl's `paint` (its
//!   `glTexSubImage2D`).
//! - `wgpu_motions_mut_prepare` / `gl_motions_mut_paint`: the host writes its motions in place
//!   (`motions_mut`: its own work, so not done here), then the frame as above; core checks
//!   them (finite) when it plans.
//!
//! The GL frames draw nothing (an empty range of the layer): on llvmpipe a draw call runs the
//! vertex shader on the calling thread, which is the device's time, not layerbatch's. The wgpu
//! frames draw the layer; its render, submit and wait are not timed.
//!
//! 1,000,000 sprites over 256 textures on a 160x120 target; with the `CI` env var set, 50,000.
//! `cargo bench --bench moving`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use layerbatch::{Batcher, Config, Motion, Quad, ResidentId, ResidentStyle, TextureDesc};
use layerbatch_testkit::ci;
use layerbatch_testkit::headless::{DeviceKind, Headless};
use layerbatch_testkit::scene::texture_pixels;

const SIZE: [u32; 2] = [160, 120];
const TEXTURES: usize = 256;

fn sprites() -> usize {
    if std::env::var_os("CI").is_some() {
        50_000
    } else {
        1_000_000
    }
}

/// A batcher of 256 textures and a moving layer of `n` sprites over them, on `dev` if given.
fn layer(dev: Option<&mut Headless>, n: usize) -> (Batcher, ResidentId) {
    let limits = dev.as_ref().map_or(layerbatch::Limits::desktop(), |d| d.limits());
    let mut batcher = Batcher::new(limits, Config::default().with_budget_bytes(1 << 30)).expect("budget");
    if let Some(d) = dev {
        d.init(batcher.budget()).expect("renderer");
    }
    let ids: Vec<_> = (0..TEXTURES)
        .map(|i| {
            let (w, h) = [(16, 16), (24, 20), (32, 32), (20, 28)][i % 4];
            batcher.textures().register(&TextureDesc::new(w, h), &texture_pixels(i, w, h)).expect("fits")
        })
        .collect();
    let quads: Vec<Quad> = (0..n).map(|i| Quad::rect(ids[i % TEXTURES], [-2.0, -2.0], [4.0, 4.0])).collect();
    let layer = batcher.textures().create_moving(&quads).expect("a moving layer");
    (batcher, layer)
}

/// Two frames' motions, alternated: the host's logic is not what is measured.
fn frames(n: usize) -> [Vec<Motion>; 2] {
    let at = |i: usize, t: f32| {
        let p = [(i % 160) as f32 + t, (i / 160 % 120) as f32];
        Motion::new(p, t * 0.01 * (i % 7) as f32, 1.0)
    };
    [(0..n).map(|i| at(i, 0.0)).collect(), (0..n).map(|i| at(i, 1.0)).collect()]
}

/// One frame: the motions set (`in_place`: the host wrote them in place, so only
/// `motions_mut` is called), the layer drawn (`draw`: all of it, else an empty range), the
/// plan made.
fn record(b: &mut Batcher, layer: ResidentId, motions: &[Motion], in_place: bool, draw: bool) {
    if in_place {
        let all = b.textures().motions_mut(layer, 0..motions.len() as u32).expect("live");
        black_box(&all[..]);
    } else {
        b.textures().move_sprites(layer, 0, motions).expect("finite");
    }
    b.begin_frame();
    let range = if draw { 0..motions.len() as u32 } else { 0..0 };
    b.draw_resident_range(layer, range, &ResidentStyle::default()).expect("live");
    black_box(b.finish().sequence);
}

/// `iters` frames on `dev`: the time of recording and the backend's call (wgpu `prepare`, GL
/// `paint`); render, submit and wait are not timed.
fn timed(
    (b, layer): (&mut Batcher, ResidentId),
    dev: &mut Headless,
    motions: &[Vec<Motion>; 2],
    iters: u64,
    (in_place, draw): (bool, bool),
) -> Duration {
    let mut total = Duration::ZERO;
    for k in 0..iters {
        let t = Instant::now();
        record(b, layer, &motions[k as usize % 2], in_place, draw);
        let recorded = t.elapsed();
        let times = dev.draw_timed(b.plan()).expect("draw");
        let c = dev.stats().device_frame;
        assert_eq!(c.motion_bytes_written, motions[0].len() as u64 * 16, "16 bytes a sprite, every frame");
        assert_eq!(c.resident_bytes_written, 0, "nothing of the static half");
        total += recorded + Duration::from_secs_f64(times.backend_ms / 1e3);
    }
    total
}

fn bench(c: &mut Criterion) {
    let n = sprites();
    let motions = frames(n);
    let mut group = c.benchmark_group("moving");
    group.sample_size(10);
    group.throughput(Throughput::Elements(n as u64));
    let bytes = n * Motion::BYTES as usize;
    let (src, mut dst) = (vec![7u8; bytes], vec![0u8; bytes]);
    group.bench_function(BenchmarkId::new("memcpy_motion_bytes", n), |b| {
        b.iter(|| {
            dst.copy_from_slice(black_box(&src));
            black_box(dst[bytes / 2])
        })
    });
    drop((src, dst));
    {
        let (mut batcher, layer) = self::layer(None, n);
        let mut k = 0;
        group.bench_function(BenchmarkId::new("core_move_sprites_finish", n), |b| {
            b.iter(|| {
                k += 1;
                record(&mut batcher, layer, &motions[k % 2], false, true)
            })
        });
    }
    for (kind, name) in [(DeviceKind::WgpuVulkan, "wgpu"), (DeviceKind::Gl, "gl")] {
        let Some(mut dev) = ci::require(Headless::new(kind, SIZE), "moving", &format!("{kind:?} device")) else {
            continue;
        };
        let (mut batcher, layer) = self::layer(Some(&mut dev), n);
        // The GL frames draw nothing: the software device's vertex work is not layerbatch's.
        let draw = kind != DeviceKind::Gl;
        // The textures and the layer's quads go up first.
        for m in &motions {
            record(&mut batcher, layer, m, false, draw);
            dev.draw(batcher.plan()).expect("draw");
        }
        let call = if draw { "prepare" } else { "paint" };
        group.bench_function(BenchmarkId::new(format!("{name}_move_sprites_{call}"), n), |b| {
            b.iter_custom(|iters| timed((&mut batcher, layer), &mut dev, &motions, iters, (false, draw)))
        });
        group.bench_function(BenchmarkId::new(format!("{name}_motions_mut_{call}"), n), |b| {
            b.iter_custom(|iters| timed((&mut batcher, layer), &mut dev, &motions, iters, (true, draw)))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
