//! A device left at WebGPU's default `maxTextureArrayLayers` (256, the limit three.js #33072
//! hit; wgpu's downlevel WebGL2 limits, which every device of these tests is opened with, have
//! the same 256) still draws 1,000 textures of one size right: core spreads them over more
//! arrays (counted), and every quad shows its own texture, exactly, in one draw, on GL 3.3,
//! GLES 3.0, wgpu on Vulkan and wgpu on GL.
//!
//! Under `CI=true` a device that cannot be had fails the test; outside CI it prints `skipped:`.

use headless::DeviceKind;
use layerbatch::{Batcher, Config, Quad, TextureDesc};
use layerbatch_testkit::headless;

const TEXTURES: u32 = 1000;
/// Quads a row, and the side of each, pixels.
const ROW: u32 = 40;
const CELL: u32 = 6;
const SIZE: [u32; 2] = [ROW * CELL, TEXTURES / ROW * CELL];

/// Texture `i`'s one colour: neighbours differ in every channel.
fn color(i: u32) -> [u8; 4] {
    [(i * 53 % 251) as u8, (i * 97 % 241) as u8 + 10, if i.is_multiple_of(2) { 30 } else { 220 }, 255]
}

fn thousand_textures_at_256_layers(kind: DeviceKind, test: &str) {
    let Some(mut dev) = headless::open_for_test(kind, SIZE, test) else { return };
    let limits = match kind {
        // Opened with wgpu's downlevel limits: 256 layers, as WebGPU's default.
        DeviceKind::WgpuVulkan | DeviceKind::WgpuGl => dev.limits(),
        // GL reports its own (2048 on llvmpipe): held to 256, as such a device would say.
        _ => dev.limits().with_max_array_layers(256),
    };
    assert_eq!(limits.max_array_layers, 256, "{test}: 256 layers an array");
    // Nothing packed into pages: every texture is a layer of a class array.
    let mut b = Batcher::new(limits, Config::default().with_max_packed_size_px(4)).expect("budget");
    dev.init(b.budget()).expect("renderer");
    let desc = TextureDesc::new(8, 8);
    let ids: Vec<_> =
        (0..TEXTURES).map(|i| b.textures().register(&desc, &color(i).repeat(64)).expect("a texture")).collect();
    let arrays: std::collections::BTreeSet<_> = ids.iter().map(|id| b.placement(*id).unwrap().array).collect();
    assert!(arrays.len() >= 4, "{test}: 1,000 layers over {} arrays of at most 256", arrays.len());
    b.begin_frame();
    for (i, id) in ids.iter().enumerate() {
        let i = i as u32;
        let at = [(i % ROW * CELL) as f32, (i / ROW * CELL) as f32];
        b.push(&Quad::rect(*id, at, [CELL as f32; 2])).unwrap();
    }
    let plan = b.finish().clone();
    assert_eq!(plan.totals.arrays_created as usize, arrays.len(), "{test}: arrays counted");
    dev.draw(&plan).unwrap_or_else(|e| panic!("{test}: {e}"));
    assert_eq!(dev.stats().device_frame.draw_calls, 1, "{test}: one draw over {} arrays", arrays.len());
    let px = dev.read();
    for i in 0..TEXTURES {
        let (x0, y0) = (i % ROW * CELL, i / ROW * CELL);
        for y in y0..y0 + CELL {
            for x in x0..x0 + CELL {
                let at = ((y * SIZE[0] + x) * 4) as usize;
                assert_eq!(&px[at..at + 4], color(i), "{test}: {kind:?}: texture {i} at ({x}, {y})");
            }
        }
    }
}

#[test]
fn gl33_thousand_textures_at_256_layers() {
    thousand_textures_at_256_layers(DeviceKind::Gl, "gl33_thousand_textures_at_256_layers");
}

#[test]
fn gles30_thousand_textures_at_256_layers() {
    thousand_textures_at_256_layers(DeviceKind::Gles, "gles30_thousand_textures_at_256_layers");
}

#[test]
fn wgpu_vulkan_thousand_textures_at_256_layers() {
    thousand_textures_at_256_layers(DeviceKind::WgpuVulkan, "wgpu_vulkan_thousand_textures_at_256_layers");
}

#[test]
fn wgpu_gl_thousand_textures_at_256_layers() {
    thousand_textures_at_256_layers(DeviceKind::WgpuGl, "wgpu_gl_thousand_textures_at_256_layers");
}
