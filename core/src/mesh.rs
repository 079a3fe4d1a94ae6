//! Triangle meshes as the host submits them: vertices with a position, a texture coordinate and
//! a colour, and triangles as index triples. Shapes ([`crate::shapes`]) tessellate into a
//! [`Mesh`]; [`crate::Batcher::push_mesh`] records one in painter's order among quads.

use bytemuck::{Pod, Zeroable};

/// One vertex of a [`Mesh`].
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Vertex {
    /// Position, pixels (y down), before the draw state's transform.
    pub pos_px: [f32; 2],
    /// Texture coordinate, `0..1` over the texture the mesh is pushed with (as
    /// [`crate::Quad::uv`]).
    pub uv: [f32; 2],
    /// RGBA8 colour, premultiplied, multiplied with the texel; interpolated across the
    /// triangle. Linear, or on the sRGB curve where the drawing state says so
    /// ([`crate::TintEncoding`]).
    pub color: [u8; 4],
}

impl Vertex {
    /// A vertex at `pos_px` sampling `uv`, with `color` (premultiplied).
    pub const fn new(pos_px: [f32; 2], uv: [f32; 2], color: [u8; 4]) -> Self {
        Self { pos_px, uv, color }
    }
    /// An untextured vertex (for the white texture: any `uv` samples white) with `color`.
    pub const fn solid(pos_px: [f32; 2], color: [u8; 4]) -> Self {
        Self { pos_px, uv: [0.5, 0.5], color }
    }
}

/// Triangles over shared vertices: `indices` holds three vertex indices per triangle.
///
/// ```
/// use layerbatch_core::{Mesh, Vertex};
/// let mut mesh = Mesh::default();
/// let red = [255, 0, 0, 255];
/// let a = mesh.push_vertex(Vertex::solid([0.0, 0.0], red));
/// let b = mesh.push_vertex(Vertex::solid([10.0, 0.0], red));
/// let c = mesh.push_vertex(Vertex::solid([0.0, 10.0], red));
/// mesh.push_triangle(a, b, c);
/// assert_eq!(mesh.triangles(), 1);
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mesh {
    /// The vertices.
    pub vertices: Vec<Vertex>,
    /// Three indices into `vertices` per triangle.
    pub indices: Vec<u32>,
}

impl Mesh {
    /// Empties the mesh, keeping its allocations.
    pub fn clear(&mut self) {
        self.vertices.clear();
        self.indices.clear();
    }
    /// Appends a vertex; returns its index.
    pub fn push_vertex(&mut self, vertex: Vertex) -> u32 {
        self.vertices.push(vertex);
        self.vertices.len() as u32 - 1
    }
    /// Appends the triangle `a, b, c` (vertex indices).
    pub fn push_triangle(&mut self, a: u32, b: u32, c: u32) {
        self.indices.extend_from_slice(&[a, b, c]);
    }
    /// Appends every triangle of `other`, its indices moved past this mesh's vertices.
    pub fn append(&mut self, other: &Mesh) {
        let base = self.vertices.len() as u32;
        self.vertices.extend_from_slice(&other.vertices);
        self.indices.extend(other.indices.iter().map(|i| i.wrapping_add(base)));
    }
    /// Whole triangles: `indices.len() / 3`.
    pub fn triangles(&self) -> usize {
        self.indices.len() / 3
    }
    /// Whether the mesh has no triangle.
    pub fn is_empty(&self) -> bool {
        self.indices.len() < 3
    }
}
