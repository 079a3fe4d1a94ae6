//! The bounded slot ladder and the segment planner.
//!
//! Slots hold arrays. When a quad needs an array no slot holds: take a free slot; else replace
//! one slot no pending quad references (no flush); only when every slot is referenced, flush
//! and replace one. Never wipe all slots (except in the `WipeAll` comparison mode).

use crate::plan::ArrayId;
use crate::plan::{FlushCause, FramePlan, Instance, Instances, Segment, SlotBind};
use crate::{Budget, Counters, VictimChoice};
use std::ops::Range;

const NONE: u8 = u8::MAX;
/// Tag on a recorded quad's array id: its slot was written at push time, from a slot that held
/// the array then. Valid until the first eviction or swap of the frame.
pub(crate) const PREPLACED: u32 = 1 << 31;
const NEVER: u32 = u32::MAX;
const NONE_ARRAY: u32 = u32::MAX;

/// The frame's leading quads whose arrays a slot held when they were pushed. The planner needs
/// no per-quad record of them: their slots were written at push time and cannot have changed
/// (slots change only while planning), so each run between instance-buffer boundaries and
/// explicit flushes is summarized by the slots it uses.
#[derive(Debug)]
pub(crate) struct Prefix {
    /// Still extending: every quad so far was resident.
    pub(crate) open: bool,
    /// Closed runs: (end, slots used, why it ended), each ending at a boundary.
    pub(crate) runs: Vec<(u32, u32, FlushCause)>,
    run: Run,
    capacity: u32,
}

/// The run being extended, kept apart so a hot loop can hold it in locals.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Run {
    /// Quads in the prefix.
    len: u32,
    /// Slots used by the run.
    mask: u32,
    /// Per slot: 1 + the last prefix quad using it (0: none), for the LRU stamps.
    last: [u32; MAX_SLOTS],
    /// The next instance-buffer boundary.
    next_cap: u32,
    capacity: u32,
}

const MAX_SLOTS: usize = crate::MAX_SLOTS_PER_DRAW as usize;

impl Run {
    /// Ends the run at quad `n` if `n` is an instance-buffer boundary.
    #[inline(always)]
    fn boundary(&mut self, n: u32, runs: &mut Vec<(u32, u32, FlushCause)>) {
        if n == self.next_cap {
            if self.mask != 0 {
                runs.push((n, self.mask, FlushCause::InstanceBufferFull));
                self.mask = 0;
            }
            self.next_cap = self.next_cap.saturating_add(self.capacity);
        }
    }

    /// [`Run::note`] for quads `start, start + 1, ...` while `slots` yields a slot (below
    /// [`MAX_SLOTS`]); returns how many were noted. The run's mask and boundary stay in
    /// registers across the loop.
    #[inline]
    pub(crate) fn note_all(
        &mut self,
        start: u32,
        slots: impl Iterator<Item = u32>,
        runs: &mut Vec<(u32, u32, FlushCause)>,
    ) -> u32 {
        let (mut mask, mut next_cap, mut n) = (self.mask, self.next_cap, start);
        for u in slots {
            if u >= MAX_SLOTS as u32 {
                break;
            }
            if n == next_cap {
                if mask != 0 {
                    runs.push((n, mask, FlushCause::InstanceBufferFull));
                    mask = 0;
                }
                next_cap = next_cap.saturating_add(self.capacity);
            }
            mask |= 1 << u;
            self.last[u as usize] = n + 1;
            n += 1;
        }
        (self.mask, self.next_cap) = (mask, next_cap);
        if n > start {
            self.len = n;
        }
        n - start
    }

    /// Quad `n` uses slot `u`, resident when pushed.
    #[inline(always)]
    pub(crate) fn note(&mut self, n: u32, u: u32, runs: &mut Vec<(u32, u32, FlushCause)>) {
        self.boundary(n, runs);
        self.mask |= 1 << u;
        self.last[u as usize] = n + 1;
        self.len = n + 1;
    }
}

impl Prefix {
    pub(crate) fn new(capacity: u32) -> Self {
        let run = Run { len: 0, mask: 0, last: [0; MAX_SLOTS], next_cap: capacity, capacity };
        Self { open: true, runs: Vec::new(), run, capacity }
    }

    pub(crate) fn reset(&mut self) {
        self.open = true;
        self.runs.clear();
        self.run = Run { len: 0, mask: 0, last: [0; MAX_SLOTS], next_cap: self.capacity, capacity: self.capacity };
    }

    /// Quads in the prefix.
    pub(crate) fn len(&self) -> u32 {
        self.run.len
    }

    /// The run being extended, to extend in locals ([`Prefix::set_run`] puts it back).
    pub(crate) fn run(&self) -> Run {
        self.run
    }

    pub(crate) fn set_run(&mut self, run: Run) {
        self.run = run;
    }

    /// Quad `n` uses slot `u`, resident when pushed.
    #[inline(always)]
    pub(crate) fn note(&mut self, n: u32, u: u32) {
        self.run.note(n, u, &mut self.runs);
    }

    /// Quads `start..start + len`, every one resident when recorded (a part recorded on
    /// another thread), given by their summary: `slots_used(a, b)` the slots of the span's
    /// quads `a..b`, `last[u]` 1 + the last of them using slot `u` (0: none).
    pub(crate) fn note_span(&mut self, start: u32, len: u32, slots_used: impl Fn(u32, u32) -> u32, last: &[u32; 32]) {
        let run = &mut self.run;
        let end = start + len;
        let mut a = start;
        while a < end {
            run.boundary(a, &mut self.runs);
            let b = end.min(run.next_cap);
            run.mask |= slots_used(a - start, b - start);
            a = b;
        }
        if len > 0 {
            for (u, &l) in last.iter().enumerate() {
                if l > 0 {
                    run.last[u] = start + l;
                }
            }
            run.len = end;
        }
    }

    /// Quad `n` needs an array no slot holds: the prefix ends before it.
    pub(crate) fn close(&mut self, n: u32) {
        self.run.boundary(n, &mut self.runs);
        self.open = false;
        self.run.len = n;
    }

    /// A flush before quad `n` (explicit, or a draw-state change).
    pub(crate) fn flush(&mut self, n: u32, cause: FlushCause) {
        if self.open && self.run.mask != 0 {
            self.runs.push((n, self.run.mask, cause));
            self.run.mask = 0;
        } else if let Some(last) = self.runs.last_mut().filter(|r| r.0 == n && cause == FlushCause::StateChange) {
            // A state change right after a flush: one boundary, the state change's (as the
            // recorder's flush marks say; two flushes at one place keep the first cause).
            last.2 = cause;
        }
    }
}

/// Slot assignments that persist across segments and frames, and the planner that walks a
/// recorded frame through them.
#[derive(Debug)]
pub(crate) struct SlotLadder {
    slots: u32,
    victim: VictimChoice,
    /// The array each slot holds.
    units: Vec<Option<ArrayId>>,
    /// What the device has bound per slot, as of the last planned segment.
    bound: Vec<Option<ArrayId>>,
    /// LRU stamps per slot.
    last_use: Vec<u64>,
    /// Slot of each array id, `NONE` if unbound.
    unit_of: Vec<u8>,
    free_mask: u32,
    clock: u64,
    // Next-use scratch, built lazily the first time a victim is needed in a frame.
    next_use: Vec<u32>,
    cursor: Vec<u32>,
    next_use_built: bool,
    /// An eviction or swap happened this frame: slots written at push time may be stale.
    diverged: bool,
    /// Quads in the frame being planned.
    frame_len: u32,
}

/// Per-frame planning state.
struct Walk<'a> {
    budget: &'a Budget,
    plan: &'a mut FramePlan,
    counters: &'a mut Counters,
    seg_start: u32,
    mask: u32,
}

impl SlotLadder {
    pub(crate) fn new(budget: &Budget) -> Self {
        let n = budget.slots as usize;
        Self {
            slots: budget.slots,
            victim: budget.victim,
            units: vec![None; n],
            bound: vec![None; n],
            last_use: vec![0; n],
            unit_of: Vec::new(),
            free_mask: if budget.slots == 32 { u32::MAX } else { (1u32 << budget.slots) - 1 },
            clock: 0,
            next_use: Vec::new(),
            cursor: Vec::new(),
            next_use_built: false,
            diverged: false,
            frame_len: 0,
        }
    }

    /// The array each slot holds now.
    pub(crate) fn units(&self) -> &[Option<ArrayId>] {
        &self.units
    }

    /// The device forgot its bindings: the next segments bind every slot they use again.
    pub(crate) fn forget_bindings(&mut self) {
        self.bound.iter_mut().for_each(|b| *b = None);
    }

    /// An array was destroyed: its slot becomes free, and the device no longer holds it
    /// bound (its id may name another array from the next plan on).
    pub(crate) fn forget(&mut self, array: ArrayId) {
        if let Some(u) = self.slot_of(array) {
            self.units[u as usize] = None;
            self.unit_of[array.0 as usize] = NONE;
            self.free_mask |= 1 << u;
        }
        self.unbind(array);
    }

    /// The device unbinds a destroyed (or grown- or shrunk-from) array: a later array with
    /// the same id must be bound again.
    fn unbind(&mut self, array: ArrayId) {
        for b in self.bound.iter_mut().filter(|b| **b == Some(array)) {
            *b = None;
        }
    }

    /// An array grew into a new one: the slot keeps it (the device rebinds it).
    pub(crate) fn replace(&mut self, old: ArrayId, new: ArrayId) {
        if old == new {
            return;
        }
        if let Some(u) = self.slot_of(old) {
            self.unit_of[old.0 as usize] = NONE;
            self.ensure(new.0);
            self.unit_of[new.0 as usize] = u as u8;
            self.units[u as usize] = Some(new);
        }
        self.unbind(old);
    }

    /// The slot holding `array` now, or `None`: lets `push` write the slot at once.
    #[inline]
    pub(crate) fn resident(&self, array: u32) -> Option<u32> {
        match self.unit_of.get(array as usize) {
            Some(&u) if u != NONE => Some(u as u32),
            _ => None,
        }
    }

    fn slot_of(&self, array: ArrayId) -> Option<u32> {
        match self.unit_of.get(array.0 as usize) {
            Some(&u) if u != NONE => Some(u as u32),
            _ => None,
        }
    }

    fn ensure(&mut self, array: u32) {
        if array as usize >= self.unit_of.len() {
            self.unit_of.resize(array as usize + 1, NONE);
        }
    }

    /// Plans a recorded frame: assigns a slot to every quad (writing it into the instance),
    /// and cuts segments. The first `prefix.len` quads are summarized by `prefix`;
    /// `arrays[i - prefix.len]` is the array of each quad `i` after them. `flush_marks` are
    /// quad indices the caller asked to start a new segment at, ascending, with why.
    pub(crate) fn plan_frame(
        &mut self,
        prefix: &Prefix,
        arrays: &[u32],
        flush_marks: &[(u32, FlushCause)],
        budget: &Budget,
        plan: &mut FramePlan,
        counters: &mut Counters,
    ) {
        let base = prefix.len();
        debug_assert_eq!(base as usize + arrays.len(), plan.instances.len());
        if let Some(max) = arrays.iter().map(|a| a & !PREPLACED).max() {
            self.ensure(max);
        }
        self.next_use_built = false;
        self.diverged = false;
        self.frame_len = base + arrays.len() as u32;
        let capacity = budget.instance_capacity;
        let mut walk = Walk { budget, plan, counters, seg_start: 0, mask: 0 };
        // The prefix: its runs end at boundaries; the last one stays open into the walk. Its
        // slots are those at push time; once closing a run swaps slots (to draw it at a
        // smaller tier), later runs are renumbered through the arrays the slots held.
        let mut at_push = [NONE_ARRAY; MAX_SLOTS];
        for (s, unit) in self.units.iter().enumerate() {
            at_push[s] = unit.map_or(NONE_ARRAY, |a| a.0);
        }
        let mut start = 0;
        for &(end, mask, cause) in &prefix.runs {
            walk.mask |= self.renumber(&at_push, mask, &mut walk.plan.instances, start as usize..end as usize);
            let cause = if end % capacity == 0 { FlushCause::InstanceBufferFull } else { cause };
            self.close(&mut walk, end, cause);
            start = end;
        }
        walk.mask |= self.renumber(&at_push, prefix.run.mask, &mut walk.plan.instances, start as usize..base as usize);
        for (u, &last) in prefix.run.last.iter().enumerate() {
            if last > 0 {
                let now = if self.diverged { self.unit_of[at_push[u] as usize] as usize } else { u };
                self.last_use[now] = self.clock + u64::from(last - 1);
            }
        }
        self.clock += u64::from(base);
        let mut marks = flush_marks.iter().copied().skip_while(|&(m, _)| m < base);
        let (mut next_mark, mut mark_cause) = marks.next().unwrap_or((u32::MAX, FlushCause::Explicit));
        let mut next_cap = base.div_ceil(capacity).max(1).saturating_mul(capacity);
        let n = base + arrays.len() as u32;
        let arrays = |i: u32| arrays[(i - base) as usize];
        let mut i = base;
        while i < n {
            // Fast path: quads whose slot was written at push time, up to the next boundary.
            // Only the segment's slot mask and the LRU stamps change; kept in locals.
            if !self.diverged {
                let end = n.min(next_cap).min(next_mark);
                let (mut mask, mut clock) = (walk.mask, self.clock);
                while i < end {
                    let raw = arrays(i);
                    if raw & PREPLACED == 0 {
                        break;
                    }
                    let u = self.unit_of[(raw & !PREPLACED) as usize] as u32;
                    mask |= 1 << u;
                    self.last_use[u as usize] = clock;
                    clock += 1;
                    i += 1;
                }
                (walk.mask, self.clock) = (mask, clock);
                if i == n {
                    break;
                }
            }
            // Two compares per quad instead of a division: the next buffer boundary and the
            // next explicit flush.
            if i == next_cap || i == next_mark {
                if i > walk.seg_start {
                    let cause = if i == next_cap { FlushCause::InstanceBufferFull } else { mark_cause };
                    self.close(&mut walk, i, cause);
                }
                if i == next_cap {
                    next_cap = next_cap.saturating_add(capacity);
                }
                while next_mark <= i {
                    (next_mark, mark_cause) = marks.next().unwrap_or((u32::MAX, FlushCause::Explicit));
                }
            }
            let raw = arrays(i);
            let a = raw & !PREPLACED;
            let mut u = self.unit_of[a as usize];
            if u == NONE {
                u = self.place(&mut walk, a, i, &arrays);
            }
            walk.mask |= 1 << u;
            self.last_use[u as usize] = self.clock;
            self.clock += 1;
            if self.diverged || raw & PREPLACED == 0 {
                let inst = &mut walk.plan.instances[i as usize];
                inst.slot_flags_layer = Instance::with_slot(inst.slot_flags_layer, u as u32);
            }
            if self.next_use_built {
                self.cursor[a as usize] = self.next_use[i as usize];
            }
            i += 1;
        }
        if n > walk.seg_start {
            self.close(&mut walk, n, FlushCause::EndOfFrame);
        }
    }

    /// The slots of `mask` (numbered as at push time, when slot `s` held `at_push[s]`) as
    /// numbered now, rewriting the slots of `instances` too if they differ.
    fn renumber(&self, at_push: &[u32; MAX_SLOTS], mask: u32, instances: &mut Instances, range: Range<usize>) -> u32 {
        if !self.diverged {
            return mask;
        }
        let mut now = [0u8; MAX_SLOTS];
        let mut out = 0;
        let mut bits = mask;
        while bits != 0 {
            let s = bits.trailing_zeros();
            bits &= bits - 1;
            let u = self.unit_of[at_push[s as usize] as usize];
            now[s as usize] = u;
            out |= 1 << u;
        }
        for inst in instances.pieces_mut(range).flatten() {
            inst.slot_flags_layer = Instance::with_slot(inst.slot_flags_layer, u32::from(now[inst.slot() as usize]));
        }
        out
    }

    /// Finds a slot for array `a` needed by quad `i`, flushing if every slot is referenced.
    fn place(&mut self, walk: &mut Walk<'_>, a: u32, i: u32, arrays: &impl Fn(u32) -> u32) -> u8 {
        let u = if self.free_mask != 0 {
            self.free_mask.trailing_zeros()
        } else if self.victim == VictimChoice::WipeAll {
            if walk.seg_start < i {
                self.close(walk, i, FlushCause::SlotsExhausted);
            }
            for (s, unit) in self.units.iter_mut().enumerate() {
                if let Some(old) = unit.take() {
                    self.unit_of[old.0 as usize] = NONE;
                }
                self.free_mask |= 1 << s;
            }
            walk.counters.cache_resets += 1;
            self.diverged = true;
            0
        } else {
            let all = self.free_mask | self.occupied_mask();
            let mut candidates = all & !walk.mask;
            if candidates == 0 {
                self.close(walk, i, FlushCause::SlotsExhausted);
                candidates = all;
            }
            let v = self.choose_victim(candidates, i, arrays);
            let old = self.units[v as usize].take().expect("a victim holds an array");
            self.unit_of[old.0 as usize] = NONE;
            walk.counters.slot_evictions += 1;
            self.diverged = true;
            v
        };
        self.units[u as usize] = Some(ArrayId(a));
        self.unit_of[a as usize] = u as u8;
        self.free_mask &= !(1 << u);
        u as u8
    }

    fn occupied_mask(&self) -> u32 {
        let full = if self.slots == 32 { u32::MAX } else { (1u32 << self.slots) - 1 };
        full & !self.free_mask
    }

    fn choose_victim(&mut self, candidates: u32, i: u32, arrays: &impl Fn(u32) -> u32) -> u32 {
        let mut best = u32::MAX;
        let mut best_key = (0u32, u64::MAX);
        let use_next = self.victim == VictimChoice::NextUse;
        if use_next && !self.next_use_built {
            self.build_next_use(i, arrays);
        }
        let mut bits = candidates;
        while bits != 0 {
            let s = bits.trailing_zeros();
            bits &= bits - 1;
            let array = self.units[s as usize].expect("candidate slots are occupied");
            // Farthest next use first; then least recently used; then lowest slot.
            let next = if use_next { self.cursor[array.0 as usize] } else { 0 };
            let key = (next, self.last_use[s as usize]);
            if best == u32::MAX || key.0 > best_key.0 || (key.0 == best_key.0 && key.1 < best_key.1) {
                best = s;
                best_key = key;
            }
        }
        best
    }

    /// Next-use table from quad `from` on: `cursor[a]` = next quad at or after the walk's
    /// position that uses array `a`, `next_use[j]` = the quad after `j` using the same array.
    fn build_next_use(&mut self, from: u32, arrays: &impl Fn(u32) -> u32) {
        // Indexed by quad; quads of the prefix (before `from`) are never looked up.
        let n = self.frame_len;
        self.next_use.clear();
        self.next_use.resize(n as usize, NEVER);
        self.cursor.clear();
        self.cursor.resize(self.unit_of.len(), NEVER);
        for j in (from..n).rev() {
            let a = (arrays(j) & !PREPLACED) as usize;
            self.next_use[j as usize] = self.cursor[a];
            self.cursor[a] = j;
        }
        self.next_use_built = true;
    }

    /// Ends the segment `walk.seg_start..end`: renumbers its slots compactly below its tier,
    /// records binds and the slot table, counts.
    fn close(&mut self, walk: &mut Walk<'_>, end: u32, cause: FlushCause) {
        let mut mask = walk.mask;
        let tier = walk.budget.tier_for(mask.count_ones());
        if 32 - mask.leading_zeros() > tier {
            // A slot at or above the tier is referenced: swap it below, so the segment can use
            // the smaller program. Residency is unchanged; the swapped slots are rebound.
            let mut remap = [u8::MAX; 32];
            let mut high = mask & !low_bits(tier);
            while high != 0 {
                let u = high.trailing_zeros();
                high &= high - 1;
                let v = (!mask & low_bits(tier)).trailing_zeros();
                self.swap(u, v);
                mask = (mask & !(1 << u)) | (1 << v);
                remap[u as usize] = v as u8;
            }
            self.diverged = true;
            for inst in walk.plan.instances.pieces_mut(walk.seg_start as usize..end as usize).flatten() {
                let s = inst.slot() as usize;
                if remap[s] != u8::MAX {
                    inst.slot_flags_layer = Instance::with_slot(inst.slot_flags_layer, remap[s] as u32);
                }
            }
        }
        let plan = &mut *walk.plan;
        let binds_start = plan.binds.len() as u32;
        let table_start = plan.slot_tables.len() as u32;
        for s in 0..tier {
            if mask & (1 << s) != 0 {
                let array = self.units[s as usize];
                plan.slot_tables.push(array);
                if self.bound[s as usize] != array {
                    self.bound[s as usize] = array;
                    plan.binds.push(SlotBind { slot: s, array: array.expect("referenced slots hold an array") });
                }
            } else {
                plan.slot_tables.push(None);
            }
        }
        plan.segments.push(Segment {
            instances: walk.seg_start..end,
            tier,
            slots: table_start..plan.slot_tables.len() as u32,
            binds: binds_start..plan.binds.len() as u32,
            cause,
            state: 0,
            resident: None,
            grid: None,
            effects: false,
        });
        let c = &mut *walk.counters;
        c.draw_calls += 1;
        c.flushes += 1;
        match cause {
            FlushCause::SlotsExhausted => c.flushes_slots_exhausted += 1,
            FlushCause::InstanceBufferFull => c.flushes_instance_buffer_full += 1,
            FlushCause::Explicit => c.flushes_explicit += 1,
            FlushCause::EndOfFrame => c.flushes_end_of_frame += 1,
            FlushCause::StateChange => c.flushes_state_change += 1,
            FlushCause::Resident => c.flushes_resident += 1,
        }
        c.slot_binds += (plan.binds.len() as u32 - binds_start) as u64;
        c.max_slot_tier = c.max_slot_tier.max(tier as u64);
        walk.seg_start = end;
        walk.mask = 0;
    }

    fn swap(&mut self, u: u32, v: u32) {
        let (u, v) = (u as usize, v as usize);
        self.units.swap(u, v);
        self.last_use.swap(u, v);
        for s in [u, v] {
            match self.units[s] {
                Some(a) => {
                    self.unit_of[a.0 as usize] = s as u8;
                    self.free_mask &= !(1 << s);
                }
                None => self.free_mask |= 1 << s,
            }
        }
    }
}

const fn low_bits(n: u32) -> u32 {
    if n >= 32 {
        u32::MAX
    } else {
        (1 << n) - 1
    }
}
