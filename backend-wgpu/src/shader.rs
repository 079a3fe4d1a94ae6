//! The WGSL source of each slot tier's pipeline, generated from the tier.
//!
//! Bindings (the same for every tier, `T` = the tier):
//!
//! | group | binding | what                                         | stage    |
//! |-------|---------|----------------------------------------------|----------|
//! | 0     | 0       | `Globals` uniform (viewport size)            | vertex   |
//! | 0     | 1       | the one sampler (linear, clamp)              | fragment |
//! | 1     | 0       | `SlotInfo` uniform (size and levels by slot) | fragment |
//! | 1     | 1..=T   | `slot0..slotT-1: texture_2d_array`           | fragment |
//!
//! `SlotInfo` is `array<vec4<f32>, T>`: slot `i` holds `(width, height, mip levels, 0)` of the
//! array bound in it (level-0 size in texels), `(1, 1, 1, 0)` for the placeholder of an unused
//! slot. The renderer writes it when it creates the slot bind group; an array's description
//! never changes while it lives, so cached groups stay right.
//!
//! The instance's bit layout (slot, flags and layer packed in `slot_flags_layer`) is core's:
//! every name of [`Instance::SHADER_CONSTANTS`] is declared as `const NAME: u32 = VALUEu;`,
//! and the body unpacks with those names only, so the two cannot drift apart.
//!
//! **One sampler, not one per slot, and not two.** wgpu's GL backend turns every (texture,
//! sampler) pair into one GL texture unit and remembers a single sampler per texture binding, so
//! a texture binding sampled through two samplers silently uses one of them. The shader
//! therefore samples every slot through one trilinear, clamp-to-edge sampler, and makes the
//! per-texture choices itself from the instance flags.
//!
//! **One sample per slot.** Software rasterizers (lavapipe, llvmpipe) pay for every branch of a
//! fragment shader whether a fragment takes it or not, so the slot `switch` holds nothing but
//! one `textureSampleGrad(slotN, samp, uv, layer, gx, gy)` per case. Everything else is
//! computed once per fragment before the switch, branch-free (`select`), from the slot's
//! `SlotInfo` entry (the slot index clamped to `T - 1`, as the switch's `default` is):
//!
//! - `REPEAT` / `MIRROR`: the position is wrapped with `fract` (mirrored). The derivatives are
//!   those of the unwrapped coordinates, so no seam picks a wrong mip level.
//! - `CLAMP_TO_RECT`: the position is clamped into the quad's `uv_rect` inset by half a level-0
//!   texel, so neither padding nor a neighbouring frame bleeds in.
//! - `LINEAR`: the gradients are the real derivatives (bilinear, trilinear with mips).
//! - nearest: the level of detail is computed from the derivatives and the slot's size and
//!   rounded to the nearest level `L` (clamped by the slot's level count: GLES has no
//!   `textureNumLevels`). The position is snapped to the centre of its level-`L` texel (level
//!   size `max(1, size >> L)`), and the gradients are replaced by `(2^L / width, 0)` and
//!   `(0, 2^L / height)`, which make the sampler select exactly level `L`. A linear sample at a
//!   texel centre of that level is exactly that texel.
//!
//! Derivatives are taken first, in uniform control flow. The tier-1 shader has no branch at
//! all; above it the slot is a `switch` on the flat slot index. All texture work happens in the
//! fragment stage; the vertex stage reads only the instance attributes and the viewport
//! uniform.

use std::fmt::Write as _;

use layerbatch_core::Instance;

/// Group index of the globals (viewport uniform and sampler).
pub(crate) const GROUP_GLOBALS: u32 = 0;
/// Group index of a tier's slots.
pub(crate) const GROUP_SLOTS: u32 = 1;

/// Bytes of the `SlotInfo` uniform of a tier: one `vec4<f32>` per slot, `(width, height,
/// mip levels, 0)`.
pub(crate) fn slot_info_size(tier: u32) -> u64 {
    16 * u64::from(tier.max(1))
}

/// The WGSL source of the pipeline for `tier` slots (`tier >= 1`).
///
/// Entry points `vs_main` and `fs_main`. The vertex stage declares no texture and no sampler;
/// the fragment stage samples `tier` textures through one sampler.
///
/// ```
/// let src = layerbatch_wgpu::shader_source(4);
/// assert_eq!(src.matches("texture_2d_array<f32>;").count(), 4);
/// assert_eq!(src.matches(": sampler;").count(), 1);
/// ```
///
/// # Panics
/// If `tier` is 0.
pub fn shader_source(tier: u32) -> String {
    assert!(tier >= 1, "a tier has at least one slot");
    let mut s = String::with_capacity(4096 + 128 * tier as usize);
    let _ = write!(
        s,
        r"// layerbatch-wgpu: slot tier {tier}.

struct Globals {{
    viewport_px: vec2<f32>,
    _pad: vec2<f32>,
}};

struct SlotInfo {{
    // Per slot: (width, height, mip levels, 0) of the array bound in it, level 0 in texels.
    slots: array<vec4<f32>, {tier}>,
}};

@group({GROUP_GLOBALS}) @binding(0) var<uniform> globals: Globals;
@group({GROUP_GLOBALS}) @binding(1) var samp: sampler;
@group({GROUP_SLOTS}) @binding(0) var<uniform> slot_info: SlotInfo;
"
    );
    for i in 0..tier {
        let _ = writeln!(s, "@group({GROUP_SLOTS}) @binding({}) var slot{i}: texture_2d_array<f32>;", i + 1);
    }
    // The instance's bit layout, from core: the body below uses these names, never literals.
    s.push('\n');
    for (name, value) in Instance::SHADER_CONSTANTS {
        let _ = writeln!(s, "const {name}: u32 = {value}u;");
    }
    s.push_str(
        r"
struct VsOut {
    @builtin(position) position: vec4<f32>,
    @location(0) uv: vec2<f32>,
    @location(1) @interpolate(flat) rect: vec4<f32>,
    @location(2) color: vec4<f32>,
    @location(3) @interpolate(flat) slot_flags_layer: u32,
};

@vertex
fn vs_main(
    @builtin(vertex_index) vertex_index: u32,
    @location(0) origin: vec2<f32>,
    @location(1) axis_x: vec2<f32>,
    @location(2) axis_y: vec2<f32>,
    @location(3) uv_rect: vec4<f32>,
    @location(4) color: vec4<f32>,
    @location(5) slot_flags_layer: u32,
) -> VsOut {
    // A 4-vertex triangle strip: corner (s, t) = (i % 2, i / 2). Arithmetic, not bit
    // operations: every mask or shift of the source is one of the named layout constants.
    let st = vec2<f32>(f32(vertex_index % 2u), f32(vertex_index / 2u));
    let p = origin + st.x * axis_x + st.y * axis_y;
    let ndc = vec2<f32>(p.x / globals.viewport_px.x * 2.0 - 1.0, 1.0 - p.y / globals.viewport_px.y * 2.0);
    var out: VsOut;
    out.position = vec4<f32>(ndc, 0.0, 1.0);
    out.uv = mix(uv_rect.xy, uv_rect.zw, st);
    out.rect = vec4<f32>(min(uv_rect.xy, uv_rect.zw), max(uv_rect.xy, uv_rect.zw));
    out.color = color;
    out.slot_flags_layer = slot_flags_layer;
    return out;
}

fn wrap_uv(uv: vec2<f32>, flags: u32) -> vec2<f32> {
    let repeated = fract(uv);
    let mirrored = 1.0 - abs(fract(uv * 0.5) * 2.0 - 1.0);
    let mirror = select(uv, mirrored, (flags & FLAG_MIRROR) != 0u);
    return select(mirror, repeated, (flags & FLAG_REPEAT) != 0u);
}

fn clamp_to_rect(uv: vec2<f32>, rect: vec4<f32>, dims: vec2<f32>) -> vec2<f32> {
    let half_texel = 0.5 / dims;
    let centre = 0.5 * (rect.xy + rect.zw);
    let lo = min(rect.xy + half_texel, centre);
    let hi = max(rect.zw - half_texel, centre);
    return clamp(uv, lo, hi);
}

// The mip level nearest to the level of detail of (ddx, ddy) on a dims-sized level 0.
fn nearest_level(ddx: vec2<f32>, ddy: vec2<f32>, dims: vec2<f32>, levels: f32) -> u32 {
    let rho = max(length(ddx * dims), length(ddy * dims));
    let lod = log2(max(rho, 1e-6));
    return u32(clamp(floor(lod + 0.5), 0.0, levels - 1.0));
}

@fragment
fn fs_main(in: VsOut) -> @location(0) vec4<f32> {
    // Derivatives in uniform control flow, before any slot branch.
    let ddx = dpdx(in.uv);
    let ddy = dpdy(in.uv);
    let flags = (in.slot_flags_layer >> FLAGS_SHIFT) & FLAGS_MASK;
    let layer = i32(in.slot_flags_layer >> LAYER_SHIFT);
",
    );
    if tier == 1 {
        s.push_str("    let info = slot_info.slots[0];\n");
    } else {
        let _ = write!(
            s,
            r"    let slot = min(in.slot_flags_layer & SLOT_MASK, {}u);
    let info = slot_info.slots[slot];
",
            tier - 1
        );
    }
    s.push_str(
        r"    let dims = info.xy;
    let wrapped = wrap_uv(in.uv, flags);
    let uv = select(wrapped, clamp_to_rect(wrapped, in.rect, dims), (flags & FLAG_CLAMP_TO_RECT) != 0u);
    // Nearest: the level-L texel centre, and gradients that make the sampler pick level L.
    let level = nearest_level(ddx, ddy, dims, info.z);
    let d = vec2<f32>(max(vec2<u32>(dims) >> vec2<u32>(level), vec2<u32>(1u)));
    let centre = (clamp(floor(uv * d), vec2<f32>(0.0), d - 1.0) + 0.5) / d;
    let scale = f32(1u << level);
    let is_linear = (flags & FLAG_LINEAR) != 0u;
    let st = select(centre, uv, is_linear);
    let gx = select(vec2<f32>(scale / dims.x, 0.0), ddx, is_linear);
    let gy = select(vec2<f32>(0.0, scale / dims.y), ddy, is_linear);
",
    );
    if tier == 1 {
        s.push_str("    let texel = textureSampleGrad(slot0, samp, st, layer, gx, gy);\n");
    } else {
        s.push_str("    var texel: vec4<f32>;\n    switch slot {\n");
        for i in 0..tier {
            let label = if i + 1 == tier { format!("case {i}u, default") } else { format!("case {i}u") };
            let _ = writeln!(s, "        {label}: {{ texel = textureSampleGrad(slot{i}, samp, st, layer, gx, gy); }}");
        }
        s.push_str("    }\n");
    }
    s.push_str("    return texel * in.color;\n}\n");
    s
}
