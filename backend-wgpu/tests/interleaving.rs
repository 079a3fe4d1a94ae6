//! Host-owned prepared plans: prepares and passes interleaved before one submit draw every
//! plan right, one `PreparedPlan` re-prepared between two passes included; a prepared plan of
//! another renderer is refused by `prepare` and `render`, doing nothing; a prepared plan's
//! spaces stay bounded by the frames in flight, and one rendered into an encoder the host
//! drops is free again at once.

use crate::common;

use std::collections::VecDeque;

use common::{clear_value, gpu, read, setup, Frame, Gpu, CLEAR, FORMAT, SIZE};
use layerbatch_core::{Batcher, Config, FramePlan, Quad, TextureId};
use layerbatch_wgpu::{Error, PreparedPlan, Renderer, RendererOptions};

on_both_backends!(
    interleaved_two_prepared_plans,
    interleaved_one_prepared_plan_re_prepared,
    two_prepared_plans_in_one_pass,
    foreign_prepared_plan_is_refused,
    spaces_stay_bounded,
    dropped_encoder_frees_the_space,
    failed_prepare_draws_nothing,
);

const RED: [u8; 4] = [255, 0, 0, 255];
const GREEN: [u8; 4] = [0, 255, 0, 255];

/// Plan A: a red 64 px square at (16, 16), in the whole target.
fn plan_a(b: &mut Batcher, white: TextureId) -> FramePlan {
    b.begin_frame();
    b.push(&Quad::solid(white, [16.0, 16.0], [64.0, 64.0], RED)).unwrap();
    b.finish().clone()
}

/// Plan B: a green 32 px square at (64, 64) of a viewport half the target's size, so pixels
/// 128..192 of the target: other instances and another viewport (globals) than A's.
fn plan_b(b: &mut Batcher, white: TextureId) -> FramePlan {
    b.begin_frame();
    b.push(&Quad::solid(white, [64.0, 64.0], [32.0, 32.0], GREEN)).unwrap();
    b.finish().clone()
}

/// B's viewport.
const B_VIEWPORT: [u32; 2] = [SIZE / 2, SIZE / 2];

/// Where A drew and B did not: A's square, and B's place cleared. With `b_too`, B's square
/// as well.
fn expect_a(f: &Frame, b_too: bool, what: &str) {
    for (x, y) in [(17, 17), (48, 48), (78, 78)] {
        f.expect(x, y, RED, 0, &format!("{what}: A's square"));
    }
    // Outside A: A drawn with B's viewport would cover 32..160.
    f.expect(100, 100, CLEAR, 0, &format!("{what}: outside A"));
    let b = if b_too { GREEN } else { CLEAR };
    for (x, y) in [(129, 129), (160, 160), (190, 190)] {
        f.expect(x, y, b, 0, &format!("{what}: B's square"));
    }
}

/// Where B drew and A did not.
fn expect_b(f: &Frame, what: &str) {
    for (x, y) in [(129, 129), (160, 160), (190, 190)] {
        f.expect(x, y, GREEN, 0, &format!("{what}: B's square"));
    }
    for (x, y) in [(17, 17), (48, 48), (100, 100), (193, 160)] {
        f.expect(x, y, CLEAR, 0, &format!("{what}: outside B"));
    }
}

/// Two targets and their views.
fn targets(gpu: &Gpu) -> [(wgpu::Texture, wgpu::TextureView); 2] {
    [0, 1].map(|_| {
        let t = gpu::target(&gpu.device, [SIZE, SIZE], FORMAT);
        let v = t.create_view(&Default::default());
        (t, v)
    })
}

/// Prepare A, render A into pass 1 (target 1), prepare B, render B into pass 2 (target 2),
/// one submit; A and B in prepared plans of their own. Each target shows its plan only.
/// `one`: the same with a single prepared plan, re-prepared with B before the host submits
/// the pass that rendered A.
fn interleaved(gpu: &Gpu, one: bool) {
    let what = format!("{} (one prepared plan: {one})", gpu.adapter);
    let errors = common::record_uncaptured(&gpu.device);
    let (mut b, r) = setup(gpu, Config::default());
    let mut r = r.renderer;
    let white = b.textures().white().unwrap();
    let [(t1, v1), (t2, v2)] = targets(gpu);
    let (mut pa, mut pb) = (r.create_prepared(), r.create_prepared());
    for frame in 0..3 {
        let what = format!("{what}, frame {frame}");
        let (a, bp) = (plan_a(&mut b, white), plan_b(&mut b, white));
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        r.prepare(&gpu.device, &gpu.queue, &mut pa, &a, [SIZE, SIZE]).unwrap();
        r.render(&pa, &mut gpu::clear_pass(&mut encoder, &v1, clear_value())).unwrap();
        let second = if one { &mut pa } else { &mut pb };
        r.prepare(&gpu.device, &gpu.queue, second, &bp, B_VIEWPORT).unwrap();
        if one {
            assert_eq!(second.spaces_in_flight(), 1, "{what}: pass 1 still draws from A's space");
            assert!(second.spaces() >= 2, "{what}: B went into another space");
        }
        r.render(second, &mut gpu::clear_pass(&mut encoder, &v2, clear_value())).unwrap();
        gpu.queue.submit([encoder.finish()]);
        expect_a(&read(gpu, &t1), false, &format!("{what}: pass 1"));
        expect_b(&read(gpu, &t2), &format!("{what}: pass 2"));
    }
    let spaces = if one { pa.spaces() } else { pa.spaces() + pb.spaces() };
    println!("{what}: {spaces} spaces after 3 frames");
    common::assert_no_uncaptured(&errors, &what);
}

fn interleaved_two_prepared_plans(gpu: &Gpu) {
    interleaved(gpu, false);
}

fn interleaved_one_prepared_plan_re_prepared(gpu: &Gpu) {
    interleaved(gpu, true);
}

/// Prepare A, prepare B, render A and B into one pass, one submit: both show.
fn two_prepared_plans_in_one_pass(gpu: &Gpu) {
    let errors = common::record_uncaptured(&gpu.device);
    let (mut b, r) = setup(gpu, Config::default());
    let mut r = r.renderer;
    let white = b.textures().white().unwrap();
    let [(t1, v1), _] = targets(gpu);
    let (mut pa, mut pb) = (r.create_prepared(), r.create_prepared());
    let (a, bp) = (plan_a(&mut b, white), plan_b(&mut b, white));
    r.prepare(&gpu.device, &gpu.queue, &mut pa, &a, [SIZE, SIZE]).unwrap();
    r.prepare(&gpu.device, &gpu.queue, &mut pb, &bp, B_VIEWPORT).unwrap();
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    {
        let mut pass = gpu::clear_pass(&mut encoder, &v1, clear_value());
        r.render(&pa, &mut pass).unwrap();
        r.render(&pb, &mut pass).unwrap();
    }
    gpu.queue.submit([encoder.finish()]);
    expect_a(&read(gpu, &t1), true, &format!("{}: one pass", gpu.adapter));
    assert_eq!(r.stats().device_frame.draw_calls, 2, "{}: A's and B's draws", gpu.adapter);
    common::assert_no_uncaptured(&errors, &gpu.adapter);
}

/// A prepared plan of renderer 1 given to renderer 2: `render` refuses it with
/// `ForeignPrepared` naming both tags and draws nothing; `prepare` refuses it the same way
/// and applies nothing (renderer 2 creates no array, its validator does not move on, the
/// prepared plan still draws renderer 1's plan).
fn foreign_prepared_plan_is_refused(gpu: &Gpu) {
    let what = gpu.adapter.clone();
    let errors = common::record_uncaptured(&gpu.device);
    let (mut b1, r1) = setup(gpu, Config::default());
    let mut r1 = r1.renderer;
    let (mut b2, r2) = setup(gpu, Config::default());
    let mut r2 = r2.renderer;
    assert_ne!(r1.tag(), r2.tag(), "{what}: renderer tags are unique");
    let (w1, w2) = (b1.textures().white().unwrap(), b2.textures().white().unwrap());
    let mut p1 = r1.create_prepared();
    assert_eq!(p1.renderer_tag(), r1.tag());
    r1.prepare(&gpu.device, &gpu.queue, &mut p1, &plan_a(&mut b1, w1), [SIZE, SIZE]).unwrap();
    let (tag1, tag2) = (r1.tag(), r2.tag());
    let foreign = |e: Error| match e {
        Error::ForeignPrepared { renderer, made_by } => {
            assert_eq!((renderer, made_by), (tag2, tag1), "{what}: both tags");
            let message = Error::ForeignPrepared { renderer, made_by }.to_string();
            assert!(message.contains(&tag1.to_string()) && message.contains(&tag2.to_string()), "{message}");
        }
        other => panic!("{what}: want ForeignPrepared, got {other}"),
    };

    let [(t1, v1), (t2, v2)] = targets(gpu);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    let refused = r2.render(&p1, &mut gpu::clear_pass(&mut encoder, &v1, clear_value()));
    foreign(refused.unwrap_err());
    gpu.queue.submit([encoder.finish()]);
    let f = read(gpu, &t1);
    assert!(f.pixels.chunks_exact(4).all(|p| p == CLEAR), "{what}: render drew nothing");
    assert_eq!(p1.spaces_in_flight(), 0, "{what}: a refused render marks nothing in flight");

    let total = r2.stats().device_total;
    let b_plan = plan_b(&mut b2, w2);
    assert!(!b_plan.ops.is_empty(), "the plan creates renderer 2's first array");
    foreign(r2.prepare(&gpu.device, &gpu.queue, &mut p1, &b_plan, B_VIEWPORT).unwrap_err());
    assert_eq!(r2.array_count(), 0, "{what}: prepare applied nothing");
    assert_eq!(r2.stats().device_total, total, "{what}: nor counted anything");
    // Renderer 2's validator still expects that plan: it draws in a prepared plan of its own.
    let mut p2 = r2.create_prepared();
    r2.prepare(&gpu.device, &gpu.queue, &mut p2, &b_plan, B_VIEWPORT).unwrap();
    // And p1 still draws renderer 1's plan A.
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    {
        let mut pass = gpu::clear_pass(&mut encoder, &v2, clear_value());
        r1.render(&p1, &mut pass).unwrap();
        r2.render(&p2, &mut pass).unwrap();
        foreign(r2.render(&p1, &mut pass).unwrap_err());
    }
    gpu.queue.submit([encoder.finish()]);
    expect_a(&read(gpu, &t2), true, &format!("{what}: each renderer's own plan"));
    common::assert_no_uncaptured(&errors, &what);
}

/// Frames of the bounded-spaces test.
const FRAMES: u32 = 100;

/// [`FRAMES`] frames of prepare, render, submit on one prepared plan (a quad moving a pixel a
/// frame), the CPU at most two frames ahead of the GPU (a surface's default maximum frame
/// latency): the prepared plan never holds more than 3 spaces, and the last frame is right.
/// Then the same without any wait but the submits' own: the count it settles at is printed.
fn spaces_stay_bounded(gpu: &Gpu) {
    let what = gpu.adapter.clone();
    let (mut b, r) = setup(gpu, Config::default());
    let mut r = r.renderer;
    let white = b.textures().white().unwrap();
    let [(t1, v1), _] = targets(gpu);
    for throttled in [true, false] {
        let mut p = r.create_prepared();
        let mut in_flight = VecDeque::new();
        let mut most = 0;
        for frame in 0..FRAMES {
            while throttled && in_flight.len() > 2 {
                let oldest = in_flight.pop_front();
                gpu.device.poll(wgpu::PollType::Wait { submission_index: oldest, timeout: None }).expect("poll");
            }
            b.begin_frame();
            b.push(&Quad::solid(white, [frame as f32, 10.0], [8.0, 8.0], RED)).unwrap();
            r.prepare(&gpu.device, &gpu.queue, &mut p, b.finish(), [SIZE, SIZE]).unwrap();
            let mut encoder = gpu.device.create_command_encoder(&Default::default());
            r.render(&p, &mut gpu::clear_pass(&mut encoder, &v1, clear_value())).unwrap();
            in_flight.push_back(gpu.queue.submit([encoder.finish()]));
            most = most.max(p.spaces());
            if throttled {
                assert!(p.spaces() <= 3, "{what}: frame {frame}: {} spaces", p.spaces());
            }
        }
        let f = read(gpu, &t1);
        let x = FRAMES - 1;
        f.expect(x, 10, RED, 0, &format!("{what}: the last frame's quad"));
        f.expect(x - 1, 10, CLEAR, 0, &format!("{what}: not an earlier frame's"));
        assert_eq!(p.spaces_in_flight(), 0, "{what}: all done after the readback");
        println!(
            "{what}: {FRAMES} frames ({}): {} spaces, at most {most}; {} instance bytes, {} globals uniforms",
            if throttled { "2 frames in flight" } else { "no waits" },
            p.spaces(),
            p.instance_buffer_bytes(),
            p.globals_uniforms()
        );
    }
}

/// A pass rendered from a prepared plan, in an encoder the host then drops unsubmitted (eframe
/// does so when the surface is lost): the space is free again at once, and the next prepare
/// reuses it.
fn dropped_encoder_frees_the_space(gpu: &Gpu) {
    let (mut b, _) = setup(gpu, Config::default());
    let mut r = Renderer::new(&gpu.device, FORMAT, b.budget(), &RendererOptions::default()).unwrap();
    let white = b.textures().white().unwrap();
    let [(t1, v1), _] = targets(gpu);
    let mut p: PreparedPlan = r.create_prepared();
    assert_eq!((p.spaces(), p.holds_plan()), (0, false), "nothing before the first prepare");
    r.prepare(&gpu.device, &gpu.queue, &mut p, &plan_a(&mut b, white), [SIZE, SIZE]).unwrap();
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    r.render(&p, &mut gpu::clear_pass(&mut encoder, &v1, clear_value())).unwrap();
    assert_eq!(p.spaces_in_flight(), 1, "{}: rendered, not submitted", gpu.adapter);
    drop(encoder);
    assert_eq!(p.spaces_in_flight(), 0, "{}: the dropped encoder dropped its callback", gpu.adapter);
    r.prepare(&gpu.device, &gpu.queue, &mut p, &plan_b(&mut b, white), B_VIEWPORT).unwrap();
    assert_eq!(p.spaces(), 1, "{}: the space was reused", gpu.adapter);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    r.render(&p, &mut gpu::clear_pass(&mut encoder, &v1, clear_value())).unwrap();
    gpu.queue.submit([encoder.finish()]);
    expect_b(&read(gpu, &t1), &format!("{}: after the dropped encoder", gpu.adapter));
}

/// A prepared plan whose last `prepare` failed (a plan out of order: the validator refuses
/// it) draws nothing, and `render` is `Ok`.
fn failed_prepare_draws_nothing(gpu: &Gpu) {
    let (mut b, r) = setup(gpu, Config::default());
    let mut r = r.renderer;
    let white = b.textures().white().unwrap();
    let [(t1, v1), _] = targets(gpu);
    let mut p = r.create_prepared();
    let a = plan_a(&mut b, white);
    r.prepare(&gpu.device, &gpu.queue, &mut p, &a, [SIZE, SIZE]).unwrap();
    assert!(p.holds_plan());
    let again = r.prepare(&gpu.device, &gpu.queue, &mut p, &a, [SIZE, SIZE]);
    assert!(matches!(again, Err(Error::Plan(_))), "{}: a repeated plan is refused: {again:?}", gpu.adapter);
    assert!(!p.holds_plan(), "{}: nothing held after a failed prepare", gpu.adapter);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    r.render(&p, &mut gpu::clear_pass(&mut encoder, &v1, clear_value())).unwrap();
    gpu.queue.submit([encoder.finish()]);
    let f = read(gpu, &t1);
    assert!(f.pixels.chunks_exact(4).all(|p| p == CLEAR), "{}: nothing drawn", gpu.adapter);
}
