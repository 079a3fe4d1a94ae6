//! Regressions of the resident-layer review (issue 43): each test is named after what it
//! protects, and each failed before its fix (the note says how). A persistent validator beside
//! the mock device checks every plan, as the call-sequence model does.

use super::solid;
use crate::plan::*;
use crate::*;

fn desc(w: u32, h: u32) -> TextureDesc {
    TextureDesc::new(w, h)
}

fn reg(b: &mut Batcher, w: u32, h: u32, seed: u32) -> TextureId {
    b.textures().register(&desc(w, h), &solid(&desc(w, h), seed)).unwrap()
}

/// A texture of its own array: each `kind` is another sampler or format, which pages never share.
fn reg_apart(b: &mut Batcher, kind: u32, seed: u32) -> TextureId {
    let d = match kind {
        0 => desc(16, 16),
        1 => desc(16, 16).with_filter(Filter::Nearest),
        _ => desc(16, 16).with_format(Format::Rgba8UnormSrgb),
    };
    b.textures().register(&d, &solid(&d, seed)).unwrap()
}

fn rect(t: TextureId, x: f32) -> Quad {
    Quad::rect(t, [x, 0.0], [8.0, 8.0])
}

/// Executes the next plan on `dev` (whose validator persists across plans) and returns what
/// each pushed quad sampled.
fn run(b: &mut Batcher, dev: &mut MockDevice) -> Result<Vec<Option<(TextureId, u64)>>, PlanError> {
    dev.execute(b.finish())?;
    Ok(dev.sampled().to_vec())
}

fn hash_of(d: &TextureDesc, seed: u32) -> u64 {
    MockDevice::hash(&solid(d, seed))
}

#[test]
fn destroying_a_layer_created_since_the_last_plan_keeps_the_pending_writes_indexable() {
    // F1: create -> register(A) -> free(A) -> destroy before any plan -> finish panicked
    // (index out of bounds in the pending writes' compaction).
    let mut b = Batcher::new(Limits::desktop(), Config::default()).unwrap();
    let mut dev = MockDevice::new(b.budget());
    let t = reg(&mut b, 16, 16, 1);
    let layer = b.textures().create_resident(&[rect(t, 0.0)]).unwrap();
    let a = reg(&mut b, 16, 16, 2);
    b.textures().free(a).unwrap();
    b.textures().destroy_resident(layer).unwrap();
    b.begin_frame();
    b.push(&rect(t, 0.0)).unwrap();
    let sampled = run(&mut b, &mut dev).unwrap();
    assert_eq!(sampled, [Some((t, hash_of(&desc(16, 16), 1)))]);
    // The same after replace_resident.
    let layer = b.textures().create_resident(&[rect(t, 0.0)]).unwrap();
    let a = reg(&mut b, 16, 16, 3);
    b.textures().free(a).unwrap();
    b.textures().replace_resident(layer, &[rect(t, 0.0), rect(t, 8.0)]).unwrap();
    b.begin_frame();
    b.draw_resident(layer, &ResidentStyle::default()).unwrap();
    run(&mut b, &mut dev).unwrap();
    assert_eq!(dev.resident_sampled(layer).len(), 2);
}

#[test]
fn taking_a_layer_back_never_drops_another_textures_upload() {
    // F2: pending [Create(layer), Write(A), Write(B)]; destroy_resident then update(A) marked
    // B's write dead: B sampled nothing.
    let mut b = Batcher::new(Limits::desktop(), Config::default()).unwrap();
    let mut dev = MockDevice::new(b.budget());
    let t = reg(&mut b, 16, 16, 1);
    let layer = b.textures().create_resident(&[rect(t, 0.0)]).unwrap();
    let a = reg(&mut b, 16, 16, 2);
    let bb = reg(&mut b, 16, 16, 3);
    b.textures().destroy_resident(layer).unwrap();
    b.textures().update(a, &solid(&desc(16, 16), 4)).unwrap();
    b.begin_frame();
    b.push_all(&[rect(a, 0.0), rect(bb, 8.0)]).unwrap();
    let sampled = run(&mut b, &mut dev).unwrap();
    assert_eq!(sampled, [Some((a, hash_of(&desc(16, 16), 4))), Some((bb, hash_of(&desc(16, 16), 3)))]);
}

#[test]
fn a_layer_whose_update_empties_a_slot_is_drawn() {
    // F3: the validator's per-layer slots only grew; an update that moved every quad off an
    // array emptied its slot, and the next draw was refused.
    let mut b = Batcher::new(Limits::desktop(), Config::default()).unwrap();
    let mut dev = MockDevice::new(b.budget());
    let small = reg_apart(&mut b, 0, 1);
    let large = reg_apart(&mut b, 1, 2);
    assert_ne!(b.placement(small).unwrap().array, b.placement(large).unwrap().array);
    let layer = b.textures().create_resident(&[rect(small, 0.0), rect(large, 8.0)]).unwrap();
    b.begin_frame();
    b.draw_resident(layer, &ResidentStyle::default()).unwrap();
    run(&mut b, &mut dev).unwrap();
    b.textures().update_resident(layer, 0, &[rect(large, 0.0)]).unwrap();
    for _ in 0..2 {
        b.begin_frame();
        b.draw_resident(layer, &ResidentStyle::default()).unwrap();
        run(&mut b, &mut dev).expect("a layer that samples fewer arrays now is drawn");
        let s = dev.resident_sampled(layer);
        assert_eq!(s.iter().map(|s| s.map(|s| s.0)).collect::<Vec<_>>(), [Some(large), Some(large)]);
    }
}

#[test]
fn a_layer_whose_texture_moves_to_a_lower_layer_is_drawn() {
    // F10: the validator kept the highest layer a resident ever sampled; compaction moved its
    // texture down and shrank the array, and the next draw was refused.
    let config = Config::default().with_keep_pixels(true);
    let mut b = Batcher::new(Limits::desktop(), config.with_page_size_px(128).with_max_packed_size_px(64)).unwrap();
    let mut dev = MockDevice::new(b.budget());
    // Fill 128 px page layers so that the last texture sits on a high layer.
    let fillers: Vec<TextureId> = (0..40).map(|i| reg(&mut b, 32, 32, 10 + i)).collect();
    let last = reg(&mut b, 16, 16, 1);
    let layer_of_last = b.placement(last).unwrap().layer;
    assert!(layer_of_last > 0, "the texture must start above layer 0");
    let layer = b.textures().create_resident(&[rect(last, 0.0)]).unwrap();
    b.begin_frame();
    b.draw_resident(layer, &ResidentStyle::default()).unwrap();
    run(&mut b, &mut dev).unwrap();
    for f in fillers {
        b.textures().free(f).unwrap();
    }
    b.end_frame();
    b.begin_frame();
    run(&mut b, &mut dev).unwrap();
    b.textures().compact();
    assert!(b.placement(last).unwrap().layer < layer_of_last, "compaction moved it down");
    for _ in 0..3 {
        b.begin_frame();
        b.draw_resident(layer, &ResidentStyle::default()).unwrap();
        run(&mut b, &mut dev).expect("a layer sampling a lower layer now is drawn");
        assert_eq!(dev.resident_sampled(layer), [Some((last, hash_of(&desc(16, 16), 1)))]);
    }
}

#[test]
fn an_update_that_would_sample_the_frames_target_is_refused() {
    // F4: in a frame drawn into T, draw_resident(L) then update_resident(L, quads sampling T)
    // returned Ok and the plan was refused.
    let mut b = Batcher::new(Limits::desktop(), Config::default()).unwrap();
    let mut dev = MockDevice::new(b.budget());
    let t = reg(&mut b, 16, 16, 1);
    let target = b.textures().register(&desc(32, 32).with_usage(Usage::RenderTarget), &[]).unwrap();
    let layer = b.textures().create_resident(&[rect(t, 0.0)]).unwrap();
    b.begin_frame_into(target, None).unwrap();
    b.draw_resident(layer, &ResidentStyle::default()).unwrap();
    let e = b.textures().update_resident(layer, 0, &[rect(target, 0.0)]);
    assert_eq!(e, Err(ResidentError::SamplesTarget { resident: layer, texture: target }));
    let e = b.textures().replace_resident(layer, &[rect(target, 0.0)]);
    assert_eq!(e, Err(ResidentError::SamplesTarget { resident: layer, texture: target }));
    run(&mut b, &mut dev).expect("the frame's plan is accepted");
    // Outside that frame the update is fine.
    b.textures().update_resident(layer, 0, &[rect(target, 0.0)]).unwrap();
    b.begin_frame();
    b.draw_resident(layer, &ResidentStyle::default()).unwrap();
    run(&mut b, &mut dev).unwrap();
}

/// A batcher in a host frame whose first plan drew `layer` (so updates park).
fn parked_setup() -> (Batcher, MockDevice, TextureId, ResidentId) {
    let mut b = Batcher::new(Limits::desktop(), Config::default().with_max_slots(2)).unwrap();
    let mut dev = MockDevice::new(b.budget());
    let t = reg(&mut b, 16, 16, 1);
    let layer = b.textures().create_resident(&[rect(t, 0.0), rect(t, 8.0), rect(t, 16.0)]).unwrap();
    b.end_frame(); // the host ends its frames: several plans a frame
    b.begin_frame();
    b.draw_resident(layer, &ResidentStyle::default()).unwrap();
    run(&mut b, &mut dev).unwrap();
    (b, dev, t, layer)
}

#[test]
fn a_texture_a_parked_update_samples_cannot_be_freed() {
    // F5: an update parked behind an earlier plan did not count its quads as sampled: free of
    // their texture succeeded, and the update was dropped at end_frame with a log line.
    let (mut b, mut dev, _, layer) = parked_setup();
    let n = reg(&mut b, 16, 16, 7);
    b.textures().update_resident(layer, 1, &[rect(n, 8.0)]).unwrap();
    assert!(
        matches!(b.textures().free(n), Err(TextureError::InResident { texture, resident, quads: 1 }) if texture == n && resident == layer)
    );
    b.end_frame();
    b.begin_frame();
    b.draw_resident(layer, &ResidentStyle::default()).unwrap();
    run(&mut b, &mut dev).unwrap();
    assert_eq!(dev.resident_sampled(layer)[1], Some((n, hash_of(&desc(16, 16), 7))), "the update was applied");
}

#[test]
fn a_parked_update_past_the_slots_is_refused_when_parked() {
    // F12: a parked update that would need more arrays than the slots returned Ok and was
    // dropped at end_frame with a log line.
    let (mut b, mut dev, t, layer) = parked_setup();
    let big = reg_apart(&mut b, 1, 8); // a second array
    let bigger = reg_apart(&mut b, 2, 9); // a third
    let arrays = [t, big, bigger].map(|x| b.placement(x).unwrap().array);
    assert!(arrays[0] != arrays[1] && arrays[1] != arrays[2] && arrays[0] != arrays[2]);
    b.textures().update_resident(layer, 1, &[rect(big, 8.0)]).unwrap();
    // A second parked update whose result (with the first's) samples three arrays.
    let e = b.textures().update_resident(layer, 2, &[rect(bigger, 16.0)]);
    assert_eq!(e, Err(ResidentError::TooManyArrays { arrays: 3, slots: 2 }));
    b.end_frame();
    b.begin_frame();
    b.draw_resident(layer, &ResidentStyle::default()).unwrap();
    run(&mut b, &mut dev).unwrap();
    let s: Vec<_> = dev.resident_sampled(layer).iter().map(|s| s.map(|s| s.0)).collect();
    assert_eq!(s, [Some(t), Some(big), Some(t)], "the accepted update is applied, the refused one is not");
}

#[test]
fn restore_brings_normal_maps_back_without_keep_pixels() {
    // F6: restore() without keep_pixels dropped normal maps and did not list them.
    let mut b = Batcher::new(Limits::desktop(), Config::default().with_lights(4)).unwrap();
    let t = reg(&mut b, 16, 16, 1);
    let normals = [100u8, 150, 240, 255].repeat(16 * 16);
    b.textures().register_normal_map(t, &normals).unwrap();
    let mut dev = MockDevice::new(b.budget());
    b.begin_frame();
    b.push(&rect(t, 0.0)).unwrap();
    run(&mut b, &mut dev).unwrap();
    // The device is lost.
    let mut dev = MockDevice::new(b.budget());
    let listed = b.restore();
    assert_eq!(listed, [t]);
    b.textures().update(t, &solid(&desc(16, 16), 1)).unwrap();
    b.begin_frame();
    b.push(&rect(t, 0.0)).unwrap();
    let plan = b.finish();
    assert_ne!(plan.instances[0].flags() & Instance::FLAG_NORMAL_MAP, 0, "still lit by its normal map");
    let normal_writes =
        plan.ops.iter().filter(|o| matches!(o, ResourceOp::WriteLayer { normal_map: true, .. })).count();
    assert_eq!(normal_writes, 1, "the normal map is written again");
    dev.execute(plan).unwrap();
}

#[test]
fn resizing_a_texture_drops_its_normal_map() {
    // F7: resize kept FLAG_NORMAL_MAP over an unwritten sibling layer.
    let mut b = Batcher::new(Limits::desktop(), Config::default().with_lights(4)).unwrap();
    let d = desc(16, 16).with_usage(Usage::Dynamic);
    let t = b.textures().register(&d, &solid(&d, 1)).unwrap();
    b.textures().register_normal_map(t, &[128, 128, 255, 255].repeat(16 * 16)).unwrap();
    let copies = b.textures().cpu_copy_bytes();
    b.textures().resize(t, 20, 12, &solid(&desc(20, 12), 2)).unwrap();
    b.begin_frame();
    b.push(&rect(t, 0.0)).unwrap();
    let plan = b.finish();
    assert_eq!(plan.instances[0].flags() & Instance::FLAG_NORMAL_MAP, 0, "drawn flat: no normal map");
    assert!(!plan.ops.iter().any(|o| matches!(o, ResourceOp::WriteLayer { normal_map: true, .. })));
    assert_eq!(b.textures().cpu_copy_bytes(), copies - 16 * 16 * 4);
    MockDevice::new(b.budget()).execute(b.plan()).unwrap();
    // A normal map of the new size is welcome.
    b.textures().register_normal_map(t, &[128, 128, 255, 255].repeat(20 * 12)).unwrap();
}

#[test]
fn lights_are_refused_outside_a_frame() {
    // F11: add_light outside a frame grew without bound until the next finish; lights added
    // before begin_frame vanished when the previous frame was discarded.
    let mut b = Batcher::new(Limits::desktop(), Config::default().with_lights(4)).unwrap();
    let light = PointLight::new([0.0, 0.0], 10.0, [1.0; 3]);
    assert_eq!(b.add_light(light), Err(LightError::NoFrame));
    b.begin_frame();
    b.add_light(light).unwrap();
    assert_eq!(b.finish().lights.len(), 1);
    assert_eq!(b.add_light(light), Err(LightError::NoFrame));
    assert_eq!(b.finish().lights.len(), 0);
}

#[test]
fn updates_parked_before_a_frame_into_a_target_wait_for_its_plan() {
    // Found by the call-sequence model (input 630, call 502): an update parked while the layer
    // sampled ordinary textures was applied by an end_frame called while a frame into render
    // target T was recorded; the layer, already drawn in that frame, then sampled T, and the
    // batcher's own plan was refused ("a segment samples the array the plan draws into").
    let (mut b, mut dev, _, layer) = parked_setup();
    let target = b.textures().register(&desc(16, 16).with_usage(Usage::RenderTarget), &[]).unwrap();
    b.textures().update_resident(layer, 0, &[rect(target, 0.0)]).unwrap(); // parked: plan 1 drew the layer
    b.begin_frame_into(target, None).unwrap();
    b.draw_resident(layer, &ResidentStyle::default()).unwrap(); // it samples no target yet
    b.end_frame(); // the host ends its frame while this one is recorded
    run(&mut b, &mut dev).expect("the frame into the target draws the layer as it was");
    assert!(dev.resident_sampled(layer).iter().all(|s| s.is_some_and(|s| s.0 != target)));
    // From the next plan on, the update is drawn.
    b.begin_frame();
    b.draw_resident(layer, &ResidentStyle::default()).unwrap();
    let target_array = b.placement(target).unwrap().array;
    let plan = b.finish();
    assert!(plan.slot_tables.contains(&Some(target_array)), "the layer samples the target now");
    dev.execute(plan).unwrap();
}

#[test]
fn every_array_a_compaction_destroys_is_reported() {
    // Found by the call-sequence model (seed 7, input 70): a page array whose rectangles were
    // all freed textures waiting for the host's frame to end was compacted; compaction said
    // only that rectangles moved, and the batcher moves a slot to the new array only for a
    // rectangle of a live texture. The ladder kept the destroyed array bound to its slot, a
    // later array got the same id, and the batcher's own plan skipped its bind ("slot 0 holds
    // None, the slot table says Some(ArrayId(..))"). Every array a compaction destroys is now
    // reported as `Moved::Destroyed`, whatever its rectangles' owners.
    use crate::alloc::{Allocator, Moved, Placement};
    let budget = Budget::new(&Limits::desktop(), &Config::default().with_page_size_px(128)).unwrap();
    let mut alloc = Allocator::new(&budget);
    let placed: Vec<Placement> = (0..20).map(|k| alloc.admit_for(&desc(32, 32), k).unwrap().placement).collect();
    alloc.drain_ops().for_each(drop);
    alloc.end_plan(); // on the device now
    for p in &placed[..16] {
        alloc.free(p).unwrap();
    }
    let moved = alloc.compact();
    let destroyed: Vec<ArrayId> = (alloc.drain_ops())
        .filter_map(|op| match op {
            ArrayOp::Destroy { array } => Some(array),
            _ => None,
        })
        .collect();
    assert!(!destroyed.is_empty(), "the sparse page array is repacked");
    for a in destroyed {
        assert!(
            moved.iter().any(|m| matches!(m, Moved::Destroyed(d) if *d == a)),
            "{a:?} destroyed and not reported: {moved:?}"
        );
    }
}
