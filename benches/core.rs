//! Core throughput: pushing quads into a frame plan (one by one, and as a slice; in painter's
//! order, and sorted by random keys or by a few layers) against a plain copy of the same
//! number of instance bytes, in one group so the ratios come from one run.
//! And a level unload: the plans after freeing 3 of every 4 of 40,000 textures (the
//! auto-compaction among them), against a plan that frees nothing, in one group.
//!
//! `cargo bench --bench core`. With the `CI` env var set, sizes shrink.

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use layerbatch::plan::Instance;
use layerbatch::{Batcher, Config, Limits, Quad, SortKey, TextureDesc};
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
            batcher.textures().register(&d, &vec![i as u8; d.byte_len()]).expect("fits the budget")
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
    // Random y keys (a top-down scene's feet), and z layers of a quarter of the quads each
    // pushed in reverse (the sort moves every quad).
    let mut seed = 7u64;
    let keys: Vec<SortKey> = (0..n)
        .map(|_| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            SortKey::zy(0, ((seed >> 33) % 100_000) as f32 * 0.01)
        })
        .collect();
    group.bench_with_input(BenchmarkId::new("sort_key_and_push_random_keys_finish", n), &quads, |b, quads| {
        b.iter(|| {
            batcher.begin_frame();
            for (q, &key) in quads.iter().zip(&keys) {
                batcher.state().set_sort_key(key);
                batcher.push(q).expect("live texture");
            }
            let plan = batcher.finish();
            assert_eq!((plan.segments.len(), plan.counters.sorted_items), (1, quads.len() as u64));
            black_box(plan.instances.len())
        })
    });
    group.bench_with_input(BenchmarkId::new("push_all_sorted_4_layers_finish", n), &quads, |b, quads| {
        b.iter(|| {
            batcher.begin_frame();
            for (z, chunk) in quads.chunks(quads.len().div_ceil(4)).enumerate() {
                batcher.state().set_sort_key(SortKey::z(3 - z as i16));
                batcher.push_all(chunk).expect("live textures");
            }
            let plan = batcher.finish();
            assert_eq!((plan.segments.len(), plan.counters.sorted_items), (1, quads.len() as u64));
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

/// 40,000 small textures registered and planned once, as a level would leave them.
fn level(textures: u32) -> (Batcher, Vec<layerbatch::TextureId>) {
    let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default()).expect("default config");
    let ids = (0..textures)
        .map(|i| {
            let d = TextureDesc::new(8 + i % 9, 8 + i % 7);
            batcher.textures().register(&d, &vec![i as u8; d.byte_len()]).expect("fits the budget")
        })
        .collect();
    batcher.begin_frame();
    batcher.finish();
    (batcher, ids)
}

fn level_unload(c: &mut Criterion) {
    let n = 40_000;
    let mut group = c.benchmark_group("unload");
    group.sample_size(10);
    // The plans after the unload, until memory has come back (auto-compaction runs at the
    // third): what a host pays for dropping a level.
    let unloaded = || {
        let (mut batcher, ids) = level(n);
        for (i, &id) in ids.iter().enumerate() {
            if i % 4 != 0 {
                batcher.textures().free(id).expect("live");
            }
        }
        batcher
    };
    group.bench_function(BenchmarkId::new("free_3_of_4_then_4_finishes", n), |b| {
        b.iter_batched(
            unloaded,
            |mut batcher| {
                let mut copies = 0;
                for _ in 0..4 {
                    batcher.begin_frame();
                    copies += batcher.finish().counters.rect_copies;
                }
                assert!(copies > 0, "the unload compacted");
                batcher
            },
            BatchSize::PerIteration,
        )
    });
    // The one finish of those that compacts (the one that took 766 ms while each moved
    // rectangle was found by a scan of the registry).
    group.bench_function(BenchmarkId::new("compacting_finish", n), |b| {
        b.iter_batched(
            || {
                let mut batcher = unloaded();
                for _ in 0..2 {
                    batcher.begin_frame();
                    batcher.finish();
                }
                batcher
            },
            |mut batcher| {
                batcher.begin_frame();
                batcher.finish();
                assert!(batcher.textures().pending_ops().len() > 1000, "this finish compacted");
                batcher
            },
            BatchSize::PerIteration,
        )
    });
    // The same four plans with nothing freed: the baseline.
    group.bench_function(BenchmarkId::new("no_unload_4_finishes", n), |b| {
        b.iter_batched(
            || level(n).0,
            |mut batcher| {
                for _ in 0..4 {
                    batcher.begin_frame();
                    batcher.finish();
                }
                batcher
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

criterion_group!(benches, push_vs_memcpy, level_unload);
criterion_main!(benches);
