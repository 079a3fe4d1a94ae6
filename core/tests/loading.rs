//! Loading a whole asset set at startup, before the first plan, as games do (and the same set
//! registered a few per frame): on the mock device, every registration admitted, memory near
//! the texels, few arrays, one draw, no GPU copies for arrays born in the plan.

use std::collections::{BTreeSet, HashMap};

use layerbatch_core::plan::{ArrayDesc, ArrayId};
use layerbatch_core::{Batcher, Config, Limits, MockDevice, Quad, TextureId};
use layerbatch_testkit::asset_sets::{game_like, real_like, texel_bytes, Asset};

/// What a loaded set came to.
struct Loaded {
    batcher: Batcher,
    device: MockDevice,
    ids: Vec<TextureId>,
    refused: usize,
}

/// Registers `set` in order, running a plan after every `per_plan` registrations (`None`: all
/// before the first plan), then `settle` empty plans.
fn load(set: &[Asset], per_plan: Option<usize>, settle: usize) -> Loaded {
    let mut batcher = Batcher::new(Limits::desktop(), Config::default()).unwrap();
    let mut device = MockDevice::new(batcher.budget());
    let (mut ids, mut refused) = (Vec::new(), 0);
    for (i, a) in set.iter().enumerate() {
        match batcher.textures().register(&a.desc, &a.pixels()) {
            Ok(id) => ids.push(id),
            Err(e) => {
                refused += 1;
                eprintln!("refused {:?}: {e}", a.desc);
            }
        }
        if per_plan.is_some_and(|n| (i + 1) % n == 0) {
            batcher.begin_frame();
            device.execute(batcher.finish()).unwrap();
        }
    }
    for _ in 0..settle {
        batcher.begin_frame();
        device.execute(batcher.finish()).unwrap();
    }
    Loaded { batcher, device, ids, refused }
}

/// Draws every texture once, at scale 1 side by side, in one frame; checks each quad sampled
/// its own texture's pixels; returns (draws, largest tier).
fn draw_all(l: &mut Loaded) -> (usize, u32) {
    l.batcher.begin_frame();
    for (i, &id) in l.ids.iter().enumerate() {
        let d = l.batcher.desc(id).unwrap();
        let size = [d.width_px as f32, d.height_px as f32];
        l.batcher.push(&Quad::rect(id, [(i % 32) as f32 * 64.0, (i / 32) as f32 * 64.0], size)).unwrap();
    }
    let plan = l.batcher.finish();
    let (draws, tier) = (plan.segments.len(), plan.segments.iter().map(|s| s.tier).max().unwrap_or(0));
    l.device.execute(plan).unwrap();
    for (i, &id) in l.ids.iter().enumerate() {
        assert_eq!(l.device.sampled()[i].map(|s| s.0), Some(id), "quad {i} sampled another texture");
    }
    (draws, tier)
}

fn arrays(b: &Batcher) -> Vec<(ArrayId, ArrayDesc)> {
    b.allocator().arrays().collect()
}

/// The arrays holding textures under `px` a side.
fn arrays_under(b: &Batcher, ids: &[TextureId], px: u32) -> BTreeSet<u32> {
    ids.iter()
        .filter(|&&id| b.desc(id).is_ok_and(|d| d.width_px.max(d.height_px) < px))
        .map(|&id| b.placement(id).unwrap().array.0)
        .collect()
}

#[test]
fn real_asset_set_loads_before_the_first_plan() {
    let set = real_like();
    let texels = texel_bytes(&set);
    assert_eq!(set.len(), 759);
    assert!(texels >= 100 << 20, "{texels} texel bytes");
    assert!(set.iter().any(|a| (a.desc.width_px, a.desc.height_px) == (4096, 3584)));
    let mut l = load(&set, None, 0);
    assert_eq!(l.refused, 0);
    let (draws, tier) = draw_all(&mut l);
    let allocated = l.batcher.allocator().allocated_bytes();
    let c = l.device.counters();
    let under_1024 = arrays_under(&l.batcher, &l.ids, 1024);
    eprintln!(
        "real-like: {} images, {texels} texel bytes, {allocated} allocated ({:.3}x), {} arrays ({} for images under \
         1024 px), {draws} draw(s) at tier {tier}, {} layers copied, peak {} bytes",
        l.ids.len(),
        allocated as f64 / texels as f64,
        arrays(&l.batcher).len(),
        under_1024.len(),
        c.layers_copied,
        l.device.peak_bytes(),
    );
    for (id, d) in arrays(&l.batcher) {
        eprintln!("  array {id:?}: {}x{} x {} layers", d.width_px, d.height_px, d.layers);
    }
    assert!(allocated * 10 <= texels * 13, "{allocated} bytes for {texels} texel bytes");
    assert!(under_1024.len() <= 3, "{under_1024:?}");
    assert_eq!((draws, tier <= 2), (1, true), "tier {tier}");
    // Arrays born in the plan: created once at their final size, never copied, counted once.
    assert_eq!((c.layers_copied, l.batcher.total_counters().array_growths), (0, 0));
    assert_eq!(l.device.peak_bytes(), allocated);
}

#[test]
fn real_asset_set_registered_32_per_frame_settles_into_the_same_arrays() {
    let set = real_like();
    let at_once = load(&set, None, 1);
    // Registered 32 per plan, then left alone long enough to settle (30 plans untouched).
    let mut spread = load(&set, Some(32), 32);
    assert_eq!(spread.refused, 0);
    let (a, b) = (arrays(&at_once.batcher), arrays(&spread.batcher));
    let descs = |v: &[(ArrayId, ArrayDesc)]| v.iter().map(|(_, d)| *d).collect::<Vec<_>>();
    let (bytes_once, bytes_spread) =
        (at_once.batcher.allocator().allocated_bytes(), spread.batcher.allocator().allocated_bytes());
    let copied = spread.device.counters().layers_copied;
    eprintln!(
        "32 per frame: {} arrays, {bytes_spread} bytes (at once: {} arrays, {bytes_once} bytes); {copied} layers \
         copied on the way",
        b.len(),
        a.len()
    );
    let mut sorted_a = descs(&a);
    let mut sorted_b = descs(&b);
    let key = |d: &ArrayDesc| (d.width_px, d.height_px, d.layers, d.sampler.mag_filter as u8);
    sorted_a.sort_by_key(key);
    sorted_b.sort_by_key(key);
    assert_eq!(sorted_a, sorted_b);
    assert_eq!(bytes_once, bytes_spread);
    let (draws, tier) = draw_all(&mut spread);
    assert_eq!((draws, tier <= 2), (1, true));
}

#[test]
fn game_like_set_fits_three_arrays() {
    let set = game_like();
    let texels = texel_bytes(&set);
    let mut l = load(&set, None, 0);
    assert_eq!(l.refused, 0);
    let (draws, tier) = draw_all(&mut l);
    let allocated = l.batcher.allocator().allocated_bytes();
    eprintln!(
        "game-like: {texels} texel bytes, {allocated} allocated ({:.3}x), {} arrays, {draws} draw(s) at tier {tier}",
        allocated as f64 / texels as f64,
        arrays(&l.batcher).len()
    );
    assert!(arrays(&l.batcher).len() <= 3);
    assert!(allocated * 100 <= texels * 135, "{allocated} bytes for {texels} texel bytes");
    assert_eq!((draws, tier <= 2), (1, true), "tier {tier}");
    // Registered 32 per frame and settled: the same arrays.
    let spread = load(&set, Some(32), 32);
    let sizes = |b: &Batcher| {
        let mut v: Vec<_> = arrays(b).iter().map(|(_, d)| (d.width_px, d.layers)).collect();
        v.sort();
        v
    };
    assert_eq!(sizes(&l.batcher), sizes(&spread.batcher));
    let per_filter: HashMap<_, usize> = arrays(&l.batcher).iter().fold(HashMap::new(), |mut m, (_, d)| {
        *m.entry(d.sampler.mag_filter as u8).or_default() += 1;
        m
    });
    assert!(per_filter.values().all(|&n| n == 1), "one page array per filter: {per_filter:?}");
}
