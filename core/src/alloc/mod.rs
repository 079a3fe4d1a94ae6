//! The texture-array allocator: size classes, layer admission, growth, budget. Pure logic,
//! deterministic from its admission sequence.

use std::collections::HashMap;

use crate::pages::{Pages, Spot};
use crate::plan::{ArrayDesc, ArrayId, ArrayOp, HostAccess};
use crate::texture::{Format, Sampler, TextureDesc, Usage};
use crate::{Budget, TextureError};

/// How the pending plan brings an array to the device. An array the device does not hold
/// yet can still change for free: it is created once, at its final size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Born {
    /// The device holds it (or will, from an earlier plan): changes cost GPU copies.
    OnDevice,
    /// A `Create` op of the pending plan: it grows in place. `relayable`: nothing but layer
    /// writes fill it, so its rectangles may still move (a compaction's target is filled by
    /// rectangle copies and is not).
    Created { relayable: bool },
    /// The target of a `Grow` op of the pending plan: it grows in place (one copy of the
    /// device's array, however often it grows before the plan).
    Grown,
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
    born: Born,
    /// Something was admitted into or freed from it since the last [`Allocator::maintain`].
    touched: bool,
    /// Plans in a row in which it was not touched.
    quiet_plans: u32,
    /// Its layout was settled (made canonical, or found not worth it) since it last changed.
    settled: bool,
}

impl ArrayState {
    fn new(desc: ArrayDesc, dedicated: bool, born: Born) -> Self {
        Self {
            desc,
            used: vec![false; desc.layers as usize],
            used_count: 0,
            dedicated,
            pages: None,
            idle_plans: 0,
            born,
            touched: true,
            quiet_plans: 0,
            settled: false,
        }
    }

    /// Layers from the bottom up to the highest one in use.
    fn used_layers(&self) -> u32 {
        match &self.pages {
            Some(p) => p.used_layers(),
            None => self.used.iter().rposition(|u| *u).map_or(0, |l| l as u32 + 1),
        }
    }
}

/// The key of a page array: textures of one format and sampler (clamped on both axes) share
/// pages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct PageKey {
    format: Format,
    sampler: Sampler,
}

/// Plans an array stays empty (or half empty) before it is destroyed (or shrunk).
const RETURN_AFTER_PLANS: u32 = 3;
/// Plans an array goes untouched before its layout settles: a page array is laid out afresh
/// (canonically) and a class array trims its empty top layers, when that saves memory. Half a
/// second at 60 frames a second: a loading burst settles once, after it ends, and an array
/// that changes every few frames never pays copies for it.
const SETTLE_AFTER_PLANS: u32 = 30;
/// Smallest side of a new page array's layers (it starts as small as holds its first texture,
/// then grows one side at a time up to `page_size_px` before adding layers), so that a few
/// small textures take a few KiB.
const FIRST_PAGE_PX: u32 = 16;
/// The owner of rectangles admitted through [`Allocator::admit`] (no registry behind them).
const NO_OWNER: u32 = u32::MAX;

/// Atlas pages, size classes, arrays and the byte budget.
///
/// Small clamp-to-edge textures share rectangles of atlas pages; the rest get a layer of a
/// size class (or an array of their own):
///
/// ```
/// use layerbatch_core::{Budget, Config, Limits, TextureDesc, Wrap};
/// use layerbatch_core::alloc::Allocator;
/// let budget = Budget::new(&Limits::guaranteed_minimum(), &Config::default()).unwrap();
/// let mut alloc = Allocator::new(&budget);
/// let a = alloc.admit(&TextureDesc::new(64, 64)).unwrap().placement; // a 64 px page
/// let b = alloc.admit(&TextureDesc::new(30, 20)).unwrap();
/// // The page grew one side, to 128x64 px, to fit `b`, in place: no plan has brought it to a
/// // device yet.
/// assert_eq!(b.moved, Some((a.array, a.array)));
/// assert_eq!(b.placement.layer, a.layer); // one layer, two rectangles
/// let page = alloc.array(a.array).unwrap();
/// assert_eq!([page.width_px, page.height_px], [128, 64]);
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
    /// See [`crate::Limits::compressed_copies`].
    compressed_copies: bool,
    /// Uncompressed arrays get a normal-map sibling ([`ArrayDesc::normal_map`]).
    normal_maps: bool,
    /// See [`crate::Limits::host_texture_views`].
    host_views: bool,
    class_count: usize,
    allocated_bytes: u64,
    /// Bytes of arrays destroyed or grown from by the pending plan: the device frees them only
    /// when the plan's commands finish, so they count against the budget until then.
    retired_bytes: u64,
    /// Bytes of buffers held against the same budget (resident layers).
    buffer_bytes: u64,
    peak_bytes: u64,
    ops: Vec<ArrayOp>,
    growths: u64,
    /// Ids free for reuse: an id retired by a plan is reused from the next plan on, so ids
    /// (and every table indexed by them) stay as few as the arrays alive at once.
    free_ids: Vec<ArrayId>,
    /// Ids the pending plan retires.
    retiring_ids: Vec<ArrayId>,
    /// Arrays the pending plan brings to the device (`Born::Created` / `Born::Grown`).
    born: Vec<ArrayId>,
}

mod budget;
mod checks;
mod memory;
mod page_arrays;
mod placement;

pub(crate) use placement::Relaid;
pub use placement::{Admission, ClassKey, Moved, Placement};

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
            compressed_copies: budget.compressed_copies,
            normal_maps: budget.max_lights > 0,
            host_views: budget.host_texture_views,
            class_count: 0,
            allocated_bytes: 0,
            retired_bytes: 0,
            buffer_bytes: 0,
            peak_bytes: 0,
            ops: Vec::new(),
            growths: 0,
            free_ids: Vec::new(),
            retiring_ids: Vec::new(),
            born: Vec::new(),
        }
    }

    /// Whether the array `desc` goes into has a normal-map sibling: an uncompressed one, not a
    /// render target or a host texture, of a batcher with lights.
    pub(crate) fn normal_map(&self, desc: &TextureDesc) -> bool {
        self.normal_maps && !desc.format.is_compressed() && matches!(desc.usage, Usage::Static | Usage::Dynamic)
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
    /// plan's commands run, their ids can be reused, and the arrays it created are on the
    /// device from now on.
    pub fn end_plan(&mut self) {
        self.retired_bytes = 0;
        if !self.retiring_ids.is_empty() {
            self.free_ids.append(&mut self.retiring_ids);
            // Lowest ids first (popped from the end): reuse is deterministic and keeps ids
            // small.
            self.free_ids.sort_unstable_by_key(|a| std::cmp::Reverse(a.0));
        }
        for id in std::mem::take(&mut self.born) {
            if let Some(a) = self.arrays.get_mut(id.0 as usize).and_then(Option::as_mut) {
                a.born = Born::OnDevice;
            }
        }
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
    /// One more than the largest array id ever handed out: ids are reused, so this stays
    /// near the most arrays alive at once, however many were created.
    pub fn array_id_bound(&self) -> u32 {
        self.arrays.len() as u32
    }
    /// Growths by GPU copy so far (growths of arrays no plan has brought to the device yet
    /// happen in place and are not counted).
    pub fn growths(&self) -> u64 {
        self.growths
    }
    /// Whether `id` is a live array a handed-over plan has brought to the device (one made by
    /// the pending plan is not yet: no plan can draw from it).
    pub(crate) fn on_device(&self, id: ArrayId) -> bool {
        self.arrays.get(id.0 as usize).and_then(Option::as_ref).is_some_and(|a| a.born == Born::OnDevice)
    }
    /// Whether `id` is a live page array (atlas pages, rectangles), not a class array.
    pub fn is_page_array(&self, id: ArrayId) -> bool {
        self.arrays.get(id.0 as usize).and_then(Option::as_ref).is_some_and(|a| a.pages.is_some())
    }
    /// Every live array is re-created by the next plan (a rebuild after a lost device or a
    /// skipped plan): each may grow in place until then.
    pub fn recreate_all(&mut self) {
        self.born.clear();
        for (i, a) in self.arrays.iter_mut().enumerate() {
            if let Some(a) = a {
                a.born = Born::Created { relayable: false };
                self.born.push(ArrayId(i as u32));
            }
        }
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
    ///
    /// An array created or grown into by these ops may still grow in place before the plan is
    /// handed over: [`Allocator::patch_ops`] gives its ops the final size.
    pub fn drain_ops(&mut self) -> std::vec::Drain<'_, ArrayOp> {
        self.ops.drain(..)
    }

    /// Gives the `Create` and `Grow` ops of arrays the pending plan brings to the device
    /// their final description: an array born and grown inside one plan is created once, at
    /// its final size, and never copied. Call it on the pending plan's ops just before handing
    /// them over (then [`Allocator::end_plan`]).
    pub fn patch_ops<'a>(&self, ops: impl Iterator<Item = &'a mut ArrayOp>) {
        for op in ops {
            let (id, desc, want) = match op {
                ArrayOp::Create { array, desc } => (*array, desc, true),
                ArrayOp::Grow { to, desc, .. } => (*to, desc, false),
                _ => continue,
            };
            let Some(a) = self.arrays.get(id.0 as usize).and_then(Option::as_ref) else { continue };
            let matches = match a.born {
                Born::Created { .. } => want,
                Born::Grown => !want,
                Born::OnDevice => false,
            };
            if matches {
                *desc = a.desc;
            }
        }
    }

    /// The class key and whether the texture is padded, or `None` if it needs its own array.
    pub fn class_of(&self, desc: &TextureDesc) -> Option<ClassKey> {
        let (w, h) = (desc.width_px, desc.height_px);
        if !self.arrays_enabled || desc.usage != Usage::Static || w > self.max_class_px || h > self.max_class_px {
            return None;
        }
        let (mut cw, mut ch) = (w, h);
        let paddable = desc.mip_levels == 1 && desc.sampler.clamps() && self.max_waste > 0.0;
        if paddable {
            if let (Some(pw), Some(ph)) = (w.checked_next_power_of_two(), h.checked_next_power_of_two()) {
                let waste = 1.0 - (w as f64 * h as f64) / (pw as f64 * ph as f64);
                if waste <= self.max_waste as f64 && pw <= self.max_texture_px && ph <= self.max_texture_px {
                    (cw, ch) = (pw, ph);
                }
            }
        }
        // Compressed layers are whole blocks (a 30 px texture's data is 32 px of blocks).
        Some(ClassKey {
            width_px: desc.format.round_up_px([cw, ch])[0],
            height_px: desc.format.round_up_px([cw, ch])[1],
            format: desc.format,
            mip_levels: desc.mip_levels,
            sampler: desc.sampler,
        })
    }

    /// Whether a texture is packed into atlas pages: a static, clamp-to-edge texture of one
    /// level, at most `max_packed_size_px` a side, of a format whose blocks tile the pages'
    /// power-of-two sides (RGBA8, BC, ETC2, ASTC 4x4 and 8x8). ASTC's other block sizes
    /// (5, 6, 10 or 12 texels a side) take size classes: a page of whole 6x6 blocks would be
    /// 96 or 258 texels a side, and positions divided by such a side are not exact in
    /// floating point (see `next_side`).
    pub fn packs(&self, desc: &TextureDesc) -> bool {
        self.arrays_enabled
            && self.max_packed_px > 0
            && desc.usage == Usage::Static
            && desc.sampler.clamps()
            && desc.mip_levels == 1
            && desc.width_px <= self.max_packed_px
            && desc.height_px <= self.max_packed_px
            // In whole blocks, within a page's side in whole blocks (a page side that is not
            // a multiple of 4 holds one block less than it says).
            && desc.format.block_size_px().iter().all(|b| FIRST_PAGE_PX % b == 0)
            && desc.format.round_up_px([desc.width_px, desc.height_px]).iter().all(|s| *s <= self.page_side_cap(desc.format))
    }

    /// [`Allocator::admit_for`] without an owner (`Moved::Rect::owner` is then `u32::MAX`).
    ///
    /// # Errors
    /// As [`Allocator::admit_for`].
    pub fn admit(&mut self, desc: &TextureDesc) -> Result<Admission, TextureError> {
        self.admit_for(desc, NO_OWNER)
    }

    /// Admits a texture for `owner` (any number the caller uses to find it again: moved
    /// rectangles name it): a rectangle of a page if it [`packs`](Allocator::packs); else a
    /// free layer of its class, else a grown array, else a new array, else a one-texture array
    /// if it cannot be bucketed. Arrays grow by doubling (or what the budget leaves room for),
    /// in place while no plan has brought them to the device. The description must be valid
    /// (checked by the batcher).
    ///
    /// # Errors
    /// [`TextureError::BudgetExhausted`] when every option would exceed the budget; nothing is
    /// changed then.
    pub fn admit_for(&mut self, desc: &TextureDesc, owner: u32) -> Result<Admission, TextureError> {
        if self.packs(desc) {
            return self.admit_page(desc, owner);
        }
        let Some(key) = self.class_of(desc) else {
            let host = (desc.usage == Usage::Host).then_some(if self.host_views {
                HostAccess::View
            } else {
                HostAccess::Copy
            });
            // A view is the host's one-layer texture, whatever counts the device misreads
            // (it is viewed as an array explicitly).
            let layers = if host == Some(HostAccess::View) { 1 } else { self.layer_count(1) };
            let adesc = ArrayDesc {
                width_px: desc.format.round_up_px([desc.width_px, desc.height_px])[0],
                height_px: desc.format.round_up_px([desc.width_px, desc.height_px])[1],
                layers,
                format: desc.format,
                mip_levels: desc.mip_levels,
                sampler: desc.sampler,
                render_target: desc.usage == Usage::RenderTarget,
                normal_map: self.normal_map(desc),
                host,
            };
            self.check(adesc.bytes(), adesc.format)?;
            let id = self.create(adesc, true, Born::Created { relayable: false });
            let a = self.arrays[id.0 as usize].as_mut().expect("just created");
            a.used[0] = true;
            a.used_count = 1;
            let size = [desc.width_px, desc.height_px];
            let layer_size = [adesc.width_px, adesc.height_px];
            return Ok(Admission { placement: Placement::at_origin(id, 0, size, layer_size, true), moved: None });
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
                a.touched = true;
                a.settled = false;
                return Ok(Admission { placement: place(id, layer), moved: None });
            }
        }
        let adesc = ArrayDesc {
            width_px: key.width_px,
            height_px: key.height_px,
            layers: 0,
            format: key.format,
            mip_levels: key.mip_levels,
            sampler: key.sampler,
            render_target: false,
            normal_map: self.normal_map(desc),
            host: None,
        };
        // 2. Grow the first array below the cap: double, or as many layers as the budget has
        // room for.
        let mut cheapest = u64::MAX;
        if let Some(old) = family.iter().copied().find(|&id| {
            let layers = self.arrays[id.0 as usize].as_ref().expect("live").desc.layers;
            !self.grown_layers(layers, layers).is_empty() && self.may_copy(id)
        }) {
            let old_desc = self.arrays[old.0 as usize].as_ref().expect("live").desc;
            // Class arrays double.
            for layers in self.grown_layers(old_desc.layers, old_desc.layers) {
                let new_desc = ArrayDesc { layers, ..old_desc };
                let cost = self.growth_cost(old, &new_desc);
                cheapest = cheapest.min(cost);
                if self.fits(cost) {
                    let id = self.grow(old, new_desc);
                    let layer = self.take_layer(id);
                    return Ok(Admission { placement: place(id, layer), moved: Some((old, id)) });
                }
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
            return Err(
                self.exhausted(cheapest.min(layer_bytes.saturating_mul(self.layer_count(1) as u64)), key.format)
            );
        }
        let id = self.create(ArrayDesc { layers, ..adesc }, false, Born::Created { relayable: true });
        let fam = self.classes.entry(key).or_default();
        if fam.is_empty() {
            self.class_count += 1;
        }
        fam.push(id);
        let layer = self.take_layer(id);
        Ok(Admission { placement: place(id, layer), moved: None })
    }

    /// Releases a placement's layer (or rectangle) for reuse; a one-texture array is
    /// destroyed.
    ///
    /// # Errors
    /// [`TextureError::NotAllocated`] for a placement this allocator did not issue or that was
    /// freed already; nothing changes then.
    pub fn free(&mut self, placement: &Placement) -> Result<(), TextureError> {
        let not_allocated =
            TextureError::NotAllocated { array: placement.array, layer: placement.layer, rect_px: placement.rect_px };
        let Some(a) = self.arrays.get_mut(placement.array.0 as usize).and_then(Option::as_mut) else {
            return Err(not_allocated);
        };
        if placement.layer >= a.desc.layers {
            return Err(not_allocated);
        }
        let l = placement.layer as usize;
        if let Some(pages) = &mut a.pages {
            let [x, y, w, h] = placement.rect_px;
            if !pages.free(Spot { layer: placement.layer, x, y }, [w, h]) {
                return Err(not_allocated);
            }
            if !pages.layer_used(placement.layer) && a.used[l] {
                a.used[l] = false;
                a.used_count -= 1;
            }
            a.touched = true;
            a.settled = false;
            return Ok(());
        }
        if !a.used[l] || a.dedicated != placement.dedicated {
            return Err(not_allocated);
        }
        a.used[l] = false;
        a.used_count -= 1;
        a.touched = true;
        a.settled = false;
        if a.dedicated {
            self.retire(placement.array);
            self.ops.push(ArrayOp::Destroy { array: placement.array });
        }
        Ok(())
    }

    /// Whether array `id` may change by a GPU copy (grow, shrink, compact): always before a
    /// plan brings it to the device (it changes in place then); on the device, unless it is
    /// compressed and the device cannot copy compressed texels.
    fn may_copy(&self, id: ArrayId) -> bool {
        let a = self.arrays[id.0 as usize].as_ref().expect("live");
        a.born != Born::OnDevice || self.compressed_copies || !a.desc.format.is_compressed()
    }

    /// Layer counts an array of `old` layers may grow to, preferred first: `step` more (up
    /// to the cap), then one more; each unambiguous. Empty at the cap.
    fn grown_layers(&self, old: u32, step: u32) -> Vec<u32> {
        let cap = self.max_layers.max(2);
        let mut out = Vec::with_capacity(2);
        for target in [old.saturating_add(step.max(1)), old + 1] {
            let mut l = target.min(cap);
            while self.ambiguous(l) && l < cap {
                l += 1;
            }
            while self.ambiguous(l) && l > old {
                l -= 1;
            }
            if l > old && l <= cap && !self.ambiguous(l) && !out.contains(&l) {
                out.push(l);
            }
        }
        out
    }

    /// The smallest unambiguous layer count that holds `needed` layers (at least 1).
    fn layers_for(&self, needed: u32) -> u32 {
        let mut l = needed.max(1);
        while self.ambiguous(l) {
            l += 1;
        }
        l
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

    /// Bytes growing `old` into `desc` adds to what the device holds: the difference when
    /// it grows in place, the whole new array when it is a copy (the old one is held until
    /// the plan's commands finish).
    fn growth_cost(&self, old: ArrayId, desc: &ArrayDesc) -> u64 {
        let a = self.arrays[old.0 as usize].as_ref().expect("live");
        match a.born {
            Born::OnDevice => desc.bytes(),
            _ => desc.bytes().saturating_sub(a.desc.bytes()),
        }
    }

    fn new_id(&mut self) -> ArrayId {
        if let Some(id) = self.free_ids.pop() {
            return id;
        }
        // The batcher tags recorded array ids with bit 31.
        assert!(self.arrays.len() < (1 << 31), "2^31 arrays alive at once");
        self.arrays.push(None);
        ArrayId(self.arrays.len() as u32 - 1)
    }

    fn create(&mut self, desc: ArrayDesc, dedicated: bool, born: Born) -> ArrayId {
        let id = self.new_id();
        self.arrays[id.0 as usize] = Some(ArrayState::new(desc, dedicated, born));
        if born != Born::OnDevice {
            self.born.push(id);
        }
        self.allocated_bytes += desc.bytes();
        self.peak_bytes = self.peak_bytes.max(self.held_bytes());
        self.ops.push(ArrayOp::Create { array: id, desc });
        id
    }

    /// Takes live array `id` out: its bytes count as retired until the plan ends, its id is
    /// reused after that.
    fn retire(&mut self, id: ArrayId) -> ArrayState {
        let a = self.arrays[id.0 as usize].take().expect("retire a live array");
        self.allocated_bytes -= a.desc.bytes();
        self.retired_bytes += a.desc.bytes();
        self.retiring_ids.push(id);
        a
    }

    /// Grows `old` into `desc`: in place (same id, no op) while no plan has brought it to the
    /// device, else into a new array by a GPU copy. Returns the array's id now.
    fn grow(&mut self, old: ArrayId, desc: ArrayDesc) -> ArrayId {
        let in_place = self.arrays[old.0 as usize].as_ref().expect("grow a live array").born != Born::OnDevice;
        if in_place {
            let a = self.arrays[old.0 as usize].as_mut().expect("live");
            self.allocated_bytes = self.allocated_bytes + desc.bytes() - a.desc.bytes();
            resize_state(a, desc);
            self.peak_bytes = self.peak_bytes.max(self.held_bytes());
            return old;
        }
        let id = self.new_id();
        let mut state = self.retire(old);
        let copy_layers = state.desc.layers;
        // Both arrays exist while the copy runs, and the old one until the plan's commands
        // finish.
        self.allocated_bytes += desc.bytes();
        self.peak_bytes = self.peak_bytes.max(self.held_bytes());
        resize_state(&mut state, desc);
        state.born = Born::Grown;
        self.arrays[id.0 as usize] = Some(state);
        self.born.push(id);
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

    fn take_layer(&mut self, id: ArrayId) -> u32 {
        let a = self.arrays[id.0 as usize].as_mut().expect("live");
        let layer = a.used.iter().position(|u| !u).expect("a free layer") as u32;
        a.used[layer as usize] = true;
        a.used_count += 1;
        a.touched = true;
        a.settled = false;
        layer
    }
}

/// An array's state after it grew into `desc`: more layers (free), and for a page array
/// larger layers too (allocations keep their places).
fn resize_state(a: &mut ArrayState, desc: ArrayDesc) {
    a.used.resize(desc.layers as usize, false);
    if let Some(p) = &mut a.pages {
        p.grow_size([desc.width_px, desc.height_px]);
        p.add_layers(desc.layers - p.layer_count());
    }
    a.desc = desc;
    a.touched = true;
    a.settled = false;
}
