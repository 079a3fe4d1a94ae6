//! The WGSL source of each slot tier's pipeline, generated from the tier.
//!
//! Bindings (the same for every tier, `T` = the tier):
//!
//! | group | binding | what                                  | stage    |
//! |-------|---------|---------------------------------------|----------|
//! | 0     | 0       | `Globals` uniform (viewport size)     | vertex   |
//! | 0     | 1       | the one sampler (linear, clamp)       | fragment |
//! | 1     | 0       | `SlotInfo` uniform (mip levels/slot)  | fragment |
//! | 1     | 1..=T   | `slot0..slotT-1: texture_2d_array`    | fragment |
//!
//! **One sampler, not one per slot, and not two.** wgpu's GL backend turns every (texture,
//! sampler) pair into one GL texture unit and remembers a single sampler per texture binding, so
//! a texture binding sampled through two samplers silently uses one of them. The shader
//! therefore samples every slot through one trilinear, clamp-to-edge sampler, and makes the
//! per-texture choices itself from the instance flags:
//!
//! - `LINEAR`: `textureSampleGrad` with the derivatives taken before the slot switch (bilinear,
//!   trilinear with mips).
//! - nearest: the level of detail is computed from the same derivatives and rounded to the
//!   nearest level (clamped by the slot's level count from `SlotInfo`: GLES has no
//!   `textureNumLevels`), and the position is snapped to that level's texel centre before a
//!   `textureSampleLevel`. A linear sample at a texel centre is exactly that texel.
//! - `CLAMP_TO_RECT`: the position is clamped into the quad's `uv_rect` inset by half a texel, so
//!   neither padding nor a neighbouring frame bleeds in.
//! - `REPEAT` / `MIRROR`: wrapped with `fract` (mirrored) before the switch; the derivatives are
//!   those of the unwrapped coordinates, so no seam picks a wrong mip level.
//!
//! The tier-1 shader has no branch; above it the slot is a `switch` on the flat slot index. All
//! texture work happens in the fragment stage; the vertex stage reads only the instance
//! attributes and the viewport uniform.

use std::fmt::Write as _;

/// Group index of the globals (viewport uniform and sampler).
pub(crate) const GROUP_GLOBALS: u32 = 0;
/// Group index of a tier's slots.
pub(crate) const GROUP_SLOTS: u32 = 1;

/// Bytes of the `SlotInfo` uniform of a tier: one `u32` per slot, in `vec4<u32>` rows.
pub(crate) fn slot_info_size(tier: u32) -> u64 {
    16 * u64::from(tier.div_ceil(4).max(1))
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
    let rows = tier.div_ceil(4);
    let mut s = String::with_capacity(2048 + 1024 * tier as usize);
    let _ = write!(
        s,
        r"// layerbatch-wgpu: slot tier {tier}.

struct Globals {{
    viewport_px: vec2<f32>,
    _pad: vec2<f32>,
}};

struct SlotInfo {{
    // Mip levels of the array in each slot: slot i is levels[i / 4][i % 4].
    levels: array<vec4<u32>, {rows}>,
}};

@group({GROUP_GLOBALS}) @binding(0) var<uniform> globals: Globals;
@group({GROUP_GLOBALS}) @binding(1) var samp: sampler;
@group({GROUP_SLOTS}) @binding(0) var<uniform> slot_info: SlotInfo;
"
    );
    for i in 0..tier {
        let _ = writeln!(s, "@group({GROUP_SLOTS}) @binding({}) var slot{i}: texture_2d_array<f32>;", i + 1);
    }
    s.push_str(
        r"
const FLAG_CLAMP_TO_RECT: u32 = 1u;
const FLAG_LINEAR: u32 = 2u;
const FLAG_REPEAT: u32 = 4u;
const FLAG_MIRROR: u32 = 8u;

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
    // A 4-vertex triangle strip: corner (s, t) = (i & 1, i >> 1).
    let st = vec2<f32>(f32(vertex_index & 1u), f32(vertex_index >> 1u));
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
    if (flags & FLAG_REPEAT) != 0u {
        return fract(uv);
    }
    if (flags & FLAG_MIRROR) != 0u {
        return 1.0 - abs(fract(uv * 0.5) * 2.0 - 1.0);
    }
    return uv;
}

fn clamp_to_rect(uv: vec2<f32>, rect: vec4<f32>, dims: vec2<f32>) -> vec2<f32> {
    let half_texel = 0.5 / dims;
    let centre = 0.5 * (rect.xy + rect.zw);
    let lo = min(rect.xy + half_texel, centre);
    let hi = max(rect.zw - half_texel, centre);
    return clamp(uv, lo, hi);
}

fn nearest_level(ddx: vec2<f32>, ddy: vec2<f32>, dims: vec2<f32>, levels: u32) -> i32 {
    if levels <= 1u {
        return 0;
    }
    let rho = max(length(ddx * dims), length(ddy * dims));
    let lod = log2(max(rho, 1e-6));
    return clamp(i32(floor(lod + 0.5)), 0, i32(levels) - 1);
}
",
    );
    let comps = ["x", "y", "z", "w"];
    for i in 0..tier {
        let levels = format!("slot_info.levels[{}].{}", i / 4, comps[(i % 4) as usize]);
        let _ = write!(
            s,
            r"
fn sample_slot{i}(uv_in: vec2<f32>, rect: vec4<f32>, layer: i32, flags: u32, ddx: vec2<f32>, ddy: vec2<f32>) -> vec4<f32> {{
    let dims = vec2<f32>(textureDimensions(slot{i}, 0));
    var uv = uv_in;
    if (flags & FLAG_CLAMP_TO_RECT) != 0u {{
        uv = clamp_to_rect(uv, rect, dims);
    }}
    if (flags & FLAG_LINEAR) != 0u {{
        return textureSampleGrad(slot{i}, samp, uv, layer, ddx, ddy);
    }}
    let level = nearest_level(ddx, ddy, dims, {levels});
    let d = vec2<f32>(textureDimensions(slot{i}, level));
    let texel = clamp(floor(uv * d), vec2<f32>(0.0), d - 1.0);
    return textureSampleLevel(slot{i}, samp, (texel + 0.5) / d, layer, f32(level));
}}
"
        );
    }
    s.push_str(
        r"
@fragment
fn fs_main(in: VsOut) -> @location(0) vec4<f32> {
    // Derivatives in uniform control flow, before any slot branch.
    let ddx = dpdx(in.uv);
    let ddy = dpdy(in.uv);
    let flags = (in.slot_flags_layer >> 8u) & 0xffu;
    let layer = i32(in.slot_flags_layer >> 16u);
    let uv = wrap_uv(in.uv, flags);
",
    );
    if tier == 1 {
        s.push_str("    let texel = sample_slot0(uv, in.rect, layer, flags, ddx, ddy);\n");
    } else {
        s.push_str("    var texel: vec4<f32>;\n    switch in.slot_flags_layer & 0xffu {\n");
        for i in 0..tier {
            let label = if i + 1 == tier { format!("case {i}u, default") } else { format!("case {i}u") };
            let _ = writeln!(s, "        {label}: {{ texel = sample_slot{i}(uv, in.rect, layer, flags, ddx, ddy); }}");
        }
        s.push_str("    }\n");
    }
    s.push_str("    return texel * in.color;\n}\n");
    s
}
