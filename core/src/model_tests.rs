//! A stateful model test: random sequences of every public operation, misuse included, run
//! against the batcher and the mock device, and checked against a reference model of
//! textures, contents and bytes after every step.
//!
//! `LAYERBATCH_MODEL_OPS` sets the number of operations per seed (default 25,000, four seeds:
//! 100,000 in all) and `LAYERBATCH_MODEL_SEEDS` the number of seeds, for longer soaks.

use std::collections::{BTreeMap, BTreeSet};

use crate::plan::*;
use crate::*;

use crate::test_rng::Rng;

#[derive(Clone, Debug)]
struct ModelTexture {
    desc: TextureDesc,
    /// Hash of the level-0 pixels last written (`None`: a render target, or lost with the
    /// device and not re-uploaded yet).
    content: Option<u64>,
    /// Those pixels, to follow region updates.
    pixels: Vec<u8>,
}

struct Model {
    live: BTreeMap<TextureId, ModelTexture>,
    dead: Vec<TextureId>,
    /// Quads pushed in the open frame: the texture, and whether the quad must sample the
    /// texture's content at `finish` (not after a resize in the same frame: quads pushed
    /// before it keep the old pixels).
    pushed: Vec<(TextureId, bool)>,
    open: bool,
}

fn pixels(desc: &TextureDesc, seed: u64) -> Vec<u8> {
    let px = [seed as u8, (seed >> 8) as u8, (seed >> 16) as u8 | 1, 255];
    px.repeat(desc.width_px as usize * desc.height_px as usize)
}

fn random_desc(rng: &mut Rng, max_px: u32) -> TextureDesc {
    let side = |rng: &mut Rng| if rng.chance(70) { 1 << rng.below(6) } else { 1 + rng.below(40) as u32 };
    let mut d = TextureDesc::new(side(rng).min(max_px), side(rng).min(max_px));
    if rng.chance(20) {
        d = d.with_filter(Filter::Nearest);
    }
    match rng.below(10) {
        0 => d = d.with_wrap(Wrap::Repeat),
        1 => d = d.with_wrap(Wrap::MirroredRepeat),
        _ => {}
    }
    if rng.chance(15) {
        d = d.with_mip_levels(1 + rng.below(u64::from(max_mip_levels(d.width_px, d.height_px))) as u32);
    }
    if rng.chance(10) {
        d = d.with_format(Format::Rgba8UnormSrgb);
    }
    match rng.below(20) {
        0 => d.with_usage(Usage::Dynamic),
        1 => d.with_usage(Usage::RenderTarget),
        _ => d,
    }
}

fn run(seed: u64, ops: usize) {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let config = Config {
        max_slots: 1 + rng.below(8) as u32,
        arrays_enabled: !rng.chance(10),
        initial_layers: 1 + rng.below(4) as u32,
        max_layers_per_array: 2 + rng.below(14) as u32,
        budget_bytes: (64 + rng.below(512)) << 10,
        max_class_size_px: 8 << rng.below(3),
        instance_capacity: 16 + rng.below(200) as u32,
        victim: [VictimChoice::NextUse, VictimChoice::LeastRecentlyUsed][rng.below(2) as usize],
        keep_pixels: rng.chance(50),
        ..Config::default()
    };
    let limits = Limits { avoid_ambiguous_layer_counts: rng.chance(30), ..Limits::guaranteed_minimum() };
    let mut b = Batcher::new(limits, config).unwrap();
    let budget = b.budget().clone();
    let mut dev = MockDevice::new(&budget);
    let mut other = Batcher::new(limits, config).unwrap();
    let foreign = other.textures().register(&TextureDesc::new(2, 2), &[7; 16]).unwrap();
    let mut m = Model { live: BTreeMap::new(), dead: Vec::new(), pushed: Vec::new(), open: false };
    let mut stamp = 0u64;
    let ctx = |step: usize, what: &str| format!("seed {seed}, step {step}: {what}");

    for step in 0..ops {
        stamp += 1;
        let pick = |rng: &mut Rng, m: &Model| -> Option<TextureId> {
            let n = m.live.len() as u64;
            (n > 0).then(|| *m.live.keys().nth(rng.below(n) as usize).unwrap())
        };
        let kind = rng.below(100);
        let trace = std::env::var_os("LAYERBATCH_MODEL_TRACE").is_some();
        if trace {
            eprintln!("step {step}: op {kind}, open {}, live {}", m.open, m.live.len());
        }
        match kind {
            // Register, valid or not.
            0..=17 => {
                let desc = random_desc(&mut rng, 64);
                let mut px = if desc.usage == Usage::RenderTarget { Vec::new() } else { pixels(&desc, stamp) };
                let misuse = rng.below(12);
                let bytes_before = b.allocator().allocated_bytes();
                let result = match misuse {
                    0 => b.textures().register(&TextureDesc { width_px: 0, ..desc }, &px),
                    1 => b.textures().register(&TextureDesc::new(4096, 1), &[0; 4096 * 4]),
                    2 if desc.usage != Usage::RenderTarget => {
                        px.pop();
                        b.textures().register(&desc, &px)
                    }
                    3 => b.textures().register(&desc.with_mip_levels(40), &px),
                    _ => b.textures().register(&desc, &px),
                };
                match (misuse, result) {
                    (0, Err(TextureError::ZeroSize { .. }))
                    | (1, Err(TextureError::TooLarge { .. }))
                    | (3, Err(TextureError::MipLevels { .. })) => {}
                    (2, Err(TextureError::PixelLength { .. })) if desc.usage != Usage::RenderTarget => {}
                    (_, Ok(id)) => {
                        assert!(!m.live.contains_key(&id) && !m.dead.contains(&id), "{}", ctx(step, "id reused"));
                        let content = (!px.is_empty()).then(|| MockDevice::hash(&px));
                        if trace {
                            eprintln!("  register {id:?} {desc:?} at {:?}", b.placement(id));
                        }
                        m.live.insert(id, ModelTexture { desc, content, pixels: px.clone() });
                    }
                    (_, Err(TextureError::BudgetExhausted { .. })) => {
                        assert_eq!(
                            b.allocator().allocated_bytes(),
                            bytes_before,
                            "{}",
                            ctx(step, "a refusal changed bytes")
                        );
                    }
                    (k, r) => panic!("{}", ctx(step, &format!("misuse {k}: unexpected {r:?}"))),
                }
            }
            // Update, valid or not.
            18..=27 => {
                if let Some(id) = pick(&mut rng, &m) {
                    let desc = m.live[&id].desc;
                    let px = pixels(&desc, stamp);
                    if rng.chance(10) {
                        let r = b.textures().update(id, &px[..px.len() - 4]);
                        assert!(matches!(r, Err(TextureError::PixelLength { .. })), "{}", ctx(step, "short update"));
                    } else {
                        b.textures().update(id, &px).unwrap();
                        if trace {
                            eprintln!("  update {id:?}");
                        }
                        let t = m.live.get_mut(&id).unwrap();
                        t.content = Some(MockDevice::hash(&px));
                        t.pixels = px;
                    }
                }
            }
            // Resize: dynamic textures only.
            28..=31 => {
                if let Some(id) = pick(&mut rng, &m) {
                    let old = m.live[&id].desc;
                    let desc =
                        TextureDesc { width_px: 1 + rng.below(40) as u32, height_px: 1 + rng.below(40) as u32, ..old };
                    let px = pixels(&desc, stamp);
                    match b.textures().resize(id, desc.width_px, desc.height_px, &px) {
                        Ok(()) => {
                            if trace {
                                eprintln!("  resize {id:?} at {:?}", b.placement(id));
                            }
                            assert_eq!(old.usage, Usage::Dynamic, "{}", ctx(step, "resized a non-dynamic texture"));
                            m.live.insert(id, ModelTexture { desc, content: Some(MockDevice::hash(&px)), pixels: px });
                            for q in m.pushed.iter_mut().filter(|q| q.0 == id) {
                                q.1 = false;
                            }
                        }
                        Err(TextureError::NotDynamic(_)) => assert_ne!(old.usage, Usage::Dynamic),
                        Err(TextureError::MipLevels { .. })
                            if old.mip_levels > max_mip_levels(desc.width_px, desc.height_px) => {}
                        Err(TextureError::BudgetExhausted { .. }) => {}
                        Err(e) => panic!("{}", ctx(step, &format!("resize: {e}"))),
                    }
                }
            }
            // Free, and double free.
            32..=41 => {
                if let Some(id) = pick(&mut rng, &m) {
                    b.textures().free(id).unwrap();
                    if trace {
                        eprintln!("  free {id:?}");
                    }
                    m.live.remove(&id);
                    m.dead.push(id);
                    assert_eq!(b.textures().free(id), Err(TextureError::Stale(id)), "{}", ctx(step, "double free"));
                }
            }
            // Push quads (opening a frame when none is), with misuse.
            // A region update (glyph caches, dynamic atlases), valid or not.
            68..=69 => {
                if let Some(id) = pick(&mut rng, &m) {
                    let t = m.live.get_mut(&id).unwrap();
                    let d = t.desc;
                    let (x, y) = (rng.below(u64::from(d.width_px)) as u32, rng.below(u64::from(d.height_px)) as u32);
                    let w = 1 + rng.below(u64::from(d.width_px - x)) as u32;
                    let h = 1 + rng.below(u64::from(d.height_px - y)) as u32;
                    let bpp = d.format.block_bytes() as usize; // the model registers RGBA8 only
                    let patch = vec![stamp as u8 | 1; d.format.image_bytes(w, h) as usize];
                    if trace {
                        eprintln!("  update_region {id:?} {:?} known {}", [x, y, w, h], t.content.is_some());
                    }
                    match b.textures().update_region(id, [x, y, w, h], &patch) {
                        Ok(()) => {
                            assert_eq!(d.mip_levels, 1, "{}", ctx(step, "region update of a mipped texture"));
                            if t.content.is_some() {
                                let row = w as usize * bpp;
                                for r in 0..h as usize {
                                    let at = ((y as usize + r) * d.width_px as usize + x as usize) * bpp;
                                    t.pixels[at..at + row].copy_from_slice(&patch[r * row..(r + 1) * row]);
                                }
                                t.content = Some(MockDevice::hash(&t.pixels));
                            }
                        }
                        Err(TextureError::Region { .. }) => {
                            assert!(d.mip_levels > 1, "{}", ctx(step, "region refused"))
                        }
                        Err(e) => panic!("{}", ctx(step, &format!("update_region: {e}"))),
                    }
                    let r = b.textures().update_region(id, [d.width_px, 0, 1, 1], &[0; 4]);
                    assert!(matches!(r, Err(TextureError::Region { .. })), "{}", ctx(step, "region outside"));
                }
            }
            // Repack pages between frames (inside one it does nothing).
            70..=71 => {
                let moved = b.textures().compact();
                assert!(!m.open || moved == 0, "{}", ctx(step, "compacted inside a frame"));
            }
            42..=67 => {
                if !m.open {
                    b.begin_frame();
                    m.open = true;
                }
                if rng.chance(30) {
                    // The slice API: every valid quad recorded, the first bad one reported.
                    let mut quads = Vec::new();
                    let mut expect_first = None;
                    for _ in 0..1 + rng.below(300) {
                        let k = quads.len();
                        match (rng.below(40), pick(&mut rng, &m)) {
                            (0, _) => {
                                expect_first.get_or_insert(RejectedQuad { index: k, error: QuadError::Stale(foreign) });
                                quads.push(Quad::rect(foreign, [0.0; 2], [1.0; 2]));
                            }
                            (1, Some(id)) => {
                                expect_first.get_or_insert(RejectedQuad { index: k, error: QuadError::NonFinite });
                                quads.push(Quad::rect(id, [0.0, f32::NAN], [1.0; 2]));
                            }
                            (_, Some(id)) => {
                                quads.push(Quad::rect(id, [k as f32, 0.0], [2.0; 2]));
                                m.pushed.push((id, true));
                            }
                            (_, None) => {}
                        }
                    }
                    assert_eq!(b.push_all(&quads), expect_first.map_or(Ok(()), Err), "{}", ctx(step, "push_all"));
                }
                for _ in 0..1 + rng.below(12) {
                    match (rng.below(20), pick(&mut rng, &m)) {
                        (0, _) => {
                            assert_eq!(
                                b.push(&Quad::rect(foreign, [0.0; 2], [1.0; 2])),
                                Err(QuadError::Stale(foreign))
                            );
                        }
                        (1, _) if !m.dead.is_empty() => {
                            let id = m.dead[rng.below(m.dead.len() as u64) as usize];
                            assert_eq!(b.push(&Quad::rect(id, [0.0; 2], [1.0; 2])), Err(QuadError::Stale(id)));
                        }
                        (2, Some(id)) => {
                            let q = Quad::rect(id, [f32::INFINITY, 0.0], [1.0; 2]);
                            assert_eq!(b.push(&q), Err(QuadError::NonFinite));
                        }
                        (_, Some(id)) => {
                            b.push(&Quad::rect(id, [stamp as f32 % 100.0, 0.0], [2.0; 2])).unwrap();
                            m.pushed.push((id, true));
                        }
                        _ => {}
                    }
                }
            }
            72..=74 => b.flush(),
            // `?` mid-frame: the next begin_frame discards the open frame.
            75..=77 => {
                b.begin_frame();
                m.open = true;
                m.pushed.clear();
            }
            // Push outside a frame.
            78 => {
                if !m.open {
                    if let Some(id) = pick(&mut rng, &m) {
                        assert_eq!(b.push(&Quad::rect(id, [0.0; 2], [1.0; 2])), Err(QuadError::NoFrame));
                    }
                }
            }
            // A plan finished and never executed: the device refuses the next, restore heals.
            79..=81 => {
                b.finish();
                m.open = false;
                m.pushed.clear();
                b.begin_frame();
                let next = b.finish();
                let refused =
                    matches!(dev.execute(next), Err(PlanError::Sequence { .. } | PlanError::NeedsRebuild { .. }));
                assert!(refused, "{}", ctx(step, "gap accepted"));
                restore(&mut b, &mut m, &mut rng, &mut stamp);
            }
            // The device is lost (possibly mid-frame) and replaced.
            82..=83 => {
                dev = MockDevice::new(&budget);
                restore(&mut b, &mut m, &mut rng, &mut stamp);
            }
            // Finish and execute.
            _ => {
                let plan = b.finish();
                m.open = false;
                dev.execute(plan).unwrap_or_else(|e| panic!("{}", ctx(step, &format!("plan refused: {e}"))));
                assert_eq!(plan.counters.quads, m.pushed.len() as u64, "{}", ctx(step, "quads"));
                for (i, (id, checked)) in m.pushed.iter().enumerate() {
                    let sampled = dev.sampled()[i];
                    assert!(sampled.is_none_or(|s| s.0 == *id), "{}", ctx(step, "sampled another texture"));
                    if !checked {
                        continue;
                    }
                    if let Some(t) = m.live.get(id) {
                        if let Some(content) = t.content {
                            assert_eq!(
                                sampled,
                                Some((*id, content)),
                                "{}\nplacement {:?}\nrebuild {} ops {:#?}",
                                ctx(step, &format!("quad {i} of {id:?}")),
                                0,
                                plan.rebuild,
                                plan.ops
                                    .iter()
                                    .map(|o| match o {
                                        ResourceOp::WriteLayer { texture, array, layer, .. } =>
                                            format!("write {texture:?} {array:?}/{layer}"),
                                        ResourceOp::Array(a) => format!("{a:?}"),
                                        ResourceOp::Resident(r) => format!("{r:?}"),
                                    })
                                    .collect::<Vec<_>>()
                            );
                        }
                    }
                }
                assert!(dev.peak_bytes() <= budget.budget_bytes, "{}", ctx(step, "device peak over budget"));
                m.pushed.clear();
                // The device holds what the allocator counts, plus what the next plan destroys.
                assert_eq!(
                    device_bytes_after(&dev, b.textures().pending_ops()),
                    b.allocator().allocated_bytes(),
                    "{}",
                    ctx(step, "bytes")
                );
            }
        }
        check(&mut b, &m, &budget, &ctx(step, "invariants"));
    }
}

/// `restore`, then the re-uploads it asks for (sometimes late: those textures then sample
/// nothing known until they are re-sent).
fn restore(b: &mut Batcher, m: &mut Model, rng: &mut Rng, stamp: &mut u64) {
    let keep = b.budget().keep_pixels;
    let listed: BTreeSet<TextureId> = b.restore().into_iter().collect();
    if std::env::var_os("LAYERBATCH_MODEL_TRACE").is_some() {
        eprintln!("  restore listed {listed:?}");
    }
    if keep {
        assert!(listed.is_empty(), "CPU copies on, yet restore listed {listed:?}");
    }
    for (id, t) in m.live.iter_mut() {
        if t.desc.usage == Usage::RenderTarget {
            assert!(!listed.contains(id), "a render target was listed");
            t.content = None; // comes back cleared
            continue;
        }
        if listed.contains(id) {
            if rng.chance(90) {
                *stamp += 1;
                let px = pixels(&t.desc, *stamp);
                b.textures().update(*id, &px).unwrap();
                t.content = Some(MockDevice::hash(&px));
                t.pixels = px;
            } else {
                t.content = None;
            }
        }
    }
    for id in &listed {
        assert!(m.live.contains_key(id), "restore listed a dead or unknown id {id:?}");
    }
}

fn check(b: &mut Batcher, m: &Model, budget: &Budget, what: &str) {
    let alloc = b.allocator();
    alloc.check_invariants();
    assert!(alloc.peak_bytes() <= budget.budget_bytes, "{what}: allocator peak over budget");
    let mut rects: BTreeMap<(ArrayId, u32), Vec<[u32; 4]>> = BTreeMap::new();
    let mut texel_bytes = 0u64;
    for (id, t) in &m.live {
        assert!(b.contains(*id), "{what}: live {id:?} unknown");
        assert_eq!(b.desc(*id).unwrap(), t.desc, "{what}: desc of {id:?}");
        let p = b.placement(*id).unwrap();
        let a = alloc.array(p.array).unwrap_or_else(|| panic!("{what}: {id:?} in a dead array"));
        assert!(p.layer < a.layers, "{what}: layer");
        let [x, y, w, h] = p.rect_px;
        assert!(x + w <= a.width_px && y + h <= a.height_px, "{what}: rect outside the layer");
        assert_eq!((w, h), (t.desc.width_px, t.desc.height_px), "{what}: rect size");
        let list = rects.entry((p.array, p.layer)).or_default();
        assert!(list.iter().all(|r| apart(*r, p.rect_px)), "{what}: {id:?} at {p:?} overlaps another texture");
        list.push(p.rect_px);
        texel_bytes += mip_chain_bytes(w, h, t.desc.mip_levels, t.desc.format);
    }
    assert!(alloc.allocated_bytes() >= texel_bytes, "{what}: fewer bytes than texels");
    for id in &m.dead {
        assert!(!b.contains(*id), "{what}: dead {id:?} alive");
    }
    if budget.keep_pixels {
        let kept: u64 = m
            .live
            .values()
            .filter(|t| t.desc.usage != Usage::RenderTarget && t.content.is_some())
            .map(|t| t.desc.byte_len() as u64)
            .sum();
        assert_eq!(b.textures().cpu_copy_bytes(), kept, "{what}: CPU copy bytes");
    }
}

/// The array bytes the device will hold once it applies `pending` (ops queued for the next
/// plan): what the allocator already counts.
pub(crate) fn device_bytes_after(dev: &MockDevice, pending: &[ResourceOp]) -> u64 {
    let mut bytes = dev.allocated_bytes() as i128;
    for op in pending {
        match op {
            ResourceOp::Array(ArrayOp::Create { desc, .. }) => bytes += i128::from(desc.bytes()),
            ResourceOp::Array(ArrayOp::Grow { from, desc, .. } | ArrayOp::Shrink { from, desc, .. }) => {
                bytes += i128::from(desc.bytes()) - i128::from(dev.array_bytes(*from).unwrap_or(0));
            }
            ResourceOp::Array(ArrayOp::Destroy { array }) => bytes -= i128::from(dev.array_bytes(*array).unwrap_or(0)),
            _ => {}
        }
    }
    bytes as u64
}

/// Whether two `[x, y, w, h]` rectangles do not overlap.
pub(crate) fn apart(a: [u32; 4], b: [u32; 4]) -> bool {
    a[0] + a[2] <= b[0] || b[0] + b[2] <= a[0] || a[1] + a[3] <= b[1] || b[1] + b[3] <= a[1]
}

fn env(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[test]
fn model_100k_operations() {
    let ops = env("LAYERBATCH_MODEL_OPS", 25_000);
    let seeds = env("LAYERBATCH_MODEL_SEEDS", 4);
    for seed in 0..seeds as u64 {
        run(seed, ops);
    }
}
