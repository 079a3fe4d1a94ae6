//! Pixel readback on a real context (llvmpipe through EGL): every scene runs on a desktop GL
//! 3.3 core context and on a GLES 3.0 context.
// The tests drive GL directly (host-side state, readback): every call is in `unsafe`.
#![allow(unsafe_code)]

use crate::common;
// Hand-made plans, shared with the wgpu backend's tests.

use common::{close, distinct_colors, over, solid, Ctx, Image, Offscreen};
use layerbatch_core::plan::Instance;
use layerbatch_core::{
    Batcher, Config, Filter, Format, FormatFamily, FramePlan, Limits, PlanError, Quad, QuadError, Stats, TextureDesc,
    TextureError, TextureId,
};
use layerbatch_gl::{glow, Capabilities, CopyPath, Error, Renderer, Target};
use layerbatch_testkit::plans;

const W: u32 = 256;
const H: u32 = 256;
const CLEAR: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

/// A batcher, a renderer and an offscreen target on one context.
struct Rig<'a> {
    ctx: &'a Ctx,
    batcher: Batcher,
    renderer: Option<Renderer>,
    target: Offscreen,
}

impl<'a> Rig<'a> {
    fn new(ctx: &'a Ctx, config: Config) -> Self {
        Self::with_caps(ctx, config, None)
    }

    /// A rig whose renderer uses at most `caps`, with limits that say what it can do: no
    /// compressed copies without `copy_image`.
    fn with_caps(ctx: &'a Ctx, config: Config, caps: Option<Capabilities>) -> Self {
        let limits = Renderer::query_limits(&ctx.gl);
        let limits = match caps {
            Some(c) => limits.with_compressed_copies(limits.compressed_copies && c.copy_image),
            None => limits,
        };
        Self::build(ctx, limits, config, caps)
    }

    /// A rig whose batcher plans for `limits` (which may promise more than the context has).
    fn build(ctx: &'a Ctx, limits: Limits, config: Config, caps: Option<Capabilities>) -> Self {
        let batcher = Batcher::new(limits, config).expect("budget");
        let renderer = match caps {
            Some(c) => Renderer::with_capabilities(ctx.gl.clone(), batcher.budget(), c),
            None => Renderer::new(ctx.gl.clone(), batcher.budget()),
        }
        .expect("renderer");
        assert_eq!(renderer.stats().device_total.pipeline_compiles, batcher.budget().tiers.len() as u64);
        let target = Offscreen::new(&ctx.gl, W, H, CLEAR);
        Self { ctx, batcher, renderer: Some(renderer), target }
    }

    fn renderer(&mut self) -> &mut Renderer {
        self.renderer.as_mut().expect("live renderer")
    }

    fn register(&mut self, desc: TextureDesc, color: [u8; 4]) -> TextureId {
        self.batcher.textures().register(&desc, &solid(desc.width_px, desc.height_px, color)).expect("register")
    }

    /// Records `quads`, paints the plan into the offscreen target (named by the target, or
    /// bound by the "host" when `bound`), reads it back.
    fn frame_with(&mut self, quads: &[Quad], bound: bool) -> Image {
        self.target.clear(&self.ctx.gl, CLEAR);
        self.batcher.begin_frame();
        for q in quads {
            self.batcher.push(q).expect("push");
        }
        let plan = self.batcher.finish();
        let target = if bound {
            // The host binds its framebuffer; the renderer draws into whatever is bound.
            Target::bound([W, H])
        } else {
            // SAFETY: the test's own framebuffer; unbinding checks the renderer rebinds it.
            unsafe { glow::HasContext::bind_framebuffer(&*self.ctx.gl, glow::FRAMEBUFFER, None) };
            Target::framebuffer(self.target.fbo, [W, H])
        };
        let renderer = self.renderer.as_mut().expect("live renderer");
        renderer.paint(plan, &target).expect("paint");
        check_plan_executed(plan, renderer);
        self.target.read(&self.ctx.gl)
    }

    fn frame(&mut self, quads: &[Quad]) -> Image {
        self.frame_with(quads, false)
    }

    fn plan(&self) -> &FramePlan {
        self.batcher.plan()
    }

    fn stats(&mut self) -> Stats {
        self.renderer().stats()
    }

    fn finish(mut self) {
        self.renderer.take().expect("live renderer").destroy();
        self.target.delete(&self.ctx.gl);
    }
}

/// What every paint must satisfy: one draw per segment, each with its segment's tier, and the
/// counters of the plan that was painted.
fn check_plan_executed(plan: &FramePlan, renderer: &Renderer) {
    let stats = renderer.stats();
    assert_eq!(stats.device_frame.draw_calls, plan.segments.len() as u64);
    assert_eq!(stats.core_frame, plan.counters);
    let tiers: Vec<u32> = plan.segments.iter().map(|s| s.tier).collect();
    assert_eq!(renderer.last_drawn_tiers(), tiers.as_slice());
    assert_eq!(
        stats.device_frame.instance_bytes_written,
        plan.instances.len() as u64 * u64::from(Instance::quad_bytes(renderer.indexed_quads()))
    );
    assert_eq!(stats.device_frame.texture_bytes_written, plan.counters.bytes_uploaded);
    assert_eq!(stats.device_total.pipeline_compiles, renderer.tiers().len() as u64);
}

/// Cell `i` of a grid of `cell x cell` pixel cells, 256 px wide.
fn cell(i: u32, cell: u32) -> (u32, u32) {
    let cols = W / cell;
    ((i % cols) * cell, (i / cols) * cell)
}

/// For each `i` of `order`, texture `ids[i]` drawn `size_px` square in grid cell `i` of
/// `cell_px` pixels, in that order.
fn grid(ids: &[TextureId], order: impl IntoIterator<Item = usize>, cell_px: u32, size_px: f32) -> Vec<Quad> {
    order
        .into_iter()
        .map(|i| {
            let (x, y) = cell(i as u32, cell_px);
            Quad::rect(ids[i], [x as f32, y as f32], [size_px; 2])
        })
        .collect()
}

// 1. 40 textures of one size, distinct colours, a grid of 40 quads: every rectangle shows its
//    own colour; one draw call, no cache reset.
fn grid_40(ctx: &Ctx) {
    let mut rig = Rig::new(ctx, Config::default());
    let colors = distinct_colors(40);
    let ids: Vec<TextureId> = colors.iter().map(|&c| rig.register(TextureDesc::new(16, 16), c)).collect();
    let quads = grid(&ids, 0..ids.len(), 32, 32.0);
    let img = rig.frame_with(&quads, true);
    for (i, &c) in colors.iter().enumerate() {
        let (x, y) = cell(i as u32, 32);
        // Every pixel of the cell: sampling a solid layer gives exactly its colour.
        img.assert_rect([x, y, x + 32, y + 32], c, 0, &format!("texture {i}"));
    }
    img.assert_rect([0, 160, W, H], [0, 0, 0, 255], 0, "background below the grid");
    let stats = rig.stats();
    assert_eq!(stats.device_frame.draw_calls, 1);
    assert_eq!(stats.core_frame.draw_calls, 1);
    assert_eq!(stats.core_frame.cache_resets, 0);
    assert_eq!(stats.device_frame.texture_binds, 1, "one array, bound once");
    assert_eq!(rig.plan().segments[0].tier, 1);
    assert_eq!(stats.device_frame.arrays_created, stats.core_frame.arrays_created);
    rig.finish();
}
both_flavors!(grid_40);

// 2. Padded textures whose padding holds poison: the poison never shows, nearest or linear,
//    scaled, offset by fractions of a pixel, rotated, or showing a sub-rectangle.
fn padding_poison(ctx: &Ctx) {
    const POISON: [u8; 4] = [255, 0, 255, 255];
    let mut rig = Rig::new(ctx, Config::default());
    // Two padded sizes, 48x48 (class 64x64) and 50x30 (class 64x32), in both filters. Fill
    // each class's layer 0 with a full-size poison texture, free it, and register the small
    // texture into the same layer: its padding then holds poison.
    let mut textures = Vec::new();
    for filter in [Filter::Linear, Filter::Nearest] {
        for ((w, h), (cw, ch)) in [((48, 48), (64, 64)), ((50, 30), (64, 32))] {
            let poison = rig.register(TextureDesc::new(cw, ch).with_filter(filter), POISON);
            let poison_place = rig.batcher.placement(poison).unwrap();
            rig.batcher.textures().free(poison).unwrap();
            // Left half green, right half blue: no red anywhere, so any red is poison.
            let desc = TextureDesc::new(w, h).with_filter(filter);
            let px: Vec<u8> =
                (0..w * h).flat_map(|i| if i % w < w / 2 { [0, 255, 0, 255] } else { [0, 0, 255, 255] }).collect();
            let t = rig.batcher.textures().register(&desc, &px).unwrap();
            let place = rig.batcher.placement(t).unwrap();
            assert_eq!((place.array, place.layer), (poison_place.array, poison_place.layer));
            assert!(place.uv_rect[2] < 1.0 || place.uv_rect[3] < 1.0, "padded");
            textures.push((t, filter));
        }
    }
    let mut quads = Vec::new();
    for (i, &(t, _)) in textures.iter().enumerate() {
        let col = i as f32 * 64.0;
        quads.push(Quad::rect(t, [col + 2.0, 2.0], [60.0, 60.0])); // scaled up, aligned
        quads.push(Quad::rect(t, [col + 3.37, 70.61], [57.3, 55.9])); // fractional everything
        quads.push(Quad::rotated(t, [col + 32.0, 160.0], [40.0, 40.0], 0.5)); // rotated
        quads.push(Quad::rect(t, [col + 4.0, 194.0], [56.0, 56.0]).with_uv([0.5, 0.0, 1.0, 1.0]));
        // right half
    }
    let img = rig.frame(&quads);
    for (x, y, px) in img.pixels() {
        assert_eq!(px[0], 0, "poison (red) at ({x}, {y}): {px:?}");
    }
    for i in 0..textures.len() as u32 {
        let col = i * 64;
        // Aligned quad: left part green, right part blue.
        assert_eq!(img.at(col + 10, 30), [0, 255, 0, 255], "texture {i} left");
        assert_eq!(img.at(col + 54, 30), [0, 0, 255, 255], "texture {i} right");
        // The sub-rectangle quad shows only the blue half.
        assert_eq!(img.at(col + 8, 220), [0, 0, 255, 255], "texture {i} uv sub-rect");
    }
    // Red poison anywhere else would also be caught above; green and blue must both show.
    assert!(img.pixels().any(|(_, _, p)| p[1] > 200) && img.pixels().any(|(_, _, p)| p[2] > 200));
    rig.finish();
}
both_flavors!(padding_poison);

// 3. Four slots, ten textures that cannot share an array (ten sizes, no padding),
//    interleaved: right pixels, and the draws and flushes core planned.
fn slots_4_ten_sizes(ctx: &Ctx) {
    // Size classes, not atlas pages (which would pack all ten into one array).
    let config = Config::default().with_max_slots(4).with_max_padding_waste(0.0).with_max_packed_size_px(0);
    let mut rig = Rig::new(ctx, config);
    let colors = distinct_colors(10);
    let ids: Vec<TextureId> = colors
        .iter()
        .enumerate()
        .map(|(i, &c)| rig.register(TextureDesc::new(8 + i as u32, 9 + i as u32), c))
        .collect();
    let arrays: std::collections::HashSet<_> = ids.iter().map(|&t| rig.batcher.placement(t).unwrap().array).collect();
    assert_eq!(arrays.len(), 10, "every texture in its own array");
    let quads: Vec<Quad> = (0..64u32)
        .map(|i| {
            let (x, y) = cell(i, 32);
            Quad::rect(ids[(i % 10) as usize], [x as f32, y as f32], [32.0, 32.0])
        })
        .collect();
    let img = rig.frame(&quads);
    for i in 0..64u32 {
        let (x, y) = cell(i, 32);
        img.assert_rect([x, y, x + 32, y + 32], colors[(i % 10) as usize], 0, &format!("quad {i}"));
    }
    let stats = rig.stats();
    let plan = rig.plan();
    assert!(plan.segments.len() > 1);
    assert_eq!(stats.device_frame.draw_calls, plan.segments.len() as u64);
    assert_eq!(stats.core_frame.flushes, plan.segments.len() as u64);
    assert_eq!(stats.core_frame.draw_calls, stats.device_frame.draw_calls);
    assert!(stats.core_frame.flushes_slots_exhausted > 0);
    assert_eq!(stats.core_frame.cache_resets, 0);
    assert!(plan.segments.iter().all(|s| s.tier <= 4));
    // Every slot bind core planned was issued (the device may add first-use rebinds).
    assert!(stats.device_frame.texture_binds >= stats.core_frame.slot_binds);
    rig.finish();
}
both_flavors!(slots_4_ten_sizes);

fn srgb_to_linear(c: u8) -> u8 {
    let c = c as f32 / 255.0;
    let l = if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) };
    (l * 255.0).round() as u8
}

// 4. Growth mid-session: more textures than the initial layers, across frames. Pixels stay
//    right after the GPU copy (every mip level), growths are counted, nothing is re-uploaded.
fn growth(ctx: &Ctx, path: CopyPath) {
    let config = Config::default().with_initial_layers(4);
    let caps = Capabilities { copy_image: path == CopyPath::CopyImage, ..Capabilities::detect(&ctx.gl) };
    let mut rig = Rig::with_caps(ctx, config, Some(caps));
    if path == CopyPath::CopyImage && rig.renderer().copy_path() != CopyPath::CopyImage {
        println!("skipped: growth via copy-image: the context lacks it");
        return rig.finish();
    }
    assert_eq!(rig.renderer().copy_path(), path);
    let colors = distinct_colors(24);
    let mut ids: Vec<(TextureId, [u8; 4])> = Vec::new();
    let mut expected_layers_copied = 0;
    for (frame, new) in [3u32, 3, 6, 12].into_iter().enumerate() {
        let before = ids.len();
        for k in 0..new {
            let i = ids.len();
            // Mipmapped linear-RGBA and sRGB textures, mid-range values (sRGB changes them).
            let srgb = k % 2 == 1;
            let c = colors[i];
            let desc = TextureDesc::new(16, 16).with_mip_levels(5).with_format(if srgb {
                Format::Rgba8UnormSrgb
            } else {
                Format::Rgba8Unorm
            });
            let c = [c[0] / 2 + 40, c[1] / 2 + 40, c[2] / 2 + 40, 255];
            let t = rig.register(desc, c);
            let want = if srgb { [srgb_to_linear(c[0]), srgb_to_linear(c[1]), srgb_to_linear(c[2]), 255] } else { c };
            ids.push((t, want));
        }
        // Each texture twice: 24 px (level 0) and 4 px (a quarter: level 2).
        let mut quads = Vec::new();
        for (i, &(t, _)) in ids.iter().enumerate() {
            let (x, y) = cell(i as u32, 32);
            quads.push(Quad::rect(t, [x as f32, y as f32], [24.0, 24.0]));
            quads.push(Quad::rect(t, [x as f32 + 26.0, y as f32 + 26.0], [4.0, 4.0]));
        }
        // Odd frames draw into the framebuffer the host has bound: growth copies (blits)
        // must leave it bound.
        let img = rig.frame_with(&quads, frame % 2 == 1);
        for (i, &(_, want)) in ids.iter().enumerate() {
            let (x, y) = cell(i as u32, 32);
            img.assert_rect([x, y, x + 24, y + 24], want, 1, &format!("frame {frame} texture {i} level 0"));
            img.assert_rect([x + 26, y + 26, x + 30, y + 30], want, 1, &format!("frame {frame} texture {i} mip"));
        }
        let stats = rig.stats();
        let new_bytes: u64 =
            (before..ids.len()).map(|_| layerbatch_core::mip_chain_bytes(16, 16, 5, Format::Rgba8Unorm)).sum();
        assert_eq!(stats.device_frame.texture_bytes_written, new_bytes, "frame {frame}: only new textures uploaded");
        for op in &rig.plan().ops {
            if let layerbatch_core::plan::ResourceOp::Array(layerbatch_core::plan::ArrayOp::Grow {
                copy_layers, ..
            }) = op
            {
                expected_layers_copied += *copy_layers as u64;
            }
        }
        assert_eq!(stats.device_frame.arrays_created, stats.core_frame.arrays_created);
        assert_eq!(stats.device_frame.arrays_destroyed, stats.core_frame.arrays_destroyed);
    }
    let stats = rig.stats();
    // Two classes (linear, sRGB) of 12 textures each. Frame 0's arrays, born in its plan, are
    // trimmed to their used layers at `begin_frame` (2 linear, 1 sRGB), then double by GPU
    // copies: linear 2 -> 4 -> 8 -> 16, sRGB 1 -> 2 -> 8 -> 16 (frame 2 grows it 2 -> 4 -> 8:
    // one copy, the copy's target grows in place), three growths each.
    assert_eq!(stats.core_total.array_growths, 6);
    assert_eq!(stats.device_total.layers_copied, expected_layers_copied);
    assert_eq!(stats.device_total.layers_copied, (2 + 4 + 8) + (1 + 2 + 8));
    assert_eq!(
        stats.device_total.texture_bytes_written,
        24 * layerbatch_core::mip_chain_bytes(16, 16, 5, Format::Rgba8Unorm)
    );
    assert_eq!(rig.renderer().array_count(), 2);
    rig.finish();
}
fn growth_copy_image(ctx: &Ctx) {
    growth(ctx, CopyPath::CopyImage);
}
fn growth_blit(ctx: &Ctx) {
    growth(ctx, CopyPath::Blit);
}
both_flavors!(growth_copy_image);
both_flavors!(growth_blit);

// A renderer without glCopyImageSubData refuses, at creation, a budget that plans copies of
// compressed texels (query_limits' says the context has them): before, the plan failed with
// "framebuffer incomplete" at its first growth. With a budget that says so, compressed arrays
// are joined by new ones instead, and every texture still draws.
fn compressed_copies_match_the_renderer(ctx: &Ctx) {
    let caps = Capabilities { copy_image: false, ..Capabilities::detect(&ctx.gl) };
    let limits = Renderer::query_limits(&ctx.gl);
    assert!(limits.format_families.contains(FormatFamily::Bc), "llvmpipe has BC: {limits:?}");
    if limits.compressed_copies {
        let batcher = Batcher::new(limits, Config::default()).unwrap();
        let err = Renderer::with_capabilities(ctx.gl.clone(), batcher.budget(), caps).unwrap_err();
        assert!(matches!(&err, Error::BudgetNotForDevice { reason } if reason.contains("glCopyImageSubData")), "{err}");
    }
    let mut rig = Rig::with_caps(ctx, Config::default().with_initial_layers(1).with_max_packed_size_px(0), Some(caps));
    let colors = distinct_colors(4);
    let mut ids = Vec::new();
    for (i, &c) in colors.iter().enumerate() {
        // A BC1 block of one colour: both endpoints the colour in RGB565, every index 0.
        let rgb565 = (u16::from(c[0] >> 3) << 11) | (u16::from(c[1] >> 2) << 5) | u16::from(c[2] >> 3);
        let [lo, hi] = rgb565.to_le_bytes();
        let block = [lo, hi, lo, hi, 0, 0, 0, 0];
        let desc = TextureDesc::new(8, 8).with_format(Format::Bc1RgbaUnorm).with_filter(Filter::Nearest);
        ids.push(rig.batcher.textures().register(&desc, &block.repeat(4)).unwrap());
        let quads = grid(&ids, 0..ids.len(), 32, 32.0);
        let img = rig.frame(&quads);
        let expand = |v: u8, bits: u32| ((u32::from(v) >> (8 - bits)) * 255 / ((1 << bits) - 1)) as u8;
        for (j, c) in colors[..=i].iter().enumerate() {
            let (x, y) = cell(j as u32, 32);
            let want = [expand(c[0], 5), expand(c[1], 6), expand(c[2], 5), 255];
            img.assert_rect([x, y, x + 32, y + 32], want, 1, &format!("texture {j} after {} registered", i + 1));
        }
    }
    assert_eq!(rig.stats().device_total.layers_copied, 0, "no compressed copy was planned");
    rig.finish();
}
both_flavors!(compressed_copies_match_the_renderer);

// Arrays without immutable storage (glTexImage3D per level) behave the same.
fn mutable_storage(ctx: &Ctx) {
    let caps = Capabilities { texture_storage: false, copy_image: false, ..Capabilities::detect(&ctx.gl) };
    let mut rig = Rig::with_caps(ctx, Config::default().with_initial_layers(2), Some(caps));
    let colors = distinct_colors(5);
    let mut ids: Vec<TextureId> = Vec::new();
    // Two textures first, drawn (their array is then on the device), then three more: the
    // array grows by a GPU copy of its mutable-storage levels.
    for (count, what) in [(2, "before the growth"), (5, "after the growth")] {
        while ids.len() < count {
            ids.push(rig.register(TextureDesc::new(8, 8).with_mip_levels(4), colors[ids.len()]));
        }
        let quads = grid(&ids, 0..ids.len(), 32, 32.0);
        let img = rig.frame(&quads);
        for (i, &c) in colors[..count].iter().enumerate() {
            let (x, y) = cell(i as u32, 32);
            img.assert_rect([x, y, x + 32, y + 32], c, 0, &format!("{what}: texture {i}"));
        }
    }
    assert!(rig.stats().core_frame.array_growths >= 1);
    assert!(rig.stats().device_frame.layers_copied >= 2, "the first two layers are copied");
    rig.finish();
}
both_flavors!(mutable_storage);

// 5. Free and reuse: a new texture takes the freed layer, the readback shows it, the old id is
//    rejected everywhere.
fn free_and_reuse(ctx: &Ctx) {
    let mut rig = Rig::new(ctx, Config::default());
    let (red, green, blue) = ([220, 20, 20, 255], [20, 220, 20, 255], [20, 20, 220, 255]);
    let a = rig.register(TextureDesc::new(32, 32), red);
    let b = rig.register(TextureDesc::new(32, 32), green);
    let quads = |a: TextureId, b: TextureId| {
        [Quad::rect(a, [0.0, 0.0], [64.0, 64.0]), Quad::rect(b, [64.0, 0.0], [64.0, 64.0])]
    };
    let img = rig.frame(&quads(a, b));
    img.assert_rect([0, 0, 64, 64], red, 0, "a");
    img.assert_rect([64, 0, 128, 64], green, 0, "b");
    let old = rig.batcher.placement(a).unwrap();
    rig.batcher.textures().free(a).unwrap();
    let c = rig.register(TextureDesc::new(32, 32), blue);
    let new = rig.batcher.placement(c).unwrap();
    assert_eq!((new.array, new.layer), (old.array, old.layer), "the freed layer is reused");
    let img = rig.frame(&quads(c, b));
    img.assert_rect([0, 0, 64, 64], blue, 0, "c in a's layer");
    img.assert_rect([64, 0, 128, 64], green, 0, "b");
    let stats = rig.stats();
    assert_eq!(stats.device_frame.texture_bytes_written, 32 * 32 * 4, "only c uploaded");
    assert_eq!(stats.device_frame.arrays_created, 0);
    // The old id is rejected.
    assert!(!rig.batcher.contains(a));
    assert!(matches!(rig.batcher.placement(a), Err(TextureError::Stale(_))));
    assert!(matches!(rig.batcher.textures().free(a), Err(TextureError::Stale(_))));
    rig.batcher.begin_frame();
    assert_eq!(rig.batcher.push(&Quad::rect(a, [0.0, 0.0], [8.0, 8.0])), Err(QuadError::Stale(a)));
    rig.batcher.push(&Quad::rect(c, [0.0, 0.0], [8.0, 8.0])).unwrap();
    let plan = rig.batcher.finish();
    assert_eq!(plan.instances.len(), 1);
    let target = Target::framebuffer(rig.target.fbo, [W, H]);
    let renderer = rig.renderer.as_mut().unwrap();
    renderer.paint(plan, &target).unwrap();
    // A plan painted twice is refused: its ops would be applied twice.
    assert!(matches!(renderer.paint(plan, &target), Err(Error::Plan(PlanError::Sequence { .. }))));
    rig.finish();
}
both_flavors!(free_and_reuse);

// 6. Overlapping translucent quads blend in submission order (premultiplied alpha).
fn translucent_order(ctx: &Ctx) {
    let mut rig = Rig::new(ctx, Config::default());
    let bg_f = [0.2, 0.2, 0.2, 1.0];
    let bg = [51, 51, 51, 255];
    let t1c = [0, 0, 128, 128]; // 50 % blue, premultiplied
    let t2c = [100, 50, 0, 153]; // 60 % orange, premultiplied
    let t1 = rig.register(TextureDesc::new(8, 8), t1c);
    let t2 = rig.register(TextureDesc::new(8, 8), t2c);
    let opaque = rig.register(TextureDesc::new(8, 8), [240, 240, 0, 255]);
    let tint = [64, 128, 32, 128]; // premultiplied tint
    let scene = |first: TextureId, second: TextureId| {
        [
            Quad::rect(first, [20.0, 20.0], [100.0, 100.0]),
            Quad::rect(second, [70.0, 70.0], [100.0, 100.0]),
            Quad::rect(opaque, [180.0, 180.0], [40.0, 40.0]).with_color(tint),
        ]
    };
    let mut results = Vec::new();
    for (first, second, fc, sc) in [(t1, t2, t1c, t2c), (t2, t1, t2c, t1c)] {
        rig.target.clear(&ctx.gl, bg_f);
        rig.batcher.begin_frame();
        for q in scene(first, second) {
            rig.batcher.push(&q).unwrap();
        }
        let plan = rig.batcher.finish();
        rig.renderer.as_mut().unwrap().paint(plan, &Target::framebuffer(rig.target.fbo, [W, H])).unwrap();
        let img = rig.target.read(&ctx.gl);
        let only_first = img.at(40, 40);
        let only_second = img.at(150, 150);
        let both = img.at(95, 95);
        let tinted = img.at(200, 200);
        assert!(close(only_first, over(fc, bg), 2), "first alone {only_first:?} vs {:?}", over(fc, bg));
        assert!(close(only_second, over(sc, bg), 2), "second alone {only_second:?}");
        let want = over(sc, over(fc, bg));
        assert!(close(both, want, 2), "overlap {both:?}, want {want:?}");
        // texel * tint, then over the background.
        let texel_tint = [240 * 64 / 255, 240 * 128 / 255, 0, 128].map(|v: u32| v as u8);
        assert!(close(tinted, over(texel_tint, bg), 2), "tinted {tinted:?}, want {:?}", over(texel_tint, bg));
        assert_eq!(img.at(5, 5), bg);
        results.push(both);
    }
    // The order shows: the two overlaps differ where "over" is not commutative.
    assert!(!close(results[0], results[1], 4), "order must matter: {:?} vs {:?}", results[0], results[1]);
    rig.finish();
}
both_flavors!(translucent_order);

fn many_textures(ctx: &Ctx) {
    let mut rig = Rig::new(ctx, Config::default());
    let tiers = rig.batcher.budget().tiers.len() as u64;
    let sizes = [(16, 16), (32, 32), (24, 24), (64, 16), (8, 8)];
    let colors = distinct_colors(200);
    let mut ids: Vec<TextureId> = Vec::new();
    let mut one_array_segments = 0;
    let mut frames = 0;
    let mut check = |rig: &mut Rig<'_>, img: &Image, ids: &[TextureId], order: &[usize]| {
        for &i in order {
            let (x, y) = cell(i as u32, 16);
            img.assert_rect([x + 1, y + 1, x + 11, y + 11], colors[i], 0, &format!("texture {i}"));
        }
        let plan = rig.plan();
        for (seg, &drawn) in plan.segments.iter().zip(rig.renderer.as_ref().unwrap().last_drawn_tiers()) {
            let arrays = plan.slots(seg).iter().flatten().count();
            if arrays == 1 {
                assert_eq!(seg.tier, 1);
                assert_eq!(drawn, 1);
                one_array_segments += 1;
            }
        }
        assert!(ids.len() <= 200);
        let stats = rig.stats();
        assert_eq!(stats.device_total.pipeline_compiles, tiers, "no program linked after creation");
        frames += 1;
    };
    for round in 0..4 {
        for _ in 0..50 {
            let i = ids.len();
            let (w, h) = sizes[i % sizes.len()];
            ids.push(rig.register(TextureDesc::new(w, h), colors[i]));
        }
        // All textures so far, interleaved across classes (painter's order is submission order).
        let order: Vec<usize> = (0..ids.len()).map(|k| (k * 7 + round) % ids.len()).collect();
        let img = rig.frame(&grid(&ids, order.iter().copied(), 16, 12.0));
        check(&mut rig, &img, &ids, &order);
    }
    // A frame of one size class: one array, one segment, tier 1.
    let order: Vec<usize> = (0..200).filter(|i| i % sizes.len() == 0).collect();
    let img = rig.frame(&grid(&ids, order.iter().copied(), 16, 12.0));
    check(&mut rig, &img, &ids, &order);
    assert_eq!(rig.plan().segments.len(), 1);
    assert!(one_array_segments >= 1);
    assert_eq!(frames, 5);
    let stats = rig.stats();
    assert_eq!(stats.core_total.frames, 5);
    assert_eq!(stats.device_total.frames, 5);
    assert_eq!(stats.device_total.pipeline_compiles, tiers);
    rig.finish();
}
both_flavors!(many_textures);

// Frames longer than the instance buffer: segments per chunk, attribute pointers offset per
// segment (no base instance on GLES 3.0).
fn instance_chunks(ctx: &Ctx) {
    // Size classes, not atlas pages: three arrays for two slots.
    let config = Config::default().with_instance_capacity(16).with_max_slots(2).with_max_packed_size_px(0);
    let mut rig = Rig::new(ctx, config);
    let colors = distinct_colors(6);
    // Three classes with two slots: flushes inside chunks too.
    let ids: Vec<TextureId> = colors
        .iter()
        .enumerate()
        .map(|(i, &c)| rig.register(TextureDesc::new(8 << (i % 3), 8 << (i % 3)), c))
        .collect();
    let quads: Vec<Quad> = (0..64u32)
        .map(|i| {
            let (x, y) = cell(i, 32);
            Quad::rect(ids[(i as usize * 5) % 6], [x as f32, y as f32], [32.0, 32.0])
        })
        .collect();
    let img = rig.frame(&quads);
    for i in 0..64u32 {
        let (x, y) = cell(i, 32);
        img.assert_rect([x, y, x + 32, y + 32], colors[(i as usize * 5) % 6], 0, &format!("quad {i}"));
    }
    let stats = rig.stats();
    assert_eq!(stats.core_frame.flushes_instance_buffer_full, 3);
    assert!(stats.core_frame.flushes_slots_exhausted > 0);
    assert_eq!(stats.device_frame.instance_bytes_written, 64 * u64::from(rig.batcher.budget().quad_bytes()));
    rig.finish();
}
both_flavors!(instance_chunks);

// The host's GL state is restored after a paint.
fn state_restored(ctx: &Ctx) {
    use glow::HasContext;
    let gl = &*ctx.gl;
    // The blit copy path: it changes the most state (framebuffers, FRAMEBUFFER_SRGB).
    let caps = Capabilities { copy_image: false, ..Capabilities::detect(gl) };
    // Size classes (not atlas pages): the third texture grows its class's array.
    let config = Config::default().with_initial_layers(1).with_max_packed_size_px(0);
    let mut rig = Rig::with_caps(ctx, config, Some(caps));
    // Red | green, 2x1, linear: in between, the pixels mix (a host sampler set to nearest
    // would make them pure: the renderer unbinds sampler objects from its units).
    let a = rig.batcher.textures().register(&TextureDesc::new(2, 1), &[255, 0, 0, 255, 0, 255, 0, 255]).unwrap();
    let srgb = TextureDesc::new(8, 8).with_format(Format::Rgba8UnormSrgb);
    let b = rig.register(srgb, [0, 255, 0, 255]);
    // A first plan brings b's array to the device, so that c grows it by a GPU copy (a blit)
    // in the plan painted over the host's state.
    let img = rig.frame(&[Quad::rect(a, [0.0, 0.0], [64.0, 32.0]), Quad::rect(b, [64.0, 0.0], [32.0, 32.0])]);
    img.assert_rect([64, 0, 96, 32], [0, 255, 0, 255], 0, "b, before the growth");
    let c = rig.register(srgb, [0, 0, 255, 255]); // grows b's array
                                                  // SAFETY: host-side state on the test's own context and objects.
    let (host_tex, host_buf, host_pbo, host_vao, host_ebo, host_sampler) = unsafe {
        let host_tex = gl.create_texture().unwrap();
        let host_buf = gl.create_buffer().unwrap();
        let host_pbo = gl.create_buffer().unwrap();
        let host_vao = gl.create_vertex_array().unwrap();
        let host_ebo = gl.create_buffer().unwrap();
        let host_sampler = gl.create_sampler().unwrap();
        gl.sampler_parameter_i32(host_sampler, glow::TEXTURE_MIN_FILTER, glow::NEAREST as i32);
        gl.sampler_parameter_i32(host_sampler, glow::TEXTURE_MAG_FILTER, glow::NEAREST as i32);
        gl.active_texture(glow::TEXTURE0);
        gl.bind_texture(glow::TEXTURE_2D_ARRAY, Some(host_tex));
        gl.bind_sampler(0, Some(host_sampler));
        gl.active_texture(glow::TEXTURE5);
        gl.bind_buffer(glow::ARRAY_BUFFER, Some(host_buf));
        gl.bind_buffer(glow::PIXEL_UNPACK_BUFFER, Some(host_pbo));
        gl.bind_vertex_array(Some(host_vao));
        // The element buffer is vertex-array state: layerbatch's indexed draws use their own.
        gl.bind_buffer(glow::ELEMENT_ARRAY_BUFFER, Some(host_ebo));
        gl.pixel_store_i32(glow::UNPACK_ALIGNMENT, 1);
        gl.pixel_store_i32(glow::UNPACK_ROW_LENGTH, 7);
        gl.enable(glow::SCISSOR_TEST);
        gl.scissor(1, 2, 3, 4);
        gl.enable(glow::DEPTH_TEST);
        gl.disable(glow::BLEND);
        gl.blend_func_separate(glow::SRC_ALPHA, glow::ONE, glow::ZERO, glow::DST_ALPHA);
        gl.color_mask(true, false, true, false);
        gl.viewport(3, 4, 50, 60);
        gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, None);
        gl.bind_framebuffer(glow::READ_FRAMEBUFFER, Some(rig.target.fbo));
        (host_tex, host_buf, host_pbo, host_vao, host_ebo, host_sampler)
    };
    rig.batcher.begin_frame();
    rig.batcher.push(&Quad::rect(a, [0.0, 0.0], [64.0, 32.0])).unwrap();
    rig.batcher.push(&Quad::rect(b, [64.0, 0.0], [32.0, 32.0])).unwrap();
    rig.batcher.push(&Quad::rect(c, [96.0, 0.0], [32.0, 32.0])).unwrap();
    let plan = rig.batcher.finish();
    rig.renderer.as_mut().unwrap().paint(plan, &Target::framebuffer(rig.target.fbo, [W, H])).unwrap();
    assert_eq!(rig.stats().core_frame.array_growths, 1);
    // SAFETY: state queries.
    unsafe {
        assert_eq!(gl.get_parameter_i32(glow::ACTIVE_TEXTURE) as u32, glow::TEXTURE5);
        gl.active_texture(glow::TEXTURE0);
        assert_eq!(gl.get_parameter_texture(glow::TEXTURE_BINDING_2D_ARRAY), Some(host_tex));
        assert_eq!(gl.get_parameter_sampler(glow::SAMPLER_BINDING), Some(host_sampler));
        assert_eq!(gl.get_parameter_buffer(glow::ARRAY_BUFFER_BINDING), Some(host_buf));
        assert_eq!(gl.get_parameter_buffer(glow::PIXEL_UNPACK_BUFFER_BINDING), Some(host_pbo));
        assert_eq!(gl.get_parameter_vertex_array(glow::VERTEX_ARRAY_BINDING), Some(host_vao));
        assert_eq!(gl.get_parameter_buffer(glow::ELEMENT_ARRAY_BUFFER_BINDING), Some(host_ebo));
        assert_eq!(gl.get_parameter_program(glow::CURRENT_PROGRAM), None);
        assert_eq!(gl.get_parameter_framebuffer(glow::DRAW_FRAMEBUFFER_BINDING), None);
        assert_eq!(gl.get_parameter_framebuffer(glow::READ_FRAMEBUFFER_BINDING), Some(rig.target.fbo));
        if ctx.flavor == common::Flavor::Gl33 {
            assert!(!gl.is_enabled(glow::FRAMEBUFFER_SRGB));
        }
        assert_eq!(gl.get_parameter_i32(glow::UNPACK_ALIGNMENT), 1);
        assert_eq!(gl.get_parameter_i32(glow::UNPACK_ROW_LENGTH), 7);
        assert!(gl.is_enabled(glow::SCISSOR_TEST));
        assert!(gl.is_enabled(glow::DEPTH_TEST));
        assert!(!gl.is_enabled(glow::BLEND));
        assert_eq!(gl.get_parameter_i32(glow::BLEND_SRC_RGB) as u32, glow::SRC_ALPHA);
        assert_eq!(gl.get_parameter_i32(glow::BLEND_DST_ALPHA) as u32, glow::DST_ALPHA);
        assert_eq!(gl.get_parameter_bool_array::<4>(glow::COLOR_WRITEMASK), [true, false, true, false]);
        let mut v = [0; 4];
        gl.get_parameter_i32_slice(glow::VIEWPORT, &mut v);
        assert_eq!(v, [3, 4, 50, 60]);
        assert_eq!(gl.get_error(), glow::NO_ERROR);
        // Restore defaults for the readback, then check the draw happened despite the host's
        // scissor, depth test and colour mask.
        gl.disable(glow::SCISSOR_TEST);
        gl.disable(glow::DEPTH_TEST);
        gl.color_mask(true, true, true, true);
        gl.bind_buffer(glow::PIXEL_UNPACK_BUFFER, None);
    }
    let img = rig.target.read(gl);
    img.assert_rect([0, 0, 8, 32], [255, 0, 0, 255], 0, "a, left");
    img.assert_rect([56, 0, 64, 32], [0, 255, 0, 255], 0, "a, right");
    for x in [24, 40] {
        let p = img.at(x, 16);
        assert!(p[0] > 30 && p[0] < 225 && p[1] > 30 && p[1] < 225, "a filtered linearly at x {x}: {p:?}");
    }
    img.assert_rect([64, 0, 96, 32], [0, 255, 0, 255], 0, "b");
    img.assert_rect([96, 0, 128, 32], [0, 0, 255, 255], 0, "c");
    // SAFETY: the test's own objects.
    unsafe {
        gl.bind_sampler(0, None);
        gl.delete_sampler(host_sampler);
        gl.delete_texture(host_tex);
        gl.delete_buffer(host_buf);
        gl.delete_buffer(host_pbo);
        gl.delete_buffer(host_ebo);
        gl.bind_vertex_array(None);
        gl.delete_vertex_array(host_vao);
    }
    rig.finish();
}
both_flavors!(state_restored);

// Mipmaps are selected from the UV gradients, also inside the slot branch of a tier-2
// program: a black/white checkerboard minified 4x shows its level-2 grey (core's box filter
// makes every level below 0 a flat 128), drawn 1:1 it shows the checkerboard.
fn mipmaps_selected(ctx: &Ctx) {
    let mut rig = Rig::new(ctx, Config::default());
    let checker: Vec<u8> =
        (0..16 * 16).flat_map(|i| if (i % 16 + i / 16) % 2 == 0 { [0, 0, 0, 255] } else { [255; 4] }).collect();
    // Nearest: at level 0 a minified pixel would pick one black or white texel.
    let desc = TextureDesc::new(16, 16).with_mip_levels(5).with_filter(Filter::Nearest);
    let t = rig.batcher.textures().register(&desc, &checker).unwrap();
    let other = rig.register(TextureDesc::new(8, 8), [0, 0, 255, 255]);
    let quads = [
        Quad::rect(other, [200.0, 200.0], [8.0, 8.0]), // a second array: the segment needs tier 2
        Quad::rect(t, [0.0, 0.0], [16.0, 16.0]),
        Quad::rect(t, [32.0, 0.0], [4.0, 4.0]),
    ];
    let img = rig.frame(&quads);
    assert_eq!(rig.plan().segments.len(), 1);
    assert_eq!(rig.plan().segments[0].tier, 2);
    for y in 0..16 {
        for x in 0..16 {
            let want = if (x + y) % 2 == 0 { [0, 0, 0, 255] } else { [255; 4] };
            assert_eq!(img.at(x, y), want, "level 0 at ({x}, {y})");
        }
    }
    img.assert_rect([32, 0, 36, 4], [128, 128, 128, 255], 2, "minified 4x: level 2");
    rig.finish();
}
both_flavors!(mipmaps_selected);

// A zero-sized viewport (e.g. a minimised window) still applies the plan's resource ops and
// draws nothing; the next frame draws the textures registered meanwhile.
fn zero_viewport(ctx: &Ctx) {
    let mut rig = Rig::new(ctx, Config::default());
    let t = rig.register(TextureDesc::new(8, 8), [10, 200, 30, 255]);
    rig.batcher.begin_frame();
    rig.batcher.push(&Quad::rect(t, [0.0, 0.0], [16.0, 16.0])).unwrap();
    let plan = rig.batcher.finish();
    rig.renderer.as_mut().unwrap().paint(plan, &Target::framebuffer(rig.target.fbo, [0, 240])).unwrap();
    let stats = rig.stats();
    assert_eq!(stats.device_frame.draw_calls, 0);
    assert_eq!(stats.device_frame.texture_bytes_written, 8 * 8 * 4);
    assert_eq!(stats.device_frame.arrays_created, 1);
    let img = rig.frame(&[Quad::rect(t, [0.0, 0.0], [16.0, 16.0])]);
    img.assert_rect([0, 0, 16, 16], [10, 200, 30, 255], 0, "drawn the frame after");
    assert_eq!(rig.stats().device_frame.texture_bytes_written, 0);
    rig.finish();
}
both_flavors!(zero_viewport);

// 10. A write at an offset in the layer lands there.
fn offset_write(ctx: &Ctx) {
    let mut batcher = Batcher::new(Renderer::query_limits(&ctx.gl), Config::default()).unwrap();
    let id = batcher.textures().register(&TextureDesc::new(1, 1), &[0; 4]).unwrap(); // only names the writes
    let mut renderer = Renderer::new(ctx.gl.clone(), batcher.budget()).unwrap();
    let target = Offscreen::new(&ctx.gl, W, H, CLEAR);
    renderer.paint(&plans::offset_write(id, batcher.budget()), &Target::framebuffer(target.fbo, [W, H])).unwrap();
    check_offset_write(&target.read(&ctx.gl));
    renderer.destroy();
    target.delete(&ctx.gl);
}
both_flavors!(offset_write);

/// The pixels of `plans::offset_write`: green where the offset write landed, red around it.
fn check_offset_write(img: &Image) {
    img.assert_rect([16, 8, 24, 16], [0, 255, 0, 255], 0, "the offset write");
    for (x, y) in [(0, 0), (15, 8), (24, 8), (16, 7), (16, 16), (31, 31)] {
        assert_eq!(img.at(x, y), [255, 0, 0, 255], "outside the offset write at ({x}, {y})");
    }
}

// Every bad plan of `plans::bad_plans` is refused with exactly the validator's error, before
// any GL call; a refused plan changes nothing, so the good plan then paints on the same
// renderer.
fn bad_plans_give_the_validator_errors(ctx: &Ctx) {
    use glow::HasContext;
    let mut batcher = Batcher::new(Renderer::query_limits(&ctx.gl), Config::default()).unwrap();
    let id = batcher.textures().register(&TextureDesc::new(1, 1), &[0; 4]).unwrap(); // only names the writes
    let mut renderer = Renderer::new(ctx.gl.clone(), batcher.budget()).unwrap();
    let target = Offscreen::new(&ctx.gl, W, H, CLEAR);
    let into = Target::framebuffer(target.fbo, [W, H]);
    let bad = plans::bad_plans(id, batcher.budget());
    assert!(bad.len() >= 10);
    for (name, plan, want) in &bad {
        match renderer.paint(plan, &into) {
            Err(Error::Plan(got)) => assert_eq!(&got, want, "{name}"),
            other => panic!("{name}: expected Err(Error::Plan({want:?})), got {other:?}"),
        }
        assert_eq!(renderer.array_count(), 0, "{name}: nothing was created");
        assert_eq!(renderer.stats().device_total.frames, 0, "{name}: nothing was painted");
        // SAFETY: a plain error query.
        assert_eq!(unsafe { ctx.gl.get_error() }, glow::NO_ERROR, "{name}");
    }
    renderer.paint(&plans::offset_write(id, batcher.budget()), &into).expect("the good plan after the bad ones");
    check_offset_write(&target.read(&ctx.gl));
    assert_eq!(renderer.array_count(), 1);
    renderer.destroy();
    target.delete(&ctx.gl);
}
both_flavors!(bad_plans_give_the_validator_errors);

// A GL error after a resource op is an error naming the op, not Ok with black quads. The
// batcher is told the device takes 1M-pixel textures; the driver (llvmpipe: 16384) cannot
// create the array. The documented way back: free the texture, `restore`, re-upload the ids
// it lists, paint.
fn gl_out_of_memory_is_an_error(ctx: &Ctx) {
    use glow::HasContext;
    let limits = Renderer::query_limits(&ctx.gl);
    let width = (limits.max_texture_size_px + 1).max(20000);
    let inflated = limits.with_max_texture_size_px(1 << 20);
    let mut rig = Rig::build(ctx, inflated, Config::default(), None);
    let red = [230, 30, 30, 255];
    let small = rig.register(TextureDesc::new(8, 8), red);
    // Wider than the class limit: an array of its own, destroyed when it is freed.
    let huge = rig.register(TextureDesc::new(width, 1), [30, 230, 30, 255]);
    let huge_array = rig.batcher.placement(huge).unwrap().array;
    rig.batcher.begin_frame();
    rig.batcher.push(&Quad::rect(small, [0.0, 0.0], [32.0, 32.0])).unwrap();
    rig.batcher.push(&Quad::rect(huge, [0.0, 40.0], [256.0, 8.0])).unwrap();
    let plan = rig.batcher.finish();
    let target = Target::framebuffer(rig.target.fbo, [W, H]);
    match rig.renderer.as_mut().unwrap().paint(plan, &target) {
        Err(Error::Device { op, message }) => {
            println!("the expected error: {}", Error::Device { op: op.clone(), message: message.clone() });
            assert!(op.contains(&format!("create array {}", huge_array.0)), "names the op: {op}");
            assert!(op.contains(&format!("{width}x1")), "names the size: {op}");
            assert!(message.starts_with("GL error 0x") && message.contains("GL_"), "names the GL error: {message}");
        }
        other => panic!("expected Err(Error::Device), got {other:?}"),
    }
    // The error was consumed; the renderer holds nothing and wants a rebuild plan.
    // SAFETY: a plain error query.
    assert_eq!(unsafe { ctx.gl.get_error() }, glow::NO_ERROR);
    assert_eq!(rig.renderer().array_count(), 0);

    rig.batcher.textures().free(huge).unwrap();
    let ids = rig.batcher.restore();
    assert_eq!(ids, [small], "the texture whose pixels the device lost");
    for id in ids {
        rig.batcher.textures().update(id, &solid(8, 8, red)).unwrap();
    }
    let img = rig.frame(&[Quad::rect(small, [0.0, 0.0], [32.0, 32.0])]);
    assert!(rig.plan().rebuild);
    img.assert_rect([0, 0, 32, 32], red, 0, "after restore");
    img.assert_rect([0, 32, W, H], [0, 0, 0, 255], 0, "nothing else drawn");
    rig.finish();
}
both_flavors!(gl_out_of_memory_is_an_error);

// A plan that is finished but never painted leaves a gap: the next plan is refused with
// `PlanError::Sequence`, and so is a plan painted before. `restore`, re-uploading what it
// lists, brings every texture back, the one registered in the skipped plan included.
fn skipped_plan_recovers(ctx: &Ctx) {
    let mut rig = Rig::new(ctx, Config::default());
    let colors = distinct_colors(4);
    let mut textures: Vec<(TextureId, TextureDesc, [u8; 4])> = Vec::new();
    for &c in &colors[..3] {
        let desc = TextureDesc::new(16, 16);
        textures.push((rig.register(desc, c), desc, c));
    }
    let quads = |textures: &[(TextureId, TextureDesc, [u8; 4])]| {
        let ids: Vec<TextureId> = textures.iter().map(|t| t.0).collect();
        grid(&ids, 0..ids.len(), 32, 32.0)
    };
    let check = |img: &Image, textures: &[(TextureId, TextureDesc, [u8; 4])], when: &str| {
        for (i, &(_, _, c)) in textures.iter().enumerate() {
            let (x, y) = cell(i as u32, 32);
            img.assert_rect([x, y, x + 32, y + 32], c, 0, &format!("{when}: texture {i}"));
        }
    };
    let img = rig.frame(&quads(&textures));
    check(&img, &textures, "plan 1");
    let painted = rig.plan().clone();
    assert_eq!(painted.sequence, 1);

    // Plan 2 registers a texture of another size (a new array and its write), and is skipped.
    let desc = TextureDesc::new(8, 24);
    textures.push((rig.register(desc, colors[3]), desc, colors[3]));
    rig.batcher.begin_frame();
    for q in quads(&textures) {
        rig.batcher.push(&q).unwrap();
    }
    let skipped = rig.batcher.finish();
    assert_eq!(skipped.sequence, 2);
    assert!(!skipped.ops.is_empty(), "the skipped plan creates and writes");

    rig.batcher.begin_frame();
    for q in quads(&textures) {
        rig.batcher.push(&q).unwrap();
    }
    let plan = rig.batcher.finish();
    let target = Target::framebuffer(rig.target.fbo, [W, H]);
    let renderer = rig.renderer.as_mut().unwrap();
    assert_eq!(renderer.paint(plan, &target), Err(Error::Plan(PlanError::Sequence { expected: 2, got: 3 })));
    assert_eq!(renderer.paint(&painted, &target), Err(Error::Plan(PlanError::Sequence { expected: 2, got: 1 })));
    assert_eq!(renderer.stats().device_total.frames, 1, "refused plans paint nothing");

    let ids = rig.batcher.restore();
    let mut listed = ids.clone();
    let mut all: Vec<TextureId> = textures.iter().map(|t| t.0).collect();
    listed.sort();
    all.sort();
    assert_eq!(listed, all, "every texture's pixels are gone from the device");
    for id in ids {
        let &(_, desc, c) = textures.iter().find(|t| t.0 == id).unwrap();
        rig.batcher.textures().update(id, &solid(desc.width_px, desc.height_px, c)).unwrap();
    }
    let img = rig.frame(&quads(&textures));
    assert!(rig.plan().rebuild);
    check(&img, &textures, "after restore");
    let arrays: std::collections::HashSet<_> =
        textures.iter().map(|t| rig.batcher.placement(t.0).unwrap().array).collect();
    assert_eq!(rig.renderer().array_count(), arrays.len());
    rig.finish();
}
both_flavors!(skipped_plan_recovers);

// The host's scissor: honoured with `keep_host_clip`, ignored without, restored either way,
// and never applied to the layer copies that run before the draws.
/// `SCISSOR_TEST` and `SCISSOR_BOX` as the context has them.
fn scissor_state(gl: &glow::Context) -> (bool, [i32; 4]) {
    use glow::HasContext as _;
    // SAFETY: state queries on the current context.
    unsafe {
        let mut b = [0i32; 4];
        gl.get_parameter_i32_slice(glow::SCISSOR_BOX, &mut b);
        (gl.is_enabled(glow::SCISSOR_TEST), b)
    }
}

fn host_scissor(ctx: &Ctx) {
    use glow::HasContext as _;
    let mut rig = Rig::new(ctx, Config::default().with_max_packed_size_px(0).with_initial_layers(2));
    let red = rig.register(TextureDesc::new(8, 8), [255, 0, 0, 255]);
    // A first plan brings red's array to the device: the registrations below then grow it
    // by a layer copy.
    let img = rig.frame(&[Quad::rect(red, [0.0, 0.0], [W as f32, H as f32])]);
    img.assert_rect([0, 0, W, H], [255, 0, 0, 255], 0, "red, before the growths");
    // Scissor box in GL window coordinates (y up): x 40..120, rows H-100..H-40, which is
    // y 40..100 in the readback (y down).
    let (sx, sy, sw, sh) = (40, H as i32 - 100, 80, 60);
    for keep in [true, false] {
        rig.target.clear(&ctx.gl, CLEAR);
        // SAFETY: plain state calls on the current context.
        unsafe {
            ctx.gl.enable(glow::SCISSOR_TEST);
            ctx.gl.scissor(sx, sy, sw, sh);
        }
        // Three more textures of the class: the array grows (a layer copy) in this very paint.
        let more: Vec<_> = (0..3).map(|i| rig.register(TextureDesc::new(8, 8), [0, 60 * i as u8, 255, 255])).collect();
        rig.batcher.begin_frame();
        rig.batcher.push(&Quad::rect(red, [0.0, 0.0], [W as f32, H as f32])).unwrap();
        for (i, &t) in more.iter().enumerate() {
            rig.batcher.push(&Quad::rect(t, [150.0 + 20.0 * i as f32, 150.0], [10.0, 10.0])).unwrap();
        }
        let plan = rig.batcher.finish();
        if keep {
            assert!(plan.counters.array_growths > 0, "the paint copies layers");
        }
        let target = Target::framebuffer(rig.target.fbo, [W, H]).with_host_clip(keep);
        rig.renderer.as_mut().unwrap().paint(plan, &target).unwrap();
        let (on, boxed) = scissor_state(&ctx.gl);
        assert!(on, "keep {keep}: SCISSOR_TEST restored");
        assert_eq!(boxed, [sx, sy, sw, sh], "keep {keep}: scissor box untouched");
        // SAFETY: the readback below must not be clipped.
        unsafe { ctx.gl.disable(glow::SCISSOR_TEST) };
        let img = rig.target.read(&ctx.gl);
        for y in 0..H {
            for x in 0..W {
                let inside = (40..120).contains(&x) && (40..100).contains(&y);
                let px = img.at(x, y);
                if keep && !inside {
                    assert_eq!(px, [0, 0, 0, 255], "keep: ({x}, {y}) outside the host's scissor was drawn");
                } else if !(150..210).contains(&x) || !(150..160).contains(&y) {
                    // Drawn (inside the box, or everywhere without keep_host_clip), outside
                    // the small quads.
                    assert_eq!(px, [255, 0, 0, 255], "keep {keep}: ({x}, {y}) not drawn");
                }
            }
        }
        // The grown array's old layers survived the copy: the red texture still samples red
        // (checked above inside the box); the new textures drew where the box allows.
        if !keep {
            assert_eq!(img.at(175, 155), [0, 60, 255, 255], "a texture admitted by the growth");
        }
    }
    rig.finish();
}
both_flavors!(host_scissor);

/// Paints one frame built by `build` over a target cleared to `clear`; returns the image and
/// the number of draws the renderer issued.
fn state_frame(rig: &mut Rig<'_>, clear: [f32; 4], build: impl FnOnce(&mut Batcher)) -> (Image, u64) {
    rig.target.clear(&rig.ctx.gl, clear);
    rig.batcher.begin_frame();
    build(&mut rig.batcher);
    let plan = rig.batcher.finish();
    let target = Target::framebuffer(rig.target.fbo, [W, H]);
    let renderer = rig.renderer.as_mut().expect("live renderer");
    renderer.paint(plan, &target).expect("paint");
    let draws = renderer.stats().device_frame.draw_calls;
    (rig.target.read(&rig.ctx.gl), draws)
}

/// Every blend mode against its formula, on premultiplied colours; a mode change costs one
/// draw and the default mode is back after it.
fn blend_modes(ctx: &Ctx) {
    use layerbatch_core::BlendMode;
    let mut rig = Rig::new(ctx, Config::default());
    let white = rig.batcher.textures().white().unwrap();
    let dst = [100u8, 200, 50, 255];
    let src = [128u8, 64, 0, 128]; // straight (255, 128, 0) at half alpha, premultiplied
    let f = |v: u8| f32::from(v) / 255.0;
    let want = |mode: BlendMode| layerbatch_testkit::blend::blend(mode, src, dst);
    for mode in BlendMode::ALL {
        let (img, draws) = state_frame(&mut rig, dst.map(f), |b| {
            b.push(&Quad::solid(white, [0.0, 0.0], [64.0, 64.0], src)).unwrap();
            b.state().set_blend(mode);
            b.push(&Quad::solid(white, [64.0, 0.0], [64.0, 64.0], src)).unwrap();
            b.state().set_blend(BlendMode::Over);
            b.push(&Quad::solid(white, [128.0, 0.0], [64.0, 64.0], src)).unwrap();
        });
        // Additive shares the "over" draw (alpha 0 under "over"); the others cost a draw.
        let changes = if matches!(mode, BlendMode::Over | BlendMode::Additive) { 1 } else { 3 };
        assert_eq!(draws, changes, "{mode:?}: a draw per blend run");
        img.assert_rect([0, 0, 64, 64], want(BlendMode::Over), 2, "over before");
        img.assert_rect([64, 0, 128, 64], want(mode), 2, &format!("{mode:?}"));
        img.assert_rect([128, 0, 192, 64], want(BlendMode::Over), 2, "over after");
        img.assert_rect([0, 64, W, H], dst, 0, "untouched");
    }
    rig.finish();
}
both_flavors!(blend_modes);

/// Clip rectangles in target pixels (y down): inside drawn, outside untouched; a clip partly
/// or wholly outside the target, or empty, neither panics nor draws outside; the host's clip,
/// when kept, intersects; the host's scissor state is back after the paint.
fn clip_rects(ctx: &Ctx) {
    use glow::HasContext as _;
    let mut rig = Rig::new(ctx, Config::default());
    let white = rig.batcher.textures().white().unwrap();
    let red = [255, 0, 0, 255];
    let black = [0, 0, 0, 255];
    let full = |b: &mut Batcher| b.push(&Quad::solid(white, [0.0, 0.0], [W as f32, H as f32], red)).unwrap();
    for (clip, inside) in [
        ([40, 30, 50, 20], [40, 30, 90, 50]),
        ([200, 220, 100, 100], [200, 220, W, H]),
        ([300, 0, 10, 10], [0, 0, 0, 0]),
        ([0, 300, 10, 10], [0, 0, 0, 0]),
        ([10, 10, 0, 5], [0, 0, 0, 0]),
        ([u32::MAX, u32::MAX, u32::MAX, u32::MAX], [0, 0, 0, 0]),
    ] {
        let (img, _) = state_frame(&mut rig, CLEAR, |b| {
            b.state().set_clip(Some(clip));
            full(b);
            b.state().set_clip(None);
            b.push(&Quad::solid(white, [0.0, 250.0], [6.0, 6.0], [0, 0, 255, 255])).unwrap();
        });
        for (x, y, px) in img.pixels() {
            let [x0, y0, x1, y1] = inside;
            let want = if (x0..x1).contains(&x) && (y0..y1).contains(&y) {
                red
            } else if x < 6 && y >= 250 {
                [0, 0, 255, 255] // the unclipped quad after the clipped one
            } else {
                black
            };
            assert_eq!(px, want, "clip {clip:?}: ({x}, {y})");
        }
    }
    // The host's scissor, kept: the segment's clip is intersected with it, and the box and
    // test are the host's again after the paint.
    let (sx, sy, sw, sh) = (0, H as i32 - 100, 100, 100); // y 0..100 in the readback
    for keep in [true, false] {
        rig.target.clear(&ctx.gl, CLEAR);
        // SAFETY: plain state calls on the current context.
        unsafe {
            ctx.gl.enable(glow::SCISSOR_TEST);
            ctx.gl.scissor(sx, sy, sw, sh);
        }
        rig.batcher.begin_frame();
        rig.batcher.state().set_clip(Some([50, 50, 100, 100]));
        full(&mut rig.batcher);
        rig.batcher.state().set_clip(None);
        rig.batcher.push(&Quad::solid(white, [200.0, 0.0], [10.0, 10.0], red)).unwrap();
        let plan = rig.batcher.finish();
        let target = Target::framebuffer(rig.target.fbo, [W, H]).with_host_clip(keep);
        rig.renderer.as_mut().unwrap().paint(plan, &target).unwrap();
        let (on, boxed) = scissor_state(&ctx.gl);
        assert!(on, "keep {keep}: SCISSOR_TEST restored");
        assert_eq!(boxed, [sx, sy, sw, sh], "keep {keep}: scissor box restored");
        // SAFETY: the readback below must not be clipped.
        unsafe { ctx.gl.disable(glow::SCISSOR_TEST) };
        let img = rig.target.read(&ctx.gl);
        let clipped = if keep { [50, 50, 100, 100] } else { [50, 50, 150, 150] };
        img.assert_rect(clipped, red, 0, &format!("keep {keep}: inside both clips"));
        assert_eq!(img.at(120, 120), if keep { black } else { red }, "keep {keep}: outside the host's box");
        assert_eq!(img.at(40, 40), black, "keep {keep}: outside the segment's clip");
        // The unclipped quad at (200, 0) lies outside the host's box (x < 100).
        assert_eq!(img.at(205, 5), if keep { black } else { red }, "keep {keep}: unclipped segment");
    }
    rig.finish();
}
both_flavors!(clip_rects);

/// A transform moves, scales and rotates quad corners; it lasts until changed and does not
/// leak into the next segment or frame.
fn transforms(ctx: &Ctx) {
    let mut rig = Rig::new(ctx, Config::default());
    let white = rig.batcher.textures().white().unwrap();
    let c = [0, 255, 0, 255];
    let (img, draws) = state_frame(&mut rig, CLEAR, |b| {
        b.state().set_transform([2.0, 0.0, 0.0, 2.0, 10.0, 20.0]); // zoom 2, then pan (10, 20)
        b.push(&Quad::solid(white, [0.0, 0.0], [10.0, 10.0], c)).unwrap();
        b.state().set_transform([0.0, 1.0, -1.0, 0.0, 200.0, 100.0]); // a quarter turn about (200, 100)
        b.push(&Quad::solid(white, [0.0, 0.0], [20.0, 10.0], c)).unwrap();
        b.state().set_transform(layerbatch_core::plan::DrawState::IDENTITY);
        b.push(&Quad::solid(white, [100.0, 200.0], [8.0, 8.0], c)).unwrap();
    });
    assert_eq!(draws, 3);
    let mut want = Image::filled(W, H, [0, 0, 0, 255]);
    want.fill([10, 20, 30, 40], c);
    want.fill([190, 100, 200, 120], c);
    want.fill([100, 200, 108, 208], c);
    for (x, y, px) in img.pixels() {
        assert_eq!(px, want.at(x, y), "({x}, {y})");
    }
    // The next frame starts from the identity.
    let (img, _) = state_frame(&mut rig, CLEAR, |b| {
        b.push(&Quad::solid(white, [0.0, 0.0], [4.0, 4.0], c)).unwrap();
    });
    img.assert_rect([0, 0, 4, 4], c, 0, "identity again");
    img.assert_rect([4, 4, W, H], [0, 0, 0, 255], 0, "nothing else");
    rig.finish();
}
both_flavors!(transforms);

/// Drawing into a render target with a clear, while the host has its framebuffer bound, its
/// own viewport, clear colour and scissor set, and asks for its clip kept: all of that comes
/// back, and the host's scissor does not clip the target (it is the host framebuffer's).
fn render_target_restores_host_state(ctx: &Ctx) {
    use glow::HasContext as _;
    let gl = &*ctx.gl;
    let mut rig = Rig::new(ctx, Config::default());
    let white = rig.batcher.textures().white().unwrap();
    let rt = rig
        .batcher
        .textures()
        .register(&TextureDesc::new(32, 32).with_usage(layerbatch_core::Usage::RenderTarget), &[])
        .unwrap();
    let clear_value = [0.25f32, 0.5, 0.75, 1.0];
    // SAFETY: host-side state on the current context.
    unsafe {
        gl.bind_framebuffer(glow::FRAMEBUFFER, Some(rig.target.fbo));
        gl.viewport(3, 4, 50, 60);
        gl.clear_color(clear_value[0], clear_value[1], clear_value[2], clear_value[3]);
        gl.enable(glow::SCISSOR_TEST);
        gl.scissor(1, 2, 3, 4);
    }
    rig.batcher.begin_frame_into(rt, Some([0.0, 1.0, 0.0, 1.0])).unwrap();
    rig.batcher.push(&Quad::solid(white, [0.0, 0.0], [16.0, 32.0], [255, 0, 0, 255])).unwrap();
    let plan = rig.batcher.finish();
    rig.renderer.as_mut().unwrap().paint(plan, &Target::bound([W, H]).with_host_clip(true)).unwrap();
    // SAFETY: state queries on the current context.
    unsafe {
        let fb = gl.get_parameter_framebuffer(glow::DRAW_FRAMEBUFFER_BINDING);
        assert_eq!(fb, Some(rig.target.fbo), "the host's framebuffer is bound again");
        let mut v = [0i32; 4];
        gl.get_parameter_i32_slice(glow::VIEWPORT, &mut v);
        assert_eq!(v, [3, 4, 50, 60], "the host's viewport");
        let mut c = [0f32; 4];
        gl.get_parameter_f32_slice(glow::COLOR_CLEAR_VALUE, &mut c);
        assert_eq!(c, clear_value, "the host's clear colour");
        gl.get_parameter_i32_slice(glow::SCISSOR_BOX, &mut v);
        assert!(gl.is_enabled(glow::SCISSOR_TEST) && v == [1, 2, 3, 4], "the host's scissor: {v:?}");
        assert_eq!(gl.get_error(), glow::NO_ERROR);
        gl.disable(glow::SCISSOR_TEST);
    }
    let img = rig.frame(&[Quad::rect(rt, [0.0, 0.0], [32.0, 32.0])]);
    img.assert_rect([0, 0, 16, 32], [255, 0, 0, 255], 0, "the target's left half, not clipped by the host's box");
    img.assert_rect([16, 0, 32, 32], [0, 255, 0, 255], 0, "the target's clear colour");
    rig.finish();
}
both_flavors!(render_target_restores_host_state);

/// An sRGB render target encodes what is drawn into it (GLES always does; desktop GL only
/// with `FRAMEBUFFER_SRGB`, which the renderer turns on for the paint and back off): linear
/// 0.5 is stored as 188, and sampling decodes it back to 0.5 (128).
fn srgb_render_target_round_trips(ctx: &Ctx) {
    use glow::HasContext as _;
    let mut rig = Rig::new(ctx, Config::default());
    let white = rig.batcher.textures().white().unwrap();
    let desc =
        TextureDesc::new(16, 16).with_format(Format::Rgba8UnormSrgb).with_usage(layerbatch_core::Usage::RenderTarget);
    let rt = rig.batcher.textures().register(&desc, &[]).unwrap();
    rig.batcher.begin_frame_into(rt, Some([0.0, 0.0, 0.0, 1.0])).unwrap();
    rig.batcher.push(&Quad::solid(white, [0.0, 0.0], [16.0, 16.0], [128, 128, 128, 255])).unwrap();
    let plan = rig.batcher.finish();
    rig.renderer.as_mut().unwrap().paint(plan, &Target::bound([W, H])).unwrap();
    if ctx.flavor == common::Flavor::Gl33 {
        // SAFETY: a capability query on the current context.
        let on = unsafe { ctx.gl.is_enabled(glow::FRAMEBUFFER_SRGB) };
        assert!(!on, "FRAMEBUFFER_SRGB back off");
    }
    let img = rig.frame(&[Quad::rect(rt, [0.0, 0.0], [16.0, 16.0])]);
    img.assert_rect([0, 0, 16, 16], [128, 128, 128, 255], 1, "linear 0.5 through an sRGB target");
    rig.finish();
}
both_flavors!(srgb_render_target_round_trips);

/// Quads are indexed `u32`s: a block of `instance_capacity` quads stays within the vertices
/// the context can index (`MAX_ELEMENT_INDEX` on GLES, at least 2^24 - 1) and within glow's
/// `i32` buffer sizes, and the budget derived from the queried limits respects both.
fn index_range_fits_the_context(ctx: &Ctx) {
    use glow::HasContext as _;
    let gl = &ctx.gl;
    let limits = Renderer::query_limits(gl);
    assert!(limits.max_buffer_bytes <= i32::MAX as u64, "{limits:?}");
    let budget = layerbatch_core::Batcher::new(
        limits,
        layerbatch_core::Config::default()
            .with_instance_capacity(u32::MAX)
            .with_quad_vertices(layerbatch_core::QuadVertices::Indexed),
    )
    .expect("budget")
    .budget()
    .clone();
    let last_vertex = u64::from(budget.instance_capacity) * u64::from(Instance::VERTICES) - 1;
    assert!(budget.indexed_quads);
    assert!(u64::from(budget.instance_capacity) * u64::from(Instance::QUAD_BYTES) <= limits.max_buffer_bytes);
    if ctx.flavor == common::Flavor::Gles30 {
        // SAFETY: an integer query on the current context.
        let max_index = unsafe { gl.get_parameter_i32(glow::MAX_ELEMENT_INDEX) };
        let max_index = if max_index < 0 { u64::from(u32::MAX) } else { max_index as u64 };
        assert!(last_vertex <= max_index, "last vertex {last_vertex} past MAX_ELEMENT_INDEX {max_index}");
    }
    // SAFETY: an error query.
    assert_eq!(unsafe { gl.get_error() }, glow::NO_ERROR, "querying the limits left no GL error");
}
both_flavors!(index_range_fits_the_context);
