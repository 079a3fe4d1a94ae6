//! Sorted frames against someone else's order: the same items pushed without keys in the
//! order of `std`'s stable sort by key must give the very same plan (instances, triangles,
//! segments, states, binds, slot tables) as the items pushed in submission order with keys.

use super::register_n;
use crate::plan::*;
use crate::test_rng::Rng;
use crate::*;

/// One thing a frame does.
#[derive(Clone, Debug)]
enum Item {
    /// A quad, and the index of its texture among the batcher's (each batcher has its own ids).
    Quad(Quad, usize),
    Mesh(usize, Mesh),
    /// Quads handed over by one `push_all`.
    Batch(Vec<(Quad, usize)>),
    Flush,
    Resident(usize),
}

/// An item with the key and blend mode it was submitted under.
#[derive(Clone, Debug)]
struct Keyed {
    key: SortKey,
    blend: BlendMode,
    item: Item,
}

fn mesh(rng: &mut Rng) -> Mesh {
    let mut m = Mesh::default();
    let [x, y] = [rng.below(300) as f32, rng.below(200) as f32];
    for (k, [dx, dy]) in [[0.0, 0.0], [9.0, 0.0], [0.0, 9.0], [9.0, 9.0]].into_iter().enumerate() {
        let v = Vertex { pos_px: [x + dx, y + dy], uv: [dx / 9.0, dy / 9.0], color: [k as u8 * 60, 255, 255, 255] };
        m.push_vertex(v);
    }
    m.push_triangle(0, 1, 2);
    m.push_triangle(2, 1, 3);
    m
}

/// A frame of `n` random items over `ids`, keys from `keys` distinct values (z in -1..=1).
/// The key changes every `run` items (1: a key per item, as a y-sort; more: layers).
fn random_frame(rng: &mut Rng, ids: &[TextureId], layers: usize, n: usize, (keys, run): (u64, usize)) -> Vec<Keyed> {
    let blends = [BlendMode::Over, BlendMode::Additive, BlendMode::Multiply];
    let mut blend = BlendMode::Over;
    let mut key = SortKey::default();
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        if rng.chance(3) {
            blend = blends[rng.below(3) as usize];
        }
        if i % run == 0 {
            key = SortKey::zy(rng.below(3) as i16 - 1, (rng.below(keys) as f32 - keys as f32 / 2.0) * 0.25);
        }
        let t = rng.below(ids.len() as u64) as usize;
        let item = match rng.below(100) {
            0..=1 => Item::Flush,
            2..=3 if layers > 0 => Item::Resident(rng.below(layers as u64) as usize),
            4..=9 => Item::Mesh(t, mesh(rng)),
            10..=12 => Item::Batch(
                (0..1 + rng.below(40) as usize)
                    .map(|k| {
                        let t = rng.below(ids.len() as u64) as usize;
                        (Quad::rect(ids[t], [k as f32, (i % 200) as f32], [5.0, 5.0]), t)
                    })
                    .collect(),
            ),
            _ => {
                let mut q = Quad::rect(ids[t], [(i % 97) as f32 * 3.0, rng.below(200) as f32], [8.0, 12.0]);
                q.color = [(i % 251) as u8, (i / 251 % 251) as u8, 7, 255];
                Item::Quad(q, t)
            }
        };
        out.push(Keyed { key, blend, item });
    }
    out
}

/// Pushes `items`: with their keys (`keyed`), or in the given order without any key.
fn record(b: &mut Batcher, (ids, layers): (&[TextureId], &[ResidentId]), items: &[Keyed], keyed: bool) {
    b.begin_frame();
    for k in items {
        if keyed {
            b.state().set_sort_key(k.key);
        }
        b.state().set_blend(k.blend);
        match &k.item {
            Item::Quad(q, t) => b.push(&Quad { texture: ids[*t], ..*q }).unwrap(),
            Item::Mesh(t, m) => b.push_mesh(ids[*t], m).unwrap(),
            Item::Batch(quads) => {
                let quads: Vec<Quad> = quads.iter().map(|(q, t)| Quad { texture: ids[*t], ..*q }).collect();
                b.push_all(&quads).unwrap();
            }
            Item::Flush => b.flush(),
            Item::Resident(r) => b.draw_resident(layers[*r], &ResidentStyle::default()).unwrap(),
        }
    }
}

fn assert_same_plan(sorted: &FramePlan, reference: &FramePlan, what: &str) {
    assert_eq!(sorted.instances.len(), reference.instances.len(), "{what}");
    assert!(sorted.instances == reference.instances, "{what}: instances differ");
    assert!(sorted.triangles == reference.triangles, "{what}: triangles differ");
    // Equal segments, each with the same draw state (states are numbered in the order the
    // frame first used them: submission order in one, key order in the other).
    let same = |a: &Segment, b: &Segment| {
        Segment { state: 0, ..a.clone() } == Segment { state: 0, ..b.clone() } && sorted.state(a) == reference.state(b)
    };
    let first = sorted.segments.iter().zip(&reference.segments).position(|(a, b)| !same(a, b));
    if let Some(k) = first {
        panic!("{what}: segment {k} differs: {:?} vs {:?}", sorted.segments[k], reference.segments[k]);
    }
    assert_eq!(sorted.segments.len(), reference.segments.len(), "{what}");
    assert_eq!(sorted.binds, reference.binds, "{what}");
    assert_eq!(sorted.slot_tables, reference.slot_tables, "{what}");
    let (mut a, b) = (sorted.counters, reference.counters);
    a.sorted_items = 0;
    assert_eq!(a, b, "{what}");
}

/// Two batchers with the same textures and resident layers.
fn twins(
    limits: Limits,
    config: Config,
    textures: usize,
) -> [(Batcher, Vec<TextureId>, Vec<ResidentId>, MockDevice); 2] {
    [0, 1].map(|_| {
        let mut b = Batcher::new(limits, config).unwrap();
        let ids = register_n(&mut b, &[(16, 16), (32, 32), (24, 40), (64, 64), (300, 200)], textures);
        let layer_quads: Vec<Quad> = (0..50).map(|i| Quad::rect(ids[i % 3], [i as f32, 5.0], [4.0, 4.0])).collect();
        let layers = vec![
            b.textures().create_resident(&layer_quads).unwrap(),
            b.textures().create_resident(&layer_quads[..7]).unwrap(),
        ];
        let dev = MockDevice::new(b.budget());
        (b, ids, layers, dev)
    })
}

fn check_frames(
    limits: Limits,
    config: Config,
    textures: usize,
    frames: usize,
    n: usize,
    keys: (u64, usize),
    seed: u64,
) {
    let [(mut a, ids_a, layers_a, mut dev_a), (mut b, ids_b, layers_b, mut dev_b)] = twins(limits, config, textures);
    let mut rng = Rng(seed + 1);
    for f in 0..frames {
        let items = random_frame(&mut rng, &ids_a, layers_a.len(), n, keys);
        let mut reference = items.clone();
        reference.sort_by_key(|k| k.key); // std's stable sort: submission order within a key
        record(&mut a, (&ids_a, &layers_a), &items, true);
        record(&mut b, (&ids_b, &layers_b), &reference, false);
        let (pa, pb) = (a.finish(), b.finish());
        let what = format!("seed {seed}, frame {f}, {n} items, keys {keys:?}");
        assert_same_plan(pa, pb, &what);
        assert!(pa.counters.sorted_items >= pa.instances.len() as u64, "{what}");
        assert_eq!(pb.counters.sorted_items, 0, "{what}");
        dev_a.execute(pa).unwrap();
        dev_b.execute(pb).unwrap();
        // The same textures by index (each batcher tags its own ids), and the same texels.
        let by_index = |d: &MockDevice| d.sampled().iter().map(|s| s.map(|(t, h)| (t.index(), h))).collect::<Vec<_>>();
        assert_eq!(by_index(&dev_a), by_index(&dev_b), "{what}");
    }
}

#[test]
fn a_sorted_frame_is_planned_as_its_items_pushed_in_stable_key_order() {
    for seed in 0..24 {
        check_frames(Limits::desktop(), Config::default(), 64, 3, 400, (1 + seed * 7, 1), seed);
        // Keys by runs of 40 items: ordered by whole runs.
        check_frames(Limits::desktop(), Config::default(), 64, 3, 400, (1 + seed * 7, 40), seed);
    }
}

#[test]
fn sorting_matches_the_reference_on_a_small_device_with_slot_pressure_and_small_blocks() {
    // 4 slots, blocks of 256 instances: evictions, block boundaries and splits.
    let config = Config::default().with_arrays_enabled(false).with_instance_capacity(256);
    for seed in 100..106 {
        check_frames(Limits::guaranteed_minimum(), config, 24, 3, 700, (50, 1), seed);
        check_frames(Limits::guaranteed_minimum(), config, 24, 3, 700, (50, 50), seed);
    }
}

#[test]
fn one_hundred_thousand_quads_with_random_keys_are_one_stable_draw() {
    let mut b = Batcher::new(Limits::desktop(), Config::default().with_instance_capacity(131_072)).unwrap();
    let ids = register_n(&mut b, &[(16, 16), (32, 32), (64, 64)], 64);
    let mut rng = Rng(3 + 1);
    let n = 100_000;
    let keys: Vec<SortKey> = (0..n).map(|_| SortKey::zy(0, rng.below(1000) as f32)).collect();
    b.begin_frame();
    for (i, key) in keys.iter().enumerate() {
        let mut q = Quad::rect(ids[i % ids.len()], [0.0, 0.0], [4.0, 4.0]);
        // The submission index, in the quad's position: read back after the sort.
        q.origin = [(i % 1000) as f32, (i / 1000) as f32];
        b.state().set_sort_key(*key);
        b.push(&q).unwrap();
    }
    let plan = b.finish();
    assert_eq!(plan.segments.len(), 1);
    assert_eq!(plan.counters.draw_calls, 1);
    assert_eq!(plan.counters.sorted_items, n as u64);
    let got: Vec<usize> = plan.instances.iter().map(|i| i.origin[0] as usize + i.origin[1] as usize * 1000).collect();
    let mut want: Vec<usize> = (0..n).collect();
    want.sort_by(|&x, &y| keys[x].cmp(&keys[y])); // stable
    assert_eq!(got, want);
    let mut dev = MockDevice::new(b.budget());
    dev.execute(b.plan()).unwrap();
    assert_eq!(dev.frame_counters().draw_calls, 1);
}

#[test]
fn a_frame_without_keys_is_not_sorted_and_the_key_resets_each_frame() {
    let mut b = Batcher::new(Limits::desktop(), Config::default()).unwrap();
    let ids = register_n(&mut b, &[(16, 16)], 2);
    b.begin_frame();
    b.state().set_sort_key(SortKey::z(5));
    b.push(&Quad::rect(ids[0], [0.0, 0.0], [4.0, 4.0])).unwrap();
    b.state().set_sort_key(SortKey::z(-5));
    b.push(&Quad::rect(ids[1], [1.0, 0.0], [4.0, 4.0])).unwrap();
    let plan = b.finish();
    assert_eq!(plan.instances[0].origin, [1.0, 0.0]);
    assert_eq!(plan.counters.sorted_items, 2);
    b.begin_frame();
    assert_eq!(b.state().sort_key(), SortKey::default());
    b.push(&Quad::rect(ids[0], [0.0, 0.0], [4.0, 4.0])).unwrap();
    b.push(&Quad::rect(ids[1], [1.0, 0.0], [4.0, 4.0])).unwrap();
    let plan = b.finish();
    assert_eq!(plan.instances[0].origin, [0.0, 0.0]);
    assert_eq!(plan.counters.sorted_items, 0);
    // Outside a frame a key does nothing.
    b.state().set_sort_key(SortKey::z(3));
    assert_eq!(b.state().sort_key(), SortKey::default());
}

#[test]
fn quads_pushed_before_the_first_key_have_the_default_key() {
    let mut b = Batcher::new(Limits::desktop(), Config::default()).unwrap();
    let ids = register_n(&mut b, &[(16, 16)], 1);
    b.begin_frame();
    b.push(&Quad::rect(ids[0], [0.0, 0.0], [4.0, 4.0])).unwrap(); // default: z 0, y 0
    b.state().set_sort_key(SortKey::zy(0, -1.0));
    b.push(&Quad::rect(ids[0], [1.0, 0.0], [4.0, 4.0])).unwrap();
    b.state().set_sort_key(SortKey::zy(0, 1.0));
    b.push(&Quad::rect(ids[0], [2.0, 0.0], [4.0, 4.0])).unwrap();
    let order: Vec<f32> = b.finish().instances.iter().map(|i| i.origin[0]).collect();
    assert_eq!(order, [1.0, 0.0, 2.0]);
}

#[test]
fn a_frame_already_in_key_order_keeps_its_quads_and_still_places_a_late_layer_draw() {
    let [(mut a, ids_a, layers_a, _), (mut b, ids_b, layers_b, _)] = twins(Limits::desktop(), Config::default(), 16);
    let mut rng = Rng(77);
    // Quads in non-decreasing keys (layers pushed bottom up), then a resident draw and a flush
    // keyed under all of them: the instances stay, the draw and the flush move to the front.
    let mut items = random_frame(&mut rng, &ids_a, 0, 300, (5, 1));
    items.sort_by_key(|k| k.key);
    items.push(Keyed { key: SortKey::z(-2), blend: BlendMode::Over, item: Item::Resident(1) });
    items.push(Keyed { key: SortKey::z(-2), blend: BlendMode::Over, item: Item::Flush });
    let mut reference = items.clone();
    reference.sort_by_key(|k| k.key);
    record(&mut a, (&ids_a, &layers_a), &items, true);
    record(&mut b, (&ids_b, &layers_b), &reference, false);
    let (pa, pb) = (a.finish(), b.finish());
    assert_same_plan(pa, pb, "in key order");
    assert_eq!(pa.segments[0].resident, Some(layers_a[1]), "the layer draws first");
}
