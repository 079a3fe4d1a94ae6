//! The bytes of the shader's two uniform structs, `Globals` and `Lights`: the same bytes
//! whether a backend writes them into a uniform buffer (wgpu) or item by item into plain
//! uniforms (GL, naga's emulated immediates).

use bytemuck::{Pod, Zeroable};

use crate::FramePlan;

/// One `Globals` value, as the shader's struct reads it: the viewport, one draw state's
/// transform and tint, and the frame's time. wgpu keeps one per draw state of a plan in a
/// uniform buffer at a dynamic offset; GL writes the one of the segment being drawn.
///
/// ```
/// use layerbatch_core::shader::GlobalsEntry;
/// let e = GlobalsEntry::new([800, 0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [0.5; 4], 7.5);
/// let f: &[f32] = bytemuck::cast_slice(std::slice::from_ref(&e));
/// assert_eq!(f, &[800.0, 1.0, 7.5, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 0.0, 0.0, 0.5, 0.5, 0.5, 0.5]);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct GlobalsEntry {
    /// The visible viewport's size, pixels (at least 1 x 1).
    pub viewport_px: [f32; 2],
    /// The frame's time for effects, then padding.
    pub time_s: [f32; 2],
    /// The transform's linear part `[a, b, c, d]`.
    pub linear: [f32; 4],
    /// The translation `[tx, ty]`, then padding.
    pub translate: [f32; 4],
    /// The tint, premultiplied.
    pub tint: [f32; 4],
}

/// Bytes of one [`GlobalsEntry`].
pub const GLOBALS_BYTES: u64 = size_of::<GlobalsEntry>() as u64;

impl GlobalsEntry {
    /// The entry of a viewport `viewport_px` in size (each side at least 1), a 2x3 transform
    /// `[a, b, c, d, tx, ty]`, a premultiplied tint and the frame's time.
    pub fn new(viewport_px: [u32; 2], transform: [f32; 6], tint: [f32; 4], time_s: f32) -> Self {
        let [a, b, c, d, tx, ty] = transform;
        Self {
            viewport_px: [viewport_px[0].max(1) as f32, viewport_px[1].max(1) as f32],
            time_s: [time_s, 0.0],
            linear: [a, b, c, d],
            translate: [tx, ty, 0.0, 0.0],
            tint,
        }
    }
}

/// Bytes of the `Lights` struct for `lights` lights: the ambient colour and the count, then
/// two `vec4` a light.
pub const fn lights_bytes(lights: u32) -> u64 {
    16 + 32 * lights as u64
}

/// Writes into `out` (cleared first, so a frame allocates nothing) the `Lights` bytes of
/// `plan`, `lights` lights long (unused ones zero), with light positions moved by `offset_px`
/// as the quads are (into the visible viewport).
pub fn lights_uniform(out: &mut Vec<u8>, plan: &FramePlan, lights: u32, offset_px: [f32; 2]) {
    out.clear();
    let mut push = |v: [f32; 4]| out.extend_from_slice(bytemuck::bytes_of(&v));
    let [r, g, b] = plan.ambient;
    let count = plan.lights.len().min(lights as usize);
    push([r, g, b, count as f32]);
    for l in &plan.lights[..count] {
        let [[x, y, h, radius], colour] = l.packed();
        push([x + offset_px[0], y + offset_px[1], h, radius]);
        push(colour);
    }
    out.resize(lights_bytes(lights) as usize, 0);
}
