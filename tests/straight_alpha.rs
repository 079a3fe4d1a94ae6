//! Straight-alpha textures (`Alpha::Straight`: PNG's convention, KTX2 files without
//! `KHR_DF_FLAG_ALPHA_PREMULTIPLIED`) are premultiplied in the shader after sampling, on every
//! backend: an RGBA8 and a BC3 texture of translucent colour, registered straight, draw the
//! same pixels as the same colour premultiplied on the CPU (within 1 per channel), on GL 3.3, GLES 3.0, wgpu Vulkan and wgpu GL; before, straight
//! colours were blended as if premultiplied and came out too bright.
//!
//! Under `CI=true` a device that cannot be had fails the test; outside CI it prints `skipped:`.

use layerbatch::{Alpha, Batcher, Config, Filter, Format, FormatFamily, Quad, TextureDesc};
use layerbatch_testkit::headless::{self, DeviceKind};

const SIZE: [u32; 2] = [64, 32];

/// A BC3 4x4 block of one colour and alpha: the alpha block with both endpoints `a` (every
/// index 0), the colour block with both endpoints `rgb565` (every index 0).
fn bc3_block(a: u8, rgb565: u16) -> [u8; 16] {
    let [lo, hi] = rgb565.to_le_bytes();
    [a, a, 0, 0, 0, 0, 0, 0, lo, hi, lo, hi, 0, 0, 0, 0]
}

#[test]
fn straight_alpha_textures_draw_as_their_premultiplied_colour() {
    for kind in [DeviceKind::Gl, DeviceKind::Gles, DeviceKind::WgpuVulkan, DeviceKind::WgpuGl] {
        let Some(mut dev) = headless::open_for_test(kind, SIZE, "straight_alpha") else { continue };
        let limits = dev.limits();
        let mut b = Batcher::new(limits, Config::default()).expect("budget");
        dev.init(b.budget()).expect("renderer");
        let nearest = |w, h| TextureDesc::new(w, h).with_filter(Filter::Nearest);
        // RGBA8: (240, 120, 40) at alpha 128, straight and premultiplied.
        let straight = [240u8, 120, 40, 128];
        let mul = |c: u8| ((u32::from(c) * 128 + 127) / 255) as u8;
        let premul = [mul(240), mul(120), mul(40), 128];
        let s = b.textures().register(&nearest(8, 8).with_alpha(Alpha::Straight), &straight.repeat(64)).unwrap();
        let p = b.textures().register(&nearest(8, 8), &premul.repeat(64)).unwrap();
        let mut quads = vec![Quad::rect(s, [0.0, 0.0], [8.0, 8.0]), Quad::rect(p, [0.0, 16.0], [8.0, 8.0])];
        // BC3, where the device has BC: one colour in 5:6:5, (31, 31, 5), which devices expand
        // by bit replication to (255, 125, 41), at alpha 128.
        let bc = limits.format_families.contains(FormatFamily::Bc);
        if bc {
            let bc3 = nearest(8, 8).with_format(Format::Bc3RgbaUnorm).with_alpha(Alpha::Straight);
            let rgb565 = (31u16 << 11) | (31 << 5) | 5;
            let s3 = b.textures().register(&bc3, &bc3_block(128, rgb565).repeat(4)).unwrap();
            quads.push(Quad::rect(s3, [32.0, 0.0], [8.0, 8.0]));
        }
        b.begin_frame();
        for q in &quads {
            b.push(q).unwrap();
        }
        dev.draw(b.finish()).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
        let img = dev.read();
        let px = |x: u32, y: u32| {
            let i = ((y * SIZE[0] + x) * 4) as usize;
            [img[i], img[i + 1], img[i + 2], img[i + 3]]
        };
        let near = |a: [u8; 4], b: [u8; 4], tol: u8| a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= tol);
        let (got, want) = (px(4, 4), px(4, 20));
        eprintln!("{kind:?}: RGBA8 straight {got:?}, premultiplied {want:?}");
        assert!(near(got, want, 1), "{kind:?}: RGBA8 straight {got:?} against premultiplied {want:?}");
        // Over the clear colour: the premultiplied colour is darker than the straight one.
        assert!(got[0] < 200, "{kind:?}: {got:?} looks like straight colour drawn as premultiplied");
        if bc {
            let got = px(36, 4);
            let want = [mul(255), mul(125), mul(41), 128];
            eprintln!("{kind:?}: BC3 straight {got:?}, expected {want:?}");
            assert!(near([got[0], got[1], got[2], 128], want, 1), "{kind:?}: BC3 straight {got:?} against {want:?}");
        }
    }
}
