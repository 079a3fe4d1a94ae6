//! Resident layers in a plan: buffers of instances kept on the device, created, written by
//! ranges and destroyed by [`ResidentOp`]s, and drawn by segments that name them
//! ([`Segment::resident`](super::Segment::resident)) instead of the plan's own instances.

use std::ops::Range;

use super::{FramePlan, Instance};

/// A resident layer ([`crate::TextureStore::create_resident`]): quads kept on the device, drawn
/// each frame by one item in the stream. An id is never reused by its batcher while it is
/// live; a destroyed id is refused ([`crate::ResidentError::Stale`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResidentId {
    /// Index in the batcher's table of residents.
    pub index: u32,
    /// Bumped each time the index is reused: a stale id names an older generation.
    pub generation: u32,
}

/// A change to a resident layer's device buffer, applied in the plan's order among its other
/// [`super::ResourceOp`]s.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResidentOp {
    /// Create `resident`'s buffer with room for `instances` instances (contents undefined
    /// until written): [`Instance::quad_bytes`] of vertex bytes each, four vertex records an
    /// instance when `indexed`.
    Create {
        /// The resident.
        resident: ResidentId,
        /// Instances it holds.
        instances: u32,
        /// Each instance is stored once per corner (the budget's
        /// [`crate::Budget::indexed_quads`]), and drawn indexed.
        indexed: bool,
        /// A moving layer ([`crate::TextureStore::create_moving`]): a motion texture of
        /// [`crate::motion_texture_size`]`(instances)` texels (RGBA32F, contents undefined
        /// until written by [`ResidentOp::Move`]) is created with the buffer, and its draws
        /// move each instance by its motion.
        moving: bool,
    },
    /// Write the motions of sprites `first..first + motions.len()` of moving layer
    /// `resident`, from [`FramePlan::motions`]`[motions]`, into its motion texture
    /// ([`crate::motion_rects`] gives the rectangles).
    Move {
        /// The resident.
        resident: ResidentId,
        /// The first sprite written.
        first: u32,
        /// Index range into [`FramePlan::motions`].
        motions: Range<u32>,
    },
    /// Write instances `first..first + instances.len()` of `resident`, from
    /// [`FramePlan::resident_instances`]`[instances]`.
    Write {
        /// The resident.
        resident: ResidentId,
        /// The first instance written.
        first: u32,
        /// Index range into [`FramePlan::resident_instances`].
        instances: Range<u32>,
    },
    /// Destroy `resident`'s buffer (and its motion texture).
    Destroy {
        /// The resident.
        resident: ResidentId,
    },
}

/// One [`ResidentOp::Write`] as an executor receives it: where the instances go and what
/// they are; [`ResidentWrite::write_with`] makes the vertex bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ResidentWrite<'a> {
    /// The resident.
    pub resident: ResidentId,
    /// The first instance written.
    pub first: u32,
    /// The instances.
    pub instances: &'a [Instance],
    /// The resident stores four vertex records an instance ([`ResidentOp::Create::indexed`]).
    pub indexed: bool,
}

impl ResidentWrite<'_> {
    /// Byte offset of the first instance in the resident's buffer.
    pub fn offset_bytes(&self) -> u64 {
        u64::from(self.first) * u64::from(Instance::quad_bytes(self.indexed))
    }
    /// Vertex bytes written.
    pub fn bytes(&self) -> usize {
        self.instances.len() * Instance::quad_bytes(self.indexed) as usize
    }
    /// Hands the vertex bytes to `put(offset from the write's start, bytes)` in pieces that
    /// cover [`ResidentWrite::bytes`] exactly: each instance once, or once per corner when
    /// `indexed` (the same records as [`FramePlan::write_block_with`]).
    pub fn write_with(&self, mut put: impl FnMut(usize, &[u8])) {
        if !self.indexed {
            put(0, bytemuck::cast_slice(self.instances));
            return;
        }
        const PIECE: usize = 64;
        let mut piece = [[Instance::default(); Instance::VERTICES as usize]; PIECE];
        for (n, chunk) in self.instances.chunks(PIECE).enumerate() {
            for (dst, i) in piece.iter_mut().zip(chunk) {
                *dst = [*i; Instance::VERTICES as usize];
            }
            put(n * PIECE * Instance::QUAD_BYTES as usize, bytemuck::cast_slice(&piece[..chunk.len()]));
        }
    }
    /// The vertex bytes, into `out` (at least [`ResidentWrite::bytes`] long); `None` when it
    /// is shorter.
    pub fn write_into(&self, out: &mut [u8]) -> Option<usize> {
        let bytes = self.bytes();
        let out = out.get_mut(..bytes)?;
        self.write_with(|at, piece| out[at..at + piece.len()].copy_from_slice(piece));
        Some(bytes)
    }
}

/// One rectangle of a [`ResidentOp::Move`] as an executor receives it: the texels of a moving
/// layer's motion texture to write, and their motions (one texel each, row after row).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MotionWrite<'a> {
    /// The resident.
    pub resident: ResidentId,
    /// `[x, y, width, height]` in texels of the motion texture.
    pub rect: [u32; 4],
    /// `width * height` motions, row after row.
    pub motions: &'a [crate::Motion],
}

impl FramePlan {
    /// The motions a [`ResidentOp::Move`] writes (empty for another op or a range outside
    /// [`FramePlan::motions`]: the validator refuses such a plan).
    pub fn move_motions(&self, op: &ResidentOp) -> &[crate::Motion] {
        match op {
            ResidentOp::Move { motions, .. } => {
                self.motions.get(motions.start as usize..motions.end as usize).unwrap_or(&[])
            }
            _ => &[],
        }
    }

    /// The instances a [`ResidentOp::Write`] writes (empty for another op or a range outside
    /// [`FramePlan::resident_instances`]: the validator refuses such a plan).
    pub fn resident_write_instances(&self, op: &ResidentOp) -> &[Instance] {
        match op {
            ResidentOp::Write { instances, .. } => {
                self.resident_instances.get(instances.start as usize..instances.end as usize).unwrap_or(&[])
            }
            _ => &[],
        }
    }
}
