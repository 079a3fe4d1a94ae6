//! The per-instance attribute table: the one list of what a vertex shader reads from an
//! [`Instance`]. The GL attribute pointers, the GLSL inputs, wgpu's vertex attributes and
//! the WGSL inputs are all generated from [`Instance::ATTRIBUTES`], so a new per-quad field
//! is one field in [`Instance`], one row here and its use in the two shader bodies.

use std::mem::offset_of;

use super::Instance;

/// How a vertex shader reads one attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AttributeFormat {
    /// Two `f32`: a `vec2` (GLSL) / `vec2<f32>` (WGSL).
    Float32x2,
    /// Four `f32`: a `vec4` / `vec4<f32>`.
    Float32x4,
    /// Four `u8` read as `0.0..=1.0` floats: a `vec4` / `vec4<f32>`.
    Unorm8x4,
    /// One `u32`, read as an integer: a `uint` / `u32`.
    Uint32,
    /// Four `u16` read as whole-number floats: a `vec4` (GL converts, not normalized) /
    /// `vec4<u32>` (WGSL, converted by the shader).
    Uint16x4,
}

impl AttributeFormat {
    /// Components the shader sees.
    pub const fn components(self) -> u32 {
        match self {
            AttributeFormat::Float32x2 => 2,
            AttributeFormat::Float32x4 | AttributeFormat::Unorm8x4 | AttributeFormat::Uint16x4 => 4,
            AttributeFormat::Uint32 => 1,
        }
    }
    /// Bytes the attribute takes in an [`Instance`].
    pub const fn bytes(self) -> u32 {
        match self {
            AttributeFormat::Float32x2 | AttributeFormat::Uint16x4 => 8,
            AttributeFormat::Float32x4 => 16,
            AttributeFormat::Unorm8x4 | AttributeFormat::Uint32 => 4,
        }
    }
    /// Read as integers (`u32` / `vec4<u32>` in the shader; GL's `glVertexAttribIPointer`),
    /// not converted to float.
    pub const fn is_integer(self) -> bool {
        matches!(self, AttributeFormat::Uint32 | AttributeFormat::Uint16x4)
    }
}

/// One attribute of an [`Instance`]: the field it reads, where, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct InstanceAttribute {
    /// The [`Instance`] field's name (`origin`, `uv_rect`, ...). The shader names the input
    /// after it (WGSL `origin`).
    pub name: &'static str,
    /// The shader location (`layout(location = N)`, `@location(N)`).
    pub location: u32,
    /// How the shader reads it.
    pub format: AttributeFormat,
    /// Byte offset of the field in an [`Instance`] (`offset_of!`).
    pub offset: u32,
}

const fn attribute(name: &'static str, location: u32, format: AttributeFormat, offset: usize) -> InstanceAttribute {
    InstanceAttribute { name, location, format, offset: offset as u32 }
}

impl Instance {
    /// Every attribute a vertex shader reads, by location. Each backend generates its vertex
    /// layout and its shader inputs from this table, and tests check the generated sources
    /// name every row.
    ///
    /// ```
    /// use layerbatch_core::plan::Instance;
    /// let bytes: u32 = Instance::ATTRIBUTES.iter().map(|a| a.format.bytes()).sum();
    /// assert_eq!(bytes, Instance::BYTES);
    /// assert!(Instance::ATTRIBUTES.iter().enumerate().all(|(i, a)| a.location == i as u32));
    /// ```
    pub const ATTRIBUTES: [InstanceAttribute; 9] = [
        attribute("origin", 0, AttributeFormat::Float32x2, offset_of!(Instance, origin)),
        attribute("axis_x", 1, AttributeFormat::Float32x2, offset_of!(Instance, axis_x)),
        attribute("axis_y", 2, AttributeFormat::Float32x2, offset_of!(Instance, axis_y)),
        attribute("uv_rect", 3, AttributeFormat::Float32x4, offset_of!(Instance, uv_rect)),
        attribute("tex_rect", 4, AttributeFormat::Uint16x4, offset_of!(Instance, tex_rect)),
        attribute("color", 5, AttributeFormat::Unorm8x4, offset_of!(Instance, color)),
        attribute("slot_flags_layer", 6, AttributeFormat::Uint32, offset_of!(Instance, slot_flags_layer)),
        // Read whole and unpacked by the shader, as a draw state's look parameters are: one
        // conversion for both, so the same bytes give the same floats.
        attribute("effect_params", 7, AttributeFormat::Uint32, offset_of!(Instance, effect_params)),
        attribute("effect", 8, AttributeFormat::Uint32, offset_of!(Instance, effect)),
    ];
}

// The table covers the instance exactly: rows in field order, no gap, no overlap.
const _: () = {
    let mut at = 0;
    let mut i = 0;
    while i < Instance::ATTRIBUTES.len() {
        let a = Instance::ATTRIBUTES[i];
        assert!(a.offset == at && a.location == i as u32);
        at += a.format.bytes();
        i += 1;
    }
    assert!(at == Instance::BYTES);
};
