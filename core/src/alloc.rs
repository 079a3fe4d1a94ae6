//! The texture-array allocator: size classes, layer admission, growth, budget. Pure logic,
//! deterministic from its admission sequence.

use std::collections::HashMap;

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

/// Size classes, arrays and the byte budget.
///
/// ```
/// use layerbatch_core::{Allocator, Budget, Config, Limits, TextureDesc};
/// let budget = Budget::new(&Limits::guaranteed_minimum(), &Config::default()).unwrap();
/// let mut alloc = Allocator::new(&budget);
/// let a = alloc.admit(&TextureDesc::new(64, 64)).unwrap();
/// let b = alloc.admit(&TextureDesc::new(64, 64)).unwrap();
/// assert_eq!(a.placement.array, b.placement.array);
/// assert_eq!((a.placement.layer, b.placement.layer), (0, 1));
/// assert_eq!(alloc.allocated_bytes(), 4 * 64 * 64 * 4); // 4 initial layers
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

    /// Admits a texture: a free layer of its class, else a grown array, else a new array, else
    /// a one-texture array if it cannot be bucketed. The description must be valid (checked by
    /// the batcher).
    ///
    /// # Errors
    /// [`TextureError::BudgetExhausted`] when every option would exceed the budget; nothing is
    /// changed then.
    pub fn admit(&mut self, desc: &TextureDesc) -> Result<Admission, TextureError> {
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
        };
        // 2. Grow the first array below the cap, if old + new fit (both exist during the copy).
        let mut cheapest = u64::MAX;
        if let Some((pos, old, layers)) = family.iter().enumerate().find_map(|(pos, id)| {
            let layers = self.grown_layers(self.arrays[id.0 as usize].as_ref().expect("live").desc.layers)?;
            Some((pos, *id, layers))
        }) {
            let old_desc = self.arrays[old.0 as usize].as_ref().expect("live").desc;
            let new_desc = ArrayDesc { layers, ..old_desc };
            cheapest = new_desc.bytes();
            if self.fits(new_desc.bytes()) {
                let id = self.grow(old, new_desc);
                self.classes.get_mut(&key).expect("family")[pos] = id;
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
        self.arrays[id.0 as usize] =
            Some(ArrayState { desc, used: vec![false; desc.layers as usize], used_count: 0, dedicated });
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
        self.arrays[id.0 as usize] = Some(state);
        self.ops.push(ArrayOp::Grow { from: old, to: id, desc, copy_layers });
        self.growths += 1;
        id
    }

    fn take_layer(&mut self, id: ArrayId) -> u32 {
        let a = self.arrays[id.0 as usize].as_mut().expect("live");
        let layer = a.used.iter().position(|u| !u).expect("a free layer") as u32;
        a.used[layer as usize] = true;
        a.used_count += 1;
        layer
    }
}
