//! The one plan validator. Every executor calls [`PlanValidator::check`] before it touches a
//! device, so a plan that could not run is refused whole, with the same error everywhere.

use std::collections::HashMap;

use self::resident::{ResidentLimits, ResidentState};
use crate::plan::{
    ArrayDesc, ArrayId, ArrayOp, FramePlan, HostAccess, Instance, PlanError, ResidentId, ResourceOp, Segment,
};

mod resident;
use crate::texture::{max_mip_levels, mip_size};
use crate::Budget;

/// What a device holds, as far as plans are concerned: its arrays, its slot bindings, and the
/// number of the last plan it executed. Every executor owns one and calls
/// [`PlanValidator::check`] first; on `Ok` the validator has moved to the state after the
/// plan, on `Err` it is unchanged.
///
/// ```
/// use layerbatch_core::{Batcher, Config, Limits, PlanError};
/// use layerbatch_core::validate::PlanValidator;
/// let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default())?;
/// let mut validator = PlanValidator::new(batcher.budget());
/// batcher.begin_frame();
/// validator.check(batcher.finish())?;
/// // The same plan again is refused, and changes nothing.
/// assert_eq!(validator.check(batcher.plan()), Err(PlanError::Sequence { expected: 2, got: 1 }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct PlanValidator {
    tiers: Vec<u32>,
    slots: u32,
    instance_capacity: u32,
    max_layers: u32,
    max_texture_px: u32,
    avoid_ambiguous: bool,
    format_families: crate::FormatFamilies,
    compressed_copies: bool,
    /// See [`Budget::host_texture_views`].
    host_views: bool,
    indexed_quads: bool,
    max_cell_bytes: u64,
    budget_bytes: u64,
    /// Effects the budget declares: an instance's effect id is at most this.
    pub(super) effects: u32,
    /// Lights a plan may hold ([`Budget::max_lights`]); above 0, instances may set
    /// [`Instance::EFFECT_LIT`].
    pub(super) lights: u32,
    /// The budget has a ramp ([`Budget::ramp`]): plans may write its rows.
    ramp: bool,
    arrays: HashMap<ArrayId, ArrayDesc>,
    bound: Vec<Option<ArrayId>>,
    residents: HashMap<ResidentId, ResidentState>,
    last_sequence: u64,
    /// The batcher whose plans were accepted ([`FramePlan::batcher`]); `None` while fresh.
    batcher: Option<u32>,
    // Scratch for checking ops against a copy of the state, so a refused plan changes nothing.
    scratch_arrays: HashMap<ArrayId, ArrayDesc>,
    scratch_bound: Vec<Option<ArrayId>>,
    scratch_residents: HashMap<ResidentId, ResidentState>,
    /// How to take back a refused plan's resident ops (reused).
    undo: Vec<resident::Undo>,
}

/// The plan's target, if any: a render-target layer that no segment samples.
fn check_target(plan: &FramePlan, arrays: &HashMap<ArrayId, ArrayDesc>) -> Result<(), PlanError> {
    let Some(t) = plan.target else { return Ok(()) };
    let bad = |reason| Err(PlanError::BadTarget { array: t.array, layer: t.layer, reason });
    let Some(d) = arrays.get(&t.array) else { return bad("the device holds no such array") };
    if !d.render_target {
        return bad("not a render-target array");
    }
    if t.layer >= d.layers {
        return bad("the layer is past the array's last");
    }
    if t.size_px[0] == 0 || t.size_px[1] == 0 || t.size_px[0] > d.width_px || t.size_px[1] > d.height_px {
        return bad("its size is empty or larger than the array's layers");
    }
    if plan.slot_tables.contains(&Some(t.array)) {
        return bad("a segment samples the array the plan draws into");
    }
    Ok(())
}

impl PlanValidator {
    /// A validator for a fresh device executing plans of `budget`'s batcher. It expects plan
    /// 1, or a rebuild plan.
    pub fn new(budget: &Budget) -> Self {
        // A budget edited past the slot ceiling ([`Budget::check`] refuses it) gets only the
        // tiers an executor can honour: no plan can then name a slot past the ceiling.
        let slots = budget.slots.min(crate::MAX_SLOTS_PER_DRAW);
        Self {
            tiers: budget.tiers.iter().copied().filter(|t| (1..=slots).contains(t)).collect(),
            slots,
            instance_capacity: budget.instance_capacity,
            max_layers: budget.max_layers_per_array.max(2),
            max_texture_px: budget.max_texture_size_px,
            avoid_ambiguous: budget.avoid_ambiguous_layer_counts,
            format_families: budget.format_families,
            compressed_copies: budget.compressed_copies,
            host_views: budget.host_texture_views,
            indexed_quads: budget.indexed_quads,
            max_cell_bytes: budget.max_cell_bytes,
            budget_bytes: budget.budget_bytes,
            effects: budget.effects.len() as u32,
            lights: budget.max_lights,
            ramp: budget.ramp(),
            arrays: HashMap::new(),
            bound: vec![None; slots as usize],
            residents: HashMap::new(),
            last_sequence: 0,
            batcher: None,
            scratch_arrays: HashMap::new(),
            scratch_bound: Vec::new(),
            scratch_residents: HashMap::new(),
            undo: Vec::new(),
        }
    }

    /// The arrays the device holds after the last accepted plan.
    pub fn array(&self, id: ArrayId) -> Option<&ArrayDesc> {
        self.arrays.get(&id)
    }
    /// How many arrays the device holds.
    pub fn array_count(&self) -> usize {
        self.arrays.len()
    }
    /// The array each slot holds after the last accepted plan.
    pub fn bound(&self) -> &[Option<ArrayId>] {
        &self.bound
    }
    /// The number of the last plan accepted (0 for none).
    pub fn last_sequence(&self) -> u64 {
        self.last_sequence
    }

    /// Checks `plan` against the device state and, if it can run, moves to the state after
    /// it. Costs one pass over the ops and one over the instances (a few ns per quad).
    ///
    /// # Errors
    /// The first [`PlanError`] found; then nothing changed.
    pub fn check(&mut self, plan: &FramePlan) -> Result<(), PlanError> {
        // No plan is numbered u64::MAX (a batcher would need 2^64 frames): refusing it keeps
        // `expected` from overflowing.
        let expected = self.last_sequence.saturating_add(1);
        if self.last_sequence == 0 && !plan.rebuild && plan.sequence != 1 {
            return Err(PlanError::NeedsRebuild { got: plan.sequence });
        }
        let in_order = plan.sequence == expected || (plan.rebuild && plan.sequence > self.last_sequence);
        if !in_order || plan.sequence == u64::MAX {
            return Err(PlanError::Sequence { expected, got: plan.sequence });
        }
        match self.batcher {
            Some(expected) if expected != plan.batcher && !plan.rebuild => {
                return Err(PlanError::ForeignPlan { expected, got: plan.batcher, sequence: plan.sequence });
            }
            _ => {}
        }
        if plan.instance_capacity != self.instance_capacity {
            return Err(PlanError::InstanceCapacity { expected: self.instance_capacity, got: plan.instance_capacity });
        }
        self.check_lights(plan)?;
        self.check_ramp(plan)?;
        // Work on scratch copies only when the plan changes the state; most frames do not.
        let needs_copy = plan.rebuild || !plan.ops.is_empty() || !plan.binds.is_empty();
        if needs_copy {
            self.scratch_arrays.clone_from(&self.arrays);
            self.scratch_bound.clone_from(&self.bound);
            // Resident states hold a word per instance: changed in place, and taken back from
            // the undo log if the plan is refused. A rebuild plan starts from none; the old ones
            // are kept aside until it is accepted.
            let mut old_residents = None;
            let mut residents = std::mem::take(&mut self.residents);
            if plan.rebuild {
                self.scratch_arrays.clear();
                self.scratch_bound.iter_mut().for_each(|b| *b = None);
                let mut fresh = std::mem::take(&mut self.scratch_residents);
                fresh.clear();
                old_residents = Some(std::mem::replace(&mut residents, fresh));
            }
            let mut arrays = std::mem::take(&mut self.scratch_arrays);
            let mut bound = std::mem::take(&mut self.scratch_bound);
            let mut undo = std::mem::take(&mut self.undo);
            let result = self
                .check_ops(plan, &mut arrays, &mut bound, (&mut residents, &mut undo))
                .and_then(|()| self.check_segments(plan, &arrays, &mut bound, &residents))
                .and_then(|()| check_target(plan, &arrays));
            match result {
                Ok(()) => {
                    undo.clear();
                    self.undo = undo;
                    self.scratch_arrays = std::mem::replace(&mut self.arrays, arrays);
                    self.scratch_bound = std::mem::replace(&mut self.bound, bound);
                    self.residents = residents;
                    if let Some(mut old) = old_residents {
                        old.clear();
                        self.scratch_residents = old;
                    }
                }
                Err(e) => {
                    resident::roll_back(&mut residents, &mut undo);
                    self.undo = undo;
                    self.scratch_arrays = arrays;
                    self.scratch_bound = bound;
                    match old_residents {
                        Some(old) => {
                            residents.clear();
                            self.scratch_residents = residents;
                            self.residents = old;
                        }
                        None => self.residents = residents,
                    }
                    return Err(e);
                }
            }
        } else {
            let mut bound = std::mem::take(&mut self.bound);
            let result = self
                .check_segments(plan, &self.arrays, &mut bound, &self.residents)
                .and_then(|()| check_target(plan, &self.arrays));
            self.bound = bound;
            result?;
        }
        self.last_sequence = plan.sequence;
        self.batcher = Some(plan.batcher);
        Ok(())
    }

    /// The device was lost or replaced, or its executor dropped what it held after an error:
    /// forget every array and binding. The next plan must be a rebuild plan
    /// ([`crate::Batcher::restore`]) or a new batcher's first; any other gets
    /// [`PlanError::NeedsRebuild`].
    pub fn reset(&mut self) {
        self.arrays.clear();
        self.residents.clear();
        self.bound.iter_mut().for_each(|b| *b = None);
        self.last_sequence = 0;
        self.batcher = None;
    }

    fn check_desc(&self, op: usize, array: ArrayId, d: &ArrayDesc) -> Result<(), PlanError> {
        let bad = |reason| Err(PlanError::BadArray { op, array, reason });
        if d.width_px == 0 || d.height_px == 0 || d.layers == 0 || d.mip_levels == 0 {
            return bad("a zero width, height, layer count or level count");
        }
        if d.width_px > self.max_texture_px || d.height_px > self.max_texture_px {
            return bad("wider or taller than the budget's max_texture_size_px");
        }
        if d.mip_levels > max_mip_levels(d.width_px, d.height_px) {
            return bad("more mip levels than its size has");
        }
        if d.layers > self.max_layers {
            return bad("more layers than the budget's max_layers_per_array");
        }
        if self.avoid_ambiguous && (d.layers == 1 || d.layers % 6 == 0) {
            return bad("1 layer or a multiple of 6, which this device reads as a 2D or cube texture");
        }
        if !self.format_families.contains(d.format.family()) {
            return bad("a format whose family the budget's device lacks");
        }
        if !d.format.on_block([d.width_px, d.height_px]) {
            return bad("a compressed array whose width or height is not whole blocks");
        }
        if d.render_target && d.format.is_compressed() {
            return bad("a compressed render target");
        }
        if array.0 & ArrayId::NORMAL_MAP_BIT != 0 {
            return bad("an id with ArrayId::NORMAL_MAP_BIT, which names normal-map siblings");
        }
        if d.normal_map && (self.lights == 0 || d.format.is_compressed() || d.render_target) {
            return bad("a normal-map sibling on a budget without lights, a compressed array or a render target");
        }
        match d.host {
            Some(_) if d.mip_levels != 1 || d.format.is_compressed() || d.render_target || d.normal_map => {
                bad("a host texture's array with mip levels, a compressed format, a render target or a normal map")
            }
            Some(HostAccess::View) if d.layers != 1 => bad("a host texture's view of more than one layer"),
            Some(HostAccess::View) if !self.host_views => bad("a host texture's view on a device that copies them"),
            _ => Ok(()),
        }
    }

    fn check_ops(
        &self,
        plan: &FramePlan,
        arrays: &mut HashMap<ArrayId, ArrayDesc>,
        bound: &mut [Option<ArrayId>],
        (residents, undo): (&mut HashMap<ResidentId, ResidentState>, &mut Vec<resident::Undo>),
    ) -> Result<(), PlanError> {
        let limits = ResidentLimits {
            slots: self.slots,
            max_layers: self.max_layers.min(Instance::MAX_LAYERS),
            budget_bytes: self.budget_bytes,
            max_texture_px: self.max_texture_px,
            indexed_quads: self.indexed_quads,
            max_cell_bytes: self.max_cell_bytes,
            effects: self.effects,
            lights: self.lights > 0,
        };
        let unbind = |bound: &mut [Option<ArrayId>], a: ArrayId| {
            for b in bound.iter_mut().filter(|b| **b == Some(a)) {
                *b = None;
            }
        };
        // Host textures' views made by the plan and not yet given their contents.
        let mut unfilled: Vec<ArrayId> = Vec::new();
        for (i, op) in plan.ops.iter().enumerate() {
            match op {
                ResourceOp::Array(ArrayOp::Create { array, desc }) => {
                    if arrays.contains_key(array) {
                        return Err(PlanError::ArrayExists { op: i, array: *array });
                    }
                    self.check_desc(i, *array, desc)?;
                    arrays.insert(*array, *desc);
                    if desc.host == Some(HostAccess::View) {
                        unfilled.push(*array);
                    }
                }
                ResourceOp::Array(ArrayOp::HostContents { array, .. }) => {
                    let d = arrays.get(array).ok_or(PlanError::UnknownArray { at: i, array: *array })?;
                    if d.host.is_none() {
                        return Err(PlanError::BadHost { op: i, array: *array, reason: "not a host texture's array" });
                    }
                    unfilled.retain(|a| a != array);
                }
                ResourceOp::Array(
                    op @ (ArrayOp::Grow { from, to, desc, copy_layers }
                    | ArrayOp::Shrink { from, to, desc, copy_layers }),
                ) => {
                    let old = *arrays.get(from).ok_or(PlanError::UnknownArray { at: i, array: *from })?;
                    if arrays.contains_key(to) {
                        return Err(PlanError::ArrayExists { op: i, array: *to });
                    }
                    self.check_desc(i, *to, desc)?;
                    let bad = |reason| Err(PlanError::BadGrow { op: i, from: *from, to: *to, reason });
                    if old.host.is_some() {
                        return bad("a host texture's array (it is resized by a new array)");
                    }
                    let same =
                        ArrayDesc { layers: old.layers, width_px: old.width_px, height_px: old.height_px, ..*desc };
                    if same != old {
                        return bad("the new array differs from the old in more than its size and layer count");
                    }
                    let grow = matches!(op, ArrayOp::Grow { .. });
                    if grow
                        && (desc.width_px < old.width_px || desc.height_px < old.height_px || desc.layers < old.layers)
                    {
                        return bad("a growth to a smaller array");
                    }
                    if !grow
                        && (desc.width_px != old.width_px
                            || desc.height_px != old.height_px
                            || desc.layers >= old.layers)
                    {
                        return bad("a shrink that does not only drop layers");
                    }
                    if *copy_layers > old.layers || *copy_layers > desc.layers {
                        return bad("copies more layers than one of the arrays has");
                    }
                    if old.format.is_compressed() && !self.compressed_copies {
                        return bad("a copy of compressed texels on a device that cannot copy them");
                    }
                    arrays.remove(from);
                    unbind(bound, *from);
                    arrays.insert(*to, *desc);
                }
                ResourceOp::Array(ArrayOp::CopyRect { from, from_layer, from_xy, to, to_layer, to_xy, size }) => {
                    let src = arrays.get(from).ok_or(PlanError::UnknownArray { at: i, array: *from })?;
                    let dst = arrays.get(to).ok_or(PlanError::UnknownArray { at: i, array: *to })?;
                    let bad = |reason| Err(PlanError::BadCopy { op: i, array: *from, reason });
                    if src.host.is_some() || dst.host.is_some() {
                        return bad("a rectangle copy from or into a host texture's array");
                    }
                    if src.mip_levels != 1 || dst.mip_levels != 1 || src.format != dst.format {
                        return bad("rectangle copies are between one-level arrays of one format");
                    }
                    if from == to && from_layer == to_layer {
                        return bad("a copy within one layer");
                    }
                    if *from_layer >= src.layers || *to_layer >= dst.layers {
                        return bad("a layer past the array's last");
                    }
                    let fits = |[x, y]: [u32; 2], d: &ArrayDesc| {
                        u64::from(x) + u64::from(size[0]) <= u64::from(d.width_px)
                            && u64::from(y) + u64::from(size[1]) <= u64::from(d.height_px)
                    };
                    if size[0] == 0 || size[1] == 0 || !fits(*from_xy, src) || !fits(*to_xy, dst) {
                        return bad("an empty rectangle, or one reaching past the layer's edge");
                    }
                    let f = src.format;
                    if !f.on_block(*from_xy) || !f.on_block(*to_xy) || !f.on_block(*size) {
                        return bad("a compressed rectangle not in whole blocks");
                    }
                    if src.format.is_compressed() && !self.compressed_copies {
                        return bad("a copy of compressed texels on a device that cannot copy them");
                    }
                }
                ResourceOp::Array(ArrayOp::Destroy { array }) => {
                    arrays.remove(array).ok_or(PlanError::UnknownArray { at: i, array: *array })?;
                    unbind(bound, *array);
                    unfilled.retain(|a| a != array);
                }
                ResourceOp::Resident(op) => resident::check_op(&limits, plan, i, op, (residents, undo))?,
                ResourceOp::WriteLayer {
                    array,
                    layer,
                    x_px,
                    y_px,
                    width_px,
                    height_px,
                    mip_levels,
                    bytes,
                    normal_map,
                    ..
                } => {
                    let d = arrays.get(array).ok_or(PlanError::UnknownArray { at: i, array: *array })?;
                    let bad = |reason| Err(PlanError::WriteOutOfBounds { op: i, array: *array, layer: *layer, reason });
                    if *normal_map && !d.normal_map {
                        return bad("a normal map for an array without a normal-map sibling");
                    }
                    if d.host.is_some() {
                        return bad("a write from the CPU into a host texture's array");
                    }
                    // A normal map's sibling is RGBA8 whatever the array's format.
                    let format = if *normal_map { crate::Format::Rgba8Unorm } else { d.format };
                    if *layer >= d.layers {
                        return bad("the layer is past the array's last");
                    }
                    if *width_px == 0 || *height_px == 0 {
                        return bad("an empty rectangle");
                    }
                    if *mip_levels != d.mip_levels {
                        return bad("a level count other than the array's");
                    }
                    // Every level's rectangle inside that level (executors write each level at
                    // its own offset and size: `ResourceOp::levels`).
                    // Compressed: whole blocks, so each level's rectangle starts on a block
                    // and its data's extent (rounded up to blocks) stays in the level's blocks.
                    let f = format;
                    for level in 0..*mip_levels {
                        let (lw, lh) = mip_size(d.width_px, d.height_px, level);
                        let [lw, lh] = f.round_up_px([lw, lh]);
                        let (w, h) = mip_size(*width_px, *height_px, level);
                        let [w, h] = f.round_up_px([w, h]);
                        if !f.on_block([*x_px >> level, *y_px >> level]) {
                            return bad("a compressed rectangle that does not start on a block");
                        }
                        let right = u64::from(*x_px >> level) + u64::from(w);
                        let bottom = u64::from(*y_px >> level) + u64::from(h);
                        if right > u64::from(lw) || bottom > u64::from(lh) {
                            return bad(if level == 0 {
                                "the rectangle reaches past the layer's edge"
                            } else {
                                "the rectangle of a level above 0 reaches past that level's edge"
                            });
                        }
                    }
                    let expected = crate::texture::mip_chain_bytes(*width_px, *height_px, *mip_levels, format);
                    let fits = bytes.start <= bytes.end && bytes.end <= plan.upload_bytes.len();
                    if !fits || bytes.len() as u64 != expected {
                        return Err(PlanError::UploadBytes {
                            op: i,
                            start: bytes.start,
                            end: bytes.end,
                            available: plan.upload_bytes.len(),
                            expected,
                        });
                    }
                }
            }
        }
        if let Some(&array) = unfilled.first() {
            return Err(PlanError::BadHost {
                op: plan.ops.len(),
                array,
                reason: "a host texture's view made without its contents",
            });
        }
        Ok(())
    }

    /// A segment's tier, draw state and slot-table ranges, whatever it draws.
    fn check_segment_common(&self, plan: &FramePlan, si: usize, seg: &Segment) -> Result<(), PlanError> {
        if !self.tiers.contains(&seg.tier) {
            return Err(PlanError::UnknownTier { segment: si, tier: seg.tier });
        }
        let state = plan.states.get(seg.state as usize);
        let state_ok = match state {
            Some(st) => {
                st.transform.iter().chain(&st.tint).all(|v| v.is_finite())
                    && effect_bits_ok(st.look, self.effects, self.lights > 0)
            }
            None => plan.states.is_empty() && seg.state == 0,
        };
        if !state_ok {
            return Err(PlanError::BadState { segment: si, state: seg.state });
        }
        let table_ok = seg.slots.start <= seg.slots.end
            && seg.slots.end as usize <= plan.slot_tables.len()
            && seg.slots.len() == seg.tier as usize;
        let binds_ok = seg.binds.start <= seg.binds.end && seg.binds.end as usize <= plan.binds.len();
        if !table_ok || !binds_ok {
            return Err(PlanError::SlotTable { segment: si });
        }
        // An effect program exists only with declared effects; a state whose look has an
        // effect (a resident layer drawn under one) needs it.
        let look_effect = state.is_some_and(|s| s.look & Instance::EFFECT_MASK != 0);
        if (seg.effects && self.effects == 0) || (look_effect && !seg.effects) {
            return Err(PlanError::SegmentEffects { segment: si, instance: None });
        }
        Ok(())
    }

    fn check_segments(
        &self,
        plan: &FramePlan,
        arrays: &HashMap<ArrayId, ArrayDesc>,
        bound: &mut [Option<ArrayId>],
        residents: &HashMap<ResidentId, ResidentState>,
    ) -> Result<(), PlanError> {
        let cap = u64::from(plan.instance_capacity.max(1));
        let count = plan.instances.len();
        let mut next = 0u32;
        // Every instance's bits ORed: whether any claims to be a triangle, for one compare.
        let mut any_bits = 0u32;
        // A resident's draws lie within one capacity when drawn indexed (the quad indices').
        let span = if self.indexed_quads { plan.instance_capacity.max(1) } else { u32::MAX };
        for (si, seg) in plan.segments.iter().enumerate() {
            if let Some(grid) = seg.grid {
                resident::check_grid_size(si, grid, self.max_cell_bytes)?;
            }
            if let Some(r) = seg.resident {
                self.check_segment_common(plan, si, seg)?;
                resident::check_segment(plan, si, seg, r, (span, arrays), residents)?;
                continue;
            }
            if let Some(grid) = seg.grid {
                resident::check_grid(si, grid, 0)?;
            }
            let r = &seg.instances;
            // `end > start` is checked first: an empty range has no last instance.
            let bad_range = r.start != next || r.end <= r.start || r.end as usize > count;
            if bad_range || u64::from(r.start) / cap != (u64::from(r.end) - 1) / cap {
                return Err(PlanError::SegmentRange { segment: si, start: r.start, end: r.end, count });
            }
            next = r.end;
            self.check_segment_common(plan, si, seg)?;
            for b in plan.binds(seg) {
                if b.slot >= seg.tier || b.slot >= self.slots {
                    return Err(PlanError::SlotOutOfRange { segment: si, slot: b.slot });
                }
                if !arrays.contains_key(&b.array) {
                    return Err(PlanError::UnknownArray { at: si, array: b.array });
                }
                bound[b.slot as usize] = Some(b.array);
            }
            // Layers per slot of this segment; 0 = the slot holds nothing the segment samples.
            let mut layers = [0u32; crate::MAX_SLOTS_PER_DRAW as usize];
            let mut normal_maps = [false; crate::MAX_SLOTS_PER_DRAW as usize];
            for (s, entry) in plan.slots(seg).iter().enumerate() {
                let Some(a) = entry else { continue };
                let desc = arrays.get(a).ok_or(PlanError::UnknownArray { at: si, array: *a })?;
                if bound[s] != Some(*a) {
                    return Err(PlanError::TableMismatch {
                        segment: si,
                        slot: s as u32,
                        held: bound[s],
                        table: *entry,
                    });
                }
                layers[s] = desc.layers;
                normal_maps[s] = desc.normal_map;
            }
            for (k, inst) in plan.instances(seg).enumerate() {
                any_bits |= inst.slot_flags_layer;
                let slot = inst.slot();
                let have = if slot < seg.tier { layers[slot as usize] } else { 0 };
                if have == 0 {
                    return Err(PlanError::InstanceSlot { instance: r.start + k as u32, slot });
                }
                if inst.layer() >= have {
                    return Err(PlanError::InstanceLayer {
                        instance: r.start + k as u32,
                        layer: inst.layer(),
                        layers: have,
                    });
                }
                let normal_map_flag = inst.flags() & Instance::FLAG_NORMAL_MAP != 0;
                if !effect_bits_ok(inst.effect, self.effects, self.lights > 0)
                    || (normal_map_flag && !normal_maps[slot as usize])
                {
                    return Err(PlanError::InstanceEffect {
                        instance: r.start + k as u32,
                        effect: inst.effect,
                        declared: self.effects,
                    });
                }
                if !seg.effects && inst.effect & Instance::EFFECT_MASK != 0 {
                    // The plain program would draw it without its effect.
                    return Err(PlanError::SegmentEffects { segment: si, instance: Some(r.start + k as u32) });
                }
            }
        }
        if next as usize != count {
            return Err(PlanError::SegmentRange {
                segment: plan.segments.len(),
                start: next,
                end: count as u32,
                count,
            });
        }
        let flagged = Instance { slot_flags_layer: any_bits, ..Instance::default() }.is_triangle();
        check_triangles(plan, flagged)
    }
}

/// The triangle side tables match the flagged instances. `any_flagged`: some instance (the
/// segments tile them all) has [`Instance::FLAG_TRIANGLE`]. A pass over the instances only
/// for plans with triangles (or flags or tables claiming them).
fn check_triangles(plan: &FramePlan, any_flagged: bool) -> Result<(), PlanError> {
    let corners = plan.triangles.len();
    if !any_flagged && corners == 0 && plan.block_triangles.is_empty() {
        return Ok(());
    }
    let cap = plan.instance_capacity.max(1) as usize;
    let mut flagged = 0;
    let mut blocks_ok = plan.block_triangles.len() == plan.instances.len().div_ceil(cap);
    for b in 0..plan.instances.len().div_ceil(cap) {
        blocks_ok &= plan.block_triangles.get(b) == Some(&(flagged as u32));
        flagged += plan.block_pieces(b as u32).flatten().filter(|i| i.is_triangle()).count();
    }
    let bad = |reason| Err(PlanError::Triangles { flagged, corners, reason });
    if flagged != corners {
        return bad("every triangle instance needs its corners, in order");
    }
    if !blocks_ok {
        return bad("block_triangles is not the count of triangles before each block");
    }
    if !plan.indexed {
        return bad("a plan with triangles must be indexed");
    }
    Ok(())
}

// Keeps the instance layout constants honest where the validator relies on them.
const _: () = assert!(Instance::MAX_LAYERS == 1 << 16);

impl PlanValidator {
    /// At most the budget's lights, each one [`crate::Batcher::add_light`] accepts, and a
    /// finite, non-negative ambient colour.
    fn check_lights(&self, plan: &FramePlan) -> Result<(), PlanError> {
        let max_lights = self.lights;
        let bad = |light, reason| Err(PlanError::Lights { lights: plan.lights.len(), max_lights, light, reason });
        if plan.lights.len() > max_lights as usize {
            return bad(None, "more lights than the budget's");
        }
        if !plan.ambient.iter().all(|c| c.is_finite() && *c >= 0.0) {
            return bad(None, "an ambient colour that is not finite and at least 0");
        }
        for (k, l) in plan.lights.iter().enumerate() {
            if l.check().is_err() {
                return bad(Some(k), "a light Batcher::add_light refuses");
            }
        }
        Ok(())
    }
}

impl PlanValidator {
    /// Ramp writes only with a ramp, each a whole row of the plan's bytes.
    fn check_ramp(&self, plan: &FramePlan) -> Result<(), PlanError> {
        let row_bytes = crate::RAMP_WIDTH_PX as usize * 4;
        for (write, w) in plan.ramp_writes.iter().enumerate() {
            let reason = if !self.ramp {
                "a write to a ramp the budget does not have (no effect samples it)"
            } else if w.bytes.len() != row_bytes {
                "a row of another size than RAMP_WIDTH_PX texels"
            } else if w.bytes.end > plan.upload_bytes.len() {
                "bytes past the plan's upload_bytes"
            } else {
                continue;
            };
            return Err(PlanError::Ramp { write, row: w.row, start: w.bytes.start, end: w.bytes.end, reason });
        }
        Ok(())
    }
}

/// Whether an instance's look word names a declared effect (its id at most `declared`) and
/// sets [`Instance::EFFECT_LIT`] only with `lights` (the colour offset's bytes are free).
pub(super) fn effect_bits_ok(effect: u32, declared: u32, lights: bool) -> bool {
    // The colour offset's bytes may hold anything.
    let offset = u32::MAX << Instance::COLOR_OFFSET_SHIFT;
    let allowed = Instance::EFFECT_MASK | offset | if lights { Instance::EFFECT_LIT } else { 0 };
    effect & Instance::EFFECT_MASK <= declared && effect & !allowed == 0
}
