//! A plan's pass commands: core's draw walk of it ([`DrawSteps`]) translated by `prepare`
//! into wgpu's terms (vertex buffers, pipelines, bind groups, globals offsets, scissors,
//! draws), then recorded into a pass by `render` (or by `prepare` itself, into a render
//! target). The walk decides what changes; this only maps each change to wgpu: a pipeline is
//! a tier with a blend mode, and the slot binds before a draw make its bind group.

use std::ops::Range;

use layerbatch_core::execute::{DrawStep, DrawSteps};
use layerbatch_core::plan::{ArrayId, Instance};
use layerbatch_core::{BlendMode, Clip, FramePlan, Viewport};

use crate::arrays::Arrays;
use crate::bind_groups::BindGroups;
use crate::globals::Globals;
use crate::instances::Block;
use crate::pipelines::Pipelines;
use crate::scope::Late;
use crate::Error;
use layerbatch_core::shader::{GROUP_GLOBALS, GROUP_MOTION, GROUP_SLOTS};

/// One command of a pass, in order.
#[derive(Debug)]
pub(crate) enum Command {
    /// Set the scissor rectangle.
    Scissor([u32; 4]),
    /// Set the globals bind group at this dynamic offset (a draw state's entry).
    Globals(u32),
    /// Set the vertex buffer of an instance block.
    Block(Block),
    /// Set pipeline `index` ([`Pipelines::index`]).
    Pipeline(usize),
    /// Set the slot bind group.
    Group(wgpu::BindGroup),
    /// Set the motion bind group at this dynamic offset (a moving layer's, or the still one).
    Motion(wgpu::BindGroup, u32),
    /// Draw primitives of the block set, indexed or instanced.
    Draw { indexed: bool, instances: Range<u32> },
    /// Draw the instances a grid culling pass wrote into the block set, as many as it counted
    /// at this offset of this arguments buffer.
    DrawIndirect { args: wgpu::Buffer, offset: u64 },
}

/// What [`record`] draws: a prepared plan's draws, where they go, and its space's globals.
pub(crate) struct Drawn<'a> {
    pub(crate) commands: &'a [Command],
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

/// What [`translate`] reads and updates: the renderer's parts a pass command is made of.
pub(crate) struct Parts<'a> {
    pub(crate) device: &'a wgpu::Device,
    pub(crate) late: &'a Late,
    pub(crate) pipelines: &'a Pipelines,
    pub(crate) arrays: &'a Arrays,
    pub(crate) globals: &'a Globals,
    pub(crate) groups: &'a mut BindGroups,
    /// The space's grid buffers: a grid draw's tiles and arguments.
    pub(crate) grids: &'a crate::grids::SpaceGrids,
}

/// Replaces `commands` with `steps` (core's draw walk of `plan` in `vp`) in wgpu's terms:
/// `blocks` are where the walk's instance blocks went, by block number. Returns the bind
/// groups created.
pub(crate) fn translate(
    parts: Parts<'_>,
    plan: &FramePlan,
    steps: &DrawSteps,
    blocks: &[(u32, Block)],
    vp: &Viewport,
    commands: &mut Vec<Command>,
) -> Result<u64, Error> {
    let Parts { device, late, pipelines, arrays, globals, groups, grids } = parts;
    // Grid draws in plan order: the k-th one's buffers are the space's k-th.
    let mut grid_draws = 0;
    // Drawing into a render target: a slot still holding it (from an earlier plan that
    // sampled it) gets the placeholder instead, so the target is never bound while it is
    // drawn into (no segment samples it: the validator checked).
    let exclude: Option<ArrayId> = plan.target.map(|t| t.array);
    let mut indexed = pipelines.drawn_indexed(plan);
    let out_of_step = |what: String| Error::Device {
        op: what,
        message: "the renderer and core's draw walk are out of step".to_string(),
    };
    // The walk binds from nothing: a group holds what this walk bound (and placeholders).
    groups.clear_slots();
    commands.clear();
    let (mut tier, mut blend, mut effects) = (None, BlendMode::Over, false);
    let (mut pipeline_stale, mut group_stale) = (true, true);
    let mut group_set = None;
    let mut created = 0;
    // The motion group of the instances in use: the still one for the plan's own blocks.
    let mut motion = None;
    let mut motion_set = None;
    for step in steps.steps() {
        match *step {
            DrawStep::Block { block } | DrawStep::BlockAgain { block } => {
                let placed = blocks.iter().find(|(b, _)| *b == block);
                let (_, placed) = placed.ok_or_else(|| out_of_step(format!("using instance block {block}")))?;
                commands.push(Command::Block(placed.clone()));
                motion = None;
            }
            DrawStep::Resident { resident, base } => {
                let what = || out_of_step(format!("drawing resident layer {resident:?}"));
                let buffer = arrays.resident(resident).ok_or_else(what)?;
                let offset =
                    u64::from(base) * u64::from(layerbatch_core::plan::Instance::quad_bytes(pipelines.indexed_quads()));
                let bytes = buffer.size().checked_sub(offset).filter(|b| *b > 0).ok_or_else(what)?;
                commands.push(Command::Block(Block { buffer: buffer.clone(), offset, bytes }));
                motion = Some((resident, base));
            }
            DrawStep::Bind { bind, .. } => {
                groups.bind(&bind);
                group_stale = true;
            }
            DrawStep::Program { tier: t, effects: e, .. } => {
                let index =
                    pipelines.tier_index(t).ok_or_else(|| out_of_step(format!("drawing with slot tier {t}")))?;
                // The tier's slot layout is the same for its two programs.
                group_stale |= tier.is_none_or(|(_, held)| held != t);
                tier = Some((index, t));
                effects = e;
                pipeline_stale = true;
            }
            DrawStep::Blend(mode) => {
                blend = mode;
                pipeline_stale = true;
            }
            DrawStep::State { state, .. } => commands.push(Command::Globals(globals.offset(plan, state))),
            DrawStep::Scissor(Clip::Rect(r)) => commands.push(Command::Scissor(r)),
            // No clip: the whole target, or the host's clip (wgpu cannot unset a scissor).
            DrawStep::Scissor(_) | DrawStep::RestoreScissor => {
                let [x, y, w, h] = vp.restored_scissor_px();
                commands.push(Command::Scissor([x, y, w, h]));
            }
            DrawStep::Draw { segment, first_in_block, count, indexed: draw_indexed, .. } => {
                let (index, t) = tier.ok_or_else(|| out_of_step(format!("drawing segment {segment}")))?;
                if draw_indexed != indexed {
                    indexed = draw_indexed;
                    pipeline_stale = true;
                }
                if pipeline_stale {
                    commands.push(Command::Pipeline(pipelines.index(index, effects, blend, indexed)));
                    pipeline_stale = false;
                }
                if group_stale {
                    let group = groups.resolve(device, late, pipelines, arrays, (index, t), exclude)?;
                    created += u64::from(group.created);
                    if group_set != Some(group.serial) {
                        group_set = Some(group.serial);
                        commands.push(Command::Group(group.group));
                    }
                    group_stale = false;
                }
                let (group, offset) = arrays.motions.for_draw(motion);
                if motion_set != Some((motion, offset)) {
                    motion_set = Some((motion, offset));
                    commands.push(Command::Motion(group.clone(), offset));
                }
                if plan.segments.get(segment as usize).is_some_and(|s| s.grid.is_some()) {
                    let what = || out_of_step(format!("drawing grid segment {segment}"));
                    let (tiles, args, offset) = grids.draw(grid_draws).ok_or_else(what)?;
                    grid_draws += 1;
                    commands.push(Command::Block(Block { buffer: tiles.clone(), offset: 0, bytes: tiles.size() }));
                    commands.push(Command::DrawIndirect { args: args.clone(), offset });
                    continue;
                }
                commands.push(Command::Draw { indexed, instances: first_in_block..first_in_block + count });
            }
        }
    }
    Ok(created)
}

/// Records a plan's commands into `pass` (the host's, or the renderer's own pass on the
/// plan's render target, with that format's pipelines). Returns the draws and the bind-group
/// sets issued.
pub(crate) fn record(pass: &mut wgpu::RenderPass<'_>, plan: Drawn<'_>, with: With<'_>) -> (u64, u64) {
    let With { pipelines, indices } = with;
    if !plan.commands.iter().any(|c| matches!(c, Command::Draw { .. } | Command::DrawIndirect { .. })) {
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
    if plan.commands.iter().any(|c| matches!(c, Command::Draw { indexed: true, .. })) {
        pass.set_index_buffer(indices.slice(..), wgpu::IndexFormat::Uint32);
    }
    let (mut sets, mut draws) = (0, 0);
    for command in plan.commands {
        match command {
            Command::Scissor([x, y, w, h]) => pass.set_scissor_rect(*x, *y, *w, *h),
            Command::Globals(offset) => {
                pass.set_bind_group(GROUP_GLOBALS, plan.globals, &[*offset]);
                sets += 1;
            }
            Command::Block(block) => {
                pass.set_vertex_buffer(0, block.buffer.slice(block.offset..block.offset + block.bytes));
            }
            Command::Pipeline(index) => {
                if let Some(p) = pipelines.get(*index) {
                    pass.set_pipeline(p);
                }
            }
            Command::Group(group) => {
                pass.set_bind_group(GROUP_SLOTS, group, &[]);
                sets += 1;
            }
            Command::Motion(group, offset) => {
                pass.set_bind_group(GROUP_MOTION, group, &[*offset]);
                sets += 1;
            }
            Command::Draw { indexed: true, instances } => {
                pass.draw_indexed(instances.start * Instance::INDICES..instances.end * Instance::INDICES, 0, 0..1);
                draws += 1;
            }
            Command::Draw { indexed: false, instances } => {
                pass.draw(0..4, instances.clone());
                draws += 1;
            }
            Command::DrawIndirect { args, offset } => {
                pass.draw_indirect(args, *offset);
                draws += 1;
            }
        }
    }
    (draws, sets)
}
