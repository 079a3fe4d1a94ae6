//! The copyable hello examples, drawn: each example file is a module of the test kit
//! (`layerbatch_testkit::examples`), and its `Sprites` (what the example's window draws) draws
//! into an offscreen target on GL 3.3 core (EGL, llvmpipe) and on wgpu (lavapipe). The pixels
//! are the spec's: three 96-pixel sprites of a nearest 2x2 checker of white and grey (120), each
//! tinted (`Quad::with_color`: texel x tint / 255), on black.
//!
//! Under `CI=true` a device that cannot be had fails the test; outside CI it prints `skipped:`.

use layerbatch_testkit::examples::{hello_gl, hello_wgpu};
use layerbatch_testkit::{ci, egl, gpu, hello};

const SIZE: [u32; 2] = [420, 180];
const TINTS: [[u8; 3]; 3] = [[255, 80, 80], [80, 255, 80], [80, 80, 255]];

/// What the examples promise at pixel (x, y): each sprite's 48-pixel texels, tinted.
fn expected(x: u32, y: u32) -> [u8; 4] {
    for (i, tint) in TINTS.iter().enumerate() {
        let left = 40 + 120 * i as u32;
        if (left..left + 96).contains(&x) && (40..136).contains(&y) {
            let white = ((x - left) / 48 + (y - 40) / 48).is_multiple_of(2);
            let texel = if white { 255 } else { 120 };
            let c = |t: u8| ((texel as f64 * t as f64 / 255.0).round()) as u8;
            return [c(tint[0]), c(tint[1]), c(tint[2]), 255];
        }
    }
    [0, 0, 0, 255]
}

/// Every pixel within 1 of [`expected`] (8-bit rounding of the tint product).
fn check(name: &str, pixels: &[u8]) {
    assert_eq!(pixels.len(), (SIZE[0] * SIZE[1] * 4) as usize);
    let mut wrong = 0;
    for (i, p) in pixels.chunks_exact(4).enumerate() {
        let (x, y) = (i as u32 % SIZE[0], i as u32 / SIZE[0]);
        let want = expected(x, y);
        if p.iter().zip(want).any(|(a, b)| a.abs_diff(b) > 1) {
            if wrong < 5 {
                eprintln!("{name}: ({x}, {y}) is {p:?}, want {want:?}");
            }
            wrong += 1;
        }
    }
    assert_eq!(wrong, 0, "{name}: {wrong} pixels differ from the spec");
}

#[test]
fn hello_gl_draws_three_tinted_checkers() {
    const TEST: &str = "hello_gl_draws_three_tinted_checkers";
    let egl = match egl::surfaceless(false) {
        Ok(egl) => egl,
        Err(e) => return ci::skip(TEST, &e),
    };
    let gl = std::sync::Arc::new(egl.gl);
    let target = egl::Framebuffer::new(&gl, SIZE).expect("framebuffer");
    let mut sprites = hello_gl::Sprites::new(gl.clone()).expect("the example's setup");
    // The host binds its framebuffer (the window's, in the example) before each frame.
    for _ in 0..2 {
        target.bind(&gl);
        sprites.frame(SIZE).expect("the example's frame");
    }
    check(TEST, &target.read(&gl));
    sprites.renderer.destroy();
    target.delete(&gl);
}

#[test]
fn hello_wgpu_draws_three_tinted_checkers() {
    const TEST: &str = "hello_wgpu_draws_three_tinted_checkers";
    let (device, queue) = match hello::wgpu_headless() {
        Ok(dq) => dq,
        Err(e) => return ci::skip(TEST, &e.to_string()),
    };
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let target = gpu::target(&device, SIZE, format);
    let mut sprites = hello_wgpu::Sprites::new(&device, &queue, format).expect("the example's setup");
    for _ in 0..2 {
        sprites.frame(&target.create_view(&Default::default()), SIZE).expect("the example's frame");
    }
    check(TEST, &gpu::read_texture(&device, &queue, &target));
}
