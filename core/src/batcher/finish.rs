//! `finish`: the frame's plan, made by a fixed list of named stages. Each stage reads what the
//! ones before it made; the pure ones ([`count_ops`], [`mark_states`], [`mark_effects`]) are
//! functions of their inputs, tested below.

use crate::plan::{ArrayOp, FramePlan, Instance, Instances, PlanTarget, ResidentOp, ResourceOp, Segment};
use crate::{Batcher, Counters};

impl Batcher {
    /// Plans the recorded frame: resource ops to apply, then segments to draw in order.
    ///
    /// Every plan must reach the backend, in order: its resource ops (creations, growths,
    /// uploads) build on the previous plan's, and slot binds assume the previous plan's slot
    /// tables. A host that skips drawing a frame (a minimised window) should skip
    /// `begin_frame`/`finish` too, not just the draw. Plans are numbered
    /// ([`FramePlan::sequence`]) and every executor refuses a gap or a repeat with
    /// [`crate::PlanError::Sequence`]; after a gap, [`Batcher::restore`] is the way back.
    ///
    /// Without an open frame, this plans an empty frame (as if `begin_frame` had been called).
    pub fn finish(&mut self) -> &FramePlan {
        if !self.recorder.open {
            self.begin_frame();
        }
        let target = self.recorder.close();
        self.frame.sorted_items = self.sort_frame();
        (self.frame.lights, self.frame.lights_dropped) = self.plan_lights();
        self.start_plan(target);
        self.plan_residents();
        self.plan_host_contents();
        self.plan_ops();
        self.frame.ramp_rows_written = self.plan_ramp();
        self.take_recorded();
        count_ops(&self.plan, &mut self.frame);
        let r = &self.recorder;
        self.ladder.plan_frame(
            &r.prefix,
            &r.quad_arrays,
            &r.flush_marks,
            &self.budget,
            &mut self.plan,
            &mut self.frame,
        );
        mark_states(&mut self.plan, &r.states, &r.state_marks);
        if r.effects_used {
            mark_effects(&mut self.plan);
        }
        self.plan.index_triangle_blocks();
        self.frame.draw_calls += self.splice_residents();
        self.maintain();
        self.close_counters();
        &self.plan
    }

    /// Stage: the plan's header (target, time, sequence, rebuild flag), its draws cleared.
    fn start_plan(&mut self, target: Option<PlanTarget>) {
        let plan = &mut self.plan;
        plan.time_s = self.time_s;
        plan.batcher = self.registry.tag;
        plan.target = target;
        self.sequence += 1;
        plan.sequence = self.sequence;
        plan.rebuild = std::mem::take(&mut self.rebuild_pending);
        plan.segments.clear();
        plan.binds.clear();
        plan.slot_tables.clear();
    }

    /// Stage: writes superseded since the last plan dropped; resident layers drawn whose
    /// textures moved rewritten, new ones written, moved sprites' motions written, by this
    /// plan's ops.
    fn plan_residents(&mut self) {
        self.writes.drop_superseded(&mut self.ops, &mut self.upload_bytes);
        self.settle_drawn_residents();
        self.write_new_residents();
        self.write_moved_motions();
        self.write_changed_cells();
    }

    /// Stage: the queued resource ops move into the plan. Arrays born and grown inside this
    /// plan are created once, at their final size; arrays it destroys or grows from are freed
    /// once its commands finish.
    fn plan_ops(&mut self) {
        std::mem::swap(&mut self.plan.ops, &mut self.ops);
        self.ops.clear();
        self.alloc.patch_ops(self.plan.ops.iter_mut().filter_map(|op| match op {
            ResourceOp::Array(a) => Some(a),
            ResourceOp::WriteLayer { .. } | ResourceOp::Resident(_) => None,
        }));
        self.alloc.end_plan();
    }

    /// Stage: upload bytes, resident instances, motions, instances and triangles move into the plan.
    /// An instance cannot carry a triangle: a plan with triangles is drawn indexed.
    fn take_recorded(&mut self) {
        let plan = &mut self.plan;
        std::mem::swap(&mut plan.upload_bytes, &mut self.upload_bytes);
        self.upload_bytes.clear();
        std::mem::swap(&mut plan.resident_instances, &mut self.residents.pending);
        self.residents.pending.clear();
        std::mem::swap(&mut plan.motions, &mut self.residents.pending_motions);
        self.residents.pending_motions.clear();
        std::mem::swap(&mut plan.cells, &mut self.residents.pending_cells);
        self.residents.pending_cells.clear();
        std::mem::swap(&mut plan.instances, &mut self.recorder.instances);
        std::mem::swap(&mut plan.triangles, &mut self.recorder.triangles);
        plan.indexed = self.budget.indexed_quads || !plan.triangles.is_empty();
    }

    /// Stage: after the draws, resident layers doomed by this plan buried, layers freed
    /// during it released (or when the host's frame ends), and memory given back between
    /// frames: the next plan carries the ops.
    fn maintain(&mut self) {
        self.bury_doomed_residents();
        self.refresh_slots();
        self.plan_finished();
        let moved = self.alloc.maintain();
        self.apply_moved(&moved);
        self.refresh_slots();
        self.drain_alloc_ops();
    }

    /// Stage: the levels and the counts kept outside the plan, then the frame's counters
    /// into the totals and the plan. Textures decoded or transcoded at registration, maybe
    /// between plans, count in the plan that uploads them.
    fn close_counters(&mut self) {
        self.frame.bytes_allocated = self.alloc.allocated_bytes();
        self.frame.resident_bytes = self.residents.bytes;
        self.frame.cpu_copy_bytes = self.cpu_copy_bytes;
        self.frame.textures_decoded = std::mem::take(&mut self.decoded_pending);
        self.frame.textures_transcoded = std::mem::take(&mut self.transcoded_pending);
        self.total.accumulate(&self.frame);
        self.plan.counters = self.frame;
        self.plan.totals = self.total;
    }
}

/// Stage: what the plan's ops, ramp writes and instances count (uploads, array lifecycle,
/// rectangle copies, resident instances written, quads), added to `c`.
pub(super) fn count_ops(plan: &FramePlan, c: &mut Counters) {
    for op in &plan.ops {
        match op {
            ResourceOp::WriteLayer { bytes, .. } => {
                c.layer_uploads += 1;
                c.bytes_uploaded += bytes.len() as u64;
            }
            ResourceOp::Array(ArrayOp::Create { .. }) => c.arrays_created += 1,
            ResourceOp::Array(ArrayOp::Grow { .. }) => {
                c.arrays_created += 1;
                c.arrays_destroyed += 1;
                c.array_growths += 1;
            }
            ResourceOp::Array(ArrayOp::Shrink { .. }) => {
                c.arrays_created += 1;
                c.arrays_destroyed += 1;
                c.array_shrinks += 1;
            }
            ResourceOp::Array(ArrayOp::CopyRect { .. }) => c.rect_copies += 1,
            ResourceOp::Array(ArrayOp::Destroy { .. }) => c.arrays_destroyed += 1,
            ResourceOp::Array(ArrayOp::HostContents { .. }) => c.host_contents += 1,
            ResourceOp::Resident(ResidentOp::Write { instances, .. }) => {
                c.resident_instances_written += u64::from(instances.end - instances.start);
            }
            ResourceOp::Resident(ResidentOp::Move { motions, .. }) => {
                c.motions_written += u64::from(motions.end - motions.start);
            }
            ResourceOp::Resident(_) => {}
        }
    }
    c.bytes_uploaded += plan.ramp_writes.iter().map(|w| w.bytes.len() as u64).sum::<u64>();
    c.quads = (plan.instances.len() - plan.triangles.len()) as u64;
    c.frames = 1;
    c.device_rebuilds = plan.rebuild as u64;
}

/// Stage: the recorded draw states into the plan, and each segment the state its first
/// instance was pushed under (`marks`: (first instance, state index), in order).
pub(super) fn mark_states(plan: &mut FramePlan, states: &[crate::plan::DrawState], marks: &[(u32, u32)]) {
    plan.states.clear();
    plan.states.extend_from_slice(states);
    let mut marks = marks.iter().peekable();
    let mut state = 0;
    for seg in &mut plan.segments {
        while let Some(&&(at, index)) = marks.peek() {
            if at > seg.instances.start {
                break;
            }
            state = index;
            marks.next();
        }
        seg.state = state;
    }
}

/// Stage: segments with an effect draw with their tier's effect program; the rest keep the
/// plain one. Run only for a frame that set an effect.
pub(super) fn mark_effects(plan: &mut FramePlan) {
    let FramePlan { segments, instances, .. } = plan;
    for seg in segments.iter_mut() {
        seg.effects = effect_in(seg, instances);
    }
}

fn effect_in(seg: &Segment, instances: &Instances) -> bool {
    let range = seg.instances.start as usize..seg.instances.end as usize;
    instances.range(range).any(|i| i.effect & Instance::EFFECT_MASK != 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{ArrayDesc, ArrayId, BlendMode, DrawState, FlushCause};

    fn segment(instances: std::ops::Range<u32>) -> Segment {
        Segment {
            instances,
            tier: 1,
            slots: 0..1,
            binds: 0..0,
            cause: FlushCause::StateChange,
            state: 0,
            resident: None,
            grid: None,
            effects: false,
        }
    }

    #[test]
    fn count_ops_counts_every_op_kind_and_the_quads() {
        let desc = ArrayDesc {
            width_px: 4,
            height_px: 4,
            layers: 2,
            format: crate::Format::Rgba8Unorm,
            mip_levels: 1,
            sampler: crate::Sampler::default(),
            render_target: false,
            normal_map: false,
            host: None,
        };
        let (a, b) = (ArrayId(1), ArrayId(2));
        let copy = ArrayOp::CopyRect {
            from: b,
            from_layer: 0,
            from_xy: [0; 2],
            to: b,
            to_layer: 1,
            to_xy: [0; 2],
            size: [2; 2],
        };
        let ops = [
            ArrayOp::Create { array: a, desc },
            ArrayOp::Grow { from: a, to: b, desc, copy_layers: 1 },
            ArrayOp::Shrink { from: b, to: a, desc, copy_layers: 1 },
            copy,
            ArrayOp::Destroy { array: a },
        ]
        .map(ResourceOp::Array)
        .to_vec();
        let plan =
            FramePlan { ops, instances: vec![Instance::default(); 5].into(), rebuild: true, ..FramePlan::default() };
        let mut c = Counters::default();
        count_ops(&plan, &mut c);
        assert_eq!((c.arrays_created, c.arrays_destroyed, c.array_growths, c.array_shrinks), (3, 3, 1, 1));
        assert_eq!((c.rect_copies, c.layer_uploads, c.bytes_uploaded), (1, 0, 0));
        assert_eq!((c.quads, c.frames, c.device_rebuilds), (5, 1, 1));
    }

    #[test]
    fn each_segment_draws_with_the_state_its_first_instance_was_pushed_under() {
        let segments = vec![segment(0..3), segment(3..5), segment(5..9), segment(9..9)];
        let mut plan = FramePlan { segments, ..FramePlan::default() };
        let add = DrawState { blend: BlendMode::Multiply, ..DrawState::default() };
        let states = [DrawState::default(), add, DrawState::default()];
        // State 1 from instance 3, state 2 from instance 7 (inside the third segment, which
        // the recorder would have cut: the third keeps state 1), back to 0 never.
        mark_states(&mut plan, &states, &[(0, 0), (3, 1), (7, 2)]);
        assert_eq!(plan.states, states);
        let got: Vec<u32> = plan.segments.iter().map(|s| s.state).collect();
        assert_eq!(got, [0, 1, 1, 2]);
    }

    #[test]
    fn only_segments_with_an_effect_bit_draw_with_effects() {
        let segments = vec![segment(0..2), segment(2..4), segment(4..6)];
        let mut plan = FramePlan { segments, instances: vec![Instance::default(); 6].into(), ..FramePlan::default() };
        plan.instances[3].effect = 1;
        mark_effects(&mut plan);
        let got: Vec<bool> = plan.segments.iter().map(|s| s.effects).collect();
        assert_eq!(got, [false, true, false]);
    }
}
