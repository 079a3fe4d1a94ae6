//! The calls the model makes, each with what the model expects of it.

use std::collections::BTreeSet;

use layerbatch_core::{
    Filter, Format, LightError, PointLight, Quad, QuadError, ResidentId, SortKey, TextureDesc, TextureError, TextureId,
    TintEncoding, Usage,
};

use super::model::Look;
use super::{Choices, Planned, World, CELL_PX, CLEAR, GRID};

/// Cells pushed quads take, after the bands.
const PUSH_CELLS: u32 = GRID[0] * GRID[1] / 2;
/// The host's frames: whether it ends them ([`layerbatch_core::Batcher::end_frame`]), and the
/// resident layers a plan of the current one drew (updates to those park).
#[derive(Debug, Default)]
pub(super) struct HostFrame {
    pub(super) ends_frames: bool,
    pub(super) drawn: BTreeSet<ResidentId>,
    /// A plan of the current host frame left resident draws out (their layers' textures
    /// spread over too many arrays): core did not count those layers drawn.
    pub(super) dropped: bool,
    /// The host frame ended while a frame was recorded: parked updates apply after its plan.
    pub(super) apply_after_plan: bool,
}

pub(super) fn solid(desc: &TextureDesc, color: [u8; 4]) -> Vec<u8> {
    color.repeat(desc.width_px as usize * desc.height_px as usize)
}

/// A BC1 block of one colour (both endpoints the same 5:6:5 colour, every index 0), and that
/// colour as the BC1 spec expands it to 8 bits.
fn bc1_solid(c: &mut dyn Choices) -> ([u8; 8], [u8; 4]) {
    let (r, g, b) = (c.below(32) as u16, c.below(64) as u16, c.below(32) as u16);
    let v = (r << 11 | g << 5 | b).to_le_bytes();
    let e5 = |x: u16| (x << 3 | x >> 2) as u8;
    let e6 = |x: u16| (x << 2 | x >> 4) as u8;
    ([v[0], v[1], v[0], v[1], 0, 0, 0, 0], [e5(r), e6(g), e5(b), 255])
}

/// Records `chunk` into `part` (under `key` if any): quad by quad, or with one `push_all`
/// whose one error must name the first quad the model expects refused (one sampling the
/// frame's `target`). Each quad's result, or a finding.
fn record_part(
    part: &mut layerbatch_core::PartRecorder<'_>,
    chunk: &[(TextureId, u32)],
    all: bool,
    key: Option<SortKey>,
    target: Option<TextureId>,
) -> Vec<Result<Result<(), QuadError>, String>> {
    if let Some(key) = key {
        part.set_sort_key(key);
    }
    if !all {
        return chunk.iter().map(|&(t, cell)| Ok(part.push(&cell_quad(t, cell)))).collect();
    }
    let quads: Vec<Quad> = chunk.iter().map(|&(t, cell)| cell_quad(t, cell)).collect();
    let first = part.push_all(&quads).err();
    let refused = |t: TextureId| Some(t) == target;
    let expected = chunk.iter().position(|&(t, _)| refused(t));
    if first.as_ref().map(|r| r.index) != expected {
        return vec![Err(format!("push_all in a part returned {first:?}, the first refused quad is {expected:?}"))];
    }
    (chunk.iter()).map(|&(t, _)| Ok(if refused(t) { Err(QuadError::SamplesTarget(t)) } else { Ok(()) })).collect()
}

/// Prints `what` when `LAYERBATCH_CALLS_TRACE` is set (replaying a finding).
pub(super) fn trace(what: impl FnOnce() -> String) {
    if std::env::var_os("LAYERBATCH_CALLS_TRACE").is_some() {
        eprintln!("  {}", what());
    }
}

pub(super) fn cell_quad(t: TextureId, cell: u32) -> Quad {
    let (x, y) = ((cell % GRID[0] * CELL_PX) as f32, (cell / GRID[0] * CELL_PX) as f32);
    Quad::rect(t, [x, y], [CELL_PX as f32; 2])
}

impl World {
    pub(super) fn call(&mut self, c: &mut dyn Choices) -> Result<Option<Planned>, String> {
        let pixel = self.setup.pixel_exact;
        match c.below(100) {
            0..=11 => self.register(c)?,
            12..=17 => self.update(c)?,
            18..=19 if !pixel => self.update_region(c)?,
            20..=22 => self.resize(c)?,
            23..=29 => self.free(c)?,
            30..=35 => self.create_resident(c)?,
            36..=40 => self.update_resident(c)?,
            41..=42 => self.replace_resident(c)?,
            43..=44 => self.destroy_resident(c)?,
            45..=49 => self.draw_residents(c)?,
            50..=52 => self.tilemap(c)?,
            53..=55 if !pixel => self.looks(c)?,
            56..=69 => self.push(c)?,
            70..=72 => self.begin(c)?,
            73..=74 => {
                let moved = self.batcher.textures().compact();
                if self.model.frame.open && moved > 0 {
                    return Err(format!("compact moved {moved} inside a frame"));
                }
            }
            75..=76 => self.end_frame(),
            77 => self.restore(c)?,
            78..=80 => self.move_sprites(c)?,
            81..=86 if !pixel => self.grid(c)?,
            // Host textures need the host's textures on the device: the mock only.
            87..=88 if !pixel => self.register_host(c)?,
            89..=91 if !pixel => self.host_draw(c)?,
            _ => return self.finish().map(Some),
        }
        Ok(None)
    }

    /// A live texture (not a tileset, not the frame's target), maybe only one `usable` says.
    pub(super) fn pick(&self, c: &mut dyn Choices, usable: impl Fn(&super::model::Tex) -> bool) -> Option<TextureId> {
        let sets = self.tiles.as_ref().map_or([None; 3], |t| t.sets.map(Some));
        let grid_sets = self.grid.as_ref().map_or([None; 3], |g| g.sets.map(Some));
        let ids: Vec<TextureId> = (self.model.live.iter())
            .filter(|(id, t)| usable(t) && !sets.contains(&Some(**id)) && !grid_sets.contains(&Some(**id)))
            .filter(|(id, _)| self.model.frame.target != Some(**id))
            .map(|(id, _)| *id)
            .collect();
        (!ids.is_empty()).then(|| ids[c.below(ids.len() as u64) as usize])
    }

    /// A texture quads may sample: known pixels in pixel-exact runs.
    pub(super) fn pick_drawable(&self, c: &mut dyn Choices) -> Option<TextureId> {
        let pixel = self.setup.pixel_exact;
        self.pick(c, |t| !pixel || (t.color.is_some() && t.desc.usage != Usage::RenderTarget))
    }

    pub(super) fn color(&mut self, c: &mut dyn Choices) -> [u8; 4] {
        self.stamp += 1;
        [c.below(256) as u8, c.below(256) as u8, (self.stamp as u8) | 1, 255]
    }

    /// One of the known files, through `register_file` (core's `ktx2` feature, which the kit's
    /// `compressed` enables).
    #[cfg(feature = "compressed")]
    fn register_known_file(&mut self, c: &mut dyn Choices) -> Result<(), String> {
        let f = self.files[c.below(self.files.len() as u64) as usize].clone();
        let like = TextureDesc::new(1, 1).with_filter(Filter::Nearest);
        match self.batcher.textures().register_file(&f.bytes, &like) {
            Ok(ids) if ids.len() == 1 => {
                let id = ids[0];
                let desc = self.batcher.desc(id).map_err(|e| format!("{e}"))?;
                trace(|| format!("register_file {id:?} {desc:?}"));
                self.model.written(id, desc, &f.blocks, Some(f.color));
                self.tally.files += 1;
                Ok(())
            }
            Err(layerbatch_core::FileError::Texture { source: TextureError::BudgetExhausted { .. }, .. }) => {
                self.tally.refused += 1;
                Ok(())
            }
            r => Err(format!("register_file of a known file: {r:?}")),
        }
    }

    fn register(&mut self, c: &mut dyn Choices) -> Result<(), String> {
        #[cfg(feature = "compressed")]
        if !self.files.is_empty() && c.chance(15) {
            return self.register_known_file(c);
        }
        let side = |c: &mut dyn Choices| if c.chance(60) { 1 << c.below(6) } else { 1 + c.below(40) as u32 };
        let mut desc = TextureDesc::new(side(c), side(c));
        if self.setup.pixel_exact || c.chance(30) {
            desc = desc.with_filter(Filter::Nearest);
        }
        let (pixels, color) = match c.below(20) {
            0 if !self.setup.pixel_exact => (Vec::new(), None),
            0 => return Ok(()),
            1 | 2 if self.setup.compressed => {
                let (block, color) = bc1_solid(c);
                let blocks = [c.below(4) as u32 + 1, c.below(4) as u32 + 1];
                desc = TextureDesc::new(blocks[0] * 4, blocks[1] * 4).with_format(Format::Bc1RgbaUnorm);
                desc = desc.with_filter(Filter::Nearest);
                (block.repeat((blocks[0] * blocks[1]) as usize), Some(color))
            }
            3 => {
                desc = desc.with_usage(Usage::Dynamic);
                let color = self.color(c);
                (solid(&desc, color), Some(color))
            }
            _ => {
                // Mipmapped, sometimes: class arrays of several levels (thin ones too) grow.
                if c.chance(20) {
                    let most = layerbatch_core::max_mip_levels(desc.width_px, desc.height_px);
                    desc = desc.with_mip_levels(1 + c.below(u64::from(most)) as u32);
                }
                let color = self.color(c);
                (solid(&desc, color), Some(color))
            }
        };
        if pixels.is_empty() {
            desc = desc.with_usage(Usage::RenderTarget);
        }
        let registered = if desc.format == Format::Bc1RgbaUnorm {
            self.register_blocks(c, &desc, &pixels)
        } else {
            self.batcher.textures().register(&desc, &pixels).map_err(Some)
        };
        match registered {
            Ok(id) => {
                if self.model.live.contains_key(&id) || self.model.dead.contains(&id) {
                    return Err(format!("register gave {id:?} again"));
                }
                trace(|| format!("register {id:?} {desc:?}"));
                self.model.written(id, desc, &pixels, color);
                Ok(())
            }
            Err(Some(TextureError::BudgetExhausted { .. }) | None) => {
                self.tally.refused += 1;
                Ok(())
            }
            Err(Some(e)) => Err(format!("register {desc:?}: {e}")),
        }
    }

    /// Registers BC1 `blocks` of `desc`: as a KTX2 file (zstd or not) through `register_file`
    /// where the kit makes files (feature `compressed`), else as blocks. `Err(None)`: refused
    /// for the budget.
    fn register_blocks(
        &mut self,
        c: &mut dyn Choices,
        desc: &TextureDesc,
        blocks: &[u8],
    ) -> Result<TextureId, Option<TextureError>> {
        #[cfg(feature = "compressed")]
        if c.chance(70) {
            use layerbatch_core::FileError;
            let file = crate::compressed::ktx2_file(
                desc.format,
                desc.width_px,
                desc.height_px,
                0,
                &[blocks.to_vec()],
                c.chance(50),
            );
            let like = TextureDesc::new(1, 1).with_filter(Filter::Nearest);
            return match self.batcher.textures().register_file(&file, &like) {
                Ok(ids) if ids.len() == 1 => Ok(ids[0]),
                Ok(ids) => panic!("a one-texture KTX2 file registered as {} textures", ids.len()),
                Err(
                    FileError::Texture { source: TextureError::BudgetExhausted { .. }, .. }
                    | FileError::TooLarge { .. },
                ) => Err(None),
                Err(FileError::Texture { source, .. }) => Err(Some(source)),
                Err(e) => panic!("register_file of a KTX2 file of BC1 blocks: {e}"),
            };
        }
        let _ = c;
        self.batcher.textures().register(desc, blocks).map_err(Some)
    }

    fn update(&mut self, c: &mut dyn Choices) -> Result<(), String> {
        let plain = |t: &super::model::Tex| !matches!(t.desc.usage, Usage::RenderTarget | Usage::Host);
        let Some(id) = self.pick(c, |t| plain(t) && t.desc.format == Format::Rgba8Unorm) else {
            return Ok(());
        };
        let desc = self.model.live[&id].desc;
        let color = self.color(c);
        let px = solid(&desc, color);
        self.batcher.textures().update(id, &px).map_err(|e| format!("update {id:?}: {e}"))?;
        trace(|| format!("update {id:?}"));
        self.model.written(id, desc, &px, Some(color));
        Ok(())
    }

    fn update_region(&mut self, c: &mut dyn Choices) -> Result<(), String> {
        let region = |t: &super::model::Tex| {
            t.desc.format == Format::Rgba8Unorm && t.desc.mip_levels == 1 && t.desc.usage != Usage::Host
        };
        let Some(id) = self.pick(c, |t| region(t) && !t.pixels.is_empty()) else { return Ok(()) };
        let t = self.model.live.get_mut(&id).ok_or("picked a dead texture")?;
        let [w, h] = [t.desc.width_px, t.desc.height_px];
        let (x, y) = (c.below(u64::from(w)) as u32, c.below(u64::from(h)) as u32);
        let (rw, rh) = (1 + c.below(u64::from(w - x)) as u32, 1 + c.below(u64::from(h - y)) as u32);
        let patch = [c.below(256) as u8, 7, 9, 255].repeat((rw * rh) as usize);
        self.batcher
            .textures()
            .update_region(id, [x, y, rw, rh], &patch)
            .map_err(|e| format!("update_region {id:?}: {e}"))?;
        for r in 0..rh as usize {
            let at = ((y as usize + r) * w as usize + x as usize) * 4;
            t.pixels[at..at + rw as usize * 4].copy_from_slice(&patch[r * rw as usize * 4..(r + 1) * rw as usize * 4]);
        }
        // A region of a texture whose pixels the device lost leaves the rest unknown.
        if t.content.is_some() {
            t.content = Some(layerbatch_core::MockDevice::hash(&t.pixels));
        }
        t.color = None;
        Ok(())
    }

    fn resize(&mut self, c: &mut dyn Choices) -> Result<(), String> {
        let Some(id) = self.pick(c, |t| matches!(t.desc.usage, Usage::Dynamic | Usage::Host)) else { return Ok(()) };
        let old = self.model.live[&id].desc;
        let desc = TextureDesc { width_px: 1 + c.below(40) as u32, height_px: 1 + c.below(40) as u32, ..old };
        let color = self.color(c);
        let px = solid(&desc, color);
        let host = old.usage == Usage::Host;
        match self.batcher.textures().resize(id, desc.width_px, desc.height_px, if host { &[] } else { &px }) {
            Ok(()) => {
                trace(|| format!("resize {id:?} to {}x{}", desc.width_px, desc.height_px));
                if host {
                    self.host_resized(id, desc, &px);
                }
                if self.model.frame.pushed.iter().any(|p| p.0 == id) {
                    self.model.frame.resized.insert(id);
                }
                self.model.written(id, desc, &px, Some(color));
                self.model.live.get_mut(&id).ok_or("resized a dead texture")?.normal_map = false;
                Ok(())
            }
            Err(TextureError::BudgetExhausted { .. }) => {
                self.tally.refused += 1;
                Ok(())
            }
            Err(TextureError::HostResizeInFrame(t)) if t == id && host && self.model.frame.open => {
                self.tally.refused += 1;
                Ok(())
            }
            Err(e) => Err(format!("resize {id:?}: {e}")),
        }
    }

    fn free(&mut self, c: &mut dyn Choices) -> Result<(), String> {
        let Some(id) = self.pick(c, |_| true) else { return Ok(()) };
        match (self.batcher.textures().free(id), self.model.in_resident(id)) {
            (Ok(()), false) => {
                trace(|| format!("free {id:?}"));
                if self.model.frame.open && self.model.frame.pushed.iter().any(|p| p.0 == id) {
                    let shown = self.model.shown(id);
                    self.model.frame.freed.insert(id, shown);
                }
                self.model.live.remove(&id);
                self.model.dead.push(id);
                match self.batcher.textures().free(id) {
                    Err(TextureError::Stale(s)) if s == id => Ok(()),
                    r => Err(format!("double free of {id:?}: {r:?}")),
                }
            }
            (Err(TextureError::InResident { texture, .. }), true) if texture == id => {
                self.tally.refused += 1;
                Ok(())
            }
            (r, sampled) => Err(format!("free {id:?}: {r:?}, the model says sampled by a resident: {sampled}")),
        }
    }

    /// The drawing state the batcher reports now.
    fn look(&mut self) -> Look {
        let s = self.batcher.state();
        (s.draw_state(), s.effect(), s.lit(), s.sort_key(), s.color_offset(), s.tint_encoding())
    }

    /// Effects, lights, normal maps, ramp rows, sort keys, colour offsets, tint encodings,
    /// saved and restored drawing states and clips (not in pixel-exact runs).
    fn looks(&mut self, c: &mut dyn Choices) -> Result<(), String> {
        let budget = self.batcher.budget().clone();
        let lights = budget.max_lights > 0;
        match c.below(7) {
            0 => {
                let effects = budget.effects.len() as u64;
                // Ids come from the budget; past its effects there is none to make.
                let k = c.below(effects + 2) as usize;
                let Some(id) = budget.effect_at(k) else {
                    self.tally.refused += 1;
                    return Ok(());
                };
                self.batcher.state().set_effect(id, [0.5, 0.25, 1.0, 0.5]);
                if self.batcher.state().effect().0 != id {
                    return Err(format!("set_effect {id:?}: reads back {:?}", self.batcher.state().effect()));
                }
            }
            1 => {
                let light = PointLight::new([c.below(200) as f32, 10.0], 40.0, [1.0, 0.5, 0.2]);
                match (self.batcher.add_light(light), lights, self.model.frame.open) {
                    (Ok(()), true, true) => self.model.frame.lights += 1,
                    (Err(LightError::Off), false, _) | (Err(LightError::NoFrame), true, false) => {
                        self.tally.refused += 1
                    }
                    (r, l, o) => return Err(format!("add_light (lights {l}, frame open {o}): {r:?}")),
                }
                self.batcher.state().set_lit(c.chance(70));
            }
            2 => {
                let Some(id) = self.pick(c, |t| {
                    t.desc.format == Format::Rgba8Unorm && !matches!(t.desc.usage, Usage::RenderTarget | Usage::Host)
                }) else {
                    return Ok(());
                };
                let d = self.model.live[&id].desc;
                let normals = [128, 128, 255, 255].repeat((d.width_px * d.height_px) as usize);
                let r = self.batcher.textures().register_normal_map(id, &normals);
                trace(|| format!("register_normal_map {id:?}: {r:?}"));
                match (r, lights) {
                    (Ok(()), true) => self.model.live.get_mut(&id).ok_or("dead")?.normal_map = true,
                    (Err(TextureError::NormalMapWithoutLights { .. }), false) => self.tally.refused += 1,
                    (Err(TextureError::NormalMapUnsupported { .. }), true) => self.tally.refused += 1,
                    (r, l) => return Err(format!("register_normal_map {id:?} (lights {l}): {r:?}")),
                }
            }
            3 => {
                let row = c.below(256) as u8;
                let colors = vec![[c.below(256) as u8, 0, 0, 255]; 1 + c.below(256) as usize];
                if self.batcher.textures().write_ramp_row(row, &colors).is_ok() {
                    self.model.ramp.insert(row, colors);
                } else {
                    self.tally.refused += 1;
                }
            }
            4 => {
                self.batcher.state().set_sort_key(SortKey::zy(c.below(5) as i16 - 2, c.below(100) as f32));
                let offset = [c.below(256) as u8, c.below(256) as u8, c.below(256) as u8];
                self.batcher.state().set_color_offset(offset);
                if self.batcher.state().color_offset() != offset {
                    return Err(format!(
                        "set_color_offset {offset:?}: reads back {:?}",
                        self.batcher.state().color_offset()
                    ));
                }
                let encoding = if c.chance(50) { TintEncoding::Srgb } else { TintEncoding::Linear };
                self.batcher.state().set_tint_encoding(encoding);
                if self.batcher.state().tint_encoding() != encoding {
                    return Err(format!(
                        "set_tint_encoding {encoding:?}: reads back {:?}",
                        self.batcher.state().tint_encoding()
                    ));
                }
            }
            5 if self.model.frame.open => self.save_or_restore(c)?,
            _ => {
                let clip = c.chance(50).then(|| [0, 0, c.below(300) as u32, c.below(300) as u32]);
                self.model.frame.clipped |= clip.is_some();
                self.batcher.state().set_clip(clip);
            }
        }
        Ok(())
    }

    /// `save_state` or `restore_state` in the open frame: a restore must bring back exactly
    /// what the batcher reported at the matching save, and none without a save.
    fn save_or_restore(&mut self, c: &mut dyn Choices) -> Result<(), String> {
        if c.chance(50) {
            self.batcher.state().save();
            let look = self.look();
            self.model.frame.saved.push(look);
        } else {
            let expected = self.model.frame.saved.pop();
            let restored = self.batcher.state().restore();
            trace(|| format!("restore_state: {restored}, the model's {expected:?}"));
            match expected {
                Some(look) if restored && self.look() == look => {}
                None if !restored => self.tally.refused += 1,
                expected => {
                    let now = self.look();
                    return Err(format!("restore_state {restored}: now {now:?}, saved {expected:?}"));
                }
            }
        }
        Ok(())
    }

    fn push(&mut self, c: &mut dyn Choices) -> Result<(), String> {
        if !self.model.frame.open {
            self.batcher.begin_frame();
            self.model.frame.open = true;
        }
        // Some runs of quads are recorded in parts on threads (`record_parts`): drawn as if
        // pushed in order.
        let parts = c.chance(25).then(|| 1 + c.below(3) as usize);
        let mut quads = Vec::new();
        for _ in 0..1 + c.below(12) {
            let cell = GRID[0] * GRID[1] - PUSH_CELLS + (self.model.frame.pushed.len() + quads.len()) as u32;
            if cell >= GRID[0] * GRID[1] {
                break;
            }
            let into_target = !self.setup.pixel_exact && c.chance(3);
            let t = match (into_target, self.model.frame.target) {
                (true, Some(t)) => t,
                _ => match self.pick_drawable(c) {
                    Some(t) => t,
                    None => break,
                },
            };
            if parts.is_some() {
                quads.push((t, cell));
                continue;
            }
            let pushed = self.batcher.push(&cell_quad(t, cell));
            self.pushed(t, cell, pushed)?;
            // Saves and restores between pushes, where looks changed in between matter most.
            if !self.setup.pixel_exact && c.chance(10) {
                self.save_or_restore(c)?;
            }
        }
        let Some(parts) = parts else { return Ok(()) };
        // Each part pushes its quads one by one or as one `push_all`, some under a sort key of
        // their own (which ends with the part).
        let how: Vec<(bool, Option<SortKey>)> = (0..parts)
            .map(|_| (c.chance(50), c.chance(30).then(|| SortKey::zy(c.below(5) as i16 - 2, c.below(100) as f32))))
            .collect();
        let key_before = self.batcher.state().sort_key();
        trace(|| format!("record_parts {parts} ({how:?}) of {quads:?}"));
        let size = quads.len().div_ceil(parts).max(1);
        let target = self.model.frame.target;
        let results = self.batcher.record_parts(parts, |lent| {
            std::thread::scope(|s| {
                let handles: Vec<_> = (lent.iter_mut().zip(&how).zip(quads.chunks(size)))
                    .map(|((part, &(all, key)), chunk)| s.spawn(move || record_part(part, chunk, all, key, target)))
                    .collect();
                handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect::<Vec<_>>()
            })
        });
        let results = results.map_err(|e| format!("record_parts in an open frame: {e}"))?;
        if let Some(Err(finding)) = results.iter().find(|r| r.is_err()) {
            return Err(finding.clone());
        }
        if results.len() != quads.len() {
            return Err(format!("record_parts recorded {} of {} quads", results.len(), quads.len()));
        }
        for (&(t, cell), r) in quads.iter().zip(results) {
            // The cell a quad lands in is where it was pushed; a refused one leaves its cell
            // empty, as a refused push does.
            self.pushed(t, cell, r?)?;
        }
        let key_after = self.batcher.state().sort_key();
        if key_after != key_before {
            return Err(format!("record_parts left the sort key {key_after:?}, was {key_before:?}"));
        }
        Ok(())
    }

    /// What a push of `t`'s quad at `cell` returned, told to the model.
    fn pushed(&mut self, t: TextureId, cell: u32, r: Result<(), QuadError>) -> Result<(), String> {
        match r {
            Ok(()) if Some(t) != self.model.frame.target => {
                trace(|| format!("push {t:?} at cell {cell}"));
                let normal = self.model.live.get(&t).is_some_and(|x| x.normal_map);
                self.model.frame.pushed.push((t, cell, normal));
            }
            Err(QuadError::SamplesTarget(s)) if s == t && Some(t) == self.model.frame.target => self.tally.refused += 1,
            r => return Err(format!("push of {t:?}: {r:?}")),
        }
        Ok(())
    }

    fn begin(&mut self, c: &mut dyn Choices) -> Result<(), String> {
        // A frame open now is discarded, as after a `?` in the host; updates parked for its
        // plan apply now.
        if self.model.frame.open && std::mem::take(&mut self.host.apply_after_plan) {
            self.apply_parked();
        }
        self.model.close_frame();
        if let Some(g) = &mut self.grid {
            g.drawn.clear();
        }
        let target = self.pick(c, |t| t.desc.usage == Usage::RenderTarget).filter(|_| c.chance(40));
        match target {
            Some(t) => self.batcher.begin_frame_into(t, Some([0.0, 0.0, 0.0, 1.0])).map_err(|e| format!("{e}"))?,
            // (traced below)
            None => self.batcher.begin_frame(),
        }
        self.model.frame.open = true;
        self.model.frame.target = target;
        trace(|| format!("begin_frame into {target:?}"));
        Ok(())
    }

    fn end_frame(&mut self) {
        trace(|| "end_frame".to_string());
        self.batcher.end_frame();
        self.host.ends_frames = true;
        self.host.drawn.clear();
        self.host.dropped = false;
        if self.model.frame.open {
            // Parked updates apply once the open frame's plan is made.
            self.host.apply_after_plan = true;
        } else {
            self.apply_parked();
        }
    }

    fn apply_parked(&mut self) {
        for r in self.model.residents.values_mut() {
            for (first, textures) in std::mem::take(&mut r.parked) {
                r.quads[first as usize..first as usize + textures.len()].copy_from_slice(&textures);
            }
        }
        if let Some(t) = &mut self.tiles {
            t.shown = t.parked.take().unwrap_or(t.shown);
        }
        self.apply_parked_grid();
    }

    /// `finish`, then the plan on the mock device and against the model.
    pub(super) fn finish(&mut self) -> Result<Planned, String> {
        let target = self.model.frame.target;
        let max_lights = self.batcher.budget().max_lights as usize;
        self.grid_before_plan();
        let plan = self.batcher.finish();
        self.tally.plans += 1;
        trace(|| {
            let ops: Vec<String> = (plan.ops.iter())
                .filter_map(|o| match o {
                    layerbatch_core::plan::ResourceOp::Array(a) => Some(format!("{a:?}")),
                    layerbatch_core::plan::ResourceOp::Resident(r) => Some(format!("{r:?}")),
                    _ => None,
                })
                .collect();
            let segs: Vec<String> = (plan.segments.iter())
                .map(|s| {
                    format!(
                        "{:?} {:?} binds {:?}",
                        s.resident,
                        s.instances,
                        &plan.binds[s.binds.start as usize..s.binds.end as usize]
                    )
                })
                .collect();
            format!("finish: plan {} rebuild {} ops {ops:?} segments {segs:?}", plan.sequence, plan.rebuild)
        });
        if let Err(e) = self.device.execute(plan) {
            let segments: Vec<String> = (plan.segments.iter())
                .map(|s| {
                    format!(
                        "{:?} {:?} {:?}",
                        s.resident,
                        s.instances,
                        &plan.slot_tables[s.slots.start as usize..s.slots.end as usize]
                    )
                })
                .collect();
            let sequence = plan.sequence;
            let placed: Vec<String> = (self.model.live.keys())
                .filter_map(|id| self.batcher.placement(*id).ok().map(|p| format!("{id:?}@{:?}/{}", p.array, p.layer)))
                .collect();
            return Err(format!(
                "the batcher's own plan {sequence} is refused: {e}\nsegments {segments:?}\nplacements {placed:?}"
            ));
        }
        let tiles = self.tiles.as_ref().map(|t| ([t.sets[0], t.sets[1 + t.shown]], t.sets[2 - t.shown]));
        self.model.check_plan(plan, &self.device, tiles, max_lights)?;
        let grid_drawn = super::grids::check(&mut self.grid, &self.model, &self.device, plan)?;
        self.check_motions()?;
        for (row, colors) in &self.model.ramp {
            let kept = self.batcher.textures().ramp_row(*row).ok_or(format!("ramp row {row} written, not kept"))?;
            if kept.get(..4) != Some(&colors[0][..]) {
                return Err(format!("ramp row {row} holds other colours than written"));
            }
        }
        self.tally.resident_quads += self.model.frame.drawn.iter().map(|d| u64::from(d.1.end - d.1.start)).sum::<u64>();
        let dropped = self.batcher.plan().counters.resident_draws_dropped > 0;
        self.picture = match (self.setup.pixel_exact, target) {
            (true, None) if !dropped => {
                let shown = self.tiles.as_ref().map(|t| [t.sets[0], t.sets[1 + t.shown]]);
                self.model.picture(GRID, CELL_PX, CLEAR, shown)
            }
            _ => None,
        };
        self.host.drawn.extend(self.model.frame.drawn.iter().map(|d| d.0));
        self.host.drawn.extend(grid_drawn);
        self.host.dropped |= dropped;
        if !self.host.ends_frames {
            // Each plan is a host frame of its own.
            self.host.drawn.clear();
            self.host.dropped = false;
        }
        self.model.close_frame();
        if std::mem::take(&mut self.host.apply_after_plan) {
            self.apply_parked();
        }
        Ok(Planned { to_framebuffer: target.is_none() })
    }

    fn restore(&mut self, c: &mut dyn Choices) -> Result<(), String> {
        let keep = self.batcher.budget().keep_pixels;
        let listed: BTreeSet<TextureId> = self.batcher.restore().into_iter().collect();
        trace(|| format!("restore, listed {listed:?}"));
        self.tally.restores += 1;
        self.restored = true;
        self.restore_grid();
        if keep && !listed.is_empty() {
            return Err(format!("CPU copies on, yet restore listed {listed:?}"));
        }
        // Textures freed in the open frame are gone with the device: the quads pushed before
        // their free show nothing known.
        for f in self.model.frame.freed.values_mut() {
            *f = (None, None);
        }
        if c.chance(50) {
            // The device was lost: a new one.
            self.device = layerbatch_core::MockDevice::new(self.batcher.budget());
        }
        let ids: Vec<TextureId> = self.model.live.keys().copied().collect();
        for id in ids {
            let t = &self.model.live[&id];
            if matches!(t.desc.usage, Usage::RenderTarget | Usage::Host) {
                if listed.contains(&id) {
                    return Err(format!("restore listed render target or host texture {id:?}"));
                }
                continue;
            }
            if listed.contains(&id) {
                if self.setup.pixel_exact || c.chance(90) {
                    let (desc, color, px) = (t.desc, t.color, t.pixels.clone());
                    self.batcher.textures().update(id, &px).map_err(|e| format!("re-sending {id:?}: {e}"))?;
                    self.model.written(id, desc, &px, color);
                } else {
                    let t = self.model.live.get_mut(&id).ok_or("dead")?;
                    t.content = None;
                    t.color = None;
                }
            }
        }
        for id in &listed {
            if !self.model.live.contains_key(id) {
                return Err(format!("restore listed dead or unknown {id:?}"));
            }
        }
        self.host_restored();
        Ok(())
    }

    /// Frees and destroys everything, then one last plan.
    pub(super) fn wind_down(&mut self) -> Result<(), String> {
        self.end_frame();
        self.batcher.begin_frame();
        self.model.close_frame();
        self.model.frame.open = true;
        let residents: Vec<ResidentId> = self.model.residents.keys().copied().collect();
        for id in residents {
            self.batcher.textures().destroy_resident(id).map_err(|e| format!("destroy {id:?} at the end: {e}"))?;
            self.model.residents.remove(&id);
        }
        self.tiles = None;
        self.wind_down_grid()?;
        let ids: Vec<TextureId> = self.model.live.keys().copied().collect();
        for id in ids {
            self.batcher.textures().free(id).map_err(|e| format!("free {id:?} at the end: {e}"))?;
            self.model.live.remove(&id);
        }
        self.finish().map(|_| ())
    }
}
