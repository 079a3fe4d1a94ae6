//! Page arrays: admission into rectangles of atlas pages, growth, and layouts (compaction
//! by GPU copies, settling, and laying out afresh arrays no plan has brought to a device).

use super::{Admission, Allocator, Born, Moved, PageKey, Placement, Relaid, FIRST_PAGE_PX};
use crate::pages::{Pages, Rect, Spot};
use crate::plan::{ArrayDesc, ArrayId, ArrayOp};
use crate::texture::{TextureDesc, Wrap};
use crate::TextureError;

/// A layout of a page array's rectangles: the pages, each rectangle's place (in the order of
/// the rectangles it was made from), and the array's description.
struct Layout {
    pages: Pages,
    places: Vec<Spot>,
    desc: ArrayDesc,
}

impl Allocator {
    /// A rectangle of a page array of the texture's page class: the first layer it fits in;
    /// else the last page array grows (in size while below `page_size_px`, to the smallest
    /// size where the texture fits; else by an eighth more layers, one at least, or by one
    /// if the budget has room for no more); else, at the layer cap, a new page array.
    pub(super) fn admit_page(&mut self, desc: &TextureDesc, owner: u32) -> Result<Admission, TextureError> {
        let (w, h) = (desc.width_px, desc.height_px);
        let key = PageKey { format: desc.format, filter: desc.filter };
        let family = self.pages.get(&key).cloned().unwrap_or_default();
        for &id in &family {
            if let Some(p) = self.place_in_pages(id, w, h, owner) {
                return Ok(Admission { placement: p, moved: None });
            }
        }
        let mut cheapest = u64::MAX;
        if let Some(&old) = family.last() {
            let a = self.arrays[old.0 as usize].as_ref().expect("live");
            let (d, pages) = (a.desc, a.pages.as_ref().expect("a page array"));
            let mut candidates = Vec::new();
            let mut side = d.width_px;
            // Larger pages while the array is one page, or for a texture larger than its
            // pages: growing the side of many layers would multiply them all.
            let one_page = d.layers <= self.layer_count(1);
            while side < self.page_px && (one_page || w.max(h) > d.width_px) {
                side = (side * 2).min(self.page_px);
                let grown = ArrayDesc { width_px: side, height_px: side, ..d };
                let mut trial = (**pages).clone();
                trial.grow_size(side);
                if trial.allocate(w, h, owner).is_some() {
                    candidates.push(grown);
                }
            }
            if w <= d.width_px && h <= d.height_px {
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
        let mut side = FIRST_PAGE_PX.min(self.page_px);
        while side < w.max(h) {
            side *= 2;
        }
        let side = side.min(self.page_px);
        let adesc = ArrayDesc {
            width_px: side,
            height_px: side,
            layers: self.layer_count(1),
            format: desc.format,
            mip_levels: 1,
            filter: desc.filter,
            wrap: Wrap::ClampToEdge,
            render_target: false,
        };
        if !self.fits(adesc.bytes()) {
            return Err(self.exhausted(cheapest.min(adesc.bytes())));
        }
        let id = self.create(adesc, false, Born::Created { relayable: true });
        self.arrays[id.0 as usize].as_mut().expect("just created").pages =
            Some(Box::new(Pages::new(side, adesc.layers)));
        self.pages.entry(key).or_default().push(id);
        let placement = self.place_in_pages(id, w, h, owner).expect("a new page has room");
        Ok(Admission { placement, moved: None })
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

    /// The canonical layout of `rects` for an array like `like`: of the page sides from the
    /// smallest that holds the largest rectangle up to `page_size_px` (or `only_side`), the
    /// one taking the fewest bytes (then the fewest layers), within the layer cap.
    fn best_layout(&self, rects: &[Rect], like: &ArrayDesc, only_side: Option<u32>) -> Option<Layout> {
        let largest = rects.iter().map(|([w, h], _)| (*w).max(*h)).max()?;
        let area: u64 = rects.iter().map(|([w, h], _)| u64::from(*w) * u64::from(*h)).sum();
        let mut side = FIRST_PAGE_PX.min(self.page_px);
        while side < largest {
            side *= 2;
        }
        let mut side = side.min(self.page_px);
        let mut best: Option<Layout> = None;
        loop {
            let page_area = u64::from(side).pow(2);
            let fewest_layers = area.div_ceil(page_area);
            let lower_bound = ArrayDesc { width_px: side, height_px: side, layers: fewest_layers as u32, ..*like };
            // Smaller pages first: they take as few bytes as any, and lay out fastest (the
            // allocator's search grows with the rectangles in a page).
            let possible = fewest_layers <= u64::from(self.max_layers.max(2)) && only_side.is_none_or(|s| s == side);
            if possible && best.as_ref().is_none_or(|b| lower_bound.bytes() <= b.desc.bytes()) {
                let (mut pages, places) = Pages::laid_out(rects, side);
                let layers = self.layers_for(pages.layer_count());
                if layers <= self.max_layers.max(2) {
                    pages.add_layers(layers - pages.layer_count());
                    let desc = ArrayDesc { width_px: side, height_px: side, layers, ..*like };
                    let better =
                        best.as_ref().is_none_or(|b| (desc.bytes(), desc.layers) < (b.desc.bytes(), b.desc.layers));
                    if better {
                        best = Some(Layout { pages, places, desc });
                    }
                }
            }
            if side >= self.page_px {
                break;
            }
            side = (side * 2).min(self.page_px);
        }
        best
    }

    /// Repacks page array `id`, on the device, into a new array of its canonical layout (a
    /// Create, a CopyRect per rectangle, a Destroy), if that saves memory (two of its layers
    /// at least unless it is settling) and both arrays fit the budget during the copies.
    pub(super) fn compact_array(&mut self, id: ArrayId) -> Vec<Moved> {
        let a = self.arrays[id.0 as usize].as_ref().expect("live");
        if a.born != Born::OnDevice || a.used_count == 0 {
            // Not on a device yet: laid out afresh for free before its plan (`relay_born`).
            return Vec::new();
        }
        let old_desc = a.desc;
        let settling = a.settled;
        let (rects, from) = self.page_rects(id);
        // Settling looks for the best page size; a compaction (a churning or unloaded array)
        // keeps the size it has, which costs one layout, not one per size.
        let sides = if settling { None } else { Some(old_desc.width_px) };
        let Some(layout) = self.best_layout(&rects, &old_desc, sides) else { return Vec::new() };
        let old_layer = ArrayDesc { layers: 1, ..old_desc }.bytes();
        let margin = if settling { 1 } else { 2 * old_layer };
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

/// The placement of a `size` rectangle at `spot` of page array `array` with `side_px` pages.
pub(super) fn page_placement(array: ArrayId, spot: Spot, size: [u32; 2], side_px: u32) -> Placement {
    let [w, h] = size;
    let s = side_px as f32;
    Placement {
        array,
        layer: spot.layer,
        rect_px: [spot.x, spot.y, w, h],
        uv_rect: [spot.x as f32 / s, spot.y as f32 / s, (spot.x + w) as f32 / s, (spot.y + h) as f32 / s],
        dedicated: false,
    }
}
