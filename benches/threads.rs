//! Recording on several threads: a frame of whole quads (`push` of each, as a host that
//! builds its sprites' quads every frame does) from `begin_frame` to the plan `finish`
//! returns, on one thread and in parts on K threads ([`Batcher::record_parts`]), in one group
//! so the ratios come from one run. The host's threads are a rayon pool of K threads made
//! once (as a host that has one already lends it); the quads are made once.
//!
//! - `one_thread_push_finish`: every quad `push`ed on the calling thread, then `finish`.
//! - `parts_K_threads_push_finish`: the quads cut into K parts, each `push`ed by one of the
//!   pool's K threads into its part recorder, then `finish`.
//! - `..._sorted`: the same with a random y key set before each quad (a top-down scene's
//!   feet): the frame is sorted by key when it is planned.
//! - `memcpy_instances`: copying the frame's instance bytes (64 a quad) once.
//!
//! 1,000,000 quads over 256 textures (100,000 with the `CI` env var set).
//! `cargo bench --bench threads`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use layerbatch::plan::Instance;
use layerbatch::{Batcher, Config, Limits, PartRecorder, Quad, SortKey, TextureDesc};
use layerbatch_testkit::scene::texture_pixels;
use rayon::prelude::*;

const TEXTURES: usize = 256;

fn quads() -> usize {
    if std::env::var_os("CI").is_some() {
        100_000
    } else {
        1_000_000
    }
}

/// A batcher with 256 textures planned (resident) and `n` quads over them, with a random y
/// key each.
fn setup(n: usize) -> (Batcher, Vec<Quad>, Vec<SortKey>) {
    let config = Config::default().with_instance_capacity(1 << 20);
    let mut b = Batcher::new(Limits::guaranteed_minimum(), config).expect("budget");
    let sizes = [(16, 16), (24, 20), (32, 32), (20, 28)];
    let textures: Vec<_> = (0..TEXTURES)
        .map(|i| {
            let d = TextureDesc::new(sizes[i % 4].0, sizes[i % 4].1);
            b.textures().register(&d, &texture_pixels(i, d.width_px, d.height_px)).expect("fits")
        })
        .collect();
    let mut seed = 7u64;
    let mut next = move || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) as u32
    };
    let quads = (0..n)
        .map(|i| Quad::rect(textures[i % TEXTURES], [(next() % 1000) as f32, (next() % 1000) as f32], [16.0, 16.0]))
        .collect();
    let keys = (0..n).map(|_| SortKey::zy(0, (next() % 100_000) as f32 * 0.01)).collect();
    b.begin_frame();
    b.finish();
    (b, quads, keys)
}

fn push_each(part: &mut PartRecorder<'_>, quads: &[Quad], keys: Option<&[SortKey]>) {
    match keys {
        None => quads.iter().for_each(|q| part.push(q).expect("live texture")),
        Some(keys) => quads.iter().zip(keys).for_each(|(q, &k)| {
            part.set_sort_key(k);
            part.push(q).expect("live texture")
        }),
    }
}

fn threads(c: &mut Criterion) {
    let n = quads();
    let (mut b, quads, keys) = setup(n);
    let mut group = c.benchmark_group("threads");
    group.throughput(Throughput::Elements(n as u64));
    group.sample_size(20);
    for sorted in [false, true] {
        let suffix = if sorted { "_sorted" } else { "" };
        group.bench_function(BenchmarkId::new(format!("one_thread_push_finish{suffix}"), n), |bench| {
            bench.iter(|| {
                b.begin_frame();
                for (q, &k) in quads.iter().zip(&keys) {
                    if sorted {
                        b.state().set_sort_key(k);
                    }
                    b.push(q).expect("live texture");
                }
                black_box(b.finish().segments.len())
            })
        });
        for k in [1, 2, 3, 4] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(k).build().expect("a thread pool");
            let size = n.div_ceil(k);
            let name = format!("parts_{k}_threads_push_finish{suffix}");
            group.bench_function(BenchmarkId::new(name, n), |bench| {
                bench.iter(|| {
                    b.begin_frame();
                    b.record_parts(k, |parts| {
                        pool.install(|| {
                            parts
                                .par_iter_mut()
                                .zip(quads.par_chunks(size).zip(keys.par_chunks(size)))
                                .for_each(|(part, (quads, keys))| push_each(part, quads, sorted.then_some(keys)))
                        })
                    })
                    .expect("a frame is open");
                    let plan = b.finish();
                    assert_eq!((plan.instances.len(), plan.segments.len()), (n, 1));
                    black_box(plan.segments.len())
                })
            });
        }
    }
    let src = vec![Instance::default(); n];
    let mut dst = vec![Instance::default(); n];
    group.bench_function(BenchmarkId::new("memcpy_instances", n), |bench| {
        bench.iter(|| {
            dst.copy_from_slice(black_box(&src));
            black_box(dst.as_ptr());
        })
    });
    group.finish();
}

criterion_group!(benches, threads);
criterion_main!(benches);
