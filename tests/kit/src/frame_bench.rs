//! Whole frames of the stress scene on a (software) device, in one criterion group per backend
//! so the ratios come from one run: arrays on against arrays off (four power-of-two sizes),
//! and atlas packing on against off (64 loose images of random sizes). Used by
//! `benches/gl_frame.rs` and `benches/wgpu_frame.rs`.

use criterion::{BenchmarkId, Criterion};
use layerbatch_core::{Batcher, Config};

use crate::ci;
use crate::headless::{DeviceKind, Headless};
use crate::scene::{Scene, SceneOptions, Sizes};

/// Benchmarks one frame (step, push, finish, draw, wait for the device) on `kind`.
pub fn bench_frames(c: &mut Criterion, group: &str, kind: DeviceKind) {
    // Any `CI` value shrinks the scene (the benches' convention); `CI=true` also fails on a
    // missing device.
    let (sprites, size) = if std::env::var_os("CI").is_some() { (500, [256, 192]) } else { (5_000, [640, 480]) };
    let mut g = c.benchmark_group(group);
    g.sample_size(10);
    let runs = [
        ("arrays_on", Config::default(), Sizes::Pow2),
        ("arrays_off_16_slots", Config::default().with_arrays_enabled(false), Sizes::Pow2),
        ("mixed_packing_on", Config::default(), Sizes::Mixed),
        ("mixed_packing_off", Config::default().with_max_packed_size_px(0), Sizes::Mixed),
    ];
    for (name, config, sizes) in runs {
        let Some(mut dev) = ci::require(Headless::new(kind, size), group, &format!("{kind:?} device")) else {
            return;
        };
        let mut batcher = Batcher::new(dev.limits(), config).expect("budget");
        dev.init(batcher.budget()).expect("renderer");
        let opts = SceneOptions { sprites, textures: 64, viewport_px: size, sizes, ..SceneOptions::default() };
        let mut scene = Scene::new(&mut batcher, opts).expect("textures fit");
        let texels = scene.texel_bytes();
        let mut frame = |batcher: &mut Batcher, dev: &mut Headless| {
            let plan = scene.frame(batcher, 1.0 / 60.0);
            dev.draw(plan).expect("draw");
            plan.counters
        };
        frame(&mut batcher, &mut dev); // uploads
        let c = frame(&mut batcher, &mut dev);
        eprintln!(
            "{group}/{name} on {}: {sprites} sprites, {} draw calls, {} flushes, {} slot binds, max tier {} per frame, \
             {} arrays, {} bytes allocated for {} texel bytes",
            dev.adapter(),
            c.draw_calls,
            c.flushes,
            c.slot_binds,
            c.max_slot_tier,
            batcher.allocator().array_count(),
            c.bytes_allocated,
            texels,
        );
        g.bench_function(BenchmarkId::new(name, sprites), |b| b.iter(|| frame(&mut batcher, &mut dev)));
    }
    g.finish();
}
