//! The texture-array allocator: size classes, layer admission, growth, budget. Pure logic,
//! deterministic from its admission sequence.

use std::collections::HashMap;

use crate::pages::{Pages, Spot};
use crate::plan::{ArrayDesc, ArrayId, ArrayOp};
use crate::texture::{Filter, Format, TextureDesc, Usage, Wrap};
use crate::{Budget, TextureError};

/// The key of an array family: textures with equal keys can share an array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClassKey {
    /// Layer width.
    pub width_px: u32,
    /// Layer height.
    pub height_px: u32,
    /// Format.
    pub format: Format,
    /// Mip levels.
    pub mip_levels: u32,
    /// Filter.
    pub filter: Filter,
    /// Wrap.
    pub wrap: Wrap,
}

/// Where a texture lives: an array, a layer, and the rectangle of the layer its own texels
/// cover. Today a texture always starts at the layer's origin (a padded texture covers less
/// than the layer); the rectangle is part of the placement so that packing several small
/// textures into one layer changes no backend.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placement {
    /// The array.
    pub array: ArrayId,
    /// The layer in it.
    pub layer: u32,
    /// `[x, y, width, height]` of the texture's texels in the layer, pixels.
    pub rect_px: [u32; 4],
    /// The same rectangle as `[u0, v0, u1, v1]` in the layer's `0..1` coordinates.
    pub uv_rect: [f32; 4],
    /// Whether the array holds only this texture (unbucketable textures).
    pub dedicated: bool,
}

impl Placement {
    /// A texture of `size_px` at the origin of `layer`, in an array whose layers are
    /// `layer_size_px`.
    pub fn at_origin(array: ArrayId, layer: u32, size_px: [u32; 2], layer_size_px: [u32; 2], dedicated: bool) -> Self {
        let [w, h] = size_px;
        let [lw, lh] = layer_size_px;
        Self {
            array,
            layer,
            rect_px: [0, 0, w, h],
            uv_rect: [0.0, 0.0, w as f32 / lw as f32, h as f32 / lh as f32],
            dedicated,
        }
    }
}

#[derive(Clone, Debug)]
struct ArrayState {
    desc: ArrayDesc,
    used: Vec<bool>,
    used_count: u32,
    dedicated: bool,
    /// The rectangle allocators of a page array; `None` for class and dedicated arrays.
    pages: Option<Box<Pages>>,
    /// Plans in a row at whose end the array was empty, or could have given half its layers
    /// back: memory is returned only after [`RETURN_AFTER_PLANS`], so a texture registered and
    /// freed every frame does not make an array come and go.
    idle_plans: u32,
}

/// The key of a page array: textures of one format and filter share pages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct PageKey {
    format: Format,
    filter: Filter,
}

/// Plans an array stays empty (or half empty) before it is destroyed (or shrunk).
const RETURN_AFTER_PLANS: u32 = 3;
/// Smallest side of a new page array's layers (it starts as small as holds its first texture,
/// then doubles up to `page_size_px` before adding layers), so that a few small textures
/// take a few KiB.
const FIRST_PAGE_PX: u32 = 16;

/// A change [`Allocator::maintain`] or [`Allocator::compact`] made that moves textures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Moved {
    /// Every placement in the array now lives at the same place of another array.
    Array {
        /// The old array.
        from: ArrayId,
        /// The new one.
        to: ArrayId,
    },
    /// A texture's rectangle moved to another place: a page array was repacked into a new,
    /// smaller array.
    Rect {
        /// The array it was in.
        from: ArrayId,
        /// The layer it was in.
        from_layer: u32,
        /// Its old top-left corner, texels.
        from_xy: [u32; 2],
        /// The array it is in now.
        to: ArrayId,
        /// The layer it is in now.
        to_layer: u32,
        /// Its new top-left corner, texels.
        to_xy: [u32; 2],
    },
    /// An empty array was destroyed.
    Destroyed(ArrayId),
}

/// What one admission did, beyond the placement.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Admission {
    /// Where the texture went.
    pub placement: Placement,
    /// An array that grew during this admission: every placement in `.0` now lives at the same
    /// layer of `.1`.
    pub moved: Option<(ArrayId, ArrayId)>,
}

/// Atlas pages, size classes, arrays and the byte budget.
///
/// Small clamp-to-edge textures share rectangles of atlas pages; the rest get a layer of a
/// size class (or an array of their own):
///
/// ```
/// use layerbatch_core::{Allocator, Budget, Config, Limits, TextureDesc, Wrap};
/// let budget = Budget::new(&Limits::guaranteed_minimum(), &Config::default()).unwrap();
/// let mut alloc = Allocator::new(&budget);
/// let a = alloc.admit(&TextureDesc::new(64, 64)).unwrap().placement; // a 64 px page
/// let b = alloc.admit(&TextureDesc::new(30, 20)).unwrap();
/// // The page grew to 128 px to fit `b`: `a` lives at the same place of the grown array.
/// assert_eq!(b.moved, Some((a.array, b.placement.array)));
/// assert_eq!(b.placement.layer, a.layer); // one layer, two rectangles
/// assert_eq!(alloc.array(b.placement.array).unwrap().width_px, 128);
/// // A repeating texture tiles its whole layer: a size class.
/// let r = alloc.admit(&TextureDesc::new(64, 64).with_wrap(Wrap::Repeat)).unwrap().placement;
/// assert_ne!(r.array, b.placement.array);
/// assert_eq!(r.rect_px, [0, 0, 64, 64]);
/// ```
#[derive(Debug)]
pub struct Allocator {
    budget_bytes: u64,
    max_layers: u32,
    initial_layers: u32,
    max_class_px: u32,
    max_texture_px: u32,
    max_waste: f32,
    arrays_enabled: bool,
    avoid_ambiguous: bool,
    arrays: Vec<Option<ArrayState>>,
    classes: HashMap<ClassKey, Vec<ArrayId>>,
    pages: HashMap<PageKey, Vec<ArrayId>>,
    max_packed_px: u32,
    page_px: u32,
    auto_compact: bool,
    class_count: usize,
    allocated_bytes: u64,
    /// Bytes of arrays destroyed or grown from by the pending plan: the device frees them only
    /// when the plan's commands finish, so they count against the budget until then.
    retired_bytes: u64,
    peak_bytes: u64,
    ops: Vec<ArrayOp>,
    growths: u64,
}

impl Allocator {
    /// An empty allocator working within `budget`.
    pub fn new(budget: &Budget) -> Self {
        Self {
            budget_bytes: budget.budget_bytes,
            max_layers: budget.max_layers_per_array,
            initial_layers: budget.initial_layers,
            max_class_px: budget.max_class_size_px,
            max_texture_px: budget.max_texture_size_px,
            max_waste: budget.max_padding_waste,
            arrays_enabled: budget.arrays_enabled,
            avoid_ambiguous: budget.avoid_ambiguous_layer_counts,
            arrays: Vec::new(),
            classes: HashMap::new(),
            pages: HashMap::new(),
            max_packed_px: budget.max_packed_size_px,
            page_px: budget.page_size_px,
            auto_compact: budget.auto_compact,
            class_count: 0,
            allocated_bytes: 0,
            retired_bytes: 0,
            peak_bytes: 0,
            ops: Vec::new(),
            growths: 0,
        }
    }

    /// Bytes held now.
    pub fn allocated_bytes(&self) -> u64 {
        self.allocated_bytes
    }
    /// The most bytes ever held at once, growth copies included, and arrays destroyed or
    /// grown from counted until the end of their plan. Never above the budget.
    pub fn peak_bytes(&self) -> u64 {
        self.peak_bytes
    }
    /// Bytes of arrays the pending plan destroys or grows from, still held by the device until
    /// the plan's commands finish.
    pub fn retired_bytes(&self) -> u64 {
        self.retired_bytes
    }
    /// The pending plan was handed over: its retired arrays are freed by the time the next
    /// plan's commands run.
    pub fn end_plan(&mut self) {
        self.retired_bytes = 0;
    }
    /// The budget.
    pub fn budget_bytes(&self) -> u64 {
        self.budget_bytes
    }
    /// Array families (size classes) opened so far.
    pub fn class_count(&self) -> usize {
        self.class_count
    }
    /// Arrays alive now.
    pub fn array_count(&self) -> usize {
        self.arrays.iter().flatten().count()
    }
    /// Growths so far.
    pub fn growths(&self) -> u64 {
        self.growths
    }
    /// The description of a live array.
    pub fn array(&self, id: ArrayId) -> Option<&ArrayDesc> {
        self.arrays.get(id.0 as usize)?.as_ref().map(|a| &a.desc)
    }
    /// Every live array with its description, by ascending id.
    pub fn arrays(&self) -> impl Iterator<Item = (ArrayId, ArrayDesc)> + '_ {
        self.arrays.iter().enumerate().filter_map(|(i, a)| a.as_ref().map(|a| (ArrayId(i as u32), a.desc)))
    }
    /// Takes the ops produced since the last call, in the order they must be applied.
    pub fn drain_ops(&mut self) -> std::vec::Drain<'_, ArrayOp> {
        self.ops.drain(..)
    }

    /// The class key and whether the texture is padded, or `None` if it needs its own array.
    pub fn class_of(&self, desc: &TextureDesc) -> Option<ClassKey> {
        let (w, h) = (desc.width_px, desc.height_px);
        if !self.arrays_enabled || desc.usage != Usage::Static || w > self.max_class_px || h > self.max_class_px {
            return None;
        }
        let (mut cw, mut ch) = (w, h);
        let paddable = desc.mip_levels == 1 && desc.wrap == Wrap::ClampToEdge && self.max_waste > 0.0;
        if paddable {
            if let (Some(pw), Some(ph)) = (w.checked_next_power_of_two(), h.checked_next_power_of_two()) {
                let waste = 1.0 - (w as f64 * h as f64) / (pw as f64 * ph as f64);
                if waste <= self.max_waste as f64 && pw <= self.max_texture_px && ph <= self.max_texture_px {
                    (cw, ch) = (pw, ph);
                }
            }
        }
        Some(ClassKey {
            width_px: cw,
            height_px: ch,
            format: desc.format,
            mip_levels: desc.mip_levels,
            filter: desc.filter,
            wrap: desc.wrap,
        })
    }

    /// Whether a texture is packed into atlas pages: a static, clamp-to-edge texture of one
    /// level, at most `max_packed_size_px` a side.
    pub fn packs(&self, desc: &TextureDesc) -> bool {
        self.arrays_enabled
            && self.max_packed_px > 0
            && desc.usage == Usage::Static
            && desc.wrap == Wrap::ClampToEdge
            && desc.mip_levels == 1
            && desc.width_px <= self.max_packed_px
            && desc.height_px <= self.max_packed_px
    }

    /// Admits a texture: a rectangle of a page if it [`packs`](Allocator::packs); else a free
    /// layer of its class, else a grown array, else a new array, else a one-texture array if
    /// it cannot be bucketed. The description must be valid (checked by the batcher).
    ///
    /// # Errors
    /// [`TextureError::BudgetExhausted`] when every option would exceed the budget; nothing is
    /// changed then.
    pub fn admit(&mut self, desc: &TextureDesc) -> Result<Admission, TextureError> {
        if self.packs(desc) {
            return self.admit_page(desc);
        }
        let Some(key) = self.class_of(desc) else {
            let layers = self.layer_count(1);
            let adesc = ArrayDesc {
                width_px: desc.width_px,
                height_px: desc.height_px,
                layers,
                format: desc.format,
                mip_levels: desc.mip_levels,
                filter: desc.filter,
                wrap: desc.wrap,
                render_target: desc.usage == Usage::RenderTarget,
            };
            self.check(adesc.bytes())?;
            let id = self.create(adesc, true);
            let a = self.arrays[id.0 as usize].as_mut().expect("just created");
            a.used[0] = true;
            a.used_count = 1;
            let size = [desc.width_px, desc.height_px];
            return Ok(Admission { placement: Placement::at_origin(id, 0, size, size, true), moved: None });
        };
        let place = |array, layer| {
            Placement::at_origin(array, layer, [desc.width_px, desc.height_px], [key.width_px, key.height_px], false)
        };
        let family = self.classes.get(&key).cloned().unwrap_or_default();
        // 1. A free layer: first array in family order, lowest layer.
        for &id in &family {
            let a = self.arrays[id.0 as usize].as_mut().expect("family arrays are live");
            if a.used_count < a.desc.layers {
                let layer = a.used.iter().position(|u| !u).expect("a free layer") as u32;
                a.used[layer as usize] = true;
                a.used_count += 1;
                return Ok(Admission { placement: place(id, layer), moved: None });
            }
        }
        let adesc = ArrayDesc {
            width_px: key.width_px,
            height_px: key.height_px,
            layers: 0,
            format: key.format,
            mip_levels: key.mip_levels,
            filter: key.filter,
            wrap: key.wrap,
            render_target: false,
        };
        // 2. Grow the first array below the cap, if old + new fit (both exist during the copy).
        let mut cheapest = u64::MAX;
        if let Some((old, layers)) = family.iter().find_map(|id| {
            let layers = self.grown_layers(self.arrays[id.0 as usize].as_ref().expect("live").desc.layers)?;
            Some((*id, layers))
        }) {
            let old_desc = self.arrays[old.0 as usize].as_ref().expect("live").desc;
            let new_desc = ArrayDesc { layers, ..old_desc };
            cheapest = new_desc.bytes();
            if self.fits(new_desc.bytes()) {
                let id = self.grow(old, new_desc);
                let layer = self.take_layer(id);
                return Ok(Admission { placement: place(id, layer), moved: Some((old, id)) });
            }
        }
        // 3. A new array in the class: the initial size, or as many layers as fit.
        let layer_bytes = ArrayDesc { layers: 1, ..adesc }.bytes();
        let room = self.budget_bytes.saturating_sub(self.held_bytes()) / layer_bytes.max(1);
        let mut layers = self.initial_layers.min(self.max_layers).min(room.min(u32::MAX as u64) as u32);
        if layers > 0 && self.ambiguous(layers) {
            // 1 layer becomes 2 (if it fits: the cap yields, as a 1-layer array is unusable
            // there); 6k becomes 6k - 1.
            layers = match layers {
                1 if room >= 2 => 2,
                1 => 0,
                n => n - 1,
            };
        }
        if layers == 0 {
            return Err(TextureError::BudgetExhausted {
                requested_bytes: cheapest.min(layer_bytes.saturating_mul(self.layer_count(1) as u64)),
                allocated_bytes: self.allocated_bytes,
                budget_bytes: self.budget_bytes,
            });
        }
        let id = self.create(ArrayDesc { layers, ..adesc }, false);
        let fam = self.classes.entry(key).or_default();
        if fam.is_empty() {
            self.class_count += 1;
        }
        fam.push(id);
        let layer = self.take_layer(id);
        Ok(Admission { placement: place(id, layer), moved: None })
    }

    /// Releases a placement's layer for reuse; a one-texture array is destroyed.
    ///
    /// # Panics
    /// If the placement's layer is not in use (a double free: the batcher rejects those first).
    pub fn free(&mut self, placement: &Placement) {
        let a = self.arrays[placement.array.0 as usize].as_mut().expect("free of a dead array");
        if let Some(pages) = &mut a.pages {
            let [x, y, ..] = placement.rect_px;
            pages.free(Spot { layer: placement.layer, x, y });
            let l = placement.layer as usize;
            if !pages.layer_used(placement.layer) && a.used[l] {
                a.used[l] = false;
                a.used_count -= 1;
            }
            return;
        }
        assert!(a.used[placement.layer as usize], "double free of a layer");
        a.used[placement.layer as usize] = false;
        a.used_count -= 1;
        if a.dedicated {
            let bytes = a.desc.bytes();
            self.arrays[placement.array.0 as usize] = None;
            self.allocated_bytes -= bytes;
            self.retired_bytes += bytes;
            self.ops.push(ArrayOp::Destroy { array: placement.array });
        }
    }

    /// Checks internal invariants (used by tests): byte totals, family membership.
    pub fn check_invariants(&self) {
        let live: u64 = self.arrays.iter().flatten().map(|a| a.desc.bytes()).sum();
        assert_eq!(live, self.allocated_bytes, "allocated bytes drifted");
        assert!(self.peak_bytes <= self.budget_bytes, "peak above budget");
        for a in self.arrays.iter().flatten() {
            assert_eq!(a.used.iter().filter(|u| **u).count() as u32, a.used_count);
            if let Some(p) = &a.pages {
                p.check();
                assert_eq!((p.size_px(), p.size_px()), (a.desc.width_px, a.desc.height_px), "page size drifted");
                assert_eq!(p.layer_count(), a.desc.layers, "page layers drifted");
                for l in 0..a.desc.layers {
                    assert_eq!(p.layer_used(l), a.used[l as usize], "page layer {l} use drifted");
                }
            }
            assert!(a.desc.layers <= self.max_layers.max(2));
            if self.avoid_ambiguous {
                assert!(a.desc.layers != 1 && a.desc.layers % 6 != 0, "ambiguous layer count {}", a.desc.layers);
            }
        }
        for fam in self.classes.values() {
            for id in fam {
                assert!(self.arrays[id.0 as usize].is_some(), "family holds a dead array");
            }
        }
    }

    /// Layers after growing an array of `old` layers: double, up to the cap; `None` at the cap.
    fn grown_layers(&self, old: u32) -> Option<u32> {
        let n = self.layer_count((old * 2).min(self.max_layers).max(old + 1));
        (n > old && n <= self.max_layers.max(2)).then_some(n)
    }

    /// Bytes the device may hold now: live arrays and the pending plan's retired ones.
    fn held_bytes(&self) -> u64 {
        self.allocated_bytes + self.retired_bytes
    }

    fn ambiguous(&self, n: u32) -> bool {
        self.avoid_ambiguous && (n == 1 || n % 6 == 0)
    }

    fn layer_count(&self, n: u32) -> u32 {
        if !self.avoid_ambiguous {
            return n;
        }
        if n == 1 {
            2
        } else if n % 6 == 0 {
            if n < self.max_layers {
                n + 1
            } else {
                n - 1
            }
        } else {
            n
        }
    }

    /// Whether `bytes` more fit the budget. Byte counts saturate at `u64::MAX` instead of
    /// wrapping; a real count is a multiple of 4, so `u64::MAX` means "overflowed" and never fits.
    fn fits(&self, bytes: u64) -> bool {
        bytes != u64::MAX && self.held_bytes().checked_add(bytes).is_some_and(|t| t <= self.budget_bytes)
    }

    fn check(&self, bytes: u64) -> Result<(), TextureError> {
        if !self.fits(bytes) {
            return Err(TextureError::BudgetExhausted {
                requested_bytes: bytes,
                allocated_bytes: self.allocated_bytes,
                budget_bytes: self.budget_bytes,
            });
        }
        Ok(())
    }

    fn new_id(&mut self) -> ArrayId {
        // The batcher tags recorded array ids with bit 31.
        assert!(self.arrays.len() < (1 << 31), "2^31 arrays created");
        self.arrays.push(None);
        ArrayId(self.arrays.len() as u32 - 1)
    }

    fn create(&mut self, desc: ArrayDesc, dedicated: bool) -> ArrayId {
        let id = self.new_id();
        self.arrays[id.0 as usize] = Some(ArrayState {
            desc,
            used: vec![false; desc.layers as usize],
            used_count: 0,
            dedicated,
            pages: None,
            idle_plans: 0,
        });
        self.allocated_bytes += desc.bytes();
        self.peak_bytes = self.peak_bytes.max(self.held_bytes());
        self.ops.push(ArrayOp::Create { array: id, desc });
        id
    }

    fn grow(&mut self, old: ArrayId, desc: ArrayDesc) -> ArrayId {
        let id = self.new_id();
        let mut state = self.arrays[old.0 as usize].take().expect("grow a live array");
        let old_bytes = state.desc.bytes();
        let copy_layers = state.desc.layers;
        // Both arrays exist while the copy runs, and the old one until the plan's commands
        // finish.
        self.allocated_bytes = self.allocated_bytes + desc.bytes() - old_bytes;
        self.retired_bytes += old_bytes;
        self.peak_bytes = self.peak_bytes.max(self.held_bytes());
        state.used.resize(desc.layers as usize, false);
        state.desc = desc;
        if let Some(p) = &mut state.pages {
            p.grow_size(desc.width_px);
            p.add_layers(desc.layers - p.layer_count());
        }
        self.arrays[id.0 as usize] = Some(state);
        self.ops.push(ArrayOp::Grow { from: old, to: id, desc, copy_layers });
        self.growths += 1;
        self.replace_in_families(old, id);
        id
    }

    /// `old` was replaced by `new` (growth or shrink): families and page keys follow.
    fn replace_in_families(&mut self, old: ArrayId, new: ArrayId) {
        for fam in self.classes.values_mut().chain(self.pages.values_mut()) {
            for a in fam.iter_mut().filter(|a| **a == old) {
                *a = new;
            }
        }
    }

    /// A rectangle of a page array of the texture's page class: the first layer it fits in;
    /// else the pages grow in size (up to `page_size_px`), then in layers, one at a time (so at
    /// most one page is ever empty); else, at the layer cap, a new page array.
    fn admit_page(&mut self, desc: &TextureDesc) -> Result<Admission, TextureError> {
        let (w, h) = (desc.width_px, desc.height_px);
        let key = PageKey { format: desc.format, filter: desc.filter };
        let family = self.pages.get(&key).cloned().unwrap_or_default();
        for &id in &family {
            if let Some(p) = self.place_in_pages(id, w, h) {
                return Ok(Admission { placement: p, moved: None });
            }
        }
        // Grow the last array of the family: in size while below the page size (to the
        // smallest size where the texture fits), else by a layer.
        let mut cheapest = u64::MAX;
        if let Some(&old) = family.last() {
            let a = self.arrays[old.0 as usize].as_ref().expect("live");
            let (d, pages) = (a.desc, a.pages.as_ref().expect("a page array"));
            let mut candidates = Vec::new();
            let mut side = d.width_px;
            while side < self.page_px {
                side = (side * 2).min(self.page_px);
                candidates.push(ArrayDesc { width_px: side, height_px: side, ..d });
            }
            let layers = self.layer_count(d.layers + 1);
            if layers <= self.max_layers.max(2) {
                candidates.push(ArrayDesc { layers, ..d });
            }
            let fits_in = |c: &ArrayDesc| {
                let mut trial = (**pages).clone();
                trial.grow_size(c.width_px);
                trial.add_layers(c.layers - trial.layer_count());
                trial.allocate(w, h).is_some()
            };
            if let Some(new_desc) = candidates.into_iter().find(fits_in) {
                cheapest = new_desc.bytes();
                if self.fits(new_desc.bytes()) {
                    let id = self.grow(old, new_desc);
                    let placement = self.place_in_pages(id, w, h).expect("the grown page was tried");
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
        let layers = self.layer_count(1);
        let adesc = ArrayDesc {
            width_px: side,
            height_px: side,
            layers,
            format: desc.format,
            mip_levels: 1,
            filter: desc.filter,
            wrap: Wrap::ClampToEdge,
            render_target: false,
        };
        if !self.fits(adesc.bytes()) {
            return Err(TextureError::BudgetExhausted {
                requested_bytes: cheapest.min(adesc.bytes()),
                allocated_bytes: self.allocated_bytes,
                budget_bytes: self.budget_bytes,
            });
        }
        let id = self.create(adesc, false);
        self.arrays[id.0 as usize].as_mut().expect("just created").pages = Some(Box::new(Pages::new(side, layers)));
        self.pages.entry(key).or_default().push(id);
        let placement = self.place_in_pages(id, w, h).expect("a new page has room");
        Ok(Admission { placement, moved: None })
    }

    /// A `w x h` rectangle in page array `id`, if one is free.
    fn place_in_pages(&mut self, id: ArrayId, w: u32, h: u32) -> Option<Placement> {
        let a = self.arrays[id.0 as usize].as_mut().expect("live");
        let pages = a.pages.as_mut().expect("a page array");
        let spot = pages.allocate(w, h)?;
        if !a.used[spot.layer as usize] {
            a.used[spot.layer as usize] = true;
            a.used_count += 1;
        }
        let s = pages.size_px() as f32;
        Some(Placement {
            array: id,
            layer: spot.layer,
            rect_px: [spot.x, spot.y, w, h],
            uv_rect: [spot.x as f32 / s, spot.y as f32 / s, (spot.x + w) as f32 / s, (spot.y + h) as f32 / s],
            dedicated: false,
        })
    }

    /// Gives memory back, once per plan (the batcher calls it as it hands a plan over):
    /// arrays empty for 3 plans are destroyed; arrays whose used layers
    /// are at most half their layers for as long shrink to the used ones; with
    /// `Config::auto_compact`, a page array whose texels fill less than half its pages first
    /// moves its top layers' rectangles down, so that it can shrink. Returns what moved.
    pub fn maintain(&mut self) -> Vec<Moved> {
        let mut moved = Vec::new();
        let floor = self.layer_count(1);
        for i in 0..self.arrays.len() {
            let Some(a) = self.arrays[i].as_mut() else { continue };
            if a.dedicated {
                continue;
            }
            let id = ArrayId(i as u32);
            let used_layers = match &a.pages {
                Some(p) => p.used_layers(),
                None => a.used.iter().rposition(|u| *u).map_or(0, |l| l as u32 + 1),
            };
            let shrinkable = a.desc.layers > floor && used_layers * 2 <= a.desc.layers;
            // A page array holding more than 1.75x its texels plus a page: a repack packs them
            // into about 1.25x, so it gives layers back (and keeps a churning set within 2x
            // its texels plus a page).
            let sparse = a.pages.as_ref().is_some_and(|p| {
                let page = u64::from(p.size_px()).pow(2);
                let capacity = page * u64::from(p.layer_count());
                p.layer_count() > 2 && capacity * 4 > p.used_px() * 7 + page * 4
            });
            if a.used_count == 0 || shrinkable || (self.auto_compact && sparse) {
                a.idle_plans += 1;
            } else {
                a.idle_plans = 0;
                continue;
            }
            if a.idle_plans < RETURN_AFTER_PLANS {
                continue;
            }
            let compact_now = self.auto_compact && sparse;
            a.idle_plans = 0;
            if a.used_count == 0 {
                self.destroy(id);
                moved.push(Moved::Destroyed(id));
                continue;
            }
            if compact_now {
                let repacked = self.compact_array(id);
                if !repacked.is_empty() {
                    moved.extend(repacked);
                    continue;
                }
            }
            if let Some(to) = self.shrink(id) {
                moved.push(Moved::Array { from: id, to });
            }
        }
        moved
    }

    /// Repacks every page array whose rectangles fit in fewer layers into a new array of
    /// those layers (GPU copies of each rectangle). Returns what moved. Call only when no
    /// frame references the old places.
    pub fn compact(&mut self) -> Vec<Moved> {
        let mut moved = Vec::new();
        for i in 0..self.arrays.len() {
            if self.arrays[i].as_ref().is_some_and(|a| a.pages.is_some()) {
                moved.extend(self.compact_array(ArrayId(i as u32)));
            }
        }
        moved
    }

    /// Repacks page array `id` into a new array of as few layers as its rectangles take
    /// (largest first, into empty pages), if that saves a layer and both arrays fit the
    /// budget during the copies: a Create, a CopyRect per rectangle, a Destroy.
    fn compact_array(&mut self, id: ArrayId) -> Vec<Moved> {
        let a = self.arrays[id.0 as usize].as_ref().expect("live");
        let (mut fresh, moves) = a.pages.as_ref().expect("a page array").repacked();
        let mut layers = self.layer_count(fresh.layer_count().max(1));
        while self.ambiguous(layers) {
            layers += 1;
        }
        let desc = ArrayDesc { layers, ..a.desc };
        // Two layers at least, or the next registrations would grow it right back.
        if layers + 2 > a.desc.layers || !self.fits(desc.bytes()) {
            return Vec::new();
        }
        fresh.add_layers(layers - fresh.layer_count());
        let new = self.create(desc, false);
        let state = self.arrays[new.0 as usize].as_mut().expect("just created");
        for l in 0..layers {
            state.used[l as usize] = fresh.layer_used(l);
        }
        state.used_count = state.used.iter().filter(|u| **u).count() as u32;
        state.pages = Some(Box::new(fresh));
        let mut moved = Vec::with_capacity(moves.len());
        for (from, to, size) in moves {
            self.ops.push(ArrayOp::CopyRect {
                from: id,
                from_layer: from.layer,
                from_xy: [from.x, from.y],
                to: new,
                to_layer: to.layer,
                to_xy: [to.x, to.y],
                size,
            });
            moved.push(Moved::Rect {
                from: id,
                from_layer: from.layer,
                from_xy: [from.x, from.y],
                to: new,
                to_layer: to.layer,
                to_xy: [to.x, to.y],
            });
        }
        self.replace_in_families(id, new);
        let old = self.arrays[id.0 as usize].take().expect("live");
        self.allocated_bytes -= old.desc.bytes();
        self.retired_bytes += old.desc.bytes();
        self.ops.push(ArrayOp::Destroy { array: id });
        moved
    }

    /// Shrinks array `id` to its used layers (at least the smallest count allowed), if that
    /// halves it at least and the transient copy fits the budget.
    fn shrink(&mut self, id: ArrayId) -> Option<ArrayId> {
        let a = self.arrays[id.0 as usize].as_ref().expect("live");
        let used_layers = match &a.pages {
            Some(p) => p.used_layers(),
            None => a.used.iter().rposition(|u| *u).map_or(0, |l| l as u32 + 1),
        };
        let mut layers = self.layer_count(used_layers.max(1));
        while self.ambiguous(layers) {
            layers += 1;
        }
        if layers * 2 > a.desc.layers {
            return None;
        }
        let desc = ArrayDesc { layers, ..a.desc };
        if !self.fits(desc.bytes()) {
            return None;
        }
        let new = self.new_id();
        let mut state = self.arrays[id.0 as usize].take().expect("live");
        let old_bytes = state.desc.bytes();
        self.allocated_bytes = self.allocated_bytes + desc.bytes() - old_bytes;
        self.retired_bytes += old_bytes;
        self.peak_bytes = self.peak_bytes.max(self.held_bytes());
        state.used.truncate(layers as usize);
        if let Some(p) = &mut state.pages {
            p.truncate(layers);
        }
        state.desc = desc;
        self.arrays[new.0 as usize] = Some(state);
        self.ops.push(ArrayOp::Shrink { from: id, to: new, desc, copy_layers: used_layers.min(layers) });
        self.replace_in_families(id, new);
        Some(new)
    }

    /// Destroys an empty shared array.
    fn destroy(&mut self, id: ArrayId) {
        let a = self.arrays[id.0 as usize].take().expect("live");
        self.allocated_bytes -= a.desc.bytes();
        self.retired_bytes += a.desc.bytes();
        for fam in self.classes.values_mut().chain(self.pages.values_mut()) {
            fam.retain(|x| *x != id);
        }
        self.classes.retain(|_, f| !f.is_empty());
        self.pages.retain(|_, f| !f.is_empty());
        self.ops.push(ArrayOp::Destroy { array: id });
    }

    fn take_layer(&mut self, id: ArrayId) -> u32 {
        let a = self.arrays[id.0 as usize].as_mut().expect("live");
        let layer = a.used.iter().position(|u| !u).expect("a free layer") as u32;
        a.used[layer as usize] = true;
        a.used_count += 1;
        layer
    }
}
