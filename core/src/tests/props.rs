//! Property tests: random sessions of registrations, frees, frames and restores.

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
        let foreign = other.textures().register(&TextureDesc::new(4, 4), &[9; 64]).unwrap();
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
                    match b.textures().register(&d, &px) {
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
                        match b.textures().update_region(id, [x, y, w, h], &patch) {
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
                    let moved = b.textures().compact();
                    prop_assert!(!open || moved == 0, "compact moved textures inside a frame");
                }
                Op::PushForeign => {
                    prop_assert_eq!(b.push(&Quad::rect(foreign, [0.0; 2], [1.0; 2])), Err(QuadError::Stale(foreign)));
                    prop_assert_eq!(b.textures().update(foreign, &[0; 64]), Err(TextureError::Stale(foreign)));
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
                        uploads = b.textures().pending_ops().iter().filter(|op| matches!(op, ResourceOp::WriteLayer { .. })).count() as u64;
                        for op in b.textures().pending_ops() {
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
                        b.textures().update(id, &px).unwrap();
                        content.insert(id, MockDevice::hash(&px));
                        pixels.insert(id, px.clone());
                        uploads += 1;
                        pending.insert(id, 1);
                    }
                }
                Op::PushStale => {
                    if let Some(&id) = dead.last() {
                        prop_assert_eq!(b.push(&Quad::rect(id, [0.0; 2], [1.0; 2])), Err(QuadError::Stale(id)));
                        prop_assert_eq!(b.textures().free(id), Err(TextureError::Stale(id)));
                    }
                }
                Op::Free { pick } => {
                    if !live.is_empty() {
                        let id = live.swap_remove(pick % live.len());
                        b.textures().free(id).unwrap();
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
                        b.textures().update(id, &px).unwrap();
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
                    prop_assert_eq!(crate::model_tests::device_bytes_after(&dev, b.textures().pending_ops()), b.allocator().allocated_bytes());
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
