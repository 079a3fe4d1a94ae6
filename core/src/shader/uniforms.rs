//! The bytes of the shader's two uniform structs, `Globals` and `Lights`: the same bytes
//! whether a backend writes them into a uniform buffer (wgpu) or item by item into plain
//! uniforms (GL, naga's emulated immediates).

use bytemuck::{Pod, Zeroable};

use crate::FramePlan;

/// One `Globals` value, as the shader's struct reads it: the viewport, one draw state's
/// transform, tint and look, and the frame's time. wgpu keeps one per draw state of a plan in a
/// uniform buffer at a dynamic offset; GL writes the one of the segment being drawn.
///
/// ```
/// use layerbatch_core::shader::GlobalsEntry;
/// let e = GlobalsEntry::new([800, 0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [0.5; 4], 7.5);
/// let f: &[f32] = bytemuck::cast_slice(std::slice::from_ref(&e));
/// assert_eq!(f[..16], [800.0, 1.0, 7.5, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 0.0, 0.0, 0.5, 0.5, 0.5, 0.5]);
/// assert_eq!(f[16..], [0.0; 4]); // no look: each quad's own
/// // A resident layer drawn under effect 2, lit, with a colour offset: the word in two exact
/// // integers (its low byte, the offset's three bytes), then the parameters' bytes in two.
/// let word = 0x00FF_0102 | 0x80;
/// let e = e.with_look(word, [255, 0, 51, 255]);
/// let f: &[f32] = bytemuck::cast_slice(std::slice::from_ref(&e));
/// assert_eq!(f[16..], [130.0, 65281.0, 255.0, 65331.0]);
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
    /// The draw state's look ([`crate::plan::DrawState::look`]), ORed into each quad's by
    /// the shader, in exact integers: the word's low byte (effect and lit), its colour
    /// offset's three bytes, then its parameters' bytes 0-1 and 2-3 (little-endian). All 0:
    /// each quad's own look.
    pub look: [f32; 4],
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
            look: [0.0; 4],
        }
    }

    /// This entry with a draw state's look ([`crate::plan::DrawState::look`] and its
    /// parameters); a look of 0 leaves each quad's own.
    #[must_use]
    pub fn with_look(self, look: u32, params: [u8; 4]) -> Self {
        if look == 0 {
            return self;
        }
        let low = look & ((1 << crate::plan::Instance::COLOR_OFFSET_SHIFT) - 1);
        let offset = look >> crate::plan::Instance::COLOR_OFFSET_SHIFT;
        let [p0, p1, p2, p3] = params.map(f32::from);
        Self { look: [low as f32, offset as f32, p0 + p1 * 256.0, p2 + p3 * 256.0], ..self }
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
