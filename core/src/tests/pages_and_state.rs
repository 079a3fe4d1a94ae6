//! Atlas pages, sprite helpers, draw states and render targets, through the mock device.

use super::*;
use crate::validate::PlanValidator;

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
                b.textures().register(&d, &solid(&d, i as u32)).unwrap()
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
    let packed = b.textures().register(&d, &solid(&d, 1)).unwrap();
    let mipped = b.textures().register(&d.with_mip_levels(5), &solid(&d, 2)).unwrap();
    let tiled = b.textures().register(&d.with_wrap(Wrap::Repeat), &solid(&d, 3)).unwrap();
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
    let small = b.textures().register(&d, &solid(&d, 1)).unwrap();
    let page = b.placement(small).unwrap().array;
    let big = TextureDesc::new(300, 40);
    let big = b.textures().register(&big, &solid(&big, 4)).unwrap();
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
        let id = b.textures().register(&d, &solid(&d, seed)).unwrap_or_else(|e| panic!("registration failed: {e}"));
        live.push((id, u64::from(w) * u64::from(h) * 4));
    };
    for i in 0..100 {
        register(&mut b, &mut live, i);
    }
    let mut worst = 0.0f64;
    for f in 0..frames {
        for _ in 0..5 {
            let (id, _) = live.swap_remove(pick(live.len()));
            b.textures().free(id).unwrap();
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
    let white = b.textures().white().unwrap();
    assert_eq!(b.textures().white().unwrap(), white, "registered once");
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
        b.textures().update(id, &solid(&d, k as u32)).unwrap();
    }
    frame(&mut b, &mut dev, &all, &seq);
    assert_eq!(dev.sampled()[6], Some((white, white_hash)));
    // Freed by the host: the next call makes a new one.
    b.textures().free(white).unwrap();
    let again = b.textures().white().unwrap();
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
    b.state().set_blend(BlendMode::Additive);
    b.state().set_blend(BlendMode::Over);
    b.state().set_transform(camera);
    for i in 0..10 {
        b.push(&Quad::rect(ids[i % 2], [i as f32, 0.0], [4.0; 2])).unwrap();
    }
    b.state().set_clip(Some([0, 0, 50, 50]));
    b.state().set_clip(None);
    b.push(&Quad::rect(ids[0], [0.0; 2], [4.0; 2])).unwrap();
    // A camera change between two groups of quads: one flush, counted.
    b.state().set_transform(DrawState::IDENTITY);
    for i in 0..10 {
        b.push(&Quad::rect(ids[i % 2], [i as f32, 10.0], [4.0; 2])).unwrap();
    }
    b.state().set_transform([f32::NAN; 6]); // ignored
    let plan = b.finish();
    assert_eq!(plan.segments.len(), 2);
    assert_eq!((plan.counters.flushes_state_change, plan.counters.flushes_end_of_frame), (1, 1));
    assert_eq!(plan.state(&plan.segments[0]).transform, camera);
    assert_eq!(plan.state(&plan.segments[1]), DrawState::default());
    assert_eq!(plan.segments[0].instances, 0..11);
    dev.execute(plan).unwrap();
    // A frame starts from the default state: a state set between frames is not kept.
    assert_eq!(b.state().draw_state(), DrawState::default());
    b.state().set_blend(BlendMode::Multiply);
    b.begin_frame();
    assert_eq!(b.state().draw_state(), DrawState::default());
    b.state().set_blend(BlendMode::Multiply);
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
        b.state().set_blend(modes[i % 2]);
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
        b.state().set_blend(if i % 2 == 0 { BlendMode::Over } else { BlendMode::Additive });
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
    b.state().set_blend(BlendMode::Multiply); // before any quad: replaces the frame's first state
    b.push(&q).unwrap();
    b.state().set_blend(BlendMode::Over);
    b.state().set_clip(Some([0, 0, 4, 4]));
    b.state().set_clip(None); // back where it was before any quad of it: no change
    b.push(&q).unwrap();
    b.state().set_blend(BlendMode::Multiply);
    b.push(&q).unwrap();
    b.state().set_blend(BlendMode::Over);
    b.state().set_blend(BlendMode::Multiply); // set and unset between two quads: no flush
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
    b.state().set_clip(Some([0, 0, 1, 1]));
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
    let rt = b.textures().register(&TextureDesc::new(big, 700).with_usage(Usage::RenderTarget), &[]).unwrap();
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
    b.textures().free(rt).unwrap();
    dev.execute(b.finish()).unwrap();
    assert_eq!(b.begin_frame_into(rt, None), Err(TextureError::Stale(rt)));
    b.begin_frame();
    dev.execute(b.finish()).unwrap();
    // A frame begun into a target and then restarted plainly draws to the host.
    let rt2 = b.textures().register(&TextureDesc::new(16, 16).with_usage(Usage::RenderTarget), &[]).unwrap();
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
    let rt = b.textures().register(&TextureDesc::new(16, 16).with_usage(Usage::RenderTarget), &[]).unwrap();
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
        let t = b.textures().register(&desc, &vec![7; desc.byte_len()]).unwrap();
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
