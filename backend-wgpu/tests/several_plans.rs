//! Several plans per frame, each in a `PreparedPlan` of its own: plans prepared one after
//! another before one submit each draw their own quads in their own viewport (none overwrites
//! another's instances or viewport), in one pass or several, and the instance memory of many
//! such frames stays bounded.

use crate::common;

use std::collections::VecDeque;

use common::{color, gpu, load_pass, setup, solid, Gpu, Rig, CLEAR, FORMAT, SIZE};
use layerbatch_core::{Batcher, Config, Counters, Quad, TextureDesc, TextureId};
use layerbatch_wgpu::PreparedPlan;

on_both_backends!(
    three_plans_before_one_submit,
    three_plans_in_two_passes,
    three_plans_interleaved,
    instance_memory_stays_bounded,
    a_texture_freed_between_two_plans_of_one_submit_keeps_its_texels,
);

/// How a frame's three plans are prepared and rendered.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Order {
    /// Prepare 1, 2, 3; render 1, 2, 3 into one pass.
    OnePass,
    /// Prepare 1, 2, 3; render 1 into pass A, then 2 and 3 into pass B.
    TwoPasses,
    /// Prepare 1, render 1 into pass A, prepare 2, prepare 3, render 2 and 3 into pass B
    /// (prepare and render alternate before one submit).
    Interleaved,
}

/// A quad of one plan: texture, position and size in the plan's viewport pixels, colour
/// (premultiplied tint) and the colour it shows.
struct Sprite {
    texture: usize,
    pos: [f32; 2],
    size: [f32; 2],
    tint: [u8; 4],
    shows: [u8; 4],
}

/// One plan: its viewport and sprites.
struct PlanSpec {
    viewport: [u32; 2],
    sprites: Vec<Sprite>,
}

const WHITE: [u8; 4] = [255, 255, 255, 255];

/// Three plans with different sprites, colours and viewports (256, 128 and 512 px square
/// in the 256 px target: 1x, 2x and 0.5x). `frame` varies the colours, so that a second frame
/// that drew the first frame's plans would show.
fn specs(frame: usize) -> Vec<PlanSpec> {
    let c = |i: usize| color(i + 40 * frame);
    vec![
        PlanSpec {
            viewport: [SIZE, SIZE],
            sprites: vec![
                // Textured: the texture's own colour.
                Sprite { texture: 1, pos: [16.0, 16.0], size: [48.0, 48.0], tint: WHITE, shows: c(1) },
                // White, tinted.
                Sprite { texture: 0, pos: [16.0, 150.0], size: [32.0, 32.0], tint: c(2), shows: c(2) },
            ],
        },
        PlanSpec {
            viewport: [SIZE / 2, SIZE / 2],
            // Pixels 96..144 x 16..64 of the target.
            sprites: vec![Sprite { texture: 2, pos: [48.0, 8.0], size: [24.0, 24.0], tint: WHITE, shows: c(3) }],
        },
        PlanSpec {
            viewport: [SIZE * 2, SIZE * 2],
            sprites: vec![
                // Pixels 160..224 x 160..224.
                Sprite { texture: 0, pos: [320.0, 320.0], size: [128.0, 128.0], tint: c(4), shows: c(4) },
                // Pixels 96..128 x 150..182.
                Sprite { texture: 3, pos: [192.0, 300.0], size: [64.0, 64.0], tint: WHITE, shows: c(5) },
                // Pixels 16..48 x 200..232.
                Sprite { texture: 0, pos: [32.0, 400.0], size: [64.0, 64.0], tint: c(6), shows: c(6) },
            ],
        },
    ]
}

/// A batcher and renderer with four textures: white, and the colours of `frame`'s sprites.
fn textures(b: &mut Batcher, frame: usize) -> Vec<TextureId> {
    let mut ids = vec![b.textures().register(&TextureDesc::new(8, 8), &solid(8, 8, WHITE)).unwrap()];
    for i in [1, 3, 5] {
        ids.push(b.textures().register(&TextureDesc::new(8, 8), &solid(8, 8, color(i + 40 * frame))).unwrap());
    }
    ids
}

/// The plan of `spec`, prepared into `p`.
fn prepare(
    gpu: &Gpu,
    b: &mut Batcher,
    (r, p): (&mut Rig, &mut PreparedPlan),
    ids: &[TextureId],
    spec: &PlanSpec,
) -> Counters {
    b.begin_frame();
    for s in &spec.sprites {
        let mut q = Quad::rect(ids[s.texture], s.pos, s.size);
        q.color = s.tint;
        b.push(&q).unwrap();
    }
    let plan = b.finish();
    let counters = plan.counters;
    r.renderer
        .prepare(&gpu.device, &gpu.queue, p, plan, spec.viewport)
        .unwrap_or_else(|e| panic!("{}: prepare: {e}", gpu.adapter));
    counters
}

/// Two frames of three plans each, prepared and rendered in `order` into one encoder and one
/// submit per frame; every sprite of every plan shows where its viewport puts it.
fn three_plans(gpu: &Gpu, order: Order) {
    let what = format!("{} {order:?}", gpu.adapter);
    let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
    let (mut b, mut r) = setup(gpu, Config::default());
    // One prepared plan per plan of a frame, kept from frame to frame.
    let mut prepared: Vec<PreparedPlan> = (0..3).map(|_| r.create_prepared()).collect();
    for frame in 0..2 {
        let ids = textures(&mut b, frame);
        let specs = specs(frame);
        let target = gpu::target(&gpu.device, [SIZE, SIZE], FORMAT);
        let view = target.create_view(&Default::default());
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        let clear = CLEAR.map(|v| f64::from(v) / 255.0);
        let mut counters = Vec::new();
        match order {
            Order::OnePass | Order::TwoPasses => {
                for (spec, p) in specs.iter().zip(&mut prepared) {
                    counters.push(prepare(gpu, &mut b, (&mut r, p), &ids, spec));
                }
                assert!(prepared.iter().all(PreparedPlan::holds_plan), "{what}");
                if order == Order::OnePass {
                    let mut pass = gpu::clear_pass(&mut encoder, &view, clear);
                    for p in &prepared {
                        r.renderer.render(p, &mut pass).unwrap();
                    }
                } else {
                    {
                        let mut pass = gpu::clear_pass(&mut encoder, &view, clear);
                        r.renderer.render(&prepared[0], &mut pass).unwrap();
                    }
                    let mut pass = load_pass(&mut encoder, &view);
                    r.renderer.render(&prepared[1], &mut pass).unwrap();
                    r.renderer.render(&prepared[2], &mut pass).unwrap();
                }
            }
            Order::Interleaved => {
                counters.push(prepare(gpu, &mut b, (&mut r, &mut prepared[0]), &ids, &specs[0]));
                {
                    let mut pass = gpu::clear_pass(&mut encoder, &view, clear);
                    r.renderer.render(&prepared[0], &mut pass).unwrap();
                }
                counters.push(prepare(gpu, &mut b, (&mut r, &mut prepared[1]), &ids, &specs[1]));
                counters.push(prepare(gpu, &mut b, (&mut r, &mut prepared[2]), &ids, &specs[2]));
                let mut pass = load_pass(&mut encoder, &view);
                r.renderer.render(&prepared[1], &mut pass).unwrap();
                r.renderer.render(&prepared[2], &mut pass).unwrap();
            }
        }
        gpu.queue.submit([encoder.finish()]);
        let pixels = gpu::read_texture(&gpu.device, &gpu.queue, &target);
        let out = common::Frame { width: SIZE, height: SIZE, pixels };

        for (p, spec) in specs.iter().enumerate() {
            let scale = SIZE as f32 / spec.viewport[0] as f32;
            for (i, s) in spec.sprites.iter().enumerate() {
                let x0 = (s.pos[0] * scale) as u32;
                let y0 = (s.pos[1] * scale) as u32;
                let (w, h) = ((s.size[0] * scale) as u32, (s.size[1] * scale) as u32);
                for (x, y) in [(x0 + 1, y0 + 1), (x0 + w - 2, y0 + h - 2), (x0 + w / 2, y0 + h / 2)] {
                    out.expect(x, y, s.shows, 1, &format!("{what}: frame {frame}, plan {p}, sprite {i}"));
                }
                // Just outside: not drawn (the viewport is the plan's, not another's).
                out.expect(x0 + w + 1, y0 + h / 2, CLEAR, 0, &format!("{what}: right of plan {p}'s sprite {i}"));
                out.expect(x0 + w / 2, y0 + h + 1, CLEAR, 0, &format!("{what}: below plan {p}'s sprite {i}"));
            }
        }
        out.expect(250, 5, CLEAR, 0, &format!("{what}: frame {frame}, background"));

        // Core's counters of the last plan; the device's of the last prepare and of the
        // renders since.
        let s = r.stats();
        assert_eq!(s.core_frame, counters[2], "{what}: core counters of the last plan");
        let rendered_since = if order == Order::Interleaved { &counters[1..] } else { &counters[..] };
        let planned: u64 = rendered_since.iter().map(|c| c.draw_calls).sum();
        assert_eq!(s.device_frame.frames, 1, "{what}: the last prepare");
        assert_eq!(s.device_frame.draw_calls, planned, "{what}: draws rendered since the last prepare");
        let quads = specs[2].sprites.len() as u64;
        assert_eq!(
            s.device_frame.instance_bytes_written,
            quads * u64::from(layerbatch_core::plan::Instance::quad_bytes(r.indexed_quads())),
            "{what}: instances of the last plan"
        );
    }
    if let Some(e) = pollster::block_on(scope.pop()) {
        panic!("{what}: wgpu validation error: {e}");
    }
}

/// Three plans prepared into one encoder, then rendered in order into one pass, one submit.
fn three_plans_before_one_submit(gpu: &Gpu) {
    three_plans(gpu, Order::OnePass);
}

/// The same, plan 1 in pass A and plans 2 and 3 in pass B.
fn three_plans_in_two_passes(gpu: &Gpu) {
    three_plans(gpu, Order::TwoPasses);
}

/// Prepare and render alternating before one submit.
fn three_plans_interleaved(gpu: &Gpu) {
    three_plans(gpu, Order::Interleaved);
}

/// Frames of the memory test.
const FRAMES: usize = 1000;
/// Frames the test lets the GPU run behind the CPU: a surface's default maximum frame latency
/// (wgpu's `desired_maximum_frame_latency`), emulated by waiting for older submissions.
const FRAMES_IN_FLIGHT: usize = 2;

/// [`FRAMES`] frames of 1 to 3 plans of 1 to 2,500 one-pixel quads each (a fixed
/// pseudo-random sequence), plan `i` of a frame in prepared plan `i`, every plan rendered, one
/// submit per frame, at most [`FRAMES_IN_FLIGHT`] frames on the GPU. Each prepared plan holds
/// at most one space more than the frames in flight, each space at most one vertex buffer
/// (every plan is one block) sized for the largest plan prepared into it: memory bounded by
/// the largest plan times the frames in flight, whatever the number of frames.
fn instance_memory_stays_bounded(gpu: &Gpu) {
    let what = gpu.adapter.clone();
    const TARGET: u32 = 64;
    let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
    let (mut b, mut r) = setup(gpu, Config::default());
    let mut prepared: Vec<PreparedPlan> = (0..3).map(|_| r.create_prepared()).collect();
    let ids: Vec<TextureId> =
        (0..3).map(|i| b.textures().register(&TextureDesc::new(4, 4), &solid(4, 4, color(i))).unwrap()).collect();
    let target = gpu::target(&gpu.device, [TARGET, TARGET], FORMAT);
    let view = target.create_view(&Default::default());
    let mut seed = 0x2545_f491_u64;
    let mut next = move || {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) as u32
    };
    let quad_bytes = u64::from(layerbatch_core::plan::Instance::quad_bytes(r.indexed_quads()));
    // The largest plan prepared into each prepared plan, in quads.
    let mut largest = [0u32; 3];
    let (mut last_quads, mut last_plans, mut most_spaces) = (0, 0, 0);
    let mut in_flight = VecDeque::new();
    for frame in 1..=FRAMES {
        while in_flight.len() > FRAMES_IN_FLIGHT {
            let oldest = in_flight.pop_front();
            gpu.device.poll(wgpu::PollType::Wait { submission_index: oldest, timeout: None }).expect("poll");
        }
        let plans = 1 + next() % 3;
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        for (p, held) in prepared.iter_mut().enumerate().take(plans as usize) {
            let quads = 1 + next() % 2500;
            largest[p] = largest[p].max(quads);
            b.begin_frame();
            for i in 0..quads {
                let t = ids[(i as usize + p) % ids.len()];
                b.push(&Quad::rect(t, [(i % TARGET) as f32, ((i / TARGET) % TARGET) as f32], [1.0, 1.0])).unwrap();
            }
            let plan = b.finish();
            r.renderer
                .prepare(&gpu.device, &gpu.queue, held, plan, [TARGET, TARGET])
                .unwrap_or_else(|e| panic!("{what}: frame {frame}: prepare: {e}"));
            last_quads = quads;
        }
        last_plans = plans;
        {
            let mut pass = gpu::clear_pass(&mut encoder, &view, [0.0, 0.0, 0.0, 1.0]);
            for p in &prepared[..plans as usize] {
                r.renderer.render(p, &mut pass).unwrap();
            }
        }
        in_flight.push_back(gpu.queue.submit([encoder.finish()]));
        let s = r.stats();
        assert_eq!(s.device_frame.frames, 1, "{what}: frame {frame}: the last prepare");
        assert_eq!(s.core_frame.quads, u64::from(last_quads), "{what}: frame {frame}: the last plan's quads");
        for (i, p) in prepared.iter().enumerate() {
            most_spaces = most_spaces.max(p.spaces());
            assert!(p.spaces() <= FRAMES_IN_FLIGHT + 1, "{what}: frame {frame}: plan {i}: {} spaces", p.spaces());
            assert!(p.instance_buffers() <= p.spaces(), "{what}: frame {frame}: plan {i}: one buffer a space");
            let per_space = u64::from(largest[i]).next_power_of_two().max(1024) * quad_bytes;
            assert!(
                p.instance_buffer_bytes() <= p.spaces() as u64 * per_space,
                "{what}: frame {frame}: plan {i}: {} bytes in {} spaces for plans of at most {} quads",
                p.instance_buffer_bytes(),
                p.spaces(),
                largest[i]
            );
        }
    }
    let bytes: u64 = prepared.iter().map(PreparedPlan::instance_buffer_bytes).sum();
    let spaces: Vec<usize> = prepared.iter().map(PreparedPlan::spaces).collect();
    println!(
        "{what}: {FRAMES} frames, {FRAMES_IN_FLIGHT} in flight: spaces per prepared plan {spaces:?} (at most \
         {most_spaces}), {bytes} bytes of instance buffers"
    );
    // The last frame drew what its plans hold: pixel (0, 0) is the last plan's first quad,
    // of texture `plans - 1`.
    let pixels = gpu::read_texture(&gpu.device, &gpu.queue, &target);
    let out = common::Frame { width: TARGET, height: TARGET, pixels };
    let last = color((last_plans as usize - 1) % ids.len());
    out.expect(0, 0, last, 0, &format!("{what}: last frame, pixel (0, 0)"));
    assert!(prepared.iter().all(|p| p.spaces_in_flight() == 0), "{what}: all done after the readback");
    if let Some(e) = pollster::block_on(scope.pop()) {
        panic!("{what}: wgpu validation error: {e}");
    }
}

/// Host frames: plan 0 draws texture A; A is freed and B (same size) registered before plan 1
/// is prepared; both are rendered in one pass and submitted together. B's upload runs at the
/// submit, before the pass: had B been given A's rectangle (memory freed after plan 0 reused
/// at once), plan 0's quad would show B. With `Batcher::end_frame` after each submit, A's
/// rectangle waits for the frame's end: plan 0 shows A, plan 1 shows B, and after the frame the
/// rectangle is reused without growing anything.
fn a_texture_freed_between_two_plans_of_one_submit_keeps_its_texels(gpu: &Gpu) {
    let what = gpu.adapter.clone();
    let (mut b, mut r) = setup(gpu, Config::default());
    let (red, green) = ([255, 0, 0, 255], [0, 255, 0, 255]);
    let a = b.textures().register(&TextureDesc::new(8, 8), &solid(8, 8, red)).unwrap();
    // A first frame brings A's page to the device.
    let mut prepared: Vec<PreparedPlan> = (0..2).map(|_| r.create_prepared()).collect();
    b.begin_frame();
    b.push(&Quad::rect(a, [0.0, 0.0], [8.0, 8.0])).unwrap();
    common::draw(gpu, &mut r, b.finish());
    b.end_frame();
    let target = gpu::target(&gpu.device, [SIZE, SIZE], FORMAT);
    let view = target.create_view(&Default::default());
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    b.begin_frame();
    b.push(&Quad::rect(a, [16.0, 16.0], [32.0, 32.0])).unwrap();
    r.renderer.prepare(&gpu.device, &gpu.queue, &mut prepared[0], b.finish(), [SIZE, SIZE]).unwrap();
    b.textures().free(a).unwrap();
    let green_tex = b.textures().register(&TextureDesc::new(8, 8), &solid(8, 8, green)).unwrap();
    b.begin_frame();
    b.push(&Quad::rect(green_tex, [64.0, 16.0], [32.0, 32.0])).unwrap();
    r.renderer.prepare(&gpu.device, &gpu.queue, &mut prepared[1], b.finish(), [SIZE, SIZE]).unwrap();
    {
        let mut pass = gpu::clear_pass(&mut encoder, &view, CLEAR.map(|v| f64::from(v) / 255.0));
        r.renderer.render(&prepared[0], &mut pass).unwrap();
        r.renderer.render(&prepared[1], &mut pass).unwrap();
    }
    gpu.queue.submit([encoder.finish()]);
    b.end_frame();
    let out = common::Frame { width: SIZE, height: SIZE, pixels: gpu::read_texture(&gpu.device, &gpu.queue, &target) };
    out.expect(32, 32, red, 0, &format!("{what}: plan 0 drew A, freed after it"));
    out.expect(80, 32, green, 0, &format!("{what}: plan 1 drew B"));
    // The frame is over: A's rectangle is free again, and the next texture takes it.
    let held = b.allocator().allocated_bytes();
    b.textures().register(&TextureDesc::new(8, 8), &solid(8, 8, red)).unwrap();
    assert_eq!(b.allocator().allocated_bytes(), held, "{what}: reused, nothing grown");
}
