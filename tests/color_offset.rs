//! The colour offset (a per-quad "second tint", `DrawingState::set_color_offset`) on GL 3.3, GLES
//! 3.0, wgpu on Vulkan and wgpu on GL against its CPU reference
//! ([`layerbatch_testkit::color_offset`]): offsets alone, under a tint, after an effect, on
//! half-transparent and transparent quads, through `save_state` / `restore_state`, and tints
//! on the sRGB curve (`TintEncoding::Srgb`); one draw.
//!
//! Under `CI=true` a device that cannot be had fails the test; outside CI it prints `skipped:`.

use headless::DeviceKind;
use layerbatch::plan::Instance;
use layerbatch::Batcher;
use layerbatch_testkit::{color_offset as scene, headless};

fn offsets_match_the_reference(kind: DeviceKind, test: &str) {
    let Some(mut dev) = headless::open_for_test(kind, scene::SIZE, test) else { return };
    let mut b = Batcher::new(dev.limits(), scene::config()).expect("budget");
    dev.init(b.budget()).unwrap_or_else(|e| panic!("{test}: {e}"));
    let white = b.textures().white().expect("white texture");
    b.begin_frame();
    scene::record(&mut b, white).unwrap_or_else(|e| panic!("{test}: {e}"));
    let plan = b.finish();
    let offsets = plan.instances.iter().filter(|i| i.effect >> Instance::COLOR_OFFSET_SHIFT != 0).count();
    assert_eq!(offsets, 10, "{test}: quads with an offset");
    let srgb = plan.instances.iter().filter(|i| i.flags() & Instance::FLAG_SRGB_TINT != 0).count();
    assert_eq!(srgb, 3, "{test}: quads with an sRGB tint");
    dev.draw(plan).unwrap_or_else(|e| panic!("{test}: {e}"));
    assert_eq!(dev.stats().device_frame.draw_calls, 1, "{test}: one draw");
    let (differing, worst) =
        headless::compare(&dev.read(), &scene::reference(), scene::SIZE[0], scene::TOLERANCE, "drawn", "reference");
    assert_eq!(differing, 0, "{test}: {differing} pixels differ by more than {} (worst {worst})", scene::TOLERANCE);
    eprintln!("{test}: worst difference from the reference {worst}");
}

#[test]
fn gl33_color_offsets_match_the_reference() {
    offsets_match_the_reference(DeviceKind::Gl, "gl33_color_offsets_match_the_reference");
}

#[test]
fn gles30_color_offsets_match_the_reference() {
    offsets_match_the_reference(DeviceKind::Gles, "gles30_color_offsets_match_the_reference");
}

#[test]
fn wgpu_vulkan_color_offsets_match_the_reference() {
    offsets_match_the_reference(DeviceKind::WgpuVulkan, "wgpu_vulkan_color_offsets_match_the_reference");
}

#[test]
fn wgpu_gl_color_offsets_match_the_reference() {
    offsets_match_the_reference(DeviceKind::WgpuGl, "wgpu_gl_color_offsets_match_the_reference");
}
