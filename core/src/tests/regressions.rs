//! Regression tests for the findings of reviews: each failed on the code before it.

use super::*;

// The plan-contract review.

#[test]
fn push_error_then_next_frame() {
    let mut b = batcher(Config::default());
    let mut dev = MockDevice::new(b.budget());
    let ids = register_n(&mut b, &[(8, 8)], 2);
    // The documented pattern: `?` on push returns early with the frame still open.
    let draw = |b: &mut Batcher, quads: &[Quad]| -> Result<(), QuadError> {
        b.begin_frame();
        for q in quads {
            b.push(q)?;
        }
        b.finish();
        Ok(())
    };
    let bad = Quad::rect(ids[0], [f32::NAN, 0.0], [8.0, 8.0]);
    let good = Quad::rect(ids[1], [0.0, 0.0], [8.0, 8.0]);
    assert_eq!(draw(&mut b, &[good, bad, good]), Err(QuadError::NonFinite));
    // The next frame starts cleanly: the open frame's quads are discarded and counted.
    draw(&mut b, &[good, good]).unwrap();
    let plan = b.plan();
    assert_eq!(plan.counters.quads, 2);
    assert_eq!(plan.counters.frames_discarded, 1);
    assert_eq!(plan.totals.frames_discarded, 1);
    dev.execute(plan).unwrap();
    assert_eq!(dev.sampled().iter().map(|s| s.unwrap().0).collect::<Vec<_>>(), [ids[1], ids[1]]);
    // Misuse outside a frame is harmless too: push is an error, flush a no-op, finish plans
    // an empty frame.
    assert_eq!(b.push(&good), Err(QuadError::NoFrame));
    b.flush();
    let empty = b.finish();
    assert_eq!((empty.counters.quads, empty.segments.len()), (0, 0));
    dev.execute(b.plan()).unwrap();
}

#[test]
fn foreign_id_rejected() {
    let mut a = batcher(Config::default());
    let mut b = batcher(Config::default());
    let d = TextureDesc::new(4, 4);
    let ta = a.textures().register(&d, &solid(&d, 1)).unwrap();
    let tb = b.textures().register(&d, &solid(&d, 2)).unwrap();
    // Same index and generation, different batchers.
    assert_eq!((ta.index(), ta.generation()), (tb.index(), tb.generation()));
    assert_ne!(ta.batcher(), tb.batcher());
    assert!(!b.contains(ta));
    assert_eq!(b.textures().update(ta, &solid(&d, 3)), Err(TextureError::Stale(ta)));
    assert_eq!(b.textures().free(ta), Err(TextureError::Stale(ta)));
    b.begin_frame();
    assert_eq!(b.push(&Quad::rect(ta, [0.0; 2], [4.0; 2])), Err(QuadError::Stale(ta)));
    assert!(b.contains(tb));
}

#[test]
fn generation_never_wraps() {
    let mut b = batcher(Config::default());
    let d = TextureDesc::new(4, 4);
    let first = b.textures().register(&d, &solid(&d, 1)).unwrap();
    // Fast-forward the index to its second-to-last generation.
    b.set_generation_for_test(first.index(), u32::MAX - 1);
    let old = TextureId { generation: u32::MAX - 1, ..first };
    b.textures().free(old).unwrap();
    let last = b.textures().register(&d, &solid(&d, 2)).unwrap();
    assert_eq!((last.index(), last.generation()), (first.index(), u32::MAX));
    b.textures().free(last).unwrap();
    // The index is retired: the next registration takes a new one, and no id of the old
    // index (the first one included) ever becomes valid again.
    let next = b.textures().register(&d, &solid(&d, 3)).unwrap();
    assert_ne!(next.index(), first.index());
    for generation in [0, 1, 2, u32::MAX - 1, u32::MAX] {
        assert!(!b.contains(TextureId { generation, ..first }));
    }
}

#[test]
fn several_growths_in_one_plan_stay_within_budget() {
    // 32x32 layers of 4 KiB, 4 initial layers; 16 textures before the first plan grow the
    // array 4 -> 8 -> 16. A device frees the 4- and 8-layer arrays only when the plan's
    // commands finish: 16 + 32 + 64 = 112 KiB at once. With a 96 KiB budget the allocator
    // must not make that plan.
    let budget_bytes = 96 << 10;
    let cfg = Config { budget_bytes, ..Config::default() };
    let mut b = batcher(cfg);
    let mut dev = MockDevice::new(b.budget());
    let ids = register_n(&mut b, &[(32, 32)], 16);
    assert!(b.allocator().peak_bytes() <= budget_bytes, "allocator peak {}", b.allocator().peak_bytes());
    frame(&mut b, &mut dev, &ids, &round_robin(16, 64));
    assert!(dev.peak_bytes() <= budget_bytes, "device peak {} over {budget_bytes}", dev.peak_bytes());
    // Across plans the same growths are fine: each plan's retired array is freed before the
    // next plan runs.
    let mut b = batcher(cfg);
    let mut dev = MockDevice::new(b.budget());
    let mut ids = Vec::new();
    for n in [4, 4, 8] {
        ids.extend(register_n(&mut b, &[(32, 32)], n));
        frame(&mut b, &mut dev, &ids, &round_robin(ids.len(), ids.len()));
    }
    assert_eq!((b.allocator().array_count(), b.allocator().growths()), (1, 2));
    assert!(dev.peak_bytes() <= budget_bytes);
}

#[test]
fn byte_arithmetic_never_wraps() {
    // Absurd limits: sizes whose byte counts overflow u64 must come back as errors.
    let limits = Limits {
        max_texture_units: 16,
        max_samplers: 16,
        max_array_layers: u32::MAX,
        max_texture_size_px: u32::MAX,
        avoid_ambiguous_layer_counts: false,
        max_buffer_bytes: u64::MAX,
        software_rasterizer: false,
        format_families: FormatFamilies::ALL,
        compressed_copies: true,
        max_storage_binding_bytes: u64::MAX,
        staged_motion_writes: false,
        host_texture_views: false,
    };
    let cfg = Config { budget_bytes: u64::MAX, max_class_size_px: u32::MAX, ..Config::default() };
    let mut b = Batcher::new(limits, cfg).unwrap();
    let huge = TextureDesc::new(u32::MAX, u32::MAX).with_usage(Usage::RenderTarget);
    assert!(matches!(b.textures().register(&huge, &[]), Err(TextureError::BudgetExhausted { .. })));
    let mipped = TextureDesc::new(u32::MAX, u32::MAX).with_mip_levels(32).with_usage(Usage::RenderTarget);
    assert!(matches!(b.textures().register(&mipped, &[]), Err(TextureError::BudgetExhausted { .. })));
    // A static texture's byte length saturates instead of wrapping, so no slice matches it.
    let d = TextureDesc::new(u32::MAX, u32::MAX);
    assert!(matches!(b.textures().register(&d, &[0; 16]), Err(TextureError::PixelLength { .. })));
    assert_eq!(b.allocator().allocated_bytes(), 0);
}

#[test]
fn instance_capacity_fits_the_device_buffer() {
    let limits = Limits { max_buffer_bytes: 1 << 20, ..Limits::guaranteed_minimum() };
    let b = Batcher::new(limits, Config::default()).unwrap();
    // Instanced quads (the default off software rasterizers) take 64 bytes a quad, but a plan
    // with triangles is drawn indexed whatever the budget: a block fits at 4 x 64 bytes.
    assert!(!b.budget().indexed_quads);
    assert_eq!(b.budget().instance_capacity, (1 << 20) / Instance::QUAD_BYTES);
    // Indexed quads (the default on them): 4 vertices of 64 bytes a quad.
    let soft = Batcher::new(limits.with_software_rasterizer(true), Config::default()).unwrap();
    assert!(soft.budget().indexed_quads);
    assert_eq!(soft.budget().instance_capacity, (1 << 20) / Instance::QUAD_BYTES);
    let forced = Config::default().with_quad_vertices(QuadVertices::Instanced);
    assert!(!Batcher::new(limits.with_software_rasterizer(true), forced).unwrap().budget().indexed_quads);
    let forced = Config::default().with_quad_vertices(QuadVertices::Indexed);
    assert!(Batcher::new(limits, forced).unwrap().budget().indexed_quads);
    // Room for one instance but not for its four vertices: no plan with a triangle would fit.
    let tiny = Limits { max_buffer_bytes: u64::from(Instance::QUAD_BYTES) - 1, ..Limits::guaranteed_minimum() };
    assert!(matches!(Batcher::new(tiny, Config::default()), Err(ConfigError::DeviceLimits(_))));
    assert!(matches!(Batcher::new(tiny, forced), Err(ConfigError::DeviceLimits(_))));
    let none = Limits { max_buffer_bytes: 47, ..Limits::guaranteed_minimum() };
    assert!(matches!(Batcher::new(none, Config::default()), Err(ConfigError::DeviceLimits(_))));
}

#[test]
fn skipped_plan_recovers() {
    let mut b = batcher(Config::default());
    let mut dev = MockDevice::new(b.budget());
    let mut ids = register_n(&mut b, &[(8, 8), (16, 16)], 6);
    frame(&mut b, &mut dev, &ids, &round_robin(6, 12));
    // A plan that registers a texture (and grows an array) is made and never executed.
    ids.extend(register_n(&mut b, &[(8, 8)], 3));
    b.begin_frame();
    let skipped = b.finish().sequence;
    b.begin_frame();
    let next = b.finish();
    assert_eq!(dev.execute(next), Err(PlanError::Sequence { expected: skipped, got: skipped + 1 }));
    // The way back: every live texture is listed (the skipped plan's writes are gone, and
    // core keeps no pixels); re-uploading them makes the next plan right.
    let mut listed = b.restore();
    listed.sort();
    let mut all = ids.clone();
    all.sort();
    assert_eq!(listed, all);
    let mut hashes = Vec::new();
    for (k, &id) in ids.iter().enumerate() {
        let d = b.desc(id).unwrap();
        let px = solid(&d, 100 + k as u32);
        hashes.push(MockDevice::hash(&px));
        b.textures().update(id, &px).unwrap();
    }
    let seq = round_robin(ids.len(), 30);
    let c = frame(&mut b, &mut dev, &ids, &seq);
    assert_eq!(c.device_rebuilds, 1);
    assert!(b.plan().rebuild);
    for (i, &t) in seq.iter().enumerate() {
        assert_eq!(dev.sampled()[i].unwrap().1, hashes[t], "quad {i} after the rebuild");
    }
    assert_eq!(dev.allocated_bytes(), b.allocator().allocated_bytes());
    // A repeat of an executed plan is refused, and changes nothing.
    assert_eq!(dev.execute(b.plan()), Err(PlanError::Sequence { expected: skipped + 3, got: skipped + 2 }));
    frame(&mut b, &mut dev, &ids, &seq);
}

#[test]
fn restore_keeps_queued_writes_and_skips_render_targets() {
    let mut b = batcher(Config::default());
    let mut dev = MockDevice::new(b.budget());
    let ids = register_n(&mut b, &[(8, 8)], 2);
    let rt = b.textures().register(&TextureDesc::new(8, 8).with_usage(Usage::RenderTarget), &[]).unwrap();
    frame(&mut b, &mut dev, &ids, &[0, 1]);
    // Queued since the last plan: kept by the rebuild, so not listed.
    let d = TextureDesc::new(8, 8);
    let fresh = b.textures().register(&d, &solid(&d, 50)).unwrap();
    b.textures().update(ids[0], &solid(&d, 51)).unwrap();
    assert_eq!(b.restore(), [ids[1]]);
    assert!(b.contains(rt));
    b.textures().update(ids[1], &solid(&d, 52)).unwrap();
    let all = [ids[0], ids[1], fresh];
    frame(&mut b, &mut dev, &all, &[0, 1, 2]);
    let want = [51, 52, 50].map(|s| MockDevice::hash(&solid(&d, s)));
    assert_eq!(dev.sampled().iter().map(|s| s.unwrap().1).collect::<Vec<_>>(), want);
}

#[test]
fn device_lost_mid_frame_with_cpu_copies() {
    let cfg = Config { keep_pixels: true, ..Config::default() };
    let mut b = batcher(cfg);
    let mut dev = MockDevice::new(b.budget());
    let ids = register_n(&mut b, &[(8, 8), (16, 16), (5, 7)], 9);
    let rt = b.textures().register(&TextureDesc::new(8, 8).with_usage(Usage::RenderTarget), &[]).unwrap();
    let texel_bytes: u64 = ids.iter().map(|&id| b.desc(id).unwrap().byte_len() as u64).sum();
    assert_eq!(b.textures().cpu_copy_bytes(), texel_bytes);
    let seq = round_robin(ids.len(), 40);
    frame(&mut b, &mut dev, &ids, &seq);
    let before: Vec<_> = dev.sampled().to_vec();
    assert_eq!(b.plan().counters.cpu_copy_bytes, texel_bytes);
    // The device is lost while a frame is being recorded; the host makes a new one.
    b.begin_frame();
    for (i, &t) in seq.iter().enumerate() {
        b.push(&Quad::rect(ids[t], [i as f32, 0.0], [8.0, 8.0])).unwrap();
    }
    let mut dev = MockDevice::new(b.budget());
    assert!(b.restore().is_empty(), "every texture has a CPU copy");
    let plan = b.finish();
    assert!(plan.rebuild);
    dev.execute(plan).unwrap();
    assert_eq!(dev.sampled(), &before[..], "the frame after the loss samples the same pixels");
    assert_eq!(dev.allocated_bytes(), b.allocator().allocated_bytes());
    assert!(b.contains(rt));
    // Freeing drops the copy.
    b.textures().free(ids[0]).unwrap();
    assert_eq!(b.textures().cpu_copy_bytes(), texel_bytes - 8 * 8 * 4);
}

#[test]
fn push_all_matches_push_and_reports_the_first_rejected() {
    let cfg = Config { instance_capacity: 300, max_slots: 4, ..Config::default() };
    let mut a = batcher(cfg);
    let mut b = batcher(cfg);
    let sizes = [(8, 8), (16, 16), (32, 32), (64, 64), (5, 3), (128, 8)];
    let ia = register_n(&mut a, &sizes, 40);
    let ib = register_n(&mut b, &sizes, 40);
    let dead = ia[3];
    a.textures().free(dead).unwrap();
    b.textures().free(ib[3]).unwrap();
    for frame_no in 0..3 {
        // 1,000 quads over 39 textures in 6 classes on 4 slots, with a stale and a NaN quad in
        // the middle: evictions, capacity boundaries and explicit flushes.
        let quads: Vec<Quad> = (0..1000usize)
            .map(|i| {
                let k = (i * 7 + frame_no) % 40;
                let t = if k == 3 { 4 } else { k };
                Quad::rect(ia[t], [i as f32, 0.0], [4.0, 4.0])
            })
            .chain([Quad::rect(dead, [0.0; 2], [1.0; 2]), Quad::rect(ia[0], [f32::NAN, 0.0], [1.0; 2])])
            .chain((0..500usize).map(|i| Quad::rect(ia[(i * 13) % 3], [i as f32, 1.0], [4.0, 4.0])))
            .collect();
        a.begin_frame();
        b.begin_frame();
        assert_eq!(a.push_all(&quads[..600]), Ok(()));
        a.flush();
        assert_eq!(a.push_all(&quads[600..]), Err(RejectedQuad { index: 400, error: QuadError::Stale(dead) }));
        for (i, q) in quads.iter().enumerate() {
            if i == 600 {
                b.flush();
            }
            let q = Quad { texture: ib[ia.iter().position(|&t| t == q.texture).unwrap()], ..*q };
            let _ = b.push(&q);
        }
        let pa = a.finish().clone();
        let pb = b.finish();
        assert_eq!(pa.instances, pb.instances, "frame {frame_no}");
        assert_eq!(pa.segments, pb.segments);
        assert_eq!(pa.slot_tables, pb.slot_tables);
        assert_eq!(pa.counters, pb.counters);
        assert_eq!(pa.counters.quads_rejected, 2);
    }
    // Outside a frame nothing is recorded.
    let q = Quad::rect(ia[0], [0.0; 2], [1.0; 2]);
    assert_eq!(a.push_all(&[q]), Err(RejectedQuad { index: 0, error: QuadError::NoFrame }));
    assert_eq!(a.push_all(&[]), Ok(()));
}
