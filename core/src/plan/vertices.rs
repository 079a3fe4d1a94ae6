//! How a plan's primitives become vertices: quads once per corner, triangles from their
//! corners, and the one index list that draws both.
//!
//! A plan is drawn **instanced** (one [`Instance`] per quad over a 4-vertex strip) or
//! **indexed** ([`FramePlan::indexed`]): every primitive is four vertex records, corner `k` of
//! primitive `p` at vertex `4p + k`, drawn by the static [`quad_indices`] pattern. A quad's
//! four records are its instance four times (the vertex shader picks the corner by
//! `vertex_index % 4`); a triangle's are its three corners and the third again, each a
//! record with no axes (`axis_x = axis_y = 0`) and a one-point `uv_rect`, so the same shader
//! puts it at its own position and texel whatever corner it is, and the pattern's second
//! triangle `(2, 1, 3)` has no area. Quads and triangles thus share one draw, in painter's
//! order, with no index upload and no second shader.
//!
//! An instanced record holds one colour and an axis-aligned texel rectangle for four
//! corners: it cannot carry a triangle's three positions, texels and colours. So core draws
//! every plan that has a triangle indexed, whatever the budget's
//! [`crate::Budget::indexed_quads`] says (its quads then cost [`Instance::QUAD_BYTES`] of
//! vertices each instead of [`Instance::BYTES`]); plans of quads alone follow the budget.

use super::{FramePlan, Instance};

/// One corner of a triangle as the plan holds it ([`FramePlan::triangles`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Corner {
    /// Position, pixels (y down), before the segment's transform.
    pub pos_px: [f32; 2],
    /// Sampling position in the layer, texels of level 0 (as [`Instance::uv_rect`]).
    pub uv_texels: [f32; 2],
    /// RGBA8 tint, premultiplied, interpolated across the triangle.
    pub color: [u8; 4],
}

impl Corner {
    /// The vertex record of this corner of `triangle` (the triangle's instance, which holds
    /// its slot, flags, layer, clamp rectangle and effect).
    #[inline]
    pub fn vertex(&self, triangle: &Instance) -> Instance {
        let [u, v] = self.uv_texels;
        Instance {
            origin: self.pos_px,
            axis_x: [0.0; 2],
            axis_y: [0.0; 2],
            uv_rect: [u, v, u, v],
            color: self.color,
            // The rest is the triangle's, whatever fields an instance gains.
            ..*triangle
        }
    }
}

/// The index list that draws `quads` primitives from vertices written by [`expand_quads`] or
/// [`FramePlan::expand_block`]: `4q, 4q+1, 4q+2, 4q+2, 4q+1, 4q+3` for each `q` in
/// `0..quads`, [`Instance::INDICES`] per primitive. Backends upload it once (for
/// [`FramePlan::instance_capacity`] primitives) and draw a segment as the range
/// `6 * first .. 6 * end` of it, or from index 0 with the vertex attributes starting at the
/// segment's first primitive.
///
/// # Panics
///
/// When `6 * quads` does not fit `u32` (a capacity core never derives: vertex buffers are
/// bounded far below that).
///
/// ```
/// let indices: Vec<u32> = layerbatch_core::plan::quad_indices(2).collect();
/// assert_eq!(indices, [0, 1, 2, 2, 1, 3, 4, 5, 6, 6, 5, 7]);
/// ```
pub fn quad_indices(quads: u32) -> impl ExactSizeIterator<Item = u32> {
    const CORNER: [u32; Instance::INDICES as usize] = [0, 1, 2, 2, 1, 3];
    let count = quads.checked_mul(Instance::INDICES).expect("quad_indices: 6 * quads overflows u32");
    (0..count).map(|i| i / Instance::INDICES * Instance::VERTICES + CORNER[(i % Instance::INDICES) as usize])
}

/// Replaces `out` with each instance written [`Instance::VERTICES`] times, once per corner:
/// the vertices of quads alone. `out` keeps its allocation from frame to frame. For a plan's
/// blocks, which may hold triangles, use [`FramePlan::expand_block`].
///
/// ```
/// use layerbatch_core::plan::expand_quads;
/// use layerbatch_core::plan::Instance;
/// let a = Instance { color: [1, 2, 3, 4], ..Instance::default() };
/// let mut vertices = Vec::new();
/// expand_quads(&[a, Instance::default()], &mut vertices);
/// assert_eq!(vertices.len(), 8);
/// assert!(vertices[..4].iter().all(|v| *v == a));
/// ```
pub fn expand_quads(instances: &[Instance], out: &mut Vec<Instance>) {
    out.clear();
    out.reserve(instances.len() * Instance::VERTICES as usize);
    for i in instances {
        out.extend_from_slice(&[*i; Instance::VERTICES as usize]);
    }
}

impl FramePlan {
    /// Replaces `out` with the vertices of instance block `block` ([`FramePlan::block_pieces`]) of an
    /// [`indexed`](FramePlan::indexed) plan: [`Instance::VERTICES`] records per primitive, a
    /// quad's instance once per corner, a triangle's corners ([`Corner::vertex`]) with the
    /// third twice. `out` keeps its allocation from frame to frame.
    ///
    /// A triangle whose corners the plan lacks (a hand-made plan the validator would refuse)
    /// is written as its instance without axes, four times: a point, which draws nothing.
    pub fn expand_block(&self, block: u32, out: &mut Vec<Instance>) {
        out.clear();
        out.reserve(self.block_len(block) * Instance::VERTICES as usize);
        let mut next = self.block_triangles.get(block as usize).map_or(usize::MAX, |&t| t as usize);
        for i in self.block_pieces(block).flatten() {
            out.extend_from_slice(&self.primitive_vertices(i, &mut next));
        }
    }

    /// Bytes block `block` takes in a vertex buffer, drawn `indexed`
    /// ([`FramePlan::drawn_indexed`]) or instanced: [`Instance::quad_bytes`] a primitive.
    pub fn block_bytes(&self, block: u32, indexed: bool) -> usize {
        self.block_len(block) * Instance::quad_bytes(indexed) as usize
    }

    /// Writes the vertex bytes of block `block` into the front of `out`, in one pass and
    /// without a scratch buffer: the block's instances as they are (`indexed` false), or
    /// their vertices as [`FramePlan::expand_block`] makes them. For an executor that writes
    /// straight into memory the device reads (a mapped buffer, a staging belt). Returns the
    /// bytes written ([`FramePlan::block_bytes`]), or `None`, writing nothing, when `out` is
    /// shorter.
    ///
    /// ```
    /// use layerbatch_core::FramePlan;
    /// use layerbatch_core::plan::Instance;
    /// let plan = FramePlan { instances: vec![Instance::default(); 3].into(), instance_capacity: 2, ..FramePlan::default() };
    /// let mut mapped = vec![0u8; 1024];
    /// assert_eq!(plan.write_block(1, true, &mut mapped), Some(256)); // block 1: one quad, 4 vertices
    /// assert_eq!(plan.write_block(0, false, &mut mapped), Some(128));
    /// assert_eq!(plan.write_block(0, true, &mut mapped[..100]), None);
    /// ```
    pub fn write_block(&self, block: u32, indexed: bool, out: &mut [u8]) -> Option<usize> {
        let bytes = self.block_bytes(block, indexed);
        let out = out.get_mut(..bytes)?;
        self.write_block_with(block, indexed, |at, chunk| out[at..at + chunk.len()].copy_from_slice(chunk));
        Some(bytes)
    }

    /// [`FramePlan::write_block`] for memory that is written through a call (wgpu's
    /// write-only mapped views): `put(offset, bytes)` for consecutive pieces of the block's
    /// vertex bytes, in order, covering [`FramePlan::block_bytes`] exactly. Instanced, a piece
    /// for each part of [`FramePlan::instances`] in the block: the instances themselves;
    /// indexed, pieces of up to 64 primitives' vertices, built on the stack.
    pub fn write_block_with(&self, block: u32, indexed: bool, mut put: impl FnMut(usize, &[u8])) {
        const PIECE: usize = 64;
        let mut at = 0;
        if !indexed {
            for part in self.block_pieces(block) {
                put(at, bytemuck::cast_slice(part));
                at += std::mem::size_of_val(part);
            }
            return;
        }
        let mut next = self.block_triangles.get(block as usize).map_or(usize::MAX, |&t| t as usize);
        let mut piece = [[Instance::default(); Instance::VERTICES as usize]; PIECE];
        for chunk in self.block_pieces(block).flat_map(|part| part.chunks(PIECE)) {
            for (dst, i) in piece.iter_mut().zip(chunk) {
                *dst = self.primitive_vertices(i, &mut next);
            }
            let bytes: &[u8] = bytemuck::cast_slice(&piece[..chunk.len()]);
            put(at, bytes);
            at += bytes.len();
        }
    }

    /// The [`Instance::VERTICES`] vertex records of primitive `i`; `next` is the index of the
    /// next triangle's corners in [`FramePlan::triangles`], advanced past a triangle's.
    #[inline]
    fn primitive_vertices(&self, i: &Instance, next: &mut usize) -> [Instance; Instance::VERTICES as usize] {
        let corners = match i.is_triangle() {
            true => self.triangles.get(*next),
            false => None,
        };
        match corners {
            Some([a, b, c]) => {
                *next += 1;
                let c = c.vertex(i);
                [a.vertex(i), b.vertex(i), c, c]
            }
            None if i.is_triangle() => {
                let point = Instance { axis_x: [0.0; 2], axis_y: [0.0; 2], ..*i };
                [point; Instance::VERTICES as usize]
            }
            None => [*i; Instance::VERTICES as usize],
        }
    }

    /// Whether an executor whose budget says `indexed_quads` draws this plan indexed: when
    /// either the budget or the plan ([`FramePlan::indexed`]: it has triangles) asks. A plan
    /// made by hand with `indexed` unset is drawn the budget's way.
    pub const fn drawn_indexed(&self, indexed_quads: bool) -> bool {
        self.indexed || indexed_quads
    }

    /// Vertex bytes each primitive of this plan takes on an executor whose budget says
    /// `indexed_quads`: [`Instance::QUAD_BYTES`] when drawn indexed
    /// ([`FramePlan::drawn_indexed`]), else [`Instance::BYTES`].
    pub const fn primitive_bytes(&self, indexed_quads: bool) -> u32 {
        Instance::quad_bytes(self.drawn_indexed(indexed_quads))
    }

    /// Fills [`FramePlan::block_triangles`] from the instances' [`Instance::FLAG_TRIANGLE`]
    /// flags (empty when the plan has no triangle).
    pub(crate) fn index_triangle_blocks(&mut self) {
        self.block_triangles.clear();
        if self.triangles.is_empty() {
            return;
        }
        let cap = self.instance_capacity.max(1) as usize;
        let mut seen = 0u32;
        for block in 0..self.instances.len().div_ceil(cap) as u32 {
            self.block_triangles.push(seen);
            seen += self.block_pieces(block).flatten().filter(|i| i.is_triangle()).count() as u32;
        }
    }
}
