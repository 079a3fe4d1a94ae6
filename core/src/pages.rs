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

use guillotiere::{size2, AllocId, AtlasAllocator};

/// One layer of a page array.
#[derive(Clone)]
struct Layer {
    atlas: AtlasAllocator,
    /// Texels allocated in the layer.
    used_px: u64,
}

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
    size_px: u32,
    ids: HashMap<Spot, (AllocId, [u32; 2])>,
}

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
    /// `layers` empty layers of `size_px` squared.
    pub(crate) fn new(size_px: u32, layers: u32) -> Self {
        let mut p = Self { layers: Vec::new(), size_px, ids: HashMap::new() };
        p.add_layers(layers);
        p
    }

    /// Width and height of every layer.
    pub(crate) fn size_px(&self) -> u32 {
        self.size_px
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

    /// A `w x h` rectangle in the first layer it fits.
    pub(crate) fn allocate(&mut self, w: u32, h: u32) -> Option<Spot> {
        if w == 0 || h == 0 || w > self.size_px || h > self.size_px {
            return None;
        }
        for (i, layer) in self.layers.iter_mut().enumerate() {
            if let Some(a) = layer.atlas.allocate(size2(w as i32, h as i32)) {
                let spot = Spot { layer: i as u32, x: a.rectangle.min.x as u32, y: a.rectangle.min.y as u32 };
                layer.used_px += u64::from(w) * u64::from(h);
                self.ids.insert(spot, (a.id, [w, h]));
                return Some(spot);
            }
        }
        None
    }

    /// Frees the rectangle at `spot`.
    ///
    /// # Panics
    /// If nothing was allocated there (the batcher rejects double frees first).
    pub(crate) fn free(&mut self, spot: Spot) {
        let (id, [w, h]) = self.ids.remove(&spot).expect("free of a rectangle not allocated");
        let layer = &mut self.layers[spot.layer as usize];
        layer.atlas.deallocate(id);
        layer.used_px -= u64::from(w) * u64::from(h);
    }

    /// Every layer grows to `size_px` squared; allocations keep their places.
    pub(crate) fn grow_size(&mut self, size_px: u32) {
        debug_assert!(size_px >= self.size_px);
        for l in &mut self.layers {
            l.atlas.grow(size2(size_px as i32, size_px as i32));
        }
        self.size_px = size_px;
    }

    /// `n` empty layers more.
    pub(crate) fn add_layers(&mut self, n: u32) {
        let s = self.size_px as i32;
        for _ in 0..n {
            self.layers.push(Layer { atlas: AtlasAllocator::new(size2(s, s)), used_px: 0 });
        }
    }

    /// Drops the layers from `keep` up, which must be empty.
    pub(crate) fn truncate(&mut self, keep: u32) {
        debug_assert!(self.layers[keep as usize..].iter().all(|l| l.used_px == 0));
        self.layers.truncate(keep as usize);
    }

    /// The same rectangles packed afresh, largest first, into as few layers as they take:
    /// the new pages and every rectangle's move `(from, to, [w, h])`.
    pub(crate) fn repacked(&self) -> (Pages, Vec<(Spot, Spot, [u32; 2])>) {
        let mut rects: Vec<(Spot, [u32; 2])> = self.ids.iter().map(|(s, (_, size))| (*s, *size)).collect();
        rects.sort_by_key(|(s, [w, h])| (std::cmp::Reverse((*w.max(h), w * h)), s.layer, s.x, s.y));
        let mut fresh = Pages::new(self.size_px, 0);
        let mut moves = Vec::with_capacity(rects.len());
        for (from, [w, h]) in rects {
            let to = match fresh.allocate(w, h) {
                Some(to) => to,
                None => {
                    fresh.add_layers(1);
                    fresh.allocate(w, h).expect("a rectangle fits an empty page")
                }
            };
            moves.push((from, to, [w, h]));
        }
        (fresh, moves)
    }

    /// Checks that the allocations are inside their layers and do not overlap (tests).
    pub(crate) fn check(&self) {
        let mut by_layer: HashMap<u32, Vec<[u32; 4]>> = HashMap::new();
        for (s, (_, [w, h])) in &self.ids {
            assert!((s.layer as usize) < self.layers.len(), "allocation in a missing layer");
            assert!(s.x + w <= self.size_px && s.y + h <= self.size_px, "allocation outside its page");
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
