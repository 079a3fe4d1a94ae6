//! Atlas pages: the layers of a page array, each a rectangle allocator. Pure logic.
//!
//! Loose images of every size would otherwise fragment into one size class each (measured: 100
//! textures of random sizes made 72 arrays and ~4x their texel bytes). Pages pack them into
//! rectangles of shared layers instead, one array per page class (format and filter).
//!
//! The allocator is `guillotiere` (by the author of `etagere`, used by WebRender's texture
//! cache) rather than `etagere`: measured here on 200 textures of random sizes 1..256 in 512 px
//! pages, first fit over the layers, 20 seeds, guillotiere needed 1.24x the texel bytes on
//! average (1.34x worst) and etagere's shelves 1.37x (1.43x worst); at 1024 px, 1.31x against
//! 1.51x. Shelves waste the height above short rectangles; guillotine splits reuse it.

use std::collections::HashMap;

use guillotiere::{size2, AllocId, AllocatorOptions, AtlasAllocator};

/// One layer of a page array.
#[derive(Clone)]
struct Layer {
    atlas: AtlasAllocator,
    /// Texels allocated in the layer.
    used_px: u64,
    /// The smallest size an allocation failed at since the layer last gained free space:
    /// anything at least as wide and as tall fails too, without asking the allocator (a
    /// layout of 10,000 rectangles into full layers asked it 20 times over).
    failed: [u32; 2],
    /// Allocations in a row that did not fit, while laid out afresh ([`Pages::laid_out`]).
    misses: u32,
}

/// Misses in a row after which a layout stops trying a layer nine tenths full: it is as good
/// as full, and every failed try searches all of its free rectangles (trying every full layer for every
/// rectangle made a layout of 10,000 rectangles take 14 ms instead of 3).
const CLOSE_AFTER_MISSES: u32 = 16;

/// [`Layer::failed`] when nothing failed.
const NOTHING_FAILED: [u32; 2] = [u32::MAX; 2];

/// Where a rectangle went: layer and top-left corner, texels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Spot {
    pub(crate) layer: u32,
    pub(crate) x: u32,
    pub(crate) y: u32,
}

/// The rectangle allocators of a page array's layers, and the allocations in them.
#[derive(Clone)]
pub(crate) struct Pages {
    layers: Vec<Layer>,
    /// Width and height of every layer (pages grow one side at a time: not square).
    size_px: [u32; 2],
    /// Rectangles are whole blocks of this side (4 for a compressed format, else 1): sizes
    /// are rounded up to it, and with a page side that is a multiple, so is every corner.
    block_px: [u32; 2],
    /// Every allocation: its allocator id, its size and its owner (the batcher's registry
    /// index), so a moved rectangle names its texture without a search.
    ids: HashMap<Spot, (AllocId, [u32; 2], u32), SpotHash>,
}

/// A multiplicative hash of a spot's three words: spots are not attacker-chosen, and SipHash
/// made the 10,000 inserts of a layout a tenth of its time.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SpotHasher(u64);

impl std::hash::Hasher for SpotHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u32(u32::from(b));
        }
    }
    fn write_u32(&mut self, v: u32) {
        self.0 = (self.0.rotate_left(5) ^ u64::from(v)).wrapping_mul(0x517C_C1B7_2722_0A95);
    }
}

type SpotHash = std::hash::BuildHasherDefault<SpotHasher>;

/// Rectangles above which a layout tries the newest layer first (below, every layer in
/// order, which packs a little tighter).
const NEWEST_FIRST_ABOVE: usize = 2048;

/// A rectangle to lay out: its size and its owner.
pub(crate) type Rect = ([u32; 2], u32);

impl std::fmt::Debug for Pages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pages")
            .field("size_px", &self.size_px)
            .field("layers", &self.layers.len())
            .field("allocations", &self.ids.len())
            .field("used_px", &self.used_px())
            .finish()
    }
}

impl Pages {
    /// `layers` empty layers of `size_px` (each side a multiple of the block's), holding
    /// rectangles in whole `block_px` (width, height) blocks.
    pub(crate) fn new(size_px: [u32; 2], block_px: [u32; 2], layers: u32) -> Self {
        debug_assert!(size_px[0] % block_px[0] == 0 && size_px[1] % block_px[1] == 0);
        let mut p = Self { layers: Vec::new(), size_px, block_px, ids: HashMap::default() };
        p.add_layers(layers);
        p
    }

    /// Width and height of every layer.
    pub(crate) fn size_px(&self) -> [u32; 2] {
        self.size_px
    }

    /// Width and height of the blocks rectangles are made of.
    pub(crate) fn block_px(&self) -> [u32; 2] {
        self.block_px
    }

    /// `[w, h]` rounded up to whole blocks: the rectangle a texture takes.
    pub(crate) fn rounded(&self, [w, h]: [u32; 2]) -> [u32; 2] {
        let [bw, bh] = self.block_px;
        [w.div_ceil(bw) * bw, h.div_ceil(bh) * bh]
    }

    /// Layers.
    pub(crate) fn layer_count(&self) -> u32 {
        self.layers.len() as u32
    }

    /// Texels allocated in all layers.
    pub(crate) fn used_px(&self) -> u64 {
        self.layers.iter().map(|l| l.used_px).sum()
    }

    /// Whether `layer` holds any rectangle.
    pub(crate) fn layer_used(&self, layer: u32) -> bool {
        self.layers[layer as usize].used_px > 0
    }

    /// Layers from the bottom up to the highest one holding a rectangle.
    pub(crate) fn used_layers(&self) -> u32 {
        self.layers.iter().rposition(|l| l.used_px > 0).map_or(0, |i| i as u32 + 1)
    }

    /// A `w x h` rectangle (rounded up to whole blocks) for `owner` in the first layer it fits.
    pub(crate) fn allocate(&mut self, w: u32, h: u32, owner: u32) -> Option<Spot> {
        self.allocate_closing(w, h, owner, u32::MAX, false)
    }

    /// [`Pages::allocate`], skipping layers that missed `close_after` allocations in a row.
    fn allocate_closing(&mut self, w: u32, h: u32, owner: u32, close_after: u32, newest_first: bool) -> Option<Spot> {
        let [w, h] = self.rounded([w, h]);
        if w == 0 || h == 0 || w > self.size_px[0] || h > self.size_px[1] {
            return None;
        }
        let (area, page) = (u64::from(w) * u64::from(h), u64::from(self.size_px[0]) * u64::from(self.size_px[1]));
        // Laying out many rectangles, the newest layer first: it has the most room, so most
        // go in at the first try, and only those it cannot hold search the older layers'
        // holes (10,000 rectangles: 3 ms instead of 5, for a little less tightness).
        let n = self.layers.len();
        let newest_first = newest_first && n > 1;
        let order = newest_first.then(|| n - 1).into_iter().chain((0..n).take(if newest_first { n - 1 } else { n }));
        for i in order {
            let layer = &mut self.layers[i];
            // A layer without the free area cannot hold it: skip the allocator's search.
            // Closed: it missed `close_after` in a row and is nine tenths full.
            let closed = layer.misses >= close_after && layer.used_px * 10 >= page * 9;
            if closed || layer.used_px + area > page || (w >= layer.failed[0] && h >= layer.failed[1]) {
                continue;
            }
            if let Some(a) = layer.atlas.allocate(size2(w as i32, h as i32)) {
                let spot = Spot { layer: i as u32, x: a.rectangle.min.x as u32, y: a.rectangle.min.y as u32 };
                layer.used_px += area;
                layer.misses = 0;
                self.ids.insert(spot, (a.id, [w, h], owner));
                return Some(spot);
            }
            layer.misses += 1;
            if w <= layer.failed[0] && h <= layer.failed[1] || layer.failed == NOTHING_FAILED {
                layer.failed = [w, h];
            }
        }
        None
    }

    /// Frees the rectangle at `spot` of size `size` (rounded up to blocks, as allocated);
    /// `false` (and nothing changes) if no rectangle of that size was allocated there.
    pub(crate) fn free(&mut self, spot: Spot, size: [u32; 2]) -> bool {
        let size = self.rounded(size);
        match self.ids.get(&spot) {
            Some(&(id, s, _)) if s == size => {
                self.ids.remove(&spot);
                let layer = &mut self.layers[spot.layer as usize];
                layer.atlas.deallocate(id);
                layer.used_px -= u64::from(size[0]) * u64::from(size[1]);
                layer.failed = NOTHING_FAILED;
                true
            }
            _ => false,
        }
    }

    /// Every rectangle: its place, size (whole blocks) and owner.
    pub(crate) fn rects(&self) -> impl Iterator<Item = (Spot, [u32; 2], u32)> + '_ {
        self.ids.iter().map(|(s, (_, size, owner))| (*s, *size, *owner))
    }

    /// Every layer grows to `size_px` (no side shrinks); allocations keep their places.
    pub(crate) fn grow_size(&mut self, size_px: [u32; 2]) {
        debug_assert!(size_px[0] >= self.size_px[0] && size_px[1] >= self.size_px[1]);
        for l in &mut self.layers {
            l.atlas.grow(size2(size_px[0] as i32, size_px[1] as i32));
            l.failed = NOTHING_FAILED;
        }
        self.size_px = size_px;
    }

    /// `n` empty layers more.
    pub(crate) fn add_layers(&mut self, n: u32) {
        let [w, h] = self.size_px;
        let [bw, bh] = self.block_px.map(|b| b as i32);
        let options = AllocatorOptions { alignment: size2(bw, bh), ..AllocatorOptions::default() };
        for _ in 0..n {
            self.layers.push(Layer {
                atlas: AtlasAllocator::with_options(size2(w as i32, h as i32), &options),
                used_px: 0,
                failed: NOTHING_FAILED,
                misses: 0,
            });
        }
    }

    /// Drops the layers from `keep` up, which must be empty.
    pub(crate) fn truncate(&mut self, keep: u32) {
        debug_assert!(self.layers[keep as usize..].iter().all(|l| l.used_px == 0));
        self.layers.truncate(keep as usize);
    }

    /// The canonical layout of `rects` in pages of `size_px`: largest first (ties by owner,
    /// then by input order), each into the first layer it fits. A function of the set alone,
    /// not of where the rectangles are now, so a set registered at once and one registered
    /// over many frames settle into the same layout. Returns the pages and, for each
    /// rectangle (by index into `rects`), its new place.
    pub(crate) fn laid_out(rects: &[Rect], size_px: [u32; 2], block_px: [u32; 2]) -> (Pages, Vec<Spot>) {
        let mut order: Vec<usize> = (0..rects.len()).collect();
        order.sort_by_key(|&i| {
            let ([w, h], owner) = rects[i];
            (std::cmp::Reverse((w.max(h), u64::from(w) * u64::from(h))), owner, i)
        });
        let mut fresh = Pages::new(size_px, block_px, 0);
        fresh.ids.reserve(rects.len());
        let mut places = vec![Spot { layer: 0, x: 0, y: 0 }; rects.len()];
        for i in order {
            let ([w, h], owner) = rects[i];
            let newest_first = rects.len() > NEWEST_FIRST_ABOVE;
            places[i] = match fresh.allocate_closing(w, h, owner, CLOSE_AFTER_MISSES, newest_first) {
                Some(spot) => spot,
                None => {
                    fresh.add_layers(1);
                    fresh
                        .allocate_closing(w, h, owner, CLOSE_AFTER_MISSES, newest_first)
                        .expect("a rectangle fits an empty page")
                }
            };
        }
        for layer in &mut fresh.layers {
            layer.misses = 0;
        }
        (fresh, places)
    }

    /// Checks that the allocations are inside their layers and do not overlap (tests).
    pub(crate) fn check(&self) {
        let mut by_layer: HashMap<u32, Vec<[u32; 4]>> = HashMap::new();
        for (s, (_, [w, h], _)) in &self.ids {
            assert!((s.layer as usize) < self.layers.len(), "allocation in a missing layer");
            assert!(s.x + w <= self.size_px[0] && s.y + h <= self.size_px[1], "allocation outside its page");
            let [bw, bh] = self.block_px;
            assert!(s.x % bw == 0 && s.y % bh == 0 && w % bw == 0 && h % bh == 0, "allocation not in whole blocks");
            by_layer.entry(s.layer).or_default().push([s.x, s.y, *w, *h]);
        }
        for (layer, rects) in by_layer {
            let used: u64 = rects.iter().map(|r| u64::from(r[2]) * u64::from(r[3])).sum();
            assert_eq!(used, self.layers[layer as usize].used_px, "texels of layer {layer} drifted");
            for (i, a) in rects.iter().enumerate() {
                for b in &rects[i + 1..] {
                    let apart =
                        a[0] + a[2] <= b[0] || b[0] + b[2] <= a[0] || a[1] + a[3] <= b[1] || b[1] + b[3] <= a[1];
                    assert!(apart, "rectangles {a:?} and {b:?} overlap in layer {layer}");
                }
            }
        }
    }
}
