//! The instance space of a frame: a pool of vertex buffers shared by the frame's plans,
//! filled by blocks of a plan's `instance_capacity` (core never lets a draw cross a block),
//! and, with indexed quads, the quad index buffer.
//!
//! Queue writes all run at the next submit, so the blocks of a frame's plans are placed one
//! after another and never overlap: the plans of one submit never overwrite each other. The
//! space is recycled when the frame ends, and the pool grows only until it holds the largest
//! frame.

use layerbatch_core::plan::{expand_quads, quad_indices};
use layerbatch_core::{Budget, DeviceCounters, FramePlan, Instance};
use wgpu::util::DeviceExt as _;

use crate::scope::{checked, Late};
use crate::Error;

/// Instances a block's vertex buffer holds at least (unless the block capacity is smaller), so
/// that small frames do not recreate it for every few quads more.
const MIN_INSTANCES: u64 = 1024;

/// An instance block's place in the pool: `bytes` at `offset` of vertex buffer `index`.
#[derive(Clone, Debug)]
pub(crate) struct Block {
    pub(crate) buffer: wgpu::Buffer,
    pub(crate) index: usize,
    pub(crate) offset: u64,
    pub(crate) bytes: u64,
}

/// Where the frame's space ends: the next block's (buffer, byte offset), and the bytes
/// placed so far.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Space {
    cursor: (usize, u64),
    bytes: u64,
}

/// The pool of instance vertex buffers and the quad index buffer.
#[derive(Debug)]
pub(crate) struct Instances {
    /// Reused frame to frame. Indexed, each instance is written once per corner
    /// (`Instance::VERTICES`).
    buffers: Vec<wgpu::Buffer>,
    /// With indexed quads (`Budget::indexed_quads`), the indices of `instance_capacity` quads
    /// (`quad_indices`), written once at creation; `None` with instanced quads.
    indices: Option<wgpu::Buffer>,
    /// Scratch: a block's vertices (`expand_quads`), kept frame to frame.
    vertices: Vec<Instance>,
    /// Where the last plan's blocks went (reused: no allocation per frame).
    blocks: Vec<Block>,
    /// The current frame's space.
    space: Space,
    /// The most instance bytes a finished frame placed: the first buffer grows toward it, so
    /// that a frame's plans come to share one buffer.
    peak_frame_bytes: u64,
}

impl Instances {
    /// An empty pool, and the index buffer of `budget`'s `instance_capacity` quads when it
    /// draws indexed quads (1.5 MiB at the default 65,536).
    pub(crate) fn new(device: &wgpu::Device, late: &Late, budget: &Budget) -> Result<Self, Error> {
        let indices = checked(
            device,
            late,
            || "creating the quad index buffer".to_string(),
            || {
                // Indexed quads (software rasterizers): see `QuadVertices`.
                budget.indexed_quads.then(|| {
                    let list: Vec<u32> = quad_indices(budget.instance_capacity).collect();
                    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                        label: Some("layerbatch quad indices"),
                        contents: bytemuck::cast_slice(&list),
                        usage: wgpu::BufferUsages::INDEX,
                    })
                })
            },
        )?;
        Ok(Self {
            buffers: Vec::new(),
            indices,
            vertices: Vec::new(),
            blocks: Vec::new(),
            space: Space { cursor: (0, 0), bytes: 0 },
            peak_frame_bytes: 0,
        })
    }

    /// The quad index buffer, with indexed quads.
    pub(crate) fn indices(&self) -> Option<&wgpu::Buffer> {
        self.indices.as_ref()
    }

    /// Vertex buffers in the pool.
    pub(crate) fn buffers(&self) -> usize {
        self.buffers.len()
    }

    /// Bytes of the vertex buffers held.
    pub(crate) fn buffer_bytes(&self) -> u64 {
        self.buffers.iter().map(wgpu::Buffer::size).sum()
    }

    /// Where the frame's space ends now.
    pub(crate) fn space(&self) -> Space {
        self.space
    }

    /// Gives back the space placed after `space` (a plan drawn into a render target, whose
    /// draws were submitted): the next plan's blocks go there.
    pub(crate) fn give_back(&mut self, space: Space) {
        self.space = space;
    }

    /// The frame ended (its plans were submitted): its space is free again.
    pub(crate) fn end_frame(&mut self) {
        self.peak_frame_bytes = self.peak_frame_bytes.max(self.space.bytes);
        self.space = Space { cursor: (0, 0), bytes: 0 };
    }

    /// Uploads `plan`'s instances, one block at a time, each into space of its own in the
    /// pool (see [`Instances::place`]), counting the bytes written; returns where each block
    /// went.
    pub(crate) fn upload(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        late: &Late,
        plan: &FramePlan,
        counters: &mut DeviceCounters,
    ) -> Result<&[Block], Error> {
        let capacity = u64::from(plan.instance_capacity.max(1));
        let blocks = (plan.instances.len() as u64).div_ceil(capacity);
        self.blocks.clear();
        let mut vertices = std::mem::take(&mut self.vertices);
        let indexed = self.indices.is_some();
        let result = (0..blocks).try_for_each(|k| {
            let data: &[u8] = if indexed {
                expand_quads(plan.block(k as u32), &mut vertices);
                bytemuck::cast_slice(&vertices)
            } else {
                bytemuck::cast_slice(plan.block(k as u32))
            };
            let bytes = data.len() as u64;
            let block = self.place(device, late, bytes, capacity)?;
            checked(
                device,
                late,
                || format!("writing instance block {k} ({bytes} bytes at {} of buffer {})", block.offset, block.index),
                || queue.write_buffer(&block.buffer, block.offset, data),
            )?;
            counters.instance_bytes_written += bytes;
            self.blocks.push(block);
            Ok(())
        });
        self.vertices = vertices;
        result.map(|()| self.blocks.as_slice())
    }

    /// Room for a block of `bytes` (at most `capacity` instances) in the pool, after every
    /// block placed earlier in the frame: the space of the frame's plans never overlaps.
    ///
    /// The cursor walks the pool's buffers in order; a buffer without room left is skipped.
    /// A buffer the frame has not used yet is replaced when it is too small for the block (or,
    /// the first one, for the largest frame so far), with one of a power of two instances, at
    /// least [`MIN_INSTANCES`] and at most `capacity`; past the last buffer a new one is
    /// added. Buffers are never replaced once used in the frame, so every block placed keeps
    /// its buffer. The pool stops growing once it holds the largest frame: at most one
    /// buffer per block of the largest frame, each at most `capacity` instances.
    fn place(&mut self, device: &wgpu::Device, late: &Late, bytes: u64, capacity: u64) -> Result<Block, Error> {
        let stride = u64::from(Instance::quad_bytes(self.indices.is_some()));
        let size_for =
            |bytes: u64| (bytes.div_ceil(stride)).next_power_of_two().max(MIN_INSTANCES).min(capacity) * stride;
        loop {
            let (index, offset) = self.space.cursor;
            if offset == 0 {
                let want = if index == 0 { bytes.max(self.peak_frame_bytes) } else { bytes };
                let held = self.buffers.get(index).map(wgpu::Buffer::size);
                if held.is_none_or(|size| size < bytes || size < size_for(want)) {
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
                    match self.buffers.get_mut(index) {
                        Some(b) => *b = buffer,
                        None => self.buffers.push(buffer),
                    }
                }
            }
            let buffer = &self.buffers[index];
            if buffer.size() - offset >= bytes {
                self.space.cursor = (index, offset + bytes);
                self.space.bytes += bytes;
                return Ok(Block { buffer: buffer.clone(), index, offset, bytes });
            }
            self.space.cursor = (index + 1, 0);
        }
    }
}
