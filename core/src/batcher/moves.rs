//! Textures that moved: arrays grown or shrunk, rectangles compacted (GPU copies), and
//! rectangles of arrays no plan has brought to the device laid out afresh (their pending
//! writes follow). Every `TextureId` stays valid through all of them.

use super::Batcher;
use crate::alloc::{Moved, Placement, Relaid};
use crate::plan::ArrayId;
use crate::plan::ResourceOp;

impl Batcher {
    /// Every placement in array `old` now lives at the same place of `new` (a growth, which
    /// may enlarge the layers, or a shrink).
    pub(super) fn array_moved(&mut self, old: ArrayId, new: ArrayId) {
        let desc = *self.alloc.array(new).expect("the new array lives");
        if old == new && !self.alloc.is_page_array(new) {
            // A class array grown in place before reaching the device: more layers, same
            // layer size, so no placement changes.
            return;
        }
        self.ladder.replace(old, new);
        let (lw, lh) = (desc.width_px as f32, desc.height_px as f32);
        for i in 0..self.registry.entries.len() {
            let e = &mut self.registry.entries[i];
            if e.live && e.placement.array == old {
                e.placement.array = new;
                let [x, y, w, h] = e.placement.rect_px.map(|v| v as f32);
                e.placement.uv_rect = [x / lw, y / lh, (x + w) / lw, (y + h) / lh];
                self.registry.refresh_hot(i as u32, &self.alloc, &self.ladder);
            }
        }
        for (p, _) in self.deferred_frees.iter_mut().chain(self.frames.waiting.iter_mut()) {
            if p.array == old {
                p.array = new;
            }
        }
        if self.recorder.open && old != new {
            self.recorder.moved.push((old, new));
        }
    }

    /// Rectangles of arrays no plan has brought to the device were laid out afresh: their
    /// textures' placements, and the pending writes into them, follow.
    pub(super) fn apply_relaid(&mut self, relaid: &[Relaid]) {
        let mut moves = std::collections::HashMap::with_capacity(relaid.len());
        for r in relaid {
            let i = r.owner as usize;
            let Some(e) = self.registry.entries.get_mut(i).filter(|e| e.live) else { continue };
            let Some(desc) = self.alloc.array(r.array) else { continue };
            let old = e.placement;
            let [_, _, w, h] = old.rect_px;
            let (lw, lh) = (desc.width_px as f32, desc.height_px as f32);
            let [x, y] = r.xy;
            e.placement = Placement {
                array: r.array,
                layer: r.layer,
                rect_px: [x, y, w, h],
                uv_rect: [x as f32 / lw, y as f32 / lh, (x + w) as f32 / lw, (y + h) as f32 / lh],
                dedicated: false,
            };
            moves.insert(r.owner, (e.generation, old, e.placement));
            self.registry.refresh_hot(r.owner, &self.alloc, &self.ladder);
        }
        for op in &mut self.ops {
            let ResourceOp::WriteLayer { texture, array, layer, x_px, y_px, .. } = op else { continue };
            let Some(&(generation, old, new)) = moves.get(&texture.index) else { continue };
            if texture.generation == generation && *array == old.array && *layer == old.layer {
                *array = new.array;
                *layer = new.layer;
                *x_px = *x_px - old.rect_px[0] + new.rect_px[0];
                *y_px = *y_px - old.rect_px[1] + new.rect_px[1];
            }
        }
    }

    /// Applies what the allocator's memory return or compaction moved.
    pub(super) fn apply_moved(&mut self, moved: &[Moved]) {
        for m in moved {
            match *m {
                Moved::Array { from, to } => self.array_moved(from, to),
                Moved::Destroyed(array) => self.ladder.forget(array),
                Moved::Rect { owner, from, from_layer, from_xy, to, to_layer, to_xy } => {
                    // The owner is the registry index: no search (a registry of 40,000 made
                    // each moved rectangle a scan of it).
                    let i = owner as usize;
                    let owned = self.registry.entries.get(i).is_some_and(|e| {
                        e.live
                            && e.placement.array == from
                            && e.placement.layer == from_layer
                            && e.placement.rect_px[..2] == from_xy
                    });
                    if !owned {
                        // A freed texture's rectangle waiting for the host's frame to end
                        // moves too: it is freed where it is then.
                        let waiting = self
                            .frames
                            .waiting
                            .iter_mut()
                            .map(|(p, _)| p)
                            .find(|p| p.array == from && p.layer == from_layer && p.rect_px[..2] == from_xy);
                        debug_assert!(waiting.is_some(), "a moved rectangle belongs to a live or waiting owner");
                        if let (Some(p), Some(desc)) = (waiting, self.alloc.array(to)) {
                            let [_, _, w, h] = p.rect_px;
                            let (lw, lh) = (desc.width_px as f32, desc.height_px as f32);
                            let (x, y) = (to_xy[0] as f32, to_xy[1] as f32);
                            *p = Placement {
                                array: to,
                                layer: to_layer,
                                rect_px: [to_xy[0], to_xy[1], w, h],
                                uv_rect: [x / lw, y / lh, (x + w as f32) / lw, (y + h as f32) / lh],
                                dedicated: false,
                            };
                        }
                        continue;
                    }
                    let desc = *self.alloc.array(to).expect("the new array lives");
                    let e = &mut self.registry.entries[i];
                    let [_, _, w, h] = e.placement.rect_px;
                    let (lw, lh) = (desc.width_px as f32, desc.height_px as f32);
                    let (x, y) = (to_xy[0] as f32, to_xy[1] as f32);
                    e.placement.array = to;
                    e.placement.layer = to_layer;
                    e.placement.rect_px = [to_xy[0], to_xy[1], w, h];
                    e.placement.uv_rect = [x / lw, y / lh, (x + w as f32) / lw, (y + h as f32) / lh];
                    self.registry.refresh_hot(i as u32, &self.alloc, &self.ladder);
                    // A slot that held the old array holds the new one (idempotent).
                    self.ladder.replace(from, to);
                }
            }
        }
    }
}
