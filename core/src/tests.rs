//! Policy tests: the batcher driven through the mock device. No GPU.

use crate::*;

fn solid(desc: &TextureDesc, seed: u32) -> Vec<u8> {
    let px = [(seed * 37) as u8, ((seed * 101) >> 3) as u8, (seed * 13 + 7) as u8, 255];
    px.repeat((desc.width_px * desc.height_px) as usize)
}

/// A batcher for the size-class and ladder tests: packing into atlas pages off, so textures
/// get class arrays as these tests count them. (Pages have their own tests.)
fn batcher(config: Config) -> Batcher {
    Batcher::new(Limits::guaranteed_minimum(), config.with_max_packed_size_px(0)).unwrap()
}

fn register_n(b: &mut Batcher, sizes: &[(u32, u32)], n: usize) -> Vec<TextureId> {
    (0..n)
        .map(|i| {
            let (w, h) = sizes[i % sizes.len()];
            let d = TextureDesc::new(w, h);
            b.register(&d, &solid(&d, i as u32)).unwrap()
        })
        .collect()
}

/// Pushes `seq` (indices into `ids`) as one frame, executes it on `dev`, and checks every
/// instance sampled its own texture.
fn frame(b: &mut Batcher, dev: &mut MockDevice, ids: &[TextureId], seq: &[usize]) -> Counters {
    b.begin_frame();
    for (i, &t) in seq.iter().enumerate() {
        b.push(&Quad::rect(ids[t], [i as f32, 0.0], [8.0, 8.0])).unwrap();
    }
    let plan = b.finish();
    dev.execute(plan).unwrap();
    for (i, &t) in seq.iter().enumerate() {
        assert_eq!(dev.sampled()[i].map(|s| s.0), Some(ids[t]), "quad {i} sampled another texture");
    }
    plan.counters
}

fn round_robin(textures: usize, quads: usize) -> Vec<usize> {
    (0..quads).map(|i| i % textures).collect()
}

#[test]
fn sixty_four_textures_one_size_one_draw() {
    let mut b = batcher(Config::default());
    let mut dev = MockDevice::new(b.budget());
    let ids = register_n(&mut b, &[(32, 32)], 64);
    let c = frame(&mut b, &mut dev, &ids, &round_robin(64, 10_000));
    let plan = b.plan();
    assert_eq!(plan.segments.len(), 1);
    assert_eq!(plan.segments[0].tier, 1);
    assert_eq!(c.draw_calls, 1);
    assert_eq!(c.cache_resets, 0);
    assert_eq!(c.layer_uploads, 64);
    assert_eq!(c.quads, 10_000);
    assert_eq!(b.allocator().class_count(), 1);
    assert_eq!(b.allocator().array_count(), 1);
    // 4 initial layers doubled to 64 before the first plan, in place: the array is created
    // once, at 64 layers, and never copied.
    assert_eq!(c.array_growths, 0);
    assert_eq!(c.bytes_allocated, 64 * 32 * 32 * 4);
    assert_eq!(c.bytes_allocated, b.allocator().allocated_bytes());
    assert_eq!(dev.allocated_bytes(), b.allocator().allocated_bytes());
    assert_eq!(dev.frame_counters().draw_calls, 1);
    // Steady state: the next frame binds nothing and uploads nothing.
    let c2 = frame(&mut b, &mut dev, &ids, &round_robin(64, 10_000));
    assert_eq!((c2.draw_calls, c2.slot_binds, c2.layer_uploads, c2.arrays_created), (1, 0, 0, 0));
}

#[test]
fn sixty_four_textures_four_sizes_one_draw_at_tier_four() {
    let mut b = batcher(Config::default());
    let mut dev = MockDevice::new(b.budget());
    let ids = register_n(&mut b, &[(16, 16), (32, 32), (64, 64), (128, 64)], 64);
    let c = frame(&mut b, &mut dev, &ids, &round_robin(64, 10_000));
    assert_eq!(b.plan().segments.len(), 1);
    assert_eq!(b.plan().segments[0].tier, 4);
    assert_eq!((c.draw_calls, c.cache_resets, c.layer_uploads), (1, 0, 64));
    assert_eq!(b.allocator().class_count(), 4);
    let expected: u64 = [16 * 16, 32 * 32, 64 * 64, 128 * 64].iter().map(|px| 16 * px * 4).sum();
    assert_eq!(c.bytes_allocated, expected);
    assert_eq!(dev.allocated_bytes(), expected);
}

fn ladder_config(victim: VictimChoice) -> Config {
    Config { arrays_enabled: false, max_slots: 16, victim, ..Config::default() }
}

/// 17 textures over 16 slots, round-robin, arrays disabled: the ladder's worst case.
fn seventeen_over_sixteen(victim: VictimChoice, quads: usize) -> Counters {
    let mut b = batcher(ladder_config(victim));
    let mut dev = MockDevice::new(b.budget());
    let ids = register_n(&mut b, &[(8, 8)], 17);
    frame(&mut b, &mut dev, &ids, &round_robin(17, quads))
}

#[test]
fn ladder_round_robin_flushes_at_the_minimum() {
    for s in [10_000usize, 1_000, 17, 16, 1] {
        let min_flushes = s.div_ceil(16) as u64;
        for victim in [VictimChoice::NextUse, VictimChoice::LeastRecentlyUsed] {
            let c = seventeen_over_sixteen(victim, s);
            assert_eq!(c.flushes, min_flushes, "{victim:?}, {s} quads");
            assert_eq!(c.draw_calls, min_flushes);
            assert_eq!(c.cache_resets, 0);
        }
    }
}

#[test]
fn ladder_bind_counts_next_use_vs_lru_vs_wipe_all() {
    // 10,000 = 625 segments of exactly 16 quads.
    // NextUse: 16 binds to fill the slots, then exactly one per later segment (the evicted
    // slot is the one whose array comes back last).
    let c = seventeen_over_sixteen(VictimChoice::NextUse, 10_000);
    assert_eq!(c.flushes, 625);
    assert_eq!(c.slot_binds, 16 + 624);
    assert_eq!(c.slot_evictions, 624);
    // LRU evicts the array needed next: every quad after the first 16 re-binds.
    let c = seventeen_over_sixteen(VictimChoice::LeastRecentlyUsed, 10_000);
    assert_eq!(c.flushes, 625);
    assert_eq!(c.slot_binds, 10_000);
    assert_eq!(c.slot_evictions, 10_000 - 16);
    // Wipe-all (melonJS): the same flushes, a reset at each, and a bind on every quad.
    let c = seventeen_over_sixteen(VictimChoice::WipeAll, 10_000);
    assert_eq!(c.flushes, 625);
    assert_eq!(c.cache_resets, 624);
    assert_eq!(c.slot_binds, 10_000);
}

#[test]
fn ladder_partial_last_segment_is_compacted_to_a_smaller_tier() {
    // 1,000 quads = 62 full segments + 8 quads. NextUse binds 16 + 61 for the full ones. The
    // last segment samples 8 arrays, so it is drawn at tier 8: each of its arrays that was not
    // already in slots 0..8 is swapped (or bound) there, one bind each.
    let mut b = batcher(ladder_config(VictimChoice::NextUse));
    let mut dev = MockDevice::new(b.budget());
    let ids = register_n(&mut b, &[(8, 8)], 17);
    let c = frame(&mut b, &mut dev, &ids, &round_robin(17, 1_000));
    let plan = b.plan();
    let (prev, last) = (&plan.segments[61], &plan.segments[62]);
    assert_eq!((c.flushes, prev.tier, last.tier, c.max_slot_tier), (63, 16, 8, 16));
    let low: Vec<_> = plan.slots(prev)[..8].to_vec();
    let moved = plan.slots(last).iter().flatten().filter(|a| !low.contains(&Some(**a))).count() as u64;
    assert_eq!(plan.binds(last).len() as u64, moved);
    assert_eq!(c.slot_binds, 16 + 61 + moved);
    assert!(moved > 0);
}

/// Hot texture H and five cold ones c0..c4, alternating H c0 H c1 ... over 4 slots.
/// Worked by hand in the comments: positions 0..20 are H c0 H c1 H c2 H c3 H c4 H c0 H c1 H c2 H c3 H c4.
#[test]
fn skewed_sequence_exact_counts() {
    let seq: Vec<usize> = (0..20).map(|i| if i % 2 == 0 { 0 } else { 1 + (i / 2) % 5 }).collect();
    let run = |victim| {
        let mut b = batcher(Config { arrays_enabled: false, max_slots: 4, victim, ..Config::default() });
        let mut dev = MockDevice::new(b.budget());
        let ids = register_n(&mut b, &[(8, 8)], 6);
        let c = frame(&mut b, &mut dev, &ids, &seq);
        let segs: Vec<_> = b.plan().segments.iter().map(|s| (s.instances.clone(), s.tier)).collect();
        (c, segs)
    };
    // NextUse. Segment 1 = q0..7 (H c0 c1 c2 fill the 4 slots; c3 at q7 finds all referenced).
    // q7 evicts c2 (next use q15, farthest). Segment 2 = q7..13: c4 at q9 replaces c1 (not
    // referenced, next use q13 after c0's q11). c1 at q13 finds all referenced: flush, evict
    // c0 (never used again). Segment 3 = q13..19: c2 at q15 replaces c4 (q19, after c3's
    // q17). c4 at q19: flush; all four are never used again, LRU breaks the tie: c1.
    // Binds: 4, then 2 (slots of c1 and c2 changed), then 2, then 1 for the last segment:
    // it uses one array, so it is drawn at tier 1 and its array is swapped into slot 0.
    let (c, segs) = run(VictimChoice::NextUse);
    assert_eq!(segs, vec![(0..7, 4), (7..13, 4), (13..19, 4), (19..20, 1)]);
    assert_eq!((c.flushes, c.flushes_slots_exhausted, c.flushes_end_of_frame), (4, 3, 1));
    assert_eq!(c.slot_evictions, 5);
    assert_eq!(c.slot_binds, 4 + 2 + 2 + 1);
    // LRU: same segments (flushes never depend on the victim), but each cold texture evicts
    // the least recently used cold one, which is the one needed soonest: 3 binds per segment.
    let (c, segs) = run(VictimChoice::LeastRecentlyUsed);
    assert_eq!(segs, vec![(0..7, 4), (7..13, 4), (13..19, 4), (19..20, 1)]);
    assert_eq!(c.flushes, 4);
    assert_eq!(c.slot_evictions, 7);
    assert_eq!(c.slot_binds, 4 + 3 + 3 + 1);
}

/// Mixed sizes, arrays on: 16x16 and 12x12 (padded to 16x16, 44% waste) share a class, 30x30 and 32x32
/// share the 32x32 class, 100x60 is padded to 128x64. Three arrays.
#[test]
fn mixed_size_sequence_exact_counts() {
    let sizes = [(16, 16), (12, 12), (30, 30), (32, 32), (100, 60)];
    // With 4 slots, everything is one draw at tier 4 (3 arrays).
    let mut b = batcher(Config::default());
    let mut dev = MockDevice::new(b.budget());
    let ids = register_n(&mut b, &sizes, 5);
    assert_eq!(b.allocator().class_count(), 3);
    let seq = round_robin(5, 100);
    let c = frame(&mut b, &mut dev, &ids, &seq);
    assert_eq!((c.draw_calls, c.max_slot_tier, c.slot_binds, c.cache_resets), (1, 4, 3, 0));

    // With 2 slots the three arrays X (16), Y (32), Z (128x64) come as X X Y Y Z X X Y Y Z ...
    // Each segment holds 2 arrays: X X Y Y | Z X X | Y Y Z | X X Y Y | Z ... NextUse evicts
    // the array needed last, one bind per segment after the first two.
    let mut b = batcher(Config { max_slots: 2, ..Config::default() });
    let mut dev = MockDevice::new(b.budget());
    let ids = register_n(&mut b, &sizes, 5);
    let seq = round_robin(5, 20);
    let c = frame(&mut b, &mut dev, &ids, &seq);
    let segs: Vec<_> = b.plan().segments.iter().map(|s| s.instances.clone()).collect();
    // q: 0X 1X 2Y 3Y 4Z 5X 6X 7Y 8Y 9Z 10X 11X 12Y 13Y 14Z 15X 16X 17Y 18Y 19Z
    // seg1 0..4 (X,Y); q4 Z: both referenced, flush, evict Y (next q7) rather than X (q5).
    // seg2 4..7 (Z,X); q7 Y: flush, evict X (q10) rather than Z (q9).
    // seg3 7..10 (Y,Z; Z is still bound); q10 X: flush, evict Z (q14) rather than Y (q12).
    // seg4 10..14 (X,Y); q14 Z: flush, evict Y (q17) rather than X (q15).
    // seg5 14..17 (Z,X); q17 Y: flush, evict X (never again) rather than Z (q19).
    // seg6 17..20 (Y,Z).
    assert_eq!(segs, vec![0..4, 4..7, 7..10, 10..14, 14..17, 17..20]);
    assert_eq!(c.flushes, 6);
    assert_eq!(c.slot_evictions, 5);
    // Two binds to fill the slots, then one per eviction.
    assert_eq!(c.slot_binds, 2 + 5);
    assert_eq!(c.max_slot_tier, 2);
}

#[test]
fn allocator_admission_sequence_exact() {
    let cfg = Config {
        initial_layers: 2,
        max_layers_per_array: 4,
        max_class_size_px: 1024,
        budget_bytes: 1 << 20,
        ..Config::default()
    };
    let budget = Budget::new(&Limits::guaranteed_minimum(), &cfg.with_max_packed_size_px(0)).unwrap();
    let mut a = Allocator::new(&budget);
    let l32 = 32 * 32 * 4u64;
    let place = |a: &mut Allocator, d: TextureDesc| {
        a.admit(&d).map(|ad| (ad.placement.array.0, ad.placement.layer, ad.placement.uv_rect))
    };
    let lin = TextureDesc::new(32, 32);
    assert_eq!(place(&mut a, lin), Ok((0, 0, [0.0, 0.0, 1.0, 1.0])));
    assert_eq!(place(&mut a, lin), Ok((0, 1, [0.0, 0.0, 1.0, 1.0])));
    // A plan brings array 0 to the device: it grows by a copy from now on.
    a.end_plan();
    // 20x30 pads to 32x32 (41% waste <= 50%); the array is full: it grows 2 -> 4 as array 1.
    assert_eq!(place(&mut a, TextureDesc::new(20, 30)), Ok((1, 2, [0.0, 0.0, 20.0 / 32.0, 30.0 / 32.0])));
    // Nearest filter is another class.
    assert_eq!(place(&mut a, lin.with_filter(Filter::Nearest)), Ok((2, 0, [0.0, 0.0, 1.0, 1.0])));
    assert_eq!(place(&mut a, lin), Ok((1, 3, [0.0, 0.0, 1.0, 1.0])));
    // Array 1 is at the cap of 4 layers: a second array opens in the class.
    assert_eq!(place(&mut a, lin), Ok((3, 0, [0.0, 0.0, 1.0, 1.0])));
    // 17x17 would waste 72% padded to 32x32: its own exact class.
    assert_eq!(place(&mut a, TextureDesc::new(17, 17)), Ok((4, 0, [0.0, 0.0, 1.0, 1.0])));
    // Wider than the class cap: a one-texture array.
    assert_eq!(place(&mut a, TextureDesc::new(1100, 10)), Ok((5, 0, [0.0, 0.0, 1.0, 1.0])));
    // Repeat is never padded.
    assert_eq!(place(&mut a, TextureDesc::new(20, 20).with_wrap(Wrap::Repeat)), Ok((6, 0, [0.0, 0.0, 1.0, 1.0])));
    // Mips: never padded, bytes count every level.
    assert_eq!(place(&mut a, TextureDesc::new(16, 16).with_mip_levels(3)), Ok((7, 0, [0.0, 0.0, 1.0, 1.0])));
    let expected = 4 * l32        // array 1 (grown), array 0 destroyed
        + 2 * l32                 // array 2 (nearest)
        + 2 * l32                 // array 3
        + 2 * 17 * 17 * 4         // array 4
        + 1100 * 10 * 4           // array 5 (dedicated, 1 layer)
        + 2 * 20 * 20 * 4         // array 6
        + 2 * (256 + 64 + 16) * 4; // array 7, 3 levels
    assert_eq!(a.allocated_bytes(), expected);
    a.check_invariants();
    // The growth held old (2 layers) and new (4 layers) at once.
    assert!(a.peak_bytes() >= 6 * l32);
    let ops: Vec<_> = a.drain_ops().collect();
    assert_eq!(
        ops[1],
        ArrayOp::Grow { from: ArrayId(0), to: ArrayId(1), desc: ArrayDesc { layers: 4, ..desc32() }, copy_layers: 2 }
    );
    assert_eq!(ops.len(), 8);

    // Free and reuse: the freed layer is handed out again.
    a.free(&Placement::at_origin(ArrayId(1), 1, [32, 32], [32, 32], false)).unwrap();
    assert_eq!(a.admit(&lin).unwrap().placement.layer, 1);
    assert_eq!(a.admit(&lin).unwrap().placement, Placement::at_origin(ArrayId(3), 1, [32, 32], [32, 32], false));
    // Freeing a dedicated array destroys it and returns its bytes.
    let before = a.allocated_bytes();
    a.free(&Placement::at_origin(ArrayId(5), 0, [1100, 10], [1100, 10], true)).unwrap();
    assert_eq!(a.allocated_bytes(), before - 1100 * 10 * 4);
    assert_eq!(a.drain_ops().next_back(), Some(ArrayOp::Destroy { array: ArrayId(5) }));
    a.check_invariants();
}

fn desc32() -> ArrayDesc {
    ArrayDesc {
        width_px: 32,
        height_px: 32,
        layers: 2,
        format: Format::Rgba8Unorm,
        mip_levels: 1,
        filter: Filter::Linear,
        wrap: Wrap::ClampToEdge,
        render_target: false,
    }
}

#[test]
fn growth_counts_the_transient_copy_and_falls_back_to_a_new_array() {
    let l = 32 * 32 * 4u64;
    // Budget 8 layers. Array of 4 full; doubling to 8 needs 4 + 8 = 12 layers during the
    // copy: over budget. A second array of 4 fits instead.
    let cfg = Config { initial_layers: 4, budget_bytes: 8 * l, ..Config::default() };
    let mut b = batcher(cfg);
    // A plan brings the first array to the device: from then on it grows by a copy (before,
    // it would grow in place, counted once).
    let mut ids = register_n(&mut b, &[(32, 32)], 4);
    b.begin_frame();
    b.finish();
    ids.extend(register_n(&mut b, &[(32, 32)], 4));
    let p: Vec<_> = ids.iter().map(|&id| b.placement(id).unwrap()).collect();
    assert_eq!((p[3].array, p[4].array, p[4].layer), (ArrayId(0), ArrayId(1), 0));
    assert_eq!(b.allocator().growths(), 0);
    assert_eq!(b.allocator().peak_bytes(), 8 * l);
    // Budget 12 layers: the growth fits exactly, peak 12, then 8 held.
    let mut b = batcher(Config { budget_bytes: 12 * l, ..cfg });
    register_n(&mut b, &[(32, 32)], 4);
    b.begin_frame();
    b.finish();
    register_n(&mut b, &[(32, 32)], 1);
    assert_eq!(b.allocator().growths(), 1);
    assert_eq!(b.allocator().peak_bytes(), 12 * l);
    assert_eq!(b.allocator().allocated_bytes(), 8 * l);
}

#[test]
fn over_budget_is_an_error_and_changes_nothing() {
    let l = 32 * 32 * 4u64;
    let mut b =
        batcher(Config { initial_layers: 4, max_layers_per_array: 4, budget_bytes: 4 * l, ..Config::default() });
    let mut dev = MockDevice::new(b.budget());
    let ids = register_n(&mut b, &[(32, 32)], 4);
    let before: Vec<_> = ids.iter().map(|&id| b.placement(id).unwrap()).collect();
    let d = TextureDesc::new(32, 32);
    let err = b.register(&d, &solid(&d, 99)).unwrap_err();
    assert_eq!(
        err,
        TextureError::BudgetExhausted {
            requested_bytes: l,
            allocated_bytes: 4 * l,
            retired_bytes: 0,
            budget_bytes: 4 * l
        }
    );
    assert!(err.to_string().contains("budget exhausted"));
    let after: Vec<_> = ids.iter().map(|&id| b.placement(id).unwrap()).collect();
    assert_eq!(before, after);
    assert_eq!(b.allocator().allocated_bytes(), 4 * l);
    // And they still draw.
    frame(&mut b, &mut dev, &ids, &[0, 1, 2, 3]);
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let mut b = batcher(Config::default());
    let zero = TextureDesc::new(0, 4);
    assert_eq!(b.register(&zero, &[]), Err(TextureError::ZeroSize { width_px: 0, height_px: 4 }));
    let big = TextureDesc::new(4096, 4);
    assert!(matches!(b.register(&big, &[]), Err(TextureError::TooLarge { max_px: 2048, .. })));
    let d = TextureDesc::new(4, 4);
    assert!(matches!(
        b.register(&d, &[0; 63]),
        Err(TextureError::PixelLength { actual_bytes: 63, expected_bytes: 64, .. })
    ));
    assert!(matches!(b.register(&d.with_mip_levels(4), &[0; 64]), Err(TextureError::MipLevels { max_levels: 3, .. })));
    assert!(matches!(b.register(&d.with_mip_levels(0), &[0; 64]), Err(TextureError::MipLevels { .. })));
    let id = b.register(&d, &[0; 64]).unwrap();
    assert!(matches!(b.update(id, &[0; 65]), Err(TextureError::PixelLength { .. })));
    assert_eq!(b.resize(id, 8, 8, &[0; 256]), Err(TextureError::NotDynamic(id)));
    b.free(id).unwrap();
    assert_eq!(b.free(id), Err(TextureError::Stale(id)));
    assert_eq!(b.update(id, &[0; 64]), Err(TextureError::Stale(id)));
    // A new texture reuses the index, never the id.
    let id2 = b.register(&d, &[1; 64]).unwrap();
    assert_eq!(id2.index(), id.index());
    assert_ne!(id2, id);
    assert_eq!(b.placement(id), Err(TextureError::Stale(id)));
    b.begin_frame();
    assert_eq!(b.push(&Quad::rect(id, [0.0; 2], [1.0; 2])), Err(QuadError::Stale(id)));
    b.finish();
}

#[test]
fn non_finite_quads_are_dropped_without_touching_others() {
    let mut b = batcher(Config::default());
    let mut dev = MockDevice::new(b.budget());
    let ids = register_n(&mut b, &[(8, 8)], 2);
    b.begin_frame();
    b.push(&Quad::rect(ids[0], [1.0, 2.0], [8.0, 8.0])).unwrap();
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        assert_eq!(b.push(&Quad::rect(ids[1], [bad, 0.0], [8.0, 8.0])), Err(QuadError::NonFinite));
        assert_eq!(b.push(&Quad::rect(ids[1], [0.0, 0.0], [8.0, bad])), Err(QuadError::NonFinite));
        assert_eq!(
            b.push(&Quad::rect(ids[1], [0.0; 2], [8.0; 2]).with_uv([0.0, bad, 1.0, 1.0])),
            Err(QuadError::NonFinite)
        );
    }
    b.push(&Quad::rect(ids[1], [3.0, 4.0], [8.0, 8.0])).unwrap();
    let plan = b.finish();
    assert_eq!(plan.instances.len(), 2);
    assert_eq!(plan.instances[0].origin, [1.0, 2.0]);
    assert_eq!(plan.instances[1].origin, [3.0, 4.0]);
    assert_eq!(plan.counters.quads_rejected, 9);
    dev.execute(plan).unwrap();
    assert_eq!(dev.sampled()[1].unwrap().0, ids[1]);
}

#[test]
fn instance_buffer_overflow_flushes() {
    let mut b = batcher(Config { instance_capacity: 100, ..Config::default() });
    let mut dev = MockDevice::new(b.budget());
    let ids = register_n(&mut b, &[(8, 8)], 3);
    let c = frame(&mut b, &mut dev, &ids, &round_robin(3, 250));
    let segs: Vec<_> = b.plan().segments.iter().map(|s| (s.instances.clone(), s.cause)).collect();
    assert_eq!(
        segs,
        vec![
            (0..100, FlushCause::InstanceBufferFull),
            (100..200, FlushCause::InstanceBufferFull),
            (200..250, FlushCause::EndOfFrame)
        ]
    );
    assert_eq!((c.flushes, c.flushes_instance_buffer_full, c.slot_binds), (3, 2, 1));
}

#[test]
fn explicit_flush_splits_segments() {
    let mut b = batcher(Config::default());
    let ids = register_n(&mut b, &[(8, 8)], 1);
    b.begin_frame();
    b.flush(); // nothing pending: no-op
    for i in 0..10 {
        b.push(&Quad::rect(ids[0], [i as f32, 0.0], [1.0, 1.0])).unwrap();
        if i == 3 {
            b.flush();
            b.flush();
        }
    }
    b.flush();
    let plan = b.finish();
    let segs: Vec<_> = plan.segments.iter().map(|s| (s.instances.clone(), s.cause)).collect();
    assert_eq!(segs, vec![(0..4, FlushCause::Explicit), (4..10, FlushCause::EndOfFrame)]);
    assert_eq!((plan.counters.flushes_explicit, plan.counters.flushes), (1, 2));
}

#[test]
fn a_lone_array_in_a_high_slot_is_drawn_at_tier_one() {
    // Frame 1 fills 8 slots with 8 one-texture arrays. Frame 2 draws only the 8th: it moves
    // to slot 0 (one bind) so the segment uses the branch-free program.
    let mut b = batcher(Config { arrays_enabled: false, ..Config::default() });
    let mut dev = MockDevice::new(b.budget());
    let ids = register_n(&mut b, &[(8, 8)], 8);
    let c = frame(&mut b, &mut dev, &ids, &round_robin(8, 8));
    assert_eq!((c.max_slot_tier, c.slot_binds), (8, 8));
    let c = frame(&mut b, &mut dev, &ids, &[7, 7, 7]);
    assert_eq!(b.plan().segments[0].tier, 1);
    assert_eq!(b.plan().instances[0].slot(), 0);
    assert_eq!(c.slot_binds, 1);
    assert_eq!(b.slot_arrays()[0], Some(b.placement(ids[7]).unwrap().array));
}

#[test]
fn registration_and_free_inside_a_frame() {
    // Growth while quads are recorded: they follow the array to its new id.
    let mut b = batcher(Config { initial_layers: 2, ..Config::default() });
    let mut dev = MockDevice::new(b.budget());
    let mut ids = register_n(&mut b, &[(8, 8)], 2);
    dev.execute({
        b.begin_frame();
        b.finish()
    })
    .unwrap();
    b.begin_frame();
    b.push(&Quad::rect(ids[0], [0.0; 2], [1.0; 2])).unwrap();
    let d = TextureDesc::new(8, 8);
    ids.push(b.register(&d, &solid(&d, 2)).unwrap()); // grows 2 -> 4
    b.push(&Quad::rect(ids[2], [0.0; 2], [1.0; 2])).unwrap();
    // Freed mid-frame: the quad already pushed still draws it; new pushes are rejected.
    b.free(ids[0]).unwrap();
    assert!(b.push(&Quad::rect(ids[0], [0.0; 2], [1.0; 2])).is_err());
    let plan = b.finish();
    assert_eq!(plan.counters.array_growths, 1);
    dev.execute(plan).unwrap();
    assert_eq!(dev.sampled()[0].unwrap().0, ids[0]);
    assert_eq!(dev.sampled()[1].unwrap().0, ids[2]);
    // After the frame the layer is free again and reused.
    let p0 = Placement { layer: 0, ..b.placement(ids[2]).unwrap() };
    let id3 = b.register(&d, &solid(&d, 3)).unwrap();
    assert_eq!(b.placement(id3).unwrap(), p0);
}

#[test]
fn dynamic_textures_resize_in_their_own_array() {
    let mut b = batcher(Config::default());
    let mut dev = MockDevice::new(b.budget());
    let d = TextureDesc::new(8, 8).with_usage(Usage::Dynamic);
    let id = b.register(&d, &solid(&d, 1)).unwrap();
    assert!(b.placement(id).unwrap().dedicated);
    let big = TextureDesc::new(16, 4).with_usage(Usage::Dynamic);
    b.resize(id, 16, 4, &solid(&big, 2)).unwrap();
    assert_eq!(b.desc(id).unwrap().width_px, 16);
    assert_eq!(b.allocator().allocated_bytes(), 16 * 4 * 4);
    frame(&mut b, &mut dev, &[id], &[0]);
    assert_eq!(dev.array_count(), 1);
    assert_eq!(dev.sampled()[0].unwrap().1, MockDevice::hash(&solid(&big, 2)));
    // Render targets need no pixels.
    let rt = b.register(&TextureDesc::new(64, 64).with_usage(Usage::RenderTarget), &[]).unwrap();
    assert!(b.placement(rt).unwrap().dedicated);
}

#[test]
fn ambiguous_layer_counts_never_happen_when_the_device_says_so() {
    let limits = Limits { avoid_ambiguous_layer_counts: true, ..Limits::guaranteed_minimum() };
    let mut b = Batcher::new(
        limits,
        Config { initial_layers: 3, max_layers_per_array: 12, max_packed_size_px: 0, ..Config::default() },
    )
    .unwrap();
    let mut dev = MockDevice::new(b.budget());
    let ids = register_n(&mut b, &[(8, 8), (16, 16)], 60);
    let dedicated = b.register(&TextureDesc::new(8, 8).with_usage(Usage::Dynamic), &[0; 256]).unwrap();
    b.begin_frame();
    let plan = b.finish();
    let layers: Vec<u32> = plan.created_arrays().map(|(_, d)| d.layers).collect();
    assert!(!layers.is_empty());
    for l in &layers {
        assert!(*l != 1 && l % 6 != 0, "array of {l} layers: {layers:?}");
    }
    dev.execute(plan).unwrap();
    b.allocator().check_invariants();
    assert_eq!(b.placement(dedicated).unwrap().layer, 0);
    assert_eq!(ids.len(), 60);
}

#[test]
fn mips_are_generated_and_uploaded_with_every_level() {
    let mut b = batcher(Config::default());
    let d = TextureDesc::new(4, 4).with_mip_levels(3);
    b.register(&d, &[200; 64]).unwrap();
    b.begin_frame();
    let plan = b.finish();
    let write = plan.ops.iter().find(|op| matches!(op, ResourceOp::WriteLayer { .. })).unwrap();
    assert_eq!(plan.upload(write).len(), (16 + 4 + 1) * 4);
    assert!(plan.upload(write).iter().all(|&v| v == 200));
}

mod props {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    #[derive(Clone, Debug)]
    enum Op {
        Register {
            size: usize,
            nearest: bool,
            repeat: bool,
            dynamic: bool,
        },
        Push {
            pick: usize,
            count: usize,
        },
        PushStale,
        Free {
            pick: usize,
        },
        Update {
            pick: usize,
        },
        Finish,
        /// A plan finished and never executed, then `restore` and the listed re-uploads.
        SkipAndRestore,
        /// `begin_frame` with the frame still open, as after `?` on a push.
        Abandon,
        /// An id from another batcher.
        PushForeign,
        /// `update_region` of part of a texture.
        UpdateRegion {
            pick: usize,
            corner: (u32, u32),
        },
        /// `compact` between frames.
        Compact,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            3 => (0..6usize, any::<bool>(), any::<bool>(), prop::bool::weighted(0.1))
                .prop_map(|(size, nearest, repeat, dynamic)| Op::Register { size, nearest, repeat, dynamic }),
            4 => (any::<usize>(), 1..20usize).prop_map(|(pick, count)| Op::Push { pick, count }),
            1 => Just(Op::PushStale),
            1 => any::<usize>().prop_map(|pick| Op::Free { pick }),
            1 => any::<usize>().prop_map(|pick| Op::Update { pick }),
            1 => Just(Op::Finish),
            1 => Just(Op::SkipAndRestore),
            1 => Just(Op::Abandon),
            1 => Just(Op::PushForeign),
            1 => (any::<usize>(), (0u32..8, 0u32..8)).prop_map(|(pick, corner)| Op::UpdateRegion { pick, corner }),
            1 => Just(Op::Compact),
        ]
    }

    const SIZES: [(u32, u32); 6] = [(4, 4), (8, 8), (5, 7), (8, 4), (3, 3), (40, 2)];

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]
        #[test]
        fn random_sessions_keep_every_invariant(
            ops in prop::collection::vec(op(), 1..60),
            slots in 1u32..6,
            arrays in any::<bool>(),
            budget_layers in 6u64..40,
            capacity in 3u32..40,
            victim in prop_oneof![Just(VictimChoice::NextUse), Just(VictimChoice::LeastRecentlyUsed), Just(VictimChoice::WipeAll)],
            keep_pixels in any::<bool>(),
        ) {
            let cfg = Config {
                max_slots: slots,
                arrays_enabled: arrays,
                initial_layers: 2,
                max_layers_per_array: 4,
                budget_bytes: budget_layers * 8 * 8 * 4,
                max_class_size_px: 16,
                instance_capacity: capacity,
                victim,
                keep_pixels,
                ..Config::default()
            };
            let mut b = Batcher::new(Limits::guaranteed_minimum(), cfg).unwrap();
            let mut other = Batcher::new(Limits::guaranteed_minimum(), cfg).unwrap();
            let foreign = other.register(&TextureDesc::new(4, 4), &[9; 64]).unwrap();
            let mut dev = MockDevice::new(b.budget());
            let mut live: Vec<TextureId> = Vec::new();
            let mut dead: Vec<TextureId> = Vec::new();
            let mut content: HashMap<TextureId, u64> = HashMap::new();
            // Level-0 pixels of each live texture, to follow region updates.
            let mut pixels: HashMap<TextureId, Vec<u8>> = HashMap::new();
            let mut pushed: Vec<TextureId> = Vec::new();
            let mut seed = 0u32;
            let mut open = false;
            let mut uploads = 0u64;
            // Writes of each texture queued since the last plan.
            let mut pending: HashMap<TextureId, u64> = HashMap::new();
            let mut freed_in_frame: Vec<TextureId> = Vec::new();
            for op in ops {
                if !open && !matches!(op, Op::Finish | Op::SkipAndRestore | Op::Compact) {
                    b.begin_frame();
                    open = true;
                }
                match op {
                    Op::Register { size, nearest, repeat, dynamic } => {
                        let (w, h) = SIZES[size];
                        let mut d = TextureDesc::new(w, h);
                        if nearest { d = d.with_filter(Filter::Nearest); }
                        if repeat { d = d.with_wrap(Wrap::Repeat); }
                        if dynamic { d = d.with_usage(Usage::Dynamic); }
                        seed += 1;
                        let px = solid(&d, seed);
                        let before = b.allocator().allocated_bytes();
                        match b.register(&d, &px) {
                            Ok(id) => {
                                prop_assert!(!live.contains(&id) && !dead.contains(&id), "id reused: {:?}", id);
                                live.push(id);
                                content.insert(id, MockDevice::hash(&px));
                                pixels.insert(id, px.clone());
                                uploads += 1;
                                pending.insert(id, 1);
                            }
                            Err(TextureError::BudgetExhausted { .. }) => {
                                prop_assert_eq!(before, b.allocator().allocated_bytes());
                            }
                            Err(e) => prop_assert!(false, "unexpected error {}", e),
                        }
                    }
                    Op::Push { pick, count } => {
                        if !live.is_empty() {
                            for k in 0..count {
                                let id = live[(pick + k * 7) % live.len()];
                                b.push(&Quad::rect(id, [k as f32, 0.0], [2.0, 2.0])).unwrap();
                                pushed.push(id);
                            }
                        }
                    }
                    Op::UpdateRegion { pick, corner } => {
                        if !live.is_empty() {
                            let id = live[pick % live.len()];
                            let d = b.desc(id).unwrap();
                            let (x, y) = (corner.0 % d.width_px, corner.1 % d.height_px);
                            let (w, h) = ((d.width_px - x).min(3), (d.height_px - y).min(2));
                            seed += 1;
                            let patch = vec![(seed * 7) as u8; (w * h * 4) as usize];
                            match b.update_region(id, [x, y, w, h], &patch) {
                                Ok(()) => {
                                    prop_assert_eq!(d.mip_levels, 1);
                                    let px = pixels.get_mut(&id).unwrap();
                                    for r in 0..h {
                                        let at = (((y + r) * d.width_px + x) * 4) as usize;
                                        px[at..at + (w * 4) as usize].copy_from_slice(&patch[..(w * 4) as usize]);
                                    }
                                    content.insert(id, MockDevice::hash(px));
                                    uploads += 1;
                                    *pending.entry(id).or_default() += 1;
                                }
                                Err(TextureError::Region { .. }) => prop_assert!(d.mip_levels > 1),
                                Err(e) => prop_assert!(false, "update_region: {}", e),
                            }
                        }
                    }
                    Op::Compact => {
                        let moved = b.compact();
                        prop_assert!(!open || moved == 0, "compact moved textures inside a frame");
                    }
                    Op::PushForeign => {
                        prop_assert_eq!(b.push(&Quad::rect(foreign, [0.0; 2], [1.0; 2])), Err(QuadError::Stale(foreign)));
                        prop_assert_eq!(b.update(foreign, &[0; 64]), Err(TextureError::Stale(foreign)));
                    }
                    Op::Abandon => {
                        b.begin_frame();
                        pushed.clear();
                        // The abandoned frame drew what it freed: their writes go with it.
                        for id in freed_in_frame.drain(..) {
                            uploads -= pending.remove(&id).unwrap_or(0);
                        }
                    }
                    Op::SkipAndRestore => {
                        if !open { b.begin_frame(); }
                        open = false;
                        let _skipped = b.finish();
                        pushed.clear();
                        freed_in_frame.clear();
                        uploads = 0;
                        pending.clear();
                        let listed = b.restore();
                        if keep_pixels {
                            prop_assert!(listed.is_empty(), "with CPU copies restore lists {:?}", listed);
                            uploads = b.pending_ops().iter().filter(|op| matches!(op, ResourceOp::WriteLayer { .. })).count() as u64;
                            for op in b.pending_ops() {
                                if let ResourceOp::WriteLayer { texture, .. } = op {
                                    *pending.entry(*texture).or_default() += 1;
                                }
                            }
                        }
                        for id in listed {
                            prop_assert!(live.contains(&id), "restore listed {:?}", id);
                            let d = b.desc(id).unwrap();
                            seed += 1;
                            let px = solid(&d, seed);
                            b.update(id, &px).unwrap();
                            content.insert(id, MockDevice::hash(&px));
                            pixels.insert(id, px.clone());
                            uploads += 1;
                            pending.insert(id, 1);
                        }
                    }
                    Op::PushStale => {
                        if let Some(&id) = dead.last() {
                            prop_assert_eq!(b.push(&Quad::rect(id, [0.0; 2], [1.0; 2])), Err(QuadError::Stale(id)));
                            prop_assert_eq!(b.free(id), Err(TextureError::Stale(id)));
                        }
                    }
                    Op::Free { pick } => {
                        if !live.is_empty() {
                            let id = live.swap_remove(pick % live.len());
                            b.free(id).unwrap();
                            dead.push(id);
                            // Freed with no frame drawing it: its pending writes are dropped.
                            if !open {
                                uploads -= pending.remove(&id).unwrap_or(0);
                            } else {
                                freed_in_frame.push(id);
                            }
                        }
                    }
                    Op::Update { pick } => {
                        if !live.is_empty() {
                            let id = live[pick % live.len()];
                            let d = b.desc(id).unwrap();
                            seed += 1;
                            let px = solid(&d, seed);
                            b.update(id, &px).unwrap();
                            content.insert(id, MockDevice::hash(&px));
                            pixels.insert(id, px.clone());
                            // A whole write supersedes the texture's pending writes.
                            uploads -= pending.insert(id, 1).unwrap_or(0);
                            uploads += 1;
                        }
                    }
                    Op::Finish => {
                        pending.clear();
                        freed_in_frame.clear();
                        if !open { b.begin_frame(); }
                        open = false;
                        let budget = b.budget().clone();
                        let plan = b.finish();
                        let c = plan.counters;
                        prop_assert_eq!(c.draw_calls, plan.segments.len() as u64);
                        prop_assert_eq!(c.flushes, c.flushes_slots_exhausted + c.flushes_instance_buffer_full + c.flushes_explicit + c.flushes_end_of_frame);
                        prop_assert_eq!(c.quads, pushed.len() as u64);
                        prop_assert_eq!(c.slot_binds, plan.binds.len() as u64);
                        prop_assert_eq!(c.layer_uploads, uploads);
                        if victim != VictimChoice::WipeAll { prop_assert_eq!(c.cache_resets, 0); }
                        for s in &plan.segments {
                            prop_assert_eq!(s.tier, budget.tier_for(plan.slots(s).iter().flatten().count() as u32));
                        }
                        dev.execute(plan).map_err(|e| TestCaseError::fail(e.to_string()))?;
                        prop_assert_eq!(dev.frame_counters().draw_calls, c.draw_calls);
                        // What the device held at once, arrays retired within a plan included.
                        prop_assert!(dev.peak_bytes() <= budget.budget_bytes, "device peak {} over budget", dev.peak_bytes());
                        // Every quad sampled its own texture's current pixels.
                        for (i, id) in pushed.iter().enumerate() {
                            let got = dev.sampled()[i];
                            prop_assert_eq!(got.map(|g| g.0), Some(*id), "quad {}", i);
                            if live.contains(id) {
                                prop_assert_eq!(got.map(|g| g.1), Some(content[id]));
                            }
                        }
                        pushed.clear();
                        uploads = 0;
                        // Arrays freed during the frame are destroyed by the next plan's ops.
                        prop_assert_eq!(crate::model_tests::device_bytes_after(&dev, b.pending_ops()), b.allocator().allocated_bytes());
                    }
                }
                // After every step: never over budget, no two live textures share a layer.
                prop_assert!(b.allocator().peak_bytes() <= b.budget().budget_bytes);
                b.allocator().check_invariants();
                let mut seen: HashMap<(ArrayId, u32), Vec<[u32; 4]>> = HashMap::new();
                for id in &live {
                    let p = b.placement(*id).unwrap();
                    let list = seen.entry((p.array, p.layer)).or_default();
                    prop_assert!(list.iter().all(|r| crate::model_tests::apart(*r, p.rect_px)), "overlap at {:?}", p);
                    list.push(p.rect_px);
                }
                for id in &dead {
                    prop_assert!(!b.contains(*id));
                }
            }
        }
    }
}

// Regression tests for the findings of the plan-contract review: each failed on the code
// before it.

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
    let ta = a.register(&d, &solid(&d, 1)).unwrap();
    let tb = b.register(&d, &solid(&d, 2)).unwrap();
    // Same index and generation, different batchers.
    assert_eq!((ta.index(), ta.generation()), (tb.index(), tb.generation()));
    assert_ne!(ta.batcher(), tb.batcher());
    assert!(!b.contains(ta));
    assert_eq!(b.update(ta, &solid(&d, 3)), Err(TextureError::Stale(ta)));
    assert_eq!(b.free(ta), Err(TextureError::Stale(ta)));
    b.begin_frame();
    assert_eq!(b.push(&Quad::rect(ta, [0.0; 2], [4.0; 2])), Err(QuadError::Stale(ta)));
    assert!(b.contains(tb));
}

#[test]
fn generation_never_wraps() {
    let mut b = batcher(Config::default());
    let d = TextureDesc::new(4, 4);
    let first = b.register(&d, &solid(&d, 1)).unwrap();
    // Fast-forward the index to its second-to-last generation.
    b.set_generation_for_test(first.index(), u32::MAX - 1);
    let old = TextureId { generation: u32::MAX - 1, ..first };
    b.free(old).unwrap();
    let last = b.register(&d, &solid(&d, 2)).unwrap();
    assert_eq!((last.index(), last.generation()), (first.index(), u32::MAX));
    b.free(last).unwrap();
    // The index is retired: the next registration takes a new one, and no id of the old
    // index (the first one included) ever becomes valid again.
    let next = b.register(&d, &solid(&d, 3)).unwrap();
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
    };
    let cfg = Config { budget_bytes: u64::MAX, max_class_size_px: u32::MAX, ..Config::default() };
    let mut b = Batcher::new(limits, cfg).unwrap();
    let huge = TextureDesc::new(u32::MAX, u32::MAX).with_usage(Usage::RenderTarget);
    assert!(matches!(b.register(&huge, &[]), Err(TextureError::BudgetExhausted { .. })));
    let mipped = TextureDesc::new(u32::MAX, u32::MAX).with_mip_levels(32).with_usage(Usage::RenderTarget);
    assert!(matches!(b.register(&mipped, &[]), Err(TextureError::BudgetExhausted { .. })));
    // A static texture's byte length saturates instead of wrapping, so no slice matches it.
    let d = TextureDesc::new(u32::MAX, u32::MAX);
    assert!(matches!(b.register(&d, &[0; 16]), Err(TextureError::PixelLength { .. })));
    assert_eq!(b.allocator().allocated_bytes(), 0);
}

#[test]
fn instance_capacity_fits_the_device_buffer() {
    let limits = Limits { max_buffer_bytes: 1 << 20, ..Limits::guaranteed_minimum() };
    let b = Batcher::new(limits, Config::default()).unwrap();
    // Instanced quads (the default off software rasterizers): 64 bytes a quad.
    assert!(!b.budget().indexed_quads);
    assert_eq!(b.budget().instance_capacity, (1 << 20) / Instance::BYTES);
    // Indexed quads (the default on them): 4 vertices of 64 bytes a quad.
    let soft = Batcher::new(limits.with_software_rasterizer(true), Config::default()).unwrap();
    assert!(soft.budget().indexed_quads);
    assert_eq!(soft.budget().instance_capacity, (1 << 20) / Instance::QUAD_BYTES);
    let forced = Config::default().with_quad_vertices(QuadVertices::Instanced);
    assert!(!Batcher::new(limits.with_software_rasterizer(true), forced).unwrap().budget().indexed_quads);
    let forced = Config::default().with_quad_vertices(QuadVertices::Indexed);
    assert!(Batcher::new(limits, forced).unwrap().budget().indexed_quads);
    // Room for one instance but not for its four vertices.
    let tiny = Limits { max_buffer_bytes: u64::from(Instance::QUAD_BYTES) - 1, ..Limits::guaranteed_minimum() };
    assert_eq!(Batcher::new(tiny, Config::default()).unwrap().budget().instance_capacity, 3);
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
        b.update(id, &px).unwrap();
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
    let rt = b.register(&TextureDesc::new(8, 8).with_usage(Usage::RenderTarget), &[]).unwrap();
    frame(&mut b, &mut dev, &ids, &[0, 1]);
    // Queued since the last plan: kept by the rebuild, so not listed.
    let d = TextureDesc::new(8, 8);
    let fresh = b.register(&d, &solid(&d, 50)).unwrap();
    b.update(ids[0], &solid(&d, 51)).unwrap();
    assert_eq!(b.restore(), [ids[1]]);
    assert!(b.contains(rt));
    b.update(ids[1], &solid(&d, 52)).unwrap();
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
    let rt = b.register(&TextureDesc::new(8, 8).with_usage(Usage::RenderTarget), &[]).unwrap();
    let texel_bytes: u64 = ids.iter().map(|&id| b.desc(id).unwrap().byte_len() as u64).sum();
    assert_eq!(b.cpu_copy_bytes(), texel_bytes);
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
    b.free(ids[0]).unwrap();
    assert_eq!(b.cpu_copy_bytes(), texel_bytes - 8 * 8 * 4);
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
    a.free(dead).unwrap();
    b.free(ib[3]).unwrap();
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

// Atlas pages: loose images of every size.

/// `n` seeded random sizes, each side 1..=256.
fn random_sizes(seed: u64, n: usize) -> Vec<(u32, u32)> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..n).map(|_| (1 + (next() % 256) as u32, 1 + (next() % 256) as u32)).collect()
}

fn texel_bytes(sizes: &[(u32, u32)]) -> u64 {
    sizes.iter().map(|&(w, h)| u64::from(w) * u64::from(h) * 4).sum()
}

#[test]
fn two_hundred_loose_images_share_one_array_in_one_draw() {
    for seed in [1, 2, 3, 4, 5] {
        let mut b = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
        let mut dev = MockDevice::new(b.budget());
        let sizes = random_sizes(seed, 200);
        let ids: Vec<TextureId> = sizes
            .iter()
            .enumerate()
            .map(|(i, &(w, h))| {
                let d = TextureDesc::new(w, h);
                b.register(&d, &solid(&d, i as u32)).unwrap()
            })
            .collect();
        // 200 overlapping sprites, one per texture.
        let seq: Vec<usize> = (0..200).collect();
        let c = frame(&mut b, &mut dev, &ids, &seq);
        assert_eq!(b.allocator().array_count(), 1, "seed {seed}: every texture in one array");
        assert_eq!((c.draw_calls, b.plan().segments[0].tier), (1, 1), "seed {seed}");
        let texels = texel_bytes(&sizes);
        let allocated = b.allocator().allocated_bytes();
        let ratio = allocated as f64 / texels as f64;
        println!("seed {seed}: {allocated} bytes for {texels} texel bytes: {ratio:.3}x");
        assert!(ratio <= 1.3, "seed {seed}: {ratio:.3}x the texel bytes");
        b.allocator().check_invariants();
    }
}

#[test]
fn small_sets_stay_small() {
    let mut b = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
    let ids = register_n(&mut b, &[(16, 16)], 3);
    assert!(b.allocator().allocated_bytes() <= 256 << 10, "{} bytes", b.allocator().allocated_bytes());
    assert_eq!(b.allocator().array_count(), 1);
    let mut dev = MockDevice::new(b.budget());
    frame(&mut b, &mut dev, &ids, &[0, 1, 2, 0]);
    assert_eq!(b.plan().segments.len(), 1);
}

#[test]
fn mipmapped_and_repeating_textures_stay_out_of_pages() {
    // Mips would need gutters and aligned rectangles at every level; repeat and mirror tile
    // their whole layer. Both keep size classes (or arrays of their own).
    let mut b = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
    let d = TextureDesc::new(16, 16);
    let packed = b.register(&d, &solid(&d, 1)).unwrap();
    let mipped = b.register(&d.with_mip_levels(5), &solid(&d, 2)).unwrap();
    let tiled = b.register(&d.with_wrap(Wrap::Repeat), &solid(&d, 3)).unwrap();
    let page = b.placement(packed).unwrap().array;
    for id in [mipped, tiled] {
        let p = b.placement(id).unwrap();
        assert_ne!(p.array, page, "{:?} packed", b.desc(id).unwrap());
        assert_eq!(p.rect_px, [0, 0, 16, 16]);
        assert_eq!(b.allocator().array(p.array).unwrap().width_px, 16, "its own class");
    }
    // Larger than max_packed_size_px: a class too (packing up to 256 px here; the default
    // packs up to the page size).
    let mut b = Batcher::new(Limits::guaranteed_minimum(), Config::default().with_max_packed_size_px(256)).unwrap();
    let small = b.register(&d, &solid(&d, 1)).unwrap();
    let page = b.placement(small).unwrap().array;
    let big = TextureDesc::new(300, 40);
    let big = b.register(&big, &solid(&big, 4)).unwrap();
    assert_ne!(b.placement(big).unwrap().array, page);
}

#[test]
fn churn_three_thousand_frames_memory_levels_off() {
    let frames = std::env::var("LAYERBATCH_CHURN_FRAMES").ok().and_then(|v| v.parse().ok()).unwrap_or(3000);
    let mut b = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
    let mut dev = MockDevice::new(b.budget());
    // A 512 px page of slack (the default page when this bound was set): the default page
    // size is 2048 px now, and 16 MiB of slack would let anything through.
    let page_bytes = 512 * 512 * 4;
    let mut sizes = random_sizes(99, 100_000).into_iter();
    let mut rng = 12345u64;
    let mut pick = move |n: usize| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % n as u64) as usize
    };
    let mut live: Vec<(TextureId, u64)> = Vec::new();
    let mut register = |b: &mut Batcher, live: &mut Vec<(TextureId, u64)>, seed: u32| {
        let (w, h) = sizes.next().unwrap();
        let d = TextureDesc::new(w, h);
        let id = b.register(&d, &solid(&d, seed)).unwrap_or_else(|e| panic!("registration failed: {e}"));
        live.push((id, u64::from(w) * u64::from(h) * 4));
    };
    for i in 0..100 {
        register(&mut b, &mut live, i);
    }
    let mut worst = 0.0f64;
    for f in 0..frames {
        for _ in 0..5 {
            let (id, _) = live.swap_remove(pick(live.len()));
            b.free(id).unwrap();
        }
        for k in 0..5 {
            register(&mut b, &mut live, f * 5 + k);
        }
        let ids: Vec<TextureId> = live.iter().map(|t| t.0).collect();
        let seq: Vec<usize> = (0..ids.len()).collect();
        frame(&mut b, &mut dev, &ids, &seq);
        b.allocator().check_invariants();
        let texels: u64 = live.iter().map(|t| t.1).sum();
        let allocated = b.allocator().allocated_bytes();
        if std::env::var_os("CHURN_TRACE").is_some() {
            let c = b.plan().counters;
            println!(
                "frame {f}: {:.2}x, {} KiB, rect copies {}, shrinks {}, growths {}",
                allocated as f64 / texels as f64,
                allocated >> 10,
                c.rect_copies,
                c.array_shrinks,
                c.array_growths
            );
        }
        if f >= 100 {
            assert!(
                allocated <= 2 * texels + page_bytes,
                "frame {f}: {allocated} bytes allocated for {texels} live texel bytes"
            );
            worst = worst.max(allocated as f64 / texels as f64);
        }
        assert!(dev.peak_bytes() <= b.budget().budget_bytes);
    }
    println!("churn: {frames} frames, worst {worst:.2}x the live texel bytes after frame 100");
}

// Sprite-layer helpers.

#[test]
fn solid_quads_share_the_sprites_draw_and_survive_restore() {
    let mut b = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
    let mut dev = MockDevice::new(b.budget());
    let ids = register_n(&mut b, &[(16, 16), (30, 7)], 6);
    let white = b.white().unwrap();
    assert_eq!(b.white().unwrap(), white, "registered once");
    assert_eq!(b.placement(white).unwrap().array, b.placement(ids[0]).unwrap().array, "in the sprites' page");
    let mut all = ids.clone();
    all.push(white);
    let seq: Vec<usize> = (0..all.len()).chain(0..all.len()).collect();
    let c = frame(&mut b, &mut dev, &all, &seq);
    assert_eq!((c.draw_calls, b.plan().segments[0].tier), (1, 1));
    let white_hash = MockDevice::hash(&[255; 4]);
    assert_eq!(dev.sampled()[6], Some((white, white_hash)));
    // The host re-uploads its textures after a loss; the white texel is the batcher's.
    let listed = b.restore();
    assert!(!listed.contains(&white));
    assert_eq!(listed.len(), ids.len());
    let mut dev = MockDevice::new(b.budget());
    for (k, &id) in ids.iter().enumerate() {
        let d = b.desc(id).unwrap();
        b.update(id, &solid(&d, k as u32)).unwrap();
    }
    frame(&mut b, &mut dev, &all, &seq);
    assert_eq!(dev.sampled()[6], Some((white, white_hash)));
    // Freed by the host: the next call makes a new one.
    b.free(white).unwrap();
    let again = b.white().unwrap();
    assert_ne!(again, white);
    assert!(b.contains(again));
}

#[test]
fn quad_helpers_place_flip_and_premultiply() {
    let mut b = batcher(Config::default());
    let t = register_n(&mut b, &[(8, 8)], 1)[0];
    // Rotated a quarter turn about its centre: corners as `rotated` gives them.
    let a = Quad::placed(t, [50.0, 50.0], [20.0, 10.0], [0.5, 0.5], [1.0, 1.0], std::f32::consts::FRAC_PI_2);
    let r = Quad::rotated(t, [50.0, 50.0], [20.0, 10.0], std::f32::consts::FRAC_PI_2);
    for k in 0..2 {
        assert!((a.origin[k] - r.origin[k]).abs() < 1e-4 && (a.axis_x[k] - r.axis_x[k]).abs() < 1e-4);
    }
    // Pivot at the top-left corner, scaled 3x: the corner stays put.
    let p = Quad::placed(t, [5.0, 6.0], [4.0, 2.0], [0.0, 0.0], [3.0, 3.0], 0.0);
    assert_eq!((p.origin, p.axis_x, p.axis_y), ([5.0, 6.0], [12.0, 0.0], [0.0, 6.0]));
    // A negative scale mirrors around the pivot.
    let m = Quad::placed(t, [10.0, 0.0], [4.0, 4.0], [0.5, 0.0], [-1.0, 1.0], 0.0);
    assert_eq!((m.origin, m.axis_x), ([12.0, 0.0], [-4.0, 0.0]));
    let f = Quad::rect(t, [0.0; 2], [1.0; 2]).with_uv([0.1, 0.2, 0.3, 0.4]).flipped(true, true);
    assert_eq!(f.uv, [0.3, 0.4, 0.1, 0.2]);
    assert_eq!(premultiply([255, 255, 255, 0]), [0, 0, 0, 0]);
    assert_eq!(premultiply([10, 20, 30, 255]), [10, 20, 30, 255]);
    // Every helper's quad is accepted and samples its texture.
    let mut dev = MockDevice::new(b.budget());
    b.begin_frame();
    for q in [a, p, m, f, Quad::rect(t, [0.0; 2], [8.0; 2]).with_source_px([2.0, 2.0, 4.0, 4.0], [8, 8])] {
        b.push(&q).unwrap();
    }
    dev.execute(b.finish()).unwrap();
    assert!(dev.sampled().iter().all(|s| s.is_some_and(|s| s.0 == t)));
}

// Draw state: blend, clip, transform.

#[test]
fn draw_state_changes_end_segments_only_when_they_must() {
    let mut b = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
    let mut dev = MockDevice::new(b.budget());
    let ids = register_n(&mut b, &[(8, 8)], 2);
    let camera = [2.0, 0.0, 0.0, 2.0, -10.0, 5.0];
    b.begin_frame();
    // Changes before any quad, and changes undone before the next quad, cost nothing.
    b.set_blend(BlendMode::Additive);
    b.set_blend(BlendMode::Over);
    b.set_transform(camera);
    for i in 0..10 {
        b.push(&Quad::rect(ids[i % 2], [i as f32, 0.0], [4.0; 2])).unwrap();
    }
    b.set_clip(Some([0, 0, 50, 50]));
    b.set_clip(None);
    b.push(&Quad::rect(ids[0], [0.0; 2], [4.0; 2])).unwrap();
    // A camera change between two groups of quads: one flush, counted.
    b.set_transform(DrawState::IDENTITY);
    for i in 0..10 {
        b.push(&Quad::rect(ids[i % 2], [i as f32, 10.0], [4.0; 2])).unwrap();
    }
    b.set_transform([f32::NAN; 6]); // ignored
    let plan = b.finish();
    assert_eq!(plan.segments.len(), 2);
    assert_eq!((plan.counters.flushes_state_change, plan.counters.flushes_end_of_frame), (1, 1));
    assert_eq!(plan.state(&plan.segments[0]).transform, camera);
    assert_eq!(plan.state(&plan.segments[1]), DrawState::default());
    assert_eq!(plan.segments[0].instances, 0..11);
    dev.execute(plan).unwrap();
    // A frame starts from the default state: a state set between frames is not kept.
    assert_eq!(b.draw_state(), DrawState::default());
    b.set_blend(BlendMode::Multiply);
    b.begin_frame();
    assert_eq!(b.draw_state(), DrawState::default());
    b.set_blend(BlendMode::Multiply);
    b.push(&Quad::rect(ids[0], [0.0; 2], [4.0; 2])).unwrap();
    let plan = b.finish();
    assert_eq!((plan.segments.len(), plan.state(&plan.segments[0]).blend), (1, BlendMode::Multiply));
    dev.execute(plan).unwrap();
}

#[test]
fn alternating_blend_modes_cost_a_draw_each() {
    // Like PixiJS, a change to a blend mode that needs other blend factors is a new draw:
    // 10,000 quads alternating over and multiply are 10,000 draws. Grouping by mode, in
    // painter's order, is the host's call.
    let mut b = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
    let mut dev = MockDevice::new(b.budget());
    let t = register_n(&mut b, &[(8, 8)], 1)[0];
    b.begin_frame();
    let modes = [BlendMode::Over, BlendMode::Multiply];
    let quads: Vec<Quad> = (0..10_000).map(|i| Quad::rect(t, [(i % 100) as f32, (i / 100) as f32], [2.0; 2])).collect();
    for (i, q) in quads.iter().enumerate() {
        b.set_blend(modes[i % 2]);
        b.push(q).unwrap();
    }
    let plan = b.finish();
    assert_eq!(plan.counters.draw_calls, 10_000);
    assert_eq!(plan.counters.flushes_state_change, 9_999);
    // Two distinct states, however often they alternate.
    assert_eq!(plan.states.len(), 2);
    for (k, seg) in plan.segments.iter().enumerate() {
        assert_eq!(plan.state(seg).blend, modes[k % 2]);
    }
    dev.execute(plan).unwrap();
}

#[test]
fn over_and_additive_alternating_share_one_draw() {
    // Premultiplied "over" with a source alpha of 0 adds: additive quads get their tint's
    // alpha zeroed and stay in the "over" draw. 10,000 alternating quads: one draw.
    let mut b = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
    let mut dev = MockDevice::new(b.budget());
    let t = register_n(&mut b, &[(8, 8)], 1)[0];
    let tint = [200, 100, 50, 200];
    b.begin_frame();
    for i in 0..10_000 {
        b.set_blend(if i % 2 == 0 { BlendMode::Over } else { BlendMode::Additive });
        b.push(&Quad::rect(t, [(i % 100) as f32, (i / 100) as f32], [2.0; 2]).with_color(tint)).unwrap();
    }
    // push_all under additive zeroes the alpha too.
    let more = [Quad::rect(t, [0.0; 2], [2.0; 2]).with_color(tint); 3];
    b.push_all(&more).unwrap();
    let plan = b.finish();
    assert_eq!((plan.counters.draw_calls, plan.counters.flushes_state_change), (1, 0));
    assert_eq!(plan.state(&plan.segments[0]).blend, BlendMode::Over);
    for (i, inst) in plan.instances.iter().enumerate() {
        let additive = i % 2 == 1 || i >= 10_000;
        let want = if additive { [200, 100, 50, 0] } else { tint };
        assert_eq!(inst.color, want, "instance {i}");
    }
    dev.execute(plan).unwrap();
    // The next frame starts with "over": alphas are kept again.
    b.begin_frame();
    b.push(&Quad::rect(t, [0.0; 2], [2.0; 2]).with_color(tint)).unwrap();
    assert_eq!(b.finish().instances[0].color, tint);
}

#[test]
fn bad_draw_states_are_plan_errors() {
    let mut b = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
    let t = register_n(&mut b, &[(8, 8)], 1)[0];
    b.begin_frame();
    b.push(&Quad::rect(t, [0.0; 2], [4.0; 2])).unwrap();
    let mut plan = b.finish().clone();
    plan.segments[0].state = 3;
    let mut dev = MockDevice::new(b.budget());
    assert_eq!(dev.execute(&plan), Err(PlanError::BadState { segment: 0, state: 3 }));
    plan.segments[0].state = 0;
    plan.states[0].transform[4] = f32::INFINITY;
    assert_eq!(dev.execute(&plan), Err(PlanError::BadState { segment: 0, state: 0 }));
}

#[test]
fn a_state_set_again_reuses_its_entry() {
    let mut b = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
    let t = register_n(&mut b, &[(8, 8)], 1)[0];
    let q = Quad::rect(t, [0.0; 2], [4.0; 2]);
    b.begin_frame();
    b.set_blend(BlendMode::Multiply); // before any quad: replaces the frame's first state
    b.push(&q).unwrap();
    b.set_blend(BlendMode::Over);
    b.set_clip(Some([0, 0, 4, 4]));
    b.set_clip(None); // back where it was before any quad of it: no change
    b.push(&q).unwrap();
    b.set_blend(BlendMode::Multiply);
    b.push(&q).unwrap();
    b.set_blend(BlendMode::Over);
    b.set_blend(BlendMode::Multiply); // set and unset between two quads: no flush
    b.push(&q).unwrap();
    let plan = b.finish();
    assert_eq!(plan.segments.len(), 3);
    assert_eq!(plan.counters.flushes_state_change, 2);
    assert_eq!(plan.states.len(), 2, "{:?}", plan.states);
    let blends: Vec<_> = plan.segments.iter().map(|s| plan.state(s).blend).collect();
    assert_eq!(blends, [BlendMode::Multiply, BlendMode::Over, BlendMode::Multiply]);
    assert_eq!(plan.segments[0].instances, 0..1);
    assert_eq!(plan.segments[2].instances, 2..4);
    // The next frame starts from the default state, even after a frame left open with a
    // clip set (a host's `?`), reusing nothing stale.
    b.begin_frame();
    b.set_clip(Some([0, 0, 1, 1]));
    b.push(&q).unwrap();
    b.begin_frame();
    b.push(&q).unwrap();
    let plan = b.finish();
    assert_eq!(plan.counters.frames_discarded, 1);
    assert_eq!(plan.states.len(), 1);
    assert_eq!(plan.state(&plan.segments[0]), DrawState::default());
}

#[test]
fn frames_into_render_targets() {
    let mut b = batcher(Config::default());
    let mut dev = MockDevice::new(b.budget());
    let ids = register_n(&mut b, &[(8, 8)], 2);
    // Larger than any size class: a one-texture array of exactly its size.
    let big = Limits::guaranteed_minimum().max_texture_size_px.min(1500);
    let rt = b.register(&TextureDesc::new(big, 700).with_usage(Usage::RenderTarget), &[]).unwrap();
    assert_eq!(b.begin_frame_into(ids[0], None), Err(TextureError::NotRenderTarget(ids[0])));
    b.begin_frame_into(rt, Some([2.0, f32::NAN, -1.0, 0.5])).unwrap();
    b.push(&Quad::rect(ids[0], [0.0, 0.0], [8.0, 8.0])).unwrap();
    assert_eq!(b.push(&Quad::rect(rt, [0.0, 0.0], [8.0, 8.0])), Err(QuadError::SamplesTarget(rt)));
    let batch = [Quad::rect(ids[1], [8.0, 0.0], [8.0, 8.0]), Quad::rect(rt, [0.0, 0.0], [8.0, 8.0])];
    let err = b.push_all(&batch).unwrap_err();
    assert_eq!((err.index, err.error), (1, QuadError::SamplesTarget(rt)));
    let p = b.placement(rt).unwrap();
    let plan = b.finish();
    let t = plan.target.expect("a target");
    assert_eq!((t.texture, t.array, t.layer, t.size_px), (rt, p.array, p.layer, [big, 700]));
    assert_eq!(t.clear_rgba, Some([1.0, 0.0, 0.0, 0.5]));
    let desc = plan.created_arrays().find(|(a, _)| *a == p.array).expect("created by this plan").1;
    assert!(desc.render_target && desc.width_px == big && desc.height_px == 700);
    assert_eq!(plan.instances.len(), 2);
    dev.execute(plan).unwrap();
    // The next frame draws to the host again, and may sample the target.
    b.begin_frame();
    b.push(&Quad::rect(rt, [0.0, 0.0], [8.0, 8.0])).unwrap();
    let plan = b.finish();
    assert!(plan.target.is_none());
    assert!(plan.slot_tables.contains(&Some(p.array)));
    dev.execute(plan).unwrap();
    // A target freed during its own frame: the plan still runs (the array goes next plan).
    b.begin_frame_into(rt, None).unwrap();
    b.push(&Quad::rect(ids[0], [0.0, 0.0], [8.0, 8.0])).unwrap();
    b.free(rt).unwrap();
    dev.execute(b.finish()).unwrap();
    assert_eq!(b.begin_frame_into(rt, None), Err(TextureError::Stale(rt)));
    b.begin_frame();
    dev.execute(b.finish()).unwrap();
    // A frame begun into a target and then restarted plainly draws to the host.
    let rt2 = b.register(&TextureDesc::new(16, 16).with_usage(Usage::RenderTarget), &[]).unwrap();
    b.begin_frame_into(rt2, None).unwrap();
    b.begin_frame();
    b.push(&Quad::rect(rt2, [0.0, 0.0], [8.0, 8.0])).unwrap();
    let plan = b.finish();
    assert!(plan.target.is_none());
    dev.execute(plan).unwrap();
}

#[test]
fn validator_refuses_bad_targets() {
    let mut b = batcher(Config::default());
    let mut v = PlanValidator::new(b.budget());
    let ids = register_n(&mut b, &[(8, 8)], 1);
    let rt = b.register(&TextureDesc::new(16, 16).with_usage(Usage::RenderTarget), &[]).unwrap();
    b.begin_frame();
    b.push(&Quad::rect(rt, [0.0, 0.0], [8.0, 8.0])).unwrap();
    b.push(&Quad::rect(ids[0], [0.0, 0.0], [8.0, 8.0])).unwrap();
    let good = b.finish().clone();
    let (rt_array, static_array) = (b.placement(rt).unwrap().array, b.placement(ids[0]).unwrap().array);
    let target = |array, layer, size_px| Some(PlanTarget { texture: rt, array, layer, size_px, clear_rgba: None });
    let reason = |plan: &FramePlan| match v.clone().check(plan) {
        Err(PlanError::BadTarget { reason, .. }) => reason,
        other => panic!("{other:?}"),
    };
    let mut p = good.clone();
    p.target = target(rt_array, 0, [16, 16]);
    assert_eq!(reason(&p), "a segment samples the array the plan draws into");
    p.target = target(static_array, 0, [8, 8]);
    assert_eq!(reason(&p), "not a render-target array");
    p.target = target(ArrayId(999), 0, [8, 8]);
    assert_eq!(reason(&p), "the device holds no such array");
    p.target = target(rt_array, 99, [16, 16]);
    assert_eq!(reason(&p), "the layer is past the array's last");
    p.target = target(rt_array, 0, [17, 16]);
    assert_eq!(reason(&p), "its size is empty or larger than the array's layers");
    // Refused plans changed nothing: the good one still runs.
    v.check(&good).unwrap();
}

/// The shader clamps only textures that share or pad their layer: a clamp-to-edge texture
/// filling its layer for good is clamped by its sampler, at every mip level, so sampling it
/// needs no clamp (and implicit derivatives stay exact).
#[test]
fn clamp_flag_only_where_a_layer_is_shared_or_padded() {
    let flags = |config: Config, desc: TextureDesc| {
        let mut b = Batcher::new(Limits::guaranteed_minimum(), config).unwrap();
        let t = b.register(&desc, &vec![7; desc.byte_len()]).unwrap();
        b.begin_frame();
        b.push(&Quad::rect(t, [0.0, 0.0], [4.0, 4.0])).unwrap();
        let i = b.finish().instances[0];
        (i.slot_flags_layer >> Instance::FLAGS_SHIFT) & Instance::FLAGS_MASK & !Instance::FLAG_LINEAR
    };
    let clamp = Instance::FLAG_CLAMP_TO_RECT;
    let pages = Config::default();
    let classes = Config::default().with_max_packed_size_px(0);
    // In an atlas page (which may grow around it), even when it fills the page today.
    assert_eq!(flags(pages, TextureDesc::new(16, 16)), clamp);
    assert_eq!(flags(pages, TextureDesc::new(64, 64)), clamp);
    // Alone in a class layer of its own size, mipmapped or not: the sampler clamps.
    assert_eq!(flags(classes, TextureDesc::new(64, 64)), 0);
    assert_eq!(flags(classes, TextureDesc::new(64, 64).with_mip_levels(7)), 0);
    // Padded into a larger class: clamped.
    assert_eq!(flags(classes, TextureDesc::new(60, 64)), clamp);
    // An array of its own (larger than any class): the sampler clamps.
    assert_eq!(flags(classes, TextureDesc::new(1500, 20)), 0);
    assert_eq!(flags(pages, TextureDesc::new(8, 8).with_wrap(Wrap::Repeat)), Instance::FLAG_REPEAT);
}

#[test]
fn quad_indices_draw_each_quad_from_its_own_four_vertices() {
    use crate::plan::quad_indices;
    assert_eq!(quad_indices(0).len(), 0);
    for quads in [1u32, 2, 7, 65536] {
        let list: Vec<u32> = quad_indices(quads).collect();
        assert_eq!(list.len(), quads as usize * Instance::INDICES as usize);
        for (q, tri) in list.chunks(Instance::INDICES as usize).enumerate() {
            let base = q as u32 * Instance::VERTICES;
            // Two triangles of the quad's corners (s, t) = (k % 2, k / 2), sharing the
            // diagonal 1-2: together they cover the quad once.
            assert_eq!(tri, [base, base + 1, base + 2, base + 2, base + 1, base + 3], "quad {q} of {quads}");
        }
        assert_eq!(list.iter().max().copied(), Some(quads * Instance::VERTICES - 1));
    }
    // The largest count whose index list fits u32 works lazily; one more panics (documented).
    let most = u32::MAX / Instance::INDICES;
    assert_eq!(quad_indices(most).len(), (most * Instance::INDICES) as usize);
    assert!(std::panic::catch_unwind(|| quad_indices(most + 1).len()).is_err());
}

#[test]
fn expand_quads_writes_each_instance_per_corner_in_order_and_reuses_its_buffer() {
    use crate::plan::expand_quads;
    let instances: Vec<Instance> =
        (0..100u8).map(|i| Instance { color: [i, 0, 0, 255], ..Instance::default() }).collect();
    let mut out = Vec::new();
    expand_quads(&instances, &mut out);
    assert_eq!(out.len(), 400);
    for (k, v) in out.iter().enumerate() {
        assert_eq!(*v, instances[k / Instance::VERTICES as usize], "vertex {k}");
    }
    let capacity = out.capacity();
    expand_quads(&instances[..3], &mut out);
    assert_eq!((out.len(), out.capacity()), (12, capacity), "a smaller block reuses the allocation");
    expand_quads(&[], &mut out);
    assert!(out.is_empty());
    assert_eq!(Instance::QUAD_BYTES as usize, 4 * std::mem::size_of::<Instance>());
}
