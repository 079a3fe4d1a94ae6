//! Per-pixel cost of layerbatch-gl's fragment work against a plain sprite shader, in one
//! criterion group so the ratios come from one run (see `examples/support/fill.rs` for the
//! cases): each iteration clears, draws `K` full-target quads and waits (`glFinish`), so per
//! pixel = time / (K * w * h). `cargo bench --bench fill`; with `CI` set, a smaller target.
//! GL 3.3 core on EGL (llvmpipe here). `examples/pixel_cost.rs` counts instructions instead.

#[allow(unsafe_code, dead_code)]
#[path = "../examples/support/egl.rs"]
mod egl;
#[allow(unsafe_code)]
#[path = "../examples/support/fill.rs"]
mod fill;

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
    for name in fill::GL_CASES {
        let mut case = fill::GlCase::new(&rig, name).expect("a case");
        eprintln!("fill/{name}: draws of tiers {:?}", case.tiers());
        g.bench_function(BenchmarkId::new(name, pixels), |b| b.iter(|| case.frame(&rig)));
        case.destroy();
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
