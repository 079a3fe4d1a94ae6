//! Triangle meshes in the quad stream: [`Batcher::push_mesh`].

use super::Batcher;
use crate::{Mesh, MeshError, TextureId, Vertex};

impl Batcher {
    /// Records the triangles of `mesh`, textured by `texture`, drawn after everything pushed
    /// before them and before everything pushed after, in the same draws as quads: same draw
    /// state (blend, clip, transform), same placement (atlas pages, class arrays, slots).
    /// For untextured shapes use [`TextureStore::white`](crate::TextureStore::white); [`crate::shapes`] tessellates paths,
    /// strokes, circles and rounded rectangles into meshes.
    ///
    /// Vertex `uv`s are `0..1` over `texture` (as [`crate::Quad::uv`]); a texture that shares
    /// its layer (an atlas page) is clamped to its own rectangle, so no uv reads a neighbour.
    /// Colours are premultiplied and interpolated across each triangle. Each triangle is one
    /// primitive ([`crate::plan::Instance::FLAG_TRIANGLE`]): a plan with triangles is drawn indexed
    /// ([`crate::FramePlan::indexed`]).
    ///
    /// ```
    /// use layerbatch_core::{Batcher, Config, Limits, Mesh, Quad, Vertex};
    /// let mut batcher = Batcher::new(Limits::desktop(), Config::default())?;
    /// let white = batcher.textures().white()?;
    /// let mut mesh = Mesh::default();
    /// let red = [255, 0, 0, 255];
    /// for p in [[0.0, 0.0], [40.0, 0.0], [0.0, 40.0]] {
    ///     mesh.push_vertex(Vertex::solid(p, red));
    /// }
    /// mesh.push_triangle(0, 1, 2);
    /// batcher.begin_frame();
    /// batcher.push(&Quad::solid(white, [0.0, 0.0], [64.0, 64.0], [0, 0, 255, 255]))?;
    /// batcher.push_mesh(white, &mesh)?; // on top of the quad, in the same draw
    /// let plan = batcher.finish();
    /// assert_eq!((plan.counters.quads, plan.counters.triangles, plan.segments.len()), (1, 1, 1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`MeshError`] for a stale or foreign texture, no open frame, an index count that is
    /// not a multiple of three, an index past the vertices, or a non-finite or out-of-range
    /// vertex. The whole mesh is refused (counted in [`crate::Counters::meshes_rejected`]):
    /// no triangle of it is recorded. Degenerate triangles (no area) are recorded and draw
    /// nothing.
    pub fn push_mesh(&mut self, texture: TextureId, mesh: &Mesh) -> Result<(), MeshError> {
        self.push_triangles(texture, &mesh.vertices, &mesh.indices)
    }

    /// [`Batcher::push_mesh`] on borrowed vertices and indices (three per triangle).
    ///
    /// # Errors
    /// As [`Batcher::push_mesh`].
    pub fn push_triangles(
        &mut self,
        texture: TextureId,
        vertices: &[Vertex],
        indices: &[u32],
    ) -> Result<(), MeshError> {
        self.recorder.push_triangles(&self.registry.hot, texture, vertices, indices, &mut self.frame)
    }
}
