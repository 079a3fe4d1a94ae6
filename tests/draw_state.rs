//! Draw state through both backends: every blend mode, clip rectangles (inside, partly and
//! wholly outside the target) and transforms (zoom, pan, rotation) read back the same on
//! layerbatch-gl (GL 3.3 core and GLES 3.0, llvmpipe) and layerbatch-wgpu (Vulkan, lavapipe;
//! wgpu's GL backend), within 2 per channel, and match the blend formulas where checked.
//!
//! Under `CI=true` a device that cannot be had fails the test; outside CI it prints `skipped:`.

use headless::{DeviceKind, Headless};
use layerbatch::plan::DrawState;
use layerbatch::{Batcher, BlendMode, Config, Quad};
use layerbatch_testkit::headless;

const SIZE: [u32; 2] = [320, 200];

fn open(kind: DeviceKind, test: &str) -> Option<Headless> {
    headless::open_for_test(kind, SIZE, test)
}

/// The device, a batcher with its renderer made, and the batcher's white texture; a frame
/// begun with the target covered by [`DST`], alpha included.
fn begin(kind: DeviceKind, test: &str) -> Option<(Headless, Batcher, layerbatch::TextureId)> {
    let mut dev = open(kind, test)?;
    let mut b = Batcher::new(dev.limits(), Config::default()).expect("budget");
    dev.init(b.budget()).expect("renderer");
    let white = b.textures().white().unwrap();
    b.begin_frame();
    b.state().set_blend(BlendMode::Opaque);
    b.push(&Quad::solid(white, [0.0, 0.0], [SIZE[0] as f32, SIZE[1] as f32], DST)).unwrap();
    Some((dev, b, white))
}

const DST: [u8; 4] = [100, 200, 50, 255];
const SRC: [u8; 4] = [128, 64, 0, 128]; // straight (255, 128, 0) at half alpha, premultiplied

/// One frame of every state; returns the readback and the draws issued.
fn scene(kind: DeviceKind, test: &str) -> Option<(Vec<u8>, u64)> {
    let (mut dev, mut b, white) = begin(kind, test)?;
    // A column per blend mode.
    for (i, mode) in BlendMode::ALL.into_iter().enumerate() {
        b.state().set_blend(mode);
        b.push(&Quad::solid(white, [10.0 + 40.0 * i as f32, 10.0], [30.0, 30.0], SRC)).unwrap();
    }
    b.state().set_blend(BlendMode::Over);
    // Clips: inside, partly outside, wholly outside, empty.
    for clip in [[10, 60, 30, 20], [300, 180, 100, 100], [400, 0, 10, 10], [50, 60, 0, 10]] {
        b.state().set_clip(Some(clip));
        b.push(&Quad::solid(white, [0.0, 50.0], [320.0, 150.0], [0, 0, 255, 255])).unwrap();
    }
    b.state().set_clip(None);
    // Transforms: zoom and pan; a quarter turn; rotation by 0.5 rad with a clip on top.
    b.state().set_transform([2.0, 0.0, 0.0, 2.0, 100.0, 60.0]);
    b.push(&Quad::solid(white, [0.0, 0.0], [10.0, 10.0], [255, 0, 255, 255])).unwrap();
    b.state().set_transform([0.0, 1.0, -1.0, 0.0, 200.0, 60.0]);
    b.push(&Quad::solid(white, [0.0, 0.0], [20.0, 10.0], [0, 255, 255, 255])).unwrap();
    let (s, c) = 0.5f32.sin_cos();
    b.state().set_transform([c, s, -s, c, 260.37, 100.61]);
    b.state().set_clip(Some([250, 90, 40, 40]));
    b.push(&Quad::solid(white, [0.0, 0.0], [50.0, 50.0], [255, 255, 0, 255])).unwrap();
    b.state().set_transform(DrawState::IDENTITY);
    b.state().set_clip(None);
    b.push(&Quad::solid(white, [10.0, 150.0], [8.0, 8.0], [255, 255, 255, 255])).unwrap();
    let plan = b.finish();
    // 13 segments: every push above follows a state change but the first, and the additive
    // column shares the "over" column's draw.
    assert_eq!(plan.segments.len(), 13);
    assert_eq!(plan.counters.flushes_state_change, 12, "{:?}", plan.counters);
    dev.draw(plan).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
    let draws = dev.stats().device_frame.draw_calls;
    Some((dev.read(), draws))
}

fn want(mode: BlendMode) -> [u8; 4] {
    layerbatch_testkit::blend::blend(mode, SRC, DST)
}

fn at(img: &[u8], x: u32, y: u32) -> [u8; 4] {
    let i = ((y * SIZE[0] + x) * 4) as usize;
    [img[i], img[i + 1], img[i + 2], img[i + 3]]
}

fn close(a: [u8; 4], b: [u8; 4]) -> bool {
    a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= 2)
}

#[test]
fn blend_clip_and_transform_read_back_the_same_on_every_backend() {
    const TEST: &str = "blend_clip_and_transform_read_back_the_same_on_every_backend";
    let Some((reference, ref_draws)) = scene(DeviceKind::Gl, TEST) else { return };
    assert_eq!(ref_draws, 11, "13 segments, 2 clipped away entirely");
    // The formulas, on the reference.
    for (i, mode) in BlendMode::ALL.into_iter().enumerate() {
        let px = at(&reference, 25 + 40 * i as u32, 25);
        assert!(close(px, want(mode)), "{mode:?}: {px:?}, want {:?}", want(mode));
    }
    let blue = [0, 0, 255, 255];
    assert_eq!(at(&reference, 20, 70), blue, "inside the clip");
    assert_eq!(at(&reference, 45, 70), DST, "outside the clip");
    assert_eq!(at(&reference, 310, 190), blue, "a clip partly outside the target");
    assert_eq!(at(&reference, 310, 170), DST, "above it");
    assert_eq!(at(&reference, 110, 70), [255, 0, 255, 255], "zoomed and panned");
    assert_eq!(at(&reference, 125, 85), DST, "past the zoomed quad");
    assert_eq!(at(&reference, 195, 70), [0, 255, 255, 255], "the quarter turn");
    assert_eq!(at(&reference, 205, 70), DST, "right of the quarter turn");
    assert_eq!(at(&reference, 270, 110), [255, 255, 0, 255], "rotated, inside its clip");
    assert_eq!(at(&reference, 270, 135), DST, "rotated, below its clip");
    assert_eq!(at(&reference, 14, 154), [255, 255, 255, 255], "back to the identity");
    for kind in [DeviceKind::Gles, DeviceKind::WgpuVulkan, DeviceKind::WgpuGl] {
        let Some((img, draws)) = scene(kind, TEST) else { return };
        // Wholly clipped segments issue no draw on either backend.
        assert_eq!(draws, ref_draws, "{kind:?}: draws");
        let (differing, worst) = headless::compare(&reference, &img, SIZE[0], 2, "GL", &format!("{kind:?}"));
        // Rotated edges may fall on different sides of a pixel centre: a few pixels of slack.
        assert!(differing <= 40, "{kind:?}: {differing} pixels differ by more than 2 (worst {worst})");
        println!("{TEST}: {kind:?}: {differing} pixels differ by more than 2, worst {worst}");
    }
}

/// Every kind the issue names: GL 3.3, GLES 3.0, wgpu on Vulkan.
const KINDS: [DeviceKind; 3] = [DeviceKind::Gl, DeviceKind::Gles, DeviceKind::WgpuVulkan];

/// A small textured scene: a checker sprite sheet and solid quads, translucent overlaps.
fn world(b: &mut Batcher) -> Vec<Quad> {
    let white = b.textures().white().unwrap();
    let mut checker = Vec::new();
    for y in 0..8u32 {
        for x in 0..8u32 {
            checker.extend_from_slice(if (x + y) % 2 == 0 { &[200, 60, 20, 255] } else { &[20, 60, 200, 255] });
        }
    }
    let tex = b.textures().register(&layerbatch::TextureDesc::new(8, 8), &checker).unwrap();
    vec![
        Quad::rect(tex, [20.0, 20.0], [64.0, 64.0]),
        Quad::rotated(tex, [120.0, 60.0], [40.0, 30.0], 0.4),
        Quad::solid(white, [50.0, 40.0], [80.0, 30.0], [0, 100, 0, 160]),
        Quad::solid(white, [10.0, 90.0], [140.0, 10.0], [120, 120, 120, 255]),
    ]
}

/// `m` applied to the quad's corners on the CPU.
fn transformed(q: &Quad, m: [f32; 6]) -> Quad {
    let [a, b, c, d, tx, ty] = m;
    let lin = |v: [f32; 2]| [a * v[0] + c * v[1], b * v[0] + d * v[1]];
    let o = lin(q.origin);
    Quad { origin: [o[0] + tx, o[1] + ty], axis_x: lin(q.axis_x), axis_y: lin(q.axis_y), ..*q }
}

/// Draws the world twice side by side through cameras, or with the cameras applied on the
/// CPU; returns the readback and the frame's state-change flushes.
fn camera_scene(kind: DeviceKind, on_gpu: bool, test: &str) -> Option<(Vec<u8>, u64)> {
    let mut dev = open(kind, test)?;
    let mut b = Batcher::new(dev.limits(), Config::default()).expect("budget");
    dev.init(b.budget()).expect("renderer");
    let quads = world(&mut b);
    let (s, c) = 0.3f32.sin_cos();
    let cameras = [
        [1.5 * c, 1.5 * s, -1.5 * s, 1.5 * c, 10.37, -20.61], // zoom, rotation, pan
        [0.75, 0.0, 0.0, 0.75, 190.37, 80.61],                // zoom out, pan
    ];
    b.begin_frame();
    for m in cameras {
        if on_gpu {
            b.state().set_transform(m);
        }
        for q in &quads {
            b.push(&if on_gpu { *q } else { transformed(q, m) }).unwrap();
        }
    }
    let plan = b.finish();
    let flushes = plan.counters.flushes_state_change;
    dev.draw(plan).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
    Some((dev.read(), flushes))
}

#[test]
fn a_camera_draws_what_the_cpu_transform_draws() {
    const TEST: &str = "a_camera_draws_what_the_cpu_transform_draws";
    for kind in KINDS {
        let Some((gpu, flushes)) = camera_scene(kind, true, TEST) else { return };
        let Some((cpu, none)) = camera_scene(kind, false, TEST) else { return };
        // The first camera is set before any quad: only the change between the groups flushes.
        assert_eq!((flushes, none), (1, 0), "{kind:?}: state-change flushes");
        let (differing, worst) = headless::compare(&gpu, &cpu, SIZE[0], 2, "camera", "CPU");
        // The same corners, computed on the GPU in f32 instead of on the CPU: an edge pixel
        // whose centre lies within rounding of an edge may flip.
        assert!(differing <= 8, "{kind:?}: {differing} pixels differ by more than 2 (worst {worst})");
        let lit = gpu.chunks_exact(4).filter(|p| p[..3] != [0, 0, 0]).count();
        assert!(lit > 10_000, "{kind:?}: the scene drew: {lit} pixels");
        println!("{TEST}: {kind:?}: {differing} pixels differ by more than 2, worst {worst}");
    }
}

#[test]
fn ten_thousand_quads_alternating_two_blend_modes_draw_right() {
    const TEST: &str = "ten_thousand_quads_alternating_two_blend_modes_draw_right";
    // Over and additive share draws (additive is "over" with alpha 0): the background's draw
    // and one more. Over and multiply need other blend factors: a draw per quad, as PixiJS
    // (a new batch on every blend change) would issue.
    for (other, draws) in [(BlendMode::Additive, 2), (BlendMode::Multiply, 10_001)] {
        for kind in KINDS {
            let Some((mut dev, mut b, white)) = begin(kind, TEST) else { return };
            let mode = |i: u32| if i & 1 == 0 { BlendMode::Over } else { other };
            // A 125 x 80 grid of 2 x 2 px quads: over, the other, over, ...
            for i in 0..10_000u32 {
                b.state().set_blend(mode(i));
                let (x, y) = (i % 125, i / 125);
                b.push(&Quad::solid(white, [(x * 2) as f32, (y * 2) as f32], [2.0, 2.0], SRC)).unwrap();
            }
            let plan = b.finish();
            assert_eq!(plan.counters.draw_calls, draws, "{kind:?} {other:?}: planned draws");
            assert_eq!(plan.counters.flushes_state_change, draws - 1, "{kind:?} {other:?}");
            dev.draw(plan).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
            assert_eq!(dev.stats().device_frame.draw_calls, draws, "{kind:?} {other:?}: draws issued");
            let img = dev.read();
            for i in 0..10_000u32 {
                let (x, y) = ((i % 125) * 2, (i / 125) * 2);
                let want = want(mode(i));
                for (dx, dy) in [(0, 0), (1, 1)] {
                    let px = at(&img, x + dx, y + dy);
                    assert!(close(px, want), "{kind:?}: quad {i} ({:?}): {px:?}, want {want:?}", mode(i));
                }
            }
            assert_eq!(at(&img, 300, 190), DST, "{kind:?}: outside the grid");
            println!("{TEST}: {kind:?}: over/{other:?}: {draws} draws for 10,000 alternating quads");
        }
    }
}

#[test]
fn a_plan_naming_additive_draws_what_the_merged_draw_draws() {
    // The batcher never plans `Additive` (it folds it into "over" draws); a hand-made plan
    // may, and every backend's additive blend factors must give the same pixels.
    const TEST: &str = "a_plan_naming_additive_draws_what_the_merged_draw_draws";
    for kind in KINDS {
        let Some((mut dev, mut b, white)) = begin(kind, TEST) else { return };
        b.state().set_blend(BlendMode::Over);
        b.push(&Quad::solid(white, [10.0, 10.0], [30.0, 30.0], SRC)).unwrap();
        let mut plan = b.finish().clone();
        let state = plan.segments.last().unwrap().state as usize;
        assert_eq!(plan.states[state].blend, BlendMode::Over);
        plan.states[state].blend = BlendMode::Additive;
        dev.draw(&plan).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
        let px = at(&dev.read(), 25, 25);
        assert!(close(px, want(BlendMode::Additive)), "{kind:?}: {px:?}, want {:?}", want(BlendMode::Additive));
    }
}
