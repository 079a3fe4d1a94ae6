//! Resident layers when a plan is made: written when new, settled when their textures moved,
//! spliced between the ladder's segments, destroyed after the plan that drew them last, parked
//! updates applied at a frame's end, and every layer re-created by a restore.

use super::{check_quad, settled_table, slot_of, survey, Life, Seen};
use crate::batcher::recorder::NO_TARGET;
use crate::batcher::Batcher;
use crate::plan::{FlushCause, Instance, ResidentId, ResidentOp, ResourceOp, Segment};
use crate::ResidentError;

impl Batcher {
    /// Before a plan is made: every resident created since the last is written whole, its
    /// slot table and textures surveyed from where they are now.
    pub(in crate::batcher) fn write_new_residents(&mut self) {
        for id in std::mem::take(&mut self.residents.unwritten) {
            let hot = &self.registry.hot;
            let e = &mut self.residents.entries[id.index as usize];
            if e.life == Life::Dead {
                continue;
            }
            let (table, textures) = survey(hot, &e.quads);
            if table.len() > self.budget.slots as usize {
                // Its textures spread over more arrays than a draw binds (pages laid out
                // afresh after a restore): written once they fit; not drawn until then.
                self.residents.unwritten.push(id);
                continue;
            }
            e.table = table;
            e.textures = textures;
            let len = e.quads.len() as u32;
            self.queue_resident_write(id, 0..len);
        }
    }

    /// Rewrites what of resident `id` its textures' moves made wrong, and the slot table.
    /// Returns `false` when its textures now live in more arrays than one draw binds (it is
    /// then not drawn).
    pub(super) fn settle_resident(&mut self, id: ResidentId) -> bool {
        if self.residents.unwritten.contains(&id) {
            // Written whole at the plan: from where its textures are then, if they fit.
            let e = &self.residents.entries[id.index as usize];
            let arrays = survey(&self.registry.hot, &e.quads).0.len();
            return fits_or_warn(&mut self.residents.warned_spread, id, arrays, self.budget.slots);
        }
        let earlier = self.drawn_earlier_this_frame(id);
        let hot = &self.registry.hot;
        let e = &self.residents.entries[id.index as usize];
        let moved: Vec<(u32, Seen)> =
            e.textures.iter().filter(|(&i, t)| t.1 != Seen::of(&hot[i as usize])).map(|(&i, t)| (i, t.1)).collect();
        if moved.is_empty() {
            return true;
        }
        let table = settled_table(&e.table, e.textures.keys().map(|&i| hot[i as usize].array));
        if !fits_or_warn(&mut self.residents.warned_spread, id, table.len(), self.budget.slots) {
            return false;
        }
        let rewrite: std::collections::HashSet<u32> = moved
            .iter()
            .filter(|(i, seen)| {
                let now = Seen::of(&hot[*i as usize]);
                !now.same_texels(seen) || slot_of(&e.table, seen.array) != slot_of(&table, now.array)
            })
            .map(|m| m.0)
            .collect();
        let e = &mut self.residents.entries[id.index as usize];
        e.table = table;
        for (i, _) in &moved {
            if let Some(t) = e.textures.get_mut(i) {
                t.1 = Seen::of(&hot[*i as usize]);
            }
        }
        if rewrite.is_empty() {
            return true;
        }
        if earlier {
            // A pass of this host frame draws the buffer as it is, and a queue write would
            // land before it (wgpu): a new buffer instead, written whole; the old one lives
            // until the passes using it are done.
            self.ops.push(ResourceOp::Resident(ResidentOp::Destroy { resident: id }));
            self.queue_resident_create(id);
            return true;
        }
        // Runs of quads of the textures to rewrite, each one write.
        let mut runs = Vec::new();
        let mut run: Option<(u32, u32)> = None;
        for (k, q) in e.quads.iter().enumerate() {
            let k = k as u32;
            match (rewrite.contains(&q.texture.index), &mut run) {
                (true, Some((_, end))) => *end = k + 1,
                (true, None) => run = Some((k, k + 1)),
                (false, Some(r)) => {
                    runs.push(*r);
                    run = None;
                }
                (false, None) => {}
            }
        }
        runs.extend(run);
        for (start, end) in runs {
            self.queue_resident_write(id, start..end);
        }
        true
    }

    /// Before a plan is made: settles every resident the open frame draws.
    pub(in crate::batcher) fn settle_drawn_residents(&mut self) {
        let mut drawn = std::mem::take(&mut self.residents.drawn);
        let mut skip = Vec::new();
        for k in 0..drawn.len() {
            let id = drawn[k].1;
            if drawn[..k].iter().any(|d| d.1 == id) {
                continue;
            }
            if !self.settle_resident(id) {
                skip.push(id);
            }
        }
        let before = drawn.len();
        drawn.retain(|d| !skip.contains(&d.1));
        self.frame.resident_draws_dropped += (before - drawn.len()) as u64;
        self.residents.drawn = drawn;
    }

    /// After the ladder made the plan's segments: the resident draws go in between, in
    /// painter's order. Returns the segments added.
    pub(in crate::batcher) fn splice_residents(&mut self) -> u64 {
        let r = &mut self.residents;
        if r.drawn.is_empty() {
            return 0;
        }
        let plan = &mut self.plan;
        let span = if self.budget.indexed_quads { plan.instance_capacity.max(1) } else { u32::MAX };
        let mut out = std::mem::take(&mut r.scratch);
        out.clear();
        let mut own = std::mem::take(&mut plan.segments).into_iter().peekable();
        let binds = plan.binds.len() as u32;
        let mut added = 0;
        let frame = self.frames.number();
        for (at, id, state, range, grid) in &r.drawn {
            let (at, id, state, grid) = (*at, *id, *state, *grid);
            r.entries[id.index as usize].drawn_frame = Some(frame);
            while let Some(seg) = own.next_if(|s| s.instances.start < at) {
                out.push(seg);
            }
            let e = &r.entries[id.index as usize];
            let used = e.table.len().max(1) as u32;
            let tier = self.budget.tiers.iter().copied().find(|&t| t >= used).unwrap_or(self.budget.slots);
            let slots = plan.slot_tables.len() as u32..plan.slot_tables.len() as u32 + tier;
            plan.slot_tables.extend((0..tier as usize).map(|s| e.table.get(s).copied().flatten()));
            // A layer replaced after it was drawn this frame may have fewer quads now.
            let len = e.quads.len() as u32;
            let range = range.start.min(len)..range.end.min(len);
            match grid {
                // The GPU picks the tiles: core counts the cells it tests.
                Some(g) => self.frame.grid_cells_tested += g.cell_count(),
                None => self.frame.resident_instances_drawn += u64::from(range.end - range.start),
            }
            // Drawn under an effect: the effect program.
            let look = plan.states.get(state as usize).map_or(0, |s| s.look);
            let effects = look & Instance::EFFECT_MASK != 0;
            let mut start = range.start;
            while start < range.end {
                // Indexed, draws end at multiples of the capacity (the quad indices cover one).
                let end = range.end.min((start / span).saturating_add(1).saturating_mul(span));
                out.push(Segment {
                    instances: start..end,
                    tier,
                    slots: slots.clone(),
                    binds: binds..binds,
                    cause: FlushCause::Resident,
                    state,
                    resident: Some(id),
                    grid,
                    effects,
                });
                added += 1;
                start = end;
            }
        }
        out.extend(own);
        r.scratch = std::mem::replace(&mut plan.segments, out);
        self.frame.resident_draws += r.drawn.len() as u64;
        r.drawn.clear();
        added
    }

    /// After a plan is made (or a frame discarded): residents destroyed while it drew them
    /// lose their buffers now, in the next plan.
    pub(in crate::batcher) fn bury_doomed_residents(&mut self) {
        for id in std::mem::take(&mut self.residents.doomed) {
            self.bury_resident(id);
        }
        self.residents.drawn.clear();
        if std::mem::take(&mut self.residents.apply_after_plan) {
            self.apply_parked_residents();
        }
    }

    pub(super) fn bury_resident(&mut self, id: ResidentId) {
        let r = &mut self.residents;
        let e = &mut r.entries[id.index as usize];
        e.life = Life::Dead;
        e.quads = Vec::new();
        e.table.clear();
        e.textures.clear();
        e.drawn_frame = None;
        e.motion = None;
        e.cells = None;
        // A generation that would wrap retires the index for good.
        if e.generation < u32::MAX {
            r.free.push(id.index);
        }
        self.drop_resident_buffer(id);
    }

    /// Queues the destruction of `id`'s buffer, or, when no plan has carried its creation
    /// yet, takes the creation back (a buffer made and destroyed in one plan is no use).
    pub(super) fn drop_resident_buffer(&mut self, id: ResidentId) {
        let writes = &self.writes;
        let pending = |(at, op): &(usize, &ResourceOp)| {
            matches!(op, ResourceOp::Resident(ResidentOp::Create { resident, .. }) if *resident == id)
                && !writes.is_dead(*at)
        };
        match self.ops.iter().enumerate().find(pending) {
            Some((at, _)) => {
                // A tombstone, not a removal: the pending writes' indices stay true.
                self.writes.take_back(at);
                self.residents.unwritten.retain(|u| *u != id);
            }
            None => self.ops.push(ResourceOp::Resident(ResidentOp::Destroy { resident: id })),
        }
    }

    /// At the end of a host frame: the updates parked while its plans drew their layers.
    pub(in crate::batcher) fn apply_parked_residents(&mut self) {
        // Each was checked whole when parked, and its textures cannot be freed nor its layer
        // replaced or destroyed without it (those take it back): applying cannot fail, unless
        // its textures moved into more arrays than a draw binds since, which `settle_resident`
        // reports for any layer.
        // Taken out while applied: each was checked against the ones before it, which are
        // applied by then.
        for (id, first, quads) in std::mem::take(&mut self.residents.parked) {
            let (id, quads) = (&id, &quads);
            let checked = self.residents.entry(*id).map(|_| ()).and_then(|()| {
                quads.iter().enumerate().try_for_each(|(index, q)| {
                    check_quad(&self.registry.hot, q, NO_TARGET).map_err(|error| ResidentError::Quad { index, error })
                })
            });
            if let Err(e) = checked.and_then(|()| self.write_resident_range(*id, first, quads)) {
                log::warn!("a resident layer update waiting for the frame's end was dropped: {e}");
            }
        }
    }

    /// For [`Batcher::restore`]: every resident the device must hold again (the live ones,
    /// and those the open frame still draws), created and written whole from where their
    /// textures are now.
    pub(in crate::batcher) fn restore_residents(&mut self) {
        self.residents.pending.clear();
        let ids: Vec<ResidentId> = (self.residents.entries.iter().enumerate())
            .filter(|(_, e)| e.life != Life::Dead)
            .map(|(i, e)| ResidentId { index: i as u32, generation: e.generation })
            .collect();
        self.residents.unwritten.clear();
        for id in ids {
            self.queue_resident_create(id);
        }
    }
}

/// Whether a layer's table of `slots` slots fits the budget's `max` slots; if not, its draws
/// are dropped from the plan (counted in `resident_draws_dropped`), logged once (`warned`).
fn fits_or_warn(warned: &mut bool, id: ResidentId, slots: usize, max: u32) -> bool {
    if slots <= max as usize {
        return true;
    }
    if !std::mem::replace(warned, true) {
        log::warn!(
            "resident layer {id:?}: its textures live in {slots} arrays, more than one draw binds ({max}); not drawn \
             until they fit (Counters::resident_draws_dropped; TextureStore::compact)"
        );
    }
    false
}
