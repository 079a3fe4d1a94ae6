//! Core throughput: pushing quads into a frame plan (one by one, and as a slice) against a plain
//! copy of the same number of instance bytes, in one group so the ratios come from one run.
//!
//! `cargo bench --bench core`. With the `CI` env var set, sizes shrink.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use layerbatch::{Batcher, Config, Instance, Limits, Quad, TextureDesc};
use std::hint::black_box;

fn quads() -> usize {
    if std::env::var_os("CI").is_some() {
        10_000
    } else {
        100_000
    }
}

fn push_vs_memcpy(c: &mut Criterion) {
    let n = quads();
    let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default().with_instance_capacity(1 << 17))
        .expect("default config");
    let sizes = [(16, 16), (32, 32), (64, 64), (128, 64)];
    let textures: Vec<_> = (0..64)
        .map(|i| {
            let (w, h) = sizes[i % 4];
            let d = TextureDesc::new(w, h);
            batcher.register(&d, &vec![i as u8; d.byte_len()]).expect("fits the budget")
        })
        .collect();
    let quads: Vec<Quad> =
        (0..n).map(|i| Quad::rect(textures[i % 64], [(i % 1000) as f32, (i / 1000) as f32], [16.0, 16.0])).collect();
    // Warm the plan's buffers and apply the uploads once.
    batcher.begin_frame();
    batcher.finish();

    let mut group = c.benchmark_group("core");
    group.throughput(Throughput::Elements(n as u64));
    group.bench_with_input(BenchmarkId::new("push_finish", n), &quads, |b, quads| {
        b.iter(|| {
            batcher.begin_frame();
            for q in quads {
                batcher.push(q).expect("live texture");
            }
            let plan = batcher.finish();
            assert_eq!(plan.segments.len(), 1);
            black_box(plan.instances.len())
        })
    });
    group.bench_with_input(BenchmarkId::new("push_all_finish", n), &quads, |b, quads| {
        b.iter(|| {
            batcher.begin_frame();
            batcher.push_all(quads).expect("live textures");
            let plan = batcher.finish();
            assert_eq!(plan.segments.len(), 1);
            black_box(plan.instances.len())
        })
    });
    let src = vec![Instance::default(); n];
    let mut dst = vec![Instance::default(); n];
    group.bench_with_input(BenchmarkId::new("memcpy_instances", n), &src, |b, src| {
        b.iter(|| {
            dst.copy_from_slice(black_box(src));
            black_box(dst.as_ptr());
        })
    });
    group.finish();
}

criterion_group!(benches, push_vs_memcpy);
criterion_main!(benches);
