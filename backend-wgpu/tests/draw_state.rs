//! Draw states: each segment's blend mode, clip rectangle and transform, read back in pixels.
//!
//! Blend modes are premultiplied `ADD` equations of core's factors; the clip is the pass's
//! scissor rectangle, clamped to the viewport (a clip outside it draws nothing, and the next
//! segment without a clip draws everywhere again); the transform moves quad corners before
//! the viewport mapping. Readback rows are top first, like quads (y down).

use crate::common;

use common::{draw, gpu, setup, try_draw, Frame, Gpu, CLEAR, FORMAT, SIZE};
use layerbatch_core::plan::DrawState;
use layerbatch_core::{Batcher, BlendMode, Config, PointLight, Quad, TextureId, Viewport};

on_both_backends!(
    additive_sums_overlaps,
    multiply_darkens_background,
    opaque_replaces_alpha,
    clip_draws_inside_only,
    clip_outside_or_empty_draws_nothing,
    transform_moves_and_scales,
    states_across_plans_of_one_frame,
    lights_across_plans_of_one_frame,
    too_many_states_is_an_error_then_restore,
    viewport_rect_keeps_the_host_scissor,
);

const BLACK: [u8; 4] = CLEAR;
const WHITE: [u8; 4] = [255, 255, 255, 255];

/// One frame of the quads `scene` pushes (with the batcher's white texture), drawn into a
/// fresh target cleared to [`CLEAR`]. Asserts one draw per segment, less `skipped` (segments
/// whose clip leaves nothing), and returns the frame and the number of segments.
fn frame(gpu: &Gpu, skipped: usize, scene: impl FnOnce(&mut Batcher, TextureId)) -> (Frame, usize) {
    let (mut b, mut r) = setup(gpu, Config::default());
    let white = b.textures().white().unwrap();
    b.begin_frame();
    scene(&mut b, white);
    let plan = b.finish();
    let segments = plan.segments.len();
    let out = draw(gpu, &mut r, plan);
    let d = r.stats().device_frame;
    assert_eq!(d.draw_calls as usize, segments - skipped, "{}: one draw per drawn segment", gpu.adapter);
    assert_eq!(
        r.stats().core_frame.draw_calls as usize,
        segments,
        "{}: core planned one draw per segment",
        gpu.adapter
    );
    (out, segments)
}

fn solid(b: &mut Batcher, white: TextureId, pos: [f32; 2], size: [f32; 2], color: [u8; 4]) {
    b.push(&Quad::solid(white, pos, size, color)).unwrap();
}

/// Two overlapping additive quads of half intensity add up where they overlap.
fn additive_sums_overlaps(gpu: &Gpu) {
    let c = [100, 60, 20, 100];
    let (f, segments) = frame(gpu, 0, |b, w| {
        b.state().set_blend(BlendMode::Additive);
        solid(b, w, [10.0, 10.0], [40.0, 20.0], c);
        solid(b, w, [30.0, 10.0], [40.0, 20.0], c);
    });
    assert_eq!(segments, 1, "one state, one segment");
    let what = format!("{} additive", gpu.adapter);
    // Black (alpha 255) plus the colour; alpha saturates.
    f.expect(15, 15, [100, 60, 20, 255], 1, &what);
    f.expect(65, 15, [100, 60, 20, 255], 1, &what);
    // Overlap: both summed (premultiplied "over" would give 161 for red).
    f.expect(40, 15, [200, 120, 40, 255], 1, &what);
    f.expect(5, 5, BLACK, 0, &what);
}

/// Multiply over a coloured background: `src * dst + dst * (1 - src.a)`.
fn multiply_darkens_background(gpu: &Gpu) {
    let bg = [200u8, 100, 50, 255];
    let opaque = [128u8, 255, 0, 255];
    let half = [64u8, 128, 0, 128];
    let (f, segments) = frame(gpu, 0, |b, w| {
        solid(b, w, [0.0, 0.0], [SIZE as f32, SIZE as f32], bg);
        b.state().set_blend(BlendMode::Multiply);
        solid(b, w, [10.0, 10.0], [20.0, 20.0], opaque);
        solid(b, w, [40.0, 10.0], [20.0, 20.0], half);
        b.state().set_blend(BlendMode::Over);
    });
    assert_eq!(segments, 2, "over, then multiply");
    let multiply = |src: [u8; 4]| -> [u8; 4] {
        let n = |v: u8| f32::from(v) / 255.0;
        let sa = n(src[3]);
        let mut out = [0u8; 4];
        for i in 0..3 {
            out[i] = ((n(src[i]) * n(bg[i]) + n(bg[i]) * (1.0 - sa)) * 255.0).round() as u8;
        }
        // Alpha: src.a + dst.a * (1 - src.a).
        out[3] = ((sa + n(bg[3]) * (1.0 - sa)) * 255.0).round() as u8;
        out
    };
    let what = format!("{} multiply", gpu.adapter);
    f.expect(20, 20, multiply(opaque), 2, &what);
    f.expect(20, 20, [100, 100, 0, 255], 2, &what);
    f.expect(50, 20, multiply(half), 2, &what);
    f.expect(100, 100, bg, 0, &what);
}

/// Opaque replaces colour and alpha (over an opaque background, "over" would keep alpha 255).
fn opaque_replaces_alpha(gpu: &Gpu) {
    let c = [50u8, 0, 20, 128];
    let (f, _) = frame(gpu, 0, |b, w| {
        b.state().set_blend(BlendMode::Opaque);
        solid(b, w, [10.0, 10.0], [20.0, 20.0], c);
        b.state().set_blend(BlendMode::Over);
        solid(b, w, [40.0, 10.0], [20.0, 20.0], c);
    });
    let what = format!("{} opaque", gpu.adapter);
    f.expect(20, 20, c, 0, &what);
    // Over: 50 + 0, alpha 128 + 255 * (127 / 255).
    f.expect(50, 20, [50, 0, 20, 255], 1, &what);
}

/// A quad covering the target, clipped: drawn inside the clip only (top rows of the image are
/// the top rows of the readback); the next segment without a clip draws anywhere again; a clip
/// reaching past the target is clamped to it.
fn clip_draws_inside_only(gpu: &Gpu) {
    let full = [SIZE as f32, SIZE as f32];
    let red = [255, 0, 0, 255];
    let blue = [0, 0, 255, 255];
    let (f, segments) = frame(gpu, 0, |b, w| {
        b.state().set_clip(Some([16, 8, 32, 24]));
        solid(b, w, [0.0, 0.0], full, WHITE);
        b.state().set_clip(None);
        solid(b, w, [200.0, 200.0], [10.0, 10.0], red);
        // Partly outside the target: x 240..256, y 250..256 drawn.
        b.state().set_clip(Some([240, 250, 100, 100]));
        solid(b, w, [0.0, 0.0], full, blue);
    });
    assert_eq!(segments, 3);
    let what = format!("{} clip", gpu.adapter);
    for (x, y) in [(16, 8), (47, 8), (16, 31), (47, 31), (30, 20)] {
        f.expect(x, y, WHITE, 0, &format!("{what}: inside"));
    }
    for (x, y) in [(15, 8), (16, 7), (48, 31), (47, 32), (0, 0), (128, 128), (100, 20), (20, 100)] {
        f.expect(x, y, BLACK, 0, &format!("{what}: outside"));
    }
    f.expect(205, 205, red, 0, &format!("{what}: no clip after a clip"));
    for (x, y) in [(240, 250), (255, 255), (250, 252)] {
        f.expect(x, y, blue, 0, &format!("{what}: clamped clip"));
    }
    for (x, y) in [(239, 250), (240, 249), (255, 249)] {
        f.expect(x, y, BLACK, 0, &format!("{what}: outside the clamped clip"));
    }
}

/// Clips entirely outside the target, or empty, draw nothing and do not panic (nor raise a
/// wgpu validation error: `draw` fails on one).
fn clip_outside_or_empty_draws_nothing(gpu: &Gpu) {
    let full = [SIZE as f32, SIZE as f32];
    let green = [0, 255, 0, 255];
    let (f, segments) = frame(gpu, 4, |b, w| {
        b.state().set_clip(Some([SIZE + 10, 10, 10, 10]));
        solid(b, w, [0.0, 0.0], full, WHITE);
        b.state().set_clip(Some([10, 10, 0, 5]));
        solid(b, w, [1.0, 0.0], full, WHITE);
        b.state().set_clip(Some([u32::MAX - 1, u32::MAX - 1, u32::MAX, u32::MAX]));
        solid(b, w, [2.0, 0.0], full, WHITE);
        b.state().set_clip(Some([0, SIZE, SIZE, 1]));
        solid(b, w, [3.0, 0.0], full, WHITE);
        b.state().set_clip(None);
        solid(b, w, [100.0, 100.0], [10.0, 10.0], green);
    });
    assert_eq!(segments, 5);
    let what = format!("{} empty clips", gpu.adapter);
    for (x, y) in [(0, 0), (12, 12), (255, 255), (128, 30)] {
        f.expect(x, y, BLACK, 0, &what);
    }
    f.expect(105, 105, green, 0, &what);
}

/// Translate by (10, 20) and scale by 2: a 10 x 10 quad at (5, 5) covers x 20..40, y 30..50.
/// The next segment, with the identity, is untransformed.
fn transform_moves_and_scales(gpu: &Gpu) {
    let c = [0, 200, 100, 255];
    let red = [255, 0, 0, 255];
    let (f, segments) = frame(gpu, 0, |b, w| {
        b.state().set_transform([2.0, 0.0, 0.0, 2.0, 10.0, 20.0]);
        solid(b, w, [5.0, 5.0], [10.0, 10.0], c);
        b.state().set_transform(DrawState::IDENTITY);
        solid(b, w, [100.0, 100.0], [10.0, 10.0], red);
        // A shear's off-diagonal term: (x, y) -> (x + 0.5 y, y). Row y of a 20 x 20 quad at
        // (0, 200) spans x 0.5 y .. 0.5 y + 20.
        b.state().set_transform([1.0, 0.0, 0.5, 1.0, 0.0, 0.0]);
        solid(b, w, [0.0, 200.0], [20.0, 20.0], c);
    });
    assert_eq!(segments, 3);
    let what = format!("{} transform", gpu.adapter);
    for (x, y) in [(20, 30), (39, 30), (20, 49), (39, 49), (30, 40)] {
        f.expect(x, y, c, 0, &format!("{what}: inside"));
    }
    for (x, y) in [(19, 30), (20, 29), (40, 49), (39, 50), (5, 5), (14, 14)] {
        f.expect(x, y, BLACK, 0, &format!("{what}: outside"));
    }
    f.expect(100, 100, red, 0, &format!("{what}: identity after"));
    f.expect(109, 109, red, 0, &format!("{what}: identity after"));
    f.expect(110, 110, BLACK, 0, &format!("{what}: identity after"));
    // Row 201 (centre y 201.5) spans x 100.75..120.75; row 219, x 109.75..129.75.
    for (x, y) in [(101, 201), (112, 201), (120, 201), (110, 219), (125, 219), (129, 219)] {
        f.expect(x, y, c, 0, &format!("{what}: sheared"));
    }
    for (x, y) in [(99, 201), (121, 201), (108, 219), (130, 219)] {
        f.expect(x, y, BLACK, 0, &format!("{what}: outside the shear"));
    }
}

/// Two plans prepared before one pass, with different states: the first clipped, additive and
/// translated, the second with none of it. Each keeps its own states (the second's do not
/// overwrite the first's), and the first's clip does not leak into the second.
fn states_across_plans_of_one_frame(gpu: &Gpu) {
    let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
    let (mut b, mut r) = setup(gpu, Config::default());
    let white = b.textures().white().unwrap();
    let full = [SIZE as f32, SIZE as f32];
    let half = [100, 0, 0, 100];
    let blue = [0, 0, 255, 255];
    let target = common::gpu::target(&gpu.device, [SIZE, SIZE], FORMAT);
    let view = target.create_view(&Default::default());
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    let mut segments = 0;

    // Plan A: two additive quads, translated by (50, 0), clipped to x 0..80.
    b.begin_frame();
    b.state().set_blend(BlendMode::Additive);
    b.state().set_clip(Some([0, 0, 80, SIZE]));
    b.state().set_transform([1.0, 0.0, 0.0, 1.0, 50.0, 0.0]);
    b.push(&Quad::solid(white, [0.0, 10.0], [60.0, 20.0], half)).unwrap();
    b.push(&Quad::solid(white, [0.0, 10.0], [60.0, 20.0], half)).unwrap();
    let plan = b.finish();
    segments += plan.segments.len();
    let mut a = r.create_prepared();
    r.renderer.prepare(&gpu.device, &gpu.queue, &mut a, plan, [SIZE, SIZE]).unwrap();

    // Plan B: the defaults, a quad across the whole width.
    b.begin_frame();
    b.state().set_blend(BlendMode::Over);
    b.state().set_clip(None);
    b.state().set_transform(DrawState::IDENTITY);
    b.push(&Quad::solid(white, [0.0, 100.0], full, blue)).unwrap();
    let plan = b.finish();
    segments += plan.segments.len();
    let mut bp = r.create_prepared();
    r.renderer.prepare(&gpu.device, &gpu.queue, &mut bp, plan, [SIZE, SIZE]).unwrap();
    {
        let mut pass = common::gpu::clear_pass(&mut encoder, &view, CLEAR.map(|v| f64::from(v) / 255.0));
        r.renderer.render(&a, &mut pass).unwrap();
        r.renderer.render(&bp, &mut pass).unwrap();
    }
    gpu.queue.submit([encoder.finish()]);
    let pixels = common::gpu::read_texture(&gpu.device, &gpu.queue, &target);
    if let Some(e) = pollster::block_on(scope.pop()) {
        panic!("{}: wgpu validation error: {e}", gpu.adapter);
    }
    let f = Frame { width: SIZE, height: SIZE, pixels };
    let what = format!("{} two plans", gpu.adapter);
    assert_eq!(r.stats().device_frame.draw_calls as usize, segments, "{what}: one draw per segment");
    // A: x 50..110 translated, clipped at 80, both quads added.
    f.expect(60, 20, [200, 0, 0, 255], 1, &what);
    f.expect(79, 20, [200, 0, 0, 255], 1, &what);
    f.expect(80, 20, BLACK, 0, &format!("{what}: A clipped"));
    f.expect(45, 20, BLACK, 0, &format!("{what}: A translated"));
    // B: not clipped, not translated, not additive.
    for x in [0, 79, 80, 200, 255] {
        f.expect(x, 150, blue, 0, &format!("{what}: B unclipped"));
    }
}

/// Two lit plans prepared before one pass, each with its own light (red, then blue) and no
/// ambient light: each keeps its own lights (the second's do not overwrite the first's), as
/// each keeps its own states.
fn lights_across_plans_of_one_frame(gpu: &Gpu) {
    let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
    let (mut b, mut r) = setup(gpu, Config::default().with_lights(2));
    let white = b.textures().white().unwrap();
    let target = common::gpu::target(&gpu.device, [SIZE, SIZE], FORMAT);
    let view = target.create_view(&Default::default());
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    // A light far above, reaching everywhere without falling off: a lit white pixel shows
    // its colour (within the rounding of a cosine a hair under 1).
    let light = |colour| PointLight::new([128.0, 128.0], 1.0e6, colour).with_height_px(1.0e6).with_falloff(0.0);
    let mut prepared = Vec::new();
    for (x, colour) in [(0.0, [1.0, 0.0, 0.0]), (100.0, [0.0, 0.0, 1.0])] {
        b.begin_frame();
        b.set_ambient([0.0; 3]).unwrap();
        b.add_light(light(colour)).unwrap();
        b.state().set_lit(true);
        b.push(&Quad::solid(white, [x, 0.0], [100.0, 50.0], WHITE)).unwrap();
        let plan = b.finish();
        assert_eq!(plan.counters.lights, 1);
        let mut p = r.create_prepared();
        r.renderer.prepare(&gpu.device, &gpu.queue, &mut p, plan, [SIZE, SIZE]).unwrap();
        prepared.push(p);
    }
    {
        let mut pass = common::gpu::clear_pass(&mut encoder, &view, CLEAR.map(|v| f64::from(v) / 255.0));
        for p in &prepared {
            r.renderer.render(p, &mut pass).unwrap();
        }
    }
    gpu.queue.submit([encoder.finish()]);
    let pixels = common::gpu::read_texture(&gpu.device, &gpu.queue, &target);
    if let Some(e) = pollster::block_on(scope.pop()) {
        panic!("{}: wgpu validation error: {e}", gpu.adapter);
    }
    let f = Frame { width: SIZE, height: SIZE, pixels };
    let what = format!("{} two lit plans", gpu.adapter);
    f.expect(50, 25, [255, 0, 0, 255], 1, &format!("{what}: the first plan's red light"));
    f.expect(150, 25, [0, 0, 255, 255], 1, &format!("{what}: the second plan's blue light"));
}

/// A plan with more distinct draw states than the device's largest buffer holds (a new
/// transform per quad, by the million) is a clear error, not a panic or an allocation of
/// gigabytes; after `restore` the next frame draws.
fn too_many_states_is_an_error_then_restore(gpu: &Gpu) {
    let (mut b, mut r) = setup(gpu, Config::default());
    let white = b.textures().white().unwrap();
    b.begin_frame();
    solid(&mut b, white, [0.0, 0.0], [8.0, 8.0], WHITE);
    let mut plan = b.finish().clone();
    // One entry per state: 48 bytes (viewport, transform) at the device's uniform offset
    // alignment.
    let limits = gpu.device.limits();
    let stride = 48u64.next_multiple_of(u64::from(limits.min_uniform_buffer_offset_alignment));
    let max = (limits.max_buffer_size / stride) as usize;
    plan.states = vec![DrawState::default(); max + 1];
    match try_draw(gpu, &mut r, &plan) {
        Err(layerbatch_wgpu::Error::TooManyStates { states, max: m }) => {
            assert_eq!(states, max + 1);
            assert_eq!(m, max);
        }
        other => panic!("{}: want TooManyStates, got {:?}", gpu.adapter, other.err()),
    }
    // The plan was not applied: the batcher gets back in step as after a skipped plan.
    let listed = b.restore();
    assert!(listed.is_empty(), "the white texel is restored by the batcher: {listed:?}");
    b.begin_frame();
    solid(&mut b, white, [0.0, 0.0], [8.0, 8.0], WHITE);
    let f = draw(gpu, &mut r, b.finish());
    f.expect(4, 4, WHITE, 0, &format!("{} after restore", gpu.adapter));
}

/// A plan without clips, drawn into a [`Viewport::rect`] partly off the target with no host
/// clip given, sets no scissor of its own: the one the host set (egui sets one per callback)
/// holds. The pass's viewport (the rectangle's visible part) is what keeps the quads inside
/// it, and they keep their place. Frame 1: the test sets a 60x60 scissor, the panel lies 50 px
/// left of and 30 px above the target; frame 2 (no scissor): a smaller panel, whose edges
/// alone bound the quads.
fn viewport_rect_keeps_the_host_scissor(gpu: &Gpu) {
    let (mut b, mut r) = setup(gpu, Config::default());
    let white = b.textures().white().unwrap();
    let (red, green) = ([255, 0, 0, 255], [0, 255, 0, 255]);
    let mut frame = |b: &mut Batcher, rect: [i32; 4], scissor: Option<[u32; 4]>| {
        let device = &gpu.device;
        let errors = common::record_uncaptured(device);
        r.prepare(device, &gpu.queue, b.finish(), Viewport::rect([SIZE, SIZE], rect)).unwrap();
        let target = gpu::target(device, [SIZE, SIZE], FORMAT);
        let view = target.create_view(&Default::default());
        let mut encoder = device.create_command_encoder(&Default::default());
        {
            let mut pass = gpu::clear_pass(&mut encoder, &view, CLEAR.map(|v| f64::from(v) / 255.0));
            if let Some([x, y, w, h]) = scissor {
                pass.set_scissor_rect(x, y, w, h);
            }
            r.render(&mut pass);
        }
        gpu.queue.submit([encoder.finish()]);
        let pixels = gpu::read_texture(device, &gpu.queue, &target);
        common::assert_no_uncaptured(&errors, &gpu.adapter);
        Frame { width: SIZE, height: SIZE, pixels }
    };

    b.begin_frame();
    solid(&mut b, white, [0.0, 0.0], [300.0, 200.0], red);
    // Panel (150, 140): target (100, 110)..(120, 130), inside the scissor.
    solid(&mut b, white, [150.0, 140.0], [20.0, 20.0], green);
    let f = frame(&mut b, [-50, -30, 300, 200], Some([90, 100, 60, 60]));
    let what = format!("{}: the host's scissor [90, 100, 60, 60]", gpu.adapter);
    for (x, y) in [(100, 110), (119, 129), (110, 120)] {
        f.expect(x, y, green, 0, &format!("{what}: the green quad in its place"));
    }
    for (x, y) in [(90, 100), (149, 159), (95, 140), (125, 105)] {
        f.expect(x, y, red, 0, &format!("{what}: inside"));
    }
    for (x, y) in [(89, 100), (90, 99), (150, 120), (120, 160), (0, 0), (10, 10), (200, 150), (249, 169), (255, 255)] {
        f.expect(x, y, BLACK, 0, &format!("{what}: outside, untouched"));
    }
    let drawn = f.pixels.chunks_exact(4).filter(|p| *p != BLACK).count();
    assert_eq!(drawn, 60 * 60, "{what}: only the scissor's pixels are drawn");

    b.begin_frame();
    solid(&mut b, white, [0.0, 0.0], [300.0, 200.0], red);
    solid(&mut b, white, [150.0, 140.0], [20.0, 20.0], green);
    let f = frame(&mut b, [-50, -30, 200, 150], None);
    let what = format!("{}: no scissor, panel [-50, -30, 200, 150]", gpu.adapter);
    for (x, y) in [(0, 0), (149, 119), (99, 109)] {
        f.expect(x, y, red, 0, &format!("{what}: inside the visible part"));
    }
    f.expect(100, 110, green, 0, &format!("{what}: the green quad's visible corner"));
    for (x, y) in [(150, 0), (0, 120), (150, 120), (255, 255)] {
        f.expect(x, y, BLACK, 0, &format!("{what}: past the panel"));
    }
    let drawn = f.pixels.chunks_exact(4).filter(|p| *p != BLACK).count();
    assert_eq!(drawn, 150 * 120, "{what}: exactly the panel's visible part");
}
