//! Whole frames of the stress scene with layerbatch-gl on GL 3.3 core (EGL, llvmpipe here): arrays on against arrays off (16-slot
//! ladder), in one group. `cargo bench --bench gl_frame`; with the `CI` env var set, a
//! smaller scene.

use criterion::{criterion_group, criterion_main, Criterion};
use layerbatch_testkit::{frame_bench, headless};

fn bench(c: &mut Criterion) {
    frame_bench::bench_frames(c, "gl_frame", headless::DeviceKind::Gl);
}

criterion_group!(benches, bench);
criterion_main!(benches);
