//! Sorted frames: the keys a frame's items were pushed under, and the reorder `finish` does
//! before planning, so that the frame is planned exactly as if its items had been pushed in
//! key order (stable). Arrays never break a draw on texture, so a sorted frame of one draw
//! state is still one draw.

use super::Batcher;
use crate::ladder::PREPLACED;
use crate::plan::{Corner, FlushCause, Instance};
use crate::sort::{stable_order, SortKey, SortScratch};

/// A frame with at least this many quads per key change is ordered by its runs of one key
/// (each a block of instances) instead of quad by quad.
const RUN_SORT_MIN_QUADS: usize = 16;

/// A frame's sort keys and the scratch of its reorder, reused frame to frame.
#[derive(Debug, Default)]
pub(super) struct FrameSort {
    /// A key was set in the open frame: `finish` sorts it.
    active: bool,
    /// The key items pushed now get.
    key: SortKey,
    /// Where the key changed: `(first instance, key)`, ascending. Instances before the first
    /// mark have [`SortKey::default`].
    key_marks: Vec<(u32, SortKey)>,
    /// Explicit flushes: `(instances before it, key, submission order among marks)`.
    flushes: Vec<(u32, SortKey, u32)>,
    /// The key of each resident draw, in the order of the draws, with its submission order
    /// among marks.
    resident_keys: Vec<(SortKey, u32)>,
    /// Flushes and resident draws noted in the open frame.
    marks_noted: u32,
    // Scratch.
    keys: Vec<u64>,
    order: Vec<u32>,
    radix: SortScratch,
    runs: Vec<(SortKey, u32, u32)>,
    arrays: Vec<u32>,
    states: Vec<u32>,
    triangle_of: Vec<u32>,
    marks: Vec<Mark>,
    instances: Vec<Instance>,
    triangles: Vec<[Corner; 3]>,
    drawn: Vec<super::residents::Drawn>,
}

/// A flush or a resident draw, placed among the sorted instances.
#[derive(Clone, Copy, Debug)]
struct Mark {
    key: SortKey,
    /// Instances pushed before it.
    at: u32,
    /// Submission order among marks.
    seq: u32,
    /// Index into the resident draws, or `None` for an explicit flush.
    resident: Option<u32>,
}

impl FrameSort {
    /// A new frame: painter's order until a key is set.
    pub(super) fn open(&mut self) {
        self.active = false;
        self.key = SortKey::default();
        self.key_marks.clear();
        self.flushes.clear();
        self.resident_keys.clear();
        self.marks_noted = 0;
    }

    /// Items from instance `at` on get `key`.
    /// The key quads pushed now get.
    pub(super) fn key(&self) -> SortKey {
        self.key
    }

    pub(super) fn set(&mut self, at: u32, key: SortKey) {
        self.active = true;
        if key == self.key && !self.key_marks.is_empty() {
            return;
        }
        self.key = key;
        match self.key_marks.last_mut() {
            Some(m) if m.0 == at => m.1 = key,
            _ => self.key_marks.push((at, key)),
        }
    }

    /// A part's key marks (ascending, none repeating the key before it), its quads starting
    /// at instance `start`; then `end` for the quads after it.
    pub(super) fn append_marks(&mut self, start: u32, marks: &[(u32, SortKey)], end: (u32, SortKey)) {
        self.active = true;
        if let Some((&(at, key), rest)) = marks.split_first() {
            self.set(start + at, key);
            self.key_marks.extend(rest.iter().map(|&(at, key)| (start + at, key)));
            if let Some(&(_, last)) = rest.last() {
                self.key = last;
            }
        }
        self.set(end.0, end.1);
    }

    /// An explicit flush after `at` instances.
    pub(super) fn note_flush(&mut self, at: u32) {
        self.flushes.push((at, self.key, self.marks_noted));
        self.marks_noted += 1;
    }

    /// A resident draw, the next in order.
    pub(super) fn note_resident(&mut self) {
        self.resident_keys.push((self.key, self.marks_noted));
        self.marks_noted += 1;
    }
}

impl Batcher {
    pub(crate) fn set_sort_key(&mut self, key: SortKey) {
        if self.recorder.open {
            let at = self.recorder.instances.len() as u32;
            self.recorder.sort.set(at, key);
        }
    }

    pub(crate) fn sort_key(&self) -> SortKey {
        self.recorder.sort.key
    }

    /// In `finish`, after the recorder closed: puts a sorted frame's instances, their arrays,
    /// triangles, draw states, flushes and resident draws in key order, as if pushed so.
    /// Returns the items sorted (0 for a frame in painter's order).
    pub(super) fn sort_frame(&mut self) -> u64 {
        let r = &mut self.recorder;
        let s = &mut r.sort;
        if !s.active {
            return 0;
        }
        let n = r.instances.len();
        // Each instance's key, from the marks.
        s.keys.clear();
        let mut key = SortKey::default();
        let mut marks = s.key_marks.iter().peekable();
        for i in 0..n as u32 {
            while let Some(&&(at, k)) = marks.peek() {
                if at > i {
                    break;
                }
                key = k;
                marks.next();
            }
            s.keys.push(key.bits());
        }
        // A frame already in key order (layers pushed bottom up) keeps its instances. A frame
        // of few key runs (layers, a HUD) is ordered by its runs, each a block of instances;
        // a key per quad (a y-sort) by the radix sort.
        let in_order = s.keys.windows(2).all(|w| w[0] <= w[1]);
        s.order.clear();
        if in_order {
            s.order.extend(0..n as u32);
        } else if s.key_marks.len() * RUN_SORT_MIN_QUADS <= n {
            s.runs.clear();
            let mut start = 0;
            let mut key = SortKey::default();
            for &(at, k) in &s.key_marks {
                if at > start {
                    s.runs.push((key, start, at));
                }
                (start, key) = (at.max(start), k);
            }
            if (start as usize) < n {
                s.runs.push((key, start, n as u32));
            }
            // Starts are distinct, so runs of one key stay in order (and no buffer is allocated).
            s.runs.sort_unstable_by_key(|r| (r.0, r.1));
            for &(_, start, end) in &s.runs {
                s.order.extend(start..end);
            }
        } else {
            stable_order(&s.keys, &mut s.order, &mut s.radix);
        }

        // The arrays recorded for the quads after the leading run whose slots were known at
        // push (that run's quads keep their slots: re-recorded below from the instances).
        let base = r.prefix.len();
        s.arrays.clear();
        s.arrays.append(&mut r.quad_arrays);
        // Each instance's draw state, when the frame has several.
        s.states.clear();
        if r.state_marks.len() > 1 {
            for (j, &(at, index)) in r.state_marks.iter().enumerate() {
                let end = r.state_marks.get(j + 1).map_or(n, |m| m.0 as usize);
                s.states.resize(end.max(at as usize), index);
            }
        }
        let only_state = r.state_marks.first().map_or(0, |m| m.1);

        // The reorder of the instances and of the triangles' corners.
        let order = &s.order;
        if !in_order {
            if !r.triangles.is_empty() {
                s.triangle_of.clear();
                let mut t = 0;
                for i in &r.instances {
                    s.triangle_of.push(t);
                    t += u32::from(i.is_triangle());
                }
                s.triangles.clear();
                let triangles = order.iter().filter(|&&i| r.instances[i as usize].is_triangle());
                s.triangles.extend(triangles.map(|&i| r.triangles[s.triangle_of[i as usize] as usize]));
                std::mem::swap(&mut r.triangles, &mut s.triangles);
            }
            s.instances.clear();
            r.instances.gather_into(order, &mut s.instances);
            r.instances.swap_vec(&mut s.instances);
        }

        // Flushes and resident draws: each goes after every instance whose (key, index) is
        // below its own (key, instances pushed before it); in (key, at, submission) order,
        // which keeps those places ascending.
        s.marks.clear();
        s.marks.extend(s.flushes.iter().map(|&(at, key, seq)| Mark { key, at, seq, resident: None }));
        let drawn = &mut self.residents.drawn;
        let residents = s.resident_keys.iter().zip(drawn.iter()).enumerate();
        s.marks.extend(residents.map(|(d, (&(key, seq), &(at, ..)))| Mark { key, at, seq, resident: Some(d as u32) }));
        // `seq` is distinct: an unstable sort gives the one order, with no buffer allocated.
        s.marks.sort_unstable_by_key(|m| (m.key, m.at, m.seq));
        let keys = &s.keys;
        let place = |m: &Mark| order.partition_point(|&i| (keys[i as usize], i) < (m.key.bits(), m.at)) as u32;

        // The frame recorded again in that order: segment boundaries, draw-state runs, the
        // leading run of quads whose slot was known at push (the planner's shortcut), and
        // the arrays of the quads after it, as the recorder would have noted them.
        r.state_marks.clear();
        r.flush_marks.clear();
        r.prefix.reset();
        let units = self.ladder.units();
        let mut last_state = None;
        let mut placed = s.marks.iter().map(|m| (place(m), m.resident)).peekable();
        s.drawn.clear();
        s.drawn.append(drawn);
        for j in 0..=n as u32 {
            let mut cause = None;
            while let Some((_, resident)) = placed.next_if(|&(p, _)| p == j) {
                cause = cause.or(Some(if resident.is_some() { FlushCause::Resident } else { FlushCause::Explicit }));
                if let Some(d) = resident {
                    let (_, id, state, range, grid) = s.drawn[d as usize].clone();
                    drawn.push((j, id, state, range, grid));
                }
            }
            let i = order.get(j as usize).copied();
            let state = i.map(|i| s.states.get(i as usize).copied().unwrap_or(only_state));
            if let Some(state) = state.filter(|&state| last_state != Some(state)) {
                if last_state.is_some() {
                    cause = Some(FlushCause::StateChange);
                }
                r.state_marks.push((j, state));
                last_state = Some(state);
            }
            if let Some(c) = cause.filter(|_| j > 0) {
                r.prefix.flush(j, c);
                r.flush_marks.push((j, c));
            }
            let Some(i) = i else { break };
            let slot = r.instances[j as usize].slot_flags_layer & Instance::SLOT_MASK;
            // A quad of the leading run was in a slot when pushed: the array that slot holds
            // (slots do not change while a frame is recorded).
            let array = match i.checked_sub(base) {
                None => units.get(slot as usize).copied().flatten().map_or(0, |a| a.0) | PREPLACED,
                Some(k) => s.arrays[k as usize],
            };
            if r.prefix.open {
                if array & PREPLACED != 0 {
                    r.prefix.note(j, slot);
                    continue;
                }
                r.prefix.close(j);
            }
            r.quad_arrays.push(array);
        }
        if r.state_marks.is_empty() {
            r.state_marks.push((0, 0));
        }
        (n + s.marks.len()) as u64
    }
}
