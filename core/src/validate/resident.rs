//! The validator's checks of resident layers: their ops, and the segments that draw them.
//!
//! A resident's instances are on the device, so a draw cannot look at them without costing
//! what the resident saves. They are checked when written instead, and the validator keeps,
//! per resident, what each instance samples now (its slot and layer) and, per slot, how many
//! instances sample each layer: a segment drawing the resident must hold an array in each slot
//! sampled now with more layers than the highest sampled now. What an instance sampled before
//! it was written again no longer counts, so core may empty a slot or lower a layer (a table
//! settled anew, a page compacted, an array shrunk) without a plan being refused.

use std::collections::HashMap;

use crate::plan::{ArrayDesc, ArrayId, FramePlan, PlanError, ResidentId, ResidentOp, Segment};
use crate::MAX_SLOTS_PER_DRAW;

/// An instance not written yet: it samples nothing.
const UNWRITTEN: u32 = u32::MAX;

/// What the device holds for one resident layer, as far as plans said.
#[derive(Clone, Debug)]
pub(super) struct ResidentState {
    /// What each instance samples: its slot in the top 5 bits and its layer below
    /// ([`UNWRITTEN`]: nothing yet).
    sampled: Vec<u32>,
    /// Per slot, how many instances sample each layer.
    per_slot: Vec<SlotUse>,
    /// A moving layer: it has a motion texture.
    moving: bool,
    /// Cells of a tile grid layer's cell buffer (0: none).
    cells: u32,
}

/// The instances of one resident sampling one slot.
#[derive(Clone, Debug, Default)]
struct SlotUse {
    /// Instances per layer.
    counts: Vec<u32>,
    /// Instances in all.
    total: u64,
    /// The highest layer with an instance (valid while `total > 0`).
    max_layer: u32,
}

impl SlotUse {
    fn add(&mut self, layer: u32) {
        let l = layer as usize;
        if self.counts.len() <= l {
            self.counts.resize(l + 1, 0);
        }
        self.counts[l] += 1;
        self.max_layer = if self.total == 0 { layer } else { self.max_layer.max(layer) };
        self.total += 1;
    }

    fn remove(&mut self, layer: u32) {
        let Some(c) = self.counts.get_mut(layer as usize).filter(|c| **c > 0) else { return };
        *c -= 1;
        self.total -= 1;
        if self.total > 0 && layer == self.max_layer && *c == 0 {
            self.max_layer = self.counts.iter().rposition(|&c| c > 0).unwrap_or(0) as u32;
        }
    }
}

impl ResidentState {
    fn new(len: u32, moving: bool, cells: u32) -> Self {
        let per_slot = vec![SlotUse::default(); MAX_SLOTS_PER_DRAW as usize];
        Self { sampled: vec![UNWRITTEN; len as usize], per_slot, moving, cells }
    }

    fn len(&self) -> u32 {
        self.sampled.len() as u32
    }

    /// Instance `index` samples `packed` (a slot and layer, or [`UNWRITTEN`]) from now on;
    /// returns what it sampled before.
    fn set(&mut self, index: usize, packed: u32) -> u32 {
        let old = self.sampled[index];
        if old != UNWRITTEN {
            self.per_slot[(old >> 27) as usize].remove(old & LAYER_MASK);
        }
        self.sampled[index] = packed;
        if packed != UNWRITTEN {
            self.per_slot[(packed >> 27) as usize].add(packed & LAYER_MASK);
        }
        old
    }
}

/// How to take back what a refused plan's resident ops did to the validator's state: applied
/// in place (a layer holds a word per instance: copying every touched layer for each plan
/// would cost megabytes a frame), undone in reverse order when the plan is refused.
#[derive(Clone, Debug)]
pub(super) enum Undo {
    Created(ResidentId),
    Destroyed(ResidentId, ResidentState),
    Wrote { resident: ResidentId, index: u32, old: u32 },
}

/// Takes back `undo` (in reverse order) from `residents`.
pub(super) fn roll_back(residents: &mut HashMap<ResidentId, ResidentState>, undo: &mut Vec<Undo>) {
    while let Some(u) = undo.pop() {
        match u {
            Undo::Created(id) => {
                residents.remove(&id);
            }
            Undo::Destroyed(id, state) => {
                residents.insert(id, state);
            }
            Undo::Wrote { resident, index, old } => {
                if let Some(state) = residents.get_mut(&resident) {
                    state.set(index as usize, old);
                }
            }
        }
    }
}

/// The layer bits of a packed sample (slots are below 32, layers below 2^27).
const LAYER_MASK: u32 = (1 << 27) - 1;

/// The limits a resident op is checked against.
pub(super) struct ResidentLimits {
    /// The budget's slots.
    pub(super) slots: u32,
    /// The most layers an array may have.
    pub(super) max_layers: u32,
    /// The budget's bytes: no resident buffer is larger (core holds them against it).
    pub(super) budget_bytes: u64,
    /// The largest texture side: a motion texture has at most this many rows.
    pub(super) max_texture_px: u32,
    /// The budget's `indexed_quads`: how every resident is stored and drawn.
    pub(super) indexed_quads: bool,
    /// Effects the budget declares.
    pub(super) effects: u32,
    /// Whether the budget has lights.
    pub(super) lights: bool,
    /// The budget's largest cell buffer ([`crate::Budget::max_cell_bytes`]).
    pub(super) max_cell_bytes: u64,
}

/// Checks resident op `op` (at index `at` of the plan's ops) and applies it to `residents`,
/// noting in `undo` how to take it back.
pub(super) fn check_op(
    limits: &ResidentLimits,
    plan: &FramePlan,
    at: usize,
    op: &ResidentOp,
    (residents, undo): (&mut HashMap<ResidentId, ResidentState>, &mut Vec<Undo>),
) -> Result<(), PlanError> {
    match op {
        ResidentOp::Create { resident, instances, indexed, moving, cells } => {
            let bad = |reason| Err(PlanError::BadResident { at, resident: *resident, reason });
            if residents.contains_key(resident) {
                return bad("created again while the device holds it");
            }
            if *instances == 0 {
                return bad("created empty");
            }
            if *indexed != limits.indexed_quads {
                return bad("created with another vertex layout than the budget's");
            }
            if u64::from(*instances) * u64::from(crate::plan::Instance::quad_bytes(*indexed)) > limits.budget_bytes {
                return bad("created larger than the byte budget");
            }
            if *moving && crate::motion_texture_size(*instances)[1] > limits.max_texture_px {
                return bad("created moving with a motion texture taller than the device's largest texture");
            }
            if u64::from(*cells) * 4 > limits.max_cell_bytes {
                return bad("created with a cell buffer the budget's GPU culling cannot bind");
            }
            if *cells > 0 && *moving {
                return bad("created moving with a cell buffer");
            }
            residents.insert(*resident, ResidentState::new(*instances, *moving, *cells));
            undo.push(Undo::Created(*resident));
        }
        ResidentOp::Write { resident, first, instances } => {
            let state = residents.get_mut(resident).ok_or(PlanError::UnknownResident { at, resident: *resident })?;
            let count = instances.end.saturating_sub(instances.start);
            let end = u64::from(*first) + u64::from(count);
            let in_plan = instances.start <= instances.end && instances.end as usize <= plan.resident_instances.len();
            if !in_plan || count == 0 || end > u64::from(state.len()) {
                return Err(PlanError::ResidentRange {
                    at,
                    resident: *resident,
                    start: *first,
                    end: end.min(u64::from(u32::MAX)) as u32,
                    len: state.len(),
                    available: plan.resident_instances.len(),
                });
            }
            for (k, i) in plan.resident_write_instances(op).iter().enumerate() {
                let (slot, layer) = (i.slot(), i.layer());
                let bad = |reason| Err(PlanError::ResidentInstance { at, resident: *resident, slot, reason });
                if i.is_triangle() {
                    return bad("holds a triangle");
                }
                if slot >= limits.slots {
                    return bad("samples a slot past the budget's");
                }
                if layer >= limits.max_layers {
                    return bad("samples a layer past the most an array has");
                }
                if !super::effect_bits_ok(i.effect, limits.effects, limits.lights) {
                    return bad("draws with an effect the budget does not declare");
                }
                if slot >= MAX_SLOTS_PER_DRAW || layer > LAYER_MASK {
                    return bad("samples a slot or layer past what a draw can bind");
                }
                let index = *first + k as u32;
                let old = state.set(index as usize, slot << 27 | layer);
                undo.push(Undo::Wrote { resident: *resident, index, old });
            }
        }
        ResidentOp::WriteCells { resident, first, cells } => {
            let state = residents.get(resident).ok_or(PlanError::UnknownResident { at, resident: *resident })?;
            let count = cells.end.saturating_sub(cells.start);
            let end = u64::from(*first) + u64::from(count);
            let in_plan = cells.start <= cells.end && cells.end as usize <= plan.cells.len();
            if !in_plan || count == 0 || end > u64::from(state.cells) {
                return Err(PlanError::CellRange {
                    at,
                    resident: *resident,
                    start: *first,
                    end: end.min(u64::from(u32::MAX)) as u32,
                    len: state.cells,
                    available: plan.cells.len(),
                });
            }
        }
        ResidentOp::Move { resident, first, motions } => {
            let state = residents.get(resident).ok_or(PlanError::UnknownResident { at, resident: *resident })?;
            if !state.moving {
                return Err(PlanError::BadResident {
                    at,
                    resident: *resident,
                    reason: "moved without a motion texture",
                });
            }
            let count = motions.end.saturating_sub(motions.start);
            let end = u64::from(*first) + u64::from(count);
            let in_plan = motions.start <= motions.end && motions.end as usize <= plan.motions.len();
            if !in_plan || count == 0 || end > u64::from(state.len()) {
                return Err(PlanError::MotionRange {
                    at,
                    resident: *resident,
                    start: *first,
                    end: end.min(u64::from(u32::MAX)) as u32,
                    len: state.len(),
                    available: plan.motions.len(),
                });
            }
        }
        ResidentOp::Destroy { resident } => {
            let state = residents.remove(resident).ok_or(PlanError::UnknownResident { at, resident: *resident })?;
            undo.push(Undo::Destroyed(*resident, state));
        }
    }
    Ok(())
}

/// Checks that grid draw `grid` of segment `at` fits one draw of the budget's culling pass:
/// its tiles' instances within `max_cell_bytes` (a storage binding), its sides within
/// [`GridDraw::MAX_SIDE_CELLS`](crate::plan::GridDraw::MAX_SIDE_CELLS).
pub(super) fn check_grid_size(at: usize, grid: crate::plan::GridDraw, max_cell_bytes: u64) -> Result<(), PlanError> {
    let [x0, y0, x1, y1] = grid.cells;
    let side = crate::plan::GridDraw::MAX_SIDE_CELLS;
    let bytes = grid.cell_count().saturating_mul(u64::from(crate::plan::Instance::BYTES));
    if bytes > max_cell_bytes || x1.saturating_sub(x0) > side || y1.saturating_sub(y0) > side {
        let reason = "its cells are more than one culling pass draws (Budget::max_cell_bytes, MAX_SIDE_CELLS)";
        return Err(PlanError::BadGrid { segment: at, grid, cells: 0, reason });
    }
    Ok(())
}

/// Checks grid draw `grid` of segment `at`, drawing a layer of `cells` cells.
pub(super) fn check_grid(at: usize, grid: crate::plan::GridDraw, cells: u32) -> Result<(), PlanError> {
    let bad = |reason| Err(PlanError::BadGrid { segment: at, grid, cells, reason });
    let [x0, y0, x1, y1] = grid.cells;
    if cells == 0 {
        return bad("the layer has no cells");
    }
    if grid.width == 0 || cells % grid.width != 0 {
        return bad("its width does not divide the layer's cells");
    }
    if x0 >= x1 || y0 >= y1 || x1 > grid.width || y1 > cells / grid.width {
        return bad("its cells are empty or outside the grid");
    }
    if !grid.tile_px.is_finite() || grid.tile_px <= 0.0 {
        return bad("its tile size is not a positive number");
    }
    Ok(())
}

/// Checks segment `at`, which draws `resident`: its range, and that its slot table holds
/// every slot the resident's instances sample with enough layers. Its tier, state and table
/// range were checked by the caller.
pub(super) fn check_segment(
    plan: &FramePlan,
    at: usize,
    seg: &Segment,
    resident: ResidentId,
    (span, arrays): (u32, &HashMap<ArrayId, ArrayDesc>),
    residents: &HashMap<ResidentId, ResidentState>,
) -> Result<(), PlanError> {
    let state = residents.get(&resident).ok_or(PlanError::BadResident {
        at,
        resident,
        reason: "drawn while the device holds no such resident",
    })?;
    let r = &seg.instances;
    // `end > start` first: an empty range has no last instance.
    let crosses =
        |r: &std::ops::Range<u32>| u64::from(r.start) / u64::from(span) != (u64::from(r.end) - 1) / u64::from(span);
    if r.end <= r.start || r.end > state.len() || crosses(r) {
        return Err(PlanError::ResidentRange {
            at,
            resident,
            start: r.start,
            end: r.end,
            len: state.len(),
            available: plan.resident_instances.len(),
        });
    }
    if !seg.binds.is_empty() {
        return Err(PlanError::BadResident { at, resident, reason: "drawn by a segment with binds" });
    }
    if let Some(grid) = seg.grid {
        check_grid(at, grid, state.cells)?;
    }
    let table = plan.slots(seg);
    for (slot, used) in (0..MAX_SLOTS_PER_DRAW).zip(&state.per_slot) {
        if used.total == 0 {
            continue;
        }
        let bad = |reason| Err(PlanError::ResidentInstance { at, resident, slot, reason });
        let Some(Some(array)) = table.get(slot as usize) else {
            return bad("is drawn with a slot its instances sample left empty");
        };
        let desc = arrays.get(array).ok_or(PlanError::UnknownArray { at, array: *array })?;
        if used.max_layer >= desc.layers {
            return bad("samples a layer past the last of the array in the slot");
        }
    }
    Ok(())
}
