//! Shapes tessellated into [`crate::Mesh`]es (lyon), anti-aliased by feathering.
