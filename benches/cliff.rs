//! The cliff: frame-plan time for 1..=64 distinct textures over the same quads, three
//! strategies in one group. Draw calls per frame are printed beside each point (criterion
//! measures time only).
//!
//! `cargo bench --bench cliff`. With the `CI` env var set, fewer quads and points.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use layerbatch_testkit::cliff::{CliffScene, Strategy};
use std::hint::black_box;

fn bench_cliff(c: &mut Criterion) {
    let ci = std::env::var_os("CI").is_some();
    let quads = if ci { 2_000 } else { 10_000 };
    let points: &[usize] = if ci { &[1, 16, 17, 64] } else { &[1, 2, 4, 8, 16, 17, 24, 32, 48, 64] };
    let mut group = c.benchmark_group("cliff");
    group.throughput(Throughput::Elements(quads as u64));
    for s in Strategy::ALL {
        for &t in points {
            let mut scene = CliffScene::new(s, t, quads);
            let counters = scene.frame();
            eprintln!(
                "cliff/{}/{t}: {} draw calls, {} flushes, {} slot binds, {} cache resets per frame",
                s.name(),
                counters.draw_calls,
                counters.flushes,
                counters.slot_binds,
                counters.cache_resets
            );
            group.bench_function(BenchmarkId::new(s.name(), t), |b| b.iter(|| black_box(scene.frame())));
        }
    }
    group.finish();
}

criterion_group!(benches, bench_cliff);
criterion_main!(benches);
