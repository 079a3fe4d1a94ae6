//! The allocator's invariants, checked by tests and fuzzing.

use super::Allocator;

impl Allocator {
    /// Checks internal invariants (used by tests): byte totals, family membership.
    pub fn check_invariants(&self) {
        let live: u64 = self.arrays.iter().flatten().map(|a| a.desc.bytes()).sum();
        assert_eq!(live, self.allocated_bytes, "allocated bytes drifted");
        assert!(self.peak_bytes <= self.budget_bytes, "peak above budget");
        for a in self.arrays.iter().flatten() {
            assert_eq!(a.used.iter().filter(|u| **u).count() as u32, a.used_count);
            if let Some(p) = &a.pages {
                p.check();
                assert_eq!(p.size_px(), [a.desc.width_px, a.desc.height_px], "page size drifted");
                assert_eq!(p.block_px(), a.desc.format.block_size_px(), "page blocks drifted");
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
        for id in self.free_ids.iter().chain(&self.retiring_ids) {
            assert!(self.arrays[id.0 as usize].is_none(), "a free id names a live array");
        }
    }
}
