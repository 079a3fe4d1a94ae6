//! Pixel-readback scenes, each on wgpu's Vulkan backend (lavapipe) and its GL backend
//! (llvmpipe): `vulkan::<scene>` and `gl::<scene>`.

use crate::common;
// Hand-made plans, shared with the GL backend's tests.
use layerbatch_testkit::plans;

use common::{color, draw, setup, solid, Gpu, CLEAR, SIZE};
use layerbatch_core::plan::ResourceOp;
use layerbatch_core::{mip_size, Config, Filter, MockDevice, Quad, QuadError, TextureDesc, TextureId, Usage, Wrap};

on_both_backends!(
    forty_solid_textures_one_draw,
    padding_poison_never_shows,
    ten_unbucketable_textures_on_four_slots,
    growth_mid_session_keeps_pixels,
    free_and_reuse,
    translucent_overlap_in_submission_order,
    two_hundred_textures_pipelines_fixed,
    wrap_modes_and_nearest_mips,
    nearest_picks_exactly_the_nearest_level,
    bad_plan_is_an_error,
    budget_beyond_device_is_an_error,
    edited_budget_is_an_error,
    one_slot_change_one_bind_group,
    offset_write,
);

#[test]
fn renderer_is_send_and_sync() {
    // Hosts such as egui-wgpu keep renderers in `Send + Sync` resource maps.
    fn check<T: Send + Sync>() {}
    check::<layerbatch_wgpu::Renderer>();
    check::<layerbatch_wgpu::PreparedPlan>();
}

/// 40 textures of one size, interleaved: one draw call, no cache reset, every cell its own
/// colour. The first 8 are drawn in a plan of their own (their array is then on the device);
/// registering the other 32 grows it by a GPU copy, so the layer writes after the growth go
/// through the staged path.
fn forty_solid_textures_one_draw(gpu: &Gpu) {
    let (mut b, mut r) = setup(gpu, Config::default());
    let register = |b: &mut layerbatch_core::Batcher, i: usize| {
        b.textures().register(&TextureDesc::new(16, 16), &solid(16, 16, color(i))).unwrap()
    };
    let mut ids: Vec<TextureId> = (0..8).map(|i| register(&mut b, i)).collect();
    b.begin_frame();
    for (i, &id) in ids.iter().enumerate() {
        b.push(&Quad::rect(id, [i as f32 * 32.0 + 4.0, 4.0], [24.0, 24.0])).unwrap();
    }
    let frame = draw(gpu, &mut r, b.finish());
    for i in 0..8u32 {
        frame.expect(i * 32 + 16, 16, color(i as usize), 1, &format!("the first plan: texture {i}"));
    }
    ids.extend((8..40).map(|i| register(&mut b, i)));
    b.begin_frame();
    for (i, &id) in ids.iter().enumerate() {
        let (x, y) = ((i % 8) as f32 * 32.0, (i / 8) as f32 * 32.0);
        b.push(&Quad::rect(id, [x + 4.0, y + 4.0], [24.0, 24.0])).unwrap();
    }
    let plan = b.finish();
    assert_eq!(plan.segments.len(), 1);
    assert_eq!(plan.counters.cache_resets, 0);
    let frame = draw(gpu, &mut r, plan);
    for i in 0..40u32 {
        let (x, y) = ((i % 8) * 32, (i / 8) * 32);
        for (dx, dy) in [(16, 16), (5, 5), (27, 27), (5, 27)] {
            frame.expect(x + dx, y + dy, color(i as usize), 1, &format!("texture {i}"));
        }
        frame.expect(x + 2, y + 2, CLEAR, 0, "gap between cells");
    }
    let s = r.stats();
    assert_eq!(s.device_frame.draw_calls, 1);
    assert_eq!(s.core_frame.draw_calls, 1);
    assert_eq!(s.core_frame.cache_resets, 0);
    assert_eq!(s.device_frame.arrays_created, s.core_frame.arrays_created);
    assert!(s.core_frame.array_growths >= 1, "32 more textures grow the array the first plan created");
    assert!(s.device_frame.layers_copied >= 1, "the growth is a GPU copy");
}

/// A 64x64 poison texture is freed and a 40x40 texture padded to 64x64 takes its layer: the
/// poison stays in the padding. Drawn scaled up, rotated and minified, with linear and with
/// nearest filtering, no pixel ever shows it.
fn padding_poison_never_shows(gpu: &Gpu) {
    const POISON: [u8; 4] = [255, 0, 255, 255];
    const GREEN: [u8; 4] = [0, 255, 0, 255];
    const BLUE: [u8; 4] = [0, 0, 255, 255];
    let (mut b, mut r) = setup(gpu, Config::default().with_max_padding_waste(0.75));
    let lin = TextureDesc::new(64, 64);
    let near = TextureDesc::new(64, 64).with_filter(Filter::Nearest);
    let p_lin = b.textures().register(&lin, &solid(64, 64, POISON)).unwrap();
    let p_near = b.textures().register(&near, &solid(64, 64, POISON)).unwrap();
    let (pl_lin, pl_near) = (b.placement(p_lin).unwrap(), b.placement(p_near).unwrap());
    b.textures().free(p_lin).unwrap();
    b.textures().free(p_near).unwrap();
    let green = b.textures().register(&TextureDesc::new(40, 40), &solid(40, 40, GREEN)).unwrap();
    let blue =
        b.textures().register(&TextureDesc::new(40, 40).with_filter(Filter::Nearest), &solid(40, 40, BLUE)).unwrap();
    let (g, bl) = (b.placement(green).unwrap(), b.placement(blue).unwrap());
    assert_eq!((g.array, g.layer), (pl_lin.array, pl_lin.layer), "green reuses the poisoned layer");
    assert_eq!((bl.array, bl.layer), (pl_near.array, pl_near.layer), "blue reuses the poisoned layer");
    assert_eq!(g.uv_rect, [0.0, 0.0, 40.0 / 64.0, 40.0 / 64.0], "padded to the 64x64 class");

    b.begin_frame();
    let quads = [
        Quad::rect(green, [8.0, 8.0], [120.0, 120.0]),
        Quad::rect(blue, [136.0, 8.0], [112.0, 112.0]),
        Quad::rotated(green, [60.0, 190.0], [70.0, 50.0], 0.5),
        Quad::rotated(blue, [150.0, 190.0], [70.0, 50.0], -0.7),
        Quad::rect(green, [210.0, 150.0], [9.0, 9.0]),
        Quad::rect(blue, [210.0, 200.0], [13.0, 7.0]),
        // Sub-rectangle touching the padded edge.
        Quad::rect(green, [225.0, 225.0], [30.0, 30.0]).with_uv([0.5, 0.5, 1.0, 1.0]),
    ];
    for q in &quads {
        b.push(q).unwrap();
    }
    let plan = b.finish();
    let frame = draw(gpu, &mut r, plan);
    for y in 0..SIZE {
        for x in 0..SIZE {
            let p = frame.px(x, y);
            assert_eq!(p[0], 0, "poison (red) at ({x}, {y}): {p:?}");
            assert!(p == GREEN || p == BLUE || p == CLEAR, "unexpected colour at ({x}, {y}): {p:?}");
        }
    }
    // Every covered pixel of the big quads, edges included, shows the texture.
    for i in 0..120 {
        frame.expect(8 + i, 8, GREEN, 0, "green top edge");
        frame.expect(127, 8 + i, GREEN, 0, "green right edge");
        frame.expect(8 + i, 127, GREEN, 0, "green bottom edge");
    }
    for i in 0..112 {
        frame.expect(247, 8 + i, BLUE, 0, "blue right edge");
        frame.expect(136 + i, 119, BLUE, 0, "blue bottom edge");
    }
    frame.expect(254, 254, GREEN, 0, "sub-rectangle corner");
    frame.expect(214, 154, GREEN, 0, "minified green");
}

/// Ten textures of ten sizes with padding off: ten arrays, only four slots. Interleaved, they
/// flush for slots; the device issues exactly the planned draws, and every cell is right.
fn ten_unbucketable_textures_on_four_slots(gpu: &Gpu) {
    // Size classes, not atlas pages (which would share one array).
    let config = Config::default().with_max_slots(4).with_max_padding_waste(0.0).with_max_packed_size_px(0);
    let (mut b, mut r) = setup(gpu, config);
    let ids: Vec<TextureId> = (0..10u32)
        .map(|i| {
            let s = 17 + i;
            b.textures().register(&TextureDesc::new(s, s), &solid(s, s, color(i as usize))).unwrap()
        })
        .collect();
    let arrays: std::collections::HashSet<_> = ids.iter().map(|&t| b.placement(t).unwrap().array).collect();
    assert_eq!(arrays.len(), 10, "ten sizes, ten arrays");
    b.begin_frame();
    for i in 0..30u32 {
        let (x, y) = ((i % 6) as f32 * 40.0 + 4.0, (i / 6) as f32 * 40.0 + 4.0);
        b.push(&Quad::rect(ids[(i % 10) as usize], [x, y], [32.0, 32.0])).unwrap();
    }
    let plan = b.finish();
    let segments = plan.segments.len() as u64;
    assert!(segments > 1, "ten arrays on four slots need more than one draw");
    assert!(plan.segments.iter().all(|s| s.tier <= 4));
    assert!(plan.counters.flushes_slots_exhausted >= 1);
    assert_eq!(plan.counters.cache_resets, 0);
    let frame = draw(gpu, &mut r, plan);
    for i in 0..30u32 {
        let (x, y) = ((i % 6) * 40 + 4, (i / 6) * 40 + 4);
        for (dx, dy) in [(16, 16), (1, 1), (30, 30)] {
            frame.expect(x + dx, y + dy, color((i % 10) as usize), 1, &format!("quad {i}"));
        }
    }
    let s = r.stats();
    assert_eq!(s.device_frame.draw_calls, segments);
    assert_eq!(s.core_frame.draw_calls, segments);
    assert!(s.device_frame.bind_group_creates <= segments);
    // A slot group per draw at most, the globals once and the motion group (still) once.
    assert!(s.device_frame.bind_group_sets <= segments + 2);
}

/// Arrays grow mid-session (and mid-frame): pixels are right straight after the GPU copy, and
/// nothing already uploaded is uploaded again. A write to a layer the copy also fills (an
/// update after the growth, in the same plan) wins over the copy.
fn growth_mid_session_keeps_pixels(gpu: &Gpu) {
    const TEX: u64 = 16 * 16 * 4;
    // Size classes, not atlas pages: each texture takes a layer, so the third grows the array.
    let (mut b, mut r) = setup(gpu, Config::default().with_initial_layers(2).with_max_packed_size_px(0));
    let cols = [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255], [255, 255, 0, 255], [0, 255, 255, 255]];
    let white = [255, 255, 255, 255];
    let reg = |b: &mut layerbatch_core::Batcher, i: usize| {
        b.textures().register(&TextureDesc::new(16, 16), &solid(16, 16, cols[i]))
    };
    let at = |i: usize| [i as f32 * 40.0 + 8.0, 8.0];
    let check = |frame: &common::Frame, i: usize, want: [u8; 4]| {
        frame.expect(i as u32 * 40 + 24, 24, want, 1, &format!("texture {i}"));
    };

    let mut ids = vec![reg(&mut b, 0).unwrap(), reg(&mut b, 1).unwrap()];
    b.begin_frame();
    for (i, &id) in ids.iter().enumerate() {
        b.push(&Quad::rect(id, at(i), [32.0, 32.0])).unwrap();
    }
    let frame = draw(gpu, &mut r, b.finish());
    check(&frame, 0, cols[0]);
    check(&frame, 1, cols[1]);
    let array0 = b.placement(ids[0]).unwrap().array;

    // Frame 2: a third texture registered mid-frame grows the array 2 -> 4.
    b.begin_frame();
    b.push(&Quad::rect(ids[0], at(0), [32.0, 32.0])).unwrap();
    b.push(&Quad::rect(ids[1], at(1), [32.0, 32.0])).unwrap();
    ids.push(reg(&mut b, 2).unwrap());
    b.push(&Quad::rect(ids[2], at(2), [32.0, 32.0])).unwrap();
    assert_eq!(b.finish().counters.array_growths, 1);
    assert_ne!(b.placement(ids[0]).unwrap().array, array0, "the grown array has a new id");
    let frame = draw(gpu, &mut r, b.plan());
    for (i, &c) in cols.iter().enumerate().take(3) {
        check(&frame, i, c);
    }
    let s = r.stats().device_frame;
    assert_eq!(s.layers_copied, 2);
    assert_eq!((s.arrays_created, s.arrays_destroyed), (1, 1));
    assert_eq!(s.texture_bytes_written, TEX, "only the new texture is uploaded");

    // Frame 3: fill layer 3, grow 4 -> 8 for the fifth texture, then update texture 0 (layer 0
    // of the new array, which the copy fills too) in the same plan.
    ids.push(reg(&mut b, 3).unwrap());
    ids.push(reg(&mut b, 4).unwrap());
    b.textures().update(ids[0], &solid(16, 16, white)).unwrap();
    b.begin_frame();
    for (i, &id) in ids.iter().enumerate() {
        b.push(&Quad::rect(id, at(i), [32.0, 32.0])).unwrap();
    }
    let plan = b.finish();
    assert_eq!(plan.counters.array_growths, 1);
    let frame = draw(gpu, &mut r, plan);
    check(&frame, 0, white);
    for (i, &c) in cols.iter().enumerate().skip(1) {
        check(&frame, i, c);
    }
    let s = r.stats().device_frame;
    assert_eq!(s.layers_copied, 4);
    assert_eq!(s.texture_bytes_written, 3 * TEX);
    assert_eq!(r.array_count(), 1);
}

/// A freed texture's layer is reused by the next registration, which shows its own colour; the
/// old id is rejected.
fn free_and_reuse(gpu: &Gpu) {
    let (mut b, mut r) = setup(gpu, Config::default());
    let (red, green, blue) = ([255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255]);
    let t_red = b.textures().register(&TextureDesc::new(16, 16), &solid(16, 16, red)).unwrap();
    let t_green = b.textures().register(&TextureDesc::new(16, 16), &solid(16, 16, green)).unwrap();
    b.begin_frame();
    b.push(&Quad::rect(t_red, [10.0, 10.0], [50.0, 50.0])).unwrap();
    b.push(&Quad::rect(t_green, [100.0, 10.0], [50.0, 50.0])).unwrap();
    let frame = draw(gpu, &mut r, b.finish());
    frame.expect(35, 35, red, 1, "red");
    frame.expect(125, 35, green, 1, "green");

    let old = b.placement(t_red).unwrap();
    b.textures().free(t_red).unwrap();
    assert!(b.textures().free(t_red).is_err(), "double free is rejected");
    let t_blue = b.textures().register(&TextureDesc::new(16, 16), &solid(16, 16, blue)).unwrap();
    let new = b.placement(t_blue).unwrap();
    assert_eq!((new.array, new.layer), (old.array, old.layer), "the freed layer is reused");
    b.begin_frame();
    assert!(matches!(b.push(&Quad::rect(t_red, [10.0, 10.0], [50.0, 50.0])), Err(QuadError::Stale(_))));
    b.push(&Quad::rect(t_blue, [10.0, 10.0], [50.0, 50.0])).unwrap();
    b.push(&Quad::rect(t_green, [100.0, 10.0], [50.0, 50.0])).unwrap();
    let plan = b.finish();
    assert_eq!(plan.counters.quads_rejected, 1);
    let frame = draw(gpu, &mut r, plan);
    frame.expect(35, 35, blue, 1, "blue in the reused layer");
    frame.expect(125, 35, green, 1, "green untouched");
    let s = r.stats().device_frame;
    assert_eq!(s.texture_bytes_written, 16 * 16 * 4, "only the new texture is uploaded");
    assert_eq!(s.arrays_created, 0);
}

/// Translucent quads from two arrays, overlapping, across an explicit flush: every pixel equals
/// premultiplied blending in submission order (within 2 per channel).
fn translucent_overlap_in_submission_order(gpu: &Gpu) {
    // Size classes, not atlas pages: two sizes, two arrays.
    let (mut b, mut r) = setup(gpu, Config::default().with_max_packed_size_px(0));
    let w16 = b.textures().register(&TextureDesc::new(16, 16), &solid(16, 16, [255; 4])).unwrap();
    let w32 = b.textures().register(&TextureDesc::new(32, 32), &solid(32, 32, [255; 4])).unwrap();
    assert_ne!(b.placement(w16).unwrap().array, b.placement(w32).unwrap().array);
    // (texture, x0, y0, x1, y1, premultiplied tint)
    let quads: [(TextureId, u32, u32, u32, u32, [u8; 4]); 5] = [
        (w16, 40, 40, 140, 140, [128, 0, 0, 128]),
        (w32, 90, 90, 190, 190, [0, 0, 128, 128]),
        (w16, 100, 60, 160, 160, [0, 100, 0, 100]),
        (w32, 20, 120, 220, 150, [60, 60, 60, 200]),
        (w16, 130, 100, 250, 130, [200, 0, 100, 200]),
    ];
    b.begin_frame();
    for (i, &(t, x0, y0, x1, y1, c)) in quads.iter().enumerate() {
        if i == 3 {
            b.flush();
        }
        let q = Quad::rect(t, [x0 as f32, y0 as f32], [(x1 - x0) as f32, (y1 - y0) as f32]).with_color(c);
        b.push(&q).unwrap();
    }
    let plan = b.finish();
    assert_eq!(plan.segments.len(), 2);
    let frame = draw(gpu, &mut r, plan);
    for y in 0..SIZE {
        for x in 0..SIZE {
            let mut dst = CLEAR.map(|v| f64::from(v) / 255.0);
            for &(_, x0, y0, x1, y1, c) in &quads {
                if (x0..x1).contains(&x) && (y0..y1).contains(&y) {
                    let src = c.map(|v| f64::from(v) / 255.0);
                    for k in 0..4 {
                        dst[k] = src[k] + dst[k] * (1.0 - src[3]);
                    }
                }
            }
            frame.expect(x, y, dst.map(|v| (v * 255.0).round() as u8), 2, "blend in submission order");
        }
    }
    assert_eq!(r.stats().device_frame.draw_calls, 2);
}

/// 200 textures in five size classes, registered over several frames and drawn every frame:
/// pixels right each frame, pipelines created once (one per tier and blend mode, at `new`), no bind group
/// created and nothing uploaded in steady state, and the device's counts equal the mock's.
fn two_hundred_textures_pipelines_fixed(gpu: &Gpu) {
    let (mut b, mut r) = setup(gpu, Config::default());
    // One pipeline per (tier, blend mode).
    let tiers = (b.budget().tiers.len() * layerbatch_core::BlendMode::ALL.len()) as u64;
    assert_eq!(r.stats().device_total.pipeline_compiles, tiers);
    let mut mock = MockDevice::new(b.budget());
    let sizes = [(8, 8), (16, 16), (12, 12), (32, 32), (24, 20)];
    let mut ids = Vec::new();
    for (frame_no, chunk) in [80usize, 60, 60, 0, 0].into_iter().enumerate() {
        for _ in 0..chunk {
            let i = ids.len();
            let (w, h) = sizes[i % sizes.len()];
            ids.push(b.textures().register(&TextureDesc::new(w, h), &solid(w, h, color(i))).unwrap());
        }
        b.begin_frame();
        let shift = frame_no * 67;
        for cell in 0..ids.len() {
            let i = (cell + shift) % ids.len();
            let (x, y) = ((cell % 16) as f32 * 16.0 + 2.0, (cell / 16) as f32 * 16.0 + 2.0);
            b.push(&Quad::rect(ids[i], [x, y], [12.0, 12.0])).unwrap();
        }
        let plan = b.finish();
        mock.execute(plan).unwrap();
        let frame = draw(gpu, &mut r, plan);
        for cell in 0..ids.len() {
            let i = (cell + shift) % ids.len();
            let (x, y) = ((cell % 16) as u32 * 16 + 8, (cell / 16) as u32 * 16 + 8);
            frame.expect(x, y, color(i), 1, &format!("frame {frame_no}, texture {i}"));
        }
        let s = r.stats();
        assert_eq!(s.device_total.pipeline_compiles, tiers, "no pipeline created after new");
        assert_eq!(s.device_frame.pipeline_compiles, 0);
        let m = mock.frame_counters();
        let d = s.device_frame;
        assert_eq!(
            (d.draw_calls, d.layers_copied, d.arrays_created, d.arrays_destroyed),
            (m.draw_calls, m.layers_copied, m.arrays_created, m.arrays_destroyed)
        );
        assert_eq!(
            (d.texture_bytes_written, d.instance_bytes_written),
            (m.texture_bytes_written, m.instance_bytes_written)
        );
        assert_eq!(s.core_frame.cache_resets, 0);
        if frame_no >= 3 {
            assert_eq!(d.bind_group_creates, 0, "steady state reuses cached bind groups");
            assert_eq!(d.texture_bytes_written, 0, "steady state uploads nothing");
        }
    }
    assert_eq!(ids.len(), 200);
}

/// Repeat and mirrored-repeat wrap in the sampler, nearest filtering is exact at level 0 and
/// picks the nearest mip level when minified.
fn wrap_modes_and_nearest_mips(gpu: &Gpu) {
    let (mut b, mut r) = setup(gpu, Config::default());
    let (red, blue) = ([255, 0, 0, 255], [0, 0, 255, 255]);
    // 2x2: red on the left column, blue on the right.
    let pix: Vec<u8> = [red, blue, red, blue].concat();
    let rep = b
        .textures()
        .register(&TextureDesc::new(2, 2).with_wrap(Wrap::Repeat).with_filter(Filter::Nearest), &pix)
        .unwrap();
    let mir = b
        .textures()
        .register(&TextureDesc::new(2, 2).with_wrap(Wrap::MirroredRepeat).with_filter(Filter::Nearest), &pix)
        .unwrap();
    // 16x16 checkerboard of 1-texel red/blue squares, 5 mip levels: level 1 and below are
    // the average, (128, 0, 128).
    let mut checker = Vec::new();
    for y in 0..16 {
        for x in 0..16 {
            checker.extend_from_slice(if (x + y) % 2 == 0 { &red } else { &blue });
        }
    }
    let desc = TextureDesc::new(16, 16).with_filter(Filter::Nearest).with_mip_levels(5);
    let mips = b.textures().register(&desc, &checker).unwrap();
    let lin_mips = b.textures().register(&desc.with_filter(Filter::Linear), &checker).unwrap();
    b.begin_frame();
    // 2 repeats over 64 px: 16 px per texel column, red blue red blue.
    b.push(&Quad::rect(rep, [0.0, 0.0], [64.0, 32.0]).with_uv([0.0, 0.0, 2.0, 1.0])).unwrap();
    // Mirrored over 0..2: red blue | blue red.
    b.push(&Quad::rect(mir, [0.0, 40.0], [64.0, 32.0]).with_uv([0.0, 0.0, 2.0, 1.0])).unwrap();
    // Magnified 4x: nearest shows the checkerboard exactly.
    b.push(&Quad::rect(mips, [100.0, 0.0], [64.0, 64.0])).unwrap();
    // Minified 4x: level 2, the average.
    b.push(&Quad::rect(mips, [100.0, 100.0], [4.0, 4.0])).unwrap();
    b.push(&Quad::rect(lin_mips, [120.0, 100.0], [4.0, 4.0])).unwrap();
    let frame = draw(gpu, &mut r, b.finish());
    for (k, want) in [red, blue, red, blue].into_iter().enumerate() {
        frame.expect(k as u32 * 16 + 8, 16, want, 1, "repeat");
    }
    for (k, want) in [red, blue, blue, red].into_iter().enumerate() {
        frame.expect(k as u32 * 16 + 8, 56, want, 1, "mirrored repeat");
    }
    for (tx, ty) in [(0, 0), (1, 0), (5, 3), (15, 15)] {
        let want = if (tx + ty) % 2 == 0 { red } else { blue };
        frame.expect(100 + tx * 4 + 2, ty * 4 + 2, want, 0, "nearest, magnified");
    }
    let purple = [128, 0, 128, 255];
    frame.expect(101, 101, purple, 2, "nearest, minified to level 2");
    frame.expect(121, 101, purple, 2, "linear, minified");
}

/// Nearest filtering samples exactly one level, the one nearest to the level of detail, even
/// where the level of detail lies between two levels (no trilinear blend) and where a level's
/// size is clamped to 1 texel: every level of the textures below is uploaded as its own solid
/// colour (in place of the generated mips), and every quad must show exactly one of them.
fn nearest_picks_exactly_the_nearest_level(gpu: &Gpu) {
    const LEVELS: [[u8; 4]; 6] = [
        [255, 0, 0, 255],
        [0, 255, 0, 255],
        [0, 0, 255, 255],
        [255, 255, 255, 255],
        [255, 255, 0, 255],
        [0, 255, 255, 255],
    ];
    let (mut b, mut r) = setup(gpu, Config::default());
    let square = TextureDesc::new(16, 16).with_filter(Filter::Nearest).with_mip_levels(5);
    let wide = TextureDesc::new(32, 8).with_filter(Filter::Nearest).with_mip_levels(6);
    let sq = b.textures().register(&square, &solid(16, 16, [9; 4])).unwrap();
    let wd = b.textures().register(&wide, &solid(32, 8, [9; 4])).unwrap();
    for t in [sq, wd] {
        assert_eq!(b.placement(t).unwrap().uv_rect, [0.0, 0.0, 1.0, 1.0], "level 0 is the whole layer");
    }
    b.begin_frame();
    // (texture, position, size, expected level): for the 16x16 texture the level of detail is
    // log2(16 / size); for the 32x8 one the larger of log2(32 / width) and log2(8 / height).
    let quads: [(TextureId, [f32; 2], [f32; 2], usize); 15] = [
        (sq, [0.0, 0.0], [32.0, 32.0], 0),
        (sq, [40.0, 0.0], [16.0, 16.0], 0),
        (sq, [60.0, 0.0], [12.0, 12.0], 0), // 0.415
        (sq, [80.0, 0.0], [8.0, 8.0], 1),
        (sq, [90.0, 0.0], [6.0, 6.0], 1), // 1.415
        (sq, [100.0, 0.0], [4.0, 4.0], 2),
        (sq, [110.0, 0.0], [3.0, 3.0], 2), // 2.415
        (sq, [120.0, 0.0], [2.0, 2.0], 3),
        (sq, [130.0, 0.0], [1.0, 1.0], 4),
        (sq, [140.0, 0.0], [16.0, 4.0], 2), // anisotropic: 1 and 4 texels per pixel
        (wd, [0.0, 50.0], [32.0, 8.0], 0),
        (wd, [40.0, 50.0], [16.0, 4.0], 1),
        (wd, [60.0, 50.0], [8.0, 8.0], 2), // 4 and 1 texels per pixel
        (wd, [80.0, 50.0], [4.0, 4.0], 3), // level 3 is 4x1
        (wd, [90.0, 50.0], [2.0, 2.0], 4), // level 4 is 2x1
    ];
    for &(t, pos, size, _) in &quads {
        b.push(&Quad::rect(t, pos, size)).unwrap();
    }
    let mut plan = b.finish().clone();
    let mut writes = 0;
    for op in &plan.ops {
        let ResourceOp::WriteLayer { width_px, height_px, mip_levels, bytes, .. } = op else {
            continue;
        };
        let mut offset = bytes.start;
        for level in 0..*mip_levels {
            let (w, h) = mip_size(*width_px, *height_px, level);
            let len = (w * h * 4) as usize;
            plan.upload_bytes[offset..offset + len].copy_from_slice(&solid(w, h, LEVELS[level as usize]));
            offset += len;
        }
        assert_eq!(offset, bytes.end);
        writes += 1;
    }
    assert_eq!(writes, 2);
    let frame = draw(gpu, &mut r, &plan);
    for &(_, [x, y], [w, h], level) in &quads {
        let (x, y) = (x as u32, y as u32);
        let (w, h) = (w as u32, h as u32);
        for (px, py) in [(x, y), (x + w - 1, y + h - 1), (x + (w - 1) / 2, y + (h - 1) / 2)] {
            frame.expect(px, py, LEVELS[level], 0, &format!("{w}x{h} quad at ({x}, {y}): level {level}"));
        }
    }
}

/// A plan naming an array the device does not have is an error (core's validator refuses
/// it), not a wgpu panic, and nothing is drawn for it.
fn bad_plan_is_an_error(gpu: &Gpu) {
    let (mut b, mut r) = setup(gpu, Config::default());
    let t =
        b.textures().register(&TextureDesc::new(16, 16).with_usage(Usage::Static), &solid(16, 16, [255; 4])).unwrap();
    b.begin_frame();
    b.push(&Quad::rect(t, [0.0, 0.0], [16.0, 16.0])).unwrap();
    let mut plan = b.finish().clone();
    plan.ops.retain(|op| !matches!(op, layerbatch_core::plan::ResourceOp::Array(_)));
    let err = r.prepare(&gpu.device, &gpu.queue, &plan, [SIZE, SIZE]).unwrap_err();
    assert!(matches!(err, layerbatch_wgpu::Error::Plan(layerbatch_core::PlanError::UnknownArray { .. })), "{err}");
}

/// A budget the device cannot bind (32 slots on a device with 16 textures per stage) is an
/// error at creation, not a validation panic mid-frame.
fn budget_beyond_device_is_an_error(gpu: &Gpu) {
    let budget =
        layerbatch_core::Budget::new(&layerbatch_core::Limits::desktop(), &Config::default().with_max_slots(32))
            .unwrap();
    assert!(budget.slots > gpu.device.limits().max_sampled_textures_per_shader_stage);
    let err = layerbatch_wgpu::Renderer::new(&gpu.device, common::FORMAT, &budget, &Default::default()).unwrap_err();
    assert!(matches!(err, layerbatch_wgpu::Error::BudgetAboveDevice { needed: 32, .. }), "{err}");
}

/// A budget cloned and edited into one no executor can honour (more than
/// `MAX_SLOTS_PER_DRAW` slots, or tiers other than `Budget::new`'s for its slots) is refused
/// by `Renderer::new` with core's `Budget::check` error, naming the slots and tiers, before
/// anything else is checked or created: it used to index past the 32-slot tables.
fn edited_budget_is_an_error(gpu: &Gpu) {
    use layerbatch_core::{ConfigError, MAX_SLOTS_PER_DRAW};
    use layerbatch_wgpu::Error;
    let good = layerbatch_core::Budget::new(&layerbatch_wgpu::device_limits(&gpu.device), &Config::default()).unwrap();
    let new = |budget: &layerbatch_core::Budget| {
        layerbatch_wgpu::Renderer::new(&gpu.device, common::FORMAT, budget, &Default::default())
    };
    let mut wide = good.clone();
    wide.slots = 64;
    wide.tiers = vec![1, 2, 4, 8, 16, 32, 64];
    let mut odd_tiers = good.clone();
    odd_tiers.tiers = vec![1, 3, good.slots];
    let mut no_slots = good.clone();
    no_slots.slots = 0;
    no_slots.tiers.clear();
    for (what, budget) in [("64 slots", &wide), ("tiers 1, 3", &odd_tiers), ("0 slots", &no_slots)] {
        match new(budget) {
            Err(Error::EditedBudget(ConfigError::EditedBudget { slots, tiers, max_slots })) => {
                assert_eq!((slots, &tiers, max_slots), (budget.slots, &budget.tiers, MAX_SLOTS_PER_DRAW), "{what}");
            }
            other => panic!("{}: {what}: {other:?}", gpu.adapter),
        }
        let message = new(budget).unwrap_err().to_string();
        let names_the_terms =
            message.contains(&format!("{} slots", budget.slots)) && message.contains(&format!("{:?}", budget.tiers));
        assert!(names_the_terms, "{what}: {message}");
    }
    new(&good).unwrap_or_else(|e| panic!("{}: the unedited budget: {e}", gpu.adapter));
}

/// The ladder's worst case, one one-texture array more than the slots (17 over 16; 16 over
/// 15 on wgpu's GL backend, which keeps a unit for the motion texture), round-robin: every
/// segment after the first changes exactly one slot, and each change makes exactly one new
/// bind group (and one set), not a storm. Slot tables seen before come from the cache.
fn one_slot_change_one_bind_group(gpu: &Gpu) {
    let (mut b, mut r) = setup(gpu, Config::default().with_arrays_enabled(false).with_max_slots(16));
    let slots = b.budget().slots as usize;
    let n = slots + 1;
    let ids: Vec<TextureId> =
        (0..n).map(|i| b.textures().register(&TextureDesc::new(8, 8), &solid(8, 8, color(i))).unwrap()).collect();
    let mut seen = std::collections::HashSet::new();
    for frame_no in 0..3 {
        b.begin_frame();
        // Four full segments: no last one compacted to a smaller tier.
        for q in 0..4 * slots {
            let (x, y) = ((q % 16) as f32 * 16.0, (q / 16) as f32 * 16.0);
            b.push(&Quad::rect(ids[q % n], [x, y], [8.0, 8.0])).unwrap();
        }
        let plan = b.finish();
        let segments = plan.segments.len() as u64;
        assert_eq!(segments, 4, "{} quads over {slots} slots", 4 * slots);
        for (k, seg) in plan.segments.iter().enumerate() {
            if frame_no > 0 || k > 0 {
                assert_eq!(plan.binds(seg).len(), 1, "frame {frame_no}, segment {k}: one slot changes");
            }
        }
        let new_tables =
            plan.segments.iter().filter(|seg| seen.insert((seg.tier, plan.slots(seg).to_vec()))).count() as u64;
        let frame = draw(gpu, &mut r, plan);
        for q in 0..4 * slots as u32 {
            frame.expect((q % 16) * 16 + 4, (q / 16) * 16 + 4, color(q as usize % n), 1, &format!("quad {q}"));
        }
        let d = r.stats().device_frame;
        assert_eq!(d.bind_group_creates, new_tables, "frame {frame_no}: one bind group per new slot table");
        assert!(new_tables <= segments);
        // One set per draw, plus the globals group (the viewport) and the motion group (the
        // still one: nothing moves) once per render.
        assert_eq!(d.bind_group_sets, segments + 2, "frame {frame_no}: one set per draw");
        assert_eq!(d.draw_calls, segments);
    }
}

/// A write at an offset in a layer lands there (see `layerbatch_testkit::plans`): a 32x32 red
/// texture at the origin, an 8x8 green one at (16, 8), drawn 1:1 with nearest filtering.
fn offset_write(gpu: &Gpu) {
    let (mut b, mut r) = setup(gpu, Config::default());
    let id = b.textures().register(&TextureDesc::new(1, 1), &[0; 4]).unwrap(); // only names the writes
    let frame = draw(gpu, &mut r, &plans::offset_write(id, b.budget()));
    for y in 8..16 {
        for x in 16..24 {
            frame.expect(x, y, [0, 255, 0, 255], 0, "the offset write");
        }
    }
    for (x, y) in [(0, 0), (15, 8), (24, 8), (16, 7), (16, 16), (31, 31)] {
        frame.expect(x, y, [255, 0, 0, 255], 0, "outside the offset write");
    }
}
