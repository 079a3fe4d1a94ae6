//! The draw walk: what a device does to draw a plan's segments, decided once, here.
//!
//! [`DrawSteps::walk`] turns a validated plan and the viewport it is drawn into into a list of
//! [`DrawStep`]s: the instance block to use, the slot binds, the program of a tier, the blend
//! mode, the draw state (its transform), the scissor, and the draws, each yielded only when
//! it changes, and counts them in [`DeviceCounters`]. The mock, layerbatch-gl and
//! layerbatch-wgpu translate the steps into calls and decide nothing, so a draw feature is one
//! change here, and every executor skips, binds and counts alike.
//!
//! ```
//! use layerbatch_core::{Batcher, Clip, Config, DeviceCounters, Limits, Quad, TextureDesc};
//! use layerbatch_core::execute::{DrawStep, DrawSteps};
//! let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default())?;
//! let red = batcher.textures().register(&TextureDesc::new(16, 16), &[255, 0, 0, 255].repeat(16 * 16))?;
//! batcher.begin_frame();
//! batcher.push(&Quad::rect(red, [0.0, 0.0], [16.0, 16.0]))?;
//! batcher.state().set_clip(Some([200, 200, 10, 10])); // outside a 100 x 100 target
//! batcher.push(&Quad::rect(red, [0.0, 0.0], [16.0, 16.0]))?;
//! let plan = batcher.finish();
//! assert_eq!(plan.segments.len(), 2);
//!
//! let mut steps = DrawSteps::default();
//! let mut counters = DeviceCounters::one_frame();
//! steps.walk(plan, &[100, 100].into(), false, &mut counters);
//! // The second segment is clipped away: one draw, and no scissor was ever set.
//! assert_eq!(counters.draw_calls, 1);
//! assert_eq!(counters.segments_clipped_away, 1);
//! assert!(!steps.steps().iter().any(|s| matches!(s, DrawStep::Scissor(_))));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::plan::ArrayId;
use crate::plan::{BlendMode, Clip, FramePlan, ResidentId, SlotBind, Viewport};
use crate::{DeviceCounters, MAX_SLOTS_PER_DRAW};

/// One change a device makes while drawing a plan, in order ([`DrawSteps::walk`]).
///
/// A walk starts from nothing bound, no program, [`BlendMode::Over`], no draw state and the
/// scissor as the host left it; each step changes one of these, and is yielded only when the
/// next draw needs a different value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DrawStep {
    /// Use instance block `block` of the plan ([`FramePlan::block_pieces`]) for the draws that
    /// follow: upload it, and set the vertex buffer it was uploaded to. Its vertex bytes
    /// ([`FramePlan::block_bytes`]) are counted in [`DeviceCounters::instance_bytes_written`].
    /// Each block is uploaded at most once a walk, in increasing order, and a block none of
    /// whose segments draws is never used.
    Block {
        /// The block.
        block: u32,
    },
    /// Use instance block `block` again, uploaded earlier in this walk: the draws between
    /// came from a resident layer. Set its vertex buffer; upload nothing.
    BlockAgain {
        /// The block.
        block: u32,
    },
    /// Use resident layer `resident`'s buffer for the draws that follow, from its instance
    /// `base` on (a [`DrawStep::Draw`]'s `first_in_block` counts from it): 0, or with indexed
    /// quads a multiple of the instance capacity (the quad indices cover one capacity).
    /// Nothing is uploaded.
    Resident {
        /// The resident layer.
        resident: ResidentId,
        /// The instance the draws' `first_in_block` counts from.
        base: u32,
    },
    /// Bind `bind.array` in `bind.slot` for segment `segment`'s draw (counted in
    /// [`DeviceCounters::texture_binds`]).
    Bind {
        /// The segment whose draw needs it (for errors).
        segment: u32,
        /// The slot and the array.
        bind: SlotBind,
    },
    /// Draw with the program of `tier` slots, from segment `segment`'s draw on: the tier's
    /// effect program when `effects` ([`crate::plan::Segment::effects`]), else its plain one.
    Program {
        /// The segment whose draw needs it (for errors).
        segment: u32,
        /// The tier.
        tier: u32,
        /// The effect program.
        effects: bool,
    },
    /// Blend the draws that follow with `mode`.
    Blend(BlendMode),
    /// Draw with draw state `state` ([`FramePlan::states`]): its transform, mapped into the
    /// viewport ([`Viewport::transform`]), is `transform`, and its tint `tint`.
    State {
        /// Index into [`FramePlan::states`].
        state: u32,
        /// The transform to draw with.
        transform: [f32; 6],
        /// The tint every quad's colour is multiplied with ([`crate::plan::DrawState::tint`]).
        tint: [f32; 4],
        /// The look ORed into every quad's ([`crate::plan::DrawState::look`]) and its
        /// parameters: [`crate::shader::GlobalsEntry::with_look`].
        look: (u32, [u8; 4]),
    },
    /// Set the scissor ([`Viewport::scissor`]): a rectangle of the target (y down), or
    /// [`Clip::Full`]: none (a backend that cannot unset one sets
    /// [`Viewport::restored_scissor_px`]). Never [`Clip::Empty`]: such segments are skipped.
    Scissor(Clip),
    /// The walk set a scissor: put back what the host had ([`Viewport::restored_scissor_px`]).
    /// The last step of a walk that set one; an executor that restores the host's state
    /// wholesale after drawing (layerbatch-gl) has nothing to do.
    RestoreScissor,
    /// Draw `count` primitives from instance `first` of the plan (or of the resident layer
    /// in use), which is instance `first_in_block` of the block (or from the resident's
    /// `base`) in use.
    Draw {
        /// The segment drawn.
        segment: u32,
        /// Its first instance in the plan, or in the resident layer.
        first: u32,
        /// Its first instance in its block, or from the resident's `base`.
        first_in_block: u32,
        /// Primitives drawn.
        count: u32,
        /// Drawn indexed, four vertex records a primitive (the plan's way,
        /// [`FramePlan::drawn_indexed`], or a resident's, the budget's `indexed_quads`), or
        /// instanced.
        indexed: bool,
    },
}

/// The draw steps of one plan, kept from walk to walk (no allocation in steady state).
#[derive(Clone, Debug, Default)]
pub struct DrawSteps {
    steps: Vec<DrawStep>,
}

/// Where the draws' instances come from.
#[derive(Clone, Copy, PartialEq)]
enum Source {
    Block(u32),
    Resident(ResidentId, u32),
}

/// What the walk has set so far.
struct Current {
    source: Option<Source>,
    /// The last block uploaded.
    uploaded: Option<u32>,
    bound: [Option<ArrayId>; MAX_SLOTS_PER_DRAW as usize],
    /// The tier and variant of the program in use.
    program: Option<(u32, bool)>,
    blend: BlendMode,
    state: Option<u32>,
    /// The scissor set, `None` while it is the host's.
    scissor: Option<Clip>,
}

impl DrawSteps {
    /// The steps of the last walk.
    pub fn steps(&self) -> &[DrawStep] {
        &self.steps
    }

    /// Walks `plan`'s segments drawn into `vp` by an executor whose budget says
    /// `indexed_quads`, replacing the steps, and counts them into `counters`: `draw_calls`,
    /// `texture_binds`, `instance_bytes_written`, `segments_clipped_away` and `draw_steps`.
    ///
    /// A segment whose clip leaves nothing of the target ([`Clip::Empty`], also every segment
    /// when the viewport shows nothing) is skipped: no step, counted in
    /// `segments_clipped_away`. Binds are relative to the walk's start, where nothing is
    /// bound: the first draw that samples a slot binds it, whatever earlier plans bound.
    ///
    /// For a plan the [`crate::validate::PlanValidator`] accepted: slots, tiers and ranges are taken as
    /// they are (a slot past [`MAX_SLOTS_PER_DRAW`] is not bound).
    pub fn walk(&mut self, plan: &FramePlan, vp: &Viewport, indexed_quads: bool, counters: &mut DeviceCounters) {
        self.steps.clear();
        let capacity = plan.instance_capacity.max(1);
        let primitive_bytes = u64::from(plan.primitive_bytes(indexed_quads));
        let indexed = plan.drawn_indexed(indexed_quads);
        // A resident's draws: one for all its instances, or with indexed quads within one
        // capacity (what the quad indices cover). Core splits them so.
        let resident_span = if indexed_quads { capacity } else { u32::MAX };
        let mut cur = Current {
            source: None,
            uploaded: None,
            bound: [None; MAX_SLOTS_PER_DRAW as usize],
            program: None,
            blend: BlendMode::Over,
            state: None,
            scissor: None,
        };
        for (index, seg) in plan.segments.iter().enumerate() {
            let state = plan.state(seg);
            let clip = vp.scissor(state.clip_px);
            if clip == Clip::Empty || seg.instances.is_empty() {
                counters.segments_clipped_away += u64::from(clip == Clip::Empty);
                continue;
            }
            // Full is what the host left unless a scissor was set.
            if cur.scissor.unwrap_or(Clip::Full) != clip {
                self.steps.push(DrawStep::Scissor(clip));
                cur.scissor = Some(clip);
            }
            let (source, base, seg_indexed) = match seg.resident {
                Some(r) => {
                    let base = seg.instances.start / resident_span * resident_span;
                    (Source::Resident(r, base), base, indexed_quads)
                }
                None => {
                    let block = seg.instances.start / capacity;
                    (Source::Block(block), block * capacity, indexed)
                }
            };
            if cur.source != Some(source) {
                match source {
                    Source::Block(block) if cur.uploaded.is_some_and(|u| u >= block) => {
                        self.steps.push(DrawStep::BlockAgain { block })
                    }
                    Source::Block(block) => {
                        self.steps.push(DrawStep::Block { block });
                        counters.instance_bytes_written += plan.block_len(block) as u64 * primitive_bytes;
                        cur.uploaded = Some(block);
                    }
                    Source::Resident(resident, base) => self.steps.push(DrawStep::Resident { resident, base }),
                }
                cur.source = Some(source);
            }
            for (slot, array) in plan.slots(seg).iter().enumerate() {
                let (Some(array), Some(bound)) = (array, cur.bound.get_mut(slot)) else { continue };
                if *bound != Some(*array) {
                    *bound = Some(*array);
                    let bind = SlotBind { slot: slot as u32, array: *array };
                    self.steps.push(DrawStep::Bind { segment: index as u32, bind });
                    counters.texture_binds += 1;
                }
            }
            if cur.program != Some((seg.tier, seg.effects)) {
                self.steps.push(DrawStep::Program { segment: index as u32, tier: seg.tier, effects: seg.effects });
                cur.program = Some((seg.tier, seg.effects));
            }
            if cur.blend != state.blend {
                self.steps.push(DrawStep::Blend(state.blend));
                cur.blend = state.blend;
            }
            if cur.state != Some(seg.state) {
                let transform = vp.transform(state.transform);
                let look = (state.look, state.look_params);
                self.steps.push(DrawStep::State { state: seg.state, transform, tint: state.tint, look });
                cur.state = Some(seg.state);
            }
            self.steps.push(DrawStep::Draw {
                segment: index as u32,
                first: seg.instances.start,
                first_in_block: seg.instances.start - base,
                count: seg.instances.end - seg.instances.start,
                indexed: seg_indexed,
            });
            counters.draw_calls += 1;
        }
        // A scissor of the whole target (or of the host's clip) is what the host had.
        if matches!(cur.scissor, Some(Clip::Rect(r)) if r != vp.restored_scissor_px()) {
            self.steps.push(DrawStep::RestoreScissor);
        }
        counters.draw_steps += self.steps.len() as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Batcher, Config, Limits, Quad, TextureDesc};

    fn batcher() -> (Batcher, Vec<crate::TextureId>) {
        let config = Config::default().with_max_packed_size_px(0).with_instance_capacity(4);
        let mut b = Batcher::new(Limits::guaranteed_minimum(), config).unwrap();
        let sizes = [16, 32, 64];
        let ids = sizes
            .iter()
            .map(|&s| b.textures().register(&TextureDesc::new(s, s), &vec![255; (s * s * 4) as usize]).unwrap());
        let ids = ids.collect();
        (b, ids)
    }

    fn walk(plan: &FramePlan, size: [u32; 2]) -> (Vec<DrawStep>, DeviceCounters) {
        let mut steps = DrawSteps::default();
        let mut c = DeviceCounters::one_frame();
        steps.walk(plan, &size.into(), false, &mut c);
        (steps.steps().to_vec(), c)
    }

    // Each change is one step, only when it changes: two segments of one state in one block
    // share their program, blend and state; a clip sets a scissor and the walk restores it.
    #[test]
    fn steps_are_changes_only_and_a_scissor_is_restored() {
        let (mut b, ids) = batcher();
        b.begin_frame();
        b.push(&Quad::rect(ids[0], [0.0, 0.0], [8.0, 8.0])).unwrap();
        b.state().set_clip(Some([0, 0, 10, 10]));
        b.push(&Quad::rect(ids[1], [0.0, 0.0], [8.0, 8.0])).unwrap();
        let plan = b.finish().clone();
        let (steps, c) = walk(&plan, [100, 100]);
        let kinds: Vec<&str> = steps
            .iter()
            .map(|s| match s {
                DrawStep::Block { .. } => "block",
                DrawStep::BlockAgain { .. } => "again",
                DrawStep::Resident { .. } => "resident",
                DrawStep::Bind { .. } => "bind",
                DrawStep::Program { .. } => "program",
                DrawStep::Blend(_) => "blend",
                DrawStep::State { .. } => "state",
                DrawStep::Scissor(_) => "scissor",
                DrawStep::RestoreScissor => "restore",
                DrawStep::Draw { .. } => "draw",
            })
            .collect();
        let segments = plan.segments.len();
        assert_eq!(segments, 2, "a clip change ends the segment");
        assert_eq!(kinds[..4], ["block", "bind", "program", "state"]);
        assert_eq!(kinds[4], "draw");
        assert_eq!(kinds.last(), Some(&"restore"));
        assert!(kinds.contains(&"scissor"));
        assert_eq!(c.draw_steps, steps.len() as u64);
        assert_eq!((c.draw_calls, c.segments_clipped_away), (2, 0));
    }

    // A block whose every segment is clipped away is never used: no bytes counted for it, and
    // a slot only the skipped segment samples is never bound.
    #[test]
    fn a_block_clipped_away_is_not_uploaded() {
        let (mut b, ids) = batcher();
        b.begin_frame();
        for _ in 0..4 {
            b.push(&Quad::rect(ids[0], [0.0, 0.0], [8.0, 8.0])).unwrap();
        }
        b.state().set_clip(Some([500, 500, 10, 10]));
        for _ in 0..4 {
            b.push(&Quad::rect(ids[2], [0.0, 0.0], [8.0, 8.0])).unwrap();
        }
        b.state().set_clip(None);
        b.push(&Quad::rect(ids[1], [0.0, 0.0], [8.0, 8.0])).unwrap();
        let plan = b.finish().clone();
        let (steps, c) = walk(&plan, [100, 100]);
        let blocks: Vec<u32> = steps
            .iter()
            .filter_map(|s| match s {
                DrawStep::Block { block, .. } => Some(*block),
                _ => None,
            })
            .collect();
        assert_eq!(blocks, [0, 2]);
        assert_eq!(c.instance_bytes_written, 5 * 64);
        assert_eq!((c.draw_calls, c.segments_clipped_away), (2, 1));
        let bound: Vec<_> = steps.iter().filter(|s| matches!(s, DrawStep::Bind { .. })).collect();
        assert_eq!(bound.len(), 2, "the clipped segment's array is never bound: {steps:?}");
        // Not visible at all: nothing but counts.
        let (steps, c) = walk(&plan, [0, 0]);
        assert!(steps.is_empty());
        assert_eq!((c.draw_calls, c.segments_clipped_away, c.instance_bytes_written), (0, 3, 0));
    }

    // Inside a host's clip (an egui callback's): a clip outside it leaves nothing, a clip
    // inside it is set, and the host's clip is what the walk puts back.
    #[test]
    fn a_clip_outside_the_hosts_is_skipped_and_the_hosts_put_back() {
        let (mut b, ids) = batcher();
        b.begin_frame();
        b.push(&Quad::rect(ids[0], [0.0, 0.0], [8.0, 8.0])).unwrap();
        b.state().set_clip(Some([60, 60, 10, 10]));
        b.push(&Quad::rect(ids[1], [0.0, 0.0], [8.0, 8.0])).unwrap();
        b.state().set_clip(Some([12, 12, 4, 4]));
        b.push(&Quad::rect(ids[2], [0.0, 0.0], [8.0, 8.0])).unwrap();
        let plan = b.finish().clone();
        let vp = Viewport::full([100, 100]).with_host_clip(Some([10, 10, 40, 40]));
        let mut steps = DrawSteps::default();
        let mut c = DeviceCounters::one_frame();
        steps.walk(&plan, &vp, false, &mut c);
        let scissors: Vec<Clip> = steps
            .steps()
            .iter()
            .filter_map(|s| match s {
                DrawStep::Scissor(clip) => Some(*clip),
                _ => None,
            })
            .collect();
        assert_eq!(scissors, [Clip::Rect([10, 10, 40, 40]), Clip::Rect([12, 12, 4, 4])]);
        assert_eq!(steps.steps().last(), Some(&DrawStep::RestoreScissor));
        assert_eq!((c.draw_calls, c.segments_clipped_away), (2, 1));
    }
}
