//! layerbatch-wgpu inside egui through egui-wgpu's paint callbacks (`examples/egui_wgpu.rs`),
//! rendered headless by `egui_wgpu::Renderer` on wgpu's Vulkan backend (lavapipe): the sprites
//! land exactly where they should (solid squares, checked at their centres and 2 px inside
//! their corners, within 2 per channel), and every pixel egui drew around them is the same as
//! in the same egui frame rendered without the callbacks. Then the cases egui hosts run into:
//!
//! 1. two callbacks in one frame sharing one renderer (prepare A, prepare B, paint A, paint B);
//! 2. the host drops egui's encoder unsubmitted after the callbacks ran (eframe, on an outdated
//!    or lost surface), in a frame that registers textures and grows arrays;
//! 3. a panel smaller than the screen and away from the origin, with a clip, at 1 and 1.5
//!    pixels per point;
//! 4. panels partly off-screen (left, right, bottom);
//!
//! and egui's clip (a scroll area) cutting sprites that have a clip of their own.
//!
//! And the two rules of docs/egui.md: multisampling must match egui's pass, and
//! on egui's (not sRGB) target `Rgba8Unorm` textures come out as their bytes.
//!
//! Under `CI=true` a missing Vulkan adapter fails the test; outside CI it prints `skipped:`.

use example::host::{Image, Submit, WgpuEguiHost, FORMAT};
use example::{paint_sprites, sprite_canvas, SpriteRenderer, Sprites};
use layerbatch::{Format, Quad, TextureDesc, TextureId, Wrap};
use layerbatch_testkit::egui::checks::{
    check, close, framed, panel, scrolled_canvas, sq, to_px, Expected, Shot, Square, BACKGROUND, FRAME_FILL, SCROLLED,
    SCROLLED_CLIP,
};
use layerbatch_testkit::examples::egui_wgpu as example;

/// A host with a sprite renderer of `msaa_samples` in its callback resources, or `None` after
/// printing `skipped:` (outside CI only).
fn open(test: &str, size_px: [u32; 2], pixels_per_point: f32, msaa_samples: u32) -> Option<WgpuEguiHost> {
    let mut host = layerbatch_testkit::ci::require(
        WgpuEguiHost::new(size_px, pixels_per_point, msaa_samples),
        test,
        "Vulkan adapter",
    )?;
    let sprites = SpriteRenderer::new(&host.device, FORMAT, msaa_samples)
        .unwrap_or_else(|e| panic!("{test}: {}: SpriteRenderer::new: {e}", host.adapter));
    host.renderer.callback_resources.insert(sprites);
    Some(host)
}

fn sprites(host: &mut WgpuEguiHost) -> &mut SpriteRenderer {
    host.resources::<SpriteRenderer>().expect("a SpriteRenderer in the callback resources")
}

fn white(host: &mut WgpuEguiHost) -> TextureId {
    sprites(host).batcher().textures().white().expect("white texture")
}

/// One egui frame, submitted or not; panics on a wgpu validation error or a layerbatch error.
fn frame<R>(host: &mut WgpuEguiHost, test: &str, submit: Submit, mut ui: impl FnMut(&mut egui::Ui) -> R) -> (Image, R) {
    let mut out = None;
    let image = host.frame(submit, |ui_| out = Some(ui(ui_))).unwrap_or_else(|e| panic!("{test}: {e}"));
    let errors = &sprites(host).errors;
    assert!(errors.is_empty(), "{test}: layerbatch errors: {errors:?}");
    (image, out.expect("ui ran"))
}

/// The frame `ui` builds without its sprites (`ui(_, false)`) and with them, two egui frames
/// each (so that egui's layout has settled); returns what `ui` gave for the one with.
fn with_and_without<R>(
    host: &mut WgpuEguiHost,
    test: &str,
    mut ui: impl FnMut(&mut egui::Ui, bool) -> R,
) -> (Image, Image, R) {
    for _ in 0..2 {
        frame(host, test, Submit::Yes, |u| ui(u, false));
    }
    let without = host.read();
    frame(host, test, Submit::Yes, |u| ui(u, true));
    let (with, r) = frame(host, test, Submit::Yes, |u| ui(u, true));
    (with, without, r)
}

/// A canvas of `size` points in a frame of [`FRAME_FILL`]; with `sprites: None`, the same
/// space without a callback. Returns the canvas's rectangle (points).
fn framed_canvas(ui: &mut egui::Ui, size: egui::Vec2, sprites: Option<Sprites>) -> egui::Rect {
    framed(ui, |ui| match sprites {
        Some(s) => sprite_canvas(ui, size, s).rect,
        None => ui.allocate_exact_size(size, egui::Sense::hover()).0,
    })
}

fn solid_sprites(white: TextureId, squares: &[Square], clip_px: Option<[u32; 4]>) -> Sprites {
    let quads =
        squares.iter().map(|s| Quad::solid(white, [s.x as f32, s.y as f32], [s.size as f32; 2], s.color)).collect();
    Sprites { quads, clip_px }
}

fn shot(image: &Image) -> Shot<'_> {
    Shot { width: image.width, height: image.height, pixels: &image.pixels }
}

/// The demo of the example renders, with no error.
#[test]
fn example_renders() {
    if open("example_renders", [8, 8], 1.0, 1).is_none() {
        return;
    }
    let image = example::run_demo([480, 260], 1.0).unwrap_or_else(|e| panic!("example_renders: {e}"));
    // The demo's frames are filled with PANEL_FILL: some of it shows.
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

/// Case 1: two callbacks in one frame share one renderer. egui-wgpu calls prepare A, prepare
/// B, then paint A, paint B: each panel shows its own sprites, frame after frame.
#[test]
fn two_callbacks_share_one_renderer() {
    let test = "two_callbacks_share_one_renderer";
    let Some(mut host) = open(test, [400, 200], 1.0, 1) else { return };
    let white = white(&mut host);
    let size = egui::vec2(150.0, 100.0);
    for round in 0..2 {
        let (with, without, rects) = with_and_without(&mut host, test, |ui, on| {
            panel(ui, |ui| {
                ui.horizontal(|ui| {
                    let a = framed_canvas(ui, size, on.then(|| solid_sprites(white, &A, None)));
                    let b = framed_canvas(ui, size, on.then(|| solid_sprites(white, &B, None)));
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
        let stats = sprites(&mut host).stats();
        assert_eq!(stats.device_frame.frames, 1, "{test}: round {round}: B's prepare, then both paints");
        assert_eq!(stats.device_frame.draw_calls, 2, "{test}: round {round}: one draw per panel");
    }
    println!("{test}: {}: ok", host.adapter);
}

/// `n` solid `size`-px textures: `Repeat` ones go to class arrays (4 layers, then doubled by
/// a GPU copy), clamp-to-edge ones to atlas pages (grown by GPU copies).
fn register_solid(host: &mut WgpuEguiHost, first: usize, n: usize, repeat: bool) -> Vec<(TextureId, [u8; 4])> {
    let batcher = sprites(host).batcher();
    (first..first + n)
        .map(|i| {
            let color = [(i * 37 % 200 + 40) as u8, (i * 91 % 200 + 40) as u8, (i * 53 % 200 + 40) as u8, 255];
            let wrap = if repeat { Wrap::Repeat } else { Wrap::ClampToEdge };
            let desc = TextureDesc::new(16, 16).with_wrap(wrap);
            (batcher.textures().register(&desc, &color.repeat(16 * 16)).expect("register"), color)
        })
        .collect()
}

/// Every texture as a 16 px square, 10 a row, 20 px apart.
fn grid(textures: &[(TextureId, [u8; 4])]) -> (Sprites, Vec<Square>) {
    let at = |i: usize| (2 + 20 * (i % 10) as i32, 2 + 20 * (i / 10) as i32);
    let quads = textures
        .iter()
        .enumerate()
        .map(|(i, &(t, _))| {
            let (x, y) = at(i);
            Quad::rect(t, [x as f32, y as f32], [16.0, 16.0])
        })
        .collect();
    let squares = textures
        .iter()
        .enumerate()
        .map(|(i, &(_, c))| {
            let (x, y) = at(i);
            sq(x, y, 16, c)
        })
        .collect();
    (Sprites { quads, clip_px: None }, squares)
}

/// Case 2: the host drops egui's encoder without submitting it, after the callbacks' prepare
/// (and paint) ran, in a frame that registered textures and grew arrays (what eframe does when
/// the surface is outdated or lost). The next frame still shows every texture.
///
/// Failed with the former encoder-taking `Renderer::prepare`: growth copies and the writes
/// after them went into egui's encoder, which is dropped.
#[test]
fn dropped_encoder_loses_nothing() {
    let test = "dropped_encoder_loses_nothing";
    let Some(mut host) = open(test, [280, 160], 1.0, 1) else { return };
    let size = egui::vec2(200.0, 80.0);
    let mut textures = register_solid(&mut host, 0, 4, true);
    textures.extend(register_solid(&mut host, 4, 6, false));
    let ui =
        |sprites: Option<Sprites>| move |ui: &mut egui::Ui| panel(ui, |ui| framed_canvas(ui, size, sprites.clone()));
    // Frame 0, submitted: the class array is full (4 layers) and a page holds 6 textures.
    let (sprites0, _) = grid(&textures);
    frame(&mut host, test, Submit::Yes, ui(Some(sprites0)));

    // Frame 1: more textures of both kinds (the class array doubles, the page grows), then the
    // encoder is dropped.
    textures.extend(register_solid(&mut host, 10, 4, true));
    textures.extend(register_solid(&mut host, 14, 10, false));
    let (sprites1, _) = grid(&textures);
    frame(&mut host, test, Submit::Drop, ui(Some(sprites1.clone())));
    let growths = sprites(&mut host).stats().core_frame.array_growths;
    assert!(growths >= 1, "{test}: frame 1 grew no array ({growths})");

    // Frame 2, submitted, after a frame without sprites for the comparison.
    let (without, _) = frame(&mut host, test, Submit::Yes, ui(None));
    let (with, rect) = frame(&mut host, test, Submit::Yes, ui(Some(sprites1)));
    let (_, squares) = grid(&textures);
    let r = to_px(rect, 1.0);
    let checked =
        check(test, &shot(&with), &shot(&without), &[Expected { origin: [r[0], r[1]], squares: &squares, visible: r }]);
    assert_eq!(checked, 5 * squares.len());
    println!("{test}: {}: {growths} growths in the dropped frame; ok", host.adapter);
}

/// Case 3: a panel smaller than the screen, away from the origin: sprites are placed relative
/// to the panel, at its size (not squashed), and a clip is in the panel's pixels too.
fn panel_away_from_origin(test: &str, pixels_per_point: f32) {
    // 480 x 300 points: both canvases fit on the screen.
    let screen = [480.0 * pixels_per_point, 300.0 * pixels_per_point].map(|v: f32| v.round() as u32);
    let Some(mut host) = open(test, screen, pixels_per_point, 1) else { return };
    let white = white(&mut host);
    // Two canvases of 160 x 100 points; the squares are in pixels, so placed from the size in
    // pixels: one near each corner and one in the middle.
    let size = egui::vec2(160.0, 100.0);
    let [w, h] = [(size.x * pixels_per_point).round() as i32, (size.y * pixels_per_point).round() as i32];
    let corners = [
        sq(3, 3, 20, [230, 40, 40, 255]),
        sq(w - 23, 3, 20, [40, 230, 40, 255]),
        sq(3, h - 23, 20, [40, 40, 230, 255]),
        sq(w - 23, h - 23, 20, [230, 230, 40, 255]),
        sq(w / 2 - 15, h / 2 - 15, 30, [230, 40, 230, 255]),
    ];
    // The second canvas clips to all but a 30 px band on the left: the first square is cut in
    // half by the clip, the second is wholly clipped away.
    let clip = [30, 0, (w - 30) as u32, h as u32];
    let clipped = [sq(20, 20, 20, [250, 150, 0, 255]), sq(4, 50, 20, [0, 200, 200, 255]), sq(60, 40, 20, [255; 4])];
    let (with, without, rects) = with_and_without(&mut host, test, |ui, on| {
        panel(ui, |ui| {
            ui.add_space(20.0);
            ui.horizontal(|ui| {
                ui.add_space(30.0);
                let a = framed_canvas(ui, size, on.then(|| solid_sprites(white, &corners, None)));
                let b = framed_canvas(ui, size, on.then(|| solid_sprites(white, &clipped, Some(clip))));
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
    // Corners: all 25 points; the clipped canvas: the half square's 2 right points and centre
    // column... (its centre is on the clip edge: x = 30 is inside), and all 5 of the third.
    assert!(checked >= 25 + 5 + 2, "{test}: only {checked} points visible");
    println!("{test}: {}: {checked} points; ok", host.adapter);
}

/// Case 3 at 1 pixel per point. Failed with the former `[u32; 2]`-viewport `prepare`: the
/// clip landed at the screen's origin instead of the panel's.
#[test]
fn panel_away_from_origin_1x() {
    panel_away_from_origin("panel_away_from_origin_1x", 1.0);
}

/// Case 3 at 1.5 pixels per point (fractional scaling).
#[test]
fn panel_away_from_origin_1_5x() {
    panel_away_from_origin("panel_away_from_origin_1_5x", 1.5);
}

/// Case 4: panels partly off-screen (one off the left edge, one off the right and bottom):
/// egui-wgpu clamps the pass's viewport to the screen, yet the visible sprites are exactly
/// where they would be on a bigger screen, at their size.
///
/// Failed with the former `[u32; 2]`-viewport `prepare`: the quads were squeezed into the
/// clamped viewport.
#[test]
fn panel_partly_off_screen() {
    let test = "panel_partly_off_screen";
    let screen = [320, 200];
    let Some(mut host) = open(test, screen, 1.0, 1) else { return };
    let white = white(&mut host);
    // Panel A: 160 x 100 at (-40, 50): its left 40 px are off-screen.
    let a = [-40, 50, 160, 100];
    let a_squares = [
        sq(4, 4, 20, [230, 40, 40, 255]),   // wholly off-screen
        sq(30, 30, 20, [40, 230, 40, 255]), // straddles the left edge
        sq(60, 10, 20, [40, 40, 230, 255]),
        sq(130, 70, 20, [230, 230, 40, 255]),
    ];
    // Panel B: 160 x 100 at (240, 140): its right 80 and bottom 40 px are off-screen.
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
    let (with, without, ()) = with_and_without(&mut host, test, |ui, on| {
        egui::CentralPanel::no_frame().frame(egui::Frame::new().fill(BACKGROUND)).show(ui, |ui| {
            ui.label("layerbatch in egui");
            for (r, squares) in [(a, &a_squares), (b, &b_squares)] {
                ui.painter().rect_filled(rect(r), 0.0, FRAME_FILL);
                if on {
                    paint_sprites(ui.painter(), rect(r), solid_sprites(white, squares, None));
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
    println!("{test}: {}: {checked} points; ok", host.adapter);
}

/// egui's clip cuts the sprites: a canvas in a scroll area scrolled sideways, with a clip of
/// its own as well. Nothing is drawn outside egui's clip rectangle (the scroll area's
/// viewport) nor outside the sprites' clip, and the visible sprites keep their place.
///
/// Failed with the former `[u32; 2]`-viewport `prepare`: the sprites' clip was placed at the
/// screen's origin and replaced egui's scissor.
#[test]
fn egui_clip_cuts_sprites() {
    let test = "egui_clip_cuts_sprites";
    let Some(mut host) = open(test, [400, 240], 1.0, 1) else { return };
    let white = white(&mut host);
    let size = egui::vec2(320.0, 120.0);
    let squares = SCROLLED;
    let (with, without, (canvas, egui_clip)) = with_and_without(&mut host, test, |ui, on| {
        panel(ui, |ui| {
            scrolled_canvas(ui, size, |ui| {
                framed_canvas_bare(ui, size, on.then(|| solid_sprites(white, &squares, Some(SCROLLED_CLIP))))
            })
        })
    });
    let (c, e) = (to_px(canvas, 1.0), to_px(egui_clip, 1.0));
    assert!(
        c[0] < e[0] && c[0] + c[2] > e[0] + e[2],
        "{test}: the canvas reaches past egui's clip on both sides: {c:?} {e:?}"
    );
    let [x, y, w, h] = SCROLLED_CLIP.map(|v| v as i32);
    let visible = layerbatch_testkit::egui::checks::intersect(e, [c[0] + x, c[1] + y, w, h]);
    let checked =
        check(test, &shot(&with), &shot(&without), &[Expected { origin: [c[0], c[1]], squares: &squares, visible }]);
    assert!(checked >= 15, "{test}: only {checked} points visible");
    println!("{test}: {}: {checked} points; ok", host.adapter);
}

fn framed_canvas_bare(ui: &mut egui::Ui, size: egui::Vec2, sprites: Option<Sprites>) -> egui::Rect {
    match sprites {
        Some(s) => sprite_canvas(ui, size, s).rect,
        None => ui.allocate_exact_size(size, egui::Sense::hover()).0,
    }
}

/// MSAA: with egui-wgpu's `msaa_samples` = 4 and the renderer built for 4 samples, the
/// sprites draw right; a renderer built for 1 sample is refused by wgpu in egui's pass.
#[test]
fn msaa_must_match_egui() {
    let test = "msaa_must_match_egui";
    let Some(mut host) = open(test, [400, 200], 1.0, 4) else { return };
    let white = white(&mut host);
    let size = egui::vec2(150.0, 100.0);
    let (with, without, r) = with_and_without(&mut host, test, |ui, on| {
        panel(ui, |ui| framed_canvas(ui, size, on.then(|| solid_sprites(white, &A, None))))
    });
    let r = to_px(r, 1.0);
    check(test, &shot(&with), &shot(&without), &[Expected { origin: [r[0], r[1]], squares: &A, visible: r }]);

    // The same pass with a renderer of 1 sample: a validation error.
    let single = SpriteRenderer::new(&host.device, FORMAT, 1).expect("renderer");
    host.renderer.callback_resources.insert(single);
    let white = sprites(&mut host).batcher().textures().white().unwrap();
    let result = host.frame(Submit::Yes, |ui| {
        panel(ui, |ui| framed_canvas(ui, size, Some(solid_sprites(white, &A, None))));
    });
    let err = result.expect_err("a 1-sample pipeline in a 4-sample pass");
    assert!(err.to_lowercase().contains("sample"), "{test}: unexpected error: {err}");
    println!("{test}: {}: mismatch refused: {}", host.adapter, err.lines().next().unwrap_or(""));
}

/// sRGB: egui-wgpu's target is `Rgba8Unorm` (gamma-space bytes, no encoding on write). A
/// `Format::Rgba8Unorm` texture comes out as its bytes, the same bytes egui writes for the
/// same `Color32`; a `Format::Rgba8UnormSrgb` texture is decoded to linear on sampling and
/// written as such: darker (128 comes out as 55).
#[test]
fn srgb_rule_on_egui_target() {
    let test = "srgb_rule_on_egui_target";
    let Some(mut host) = open(test, [200, 100], 1.0, 1) else { return };
    let grey = [128u8, 128, 128, 255];
    let batcher = sprites(&mut host).batcher();
    let unorm = batcher.textures().register(&TextureDesc::new(8, 8), &grey.repeat(64)).unwrap();
    let srgb = batcher
        .textures()
        .register(&TextureDesc::new(8, 8).with_format(Format::Rgba8UnormSrgb), &grey.repeat(64))
        .unwrap();
    let sprites = Sprites {
        quads: vec![Quad::rect(unorm, [10.0, 10.0], [30.0, 30.0]), Quad::rect(srgb, [50.0, 10.0], [30.0, 30.0])],
        clip_px: None,
    };
    let (image, rect) = frame(&mut host, test, Submit::Yes, |ui| {
        panel(ui, |ui| {
            let rect = framed_canvas(ui, egui::vec2(140.0, 50.0), Some(sprites.clone()));
            // egui's own 128 grey, beside the canvas.
            ui.painter().rect_filled(
                egui::Rect::from_min_size(rect.right_top() + egui::vec2(12.0, 0.0), egui::vec2(20.0, 20.0)),
                0.0,
                egui::Color32::from_gray(128),
            );
            rect
        })
    });
    let r = to_px(rect, 1.0);
    let (unorm_px, srgb_px, egui_px) = (
        image.px(r[0] as u32 + 25, r[1] as u32 + 25),
        image.px(r[0] as u32 + 65, r[1] as u32 + 25),
        image.px((r[0] + r[2]) as u32 + 22, r[1] as u32 + 10),
    );
    assert!(close(egui_px, grey), "{test}: egui's grey is {egui_px:?}");
    assert!(close(unorm_px, grey), "{test}: the Rgba8Unorm texture is {unorm_px:?}, egui's same colour {egui_px:?}");
    assert!(close(srgb_px, [55, 55, 55, 255]), "{test}: the Rgba8UnormSrgb texture is {srgb_px:?}");
    println!("{test}: {}: Rgba8Unorm {unorm_px:?}, Rgba8UnormSrgb {srgb_px:?}, egui {egui_px:?}", host.adapter);
}
