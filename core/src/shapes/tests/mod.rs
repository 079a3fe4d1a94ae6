//! Shape unit tests: bad input, properties and mesh sizes. The pixel comparisons with
//! tiny-skia are in `core/tests/shapes.rs`, against the test kit's reference.

mod bad_input;
mod props;
mod sizes;

use crate::Mesh;

/// Every index in range and every position finite.
pub(super) fn assert_sound(mesh: &Mesh) {
    assert_eq!(mesh.indices.len() % 3, 0);
    for &i in &mesh.indices {
        assert!((i as usize) < mesh.vertices.len(), "index {i} past {} vertices", mesh.vertices.len());
    }
    for v in &mesh.vertices {
        assert!(v.pos_px.iter().all(|c| c.is_finite()), "vertex {v:?}");
    }
}
