//! Page arrays: admission into rectangles of atlas pages, growth, and layouts (compaction
//! by GPU copies, settling, and laying out afresh arrays no plan has brought to a device).

use super::{Admission, Allocator, Born, Moved, PageKey, Placement, Relaid, FIRST_PAGE_PX};
use crate::format::Format;
use crate::pages::{Pages, Rect, Spot};
use crate::plan::{ArrayDesc, ArrayId, ArrayOp};
use crate::texture::TextureDesc;
use crate::TextureError;

/// A layout of a page array's rectangles: the pages, each rectangle's place (in the order of
/// the rectangles it was made from), and the array's description.
struct Layout {
    pages: Pages,
    places: Vec<Spot>,
    desc: ArrayDesc,
}

impl Allocator {
    /// A rectangle of a page array of the texture's page class (format and filter): the first
    /// layer it fits in; else the last page array grows (in size, one side at a time, while
    /// it is one page or the texture is larger than its pages; else by an eighth more layers,
    /// one at least, or by one if the budget has room for no more); else, at the layer cap, a
    /// new page array. A compressed array the device holds grows only where the device copies
    /// compressed texels ([`crate::Limits::compressed_copies`]).
    pub(super) fn admit_page(&mut self, desc: &TextureDesc, owner: u32) -> Result<Admission, TextureError> {
        let (w, h) = (desc.width_px, desc.height_px);
        let key = PageKey { format: desc.format, sampler: desc.sampler };
        let family = self.pages.get(&key).cloned().unwrap_or_default();
        for &id in &family {
            if let Some(p) = self.place_in_pages(id, w, h, owner) {
                return Ok(Admission { placement: p, moved: None });
            }
        }
        let max_side = self.page_side_cap(desc.format);
        let mut cheapest = u64::MAX;
        if let Some(&old) = family.last().filter(|&&old| self.may_copy(old)) {
            let a = self.arrays[old.0 as usize].as_ref().expect("live");
            let (d, pages) = (a.desc, a.pages.as_ref().expect("a page array"));
            let mut candidates = Vec::new();
            // Larger pages while the array is one page, or for a texture larger than its
            // pages: growing the side of many layers would multiply them all.
            let one_page = d.layers <= self.layer_count(1);
            let larger = w > d.width_px || h > d.height_px;
            if one_page || larger {
                if let Some(size) = smallest_growth(pages, [d.width_px, d.height_px], [w, h], owner, max_side) {
                    candidates.push(ArrayDesc { width_px: size[0], height_px: size[1], ..d });
                }
            }
            if larger && candidates.is_empty() {
                // Its layers are too full for it even at a larger size: larger, and an eighth
                // more layers (the first new one holds it), rather than a second page array.
                let size = [d.width_px.max(first_side(w, max_side)), d.height_px.max(first_side(h, max_side))];
                for layers in self.grown_layers(d.layers, d.layers / 8) {
                    candidates.push(ArrayDesc { width_px: size[0], height_px: size[1], layers, ..d });
                }
            }
            if !larger {
                // An eighth more layers: amortised (a page array never grows one layer at a
                // time), yet a churning set that needs one more layer does not double its
                // pages only to be compacted back a few plans later.
                for layers in self.grown_layers(d.layers, d.layers / 8) {
                    candidates.push(ArrayDesc { layers, ..d });
                }
            }
            for new_desc in candidates {
                let cost = self.growth_cost(old, &new_desc);
                cheapest = cheapest.min(cost);
                if self.fits(cost) {
                    let id = self.grow(old, new_desc);
                    let placement = self.place_in_pages(id, w, h, owner).expect("the grown page was tried");
                    return Ok(Admission { placement, moved: Some((old, id)) });
                }
            }
        }
        // A new page array, as small as holds the texture.
        let size = [first_side(w, max_side), first_side(h, max_side)];
        let adesc = ArrayDesc {
            width_px: size[0],
            height_px: size[1],
            layers: self.layer_count(1),
            format: desc.format,
            mip_levels: 1,
            sampler: desc.sampler,
            render_target: false,
            normal_map: self.normal_map(desc),
            host: None,
        };
        if !self.fits(adesc.bytes()) {
            return Err(self.exhausted(cheapest.min(adesc.bytes()), desc.format));
        }
        let id = self.create(adesc, false, Born::Created { relayable: true });
        self.arrays[id.0 as usize].as_mut().expect("just created").pages =
            Some(Box::new(Pages::new(size, desc.format.block_size_px(), adesc.layers)));
        self.pages.entry(key).or_default().push(id);
        let placement = self.place_in_pages(id, w, h, owner).expect("a new page has room");
        Ok(Admission { placement, moved: None })
    }

    /// The largest page side for `format`: `page_size_px`, in whole blocks.
    pub(super) fn page_side_cap(&self, format: Format) -> u32 {
        // Paged formats have square blocks that divide `FIRST_PAGE_PX` (`Allocator::packs`).
        let b = format.block_size_px()[0];
        (self.page_px / b * b).max(b)
    }

    /// A `w x h` rectangle for `owner` in page array `id`, if one is free.
    fn place_in_pages(&mut self, id: ArrayId, w: u32, h: u32, owner: u32) -> Option<Placement> {
        let a = self.arrays[id.0 as usize].as_mut().expect("live");
        let pages = a.pages.as_mut().expect("a page array");
        let spot = pages.allocate(w, h, owner)?;
        if !a.used[spot.layer as usize] {
            a.used[spot.layer as usize] = true;
            a.used_count += 1;
        }
        a.touched = true;
        a.settled = false;
        Some(page_placement(id, spot, [w, h], pages.size_px()))
    }

    /// Repacks every page array whose rectangles fit in less memory into a new array (GPU
    /// copies of each rectangle). Returns what moved. Call only when no frame references the
    /// old places.
    pub fn compact(&mut self) -> Vec<Moved> {
        let mut moved = Vec::new();
        for i in 0..self.arrays.len() {
            if self.arrays[i].as_ref().is_some_and(|a| a.pages.is_some()) {
                moved.extend(self.compact_array(ArrayId(i as u32)));
            }
        }
        moved
    }

    /// The rectangles of page array `id`, sorted by owner then place (so that the layout
    /// made from them does not depend on hash order), with their places now.
    fn page_rects(&self, id: ArrayId) -> (Vec<Rect>, Vec<Spot>) {
        let pages = self.arrays[id.0 as usize].as_ref().and_then(|a| a.pages.as_ref()).expect("a page array");
        let mut all: Vec<(Spot, [u32; 2], u32)> = pages.rects().collect();
        // One integer key: owners are unique (but for `Allocator::admit`'s), places are.
        all.sort_unstable_by_key(|&(s, _, owner)| {
            u128::from(owner) << 96 | u128::from(s.layer) << 64 | u128::from(s.y) << 32 | u128::from(s.x)
        });
        all.into_iter().map(|(s, size, owner)| ((size, owner), s)).unzip()
    }

    /// The canonical layout of `rects` for an array like `like`: of the page sizes
    /// ([`page_sizes`]) from the smallest that holds the largest rectangle up to
    /// `page_size_px` (or only `only_size`), the one taking the fewest bytes (then the fewest
    /// layers), within the layer cap. Sizes are tried in the order of the bytes they would
    /// take if packed perfectly, and the search stops once that bound cannot beat the best
    /// layout found (or after [`MAX_LAYOUT_TRIES`] layouts).
    fn best_layout(&self, rects: &[Rect], like: &ArrayDesc, only_size: Option<[u32; 2]>) -> Option<Layout> {
        let b = like.format.block_size_px();
        let round = |size: [u32; 2]| like.format.round_up_px(size);
        let widest = rects.iter().map(|(size, _)| round(*size)[0]).max()?;
        let tallest = rects.iter().map(|(size, _)| round(*size)[1]).max()?;
        let area: u64 = rects.iter().map(|(size, _)| round(*size).map(u64::from).iter().product::<u64>()).sum();
        let cap = self.max_layers.max(2);
        let bound = |[w, h]: [u32; 2]| {
            let page_area = u64::from(w) * u64::from(h);
            let layers = self.layers_for(area.div_ceil(page_area).min(u64::from(u32::MAX)) as u32);
            (u64::from(layers) * page_area, layers)
        };
        let mut sizes: Vec<[u32; 2]> = match only_size {
            Some(size) => vec![size],
            None => page_sizes([widest, tallest], self.page_side_cap(like.format)),
        };
        sizes.retain(|&s| bound(s).1 <= cap);
        sizes.sort_by_key(|&s| (bound(s), s));
        let tries = if rects.len() > NEWEST_FIRST_LAYOUTS_ABOVE { MAX_LAYOUT_TRIES / 2 } else { MAX_LAYOUT_TRIES };
        let mut best: Option<Layout> = None;
        for size in sizes.into_iter().take(tries) {
            let lower = ArrayDesc { width_px: size[0], height_px: size[1], layers: bound(size).1, ..*like };
            if best.as_ref().is_some_and(|b| lower.bytes() > b.desc.bytes()) {
                break;
            }
            let (mut pages, places) = Pages::laid_out(rects, size, b);
            let layers = self.layers_for(pages.layer_count());
            if layers > cap {
                continue;
            }
            pages.add_layers(layers - pages.layer_count());
            let desc = ArrayDesc { width_px: size[0], height_px: size[1], layers, ..*like };
            if best.as_ref().is_none_or(|b| (desc.bytes(), desc.layers) < (b.desc.bytes(), b.desc.layers)) {
                best = Some(Layout { pages, places, desc });
            }
        }
        best
    }

    /// Repacks page array `id`, on the device, into a new array of its canonical layout (a
    /// Create, a CopyRect per rectangle, a Destroy: `Moved::Rect`s, then
    /// `Moved::Destroyed`), if that saves memory (two of its layers
    /// at least unless it is settling) and both arrays fit the budget during the copies.
    pub(super) fn compact_array(&mut self, id: ArrayId) -> Vec<Moved> {
        let a = self.arrays[id.0 as usize].as_ref().expect("live");
        if a.born != Born::OnDevice || a.used_count == 0 || !self.may_copy(id) {
            // Not on a device yet: laid out afresh for free before its plan (`relay_born`).
            // Or compressed on a device that cannot copy it.
            return Vec::new();
        }
        let old_desc = a.desc;
        let settling = a.settled;
        let (rects, from) = self.page_rects(id);
        // Settling looks for the best page size; so does a compaction of an array of one or
        // two pages (a streaming set that shrank: only a smaller page gives memory back). A
        // compaction of more layers keeps the page size, which costs one layout, not one per
        // size, and must give two layers back.
        let few_pages = old_desc.layers <= 2;
        let search = settling || few_pages;
        let sizes = if search { None } else { Some([old_desc.width_px, old_desc.height_px]) };
        let Some(layout) = self.best_layout(&rects, &old_desc, sizes) else { return Vec::new() };
        let old_layer = ArrayDesc { layers: 1, ..old_desc }.bytes();
        let margin = match (settling, few_pages) {
            (true, _) => 1,
            (false, true) => old_desc.bytes() / 2,
            (false, false) => 2 * old_layer,
        };
        if layout.desc.bytes() + margin > old_desc.bytes() || !self.fits(layout.desc.bytes()) {
            return Vec::new();
        }
        let Layout { pages, places, desc } = layout;
        let new = self.create(desc, false, Born::Created { relayable: false });
        let state = self.arrays[new.0 as usize].as_mut().expect("just created");
        for l in 0..desc.layers {
            state.used[l as usize] = pages.layer_used(l);
        }
        state.used_count = state.used.iter().filter(|u| **u).count() as u32;
        state.pages = Some(Box::new(pages));
        state.settled = settling;
        state.touched = false;
        let mut moved = Vec::with_capacity(rects.len());
        for ((size, owner), (from, to)) in rects.iter().zip(from.iter().zip(&places)) {
            let (from_layer, from_xy, to_layer, to_xy) = (from.layer, [from.x, from.y], to.layer, [to.x, to.y]);
            self.ops.push(ArrayOp::CopyRect { from: id, from_layer, from_xy, to: new, to_layer, to_xy, size: *size });
            moved.push(Moved::Rect { owner: *owner, from: id, from_layer, from_xy, to: new, to_layer, to_xy });
        }
        self.replace_in_families(id, new);
        self.retire(id);
        self.ops.push(ArrayOp::Destroy { array: id });
        // Said even when every rectangle moved with its owner: a rectangle of a freed texture
        // (waiting for the host's frame to end) has none, and the slot that held the old
        // array must not stay bound to its id, which a later array may get.
        moved.push(Moved::Destroyed(id));
        moved
    }

    /// Lays out afresh the arrays no plan has brought to a device yet, for free: a page array
    /// into its canonical layout (when that takes no more memory), a class array trimmed to
    /// its used layers. The batcher calls it before a frame's first quad; what was written
    /// into a moved rectangle must follow it (the writes are still pending). Returns every
    /// rectangle of each page array that was laid out again.
    pub(crate) fn relay_born(&mut self) -> Vec<Relaid> {
        let mut relaid = Vec::new();
        for i in 0..self.born.len() {
            let id = self.born[i];
            let Some(a) = self.arrays.get(id.0 as usize).and_then(Option::as_ref) else { continue };
            if a.born != (Born::Created { relayable: true }) || a.settled || a.dedicated || a.used_count == 0 {
                continue;
            }
            let old_desc = a.desc;
            if a.pages.is_none() {
                let layers = self.layers_for(a.used_layers());
                let a = self.arrays[id.0 as usize].as_mut().expect("live");
                a.settled = true;
                if layers < old_desc.layers {
                    a.used.truncate(layers as usize);
                    a.desc.layers = layers;
                    self.allocated_bytes -= old_desc.bytes() - a.desc.bytes();
                }
                continue;
            }
            let (rects, _) = self.page_rects(id);
            let layout = self.best_layout(&rects, &old_desc, None);
            let a = self.arrays[id.0 as usize].as_mut().expect("live");
            a.settled = true;
            let Some(Layout { pages, places, desc }) = layout else { continue };
            let grows_by = desc.bytes().saturating_sub(old_desc.bytes());
            if desc.bytes() > old_desc.bytes() || !(grows_by == 0 || self.fits(grows_by)) {
                continue;
            }
            let a = self.arrays[id.0 as usize].as_mut().expect("live");
            a.used = (0..desc.layers).map(|l| pages.layer_used(l)).collect();
            a.used_count = a.used.iter().filter(|u| **u).count() as u32;
            a.pages = Some(Box::new(pages));
            a.desc = desc;
            self.allocated_bytes = self.allocated_bytes + desc.bytes() - old_desc.bytes();
            relaid.extend(rects.iter().zip(&places).map(|((_, owner), to)| Relaid {
                owner: *owner,
                array: id,
                layer: to.layer,
                xy: [to.x, to.y],
            }));
        }
        relaid
    }
}

/// The placement of a `size` rectangle at `spot` of page array `array` with `page_px` pages.
pub(super) fn page_placement(array: ArrayId, spot: Spot, size: [u32; 2], page_px: [u32; 2]) -> Placement {
    let [w, h] = size;
    let [pw, ph] = [page_px[0] as f32, page_px[1] as f32];
    Placement {
        array,
        layer: spot.layer,
        rect_px: [spot.x, spot.y, w, h],
        uv_rect: [spot.x as f32 / pw, spot.y as f32 / ph, (spot.x + w) as f32 / pw, (spot.y + h) as f32 / ph],
        dedicated: false,
    }
}

/// Layouts a [`Allocator::best_layout`] tries at most (half that above
/// [`NEWEST_FIRST_LAYOUTS_ABOVE`] rectangles): each lays out every rectangle.
const MAX_LAYOUT_TRIES: usize = 12;

/// Rectangles above which a layout search tries half as many sizes.
const NEWEST_FIRST_LAYOUTS_ABOVE: usize = 2048;

/// The page sides: powers of two. Each side doubles on its own (a page grows one side at a
/// time, 256x256 to 512x256, not to 512x512), and a set laid out afresh may take any number of
/// layers of any such size, so it sits close to its texels at every size (5 layers of 1024x512
/// rather than 2 of 2048x2048). Non-power-of-two sides were tried (steps of a quarter: 64, 80,
/// 96, ...) and packed a little tighter, but a sampling position divided by 80 is not exact in
/// floating point: the same sprite filtered linearly came out 1 apart in pages of two sizes.
/// Powers of two from 16 are whole blocks of every paged format (`Allocator::packs`).
fn next_side(side: u32) -> u32 {
    side.saturating_add(1).checked_next_power_of_two().unwrap_or(u32::MAX).max(FIRST_PAGE_PX)
}

/// The smallest page side holding `px`, at most `cap`.
fn first_side(px: u32, cap: u32) -> u32 {
    let mut side = FIRST_PAGE_PX;
    while side < px && side < cap {
        side = next_side(side);
    }
    side.min(cap)
}

/// The next page size on the way to holding a `need` rectangle: a side the rectangle does
/// not fit one step longer, else the shorter side (the width on a tie); `None` at `cap` both
/// ways.
fn grown_size([w, h]: [u32; 2], need: [u32; 2], cap: u32) -> Option<[u32; 2]> {
    let wider = Some([next_side(w).min(cap), h]).filter(|_| w < cap);
    let taller = Some([w, next_side(h).min(cap)]).filter(|_| h < cap);
    if need[0] > w && wider.is_some() {
        wider
    } else if need[1] > h && taller.is_some() {
        taller
    } else if w <= h {
        wider.or(taller)
    } else {
        taller.or(wider)
    }
}

/// The page size of least area, grown from `size` one side or both along [`next_side`]'s
/// steps and neither side over twice the other (unless the rectangle needs it), at which
/// `pages` has room for a `need` rectangle without moving what it holds; `None` if no size up
/// to `cap` has. Growing only the side that makes room keeps a set of power-of-two images as
/// tight as squares would (two 256 px images: 512x256).
fn smallest_growth(pages: &Pages, size: [u32; 2], need: [u32; 2], owner: u32, cap: u32) -> Option<[u32; 2]> {
    let balanced =
        |[w, h]: [u32; 2]| (w <= 2 * h || h >= cap || need[0] > 2 * h) && (h <= 2 * w || w >= cap || need[1] > 2 * w);
    let area = |[w, h]: [u32; 2]| u64::from(w) * u64::from(h);
    let mut best: Option<[u32; 2]> = None;
    let wider = |[w, h]: [u32; 2]| (w < cap).then(|| [next_side(w).min(cap), h]);
    let taller = |[w, h]: [u32; 2]| (h < cap).then(|| [w, next_side(h).min(cap)]);
    let both = |s: [u32; 2]| grown_size(s, need, cap);
    let walks: [&dyn Fn([u32; 2]) -> Option<[u32; 2]>; 3] = [&wider, &taller, &both];
    for walk in walks {
        let mut s = size;
        while let Some(next) = walk(s) {
            s = next;
            if best.is_some_and(|b| area(s) >= area(b)) {
                break;
            }
            if !balanced(s) || s[0] < need[0] || s[1] < need[1] {
                continue;
            }
            let mut trial = pages.clone();
            trial.grow_size(s);
            if trial.allocate(need[0], need[1], owner).is_some() {
                best = Some(s);
                break;
            }
        }
    }
    best
}

/// Every page size from the smallest holding `min` up to `cap` a side, each side on
/// [`next_side`]'s steps, neither side over twice the other unless it is at its least.
fn page_sizes(min: [u32; 2], cap: u32) -> Vec<[u32; 2]> {
    let sides = |from: u32| {
        let mut v = vec![first_side(from, cap)];
        while *v.last().expect("one side") < cap {
            v.push(next_side(*v.last().expect("one side")).min(cap));
        }
        v
    };
    let (ws, hs) = (sides(min[0]), sides(min[1]));
    let mut out = Vec::new();
    for &w in &ws {
        for &h in &hs {
            // Unbalanced only where the longer side is as short as it can be.
            let balanced = (w <= 2 * h || w == ws[0]) && (h <= 2 * w || h == hs[0]);
            if balanced {
                out.push([w, h]);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sides_double_one_at_a_time() {
        assert_eq!([next_side(1), next_side(16), next_side(100), next_side(1 << 31)], [16, 32, 128, u32::MAX]);
        assert_eq!(first_side(100, 4096), 128);
        assert_eq!(first_side(5000, 4096), 4096);
        assert_eq!(first_side(100, 1000), 128);
        assert_eq!(grown_size([64, 64], [8, 8], 256), Some([128, 64]));
        assert_eq!(grown_size([128, 64], [8, 8], 256), Some([128, 128]));
        assert_eq!(grown_size([128, 64], [200, 8], 256), Some([256, 64]));
        assert_eq!(grown_size([256, 256], [8, 8], 256), None);
        assert!(page_sizes([64, 64], 256).contains(&[256, 128]));
        assert!(!page_sizes([64, 64], 256).contains(&[256, 64]));
    }
}
