//! Per-pixel cost of layerbatch-gl's fragment work against a plain sprite shader, in one
//! criterion group so the ratios come from one run (see `examples/support/fill.rs` for the
//! cases): each iteration clears, draws `K` full-target quads and waits (`glFinish`), so per
//! pixel = time / (K * w * h). `cargo bench --bench fill`; with `CI` set, a smaller target.
//! GL 3.3 core on EGL (llvmpipe here), then wgpu on Vulkan (lavapipe here) with the baselines
//! in WGSL. `examples/pixel_cost.rs` counts instructions instead.

#[allow(unsafe_code, dead_code)]
#[path = "../examples/support/egl.rs"]
mod egl;
#[allow(unsafe_code)]
#[path = "../examples/support/fill.rs"]
mod fill;
#[path = "../examples/support/gpu.rs"]
mod gpu;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

fn bench(c: &mut Criterion) {
    let size: [u32; 2] = if std::env::var_os("CI").is_some() { [256, 192] } else { [640, 480] };
    let rig = match fill::GlRig::new(size) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("skipped: fill: no GL 3.3 context: {e}");
            return;
        }
    };
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
    let rig = match fill::WgpuRig::new(size) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("skipped: fill_wgpu: no Vulkan adapter: {e}");
            return;
        }
    };
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
