//! Surviving a lost GL context or wgpu device: a scene is drawn, the device is lost and
//! replaced, `Batcher::restore` is called, and the next frame reads back exactly (tolerance 0)
//! as the frame before the loss, with every `TextureId` unchanged. With CPU copies
//! (`Config::keep_pixels`) core re-uploads everything itself; without, the host re-uploads the
//! ids `restore` lists. A loss while a frame is being recorded loses nothing of that frame.
//!
//! Runs on GL 3.3 core and GLES 3.0 (llvmpipe) and wgpu on Vulkan (lavapipe). Under `CI=true`
//! a device that cannot be had fails the test; outside CI it prints `skipped:`.

use headless::{DeviceKind, Headless};
use layerbatch::{Batcher, Config, TextureDesc, TextureId, Usage};
use layerbatch_testkit::{headless, scene};
use scene::{texture_pixels, Scene, SceneOptions};

const SIZE: [u32; 2] = [160, 120];

fn open(kind: DeviceKind, test: &str) -> Option<Headless> {
    headless::open_for_test(kind, SIZE, test)
}

/// Re-sends the pixels of every listed scene texture.
fn reupload(batcher: &mut Batcher, scene: &Scene, listed: &[TextureId]) {
    for (i, &id) in scene.textures().iter().enumerate() {
        if listed.contains(&id) {
            let d = batcher.desc(id).unwrap();
            batcher.textures().update(id, &texture_pixels(i, d.width_px, d.height_px)).unwrap();
        }
    }
}

fn loss(kind: DeviceKind, keep_pixels: bool, test: &str) {
    let Some(mut dev) = open(kind, test) else { return };
    let config = Config::default().with_keep_pixels(keep_pixels);
    let mut batcher = Batcher::new(dev.limits(), config).expect("budget");
    dev.init(batcher.budget()).expect("renderer");
    let opts = SceneOptions { sprites: 300, textures: 24, viewport_px: SIZE, ..SceneOptions::default() };
    let mut scene = Scene::new(&mut batcher, opts).expect("textures fit");
    // A render target too: it comes back cleared, and restore never lists it.
    let rt = batcher.textures().register(&TextureDesc::new(32, 32).with_usage(Usage::RenderTarget), &[]).unwrap();
    let ids = scene.textures().to_vec();
    // Two frames, so the device holds state older than the last plan.
    for _ in 0..2 {
        let plan = scene.frame(&mut batcher, 0.0);
        dev.draw(plan).unwrap_or_else(|e| panic!("{test}: {e}"));
    }
    let before = dev.read();
    let lit = before.chunks_exact(4).filter(|p| p[..3] != [0, 0, 0]).count();
    assert!(lit > before.len() / 4 / 4, "{test}: only {lit} pixels drawn");

    // The device is lost between frames; the host makes a new one.
    dev.lose();
    let mut dev = open(kind, test).expect("a second device");
    dev.init(batcher.budget()).expect("renderer on the new device");
    let listed = batcher.restore();
    if keep_pixels {
        assert!(listed.is_empty(), "{test}: CPU copies on, yet {} ids listed", listed.len());
    } else {
        let mut want = ids.clone();
        want.sort();
        let mut got = listed.clone();
        got.sort();
        assert_eq!(got, want, "{test}: restore lists every scene texture and no render target");
    }
    reupload(&mut batcher, &scene, &listed);
    let plan = scene.frame(&mut batcher, 0.0);
    assert!(plan.rebuild, "{test}: the first plan after restore rebuilds");
    dev.draw(plan).unwrap_or_else(|e| panic!("{test}: after the loss: {e}"));
    assert!(dev.read() == before, "{test}: the frame after the loss differs from the one before");
    assert_eq!(scene.textures(), &ids[..], "{test}: ids unchanged");
    assert!(ids.iter().all(|&id| batcher.contains(id)) && batcher.contains(rt));

    // Lost again, this time while a frame is being recorded.
    batcher.begin_frame();
    scene.push(&mut batcher);
    dev.lose();
    let mut dev = open(kind, test).expect("a third device");
    dev.init(batcher.budget()).expect("renderer on the third device");
    let listed = batcher.restore();
    reupload(&mut batcher, &scene, &listed);
    let plan = batcher.finish();
    assert_eq!(plan.counters.quads, 300, "{test}: the frame being recorded kept its quads");
    dev.draw(plan).unwrap_or_else(|e| panic!("{test}: after the mid-frame loss: {e}"));
    assert!(dev.read() == before, "{test}: the frame recorded across the loss differs");
    println!("{test}: {}: identical frames after two losses", dev.adapter());
}

#[test]
fn gl_context_loss_with_cpu_copies() {
    loss(DeviceKind::Gl, true, "gl_context_loss_with_cpu_copies");
}

#[test]
fn gl_context_loss_host_reuploads() {
    loss(DeviceKind::Gl, false, "gl_context_loss_host_reuploads");
}

#[test]
fn gles_context_loss_with_cpu_copies() {
    loss(DeviceKind::Gles, true, "gles_context_loss_with_cpu_copies");
}

#[test]
fn gles_context_loss_host_reuploads() {
    loss(DeviceKind::Gles, false, "gles_context_loss_host_reuploads");
}

#[test]
fn wgpu_device_loss_with_cpu_copies() {
    loss(DeviceKind::WgpuVulkan, true, "wgpu_device_loss_with_cpu_copies");
}

#[test]
fn wgpu_device_loss_host_reuploads() {
    loss(DeviceKind::WgpuVulkan, false, "wgpu_device_loss_host_reuploads");
}
