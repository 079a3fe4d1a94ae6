//! Mip level choice above tier 1: tier 1 samples with implicit derivatives (the device picks
//! the level), higher tiers at a level the shader computes before the slot branch. The same
//! mipmapped texture drawn at scales from 2x down to 1/8x, once in a tier-1 frame and once in
//! a tier-2 frame, reads back the same within 4 per channel on GL 3.3, GLES 3.0, wgpu Vulkan
//! and wgpu GL: the shader uses GL's formula (log2 of the longer footprint axis), the device an
//! approximation of it, which moves a trilinear blend by a few 255ths at strong minification.
//!
//! Under `CI=true` a device that cannot be had fails the test; outside CI it prints `skipped:`.

use headless::DeviceKind;
use layerbatch::{Batcher, Config, Filter, Quad, TextureDesc};
use layerbatch_testkit::headless;

const SIZE: [u32; 2] = [320, 160];
const SCALES: [f32; 6] = [2.0, 1.0, 0.7, 0.5, 0.3, 0.125];

/// A 64x64 texture whose 7 levels are each a different flat colour (core generates levels
/// from level 0 by a box filter, so the levels are given as one image per level instead:
/// a checker of two colours per level whose average differs level to level).
fn checker(side: u32) -> Vec<u8> {
    (0..side * side)
        .flat_map(|i| {
            let (x, y) = (i % side, i / side);
            if (x / 2 + y / 2) % 2 == 0 {
                [250, 40, 40, 255]
            } else {
                [40, 40, 250, 255]
            }
        })
        .collect()
}

fn frame(kind: DeviceKind, tier2: bool) -> Option<Vec<u8>> {
    let mut dev = headless::open_for_test(kind, SIZE, "mip_level_choice_above_tier_1")?;
    let mut b = Batcher::new(dev.limits(), Config::default().with_max_packed_size_px(0)).expect("budget");
    dev.init(b.budget()).expect("renderer");
    let desc = TextureDesc::new(64, 64).with_filter(Filter::Linear).with_mip_levels(7);
    let tex = b.textures().register(&desc, &checker(64)).unwrap();
    // Another class: with it in the frame the segment is tier 2.
    let other = b.textures().register(&TextureDesc::new(16, 16), &[90; 16 * 16 * 4]).unwrap();
    b.begin_frame();
    let mut x = 4.0;
    for s in SCALES {
        let side = 64.0 * s;
        b.push(&Quad::rect(tex, [x, 4.0], [side, side])).unwrap();
        x += side + 4.0;
    }
    if tier2 {
        b.push(&Quad::rect(other, [300.0, 140.0], [16.0, 16.0])).unwrap();
    }
    let plan = b.finish();
    assert_eq!(plan.segments.len(), 1);
    assert_eq!(plan.segments[0].tier, if tier2 { 2 } else { 1 }, "{kind:?}");
    dev.draw(plan).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
    let mut img = dev.read();
    // The tier-2 marker quad is not part of the comparison.
    for y in 140..156 {
        for x in 300..316 {
            let i = ((y * SIZE[0] + x) * 4) as usize;
            img[i..i + 4].copy_from_slice(&[0, 0, 0, 255]);
        }
    }
    Some(img)
}

#[test]
fn mip_level_choice_above_tier_1() {
    for kind in [DeviceKind::Gl, DeviceKind::Gles, DeviceKind::WgpuVulkan, DeviceKind::WgpuGl] {
        let (Some(one), Some(two)) = (frame(kind, false), frame(kind, true)) else { continue };
        let (differing, worst) = headless::compare(&one, &two, SIZE[0], 4, "tier 1", "tier 2");
        eprintln!("{kind:?}: tier 1 against tier 2: worst difference {worst}");
        assert_eq!(differing, 0, "{kind:?}: tier 2's level choice differs from the device's (worst {worst})");
    }
}

/// The mip levels of a render target are the box filter of the level above, on every side
/// length: a 3x3 target of a red, a green and a blue column has one texel at level 1, their
/// average (85, 85, 85); one bilinear sample per texel (wgpu, before) kept only the middle
/// column's green. Drawn at 1/3 scale, nearest between levels, the target shows level 1.
#[test]
fn render_target_mips_average_every_texel_of_odd_sides() {
    use layerbatch::Usage;
    for kind in [DeviceKind::Gl, DeviceKind::Gles, DeviceKind::WgpuVulkan, DeviceKind::WgpuGl] {
        let Some(mut dev) = headless::open_for_test(kind, SIZE, "render_target_mips_average_every_texel") else {
            continue;
        };
        let mut b = Batcher::new(dev.limits(), Config::default()).expect("budget");
        dev.init(b.budget()).expect("renderer");
        let desc =
            TextureDesc::new(3, 3).with_usage(Usage::RenderTarget).with_filter(Filter::Nearest).with_mip_levels(2);
        let target = b.textures().register(&desc, &[]).unwrap();
        let white = b.textures().white().unwrap();
        b.begin_frame_into(target, Some([0.0, 0.0, 0.0, 1.0])).unwrap();
        for (x, color) in [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255]].into_iter().enumerate() {
            b.push(&Quad::solid(white, [x as f32, 0.0], [1.0, 3.0], color)).unwrap();
        }
        dev.draw(b.finish()).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
        b.begin_frame();
        b.push(&Quad::rect(target, [10.0, 10.0], [1.0, 1.0])).unwrap();
        dev.draw(b.finish()).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
        let img = dev.read();
        let i = ((10 * SIZE[0] + 10) * 4) as usize;
        let got = &img[i..i + 4];
        eprintln!("{kind:?}: level 1 of a red | green | blue 3x3 target: {got:?}");
        for (c, &v) in got[..3].iter().enumerate() {
            assert!(v.abs_diff(85) <= 2, "{kind:?}: channel {c} of level 1 is {v}, not the average 85: {got:?}");
        }
    }
}
