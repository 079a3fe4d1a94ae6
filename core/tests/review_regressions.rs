//! Regression tests for what a hostile review of core found, each named after the finding,
//! through the public API, on the mock device.

use layerbatch_core::alloc::{Allocator, Placement};
use layerbatch_core::plan::Segment;
use layerbatch_core::plan::{ArrayDesc, ArrayId, ArrayOp, FlushCause, ResourceOp};
use layerbatch_core::validate::PlanValidator;
use layerbatch_core::{
    Batcher, Budget, Config, Filter, Format, FramePlan, Limits, MockDevice, PlanError, Quad, QuadError, Sampler,
    TextureDesc, TextureError, Usage, Wrap,
};

fn solid(d: &TextureDesc, v: u8) -> Vec<u8> {
    vec![v; d.byte_len()]
}

fn run(b: &mut Batcher, dev: &mut MockDevice) {
    b.begin_frame();
    dev.execute(b.finish()).unwrap();
}

/// Two retired arrays' bytes, named in the error a host gets when the budget runs out.
#[test]
fn budget_error_names_the_retired_bytes_it_counted() {
    let l = 32 * 32 * 4u64;
    let cfg = Config::default()
        .with_max_packed_size_px(0)
        .with_initial_layers(2)
        .with_budget_bytes(10 * l)
        .with_auto_compact(false);
    let mut b = Batcher::new(Limits::guaranteed_minimum(), cfg).unwrap();
    let mut dev = MockDevice::new(b.budget());
    let d = TextureDesc::new(32, 32).with_wrap(Wrap::Repeat);
    for i in 0..2 {
        b.textures().register(&d, &solid(&d, i)).unwrap();
    }
    run(&mut b, &mut dev);
    // On the device now: the next one grows it by a copy (2 -> 4 layers, the old 2 retired).
    b.textures().register(&d, &solid(&d, 3)).unwrap();
    assert_eq!(b.allocator().retired_bytes(), 2 * l);
    // 4 live + 2 retired: doubling to 8 (8 more) or adding one (5 more) do not fit, a new
    // array of 2 does; then another, then nothing.
    b.textures().register(&d, &solid(&d, 4)).unwrap();
    for i in 0..4 {
        b.textures().register(&d, &solid(&d, 5 + i)).unwrap();
    }
    let err = b.textures().register(&d, &solid(&d, 9)).unwrap_err();
    let TextureError::BudgetExhausted { requested_bytes, allocated_bytes, retired_bytes, budget_bytes, .. } =
        err.clone()
    else {
        panic!("{err}")
    };
    assert_eq!((allocated_bytes, retired_bytes, budget_bytes), (8 * l, 2 * l, 10 * l));
    assert!(allocated_bytes + retired_bytes + requested_bytes > budget_bytes);
    let text = err.to_string();
    assert!(text.contains(&format!("{} retired", 2 * l)), "{text}");
    // Running the plan frees the retired array: the same registration then fits.
    run(&mut b, &mut dev);
    assert_eq!(b.allocator().retired_bytes(), 0);
    b.textures().register(&d, &solid(&d, 9)).unwrap();
}

/// Item 5: auto-compaction after a level unload finds each moved rectangle by its owner,
/// not by a scan of the registry (10,000 live of 40,000 took 766 ms); every texture still
/// samples its own pixels after the move. (The time is measured by the `core` bench.)
#[test]
fn finish_after_level_unload_moves_rects_by_owner() {
    let mut b = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
    let mut dev = MockDevice::new(b.budget());
    let ids: Vec<_> = (0..40_000u32)
        .map(|i| {
            let d = TextureDesc::new(8 + i % 9, 8 + i % 7);
            b.textures().register(&d, &solid(&d, i as u8)).unwrap()
        })
        .collect();
    run(&mut b, &mut dev);
    let live: Vec<_> = ids.iter().enumerate().filter(|(i, _)| i % 4 == 0).map(|(_, &id)| id).collect();
    for (i, &id) in ids.iter().enumerate() {
        if i % 4 != 0 {
            b.textures().free(id).unwrap();
        }
    }
    let mut copies = 0;
    for _ in 0..4 {
        run(&mut b, &mut dev);
        copies += b.plan().counters.rect_copies;
    }
    assert!(copies >= live.len() as u64 / 2, "{copies} rectangles copied");
    b.begin_frame();
    for (i, &id) in live.iter().enumerate() {
        b.push(&Quad::rect(id, [i as f32, 0.0], [4.0, 4.0])).unwrap();
    }
    dev.execute(b.finish()).unwrap();
    for (i, &id) in live.iter().enumerate() {
        assert_eq!(dev.sampled()[i].map(|s| s.0), Some(id));
    }
    b.allocator().check_invariants();
}

/// Item 7: a plan drawing into a mipmapped render target has its levels regenerated, and the
/// mock counts it as every backend does.
#[test]
fn mipmapped_render_target_levels_are_regenerated() {
    let mut b = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
    let mut dev = MockDevice::new(b.budget());
    let sprite = b.textures().register(&TextureDesc::new(8, 8), &[255; 256]).unwrap();
    let rt = b
        .textures()
        .register(&TextureDesc::new(64, 64).with_usage(Usage::RenderTarget).with_mip_levels(7), &[])
        .unwrap();
    b.begin_frame_into(rt, Some([0.0; 4])).unwrap();
    b.push(&Quad::rect(sprite, [0.0, 0.0], [64.0, 64.0])).unwrap();
    dev.execute(b.finish()).unwrap();
    assert_eq!(dev.frame_counters().mip_levels_regenerated, 6);
    run(&mut b, &mut dev);
    assert_eq!(dev.frame_counters().mip_levels_regenerated, 0);
}

/// Item 8: a host that skips `finish` while it keeps updating (a minimised window) queues one
/// write per texture, not one per update.
#[test]
fn updates_without_finish_do_not_pile_up() {
    let mut b = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
    let mut dev = MockDevice::new(b.budget());
    let d = TextureDesc::new(256, 256);
    let t = b.textures().register(&d, &solid(&d, 0)).unwrap();
    let mut most = 0;
    for i in 0..1000u32 {
        b.textures().update(t, &solid(&d, i as u8)).unwrap();
        most = most.max(b.textures().pending_upload_bytes());
    }
    let layer = d.byte_len();
    assert!(most <= layer, "{most} bytes queued at most");
    b.begin_frame();
    b.push(&Quad::rect(t, [0.0, 0.0], [8.0, 8.0])).unwrap();
    let plan = b.finish();
    assert_eq!(plan.counters.layer_uploads, 1);
    assert!(plan.upload_bytes.len() <= 2 * layer, "{} plan bytes", plan.upload_bytes.len());
    dev.execute(plan).unwrap();
    assert_eq!(dev.sampled()[0].map(|s| s.1), Some(MockDevice::hash(&solid(&d, (999 % 256) as u8))));
    // Region writes after the last whole write are kept, in order.
    b.textures().update(t, &solid(&d, 7)).unwrap();
    b.textures().update_region(t, [0, 0, 2, 2], &[9; 16]).unwrap();
    assert_eq!(b.textures().pending_ops().len(), 2);
}

/// Item 10: a plan of one batcher is refused by an executor running another's.
#[test]
fn plan_of_another_batcher_is_refused() {
    let mut a = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
    let mut other = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
    let mut dev = MockDevice::new(a.budget());
    let ta = a.textures().register(&TextureDesc::new(4, 4), &[1; 64]).unwrap();
    other.textures().register(&TextureDesc::new(4, 4), &[2; 64]).unwrap();
    a.begin_frame();
    a.push(&Quad::rect(ta, [0.0, 0.0], [4.0, 4.0])).unwrap();
    dev.execute(a.finish()).unwrap();
    other.begin_frame();
    other.finish();
    other.begin_frame();
    let err = dev.execute(other.finish()).unwrap_err();
    assert!(matches!(err, PlanError::ForeignPlan { sequence: 2, .. }), "{err}");
    // The executor is unchanged: `a`'s next plan runs.
    run(&mut a, &mut dev);
}

fn segment(instances: std::ops::Range<u32>, tier: u32) -> Segment {
    Segment {
        instances,
        tier,
        slots: 0..tier,
        binds: 0..0,
        cause: FlushCause::EndOfFrame,
        state: 0,
        resident: None,
        grid: None,
        effects: false,
    }
}

fn hand_plan(sequence: u64, ops: Vec<ResourceOp>, bytes: usize) -> FramePlan {
    let budget = Budget::new(&Limits::guaranteed_minimum(), &Config::default()).unwrap();
    FramePlan {
        sequence,
        ops,
        upload_bytes: vec![0; bytes],
        instance_capacity: budget.instance_capacity,
        ..FramePlan::default()
    }
}

fn desc(w: u32, h: u32, layers: u32, mips: u32) -> ArrayDesc {
    ArrayDesc {
        width_px: w,
        height_px: h,
        layers,
        format: Format::Rgba8Unorm,
        mip_levels: mips,
        sampler: Sampler::new(Filter::Linear, Wrap::ClampToEdge),
        render_target: false,
        normal_map: false,
        host: None,
    }
}

/// Item 11: a write inside level 0 whose level-1 rectangle is outside level 1 is refused by
/// the validator (every executor), not by a backend after it dropped its arrays.
#[test]
fn write_outside_a_higher_level_is_refused() {
    let budget = Budget::new(&Limits::guaranteed_minimum(), &Config::default()).unwrap();
    let mut dev = MockDevice::new(&budget);
    // A 7x7 array of 3 levels (7, 3 and 1 px) and a 2x2 write at (5, 5): level 0 covers
    // 5..7 and level 1 2..3, both inside; level 2 covers 1..2 of a 1 px level.
    let array = ArrayId(0);
    let bytes = layerbatch_core::mip_chain_bytes(2, 2, 3, Format::Rgba8Unorm) as usize;
    let write = ResourceOp::WriteLayer {
        texture: bytemuck::Zeroable::zeroed(),
        array,
        layer: 0,
        x_px: 5,
        y_px: 5,
        width_px: 2,
        height_px: 2,
        mip_levels: 3,
        bytes: 0..bytes,
        normal_map: false,
    };
    let plan = hand_plan(1, vec![ResourceOp::Array(ArrayOp::Create { array, desc: desc(7, 7, 2, 3) }), write], bytes);
    let err = dev.execute(&plan).unwrap_err();
    assert!(matches!(err, PlanError::WriteOutOfBounds { op: 1, .. }), "{err}");
}

/// Item 12: malformed plans and edited budgets are errors, never panics or overflows.
#[test]
fn validator_overflow_and_edited_budgets_are_errors() {
    let budget = Budget::new(&Limits::guaranteed_minimum(), &Config::default()).unwrap();
    // An empty segment 0..0.
    let mut v = PlanValidator::new(&budget);
    let mut plan = hand_plan(1, Vec::new(), 0);
    plan.segments.push(segment(0..0, 1));
    plan.slot_tables = vec![None];
    assert!(matches!(v.check(&plan), Err(PlanError::SegmentRange { segment: 0, .. })));
    // A rebuild plan numbered u64::MAX is refused; the validator goes on.
    let mut plan = hand_plan(u64::MAX, Vec::new(), 0);
    plan.rebuild = true;
    assert!(matches!(v.check(&plan), Err(PlanError::Sequence { .. })));
    v.check(&hand_plan(1, Vec::new(), 0)).unwrap();
    v.check(&hand_plan(2, Vec::new(), 0)).unwrap();
    // A budget edited to 64 slots: refused by `check`, and the validator and mock built from
    // it stay within the ceiling (a plan of tier 64 is refused, not an index out of bounds).
    let mut edited = budget.clone();
    edited.slots = 64;
    edited.tiers = vec![1, 2, 4, 8, 16, 32, 64];
    assert!(edited.check().is_err());
    let mut dev = MockDevice::new(&edited);
    let mut plan = hand_plan(1, Vec::new(), 0);
    plan.segments.push(segment(0..1, 64));
    plan.slot_tables = vec![None; 64];
    plan.instances.push(bytemuck::Zeroable::zeroed());
    assert!(dev.execute(&plan).is_err());
    // Allocator::free of a placement it never issued.
    let mut alloc = Allocator::new(&budget);
    let bogus = Placement::at_origin(ArrayId(7), 3, [4, 4], [4, 4], false);
    assert!(matches!(alloc.free(&bogus), Err(TextureError::NotAllocated { .. })));
    let real = alloc.admit(&TextureDesc::new(4, 4)).unwrap().placement;
    let wrong_size = Placement { rect_px: [real.rect_px[0], real.rect_px[1], 3, 3], ..real };
    assert!(alloc.free(&wrong_size).is_err());
    alloc.free(&real).unwrap();
    assert!(alloc.free(&real).is_err());
    alloc.check_invariants();
}

/// Item 13: finite but huge coordinates are refused, so no instance comes out infinite.
#[test]
fn huge_finite_quads_are_refused() {
    let mut b = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
    let t = b.textures().register(&TextureDesc::new(4, 4), &[1; 64]).unwrap();
    b.begin_frame();
    assert_eq!(b.push(&Quad::rect(t, [3e38, 0.0], [1.0, 1.0])), Err(QuadError::OutOfRange));
    let uv = Quad::rect(t, [0.0, 0.0], [1.0, 1.0]).with_uv([0.0, 0.0, 1e37, 1.0]);
    assert_eq!(b.push(&uv), Err(QuadError::OutOfRange));
    assert_eq!(b.push(&Quad::rect(t, [f32::NAN, 0.0], [1.0, 1.0])), Err(QuadError::NonFinite));
    let quads = [Quad::rect(t, [0.0, 0.0], [1.0, 1.0]), Quad::rect(t, [0.0, 0.0], [3e38, 1.0])];
    let err = b.push_all(&quads).unwrap_err();
    assert_eq!((err.index, err.error), (1, QuadError::OutOfRange));
    // The limits themselves are accepted, and their instances are finite.
    let edge =
        Quad::rect(t, [Quad::MAX_POSITION * 0.99, 0.0], [1.0, 1.0]).with_uv([0.0, 0.0, Quad::MAX_UV * 0.99, 1.0]);
    b.push(&edge).unwrap();
    let plan = b.finish();
    assert_eq!(plan.instances.len(), 2);
    for inst in &plan.instances {
        let words: &[f32] = bytemuck::cast_slice(std::slice::from_ref(&inst.uv_rect));
        assert!(words.iter().chain(&inst.origin).chain(&inst.axis_x).all(|v| v.is_finite()));
    }
}

/// Item 6's id reuse: an array destroyed while a slot held it, and a new array given its id
/// in a later plan, is bound again (the ladder forgets what the device unbound).
#[test]
fn reused_array_id_is_bound_again() {
    let cfg = Config::default().with_arrays_enabled(false).with_max_slots(2);
    let mut b = Batcher::new(Limits::guaranteed_minimum(), cfg).unwrap();
    let mut dev = MockDevice::new(b.budget());
    let d = TextureDesc::new(4, 4);
    let first = b.textures().register(&d, &solid(&d, 1)).unwrap();
    let second = b.textures().register(&d, &solid(&d, 2)).unwrap();
    b.begin_frame();
    b.push(&Quad::rect(first, [0.0, 0.0], [4.0, 4.0])).unwrap();
    b.push(&Quad::rect(second, [4.0, 0.0], [4.0, 4.0])).unwrap();
    dev.execute(b.finish()).unwrap();
    let old = b.placement(first).unwrap().array;
    b.textures().free(first).unwrap();
    run(&mut b, &mut dev); // destroys it
    let third = b.textures().register(&d, &solid(&d, 3)).unwrap();
    assert_eq!(b.placement(third).unwrap().array, old, "the id is reused");
    b.begin_frame();
    b.push(&Quad::rect(third, [0.0, 0.0], [4.0, 4.0])).unwrap();
    b.push(&Quad::rect(second, [4.0, 0.0], [4.0, 4.0])).unwrap();
    dev.execute(b.finish()).unwrap();
    assert_eq!(dev.sampled()[0].map(|s| s.0), Some(third));
    assert_eq!(dev.sampled()[1].map(|s| s.0), Some(second));
}
