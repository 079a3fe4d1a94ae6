//! Render to texture and viewport rectangles through both backends: a frame drawn into a
//! render-target texture, then drawn as a sprite in the next frame, is upright and right on
//! GL 3.3 core and GLES 3.0 (llvmpipe), wgpu on Vulkan (lavapipe) and wgpu's GL backend; a
//! target larger than any size class works; a plan drawn into an area of the target that lies
//! partly outside it keeps its sprites in place, inside the host's clip. GL and wgpu agree
//! within 2 per channel.
//!
//! Under `CI=true` a device that cannot be had fails the test; outside CI it prints `skipped:`.

use headless::{DeviceKind, Headless};
use layerbatch::{
    Batcher, BlendMode, Config, PlanError, PlanTarget, Quad, QuadVertices, TextureDesc, TextureId, Usage,
};
use layerbatch_testkit::headless;

const SIZE: [u32; 2] = [240, 160];
const KINDS: [DeviceKind; 4] = [DeviceKind::Gl, DeviceKind::Gles, DeviceKind::WgpuVulkan, DeviceKind::WgpuGl];

const CLEAR_RT: [f32; 4] = [0.0, 0.0, 0.5, 1.0];
const RED: [u8; 4] = [255, 0, 0, 255];
const GREEN: [u8; 4] = [0, 255, 0, 255];
const YELLOW: [u8; 4] = [255, 255, 0, 255];
const BLUE_BG: [u8; 4] = [0, 0, 128, 255];

fn open(kind: DeviceKind, test: &str) -> Option<(Headless, Batcher)> {
    open_with(kind, test, Config::default())
}

fn open_with(kind: DeviceKind, test: &str, config: Config) -> Option<(Headless, Batcher)> {
    let mut dev = headless::open_for_test(kind, SIZE, test)?;
    let b = Batcher::new(dev.limits(), config).expect("budget");
    dev.init(b.budget()).expect("renderer");
    Some((dev, b))
}

fn px(img: &[u8], x: u32, y: u32) -> [u8; 4] {
    let i = ((y * SIZE[0] + x) * 4) as usize;
    [img[i], img[i + 1], img[i + 2], img[i + 3]]
}

fn expect(img: &[u8], x: u32, y: u32, want: [u8; 4], what: &str) {
    let got = px(img, x, y);
    let ok = got.iter().zip(want).all(|(g, w)| g.abs_diff(w) <= 2);
    assert!(ok, "{what}: pixel ({x}, {y}) is {got:?}, want {want:?}");
}

/// A texture whose top half is red and bottom half green (row 0 on top, as uploaded).
fn red_over_green(b: &mut Batcher) -> TextureId {
    let (w, h) = (8u32, 8u32);
    let mut px = Vec::with_capacity((w * h * 4) as usize);
    for y in 0..h {
        for _ in 0..w {
            px.extend_from_slice(if y < h / 2 { &RED } else { &GREEN });
        }
    }
    b.textures().register(&TextureDesc::new(w, h), &px).unwrap()
}

/// Frame 1 into a 96x64 target: a red square at its top-left, a green one at its bottom-right,
/// the red-over-green texture in the middle, and a yellow band clipped to the bottom-left
/// corner; frame 2 draws the target at (20, 30), 1:1. Returns frame 2's readback.
fn target_then_sprite(kind: DeviceKind, test: &str) -> Option<Vec<u8>> {
    let (mut dev, mut b) = open(kind, test)?;
    let white = b.textures().white().unwrap();
    let tex = red_over_green(&mut b);
    let rt = b.textures().register(&TextureDesc::new(96, 64).with_usage(Usage::RenderTarget), &[]).unwrap();
    b.begin_frame_into(rt, Some(CLEAR_RT)).unwrap();
    b.push(&Quad::solid(white, [0.0, 0.0], [16.0, 16.0], RED)).unwrap();
    b.push(&Quad::solid(white, [80.0, 48.0], [16.0, 16.0], GREEN)).unwrap();
    b.push(&Quad::rect(tex, [40.0, 16.0], [16.0, 32.0])).unwrap();
    // A clip in the target's pixels (y down, as on screen): only the bottom-left 20x8.
    b.state().set_clip(Some([0, 56, 20, 8]));
    b.push(&Quad::solid(white, [0.0, 0.0], [96.0, 64.0], YELLOW)).unwrap();
    let plan = b.finish();
    assert_eq!(plan.target.map(|t| t.size_px), Some([96, 64]));
    dev.draw(plan).unwrap_or_else(|e| panic!("{kind:?} into the target: {e}"));
    // What the screen got in that frame: nothing of ours (only the host's clear).
    let screen = dev.read();
    expect(&screen, 25, 35, [0, 0, 0, 255], &format!("{kind:?}: the screen while drawing into the target"));

    b.begin_frame();
    b.push(&Quad::rect(rt, [20.0, 30.0], [96.0, 64.0])).unwrap();
    dev.draw(b.finish()).unwrap_or_else(|e| panic!("{kind:?} sampling the target: {e}"));
    let img = dev.read();
    let at = |x: u32, y: u32, want, what: &str| expect(&img, 20 + x, 30 + y, want, &format!("{kind:?}: {what}"));
    at(8, 8, RED, "red square at the target's top-left");
    at(88, 56, GREEN, "green square at its bottom-right");
    at(48, 20, RED, "the texture's top half on top");
    at(48, 44, GREEN, "the texture's bottom half below");
    at(10, 60, YELLOW, "the clipped band at the bottom-left");
    at(10, 50, BLUE_BG, "above the clip: the clear colour");
    at(30, 60, BLUE_BG, "right of the clip: the clear colour");
    at(60, 8, BLUE_BG, "elsewhere: the clear colour");
    expect(&img, 10, 10, [0, 0, 0, 255], &format!("{kind:?}: outside the sprite"));
    Some(img)
}

#[test]
fn render_target_upright_on_every_backend_and_gl_equals_wgpu() {
    let mut images = Vec::new();
    for kind in KINDS {
        if let Some(img) = target_then_sprite(kind, "render_target_upright") {
            images.push((kind, img));
        }
    }
    for (kind, img) in &images[1..] {
        let (differing, worst) = headless::compare(&images[0].1, img, SIZE[0], 2, "first", &format!("{kind:?}"));
        assert_eq!(differing, 0, "{kind:?} vs {:?}: worst {worst}", images[0].0);
    }
}

/// A target larger than any size class (its own array, exactly its size), drawn four
/// quadrants of colour, then shown scaled down to the screen.
#[test]
fn render_target_larger_than_any_size_class() {
    for kind in KINDS {
        let Some((mut dev, mut b)) = open(kind, "render_target_larger_than_any_size_class") else { continue };
        let class = b.budget().max_class_size_px;
        let max = b.limits().max_texture_size_px;
        let (w, h) = ((class + 476).min(max), (class + 76).min(max));
        assert!(w > class && h > class, "{kind:?}: the device's textures are not larger than a size class");
        let white = b.textures().white().unwrap();
        let rt = b.textures().register(&TextureDesc::new(w, h).with_usage(Usage::RenderTarget), &[]).unwrap();
        b.begin_frame_into(rt, None).unwrap();
        b.state().set_blend(BlendMode::Opaque);
        let (hw, hh) = ((w / 2) as f32, (h / 2) as f32);
        let colors = [RED, GREEN, YELLOW, [255, 255, 255, 255]];
        for (i, c) in colors.into_iter().enumerate() {
            let origin = [(i % 2) as f32 * hw, (i / 2) as f32 * hh];
            b.push(&Quad::solid(white, origin, [hw, hh], c)).unwrap();
        }
        let plan = b.finish();
        let created = plan.created_arrays().find(|(_, d)| d.render_target).expect("the target's array").1;
        assert_eq!((created.width_px, created.height_px), (w, h));
        dev.draw(plan).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
        b.begin_frame();
        b.push(&Quad::rect(rt, [0.0, 0.0], [SIZE[0] as f32, SIZE[1] as f32])).unwrap();
        dev.draw(b.finish()).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
        let img = dev.read();
        let (qx, qy) = (SIZE[0] / 4, SIZE[1] / 4);
        for (i, c) in colors.into_iter().enumerate() {
            let (x, y) = (qx + (i as u32 % 2) * 2 * qx, qy + (i as u32 / 2) * 2 * qy);
            expect(&img, x, y, c, &format!("{kind:?}: quadrant {i}"));
        }
    }
}

/// A target drawn into across several frames: `None` keeps what it holds, a clear resets it;
/// a quad that samples the target it draws into is refused, and a hand-made plan doing so is
/// refused by every backend before it touches the device.
#[test]
fn render_target_accumulates_and_refuses_feedback() {
    for kind in KINDS {
        let Some((mut dev, mut b)) = open(kind, "render_target_accumulates") else { continue };
        let white = b.textures().white().unwrap();
        let rt = b.textures().register(&TextureDesc::new(64, 64).with_usage(Usage::RenderTarget), &[]).unwrap();
        b.begin_frame_into(rt, Some([0.0, 0.0, 0.0, 1.0])).unwrap();
        b.push(&Quad::solid(white, [0.0, 0.0], [32.0, 64.0], RED)).unwrap();
        dev.draw(b.finish()).unwrap();
        b.begin_frame_into(rt, None).unwrap();
        b.push(&Quad::solid(white, [32.0, 0.0], [32.0, 64.0], GREEN)).unwrap();
        assert!(b.push(&Quad::rect(rt, [0.0, 0.0], [8.0, 8.0])).is_err());
        dev.draw(b.finish()).unwrap();
        // A plan that samples its own target, made by hand from a good one.
        b.begin_frame();
        b.push(&Quad::rect(rt, [0.0, 0.0], [64.0, 64.0])).unwrap();
        let mut bad = b.finish().clone();
        let p = b.placement(rt).unwrap();
        bad.target =
            Some(PlanTarget { texture: rt, array: p.array, layer: p.layer, size_px: [64, 64], clear_rgba: None });
        match dev.draw(&bad) {
            Err(headless::DrawError::Plan(PlanError::BadTarget { .. })) => {}
            other => panic!("{kind:?}: {other:?}"),
        }
        // Refused whole: the same plan without the target draws.
        bad.target = None;
        dev.draw(&bad).unwrap();
        let img = dev.read();
        expect(&img, 16, 32, RED, &format!("{kind:?}: the first frame's half"));
        expect(&img, 48, 32, GREEN, &format!("{kind:?}: the second frame's half, drawn over it"));
    }
}

/// A plan drawn into `[-40, 30, 200, 100]` of the 240x160 target (its left 40 pixels off
/// the target) inside a host clip of `[0, 40, 240, 60]`, with a segment clip of its own.
fn panel(kind: DeviceKind) -> Option<Vec<u8>> {
    let (mut dev, mut b) = open(kind, "viewport_rect_partly_off_target")?;
    let white = b.textures().white().unwrap();
    b.begin_frame();
    // Quads in the panel's pixels: a red one at its origin (off the target), a green one at
    // (50, 0) (target x 10), a yellow one at (100, 40) (target (60, 70)).
    b.push(&Quad::solid(white, [0.0, 0.0], [30.0, 30.0], RED)).unwrap();
    b.push(&Quad::solid(white, [50.0, 0.0], [30.0, 30.0], GREEN)).unwrap();
    b.push(&Quad::solid(white, [100.0, 40.0], [30.0, 30.0], YELLOW)).unwrap();
    // Clipped to panel x 150..170: a white band of target x 110..130, within the host clip.
    b.state().set_clip(Some([150, 0, 20, 100]));
    b.push(&Quad::solid(white, [0.0, 0.0], [200.0, 100.0], [255, 255, 255, 255])).unwrap();
    let plan = b.finish();
    dev.draw_in(plan, Some([-40, 30, 200, 100]), Some([0, 40, 240, 60])).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
    let img = dev.read();
    let what = |s: &str| format!("{kind:?}: {s}");
    let black = [0, 0, 0, 255];
    expect(&img, 20, 50, GREEN, &what("green quad at panel (50, 0) + (-40, 30)"));
    expect(&img, 20, 35, black, &what("above the host clip: untouched"));
    expect(&img, 5, 50, black, &what("the red quad lies off the target"));
    expect(&img, 75, 85, YELLOW, &what("yellow quad at panel (100, 40)"));
    expect(&img, 75, 99, YELLOW, &what("its last row inside the host clip"));
    expect(&img, 75, 100, black, &what("below the host clip: untouched"));
    expect(&img, 120, 70, [255, 255, 255, 255], &what("the clipped band"));
    expect(&img, 105, 70, black, &what("left of the band"));
    expect(&img, 135, 70, black, &what("right of the band"));
    expect(&img, 120, 39, black, &what("the band above the host clip"));
    expect(&img, 200, 70, black, &what("right of the panel"));
    Some(img)
}

#[test]
fn viewport_rect_partly_off_target() {
    let images: Vec<_> = KINDS.into_iter().filter_map(|k| panel(k).map(|img| (k, img))).collect();
    for (kind, img) in &images[1..] {
        let (differing, worst) = headless::compare(&images[0].1, img, SIZE[0], 2, "first", &format!("{kind:?}"));
        assert_eq!(differing, 0, "{kind:?} vs {:?}: worst {worst}", images[0].0);
    }
}

/// One scene with every draw feature, drawn by every backend: a sprite sheet cut by
/// `with_source_px`, flipped, placed by a pivot with scale and rotation, tinted with a
/// straight-alpha colour; untextured quads; every blend mode; a camera; a clip; a render target
/// drawn with all of that and then sampled, in a panel partly off the target inside a host
/// clip. GL 3.3, GLES 3.0, wgpu Vulkan and wgpu GL, each with instanced and with indexed quads,
/// agree within 2 per channel.
fn every_feature(kind: DeviceKind, quads: QuadVertices) -> Option<Vec<u8>> {
    let config = Config::default().with_quad_vertices(quads);
    let (mut dev, mut b) = open_with(kind, "every_feature_gl_equals_wgpu", config)?;
    assert_eq!(b.budget().indexed_quads, quads == QuadVertices::Indexed);
    let white = b.textures().white().unwrap();
    // A 4x2 sheet of 8x8 cells, each its own colour.
    let (sw, sh) = (32u32, 16u32);
    let mut sheet = Vec::with_capacity((sw * sh * 4) as usize);
    for y in 0..sh {
        for x in 0..sw {
            let cell = (y / 8) * 4 + x / 8;
            sheet.extend_from_slice(&[(cell * 30) as u8, 255 - (cell * 25) as u8, ((x * 7) % 256) as u8, 255]);
        }
    }
    let sheet =
        b.textures().register(&TextureDesc::new(sw, sh).with_filter(layerbatch::Filter::Nearest), &sheet).unwrap();
    let rt = b.textures().register(&TextureDesc::new(120, 80).with_usage(Usage::RenderTarget), &[]).unwrap();
    let scene = |b: &mut Batcher| {
        b.state().set_transform([1.5, 0.2, -0.2, 1.5, 6.0, -4.0]);
        for i in 0..6 {
            let q =
                Quad::placed(sheet, [20.0 + 14.0 * i as f32, 25.0], [8.0, 8.0], [0.5, 1.0], [1.0, 1.5], 0.3 * i as f32)
                    .with_source_px([8.0 * (i % 4) as f32, 8.0 * (i / 4) as f32, 8.0, 8.0], [sw, sh])
                    .flipped(i % 2 == 0, i % 3 == 0)
                    .with_straight_color([255, 200, 255, 160 + 15 * i as u8]);
            b.push(&q).unwrap();
        }
        b.state().set_transform(layerbatch::plan::DrawState::IDENTITY);
        for (i, mode) in BlendMode::ALL.into_iter().enumerate() {
            b.state().set_blend(mode);
            b.push(&Quad::solid(white, [4.0 + 22.0 * i as f32, 40.0], [30.0, 20.0], [90, 40, 130, 140])).unwrap();
        }
        b.state().set_blend(BlendMode::Over);
        b.state().set_clip(Some([10, 62, 50, 10]));
        b.push(&Quad::rotated(sheet, [40.0, 66.0], [70.0, 30.0], 0.4)).unwrap();
        b.state().set_clip(None);
    };
    b.begin_frame_into(rt, Some([0.1, 0.2, 0.3, 1.0])).unwrap();
    scene(&mut b);
    dev.draw(b.finish()).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
    b.begin_frame();
    scene(&mut b);
    b.push(&Quad::rect(rt, [100.0, 10.0], [120.0, 80.0])).unwrap();
    b.push(&Quad::placed(rt, [160.0, 120.0], [120.0, 80.0], [0.5, 0.5], [0.5, 0.5], 0.2).flipped(true, false)).unwrap();
    dev.draw_in(b.finish(), Some([-20, 8, 260, 150]), Some([0, 12, 232, 140]))
        .unwrap_or_else(|e| panic!("{kind:?}: {e}"));
    Some(dev.read())
}

#[test]
fn every_feature_gl_equals_wgpu() {
    // Every device, with instanced and with indexed quads: the render target's pipelines, every
    // blend mode and the clips, both ways.
    let images: Vec<_> = KINDS
        .into_iter()
        .flat_map(|k| [QuadVertices::Instanced, QuadVertices::Indexed].map(|q| (k, q)))
        .filter_map(|(k, q)| every_feature(k, q).map(|img| ((k, q), img)))
        .collect();
    // The scene drew something: the target's clear colour shows in the first copy.
    let (first_kind, first) = &images[0];
    expect(first, 85, 25, [26, 51, 77, 255], &format!("{first_kind:?}: the target's clear colour"));
    for (kind, img) in &images[1..] {
        let (differing, worst) =
            headless::compare(first, img, SIZE[0], 2, &format!("{first_kind:?}"), &format!("{kind:?}"));
        assert_eq!(differing, 0, "{kind:?} vs {first_kind:?}: worst {worst}");
    }
}
