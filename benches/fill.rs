//! Per-pixel cost of layerbatch-gl's fragment work against a plain sprite shader, in one
//! criterion group so the ratios come from one run (see `layerbatch_testkit::fill` for the
//! cases): each iteration clears, draws `K` full-target quads and waits (`glFinish`), so per
//! pixel = time / (K * w * h). `cargo bench --bench fill`; with `CI` set, a smaller target.
//! GL 3.3 core on EGL (llvmpipe here), then wgpu on Vulkan (lavapipe here) with the baselines
//! in WGSL. `examples/pixel_cost.rs` counts instructions instead.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use layerbatch_testkit::{ci, fill};

fn bench(c: &mut Criterion) {
    let size: [u32; 2] = if std::env::var_os("CI").is_some() { [256, 192] } else { [640, 480] };
    let Some(rig) = ci::require(fill::GlRig::new(size), "fill", "GL 3.3 context") else { return };
    let pixels = rig.pixels();
    let mut g = c.benchmark_group("fill");
    g.sample_size(20);
    g.throughput(Throughput::Elements(pixels));
    eprintln!("fill: {} quads of {}x{} per frame, {pixels} pixels", fill::K, size[0], size[1]);
    for name in fill::CASES {
        let mut case = fill::GlCase::new(&rig, name).expect("a case");
        eprintln!("fill/{name}: draws of tiers {:?}", case.tiers());
        g.bench_function(BenchmarkId::new(name, pixels), |b| b.iter(|| case.frame(&rig)));
        case.destroy();
    }
    g.finish();

    // The same on layerbatch-wgpu (lavapipe here), with the baselines in WGSL.
    let Some(rig) = ci::require(fill::WgpuRig::new(size), "fill_wgpu", "Vulkan adapter") else { return };
    let mut g = c.benchmark_group("fill_wgpu");
    g.sample_size(20);
    g.throughput(Throughput::Elements(rig.pixels()));
    for name in fill::CASES {
        let mut case = fill::WgpuCase::new(&rig, name).expect("a case");
        eprintln!("fill_wgpu/{name}: max tier {}", case.max_tier());
        g.bench_function(BenchmarkId::new(name, pixels), |b| b.iter(|| case.frame(&rig)));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
