//! Resident layers through the mock device: what they draw (checked against the same quads
//! pushed immediately), what they upload, and how they stay right when their textures move,
//! the device is lost, or the host hands in bad input.

use super::{register_n, solid};
use crate::mock::Call;
use crate::plan::*;
use crate::validate::PlanValidator;
use crate::*;

/// Mixed sizes, packed into pages and class arrays: several arrays, one draw.
fn textures(b: &mut Batcher, n: usize) -> Vec<TextureId> {
    register_n(b, &[(16, 16), (32, 32), (24, 40), (64, 64), (300, 200)], n)
}

fn quads(ids: &[TextureId], n: usize) -> Vec<Quad> {
    (0..n)
        .map(|i| Quad::rect(ids[(i * 7) % ids.len()], [(i % 100) as f32 * 3.0, (i / 100) as f32], [8.0, 8.0]))
        .collect()
}

/// What the same quads sample when pushed immediately, on a fresh device: the reference.
fn immediate_samples(b: &mut Batcher, quads: &[Quad]) -> Vec<Option<(TextureId, u64)>> {
    let mut dev = MockDevice::new(b.budget());
    b.restore();
    b.begin_frame();
    b.push_all(quads).unwrap();
    dev.execute(b.finish()).unwrap();
    dev.sampled().to_vec()
}

fn draw(b: &mut Batcher, dev: &mut MockDevice, layer: ResidentId, dynamic: &[Quad]) -> DeviceCounters {
    b.begin_frame();
    b.draw_resident(layer, &ResidentStyle::default()).unwrap();
    b.push_all(dynamic).unwrap();
    dev.execute(b.finish()).unwrap();
    dev.frame_counters()
}

#[test]
fn a_layer_over_many_textures_is_one_draw_and_uploads_once() {
    // Small textures in pages, larger ones in class arrays: arrays of several kinds.
    let config = Config::default().with_keep_pixels(true).with_max_packed_size_px(32);
    let mut b = Batcher::new(Limits::desktop(), config).unwrap();
    let ids = textures(&mut b, 64);
    let statics = quads(&ids, 5000);
    let layer = b.textures().create_resident(&statics).unwrap();
    let mut dev = MockDevice::new(b.budget());
    let dynamic = quads(&ids[..8], 100);
    let first = draw(&mut b, &mut dev, layer, &dynamic);
    assert_eq!(first.draw_calls, 2, "{first:?}");
    assert_eq!(first.resident_bytes_written, 5000 * 64);
    assert_eq!(first.residents_created, 1);
    assert!(dev.validator().array_count() > 1, "the textures span several arrays");
    for _ in 0..3 {
        let c = draw(&mut b, &mut dev, layer, &dynamic);
        assert_eq!((c.draw_calls, c.resident_bytes_written), (2, 0), "{c:?}");
        assert_eq!(c.instance_bytes_written, 100 * 64, "only the dynamic quads are uploaded");
        assert_eq!(b.plan().counters.resident_instances_written, 0);
        assert_eq!(b.plan().counters.resident_draws, 1);
    }
    let sampled = dev.resident_sampled(layer).to_vec();
    assert_eq!(sampled, immediate_samples(&mut b, &statics));
    assert!(sampled.iter().all(Option::is_some));
}

#[test]
fn layers_draw_in_painters_order_among_pushed_quads() {
    let mut b = Batcher::new(Limits::desktop(), Config::default().with_keep_pixels(true)).unwrap();
    let ids = textures(&mut b, 8);
    let back = b.textures().create_resident(&quads(&ids, 10)).unwrap();
    let front = b.textures().create_resident(&quads(&ids, 20)).unwrap();
    let mut dev = MockDevice::new(b.budget());
    b.begin_frame();
    b.draw_resident(back, &ResidentStyle::default()).unwrap();
    b.push_all(&quads(&ids, 3)).unwrap();
    b.draw_resident(front, &ResidentStyle::default().with_tint([0.5; 4])).unwrap();
    b.push_all(&quads(&ids, 4)).unwrap();
    b.draw_resident(back, &ResidentStyle::default().with_visible(false)).unwrap();
    let plan = b.finish().clone();
    let order: Vec<(Option<ResidentId>, u32)> =
        plan.segments.iter().map(|s| (s.resident, s.instances.len() as u32)).collect();
    assert_eq!(order, [(Some(back), 10), (None, 3), (Some(front), 20), (None, 4)]);
    assert_eq!(plan.state(&plan.segments[2]).tint, [0.5; 4]);
    assert_eq!(plan.state(&plan.segments[1]).tint, DrawState::WHITE);
    assert_eq!(plan.counters.flushes_resident, 1, "one boundary between pushed quads");
    dev.execute(&plan).unwrap();
    assert_eq!(dev.frame_counters().draw_calls, 4);
    let draws: Vec<&Call> =
        dev.calls().iter().filter(|c| matches!(c, Call::Draw { .. } | Call::DrawResident { .. })).collect();
    assert!(matches!(draws[0], Call::DrawResident { resident, .. } if *resident == back));
    assert!(matches!(draws[2], Call::DrawResident { resident, .. } if *resident == front));
}

#[test]
fn a_range_update_uploads_its_range_only() {
    let mut b = Batcher::new(Limits::desktop(), Config::default().with_keep_pixels(true)).unwrap();
    let ids = textures(&mut b, 16);
    let layer = b.textures().create_resident(&quads(&ids, 10_000)).unwrap();
    let mut dev = MockDevice::new(b.budget());
    draw(&mut b, &mut dev, layer, &[]);
    let changed: Vec<Quad> = quads(&ids[3..], 100).iter().map(|q| Quad { origin: [5.0, 5.0], ..*q }).collect();
    b.textures().update_resident(layer, 4000, &changed).unwrap();
    let c = draw(&mut b, &mut dev, layer, &[]);
    assert_eq!(c.resident_bytes_written, 100 * 64, "1% of the layer: 1% of its bytes");
    let mut all = quads(&ids, 10_000);
    all[4000..4100].copy_from_slice(&changed);
    assert_eq!(dev.resident_sampled(layer).to_vec(), immediate_samples(&mut b, &all));
}

#[test]
fn a_layer_stays_right_when_its_arrays_grow_and_its_pages_compact() {
    let config = Config::default().with_initial_layers(2).with_keep_pixels(true);
    let mut b = Batcher::new(Limits::desktop(), config).unwrap();
    let ids = textures(&mut b, 10);
    let statics = quads(&ids, 500);
    let layer = b.textures().create_resident(&statics).unwrap();
    let mut dev = MockDevice::new(b.budget());
    draw(&mut b, &mut dev, layer, &[]);
    // Many more textures: the arrays the layer samples grow (new ids, copies on the GPU).
    let more = textures(&mut b, 200);
    let c = draw(&mut b, &mut dev, layer, &[]);
    assert!(b.plan().totals.array_growths > 0, "the arrays grew");
    assert_eq!(dev.resident_sampled(layer).to_vec(), immediate_samples(&mut b, &statics));
    // Free most of them: pages compact, rectangles of the layer's textures may move.
    let mut dev = MockDevice::new(b.budget());
    b.restore();
    draw(&mut b, &mut dev, layer, &[]);
    for id in &more {
        b.textures().free(*id).unwrap();
    }
    b.textures().compact();
    for _ in 0..3 {
        draw(&mut b, &mut dev, layer, &[]);
    }
    let moved = b.total_counters().rect_copies;
    assert!(moved > 0, "pages compacted");
    assert_eq!(dev.resident_sampled(layer).to_vec(), immediate_samples(&mut b, &statics), "after {moved} rect copies");
    let _ = c;
}

#[test]
fn textures_a_layer_samples_cannot_be_freed_until_it_goes() {
    let mut b = Batcher::new(Limits::desktop(), Config::default().with_keep_pixels(true)).unwrap();
    let ids = textures(&mut b, 4);
    let layer = b.textures().create_resident(&quads(&ids, 40)).unwrap();
    assert!(
        matches!(b.textures().free(ids[1]), Err(TextureError::InResident { resident, quads: 10, .. }) if resident == layer)
    );
    assert!(b.contains(ids[1]), "nothing lost");
    b.textures().destroy_resident(layer).unwrap();
    b.textures().free(ids[1]).unwrap();
    assert_eq!(b.textures().destroy_resident(layer), Err(ResidentError::Stale(layer)));
    assert_eq!(b.textures().resident_bytes(), 0);
}

#[test]
fn a_lost_device_gets_every_layer_back_with_its_id() {
    let config = Config::default().with_keep_pixels(true);
    let mut b = Batcher::new(Limits::desktop(), config).unwrap();
    let ids = textures(&mut b, 12);
    let statics = quads(&ids, 300);
    let layer = b.textures().create_resident(&statics).unwrap();
    let mut dev = MockDevice::new(b.budget());
    draw(&mut b, &mut dev, layer, &[]);
    // A new device: the old one is gone with everything it held.
    let mut dev = MockDevice::new(b.budget());
    assert!(b.restore().is_empty());
    let c = draw(&mut b, &mut dev, layer, &[]);
    assert_eq!((c.residents_created, c.resident_bytes_written), (1, 300 * 64));
    assert_eq!(dev.resident_count(), 1);
    assert_eq!(dev.resident_sampled(layer).to_vec(), immediate_samples(&mut b, &statics));
}

#[test]
fn bad_input_is_refused_with_the_terms_and_changes_nothing() {
    let limits = Limits::desktop().with_max_buffer_bytes(64 * 1000);
    let mut b = Batcher::new(limits, Config::default().with_keep_pixels(true)).unwrap();
    let ids = textures(&mut b, 4);
    let ok = quads(&ids, 1000);
    let layer = b.textures().create_resident(&ok).unwrap();
    let too_many = quads(&ids, 1001);
    assert_eq!(
        b.textures().create_resident(&too_many),
        Err(ResidentError::TooLarge { instances: 1001, bytes: 1001 * 64, quad_bytes: 64, max_buffer_bytes: 64_000 })
    );
    assert_eq!(b.textures().create_resident(&[]), Err(ResidentError::Empty));
    let mut bad = quads(&ids, 3);
    bad[2].origin[0] = f32::NAN;
    assert_eq!(b.textures().create_resident(&bad), Err(ResidentError::Quad { index: 2, error: QuadError::NonFinite }));
    assert_eq!(
        b.textures().update_resident(layer, 999, &quads(&ids, 2)),
        Err(ResidentError::OutOfRange { first: 999, count: 2, len: 1000 })
    );
    assert_eq!(
        b.textures().update_resident(layer, u32::MAX, &quads(&ids, 2)),
        Err(ResidentError::OutOfRange { first: u32::MAX, count: 2, len: 1000 })
    );
    assert_eq!(b.draw_resident(layer, &ResidentStyle::default()), Err(ResidentError::NoFrame));
    let gone = b.textures().create_resident(&quads(&ids, 5)).unwrap();
    b.textures().destroy_resident(gone).unwrap();
    let again = b.textures().create_resident(&quads(&ids, 5)).unwrap();
    assert_eq!(again.index, gone.index, "the index is reused");
    assert_eq!(b.textures().update_resident(gone, 0, &quads(&ids, 1)), Err(ResidentError::Stale(gone)));
    b.begin_frame();
    assert_eq!(b.draw_resident(gone, &ResidentStyle::default()), Err(ResidentError::Stale(gone)));
    b.finish();
    // A budget that holds the textures and not the layer.
    let held = b.allocator().allocated_bytes() + b.textures().resident_bytes();
    let mut tight = Batcher::new(Limits::desktop(), Config::default().with_budget_bytes(held + 1000)).unwrap();
    let tids = textures(&mut tight, 4);
    let e = tight.textures().create_resident(&quads(&tids, 1000)).unwrap_err();
    assert!(matches!(e, ResidentError::OverBudget { requested_bytes: 64_000, .. }), "{e}");
    // A render target the layer samples.
    let target = b.textures().register(&TextureDesc::new(32, 32).with_usage(Usage::RenderTarget), &[]).unwrap();
    let into = b.textures().create_resident(&[Quad::rect(target, [0.0; 2], [4.0; 2])]).unwrap();
    b.begin_frame_into(target, None).unwrap();
    assert_eq!(
        b.draw_resident(into, &ResidentStyle::default()),
        Err(ResidentError::SamplesTarget { resident: into, texture: target })
    );
    b.finish();
    assert_eq!(b.textures().resident_len(layer), Ok(1000));
}

#[test]
fn indexed_quads_split_a_layer_by_the_instance_capacity() {
    let config =
        Config::default().with_quad_vertices(QuadVertices::Indexed).with_instance_capacity(1000).with_keep_pixels(true);
    let mut b = Batcher::new(Limits::desktop(), config).unwrap();
    let ids = textures(&mut b, 6);
    let statics = quads(&ids, 2500);
    let layer = b.textures().create_resident(&statics).unwrap();
    let mut dev = MockDevice::new(b.budget());
    let c = draw(&mut b, &mut dev, layer, &quads(&ids, 10));
    assert_eq!(c.draw_calls, 3 + 1);
    assert_eq!(c.resident_bytes_written, 2500 * 256);
    assert_eq!(dev.resident_sampled(layer).to_vec(), immediate_samples(&mut b, &statics));
}

#[test]
fn an_update_waits_for_the_frame_whose_plans_drew_the_layer() {
    let mut b = Batcher::new(Limits::desktop(), Config::default().with_keep_pixels(true)).unwrap();
    let ids = textures(&mut b, 4);
    let layer = b.textures().create_resident(&quads(&ids, 50)).unwrap();
    let mut dev = MockDevice::new(b.budget());
    b.end_frame(); // from here on, only end_frame ends frames
    draw(&mut b, &mut dev, layer, &[]);
    // A second plan of the same frame (one submit): the first one's pass still reads it.
    b.textures().update_resident(layer, 0, &quads(&ids[1..], 10)).unwrap();
    let c = draw(&mut b, &mut dev, layer, &[]);
    assert_eq!(c.resident_bytes_written, 0, "parked until the frame ends");
    b.end_frame();
    let c = draw(&mut b, &mut dev, layer, &[]);
    assert_eq!(c.resident_bytes_written, 10 * 64);
}

#[test]
fn hand_made_plans_that_misuse_a_layer_are_refused() {
    let mut b = Batcher::new(Limits::desktop(), Config::default().with_keep_pixels(true)).unwrap();
    let ids = textures(&mut b, 4);
    let layer = b.textures().create_resident(&quads(&ids, 50)).unwrap();
    b.begin_frame();
    b.draw_resident(layer, &ResidentStyle::default()).unwrap();
    let good = b.finish().clone();
    let check = |plan: &FramePlan| PlanValidator::new(b.budget()).check(plan);
    assert_eq!(check(&good), Ok(()));
    let mut past_end = good.clone();
    past_end.segments[0].instances = 0..51;
    assert!(matches!(check(&past_end), Err(PlanError::ResidentRange { len: 50, end: 51, .. })));
    let mut unknown = good.clone();
    unknown.segments[0].resident = Some(ResidentId { index: 9, generation: 1 });
    assert!(matches!(check(&unknown), Err(PlanError::BadResident { .. })));
    let mut empty_slot = good.clone();
    let s = empty_slot.segments[0].slots.start as usize;
    empty_slot.slot_tables[s] = None;
    assert!(matches!(check(&empty_slot), Err(PlanError::ResidentInstance { slot: 0, .. })));
    let mut bad_write = good.clone();
    for op in &mut bad_write.ops {
        if let ResourceOp::Resident(ResidentOp::Write { first, .. }) = op {
            *first = 10;
        }
    }
    assert!(matches!(check(&bad_write), Err(PlanError::ResidentRange { start: 10, end: 60, .. })));
    let mut bad_slot = good.clone();
    bad_slot.resident_instances[7].slot_flags_layer = Instance::pack(31, 0, 0);
    assert!(matches!(check(&bad_slot), Err(PlanError::ResidentInstance { slot: 31, .. })));
    let _ = solid;
}

#[test]
fn a_layer_whose_texture_moves_mid_frame_gets_a_new_buffer_not_a_write_under_an_earlier_pass() {
    let mut b = Batcher::new(Limits::desktop(), Config::default().with_keep_pixels(true)).unwrap();
    let mut ids = textures(&mut b, 5);
    // A dynamic texture: resizing it moves it.
    let dynamic = TextureDesc::new(20, 20).with_usage(Usage::Dynamic);
    ids.insert(2, b.textures().register(&dynamic, &solid(&dynamic, 9)).unwrap());
    let statics = quads(&ids, 60);
    let layer = b.textures().create_resident(&statics).unwrap();
    let mut dev = MockDevice::new(b.budget());
    b.end_frame(); // several plans a frame from here on
    draw(&mut b, &mut dev, layer, &[]);
    // Plan A of this frame drew the layer; a texture it samples moves (resized) before plan B.
    let d = TextureDesc::new(48, 20);
    b.textures().resize(ids[2], 48, 20, &solid(&d, 77)).unwrap();
    let c = draw(&mut b, &mut dev, layer, &[]);
    assert_eq!((c.residents_destroyed, c.residents_created, c.resident_bytes_written), (1, 1, 60 * 64), "{c:?}");
    assert_eq!(dev.resident_sampled(layer).to_vec(), immediate_samples(&mut b, &statics));
    // In a new frame, the same move is a write of that texture's quads only.
    let mut dev = MockDevice::new(b.budget());
    b.restore();
    draw(&mut b, &mut dev, layer, &[]);
    b.end_frame();
    b.textures().resize(ids[2], 30, 30, &solid(&TextureDesc::new(30, 30), 78)).unwrap();
    let c = draw(&mut b, &mut dev, layer, &[]);
    assert_eq!((c.residents_created, c.resident_bytes_written), (0, 10 * 64), "{c:?}");
    assert_eq!(dev.resident_sampled(layer).to_vec(), immediate_samples(&mut b, &statics));
}

#[test]
fn a_layer_replaced_shorter_after_it_was_drawn_draws_what_it_holds_then() {
    let mut b = Batcher::new(Limits::desktop(), Config::default().with_keep_pixels(true)).unwrap();
    let ids = textures(&mut b, 4);
    let layer = b.textures().create_resident(&quads(&ids, 50)).unwrap();
    let mut dev = MockDevice::new(b.budget());
    b.begin_frame();
    b.draw_resident(layer, &ResidentStyle::default()).unwrap();
    b.draw_resident_range(layer, 30..50, &ResidentStyle::default()).unwrap();
    // Ops come before the draws: the plan draws the 20 quads the layer holds then.
    b.textures().replace_resident(layer, &quads(&ids[1..], 20)).unwrap();
    dev.execute(b.finish()).unwrap();
    let c = dev.frame_counters();
    assert_eq!((c.draw_calls, c.residents_created, c.resident_bytes_written), (1, 1, 20 * 64), "{c:?}");
    assert_eq!(b.draw_resident_range(layer, 0..21, &ResidentStyle::default()), Err(ResidentError::NoFrame));
    b.begin_frame();
    assert_eq!(
        b.draw_resident_range(layer, 0..21, &ResidentStyle::default()),
        Err(ResidentError::OutOfRange { first: 0, count: 21, len: 20 })
    );
    b.finish();
}
