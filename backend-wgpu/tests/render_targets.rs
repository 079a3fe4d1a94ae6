//! Render targets on wgpu (each on wgpu's Vulkan backend, lavapipe, and its GL backend,
//! llvmpipe): a mipmapped target's levels are regenerated after each plan drawn into it, and a
//! host that only draws into targets (never calling `render`) holds bounded resources.

use crate::common;

use common::{color, draw, setup, Gpu, CLEAR, SIZE};
use layerbatch_core::{Batcher, BlendMode, Config, Filter, Format, MockDevice, Quad, TextureDesc, Usage};

on_both_backends!(render_target_mip_levels_regenerated, target_only_frames_stay_bounded);

const RED: [u8; 4] = [255, 0, 0, 255];
const BLUE: [u8; 4] = [0, 0, 255, 255];

/// A 64x64 render target of 7 levels (linear filtering), in each format, drawn a 1 px
/// checkerboard of red and blue: every level above 0 is that average, (128, 0, 128) on the
/// screen (the sRGB target averages in linear light too: in sRGB values it would be (54, 0,
/// 54) on the linear screen). A later plan draws it 1:1 (level 0: the checkerboard) and
/// minified to 8x8 (level 3) and 16x16 (level 2). Before the regeneration, levels 1.. held
/// nothing (black). The device counts the levels regenerated as core's mock does.
fn render_target_mip_levels_regenerated(gpu: &Gpu) {
    for format in [Format::Rgba8Unorm, Format::Rgba8UnormSrgb] {
        let (mut b, mut r) = setup(gpu, Config::default());
        let mut mock = MockDevice::new(b.budget());
        let what = |s: &str| format!("{}: {format:?} target: {s}", gpu.adapter);
        let white = b.textures().white().unwrap();
        let desc = TextureDesc::new(64, 64)
            .with_format(format)
            .with_mip_levels(7)
            .with_filter(Filter::Linear)
            .with_usage(Usage::RenderTarget);
        let rt = b.textures().register(&desc, &[]).unwrap();
        b.begin_frame_into(rt, Some([0.0, 0.0, 0.0, 1.0])).unwrap();
        for y in 0..64 {
            for x in 0..64 {
                let c = if (x + y) % 2 == 0 { RED } else { BLUE };
                b.push(&Quad::solid(white, [x as f32, y as f32], [1.0, 1.0], c)).unwrap();
            }
        }
        let plan = b.finish();
        mock.execute(plan).unwrap();
        draw(gpu, &mut r, plan);
        let (d, m) = (r.stats().device_frame, mock.frame_counters());
        assert_eq!(d.mip_levels_regenerated, 6, "{}", what("levels 1..7 of the target layer"));
        assert_eq!(d.mip_levels_regenerated, m.mip_levels_regenerated, "{}", what("the mock's count"));

        b.begin_frame();
        b.push(&Quad::rect(rt, [0.0, 0.0], [64.0, 64.0])).unwrap();
        b.push(&Quad::rect(rt, [100.0, 0.0], [8.0, 8.0])).unwrap();
        b.push(&Quad::rect(rt, [100.0, 20.0], [16.0, 16.0])).unwrap();
        let plan = b.finish();
        mock.execute(plan).unwrap();
        let frame = draw(gpu, &mut r, plan);
        let (d, m) = (r.stats().device_frame, mock.frame_counters());
        assert_eq!((d.mip_levels_regenerated, m.mip_levels_regenerated), (0, 0), "{}", what("a screen plan"));
        frame.expect(10, 10, RED, 1, &what("level 0, 1:1"));
        frame.expect(11, 10, BLUE, 1, &what("level 0, 1:1"));
        let average = [128, 0, 128, 255];
        for y in 0..8 {
            for x in 0..8 {
                frame.expect(100 + x, y, average, 2, &what("minified 8x (level 3)"));
            }
        }
        for (x, y) in [(100, 20), (108, 28), (115, 35)] {
            frame.expect(x, y, average, 2, &what("minified 4x (level 2)"));
        }
        frame.expect(108, 10, CLEAR, 0, &what("beside the minified quads"));
        let levels = r.array_texture(b.placement(rt).unwrap().array).map(wgpu::Texture::mip_level_count);
        assert_eq!(levels, Some(7));
        // The mip pipelines are made in `new` and not counted in `pipeline_compiles`: only
        // the sprite pipelines are. A render target is a pass kind: this one's (Rgba8Unorm, one
        // sample, no depth) is the host pass's when the formats match, and then shares its
        // pipelines.
        let sprite_pipelines = (b.budget().tiers.len() * BlendMode::ALL.len()) as u64;
        let kinds = if format == Format::Rgba8Unorm { 1 } else { 2 }; // the host pass: `common::FORMAT`
        assert_eq!(r.pass_kinds(), kinds, "{}", what("pass kinds"));
        assert_eq!(r.stats().device_total.pipeline_compiles, kinds as u64 * sprite_pipelines, "{}", what("pipelines"));
    }
}

/// 1,000 plans drawn into a render target, with no `render` (a host that only composes into
/// targets): each is complete when `prepare` returns, so the renderer holds none of them (no
/// instance space, globals uniform or draw list piling up, no "plans without a render"
/// warning), and a final screen plan draws the last target plan's content right.
fn target_only_frames_stay_bounded(gpu: &Gpu) {
    let (mut b, mut r) = setup(gpu, Config::default());
    let white = b.textures().white().unwrap();
    let rt = b.textures().register(&TextureDesc::new(64, 64).with_usage(Usage::RenderTarget), &[]).unwrap();
    // 200 quads of 4x4 px a plan, in rows of 16: y 0..52.
    let plan_into = |b: &mut Batcher, i: usize| {
        b.begin_frame_into(rt, Some([0.0, 0.0, 0.0, 1.0])).unwrap();
        for k in 0..200 {
            let at = [(k % 16) as f32 * 4.0, (k / 16) as f32 * 4.0];
            b.push(&Quad::solid(white, at, [4.0, 4.0], color(i % 250))).unwrap();
        }
    };
    let held = |r: &common::Rig| {
        (
            r.prepared_plans(),
            r.globals_uniforms(),
            r.instance_buffers(),
            r.instance_buffer_bytes(),
            r.cached_bind_groups(),
        )
    };
    let mut after_ten = None;
    for i in 0..1000 {
        plan_into(&mut b, i);
        r.prepare(&gpu.device, &gpu.queue, b.finish(), [SIZE, SIZE])
            .unwrap_or_else(|e| panic!("{}: target plan {i}: {e}", gpu.adapter));
        assert_eq!(r.prepared_plans(), 0, "{}: target plan {i} is not held for a render", gpu.adapter);
        if i == 9 {
            after_ten = Some(held(&r));
        }
        if i % 100 == 99 {
            gpu.device.poll(wgpu::PollType::Poll).unwrap();
        }
    }
    let after_ten = after_ten.unwrap();
    assert_eq!(held(&r), after_ten, "{}: held after 1,000 target plans = after 10", gpu.adapter);
    assert_eq!(after_ten.1, 1, "{}: one globals uniform", gpu.adapter);

    b.begin_frame();
    b.push(&Quad::rect(rt, [0.0, 0.0], [64.0, 64.0])).unwrap();
    let frame = draw(gpu, &mut r, b.finish());
    let what = format!("{}: the screen plan after 1,000 target plans", gpu.adapter);
    frame.expect(2, 2, color(999 % 250), 0, &what);
    frame.expect(30, 50, color(999 % 250), 0, &what);
    frame.expect(40, 50, [0, 0, 0, 255], 0, &what);
    frame.expect(70, 10, CLEAR, 0, &what);
    assert_eq!(r.prepared_plans(), 1);
}
