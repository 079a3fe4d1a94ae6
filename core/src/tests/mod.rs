//! Policy tests: the batcher driven through the mock device. No GPU.
//!
//! Here: size classes, the ladder, budgets and bad input; [`props`]: property tests;
//! [`regressions`]: one test per review finding; [`pages_and_state`]: atlas pages, sprite
//! helpers, draw states and render targets.

use crate::alloc::*;
use crate::plan::*;
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
            b.textures().register(&d, &solid(&d, i as u32)).unwrap()
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
        sampler: Sampler::new(Filter::Linear, Wrap::ClampToEdge),
        render_target: false,
        normal_map: false,
        host: None,
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
    let err = b.textures().register(&d, &solid(&d, 99)).unwrap_err();
    assert_eq!(
        err,
        TextureError::BudgetExhausted {
            format: Format::Rgba8Unorm,
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
    assert_eq!(b.textures().register(&zero, &[]), Err(TextureError::ZeroSize { width_px: 0, height_px: 4 }));
    let big = TextureDesc::new(4096, 4);
    assert!(matches!(b.textures().register(&big, &[]), Err(TextureError::TooLarge { max_px: 2048, .. })));
    let d = TextureDesc::new(4, 4);
    assert!(matches!(
        b.textures().register(&d, &[0; 63]),
        Err(TextureError::PixelLength { actual_bytes: 63, expected_bytes: 64, .. })
    ));
    assert!(matches!(
        b.textures().register(&d.with_mip_levels(4), &[0; 64]),
        Err(TextureError::MipLevels { max_levels: 3, .. })
    ));
    assert!(matches!(b.textures().register(&d.with_mip_levels(0), &[0; 64]), Err(TextureError::MipLevels { .. })));
    let id = b.textures().register(&d, &[0; 64]).unwrap();
    assert!(matches!(b.textures().update(id, &[0; 65]), Err(TextureError::PixelLength { .. })));
    assert_eq!(b.textures().resize(id, 8, 8, &[0; 256]), Err(TextureError::NotDynamic(id)));
    b.textures().free(id).unwrap();
    assert_eq!(b.textures().free(id), Err(TextureError::Stale(id)));
    assert_eq!(b.textures().update(id, &[0; 64]), Err(TextureError::Stale(id)));
    // A new texture reuses the index, never the id.
    let id2 = b.textures().register(&d, &[1; 64]).unwrap();
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
    let held = Some(b.placement(ids[7]).unwrap().array);
    assert_eq!(b.textures().slot_arrays()[0], held);
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
    ids.push(b.textures().register(&d, &solid(&d, 2)).unwrap()); // grows 2 -> 4
    b.push(&Quad::rect(ids[2], [0.0; 2], [1.0; 2])).unwrap();
    // Freed mid-frame: the quad already pushed still draws it; new pushes are rejected.
    b.textures().free(ids[0]).unwrap();
    assert!(b.push(&Quad::rect(ids[0], [0.0; 2], [1.0; 2])).is_err());
    let plan = b.finish();
    assert_eq!(plan.counters.array_growths, 1);
    dev.execute(plan).unwrap();
    assert_eq!(dev.sampled()[0].unwrap().0, ids[0]);
    assert_eq!(dev.sampled()[1].unwrap().0, ids[2]);
    // After the frame the layer is free again and reused.
    let p0 = Placement { layer: 0, ..b.placement(ids[2]).unwrap() };
    let id3 = b.textures().register(&d, &solid(&d, 3)).unwrap();
    assert_eq!(b.placement(id3).unwrap(), p0);
}

#[test]
fn dynamic_textures_resize_in_their_own_array() {
    let mut b = batcher(Config::default());
    let mut dev = MockDevice::new(b.budget());
    let d = TextureDesc::new(8, 8).with_usage(Usage::Dynamic);
    let id = b.textures().register(&d, &solid(&d, 1)).unwrap();
    assert!(b.placement(id).unwrap().dedicated);
    let big = TextureDesc::new(16, 4).with_usage(Usage::Dynamic);
    b.textures().resize(id, 16, 4, &solid(&big, 2)).unwrap();
    assert_eq!(b.desc(id).unwrap().width_px, 16);
    assert_eq!(b.allocator().allocated_bytes(), 16 * 4 * 4);
    frame(&mut b, &mut dev, &[id], &[0]);
    assert_eq!(dev.array_count(), 1);
    assert_eq!(dev.sampled()[0].unwrap().1, MockDevice::hash(&solid(&big, 2)));
    // Render targets need no pixels.
    let rt = b.textures().register(&TextureDesc::new(64, 64).with_usage(Usage::RenderTarget), &[]).unwrap();
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
    let dedicated = b.textures().register(&TextureDesc::new(8, 8).with_usage(Usage::Dynamic), &[0; 256]).unwrap();
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
    b.textures().register(&d, &[200; 64]).unwrap();
    b.begin_frame();
    let plan = b.finish();
    let write = plan.ops.iter().find(|op| matches!(op, ResourceOp::WriteLayer { .. })).unwrap();
    assert_eq!(plan.upload(write).len(), (16 + 4 + 1) * 4);
    assert!(plan.upload(write).iter().all(|&v| v == 200));
}

mod drawing_state;
mod effects;
mod formats;
mod host;
mod lights;
mod meshes;
mod motion;
mod pages_and_state;
mod parts;
mod props;
mod regressions;
mod resident_trust;
mod residents;
mod sorting;
mod tilegrid;
mod tilemap_trust;
mod tiles;
mod trust;
