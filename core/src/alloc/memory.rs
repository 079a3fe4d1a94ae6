//! Memory coming back: empty arrays destroyed, half-empty ones shrunk, fragmented pages
//! compacted, and arrays left alone for a while settled into their canonical layout.

use super::{Allocator, Born, Moved, RETURN_AFTER_PLANS, SETTLE_AFTER_PLANS};

/// Bytes of a page array below which it is never repacked for being sparse: a repack costs a
/// layout search and copies, and saves at most this.
const SPARSE_FLOOR_BYTES: u64 = 256 << 10;
use crate::plan::{ArrayDesc, ArrayId, ArrayOp};

impl Allocator {
    /// Gives memory back, once per plan (the batcher calls it as it hands a plan over):
    /// arrays empty for 3 plans are destroyed; arrays whose used layers are at most half
    /// their layers for as long shrink to the used ones; with `Config::auto_compact`, a page
    /// array whose texels fill less than half its pages first moves its rectangles into a
    /// fresh layout, so that it can shrink; and an array untouched for 30 plans settles
    /// (a page array into its canonical layout, a class array trimmed to its used layers)
    /// when that saves memory. Returns what moved.
    pub fn maintain(&mut self) -> Vec<Moved> {
        let mut moved = Vec::new();
        let floor = self.layer_count(1);
        for i in 0..self.arrays.len() {
            let Some(a) = self.arrays[i].as_mut() else { continue };
            if a.dedicated {
                continue;
            }
            let id = ArrayId(i as u32);
            if std::mem::take(&mut a.touched) {
                a.quiet_plans = 0;
                a.settled = false;
            } else {
                a.quiet_plans = a.quiet_plans.saturating_add(1);
            }
            let used_layers = a.used_layers();
            let shrinkable = a.desc.layers > floor && used_layers * 2 <= a.desc.layers;
            // A page array holding more than 1.75x its texels plus a page: a repack packs them
            // into about 1.25x, so it gives layers back (and keeps a churning set within 2x
            // its texels plus a page). With one or two layers the page itself is what shrinks
            // (a repack lays them out at the smallest page size that holds them), so no page
            // of slack is allowed there, only a floor below which a repack is not worth it.
            let sparse = a.pages.as_ref().is_some_and(|p| {
                let page = u64::from(p.size_px()[0]) * u64::from(p.size_px()[1]);
                let capacity = page * u64::from(p.layer_count());
                let slack = if p.layer_count() > 2 { page } else { 0 };
                capacity * 4 > p.used_px() * 7 + slack * 4 && a.desc.bytes() > SPARSE_FLOOR_BYTES
            });
            let settle = self.auto_compact && !a.settled && a.quiet_plans >= SETTLE_AFTER_PLANS;
            if a.used_count == 0 || shrinkable || (self.auto_compact && sparse) {
                a.idle_plans += 1;
            } else {
                a.idle_plans = 0;
                if !settle {
                    continue;
                }
            }
            if a.idle_plans < RETURN_AFTER_PLANS && !settle {
                continue;
            }
            let returning = a.idle_plans >= RETURN_AFTER_PLANS;
            let compact_now = self.auto_compact && (sparse || settle) && a.pages.is_some();
            if returning {
                a.idle_plans = 0;
            }
            if settle {
                a.settled = true;
            }
            if returning && a.used_count == 0 {
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
            // Halve (as memory returns) or, settling, trim any empty top layer.
            let min_saving = if returning && shrinkable { 2 } else { 1 };
            if (returning && shrinkable) || (settle && used_layers < self.arrays[i].as_ref().expect("live").desc.layers)
            {
                if let Some(to) = self.shrink(id, min_saving) {
                    moved.push(Moved::Array { from: id, to });
                }
            }
        }
        moved
    }

    /// Shrinks array `id` to its used layers (at least the smallest count allowed), if that
    /// divides its layers by `min_ratio` at least (1: any saving) and the transient copy fits
    /// the budget.
    fn shrink(&mut self, id: ArrayId, min_ratio: u32) -> Option<ArrayId> {
        if !self.may_copy(id) {
            return None;
        }
        let a = self.arrays[id.0 as usize].as_ref().expect("live");
        let used_layers = a.used_layers();
        let layers = self.layers_for(used_layers);
        if layers >= a.desc.layers || layers * min_ratio > a.desc.layers {
            return None;
        }
        let desc = ArrayDesc { layers, ..a.desc };
        if !self.fits(desc.bytes()) {
            return None;
        }
        let new = self.new_id();
        let mut state = self.retire(id);
        self.allocated_bytes += desc.bytes();
        self.peak_bytes = self.peak_bytes.max(self.held_bytes());
        state.used.truncate(layers as usize);
        if let Some(p) = &mut state.pages {
            p.truncate(layers);
        }
        state.desc = desc;
        // A shrink's target is created by the shrink op, which cannot grow: it is on the
        // device as far as later growths go.
        state.born = Born::OnDevice;
        self.arrays[new.0 as usize] = Some(state);
        self.ops.push(ArrayOp::Shrink { from: id, to: new, desc, copy_layers: used_layers.min(layers) });
        self.replace_in_families(id, new);
        Some(new)
    }

    /// Destroys an empty shared array.
    fn destroy(&mut self, id: ArrayId) {
        self.retire(id);
        for fam in self.classes.values_mut().chain(self.pages.values_mut()) {
            fam.retain(|x| *x != id);
        }
        self.classes.retain(|_, f| !f.is_empty());
        self.pages.retain(|_, f| !f.is_empty());
        self.ops.push(ArrayOp::Destroy { array: id });
    }
}
