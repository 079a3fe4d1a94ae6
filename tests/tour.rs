//! The tour examples, run: each example file is a module of the test kit
//! (`layerbatch_testkit::examples`) and its offscreen path
//! (`render_offscreen`, what `--out` and a machine with no display run) renders its scene on
//! GL 3.3 core / GLES 3.0 (EGL, llvmpipe) and on wgpu (lavapipe). The pixels must show what
//! the example promises: the sprites, the additive sparks where the camera looks, the UI panel's
//! colour inside its clip and nowhere outside it, the minimap's render target where it is
//! shown; the PNG it writes must decode to the same pixels; GL and wgpu must agree.
//!
//! Under `CI=true` a device that cannot be had fails the test; outside CI it prints `skipped:`.

use std::error::Error;

use layerbatch_testkit::examples::{tour_gl, tour_wgpu};
use layerbatch_testkit::hello::{self, BACKGROUND, MINIMAP, MINIMAP_CLEAR, PANEL, PANEL_COLOR, SIZE};

/// Frames rendered: the last is at t = 0.5 s (the panel's list scrolled up, the sparks out).
const FRAMES: u32 = 31;
/// The sprite PNG's body colour.
const ORANGE: [u8; 4] = [250, 150, 30, 255];

/// The frame, or `None` (after `skipped:`) when there is no device outside CI.
fn rendered(test: &str, result: Result<Vec<u8>, Box<dyn Error>>, no_device: bool) -> Option<Vec<u8>> {
    match result {
        Ok(px) => Some(px),
        Err(e) if no_device => {
            layerbatch_testkit::ci::skip(test, &e.to_string());
            None
        }
        Err(e) => panic!("{test}: {e}"),
    }
}

fn px(img: &[u8], x: u32, y: u32) -> [u8; 4] {
    let i = ((y * SIZE[0] + x) * 4) as usize;
    [img[i], img[i + 1], img[i + 2], img[i + 3]]
}

fn near(a: [u8; 4], b: [u8; 4], tol: u8) -> bool {
    a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= tol)
}

fn inside([x, y]: [u32; 2], [rx, ry, rw, rh]: [u32; 4]) -> bool {
    (rx..rx + rw).contains(&x) && (ry..ry + rh).contains(&y)
}

/// Pixels where `keep(x, y, rgba)` holds.
fn count(img: &[u8], keep: impl Fn(u32, u32, [u8; 4]) -> bool) -> usize {
    (0..SIZE[1]).flat_map(|y| (0..SIZE[0]).map(move |x| (x, y))).filter(|&(x, y)| keep(x, y, px(img, x, y))).count()
}

/// Checks one backend's frame.
fn check_scene(name: &str, img: &[u8]) {
    assert_eq!(img.len(), (SIZE[0] * SIZE[1] * 4) as usize, "{name}: frame size");
    let area = |[_, _, w, h]: [u32; 4]| (w * h) as usize;

    // The panel: its colour fills the clip rectangle (but for the list's rows) and, although
    // the scrolled list's background reaches above and below it, shows nowhere else.
    let [x, y, _, h] = PANEL;
    for (at, what) in [((x + 3, y + 2), "top-left"), ((x + 3, y + h - 3), "bottom-left")] {
        let got = px(img, at.0, at.1);
        assert!(near(got, PANEL_COLOR, 2), "{name}: panel {what} {at:?} is {got:?}, want {PANEL_COLOR:?}");
    }
    for at in [(x + 3, y - 3), (x + 3, y + h + 2), (x + 3, y + h + 30)] {
        let got = px(img, at.0, at.1);
        assert!(!near(got, PANEL_COLOR, 8), "{name}: {at:?} outside the panel's clip is the panel's colour {got:?}");
    }
    let panel_in = count(img, |x, y, c| inside([x, y], PANEL) && near(c, PANEL_COLOR, 2));
    let panel_out = count(img, |x, y, c| !inside([x, y], PANEL) && near(c, PANEL_COLOR, 8));
    assert!(panel_in * 10 > area(PANEL) * 6, "{name}: the panel's colour covers {panel_in} pixels of its clip");
    assert_eq!(panel_out, 0, "{name}: pixels of the panel's colour outside its clip");

    // The minimap: its render target's clear colour where it is shown, with the world's
    // sprites drawn into it; that colour nowhere else.
    let clear = MINIMAP_CLEAR.map(|c| (c * 255.0).round() as u8);
    let map_clear = count(img, |x, y, c| inside([x, y], MINIMAP) && near(c, clear, 3));
    let map_drawn = count(img, |x, y, c| inside([x, y], MINIMAP) && !near(c, clear, 12));
    let clear_out = count(img, |x, y, c| !inside([x, y], MINIMAP) && near(c, clear, 3));
    assert!(map_clear * 10 > area(MINIMAP) * 5, "{name}: {map_clear} pixels of the minimap show its clear colour");
    assert!(map_drawn * 10 > area(MINIMAP), "{name}: only {map_drawn} pixels of the minimap show sprites");
    assert_eq!(clear_out, 0, "{name}: the minimap's clear colour outside the minimap");

    // The sprites: the PNG's orange under the camera (and in the panel's list).
    let orange = count(img, |_, _, c| near(c, ORANGE, 10));
    assert!(orange > 10_000, "{name}: only {orange} pixels of the sprite's orange");
    // The sparks, added where the camera looks (the screen's centre): cyan over the background.
    let [cx, cy] = SIZE.map(|v| v as i64 / 2);
    let near_centre = |x: u32, y: u32| (x as i64 - cx).pow(2) + (y as i64 - cy).pow(2) < 140 * 140;
    let sparks = count(img, |x, y, [r, g, b, _]| near_centre(x, y) && r < 120 && g > 100 && b > 150);
    assert!(sparks > 1000, "{name}: only {sparks} cyan spark pixels around the centre");
    // Added, not blended over: cyan onto an orange sprite comes out white (over it, cyan).
    let white = count(img, |x, y, c| near_centre(x, y) && c.iter().all(|&v| v > 235));
    assert!(white > 50, "{name}: only {white} white pixels where sparks cross sprites: not additive?");
    // The background shows somewhere, and everything is opaque.
    assert!(count(img, |_, _, c| c == BACKGROUND) > 1000, "{name}: no background");
    assert_eq!(count(img, |_, _, c| c[3] != 255), 0, "{name}: pixels that are not opaque");
}

type SavePng = fn(&std::path::Path, [u32; 2], &[u8]) -> Result<(), Box<dyn Error>>;

/// The examples' PNG writer: the file decodes to the frame.
fn check_png(name: &str, img: &[u8], save: SavePng) {
    let path = std::env::temp_dir().join(format!("layerbatch-{name}-{}.png", std::process::id()));
    save(&path, SIZE, img).unwrap_or_else(|e| panic!("{name}: {e}"));
    let decoded = image::open(&path).unwrap_or_else(|e| panic!("{name}: decoding {}: {e}", path.display()));
    let _ = std::fs::remove_file(&path);
    assert_eq!((decoded.width(), decoded.height()), (SIZE[0], SIZE[1]), "{name}: PNG size");
    assert!(decoded.to_rgba8().as_raw() == img, "{name}: the PNG's pixels differ from the frame's");
}

fn gl() -> Option<Vec<u8>> {
    let result = tour_gl::render_offscreen(FRAMES, SIZE);
    let no_device = result.as_ref().is_err_and(|e| e.is::<hello::NoDevice>());
    rendered("tour_gl", result, no_device)
}

fn wgpu() -> Option<Vec<u8>> {
    let result = tour_wgpu::render_offscreen(FRAMES, SIZE);
    let no_device = result.as_ref().is_err_and(|e| e.is::<hello::NoDevice>());
    rendered("tour_wgpu", result, no_device)
}

#[test]
fn tour_gl_offscreen_draws_the_scene_and_writes_a_png() {
    let _ =
        env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).is_test(true).try_init();
    let Some(img) = gl() else { return };
    check_scene("tour_gl", &img);
    check_png("tour_gl", &img, hello::save_png);
}

#[test]
fn tour_wgpu_offscreen_draws_the_scene_and_writes_a_png() {
    let _ =
        env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).is_test(true).try_init();
    let Some(img) = wgpu() else { return };
    check_scene("tour_wgpu", &img);
    check_png("tour_wgpu", &img, hello::save_png);
}

/// The two examples draw one scene (`layerbatch_testkit::hello::Scene`, with its constants):
/// their frames agree but for a few edge pixels of the turned, filtered sprites (none on
/// llvmpipe and lavapipe).
#[test]
fn tour_gl_and_tour_wgpu_agree() {
    let (Some(a), Some(b)) = (gl(), wgpu()) else { return };
    let differing = a.chunks_exact(4).zip(b.chunks_exact(4)).filter(|(p, q)| !near(to4(p), to4(q), 8)).count();
    assert!(differing * 1000 < (SIZE[0] * SIZE[1]) as usize, "{differing} pixels differ by more than 8");
}

fn to4(p: &[u8]) -> [u8; 4] {
    [p[0], p[1], p[2], p[3]]
}
