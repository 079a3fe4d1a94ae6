//! Loading a game's whole asset set at startup, on real devices: layerbatch-gl (GL 3.3,
//! llvmpipe) and layerbatch-wgpu (Vulkan, lavapipe; and wgpu's GL backend for the case that
//! used to panic inside wgpu-core).
//!
//! - `real_like`: 759 generated images modelled on a real CC0 pack (core's `loading` test
//!   checks the same set on the mock), registered before the first plan: none refused, bytes
//!   within 1.3x the texels, at most 3 arrays under 1024 px, every image in one draw at tier
//!   <= 2, no GPU copy, and every texel of every image exact when drawn at scale 1.
//! - The same set with a plan every 32 registrations (what made wgpu-core panic with
//!   `ArrayVec: capacity exceeded`): no error, the same arrays and bytes as loading at once
//!   once settled, then one draw, pixels exact.
//! - The real pack itself (the PNGs inside Python Arcade 3.3.3's wheel, fetched by
//!   `scripts/fetch-assets.sh` into `target/assets/`): decoded, premultiplied, loaded and
//!   drawn the same way.
//!
//! Under `CI=true` a device (or the fetched pack) that cannot be had fails the test; outside
//! CI it prints `skipped:`.

use layerbatch_testkit::{asset_sets, headless};
use std::collections::BTreeSet;

use asset_sets::{real_like, texel_bytes, Asset};
use headless::{DeviceKind, Headless, CLEAR};
use layerbatch::{Batcher, Config, Quad, TextureDesc, TextureId};

/// The target the pixel frames are drawn into.
const SIZE: [u32; 2] = [1024, 1024];

/// An image to load: its description and premultiplied pixels.
struct Image {
    desc: TextureDesc,
    pixels: Vec<u8>,
}

fn generated(set: &[Asset]) -> Vec<Image> {
    set.iter().map(|a| Image { desc: a.desc, pixels: a.pixels() }).collect()
}

/// Registers every image (`per_plan`: a plan after every so many), drawing nothing; returns
/// the ids, or panics naming the first refusal.
fn load(
    dev: &mut Headless,
    batcher: &mut Batcher,
    images: &[Image],
    per_plan: Option<usize>,
    kind: DeviceKind,
) -> Vec<TextureId> {
    let mut ids = Vec::with_capacity(images.len());
    for (i, im) in images.iter().enumerate() {
        let id = batcher
            .textures()
            .register(&im.desc, &im.pixels)
            .unwrap_or_else(|e| panic!("{kind:?}: image {i} refused: {e}"));
        ids.push(id);
        if per_plan.is_some_and(|n| (i + 1) % n == 0) {
            batcher.begin_frame();
            dev.draw(batcher.finish()).unwrap_or_else(|e| panic!("{kind:?}: plan after image {i}: {e}"));
        }
    }
    ids
}

/// One frame drawing every image into a 16 px cell: returns (draws, largest tier).
fn draw_all_once(dev: &mut Headless, batcher: &mut Batcher, ids: &[TextureId], kind: DeviceKind) -> (u64, u32) {
    batcher.begin_frame();
    for (i, &id) in ids.iter().enumerate() {
        let (x, y) = ((i % 64) as f32 * 16.0, (i / 64) as f32 * 16.0);
        batcher.push(&Quad::rect(id, [x, y], [16.0, 16.0])).unwrap();
    }
    let plan = batcher.finish();
    let tier = plan.segments.iter().map(|s| s.tier).max().unwrap_or(0);
    dev.draw(plan).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
    (dev.stats().device_frame.draw_calls, tier)
}

/// A piece of an image drawn at scale 1: image, source rectangle, target position.
#[derive(Clone, Copy)]
struct Piece {
    image: usize,
    src: [u32; 4],
    at: [u32; 2],
}

/// Every texel of every image, drawn at scale 1 at integer positions, over as many frames as
/// it takes (images larger than the target in tiles, through UVs), compared with the
/// premultiplied pixels blended over the clear colour: exact for opaque texels, within 1
/// where the blend rounds.
fn check_every_texel(dev: &mut Headless, batcher: &mut Batcher, images: &[Image], ids: &[TextureId], kind: DeviceKind) {
    let mut pieces = Vec::new();
    for (i, im) in images.iter().enumerate() {
        let (w, h) = (im.desc.width_px, im.desc.height_px);
        for ty in (0..h).step_by(SIZE[1] as usize) {
            for tx in (0..w).step_by(SIZE[0] as usize) {
                pieces.push(Piece {
                    image: i,
                    src: [tx, ty, (w - tx).min(SIZE[0]), (h - ty).min(SIZE[1])],
                    at: [0, 0],
                });
            }
        }
    }
    // Tallest first, into shelves across frames.
    pieces.sort_by_key(|p| std::cmp::Reverse((p.src[3], p.src[2])));
    let mut frames: Vec<Vec<Piece>> = vec![Vec::new()];
    let (mut x, mut y, mut shelf) = (0, 0, 0);
    for mut p in pieces {
        let [_, _, w, h] = p.src;
        if x + w > SIZE[0] {
            (x, y) = (0, y + shelf);
            shelf = 0;
        }
        if y + h > SIZE[1] {
            frames.push(Vec::new());
            (x, y, shelf) = (0, 0, 0);
        }
        p.at = [x, y];
        x += w;
        shelf = shelf.max(h);
        frames.last_mut().expect("a frame").push(p);
    }
    let clear = CLEAR.map(|c| (c * 255.0).round());
    let (mut checked, mut worst) = (0u64, 0u8);
    for (f, frame) in frames.iter().enumerate() {
        batcher.begin_frame();
        for p in frame {
            let d = images[p.image].desc;
            let [sx, sy, w, h] = p.src;
            let (iw, ih) = (d.width_px as f32, d.height_px as f32);
            let uv = [sx as f32 / iw, sy as f32 / ih, (sx + w) as f32 / iw, (sy + h) as f32 / ih];
            let q = Quad::rect(ids[p.image], [p.at[0] as f32, p.at[1] as f32], [w as f32, h as f32]).with_uv(uv);
            batcher.push(&q).unwrap();
        }
        let plan = batcher.finish();
        assert_eq!(plan.segments.len(), 1, "{kind:?}: frame {f} in one draw");
        dev.draw(plan).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
        let px = dev.read();
        for p in frame {
            let im = &images[p.image];
            let [sx, sy, w, h] = p.src;
            for row in 0..h {
                for col in 0..w {
                    let s = (((sy + row) * im.desc.width_px + sx + col) * 4) as usize;
                    let t = (((p.at[1] + row) * SIZE[0] + p.at[0] + col) * 4) as usize;
                    let a = f32::from(im.pixels[s + 3]) / 255.0;
                    for c in 0..3 {
                        let want = (f32::from(im.pixels[s + c]) + clear[c] * (1.0 - a)).round().min(255.0) as u8;
                        let diff = want.abs_diff(px[t + c]);
                        worst = worst.max(diff);
                        let tolerance = if im.pixels[s + 3] == 255 { 0 } else { 1 };
                        assert!(
                            diff <= tolerance,
                            "{kind:?}: image {} ({}x{}) texel ({}, {}) channel {c}: {} drawn, {want} expected",
                            p.image,
                            im.desc.width_px,
                            im.desc.height_px,
                            sx + col,
                            sy + row,
                            px[t + c]
                        );
                    }
                    checked += 1;
                }
            }
        }
    }
    eprintln!("{kind:?}: {checked} texels checked in {} frames, worst difference {worst}", frames.len());
}

/// The arrays of textures under `px` a side.
fn arrays_under(batcher: &Batcher, ids: &[TextureId], px: u32) -> BTreeSet<u32> {
    ids.iter()
        .filter(|&&id| batcher.desc(id).is_ok_and(|d| d.width_px.max(d.height_px) < px))
        .map(|&id| batcher.placement(id).unwrap().array.0)
        .collect()
}

/// Loads `images` on `kind` before the first plan and checks everything the issue asks.
fn load_at_startup(kind: DeviceKind, images: &[Image], test: &str) {
    let Some(mut dev) = headless::open_for_test(kind, SIZE, test) else { return };
    let mut batcher = Batcher::new(dev.limits(), Config::default()).expect("budget");
    dev.init(batcher.budget()).expect("renderer");
    let ids = load(&mut dev, &mut batcher, images, None, kind);
    let (draws, tier) = draw_all_once(&mut dev, &mut batcher, &ids, kind);
    let texels: u64 = images.iter().map(|im| im.pixels.len() as u64).sum();
    let allocated = batcher.allocator().allocated_bytes();
    let under = arrays_under(&batcher, &ids, 1024);
    let copied = dev.stats().device_total.layers_copied;
    eprintln!(
        "{kind:?} ({}): {} images, {texels} texel bytes in {allocated} ({:.3}x), {} arrays ({} under 1024 px), \
         {draws} draw(s) at tier {tier}, {copied} layers copied",
        dev.adapter(),
        ids.len(),
        allocated as f64 / texels as f64,
        batcher.allocator().array_count(),
        under.len()
    );
    assert!(allocated * 10 <= texels * 13, "{kind:?}: {allocated} bytes for {texels}");
    assert!(under.len() <= 3, "{kind:?}: {under:?}");
    assert_eq!((draws, tier <= 2), (1, true), "{kind:?}: tier {tier}");
    assert_eq!(copied, 0, "{kind:?}: arrays born in the plan are never copied");
    check_every_texel(&mut dev, &mut batcher, images, &ids, kind);
}

#[test]
fn real_like_set_loads_at_startup_on_gl_and_vulkan() {
    let set = real_like();
    assert!(texel_bytes(&set) >= 100 << 20);
    let images = generated(&set);
    for kind in [DeviceKind::Gl, DeviceKind::WgpuVulkan] {
        load_at_startup(kind, &images, "real_like_set_loads_at_startup_on_gl_and_vulkan");
    }
}

/// A plan every 32 registrations: arrays on the device grow by GPU copies after staged
/// writes into several of their layers, in one encoder, which made wgpu-core 30 panic
/// (`ArrayVec: capacity exceeded` in `copy_texture_to_texture`). Every backend, both wgpu
/// backends included.
#[test]
fn real_like_set_with_a_plan_every_32_registrations() {
    const TEST: &str = "real_like_set_with_a_plan_every_32_registrations";
    let images = generated(&real_like());
    for kind in [DeviceKind::WgpuVulkan, DeviceKind::WgpuGl, DeviceKind::Gl] {
        let Some(mut dev) = headless::open_for_test(kind, SIZE, TEST) else { continue };
        let mut batcher = Batcher::new(dev.limits(), Config::default()).expect("budget");
        dev.init(batcher.budget()).expect("renderer");
        let ids = load(&mut dev, &mut batcher, &images, Some(32), kind);
        let copied = dev.stats().device_total.layers_copied;
        assert!(copied > 0, "{kind:?}: the arrays grew on the device ({copied} layers copied)");
        // Left alone, the arrays settle into what loading at once makes (core decides; the
        // same limits give the same arrays).
        for _ in 0..32 {
            batcher.begin_frame();
            dev.draw(batcher.finish()).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
        }
        let mut at_once = Batcher::new(dev.limits(), Config::default()).expect("budget");
        for im in &images {
            at_once.textures().register(&im.desc, &im.pixels).expect("fits");
        }
        at_once.begin_frame();
        at_once.finish();
        let descs = |b: &Batcher| {
            let mut v: Vec<_> = b.allocator().arrays().map(|(_, d)| (d.width_px, d.height_px, d.layers)).collect();
            v.sort();
            v
        };
        assert_eq!(descs(&batcher), descs(&at_once), "{kind:?}: settled arrays");
        assert_eq!(batcher.allocator().allocated_bytes(), at_once.allocator().allocated_bytes(), "{kind:?}");
        let (draws, tier) = draw_all_once(&mut dev, &mut batcher, &ids, kind);
        eprintln!("{kind:?}: loaded 32 per plan, {copied} layers copied, {draws} draw(s) at tier {tier}");
        assert_eq!(draws, 1, "{kind:?}");
        check_every_texel(&mut dev, &mut batcher, &images, &ids, kind);
    }
}

/// The real pack: every PNG of Python Arcade 3.3.3's resources (CC0), decoded and
/// premultiplied.
#[test]
fn real_arcade_pack_loads_at_startup() {
    const TEST: &str = "real_arcade_pack_loads_at_startup";
    let dir = std::env::var_os("LAYERBATCH_ASSETS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/assets/arcade"));
    let mut paths = Vec::new();
    let mut stack = vec![dir.clone()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "png") {
                paths.push(p);
            }
        }
    }
    if paths.is_empty() {
        let why = format!("no PNGs under {} (run scripts/fetch-assets.sh)", dir.display());
        layerbatch_testkit::ci::skip(TEST, &why);
        return;
    }
    paths.sort();
    let images: Vec<Image> = paths
        .iter()
        .map(|p| {
            let img = image::open(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())).to_rgba8();
            Image { desc: TextureDesc::new(img.width(), img.height()), pixels: layerbatch::premultiplied(&img) }
        })
        .collect();
    assert_eq!(images.len(), 759, "the pack has 759 PNGs");
    for kind in [DeviceKind::Gl, DeviceKind::WgpuVulkan] {
        load_at_startup(kind, &images, TEST);
    }
}
