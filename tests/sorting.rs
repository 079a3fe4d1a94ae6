//! A y-sorted frame draws what a painter would, on GL 3.3, GLES 3.0, wgpu on Vulkan and wgpu on
//! GL: 300 opaque sprites over 64 textures, pushed in scrambled order with their feet as the
//! key, a HUD pushed first with a higher `z` and a ground pushed last with a lower one, read
//! back exactly (tolerance 0) against a CPU reference that paints the same rectangles in
//! `std`'s stable sort order, in one draw call.
//!
//! Under `CI=true` a device that cannot be had fails the test; outside CI it prints `skipped:`.

use headless::DeviceKind;
use layerbatch::{Batcher, Config, Quad, SortKey, TextureDesc, TextureId};
use layerbatch_testkit::headless;

const SIZE: [u32; 2] = [160, 120];

/// A sprite: its texture's index, its rectangle in whole pixels, its key.
struct Sprite {
    texture: usize,
    rect: [u32; 4],
    key: SortKey,
}

/// The colour of texture `t`: opaque, distinct for each of 64.
fn colour(t: usize) -> [u8; 4] {
    [(40 + t * 3) as u8, (255 - t * 3) as u8, (t * 37 % 256) as u8, 255]
}

fn sprites() -> Vec<Sprite> {
    let mut out = Vec::new();
    // The HUD first, over everything by its z; the ground last, under everything.
    out.push(Sprite { texture: 0, rect: [4, 4, 60, 14], key: SortKey::z(1) });
    let mut s = 12345u64;
    let mut next = |n: u64| {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (s >> 33) % n
    };
    for _ in 0..300 {
        let (w, h) = (4 + next(20) as u32, 4 + next(30) as u32);
        let (x, y) = (next(u64::from(SIZE[0] - w)) as u32, next(u64::from(SIZE[1] - h)) as u32);
        let texture = 1 + next(63) as usize;
        // Feet at the bottom edge; many share a row, so submission order decides among them.
        out.push(Sprite { texture, rect: [x, y, w, h], key: SortKey::zy(0, (y + h) as f32) });
    }
    out.push(Sprite { texture: 0, rect: [0, 100, 160, 20], key: SortKey::z(-1) });
    out
}

/// The frame painted on the CPU: background `clear`, then each sprite in `order`.
fn paint<'a>(order: impl Iterator<Item = &'a Sprite>, clear: &[u8]) -> Vec<u8> {
    let mut img = clear.to_vec();
    for s in order {
        let [x, y, w, h] = s.rect;
        for py in y..y + h {
            for px in x..x + w {
                let at = ((py * SIZE[0] + px) * 4) as usize;
                img[at..at + 4].copy_from_slice(&colour(s.texture));
            }
        }
    }
    img
}

/// The reference: the sprites painted in `std`'s stable sort order by key.
fn reference(sprites: &[Sprite], clear: &[u8]) -> Vec<u8> {
    let mut order: Vec<&Sprite> = sprites.iter().collect();
    order.sort_by_key(|s| s.key);
    paint(order.into_iter(), clear)
}

fn sorted_frame_matches_the_painter(kind: DeviceKind, test: &str) {
    let Some(mut dev) = headless::open_for_test(kind, SIZE, test) else { return };
    let mut b = Batcher::new(dev.limits(), Config::default()).expect("budget");
    dev.init(b.budget()).expect("renderer");
    let sizes = [(8, 8), (16, 16), (32, 24), (20, 40)];
    let ids: Vec<TextureId> = (0..64)
        .map(|t| {
            let (w, h) = sizes[t % 4];
            b.textures().register(&TextureDesc::new(w, h), &colour(t).repeat((w * h) as usize)).expect("register")
        })
        .collect();
    b.begin_frame();
    dev.draw(b.finish()).unwrap_or_else(|e| panic!("{test}: {e}"));
    let clear = dev.read();

    let sprites = sprites();
    b.begin_frame();
    for s in &sprites {
        let [x, y, w, h] = s.rect.map(|v| v as f32);
        b.state().set_sort_key(s.key);
        b.push(&Quad::rect(ids[s.texture], [x, y], [w, h])).expect("a live texture");
    }
    let plan = b.finish();
    assert_eq!(plan.counters.sorted_items, sprites.len() as u64, "{test}");
    dev.draw(plan).unwrap_or_else(|e| panic!("{test}: {e}"));
    assert_eq!(dev.stats().device_frame.draw_calls, 1, "{test}: 64 textures, sorted, one draw");
    let drawn = dev.read();
    let want = reference(&sprites, &clear);
    let (differing, worst) = headless::compare(&drawn, &want, SIZE[0], 0, "drawn", "painted on the CPU");
    assert_eq!(differing, 0, "{test}: {differing} pixels differ (worst {worst})");
    // The order matters: painted in submission order, the scene differs.
    let unsorted = paint(sprites.iter(), &clear);
    let (changed, _) = headless::compare(&unsorted, &want, SIZE[0], 0, "submission order", "sorted");
    assert!(changed > 500, "{test}: the scene must depend on the order ({changed} pixels)");
}

#[test]
fn gl33_sorted_frame_matches_the_painter() {
    sorted_frame_matches_the_painter(DeviceKind::Gl, "gl33_sorted_frame_matches_the_painter");
}

#[test]
fn gles30_sorted_frame_matches_the_painter() {
    sorted_frame_matches_the_painter(DeviceKind::Gles, "gles30_sorted_frame_matches_the_painter");
}

#[test]
fn wgpu_vulkan_sorted_frame_matches_the_painter() {
    sorted_frame_matches_the_painter(DeviceKind::WgpuVulkan, "wgpu_vulkan_sorted_frame_matches_the_painter");
}

#[test]
fn wgpu_gl_sorted_frame_matches_the_painter() {
    sorted_frame_matches_the_painter(DeviceKind::WgpuGl, "wgpu_gl_sorted_frame_matches_the_painter");
}
