//! A plan's draw list: resolved by `prepare` (one [`Draw`] per segment: its pipeline, bind
//! group, globals offset, clip and instance range), recorded into a pass by `render` (or by
//! `prepare` itself, into a render target).

use std::ops::Range;

use layerbatch_core::{ArrayId, Clip, FramePlan, Instance, Viewport};

use crate::arrays::Arrays;
use crate::bind_groups::BindGroups;
use crate::globals::Globals;
use crate::instances::Block;
use crate::pipelines::Pipelines;
use crate::scope::Late;
use crate::shader::{GROUP_GLOBALS, GROUP_SLOTS};
use crate::Error;

/// One segment, ready to record.
#[derive(Debug)]
pub(crate) struct Draw {
    /// Index into the pipelines ([`Pipelines::index`]): the tier's, the segment's blend
    /// mode, and indexed or instanced.
    pipeline: usize,
    /// Drawn indexed (four vertex records a primitive and the quad indices), else instanced.
    indexed: bool,
    /// Dynamic offset of the segment's draw state in the plan's globals uniform.
    globals_offset: u32,
    clip: Clip,
    group: wgpu::BindGroup,
    serial: u64,
    /// Where the segment's instance block lies.
    block: Block,
    /// Instances, relative to the block's first.
    instances: Range<u32>,
}

/// What [`record`] draws: a prepared plan's draws, where they go, and its space's globals.
pub(crate) struct Drawn<'a> {
    pub(crate) draws: &'a [Draw],
    pub(crate) vp: &'a Viewport,
    /// The bind group of the space's globals uniform.
    pub(crate) globals: &'a wgpu::BindGroup,
}

/// The pipelines and quad indices [`record`] draws with: the host format's or a render
/// target's pipelines.
pub(crate) struct With<'a> {
    pub(crate) pipelines: &'a [wgpu::RenderPipeline],
    pub(crate) indices: &'a wgpu::Buffer,
}

/// What [`resolve`] reads and updates: the renderer's parts a segment's draw is made of.
pub(crate) struct Parts<'a> {
    pub(crate) device: &'a wgpu::Device,
    pub(crate) late: &'a Late,
    pub(crate) pipelines: &'a Pipelines,
    pub(crate) arrays: &'a Arrays,
    pub(crate) globals: &'a Globals,
    pub(crate) groups: &'a mut BindGroups,
}

/// Appends one [`Draw`] per segment of `plan` to `draws`, applying each segment's binds to
/// the slots and resolving its bind group; `blocks` are where the plan's instance blocks went.
/// Returns the bind groups created.
pub(crate) fn resolve(
    parts: Parts<'_>,
    plan: &FramePlan,
    blocks: &[Block],
    vp: &Viewport,
    draws: &mut Vec<Draw>,
) -> Result<u64, Error> {
    let Parts { device, late, pipelines, arrays, globals, groups } = parts;
    // Drawing into a render target: a slot still holding it (from an earlier plan that
    // sampled it) gets the placeholder instead, so the target is never bound while it is
    // drawn into (no segment samples it: the validator checked).
    let exclude: Option<ArrayId> = plan.target.map(|t| t.array);
    let capacity = plan.instance_capacity.max(1);
    let indexed = pipelines.drawn_indexed(plan);
    let mut created = 0;
    draws.reserve(plan.segments.len());
    for seg in &plan.segments {
        for b in plan.binds(seg) {
            groups.bind(b);
        }
        let tier_index = pipelines.tier_index(seg.tier).ok_or_else(|| Error::Device {
            op: format!("drawing with slot tier {}", seg.tier),
            message: "the renderer has no pipeline for it (renderer and validator out of step)".to_string(),
        })?;
        let group = groups.resolve(device, late, pipelines, arrays, (tier_index, seg.tier), exclude)?;
        created += u64::from(group.created);
        let block = seg.instances.start / capacity;
        let base = block * capacity;
        let placed = blocks.get(block as usize).ok_or_else(|| Error::Device {
            op: format!("drawing instances {:?}", seg.instances),
            message: format!(
                "they lie outside the plan's {} instances (renderer and validator out of step)",
                plan.instances.len()
            ),
        })?;
        let state = plan.state(seg);
        draws.push(Draw {
            pipeline: pipelines.index(tier_index, state.blend, indexed),
            indexed,
            globals_offset: globals.offset(plan, seg.state),
            clip: vp.scissor(state.clip_px),
            group: group.group,
            serial: group.serial,
            block: placed.clone(),
            instances: seg.instances.start - base..seg.instances.end - base,
        });
    }
    Ok(created)
}

/// Records a plan's draws into `pass` (the host's, or the renderer's own pass on the plan's
/// render target, with that format's pipelines). Returns the draws and the bind-group sets
/// issued.
pub(crate) fn record(pass: &mut wgpu::RenderPass<'_>, plan: Drawn<'_>, with: With<'_>) -> (u64, u64) {
    let With { pipelines, indices } = with;
    let globals_group = plan.globals;
    if plan.draws.is_empty() {
        return (0, 0);
    }
    let Some([vx, vy, vw, vh]) = plan.vp.visible_px() else { return (0, 0) };
    if !plan.vp.is_full() {
        // The quads' area, as much of it as the target shows (`Viewport::transform` moved
        // their origin into it).
        pass.set_viewport(vx as f32, vy as f32, vw as f32, vh as f32, 0.0, 1.0);
    }
    // The primitives' corners, for every draw of an indexed plan (block-relative: each
    // block's vertex buffer range starts at its first primitive).
    if plan.draws.iter().any(|d| d.indexed) {
        pass.set_index_buffer(indices.slice(..), wgpu::IndexFormat::Uint32);
    }
    let (mut sets, mut draws) = (0, 0);
    let (mut pipeline, mut group, mut block) = (usize::MAX, u64::MAX, usize::MAX);
    let mut offset = None;
    // The scissor this call set, if any: segments without a clip get the host's scissor
    // (or the whole target) back, and so does the pass at the end. A plan without clips
    // and without a host clip never sets one.
    let full = plan.vp.restored_scissor_px();
    let mut scissor: Option<[u32; 4]> = None;
    for d in plan.draws {
        let want = match d.clip {
            Clip::Empty => continue,
            Clip::Rect(r) => Some(r),
            Clip::Full => scissor.map(|_| full),
        };
        if let Some(r) = want {
            if scissor != Some(r) {
                pass.set_scissor_rect(r[0], r[1], r[2], r[3]);
                scissor = Some(r);
            }
        }
        if offset != Some(d.globals_offset) {
            pass.set_bind_group(GROUP_GLOBALS, globals_group, &[d.globals_offset]);
            offset = Some(d.globals_offset);
            sets += 1;
        }
        if d.block.index != block {
            pass.set_vertex_buffer(0, d.block.buffer.slice(..d.block.bytes));
            block = d.block.index;
        }
        if d.pipeline != pipeline {
            pass.set_pipeline(&pipelines[d.pipeline]);
            pipeline = d.pipeline;
        }
        if d.serial != group {
            pass.set_bind_group(GROUP_SLOTS, &d.group, &[]);
            group = d.serial;
            sets += 1;
        }
        if d.indexed {
            pass.draw_indexed(d.instances.start * Instance::INDICES..d.instances.end * Instance::INDICES, 0, 0..1);
        } else {
            pass.draw(0..4, d.instances.clone());
        }
        draws += 1;
    }
    if scissor.is_some_and(|r| r != full) {
        pass.set_scissor_rect(full[0], full[1], full[2], full[3]);
    }
    (draws, sets)
}
