//! Host textures ([`Usage::Host`]): views and copies, their ops, the ladder with more host
//! textures than slots, bad input, and a lost device.

use super::solid;
use crate::plan::*;
use crate::*;

fn host_desc(w: u32, h: u32) -> TextureDesc {
    TextureDesc::new(w, h).with_usage(Usage::Host)
}

/// A batcher on a device that views host textures (`views`) or copies them, with `slots`
/// slots, and its mock device.
fn setup(views: bool, slots: u32) -> (Batcher, MockDevice) {
    let limits = Limits::desktop().with_host_texture_views(views);
    let b = Batcher::new(limits, Config::default().with_max_slots(slots)).unwrap();
    let dev = MockDevice::new(b.budget());
    (b, dev)
}

thread_local! {
    /// The batcher's counters of the last frame [`draw`] made.
    static LAST: std::cell::Cell<Counters> = std::cell::Cell::new(Counters::default());
}

fn contents(plan: &FramePlan) -> Vec<(TextureId, ArrayId)> {
    (plan.ops.iter())
        .filter_map(|o| match o {
            ResourceOp::Array(ArrayOp::HostContents { texture, array }) => Some((*texture, *array)),
            _ => None,
        })
        .collect()
}

/// One frame of a quad per texture in `ids`, executed; what each quad sampled.
fn draw(b: &mut Batcher, dev: &mut MockDevice, ids: &[TextureId]) -> Result<Vec<Option<(TextureId, u64)>>, PlanError> {
    b.begin_frame();
    for (i, &id) in ids.iter().enumerate() {
        b.push(&Quad::rect(id, [i as f32 * 8.0, 0.0], [8.0, 8.0])).unwrap();
    }
    let plan = b.finish();
    let counters = plan.counters;
    dev.execute(plan)?;
    LAST.with(|c| c.set(counters));
    Ok(dev.sampled().to_vec())
}

#[test]
fn a_view_is_the_host_texture_no_bytes_and_live_contents() {
    let (mut b, mut dev) = setup(true, 16);
    let id = b.textures().register(&host_desc(32, 16), &[]).unwrap();
    let a = solid(&host_desc(32, 16), 1);
    dev.set_host_texture(id, [32, 16], &a);
    let p = b.placement(id).unwrap();
    let desc = *b.allocator().array(p.array).unwrap();
    assert_eq!((desc.host, desc.layers, desc.bytes()), (Some(HostAccess::View), 1, 0));
    assert_eq!(b.allocator().allocated_bytes(), 0, "the host's memory is not the budget's");
    assert_eq!(draw(&mut b, &mut dev, &[id]).unwrap(), vec![Some((id, MockDevice::hash(&a)))]);
    let c = dev.frame_counters();
    assert_eq!((c.host_views, c.host_copies, c.host_copy_bytes, c.texture_bytes_written), (1, 0, 0, 0));
    // The host draws into it: the view shows it the same frame, with no op and no copy.
    let a2 = solid(&host_desc(32, 16), 2);
    dev.set_host_texture(id, [32, 16], &a2);
    b.textures().host_changed(id).unwrap();
    assert_eq!(draw(&mut b, &mut dev, &[id]).unwrap(), vec![Some((id, MockDevice::hash(&a2)))]);
    let c = dev.frame_counters();
    assert_eq!((c.host_views, c.host_copies, c.host_copy_bytes), (0, 0, 0));
}

#[test]
fn a_copy_follows_host_changed_and_counts_its_bytes() {
    let (mut b, mut dev) = setup(false, 16);
    let id = b.textures().register(&host_desc(32, 16), &[]).unwrap();
    let a = solid(&host_desc(32, 16), 1);
    dev.set_host_texture(id, [32, 16], &a);
    let desc = *b.allocator().array(b.placement(id).unwrap().array).unwrap();
    assert_eq!(desc.host, Some(HostAccess::Copy));
    assert_eq!(b.allocator().allocated_bytes(), desc.bytes(), "a copy is the budget's memory");
    assert_eq!(draw(&mut b, &mut dev, &[id]).unwrap(), vec![Some((id, MockDevice::hash(&a)))]);
    let c = dev.frame_counters();
    assert_eq!((c.host_views, c.host_copies, c.host_copy_bytes), (0, 1, 32 * 16 * 4));
    // Drawn into without telling the batcher: the copy keeps the old pixels.
    let a2 = solid(&host_desc(32, 16), 2);
    dev.set_host_texture(id, [32, 16], &a2);
    assert_eq!(draw(&mut b, &mut dev, &[id]).unwrap(), vec![Some((id, MockDevice::hash(&a)))]);
    assert_eq!(dev.frame_counters().host_copies, 0);
    b.textures().host_changed(id).unwrap();
    b.textures().host_changed(id).unwrap(); // twice before a plan: one copy
    b.begin_frame();
    b.push(&Quad::rect(id, [0.0, 0.0], [8.0, 8.0])).unwrap();
    let array = b.placement(id).unwrap().array;
    let plan = b.finish();
    assert_eq!(contents(plan), vec![(id, array)]);
    assert_eq!(plan.counters.host_contents, 1);
    dev.execute(plan).unwrap();
    assert_eq!(dev.sampled(), &[Some((id, MockDevice::hash(&a2)))]);
    assert_eq!(dev.frame_counters().host_copies, 1);
}

#[test]
fn more_host_textures_than_slots_each_quad_samples_its_own() {
    for views in [true, false] {
        let (mut b, mut dev) = setup(views, 4);
        let ids: Vec<TextureId> = (0..11).map(|_| b.textures().register(&host_desc(8, 8), &[]).unwrap()).collect();
        let pixels: Vec<Vec<u8>> = (0..11).map(|i| solid(&host_desc(8, 8), 10 + i)).collect();
        for (id, px) in ids.iter().zip(&pixels) {
            dev.set_host_texture(*id, [8, 8], px);
        }
        // Interleaved, twice: every slot evicted and bound again.
        let order: Vec<TextureId> = (0..44).map(|k| ids[(k * 7) % 11]).collect();
        for _ in 0..2 {
            let sampled = draw(&mut b, &mut dev, &order).unwrap();
            for (k, s) in sampled.iter().enumerate() {
                let i = ids.iter().position(|id| *id == order[k]).unwrap();
                assert_eq!(*s, Some((order[k], MockDevice::hash(&pixels[i]))), "views {views}, quad {k}");
            }
            let c = LAST.with(|c| c.get());
            assert!(c.slot_evictions > 0 && c.draw_calls > 1, "views {views}: {c:?}");
        }
    }
}

#[test]
fn bad_host_input_is_refused_clearly() {
    let (mut b, _) = setup(true, 16);
    let host = host_desc(8, 8);
    assert_eq!(
        b.textures().register(&host, &[0; 256]),
        Err(TextureError::HostPixels { texture: None, pixel_bytes: 256 })
    );
    assert_eq!(
        b.textures().register(&host.with_mip_levels(2), &[]),
        Err(TextureError::HostDesc { format: Format::Rgba8Unorm, mip_levels: 2 })
    );
    let id = b.textures().register(&host, &[]).unwrap();
    assert_eq!(
        b.textures().update(id, &[0; 256]),
        Err(TextureError::HostPixels { texture: Some(id), pixel_bytes: 256 })
    );
    assert!(matches!(b.textures().update_region(id, [0, 0, 1, 1], &[0; 4]), Err(TextureError::HostPixels { .. })));
    assert!(matches!(b.textures().resize(id, 4, 4, &[0; 64]), Err(TextureError::HostPixels { .. })));
    let plain = b.textures().register(&TextureDesc::new(2, 2), &[0; 16]).unwrap();
    assert_eq!(b.textures().host_changed(plain), Err(TextureError::NotHost(plain)));
    b.textures().free(id).unwrap();
    assert!(matches!(b.textures().host_changed(id), Err(TextureError::Stale(..))));
}

#[test]
fn a_missing_host_texture_is_an_error_a_freed_one_is_not() {
    let (mut b, mut dev) = setup(true, 16);
    let id = b.textures().register(&host_desc(8, 8), &[]).unwrap();
    // Never handed over: the plan fails with what is missing, and restore recovers.
    let err = draw(&mut b, &mut dev, &[id]).unwrap_err();
    assert!(matches!(err, PlanError::HostTexture { texture, .. } if texture == id), "{err}");
    // Registered and freed before any plan, the host's texture already gone: nothing to fill.
    let gone = b.textures().register(&host_desc(8, 8), &[]).unwrap();
    b.textures().free(gone).unwrap();
    assert!(b.restore().is_empty(), "a host texture is never listed for re-upload");
    let px = solid(&host_desc(8, 8), 3);
    dev.set_host_texture(id, [8, 8], &px);
    assert_eq!(draw(&mut b, &mut dev, &[id]).unwrap(), vec![Some((id, MockDevice::hash(&px)))]);
    // A host texture of another size than the batcher was told: refused, never drawn wrong.
    b.textures().resize(id, 16, 8, &[]).unwrap();
    assert!(matches!(draw(&mut b, &mut dev, &[id]), Err(PlanError::HostTexture { .. })));
    b.restore();
    let px16 = solid(&host_desc(16, 8), 4);
    dev.set_host_texture(id, [16, 8], &px16);
    assert_eq!(draw(&mut b, &mut dev, &[id]).unwrap(), vec![Some((id, MockDevice::hash(&px16)))]);
}

#[test]
fn restore_fills_every_host_array_again() {
    for views in [true, false] {
        let (mut b, mut dev) = setup(views, 16);
        let ids: Vec<TextureId> = (0..3).map(|_| b.textures().register(&host_desc(4, 4), &[]).unwrap()).collect();
        for (i, id) in ids.iter().enumerate() {
            dev.set_host_texture(*id, [4, 4], &solid(&host_desc(4, 4), i as u32));
        }
        draw(&mut b, &mut dev, &ids).unwrap();
        let mut fresh = MockDevice::new(b.budget());
        for (i, id) in ids.iter().enumerate() {
            fresh.set_host_texture(*id, [4, 4], &solid(&host_desc(4, 4), 7 + i as u32));
        }
        assert!(b.restore().is_empty());
        let sampled = draw(&mut b, &mut fresh, &ids).unwrap();
        for (i, id) in ids.iter().enumerate() {
            assert_eq!(sampled[i], Some((*id, MockDevice::hash(&solid(&host_desc(4, 4), 7 + i as u32)))));
        }
    }
}

#[test]
fn the_validator_refuses_host_plans_no_batcher_makes() {
    let (mut b, _) = setup(true, 16);
    let id = b.textures().register(&host_desc(8, 8), &[]).unwrap();
    b.begin_frame();
    let mut plan = b.finish().clone();
    let good = plan.clone();
    // A view without its contents.
    plan.ops.retain(|o| !matches!(o, ResourceOp::Array(ArrayOp::HostContents { .. })));
    let mut v = crate::validate::PlanValidator::new(b.budget());
    assert!(matches!(v.check(&plan), Err(PlanError::BadHost { .. })), "{:?}", v.check(&plan));
    // Contents for an array that is no host texture's, and a CPU write into a host array.
    let plain = b.textures().register(&TextureDesc::new(2, 2), &[0; 16]).unwrap();
    let plain_array = b.placement(plain).unwrap().array;
    let host_array = b.placement(id).unwrap().array;
    let mut bad = good.clone();
    bad.ops.push(ResourceOp::Array(ArrayOp::HostContents { texture: plain, array: host_array }));
    assert!(
        crate::validate::PlanValidator::new(b.budget()).check(&bad).is_ok(),
        "any texture id may fill a host array"
    );
    let mut bad = good.clone();
    bad.ops.insert(
        0,
        ResourceOp::Array(ArrayOp::Create {
            array: plain_array,
            desc: ArrayDesc { host: None, ..*b.allocator().array(host_array).unwrap() },
        }),
    );
    bad.ops.push(ResourceOp::Array(ArrayOp::HostContents { texture: id, array: plain_array }));
    assert!(matches!(crate::validate::PlanValidator::new(b.budget()).check(&bad), Err(PlanError::BadHost { .. })));
    // A view on a device that copies.
    let copies = Batcher::new(Limits::desktop(), Config::default()).unwrap();
    assert!(matches!(
        crate::validate::PlanValidator::new(copies.budget()).check(&good),
        Err(PlanError::BadArray { .. })
    ));
}
