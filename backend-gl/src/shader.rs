//! GLSL sources of the slot-tier programs. Pure string generation, no GL calls.
//!
//! One vertex shader serves every tier. The fragment shader of tier `n` declares `n`
//! `sampler2DArray` uniforms `u_slot0..u_slot{n-1}` and picks one with a balanced tree of
//! `if`s on the flat per-instance slot (about `log2(n)` comparisons per pixel); the layer is a
//! texture coordinate, never a branch. The tier-1 program has no branch at all. Derivatives of
//! the UV are taken before any branch and every sample uses `textureGrad`, so mipmaps select
//! the right level whichever branch runs.

use std::fmt::Write as _;

use layerbatch_core::Instance;

/// Vertex attribute locations, fixed by `layout(location = N)` in the vertex shader. Each
/// reads the [`Instance`] field of the same name, at its `Instance::OFFSET_*` byte offset.
pub(crate) mod attr {
    /// `origin: [f32; 2]`.
    pub(crate) const ORIGIN: u32 = 0;
    /// `axis_x: [f32; 2]`.
    pub(crate) const AXIS_X: u32 = 1;
    /// `axis_y: [f32; 2]`.
    pub(crate) const AXIS_Y: u32 = 2;
    /// `uv_rect: [f32; 4]`.
    pub(crate) const UV_RECT: u32 = 3;
    /// `color: [u8; 4]`, normalized.
    pub(crate) const COLOR: u32 = 4;
    /// `slot_flags_layer: u32` (an integer attribute).
    pub(crate) const SLOT_FLAGS_LAYER: u32 = 5;
    /// Number of attributes.
    pub(crate) const COUNT: u32 = 6;
}

/// Name of the `vec2` uniform holding the viewport size in pixels.
pub(crate) const VIEWPORT_UNIFORM: &str = "u_viewport_px";

/// Name of the sampler uniform of `slot`.
pub(crate) fn slot_uniform(slot: u32) -> String {
    format!("u_slot{slot}")
}

fn header(gles: bool, fragment: bool) -> &'static str {
    match (gles, fragment) {
        (false, _) => "#version 330 core\n",
        (true, false) => "#version 300 es\nprecision highp float;\nprecision highp int;\n",
        (true, true) => {
            "#version 300 es\nprecision highp float;\nprecision highp int;\nprecision highp sampler2DArray;\n"
        }
    }
}

const VERTEX_BODY: &str = r"
layout(location = 0) in vec2 a_origin;
layout(location = 1) in vec2 a_axis_x;
layout(location = 2) in vec2 a_axis_y;
layout(location = 3) in vec4 a_uv_rect;
layout(location = 4) in vec4 a_color;
layout(location = 5) in uint a_slot_flags_layer;

// Viewport size in pixels: (0, 0) is the top-left corner, y points down.
uniform vec2 u_viewport_px;

out vec2 v_uv;
flat out vec4 v_rect;
flat out vec4 v_color;
flat out uint v_slot;
flat out float v_clamp;
flat out float v_layer;

void main() {
    // Corner (s, t) of a 4-vertex triangle strip: (0,0) (1,0) (0,1) (1,1).
    vec2 st = vec2(float(gl_VertexID % 2), float(gl_VertexID / 2));
    vec2 pos = a_origin + st.x * a_axis_x + st.y * a_axis_y;
    gl_Position = vec4(pos.x / u_viewport_px.x * 2.0 - 1.0, 1.0 - pos.y / u_viewport_px.y * 2.0, 0.0, 1.0);
    v_uv = mix(a_uv_rect.xy, a_uv_rect.zw, st);
    v_rect = vec4(min(a_uv_rect.xy, a_uv_rect.zw), max(a_uv_rect.xy, a_uv_rect.zw));
    v_color = a_color;
    // The bit layout of Instance::slot_flags_layer, from the constants above.
    v_slot = a_slot_flags_layer & SLOT_MASK;
    uint flags = (a_slot_flags_layer >> FLAGS_SHIFT) & FLAGS_MASK;
    v_clamp = float((flags & FLAG_CLAMP_TO_RECT) != 0u);
    v_layer = float(a_slot_flags_layer >> LAYER_SHIFT);
}
";

const FRAGMENT_COMMON: &str = r"
in vec2 v_uv;
flat in vec4 v_rect;
flat in vec4 v_color;
flat in uint v_slot;
flat in float v_clamp;
flat in float v_layer;

layout(location = 0) out vec4 o_color;

// Samples one layer of an array. With FLAG_CLAMP_TO_RECT the position is clamped into the
// instance's uv rect inset by half a texel (branch-free), so linear filtering never reads the
// padding or a neighbour. The gradients come from the caller, taken before any branch.
vec4 sample_array(sampler2DArray s, vec2 uv, vec2 ddx, vec2 ddy) {
    vec2 half_texel = 0.5 / vec2(textureSize(s, 0).xy);
    vec2 mid = 0.5 * (v_rect.xy + v_rect.zw);
    vec2 lo = min(v_rect.xy + half_texel, mid);
    vec2 hi = max(v_rect.zw - half_texel, mid);
    vec2 p = mix(uv, clamp(uv, lo, hi), v_clamp);
    return textureGrad(s, vec3(p, v_layer), ddx, ddy);
}
";

/// Appends the instance layout constants, `const uint NAME = VALUEu;` for every entry of
/// [`Instance::SHADER_CONSTANTS`], so the shaders unpack instances with the values core packs
/// them with, by name.
fn layout_constants(out: &mut String) {
    out.push_str("\n// Instance::SHADER_CONSTANTS (layerbatch-core): the bit layout of slot_flags_layer.\n");
    for (name, value) in Instance::SHADER_CONSTANTS {
        let _ = writeln!(out, "const uint {name} = {value}u;");
    }
}

/// Appends the slot choice over slots `lo..hi` as a balanced tree of `if`s.
fn slot_tree(out: &mut String, lo: u32, hi: u32, depth: usize) {
    let pad = "    ".repeat(depth);
    if hi - lo == 1 {
        let _ = writeln!(out, "{pad}texel = sample_array(u_slot{lo}, v_uv, ddx, ddy);");
        return;
    }
    let mid = lo + (hi - lo) / 2;
    let _ = writeln!(out, "{pad}if (v_slot < {mid}u) {{");
    slot_tree(out, lo, mid, depth + 1);
    let _ = writeln!(out, "{pad}}} else {{");
    slot_tree(out, mid, hi, depth + 1);
    let _ = writeln!(out, "{pad}}}");
}

/// The `(vertex, fragment)` GLSL sources of the program of `tier` slots: `#version 330 core`,
/// or `#version 300 es` when `gles`.
///
/// The vertex stage declares no sampler; the fragment stage declares exactly `tier`
/// `sampler2DArray`s. Tier 1 has no branch. Both stages declare every constant of
/// [`Instance::SHADER_CONSTANTS`] as `const uint NAME = VALUEu;` and use those names, never
/// literals, for the instance bit layout.
///
/// # Panics
/// If `tier` is 0.
///
/// ```
/// let (vs, fs) = layerbatch_gl::shader_sources(4, true);
/// assert!(vs.starts_with("#version 300 es"));
/// assert_eq!(vs.matches("sampler2DArray").count(), 0);
/// assert_eq!(fs.matches("uniform sampler2DArray").count(), 4);
/// ```
pub fn shader_sources(tier: u32, gles: bool) -> (String, String) {
    assert!(tier > 0, "a program samples at least one slot");
    let mut vs = String::from(header(gles, false));
    layout_constants(&mut vs);
    vs.push_str(VERTEX_BODY);
    let mut fs = String::from(header(gles, true));
    layout_constants(&mut fs);
    fs.push('\n');
    for s in 0..tier {
        let _ = writeln!(fs, "uniform sampler2DArray {};", slot_uniform(s));
    }
    fs.push_str(FRAGMENT_COMMON);
    fs.push_str("\nvoid main() {\n    vec2 ddx = dFdx(v_uv);\n    vec2 ddy = dFdy(v_uv);\n    vec4 texel;\n");
    slot_tree(&mut fs, 0, tier, 1);
    fs.push_str("    // Texel and tint are both premultiplied.\n    o_color = texel * v_color;\n}\n");
    (vs, fs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tier_one_has_no_branch() {
        for gles in [false, true] {
            let (vs, fs) = shader_sources(1, gles);
            assert!(!fs.contains("if ("), "{fs}");
            assert!(!vs.contains("if ("), "{vs}");
        }
    }

    #[test]
    fn tree_covers_every_slot_once() {
        for tier in [2, 3, 4, 10, 16, 32] {
            let (_, fs) = shader_sources(tier, false);
            for s in 0..tier {
                assert_eq!(fs.matches(&format!("sample_array(u_slot{s},")).count(), 1, "tier {tier} slot {s}");
            }
            assert_eq!(fs.matches("if (").count() as u32, tier - 1);
            assert_eq!(fs.matches("uniform sampler2DArray").count() as u32, tier);
        }
    }

    #[test]
    fn derivatives_before_branch() {
        let (_, fs) = shader_sources(8, true);
        let main = fs.find("void main()").unwrap();
        let ddx = fs[main..].find("dFdx").unwrap();
        let first_if = fs[main..].find("if (").unwrap();
        assert!(ddx < first_if);
        assert!(!fs.contains("texture("), "every sample uses textureGrad");
    }
}
