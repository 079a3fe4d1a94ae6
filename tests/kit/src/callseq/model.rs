//! The reference model kept beside the batcher: what each live texture holds, what each
//! resident layer's quads sample, what the open frame pushed and drew. It knows nothing of
//! arrays, pages, slots or ops: only what the host asked for, so that it can say what every
//! plan must show.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Range;

use layerbatch_core::plan::{FramePlan, Instance};
use layerbatch_core::{MockDevice, ResidentId, SortKey, TextureDesc, TextureId, Usage};

/// One live texture.
#[derive(Clone, Debug)]
pub(super) struct Tex {
    pub(super) desc: TextureDesc,
    /// Hash of its level-0 pixels as the mock receives them (`None`: not known: a render
    /// target, a texture decoded on the CPU, or one lost by a restore and not sent again).
    pub(super) content: Option<u64>,
    /// Its colour where it is one colour everywhere (every texture the pixel runs draw).
    pub(super) color: Option<[u8; 4]>,
    /// The pixels (or blocks) last written, to follow region updates and send again after a
    /// restore.
    pub(super) pixels: Vec<u8>,
    /// Whether it has a normal map.
    pub(super) normal_map: bool,
}

/// One resident layer: the texture each quad samples, and the cell each quad covers in a
/// pixel run.
#[derive(Clone, Debug)]
pub(super) struct Res {
    pub(super) quads: Vec<TextureId>,
    /// Updates parked until the host frame ends: first quad, textures.
    pub(super) parked: Vec<(u32, Vec<TextureId>)>,
    /// Cells of the pixel grid, one a quad.
    pub(super) cells: Vec<u32>,
    /// A tilemap's layer: its quads sample the tileset the animation shows.
    pub(super) tilemap: bool,
    /// A moving layer's sprites ([`layerbatch_core::TextureStore::create_moving`]).
    pub(super) moves: Option<Moves>,
}

/// Where a moving layer's sprites are, as cells of the pixel grid (each quad is a cell's size
/// at its pivot, moved to the cell's corner).
#[derive(Clone, Debug)]
pub(super) struct Moves {
    /// Where the device has each sprite after the last plan.
    pub(super) shown: Vec<u32>,
    /// Where the host last moved each.
    pub(super) want: Vec<u32>,
}

/// What the open frame recorded.
#[derive(Debug, Default)]
pub(super) struct Frame {
    pub(super) open: bool,
    pub(super) target: Option<TextureId>,
    /// Pushed quads: the texture, the cell, and whether the texture had a normal map then.
    pub(super) pushed: Vec<(TextureId, u32, bool)>,
    /// Resident draws: the layer, the quads drawn, and the look the draw was made under
    /// (effect, lit, colour offset, as a look word), which a segment drawing it carries.
    pub(super) drawn: Vec<(ResidentId, Range<u32>, u32)>,
    /// Textures freed while the frame draws them: the content their quads still show.
    pub(super) freed: HashMap<TextureId, (Option<u64>, Option<[u8; 4]>)>,
    /// Textures resized in the frame: quads pushed before show the old pixels.
    pub(super) resized: BTreeSet<TextureId>,
    /// Lights added.
    pub(super) lights: usize,
    /// A clip was set: a segment clipped away samples nothing.
    pub(super) clipped: bool,
    /// The textures of resident layers destroyed while the frame draws them: they stay
    /// sampled until its plan is made.
    pub(super) doomed: Vec<(ResidentId, Res)>,
    /// The drawing states `save_state` kept in this frame, as the batcher reported them then.
    pub(super) saved: Vec<Look>,
}

/// A drawing state as the batcher reports it: draw state, effect and parameters, lit, sort
/// key, colour offset.
pub(super) type Look = (
    layerbatch_core::plan::DrawState,
    (layerbatch_core::EffectId, [u8; 4]),
    bool,
    SortKey,
    [u8; 3],
    layerbatch_core::TintEncoding,
);

/// The whole reference model.
#[derive(Debug, Default)]
pub(super) struct Model {
    pub(super) live: BTreeMap<TextureId, Tex>,
    pub(super) dead: Vec<TextureId>,
    pub(super) residents: BTreeMap<ResidentId, Res>,
    pub(super) frame: Frame,
    /// Ramp rows written: the colours of each.
    pub(super) ramp: BTreeMap<u8, Vec<[u8; 4]>>,
}

impl Model {
    /// What quads of `id` pushed in the open frame show at `finish`: its content and colour,
    /// `None` content where not known.
    pub(super) fn shown(&self, id: TextureId) -> (Option<u64>, Option<[u8; 4]>) {
        if let Some(f) = self.frame.freed.get(&id) {
            return *f;
        }
        if self.frame.resized.contains(&id) {
            return (None, None);
        }
        self.live.get(&id).map_or((None, None), |t| (t.content, t.color))
    }

    /// Checks a plan the mock device executed: what each pushed quad and each drawn resident
    /// quad sampled, normal-map flags and lights. `tiles` is the tileset each tilemap layer
    /// shows now (static, animated frame) and the frame it must not show.
    pub(super) fn check_plan(
        &self,
        plan: &FramePlan,
        device: &MockDevice,
        tiles: Option<([TextureId; 2], TextureId)>,
        max_lights: usize,
    ) -> Result<(), String> {
        let sampled = device.sampled();
        let quads: Vec<(usize, &Instance)> =
            plan.instances.iter().enumerate().filter(|(_, i)| !i.is_triangle()).collect();
        if quads.len() != self.frame.pushed.len() {
            return Err(format!("{} quads pushed, the plan holds {}", self.frame.pushed.len(), quads.len()));
        }
        // Sorted frames reorder quads: compared per texture.
        let mut want: BTreeMap<TextureId, usize> = BTreeMap::new();
        // (`mut`: textures of unknown pixels that sampled nothing leave it.)
        let mut flagged: BTreeMap<TextureId, usize> = BTreeMap::new();
        for (t, _, normal) in &self.frame.pushed {
            *want.entry(*t).or_default() += 1;
            *flagged.entry(*t).or_default() += usize::from(*normal);
        }
        let clipped = self.frame.clipped;
        let mut got: BTreeMap<TextureId, usize> = BTreeMap::new();
        let mut unknown = 0;
        let mut flagged_got: BTreeMap<TextureId, usize> = BTreeMap::new();
        for (k, inst) in &quads {
            let Some(&Some((t, hash))) = sampled.get(*k) else {
                // Only a texture whose pixels the device never got (a render target, one lost
                // by a restore and not sent again) samples nothing known.
                match self.frame.pushed.iter().find(|p| clipped || self.shown(p.0).0.is_none()) {
                    Some(_) => {
                        unknown += 1;
                        continue;
                    }
                    None => {
                        let writes: Vec<String> = (plan.ops.iter())
                            .filter_map(|o| match o {
                                layerbatch_core::plan::ResourceOp::WriteLayer {
                                    texture,
                                    array,
                                    layer,
                                    x_px,
                                    y_px,
                                    width_px,
                                    height_px,
                                    ..
                                } => Some(format!(
                                    "{texture:?}:{array:?}/{layer} {:?}",
                                    [x_px, y_px, width_px, height_px]
                                )),
                                _ => None,
                            })
                            .collect();
                        let inst = quads[*k].1;
                        return Err(format!(
                            "instance {k} (slot {}, layer {}, rect {:?}) sampled nothing; plan {} rebuild {} writes {writes:?}, slot tables {:?}",
                            inst.slot(),
                            inst.layer(),
                            inst.tex_rect,
                            plan.sequence,
                            plan.rebuild,
                            plan.slot_tables
                        ));
                    }
                }
            };
            let (t, hash) = (&t, &hash);
            *got.entry(*t).or_default() += 1;
            let (content, _) = self.shown(*t);
            if let Some(c) = content {
                if c != *hash {
                    return Err(format!("instance {k} of {t:?} sampled other pixels than the model's last write"));
                }
            }
            if inst.flags() & Instance::FLAG_NORMAL_MAP != 0 {
                *flagged_got.entry(*t).or_default() += 1;
            }
        }
        // Only for textures whose every quad sampled something: a clipped-away one is not seen.
        for (t, n) in &flagged {
            let all_seen = got.get(t) == want.get(t);
            let f = flagged_got.get(t).copied().unwrap_or(0);
            if all_seen && f != *n {
                return Err(format!("{f} instances of {t:?} flagged for a normal map; the model says {n}"));
            }
        }
        // Quads of textures whose pixels are not known may sample nothing; the rest match.
        let unsure = |t: &TextureId| clipped || self.shown(*t).0.is_none();
        let unknown_pushed: usize = want.iter().filter(|(t, _)| unsure(t)).map(|(_, n)| n).sum();
        want.retain(|t, _| !unsure(t) || got.contains_key(t));
        for (t, n) in &want {
            let g = got.get(t).copied().unwrap_or(0);
            let fine = g == *n || (unsure(t) && g <= *n);
            if !fine {
                return Err(format!("{n} quads of {t:?} pushed, {g} sampled it"));
            }
        }
        if got.keys().any(|t| !want.contains_key(t)) || unknown > unknown_pushed {
            return Err(format!("textures pushed {want:?}, sampled {got:?} and {unknown} nothing"));
        }
        // A layer whose textures spread over more arrays than a draw binds is not drawn, and
        // the plan says so.
        let mut undrawn = 0;
        for (id, range, _) in &self.frame.drawn {
            let Some(r) = self.resident(*id) else { continue };
            let s = device.resident_sampled(*id);
            if s.is_empty() && plan.counters.resident_draws_dropped > 0 {
                undrawn += 1;
                continue;
            }
            let end = range.end.min(r.quads.len() as u32);
            for q in range.start..end {
                let Some(Some((t, hash))) = s.get(q as usize) else {
                    let expected = r.quads[q as usize];
                    let known = self.live.get(&expected).and_then(|t| t.content).is_some();
                    // A tile shows its animation's frame now, whose tileset may be gone.
                    let tiles_known = tiles.is_some_and(|([still, frame], _)| {
                        [still, frame].iter().all(|t| self.live.get(t).and_then(|t| t.content).is_some())
                    });
                    if clipped || !known || (r.tilemap && !tiles_known) {
                        continue;
                    }
                    return Err(format!("resident {id:?} quad {q} drawn but sampled nothing"));
                };
                if r.tilemap {
                    let ([still, frame], other) = tiles.ok_or("a tilemap layer without a tilemap")?;
                    if *t == other || (*t != still && *t != frame) {
                        return Err(format!("tilemap quad {q} sampled {t:?}; the animation shows {frame:?}"));
                    }
                } else if *t != r.quads[q as usize] {
                    return Err(format!(
                        "resident {id:?} quad {q} sampled {t:?}, the model says {:?}",
                        r.quads[q as usize]
                    ));
                }
                let known = self.live.get(t).and_then(|t| t.content);
                if known.is_some_and(|c| c != *hash) {
                    return Err(format!("resident {id:?} quad {q} sampled other pixels of {t:?} than the model's"));
                }
            }
        }
        if undrawn > plan.counters.resident_draws_dropped {
            return Err(format!("{undrawn} resident draws missing, {} reported", plan.counters.resident_draws_dropped));
        }
        // The resident quads the plan counts as drawn are those of the draws made (a
        // tilemap's a row of chunks at a time, say), each cut to its layer's length.
        let lens: Option<Vec<u64>> = self
            .frame
            .drawn
            .iter()
            .map(|(id, range, _)| {
                let len = self.resident(*id)?.quads.len() as u32;
                Some(u64::from(range.end.min(len).saturating_sub(range.start)))
            })
            .collect();
        if let (Some(lens), 0) = (lens, plan.counters.resident_draws_dropped) {
            let want: u64 = lens.iter().sum();
            if plan.counters.resident_instances_drawn != want {
                return Err(format!(
                    "{} resident instances counted as drawn, the draws made cover {want}",
                    plan.counters.resident_instances_drawn
                ));
            }
        }
        if plan.counters.resident_draws_dropped == 0 {
            for (id, range, look) in &self.frame.drawn {
                // A layer gone or made shorter since its draw draws nothing of the range.
                let len = self.resident(*id).map_or(0, |r| r.quads.len() as u32);
                if range.start >= range.end.min(len) {
                    continue;
                }
                let carried = |s: &layerbatch_core::plan::Segment| {
                    s.resident == Some(*id) && plan.states.get(s.state as usize).is_some_and(|st| st.look == *look)
                };
                if !plan.segments.iter().any(carried) {
                    let carried: Vec<_> = plan
                        .segments
                        .iter()
                        .filter(|s| s.resident == Some(*id))
                        .map(|s| plan.states.get(s.state as usize).map(|st| st.look))
                        .collect();
                    return Err(format!("resident {id:?} drawn under look {look:#x}; its segments carry {carried:?}"));
                }
            }
        }
        let lights = self.frame.lights.min(max_lights);
        if plan.lights.len() != lights {
            return Err(format!("{} lights added, the plan carries {}", self.frame.lights, plan.lights.len()));
        }
        Ok(())
    }

    /// The picture a plan drawn into the framebuffer must show on a `grid` of `cell_px`
    /// cells: each cell drawn in the colour its quad's texture holds, the rest `clear`.
    /// `None` where a cell's colour is not known (the pixel check skips such frames).
    pub(super) fn picture(
        &self,
        grid: [u32; 2],
        cell_px: u32,
        clear: [u8; 4],
        tiles: Option<[TextureId; 2]>,
    ) -> Option<Vec<u8>> {
        let [gw, gh] = grid;
        let (w, h) = ((gw * cell_px) as usize, (gh * cell_px) as usize);
        let mut px = clear.repeat(w * h);
        let mut fill = |cell: u32, color: [u8; 4]| {
            let (cx, cy) = ((cell % gw * cell_px) as usize, (cell / gw * cell_px) as usize);
            for y in cy..cy + cell_px as usize {
                for x in cx..cx + cell_px as usize {
                    px[(y * w + x) * 4..(y * w + x) * 4 + 4].copy_from_slice(&color);
                }
            }
        };
        for (id, range, _) in &self.frame.drawn {
            let r = self.resident(*id)?;
            for q in range.start..range.end.min(r.quads.len() as u32) {
                // A pixel run's tilemap is one animated tile everywhere.
                let t = if r.tilemap { tiles?[1] } else { r.quads[q as usize] };
                let cell = r.moves.as_ref().map_or(r.cells[q as usize], |m| m.shown[q as usize]);
                if cell == super::motions::NO_CELL {
                    continue; // drawn as nothing: its motion was not finite
                }
                fill(cell, self.live.get(&t)?.color?);
            }
        }
        for (t, cell, _) in &self.frame.pushed {
            fill(*cell, self.shown(*t).1?);
        }
        Some(px)
    }

    /// Resident `id`, live or destroyed while the open frame draws it.
    pub(super) fn resident(&self, id: ResidentId) -> Option<&Res> {
        self.residents.get(&id).or_else(|| self.frame.doomed.iter().find(|d| d.0 == id).map(|d| &d.1))
    }

    /// Forgets the open frame's record (after a plan, or when it is discarded).
    pub(super) fn close_frame(&mut self) {
        self.frame = Frame::default();
    }

    /// Whether texture `id` is sampled by a live resident, or an update parked for one.
    pub(super) fn in_resident(&self, id: TextureId) -> bool {
        self.residents.values().any(|r| r.quads.contains(&id) || r.parked.iter().any(|p| p.1.contains(&id)))
            || self.frame.doomed.iter().any(|d| d.1.quads.contains(&id))
    }

    /// A texture `id` just registered or written whole with `pixels`.
    pub(super) fn written(&mut self, id: TextureId, desc: TextureDesc, pixels: &[u8], color: Option<[u8; 4]>) {
        let rgba8 = desc.format.block_bytes() == 4 && desc.format.block_size_px() == [1, 1];
        let content = (desc.usage != Usage::RenderTarget && rgba8).then(|| MockDevice::hash(pixels));
        let normal_map = self.live.get(&id).is_some_and(|t| t.normal_map);
        self.live.insert(id, Tex { desc, content, color, pixels: pixels.to_vec(), normal_map });
    }
}
