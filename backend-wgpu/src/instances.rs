//! A plan's instances: uploaded by blocks of its `instance_capacity` (core never lets a draw
//! cross a block), the blocks core's draw walk uses, the `j`-th into vertex buffer `j` of the
//! space it is prepared into (see [`crate::prepared`]), and the renderer's quad index buffer,
//! which indexed plans draw with.
//!
//! Blocks are written by core ([`FramePlan::write_block_with`]) straight into the queue's
//! staging memory (`Queue::write_buffer_with`), which the next submit copies into the vertex
//! buffers before its command buffers: one pass over the bytes on the CPU, four vertex records
//! a primitive included, with no scratch copy.

use layerbatch_core::execute::{DrawStep, DrawSteps};
use layerbatch_core::plan::quad_indices;
use layerbatch_core::{Budget, FramePlan};
use wgpu::util::DeviceExt as _;

use crate::scope::{checked, Late};
use crate::Error;

/// Instances a block's vertex buffer holds at least (unless the block capacity is smaller), so
/// that small plans do not recreate it for every few quads more.
const MIN_INSTANCES: u64 = 1024;

/// An instance block's place: `bytes` of a vertex buffer from `offset` on (a block's buffer
/// of a space from 0, or a resident layer's buffer from its base).
#[derive(Clone, Debug)]
pub(crate) struct Block {
    pub(crate) buffer: wgpu::Buffer,
    pub(crate) offset: u64,
    pub(crate) bytes: u64,
}

/// The vertex buffers of one space, block `k` in buffer `k`, reused plan to plan.
#[derive(Debug, Default)]
pub(crate) struct SpaceBuffers(Vec<wgpu::Buffer>);

impl SpaceBuffers {
    /// Vertex buffers held.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// Bytes of the vertex buffers held.
    pub(crate) fn bytes(&self) -> u64 {
        self.0.iter().map(wgpu::Buffer::size).sum()
    }
}

/// What every plan's upload shares: the quad index buffer and the scratch of indexed quads.
#[derive(Debug)]
pub(crate) struct Instances {
    /// The indices of `instance_capacity` primitives (`quad_indices`), written once at
    /// creation. Made with instanced quads too: a plan with triangles is drawn indexed.
    indices: wgpu::Buffer,
    /// The budget's `indexed_quads`.
    indexed_quads: bool,
}

impl Instances {
    /// The index buffer of `budget`'s `instance_capacity` primitives (1.5 MiB at the default
    /// 65,536).
    pub(crate) fn new(device: &wgpu::Device, late: &Late, budget: &Budget) -> Result<Self, Error> {
        let indices = checked(
            device,
            late,
            || "creating the quad index buffer".to_string(),
            || {
                let list: Vec<u32> = quad_indices(budget.instance_capacity).collect();
                device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("layerbatch quad indices"),
                    contents: bytemuck::cast_slice(&list),
                    usage: wgpu::BufferUsages::INDEX,
                })
            },
        )?;
        Ok(Self { indices, indexed_quads: budget.indexed_quads })
    }

    /// The quad index buffer.
    pub(crate) fn indices(&self) -> &wgpu::Buffer {
        &self.indices
    }

    /// The budget's `indexed_quads`.
    pub(crate) fn indexed_quads(&self) -> bool {
        self.indexed_quads
    }

    /// Uploads the instance blocks core's draw walk uses (`steps`: each once, in order) into
    /// `space`, the `j`-th into its buffer `j` (see [`room`]), written into the queue's
    /// staging memory; `blocks` gets where each went, by block number (the walk counts the
    /// bytes). `peak` is the largest first block its plan object held so far, updated here.
    pub(crate) fn upload(
        &mut self,
        (device, queue, late): (&wgpu::Device, &wgpu::Queue, &Late),
        plan: &FramePlan,
        steps: &DrawSteps,
        (space, peak): (&mut SpaceBuffers, &mut u64),
        blocks: &mut Vec<(u32, Block)>,
    ) -> Result<(), Error> {
        let capacity = u64::from(plan.instance_capacity.max(1));
        blocks.clear();
        let indexed = plan.drawn_indexed(self.indexed_quads);
        let stride = u64::from(plan.primitive_bytes(self.indexed_quads));
        let used = steps.steps().iter().filter_map(|s| match *s {
            DrawStep::Block { block, .. } => Some(block),
            _ => None,
        });
        for (j, k) in used.enumerate() {
            let bytes = plan.block_bytes(k, indexed) as u64;
            // The walk uses only blocks it draws from: never an empty one.
            let Some(size) = wgpu::BufferSize::new(bytes) else { continue };
            if j == 0 {
                *peak = (*peak).max(bytes);
            }
            let want = if j == 0 { *peak } else { bytes };
            let block = room(device, late, space, j, (bytes, want), capacity * stride, stride)?;
            let written = checked(
                device,
                late,
                || format!("writing instance block {k} ({bytes} bytes into buffer {j} of its space)"),
                || {
                    let Some(mut view) = queue.write_buffer_with(&block.buffer, 0, size) else { return false };
                    // The view is `bytes` long: the pieces cover it exactly.
                    plan.write_block_with(k, indexed, |at, piece| {
                        view.slice(at..at + piece.len()).copy_from_slice(piece);
                    });
                    true
                },
            )?;
            if !written {
                return Err(Error::Device {
                    op: format!("writing instance block {k} ({bytes} bytes into buffer {j} of its space)"),
                    message: "the queue gave no staging memory for it".to_string(),
                });
            }
            blocks.push((k, block));
        }
        Ok(())
    }
}

/// Buffer `index` of `space`, holding at least `bytes` (at most `capacity_bytes`, a block's
/// primitives at `stride` bytes each): replaced (or added) when smaller than `bytes` or than
/// the size for `want` (the first buffer grows toward the largest first block its plan
/// object held), with one of a power of two primitives, at least [`MIN_INSTANCES`], and at
/// most `capacity_bytes`. A space holds at most one buffer per block of the largest plan
/// prepared into it.
fn room(
    device: &wgpu::Device,
    late: &Late,
    space: &mut SpaceBuffers,
    index: usize,
    (bytes, want): (u64, u64),
    capacity_bytes: u64,
    stride: u64,
) -> Result<Block, Error> {
    let size_for =
        |bytes: u64| ((bytes.div_ceil(stride)).next_power_of_two().max(MIN_INSTANCES) * stride).min(capacity_bytes);
    if let Some(held) = space.0.get(index).filter(|b| b.size() >= bytes && b.size() >= size_for(want)) {
        return Ok(Block { buffer: held.clone(), offset: 0, bytes });
    }
    let size = size_for(want).max(bytes);
    let buffer = checked(
        device,
        late,
        || format!("creating instance vertex buffer {index} ({size} bytes)"),
        || {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("layerbatch instances"),
                size,
                usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        },
    )?;
    // Blocks are placed in order: buffer `index` exists, or is the next one.
    match space.0.get_mut(index) {
        Some(b) => *b = buffer.clone(),
        None => space.0.push(buffer.clone()),
    }
    Ok(Block { buffer, offset: 0, bytes })
}
