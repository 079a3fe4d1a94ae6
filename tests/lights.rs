//! The looks scene ([`layerbatch_testkit::looks`]) on GL 3.3, GLES 3.0, wgpu on Vulkan and
//! wgpu on GL against its CPU reference: 96 y-sorted sprites over 64 textures, half
//! normal-mapped, some cut out, turned and flipped, lit and unlit, solid shapes, two text
//! labels (one lit, one flashed), 8 effects (the 5 built-ins, palette swap by a ramp among
//! them, and 3 of the host's), under 9 lights with a cap of 8 (the lowest priority
//! dropped and counted), then 1 and 8: one draw, nothing compiled after creation. GL and wgpu
//! within 2 of each other.
//!
//! Tolerance: [`looks::TOLERANCE`] (3) per channel against the reference (lighting adds a
//! square root, a division and a `pow` per light in floats before the one rounding to 8 bits;
//! the reference computes the same in `f32`), 2 between GL 3.3 and wgpu on Vulkan.
//!
//! Under `CI=true` a device that cannot be had fails the test; outside CI it prints `skipped:`.

use fonts::Font;
use headless::DeviceKind;
use layerbatch::Batcher;
use layerbatch_testkit::looks::TextLayer;
use layerbatch_testkit::looks_text::LooksText;
use layerbatch_testkit::{fonts, headless, looks};

/// The scene drawn with `n` lights: the picture, the target before it, and its labels as the
/// reference composites them.
type Drawn = (Vec<u8>, Vec<u8>, Vec<TextLayer>);

/// Draws the scene with `n` lights, its two labels included.
fn draw_scene(kind: DeviceKind, test: &str, n: usize) -> Option<Drawn> {
    let mut text = LooksText::new(fonts::require(fonts::system(&[Font::Latin]), test)?);
    let mut dev = headless::open_for_test(kind, looks::SIZE, test)?;
    let mut b = Batcher::new(dev.limits(), looks::config()).expect("budget");
    dev.init(b.budget()).unwrap_or_else(|e| panic!("{test}: {e}"));
    let compiles = dev.stats().device_total.pipeline_compiles;
    let (ids, white) = looks::register(&mut b).unwrap_or_else(|e| panic!("{test}: {e}"));
    b.begin_frame();
    dev.draw(b.finish()).unwrap_or_else(|e| panic!("{test}: {e}"));
    let clear = dev.read();
    looks::record(&mut b, &ids, white, n).unwrap_or_else(|e| panic!("{test}: {e}"));
    let glyphs = text.record(&mut b).unwrap_or_else(|e| panic!("{test}: {e}"));
    assert!(glyphs >= 14, "{test}: {glyphs} glyph quads");
    let budget = b.budget().clone();
    let plan = b.finish();
    // The slot tier is the smallest that covers the arrays the frame samples.
    let seg = &plan.segments[0];
    let used = plan.slots(seg).iter().filter(|a| a.is_some()).count() as u32;
    assert_eq!(seg.tier, budget.tier_for(used), "{test}: {used} arrays sampled");
    eprintln!("{test}: {n} lights: tier {} ({used} arrays sampled)", seg.tier);
    assert!(seg.effects, "{test}: the effect program");
    assert_eq!((plan.counters.lights, plan.counters.lights_dropped), (n.min(8) as u64, n.saturating_sub(8) as u64));
    dev.draw(plan).unwrap_or_else(|e| panic!("{test}: {e}"));
    let frame = dev.stats().device_frame;
    assert_eq!(frame.draw_calls, 1, "{test}: 64 textures, text, lit and unlit, 8 effects, sorted: one draw");
    assert_eq!(dev.stats().device_total.pipeline_compiles, compiles, "{test}: nothing compiled after creation");
    Some((dev.read(), clear, text.layers()))
}

fn lights_match_the_reference(kind: DeviceKind, test: &str) {
    for n in [9, 1, 8] {
        let Some((drawn, clear, labels)) = draw_scene(kind, test, n) else { return };
        // With 9 lights the cap keeps 8: the reference draws with those.
        let want = looks::reference_with_text(&looks::lights(n.min(8)), &clear, &labels);
        let tol = looks::TOLERANCE;
        let (differing, worst) = headless::compare(&drawn, &want, looks::SIZE[0], tol, "drawn", "reference");
        assert_eq!(differing, 0, "{test}, {n} lights: {differing} pixels differ by more than {tol} (worst {worst})");
    }
}

#[test]
fn gl33_lights_match_the_reference() {
    lights_match_the_reference(DeviceKind::Gl, "gl33_lights_match_the_reference");
}

#[test]
fn gles30_lights_match_the_reference() {
    lights_match_the_reference(DeviceKind::Gles, "gles30_lights_match_the_reference");
}

#[test]
fn wgpu_vulkan_lights_match_the_reference() {
    lights_match_the_reference(DeviceKind::WgpuVulkan, "wgpu_vulkan_lights_match_the_reference");
}

#[test]
fn wgpu_gl_lights_match_the_reference() {
    lights_match_the_reference(DeviceKind::WgpuGl, "wgpu_gl_lights_match_the_reference");
}

#[test]
fn gl_and_wgpu_light_within_two() {
    let test = "gl_and_wgpu_light_within_two";
    let Some((gl, ..)) = draw_scene(DeviceKind::Gl, test, 8) else { return };
    let Some((wgpu, ..)) = draw_scene(DeviceKind::WgpuVulkan, test, 8) else { return };
    let (differing, worst) = headless::compare(&gl, &wgpu, looks::SIZE[0], 2, "gl", "wgpu");
    assert_eq!(differing, 0, "{test}: {differing} pixels differ by more than 2 (worst {worst})");
}
