//! Host textures through the slot ladder on every device (GL 3.3 and GLES 3.0 on llvmpipe,
//! wgpu on Vulkan (lavapipe) and on GL): textures the host owns and draws, more of them than
//! slots, drawn every frame against a CPU reference with tolerance 0 (nearest sampling at 1:1).
//! wgpu on Vulkan views them: 0 bytes copied, ever, and a change shows the frame it is drawn.
//! GL and wgpu's GL backend copy them on the GPU: each change copied once, counted. A host
//! texture taken back while drawn is a clear error, and `restore` recovers.
//!
//! Under `CI=true` a device that cannot be had fails the test; outside CI it prints `skipped:`.

use layerbatch::{Batcher, Config, PlanError, Quad, TextureDesc, TextureId, Usage};
use layerbatch_testkit::headless::{self, DeviceKind, DrawError, Headless};
use layerbatch_testkit::host_textures::{HostRows, HostTexture};

use layerbatch_testkit::host_scene::{self as scene, bottom_first, pattern, push_frame, reference, COUNT, SIDE, SIZE};

fn check(dev: &mut Headless, versions: &[u8], what: &str) {
    let got = dev.read();
    let (bad, worst) = headless::compare(&got, &reference(versions), SIZE[0], 0, what, "the CPU reference");
    assert_eq!((bad, worst), (0, 0), "{what}: {bad} pixels differ, by up to {worst}");
}

fn host_textures_on(kind: DeviceKind) {
    let Some(mut dev) = headless::open_for_test(kind, SIZE, "host_textures") else { return };
    let mut b = Batcher::new(dev.limits(), scene::config()).expect("budget");
    dev.init(b.budget()).expect("renderer");
    let views = b.budget().host_texture_views;
    assert_eq!(
        views,
        kind == DeviceKind::WgpuVulkan,
        "{kind:?}: views only where wgpu can view a 2D texture as an array"
    );
    let ids: Vec<TextureId> = (0..COUNT).map(|_| b.textures().register(&scene::desc(), &[]).unwrap()).collect();
    // The GL hosts hold texture 3 bottom first, as a GL render target is.
    let gl = matches!(kind, DeviceKind::Gl | DeviceKind::Gles);
    let rows = |k: usize| if gl && k == 3 { HostRows::BottomFirst } else { HostRows::TopFirst };
    let as_held = |k: usize, px: Vec<u8>| if rows(k) == HostRows::BottomFirst { bottom_first(&px) } else { px };
    let mut versions = vec![0u8; COUNT];
    let mut host: Vec<HostTexture> = (0..COUNT)
        .map(|k| dev.make_host_texture(ids[k], [SIDE, SIDE], false, &as_held(k, pattern(k, 0)), rows(k)).unwrap())
        .collect();
    let bytes = u64::from(SIDE * SIDE * 4);

    // Frame 1: every host texture's array made (and, copying, filled).
    push_frame(&mut b, &ids).unwrap();
    let plan = b.finish();
    assert!(plan.counters.slot_evictions > 0 && plan.counters.draw_calls > 1, "{kind:?}: {:?}", plan.counters);
    dev.draw(plan).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
    check(&mut dev, &versions, &format!("{kind:?} frame 1"));
    let d = dev.stats().device_frame;
    let (copies, copy_bytes) = if views { (0, 0) } else { (COUNT as u64, COUNT as u64 * bytes) };
    assert_eq!(
        (d.host_views, d.host_copies, d.host_copy_bytes),
        (COUNT as u64 * u64::from(views), copies, copy_bytes),
        "{kind:?} frame 1"
    );
    assert_eq!(d.texture_bytes_written, 0, "{kind:?}: no host pixel goes through the CPU");

    // Frame 2: the host draws into three of them; the frame shows it.
    for k in [1, 3, 8] {
        versions[k] = 1;
        let px = as_held(k, pattern(k, 1));
        dev.write_host_texture(&host[k], [SIDE, SIDE], &px);
        b.textures().host_changed(ids[k]).unwrap();
    }
    push_frame(&mut b, &ids).unwrap();
    dev.draw(b.finish()).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
    check(&mut dev, &versions, &format!("{kind:?} frame 2, three changed"));
    let d = dev.stats().device_frame;
    let (copies, copy_bytes) = if views { (0, 0) } else { (3, 3 * bytes) };
    assert_eq!((d.host_views, d.host_copies, d.host_copy_bytes), (0, copies, copy_bytes), "{kind:?} frame 2");

    // Frame 3: nothing changed, nothing copied.
    push_frame(&mut b, &ids).unwrap();
    dev.draw(b.finish()).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
    check(&mut dev, &versions, &format!("{kind:?} frame 3"));
    let d = dev.stats().device_frame;
    assert_eq!((d.host_views, d.host_copies, d.host_copy_bytes), (0, 0, 0), "{kind:?} frame 3");

    // The host destroys texture 5 while the batcher still draws it, and says it changed: a
    // clear error naming it, no validation panic. `restore`, a new texture, and all is drawn.
    let five = host.remove(5);
    dev.destroy_host_texture(ids[5], five);
    b.textures().host_changed(ids[5]).unwrap();
    push_frame(&mut b, &ids).unwrap();
    match dev.draw(b.finish()) {
        Err(DrawError::Plan(PlanError::HostTexture { texture, .. })) => assert_eq!(texture, ids[5], "{kind:?}"),
        other => panic!("{kind:?}: a destroyed host texture drew: {other:?}"),
    }
    assert!(b.restore().is_empty(), "{kind:?}: host textures are never listed for re-upload");
    versions[5] = 2;
    host.insert(5, dev.make_host_texture(ids[5], [SIDE, SIDE], false, &as_held(5, pattern(5, 2)), rows(5)).unwrap());
    push_frame(&mut b, &ids).unwrap();
    dev.draw(b.finish()).unwrap_or_else(|e| panic!("{kind:?} after restore: {e}"));
    check(&mut dev, &versions, &format!("{kind:?} after restore"));
    let d = dev.stats().device_frame;
    let (copies, copy_bytes) = if views { (0, 0) } else { (COUNT as u64, COUNT as u64 * bytes) };
    assert_eq!((d.host_copies, d.host_copy_bytes), (copies, copy_bytes), "{kind:?} after restore");
}

#[test]
fn host_textures_through_the_ladder_gl() {
    host_textures_on(DeviceKind::Gl);
}

#[test]
fn host_textures_through_the_ladder_gles() {
    host_textures_on(DeviceKind::Gles);
}

#[test]
fn host_textures_through_the_ladder_wgpu_vulkan() {
    host_textures_on(DeviceKind::WgpuVulkan);
}

#[test]
fn host_textures_through_the_ladder_wgpu_gl() {
    host_textures_on(DeviceKind::WgpuGl);
}

/// The sRGB decode a device applies when it samples an `Rgba8UnormSrgb` texel into a linear
/// target: the spec's curve, rounded to 8 bits.
fn srgb_to_linear_byte(v: u8) -> u8 {
    let c = f64::from(v) / 255.0;
    let l = if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) };
    (l * 255.0).round() as u8
}

/// A host texture resized between frames (the host makes one of the new size and hands it
/// over), and an sRGB host texture (sampled as sRGB, decoded to linear: the spec's curve
/// within 1), on every device: each drawn 1:1 where it should be.
fn resized_and_srgb_on(kind: DeviceKind) {
    let Some(mut dev) = headless::open_for_test(kind, SIZE, "host_textures resized and srgb") else { return };
    let mut b = Batcher::new(dev.limits(), Config::default()).expect("budget");
    dev.init(b.budget()).expect("renderer");
    let nearest = |w, h| TextureDesc::new(w, h).with_filter(layerbatch::Filter::Nearest).with_usage(Usage::Host);
    let solid = |w: u32, h: u32, c: [u8; 4]| c.repeat((w * h) as usize);
    let (a, srgb_px) = ([200, 40, 90, 255], [30, 128, 220, 255]);
    let moving = b.textures().register(&nearest(8, 8), &[]).unwrap();
    let srgb_desc = nearest(16, 16).with_format(layerbatch::Format::Rgba8UnormSrgb);
    let srgb = b.textures().register(&srgb_desc, &[]).unwrap();
    let first = dev.make_host_texture(moving, [8, 8], false, &solid(8, 8, a), HostRows::TopFirst).unwrap();
    let _srgb_host = dev.make_host_texture(srgb, [16, 16], true, &solid(16, 16, srgb_px), HostRows::TopFirst).unwrap();
    let px = |img: &[u8], x: u32, y: u32| {
        let i = ((y * SIZE[0] + x) * 4) as usize;
        [img[i], img[i + 1], img[i + 2], img[i + 3]]
    };
    let draw = |b: &mut Batcher, dev: &mut Headless, size: [f32; 2]| {
        b.begin_frame();
        b.push(&Quad::rect(moving, [0.0, 0.0], size)).unwrap();
        b.push(&Quad::rect(srgb, [100.0, 0.0], [16.0, 16.0])).unwrap();
        dev.draw(b.finish()).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
        dev.read()
    };
    let img = draw(&mut b, &mut dev, [8.0, 8.0]);
    assert_eq!(px(&img, 7, 7), a, "{kind:?}: the 8x8 host texture");
    assert_eq!(px(&img, 8, 8), [0, 0, 0, 255], "{kind:?}: nothing past it");
    let want = [srgb_to_linear_byte(30), srgb_to_linear_byte(128), srgb_to_linear_byte(220), 255];
    let got = px(&img, 108, 8);
    assert!(got.iter().zip(want).all(|(g, w)| g.abs_diff(w) <= 1), "{kind:?}: sRGB host texel {got:?}, want {want:?}");

    // Resized between frames: the host's new texture, 24x12, of another colour.
    let c = [10, 250, 60, 255];
    b.textures().resize(moving, 24, 12, &[]).unwrap();
    dev.destroy_host_texture(moving, first);
    let _second = dev.make_host_texture(moving, [24, 12], false, &solid(24, 12, c), HostRows::TopFirst).unwrap();
    let img = draw(&mut b, &mut dev, [24.0, 12.0]);
    assert_eq!((px(&img, 0, 0), px(&img, 23, 11)), (c, c), "{kind:?}: the resized host texture");
    assert_eq!(px(&img, 24, 11), [0, 0, 0, 255], "{kind:?}: nothing past it");
}

#[test]
fn host_textures_resized_and_srgb_gl() {
    resized_and_srgb_on(DeviceKind::Gl);
}

#[test]
fn host_textures_resized_and_srgb_gles() {
    resized_and_srgb_on(DeviceKind::Gles);
}

#[test]
fn host_textures_resized_and_srgb_wgpu_vulkan() {
    resized_and_srgb_on(DeviceKind::WgpuVulkan);
}

#[test]
fn host_textures_resized_and_srgb_wgpu_gl() {
    resized_and_srgb_on(DeviceKind::WgpuGl);
}
