//! Frames recorded in parts ([`Batcher::record_parts`]) against the same quads pushed one by
//! one: the very same plan (instances, segments, states, binds, slot tables, counters), frame
//! after frame, with parts of every size across instance-buffer boundaries, quads whose
//! arrays no slot holds, state changes before the parts, sort keys set inside them, rejected
//! quads, empty parts; and parts filled on real threads.

use super::register_n;
use crate::plan::*;
use crate::test_rng::Rng;
use crate::*;

/// What a part does, in order.
#[derive(Clone, Debug)]
enum PartItem {
    Quad(Quad, usize),
    /// Quads handed over by one `push_all`.
    Batch(Vec<(Quad, usize)>),
    Key(SortKey),
}

/// What a frame does.
#[derive(Clone, Debug)]
enum Item {
    Quad(Quad, usize),
    Blend(BlendMode),
    Clip(Option<[u32; 4]>),
    Key(SortKey),
    Parts(Vec<Vec<PartItem>>),
}

/// A quad, and the index of its texture among the batcher's (each twin has its own ids).
fn quad(rng: &mut Rng, textures: usize, i: usize) -> (Quad, usize) {
    const NONE: TextureId = TextureId { index: 0, generation: 0, batcher: 0 };
    let t = rng.below(textures as u64) as usize;
    let mut q = Quad::rect(NONE, [(i % 97) as f32 * 3.0, rng.below(200) as f32], [8.0, 12.0]);
    q.color = [(i % 251) as u8, (i / 251 % 251) as u8, 7, 255];
    if rng.chance(2) {
        q.origin[0] = f32::NAN; // refused, and counted, in both
    }
    (q, t)
}

fn frame_items(rng: &mut Rng, textures: usize) -> Vec<Item> {
    let keyed = rng.chance(30);
    let mut items = Vec::new();
    let mut i = 0;
    for _ in 0..rng.below(12) {
        let item = match rng.below(10) {
            0 => Item::Blend([BlendMode::Over, BlendMode::Additive, BlendMode::Multiply][rng.below(3) as usize]),
            1 => Item::Clip(rng.chance(50).then(|| [0, 0, 50 + rng.below(200) as u32, 60])),
            2 if keyed => Item::Key(SortKey::zy(rng.below(3) as i16, rng.below(100) as f32)),
            3..=6 => Item::Parts(
                (0..rng.below(5))
                    .map(|_| {
                        (0..rng.below(6))
                            .map(|_| match rng.below(8) {
                                0 if keyed => PartItem::Key(SortKey::zy(rng.below(3) as i16, rng.below(100) as f32)),
                                1 | 2 => PartItem::Batch(
                                    (0..rng.below(300))
                                        .map(|_| {
                                            i += 1;
                                            quad(rng, textures, i)
                                        })
                                        .collect(),
                                ),
                                _ => {
                                    i += 1;
                                    let (q, t) = quad(rng, textures, i);
                                    PartItem::Quad(q, t)
                                }
                            })
                            .collect()
                    })
                    .collect(),
            ),
            _ => {
                i += 1;
                let (q, t) = quad(rng, textures, i);
                Item::Quad(q, t)
            }
        };
        items.push(item);
    }
    items
}

/// Records `items`: parts through `record_parts` (`in_parts`), or every quad pushed here.
fn record(b: &mut Batcher, ids: &[TextureId], items: &[Item], in_parts: bool) {
    let q = |q: &Quad, t: usize| Quad { texture: ids[t], ..*q };
    b.begin_frame();
    for item in items {
        match item {
            Item::Quad(quad, t) => drop(b.push(&q(quad, *t))),
            Item::Blend(m) => b.state().set_blend(*m),
            Item::Clip(c) => b.state().set_clip(*c),
            Item::Key(k) => b.state().set_sort_key(*k),
            Item::Parts(parts) if in_parts => {
                b.record_parts(parts.len(), |lent| {
                    for (part, items) in lent.iter_mut().zip(parts) {
                        for item in items {
                            match item {
                                PartItem::Quad(quad, t) => drop(part.push(&q(quad, *t))),
                                PartItem::Batch(quads) => {
                                    let quads: Vec<Quad> = quads.iter().map(|(quad, t)| q(quad, *t)).collect();
                                    drop(part.push_all(&quads));
                                }
                                PartItem::Key(k) => part.set_sort_key(*k),
                            }
                        }
                    }
                })
                .unwrap();
            }
            Item::Parts(parts) => {
                let key = b.state().sort_key();
                for items in parts {
                    for item in items {
                        match item {
                            PartItem::Quad(quad, t) => drop(b.push(&q(quad, *t))),
                            PartItem::Batch(quads) => {
                                let quads: Vec<Quad> = quads.iter().map(|(quad, t)| q(quad, *t)).collect();
                                drop(b.push_all(&quads));
                            }
                            PartItem::Key(k) => b.state().set_sort_key(*k),
                        }
                    }
                    // A part's keys end with it.
                    if items.iter().any(|i| matches!(i, PartItem::Key(_))) {
                        b.state().set_sort_key(key);
                    }
                }
            }
        }
    }
}

fn assert_same_plan(parts: &FramePlan, reference: &FramePlan, what: &str) {
    assert_eq!(parts.instances.len(), reference.instances.len(), "{what}");
    assert!(parts.instances == reference.instances, "{what}: instances differ");
    assert_eq!(parts.segments, reference.segments, "{what}");
    assert_eq!(parts.states, reference.states, "{what}");
    assert_eq!(parts.binds, reference.binds, "{what}");
    assert_eq!(parts.slot_tables, reference.slot_tables, "{what}");
    // Ops name textures by id, and each twin's ids carry its own tag.
    assert_eq!((parts.ops.len(), &parts.upload_bytes), (reference.ops.len(), &reference.upload_bytes), "{what}");
    assert_eq!(parts.counters, reference.counters, "{what}");
}

#[test]
fn a_frame_recorded_in_parts_plans_as_its_quads_pushed_in_order() {
    let mut multi_part_frames = 0;
    for seed in 0..120u64 {
        let mut rng = Rng(seed * 7919 + 3);
        let mut config = Config::default().with_instance_capacity([16, 64, 1000][seed as usize % 3]);
        config.max_slots = [2, 3, 16][seed as usize / 3 % 3];
        config.victim = [VictimChoice::NextUse, VictimChoice::LeastRecentlyUsed][seed as usize / 9 % 2];
        // Every size in an array of its own (no atlas page) in most seeds: more arrays than
        // slots, so quads are pushed whose arrays no slot holds.
        if seed % 4 != 0 {
            config.max_packed_size_px = 0;
        }
        let sizes = [(16, 16), (32, 32), (24, 40), (64, 64), (300, 200), (8, 80)];
        let mut twins = [0, 1].map(|_| {
            let mut b = Batcher::new(Limits::guaranteed_minimum(), config).unwrap();
            let ids = register_n(&mut b, &sizes, 12);
            let dev = MockDevice::new(b.budget());
            (b, ids, dev)
        });
        for f in 0..6 {
            let items = frame_items(&mut rng, 12);
            let [(a, ids_a, dev_a), (b, ids_b, dev_b)] = &mut twins;
            record(a, ids_a, &items, true);
            record(b, ids_b, &items, false);
            let (pa, pb) = (a.finish(), b.finish());
            let what = format!("seed {seed}, frame {f}");
            assert_same_plan(pa, pb, &what);
            multi_part_frames += usize::from(pa.instances.part_count() > 1);
            dev_a.execute(pa).unwrap_or_else(|e| panic!("{what}: {e}"));
            dev_b.execute(pb).unwrap();
        }
    }
    assert!(multi_part_frames > 100, "only {multi_part_frames} frames had several parts");
}

#[test]
fn parts_filled_on_threads_join_in_order_and_recycle_their_vectors() {
    let mut b = Batcher::new(Limits::guaranteed_minimum(), Config::default().with_instance_capacity(1000)).unwrap();
    let ids = register_n(&mut b, &[(16, 16), (32, 32), (64, 64)], 30);
    let quads: Vec<Quad> =
        (0..10_000).map(|i| Quad::rect(ids[i % 30], [(i % 100) as f32, (i / 100) as f32], [4.0, 4.0])).collect();
    let mut dev = MockDevice::new(b.budget());
    for frame in 0..3 {
        b.begin_frame();
        b.push(&quads[0]).unwrap();
        let joined = b.record_parts(4, |parts| {
            std::thread::scope(|s| {
                let handles: Vec<_> = parts
                    .iter_mut()
                    .zip(quads[1..].chunks(2500))
                    .map(|(part, chunk)| s.spawn(move || part.push_all(chunk).map(|()| part.len())))
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap().unwrap()).sum::<usize>()
            })
        });
        assert_eq!(joined, Ok(9_999));
        let plan = b.finish();
        assert_eq!((plan.instances.len(), plan.instances.part_count()), (10_000, 5));
        for (i, inst) in plan.instances.iter().enumerate() {
            assert_eq!(inst.origin, quads[i].origin, "frame {frame}, instance {i}");
        }
        dev.execute(plan).unwrap();
    }
    // Without a frame, nothing is lent; nor past MAX_PARTS (a host's mistake, refused rather
    // than allocated), and the frame goes on.
    assert_eq!(b.record_parts(2, |_| unreachable!()), Err::<(), _>(QuadError::NoFrame));
    b.begin_frame();
    let too_many = b.record_parts(usize::MAX, |_| unreachable!());
    assert_eq!(too_many, Err::<(), _>(QuadError::TooManyParts { parts: usize::MAX, max: Batcher::MAX_PARTS }));
    let lent = b.record_parts(Batcher::MAX_PARTS, |parts| {
        parts[7].push(&quads[0]).unwrap();
        parts.len()
    });
    assert_eq!(lent, Ok(Batcher::MAX_PARTS));
    assert_eq!(b.finish().instances.len(), 1);
}

#[test]
fn a_parts_slot_uses_count_for_the_next_eviction() {
    // Two slots, three arrays: after a part uses both slots' arrays, the first array pushed
    // whose array no slot holds evicts the one the part used least recently, in either order.
    for last in [0, 1] {
        let mut config = Config::default();
        (config.max_slots, config.max_packed_size_px) = (2, 0);
        config.victim = VictimChoice::LeastRecentlyUsed;
        let mut twins = [0, 1].map(|_| {
            let mut b = Batcher::new(Limits::guaranteed_minimum(), config).unwrap();
            let ids = register_n(&mut b, &[(16, 16), (32, 32), (64, 64)], 3);
            let dev = MockDevice::new(b.budget());
            (b, ids, dev)
        });
        let seq = [1 - last, last, 1 - last, last];
        for (n, (b, ids, dev)) in twins.iter_mut().enumerate() {
            let q = |t: usize, x: f32| Quad::rect(ids[t], [x, 0.0], [4.0, 4.0]);
            b.begin_frame();
            b.push(&q(0, 0.0)).unwrap();
            b.push(&q(1, 0.0)).unwrap();
            dev.execute(b.finish()).unwrap();
            b.begin_frame();
            let part: Vec<Quad> = seq.iter().enumerate().map(|(x, &t)| q(t, x as f32)).collect();
            match n {
                0 => b.record_parts(1, |p| p[0].push_all(&part)).unwrap().unwrap(),
                _ => b.push_all(&part).unwrap(),
            }
            b.push(&q(2, 9.0)).unwrap();
            b.push(&q(last, 9.0)).unwrap();
            dev.execute(b.finish()).unwrap();
        }
        let [(a, ..), (b, ..)] = &twins;
        assert_same_plan(a.plan(), b.plan(), &format!("last {last}"));
        let evictions = b.plan().counters.slot_evictions;
        assert_eq!(evictions, 1, "the array used last stays: one eviction, not two");
    }
}

#[test]
fn a_plan_in_parts_writes_the_bytes_of_the_plan_in_one_vector() {
    let mut rng = Rng(11);
    let instances: Vec<Instance> = (0..250)
        .map(|i| Instance { origin: [i as f32, rng.below(100) as f32], effect: i, ..Instance::default() })
        .collect();
    let one = FramePlan { instances: instances.clone().into(), instance_capacity: 64, ..FramePlan::default() };
    for cuts in [vec![1], vec![63, 64, 65], vec![100, 101, 249], vec![0, 128, 128]] {
        let mut parts = Vec::new();
        let mut at = 0;
        for &c in &cuts {
            parts.push(instances[at..c].to_vec());
            at = c;
        }
        parts.push(instances[at..].to_vec());
        let split = FramePlan { instances: Instances::from_parts(parts), ..one.clone() };
        for block in 0..4 {
            for indexed in [false, true] {
                let (mut a, mut b) = (vec![0u8; 64 * 4 * 64], vec![1u8; 64 * 4 * 64]);
                assert_eq!(split.write_block(block, indexed, &mut a), one.write_block(block, indexed, &mut b));
                let n = one.block_bytes(block, indexed);
                assert_eq!(a[..n], b[..n], "cuts {cuts:?}, block {block}, indexed {indexed}");
            }
        }
    }
}
