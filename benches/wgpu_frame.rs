//! Whole frames of the stress scene with layerbatch-wgpu on wgpu's Vulkan backend (lavapipe here): arrays on against arrays off (16-slot
//! ladder), in one group. `cargo bench --bench wgpu_frame`; with the `CI` env var set, a
//! smaller scene.

use criterion::{criterion_group, criterion_main, Criterion};
use layerbatch_testkit::{frame_bench, headless};

fn bench(c: &mut Criterion) {
    frame_bench::bench_frames(c, "wgpu_frame", headless::DeviceKind::WgpuVulkan);
}

criterion_group!(benches, bench);
criterion_main!(benches);
