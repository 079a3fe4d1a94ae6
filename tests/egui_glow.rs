//! layerbatch-gl inside egui through egui_glow's paint callbacks (`examples/egui_glow.rs`),
//! rendered headless by `egui_glow::Painter` into a framebuffer of a surfaceless EGL context
//! (llvmpipe), on GL 3.3 core and on GLES 3.0: the sprites land exactly where they should
//! (solid squares, checked at their centres and 2 px inside their corners, within 2 per
//! channel), and every pixel egui drew around them is the same as in the same egui frame
//! rendered without the callbacks. Then the cases egui hosts run into that apply to GL (GL
//! has no encoder to drop):
//!
//! 1. two callbacks in one frame sharing one renderer;
//! 3. a panel smaller than the screen and away from the origin, with a clip, at 1 and 1.5
//!    pixels per point;
//! 4. panels partly off-screen (left, right, bottom);
//!
//! and egui's clip (a scroll area) cutting sprites that have a clip of their own. And the
//! sRGB rule of docs/egui.md.
//!
//! Needs the `glow-0-17` feature (egui_glow 0.37 is on glow 0.17):
//! `cargo test --features glow-0-17 --test egui_glow`. Under `CI=true` a missing EGL context
//! fails the test; outside CI it prints `skipped:`.

use std::sync::{Arc, Mutex};

use example::host::{GlowEguiHost, Image};
use example::{paint_sprites, sprite_canvas, SpriteRenderer, Sprites};
use layerbatch::{Format, Quad, TextureDesc, TextureId};
use layerbatch_testkit::egui::checks::{
    check, close, framed, panel, scrolled_canvas, sq, to_px, Expected, Shot, Square, BACKGROUND, FRAME_FILL, SCROLLED,
    SCROLLED_CLIP,
};
use layerbatch_testkit::examples::egui_glow as example;

/// A host on a GLES 3.0 (`gles`) or GL 3.3 core context, and a sprite renderer on it; or
/// `None` after printing `skipped:` (outside CI only).
fn open(
    test: &str,
    gles: bool,
    size_px: [u32; 2],
    pixels_per_point: f32,
) -> Option<(GlowEguiHost, Arc<Mutex<SpriteRenderer>>)> {
    let host =
        layerbatch_testkit::ci::require(GlowEguiHost::new(gles, size_px, pixels_per_point), test, "EGL context")?;
    let sprites = SpriteRenderer::new(host.painter.gl().clone())
        .unwrap_or_else(|e| panic!("{test}: {}: SpriteRenderer::new: {e}", host.adapter));
    Some((host, Arc::new(Mutex::new(sprites))))
}

/// Defines `gl` and `gles` tests running `$name(test_name, gles)`.
macro_rules! on_gl_and_gles {
    ($($name:ident),* $(,)?) => {
        mod gl {
            $(#[test] fn $name() { super::$name(concat!("gl::", stringify!($name)), false); })*
        }
        mod gles {
            $(#[test] fn $name() { super::$name(concat!("gles::", stringify!($name)), true); })*
        }
    };
}

on_gl_and_gles!(
    two_callbacks_share_one_renderer,
    panel_away_from_origin_1x,
    panel_away_from_origin_1_5x,
    panel_partly_off_screen,
    egui_clip_cuts_sprites,
    srgb_rule_on_egui_target,
);

fn shot(image: &Image) -> Shot<'_> {
    Shot { width: image.width, height: image.height, pixels: &image.pixels }
}

/// Panics on an error a callback recorded, and destroys the renderer (context current).
fn finish(test: &str, renderer: &Mutex<SpriteRenderer>) {
    let mut r = renderer.lock().unwrap();
    let errors = std::mem::take(&mut r.errors);
    r.destroy();
    assert!(errors.is_empty(), "{test}: layerbatch errors: {errors:?}");
}

/// The frame `ui` builds without its sprites (`ui(_, false)`) and with them, two egui frames
/// each (so that egui's layout has settled); returns what `ui` gave for the one with.
fn with_and_without<R>(host: &mut GlowEguiHost, mut ui: impl FnMut(&mut egui::Ui, bool) -> R) -> (Image, Image, R) {
    for _ in 0..2 {
        host.frame(|u| {
            ui(u, false);
        });
    }
    let without = host.read();
    let mut out = None;
    host.frame(|u| out = Some(ui(u, true)));
    let with = host.frame(|u| out = Some(ui(u, true)));
    (with, without, out.expect("ui ran"))
}

fn framed_canvas(
    ui: &mut egui::Ui,
    size: egui::Vec2,
    renderer: &Arc<Mutex<SpriteRenderer>>,
    sprites: Option<Sprites>,
) -> egui::Rect {
    framed(ui, |ui| match sprites {
        Some(s) => sprite_canvas(ui, size, renderer, s).rect,
        None => ui.allocate_exact_size(size, egui::Sense::hover()).0,
    })
}

fn solid_sprites(white: TextureId, squares: &[Square], clip_px: Option<[u32; 4]>) -> Sprites {
    let quads =
        squares.iter().map(|s| Quad::solid(white, [s.x as f32, s.y as f32], [s.size as f32; 2], s.color)).collect();
    Sprites { quads, clip_px }
}

fn white(renderer: &Mutex<SpriteRenderer>) -> TextureId {
    renderer.lock().unwrap().batcher().textures().white().expect("white texture")
}

/// The demo of the example renders, with no error.
#[test]
fn example_renders() {
    if open("example_renders", false, [8, 8], 1.0).is_none() {
        return;
    }
    let image = example::run_demo([480, 260], 1.0).unwrap_or_else(|e| panic!("example_renders: {e}"));
    let fill = example::PANEL_FILL.to_array();
    assert!(image.pixels.chunks_exact(4).any(|p| p == fill), "example_renders: no panel fill in the frame");
}

const A: [Square; 5] = [
    sq(4, 4, 20, [230, 40, 40, 255]),
    sq(126, 4, 20, [40, 230, 40, 255]),
    sq(4, 76, 20, [40, 40, 230, 255]),
    sq(126, 76, 20, [230, 230, 40, 255]),
    sq(60, 35, 30, [230, 40, 230, 255]),
];
const B: [Square; 3] =
    [sq(10, 10, 40, [250, 150, 0, 255]), sq(60, 50, 24, [0, 200, 200, 255]), sq(100, 20, 16, [255, 255, 255, 255])];

/// Case 1: two callbacks in one frame share one renderer; each panel shows its own sprites,
/// frame after frame.
fn two_callbacks_share_one_renderer(test: &str, gles: bool) {
    let Some((mut host, renderer)) = open(test, gles, [400, 200], 1.0) else { return };
    let white = white(&renderer);
    let size = egui::vec2(150.0, 100.0);
    for _round in 0..2 {
        let (with, without, rects) = with_and_without(&mut host, |ui, on| {
            panel(ui, |ui| {
                ui.horizontal(|ui| {
                    let a = framed_canvas(ui, size, &renderer, on.then(|| solid_sprites(white, &A, None)));
                    let b = framed_canvas(ui, size, &renderer, on.then(|| solid_sprites(white, &B, None)));
                    [a, b]
                })
                .inner
            })
        });
        let [a, b] = rects.map(|r| to_px(r, 1.0));
        let panels = [
            Expected { origin: [a[0], a[1]], squares: &A, visible: a },
            Expected { origin: [b[0], b[1]], squares: &B, visible: b },
        ];
        let checked = check(test, &shot(&with), &shot(&without), &panels);
        assert_eq!(checked, 5 * (A.len() + B.len()), "{test}: every point visible");
    }
    finish(test, &renderer);
    println!("{test}: {}: ok", host.adapter);
}

/// Case 3: a panel smaller than the screen, away from the origin: sprites are placed relative
/// to the panel, at its size (not squashed), and a clip is in the panel's pixels too.
fn panel_away_from_origin(test: &str, gles: bool, pixels_per_point: f32) {
    // 480 x 300 points: both canvases fit on the screen.
    let screen = [480.0 * pixels_per_point, 300.0 * pixels_per_point].map(|v: f32| v.round() as u32);
    let Some((mut host, renderer)) = open(test, gles, screen, pixels_per_point) else { return };
    let white = white(&renderer);
    let size = egui::vec2(160.0, 100.0);
    let [w, h] = [(size.x * pixels_per_point).round() as i32, (size.y * pixels_per_point).round() as i32];
    let corners = [
        sq(3, 3, 20, [230, 40, 40, 255]),
        sq(w - 23, 3, 20, [40, 230, 40, 255]),
        sq(3, h - 23, 20, [40, 40, 230, 255]),
        sq(w - 23, h - 23, 20, [230, 230, 40, 255]),
        sq(w / 2 - 15, h / 2 - 15, 30, [230, 40, 230, 255]),
    ];
    let clip = [30, 0, (w - 30) as u32, h as u32];
    let clipped = [sq(20, 20, 20, [250, 150, 0, 255]), sq(4, 50, 20, [0, 200, 200, 255]), sq(60, 40, 20, [255; 4])];
    let (with, without, rects) = with_and_without(&mut host, |ui, on| {
        panel(ui, |ui| {
            ui.add_space(20.0);
            ui.horizontal(|ui| {
                ui.add_space(30.0);
                let a = framed_canvas(ui, size, &renderer, on.then(|| solid_sprites(white, &corners, None)));
                let b = framed_canvas(ui, size, &renderer, on.then(|| solid_sprites(white, &clipped, Some(clip))));
                [a, b]
            })
            .inner
        })
    });
    let [a, b] = rects.map(|r| to_px(r, pixels_per_point));
    assert!(a[0] > 0 && a[1] > 0, "{test}: the panel is away from the origin: {a:?}");
    assert!(b[0] + b[2] <= screen[0] as i32, "{test}: the panels are on the screen: {b:?}");
    assert_eq!([a[2], a[3]], [w, h], "{test}: the panel's size in pixels");
    let b_clip = [b[0] + 30, b[1], b[2] - 30, b[3]];
    let panels = [
        Expected { origin: [a[0], a[1]], squares: &corners, visible: a },
        Expected { origin: [b[0], b[1]], squares: &clipped, visible: b_clip },
    ];
    let checked = check(test, &shot(&with), &shot(&without), &panels);
    assert!(checked >= 25 + 5 + 2, "{test}: only {checked} points visible");
    finish(test, &renderer);
    println!("{test}: {}: {checked} points; ok", host.adapter);
}

fn panel_away_from_origin_1x(test: &str, gles: bool) {
    panel_away_from_origin(test, gles, 1.0);
}

fn panel_away_from_origin_1_5x(test: &str, gles: bool) {
    panel_away_from_origin(test, gles, 1.5);
}

/// Case 4: panels partly off-screen (one off the left edge, one off the right and bottom):
/// egui_glow clamps the GL viewport to the screen, yet the visible sprites are exactly where
/// they would be on a bigger screen, at their size.
fn panel_partly_off_screen(test: &str, gles: bool) {
    let screen = [320, 200];
    let Some((mut host, renderer)) = open(test, gles, screen, 1.0) else { return };
    let white = white(&renderer);
    let a = [-40, 50, 160, 100];
    let a_squares = [
        sq(4, 4, 20, [230, 40, 40, 255]),   // wholly off-screen
        sq(30, 30, 20, [40, 230, 40, 255]), // straddles the left edge
        sq(60, 10, 20, [40, 40, 230, 255]),
        sq(130, 70, 20, [230, 230, 40, 255]),
    ];
    let b = [240, 140, 160, 100];
    let b_squares = [
        sq(4, 4, 20, [230, 40, 230, 255]),
        sq(70, 10, 20, [250, 150, 0, 255]),    // straddles the right edge
        sq(10, 50, 20, [0, 200, 200, 255]),    // straddles the bottom edge
        sq(120, 70, 20, [255, 255, 255, 255]), // wholly off-screen
    ];
    let rect = |r: [i32; 4]| {
        egui::Rect::from_min_size(egui::pos2(r[0] as f32, r[1] as f32), egui::vec2(r[2] as f32, r[3] as f32))
    };
    let (with, without, ()) = with_and_without(&mut host, |ui, on| {
        egui::CentralPanel::no_frame().frame(egui::Frame::new().fill(BACKGROUND)).show(ui, |ui| {
            ui.label("layerbatch in egui");
            for (r, squares) in [(a, &a_squares), (b, &b_squares)] {
                ui.painter().rect_filled(rect(r), 0.0, FRAME_FILL);
                if on {
                    paint_sprites(ui.painter(), rect(r), &renderer, solid_sprites(white, squares, None));
                }
            }
        });
    });
    let panels = [
        Expected { origin: [a[0], a[1]], squares: &a_squares, visible: a },
        Expected { origin: [b[0], b[1]], squares: &b_squares, visible: b },
    ];
    let checked = check(test, &shot(&with), &shot(&without), &panels);
    assert!(checked >= 10 + 10, "{test}: only {checked} points visible");
    finish(test, &renderer);
    println!("{test}: {}: {checked} points; ok", host.adapter);
}

/// egui's clip cuts the sprites: a canvas in a scroll area scrolled sideways, with a clip of
/// its own as well. Nothing is drawn outside egui's scissor (the scroll area's viewport) nor
/// outside the sprites' clip, and the visible sprites keep their place.
fn egui_clip_cuts_sprites(test: &str, gles: bool) {
    let Some((mut host, renderer)) = open(test, gles, [400, 240], 1.0) else { return };
    let white = white(&renderer);
    let size = egui::vec2(320.0, 120.0);
    let (with, without, (canvas, egui_clip)) = with_and_without(&mut host, |ui, on| {
        panel(ui, |ui| {
            scrolled_canvas(ui, size, |ui| match on {
                true => sprite_canvas(ui, size, &renderer, solid_sprites(white, &SCROLLED, Some(SCROLLED_CLIP))).rect,
                false => ui.allocate_exact_size(size, egui::Sense::hover()).0,
            })
        })
    });
    let (c, e) = (to_px(canvas, 1.0), to_px(egui_clip, 1.0));
    assert!(
        c[0] > 0 && c[0] < e[0] && c[0] + c[2] > e[0] + e[2],
        "{test}: the canvas is on the screen and reaches past egui's clip on both sides: {c:?} {e:?}"
    );
    let [x, y, w, h] = SCROLLED_CLIP.map(|v| v as i32);
    let visible = layerbatch_testkit::egui::checks::intersect(e, [c[0] + x, c[1] + y, w, h]);
    let panels = [Expected { origin: [c[0], c[1]], squares: &SCROLLED, visible }];
    let checked = check(test, &shot(&with), &shot(&without), &panels);
    assert!(checked >= 15, "{test}: only {checked} points visible");
    finish(test, &renderer);
    println!("{test}: {}: {checked} points; ok", host.adapter);
}

/// sRGB: egui_glow's framebuffer is not sRGB (and it turns `FRAMEBUFFER_SRGB` off). A
/// `Format::Rgba8Unorm` texture comes out as its bytes, the same bytes egui writes for the
/// same `Color32`; a `Format::Rgba8UnormSrgb` texture is decoded to linear on sampling and
/// written as such: darker (128 comes out as 55).
fn srgb_rule_on_egui_target(test: &str, gles: bool) {
    let Some((mut host, renderer)) = open(test, gles, [200, 100], 1.0) else { return };
    let grey = [128u8, 128, 128, 255];
    let (unorm, srgb) = {
        let mut r = renderer.lock().unwrap();
        let batcher = r.batcher();
        let unorm = batcher.textures().register(&TextureDesc::new(8, 8), &grey.repeat(64)).unwrap();
        let desc = TextureDesc::new(8, 8).with_format(Format::Rgba8UnormSrgb);
        (unorm, batcher.textures().register(&desc, &grey.repeat(64)).unwrap())
    };
    let sprites = Sprites {
        quads: vec![Quad::rect(unorm, [10.0, 10.0], [30.0, 30.0]), Quad::rect(srgb, [50.0, 10.0], [30.0, 30.0])],
        clip_px: None,
    };
    let mut rect = egui::Rect::NOTHING;
    let image = host.frame(|ui| {
        rect = panel(ui, |ui| {
            let rect = framed_canvas(ui, egui::vec2(140.0, 50.0), &renderer, Some(sprites.clone()));
            let beside = egui::Rect::from_min_size(rect.right_top() + egui::vec2(12.0, 0.0), egui::vec2(20.0, 20.0));
            ui.painter().rect_filled(beside, 0.0, egui::Color32::from_gray(128));
            rect
        })
    });
    let r = to_px(rect, 1.0);
    let (unorm_px, srgb_px, egui_px) = (
        image.px(r[0] as u32 + 25, r[1] as u32 + 25),
        image.px(r[0] as u32 + 65, r[1] as u32 + 25),
        image.px((r[0] + r[2]) as u32 + 22, r[1] as u32 + 10),
    );
    finish(test, &renderer);
    assert!(close(egui_px, grey), "{test}: egui's grey is {egui_px:?}");
    assert!(close(unorm_px, grey), "{test}: the Rgba8Unorm texture is {unorm_px:?}, egui's same colour {egui_px:?}");
    assert!(close(srgb_px, [55, 55, 55, 255]), "{test}: the Rgba8UnormSrgb texture is {srgb_px:?}");
    println!("{test}: {}: Rgba8Unorm {unorm_px:?}, Rgba8UnormSrgb {srgb_px:?}, egui {egui_px:?}", host.adapter);
}
