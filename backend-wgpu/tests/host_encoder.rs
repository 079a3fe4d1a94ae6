//! What a host does with its own encoder and passes: an encoder dropped without a submit
//! after `prepare` (eframe does so when the surface is outdated, lost or occluded) loses none
//! of the plan's texture changes, and a host pass into a render target's view draws there.

use crate::common;

use common::{color, gpu, setup, solid, Gpu, FORMAT, SIZE};
use layerbatch_core::{Config, Quad, TextureDesc, Usage};

on_both_backends!(encoder_dropped_after_prepare_next_frame_right, host_pass_into_target_view);

/// Frame 2 registers textures that grow their array (a GPU copy, then staged writes) and is
/// prepared and rendered into an encoder the host then drops. Frame 3 shows every texture.
fn encoder_dropped_after_prepare_next_frame_right(gpu: &Gpu) {
    // Class arrays only (no atlas pages), so that registering grows an array.
    let (mut b, mut r) = setup(gpu, Config::default().with_max_packed_size_px(0));
    let tex = |b: &mut layerbatch_core::Batcher, i: usize| {
        b.textures().register(&TextureDesc::new(16, 16), &solid(16, 16, color(i))).unwrap()
    };
    let mut ids: Vec<_> = (0..2).map(|i| tex(&mut b, i)).collect();
    b.begin_frame();
    for (i, &t) in ids.iter().enumerate() {
        b.push(&Quad::rect(t, [i as f32 * 16.0, 0.0], [16.0, 16.0])).unwrap();
    }
    common::draw(gpu, &mut r, b.finish());

    ids.extend((2..40).map(|i| tex(&mut b, i)));
    b.begin_frame();
    for (i, &t) in ids.iter().enumerate() {
        b.push(&Quad::rect(t, [(i % 16) as f32 * 16.0, (i / 16) as f32 * 16.0], [16.0, 16.0])).unwrap();
    }
    let plan = b.finish();
    assert!(plan.counters.array_growths >= 1, "the frame must grow an array: {:?}", plan.counters);
    let target = gpu::target(&gpu.device, [SIZE, SIZE], FORMAT);
    let view = target.create_view(&Default::default());
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    r.prepare(&gpu.device, &gpu.queue, plan, [SIZE, SIZE]).unwrap();
    {
        let mut pass = gpu::clear_pass(&mut encoder, &view, [0.0, 0.0, 0.0, 1.0]);
        r.render(&mut pass);
    }
    drop(encoder); // never submitted

    b.begin_frame();
    for (i, &t) in ids.iter().enumerate() {
        b.push(&Quad::rect(t, [(i % 16) as f32 * 16.0, (i / 16) as f32 * 16.0], [16.0, 16.0])).unwrap();
    }
    let frame = common::draw(gpu, &mut r, b.finish());
    for i in 0..ids.len() {
        let (x, y) = ((i % 16) as u32 * 16 + 8, (i / 16) as u32 * 16 + 8);
        frame.expect(x, y, color(i), 0, &format!("{}: texture {i} after a dropped encoder", gpu.adapter));
    }
}

/// layerbatch draws a target (cleared red); the host then draws a plan of its own into the
/// target's view, in a pass of its own, over the left half; the next frame shows both.
fn host_pass_into_target_view(gpu: &Gpu) {
    let (mut b, mut r) = setup(gpu, Config::default());
    let white = b.textures().white().unwrap();
    let rt = b.textures().register(&TextureDesc::new(64, 32).with_usage(Usage::RenderTarget), &[]).unwrap();
    let stat = b.textures().register(&TextureDesc::new(4, 4), &solid(4, 4, [9, 9, 9, 255])).unwrap();
    b.begin_frame_into(rt, Some([1.0, 0.0, 0.0, 1.0])).unwrap();
    let p = b.placement(rt).unwrap();
    let plan = b.finish();
    r.prepare(&gpu.device, &gpu.queue, plan, [SIZE, SIZE]).unwrap();
    let view = r.target_view(p.array, p.layer).expect("the target's view");
    assert!(r.target_view(b.placement(stat).unwrap().array, 0).is_none(), "not a render target");
    assert!(r.target_view(p.array, 99).is_none(), "no such layer");
    // The host's plan, drawn in its own pass into the target (the pipelines' format is the
    // target's here: Rgba8Unorm).
    b.begin_frame();
    b.push(&Quad::solid(white, [0.0, 0.0], [32.0, 32.0], [0, 255, 0, 255])).unwrap();
    r.prepare(&gpu.device, &gpu.queue, b.finish(), [64, 32]).unwrap();
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    {
        let mut pass = common::load_pass(&mut encoder, &view);
        r.render(&mut pass);
    }
    gpu.queue.submit([encoder.finish()]);
    b.begin_frame();
    b.push(&Quad::rect(rt, [0.0, 0.0], [64.0, 32.0])).unwrap();
    let frame = common::draw(gpu, &mut r, b.finish());
    frame.expect(16, 16, [0, 255, 0, 255], 0, &format!("{}: the host's half", gpu.adapter));
    frame.expect(48, 16, [255, 0, 0, 255], 0, &format!("{}: layerbatch's clear", gpu.adapter));
}
