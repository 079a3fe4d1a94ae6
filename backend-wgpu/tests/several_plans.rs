//! Several plans per frame: plans prepared one after another before one submit each draw
//! their own quads in their own viewport (none overwrites another's instances or viewport),
//! in one pass or several, and the instance memory of many such frames stays bounded.

mod common;

use common::{color, gpu, setup, solid, Gpu, CLEAR, FORMAT, SIZE};
use layerbatch_core::{Batcher, Config, Counters, Quad, TextureDesc, TextureId};
use layerbatch_wgpu::{Prepared, Renderer};

on_both_backends!(
    three_plans_before_one_submit,
    three_plans_in_two_passes,
    three_plans_interleaved_with_explicit_frames,
    stale_handle_draws_nothing,
    instance_memory_stays_bounded,
    instance_memory_stays_bounded_with_explicit_frames,
);

/// How a frame's three plans are prepared and rendered.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Order {
    /// Prepare 1, 2, 3; render 1, 2, 3 into one pass.
    OnePass,
    /// Prepare 1, 2, 3; render 1 into pass A, then 2 and 3 into pass B.
    TwoPasses,
    /// `begin_frame`; prepare 1, render 1 into pass A, prepare 2, prepare 3, render 2 and 3
    /// into pass B (prepare and render alternate before one submit).
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
    let mut ids = vec![b.register(&TextureDesc::new(8, 8), &solid(8, 8, WHITE)).unwrap()];
    for i in [1, 3, 5] {
        ids.push(b.register(&TextureDesc::new(8, 8), &solid(8, 8, color(i + 40 * frame))).unwrap());
    }
    ids
}

/// The plan of `spec`, prepared.
fn prepare(gpu: &Gpu, b: &mut Batcher, r: &mut Renderer, ids: &[TextureId], spec: &PlanSpec) -> (Prepared, Counters) {
    b.begin_frame();
    for s in &spec.sprites {
        let mut q = Quad::rect(ids[s.texture], s.pos, s.size);
        q.color = s.tint;
        b.push(&q).unwrap();
    }
    let plan = b.finish();
    let counters = plan.counters;
    let prepared = r
        .prepare(&gpu.device, &gpu.queue, plan, spec.viewport)
        .unwrap_or_else(|e| panic!("{}: prepare: {e}", gpu.adapter));
    (prepared, counters)
}

/// A pass into `view` that keeps what is there.
fn load_pass<'e>(encoder: &'e mut wgpu::CommandEncoder, view: &wgpu::TextureView) -> wgpu::RenderPass<'e> {
    encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some("layerbatch load"),
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations { load: wgpu::LoadOp::Load, store: wgpu::StoreOp::Store },
        })],
        depth_stencil_attachment: None,
        timestamp_writes: None,
        occlusion_query_set: None,
        multiview_mask: None,
    })
}

/// Two frames of three plans each, prepared and rendered in `order` into one encoder and one
/// submit per frame; every sprite of every plan shows where its viewport puts it.
fn three_plans(gpu: &Gpu, order: Order) {
    let what = format!("{} {order:?}", gpu.adapter);
    let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
    let (mut b, mut r) = setup(gpu, Config::default());
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
                let mut handles = Vec::new();
                for spec in &specs {
                    let (h, c) = prepare(gpu, &mut b, &mut r, &ids, spec);
                    handles.push(h);
                    counters.push(c);
                }
                assert_eq!(handles.iter().map(|h| h.index()).collect::<Vec<_>>(), [0, 1, 2], "{what}");
                assert_eq!(r.prepared_plans(), 3, "{what}");
                if order == Order::OnePass {
                    let mut pass = gpu::clear_pass(&mut encoder, &view, clear);
                    for &h in &handles {
                        r.render_prepared(&mut pass, h);
                    }
                } else {
                    {
                        let mut pass = gpu::clear_pass(&mut encoder, &view, clear);
                        r.render_prepared(&mut pass, handles[0]);
                    }
                    let mut pass = load_pass(&mut encoder, &view);
                    r.render_prepared(&mut pass, handles[1]);
                    // The last plan prepared: `render` draws it.
                    r.render(&mut pass);
                }
            }
            Order::Interleaved => {
                r.begin_frame();
                let (first, c) = prepare(gpu, &mut b, &mut r, &ids, &specs[0]);
                counters.push(c);
                {
                    let mut pass = gpu::clear_pass(&mut encoder, &view, clear);
                    r.render_prepared(&mut pass, first);
                }
                let (second, c) = prepare(gpu, &mut b, &mut r, &ids, &specs[1]);
                counters.push(c);
                let (third, c) = prepare(gpu, &mut b, &mut r, &ids, &specs[2]);
                counters.push(c);
                let mut pass = load_pass(&mut encoder, &view);
                r.render_prepared(&mut pass, second);
                r.render_prepared(&mut pass, third);
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

        // Core's counters of the last plan; the device's summed over the frame's plans.
        let s = r.stats();
        assert_eq!(s.core_frame, counters[2], "{what}: core counters of the last plan");
        let planned: u64 = counters.iter().map(|c| c.draw_calls).sum();
        assert_eq!(s.device_frame.frames, 3, "{what}: three plans in the frame");
        assert_eq!(s.device_frame.draw_calls, planned, "{what}: draws of the three plans");
        let quads: u64 = specs.iter().map(|s| s.sprites.len() as u64).sum();
        assert_eq!(
            s.device_frame.instance_bytes_written,
            quads * u64::from(layerbatch_core::Instance::quad_bytes(r.indexed_quads())),
            "{what}: instances of the three plans"
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

/// Prepare and render alternating before one submit, with `begin_frame` marking the frames.
fn three_plans_interleaved_with_explicit_frames(gpu: &Gpu) {
    three_plans(gpu, Order::Interleaved);
}

/// A handle of an earlier frame draws nothing: its space holds the next frame's plan.
fn stale_handle_draws_nothing(gpu: &Gpu) {
    let (mut b, mut r) = setup(gpu, Config::default());
    let ids = textures(&mut b, 0);
    let specs = specs(0);
    let target = gpu::target(&gpu.device, [SIZE, SIZE], FORMAT);
    let view = target.create_view(&Default::default());
    let clear = CLEAR.map(|v| f64::from(v) / 255.0);

    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    let (old, _) = prepare(gpu, &mut b, &mut r, &ids, &specs[0]);
    {
        let mut pass = gpu::clear_pass(&mut encoder, &view, clear);
        r.render_prepared(&mut pass, old);
    }
    gpu.queue.submit([encoder.finish()]);

    // The next frame (automatic: a prepare after a render): plan 2 only.
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    let (new, _) = prepare(gpu, &mut b, &mut r, &ids, &specs[1]);
    assert_eq!(new.index(), 0, "the first plan of a new frame");
    assert_ne!(old, new);
    {
        let mut pass = gpu::clear_pass(&mut encoder, &view, clear);
        r.render_prepared(&mut pass, old);
    }
    gpu.queue.submit([encoder.finish()]);
    let pixels = gpu::read_texture(&gpu.device, &gpu.queue, &target);
    let out = common::Frame { width: SIZE, height: SIZE, pixels };
    // Neither plan 1's sprites nor plan 2's (in plan 1's place).
    for (x, y) in [(40, 40), (30, 165), (120, 40)] {
        out.expect(x, y, CLEAR, 0, "a stale handle draws nothing");
    }
    assert_eq!(r.stats().device_frame.draw_calls, 0);
}

/// Frames of the memory test.
const FRAMES: usize = 1000;
/// The frame by which the pool must have stopped growing.
const SETTLED_BY: usize = 50;

/// [`FRAMES`] frames of 1 to 3 plans of 1 to 2,500 one-pixel quads each (a fixed
/// pseudo-random sequence), every plan rendered, one submit per frame. The instance pool
/// stops growing once it holds the largest frame: its size at the last frame is the size it
/// had by frame [`SETTLED_BY`], and it stays within a few times the largest frame's bytes.
fn memory_stays_bounded(gpu: &Gpu, explicit: bool) {
    let what = format!("{} (explicit frames: {explicit})", gpu.adapter);
    const TARGET: u32 = 64;
    let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
    let (mut b, mut r) = setup(gpu, Config::default());
    let ids: Vec<TextureId> =
        (0..3).map(|i| b.register(&TextureDesc::new(4, 4), &solid(4, 4, color(i))).unwrap()).collect();
    let target = gpu::target(&gpu.device, [TARGET, TARGET], FORMAT);
    let view = target.create_view(&Default::default());
    let mut seed = 0x2545_f491_u64;
    let mut next = move || {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) as u32
    };
    let (mut settled, mut largest_frame, mut max_bytes) = (0, 0u64, 0u64);
    let (mut last_quads, mut last_plans) = (0, 0);
    for frame in 1..=FRAMES {
        if explicit {
            r.begin_frame();
        }
        let plans = 1 + next() % 3;
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        let mut handles = Vec::new();
        let mut frame_quads = 0u64;
        for p in 0..plans {
            let quads = 1 + next() % 2500;
            frame_quads += u64::from(quads);
            b.begin_frame();
            for i in 0..quads {
                let t = ids[(i as usize + p as usize) % ids.len()];
                b.push(&Quad::rect(t, [(i % TARGET) as f32, ((i / TARGET) % TARGET) as f32], [1.0, 1.0])).unwrap();
            }
            let plan = b.finish();
            let h = r
                .prepare(&gpu.device, &gpu.queue, plan, [TARGET, TARGET])
                .unwrap_or_else(|e| panic!("{what}: frame {frame}: prepare: {e}"));
            handles.push(h);
            last_quads = quads;
        }
        last_plans = plans;
        {
            let mut pass = gpu::clear_pass(&mut encoder, &view, [0.0, 0.0, 0.0, 1.0]);
            for &h in &handles {
                r.render_prepared(&mut pass, h);
            }
        }
        gpu.queue.submit([encoder.finish()]);
        if frame % 25 == 0 {
            gpu.device.poll(wgpu::PollType::wait_indefinitely()).expect("poll");
        } else {
            gpu.device.poll(wgpu::PollType::Poll).expect("poll");
        }
        let s = r.stats();
        assert_eq!(s.device_frame.frames, u64::from(plans), "{what}: frame {frame}: plans summed");
        assert_eq!(s.core_frame.quads, u64::from(last_quads), "{what}: frame {frame}: the last plan's quads");
        let quad_bytes = layerbatch_core::Instance::quad_bytes(r.indexed_quads());
        largest_frame = largest_frame.max(frame_quads * u64::from(quad_bytes));
        let bytes = r.instance_buffer_bytes();
        if bytes > max_bytes {
            max_bytes = bytes;
            settled = frame;
        }
    }
    println!(
        "{what}: {FRAMES} frames: instance pool {max_bytes} bytes in {} buffers, settled at frame {settled}; \
         largest frame {largest_frame} bytes",
        r.instance_buffers()
    );
    assert!(settled <= SETTLED_BY, "{what}: the instance pool grew at frame {settled}, after frame {SETTLED_BY}");
    assert_eq!(r.instance_buffer_bytes(), max_bytes, "{what}: the pool never shrinks nor grows past its max");
    assert!(
        max_bytes <= 4 * largest_frame.next_power_of_two(),
        "{what}: {max_bytes} bytes of instance buffers for frames of at most {largest_frame}"
    );
    // The last frame drew what its plans hold: pixel (0, 0) is the last plan's first quad,
    // of texture `plans - 1`.
    let pixels = gpu::read_texture(&gpu.device, &gpu.queue, &target);
    let out = common::Frame { width: TARGET, height: TARGET, pixels };
    let last = color((last_plans as usize - 1) % ids.len());
    out.expect(0, 0, last, 0, &format!("{what}: last frame, pixel (0, 0)"));
    if let Some(e) = pollster::block_on(scope.pop()) {
        panic!("{what}: wgpu validation error: {e}");
    }
}

/// Automatic frames (no `begin_frame`): each frame prepares every plan, then renders them.
fn instance_memory_stays_bounded(gpu: &Gpu) {
    memory_stays_bounded(gpu, false);
}

/// Explicit frames: `begin_frame` before each frame's first plan.
fn instance_memory_stays_bounded_with_explicit_frames(gpu: &Gpu) {
    memory_stays_bounded(gpu, true);
}
