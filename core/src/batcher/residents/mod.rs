//! Resident layers: quads recorded once and kept on the device ([`TextureStore::create_resident`]).
//!
//! Core keeps each layer's quads (the truth its instances are made from), the arrays its
//! slots hold, and where each texture it samples was when its instances were written. A
//! frame that draws it ([`Batcher::draw_resident`]) costs a segment and a look at those
//! textures, not at the quads: only when one moved (an array grew or shrank, a page was
//! compacted or laid out afresh, a texture was resized) are its quads rewritten, by range
//! writes in the plan's ops, counted like any other.

use std::collections::HashMap;

use crate::batcher::recorder::{check_quad, resident_instance};

mod cells;
mod motion;
mod planning;
use crate::batcher::registry::Hot;
use crate::batcher::Batcher;
use crate::plan::ArrayId;
use crate::plan::{BlendMode, DrawState, GridDraw, Instance, ResidentId, ResidentOp, ResourceOp, Segment};
use crate::{Affine2, Quad, ResidentError, ResidentStyle, TextureError, TextureId};
pub(super) use cells::Cells;
pub(super) use motion::Moving;

/// Where a texture was when a resident's instances were last written from it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Seen {
    array: u32,
    flags_layer: u32,
    tex_rect: [u16; 4],
    uv_offset: [f32; 4],
    uv_scale: [f32; 4],
}

impl Seen {
    fn of(h: &Hot) -> Self {
        Self {
            array: h.array,
            flags_layer: h.flags_layer,
            tex_rect: h.tex_rect,
            uv_offset: h.uv_offset,
            uv_scale: h.uv_scale,
        }
    }
    /// The instance a quad of this texture gets depends on nothing else but the array's slot.
    fn same_texels(&self, other: &Seen) -> bool {
        (self.flags_layer, self.tex_rect, self.uv_offset, self.uv_scale)
            == (other.flags_layer, other.tex_rect, other.uv_offset, other.uv_scale)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Life {
    Live,
    /// Destroyed by the host while the open frame draws it: its buffer goes after the plan.
    Doomed,
    Dead,
}

#[derive(Debug)]
struct Entry {
    generation: u32,
    life: Life,
    quads: Vec<Quad>,
    /// The array in each slot its instances sample (`None`: a slot no instance samples).
    table: Vec<Option<ArrayId>>,
    /// Each texture it samples.
    textures: Sampled,
    /// Bytes held against the budget.
    bytes: u64,
    /// The host frame of the last plan made that drew it.
    drawn_frame: Option<u64>,
    /// A moving layer's motions ([`crate::TextureStore::create_moving`]).
    motion: Option<Moving>,
    /// A tile grid layer's cells ([`crate::tilegrid::TileGrid`]).
    cells: Option<Cells>,
}

/// A resident draw of the open frame: (instance index drawn at, resident, draw state index,
/// quads drawn, the cells of a grid draw).
pub(in crate::batcher) type Drawn = (u32, ResidentId, u32, std::ops::Range<u32>, Option<GridDraw>);

/// The batcher's resident layers.
#[derive(Debug, Default)]
pub(super) struct Residents {
    entries: Vec<Entry>,
    free: Vec<u32>,
    /// Instances the pending write ops point into.
    pub(super) pending: Vec<Instance>,
    /// Draws of the open frame: (instance index drawn at, resident, draw state index, quads
    /// drawn, the cells of a grid draw).
    pub(in crate::batcher) drawn: Vec<Drawn>,
    /// Updates waiting for the host frame to end: a plan of it draws the resident.
    parked: Vec<(ResidentId, u32, Vec<Quad>)>,
    /// The host frame ended while a frame was being recorded: the parked updates apply once
    /// that frame's plan is made (its draws were checked against the quads as they are).
    pub(super) apply_after_plan: bool,
    /// Residents the open frame draws whose host destroyed them.
    doomed: Vec<ResidentId>,
    /// Motions the pending move ops point into.
    pub(super) pending_motions: Vec<crate::Motion>,
    /// Tile ids the pending cell writes point into.
    pub(super) pending_cells: Vec<u32>,
    /// The moving layer whose motions the last plan holds, lent ([`Batcher::reclaim_motions`]).
    lent: Option<ResidentId>,
    /// Motions written in place that were not finite were logged.
    warned_motions: bool,
    /// The moving layers a plan writes, reused plan to plan.
    due_motions: Vec<ResidentId>,
    /// Residents whose buffer was created and not yet written: written whole when the next
    /// plan is made, from where their textures are then (a set laid out afresh at the
    /// frame's start is not written twice).
    unwritten: Vec<ResidentId>,
    /// Segments, reused while splicing.
    scratch: Vec<Segment>,
    /// Bytes held against the budget.
    pub(super) bytes: u64,
    /// A layer whose textures spread over more arrays than a draw binds was logged.
    pub(super) warned_spread: bool,
}

impl Residents {
    fn entry(&self, id: ResidentId) -> Result<&Entry, ResidentError> {
        match self.entries.get(id.index as usize) {
            Some(e) if e.generation == id.generation && e.life == Life::Live => Ok(e),
            _ => Err(ResidentError::Stale(id)),
        }
    }

    /// A live (or doomed) resident sampling texture `index`, and how many of its quads do;
    /// the quads of updates parked until the frame's end count (they will be drawn).
    pub(super) fn sampling(&self, index: u32) -> Option<(ResidentId, u32)> {
        let held = self.entries.iter().enumerate().find_map(|(i, e)| {
            let n = e.textures.get(&index).map_or(0, |t| t.0);
            (e.life != Life::Dead && n > 0).then_some((ResidentId { index: i as u32, generation: e.generation }, n))
        });
        held.or_else(|| {
            self.parked.iter().find_map(|(id, _, quads)| {
                let n = quads.iter().filter(|q| q.texture.index == index).count() as u32;
                (n > 0).then_some((*id, n))
            })
        })
    }
}

/// Each texture a resident samples, by registry index: its quads, and where it was when they
/// were written.
type Sampled = HashMap<u32, (u32, Seen)>;

/// The slot table and texture map of `quads`: arrays in order of first use.
fn survey(hot: &[Hot], quads: &[Quad]) -> (Vec<Option<ArrayId>>, Sampled) {
    let mut table: Vec<Option<ArrayId>> = Vec::new();
    let mut textures = Sampled::new();
    let mut last = u32::MAX;
    for q in quads {
        let i = q.texture.index;
        if i == last {
            if let Some(t) = textures.get_mut(&i) {
                t.0 += 1;
            }
            continue;
        }
        last = i;
        let h = &hot[i as usize];
        let t = textures.entry(i).or_insert((0, Seen::of(h)));
        t.0 += 1;
        if !table.contains(&Some(ArrayId(h.array))) {
            table.push(Some(ArrayId(h.array)));
        }
    }
    (table, textures)
}

/// The slot of array `array` in `table` (0 if absent: not for a surveyed quad).
fn slot_of(table: &[Option<ArrayId>], array: u32) -> u32 {
    table.iter().position(|a| *a == Some(ArrayId(array))).unwrap_or(0) as u32
}

impl Batcher {
    pub(crate) fn create_resident(&mut self, quads: &[Quad]) -> Result<ResidentId, ResidentError> {
        self.create_resident_with(quads, false, None)
    }

    /// A resident layer of `quads`, with a motion a quad when `moving`, and the cells of a
    /// tile grid when `cells` is given.
    fn create_resident_with(
        &mut self,
        quads: &[Quad],
        moving: bool,
        cells: Option<Vec<u32>>,
    ) -> Result<ResidentId, ResidentError> {
        let cell_bytes = cells.as_ref().map_or(Ok(0), |c| self.check_cells(c.len()))?;
        let bytes = self.check_resident_quads(quads, moving)? + cell_bytes;
        let (table, textures) = survey(&self.registry.hot, quads);
        self.check_table(table.len())?;
        self.hold_resident_bytes(bytes)?;
        let r = &mut self.residents;
        let index = match r.free.pop() {
            Some(i) => i,
            None => {
                r.entries.push(Entry {
                    generation: 0,
                    life: Life::Dead,
                    quads: Vec::new(),
                    table: Vec::new(),
                    textures: HashMap::new(),
                    bytes: 0,
                    drawn_frame: None,
                    motion: None,
                    cells: None,
                });
                (r.entries.len() - 1) as u32
            }
        };
        let e = &mut r.entries[index as usize];
        e.generation += 1;
        e.life = Life::Live;
        e.quads = quads.to_vec();
        e.table = table;
        e.textures = textures;
        e.bytes = bytes;
        e.drawn_frame = None;
        e.motion = moving.then(|| Moving::new(quads.len()));
        e.cells = cells.map(Cells::new);
        let id = ResidentId { index, generation: e.generation };
        self.queue_resident_create(id);
        Ok(id)
    }

    pub(crate) fn update_resident(&mut self, id: ResidentId, first: u32, quads: &[Quad]) -> Result<(), ResidentError> {
        let e = self.residents.entry(id)?;
        let len = e.quads.len() as u32;
        if u64::from(first) + quads.len() as u64 > u64::from(len) {
            return Err(ResidentError::OutOfRange { first, count: quads.len(), len });
        }
        if quads.is_empty() {
            return Ok(());
        }
        for (index, q) in quads.iter().enumerate() {
            check_quad(&self.registry.hot, q, crate::batcher::recorder::NO_TARGET)
                .map_err(|error| ResidentError::Quad { index, error })?;
        }
        // Behind updates parked for it, an update parks too: the host's last word wins.
        let behind = self.residents.apply_after_plan && self.residents.parked.iter().any(|p| p.0 == id);
        if self.drawn_earlier_this_frame(id) || behind {
            // Checked whole now (the slots after every update parked before it): applying
            // it at the frame's end cannot fail, and nothing accepted is dropped later.
            self.table_after(id, Some((first, quads)))?;
            self.residents.parked.push((id, first, quads.to_vec()));
            return Ok(());
        }
        self.check_drawn_into_target(id, quads)?;
        self.write_resident_range(id, first, quads)
    }

    /// [`ResidentError::SamplesTarget`] when the open frame, drawn into a render target,
    /// already draws resident `id` and `quads` would sample that target (the plan would draw
    /// them).
    fn check_drawn_into_target(&self, id: ResidentId, quads: &[Quad]) -> Result<(), ResidentError> {
        let Some(target) = self.recorder.target_texture() else { return Ok(()) };
        if !self.residents.drawn.iter().any(|d| d.1 == id) {
            return Ok(());
        }
        match quads.iter().find(|q| q.texture == target) {
            Some(_) => Err(ResidentError::SamplesTarget { resident: id, texture: target }),
            None => Ok(()),
        }
    }

    pub(crate) fn replace_resident(&mut self, id: ResidentId, quads: &[Quad]) -> Result<(), ResidentError> {
        self.reclaim_motions();
        let old = self.residents.entry(id)?;
        let (old_bytes, moving) = (old.bytes, old.motion.is_some());
        let cell_bytes = old.cells.as_ref().map_or(0, |c| u64::from(c.len()) * 4);
        let bytes = self.check_resident_quads(quads, moving)? + cell_bytes;
        self.check_drawn_into_target(id, quads)?;
        let (table, textures) = survey(&self.registry.hot, quads);
        self.check_table(table.len())?;
        self.alloc.release_buffer(old_bytes);
        if let Err(e) = self.hold_resident_bytes(bytes) {
            let _ = self.alloc.hold_buffer(old_bytes);
            return Err(e);
        }
        self.residents.bytes -= old_bytes;
        self.residents.parked.retain(|p| p.0 != id);
        let e = &mut self.residents.entries[id.index as usize];
        e.quads = quads.to_vec();
        e.table = table;
        e.textures = textures;
        e.bytes = bytes;
        if let Some(m) = &mut e.motion {
            m.resize(quads.len());
        }
        self.drop_resident_buffer(id);
        self.queue_resident_create(id);
        Ok(())
    }

    pub(crate) fn destroy_resident(&mut self, id: ResidentId) -> Result<(), ResidentError> {
        let bytes = self.residents.entry(id)?.bytes;
        self.alloc.release_buffer(bytes);
        let r = &mut self.residents;
        r.bytes -= bytes;
        r.parked.retain(|p| p.0 != id);
        let drawn = r.drawn.iter().any(|d| d.1 == id);
        let e = &mut r.entries[id.index as usize];
        e.bytes = 0;
        if drawn {
            e.life = Life::Doomed;
            r.doomed.push(id);
        } else {
            self.bury_resident(id);
        }
        Ok(())
    }

    /// Draws a resident layer here, in painter's order: after the quads pushed so far, before
    /// those pushed next, with the drawing state's blend mode, clip, transform and look (its
    /// effect and parameters, lit, colour offset: what a quad pushed now would get) and
    /// `style` on top of them. One segment (a draw call) of its own; nothing is uploaded unless
    /// the layer changed, whatever the look. Drawing it several times in a frame (with other
    /// styles or looks) is allowed.
    ///
    /// # Errors
    /// [`ResidentError::NoFrame`], [`ResidentError::Stale`], [`ResidentError::SamplesTarget`]
    /// in a frame drawn into a texture the layer samples. Nothing is recorded then.
    pub fn draw_resident(&mut self, id: ResidentId, style: &ResidentStyle) -> Result<(), ResidentError> {
        let len = self.residents.entry(id)?.quads.len() as u32;
        self.draw_resident_range(id, 0..len, style)
    }

    /// [`Batcher::draw_resident`] of quads `range` of the layer only: one draw (with indexed
    /// quads, one per `instance_capacity` quads), as for the whole layer. A tilemap draws the
    /// chunks its camera sees so ([`crate::tilemap::Tilemap::draw`]). An empty range draws
    /// nothing.
    ///
    /// # Errors
    /// As [`Batcher::draw_resident`], and [`ResidentError::OutOfRange`] for a range past the
    /// layer's end.
    pub fn draw_resident_range(
        &mut self,
        id: ResidentId,
        range: std::ops::Range<u32>,
        style: &ResidentStyle,
    ) -> Result<(), ResidentError> {
        self.draw_resident_item(id, range, None, style)
    }

    /// A resident draw of quads `range` (a grid draw's cells when `grid`), checked.
    fn draw_resident_item(
        &mut self,
        id: ResidentId,
        range: std::ops::Range<u32>,
        grid: Option<GridDraw>,
        style: &ResidentStyle,
    ) -> Result<(), ResidentError> {
        if !self.recorder.open {
            return Err(ResidentError::NoFrame);
        }
        let e = self.residents.entry(id)?;
        let len = e.quads.len() as u32;
        if range.start > range.end || range.end > len {
            let count = range.end.saturating_sub(range.start) as usize;
            return Err(ResidentError::OutOfRange { first: range.start, count, len });
        }
        if !style.visible || range.is_empty() {
            return Ok(());
        }
        let target = self.recorder.target_texture();
        if let Some(t) = target.filter(|t| e.textures.contains_key(&t.index)) {
            return Err(ResidentError::SamplesTarget { resident: id, texture: t });
        }
        let look = self.recorder.look;
        // Parameters without an effect change nothing: one state for them all.
        let has_effect = look.effect & Instance::EFFECT_MASK != 0;
        let state = DrawState {
            look: look.effect,
            look_params: if has_effect { look.params } else { [0; 4] },
            ..style_state(self.recorder.draw_state_now(), style)
        };
        let (at, state) = self.recorder.mark_resident(state);
        self.residents.drawn.push((at, id, state, range, grid));
        Ok(())
    }

    /// Whether a plan of the host's frame, already made, drew resident `id` (the host
    /// submits several plans at once: [`Batcher::end_frame`]).
    fn drawn_earlier_this_frame(&self, id: ResidentId) -> bool {
        let e = &self.residents.entries[id.index as usize];
        self.frames.holds_frees() && e.drawn_frame == Some(self.frame_number())
    }

    pub(crate) fn resident_len(&self, id: ResidentId) -> Result<u32, ResidentError> {
        Ok(self.residents.entry(id)?.quads.len() as u32)
    }

    pub(crate) fn resident_bytes(&self) -> u64 {
        self.residents.bytes
    }

    /// Every quad checked; the layer's bytes (its motion texture's too when `moving`), within
    /// the device's largest buffer (and texture).
    fn check_resident_quads(&self, quads: &[Quad], moving: bool) -> Result<u64, ResidentError> {
        if quads.is_empty() {
            return Err(ResidentError::Empty);
        }
        let motion_bytes = if moving { self.check_motion_size(quads.len())? } else { 0 };
        let quad_bytes = Instance::quad_bytes(self.budget.indexed_quads);
        let bytes = quads.len() as u64 * u64::from(quad_bytes);
        let max_buffer_bytes = self.limits.max_buffer_bytes;
        if bytes > max_buffer_bytes || quads.len() > u32::MAX as usize {
            return Err(ResidentError::TooLarge { instances: quads.len(), bytes, quad_bytes, max_buffer_bytes });
        }
        for (index, q) in quads.iter().enumerate() {
            check_quad(&self.registry.hot, q, crate::batcher::recorder::NO_TARGET)
                .map_err(|error| ResidentError::Quad { index, error })?;
        }
        Ok(bytes + motion_bytes)
    }

    fn check_table(&self, arrays: usize) -> Result<(), ResidentError> {
        if arrays > self.budget.slots as usize {
            return Err(ResidentError::TooManyArrays { arrays, slots: self.budget.slots });
        }
        Ok(())
    }

    fn hold_resident_bytes(&mut self, bytes: u64) -> Result<(), ResidentError> {
        self.alloc.hold_buffer(bytes).map_err(|(held_bytes, budget_bytes)| ResidentError::OverBudget {
            requested_bytes: bytes,
            held_bytes,
            budget_bytes,
        })?;
        self.residents.bytes += bytes;
        Ok(())
    }

    /// Queues the creation of `id`'s buffer; its quads are written when the plan is made
    /// ([`Batcher::write_new_residents`]).
    fn queue_resident_create(&mut self, id: ResidentId) {
        let e = &self.residents.entries[id.index as usize];
        let (instances, indexed, moving) = (e.quads.len() as u32, self.budget.indexed_quads, e.motion.is_some());
        let cells = e.cells.as_ref().map_or(0, Cells::len);
        self.ops.push(ResourceOp::Resident(ResidentOp::Create { resident: id, instances, indexed, moving, cells }));
        let e = &mut self.residents.entries[id.index as usize];
        if let Some(m) = &mut e.motion {
            // A new motion texture: written whole by the plan that creates it.
            m.created();
        }
        if let Some(c) = &mut e.cells {
            c.created();
        }
        if !self.residents.unwritten.contains(&id) {
            self.residents.unwritten.push(id);
        }
    }

    /// Queues a write of quads `range` of `id`, made from where their textures are now.
    fn queue_resident_write(&mut self, id: ResidentId, range: std::ops::Range<u32>) {
        let r = &mut self.residents;
        let e = &r.entries[id.index as usize];
        let start = r.pending.len() as u32;
        let hot = &self.registry.hot;
        let quads = &e.quads[range.start as usize..range.end as usize];
        r.pending.extend(quads.iter().map(|q| {
            let h = &hot[q.texture.index as usize];
            resident_instance(h, q, slot_of(&e.table, h.array))
        }));
        let instances = start..r.pending.len() as u32;
        self.ops.push(ResourceOp::Resident(ResidentOp::Write { resident: id, first: range.start, instances }));
    }

    /// Writes checked `quads` at `first` of live resident `id`.
    fn write_resident_range(&mut self, id: ResidentId, first: u32, quads: &[Quad]) -> Result<(), ResidentError> {
        // Where its textures are now is what the new quads are made from: the rest follows.
        self.settle_resident(id);
        let (table, textures) = self.table_after(id, Some((first, quads)))?;
        let e = &mut self.residents.entries[id.index as usize];
        e.table = table;
        e.textures = textures;
        e.quads[first as usize..first as usize + quads.len()].copy_from_slice(quads);
        if !self.residents.unwritten.contains(&id) {
            self.queue_resident_write(id, first..first + quads.len() as u32);
        }
        Ok(())
    }

    /// The slot table and texture map of resident `id` once the updates parked for it, then
    /// `update` (quads at a first index), are applied: each array keeps its slot.
    ///
    /// # Errors
    /// [`ResidentError::TooManyArrays`] when they would sample more arrays than one draw binds.
    fn table_after(
        &self,
        id: ResidentId,
        update: Option<(u32, &[Quad])>,
    ) -> Result<(Vec<Option<ArrayId>>, Sampled), ResidentError> {
        let hot = &self.registry.hot;
        let e = &self.residents.entries[id.index as usize];
        let mut textures = e.textures.clone();
        // The texture at each quad an earlier parked update rewrites.
        let mut overlay: HashMap<u32, u32> = HashMap::new();
        let parked = self.residents.parked.iter().filter(|p| p.0 == id).map(|p| (p.1, p.2.as_slice()));
        for (first, quads) in parked.chain(update) {
            for (k, q) in (first..).zip(quads) {
                let old = overlay.get(&k).copied().unwrap_or(e.quads[k as usize].texture.index);
                if let Some(t) = textures.get_mut(&old) {
                    t.0 -= 1;
                }
                let h = &hot[q.texture.index as usize];
                textures.entry(q.texture.index).or_insert((0, Seen::of(h))).0 += 1;
                overlay.insert(k, q.texture.index);
            }
        }
        textures.retain(|_, t| t.0 > 0);
        // Where the textures are now (a parked update's layer is not settled yet); a layer not
        // written yet gets a fresh table, as its first write will.
        let unwritten = self.residents.unwritten.contains(&id);
        let base: &[Option<ArrayId>] = if unwritten { &[] } else { &e.table };
        let table = settled_table(base, textures.keys().map(|&i| hot[i as usize].array));
        self.check_table(table.iter().flatten().count())?;
        Ok((table, textures))
    }

    /// [`TextureError::InResident`] when a resident layer samples `id`.
    pub(super) fn check_not_resident(&self, id: TextureId) -> Result<(), TextureError> {
        match self.residents.sampling(id.index) {
            Some((resident, quads)) => Err(TextureError::InResident { texture: id, resident, quads }),
            None => Ok(()),
        }
    }
}

/// `old`'s slots kept for arrays still in `arrays`, emptied for the others, and new arrays in
/// the first empty slots.
fn settled_table(old: &[Option<ArrayId>], arrays: impl Iterator<Item = u32> + Clone) -> Vec<Option<ArrayId>> {
    let mut table: Vec<Option<ArrayId>> = old.iter().map(|a| a.filter(|a| arrays.clone().any(|b| b == a.0))).collect();
    for a in arrays {
        let a = Some(ArrayId(a));
        if table.contains(&a) {
            continue;
        }
        match table.iter_mut().find(|s| s.is_none()) {
            Some(s) => *s = a,
            None => table.push(a),
        }
    }
    while table.last() == Some(&None) {
        table.pop();
    }
    table
}

/// A dirty range grown to cover `range` as well (an empty one becomes `range`).
fn widened(dirty: &std::ops::Range<u32>, range: std::ops::Range<u32>) -> std::ops::Range<u32> {
    if dirty.is_empty() {
        range
    } else {
        dirty.start.min(range.start)..dirty.end.max(range.end)
    }
}

/// The draw state of a resident drawn with `style` under the batcher's `state`.
fn style_state(state: DrawState, style: &ResidentStyle) -> DrawState {
    let transform = style.transform.then(Affine2(state.transform)).0;
    let transform = if transform.iter().all(|v| v.is_finite()) { transform } else { state.transform };
    let clip_px = match (state.clip_px, style.clip_px) {
        (Some(a), Some(b)) => Some(intersect(a, b)),
        (a, b) => a.or(b),
    };
    let mut tint = style.tint.map(|v| if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) });
    let mut blend = state.blend;
    // Additive is "over" with alpha 0, as for pushed quads.
    if blend == BlendMode::Additive {
        blend = BlendMode::Over;
        tint[3] = 0.0;
    }
    DrawState { blend, clip_px, transform, tint, ..state }
}

/// The intersection of two `[x, y, w, h]` rectangles (empty: zero size).
fn intersect(a: [u32; 4], b: [u32; 4]) -> [u32; 4] {
    let [ax, ay, aw, ah] = a.map(u64::from);
    let [bx, by, bw, bh] = b.map(u64::from);
    let (x0, y0) = (ax.max(bx), ay.max(by));
    let (x1, y1) = ((ax + aw).min(bx + bw), (ay + ah).min(by + bh));
    let clamp = |v: u64| v.min(u64::from(u32::MAX)) as u32;
    [clamp(x0), clamp(y0), clamp(x1.saturating_sub(x0)), clamp(y1.saturating_sub(y0))]
}
