//! A device left at WebGPU's default `maxTextureArrayLayers` (256, the limit three.js #33072
//! hit; wgpu's downlevel WebGL2 limits, which every device of these tests is opened with, have
//! the same 256) still draws 1,000 textures of one size right: core spreads them over more
//! arrays (counted), and every quad shows its own texture, exactly, in one draw, on GL 3.3,
//! GLES 3.0, wgpu on Vulkan and wgpu on GL.
//!
//! Under `CI=true` a device that cannot be had fails the test; outside CI it prints `skipped:`.

use headless::DeviceKind;
use layerbatch::Batcher;
use layerbatch_testkit::{array_layers, headless};

fn thousand_textures_at_256_layers(kind: DeviceKind, test: &str) {
    let Some(mut dev) = headless::open_for_test(kind, array_layers::SIZE, test) else { return };
    let limits = match kind {
        // Opened with wgpu's downlevel limits: 256 layers, as WebGPU's default.
        DeviceKind::WgpuVulkan | DeviceKind::WgpuGl => dev.limits(),
        // GL reports its own (2048 on llvmpipe): held to 256, as such a device would say.
        _ => dev.limits().with_max_array_layers(256),
    };
    assert_eq!(limits.max_array_layers, 256, "{test}: 256 layers an array");
    let mut b = Batcher::new(limits, array_layers::config()).expect("budget");
    dev.init(b.budget()).expect("renderer");
    let (plan, arrays) = array_layers::frame(&mut b).unwrap_or_else(|e| panic!("{test}: {e}"));
    dev.draw(&plan).unwrap_or_else(|e| panic!("{test}: {e}"));
    assert_eq!(dev.stats().device_frame.draw_calls, 1, "{test}: one draw over {arrays} arrays");
    if let Err(e) = array_layers::check(&dev.read()) {
        panic!("{test}: {kind:?}: {e}");
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
