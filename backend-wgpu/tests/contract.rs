//! The plan contract on wgpu: plans are validated by core before the device is touched, out
//! of order plans are refused and recovered from with a rebuild, any number of quads is drawn
//! from bounded buffers, staged writes respect `max_buffer_size`, and whatever wgpu refuses
//! comes back from `prepare` as an error, never at the uncaptured-error handler.

use crate::common;
// Hand-made plans, shared with the GL backend's tests.
use layerbatch_testkit::plans;

use std::time::Instant;

use common::{assert_no_uncaptured, color, draw, record_uncaptured, setup, solid, try_draw, Gpu, CLEAR, SIZE};
use layerbatch_core::plan::{ArrayDesc, ArrayId, ArrayOp, FlushCause, ResourceOp};
use layerbatch_core::{
    Batcher, Config, Filter, Format, FramePlan, PlanError, Quad, QuadVertices, Sampler, TextureDesc, TextureId, Usage,
    Wrap,
};
use layerbatch_wgpu::{device_limits, Error, Renderer, RendererOptions};

on_both_backends!(
    skipped_plan_recovers,
    bad_plans_give_the_validator_errors,
    device_error_is_an_error_then_rebuild_recovers,
    flush_without_binds_keeps_the_bind_group,
);

/// Quads per frame of the 5-million test, and the smaller frame of the small-buffer test.
const FIVE_MILLION: u32 = 5_000_000;

/// One-pixel quads of `textures` (solid colours `color(0..)`), quad `i` at pixel `i % SIZE²`
/// (row-major) with texture `(i / 7) % textures.len()`: every pixel is covered many times, and
/// the last quad on it decides its colour.
fn one_pixel_quads(b: &mut Batcher, textures: &[TextureId], quads: u32) {
    let pixels = SIZE * SIZE;
    b.begin_frame();
    for i in 0..quads {
        let p = i % pixels;
        let t = textures[(i / 7) as usize % textures.len()];
        b.push(&Quad::rect(t, [(p % SIZE) as f32, (p / SIZE) as f32], [1.0, 1.0])).unwrap();
    }
}

/// Checks every pixel of a frame of [`one_pixel_quads`].
fn expect_one_pixel_quads(frame: &common::Frame, textures: usize, quads: u32, what: &str) {
    let pixels = SIZE * SIZE;
    for p in 0..pixels.min(quads) {
        // The last quad drawn on pixel p.
        let last = p + (quads - 1 - p) / pixels * pixels;
        let want = color((last / 7) as usize % textures);
        frame.expect(p % SIZE, p / SIZE, want, 0, &format!("{what}: pixel {p}, last quad {last}"));
    }
}

/// Five million quads in one frame: more than one vertex buffer of the device's
/// `max_buffer_size` would hold at once is fine, because the instances live in one buffer per
/// block of `instance_capacity`. Prepared, rendered, submitted: no error anywhere, at least
/// one draw per block, every pixel right.
#[test]
fn wgpu_five_million_quads() {
    let Some(gpu) = common::gpu(wgpu::Backends::VULKAN, "wgpu_five_million_quads") else {
        return;
    };
    // Indexed (the default on this software device: 1.28 GB of vertices) and instanced.
    for quads in [QuadVertices::Auto, QuadVertices::Instanced] {
        five_million_quads(&gpu, quads);
    }
}

fn five_million_quads(gpu: &Gpu, quads: QuadVertices) {
    let errors = record_uncaptured(&gpu.device);
    let started = Instant::now();
    let (mut b, mut r) = setup(gpu, Config::default().with_quad_vertices(quads));
    assert_eq!(b.budget().indexed_quads, quads == QuadVertices::Auto, "lavapipe is a software rasterizer");
    let capacity = b.budget().instance_capacity;
    let quad_bytes = u64::from(b.budget().quad_bytes());
    assert_eq!(capacity, 65536);
    let ids: Vec<TextureId> =
        (0..3).map(|i| b.textures().register(&TextureDesc::new(4, 4), &solid(4, 4, color(i))).unwrap()).collect();
    one_pixel_quads(&mut b, &ids, FIVE_MILLION);
    let plan = b.finish();
    assert_eq!(plan.instances.len(), FIVE_MILLION as usize);
    let planned = started.elapsed();
    let frame = try_draw(gpu, &mut r, plan).unwrap_or_else(|e| panic!("{}: {e}", gpu.adapter));
    let drawn = started.elapsed();
    assert_no_uncaptured(&errors, "five million quads");
    let s = r.stats();
    let blocks = u64::from(FIVE_MILLION).div_ceil(u64::from(capacity));
    assert_eq!(s.core_frame.quads, u64::from(FIVE_MILLION));
    assert!(s.device_frame.draw_calls >= blocks, "{} draws for {blocks} blocks", s.device_frame.draw_calls);
    assert_eq!(s.device_frame.draw_calls, s.core_frame.draw_calls);
    assert_eq!(s.device_frame.instance_bytes_written, u64::from(FIVE_MILLION) * quad_bytes);
    assert_eq!(r.instance_buffers() as u64, blocks, "one vertex buffer per block");
    assert!(r.instance_buffer_bytes() <= blocks * u64::from(capacity) * quad_bytes);
    expect_one_pixel_quads(&frame, ids.len(), FIVE_MILLION, "five million quads");
    println!(
        "{}: 5,000,000 quads ({quads:?}): planned in {planned:.2?}, prepared, rendered and read back by \
         {drawn:.2?}, {} draws",
        gpu.adapter, s.device_frame.draw_calls
    );
}

/// The same on a device whose `max_buffer_size` is 1 MiB (on both backends): the batcher's
/// instance capacity shrinks to what one buffer holds, a frame of 100,000 quads spans several
/// blocks, and a smaller frame afterwards reuses the pool.
#[test]
fn instance_blocks_within_a_small_max_buffer_size() {
    for backends in [wgpu::Backends::VULKAN, wgpu::Backends::GL] {
        let test = format!("instance_blocks_within_a_small_max_buffer_size ({backends:?})");
        let Some(gpu) = common::gpu_with(backends, &test, |l| l.max_buffer_size = 1 << 20) else {
            continue;
        };
        let errors = record_uncaptured(&gpu.device);
        let (mut b, mut r) = setup(&gpu, Config::default());
        let capacity = b.budget().instance_capacity;
        assert_eq!(capacity, (1 << 20) / b.budget().quad_bytes(), "{test}: the capacity one buffer holds");
        let ids: Vec<TextureId> =
            (0..5).map(|i| b.textures().register(&TextureDesc::new(4, 4), &solid(4, 4, color(i))).unwrap()).collect();
        for quads in [100_000u32, 30_000] {
            one_pixel_quads(&mut b, &ids, quads);
            let plan = b.finish();
            let frame = try_draw(&gpu, &mut r, plan).unwrap_or_else(|e| panic!("{test}: {e}"));
            assert_no_uncaptured(&errors, &test);
            let blocks = u64::from(quads).div_ceil(u64::from(capacity));
            let s = r.stats();
            assert!(s.device_frame.draw_calls >= blocks, "{test}: {quads} quads");
            assert_eq!(s.core_frame.flushes_instance_buffer_full, blocks - 1, "{test}: {quads} quads");
            // The largest frame is the first: 100,000 quads.
            let largest = 100_000u32.div_ceil(capacity);
            assert_eq!(r.instance_buffers(), largest as usize, "{test}: the pool has the largest frame's blocks");
            assert!(r.instance_buffer_bytes() <= u64::from(largest) << 20, "{test}: no buffer above max_buffer_size");
            expect_one_pixel_quads(&frame, ids.len(), quads, &test);
        }
    }
}

/// Texel `(x, y)` of level `level` of texture `t` in [`staged_writes_beyond_max_buffer_size`]:
/// unique within a texture's level, so a misplaced row or chunk shows.
fn texel(t: u32, level: u32, x: u32, y: u32) -> [u8; 4] {
    [(x % 256) as u8, (y % 256) as u8, (t * 64 + level * 16 + (x / 256) * 2 + y / 256) as u8, 255]
}

fn level_pixels(t: u32, level: u32, w: u32, h: u32) -> Vec<u8> {
    (0..h).flat_map(|y| (0..w).flat_map(move |x| texel(t, level, x, y))).collect()
}

/// A device with a 1 MiB `max_buffer_size`, 1024x512 textures with 3 levels (level 0 is
/// 2 MiB): two are written before a growth (queue writes), two after it, which are staged:
/// 5.25 MiB in buffers of at most 1 MiB, each level 0 split by rows. Every level of every
/// texture shows exactly its texels, and no error reaches the uncaptured handler.
#[test]
fn staged_writes_beyond_max_buffer_size() {
    for backends in [wgpu::Backends::VULKAN, wgpu::Backends::GL] {
        let test = format!("staged_writes_beyond_max_buffer_size ({backends:?})");
        let Some(gpu) = common::gpu_with(backends, &test, |l| l.max_buffer_size = 1 << 20) else {
            continue;
        };
        let errors = record_uncaptured(&gpu.device);
        let (mut b, mut r) = setup(&gpu, Config::default().with_initial_layers(2));
        let (w, h, levels) = (1024, 512, 3);
        let desc = TextureDesc::new(w, h).with_filter(Filter::Nearest).with_mip_levels(levels);
        let mut ids = Vec::new();
        for t in 0..4 {
            ids.push(b.textures().register(&desc, &level_pixels(t, 0, w, h)).unwrap());
            if t == 1 || t == 3 {
                // Frame: textures 0 and 1 (queue writes), then 2 and 3 after the growth.
                b.begin_frame();
                let mut plan = b.finish().clone();
                if t == 3 {
                    assert_eq!(plan.counters.array_growths, 1, "{test}: the third texture grows the array");
                }
                // Levels 1.. as their own patterns, in place of the generated mips.
                let mut staged = 0;
                let mut after_growth = false;
                for op in &plan.ops.clone() {
                    after_growth |= matches!(op, ResourceOp::Array(ArrayOp::Grow { .. }));
                    let ResourceOp::WriteLayer { texture, .. } = op else { continue };
                    let t = ids.iter().position(|id| id == texture).unwrap() as u32;
                    for l in op.levels(Format::Rgba8Unorm) {
                        let px = level_pixels(t, l.level, l.width_px, l.height_px);
                        plan.upload_bytes[l.bytes.clone()].copy_from_slice(&px);
                        if after_growth {
                            staged += l.bytes.len();
                        }
                    }
                }
                if t == 3 {
                    assert!(staged > 5 << 20, "{test}: {staged} bytes staged");
                }
                let frame = try_draw(&gpu, &mut r, &plan).unwrap_or_else(|e| panic!("{test}: {e}"));
                assert_no_uncaptured(&errors, &test);
                drop(frame);
            }
        }
        // Each texture in its own frame: level 0 1:1 across row 256 (where a 1 MiB buffer of
        // 4 KiB rows splits it) and at the bottom, level 1 and level 2 shown 1:1 by minifying.
        for (t, &id) in ids.iter().enumerate() {
            let t = t as u32;
            let (fw, fh) = (w as f32, h as f32);
            b.begin_frame();
            // Level 0, texels (300.., 224..288) at (0, 0), 128x64.
            b.push(&Quad::rect(id, [0.0, 0.0], [128.0, 64.0]).with_uv([
                300.0 / fw,
                224.0 / fh,
                428.0 / fw,
                288.0 / fh,
            ]))
            .unwrap();
            // Level 0, texels (896.., 448..512) at (128, 0), 128x64.
            b.push(&Quad::rect(id, [128.0, 0.0], [128.0, 64.0]).with_uv([896.0 / fw, 448.0 / fh, 1.0, 1.0])).unwrap();
            // Level 1: 256x256 level-0 texels on 128x128 px.
            b.push(&Quad::rect(id, [0.0, 64.0], [128.0, 128.0]).with_uv([0.0, 0.0, 256.0 / fw, 256.0 / fh])).unwrap();
            // Level 2: 256x256 level-0 texels on 64x64 px.
            b.push(&Quad::rect(id, [128.0, 64.0], [64.0, 64.0]).with_uv([0.0, 0.0, 256.0 / fw, 256.0 / fh])).unwrap();
            let frame = try_draw(&gpu, &mut r, b.finish()).unwrap_or_else(|e| panic!("{test}: {e}"));
            assert_no_uncaptured(&errors, &test);
            let what = |region: &str| format!("{test}: texture {t}, {region}");
            for y in 0..64 {
                for x in 0..128 {
                    frame.expect(x, y, texel(t, 0, 300 + x, 224 + y), 0, &what("level 0 across row 256"));
                    frame.expect(128 + x, y, texel(t, 0, 896 + x, 448 + y), 0, &what("level 0, bottom rows"));
                }
            }
            for y in 0..128 {
                for x in 0..128 {
                    frame.expect(x, 64 + y, texel(t, 1, x, y), 0, &what("level 1"));
                }
            }
            for y in 0..64 {
                for x in 0..64 {
                    frame.expect(128 + x, 64 + y, texel(t, 2, x, y), 0, &what("level 2"));
                }
            }
        }
    }
}

/// Plan 2 is finished and never prepared (it registers a new texture, growing the array): plan
/// 3 is refused as out of order, and so is a repeat of plan 1. After `restore` and re-uploading
/// the textures it lists, the rebuild plan draws every texture, the skipped one included, in
/// its own colour.
fn skipped_plan_recovers(gpu: &Gpu) {
    let errors = record_uncaptured(&gpu.device);
    // Size classes, not atlas pages: the fifth texture must grow the array.
    let (mut b, mut r) = setup(gpu, Config::default().with_max_packed_size_px(0));
    let mut ids: Vec<TextureId> =
        (0..4).map(|i| b.textures().register(&TextureDesc::new(16, 16), &solid(16, 16, color(i))).unwrap()).collect();
    let frame_of = |b: &mut Batcher, ids: &[TextureId]| {
        b.begin_frame();
        for (i, &id) in ids.iter().enumerate() {
            b.push(&Quad::rect(id, [i as f32 * 32.0 + 4.0, 4.0], [24.0, 24.0])).unwrap();
        }
        b.finish().clone()
    };
    let check = |frame: &common::Frame, n: usize, what: &str| {
        for i in 0..n {
            frame.expect(i as u32 * 32 + 16, 16, color(i), 1, &format!("{what}: texture {i}"));
        }
    };
    let plan1 = frame_of(&mut b, &ids);
    check(&draw(gpu, &mut r, &plan1), 4, "plan 1");

    ids.push(b.textures().register(&TextureDesc::new(16, 16), &solid(16, 16, color(4))).unwrap());
    let skipped = frame_of(&mut b, &ids);
    assert_eq!(skipped.counters.array_growths, 1, "the fifth texture grows the array");
    let plan3 = frame_of(&mut b, &ids);
    let arrays = r.array_count();
    for (plan, expected, got) in [(&plan3, 2, 3), (&plan1, 2, 1)] {
        match try_draw(gpu, &mut r, plan) {
            Err(Error::Plan(e)) => assert_eq!(e, PlanError::Sequence { expected, got }),
            other => panic!("{}: plan {got} after plan 1: {:?}", gpu.adapter, other.err()),
        }
    }
    assert_eq!(r.array_count(), arrays, "a refused plan changes nothing");

    let lost = b.restore();
    assert!(lost.contains(&ids[4]), "the texture of the skipped plan is listed");
    for &id in &lost {
        let i = ids.iter().position(|&t| t == id).unwrap();
        b.textures().update(id, &solid(16, 16, color(i))).unwrap();
    }
    let rebuild = frame_of(&mut b, &ids);
    assert!(rebuild.rebuild);
    check(&draw(gpu, &mut r, &rebuild), 5, "the rebuild plan");
    assert_eq!(r.array_count(), b.allocator().arrays().count(), "only the live arrays");
    assert_eq!(r.stats().core_frame.device_rebuilds, 1);
    check(&draw(gpu, &mut r, &frame_of(&mut b, &ids)), 5, "the plan after it");
    assert_no_uncaptured(&errors, &gpu.adapter);
}

/// Every plan of `plans::bad_plans` is refused with exactly the validator's error, changing
/// nothing; the good plan then draws right.
fn bad_plans_give_the_validator_errors(gpu: &Gpu) {
    let errors = record_uncaptured(&gpu.device);
    let (mut b, mut r) = setup(gpu, Config::default());
    let id = b.textures().register(&TextureDesc::new(1, 1), &[0; 4]).unwrap(); // only names the writes
    for (name, plan, expected) in plans::bad_plans(id, b.budget()) {
        match try_draw(gpu, &mut r, &plan) {
            Err(Error::Plan(e)) => assert_eq!(e, expected, "{}: {name}", gpu.adapter),
            other => panic!("{}: {name}: expected {expected:?}, got {:?}", gpu.adapter, other.err()),
        }
        assert_eq!(r.array_count(), 0, "{name}: nothing applied");
    }
    assert_no_uncaptured(&errors, &gpu.adapter);
    let frame = draw(gpu, &mut r, &plans::offset_write(id, b.budget()));
    for y in 8..16 {
        for x in 16..24 {
            frame.expect(x, y, [0, 255, 0, 255], 0, "the offset write");
        }
    }
    for (x, y) in [(0, 0), (15, 8), (24, 8), (16, 7), (16, 16), (31, 31)] {
        frame.expect(x, y, [255, 0, 0, 255], 0, "outside the offset write");
    }
    assert_no_uncaptured(&errors, &gpu.adapter);
}

/// A batcher built with inflated limits (a texture size twice the device's) plans an array the
/// validator accepts and wgpu refuses: `prepare` returns `Error::Device`, the error never
/// reaches the uncaptured handler, and the renderer accepts only a rebuild plan next, which
/// (without the oversized texture) draws right.
fn device_error_is_an_error_then_rebuild_recovers(gpu: &Gpu) {
    let errors = record_uncaptured(&gpu.device);
    let huge = gpu.device.limits().max_texture_dimension_2d * 2;
    let limits = device_limits(&gpu.device).with_max_texture_size_px(huge);
    let mut b = Batcher::new(limits, Config::default().with_budget_bytes(u64::MAX)).unwrap();
    let mut r =
        common::Rig::new(Renderer::new(&gpu.device, common::FORMAT, b.budget(), &RendererOptions::default()).unwrap());
    let green = b.textures().register(&TextureDesc::new(16, 16), &solid(16, 16, color(1))).unwrap();
    let target = b.textures().register(&TextureDesc::new(huge, 16).with_usage(Usage::RenderTarget), &[]).unwrap();
    b.begin_frame();
    b.push(&Quad::rect(green, [8.0, 8.0], [32.0, 32.0])).unwrap();
    b.push(&Quad::rect(target, [48.0, 8.0], [32.0, 32.0])).unwrap();
    match try_draw(gpu, &mut r, b.finish()) {
        Err(Error::Device { op, message }) => {
            assert!(op.contains("creating array"), "{}: {op}: {message}", gpu.adapter);
            println!("{}: {op}: {message}", gpu.adapter);
        }
        other => panic!("{}: expected Error::Device, got {:?}", gpu.adapter, other.err()),
    }
    assert_eq!(r.array_count(), 0, "the renderer holds nothing after a device error");
    assert_no_uncaptured(&errors, &gpu.adapter);

    // Only a rebuild plan is accepted now.
    b.begin_frame();
    b.push(&Quad::rect(green, [8.0, 8.0], [32.0, 32.0])).unwrap();
    assert!(matches!(try_draw(gpu, &mut r, b.finish()), Err(Error::Plan(PlanError::NeedsRebuild { .. }))));
    b.textures().free(target).unwrap();
    for id in b.restore() {
        b.textures().update(id, &solid(16, 16, color(1))).unwrap();
    }
    b.begin_frame();
    b.push(&Quad::rect(green, [8.0, 8.0], [32.0, 32.0])).unwrap();
    let frame = draw(gpu, &mut r, b.finish());
    frame.expect(24, 24, color(1), 1, "green after the rebuild");
    frame.expect(60, 24, CLEAR, 0, "nothing where the render target was");
    assert_no_uncaptured(&errors, &gpu.adapter);
}

/// A hand-made plan creating an array of the device's largest size and layer count, hundreds
/// of GiB: the validator accepts it (it is within the budget's limits), the device cannot hold
/// it, and `prepare` says so with an error instead of the uncaptured handler.
#[test]
fn out_of_memory_is_an_error() {
    let Some(gpu) = common::gpu(wgpu::Backends::VULKAN, "out_of_memory_is_an_error") else {
        return;
    };
    let errors = record_uncaptured(&gpu.device);
    let (b, mut r) = setup(&gpu, Config::default());
    let budget = b.budget();
    let size = budget.max_texture_size_px;
    let desc = ArrayDesc {
        width_px: size,
        height_px: size,
        layers: budget.max_layers_per_array,
        format: Format::Rgba8Unorm,
        mip_levels: 1,
        sampler: Sampler::new(Filter::Linear, Wrap::ClampToEdge),
        render_target: false,
        normal_map: false,
        host: None,
    };
    assert!(desc.bytes() > 64 << 30, "{} bytes", desc.bytes());
    let plan = FramePlan {
        sequence: 1,
        ops: vec![ResourceOp::Array(ArrayOp::Create { array: ArrayId(0), desc })],
        instance_capacity: budget.instance_capacity,
        ..FramePlan::default()
    };
    match try_draw(&gpu, &mut r, &plan) {
        Err(Error::Device { op, message }) => {
            println!("{}: {op}: {message}", gpu.adapter);
            // wgpu's words for `ErrorFilter::OutOfMemory`.
            assert!(message.contains("Out of Memory"), "{}: {op}: {message}", gpu.adapter);
        }
        other => panic!("{}: expected Error::Device, got {:?}", gpu.adapter, other.err()),
    }
    assert_no_uncaptured(&errors, &gpu.adapter);
}

/// An explicit flush between quads of the same arrays makes a segment without binds and of
/// the same tier: it keeps the bind group set for the first (one set per render for the
/// globals, one for the slots), and both draw right.
fn flush_without_binds_keeps_the_bind_group(gpu: &Gpu) {
    let (mut b, mut r) = setup(gpu, Config::default());
    let ids: Vec<TextureId> = (0..2)
        .map(|i| b.textures().register(&TextureDesc::new(8, 8 + i), &solid(8, 8 + i, color(i as usize))).unwrap())
        .collect();
    b.begin_frame();
    b.push(&Quad::rect(ids[0], [0.0, 0.0], [16.0, 16.0])).unwrap();
    b.push(&Quad::rect(ids[1], [20.0, 0.0], [16.0, 16.0])).unwrap();
    b.flush();
    b.push(&Quad::rect(ids[1], [40.0, 0.0], [16.0, 16.0])).unwrap();
    b.push(&Quad::rect(ids[0], [60.0, 0.0], [16.0, 16.0])).unwrap();
    let plan = b.finish();
    assert_eq!(plan.segments.len(), 2);
    assert_eq!(plan.segments[1].cause, FlushCause::EndOfFrame);
    assert!(plan.binds(&plan.segments[1]).is_empty(), "the second segment rebinds nothing");
    assert_eq!(plan.segments[0].tier, plan.segments[1].tier);
    let frame = draw(gpu, &mut r, plan);
    for (k, i) in [0, 1, 1, 0].into_iter().enumerate() {
        frame.expect(k as u32 * 20 + 8, 8, color(i), 1, &format!("quad {k}"));
    }
    let d = r.stats().device_frame;
    assert_eq!(d.draw_calls, 2);
    assert_eq!(d.bind_group_sets, 3, "the globals, one slot group and the (still) motion group");
    assert_eq!(d.bind_group_creates, 1);
}
